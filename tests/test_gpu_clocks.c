/* tests/test_gpu_clocks.c (gpu): the clocks module (src/gpu/clocks.c) on the
 * real driver's NVML: the CUDA device found by its PCI bus id, NVML's maximum
 * clocks agreeing with CUDA's, and a window around ~250 ms of SGEMMs whose
 * figures are plausible for a busy GPU. Prints the summary for the log.
 * Exits 77 without a GPU; fails when NVML cannot be opened on a machine with
 * one (rows would then carry no clocks). */
#include "clocks.h"
#include "testlib_gpu.h"

#include <math.h>
#include <string.h>
#include <time.h>
#include <cublas_v2.h>

#define CKB(call)                                                                               \
    do {                                                                                        \
        cublasStatus_t s_ = (call);                                                             \
        if (s_ != CUBLAS_STATUS_SUCCESS) {                                                      \
            fprintf(stderr, "%s:%d: %s: cuBLAS status %d\n", __FILE__, __LINE__, #call, (int)s_); \
            exit(1);                                                                            \
        }                                                                                       \
    } while (0)

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + t.tv_nsec * 1e-9;
}

int main(void)
{
    const int n = 2048;
    const double period_s = CLOCKS_DEFAULT_PERIOD_US * 1e-6;
    char bus[64] = "", why[256] = "";
    clocks *c = NULL;
    clocks_summary s;
    const clocks_sample *t;
    unsigned max_sm = 0, max_mem = 0;
    int khz_sm = 0, khz_mem = 0, ntrace = 0, calls = 0;
    float *a, *b, *out, one = 1.0f, zero = 0.0f;
    cudaStream_t stream;
    cublasHandle_t blas;
    double t0, busy_s;

    test_require_gpu();
    CK(cudaSetDevice(0));
    CK(cudaDeviceGetPCIBusId(bus, (int)sizeof bus, 0));
    CK(cudaDeviceGetAttribute(&khz_sm, cudaDevAttrClockRate, 0));
    CK(cudaDeviceGetAttribute(&khz_mem, cudaDevAttrMemoryClockRate, 0));
    if (clocks_open(&c, bus, why, sizeof why) != 0) {
        fprintf(stderr, "clocks_open(%s): %s\n", bus, why);
        CHECK(0, "NVML cannot be opened on a machine with a GPU: %s", why);
        return test_finish("test_gpu_clocks");
    }
    clocks_max_mhz(c, &max_sm, &max_mem);
    printf("device 0 at %s: max SM %u MHz (CUDA %d kHz), max memory %u MHz (CUDA %d kHz)\n", bus, max_sm, khz_sm,
           max_mem, khz_mem);
    CHECK(max_sm > 0 && fabs(max_sm - khz_sm / 1000.0) <= 0.1 * khz_sm / 1000.0,
          "NVML max SM clock %u MHz, CUDA says %d kHz", max_sm, khz_sm);
    CHECK(max_mem > 0 && fabs(max_mem - khz_mem / 1000.0) <= 0.1 * khz_mem / 1000.0,
          "NVML max memory clock %u MHz, CUDA says %d kHz", max_mem, khz_mem);

    /* the load: SGEMMs on inputs of a non-zero byte pattern, ~250 ms of them */
    CK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    CKB(cublasCreate(&blas));
    CKB(cublasSetStream(blas, stream));
    CK(cudaMalloc((void **)&a, (size_t)n * n * sizeof *a));
    CK(cudaMalloc((void **)&b, (size_t)n * n * sizeof *b));
    CK(cudaMalloc((void **)&out, (size_t)n * n * sizeof *out));
    CK(cudaMemsetAsync(a, 0x3c, (size_t)n * n * sizeof *a, stream));
    CK(cudaMemsetAsync(b, 0x3b, (size_t)n * n * sizeof *b, stream));
    CK(cudaStreamSynchronize(stream));

    CHECK(clocks_begin(c) == 0, "clocks_begin");
    t0 = now_s();
    do {
        for (int i = 0; i < 4; i++, calls++)
            CKB(cublasSgemm(blas, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, a, n, b, n, &zero, out, n));
        CK(cudaStreamSynchronize(stream));
    } while (now_s() - t0 < 0.25);
    busy_s = now_s() - t0;
    CHECK(clocks_end(c, &s) == 0, "clocks_end");

    printf("%d SGEMMs n=%d in %.0f ms: %d samples, %d errors; SM mean %.0f min %.0f max %.0f MHz, memory %.0f MHz, "
           "%.0f C max, %.1f W mean, reasons 0x%llx \"%s\"%s\n",
           calls, n, busy_s * 1e3, s.samples, s.errors, s.sm_mhz_mean, s.sm_mhz_min, s.sm_mhz_max, s.mem_mhz_mean,
           s.temp_c_max, s.power_w_mean, s.reasons, s.reason_names,
           s.power_or_thermal ? " (power/thermal slowdown)" : "");
    CHECK(s.valid && s.errors == 0, "valid %d, %d NVML errors", s.valid, s.errors);
    CHECK(s.samples >= (int)(0.5 * busy_s / period_s), "%d samples in %.0f ms at a %.0f ms period", s.samples,
          busy_s * 1e3, period_s * 1e3);
    CHECK(s.sm_mhz_min > 0 && s.sm_mhz_min <= s.sm_mhz_mean && s.sm_mhz_mean <= s.sm_mhz_max &&
              s.sm_mhz_max <= max_sm,
          "SM clocks min %.0f mean %.0f max %.0f within (0, %u]", s.sm_mhz_min, s.sm_mhz_mean, s.sm_mhz_max, max_sm);
    CHECK(s.mem_mhz_mean > 0 && s.mem_mhz_mean <= max_mem * 1.001, "memory clock %.0f MHz (max %u)", s.mem_mhz_mean,
          max_mem);
    CHECK(isnan(s.temp_c_max) || (s.temp_c_max > 5 && s.temp_c_max < 120), "temperature %.0f C", s.temp_c_max);
    CHECK(isnan(s.power_w_mean) || (s.power_w_mean > 10 && s.power_w_mean < 2000), "power %.1f W", s.power_w_mean);
    CHECK(s.reasons_valid, "clock-event reasons read");
    t = clocks_trace(c, &ntrace);
    CHECK(ntrace == s.samples || (ntrace == CLOCKS_TRACE_MAX && s.trace_dropped > 0), "trace %d of %d samples",
          ntrace, s.samples);
    for (int i = 1; i < ntrace - 1; i++)
        if (t[i].t_s < i * period_s - 1e-6) {
            CHECK(0, "thread sample %d at %.3f ms, before its tick at %.3f ms", i, t[i].t_s * 1e3,
                  i * period_s * 1e3);
            break;
        }

    clocks_close(c);
    CKB(cublasDestroy(blas));
    CK(cudaFree(a));
    CK(cudaFree(b));
    CK(cudaFree(out));
    CK(cudaStreamDestroy(stream));
    return test_finish("test_gpu_clocks");
}
