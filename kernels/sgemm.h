/* kernels/sgemm.h: hand-written SGEMM launchers.
 *
 * Every launcher computes C = A * B in FP32 (or TF32 where its name says so),
 * all matrices row-major and densely packed: A is m x k, B is k x n, C is m x n.
 * Any m, n, k >= 1 is accepted (edges are predicated, nothing is padded).
 * The launch goes on `stream`; the return value is the cudaError_t of the
 * launch (cudaGetLastError right after it), 0 on success. */
#ifndef KERNELS_SGEMM_H
#define KERNELS_SGEMM_H

#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef int (*sgemm_launcher)(const float *A, const float *B, float *C,
                              int m, int n, int k, cudaStream_t stream);

int sgemm_naive(const float *A, const float *B, float *C, int m, int n, int k, cudaStream_t stream);
int sgemm_tiled16(const float *A, const float *B, float *C, int m, int n, int k, cudaStream_t stream);
int sgemm_tiled32(const float *A, const float *B, float *C, int m, int n, int k, cudaStream_t stream);
/* FP32 ladder, register-blocked (kernels/sgemm_regblock.cu .. sgemm_pipelined.cu) and the
 * configuration picked from the shape search (kernels/sgemm_search.cu, sgemm_search.h) */
int sgemm_regblock(const float *A, const float *B, float *C, int m, int n, int k, cudaStream_t stream);
int sgemm_vec4(const float *A, const float *B, float *C, int m, int n, int k, cudaStream_t stream);
int sgemm_warptile(const float *A, const float *B, float *C, int m, int n, int k, cudaStream_t stream);
int sgemm_pipelined(const float *A, const float *B, float *C, int m, int n, int k, cudaStream_t stream);
int sgemm_tuned(const float *A, const float *B, float *C, int m, int n, int k, cudaStream_t stream);
/* TF32 tensor cores (mma.sync m16n8k8, operands rounded with cvt.rna): kernels/sgemm_tf32.cu */
int sgemm_tf32_mma(const float *A, const float *B, float *C, int m, int n, int k, cudaStream_t stream);
/* The TF32 shape candidates behind sgemm_tf32_mma (kernels/sgemm_tf32.cu), for
 * compare-search: count, name of candidate i (static string, NULL out of
 * range), and run candidate i (cudaErrorInvalidValue if i is out of range or a
 * size < 1). */
int sgemm_tf32_search_count(void);
const char *sgemm_tf32_search_name(int i);
int sgemm_tf32_search_run(int i, const float *A, const float *B, float *C, int m, int n, int k,
                          cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif
