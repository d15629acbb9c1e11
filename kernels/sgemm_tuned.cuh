/* kernels/sgemm_tuned.cuh: the FP32 SGEMM kernels behind `tuned`, as templates
 * over their tile shape, and the table of candidate shapes: the include that
 * pulls in the pieces, one file per concern.
 *
 * Included by kernels/sgemm_tuned.cu (which instantiates only the shapes
 * `tuned` picks, by name) and kernels/search/sgemm_search.cu (which
 * instantiates every row of SGEMM_TUNED_CANDIDATES, for compare-search only).
 * Every kernel and launcher is `static`: each translation unit has its own
 * copies and its own stream-K flags.
 *
 * Kernels (KIND in the table), and where each lives
 *   rowa  sgemm_pipelined.cu's design in other shapes (sgemm_tuned_rowa.cuh).
 *   tile  A transposed in shared memory, copies spread over the k-steps,
 *         sources clamped, one barrier a slab (the main loop:
 *         sgemm_tuned_mainloop.cuh), C stored from registers, one block per
 *         tile (sgemm_tuned_tile.cuh).
 *   st    tile with C staged through shared memory (sgemm_tuned_epilogue.cuh).
 *   sk    tile's main loop on a persistent stream-K grid with C staged,
 *         split tiles fixed up through C (sgemm_tuned_streamk.cuh).
 *   sl2, sl4, sl8  sliced-k: one block per tile of 2, 4 or 8 groups of
 *         warps, each an st block over its own range of the k-slabs, the
 *         partial tiles summed in shared memory (sgemm_tuned_tile.cuh).
 * Shared sizes and shape checks: sgemm_tuned_common.cuh; the candidates and
 * their names: sgemm_tuned_configs.cuh; the launcher: sgemm_tuned_launch.cuh.
 * How the kernels were tuned, and why the rows kept are the ones kept:
 * docs/tuning/tuned.md.
 *
 * Constraints: any m, n, k >= 1. vec (k % 4 == 0 and n % 4 == 0: rows of A
 * and B 16-byte aligned) selects 16-byte copies and float4 stores of C, else
 * the same kernel with 4-byte copies and scalar stores (rowa and tile copy A
 * element by element in every case, so A needs no alignment). Shape
 * constraints are static_asserts (sgemm_tuned_tile_checks, sgemm_tuned_rowa_
 * kernel); every kernel uses dynamic shared memory, opted in by its launcher.
 * sk launches cooperatively (every block resident, or the launch is refused:
 * sgemm_tuned.cu then runs st of the same shape), and its flags are one set
 * per translation unit and device: two sk launches of one unit must not run
 * at the same time (on one stream they never do). Split tiles are summed in
 * C with FP32 atomic adds (subnormal sums flush to zero). */
#ifndef KERNELS_SGEMM_TUNED_CUH
#define KERNELS_SGEMM_TUNED_CUH

/* in the order of the definitions in the one file this was: that order is
 * part of what the compiler sees, and the picks' machine code is checked
 * against the one file's (tests/sass_compare.sh) */
#include "sgemm_tuned_configs.cuh"
#include "sgemm_tuned_common.cuh"
#include "sgemm_tuned_rowa.cuh"
#include "sgemm_tuned_mainloop.cuh"
#include "sgemm_tuned_epilogue.cuh"
#include "sgemm_tuned_tile.cuh"
#include "sgemm_tuned_streamk.cuh"
#include "sgemm_tuned_launch.cuh"

#endif
