/* kernels/search/sgemm_search.cu: every FP32 `tuned` candidate, family
 * `tuned` of `compare --candidates` (library compare_search: hidden rows of
 * sgemm, src/gpu/op_sgemm_candidates.c; `tuned` itself runs only its picks).
 *
 * Idea: one row of SGEMM_TUNED_CANDIDATES (kernels/sgemm_tuned.cuh) = one
 * instantiation of the kernel templates there, listed under its name; how
 * each kernel works and why those rows are the ones kept is said there.
 * Constraints: as sgemm_tuned.cuh (any m, n, k >= 1). A stream-K candidate
 * (_sk) runs as itself or not at all: a refused cooperative launch is
 * returned as the candidate's error (no fallback here, unlike `tuned`).
 * Run: ./compare --candidates tuned --n 2048,4096,8192 [--shape MxNxK,...]
 * [--csv FILE]. */
#include "search_table.cuh"
#include "sgemm_tuned.cuh"

#define SGEMM_SEARCH_ROW(NAME, KIND, BM, BN, BK, WM, WN, TM, TN, ST, MINB, G, SP, B0)              \
    {#NAME, sgemm_tuned_launch<SGEMM_TUNED_KIND_##KIND, BM, BN, BK, WM, WN, TM, TN, ST, MINB, G, SP, B0>},

/* the edge and padded-B rows (SGEMM_TUNED_EDGE_CANDIDATES,
 * SGEMM_TUNED_PADB_CANDIDATES): row NAME's kernels under rule N_LANES, or
 * PAD_B (B copied with padded rows at n % 4 != 0, the copy timed) */
#define SGEMM_SEARCH_RULE_ROW(NAME, SUFFIX, RULE)                                                   \
    {#NAME SUFFIX, sgemm_tuned_launch<sgemm_tuned_cfg_##NAME.kind, SGEMM_TUNED_ARGS_RULE(sgemm_tuned_cfg_##NAME, RULE)>},
#define SGEMM_SEARCH_EDGE_ROW(NAME) SGEMM_SEARCH_RULE_ROW(NAME, "_edge", SGEMM_TUNED_RULE_N_LANES)
#define SGEMM_SEARCH_PADB_ROW(NAME) SGEMM_SEARCH_RULE_ROW(NAME, "_padb", SGEMM_TUNED_RULE_PAD_B)

static const sgemm_search_row sgemm_search_table[] = {
    SGEMM_TUNED_CANDIDATES(SGEMM_SEARCH_ROW) SGEMM_TUNED_EDGE_CANDIDATES(SGEMM_SEARCH_EDGE_ROW)
        SGEMM_TUNED_PADB_CANDIDATES(SGEMM_SEARCH_PADB_ROW)};

SGEMM_SEARCH_API(sgemm, sgemm_search_table)
