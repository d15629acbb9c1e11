/* kernels/scan.h: hand-written inclusive prefix sums, float and int32.
 *
 * Each launcher writes out[i] = in[0] + ... + in[i] for 0 <= i < n (n >= 1)
 * on `stream`. in == out (in place) is allowed; otherwise the two must not
 * overlap. Pointers need only their type's alignment.
 *   - int32: two's-complement wrap-around (the sums are done in uint32), so
 *     the result equals the exact sum modulo 2^32, whatever the order.
 *   - float: float additions in an order of the variant's own; not bitwise
 *     reproducible for scan_decoupled (how far a tile's look-back goes depends
 *     on timing, as for cub). Error bound: see src/core/verify.h
 *     (verify_scan_tolerance).
 * `scratch` is device memory of at least scan_scratch_bytes(n) bytes, allocated
 * by the caller outside any timed region, with no required contents: each
 * launcher resets on the stream what it needs (scan_decoupled: its tile
 * counter, one cudaMemsetAsync of 4 bytes). One scratch must not serve two
 * scans running at the same time.
 * Returns the cudaError_t of the launches, 0 on success
 * (cudaErrorInvalidValue, without launching, for n < 1, n beyond the largest
 * grid, NULL pointers, misaligned pointers or too small a scratch). */
#ifndef KERNELS_SCAN_H
#define KERNELS_SCAN_H

#include <stddef.h>
#include <stdint.h>
#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef int (*scan_f32_launcher)(const float *in, float *out, long long n, void *scratch, size_t scratch_bytes,
                                 cudaStream_t stream);
typedef int (*scan_i32_launcher)(const int32_t *in, int32_t *out, long long n, void *scratch,
                                 size_t scratch_bytes, cudaStream_t stream);

/* Scratch every scan launcher here needs for n elements (float or int32). */
size_t scan_scratch_bytes(long long n);

int scan_hillis_steele_f32(const float *in, float *out, long long n, void *scratch, size_t scratch_bytes,
                           cudaStream_t stream);
int scan_blelloch_f32(const float *in, float *out, long long n, void *scratch, size_t scratch_bytes,
                      cudaStream_t stream);
int scan_decoupled_f32(const float *in, float *out, long long n, void *scratch, size_t scratch_bytes,
                       cudaStream_t stream);

int scan_hillis_steele_i32(const int32_t *in, int32_t *out, long long n, void *scratch, size_t scratch_bytes,
                           cudaStream_t stream);
int scan_blelloch_i32(const int32_t *in, int32_t *out, long long n, void *scratch, size_t scratch_bytes,
                      cudaStream_t stream);
int scan_decoupled_i32(const int32_t *in, int32_t *out, long long n, void *scratch, size_t scratch_bytes,
                       cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif
