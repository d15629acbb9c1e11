/* baselines/blas.h: cuBLAS calls with a row-major C interface. */
#ifndef BASELINES_BLAS_H
#define BASELINES_BLAS_H

#include <cublas_v2.h>

/* C = A * B in FP32, row-major (A m x k, B k x n, C m x n). tf32 = 0 sets
 * CUBLAS_DEFAULT_MATH (plain FP32), 1 sets CUBLAS_TF32_TENSOR_OP_MATH.
 * Returns a status_t; a failure is recorded by check.h. */
int blas_sgemm(cublasHandle_t h, const float *A, const float *B, float *C, int m, int n, int k, int tf32);
/* The FP64 reference: C = A * B in double, row-major. */
int blas_dgemm(cublasHandle_t h, const double *A, const double *B, double *C, int m, int n, int k);
/* out (n x m) = transpose of in (m x n), float, row-major, through
 * cublasSgeam (alpha = 1, beta = 0). Returns a status_t. */
int blas_transpose(cublasHandle_t h, const float *in, float *out, int m, int n);

#endif
