/* src/core/roofline.h: where a row sits on the roofline, and why it sits there.
 *
 * Analytic, every row: the arithmetic intensity (the op's FLOPs over its
 * minimum bytes) and the bound: of the two roofs, compute (the row's math:
 * FP32 on the SIMT lanes, or the dense tensor rate of TF32/FP16/BF16/FP8)
 * and memory (DRAM bandwidth), the one whose ceiling at this intensity is
 * lower, min(peak_compute, intensity x peak_bw), limits the row; the bound
 * names it and gives the achieved rate as a % of that ceiling. A ceiling the
 * peak table does not know leaves the bound empty, never a guess.
 *
 * Measured, with --metrics (src/gpu/metrics_cupti.h fills the row's
 * counters): the measured intensity (executed FP32 FLOPs over DRAM bytes
 * read + written) and the hints: pure rules over a row's counters that name
 * a common cause of a slow hand kernel, each tied to the metric it reads.
 * Plain arithmetic over result_row: no CUDA, so the cpu tests pin it down. */
#ifndef COMPARE_ROOFLINE_H
#define COMPARE_ROOFLINE_H

#include <stddef.h>

#include "catalog.h"
#include "results.h"

/* Hint thresholds (docs/metrics.md explains each). */
#define ROOFLINE_DRAM_EXCESS 1.5       /* DRAM bytes over the minimum: above this ratio, a hint */
#define ROOFLINE_LOW_OCCUPANCY_PCT 25.0 /* achieved occupancy under this ... */
#define ROOFLINE_FAR_FROM_ROOF_PCT 50.0 /* ... while under this % of its roof: a hint */
#define ROOFLINE_BANK_CONFLICT_RATIO 0.2 /* conflicts over shared-memory wavefronts above this: a hint */

/* FLOP per byte: flops / bytes; -1 when either is not positive. */
double roofline_intensity(double flops, double bytes);

/* The limiting roof of a row that did `flops` (<= 0: none counted) moving
 * `bytes` in `ms`, under a compute ceiling of `compute_tflops` named
 * `compute_name` ("fp32", "tensor"; <= 0: none known) and a memory ceiling of
 * `mem_gbps`: with flops and bytes, the lower of compute_tflops and
 * intensity x mem_gbps; with bytes alone (an op that counts no FLOPs) the
 * memory roof. Writes "memory N%" (N the % rounded to a whole number) into
 * buf and returns the % (achieved rate / that ceiling x 100); returns -1 and
 * writes "" when a ceiling it needs is unknown or the inputs are not
 * positive. */
double roofline_bound(double flops, double bytes, double ms, double compute_tflops, const char *compute_name,
                      double mem_gbps, char *buf, size_t len);

/* The name of the compute roof of a math: "fp32" for TYPES_MATH_FP32,
 * "tensor" for the tensor-core maths, NULL for none. */
const char *roofline_compute_name(int types_math_value);

/* Fills the row's analytic columns from its flops, bytes, median and the
 * device's ceilings (at the row's measured clocks, as %peak): intensity
 * (any row with flops and bytes), bound and bound_pct (a timed row of an op
 * whose %peak has a ceiling: op_info.peak not OP_PEAK_NONE); and from its
 * counters, when measured: intensity_measured and (hand rows) hint, `ref`
 * (NULL: none) being the library row its %ref is of. */
void roofline_fill(result_row *r, const device_info *dev, const result_row *ref);

/* The hints of a row from its measured counters, "; "-separated into buf
 * ("" when none applies or nothing was measured); returns how many. Each
 * names its metric:
 *  - DRAM bytes read + written over ROOFLINE_DRAM_EXCESS x the minimum, and
 *    over ROOFLINE_DRAM_EXCESS x those of `ref` (the library row its %ref is
 *    of, NULL: none) where ref was measured: a GEMM re-reads its tiles from
 *    DRAM by design, so only more than the library needs is a cause
 *    (dram__bytes_read.sum + dram__bytes_write.sum): uncoalesced or re-read;
 *  - achieved occupancy under ROOFLINE_LOW_OCCUPANCY_PCT while under
 *    ROOFLINE_FAR_FROM_ROOF_PCT of its roof
 *    (sm__warps_active.avg.pct_of_peak_sustained_active);
 *  - shared-memory bank conflicts over ROOFLINE_BANK_CONFLICT_RATIO of its
 *    shared-memory wavefronts (l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum). */
int roofline_hints(const result_row *r, const result_row *ref, char *buf, size_t len);

#endif
