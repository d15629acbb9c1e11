/* kernels/transpose.h: hand-written matrix transposes.
 *
 * Every launcher writes out (n x m) = transpose of in (m x n): float,
 * row-major, densely packed, out[j * m + i] = in[i * n + j]. Any m, n >= 1.
 * in and out must not overlap (not in place). Pointers need only be 4-byte
 * aligned; transpose_fast takes its 16-byte vector path when m and n are
 * multiples of 4 and both pointers are 16-byte aligned, a scalar path
 * otherwise (kernel_ran_note names the one it ran).
 * The launch goes on `stream`; the return value is the cudaError_t of the
 * launch, 0 on success (cudaErrorInvalidValue, without launching, for a size
 * < 1, a NULL pointer or in == out). */
#ifndef KERNELS_TRANSPOSE_H
#define KERNELS_TRANSPOSE_H

#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef int (*transpose_launcher)(const float *in, float *out, int m, int n, cudaStream_t stream);

int transpose_naive(const float *in, float *out, int m, int n, cudaStream_t stream);
int transpose_tiled(const float *in, float *out, int m, int n, cudaStream_t stream);
int transpose_tiled_padded(const float *in, float *out, int m, int n, cudaStream_t stream);
int transpose_fast(const float *in, float *out, int m, int n, cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif
