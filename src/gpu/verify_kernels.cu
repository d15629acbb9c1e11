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

/* 9 elements in 10 go to a hot bin (w % 10 < 9) */
static __device__ int gc_is_hot(unsigned w) { return w % 10u < 9u; }

static __global__ void gc_hist_u8_kernel(const unsigned *bits, unsigned char *x, size_t n, int skewed)
{
    const unsigned char hot[4] = {0, 7, 128, 255};
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
        unsigned w = bits[i], q = w / 10u;
        unsigned char v = (unsigned char)(w >> 24);
        if (skewed) v = gc_is_hot(w) ? hot[q & 3u] : (unsigned char)(q & 0xffu);
        x[i] = v;
    }
}

/* x = -1 + k 2^-23 for k < 2^24: (k - 2^23) is exact in float (24 bits), and
 * so is its product by a power of two; each thread rewrites the word it read */
static __global__ void gc_hist_f32_kernel(float *x, size_t n, int skewed)
{
    const unsigned hot[4] = {0, 100, 512, 1023};
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
        unsigned w = __float_as_uint(x[i]), q = w / 10u;
        unsigned k = w >> 8;
        if (skewed) k = gc_is_hot(w) ? (hot[q & 3u] << 14) + ((q >> 2) & 0x3fffu) : (q & 0xffffffu);
        x[i] = (float)((int)k - (1 << 23)) * 0x1p-23f;
    }
}

static __global__ void gc_small_i32_kernel(int *x, size_t n)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        x[i] = (int)((unsigned)x[i] % 17u) - 8;
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

extern "C" int gpucheck_hist_inputs_u8(const uint32_t *bits, uint8_t *x, size_t n, int skewed, cudaStream_t stream)
{
    gc_hist_u8_kernel<<<gc_blocks(n), GC_THREADS, 0, stream>>>(bits, x, n, skewed);
    return (int)cudaGetLastError();
}

extern "C" int gpucheck_hist_inputs_f32(float *x, size_t n, int skewed, cudaStream_t stream)
{
    gc_hist_f32_kernel<<<gc_blocks(n), GC_THREADS, 0, stream>>>(x, n, skewed);
    return (int)cudaGetLastError();
}

extern "C" int gpucheck_small_i32(int32_t *x, size_t n, cudaStream_t stream)
{
    gc_small_i32_kernel<<<gc_blocks(n), GC_THREADS, 0, stream>>>(x, n);
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

/* adds a thread's count of mismatches and its first one to result[0], result[1] */
static __device__ void gc_note_mismatches(unsigned long long bad, unsigned long long first,
                                          unsigned long long *result)
{
    if (bad) {
        atomicAdd(&result[0], bad);
        atomicMin(&result[1], first);
    }
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
    gc_note_mismatches(bad, first, result);
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
// transpose and scan checks

static __global__ void gc_transpose_kernel(const unsigned *in, const unsigned *out, size_t m, size_t n,
                                           unsigned long long *result)
{
    unsigned long long bad = 0, first = ~0ULL;
    for (size_t k = blockIdx.x * (size_t)blockDim.x + threadIdx.x; k < m * n; k += (size_t)gridDim.x * blockDim.x) {
        size_t j = k / m, i = k % m; /* out row j, column i */
        if (out[k] != in[i * n + j]) {
            bad++;
            if (k < first) first = k;
        }
    }
    gc_note_mismatches(bad, first, result);
}

extern "C" int gpucheck_transpose_mismatch(const float *in, const float *out, size_t m, size_t n,
                                           unsigned long long *result, cudaStream_t stream)
{
    gc_transpose_kernel<<<gc_blocks(m * n), GC_THREADS, 0, stream>>>((const unsigned *)in, (const unsigned *)out, m,
                                                                      n, result);
    return (int)cudaGetLastError();
}

static __global__ void gc_scan_f32_kernel(const float *y, const double *ref, const float *abs_sum, size_t n,
                                          double tol, unsigned long long *result)
{
    __shared__ double sh[GC_THREADS / 32];
    unsigned long long bad = 0, first = ~0ULL, nonfinite = 0;
    double worst = 0.0;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
        float v = y[i];
        double q = NAN;
        if (isfinite(v)) {
            double e = fabs((double)v - ref[i]), a = (double)abs_sum[i];
            q = a > 0.0 ? e / a : (e > 0.0 ? INFINITY : 0.0);
            worst = fmax(worst, q);
        } else {
            nonfinite++;
        }
        if (!(q <= tol)) {
            bad++;
            if (i < first) first = i;
        }
    }
    worst = gc_block_max(worst, sh); /* every thread of the block reaches it */
    gc_note_mismatches(bad, first, result);
    if (nonfinite) atomicAdd(&result[3], nonfinite);
    if (threadIdx.x == 0 && worst > 0.0) gc_atomic_max_nonneg((double *)&result[2], worst);
}

extern "C" int gpucheck_scan_f32_errors(const float *y, const double *ref, const float *abs_sum, size_t n, double tol,
                                        unsigned long long *result, cudaStream_t stream)
{
    gc_scan_f32_kernel<<<gc_blocks(n), GC_THREADS, 0, stream>>>(y, ref, abs_sum, n, tol, result);
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
