/* baselines/attention_cublas.c: the cublas_unfused row of the attention op
 * (attention_cublas.h says what it is and what memory it needs). Row-major
 * BHSD tensors seen by column-major cuBLAS: S^T = K Q^T (K op T, lda
 * head_dim) and O^T = V^T P^T (no transposes), so no copy is made. */
#include "attention_cublas.h"

#include <stdio.h>

#include "attention_unfused.h"
#include "check.h"
#include "kernel_ran.h"
#include "rowwise.h"
#include "softmax.h"

size_t attention_cublas_pair_bytes(const attention_args *a)
{
    return (size_t)(a->seq_q * a->seq_kv) * (sizeof(float) + 2);
}

size_t attention_cublas_workspace(const attention_args *a)
{
    const size_t per = attention_cublas_pair_bytes(a), all = per * (size_t)(a->batch * a->heads);
    if (per > ATTENTION_CUBLAS_CHUNK_BYTES) return 0;
    return all < ATTENTION_CUBLAS_CHUNK_BYTES ? all : ATTENTION_CUBLAS_CHUNK_BYTES / per * per;
}

int attention_cublas_supports(const attention_args *a, char *why, size_t why_len)
{
    if (a->type != ELEM_FP16 && a->type != ELEM_BF16) {
        snprintf(why, why_len, "cublas_unfused takes fp16 and bf16 only");
        return 0;
    }
    if (attention_cublas_pair_bytes(a) > ATTENTION_CUBLAS_CHUNK_BYTES) {
        snprintf(why, why_len,
                 "S (FP32) and P of one (batch, head) need %.2f GiB, more than the row's workspace cap of %.0f GiB",
                 attention_cublas_pair_bytes(a) / 1073741824.0, ATTENTION_CUBLAS_CHUNK_BYTES / 1073741824.0);
        return 0;
    }
    return 1;
}

/* one group of g pairs starting at pair p0 */
static int attention_cublas_group(cublasHandle_t h, const attention_args *a, long long p0, long long g, float *S,
                                  void *P, cudaStream_t s)
{
    const cudaDataType_t t = a->type == ELEM_FP16 ? CUDA_R_16F : CUDA_R_16BF;
    const long long sq = a->seq_q, skv = a->seq_kv, d = a->head_dim;
    const size_t eb = 2; /* fp16 and bf16 */
    const char *q = (const char *)a->q + (size_t)(p0 * sq * d) * eb, *k = (const char *)a->k + (size_t)(p0 * skv * d) * eb;
    const char *v = (const char *)a->v + (size_t)(p0 * skv * d) * eb;
    char *o = (char *)a->o + (size_t)(p0 * sq * d) * eb;
    const float zero = 0.0f, one = 1.0f, scale = a->scale;
    /* S (skv x sq column-major per pair) = K^T' Q' */
    CK_CUBLAS(cublasGemmStridedBatchedEx(h, CUBLAS_OP_T, CUBLAS_OP_N, (int)skv, (int)sq, (int)d, &scale, k, t, (int)d,
                                         skv * d, q, t, (int)d, sq * d, &zero, S, CUDA_R_32F, (int)skv, sq * skv,
                                         (int)g, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
    if (a->causal) CK_LAUNCH(attention_unfused_mask(S, g, sq, skv, s));
    const rowwise_args sm = {S, S, NULL, NULL, g * sq, skv, ELEM_FP32, 0.0f};
    CK_LAUNCH(softmax_fused(&sm, s));
    CK_LAUNCH(attention_unfused_round(S, P, a->type, g, sq, skv, a->causal, s));
    /* O (d x sq column-major per pair) = V' P' */
    CK_CUBLAS(cublasGemmStridedBatchedEx(h, CUBLAS_OP_N, CUBLAS_OP_N, (int)d, (int)sq, (int)skv, &one, v, t, (int)d,
                                         skv * d, P, t, (int)skv, sq * skv, &zero, o, t, (int)d, sq * d, (int)g,
                                         CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
    return STATUS_OK;
}

int attention_cublas_run(cublasHandle_t h, const attention_args *a, cudaStream_t s)
{
    const long long pairs = a->batch * a->heads;
    const size_t per = attention_cublas_pair_bytes(a);
    long long group = per ? (long long)(a->workspace_bytes / per) : 0;
    if (group < 1 || !a->workspace) {
        status_set_message("cublas_unfused: workspace of %zu bytes holds no (batch, head) pair (%zu bytes)",
                           a->workspace_bytes, per);
        return STATUS_ERROR;
    }
    if (group > pairs) group = pairs;
    float *S = (float *)a->workspace;
    void *P = (char *)a->workspace + (size_t)group * (size_t)(a->seq_q * a->seq_kv) * sizeof(float);
    CK_CUBLAS(cublasSetMathMode(h, CUBLAS_DEFAULT_MATH)); /* the handle is shared with sgemm's TF32 row */
    for (long long p0 = 0; p0 < pairs; p0 += group) {
        const int st = attention_cublas_group(h, a, p0, pairs - p0 < group ? pairs - p0 : group, S, P, s);
        if (st != STATUS_OK) return st;
    }
    /* `kernel`: the softmax's form (softmax_fused noted it, with any
     * fallback reason) and the grouping */
    static _Thread_local char name[128];
    const char *sm = kernel_ran_name();
    snprintf(name, sizeof name, "cublasGemmStridedBatchedEx x2 + %s, %lld group%s of <= %lld (batch, head) pairs",
             sm ? sm : "softmax_fused", (pairs + group - 1) / group, (pairs + group - 1) / group > 1 ? "s" : "",
             group);
    kernel_ran_note(name, kernel_ran_reason());
    return STATUS_OK;
}
