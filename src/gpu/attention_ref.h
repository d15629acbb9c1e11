/* src/gpu/attention_ref.h: the FP64 reference of the attention op
 * (kernels/attention.h's formula) over a sample of query rows, and the check
 * of an output against it, on the GPU.
 *
 * The reference reads the same stored Q, K, V as the kernels (fp16 or
 * bf16) and the same FP32 scale, and computes each checked row in double:
 * every visible score, their max, the row sum of exp(s - max), then each
 * output as sum_j p_j v_jc / sum. It records each checked row's scale
 * (the largest |v| over the keys it sees: src/core/verify_attention.h's
 * unit) and the largest scale * sum_c |q_c k_c| of its scores (the
 * tolerance's s_abs). Which rows: `rows` (count entries, the same for every
 * (batch, head): src/core/verify_attention.h's sample). Each block takes a
 * (batch, head, row) at a time and keeps the row's scores in its slice of
 * `scratch` (blocks x seq_kv doubles). Nothing here is timed. Each launcher
 * enqueues on `stream` and returns the launch's cudaError_t
 * (cudaErrorInvalidValue for a bad argument or type). */
#ifndef COMPARE_ATTENTION_REF_H
#define COMPARE_ATTENTION_REF_H

#include <cuda_runtime_api.h>

#include "attention.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The most blocks attention_ref runs (its scratch is blocks x seq_kv doubles). */
#define ATTENTION_REF_MAX_BLOCKS 1024

/* ref[(bh * count + r) * head_dim + c] and srow[bh * count + r] for every bh
 * in [0, batch * heads) and checked row r (query row rows[r], a device
 * array); a's q, k, v, sizes, causal, scale and type are read (o and the
 * workspace are not). *s_abs_bits (init 0) becomes the max with the bits of
 * s_abs (a non-negative double). */
int attention_ref(const attention_args *a, const long long *rows, long long count, double *ref, double *srow,
                  double *scratch, int blocks, unsigned long long *s_abs_bits, cudaStream_t stream);

/* The check of a->o against ref and srow: for each checked element
 * q = |o - ref| / srow (verify_attention_ratio);
 * result[0] += #checked elements with !(q <= tol) (NaN/Inf included),
 * result[1] = min such index into ref (init ~0ULL), result[2] = max q over
 * finite checked elements as the bits of a non-negative double (init 0),
 * result[3] += #non-finite elements of the WHOLE output. */
int attention_errors(const attention_args *a, const long long *rows, long long count, const double *ref,
                     const double *srow, double tol, unsigned long long *result, cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif
