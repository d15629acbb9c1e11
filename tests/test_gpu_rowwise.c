/* tests/test_gpu_rowwise.c (gpu): every row of softmax, rmsnorm and
 * layernorm, checked against the FP64 reference through the path of
 * `compare --check-only` (plan, poison, run once, verify), in every type
 * (fp32, bf16, fp16), at an odd shape (333 x 1001) and at long odd rows
 * (5 x 70001: past one SM's shared memory in fp32), softmax under both
 * distributions. A row is ok, or SKIP with its reason (the cluster rows off
 * sm_90, cuDNN declining a type); the naive softmax must FAIL under `wide`
 * (exp overflows: NaN/Inf in its output) and pass under `uniform`. The
 * planted wrong row (test_wrong: the cub composition with its reductions
 * over the first half of each row) must FAIL in every op and type. And
 * compare, with COMPARE_CUDNN_LIB pointing at a missing file, reports the
 * cudnn rows SKIP "cuDNN not found (dlopen: ...)".
 * COMPARE_REQUIRE_CUDNN=1 (on a machine with cuDNN) makes a cudnn row that
 * SKIPs because cuDNN was not found a failure. The norms' cudnn rows name
 * their engine in `kernel` ("... norm forward engine N, scale T (heuristic A,
 * fastest of M)": printed). Fresh inputs each run: the
 * seed comes from the clock (or COMPARE_TEST_SEED) and is printed. */
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
    int rows, ok, skipped, failed;
    int wrong_failed;          /* test_wrong rows that FAILed */
    int naive_wide_failed;     /* naive softmax rows under wide that FAILed by overflow */
    const char *what;
} collect;

static int require_cudnn(void)
{
    const char *e = getenv("COMPARE_REQUIRE_CUDNN");
    return e && strcmp(e, "1") == 0;
}

static void collect_case(void *ctx, result_row *rows, int count)
{
    collect *c = ctx;
    for (int i = 0; i < count; i++) {
        const result_row *r = &rows[i];
        const int wide = r->dist && strcmp(r->dist, "wide") == 0;
        const int naive_wide = strcmp(r->op, "softmax") == 0 && strcmp(r->variant, "naive") == 0 && wide;
        c->rows++;
        if (strcmp(r->variant, "test_wrong") == 0) {
            CHECK(r->status == STATUS_FAIL, "%s %s %s %s: planted wrong row is %s (%s)", c->what, r->op, r->math,
                  r->shape, status_name(r->status), r->message);
            c->wrong_failed += r->status == STATUS_FAIL;
            continue;
        }
        if (naive_wide) {
            CHECK(r->status == STATUS_FAIL && test_contains(r->message, "NaN/Inf") &&
                      !test_contains(r->message, "(0 NaN/Inf)"),
                  "%s softmax naive %s %s wide: %s, expected FAIL by overflow (%s)", c->what, r->math, r->shape,
                  status_name(r->status), r->message);
            c->naive_wide_failed += r->status == STATUS_FAIL;
            continue;
        }
        if (r->status == STATUS_SKIP) {
            CHECK(r->message[0] != '\0', "%s %s %s %s: SKIP without a reason", c->what, r->op, r->variant, r->math);
            CHECK(strcmp(r->variant, "cluster") == 0 || strcmp(r->variant, "cudnn") == 0,
                  "%s %s %s %s: only the cluster and cudnn rows may SKIP (%s)", c->what, r->op, r->variant, r->math,
                  r->message);
            if (strcmp(r->variant, "cudnn") == 0 && require_cudnn())
                CHECK(!test_contains(r->message, "not found"), "%s %s cudnn %s: cuDNN required: %s", c->what, r->op,
                      r->math, r->message);
            printf("SKIP %s %s %s %s: %s\n", r->op, r->variant, r->math, r->shape, r->message);
            c->skipped++;
            continue;
        }
        CHECK(r->status == STATUS_OK, "%s %s %s %s %s %s: %s %s", c->what, r->op, r->variant, r->math, r->shape,
              r->dist ? r->dist : "", status_name(r->status), r->message);
        CHECK(r->status != STATUS_OK || (r->rel_err >= 0 && r->rel_err <= r->tolerance), "%s %s: err %g tol %g",
              r->op, r->variant, r->rel_err, r->tolerance);
        if (r->status == STATUS_OK) c->ok++;
        /* the norms' cudnn row names the engine it timed fastest */
        if (r->status == STATUS_OK && strcmp(r->variant, "cudnn") == 0 && strcmp(r->op, "softmax") != 0) {
            CHECK(test_contains(r->kernel, "norm forward engine"), "%s %s cudnn %s: kernel \"%s\" names no engine",
                  c->what, r->op, r->math, r->kernel);
            printf("%s %s cudnn %s: %s\n", c->what, r->op, r->math, r->kernel);
        }
    }
}

/* Visible rows of op (test-only rows too when `test`) times its enum axes' values. */
static int expected_rows(const char *op_name, int test, int n_dists)
{
    const catalog *cat = ops_catalog();
    int n = 0;
    for (int i = 0; i < cat->variant_count; i++)
        if (strcmp(cat->variants[i].op, op_name) == 0 && (test || !cat->variants[i].test_only)) n++;
    return n * 3 * n_dists;
}

/* Runs op at rows x cols in every type (and dist, softmax) checked only;
 * test: the test_wrong row and the libraries only. */
static void run_op(device_ctx *dev, const char *op, const char *rows, const char *cols, int test,
                   unsigned long long seed)
{
    const int softmax = strcmp(op, "softmax") == 0;
    static const char *const planted[] = {"test_wrong", NULL};
    const char *const axes[][2] = {{"rows", rows}, {"cols", cols}, {"type", "fp32,bf16,fp16"}, {"dist", "uniform,wide"}};
    char what[128];
    collect c = {0, 0, 0, 0, 0, 0, what};
    run_sink sink = {collect_case, &c};
    snprintf(what, sizeof what, "%s %sx%s%s", op, rows, cols, test ? " (planted)" : "");
    /* a FAIL (the naive softmax under wide, the planted row) makes the run's status 1 */
    const int rc = test_run_axes(dev, op, axes, softmax ? 4 : 3, test ? planted : NULL, seed, &sink);
    CHECK(rc == ((softmax || test) ? 1 : 0), "%s: run_plan returned %d", what, rc);
    if (test) {
        CHECK(c.wrong_failed == 3 * (softmax ? 2 : 1), "%s: %d planted rows failed", what, c.wrong_failed);
    } else {
        CHECK(c.rows == expected_rows(op, 0, softmax ? 2 : 1), "%s: %d rows, expected %d", what, c.rows,
              expected_rows(op, 0, softmax ? 2 : 1));
        if (softmax) CHECK(c.naive_wide_failed == 3, "%s: naive failed under wide in %d types", what, c.naive_wide_failed);
    }
    printf("%s: %d rows, %d ok, %d skipped\n", what, c.rows, c.ok, c.skipped);
}

/* compare with cuDNN out of reach: the cudnn rows SKIP with the loader's text */
static void check_cudnn_missing(void)
{
    static test_proc proc;
    char *env[] = {"COMPARE_CUDNN_LIB=/nonexistent/libcudnn.so.9", NULL};
    char *argv[] = {COMPARE_BIN, "--ops", "rmsnorm", "--variants", "cudnn", "--axis", "rows=33", "--axis", "cols=65",
                    "--axis", "type=fp32", "--check-only", "--quiet", NULL};
    test_run(argv, env, 0, 0, 120, &proc);
    CHECK(proc.status == 0, "compare without cuDNN: exit %d\n%s\n%s", proc.status, proc.out, proc.err);
    CHECK(test_contains(proc.out, "SKIP") && test_contains(proc.out, "cuDNN not found"),
          "compare without cuDNN: no SKIP \"cuDNN not found\" row:\n%s", proc.out);
}

/* the clock's seed, or COMPARE_TEST_SEED's; printed */
static unsigned long long rowwise_seed(void)
{
    const char *env = getenv("COMPARE_TEST_SEED");
    const unsigned long long seed = env ? strtoull(env, NULL, 10) : (unsigned long long)time(NULL);
    printf("seed %llu (set COMPARE_TEST_SEED to repeat)\n", seed);
    return seed;
}

int main(void)
{
    static const char *const ops[] = {"softmax", "rmsnorm", "layernorm"};
    device_ctx dev;
    char err[512];
    test_require_gpu();
    const unsigned long long seed = rowwise_seed();
    const int opened = device_open(&dev, 0, seed, err, sizeof err) == 0;
    CHECK(opened, "device_open: %s", err);
    for (int i = 0; opened && i < 3; i++) {
        run_op(&dev, ops[i], "333", "1001", 0, seed + (unsigned long long)i);
        run_op(&dev, ops[i], "5", "70001", 0, seed + 10 + (unsigned long long)i);
        run_op(&dev, ops[i], "333", "1001", 1, seed + 20 + (unsigned long long)i);
    }
    if (opened) device_close(&dev);
    check_cudnn_missing();
    return test_finish("test_gpu_rowwise");
}
