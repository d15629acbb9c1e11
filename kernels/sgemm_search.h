/* kernels/sgemm_search.h: the SGEMM shape search (kernels/sgemm_search.cu).
 *
 * A fixed list of configurations of the cp.async pipelined SGEMM (block
 * tile, k-slab, warp tile, thread tile, stages), indexed 0 .. count-1, for
 * timing them all on the target GPU and picking one for sgemm_tuned
 * (declared in sgemm.h). Same contract as every launcher in sgemm.h: row-major
 * dense A (m x k), B (k x n), C (m x n), C = A*B, any m, n, k >= 1, launched
 * on `stream`, returns the cudaError_t of the launch (0 on success). */
#ifndef KERNELS_SGEMM_SEARCH_H
#define KERNELS_SGEMM_SEARCH_H

#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Number of configurations. */
int sgemm_search_count(void);

/* Name of configuration i, "BMxBNxBK_wWMxWN_tTMxTN_sSTAGES" (e.g.
 * "128x128x16_w64x32_t8x8_s3"), a static string; NULL if i is out of range. */
const char *sgemm_search_name(int i);

/* Runs configuration i; cudaErrorInvalidValue if i is out of range or a size < 1. */
int sgemm_search_run(int i, const float *A, const float *B, float *C, int m, int n, int k,
                     cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif
