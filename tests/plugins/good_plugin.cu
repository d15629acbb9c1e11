/* tests/plugins/good_plugin.cu: a plugin of four sgemm variants and a reduce
 * one, one per outcome the harness must report: ok (a correct naive kernel),
 * SKIP (declines every shape with a reason), ERROR (its launcher returns a CUDA
 * error), FAIL (writes a wrong result), and a reduce with a workspace. */
#include <stdio.h>

#include "compare_plugin.h"

static __global__ void good_gemm_kernel(const float *A, const float *B, float *C, int m, int n, int k, int wrong)
{
    int r = blockIdx.y * 16 + threadIdx.y, c = blockIdx.x * 16 + threadIdx.x;
    if (r >= m || c >= n) return;
    float s = 0.0f;
    for (int p = 0; p < k - wrong; p++) s += A[(size_t)r * k + p] * B[(size_t)p * n + c];
    C[(size_t)r * n + c] = s;
}

static int good_launch(const float *A, const float *B, float *C, int m, int n, int k, cudaStream_t s, int wrong)
{
    dim3 grid((n + 15) / 16, (m + 15) / 16), block(16, 16);
    good_gemm_kernel<<<grid, block, 0, s>>>(A, B, C, m, n, k, wrong);
    return (int)cudaGetLastError();
}

static int good_sgemm(const float *A, const float *B, float *C, int m, int n, int k, cudaStream_t s)
{
    return good_launch(A, B, C, m, n, k, s, 0);
}

static int good_wrong(const float *A, const float *B, float *C, int m, int n, int k, cudaStream_t s)
{
    return good_launch(A, B, C, m, n, k, s, 1); /* one term short */
}

static int good_error(const float *A, const float *B, float *C, int m, int n, int k, cudaStream_t s)
{
    (void)A, (void)B, (void)C, (void)m, (void)n, (void)k, (void)s;
    return (int)cudaErrorInvalidConfiguration;
}

static int good_declines(const compare_plugin_case *c, char *why, size_t len)
{
    snprintf(why, len, "good_declines takes no %lldx%lldx%lld", c->m, c->n, c->k);
    return 0;
}

/* reduce: a shared-memory tree per block of 256 elements, then one atomic
 * add per block (few blocks at the test's sizes: well within the tolerance);
 * the workspace is asked for and must arrive zeroed */
static __global__ void good_reduce_kernel(const float *x, long long n, float *out, const unsigned *ws)
{
    __shared__ float s[256];
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    s[threadIdx.x] = i < n ? x[i] : 0.0f;
    __syncthreads();
    for (int h = 128; h > 0; h >>= 1) {
        if ((int)threadIdx.x < h) s[threadIdx.x] += s[threadIdx.x + h];
        __syncthreads();
    }
    if (threadIdx.x == 0) atomicAdd(out, ws[0] != 0u ? __int_as_float(0x7fc00000) : s[0]); /* dirty: NaN, FAIL */
}

static int good_reduce(const float *x, long long n, float *out, void *ws, size_t ws_bytes, cudaStream_t s)
{
    if (ws_bytes < 64) return (int)cudaErrorInvalidValue;
    cudaError_t e = cudaMemsetAsync(out, 0, 4, s);
    if (e != cudaSuccess) return (int)e;
    good_reduce_kernel<<<(unsigned)((n + 255) / 256), 256, 0, s>>>(x, n, out, (const unsigned *)ws);
    return (int)cudaGetLastError();
}

static size_t good_reduce_ws(const compare_plugin_case *c)
{
    (void)c;
    return 64;
}

static const compare_plugin_variant good_variants[] = {
    {"good_sgemm", "sgemm", "fp32", "test plugin: naive, correct", good_sgemm, NULL, NULL, NULL, NULL, NULL},
    {"good_declines", "sgemm", "fp32", "test plugin: declines every shape", good_sgemm, NULL, NULL, NULL, NULL,
     good_declines},
    {"good_error", "sgemm", "fp32", "test plugin: its launcher fails", good_error, NULL, NULL, NULL, NULL, NULL},
    {"good_wrong", "sgemm", "fp32", "test plugin: a wrong result", good_wrong, NULL, NULL, NULL, NULL, NULL},
    {"good_reduce", "reduce", "fp32", "test plugin: atomics, a workspace", NULL, good_reduce, NULL, NULL,
     good_reduce_ws, NULL},
};

static const compare_plugin good_plugin = {COMPARE_PLUGIN_ABI_VERSION, "good", 5, good_variants};

extern "C" const compare_plugin *compare_plugin_get(void) { return &good_plugin; }
