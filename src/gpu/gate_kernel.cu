/* src/gpu/gate_kernel.cu: the timing gate.
 *
 * Idea: a sample is [start event, the timed call's work, stop event]. If the
 * GPU reaches the start event before the host has enqueued the work (the
 * stream ran dry while the host was still inside the call: a library's
 * host-side path after other work pushed it out of the CPU's caches, a slow
 * host), the wait is counted as GPU time. The L2 flush before each sample
 * gives the host a few tens of microseconds of runway; the gate makes it
 * unconditional: it sits in the stream after the flush and before the start
 * event and holds the GPU until the host, having enqueued the stop event,
 * writes the sample's number into a word of mapped host memory. The interval
 * then holds only the GPU's time for the work (the same idea as nvbench's
 * blocking kernel).
 *
 * Constraints: one thread polls (ld.acquire.sys, __nanosleep between polls),
 * so the timed work starts at most a poll late after the gate opens, which
 * is before the start event; sm_70 or later (__nanosleep). A call that
 * waits on its own stream inside (a synchronisation its row does not
 * declare) would wait for the gate: the gate gives up after timeout_ns and
 * says so, and the harness times that variant without it. */
#include "gate_kernel.h"

static __device__ __forceinline__ unsigned gate_load(const unsigned *p)
{
    unsigned v;
    asm volatile("ld.acquire.sys.global.u32 %0, [%1];\n" : "=r"(v) : "l"(p) : "memory");
    return v;
}

static __device__ __forceinline__ unsigned long long gate_now(void)
{
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;\n" : "=l"(t));
    return t;
}

static __global__ void gate_kernel(const unsigned *open, unsigned seq, unsigned *timed_out,
                                   unsigned long long timeout_ns)
{
    const unsigned long long t0 = gate_now();
    while (gate_load(open) != seq) {
        if (gate_now() - t0 > timeout_ns) {
            *(volatile unsigned *)timed_out = seq;
            return;
        }
        __nanosleep(256);
    }
}

extern "C" int gate_launch(const unsigned *open, unsigned seq, unsigned *timed_out, unsigned long long timeout_ns,
                           cudaStream_t stream)
{
    gate_kernel<<<1, 1, 0, stream>>>(open, seq, timed_out, timeout_ns);
    return (int)cudaGetLastError();
}
