/* kernels/search/transpose_search.h: the candidate table of transpose
 * `fast`'s vector path (TRANSPOSE_FAST_CANDIDATES, kernels/transpose_fast.cuh),
 * family `transpose_fast` of `compare --candidates` (library compare_search,
 * linked into libcompare_gpu: src/gpu/op_transpose_candidates.c).
 * transpose_search_count(), transpose_search_name(i) (a static string, NULL
 * out of range) and transpose_search_run(i, in, out, m, n, stream): out
 * (n x m) = in (m x n) transposed, row-major floats, on `stream`; returns the
 * cudaError_t of the launch, cudaErrorNotSupported for what the vector path
 * declines (m or n not a multiple of 4, a buffer not 16-byte aligned),
 * cudaErrorInvalidValue for i out of range or a size < 1. */
#ifndef KERNELS_SEARCH_TRANSPOSE_SEARCH_H
#define KERNELS_SEARCH_TRANSPOSE_SEARCH_H

#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

int transpose_search_count(void);
const char *transpose_search_name(int i);
int transpose_search_run(int i, const float *in, float *out, int m, int n, cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif
