/* kernels/sgemm_tf32_wgmma.h: TF32 SGEMM candidates on Hopper warpgroup MMA
 * (wgmma), kernels/sgemm_tf32_wgmma.cu, built for sm_90a only.
 *
 * Same contract as kernels/sgemm.h (row-major A m x k, B k x n, C m x n,
 * C = A * B, TF32 products with FP32 accumulation, the stream given), for
 * compare-search: count, name of candidate i (static string, NULL out of
 * range), and run candidate i. run returns 0 on success,
 * cudaErrorInvalidValue if i is out of range or a size < 1,
 * cudaErrorNotSupported unless n % 4 == 0, k % 4 == 0, A and B 16-byte
 * aligned and C 8-byte aligned (any m), else the launch's cudaGetLastError. */
#ifndef KERNELS_SGEMM_TF32_WGMMA_H
#define KERNELS_SGEMM_TF32_WGMMA_H

#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

int sgemm_tf32_wgmma_search_count(void);
const char *sgemm_tf32_wgmma_search_name(int i);
int sgemm_tf32_wgmma_search_run(int i, const float *A, const float *B, float *C, int m, int n,
                                int k, cudaStream_t stream);
/* The chosen candidate by output size; shapes it does not take (n or k not a
 * multiple of 4) fall back to sgemm_tf32_mma: any m, n, k >= 1. */
int sgemm_tf32_wgmma(const float *A, const float *B, float *C, int m, int n, int k,
                     cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif
