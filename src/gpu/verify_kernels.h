/* src/gpu/verify_kernels.h: small GPU helpers of the harness and the FP64
 * reference: input transforms, precision conversion, and the reductions
 * that verification needs (error sums, double sums, element compares). All
 * enqueue on `stream` and return the cudaError_t of the launch. */
#ifndef BASELINES_GPU_CHECK_H
#define BASELINES_GPU_CHECK_H

#include <stddef.h>
#include <stdint.h>
#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/* x = a * x + b, elementwise (maps cuRAND's (0,1] to (-1,1] with a=2, b=-1) */
int gpucheck_affine(float *x, size_t n, float a, float b, cudaStream_t stream);
/* out = (double)in */
int gpucheck_to_f64(const float *in, double *out, size_t n, cudaStream_t stream);

/* Inputs of the histogram and scan ops, shaped from cuRAND's 32-bit words,
 * one word an element (so a case's inputs still depend only on the seed and
 * its size); every value is exact in its type. Histogram bins are those of
 * kernels/histogram.h: u8 256 over the byte, f32 1024 of width 2^-9 over
 * [-1, 1).
 *   uniform  u8: the word's top byte. f32: -1 + k 2^-23, k the word's top 24
 *            bits: every value in [-1, 1 - 2^-23], so (x + 1) and
 *            (x + 1) * 512 are exact and the bin (int)((x + 1) * 512) is at
 *            most 1023: no value rounds onto the upper edge (where cub and
 *            the hand kernels differ, see histogram.h), and 1 value in 2^14
 *            lies exactly on a bin's lower edge.
 *   skewed   with q = w / 10: if w % 10 < 9 (90% of the elements) one of 4
 *            hot bins, q % 4 picks it (u8: bytes 0, 7, 128, 255; f32: bins 0,
 *            100, 512, 1023, k = bin 2^14 + (q / 4) % 2^14, a position inside
 *            the bin), else a near-uniform value from q's low bits (u8:
 *            q % 256; f32: k = q % 2^24). Same-bin updates are what serialise
 *            a histogram's atomics: this input shows it.
 * x[i] = the byte made from bits[i], 0 <= i < n (x and bits distinct): */
int gpucheck_hist_inputs_u8(const uint32_t *bits, uint8_t *x, size_t n, int skewed, cudaStream_t stream);
/* in place: x holds n cuRAND words on entry, n floats on return */
int gpucheck_hist_inputs_f32(float *x, size_t n, int skewed, cudaStream_t stream);
/* In place: x holds n cuRAND words on entry, (w % 17) - 8 on return:
 * integers in -8..8, whose prefix sums stay within +-8n, far from int32
 * overflow (undefined for cub and thrust), so a scan's reference is exact. */
int gpucheck_small_i32(int32_t *x, size_t n, cudaStream_t stream);
/* sums[0..5) += {sum (c-ref)^2, sum ref^2, max |c-ref|, #nonfinite c, 0};
 * sums must be zeroed first. */
int gpucheck_gemm_sums(const float *c, const double *ref, size_t n, double *sums, cudaStream_t stream);
/* sums[0..2) += {sum x (in double), sum x^2}; sums zeroed first. */
int gpucheck_sum_f64(const float *x, size_t n, double *sums, cudaStream_t stream);
/* result[0] += #positions where a != b (floats: by value, so -0 == +0; bit
 * patterns of NaNs must match), result[1] = min such index (init ~0ULL). */
int gpucheck_compare_keys(const void *a, const void *b, size_t n, int is_float,
                          unsigned long long *result, cudaStream_t stream);
/* result[0] += #i with key[i+1] < key[i] (float keys by IEEE order). */
int gpucheck_count_unsorted(const void *keys, size_t n, int is_float, unsigned long long *result,
                            cudaStream_t stream);
/* An independent check of a transpose: result[0] += #positions k of out
 * (n x m, row-major) where out[k] != in[i * n + j] bit for bit, with
 * k = j * m + i (in: m x n, row-major); result[1] = min such k (init ~0ULL). */
int gpucheck_transpose_mismatch(const float *in, const float *out, size_t m, size_t n,
                                unsigned long long *result, cudaStream_t stream);
/* A float scan against its double reference: per element
 * q = |y - ref| / abs_sum (0 when both are 0, +inf when abs_sum is 0 and
 * y != ref: the rule of verify_scan_ratio, src/core/verify.h).
 * result[0] += #elements with !(q <= tol) (NaN/Inf y included),
 * result[1] = min such index (init ~0ULL), result[2] = max q over finite y as
 * the bits of a non-negative double (init 0), result[3] += #non-finite y. */
int gpucheck_scan_f32_errors(const float *y, const double *ref, const float *abs_sum, size_t n, double tol,
                             unsigned long long *result, cudaStream_t stream);
/* Test-only: writes out of bounds of a 1-element buffer at an unmapped
 * address, to prove that a faulting variant is reported as ERROR. */
int gpucheck_fault(float *p, cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif
