#include "blas.h"

#include "check.h"

/* cuBLAS is column-major. A row-major matrix X (r x c) is, read column-major,
 * X^T (c x r) with leading dimension c. So row-major C = A*B is column-major
 * C^T = B^T * A^T: call gemm with the operands swapped (B first), m and n
 * swapped, and no transposes; the leading dimensions are the row lengths
 * n (B, C) and k (A). Written once, here, for both precisions. */

int blas_sgemm(cublasHandle_t h, const float *A, const float *B, float *C, int m, int n, int k, int tf32)
{
    const float one = 1.0f, zero = 0.0f;
    CK_CUBLAS(cublasSetMathMode(h, tf32 ? CUBLAS_TF32_TENSOR_OP_MATH : CUBLAS_DEFAULT_MATH));
    CK_CUBLAS(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &one, B, n, A, k, &zero, C, n));
    return 0;
}

int blas_dgemm(cublasHandle_t h, const double *A, const double *B, double *C, int m, int n, int k)
{
    const double one = 1.0, zero = 0.0;
    CK_CUBLAS(cublasSetMathMode(h, CUBLAS_DEFAULT_MATH));
    CK_CUBLAS(cublasDgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &one, B, n, A, k, &zero, C, n));
    return 0;
}
