/* src/gpu/op_transpose_candidates.c: transpose's candidate family
 * (candidates.h): transpose_fast, every tile of `fast`'s vector path
 * (kernels/search/transpose_search.h), declined where n or m is not a
 * multiple of 4. Run: ./compare --candidates transpose_fast --n 4096,8192. */
#include "candidates.h"
#include "check.h"
#include "transpose_search.h"

typedef int (*transpose_cand_run_fn)(int i, const float *in, float *out, int m, int n, cudaStream_t s);

static int transpose_cand_adapter(const op_case *c, const variant *v, cudaStream_t s)
{
    op_plugin_binding b;
    candidates_bind(c, &b); /* input in (m x n); output out (n x m) */
    const int rc = ((transpose_cand_run_fn)v->fn)(v->fn_index, b.inputs[0], b.outputs[0], (int)c->pc->m,
                                                  (int)c->pc->n, s);
    return check_cuda_status((cudaError_t)rc, v->info.name, __FILE__, __LINE__) ? STATUS_ERROR : STATUS_OK;
}

static const candidate_family transpose_cand_families[] = {
    {"transpose", CATALOG_CANDIDATE_SOURCE "transpose_fast", "fp32", NULL,
     "transpose `fast` vector-path candidate (kernels/transpose_fast.cuh)", 0, transpose_search_count,
     transpose_search_name, (variant_fn)transpose_search_run, transpose_cand_adapter, NULL},
};

int op_transpose_candidates(const variant **rows)
{
    static variant built[64];
    static int count = -1;
    if (count < 0) count = candidates_build(transpose_cand_families, 1, built, (int)(sizeof built / sizeof built[0]));
    *rows = built;
    return count;
}
