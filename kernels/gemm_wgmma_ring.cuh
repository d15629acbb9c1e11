/* kernels/gemm_wgmma_ring.cuh: the producer of the persistent TMA GEMMs'
 * shared-memory ring, one template for every element type: the TF32 kernel
 * (sgemm_tf32_tma_pers.cuh, T = ELEM_FP32) and the fp16 / bf16 / fp8 one
 * (gemm_wgmma_kernel.cuh), with the tile placement of each.
 *
 * Idea: one thread walks this cluster's work items (sgemm_tmap_items /
 * sgemm_tmap_item: whole tiles, split-k parts, split-tail pieces) and, for
 * every 128-byte slab of K, waits until every consumer warp of the cluster
 * has released the stage's previous round (empty[s], parity ph ^ 1; round 0
 * passes at once), arms full[s] with the whole stage's bytes (BM + BN rows
 * of 128 bytes, for every type: TF32's 32 k x 4 B, fp16's 64 x 2 B, fp8's
 * 128 x 1 B) and issues its TMA boxes. What the type changes is only which
 * boxes, and which operand a cluster of two shares:
 *   T = ELEM_FP32 (TF32, C^T = B^T A^T): A box of BM / CL rows x 32 k,
 *     multicast (the pair sits side by side along n, the same rows of A),
 *     B as 4 boxes of 32 n x 32 k; tiles placed by sgemm_tmap_tile.
 *   16-bit and fp8 types (C = A B): A box of BM rows x BKE k, this CTA's
 *     own; B, the multicast operand (the pair sits one above the other
 *     along m, the same columns of B): K-major (tn), BN / CL rows x BKE k;
 *     or N-major (TB, nn), BN / 64 / CL boxes of 64 n x 64 k; tiles placed
 *     by gemm_wg_tile.
 * The ring's barriers are set up by gemm_tma_ring_init, for both.
 * The TF32 kernels built through this template are instruction for
 * instruction those built from the loop it replaced (tests/sass_compare.sh). */
#ifndef KERNELS_GEMM_WGMMA_RING_CUH
#define KERNELS_GEMM_WGMMA_RING_CUH

#include <cuda.h>

#include "elem_type.h"
#include "sgemm_tf32_tma_ptx.cuh"
#include "sgemm_tf32_tma_sched.cuh"
#include "sgemm_tf32_tma_tile.cuh"
#include "tile_order.cuh"

#define GEMM_WG_ROW_BYTES 128 /* bytes of K per slab: one 128-byte swizzle row */
#define GEMM_WG_NBOX_BYTES (64 * GEMM_WG_ROW_BYTES) /* N-major B box: 64 k rows x 64 n (16-bit) */
/* elements of an element type T in one 128-byte slab row */
#define GEMM_WG_BKE(T) ((T) == ELEM_FP8_E4M3 ? 128 : (T) == ELEM_FP32 ? 32 : 64)

/* 16-bit / fp8 types: tile unit u's tile for this CTA, a pair (CL = 2) of
 * BM x BN tiles one above the other, or one tile, in the grouped order over
 * units_m unit rows x tiles_n columns: rows bm0.. (past m for the lower
 * member of an odd last pair, which loads zeros, stores nothing and still
 * multicasts its half of B), columns bn0.. */
static __device__ __forceinline__ void gemm_wg_tile(int u, int tiles_n, int units_m, unsigned rank,
                                                    const int BM, const int BN, const int CL, int *bm0,
                                                    int *bn0)
{
    const int2 t = tile_order_grouped(u, tiles_n, units_m, SGEMM_WG_GROUP_M);
    *bm0 = (t.y * CL + (int)rank) * BM;
    *bn0 = t.x * BN;
}

/* The ring's barriers, by thread 0: full[s] (count 1: this CTA's
 * producer's arrive.expect_tx) and empty[s] (`consumers`: one arrive per
 * consumer warp of the cluster), fenced for the async proxy; then, with
 * CL = 2, a cluster barrier, so that the peer's barriers are initialised
 * before anyone arrives on them or multicasts into them (else a CTA
 * barrier). Every thread of the CTA calls it. */
static __device__ __forceinline__ void gemm_tma_ring_init(unsigned bars, int tid, const int ST, const int consumers,
                                                          const int CL)
{
    if (tid == 0) {
        for (int s = 0; s < ST; s++) {
            sgemm_tma_bar_init(bars + 8 * s, 1);
            sgemm_tma_bar_init(bars + 8 * (ST + s), consumers);
        }
        sgemm_tma_bar_init_fence();
    }
    if (CL > 1)
        sgemm_tma_cluster_sync();
    else
        __syncthreads();
}

/* The producer thread of a persistent ring of ST stages (A stages at smem,
 * B stages at b_st, full[ST] then empty[ST] barriers at bars): every slab of
 * this cluster's `items` work items (SK: the schedule, sgemm_tmap_item).
 * grid_n x grid_m: the unit grid of the tile placement (TF32: unit columns x
 * tile rows; others: tile columns x unit rows). */
template <int T, int BM, int BN, int ST, int CL, int TB, int SK>
static __device__ __forceinline__ void gemm_tma_ring_produce(const CUtensorMap *ta, const CUtensorMap *tb,
                                                             unsigned smem, unsigned b_st, unsigned bars,
                                                             unsigned rank, int items, int first, int step,
                                                             int units, int grid_n, int grid_m, int KT,
                                                             const sgemm_tmap_sched &sc)
{
    constexpr int BKE = GEMM_WG_BKE(T);
    constexpr unsigned ASTAGE = BM * GEMM_WG_ROW_BYTES, BSTAGE = BN * GEMM_WG_ROW_BYTES;
    static_assert(T != ELEM_FP32 || (BN == 128 && !TB), "TF32: 128 columns, B N-major in 32 x 32 boxes");
    int s = 0;
    unsigned ph = 0; /* round parity of stage s */
    for (int it = 0; it < items; it++) {
        int u, bm0, bn0, kt0, kt1;
        sgemm_tmap_item(it, first, step, units, KT, sc, SK, &u, &kt0, &kt1);
        if (T == ELEM_FP32)
            sgemm_tmap_tile(u, grid_n, grid_m, rank, BM, CL, &bm0, &bn0);
        else
            gemm_wg_tile(u, grid_n, grid_m, rank, BM, BN, CL, &bm0, &bn0);
        for (int kt = kt0; kt < kt1; kt++) {
            const unsigned full = bars + 8 * s;
            /* round r of stage s: every consumer warp of the cluster
             * released round r - 1 (round 0: parity 1 passes at once) */
            sgemm_tma_bar_wait(bars + 8 * (ST + s), ph ^ 1u);
            sgemm_tma_bar_expect(full, ASTAGE + BSTAGE);
            const unsigned as = smem + s * ASTAGE;
            const unsigned bs = b_st + s * BSTAGE;
            if (T == ELEM_FP32) {
                if (CL == 1)
                    sgemm_tma_load(as, ta, kt * BKE, bm0, full);
                else /* rows rank x BM / CL.. of the A slab, into both CTAs */
                    sgemm_tma_load_mc(as + rank * (ASTAGE / CL), ta, kt * BKE, bm0 + (int)rank * (BM / CL),
                                      full, (unsigned short)((1u << CL) - 1u));
#pragma unroll
                for (int j = 0; j < 4; j++)
                    sgemm_tma_load(bs + j * SGEMM_TMA_BOX_BYTES, tb, bn0 + 32 * j, kt * BKE, full);
            } else {
                sgemm_tma_load(as, ta, kt * BKE, bm0, full);
                if (!TB) { /* K-major B: rows rank x BN / CL.. of the slab, into both CTAs */
                    if (CL == 1)
                        sgemm_tma_load(bs, tb, kt * BKE, bn0, full);
                    else
                        sgemm_tma_load_mc(bs + rank * (BSTAGE / CL), tb, kt * BKE, bn0 + (int)rank * (BN / CL),
                                          full, (unsigned short)((1u << CL) - 1u));
                } else { /* N-major B: this CTA's share of the 64 n x 64 k boxes */
                    constexpr int NB = BN / 64 / CL;
#pragma unroll
                    for (int j = 0; j < NB; j++) {
                        const int jj = (int)rank * NB + j;
                        if (CL == 1)
                            sgemm_tma_load(bs + jj * GEMM_WG_NBOX_BYTES, tb, bn0 + 64 * jj, kt * BKE, full);
                        else
                            sgemm_tma_load_mc(bs + jj * GEMM_WG_NBOX_BYTES, tb, bn0 + 64 * jj, kt * BKE, full,
                                              (unsigned short)((1u << CL) - 1u));
                    }
                }
            }
            if (++s == ST) {
                s = 0;
                ph ^= 1u;
            }
        }
    }
}

#endif
