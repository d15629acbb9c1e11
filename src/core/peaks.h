/* src/core/peaks.h: the device ceilings behind %peak, keyed by compute
 * capability and math: FP32 on the SIMT lanes (metrics_fp32_lanes_per_sm),
 * the dense tensor-core rates of TF32, FP16, BF16 and FP8 with FP32
 * accumulation (a table in peaks.c, each row with its source), and the DRAM
 * bandwidth from the memory clock and bus width. A rate is FLOP per clock per
 * SM, so a ceiling is sms x rate x the clock the row really ran at. Where
 * the table does not know a GPU, the ceiling is 0 and a note says so: a
 * %peak is left empty rather than taken against a guess. */
#ifndef COMPARE_PEAKS_H
#define COMPARE_PEAKS_H

#include <stddef.h>

#include "results.h"
#include "types.h"

/* Dense FLOP per clock per SM of math m on a GPU of compute capability
 * major.minor named `name` (cudaDeviceProp.name); 0 when not known.
 * TYPES_MATH_FP32 is 2 x the FP32 lanes (an FMA is 2 FLOPs). */
double peaks_flop_per_clock_sm(int cc_major, int cc_minor, const char *name, types_math m);
/* Fills dev's ceilings from its cc, name, SMs and clocks: fp32_lanes_per_sm,
 * peak_fp32_tflops, peak_mem_gbps, peak_tflops[] (each math at the maximum
 * SM clock, 0 unknown) and peaks_note (which maths have no ceiling and why,
 * "" when all are known). */
void peaks_fill(device_info *dev);
/* The compute ceiling of math m in TFLOP/s at `sm_clock_khz` (<= 0: the
 * device's maximum clock), 0 when the table does not know it. */
double peaks_tflops(const device_info *dev, types_math m, double sm_clock_khz);

#endif
