/* kernels/sgemm_tf32_tma.cu: the variant tf32_tma, TF32 on Hopper warpgroup
 * MMA fed by TMA (the kernel and its candidates: sgemm_tf32_tma.cuh).
 * Compiled for sm_90a only.
 *
 * Idea: two candidates of SGEMM_TMA_CANDIDATES, picked by name: up to 1024^2
 * outputs a 256 x 128 tile leaves most SMs idle (32 tiles at 1024^2 on 132
 * SMs), so the 128x128 tile with a producer warp takes those; beyond, the
 * 256x128 tile with ping-pong issue order, the best or within noise of the
 * best from 1536 to 8192 in every search run (results/h200/search_tma*.txt).
 * Overridable without an edit:
 * -DCOMPARE_KERNEL_DEFS="SGEMM_TMA_SMALL=NAME;SGEMM_TMA_LARGE=NAME".
 * Constraints: any m, n, k >= 1: shapes the TMA kernels decline (n or k not
 * a multiple of 4, A or B not 16-byte aligned, C not 8-byte aligned) and a
 * driver without cuTensorMapEncodeTiled run on the mma.sync kernel
 * (sgemm_tf32_mma), noted through kernel_ran_note with the reason.
 * Run just this: ./compare --variants tf32_tma */
#include "kernel_ran.h"
#include "sgemm.h"
#include "sgemm_tf32_tma.cuh"
#include "sgemm_tf32_tma.h"

#ifndef SGEMM_TMA_SMALL
#define SGEMM_TMA_SMALL tf32_tma_m128n128k32_s6_ws
#endif
#ifndef SGEMM_TMA_LARGE
#define SGEMM_TMA_LARGE tf32_tma_m256n128k32_s4_pp
#endif

static constexpr sgemm_tma_cfg sgemm_tma_small = SGEMM_TMA_CFG(SGEMM_TMA_SMALL);
static constexpr sgemm_tma_cfg sgemm_tma_large = SGEMM_TMA_CFG(SGEMM_TMA_LARGE);

/* The mma.sync kernel instead, noted with the reason (a static string). */
static int sgemm_tma_fallback(const char *why, const float *A, const float *B, float *C, int m,
                              int n, int k, cudaStream_t stream)
{
    const int rc = sgemm_tf32_mma(A, B, C, m, n, k, stream);
    kernel_ran_note(kernel_ran_name(), why); /* the mma.sync kernel it noted, and why */
    return rc;
}

extern "C" int sgemm_tf32_tma(const float *A, const float *B, float *C, int m, int n, int k,
                              cudaStream_t stream)
{
    if (m < 1 || n < 1 || k < 1)
        return (int)cudaErrorInvalidValue;
    const char *why = sgemm_wg_decline(A, B, C, n, k);
    if (why)
        return sgemm_tma_fallback(why, A, B, C, m, n, k, stream);
    int rc;
    if ((long long)m * n <= 1024LL * 1024LL) {
        kernel_ran_note(sgemm_tma_small.name, NULL);
        rc = sgemm_tma_run<SGEMM_TMA_ARGS(sgemm_tma_small)>(A, B, C, m, n, k, stream);
    } else {
        kernel_ran_note(sgemm_tma_large.name, NULL);
        rc = sgemm_tma_run<SGEMM_TMA_ARGS(sgemm_tma_large)>(A, B, C, m, n, k, stream);
    }
    if (rc == (int)cudaErrorNotSupported) /* the shape was fine: no TMA encoder in the driver */
        return sgemm_tma_fallback("driver has no cuTensorMapEncodeTiled", A, B, C, m, n, k, stream);
    return rc;
}
