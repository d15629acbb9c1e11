/* src/gpu/check.h: status codes and the checks around every CUDA, cuBLAS and
 * cuRAND call. A failed check records "call failed: reason (file:line)" in
 * the caller-visible message buffer (status_message()) and makes the enclosing
 * function return STATUS_ERROR; the harness adds the variant's name. */
#ifndef COMPARE_CHECK_H
#define COMPARE_CHECK_H

#include <stddef.h>
#include <cuda_runtime_api.h>
#include <cublas_v2.h>
#include <curand.h>

#include "status.h"

/* Each returns 0 when the status is success, else records the message and returns 1. */
int check_cuda_status(cudaError_t e, const char *call, const char *file, int line);
int check_cublas_status(cublasStatus_t e, const char *call, const char *file, int line);
int check_curand_status(curandStatus_t e, const char *call, const char *file, int line);
/* Forgets the message (status.h) and the last CUDA error. */
void check_clear(void);
/* Last CUDA error code recorded by check_cuda_status (cudaSuccess if none). */
cudaError_t check_last_cuda_error(void);
/* 1 if e leaves the context unusable (illegal address, launch failure, ...). */
int check_is_sticky(cudaError_t e);

#define CK_CUDA(call)                                                           \
    do {                                                                        \
        if (check_cuda_status((call), #call, __FILE__, __LINE__)) return STATUS_ERROR; \
    } while (0)
#define CK_CUBLAS(call)                                                         \
    do {                                                                        \
        if (check_cublas_status((call), #call, __FILE__, __LINE__)) return STATUS_ERROR; \
    } while (0)
#define CK_CURAND(call)                                                         \
    do {                                                                        \
        if (check_curand_status((call), #call, __FILE__, __LINE__)) return STATUS_ERROR; \
    } while (0)
/* After a kernel launch through a launcher that returns its cudaError_t. */
#define CK_LAUNCH(expr) CK_CUDA((cudaError_t)(expr))

#endif
