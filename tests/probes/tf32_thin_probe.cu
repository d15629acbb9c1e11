/* tests/probes/tf32_thin_probe.cu: tf32_tma's thin-mw kernel
 * (kernels/sgemm_tf32_thin.cuh) alone, outside the harness: checks it
 * against a CPU double GEMM on sampled columns (every row, misaligned B and
 * C as well) and times it next to cuBLAS TF32 at the shapes given, so the
 * kernel can be tried on the GPU machine without building `compare`.
 *   cmake --build build --target tf32_thin_probe && build/tf32_thin_probe [MxNxK,...]
 * or by hand:
 *   nvcc -std=c++17 -O3 -gencode=arch=compute_90a,code=sm_90a -Ikernels
 *     -Ikernels/common tests/probes/tf32_thin_probe.cu -lcublas -o thin_probe
 *   ./thin_probe [MxNxK,...]
 * Not part of `all` or of ctest. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include "sgemm_tf32_thin.cuh"

#define PCK(x)                                                                                                   \
    do {                                                                                                         \
        cudaError_t e_ = (x);                                                                                    \
        if (e_ != cudaSuccess) {                                                                                 \
            fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_));                          \
            exit(1);                                                                                             \
        }                                                                                                        \
    } while (0)

static int check(int m, int n, int k, int off_b, int off_c, int sms, cudaStream_t s)
{
    const size_t na = (size_t)m * k, nb = (size_t)k * n + 4, nc = (size_t)m * n + 4;
    float *hA = (float *)malloc(na * 4), *hB = (float *)malloc(nb * 4), *hC = (float *)malloc(nc * 4);
    unsigned long long r = 12345 + m * 7 + n * 13 + k;
    for (size_t i = 0; i < na; i++) {
        r = r * 6364136223846793005ULL + 1442695040888963407ULL;
        hA[i] = (float)((double)(r >> 40) / 8388608.0 - 1.0);
    }
    for (size_t i = 0; i < nb; i++) {
        r = r * 6364136223846793005ULL + 1442695040888963407ULL;
        hB[i] = (float)((double)(r >> 40) / 8388608.0 - 1.0);
    }
    float *dA, *dB, *dC;
    PCK(cudaMalloc(&dA, na * 4));
    PCK(cudaMalloc(&dB, nb * 4));
    PCK(cudaMalloc(&dC, nc * 4));
    PCK(cudaMemcpyAsync(dA, hA, na * 4, cudaMemcpyHostToDevice, s));
    PCK(cudaMemcpyAsync(dB, hB, nb * 4, cudaMemcpyHostToDevice, s));
    PCK(cudaMemsetAsync(dC, 0xff, nc * 4, s));
    const float *B = dB + off_b;
    float *C = dC + off_c;
    const int rc = sgemm_tf32_thin(dA, B, C, m, n, k, sms, s);
    PCK(cudaStreamSynchronize(s));
    PCK(cudaGetLastError());
    PCK(cudaMemcpyAsync(hC, dC, nc * 4, cudaMemcpyDeviceToHost, s));
    PCK(cudaStreamSynchronize(s));
    const float *hb = hB + off_b;
    const float *hc = hC + off_c;
    double worst = 0.0;
    long long bad = 0;
    const int step = n > 4000 ? 7 : 1;
    for (int jj = 0; jj <= (n - 1) / step + 1; jj++) {
        const int j = jj * step < n ? jj * step : n - 1;
        for (int i = 0; i < m; i++) {
            double ref = 0.0, mag = 0.0;
            for (int q = 0; q < k; q++) {
                ref += (double)hA[(size_t)i * k + q] * hb[(size_t)q * n + j];
                mag += fabs((double)hA[(size_t)i * k + q] * hb[(size_t)q * n + j]);
            }
            const double got = hc[(size_t)i * n + j];
            const double err = fabs(got - ref) / (mag + 1e-30);
            if (!(err <= 2e-3)) {
                if (bad < 3)
                    printf("  bad C[%d][%d] = %g, ref %g\n", i, j, got, ref);
                bad++;
            }
            if (err > worst || err != err)
                worst = err;
        }
    }
    /* the words around C untouched (still NaN bits) */
    int guard_ok = 1;
    for (size_t i = 0; i < (size_t)off_c; i++)
        guard_ok &= hC[i] != hC[i];
    for (size_t i = off_c + (size_t)m * n; i < nc; i++)
        guard_ok &= hC[i] != hC[i];
    printf("check %dx%dx%d offB %d offC %d: %s rc %d, worst rel %.2e, bad %lld, guard %s (%s)\n", m, n, k, off_b,
           off_c, rc == 0 && bad == 0 && guard_ok ? "PASS" : "FAIL", rc, worst, bad, guard_ok ? "ok" : "BROKEN",
           sgemm_tf32_thin_name(m, n, B));
    cudaFree(dA);
    cudaFree(dB);
    cudaFree(dC);
    free(hA);
    free(hB);
    free(hC);
    return rc == 0 && bad == 0 && guard_ok;
}

static void timeit(int m, int n, int k, int sms, cudaStream_t s, cublasHandle_t h)
{
    float *dA, *dB, *dC, *flush;
    const size_t flush_bytes = 256u << 20;
    PCK(cudaMalloc(&dA, (size_t)m * k * 4));
    PCK(cudaMalloc(&dB, (size_t)k * n * 4));
    PCK(cudaMalloc(&dC, (size_t)m * n * 4));
    PCK(cudaMalloc(&flush, flush_bytes));
    PCK(cudaMemsetAsync(dA, 0, (size_t)m * k * 4, s));
    PCK(cudaMemsetAsync(dB, 0, (size_t)k * n * 4, s));
    cudaEvent_t e0, e1;
    PCK(cudaEventCreate(&e0));
    PCK(cudaEventCreate(&e1));
    const float one = 1.0f, zero = 0.0f;
    for (int which = 0; which < 2; which++) {
        float best = 1e30f, sum = 0.0f;
        const int reps = 30;
        for (int rep = 0; rep < reps + 3; rep++) {
            PCK(cudaMemsetAsync(flush, rep & 0xff, flush_bytes, s));
            PCK(cudaEventRecord(e0, s));
            if (which == 0) {
                /* C (m x n row-major) = A B: column-major C^T (n x m) = B^T A^T */
                if (cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &one, dB, n, dA, k, &zero, dC, n) !=
                    CUBLAS_STATUS_SUCCESS) {
                    printf("cublas failed\n");
                    exit(1);
                }
            } else {
                const int rc = sgemm_tf32_thin(dA, dB, dC, m, n, k, sms, s);
                if (rc) {
                    printf("thin failed %d\n", rc);
                    exit(1);
                }
            }
            PCK(cudaEventRecord(e1, s));
            PCK(cudaEventSynchronize(e1));
            float ms = 0.0f;
            PCK(cudaEventElapsedTime(&ms, e0, e1));
            if (rep >= 3) {
                best = ms < best ? ms : best;
                sum += ms;
            }
        }
        printf("time %dx%dx%d %-10s min %.4f ms  mean %.4f ms  (B once at 4.8 TB/s: %.4f ms)\n", m, n, k,
               which == 0 ? "cublas_tf32" : "thin", best, sum / reps, (double)k * n * 4 / 4.8e12 * 1e3);
    }
    cudaFree(dA);
    cudaFree(dB);
    cudaFree(dC);
    cudaFree(flush);
}

int main(int argc, char **argv)
{
    int dev = 0, sms = 0;
    PCK(cudaGetDevice(&dev));
    PCK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    cudaStream_t s;
    PCK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    cublasHandle_t h;
    cublasCreate(&h);
    cublasSetStream(h, s);
    cublasSetMathMode(h, CUBLAS_TF32_TENSOR_OP_MATH);
    static const int shapes[][3] = {{33, 1001, 257}, {17, 4099, 130}, {64, 3001, 77}, {9, 515, 33},
                                    {48, 777, 1},    {2, 1001, 300},  {33, 1000, 257}, {33, 1001, 1027},
                                    {64, 3001, 777}, {1, 1, 1},       {5, 1, 3},       {17, 31, 33},
                                    {9, 131, 601},   {64, 129, 4095}, {56, 50257, 67}, {24, 300, 5000}};
    int fails = 0;
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
        fails += !check(shapes[i][0], shapes[i][1], shapes[i][2], 0, 0, sms, s);
        fails += !check(shapes[i][0], shapes[i][1], shapes[i][2], 1, 3, sms, s);
    }
    fails += !check(33, 50257, 767, 0, 0, sms, s);
    printf("%d check failures\n", fails);
    const char *list = argc > 1 ? argv[1] : "33x50257x4096,33x50257x767";
    char buf[1024];
    snprintf(buf, sizeof buf, "%s", list);
    for (char *tok = strtok(buf, ","); tok; tok = strtok(NULL, ",")) {
        int m, n, k;
        if (sscanf(tok, "%dx%dx%d", &m, &n, &k) == 3)
            timeit(m, n, k, sms, s, h);
    }
    return fails != 0;
}
