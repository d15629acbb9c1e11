/* tests/test_gpu_variants.c: every visible variant of every op of the
 * catalog, checked against its reference at awkward sizes (square and
 * rectangular GEMM shapes, odd lengths), through the same code path as
 * `compare --check-only` (plan, poison, run once, verify). Fresh inputs each
 * run: the seed comes from the clock (or COMPARE_TEST_SEED) and is printed.
 * A row is ok, or SKIP with its reason (a variant whose supports hook
 * declines the device or the forced policy mode, COMPARE_POLICY_ARCH: the
 * sm_90a rows off Hopper); every SKIP is printed. */
#include <stdlib.h>
#include <string.h>

#include "axes.h"
#include "cli.h"
#include "device.h"
#include "op.h"
#include "plan.h"
#include "run.h"
#include "testlib_gpu.h"

typedef struct {
    int rows, ok, skipped; /* skipped: SKIP rows (each with its reason) */
    const char *what;
} collect;

static void collect_case(void *ctx, result_row *rows, int count)
{
    collect *c = ctx;
    for (int i = 0; i < count; i++) {
        const result_row *r = &rows[i];
        c->rows++;
        if (r->status == STATUS_SKIP) { /* a variant that declines this device or mode: with its reason */
            CHECK(r->message[0] != '\0', "%s %s %s m=%lld elems=%lld: SKIP without a reason", c->what, r->op,
                  r->variant, r->m, r->elems);
            printf("SKIP %s %s m=%lld elems=%lld: %s\n", r->op, r->variant, r->m, r->elems, r->message);
            c->skipped++;
            continue;
        }
        CHECK(r->status == STATUS_OK, "%s %s %s m=%lld elems=%lld: %s %s", c->what, r->op, r->variant, r->m,
              r->elems, status_name(r->status), r->message);
        CHECK(r->rel_err >= 0 && r->rel_err <= r->tolerance, "%s %s: rel_err %g tolerance %g", r->op, r->variant,
              r->rel_err, r->tolerance);
        if (r->status == STATUS_OK) c->ok++;
    }
}

/* Rows one size of op `oi` must give: its visible variants, once per value
 * each enum axis takes by default (element type, input distribution: all
 * their values; gemm's layout: tn alone). */
static int expected_rows(const catalog *cat, int oi)
{
    const op_info *op = &cat->ops[oi];
    int n = 0, cases = 1;
    cli_options defaults;
    cli_defaults(&defaults);
    for (int a = 0; a < catalog_axis_count(op); a++) {
        axes_list values;
        char err[256];
        if (op->axes[a].kind != OP_AXIS_ENUM) continue;
        CHECK(axes_values(&defaults, op, a, &values, err, sizeof err) == 0, "%s: %s", op->name, err);
        cases *= values.count;
    }
    for (int i = 0; i < cat->variant_count; i++)
        if (strcmp(cat->variants[i].op, op->name) == 0 && !cat->variants[i].test_only &&
            !catalog_family(&cat->variants[i])) /* search candidates run only with --candidates */
            n++;
    return n * cases;
}

/* Plans and runs op `oi` at one size (--check-only); checks every row. */
/* Resolves o, plans it and runs it (checked runs only: o.check_only) into
 * sink; `what` names the run in a failure. */
static void run_checked(device_ctx *dev, cli_options *o, run_sink *sink, const char *what)
{
    plan p;
    char err[512];
    volatile sig_atomic_t stop = 0;
    o->check_only = 1;
    o->progress = 0;
    CHECK(cli_resolve(o, ops_catalog(), err, sizeof err) == 0, "%s: cli_resolve: %s", what, err);
    CHECK(plan_build(&p, o, ops_catalog(), err, sizeof err) == 0, "%s: plan_build: %s", what, err);
    CHECK(run_plan(dev, o, &p, sink, &stop) == 0, "%s: run_plan failed", what);
    plan_free(&p);
}

static void run_one(device_ctx *dev, int oi, const cli_shape *shape, long long elems, unsigned long long seed)
{
    const catalog *cat = ops_catalog();
    cli_options o;
    char what[128];
    collect c = {0, 0, 0, what};
    run_sink sink = {collect_case, &c};
    cli_defaults(&o);
    o.op_names[0] = cat->ops[oi].name;
    o.op_name_count = 1;
    if (shape) {
        o.gemm[0] = *shape;
        o.gemm_count = 1;
        snprintf(what, sizeof what, "%s %lldx%lldx%lld", cat->ops[oi].name, shape->m, shape->n, shape->k);
    } else {
        o.elems[0] = elems;
        o.elems_count = 1;
        snprintf(what, sizeof what, "%s elems=%lld", cat->ops[oi].name, elems);
    }
    o.seed = seed;
    if (catalog_axis(&cat->ops[oi], "cpu_max_n") >= 0) { /* the CPU rows too, at every size (one checked run each) */
        char err[256];
        CHECK(cli_axis_set(&o, "--cpu-max-n", "cpu_max_n", "65536", err, sizeof err) == 0, "%s", err);
    }
    run_checked(dev, &o, &sink, what);
    CHECK(c.rows == expected_rows(cat, oi), "%s: %d rows, expected %d", what, c.rows, expected_rows(cat, oi));
}

/* rel_err of the rows named cublas_tf32 and tf32_tma */
typedef struct {
    double lib, hand;
} tf32_errs;

static void collect_tf32(void *ctx, result_row *rows, int count)
{
    tf32_errs *e = ctx;
    for (int i = 0; i < count; i++) {
        CHECK(rows[i].status == STATUS_OK, "tf32 rounding: %s: %s %s", rows[i].variant, status_name(rows[i].status),
              rows[i].message);
        if (strcmp(rows[i].variant, "cublas_tf32") == 0) e->lib = rows[i].rel_err;
        if (strcmp(rows[i].variant, "tf32_tma") == 0) e->hand = rows[i].rel_err;
    }
}

/* tf32_tma rounds both operands to TF32 as cuBLAS TF32 does (its TF32 tensor
 * maps), rather than letting the tensor core truncate them: on uniform
 * (-1, 1] inputs truncating both gives sqrt(7) = 2.65x the error of rounding
 * both, so its error against the FP64 reference must stay within 1.3x
 * cuBLAS TF32's. Shapes: the TMA path straight, n not a multiple of 4 (staged
 * operands), thin m (the thin picks). */
static void check_tf32_rounding(device_ctx *dev, unsigned long long seed)
{
    static const cli_shape shapes[] = {{1024, 1024, 1024}, {1000, 1030, 1028}, {16, 4096, 4096}};
    if (!test_sm90a_runs()) { /* tf32_tma declines this device or mode (the line above says why) */
        printf("tf32 rounding: not checked\n");
        return;
    }
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
        cli_options o;
        tf32_errs e = {-1, -1};
        run_sink sink = {collect_tf32, &e};
        cli_defaults(&o);
        o.op_names[0] = "sgemm";
        o.op_name_count = 1;
        o.variants[0] = "cublas_tf32";
        o.variants[1] = "tf32_tma";
        o.variant_count = 2;
        o.gemm[0] = shapes[i];
        o.gemm_count = 1;
        o.seed = seed + i;
        run_checked(dev, &o, &sink, "tf32 rounding");
        CHECK(e.lib > 0 && e.hand > 0, "tf32 rounding %lldx%lldx%lld: rel_err cublas_tf32 %g tf32_tma %g",
              shapes[i].m, shapes[i].n, shapes[i].k, e.lib, e.hand);
        CHECK(e.hand <= 1.3 * e.lib, "tf32 rounding %lldx%lldx%lld: tf32_tma rel_err %g > 1.3 x cublas_tf32's %g",
              shapes[i].m, shapes[i].n, shapes[i].k, e.hand, e.lib);
        printf("tf32 rounding %lldx%lldx%lld: rel_err tf32_tma %.3g, cublas_tf32 %.3g\n", shapes[i].m, shapes[i].n,
               shapes[i].k, e.hand, e.lib);
    }
}

int main(void)
{
    static const cli_shape gemm_full[] = {{1, 1, 1},     {2, 2, 2},        {17, 17, 17},   {31, 31, 31},
                                          {33, 33, 33},  {100, 100, 100},  {1000, 1000, 1000}, {2049, 2049, 2049},
                                          {4095, 4095, 4095}, {17, 31, 33}, {1000, 68, 1000}, {129, 4097, 33},
                                          {300, 4, 700}, {1, 1024, 4096}};
    static const cli_shape gemm_quick[] = {{1, 1, 1},   {2, 2, 2},       {17, 17, 17}, {31, 31, 31},
                                           {33, 33, 33}, {100, 100, 100}, {129, 129, 129}, {257, 257, 257},
                                           {17, 31, 33}, {129, 260, 36}};
    static const long long elems_full[] = {1, 2, 31, 32, 33, 1023, 1025, (1LL << 20) + 3, 1LL << 24};
    static const long long elems_quick[] = {1, 2, 31, 32, 33, 1023, 1025, 4099, 65539};
    /* COMPARE_TEST_QUICK=1 (under the slower compute-sanitizer tools): sizes
     * that still cross every tile edge, but small */
    const char *quick_env = getenv("COMPARE_TEST_QUICK");
    int quick = quick_env && strcmp(quick_env, "1") == 0;
    const cli_shape *gemm = quick ? gemm_quick : gemm_full;
    const long long *elems = quick ? elems_quick : elems_full;
    size_t gemm_count = quick ? sizeof gemm_quick / sizeof gemm_quick[0] : sizeof gemm_full / sizeof gemm_full[0];
    size_t elems_count = quick ? sizeof elems_quick / sizeof elems_quick[0] : sizeof elems_full / sizeof elems_full[0];
    device_ctx dev;
    const catalog *cat;
    const unsigned long long seed = test_open_device(&dev);
    cat = ops_catalog();
    /* every op of the catalog, at every size of its kind, each size with its own seed */
    for (int oi = 0; oi < cat->op_count; oi++) {
        /* softmax, rmsnorm, layernorm: sized by their rows and cols axes, and
         * their naive softmax FAILs under `wide` by design: tests/test_gpu_rowwise.c */
        if (catalog_axis(&cat->ops[oi], "rows") >= 0) continue;
        /* attention: sized by its own axes (batch, heads, seq_q, ...): tests/test_gpu_attention.c */
        if (catalog_axis(&cat->ops[oi], "seq_q") >= 0) continue;
        /* conv2d: sized by its own axes (batch, c_in, c_out, h, w, r): tests/test_gpu_conv.c */
        if (catalog_axis(&cat->ops[oi], "c_in") >= 0) continue;
        if (cat->ops[oi].size_kind != OP_SIZE_ELEMS) /* GEMM shapes; matrix ops take their m x n */
            for (size_t i = 0; i < gemm_count; i++) run_one(&dev, oi, &gemm[i], 0, seed + i);
        else
            for (size_t i = 0; i < elems_count; i++) run_one(&dev, oi, NULL, elems[i], seed + 100 + i);
    }
    check_tf32_rounding(&dev, seed + 200);
    device_close(&dev);
    return test_finish("test_gpu_variants");
}
