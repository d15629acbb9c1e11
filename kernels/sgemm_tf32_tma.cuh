/* kernels/sgemm_tf32_tma.cuh: TF32 SGEMM on Hopper warpgroup MMA, fed by
 * the bulk tensor copy engine (TMA) through an mbarrier ring: the include
 * that pulls in its parts, in the order they build on each other. Compiled
 * for sm_90a only.
 *
 * Included by kernels/sgemm_tf32_tma.cu (the variant tf32_tma: the
 * candidates it picks, by name) and kernels/search/sgemm_tf32_tma_search.cu
 * (every row of SGEMM_TMA_CANDIDATES, for compare-search only).
 *
 * Two kinds of kernel, one math: C^T = B^T A^T on
 * wgmma.mma_async.m64nNk8.f32.tf32.tf32, A^T from shared memory by a
 * 128-byte-swizzle descriptor, B^T fragments from registers, both operands
 * rounded to TF32 by the copy engine on their way in.
 *   KIND 0: one tile per CTA, consumer warpgroups fed by a producer warp or
 *     by thread 0, optionally in ping-pong order (names ..._ws, ..._pp).
 *   KIND 1: persistent and warp-specialised, a producer warpgroup feeding
 *     two consumer warpgroups across tiles, in clusters of one or two CTAs
 *     sharing A by multicast (..._pers, ..._pers_c2), with whole tiles, split
 *     k (_sk) or the split tail (_kst) as its schedule, and optional fragment
 *     prefetch (_pf).
 *
 * The parts (CUTLASS's split: mainloop, schedule, epilogue, launch):
 *   sgemm_tf32_tma_ptx.cuh         mbarrier, TMA and cluster PTX
 *   sgemm_tf32_tma_sched.cuh       KIND 1 schedules: whole, split k, split tail
 *   sgemm_tf32_tma_epilogue.cuh    stores, split-k atomics, split-tail gather
 *   sgemm_tf32_tma_tile.cuh        the ring, fragments, KIND 0 mainloop
 *   sgemm_tf32_tma_pers.cuh        KIND 1 mainloop
 *   sgemm_tf32_tma_launch.cuh      tensor maps, launches, sgemm_tma_run
 *   sgemm_tf32_tma_candidates.cuh  SGEMM_TMA_CANDIDATES, SGEMM_TMA_CFG
 * and, shared with the fp16 / bf16 / fp8 GEMM (gemm_wgmma.cu):
 *   gemm_wgmma_ring.cuh            KIND 1's ring: set-up and producer
 *   gemm_wgmma_tmap.cuh            encoder, tensor maps, cluster launch
 *   gemm_wgmma_mma.cuh             wgmma accumulator operand lists
 * How the candidates were found, and what the ones removed showed:
 * docs/tuning/tf32_tma.md. */
#ifndef KERNELS_SGEMM_TF32_TMA_CUH
#define KERNELS_SGEMM_TF32_TMA_CUH

#include "sgemm_tf32_tma_ptx.cuh"
#include "sgemm_tf32_tma_sched.cuh"
#include "sgemm_tf32_tma_epilogue.cuh"
#include "sgemm_tf32_tma_tile.cuh"
#include "sgemm_tf32_tma_pers.cuh"
#include "sgemm_tf32_tma_launch.cuh"
#include "sgemm_tf32_tma_candidates.cuh"

#endif
