/* tests/test_gpu_conv.c (gpu): every row of the conv2d op, in fp32, fp16 and
 * bf16, checked against the FP64 reference through the run loop (plan,
 * poison, run once, verify: `compare --check-only`) at shapes that cross
 * every tile edge: the odd 1001 x 777 image at r = 5, a batch of two
 * 300 x 257 images at r = 15 (a mask wider than a tiled rung's tile
 * height), a 5 x 3 image under a 7 x 7 mask, a 1 x 1 image, C = K = 3
 * multi-channel with a batch of 2 (r = 3, 5), C = 3 -> K = 2, a batch of two
 * 70 x 260 images at r = 3, 7 (fast's vector path with partial tiles on the
 * right and at the bottom), C = 5 -> K = 70 (two blocks of output channels in
 * the implicit GEMM, a reduction tail), a 2048 x 2048 single-channel image at
 * r = 3 and 9 (fast's vector path), and the ResNet layer C = K = 64, 3 x 3,
 * 56 x 56 at batch 2 (const_mask's mask no longer fits), and fast's tap form
 * for fp16 / bf16 (C = K = 64 on a 9 x 13 image at r = 3, 5; C = 32 -> K = 48
 * on 61 x 37, batch 3, r = 3, 5; C = 16 -> K = 130 on 58 x 30): fast's
 * 16-bit rows must name it (`kernel` fast_tap_...) there and in the ResNet
 * layer, and must not where c_in is not a multiple of 16. fast_tf32 (fp32
 * in TF32 math, fast's tap form on tensor cores) must be ok in fp32 at the
 * r = 3 tap cases and the ResNet layer (`kernel` fast_tf32_tap_...), and
 * SKIP with its reason elsewhere (the 16-bit types; c_in % 8 != 0; r not 3
 * or 5); at r = 5 it runs alone in fp32 (C = K = 64 on 9 x 13, C = 32 ->
 * K = 48 on 61 x 37). COMPARE_TEST_QUICK=1
 * (for compute-sanitizer) leaves out the two largest. An even r is a case no
 * row takes: every row SKIP with the reason. Every row must PASS, except the declines by design: fast_tf32 as
 * above, const_mask
 * where the mask exceeds its __constant__ bytes, cudnn_tensor_op where cuDNN's
 * Find has no tensor-op algorithm or cuDNN declines the case, and the cudnn
 * rows without cuDNN;
 * COMPARE_REQUIRE_CUDNN=1 (the GPU machine) makes a SKIP of `cudnn`, or one
 * of cudnn_tensor_op for another reason, a failure. Then the planted wrong
 * kernel (test_nohalo, test-only: the halo dropped) must FAIL in every type
 * at 1001 x 777 r = 5 and in the multi-channel case. Fresh inputs each run:
 * the seed comes from the clock (or COMPARE_TEST_SEED) and is printed. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "device.h"
#include "op.h"
#include "plan.h"
#include "run.h"
#include "testlib_gpu.h"

typedef struct {
    int rows, ok, skipped, nohalo_failed;
    const char *what;
    const char *expect_skip; /* non-NULL: every row must be SKIP with this in its reason */
    int expect_tap;          /* 1: fast's fp16 / bf16 rows name the tap form (fast_tap_...); -1: they do not */
    int tap_rows;            /* fast's 16-bit rows that named it */
    int tf32_rows;           /* fast_tf32 rows ok (fp32 in tf32 math, kernel fast_tf32_tap_...) */
    const char *only;        /* non-NULL: only this row is judged (the library rows that run beside it are not) */
} collect;

static int env_is(const char *name)
{
    const char *e = getenv(name);
    return e && strcmp(e, "1") == 0;
}

/* a SKIP that is a decline by design (see the header) */
static int skip_allowed(const result_row *r)
{
    if (strcmp(r->variant, "const_mask") == 0) return test_contains(r->message, "__constant__");
    if (strcmp(r->variant, "cudnn_tensor_op") == 0)
        return test_contains(r->message, "no algorithm of tensor-op math") ||
               test_contains(r->message, "cuDNN declines this case") || !env_is("COMPARE_REQUIRE_CUDNN");
    if (strcmp(r->variant, "cudnn") == 0) return !env_is("COMPARE_REQUIRE_CUDNN");
    /* fp32 only, and there its tap form's r and c_in; where it must run, the
     * case checks tf32_rows */
    if (strcmp(r->variant, "fast_tf32") == 0)
        return test_contains(r->message, "fp32 only: the 16-bit types' tap form is `fast`") ||
               test_contains(r->message, "the TF32 tap form takes");
    return 0;
}

static void collect_case(void *ctx, result_row *rows, int count)
{
    collect *c = ctx;
    for (int i = 0; i < count; i++) {
        const result_row *r = &rows[i];
        c->rows++;
        if (c->only && strcmp(r->variant, c->only) != 0) {
            printf("%s: %s %s %s not judged here (%s)\n", c->what, r->variant, r->math, status_name(r->status),
                   r->message);
            continue;
        }
        if (c->expect_skip) {
            CHECK(r->status == STATUS_SKIP && test_contains(r->message, c->expect_skip),
                  "%s %s %s %s: %s (%s), expected SKIP naming \"%s\"", c->what, r->variant, r->math, r->shape,
                  status_name(r->status), r->message, c->expect_skip);
            c->skipped += r->status == STATUS_SKIP;
            continue;
        }
        if (strcmp(r->variant, "test_nohalo") == 0) {
            CHECK(r->status == STATUS_FAIL, "%s %s %s: planted test_nohalo is %s (%s)", c->what, r->math, r->shape,
                  status_name(r->status), r->message);
            c->nohalo_failed += r->status == STATUS_FAIL;
            printf("%s %s %s: test_nohalo %s %s\n", c->what, r->math, r->shape, status_name(r->status), r->message);
            continue;
        }
        if (r->status == STATUS_SKIP) {
            CHECK(r->message[0] != '\0', "%s %s %s: SKIP without a reason", c->what, r->variant, r->shape);
            CHECK(skip_allowed(r), "%s %s %s %s: an unexpected SKIP: %s", c->what, r->variant, r->math, r->shape,
                  r->message);
            printf("SKIP %s %s %s: %s\n", r->variant, r->math, r->shape, r->message);
            c->skipped++;
            continue;
        }
        CHECK(r->status == STATUS_OK, "%s %s %s %s: %s %s", c->what, r->variant, r->math, r->shape,
              status_name(r->status), r->message);
        CHECK(r->status != STATUS_OK || (r->rel_err >= 0 && r->rel_err <= r->tolerance), "%s %s %s: err %g tol %g",
              r->shape, r->variant, r->math, r->rel_err, r->tolerance);
        CHECK(r->flops > 0 && r->bytes > 0, "%s %s: no FLOP or byte count", r->shape, r->variant);
        if (strcmp(r->variant, "fast") == 0 && strcmp(r->math, "fp32") != 0 && r->status == STATUS_OK) {
            const int tap = test_contains(r->kernel, "fast_tap");
            c->tap_rows += tap;
            CHECK(c->expect_tap == 0 || tap == (c->expect_tap > 0), "%s fast %s %s: kernel %s, expected %s",
                  c->what, r->math, r->shape, r->kernel[0] ? r->kernel : "-",
                  c->expect_tap > 0 ? "the tap form (fast_tap_...)" : "the gathered form");
        }
        if (strcmp(r->variant, "fast_tf32") == 0 && r->status == STATUS_OK) {
            const int tf32 = strcmp(r->math, "tf32") == 0 && test_contains(r->kernel, "fast_tf32_tap");
            c->tf32_rows += tf32;
            CHECK(tf32, "%s fast_tf32 %s %s: kernel %s, expected math tf32 and the kernel fast_tf32_tap_...",
                  c->what, r->math, r->shape, r->kernel[0] ? r->kernel : "-");
        }
        if (r->status == STATUS_OK) c->ok++;
        printf("%-16s %-5s %s: %s worst %.3g (tolerance %.3g) kernel %s\n", r->variant, r->math, r->shape,
               status_name(r->status), r->rel_err, r->tolerance, r->kernel[0] ? r->kernel : "-");
    }
}

/* Runs the op over the axes given (checked only); planted: the test row
 * alone (with the reference rows); c->only: that row alone (with the
 * reference rows, not judged: run_plan's status is theirs too). */
static void run_op(device_ctx *dev, const char *const axes[][2], int n_axes, int planted, unsigned long long seed,
                   collect *c)
{
    static const char *const planted_rows[] = {"test_nohalo", NULL};
    const char *const only_rows[] = {c->only, NULL};
    run_sink sink = {collect_case, c};
    const int rc = test_run_axes(dev, "conv2d", axes, n_axes, planted ? planted_rows : c->only ? only_rows : NULL,
                                 seed, &sink);
    if (c->only)
        CHECK(rc == 0 || rc == 1, "%s: run_plan returned %d", c->what, rc);
    else
        CHECK(rc == (planted ? 1 : 0), "%s: run_plan returned %d", c->what, rc);
    printf("%s: %d rows, %d ok, %d skipped\n", c->what, c->rows, c->ok, c->skipped);
}

/* every case in the three types */
#define AXES(...) ((const char *const[][2]){{"type", "fp32,fp16,bf16"}, __VA_ARGS__})
#define NAXES(...) ((int)(sizeof AXES(__VA_ARGS__) / sizeof(const char *const[2])))
#define RUN(dev, planted, seed, c, ...) run_op(dev, AXES(__VA_ARGS__), NAXES(__VA_ARGS__), planted, seed, c)
/* a case in the 16-bit types alone (fast's tap form is theirs) */
#define AXES16(...) ((const char *const[][2]){{"type", "fp16,bf16"}, __VA_ARGS__})
#define RUN16(dev, planted, seed, c, ...) run_op(dev, AXES16(__VA_ARGS__), NAXES(__VA_ARGS__), planted, seed, c)
/* a case in fp32 alone (fast_tf32 at r = 5, with c->only set) */
#define AXES32(...) ((const char *const[][2]){{"type", "fp32"}, __VA_ARGS__})
#define RUN32(dev, planted, seed, c, ...) run_op(dev, AXES32(__VA_ARGS__), NAXES(__VA_ARGS__), planted, seed, c)

int main(void)
{
    const char *quick = getenv("COMPARE_TEST_QUICK");
    const int full = !(quick && strcmp(quick, "1") == 0);
    device_ctx dev;
    const unsigned long long seed = test_open_device(&dev);
    const catalog *cat = ops_catalog();
    int visible = 0;
    CHECK(catalog_op(cat, "conv2d") >= 0, "no op conv2d in the catalog");
    for (int i = 0; i < cat->variant_count; i++)
        visible += strcmp(cat->variants[i].op, "conv2d") == 0 && !cat->variants[i].test_only &&
                   !catalog_family(&cat->variants[i]);
    CHECK(visible == 8, "conv2d: %d rows, expected cudnn, cudnn_tensor_op, the five rungs and fast_tf32", visible);

    /* every row, every type: 3 types x the visible rows per case */
    collect s[9];
    memset(s, 0, sizeof s);
    s[0].what = "1001x777 r=5";
    RUN(&dev, 0, seed, &s[0], {"h", "1001"}, {"w", "777"}, {"r", "5"});
    s[1].what = "batch 2 300x257 r=15";
    RUN(&dev, 0, seed + 1, &s[1], {"batch", "2"}, {"h", "300"}, {"w", "257"}, {"r", "15"});
    s[2].what = "5x3 r=7 and 1x1 r=3";
    RUN(&dev, 0, seed + 2, &s[2], {"h", "5"}, {"w", "3"}, {"r", "7"});
    RUN(&dev, 0, seed + 3, &s[2], {"h", "1"}, {"w", "1"}, {"r", "3"});
    s[3].what = "c=k=3 batch 2 61x67 r=3,5";
    RUN(&dev, 0, seed + 4, &s[3], {"batch", "2"}, {"c_in", "3"}, {"c_out", "3"}, {"h", "61"}, {"w", "67"},
        {"r", "3,5"});
    s[4].what = "c=3 k=2 batch 3 40x36 r=3 (c_in != c_out)";
    RUN(&dev, 0, seed + 5, &s[4], {"batch", "3"}, {"c_in", "3"}, {"c_out", "2"}, {"h", "40"}, {"w", "36"},
        {"r", "3"});
    s[5].what = "batch 2 70x260 r=3,7 (fast's vector path, partial tiles)";
    RUN(&dev, 0, seed + 8, &s[5], {"batch", "2"}, {"h", "70"}, {"w", "260"}, {"r", "3,7"});
    s[6].what = "c=5 k=70 20x23 r=3 (two blocks of output channels)";
    s[6].expect_tap = -1; /* c_in % 16 != 0: the gathered form */
    RUN(&dev, 0, seed + 9, &s[6], {"c_in", "5"}, {"c_out", "70"}, {"h", "20"}, {"w", "23"}, {"r", "3"});
    if (full) {
        s[7].what = "2048x2048 r=3,9";
        RUN(&dev, 0, seed + 6, &s[7], {"h", "2048"}, {"w", "2048"}, {"r", "3,9"});
        s[8].what = "resnet c=k=64 56x56 batch 2 r=3";
        s[8].expect_tap = 1;
        RUN(&dev, 0, seed + 7, &s[8], {"batch", "2"}, {"c_in", "64"}, {"c_out", "64"}, {"h", "56"}, {"w", "56"},
            {"r", "3"});
    }
    /* fast's tap form (kernels/conv2d_fast_tap.cuh: fp16 / bf16, r = 3 or 5,
     * c_in % 16 == 0): a 9 x 13 image smaller than its 28 x 8 tile, odd
     * sizes with c_out = 48 (a masked block of output channels), c_out = 130
     * (three blocks, the last two channels), several tiles and chunks.
     * r = 5 in the 16-bit types only: there cuDNN's Find (9.14, H200) may
     * pick WINOGRAD_NONFUSED for the fp32 `cudnn` row on these small images,
     * whose output misses FP32's rule by about 40x (it FAILs in compare, as
     * it must; docs/conv.md); this test is about the hand rows */
    collect t[5];
    memset(t, 0, sizeof t);
    t[0].what = "tap c=k=64 batch 2 9x13 r=3";
    t[0].expect_tap = 1;
    RUN(&dev, 0, seed + 11, &t[0], {"batch", "2"}, {"c_in", "64"}, {"c_out", "64"}, {"h", "9"}, {"w", "13"},
        {"r", "3"});
    t[1].what = "tap c=32 k=48 batch 3 61x37 r=3";
    t[1].expect_tap = 1;
    RUN(&dev, 0, seed + 12, &t[1], {"batch", "3"}, {"c_in", "32"}, {"c_out", "48"}, {"h", "61"}, {"w", "37"},
        {"r", "3"});
    t[2].what = "tap c=16 k=130 58x30 r=3";
    t[2].expect_tap = 1;
    RUN(&dev, 0, seed + 13, &t[2], {"c_in", "16"}, {"c_out", "130"}, {"h", "58"}, {"w", "30"}, {"r", "3"});
    t[3].what = "tap c=k=64 batch 2 9x13 r=5 (16-bit)";
    t[3].expect_tap = 1;
    RUN16(&dev, 0, seed + 14, &t[3], {"batch", "2"}, {"c_in", "64"}, {"c_out", "64"}, {"h", "9"}, {"w", "13"},
          {"r", "5"});
    t[4].what = "tap c=32 k=48 batch 3 61x37 r=5 (16-bit)";
    t[4].expect_tap = 1;
    RUN16(&dev, 0, seed + 15, &t[4], {"batch", "3"}, {"c_in", "32"}, {"c_out", "48"}, {"h", "61"}, {"w", "37"},
          {"r", "5"});
    for (int i = 0; i < 5; i++) {
        const int types = i < 3 ? 3 : 2;
        CHECK(t[i].rows == types * visible, "%s: %d rows, expected %d", t[i].what, t[i].rows, types * visible);
        CHECK(t[i].tap_rows == 2, "%s: fast ran the tap form in %d rows, expected 2", t[i].what, t[i].tap_rows);
        /* fast_tf32: ok in fp32 (the r = 3 cases), SKIP in the 16-bit types */
        CHECK(t[i].tf32_rows == (i < 3), "%s: fast_tf32 ok in %d rows, expected %d", t[i].what, t[i].tf32_rows,
              i < 3);
    }
    /* fast_tf32 at r = 5 in fp32: that row alone (beside the library rows,
     * not judged: cuDNN's fp32 Find may pick WINOGRAD_NONFUSED here, above) */
    collect f[2];
    memset(f, 0, sizeof f);
    f[0].what = "fast_tf32 c=k=64 batch 2 9x13 r=5 (fp32)";
    f[0].only = "fast_tf32";
    RUN32(&dev, 0, seed + 16, &f[0], {"batch", "2"}, {"c_in", "64"}, {"c_out", "64"}, {"h", "9"}, {"w", "13"},
          {"r", "5"});
    f[1].what = "fast_tf32 c=32 k=48 batch 3 61x37 r=5 (fp32)";
    f[1].only = "fast_tf32";
    RUN32(&dev, 0, seed + 17, &f[1], {"batch", "3"}, {"c_in", "32"}, {"c_out", "48"}, {"h", "61"}, {"w", "37"},
          {"r", "5"});
    for (int i = 0; i < 2; i++)
        CHECK(f[i].tf32_rows == 1, "%s: fast_tf32 ok in %d rows, expected 1", f[i].what, f[i].tf32_rows);
    if (full)
        CHECK(s[8].tf32_rows == 1, "%s: fast_tf32 ok in %d rows, expected 1 (fp32)", s[8].what, s[8].tf32_rows);
    for (int i = 0; i < (full ? 8 : 7); i++) /* c_in 1, 3 or 5: fast_tf32 declines */
        CHECK(s[i].tf32_rows == 0, "%s: fast_tf32 ok in %d rows, expected 0 (c_in %% 8 != 0)", s[i].what,
              s[i].tf32_rows);

    const int cases[] = {1, 1, 2, 2, 1, 2, 1, 2, 1};
    for (int i = 0; i < (full ? 9 : 7); i++)
        CHECK(s[i].rows == 3 * visible * cases[i], "%s: %d rows, expected %d (every row in fp32, fp16, bf16)",
              s[i].what, s[i].rows, 3 * visible * cases[i]);

    /* an even r: no row takes it, each SKIP with the reason (not ERROR) */
    collect ev = {.what = "r=4 9x9", .expect_skip = "odd r"};
    RUN(&dev, 0, seed + 10, &ev, {"h", "9"}, {"w", "9"}, {"r", "4"});
    CHECK(ev.rows == 3 * visible && ev.skipped == ev.rows, "%s: %d rows, %d SKIP, expected %d", ev.what, ev.rows,
          ev.skipped, 3 * visible);

    /* the planted kernel FAILs in every type */
    collect p1 = {.what = "planted 1001x777 r=5"}, p2 = {.what = "planted c=k=3 batch 2 61x67 r=5"};
    RUN(&dev, 1, seed + 100, &p1, {"h", "1001"}, {"w", "777"}, {"r", "5"});
    CHECK(p1.nohalo_failed == 3, "%s: test_nohalo FAILed in %d of 3 types", p1.what, p1.nohalo_failed);
    RUN(&dev, 1, seed + 101, &p2, {"batch", "2"}, {"c_in", "3"}, {"c_out", "3"}, {"h", "61"}, {"w", "67"}, {"r", "5"});
    CHECK(p2.nohalo_failed == 3, "%s: test_nohalo FAILed in %d of 3 types", p2.what, p2.nohalo_failed);
    device_close(&dev);
    return test_finish("test_gpu_conv");
}
