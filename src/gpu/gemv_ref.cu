/* src/gpu/gemv_ref.cu: the gemv op's FP64 reference and its per-element
 * check (gemv_ref.h says what and why). The reference runs a block per row
 * (grid-stride over rows), each thread a strided part of the row in double,
 * a shared-memory tree to finish: any m and k, run once per case, untimed;
 * simple beats fast here. The check is one grid-stride pass over y with
 * per-warp shuffles and one atomic per warp (check_warp.cuh). */
#include "gemv_ref.h"

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "check_warp.cuh"

#define GEMV_REF_THREADS 256

static __device__ __forceinline__ double gemv_ref_val(const float *p, long long i) { return (double)p[i]; }
static __device__ __forceinline__ double gemv_ref_val(const __half *p, long long i)
{
    return (double)__half2float(p[i]);
}
static __device__ __forceinline__ double gemv_ref_val(const __nv_bfloat16 *p, long long i)
{
    return (double)__bfloat162float(p[i]);
}

template <typename T>
static __global__ void __launch_bounds__(GEMV_REF_THREADS) gemv_ref_kernel(const T *A, const T *x, long long m,
                                                                           long long k, double *ref, double *abs_dot)
{
    __shared__ double s_dot[GEMV_REF_THREADS], s_abs[GEMV_REF_THREADS];
    for (long long row = blockIdx.x; row < m; row += gridDim.x) {
        const T *a = A + row * k;
        double d = 0.0, s = 0.0;
        for (long long j = threadIdx.x; j < k; j += GEMV_REF_THREADS) {
            const double p = gemv_ref_val(a, j) * gemv_ref_val(x, j); /* exact: two short mantissas */
            d += p;
            s += fabs(p);
        }
        s_dot[threadIdx.x] = d;
        s_abs[threadIdx.x] = s;
        __syncthreads();
        for (int w = GEMV_REF_THREADS / 2; w > 0; w /= 2) {
            if ((int)threadIdx.x < w) {
                s_dot[threadIdx.x] += s_dot[threadIdx.x + w];
                s_abs[threadIdx.x] += s_abs[threadIdx.x + w];
            }
            __syncthreads();
        }
        if (threadIdx.x == 0) {
            ref[row] = s_dot[0];
            abs_dot[row] = s_abs[0];
        }
        __syncthreads(); /* s_dot is reused by the next row */
    }
}

template <typename T> static __global__ void gemv_ref_sum_sq_kernel(const T *v, long long n, double *out)
{
    double s = 0.0;
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x) {
        const double e = gemv_ref_val(v, i);
        s += e * e;
    }
    for (int o = 16; o > 0; o /= 2) s += __shfl_xor_sync(0xffffffffu, s, o);
    if (threadIdx.x % 32 == 0) atomicAdd(out, s);
}

template <typename T>
static __global__ void gemv_ref_check_kernel(const T *y, const double *ref, const double *abs_dot, long long m,
                                             double c_acc, double c_out, double out_floor, gemv_check_sums *sums)
{
    check_warp_part v = {0.0, 0.0, 0.0, 0.0, 0, 0, ~0ULL};
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < m; i += (long long)gridDim.x * blockDim.x) {
        const double yv = gemv_ref_val(y, i), r = ref[i];
        const double bound = c_acc * abs_dot[i] + c_out * (fabs(r) + out_floor);
        const double e = fabs(yv - r);
        v.sum_sq_ref += r * r;
        if (!isfinite(yv)) {
            v.nonfinite++;
        } else {
            v.sum_sq_err += e * e;
            v.max_abs = fmax(v.max_abs, e);
            v.worst = fmax(v.worst, bound > 0 ? e / bound : (e > 0 ? INFINITY : 0.0));
        }
        if (!(e <= bound)) { /* NaN fails too */
            v.bad++;
            if ((unsigned long long)i < v.first_bad) v.first_bad = (unsigned long long)i;
        }
    }
    check_warp_commit(v, &sums->sum_sq_err, &sums->sum_sq_ref, &sums->nonfinite, &sums->bad, &sums->first_bad,
                      &sums->max_abs, &sums->worst);
}

static unsigned gemv_ref_grid(long long n, long long per_block, long long most)
{
    long long b = (n + per_block - 1) / per_block;
    return (unsigned)(b < 1 ? 1 : b > most ? most : b);
}

extern "C" int gemv_ref_f64(elem_type t, const void *A, const void *x, long long m, long long k, double *ref,
                            double *abs_dot, cudaStream_t stream)
{
    const unsigned grid = gemv_ref_grid(m, 1, 1LL << 20);
    if (m < 1 || k < 1) return (int)cudaErrorInvalidValue;
    switch (t) {
    case ELEM_FP32:
        gemv_ref_kernel<float><<<grid, GEMV_REF_THREADS, 0, stream>>>((const float *)A, (const float *)x, m, k, ref,
                                                                      abs_dot);
        break;
    case ELEM_FP16:
        gemv_ref_kernel<__half><<<grid, GEMV_REF_THREADS, 0, stream>>>((const __half *)A, (const __half *)x, m, k,
                                                                       ref, abs_dot);
        break;
    case ELEM_BF16:
        gemv_ref_kernel<__nv_bfloat16><<<grid, GEMV_REF_THREADS, 0, stream>>>(
            (const __nv_bfloat16 *)A, (const __nv_bfloat16 *)x, m, k, ref, abs_dot);
        break;
    default: return (int)cudaErrorInvalidValue;
    }
    return (int)cudaGetLastError();
}

extern "C" int gemv_ref_sum_sq(elem_type t, const void *v, long long n, double *out, cudaStream_t stream)
{
    const unsigned grid = gemv_ref_grid(n, 256, 4096);
    if (n < 1) return (int)cudaErrorInvalidValue;
    switch (t) {
    case ELEM_FP32: gemv_ref_sum_sq_kernel<float><<<grid, 256, 0, stream>>>((const float *)v, n, out); break;
    case ELEM_FP16: gemv_ref_sum_sq_kernel<__half><<<grid, 256, 0, stream>>>((const __half *)v, n, out); break;
    case ELEM_BF16:
        gemv_ref_sum_sq_kernel<__nv_bfloat16><<<grid, 256, 0, stream>>>((const __nv_bfloat16 *)v, n, out);
        break;
    default: return (int)cudaErrorInvalidValue;
    }
    return (int)cudaGetLastError();
}

extern "C" int gemv_ref_check(elem_type t, const void *y, const double *ref, const double *abs_dot, long long m,
                              double c_acc, double c_out, double out_floor, gemv_check_sums *sums,
                              cudaStream_t stream)
{
    const unsigned grid = gemv_ref_grid(m, 256, 4096);
    if (m < 1) return (int)cudaErrorInvalidValue;
    switch (t) {
    case ELEM_FP32:
        gemv_ref_check_kernel<float><<<grid, 256, 0, stream>>>((const float *)y, ref, abs_dot, m, c_acc, c_out,
                                                               out_floor, sums);
        break;
    case ELEM_FP16:
        gemv_ref_check_kernel<__half><<<grid, 256, 0, stream>>>((const __half *)y, ref, abs_dot, m, c_acc, c_out,
                                                                out_floor, sums);
        break;
    case ELEM_BF16:
        gemv_ref_check_kernel<__nv_bfloat16><<<grid, 256, 0, stream>>>((const __nv_bfloat16 *)y, ref, abs_dot, m,
                                                                       c_acc, c_out, out_floor, sums);
        break;
    default: return (int)cudaErrorInvalidValue;
    }
    return (int)cudaGetLastError();
}
