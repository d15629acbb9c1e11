#include "metrics.h"

double metrics_gemm_flops(long long m, long long n, long long k)
{
    /* 2*m*n*k overflows 32 bits at n = 1024; in 64 bits it is exact up to n ~ 1.6e6. */
    return (double)(2LL * m * n * k);
}

double metrics_gemm_bytes(long long m, long long n, long long k)
{
    return 4.0 * ((double)m * (double)k + (double)k * (double)n + (double)m * (double)n);
}

double metrics_tflops(double flops, double ms) { return ms > 0 ? flops / (ms * 1e-3) / 1e12 : 0.0; }
double metrics_gbps(double bytes, double ms) { return ms > 0 ? bytes / (ms * 1e-3) / 1e9 : 0.0; }
double metrics_gkeys(double keys, double ms) { return ms > 0 ? keys / (ms * 1e-3) / 1e9 : 0.0; }

double metrics_pct_of(double library_ms, double hand_ms)
{
    if (library_ms <= 0 || hand_ms <= 0) return -1.0;
    return library_ms / hand_ms * 100.0;
}

int metrics_fp32_lanes_per_sm(int cc_major, int cc_minor)
{
    switch (cc_major) {
    case 6: return cc_minor == 0 ? 64 : 128;
    case 7: return 64;
    case 8: return cc_minor == 0 ? 64 : 128;
    case 9: return 128;
    case 10: case 11: case 12: return 128;
    default: return 0;
    }
}

double metrics_peak_fp32_tflops(int sms, int lanes_per_sm, double sm_clock_khz)
{
    return (double)sms * lanes_per_sm * 2.0 * sm_clock_khz * 1e3 / 1e12;
}

double metrics_peak_tflops(int sms, double flop_per_clock_sm, double sm_clock_khz)
{
    return (double)sms * flop_per_clock_sm * sm_clock_khz * 1e3 / 1e12;
}

double metrics_peak_mem_gbps(double mem_clock_khz, int bus_width_bits)
{
    return mem_clock_khz * 1e3 * 2.0 * (bus_width_bits / 8.0) / 1e9;
}
