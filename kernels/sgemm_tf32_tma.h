/* kernels/sgemm_tf32_tma.h: the variant tf32_tma, TF32 SGEMM on Hopper
 * warpgroup MMA fed by the bulk tensor copy engine (TMA)
 * (kernels/sgemm_tf32_tma.cu, built for sm_90a only; its candidates for
 * compare-search: kernels/search/sgemm_search.h).
 *
 * Same contract as kernels/sgemm.h. */
#ifndef KERNELS_SGEMM_TF32_TMA_H
#define KERNELS_SGEMM_TF32_TMA_H

#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The chosen candidate, any m, n, k >= 1; operands it cannot read in place
 * (n or k not a multiple of 4, misaligned) are staged in padded copies
 * inside the call (a device buffer kept per device between calls; calls for
 * one device from one host thread at a time). Falls back to sgemm_tf32_mma
 * only without a TMA encoder in the driver or memory for that buffer. */
int sgemm_tf32_tma(const float *A, const float *B, float *C, int m, int n, int k,
                   cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif
