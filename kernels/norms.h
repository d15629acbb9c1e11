/* kernels/norms.h: the hand launchers of the norms, RMSNorm and LayerNorm
 * (kernels/rmsnorm.cu, kernels/layernorm.cu; shared machinery in
 * kernels/norm_common.cuh), each a rowwise_launcher (rowwise.h): it enqueues
 * its kernels on s and returns the launch's cudaError_t as int. */
#ifndef COMPARE_NORMS_H
#define COMPARE_NORMS_H

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
