/* kernels/search/search_table.cuh: a candidate table and the search API
 * over it (sgemm_search.h), shared by the four candidate table files.
 *
 * A table is an array of sgemm_search_row, one per row of the family's
 * X-macro list; SGEMM_SEARCH_API(PREFIX, TABLE) defines PREFIX_search_count
 * / _name / _run over it (size check, range check, then the row's launcher). */
#ifndef KERNELS_SEARCH_SEARCH_TABLE_CUH
#define KERNELS_SEARCH_SEARCH_TABLE_CUH

#include <stddef.h>

#include <cuda_runtime.h>

#include "sgemm_search.h"

typedef struct {
    const char *name; /* the candidate's name, as in its family's table */
    int (*run)(const float *, const float *, float *, int, int, int, cudaStream_t); /* its launcher */
} sgemm_search_row;

#define SGEMM_SEARCH_API(PREFIX, TABLE)                                                            \
    extern "C" int PREFIX##_search_count(void)                                                     \
    {                                                                                              \
        return (int)(sizeof(TABLE) / sizeof(TABLE[0]));                                           \
    }                                                                                              \
    extern "C" const char *PREFIX##_search_name(int i)                                             \
    {                                                                                              \
        return i >= 0 && i < PREFIX##_search_count() ? TABLE[i].name : NULL;                       \
    }                                                                                              \
    extern "C" int PREFIX##_search_run(int i, const float *A, const float *B, float *C, int m,     \
                                       int n, int k, cudaStream_t stream)                          \
    {                                                                                              \
        if (i < 0 || i >= PREFIX##_search_count() || m < 1 || n < 1 || k < 1)                     \
            return (int)cudaErrorInvalidValue;                                                     \
        return TABLE[i].run(A, B, C, m, n, k, stream);                                             \
    }

#endif
