/* src/gpu/rowwise_ref.h: the FP64 reference of the row-wise ops (softmax,
 * rmsnorm, layernorm: kernels/rowwise.h's formulas) and the element-by-element
 * check of an output against it, on the GPU.
 *
 * The reference reads the same stored inputs the kernels read (x in its
 * element type, weight and bias in FP32, eps as the float the kernels get)
 * and computes each row in double: softmax with its max subtracted, the
 * norms' mean square, mean and variance (two passes). It also records each
 * row's scale (the largest |ref| of the row, the unit of
 * src/core/verify_rowwise.h's error) and the largest |x| of the input. A
 * block per row; nothing here is timed. Each launcher enqueues on `stream`
 * and returns the launch's cudaError_t (cudaErrorInvalidValue for an op or
 * type it does not know). */
#ifndef COMPARE_ROWWISE_REF_H
#define COMPARE_ROWWISE_REF_H

#include <cuda_runtime_api.h>

#include "elem_type.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum { ROWWISE_SOFTMAX = 0, ROWWISE_RMSNORM = 1, ROWWISE_LAYERNORM = 2 } rowwise_op;

/* ref[r * cols + c] (rows x cols doubles) and scale[r] (rows doubles) of op
 * over x (rows x cols of type); weight, bias: cols floats (NULL where the op
 * has none). *x_max_bits (init 0) becomes max(*x_max_bits, max |x|), the bits
 * of a non-negative double. */
int rowwise_ref(rowwise_op op, elem_type type, const void *x, const float *weight, const float *bias, float eps,
                long long rows, long long cols, double *ref, double *scale, unsigned long long *x_max_bits,
                cudaStream_t stream);

/* The check of y (rows x cols of type) against ref and scale: per element
 * q = |y - ref| / scale[row] (src/core/verify_rowwise.h: verify_rowwise_ratio);
 * scale[row] is the row's largest |ref|, at least the type's smallest normal
 * number (a row of fp16 subnormal outputs is judged against the fixed
 * spacing there, not against its own tiny values).
 * result[0] += #elements with !(q <= tol) (NaN/Inf y included),
 * result[1] = min such index (init ~0ULL), result[2] = max q over finite y
 * as the bits of a non-negative double (init 0), result[3] += #non-finite y. */
int rowwise_errors(elem_type type, const void *y, const double *ref, const double *scale, long long rows,
                   long long cols, double tol, unsigned long long *result, cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif
