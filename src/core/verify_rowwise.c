/* src/core/verify_rowwise.c: the tolerance of softmax, rmsnorm and layernorm
 * (verify_rowwise.h says how the error is measured).
 *
 *   tol = 2 u_type + u32 (32 + 8 sqrt(cols) + 4 x_max)
 *
 * The FP64 reference reads the same stored inputs as the kernels (a bf16 x
 * is rounded once on the device; the reference sees the rounded value), so
 * input rounding is not an error. What remains, each bounded in units of the
 * row's largest output s_row:
 *  - 2 u_type: the final rounding of each element to the stored type,
 *    at most u_type |ref| <= u_type s_row; two for a margin (and for the
 *    intermediate FP32 value the kernel rounds, itself off by the terms
 *    below). For fp32 outputs this is 2 u32. s_row is at least the type's
 *    smallest normal number N (src/gpu/rowwise_ref.cu): below N the
 *    spacing is fixed at 2 u N, so an fp16 softmax row of subnormal outputs
 *    (a 70001-column row: outputs near 2^-16) may err by up to one such
 *    spacing, 2 u_type s_row; measured against its own tiny maximum, a
 *    library that rounds a subnormal output by more than half a spacing
 *    (cuDNN's fp16 softmax there) would fail for the type's range, not for
 *    its arithmetic.
 *  - 32 u32: the fixed number of FP32 roundings per element, whatever cols:
 *    exp (expf within 2 ulp; __expf / exp2f with a log2(e) scaling a few
 *    more), the subtraction of the max or the mean, the division or rsqrt
 *    (within 2 ulp), the products by 1/sum, 1/rms and the weight, the bias.
 *    A dozen roundings of at most a few ulp each; 32 leaves a margin.
 *  - 8 u32 sqrt(cols): the row reductions in FP32 (sum of exp, sum of
 *    squares, mean and variance) over cols terms. With independent
 *    roundings the error walks like sqrt(cols) (the rule of verify.c,
 *    8 u_acc sqrt(k)), whether the sum is a tree, a warp/block reduction or
 *    a thread's sequential loop (whose partial sums grow linearly: std
 *    about u32 sqrt(cols) / 3 relative). The relative error of the sum
 *    passes unchanged to each output (1/sum, 1/sqrt(mean square) halves it).
 *  - 4 u32 x_max: softmax's exponent argument x - max (or x log2 e - max
 *    log2 e, computed with an FMA) carries an absolute error of about
 *    u32 (|x| + |max|) log2 e, which exp turns into a relative error of the
 *    same size on every output of the row; x_max = max |x| over the input
 *    bounds it (uniform inputs: 1; the `wide` distribution: 100). For the
 *    norms the same term covers x - mean.
 * What it catches: an output off by one part in 1/tol of the row's largest
 * (fp32, cols 1001: about 2e-5; bf16: about 8e-3), a dropped or doubled
 * term of a short row, a row normalised by a wrong sum, a missed weight or
 * bias; overflow (the naive softmax on wide inputs) by its NaN/Inf. A wrong
 * sum over a long row by less than the tolerance is not caught in bf16:
 * there the output's own rounding is larger. */
#include "verify_rowwise.h"

#include <math.h>

#include "types.h"

double verify_rowwise_tolerance(const char *type, long long cols, double x_max)
{
    const types_info *t = types_find(type);
    const double u32 = ldexp(1.0, -24);
    if (!t || !t->is_float) return -1.0;
    if (cols < 1) cols = 1;
    if (!(x_max >= 0)) x_max = 0; /* NaN or negative: no term */
    return 2.0 * t->unit_roundoff + u32 * (32.0 + 8.0 * sqrt((double)cols) + 4.0 * x_max);
}

double verify_rowwise_ratio(double y, double ref, double scale)
{
    const double e = fabs(y - ref);
    if (!isfinite(y)) return NAN;
    if (scale > 0) return e / scale;
    return e > 0 ? INFINITY : 0.0;
}

void verify_rowwise_judge(double worst_ratio, long long nonfinite, const char *type, long long cols, double x_max,
                          verify_verdict *v)
{
    verify_ratio_verdict(worst_ratio, nonfinite, verify_rowwise_tolerance(type, cols, x_max), v);
}
