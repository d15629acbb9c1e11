#include "verify.h"

#include <math.h>
#include <string.h>

#include "types.h"

/* ---- the one tolerance rule ----------------------------------------------------
 *
 * A reduction of length k (a GEMM's inner dimension, a row of a norm) is
 * judged on its relative Frobenius error against an FP64 reference computed
 * from the SAME stored inputs (a bf16 input is rounded once, on the device,
 * and the reference reads that rounded value: its rounding is not an error).
 * Three sources of error remain, each bounded from the unit roundoff u of a
 * type in src/core/types.c:
 *
 *   tol = 8 u_acc sqrt(k) + 6 u_math + 2 u_out
 *
 *  - u_acc sqrt(k): the accumulator's rounding, one per addition; with random
 *    signs the errors walk like sqrt(k), and 8 u sqrt(k) sits well above the
 *    errors FP32 GEMMs show. Every type's GEMM accumulates in FP32
 *    here (u_acc = 2^-24). A kernel that keeps fewer accumulator bits (FP8
 *    MMAs without promotion to FP32) is not within this bound: declare the
 *    accumulator it really has.
 *  - u_math: rounding the arithmetic applies to inputs that the reference
 *    does not see: TF32 math on FP32 inputs rounds each to 10 fraction bits
 *    (u_math = 2^-11); each product then carries up to 2 u_math relative
 *    error, which does not grow with k. 0 when the math takes the stored
 *    inputs exactly (FP32 math on FP32; FP16, BF16 and FP8 inputs, whose
 *    products are exact in the FP32 accumulator).
 *  - u_out: the final rounding of each element to an output type coarser
 *    than the accumulator (a bf16 C): at most u_out relative per element, so
 *    at most u_out in the Frobenius norm; 2 u_out leaves a margin of two. 0
 *    when the output is the accumulator's type (its last rounding is then
 *    part of the accumulation term).
 *
 * For FP32 and TF32 on FP32 storage this is the GEMM rule the project
 * always had (8 u32 sqrt(k) + 6 u_in); the cancellation floor of
 * verify_gemm_judge (verify.h) scales it for results that cancel. */

/* u of a float type, 0 when unknown or an integer type */
static double verify_u(const char *name)
{
    const types_info *t = types_find(name);
    return t && t->is_float ? t->unit_roundoff : 0.0;
}

double verify_tolerance(const verify_types *t, long long k)
{
    const char *math = t->math ? t->math : t->in;
    const char *acc = t->acc ? t->acc : "fp32";
    const char *out = t->out ? t->out : acc;
    double u_in = verify_u(t->in), u_math = verify_u(math), u_acc = verify_u(acc), u_out = verify_u(out);
    if (u_in <= 0 || u_math <= 0 || u_acc <= 0 || u_out <= 0) return -1.0;
    return 8.0 * u_acc * sqrt((double)(k < 1 ? 1 : k)) + 6.0 * (u_math > u_in ? u_math : 0.0) +
           2.0 * (u_out > u_acc ? u_out : 0.0);
}

double verify_unit_roundoff(const char *math)
{
    double u = verify_u(math);
    return u > 0 ? u : ldexp(1.0, -24);
}

double verify_gemm_tolerance(const char *math, long long k)
{
    /* FP32 storage in and out; a math this table does not know is judged as FP32 (the strictest) */
    verify_types t = {"fp32", verify_u(math) > 0 ? math : "fp32", "fp32", "fp32"};
    return verify_tolerance(&t, k);
}

double verify_gemm_max_tolerance(const char *math, long long k)
{
    return 16.0 * verify_gemm_tolerance(math, k);
}

/* The verdict of sums against a Frobenius tolerance tol (max error: 16 tol),
 * with the cancellation floor (verify.h). */
static void verify_judge_sums(const verify_sums *s, double tol, long long k, verify_verdict *v)
{
    double rms = s->count > 0 ? sqrt(s->sum_sq_ref / s->count) : 0.0;
    v->nonfinite = (long long)s->nonfinite;
    if (s->sum_sq_ref > 0) {
        v->rel_err = sqrt(s->sum_sq_err / s->sum_sq_ref);
        v->max_err = s->max_abs_err / rms;
    } else {
        /* all-zero reference: any non-zero output is an error */
        v->rel_err = s->sum_sq_err > 0 ? INFINITY : 0.0;
        v->max_err = s->max_abs_err > 0 ? INFINITY : 0.0;
    }
    v->tolerance = tol;
    v->max_tolerance = 16.0 * tol;
    if (s->sum_sq_ref > 0 && s->norm_sq_a > 0 && s->norm_sq_b > 0) {
        /* the cancellation floor (verify.h) */
        double floor_sq = s->norm_sq_a * s->norm_sq_b / (4.0 * (double)(k < 1 ? 1 : k));
        if (floor_sq > s->sum_sq_ref) {
            double f = sqrt(floor_sq / s->sum_sq_ref);
            v->tolerance *= f;
            v->max_tolerance *= f;
        }
    }
    v->pass = v->nonfinite == 0 && s->count > 0 && v->rel_err <= v->tolerance &&
              v->max_err <= v->max_tolerance;
}

void verify_gemm_judge(const verify_sums *s, const char *math, long long k, verify_verdict *v)
{
    verify_judge_sums(s, verify_gemm_tolerance(math, k), k, v);
}

int verify_judge_types(const verify_sums *s, const verify_types *t, long long k, verify_verdict *v)
{
    double tol = verify_tolerance(t, k);
    if (tol <= 0) return -1;
    verify_judge_sums(s, tol, k, v);
    return 0;
}

double verify_reduce_tolerance(long long n)
{
    return 8.0 * ldexp(1.0, -24) * (log2((double)(n < 1 ? 1 : n)) + 1.0);
}

void verify_reduce_judge(double result, double ref, long long n, double sum_sq, verify_verdict *v)
{
    double err = fabs(result - ref);
    double scale = sum_sq > 0 ? sqrt(sum_sq) : 1.0;
    v->nonfinite = isfinite(result) ? 0 : 1;
    v->rel_err = err / scale;
    v->max_err = v->rel_err;
    /* inputs with a non-zero mean: the partial sums, and so their rounding
     * errors, grow with |sum| rather than sqrt(sum x^2) */
    v->tolerance = verify_reduce_tolerance(n) * (1.0 + 0.5 * fabs(ref) / scale);
    v->max_tolerance = v->tolerance;
    v->pass = !v->nonfinite && v->rel_err <= v->tolerance;
}

double verify_scan_tolerance(long long n)
{
    return ldexp(1.0, -24) * (32.0 + 4.0 * sqrt((double)(n < 1 ? 1 : n)));
}

double verify_scan_ratio(double y, double ref, double abs_sum)
{
    double e = fabs(y - ref);
    if (!isfinite(y)) return NAN;
    if (abs_sum > 0) return e / abs_sum;
    return e > 0 ? INFINITY : 0.0;
}

void verify_ratio_verdict(double worst_ratio, long long nonfinite, double tol, verify_verdict *v)
{
    v->rel_err = worst_ratio;
    v->max_err = worst_ratio;
    v->tolerance = tol;
    v->max_tolerance = tol;
    v->nonfinite = nonfinite;
    v->pass = tol > 0 && nonfinite == 0 && worst_ratio <= tol;
}

void verify_scan_judge(double worst_ratio, long long nonfinite, long long n, verify_verdict *v)
{
    verify_ratio_verdict(worst_ratio, nonfinite, verify_scan_tolerance(n), v);
}

void verify_cpu_gemm(const float *A, const float *B, double *C, int m, int n, int k)
{
    for (int i = 0; i < m; i++)
        for (int j = 0; j < n; j++) {
            double acc = 0.0;
            for (int p = 0; p < k; p++) acc += (double)A[(size_t)i * k + p] * (double)B[(size_t)p * n + j];
            C[(size_t)i * n + j] = acc;
        }
}

double verify_norm_sq(const float *x, size_t n)
{
    double s = 0.0;
    for (size_t i = 0; i < n; i++) s += (double)x[i] * x[i];
    return s;
}

void verify_sums_host(const float *c, const double *ref, size_t count, verify_sums *s)
{
    memset(s, 0, sizeof *s);
    for (size_t i = 0; i < count; i++) {
        double r = ref[i];
        s->sum_sq_ref += r * r;
        if (!isfinite(c[i])) {
            s->nonfinite += 1;
            continue;
        }
        double e = fabs((double)c[i] - r);
        s->sum_sq_err += e * e;
        if (e > s->max_abs_err) s->max_abs_err = e;
    }
    s->count = (double)count;
}
