/* tests/plugins/abi1_plugin.cu: a working plugin of ABI version 1 (one
 * launcher field per op), as its author wrote it against the ABI-1 header
 * (compare_plugin_v1.h, frozen): four sgemm variants and a reduce one. compare
 * now speaks ABI 2 and must refuse it with exit 2, before any GPU work, saying
 * how to port it (tests/test_plugin.c). Kept whole, so that the refusal is
 * checked against a real ABI-1 plugin, not a table with a wrong number. */
#include <stdio.h>

#include "compare_plugin_v1.h"
#include "good_kernels.cuh"

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
