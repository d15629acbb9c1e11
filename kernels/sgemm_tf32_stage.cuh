/* kernels/sgemm_tf32_stage.cuh: staging copies for a GEMM whose operands a
 * TMA kernel cannot read in place, and the per-device buffer that holds them.
 * Included by kernels/sgemm_tf32_tma.cuh (each translation unit that
 * includes it has its own buffer table: the variant's, the search's).
 *
 * Idea
 *   A TMA tensor map needs a 16-byte-aligned base and row strides that are
 *   multiples of 16 bytes: a row-major FP32 matrix whose row length is not a
 *   multiple of 4 (or whose pointer is misaligned) cannot be described. Such
 *   an operand is copied into a buffer whose rows are padded to a multiple
 *   of 4 floats, every padding element written as 0 (so that the GEMM on the
 *   padded operands adds exactly 0 for them), and an output is written to a
 *   padded buffer and copied back. The copies are part of the call: their
 *   memory traffic is timed with the GEMM.
 *   - sgemm_stage_kernel: one or two copies per launch (blockIdx.y picks
 *     the copy). Each warp step moves 128 columns of one destination row,
 *     4 per lane at lane + 32 i: every load and store of a warp covers 128
 *     contiguous bytes, whatever the alignment of either side, and the 4
 *     loads of a lane are independent (in flight together). The destination
 *     is written over its whole extent, padding included, on every call: a
 *     reused buffer never shows a previous call's bytes (nor uninitialised
 *     ones) to the GEMM.
 *   - sgemm_stage_acquire / _release: one device buffer per pool and
 *     device ordinal, allocated at the first call that needs it (in
 *     compare: the verification run, before the warm-up and the timed
 *     samples), grown when a call needs more (never while the same shape is
 *     timed), kept between calls and freed at exit (atexit, run when the
 *     library holding it is unloaded or the process ends). Pools:
 *     SGEMM_STAGE_POOL_COPY, the staged operands below (at most A + B + C
 *     with padded rows, rounded up to 2 MiB); SGEMM_STAGE_POOL_STREAMK, the
 *     stream-K partial tiles and arrival counters of the persistent TMA
 *     kernels (sgemm_tf32_tma.cuh; zeroed when allocated, a few tens of
 *     MiB). Two pools, since a staged call runs a stream-K kernel on staged
 *     operands while holding its copy buffer. The sgemm launcher contract
 *     (kernels/sgemm.h) has no workspace argument, so the buffers are the
 *     launchers' own; compare's up-front memory check counts them through
 *     sgemm_tf32_tma_own_bytes (the variant row's own_bytes).
 *   - Ordering: every call records an event on its stream after its last
 *     use of the buffer, and the next call (on any stream) waits for it
 *     before its first use: calls on different streams take turns with the
 *     buffer. Two host threads must not call for the same device at the same
 *     moment (the table has no lock; compare drives each device from one
 *     thread).
 * Constraints: rows, columns >= 1 and below 2^31 - 256 (int column
 *   indices, a 128-column step past the end); a device ordinal past 63 has
 *   no slot (cudaErrorNotSupported: the caller falls back). An allocation
 *   that fails returns cudaErrorMemoryAllocation with the error cleared (not
 *   sticky: the caller falls back, it is not a crash). */
#ifndef KERNELS_SGEMM_TF32_STAGE_CUH
#define KERNELS_SGEMM_TF32_STAGE_CUH

#include <stddef.h>
#include <stdlib.h>

#include <cuda_runtime.h>

#define SGEMM_STAGE_THREADS 256        /* 8 warps a block */
#define SGEMM_STAGE_SEG 128            /* destination columns per warp step: 4 per lane */
#define SGEMM_STAGE_MAX_BLOCKS 8192    /* grid-stride beyond: a few waves of resident blocks */
#define SGEMM_STAGE_DEVICES 64         /* device ordinals with a buffer slot */
#define SGEMM_STAGE_ALIGN 256          /* bytes: each part of the buffer starts on this boundary */
#define SGEMM_STAGE_GRAIN (2u << 20)   /* allocations rounded up to 2 MiB */

/* what a pool allocates for a request of `bytes` (sgemm_stage_acquire; the
 * launchers' own-bytes queries count the same) */
static inline size_t sgemm_stage_rounded(size_t bytes)
{
    return (bytes + SGEMM_STAGE_GRAIN - 1) / SGEMM_STAGE_GRAIN * SGEMM_STAGE_GRAIN;
}
#define SGEMM_STAGE_POOL_COPY 0        /* staged operands (sgemm_tf32_tma.cu) */
#define SGEMM_STAGE_POOL_STREAMK 1     /* stream-K workspace (sgemm_tf32_tma.cuh), zeroed when allocated */
#define SGEMM_STAGE_POOLS 2

/* One copy: dst[r][c] = src[r][c] for r < rows and c < cols, 0 elsewhere in
 * dst_rows x dst_cols (dst_rows >= rows, dst_cols >= cols). */
typedef struct {
    const float *src;     /* rows x cols, row stride src_ld floats, any 4-byte alignment */
    float *dst;           /* dst_rows x dst_cols, row stride dst_ld floats */
    long long src_ld;     /* source row stride, floats */
    long long dst_ld;     /* destination row stride, floats */
    int rows, cols;       /* the source extent */
    int dst_rows, dst_cols; /* the destination extent written (padding included) */
} sgemm_stage_copy;

/* 128-column segments of one destination row */
static __host__ __device__ __forceinline__ unsigned long long
sgemm_stage_segs(const sgemm_stage_copy *c)
{
    return ((unsigned long long)c->dst_cols + SGEMM_STAGE_SEG - 1) / SGEMM_STAGE_SEG;
}

// ---- kernel ----------------------------------------------------------------

static __global__ void __launch_bounds__(SGEMM_STAGE_THREADS)
sgemm_stage_kernel(const sgemm_stage_copy copy0, const sgemm_stage_copy copy1)
{
    const sgemm_stage_copy c = blockIdx.y == 0 ? copy0 : copy1;
    const unsigned long long segs = sgemm_stage_segs(&c);
    const unsigned long long steps = segs * (unsigned long long)c.dst_rows; /* warp steps */
    const unsigned long long warps = (unsigned long long)gridDim.x * (SGEMM_STAGE_THREADS / 32);
    const int lane = threadIdx.x & 31;
    const unsigned long long first = (unsigned long long)blockIdx.x * (SGEMM_STAGE_THREADS / 32);
    for (unsigned long long w = first + (threadIdx.x >> 5); w < steps; w += warps) {
        const int r = (int)(w / segs);
        const int col0 = (int)(w - (unsigned long long)r * segs) * SGEMM_STAGE_SEG + lane;
        float v[SGEMM_STAGE_SEG / 32];
#pragma unroll
        for (int i = 0; i < SGEMM_STAGE_SEG / 32; i++) {
            const int col = col0 + 32 * i;
            v[i] = r < c.rows && col < c.cols ? __ldg(c.src + (size_t)r * c.src_ld + col) : 0.0f;
        }
        float *d = c.dst + (size_t)r * c.dst_ld;
#pragma unroll
        for (int i = 0; i < SGEMM_STAGE_SEG / 32; i++) {
            const int col = col0 + 32 * i;
            if (col < c.dst_cols)
                d[col] = v[i];
        }
    }
}

// ---- host side -------------------------------------------------------------

/* Launches one copy (copy1 NULL) or two on `stream`; 0 or a cudaError_t value. */
static int sgemm_stage_launch(const sgemm_stage_copy *copy0, const sgemm_stage_copy *copy1,
                              cudaStream_t stream)
{
    unsigned long long steps = sgemm_stage_segs(copy0) * (unsigned long long)copy0->dst_rows;
    if (copy1) {
        const unsigned long long s1 = sgemm_stage_segs(copy1) * (unsigned long long)copy1->dst_rows;
        steps = s1 > steps ? s1 : steps;
    }
    unsigned long long blocks = (steps + SGEMM_STAGE_THREADS / 32 - 1) / (SGEMM_STAGE_THREADS / 32);
    blocks = blocks < SGEMM_STAGE_MAX_BLOCKS ? blocks : SGEMM_STAGE_MAX_BLOCKS;
    const dim3 grid((unsigned)(blocks > 0 ? blocks : 1), copy1 ? 2u : 1u);
    sgemm_stage_kernel<<<grid, SGEMM_STAGE_THREADS, 0, stream>>>(*copy0, copy1 ? *copy1 : *copy0);
    return (int)cudaGetLastError();
}

/* The buffer of one device ordinal */
typedef struct {
    void *ptr;          /* device memory, NULL until a call needs it */
    size_t bytes;       /* its size */
    cudaEvent_t done;   /* recorded after each call's last use of it (NULL: none yet) */
} sgemm_stage_slot;

static sgemm_stage_slot sgemm_stage_slots[SGEMM_STAGE_POOLS][SGEMM_STAGE_DEVICES];
static int sgemm_stage_exit_hooked;

/* at exit: every slot's buffer and event (errors ignored: the process ends) */
static void sgemm_stage_free_all(void)
{
    for (int i = 0; i < SGEMM_STAGE_POOLS * SGEMM_STAGE_DEVICES; i++) {
        sgemm_stage_slot *s = &sgemm_stage_slots[i / SGEMM_STAGE_DEVICES][i % SGEMM_STAGE_DEVICES];
        if ((!s->ptr && !s->done) || cudaSetDevice(i % SGEMM_STAGE_DEVICES) != cudaSuccess)
            continue;
        if (s->ptr)
            (void)cudaFree(s->ptr);
        if (s->done)
            (void)cudaEventDestroy(s->done);
        s->ptr = NULL;
        s->done = NULL;
        s->bytes = 0;
    }
}

/* Pool `pool`'s buffer of the current device, at least `bytes` long, in
 * *buf, ordered after the previous call's use of it (its event, waited for
 * on `stream`); the caller must end with sgemm_stage_release on the same
 * stream. A new allocation of SGEMM_STAGE_POOL_STREAMK is zeroed on
 * `stream` (its counters start at 0). 0, or cudaErrorMemoryAllocation
 * (cleared, nothing sticky) or cudaErrorNotSupported (ordinal past 63) for
 * the caller to fall back, or another cudaError_t. *slot: for the release. */
static int sgemm_stage_acquire(int pool, size_t bytes, cudaStream_t stream, void **buf, int *slot)
{
    int dev = 0;
    cudaError_t e = cudaGetDevice(&dev);
    if (e != cudaSuccess)
        return (int)e;
    if (dev < 0 || dev >= SGEMM_STAGE_DEVICES)
        return (int)cudaErrorNotSupported;
    sgemm_stage_slot *s = &sgemm_stage_slots[pool][dev];
    if (!s->done) {
        e = cudaEventCreateWithFlags(&s->done, cudaEventDisableTiming);
        if (e != cudaSuccess) {
            s->done = NULL;
            return (int)e;
        }
    } else if ((e = cudaStreamWaitEvent(stream, s->done, 0)) != cudaSuccess) {
        return (int)e;
    }
    if (!__atomic_exchange_n(&sgemm_stage_exit_hooked, 1, __ATOMIC_ACQ_REL))
        (void)atexit(sgemm_stage_free_all);
    if (s->bytes < bytes) {
        if (s->ptr) { /* the previous call's work (any stream) is over before the free */
            if ((e = cudaEventSynchronize(s->done)) != cudaSuccess)
                return (int)e;
            e = cudaFree(s->ptr);
            s->ptr = NULL;
            s->bytes = 0;
            if (e != cudaSuccess)
                return (int)e;
        }
        const size_t want = sgemm_stage_rounded(bytes);
        void *p = NULL;
        e = cudaMalloc(&p, want);
        if (e != cudaSuccess) {
            (void)cudaGetLastError(); /* not sticky: cleared, the caller falls back */
            return (int)cudaErrorMemoryAllocation;
        }
        if (pool == SGEMM_STAGE_POOL_STREAMK && (e = cudaMemsetAsync(p, 0, want, stream)) != cudaSuccess) {
            (void)cudaFree(p); /* never handed out with counters not zeroed */
            return (int)e;
        }
        s->ptr = p;
        s->bytes = want;
    }
    *buf = s->ptr;
    *slot = pool * SGEMM_STAGE_DEVICES + dev;
    return 0;
}

/* After the call's last use of the buffer on `stream` (launched or not):
 * the next call waits for this point. 0 or a cudaError_t value. */
static int sgemm_stage_release(int slot, cudaStream_t stream)
{
    return (int)cudaEventRecord(
        sgemm_stage_slots[slot / SGEMM_STAGE_DEVICES][slot % SGEMM_STAGE_DEVICES].done, stream);
}

/* bytes rounded up to SGEMM_STAGE_ALIGN */
static inline size_t sgemm_stage_round(size_t bytes)
{
    return (bytes + SGEMM_STAGE_ALIGN - 1) / SGEMM_STAGE_ALIGN * SGEMM_STAGE_ALIGN;
}

#endif
