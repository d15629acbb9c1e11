/* kernels/sgemm_tuned_configs.cuh: the FP32 `tuned` candidates, one X-macro
 * row each (SGEMM_TUNED_CANDIDATES), and the sgemm_tuned_cfg constants and
 * macros that turn a row's name into template arguments.
 *
 * Idea: a kernel is a template over its tile shape; a candidate is a row of
 * parameters with a name that spells them (checked at compile time), so a
 * pick is a name: kernels/sgemm_tuned.cu instantiates only the rows it names,
 * kernels/search/sgemm_search.cu every row. The table holds the picks and a
 * few search rows worth timing beside them (docs/tuning/tuned.md says which
 * and why); rows that lost were deleted (git history keeps them). */
#ifndef KERNELS_SGEMM_TUNED_CONFIGS_CUH
#define KERNELS_SGEMM_TUNED_CONFIGS_CUH

#include <stddef.h>

#include "candidate_name.cuh"

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
 * The rows: the five picks of kernels/sgemm_tuned.cu (the large 128x256 tile
 * as sk and st; the small 32x128 sk; the 16x128 sliced-k as sl4 and sl2);
 * every other row that was the fastest candidate at some size or shape of
 * the last search over all of them (the 128x128 tile as tile and sk, the
 * 128x256 tile with 32x128 warp tiles as st, the 64x64 sk with 4x4 thread
 * tiles), since a policy for another GPU may pick them; and two reference
 * rows: the rowa baseline, and the picks' 128x256 shape as plain tile (C
 * stored from registers: what staging C buys). MINB is chosen so that MINB
 * blocks give an SM 8 or more warps (it also caps the stream-K grid per SM:
 * sgemm_tuned_sk_launch). 16xN and 32xN are skinny tiles for a small m (a
 * decode batch): a 128-row tile would spend most of its FMAs on rows past
 * m, and on the stream-K grid a small tile spreads a few large tiles' worth
 * of k-slabs over every SM. Nx16, Nx32 and Nx64 are narrow tiles for a
 * small n (a thin C, where the 16x128 pick leaves 7/8 of its FFMAs on
 * columns past n = 16), as stream-K since a narrow C has few tiles for the
 * SMs: candidates for a rule on n still to be measured
 * (docs/tuning/awkward.md). The rows that never won (other rowa shapes,
 * other barrier positions and copy groups, more small stream-K and sliced
 * shapes, sl8) are in git history; docs/tuning/tuned.md lists them. */
#define SGEMM_TUNED_CANDIDATES(X)                                                                \
    X(128x64x16_w64x32_t8x8_s3, rowa, 128, 64, 16, 64, 32, 8, 8, 3, 4, 0, 0, 0)                   \
    X(128x128x8_w64x64_t8x16_s4_g8_sp8_b7, tile, 128, 128, 8, 64, 64, 8, 16, 4, 2, 8, 8, 7)       \
    X(128x256x8_w64x64_t8x16_s4_g8_sp2_b4, tile, 128, 256, 8, 64, 64, 8, 16, 4, 1, 8, 2, 4)       \
    X(128x256x8_w64x64_t8x16_s4_g8_sp2_b4_sk, sk, 128, 256, 8, 64, 64, 8, 16, 4, 1, 8, 2, 4)      \
    X(128x128x8_w64x64_t8x16_s4_g8_sp8_b7_sk, sk, 128, 128, 8, 64, 64, 8, 16, 4, 2, 8, 8, 7)      \
    X(128x256x8_w64x64_t8x16_s4_g8_sp2_b4_st, st, 128, 256, 8, 64, 64, 8, 16, 4, 1, 8, 2, 4)      \
    X(128x256x8_w32x128_t8x16_s4_g8_sp2_b4_st, st, 128, 256, 8, 32, 128, 8, 16, 4, 1, 8, 2, 4)    \
    X(64x64x16_w32x16_t4x4_s6_g8_sp2_b15_sk, sk, 64, 64, 16, 32, 16, 4, 4, 6, 1, 8, 2, 15)        \
    X(32x128x8_w16x64_t4x8_s6_g8_sp2_b7_sk, sk, 32, 128, 8, 16, 64, 4, 8, 6, 2, 8, 2, 7)          \
    X(16x128x8_w16x64_t4x8_s4_g8_sp2_b7_sl2, sl2, 16, 128, 8, 16, 64, 4, 8, 4, 4, 8, 2, 7)        \
    X(16x128x8_w16x64_t4x8_s4_g8_sp2_b7_sl4, sl4, 16, 128, 8, 16, 64, 4, 8, 4, 2, 8, 2, 7)        \
    X(256x16x32_w64x16_t8x4_s3_g8_sp2_b31_sk, sk, 256, 16, 32, 64, 16, 8, 4, 3, 2, 8, 2, 31)      \
    X(128x32x16_w64x16_t8x4_s4_g8_sp2_b15_sk, sk, 128, 32, 16, 64, 16, 8, 4, 4, 4, 8, 2, 15)      \
    X(128x64x16_w64x32_t8x8_s4_g8_sp2_b15_sk, sk, 128, 64, 16, 64, 32, 8, 8, 4, 2, 8, 2, 15)      \
    X(64x128x8_w32x64_t8x8_s4_g8_sp2_b7_sk, sk, 64, 128, 8, 32, 64, 8, 8, 4, 2, 8, 2, 7)          \
    X(64x128x16_w32x64_t8x8_s4_g8_sp2_b15_sk, sk, 64, 128, 16, 32, 64, 8, 8, 4, 2, 8, 2, 15)

/* The edge candidates (for shapes whose n or k is not a multiple of 4),
 * rule SGEMM_TUNED_RULE_N_LANES (below): rows above by name, the picks'
 * shapes, each listed as its name plus "_edge". Only the kinds whose A
 * copies are 4-byte in every case (st, sk, sl): their 16-byte copies are
 * B's and their float4 stores C's, whose rows are n floats long, so n alone
 * decides. Measured against the rows above on shapes/awkward.txt
 * (docs/tuning/awkward.md). */
#define SGEMM_TUNED_EDGE_CANDIDATES(X)         \
    X(128x256x8_w64x64_t8x16_s4_g8_sp2_b4_sk)  \
    X(128x256x8_w64x64_t8x16_s4_g8_sp2_b4_st)  \
    X(32x128x8_w16x64_t4x8_s6_g8_sp2_b7_sk)    \
    X(16x128x8_w16x64_t4x8_s4_g8_sp2_b7_sl2)   \
    X(16x128x8_w16x64_t4x8_s4_g8_sp2_b7_sl4)

/* The padded-B candidates (for shapes whose n is not a multiple of 4),
 * rule SGEMM_TUNED_RULE_PAD_B (below): rows above by name, the tile kinds
 * among the picks' shapes and the st row with 32x128 warp tiles, each
 * listed as its name plus "_padb". */
#define SGEMM_TUNED_PADB_CANDIDATES(X)          \
    X(128x256x8_w64x64_t8x16_s4_g8_sp2_b4_sk)   \
    X(128x256x8_w64x64_t8x16_s4_g8_sp2_b4_st)   \
    X(128x256x8_w32x128_t8x16_s4_g8_sp2_b4_st)  \
    X(128x64x16_w64x32_t8x8_s4_g8_sp2_b15_sk)   \
    X(32x128x8_w16x64_t4x8_s6_g8_sp2_b7_sk)     \
    X(64x128x8_w32x64_t8x8_s4_g8_sp2_b7_sk)

#define SGEMM_TUNED_KIND_rowa 0
#define SGEMM_TUNED_KIND_tile 1
#define SGEMM_TUNED_KIND_st 2
#define SGEMM_TUNED_KIND_sk 3
#define SGEMM_TUNED_KIND_sl2 4 /* sliced-k: 2, 4 or 8 k-slices a block */
#define SGEMM_TUNED_KIND_sl4 5
#define SGEMM_TUNED_KIND_sl8 6

/* Which kernel a candidate runs for a shape (its rule; template argument
 * RULE of the launchers):
 *   NK       the 16-byte kernel (VEC 1) when n % 4 == 0, and for rowa also
 *            k % 4 == 0 (rowa copies rows of A by 16-byte chunks; every
 *            other kind copies A 4 bytes at a time, the transpose being in
 *            the copy's addressing, so k does not matter to it); else VEC 0:
 *            each thread's 4-float chunk of B by four 4-byte copies (a
 *            warp's lanes 16 bytes apart), C by scalar stores of the same
 *            chunks. The rows of SGEMM_TUNED_CANDIDATES.
 *   N_LANES  VEC 1 when n % 4 == 0 (what B's and C's rows need), else VEC
 *            2: 4-byte copies of B and stores of C with consecutive lanes on
 *            consecutive columns (a warp's access is 128 contiguous bytes,
 *            and its shared-memory writes hit 32 banks). The _edge rows.
 *   PAD_B    VEC 1 when n % 4 == 0, else VEC 3: B first copied into a
 *            buffer whose rows are padded to a multiple of 4 floats with
 *            zeros (sgemm_tf32_stage.cuh's copy kernel, timed with the
 *            call), then read by the 16-byte kernel's copies from there; C
 *            (staged in shared memory: st, sk) a row per warp at a time,
 *            lanes on consecutive columns; the tile kind (C from
 *            registers) by VEC 0's scalar stores. The copy writes B (k x
 *            n) once more; its read replaces the GEMM's own (B then comes
 *            from the L2), so its share of the time falls as 1 / m. The
 *            _padb rows, and `tuned`'s picks of its rule 3 at m >=
 *            SGEMM_TUNED_PAD_B_MIN_M (kernels/sgemm_tuned.cu). */
#define SGEMM_TUNED_RULE_NK 0
#define SGEMM_TUNED_RULE_N_LANES 1
#define SGEMM_TUNED_RULE_PAD_B 2

/* The VEC template argument of a candidate's kernels (its rule, at n, k). */
#define SGEMM_TUNED_VEC_SCALAR 0 /* four 4-byte copies per chunk, lanes 16 bytes apart */
#define SGEMM_TUNED_VEC_16B 1    /* 16-byte copies of B, float4 stores of C */
#define SGEMM_TUNED_VEC_LANES 2  /* 4-byte copies and stores, lanes on consecutive columns */
#define SGEMM_TUNED_VEC_PADB 3   /* 16-byte copies of B staged with padded rows, 4-byte stores of C */
/* The row stride of B's padded copy (rule PAD_B): n rounded up to a multiple of 4. */
static inline __host__ __device__ int sgemm_tuned_ld_padded(int n)
{
    return (n + 3) / 4 * 4;
}
static inline __host__ __device__ int sgemm_tuned_vec_of(int rule, int kind, int n, int k)
{
    if (rule == SGEMM_TUNED_RULE_N_LANES)
        return n % 4 == 0 ? SGEMM_TUNED_VEC_16B : SGEMM_TUNED_VEC_LANES;
    if (rule == SGEMM_TUNED_RULE_PAD_B)
        return n % 4 == 0 ? SGEMM_TUNED_VEC_16B : SGEMM_TUNED_VEC_PADB;
    return n % 4 == 0 && (k % 4 == 0 || kind != SGEMM_TUNED_KIND_rowa) ? SGEMM_TUNED_VEC_16B : SGEMM_TUNED_VEC_SCALAR;
}


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
    const char *name_padb;     /* the name of the same kernels under rule PAD_B (name + "_padb") */
    const char *fallback_padb; /* likewise for the fallback */
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
        SGEMM_TUNED_SHAPE(BM, BN, BK, WM, WN, TM, TN, ST) SGEMM_TUNED_SUFFIX_st(G, SP, B0),         \
        #NAME "_padb",                                                                             \
        SGEMM_TUNED_SHAPE(BM, BN, BK, WM, WN, TM, TN, ST) SGEMM_TUNED_SUFFIX_st(G, SP, B0) "_padb"}; \
    static_assert(candidate_name_is(#NAME, SGEMM_TUNED_SHAPE(BM, BN, BK, WM, WN, TM, TN, ST),      \
                                    SGEMM_TUNED_SUFFIX_##KIND(G, SP, B0)),                         \
                  "the candidate's name says its parameters");
SGEMM_TUNED_CANDIDATES(SGEMM_TUNED_CFG_ROW)

/* The edge and padded-B rows are rows above under another rule: only the
 * kinds whose edge kernels exist. */
#define SGEMM_TUNED_EDGE_KIND_CHECK(NAME)                                                          \
    static_assert(sgemm_tuned_cfg_##NAME.kind != SGEMM_TUNED_KIND_rowa &&                          \
                      sgemm_tuned_cfg_##NAME.kind != SGEMM_TUNED_KIND_tile,                        \
                  "edge rows: st, sk and sl (C staged or summed in shared memory)");
SGEMM_TUNED_EDGE_CANDIDATES(SGEMM_TUNED_EDGE_KIND_CHECK)
#define SGEMM_TUNED_PADB_KIND_CHECK(NAME)                                                          \
    static_assert(sgemm_tuned_cfg_##NAME.kind != SGEMM_TUNED_KIND_rowa,                            \
                  "padb rows: B copied by the tile kinds' main loop");
SGEMM_TUNED_PADB_CANDIDATES(SGEMM_TUNED_PADB_KIND_CHECK)

/* The row named NAME (a macro argument such as SGEMM_TUNED_LARGE is expanded
 * first); a name that is not a row is an undeclared identifier: a compile
 * error naming it. */
#define SGEMM_TUNED_CFG(NAME) SGEMM_TUNED_CFG_(NAME)
#define SGEMM_TUNED_CFG_(NAME) sgemm_tuned_cfg_##NAME
/* A row's parameters as template arguments, after the kind (its rule: NK). */
#define SGEMM_TUNED_ARGS(c) SGEMM_TUNED_ARGS_RULE(c, SGEMM_TUNED_RULE_NK)
/* ... under another rule */
#define SGEMM_TUNED_ARGS_RULE(c, rule) c.bm, c.bn, c.bk, c.wm, c.wn, c.tm, c.tn, c.st, c.minb, c.group, c.sp, c.b0, rule

#endif
