/* kernels/gemm_lowp.h: the launcher contract of the low-precision GEMM op
 * `gemm` (src/gpu/op_gemm.c): C = A B in fp16, bf16 or fp8_e4m3 inputs with
 * FP32 accumulation, alpha 1, beta 0.
 *
 *   A  m x k row-major (K-major), elements of a_type
 *   B  layout "tn" (b_kmajor = 1): stored n x k row-major (K-major: the
 *      layout of a weight matrix W[n][k] in y = x W^T, cuBLAS's "TN", the one
 *      FP8 tensor cores need);
 *      layout "nn" (b_kmajor = 0): stored k x n row-major, as sgemm's B
 *   C  m x n row-major, elements of c_type: a_type for fp16 and bf16, bf16
 *      for fp8_e4m3 (per-tensor scales of 1)
 *
 * A launcher takes any m, n, k >= 1 or declines the case through its own
 * supports query (named in its header); workspace (workspace_bytes, from the
 * variant's own query, zeroed before the variant's first call only) is its
 * scratch. It enqueues on `s` and returns a cudaError_t as int. */
#ifndef COMPARE_GEMM_LOWP_H
#define COMPARE_GEMM_LOWP_H

#include <stddef.h>
#include <cuda_runtime_api.h>

#include "elem_type.h"

typedef struct {
    const void *A;
    const void *B;
    void *C;
    long long m, n, k;
    elem_type a_type;     /* A's and B's type: ELEM_FP16, ELEM_BF16 or ELEM_FP8_E4M3 */
    elem_type c_type;     /* C's type */
    int b_kmajor;         /* 1: layout tn (B n x k row-major); 0: layout nn (B k x n row-major) */
    void *workspace;
    size_t workspace_bytes;
} gemm_args;

typedef int (*gemm_launcher)(const gemm_args *g, cudaStream_t s);

#endif
