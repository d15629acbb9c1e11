/* kernels/search/sgemm_tf32_wgmma_search.cu: every TF32 wgmma candidate
 * (SGEMM_WG_CANDIDATES, kernels/sgemm_tf32_wgmma.cuh), family `tf32_wgmma`
 * of `compare --candidates`. Compiled for sm_90a only. Idea and constraints:
 * as that header (a candidate declines, with cudaErrorNotSupported, shapes
 * whose rows are not whole 16-byte copies: its row is SKIP).
 * Run: ./compare --candidates tf32_wgmma --n 2048,4096,8192. */
#include "search_table.cuh"
#include "sgemm_tf32_wgmma.cuh"

#define SGEMM_WG_SEARCH_ROW(NAME, BM, BN, ST, MINB) {#NAME, sgemm_wg_run<BM, BN, ST, MINB>},

static const sgemm_search_row sgemm_wg_search_table[] = {SGEMM_WG_CANDIDATES(SGEMM_WG_SEARCH_ROW)};

SGEMM_SEARCH_API(sgemm_tf32_wgmma, sgemm_wg_search_table)
