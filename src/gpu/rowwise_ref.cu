/* src/gpu/rowwise_ref.cu: the FP64 reference and the element check of the
 * row-wise ops (rowwise_ref.h says what and why). One template per kernel,
 * the storage type a compile-time parameter; a block of RR_THREADS per row
 * (rows past the grid's reach take turns), double reductions through warp
 * shuffles and shared memory. Slow next to the kernels it checks (double
 * arithmetic, three or four passes over a row), and never timed. */
#include "rowwise_ref.h"

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#define RR_THREADS 256
#define RR_MAX_BLOCKS 65535LL

// ---------------------------------------------------------------------------
// loads of each storage type, as double

static __device__ double rr_load(const float *p, long long i) { return (double)p[i]; }
static __device__ double rr_load(const __half *p, long long i) { return (double)__half2float(p[i]); }
static __device__ double rr_load(const __nv_bfloat16 *p, long long i) { return (double)__bfloat162float(p[i]); }
/* The smallest normal number of the output type: a row's scale is at least
 * this, since below it the type's spacing is fixed (subnormals, 2 u times
 * this apart) and no kernel can round closer than half of it. */
static __device__ double rr_min_normal(const float *) { return 0x1p-126; }
static __device__ double rr_min_normal(const __half *) { return 0x1p-14; }
static __device__ double rr_min_normal(const __nv_bfloat16 *) { return 0x1p-126; }

// ---------------------------------------------------------------------------
// block reductions whose result every thread of the block gets

template <int IS_MAX>
static __device__ double rr_block_reduce(double v, double *sh)
{
    for (int o = 16; o > 0; o >>= 1) {
        const double w = __shfl_xor_sync(0xffffffffu, v, o);
        v = IS_MAX ? fmax(v, w) : v + w;
    }
    __syncthreads(); /* sh may still be read from the previous reduction */
    if ((threadIdx.x & 31) == 0) sh[threadIdx.x >> 5] = v;
    __syncthreads();
    double r = sh[0];
    for (int w = 1; w < RR_THREADS / 32; w++) r = IS_MAX ? fmax(r, sh[w]) : r + sh[w];
    return r;
}

/* max of non-negative doubles: their bit patterns order like unsigned integers */
static __device__ void rr_atomic_max_nonneg(unsigned long long *addr, double v)
{
    atomicMax(addr, (unsigned long long)__double_as_longlong(v));
}

// ---------------------------------------------------------------------------
// the reference

template <typename T>
static __global__ void __launch_bounds__(RR_THREADS)
    rr_ref_kernel(int op, const T *x, const float *weight, const float *bias, float eps, long long rows,
                  long long cols, double *ref, double *scale, unsigned long long *x_max_bits)
{
    __shared__ double sh[RR_THREADS / 32];
    for (long long r = blockIdx.x; r < rows; r += gridDim.x) {
        const T *xr = x + r * cols;
        double *yr = ref + r * cols;
        double xmax = 0.0, a = 0.0, b = 0.0, s = 0.0;
        for (long long c = threadIdx.x; c < cols; c += RR_THREADS) xmax = fmax(xmax, fabs(rr_load(xr, c)));
        xmax = rr_block_reduce<1>(xmax, sh);
        if (op == ROWWISE_SOFTMAX) {
            /* a = max, b = 1 / sum exp(x - max) */
            double m = -INFINITY;
            for (long long c = threadIdx.x; c < cols; c += RR_THREADS) m = fmax(m, rr_load(xr, c));
            a = rr_block_reduce<1>(m, sh);
            for (long long c = threadIdx.x; c < cols; c += RR_THREADS) s += exp(rr_load(xr, c) - a);
            b = 1.0 / rr_block_reduce<0>(s, sh);
        } else if (op == ROWWISE_RMSNORM) {
            /* a = 0, b = 1 / sqrt(mean x^2 + eps) */
            for (long long c = threadIdx.x; c < cols; c += RR_THREADS) s += rr_load(xr, c) * rr_load(xr, c);
            b = 1.0 / sqrt(rr_block_reduce<0>(s, sh) / (double)cols + (double)eps);
        } else {
            /* a = mean, b = 1 / sqrt(var + eps), the variance in a second pass */
            for (long long c = threadIdx.x; c < cols; c += RR_THREADS) s += rr_load(xr, c);
            a = rr_block_reduce<0>(s, sh) / (double)cols;
            s = 0.0;
            for (long long c = threadIdx.x; c < cols; c += RR_THREADS) {
                const double d = rr_load(xr, c) - a;
                s += d * d;
            }
            b = 1.0 / sqrt(rr_block_reduce<0>(s, sh) / (double)cols + (double)eps);
        }
        double ymax = 0.0;
        for (long long c = threadIdx.x; c < cols; c += RR_THREADS) {
            const double v = rr_load(xr, c);
            double y;
            if (op == ROWWISE_SOFTMAX) y = exp(v - a) * b;
            else if (op == ROWWISE_RMSNORM) y = v * b * (double)weight[c];
            else y = (v - a) * b * (double)weight[c] + (double)bias[c];
            yr[c] = y;
            ymax = fmax(ymax, fabs(y));
        }
        ymax = rr_block_reduce<1>(ymax, sh);
        if (threadIdx.x == 0) {
            scale[r] = fmax(ymax, rr_min_normal(x));
            if (xmax > 0.0) rr_atomic_max_nonneg(x_max_bits, xmax);
        }
    }
}

// ---------------------------------------------------------------------------
// the check

template <typename T>
static __global__ void __launch_bounds__(RR_THREADS)
    rr_errors_kernel(const T *y, const double *ref, const double *scale, long long cols, long long n, double tol,
                     unsigned long long *result)
{
    __shared__ double sh[RR_THREADS / 32];
    unsigned long long bad = 0, first = ~0ULL, nonfinite = 0;
    double worst = 0.0;
    for (long long i = blockIdx.x * (long long)RR_THREADS + threadIdx.x; i < n; i += (long long)gridDim.x * RR_THREADS) {
        const double v = rr_load(y, i), sc = scale[i / cols];
        double q = NAN;
        if (isfinite(v)) {
            const double e = fabs(v - ref[i]);
            q = sc > 0.0 ? e / sc : (e > 0.0 ? INFINITY : 0.0);
            worst = fmax(worst, q);
        } else {
            nonfinite++;
        }
        if (!(q <= tol)) {
            bad++;
            if ((unsigned long long)i < first) first = (unsigned long long)i;
        }
    }
    worst = rr_block_reduce<1>(worst, sh);
    if (bad) {
        atomicAdd(&result[0], bad);
        atomicMin(&result[1], first);
    }
    if (nonfinite) atomicAdd(&result[3], nonfinite);
    if (threadIdx.x == 0 && worst > 0.0) rr_atomic_max_nonneg(&result[2], worst);
}

// ---------------------------------------------------------------------------
// launchers

static unsigned rr_grid(long long blocks) { return (unsigned)(blocks < 1 ? 1 : blocks > RR_MAX_BLOCKS ? RR_MAX_BLOCKS : blocks); }

template <typename T>
static int rr_ref_as(int op, const void *x, const float *weight, const float *bias, float eps, long long rows,
                     long long cols, double *ref, double *scale, unsigned long long *x_max_bits, cudaStream_t stream)
{
    rr_ref_kernel<T><<<rr_grid(rows), RR_THREADS, 0, stream>>>(op, (const T *)x, weight, bias, eps, rows, cols, ref,
                                                               scale, x_max_bits);
    return (int)cudaGetLastError();
}

template <typename T>
static int rr_errors_as(const void *y, const double *ref, const double *scale, long long rows, long long cols,
                        double tol, unsigned long long *result, cudaStream_t stream)
{
    const long long n = rows * cols;
    rr_errors_kernel<T><<<rr_grid((n + RR_THREADS - 1) / RR_THREADS), RR_THREADS, 0, stream>>>(
        (const T *)y, ref, scale, cols, n, tol, result);
    return (int)cudaGetLastError();
}

extern "C" int rowwise_ref(rowwise_op op, elem_type type, const void *x, const float *weight, const float *bias,
                           float eps, long long rows, long long cols, double *ref, double *scale,
                           unsigned long long *x_max_bits, cudaStream_t stream)
{
    if (rows < 1 || cols < 1 || op < ROWWISE_SOFTMAX || op > ROWWISE_LAYERNORM ||
        (op != ROWWISE_SOFTMAX && !weight) || (op == ROWWISE_LAYERNORM && !bias))
        return (int)cudaErrorInvalidValue;
    switch (type) {
    case ELEM_FP32: return rr_ref_as<float>(op, x, weight, bias, eps, rows, cols, ref, scale, x_max_bits, stream);
    case ELEM_FP16: return rr_ref_as<__half>(op, x, weight, bias, eps, rows, cols, ref, scale, x_max_bits, stream);
    case ELEM_BF16:
        return rr_ref_as<__nv_bfloat16>(op, x, weight, bias, eps, rows, cols, ref, scale, x_max_bits, stream);
    default: return (int)cudaErrorInvalidValue;
    }
}

extern "C" int rowwise_errors(elem_type type, const void *y, const double *ref, const double *scale, long long rows,
                              long long cols, double tol, unsigned long long *result, cudaStream_t stream)
{
    if (rows < 1 || cols < 1) return (int)cudaErrorInvalidValue;
    switch (type) {
    case ELEM_FP32: return rr_errors_as<float>(y, ref, scale, rows, cols, tol, result, stream);
    case ELEM_FP16: return rr_errors_as<__half>(y, ref, scale, rows, cols, tol, result, stream);
    case ELEM_BF16: return rr_errors_as<__nv_bfloat16>(y, ref, scale, rows, cols, tol, result, stream);
    default: return (int)cudaErrorInvalidValue;
    }
}
