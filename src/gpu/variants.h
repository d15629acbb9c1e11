/* src/gpu/variants.h: the one table of variants, hand and library alike. A
 * variant's name exists here only: the table, the CSV, the plots and --list
 * all read it. Adding a kernel = one .cu file with its launcher + one row. */
#ifndef COMPARE_VARIANTS_H
#define COMPARE_VARIANTS_H

#include <stddef.h>
#include <stdint.h>
#include <cuda_runtime_api.h>

#include "device.h"

/* Everything a variant needs for one case (one op at one size). */
typedef struct case_ctx {
    device_ctx *dev;           /* stream, cuBLAS handle */
    const char *op;            /* "sgemm" | "reduce" | "sort" */
    int m, n, k;               /* sgemm shape */
    long long elems;           /* reduce/sort length */
    int keys_are_float;        /* sort: 1 float keys, 0 uint32 keys */
    const float *A, *B;        /* sgemm inputs (row-major) */
    float *C;                  /* sgemm output */
    const float *x;            /* reduce input */
    float *sum_dev;            /* reduce output in device memory */
    float *sum_host;           /* reduce output of variants that return it to the host */
    int *sum_on_host;          /* set to 1 by such variants */
    const void *keys_in;       /* sort input (never modified) */
    void *keys_out;            /* sort output */
    void *scratch;             /* hand kernels' scratch (max over the op's variants) */
    size_t scratch_bytes;
    void *lib_temp;            /* CUB temporary storage, allocated outside timing */
    size_t lib_temp_bytes;
} case_ctx;

typedef struct variant {
    const char *op;            /* "sgemm" | "reduce" | "sort" */
    const char *name;          /* "tiled32": verbatim in table, CSV, plots */
    int is_library;            /* 1 vendor library, 0 hand-written */
    const char *math;          /* "fp32" | "tf32" | "fp32" (reduce) | "keys" (sort: u32 and f32) */
    const char *ref_library;   /* hand rows: the library row their "% of ref" is against */
    int (*run)(const case_ctx *c, cudaStream_t s);     /* the timed work; returns status_t */
    int (*prepare)(const case_ctx *c, cudaStream_t s); /* untimed set-up before each run, or NULL */
    int host_sync;             /* 1: the call synchronizes with the host (allocates, returns a
                                  result to it): timed from an idle stream, so those host
                                  costs are in its figure, as a user pays them */
    int test_only;             /* 1: hidden unless COMPARE_TEST_VARIANTS=1 (fault injection) */
    const char *about;         /* one line for --list */
} variant;

/* The table (test-only rows included; use variants_visible). */
extern const variant variants_table[];
extern const int variants_count;

/* 1 if row i is visible in this process (test-only rows need the env var). */
int variants_visible(int i);
/* Index of a variant by op and name, -1 if none. */
int variants_find(const char *op, const char *name);
/* Index by name in any op (first match), -1 if none. */
int variants_find_name(const char *name);
/* The op's reference library row ("cublas_fp32", "thrust") and fastest one
 * ("cublas_tf32", "cub"). */
const char *variants_op_ref(const char *op);
const char *variants_op_best(const char *op);
/* Scratch bytes the op's hand variants need at this size. */
size_t variants_scratch_bytes(const char *op, long long elems);

#endif
