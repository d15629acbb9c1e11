/* kernels/sgemm_tf32_tma.cu: the variant tf32_tma, TF32 on Hopper warpgroup
 * MMA fed by TMA (the kernel and its candidates: sgemm_tf32_tma.cuh).
 * Compiled for sm_90a only.
 *
 * Idea: candidates of SGEMM_TMA_CANDIDATES, picked by name from the shape
 * and the SM count: up to 1024^2 outputs a 256 x 128 tile leaves most SMs
 * idle (32 tiles at 1024^2 on 132 SMs), so smaller tiles with a producer
 * warp take those: 128 x 64 (one consumer warpgroup) while its tiles fit in
 * one wave (tiles <= SMs: NARROW), else 128 x 128 (SMALL). For a thin m
 * (m <= 64, any n: decode-like, a few rows of activations against a weight
 * matrix) the same choice of 64 or 128 columns, on the tile with the fewest
 * of 16, 32, 64 rows that holds m (NARROW16 .. SMALL64): the tile's rows
 * are the wgmma's N, so m = 16 in a 128-row tile made 7/8 of every MMA on
 * zero rows; such a shape streams B once and is bound by DRAM, and with the
 * MMA cut to what m needs it runs at the rate of the copies. When a thin m's
 * 128-column tiles fill at most half the SMs (a short n, e.g. 4096: 32
 * tiles), each SM streams a strip of B alone and too few pull from DRAM, so
 * the persistent split-k form of the same tile takes it (SPLIT16 .. 64: k
 * cut so that the parts fill the SMs, added with float atomics into C,
 * zeroed first). The split-k 2-CTA
 * persistent candidate won the search at 512 and 1024 over SMALL but lost
 * in `compare` at 256, 129 and 16x14336x4096, and needs a
 * memset of C and float atomics; NARROW beat both at 256 .. 1024. Beyond 1024^2
 * outputs the persistent warp-specialised 256x128 kernel with setmaxnreg
 * and fragment prefetch (_pf: the next slab's B^T fragments are loaded
 * while this slab's batch runs): in ping-pong order while its tiles fit in
 * one wave (tiles <= SMs: WAVE), and beyond that in 2-CTA clusters sharing
 * A by multicast, without ping-pong, with a partial last wave of at most
 * half the clusters cut into k pieces that run in one round (the split
 * tail, _kst: LARGE; whole waves alone are the same kernel as
 * tf32_tma_m256n128k32_s4_pf_pers_c2). Each was the best of the
 * search or of tests/probes/tf32_probe.cu in its range (docs/tuning/
 * tf32_tma.md). The stream-K candidates (_stk, _stkl) lost to the
 * whole-tile LARGE pick. When LARGE's workspace (stream-K
 * or split tail) cannot be had, SGEMM_TMA_LARGE_WHOLE runs, noted.
 * Overridable without an edit: -DCOMPARE_KERNEL_DEFS=
 * "SGEMM_TMA_NARROW=NAME;SGEMM_TMA_SMALL=NAME;SGEMM_TMA_WAVE=NAME;SGEMM_TMA_LARGE=NAME"
 * (and SGEMM_TMA_NARROW16/32/64, SGEMM_TMA_SMALL16/32/64,
 * SGEMM_TMA_SPLIT16/32/64, each a candidate with that many rows).
 *
 * Shapes the TMA kernels cannot read in place (sgemm_wg_decline: n or k not
 * a multiple of 4, A or B not 16-byte aligned, C not 8-byte aligned) run
 * the same candidate on staged operands (kernels/sgemm_tf32_stage.cuh)
 * instead of falling back to the mma.sync kernel for the whole matrix: the
 * GEMM is run as m x n4 x k4 (n4, k4: n, k rounded up to multiples of 4) on
 *   - A' (m x k4): A copied with k4 - k zero columns, when k % 4 != 0 or A
 *     is misaligned (else A itself);
 *   - B' (k4 x n4): B copied with k4 - k zero rows and n4 - n zero columns,
 *     when k % 4 != 0, n % 4 != 0 or B is misaligned (else B itself);
 *   - C' (m x n4): a buffer copied back into C (its n columns), when
 *     n % 4 != 0 or C is misaligned (else C itself; the kernel takes its row
 *     stride from its n).
 * The zero rows and columns add exactly 0 to every output (the same TF32
 * products and FP32 sums as an aligned shape), and C' columns n .. n4 - 1
 * (zeros) are never copied back. One launch copies A and B, one the GEMM,
 * one copies C back: every copy is inside the call, timed with it. Why this
 * and not a second tensor map for the edge: a row stride that is not a
 * multiple of 16 bytes cannot be described by any tensor map, so every row
 * of such an operand needs another path; copying costs one read and one
 * write of each staged matrix (bytes in m k + k n + m n against flops in
 * m n k: small but for small shapes), and keeps the kernel as it is. The pick
 * rule (small or large candidate) is the one of the aligned shapes, on m x n.
 * kernel_ran_note names the candidate and, as the reason, which operands
 * were staged. A candidate stages less (tf32_tma_lean_staging, a row of
 * compare --candidates tf32_tma; sgemm_tf32_tma.h): at k % 4 != 0 it runs
 * the GEMM at k, with A' read through a map of k columns whose rows are k4
 * floats apart and B in place (TMA reads the rows past k as zeros), so only
 * A is copied; measured against this path in docs/tuning/awkward.md. The
 * buffer: sgemm_tf32_stage.cuh (one per device, allocated at the first
 * unaligned call, kept, freed at exit).
 * Thin m on unaligned rows: at m <= 64 (the thin rule's m) with n or k not
 * a multiple of 4 the thin tiles would stream a staged B once, bound by
 * DRAM, so copying B (and C) before and after the GEMM costs about as much
 * again as the GEMM (docs/tuning/awkward.md). Such a shape runs instead,
 * on the operands in place:
 *   - at m <= SGEMM_TMA_THIN_MW_MAX (default 64; 0 turns it off) the
 *     thin-mw kernel (kernels/sgemm_tf32_thin.cuh: mma.sync, every row of
 *     A in one pass over B, B copied by 4-byte cp.async at any n and
 *     alignment), noted as tf32_tma_thin_mw* with the reason;
 *   - else, under SGEMM_TMA_THIN_STAGED_MMA (default 1; 0 turns it off),
 *     the mma.sync kernel (sgemm_tf32_mma, the rung below), noted with the
 *     reason: its 128-row tiles spend most of their MMAs on rows past m,
 *     which is why the thin-mw kernel takes these shapes first.
 * The candidate tf32_tma_lean_staging always stages (it is there to
 * measure staging).
 * Falls back to the mma.sync kernel (sgemm_tf32_mma, noted with the reason)
 * also when the driver has no cuTensorMapEncodeTiled or the staging buffer
 * cannot be allocated. Constraints: any m, n, k >= 1.
 * Policy (kernels/common/policy.h): the rule's thresholds are the sm_90
 * entry (sgemm_tma_policy_90), the only one: under any other entry (another
 * GPU, or the forced mode COMPARE_POLICY_ARCH) the variant is declined by its
 * supports hook and the launcher returns cudaErrorNotSupported.
 * At 8192 the TF32 rows run power-capped, and how far the cap pulls each
 * kernel's clock changes from run to run: that, not memory, moves
 * tf32_tma's share of cuBLAS between sequential runs. Timed interleaved
 * (both kernels under the same cap) the gap is per clock, not only power;
 * at long k the two are level. What was measured: docs/tuning/tf32_8192.md.
 * Run just this: ./compare --variants tf32_tma */
#include <limits.h>

#include "kernel_ran.h"
#include "policy.h"
#include "sgemm.h"
#include "sgemm_tf32_stage.cuh"
#include "sgemm_tf32_thin.cuh"
#include "sgemm_tf32_tma.cuh"
#include "sgemm_tf32_tma.h"

/* 1: a thin m (<= the policy's thin_m) whose n or k % 4 != 0 runs the
 * mma.sync kernel instead of staged operands (the header); 0: staged */
#ifndef SGEMM_TMA_THIN_STAGED_MMA
#define SGEMM_TMA_THIN_STAGED_MMA 1
#endif
/* the largest m (<= the policy's thin_m) whose n or k % 4 != 0 runs the
 * thin-mw kernel (sgemm_tf32_thin.cuh) ahead of the rule above; 0: never */
#ifndef SGEMM_TMA_THIN_MW_MAX
#define SGEMM_TMA_THIN_MW_MAX 64
#endif
static_assert(SGEMM_TMA_THIN_MW_MAX >= 0 && SGEMM_TMA_THIN_MW_MAX <= 64, "the thin-mw kernel holds at most 64 rows");

/* thin m: the NARROW and SMALL tiles with 16, 32 or 64 rows */
#ifndef SGEMM_TMA_NARROW16
#define SGEMM_TMA_NARROW16 tf32_tma_m16n64k32_s8_ws
#endif
#ifndef SGEMM_TMA_NARROW32
#define SGEMM_TMA_NARROW32 tf32_tma_m32n64k32_s8_ws
#endif
#ifndef SGEMM_TMA_NARROW64
#define SGEMM_TMA_NARROW64 tf32_tma_m64n64k32_s6_ws
#endif
#ifndef SGEMM_TMA_SMALL16
#define SGEMM_TMA_SMALL16 tf32_tma_m16n128k32_s8_ws
#endif
#ifndef SGEMM_TMA_SMALL32
#define SGEMM_TMA_SMALL32 tf32_tma_m32n128k32_s8_ws
#endif
#ifndef SGEMM_TMA_SMALL64
#define SGEMM_TMA_SMALL64 tf32_tma_m64n128k32_s6_ws
#endif
/* thin m with few tiles: persistent, k split over the SMs */
#ifndef SGEMM_TMA_SPLIT16
#define SGEMM_TMA_SPLIT16 tf32_tma_m16n128k32_s8_sk_pers
#endif
#ifndef SGEMM_TMA_SPLIT32
#define SGEMM_TMA_SPLIT32 tf32_tma_m32n128k32_s8_sk_pers
#endif
#ifndef SGEMM_TMA_SPLIT64
#define SGEMM_TMA_SPLIT64 tf32_tma_m64n128k32_s6_sk_pers
#endif
/* thin n with few tiles: persistent, k split over the SMs (the persistent
 * kernels have 128 columns: at n <= 64 half the MMA is on zero columns,
 * which costs little where the call is bound by streaming A) */
#ifndef SGEMM_TMA_SPLIT_THIN_N
#define SGEMM_TMA_SPLIT_THIN_N tf32_tma_m128n128k32_s6_sk_pers
#endif
#ifndef SGEMM_TMA_THIN_N
#define SGEMM_TMA_THIN_N 64 /* the thin-n split at n <= this (0: never) */
#endif
#ifndef SGEMM_TMA_NARROW
#define SGEMM_TMA_NARROW tf32_tma_m128n64k32_s6_ws
#endif
#ifndef SGEMM_TMA_SMALL
#define SGEMM_TMA_SMALL tf32_tma_m128n128k32_s6_ws
#endif
#ifndef SGEMM_TMA_WAVE
#define SGEMM_TMA_WAVE tf32_tma_m256n128k32_s4_pp_pf_pers
#endif
#ifndef SGEMM_TMA_LARGE
#define SGEMM_TMA_LARGE tf32_tma_m256n128k32_s4_pf_kst_pers_c2
#endif
/* LARGE when its stream-K or split-tail workspace cannot be had: whole
 * tiles, no workspace */
#ifndef SGEMM_TMA_LARGE_WHOLE
#define SGEMM_TMA_LARGE_WHOLE tf32_tma_m256n128k32_s4_pf_pers_c2
#endif

static constexpr sgemm_tma_cfg sgemm_tma_wave = SGEMM_TMA_CFG(SGEMM_TMA_WAVE);
static constexpr sgemm_tma_cfg sgemm_tma_large = SGEMM_TMA_CFG(SGEMM_TMA_LARGE);
static constexpr sgemm_tma_cfg sgemm_tma_large_whole = SGEMM_TMA_CFG(SGEMM_TMA_LARGE_WHOLE);
static_assert(sgemm_tma_large_whole.sk == 0, "the whole-tile LARGE needs no workspace");

typedef int (*sgemm_tma_run_fn)(const float *, int, const float *, float *, int, int, int, cudaStream_t);
typedef struct {
    const sgemm_tma_cfg *cfg;
    sgemm_tma_run_fn run;
} sgemm_tma_pick;
#define SGEMM_TMA_PICK(NAME) {&SGEMM_TMA_CFG(NAME), sgemm_tma_run_lda<SGEMM_TMA_ARGS(SGEMM_TMA_CFG(NAME))>}

/* by rows: 16, 32, 64, 128 (checked at compile time below) */
static const sgemm_tma_pick sgemm_tma_narrow_rows[4] = {
    SGEMM_TMA_PICK(SGEMM_TMA_NARROW16), SGEMM_TMA_PICK(SGEMM_TMA_NARROW32),
    SGEMM_TMA_PICK(SGEMM_TMA_NARROW64), SGEMM_TMA_PICK(SGEMM_TMA_NARROW)};
static const sgemm_tma_pick sgemm_tma_small_rows[4] = {
    SGEMM_TMA_PICK(SGEMM_TMA_SMALL16), SGEMM_TMA_PICK(SGEMM_TMA_SMALL32),
    SGEMM_TMA_PICK(SGEMM_TMA_SMALL64), SGEMM_TMA_PICK(SGEMM_TMA_SMALL)};
static const sgemm_tma_pick sgemm_tma_split_rows[3] = {
    SGEMM_TMA_PICK(SGEMM_TMA_SPLIT16), SGEMM_TMA_PICK(SGEMM_TMA_SPLIT32), SGEMM_TMA_PICK(SGEMM_TMA_SPLIT64)};
static_assert(SGEMM_TMA_CFG(SGEMM_TMA_SPLIT16).bm == 16 && SGEMM_TMA_CFG(SGEMM_TMA_SPLIT32).bm == 32 &&
                  SGEMM_TMA_CFG(SGEMM_TMA_SPLIT64).bm == 64 && SGEMM_TMA_CFG(SGEMM_TMA_SPLIT16).sk &&
                  SGEMM_TMA_CFG(SGEMM_TMA_SPLIT32).sk && SGEMM_TMA_CFG(SGEMM_TMA_SPLIT64).sk,
              "the split picks have 16, 32, 64 rows and split k");
static_assert(SGEMM_TMA_CFG(SGEMM_TMA_NARROW16).bm == 16 && SGEMM_TMA_CFG(SGEMM_TMA_SMALL16).bm == 16 &&
                  SGEMM_TMA_CFG(SGEMM_TMA_NARROW32).bm == 32 && SGEMM_TMA_CFG(SGEMM_TMA_SMALL32).bm == 32 &&
                  SGEMM_TMA_CFG(SGEMM_TMA_NARROW64).bm == 64 && SGEMM_TMA_CFG(SGEMM_TMA_SMALL64).bm == 64 &&
                  SGEMM_TMA_CFG(SGEMM_TMA_NARROW).bm == 128 && SGEMM_TMA_CFG(SGEMM_TMA_SMALL).bm == 128,
              "the thin picks have 16, 32, 64 rows, NARROW and SMALL 128");

/* The tf32_tma policy (kernels/common/policy.h) has an sm_90 entry alone:
 * the thin/narrow rule below for m <= thin_m or m x n <= narrow_max, the
 * wave/large picks beyond. Under any other entry (another GPU, or the forced
 * mode) the variant's supports hook declines it and the launcher refuses
 * (cudaErrorNotSupported): its kernels are sm_90a SASS with no PTX to JIT. */
typedef struct {
    int thin_m;           /* the thin/narrow rule at m <= this */
    long long narrow_max; /* ... or at m x n <= this */
} sgemm_tma_policy;
static const sgemm_tma_policy sgemm_tma_policy_90 = {64, 1024LL * 1024LL};

/* The reason noted when a thin m on unaligned rows runs the mma.sync kernel. */
#define SGEMM_TMA_THIN_MMA_WHY \
    "thin m with n or k not a multiple of 4: the mma.sync kernel, reading the operands in place (no staging)"

/* The reason noted when a thin m on unaligned rows runs the thin-mw kernel. */
#define SGEMM_TMA_THIN_MW_WHY                                                                                     \
    "thin m with n or k not a multiple of 4: the thin-mw mma.sync kernel, one pass over B read in place "        \
    "(no staging)"

/* A thin m whose n or k % 4 != 0 (the TMA kernels would need staged operands). */
static int sgemm_tma_thin_unaligned(int m, int n, int k)
{
    return m <= sgemm_tma_policy_90.thin_m && (n % 4 != 0 || k % 4 != 0);
}

/* Whether m x n x k runs the thin-mw kernel under SGEMM_TMA_THIN_MW_MAX. */
static int sgemm_tma_thin_mw(int m, int n, int k)
{
    return m <= SGEMM_TMA_THIN_MW_MAX && sgemm_tma_thin_unaligned(m, n, k);
}

/* Whether m x n x k runs the mma.sync kernel under SGEMM_TMA_THIN_STAGED_MMA
 * (a thin m that would need staged operands, past the thin-mw kernel's m). */
static int sgemm_tma_thin_mma(int m, int n, int k)
{
    return SGEMM_TMA_THIN_STAGED_MMA && !sgemm_tma_thin_mw(m, n, k) && sgemm_tma_thin_unaligned(m, n, k);
}

extern "C" int sgemm_tf32_tma_routes_mma(int m, int n, int k)
{
    return m >= 1 && n >= 1 && k >= 1 && sgemm_tma_thin_mma(m, n, k);
}

extern "C" int sgemm_tf32_tma_routes_thin(int m, int n, int k)
{
    return m >= 1 && n >= 1 && k >= 1 && sgemm_tma_thin_mw(m, n, k);
}

/* The mma.sync kernel instead, noted with the reason (a static string). */
static int sgemm_tma_fallback(const char *why, const float *A, const float *B, float *C, int m,
                              int n, int k, cudaStream_t stream)
{
    const int rc = sgemm_tf32_mma(A, B, C, m, n, k, stream);
    kernel_ran_note(kernel_ran_name(), why); /* the mma.sync kernel it noted, and why */
    return rc;
}

/* Tiles of candidate c on an m x n C. */
static long long sgemm_tma_tiles(const sgemm_tma_cfg &c, int m, int n)
{
    return (long long)((m + c.bm - 1) / c.bm) * ((n + c.bn - 1) / c.bn);
}

/* The candidate for `outputs` (m x n of the caller's shape: the pick rule
 * of every shape), run on A (m x k, rows lda floats apart), B (k x n), C
 * (m x n), B and C row-major with their column count as row stride. */
static int sgemm_tma_pick_run(const float *A, int lda, const float *B, float *C, int m, int n, int k,
                              long long outputs, const char *why, cudaStream_t stream)
{
    const int sms = sgemm_tma_sms();
    const sgemm_tma_policy &pol = sgemm_tma_policy_90; /* sgemm_tf32_tma checked the entry */
    if (m <= pol.thin_m || outputs <= pol.narrow_max) {
        /* the row count: the fewest of 16, 32, 64, 128 that hold m (a thin m,
         * decode-like, would leave most of a 128-row tile, the wgmma's N,
         * zeros); then 64 columns while those tiles fit in one wave, else 128 */
        int r = 0;
        while (r < 3 && sgemm_tma_narrow_rows[r].cfg->bm < m)
            r++;
        const sgemm_tma_pick *p = sms > 0 && sgemm_tma_tiles(*sgemm_tma_narrow_rows[r].cfg, m, n) <= sms
                                      ? &sgemm_tma_narrow_rows[r]
                                      : &sgemm_tma_small_rows[r];
        /* thin m whose 128-column tiles fill at most half the SMs (a short
         * n): each tile streams its strip of B alone, so too few SMs pull
         * from DRAM; split k over the SMs instead (the parts added with float
         * atomics into C, zeroed first) */
        if (r < 3 && sms > 0 && 2 * sgemm_tma_tiles(*sgemm_tma_split_rows[r].cfg, m, n) <= sms)
            p = &sgemm_tma_split_rows[r];
        /* thin n (a tall A against a few columns) likewise, when its
         * 128-row tiles fill at most a quarter of the SMs, each streaming its
         * strip of A (the threshold: docs/tuning/awkward.md) */
        static const sgemm_tma_pick split_thin_n = SGEMM_TMA_PICK(SGEMM_TMA_SPLIT_THIN_N);
        if (r == 3 && n <= SGEMM_TMA_THIN_N && sms > 0 && 4 * sgemm_tma_tiles(*split_thin_n.cfg, m, n) <= sms)
            p = &split_thin_n;
        kernel_ran_note(p->cfg->name, why);
        return p->run(A, lda, B, C, m, n, k, stream);
    }
    if (sms > 0 && sgemm_tma_tiles(sgemm_tma_wave, m, n) <= sms) {
        kernel_ran_note(sgemm_tma_wave.name, why);
        return sgemm_tma_run_lda<SGEMM_TMA_ARGS(sgemm_tma_wave)>(A, lda, B, C, m, n, k, stream);
    }
    kernel_ran_note(sgemm_tma_large.name, why);
    const int rc = sgemm_tma_run_lda<SGEMM_TMA_ARGS(sgemm_tma_large)>(A, lda, B, C, m, n, k, stream);
    if (rc != (int)cudaErrorMemoryAllocation || sgemm_tma_large.sk < 2)
        return rc;
    /* the stream-K or split-tail workspace could not be allocated (cleared,
     * not sticky) */
    kernel_ran_note(sgemm_tma_large_whole.name,
                    why ? why : "no device memory for the split-k workspace: whole tiles");
    return sgemm_tma_run_lda<SGEMM_TMA_ARGS(sgemm_tma_large_whole)>(A, lda, B, C, m, n, k, stream);
}

// ---- staged operands ---------------------------------------------------------

#define SGEMM_TMA_STAGE_A 1 /* k % 4 != 0 or A not 16-byte aligned */
#define SGEMM_TMA_STAGE_B 2 /* k % 4 != 0 (not when lean), n % 4 != 0 or B not 16-byte aligned */
#define SGEMM_TMA_STAGE_C 4 /* n % 4 != 0 or C not 8-byte aligned */

/* the reason noted for each set of staged operands (index: the mask; a
 * mask with A and B or B and C also comes from aligned pointers with k or n
 * not a multiple of 4, see sgemm_tma_stage_mask) */
static const char *const sgemm_tma_stage_why[8] = {
    NULL,
    "A not 16-byte aligned: A staged",
    "B not 16-byte aligned: B staged",
    "k not a multiple of 4 or A, B misaligned: A, B staged with padded rows",
    "C not 8-byte aligned: C staged",
    "A, C misaligned: A, C staged",
    "n not a multiple of 4 or B, C misaligned: B, C staged with padded rows",
    "n or k not a multiple of 4 or pointers misaligned: A, B, C staged with padded rows",
};

/* lean staging (the candidate tf32_tma_lean_staging): the reason noted for
 * each set of staged operands, by mask */
static const char *const sgemm_tma_lean_why[8] = {
    NULL,
    "k not a multiple of 4 or A misaligned: A staged with padded rows (B in place, its rows past k read as zeros)",
    "B not 16-byte aligned: B staged",
    "k not a multiple of 4 or A misaligned, and B misaligned: A, B staged",
    "C not 8-byte aligned: C staged",
    "k not a multiple of 4 or A misaligned, C misaligned: A, C staged",
    "n not a multiple of 4 or B, C misaligned: B, C staged with padded rows (A in place)",
    "n and k not multiples of 4 or pointers misaligned: A, B, C staged with padded rows",
};

/* Which operands the TMA kernels cannot take in place (a SGEMM_TMA_STAGE_
 * mask). lean 0: the GEMM runs at k4 (k rounded up to a multiple of 4) on
 * A' and B' with zero padding, so k % 4 != 0 stages both; lean 1: it runs
 * at k, A' (when staged) read through a map of k columns whose rows are k4
 * floats apart, and B in place through a map of k rows (TMA reads the rows
 * past k as zeros), so k % 4 != 0 stages A alone. */
static int sgemm_tma_stage_mask(const float *A, const float *B, const float *C, int n, int k, int lean)
{
    int mask = 0;
    if (k % 4 != 0 || ((uintptr_t)A & 15) != 0)
        mask |= SGEMM_TMA_STAGE_A;
    if ((k % 4 != 0 && !lean) || n % 4 != 0 || ((uintptr_t)B & 15) != 0)
        mask |= SGEMM_TMA_STAGE_B;
    if (n % 4 != 0 || ((uintptr_t)C & 7) != 0)
        mask |= SGEMM_TMA_STAGE_C;
    return mask;
}

/* The staged operands' parts of the copy buffer (bytes, 0 for one not
 * staged) for a mask of sgemm_tma_stage_mask and n4, k4 (n, k rounded up
 * to multiples of 4); b_rows: B's rows (k4, or k when lean). */
static void sgemm_tma_stage_parts(int mask, int m, long long n4, long long k4, long long b_rows, size_t *a,
                                  size_t *b, size_t *c)
{
    *a = mask & SGEMM_TMA_STAGE_A ? sgemm_stage_round((size_t)m * k4 * 4) : 0;
    *b = mask & SGEMM_TMA_STAGE_B ? sgemm_stage_round((size_t)b_rows * n4 * 4) : 0;
    *c = mask & SGEMM_TMA_STAGE_C ? sgemm_stage_round((size_t)m * n4 * 4) : 0;
}

/* The candidate on staged operands (mask: which ones, never 0; lean: as
 * sgemm_tma_stage_mask). Returns 0, a cudaError_t value, or -1 after noting
 * nothing when the buffer cannot be had (out of memory, ordinal past 63:
 * *why_fallback says which). */
static int sgemm_tma_staged(int mask, int lean, const float *A, const float *B, float *C, int m, int n, int k,
                            cudaStream_t stream, const char **why_fallback)
{
    const long long k4 = ((long long)k + 3) / 4 * 4, n4 = ((long long)n + 3) / 4 * 4;
    if (k4 > INT_MAX || n4 > INT_MAX) {
        *why_fallback = "n or k too large to pad to a multiple of 4";
        return -1;
    }
    /* the GEMM's k and B's rows: k4 (zero rows of B' past k), or k when lean */
    const int kg = lean ? k : (int)k4;
    size_t bytes_a, bytes_b, bytes_c;
    sgemm_tma_stage_parts(mask, m, n4, k4, kg, &bytes_a, &bytes_b, &bytes_c);
    void *buf = NULL;
    int slot = 0;
    int rc = sgemm_stage_acquire(SGEMM_STAGE_POOL_COPY, bytes_a + bytes_b + bytes_c, stream, &buf, &slot);
    if (rc == (int)cudaErrorMemoryAllocation || rc == (int)cudaErrorNotSupported) {
        *why_fallback = rc == (int)cudaErrorMemoryAllocation
                            ? "no device memory for the TMA staging buffer"
                            : "device ordinal past 63: no TMA staging buffer";
        return -1;
    }
    if (rc != 0)
        return rc;
    float *sa = (float *)buf;
    float *sb = (float *)((char *)buf + bytes_a);
    float *sc = (float *)((char *)buf + bytes_a + bytes_b);
    const float *a = mask & SGEMM_TMA_STAGE_A ? sa : A;
    const float *b = mask & SGEMM_TMA_STAGE_B ? sb : B;
    float *c = mask & SGEMM_TMA_STAGE_C ? sc : C;
    /* A (m x k) into m x k4, B (k x n) into kg x n4, zeros around */
    const sgemm_stage_copy copy_a = {A, sa, k, k4, m, k, m, (int)k4};
    const sgemm_stage_copy copy_b = {B, sb, n, n4, k, n, kg, (int)n4};
    if (mask & (SGEMM_TMA_STAGE_A | SGEMM_TMA_STAGE_B)) {
        const sgemm_stage_copy *first = mask & SGEMM_TMA_STAGE_A ? &copy_a : &copy_b;
        const sgemm_stage_copy *second =
            (mask & SGEMM_TMA_STAGE_A) && (mask & SGEMM_TMA_STAGE_B) ? &copy_b : NULL;
        rc = sgemm_stage_launch(first, second, stream);
    }
    /* m x n4 x kg: n4 == n unless n % 4 != 0, and then B' and C' both have
     * n4 columns (the kernel's n is also its C row stride); A's rows are k4
     * floats apart when it is staged (else k, and then k == k4) */
    if (rc == 0)
        rc = sgemm_tma_pick_run(a, mask & SGEMM_TMA_STAGE_A ? (int)k4 : k, b, c, m, (int)n4, kg,
                                (long long)m * n, lean ? sgemm_tma_lean_why[mask] : sgemm_tma_stage_why[mask],
                                stream);
    if (rc == 0 && (mask & SGEMM_TMA_STAGE_C)) {
        /* C' (m x n4) back into C (m x n) */
        const sgemm_stage_copy copy_c = {sc, C, n4, n, m, n, m, n};
        rc = sgemm_stage_launch(&copy_c, NULL, stream);
    }
    const int rel = sgemm_stage_release(slot, stream);
    return rc != 0 ? rc : rel;
}

extern "C" size_t sgemm_tf32_tma_own_bytes(int m, int n, int k)
{
    if (m < 1 || n < 1 || k < 1)
        return 0;
    size_t own = 0;
    /* cudaMalloc'd operands are aligned: the mask follows from n and k (none
     * when the call runs the thin-mw or the mma.sync kernel instead) */
    const int mask = sgemm_tma_thin_mw(m, n, k) || sgemm_tma_thin_mma(m, n, k)
                         ? 0
                         : sgemm_tma_stage_mask(NULL, NULL, NULL, n, k, 0);
    const long long k4 = ((long long)k + 3) / 4 * 4, n4 = ((long long)n + 3) / 4 * 4;
    if (mask) {
        size_t a, b, c;
        sgemm_tma_stage_parts(mask, m, n4, k4, k4, &a, &b, &c);
        own += sgemm_stage_rounded(a + b + c);
    }
    /* a stream-K LARGE pick (only by COMPARE_KERNEL_DEFS): its workspace, at
     * most one cluster per CL SMs; a split-tail one: its plan's, on (at
     * most) one cluster per CL SMs */
    const int sms = sgemm_tma_sms();
    if ((sgemm_tma_large.sk == 2 || sgemm_tma_large.sk == 3) && sms > 0) {
        const size_t ws = SGEMM_TMAP_SK_WS_BYTES(sms / sgemm_tma_large.cl, sgemm_tma_large.cl, sgemm_tma_large.bm);
        own += sgemm_stage_rounded(ws);
    }
    if (sgemm_tma_large.sk == 4 && sms >= sgemm_tma_large.cl) {
        const long long units = (long long)((m + sgemm_tma_large.bm - 1) / sgemm_tma_large.bm) *
                                (((n4 + 127) / 128 + sgemm_tma_large.cl - 1) / sgemm_tma_large.cl);
        int pieces = 0;
        const long long tail = sgemm_tmap_kst_plan(units, sms / sgemm_tma_large.cl,
                                                   (int)((k4 + SGEMM_TMA_BK - 1) / SGEMM_TMA_BK), &pieces);
        if (tail > 0)
            own += sgemm_stage_rounded(
                SGEMM_TMAP_KST_WS_BYTES(tail, pieces, sgemm_tma_large.cl, sgemm_tma_large.bm));
    }
    return own;
}

/* The variant (lean 0) or the candidate tf32_tma_lean_staging (lean 1: the
 * same picks, staging only the operands whose own rows are unaligned). */
static int sgemm_tma_call(int lean, const float *A, const float *B, float *C, int m, int n, int k,
                          cudaStream_t stream)
{
    if (m < 1 || n < 1 || k < 1)
        return (int)cudaErrorInvalidValue;
    if (policy_arch_current() != POLICY_ARCH_90)
        return (int)cudaErrorNotSupported;
    if (!lean && sgemm_tma_thin_mw(m, n, k)) { /* one pass over B, on the operands in place (no TMA) */
        kernel_ran_note(sgemm_tf32_thin_name(m, n, B), SGEMM_TMA_THIN_MW_WHY);
        return sgemm_tf32_thin(A, B, C, m, n, k, sgemm_tma_sms(), stream);
    }
    if (!sgemm_tma_encoder()) /* checked first: no staging for a kernel that cannot run */
        return sgemm_tma_fallback("driver has no cuTensorMapEncodeTiled", A, B, C, m, n, k, stream);
    if (!lean && sgemm_tma_thin_mma(m, n, k)) /* the rung below, on the operands in place */
        return sgemm_tma_fallback(SGEMM_TMA_THIN_MMA_WHY, A, B, C, m, n, k, stream);
    const int mask = sgemm_tma_stage_mask(A, B, C, n, k, lean);
    const char *why = NULL;
    const int rc = mask == 0 ? sgemm_tma_pick_run(A, k, B, C, m, n, k, (long long)m * n, NULL, stream)
                             : sgemm_tma_staged(mask, lean, A, B, C, m, n, k, stream, &why);
    if (rc == -1) /* no staging buffer */
        return sgemm_tma_fallback(why, A, B, C, m, n, k, stream);
    if (rc == (int)cudaErrorNotSupported) /* not expected: every operand it reads is aligned */
        return sgemm_tma_fallback("the TMA kernel declined the shape", A, B, C, m, n, k, stream);
    return rc;
}

extern "C" int sgemm_tf32_tma(const float *A, const float *B, float *C, int m, int n, int k,
                              cudaStream_t stream)
{
    return sgemm_tma_call(0, A, B, C, m, n, k, stream);
}

extern "C" int sgemm_tf32_tma_lean(const float *A, const float *B, float *C, int m, int n, int k,
                                   cudaStream_t stream)
{
    const int rc = sgemm_tma_call(1, A, B, C, m, n, k, stream);
    /* a candidate's row names the candidate; the pick it ran follows from the
     * shape (the variant's rule), the reason says what was staged or why it
     * fell back */
    kernel_ran_note(SGEMM_TF32_TMA_LEAN_NAME, kernel_ran_reason());
    return rc;
}
