/* tests/probes/gemm_wgmma_probe.c: every configuration of gemm_wgmma
 * (kernels/gemm_wgmma.cu, through gemm_wgmma_with) and its pick, timed
 * beside cublasGemmEx (FP32 compute, the same layout) for fp16 and bf16, on
 * square sizes: what the pick rule's cost factors (GEMM_WG_COST) should be
 * re-measured with, before the op file's row exists or for the configurations
 * `compare` does not list. Not a verification (test_gpu_gemm_wgmma does that)
 * and not the benchmark (`compare`, interleaved, with cublaslt_best).
 *
 *   ./gemm_wgmma_probe [N ...]      (default 2048 4096 8192)
 *
 * Each figure: the median of 20 samples, each timed by its own event pair
 * after a 256 MiB memset that flushes the L2; inputs uniform in [-1, 1]
 * from a host generator (not zeros, which would flatter the power draw);
 * layouts tn and nn (fp8: tn only, and no library row here: cuBLASLt FP8 is
 * the op file's). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include "convert_kernels.h"
#include "gemm_wgmma.h"

#define PROBE_CK(call)                                                                             \
    do {                                                                                           \
        cudaError_t e_ = (cudaError_t)(call);                                                      \
        if (e_ != cudaSuccess) {                                                                   \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_)); \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

#define PROBE_SAMPLES 20
#define PROBE_FLUSH_BYTES ((size_t)256 << 20)

typedef struct {
    cudaStream_t s;
    cublasHandle_t h;
    void *flush;
    cudaEvent_t t0, t1;
} probe_ctx;

static int cmp_float(const void *a, const void *b)
{
    const float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

/* one call: 0 = gemm_wgmma_with(cfg), cfg -1 = gemm_wgmma, cfg -2 = cublasGemmEx */
static int probe_call(probe_ctx *p, int cfg, const gemm_args *g)
{
    if (cfg >= 0)
        return gemm_wgmma_with(cfg, g, p->s);
    if (cfg == -1)
        return gemm_wgmma(g, p->s);
    const float one = 1.0f, zero = 0.0f;
    const cudaDataType t = g->a_type == ELEM_FP16 ? CUDA_R_16F : CUDA_R_16BF;
    const int m = (int)g->m, n = (int)g->n, k = (int)g->k;
    const cublasStatus_t st =
        g->b_kmajor ? cublasGemmEx(p->h, CUBLAS_OP_T, CUBLAS_OP_N, n, m, k, &one, g->B, t, k, g->A, t, k, &zero,
                                   g->C, t, n, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT)
                    : cublasGemmEx(p->h, CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &one, g->B, t, n, g->A, t, k, &zero,
                                   g->C, t, n, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
    return st == CUBLAS_STATUS_SUCCESS ? 0 : (int)cudaErrorUnknown;
}

/* median milliseconds of PROBE_SAMPLES L2-flushed calls, -1 when the call fails */
static float probe_time(probe_ctx *p, int cfg, const gemm_args *g)
{
    float ms[PROBE_SAMPLES];
    if (probe_call(p, cfg, g) != 0) /* warm-up */
        return -1.0f;
    for (int i = 0; i < PROBE_SAMPLES; i++) {
        PROBE_CK(cudaMemsetAsync(p->flush, i & 0xff, PROBE_FLUSH_BYTES, p->s));
        PROBE_CK(cudaEventRecord(p->t0, p->s));
        if (probe_call(p, cfg, g) != 0)
            return -1.0f;
        PROBE_CK(cudaEventRecord(p->t1, p->s));
        PROBE_CK(cudaEventSynchronize(p->t1));
        PROBE_CK(cudaEventElapsedTime(&ms[i], p->t0, p->t1));
    }
    qsort(ms, PROBE_SAMPLES, sizeof ms[0], cmp_float);
    return ms[PROBE_SAMPLES / 2];
}

static void probe_size(probe_ctx *p, long long n)
{
    static const struct {
        elem_type t;
        const char *name;
        elem_type c;
    } types[] = {{ELEM_FP16, "fp16", ELEM_FP16}, {ELEM_BF16, "bf16", ELEM_BF16}, {ELEM_FP8_E4M3, "fp8_e4m3", ELEM_BF16}};
    const size_t elems = (size_t)n * (size_t)n;
    float *h = malloc(elems * 4), *f;
    void *a, *b, *c;
    if (!h) {
        fprintf(stderr, "out of host memory\n");
        exit(1);
    }
    unsigned st = 12345u;
    for (size_t i = 0; i < elems; i++) {
        st = st * 1664525u + 1013904223u;
        h[i] = (float)((double)(st >> 8) / (double)(1u << 24) * 2.0 - 1.0);
    }
    PROBE_CK(cudaMalloc((void **)&f, elems * 4));
    PROBE_CK(cudaMalloc(&a, elems * 2));
    PROBE_CK(cudaMalloc(&b, elems * 2));
    PROBE_CK(cudaMalloc(&c, elems * 2));
    PROBE_CK(cudaMemcpyAsync(f, h, elems * 4, cudaMemcpyHostToDevice, p->s));
    const double flops = 2.0 * (double)n * (double)n * (double)n;
    for (size_t ti = 0; ti < sizeof types / sizeof types[0]; ti++) {
        PROBE_CK(convert_from_f32(types[ti].name, f, a, (long long)elems, p->s));
        PROBE_CK(convert_from_f32(types[ti].name, f, b, (long long)elems, p->s));
        for (int kmajor = 1; kmajor >= 0; kmajor--) {
            if (!gemm_wgmma_supports(n, n, n, types[ti].t, kmajor, NULL, 0))
                continue;
            gemm_args g;
            memset(&g, 0, sizeof g);
            g.A = a;
            g.B = b;
            g.C = c;
            g.m = g.n = g.k = n;
            g.a_type = types[ti].t;
            g.c_type = types[ti].c;
            g.b_kmajor = kmajor;
            const float lib = types[ti].t == ELEM_FP8_E4M3 ? -1.0f : probe_time(p, -2, &g);
            for (int cfg = -1; cfg < gemm_wgmma_configs(); cfg++) {
                const float ms = probe_time(p, cfg, &g);
                const char *name = cfg < 0 ? "pick" : gemm_wgmma_config_name(types[ti].t, kmajor, cfg);
                if (ms < 0.0f) {
                    printf("%5lld %-8s %s %-34s failed\n", n, types[ti].name, kmajor ? "tn" : "nn", name);
                    continue;
                }
                printf("%5lld %-8s %s %-34s %8.3f ms %7.1f TFLOP/s", n, types[ti].name, kmajor ? "tn" : "nn", name,
                       ms, flops / ms * 1e-9);
                if (lib > 0.0f)
                    printf("  %5.1f%% of cublasGemmEx (%.1f TFLOP/s)", 100.0 * lib / ms, flops / lib * 1e-9);
                printf("\n");
            }
        }
    }
    PROBE_CK(cudaFree(f));
    PROBE_CK(cudaFree(a));
    PROBE_CK(cudaFree(b));
    PROBE_CK(cudaFree(c));
    free(h);
}

int main(int argc, char **argv)
{
    probe_ctx p;
    PROBE_CK(cudaStreamCreateWithFlags(&p.s, cudaStreamNonBlocking));
    if (cublasCreate(&p.h) != CUBLAS_STATUS_SUCCESS || cublasSetStream(p.h, p.s) != CUBLAS_STATUS_SUCCESS) {
        fprintf(stderr, "cuBLAS handle\n");
        return 1;
    }
    PROBE_CK(cudaMalloc(&p.flush, PROBE_FLUSH_BYTES));
    PROBE_CK(cudaEventCreate(&p.t0));
    PROBE_CK(cudaEventCreate(&p.t1));
    if (argc > 1)
        for (int i = 1; i < argc; i++)
            probe_size(&p, atoll(argv[i]));
    else
        for (long long n = 2048; n <= 8192; n *= 2)
            probe_size(&p, n);
    cublasDestroy(p.h);
    return 0;
}
