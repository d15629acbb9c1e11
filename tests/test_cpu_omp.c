/* tests/test_cpu_omp.c (cpu): the CPU rows of kernels/cpu_omp.c against FP64
 * references, judged by the project's rules (src/core/verify.h).
 *
 * SGEMM: every shape (m, n, k) over {1, 17, 129} and the shapes with 1000 in
 * one or two places (a 1000^3 case would cost the naive FP64 reference ~1e9
 * strided steps), against verify_cpu_gemm, judged by verify_gemm_judge
 * ("fp32", k); a planted error of one rms in one element must fail.
 * Reduce: random [-1, 1) and [0, 1) inputs judged by verify_reduce_judge;
 * integer-valued inputs (every partial sum exact in float) must give the
 * exact sum; a sum missing its last element must fail; repeated calls give
 * the same bits. Bad arguments are refused. */
#include "cpu_omp.h"
#include "testlib.h"
#include "verify.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static uint64_t rng = 0x0c0ffee5ull;

static uint32_t rng_next(void)
{
    rng = rng * 6364136223846793005ull + 1442695040888963407ull;
    return (uint32_t)(rng >> 32);
}

/* uniform in [-1, 1), exact in float (24-bit) */
static float rand_pm1(void)
{
    return (float)((int32_t)(rng_next() >> 8) - (1 << 23)) / (float)(1 << 23);
}

// ---- SGEMM -------------------------------------------------------------------

static void check_sgemm(int m, int n, int k, int plant)
{
    float *A = malloc((size_t)m * k * sizeof *A);
    float *B = malloc((size_t)k * n * sizeof *B);
    float *C = malloc((size_t)m * n * sizeof *C);
    double *ref = malloc((size_t)m * n * sizeof *ref);
    if (!A || !B || !C || !ref) {
        CHECK(0, "out of memory at %dx%dx%d", m, n, k);
        goto done;
    }
    for (size_t i = 0; i < (size_t)m * k; i++) A[i] = rand_pm1();
    for (size_t i = 0; i < (size_t)k * n; i++) B[i] = rand_pm1();
    for (size_t i = 0; i < (size_t)m * n; i++) C[i] = NAN; /* every element must be written */
    int rc = cpu_omp_sgemm(A, B, C, m, n, k);
    CHECK(rc == 0, "cpu_omp_sgemm %dx%dx%d returned %d", m, n, k, rc);
    verify_cpu_gemm(A, B, ref, m, n, k);
    verify_sums s;
    verify_verdict v;
    verify_sums_host(C, ref, (size_t)m * n, &s);
    verify_gemm_judge(&s, "fp32", k, &v);
    CHECK(v.pass, "sgemm %dx%dx%d: rel_err %.3g (tol %.3g), max_err %.3g (tol %.3g), nonfinite %lld", m, n, k,
          v.rel_err, v.tolerance, v.max_err, v.max_tolerance, v.nonfinite);
    if (plant) {
        /* one element off by one rms of the reference: must fail */
        double rms = sqrt(s.sum_sq_ref / s.count);
        size_t at = (size_t)(rng_next() % ((uint32_t)m * (uint32_t)n));
        C[at] += (float)rms;
        verify_sums_host(C, ref, (size_t)m * n, &s);
        verify_gemm_judge(&s, "fp32", k, &v);
        CHECK(!v.pass, "sgemm %dx%dx%d: a planted error of one rms at %zu passed (max_err %.3g)", m, n, k, at,
              v.max_err);
    }
done:
    free(A);
    free(B);
    free(C);
    free(ref);
}

static void test_sgemm(void)
{
    static const int small[] = {1, 17, 129};
    for (int a = 0; a < 3; a++)
        for (int b = 0; b < 3; b++)
            for (int c = 0; c < 3; c++)
                check_sgemm(small[a], small[b], small[c], 0);
    /* 1000 in one or two places; planted errors where the product is large */
    static const int big[][3] = {{1000, 17, 129}, {17, 1000, 129}, {129, 17, 1000}, {1000, 1, 1},
                                 {1, 1000, 1},    {1, 1, 1000},    {1000, 1000, 1}, {1, 1000, 1000},
                                 {1000, 1, 1000}, {1000, 129, 1000}, {129, 1000, 1000}, {1000, 1000, 17}};
    for (size_t i = 0; i < sizeof big / sizeof big[0]; i++)
        check_sgemm(big[i][0], big[i][1], big[i][2], big[i][0] * big[i][1] >= 1000);
}

// ---- reduce ------------------------------------------------------------------

static void ref_sum(const float *x, long long n, double *sum, double *sum_sq)
{
    double s = 0.0, q = 0.0;
    for (long long i = 0; i < n; i++) {
        s += x[i];
        q += (double)x[i] * x[i];
    }
    *sum = s;
    *sum_sq = q;
}

static void test_reduce(void)
{
    static const long long lens[] = {1, 17, 129, 1000, 4095, 4096, 4097, 65537, (1 << 20) + 3, (1 << 22) + 5};
    const long long maxn = (1 << 22) + 5;
    float *x = malloc((size_t)maxn * sizeof *x);
    if (x == NULL) {
        CHECK(0, "out of memory");
        return;
    }
    for (int kind = 0; kind < 3; kind++) {
        /* 0: uniform [-1, 1); 1: uniform [0, 1) (non-zero mean); 2: integers -2..2 */
        for (long long i = 0; i < maxn; i++) {
            float r = rand_pm1();
            x[i] = kind == 0 ? r : kind == 1 ? 0.5f * (r + 1.0f) : (float)((int)(rng_next() % 5) - 2);
        }
        for (size_t li = 0; li < sizeof lens / sizeof lens[0]; li++) {
            long long n = lens[li];
            double ref, sum_sq;
            float got = NAN, again = NAN;
            ref_sum(x, n, &ref, &sum_sq);
            int rc = cpu_omp_reduce(x, n, &got);
            CHECK(rc == 0, "cpu_omp_reduce n=%lld returned %d", n, rc);
            CHECK(cpu_omp_reduce(x, n, &again) == 0 && memcmp(&got, &again, sizeof got) == 0,
                  "kind %d n=%lld: two calls differ (%.9g, %.9g)", kind, n, (double)got, (double)again);
            if (kind == 2) {
                CHECK((double)got == ref, "integers n=%lld: %.1f, exact %.1f", n, (double)got, ref);
                continue;
            }
            verify_verdict v;
            verify_reduce_judge(got, ref, n, sum_sq, &v);
            CHECK(v.pass, "kind %d n=%lld: %.9g vs %.9g, rel_err %.3g tol %.3g", kind, n, (double)got, ref, v.rel_err,
                  v.tolerance);
            /* the last element left out must be caught when it is not tiny */
            if (n >= 2 && fabsf(x[n - 1]) > 0.25f && n <= (1 << 20)) {
                float short_sum = NAN;
                CHECK(cpu_omp_reduce(x, n - 1, &short_sum) == 0, "reduce n-1 launch");
                verify_reduce_judge(short_sum, ref, n, sum_sq, &v);
                CHECK(!v.pass, "kind %d n=%lld: a sum missing x[n-1] = %g passed (rel_err %.3g, tol %.3g)", kind, n,
                      (double)x[n - 1], v.rel_err, v.tolerance);
            }
        }
    }
    free(x);
}

// ---- arguments -------------------------------------------------------------------

static void test_arguments(void)
{
    float a = 1.0f, b = 2.0f, c = 0.0f;
    CHECK(cpu_omp_sgemm(&a, &b, &c, 1, 1, 1) == 0 && c == 2.0f, "1x1x1: %g", (double)c);
    CHECK(cpu_omp_sgemm(NULL, &b, &c, 1, 1, 1) == 1, "NULL A accepted");
    CHECK(cpu_omp_sgemm(&a, &b, &c, 0, 1, 1) == 1, "m = 0 accepted");
    CHECK(cpu_omp_sgemm(&a, &b, &c, 1, 1, -1) == 1, "k = -1 accepted");
    CHECK(cpu_omp_reduce(&a, 0, &c) == 1, "n = 0 accepted");
    CHECK(cpu_omp_reduce(NULL, 1, &c) == 1, "NULL x accepted");
    CHECK(cpu_omp_threads() >= 1, "threads %d", cpu_omp_threads());
}

int main(void)
{
    printf("cpu_omp threads: %d\n", cpu_omp_threads());
    test_arguments();
    test_sgemm();
    test_reduce();
    return test_finish("test_cpu_omp");
}
