/* kernels/sgemm_tf32_tma.h: TF32 SGEMM on Hopper warpgroup MMA fed by the
 * bulk tensor copy engine (TMA), warp-specialised, kernels/sgemm_tf32_tma.cu,
 * built for sm_90a only.
 *
 * Same contract as kernels/sgemm_tf32_wgmma.h: count, name of candidate i
 * (static string, NULL out of range), run candidate i. run returns 0 on
 * success, cudaErrorInvalidValue if i is out of range or a size < 1,
 * cudaErrorNotSupported unless n % 4 == 0, k % 4 == 0, A and B 16-byte
 * aligned and C 8-byte aligned (any m), a driver error code if the tensor
 * maps cannot be made, else the launch's cudaGetLastError. */
#ifndef KERNELS_SGEMM_TF32_TMA_H
#define KERNELS_SGEMM_TF32_TMA_H

#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

int sgemm_tf32_tma_search_count(void);
const char *sgemm_tf32_tma_search_name(int i);
int sgemm_tf32_tma_search_run(int i, const float *A, const float *B, float *C, int m, int n,
                              int k, cudaStream_t stream);
/* The chosen candidate; shapes it does not take (n or k not a multiple of 4,
 * misaligned) fall back to sgemm_tf32_mma: any m, n, k >= 1. */
int sgemm_tf32_tma(const float *A, const float *B, float *C, int m, int n, int k,
                   cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif
