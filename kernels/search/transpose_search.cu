/* kernels/search/transpose_search.cu: every candidate of transpose `fast`'s
 * vector path (TRANSPOSE_FAST_CANDIDATES, kernels/transpose_fast.cuh), family
 * `transpose_fast` of `compare --candidates`; `fast` itself runs only its
 * pick (TRANSPOSE_FAST_PICK, kernels/transpose.cu). Idea and constraints: as
 * that header; the scalar path of `fast` (m or n not a multiple of 4) is not
 * a candidate, so such shapes are declined (the rows are SKIP).
 * Run: ./compare --candidates transpose_fast --n 4096,8192. */
#include <stdint.h>

#include "transpose_fast.cuh"
#include "transpose_search.h"

typedef struct {
    const char *name; /* the candidate's name, as in TRANSPOSE_FAST_CANDIDATES */
    int (*run)(const float *, float *, int, int, cudaStream_t); /* its launcher */
} transpose_search_row;

#define TRANSPOSE_SEARCH_ROW(NAME) {#NAME, transpose_fast_launch<TRANSPOSE_FAST_CFG_##NAME>},

static const transpose_search_row transpose_search_table[] = {TRANSPOSE_FAST_CANDIDATES(TRANSPOSE_SEARCH_ROW)};

extern "C" int transpose_search_count(void)
{
    return (int)(sizeof transpose_search_table / sizeof transpose_search_table[0]);
}

extern "C" const char *transpose_search_name(int i)
{
    return i >= 0 && i < transpose_search_count() ? transpose_search_table[i].name : NULL;
}

extern "C" int transpose_search_run(int i, const float *in, float *out, int m, int n, cudaStream_t stream)
{
    if (i < 0 || i >= transpose_search_count() || m < 1 || n < 1)
        return (int)cudaErrorInvalidValue;
    if (m % 4 != 0 || n % 4 != 0 || ((uintptr_t)in & 15u) != 0 || ((uintptr_t)out & 15u) != 0)
        return (int)cudaErrorNotSupported; /* the vector path's rows are whole float4s */
    return transpose_search_table[i].run(in, out, m, n, stream);
}
