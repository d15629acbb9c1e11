/* tests/test_gpu_gemm_wgmma.c: the Hopper TMA + wgmma GEMM (kernels/gemm_wgmma.cu)
 * called directly, every type and layout it takes, against an FP64 reference:
 *  - inputs: uniform [-1, 1] floats rounded to the element type on the device
 *    (convert_from_f32), the reference cuBLAS DGEMM over the same rounded
 *    values (convert_to_f64), C poisoned with NaN first so that an unwritten
 *    element fails;
 *  - error: relative Frobenius norm of (C - ref), C read back through
 *    convert_to_f64; tolerance 2 u_C + 2 k u_32 (u_C: unit roundoff of C's
 *    type, 2^-11 fp16, 2^-8 bf16 (also fp8's C); u_32 = 2^-24 for the FP32
 *    accumulation), far below what a wrong tile, swizzle or stage gives (~1);
 *  - shapes: 128x128x64, 333x257x1008 (nn: n = 264, since nn needs n % 8 == 0),
 *    2048^3 on the pick, 4096^3 in fp8; every configuration (gemm_wgmma_with)
 *    at the odd shape and at 3000x2056x512 (several tiles per CTA, an odd
 *    last cluster pair, edges in m, n and k);
 *  - declines: fp8 nn, k % 8 != 0, nn with n % 8 != 0 say why and return
 *    cudaErrorNotSupported; the kernel_ran note names a wgmma configuration.
 * Exits 77 without a GPU, or off sm_90 / under a forced policy. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include "convert_kernels.h"
#include "gemm_wgmma.h"
#include "kernel_ran.h"
#include "testlib_gpu.h"

typedef struct {
    elem_type t;
    const char *name; /* A's and B's type, convert_kernels' name */
    const char *c_name;
    elem_type c;
    double u_c; /* unit roundoff of C's type */
} wg_type;

static const wg_type wg_types[] = {
    {ELEM_FP16, "fp16", "fp16", ELEM_FP16, 0x1p-11},
    {ELEM_BF16, "bf16", "bf16", ELEM_BF16, 0x1p-8},
    {ELEM_FP8_E4M3, "fp8_e4m3", "bf16", ELEM_BF16, 0x1p-8},
};

static void fill_uniform(float *x, long long n, unsigned *state)
{
    for (long long i = 0; i < n; i++) {
        *state = *state * 1664525u + 1013904223u;
        x[i] = (float)((double)(*state >> 8) / (double)(1u << 24) * 2.0 - 1.0);
    }
}

/* One GEMM (configuration cfg, or the pick for cfg < 0) on the given shape;
 * returns its relative Frobenius error (INFINITY on a non-finite output or
 * an error code, reported). */
static double wg_case(cublasHandle_t h, cudaStream_t s, const wg_type *ty, int kmajor, long long m, long long n,
                      long long k, int cfg)
{
    const int es = elem_type_bytes(ty->t), cs = elem_type_bytes(ty->c);
    const long long na = m * k, nb = n * k, nc = m * n;
    float *ha = malloc((size_t)na * 4), *hb = malloc((size_t)nb * 4);
    double *hc = malloc((size_t)nc * 8), *hr = malloc((size_t)nc * 8);
    if (!ha || !hb || !hc || !hr) {
        fprintf(stderr, "out of host memory\n");
        exit(1);
    }
    unsigned seed = (unsigned)(m * 131 + n * 7 + k) ^ 0x9e3779b9u;
    fill_uniform(ha, na, &seed);
    fill_uniform(hb, nb, &seed);
    float *fa, *fb;
    void *qa, *qb, *qc;
    double *da, *db, *dc, *dr;
    CK(cudaMalloc((void **)&fa, (size_t)na * 4));
    CK(cudaMalloc((void **)&fb, (size_t)nb * 4));
    CK(cudaMalloc(&qa, (size_t)na * es));
    CK(cudaMalloc(&qb, (size_t)nb * es));
    CK(cudaMalloc(&qc, (size_t)nc * cs));
    CK(cudaMalloc((void **)&da, (size_t)na * 8));
    CK(cudaMalloc((void **)&db, (size_t)nb * 8));
    CK(cudaMalloc((void **)&dc, (size_t)nc * 8));
    CK(cudaMalloc((void **)&dr, (size_t)nc * 8));
    CK(cudaMemcpyAsync(fa, ha, (size_t)na * 4, cudaMemcpyHostToDevice, s));
    CK(cudaMemcpyAsync(fb, hb, (size_t)nb * 4, cudaMemcpyHostToDevice, s));
    CK((cudaError_t)convert_from_f32(ty->name, fa, qa, na, s));
    CK((cudaError_t)convert_from_f32(ty->name, fb, qb, nb, s));
    CK((cudaError_t)convert_to_f64(ty->name, qa, da, na, s));
    CK((cudaError_t)convert_to_f64(ty->name, qb, db, nb, s));
    CK(cudaMemsetAsync(qc, 0xff, (size_t)nc * cs, s)); /* NaN in fp16 and bf16 */

    gemm_args g;
    memset(&g, 0, sizeof g);
    g.A = qa;
    g.B = qb;
    g.C = qc;
    g.m = m;
    g.n = n;
    g.k = k;
    g.a_type = ty->t;
    g.c_type = ty->c;
    g.b_kmajor = kmajor;
    kernel_ran_clear();
    const int rc = cfg < 0 ? gemm_wgmma(&g, s) : gemm_wgmma_with(cfg, &g, s);
    const cudaError_t sync = cudaStreamSynchronize(s);
    const char *ran = kernel_ran_name();
    CHECK(rc == 0 && sync == cudaSuccess, "%s %s %lldx%lldx%lld cfg %d: rc %d (%s), sync %s", ty->name,
          kmajor ? "tn" : "nn", m, n, k, cfg, rc, cudaGetErrorString((cudaError_t)rc), cudaGetErrorString(sync));
    if (sync != cudaSuccess)
        exit(1); /* a sticky error: nothing after it is meaningful */
    CHECK(ran && strncmp(ran, "wgmma_", 6) == 0, "kernel_ran names a wgmma configuration: %s", ran ? ran : "(none)");

    /* row-major C = A B seen column-major: C^T (n x m) = op(B) A^T */
    const double one = 1.0, zero = 0.0;
    cublasStatus_t st;
    if (kmajor) /* B n x k row-major = k x n column-major: transposed */
        st = cublasDgemm(h, CUBLAS_OP_T, CUBLAS_OP_N, (int)n, (int)m, (int)k, &one, db, (int)k, da, (int)k, &zero,
                         dr, (int)n);
    else /* B k x n row-major = n x k column-major */
        st = cublasDgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, (int)n, (int)m, (int)k, &one, db, (int)n, da, (int)k, &zero,
                         dr, (int)n);
    CHECK(st == CUBLAS_STATUS_SUCCESS, "cublasDgemm: %d", (int)st);
    CK((cudaError_t)convert_to_f64(ty->c_name, qc, dc, nc, s));
    CK(cudaMemcpyAsync(hc, dc, (size_t)nc * 8, cudaMemcpyDeviceToHost, s));
    CK(cudaMemcpyAsync(hr, dr, (size_t)nc * 8, cudaMemcpyDeviceToHost, s));
    CK(cudaStreamSynchronize(s));
    double num = 0.0, den = 0.0;
    long long bad = 0, first_bad = -1;
    for (long long i = 0; i < nc; i++) {
        if (!isfinite(hc[i])) {
            if (bad++ == 0)
                first_bad = i;
            continue;
        }
        const double e = hc[i] - hr[i];
        num += e * e;
        den += hr[i] * hr[i];
    }
    double err = den > 0.0 ? sqrt(num / den) : sqrt(num);
    if (bad > 0) {
        fprintf(stderr, "%s %s %lldx%lldx%lld cfg %d: %lld non-finite outputs, first at row %lld col %lld\n",
                ty->name, kmajor ? "tn" : "nn", m, n, k, cfg, bad, first_bad / n, first_bad % n);
        err = INFINITY;
    }
    const double tol = 2.0 * ty->u_c + 2.0 * (double)k * 0x1p-24;
    CHECK(err <= tol, "%s %s %lldx%lldx%lld %s: rel. Frobenius error %.3e > tolerance %.3e", ty->name,
          kmajor ? "tn" : "nn", m, n, k, ran ? ran : "?", err, tol);
    printf("%-9s %s %5lldx%5lldx%5lld %-34s err %.3e (tol %.3e)\n", ty->name, kmajor ? "tn" : "nn", m, n, k,
           ran ? ran : "?", err, tol);
    CK(cudaFree(fa));
    CK(cudaFree(fb));
    CK(cudaFree(qa));
    CK(cudaFree(qb));
    CK(cudaFree(qc));
    CK(cudaFree(da));
    CK(cudaFree(db));
    CK(cudaFree(dc));
    CK(cudaFree(dr));
    free(ha);
    free(hb);
    free(hc);
    free(hr);
    return err;
}

/* a declined case: supports says 0 with a reason containing `needle`, the launcher NotSupported */
static void wg_declines(long long m, long long n, long long k, elem_type t, int kmajor, const char *needle)
{
    char why[256];
    const int ok = gemm_wgmma_supports(m, n, k, t, kmajor, why, sizeof why);
    CHECK(!ok && strstr(why, needle) != NULL, "%lldx%lldx%lld type %d %s: supports %d, why '%s' (want '%s')", m,
          n, k, (int)t, kmajor ? "tn" : "nn", ok, why, needle);
    gemm_args g;
    memset(&g, 0, sizeof g);
    g.A = g.B = g.C = (void *)(uintptr_t)256; /* never dereferenced: declined first */
    g.m = m;
    g.n = n;
    g.k = k;
    g.a_type = t;
    g.c_type = t == ELEM_FP8_E4M3 ? ELEM_BF16 : t;
    g.b_kmajor = kmajor;
    CHECK(gemm_wgmma(&g, 0) == (int)cudaErrorNotSupported, "declined case returns cudaErrorNotSupported");
}

int main(void)
{
    test_require_gpu();
    if (!test_sm90a_runs()) {
        printf("gemm_wgmma needs sm_90 under the sm_90 policy: skipped\n");
        return 77;
    }
    cudaStream_t s;
    cublasHandle_t h;
    CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    CHECK(cublasCreate(&h) == CUBLAS_STATUS_SUCCESS, "cublasCreate");
    CHECK(cublasSetStream(h, s) == CUBLAS_STATUS_SUCCESS, "cublasSetStream");
    CHECK(cublasSetMathMode(h, CUBLAS_DEFAULT_MATH) == CUBLAS_STATUS_SUCCESS, "cublasSetMathMode");

    wg_declines(333, 264, 1008, ELEM_FP8_E4M3, 0, "tn");
    wg_declines(333, 264, 1001, ELEM_FP16, 1, "k not a multiple of 8");
    wg_declines(333, 264, 1000, ELEM_FP8_E4M3, 1, "k not a multiple of 16");
    wg_declines(333, 257, 1008, ELEM_BF16, 0, "n not a multiple of 8");
    CHECK(gemm_wgmma_supports(333, 257, 1008, ELEM_BF16, 1, NULL, 0) == 1, "bf16 tn 333x257x1008 runs");
    CHECK(gemm_wgmma_config_name(ELEM_FP8_E4M3, 0, 0) == NULL, "no fp8 nn configuration");

    for (size_t ti = 0; ti < sizeof wg_types / sizeof wg_types[0]; ti++) {
        const wg_type *ty = &wg_types[ti];
        for (int kmajor = 1; kmajor >= 0; kmajor--) {
            if (!kmajor && ty->t == ELEM_FP8_E4M3)
                continue; /* declined above */
            const long long odd_n = kmajor ? 257 : 264;
            wg_case(h, s, ty, kmajor, 128, 128, 64, -1);
            wg_case(h, s, ty, kmajor, 333, odd_n, 1008, -1);
            wg_case(h, s, ty, kmajor, 2048, 2048, 2048, -1);
            if (ty->t == ELEM_FP8_E4M3)
                wg_case(h, s, ty, kmajor, 4096, 4096, 4096, -1);
            for (int c = 0; c < gemm_wgmma_configs(); c++) {
                wg_case(h, s, ty, kmajor, 333, odd_n, 1008, c);
                wg_case(h, s, ty, kmajor, 3000, 2056, 512, c);
            }
        }
    }
    cublasDestroy(h);
    CK(cudaStreamDestroy(s));
    return test_finish("test_gpu_gemm_wgmma");
}
