/* tests/test_verify_gemm_lowp.c (cpu): the verdict of the gemm op
 * (src/gpu/op_gemm.c) on the CPU, with the rule it uses: verify_types
 * {type, NULL, "fp32", C's type} (C in the type for fp16 and bf16, in bf16
 * for fp8_e4m3). Inputs rounded to the type (types_round, what the device's
 * conversion does), B in layout tn (n x k) or nn (k x n), the FP64
 * reference over the rounded values; a right kernel is FP32 accumulation
 * then one rounding to C's type. Checked:
 *  - the tolerance's value for the three rows (8 u32 sqrt(k) + 2 u_out);
 *  - a right result passes in each type and layout at k = 1, 33, 1001, 4096;
 *  - planted faults fail: k - 1 terms, B read in the other layout, one
 *    element off by a quarter of the rms (a lost MMA fragment errs more),
 *    an unwritten (NaN) element, an accumulator in the input type (bf16 /
 *    fp16 partial sums) at k = 4096;
 *  - fp8's bf16 output rounding is what the u_out term is for: the same
 *    right result judged as if C were FP32 fails. */
#include "testlib.h"
#include "types.h"
#include "verify.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static uint64_t rng = 0x36ull;

/* uniform in [-1, 1) */
static double rand_pm1(void)
{
    rng = rng * 6364136223846793005ull + 1442695040888963407ull;
    return (double)((int32_t)(rng >> 40) - (1 << 23)) / (double)(1 << 23);
}

typedef enum { RIGHT, SHORT_K, OTHER_LAYOUT, ONE_OFF, ONE_NAN, LOW_ACC } fault;

typedef struct {
    int m, n, k;
    int b_kmajor;
    const char *type, *ctype;
} lowp_case;

/* B's element (p, j) of a case's storage, read in layout kmajor */
static float b_at(const float *B, const lowp_case *c, int kmajor, int p, int j)
{
    return kmajor ? B[(size_t)j * c->k + p] : B[(size_t)p * c->n + j];
}

/* The verdict of the result a kernel with fault f writes, under the gemm
 * op's rule (judged_out: C's type as declared to the rule). Returns
 * verify_judge_types's value. */
static int judge_case(const lowp_case *c, fault f, const char *judged_out, verify_verdict *v)
{
    const types_info *ti = types_find(c->type), *to = types_find(c->ctype);
    const size_t na = (size_t)c->m * c->k, nb = (size_t)c->k * c->n, nc = (size_t)c->m * c->n;
    float *A = malloc(na * sizeof *A), *B = malloc(nb * sizeof *B), *C = malloc(nc * sizeof *C);
    double *R = malloc(nc * sizeof *R);
    const verify_types t = {c->type, NULL, "fp32", judged_out};
    verify_sums s;
    double rms = 0;
    int rc;
    CHECK(A && B && C && R, "out of memory");
    if (!A || !B || !C || !R) exit(1);
    for (size_t i = 0; i < na; i++) A[i] = (float)types_round(ti, rand_pm1());
    for (size_t i = 0; i < nb; i++) B[i] = (float)types_round(ti, rand_pm1());
    for (int i = 0; i < c->m; i++)
        for (int j = 0; j < c->n; j++) {
            double ref = 0;
            float acc = 0.0f;
            const int kk = f == SHORT_K ? c->k - 1 : c->k;
            const int lay = f == OTHER_LAYOUT ? !c->b_kmajor : c->b_kmajor;
            for (int p = 0; p < c->k; p++) ref += (double)A[(size_t)i * c->k + p] * b_at(B, c, c->b_kmajor, p, j);
            for (int p = 0; p < kk; p++) {
                /* OTHER_LAYOUT reads in bounds: the storage holds k n elements either way */
                acc += A[(size_t)i * c->k + p] * b_at(B, c, lay, p, j);
                if (f == LOW_ACC) acc = (float)types_round(ti, acc);
            }
            R[(size_t)i * c->n + j] = ref;
            C[(size_t)i * c->n + j] = (float)types_round(to, acc);
            rms += ref * ref;
        }
    rms = sqrt(rms / (double)nc);
    if (f == ONE_OFF) C[nc / 2] = (float)(R[nc / 2] + 0.25 * rms);
    if (f == ONE_NAN) C[nc - 1] = NAN;
    verify_sums_host(C, R, nc, &s);
    double na2 = 0, nb2 = 0;
    for (size_t i = 0; i < na; i++) na2 += (double)A[i] * A[i];
    for (size_t i = 0; i < nb; i++) nb2 += (double)B[i] * B[i];
    s.norm_sq_a = na2;
    s.norm_sq_b = nb2;
    rc = verify_judge_types(&s, &t, c->k, v);
    free(A);
    free(B);
    free(C);
    free(R);
    return rc;
}

static const char *const types[3][2] = {{"fp16", "fp16"}, {"bf16", "bf16"}, {"fp8_e4m3", "bf16"}};

static void test_tolerance_values(void)
{
    const long long ks[] = {1, 1001, 4096, 65536};
    for (int t = 0; t < 3; t++)
        for (int i = 0; i < 4; i++) {
            const verify_types vt = {types[t][0], NULL, "fp32", types[t][1]};
            const double u_out = types_find(types[t][1])->unit_roundoff;
            const double want = 8.0 * ldexp(1.0, -24) * sqrt((double)ks[i]) + 2.0 * u_out;
            const double got = verify_tolerance(&vt, ks[i]);
            CHECK(fabs(got - want) <= 1e-15 * want, "%s (C %s) k=%lld: tolerance %.17g, expected %.17g", types[t][0],
                  types[t][1], ks[i], got, want);
        }
}

static void test_right_results_pass(void)
{
    static const int shapes[][3] = {{1, 1, 1}, {17, 31, 33}, {33, 29, 1001}, {8, 16, 4096}};
    for (int t = 0; t < 3; t++)
        for (int lay = 0; lay < 2; lay++)
            for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
                const lowp_case c = {shapes[i][0], shapes[i][1], shapes[i][2], lay, types[t][0], types[t][1]};
                verify_verdict v;
                CHECK(judge_case(&c, RIGHT, c.ctype, &v) == 0 && v.pass,
                      "%s %s %dx%dx%d: right result fails: rel %.3g (tol %.3g), max %.3g (tol %.3g)", c.type,
                      lay ? "tn" : "nn", c.m, c.n, c.k, v.rel_err, v.tolerance, v.max_err, v.max_tolerance);
            }
}

static void test_faults_fail(void)
{
    static const struct {
        fault f;
        const char *what;
    } faults[] = {{SHORT_K, "k - 1 terms"}, {OTHER_LAYOUT, "B read in the other layout"},
                  {ONE_OFF, "one element off by rms / 4"}, {ONE_NAN, "one NaN element"}};
    for (int t = 0; t < 3; t++)
        for (int lay = 0; lay < 2; lay++)
            for (size_t i = 0; i < sizeof faults / sizeof faults[0]; i++) {
                const lowp_case c = {40, 24, 96, lay, types[t][0], types[t][1]};
                verify_verdict v;
                CHECK(judge_case(&c, faults[i].f, c.ctype, &v) == 0 && !v.pass, "%s %s: %s passed (rel %.3g, tol %.3g)",
                      c.type, lay ? "tn" : "nn", faults[i].what, v.rel_err, v.tolerance);
            }
    /* an accumulator in the input type: partial sums rounded to bf16 / fp16 */
    for (int t = 0; t < 2; t++) {
        const lowp_case c = {4, 8, 4096, 1, types[t][0], types[t][1]};
        verify_verdict v;
        CHECK(judge_case(&c, LOW_ACC, c.ctype, &v) == 0 && !v.pass, "%s accumulator passed at k=4096 (rel %.3g, tol %.3g)",
              c.type, v.rel_err, v.tolerance);
    }
}

/* FP8's C is bf16: its rounding is the largest error of a right result, so
 * the rule must know C's type (judged as FP32 output, the same result fails) */
static void test_fp8_output_rounding(void)
{
    const lowp_case c = {32, 32, 256, 1, "fp8_e4m3", "bf16"};
    verify_verdict v;
    CHECK(judge_case(&c, RIGHT, "bf16", &v) == 0 && v.pass, "fp8 -> bf16 right result fails");
    rng = 0x36ull;
    CHECK(judge_case(&c, RIGHT, "fp32", &v) == 0 && !v.pass,
          "fp8 with bf16 C judged as FP32 C passed (rel %.3g, tol %.3g)", v.rel_err, v.tolerance);
}

int main(void)
{
    test_tolerance_values();
    test_right_results_pass();
    test_faults_fail();
    test_fp8_output_rounding();
    return test_finish("test_verify_gemm_lowp");
}
