/* tests/test_verify_conv.c (cpu): the conv2d op's verification rule, work
 * counts (src/core/verify_conv.c) and its axes as the compare binary parses
 * them.
 *
 * Convolutions computed on the host as the kernels compute them (inputs
 * rounded to the type by types_round, FP32 sums in two orders, the output
 * rounded to the type; TF32-rounded inputs for the tf32 math) pass against a
 * double reference of the stored inputs; the same with the halo dropped
 * (taps outside an 8 x 8 output tile taken as 0), a wrong mask element or a
 * NaN output fail. The tolerance is the documented sum; so is the transform
 * rule's (cuDNN's FFT / Winograd rows: a relative Frobenius bound), and its
 * verdict. The axes through the binary (--list loads the GPU library but
 * needs no GPU): the defaults
 * are the course's case (one 8192 x 8192 image, r = 3, fp32), bad values
 * are usage errors (exit 2) naming the axis, and k is not a conv2d axis (it
 * is the GEMM shape's: the channels are c_in and c_out). */
#include "testlib.h"
#include "types.h"
#include "verify_conv.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static uint64_t rng = 0x39ull;

/* uniform in [-1, 1) */
static double rand_pm1(void)
{
    rng = rng * 6364136223846793005ull + 1442695040888963407ull;
    return (double)((int32_t)(rng >> 40) - (1 << 23)) / (double)(1 << 23);
}

typedef enum { BUG_NONE, BUG_NO_HALO, BUG_MASK, BUG_NAN } bug_kind;

/* one case: sizes, the stored (rounded) inputs */
typedef struct {
    int n, c, k, h, w, r;
    const types_info *t;
    double *x, *wt; /* as stored: values of the type */
} conv_case;

#define TILE 8 /* BUG_NO_HALO's output tile */

static void make(conv_case *cc, int n, int c, int k, int h, int w, int r, const char *type)
{
    cc->n = n, cc->c = c, cc->k = k, cc->h = h, cc->w = w, cc->r = r;
    cc->t = types_find(type);
    cc->x = malloc(sizeof(double) * (size_t)(n * c * h * w));
    cc->wt = malloc(sizeof(double) * (size_t)(k * c * r * r));
    for (int i = 0; i < n * c * h * w; i++) cc->x[i] = types_round(cc->t, (float)rand_pm1());
    for (int i = 0; i < k * c * r * r; i++) cc->wt[i] = types_round(cc->t, (float)rand_pm1());
}

static double x_at(const conv_case *cc, int n, int c, int i, int j)
{
    return i < 0 || i >= cc->h || j < 0 || j >= cc->w ? 0.0 : cc->x[((n * cc->c + c) * cc->h + i) * cc->w + j];
}

/* The worst e of every output computed as a kernel would (FP32 sums, order
 * reversed when `reverse`, products of inputs rounded to `math`, the output
 * rounded to the type), with `bug` planted; *bad: outputs over tol. */
static double run(const conv_case *cc, const char *math, int reverse, bug_kind bug, double tol, long long *bad)
{
    const types_info *m = types_find(math);
    const double fl = verify_conv_floor(cc->t->name);
    const int half = cc->r / 2, taps = cc->c * cc->r * cc->r;
    double worst = 0.0;
    *bad = 0;
    for (int n = 0; n < cc->n; n++)
        for (int k = 0; k < cc->k; k++)
            for (int i = 0; i < cc->h; i++)
                for (int j = 0; j < cc->w; j++) {
                    double ref = 0.0, s = 0.0;
                    float acc = 0.0f;
                    for (int q = 0; q < taps; q++) {
                        const int t = reverse ? taps - 1 - q : q;
                        const int c = t / (cc->r * cc->r), u = t / cc->r % cc->r, v = t % cc->r;
                        const int ii = i + u - half, jj = j + v - half;
                        const double xv = x_at(cc, n, c, ii, jj);
                        double wv = cc->wt[((k * cc->c + c) * cc->r + u) * cc->r + v];
                        ref += xv * wv;
                        s += fabs(xv * wv);
                        if (bug == BUG_NO_HALO && (ii / TILE != i / TILE || jj / TILE != j / TILE || ii < 0 || jj < 0))
                            continue;
                        if (bug == BUG_MASK && t == 0) wv = -wv;
                        acc += (float)types_round(m, xv) * (float)types_round(m, wv);
                    }
                    double y = types_round(cc->t, acc);
                    if (bug == BUG_NAN && n == cc->n - 1 && k == cc->k - 1 && i == cc->h / 2 && j == cc->w - 1) y = NAN;
                    const double e = verify_conv_ratio(y, ref, s, fl);
                    if (!(e <= tol)) (*bad)++;
                    if (isfinite(e) && e > worst) worst = e;
                }
    return worst;
}

static void test_rule(void)
{
    const double u32 = ldexp(1.0, -24), u11 = ldexp(1.0, -11), u8 = ldexp(1.0, -8);
    /* the documented sum: 8 u32 sqrt(c r r) + 6 u_math + 2 u_out +
     * VERIFY_CONV_TRANSFORM u32 */
    const double fp32 = verify_conv_tolerance("fp32", NULL, 1, 3), tf32 = verify_conv_tolerance("fp32", "tf32", 64, 3);
    const double h16 = verify_conv_tolerance("fp16", "fp16", 3, 5), b16 = verify_conv_tolerance("bf16", NULL, 1, 15);
    CHECK(fabs(fp32 - (8 * u32 * 3 + 1024 * u32)) < 1e-18, "fp32 c 1 r 3: %g", fp32);
    CHECK(fabs(tf32 - (8 * u32 * 24 + 6 * u11 + 1024 * u32)) < 1e-18, "tf32 c 64 r 3: %g", tf32);
    CHECK(fabs(h16 - (8 * u32 * sqrt(75.0) + 2 * u11 + 1024 * u32)) < 1e-18, "fp16 c 3 r 5: %g", h16);
    CHECK(fabs(b16 - (8 * u32 * 15 + 2 * u8 + 1024 * u32)) < 1e-18, "bf16 c 1 r 15: %g", b16);
    CHECK(verify_conv_tolerance("u32", NULL, 1, 3) < 0 && verify_conv_tolerance("fp12", NULL, 1, 3) < 0,
          "no rule for an integer or unknown type");
    CHECK(verify_conv_floor("fp16") == ldexp(1.0, -14) && verify_conv_floor("fp32") == ldexp(1.0, -126) &&
              verify_conv_floor("u8") < 0,
          "floors");
    CHECK(isnan(verify_conv_ratio(NAN, 1, 1, 0)) && isnan(verify_conv_ratio(INFINITY, 1, 1, 0)), "NaN/Inf ratio");
    CHECK(verify_conv_ratio(0.0, 0.0, 0.0, verify_conv_floor("fp32")) == 0.0, "0 / (0 + floor) is 0, not NaN");
    verify_verdict v;
    verify_conv_judge(1e-5, 0, 0, 2e-5, &v);
    CHECK(v.pass && v.rel_err == 1e-5 && v.tolerance == 2e-5 && v.max_err == 1e-5, "judge: pass");
    verify_conv_judge(1e-5, 1, 1, 2e-5, &v);
    CHECK(!v.pass && v.nonfinite == 1, "judge: a NaN output fails");
    verify_conv_judge(3e-5, 0, 4, 2e-5, &v);
    CHECK(!v.pass, "judge: over the bound fails");
    verify_conv_judge(NAN, 0, 0, 2e-5, &v);
    CHECK(!v.pass, "judge: a NaN worst fails");

    /* the transform rule (cuDNN's FFT / Winograd rows): the Frobenius bound
     * plus 64 units of the larger of u_in and u_math */
    const double t32 = verify_conv_transform_tolerance("fp32", NULL, 1, 3);
    const double ttf = verify_conv_transform_tolerance("fp32", "tf32", 64, 3);
    const double t16 = verify_conv_transform_tolerance("fp16", NULL, 3, 5);
    CHECK(fabs(t32 - (8 * u32 * 3 + 64 * u32)) < 1e-18, "transform fp32 c 1 r 3: %g", t32);
    CHECK(fabs(ttf - (8 * u32 * 24 + 6 * u11 + 64 * u11)) < 1e-18, "transform tf32 c 64 r 3: %g", ttf);
    CHECK(fabs(t16 - (8 * u32 * sqrt(75.0) + 2 * u11 + 64 * u11)) < 1e-18, "transform fp16 c 3 r 5: %g", t16);
    CHECK(verify_conv_transform_tolerance("u32", NULL, 1, 3) < 0, "transform: no rule for an integer type");
    verify_conv_judge_transform(1e-10, 1.0, 0, 2e-5, &v);
    CHECK(v.pass && fabs(v.rel_err - 1e-5) < 1e-18 && v.tolerance == 2e-5, "transform judge: pass (%g)", v.rel_err);
    verify_conv_judge_transform(1e-8, 1.0, 0, 2e-5, &v);
    CHECK(!v.pass && fabs(v.rel_err - 1e-4) < 1e-18, "transform judge: over the bound fails");
    verify_conv_judge_transform(0.0, 1.0, 1, 2e-5, &v);
    CHECK(!v.pass && v.nonfinite == 1, "transform judge: a NaN output fails");
    verify_conv_judge_transform(0.0, 0.0, 0, 2e-5, &v);
    CHECK(v.pass && v.rel_err == 0.0, "transform judge: 0 / 0 is 0");
    verify_conv_judge_transform(1e-30, 0.0, 0, 2e-5, &v);
    CHECK(!v.pass && isinf(v.rel_err), "transform judge: an error on an all-zero reference fails");
}

static void test_counts(void)
{
    /* the course's case: 8192 x 8192, r = 3, fp32 */
    CHECK(verify_conv_flops(1, 1, 1, 8192, 8192, 3) == 2.0 * 8192 * 8192 * 9, "flops 8192^2 r 3");
    CHECK(verify_conv_bytes(1, 1, 1, 8192, 8192, 3, 4) == (2.0 * 8192 * 8192 + 9) * 4, "bytes 8192^2 r 3");
    /* a ResNet layer: batch 32, 64 -> 64 channels, 56 x 56, 3 x 3, bf16 */
    CHECK(verify_conv_flops(32, 64, 64, 56, 56, 3) == 2.0 * 32 * 64 * 64 * 56 * 56 * 9, "flops resnet");
    CHECK(verify_conv_bytes(32, 64, 64, 56, 56, 3, 2) == (32.0 * 64 * 56 * 56 * 2 + 64.0 * 64 * 9) * 2, "bytes resnet");
    CHECK(verify_conv_flops(1, 3, 2, 1001, 777, 5) == 2.0 * 3 * 2 * 1001 * 777 * 25, "flops c 3 k 2");
}

static void test_kernels(void)
{
    static const struct {
        int n, c, k, h, w, r;
        const char *type, *math;
    } cases[] = {
        {2, 3, 2, 23, 19, 5, "fp32", "fp32"},  {1, 1, 1, 37, 41, 3, "fp32", "fp32"},
        {1, 1, 1, 33, 17, 15, "fp32", "fp32"}, {1, 4, 3, 17, 21, 3, "fp32", "tf32"},
        {1, 3, 2, 19, 23, 5, "fp16", "fp16"},  {2, 2, 2, 21, 18, 7, "bf16", "bf16"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        conv_case cc;
        long long bad;
        make(&cc, cases[i].n, cases[i].c, cases[i].k, cases[i].h, cases[i].w, cases[i].r, cases[i].type);
        const double tol = verify_conv_tolerance(cases[i].type, cases[i].math, cases[i].c, cases[i].r);
        for (int rev = 0; rev < 2; rev++) {
            const double worst = run(&cc, cases[i].math, rev, BUG_NONE, tol, &bad);
            CHECK(bad == 0 && worst <= tol, "case %zu %s/%s order %d: worst %g > tol %g (%lld bad)", i, cases[i].type,
                  cases[i].math, rev, worst, tol, bad);
        }
        double worst = run(&cc, cases[i].math, 0, BUG_NO_HALO, tol, &bad);
        CHECK(bad > 0 && worst > 10 * tol, "case %zu: the dropped halo passes (worst %g, tol %g, %lld bad)", i, worst,
              tol, bad);
        worst = run(&cc, cases[i].math, 0, BUG_MASK, tol, &bad);
        CHECK(bad > 0 && worst > tol, "case %zu: a wrong mask element passes (worst %g, tol %g)", i, worst, tol);
        run(&cc, cases[i].math, 0, BUG_NAN, tol, &bad);
        CHECK(bad == 1, "case %zu: one NaN output, %lld over the bound", i, bad);
        free(cc.x);
        free(cc.wt);
    }
}

static void test_axes_binary(void)
{
    static test_proc p;
    char *const list[] = {(char *)COMPARE_BIN, "--list", "--format", "json", NULL};
    test_run(list, NULL, 0, 0, 60.0, &p);
    CHECK(p.status == 0, "compare --list --format json: exit %d: %s", p.status, p.err);
    if (p.status == 0) {
        const char *want[] = {
            "{\"name\": \"conv2d\"",
            "{\"name\": \"batch\", \"kind\": \"int\", \"defaults\": \"1\"",
            "{\"name\": \"c_in\", \"kind\": \"int\", \"defaults\": \"1\", \"min\": 1, \"max\": 4096",
            "{\"name\": \"c_out\", \"kind\": \"int\", \"defaults\": \"1\", \"min\": 1, \"max\": 4096",
            "{\"name\": \"h\", \"kind\": \"int\", \"defaults\": \"8192\"",
            "{\"name\": \"w\", \"kind\": \"int\", \"defaults\": \"8192\"",
            "{\"name\": \"r\", \"kind\": \"int\", \"defaults\": \"3\", \"min\": 1, \"max\": 15",
            "\"types\": [\"fp32\", \"fp16\", \"bf16\"]",
            "{\"name\": \"cudnn\", \"kind\": \"library\"",
            "{\"name\": \"cudnn_tensor_op\", \"kind\": \"library\"",
            "{\"name\": \"const_mask\", \"kind\": \"hand\"",
            "{\"name\": \"tiled_halo\", \"kind\": \"hand\"",
            "{\"name\": \"tiled_cached\", \"kind\": \"hand\"",
            "{\"name\": \"fast_tf32\", \"kind\": \"hand\"",
        };
        for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
            CHECK(test_contains(p.out, want[i]), "compare --list --format json lacks %s", want[i]);
    }
    static const struct {
        const char *args[6];
        const char *needle;
    } rows[] = {
        {{"--ops", "conv2d", "--axis", "r=17"}, "--axis r '17' (conv2d): '17' is too large (at most 15)"},
        {{"--ops", "conv2d", "--axis", "c_in=0"}, "--axis c_in '0' (conv2d): '0' is too small (at least 1)"},
        {{"--ops", "conv2d", "--axis", "type=fp8_e4m3"},
         "'fp8_e4m3' is not a value of type (expected fp32, fp16, bf16)"},
        {{"--ops", "conv2d", "--axis", "k=3"}, "--k is given without --n"},
        {{"--ops", "sgemm", "--axis", "c_out=8"}, "no op that has axis c_out is run (it is an axis of conv2d)"},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
        test_usage_error(COMPARE_BIN, rows[i].args, rows[i].needle);
}

int main(void)
{
    test_rule();
    test_counts();
    test_kernels();
    test_axes_binary();
    return test_finish("test_verify_conv");
}
