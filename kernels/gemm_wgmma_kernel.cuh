/* kernels/gemm_wgmma_kernel.cuh: the fp16 / bf16 / fp8_e4m3 Hopper GEMM
 * kernel (gemm_wgmma.cu's variant gemm_wgmma): C = A B with FP32
 * accumulation on wgmma in its SS form, fed by TMA through an mbarrier
 * ring, persistent and warp-specialised, in clusters of one or two CTAs
 * sharing B by TMA multicast. Compiled for sm_90a only.
 *
 * Idea (what it shares with the TF32 TMA kernel, sgemm_tf32_tma_pers.cuh,
 * and what it does not)
 *   Shared, one code for both (templated on the element type where it
 *   differs): the ring's producer (gemm_tma_ring_produce: the persistent
 *   walk of work items, the empty/full protocol, which TMA boxes a slab is
 *   and which operand a cluster pair multicasts) and the ring's set-up
 *   (gemm_tma_ring_init), both in gemm_wgmma_ring.cuh; the mbarrier / TMA /
 *   cluster PTX (sgemm_tf32_tma_ptx.cuh); the wgmma fence / commit / wait,
 *   the K-major 128-byte-swizzle descriptor (sgemm_wgmma_common.cuh) and
 *   the accumulator operand lists (gemm_wgmma_mma.cuh); the work-item walk
 *   (sgemm_tmap_items / sgemm_tmap_item) and the release of a stage to
 *   every CTA of the cluster (sgemm_tmap_release); the launch bound and
 *   setmaxnreg split; on the host the tensor maps, the cluster launch
 *   configuration and the resident-cluster count (gemm_wgmma_tmap.cuh).
 *   Not shared: the consumer. TF32 computes C^T = B^T A^T with B^T
 *   fragments in registers (RS form), because .tf32 wgmma takes both
 *   shared-memory operands K-major only and sgemm's B is N-major; its
 *   accumulators are C^T, stored as float2 column pairs, with split-k and
 *   split-tail epilogues. The 16-bit and fp8 types take both operands from
 *   shared memory (SS form): A K-major always, B K-major (tn) or, for
 *   16-bit types, N-major through the instruction's transpose bit (nn); the
 *   accumulators are C itself, rounded to a 16-bit C.
 *
 *   Roles: 128 (NWG + 1) threads, warpgroup 0 the producer (one thread
 *   issues every TMA copy), warpgroups 1..NWG the consumers, each owning 64
 *   rows x BN columns of the BM = 64 NWG x BN tile (BN / 2 FP32 accumulators
 *   a thread). With two consumers the producer gives registers away
 *   (setmaxnreg 40 / 232, as the TF32 kernel).
 *   Slab: 128 bytes of K (64 fp16 / bf16 or 128 fp8 elements): one TMA box
 *   of A (BM rows x 128 bytes, 128-byte swizzle: the K-major layout the
 *   descriptor reads) and of B (K-major: BN rows x 128 bytes; N-major: BN /
 *   64 boxes of 64 k rows x 64 n), 4 wgmma k steps of 32 bytes.
 *   Consumer loop: wait full[s], 4 wgmma on descriptors (computed before
 *   wgmma.fence), commit, then wait until at most one batch is in flight
 *   (wait_group 1): the previous slab's batch has retired, so its stage is
 *   released while this one runs and the tensor core never waits for the
 *   release. After the tile's last slab: wait_group 0, release, store.
 *   Cluster of 2 (CL = 2): the two CTAs take tiles one above the other
 *   (the same columns of B, rows bm0 and bm0 + BM); each loads its own A
 *   and half of the B slab, multicast into both (B is the larger operand
 *   of a 128 x 256 tile: L2 -> SM bytes per slab drop from A + B to
 *   A + B / 2). The lower member of an odd last pair loads zeros past m,
 *   stores nothing, and still multicasts its half of B.
 *   Epilogue: straight from the accumulators, while the producer already
 *   loads the next tile's slabs: thread (warp w, lane 4 g + t) of consumer
 *   cw holds rows 64 cw + 16 w + g (+ 8) and columns 8 j + 2 t, + 1
 *   (d[4 j + 0, 1], d[4 j + 2, 3]), converted to C's type (fp16, bf16;
 *   bf16 for fp8) and stored as one 32-bit pair when n is even (a whole
 *   tile without a bounds check), else element by element. No staging through shared memory: the ring takes
 *   it all (a 128 x 256 16-bit C tile is 64 KB next to a 192 KB ring).
 *
 * Constraints: those of the launcher (gemm_wgmma.cu): 16-byte row strides
 * for TMA; a wait that never completes traps (sgemm_tf32_tma_ptx.cuh). */
#ifndef KERNELS_GEMM_WGMMA_KERNEL_CUH
#define KERNELS_GEMM_WGMMA_KERNEL_CUH

#include <string.h>

#include <cuda.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "elem_type.h"
#include "gemm_wgmma_mma.cuh"
#include "gemm_wgmma_ring.cuh"
#include "sgemm_tf32_tma_pers.cuh"
#include "sgemm_tf32_tma_ptx.cuh"
#include "sgemm_tf32_tma_sched.cuh"
#include "sgemm_wgmma_common.cuh"
#include "smem.cuh"
#include "tile_order.cuh"

#define GEMM_WG_THREADS(NWG) (128 * ((NWG) + 1))
#define GEMM_WG_STAGE_BYTES(BM, BN) (((BM) + (BN)) * GEMM_WG_ROW_BYTES)
/* the ring, 2 ST mbarriers, + 1024: the base is rounded up to a 1024-byte boundary */
#define GEMM_WG_SMEM(BM, BN, ST) ((ST) * GEMM_WG_STAGE_BYTES(BM, BN) + 16 * (ST) + 1024)

/* v0, v1 rounded to C's type (fp16 for T fp16, else bf16), packed: v0 in the low half */
template <int T>
static __device__ __forceinline__ unsigned gemm_wg_pack2(float v0, float v1)
{
    unsigned p;
    if constexpr (T == ELEM_FP16) {
        const __half2 h = __floats2half2_rn(v0, v1);
        memcpy(&p, &h, 4);
    } else {
        const __nv_bfloat162 h = __floats2bfloat162_rn(v0, v1);
        memcpy(&p, &h, 4);
    }
    return p;
}

/* two results of row `row`, columns col, col + 1, into C (row stride n, 16-bit
 * elements): one 32-bit store when `pair` (n even), else element by element;
 * nothing past m or n */
template <int T>
static __device__ __forceinline__ void gemm_wg_put2(void *C, int m, int n, int row, int col, float v0,
                                                    float v1, int pair)
{
    if (row >= m || col >= n)
        return;
    unsigned short *c = (unsigned short *)C + ((size_t)row * (size_t)n + (size_t)col);
    const unsigned p = gemm_wg_pack2<T>(v0, v1);
    if (pair) {
        *(unsigned *)c = p;
    } else {
        c[0] = (unsigned short)(p & 0xffffu);
        if (col + 1 < n)
            c[1] = (unsigned short)(p >> 16);
    }
}

/* One consumer warpgroup (cw of NWG): every work item's tile rows
 * 64 cw.. x BN columns, accumulated over the ring and stored. */
template <int T, int BN, int NWG, int ST, int CL, int TB>
static __device__ __forceinline__ void gemm_wg_consume(void *C, int m, int n, unsigned smem, unsigned b_st,
                                                       unsigned bars, unsigned rank, int items, int first,
                                                       int step, int units, int tiles_n, int units_m, int KT,
                                                       const sgemm_tmap_sched &sc, int cw, int ct)
{
    constexpr int BM = 64 * NWG;
    constexpr unsigned ASTAGE = BM * GEMM_WG_ROW_BYTES, BSTAGE = BN * GEMM_WG_ROW_BYTES;
    const int w = ct >> 5, lane = ct & 31, g = lane >> 2, t = lane & 3;
    const int pair = (n & 1) == 0; /* 32-bit pair stores: n even (C 4-byte aligned: the launcher) */
    int s = 0;
    unsigned ph = 0;
    float d[BN / 2];
    for (int it = 0; it < items; it++) {
        int u, bm0, bn0, kt0, kt1;
        sgemm_tmap_item(it, first, step, units, KT, sc, 0, &u, &kt0, &kt1);
        gemm_wg_tile(u, tiles_n, units_m, rank, BM, BN, CL, &bm0, &bn0);
#pragma unroll
        for (int i = 0; i < BN / 2; i++) {
            d[i] = 0.0f;
            sgemm_wg_fence_operand(&d[i]);
        }
        int prev = -1; /* the stage of the batch still in flight, -1 for none */
#pragma unroll 1
        for (int kt = kt0; kt < kt1; kt++) {
            const unsigned as = smem + s * ASTAGE + cw * (64 * GEMM_WG_ROW_BYTES);
            const unsigned bs = b_st + s * BSTAGE;
            /* descriptors pinned before wgmma.fence (a non-wgmma definition
             * of a wgmma input inside the fence..commit window serialises
             * the wgmma, C7513) */
            unsigned long long da[4], db[4];
#pragma unroll
            for (int j = 0; j < 4; j++) {
                da[j] = sgemm_wg_desc(as + 32 * j);
                db[j] = TB ? gemm_wg_desc_mn(bs + 16 * GEMM_WG_ROW_BYTES * j, GEMM_WG_NBOX_BYTES)
                           : sgemm_wg_desc(bs + 32 * j);
                asm volatile("" : "+l"(da[j]) :: "memory");
                asm volatile("" : "+l"(db[j]) :: "memory");
            }
            sgemm_tma_bar_wait(bars + 8 * s, ph);
            __syncwarp();
            sgemm_wg_fence();
#pragma unroll
            for (int j = 0; j < 4; j++)
                gemm_wg_mma<T, BN, TB>(d, da[j], db[j]);
            sgemm_wg_commit();
            /* at most this batch in flight: the previous one retired, its stage free */
            sgemm_wg_wait1();
            __syncwarp();
            if (prev >= 0)
                sgemm_tmap_release(bars + 8 * (ST + prev), lane, CL);
            prev = s;
            if (++s == ST) {
                s = 0;
                ph ^= 1u;
            }
        }
        sgemm_wg_wait0();
        __syncwarp();
        if (prev >= 0)
            sgemm_tmap_release(bars + 8 * (ST + prev), lane, CL);
#pragma unroll
        for (int i = 0; i < BN / 2; i++)
            sgemm_wg_fence_operand(&d[i]);
        /* epilogue (the producer is already loading the next tile's slabs):
         * a whole tile with n even stores its pairs unchecked, an edge tile
         * checks each */
        const int row = bm0 + 64 * cw + 16 * w + g;
        if (pair && bm0 + BM <= m && bn0 + BN <= n) {
            unsigned *c0 = (unsigned *)((unsigned short *)C + ((size_t)row * (size_t)n + (size_t)(bn0 + 2 * t)));
            unsigned *c8 = c0 + (size_t)4 * (size_t)n; /* row + 8: 8 n 16-bit elements further */
#pragma unroll
            for (int j = 0; j < BN / 8; j++) {
                c0[4 * j] = gemm_wg_pack2<T>(d[4 * j + 0], d[4 * j + 1]);
                c8[4 * j] = gemm_wg_pack2<T>(d[4 * j + 2], d[4 * j + 3]);
            }
        } else {
#pragma unroll
            for (int j = 0; j < BN / 8; j++) {
                const int col = bn0 + 8 * j + 2 * t;
                gemm_wg_put2<T>(C, m, n, row, col, d[4 * j + 0], d[4 * j + 1], pair);
                gemm_wg_put2<T>(C, m, n, row + 8, col, d[4 * j + 2], d[4 * j + 3], pair);
            }
        }
    }
}

/* The kernel body: BM = 64 NWG rows x BN columns a CTA, ST stages, CL CTAs a
 * cluster (pairs along m sharing B), TB: B N-major (layout nn). */
template <int T, int BN, int NWG, int ST, int CL, int TB>
static __device__ __forceinline__ void gemm_wg_body(const CUtensorMap *ta, const CUtensorMap *tb, void *C,
                                                    int m, int n, int k)
{
    constexpr int BM = 64 * NWG;
    extern __shared__ float4 gemm_wg_smem4[];
    const unsigned raw = smem_u32(gemm_wg_smem4);
    const unsigned smem = (raw + 1023u) & ~1023u; /* ST A stages, ST B stages, barriers */
    const unsigned b_st = smem + ST * (BM * GEMM_WG_ROW_BYTES);
    const unsigned bars = b_st + ST * (BN * GEMM_WG_ROW_BYTES); /* full[ST], then empty[ST] */
    const int tid = threadIdx.x;
    const unsigned rank = CL > 1 ? sgemm_tma_cluster_rank() : 0u;
    const int tiles_m = (m + BM - 1) / BM, tiles_n = (n + BN - 1) / BN;
    const int units_m = (tiles_m + CL - 1) / CL;
    const int units = units_m * tiles_n; /* < 2^31: checked by the launcher */
    const int KT = (k + GEMM_WG_BKE(T) - 1) / GEMM_WG_BKE(T);
    const int first = (int)blockIdx.x / CL, step = (int)gridDim.x / CL; /* cluster id, count */
    const sgemm_tmap_sched sc = {KT, 1, 0, NULL, NULL};                  /* whole tiles */
    const int items = sgemm_tmap_items(first, step, units, KT, sc, 0);

    gemm_tma_ring_init(bars, tid, ST, 4 * NWG * CL, CL);

    if (tid < 128) {
        if (NWG > 1) /* gives its registers to the consumers */
            asm volatile("setmaxnreg.dec.sync.aligned.u32 40;\n" ::: "memory");
        if (tid == 0)
            gemm_tma_ring_produce<T, BM, BN, ST, CL, TB, 0>(ta, tb, smem, b_st, bars, rank, items, first, step,
                                                            units, tiles_n, units_m, KT, sc);
    } else {
        if (NWG > 1)
            asm volatile("setmaxnreg.inc.sync.aligned.u32 232;\n" ::: "memory");
        gemm_wg_consume<T, BN, NWG, ST, CL, TB>(C, m, n, smem, b_st, bars, rank, items, first, step, units,
                                                tiles_n, units_m, KT, sc, (tid >> 7) - 1, tid & 127);
    }
    /* CL = 2: no CTA leaves while its peer may still arrive on its barriers
     * (its consumers' last releases); every multicast into this CTA has
     * landed already (its consumers waited for each full barrier) */
    if (CL > 1)
        sgemm_tma_cluster_sync();
}

/* The kernel of one configuration (one block per SM: ptxas needs both
 * bounds to honour setmaxnreg, C7508); its body compiles only in the sm_90a
 * pass (__CUDA_ARCH_FEAT_SM90_ALL), elsewhere it is empty and never
 * launched. */
template <int T, int BN, int NWG, int ST, int CL, int TB>
static __global__ void __launch_bounds__(GEMM_WG_THREADS(NWG), 1)
gemm_wg_kernel(const __grid_constant__ CUtensorMap ta, const __grid_constant__ CUtensorMap tb,
               void *__restrict__ C, int m, int n, int k)
{
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
    gemm_wg_body<T, BN, NWG, ST, CL, TB>(&ta, &tb, C, m, n, k);
#endif
}

#endif
