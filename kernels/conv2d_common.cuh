/* kernels/conv2d_common.cuh: what the conv2d rungs share (kernels/conv2d.h is
 * the contract): element loads widened to float and stores rounded from it
 * (round to nearest even) for float, __half and __nv_bfloat16, the zero-padded
 * input read, the launchers' dispatch on the element type and their grid, and
 * the one-thread-per-output kernel of naive and const_mask. Every sum is FP32
 * whatever T is. */
#ifndef COMPARE_CONV2D_COMMON_CUH
#define COMPARE_CONV2D_COMMON_CUH

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "conv2d.h"

static __device__ __forceinline__ float conv2d_f(float v) { return v; }
static __device__ __forceinline__ float conv2d_f(__half v) { return __half2float(v); }
static __device__ __forceinline__ float conv2d_f(__nv_bfloat16 v) { return __bfloat162float(v); }

template <typename T> static __device__ __forceinline__ T conv2d_to(float v);
template <> __device__ __forceinline__ float conv2d_to<float>(float v) { return v; }
template <> __device__ __forceinline__ __half conv2d_to<__half>(float v) { return __float2half_rn(v); }
template <> __device__ __forceinline__ __nv_bfloat16 conv2d_to<__nv_bfloat16>(float v)
{
    return __float2bfloat16_rn(v);
}

/* x[i][j] of one H x W plane, 0 outside it (the zero padding) */
template <typename T> static __device__ __forceinline__ float conv2d_at(const T *plane, int i, int j, int h, int w)
{
    return i >= 0 && i < h && j >= 0 && j < w ? conv2d_f(plane[(long long)i * w + j]) : 0.0f;
}

/* Calls F<T>::run(a, s) for the case's element type (cudaErrorInvalidValue
 * for another). */
template <template <typename> class F> static int conv2d_dispatch(const conv2d_args *a, cudaStream_t s)
{
    switch (a->type) {
    case ELEM_FP32: return F<float>::run(a, s);
    case ELEM_FP16: return F<__half>::run(a, s);
    case ELEM_BF16: return F<__nv_bfloat16>::run(a, s);
    default: return (int)cudaErrorInvalidValue;
    }
}

/* The launcher of a rung that takes every case conv2d_case_ok takes. */
template <template <typename> class F> static int conv2d_checked(const conv2d_args *a, cudaStream_t s)
{
    char why[256];
    if (!conv2d_case_ok(a, why, sizeof why)) return (int)cudaErrorInvalidValue;
    return conv2d_dispatch<F>(a, s);
}

/* A grid of bx x by output tiles over the image; z over the batch x c_out
 * output planes, at most 65535 (the kernels stride over the rest). */
static inline dim3 conv2d_grid(const conv2d_args *a, int bx, int by)
{
    const long long planes = a->batch * a->c_out;
    return dim3((unsigned)((a->width + bx - 1) / bx), (unsigned)((a->height + by - 1) / by),
                (unsigned)(planes < 65535 ? planes : 65535));
}

/* A kernel that takes the case whole: x, w, y, c_in, c_out, height, width, r
 * and the output planes (batch x c_out); launched over bx x by output tiles. */
template <typename T> using conv2d_kernel_fn = void (*)(const T *, const T *, T *, int, int, int, int, int, long long);

template <typename T>
static int conv2d_launch(conv2d_kernel_fn<T> kernel, const conv2d_args *a, int bx, int by, size_t smem, cudaStream_t s)
{
    kernel<<<conv2d_grid(a, bx, by), dim3(bx, by), smem, s>>>((const T *)a->x, (const T *)a->w, (T *)a->y,
                                                                (int)a->c_in, (int)a->c_out, (int)a->height,
                                                                (int)a->width, a->r, a->batch * a->c_out);
    return (int)cudaGetLastError();
}

// ---------------------------------------------------------------------------
// one thread per output: naive's form, which const_mask (the mask from
// __constant__ memory) and the planted test row (a tap filter) reuse

/* the mask read from global memory (naive) */
template <typename T> struct conv2d_mask_global {
    const T *w;
    __device__ __forceinline__ float operator()(long long i) const { return conv2d_f(w[i]); }
};

/* every tap taken: the rungs' filter (the block's tile origin i0, j0 and the
 * tap's input position ii, jj are what a filter sees) */
struct conv2d_taps_all {
    __device__ __forceinline__ bool operator()(int, int, int, int) const { return true; }
};

/* y[n][k][i][j] by one thread: every tap the filter takes, the mask element
 * through `mask` (an index into c_out x c_in x r x r) */
template <typename T, typename Mask, typename Taps, int BX, int BY>
static __global__ void conv2d_direct_kernel(const T *x, Mask mask, T *y, int c_in, int c_out, int h, int wd, int r,
                                            long long planes, Taps taps)
{
    const int i0 = blockIdx.y * BY, j0 = blockIdx.x * BX;
    const int i = i0 + threadIdx.y, j = j0 + threadIdx.x, half = r / 2;
    if (i >= h || j >= wd) return;
    for (long long p = blockIdx.z; p < planes; p += gridDim.z) { /* p = n * c_out + k */
        const long long n = p / c_out, k = p % c_out;
        float acc = 0.0f;
        for (int c = 0; c < c_in; c++) {
            const T *plane = x + (n * c_in + c) * (long long)h * wd;
            const long long m0 = (k * c_in + c) * (long long)r * r;
            for (int u = 0; u < r; u++)
                for (int v = 0; v < r; v++) {
                    const int ii = i + u - half, jj = j + v - half;
                    if (taps(i0, j0, ii, jj)) acc += conv2d_at(plane, ii, jj, h, wd) * mask(m0 + u * r + v);
                }
        }
        y[p * (long long)h * wd + (long long)i * wd + j] = conv2d_to<T>(acc);
    }
}

template <typename T, int BX, int BY, typename Mask, typename Taps>
static int conv2d_direct_launch(const conv2d_args *a, Mask mask, Taps taps, cudaStream_t s)
{
    conv2d_direct_kernel<T, Mask, Taps, BX, BY><<<conv2d_grid(a, BX, BY), dim3(BX, BY), 0, s>>>(
        (const T *)a->x, mask, (T *)a->y, (int)a->c_in, (int)a->c_out, (int)a->height, (int)a->width, a->r,
        a->batch * a->c_out, taps);
    return (int)cudaGetLastError();
}

// ---------------------------------------------------------------------------
// the implicit GEMM's gathered operand (fast's multi-channel forms)

/* X[q][p] = x[n][c][i + u - r/2][j + v - r/2] for q = (c, u, v) of the
 * reduction and one output pixel p = (n, i, j), walked along q with no
 * division per step (the pixel's (n, i, j) is found once). */
template <typename T> struct conv2d_gather {
    const T *xn, *xc;   /* the pixel's image; the walk's channel plane in it */
    long long hw;
    int pi, pj, h, wd, r, rr, half, kdim;
    int q, u, v;        /* the walk: q = (c, u, v) */
    bool ok;            /* the pixel exists (p < pixels) */

    __device__ __forceinline__ conv2d_gather(const T *x, long long p, long long pixels, int c_in, int h_, int wd_,
                                             int r_)
        : h(h_), wd(wd_), r(r_)
    {
        rr = r * r;
        half = r / 2;
        kdim = c_in * rr;
        hw = (long long)h * wd;
        ok = p < pixels;
        const long long pn = ok ? p / hw : 0, prem = ok ? p % hw : 0;
        pi = (int)(prem / wd);
        pj = (int)(prem % wd);
        xn = x + pn * c_in * hw;
    }
    /* the walk starts at q0 */
    __device__ __forceinline__ void start(int q0)
    {
        q = q0;
        u = (q % rr) / r;
        v = q % r;
        xc = xn + (long long)(q / rr) * hw;
    }
    /* X at the walk's q: 0 outside the image (the padding) or past the reduction */
    __device__ __forceinline__ T value() const
    {
        const int ii = pi + u - half, jj = pj + v - half;
        return ok && q < kdim && (unsigned)ii < (unsigned)h && (unsigned)jj < (unsigned)wd ? xc[ii * wd + jj]
                                                                                        : conv2d_to<T>(0.0f);
    }
    /* q += k */
    __device__ __forceinline__ void step(int k)
    {
        q += k;
        v += k;
        while (v >= r) {
            v -= r;
            if (++u == r) {
                u = 0;
                xc += hw;
            }
        }
    }
};

#endif
