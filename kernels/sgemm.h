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
/* FP32 ladder, register-blocked (kernels/sgemm_regblock.cu .. sgemm_pipelined.cu), and
 * `tuned` (kernels/sgemm_tuned.cu): the shapes picked by name from compare-search's
 * candidates (kernels/sgemm_tuned.cuh; the search itself: kernels/search/) */
int sgemm_regblock(const float *A, const float *B, float *C, int m, int n, int k, cudaStream_t stream);
int sgemm_vec4(const float *A, const float *B, float *C, int m, int n, int k, cudaStream_t stream);
int sgemm_warptile(const float *A, const float *B, float *C, int m, int n, int k, cudaStream_t stream);
int sgemm_pipelined(const float *A, const float *B, float *C, int m, int n, int k, cudaStream_t stream);
int sgemm_tuned(const float *A, const float *B, float *C, int m, int n, int k, cudaStream_t stream);
/* TEST ONLY: on != 0 makes sgemm_tuned take its cooperative-launch fallback
 * (the one-block-per-tile kernel of the same shape) as if the stream-K launch
 * had been refused, so the fallback can be checked on a GPU that accepts it;
 * 0 (the default) restores the normal path. Not thread-safe; never called by
 * compare itself. */
void sgemm_tuned_force_fallback(int on);
/* The kernel name sgemm_tuned notes (kernel_ran_note) at m x n x k on the
 * current device, without launching anything: its pick (a thin-n / thin-m
 * kernel, kernels/sgemm_tuned_thin.cuh, or a tile candidate); a refused
 * cooperative launch's fallback is not predicted. NULL for m, n or k < 1 or
 * a failed device query. A static string. */
const char *sgemm_tuned_pick_name(int m, int n, int k);
/* The bytes of sgemm_tuned's own device buffer at m x n x k, for
 * compare's up-front memory check: the padded copy of B that its picks of
 * rule 3 (kernels/sgemm_tuned.cu) take at n % 4 != 0 and m >=
 * SGEMM_TUNED_PAD_B_MIN_M, counted at
 * every such shape whatever the pick (an upper bound); 0 elsewhere. */
size_t sgemm_tuned_own_bytes(int m, int n, int k);
/* TEST ONLY: the thin paths' compile-time switches as built
 * (SGEMM_TUNED_THIN_N_MAX, SGEMM_TUNED_THIN_M_MAX; 0: that path is off). */
void sgemm_tuned_thin_max(int *n_max, int *m_max);
/* TEST ONLY: thin-mw's switch as built (SGEMM_TUNED_THIN_MW_MAX; 0: off). */
int sgemm_tuned_thin_mw_max(void);
/* TEST ONLY: the thin-mw kernel (kernels/sgemm_tuned_thin.cuh) at any
 * m <= 64, whatever the rule picks (its note as in sgemm_tuned); the
 * switch does not apply. cudaErrorInvalidValue for m outside 1 .. 64, n or
 * k < 1. */
int sgemm_tuned_thin_mw_run(const float *A, const float *B, float *C, int m, int n, int k, cudaStream_t stream);
/* TF32 tensor cores (mma.sync m16n8k8, truncated operands): kernels/sgemm_tf32.cu */
int sgemm_tf32_mma(const float *A, const float *B, float *C, int m, int n, int k, cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif
