/* kernels/sort.h: hand-written sort (LSD radix sort, 32-bit keys).
 *
 * Sorts n keys (n >= 1) from `in` into `out` ascending, on `stream`; `in` is
 * left unchanged. `scratch` is device memory of at least
 * sort_radix_scratch_bytes(n) bytes allocated by the caller outside any timed
 * region. Float keys are ordered by the IEEE order-preserving bit flip (see
 * sort_float_to_key): -0.0 sorts before +0.0, NaNs with the sign bit clear sort
 * after +inf, NaNs with the sign bit set before -inf.
 * Returns the cudaError_t of the launches, 0 on success. */
#ifndef KERNELS_SORT_H
#define KERNELS_SORT_H

#include <stddef.h>
#include <stdint.h>
#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

size_t sort_radix_scratch_bytes(long long n);

int sort_radix_u32(const uint32_t *in, uint32_t *out, long long n,
                   void *scratch, size_t scratch_bytes, cudaStream_t stream);
int sort_radix_f32(const float *in, float *out, long long n,
                   void *scratch, size_t scratch_bytes, cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif
