/* src/gpu/verify_kernels.cu: the harness's own GPU helpers (see verify_kernels.h).
 * Idea: keep verification on the GPU so checking an 8192^2 result costs
 * milliseconds, and return only a few numbers to the host, where verify.c
 * decides. Grid-stride loops, block reductions in double through shared
 * memory, one atomic per block. Not timed: nothing here is a benchmark. */
#include "verify_kernels.h"

#define GC_THREADS 256
#define GC_MAX_BLOCKS 1024

static unsigned gc_blocks(size_t n)
{
    size_t b = (n + GC_THREADS - 1) / GC_THREADS;
    if (b > GC_MAX_BLOCKS) b = GC_MAX_BLOCKS;
    if (b == 0) b = 1;
    return (unsigned)b;
}

// ---------------------------------------------------------------------------
// elementwise

static __global__ void gc_affine_kernel(float *x, size_t n, float a, float b)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        x[i] = fmaf(a, x[i], b);
}

static __global__ void gc_to_f64_kernel(const float *in, double *out, size_t n)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        out[i] = (double)in[i];
}

extern "C" int gpucheck_affine(float *x, size_t n, float a, float b, cudaStream_t stream)
{
    gc_affine_kernel<<<gc_blocks(n), GC_THREADS, 0, stream>>>(x, n, a, b);
    return (int)cudaGetLastError();
}

extern "C" int gpucheck_to_f64(const float *in, double *out, size_t n, cudaStream_t stream)
{
    gc_to_f64_kernel<<<gc_blocks(n), GC_THREADS, 0, stream>>>(in, out, n);
    return (int)cudaGetLastError();
}

// ---------------------------------------------------------------------------
// block reductions

static __device__ double gc_block_sum(double v, double *sh)
{
    for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
    if ((threadIdx.x & 31) == 0) sh[threadIdx.x >> 5] = v;
    __syncthreads();
    v = threadIdx.x < GC_THREADS / 32 ? sh[threadIdx.x] : 0.0;
    if (threadIdx.x < 32)
        for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
    __syncthreads();
    return v; /* valid in thread 0 */
}

static __device__ double gc_block_max(double v, double *sh)
{
    for (int o = 16; o > 0; o >>= 1) v = fmax(v, __shfl_down_sync(0xffffffffu, v, o));
    if ((threadIdx.x & 31) == 0) sh[threadIdx.x >> 5] = v;
    __syncthreads();
    v = threadIdx.x < GC_THREADS / 32 ? sh[threadIdx.x] : 0.0;
    if (threadIdx.x < 32)
        for (int o = 16; o > 0; o >>= 1) v = fmax(v, __shfl_down_sync(0xffffffffu, v, o));
    __syncthreads();
    return v;
}

/* max of non-negative doubles: their bit patterns order like unsigned integers */
static __device__ void gc_atomic_max_nonneg(double *addr, double v)
{
    atomicMax((unsigned long long *)addr, (unsigned long long)__double_as_longlong(v));
}

static __global__ void gc_gemm_sums_kernel(const float *c, const double *ref, size_t n, double *sums)
{
    __shared__ double sh[GC_THREADS / 32];
    double se = 0, sr = 0, mx = 0, bad = 0;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
        double r = ref[i];
        float v = c[i];
        sr += r * r;
        if (!isfinite(v)) {
            bad += 1;
        } else {
            double e = fabs((double)v - r);
            se += e * e;
            mx = fmax(mx, e);
        }
    }
    se = gc_block_sum(se, sh);
    sr = gc_block_sum(sr, sh);
    bad = gc_block_sum(bad, sh);
    mx = gc_block_max(mx, sh);
    if (threadIdx.x == 0) {
        atomicAdd(&sums[0], se);
        atomicAdd(&sums[1], sr);
        gc_atomic_max_nonneg(&sums[2], mx);
        atomicAdd(&sums[3], bad);
    }
}

extern "C" int gpucheck_gemm_sums(const float *c, const double *ref, size_t n, double *sums, cudaStream_t stream)
{
    gc_gemm_sums_kernel<<<gc_blocks(n), GC_THREADS, 0, stream>>>(c, ref, n, sums);
    return (int)cudaGetLastError();
}

static __global__ void gc_sum_f64_kernel(const float *x, size_t n, double *sums)
{
    __shared__ double sh[GC_THREADS / 32];
    double s = 0, s2 = 0;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
        double v = x[i];
        s += v;
        s2 += v * v;
    }
    s = gc_block_sum(s, sh);
    s2 = gc_block_sum(s2, sh);
    if (threadIdx.x == 0) {
        atomicAdd(&sums[0], s);
        atomicAdd(&sums[1], s2);
    }
}

extern "C" int gpucheck_sum_f64(const float *x, size_t n, double *sums, cudaStream_t stream)
{
    gc_sum_f64_kernel<<<gc_blocks(n), GC_THREADS, 0, stream>>>(x, n, sums);
    return (int)cudaGetLastError();
}

// ---------------------------------------------------------------------------
// sort checks

/* IEEE order-preserving key of a float's bits (see src/sortkey.h) */
static __device__ unsigned gc_float_key(unsigned b)
{
    return (b & 0x80000000u) ? ~b : (b | 0x80000000u);
}

static __global__ void gc_compare_kernel(const unsigned *a, const unsigned *b, size_t n, int is_float,
                                         unsigned long long *result)
{
    unsigned long long bad = 0, first = ~0ULL;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
        unsigned x = a[i], y = b[i];
        int differ = x != y;
        if (differ && is_float && ((x | y) & 0x7fffffffu) == 0) differ = 0; /* -0 == +0 */
        if (differ) {
            bad++;
            if (i < first) first = i;
        }
    }
    if (bad) {
        atomicAdd(&result[0], bad);
        atomicMin(&result[1], first);
    }
}

extern "C" int gpucheck_compare_keys(const void *a, const void *b, size_t n, int is_float,
                                     unsigned long long *result, cudaStream_t stream)
{
    gc_compare_kernel<<<gc_blocks(n), GC_THREADS, 0, stream>>>((const unsigned *)a, (const unsigned *)b, n,
                                                               is_float, result);
    return (int)cudaGetLastError();
}

static __global__ void gc_unsorted_kernel(const unsigned *k, size_t n, int is_float, unsigned long long *result)
{
    unsigned long long bad = 0;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i + 1 < n; i += (size_t)gridDim.x * blockDim.x) {
        unsigned x = k[i], y = k[i + 1];
        if (is_float) {
            x = gc_float_key(x);
            y = gc_float_key(y);
            /* -0 and +0 are equal values: either order is sorted */
            if (((k[i] | k[i + 1]) & 0x7fffffffu) == 0) continue;
        }
        if (y < x) bad++;
    }
    if (bad) atomicAdd(&result[0], bad);
}

extern "C" int gpucheck_count_unsorted(const void *keys, size_t n, int is_float, unsigned long long *result,
                                       cudaStream_t stream)
{
    gc_unsorted_kernel<<<gc_blocks(n), GC_THREADS, 0, stream>>>((const unsigned *)keys, n, is_float, result);
    return (int)cudaGetLastError();
}

// ---------------------------------------------------------------------------
// fault injection (tests only)

static __global__ void gc_fault_kernel(float *p)
{
    /* 1 TiB past a valid allocation: unmapped on every current GPU */
    p[(size_t)1 << 38] = 1.0f;
}

extern "C" int gpucheck_fault(float *p, cudaStream_t stream)
{
    gc_fault_kernel<<<1, 1, 0, stream>>>(p);
    return (int)cudaGetLastError();
}
