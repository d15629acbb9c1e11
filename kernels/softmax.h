/* kernels/softmax.h: the hand softmax launchers (kernels/softmax*.cu), the
 * rows of op softmax. The contract (x, y, rows, cols, type; any rows >= 1,
 * cols >= 1; fp32, fp16, bf16) is kernels/rowwise.h's. */
#ifndef KERNELS_SOFTMAX_H
#define KERNELS_SOFTMAX_H

#include "rowwise.h"

#ifdef __cplusplus
extern "C" {
#endif

int softmax_naive(const rowwise_args *a, cudaStream_t s);
int softmax_safe(const rowwise_args *a, cudaStream_t s);
int softmax_online(const rowwise_args *a, cudaStream_t s);
int softmax_fused(const rowwise_args *a, cudaStream_t s);
int softmax_cluster(const rowwise_args *a, cudaStream_t s);

#ifdef __cplusplus
}
#endif

#endif
