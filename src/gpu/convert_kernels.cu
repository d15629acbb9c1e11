/* src/gpu/convert_kernels.cu: FP32 to fp16 / bf16 / fp8 and back, on the
 * device (convert_kernels.h says why). One template per direction, the
 * storage type a compile-time parameter, over the conversion intrinsics of
 * cuda_fp16.h, cuda_bf16.h and cuda_fp8.h (all round to nearest even; FP8
 * with __NV_SATFINITE). The launchers pick the instance from the type's
 * name; a grid-stride loop covers any n. */
#include "convert_kernels.h"

#include <string.h>

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>

typedef enum { CONVERT_FP32, CONVERT_FP16, CONVERT_BF16, CONVERT_E4M3, CONVERT_E5M2, CONVERT_NONE } convert_kind;

static convert_kind convert_kind_of(const char *type)
{
    static const struct {
        const char *name;
        convert_kind kind;
    } kinds[] = {{"fp32", CONVERT_FP32}, {"fp16", CONVERT_FP16}, {"bf16", CONVERT_BF16},
                 {"fp8_e4m3", CONVERT_E4M3}, {"fp8_e5m2", CONVERT_E5M2}};
    for (size_t i = 0; type && i < sizeof kinds / sizeof kinds[0]; i++)
        if (strcmp(kinds[i].name, type) == 0) return kinds[i].kind;
    return CONVERT_NONE;
}

// ---- one element each way ---------------------------------------------------

template <int K> struct convert_elem;
template <> struct convert_elem<CONVERT_FP32> {
    typedef float storage;
    static __device__ storage from(float x) { return x; }
    static __device__ float to(storage v) { return v; }
};
template <> struct convert_elem<CONVERT_FP16> {
    typedef __half storage;
    static __device__ storage from(float x) { return __float2half_rn(x); }
    static __device__ float to(storage v) { return __half2float(v); }
};
template <> struct convert_elem<CONVERT_BF16> {
    typedef __nv_bfloat16 storage;
    static __device__ storage from(float x) { return __float2bfloat16_rn(x); }
    static __device__ float to(storage v) { return __bfloat162float(v); }
};
template <> struct convert_elem<CONVERT_E4M3> {
    typedef __nv_fp8_storage_t storage;
    static __device__ storage from(float x) { return __nv_cvt_float_to_fp8(x, __NV_SATFINITE, __NV_E4M3); }
    static __device__ float to(storage v) { return __half2float(__half(__nv_cvt_fp8_to_halfraw(v, __NV_E4M3))); }
};
template <> struct convert_elem<CONVERT_E5M2> {
    typedef __nv_fp8_storage_t storage;
    static __device__ storage from(float x) { return __nv_cvt_float_to_fp8(x, __NV_SATFINITE, __NV_E5M2); }
    static __device__ float to(storage v) { return __half2float(__half(__nv_cvt_fp8_to_halfraw(v, __NV_E5M2))); }
};

// ---- kernels ------------------------------------------------------------------

template <int K>
static __global__ void convert_from_f32_kernel(const float *in, void *out, long long n)
{
    typename convert_elem<K>::storage *o = (typename convert_elem<K>::storage *)out;
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x)
        o[i] = convert_elem<K>::from(in[i]);
}

template <int K, typename T>
static __global__ void convert_to_kernel(const void *in, T *out, long long n)
{
    const typename convert_elem<K>::storage *p = (const typename convert_elem<K>::storage *)in;
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x)
        out[i] = (T)convert_elem<K>::to(p[i]);
}

// ---- launchers ----------------------------------------------------------------

static unsigned convert_blocks(long long n)
{
    long long blocks = (n + 255) / 256;
    return (unsigned)(blocks > 4096 ? 4096 : blocks);
}

template <int K>
static int convert_from_f32_as(const float *in, void *out, long long n, cudaStream_t stream)
{
    convert_from_f32_kernel<K><<<convert_blocks(n), 256, 0, stream>>>(in, out, n);
    return (int)cudaGetLastError();
}

template <int K, typename T>
static int convert_to_as(const void *in, T *out, long long n, cudaStream_t stream)
{
    convert_to_kernel<K, T><<<convert_blocks(n), 256, 0, stream>>>(in, out, n);
    return (int)cudaGetLastError();
}

template <typename T>
static int convert_to(const char *type, const void *in, T *out, long long n, cudaStream_t stream)
{
    if (n < 0) return (int)cudaErrorInvalidValue;
    if (n == 0) return (int)cudaSuccess;
    switch (convert_kind_of(type)) {
    case CONVERT_FP32: return convert_to_as<CONVERT_FP32, T>(in, out, n, stream);
    case CONVERT_FP16: return convert_to_as<CONVERT_FP16, T>(in, out, n, stream);
    case CONVERT_BF16: return convert_to_as<CONVERT_BF16, T>(in, out, n, stream);
    case CONVERT_E4M3: return convert_to_as<CONVERT_E4M3, T>(in, out, n, stream);
    case CONVERT_E5M2: return convert_to_as<CONVERT_E5M2, T>(in, out, n, stream);
    default: return (int)cudaErrorInvalidValue;
    }
}

extern "C" int convert_from_f32(const char *type, const float *in, void *out, long long n, cudaStream_t stream)
{
    if (n < 0) return (int)cudaErrorInvalidValue;
    if (n == 0) return (int)cudaSuccess;
    switch (convert_kind_of(type)) {
    case CONVERT_FP32: return convert_from_f32_as<CONVERT_FP32>(in, out, n, stream);
    case CONVERT_FP16: return convert_from_f32_as<CONVERT_FP16>(in, out, n, stream);
    case CONVERT_BF16: return convert_from_f32_as<CONVERT_BF16>(in, out, n, stream);
    case CONVERT_E4M3: return convert_from_f32_as<CONVERT_E4M3>(in, out, n, stream);
    case CONVERT_E5M2: return convert_from_f32_as<CONVERT_E5M2>(in, out, n, stream);
    default: return (int)cudaErrorInvalidValue;
    }
}

extern "C" int convert_to_f32(const char *type, const void *in, float *out, long long n, cudaStream_t stream)
{
    return convert_to<float>(type, in, out, n, stream);
}

extern "C" int convert_to_f64(const char *type, const void *in, double *out, long long n, cudaStream_t stream)
{
    return convert_to<double>(type, in, out, n, stream);
}

extern "C" int convert_supports(const char *type) { return convert_kind_of(type) != CONVERT_NONE; }
