/* shim/shim.h: Thrust and CUB behind a C interface.
 *
 * Every function runs on `stream`, catches every C++ exception, and returns 0
 * on success or a non-zero code with a message in msg[0..msg_len) otherwise.
 * Thrust is called as a user calls it (its own temporary storage, reduce's
 * result returned to the host). CUB's temporary storage is sized by the
 * *_temp_bytes query and allocated by the caller outside the timed region. */
#ifndef SHIM_SHIM_H
#define SHIM_SHIM_H

#include <stddef.h>
#include <stdint.h>
#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/* thrust::reduce(thrust::cuda::par.on(stream), x, x + n, 0.0f): result on the host */
int shim_thrust_reduce_f32(const float *x, long long n, float *result_host,
                           cudaStream_t stream, char *msg, size_t msg_len);
/* thrust::sort in place on keys[0..n) */
int shim_thrust_sort_u32(uint32_t *keys, long long n, cudaStream_t stream, char *msg, size_t msg_len);
int shim_thrust_sort_f32(float *keys, long long n, cudaStream_t stream, char *msg, size_t msg_len);

/* cub::DeviceReduce::Sum into *out_dev (device memory) */
int shim_cub_reduce_temp_bytes(long long n, size_t *bytes, char *msg, size_t msg_len);
int shim_cub_reduce_f32(const float *x, long long n, float *out_dev, void *temp, size_t temp_bytes,
                        cudaStream_t stream, char *msg, size_t msg_len);

/* cub::DeviceRadixSort::SortKeys from in to out (in is left unchanged);
 * offset_bits 32: num_items as int (32-bit offsets; long long beyond
 * INT_MAX), 64: as long long (64-bit offsets, the instantiation
 * thrust::sort runs). The temp size serves both key types and widths. */
int shim_cub_sort_temp_bytes(long long n, size_t *bytes, char *msg, size_t msg_len);
int shim_cub_sort_u32(const uint32_t *in, uint32_t *out, long long n, void *temp, size_t temp_bytes,
                      int offset_bits, cudaStream_t stream, char *msg, size_t msg_len);
int shim_cub_sort_f32(const float *in, float *out, long long n, void *temp, size_t temp_bytes,
                      int offset_bits, cudaStream_t stream, char *msg, size_t msg_len);

/* cub::DeviceHistogram::HistogramEven into bins (device memory; cub zeroes it).
 * u8: 256 bins over bytes, levels 0..256 (bin = the byte). f32: num_bins
 * equal bins over [lo, hi), levels lo..hi (num_bins + 1 levels); a float x is
 * counted iff lo <= x < hi, in bin (int)((x - lo) * (num_bins / (hi - lo))),
 * all in float. A value just below hi whose product rounds up to num_bins
 * falls outside cub's bins (kernels/histogram.h clamps it to the last one):
 * callers comparing the two keep such values out. The temp size depends on
 * the bin count: query per form. */
int shim_cub_histogram_u8_temp_bytes(long long n, size_t *bytes, char *msg, size_t msg_len);
int shim_cub_histogram_u8(const uint8_t *x, long long n, unsigned int *bins, void *temp, size_t temp_bytes,
                          cudaStream_t stream, char *msg, size_t msg_len);
int shim_cub_histogram_f32_temp_bytes(long long n, int num_bins, size_t *bytes, char *msg, size_t msg_len);
int shim_cub_histogram_f32(const float *x, long long n, float lo, float hi, int num_bins, unsigned int *bins,
                           void *temp, size_t temp_bytes, cudaStream_t stream, char *msg, size_t msg_len);

/* cub::DeviceScan::InclusiveSum from in to out (in == out allowed); one temp
 * size serves both element types */
int shim_cub_scan_temp_bytes(long long n, size_t *bytes, char *msg, size_t msg_len);
int shim_cub_scan_f32(const float *in, float *out, long long n, void *temp, size_t temp_bytes, cudaStream_t stream,
                      char *msg, size_t msg_len);
int shim_cub_scan_i32(const int32_t *in, int32_t *out, long long n, void *temp, size_t temp_bytes,
                      cudaStream_t stream, char *msg, size_t msg_len);
/* thrust::inclusive_scan(thrust::cuda::par.on(stream), in, in + n, out) */
int shim_thrust_scan_f32(const float *in, float *out, long long n, cudaStream_t stream, char *msg, size_t msg_len);
int shim_thrust_scan_i32(const int32_t *in, int32_t *out, long long n, cudaStream_t stream, char *msg,
                         size_t msg_len);

/* Test hook: asks thrust for an impossible allocation (bytes) and must return
 * an error with a message, never throw or abort. */
int shim_thrust_alloc_probe(size_t bytes, cudaStream_t stream, char *msg, size_t msg_len);

/* Softmax (op 0), RMSNorm (1) and LayerNorm (2) over rows x cols of element
 * type `type` (0 fp32, 1 fp16, 2 bf16: kernels/common/elem_type.h's values),
 * with kernels/rowwise.h's formulas, as a composition of cub::BlockReduce (a
 * block per row; shim/rowwise_cub.cu). The reductions cover the first
 * reduce_cols elements (== cols; fewer only for the tests' planted defect:
 * a dropped tail, the means still divided by cols).
 * No temporary storage. Launches on `stream`; 0, or a cudaError_t with msg. */
int shim_cub_rowwise(int op, int type, const void *x, void *y, const float *weight, const float *bias, float eps,
                     long long rows, long long cols, long long reduce_cols, cudaStream_t stream, char *msg,
                     size_t msg_len);

#ifdef __cplusplus
}
#endif

#endif
