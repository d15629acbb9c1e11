/* baselines/blas_gemv.h: the gemv op's cuBLAS rows, y = A x with A m x k
 * row-major, in fp32, fp16 or bf16 (FP32 compute, the output in the type).
 *
 * cuBLAS is column-major: row-major A (m x k) is, read column-major, A^T
 * (k x m, leading dimension k), so y = A x is op(A^T) = (A^T)^T: trans =
 * CUBLAS_OP_T over a k x m matrix, lda = k. Two ways per type:
 *   blas_gemv         the GEMV routines: cublasSgemv (fp32), and, cuBLAS
 *                     having no half GEMV of its own, the batched mixed ones
 *                     with batch 1: cublasHSHgemvStridedBatched (fp16 in and
 *                     out, FP32 compute), cublasTSTgemvStridedBatched (bf16)
 *   blas_gemv_gemmex  cublasGemmEx with n = 1, CUBLAS_COMPUTE_32F, the
 *                     matrix product's own heuristics
 * Both call with CUBLAS_DEFAULT_MATH | CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION:
 * no TF32 for fp32 (another row may have left the handle in TF32 mode) and
 * no split-k reduction in the half output type, the op's contract being
 * FP32 accumulation; the handle's mode is set back right after the call. The 64-bit entry points (CUDA 12+) take any m, k.
 * Each returns a status_t; a failure is recorded by check.h. */
#ifndef BASELINES_BLAS_GEMV_H
#define BASELINES_BLAS_GEMV_H

#include <cublas_v2.h>

#include "elem_type.h"

int blas_gemv(cublasHandle_t h, elem_type t, const void *A, const void *x, void *y, long long m, long long k);
int blas_gemv_gemmex(cublasHandle_t h, elem_type t, const void *A, const void *x, void *y, long long m, long long k);

#endif
