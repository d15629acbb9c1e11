/* tests/test_gpu_gemv.c (gpu): every row of the gemv op, in every type,
 * checked against the FP64 reference through the run loop (plan, poison,
 * run once, verify: `compare --check-only`) at the shapes the kernels find
 * hardest: rows not 16-byte aligned (333 x 1001), a few very long rows
 * (7 x 100001, 7 x 1000001: split-k's case), many very short ones (100000 x 3),
 * a square aligned one (4096 x 4096) and 1 x 1. The shapes are set
 * directly (the command line's GEMM shape bound, 65536 a dimension, does
 * not apply to the op itself); COMPARE_TEST_QUICK=1 leaves out the two
 * largest (for compute-sanitizer). Every row must PASS (none declines a shape).
 * Then the planted wrong kernel (test_wrong, test-only: the row length off
 * by one) must FAIL in every type, so the verdict is shown to bite.
 * Fresh inputs each run: the seed comes from the clock (or
 * COMPARE_TEST_SEED) and is printed. */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "device.h"
#include "op.h"
#include "plan.h"
#include "run.h"
#include "testlib_gpu.h"

typedef struct {
    int rows, ok, failed;
    int wrong_failed;          /* test_wrong rows that FAILed */
    char what[96];
} collect;

static void collect_case(void *ctx, result_row *rows, int count)
{
    collect *c = ctx;
    for (int i = 0; i < count; i++) {
        const result_row *r = &rows[i];
        c->rows++;
        if (strcmp(r->variant, "test_wrong") == 0) {
            CHECK(r->status == STATUS_FAIL, "%s %s %s: planted wrong kernel %s (%s)", c->what, r->variant, r->math,
                  status_name(r->status), r->message);
            if (r->status == STATUS_FAIL) c->wrong_failed++;
            printf("%s %s %s: %s %s\n", c->what, r->variant, r->math, status_name(r->status), r->message);
            continue;
        }
        CHECK(r->status == STATUS_OK, "%s %s %s: %s %s", c->what, r->variant, r->math, status_name(r->status),
              r->message);
        CHECK(r->rel_err >= 0 && r->rel_err <= r->tolerance, "%s %s %s: rel_err %g tolerance %g", c->what, r->variant,
              r->math, r->rel_err, r->tolerance);
        if (r->status == STATUS_OK) c->ok++;
        else c->failed++;
        printf("%s %-14s %s: %s rel_err %.3g (tolerance %.3g) kernel %s\n", c->what, r->variant, r->math,
               status_name(r->status), r->rel_err, r->tolerance, r->kernel[0] ? r->kernel : "-");
    }
}

/* Runs op gemv at m x k over every type: its visible rows (plus test_wrong
 * when planted); returns the rows seen. */
static int run_shape(device_ctx *dev, long long m, long long k, int planted, unsigned long long seed, collect *c)
{
    cli_options o;
    plan p;
    char err[512];
    volatile sig_atomic_t stop = 0;
    run_sink sink = {collect_case, c};
    cli_defaults(&o);
    o.op_names[0] = "gemv";
    o.op_name_count = 1;
    o.gemm[0].m = m;
    o.gemm[0].n = 1;
    o.gemm[0].k = k;
    o.gemm_count = 1;
    o.seed = seed;
    o.check_only = 1;
    o.progress = 0;
    if (planted) {
        o.test_variants = 1;
        o.variants[0] = "test_wrong";
        o.variant_count = 1;
    }
    snprintf(c->what, sizeof c->what, "gemv %lldx%lld", m, k);
    c->rows = 0;
    CHECK(cli_resolve(&o, ops_catalog(), err, sizeof err) == 0, "%s: cli_resolve: %s", c->what, err);
    CHECK(plan_build(&p, &o, ops_catalog(), err, sizeof err) == 0, "%s: plan_build: %s", c->what, err);
    CHECK(run_plan(dev, &o, &p, &sink, &stop) == 0 || planted, "%s: run_plan failed", c->what);
    plan_free(&p);
    return c->rows;
}

int main(void)
{
    static const long long shapes[][2] = {{333, 1001}, {7, 100001}, {100000, 3}, {1, 1},
                                          {64, 8192},  {4096, 4096}, {7, 1000001}};
    /* COMPARE_TEST_QUICK=1 (under compute-sanitizer): the first five only */
    const char *quick = getenv("COMPARE_TEST_QUICK");
    const size_t nshapes = quick && strcmp(quick, "1") == 0 ? 5 : sizeof shapes / sizeof shapes[0];
    const catalog *cat;
    device_ctx dev;
    char err[512];
    unsigned long long seed = (unsigned long long)time(NULL);
    const char *env = getenv("COMPARE_TEST_SEED");
    int visible = 0;
    test_require_gpu();
    if (env) seed = strtoull(env, NULL, 10);
    printf("seed %llu (set COMPARE_TEST_SEED to repeat)\n", seed);
    if (device_open(&dev, 0, seed, err, sizeof err)) {
        fprintf(stderr, "%s\n", err);
        return 1;
    }
    cat = ops_catalog();
    CHECK(catalog_op(cat, "gemv") >= 0, "no op gemv in the catalog");
    for (int i = 0; i < cat->variant_count; i++)
        visible += strcmp(cat->variants[i].op, "gemv") == 0 && !cat->variants[i].test_only &&
                   !catalog_family(&cat->variants[i]);
    CHECK(visible >= 4, "gemv: %d rows, expected the 2 cuBLAS and 2 hand rows at least", visible);
    for (size_t i = 0; i < nshapes; i++) {
        collect c = {0};
        const int rows = run_shape(&dev, shapes[i][0], shapes[i][1], 0, seed + i, &c);
        CHECK(rows == 3 * visible, "%s: %d rows, expected %d (every row in fp32, bf16, fp16)", c.what, rows,
              3 * visible);
    }
    /* the planted wrong kernel FAILs in every type (the references run too: they pass) */
    {
        static const long long planted[][2] = {{333, 1001}, {4096, 4096}, {1, 1}};
        for (size_t i = 0; i < sizeof planted / sizeof planted[0]; i++) {
            collect c = {0};
            run_shape(&dev, planted[i][0], planted[i][1], 1, seed + 100 + i, &c);
            CHECK(c.wrong_failed == 3, "%s: test_wrong FAILed in %d of 3 types", c.what, c.wrong_failed);
        }
    }
    device_close(&dev);
    return test_finish("test_gpu_gemv");
}
