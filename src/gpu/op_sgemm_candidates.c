/* src/gpu/op_sgemm_candidates.c: sgemm's candidate families (candidates.h),
 * each named after the shipped variant whose picks it feeds: tuned (FP32),
 * tf32_mma, and on sm_90a tf32_wgmma and tf32_tma (kernels/search/
 * sgemm_search.h). Run: ./compare --candidates tf32_tma --n 4096. */
#include "candidates.h"
#include "check.h"
#include "sgemm_search.h"

typedef int (*sgemm_cand_run_fn)(int i, const float *A, const float *B, float *C, int m, int n, int k,
                                 cudaStream_t s);

static int sgemm_cand_adapter(const op_case *c, const variant *v, cudaStream_t s)
{
    op_plugin_binding b;
    candidates_bind(c, &b); /* inputs A, B; output C */
    const int rc = ((sgemm_cand_run_fn)v->fn)(v->fn_index, b.inputs[0], b.inputs[1], b.outputs[0], (int)c->pc->m,
                                               (int)c->pc->n, (int)c->pc->k, s);
    /* "NAME failed: cudaErrorNotSupported ...": the row's message when it declines */
    return check_cuda_status((cudaError_t)rc, v->info.name, __FILE__, __LINE__) ? STATUS_ERROR : STATUS_OK;
}

#define SGEMM_CAND(FAMILY, MATH, ABOUT, SM90A, PREFIX)                                                          \
    {"sgemm", CATALOG_CANDIDATE_SOURCE FAMILY, MATH, "cublas_" MATH, ABOUT, SM90A, PREFIX##_search_count,      \
     PREFIX##_search_name, (variant_fn)PREFIX##_search_run, sgemm_cand_adapter, NULL}

static const candidate_family sgemm_cand_families[] = {
    SGEMM_CAND("tuned", "fp32", "FP32 `tuned` candidate (kernels/sgemm_tuned.cuh)", 0, sgemm),
    SGEMM_CAND("tf32_mma", "tf32", "TF32 mma.sync candidate (kernels/sgemm_tf32.cuh)", 0, sgemm_tf32),
    SGEMM_CAND("tf32_wgmma", "tf32", "TF32 wgmma candidate (kernels/sgemm_tf32_wgmma.cuh)", 1, sgemm_tf32_wgmma),
    SGEMM_CAND("tf32_tma", "tf32", "TF32 wgmma + TMA candidate (kernels/sgemm_tf32_tma.cuh)", 1, sgemm_tf32_tma),
};

int op_sgemm_candidates(const variant **rows)
{
    static variant built[256];
    static int count = -1;
    if (count < 0)
        count = candidates_build(sgemm_cand_families, (int)(sizeof sgemm_cand_families / sizeof sgemm_cand_families[0]),
                                 built, (int)(sizeof built / sizeof built[0]));
    *rows = built;
    return count;
}
