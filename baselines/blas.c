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

/* Row-major in (m x n) read column-major is in^T (n x m, leading dimension n);
 * row-major out (n x m) read column-major is out^T (m x n, leading dimension
 * m). out = in^T means out^T = in = (in^T)^T: geam with op(A) = A^T of the
 * column-major view of in, an m x n result, lda = n, ldc = m. With beta = 0
 * the B term adds nothing; B is in again (transb = T, ldb = n, the same valid
 * m x n operand), so even a B that were read would be finite input, never
 * the (poisoned) output. */
int blas_transpose(cublasHandle_t h, const float *in, float *out, int m, int n)
{
    const float one = 1.0f, zero = 0.0f;
    CK_CUBLAS(cublasSgeam(h, CUBLAS_OP_T, CUBLAS_OP_T, m, n, &one, in, n, &zero, in, n, out, m));
    return 0;
}
