#include "verify.h"

#include <math.h>
#include <string.h>

double verify_unit_roundoff(const char *math)
{
    if (strcmp(math, "tf32") == 0) return ldexp(1.0, -11);
    return ldexp(1.0, -24);
}

double verify_gemm_tolerance(const char *math, long long k)
{
    double u32 = ldexp(1.0, -24);
    double u_in = strcmp(math, "tf32") == 0 ? verify_unit_roundoff("tf32") : 0.0;
    return 8.0 * u32 * sqrt((double)(k < 1 ? 1 : k)) + 6.0 * u_in;
}

double verify_gemm_max_tolerance(const char *math, long long k)
{
    return 16.0 * verify_gemm_tolerance(math, k);
}

void verify_gemm_judge(const verify_sums *s, const char *math, long long k, verify_verdict *v)
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
    v->tolerance = verify_gemm_tolerance(math, k);
    v->max_tolerance = verify_gemm_max_tolerance(math, k);
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

void verify_scan_judge(double worst_ratio, long long nonfinite, long long n, verify_verdict *v)
{
    v->rel_err = worst_ratio;
    v->max_err = worst_ratio;
    v->tolerance = verify_scan_tolerance(n);
    v->max_tolerance = v->tolerance;
    v->nonfinite = nonfinite;
    v->pass = nonfinite == 0 && worst_ratio <= v->tolerance;
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
