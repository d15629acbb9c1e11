/* kernels/sgemm_tf32_tma_candidates.cuh: the TF32 TMA GEMM's candidates
 * (SGEMM_TMA_CANDIDATES), one row of compile-time parameters each, and the
 * constexpr row of each (SGEMM_TMA_CFG(NAME)) that the launcher
 * (sgemm_tf32_tma.cu) picks by name and runs with
 * sgemm_tma_run<SGEMM_TMA_ARGS(row)>.
 *
 * Idea: the list holds the picks (the SGEMM_TMA_* defaults of
 * sgemm_tf32_tma.cu) and three search candidates kept as the nearest
 * alternatives to re-measure on another GPU; docs/tuning/tf32_tma.md says
 * which and why, and what the candidates removed from the list showed.
 * compare-search's tf32-tma family runs every row. A row's name spells its
 * parameters, checked at compile time (candidate_name_is), so a table of
 * results read by name cannot mislabel a kernel. */
#ifndef KERNELS_SGEMM_TF32_TMA_CANDIDATES_CUH
#define KERNELS_SGEMM_TF32_TMA_CANDIDATES_CUH

#include "candidate_name.cuh"

/* X(NAME, BM, BN, ST, DB, WS, PP, MINB, KIND, CL, SK): BM rows of C (=
 * wgmma N: 16, 32, 64 (the thin-m tiles), 128 or 256), BN = 64 NWG columns
 * (NWG consumer warpgroups), ST stages, DB 0 (one fragment set, wait_group 0
 * per slab) or 2 (_pf: the next slab's fragments prefetched into a second
 * set, KIND 1 only), WS a producer warp (1) or thread 0 producing (0), PP
 * ping-pong issue order of the two warpgroups (1), MINB blocks per SM, KIND
 * 0 (one tile per CTA) or 1 (persistent, a producer warpgroup: BN = 128,
 * WS = 1, MINB = 1), CL CTAs per cluster sharing A by multicast (KIND 1: 1
 * or 2) and SK the schedule (KIND 1: 0 whole tiles, 1 split k when the units
 * do not fill the GPU, 4 the partial last wave's units cut in k pieces, the
 * split tail).
 * NAME = tf32_tma_mBMnBNk32_sST then _pp, then _pf or _sk, then _kst (SK 4),
 * then _ws (KIND 0) or _pers, _pers_c2 (KIND 1, CL = 1, 2), for the flags
 * set, checked at compile time. */
#define SGEMM_TMA_CANDIDATES(X)                                                                    \
    X(tf32_tma_m256n128k32_s4_pp, 256, 128, 4, 0, 0, 1, 1, 0, 1, 0) /* 256 x 128, 256 thr */       \
    X(tf32_tma_m128n128k32_s6_ws, 128, 128, 6, 0, 1, 0, 1, 0, 1, 0) /* 128 x 128, 288 thr */       \
    X(tf32_tma_m128n64k32_s6_ws, 128, 64, 6, 0, 1, 0, 1, 0, 1, 0)   /* 128 x 64, 160 thr */        \
    X(tf32_tma_m16n64k32_s8_ws, 16, 64, 8, 0, 1, 0, 2, 0, 1, 0)     /* thin m: 16 x 64, 2 per SM */\
    X(tf32_tma_m32n64k32_s8_ws, 32, 64, 8, 0, 1, 0, 2, 0, 1, 0)     /* 32 x 64, 2 per SM */        \
    X(tf32_tma_m64n64k32_s6_ws, 64, 64, 6, 0, 1, 0, 2, 0, 1, 0)     /* 64 x 64, 2 per SM */        \
    X(tf32_tma_m16n128k32_s8_ws, 16, 128, 8, 0, 1, 0, 1, 0, 1, 0)   /* 16 x 128 */                 \
    X(tf32_tma_m32n128k32_s8_ws, 32, 128, 8, 0, 1, 0, 1, 0, 1, 0)   /* 32 x 128 */                 \
    X(tf32_tma_m64n128k32_s6_ws, 64, 128, 6, 0, 1, 0, 1, 0, 1, 0)   /* 64 x 128 */                 \
    X(tf32_tma_m128n128k32_s6_pp_sk_pers_c2, 128, 128, 6, 0, 1, 1, 1, 1, 2, 1) /* + split k */   \
    X(tf32_tma_m16n128k32_s8_sk_pers, 16, 128, 8, 0, 1, 0, 1, 1, 1, 1)  /* thin m, split k */     \
    X(tf32_tma_m32n128k32_s8_sk_pers, 32, 128, 8, 0, 1, 0, 1, 1, 1, 1)  /* thin m, split k */     \
    X(tf32_tma_m64n128k32_s6_sk_pers, 64, 128, 6, 0, 1, 0, 1, 1, 1, 1)  /* thin m, split k */     \
    X(tf32_tma_m128n128k32_s6_sk_pers, 128, 128, 6, 0, 1, 0, 1, 1, 1, 1) /* thin n, split k */    \
    X(tf32_tma_m256n128k32_s4_pp_pf_pers, 256, 128, 4, 2, 1, 1, 1, 1, 1, 0)     /* persistent */ \
    X(tf32_tma_m256n128k32_s4_pp_pf_pers_c2, 256, 128, 4, 2, 1, 1, 1, 1, 2, 0)  /* + multicast */\
    X(tf32_tma_m256n128k32_s4_pf_pers_c2, 256, 128, 4, 2, 1, 0, 1, 1, 2, 0)     /* no ping-pong */ \
    X(tf32_tma_m256n128k32_s4_pf_kst_pers_c2, 256, 128, 4, 2, 1, 0, 1, 1, 2, 4)  /* split tail */

typedef struct {
    int bm, bn, st, db, ws, pp, minb, kind, cl, sk; /* as in SGEMM_TMA_CANDIDATES */
    const char *name;                               /* the row's NAME (a static string) */
} sgemm_tma_cfg;

#define SGEMM_TMA_CFG_ROW(NAME, BM, BN, ST, DB, WS, PP, MINB, KIND, CL, SK)                        \
    static constexpr sgemm_tma_cfg sgemm_tma_cfg_##NAME = {BM, BN, ST, DB, WS, PP, MINB, KIND, CL, \
                                                           SK, #NAME};                             \
    static_assert(candidate_name_is(#NAME, "tf32_tma_m" #BM "n" #BN "k32_s" #ST, (PP) ? "_pp" : "", \
                                    (DB) == 2 ? "_pf" : (SK) == 1 ? "_sk" : "",                     \
                                    (SK) == 4 ? "_kst" : "",                                        \
                                    (KIND) ? ((CL) == 2 ? "_pers_c2" : "_pers")                     \
                                           : ((WS) ? "_ws" : "")),                                  \
                  "the candidate's name says its parameters");
SGEMM_TMA_CANDIDATES(SGEMM_TMA_CFG_ROW)

/* The row named NAME (expanded first); an unknown name does not compile. */
#define SGEMM_TMA_CFG(NAME) SGEMM_TMA_CFG_(NAME)
#define SGEMM_TMA_CFG_(NAME) sgemm_tma_cfg_##NAME
#define SGEMM_TMA_ARGS(c) c.bm, c.bn, c.st, c.db, c.ws, c.pp, c.minb, c.kind, c.cl, c.sk

#endif
