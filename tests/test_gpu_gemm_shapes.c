/* tests/test_gpu_gemm_shapes.c: every SGEMM launcher and every compare-search
 * candidate on rectangular shapes (m != n != k), which the variant test
 * (square n only) cannot make: each result, written over a NaN-poisoned C,
 * (every hand SGEMM row of the variant table, by its launcher) is judged
 * against a CPU double GEMM by the tool's own rule
 * (verify_gemm_judge, FP32 or TF32 tolerance). A search candidate may decline
 * a shape (cudaErrorNotSupported) only where its header says so (the wgmma
 * and TMA ones: n or k not a multiple of 4); a launcher never may. The
 * candidates are listed by the search tables themselves (sgemm_search.h),
 * by name.
 * No launcher or table runs behind its variant's supports hook: a row (and
 * the wgmma/TMA candidate tables, gated by tf32_wgmma's and tf32_tma's rows)
 * that the device or the forced policy mode (COMPARE_POLICY_ARCH) cannot
 * run is skipped, with the reason printed.
 * Each launcher that chooses among kernels must name the one it ran
 * (kernel_ran_name) and say why when it fell back (kernel_ran_reason): the
 * TF32 wgmma launcher on a shape it declines, the TMA one on a shape whose
 * operands it stages (its own kernel, with the reason; at a thin m its
 * thin-mw kernel, sgemm_tf32_tma_routes_thin, or past that the mma.sync
 * kernel, sgemm_tf32_tma_routes_mma), and `tuned` when its
 * stream-K launch is refused, forced here with sgemm_tuned_force_fallback
 * at sizes where `tuned` runs its large pick; the TMA table's staging row
 * (tf32_tma_lean_staging) must say it staged only the operands whose rows
 * are unaligned (check_lean_note). */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cuda_runtime_api.h>

#include "kernel_ran.h"
#include "sgemm.h"
#include "sgemm_search.h"
#include "sgemm_tf32_tma.h"
#include "op.h"
#include "testlib_gpu.h"
#include "verify.h"

typedef struct {
    int m, n, k;
    const char *only; /* NULL: every row and table; else only this candidate family and its
                       * variant row (the family's name with '_' for '-') */
} shape;

/* edges of every tile size in use (16 .. 256 rows, 32-wide k slabs, 4-float
 * chunks), k = 4 (one partial slab), n = 4 (one chunk), single rows; odd
 * counts of 256 x 128 tiles along both m and n (600 x 260: the 2-CTA
 * clusters' last pair half outside n), more units than resident clusters
 * (2100 x 3000: each walks several; for the stream-K candidates every unit
 * spread, two slabs a tile), a whole wave of units and spread ones after it
 * (4100 x 2100 x 100: the stream-K pieces of four-slab tiles, the last slab
 * partial, an odd last pair), a thin m with few tiles and a long k
 * (40 x 520 x 2000: tf32_tma's split-k thin pick, k cut in several parts),
 * and a partial last wave the split-tail candidate and tf32_tma's LARGE pick
 * cut in k (2300 x 1796 x 484: 72 units of 256 x 256 on the H200's 66
 * resident 2-CTA clusters, the 6 left over in 4 pieces of 4 slabs, the last
 * slab partial, partial tiles in m, an odd last pair); then the classes of
 * shapes/awkward.txt at small sizes (with the _edge candidates' two
 * kernels): k % 4 != 0 with n % 4 == 0 (300 x 260 x 257: their 16-byte
 * kernel at an odd k) and with n % 4 != 0 (260 x 259 x 99: the lane kernel),
 * a tiny m or n (7 x 1028 x 999, 1030 x 5 x 260: a row of C shorter than a
 * warp's 32 columns), a tiny k (520 x 516 x 16), all odd with a partial
 * 128-column group (131 x 385 x 97), 251 (a prime) in each position, and
 * fewer large tiles than SMs at n, k % 4 != 0 (1100 x 1030 x 1001 and, small
 * enough for the sanitizers, 130 x 259 x 257: every tile of the 128x256
 * stream-K candidates split, reduced with 4-byte atomics) */
static const shape shapes_full[] = {
    {1, 4, 4},     {3, 8, 20},     {64, 132, 36},   {129, 516, 4},   {257, 260, 1028},
    {300, 4, 700}, {1000, 68, 1000}, {130, 1028, 260}, {5, 1, 3},    {17, 31, 33},
    {33, 100, 1}, {511, 129, 67},  {600, 260, 96},  {2100, 3000, 36}, {40, 520, 2000},
    {4100, 2100, 100}, {2300, 1796, 484, "tf32-tma"},
    {300, 260, 257}, {260, 259, 99}, {7, 1028, 999}, {1030, 5, 260}, {520, 516, 16},
    {131, 385, 97}, {251, 256, 256}, {256, 251, 256}, {256, 256, 251}, {1100, 1030, 1001}, {130, 259, 257},
    {1000, 16, 2000}, {2049, 64, 257}, /* tf32_tma's thin-n split (n <= 64, 128-row tiles under a quarter of the SMs) */
    /* tf32_tma's thin-mw kernel (m <= 64, n or k % 4 != 0, sgemm_tf32_tma_routes_thin): MG 40, 24, 64, 16,
     * 48, 8 with 4-byte copies of B at odd n (rows at every alignment), k = 1 and partial slabs; 16-byte
     * copies of B (n % 4 == 0, k odd: 33 x 1000 x 257); k split with atomics into the zeroed C (33 x 1001 x
     * 1027: 8 strips, 33 slabs in 4 splits; 64 x 3001 x 777: 24 strips in 3); many strips in splits, for
     * tf32_tma alone (33 x 20001 x 767: 157 strips, 24 slabs in 3 splits; the 33 x 50257 x 767 is
     * checked by `compare`'s own verification when it is timed) */
    {33, 1001, 257}, {17, 4099, 130}, {64, 3001, 77}, {9, 515, 33}, {48, 777, 1}, {2, 1001, 300},
    {33, 1000, 257}, {33, 1001, 1027}, {64, 3001, 777}, {33, 20001, 767, "tf32-tma"},
};
/* COMPARE_TEST_QUICK=1 (under compute-sanitizer): the small ones; the long
 * k of 40 x 520 x 2000 only for what it is there for (tf32_tma's split-k thin
 * pick and its candidates): every FP32 candidate on it under racecheck took
 * the run past 6 minutes; of the awkward classes, small enough for
 * racecheck: the _edge candidates' 16-byte kernel at an odd k (20 x 132 x 37),
 * their lane kernel with split stream-K tiles (20 x 131 x 129: one 128x256
 * tile on 2 blocks, its 4-byte atomics; the 128-column groups' second one
 * partial), a row of C shorter than a warp (33 x 5 x 20) */
static const shape shapes_quick[] = {
    {1, 4, 4}, {3, 8, 20}, {64, 132, 36}, {129, 516, 4}, {5, 1, 3}, {17, 31, 33}, {33, 100, 1},
    {600, 260, 96}, {40, 520, 2000, "tf32-tma"}, {2300, 1796, 484, "tf32-tma"},
    {20, 132, 37}, {20, 131, 129}, {33, 5, 20}, {300, 8, 700},
    {9, 515, 33}, {9, 131, 601, "tf32-tma"}, /* tf32_tma's thin-mw kernel: one split, and two (atomics) */
};
/* shapes where tuned picks a stream-K kernel, not multiples of its tile: the
 * large tile on the float4 path (n, k % 4 == 0) and on the scalar one, the
 * small stream-K (32x128) tile with a long k; then its large st pick (a
 * full last wave of 128x256 tiles, a short k) at n % 4 != 0; B copied
 * padded (rule PAD_B, the note's "_padb") at n % 4 != 0 and m >= 1024
 * (the second and the last shape: sk, forced to its st fallback, and st),
 * not at m = 17 (the third); every note is
 * checked against sgemm_tuned_pick_name; quick: the first */
static const shape shapes_fallback[] = {{1100, 1032, 1004}, {1100, 1030, 1001}, {17, 1030, 2100}, {3100, 2557, 131}};

/* `tuned`'s thin paths (kernels/sgemm_tuned_thin.cuh), through sgemm_tuned
 * alone (check_tuned_thin). Thin-n (n <= SGEMM_TUNED_THIN_N_MAX): n = 1, 7
 * (the 8-column tile), 16, 33 (the 64-column tile at its edge), 64; k = 1, 7
 * (4-byte copies of A), 257, 4095 (a partial last slab); m not a multiple
 * of the 128-row tile; split k (atomics into the zeroed C) where the
 * row blocks are few and k long: 517 x 16 x 4095, 129 x 7 x 4095,
 * 700 x 33 x 4095, 130 x 64 x 2048, 3 x 64 x 1000, 4100 x 16 x 1000; one
 * split (plain stores) at 1000 x 1 x 257, 2049 x 64 x 257. Thin-m (m <=
 * SGEMM_TUNED_THIN_M_MAX, n > the thin-n limit): m = 1, 2, 3, 5, 8 (1, 2, 4 and
 * 8 rows of accumulators), n % 4 == 0 (float4 columns) and not (1027, 65,
 * 129: a column a thread), k split over blocks (atomics) or not (k = 1, 7,
 * 64). Thin-mw by the rule (8 < m <= SGEMM_TUNED_THIN_MW_MAX and the
 * 32x128 tiles at least the SMs): 40 x 9000 x 300 on the H200's 132 SMs (142
 * tiles; on a GPU with more SMs its tile pick, as the rule says). Just past
 * it (rule 0c: 64x128 stream-K tiles at k >= 1024): 60 x 8450 x 1100,
 * 64 x 9001 x 1025 (odd n and k: the 4-byte copies). Quick:
 * thin-n split in two at n = 16 (40 x 16 x 600), unsplit at
 * n = 7 with k = 257 (4-byte copies of A and B), thin-m split (3 x 260 x 600)
 * and scalar unsplit (1 x 67 x 7). */
static const shape shapes_thin[] = {
    {1000, 1, 257}, {1000, 7, 7},  {517, 16, 4095}, {300, 33, 1},  {2049, 64, 257}, {129, 7, 4095},
    {700, 33, 4095}, {130, 64, 2048}, {3, 64, 1000}, {4100, 16, 1000},
    {1, 1000, 4095}, {3, 1027, 257}, {8, 2052, 4095}, {3, 65, 7}, {1, 129, 1}, {8, 100, 64},
    {2, 4100, 999}, {5, 300, 4095}, {40, 9000, 300}, {60, 8450, 1100}, {64, 9001, 1025},
};
static const shape shapes_thin_quick[] = {{40, 16, 600}, {33, 7, 257}, {3, 260, 600}, {1, 67, 7}};

/* `tuned`'s thin-mw kernel (m <= 64, B wide), run directly
 * (sgemm_tuned_thin_mw_run: its rule wants n large against the SMs, which
 * these sizes are not): m = 9, 16 (MG 16), 33 (MG 40), 48, 64; n = 129 (a
 * second block of one column), 1000, 4099 (odd:
 * rows of B and C at every alignment); k = 1, 7 (one partial 4-k step),
 * 64, 767 (12 chunks of 64 k, the last partial: split where the columns
 * are few), 4095 (split in several parts: atomics into the zeroed C).
 * Quick: split in three (9 x 131 x 600: atomics, a second block of 3 columns)
 * and one split with most columns idle (20 x 70 x 7: plain stores, a
 * partial 4-k step). */
static const shape shapes_thin_mw[] = {
    {9, 129, 1},    {9, 4099, 4095}, {9, 1000, 7},    {16, 1000, 767}, {16, 129, 7},    {16, 4099, 64},
    {33, 4099, 767}, {33, 1000, 64},  {33, 129, 4095}, {48, 4099, 7},   {48, 1000, 4095}, {48, 129, 64},
    {64, 4099, 64}, {64, 1000, 1},   {64, 129, 767},  {64, 4099, 4095},
};
static const shape shapes_thin_mw_quick[] = {{9, 131, 600}, {20, 70, 7}};

typedef struct {
    const char *family;
    const char *math;
    const char *row; /* the variant whose supports hook gates the table (its kernels'), NULL: none */
    int may_decline; /* 1: cudaErrorNotSupported allowed when n or k % 4 != 0 */
    int (*count)(void);
    const char *(*name)(int);
    int (*run)(int, const float *, const float *, float *, int, int, int, cudaStream_t);
} cand_table;

static const cand_table tables[] = {
    {"fp32", "fp32", NULL, 0, sgemm_search_count, sgemm_search_name, sgemm_search_run},
    {"tf32", "tf32", NULL, 0, sgemm_tf32_search_count, sgemm_tf32_search_name, sgemm_tf32_search_run},
    {"tf32-wgmma", "tf32", "tf32_wgmma", 1, sgemm_tf32_wgmma_search_count, sgemm_tf32_wgmma_search_name,
     sgemm_tf32_wgmma_search_run},
    {"tf32-tma", "tf32", "tf32_tma", 1, sgemm_tf32_tma_search_count, sgemm_tf32_tma_search_name,
     sgemm_tf32_tma_search_run},
};

/* Whether variant v runs case m x n x k on device dev: its supports hook,
 * as `compare` asks it (the sm_90a rows decline another GPU and the forced
 * policy mode, COMPARE_POLICY_ARCH); a decline is printed with its reason
 * once per variant. */
static int row_supported(const variant *v, const device_info *dev, const shape *sh)
{
    char why[256] = "";
    plan_case pc;
    memset(&pc, 0, sizeof pc);
    pc.m = sh->m;
    pc.n = sh->n;
    pc.k = sh->k;
    if (!v->supports || v->supports(&pc, dev, v, why, sizeof why))
        return 1;
    CHECK(why[0] != '\0', "%s declined m=%d n=%d k=%d without a reason", v->info.name, sh->m, sh->n, sh->k);
    printf("SKIP %s m=%d n=%d k=%d: %s\n", v->info.name, sh->m, sh->n, sh->k, why);
    return 0;
}

/* The catalog's row named `name` (NULL when there is none). */
static const variant *row_named(const catalog *cat, const char *name)
{
    for (int l = 0; l < cat->variant_count; l++)
        if (strcmp(ops_variant(l)->info.op, "sgemm") == 0 && strcmp(ops_variant(l)->info.name, name) == 0)
            return ops_variant(l);
    return NULL;
}

/* What a row's launcher must note about the kernel it ran, by variant name
 * (a hand SGEMM row of the catalog that is not listed must note nothing in
 * particular): the prefix of the names it notes for its own kernels ("" any),
 * and whether it falls back (another name and a reason) exactly when n or k
 * % 4 != 0. */
typedef struct {
    const char *name;
    const char *own;
    int declines; /* 1: another kernel and a reason exactly when n or k % 4 != 0;
                   * 2: its own kernel, with a reason (staged operands) exactly then, but
                   * the mma.sync kernel with a reason where sgemm_tf32_tma_routes_mma, its
                   * thin-mw kernel (tf32_tma_thin_mw*) with a reason where
                   * sgemm_tf32_tma_routes_thin */
} note_rule;

static const note_rule note_rules[] = {
    {"tuned", "", 0},
    {"tf32_mma", "tf32_", 0},
    {"tf32_wgmma", "tf32_wgmma_", 1},
    {"tf32_tma", "tf32_tma_", 2},
};

static int ends_with(const char *s, const char *suffix)
{
    size_t a = strlen(s), b = strlen(suffix);
    return a >= b && strcmp(s + a - b, suffix) == 0;
}

/* The kernel a launcher noted: named, its own unless it declines the shape,
 * and then a fallback with a reason. */
static void check_note(const char *variant_name, const shape *sh)
{
    const note_rule *l = NULL;
    for (size_t i = 0; i < sizeof note_rules / sizeof note_rules[0]; i++)
        if (strcmp(note_rules[i].name, variant_name) == 0) l = &note_rules[i];
    const char *name = kernel_ran_name(), *why = kernel_ran_reason();
    if (!l)
        return;
    CHECK(name != NULL, "%s m=%d n=%d k=%d: no kernel_ran_note", l->name, sh->m, sh->n, sh->k);
    if (!name || !l->declines)
        return;
    const int own = strncmp(name, l->own, strlen(l->own)) == 0;
    if (l->declines == 2 && sgemm_tf32_tma_routes_thin(sh->m, sh->n, sh->k)) {
        /* a thin m on unaligned rows: the thin-mw kernel of the shape's MG (the smallest multiple of 8
         * >= m), 16-byte copies of B exactly when n % 4 == 0 (cudaMalloc'd B), with the reason */
        char want[64];
        snprintf(want, sizeof want, "tf32_tma_thin_mw%d_", sh->m <= 8 ? 8 : (sh->m + 7) / 8 * 8);
        CHECK(strncmp(name, want, strlen(want)) == 0 && ends_with(name, sh->n % 4 == 0 ? "_b16" : "_b4") &&
                  why != NULL && strstr(why, "thin-mw"),
              "%s m=%d n=%d k=%d: thin m on unaligned rows, noted %s (%s), expected %s*", l->name, sh->m, sh->n,
              sh->k, name, why ? why : "no reason", want);
    } else if (l->declines == 2 && sgemm_tf32_tma_routes_mma(sh->m, sh->n, sh->k))
        /* a thin m on unaligned rows: the mma.sync rung (tf32_mma's kernel), with the reason */
        CHECK(!own && strncmp(name, "tf32_", 5) == 0 && why != NULL && strstr(why, "mma.sync"),
              "%s m=%d n=%d k=%d: thin m on unaligned rows, noted %s (%s)", l->name, sh->m, sh->n, sh->k, name,
              why ? why : "no reason");
    else if ((sh->n % 4 != 0 || sh->k % 4 != 0) && l->declines == 2)
        CHECK(own && why != NULL, "%s m=%d n=%d k=%d: staged shape, noted %s (%s)", l->name, sh->m,
              sh->n, sh->k, name, why ? why : "no reason");
    else if (sh->n % 4 != 0 || sh->k % 4 != 0)
        CHECK(!own && why != NULL, "%s m=%d n=%d k=%d: declined shape, noted %s (%s)", l->name,
              sh->m, sh->n, sh->k, name, why ? why : "no reason");
    else
        CHECK(own && why == NULL, "%s m=%d n=%d k=%d: noted %s (%s)", l->name, sh->m, sh->n,
              sh->k, name, why ? why : "no reason");
}

/* whether shape `sh` runs the candidate family (or, with is_row, the variant) `name` */
static int shape_runs(const shape *sh, const char *name, int is_row)
{
    if (!sh->only)
        return 1;
    const size_t len = strlen(sh->only);
    if (strlen(name) != len)
        return 0;
    for (size_t i = 0; i < len; i++)
        if (name[i] != (is_row && sh->only[i] == '-' ? '_' : sh->only[i]))
            return 0;
    return 1;
}

/* tf32_tma_lean_staging stages A alone at k % 4 != 0 (B and C in place
 * when n % 4 == 0), nothing at all on an aligned shape, and notes its own
 * name with what it staged (cudaMalloc'd operands: aligned pointers) */
static void check_lean_note(const shape *sh)
{
    const char *name = kernel_ran_name(), *why = kernel_ran_reason();
    const char *want = sh->n % 4 != 0 && sh->k % 4 != 0 ? "A, B, C staged"
                       : sh->n % 4 != 0                 ? "B, C staged with padded rows (A in place)"
                       : sh->k % 4 != 0                 ? "A staged with padded rows (B in place"
                                                        : NULL;
    CHECK(name && strcmp(name, SGEMM_TF32_TMA_LEAN_NAME) == 0, "lean m=%d n=%d k=%d: noted %s", sh->m, sh->n,
          sh->k, name ? name : "nothing");
    CHECK(want ? why && strstr(why, want) : !why, "lean m=%d n=%d k=%d: reason '%s', expected '%s'", sh->m, sh->n,
          sh->k, why ? why : "(none)", want ? want : "(none)");
}

#define REFUSED "cooperative launch refused: "

typedef struct {
    const float *dA, *dB;
    float *dC, *hC;
    const double *ref;
    cudaStream_t s;
    double norm_sq_a, norm_sq_b; /* of the shape's inputs (the verdict's cancellation floor) */
} bufs;

/* C poisoned with NaN, the call, then the verdict. rc: the launcher's return. */
static int judge(const bufs *b, const shape *sh, const char *math, int rc, const char *label)
{
    verify_sums vs;
    verify_verdict vd;
    size_t mn = (size_t)sh->m * sh->n;
    if (rc != 0) {
        CHECK(0, "%s m=%d n=%d k=%d: launch returned %d (%s)", label, sh->m, sh->n, sh->k, rc,
              cudaGetErrorString((cudaError_t)rc));
        (void)cudaGetLastError();
        return 1;
    }
    CK(cudaMemcpyAsync(b->hC, b->dC, mn * 4, cudaMemcpyDeviceToHost, b->s));
    CK(cudaStreamSynchronize(b->s));
    verify_sums_host(b->hC, b->ref, mn, &vs);
    vs.norm_sq_a = b->norm_sq_a;
    vs.norm_sq_b = b->norm_sq_b;
    verify_gemm_judge(&vs, math, sh->k, &vd);
    CHECK(vd.pass, "%s m=%d n=%d k=%d: rel err %.2e (tol %.2e), max %.2e (tol %.2e), %lld NaN/Inf",
          label, sh->m, sh->n, sh->k, vd.rel_err, vd.tolerance, vd.max_err, vd.max_tolerance,
          vd.nonfinite);
    return !vd.pass;
}

/* Fills A and B of `sh` (uniform in (-1, 1), from *rng: a failure repeats),
 * the CPU double reference, and the device copies. */
static void prepare(const shape *sh, float *hA, float *hB, double *ref, float *dA, float *dB,
                    uint64_t *rng, cudaStream_t s)
{
    const size_t na = (size_t)sh->m * sh->k, nb = (size_t)sh->k * sh->n;
    for (size_t j = 0; j < na + nb; j++) {
        *rng = *rng * 6364136223846793005ULL + 1442695040888963407ULL;
        float v = (float)((double)(*rng >> 40) / 8388608.0 - 1.0);
        if (j < na) hA[j] = v;
        else hB[j - na] = v;
    }
    verify_cpu_gemm(hA, hB, ref, sh->m, sh->n, sh->k);
    CK(cudaMemcpyAsync(dA, hA, na * 4, cudaMemcpyHostToDevice, s));
    CK(cudaMemcpyAsync(dB, hB, nb * 4, cudaMemcpyHostToDevice, s));
}

/* `tuned` at a size where it runs its large pick, as it is and with the
 * fallback forced: both results right, and the notes say which kernel ran.
 * A stream-K pick (name ..._sk) falls back to the staged tile kernel of the
 * same shape (..._st) with a "cooperative launch refused: " reason; a pick
 * that is not stream-K has no fallback and the switch changes nothing. */
static void check_tuned_fallback(const bufs *b, const shape *sh)
{
    const size_t nc = (size_t)sh->m * sh->n;
    char name1[256];
    CK(cudaMemsetAsync(b->dC, 0xff, nc * 4, b->s));
    kernel_ran_clear();
    judge(b, sh, "fp32", sgemm_tuned(b->dA, b->dB, b->dC, sh->m, sh->n, sh->k, b->s), "tuned");
    const char *n1 = kernel_ran_name(), *why1 = kernel_ran_reason();
    CHECK(n1 != NULL, "tuned m=%d n=%d k=%d: no kernel_ran_note", sh->m, sh->n, sh->k);
    snprintf(name1, sizeof name1, "%s", n1 ? n1 : "");

    CK(cudaMemsetAsync(b->dC, 0xff, nc * 4, b->s));
    kernel_ran_clear();
    sgemm_tuned_force_fallback(1);
    const int rc = sgemm_tuned(b->dA, b->dB, b->dC, sh->m, sh->n, sh->k, b->s);
    sgemm_tuned_force_fallback(0);
    judge(b, sh, "fp32", rc, "tuned (fallback forced)");
    const char *n2 = kernel_ran_name(), *why2 = kernel_ran_reason();
    printf("tuned m=%d n=%d k=%d: %s (%s); forced: %s (%s)\n", sh->m, sh->n, sh->k, name1,
           why1 ? why1 : "no fallback", n2 ? n2 : "none", why2 ? why2 : "no fallback");
    CHECK(n2 != NULL, "tuned (forced) m=%d n=%d k=%d: no kernel_ran_note", sh->m, sh->n, sh->k);
    if (!n2)
        return;
    /* B copied padded (rule PAD_B, "_padb"): both runs, or neither; compared without the suffix */
    const int padb1 = ends_with(name1, "_padb"), padb2 = ends_with(n2, "_padb");
    CHECK(padb1 == padb2, "tuned m=%d n=%d k=%d: %s, forced %s (B padded in one of them only)", sh->m, sh->n,
          sh->k, name1, n2);
    if (padb1)
        name1[strlen(name1) - 5] = '\0';
    char base2[256];
    snprintf(base2, sizeof base2, "%s", n2);
    if (padb2)
        base2[strlen(base2) - 5] = '\0';
    n2 = base2;
    const size_t len = strlen(name1);
    const int refused = why1 != NULL && strncmp(why1, REFUSED, strlen(REFUSED)) == 0;
    if (!refused) {
        const char *pick = sgemm_tuned_pick_name(sh->m, sh->n, sh->k);
        CHECK(pick != NULL && strncmp(pick, name1, len) == 0 && ends_with(pick, "_padb") == padb1,
              "tuned m=%d n=%d k=%d: ran %s%s, sgemm_tuned_pick_name says %s", sh->m, sh->n, sh->k, name1,
              padb1 ? "_padb" : "", pick ? pick : "(null)");
    }
    if (!refused && ends_with(name1, "_sk")) { /* the stream-K pick ran: the usual case */
        CHECK(ends_with(n2, "_st") && strlen(n2) == len && strncmp(n2, name1, len - 3) == 0,
              "forced fallback of %s ran %s, not the _st kernel of the same shape", name1, n2);
        CHECK(why2 != NULL && strncmp(why2, REFUSED, strlen(REFUSED)) == 0,
              "forced fallback of %s: reason '%s'", name1, why2 ? why2 : "(none)");
    } else if (refused) { /* refused for real (MPS, a busy GPU): both runs fell back */
        CHECK(ends_with(name1, "_st") && strcmp(n2, name1) == 0 && why2 != NULL,
              "tuned fell back to %s (%s), forced to %s", name1, why1, n2);
    } else { /* a large pick that is not stream-K (COMPARE_KERNEL_DEFS): nothing to force */
        printf("note: tuned's large pick %s is not stream-K: no fallback to force\n", name1);
        CHECK(strcmp(n2, name1) == 0 && (why2 == NULL) == (why1 == NULL),
              "forcing changed %s into %s (%s)", name1, n2, why2 ? why2 : "no reason");
    }
}

/* `tuned` on a thin shape: the result right, and the note the thin kernel
 * its rule picks (sgemm_tuned_pick_name) when the shape is inside the
 * switches as built (sgemm_tuned_thin_max), a tile candidate otherwise. */
static void check_tuned_thin(const bufs *b, const shape *sh)
{
    int n_max = 0, m_max = 0, dev = 0, sms = 0;
    sgemm_tuned_thin_max(&n_max, &m_max);
    CK(cudaGetDevice(&dev));
    CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    const int mw = sh->m > 8 && sh->m <= sgemm_tuned_thin_mw_max() &&
                   (long long)((sh->m + 31) / 32) * ((sh->n + 127) / 128) >= sms;
    const char *want = sh->n <= n_max ? "thin_n" : sh->m <= m_max ? "thin_m" : mw ? "thin_mw" : NULL;
    CK(cudaMemsetAsync(b->dC, 0xff, (size_t)sh->m * sh->n * 4, b->s));
    kernel_ran_clear();
    judge(b, sh, "fp32", sgemm_tuned(b->dA, b->dB, b->dC, sh->m, sh->n, sh->k, b->s), "tuned (thin)");
    const char *name = kernel_ran_name(), *why = kernel_ran_reason();
    const char *pick = sgemm_tuned_pick_name(sh->m, sh->n, sh->k);
    printf("tuned m=%d n=%d k=%d: %s (%s)\n", sh->m, sh->n, sh->k, name ? name : "no note", why ? why : "-");
    CHECK(name != NULL, "tuned m=%d n=%d k=%d: no kernel_ran_note", sh->m, sh->n, sh->k);
    if (!name)
        return;
    if (want) {
        CHECK(strncmp(name, want, strlen(want)) == 0 && pick && strcmp(pick, name) == 0,
              "tuned m=%d n=%d k=%d: noted %s, picked %s, expected %s*", sh->m, sh->n, sh->k, name,
              pick ? pick : "(null)", want);
        /* the 16-byte kernels exactly when the rows they read are aligned (cudaMalloc'd pointers) */
        const int vec = want[5] == 'n' ? sh->n % 4 == 0 && sh->k % 4 == 0 : mw || sh->n % 4 == 0;
        CHECK((why == NULL) == vec, "tuned m=%d n=%d k=%d: %s with reason '%s'", sh->m, sh->n, sh->k, name,
              why ? why : "(none)");
    } else {
        CHECK(strncmp(name, "thin_", 5) != 0, "tuned m=%d n=%d k=%d: %s with its thin path off", sh->m, sh->n,
              sh->k, name);
        /* rule 0c: just past thin-mw, as wide, the 64x128 tile */
        const int mid = sh->m > sgemm_tuned_thin_mw_max() && sh->m <= 64 && sh->k >= 1024 &&
                        (long long)((sh->m + 31) / 32) * ((sh->n + 127) / 128) >= sms;
        if (mid)
            CHECK(strncmp(name, "64x128x", 7) == 0 && pick && strcmp(pick, name) == 0,
                  "tuned m=%d n=%d k=%d: noted %s, picked %s, expected the 64x128 tile (rule 0c)", sh->m, sh->n,
                  sh->k, name, pick ? pick : "(null)");
    }
}

/* The thin-mw kernel at m <= 64 (sgemm_tuned_thin_mw_run, whatever the rule
 * picks): the result right over C filled with NaN (every element written:
 * stored, or the zeroed C's atomics), and the note its MG's name (the
 * smallest multiple of 8, at least 16, >= m), no reason (one kernel for
 * every alignment). */
static void check_thin_mw(const bufs *b, const shape *sh)
{
    char want[32];
    const int mg = sh->m <= 16 ? 16 : (sh->m + 7) / 8 * 8;
    snprintf(want, sizeof want, "thin_mw%d_", mg);
    CK(cudaMemsetAsync(b->dC, 0xff, (size_t)sh->m * sh->n * 4, b->s));
    kernel_ran_clear();
    judge(b, sh, "fp32", sgemm_tuned_thin_mw_run(b->dA, b->dB, b->dC, sh->m, sh->n, sh->k, b->s), "thin-mw");
    const char *name = kernel_ran_name(), *why = kernel_ran_reason();
    printf("thin-mw m=%d n=%d k=%d: %s (%s)\n", sh->m, sh->n, sh->k, name ? name : "no note", why ? why : "-");
    CHECK(name != NULL && strncmp(name, want, strlen(want)) == 0 && why == NULL,
          "thin-mw m=%d n=%d k=%d: noted %s (%s), expected %s*", sh->m, sh->n, sh->k, name ? name : "nothing",
          why ? why : "-", want);
}

/* The rule's picks at the thin shapes (nothing launched): the thin
 * kernel of the shape's width, unless its switch is off. Thin-mw (thin[6]
 * 'w') also needs the 32x128 tiles to number at least the SMs: at 33 x 50257
 * and 64 x 14336 they do on the H200, at 16 x 14336 and 16 x 4096 they do
 * not (the small sk stays: thin "-", no thin kernel expected). */
static void check_thin_picks(void)
{
    static const struct {
        int m, n, k;
        const char *thin;
    } picks[] = {{8192, 16, 8192, "thin_n16_"}, {8192, 7, 4096, "thin_n8_"}, {4096, 64, 4096, "thin_n64_"},
                 {1, 8192, 8192, "thin_m1_"},   {8, 4096, 4096, "thin_m8_"},
                 {33, 50257, 4096, "thin_mw40_"}, {33, 50257, 767, "thin_mw40_"}, {64, 14336, 4096, "thin_mw64_"},
                 {16, 14336, 4096, "-"},          {16, 4096, 4096, "-"}};
    int n_max = 0, m_max = 0, dev = 0, sms = 0;
    sgemm_tuned_thin_max(&n_max, &m_max);
    CK(cudaGetDevice(&dev));
    CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    for (size_t i = 0; i < sizeof picks / sizeof picks[0]; i++) {
        const char *name = sgemm_tuned_pick_name(picks[i].m, picks[i].n, picks[i].k);
        const long long tiles = (long long)((picks[i].m + 31) / 32) * ((picks[i].n + 127) / 128);
        const int on = picks[i].thin[0] == '-' ? 0
                       : picks[i].thin[6] == 'w' ? picks[i].m <= sgemm_tuned_thin_mw_max() && tiles >= sms
                       : picks[i].thin[5] == 'n' ? picks[i].n <= n_max
                                                 : picks[i].m <= m_max;
        printf("tuned's pick at %dx%dx%d: %s\n", picks[i].m, picks[i].n, picks[i].k, name ? name : "(null)");
        CHECK(name != NULL, "no pick name at %dx%dx%d", picks[i].m, picks[i].n, picks[i].k);
        if (name && on)
            CHECK(strncmp(name, picks[i].thin, strlen(picks[i].thin)) == 0, "pick at %dx%dx%d: %s, expected %s*",
                  picks[i].m, picks[i].n, picks[i].k, name, picks[i].thin);
        else if (name)
            CHECK(strncmp(name, "thin_", 5) != 0, "pick at %dx%dx%d: %s with the thin path off", picks[i].m,
                  picks[i].n, picks[i].k, name);
    }
}

int main(void)
{
    const char *quick_env = getenv("COMPARE_TEST_QUICK");
    const int quick = quick_env && strcmp(quick_env, "1") == 0;
    const shape *shapes = quick ? shapes_quick : shapes_full;
    const size_t nshapes = quick ? sizeof shapes_quick / sizeof shapes_quick[0]
                                 : sizeof shapes_full / sizeof shapes_full[0];
    const size_t nfallback = quick ? 1 : sizeof shapes_fallback / sizeof shapes_fallback[0];
    const shape *thin = quick ? shapes_thin_quick : shapes_thin;
    const size_t nthin = quick ? sizeof shapes_thin_quick / sizeof shapes_thin_quick[0]
                               : sizeof shapes_thin / sizeof shapes_thin[0];
    const shape *thin_mw = quick ? shapes_thin_mw_quick : shapes_thin_mw;
    const size_t nmw = quick ? sizeof shapes_thin_mw_quick / sizeof shapes_thin_mw_quick[0]
                             : sizeof shapes_thin_mw / sizeof shapes_thin_mw[0];
    size_t max_a = 0, max_b = 0, max_c = 0;
    uint64_t rng = 0x9e3779b97f4a7c15ULL;
    int runs = 0, declined = 0, hand_rows = 0, every_row_shapes = 0, skipped = 0;
    cudaStream_t s;
    const catalog *cat = ops_catalog();
    test_require_gpu();
    device_info dev;
    memset(&dev, 0, sizeof dev);
    {
        int ordinal = 0;
        CK(cudaGetDevice(&ordinal));
        CK(cudaDeviceGetAttribute(&dev.cc_major, cudaDevAttrComputeCapabilityMajor, ordinal));
        CK(cudaDeviceGetAttribute(&dev.cc_minor, cudaDevAttrComputeCapabilityMinor, ordinal));
    }
    for (size_t i = 0; i < nshapes + nfallback + nthin + nmw; i++) {
        const shape *sh = i < nshapes                      ? &shapes[i]
                          : i < nshapes + nfallback        ? &shapes_fallback[i - nshapes]
                          : i < nshapes + nfallback + nthin ? &thin[i - nshapes - nfallback]
                                                           : &thin_mw[i - nshapes - nfallback - nthin];
        size_t a = (size_t)sh->m * sh->k, bb = (size_t)sh->k * sh->n, c = (size_t)sh->m * sh->n;
        max_a = a > max_a ? a : max_a;
        max_b = bb > max_b ? bb : max_b;
        max_c = c > max_c ? c : max_c;
    }
    float *hA = malloc(max_a * 4), *hB = malloc(max_b * 4), *hC = malloc(max_c * 4);
    double *ref = malloc(max_c * sizeof *ref);
    float *dA, *dB, *dC;
    if (!hA || !hB || !hC || !ref) {
        fprintf(stderr, "out of host memory\n");
        return 1;
    }
    CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    CK(cudaMalloc((void **)&dA, max_a * 4));
    CK(cudaMalloc((void **)&dB, max_b * 4));
    CK(cudaMalloc((void **)&dC, max_c * 4));
    bufs b = {dA, dB, dC, hC, ref, s, 0.0, 0.0};
    for (size_t i = 0; i < nshapes; i++) {
        const shape *sh = &shapes[i];
        const size_t nc = (size_t)sh->m * sh->n;
        prepare(sh, hA, hB, ref, dA, dB, &rng, s);
        b.norm_sq_a = verify_norm_sq(hA, (size_t)sh->m * sh->k);
        b.norm_sq_b = verify_norm_sq(hB, (size_t)sh->k * sh->n);
        every_row_shapes += sh->only == NULL;
        const int runs_before = runs, skipped_before = skipped;
        /* every hand SGEMM row of the variant table with a launcher (the CPU row has none) */
        for (int l = 0; l < cat->variant_count; l++) {
            const variant *v = ops_variant(l);
            /* search candidates (catalog_family) are the tables' rows, run below */
            if (strcmp(v->info.op, "sgemm") != 0 || v->info.is_library || v->info.test_only || !v->fn ||
                catalog_family(&v->info) || !shape_runs(sh, v->info.name, 1))
                continue;
            if (!row_supported(v, &dev, sh)) {
                skipped++;
                hand_rows++;
                continue;
            }
            CK(cudaMemsetAsync(dC, 0xff, nc * 4, s));
            kernel_ran_clear();
            judge(&b, sh, v->info.math, ((sgemm_launcher)v->fn)(dA, dB, dC, sh->m, sh->n, sh->k, s),
                  v->info.name);
            check_note(v->info.name, sh);
            runs++;
            hand_rows++;
        }
        for (size_t t = 0; t < sizeof tables / sizeof tables[0]; t++) {
            const cand_table *tab = &tables[t];
            if (!shape_runs(sh, tab->family, 0))
                continue;
            const variant *gate = tab->row ? row_named(cat, tab->row) : NULL;
            CHECK(!tab->row || gate, "no variant %s to gate the %s candidates", tab->row ? tab->row : "", tab->family);
            if (gate && !row_supported(gate, &dev, sh)) {
                skipped++;
                continue;
            }
            for (int c = 0; c < tab->count(); c++) {
                CK(cudaMemsetAsync(dC, 0xff, nc * 4, s));
                kernel_ran_clear();
                int rc = tab->run(c, dA, dB, dC, sh->m, sh->n, sh->k, s);
                /* the staging row takes every shape: a decline is judged (a failure), not counted */
                const int lean = strcmp(tab->name(c), SGEMM_TF32_TMA_LEAN_NAME) == 0;
                if (lean && rc == 0)
                    check_lean_note(sh);
                if (rc == (int)cudaErrorNotSupported && tab->may_decline && !lean &&
                    (sh->n % 4 != 0 || sh->k % 4 != 0)) {
                    declined++;
                    continue;
                }
                judge(&b, sh, tab->math, rc, tab->name(c));
                runs++;
            }
        }
        CHECK(runs > runs_before || skipped > skipped_before, "m=%d n=%d k=%d: nothing ran (only %s)", sh->m, sh->n, sh->k,
              sh->only ? sh->only : "-");
    }
    for (size_t i = 0; i < nfallback; i++) {
        prepare(&shapes_fallback[i], hA, hB, ref, dA, dB, &rng, s);
        b.norm_sq_a = verify_norm_sq(hA, (size_t)shapes_fallback[i].m * shapes_fallback[i].k);
        b.norm_sq_b = verify_norm_sq(hB, (size_t)shapes_fallback[i].k * shapes_fallback[i].n);
        check_tuned_fallback(&b, &shapes_fallback[i]);
        runs += 2;
    }
    for (size_t i = 0; i < nthin; i++) {
        prepare(&thin[i], hA, hB, ref, dA, dB, &rng, s);
        b.norm_sq_a = verify_norm_sq(hA, (size_t)thin[i].m * thin[i].k);
        b.norm_sq_b = verify_norm_sq(hB, (size_t)thin[i].k * thin[i].n);
        check_tuned_thin(&b, &thin[i]);
        runs++;
    }
    for (size_t i = 0; i < nmw; i++) {
        prepare(&thin_mw[i], hA, hB, ref, dA, dB, &rng, s);
        b.norm_sq_a = verify_norm_sq(hA, (size_t)thin_mw[i].m * thin_mw[i].k);
        b.norm_sq_b = verify_norm_sq(hB, (size_t)thin_mw[i].k * thin_mw[i].n);
        check_thin_mw(&b, &thin_mw[i]);
        runs++;
    }
    check_thin_picks();
    CK(cudaStreamSynchronize(s));
    CK(cudaGetLastError());
    printf("%d runs judged, %d declined (n or k %% 4 != 0), %d skipped (supports declined) over %zu shapes\n",
           runs, declined, skipped, nshapes + nfallback + nthin + nmw);
    CHECK(runs > 0 && hand_rows >= 11 * every_row_shapes, "nothing ran (%d runs, %d of hand rows)", runs, hand_rows);
    cudaFree(dA);
    cudaFree(dB);
    cudaFree(dC);
    cudaStreamDestroy(s);
    free(hA);
    free(hB);
    free(hC);
    free(ref);
    return test_finish("test_gpu_gemm_shapes");
}
