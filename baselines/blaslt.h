/* baselines/blaslt.h: cuBLASLt at its best for a row-major FP32/TF32 GEMM.
 *
 * cublasSgemm runs the algorithm cuBLAS's own heuristic picks first. The
 * library can do better on a given shape: cublasLtMatmulAlgoGetHeuristic
 * returns up to BLASLT_CANDIDATES algorithms, and timing each once on the
 * real operands, outside the timed region, finds the fastest. That is what a
 * user who tunes cuBLASLt gets (cutlass_profiler and PyTorch's
 * TunableOp do the same), so it is the library row a hand kernel must beat.
 *
 * A plan holds the descriptors and the pick; blaslt_plan_pick makes it (it
 * runs every candidate, so it writes C: callers poison C again after it),
 * blaslt_plan_run enqueues the pick, blaslt_plan_free releases it. */
#ifndef BASELINES_BLASLT_H
#define BASELINES_BLASLT_H

#include <stddef.h>
#include <cublasLt.h>
#include <cuda_runtime_api.h>

#define BLASLT_CANDIDATES 8

typedef struct {
    int made;                       /* descriptors exist */
    int picked;                     /* algo holds the fastest candidate */
    int m, n, k, tf32;
    cublasLtMatmulDesc_t op;
    cublasLtMatrixLayout_t la, lb, lc; /* the column-major view: C^T = B^T A^T */
    cublasLtMatmulAlgo_t algo;
    size_t workspace_bytes;         /* what the pick may use (the row's workspace) */
    char name[96];                  /* "cublasLt algo 21 tile 18 stages 9 splitk 1 ... (best of 8)" */
} blaslt_plan;

/* The workspace each candidate may use (the row's workspace). */
#define BLASLT_WORKSPACE_BYTES ((size_t)32 << 20)

/* Makes the plan for C (m x n) = A (m x k) * B (k x n), row-major, FP32
 * (tf32 = 0: CUBLAS_COMPUTE_32F) or TF32 tensor cores (1:
 * CUBLAS_COMPUTE_32F_FAST_TF32), asks the heuristic for its candidates and
 * times each (a warm-up, then BLASLT_TRIALS runs, their median) on s with
 * workspace ws (ws_bytes). Returns a status_t; C holds a candidate's result
 * afterwards. */
int blaslt_plan_pick(blaslt_plan *p, cublasLtHandle_t h, const float *A, const float *B, float *C, int m, int n,
                     int k, int tf32, void *ws, size_t ws_bytes, cudaStream_t s);
/* Enqueues the picked algorithm on s. Returns a status_t. */
int blaslt_plan_run(const blaslt_plan *p, cublasLtHandle_t h, const float *A, const float *B, float *C, void *ws,
                    cudaStream_t s);
void blaslt_plan_free(blaslt_plan *p);

#endif
