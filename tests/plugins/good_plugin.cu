/* tests/plugins/good_plugin.cu: an ABI-2 plugin with a row for every op and
 * one per outcome the harness must report (tests/test_gpu_cli.c runs it,
 * tests/test_plugin.c lists it):
 *   sgemm      good_sgemm (ok, a naive kernel), good_declines (SKIP with its
 *              reason), good_error (ERROR: its launch returns a CUDA error),
 *              good_wrong (FAIL: one term of k short)
 *   reduce     good_reduce: a tree per block and one atomic a block, with a
 *              workspace that must arrive zeroed
 *   sort       good_sort (u32 and f32 rows of one name): a rank sort, declines
 *              more than 2^16 keys; good_u32only: u32 only (its f32 case SKIP)
 *   transpose  good_transpose: one thread an element
 *   histogram  good_hist (u8 and f32): global atomics, the bin count read from
 *              the "bins" axis
 *   scan       good_scan (i32 and f32): one block, a chunk a thread
 *   transfer   good_transfer: copy in, 2x+1, copy out on the stream
 * Every launch first checks that its args carry the slots compare_plugin.h
 * documents for its op (counts, sizes, axes): a mismatch is an ERROR row. Not
 * fast: small, plainly correct kernels. */
#include <stdio.h>

#include "compare_plugin.h"
#include "good_kernels.cuh"

#define GOOD_BAD_ARGS ((int)cudaErrorInvalidValue)

/* 1 if a has the slot counts given and a struct_size that covers the fields
 * this header knows */
static int good_args_ok(const compare_plugin_args *a, int inputs, int outputs)
{
    return COMPARE_PLUGIN_ARGS_HAS(a, workspace_bytes) && a->input_count == inputs && a->output_count == outputs;
}

static unsigned good_blocks(long long n, int per) { return (unsigned)((n + per - 1) / per); }

// ---------------------------------------------------------------------------
// sgemm (good_kernels.cuh)

static int good_gemm_launch(const compare_plugin_args *a, cudaStream_t s, int wrong)
{
    /* the sizes are both fields and named axes; an sgemm case has no elems */
    if (!good_args_ok(a, 2, 1) || compare_plugin_axis_value(a, "m", -1) != a->m ||
        compare_plugin_axis_value(a, "n", -1) != a->n || compare_plugin_axis_value(a, "k", -1) != a->k ||
        compare_plugin_axis_value(a, "elems", -1) != -1)
        return GOOD_BAD_ARGS;
    int m = (int)a->m, n = (int)a->n, k = (int)a->k;
    dim3 grid((n + 15) / 16, (m + 15) / 16), block(16, 16);
    good_gemm_kernel<<<grid, block, 0, s>>>((const float *)a->inputs[0], (const float *)a->inputs[1],
                                            (float *)a->outputs[0], m, n, k, wrong);
    return (int)cudaGetLastError();
}

static int good_sgemm(const compare_plugin_args *a, cudaStream_t s) { return good_gemm_launch(a, s, 0); }

static int good_wrong(const compare_plugin_args *a, cudaStream_t s) { return good_gemm_launch(a, s, 1); }

static int good_error(const compare_plugin_args *a, cudaStream_t s)
{
    (void)a, (void)s;
    return (int)cudaErrorInvalidConfiguration;
}

static int good_declines(const compare_plugin_args *a, char *why, size_t len)
{
    snprintf(why, len, "good_declines takes no %lldx%lldx%lld", a->m, a->n, a->k);
    return 0;
}

// ---------------------------------------------------------------------------
// reduce (good_kernels.cuh): the workspace is asked for and must arrive zeroed

static int good_reduce(const compare_plugin_args *a, cudaStream_t s)
{
    if (!good_args_ok(a, 1, 1) || a->workspace_bytes < 64 || !a->workspace) return GOOD_BAD_ARGS;
    float *out = (float *)a->outputs[0];
    cudaError_t e = cudaMemsetAsync(out, 0, 4, s);
    if (e != cudaSuccess) return (int)e;
    good_reduce_kernel<<<good_blocks(a->elems, 256), 256, 0, s>>>((const float *)a->inputs[0], a->elems, out,
                                                                  (const unsigned *)a->workspace);
    return (int)cudaGetLastError();
}

static size_t good_reduce_ws(const compare_plugin_args *a)
{
    (void)a;
    return 64;
}

// ---------------------------------------------------------------------------
// sort: out[rank(i)] = in[i], the rank counting the keys before key i (ties
// by index): O(n^2), so at most 2^16 keys. f32 keys compare by their IEEE
// order through the usual bit flip.

static __device__ unsigned good_sort_key(unsigned u, int is_float)
{
    return !is_float ? u : (u & 0x80000000u) ? ~u : u | 0x80000000u;
}

static __global__ void good_rank_sort(const unsigned *in, unsigned *out, int n, int is_float)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const unsigned ki = good_sort_key(in[i], is_float);
    int rank = 0;
    for (int j = 0; j < n; j++) {
        const unsigned kj = good_sort_key(in[j], is_float);
        rank += kj < ki || (kj == ki && j < i);
    }
    out[rank] = in[i];
}

static int good_sort(const compare_plugin_args *a, cudaStream_t s)
{
    if (!good_args_ok(a, 1, 1) || (strcmp(a->type, "u32") != 0 && strcmp(a->type, "f32") != 0)) return GOOD_BAD_ARGS;
    good_rank_sort<<<good_blocks(a->elems, 256), 256, 0, s>>>((const unsigned *)a->inputs[0],
                                                              (unsigned *)a->outputs[0], (int)a->elems,
                                                              strcmp(a->type, "f32") == 0);
    return (int)cudaGetLastError();
}

static int good_sort_supports(const compare_plugin_args *a, char *why, size_t len)
{
    if (a->elems <= (1 << 16)) return 1;
    snprintf(why, len, "good_sort: a rank sort, O(n^2): at most 2^16 keys, not %lld", a->elems);
    return 0;
}

// ---------------------------------------------------------------------------
// transpose: out (n x m) = in (m x n) transposed, one thread an element

static __global__ void good_transpose_kernel(const float *in, float *out, int m, int n)
{
    long long e = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (e >= (long long)m * n) return;
    int i = (int)(e / n), j = (int)(e % n);
    out[(size_t)j * m + i] = in[e];
}

static int good_transpose(const compare_plugin_args *a, cudaStream_t s)
{
    if (!good_args_ok(a, 1, 1) || a->k != 0) return GOOD_BAD_ARGS;
    good_transpose_kernel<<<good_blocks(a->m * a->n, 256), 256, 0, s>>>((const float *)a->inputs[0],
                                                                        (float *)a->outputs[0], (int)a->m, (int)a->n);
    return (int)cudaGetLastError();
}

// ---------------------------------------------------------------------------
// histogram: one global atomic an element; u8: bin = the byte; f32: the bin
// rule of compare_plugin.h over [-1, 1)

static __global__ void good_hist_kernel(const void *x, long long n, int is_float, int bins, unsigned *counts)
{
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    if (!is_float) {
        atomicAdd(&counts[((const unsigned char *)x)[i]], 1u);
        return;
    }
    const float v = ((const float *)x)[i], lo = -1.0f, hi = 1.0f, r = (float)bins / (hi - lo);
    if (!(v >= lo && v < hi)) return;
    int b = (int)((v - lo) * r);
    atomicAdd(&counts[b < bins - 1 ? b : bins - 1], 1u);
}

static int good_hist(const compare_plugin_args *a, cudaStream_t s)
{
    const int is_float = strcmp(a->type, "f32") == 0;
    const long long bins = compare_plugin_axis_value(a, "bins", 0);
    if (!good_args_ok(a, 1, 1) || bins != (is_float ? 1024 : 256)) return GOOD_BAD_ARGS;
    cudaError_t e = cudaMemsetAsync(a->outputs[0], 0, (size_t)bins * 4, s); /* poisoned on entry */
    if (e != cudaSuccess) return (int)e;
    good_hist_kernel<<<good_blocks(a->elems, 256), 256, 0, s>>>(a->inputs[0], a->elems, is_float, (int)bins,
                                                                (unsigned *)a->outputs[0]);
    return (int)cudaGetLastError();
}

// ---------------------------------------------------------------------------
// scan: one block of 1024 threads, thread t a contiguous chunk: chunk sums,
// an inclusive scan of them in shared memory, then each chunk again from its
// offset. Acc: unsigned for i32 (wrap-around without undefined behaviour).

#define GOOD_SCAN_THREADS 1024

template <typename T, typename Acc>
static __global__ void good_scan_kernel(const T *in, T *out, long long n)
{
    __shared__ Acc part[GOOD_SCAN_THREADS];
    const long long per = (n + GOOD_SCAN_THREADS - 1) / GOOD_SCAN_THREADS;
    const long long b = threadIdx.x * per, e = b + per < n ? b + per : n;
    Acc sum = 0;
    for (long long i = b; i < e; i++) sum += (Acc)in[i];
    part[threadIdx.x] = sum;
    __syncthreads();
    for (int d = 1; d < GOOD_SCAN_THREADS; d <<= 1) {
        Acc add = threadIdx.x >= (unsigned)d ? part[threadIdx.x - d] : (Acc)0;
        __syncthreads();
        part[threadIdx.x] += add;
        __syncthreads();
    }
    Acc run = threadIdx.x ? part[threadIdx.x - 1] : (Acc)0;
    for (long long i = b; i < e; i++) {
        run += (Acc)in[i];
        out[i] = (T)run;
    }
}

static int good_scan(const compare_plugin_args *a, cudaStream_t s)
{
    if (!good_args_ok(a, 1, 1)) return GOOD_BAD_ARGS;
    if (strcmp(a->type, "f32") == 0)
        good_scan_kernel<float, float><<<1, GOOD_SCAN_THREADS, 0, s>>>((const float *)a->inputs[0],
                                                                       (float *)a->outputs[0], a->elems);
    else
        good_scan_kernel<int, unsigned><<<1, GOOD_SCAN_THREADS, 0, s>>>((const int *)a->inputs[0],
                                                                        (int *)a->outputs[0], a->elems);
    return (int)cudaGetLastError();
}

// ---------------------------------------------------------------------------
// transfer: x (pinned host) -> the device buffer -> 2x+1 -> y (pinned host)

static __global__ void good_affine(float *d, long long n)
{
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) d[i] = 2.0f * d[i] + 1.0f;
}

static int good_transfer(const compare_plugin_args *a, cudaStream_t s)
{
    if (!good_args_ok(a, 1, 2)) return GOOD_BAD_ARGS;
    const size_t bytes = (size_t)a->elems * 4;
    float *dev = (float *)a->outputs[1];
    cudaError_t e = cudaMemcpyAsync(dev, a->inputs[0], bytes, cudaMemcpyHostToDevice, s);
    if (e != cudaSuccess) return (int)e;
    good_affine<<<good_blocks(a->elems, 256), 256, 0, s>>>(dev, a->elems);
    if ((e = cudaGetLastError()) != cudaSuccess) return (int)e;
    return (int)cudaMemcpyAsync(a->outputs[0], dev, bytes, cudaMemcpyDeviceToHost, s);
}

// ---------------------------------------------------------------------------
// the table

#define GOOD_ROW(name, op, type, about, launch, ws, supports) \
    {sizeof(compare_plugin_variant), name, op, type, "test plugin: " about, launch, ws, supports}

static const compare_plugin_variant good_variants[] = {
    GOOD_ROW("good_sgemm", "sgemm", "fp32", "naive, correct", good_sgemm, NULL, NULL),
    GOOD_ROW("good_declines", "sgemm", "fp32", "declines every shape", good_sgemm, NULL, good_declines),
    GOOD_ROW("good_error", "sgemm", "fp32", "its launcher fails", good_error, NULL, NULL),
    GOOD_ROW("good_wrong", "sgemm", "fp32", "a wrong result", good_wrong, NULL, NULL),
    GOOD_ROW("good_reduce", "reduce", "fp32", "atomics, a workspace", good_reduce, good_reduce_ws, NULL),
    GOOD_ROW("good_sort", "sort", "u32", "rank sort", good_sort, NULL, good_sort_supports),
    GOOD_ROW("good_sort", "sort", "f32", "rank sort", good_sort, NULL, good_sort_supports),
    GOOD_ROW("good_u32only", "sort", "u32", "rank sort, u32 keys only", good_sort, NULL, good_sort_supports),
    GOOD_ROW("good_transpose", "transpose", "fp32", "one thread an element", good_transpose, NULL, NULL),
    GOOD_ROW("good_hist", "histogram", "u8", "global atomics", good_hist, NULL, NULL),
    GOOD_ROW("good_hist", "histogram", "f32", "global atomics", good_hist, NULL, NULL),
    GOOD_ROW("good_scan", "scan", "i32", "one block", good_scan, NULL, NULL),
    GOOD_ROW("good_scan", "scan", "f32", "one block", good_scan, NULL, NULL),
    GOOD_ROW("good_transfer", "transfer", "fp32", "copy in, 2x+1, copy out", good_transfer, NULL, NULL),
};

static const compare_plugin good_plugin = {COMPARE_PLUGIN_ABI_VERSION, sizeof(compare_plugin), "good",
                                           (int)(sizeof good_variants / sizeof good_variants[0]), good_variants};

extern "C" const compare_plugin *compare_plugin_get(void) { return &good_plugin; }
