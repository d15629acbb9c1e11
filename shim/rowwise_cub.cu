/* shim/rowwise_cub.cu: softmax, RMSNorm and LayerNorm composed from CUB's
 * block primitives (shim.h: shim_cub_rowwise), the `cub` library row of the
 * row-wise ops: what a user gets from CUDA's own libraries without cuDNN.
 *
 * CUB has no softmax or norm, so this is the plain composition a user would
 * write with it: a block of CUB_ROW_THREADS per row, cub::BlockReduce for
 * the row's reductions (max then sum of exp(x - max); the sum of squares;
 * the mean then the sum of squared deviations, two-pass, so no cancellation
 * of a one-pass E[x^2] - mean^2), FP32 arithmetic, scalar loads with a
 * block-stride loop, each reduction a pass over the row (softmax and
 * LayerNorm read x three times, RMSNorm twice; x comes from L2 on later
 * passes when a row fits). The library's own work is the reduction; the
 * memory access pattern is the user's.
 *
 * reduce_cols < cols restricts the reductions to the first reduce_cols
 * elements (still divided by cols) while every element is written: a
 * planted defect (a reduction that dropped the tail of the row: softmax's
 * sum, the mean square and the variance come out short) for the tests'
 * wrong row; reduce_cols == cols is the correct op. */
#include <cstdio>

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cub/block/block_reduce.cuh>

#include "shim.h"

#define CUB_ROW_THREADS 256

namespace {

__device__ float cr_load(const float *p, long long i) { return p[i]; }
__device__ float cr_load(const __half *p, long long i) { return __half2float(p[i]); }
__device__ float cr_load(const __nv_bfloat16 *p, long long i) { return __bfloat162float(p[i]); }
__device__ void cr_store(float *p, long long i, float v) { p[i] = v; }
__device__ void cr_store(__half *p, long long i, float v) { p[i] = __float2half_rn(v); }
__device__ void cr_store(__nv_bfloat16 *p, long long i, float v) { p[i] = __float2bfloat16_rn(v); }

struct cr_max {
    __device__ float operator()(float a, float b) const { return fmaxf(a, b); }
};

/* op: 0 softmax, 1 rmsnorm, 2 layernorm (shim.h) */
template <typename T>
__global__ void __launch_bounds__(CUB_ROW_THREADS)
    cr_rowwise_kernel(int op, const T *x, T *y, const float *weight, const float *bias, float eps, long long cols,
                      long long reduce_cols)
{
    typedef cub::BlockReduce<float, CUB_ROW_THREADS> block_reduce;
    __shared__ typename block_reduce::TempStorage temp;
    __shared__ float shared_a, shared_b;
    const long long r = blockIdx.x;
    const T *xr = x + r * cols;
    T *yr = y + r * cols;
    float a = 0.0f, s = 0.0f;
    if (op == 0) {
        float m = -INFINITY;
        for (long long c = threadIdx.x; c < reduce_cols; c += CUB_ROW_THREADS) m = fmaxf(m, cr_load(xr, c));
        m = block_reduce(temp).Reduce(m, cr_max());
        if (threadIdx.x == 0) shared_a = m;
        __syncthreads();
        a = shared_a;
        for (long long c = threadIdx.x; c < reduce_cols; c += CUB_ROW_THREADS) s += expf(cr_load(xr, c) - a);
    } else if (op == 1) {
        for (long long c = threadIdx.x; c < reduce_cols; c += CUB_ROW_THREADS) {
            const float v = cr_load(xr, c);
            s = fmaf(v, v, s);
        }
    } else {
        for (long long c = threadIdx.x; c < reduce_cols; c += CUB_ROW_THREADS) s += cr_load(xr, c);
        s = block_reduce(temp).Sum(s);
        if (threadIdx.x == 0) shared_a = s / (float)cols;
        __syncthreads();
        a = shared_a;
        s = 0.0f;
        for (long long c = threadIdx.x; c < reduce_cols; c += CUB_ROW_THREADS) {
            const float d = cr_load(xr, c) - a;
            s = fmaf(d, d, s);
        }
    }
    __syncthreads(); /* temp is reused */
    s = block_reduce(temp).Sum(s);
    if (threadIdx.x == 0) shared_b = op == 0 ? 1.0f / s : rsqrtf(s / (float)cols + eps);
    __syncthreads();
    const float b = shared_b;
    for (long long c = threadIdx.x; c < cols; c += CUB_ROW_THREADS) {
        const float v = cr_load(xr, c);
        float out;
        if (op == 0) out = expf(v - a) * b;
        else if (op == 1) out = v * b * weight[c];
        else out = fmaf((v - a) * b, weight[c], bias[c]);
        cr_store(yr, c, out);
    }
}

template <typename T>
int cr_launch(int op, const void *x, void *y, const float *weight, const float *bias, float eps, long long rows,
              long long cols, long long reduce_cols, cudaStream_t stream)
{
    cr_rowwise_kernel<T><<<(unsigned)rows, CUB_ROW_THREADS, 0, stream>>>(op, (const T *)x, (T *)y, weight, bias, eps,
                                                                         cols, reduce_cols);
    return (int)cudaGetLastError();
}

int cr_fail(char *msg, size_t msg_len, const char *why, int code)
{
    if (msg && msg_len) snprintf(msg, msg_len, "cub row-wise composition: %s", why);
    return code;
}

} // namespace

extern "C" int shim_cub_rowwise(int op, int type, const void *x, void *y, const float *weight, const float *bias,
                                float eps, long long rows, long long cols, long long reduce_cols, cudaStream_t stream,
                                char *msg, size_t msg_len)
{
    try {
        int err;
        if (rows < 1 || rows > 0x7fffffffLL || cols < 1 || reduce_cols < 1 || reduce_cols > cols || !x || !y)
            return cr_fail(msg, msg_len, "bad sizes or pointers", (int)cudaErrorInvalidValue);
        if ((op == 1 || op == 2) && !weight) return cr_fail(msg, msg_len, "no weight", (int)cudaErrorInvalidValue);
        if (op == 2 && !bias) return cr_fail(msg, msg_len, "no bias", (int)cudaErrorInvalidValue);
        if (op < 0 || op > 2) return cr_fail(msg, msg_len, "unknown op", (int)cudaErrorInvalidValue);
        switch (type) {
        case 0: err = cr_launch<float>(op, x, y, weight, bias, eps, rows, cols, reduce_cols, stream); break;
        case 1: err = cr_launch<__half>(op, x, y, weight, bias, eps, rows, cols, reduce_cols, stream); break;
        case 2: err = cr_launch<__nv_bfloat16>(op, x, y, weight, bias, eps, rows, cols, reduce_cols, stream); break;
        default: return cr_fail(msg, msg_len, "unknown element type", (int)cudaErrorInvalidValue);
        }
        if (err != cudaSuccess) return cr_fail(msg, msg_len, cudaGetErrorString((cudaError_t)err), err);
        if (msg && msg_len) msg[0] = '\0';
        return 0;
    } catch (...) {
        return cr_fail(msg, msg_len, "a C++ exception", -1);
    }
}
