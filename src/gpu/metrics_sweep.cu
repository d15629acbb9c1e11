/* src/gpu/metrics_sweep.cu: the clean half of --metrics' L2 flush.
 *
 * Idea: the harness flushes L2 before every sample with a memset of a buffer
 * twice its size; that leaves L2 full of the memset's dirty lines, and the
 * timed call that follows pays their write-back to DRAM as it evicts them.
 * Those are the flush's bytes, not the call's: counted by the DRAM counters
 * they would inflate dram__bytes_write.sum by up to the L2 size (and fire
 * the hint on DRAM traffic). So before the counter launch, after the same
 * memset, the flush buffer's lines are made clean, outside the profiled
 * range, in one of two ways (metrics_l2_mode):
 *
 * - discard (the default): `discard.global.L2` on every 128-byte line of the
 *   buffer drops its lines from L2 without writing them back (the buffer's
 *   contents are garbage anyway). Nothing dirty of the flush is left, and L2
 *   is empty of it: cold, as for the timed samples, and clean, as Nsight
 *   Compute's cache control leaves it before each kernel it profiles.
 * - sweep: a read of the whole buffer. Its misses evict the memset's dirty
 *   lines (written back here), but a dirty line the replacement policy kept
 *   through the memset's second half is a hit for the sweep and stays dirty:
 *   the call then pays its write-back inside the range.
 *
 * Constraints: discard needs sm_80 (PTX 7.4) and 128-byte aligned lines (the
 * buffer is cudaMalloc'd; the caller rounds bytes down to 128). The sweep:
 * 16-byte loads (ld.global.cg: through L2, not L1), a grid-stride loop; the
 * XOR of what a thread read is stored only when it equals an arbitrary
 * constant, so the compiler must keep the loads; should it ever match, one
 * word of the flush buffer is written: harmless. */
#include "metrics_sweep.h"

#include <stdlib.h>
#include <string.h>

static __global__ void metrics_sweep_kernel(const uint4 *buf, size_t n, unsigned *sink)
{
    unsigned acc = threadIdx.x;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
        const uint4 v = __ldcg(&buf[i]); /* cached in L2 only: the L2 is what we clear */
        acc ^= v.x ^ v.y ^ v.z ^ v.w;
    }
    if (acc == 0x5EED5EEDu + threadIdx.x * 0x9E3779B9u) sink[0] = acc;
}

static __global__ void metrics_discard_kernel(char *buf, size_t lines)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < lines; i += (size_t)gridDim.x * blockDim.x)
        asm volatile("discard.global.L2 [%0], 128;" ::"l"(buf + i * 128) : "memory");
}

extern "C" int metrics_sweep_launch(void *buf, size_t bytes, int mode, cudaStream_t stream)
{
    int dev = 0, sms = 0;
    cudaError_t e = cudaGetDevice(&dev);
    if (e == cudaSuccess) e = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
    if (e != cudaSuccess) return (int)e;
    if (mode == METRICS_L2_DISCARD || mode == METRICS_L2_BOTH) {
        metrics_discard_kernel<<<sms * 4, 512, 0, stream>>>((char *)buf, bytes / 128);
        if ((e = cudaGetLastError()) != cudaSuccess) return (int)e;
    }
    if (mode == METRICS_L2_SWEEP || mode == METRICS_L2_BOTH) {
        /* the buffer is the sink too: a write that (in practice) never happens */
        metrics_sweep_kernel<<<sms * 4, 512, 0, stream>>>((const uint4 *)buf, bytes / sizeof(uint4), (unsigned *)buf);
        if ((e = cudaGetLastError()) != cudaSuccess) return (int)e;
    }
    return (int)cudaSuccess;
}

extern "C" int metrics_l2_mode(void)
{
    const char *s = getenv("COMPARE_METRICS_L2");
    if (!s || !*s || strcmp(s, "discard") == 0) return METRICS_L2_DISCARD;
    if (strcmp(s, "sweep") == 0) return METRICS_L2_SWEEP;
    if (strcmp(s, "both") == 0) return METRICS_L2_BOTH;
    if (strcmp(s, "none") == 0) return METRICS_L2_NONE;
    return -1;
}
