/* kernels/sgemm_tf32_tma_tile.cuh: the one-tile-per-CTA TF32 TMA GEMM
 * (KIND 0 of sgemm_tf32_tma.cuh): the shared-memory ring, the B^T fragment
 * loads (also the persistent kernel's, sgemm_tf32_tma_pers.cuh) and the
 * KIND 0 mainloop: an mbarrier ring fed by TMA, consumer warpgroups issuing
 * wgmma, optionally in ping-pong order.
 *
 * Idea (what changes against sgemm_tf32_wgmma.cuh, the step before)
 *   The same math and operand roles: C^T = B^T A^T on
 *   wgmma.mma_async.m64nNk8.f32.tf32.tf32, the B^T fragments from registers
 *   (RS form: for .tf32 both shared-memory operands would have to be K-major,
 *   and B is N-major), A^T by a K-major 128-byte-swizzle descriptor; both
 *   rounded to TF32 by the copy engine (SGEMM_TMA_DATA_TYPE). In that
 *   kernel every thread issued cp.async copies and one __syncthreads per
 *   32-wide k slab lined both warpgroups up, so both waited for their MMAs
 *   at the same moment and the tensor core ran dry once per slab. Here:
 *   - Copies: one thread issues, per slab, one TMA box of A (32 k x BM rows,
 *     SWIZZLE_128B: exactly the layout the descriptor reads) and BN / 32
 *     boxes of B (32 n x 32 k each, SWIZZLE_128B), completing on the stage's
 *     "full" mbarrier (expect_tx of the whole stage). Edges are free: TMA
 *     fills every element outside m, n or k with zero, which adds 0.
 *   - No block-wide barrier in the main loop. Each consumer warpgroup waits
 *     on "full[s]", loads its B^T fragments, runs 4 wgmma, waits for them,
 *     and each of its warps arrives on "empty[s]" (count 4 x consumer
 *     warpgroups). The producer is a warp of its own (WS, _ws) or thread 0
 *     (a consumer too, for BM = 256: a ninth, producer-only warp would cap
 *     every thread at 168 registers, see SGEMM_TMA_THREADS_OF): after issuing
 *     its own MMAs it tops the ring up with every slab whose stage "empty"
 *     says is free, without blocking; it blocks on "empty" only for a slab
 *     its warpgroup needs next, which the other warps can always release (no
 *     deadlock).
 *   - Ping-pong (PP, _pp): warpgroup 1 issues slab kt's batch only after 0
 *     has (named barrier 1), and 0 issues kt + 1 only after 1 has issued kt
 *     (named barrier 2). Each batch queues behind the other's, so one
 *     warpgroup refills its fragments while the other's batch runs.
 *   B^T fragments from the swizzled B box. Thread (warp w of its warpgroup,
 *   lane = 4 g + t) owns the wgmma rows 16 w + g and 16 w + g + 8; rows map
 *   to n columns (a free permutation, undone at the store) as the pair
 *   n0 = 64 cw + 32 (w >> 1) + 2 q, n0 + 1, with
 *   q = (g & 1) + 8 ((g >> 1) & 1) + 2 (g >> 2) + 4 (w & 1).
 *   Then a0, a1 = B[k = 8 j + t][n0, n0 + 1] and a2, a3 = the same at k + 4:
 *   one LDS.64 each. In the swizzled box, 16-byte chunk q / 2 of row k sits
 *   at chunk (q / 2) ^ (k & 7); the 16 lanes of a half warp (g = 0..3 or
 *   4..7, t = 0..3) reach 8 distinct chunks x 2 halves = all 32 banks once:
 *   no bank conflict.
 *   Accumulators and store: as sgemm_tf32_wgmma.cu, d[4 j + v0 + 2 v1] =
 *   C[bm0 + 8 j + 2 t + v0][bn0 + n0 + v1]: float2 stores
 *   (sgemm_tf32_tma_epilogue.cuh).
 *
 * Constraints: those of the launcher (sgemm_tf32_tma_launch.cuh); shared
 * memory of SGEMM_TMA_SMEM_OF bytes; a wait that never completes traps
 * (sgemm_tf32_tma_ptx.cuh). */
#ifndef KERNELS_SGEMM_TF32_TMA_TILE_CUH
#define KERNELS_SGEMM_TF32_TMA_TILE_CUH

#include <cuda.h>

#include "sgemm_tf32_tma_epilogue.cuh"
#include "sgemm_tf32_tma_ptx.cuh"
#include "sgemm_wgmma_common.cuh"
#include "smem.cuh"

// ---- the ring ----------------------------------------------------------------------

#define SGEMM_TMA_BK 32                      /* k slab: 4 wgmma k steps, one 128-byte row */
#define SGEMM_TMA_BOX_BYTES 4096             /* one 32 x 32-float box */

/* NWG consumer warpgroups (warps 0 .. 4 NWG - 1), then with WS one producer
 * warp; BN = 64 NWG columns of C. Registers: the 4 SM sub-partitions hold
 * 64 K / 4 registers each and a block's warps are spread over them, so 9
 * warps (2 warpgroups + a producer warp) or 12 (+ a producer warpgroup) cap a
 * thread at 168 registers: with 128 accumulators (BM = 256) ptxas spills and
 * serialises the wgmma (C7512; setmaxnreg does not raise ptxas's own limit).
 * 8 warps allow 255: so BM = 256 candidates run without WS, thread 0 of the
 * consumers issuing the copies. */
#define SGEMM_TMA_THREADS_OF(NWG, WS) (128 * (NWG) + ((WS) ? 32 : 0))
#define SGEMM_TMA_BN_OF(NWG) (64 * (NWG))
#define SGEMM_TMA_ASTAGE(BM) ((BM) * SGEMM_TMA_BK * 4)
#define SGEMM_TMA_BSTAGE(NWG) (SGEMM_TMA_BN_OF(NWG) * SGEMM_TMA_BK * 4)
/* stages, 2 ST mbarriers, + 1024: the base is rounded up to a 1024-byte boundary */
#define SGEMM_TMA_SMEM_OF(NWG, BM, ST) \
    ((ST) * (SGEMM_TMA_ASTAGE(BM) + SGEMM_TMA_BSTAGE(NWG)) + 16 * (ST) + 1024)

// ---- fragments, copies, the KIND 0 producer ---------------------------------------

/* B^T fragments of one slab: 16 registers, LDS.64 at shared addresses
 * lo + 1024 j and hi + 1024 j (32-bit shared addresses: fewer live registers
 * than generic pointers next to 128 accumulators) */
static __device__ __forceinline__ void sgemm_tma_frags(unsigned lo, unsigned hi, unsigned *f)
{
#pragma unroll
    for (int j = 0; j < 4; j++) {
        asm volatile("ld.shared.v2.b32 {%0, %1}, [%2];\n"
                     : "=r"(f[4 * j + 0]), "=r"(f[4 * j + 1]) : "r"(lo + 1024 * j) : "memory");
        asm volatile("ld.shared.v2.b32 {%0, %1}, [%2];\n"
                     : "=r"(f[4 * j + 2]), "=r"(f[4 * j + 3]) : "r"(hi + 1024 * j) : "memory");
    }
}

/* Issue the TMA copies of k slab kt into its stage (kt % ST), completing full[s]. */
static __device__ __forceinline__ void sgemm_tma_issue(const CUtensorMap *ta, const CUtensorMap *tb,
                                                       int kt, int bm0, int bn0, unsigned smem,
                                                       unsigned b_st, unsigned bars, const int NWG,
                                                       const int BM, const int ST)
{
    const int s = kt % ST;
    const unsigned full = bars + 8 * s;
    sgemm_tma_bar_expect(full, SGEMM_TMA_ASTAGE(BM) + SGEMM_TMA_BSTAGE(NWG));
    sgemm_tma_load(smem + s * SGEMM_TMA_ASTAGE(BM), ta, kt * SGEMM_TMA_BK, bm0, full);
    const unsigned bs = b_st + s * SGEMM_TMA_BSTAGE(NWG);
#pragma unroll
    for (int j = 0; j < SGEMM_TMA_BN_OF(NWG) / 32; j++)
        sgemm_tma_load(bs + j * SGEMM_TMA_BOX_BYTES, tb, bn0 + 32 * j, kt * SGEMM_TMA_BK, full);
}

/* The empty barrier of slab kt's stage has completed the phase that frees it
 * (the release of slab kt - ST by every consumer warp); kt < ST: always free. */
static __device__ __forceinline__ unsigned sgemm_tma_empty_parity(int kt, const int ST)
{
    return (unsigned)(kt / ST - 1) & 1u;
}

/* !WS producer (thread 0, prod = 1): make sure slab kt has been issued,
 * blocking on its stage's empty barrier if needed (rare: the top-up issues
 * ahead). The slabs the other warps wait for are all issued already, so this
 * wait cannot deadlock. */
static __device__ __forceinline__ void sgemm_tma_need(const CUtensorMap *ta, const CUtensorMap *tb,
                                                      int prod, int *issued, int kt, int bm0,
                                                      int bn0, unsigned smem, unsigned b_st,
                                                      unsigned bars, const int NWG, const int BM,
                                                      const int ST)
{
    if (prod && *issued == kt) {
        sgemm_tma_bar_wait(bars + 8 * (ST + kt % ST), sgemm_tma_empty_parity(kt, ST));
        sgemm_tma_issue(ta, tb, kt, bm0, bn0, smem, b_st, bars, NWG, BM, ST);
        *issued = kt + 1;
    }
}

/* !WS producer, after slab kt's wgmma are issued: issue every further slab
 * (up to kt + ST - 1, whose stage held a slab <= kt - 1) whose stage every
 * consumer warp has released, without blocking */
static __device__ __forceinline__ void sgemm_tma_top_up(const CUtensorMap *ta, const CUtensorMap *tb,
                                                        int prod, int *issued, int kt, int KT,
                                                        int bm0, int bn0, unsigned smem,
                                                        unsigned b_st, unsigned bars, const int NWG,
                                                        const int BM, const int ST)
{
    if (!prod)
        return;
    while (*issued < KT && *issued < kt + ST &&
           sgemm_tma_bar_try(bars + 8 * (ST + *issued % ST), sgemm_tma_empty_parity(*issued, ST))) {
        sgemm_tma_issue(ta, tb, *issued, bm0, bn0, smem, b_st, bars, NWG, BM, ST);
        *issued += 1;
    }
}

// ---- KIND 0 mainloop ----------------------------------------------------------------

/* One tile per CTA: NWG consumer warpgroups (BN = 64 NWG columns), BM rows,
 * ST stages; WS a producer warp, else thread 0 produces; PP ping-pong. */
static __device__ __forceinline__ void sgemm_tma_body(const CUtensorMap *ta, const CUtensorMap *tb,
                                                      float *C, int m, int n, int k, const int NWG,
                                                      const int BM, const int ST, const int WS,
                                                      const int PP)
{
    extern __shared__ float4 sgemm_tma_smem4[];
    const int BN = SGEMM_TMA_BN_OF(NWG);
    const unsigned raw = smem_u32(sgemm_tma_smem4);
    const unsigned smem = (raw + 1023u) & ~1023u;       /* ST A stages, ST B stages, barriers */
    const unsigned b_st = smem + ST * SGEMM_TMA_ASTAGE(BM);
    const unsigned bars = b_st + ST * SGEMM_TMA_BSTAGE(NWG); /* full[ST], then empty[ST] */
    int bm0, bn0;
    tile_order_origin(blockIdx.x, m, n, BM, BN, SGEMM_WG_GROUP_M, &bm0, &bn0);
    const int KT = (k + SGEMM_TMA_BK - 1) / SGEMM_TMA_BK;
    const int tid = threadIdx.x;

    if (tid == 0) {
        for (int s = 0; s < ST; s++) {
            sgemm_tma_bar_init(bars + 8 * s, 1);                  /* the producer's expect_tx */
            sgemm_tma_bar_init(bars + 8 * (ST + s), 4 * NWG);     /* one arrive per consumer warp */
        }
        sgemm_tma_bar_init_fence();
    }
    __syncthreads();

    if (WS && tid >= 128 * NWG) { /* producer warp: one thread issues every copy */
        if (tid == 128 * NWG) {
            for (int kt = 0; kt < KT; kt++) {
                if (kt >= ST)
                    sgemm_tma_bar_wait(bars + 8 * (ST + kt % ST), sgemm_tma_empty_parity(kt, ST));
                sgemm_tma_issue(ta, tb, kt, bm0, bn0, smem, b_st, bars, NWG, BM, ST);
            }
        }
        return;
    }
    /* !WS: thread 0 (a consumer) also produces: `issued` slabs so far; it
     * tops the ring up without blocking after each slab's wgmma are issued,
     * and blocks on an empty barrier only when the slab it needs next has not
     * been issued (the other warps need only earlier slabs: no deadlock). */
    const int prod = !WS && tid == 0;
    int issued = 0;
    if (prod)
        for (; issued < KT && issued < ST; issued++)
            sgemm_tma_issue(ta, tb, issued, bm0, bn0, smem, b_st, bars, NWG, BM, ST);

    /* consumer warpgroup cw */
    const int cw = tid >> 7, ct = tid & 127;
    const int w = ct >> 5, lane = ct & 31, g = lane >> 2, t = lane & 3;
    const int q = (g & 1) + 8 * ((g >> 1) & 1) + 2 * (g >> 2) + 4 * (w & 1);
    const int n0 = 64 * cw + 32 * (w >> 1) + 2 * q; /* this thread's n pair in the tile */
    const int box = (n0 >> 5) * SGEMM_TMA_BOX_BYTES + (n0 & 3) * 4;
    const int chunk = (n0 & 31) >> 2;
    const unsigned lo = b_st + box + t * 128 + ((chunk ^ t) << 4);             /* k = 8 j + t */
    const unsigned hi = b_st + box + (t + 4) * 128 + ((chunk ^ (t + 4)) << 4); /* k = 8 j + t + 4 */

    float d[128];
#pragma unroll
    for (int i = 0; i < BM / 2; i++) {
        d[i] = 0.0f;
        sgemm_wg_fence_operand(&d[i]);
    }
    unsigned f[16];
    for (int kt = 0; kt < KT; kt++) {
        const int s = kt % ST;
        sgemm_tma_need(ta, tb, prod, &issued, kt, bm0, bn0, smem, b_st, bars, NWG, BM, ST);
        sgemm_tma_bar_wait(bars + 8 * s, (unsigned)(kt / ST) & 1u);
        sgemm_tma_frags(lo + s * SGEMM_TMA_BSTAGE(NWG), hi + s * SGEMM_TMA_BSTAGE(NWG), f);
        __syncwarp();
        /* PP: warpgroup 0 issues slab kt, then 1 does, then 0 issues kt + 1:
         * each batch queues behind the other's, so one warpgroup refills
         * its fragments while the other's batch runs (named barrier 1:
         * 0 has issued, 1 may; 2: 1 has issued, 0 may) */
        if (PP && cw == 1)
            sgemm_tma_named_sync(1, 256);
        else if (PP && cw == 0 && kt > 0)
            sgemm_tma_named_sync(2, 256);
        sgemm_wg_mma_slab(d, f, smem + s * SGEMM_TMA_ASTAGE(BM), BM);
        if (PP && cw == 0)
            sgemm_tma_named_arrive(1, 256);
        else if (PP && cw == 1 && kt + 1 < KT)
            sgemm_tma_named_arrive(2, 256);
        sgemm_tma_top_up(ta, tb, prod, &issued, kt, KT, bm0, bn0, smem, b_st, bars, NWG, BM, ST);
        __syncwarp();
        sgemm_wg_wait0();
        __syncwarp();
        if (lane == 0)
            sgemm_tma_bar_arrive(bars + 8 * (ST + s));
    }
#pragma unroll
    for (int i = 0; i < BM / 2; i++)
        sgemm_wg_fence_operand(&d[i]);

    /* epilogue: d[4j + v0 + 2 v1] = C[bm0 + 8j + 2t + v0][bn0 + n0 + v1] */
    const int gn = bn0 + n0;
    if (gn < n) /* n % 4 == 0 and gn even: gn + 1 < n too */
        sgemm_tma_put_tile(d, C, m, n, bm0, gn, t, BM, 0);
}

#endif
