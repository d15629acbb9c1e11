/* kernels/sgemm_tf32_tma.h: the variant tf32_tma, TF32 SGEMM on Hopper
 * warpgroup MMA fed by the bulk tensor copy engine (TMA)
 * (kernels/sgemm_tf32_tma.cu, built for sm_90a only; its candidates for
 * compare-search: kernels/search/sgemm_search.h).
 *
 * Same contract as kernels/sgemm.h. */
#ifndef KERNELS_SGEMM_TF32_TMA_H
#define KERNELS_SGEMM_TF32_TMA_H

#include <stddef.h>

#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The chosen candidate, any m, n, k >= 1; operands it cannot read in place
 * (n or k not a multiple of 4, misaligned) are staged in padded copies
 * inside the call (a device buffer kept per device between calls; calls for
 * one device from one host thread at a time). A thin m (m <= 64) with n or
 * k not a multiple of 4 runs, on the operands in place, the thin-mw
 * mma.sync kernel (kernels/sgemm_tf32_thin.cuh) at m <= SGEMM_TMA_THIN_MW_MAX
 * (compile-time switch, default 64; 0: never), noted as tf32_tma_thin_mw*
 * with the reason, and past that sgemm_tf32_mma (compile-time switch
 * SGEMM_TMA_THIN_STAGED_MMA, default 1; 0: staged like any other shape),
 * noted with the reason. Falls back to sgemm_tf32_mma otherwise only
 * without a TMA encoder in the driver or memory for that buffer. */
int sgemm_tf32_tma(const float *A, const float *B, float *C, int m, int n, int k,
                   cudaStream_t stream);

/* Whether sgemm_tf32_tma runs sgemm_tf32_mma at m x n x k under
 * SGEMM_TMA_THIN_STAGED_MMA and SGEMM_TMA_THIN_MW_MAX as built (1 or 0; 0
 * for m, n or k < 1). */
int sgemm_tf32_tma_routes_mma(int m, int n, int k);

/* Whether sgemm_tf32_tma runs its thin-mw kernel (tf32_tma_thin_mw*) at
 * m x n x k under SGEMM_TMA_THIN_MW_MAX as built (1 or 0; 0 for m, n or
 * k < 1). */
int sgemm_tf32_tma_routes_thin(int m, int n, int k);

/* The candidate tf32_tma_lean_staging (a row of compare --candidates
 * tf32_tma): sgemm_tf32_tma's picks, staging only the operands whose own
 * rows are not 16-byte aligned: at k % 4 != 0 A alone (read through a map of
 * k columns whose rows are k4 floats apart; B in place, its rows past k read
 * as zeros by TMA), at n % 4 != 0 B and C. Notes its own name as the kernel
 * (SGEMM_TF32_TMA_LEAN_NAME), with what it staged as the reason. Same
 * contract, fallback and buffer as sgemm_tf32_tma. */
#define SGEMM_TF32_TMA_LEAN_NAME "tf32_tma_lean_staging"
int sgemm_tf32_tma_lean(const float *A, const float *B, float *C, int m, int n, int k,
                        cudaStream_t stream);

/* Device bytes the call keeps for itself for this shape (cudaMalloc'd,
 * hence aligned, operands): the staging buffer when n or k % 4 != 0, plus a
 * stream-K LARGE pick's workspace; 0 for none. An upper bound of what it
 * allocates, for a caller's memory check (compare's up-front one). */
size_t sgemm_tf32_tma_own_bytes(int m, int n, int k);

#ifdef __cplusplus
}
#endif

#endif
