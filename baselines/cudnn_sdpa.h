/* baselines/cudnn_sdpa.h: cuDNN's fused attention forward, the library row
 * `cudnn_sdpa` of the attention op (kernels/attention.h's contract: BHSD
 * contiguous, fp16/bf16, FP32 softmax and accumulation, causal mask aligned
 * bottom-right, scale), through the graph (backend) API in C, cuDNN loaded
 * at run time (cudnn_lib.h). Two graphs, each a "form":
 *   sdpa op    one CUDNN_BACKEND_OPERATION_SDPA_FWD_DESCRIPTOR node (Q, K, V,
 *              O, the scale as a by-value FP32 scalar, no stats: inference);
 *              cuDNN 9.13.1 or newer, non-causal only (its mask needs the
 *              op's score subgraph, cuDNN 9.21);
 *   fused      the fused flash-attention graph cuDNN's runtime-fusion engines
 *              recognise, as cudnn-frontend's composite SDPA node lowers it:
 *              matmul Q K^T -> pointwise scale -> [causal: gen-index row and
 *              column, row + (seq_kv - seq_q) >= column, binary select of the
 *              lowest float] -> max, sub, exp, sum, div (the softmax; log and
 *              add give the virtual stats) -> matmul with V.
 * Every configuration of heuristic A and FALLBACK (the first 8 each,
 * FALLBACK's repeats of A's engines dropped) of both forms whose execution
 * plan finalizes is timed on the case's buffers when the plan is made (one
 * warm-up, the median of 5 executions between CUDA events); the fastest is
 * kept and named in `kernel`. COMPARE_CUDNN_VERBOSE=1 prints each form's
 * decline and each candidate's time on stderr.
 * The plan (descriptors, heuristics, execution plans, the candidates'
 * timing, the workspace, the variant pack with the case's pointers) is made
 * once per case outside every timed region; only cudnnBackendExecute is
 * timed. Every cuDNN call is checked; a failure names the call, cuDNN's
 * status string and its last error message. Without cuDNN (no headers at
 * build time, no library at run time) every entry declines with
 * cudnn_lib_available's text. */
#ifndef BASELINES_CUDNN_SDPA_H
#define BASELINES_CUDNN_SDPA_H

#include <stddef.h>
#include <cuda_runtime_api.h>

#include "attention.h"

typedef struct cudnn_sdpa_plan cudnn_sdpa_plan;

/* Whether cuDNN takes the case: 1, or 0 with the SKIP text in why (cuDNN
 * missing; a type other than fp16/bf16; causal with seq_q > seq_kv, whose
 * rows that see no key cuDNN's mask does not give as zeros; "cuDNN declines
 * this case: " and cuDNN's reason when neither form has an engine). Builds
 * the graphs and one execution plan and drops them (nothing runs). An error
 * that is not a decline returns 1, so that the row runs and reports it. */
int cudnn_sdpa_supports(const attention_args *a, char *why, size_t why_len);
/* Makes the plan of a case over its buffers (a->q, k, v, o; a->workspace is
 * not used: cuDNN's workspace is the plan's own). The candidates run on s
 * here, writing a->o (the caller poisons o again before a checked run).
 * Returns a status_t (STATUS_ERROR with the message in status.h's buffer);
 * *out NULL on failure. */
int cudnn_sdpa_plan_make(cudnn_sdpa_plan **out, const attention_args *a, cudaStream_t s);
/* Enqueues the attention on s (the timed call). Returns a status_t. */
int cudnn_sdpa_plan_run(const cudnn_sdpa_plan *p, cudaStream_t s);
/* What ran, for the row's `kernel`: "cuDNN 9.14.0 SDPA forward engine 5, sdpa
 * op (heuristic A, fastest of 4)" or "..., fused graph (...)" (no count when
 * only one plan finalized); valid until the plan is freed. */
const char *cudnn_sdpa_plan_name(const cudnn_sdpa_plan *p);
void cudnn_sdpa_plan_free(cudnn_sdpa_plan *p);

#endif
