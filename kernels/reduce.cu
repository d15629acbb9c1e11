/* kernels/reduce.cu: hand-written float sums (the textbook ladder, then a fast one).
 *
 * Idea, variant by variant (all accumulate in float, like cub):
 *   interleaved  each thread adds two elements a block apart while loading them
 *                into shared memory, then a tree with interleaved addressing:
 *                `if (tid % (2*s) == 0)`, s doubling. Divergent warps, bank
 *                conflicts: textbook version 1.
 *   sequential   the same loads, sequential addressing: `if (tid < s)`, s
 *                halving. Whole warps retire together, no bank conflicts.
 *   shuffle      the same loads, a warp-shuffle tree (__shfl_down_sync), one
 *                value per warp through shared memory, then warp 0 reduces those.
 *   The three textbook variants differ only in the in-block tree: each block of
 *   256 threads covers 512 elements and writes one partial to scratch; the same
 *   kernel then runs over the partials, pass after pass, until one block is left,
 *   which writes *out. Deterministic (no atomics): 2^26 elements take 3 launches.
 *   vec4         the fast one: one launch. The grid is sized to the GPU (SMs x
 *                resident blocks per SM, queried once per device and cached) and
 *                strides over the input in float4 loads, REDUCE_VEC4_UNROLL
 *                independent 16-byte loads in flight per thread, each into its
 *                own accumulator. A warp-shuffle block sum gives one partial per
 *                block; each block stores it, fences, and draws a ticket from a
 *                counter (atomicInc, which wraps back to 0 on the last draw). The
 *                block with the last ticket sums the partials in a fixed order:
 *                deterministic, no float atomics, no second launch, and no block
 *                ever waits for another, so nothing assumes that the blocks are
 *                resident together (an earlier version polled per-block words
 *                from the last block of the grid, which needs every block to be
 *                running at once: not promised on a shared GPU or under MPS).
 *
 * Constraints (and why):
 *   - any n >= 1, 64-bit indices throughout (n >= 2^31 works).
 *   - x must be 4-byte aligned (any float pointer) but need not be 16-byte
 *     aligned: vec4 peels up to 3 head elements before the first 16-byte
 *     boundary and handles the last (n - head) % 4 elements as a scalar tail.
 *   - scratch: at least reduce_scratch_bytes(n) bytes, 8-byte aligned (cudaMalloc
 *     gives 256), zeroed once after allocation (reduce.h): vec4's ticket must
 *     start at 0, and every complete call leaves it at 0. Layout: [0, 4) the
 *     ticket, [256, 256 + 4 * REDUCE_VEC4_MAX_BLOCKS) vec4's partials, then the
 *     textbook passes' partials, ceil(n/512) + ceil(n/512^2) + ... floats
 *     (every pass but the last), about n/128 bytes in all.
 *   - two vec4 calls must not run at the same time on one scratch (they would
 *     share the ticket): on one stream they never do.
 *   - every launcher runs only on `stream`, never synchronises, and returns the
 *     int value of cudaGetLastError() after its launches (cudaErrorInvalidValue,
 *     without launching, for n < 1, null pointers, a misaligned x or scratch, or
 *     scratch_bytes < reduce_scratch_bytes(n)).
 *
 * Run just one variant:  ./compare --variants interleaved
 *                        ./compare --variants sequential
 *                        ./compare --variants shuffle
 *                        ./compare --variants vec4
 */
#include <stdint.h>
#include <cuda_runtime.h>

#include "reduce.h"
#include "smem.cuh"

// ---- tuning constants -------------------------------------------------------

#define REDUCE_THREADS 256                        /* every kernel: 8 warps */
#define REDUCE_WARPS (REDUCE_THREADS / 32)
#define REDUCE_TREE_ELEMS (2 * REDUCE_THREADS)    /* textbook: two loads per thread */
#define REDUCE_VEC4_UNROLL 4                      /* float4 loads in flight per thread */
#define REDUCE_VEC4_BLOCKS_PER_SM 8               /* launch bound: 32 registers, 2048 threads per SM */
#define REDUCE_VEC4_MAX_BLOCKS 4096               /* 132 SMs x 8 blocks = 1056 on the H200 */
#define REDUCE_VEC4_PARTIALS_OFFSET 256           /* scratch: [0, 4) the ticket, then the partials */
#define REDUCE_SLOTS_BYTES (REDUCE_VEC4_PARTIALS_OFFSET + REDUCE_VEC4_MAX_BLOCKS * 4)
#define REDUCE_TREE_OFFSET REDUCE_SLOTS_BYTES     /* textbook partials start here */

/* 1: float4 loads through the non-coherent read-only path (ld.global.nc, what
 * cub uses); 0: streaming loads (ld.global.cs, evict-first). */
#define REDUCE_VEC4_LDG 1

static_assert((REDUCE_THREADS & (REDUCE_THREADS - 1)) == 0,
              "the shared-memory trees halve the block each step: a power of two");
static_assert(REDUCE_THREADS % 32 == 0 && REDUCE_WARPS <= 32,
              "the shuffle sums need whole warps, and one warp must hold every warp's partial");
static_assert(REDUCE_SLOTS_BYTES % 16 == 0, "the textbook partials after vec4's words stay aligned");

// ---- shared device helpers --------------------------------------------------

/* The textbook load: two elements REDUCE_THREADS apart, added on the way in. */
static __device__ __forceinline__ float reduce_load_pair(const float *__restrict__ x, long long n)
{
    long long i = (long long)blockIdx.x * REDUCE_TREE_ELEMS + threadIdx.x;
    float v = 0.0f;
    if (i < n)
        v = x[i];
    if (i + REDUCE_THREADS < n)
        v += x[i + REDUCE_THREADS];
    return v;
}

static __device__ __forceinline__ float reduce_warp_sum(float v)
{
#pragma unroll
    for (int off = 16; off > 0; off >>= 1)
        v += __shfl_down_sync(0xffffffffu, v, off);
    return v;
}

/* Sum over the block; the result is valid in thread 0 only. Uses s_warp, so a
 * second call in the same block needs a __syncthreads() between the two. */
static __device__ __forceinline__ float reduce_block_sum(float v, float *s_warp)
{
    unsigned int lane = threadIdx.x & 31u;
    unsigned int warp = threadIdx.x >> 5;
    v = reduce_warp_sum(v);
    if (lane == 0)
        s_warp[warp] = v;
    __syncthreads();
    v = 0.0f;
    if (warp == 0) {
        if (lane < REDUCE_WARPS)
            v = s_warp[lane];
        v = reduce_warp_sum(v);
    }
    return v;
}

// ---- textbook kernels: one partial per 512 elements ---------------------------

static __global__ void __launch_bounds__(REDUCE_THREADS)
reduce_interleaved_kernel(const float *__restrict__ x, long long n, float *__restrict__ partial)
{
    __shared__ float s_data[REDUCE_THREADS];
    unsigned int tid = threadIdx.x;
    s_data[tid] = reduce_load_pair(x, n);
    __syncthreads();
    for (unsigned int s = 1; s < REDUCE_THREADS; s *= 2) {
        if (tid % (2 * s) == 0)
            s_data[tid] += s_data[tid + s];
        __syncthreads();
    }
    if (tid == 0)
        partial[blockIdx.x] = s_data[0];
}

static __global__ void __launch_bounds__(REDUCE_THREADS)
reduce_sequential_kernel(const float *__restrict__ x, long long n, float *__restrict__ partial)
{
    __shared__ float s_data[REDUCE_THREADS];
    unsigned int tid = threadIdx.x;
    s_data[tid] = reduce_load_pair(x, n);
    __syncthreads();
    for (unsigned int s = REDUCE_THREADS / 2; s > 0; s >>= 1) {
        if (tid < s)
            s_data[tid] += s_data[tid + s];
        __syncthreads();
    }
    if (tid == 0)
        partial[blockIdx.x] = s_data[0];
}

static __global__ void __launch_bounds__(REDUCE_THREADS)
reduce_shuffle_kernel(const float *__restrict__ x, long long n, float *__restrict__ partial)
{
    __shared__ float s_warp[REDUCE_WARPS];
    float v = reduce_block_sum(reduce_load_pair(x, n), s_warp);
    if (threadIdx.x == 0)
        partial[blockIdx.x] = v;
}

// ---- vec4 kernel: grid-stride float4, partials, the last block finishes ------------

static __device__ __forceinline__ float4 reduce_vec4_load(const float4 *p)
{
#if REDUCE_VEC4_LDG
    return __ldg(p);
#else
    return __ldcs(p);
#endif
}

static __device__ __forceinline__ float reduce_hsum4(float4 v)
{
    return (v.x + v.y) + (v.z + v.w);
}

/* x + head is 16-byte aligned; n4 = (n - head) / 4 float4s follow it, then a
 * scalar tail of (n - head) % 4 elements. partials[b] receives block b's sum;
 * *ticket counts the blocks that have stored theirs (0 between calls). */
static __global__ void __launch_bounds__(REDUCE_THREADS, REDUCE_VEC4_BLOCKS_PER_SM)
reduce_vec4_kernel(const float *__restrict__ x, long long n, long long head, float *__restrict__ out,
                   float *partials, unsigned int *ticket)
{
    __shared__ float s_warp[REDUCE_WARPS];
    __shared__ int s_last;
    const long long gid = (long long)blockIdx.x * REDUCE_THREADS + threadIdx.x;
    const long long stride = (long long)gridDim.x * REDUCE_THREADS;
    const float4 *__restrict__ v = (const float4 *)(x + head);
    const long long n4 = (n - head) / 4;
    const long long tail = (n - head) - 4 * n4;
    float acc[REDUCE_VEC4_UNROLL];
#pragma unroll
    for (int u = 0; u < REDUCE_VEC4_UNROLL; u++)
        acc[u] = 0.0f;

    /* the few scalars: up to 3 before the first 16-byte boundary, up to 3 after
     * the last whole float4 (both go to the first threads of block 0) */
    if (gid < head)
        acc[0] = x[gid];
    if (gid < tail)
        acc[1] = x[head + 4 * n4 + gid];

    long long i = gid;
    for (; i + (REDUCE_VEC4_UNROLL - 1) * stride < n4; i += REDUCE_VEC4_UNROLL * stride) {
        float4 q[REDUCE_VEC4_UNROLL];
#pragma unroll
        for (int u = 0; u < REDUCE_VEC4_UNROLL; u++)
            q[u] = reduce_vec4_load(v + i + u * stride);
#pragma unroll
        for (int u = 0; u < REDUCE_VEC4_UNROLL; u++)
            acc[u] += reduce_hsum4(q[u]);
    }
    for (; i < n4; i += stride)
        acc[0] += reduce_hsum4(reduce_vec4_load(v + i));

    float sum = acc[0];
#pragma unroll
    for (int u = 1; u < REDUCE_VEC4_UNROLL; u++)
        sum += acc[u];
    sum = reduce_block_sum(sum, s_warp);

    /* Store the partial, make it visible device-wide, then take a ticket. The
     * block that draws the last ticket (gridDim.x - 1) is the last to finish
     * its store: every partial is then visible to it. atomicInc wraps the
     * counter back to 0 on that draw, ready for the next call. No block ever
     * waits for another, so no block needs another to be resident. */
    if (threadIdx.x == 0) {
        partials[blockIdx.x] = sum;
        __threadfence();
        s_last = atomicInc(ticket, gridDim.x - 1) == gridDim.x - 1;
    }
    __syncthreads(); /* s_last, and separates the two uses of s_warp */
    if (!s_last)
        return;
    __threadfence(); /* acquire: the partials stored before the other tickets */

    /* sum the partials in a fixed order: deterministic. __ldcg reads through
     * L2 (an L1 line of an earlier call on this SM could be stale). */
    float total = 0.0f;
    for (unsigned int b = threadIdx.x; b < gridDim.x; b += REDUCE_THREADS)
        total += __ldcg(&partials[b]);
    total = reduce_block_sum(total, s_warp);
    if (threadIdx.x == 0)
        *out = total;
}

// ---- host side ---------------------------------------------------------------

static long long reduce_tree_blocks(long long count)
{
    return (count + REDUCE_TREE_ELEMS - 1) / REDUCE_TREE_ELEMS;
}

/* Floats the textbook passes store: every pass but the last (a single block,
 * which writes *out). */
static long long reduce_tree_scratch_floats(long long n)
{
    long long total = 0;
    long long count = n;
    while (count > REDUCE_TREE_ELEMS) {
        count = reduce_tree_blocks(count);
        total += count;
    }
    return total;
}

size_t reduce_scratch_bytes(long long n)
{
    if (n < 1)
        n = 1;
    return (size_t)REDUCE_TREE_OFFSET + sizeof(float) * (size_t)reduce_tree_scratch_floats(n);
}

static int reduce_check_args(const float *x, long long n, const float *out, const void *scratch,
                             size_t scratch_bytes)
{
    if (n < 1 || x == NULL || out == NULL || scratch == NULL)
        return (int)cudaErrorInvalidValue;
    if (((uintptr_t)x & 3u) != 0 || ((uintptr_t)scratch & 7u) != 0)
        return (int)cudaErrorInvalidValue;
    if (scratch_bytes < reduce_scratch_bytes(n))
        return (int)cudaErrorInvalidValue;
    return 0;
}

typedef enum {
    REDUCE_TREE_INTERLEAVED,
    REDUCE_TREE_SEQUENTIAL,
    REDUCE_TREE_SHUFFLE
} reduce_tree_kind;

/* Pass after pass of the chosen tree until one block remains; that block
 * writes *out. Pass k reads pass k-1's partials and writes its own after them
 * in scratch, so no pass reads what it writes. */
static int reduce_tree_run(reduce_tree_kind kind, const float *x, long long n, float *out, void *scratch,
                           size_t scratch_bytes, cudaStream_t stream)
{
    int err = reduce_check_args(x, n, out, scratch, scratch_bytes);
    if (err != 0)
        return err;
    float *level = (float *)((char *)scratch + REDUCE_TREE_OFFSET);
    const float *in = x;
    long long count = n;
    for (;;) {
        long long blocks = reduce_tree_blocks(count);
        if (blocks > 0x7fffffffLL)
            return (int)cudaErrorInvalidValue;
        float *dst = blocks == 1 ? out : level;
        dim3 grid((unsigned int)blocks);
        switch (kind) {
        case REDUCE_TREE_INTERLEAVED:
            reduce_interleaved_kernel<<<grid, REDUCE_THREADS, 0, stream>>>(in, count, dst);
            break;
        case REDUCE_TREE_SEQUENTIAL:
            reduce_sequential_kernel<<<grid, REDUCE_THREADS, 0, stream>>>(in, count, dst);
            break;
        case REDUCE_TREE_SHUFFLE:
            reduce_shuffle_kernel<<<grid, REDUCE_THREADS, 0, stream>>>(in, count, dst);
            break;
        }
        err = (int)cudaGetLastError();
        if (err != 0 || blocks == 1)
            return err;
        in = level;
        level += blocks;
        count = blocks;
    }
}

int reduce_interleaved(const float *x, long long n, float *out, void *scratch, size_t scratch_bytes,
                       cudaStream_t stream)
{
    return reduce_tree_run(REDUCE_TREE_INTERLEAVED, x, n, out, scratch, scratch_bytes, stream);
}

int reduce_sequential(const float *x, long long n, float *out, void *scratch, size_t scratch_bytes,
                      cudaStream_t stream)
{
    return reduce_tree_run(REDUCE_TREE_SEQUENTIAL, x, n, out, scratch, scratch_bytes, stream);
}

int reduce_shuffle(const float *x, long long n, float *out, void *scratch, size_t scratch_bytes,
                   cudaStream_t stream)
{
    return reduce_tree_run(REDUCE_TREE_SHUFFLE, x, n, out, scratch, scratch_bytes, stream);
}

/* Blocks of reduce_vec4_kernel resident at once on the current device (SMs x
 * occupancy, the occupancy queried once per device), capped at
 * REDUCE_VEC4_MAX_BLOCKS. */
static int reduce_vec4_resident_blocks(int *blocks)
{
    static int resident[64];
    int dev = 0, sms = 0, per_sm = 0;
    cudaError_t err = cudaGetDevice(&dev);
    if (err == cudaSuccess)
        err = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
    if (err != cudaSuccess)
        return (int)err;
    const int rerr = smem_resident_per_sm((const void *)reduce_vec4_kernel, REDUCE_THREADS, 0, resident, &per_sm);
    if (rerr != 0)
        return rerr;
    long long b = (long long)sms * (per_sm > 0 ? per_sm : 1);
    if (b > REDUCE_VEC4_MAX_BLOCKS)
        b = REDUCE_VEC4_MAX_BLOCKS;
    *blocks = b < 1 ? 1 : (int)b;
    return 0;
}

int reduce_vec4(const float *x, long long n, float *out, void *scratch, size_t scratch_bytes,
                cudaStream_t stream)
{
    int err = reduce_check_args(x, n, out, scratch, scratch_bytes);
    if (err != 0)
        return err;
    int resident = 0;
    err = reduce_vec4_resident_blocks(&resident);
    if (err != 0)
        return err;

    /* elements before the first 16-byte boundary (x is 4-byte aligned) */
    long long head = (long long)(((16u - ((uintptr_t)x & 15u)) & 15u) / 4u);
    if (head > n)
        head = n;
    long long n4 = (n - head) / 4;

    /* no more blocks than give each thread one full unrolled iteration */
    long long per_block = (long long)REDUCE_THREADS * REDUCE_VEC4_UNROLL;
    long long blocks = (n4 + per_block - 1) / per_block;
    if (blocks > resident)
        blocks = resident;
    if (blocks < 1)
        blocks = 1;

    reduce_vec4_kernel<<<(unsigned int)blocks, REDUCE_THREADS, 0, stream>>>(
        x, n, head, out, (float *)((char *)scratch + REDUCE_VEC4_PARTIALS_OFFSET), (unsigned int *)scratch);
    return (int)cudaGetLastError();
}
