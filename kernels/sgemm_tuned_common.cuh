/* kernels/sgemm_tuned_common.cuh: what the FP32 `tuned` kernels share: thread
 * counts, stage sizes, the fragment-buffer and copy-distance rules of the
 * transposed-A main loop, its shape checks, and the dynamic shared memory.
 *
 * Idea: these are compile-time functions of a candidate's parameters, so a
 * shape that cannot work is a static_assert naming the broken constraint,
 * not a wrong result. Every kernel's stages live in one extern dynamic
 * shared array (sgemm_tuned_smem), opted in by sgemm_tuned_launch. */
#ifndef KERNELS_SGEMM_TUNED_COMMON_CUH
#define KERNELS_SGEMM_TUNED_COMMON_CUH

#include <cuda_runtime.h>

#include "cp_async.cuh"
#include "sgemm_common.cuh"
#include "smem.cuh"
#include "tile_order.cuh"

constexpr int sgemm_tuned_threads(int bm, int bn, int wm, int wn)
{
    return 32 * (bm / wm) * (bn / wn);
}

/* floats of one stage of tile / st / sk: A transposed [BK][BM+4], then B [BK][BN] */
constexpr int sgemm_tuned_stage_floats(int bm, int bn, int bk)
{
    return bk * (bm + 4) + bk * bn;
}

/* Fragment buffer of k-step kk: with the barrier at the last k-step two
 * buffers alternate; with it at k-step b0 < bk-1, k-step 0 has a buffer of
 * its own (2), which the next slab's first fragments fill right after the
 * barrier, several k-steps before they are used. */
constexpr int sgemm_tuned_buf(int bk, int b0, int kk)
{
    return b0 == bk - 1 ? kk % 2 : kk == 0 ? 2 : kk % 2;
}

/* Slabs the copies run ahead: a barrier before the last k-step (b0 < bk-1)
 * leaves reads of its slab after it, so that slab's stage is refilled one
 * slab later: one stage fewer ahead. */
constexpr int sgemm_tuned_ahead(int bk, int st, int b0)
{
    return b0 == bk - 1 ? st - 1 : st - 2;
}

/* cp.async groups a thread may leave pending at the barrier of slab t so that
 * slab t+1 has landed: D + t groups are committed before slab t's own, which
 * is committed before the barrier when its last copy group is not later. */
constexpr int sgemm_tuned_wait_groups(int bk, int st, int sp, int b0)
{
    return sgemm_tuned_ahead(bk, st, b0) - 2 + ((sp - 1) * (bk / sp) <= b0);
}

/* Shape checks of tile / st / sk (instantiated by their kernels). */
template <int BM, int BN, int BK, int WM, int WN, int TM, int TN, int ST, int MINB, int SP, int B0>
static __device__ __forceinline__ void sgemm_tuned_tile_checks(void)
{
    constexpr int LM = WM / TM, LN = WN / TN;
    constexpr int THREADS = sgemm_tuned_threads(BM, BN, WM, WN);
    constexpr int A_RSTEP = THREADS / BK;
    static_assert(LM * LN == 32 && WM % TM == 0 && WN % TN == 0, "a warp is 32 lanes");
    static_assert(TM % 4 == 0 && TN % 4 == 0, "fragments are read as float4");
    static_assert(LM <= 8 && LN <= 8, "<= 8 distinct float4 per LDS.128: one 128-byte line");
    static_assert(BM % WM == 0 && BN % WN == 0, "warp tiles must cover the block tile");
    /* a warp's 4-byte A copies (8 k x 4 rows) go to As[k][r], stride BM+4 = 4 x odd when
     * BM % 8 == 0: 8 distinct multiples of 4 (mod 32), plus r < 4: 32 distinct banks */
    static_assert(BM % 8 == 0, "As stride BM+4 = 4 x odd: the 4-byte copies land on 32 banks");
    static_assert(BK % 8 == 0 && (THREADS / 32) % (BK / 8) == 0,
                  "a warp copies 8 k x 4 rows of A; warps split BK in groups of 8");
    static_assert(BM % A_RSTEP == 0, "A elements spread evenly, a thread keeps its k");
    static_assert((BK * BN / 4) % THREADS == 0 && THREADS % (BN / 4) == 0,
                  "B chunks spread evenly, a thread keeps its n column");
    static_assert(SP >= 1 && BK % SP == 0 && (BM / A_RSTEP) % SP == 0, "copy groups tile the slab");
    static_assert(B0 >= 1 && B0 < BK, "the barrier's k-step (after k-step 0's buffer)");
    static_assert(sgemm_tuned_ahead(BK, ST, B0) >= 1, "copies at least a slab ahead");
    static_assert(sgemm_tuned_wait_groups(BK, ST, SP, B0) >= 0, "stages for the barrier position");
    static_assert(ST >= 2, "need at least double buffering");
    static_assert(THREADS <= 1024, "block size");
    static_assert(SMEM_SM90_FITS(ST * sgemm_tuned_stage_floats(BM, BN, BK) * 4, MINB),
                  "MINB blocks per SM fit in sm_90 shared memory");
}

extern __shared__ float4 sgemm_tuned_smem[]; /* every kernel's stages (dynamic) */

#endif
