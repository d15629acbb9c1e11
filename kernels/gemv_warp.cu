/* kernels/gemv_warp.cu: gemv_warp, y = A x with a group of lanes per row:
 * a whole warp for long rows, narrower groups (down to one lane) for short
 * ones, so that a warp reads 32 / G rows at once instead of idling.
 *
 * Idea: GEMV is a stream of A (m k elements, read once) against a small x
 * (k elements, read by every row). Each lane issues GEMV_UNROLL 16-byte
 * loads of its row before the first FMA (gemv_common.cuh), a shuffle tree
 * adds the group's partials, and one lane rounds the FP32 sum to the type.
 * x stays in L1 / L2: the A stream skips L1 so it does not evict it.
 *
 * Traffic: A and x read and y written once from DRAM's point of view; x's
 * re-reads hit the caches. Grid: GEMV_BLOCK threads a block, rows spread
 * over as many blocks as they fill, so a tall matrix (m in the thousands)
 * puts several blocks on every SM.
 *
 * Constraints: any m, k >= 1; the 16-byte path needs A and x 16-byte
 * aligned and k * element bytes a multiple of 16 (else one element a load).
 * Few rows (m small, k large) leave most SMs idle here: gemv_splitk is for
 * those. No scratch. */
#include "gemv_common.cuh"
#include "kernel_ran.h"

template <typename T, bool VEC, int G, int R>
static __global__ void __launch_bounds__(GEMV_BLOCK) gemv_warp_kernel(const T *__restrict__ A,
                                                                      const T *__restrict__ x, T *__restrict__ y,
                                                                      long long m, long long k)
{
    static_assert(R == 1 || R == 2, "a group past the last row re-reads its first row: two rows at most");
    const long long row = ((long long)blockIdx.x * GEMV_BLOCK + threadIdx.x) / G * R;
    const int lane = (int)(threadIdx.x % G);
    /* a group past m reads nothing but still joins its warp's shuffles; a
     * second row past m re-reads the first (lda 0) and is not stored */
    const long long n = row < m ? k : 0, lda = row + R - 1 < m ? k : 0;
    float acc[R];
#pragma unroll
    for (int r = 0; r < R; r++) acc[r] = 0.0f;
    gemv_lane_dot<T, VEC, G, R>(A + (row < m ? row : 0) * k, lda, x, n, lane, acc);
#pragma unroll
    for (int r = 0; r < R; r++) {
        const float v = gemv_group_sum<G>(acc[r]);
        if (row + r < m && lane == 0) y[row + r] = gemv_from_f<T>(v);
    }
}

template <typename T, bool VEC, int G> static int gemv_warp_launch(const gemv_args *a, cudaStream_t s)
{
    enum { R = VEC && G == 32 ? 2 : 1 }; /* gemv_rows_per_group */
    const long long rows_per_block = GEMV_BLOCK / G * R;
    const long long blocks = (a->m + rows_per_block - 1) / rows_per_block;
    if (blocks > 0x7fffffffLL) return (int)cudaErrorInvalidValue;
    gemv_warp_kernel<T, VEC, G, R><<<(unsigned)blocks, GEMV_BLOCK, 0, s>>>((const T *)a->A, (const T *)a->x,
                                                                           (T *)a->y, a->m, a->k);
    return (int)cudaGetLastError();
}

/* the kernel's name for the `kernel` column: 16-byte or element loads, lanes
 * per row (and rows per group where it is 2) */
static const char *gemv_warp_name(bool vec, int g)
{
    static const char *const names[2][6] = {
        {"gemv_warp_e1_g1", "gemv_warp_e1_g2", "gemv_warp_e1_g4", "gemv_warp_e1_g8", "gemv_warp_e1_g16",
         "gemv_warp_e1_g32"},
        {"gemv_warp_v16_g1", "gemv_warp_v16_g2", "gemv_warp_v16_g4", "gemv_warp_v16_g8", "gemv_warp_v16_g16",
         "gemv_warp_v16_g32_2rows"}};
    int i = 0;
    while ((1 << i) < g && i < 5) i++;
    return names[vec][i];
}

template <typename T> static int gemv_warp_typed(const gemv_args *a, cudaStream_t s)
{
    const bool vec = gemv_vec_ok(a, (int)sizeof(T));
    const int g = gemv_group_lanes(a->k, (int)sizeof(T), vec);
    /* gemv_warp_launch's R is gemv_rows_per_group's rule written as a constant */
    if (gemv_rows_per_group(g, vec) != (vec && g == 32 ? 2 : 1)) return (int)cudaErrorInvalidValue;
    kernel_ran_note(gemv_warp_name(vec, g), vec ? NULL : "rows or x not 16-byte aligned: one element a load");
    switch (g) {
    case 1: return vec ? gemv_warp_launch<T, true, 1>(a, s) : gemv_warp_launch<T, false, 1>(a, s);
    case 2: return vec ? gemv_warp_launch<T, true, 2>(a, s) : gemv_warp_launch<T, false, 2>(a, s);
    case 4: return vec ? gemv_warp_launch<T, true, 4>(a, s) : gemv_warp_launch<T, false, 4>(a, s);
    case 8: return vec ? gemv_warp_launch<T, true, 8>(a, s) : gemv_warp_launch<T, false, 8>(a, s);
    case 16: return vec ? gemv_warp_launch<T, true, 16>(a, s) : gemv_warp_launch<T, false, 16>(a, s);
    default: return vec ? gemv_warp_launch<T, true, 32>(a, s) : gemv_warp_launch<T, false, 32>(a, s);
    }
}

extern "C" int gemv_warp(const gemv_args *a, cudaStream_t s)
{
    if (!a || a->m < 1 || a->k < 1 || !a->A || !a->x || !a->y) return (int)cudaErrorInvalidValue;
    switch (a->type) {
    case ELEM_FP32: return gemv_warp_typed<float>(a, s);
    case ELEM_FP16: return gemv_warp_typed<__half>(a, s);
    case ELEM_BF16: return gemv_warp_typed<__nv_bfloat16>(a, s);
    default: return (int)cudaErrorInvalidValue;
    }
}
