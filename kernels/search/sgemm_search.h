/* kernels/search/sgemm_search.h: the SGEMM candidate tables, the hidden
 * rows of `compare --candidates FAMILY` (library compare_search, linked into
 * libcompare_gpu: src/gpu/op_sgemm_candidates.c makes each candidate a row
 * of sgemm; the shape and stress tests call the tables directly).
 *
 * Four tables, each of candidates known by name (the names picks are made
 * by: -DSGEMM_TUNED_LARGE=NAME and the like, see the kernel files); the
 * --candidates family of each in brackets:
 *   sgemm         FP32 `tuned` candidates (kernels/sgemm_tuned.cuh) [tuned]
 *   sgemm_tf32    TF32 mma.sync candidates (kernels/sgemm_tf32.cuh) [tf32_mma]
 *   sgemm_tf32_wgmma, sgemm_tf32_tma   TF32 warpgroup MMA candidates [tf32_wgmma, tf32_tma]
 *                 (kernels/sgemm_tf32_wgmma.cuh, sgemm_tf32_tma.cuh; built
 *                 for sm_90a alone: run only on a cc 9.0 GPU)
 * For each: PREFIX_search_count(), PREFIX_search_name(i) (a static string,
 * NULL out of range) and PREFIX_search_run(i, ...), same contract as every
 * launcher in sgemm.h: row-major dense A (m x k), B (k x n), C (m x n),
 * C = A*B, launched on `stream`, returns the cudaError_t of the launch
 * (0 on success); cudaErrorInvalidValue if i is out of range or a size < 1.
 * The wgmma and TMA candidates return cudaErrorNotSupported for the shapes
 * they decline (n or k not a multiple of 4, A or B not 16-byte aligned, C
 * not 8-byte aligned), but for the TMA table's staging row
 * (tf32_tma_lean_staging, kernels/sgemm_tf32_tma.h), which takes every
 * shape; a stream-K FP32 candidate returns its refused
 * cooperative launch's error (no fallback: a candidate is what it says). */
#ifndef KERNELS_SEARCH_SGEMM_SEARCH_H
#define KERNELS_SEARCH_SGEMM_SEARCH_H

#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SGEMM_SEARCH_DECLARE(PREFIX)                                                               \
    int PREFIX##_search_count(void);                                                               \
    const char *PREFIX##_search_name(int i);                                                       \
    int PREFIX##_search_run(int i, const float *A, const float *B, float *C, int m, int n, int k,  \
                            cudaStream_t stream);
SGEMM_SEARCH_DECLARE(sgemm)
SGEMM_SEARCH_DECLARE(sgemm_tf32)
SGEMM_SEARCH_DECLARE(sgemm_tf32_wgmma)
SGEMM_SEARCH_DECLARE(sgemm_tf32_tma)
#undef SGEMM_SEARCH_DECLARE

#ifdef __cplusplus
}
#endif

#endif
