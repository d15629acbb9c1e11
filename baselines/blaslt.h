/* baselines/blaslt.h: cuBLASLt at its best for a row-major GEMM, in FP32 /
 * TF32 (sgemm) and in fp16, bf16 and fp8_e4m3 (gemm), one implementation.
 *
 * cublasSgemm / cublasGemmEx run the algorithm cuBLAS's own heuristic picks
 * first. The library can do better on a given shape:
 * cublasLtMatmulAlgoGetHeuristic returns up to BLASLT_CANDIDATES
 * algorithms, and timing each once on the real operands, outside the timed
 * region, finds the fastest. That is what a user who tunes cuBLASLt gets
 * (cutlass_profiler and PyTorch's TunableOp do the same), so it is the
 * library row a hand kernel must beat. Asked for one candidate, a plan is the
 * heuristic's first algorithm, untimed (the plain cublasLtMatmul row).
 *
 * Row-major C = A B is column-major C^T = B^T A^T: the first cuBLASLt
 * operand is B, the second A. B stored k x n row-major (layout "nn", sgemm's)
 * is the column-major n x k matrix, op N; B stored n x k row-major (K-major,
 * layout "tn") is the column-major k x n matrix, op T. FP8 runs only in the
 * second form ("TN" in cuBLAS's terms: the first operand transposed, the
 * second not), with per-tensor scales of 1 (cuBLASLt's default: no
 * CUBLASLT_MATMUL_DESC_{A,B}_SCALE_POINTER set, see blaslt.c) and D in bf16.
 *
 * A plan holds the descriptors and the pick; blaslt_plan_pick_gemm makes it
 * (with more than one candidate it runs every one, so it writes C: callers
 * poison C again after it), blaslt_plan_run enqueues the pick,
 * blaslt_plan_free releases it. */
#ifndef BASELINES_BLASLT_H
#define BASELINES_BLASLT_H

#include <stddef.h>
#include <cublasLt.h>
#include <cuda_runtime_api.h>

#define BLASLT_CANDIDATES 8

/* One GEMM as cuBLASLt sees it (row-major C (m x n) = A (m x k) B). */
typedef struct {
    int m, n, k;
    cudaDataType_t ab_type;          /* A's and B's type: CUDA_R_32F, _16F, _16BF, _8F_E4M3 */
    cudaDataType_t c_type;           /* C's (and D's) type */
    cublasComputeType_t compute;     /* CUBLAS_COMPUTE_32F, or _32F_FAST_TF32 */
    int b_kmajor;                    /* 1: B n x k row-major ("tn"); 0: B k x n row-major ("nn") */
} blaslt_gemm;

typedef struct {
    int made;                       /* descriptors exist */
    int picked;                     /* algo holds the chosen candidate */
    blaslt_gemm g;
    cublasLtMatmulDesc_t op;
    cublasLtMatrixLayout_t la, lb, lc; /* the column-major view: C^T = B^T A^T */
    cublasLtMatmulAlgo_t algo;
    size_t workspace_bytes;         /* what the pick may use (the row's workspace) */
    char name[96];                  /* "cublasLt algo 21 tile 18 stages 9 splitk 1 ... (fastest of 8)" */
} blaslt_plan;

/* The workspace each candidate may use (the row's workspace). */
#define BLASLT_WORKSPACE_BYTES ((size_t)32 << 20)

/* Makes the plan for g, asks the heuristic for up to `candidates` (1 ..
 * BLASLT_CANDIDATES) algorithms that fit ws_bytes of workspace and keeps the
 * first (candidates 1) or the fastest of them, each timed on s with
 * workspace ws (a warm-up, then BLASLT_TRIALS runs, their median). Returns a
 * status_t (STATUS_ERROR with a message when the heuristic offers none that
 * runs); C holds a candidate's result afterwards when candidates > 1. */
int blaslt_plan_pick_gemm(blaslt_plan *p, cublasLtHandle_t h, const blaslt_gemm *g, const void *A, const void *B,
                          void *C, int candidates, void *ws, size_t ws_bytes, cudaStream_t s);
/* sgemm's form: FP32 row-major, B k x n (tf32 = 0: CUBLAS_COMPUTE_32F, 1:
 * CUBLAS_COMPUTE_32F_FAST_TF32), the fastest of BLASLT_CANDIDATES. */
int blaslt_plan_pick(blaslt_plan *p, cublasLtHandle_t h, const float *A, const float *B, float *C, int m, int n,
                     int k, int tf32, void *ws, size_t ws_bytes, cudaStream_t s);
/* Enqueues the picked algorithm on s. Returns a status_t. */
int blaslt_plan_run(const blaslt_plan *p, cublasLtHandle_t h, const void *A, const void *B, void *C, void *ws,
                    cudaStream_t s);
void blaslt_plan_free(blaslt_plan *p);

#endif
