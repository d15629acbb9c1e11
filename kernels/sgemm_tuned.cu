/* kernels/sgemm_tuned.cu: `tuned`, the FP32 SGEMM whose tile shapes were
 * picked by compare-search on the target GPU.
 *
 * Idea: the kernels are the templates of sgemm_tuned.cuh (their header says
 * how each works); this file instantiates only the shapes `tuned` runs, by
 * name (rows of SGEMM_TUNED_CANDIDATES): a large tile (128x256) as stream-K
 * (`_sk`: full waves of tiles as one block per tile, the remaining tiles'
 * k-slabs split evenly between the blocks) and as one block per tile with C
 * staged (`_st`, also the stream-K launch's fallback); small ones: 32x128 as
 * stream-K and 16x128 sliced-k (`_sl4`, `_sl2`: one block per tile whose
 * warp groups each take a share of the k-slabs, summed in shared memory),
 * and the rule between them (sgemm_tuned_pick), fitted to compare-search's
 * timings of every candidate on the target GPU at square and model shapes:
 *   0. A thin C (kernels/sgemm_tuned_thin.cuh, whose header says how each
 *      works): n <= SGEMM_TUNED_THIN_N_MAX (default 64) the thin-n kernel
 *      (a block owns rows of C across all of its columns, so no FMA falls
 *      more than a few columns past n; k split over the SMs when the row
 *      blocks are few), else m <= SGEMM_TUNED_THIN_M_MAX (default 8) the
 *      thin-m kernel (GEMV-like, B streamed once, k split over the SMs),
 *      else 8 < m <= SGEMM_TUNED_THIN_MW_MAX (default 56) with the 32x128
 *      tiles (ceil(m / 32) x ceil(n / 128)) at least the SMs the thin-mw
 *      kernel (every row of A in one pass over B, at most 7 padding rows).
 *      The tile count is the line because below it the rule's small picks
 *      (the 32x128 stream-K, or one wave of 16x128 tiles in 4 slices of k)
 *      split k until every SM works, at their register tiling's cheaper
 *      FMAs (16 x 4096, 16 x 14336 stay there), while at or above it they
 *      are 16x128 tiles in 2 slices, whose row tiles each re-read B (three
 *      at m = 33, 48 rows of FMAs) where thin-mw reads it once.
 *      Any switch at 0 turns its path off, and the rule below takes those
 *      shapes as before.
 *   0c. Just past thin-mw (SGEMM_TUNED_THIN_MW_MAX < m <= 64), B as wide,
 *      k >= 1024 (policy mid_k; measured at k = 4096 only):
 *      the 64x128 tile as stream-K (SGEMM_TUNED_MID, 8x8 thread tiles):
 *      one row of tiles covers m, so B is read once, and stream-K spreads
 *      its long k over every SM; thin-mw's 64 accumulator rows and the
 *      16x128 sliced tiles (four row tiles, each re-reading B) both lost
 *      to it (compare --candidates tuned, docs/tuning/awkward.md).
 *   L = the large tile's tiles, W = SMs x its MINB (one wave), rest = L % W;
 *   the last wave is full when L >= W and rest is 0 or >= 7/8 W.
 *   0a. A short k (k <= 128, policy tiny_k) with at least two waves of
 *      128x128 tiles: the 128x128 tile (SGEMM_TUNED_SHORT_K, two blocks an
 *      SM, one block per tile): a k-loop of 2 .. 16 slabs is bound by the
 *      fill and drain of each tile and by storing C, which a second block
 *      on the SM overlaps and stream-K's fix-ups only add to.
 *   0b. Ragged: too few of the large tile's FMAs inside C (policy ragged:
 *      an m or n just past a multiple of 128 or 256) and under 4 waves of
 *      large tiles, m >= 256, n >= 256: the 128x64 tile as stream-K
 *      (SGEMM_TUNED_NARROW), whose partial tiles waste less and whose
 *      k-slabs spread evenly over the SMs; with under two waves of those
 *      tiles (about 1000 x 1000), the 64x128 tile with 8-deep slabs as
 *      stream-K (SGEMM_TUNED_RAGGED_FEW), which won there and lost at
 *      2047 x 2049 x 2051. Both from compare --candidates
 *      tuned over shapes/awkward.txt, shapes/llm.txt and square sizes on the
 *      H200 (docs/tuning/awkward.md).
 *   1. The large tile, when at least 3/4 of its FMAs fall inside C (the small
 *      tile's FMA rate is about 4/5 of the large one's) and it has work for
 *      every SM: L >= W, or L x k-slabs >= 32 slabs per SM (fewer: a block's
 *      k-loop is too short for the pipeline to pay, and small tiles spread
 *      the same work more evenly).
 *      - st when the last wave is full and k <= 1024: nothing idles for
 *        stream-K to fill, and on a short k-loop its fix-ups through C cost
 *        more than the last wave's few idle SMs;
 *      - else sk, unless its longest fix-up chain (blocks sharing one split
 *        tile: sgemm_tuned_sk_grid lowers G when the split slabs are fewer
 *        than G, e.g. one tile past a full wave, and then dozens of blocks
 *        share a tile, each waiting for the next) is over 16 blocks: then
 *        the small tile (a full last wave never gets there: its chain is
 *        at most 2).
 *   2. The small tiles (S tiles of 16x128, s = their k-slabs of 8):
 *      - the 32x128 sk when k >= 2048 and S < SMs / 2: a sliced grid would
 *        leave over half the SMs idle through a long k-loop (m = 16 .. 64
 *        and a short n), where stream-K spreads the k-slabs over every SM
 *        (the 32x128 tile beat the 16x128 one there at every shape measured:
 *        half the blocks, each reading a B slab for twice the rows);
 *      - sl4 when S <= SMs and s >= 32: one wave of 8-warp blocks, each
 *        slice at least 8 slabs (at n = 129, 17 slabs, four slices would
 *        leave each about four and waste three on zeros);
 *      - else sl2 (more tiles: 4 warps a block, 4 blocks an SM).
 *      Two or four slices give an SM 2-4x the warps of a one-tile block of
 *      two warps, whose k-loop otherwise runs at the latency of its own
 *      shared-memory and FMA chains; the 16x128 st kernel (the small pick
 *      before sl) was no faster than sl2 at any shape measured where the
 *      rule takes the small tile.
 *   3. Rows of B and C not 16-byte aligned (n % 4 != 0), m >=
 *      SGEMM_TUNED_PAD_B_MIN_M: the large picks (sk and st, 128x256), the
 *      small one (32x128 sk) and rule 0b's few-tiles one (64x128x8 sk) copy
 *      B first into a buffer whose rows are padded with zeros to a multiple
 *      of 4 floats, and their main loops then copy B 16 bytes at a time from
 *      there, C leaving a staged row a warp (`_padb` in the note; rule PAD_B,
 *      VEC 3). The copy's share of the time falls as 1 / m; each of these
 *      tiles gained with it at every shape timed (m 1025 .. 8192), the
 *      128x64x16 sk (NARROW, rule 0b's many-tiles pick) lost at most of them
 *      and keeps 4-byte copies of B, as do the other picks (not timed
 *      padded; docs/tuning/awkward.md). k % 4 does not matter to any pick
 *      (A is copied 4 bytes at a time: the transpose is in the copy's
 *      addressing).
 * A pick overridden with -D keeps its place in the rule (its own tile
 * shape and MINB are used); a kind that is not stream-K runs as it is.
 *
 * Constraints: any m, n, k >= 1 (edges as in sgemm_tuned.cuh). A stream-K
 * pick needs a cooperative launch (every block resident at once). When the
 * runtime refuses it (cudaErrorCooperativeLaunchTooLarge when fewer SMs are
 * free than the grid assumes, e.g. under MPS or beside other work;
 * cudaErrorNotSupported / cudaErrorNotPermitted where cooperative launches
 * are unavailable), the launcher clears that error and runs the same tile
 * shape as one block per tile with C staged (`_st`), and says so through
 * kernel_ran_note: every call names the kernel it ran (the candidate's
 * name, or the thin kernel's: thin_n*, thin_m*, thin_mw*) and why when it is not the
 * fast path (the fallback; else the scalar kernels when n or k is not a
 * multiple of 4). Picks are names,
 * resolved at compile time: a name that is not a row of the table does not
 * compile. The rule's thresholds, and whether the sk picks run as stream-K,
 * are a per-architecture policy (sgemm_tuned_policies, chosen at run time
 * from the current device: kernels/common/policy.h); sm_90's is the rule
 * above.
 * Run just this: ./compare --variants tuned; re-time the candidates at the
 * rule's shapes: ./compare-search --family fp32 --n 129,256,512,1024,1537
 * --shape 16x14336x4096,129x4099x257,1024x50257x768,65536x256x256,896x4864x1024. */
#include "kernel_ran.h"
#include "policy.h"
#include "sgemm.h"
#include "sgemm_tuned.cuh"
#include "sgemm_tuned_thin.cuh"

/* The picks, overridable without an edit through CMake:
 * -DCOMPARE_KERNEL_DEFS="SGEMM_TUNED_LARGE=NAME;SGEMM_TUNED_SMALL=NAME" (and
 * SGEMM_TUNED_LARGE_ST, SGEMM_TUNED_SLICED_FEW, SGEMM_TUNED_SLICED_MANY;
 * the small sk's fallback is the st kernel of its shape; tests/gpu_check.sh's search
 * phase passes compare-search's winner as the large one). The rule was
 * fitted on compare-search's timings of the candidates at the sizes and
 * model shapes it names (the logs: docs/tuning/). */
#ifndef SGEMM_TUNED_LARGE
#define SGEMM_TUNED_LARGE 128x256x8_w64x64_t8x16_s4_g8_sp2_b4_sk
#endif
#ifndef SGEMM_TUNED_LARGE_ST
#define SGEMM_TUNED_LARGE_ST 128x256x8_w64x64_t8x16_s4_g8_sp2_b4_st
#endif
#ifndef SGEMM_TUNED_SMALL
#define SGEMM_TUNED_SMALL 32x128x8_w16x64_t4x8_s6_g8_sp2_b7_sk
#endif
#ifndef SGEMM_TUNED_SLICED_FEW
#define SGEMM_TUNED_SLICED_FEW 16x128x8_w16x64_t4x8_s4_g8_sp2_b7_sl4
#endif
#ifndef SGEMM_TUNED_SLICED_MANY
#define SGEMM_TUNED_SLICED_MANY 16x128x8_w16x64_t4x8_s4_g8_sp2_b7_sl2
#endif
#ifndef SGEMM_TUNED_SHORT_K
#define SGEMM_TUNED_SHORT_K 128x128x8_w64x64_t8x16_s4_g8_sp8_b7
#endif
#ifndef SGEMM_TUNED_NARROW
#define SGEMM_TUNED_NARROW 128x64x16_w64x32_t8x8_s4_g8_sp2_b15_sk
#endif
#ifndef SGEMM_TUNED_MID
#define SGEMM_TUNED_MID 64x128x16_w32x64_t8x8_s4_g8_sp2_b15_sk
#endif
#ifndef SGEMM_TUNED_RAGGED_FEW
#define SGEMM_TUNED_RAGGED_FEW 64x128x8_w32x64_t8x8_s4_g8_sp2_b7_sk
#endif
/* The picks of rule 3 (above) at n % 4 != 0 and m at least this: B copied
 * into rows padded to a multiple of 4 floats, then the 16-byte kernel's
 * copies (rule PAD_B, sgemm_tuned_configs.cuh; `_padb` in the note). 0:
 * never (4-byte copies of B, rule NK). A switch:
 * -DCOMPARE_KERNEL_DEFS=SGEMM_TUNED_PAD_B_MIN_M=0 */
#ifndef SGEMM_TUNED_PAD_B_MIN_M
#define SGEMM_TUNED_PAD_B_MIN_M 1024
#endif

static constexpr sgemm_tuned_cfg sgemm_tuned_large = SGEMM_TUNED_CFG(SGEMM_TUNED_LARGE);
static constexpr sgemm_tuned_cfg sgemm_tuned_large_st = SGEMM_TUNED_CFG(SGEMM_TUNED_LARGE_ST);
static constexpr sgemm_tuned_cfg sgemm_tuned_small = SGEMM_TUNED_CFG(SGEMM_TUNED_SMALL);
static constexpr sgemm_tuned_cfg sgemm_tuned_sliced_few = SGEMM_TUNED_CFG(SGEMM_TUNED_SLICED_FEW);
static constexpr sgemm_tuned_cfg sgemm_tuned_sliced_many = SGEMM_TUNED_CFG(SGEMM_TUNED_SLICED_MANY);
static constexpr sgemm_tuned_cfg sgemm_tuned_short_k = SGEMM_TUNED_CFG(SGEMM_TUNED_SHORT_K);
static constexpr sgemm_tuned_cfg sgemm_tuned_narrow = SGEMM_TUNED_CFG(SGEMM_TUNED_NARROW);
static constexpr sgemm_tuned_cfg sgemm_tuned_mid = SGEMM_TUNED_CFG(SGEMM_TUNED_MID);
static constexpr sgemm_tuned_cfg sgemm_tuned_ragged_few = SGEMM_TUNED_CFG(SGEMM_TUNED_RAGGED_FEW);

/* One entry of the tuned policy (kernels/common/policy.h): the rule's
 * thresholds (see the header) and whether the stream-K picks run. */
typedef struct {
    double useful; /* least share of the large tile's FMAs inside C */
    int slabs;     /* least large-tile k-slabs per SM */
    int chain;     /* longest fix-up chain of the large sk */
    int short_k;   /* large: st at k <= this when the last wave is full */
    int long_k;    /* small: sk at k >= this when under half the SMs have a tile */
    int few_slabs; /* small: sl4 needs this many k-slabs (8 a slice) */
    int stream_k;  /* 1: the sk picks; 0: each runs as the st kernel of its shape
                    * (no cooperative launch) */
    int tiny_k;    /* short-k tile at k <= this (0: never), when it has 2 waves of tiles */
    double ragged; /* narrow sk when the large tile keeps under this share of its FMAs in C */
    int ragged_waves; /* ... and has under this many waves of tiles */
    int mid_k;        /* the 64x128 sk just past thin-mw at k >= this */
} sgemm_tuned_policy;

/* sm_90: the rule fitted on the H200. sm_80, sm_86/89: the same thresholds,
 * untuned (the sk launcher sizes its grid from the occupancy the device
 * reports, so the rule stays correct; only its break-even points are the
 * H200's). generic: no stream-K (a cooperative launch is not assumed), the
 * same tile shapes. */
static const sgemm_tuned_policy sgemm_tuned_policies[POLICY_SLOTS] = {
    {0.75, 32, 16, 1024, 2048, 32, 1, 128, 0.95, 4, 1024}, /* sm_90 */
    {0.75, 32, 16, 1024, 2048, 32, 1, 128, 0.95, 4, 1024}, /* sm_80 (untuned) */
    {0.75, 32, 16, 1024, 2048, 32, 1, 128, 0.95, 4, 1024}, /* sm_86/89 (untuned) */
    {0.75, 32, 16, 1024, 2048, 32, 0, 128, 0.95, 4, 1024}, /* generic */
};

enum {
    SGEMM_TUNED_PICK_THIN_N,
    SGEMM_TUNED_PICK_THIN_M,
    SGEMM_TUNED_PICK_THIN_MW,
    SGEMM_TUNED_PICK_MID,
    SGEMM_TUNED_PICK_SHORT_K,
    SGEMM_TUNED_PICK_NARROW,
    SGEMM_TUNED_PICK_RAGGED_FEW,
    SGEMM_TUNED_PICK_LARGE,
    SGEMM_TUNED_PICK_LARGE_ST,
    SGEMM_TUNED_PICK_SMALL,
    SGEMM_TUNED_PICK_SLICED_FEW,
    SGEMM_TUNED_PICK_SLICED_MANY
};

static long long sgemm_tuned_cdiv(long long a, long long b)
{
    return (a + b - 1) / b;
}

/* Tiles of c at m x n. */
static long long sgemm_tuned_tiles(const sgemm_tuned_cfg &c, int m, int n)
{
    return sgemm_tuned_cdiv(m, c.bm) * sgemm_tuned_cdiv(n, c.bn);
}

/* Whether the last of the waves (`wave` blocks: SMs x MINB) that `tiles`
 * tiles make is full: at least one wave, and no partial one or one at least
 * 7/8 full. */
static int sgemm_tuned_full_wave(long long tiles, long long wave)
{
    const long long rest = tiles % wave;
    return tiles >= wave && (rest == 0 || 8 * rest >= 7 * wave);
}

/* The pick for m x n x k on `sms` SMs under policy entry p
 * (SGEMM_TUNED_PICK_*: the header's rule). */
static int sgemm_tuned_pick(const sgemm_tuned_policy &p, int m, int n, int k, int sms)
{
    /* 0. thin C (sgemm_tuned_thin.cuh): n tiny before m tiny (both tiny: a
     * few outputs, thin-n splits k over the SMs as well) */
    if (n <= SGEMM_TUNED_THIN_N_MAX)
        return SGEMM_TUNED_PICK_THIN_N;
    if (m <= SGEMM_TUNED_THIN_M_MAX)
        return SGEMM_TUNED_PICK_THIN_M;
    /* 8 < m <= SGEMM_TUNED_THIN_MW_MAX, B wide: the 32x128 tiles cover every
     * SM (so the small sk has no idle SM to give k to, and the picks below are
     * the 16x128 sliced tiles, B re-read from L2 by each of ceil(m / 16) row
     * tiles and up to 15 rows a tile wasted): thin-mw, one pass over B with
     * every row of A, at most 7 padding rows. Fewer 32x128 tiles than SMs
     * (16 x 4096, 16 x 14336): the small sk spreads k over every SM and stays */
    if (m > 8 && m <= SGEMM_TUNED_THIN_MW_MAX &&
        sgemm_tuned_cdiv(m, 32) * sgemm_tuned_cdiv(n, 128) >= (long long)sms)
        return SGEMM_TUNED_PICK_THIN_MW;
    /* 0c. just past thin-mw, as wide: one row of 64x128 tiles, stream-K */
    if (m > SGEMM_TUNED_THIN_MW_MAX && m <= sgemm_tuned_mid.bm && k >= p.mid_k &&
        sgemm_tuned_cdiv(m, 32) * sgemm_tuned_cdiv(n, 128) >= (long long)sms)
        return SGEMM_TUNED_PICK_MID;
    const sgemm_tuned_cfg &lg = sgemm_tuned_large;
    const long long tiles = sgemm_tuned_tiles(lg, m, n), slabs = sgemm_tuned_cdiv(k, lg.bk);
    const long long wave = (long long)sms * lg.minb;
    const double useful = (double)m * n / ((double)tiles * lg.bm * lg.bn);
    /* 1a. a short k with m and n large: the 128x128 tile, two blocks an SM,
     * no stream-K (a k-loop of a few slabs: one block's epilogue overlaps
     * the other's loads, where the large tile's one block an SM waits) */
    const sgemm_tuned_cfg &sk = sgemm_tuned_short_k;
    if (k <= p.tiny_k && sgemm_tuned_tiles(sk, m, n) >= 2LL * sms * sk.minb)
        return SGEMM_TUNED_PICK_SHORT_K;
    /* 1b. ragged: the large tile's last row or column of tiles mostly empty
     * (an m or n just past a multiple of 128 or 256) in under a few waves:
     * the 128x64 tile as stream-K wastes less and spreads its tiles evenly */
    const sgemm_tuned_cfg &nw = sgemm_tuned_narrow;
    if (useful < p.ragged && tiles < (long long)p.ragged_waves * wave && m >= 2 * nw.bm && n >= 4 * nw.bn &&
        sgemm_tuned_tiles(nw, m, n) >= sms)
        return sgemm_tuned_tiles(nw, m, n) < 2LL * sms ? SGEMM_TUNED_PICK_RAGGED_FEW : SGEMM_TUNED_PICK_NARROW;
    if (useful >= p.useful &&
        (tiles >= wave || tiles * slabs >= (long long)p.slabs * sms)) {
        if (sgemm_tuned_full_wave(tiles, wave) && k <= p.short_k)
            return SGEMM_TUNED_PICK_LARGE_ST;
        /* blocks sharing one split tile, on the grid the stream-K launcher makes */
        const long long g = sgemm_tuned_sk_grid(wave, tiles, slabs), rest = tiles % g;
        long long chain = rest > 0 ? sgemm_tuned_cdiv(g, rest) : 0;
        if (chain > slabs)
            chain = slabs;
        if (chain <= p.chain)
            return SGEMM_TUNED_PICK_LARGE;
    }
    const sgemm_tuned_cfg &few = sgemm_tuned_sliced_few;
    const long long small_tiles = sgemm_tuned_tiles(few, m, n);
    if (k >= p.long_k && 2 * small_tiles < sms)
        return SGEMM_TUNED_PICK_SMALL;
    if (small_tiles <= sms && sgemm_tuned_cdiv(k, few.bk) >= p.few_slabs)
        return SGEMM_TUNED_PICK_SLICED_FEW;
    return SGEMM_TUNED_PICK_SLICED_MANY;
}

static int sgemm_tuned_forced; /* sgemm_tuned_force_fallback's switch */

extern "C" void sgemm_tuned_force_fallback(int on)
{
    sgemm_tuned_forced = on != 0;
}

/* The fallback reason for a refused cooperative launch, NULL for any other
 * result (success or an error that is the caller's). Static strings. */
static const char *sgemm_tuned_refusal(int err)
{
    switch (err) {
    case cudaErrorCooperativeLaunchTooLarge:
        return "cooperative launch refused: cudaErrorCooperativeLaunchTooLarge";
    case cudaErrorNotSupported:
        return "cooperative launch refused: cudaErrorNotSupported";
    case cudaErrorNotPermitted:
        return "cooperative launch refused: cudaErrorNotPermitted";
    default:
        return NULL;
    }
}

/* Runs pick c (its kind as a template argument) under rule RULE (c's own,
 * or PAD_B: sgemm_tuned_pad_b); a refused stream-K launch falls back to st
 * at the same shape, and so does a stream-K pick under a policy without
 * stream-K (stream_k 0: noted as the st kernel it is, no fallback reason).
 * The note names the candidate (its _padb name when B is copied padded);
 * its reason is the fallback's, else the edge kernel's when the rule
 * (sgemm_tuned_vec_of) does not take the 16-byte kernel at n, k. */
template <int KIND, int BM, int BN, int BK, int WM, int WN, int TM, int TN, int ST, int MINB,
          int GROUP, int SP, int B0, int RULE>
static int sgemm_tuned_run(const sgemm_tuned_cfg &c, int stream_k, const float *A, const float *B,
                           float *C, int m, int n, int k, cudaStream_t stream)
{
    const int vec = sgemm_tuned_vec_of(RULE, KIND, n, k);
    const char *scalar = vec == SGEMM_TUNED_VEC_16B     ? NULL
                         : vec == SGEMM_TUNED_VEC_LANES ? SGEMM_TUNED_LANES_REASON
                         : vec == SGEMM_TUNED_VEC_PADB  ? SGEMM_TUNED_PADB_REASON
                                                        : SGEMM_SCALAR_REASON;
    const char *name = vec == SGEMM_TUNED_VEC_PADB ? c.name_padb : c.name;
    const char *fallback = vec == SGEMM_TUNED_VEC_PADB ? c.fallback_padb : c.fallback;
    if constexpr (KIND != SGEMM_TUNED_KIND_sk) {
        kernel_ran_note(name, scalar);
        return sgemm_tuned_launch<KIND, BM, BN, BK, WM, WN, TM, TN, ST, MINB, GROUP, SP, B0, RULE>(
            A, B, C, m, n, k, stream);
    } else {
        const char *why = "cooperative launch refused: forced by sgemm_tuned_force_fallback (test)";
        if (!stream_k)
            why = scalar;
        else if (!sgemm_tuned_forced) {
            const int err = sgemm_tuned_launch<KIND, BM, BN, BK, WM, WN, TM, TN, ST, MINB, GROUP, SP,
                                               B0, RULE>(A, B, C, m, n, k, stream);
            why = sgemm_tuned_refusal(err);
            if (!why) {
                kernel_ran_note(name, scalar);
                return err;
            }
            (void)cudaGetLastError(); /* the refusal is handled here, not the caller's error */
        }
        kernel_ran_note(fallback, why);
        return sgemm_tuned_launch<SGEMM_TUNED_KIND_st, BM, BN, BK, WM, WN, TM, TN, ST, MINB, GROUP,
                                  SP, B0, RULE>(A, B, C, m, n, k, stream);
    }
}

/* Whether a pick of rule 3 copies B padded (rule PAD_B) at m x n: n % 4 != 0
 * (rows of B not 16-byte aligned) and m >= SGEMM_TUNED_PAD_B_MIN_M (the
 * copy's read and write of B against the GEMM's time: its share falls as
 * 1 / m). */
static int sgemm_tuned_pad_b(int m, int n)
{
    return SGEMM_TUNED_PAD_B_MIN_M > 0 && n % 4 != 0 && m >= SGEMM_TUNED_PAD_B_MIN_M;
}

extern "C" int sgemm_tuned(const float *A, const float *B, float *C, int m, int n, int k,
                           cudaStream_t stream)
{
    if (m < 1 || n < 1 || k < 1)
        return (int)cudaErrorInvalidValue;
    int dev = 0, sms = 0;
    cudaError_t err = cudaGetDevice(&dev);
    if (err == cudaSuccess)
        err = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
    if (err != cudaSuccess)
        return (int)err;
    if (sms < 1)
        sms = 1;
    const sgemm_tuned_policy &p = sgemm_tuned_policies[policy_slot_current()];
#define SGEMM_TUNED_RUN(c) sgemm_tuned_run<c.kind, SGEMM_TUNED_ARGS(c)>(c, p.stream_k, A, B, C, m, n, k, stream)
    /* a pick of rule 3 under rule PAD_B; where B's copy cannot be had (no
     * memory for it), rule NK as for a small m */
#define SGEMM_TUNED_RUN_PAD(c)                                                                     \
    do {                                                                                           \
        if (sgemm_tuned_pad_b(m, n)) {                                                             \
            const int rc = sgemm_tuned_run<c.kind, SGEMM_TUNED_ARGS_RULE(c, SGEMM_TUNED_RULE_PAD_B)>( \
                c, p.stream_k, A, B, C, m, n, k, stream);                                          \
            if (rc != (int)cudaErrorMemoryAllocation)                                              \
                return rc;                                                                         \
        }                                                                                          \
        return SGEMM_TUNED_RUN(c);                                                                 \
    } while (0)
    switch (sgemm_tuned_pick(p, m, n, k, sms)) {
    case SGEMM_TUNED_PICK_THIN_N:
        return sgemm_thin_n(A, B, C, m, n, k, sms, stream);
    case SGEMM_TUNED_PICK_THIN_M:
        return sgemm_thin_m(A, B, C, m, n, k, sms, stream);
    case SGEMM_TUNED_PICK_THIN_MW:
        return sgemm_thin_mw(A, B, C, m, n, k, sms, stream);
    case SGEMM_TUNED_PICK_LARGE_ST:
        SGEMM_TUNED_RUN_PAD(sgemm_tuned_large_st);
    case SGEMM_TUNED_PICK_SMALL:
        SGEMM_TUNED_RUN_PAD(sgemm_tuned_small);
    case SGEMM_TUNED_PICK_SLICED_FEW:
        return SGEMM_TUNED_RUN(sgemm_tuned_sliced_few);
    case SGEMM_TUNED_PICK_SLICED_MANY:
        return SGEMM_TUNED_RUN(sgemm_tuned_sliced_many);
    case SGEMM_TUNED_PICK_SHORT_K:
        return SGEMM_TUNED_RUN(sgemm_tuned_short_k);
    case SGEMM_TUNED_PICK_NARROW:
        return SGEMM_TUNED_RUN(sgemm_tuned_narrow);
    case SGEMM_TUNED_PICK_MID:
        return SGEMM_TUNED_RUN(sgemm_tuned_mid);
    case SGEMM_TUNED_PICK_RAGGED_FEW:
        SGEMM_TUNED_RUN_PAD(sgemm_tuned_ragged_few);
    default:
        SGEMM_TUNED_RUN_PAD(sgemm_tuned_large);
    }
#undef SGEMM_TUNED_RUN_PAD
#undef SGEMM_TUNED_RUN
}

/* The name sgemm_tuned notes for pick c under a policy with or without
 * stream-K (a refused cooperative launch aside), with B copied padded or
 * not (pad: a pick of rule 3 at sgemm_tuned_pad_b's shapes; a failed copy
 * buffer aside). */
static const char *sgemm_tuned_noted(const sgemm_tuned_cfg &c, int stream_k, int pad = 0)
{
    if (c.kind == SGEMM_TUNED_KIND_sk && !stream_k)
        return pad ? c.fallback_padb : c.fallback;
    return pad ? c.name_padb : c.name;
}

extern "C" size_t sgemm_tuned_own_bytes(int m, int n, int k)
{
    if (m < 1 || n < 1 || k < 1 || !sgemm_tuned_pad_b(m, n))
        return 0;
    return sgemm_tuned_own_bytes_of(SGEMM_TUNED_RULE_PAD_B, sgemm_tuned_large_st.kind, n, k);
}

extern "C" void sgemm_tuned_thin_max(int *n_max, int *m_max)
{
    *n_max = SGEMM_TUNED_THIN_N_MAX;
    *m_max = SGEMM_TUNED_THIN_M_MAX;
}

extern "C" int sgemm_tuned_thin_mw_max(void)
{
    return SGEMM_TUNED_THIN_MW_MAX;
}

extern "C" int sgemm_tuned_thin_mw_run(const float *A, const float *B, float *C, int m, int n, int k,
                                       cudaStream_t stream)
{
    if (m < 1 || m > 64 || n < 1 || k < 1)
        return (int)cudaErrorInvalidValue;
    int dev = 0, sms = 0;
    cudaError_t err = cudaGetDevice(&dev);
    if (err == cudaSuccess)
        err = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
    if (err != cudaSuccess)
        return (int)err;
    return sgemm_thin_mw(A, B, C, m, n, k, sms < 1 ? 1 : sms, stream);
}

extern "C" const char *sgemm_tuned_pick_name(int m, int n, int k)
{
    int dev = 0, sms = 0;
    if (m < 1 || n < 1 || k < 1 || cudaGetDevice(&dev) != cudaSuccess ||
        cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev) != cudaSuccess)
        return NULL;
    if (sms < 1)
        sms = 1;
    const sgemm_tuned_policy &p = sgemm_tuned_policies[policy_slot_current()];
    switch (sgemm_tuned_pick(p, m, n, k, sms)) {
    case SGEMM_TUNED_PICK_THIN_N:
        return sgemm_thin_n_name(n);
    case SGEMM_TUNED_PICK_THIN_M:
        return sgemm_thin_m_name(m);
    case SGEMM_TUNED_PICK_THIN_MW:
        return sgemm_thin_mw_name(m);
    case SGEMM_TUNED_PICK_LARGE_ST:
        return sgemm_tuned_noted(sgemm_tuned_large_st, p.stream_k, sgemm_tuned_pad_b(m, n));
    case SGEMM_TUNED_PICK_SMALL:
        return sgemm_tuned_noted(sgemm_tuned_small, p.stream_k, sgemm_tuned_pad_b(m, n));
    case SGEMM_TUNED_PICK_SLICED_FEW:
        return sgemm_tuned_noted(sgemm_tuned_sliced_few, p.stream_k);
    case SGEMM_TUNED_PICK_SLICED_MANY:
        return sgemm_tuned_noted(sgemm_tuned_sliced_many, p.stream_k);
    case SGEMM_TUNED_PICK_SHORT_K:
        return sgemm_tuned_noted(sgemm_tuned_short_k, p.stream_k);
    case SGEMM_TUNED_PICK_NARROW:
        return sgemm_tuned_noted(sgemm_tuned_narrow, p.stream_k);
    case SGEMM_TUNED_PICK_MID:
        return sgemm_tuned_noted(sgemm_tuned_mid, p.stream_k);
    case SGEMM_TUNED_PICK_RAGGED_FEW:
        return sgemm_tuned_noted(sgemm_tuned_ragged_few, p.stream_k, sgemm_tuned_pad_b(m, n));
    default:
        return sgemm_tuned_noted(sgemm_tuned_large, p.stream_k, sgemm_tuned_pad_b(m, n));
    }
}
