/* kernels/sgemm_tf32_tma_launch.cuh: the host side of the TF32 TMA GEMM
 * (sgemm_tf32_tma.cuh): tensor maps, the launches of both kinds, the kernel
 * templates and sgemm_tma_run, which runs one candidate's parameters.
 *
 * Idea: the tensor maps are encoded on the host for each call and travel
 * as __grid_constant__ kernel parameters (the encoder, the map of any
 * element type and the resident-cluster count are shared with the fp16 /
 * bf16 / fp8 GEMM: gemm_wgmma_tmap.cuh). KIND 0
 * launches one CTA per tile; KIND 1 a persistent grid of as many clusters
 * as are resident at once (queried once per device), with its schedule
 * (sgemm_tf32_tma_sched.cuh) filled in here.
 *
 * Constraints (why)
 *   - n % 4 == 0 and k % 4 == 0 (TMA global strides are multiples of 16
 *     bytes; through sgemm_tma_run_lda, A's row stride lda % 4 == 0 instead
 *     of k's), A and B 16-byte aligned (TMA base), C 8-byte aligned (float2
 *     stores); otherwise cudaErrorNotSupported (sgemm_tma_shape_ok), and the
 *     caller stages the operands or falls back. Any m >= 1.
 *   - A cluster launch (cudaLaunchKernelEx) for CL = 2.
 *   - sm_90a only: the kernels' bodies are empty in any other device pass
 *     (a binary without an sm_90a image fails at the launch, never
 *     silently). */
#ifndef KERNELS_SGEMM_TF32_TMA_LAUNCH_CUH
#define KERNELS_SGEMM_TF32_TMA_LAUNCH_CUH

#include <cuda.h>
#include <cudaTypedefs.h>
#include <cuda_runtime.h>

#include "gemm_wgmma_tmap.cuh"
#include "sgemm_tf32_stage.cuh"
#include "sgemm_tf32_tma_pers.cuh"
#include "sgemm_tf32_tma_sched.cuh"
#include "sgemm_tf32_tma_tile.cuh"
#include "sgemm_wgmma_common.cuh"
#include "smem.cuh"

// ---- tensor maps -------------------------------------------------------------------

/* L2 promotion of every TMA load (the L2 fills whole 256-byte blocks around a
 * miss); 128 B cut the traffic between the two L2 partitions without changing
 * the time (docs/tuning/tf32_tma.md); a probe may build with another
 * (COMPARE_KERNEL_DEFS, tests/probes/tma_l2_probe.sh) */
#ifndef SGEMM_TMA_L2_PROMOTION
#define SGEMM_TMA_L2_PROMOTION CU_TENSOR_MAP_L2_PROMOTION_L2_256B
#endif

/* Element type of every map: TF32, so the copy engine rounds each FP32
 * element to TF32 (round to nearest) on its way into shared memory, as cuBLAS
 * TF32 does (bit for bit the same results); FP32 keeps the low 13 bits, which
 * the tensor core drops (truncation: a larger error, and the extra bits cost
 * power under the board's cap; docs/tuning/tf32_tma.md). A probe may build with FP32
 * (COMPARE_KERNEL_DEFS=SGEMM_TMA_DATA_TYPE=CU_TENSOR_MAP_DATA_TYPE_FLOAT32). */
#ifndef SGEMM_TMA_DATA_TYPE
#define SGEMM_TMA_DATA_TYPE CU_TENSOR_MAP_DATA_TYPE_TFLOAT32
#endif

/* row-major rows x cols FP32 matrix, rows ld floats apart, boxes of box_cols x
 * box_rows, 128-byte swizzle, zero fill outside, rounded to TF32 on the way in
 * (SGEMM_TMA_DATA_TYPE); 0 or a cudaError_t value */
static int sgemm_tma_map(CUtensorMap *map, const float *base, int rows, int cols, int ld, int box_cols,
                         int box_rows)
{
    return gemm_tma_map_2d_ld(map, SGEMM_TMA_DATA_TYPE, 4, base, rows, cols, ld, box_cols, box_rows,
                              SGEMM_TMA_L2_PROMOTION);
}

/* 0 if the TMA kernels take A (m x k, rows lda floats apart), B (k x n), C
 * (m x n) in place: as sgemm_wg_shape_ok with lda for k (lda == k is that
 * check exactly); a k that is not a multiple of 4 is fine when lda is (the
 * map's columns k .. lda-1 read as zeros, so do B's rows past k). */
static int sgemm_tma_shape_ok(const float *A, int lda, const float *B, const float *C, int m, int n, int k)
{
    if (m < 1 || n < 1 || k < 1 || lda < k)
        return (int)cudaErrorInvalidValue;
    return sgemm_wg_decline(A, B, C, n, lda) ? (int)cudaErrorNotSupported : 0;
}

// ---- launches ----------------------------------------------------------------------

typedef void (*sgemm_tma_kernel_fn)(const CUtensorMap, const CUtensorMap, float *, int, int, int);

static int sgemm_tma_launch(sgemm_tma_kernel_fn kern, unsigned long long *attr_set, int BM, int BN, int threads,
                            int smem, const float *A, int lda, const float *B, float *C, int m, int n,
                            int k, cudaStream_t stream)
{
    CUtensorMap ta, tb;
    unsigned tiles;
    int rc = sgemm_tma_shape_ok(A, lda, B, C, m, n, k);
    if (rc == 0)
        rc = sgemm_tma_map(&ta, A, m, k, lda, SGEMM_TMA_BK, BM);
    if (rc == 0)
        rc = sgemm_tma_map(&tb, B, k, n, n, 32, SGEMM_TMA_BK);
    if (rc == 0)
        rc = sgemm_wg_prepare((const void *)kern, attr_set, smem, m, n, BM, BN, &tiles);
    if (rc != 0)
        return rc;
    kern<<<tiles, threads, smem, stream>>>(ta, tb, C, m, n, k);
    return (int)cudaGetLastError();
}

/* KIND 1 kernels: the tensor maps, C, m, n, k, the schedule */
typedef void (*sgemm_tmap_kernel_fn)(const CUtensorMap, const CUtensorMap, float *, int, int, int,
                                     const sgemm_tmap_sched);

/* KIND 1 launch: a persistent grid of min(units, resident clusters) clusters
 * of CL CTAs (cluster dimension set at the launch, not compiled in). SK = 1
 * and fewer tile units than resident clusters: k split in nsplit parts (each
 * at least SGEMM_TMAP_MIN_SPLIT_SLABS slabs, none empty), C zeroed first and
 * the parts added into it. SK = 4 and a partial last wave to cut
 * (sgemm_tmap_kst_plan): the workspace (SGEMM_STAGE_POOL_STREAMK, taken in
 * turn with other calls on any stream), cudaErrorMemoryAllocation (cleared)
 * when it cannot be had, for the caller to run a whole-tile candidate
 * instead; SK = 4 and no tail: kern_whole, the same candidate's SK 0 kernel. */
static int sgemm_tmap_launch(sgemm_tmap_kernel_fn kern, unsigned long long *attr_set, int *slot_cache,
                             sgemm_tmap_kernel_fn kern_whole, unsigned long long *attr_set_whole, int BM, int CL,
                             int SK, int smem, const float *A, int lda, const float *B, float *C, int m, int n,
                             int k, cudaStream_t stream)
{
    CUtensorMap ta, tb;
    int rc = sgemm_tma_shape_ok(A, lda, B, C, m, n, k);
    if (rc == 0)
        rc = sgemm_tma_map(&ta, A, m, k, lda, SGEMM_TMA_BK, BM / CL); /* CL = 2: half an A slab per CTA */
    if (rc == 0)
        rc = sgemm_tma_map(&tb, B, k, n, n, 32, SGEMM_TMA_BK);
    if (rc == 0)
        rc = smem_opt_in((const void *)kern, smem, attr_set);
    if (rc != 0)
        return rc;
    cudaLaunchAttribute attr[1];
    cudaLaunchConfig_t cfg;
    gemm_tma_cluster_cfg(&cfg, attr, CL, SGEMM_TMAP_THREADS, smem, stream);
    int slots = 0;
    rc = gemm_tma_cluster_slots((const void *)kern, &cfg, CL, slot_cache, &slots);
    if (rc != 0)
        return rc;
    const int KT = (k + SGEMM_TMA_BK - 1) / SGEMM_TMA_BK;
    const long long tile_units = (long long)((m + BM - 1) / BM) * (((n + 127) / 128 + CL - 1) / CL);
    long long nsplit = 1;
    if (SK == 1 && tile_units < slots) { /* split k only */
        nsplit = slots / tile_units;
        if (nsplit > KT / SGEMM_TMAP_MIN_SPLIT_SLABS)
            nsplit = KT / SGEMM_TMAP_MIN_SPLIT_SLABS;
        if (nsplit < 1)
            nsplit = 1;
    }
    const int kts = (int)((KT + nsplit - 1) / nsplit); /* slabs per split */
    nsplit = (KT + kts - 1) / kts;                     /* every split non-empty */
    const long long units = tile_units * nsplit;
    if (units > 0x7fffffffLL)
        return (int)cudaErrorInvalidValue;
    if (nsplit > 1) {
        const cudaError_t e = cudaMemsetAsync(C, 0, (size_t)m * n * sizeof(float), stream);
        if (e != cudaSuccess)
            return (int)e;
    }
    const long long clusters = units < slots ? units : slots;
    sgemm_tmap_sched sc = {kts, (int)nsplit, 0, NULL, NULL};
    int ws_slot = -1;
    size_t ws_bytes = 0;
    int pieces = 0;
    if (SK == 4 && (sc.sk_units = (int)sgemm_tmap_kst_plan(units, clusters, KT, &pieces)) > 0) {
        sc.kts = (KT + pieces - 1) / pieces;
        sc.nsplit = (KT + sc.kts - 1) / sc.kts; /* every piece non-empty */
        ws_bytes = SGEMM_TMAP_KST_WS_BYTES(sc.sk_units, sc.nsplit, CL, BM);
    } else if (SK == 4) {
        /* no tail to cut: the same candidate's whole-tile kernel (SK = 0,
         * the same resources), instruction for instruction the kernel
         * without the split tail */
        kern = kern_whole;
        if ((rc = smem_opt_in((const void *)kern, smem, attr_set_whole)) != 0)
            return rc;
    }
    if (ws_bytes > 0) {
        void *ws = NULL;
        rc = sgemm_stage_acquire(SGEMM_STAGE_POOL_STREAMK, ws_bytes, stream, &ws, &ws_slot);
        if (rc != 0)
            return rc;
        sc.ws = (float *)ws;
        sc.cnt = (unsigned *)ws;
    }
    cfg.gridDim = dim3((unsigned)(clusters * CL), 1, 1);
    rc = (int)cudaLaunchKernelEx(&cfg, kern, ta, tb, C, m, n, k, sc);
    if (rc == 0)
        rc = (int)cudaGetLastError();
    if (ws_slot >= 0) {
        const int rel = sgemm_stage_release(ws_slot, stream);
        rc = rc != 0 ? rc : rel;
    }
    return rc;
}

// ---- kernels and the run template ---------------------------------------------------

/* The kernel of one candidate; its body compiles only in the sm_90a pass
 * (__CUDA_ARCH_FEAT_SM90_ALL), elsewhere it is empty and never launched. */
template <int BM, int BN, int ST, int DB, int WS, int PP, int MINB>
static __global__ void __launch_bounds__(SGEMM_TMA_THREADS_OF(BN / 64, WS), MINB)
sgemm_tma_kernel(const __grid_constant__ CUtensorMap ta, const __grid_constant__ CUtensorMap tb,
                 float *__restrict__ C, int m, int n, int k)
{
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
    sgemm_tma_body(&ta, &tb, C, m, n, k, BN / 64, BM, ST, WS, PP);
#endif
}

/* The kernel of a KIND 1 candidate (384 threads, one block per SM: ptxas
 * needs both bounds to honour setmaxnreg, C7508); sm_90a pass only, as above. */
template <int BM, int ST, int PP, int CL, int SK, int PF>
static __global__ void __launch_bounds__(SGEMM_TMAP_THREADS, 1)
sgemm_tmap_kernel(const __grid_constant__ CUtensorMap ta, const __grid_constant__ CUtensorMap tb,
                  float *__restrict__ C, int m, int n, int k, const sgemm_tmap_sched sc)
{
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
    sgemm_tmap_body<BM, ST, PP, CL, SK, PF>(&ta, &tb, C, m, n, k, sc);
#endif
}

/* Runs a KIND 0 candidate (tensor maps made per call); cudaErrorNotSupported for
 * a shape it declines (sgemm_wg_decline) or a driver without TMA encoding. */
template <int BM, int BN, int ST, int DB, int WS, int PP, int MINB>
static int sgemm_tma_run_tile(const float *A, int lda, const float *B, float *C, int m, int n, int k,
                              cudaStream_t stream)
{
    constexpr int NWG = BN / 64;
    static_assert(BM == 16 || BM == 32 || BM == 64 || BM == 128 || BM == 256,
                  "wgmma N: the n16 .. n256 wrappers");
    static_assert(BN % 64 == 0 && NWG >= 1 && NWG <= 3, "1 to 3 consumer warpgroups");
    static_assert(ST >= 2, "a ring of at least two stages");
    static_assert(!PP || (NWG == 2 && !DB), "ping-pong order: two warpgroups, wait_group 0");
    static_assert(DB == 0, "KIND 0: one fragment set");
    static_assert(SMEM_SM90_FITS(SGEMM_TMA_SMEM_OF(NWG, BM, ST), MINB),
                  "MINB blocks per SM fit in sm_90 shared memory");
    static unsigned long long attr_set; /* one bit per device */
    return sgemm_tma_launch(sgemm_tma_kernel<BM, BN, ST, DB, WS, PP, MINB>, &attr_set, BM, BN,
                            SGEMM_TMA_THREADS_OF(NWG, WS), SGEMM_TMA_SMEM_OF(NWG, BM, ST), A, lda, B,
                            C, m, n, k, stream);
}

/* Runs the candidate of a row (its SGEMM_TMA_ARGS) on A with rows lda floats
 * apart (lda >= k, a multiple of 4: sgemm_tma_shape_ok): KIND 1 on the
 * persistent kernel, KIND 0 on the one-tile-per-CTA kernel;
 * cudaErrorNotSupported for a shape they decline or a driver without TMA
 * encoding. */
template <int BM, int BN, int ST, int DB, int WS, int PP, int MINB, int KIND, int CL, int SK>
static int sgemm_tma_run_lda(const float *A, int lda, const float *B, float *C, int m, int n, int k,
                             cudaStream_t stream)
{
    if constexpr (KIND == 1) {
        static_assert(BM == 16 || BM == 32 || BM == 64 || BM == 128 || BM == 256,
                      "wgmma N: the n16 .. n256 wrappers");
        static_assert(BN == 128 && (DB == 0 || DB == 2) && WS == 1 && MINB == 1,
                      "KIND 1: two consumer warpgroups, a producer warpgroup, one block per SM");
        static_assert(CL == 1 || CL == 2, "clusters of one or two CTAs");
        static_assert(SK == 0 || SK == 1 || SK == 4, "whole tiles, split k or the split tail");
        static_assert(!(DB == 2 && SK == 1), "_pf or _sk: the name has room for one (untested together)");
        static_assert(ST >= 2, "a ring of at least two stages");
        static_assert(SMEM_SM90_FITS(SGEMM_TMA_SMEM_OF(2, BM, ST), 1), "fits in sm_90 shared memory");
        static unsigned long long attr_set, attr_set_whole; /* one bit per device */
        static int slots[64];                               /* resident clusters, per device */
        return sgemm_tmap_launch(sgemm_tmap_kernel<BM, ST, PP, CL, SK, DB == 2>, &attr_set, slots,
                                 sgemm_tmap_kernel<BM, ST, PP, CL, 0, DB == 2>, &attr_set_whole, BM, CL, SK,
                                 SGEMM_TMA_SMEM_OF(2, BM, ST), A, lda, B, C, m, n, k, stream);
    } else {
        static_assert(CL == 1 && SK == 0, "KIND 0: no cluster, no split k");
        return sgemm_tma_run_tile<BM, BN, ST, DB, WS, PP, MINB>(A, lda, B, C, m, n, k, stream);
    }
}

/* The same on a dense A (lda = k): the search table's launcher type. */
template <int BM, int BN, int ST, int DB, int WS, int PP, int MINB, int KIND, int CL, int SK>
static int sgemm_tma_run(const float *A, const float *B, float *C, int m, int n, int k,
                         cudaStream_t stream)
{
    return sgemm_tma_run_lda<BM, BN, ST, DB, WS, PP, MINB, KIND, CL, SK>(A, k, B, C, m, n, k, stream);
}

#endif
