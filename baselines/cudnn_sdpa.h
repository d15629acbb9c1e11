/* baselines/cudnn_sdpa.h: the attention op's `cudnn_sdpa` library row,
 * cuDNN's fused flash attention forward (SDPA). The interface is FIXED (the
 * round's COMMON.md): src/gpu/op_attention.c calls it; helper attncudnn
 * writes baselines/cudnn_sdpa.c. Until that lands,
 * baselines/cudnn_sdpa_decline.c declines every case.
 *   supports   1, or 0 with the reason in why
 *   plan_make  builds (and caches in *out) the plan for a's sizes and
 *              buffers, outside every timed region
 *   plan_run   the timed call, on stream s
 *   plan_name  what the row's `kernel` says
 * status_t returns as baselines/cudnn_rows.h does; messages through
 * status.h. */
#ifndef BASELINES_CUDNN_SDPA_H
#define BASELINES_CUDNN_SDPA_H

#include <stddef.h>
#include <cuda_runtime_api.h>

#include "attention.h"

typedef struct cudnn_sdpa_plan cudnn_sdpa_plan;

int cudnn_sdpa_supports(const attention_args *a, char *why, size_t why_len);   /* 1 or 0+why */
int cudnn_sdpa_plan_make(cudnn_sdpa_plan **out, const attention_args *a, cudaStream_t s);
int cudnn_sdpa_plan_run(const cudnn_sdpa_plan *p, cudaStream_t s);   /* the timed call */
const char *cudnn_sdpa_plan_name(const cudnn_sdpa_plan *p);        /* for `kernel` */
void cudnn_sdpa_plan_free(cudnn_sdpa_plan *p);

#endif
