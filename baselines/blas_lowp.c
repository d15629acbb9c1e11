/* baselines/blas_lowp.c: cublasGemmEx and the FP64 reference with B in
 * either layout (blas_lowp.h). Row-major C = A B is column-major
 * C^T = B^T A^T (baselines/blas.c): B first. B k x n row-major is the
 * column-major n x k matrix (op N, ld n); B n x k row-major is the
 * column-major k x n matrix, so op T with ld k gives the same n x k operand. */
#include "blas_lowp.h"

#include "check.h"

int blas_gemm_ex(cublasHandle_t h, const void *A, const void *B, void *C, cudaDataType_t ab, cudaDataType_t c,
                 int m, int n, int k, int b_kmajor)
{
    const float one = 1.0f, zero = 0.0f;
    CK_CUBLAS(cublasSetMathMode(h, CUBLAS_DEFAULT_MATH)); /* the handle is shared with sgemm's TF32 row */
    CK_CUBLAS(cublasGemmEx(h, b_kmajor ? CUBLAS_OP_T : CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &one, B, ab,
                           b_kmajor ? k : n, A, ab, k, &zero, C, c, n, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
    return 0;
}

int blas_dgemm_layout(cublasHandle_t h, const double *A, const double *B, double *C, int m, int n, int k,
                      int b_kmajor)
{
    const double one = 1.0, zero = 0.0;
    CK_CUBLAS(cublasSetMathMode(h, CUBLAS_DEFAULT_MATH));
    CK_CUBLAS(cublasDgemm(h, b_kmajor ? CUBLAS_OP_T : CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &one, B, b_kmajor ? k : n,
                          A, k, &zero, C, n));
    return 0;
}
