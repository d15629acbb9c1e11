/* kernels/layernorm.cu: the LayerNorm ladder, y = (x - mean) / sqrt(var +
 * eps) * weight[c] + bias[c] per row (var the population variance), FP32
 * arithmetic for fp32, fp16 and bf16 elements.
 *
 * The kernels, their loads and reductions live in kernels/norm_common.cuh
 * (shared with RMSNorm); this file instantiates them for LayerNorm
 * (K = NORM_LAYER) and defines the five launchers of kernels/norms.h.
 *
 * Mean and variance: Welford where x streams, two-pass where the row is on
 * chip, never E[x^2] - E[x]^2 (which cancels catastrophically when |mean| is
 * large against the deviation: with a mean of 1000 and a deviation of 1,
 * FP32 keeps about one correct digit of var that way).
 *   - naive, warp, block (x is read again for the output pass anyway):
 *     Welford in Chan's parallel form. Each 16-byte vector's count, mean and
 *     M2 come from an exact two-pass over its few registers, and are merged
 *     into the thread's running triple, then across lanes and warps in a
 *     fixed order. One statistics pass over x: a true two-pass would read x
 *     three times in all; Welford reads it twice, like RMSNorm.
 *   - fused, cluster (the row sits in registers): two-pass, the exact mean
 *     first (a reduction), then the sum of squared deviations from it (a
 *     second reduction, over registers: no extra memory traffic). The most
 *     accurate order for the price of one more block barrier. A cluster's
 *     CTAs each do this over their part and merge their (count, mean, M2)
 *     with Chan's formula, one exchange through distributed shared memory.
 *
 * Idea and memory traffic per rung, for R rows of C elements of B bytes
 * (the minimum is R*C*B read plus R*C*B written, plus 2*C*4 of weight and
 * bias):
 *   layernorm_naive    a thread per row, walking it twice: uncoalesced.
 *   layernorm_warp     a warp per row, 16-byte loads, x read twice.
 *   layernorm_block    a block of 512 threads per row, x read twice.
 *   layernorm_fused    the pick: the row in registers, x read once (warp per
 *                      row up to 4 KiB, block per row up to 64 KiB, on sm_90
 *                      a cluster beyond, else a 1024-thread block up to
 *                      128 KiB: norm_common.cuh's header says why).
 *   layernorm_cluster  the Hopper form for every cols, x read once;
 *                      cudaErrorNotSupported off sm_90.
 *
 * Run just these:  ./compare --ops layernorm --variants naive,warp,block,fused,cluster */
#include "norm_common.cuh"
#include "norms.h"

NORM_DEFINE_LAUNCHERS(layernorm, NORM_LAYER)
