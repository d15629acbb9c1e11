/* src/gpu/gemv_ref.h: the FP64 reference of the gemv op (src/gpu/op_gemv.c)
 * and the per-element check of a result against it, on the GPU.
 *
 * The reference reads the SAME stored inputs the kernels read (fp32, fp16
 * or bf16, rounded once from cuRAND's FP32 at set-up), widens each to double
 * and computes, per row i, r_i = sum_j A_ij x_j and s_i = sum_j |A_ij x_j|
 * in double: r is the exact result to about 2^-53 relative to s, and s is
 * the scale the rounding errors of any FP32 dot product grow with (the
 * tolerance rule, src/core/verify_gemv.h). Each launcher enqueues on
 * `stream` and returns the cudaError_t of its launches. */
#ifndef COMPARE_GEMV_REF_H
#define COMPARE_GEMV_REF_H

#include <cuda_runtime_api.h>

#include "elem_type.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ref[i] = r_i, abs_dot[i] = s_i for i < m (A m x k row-major, x k; type t). */
int gemv_ref_f64(elem_type t, const void *A, const void *x, long long m, long long k, double *ref, double *abs_dot,
                 cudaStream_t stream);
/* *out += sum v_i^2 in double over n elements of type t (out zeroed first). */
int gemv_ref_sum_sq(elem_type t, const void *v, long long n, double *out, cudaStream_t stream);

/* What gemv_ref_check accumulates (zero it first). */
typedef struct {
    double sum_sq_err;            /* sum (y_i - r_i)^2 over finite y_i */
    double sum_sq_ref;            /* sum r_i^2 */
    unsigned long long nonfinite; /* y_i NaN or Inf */
    unsigned long long bad;       /* elements outside their bound (NaN/Inf included) */
    unsigned long long first_bad; /* the smallest such index (init ~0ULL) */
    unsigned long long max_abs;   /* max |y_i - r_i| over finite y_i, the bits of a non-negative double */
    unsigned long long worst;     /* max |y_i - r_i| / bound_i over finite y_i, as bits (init 0) */
} gemv_check_sums;

/* Checks y (m elements of type t) element by element against
 *   |y_i - r_i| <= c_acc * s_i + c_out * (|r_i| + out_floor)
 * (coefficients from verify_gemv_bound, src/core/verify_gemv.h) into *sums. */
int gemv_ref_check(elem_type t, const void *y, const double *ref, const double *abs_dot, long long m, double c_acc,
                   double c_out, double out_floor, gemv_check_sums *sums, cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif
