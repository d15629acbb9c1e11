/* baselines/attention_cublas.h: the attention op's `cublas_unfused` library
 * row: what a user without a fused kernel gets from CUDA's libraries, the
 * formula of kernels/attention.h in three library steps with S materialised:
 *   1. S = scale * Q K^T: cublasGemmStridedBatchedEx, inputs in the type,
 *      CUBLAS_COMPUTE_32F, S in FP32 (CUDA_R_32F), one batch entry per
 *      (batch, head);
 *   2. causal only: the mask written into S (src/gpu/attention_unfused.h);
 *      the row softmax of S in place by the project's best hand softmax,
 *      softmax_fused (kernels/softmax.h: FP32 rows of seq_kv); P = S
 *      rounded to the type (the rows that see no key: zeros);
 *   3. O = P V: cublasGemmStridedBatchedEx, P and V in the type,
 *      CUBLAS_COMPUTE_32F, O in the type.
 * Memory: S (4 bytes) and P (2 bytes) per score, 6 seq_q seq_kv bytes per
 * (batch, head), held for a group of (batch, head) pairs at a time in the
 * case's workspace (at most ATTENTION_CUBLAS_CHUNK_BYTES, at least one
 * pair; the groups run one after another on the stream). A case whose one
 * (batch, head) needs more is declined with the bytes in the reason. */
#ifndef BASELINES_ATTENTION_CUBLAS_H
#define BASELINES_ATTENTION_CUBLAS_H

#include <stddef.h>
#include <cublas_v2.h>

#include "attention.h"

#define ATTENTION_CUBLAS_CHUNK_BYTES ((size_t)4 << 30)

/* Bytes of S and P for one (batch, head). */
size_t attention_cublas_pair_bytes(const attention_args *a);
/* The workspace the row needs: S and P of as many (batch, head) pairs as
 * fit in the cap (all of them when they do); 0 when one pair does not. */
size_t attention_cublas_workspace(const attention_args *a);
/* 1, or 0 with the reason (a type other than fp16 / bf16, one pair over the cap). */
int attention_cublas_supports(const attention_args *a, char *why, size_t why_len);
/* The timed call: enqueues every step on the handle's stream s (h must be
 * bound to s); a->workspace holds a->workspace_bytes (>= one pair). Returns
 * a status_t, the failed call's message through status.h. */
int attention_cublas_run(cublasHandle_t h, const attention_args *a, cudaStream_t s);

#endif
