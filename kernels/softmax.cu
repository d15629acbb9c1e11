/* kernels/softmax.cu: the softmax ladder's first three rungs, each a block per
 * row that streams the row from global memory once per pass.
 *
 *   y[r][c] = exp(x[r][c] - max_r) / sum_c' exp(x[r][c'] - max_r)
 *
 * Idea, rung by rung (one kernel template, the rung a compile-time
 * parameter, so the three differ only in their passes):
 *   naive   two passes: sum exp(x), then y = exp(x) / sum. No maximum is
 *           subtracted: exp overflows FP32 once x passes about 88.7, the sum
 *           becomes inf and the row turns into zeros and NaNs. That is the
 *           lesson (the `wide` inputs show it); it is not guarded.
 *   safe    three passes: max, sum exp(x - max), then y = exp(x - max) / sum.
 *           Every exp argument is <= 0, so nothing overflows.
 *   online  two passes: the max and the sum in one, as a running pair
 *           (Milakov & Gimelshein, 2018): m' = max(m, x), d' = d exp(m - m') +
 *           exp(x - m'), rescaling once per pack of elements; threads, warps
 *           and the block merge their pairs by the same rule
 *           (softmax_md_merge); then the normalising pass.
 *
 * Memory traffic per row (B = cols * element bytes): naive 2B read + B
 * written, safe 3B + B, online 2B + B. A block's later passes re-read a row
 * it has just read, so they often hit L2 (50 MB on the H200), which flatters
 * the multi-pass rungs on rows that fit; the fused pick (softmax_fused.cu)
 * reads x once. Each pass issues SOFTMAX_STREAM_UNROLL loads per thread
 * before using them (softmax_common.cuh).
 *
 * Constraints (and why):
 *   - any rows, cols >= 1, 64-bit indices; SOFTMAX_LADDER_THREADS threads a
 *     row, the grid one block per row (capped at 2^31 - 1 blocks, the blocks
 *     then stride over the rows). Few long rows leave SMs idle: a rung's
 *     shape, not a bug. __launch_bounds__(256, 4): <= 64 registers a thread
 *     (without the cap ptxas picked fewer and spilled the row parity around
 *     the 1 / sum division's call).
 *   - 16-byte vector loads and stores when softmax_vec_ok (cols * bytes % 16
 *     == 0, both bases aligned), else one element per access; the kernel
 *     that ran is noted (kernel_ran_note), the scalar path with its reason.
 *
 * Run just these rungs:  ./compare --ops softmax --variants naive,safe,online
 */
#include "kernel_ran.h"
#include "softmax_common.cuh"

#define SOFTMAX_LADDER_THREADS 256 /* 8 warps a row */

static_assert(SOFTMAX_LADDER_THREADS % 32 == 0 && SOFTMAX_LADDER_THREADS / 32 <= SOFTMAX_MAX_WARPS,
              "the block reductions take whole warps, one shared slot each");

typedef enum { SOFTMAX_RUNG_NAIVE, SOFTMAX_RUNG_SAFE, SOFTMAX_RUNG_ONLINE } softmax_rung;

/* kernel names per rung, [rung][1: vector path] (kernel_ran_note wants static strings) */
static const char *const softmax_ladder_names[3][2] = {
    {"softmax_naive_scalar", "softmax_naive_vec16"},
    {"softmax_safe_scalar", "softmax_safe_vec16"},
    {"softmax_online_scalar", "softmax_online_vec16"},
};

// ---- the kernel -------------------------------------------------------------------

template <typename T, int VEC, int RUNG>
static __global__ void __launch_bounds__(SOFTMAX_LADDER_THREADS, 4)
softmax_ladder_kernel(const T *__restrict__ x, T *__restrict__ y, long long rows, long long cols)
{
    __shared__ float s_a[2][SOFTMAX_MAX_WARPS];
    __shared__ float s_b[2][SOFTMAX_MAX_WARPS];
    __shared__ softmax_md s_md[2][SOFTMAX_MAX_WARPS];
    const long long npacks = cols / VEC;
    const int tid = threadIdx.x, nthr = blockDim.x;
    int it = 0;
    for (long long r = blockIdx.x; r < rows; r += gridDim.x, it ^= 1) {
        const T *xr = x + r * cols;
        T *yr = y + r * cols;
        float m = 0.0f, d;
        if constexpr (RUNG == SOFTMAX_RUNG_NAIVE) {
            const float part = softmax_stream_fold<T, VEC, SOFTMAX_OP_SUM>(xr, npacks, 0.0f, tid, nthr);
            d = softmax_block_reduce<SOFTMAX_OP_SUM>(part, s_a[it]);
        } else if constexpr (RUNG == SOFTMAX_RUNG_SAFE) {
            const float top = softmax_stream_fold<T, VEC, SOFTMAX_OP_MAX>(xr, npacks, 0.0f, tid, nthr);
            m = softmax_block_reduce<SOFTMAX_OP_MAX>(top, s_a[it]);
            const float part = softmax_stream_fold<T, VEC, SOFTMAX_OP_SUM>(xr, npacks, m, tid, nthr);
            d = softmax_block_reduce<SOFTMAX_OP_SUM>(part, s_b[it]);
        } else {
            const softmax_md part = softmax_stream_md<T, VEC>(xr, npacks, tid, nthr);
            const softmax_md md = softmax_block_reduce<SOFTMAX_OP_MD>(part, s_md[it]);
            m = md.m;
            d = md.d;
        }
        softmax_stream_write<T, VEC>(xr, yr, npacks, m, 1.0f / d, tid, nthr);
    }
}

// ---- host side ---------------------------------------------------------------------

template <typename T, int RUNG>
static int softmax_ladder_run(const rowwise_args *a, cudaStream_t s)
{
    const T *x = (const T *)a->x;
    T *y = (T *)a->y;
    const dim3 grid(softmax_grid(a->rows));
    const int vec = softmax_vec_ok(a);
    if (vec)
        softmax_ladder_kernel<T, softmax_vec<T>::n, RUNG>
            <<<grid, SOFTMAX_LADDER_THREADS, 0, s>>>(x, y, a->rows, a->cols);
    else
        softmax_ladder_kernel<T, 1, RUNG><<<grid, SOFTMAX_LADDER_THREADS, 0, s>>>(x, y, a->rows, a->cols);
    kernel_ran_note(softmax_ladder_names[RUNG][vec], vec ? NULL : "rows not 16-byte aligned: one element an access");
    return (int)cudaGetLastError();
}

int softmax_naive(const rowwise_args *a, cudaStream_t s)
{
    return softmax_by_type(a, s, softmax_ladder_run<float, SOFTMAX_RUNG_NAIVE>,
                           softmax_ladder_run<__half, SOFTMAX_RUNG_NAIVE>,
                           softmax_ladder_run<__nv_bfloat16, SOFTMAX_RUNG_NAIVE>);
}

int softmax_safe(const rowwise_args *a, cudaStream_t s)
{
    return softmax_by_type(a, s, softmax_ladder_run<float, SOFTMAX_RUNG_SAFE>,
                           softmax_ladder_run<__half, SOFTMAX_RUNG_SAFE>,
                           softmax_ladder_run<__nv_bfloat16, SOFTMAX_RUNG_SAFE>);
}

int softmax_online(const rowwise_args *a, cudaStream_t s)
{
    return softmax_by_type(a, s, softmax_ladder_run<float, SOFTMAX_RUNG_ONLINE>,
                           softmax_ladder_run<__half, SOFTMAX_RUNG_ONLINE>,
                           softmax_ladder_run<__nv_bfloat16, SOFTMAX_RUNG_ONLINE>);
}
