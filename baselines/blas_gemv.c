/* baselines/blas_gemv.c: the gemv op's cuBLAS calls (blas_gemv.h says which
 * and why). */
#include "blas_gemv.h"

#include <stdint.h>

#include "check.h"

/* cublas_api.h declares the half GEMVs for C++ only (their element types,
 * __half and __nv_bfloat16, are C++ classes); the functions themselves are
 * extern "C" and take plain pointers, so C declares them here with the
 * header's parameters and `void *` for the element pointers. */
cublasStatus_t CUBLASWINAPI cublasHSHgemvStridedBatched_64(cublasHandle_t handle, cublasOperation_t trans, int64_t m,
                                                           int64_t n, const float *alpha, const void *A, int64_t lda,
                                                           long long int strideA, const void *x, int64_t incx,
                                                           long long int stridex, const float *beta, void *y,
                                                           int64_t incy, long long int stridey, int64_t batchCount);
cublasStatus_t CUBLASWINAPI cublasTSTgemvStridedBatched_64(cublasHandle_t handle, cublasOperation_t trans, int64_t m,
                                                           int64_t n, const float *alpha, const void *A, int64_t lda,
                                                           long long int strideA, const void *x, int64_t incx,
                                                           long long int stridex, const float *beta, void *y,
                                                           int64_t incy, long long int stridey, int64_t batchCount);

/* Sets the rows' math mode on the shared handle, the one it had in *prev
 * (restored by blas_gemv_restore once the call is enqueued: the mode is read
 * when a routine is called, and the handle's other users keep theirs). */
static int blas_gemv_math(cublasHandle_t h, cublasMath_t *prev)
{
    CK_CUBLAS(cublasGetMathMode(h, prev));
    CK_CUBLAS(cublasSetMathMode(
        h, (cublasMath_t)(CUBLAS_DEFAULT_MATH | CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION)));
    return STATUS_OK;
}

/* st, after the handle's math mode is set back to prev (a failure to do so
 * is an error of its own) */
static int blas_gemv_restore(cublasHandle_t h, cublasMath_t prev, int st)
{
    CK_CUBLAS(cublasSetMathMode(h, prev));
    return st;
}

/* one call: the status of the routine, the mode restored either way */
#define BLAS_GEMV_CALL(h, prev, call)                                                                             \
    blas_gemv_restore(h, prev, check_cublas_status((call), #call, __FILE__, __LINE__) ? STATUS_ERROR : STATUS_OK)

int blas_gemv(cublasHandle_t h, elem_type t, const void *A, const void *x, void *y, long long m, long long k)
{
    const float one = 1.0f, zero = 0.0f;
    cublasMath_t prev;
    if (t != ELEM_FP32 && t != ELEM_FP16 && t != ELEM_BF16) {
        status_set_message("blas_gemv: element type %d is not fp32, fp16 or bf16", (int)t);
        return STATUS_ERROR;
    }
    if (blas_gemv_math(h, &prev)) return STATUS_ERROR;
    if (t == ELEM_FP32)
        return BLAS_GEMV_CALL(h, prev,
                              cublasSgemv_64(h, CUBLAS_OP_T, k, m, &one, (const float *)A, k, (const float *)x, 1,
                                             &zero, (float *)y, 1));
    if (t == ELEM_FP16)
        return BLAS_GEMV_CALL(h, prev,
                              cublasHSHgemvStridedBatched_64(h, CUBLAS_OP_T, k, m, &one, A, k, m * k, x, 1, k, &zero,
                                                             y, 1, m, 1));
    return BLAS_GEMV_CALL(h, prev,
                          cublasTSTgemvStridedBatched_64(h, CUBLAS_OP_T, k, m, &one, A, k, m * k, x, 1, k, &zero, y,
                                                         1, m, 1));
}

int blas_gemv_gemmex(cublasHandle_t h, elem_type t, const void *A, const void *x, void *y, long long m, long long k)
{
    const float one = 1.0f, zero = 0.0f;
    cudaDataType_t dt;
    switch (t) {
    case ELEM_FP32: dt = CUDA_R_32F; break;
    case ELEM_FP16: dt = CUDA_R_16F; break;
    case ELEM_BF16: dt = CUDA_R_16BF; break;
    default:
        status_set_message("blas_gemv_gemmex: element type %d is not fp32, fp16 or bf16", (int)t);
        return STATUS_ERROR;
    }
    cublasMath_t prev;
    if (blas_gemv_math(h, &prev)) return STATUS_ERROR;
    /* column-major C (m x 1) = op(A^T)^T (m x k) * x (k x 1): A^T is k x m, lda k */
    return BLAS_GEMV_CALL(h, prev,
                          cublasGemmEx_64(h, CUBLAS_OP_T, CUBLAS_OP_N, m, 1, k, &one, A, dt, k, x, dt, k, &zero, y,
                                          dt, m, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
}
