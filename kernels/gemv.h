/* kernels/gemv.h: the launcher contract of the gemv op (src/gpu/op_gemv.c):
 * y = A x, A m x k row-major (row i starts at element i * k), x k elements,
 * y m elements, all of `type` (fp32, fp16 or bf16), FP32 accumulation.
 * Every launcher takes any m >= 1 and k >= 1 (a row start is 16-byte aligned
 * only when k * element bytes is a multiple of 16: vector loads check and
 * fall back). scratch (scratch_bytes of it, zeroed before a variant's first
 * call only) is for split-k partial sums; its size comes from the variant's
 * own query. A launcher enqueues on `s` and returns a cudaError_t as int
 * (cudaErrorInvalidValue for a type it does not take). */
#ifndef COMPARE_GEMV_H
#define COMPARE_GEMV_H

#include <stddef.h>
#include <cuda_runtime_api.h>

#include "elem_type.h"

typedef struct {
    const void *A;        /* m x k */
    const void *x;        /* k */
    void *y;              /* m */
    long long m, k;
    elem_type type;       /* ELEM_FP32, ELEM_FP16 or ELEM_BF16 */
    void *scratch;
    size_t scratch_bytes;
} gemv_args;

typedef int (*gemv_launcher)(const gemv_args *a, cudaStream_t s);

#endif
