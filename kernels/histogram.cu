/* kernels/histogram.cu: hand-written histograms (256 bins over bytes, 1024 over floats).
 *
 * A histogram reads each element once and does one read-modify-write on a
 * counter chosen by the data: the cost is in the counter updates, and it
 * depends on the data. Uniform data spreads updates over all bins (atomics
 * rarely collide, but shared-memory accesses of a warp hit random banks);
 * skewed data (most values in a few bins) sends many lanes of a warp to the
 * same counter, and same-address atomics serialise.
 *
 * Idea, variant by variant (each in a u8 and an f32 form, one kernel body
 * per variant, the form a template parameter):
 *   global_atomic   one atomicAdd on the global histogram per element. Every
 *                   update is an L2 atomic; on skewed data all of them queue on
 *                   a few addresses.
 *   shared_private  one histogram per block in shared memory (shared atomics),
 *                   the grid sized to what is resident and striding over the
 *                   input; at the end each block adds its non-zero bins to the
 *                   global histogram, one atomic per bin. Skewed data still
 *                   serialises inside a warp (32 lanes, one address).
 *   fast            32 copies of the block histogram, one per lane, laid out
 *                   s_hist[bin * 32 + lane]: lane l only ever touches bank l,
 *                   so a warp's 32 shared atomics go to 32 distinct banks and 32
 *                   distinct addresses whatever the data: uniform and skewed
 *                   inputs cost the same single pass. Loads are 16 bytes
 *                   (16 bytes or 4 floats), HIST_FAST_UNROLL_* of them issued
 *                   before their updates (u8: 16 equal bytes are one update of
 *                   16, the run-length shortcut cub also takes on flat data); a scalar head (up to the first 16-byte
 *                   boundary) and tail are taken by the first threads of block
 *                   0. The merge reads the 32 copies of a bin rotated by the bin
 *                   (bank (j + bin) % 32, conflict-free), sums them and does one
 *                   global atomic per non-zero bin per block. Shared memory:
 *                   32 KiB a block for u8 (512 threads, 4 blocks an SM), 128 KiB
 *                   for f32 (1024 threads, 1 block an SM, opted in above the
 *                   48 KiB default).
 *
 * The f32 bin rule is cub::DeviceHistogram::HistogramEven's (see
 * histogram.h): counted iff lo <= x < hi, bin = (int)((x - lo) * r) with
 * r = bins / (hi - lo) computed on the host in float, written here with
 * __fsub_rn / __fmul_rn / __float2int_rz so no contraction or fast-math can
 * change a rounding; a bin of `bins` (rounding just below hi) is clamped to
 * the last bin.
 *
 * Constraints (and why):
 *   - any n >= 1, 64-bit indices; x needs only its type's alignment (head and
 *     tail are scalar). Counters are 32-bit: one block's shared counter holds
 *     at most the elements that block reads, and the global bins wrap past
 *     2^32 - 1 (n >= 2^32 of one value; not checked).
 *   - grid = min(blocks resident at once, blocks with work): queried once per
 *     device per kernel (smem_resident_per_sm, kernels/common/smem.cuh).
 *     The merge costs bins atomics per block, so a grid sized to the GPU keeps
 *     it small against n.
 *   - every launcher zeroes bins on `stream` first (cudaMemsetAsync), then
 *     launches one kernel; nothing is kept between calls.
 *
 * Run just these variants:
 *   ./compare --ops histogram --variants global_atomic,shared_private,fast
 */
#include <math.h>
#include <stdint.h>
#include <cuda_runtime.h>

#include "histogram.h"
#include "kernel_ran.h"
#include "policy.h"
#include "smem.cuh"

// ---- tuning constants -------------------------------------------------------

#define HIST_U8 0  /* form: bytes, 256 bins, bin = value */
#define HIST_F32 1 /* form: floats, 1024 bins over [lo, hi) */

#define HIST_SIMPLE_THREADS 256   /* global_atomic, shared_private */
#define HIST_FAST_THREADS_U8 512  /* 4 blocks x 32 KiB an SM */
#define HIST_FAST_THREADS_F32 1024 /* 1 block x 128 KiB an SM */
#define HIST_FAST_UNROLL_U8 2     /* 16-byte loads in flight per thread: 2048 x 32 B an SM */
#define HIST_FAST_UNROLL_F32 4    /* 1024 x 64 B an SM */
#define HIST_COPIES 32            /* fast: one histogram copy per lane */
#define HIST_MAX_DEVICES 64       /* per-device occupancy caches (smem_resident_per_sm's 0..63) */

static_assert(HIST_COPIES == 32, "fast: copy = lane, so lane l touches bank l only");
static_assert(HIST_FAST_THREADS_U8 >= HISTOGRAM_U8_BINS && HIST_FAST_THREADS_F32 >= HISTOGRAM_F32_BINS,
              "fast's merge gives each bin its own thread");
static_assert(HIST_SIMPLE_THREADS % 32 == 0 && HIST_FAST_THREADS_U8 % 32 == 0 && HIST_FAST_THREADS_F32 % 32 == 0,
              "whole warps: fast's copies are indexed by lane");
static_assert((size_t)HISTOGRAM_F32_BINS * HIST_COPIES * 4 <= 227 * 1024,
              "fast f32's shared histogram must fit one SM's shared memory (227 KiB on sm_90)");

static __host__ __device__ constexpr int hist_bins(int form)
{
    return form == HIST_U8 ? HISTOGRAM_U8_BINS : HISTOGRAM_F32_BINS;
}

// ---- bin rule -------------------------------------------------------------------

/* f32 bin of v, or -1 if v is not counted (outside [lo, hi), or NaN). */
static __device__ __forceinline__ int hist_bin_f32(float v, float lo, float hi, float r)
{
    if (!(v >= lo && v < hi))
        return -1;
    const int b = __float2int_rz(__fmul_rn(__fsub_rn(v, lo), r));
    return b < HISTOGRAM_F32_BINS - 1 ? b : HISTOGRAM_F32_BINS - 1;
}

/* Bin of element i of x (bytes or floats by FORM), -1 if not counted. */
template <int FORM>
static __device__ __forceinline__ int hist_bin_at(const void *__restrict__ x, long long i, float lo, float hi,
                                                  float r)
{
    if (FORM == HIST_U8)
        return (int)((const uint8_t *)x)[i];
    return hist_bin_f32(((const float *)x)[i], lo, hi, r);
}

// ---- global_atomic ------------------------------------------------------------------

template <int FORM>
static __global__ void __launch_bounds__(HIST_SIMPLE_THREADS)
hist_global_atomic_kernel(const void *__restrict__ x, long long n, float lo, float hi, float r,
                          unsigned int *__restrict__ bins)
{
    const long long stride = (long long)gridDim.x * HIST_SIMPLE_THREADS;
    for (long long i = (long long)blockIdx.x * HIST_SIMPLE_THREADS + threadIdx.x; i < n; i += stride) {
        const int b = hist_bin_at<FORM>(x, i, lo, hi, r);
        if (b >= 0)
            atomicAdd(&bins[b], 1u);
    }
}

// ---- shared_private ---------------------------------------------------------------------

template <int FORM>
static __global__ void __launch_bounds__(HIST_SIMPLE_THREADS)
hist_shared_private_kernel(const void *__restrict__ x, long long n, float lo, float hi, float r,
                           unsigned int *__restrict__ bins)
{
    constexpr int BINS = hist_bins(FORM);
    __shared__ unsigned int s_hist[BINS];
    for (int b = threadIdx.x; b < BINS; b += HIST_SIMPLE_THREADS)
        s_hist[b] = 0;
    __syncthreads();
    const long long stride = (long long)gridDim.x * HIST_SIMPLE_THREADS;
    for (long long i = (long long)blockIdx.x * HIST_SIMPLE_THREADS + threadIdx.x; i < n; i += stride) {
        const int b = hist_bin_at<FORM>(x, i, lo, hi, r);
        if (b >= 0)
            atomicAdd(&s_hist[b], 1u);
    }
    __syncthreads();
    for (int b = threadIdx.x; b < BINS; b += HIST_SIMPLE_THREADS) {
        const unsigned int c = s_hist[b];
        if (c != 0)
            atomicAdd(&bins[b], c);
    }
}

// ---- fast: one histogram copy per lane, 16-byte loads ------------------------------------

/* Adds the elements of one 16-byte word (16 bytes or 4 floats) to the
 * lane's copy, mine = s_hist + lane. */
template <int FORM>
static __device__ __forceinline__ void hist_add16(uint4 w, unsigned int *mine, float lo, float hi, float r)
{
    if (FORM == HIST_U8) {
        /* 16 equal bytes (flat image regions, constant data): one update of 16 */
        const unsigned int splat = (w.x & 0xffu) * 0x01010101u;
        if (w.x == splat && w.y == splat && w.z == splat && w.w == splat) {
            atomicAdd(&mine[(w.x & 0xffu) * HIST_COPIES], 16u);
            return;
        }
    }
    const unsigned int words[4] = {w.x, w.y, w.z, w.w};
#pragma unroll
    for (int j = 0; j < 4; j++) {
        if (FORM == HIST_U8) {
#pragma unroll
            for (int k = 0; k < 4; k++)
                atomicAdd(&mine[((words[j] >> (8 * k)) & 0xffu) * HIST_COPIES], 1u);
        } else {
            const int b = hist_bin_f32(__uint_as_float(words[j]), lo, hi, r);
            if (b >= 0)
                atomicAdd(&mine[b * HIST_COPIES], 1u);
        }
    }
}

/* x + head elements is 16-byte aligned; nvec 16-byte words follow it, then a
 * scalar tail of (n - head) - nvec * per_vec elements. Dynamic shared memory:
 * bins x 32 counters. */
template <int FORM, int THREADS, int UNROLL>
static __global__ void __launch_bounds__(THREADS)
hist_fast_kernel(const void *__restrict__ x, long long n, long long head, float lo, float hi, float r,
                 unsigned int *__restrict__ bins)
{
    constexpr int BINS = hist_bins(FORM);
    constexpr int PER_VEC = FORM == HIST_U8 ? 16 : 4; /* elements per 16 bytes */
    extern __shared__ unsigned int s_hist[];          /* [BINS][HIST_COPIES] */
    const int lane = threadIdx.x & 31;
    unsigned int *mine = s_hist + lane;

    for (int i = threadIdx.x; i < BINS * HIST_COPIES; i += THREADS)
        s_hist[i] = 0;
    __syncthreads();

    const long long gid = (long long)blockIdx.x * THREADS + threadIdx.x;
    const long long stride = (long long)gridDim.x * THREADS;
    const long long nvec = (n - head) / PER_VEC;
    const long long tail = (n - head) - nvec * PER_VEC;

    /* the scalars: up to PER_VEC - 1 before the first 16-byte boundary and after the last word */
    if (gid < head) {
        const int b = hist_bin_at<FORM>(x, gid, lo, hi, r);
        if (b >= 0)
            atomicAdd(&mine[b * HIST_COPIES], 1u);
    }
    if (gid < tail) {
        const int b = hist_bin_at<FORM>(x, head + nvec * PER_VEC + gid, lo, hi, r);
        if (b >= 0)
            atomicAdd(&mine[b * HIST_COPIES], 1u);
    }

    const uint4 *__restrict__ v = (const uint4 *)((const char *)x + head * (16 / PER_VEC));
    long long i = gid;
    for (; i + (UNROLL - 1) * stride < nvec; i += UNROLL * stride) {
        uint4 w[UNROLL];
#pragma unroll
        for (int u = 0; u < UNROLL; u++)
            w[u] = __ldg(v + i + u * stride);
#pragma unroll
        for (int u = 0; u < UNROLL; u++)
            hist_add16<FORM>(w[u], mine, lo, hi, r);
    }
    for (; i < nvec; i += stride)
        hist_add16<FORM>(__ldg(v + i), mine, lo, hi, r);
    __syncthreads();

    /* merge: thread b sums bin b's 32 copies, starting at copy b % 32 so the
     * lanes of a warp read 32 distinct banks */
    for (int b = threadIdx.x; b < BINS; b += THREADS) {
        unsigned int c = 0;
#pragma unroll 8
        for (int j = 0; j < HIST_COPIES; j++)
            c += s_hist[b * HIST_COPIES + ((j + b) & (HIST_COPIES - 1))];
        if (c != 0)
            atomicAdd(&bins[b], c);
    }
}

// ---- host side ---------------------------------------------------------------------

/* Per-kernel host state of hist_resident_blocks: the attributes set (one
 * bit per device ordinal) and the resident blocks per SM (per device). */
typedef struct {
    unsigned long long opted, carveout;
    int per_sm[HIST_MAX_DEVICES];
} hist_launch_cache;

/* Blocks of `kernel` resident at once on the current device (SMs x
 * occupancy at `threads` and `smem` dynamic bytes, the occupancy queried
 * once per device: smem_resident_per_sm); first, once per device, raises the
 * kernel's dynamic shared memory limit when smem needs it and, for a kernel
 * with dynamic shared memory, asks for the largest shared-memory carveout
 * (smem_func_attr_once). */
static int hist_resident_blocks(const void *kernel, int threads, size_t smem, hist_launch_cache *c, int *blocks)
{
    int err = 0;
    if (smem > 48 * 1024)
        err = smem_opt_in(kernel, (int)smem, &c->opted);
    if (err == 0 && smem > 0) /* fast: shared memory over L1, so the resident count below holds at launch */
        err = smem_func_attr_once(kernel, cudaFuncAttributePreferredSharedMemoryCarveout,
                                  cudaSharedmemCarveoutMaxShared, &c->carveout);
    int per_sm = 0;
    if (err == 0)
        err = smem_resident_per_sm(kernel, threads, (int)smem, c->per_sm, &per_sm);
    if (err != 0)
        return err;
    if (per_sm < 1)
        return (int)cudaErrorInvalidConfiguration; /* does not fit an SM of this device */
    int dev = 0, sms = 0;
    cudaError_t e = cudaGetDevice(&dev);
    if (e == cudaSuccess)
        e = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
    if (e != cudaSuccess)
        return (int)e;
    *blocks = sms * per_sm;
    return 0;
}

/* min(resident, blocks that get at least one item each), at least 1 */
static unsigned int hist_grid(long long items, long long per_block, int resident)
{
    long long g = (items + per_block - 1) / per_block;
    if (g > resident)
        g = resident;
    return g < 1 ? 1u : (unsigned int)g;
}

/* Checks lo/hi and sets *r = bins / (hi - lo) in float, the value cub's
 * HistogramEven computes; cudaErrorInvalidValue if the range is unusable
 * (not finite, empty, or a width or scale that overflows). */
static int hist_f32_scale(float lo, float hi, float *r)
{
    if (!isfinite(lo) || !isfinite(hi) || !(lo < hi))
        return (int)cudaErrorInvalidValue;
    const float width = hi - lo;
    const float scale = (float)HISTOGRAM_F32_BINS / width;
    if (!isfinite(width) || !isfinite(scale))
        return (int)cudaErrorInvalidValue;
    *r = scale;
    return 0;
}

typedef enum { HIST_GLOBAL_ATOMIC, HIST_SHARED_PRIVATE, HIST_FAST } hist_variant;

/* Per architecture (kernels/common/policy.h): whether `fast` runs its
 * 32-copy kernel for floats (128 KiB of shared memory a block), else the
 * shared_private kernel, noted with the reason. sm_90: yes; sm_80 (untuned):
 * yes, an A100 block may have up to 163 KiB; sm_86/89: no, a block may have
 * 99 KiB there; generic: no (correct everywhere). The u8 fast kernel (32 KiB
 * a block) runs under every entry. */
typedef struct {
    int fast_f32; /* 1: the 32-copy f32 kernel; 0: shared_private's */
} hist_policy;
static const hist_policy hist_policies[POLICY_SLOTS] = {
    {1}, /* sm_90 */
    {1}, /* sm_80 (untuned) */
    {0}, /* sm_86/89 (untuned) */
    {0}, /* generic */
};

template <int FORM>
static int hist_run(hist_variant variant, const void *x, long long n, float lo, float hi, unsigned int *bins,
                    cudaStream_t stream)
{
    if (FORM == HIST_F32 && variant == HIST_FAST && !hist_policies[policy_slot_current()].fast_f32) {
        kernel_ran_note("histogram_shared_private_f32",
                        "this GPU's policy entry: the 32-copy f32 kernel needs 128 KiB of shared memory a block");
        variant = HIST_SHARED_PRIVATE;
    }
    constexpr int BINS = hist_bins(FORM);
    if (n < 1 || x == NULL || bins == NULL)
        return (int)cudaErrorInvalidValue;
    float r = 0.0f;
    if (FORM == HIST_F32) {
        if (((uintptr_t)x & 3u) != 0)
            return (int)cudaErrorInvalidValue;
        int e = hist_f32_scale(lo, hi, &r);
        if (e != 0)
            return e;
    }
    cudaError_t err = cudaMemsetAsync(bins, 0, sizeof(unsigned int) * BINS, stream);
    if (err != cudaSuccess)
        return (int)err;

    int resident = 0, e = 0;
    switch (variant) {
    case HIST_GLOBAL_ATOMIC: {
        static hist_launch_cache cache;
        e = hist_resident_blocks((const void *)hist_global_atomic_kernel<FORM>, HIST_SIMPLE_THREADS, 0, &cache,
                                 &resident);
        if (e != 0)
            return e;
        hist_global_atomic_kernel<FORM><<<hist_grid(n, HIST_SIMPLE_THREADS, resident), HIST_SIMPLE_THREADS, 0,
                                          stream>>>(x, n, lo, hi, r, bins);
        break;
    }
    case HIST_SHARED_PRIVATE: {
        static hist_launch_cache cache;
        e = hist_resident_blocks((const void *)hist_shared_private_kernel<FORM>, HIST_SIMPLE_THREADS, 0, &cache,
                                 &resident);
        if (e != 0)
            return e;
        hist_shared_private_kernel<FORM><<<hist_grid(n, HIST_SIMPLE_THREADS, resident), HIST_SIMPLE_THREADS, 0,
                                           stream>>>(x, n, lo, hi, r, bins);
        break;
    }
    case HIST_FAST: {
        constexpr int THREADS = FORM == HIST_U8 ? HIST_FAST_THREADS_U8 : HIST_FAST_THREADS_F32;
        constexpr int UNROLL = FORM == HIST_U8 ? HIST_FAST_UNROLL_U8 : HIST_FAST_UNROLL_F32;
        constexpr int PER_VEC = FORM == HIST_U8 ? 16 : 4;
        constexpr size_t SMEM = sizeof(unsigned int) * BINS * HIST_COPIES;
        static hist_launch_cache cache;
        e = hist_resident_blocks((const void *)hist_fast_kernel<FORM, THREADS, UNROLL>, THREADS, SMEM, &cache,
                                 &resident);
        if (e != 0)
            return e;
        /* elements before the first 16-byte boundary */
        const size_t elem = FORM == HIST_U8 ? 1 : 4;
        long long head = (long long)(((16u - ((uintptr_t)x & 15u)) & 15u) / elem);
        if (head > n)
            head = n;
        const long long nvec = (n - head) / PER_VEC;
        hist_fast_kernel<FORM, THREADS, UNROLL>
            <<<hist_grid(nvec, (long long)THREADS * UNROLL, resident), THREADS, SMEM, stream>>>(x, n, head, lo, hi,
                                                                                              r, bins);
        break;
    }
    }
    return (int)cudaGetLastError();
}

// ---- launchers -------------------------------------------------------------------------

extern "C" int histogram_global_atomic_u8(const uint8_t *x, long long n, unsigned int *bins, cudaStream_t stream)
{
    return hist_run<HIST_U8>(HIST_GLOBAL_ATOMIC, x, n, 0.0f, 0.0f, bins, stream);
}

extern "C" int histogram_shared_private_u8(const uint8_t *x, long long n, unsigned int *bins, cudaStream_t stream)
{
    return hist_run<HIST_U8>(HIST_SHARED_PRIVATE, x, n, 0.0f, 0.0f, bins, stream);
}

extern "C" int histogram_fast_u8(const uint8_t *x, long long n, unsigned int *bins, cudaStream_t stream)
{
    return hist_run<HIST_U8>(HIST_FAST, x, n, 0.0f, 0.0f, bins, stream);
}

extern "C" int histogram_global_atomic_f32(const float *x, long long n, float lo, float hi, unsigned int *bins,
                                           cudaStream_t stream)
{
    return hist_run<HIST_F32>(HIST_GLOBAL_ATOMIC, x, n, lo, hi, bins, stream);
}

extern "C" int histogram_shared_private_f32(const float *x, long long n, float lo, float hi, unsigned int *bins,
                                            cudaStream_t stream)
{
    return hist_run<HIST_F32>(HIST_SHARED_PRIVATE, x, n, lo, hi, bins, stream);
}

extern "C" int histogram_fast_f32(const float *x, long long n, float lo, float hi, unsigned int *bins,
                                  cudaStream_t stream)
{
    return hist_run<HIST_F32>(HIST_FAST, x, n, lo, hi, bins, stream);
}
