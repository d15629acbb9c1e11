/* src/gpu/metrics_sweep.h: a read-only pass over the L2-flush buffer that
 * leaves the L2 cold and clean before --metrics' counter launch (see
 * metrics_sweep.cu). */
#ifndef COMPARE_METRICS_SWEEP_H
#define COMPARE_METRICS_SWEEP_H

#include <stddef.h>
#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Enqueues a read of `bytes` of `buf` (16-byte aligned, bytes a multiple of
 * 16) on `stream`. Returns the launch's cudaError_t. */
int metrics_sweep_launch(const void *buf, size_t bytes, cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif
