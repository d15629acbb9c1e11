/* shim/thrust_cub.cu: Thrust and CUB behind the C interface of shim.h.
 *
 * The only C++ in the project. Every exported function wraps its whole body in
 * try { ... } catch, so no exception ever reaches C, and reports failure as a
 * non-zero return plus a message in the caller's buffer (always
 * NUL-terminated, truncated to msg_len; cleared to "" on success).
 *
 * Return codes: 0 success; a cudaError_t value (> 0) when CUDA, CUB or a
 * thrust::system_error in the CUDA category said which one
 * (cudaErrorMemoryAllocation for thrust's bad_alloc, cudaErrorInvalidValue for
 * bad arguments); -1 for any other exception.
 *
 * Thrust is called as a user calls it: thrust::cuda::par.on(stream), its own
 * temporary allocation on every call, reduce's result copied back to the host
 * (so shim_thrust_reduce_f32, the sorts and the scans synchronise the stream, as
 * thrust's par policy does).
 *
 * CUB: num_items goes in as int when n <= INT_MAX (the type most callers use,
 * 32-bit offsets and the tunings made for them) and as long long above it
 * (CCCL 3.0 takes any integral num_items, choosing 64-bit offsets). The
 * *_temp_bytes query and the run function make the same choice from n, so
 * query and run with the same n. CUB itself refuses a temp_bytes that is too
 * small (cudaErrorInvalidValue).
 *
 * The radix sort takes the offset width from the caller (offset_bits 32 or
 * 64) at every n: the num_items type picks CUB's kernel instantiation, and
 * the 64-bit one (unsigned long long offsets) is the one thrust::sort itself
 * runs, which is not the 32-bit one a plain `int n` call gets; the two run at
 * different speeds, so compare keeps a row of each (src/gpu/op_sort.c).
 * shim_cub_sort_temp_bytes returns the largest requirement over both key
 * types and both widths, so one buffer serves every form.
 */
#include <climits>
#include <cstdarg>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <new>

#include <cuda_runtime.h>

#include <thrust/device_ptr.h>
#include <thrust/execution_policy.h>
#include <thrust/functional.h>
#include <thrust/memory.h>
#include <thrust/reduce.h>
#include <thrust/scan.h>
#include <thrust/sort.h>
#include <thrust/system/cuda/error.h>
#include <thrust/system/cuda/execution_policy.h>
#include <thrust/system/detail/bad_alloc.h>
#include <thrust/system_error.h>

#include <cub/device/device_histogram.cuh>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_reduce.cuh>
#include <cub/device/device_scan.cuh>

#include "shim.h"

// ---- messages and error mapping ------------------------------------------------

namespace {

void shim_msg(char *msg, size_t msg_len, const char *fmt, ...)
{
    if (msg == nullptr || msg_len == 0)
        return;
    va_list ap;
    va_start(ap, fmt);
    int rc = vsnprintf(msg, msg_len, fmt, ap);
    va_end(ap);
    if (rc < 0)
        msg[0] = '\0';
}

int shim_ok(char *msg, size_t msg_len)
{
    if (msg != nullptr && msg_len > 0)
        msg[0] = '\0';
    return 0;
}

int shim_bad_arg(char *msg, size_t msg_len, const char *what, const char *why)
{
    shim_msg(msg, msg_len, "%s: %s", what, why);
    return (int)cudaErrorInvalidValue;
}

/* A cudaError_t returned by CUB (or the runtime). */
int shim_cuda_fail(char *msg, size_t msg_len, const char *what, cudaError_t err)
{
    shim_msg(msg, msg_len, "%s failed: %s (%s, cudaError %d)", what, cudaGetErrorString(err), cudaGetErrorName(err),
             (int)err);
    return err != cudaSuccess ? (int)err : -1;
}

/* The catch clauses every exported function shares, most specific first
 * (thrust's bad_alloc derives from std::bad_alloc, system_error from
 * std::runtime_error). */
#define SHIM_CATCH(msg, msg_len, what)                                                                   \
    catch (const thrust::system::detail::bad_alloc &e)                                                  \
    {                                                                                                    \
        shim_msg(msg, msg_len, "%s: thrust could not allocate device memory: %s", what, e.what());      \
        return (int)cudaErrorMemoryAllocation;                                                           \
    }                                                                                                    \
    catch (const std::bad_alloc &e)                                                                      \
    {                                                                                                    \
        shim_msg(msg, msg_len, "%s: allocation failed: %s", what, e.what());                            \
        return (int)cudaErrorMemoryAllocation;                                                           \
    }                                                                                                    \
    catch (const thrust::system_error &e)                                                                \
    {                                                                                                    \
        int code_ = e.code().value();                                                                    \
        shim_msg(msg, msg_len, "%s: thrust error: %s (%s %d)", what, e.what(), e.code().category().name(), \
                 code_);                                                                                 \
        return (e.code().category() == thrust::cuda_category() && code_ > 0) ? code_ : -1;              \
    }                                                                                                    \
    catch (const std::exception &e)                                                                      \
    {                                                                                                    \
        shim_msg(msg, msg_len, "%s: exception: %s", what, e.what());                                    \
        return -1;                                                                                       \
    }                                                                                                    \
    catch (...)                                                                                          \
    {                                                                                                    \
        shim_msg(msg, msg_len, "%s: unknown exception", what);                                          \
        return -1;                                                                                       \
    }

// ---- CUB calls, one place per algorithm, int or long long num_items -------------

cudaError_t shim_cub_sum(void *temp, size_t &bytes, const float *x, float *out, long long n, cudaStream_t stream)
{
    if (n <= INT_MAX)
        return cub::DeviceReduce::Sum(temp, bytes, x, out, (int)n, stream);
    return cub::DeviceReduce::Sum(temp, bytes, x, out, n, stream);
}

/* offset_bits 32: num_items as int (n <= INT_MAX), else as long long (64-bit offsets). */
template <typename KeyT>
cudaError_t shim_cub_radix(void *temp, size_t &bytes, const KeyT *in, KeyT *out, long long n, int offset_bits,
                           cudaStream_t stream)
{
    const int end_bit = (int)(sizeof(KeyT) * 8);
    if (offset_bits == 32 && n <= INT_MAX)
        return cub::DeviceRadixSort::SortKeys(temp, bytes, in, out, (int)n, 0, end_bit, stream);
    return cub::DeviceRadixSort::SortKeys(temp, bytes, in, out, n, 0, end_bit, stream);
}

template <typename KeyT>
int shim_thrust_sort(KeyT *keys, long long n, cudaStream_t stream, char *msg, size_t msg_len, const char *what)
{
    try {
        if (n < 0)
            return shim_bad_arg(msg, msg_len, what, "n < 0");
        if (keys == nullptr && n > 0)
            return shim_bad_arg(msg, msg_len, what, "keys is NULL");
        thrust::device_ptr<KeyT> p = thrust::device_pointer_cast(keys);
        thrust::sort(thrust::cuda::par.on(stream), p, p + n);
        return shim_ok(msg, msg_len);
    }
    SHIM_CATCH(msg, msg_len, what)
}

template <typename KeyT>
int shim_cub_sort(const KeyT *in, KeyT *out, long long n, void *temp, size_t temp_bytes, int offset_bits,
                  cudaStream_t stream, char *msg, size_t msg_len, const char *what)
{
    try {
        if (n < 0)
            return shim_bad_arg(msg, msg_len, what, "n < 0");
        if (offset_bits != 32 && offset_bits != 64)
            return shim_bad_arg(msg, msg_len, what, "offset_bits is neither 32 nor 64");
        if ((in == nullptr || out == nullptr) && n > 0)
            return shim_bad_arg(msg, msg_len, what, "in or out is NULL");
        if (temp == nullptr)
            return shim_bad_arg(msg, msg_len, what, "temp is NULL (size it with shim_cub_sort_temp_bytes)");
        size_t bytes = temp_bytes;
        cudaError_t err = shim_cub_radix<KeyT>(temp, bytes, in, out, n, offset_bits, stream);
        if (err != cudaSuccess)
            return shim_cuda_fail(msg, msg_len, what, err);
        return shim_ok(msg, msg_len);
    }
    SHIM_CATCH(msg, msg_len, what)
}

/* Byte histogram: levels 0..256 as int, so the bin is the byte itself. */
cudaError_t shim_cub_hist_u8(void *temp, size_t &bytes, const uint8_t *x, unsigned int *bins, long long n,
                             cudaStream_t stream)
{
    if (n <= INT_MAX)
        return cub::DeviceHistogram::HistogramEven(temp, bytes, x, bins, 257, 0, 256, (int)n, stream);
    return cub::DeviceHistogram::HistogramEven(temp, bytes, x, bins, 257, 0, 256, n, stream);
}

cudaError_t shim_cub_hist_f32(void *temp, size_t &bytes, const float *x, float lo, float hi, int num_bins,
                              unsigned int *bins, long long n, cudaStream_t stream)
{
    if (n <= INT_MAX)
        return cub::DeviceHistogram::HistogramEven(temp, bytes, x, bins, num_bins + 1, lo, hi, (int)n, stream);
    return cub::DeviceHistogram::HistogramEven(temp, bytes, x, bins, num_bins + 1, lo, hi, n, stream);
}

template <typename T>
cudaError_t shim_cub_inclusive_sum(void *temp, size_t &bytes, const T *in, T *out, long long n, cudaStream_t stream)
{
    if (n <= INT_MAX)
        return cub::DeviceScan::InclusiveSum(temp, bytes, in, out, (int)n, stream);
    return cub::DeviceScan::InclusiveSum(temp, bytes, in, out, n, stream);
}

/* The body every temp-storage query added for histograms and scans shares:
 * argument checks, query(b) (CUB's size query, or its error), the report. */
template <typename Query>
int shim_temp_query(long long n, size_t *bytes, char *msg, size_t msg_len, const char *what, Query query)
{
    try {
        if (n < 0)
            return shim_bad_arg(msg, msg_len, what, "n < 0");
        if (bytes == nullptr)
            return shim_bad_arg(msg, msg_len, what, "bytes is NULL");
        size_t b = 0;
        cudaError_t err = query(b);
        if (err != cudaSuccess)
            return shim_cuda_fail(msg, msg_len, what, err);
        *bytes = b;
        return shim_ok(msg, msg_len);
    }
    SHIM_CATCH(msg, msg_len, what)
}

/* The body of every CUB run added for histograms and scans: bad_args (NULL
 * when the arguments are fine, else why not), a temp buffer, run() (the CUB
 * call), the report. */
template <typename Run>
int shim_cub_run(long long n, const char *bad_args, const void *temp, char *msg, size_t msg_len, const char *what,
                 Run run)
{
    try {
        if (n < 0)
            return shim_bad_arg(msg, msg_len, what, "n < 0");
        if (bad_args != nullptr)
            return shim_bad_arg(msg, msg_len, what, bad_args);
        if (temp == nullptr)
            return shim_bad_arg(msg, msg_len, what, "temp is NULL (size it with the matching *_temp_bytes query)");
        cudaError_t err = run();
        if (err != cudaSuccess)
            return shim_cuda_fail(msg, msg_len, what, err);
        return shim_ok(msg, msg_len);
    }
    SHIM_CATCH(msg, msg_len, what)
}

template <typename T>
int shim_cub_scan(const T *in, T *out, long long n, void *temp, size_t temp_bytes, cudaStream_t stream, char *msg,
                  size_t msg_len, const char *what)
{
    const char *bad = (in == nullptr || out == nullptr) && n > 0 ? "in or out is NULL" : nullptr;
    return shim_cub_run(n, bad, temp, msg, msg_len, what, [&]() {
        size_t bytes = temp_bytes;
        return shim_cub_inclusive_sum<T>(temp, bytes, in, out, n, stream);
    });
}

template <typename T>
int shim_thrust_scan(const T *in, T *out, long long n, cudaStream_t stream, char *msg, size_t msg_len,
                     const char *what)
{
    try {
        if (n < 0)
            return shim_bad_arg(msg, msg_len, what, "n < 0");
        if ((in == nullptr || out == nullptr) && n > 0)
            return shim_bad_arg(msg, msg_len, what, "in or out is NULL");
        thrust::device_ptr<const T> p = thrust::device_pointer_cast(in);
        thrust::device_ptr<T> q = thrust::device_pointer_cast(out);
        thrust::inclusive_scan(thrust::cuda::par.on(stream), p, p + n, q);
        return shim_ok(msg, msg_len);
    }
    SHIM_CATCH(msg, msg_len, what)
}

} // namespace

// ---- Thrust ----------------------------------------------------------------------

extern "C" int shim_thrust_reduce_f32(const float *x, long long n, float *result_host, cudaStream_t stream, char *msg,
                                      size_t msg_len)
{
    const char *what = "thrust::reduce (float sum)";
    try {
        if (n < 0)
            return shim_bad_arg(msg, msg_len, what, "n < 0");
        if (result_host == nullptr)
            return shim_bad_arg(msg, msg_len, what, "result_host is NULL");
        if (x == nullptr && n > 0)
            return shim_bad_arg(msg, msg_len, what, "x is NULL");
        thrust::device_ptr<const float> p = thrust::device_pointer_cast(x);
        *result_host = thrust::reduce(thrust::cuda::par.on(stream), p, p + n, 0.0f, thrust::plus<float>());
        return shim_ok(msg, msg_len);
    }
    SHIM_CATCH(msg, msg_len, what)
}

extern "C" int shim_thrust_sort_u32(uint32_t *keys, long long n, cudaStream_t stream, char *msg, size_t msg_len)
{
    return shim_thrust_sort<uint32_t>(keys, n, stream, msg, msg_len, "thrust::sort (uint32 keys)");
}

extern "C" int shim_thrust_sort_f32(float *keys, long long n, cudaStream_t stream, char *msg, size_t msg_len)
{
    return shim_thrust_sort<float>(keys, n, stream, msg, msg_len, "thrust::sort (float keys)");
}

// ---- CUB ---------------------------------------------------------------------------

extern "C" int shim_cub_reduce_temp_bytes(long long n, size_t *bytes, char *msg, size_t msg_len)
{
    const char *what = "cub::DeviceReduce::Sum (temp storage query)";
    try {
        if (n < 0)
            return shim_bad_arg(msg, msg_len, what, "n < 0");
        if (bytes == nullptr)
            return shim_bad_arg(msg, msg_len, what, "bytes is NULL");
        size_t b = 0;
        cudaError_t err = shim_cub_sum(nullptr, b, nullptr, nullptr, n, 0);
        if (err != cudaSuccess)
            return shim_cuda_fail(msg, msg_len, what, err);
        *bytes = b;
        return shim_ok(msg, msg_len);
    }
    SHIM_CATCH(msg, msg_len, what)
}

extern "C" int shim_cub_reduce_f32(const float *x, long long n, float *out_dev, void *temp, size_t temp_bytes,
                                   cudaStream_t stream, char *msg, size_t msg_len)
{
    const char *what = "cub::DeviceReduce::Sum (float)";
    try {
        if (n < 0)
            return shim_bad_arg(msg, msg_len, what, "n < 0");
        if (out_dev == nullptr)
            return shim_bad_arg(msg, msg_len, what, "out_dev is NULL");
        if (x == nullptr && n > 0)
            return shim_bad_arg(msg, msg_len, what, "x is NULL");
        if (temp == nullptr)
            return shim_bad_arg(msg, msg_len, what, "temp is NULL (size it with shim_cub_reduce_temp_bytes)");
        size_t bytes = temp_bytes;
        cudaError_t err = shim_cub_sum(temp, bytes, x, out_dev, n, stream);
        if (err != cudaSuccess)
            return shim_cuda_fail(msg, msg_len, what, err);
        return shim_ok(msg, msg_len);
    }
    SHIM_CATCH(msg, msg_len, what)
}

extern "C" int shim_cub_sort_temp_bytes(long long n, size_t *bytes, char *msg, size_t msg_len)
{
    const char *what = "cub::DeviceRadixSort::SortKeys (temp storage query)";
    try {
        if (n < 0)
            return shim_bad_arg(msg, msg_len, what, "n < 0");
        if (bytes == nullptr)
            return shim_bad_arg(msg, msg_len, what, "bytes is NULL");
        size_t most = 0;
        for (int bits = 32; bits <= 64; bits += 32) {
            size_t b_u32 = 0;
            size_t b_f32 = 0;
            cudaError_t err = shim_cub_radix<uint32_t>(nullptr, b_u32, nullptr, nullptr, n, bits, 0);
            if (err == cudaSuccess)
                err = shim_cub_radix<float>(nullptr, b_f32, nullptr, nullptr, n, bits, 0);
            if (err != cudaSuccess)
                return shim_cuda_fail(msg, msg_len, what, err);
            most = b_u32 > most ? b_u32 : most;
            most = b_f32 > most ? b_f32 : most;
        }
        *bytes = most;
        return shim_ok(msg, msg_len);
    }
    SHIM_CATCH(msg, msg_len, what)
}

extern "C" int shim_cub_sort_u32(const uint32_t *in, uint32_t *out, long long n, void *temp, size_t temp_bytes,
                                 int offset_bits, cudaStream_t stream, char *msg, size_t msg_len)
{
    return shim_cub_sort<uint32_t>(in, out, n, temp, temp_bytes, offset_bits, stream, msg, msg_len,
                                   "cub::DeviceRadixSort::SortKeys (uint32 keys)");
}

extern "C" int shim_cub_sort_f32(const float *in, float *out, long long n, void *temp, size_t temp_bytes,
                                 int offset_bits, cudaStream_t stream, char *msg, size_t msg_len)
{
    return shim_cub_sort<float>(in, out, n, temp, temp_bytes, offset_bits, stream, msg, msg_len,
                                "cub::DeviceRadixSort::SortKeys (float keys)");
}

extern "C" int shim_thrust_scan_f32(const float *in, float *out, long long n, cudaStream_t stream, char *msg,
                                    size_t msg_len)
{
    return shim_thrust_scan<float>(in, out, n, stream, msg, msg_len, "thrust::inclusive_scan (float)");
}

extern "C" int shim_thrust_scan_i32(const int32_t *in, int32_t *out, long long n, cudaStream_t stream, char *msg,
                                    size_t msg_len)
{
    return shim_thrust_scan<int32_t>(in, out, n, stream, msg, msg_len, "thrust::inclusive_scan (int32)");
}

extern "C" int shim_cub_histogram_u8_temp_bytes(long long n, size_t *bytes, char *msg, size_t msg_len)
{
    return shim_temp_query(n, bytes, msg, msg_len, "cub::DeviceHistogram::HistogramEven (uint8, temp storage query)",
                           [&](size_t &b) { return shim_cub_hist_u8(nullptr, b, nullptr, nullptr, n, 0); });
}

extern "C" int shim_cub_histogram_u8(const uint8_t *x, long long n, unsigned int *bins, void *temp,
                                     size_t temp_bytes, cudaStream_t stream, char *msg, size_t msg_len)
{
    const char *bad = bins == nullptr || (x == nullptr && n > 0) ? "x or bins is NULL" : nullptr;
    return shim_cub_run(n, bad, temp, msg, msg_len, "cub::DeviceHistogram::HistogramEven (uint8, 256 bins)", [&]() {
        size_t bytes = temp_bytes;
        return shim_cub_hist_u8(temp, bytes, x, bins, n, stream);
    });
}

extern "C" int shim_cub_histogram_f32_temp_bytes(long long n, int num_bins, size_t *bytes, char *msg,
                                                 size_t msg_len)
{
    const char *what = "cub::DeviceHistogram::HistogramEven (float, temp storage query)";
    if (num_bins < 1)
        return shim_bad_arg(msg, msg_len, what, "num_bins < 1");
    return shim_temp_query(n, bytes, msg, msg_len, what, [&](size_t &b) {
        return shim_cub_hist_f32(nullptr, b, nullptr, 0.0f, 1.0f, num_bins, nullptr, n, 0);
    });
}

extern "C" int shim_cub_histogram_f32(const float *x, long long n, float lo, float hi, int num_bins,
                                      unsigned int *bins, void *temp, size_t temp_bytes, cudaStream_t stream,
                                      char *msg, size_t msg_len)
{
    const char *bad = num_bins < 1                              ? "num_bins < 1"
                      : !(lo < hi)                              ? "lo < hi does not hold"
                      : bins == nullptr || (x == nullptr && n > 0) ? "x or bins is NULL"
                                                                : nullptr;
    return shim_cub_run(n, bad, temp, msg, msg_len, "cub::DeviceHistogram::HistogramEven (float)", [&]() {
        size_t bytes = temp_bytes;
        return shim_cub_hist_f32(temp, bytes, x, lo, hi, num_bins, bins, n, stream);
    });
}

extern "C" int shim_cub_scan_temp_bytes(long long n, size_t *bytes, char *msg, size_t msg_len)
{
    return shim_temp_query(n, bytes, msg, msg_len, "cub::DeviceScan::InclusiveSum (temp storage query)",
                           [&](size_t &b) {
                               size_t b_f32 = 0, b_i32 = 0;
                               cudaError_t err = shim_cub_inclusive_sum<float>(nullptr, b_f32, nullptr, nullptr, n, 0);
                               if (err == cudaSuccess)
                                   err = shim_cub_inclusive_sum<int32_t>(nullptr, b_i32, nullptr, nullptr, n, 0);
                               b = b_f32 > b_i32 ? b_f32 : b_i32;
                               return err;
                           });
}

extern "C" int shim_cub_scan_f32(const float *in, float *out, long long n, void *temp, size_t temp_bytes,
                                 cudaStream_t stream, char *msg, size_t msg_len)
{
    return shim_cub_scan<float>(in, out, n, temp, temp_bytes, stream, msg, msg_len,
                                "cub::DeviceScan::InclusiveSum (float)");
}

extern "C" int shim_cub_scan_i32(const int32_t *in, int32_t *out, long long n, void *temp, size_t temp_bytes,
                                 cudaStream_t stream, char *msg, size_t msg_len)
{
    return shim_cub_scan<int32_t>(in, out, n, temp, temp_bytes, stream, msg, msg_len,
                                  "cub::DeviceScan::InclusiveSum (int32)");
}

// ---- test hook ---------------------------------------------------------------------

/* Asks thrust's temporary allocator, the one its algorithms use on
 * par.on(stream), for `bytes` bytes. An impossible size makes thrust throw
 * its bad_alloc (after clearing the CUDA error it caused), which comes back
 * here as cudaErrorMemoryAllocation. A size that fits is given back at once
 * and the probe returns 0 with a note in msg. */
extern "C" int shim_thrust_alloc_probe(size_t bytes, cudaStream_t stream, char *msg, size_t msg_len)
{
    const char *what = "thrust::get_temporary_buffer (allocation probe)";
    try {
        auto policy = thrust::cuda::par.on(stream);
        std::ptrdiff_t count = bytes > (size_t)PTRDIFF_MAX ? PTRDIFF_MAX : (std::ptrdiff_t)bytes;
        auto buf = thrust::get_temporary_buffer<char>(policy, count);
        if (buf.first.get() == nullptr || buf.second < count) {
            if (buf.first.get() != nullptr)
                thrust::return_temporary_buffer(policy, buf.first, buf.second);
            shim_msg(msg, msg_len, "%s: thrust returned no storage for %zu bytes", what, bytes);
            return (int)cudaErrorMemoryAllocation;
        }
        thrust::return_temporary_buffer(policy, buf.first, buf.second);
        shim_msg(msg, msg_len, "%s: %zu bytes allocated and freed", what, bytes);
        return 0;
    }
    SHIM_CATCH(msg, msg_len, what)
}
