/* kernels/search/sgemm_tf32_tma_search.cu: every TF32 TMA candidate
 * (SGEMM_TMA_CANDIDATES, kernels/sgemm_tf32_tma.cuh), family `tf32_tma` of
 * `compare --candidates`. Compiled for sm_90a only. Idea and constraints: as
 * that header (a candidate declines, with cudaErrorNotSupported, shapes whose
 * rows are not whole 16-byte copies: its row is SKIP); the last row,
 * tf32_tma_lean_staging, takes every shape (sgemm_tf32_tma.h).
 * Run: ./compare --candidates tf32_tma --n 2048,4096,8192. */
#include "search_table.cuh"
#include "sgemm_tf32_tma.cuh"
#include "sgemm_tf32_tma.h"

#define SGEMM_TMA_SEARCH_ROW(NAME, BM, BN, ST, DB, WS, PP, MINB, KIND, CL, SK)                   \
    {#NAME, sgemm_tma_run<BM, BN, ST, DB, WS, PP, MINB, KIND, CL, SK>},

/* after the kernel rows, one of the staging path (kernels/sgemm_tf32_tma.h:
 * the variant's picks, staging only the operands whose rows are unaligned) */
static const sgemm_search_row sgemm_tma_search_table[] = {
    SGEMM_TMA_CANDIDATES(SGEMM_TMA_SEARCH_ROW){SGEMM_TF32_TMA_LEAN_NAME, sgemm_tf32_tma_lean}};

SGEMM_SEARCH_API(sgemm_tf32_tma, sgemm_tma_search_table)
