/* src/gpu/op_attention_candidates.c: attention's candidate family
 * (candidates.h): fa3, the Hopper rung at several K/V tiles
 * (kernels/search/attention_fa3_search.h), sm_90a only; each candidate
 * declines head_dim 256 and what the rung declines, fa3_w3_k112 and
 * fa3_w3_k128 (3 consumer warpgroups on K/V tiles that spill at head_dim
 * 128) head_dim 128 too (its rows are then SKIP).
 * Verified against the op's reference and timed beside cudnn_sdpa like
 * every attention row. Run: ./compare --ops attention --candidates fa3
 * --axis head_dim=64,128. */
#include "attention_fa3_search.h"
#include "candidates.h"
#include "check.h"

typedef int (*attention_cand_run_fn)(int i, const attention_args *a, cudaStream_t s);

static int attention_cand_adapter(const op_case *c, const variant *v, cudaStream_t s)
{
    const attention_args a = op_attention_case_args(c);
    const int rc = ((attention_cand_run_fn)v->fn)(v->fn_index, &a, s);
    /* "NAME failed: cudaErrorNotSupported ...": the row's message when it declines */
    return check_cuda_status((cudaError_t)rc, v->info.name, __FILE__, __LINE__) ? STATUS_ERROR : STATUS_OK;
}

/* candidate v->fn_index's workspace at the planned case (its tail split's partials) */
static size_t attention_cand_workspace(const plan_case *pc, const variant *v)
{
    const attention_args a = op_attention_plan_args(pc);
    return attention_fa3_search_workspace(v->fn_index, &a);
}

static const candidate_family attention_cand_families[] = {
    {"attention", CATALOG_CANDIDATE_SOURCE "fa3", "types", NULL,
     "fa3 candidate: K/V tile, warpgroups, tail split, softmax options (kernels/search/attention_fa3_search.cu; head_dim 64, 128)", 1, attention_fa3_search_count,
     attention_fa3_search_name, (variant_fn)attention_fa3_search_run, attention_cand_adapter,
     attention_cand_workspace},
};

int op_attention_candidates(const variant **rows)
{
    static variant built[32];
    static int count = -1;
    if (count < 0)
        count = candidates_build(attention_cand_families,
                                 (int)(sizeof attention_cand_families / sizeof attention_cand_families[0]), built,
                                 (int)(sizeof built / sizeof built[0]));
    *rows = built;
    return count;
}
