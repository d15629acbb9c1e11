#include "check.h"

#include <stdio.h>

static _Thread_local cudaError_t check_last_err = cudaSuccess;

void check_clear(void)
{
    status_clear();
    check_last_err = cudaSuccess;
}

cudaError_t check_last_cuda_error(void) { return check_last_err; }

int check_cuda_status(cudaError_t e, const char *call, const char *file, int line)
{
    if (e == cudaSuccess) return 0;
    check_last_err = e;
    status_set_message("%s failed: %s (%s) at %s:%d", call, cudaGetErrorName(e),
                      cudaGetErrorString(e), file, line);
    return 1;
}

int check_cublas_status(cublasStatus_t e, const char *call, const char *file, int line)
{
    if (e == CUBLAS_STATUS_SUCCESS) return 0;
    status_set_message("%s failed: %s (%s) at %s:%d", call, cublasGetStatusName(e),
                      cublasGetStatusString(e), file, line);
    return 1;
}

static const char *curand_status_name(curandStatus_t e)
{
    switch (e) {
    case CURAND_STATUS_SUCCESS: return "CURAND_STATUS_SUCCESS";
    case CURAND_STATUS_VERSION_MISMATCH: return "CURAND_STATUS_VERSION_MISMATCH";
    case CURAND_STATUS_NOT_INITIALIZED: return "CURAND_STATUS_NOT_INITIALIZED";
    case CURAND_STATUS_ALLOCATION_FAILED: return "CURAND_STATUS_ALLOCATION_FAILED";
    case CURAND_STATUS_TYPE_ERROR: return "CURAND_STATUS_TYPE_ERROR";
    case CURAND_STATUS_OUT_OF_RANGE: return "CURAND_STATUS_OUT_OF_RANGE";
    case CURAND_STATUS_LENGTH_NOT_MULTIPLE: return "CURAND_STATUS_LENGTH_NOT_MULTIPLE";
    case CURAND_STATUS_DOUBLE_PRECISION_REQUIRED: return "CURAND_STATUS_DOUBLE_PRECISION_REQUIRED";
    case CURAND_STATUS_LAUNCH_FAILURE: return "CURAND_STATUS_LAUNCH_FAILURE";
    case CURAND_STATUS_PREEXISTING_FAILURE: return "CURAND_STATUS_PREEXISTING_FAILURE";
    case CURAND_STATUS_INITIALIZATION_FAILED: return "CURAND_STATUS_INITIALIZATION_FAILED";
    case CURAND_STATUS_ARCH_MISMATCH: return "CURAND_STATUS_ARCH_MISMATCH";
    case CURAND_STATUS_INTERNAL_ERROR: return "CURAND_STATUS_INTERNAL_ERROR";
    }
    return "CURAND_STATUS_UNKNOWN";
}

int check_curand_status(curandStatus_t e, const char *call, const char *file, int line)
{
    if (e == CURAND_STATUS_SUCCESS) return 0;
    status_set_message("%s failed: %s at %s:%d", call, curand_status_name(e), file, line);
    return 1;
}

int check_is_sticky(cudaError_t e)
{
    switch (e) {
    case cudaErrorIllegalAddress:
    case cudaErrorLaunchFailure:
    case cudaErrorMisalignedAddress:
    case cudaErrorIllegalInstruction:
    case cudaErrorInvalidAddressSpace:
    case cudaErrorInvalidPc:
    case cudaErrorHardwareStackError:
    case cudaErrorAssert:
    case cudaErrorLaunchTimeout:
    case cudaErrorECCUncorrectable:
    case cudaErrorUnknown:
        return 1;
    default:
        return 0;
    }
}
