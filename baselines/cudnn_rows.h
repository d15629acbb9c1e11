/* baselines/cudnn_rows.h: cuDNN as the library of the row-wise ops, at its
 * best documented calls:
 *   softmax    cudnnSoftmaxForward, CUDNN_SOFTMAX_ACCURATE (max subtracted),
 *              CUDNN_SOFTMAX_MODE_INSTANCE over an N = rows, C = cols,
 *              H = W = 1 tensor (NCHW: a row is contiguous);
 *   rmsnorm,   the graph (backend) API: one NORM_FORWARD node, CUDNN_RMS_NORM
 *   layernorm  or CUDNN_LAYER_NORM, phase CUDNN_NORM_FWD_INFERENCE; X and Y
 *              rows x cols x 1 x 1 (strides cols, 1, cols, cols), scale and
 *              bias 1 x cols x 1 x 1, epsilon a by-value FP32 scalar. Two
 *              graphs for a 2-byte input: scale and bias in FP32, and in the
 *              input's type (copies made in the plan; exact, since the case's
 *              weights are values of that type). The engine is
 *              the fastest, over both graphs, of the configurations of
 *              heuristic CUDNN_HEUR_MODE_A (its first 8) and FALLBACK (its
 *              first 8, less engines A gave) whose execution plans finalize,
 *              each timed on the case's buffers (one warm-up, then the median
 *              of 5 executions between CUDA events) when the plan is made;
 *              COMPARE_CUDNN_VERBOSE=1 prints each candidate's time.
 * A plan is made once per case outside every timed region (descriptors,
 * heuristics, execution plans, the norms' candidate timing, the workspace,
 * the variant pack with the case's pointers); only cudnnSoftmaxForward /
 * cudnnBackendExecute is timed. cudnn_rows_supports only checks that one
 * configuration finalizes (nothing timed).
 * The cuDNN handle is one per thread and device (a device may run on a
 * thread of its own), made at the first need, bound to the run's stream at
 * each call. Every cuDNN call is checked; a failure names the call, cuDNN's
 * status string and its last error message. */
#ifndef BASELINES_CUDNN_ROWS_H
#define BASELINES_CUDNN_ROWS_H

#include <stddef.h>
#include <cuda_runtime_api.h>

#include "elem_type.h"
#include "rowwise_ref.h"

typedef struct cudnn_rows_plan cudnn_rows_plan;

/* Whether cuDNN takes the case: 1, or 0 with the SKIP text in why (cuDNN
 * missing: cudnn_lib.h's texts; cuDNN declines the graph, the type or the
 * shape: "cuDNN declines ...: " and its reason). It builds the plan and
 * drops it (softmax: runs it once on two rows of scratch memory, since
 * cudnnSoftmaxForward has no query). An error that is not a decline
 * returns 1, so that the row runs and reports it as ERROR. */
int cudnn_rows_supports(rowwise_op op, elem_type type, long long rows, long long cols, char *why, size_t why_len);

/* Makes the plan of a case over its buffers (x, y: rows x cols of type;
 * weight, bias: cols floats or NULL; eps). The norms' candidates run on s
 * here, writing y (the caller poisons y again before a checked run).
 * Returns a status_t (STATUS_ERROR with the message in status.h's buffer);
 * *out NULL on failure. */
int cudnn_rows_plan_make(cudnn_rows_plan **out, rowwise_op op, elem_type type, long long rows, long long cols,
                         float eps, const void *x, void *y, const float *weight, const float *bias, cudaStream_t s);
/* Enqueues the op on s (the timed call). Returns a status_t. */
int cudnn_rows_plan_run(const cudnn_rows_plan *p, cudaStream_t s);
/* What ran, for the row's `kernel`: "cudnnSoftmaxForward ACCURATE INSTANCE
 * (cuDNN 9.14.0)", "cuDNN 9.14.0 norm forward engine 3, scale bf16
 * (heuristic A, fastest of 5)" (no count when only one plan finalized); valid until the
 * plan is freed. */
const char *cudnn_rows_plan_name(const cudnn_rows_plan *p);
void cudnn_rows_plan_free(cudnn_rows_plan *p);

#endif
