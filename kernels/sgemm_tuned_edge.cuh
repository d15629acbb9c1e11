/* kernels/sgemm_tuned_edge.cuh: the accesses of the edge kernels of `tuned`'s
 * candidates (VEC = SGEMM_TUNED_VEC_LANES, the _edge rows'
 * kernels when n % 4 != 0: rows of B and C not 16-byte aligned).
 *
 * Idea: with unaligned rows every access is 4 bytes; what is left to choose
 * is which thread takes which element. VEC 0 keeps the 16-byte kernel's
 * layout (a thread's 4-float chunk, a warp's lanes 16 bytes apart), so one
 * instruction of a warp spans 512 bytes of a row using a quarter of each
 * sector, and its 4-byte shared-memory writes fall 4 to a bank. Here a warp's
 * 32 lanes take 32 consecutive columns instead: one instruction is 128
 * contiguous bytes (4 or 5 sectors) and 32 banks. The block's tile, its
 * shared-memory layout and the FFMA loop are the 16-byte kernel's.
 * Constraints: the callers' (a warp's chunks of B are one row's 128 columns:
 * BN % 128 == 0; C goes through shared memory: st, sk, sl). */
#ifndef KERNELS_SGEMM_TUNED_EDGE_CUH
#define KERNELS_SGEMM_TUNED_EDGE_CUH

#include "cp_async.cuh"

/* The kernel_ran_note reason of an _edge candidate that took its edge kernel. */
#define SGEMM_TUNED_LANES_REASON "n not a multiple of 4: 4-byte accesses, lanes on consecutive columns"
/* ... and of one that copied B padded (rule PAD_B, VEC 3). */
#define SGEMM_TUNED_PADB_REASON "n not a multiple of 4: B copied into rows padded to 4 floats (timed), then 16-byte copies; C by 4-byte stores"

/* Copies row elements col + 32q (q = 0 .. 3) from src + 32q into dst + 32q
 * (4-byte cp.async each), zero-filling those at or past column `lim` and
 * all four when !row_ok; a copy out of range reads 0 bytes from `safe` (the
 * matrix base), as sgemm_cp_async_chunk. */
static __device__ __forceinline__ void sgemm_tuned_cp_async_lanes(float *dst, const float *src, int row_ok,
                                                                  int col, int lim, const float *safe)
{
#pragma unroll
    for (int q = 0; q < 4; ++q) {
        const int ok = row_ok && col + 32 * q < lim;
        cp_async4(dst + 32 * q, ok ? src + 32 * q : safe, ok ? 4 : 0);
    }
}

/* C[row][col] = v, or += v by a reduction in L2 (RED: FP32 atomic add) when
 * red, for row_ok and col < lim. */
static __device__ __forceinline__ void sgemm_tuned_put1(float *row, int row_ok, int col, int lim, int red,
                                                        float v)
{
    if (!row_ok || col >= lim)
        return;
    if (red)
        atomicAdd(row + col, v);
    else
        row[col] = v;
}

#endif
