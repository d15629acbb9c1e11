/* kernels/reduce.h: hand-written float-sum reductions.
 *
 * Each launcher sums x[0..n) (n >= 1) into *out, a single float in device
 * memory, on `stream`. `scratch` is device memory of at least
 * reduce_scratch_bytes(n) bytes, allocated by the caller outside any timed
 * region and zeroed once after allocation (cudaMemset); launchers may keep
 * state there between calls (per-block partials; reduce_vec4's last-block
 * ticket, a word that must be zero at entry and that a completed call leaves
 * zero) and leave it valid for the next call. No launcher reads
 * *out before writing it unless it first zeroes it itself on the stream.
 * Returns the cudaError_t of the launches, 0 on success. */
#ifndef KERNELS_REDUCE_H
#define KERNELS_REDUCE_H

#include <stddef.h>
#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef int (*reduce_launcher)(const float *x, long long n, float *out,
                               void *scratch, size_t scratch_bytes, cudaStream_t stream);

size_t reduce_scratch_bytes(long long n);

int reduce_interleaved(const float *x, long long n, float *out, void *scratch, size_t scratch_bytes, cudaStream_t stream);
int reduce_sequential(const float *x, long long n, float *out, void *scratch, size_t scratch_bytes, cudaStream_t stream);
int reduce_shuffle(const float *x, long long n, float *out, void *scratch, size_t scratch_bytes, cudaStream_t stream);
int reduce_vec4(const float *x, long long n, float *out, void *scratch, size_t scratch_bytes, cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif
