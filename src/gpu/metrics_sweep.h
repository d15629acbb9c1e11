/* src/gpu/metrics_sweep.h: after the L2 flush, the flush buffer's dirty lines
 * dropped (discard) or written back (a read sweep), so L2 is cold and clean
 * before --metrics' counter launch (see metrics_sweep.cu). */
#ifndef COMPARE_METRICS_SWEEP_H
#define COMPARE_METRICS_SWEEP_H

#include <stddef.h>
#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

enum { METRICS_L2_NONE = 0, METRICS_L2_SWEEP = 1, METRICS_L2_DISCARD = 2, METRICS_L2_BOTH = 3 };

/* Enqueues on `stream`, by `mode`: discard of every 128-byte line of
 * `bytes` of `buf` (128-byte aligned, bytes a multiple of 128), a read
 * sweep of them, both (discard first) or nothing. Returns the launches'
 * cudaError_t. */
int metrics_sweep_launch(void *buf, size_t bytes, int mode, cudaStream_t stream);

/* The mode from COMPARE_METRICS_L2 (discard, the default; sweep; both; none:
 * diagnostics), or -1 for any other value. */
int metrics_l2_mode(void);

#ifdef __cplusplus
}
#endif

#endif
