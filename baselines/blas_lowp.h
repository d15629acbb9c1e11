/* baselines/blas_lowp.h: the cuBLAS calls of the low-precision GEMM op
 * (src/gpu/op_gemm.c), row-major like baselines/blas.h, with B in either
 * layout of kernels/gemm_lowp.h: b_kmajor 1, B n x k row-major ("tn", the
 * weight layout of y = x W^T); 0, B k x n row-major ("nn", sgemm's). */
#ifndef BASELINES_BLAS_LOWP_H
#define BASELINES_BLAS_LOWP_H

#include <cublas_v2.h>
#include <library_types.h>

/* C = A B through cublasGemmEx with CUBLAS_COMPUTE_32F (FP32 accumulation,
 * alpha 1, beta 0, CUBLAS_GEMM_DEFAULT), A and B of type ab, C of type c
 * (CUDA_R_16F or CUDA_R_16BF; cublasGemmEx takes no FP8). Returns a status_t. */
int blas_gemm_ex(cublasHandle_t h, const void *A, const void *B, void *C, cudaDataType_t ab, cudaDataType_t c,
                 int m, int n, int k, int b_kmajor);
/* The FP64 reference: C = A B in double, B in either layout. */
int blas_dgemm_layout(cublasHandle_t h, const double *A, const double *B, double *C, int m, int n, int k,
                      int b_kmajor);

#endif
