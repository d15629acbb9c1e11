/* kernels/sgemm_tuned.cu: `tuned`, the FP32 SGEMM whose tile shapes were
 * picked by compare-search on the target GPU.
 *
 * Idea: the kernels are the templates of sgemm_tuned.cuh (their header says
 * how each works); this file instantiates only the three shapes `tuned` runs,
 * named in SGEMM_TUNED_LARGE, SGEMM_TUNED_SMALL and SGEMM_TUNED_SKINNY (rows
 * of SGEMM_TUNED_CANDIDATES), and the rule between them (sgemm_tuned_pick:
 * a cost model, below). All three are stream-K kernels (`_sk`): full waves of
 * tiles as one block per tile, the remaining tiles' k-slabs split evenly
 * between the blocks, so no SM idles in the last wave. The large pick (a
 * 128x256 tile) is the fast one wherever there are enough tiles; the small
 * pick (64x64) spreads a small problem's few tiles' k over every SM; the
 * skinny pick (16x128) does the same for a small m without spending FMAs on
 * rows past m.
 *
 * The cost model (sgemm_tuned_estimate), per candidate, in FMA-issue cycles
 * of one SM (only comparisons between candidates matter):
 *   tiles = ceil(m/BM) * ceil(n/BN), slabs = ceil(k/BK) per tile; the
 *   stream-K grid G as the launcher makes it (sgemm_tuned_sk_grid: about
 *   min(SMs * MINB, tiles * slabs / 8), MINB blocks per SM assumed
 *   resident); a block's work = its full-wave tiles' slabs plus its share of
 *   the remaining tiles' slabs; the busiest SM runs ceil(G / SMs) blocks.
 *   compute = that SM's FMAs / rate, rate = 128 FMA/cycle x the FFMA share
 *   of a k-step's instructions (TM*TN FFMA against (TM+TN)/4 LDS.128 and
 *   about 2 more) x min(1, warps on the SM / 8) (fewer warps hide less
 *   latency). l2 = bytes the SM loads (A once per tile column, B once per
 *   tile row, over SMs) / 32 bytes per cycle. estimate = max(compute, l2) +
 *   2048 cycles per block in the longest fix-up chain through C (one tile
 *   split over c blocks: c stores one after the other, each after a flag).
 *   The launch and the first loads from DRAM cost every candidate alike and
 *   are left out. A kind that is not stream-K (a -D pick) is one block per
 *   tile: ceil(tiles / SMs) tiles per SM, no chain.
 * The large pick is kept unless another is estimated at least 1/8 faster:
 * the model is coarse, and the large pick's speed on large problems is the
 * one measured best; between equal estimates the earlier pick (small before
 * skinny) wins.
 *
 * Constraints: any m, n, k >= 1 (edges as in sgemm_tuned.cuh). A stream-K
 * pick needs a cooperative launch (every block resident at once). When the
 * runtime refuses it (cudaErrorCooperativeLaunchTooLarge when fewer SMs are
 * free than the grid assumes, e.g. under MPS or beside other work;
 * cudaErrorNotSupported / cudaErrorNotPermitted where cooperative launches
 * are unavailable), the launcher clears that error and runs the same tile
 * shape as one block per tile with C staged (`_st`), and says so through
 * kernel_ran_note: every call names the kernel it ran (the candidate's
 * name) and why when it is not the fast path (the fallback; else the
 * scalar kernels when n or k is not a multiple of 4). Picks are names, resolved at compile
 * time: a name that is not a row of the table does not compile.
 * Run just this: ./compare --variants tuned; re-time the candidates:
 * ./compare-search --family fp32 --n 256,512,1024 --shape 16x14336x4096 --csv FILE. */
#include "kernel_ran.h"
#include "sgemm.h"
#include "sgemm_tuned.cuh"

/* The picks, overridable without an edit through CMake:
 * -DCOMPARE_KERNEL_DEFS="SGEMM_TUNED_LARGE=NAME;SGEMM_TUNED_SMALL=NAME;SGEMM_TUNED_SKINNY=NAME"
 * (tests/gpu_check.sh's search phase passes compare-search's winner as the
 * large one). The figures behind the large pick are in
 * results/h200/search_fp32.txt (2048 .. 8192). */
#ifndef SGEMM_TUNED_LARGE
#define SGEMM_TUNED_LARGE 128x256x8_w64x64_t8x16_s4_g8_sp2_b4_sk
#endif
#ifndef SGEMM_TUNED_SMALL
#define SGEMM_TUNED_SMALL 64x64x16_w32x16_t4x4_s6_g8_sp2_b15_sk
#endif
#ifndef SGEMM_TUNED_SKINNY
#define SGEMM_TUNED_SKINNY 16x128x8_w16x64_t4x8_s6_g8_sp2_b7_sk
#endif

static constexpr sgemm_tuned_cfg sgemm_tuned_large = SGEMM_TUNED_CFG(SGEMM_TUNED_LARGE);
static constexpr sgemm_tuned_cfg sgemm_tuned_small = SGEMM_TUNED_CFG(SGEMM_TUNED_SMALL);
static constexpr sgemm_tuned_cfg sgemm_tuned_skinny = SGEMM_TUNED_CFG(SGEMM_TUNED_SKINNY);

/* the cost model's constants (see the header) */
#define SGEMM_TUNED_EST_WARPS 8         /* warps per SM for the full FMA rate */
#define SGEMM_TUNED_EST_L2_BYTES 32.0   /* bytes per cycle an SM loads from L2 */
#define SGEMM_TUNED_EST_HOP 2048.0      /* cycles per block of a fix-up chain */

static long long sgemm_tuned_cdiv(long long a, long long b)
{
    return (a + b - 1) / b;
}

/* Estimated cycles of candidate c at m x n x k on `sms` SMs (the header's model). */
static double sgemm_tuned_estimate(const sgemm_tuned_cfg &c, int m, int n, int k, int sms)
{
    const long long tiles_m = sgemm_tuned_cdiv(m, c.bm), tiles_n = sgemm_tuned_cdiv(n, c.bn);
    const long long tiles = tiles_m * tiles_n, slabs = sgemm_tuned_cdiv(k, c.bk);
    const int warps = sgemm_tuned_threads(c.bm, c.bn, c.wm, c.wn) / 32;
    long long per_sm_blocks, block_slabs, chain = 0;
    if (c.kind == SGEMM_TUNED_KIND_sk) {
        const long long g = sgemm_tuned_sk_grid((long long)sms * c.minb, tiles, slabs);
        const long long waves = tiles / g, rest = tiles - waves * g;
        block_slabs = waves * slabs + sgemm_tuned_cdiv(rest * slabs, g);
        per_sm_blocks = sgemm_tuned_cdiv(g, sms);
        if (rest > 0) {
            chain = sgemm_tuned_cdiv(g, rest); /* blocks sharing one split tile */
            if (chain > slabs)
                chain = slabs;
        }
    } else {
        per_sm_blocks = sgemm_tuned_cdiv(tiles, sms); /* one after another on the busiest SM */
        block_slabs = slabs;
    }
    long long active = per_sm_blocks < c.minb ? per_sm_blocks : c.minb;
    double occ = (double)(active * warps) / SGEMM_TUNED_EST_WARPS;
    if (occ > 1.0)
        occ = 1.0;
    const double share = (double)(c.tm * c.tn) / (c.tm * c.tn + (c.tm + c.tn) / 4.0 + 2.0);
    const double compute = (double)per_sm_blocks * block_slabs * c.bm * c.bn * c.bk / (128.0 * share * occ);
    const double bytes = 4.0 * ((double)tiles_m * c.bm * slabs * c.bk * tiles_n +
                                (double)slabs * c.bk * tiles_n * c.bn * tiles_m);
    const double l2 = bytes / sms / SGEMM_TUNED_EST_L2_BYTES;
    return (compute > l2 ? compute : l2) + SGEMM_TUNED_EST_HOP * chain;
}

/* The pick for m x n x k on `sms` SMs: 0 large, 1 small, 2 skinny (the
 * smallest estimate, the large one's taken as 7/8 of itself). */
static int sgemm_tuned_pick(int m, int n, int k, int sms)
{
    const double est[3] = {sgemm_tuned_estimate(sgemm_tuned_large, m, n, k, sms) * 0.875,
                           sgemm_tuned_estimate(sgemm_tuned_small, m, n, k, sms),
                           sgemm_tuned_estimate(sgemm_tuned_skinny, m, n, k, sms)};
    int best = 0;
    for (int i = 1; i < 3; i++)
        if (est[i] < est[best])
            best = i;
    return best;
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

/* Runs pick c (its kind as a template argument); a refused stream-K launch
 * falls back to st at the same shape. The note names the candidate; its
 * reason is the fallback's, else the scalar kernel's when n or k % 4 != 0. */
template <int KIND, int BM, int BN, int BK, int WM, int WN, int TM, int TN, int ST, int MINB,
          int GROUP, int SP, int B0>
static int sgemm_tuned_run(const sgemm_tuned_cfg &c, const float *A, const float *B, float *C, int m,
                           int n, int k, cudaStream_t stream)
{
    const char *scalar = k % 4 == 0 && n % 4 == 0 ? NULL : SGEMM_SCALAR_REASON;
    if constexpr (KIND != SGEMM_TUNED_KIND_sk) {
        kernel_ran_note(c.name, scalar);
        return sgemm_tuned_launch<KIND, BM, BN, BK, WM, WN, TM, TN, ST, MINB, GROUP, SP, B0>(
            A, B, C, m, n, k, stream);
    } else {
        const char *why = "cooperative launch refused: forced by sgemm_tuned_force_fallback (test)";
        if (!sgemm_tuned_forced) {
            const int err = sgemm_tuned_launch<KIND, BM, BN, BK, WM, WN, TM, TN, ST, MINB, GROUP, SP,
                                               B0>(A, B, C, m, n, k, stream);
            why = sgemm_tuned_refusal(err);
            if (!why) {
                kernel_ran_note(c.name, scalar);
                return err;
            }
            (void)cudaGetLastError(); /* the refusal is handled here, not the caller's error */
        }
        kernel_ran_note(c.fallback, why);
        return sgemm_tuned_launch<SGEMM_TUNED_KIND_st, BM, BN, BK, WM, WN, TM, TN, ST, MINB, GROUP,
                                  SP, B0>(A, B, C, m, n, k, stream);
    }
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
    switch (sgemm_tuned_pick(m, n, k, sms)) {
    case 1:
        return sgemm_tuned_run<sgemm_tuned_small.kind, SGEMM_TUNED_ARGS(sgemm_tuned_small)>(
            sgemm_tuned_small, A, B, C, m, n, k, stream);
    case 2:
        return sgemm_tuned_run<sgemm_tuned_skinny.kind, SGEMM_TUNED_ARGS(sgemm_tuned_skinny)>(
            sgemm_tuned_skinny, A, B, C, m, n, k, stream);
    default:
        return sgemm_tuned_run<sgemm_tuned_large.kind, SGEMM_TUNED_ARGS(sgemm_tuned_large)>(
            sgemm_tuned_large, A, B, C, m, n, k, stream);
    }
}
