/* kernels/gemv_splitk.cu: gemv_splitk, y = A x for short, wide matrices (m
 * small, k large), where one warp per row would leave most SMs idle: each
 * row is cut into chunks, a warp per (row, chunk), so that even m = 1 puts
 * thousands of warps, and their loads, on the GPU.
 *
 * Idea: pass 1 (gemv_splitk_partial) reads chunk c of row i with a warp (the
 * same loop as gemv_warp: 16-byte streaming loads of A, GEMV_UNROLL of them
 * in flight a lane, x through L1) and writes the FP32 partial to
 * scratch[c * m + i]; pass 2 (gemv_splitk_finish) adds row i's partials in
 * chunk order and rounds once to the type. No atomics: the result is the
 * same bits on every run, and the output type is never accumulated in.
 * The split (gemv_plan.h, gemv_splitk_plan) aims at GEMV_SPLITK_WARPS warps
 * in all, each chunk at least one full warp step; a matrix tall enough to
 * need no split (splits = 1) runs gemv_warp itself, and says so.
 *
 * Traffic: A and x once (x's re-reads from L1 / L2) plus 8 bytes per
 * (row, chunk) of scratch written and read back, small next to A: a split
 * is only chosen when there are fewer rows than the warp target.
 *
 * Constraints: any m, k >= 1; scratch of gemv_splitk_scratch_bytes(m, k,
 * type) (the larger of the aligned and unaligned plans: the pointers are not
 * known to the query). Nothing in scratch survives a call. */
#include "gemv_common.cuh"
#include "kernel_ran.h"

template <typename T, bool VEC>
static __global__ void __launch_bounds__(GEMV_BLOCK) gemv_splitk_partial(const T *__restrict__ A,
                                                                         const T *__restrict__ x,
                                                                         float *__restrict__ part, long long m,
                                                                         long long k, long long chunk)
{
    const long long row = ((long long)blockIdx.x * GEMV_BLOCK + threadIdx.x) / 32;
    const long long c = blockIdx.y;
    const int lane = (int)(threadIdx.x % 32);
    const long long lo = c * chunk;
    const long long n = row < m ? (k - lo < chunk ? k - lo : chunk) : 0;
    float acc[1] = {0.0f};
    gemv_lane_dot<T, VEC, 32, 1>(A + (row < m ? row : 0) * k + lo, k, x + lo, n, lane, acc);
    const float v = gemv_group_sum<32>(acc[0]);
    if (row < m && lane == 0) part[c * m + row] = v;
}

template <typename T>
static __global__ void gemv_splitk_finish(const float *__restrict__ part, T *__restrict__ y, long long m,
                                          long long splits)
{
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < m; i += (long long)gridDim.x * blockDim.x) {
        float acc = 0.0f;
        for (long long c = 0; c < splits; c++) acc += part[c * m + i];
        y[i] = gemv_from_f<T>(acc);
    }
}

template <typename T> static int gemv_splitk_typed(const gemv_args *a, cudaStream_t s)
{
    const bool vec = gemv_vec_ok(a, (int)sizeof(T));
    const gemv_split sp = gemv_splitk_plan(a->m, a->k, (int)sizeof(T), vec);
    const long long warps_per_block = GEMV_BLOCK / 32;
    const long long blocks = (a->m + warps_per_block - 1) / warps_per_block;
    if (sp.splits <= 1) {
        int rc = gemv_warp(a, s); /* notes its own kernel; the reason follows */
        kernel_ran_note(kernel_ran_name(), "enough rows to fill the GPU: no split (gemv_warp)");
        return rc;
    }
    if (!a->scratch || a->scratch_bytes < gemv_split_scratch(a->m, &sp) || blocks > 0x7fffffffLL)
        return (int)cudaErrorInvalidValue;
    kernel_ran_note(vec ? "gemv_splitk_v16" : "gemv_splitk_e1",
                    vec ? NULL : "rows or x not 16-byte aligned: one element a load");
    const dim3 grid((unsigned)blocks, (unsigned)sp.splits);
    float *part = (float *)a->scratch;
    if (vec)
        gemv_splitk_partial<T, true><<<grid, GEMV_BLOCK, 0, s>>>((const T *)a->A, (const T *)a->x, part, a->m, a->k,
                                                                 sp.chunk);
    else
        gemv_splitk_partial<T, false><<<grid, GEMV_BLOCK, 0, s>>>((const T *)a->A, (const T *)a->x, part, a->m, a->k,
                                                                  sp.chunk);
    int rc = (int)cudaGetLastError();
    if (rc != (int)cudaSuccess) return rc;
    const long long fin = (a->m + 255) / 256;
    gemv_splitk_finish<T><<<(unsigned)(fin < 4096 ? fin : 4096), 256, 0, s>>>(part, (T *)a->y, a->m, sp.splits);
    return (int)cudaGetLastError();
}

extern "C" size_t gemv_splitk_scratch_bytes(long long m, long long k, int type)
{
    const int bytes = elem_type_bytes((elem_type)type);
    if (m < 1 || k < 1 || bytes < 1) return 0;
    const gemv_split v = gemv_splitk_plan(m, k, bytes, 1), e = gemv_splitk_plan(m, k, bytes, 0);
    const size_t sv = gemv_split_scratch(m, &v), se = gemv_split_scratch(m, &e);
    return sv > se ? sv : se;
}

extern "C" int gemv_splitk(const gemv_args *a, cudaStream_t s)
{
    if (!a || a->m < 1 || a->k < 1 || !a->A || !a->x || !a->y) return (int)cudaErrorInvalidValue;
    switch (a->type) {
    case ELEM_FP32: return gemv_splitk_typed<float>(a, s);
    case ELEM_FP16: return gemv_splitk_typed<__half>(a, s);
    case ELEM_BF16: return gemv_splitk_typed<__nv_bfloat16>(a, s);
    default: return (int)cudaErrorInvalidValue;
    }
}
