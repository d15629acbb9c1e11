/* kernels/sgemm_tuned_tile.cuh: the one-block-per-tile kernels: tile (C from
 * registers), st (C staged) and sl (sliced-k: SL groups of warps share one
 * tile's k-slabs and sum their partial tiles in shared memory).
 *
 * Idea: a grid of one block per tile in GROUP-row grouped order
 * (kernels/common/tile_order.cuh) around the common main loop. sl gives a
 * small problem more warps on the same few tiles with no fix-ups through C;
 * its partial tiles are summed in a fixed order, so results are
 * deterministic. */
#ifndef KERNELS_SGEMM_TUNED_TILE_CUH
#define KERNELS_SGEMM_TUNED_TILE_CUH

#include "sgemm_tuned_mainloop.cuh" /* before the epilogue: the order of the original single file */
#include "sgemm_tuned_epilogue.cuh"

/* First column (x) and row (y) of C of this block's tile, on a grid of one
 * block per tile (tile / st / sl), the tiles in GROUP-row grouped order. */
template <int BM, int BN, int GROUP>
static __device__ __forceinline__ int2 sgemm_tuned_block_origin(void)
{
    int bx = blockIdx.x, by = blockIdx.y;
    if (GROUP > 0) {
        const int2 t = tile_order_grouped(by * (int)gridDim.x + bx, (int)gridDim.x, (int)gridDim.y,
                                          GROUP);
        bx = t.x, by = t.y;
    }
    return make_int2(bx * BN, by * BM);
}

/* STAGED 0: tile (C from registers); 1: st (C staged through shared memory). */
template <int BM, int BN, int BK, int WM, int WN, int TM, int TN, int ST, int MINB, int GROUP,
          int SP, int B0, int STAGED, int VEC>
static __global__ void __launch_bounds__(sgemm_tuned_threads(BM, BN, WM, WN), MINB)
sgemm_tuned_tile_kernel(const float *__restrict__ A, const float *__restrict__ B,
                        float *__restrict__ C, int m, int n, int k)
{
    sgemm_tuned_tile_checks<BM, BN, BK, WM, WN, TM, TN, ST, MINB, SP, B0>();
    constexpr int LM = WM / TM, LN = WN / TN;
    constexpr int WARPS_N = BN / WN;
    const int2 origin = sgemm_tuned_block_origin<BM, BN, GROUP>();
    const int bm = origin.y, bn = origin.x;
    const int tid = threadIdx.x;
    const int warp = tid / 32, lane = tid % 32;
    const int tm0 = (warp / WARPS_N) * WM + (lane / LN) * 4;
    const int tn0 = (warp % WARPS_N) * WN + (lane % LN) * 4;

    float acc[TM][TN];
    float a_f[3][TM], b_f[3][TN]; /* fragments: 2 buffers, 3 with a mid-slab barrier */
    sgemm_tuned_mainloop<BM, BN, BK, WM, WN, TM, TN, ST, SP, B0, VEC>(
        A, B, m, n, k, bm, bn, 0, SGEMM_CEIL_DIV(k, BK), tid, warp, lane, tm0, tn0, acc, a_f, b_f);
    if (STAGED)
        sgemm_tuned_store_staged<BM, BN, BK, WM, WN, TM, TN, ST, 0, VEC>(C, m, n, bm, bn, tid, warp,
                                                                         lane, tn0, acc);
    else
        sgemm_tuned_store_direct<TM, TN, LM, LN, VEC>(C, m, n, bm, bn, tm0, tn0, acc);
}

// ---- sl: sliced-k, one block per tile ------------------------------------------------

/* One block per tile, its k-slabs split between SL groups of warps (k-slices),
 * each group laid out like an st block (its own tid, warp tile and stage ring)
 * running the main loop over ns = ceil(slabs / SL) consecutive slabs (slabs
 * past k are zero-filled: the last slice may compute on zeros). Then every
 * slice writes its partial tile into shared memory ([SL][BM][BN+4], in the
 * stages, once every copy has drained), and all threads sum the SL partials
 * of each float4 in slice order (deterministic) and store it, a row of the
 * tile per warp.
 * Why: on small problems (129 .. 1024, m = 129 with a long n) the small
 * tile gives an SM one or two blocks of two warps, whose k-loops run at the
 * latency of their own shared-memory and FMA chains; slicing k gives the SM
 * SL times the warps on the same tiles, without stream-K's fix-ups through
 * global memory. The groups share the block's barriers (each slice passes
 * the same number: ns slabs), so a slow slice holds the others. */
template <int BM, int BN, int BK, int WM, int WN, int TM, int TN, int ST, int MINB, int GROUP,
          int SP, int B0, int SL, int VEC>
static __global__ void __launch_bounds__(SL * sgemm_tuned_threads(BM, BN, WM, WN), MINB)
sgemm_tuned_sliced_kernel(const float *__restrict__ A, const float *__restrict__ B,
                          float *__restrict__ C, int m, int n, int k)
{
    constexpr int T = sgemm_tuned_threads(BM, BN, WM, WN); /* threads of one slice */
    constexpr int RING = ST * sgemm_tuned_stage_floats(BM, BN, BK);
    constexpr int R_LD = BN + 4; /* partial tile row stride: rows 16-byte aligned */
    sgemm_tuned_tile_checks<BM, BN, BK, WM, WN, TM, TN, ST, 1, SP, B0>();
    static_assert(SL >= 2 && SL * T <= 1024, "2 or more slices, a block of <= 1024 threads");
    static_assert(SMEM_SM90_FITS(SL * RING * 4, MINB), "MINB blocks of SL rings fit in sm_90 shared memory");
    static_assert(BM * R_LD <= RING, "a slice's partial tile fits in its ring");
    constexpr int LM = WM / TM, LN = WN / TN;
    constexpr int WARPS_N = BN / WN;
    const int2 origin = sgemm_tuned_block_origin<BM, BN, GROUP>();
    const int bm = origin.y, bn = origin.x;
    const int slice = threadIdx.x / T; /* warp-uniform: T is a multiple of 32 */
    const int tid = threadIdx.x % T;
    const int warp = tid / 32, lane = tid % 32;
    const int tm0 = (warp / WARPS_N) * WM + (lane / LN) * 4;
    const int tn0 = (warp % WARPS_N) * WN + (lane % LN) * 4;
    const int ns = SGEMM_CEIL_DIV(SGEMM_CEIL_DIV(k, BK), SL);

    float acc[TM][TN];
    float a_f[3][TM], b_f[3][TN];
    sgemm_tuned_mainloop<BM, BN, BK, WM, WN, TM, TN, ST, SP, B0, VEC>(
        A, B, m, n, k, bm, bn, slice * ns, ns, tid, warp, lane, tm0, tn0, acc, a_f, b_f, slice * RING);

    /* the partial tiles: slice s at s * RING (its own ring, free once every
     * copy has landed and every slice is past its last reads) */
    float *smem = (float *)sgemm_tuned_smem;
    cp_async_wait(0);
    __syncthreads();
    float *part = smem + slice * RING;
#pragma unroll
    for (int i = 0; i < TM; ++i) {
        const int r = tm0 + (i / 4) * (LM * 4) + i % 4;
#pragma unroll
        for (int j4 = 0; j4 < TN / 4; ++j4)
            *(float4 *)&part[r * R_LD + tn0 + j4 * (LN * 4)] =
                make_float4(acc[i][j4 * 4 + 0], acc[i][j4 * 4 + 1], acc[i][j4 * 4 + 2], acc[i][j4 * 4 + 3]);
    }
    __syncthreads();
    if constexpr (VEC == SGEMM_TUNED_VEC_LANES) {
        /* rows of C not 16-byte aligned: one element a lane, consecutive lanes
         * on consecutive columns (sgemm_tuned_edge.cuh), summed in slice order */
        for (int e = threadIdx.x; e < BM * BN; e += SL * T) {
            const int r = e / BN, c = e % BN;
            float v = smem[r * R_LD + c];
#pragma unroll
            for (int s = 1; s < SL; ++s)
                v += smem[s * RING + r * R_LD + c];
            const int gr = bm + r;
            sgemm_tuned_put1(C + (size_t)(gr < m ? gr : 0) * n, gr < m, bn + c, n, 0, v);
        }
    } else {
        for (int e = threadIdx.x; e < BM * (BN / 4); e += SL * T) {
            const int r = e / (BN / 4), c = e % (BN / 4) * 4;
            float4 v = *(const float4 *)&smem[r * R_LD + c];
#pragma unroll
            for (int s = 1; s < SL; ++s) {
                const float4 p = *(const float4 *)&smem[s * RING + r * R_LD + c];
                v.x += p.x, v.y += p.y, v.z += p.z, v.w += p.w;
            }
            const int gr = bm + r;
            sgemm_store4(C + (size_t)(gr < m ? gr : 0) * n, gr < m, bn + c, n, VEC == SGEMM_TUNED_VEC_16B, v);
        }
    }
}

#endif
