/* kernels/rowwise.h: the launcher contract of the row-wise ops, softmax,
 * rmsnorm and layernorm (src/gpu/op_softmax.c, op_rmsnorm.c, op_layernorm.c).
 *
 * x and y are rows x cols, row-major and contiguous (row r starts at element
 * r * cols; a row start is 16-byte aligned only when cols * element bytes is
 * a multiple of 16: a launcher that uses vector loads checks and falls back).
 * x and y hold elements of `type` (fp32, fp16 or bf16); the arithmetic inside
 * is FP32. Every launcher takes any rows >= 1 and cols >= 1.
 *
 *   softmax    y[r][c] = exp(x[r][c] - max_r) / sum_c' exp(x[r][c'] - max_r)
 *              (the naive rung leaves out max_r: exp overflows on wide inputs)
 *   rmsnorm    y[r][c] = x[r][c] / sqrt(mean_c(x[r][c]^2) + eps) * weight[c]
 *   layernorm  y[r][c] = (x[r][c] - mean_r) / sqrt(var_r + eps) * weight[c] + bias[c]
 *              var_r the population variance (divided by cols)
 *
 * weight and bias are cols floats (FP32 whatever `type` is). Forward,
 * inference only: no saved mean or inverse deviation.
 *
 * A launcher enqueues its kernels on `s` and returns a cudaError_t as int
 * (cudaSuccess, or the launch's error; cudaErrorInvalidValue for a type it
 * does not take): the op file checks it with CK_LAUNCH. */
#ifndef COMPARE_ROWWISE_H
#define COMPARE_ROWWISE_H

#include <cuda_runtime_api.h>

#include "elem_type.h"

typedef struct {
    const void *x;        /* rows x cols elements of type, read-only */
    void *y;              /* rows x cols elements of type */
    const float *weight;  /* cols floats: rmsnorm, layernorm (NULL for softmax) */
    const float *bias;    /* cols floats: layernorm (NULL otherwise) */
    long long rows, cols;
    elem_type type;       /* ELEM_FP32, ELEM_FP16 or ELEM_BF16 */
    float eps;            /* the norms' epsilon */
} rowwise_args;

typedef int (*rowwise_launcher)(const rowwise_args *a, cudaStream_t s);

#endif
