/* src/gpu/verify_kernels.h: small GPU helpers of the harness and the FP64
 * reference: input transforms, precision conversion, and the reductions
 * that verification needs (error sums, double sums, element compares). All
 * enqueue on `stream` and return the cudaError_t of the launch. */
#ifndef BASELINES_GPU_CHECK_H
#define BASELINES_GPU_CHECK_H

#include <stddef.h>
#include <stdint.h>
#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/* x = a * x + b, elementwise (maps cuRAND's (0,1] to (-1,1] with a=2, b=-1) */
int gpucheck_affine(float *x, size_t n, float a, float b, cudaStream_t stream);
/* out = (double)in */
int gpucheck_to_f64(const float *in, double *out, size_t n, cudaStream_t stream);
/* sums[0..5) += {sum (c-ref)^2, sum ref^2, max |c-ref|, #nonfinite c, 0};
 * sums must be zeroed first. */
int gpucheck_gemm_sums(const float *c, const double *ref, size_t n, double *sums, cudaStream_t stream);
/* sums[0..2) += {sum x (in double), sum x^2}; sums zeroed first. */
int gpucheck_sum_f64(const float *x, size_t n, double *sums, cudaStream_t stream);
/* result[0] += #positions where a != b (floats: by value, so -0 == +0; bit
 * patterns of NaNs must match), result[1] = min such index (init ~0ULL). */
int gpucheck_compare_keys(const void *a, const void *b, size_t n, int is_float,
                          unsigned long long *result, cudaStream_t stream);
/* result[0] += #i with key[i+1] < key[i] (float keys by IEEE order). */
int gpucheck_count_unsorted(const void *keys, size_t n, int is_float, unsigned long long *result,
                            cudaStream_t stream);
/* Test-only: writes out of bounds of a 1-element buffer at an unmapped
 * address, to prove that a faulting variant is reported as ERROR. */
int gpucheck_fault(float *p, cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif
