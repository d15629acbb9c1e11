/* src/core/verify_rowwise.h: the verification rule of the row-wise ops
 * (softmax, rmsnorm, layernorm: kernels/rowwise.h), in plain C so that a cpu
 * test pins it down. The GPU measures the errors against an FP64 reference
 * of the same stored inputs (src/gpu/rowwise_ref.cu); the verdict is made
 * here.
 *
 * The error is measured per element against its row's scale:
 *     e = |y - ref| / s_row,   s_row = max over the row of |ref|
 * the largest output of the row (softmax: its largest probability). Not the
 * element's own relative error: a correct softmax flushes e^-150 to 0 (a
 * relative error of 1), and a norm's output near 0 (LayerNorm's x near the
 * mean, fp16 subnormals) has an ill-conditioned relative error, while every
 * rounding below is bounded by a multiple of s_row. Every element is
 * checked; the verdict takes the largest e (max error, not an average: one
 * wrong element fails), and any NaN/Inf output fails. */
#ifndef COMPARE_VERIFY_ROWWISE_H
#define COMPARE_VERIFY_ROWWISE_H

#include "verify.h"

/* The bound on e for a row of `cols` elements stored as `type` ("fp32",
 * "bf16", "fp16"; FP32 arithmetic inside), whose inputs are at most x_max in
 * magnitude (verify_rowwise.c derives it):
 *     tol = 2 u_type + u32 (32 + 8 sqrt(cols) + 4 x_max)
 * -1 for a type that is not a float type of src/core/types.c. */
double verify_rowwise_tolerance(const char *type, long long cols, double x_max);

/* One element's e (above): |y - ref| / scale; 0 when both are 0, +inf when
 * scale is 0 and y != ref, NaN when y is NaN or infinite (no bound accepts
 * it). */
double verify_rowwise_ratio(double y, double ref, double scale);

/* The verdict of a whole output from the largest e over its finite elements
 * and the count of its non-finite ones: rel_err = max_err = worst_ratio,
 * tolerance = max_tolerance = verify_rowwise_tolerance(type, cols, x_max);
 * passes iff nonfinite == 0 and worst_ratio <= tolerance (NaN fails). A type
 * without a rule fails (tolerance -1). */
void verify_rowwise_judge(double worst_ratio, long long nonfinite, const char *type, long long cols, double x_max,
                          verify_verdict *v);

#endif
