/* src/gpu/attention_unfused.h: the two small kernels of the cublas_unfused
 * library row (baselines/attention_cublas.h) around its GEMMs and cuBLAS-free
 * softmax: the causal mask written into S, and P = S rounded to the type.
 *
 * S is `pairs` blocks of seq_q x seq_kv floats (row-major). The mask sets
 * each score of key j > i + seq_kv - seq_q (kernels/attention.h's
 * bottom-right rule) to ATTENTION_UNFUSED_MASKED: a finite score far below
 * any real one, not -inf, because softmax_fused (kernels/softmax.h) takes
 * each thread's own max first, and a thread whose elements were all -inf
 * would compute exp(-inf - -inf). exp(ATTENTION_UNFUSED_MASKED - max) is 0 in
 * FP32 for any real max above -9900 (the op's scores are a few units; a model
 * whose scores reach -1e4 would need a lower value). The rounding writes
 * zeros for the rows that see no key (seq_q > seq_kv: their softmax is
 * uniform over masked scores). Each returns the launch's cudaError_t. */
#ifndef COMPARE_ATTENTION_UNFUSED_H
#define COMPARE_ATTENTION_UNFUSED_H

#include <cuda_runtime_api.h>

#include "elem_type.h"

#define ATTENTION_UNFUSED_MASKED (-1.0e4f)

#ifdef __cplusplus
extern "C" {
#endif

int attention_unfused_mask(float *S, long long pairs, long long seq_q, long long seq_kv, cudaStream_t stream);
/* P (type: ELEM_FP16 or ELEM_BF16) = S, rounded to nearest; rows i with
 * causal and i + seq_kv - seq_q < 0 are zeros. */
int attention_unfused_round(const float *S, void *P, elem_type type, long long pairs, long long seq_q,
                            long long seq_kv, int causal, cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif
