/* kernels/gemv_plan.h: the launch choices of the GEMV kernels (gemv_warp.cu,
 * gemv_splitk.cu) as pure arithmetic on m, k and the element size, so the
 * cpu tests pin them down (tests/test_gemv_rules.c) and the kernels and the
 * scratch query agree by construction. Plain C (static inline, like
 * elem_type.h): included by the .cu files and by the test.
 *
 * Terms: a row is read in "units": 16-byte vectors when every row start and
 * x are 16-byte aligned (k * element bytes a multiple of 16), else single
 * elements. A "group" of G lanes (a power of two, 1..32) reads one row, each
 * lane gemv_unroll(vec) units per step, all loads issued before any is used
 * (bytes in flight; twice as many of the narrow element loads). Short rows
 * get narrow groups so that a warp reads several rows
 * at once instead of idling 31 lanes.
 *
 * Split-k (short, wide matrices): each row is cut into `splits` chunks of
 * `chunk` elements (a multiple of the 16-byte unit, so every chunk starts
 * aligned), one warp per (row, chunk), so that even m = 1 puts enough warps
 * on the GPU to keep HBM busy; the FP32 partials go to scratch
 * (splits x m floats) and a finish pass adds them in a fixed order
 * (deterministic: no atomics). The split count aims at GEMV_SPLITK_WARPS
 * warps in all, and no chunk is shorter than one warp step (32 lanes x
 * gemv_unroll units), so a split never makes a warp do less than one full
 * round of loads. The target is a constant, not the SM count, so that the
 * scratch size is a function of (m, k, type) alone. */
#ifndef COMPARE_GEMV_PLAN_H
#define COMPARE_GEMV_PLAN_H

#include <stddef.h>

#define GEMV_UNROLL 4            /* 16-byte units each lane loads per step, before using any */
#define GEMV_BLOCK 256           /* threads per block of both kernels */
#define GEMV_SPLITK_WARPS 4096   /* split-k: warps to aim at in all (several per SM's worth of bytes in flight) */
#define GEMV_SPLITK_MAX 65535    /* split-k: at most this many chunks a row (the grid's y dimension) */

/* Elements per unit: 16 / elem_bytes when vec, else 1. */
static inline long long gemv_unit_elems(int elem_bytes, int vec) { return vec ? 16 / elem_bytes : 1; }

/* Units a lane loads per step: GEMV_UNROLL 16-byte loads, or twice as many
 * single elements. */
static inline int gemv_unroll(int vec) { return vec ? GEMV_UNROLL : 2 * GEMV_UNROLL; }

/* Lanes per row for rows of k elements: the smallest power of two G with
 * G * gemv_unroll(vec) units >= a row, at most 32 (a whole warp). */
static inline int gemv_group_lanes(long long k, int elem_bytes, int vec)
{
    const long long units = (k + gemv_unit_elems(elem_bytes, vec) - 1) / gemv_unit_elems(elem_bytes, vec);
    int g = 1;
    while (g < 32 && (long long)g * gemv_unroll(vec) < units) g *= 2;
    return g;
}

/* Rows a group reads at once: 2 for whole-warp groups on the 16-byte path
 * (each x unit loaded serves both rows, and a lane has twice the A bytes in
 * flight), else 1 (narrow groups already read several rows a warp; the
 * element path is the slow fallback). */
static inline int gemv_rows_per_group(int lanes, int vec) { return vec && lanes == 32 ? 2 : 1; }

typedef struct {
    long long splits;  /* chunks per row (1: no split, y written directly) */
    long long chunk;   /* elements per chunk (the last one may be shorter); k when splits == 1 */
} gemv_split;

/* The split-k choice for an m x k matrix of elem_bytes-byte elements whose
 * rows are vec-aligned (vec = 1) or not. */
static inline gemv_split gemv_splitk_plan(long long m, long long k, int elem_bytes, int vec)
{
    gemv_split s = {1, k};
    const long long unit = gemv_unit_elems(elem_bytes, vec);
    const long long min_chunk = 32LL * gemv_unroll(vec) * unit; /* one warp step */
    long long want, most;
    if (m < 1 || k < 1 || elem_bytes < 1) return s;
    want = (GEMV_SPLITK_WARPS + m - 1) / m;    /* chunks a row for the warp target */
    most = (k + min_chunk - 1) / min_chunk;    /* chunks a row of at least one step each */
    if (want > most) want = most;
    if (want > GEMV_SPLITK_MAX) want = GEMV_SPLITK_MAX;
    if (want <= 1) return s;
    /* chunk: k / want rounded up to whole units, then the count that covers k */
    s.chunk = (k + want - 1) / want;
    s.chunk = (s.chunk + unit - 1) / unit * unit;
    s.splits = (k + s.chunk - 1) / s.chunk;
    if (s.splits <= 1) {
        s.splits = 1;
        s.chunk = k;
    }
    return s;
}

/* Scratch bytes of a split: one float per (chunk, row), 0 without a split. */
static inline size_t gemv_split_scratch(long long m, const gemv_split *s)
{
    return s->splits > 1 ? (size_t)s->splits * (size_t)m * sizeof(float) : 0;
}

#endif
