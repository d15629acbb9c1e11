/* tests/test_metrics.c (cpu): work counts, throughputs, percents and device
 * ceilings (src/core/metrics.c), against values worked out by hand. */
#include "metrics.h"
#include "peaks.h"
#include "testlib.h"

#include <string.h>

#include <math.h>

static int near_rel(double a, double b, double rel) { return fabs(a - b) <= rel * fabs(b); }

#define EXACT(got, want) CHECK((got) == (want), "%s = %.17g, expected %.17g", #got, (double)(got), (double)(want))
#define NEAR(got, want, rel)                                                                   \
    CHECK(near_rel((got), (want), (rel)), "%s = %.17g, expected %.17g", #got, (double)(got), (double)(want))

static void test_work(void)
{
    /* 2 * 2048^3 = 2^34 */
    EXACT(metrics_gemm_flops(2048, 2048, 2048), 17179869184.0);
    /* 2 * 65536^3 = 2^49: overflows 32 bits many times over */
    EXACT(metrics_gemm_flops(65536, 65536, 65536), 562949953421312.0);
    /* 2 * 1025 * 1023 * 1021 is not a power of two; 1025*1023 = 1048575 */
    EXACT(metrics_gemm_flops(1025, 1023, 1021), 2.0 * 1048575.0 * 1021.0);
    EXACT(metrics_gemm_flops(1, 1, 1), 2.0);
    /* m, n, k are not interchangeable in bytes: 4 * (m k + k n + m n) */
    EXACT(metrics_gemm_bytes(2048, 2048, 2048), 4.0 * 3.0 * 2048.0 * 2048.0); /* 50331648 */
    EXACT(metrics_gemm_bytes(2048, 2048, 2048), 50331648.0);
    EXACT(metrics_gemm_bytes(2, 3, 5), 4.0 * (2 * 5 + 5 * 3 + 2 * 3)); /* 124 */
    EXACT(metrics_gemm_bytes(65536, 65536, 65536), 51539607552.0);      /* 48 GiB */
}

static void test_rates(void)
{
    /* 2^34 FLOPs in 1 ms = 17.179869184 TFLOP/s */
    NEAR(metrics_tflops(17179869184.0, 1.0), 17.179869184, 1e-15);
    NEAR(metrics_tflops(17179869184.0, 0.5), 34.359738368, 1e-15);
    NEAR(metrics_tflops(1e12, 1000.0), 1.0, 1e-15);
    /* 2^26 floats = 268435456 bytes in 0.1 ms = 2684.35456 GB/s */
    NEAR(metrics_gbps(268435456.0, 0.1), 2684.35456, 1e-14);
    NEAR(metrics_gbps(1e9, 1000.0), 1.0, 1e-15);
    /* 2^26 keys in 10 ms = 6.7108864 Gkeys/s */
    NEAR(metrics_gkeys(67108864.0, 10.0), 6.7108864, 1e-15);
    /* no time, no rate */
    EXACT(metrics_tflops(1e9, 0.0), 0.0);
    EXACT(metrics_gbps(1e9, -1.0), 0.0);
    EXACT(metrics_gkeys(1e9, 0.0), 0.0);
}

static void test_percent(void)
{
    /* library 1 ms, hand 4 ms: the hand kernel runs at 25% of the library */
    EXACT(metrics_pct_of(1.0, 4.0), 25.0);
    EXACT(metrics_pct_of(4.0, 1.0), 400.0);
    EXACT(metrics_pct_of(2.5, 2.5), 100.0);
    NEAR(metrics_pct_of(0.3, 0.4), 75.0, 1e-15);
    /* = throughput ratio on the same work */
    {
        double f = metrics_gemm_flops(4096, 4096, 4096);
        double pct = metrics_tflops(f, 7.0) / metrics_tflops(f, 5.0) * 100.0;
        NEAR(metrics_pct_of(5.0, 7.0), pct, 1e-14);
    }
    EXACT(metrics_pct_of(0.0, 4.0), -1.0);
    EXACT(metrics_pct_of(1.0, 0.0), -1.0);
    EXACT(metrics_pct_of(-1.0, 4.0), -1.0);
    EXACT(metrics_pct_of(1.0, -4.0), -1.0);
    EXACT(metrics_pct_of(0.0, 0.0), -1.0);
}

static void test_ceilings(void)
{
    EXACT(metrics_fp32_lanes_per_sm(9, 0), 128); /* H100 / H200 */
    EXACT(metrics_fp32_lanes_per_sm(8, 0), 64);  /* A100 */
    EXACT(metrics_fp32_lanes_per_sm(8, 6), 128); /* GA10x */
    EXACT(metrics_fp32_lanes_per_sm(8, 9), 128); /* Ada */
    EXACT(metrics_fp32_lanes_per_sm(7, 0), 64);  /* V100 */
    EXACT(metrics_fp32_lanes_per_sm(7, 5), 64);  /* Turing */
    EXACT(metrics_fp32_lanes_per_sm(6, 0), 64);  /* P100 */
    EXACT(metrics_fp32_lanes_per_sm(6, 1), 128);
    EXACT(metrics_fp32_lanes_per_sm(10, 0), 128);
    EXACT(metrics_fp32_lanes_per_sm(1, 0), 0);   /* unknown */
    EXACT(metrics_fp32_lanes_per_sm(99, 0), 0);

    /* H200: 132 SMs x 128 lanes x 2 x 1.98 GHz = 66908160000000 FLOP/s */
    NEAR(metrics_peak_fp32_tflops(132, 128, 1980000.0), 66.90816, 1e-12);
    CHECK(fabs(metrics_peak_fp32_tflops(132, 128, 1980000.0) - 66.908) < 5e-4, "H200 peak %.6f",
          metrics_peak_fp32_tflops(132, 128, 1980000.0));
    /* A100: 108 x 64 x 2 x 1.41 GHz = 19.49184 */
    NEAR(metrics_peak_fp32_tflops(108, 64, 1410000.0), 19.49184, 1e-12);
    EXACT(metrics_peak_fp32_tflops(132, 0, 1980000.0), 0.0);

    /* H200 HBM3e: 3201 MHz x 2 x 6016 bit / 8 = 4814304000000 B/s */
    NEAR(metrics_peak_mem_gbps(3201000.0, 6016), 4814.304, 1e-12);
    CHECK(fabs(metrics_peak_mem_gbps(3201000.0, 6016) - 4814.3) < 0.05, "H200 memory %.4f",
          metrics_peak_mem_gbps(3201000.0, 6016));
    /* A100 40GB: 1215 MHz x 2 x 5120 / 8 = 1555.2 GB/s */
    NEAR(metrics_peak_mem_gbps(1215000.0, 5120), 1555.2, 1e-12);
    /* %peak of a row is plan_percents' business: tests/test_plan.c */
}

/* The peak table (src/core/peaks.c) against NVIDIA's published dense figures:
 * rate x SMs x the clock they are quoted at gives the figure back. */
static void test_peak_table(void)
{
    /* H100 SXM5: 132 SMs at 1830 MHz: TF32 494.7, FP16/BF16 989.4, FP8 1978.9 */
    NEAR(metrics_peak_tflops(132, peaks_flop_per_clock_sm(9, 0, "NVIDIA H100 80GB HBM3", TYPES_MATH_TF32), 1830000.0),
         494.7, 2e-4);
    NEAR(metrics_peak_tflops(132, peaks_flop_per_clock_sm(9, 0, "NVIDIA H100 80GB HBM3", TYPES_MATH_FP16), 1830000.0),
         989.4, 2e-4);
    NEAR(metrics_peak_tflops(132, peaks_flop_per_clock_sm(9, 0, "NVIDIA H200", TYPES_MATH_BF16), 1830000.0), 989.4, 2e-4);
    NEAR(metrics_peak_tflops(132, peaks_flop_per_clock_sm(9, 0, "NVIDIA H200", TYPES_MATH_FP8), 1830000.0), 1978.9, 2e-4);
    /* A100: 108 SMs at 1410 MHz: TF32 156, FP16 312 (published rounded to 3 digits) */
    NEAR(metrics_peak_tflops(108, peaks_flop_per_clock_sm(8, 0, "NVIDIA A100-SXM4-80GB", TYPES_MATH_TF32), 1410000.0),
         156.0, 3e-3);
    NEAR(metrics_peak_tflops(108, peaks_flop_per_clock_sm(8, 0, "NVIDIA A100 80GB PCIe", TYPES_MATH_FP16), 1410000.0),
         312.0, 3e-3);
    EXACT(peaks_flop_per_clock_sm(8, 0, "NVIDIA A100-SXM4-40GB", TYPES_MATH_FP8), 0.0); /* no FP8 on Ampere */
    /* GeForce RTX 3090: 82 SMs at 1695 MHz: FP16 with FP32 accumulate 71, TF32 35.6 */
    NEAR(metrics_peak_tflops(82, peaks_flop_per_clock_sm(8, 6, "NVIDIA GeForce RTX 3090", TYPES_MATH_FP16), 1695000.0),
         71.0, 3e-3);
    NEAR(metrics_peak_tflops(82, peaks_flop_per_clock_sm(8, 6, "NVIDIA GeForce RTX 3090", TYPES_MATH_TF32), 1695000.0),
         35.6, 3e-3);
    /* A40: 84 SMs at 1740 MHz: BF16 with FP32 accumulate 149.7 (the full rate) */
    NEAR(metrics_peak_tflops(84, peaks_flop_per_clock_sm(8, 6, "NVIDIA A40", TYPES_MATH_BF16), 1740000.0), 149.7, 3e-3);
    /* GeForce RTX 4090: 128 SMs at 2520 MHz: FP16 with FP32 accumulate 165.2, FP8 330.3, TF32 82.6 */
    NEAR(metrics_peak_tflops(128, peaks_flop_per_clock_sm(8, 9, "NVIDIA GeForce RTX 4090", TYPES_MATH_FP16), 2520000.0),
         165.2, 3e-3);
    NEAR(metrics_peak_tflops(128, peaks_flop_per_clock_sm(8, 9, "NVIDIA GeForce RTX 4090", TYPES_MATH_FP8), 2520000.0),
         330.3, 3e-3);
    /* FP32 is the lanes rule for every cc it knows, whatever the board */
    EXACT(peaks_flop_per_clock_sm(9, 0, "anything", TYPES_MATH_FP32), 256.0);
    EXACT(peaks_flop_per_clock_sm(8, 0, "NVIDIA A100", TYPES_MATH_FP32), 128.0);
    EXACT(peaks_flop_per_clock_sm(99, 0, "NVIDIA H200", TYPES_MATH_FP32), 0.0);
    /* boards not in the table get no tensor rate: a cut-down sm_90, an unlisted
     * sm_86 board, a name that only starts like a listed one, newer GPUs */
    EXACT(peaks_flop_per_clock_sm(9, 0, "NVIDIA H20", TYPES_MATH_TF32), 0.0);
    EXACT(peaks_flop_per_clock_sm(8, 6, "NVIDIA A10G", TYPES_MATH_FP16), 0.0);
    EXACT(peaks_flop_per_clock_sm(8, 6, "NVIDIA A400", TYPES_MATH_FP16), 0.0);
    EXACT(peaks_flop_per_clock_sm(9, 0, "NVIDIA H1000", TYPES_MATH_FP16), 0.0);
    EXACT(peaks_flop_per_clock_sm(10, 0, "NVIDIA B200", TYPES_MATH_FP16), 0.0);
    EXACT(peaks_flop_per_clock_sm(9, 0, NULL, TYPES_MATH_FP16), 0.0);
    /* a listed board at another cc does not match */
    EXACT(peaks_flop_per_clock_sm(8, 0, "NVIDIA H100", TYPES_MATH_FP16), 0.0);
    EXACT(peaks_flop_per_clock_sm(9, 0, "NVIDIA H100 PCIe", TYPES_MATH_NONE), 0.0);
}

/* peaks_fill on a device row: every ceiling at the maximum clock, and the note */
static void test_peaks_fill(void)
{
    device_info d;
    memset(&d, 0, sizeof d);
    snprintf(d.name, sizeof d.name, "NVIDIA H200");
    d.cc_major = 9;
    d.sms = 132;
    d.sm_clock_khz = 1980000;
    d.mem_clock_khz = 3201000;
    d.bus_width_bits = 6016;
    peaks_fill(&d);
    EXACT(d.fp32_lanes_per_sm, 128);
    EXACT(d.peak_fp32_tflops, metrics_peak_fp32_tflops(132, 128, 1980000.0));
    EXACT(d.peak_mem_gbps, metrics_peak_mem_gbps(3201000.0, 6016));
    EXACT(d.peak_tflops[TYPES_MATH_FP32], d.peak_fp32_tflops);
    NEAR(d.peak_tflops[TYPES_MATH_TF32], 132.0 * 2048 * 1.98e9 / 1e12, 1e-15); /* 535.26528 */
    NEAR(d.peak_tflops[TYPES_MATH_FP8], 132.0 * 8192 * 1.98e9 / 1e12, 1e-15);
    CHECK(d.peaks_note[0] == '\0', "H200: note [%s]", d.peaks_note);
    /* at a measured clock */
    NEAR(peaks_tflops(&d, TYPES_MATH_TF32, 1755000.0), 132.0 * 2048 * 1.755e9 / 1e12, 1e-15);
    EXACT(peaks_tflops(&d, TYPES_MATH_NONE, 0), 0.0);

    /* a GPU the table does not know: FP32 from the lanes rule, no tensor ceiling, a note */
    snprintf(d.name, sizeof d.name, "NVIDIA B200");
    d.cc_major = 10;
    d.sms = 148;
    peaks_fill(&d);
    CHECK(d.peak_fp32_tflops > 0 && d.peak_tflops[TYPES_MATH_TF32] == 0 && d.peak_tflops[TYPES_MATH_FP8] == 0,
          "B200: fp32 %g, tf32 %g", d.peak_fp32_tflops, d.peak_tflops[TYPES_MATH_TF32]);
    CHECK(strstr(d.peaks_note, "no tf32, fp16, bf16, fp8 ceiling for NVIDIA B200 (cc 10.0)") != NULL,
          "B200 note: [%s]", d.peaks_note);
    /* no known lanes either: every math is missing */
    d.cc_major = 42;
    peaks_fill(&d);
    CHECK(d.peak_fp32_tflops == 0 && strstr(d.peaks_note, "no fp32, tf32,") != NULL, "cc 42.0 note: [%s]", d.peaks_note);
}

int main(void)
{
    test_work();
    test_rates();
    test_percent();
    test_ceilings();
    test_peak_table();
    test_peaks_fill();
    return test_finish("test_metrics");
}
