/* kernels/common/tile_order.cuh: the order in which a grid walks the output
 * tiles of a GEMM, the one home for every kernel that groups them (tuned and
 * its search, the TF32 mma.sync, wgmma and TMA kernels).
 *
 * Grouped order: linear tile ids walk `group` tile rows down before moving one
 * tile column right (the last group may have fewer rows). Blocks that run at
 * the same time then cover a group x (a few columns) patch of C instead of a
 * long strip of one row, so they share A panels (rows) and B panels
 * (columns) while those are still in L2: fewer DRAM bytes per flop than the
 * row-major order, which streams all of B once per tile row. */
#ifndef KERNELS_COMMON_TILE_ORDER_CUH
#define KERNELS_COMMON_TILE_ORDER_CUH

#include <cuda_runtime.h>

/* Tile (x = tile column, y = tile row) of linear id `id` on a grid of
 * tiles_n columns x tiles_m rows; group <= 0: row-major order. */
static __device__ __forceinline__ int2 tile_order_grouped(int id, int tiles_n, int tiles_m, int group)
{
    if (group <= 0)
        return make_int2(id % tiles_n, id / tiles_n);
    const int per_group = group * tiles_n;
    const int first = id / per_group * group;
    const int rows = min(tiles_m - first, group);
    const int in = id % per_group;
    return make_int2(in / rows, first + in % rows);
}

/* Origin (first row bm0, first column bn0 of C) of tile `id` of a grid of
 * BM x BN tiles over an m x n C, in the grouped order above. */
static __device__ __forceinline__ void tile_order_origin(int id, int m, int n, int bm, int bn,
                                                         int group, int *bm0, int *bn0)
{
    const int2 t = tile_order_grouped(id, (n + bn - 1) / bn, (m + bm - 1) / bm, group);
    *bm0 = t.y * bm;
    *bn0 = t.x * bn;
}

#endif
