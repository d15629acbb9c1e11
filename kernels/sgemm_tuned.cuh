/* kernels/sgemm_tuned.cuh: the FP32 SGEMM kernels behind `tuned`, as templates
 * over their tile shape, and the table of shapes compare-search times.
 *
 * Included by kernels/sgemm_tuned.cu (which instantiates only the shapes
 * `tuned` picks, by name) and kernels/search/sgemm_search.cu (which
 * instantiates every row of SGEMM_TUNED_CANDIDATES, for compare-search only).
 * Every kernel and launcher here is `static`: each translation unit has its
 * own copies and its own stream-K flags.
 *
 * Kernels (KIND in the table)
 *   rowa  sgemm_pipelined.cu's design in other shapes: cp.async multi-stage
 *         pipeline, A row-major in shared memory read along k with LDS.128
 *         from interleaved rows, B read as float4 by lane groups, the thread
 *         tile in registers. Small tiles fill the SMs at small sizes.
 *   tile  A stored transposed in shared memory ([BK][BM+4], written by 4-byte
 *         cp.async: the transpose is in the copy's addressing), so one k-step
 *         of a thread's fragments is TM/4 + TN/4 LDS.128 and fits twice in
 *         registers; then:
 *         - spread copies: the copies of slab t+D are issued in SP groups
 *           spread over the k-steps of slab t (group g at k-step g*BK/SP)
 *           instead of one block before them, and the loop body has no
 *           branch: past the last slab they are zero-fill copies into a
 *           stage nothing reads again. Issued as one block, they were where
 *           the profile put most of the warps' stall samples.
 *         - clamped sources: A rows and B columns outside the matrix are
 *           clamped into it instead of predicated (their products only reach
 *           elements of C that are never stored), so a copy is one address
 *           and one LDGSTS.
 *         - the slab's one barrier at k-step B0: with B0 = BK-1 it sits
 *           before the last k-step and the copies run D = ST-1 slabs ahead;
 *           ptxas hoists most of that k-step's FFMAs above it, so the next
 *           slab's first fragments arrive just before use. With B0 < BK-1 it
 *           sits mid-slab, k-step 0 gets a fragment buffer of its own that is
 *           filled right after the barrier, several k-steps before use, and
 *           the copies run D = ST-2 slabs ahead (the stage of slab t-1 is
 *           still read after t-1's barrier, so it is refilled a slab later).
 *         - GROUP-row grouped tile order (kernels/common/tile_order.cuh).
 *   st    tile with C staged through shared memory (sgemm_tuned_store_staged):
 *         each warp then stores 512 contiguous bytes per instruction instead
 *         of 16-byte pieces of many rows, which matters when every block
 *         stores at the same time (one wave); it also frees ptxas to pick
 *         registers with fewer FFMA operand bank conflicts.
 *   sk    tile's main loop on a persistent stream-K grid (Osama et al.,
 *         PPoPP 2023) with C staged: one block per resident slot, at most
 *         MINB per SM (G blocks).
 *         The tiles of the full waves go out as in a grid of one block per
 *         tile (wave w: tile w*G + block, all its k-slabs), so blocks working
 *         at the same time sit on neighbouring tiles at the same k (L2 reuse:
 *         with every tile split, blocks drift apart in k and DRAM traffic
 *         grows several-fold). The k-slabs of the remaining tiles, in tile
 *         order, are cut into G equal contiguous ranges, one per block, after
 *         its full tiles: they fill the SMs the last partial wave would leave
 *         idle. Partial tiles go through C itself (no workspace): block b's
 *         segment that starts mid-tile writes its partial sum into C and
 *         publishes sgemm_tuned_sk_flags[b] = the launch's epoch; block b's
 *         segment that ends mid-tile waits for flag b+1, then adds its
 *         registers to C by reductions. A block waits only on the next one,
 *         which publishes after its first split segment, so the chain ends at
 *         the last block; every block is resident (cooperative launch), so
 *         every wait ends. That needs block b+1's range to be non-empty
 *         whenever b's ends mid-tile: the launcher picks G so that the split
 *         slabs are at least G (or there are none, or a tile is one slab:
 *         sgemm_tuned_sk_grid). Each tile's sum has a fixed order: results
 *         are deterministic.
 *   sl2, sl4, sl8  sliced-k (sgemm_tuned_sliced_kernel): one block per tile
 *         of 2, 4 or 8 groups of warps, each an st block over its own
 *         contiguous range of the k-slabs with its own stage ring; the
 *         partial tiles are summed in shared memory in a fixed order. More
 *         warps on the same few tiles for small problems, no fix-ups through
 *         C.
 *
 * Constraints: any m, n, k >= 1. vec (k % 4 == 0 and n % 4 == 0: rows of A
 * and B 16-byte aligned) selects 16-byte copies and float4 stores of C, else
 * the same kernel with 4-byte copies and scalar stores (rowa and tile copy A
 * element by element in every case, so A needs no alignment). Shape
 * constraints are static_asserts (sgemm_tuned_tile_checks, sgemm_tuned_rowa_
 * kernel); every kernel uses dynamic shared memory, opted in by its launcher.
 * sk launches cooperatively (every block resident, or the launch is refused:
 * sgemm_tuned.cu then runs st of the same shape), and its flags are one set
 * per translation unit and device: two sk launches of one unit must not run
 * at the same time (on one stream they never do). Split tiles are summed in
 * C with FP32 atomic adds (subnormal sums flush to zero). */
#ifndef KERNELS_SGEMM_TUNED_CUH
#define KERNELS_SGEMM_TUNED_CUH

#include <cuda_runtime.h>

#include "candidate_name.cuh"
#include "cp_async.cuh"
#include "sgemm_common.cuh"
#include "smem.cuh"
#include "tile_order.cuh"

// ---- the candidates ----------------------------------------------------------------

/* X(NAME, KIND, BM, BN, BK, WM, WN, TM, TN, ST, MINB, GROUP, SP, B0): block tile
 * BM x BN, k-slab BK, warp tile WM x WN, thread tile TM x TN, ST stages,
 * __launch_bounds__(threads, MINB) (threads = 32 * (BM/WM) * (BN/WN);
 * 2 x 256 or 1 x 512 threads leave 128 registers, 2 x 128 or 1 x 256 up to
 * 255, which 8x16 thread tiles need), and for tile / st / sk the GROUP-row
 * tile order, SP copy groups per slab and the barrier's k-step B0 (0 for
 * rowa). NAME is BMxBNxBK_wWMxWN_tTMxTN_sST, then _gGROUP_spSP_bB0 for tile,
 * then _st or _sk: checked against the parameters at compile time. A pick
 * (-DSGEMM_TUNED_LARGE=NAME) must name a row.
 *
 * Kept from the earlier search runs (results/h200/search_fp32*.txt): the
 * 128x64 rowa shape (tuned's former small pick); tile around the best
 * shape; sk and st at the three best tile shapes. Dropped, because a kept
 * row beat each of them at every size of those runs (n = 256 .. 8192: the
 * 128x64 rowa shape up to n = 1024, tile's 128x128x8 shape from 2048): the
 * other rowa shapes (128x128 with 8x8 or 8x16 thread tiles, 256x128,
 * 128x256), and the whole second kernel (A transposed with fragments
 * double-buffered in registers but the copies in one block before the
 * k-steps; names ending in _db_gGROUP), whose idea lives on in tile.
 *
 * Sliced rows (sl2/sl4/sl8) of the small shapes: see sgemm_tuned_sliced_kernel.
 *
 * Small stream-K rows (64x64, 32x64, 16x128, 32x128 with 4x8 or 4x4 thread
 * tiles), for problems with few large tiles: at 256^3 a 128x256 tile gives 2
 * tiles, so 2 SMs' worth of blocks each run a long serial k-loop. A small
 * tile on the stream-K grid spreads all tiles' k-slabs over every SM, a few
 * slabs per block. 16xN and 32xN are skinny tiles for a small m (a decode
 * batch, m = 16): a 128-row tile would spend most of its FMAs on rows past
 * m. MINB is chosen so that MINB blocks give an SM 8 or more warps (it also
 * caps the stream-K grid per SM: sgemm_tuned_sk_launch). Their _st rows are
 * what `tuned` falls back to when the cooperative launch is refused (listed,
 * so the catalog tests run them). */
#define SGEMM_TUNED_CANDIDATES(X)                                                                \
    X(128x64x16_w64x32_t8x8_s3, rowa, 128, 64, 16, 64, 32, 8, 8, 3, 4, 0, 0, 0)                   \
    X(128x128x8_w64x64_t8x16_s4_g8_sp8_b7, tile, 128, 128, 8, 64, 64, 8, 16, 4, 2, 8, 8, 7)       \
    X(128x256x8_w64x64_t8x16_s3_g8_sp2_b7, tile, 128, 256, 8, 64, 64, 8, 16, 3, 1, 8, 2, 7)       \
    X(128x256x8_w64x64_t8x16_s4_g8_sp2_b4, tile, 128, 256, 8, 64, 64, 8, 16, 4, 1, 8, 2, 4)       \
    X(256x128x8_w64x64_t8x16_s4_g8_sp2_b4, tile, 256, 128, 8, 64, 64, 8, 16, 4, 1, 8, 2, 4)       \
    X(128x256x8_w64x64_t8x16_s4_g8_sp2_b2, tile, 128, 256, 8, 64, 64, 8, 16, 4, 1, 8, 2, 2)       \
    X(128x256x16_w64x64_t8x16_s4_g8_sp2_b8, tile, 128, 256, 16, 64, 64, 8, 16, 4, 1, 8, 2, 8)     \
    X(128x256x8_w64x64_t8x16_s4_g8_sp1_b4, tile, 128, 256, 8, 64, 64, 8, 16, 4, 1, 8, 1, 4)       \
    X(128x256x8_w32x128_t8x16_s4_g8_sp2_b4, tile, 128, 256, 8, 32, 128, 8, 16, 4, 1, 8, 2, 4)     \
    X(128x256x8_w64x64_t8x16_s4_g8_sp2_b4_sk, sk, 128, 256, 8, 64, 64, 8, 16, 4, 1, 8, 2, 4)      \
    X(128x256x8_w32x128_t8x16_s4_g8_sp2_b4_sk, sk, 128, 256, 8, 32, 128, 8, 16, 4, 1, 8, 2, 4)    \
    X(128x128x8_w64x64_t8x16_s4_g8_sp8_b7_sk, sk, 128, 128, 8, 64, 64, 8, 16, 4, 2, 8, 8, 7)      \
    X(128x256x8_w64x64_t8x16_s4_g8_sp2_b4_st, st, 128, 256, 8, 64, 64, 8, 16, 4, 1, 8, 2, 4)      \
    X(128x256x8_w32x128_t8x16_s4_g8_sp2_b4_st, st, 128, 256, 8, 32, 128, 8, 16, 4, 1, 8, 2, 4)    \
    X(128x128x8_w64x64_t8x16_s4_g8_sp8_b7_st, st, 128, 128, 8, 64, 64, 8, 16, 4, 2, 8, 8, 7)      \
    X(64x64x8_w32x32_t4x8_s6_g8_sp2_b7_sk, sk, 64, 64, 8, 32, 32, 4, 8, 6, 2, 8, 2, 7)            \
    X(64x64x16_w32x16_t4x4_s6_g8_sp2_b15_sk, sk, 64, 64, 16, 32, 16, 4, 4, 6, 1, 8, 2, 15)        \
    X(64x64x16_w32x16_t4x4_s6_g8_sp2_b15_st, st, 64, 64, 16, 32, 16, 4, 4, 6, 1, 8, 2, 15)        \
    X(32x64x8_w16x32_t4x4_s6_g8_sp2_b7_sk, sk, 32, 64, 8, 16, 32, 4, 4, 6, 4, 8, 2, 7)            \
    X(16x128x8_w16x64_t4x8_s6_g8_sp2_b7_sk, sk, 16, 128, 8, 16, 64, 4, 8, 6, 4, 8, 2, 7)          \
    X(16x128x8_w16x64_t4x8_s6_g8_sp2_b7_st, st, 16, 128, 8, 16, 64, 4, 8, 6, 4, 8, 2, 7)          \
    X(32x128x8_w16x64_t4x8_s6_g8_sp2_b7_sk, sk, 32, 128, 8, 16, 64, 4, 8, 6, 2, 8, 2, 7)          \
    X(16x128x8_w16x64_t4x8_s4_g8_sp2_b7_sl2, sl2, 16, 128, 8, 16, 64, 4, 8, 4, 4, 8, 2, 7)        \
    X(16x128x8_w16x64_t4x8_s4_g8_sp2_b7_sl4, sl4, 16, 128, 8, 16, 64, 4, 8, 4, 2, 8, 2, 7)        \
    X(16x128x8_w16x64_t4x8_s4_g8_sp2_b7_sl8, sl8, 16, 128, 8, 16, 64, 4, 8, 4, 1, 8, 2, 7)        \
    X(32x128x8_w16x64_t4x8_s4_g8_sp2_b7_sl4, sl4, 32, 128, 8, 16, 64, 4, 8, 4, 1, 8, 2, 7)        \
    X(64x64x8_w32x32_t4x8_s5_g8_sp2_b7_sl4, sl4, 64, 64, 8, 32, 32, 4, 8, 5, 1, 8, 2, 7)

#define SGEMM_TUNED_KIND_rowa 0
#define SGEMM_TUNED_KIND_tile 1
#define SGEMM_TUNED_KIND_st 2
#define SGEMM_TUNED_KIND_sk 3
#define SGEMM_TUNED_KIND_sl2 4 /* sliced-k: 2, 4 or 8 k-slices a block */
#define SGEMM_TUNED_KIND_sl4 5
#define SGEMM_TUNED_KIND_sl8 6

/* k-slices of a block of kind `kind` (1 but for the sl kinds). */
constexpr int sgemm_tuned_slices(int kind)
{
    return kind == SGEMM_TUNED_KIND_sl2 ? 2 : kind == SGEMM_TUNED_KIND_sl4 ? 4 : kind == SGEMM_TUNED_KIND_sl8 ? 8 : 1;
}

/* A candidate's parameters, as constants the launchers take as template
 * arguments (SGEMM_TUNED_ARGS). */
typedef struct {
    int kind;             /* SGEMM_TUNED_KIND_* */
    int bm, bn, bk;       /* block tile, k-slab */
    int wm, wn, tm, tn;   /* warp tile, thread tile */
    int st, minb;         /* stages, __launch_bounds__ blocks per SM */
    int group, sp, b0;    /* tile order group, copy groups, barrier k-step (tile kinds) */
    const char *name;     /* the candidate's name (a static string) */
    const char *fallback; /* sk: the name of st at the same shape (its fallback) */
} sgemm_tuned_cfg;

/* The name rebuilt from the parameters, per kind (pieces for candidate_name_is). */
#define SGEMM_TUNED_SHAPE(BM, BN, BK, WM, WN, TM, TN, ST)                                          \
    #BM "x" #BN "x" #BK "_w" #WM "x" #WN "_t" #TM "x" #TN "_s" #ST
#define SGEMM_TUNED_TILE_SUFFIX(G, SP, B0) "_g" #G "_sp" #SP "_b" #B0
#define SGEMM_TUNED_SUFFIX_rowa(G, SP, B0) ""
#define SGEMM_TUNED_SUFFIX_tile(G, SP, B0) SGEMM_TUNED_TILE_SUFFIX(G, SP, B0)
#define SGEMM_TUNED_SUFFIX_st(G, SP, B0) SGEMM_TUNED_TILE_SUFFIX(G, SP, B0) "_st"
#define SGEMM_TUNED_SUFFIX_sk(G, SP, B0) SGEMM_TUNED_TILE_SUFFIX(G, SP, B0) "_sk"
#define SGEMM_TUNED_SUFFIX_sl2(G, SP, B0) SGEMM_TUNED_TILE_SUFFIX(G, SP, B0) "_sl2"
#define SGEMM_TUNED_SUFFIX_sl4(G, SP, B0) SGEMM_TUNED_TILE_SUFFIX(G, SP, B0) "_sl4"
#define SGEMM_TUNED_SUFFIX_sl8(G, SP, B0) SGEMM_TUNED_TILE_SUFFIX(G, SP, B0) "_sl8"

/* sgemm_tuned_cfg_NAME for every row, with its name checked. */
#define SGEMM_TUNED_CFG_ROW(NAME, KIND, BM, BN, BK, WM, WN, TM, TN, ST, MINB, G, SP, B0)           \
    static constexpr sgemm_tuned_cfg sgemm_tuned_cfg_##NAME = {                                    \
        SGEMM_TUNED_KIND_##KIND, BM, BN, BK, WM, WN, TM, TN, ST, MINB, G, SP, B0, #NAME,           \
        SGEMM_TUNED_SHAPE(BM, BN, BK, WM, WN, TM, TN, ST) SGEMM_TUNED_SUFFIX_st(G, SP, B0)};        \
    static_assert(candidate_name_is(#NAME, SGEMM_TUNED_SHAPE(BM, BN, BK, WM, WN, TM, TN, ST),      \
                                    SGEMM_TUNED_SUFFIX_##KIND(G, SP, B0)),                         \
                  "the candidate's name says its parameters");
SGEMM_TUNED_CANDIDATES(SGEMM_TUNED_CFG_ROW)

/* The row named NAME (a macro argument such as SGEMM_TUNED_LARGE is expanded
 * first); a name that is not a row is an undeclared identifier: a compile
 * error naming it. */
#define SGEMM_TUNED_CFG(NAME) SGEMM_TUNED_CFG_(NAME)
#define SGEMM_TUNED_CFG_(NAME) sgemm_tuned_cfg_##NAME
/* A row's parameters as template arguments, after the kind. */
#define SGEMM_TUNED_ARGS(c) c.bm, c.bn, c.bk, c.wm, c.wn, c.tm, c.tn, c.st, c.minb, c.group, c.sp, c.b0

// ---- shapes shared by the kernels --------------------------------------------------

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

// ---- rowa: A row-major in shared memory (sgemm_pipelined's design) --------------

/* Issues the copies of the next k-slab into the stage at stage offset `so`
 * (no commit) and advances the running sources and "k left" counters. */
template <int BM, int BN, int BK, int THREADS, int VEC>
static __device__ __forceinline__ void sgemm_tuned_rowa_copy(float *as_dst, float *bs_dst, int so,
                                                             const float *&a_src, const float *&b_src,
                                                             int a_rows_left, int &a_k_left,
                                                             int &b_k_left, int b_col, int n, int k,
                                                             const float *A, const float *B)
{
    constexpr int AS_LD = BK + 4;                      /* As row stride, floats */
    constexpr int A_CHUNKS = BM * BK / 4 / THREADS;    /* A chunks per thread per slab */
    constexpr int B_CHUNKS = BK * BN / 4 / THREADS;
    constexpr int A_STEP = THREADS / (BK / 4);         /* rows between a thread's A chunks */
    constexpr int B_STEP = THREADS / (BN / 4);
#pragma unroll
    for (int l = 0; l < A_CHUNKS; ++l)
        sgemm_cp_async_chunk(as_dst + so + l * A_STEP * AS_LD, a_src + (size_t)l * A_STEP * k,
                             l * A_STEP < a_rows_left, 0, a_k_left, A, VEC);
#pragma unroll
    for (int l = 0; l < B_CHUNKS; ++l)
        sgemm_cp_async_chunk(bs_dst + so + l * B_STEP * BN, b_src + (size_t)l * B_STEP * n,
                             l * B_STEP < b_k_left, b_col, n, B, VEC);
    a_src += BK;
    b_src += (size_t)BK * n;
    a_k_left -= BK;
    b_k_left -= BK;
}

/* Block tile BM x BN, k-slab BK, warp tile WM x WN, thread tile TM x TN (rows
 * interleaved by WM/TM, columns in float4 groups), ST stages. */
template <int BM, int BN, int BK, int WM, int WN, int TM, int TN, int ST, int MINB, int VEC>
static __global__ void __launch_bounds__(sgemm_tuned_threads(BM, BN, WM, WN), MINB)
sgemm_tuned_rowa_kernel(const float *__restrict__ A, const float *__restrict__ B,
                        float *__restrict__ C, int m, int n, int k)
{
    constexpr int LM = WM / TM;          /* lanes of a warp along m */
    constexpr int LN = WN / TN;          /* lanes of a warp along n */
    constexpr int WARPS_N = BN / WN;
    constexpr int THREADS = sgemm_tuned_threads(BM, BN, WM, WN);
    constexpr int AS_LD = BK + 4;        /* As row stride, floats */
    constexpr int STAGE_FLOATS = BM * AS_LD + BK * BN;
    static_assert(LM * LN == 32 && WM % TM == 0 && WN % TN == 0, "a warp is 32 lanes");
    static_assert(LM <= 8 && LN <= 8,
                  "<= 8 distinct As rows / Bs float4 per LDS.128 keep reads conflict-free");
    static_assert(BM % WM == 0 && BN % WN == 0, "warp tiles must cover the block tile");
    static_assert(TN % 4 == 0, "B fragments are read as float4");
    static_assert(BK % 8 == 0, "BK/4 even keeps the As stride BK+4 conflict-free");
    static_assert(ST >= 2, "need at least double buffering");
    static_assert(THREADS <= 1024, "block size");
    static_assert((BM * BK / 4) % THREADS == 0 && THREADS % (BK / 4) == 0,
                  "A chunks spread evenly, a thread keeps its k column");
    static_assert((BK * BN / 4) % THREADS == 0 && THREADS % (BN / 4) == 0,
                  "B chunks spread evenly, a thread keeps its n column");
    static_assert(SMEM_SM90_FITS(ST * STAGE_FLOATS * 4, MINB),
                  "MINB blocks per SM fit in sm_90 shared memory");

    float *smem = (float *)sgemm_tuned_smem;
    const int tid = threadIdx.x;
    const int bm = blockIdx.y * BM;
    const int bn = blockIdx.x * BN;
    const int warp = tid / 32, lane = tid % 32;
    const int tm0 = (warp / WARPS_N) * WM + lane / LN;       /* rows tm0 + i*LM */
    const int tn0 = (warp % WARPS_N) * WN + (lane % LN) * 4; /* cols tn0 + j4*LN*4 + [0,4) */

    /* copies, fixed for the whole loop: A chunks (bm + a_r + l*A_STEP, a_c..+3),
     * B chunks (b_r + l*B_STEP, bn + b_c..+3) of each slab */
    const int a_r = tid / (BK / 4), a_c = (tid % (BK / 4)) * 4;
    const int b_r = tid / (BN / 4), b_c = (tid % (BN / 4)) * 4;
    const int a_rows_left = m - (bm + a_r);
    const float *a_src = A + (size_t)(bm + a_r) * k + a_c;
    const float *b_src = B + (size_t)b_r * n + bn + b_c;
    float *as_dst = smem + a_r * AS_LD + a_c;
    float *bs_dst = smem + BM * AS_LD + b_r * BN + b_c;
    int a_k_left = k - a_c;
    int b_k_left = k - b_r;
    const int ntiles = SGEMM_CEIL_DIV(k, BK);

    /* slabs 0 .. ST-2 in flight, one group each (empty ones keep the count uniform) */
#pragma unroll
    for (int s = 0; s < ST - 1; ++s) {
        if (s < ntiles) {
            sgemm_tuned_rowa_copy<BM, BN, BK, THREADS, VEC>(as_dst, bs_dst, s * STAGE_FLOATS, a_src,
                                                            b_src, a_rows_left, a_k_left, b_k_left,
                                                            bn + b_c, n, k, A, B);
        }
        cp_async_commit();
    }

    float acc[TM][TN];
#pragma unroll
    for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int j = 0; j < TN; ++j)
            acc[i][j] = 0.0f;

    int read_stage = 0, write_stage = ST - 1;
    for (int t = 0; t < ntiles; ++t) {
        /* slabs 0..t landed (this thread); the barrier makes them visible and
         * frees stage (t-1) % ST for slab t+ST-1 */
        cp_async_wait(ST - 2);
        __syncthreads();
        if (t + ST - 1 < ntiles) {
            sgemm_tuned_rowa_copy<BM, BN, BK, THREADS, VEC>(as_dst, bs_dst, write_stage * STAGE_FLOATS,
                                                            a_src, b_src, a_rows_left, a_k_left,
                                                            b_k_left, bn + b_c, n, k, A, B);
        }
        cp_async_commit();

        const float *as = smem + read_stage * STAGE_FLOATS;
        const float *bs = as + BM * AS_LD;
#pragma unroll
        for (int kc = 0; kc < BK; kc += 4) {
            float a[TM][4]; /* a[i][q] = A(tm0 + i*LM, kc + q) */
#pragma unroll
            for (int i = 0; i < TM; ++i) {
                float4 v = *(const float4 *)&as[(tm0 + i * LM) * AS_LD + kc];
                a[i][0] = v.x, a[i][1] = v.y, a[i][2] = v.z, a[i][3] = v.w;
            }
#pragma unroll
            for (int q = 0; q < 4; ++q) {
                float b[TN];
#pragma unroll
                for (int j4 = 0; j4 < TN / 4; ++j4) {
                    float4 v = *(const float4 *)&bs[(kc + q) * BN + tn0 + j4 * (LN * 4)];
                    b[j4 * 4 + 0] = v.x, b[j4 * 4 + 1] = v.y, b[j4 * 4 + 2] = v.z, b[j4 * 4 + 3] = v.w;
                }
#pragma unroll
                for (int i = 0; i < TM; ++i)
#pragma unroll
                    for (int j = 0; j < TN; ++j)
                        acc[i][j] = fmaf(a[i][q], b[j], acc[i][j]);
            }
        }
        read_stage = read_stage + 1 == ST ? 0 : read_stage + 1;
        write_stage = write_stage + 1 == ST ? 0 : write_stage + 1;
    }

#pragma unroll
    for (int i = 0; i < TM; ++i) {
        const int gr = bm + tm0 + i * LM;
        float *c_row = C + (size_t)(gr < m ? gr : 0) * n;
#pragma unroll
        for (int j4 = 0; j4 < TN / 4; ++j4)
            sgemm_store4(c_row, gr < m, bn + tn0 + j4 * (LN * 4), n, VEC,
                         make_float4(acc[i][j4 * 4 + 0], acc[i][j4 * 4 + 1], acc[i][j4 * 4 + 2],
                                     acc[i][j4 * 4 + 3]));
    }
}

// ---- tile / st / sk: the main loop -------------------------------------------------

/* Copies A element l of the slab at a_ptr into stage pointer st (4-byte
 * cp.async, zero-filled past k). The row is clamped into A instead of
 * predicated: a row past m loads row m-1, whose products only reach rows of
 * C that are never stored. */
template <int A_RSTEP>
static __device__ __forceinline__ void sgemm_tuned_copy_a(float *st, int l, const float *a_ptr,
                                                          int a_max_off, int k, int a_kok)
{
    cp_async4(st + l * A_RSTEP, a_ptr + (size_t)min(l * A_RSTEP, a_max_off) * k, a_kok ? 4 : 0);
}

/* Copies B chunk l (row b_r + l*B_STEP of the slab) into stage pointer st:
 * with VEC one 16-byte cp.async from a column clamped into B (as for A's
 * rows: clamped columns only reach columns of C that are never stored),
 * zero-filled past k; else four predicated 4-byte ones. */
template <int BN, int B_STEP, int VEC>
static __device__ __forceinline__ void sgemm_tuned_copy_b(float *st, int l, const float *b_ptr,
                                                          int b_k_left, int b_col, int n,
                                                          const float *B)
{
    const int kok = l * B_STEP < b_k_left;
    if (VEC)
        cp_async16(st + l * B_STEP * BN, kok ? b_ptr + (size_t)l * B_STEP * n : B, kok ? 16 : 0);
    else
        sgemm_cp_async_chunk(st + l * B_STEP * BN, b_ptr + (size_t)l * B_STEP * n, kok, b_col, n, B, 0);
}

/* Loads the fragments of k-step kq of the slab at as / bs into buffer buf of
 * a_f, b_f: TM/4 float4 of As row kq (m contiguous), TN/4 float4 of Bs row kq. */
template <int BM, int BN, int TM, int TN, int LM, int LN>
static __device__ __forceinline__ void sgemm_tuned_load_frags(float (&a_f)[3][TM], float (&b_f)[3][TN],
                                                              int buf, const float *as,
                                                              const float *bs, int kq, int tm0,
                                                              int tn0)
{
    constexpr int AS_LD = BM + 4;
#pragma unroll
    for (int i4 = 0; i4 < TM / 4; ++i4) {
        const float4 v = *(const float4 *)&as[kq * AS_LD + tm0 + i4 * (LM * 4)];
        a_f[buf][i4 * 4 + 0] = v.x, a_f[buf][i4 * 4 + 1] = v.y;
        a_f[buf][i4 * 4 + 2] = v.z, a_f[buf][i4 * 4 + 3] = v.w;
    }
#pragma unroll
    for (int j4 = 0; j4 < TN / 4; ++j4) {
        const float4 v = *(const float4 *)&bs[kq * BN + tn0 + j4 * (LN * 4)];
        b_f[buf][j4 * 4 + 0] = v.x, b_f[buf][j4 * 4 + 1] = v.y;
        b_f[buf][j4 * 4 + 2] = v.z, b_f[buf][j4 * 4 + 3] = v.w;
    }
}

/* The main loop of tile / st / sk over ns k-slabs of the block tile at
 * (bm, bn), from slab ks on (k = ks*BK ..): leaves the tile's partial
 * product over those slabs in acc. The thread's place: tid, warp, lane, and
 * its tile's first row / column tm0, tn0 (rows tm0 + i4*LM*4 + [0,4),
 * columns tn0 + j4*LN*4 + [0,4)). Copies run D slabs ahead, past the last
 * slab too (into stages nothing reads again: zero-fill past k, real data
 * before it). acc and the fragment buffers a_f, b_f (buffer
 * sgemm_tuned_buf(kk) for k-step kk) are the caller's, declared there in
 * that order: where they are declared decides the order in which the
 * compiler numbers their values, which ptxas's register choice, and so the
 * FFMAs' operand bank conflicts, follows (tests/sass_bank_conflicts.sh).
 * ring0: the first float of the stage ring in shared memory (0 but in sl,
 * where each k-slice has a ring of its own). */
template <int BM, int BN, int BK, int WM, int WN, int TM, int TN, int ST, int SP, int B0, int VEC>
static __device__ __forceinline__ void sgemm_tuned_mainloop(const float *__restrict__ A,
                                                            const float *__restrict__ B, int m,
                                                            int n, int k, int bm, int bn, int ks,
                                                            int ns, int tid, int warp, int lane,
                                                            int tm0, int tn0, float (&acc)[TM][TN],
                                                            float (&a_f)[3][TM], float (&b_f)[3][TN],
                                                            int ring0 = 0)
{
    constexpr int LM = WM / TM, LN = WN / TN;
    constexpr int THREADS = sgemm_tuned_threads(BM, BN, WM, WN);
    constexpr int AS_LD = BM + 4;                   /* As (transposed) row stride, floats */
    constexpr int STAGE_FLOATS = sgemm_tuned_stage_floats(BM, BN, BK);
    constexpr int A_RSTEP = THREADS / BK;           /* rows between a thread's A elements */
    constexpr int A_ELEMS = BM / A_RSTEP;           /* A elements per thread per slab */
    constexpr int B_CHUNKS = BK * BN / 4 / THREADS;
    constexpr int B_STEP = THREADS / (BN / 4);
    constexpr int LAST_COPY = (SP - 1) * (BK / SP); /* k-step of the last copy group */
    constexpr int D = sgemm_tuned_ahead(BK, ST, B0);
    float *smem = (float *)sgemm_tuned_smem + ring0;

    /* A: this thread copies column a_k of rows a_r + l*A_RSTEP of every slab */
    const int a_k = lane % 8 + 8 * (warp % (BK / 8));
    const int a_r = (lane / 8) % 4 + 4 * (warp / (BK / 8)); /* < A_RSTEP */
    const int a_row0 = min(bm + a_r, m - 1);                /* clamped into A */
    const int a_max_off = m - 1 - a_row0;                   /* >= 0: last row is m-1 */
    const float *a_ptr = A + (size_t)a_row0 * k + min(ks * BK + a_k, k - 1);
    int a_k_left = k - ks * BK - a_k;
    int a_kok = a_k_left > 0;
    /* B: chunk at column bn + b_c (clamped into B when VEC) of rows b_r + l*B_STEP */
    const int b_r = tid / (BN / 4), b_c = (tid % (BN / 4)) * 4;
    const float *b_ptr = B + (size_t)(b_r + ks * BK) * n + (VEC ? min(bn + b_c, n - 4) : bn + b_c);
    int b_k_left = k - ks * BK - b_r;
    float *as_dst = smem + a_k * AS_LD + a_r;
    float *bs_dst = smem + BK * AS_LD + b_r * BN + b_c;

#pragma unroll
    for (int s = 0; s < D; ++s) {
#pragma unroll
        for (int l = 0; l < A_ELEMS; ++l)
            sgemm_tuned_copy_a<A_RSTEP>(as_dst + s * STAGE_FLOATS, l, a_ptr, a_max_off, k, a_kok);
#pragma unroll
        for (int l = 0; l < B_CHUNKS; ++l)
            sgemm_tuned_copy_b<BN, B_STEP, VEC>(bs_dst + s * STAGE_FLOATS, l, b_ptr, b_k_left,
                                                bn + b_c, n, B);
        /* the next slab (written out here and in the loop: as a function taking
         * these by reference it reordered the loop's values and ptxas's
         * register choice). a_ptr stays on its last slab inside A: always a
         * valid address */
        a_k_left -= BK;
        a_kok = a_k_left > 0;
        if (a_kok)
            a_ptr += BK;
        b_ptr += (size_t)BK * n;
        b_k_left -= BK;
        cp_async_commit();
    }

#pragma unroll
    for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int j = 0; j < TN; ++j)
            acc[i][j] = 0.0f;

    cp_async_wait(D - 1); /* slab 0 landed */
    __syncthreads();
    sgemm_tuned_load_frags<BM, BN, TM, TN, LM, LN>(a_f, b_f, sgemm_tuned_buf(BK, B0, 0), smem,
                                                   smem + BK * AS_LD, 0, tm0, tn0);

    /* stage offsets (floats), stepped with adds: an IMAD by the stage size
     * would take issue slots of the FMA pipe the FFMAs keep busy */
    constexpr int RING = ST * STAGE_FLOATS;
    int ro = 0, wo = D * STAGE_FLOATS;
    for (int t = 0; t < ns; ++t) {
        /* slab t is visible at ro and its k-step 0 is in its fragment buffer;
         * the copies of slab t+D go to wo, a stage whose last reads preceded
         * the barrier of slab t-1 */
        const float *as = smem + ro;
        const float *bs = as + BK * AS_LD;
        float *const as_w = as_dst + wo, *const bs_w = bs_dst + wo;
        ro = ro + STAGE_FLOATS == RING ? 0 : ro + STAGE_FLOATS;
        wo = wo + STAGE_FLOATS == RING ? 0 : wo + STAGE_FLOATS;
#pragma unroll
        for (int kk = 0; kk < BK; ++kk) {
            /* copy group g (A elements and B chunks l with l*SP/count == g) at k-step g*BK/SP */
#pragma unroll
            for (int l = 0; l < A_ELEMS; ++l)
                if (l * SP / A_ELEMS * (BK / SP) == kk)
                    sgemm_tuned_copy_a<A_RSTEP>(as_w, l, a_ptr, a_max_off, k, a_kok);
#pragma unroll
            for (int l = 0; l < B_CHUNKS; ++l)
                if (l * SP / B_CHUNKS * (BK / SP) == kk)
                    sgemm_tuned_copy_b<BN, B_STEP, VEC>(bs_w, l, b_ptr, b_k_left, bn + b_c, n, B);
            if (kk == LAST_COPY) {
                a_k_left -= BK;
                a_kok = a_k_left > 0;
                if (a_kok)
                    a_ptr += BK;
                b_ptr += (size_t)BK * n;
                b_k_left -= BK;
                cp_async_commit();
            }
            if (kk < BK - 1)
                sgemm_tuned_load_frags<BM, BN, TM, TN, LM, LN>(a_f, b_f, sgemm_tuned_buf(BK, B0, kk + 1),
                                                               as, bs, kk + 1, tm0, tn0);
            if (kk == B0) {
                /* groups committed: D + t (+1 if this slab's already): slab t+1 has landed */
                cp_async_wait(sgemm_tuned_wait_groups(BK, ST, SP, B0));
                __syncthreads();
                /* the next slab's first fragments; past the last slab this
                 * reads a stage of stale data, never used */
                const float *as_n = smem + ro;
                sgemm_tuned_load_frags<BM, BN, TM, TN, LM, LN>(a_f, b_f, sgemm_tuned_buf(BK, B0, 0), as_n,
                                                               as_n + BK * AS_LD, 0, tm0, tn0);
            }
#pragma unroll
            for (int i = 0; i < TM; ++i)
#pragma unroll
                for (int j = 0; j < TN; ++j)
                    acc[i][j] = fmaf(a_f[sgemm_tuned_buf(BK, B0, kk)][i],
                                     b_f[sgemm_tuned_buf(BK, B0, kk)][j], acc[i][j]);
        }
    }
}

// ---- tile / st / sk: writing C -------------------------------------------------------

/* Stores the thread tile acc into C from registers as float4, skipping rows
 * past m and columns past n. */
template <int TM, int TN, int LM, int LN, int VEC>
static __device__ __forceinline__ void sgemm_tuned_store_direct(float *__restrict__ C, int m, int n,
                                                                int bm, int bn, int tm0, int tn0,
                                                                float (&acc)[TM][TN])
{
#pragma unroll
    for (int i = 0; i < TM; ++i) {
        const int gr = bm + tm0 + (i / 4) * (LM * 4) + i % 4;
        float *c_row = C + (size_t)(gr < m ? gr : 0) * n;
#pragma unroll
        for (int j4 = 0; j4 < TN / 4; ++j4)
            sgemm_store4(c_row, gr < m, bn + tn0 + j4 * (LN * 4), n, VEC,
                         make_float4(acc[i][j4 * 4 + 0], acc[i][j4 * 4 + 1], acc[i][j4 * 4 + 2],
                                     acc[i][j4 * 4 + 3]));
    }
}

/* C[row, col .. col+3] += v for the elements before `lim` (nothing when
 * !row_ok), as reductions in L2 (RED: no value comes back): vec, one
 * red.global.add.v4.f32 (row 16-byte aligned, lim % 4 == 0); else one per
 * element. FP32 atomic adds round to nearest and flush subnormals. */
static __device__ __forceinline__ void sgemm_tuned_red4(float *row, int row_ok, int col, int lim,
                                                        int vec, float4 v)
{
    if (!row_ok)
        return;
    if (vec) {
        if (col < lim)
            asm volatile("red.global.add.v4.f32 [%0], {%1, %2, %3, %4};\n" ::"l"(row + col), "f"(v.x),
                         "f"(v.y), "f"(v.z), "f"(v.w)
                         : "memory");
    } else {
        if (col + 0 < lim) atomicAdd(row + col + 0, v.x);
        if (col + 1 < lim) atomicAdd(row + col + 1, v.y);
        if (col + 2 < lim) atomicAdd(row + col + 2, v.z);
        if (col + 3 < lim) atomicAdd(row + col + 3, v.w);
    }
}

/* Columns c .. c+3 of a staged quad from the float4 p read at c, whose
 * element x holds column c + (x ^ s) (sgemm_tuned_store_staged's swizzle). */
static __device__ __forceinline__ float4 sgemm_tuned_unswizzle4(float4 p, int s)
{
    if (s & 1)
        p = make_float4(p.y, p.x, p.w, p.z);
    if (s & 2)
        p = make_float4(p.z, p.w, p.x, p.y);
    return p;
}

/* Writes the thread tile acc into C through shared memory (RED 0: C = acc;
 * 1: C += acc by reductions), skipping rows past m and columns past n. The
 * stages must be free: every copy is drained and a barrier passed first.
 * One thread row i at a time, the block's BM/TM rows of that i are staged
 * ([BM/TM][BN+4], two buffers taken in turn, so one barrier per i), then
 * read back as float4 along the rows, so each warp stores (or reduces) 512
 * contiguous bytes. A thread writes its row's elements one by one, column
 * c at c ^ (lane row & 3): the 32 stores of one instruction then hit 32
 * banks (without the swizzle they share 8: 4-way conflicts); the reader
 * undoes it with sgemm_tuned_unswizzle4. Leaves reads of the staging
 * buffers in flight: a barrier comes before the stages are written again.
 * Why not sgemm_tuned_store_direct: with one wave every block stores at the
 * same time and the direct float4 stores of many rows were measurably slower
 * (scalar stores straight to C much slower: 4x the L2 write requests). */
template <int BM, int BN, int BK, int WM, int WN, int TM, int TN, int ST, int RED, int VEC>
static __device__ __forceinline__ void sgemm_tuned_store_staged(float *__restrict__ C, int m, int n,
                                                                int bm, int bn, int tid, int warp,
                                                                int lane, int tn0,
                                                                float (&acc)[TM][TN])
{
    constexpr int LM = WM / TM, LN = WN / TN;
    constexpr int WARPS_N = BN / WN;
    constexpr int THREADS = sgemm_tuned_threads(BM, BN, WM, WN);
    constexpr int C_ROWS = BM / TM;                       /* staged rows: one per (warp row, lane row) */
    constexpr int C_LD = BN + 4;                          /* staged row stride, 16-byte aligned */
    constexpr int C_BUF = C_ROWS * C_LD;                  /* floats per staging buffer */
    constexpr int C_F4 = C_ROWS * (BN / 4) / THREADS;     /* float4 read back per thread */
    static_assert(C_ROWS * (BN / 4) % THREADS == 0, "float4 of a staged row set per thread");
    static_assert(2 * C_BUF <= ST * sgemm_tuned_stage_floats(BM, BN, BK),
                  "two staging buffers fit in the stages");
    float *smem = (float *)sgemm_tuned_smem;
    const int c_rl = (warp / WARPS_N) * LM + lane / LN; /* this thread's staged row */
    const int c_sw = (lane / LN) & 3;                   /* its column swizzle */
    cp_async_wait(0);
    __syncthreads();
#pragma unroll
    for (int i = 0; i < TM; ++i) {
        float *c_buf = smem + (i % 2) * C_BUF;
#pragma unroll
        for (int j = 0; j < TN; ++j)
            c_buf[c_rl * C_LD + tn0 + (j / 4) * (LN * 4) + ((j % 4) ^ c_sw)] = acc[i][j];
        __syncthreads(); /* also: buffer (i+1) % 2 was last read before this barrier */
#pragma unroll
        for (int q = 0; q < C_F4; ++q) {
            const int e = q * THREADS + tid;
            const int r = e / (BN / 4), c = e % (BN / 4) * 4;
            const int gr = bm + (r / LM) * WM + (r % LM) * 4 + (i / 4) * (LM * 4) + i % 4;
            float *c_row = C + (size_t)(gr < m ? gr : 0) * n;
            const float4 v = sgemm_tuned_unswizzle4(*(const float4 *)&c_buf[r * C_LD + c], (r % LM) & 3);
            if (RED)
                sgemm_tuned_red4(c_row, gr < m, bn + c, n, VEC, v);
            else
                sgemm_store4(c_row, gr < m, bn + c, n, VEC, v);
        }
    }
}

// ---- tile / st: one block per tile ---------------------------------------------------

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
    for (int e = threadIdx.x; e < BM * (BN / 4); e += SL * T) {
        const int r = e / (BN / 4), c = e % (BN / 4) * 4;
        float4 v = *(const float4 *)&smem[r * R_LD + c];
#pragma unroll
        for (int s = 1; s < SL; ++s) {
            const float4 p = *(const float4 *)&smem[s * RING + r * R_LD + c];
            v.x += p.x, v.y += p.y, v.z += p.z, v.w += p.w;
        }
        const int gr = bm + r;
        sgemm_store4(C + (size_t)(gr < m ? gr : 0) * n, gr < m, bn + c, n, VEC, v);
    }
}

// ---- sk: stream-K -------------------------------------------------------------------

#define SGEMM_TUNED_SK_MAX_BLOCKS 4096
/* no block takes fewer k-slabs than this (small problems use fewer blocks) */
#define SGEMM_TUNED_SK_MIN_SLABS 8
static __device__ unsigned sgemm_tuned_sk_flags[SGEMM_TUNED_SK_MAX_BLOCKS];

/* Thread 0 waits (acquire, GPU scope) until *flag == epoch; then the block. */
static __device__ __forceinline__ void sgemm_tuned_sk_wait(const unsigned *flag, unsigned epoch)
{
    if (threadIdx.x == 0) {
        unsigned v;
        for (;;) {
            asm volatile("ld.acquire.gpu.global.u32 %0, [%1];\n" : "=r"(v) : "l"(flag) : "memory");
            if (v == epoch)
                break;
            __nanosleep(64);
        }
    }
    __syncthreads();
}

/* After the block's stores: *flag = epoch (release, GPU scope) once every
 * thread of the block has stored. */
static __device__ __forceinline__ void sgemm_tuned_sk_publish(unsigned *flag, unsigned epoch)
{
    __syncthreads();
    if (threadIdx.x == 0)
        asm volatile("st.release.gpu.global.u32 [%0], %1;\n" ::"l"(flag), "r"(epoch) : "memory");
}

/* The block's segment at q (the k-slabs it has done so far: its full-wave
 * tiles first, then its range of the split ones) as {bm, bn, ks, ns}: tile
 * origin, first k-slab, k-slabs (ns <= 0: the block is done). Not inlined:
 * inlined, its 64-bit divisions changed ptxas's register choice for the
 * main loop's FFMAs (more operand bank conflicts). BM, BK and GROUP are
 * template parameters (one copy of the function per tile height), the tile
 * width a run-time argument passed through
 * sgemm_tuned_opaque: otherwise the compiler specialises the function for
 * the one width a translation unit happens to call it with, and the
 * caller's register choice, main loop included, then depends on which other
 * candidates the unit holds. */
template <int BM, int BK, int GROUP>
static __device__ __noinline__ int4 sgemm_tuned_sk_segment(long long q, int m, int n, int k,
                                                           int bn_size)
{
    const int slabs = SGEMM_CEIL_DIV(k, BK);
    const int tiles_n = SGEMM_CEIL_DIV(n, bn_size), tiles_m = SGEMM_CEIL_DIV(m, BM);
    const int g = (int)gridDim.x;
    const int waves = tiles_n * tiles_m / g; /* full waves */
    long long p, e; /* position and end of the segment in all tiles' slabs */
    if (q < (long long)waves * slabs) {
        p = ((long long)(q / slabs) * g + blockIdx.x) * slabs;
        e = p + slabs;
    } else {
        const long long base = (long long)waves * g * slabs;
        const long long rest = ((long long)tiles_n * tiles_m - (long long)waves * g) * slabs;
        p = base + rest * blockIdx.x / g + (q - (long long)waves * slabs);
        e = base + rest * (blockIdx.x + 1) / g;
    }
    const int tile = (int)(p / slabs);
    const int ks = (int)(p - (long long)tile * slabs);
    const int ns = (int)min((long long)(slabs - ks), e - p);
    const int2 t = tile_order_grouped(tile, tiles_n, tiles_m, GROUP);
    return make_int4(t.y * BM, t.x * bn_size, ks, ns);
}

/* x, through a move the compiler cannot see through (ptxas still can). */
static __device__ __forceinline__ int sgemm_tuned_opaque(int x)
{
    int r;
    asm("mov.b32 %0, %1;\n" : "=r"(r) : "r"(x));
    return r;
}

/* Each block walks its range of the work one segment (a tile's slabs inside
 * the range) at a time: main loop over the segment's slabs, then C (staged:
 * stored, or added to the later slabs a neighbour left there), then every
 * copy drained and a barrier before the next segment reuses the stages. */
template <int BM, int BN, int BK, int WM, int WN, int TM, int TN, int ST, int MINB, int GROUP,
          int SP, int B0, int VEC>
static __global__ void __launch_bounds__(sgemm_tuned_threads(BM, BN, WM, WN), MINB)
sgemm_tuned_sk_kernel(const float *__restrict__ A, const float *__restrict__ B,
                      float *__restrict__ C, int m, int n, int k, unsigned epoch)
{
    sgemm_tuned_tile_checks<BM, BN, BK, WM, WN, TM, TN, ST, MINB, SP, B0>();
    constexpr int LN = WN / TN;
    constexpr int WARPS_N = BN / WN;
    const int tid = threadIdx.x;
    const int warp = tid / 32, lane = tid % 32;
    const int tm0 = (warp / WARPS_N) * WM + (lane / LN) * 4;
    const int tn0 = (warp % WARPS_N) * WN + (lane % LN) * 4;
    /* the block's place in its range lives in shared memory and everything
     * derived from it is recomputed after the main loop: a value live across
     * it changes ptxas's register choice for the FFMAs (about twice the
     * operand bank conflicts, measurably slower) */
    __shared__ long long sk_pos;
    if (tid == 0)
        sk_pos = 0;
    __syncthreads();
    for (;;) {
        {
            const long long q0 = *(volatile long long *)&sk_pos;
            const int4 seg0 = sgemm_tuned_sk_segment<BM, BK, GROUP>(q0, m, n, k, sgemm_tuned_opaque(BN));
            if (seg0.w <= 0)
                break;
            float acc[TM][TN];
            float a_f[3][TM], b_f[3][TN]; /* fragments: 2 buffers, 3 with a mid-slab barrier */
            sgemm_tuned_mainloop<BM, BN, BK, WM, WN, TM, TN, ST, SP, B0, VEC>(
                A, B, m, n, k, seg0.x, seg0.y, seg0.z, seg0.w, tid, warp, lane, tm0, tn0, acc, a_f, b_f);
            {
                const long long q = *(volatile long long *)&sk_pos;
                const int4 seg = sgemm_tuned_sk_segment<BM, BK, GROUP>(q, m, n, k, sgemm_tuned_opaque(BN));
                const int bm = seg.x, bn = seg.y, ks = seg.z, ns = seg.w;
                if (ks + ns < SGEMM_CEIL_DIV(k, BK)) {
                    /* the tile's later slabs (block blockIdx.x+1 on) are in C: add to them */
                    sgemm_tuned_sk_wait(&sgemm_tuned_sk_flags[blockIdx.x + 1], epoch);
                    sgemm_tuned_store_staged<BM, BN, BK, WM, WN, TM, TN, ST, 1, VEC>(
                        C, m, n, bm, bn, tid, warp, lane, tn0, acc);
                } else {
                    sgemm_tuned_store_staged<BM, BN, BK, WM, WN, TM, TN, ST, 0, VEC>(
                        C, m, n, bm, bn, tid, warp, lane, tn0, acc);
                }
                if (ks > 0) /* a partial sum: block blockIdx.x-1 finishes the tile */
                    sgemm_tuned_sk_publish(&sgemm_tuned_sk_flags[blockIdx.x], epoch);
                cp_async_wait(0);
                __syncthreads(); /* every thread has read sk_pos and the stages */
                if (tid == 0)
                    sk_pos = q + ns;
                __syncthreads();
            }
        }
    }
}

// ---- launchers ------------------------------------------------------------------------

/* The stream-K grid G for `tiles` tiles of `slabs` k-slabs on `slots`
 * resident blocks (SMs x blocks per SM): at most slots, fewer when that
 * would leave a block under SGEMM_TUNED_SK_MIN_SLABS slabs, at most
 * SGEMM_TUNED_SK_MAX_BLOCKS. Then, when the last partial wave's R = rest *
 * slabs split slabs are fewer than G, some blocks get an empty range, and a
 * block whose range ends mid-tile before such a block would wait on it
 * forever (it waits on the next block only): G is lowered to the largest
 * value, for the waves W = tiles / G it gives, with R >= G, i.e. G <=
 * tiles*slabs / (W*slabs + 1) (or G divides tiles; one slab per tile never
 * ends mid-tile). Large problems (no full wave: R = tiles*slabs >= 8G) keep
 * the first G. Host code, shared with `tuned`'s cost model. */
static inline long long sgemm_tuned_sk_grid(long long slots, long long tiles, long long slabs)
{
    long long g = slots;
    if (g > tiles * slabs / SGEMM_TUNED_SK_MIN_SLABS)
        g = tiles * slabs / SGEMM_TUNED_SK_MIN_SLABS;
    if (g > SGEMM_TUNED_SK_MAX_BLOCKS)
        g = SGEMM_TUNED_SK_MAX_BLOCKS;
    if (g < 1)
        g = 1;
    for (;;) { /* g falls each turn; g = 1 leaves no rest */
        const long long waves = tiles / g, rest = tiles - waves * g;
        if (rest == 0 || slabs == 1 || rest * slabs >= g)
            return g;
        const long long fit = tiles * slabs / (waves * slabs + 1);
        g = fit < g - 1 ? fit : g - 1;
    }
}

/* Grid size (sgemm_tuned_sk_grid), epoch and cooperative launch of a
 * stream-K kernel over tiles x slabs k-slabs: as many blocks as fit on the
 * GPU at once, at most max_per_sm (the candidate's MINB) per SM. The cap: a
 * small tile fits many blocks on an SM, and every block more splits the
 * tiles further (a longer chain of fix-ups through C) for no more FMA
 * throughput once MINB blocks keep the SM busy; the large tiles' occupancy
 * is MINB already. Returns the launch's error: a refused cooperative launch
 * (too many blocks for the GPU as it is shared now, not supported, not
 * permitted) is the caller's to handle. */
static inline int sgemm_tuned_sk_launch(const void *kernel, int threads, int smem_bytes, int *resident,
                                        int max_per_sm, long long tiles, long long slabs,
                                        const float *A, const float *B, float *C, int m, int n,
                                        int k, cudaStream_t stream)
{
    /* launches so far, mod 2^32, never 0 (the flags' initial value); atomic:
     * --parallel-devices launches from one thread per GPU, and two launches
     * given one epoch could each take the other's flags as their own */
    static unsigned epoch;
    int dev = 0, sms = 0, per_sm = 0;
    cudaError_t err = cudaGetDevice(&dev);
    if (err == cudaSuccess)
        err = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
    if (err != cudaSuccess)
        return (int)err;
    const int rerr = smem_resident_per_sm(kernel, threads, smem_bytes, resident, &per_sm);
    if (rerr != 0)
        return rerr;
    if (per_sm > max_per_sm)
        per_sm = max_per_sm;
    const long long grid = sgemm_tuned_sk_grid((long long)sms * per_sm, tiles, slabs);
    unsigned e;
    do
        e = __atomic_add_fetch(&epoch, 1u, __ATOMIC_RELAXED);
    while (e == 0);
    void *args[] = {(void *)&A, (void *)&B, (void *)&C, (void *)&m, (void *)&n, (void *)&k, (void *)&e};
    err = cudaLaunchCooperativeKernel(kernel, dim3((unsigned)grid), dim3((unsigned)threads), args,
                                      (size_t)smem_bytes, stream);
    return (int)err;
}

/* Candidate KIND at the given shape: picks the vec or scalar kernel, opts in
 * to its dynamic shared memory and launches it (rowa / tile / st: a BN x BM
 * grid of tiles; sk: cooperatively, see sgemm_tuned_sk_launch). Returns the
 * launch's error; m, n, k >= 1 are the caller's to check. */
template <int KIND, int BM, int BN, int BK, int WM, int WN, int TM, int TN, int ST, int MINB,
          int GROUP, int SP, int B0>
static int sgemm_tuned_launch(const float *A, const float *B, float *C, int m, int n, int k,
                              cudaStream_t stream)
{
    int threads = sgemm_tuned_threads(BM, BN, WM, WN);
    const int vec = k % 4 == 0 && n % 4 == 0;
    int smem_bytes;
    const void *kernel;
    if constexpr (KIND == SGEMM_TUNED_KIND_rowa) {
        smem_bytes = ST * (BM * (BK + 4) + BK * BN) * (int)sizeof(float);
        kernel = vec ? (const void *)sgemm_tuned_rowa_kernel<BM, BN, BK, WM, WN, TM, TN, ST, MINB, 1>
                     : (const void *)sgemm_tuned_rowa_kernel<BM, BN, BK, WM, WN, TM, TN, ST, MINB, 0>;
    } else if constexpr (KIND == SGEMM_TUNED_KIND_sk) {
        smem_bytes = ST * sgemm_tuned_stage_floats(BM, BN, BK) * (int)sizeof(float);
        kernel = vec ? (const void *)sgemm_tuned_sk_kernel<BM, BN, BK, WM, WN, TM, TN, ST, MINB,
                                                             GROUP, SP, B0, 1>
                     : (const void *)sgemm_tuned_sk_kernel<BM, BN, BK, WM, WN, TM, TN, ST, MINB,
                                                             GROUP, SP, B0, 0>;
    } else if constexpr (sgemm_tuned_slices(KIND) > 1) {
        constexpr int SL = sgemm_tuned_slices(KIND);
        threads = SL * sgemm_tuned_threads(BM, BN, WM, WN);
        smem_bytes = SL * ST * sgemm_tuned_stage_floats(BM, BN, BK) * (int)sizeof(float);
        kernel = vec ? (const void *)sgemm_tuned_sliced_kernel<BM, BN, BK, WM, WN, TM, TN, ST, MINB,
                                                                 GROUP, SP, B0, SL, 1>
                     : (const void *)sgemm_tuned_sliced_kernel<BM, BN, BK, WM, WN, TM, TN, ST, MINB,
                                                                 GROUP, SP, B0, SL, 0>;
    } else {
        constexpr int STAGED = KIND == SGEMM_TUNED_KIND_st;
        smem_bytes = ST * sgemm_tuned_stage_floats(BM, BN, BK) * (int)sizeof(float);
        kernel = vec ? (const void *)sgemm_tuned_tile_kernel<BM, BN, BK, WM, WN, TM, TN, ST, MINB,
                                                               GROUP, SP, B0, STAGED, 1>
                     : (const void *)sgemm_tuned_tile_kernel<BM, BN, BK, WM, WN, TM, TN, ST, MINB,
                                                               GROUP, SP, B0, STAGED, 0>;
    }
    /* per instantiation, [vec]: opted in (a bit per device), resident blocks per SM (per device) */
    static unsigned long long opted_in[2];
    static int resident[2][64];
    const int opt = smem_opt_in(kernel, smem_bytes, &opted_in[vec]);
    if (opt != 0)
        return opt;
    if constexpr (KIND == SGEMM_TUNED_KIND_sk) {
        const long long tiles = (long long)SGEMM_CEIL_DIV(m, BM) * SGEMM_CEIL_DIV(n, BN);
        return sgemm_tuned_sk_launch(kernel, threads, smem_bytes, resident[vec], MINB, tiles,
                                     SGEMM_CEIL_DIV(k, BK), A, B, C, m, n, k, stream);
    } else {
        void *args[] = {(void *)&A, (void *)&B, (void *)&C, (void *)&m, (void *)&n, (void *)&k};
        const dim3 grid(SGEMM_CEIL_DIV(n, BN), SGEMM_CEIL_DIV(m, BM));
        const cudaError_t err = cudaLaunchKernel(kernel, grid, dim3(threads), args, (size_t)smem_bytes, stream);
        return err != cudaSuccess ? (int)err : (int)cudaGetLastError();
    }
}

#endif
