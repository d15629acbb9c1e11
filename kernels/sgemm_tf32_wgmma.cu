/* kernels/sgemm_tf32_wgmma.cu: the variant tf32_wgmma, TF32 on Hopper
 * warpgroup MMA (the kernel and its candidates: sgemm_tf32_wgmma.cuh).
 * Compiled for sm_90a only.
 *
 * Idea: two candidates of SGEMM_WG_CANDIDATES, picked by name: two 128x128
 * blocks per SM up to 4096^2 outputs (each warpgroup waits for its own MMAs
 * every slab, so the other resident block keeps the tensor cores busy), the
 * 256x128 tile beyond (fewer L2 bytes per flop). Compare-search's winners on
 * the H200 (--family tf32-wgmma), overridable without an edit:
 * -DCOMPARE_KERNEL_DEFS="SGEMM_WGMMA_SMALL=NAME;SGEMM_WGMMA_LARGE=NAME".
 * Constraints: any m, n, k >= 1: shapes the wgmma kernels decline (n or k
 * not a multiple of 4, A or B not 16-byte aligned, C not 8-byte aligned)
 * run on the mma.sync kernel (sgemm_tf32_mma), noted through
 * kernel_ran_note with the reason.
 * Run just this: ./compare --variants tf32_wgmma */
#include "kernel_ran.h"
#include "policy.h"
#include "sgemm.h"
#include "sgemm_tf32_wgmma.cuh"
#include "sgemm_tf32_wgmma.h"

#ifndef SGEMM_WGMMA_SMALL
#define SGEMM_WGMMA_SMALL tf32_wgmma_m128n128k32_s3
#endif
#ifndef SGEMM_WGMMA_LARGE
#define SGEMM_WGMMA_LARGE tf32_wgmma_m256n128k32_s4
#endif

static constexpr sgemm_wg_cfg sgemm_wgmma_small = SGEMM_WG_CFG(SGEMM_WGMMA_SMALL);
static constexpr sgemm_wg_cfg sgemm_wgmma_large = SGEMM_WG_CFG(SGEMM_WGMMA_LARGE);

/* The tf32_wgmma policy (kernels/common/policy.h) has an sm_90 entry alone:
 * the small pick up to this many outputs (m x n), the large one beyond.
 * Under any other entry (another GPU, or the forced mode) the variant's
 * supports hook declines it and the launcher refuses (cudaErrorNotSupported):
 * its kernels are sm_90a SASS with no PTX to JIT. */
#define SGEMM_WGMMA_POLICY_90_SMALL_MAX (4096LL * 4096LL)

extern "C" int sgemm_tf32_wgmma(const float *A, const float *B, float *C, int m, int n, int k,
                                cudaStream_t stream)
{
    if (policy_arch_current() != POLICY_ARCH_90)
        return (int)cudaErrorNotSupported;
    const char *why = sgemm_wg_decline(A, B, C, n, k);
    if (m >= 1 && n >= 1 && k >= 1 && why) {
        const int rc = sgemm_tf32_mma(A, B, C, m, n, k, stream);
        kernel_ran_note(kernel_ran_name(), why); /* the mma.sync kernel it noted, and why */
        return rc;
    }
    if ((long long)m * n <= SGEMM_WGMMA_POLICY_90_SMALL_MAX) {
        kernel_ran_note(sgemm_wgmma_small.name, NULL);
        return sgemm_wg_run<SGEMM_WG_ARGS(sgemm_wgmma_small)>(A, B, C, m, n, k, stream);
    }
    kernel_ran_note(sgemm_wgmma_large.name, NULL);
    return sgemm_wg_run<SGEMM_WG_ARGS(sgemm_wgmma_large)>(A, B, C, m, n, k, stream);
}
