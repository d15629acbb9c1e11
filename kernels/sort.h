/* kernels/sort.h: hand-written sorts of 32-bit keys (LSD radix sorts).
 *
 *   radix:    three kernels a pass (upsweep, scan, downsweep), sort_radix.cu;
 *   onesweep: one kernel a pass with decoupled look-back, sort_onesweep.cu.
 *
 * Both have the same contract. Sorts n keys (1 <= n <= 2^31 - 1) from `in`
 * into `out` ascending and stably, on `stream`; `in` is left unchanged and
 * in == out works. `scratch` is device memory of at least
 * sort_<name>_scratch_bytes(n) bytes (0 for an n out of range) allocated by
 * the caller outside any timed region; the launcher resets on the stream
 * whatever state it keeps there. Float keys are ordered by the IEEE
 * order-preserving bit flip (see sort_common.cuh): -0.0 sorts before +0.0,
 * NaNs with the sign bit clear sort after +inf, NaNs with the sign bit set
 * before -inf. Returns the cudaError_t of its calls, 0 on success;
 * cudaErrorInvalidValue, without launching, for a bad argument. */
#ifndef KERNELS_SORT_H
#define KERNELS_SORT_H

#include <stddef.h>
#include <stdint.h>
#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/* the contract as types: the op's table (src/gpu/op_sort.c) and the tests
 * call every hand sort through these */
typedef size_t (*sort_scratch_query)(long long n);
typedef int (*sort_u32_launcher)(const uint32_t *in, uint32_t *out, long long n, void *scratch,
                                 size_t scratch_bytes, cudaStream_t stream);
typedef int (*sort_f32_launcher)(const float *in, float *out, long long n, void *scratch, size_t scratch_bytes,
                                 cudaStream_t stream);

size_t sort_radix_scratch_bytes(long long n);

int sort_radix_u32(const uint32_t *in, uint32_t *out, long long n,
                   void *scratch, size_t scratch_bytes, cudaStream_t stream);
int sort_radix_f32(const float *in, float *out, long long n,
                   void *scratch, size_t scratch_bytes, cudaStream_t stream);

size_t sort_onesweep_scratch_bytes(long long n);

int sort_onesweep_u32(const uint32_t *in, uint32_t *out, long long n,
                      void *scratch, size_t scratch_bytes, cudaStream_t stream);
int sort_onesweep_f32(const float *in, float *out, long long n,
                      void *scratch, size_t scratch_bytes, cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif
