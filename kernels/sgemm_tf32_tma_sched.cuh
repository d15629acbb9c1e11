/* kernels/sgemm_tf32_tma_sched.cuh: the tile schedules of the persistent TMA
 * GEMM (KIND 1, sgemm_tf32_tma_pers.cuh): which tile units, and which k slabs
 * of them, each cluster of a persistent grid takes, and the host's plan for
 * the split tail.
 *
 * Idea
 *   A persistent grid of `step` clusters walks work items: cluster `first`
 *   takes items first, first + step, ... (a static schedule: no atomics to
 *   hand out work). A unit is one BM x 128 tile (CL = 1) or two side by side
 *   along n (CL = 2, one per CTA of the cluster, the same rows of A), in the
 *   grouped order (tile_order.cuh), so that the clusters running at once
 *   cover a compact patch of C and share A and B panels in L2.
 *   - SK 0, whole tiles: every item a whole unit.
 *   - SK 1, split k: when the units do not fill the resident clusters, k is
 *     cut in nsplit parts of at least SGEMM_TMAP_MIN_SPLIT_SLABS slabs (none
 *     empty), each part an item; the parts are added into C (zeroed by the
 *     launcher) with float2 atomics, so the order of the additions, and the
 *     last bits of the results, vary from run to run (within the TF32
 *     tolerance).
 *   - SK 4, split tail: whole waves of units leave a partial last wave, and
 *     the clusters without a unit in it would wait out a whole unit's time.
 *     The launcher cuts each of those rem units into P k pieces, as many as
 *     still run in one round (sgemm_tmap_kst_plan), and hands them out
 *     piece-major after the whole units: every cluster's piece starts at the
 *     same moment (all clusters finish their whole waves together), and the
 *     pieces running at once read the same k range of neighbouring tiles, in
 *     lock-step, as a whole wave does, so they share their slabs in L2. The
 *     pieces of a tile meet through a workspace (sgemm_tmap_gather in
 *     sgemm_tf32_tma_epilogue.cuh); their sum is taken in piece order, so
 *     results are deterministic. With no tail to cut the launcher runs the
 *     same candidate's SK 0 kernel, instruction for instruction the
 *     whole-tile one.
 *   (SK 2 and 3 are not used.)
 *
 * Constraints: units < 2^31 (checked by the launcher); at most
 * SGEMM_TMAP_KST_MAX_TAIL tail units (the workspace's counters). */
#ifndef KERNELS_SGEMM_TF32_TMA_SCHED_CUH
#define KERNELS_SGEMM_TF32_TMA_SCHED_CUH

#include <stddef.h>

#include "sgemm_wgmma_common.cuh"

/* KIND 1 schedule, the kernel's last argument (host-filled by
 * sgemm_tmap_launch). Split k (SK = 1): kts slabs per part, nsplit parts.
 * Split tail (SK = 4): the last sk_units tile units (0: none) cut into
 * nsplit pieces of kts slabs (the last may be shorter, none empty), ws and
 * cnt their partial tiles and arrival counters (SGEMM_STAGE_POOL_STREAMK,
 * see sgemm_tmap_gather). */
typedef struct {
    int kts, nsplit;
    int sk_units;
    float *ws;
    unsigned *cnt;
} sgemm_tmap_sched;

#define SGEMM_TMAP_MIN_SPLIT_SLABS 4 /* k slabs per split or piece at least */

#define SGEMM_TMAP_KST_MAX_TAIL 1024 /* split tail: counters for this many tail units */
/* The workspace: two blocks of SGEMM_TMAP_SK_CNT_N counters (fixed size,
 * first: every candidate's launches share them), then per tail unit, CTA
 * rank, consumer warpgroup and piece one slot of BM x 64 floats. The split
 * tail counts in the second block, per tail unit, CTA rank and consumer
 * warpgroup; the first block is unused (it held a stream-K schedule's
 * counters, removed; the layout stays so that the split-tail kernel stays
 * the one that was measured). */
#define SGEMM_TMAP_SK_CNT_N (SGEMM_TMAP_KST_MAX_TAIL * 2 * 2)
#define SGEMM_TMAP_SK_CNT_BYTES (2 * SGEMM_TMAP_SK_CNT_N * 4)
#define SGEMM_TMAP_KST_WS_BYTES(TAIL, PIECES, CL, BM) \
    (SGEMM_TMAP_SK_CNT_BYTES + (size_t)(TAIL) * (CL) * 2 * (PIECES) * (BM) * 64 * 4)
/* the stream-K schedule's workspace; no candidate uses it, only
 * sgemm_tf32_tma.cu's workspace estimate for a stream-K LARGE pick names it */
#define SGEMM_TMAP_SK_WS_BYTES(CLUSTERS, CL, BM) \
    (SGEMM_TMAP_SK_CNT_BYTES + (size_t)((CLUSTERS) + 1) * (CL) * 2 * 2 * (BM) * 64 * 4)

/* This cluster's work items (cluster `first` of `step`): their count, and
 * item `it` as a tile unit u (a pair (CL = 2) or a single tile (CL = 1) of
 * BM x 128 tiles side by side along n, in the grouped order) with its k
 * slabs [kt0, kt1).
 *   SK 0: units first, first + step, ... whole.
 *   SK 1 (split k): units of tile_units x nsplit; unit u is part
 *     u / tile_units (slabs [part kts, +kts)) of tile unit u % tile_units.
 *   SK 4 (split tail): units first, first + step, ... whole up to the last
 *     sk_units (the partial last wave, sk_units < step), then pieces
 *     t = first, first + step, ... < nsplit x sk_units, piece t being k part
 *     t / sk_units (slabs [part kts, +kts)) of tail unit t % sk_units:
 *     piece-major, so the pieces running at once share k ranges. */
static __device__ __forceinline__ int sgemm_tmap_items(int first, int step, int units, int KT,
                                                       const sgemm_tmap_sched &sc, const int SK)
{
    if (SK == 4) {
        const int whole = (units - sc.sk_units - first + step - 1) / step;
        const int pieces = sc.nsplit * sc.sk_units;
        return whole + (first < pieces ? (pieces - first + step - 1) / step : 0);
    }
    return (units - first + step - 1) / step;
}

static __device__ __forceinline__ void sgemm_tmap_item(int it, int first, int step, int units, int KT,
                                                       const sgemm_tmap_sched &sc, const int SK, int *u,
                                                       int *kt0, int *kt1)
{
    if (SK == 1) {
        const int tile_units = units / sc.nsplit, v = first + it * step;
        const int sp = v / tile_units;
        *u = v - sp * tile_units;
        *kt0 = sp * sc.kts;
        *kt1 = min(KT, *kt0 + sc.kts); /* > kt0: the launcher makes every split non-empty */
        return;
    }
    *kt0 = 0;
    *kt1 = KT;
    if (SK == 4) {
        const int dp = units - sc.sk_units, whole = (dp - first + step - 1) / step;
        if (it < whole) {
            *u = first + it * step;
            return;
        }
        const int t = first + (it - whole) * step, part = t / sc.sk_units;
        *u = dp + (t - part * sc.sk_units);
        *kt0 = part * sc.kts;
        *kt1 = min(KT, *kt0 + sc.kts); /* > kt0: the launcher makes every piece non-empty */
        return;
    }
    *u = first + it * step;
}

/* Tile unit u's tile for this CTA: rows bm0.., columns bn0.. (CL x the unit
 * column + rank: past n for the right member of an odd last pair, which
 * loads zeros, stores nothing, and still multicasts its half of A to its
 * peer). */
static __device__ __forceinline__ void sgemm_tmap_tile(int u, int units_n, int tiles_m, unsigned rank,
                                                       const int BM, const int CL, int *bm0, int *bn0)
{
    const int2 t = tile_order_grouped(u, units_n, tiles_m, SGEMM_WG_GROUP_M);
    *bm0 = t.y * BM;
    *bn0 = (t.x * CL + (int)rank) * 128;
}

/* Split tail (SK 4): how many tail units (the partial last wave: units %
 * S on S clusters, 0 for none) to cut into how many k pieces (*pieces,
 * 2 .. 4, each at least SGEMM_TMAP_MIN_SPLIT_SLABS slabs): the most that
 * still run in one round (P rem <= S), so that the tail takes 1 / P of a
 * unit's time instead of a whole one. Not taken when two pieces do not fit
 * in one round (rem > S / 2): rounds of pieces ran slower than whole units
 * on the GPU it was tuned on (docs/tuning/tf32_tma.md). */
static inline long long sgemm_tmap_kst_plan(long long units, long long S, int KT, int *pieces)
{
    const long long rem = S > 0 ? units % S : 0;
    *pieces = 0;
    if (units <= S || rem == 0 || 2 * rem > S || rem > SGEMM_TMAP_KST_MAX_TAIL)
        return 0;
    int P = (int)(S / rem);
    if (P > 4)
        P = 4;
    while (P >= 2 && KT < P * SGEMM_TMAP_MIN_SPLIT_SLABS)
        P--;
    if (P < 2)
        return 0;
    *pieces = P;
    return rem;
}

#endif
