/* kernels/rmsnorm.cu: the RMSNorm ladder, y = x / sqrt(mean(x^2) + eps) *
 * weight[c] per row, FP32 arithmetic for fp32, fp16 and bf16 elements.
 *
 * The kernels, their loads and reductions live in kernels/norm_common.cuh
 * (shared with LayerNorm, which differs only in its statistics and output
 * formula); this file instantiates them for RMSNorm (K = NORM_RMS) and
 * defines the five launchers of kernels/norms.h.
 *
 * Idea and memory traffic per rung, for R rows of C elements of B bytes
 * (the minimum is R*C*B read plus R*C*B written, plus C*4 of weight):
 *   rmsnorm_naive    a thread per row, walking it twice (sum of squares, then
 *                    the output): x read twice, every load uncoalesced.
 *   rmsnorm_warp     a warp per row, 16-byte loads, a shuffle reduction; x
 *                    read twice (the second read mostly from L2 when rows are
 *                    short enough that a wave's rows fit there).
 *   rmsnorm_block    a block of 512 threads per row: the same two passes for
 *                    long rows.
 *   rmsnorm_fused    the pick: the row held in registers, x read once and y
 *                    written once: a warp per row up to 4 KiB rows, a block
 *                    per row up to 64 KiB, on sm_90 a thread block cluster
 *                    beyond (up to 1 MiB), else a 1024-thread block up to
 *                    128 KiB (norm_common.cuh's header gives the thresholds
 *                    and why).
 *   rmsnorm_cluster  the Hopper form for every cols: the row split across a
 *                    cluster's CTAs (at least two), each CTA's sum of squares
 *                    exchanged through distributed shared memory; x read
 *                    once. cudaErrorNotSupported off sm_90.
 * The statistic is one sum (of x^2) whichever rung: there is no precision
 * choice to make, unlike LayerNorm's variance.
 *
 * Run just these:  ./compare --ops rmsnorm --variants naive,warp,block,fused,cluster */
#include "norm_common.cuh"
#include "norms.h"

NORM_DEFINE_LAUNCHERS(rmsnorm, NORM_RMS)
