/* kernels/softmax.h: the softmax ladder's launchers (kernels/softmax*.cu),
 * called by src/gpu/op_softmax.c. The contract (layout, types, formula,
 * return value) is kernels/rowwise.h's; each rung's idea and memory traffic
 * is in its .cu header.
 *
 *   softmax_naive    exp(x) / sum exp(x), no max: overflows on wide inputs
 *   softmax_safe     three passes: max, sum of exp(x - max), normalise
 *   softmax_online   two passes: running max and rescaled sum in one, then
 *                    the normalise (Milakov & Gimelshein, 2018)
 *   softmax_fused    one read, one write: the row on chip (warp, block or, on
 *                    sm_90, cluster per row, chosen by cols)
 *   softmax_cluster  a thread-block cluster per row, distributed shared
 *                    memory; sm_90 and later only (the op file declines it
 *                    elsewhere) */
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
