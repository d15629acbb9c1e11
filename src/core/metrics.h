/* src/core/metrics.h: work counts, throughputs, percents and device ceilings.
 * All pure arithmetic, so the cpu tests check it exactly. */
#ifndef COMPARE_METRICS_H
#define COMPARE_METRICS_H

/* 2*m*n*k in 64-bit integer arithmetic, returned as double. */
double metrics_gemm_flops(long long m, long long n, long long k);
/* Fewest bytes a GEMM must move: A and B read once, C written once (FP32). */
double metrics_gemm_bytes(long long m, long long n, long long k);
/* TFLOP/s for `flops` done in `ms` milliseconds. */
double metrics_tflops(double flops, double ms);
/* GB/s (1e9 bytes per second) for `bytes` in `ms` milliseconds. */
double metrics_gbps(double bytes, double ms);
/* Gkeys/s for `keys` in `ms`. */
double metrics_gkeys(double keys, double ms);
/* Percent of the library: library time / hand time * 100 (the same work, so
 * the throughput ratio). Returns -1 when either time is not positive. */
double metrics_pct_of(double library_ms, double hand_ms);
/* FP32 lanes (FMA units) per SM for a compute capability; 0 if unknown. */
int metrics_fp32_lanes_per_sm(int cc_major, int cc_minor);
/* FP32 peak in TFLOP/s: sms * lanes * 2 (an FMA is 2 FLOPs) * clock. */
double metrics_peak_fp32_tflops(int sms, int lanes_per_sm, double sm_clock_khz);
/* A compute ceiling in TFLOP/s: sms * FLOP per clock per SM * clock
 * (src/core/peaks.c has the rates). */
double metrics_peak_tflops(int sms, double flop_per_clock_sm, double sm_clock_khz);
/* DRAM bandwidth in GB/s: memory clock * 2 (double data rate) * bus bits / 8. */
double metrics_peak_mem_gbps(double mem_clock_khz, int bus_width_bits);

#endif
