/* src/gpu/attention_wrong.h: a planted wrong attention kernel for the tests
 * (the op's test-only row test_norescale): the online softmax over tiles of
 * ATTENTION_WRONG_TILE keys WITHOUT the rescale of the running sum and
 * output when the running max grows, the bug the online softmax is easiest
 * to write with. Early tiles are then weighted by exp(growth of the max)
 * too much; verification must FAIL it (tests/test_gpu_attention.c). One
 * thread per output element, every score recomputed per column: slow, for
 * small test cases only (the row declines seq_kv above
 * ATTENTION_WRONG_MAX_SEQ). Returns the launch's cudaError_t. */
#ifndef COMPARE_ATTENTION_WRONG_H
#define COMPARE_ATTENTION_WRONG_H

#include <cuda_runtime_api.h>

#include "attention.h"

#define ATTENTION_WRONG_TILE 64
#define ATTENTION_WRONG_MAX_SEQ 4096

#ifdef __cplusplus
extern "C" {
#endif

int attention_test_norescale(const attention_args *a, cudaStream_t s);

#ifdef __cplusplus
}
#endif

#endif
