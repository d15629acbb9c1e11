/* kernels/search/sgemm_tf32_search.cu: every TF32 mma.sync candidate
 * (SGEMM_TF32_CANDIDATES, kernels/sgemm_tf32.cuh), family `tf32_mma` of
 * `compare --candidates`. Idea and constraints: as sgemm_tf32.cuh (any m, n,
 * k >= 1). Run: ./compare --candidates tf32_mma --n 2048,4096,8192 [--csv FILE]. */
#include "search_table.cuh"
#include "sgemm_tf32.cuh"

#define SGEMM_TF32_SEARCH_ROW(NAME, BM, BN, WM, WN, ST, ROUND, MINB)                               \
    {#NAME, sgemm_tf32_run<BM, BN, WM, WN, ST, SGEMM_TF32_ROUND_##ROUND, MINB>},

static const sgemm_search_row sgemm_tf32_search_table[] = {
    SGEMM_TF32_CANDIDATES(SGEMM_TF32_SEARCH_ROW)};

SGEMM_SEARCH_API(sgemm_tf32, sgemm_tf32_search_table)
