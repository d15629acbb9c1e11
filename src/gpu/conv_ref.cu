/* src/gpu/conv_ref.cu: the conv2d op's FP64 reference and per-element check
 * (conv_ref.h says what and why). A thread per output element (grid-stride),
 * its products summed in double (each product of two stored values is exact
 * in double: their mantissas are 24 bits or shorter), then per-warp shuffles
 * and one atomic per warp for the sums (check_warp.cuh). Simple beats fast: it runs once per
 * checked variant, untimed. */
#include "conv_ref.h"

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "check_warp.cuh"

#define CONV_REF_THREADS 256

static __device__ __forceinline__ double conv_ref_val(const float *p, long long i) { return (double)p[i]; }
static __device__ __forceinline__ double conv_ref_val(const __half *p, long long i)
{
    return (double)__half2float(p[i]);
}
static __device__ __forceinline__ double conv_ref_val(const __nv_bfloat16 *p, long long i)
{
    return (double)__bfloat162float(p[i]);
}

/* r and s of output element `at` (flat NCHW index of y) */
template <typename T> static __device__ void conv_ref_one(const T *x, const T *w, long long at, long long c_in,
                                                          long long c_out, int h, int wd, int r, double *ref,
                                                          double *abs_sum)
{
    const long long hw = (long long)h * wd, p = at / hw, n = p / c_out, k = p % c_out;
    const int i = (int)((at % hw) / wd), j = (int)(at % wd), half = r / 2;
    double d = 0.0, s = 0.0;
    for (long long c = 0; c < c_in; c++) {
        const T *plane = x + (n * c_in + c) * hw;
        const T *mask = w + (k * c_in + c) * (long long)r * r;
        for (int u = 0; u < r; u++) {
            const int ii = i + u - half;
            if (ii < 0 || ii >= h) continue;
            for (int v = 0; v < r; v++) {
                const int jj = j + v - half;
                if (jj < 0 || jj >= wd) continue;
                const double t = conv_ref_val(plane, (long long)ii * wd + jj) * conv_ref_val(mask, u * r + v);
                d += t;
                s += fabs(t);
            }
        }
    }
    *ref = d;
    *abs_sum = s;
}

template <typename T> static __global__ void __launch_bounds__(CONV_REF_THREADS)
    conv_ref_check_kernel(const T *x, const T *w, const T *y, long long count, long long c_in, long long c_out, int h,
                          int wd, int r, double tol, double out_floor, conv_check_sums *sums)
{
    check_warp_part v = {0.0, 0.0, 0.0, 0.0, 0, 0, ~0ULL};
    for (long long at = (long long)blockIdx.x * blockDim.x + threadIdx.x; at < count;
         at += (long long)gridDim.x * blockDim.x) {
        double ref, s;
        conv_ref_one(x, w, at, c_in, c_out, h, wd, r, &ref, &s);
        const double yv = conv_ref_val(y, at), e = fabs(yv - ref), ratio = e / (s + out_floor);
        v.sum_sq_ref += ref * ref;
        if (!isfinite(yv)) {
            v.nonfinite++;
        } else {
            v.sum_sq_err += e * e;
            v.worst = fmax(v.worst, ratio);
        }
        if (!(ratio <= tol)) { /* NaN fails too */
            v.bad++;
            if ((unsigned long long)at < v.first_bad) v.first_bad = (unsigned long long)at;
        }
    }
    check_warp_commit(v, &sums->sum_sq_err, &sums->sum_sq_ref, &sums->nonfinite, &sums->bad, &sums->first_bad, NULL,
                      &sums->worst);
}

template <typename T> static __global__ void conv_ref_at_kernel(const T *x, const T *w, const T *y, long long at,
                                                                long long c_in, long long c_out, int h, int wd, int r,
                                                                double *out)
{
    conv_ref_one(x, w, at, c_in, c_out, h, wd, r, &out[1], &out[2]);
    out[0] = conv_ref_val(y, at);
}

static long long conv_ref_count(const conv2d_args *a) { return a->batch * a->c_out * a->height * a->width; }

template <typename T> static int conv_ref_check_t(const conv2d_args *a, double tol, double out_floor,
                                                  conv_check_sums *sums, cudaStream_t stream)
{
    const long long count = conv_ref_count(a), blocks = (count + CONV_REF_THREADS - 1) / CONV_REF_THREADS;
    const unsigned grid = (unsigned)(blocks < 1 ? 1 : blocks > 65536 ? 65536 : blocks);
    conv_ref_check_kernel<T><<<grid, CONV_REF_THREADS, 0, stream>>>((const T *)a->x, (const T *)a->w, (const T *)a->y,
                                                                    count, a->c_in, a->c_out, (int)a->height,
                                                                    (int)a->width, a->r, tol, out_floor, sums);
    return (int)cudaGetLastError();
}

template <typename T> static int conv_ref_at_t(const conv2d_args *a, long long at, double *out, cudaStream_t stream)
{
    conv_ref_at_kernel<T><<<1, 1, 0, stream>>>((const T *)a->x, (const T *)a->w, (const T *)a->y, at, a->c_in, a->c_out,
                                               (int)a->height, (int)a->width, a->r, out);
    return (int)cudaGetLastError();
}

extern "C" int conv_ref_check(const conv2d_args *a, double tol, double out_floor, conv_check_sums *sums,
                              cudaStream_t stream)
{
    if (conv_ref_count(a) < 1) return (int)cudaErrorInvalidValue;
    switch (a->type) {
    case ELEM_FP32: return conv_ref_check_t<float>(a, tol, out_floor, sums, stream);
    case ELEM_FP16: return conv_ref_check_t<__half>(a, tol, out_floor, sums, stream);
    case ELEM_BF16: return conv_ref_check_t<__nv_bfloat16>(a, tol, out_floor, sums, stream);
    default: return (int)cudaErrorInvalidValue;
    }
}

extern "C" int conv_ref_at(const conv2d_args *a, long long at, double *out, cudaStream_t stream)
{
    if (at < 0 || at >= conv_ref_count(a)) return (int)cudaErrorInvalidValue;
    switch (a->type) {
    case ELEM_FP32: return conv_ref_at_t<float>(a, at, out, stream);
    case ELEM_FP16: return conv_ref_at_t<__half>(a, at, out, stream);
    case ELEM_BF16: return conv_ref_at_t<__nv_bfloat16>(a, at, out, stream);
    default: return (int)cudaErrorInvalidValue;
    }
}
