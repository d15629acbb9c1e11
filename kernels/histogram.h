/* kernels/histogram.h: hand-written histograms, two forms.
 *
 * u8:  256 bins over bytes (an 8-bit image): bins[v] = count of x[i] == v.
 * f32: HISTOGRAM_F32_BINS (1024) equal-width bins over floats in [lo, hi):
 *      x is counted iff lo <= x < hi (NaN never is), in bin
 *          b = (int)((x - lo) * r),  r = (float)HISTOGRAM_F32_BINS / (hi - lo),
 *      every operation in float, round to nearest (the subtraction, the
 *      division computed once on the host, the product), the conversion
 *      truncating. That is cub::DeviceHistogram::HistogramEven's rule for
 *      float samples (levels lo .. hi, num_levels = bins + 1), so a value that
 *      rounds onto a bin edge lands where cub puts it. One difference: when
 *      rounding makes b == HISTOGRAM_F32_BINS (x a few ulps below hi, a range
 *      whose width is not a power of two), it is counted in the last bin;
 *      cub's formula gives an index one past its last bin there.
 *      lo and hi must be finite with lo < hi.
 *
 * Every launcher zeroes `bins` itself on `stream` (cudaMemsetAsync) before
 * counting, so the histogram is complete after one call; no scratch, no
 * state kept between calls. n >= 1; x needs no alignment (the vector loads
 * peel a scalar head and tail). Counts are unsigned 32-bit: exact up to
 * 2^32 - 1 per bin. Returns the cudaError_t of the memset and launches, 0 on
 * success (cudaErrorInvalidValue for n < 1, NULL pointers, a misaligned
 * float pointer or bad lo/hi). */
#ifndef KERNELS_HISTOGRAM_H
#define KERNELS_HISTOGRAM_H

#include <stdint.h>
#include <cuda_runtime_api.h>

#define HISTOGRAM_U8_BINS 256
#define HISTOGRAM_F32_BINS 1024

#ifdef __cplusplus
extern "C" {
#endif

typedef int (*histogram_u8_launcher)(const uint8_t *x, long long n, unsigned int *bins, cudaStream_t stream);
typedef int (*histogram_f32_launcher)(const float *x, long long n, float lo, float hi, unsigned int *bins,
                                      cudaStream_t stream);

int histogram_global_atomic_u8(const uint8_t *x, long long n, unsigned int *bins, cudaStream_t stream);
int histogram_shared_private_u8(const uint8_t *x, long long n, unsigned int *bins, cudaStream_t stream);
int histogram_fast_u8(const uint8_t *x, long long n, unsigned int *bins, cudaStream_t stream);

int histogram_global_atomic_f32(const float *x, long long n, float lo, float hi, unsigned int *bins,
                                cudaStream_t stream);
int histogram_shared_private_f32(const float *x, long long n, float lo, float hi, unsigned int *bins,
                                 cudaStream_t stream);
int histogram_fast_f32(const float *x, long long n, float lo, float hi, unsigned int *bins, cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif
