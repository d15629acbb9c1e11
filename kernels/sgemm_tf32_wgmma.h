/* kernels/sgemm_tf32_wgmma.h: the variant tf32_wgmma, TF32 SGEMM on Hopper
 * warpgroup MMA (kernels/sgemm_tf32_wgmma.cu, built for sm_90a only; its
 * candidates for compare-search: kernels/search/sgemm_search.h).
 *
 * Same contract as kernels/sgemm.h (row-major A m x k, B k x n, C m x n,
 * C = A * B, TF32 products with FP32 accumulation, the stream given). */
#ifndef KERNELS_SGEMM_TF32_WGMMA_H
#define KERNELS_SGEMM_TF32_WGMMA_H

#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The chosen candidate by output size; shapes it does not take (n or k not a
 * multiple of 4) fall back to sgemm_tf32_mma: any m, n, k >= 1. */
int sgemm_tf32_wgmma(const float *A, const float *B, float *C, int m, int n, int k,
                     cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif
