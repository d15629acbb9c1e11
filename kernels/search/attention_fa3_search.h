/* kernels/search/attention_fa3_search.h: the candidate table of the
 * attention rung fa3's K/V tile (kernels/search/attention_fa3_search.cu),
 * family `fa3` of `compare --candidates` (library compare_search, linked into
 * libcompare_gpu: src/gpu/op_attention_candidates.c).
 * attention_fa3_search_count(), attention_fa3_search_name(i) (a static
 * string, NULL out of range) and attention_fa3_search_run(i, a, stream): the
 * attention of kernels/attention.h by candidate i on `stream`; returns the
 * cudaError_t of the launch, cudaErrorNotSupported for a case the candidate
 * declines (head_dim other than 64 and 128, a K/V tile whose ring does not fit
 * the shared memory, and whatever attention_fa3_supports declines),
 * cudaErrorInvalidValue for i out of range; attention_fa3_search_workspace(i,
 * a): the bytes of workspace candidate i may take at case a (its tail
 * split's partials; 0: none, or i out of range), to be zeroed before its
 * first run (without it the candidate runs unsplit);
 * attention_fa3_search_tail_split(i, a): the chunks a tail work tile its run
 * of case a takes (0: no split), a test's window into it. */
#ifndef KERNELS_SEARCH_ATTENTION_FA3_SEARCH_H
#define KERNELS_SEARCH_ATTENTION_FA3_SEARCH_H

#include <cuda_runtime_api.h>

#include "attention.h"

#ifdef __cplusplus
extern "C" {
#endif

int attention_fa3_search_count(void);
const char *attention_fa3_search_name(int i);
int attention_fa3_search_run(int i, const attention_args *a, cudaStream_t stream);
size_t attention_fa3_search_workspace(int i, const attention_args *a);
int attention_fa3_search_tail_split(int i, const attention_args *a);

#ifdef __cplusplus
}
#endif

#endif
