/* kernels/sgemm_tf32_tma_ptx.cuh: the inline PTX the TF32 TMA GEMM
 * (sgemm_tf32_tma.cuh) is built from: mbarriers (init, expect_tx, arrive,
 * try/wait with a trap), named barriers, the 2-D tiled TMA load (plain and
 * multicast to a cluster), and the cluster primitives (rank, cluster-wide
 * barrier, mapa, remote arrive). sm_90 PTX; the callers compile their bodies
 * only in the sm_90a pass.
 *
 * Why inline PTX: CUDA C++ has no portable spelling for TMA or mbarrier
 * transaction counts, and these wrappers keep the kernels free of cuda::
 * barrier objects (shared addresses stay 32-bit registers next to 128
 * accumulators). A wait that never completes traps after
 * SGEMM_TMA_SPIN_LIMIT polls, a fault the tool reports, instead of hanging
 * the run. */
#ifndef KERNELS_SGEMM_TF32_TMA_PTX_CUH
#define KERNELS_SGEMM_TF32_TMA_PTX_CUH

#include <stdint.h>

#include <cuda.h>

#define SGEMM_TMA_SPIN_LIMIT (1u << 30)      /* failed mbarrier polls before a wait traps (> 20 s) */

// ---- mbarrier and named barriers -------------------------------------------------

static __device__ __forceinline__ void sgemm_tma_bar_init(unsigned bar, unsigned count)
{
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" :: "r"(bar), "r"(count) : "memory");
}

/* the inits, visible to the async proxy (TMA completes on these barriers) */
static __device__ __forceinline__ void sgemm_tma_bar_init_fence(void)
{
    asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
}

static __device__ __forceinline__ void sgemm_tma_bar_expect(unsigned bar, unsigned bytes)
{
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n"
                 :: "r"(bar), "r"(bytes) : "memory");
}

static __device__ __forceinline__ void sgemm_tma_bar_arrive(unsigned bar)
{
    asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" :: "r"(bar) : "memory");
}

/* mbarrier.WAIT.parity on `bar` as 0 / 1 in a register: WAIT try_wait
 * (sgemm_tma_bar_try) or test_wait (sgemm_tma_bar_test) */
#define SGEMM_TMA_BAR_POLL(WAIT, bar, parity, done)                                                \
    asm volatile("{\n .reg .pred p;\n"                                                            \
                 " mbarrier." WAIT ".parity.shared::cta.b64 p, [%1], %2;\n"                        \
                 " selp.u32 %0, 1, 0, p;\n}\n"                                                    \
                 : "=r"(done) : "r"(bar), "r"(parity) : "memory")

/* 1 if the phase with this parity has completed; may suspend the thread a
 * while first (try_wait: the hardware's time limit) */
static __device__ __forceinline__ int sgemm_tma_bar_try(unsigned bar, unsigned parity)
{
    unsigned done;
    SGEMM_TMA_BAR_POLL("try_wait", bar, parity, done);
    return (int)done;
}

/* the same test without blocking (test_wait: returns at once) */
static __device__ __forceinline__ int sgemm_tma_bar_test(unsigned bar, unsigned parity)
{
    unsigned done;
    SGEMM_TMA_BAR_POLL("test_wait", bar, parity, done);
    return (int)done;
}

/* wait for the completion of the phase with this parity; trap after
 * SGEMM_TMA_SPIN_LIMIT polls (one register live, next to 128 accumulators) */
static __device__ __forceinline__ void sgemm_tma_bar_wait(unsigned bar, unsigned parity)
{
    unsigned polls = 0;
    while (!sgemm_tma_bar_try(bar, parity))
        if (++polls > SGEMM_TMA_SPIN_LIMIT)
            __trap();
}

/* named barrier `id` over `count` threads: wait for it / arrive without
 * waiting (id and count are literals after inlining) */
static __device__ __forceinline__ void sgemm_tma_named_sync(int id, int count)
{
    asm volatile("bar.sync %0, %1;\n" :: "r"(id), "r"(count) : "memory");
}

static __device__ __forceinline__ void sgemm_tma_named_arrive(int id, int count)
{
    asm volatile("bar.arrive %0, %1;\n" :: "r"(id), "r"(count) : "memory");
}

// ---- TMA loads ---------------------------------------------------------------------

/* 2-D tiled TMA load of the box at (c0 inner, c1 outer) into shared `dst`,
 * completing `bar`'s transaction count */
static __device__ __forceinline__ void sgemm_tma_load(unsigned dst, const CUtensorMap *map, int c0,
                                                      int c1, unsigned bar)
{
    asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
                 " [%0], [%1, {%2, %3}], [%4];\n"
                 :: "r"(dst), "l"((unsigned long long)(uintptr_t)map), "r"(c0), "r"(c1), "r"(bar)
                 : "memory");
}

/* TMA load multicast to the CTAs of `mask`: the box lands at shared offset
 * `dst` of each, completing the mbarrier at offset `bar` of each */
static __device__ __forceinline__ void sgemm_tma_load_mc(unsigned dst, const CUtensorMap *map, int c0,
                                                         int c1, unsigned bar, unsigned short mask)
{
    asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
                 ".multicast::cluster [%0], [%1, {%2, %3}], [%4], %5;\n"
                 :: "r"(dst), "l"((unsigned long long)(uintptr_t)map), "r"(c0), "r"(c1), "r"(bar),
                    "h"(mask)
                 : "memory");
}

// ---- cluster -----------------------------------------------------------------------

/* this CTA's rank in its cluster (0 without a cluster launch) */
static __device__ __forceinline__ unsigned sgemm_tma_cluster_rank(void)
{
    unsigned r;
    asm volatile("mov.u32 %0, %%cluster_ctarank;\n" : "=r"(r));
    return r;
}

/* every thread of every CTA of the cluster: arrive (release), then wait
 * (acquire); not .aligned, so a divergent warp may call it */
static __device__ __forceinline__ void sgemm_tma_cluster_sync(void)
{
    asm volatile("barrier.cluster.arrive.release;\n"
                 "barrier.cluster.wait.acquire;\n" ::: "memory");
}

/* the shared::cluster address of `addr` (a shared::cta address) in CTA `rank` of the cluster */
static __device__ __forceinline__ unsigned sgemm_tma_mapa(unsigned addr, unsigned rank)
{
    unsigned r;
    asm volatile("mapa.shared::cluster.u32 %0, %1, %2;\n" : "=r"(r) : "r"(addr), "r"(rank));
    return r;
}

/* arrive on an mbarrier of any CTA of the cluster (a shared::cluster
 * address). Default semantics (release, CTA scope), as CUTLASS's cluster
 * barrier: what it orders is reads of the stage that have already returned
 * (wgmma retired, fragments in registers) before the peer's TMA overwrites
 * it; the .release.cluster form costs a MEMBAR.ALL.GPU per arrive. */
static __device__ __forceinline__ void sgemm_tma_bar_arrive_cluster(unsigned bar)
{
    asm volatile("mbarrier.arrive.shared::cluster.b64 _, [%0];\n" :: "r"(bar) : "memory");
}

#endif
