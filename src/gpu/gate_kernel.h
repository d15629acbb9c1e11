/* src/gpu/gate_kernel.h: the timing gate, a one-thread kernel that holds the
 * stream until the host says its timed work is all enqueued (see
 * gate_kernel.cu). */
#ifndef COMPARE_GATE_KERNEL_H
#define COMPARE_GATE_KERNEL_H

#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Enqueues the gate on `stream`: it returns once open[0] == seq (a word of
 * mapped host memory the host writes), or after timeout_ns, and then writes
 * seq to timed_out[0] (mapped too) so that the host can tell. Returns the
 * launch's cudaError_t. */
int gate_launch(const unsigned *open, unsigned seq, unsigned *timed_out, unsigned long long timeout_ns,
                cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif
