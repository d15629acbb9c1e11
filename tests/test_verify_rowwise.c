/* tests/test_verify_rowwise.c (cpu): the verification rule of softmax,
 * rmsnorm and layernorm (src/core/verify_rowwise.c).
 *
 * Rows computed on the host as the kernels compute them (FP32 arithmetic,
 * sequential and pairwise sums, expf of x - max, outputs rounded to fp32,
 * bf16 and fp16 by types_round) pass against a double reference, at short
 * and long rows and on the `wide` inputs; a row normalised by half its sum,
 * a missed weight, a missed bias, the naive softmax on wide inputs (exp
 * overflows: NaN/Inf) and an unwritten (NaN) element fail. */
#include "testlib.h"
#include "types.h"
#include "verify_rowwise.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static uint64_t rng = 0x37ull;

/* uniform in [-1, 1) */
static double rand_pm1(void)
{
    rng = rng * 6364136223846793005ull + 1442695040888963407ull;
    return (double)((int32_t)(rng >> 40) - (1 << 23)) / (double)(1 << 23);
}

typedef enum { OP_SOFTMAX, OP_SOFTMAX_NAIVE, OP_RMSNORM, OP_LAYERNORM } op_kind;
/* planted defects */
typedef enum { BUG_NONE, BUG_HALF_SUM, BUG_NO_WEIGHT, BUG_NO_BIAS, BUG_NAN } bug_kind;

static float sum_f32(const float *v, int n, int pairwise)
{
    if (!pairwise || n <= 8) {
        float s = 0.0f;
        for (int i = 0; i < n; i++) s += v[i];
        return s;
    }
    return sum_f32(v, n / 2, 1) + sum_f32(v + n / 2, n - n / 2, 1);
}

/* One row: x (already in the type), weight w, bias b; y as the kernel
 * would store it (float arithmetic, rounded to t), ref in double. */
static void row(op_kind op, bug_kind bug, const types_info *t, const float *x, const float *w, const float *b, int n,
                int pairwise, float *tmp, double *y, double *ref)
{
    const float eps = 1e-5f;
    double m = -INFINITY, s = 0, mean = 0, var = 0;
    float mf = -INFINITY, sf, meanf = 0, varf, inv;
    for (int i = 0; i < n; i++) m = fmax(m, x[i]), mf = fmaxf(mf, x[i]);
    if (op == OP_SOFTMAX || op == OP_SOFTMAX_NAIVE) {
        for (int i = 0; i < n; i++) s += exp((double)x[i] - m);
        for (int i = 0; i < n; i++) ref[i] = exp((double)x[i] - m) / s;
        for (int i = 0; i < n; i++) tmp[i] = op == OP_SOFTMAX ? expf(x[i] - mf) : expf(x[i]);
        sf = sum_f32(tmp, bug == BUG_HALF_SUM ? n / 2 : n, pairwise);
        for (int i = 0; i < n; i++) y[i] = types_round(t, tmp[i] / sf);
    } else if (op == OP_RMSNORM) {
        for (int i = 0; i < n; i++) s += (double)x[i] * x[i];
        for (int i = 0; i < n; i++) ref[i] = x[i] / sqrt(s / n + (double)eps) * w[i];
        for (int i = 0; i < n; i++) tmp[i] = x[i] * x[i];
        sf = sum_f32(tmp, bug == BUG_HALF_SUM ? n / 2 : n, pairwise);
        inv = 1.0f / sqrtf(sf / (float)n + eps);
        for (int i = 0; i < n; i++) y[i] = types_round(t, x[i] * inv * (bug == BUG_NO_WEIGHT ? 1.0f : w[i]));
    } else {
        for (int i = 0; i < n; i++) mean += x[i];
        mean /= n;
        for (int i = 0; i < n; i++) var += (x[i] - mean) * (x[i] - mean);
        var /= n;
        for (int i = 0; i < n; i++) ref[i] = (x[i] - mean) / sqrt(var + (double)eps) * w[i] + b[i];
        meanf = sum_f32(x, bug == BUG_HALF_SUM ? n / 2 : n, pairwise) / (float)n; /* two-pass */
        for (int i = 0; i < n; i++) tmp[i] = (x[i] - meanf) * (x[i] - meanf);
        varf = sum_f32(tmp, n, pairwise) / (float)n;
        inv = 1.0f / sqrtf(varf + eps);
        for (int i = 0; i < n; i++)
            y[i] = types_round(t, fmaf((x[i] - meanf) * inv, bug == BUG_NO_WEIGHT ? 1.0f : w[i],
                                        bug == BUG_NO_BIAS ? 0.0f : b[i]));
    }
    if (bug == BUG_NAN) y[n / 3] = NAN;
}

/* Judges `rows` rows of `n` columns of op in type; x in (-scale, scale]. */
static int judge(op_kind op, bug_kind bug, const char *type, int rows, int n, double scale, int pairwise,
                 verify_verdict *v)
{
    const types_info *t = types_find(type);
    float *x = malloc(sizeof(float) * n), *w = malloc(sizeof(float) * n), *b = malloc(sizeof(float) * n);
    float *tmp = malloc(sizeof(float) * n);
    double *y = malloc(sizeof(double) * n), *ref = malloc(sizeof(double) * n);
    double worst = 0, x_max = 0;
    long long nonfinite = 0;
    for (int i = 0; i < n; i++) {
        w[i] = (float)(1.0 + 0.5 * rand_pm1());
        b[i] = (float)(0.5 * rand_pm1());
    }
    for (int r = 0; r < rows; r++) {
        double s_row = 0;
        for (int i = 0; i < n; i++) {
            x[i] = (float)types_round(t, scale * rand_pm1());
            x_max = fmax(x_max, fabs(x[i]));
        }
        row(op, bug, t, x, w, b, n, pairwise, tmp, y, ref);
        for (int i = 0; i < n; i++) s_row = fmax(s_row, fabs(ref[i]));
        for (int i = 0; i < n; i++) {
            double q = verify_rowwise_ratio(y[i], ref[i], s_row);
            if (!isfinite(y[i])) nonfinite++;
            else if (q > worst) worst = q;
        }
    }
    verify_rowwise_judge(worst, nonfinite, type, n, x_max, v);
    free(x), free(w), free(b), free(tmp), free(y), free(ref);
    return v->pass;
}

static const char *const op_names[] = {"softmax", "softmax naive", "rmsnorm", "layernorm"};

static void test_tolerance(void)
{
    const double u32 = ldexp(1.0, -24);
    CHECK(fabs(verify_rowwise_tolerance("fp32", 1, 0) - u32 * (2 + 32 + 8)) < 1e-20, "fp32 cols 1: %g",
          verify_rowwise_tolerance("fp32", 1, 0));
    CHECK(fabs(verify_rowwise_tolerance("bf16", 4096, 1) - (2 * ldexp(1.0, -8) + u32 * (32 + 512 + 4))) < 1e-15,
          "bf16 4096: %g", verify_rowwise_tolerance("bf16", 4096, 1));
    CHECK(verify_rowwise_tolerance("fp16", 1001, 1) < verify_rowwise_tolerance("bf16", 1001, 1),
          "fp16 (10 bits) must be tighter than bf16 (7 bits)");
    CHECK(verify_rowwise_tolerance("fp32", 65536, 1) > verify_rowwise_tolerance("fp32", 1024, 1),
          "the bound grows with cols");
    CHECK(verify_rowwise_tolerance("fp32", 1001, 100) > verify_rowwise_tolerance("fp32", 1001, 1),
          "the bound grows with the inputs' magnitude");
    CHECK(verify_rowwise_tolerance("u32", 10, 1) < 0 && verify_rowwise_tolerance("nope", 10, 1) < 0,
          "an integer or unknown type has no rule");
    CHECK(verify_rowwise_ratio(1.0, 1.0, 0.0) == 0.0, "0 / 0 is no error");
    CHECK(isinf(verify_rowwise_ratio(1.0, 0.0, 0.0)), "an error against a zero scale is infinite");
    CHECK(isnan(verify_rowwise_ratio(NAN, 1.0, 1.0)) && isnan(verify_rowwise_ratio(INFINITY, 1.0, 1.0)),
          "NaN/Inf outputs give NaN");
    verify_verdict v;
    verify_rowwise_judge(NAN, 0, "fp32", 10, 1, &v);
    CHECK(!v.pass, "a NaN worst ratio fails");
    verify_rowwise_judge(0, 1, "fp32", 10, 1, &v);
    CHECK(!v.pass, "one non-finite element fails");
    verify_rowwise_judge(0, 0, "u32", 10, 1, &v);
    CHECK(!v.pass, "a type without a rule fails");
}

/* correct rows pass: every op, type, summation order, short and long rows */
static void test_correct(void)
{
    static const char *const types[] = {"fp32", "bf16", "fp16"};
    static const int cols[] = {1, 7, 1001, 32768};
    for (int op = 0; op < 4; op++) {
        if (op == OP_SOFTMAX_NAIVE) continue;
        for (int t = 0; t < 3; t++)
            for (int c = 0; c < 4; c++)
                for (int pw = 0; pw < 2; pw++) {
                    verify_verdict v;
                    const int rows = cols[c] > 5000 ? 2 : 8;
                    CHECK(judge((op_kind)op, BUG_NONE, types[t], rows, cols[c], 1.0, pw, &v),
                          "%s %s cols %d %s: e %.3g > tol %.3g", op_names[op], types[t], cols[c],
                          pw ? "pairwise" : "sequential", v.rel_err, v.tolerance);
                }
    }
    /* the naive softmax is right on inputs in (-1, 1] */
    for (int t = 0; t < 3; t++) {
        verify_verdict v;
        CHECK(judge(OP_SOFTMAX_NAIVE, BUG_NONE, types[t], 4, 1001, 1.0, 0, &v), "naive %s uniform: e %.3g tol %.3g",
              types[t], v.rel_err, v.tolerance);
    }
    /* wide inputs: the safe softmax stays within the bound (fp32 the tightest) */
    for (int t = 0; t < 3; t++) {
        verify_verdict v;
        CHECK(judge(OP_SOFTMAX, BUG_NONE, types[t], 4, 1001, 100.0, 1, &v), "softmax %s wide: e %.3g tol %.3g",
              types[t], v.rel_err, v.tolerance);
    }
}

/* planted defects fail */
static void test_defects(void)
{
    static const char *const types[] = {"fp32", "bf16", "fp16"};
    for (int t = 0; t < 3; t++) {
        verify_verdict v;
        CHECK(!judge(OP_SOFTMAX_NAIVE, BUG_NONE, types[t], 2, 1001, 100.0, 0, &v) && v.nonfinite > 0,
              "naive softmax %s on wide inputs must overflow (nonfinite %lld)", types[t], v.nonfinite);
        CHECK(!judge(OP_SOFTMAX, BUG_HALF_SUM, types[t], 2, 1001, 1.0, 1, &v), "softmax %s, half the sum passed",
              types[t]);
        CHECK(!judge(OP_RMSNORM, BUG_HALF_SUM, types[t], 2, 1001, 1.0, 1, &v), "rmsnorm %s, half the sum passed",
              types[t]);
        CHECK(!judge(OP_RMSNORM, BUG_NO_WEIGHT, types[t], 2, 1001, 1.0, 1, &v), "rmsnorm %s without weight passed",
              types[t]);
        CHECK(!judge(OP_LAYERNORM, BUG_NO_BIAS, types[t], 2, 1001, 1.0, 1, &v), "layernorm %s without bias passed",
              types[t]);
        CHECK(!judge(OP_LAYERNORM, BUG_NO_WEIGHT, types[t], 2, 1001, 1.0, 1, &v),
              "layernorm %s without weight passed", types[t]);
        CHECK(!judge(OP_LAYERNORM, BUG_NAN, types[t], 2, 1001, 1.0, 1, &v) && v.nonfinite == 2,
              "layernorm %s with a NaN per row: nonfinite %lld", types[t], v.nonfinite);
    }
    /* fp32 catches a mean over the first half of a long row */
    {
        verify_verdict v;
        CHECK(!judge(OP_LAYERNORM, BUG_HALF_SUM, "fp32", 2, 32768, 1.0, 1, &v), "layernorm fp32 half-mean passed");
    }
}

int main(void)
{
    test_tolerance();
    test_correct();
    test_defects();
    return test_finish("test_verify_rowwise");
}
