/* kernels/norms.h: the RMSNorm and LayerNorm ladders' launchers
 * (kernels/rmsnorm*.cu, kernels/layernorm*.cu), called by
 * src/gpu/op_rmsnorm.c and op_layernorm.c. The contract (layout, types,
 * formulas, weight/bias/eps, return value) is kernels/rowwise.h's; each
 * rung's idea and memory traffic is in its .cu header.
 *
 *   *_naive    a thread per row
 *   *_warp     a warp per row, vector loads
 *   *_block    a block per row (layernorm: Welford or two-pass, its header
 *              says which and why)
 *   *_fused    the fastest form for the case's cols, the row held on chip
 *   *_cluster  a thread-block cluster per row, distributed shared memory;
 *              sm_90 and later only (the op files decline it elsewhere) */
#ifndef KERNELS_NORMS_H
#define KERNELS_NORMS_H

#include "rowwise.h"

#ifdef __cplusplus
extern "C" {
#endif

int rmsnorm_naive(const rowwise_args *a, cudaStream_t s);
int rmsnorm_warp(const rowwise_args *a, cudaStream_t s);
int rmsnorm_block(const rowwise_args *a, cudaStream_t s);
int rmsnorm_fused(const rowwise_args *a, cudaStream_t s);
int rmsnorm_cluster(const rowwise_args *a, cudaStream_t s);

int layernorm_naive(const rowwise_args *a, cudaStream_t s);
int layernorm_warp(const rowwise_args *a, cudaStream_t s);
int layernorm_block(const rowwise_args *a, cudaStream_t s);
int layernorm_fused(const rowwise_args *a, cudaStream_t s);
int layernorm_cluster(const rowwise_args *a, cudaStream_t s);

#ifdef __cplusplus
}
#endif

#endif
