/* src/gpu/transfer_kernel.h: the kernel of the transfer op's round trip. */
#ifndef COMPARE_TRANSFER_KERNEL_H
#define COMPARE_TRANSFER_KERNEL_H

#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/* x[i] = 2 x[i] + 1 for i < n, on `stream`; returns the launch's cudaError_t. */
int transfer_affine(float *x, long long n, cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif
