/* kernels/sgemm_common.cuh: device helpers shared by the SGEMM ladder
 * (sgemm_regblock.cu .. sgemm_pipelined.cu, sgemm_tuned.cuh).
 *
 * - predicated 4-float chunk loads/stores of a matrix row: one float4 access
 *   when the caller has checked that rows are 16-byte aligned (row length a
 *   multiple of 4), else four predicated scalar accesses;
 * - the cp.async copy of one such chunk (zero-fill form; the wrappers
 *   themselves are in kernels/common/cp_async.cuh).
 *
 * Conventions: a "chunk" is 4 consecutive floats of one row starting at a
 * column that is a multiple of 4. With `vec` set, the row length `lim` is a
 * multiple of 4, so a chunk is either wholly inside the row or wholly past its
 * end: one compare decides it. sgemm_load4 / sgemm_store4 take a row pointer
 * that the caller clamped into the matrix (row 0 for an out-of-range row,
 * flagged with row_ok = 0); sgemm_cp_async_chunk takes a source that may lie
 * outside for an out-of-range chunk, and then hands cp.async the matrix base
 * instead. Either way no out-of-range address is ever dereferenced or given
 * to cp.async. */
#ifndef KERNELS_SGEMM_COMMON_CUH
#define KERNELS_SGEMM_COMMON_CUH

#include <cuda_runtime.h>

#include "cp_async.cuh"

#define SGEMM_CEIL_DIV(a, b) (((a) + (b) - 1) / (b))

/* The kernel_ran_note reason of a launcher that took its scalar kernel (rows
 * of A or B not 16-byte aligned). */
#define SGEMM_SCALAR_REASON "n or k not a multiple of 4: 4-byte accesses"

// ---- global loads / stores of one 4-float chunk --------------------------------

/* Returns row[col .. col+3], with zero for every element that is past `lim`
 * or when !row_ok. vec: one 16-byte load (row 16-byte aligned, lim % 4 == 0). */
static __device__ __forceinline__ float4 sgemm_load4(const float *__restrict__ row, int row_ok,
                                                     int col, int lim, int vec)
{
    float4 v = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    if (vec) {
        if (row_ok && col < lim)
            v = __ldg((const float4 *)(row + col));
    } else {
        if (row_ok && col + 0 < lim) v.x = __ldg(row + col + 0);
        if (row_ok && col + 1 < lim) v.y = __ldg(row + col + 1);
        if (row_ok && col + 2 < lim) v.z = __ldg(row + col + 2);
        if (row_ok && col + 3 < lim) v.w = __ldg(row + col + 3);
    }
    return v;
}

/* Stores v into row[col .. col+3], skipping elements past `lim` and everything
 * when !row_ok. vec: one 16-byte store (row 16-byte aligned, lim % 4 == 0). */
static __device__ __forceinline__ void sgemm_store4(float *__restrict__ row, int row_ok, int col,
                                                    int lim, int vec, float4 v)
{
    if (!row_ok)
        return;
    if (vec) {
        if (col < lim)
            *(float4 *)(row + col) = v;
    } else {
        if (col + 0 < lim) row[col + 0] = v.x;
        if (col + 1 < lim) row[col + 1] = v.y;
        if (col + 2 < lim) row[col + 2] = v.z;
        if (col + 3 < lim) row[col + 3] = v.w;
    }
}

// ---- cp.async of one 4-float chunk (kernels/common/cp_async.cuh) --------------------

/* Copies one chunk (4 floats) into shared memory (16-byte aligned `dst`):
 * src[0..3], where src points at element `col` of its row, zero-filling the
 * elements at or past column `lim`, or all four when !row_ok. `src` itself is
 * only used as an address for elements that are in range; every other copy
 * reads 0 bytes from `safe` (the matrix base), so no out-of-range address is
 * ever handed to cp.async. vec: one 16-byte cp.async (rows 16-byte aligned,
 * lim % 4 == 0, so the chunk is all in or all out); else four 4-byte ones. */
static __device__ __forceinline__ void sgemm_cp_async_chunk(float *dst, const float *src,
                                                            int row_ok, int col, int lim,
                                                            const float *safe, int vec)
{
    if (vec) {
        int ok = row_ok && col < lim;
        cp_async16(dst, ok ? src : safe, ok ? 16 : 0);
    } else {
#pragma unroll
        for (int q = 0; q < 4; ++q) {
            int ok = row_ok && col + q < lim;
            cp_async4(dst + q, ok ? src + q : safe, ok ? 4 : 0);
        }
    }
}

#endif
