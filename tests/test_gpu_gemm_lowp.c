/* tests/test_gpu_gemm_lowp.c (gpu): every row of the gemm op (src/gpu/op_gemm.c)
 * in every type (fp16, bf16, fp8_e4m3) and layout (tn, nn), through the
 * same path as `compare --check-only` (plan, poison, run once, verify),
 * at shapes that cross every tile edge and alignment: 1x1x1, 17x31x33,
 * 333x257x1001 (k odd: the element-load instances), 333x257x1008 (m, n
 * odd, k a multiple of 16 but not of a 64-byte slab: fp8's 16-byte path
 * with a partial last slab and single-element C stores), 4096x8x4096 (a
 * thin n with a long k), 128x136x64 (whole tiles in m, k; n % 16 == 8),
 * 1000x1000x1024 (partial tiles in m and n, whole slabs, paired C stores),
 * 2048^3 (the 16-byte path). A row is ok, or SKIP with its reason (cublas
 * on FP8, cuBLASLt FP8 on layout nn or unaligned k / n, the mma.sync rungs
 * on FP8 in layout nn or without sm_89 code: for those rungs in fp8 tn no
 * other reason passes); the hand rows mma and multistage name the kernel
 * they ran (the _elem instance, with a reason, exactly when the rows of k,
 * or of n in layout nn, are not whole 16-byte chunks: 8 or 16 elements),
 * and cublaslt_best names its pick ("fastest of"). The planted wrong kernel
 * (test_wrong: k - 1 terms) FAILs in fp16 and bf16, both layouts.
 * COMPARE_TEST_QUICK=1: the small shapes only. Seed from the clock or
 * COMPARE_TEST_SEED, printed. */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "device.h"
#include "op.h"
#include "plan.h"
#include "run.h"
#include "testlib_gpu.h"

typedef struct {
    int rows, ok, skipped, failed;
    int want_fail;          /* the planted run: test_wrong must FAIL */
    const char *what;
} collect;

static int ends_with(const char *s, const char *suffix)
{
    size_t a = strlen(s), b = strlen(suffix);
    return a >= b && strcmp(s + a - b, suffix) == 0;
}

/* the mma.sync rungs (kernels/gemm_mma.cu, gemm_multistage.cu): their rows are named without the op's prefix */
static int is_mma_rung(const char *v) { return strcmp(v, "mma") == 0 || strcmp(v, "multistage") == 0; }

static void collect_case(void *ctx, result_row *rows, int count)
{
    collect *c = ctx;
    for (int i = 0; i < count; i++) {
        const result_row *r = &rows[i];
        c->rows++;
        if (r->status == STATUS_SKIP) {
            CHECK(r->message[0] != '\0', "%s %s %s: SKIP without a reason", c->what, r->variant, r->math);
            /* the mma.sync rungs run fp8 in layout tn wherever the GPU and the code are sm_89+ */
            if (is_mma_rung(r->variant) && strcmp(r->math, "fp8_e4m3") == 0 && strstr(c->what, " tn") != NULL)
                CHECK(strstr(r->message, "needs sm_89+") != NULL, "%s %s fp8_e4m3: SKIP for another reason: %s",
                      c->what, r->variant, r->message);
            printf("SKIP %s %s %s: %s\n", c->what, r->variant, r->math, r->message);
            c->skipped++;
            continue;
        }
        if (c->want_fail && strcmp(r->variant, "test_wrong") == 0) {
            CHECK(r->status == STATUS_FAIL, "%s test_wrong %s: %s, expected FAIL (%s)", c->what, r->math,
                  status_name(r->status), r->message);
            c->failed += r->status == STATUS_FAIL;
            continue;
        }
        CHECK(r->status == STATUS_OK, "%s %s %s: %s %s", c->what, r->variant, r->math, status_name(r->status),
              r->message);
        if (r->status != STATUS_OK) continue;
        c->ok++;
        CHECK(r->rel_err >= 0 && r->rel_err <= r->tolerance, "%s %s %s: rel_err %g tolerance %g", c->what,
              r->variant, r->math, r->rel_err, r->tolerance);
        if (strcmp(r->variant, "cublaslt_best") == 0)
            CHECK(strstr(r->kernel, "fastest of") != NULL, "%s cublaslt_best %s: kernel '%s'", c->what, r->math,
                  r->kernel);
        if (is_mma_rung(r->variant)) {
            /* the element-load instance exactly when the rows are not 16-byte chunks */
            const int b_nn = strstr(c->what, " nn") != NULL;
            const int epc = strcmp(r->math, "fp8_e4m3") == 0 ? 16 : 8; /* elements in a 16-byte chunk */
            const int elem = r->k % epc != 0 || (b_nn && r->n % epc != 0);
            CHECK(r->kernel[0] != '\0', "%s %s %s: no kernel noted", c->what, r->variant, r->math);
            CHECK(ends_with(r->kernel, "_elem") == elem && (r->kernel_note[0] != '\0') == elem,
                  "%s %s %s: kernel '%s' note '%s'", c->what, r->variant, r->math, r->kernel, r->kernel_note);
        }
    }
}

/* Checked runs of op gemm at one shape, every type, layout `layout`. */
static void run_shape(device_ctx *dev, const cli_shape *sh, const char *layout, unsigned long long seed,
                      int planted)
{
    cli_options o;
    plan p;
    char err[512], what[128];
    volatile sig_atomic_t stop = 0;
    collect c = {0, 0, 0, 0, planted, what};
    run_sink sink = {collect_case, &c};
    cli_defaults(&o);
    o.op_names[0] = "gemm";
    o.op_name_count = 1;
    o.gemm[0] = *sh;
    o.gemm_count = 1;
    o.seed = seed;
    o.check_only = 1;
    o.progress = 0;
    if (planted) {
        o.test_variants = 1;
        o.variants[0] = "test_wrong";
        o.variant_count = 1;
    }
    snprintf(what, sizeof what, "gemm %lldx%lldx%lld %s%s", sh->m, sh->n, sh->k, layout, planted ? " planted" : "");
    CHECK(cli_axis_set(&o, "--axis", "layout", layout, err, sizeof err) == 0, "%s", err);
    CHECK(cli_axis_set(&o, "--axis", "type", "fp16,bf16,fp8_e4m3", err, sizeof err) == 0, "%s", err);
    CHECK(cli_resolve(&o, ops_catalog(), err, sizeof err) == 0, "%s: cli_resolve: %s", what, err);
    CHECK(plan_build(&p, &o, ops_catalog(), err, sizeof err) == 0, "%s: plan_build: %s", what, err);
    const int rc = run_plan(dev, &o, &p, &sink, &stop);
    CHECK(planted ? rc == 1 : rc == 0, "%s: run_plan returned %d", what, rc);
    plan_free(&p);
    CHECK(c.rows > 0, "%s: no rows", what);
    if (planted)
        CHECK(c.failed == 2, "%s: test_wrong failed in %d types, expected 2 (fp16, bf16)", what, c.failed);
    printf("%s: %d rows, %d ok, %d SKIP%s\n", what, c.rows, c.ok, c.skipped, planted ? " (planted FAILs)" : "");
}

int main(void)
{
    static const cli_shape full[] = {{1, 1, 1},       {17, 31, 33},   {333, 257, 1001},   {333, 257, 1008},
                                     {128, 136, 64},   {4096, 8, 4096}, {1000, 1000, 1024}, {2048, 2048, 2048}};
    static const cli_shape quick[] = {{1, 1, 1}, {17, 31, 33}, {333, 257, 1001}, {333, 257, 1008}, {128, 136, 64}};
    static const cli_shape planted = {256, 192, 160};
    const char *quick_env = getenv("COMPARE_TEST_QUICK");
    const int q = quick_env && strcmp(quick_env, "1") == 0;
    const cli_shape *shapes = q ? quick : full;
    const size_t count = q ? sizeof quick / sizeof quick[0] : sizeof full / sizeof full[0];
    const char *const layouts[] = {"tn", "nn"};
    device_ctx dev;
    const unsigned long long seed = test_open_device(&dev);
    for (size_t i = 0; i < count; i++)
        for (int l = 0; l < 2; l++) run_shape(&dev, &shapes[i], layouts[l], seed + 2 * i + (unsigned)l, 0);
    for (int l = 0; l < 2; l++) run_shape(&dev, &planted, layouts[l], seed + 100 + (unsigned)l, 1);
    device_close(&dev);
    return test_finish("test_gpu_gemm_lowp");
}
