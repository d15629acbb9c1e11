/* src/gpu/metrics_sweep.cu: the clean half of --metrics' L2 flush.
 *
 * Idea: the harness flushes L2 before every sample with a memset of a buffer
 * twice its size; that leaves L2 full of the memset's dirty lines, and the
 * timed call that follows pays their write-back to DRAM as it evicts them.
 * Those are the flush's bytes, not the call's: counted by the DRAM counters
 * they would inflate dram__bytes_write.sum by up to the L2 size (and fire
 * the hint on DRAM traffic). So before the counter launch, after the same
 * memset, this kernel reads the buffer once: its misses evict the dirty
 * lines (their write-back happens here, outside the profiled range) and
 * leave L2 holding clean lines of a buffer the call never touches: cold, as
 * for the timed samples, and clean, as Nsight Compute's cache control leaves
 * it before each kernel it profiles.
 *
 * Constraints: 16-byte loads (ld.global.cg: through L2, not L1), a
 * grid-stride loop; the XOR of what a thread read is stored only when it
 * equals an arbitrary constant, so the compiler must keep the loads; should
 * it ever match, one word of the flush buffer is written: harmless. */
#include "metrics_sweep.h"

static __global__ void metrics_sweep_kernel(const uint4 *buf, size_t n, unsigned *sink)
{
    unsigned acc = threadIdx.x;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
        const uint4 v = __ldcg(&buf[i]); /* cached in L2 only: the L2 is what we clear */
        acc ^= v.x ^ v.y ^ v.z ^ v.w;
    }
    if (acc == 0x5EED5EEDu + threadIdx.x * 0x9E3779B9u) sink[0] = acc;
}

extern "C" int metrics_sweep_launch(const void *buf, size_t bytes, cudaStream_t stream)
{
    int dev = 0, sms = 0;
    cudaError_t e = cudaGetDevice(&dev);
    if (e == cudaSuccess) e = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
    if (e != cudaSuccess) return (int)e;
    const size_t n = bytes / sizeof(uint4);
    /* the buffer is the sink too: a write that (in practice) never happens */
    metrics_sweep_kernel<<<sms * 4, 512, 0, stream>>>((const uint4 *)buf, n, (unsigned *)buf);
    return (int)cudaGetLastError();
}
