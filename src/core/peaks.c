#include "peaks.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "metrics.h"

/* Dense tensor-core rates with FP32 accumulation, in FLOP per clock per SM.
 * Each is NVIDIA's published dense TFLOP/s for a board divided by its SM
 * count and the boost clock its figures are quoted at (the quotient is the
 * rate exactly, up to the published figure's rounding). FP32 accumulation,
 * since that is what a GEMM verified against FP64 here uses; GeForce (and
 * some data-center) boards run FP16/BF16/FP8 with FP32 accumulation at half
 * the rate they have with FP16 accumulation, so where boards of one compute
 * capability differ, a row names the boards it holds for and a board of that
 * capability that no row names gets no tensor ceiling.
 *
 * `boards` lists names ("|"-separated) that a device name matches after an
 * optional "NVIDIA " prefix: equal, or followed by a character that is not
 * a letter or digit ("H100" matches "H100 80GB HBM3" and "H100 PCIe";
 * "A40" matches neither "A400" nor "A40G"). */
typedef struct {
    int cc_major, cc_minor;
    const char *boards;
    double tf32, fp16, bf16, fp8; /* FLOP / clock / SM; 0: no such math */
} peaks_row;

static const peaks_row peaks_table[] = {
    /* sm_80, GA100. NVIDIA A100 Tensor Core GPU Architecture whitepaper
     * (2020): A100 SXM4, 108 SMs at 1410 MHz: TF32 156, FP16 and BF16 with
     * FP32 accumulate 312 TFLOP/s dense (each tensor core 256 FP16 FMA per
     * clock, 4 per SM). No FP8. */
    {8, 0, "A100|A800", 1024, 2048, 2048, 0},
    /* sm_86, GA10x. NVIDIA Ampere GA102 GPU Architecture whitepaper v2.0,
     * GeForce RTX 3090: 82 SMs at 1695 MHz, FP16 and BF16 with FP32
     * accumulate 71 (FP16 with FP16 accumulate 142), TF32 35.6 TFLOP/s dense.
     * NVIDIA A40 datasheet: 84 SMs at 1740 MHz, BF16 with FP32 accumulate
     * 149.7, TF32 74.8 (the full rate). */
    {8, 6, "GeForce", 256, 512, 512, 0},
    {8, 6, "A40", 512, 1024, 1024, 0},
    /* sm_89, AD10x. NVIDIA Ada GPU Architecture whitepaper, GeForce RTX 4090:
     * 128 SMs at 2520 MHz, FP16 and BF16 with FP32 accumulate 165.2, FP8
     * with FP32 accumulate 330.3, TF32 82.6 TFLOP/s dense. The L40 and L40S
     * datasheets do not say which accumulation their figures are for: not
     * listed. */
    {8, 9, "GeForce", 256, 512, 512, 1024},
    /* sm_90, GH100. NVIDIA H100 Tensor Core GPU Architecture whitepaper:
     * H100 SXM5, 132 SMs at 1830 MHz: TF32 494.7, FP16 and BF16 989.4, FP8
     * 1978.9 TFLOP/s dense, FP32 accumulate at the full rate. H200, H800 and
     * GH200 have the same SM; other sm_90 boards (H20) are cut down: not listed. */
    {9, 0, "H100|H200|H800|GH200", 2048, 4096, 4096, 8192},
    /* sm_100 and newer: NVIDIA publishes per-GPU figures (B200) but not the
     * clock they are quoted at, so no rate per clock follows: not listed. */
};
#define PEAKS_N ((int)(sizeof peaks_table / sizeof peaks_table[0]))

/* Does device name `name` match one of the "|"-separated `boards`? */
static int peaks_board_match(const char *boards, const char *name)
{
    const char *p = boards;
    if (strncmp(name, "NVIDIA ", 7) == 0) name += 7;
    while (*p) {
        size_t len = strcspn(p, "|");
        if (strncmp(name, p, len) == 0 && !isalnum((unsigned char)name[len])) return 1;
        p += len;
        if (*p == '|') p++;
    }
    return 0;
}

static const peaks_row *peaks_row_of(int cc_major, int cc_minor, const char *name)
{
    for (int i = 0; i < PEAKS_N; i++) {
        const peaks_row *r = &peaks_table[i];
        if (r->cc_major == cc_major && r->cc_minor == cc_minor && name && peaks_board_match(r->boards, name))
            return r;
    }
    return NULL;
}

double peaks_flop_per_clock_sm(int cc_major, int cc_minor, const char *name, types_math m)
{
    const peaks_row *r;
    if (m == TYPES_MATH_FP32) return 2.0 * metrics_fp32_lanes_per_sm(cc_major, cc_minor);
    r = peaks_row_of(cc_major, cc_minor, name);
    if (!r) return 0.0;
    switch (m) {
    case TYPES_MATH_TF32: return r->tf32;
    case TYPES_MATH_FP16: return r->fp16;
    case TYPES_MATH_BF16: return r->bf16;
    case TYPES_MATH_FP8: return r->fp8;
    default: return 0.0;
    }
}

double peaks_tflops(const device_info *dev, types_math m, double sm_clock_khz)
{
    double khz = sm_clock_khz > 0 ? sm_clock_khz : dev->sm_clock_khz;
    double rate;
    if (m < 0 || m >= TYPES_MATH_COUNT) return 0.0;
    /* FP32 from the device's own lane count, as the FP32 ceiling always was */
    rate = m == TYPES_MATH_FP32 ? 2.0 * dev->fp32_lanes_per_sm
                                : peaks_flop_per_clock_sm(dev->cc_major, dev->cc_minor, dev->name, m);
    return metrics_peak_tflops(dev->sms, rate, khz);
}

void peaks_fill(device_info *dev)
{
    char missing[64] = "";
    size_t used = 0;
    dev->fp32_lanes_per_sm = metrics_fp32_lanes_per_sm(dev->cc_major, dev->cc_minor);
    dev->peak_fp32_tflops = metrics_peak_fp32_tflops(dev->sms, dev->fp32_lanes_per_sm, dev->sm_clock_khz);
    dev->peak_mem_gbps = metrics_peak_mem_gbps(dev->mem_clock_khz, dev->bus_width_bits);
    for (int m = 0; m < TYPES_MATH_COUNT; m++) {
        dev->peak_tflops[m] = peaks_tflops(dev, (types_math)m, 0);
        if (dev->peak_tflops[m] <= 0 && used < sizeof missing)
            used += (size_t)snprintf(missing + used, sizeof missing - used, "%s%s", used ? ", " : "",
                                     types_math_name((types_math)m));
    }
    dev->peaks_note[0] = '\0';
    if (used)
        snprintf(dev->peaks_note, sizeof dev->peaks_note,
                 "no %s ceiling for %.96s (cc %d.%d) in the peak table (src/core/peaks.c): %%peak of those rows is "
                 "left empty", missing, dev->name, dev->cc_major, dev->cc_minor);
}
