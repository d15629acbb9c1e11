/* kernels/attention.h: the launcher contract of the attention op (forward),
 * src/gpu/op_attention.c.
 *
 *   O = softmax(Q K^T * scale [+ causal mask]) V
 *
 * Layout BHSD, contiguous: Q and O are batch x heads x seq_q x head_dim, K and
 * V batch x heads x seq_kv x head_dim, each row of head_dim elements
 * contiguous (element (b, h, s, d) at ((b * heads + h) * seq + s) * head_dim
 * + d). Q, K, V and O hold elements of `type` (fp16 or bf16); the softmax
 * and both accumulations are FP32. scale is usually 1 / sqrt(head_dim).
 *
 * causal: query i (0-based) sees keys j <= i + (seq_kv - seq_q) (the mask
 * aligned to the bottom right, as FlashAttention-2 and cuDNN align it when
 * seq_q != seq_kv); with seq_q == seq_kv, j <= i. A query row that sees no
 * key (possible only when seq_q > seq_kv) gives a row of zeros.
 *
 * FLOPs (the op's rate): 4 * batch * heads * seq_q * seq_kv * head_dim (two
 * GEMMs of 2 * m * n * k each), halved when causal (about half the scores
 * are masked; the exact count of unmasked scores is not used, as FlashAttention
 * and cuDNN's published figures do).
 *
 * workspace: workspace_bytes of device memory the op allocates once per case
 * (for S in the naive and unfused forms; NULL when a launcher's
 * NAME_workspace says 0). Launchers must not allocate.
 *
 * A launcher enqueues its kernels on `s` and returns a cudaError_t as int;
 * NAME_supports says whether it takes the case (1), or declines it (0, with
 * the reason in why: head_dim, type, architecture, a size cap). */
#ifndef COMPARE_ATTENTION_H
#define COMPARE_ATTENTION_H

#include <stddef.h>
#include <cuda_runtime_api.h>

#include "elem_type.h"

typedef struct {
    const void *q, *k, *v; /* BHSD, read-only */
    void *o;               /* BHSD, batch x heads x seq_q x head_dim */
    long long batch, heads, seq_q, seq_kv, head_dim;
    int causal;            /* 0 or 1 */
    float scale;           /* multiplies Q K^T before the softmax */
    elem_type type;        /* ELEM_FP16 or ELEM_BF16 */
    void *workspace;       /* workspace_bytes, or NULL */
    size_t workspace_bytes;
} attention_args;

typedef int (*attention_launcher)(const attention_args *a, cudaStream_t s);

#ifdef __cplusplus
extern "C" {
#endif

/* The hand ladder (each launcher in its own file, its idea in the header):
 *   attention_naive  kernels/attention_naive.cu: S = Q K^T materialised in
 *                    FP32 in the workspace, a row softmax, then O = P V:
 *                    three kernels.
 *   attention_fa1    kernels/attention_fa1.cu: tiled over K/V with the online
 *                    softmax, one block per (batch, head, q tile), mma.sync.
 *   attention_fa2    kernels/attention_fa2.cu: warps split the q tile, the
 *                    softmax in registers, one rescale per K/V tile, ldmatrix.
 *   attention_fa3    kernels/attention_fa3.cu: Hopper (sm_90a): TMA loads of
 *                    Q, K, V through an mbarrier ring from a producer warp,
 *                    wgmma for Q K^T and P V, consumer warpgroups in
 *                    ping-pong (three at head_dim 64, two at 128 and 256);
 *                    head_dim 64, 128 and 256 (128 x 80 tiles), declined
 *                    off sm_90; its workspace (FP32 partials of the last
 *                    round's work tiles split over idle SMs) is optional:
 *                    without it (NULL) the last round runs unsplit.
 * supports: 1 or 0 with the reason in why. workspace: the bytes the launcher
 * needs for this case (0: none). */
int attention_naive(const attention_args *a, cudaStream_t s);
int attention_naive_supports(const attention_args *a, char *why, size_t why_len);
size_t attention_naive_workspace(const attention_args *a);

int attention_fa1(const attention_args *a, cudaStream_t s);
int attention_fa1_supports(const attention_args *a, char *why, size_t why_len);

int attention_fa2(const attention_args *a, cudaStream_t s);
int attention_fa2_supports(const attention_args *a, char *why, size_t why_len);

int attention_fa3(const attention_args *a, cudaStream_t s);
int attention_fa3_supports(const attention_args *a, char *why, size_t why_len);
size_t attention_fa3_workspace(const attention_args *a);
int attention_fa3_tail_split(const attention_args *a); /* the chunks a tail work tile (0: no split) */

#ifdef __cplusplus
}
#endif

#endif
