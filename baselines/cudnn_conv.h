/* baselines/cudnn_conv.h: cuDNN's forward convolution, the library rows of the
 * conv2d op (kernels/conv2d.h's contract: NCHW / KCRS, cross-correlation,
 * stride 1, zero padding r / 2), through the legacy API
 * cudnnConvolutionForward (deprecated in cuDNN 9, still there: the graph
 * API's conv_fprop is its successor). cuDNN is loaded at run time
 * (cudnn_lib.h); the legacy entry points are looked up with dlsym in the same
 * library file (cuDNN 9's libcudnn.so.9 exports them and dispatches to
 * libcudnn_cnn.so.9). Two rows, by `tensor_op`:
 *   0  `cudnn`:           fp32: CUDNN_FMA_MATH (FMA kernels only: cuDNN's
 *                         DEFAULT math would allow TF32 on sm_80 and newer);
 *                         fp16 / bf16: CUDNN_DEFAULT_MATH. FP32 compute.
 *   1  `cudnn_tensor_op`: CUDNN_TENSOR_OP_MATH (TF32 for fp32, tensor cores
 *                         for 16-bit).
 * Find runs every algorithm in the descriptor's math and in
 * CUDNN_DEFAULT_MATH too (which allows TF32 for fp32): the fp32 `cudnn` row
 * takes the results Find ran in FMA math only, `cudnn_tensor_op` those in
 * tensor-op math only, the 16-bit `cudnn` row any; the plan runs the
 * algorithm in the math Find ran it in.
 * The algorithm is the fastest that cudnnFindConvolutionForwardAlgorithm
 * (which times every algorithm on buffers of its own) returns with a
 * success status, an accepted math and a workspace within half the device
 * memory free when it runs. Find runs once per (device, sizes, type, row)
 * and is remembered for the process, outside every timed region (the
 * variant's workspace and supports queries ask for it first). Only
 * cudnnConvolutionForward is timed, with the case's workspace slice.
 * COMPARE_CUDNN_VERBOSE=1 prints every algorithm Find returned on stderr.
 * Every cuDNN call is checked; a failure names the call, cuDNN's status
 * string and its last error message. Without cuDNN every entry declines
 * with cudnn_lib_available's text. */
#ifndef BASELINES_CUDNN_CONV_H
#define BASELINES_CUDNN_CONV_H

#include <cuda_runtime_api.h>
#include <stddef.h>

#include "conv2d.h"

typedef struct cudnn_conv_plan cudnn_conv_plan;

/* Whether the row takes the case: 1, or 0 with the SKIP text in why (cuDNN
 * missing, sizes beyond the legacy API's int dimensions, cuDNN declining
 * the case, Find out of memory for its own buffers, no algorithm of the
 * row's math, none whose workspace fits). Runs Find the first time. An
 * error that is not a decline returns 1, so that the row runs and reports
 * it. */
int cudnn_conv_supports(const conv2d_args *a, int tensor_op, char *why, size_t why_len);
/* The workspace bytes of the row's algorithm (0 when it declines). */
size_t cudnn_conv_workspace(const conv2d_args *a, int tensor_op);
/* Makes the row's descriptors for the case (sizes and type from a; the
 * buffers are passed to each run). Returns a status_t (STATUS_ERROR with the
 * message in status.h's buffer); *out NULL on failure. */
int cudnn_conv_plan_make(cudnn_conv_plan **out, const conv2d_args *a, int tensor_op);
/* Enqueues y = conv(x, w) on s with workspace (at least the plan's bytes).
 * Returns a status_t. */
int cudnn_conv_plan_run(const cudnn_conv_plan *p, const conv2d_args *a, void *workspace, size_t workspace_bytes,
                        cudaStream_t s);
/* What runs, for the row's `kernel`: "cudnnConvolutionForward
 * IMPLICIT_PRECOMP_GEMM (FMA math)"; lives as long as the process. */
const char *cudnn_conv_plan_name(const cudnn_conv_plan *p);
/* 1 when the plan's algorithm computes in a transformed domain (FFT,
 * FFT_TILING, WINOGRAD, WINOGRAD_NONFUSED: src/core/verify_conv.h's
 * transform rule judges it), else 0 (NULL too). */
int cudnn_conv_plan_transform(const cudnn_conv_plan *p);
void cudnn_conv_plan_free(cudnn_conv_plan *p);

#endif
