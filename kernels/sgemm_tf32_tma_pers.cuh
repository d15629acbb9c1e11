/* kernels/sgemm_tf32_tma_pers.cuh: the persistent TF32 TMA GEMM (KIND 1 of
 * sgemm_tf32_tma.cuh, names ..._pers, ..._pers_c2): warp-specialised, a
 * producer warpgroup feeding two consumer warpgroups across tile units, in
 * clusters of one or two CTAs sharing A by TMA multicast. Its mainloop; the
 * schedules are in sgemm_tf32_tma_sched.cuh, the epilogues in
 * sgemm_tf32_tma_epilogue.cuh.
 *
 * Idea: the math, fragments, descriptors, swizzle and stores of the tile
 * kernel (sgemm_tf32_tma_tile.cuh); what changes is who does what, and for
 * how long.
 *   - Persistent grid: min(units, resident clusters) clusters (the launcher
 *     asks cudaOccupancyMaxActiveClusters once per device), each walking its
 *     work items (sgemm_tmap_items: whole units, split-k parts, split-tail
 *     pieces).
 *   - Warp specialisation: 384 threads, warpgroup 0 the producer (one thread
 *     issues every TMA copy, gemm_tma_ring_produce, the one template of
 *     every element type's ring, gemm_wgmma_ring.cuh; setmaxnreg.dec to 40
 *     registers), warpgroups 1
 *     and 2 the consumers (setmaxnreg.inc to 232; 128 x 40 + 256 x 232 fits
 *     the 64 K register file). The ring runs across units: the producer
 *     keeps loading the next unit's slabs into the stages the consumers
 *     free, so one unit's epilogue overlaps the next unit's loads, and no
 *     thread that computes ever waits on an empty stage.
 *   - Fragment prefetch (PF, _pf): slab kt + 1's B^T fragments are loaded
 *     into a second register set while slab kt's batch runs, so that the
 *     next batch issues right behind the wait_group 0 rather than behind
 *     the LDS; the stage is released at the same point as without it, so
 *     the ring's lookahead is unchanged.
 *   - Ping-pong (PP, _pp) across the CTA's whole run of slabs, not per tile:
 *     a per-tile pattern would let warpgroup 0 arrive twice on a named
 *     barrier across a tile boundary before 1 waits once (a barrier
 *     generation completed by one warpgroup alone: a hang at the end).
 *   - Cluster of 2 (CL = 2, _c2): each CTA's producer loads half of the A
 *     slab (BM / 2 rows: the A tensor map's box) and multicasts it to both
 *     CTAs (same shared offset, completing the same full barrier in each),
 *     and loads its own B. L2 -> SM traffic per slab drops from A + B to
 *     A / 2 + B per CTA. Barriers: full[s] counts the local producer's one
 *     arrive.expect_tx of the whole stage (the peer's bytes may land first:
 *     the tx count goes negative, the phase cannot complete before the
 *     local arrive); empty[s] counts 8 consumer warps x 2 CTAs, each warp
 *     arriving on both CTAs' empty[s] (mapa + remote arrive) after its
 *     wgmma retired, since either producer's multicast writes into both. A
 *     producer writes round r of stage s only after empty[s] completed round
 *     r - 1 (parity ph ^ 1; round 0 passes at once), so neither CTA's stage
 *     is overwritten while the other's consumers still read it. Both CTAs
 *     walk the same units and the same k slabs in the same order (the right
 *     member of an odd last pair loads zeros past n and stores nothing), so
 *     the rounds match. Start: barrier init + fence, then a cluster barrier
 *     before anyone arrives remotely or multicasts. Exit: a cluster barrier,
 *     so no CTA leaves while its peer may still arrive on its barriers
 *     (every multicast into a CTA has landed before its own consumers
 *     finish: they waited for each full barrier).
 *
 * Constraints: __launch_bounds__(384, 1) on the kernel: without the
 * min-blocks bound ptxas drops setmaxnreg altogether (C7508), and at the
 * launch bound's 168 registers the BM = 256 consumers (128 accumulators + 16
 * fragments, or 32 with PF) hold no other live state across the loop (the
 * split-k count is a compile-time 1 without SK 1). */
#ifndef KERNELS_SGEMM_TF32_TMA_PERS_CUH
#define KERNELS_SGEMM_TF32_TMA_PERS_CUH

#include <cuda.h>

#include "gemm_wgmma_ring.cuh"
#include "sgemm_tf32_tma_epilogue.cuh"
#include "sgemm_tf32_tma_ptx.cuh"
#include "sgemm_tf32_tma_sched.cuh"
#include "sgemm_tf32_tma_tile.cuh"

#define SGEMM_TMAP_THREADS 384    /* producer warpgroup + 2 consumer warpgroups */
#define SGEMM_TMAP_PROD_REGS 40   /* setmaxnreg of the producer warpgroup */
#define SGEMM_TMAP_CONS_REGS 232  /* of each consumer warpgroup: 128 x 40 + 256 x 232 <= 64 K */

/* KIND 1 consumer warpgroup cw: one slab's batch (4 wgmma on fragments f and
 * the A stage at a_stage), in ping-pong order when PP (see the loop in
 * sgemm_tmap_body): warpgroup 1 waits on named barrier 1 before every slab,
 * 0 on barrier 2 unless `first_slab`; 0 arrives on 1 after every slab, 1 on
 * 2 unless `last_slab` */
static __device__ __forceinline__ void sgemm_tmap_batch(float *d, unsigned *f, unsigned a_stage, const int BM,
                                                        const int PP, int cw, int first_slab, int last_slab)
{
    if (PP && cw == 1)
        sgemm_tma_named_sync(1, 256);
    else if (PP && cw == 0 && !first_slab)
        sgemm_tma_named_sync(2, 256);
    sgemm_wg_mma_slab(d, f, a_stage, BM);
    if (PP && cw == 0)
        sgemm_tma_named_arrive(1, 256);
    else if (PP && cw == 1 && !last_slab)
        sgemm_tma_named_arrive(2, 256);
}

/* KIND 1: stage `empty` (its empty barrier) read by this warp (fragments
 * loaded, wgmma retired): lane 0 releases it to the producer of every CTA
 * of the cluster that writes into it */
static __device__ __forceinline__ void sgemm_tmap_release(unsigned empty, int lane, const int CL)
{
    if (lane == 0) {
        if (CL == 1)
            sgemm_tma_bar_arrive(empty);
        else
            for (unsigned r = 0; r < (unsigned)CL; r++)
                sgemm_tma_bar_arrive_cluster(sgemm_tma_mapa(empty, r));
    }
}

// ---- KIND 1 mainloop ----------------------------------------------------------------

/* BM rows x 128 columns a CTA, ST stages, PP ping-pong, CL CTAs a cluster,
 * SK the schedule (0 whole tiles, 1 split k, 4 split tail), PF fragment
 * prefetch */
template <int BM, int ST, int PP, int CL, int SK, int PF>
static __device__ __forceinline__ void sgemm_tmap_body(const CUtensorMap *ta, const CUtensorMap *tb,
                                                       float *C, int m, int n, int k,
                                                       const sgemm_tmap_sched &sc)
{
    constexpr int NWG = 2;
    extern __shared__ float4 sgemm_tma_smem4[];
    const unsigned raw = smem_u32(sgemm_tma_smem4);
    const unsigned smem = (raw + 1023u) & ~1023u;       /* ST A stages, ST B stages, barriers */
    const unsigned b_st = smem + ST * SGEMM_TMA_ASTAGE(BM);
    const unsigned bars = b_st + ST * SGEMM_TMA_BSTAGE(NWG); /* full[ST], then empty[ST] */
    const int tid = threadIdx.x;
    const unsigned rank = CL > 1 ? sgemm_tma_cluster_rank() : 0u;
    const int tiles_m = (m + BM - 1) / BM;
    const int units_n = ((n + 127) / 128 + CL - 1) / CL;
    const int KT = (k + SGEMM_TMA_BK - 1) / SGEMM_TMA_BK;
    /* without split k a compile-time 1, no register (BM = 256 is at ptxas's limit) */
    const int nsplit = SK == 1 ? sc.nsplit : 1;
    const int units = tiles_m * units_n * nsplit; /* < 2^31: checked by the launcher */
    const int first = (int)blockIdx.x / CL, step = (int)gridDim.x / CL; /* cluster id, count */
    const int items = sgemm_tmap_items(first, step, units, KT, sc, SK); /* this cluster's */

    gemm_tma_ring_init(bars, tid, ST, 4 * NWG * CL, CL);

    if (tid < 128) {
        /* producer warpgroup: gives its registers to the consumers; one thread issues */
        asm volatile("setmaxnreg.dec.sync.aligned.u32 40;\n" ::: "memory");
        if (tid == 0) /* the ring's producer, shared with the fp16 / bf16 / fp8 GEMM */
            gemm_tma_ring_produce<ELEM_FP32, BM, 128, ST, CL, 0, SK>(ta, tb, smem, b_st, bars, rank, items, first,
                                                                      step, units, units_n, tiles_m, KT, sc);
    } else {
        asm volatile("setmaxnreg.inc.sync.aligned.u32 232;\n" ::: "memory");
        /* consumer warpgroup cw: fragments and stores as sgemm_tma_body (the
         * lines are repeated, not shared: a helper changed the generated code) */
        const int cw = (tid >> 7) - 1, ct = tid & 127;
        const int w = ct >> 5, lane = ct & 31, g = lane >> 2, t = lane & 3;
        const int q = (g & 1) + 8 * ((g >> 1) & 1) + 2 * (g >> 2) + 4 * (w & 1);
        const int n0 = 64 * cw + 32 * (w >> 1) + 2 * q; /* this thread's n pair in the tile */
        const int box = (n0 >> 5) * SGEMM_TMA_BOX_BYTES + (n0 & 3) * 4;
        const int chunk = (n0 & 31) >> 2;
        const unsigned lo = b_st + box + t * 128 + ((chunk ^ t) << 4);             /* k = 8 j + t */
        const unsigned hi = b_st + box + (t + 4) * 128 + ((chunk ^ (t + 4)) << 4); /* k = 8 j + t + 4 */
        int s = 0;
        unsigned ph = 0;
        unsigned f[PF ? 2 : 1][16]; /* fragment sets: two with _pf */
        float d[BM / 2];
        for (int it = 0; it < items; it++) {
            int u, bm0, bn0, kt0, kt1;
            sgemm_tmap_item(it, first, step, units, KT, sc, SK, &u, &kt0, &kt1);
            sgemm_tmap_tile(u, units_n, tiles_m, rank, BM, CL, &bm0, &bn0);
#pragma unroll
            for (int i = 0; i < BM / 2; i++) {
                d[i] = 0.0f;
                sgemm_wg_fence_operand(&d[i]);
            }
            /* _pf: slab kt + 1's fragments are loaded into the other set
             * while slab kt's batch runs, so that the next batch issues
             * right behind this one's wait_group 0 instead of behind its
             * LDS, the unit's first slab's before its loop; the loop is unrolled
             * by two so that each set is a fixed group of registers. Without
             * _pf each slab's fragments are loaded just before its batch. */
            constexpr int UNROLL = PF ? 2 : 1;
            if (PF) {
                sgemm_tma_bar_wait(bars + 8 * s, ph);
                sgemm_tma_frags(lo + s * SGEMM_TMA_BSTAGE(NWG), hi + s * SGEMM_TMA_BSTAGE(NWG), f[0]);
            }
#pragma unroll 1
            for (int k2 = kt0; k2 < kt1; k2 += UNROLL) {
#pragma unroll
                for (int h = 0; h < UNROLL; h++) {
                    const int kt = k2 + h;
                    if (kt >= kt1)
                        break;
                    if (!PF) {
                        sgemm_tma_bar_wait(bars + 8 * s, ph);
                        sgemm_tma_frags(lo + s * SGEMM_TMA_BSTAGE(NWG), hi + s * SGEMM_TMA_BSTAGE(NWG), f[0]);
                    }
                    __syncwarp();
                    /* PP: strict alternation over the CTA's whole run of
                     * slabs, across units (0 issues, then 1, then 0 its
                     * next...): 0 arrives on named barrier 1 after every
                     * slab, 1 waits for it before every slab; 1 arrives on
                     * barrier 2 after every slab but the CTA's last, 0 waits
                     * for it before every slab but the CTA's first (units are
                     * never empty, so both counts match). Each arrival is
                     * consumed before the next one: no barrier ever holds two
                     * generations (a per-unit pattern would let 0 arrive
                     * twice on barrier 1 across a unit boundary). */
                    sgemm_tmap_batch(d, f[PF ? h : 0], smem + s * SGEMM_TMA_ASTAGE(BM), BM, PP, cw,
                                     it == 0 && kt == kt0, it + 1 == items && kt + 1 == kt1);
                    const int s1 = s + 1 == ST ? 0 : s + 1;
                    const unsigned ph1 = s + 1 == ST ? ph ^ 1u : ph;
                    if (PF && kt + 1 < kt1) {
                        sgemm_tma_bar_wait(bars + 8 * s1, ph1);
                        sgemm_tma_frags(lo + s1 * SGEMM_TMA_BSTAGE(NWG), hi + s1 * SGEMM_TMA_BSTAGE(NWG),
                                        f[PF ? h ^ 1 : 0]);
                    }
                    __syncwarp();
                    sgemm_wg_wait0();
                    __syncwarp();
                    /* stage s read (fragments loaded, wgmma retired) */
                    sgemm_tmap_release(bars + 8 * (ST + s), lane, CL);
                    s = s1;
                    ph = ph1;
                }
            }
#pragma unroll
            for (int i = 0; i < BM / 2; i++)
                sgemm_wg_fence_operand(&d[i]);
            /* epilogue (the producer is already loading the next unit's
             * slabs): d[4j + v0 + 2 v1] = C[bm0 + 8j + 2t + v0][bn0 + n0 + v1];
             * split k: added (float2 atomics) into C, zeroed by the launcher;
             * split tail: the last of a tile's pieces to arrive stores the
             * sum of all (sgemm_tmap_gather) */
            if (SK == 4 && (kt0 > 0 || kt1 < KT)) {
                /* the piece's tail unit and part, recomputed from `it` (no
                 * register held across the loop for them) */
                int pu, pk0, pk1;
                sgemm_tmap_item(it, first, step, units, KT, sc, SK, &pu, &pk0, &pk1);
                sgemm_tmap_gather(d, sc, pu - (units - sc.sk_units), pk0 / sc.kts, rank, cw, ct, C, m, n, bm0,
                                  bn0 + n0, t, BM, CL);
                continue;
            }
            const int gn = bn0 + n0;
            if (gn < n && (SK != 1 || nsplit == 1)) /* n % 4 == 0 and gn even: gn + 1 < n too */
                sgemm_tma_put_tile(d, C, m, n, bm0, gn, t, BM, 0);
            else if (gn < n)
                sgemm_tma_put_tile(d, C, m, n, bm0, gn, t, BM, 1);
        }
    }
    /* CL = 2: no CTA leaves while its peer may still arrive on its barriers
     * (its consumers' last releases); every multicast into this CTA has
     * landed already (its consumers waited for each full barrier) */
    if (CL > 1)
        sgemm_tma_cluster_sync();
}

#endif
