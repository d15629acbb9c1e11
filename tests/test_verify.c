/* tests/test_verify.c (cpu): the verification rules (src/core/verify.c).
 *
 * GEMM: the tolerances by precision and k, the CPU reference against a
 * product done by hand and against naive loops, and the verdict on results
 * with known defects (a single planted error, a uniform scale, NaN, zeros).
 * Reduce: a pairwise float sum of 1e6 uniform [-1, 1) values passes; dropping
 * or doubling one element of size ~0.5 fails; NaN and Inf fail.
 * Scan: the float tolerance and the ratio's conventions; sequential and
 * tiled float scans of 2^20 values pass, a lost tile, an exclusive scan, a
 * dropped element and an unwritten one fail. */
#include "testlib.h"
#include "types.h"
#include "verify.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

// ---- helpers ----------------------------------------------------------------

static uint64_t rng = 0x2026ull;

/* uniform in [-1, 1), exact in float (24-bit) */
static float rand_pm1(void)
{
    rng = rng * 6364136223846793005ull + 1442695040888963407ull;
    return (float)((int32_t)(rng >> 40) - (1 << 23)) / (float)(1 << 23);
}

static void fill(float *x, size_t n)
{
    for (size_t i = 0; i < n; i++) x[i] = rand_pm1();
}

/* Pairwise float sum: how a tree reduction on the GPU rounds. */
static float pairwise(const float *x, size_t n)
{
    if (n <= 8) {
        float s = 0.0f;
        for (size_t i = 0; i < n; i++) s += x[i];
        return s;
    }
    return pairwise(x, n / 2) + pairwise(x + n / 2, n - n / 2);
}

static void judge(const float *c, const double *ref, size_t count, const char *math, long long k, verify_verdict *v)
{
    verify_sums s;
    verify_sums_host(c, ref, count, &s);
    verify_gemm_judge(&s, math, k, v);
}

// ---- tolerances -----------------------------------------------------------------

static void test_tolerances(void)
{
    const long long ks[] = {1, 1024, 8192};
    double u32 = ldexp(1.0, -24);
    CHECK(verify_unit_roundoff("fp32") == u32, "u fp32 %g", verify_unit_roundoff("fp32"));
    CHECK(verify_unit_roundoff("tf32") == ldexp(1.0, -11), "u tf32 %g", verify_unit_roundoff("tf32"));

    /* tol = 8 u32 sqrt(k) + 6 u_in (u_in = 0 for fp32, 2^-11 for tf32) */
    CHECK(verify_gemm_tolerance("fp32", 1) == 8.0 * u32, "fp32 k=1: %.17g", verify_gemm_tolerance("fp32", 1));
    CHECK(verify_gemm_tolerance("fp32", 1024) == ldexp(1.0, -16), "fp32 k=1024: %.17g",
          verify_gemm_tolerance("fp32", 1024));
    CHECK(fabs(verify_gemm_tolerance("fp32", 8192) - 4.315837287515549e-05) < 1e-18, "fp32 k=8192: %.17g",
          verify_gemm_tolerance("fp32", 8192));
    CHECK(verify_gemm_tolerance("tf32", 1) == 8.0 * u32 + 6.0 * ldexp(1.0, -11), "tf32 k=1: %.17g",
          verify_gemm_tolerance("tf32", 1));
    CHECK(fabs(verify_gemm_tolerance("tf32", 1024) - (ldexp(1.0, -16) + 0.0029296875)) < 1e-18, "tf32 k=1024: %.17g",
          verify_gemm_tolerance("tf32", 1024));
    CHECK(fabs(verify_gemm_tolerance("tf32", 8192) - 2.9728458728751554e-03) < 1e-17, "tf32 k=8192: %.17g",
          verify_gemm_tolerance("tf32", 8192));
    for (int i = 0; i < 3; i++) {
        double f = verify_gemm_tolerance("fp32", ks[i]), t = verify_gemm_tolerance("tf32", ks[i]);
        CHECK(t > 60.0 * f, "k=%lld: tf32 %g not >> fp32 %g", ks[i], t, f);
        CHECK(verify_gemm_max_tolerance("fp32", ks[i]) == 16.0 * f, "fp32 max tolerance at k=%lld", ks[i]);
        CHECK(verify_gemm_max_tolerance("tf32", ks[i]) == 16.0 * t, "tf32 max tolerance at k=%lld", ks[i]);
        if (i > 0) {
            CHECK(f > verify_gemm_tolerance("fp32", ks[i - 1]), "fp32 tolerance does not grow at k=%lld", ks[i]);
            CHECK(t > verify_gemm_tolerance("tf32", ks[i - 1]), "tf32 tolerance does not grow at k=%lld", ks[i]);
        }
    }
    /* k < 1 is treated as 1, never NaN */
    CHECK(verify_gemm_tolerance("fp32", 0) == 8.0 * u32, "k=0: %g", verify_gemm_tolerance("fp32", 0));

    /* reduce: 8 u32 (log2 n + 1) */
    CHECK(verify_reduce_tolerance(1) == 8.0 * u32, "reduce n=1: %g", verify_reduce_tolerance(1));
    CHECK(verify_reduce_tolerance(1LL << 26) == 8.0 * u32 * 27.0, "reduce 2^26: %g",
          verify_reduce_tolerance(1LL << 26));
    CHECK(verify_reduce_tolerance(1000000) > verify_reduce_tolerance(1000), "reduce tolerance does not grow");
}

// ---- the one rule, for every type ---------------------------------------------------

static double tol_of(const char *in, const char *math, const char *acc, const char *out, long long k)
{
    verify_types t = {in, math, acc, out};
    return verify_tolerance(&t, k);
}

static void test_type_tolerances(void)
{
    const long long ks[] = {1, 64, 1024, 8192};
    double u32 = ldexp(1.0, -24);
    CHECK(verify_unit_roundoff("fp16") == ldexp(1.0, -11) && verify_unit_roundoff("bf16") == ldexp(1.0, -8) &&
              verify_unit_roundoff("fp8_e4m3") == ldexp(1.0, -4) && verify_unit_roundoff("fp8_e5m2") == ldexp(1.0, -3),
          "unit roundoffs of the half and FP8 types");
    CHECK(verify_unit_roundoff("u32") == u32 && verify_unit_roundoff("nope") == u32, "other names: u32");
    for (int i = 0; i < 4; i++) {
        long long k = ks[i];
        double acc = 8.0 * u32 * sqrt((double)k);
        /* FP32 and TF32 keep exactly the GEMM tolerances they had */
        CHECK(tol_of("fp32", NULL, NULL, NULL, k) == verify_gemm_tolerance("fp32", k) &&
                  tol_of("fp32", "fp32", "fp32", "fp32", k) == verify_gemm_tolerance("fp32", k),
              "fp32 at k=%lld", k);
        CHECK(tol_of("fp32", "tf32", NULL, NULL, k) == verify_gemm_tolerance("tf32", k), "tf32 at k=%lld", k);
        /* half and FP8 inputs the reference reads as rounded: only the accumulator... */
        CHECK(tol_of("bf16", NULL, NULL, NULL, k) == acc && tol_of("fp16", "fp16", "fp32", "fp32", k) == acc &&
                  tol_of("fp8_e4m3", NULL, NULL, "fp32", k) == acc,
              "rounded inputs add nothing at k=%lld", k);
        /* ...and the output's rounding when it is coarser than the accumulator */
        CHECK(tol_of("bf16", NULL, NULL, "bf16", k) == acc + 2.0 * ldexp(1.0, -8), "bf16 out at k=%lld", k);
        CHECK(tol_of("fp16", NULL, NULL, "fp16", k) == acc + 2.0 * ldexp(1.0, -11), "fp16 out at k=%lld", k);
        CHECK(tol_of("fp8_e5m2", NULL, NULL, "bf16", k) == acc + 2.0 * ldexp(1.0, -8), "e5m2 in, bf16 out");
        /* a math that rounds FP32 inputs the reference does not see: 6 u_math */
        CHECK(tol_of("fp32", "fp16", NULL, NULL, k) == acc + 6.0 * ldexp(1.0, -11), "fp16 math on fp32 inputs");
        CHECK(tol_of("fp32", "bf16", NULL, "bf16", k) == acc + 6.0 * ldexp(1.0, -8) + 2.0 * ldexp(1.0, -8),
              "bf16 math and output on fp32 inputs");
        /* a coarser accumulator grows the k term */
        CHECK(tol_of("fp16", NULL, "fp16", NULL, k) == 8.0 * ldexp(1.0, -11) * sqrt((double)k), "fp16 accumulator");
    }
    CHECK(tol_of("u32", NULL, NULL, NULL, 64) < 0 && tol_of("fp32", "fp12", NULL, NULL, 64) < 0 &&
              tol_of("bf16", NULL, NULL, "u8", 64) < 0,
          "a type without a rule gives -1");
}

/* C = A B with A, B rounded to `in` (the reference reads the rounded values),
 * accumulated in float, the result rounded to `got_out`, judged as `out`. */
static int judge_rounded_gemm(const char *in, const char *got_out, const char *out, verify_verdict *v)
{
    enum { M = 24, N = 20, K = 256 };
    static float A[M * K], B[K * N], C[M * N];
    static double R[M * N];
    const types_info *ti = types_find(in), *to = types_find(got_out);
    verify_types t = {in, NULL, NULL, out};
    verify_sums s;
    for (int i = 0; i < M * K; i++) A[i] = (float)types_round(ti, rand_pm1());
    for (int i = 0; i < K * N; i++) B[i] = (float)types_round(ti, rand_pm1());
    verify_cpu_gemm(A, B, R, M, N, K);
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++) {
            float acc = 0.0f;
            for (int p = 0; p < K; p++) acc += A[i * K + p] * B[p * N + j];
            C[i * N + j] = (float)types_round(to, acc);
        }
    verify_sums_host(C, R, (size_t)M * N, &s);
    return verify_judge_types(&s, &t, K, v);
}

static void test_type_judge(void)
{
    verify_verdict v;
    /* bf16 and FP8 inputs, FP32 accumulation and output: within the accumulator term alone */
    CHECK(judge_rounded_gemm("bf16", "fp32", "fp32", &v) == 0 && v.pass, "bf16 in, fp32 out: %g > %g", v.rel_err,
          v.tolerance);
    CHECK(judge_rounded_gemm("fp8_e4m3", "fp32", "fp32", &v) == 0 && v.pass, "e4m3 in: %g > %g", v.rel_err, v.tolerance);
    /* a bf16 output passes as bf16... */
    CHECK(judge_rounded_gemm("bf16", "bf16", "bf16", &v) == 0 && v.pass && v.rel_err > 0, "bf16 out: %g > %g",
          v.rel_err, v.tolerance);
    /* ...but not when the output was declared FP32, nor when it really is coarser (FP8) */
    CHECK(judge_rounded_gemm("bf16", "bf16", "fp32", &v) == 0 && !v.pass, "bf16 out judged as fp32 passed: %g <= %g",
          v.rel_err, v.tolerance);
    CHECK(judge_rounded_gemm("bf16", "fp8_e4m3", "bf16", &v) == 0 && !v.pass, "e4m3 out judged as bf16 passed");
    /* fp16 out passes; an integer output type has no rule */
    CHECK(judge_rounded_gemm("fp16", "fp16", "fp16", &v) == 0 && v.pass, "fp16 out: %g > %g", v.rel_err, v.tolerance);
    CHECK(judge_rounded_gemm("fp16", "fp16", "u32", &v) == -1, "an integer output has no rule");
}

// ---- CPU reference GEMM -------------------------------------------------------------

static void test_cpu_gemm(void)
{
    /* [1 2 3; 4 5 6] * [7 8; 9 10; 11 12] = [58 64; 139 154] */
    static const float A[6] = {1, 2, 3, 4, 5, 6}, B[6] = {7, 8, 9, 10, 11, 12};
    static const double want[4] = {58, 64, 139, 154};
    double C[4];
    verify_cpu_gemm(A, B, C, 2, 2, 3);
    for (int i = 0; i < 4; i++) CHECK(C[i] == want[i], "C[%d] = %g, expected %g", i, C[i], want[i]);
    /* 3x2 * 2x3 of the same numbers: row-major, shapes not mixed up */
    {
        /* [1 2; 3 4; 5 6] * [7 8 9; 10 11 12] */
        static const double want2[9] = {27, 30, 33, 61, 68, 75, 95, 106, 117};
        double C2[9];
        verify_cpu_gemm(A, B, C2, 3, 3, 2);
        for (int i = 0; i < 9; i++) CHECK(C2[i] == want2[i], "C2[%d] = %g, expected %g", i, C2[i], want2[i]);
    }

    /* random shapes against naive loops: the double loop bit for bit, the
     * float loop within the fp32 rule */
    {
        static const int shapes[][3] = {{1, 1, 1}, {3, 5, 7}, {17, 13, 9}, {1, 64, 1}, {33, 1, 100}};
        for (size_t t = 0; t < sizeof shapes / sizeof shapes[0]; t++) {
            int m = shapes[t][0], n = shapes[t][1], k = shapes[t][2];
            float *a = malloc(sizeof(float) * m * k), *b = malloc(sizeof(float) * k * n);
            float *cf = malloc(sizeof(float) * m * n);
            double *ref = malloc(sizeof(double) * m * n);
            int exact = 1;
            verify_verdict v;
            fill(a, (size_t)m * k);
            fill(b, (size_t)k * n);
            verify_cpu_gemm(a, b, ref, m, n, k);
            for (int i = 0; i < m; i++)
                for (int j = 0; j < n; j++) {
                    double d = 0.0;
                    float f = 0.0f;
                    for (int p = 0; p < k; p++) {
                        d += (double)a[i * k + p] * (double)b[p * n + j];
                        f += a[i * k + p] * b[p * n + j];
                    }
                    if (ref[i * n + j] != d) exact = 0;
                    cf[i * n + j] = f;
                }
            CHECK(exact, "%dx%dx%d: verify_cpu_gemm differs from a double loop", m, n, k);
            judge(cf, ref, (size_t)m * n, "fp32", k, &v);
            CHECK(v.pass, "%dx%dx%d: float loop fails (rel %g tol %g, max %g tol %g)", m, n, k, v.rel_err, v.tolerance,
                  v.max_err, v.max_tolerance);
            free(a);
            free(b);
            free(cf);
            free(ref);
        }
    }
}

// ---- GEMM verdicts ---------------------------------------------------------------

#define GM 64
#define GN 64
#define GK 64

static void test_gemm_judge(void)
{
    static float a[GM * GK], b[GK * GN], c[GM * GN];
    static double ref[GM * GN];
    const size_t cnt = GM * GN;
    verify_verdict v;
    verify_sums s;
    double rms = 0.0;
    fill(a, GM * GK);
    fill(b, GK * GN);
    verify_cpu_gemm(a, b, ref, GM, GN, GK);
    for (size_t i = 0; i < cnt; i++) rms += ref[i] * ref[i];
    rms = sqrt(rms / cnt);

    /* the float rounding of the reference: rel err <= 2^-24, passes both */
    for (size_t i = 0; i < cnt; i++) c[i] = (float)ref[i];
    judge(c, ref, cnt, "fp32", GK, &v);
    CHECK(v.pass && v.nonfinite == 0, "clean fp32 fails: rel %g max %g", v.rel_err, v.max_err);
    CHECK(v.rel_err <= ldexp(1.0, -24), "clean rel err %g over 2^-24", v.rel_err);
    CHECK(v.tolerance == verify_gemm_tolerance("fp32", GK) && v.max_tolerance == verify_gemm_max_tolerance("fp32", GK),
          "verdict tolerances");
    judge(c, ref, cnt, "tf32", GK, &v);
    CHECK(v.pass, "clean tf32 fails");
    /* even at k = 1 (the tightest fp32 bound, 8 u) */
    judge(c, ref, cnt, "fp32", 1, &v);
    CHECK(v.pass, "clean fp32 at k=1 fails: rel %g tol %g", v.rel_err, v.tolerance);

    /* one element off by 1e-4 rms: within the Frobenius bound (1e-4 / sqrt(4096)
     * = 1.6e-6 < 3.8e-6), caught by the max bound (1e-4 > 16 * 3.8e-6 = 6.1e-5) */
    c[1234] = (float)(ref[1234] + 1e-4 * rms);
    judge(c, ref, cnt, "fp32", GK, &v);
    CHECK(v.rel_err <= v.tolerance, "planted: rel %g over tol %g (the test's arithmetic is off)", v.rel_err,
          v.tolerance);
    CHECK(v.max_err > v.max_tolerance && fabs(v.max_err - 1e-4) < 2e-6, "planted: max %g (tol %g)", v.max_err,
          v.max_tolerance);
    CHECK(!v.pass, "planted small error passes fp32");
    /* a gross single error (an unwritten 0) fails both bounds */
    c[1234] = 0.0f;
    c[77] = (float)(ref[77] + 3.0 * rms);
    judge(c, ref, cnt, "tf32", GK, &v);
    CHECK(!v.pass && v.max_err > v.max_tolerance, "gross error passes tf32: max %g", v.max_err);
    c[1234] = (float)ref[1234];
    c[77] = (float)ref[77];

    /* uniformly scaled by 1.001: rel err 1e-3.
     * fp32: tol 8 u sqrt(64) = 3.8e-6 -> FAIL.
     * tf32: tol 3.8e-6 + 6 * 2^-11 = 2.93e-3 -> PASS, and max err
     *       1e-3 * max|ref| / rms (a few e-3) < 16 * 2.93e-3 = 0.047 -> PASS. */
    for (size_t i = 0; i < cnt; i++) c[i] = (float)(ref[i] * 1.001);
    judge(c, ref, cnt, "fp32", GK, &v);
    CHECK(fabs(v.rel_err - 1e-3) < 1e-6, "scaled: rel %g", v.rel_err);
    CHECK(!v.pass, "x1.001 passes fp32 (rel %g tol %g)", v.rel_err, v.tolerance);
    judge(c, ref, cnt, "tf32", GK, &v);
    CHECK(v.rel_err <= v.tolerance && v.max_err <= v.max_tolerance, "x1.001 tf32: rel %g/%g max %g/%g", v.rel_err,
          v.tolerance, v.max_err, v.max_tolerance);
    CHECK(v.pass, "x1.001 fails tf32");
    /* x1.004: over 6 * 2^-11 = 2.93e-3, fails tf32 too */
    for (size_t i = 0; i < cnt; i++) c[i] = (float)(ref[i] * 1.004);
    judge(c, ref, cnt, "tf32", GK, &v);
    CHECK(!v.pass && v.rel_err > v.tolerance, "x1.004 passes tf32 (rel %g)", v.rel_err);

    /* the k - 1 product (the last term dropped) fails fp32 */
    {
        static double short_ref[GM * GN];
        static float ak[GM * (GK - 1)], bk[(GK - 1) * GN];
        for (int i = 0; i < GM; i++) memcpy(ak + i * (GK - 1), a + i * GK, sizeof(float) * (GK - 1));
        memcpy(bk, b, sizeof(float) * (GK - 1) * GN);
        verify_cpu_gemm(ak, bk, short_ref, GM, GN, GK - 1);
        for (size_t i = 0; i < cnt; i++) c[i] = (float)short_ref[i];
        judge(c, ref, cnt, "fp32", GK, &v);
        CHECK(!v.pass, "k-1 product passes fp32 (rel %g)", v.rel_err);
        judge(c, ref, cnt, "tf32", GK, &v);
        CHECK(!v.pass, "k-1 product passes tf32 (rel %g)", v.rel_err);
    }

    /* NaN / Inf anywhere fail, and are counted */
    for (size_t i = 0; i < cnt; i++) c[i] = (float)ref[i];
    c[4095] = NAN;
    judge(c, ref, cnt, "tf32", GK, &v);
    CHECK(!v.pass && v.nonfinite == 1, "NaN element: pass %d nonfinite %lld", v.pass, v.nonfinite);
    CHECK(isfinite(v.rel_err), "NaN leaked into rel_err");
    c[0] = INFINITY;
    c[1] = -INFINITY;
    judge(c, ref, cnt, "tf32", GK, &v);
    CHECK(!v.pass && v.nonfinite == 3, "Inf elements: pass %d nonfinite %lld", v.pass, v.nonfinite);

    /* all-zero reference: zero output passes, anything else fails */
    {
        static const double zref[6] = {0, 0, 0, 0, 0, 0};
        float z[6] = {0, 0, 0, 0, 0, 0};
        judge(z, zref, 6, "fp32", 3, &v);
        CHECK(v.pass && v.rel_err == 0 && v.max_err == 0, "zeros fail: rel %g", v.rel_err);
        z[3] = 1e-30f;
        judge(z, zref, 6, "tf32", 3, &v);
        CHECK(!v.pass && isinf(v.rel_err), "non-zero against zero reference passes");
        z[3] = NAN;
        judge(z, zref, 6, "fp32", 3, &v);
        CHECK(!v.pass, "NaN against zero reference passes");
    }
    /* the cancellation floor: c = a1 b1 + a2 b2 nearly cancels (1 x 1 x 2,
     * a = (1, 1), b = (0.5, -0.49951171875): ref = 2^-11; TF32 inputs may
     * move it by up to 2 u_in (|a1 b1| + |a2 b2|) = 9.8e-4, twice ref, so an
     * output of 0, rel err 1, is within what a right TF32 kernel may give); with the
     * inputs' norms the bound is scaled by ||A|| ||B|| / (2 sqrt(2) |ref|)
     * = 1.4142 x 0.70676 / (2.8284 x 4.8828e-4) = 723.8 */
    {
        static const double r1[1] = {0.00048828125};
        float c1[1] = {0.0f};
        verify_sums_host(c1, r1, 1, &s);
        verify_gemm_judge(&s, "tf32", 2, &v);
        CHECK(!v.pass && v.rel_err == 1.0, "cancelled 1x1x2 without norms: pass %d rel %g", v.pass, v.rel_err);
        const float a1[2] = {1.0f, 1.0f}, b1[2] = {0.5f, -0.49951171875f};
        s.norm_sq_a = verify_norm_sq(a1, 2);
        s.norm_sq_b = verify_norm_sq(b1, 2);
        CHECK(s.norm_sq_a == 2.0 && fabs(s.norm_sq_b - (0.25 + 0.49951171875 * 0.49951171875)) < 1e-15,
              "norms %g %g", s.norm_sq_a, s.norm_sq_b);
        verify_gemm_judge(&s, "tf32", 2, &v);
        double f = sqrt(s.norm_sq_a * s.norm_sq_b / 8.0) / 0.00048828125;
        CHECK(fabs(v.tolerance - f * verify_gemm_tolerance("tf32", 2)) < 1e-12 * f &&
                  fabs(v.max_tolerance - f * verify_gemm_max_tolerance("tf32", 2)) < 1e-11 * f && f > 700 && f < 730,
              "floored tolerance %g (factor %g)", v.tolerance, f);
        CHECK(v.pass, "cancelled 1x1x2 with norms: rel %g tol %g", v.rel_err, v.tolerance);
        /* fp32 at the same inputs: 8 u32 sqrt(2) x 723.8 = 4.9e-4, still fails a wrong 0 */
        verify_gemm_judge(&s, "fp32", 2, &v);
        CHECK(!v.pass, "cancelled 1x1x2 fp32 output 0 passes (tol %g)", v.tolerance);
        /* random-like inputs: the floor is under ||ref|| and changes nothing */
        verify_sums_host(c, ref, cnt, &s);
        s.norm_sq_a = verify_norm_sq(a, GM * GK);
        s.norm_sq_b = verify_norm_sq(b, GK * GN);
        verify_gemm_judge(&s, "tf32", GK, &v);
        CHECK(v.tolerance == verify_gemm_tolerance("tf32", GK), "floor moved a 64^3 tolerance to %g", v.tolerance);
    }
    /* nothing compared is not a pass */
    memset(&s, 0, sizeof s);
    verify_gemm_judge(&s, "fp32", 1, &v);
    CHECK(!v.pass, "an empty comparison passes");

    /* verify_sums_host on a tiny case */
    {
        static const float cc[3] = {1.0f, 2.5f, NAN};
        static const double rr[3] = {1.5, 2.0, 4.0};
        verify_sums_host(cc, rr, 3, &s);
        CHECK(s.sum_sq_err == 0.5 && s.sum_sq_ref == 2.25 + 4.0 + 16.0 && s.max_abs_err == 0.5 && s.nonfinite == 1 &&
                  s.count == 3,
              "sums: err %g ref %g max %g nf %g n %g", s.sum_sq_err, s.sum_sq_ref, s.max_abs_err, s.nonfinite,
              s.count);
    }
}

// ---- reduce verdicts -------------------------------------------------------------

static void test_reduce_judge(void)
{
    const size_t n = 1000000;
    float *x = malloc(n * sizeof *x);
    double ref = 0.0, sum_sq = 0.0;
    size_t pick = n;
    verify_verdict v;
    float got;
    fill(x, n);
    for (size_t i = 0; i < n; i++) {
        ref += x[i];
        sum_sq += (double)x[i] * x[i];
        if (pick == n && fabsf(x[i]) > 0.45f && fabsf(x[i]) < 0.55f) pick = i;
    }
    CHECK(pick < n, "no element near 0.5");
    if (pick == n) pick = 0;

    got = pairwise(x, n);
    verify_reduce_judge(got, ref, (long long)n, sum_sq, &v);
    CHECK(v.pass, "pairwise float sum fails: rel %g tol %g", v.rel_err, v.tolerance);
    CHECK(v.tolerance == verify_reduce_tolerance((long long)n) * (1.0 + 0.5 * fabs(ref) / sqrt(sum_sq)),
          "reduce verdict tolerance %g", v.tolerance);
    CHECK(v.rel_err < v.tolerance / 10, "pairwise float sum not well inside: rel %g tol %g", v.rel_err, v.tolerance);
    /* the double sum itself, rounded to float once */
    verify_reduce_judge((float)ref, ref, (long long)n, sum_sq, &v);
    CHECK(v.pass, "rounded reference fails: rel %g", v.rel_err);

    /* one element of size ~0.5 dropped: 0.5 / sqrt(sum x^2) ~ 0.5 / 577 ~ 9e-4 >> 1e-5 */
    {
        float keep = x[pick];
        x[pick] = 0.0f;
        got = pairwise(x, n);
        verify_reduce_judge(got, ref, (long long)n, sum_sq, &v);
        CHECK(!v.pass && v.rel_err > 50 * v.tolerance, "dropped element passes: rel %g tol %g", v.rel_err,
              v.tolerance);
        x[pick] = 2.0f * keep;
        got = pairwise(x, n);
        verify_reduce_judge(got, ref, (long long)n, sum_sq, &v);
        CHECK(!v.pass, "doubled element passes: rel %g tol %g", v.rel_err, v.tolerance);
        x[pick] = keep;
    }
    verify_reduce_judge(NAN, ref, (long long)n, sum_sq, &v);
    CHECK(!v.pass && v.nonfinite == 1, "NaN sum passes");
    verify_reduce_judge(INFINITY, ref, (long long)n, sum_sq, &v);
    CHECK(!v.pass && v.nonfinite == 1, "Inf sum passes");
    /* an all-zero input: exact zero passes, anything else is judged against 1 */
    verify_reduce_judge(0.0, 0.0, 1024, 0.0, &v);
    CHECK(v.pass && v.rel_err == 0.0, "zero sum fails");
    verify_reduce_judge(1.0, 0.0, 1024, 0.0, &v);
    CHECK(!v.pass, "1 against a zero sum passes");
    /* exact sum of a short input */
    {
        static const float y[4] = {0.5f, -0.25f, 1.0f, 2.0f};
        verify_reduce_judge(pairwise(y, 4), 3.25, 4, 0.25 + 0.0625 + 1 + 4, &v);
        CHECK(v.pass && v.rel_err == 0.0, "exact short sum: rel %g", v.rel_err);
    }
    /* all-positive inputs (mean 0.5): a blocked float sum of 2^22 elements is
     * judged by the |sum| term and passes; 64 dropped elements still fail
     * (one cannot be told from float rounding at |sum| ~ 2^21: the blocked
     * sum's own error is ~0.6) */
    {
        const size_t m = (size_t)1 << 22;
        float *y = malloc(m * sizeof *y);
        double r = 0.0, s2 = 0.0;
        float blocks = 0.0f;
        for (size_t i = 0; i < m; i++) {
            y[i] = 0.5f + 0.5f * x[i % n];
            r += y[i];
            s2 += (double)y[i] * y[i];
        }
        for (size_t b = 0; b < m; b += 4096) { /* 4096-long float chains, then a float sum of those */
            float part = 0.0f;
            for (size_t i = b; i < b + 4096; i++) part += y[i];
            blocks += part;
        }
        verify_reduce_judge(blocks, r, (long long)m, s2, &v);
        CHECK(v.pass, "blocked sum of positive inputs fails: rel %g tol %g", v.rel_err, v.tolerance);
        for (size_t i = 0; i < 64; i++) y[1000 + i * 997] = 0.0f;
        verify_reduce_judge(pairwise(y, m), r, (long long)m, s2, &v);
        CHECK(!v.pass, "64 dropped positive elements pass: rel %g tol %g", v.rel_err, v.tolerance);
        free(y);
    }
    free(x);
}

// ---- scan verdicts ---------------------------------------------------------------

/* The verdict on a float scan y of x: verify_scan_ratio per element against
 * the double scan, the largest over the finite elements, the others
 * counted. Returns the worst ratio. */
static double scan_judge(const float *x, const float *y, size_t n, verify_verdict *v)
{
    double r = 0.0, a = 0.0, worst = 0.0;
    long long nonfinite = 0;
    for (size_t i = 0; i < n; i++) {
        r += x[i];
        a += fabs((double)x[i]);
        if (!isfinite(y[i])) {
            nonfinite++;
            continue;
        }
        double q = verify_scan_ratio(y[i], r, a);
        if (q > worst) worst = q;
    }
    verify_scan_judge(worst, nonfinite, (long long)n, v);
    return worst;
}

/* Float scan in tiles: each tile scanned sequentially, the tile totals
 * chained in float (the order of a decoupled look-back scan); a tile of n is
 * the plain sequential scan, the longest rounding chain there is. skip_tile:
 * that tile's total is never added to the later tiles (a lost tile), -1:
 * none. */
static void scan_tiled(const float *x, float *y, size_t n, size_t tile, long long skip_tile)
{
    float prefix = 0.0f;
    for (size_t b = 0; b < n; b += tile) {
        size_t e = b + tile < n ? b + tile : n;
        float s = 0.0f;
        for (size_t i = b; i < e; i++) {
            s += x[i];
            y[i] = prefix + s;
        }
        if ((long long)(b / tile) != skip_tile) prefix += s;
    }
}

static void test_scan_judge(void)
{
    const double u32 = ldexp(1.0, -24);
    const size_t n = (size_t)1 << 20;
    float *x = malloc(n * sizeof *x), *y = malloc(n * sizeof *y);
    verify_verdict v;
    double w, tol = verify_scan_tolerance((long long)n);

    /* the tolerance: u32 (32 + 4 sqrt n) */
    CHECK(verify_scan_tolerance(1) == 36.0 * u32, "scan tolerance n=1: %g", verify_scan_tolerance(1));
    CHECK(tol == u32 * (32.0 + 4096.0), "scan tolerance 2^20: %g", tol);
    CHECK(verify_scan_tolerance(0) == verify_scan_tolerance(1), "scan tolerance n=0: %g", verify_scan_tolerance(0));
    CHECK(verify_scan_tolerance(1LL << 28) == u32 * (32.0 + 65536.0), "scan tolerance 2^28: %g",
          verify_scan_tolerance(1LL << 28));

    /* the ratio's conventions */
    CHECK(verify_scan_ratio(1.5, 1.0, 2.0) == 0.25, "ratio 0.5 / 2: %g", verify_scan_ratio(1.5, 1.0, 2.0));
    CHECK(verify_scan_ratio(-3.0, -3.0, 7.0) == 0.0, "exact ratio: %g", verify_scan_ratio(-3.0, -3.0, 7.0));
    CHECK(verify_scan_ratio(0.0, 0.0, 0.0) == 0.0, "0 against a zero scale: %g", verify_scan_ratio(0.0, 0.0, 0.0));
    CHECK(isinf(verify_scan_ratio(1e-30, 0.0, 0.0)), "non-zero against a zero scale: %g",
          verify_scan_ratio(1e-30, 0.0, 0.0));
    CHECK(isnan(verify_scan_ratio(NAN, 1.0, 1.0)) && isnan(verify_scan_ratio(INFINITY, 1.0, 1.0)) &&
              isnan(verify_scan_ratio(-INFINITY, 0.0, 0.0)),
          "a non-finite element gives no NaN ratio");

    /* the verdict, at its boundary */
    verify_scan_judge(tol, 0, (long long)n, &v);
    CHECK(v.pass && v.tolerance == tol && v.max_tolerance == tol && v.rel_err == tol, "ratio == tolerance fails");
    verify_scan_judge(nextafter(tol, INFINITY), 0, (long long)n, &v);
    CHECK(!v.pass, "ratio just above the tolerance passes");
    verify_scan_judge(0.0, 1, (long long)n, &v);
    CHECK(!v.pass && v.nonfinite == 1, "a non-finite element passes");
    verify_scan_judge(NAN, 0, (long long)n, &v);
    CHECK(!v.pass, "a NaN ratio passes");
    verify_scan_judge(INFINITY, 0, (long long)n, &v);
    CHECK(!v.pass, "an infinite ratio passes");

    /* uniform [-1, 1): a sequential float scan and a tiled one pass, well inside */
    fill(x, n);
    scan_tiled(x, y, n, n, -1);
    w = scan_judge(x, y, n, &v);
    CHECK(v.pass && w < tol / 8, "sequential scan of [-1, 1): worst %g, tolerance %g", w, tol);
    scan_tiled(x, y, n, 2944, -1);
    w = scan_judge(x, y, n, &v);
    CHECK(v.pass && w < tol / 8, "tiled scan of [-1, 1): worst %g, tolerance %g", w, tol);

    /* defects: a lost tile, an exclusive scan for an inclusive one, one
     * element dropped near the start, one element not written (NaN poison) */
    scan_tiled(x, y, n, 2944, 0);
    scan_judge(x, y, n, &v);
    CHECK(!v.pass, "lost tile passes: worst %g, tolerance %g", v.rel_err, tol);
    scan_tiled(x, y, n, n, -1);
    memmove(y + 1, y, (n - 1) * sizeof *y);
    y[0] = 0.0f;
    scan_judge(x, y, n, &v);
    CHECK(!v.pass && v.rel_err > 10 * tol, "exclusive scan passes: worst %g, tolerance %g", v.rel_err, tol);
    {
        size_t pick = 100;
        while (fabsf(x[pick]) < 0.25f) pick++;
        float keep = x[pick];
        x[pick] = 0.0f;
        scan_tiled(x, y, n, 2944, -1);
        x[pick] = keep;
        scan_judge(x, y, n, &v);
        CHECK(!v.pass, "element %zu (%g) dropped passes: worst %g, tolerance %g", pick, (double)keep, v.rel_err, tol);
    }
    scan_tiled(x, y, n, 2944, -1);
    y[n / 2] = NAN;
    scan_judge(x, y, n, &v);
    CHECK(!v.pass && v.nonfinite == 1, "an unwritten (NaN) element passes");

    /* all positive, [0, 1): the partial sums grow like i, and a sequential
     * float scan's error with them; it still passes */
    for (size_t i = 0; i < n; i++) x[i] = 0.5f + 0.5f * x[i];
    scan_tiled(x, y, n, n, -1);
    w = scan_judge(x, y, n, &v);
    CHECK(v.pass && w < tol / 2, "sequential scan of [0, 1): worst %g, tolerance %g", w, tol);
    printf("scan 2^20: tolerance %.3g; worst ratio of a sequential float scan of [0, 1): %.3g\n", tol, w);
    free(x);
    free(y);
}

int main(void)
{
    test_tolerances();
    test_type_tolerances();
    test_type_judge();
    test_cpu_gemm();
    test_gemm_judge();
    test_reduce_judge();
    test_scan_judge();
    return test_finish("test_verify");
}
