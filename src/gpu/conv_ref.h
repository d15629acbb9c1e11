/* src/gpu/conv_ref.h: the FP64 reference of the conv2d op
 * (src/gpu/op_conv2d.c) and the per-element check of a result against it,
 * on the GPU, in one pass.
 *
 * For every output element the check recomputes, in double from the SAME
 * stored (rounded) inputs the kernels read, r = the exact sum of its
 * c_in x r x r products (zero padding outside the image) and s = the sum of
 * their magnitudes, the scale every FP32 rounding error of the sum grows
 * with, then compares y against r under src/core/verify_conv.h's rule:
 *     e = |y - r| / (s + out_floor) <= tol
 * Recomputing per check (rather than storing r and s, 16 bytes an output)
 * keeps the case's memory at its inputs and output; it costs c_in r r
 * double FMAs an output per checked variant, untimed. Each launcher
 * enqueues on `stream` and returns the cudaError_t of its launches. */
#ifndef COMPARE_CONV_REF_H
#define COMPARE_CONV_REF_H

#include <cuda_runtime_api.h>

#include "conv2d.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What conv_ref_check accumulates (zero it first; first_bad ~0ULL). */
typedef struct {
    double sum_sq_err;            /* sum (y - r)^2 over finite y */
    double sum_sq_ref;            /* sum r^2 */
    unsigned long long nonfinite; /* y NaN or Inf */
    unsigned long long bad;       /* elements with e > tol (NaN/Inf included) */
    unsigned long long first_bad; /* the smallest such flat index of y */
    unsigned long long worst;     /* max e over finite y, the bits of a non-negative double */
} conv_check_sums;

/* Checks a->y (a->batch x c_out x height x width of a->type) against the
 * reference of a->x, a->w into *sums. */
int conv_ref_check(const conv2d_args *a, double tol, double out_floor, conv_check_sums *sums, cudaStream_t stream);

/* out[0] = y, out[1] = r, out[2] = s at flat output index `at` (one thread:
 * for a FAIL message). */
int conv_ref_at(const conv2d_args *a, long long at, double *out, cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif
