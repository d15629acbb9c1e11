/* kernels/gemm_multistage.cu: the variant gemm_multistage of the op gemm,
 * the second tensor-core rung (fp16 and bf16 in layouts tn and nn,
 * fp8_e4m3 in tn; contract: gemm_lowp.h).
 *
 * Idea: the same mma.sync m16n8k16 / ldmatrix / swizzle core as gemm_mma
 * (kernels/gemm_mma_core.cuh), fed by a cp.async ring of GS_STAGES shared
 * stages: global -> shared copies bypass the registers and run STAGES - 1
 * slabs ahead of the MMAs, so the load latency hides behind several slabs of
 * math instead of one, and the registers the prefetch held in gemm_mma go to
 * larger warp tiles: 64 x 64 a warp (4 x 8 fragments, 8 B fragments reused
 * by 4 A fragments and the other way round: more MMAs per ldmatrix). A
 * 128 x 128 block tile of 4 warps, k in slabs of 64 bytes (32 fp16 / bf16
 * elements, 64 fp8), 4 stages (64 KiB of dynamic shared memory: two blocks
 * an SM on sm_80 / sm_90). fp8 (mma.sync m16n8k32) takes 64 x 32 warp tiles,
 * 8 warps: its MMA needs more registers on sm_90 and 64 x 64 spilled; its
 * registers leave room for one block an SM (GS_MIN_BLOCKS).
 *
 * Constraints: any m, n, k >= 1 (zero-filled edge tiles, predicated
 * stores). cp.async moves 16-byte chunks only: rows that are not 16-byte
 * chunks (k, or n in layout nn, not a multiple of 8 fp16 / bf16 or 16 fp8
 * elements) or pointers not 16-byte aligned are loaded element by element
 * through registers into the same ring (synchronous stores, so the ring only
 * orders them): the slower instance, noted through kernel_ran_note with the
 * reason. fp8_e4m3 runs in layout tn only, on sm_89+ with code built for it
 * (gemm_multistage_supports declines the rest). Its once-misaligned fp8
 * path (a swizzle counting 8 elements a 16-byte chunk, 2-byte types only)
 * is explained in kernels/gemm_mma_core.cuh's header.
 * Run just this: ./compare --ops gemm --variants multistage */
#include <stdio.h>

#include "gemm_mma_core.cuh"

#define GS_BM 128
#define GS_BN 128
#define GS_BKB 64 /* k slab in bytes: 32 fp16 / bf16, 64 fp8 */
#define GS_WM 64
/* warp tile columns: 64 for fp16 / bf16; 32 for fp8 (8 warps), whose MMA
 * needs more registers on sm_90 and spilled at 64 */
#define GS_WN(T) (sizeof(T) == 1 ? 32 : 64)
/* the fp8 kernel's least blocks an SM for ptxas: 1. Left to itself ptxas
 * held it to 128 registers (two 256-thread blocks an SM) and spilled; at 1
 * it keeps its accumulators in registers. 0 (fp16 / bf16): not given. */
#define GS_MIN_BLOCKS(T) (sizeof(T) == 1 ? 1 : 0)
#define GS_STAGES 4
#define GS_THREADS(T) ((GS_BM / GS_WM) * (GS_BN / GS_WN(T)) * 32)
#define GS_SMEM_BYTES (GS_STAGES * (GS_BM + GS_BN) * GS_BKB)

static_assert(SMEM_SM90_FITS(GS_SMEM_BYTES, 2), "two blocks an SM");

template <typename T, bool BKM, bool VEC>
static __global__ void __launch_bounds__(GS_THREADS(T), GS_MIN_BLOCKS(T))
    gemm_multistage_kernel(const T *__restrict__ A, const T *__restrict__ B,
                           typename gemm_mma_elem<T>::out *__restrict__ C, int m, int n, int k)
{
    enum { GS_BK = GS_BKB / (int)sizeof(T), EPC = 16 / (int)sizeof(T), GS_STAGE_ELEMS = (GS_BM + GS_BN) * GS_BK };
    typedef gemm_mma_warp<T, GS_BM, GS_BN, GS_BK, GS_WM, GS_WN(T), BKM> warp;
    typedef gemm_mma_tile<T, GS_BM, GS_BK / EPC, GS_THREADS(T), VEC> tile_a;
    typedef gemm_mma_tile<T, BKM ? GS_BN : GS_BK, BKM ? GS_BK / EPC : GS_BN / EPC, GS_THREADS(T), VEC> tile_b;
    extern __shared__ __align__(128) unsigned char gs_smem[];
    T *const smem = (T *)gs_smem; /* stage s: A at s * STAGE_ELEMS, B after it */

    const int tid = threadIdx.x, lane = tid & 31, w = tid >> 5;
    const int wm0 = (w / (GS_BN / GS_WN(T))) * GS_WM, wn0 = (w % (GS_BN / GS_WN(T))) * GS_WN(T);
    int bm0, bn0;
    tile_order_origin(blockIdx.x, m, n, GS_BM, GS_BN, GEMM_MMA_GROUP, &bm0, &bn0);

    float acc[warp::MI][warp::NI][4];
    warp::zero(acc);

    const int slabs = (k + GS_BK - 1) / GS_BK;
    /* slab kt into stage s; every thread commits one group a slab (empty ones
     * past the last slab), so that wait(STAGES - 2) always means "slab kt
     * has landed" */
#define GS_LOAD(s, kt)                                                                                      \
    do {                                                                                                    \
        T *sa_ = smem + (s) * GS_STAGE_ELEMS, *sb_ = sa_ + GS_BM * GS_BK;                                   \
        tile_a::copy(sa_, A, k, m, k, bm0, (kt) * GS_BK, tid);                                              \
        if (BKM)                                                                                            \
            tile_b::copy(sb_, B, k, n, k, bn0, (kt) * GS_BK, tid);                                          \
        else                                                                                                \
            tile_b::copy(sb_, B, n, k, n, (kt) * GS_BK, bn0, tid);                                          \
    } while (0)
#pragma unroll
    for (int s = 0; s < GS_STAGES - 1; s++) {
        if (s < slabs) GS_LOAD(s, s);
        cp_async_commit();
    }
    for (int kt = 0; kt < slabs; kt++) {
        cp_async_wait(GS_STAGES - 2);
        __syncthreads(); /* slab kt visible to all; every warp is done with slab kt - 1 */
        const int next = kt + GS_STAGES - 1;
        if (next < slabs) GS_LOAD(next % GS_STAGES, next); /* the stage slab kt - 1 used */
        cp_async_commit();
        const T *sa = smem + (kt % GS_STAGES) * GS_STAGE_ELEMS;
        warp::compute(acc, sa, sa + GS_BM * GS_BK, wm0, wn0, lane);
    }
#undef GS_LOAD
    cp_async_wait(0);
    warp::store(acc, C, m, n, bm0 + wm0, bn0 + wn0, lane);
}

template <typename T, bool BKM, bool VEC>
static int gemm_multistage_launch(const gemm_args *g, cudaStream_t s)
{
    static unsigned long long opted; /* per device: smem_opt_in */
    const void *kern = (const void *)gemm_multistage_kernel<T, BKM, VEC>;
    int e = smem_opt_in(kern, GS_SMEM_BYTES, &opted);
    if (e) return e;
    const long long tiles = ((g->m + GS_BM - 1) / GS_BM) * ((g->n + GS_BN - 1) / GS_BN);
    gemm_multistage_kernel<T, BKM, VEC><<<(unsigned)tiles, GS_THREADS(T), GS_SMEM_BYTES, s>>>(
        (const T *)g->A, (const T *)g->B, (typename gemm_mma_elem<T>::out *)g->C, (int)g->m, (int)g->n, (int)g->k);
    return (int)cudaGetLastError();
}

static const gemm_mma_launch_fn gemm_multistage_instances[3][2][2] = GEMM_MMA_INSTANCES(gemm_multistage_launch);

GEMM_MMA_ENTRY(gemm_multistage, gemm_multistage_instances,
               ((const void *)gemm_multistage_kernel<__nv_fp8_e4m3, true, true>),
               "gemm_multistage_128x128x64B_s4")
