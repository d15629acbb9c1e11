/* baselines/cudnn_sdpa_decline.c: TEMPORARY stand-in for
 * baselines/cudnn_sdpa.c (helper attncudnn's) so that the attention op builds
 * before it is merged: cudnn_sdpa_supports declines every case with "cuDNN
 * SDPA row not merged yet", so the cudnn_sdpa row is SKIP with that reason,
 * never a result. DELETE this file (and its line in CMakeLists.txt) at the
 * merge. */
#include "cudnn_sdpa.h"

#include <stdio.h>

#include "status.h"

int cudnn_sdpa_supports(const attention_args *a, char *why, size_t why_len)
{
    (void)a;
    snprintf(why, why_len, "cuDNN SDPA row not merged yet");
    return 0;
}

int cudnn_sdpa_plan_make(cudnn_sdpa_plan **out, const attention_args *a, cudaStream_t s)
{
    (void)a;
    (void)s;
    *out = NULL;
    status_set_message("cuDNN SDPA row not merged yet");
    return STATUS_ERROR;
}

int cudnn_sdpa_plan_run(const cudnn_sdpa_plan *p, cudaStream_t s)
{
    (void)p;
    (void)s;
    status_set_message("cuDNN SDPA row not merged yet");
    return STATUS_ERROR;
}

const char *cudnn_sdpa_plan_name(const cudnn_sdpa_plan *p)
{
    (void)p;
    return "none";
}

void cudnn_sdpa_plan_free(cudnn_sdpa_plan *p) { (void)p; }
