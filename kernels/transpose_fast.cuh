/* kernels/transpose_fast.cuh: the vector path of transpose `fast` as one
 * template, out (n x m) = transpose of in (m x n), float, row-major, for
 * m % 4 == 0, n % 4 == 0 and 16-byte aligned pointers. kernels/transpose.cu
 * instantiates one named pick of it (TRANSPOSE_FAST_PICK);
 * tests/probes/transpose_probe.cu times every candidate of the table below
 * against cublasSgeam.
 *
 * The body. A block moves tiles of TR input rows x TC input columns through
 * tile[TR][TC + 1] in shared memory. Both phases work in units of 4 rows x 32
 * columns, one unit a warp access: lane l takes row l / 8 of the unit and the
 * float4 at column 4 (l % 8), so every warp-wide access covers four full
 * 128-byte segments. Load phase: each thread issues all K = TR * TC / (4 *
 * THREADS) 16-byte loads of its units (16 K bytes in flight a thread), then
 * writes them as scalars into the tile. Store phase (after a barrier): the
 * unit is 4 output rows (tile columns) x 32 output columns (tile rows); a
 * thread gathers four tile rows of one tile column into a float4 and stores it
 * as 16 bytes of an output row. With the row stride TC + 1 (TC a multiple of
 * 32) the bank of (row r, column c) is (r + c) % 32, and in both phases the 32
 * lanes of a unit cover (row offset 0..3) + (4 x column offset 0..7) = 32
 * distinct banks: no conflicts.
 * The second body (B4 = 1, transpose_fast_b4_kernel, the pick): the tile in
 * 4x4 register blocks, moved through shared memory with one 16-byte store
 * and one 16-byte load per float4 instead of four 4-byte ones each way (see
 * its comment); the first body's warps stalled mostly on the shared-memory
 * instruction queue at 8192^2.
 *
 * Parameters (one row of TRANSPOSE_FAST_CANDIDATES each):
 *   TR, TC   tile rows and columns of the input. Multiples of 32 (units are
 *            4 x 32 in the input and 4 x 32 in the output, and the conflict-free
 *            bank mapping needs TC % 32 == 0), not necessarily powers of two.
 *            A tile of up to 48 KiB (TR * (TC + 1) * 4 bytes) is a static
 *            __shared__ array; a larger one is dynamic shared memory (an
 *            extern __shared__ array seen through the same float[TC + 1] rows,
 *            the launcher raising cudaFuncAttributeMaxDynamicSharedMemorySize
 *            once per device and passing the size at launch): the static limit
 *            is 48 KiB, the dynamic one 227 KiB a block.
 *   THREADS  block size, a multiple of 32; the warps must split evenly over
 *            the units (TR * TC % (4 * THREADS) == 0) and over the unit columns
 *            of both phases (warps % (TC / 32) == 0, warps % (TR / 32) == 0), so
 *            that each thread keeps one column for all of its units.
 *   MINB     blocks an SM asked of __launch_bounds__: it caps the registers at
 *            65536 / (MINB * THREADS), so MINB tiles (with the 1 KiB an SM
 *            reserves per block) and MINB * THREADS threads must fit on an SM,
 *            or fewer blocks are resident than the register cap was paid for.
 *   GROUP    the order of the tiles. Linear tile ids go to blocks in launch
 *            order. GROUP 0: row-major (tile column fastest): the blocks
 *            resident at once read a few full-width bands of input rows (long
 *            contiguous runs) but write short pieces of every output row.
 *            GROUP g > 0: ids walk g tile rows down before moving one tile
 *            column right, so the resident blocks cover a roughly square
 *            patch (g tile rows x resident / g tile columns): reads and
 *            writes then both come in runs of about the same length, which
 *            may keep more DRAM pages open on both sides.
 *            GROUP -1: diagonal (the partition-camping fix of NVIDIA's
 *            transpose note): ty = id / tiles_x, tx = (id % tiles_x + ty) %
 *            tiles_x, each tile row rotated by its index, so that blocks
 *            launched together in neighbouring tile rows start on different
 *            tile columns, i.e. write different output rows (a bijection on
 *            any tiles_x x tiles_y grid, square or not).
 *   HINT     cache hints of the global loads and stores (the data is touched
 *            once: L1 and L2 never reuse it):
 *              TRANSPOSE_HINT_LDG  ld.global.nc (__ldg), st.global.v4 (no
 *                                  hint; written in PTX, as nvcc splits a
 *                                  float4 assignment gathered from shared
 *                                  memory into four 4-byte stores);
 *              TRANSPOSE_HINT_CS   ld.global.cs / st.global.cs (__ldcs,
 *                                  __stcs: streaming, evict-first);
 *              TRANSPOSE_HINT_NA   ld.global.nc.L1::no_allocate.L2::256B
 *                                  (with a 256-byte L2 prefetch) and
 *                                  st.global.L1::no_allocate;
 *              TRANSPOSE_HINT_EF   like NA without the prefetch, both with an
 *                                  L2 evict-first cache policy (createpolicy).
 *   One block a tile: the grid is the tile count, capped at 2^31 - 1
 *   blocks; blocks loop past the cap (ids id, id + gridDim.x, ...). Persistent
 *   grids (SMs x resident blocks, and one that issued the next tile's loads
 *   while storing the current one) were tried and were slower than one block
 *   a tile (the probe's persist and prefetch rows: docs/tuning/transpose.md);
 *   they are not kept. Rows tried there that lost at both sizes and were
 *   removed from the table: the CS and NA hints on the 64 x 64 tile (the hint
 *   code stays), tiles 32 x 128 (256 threads) and 32 x 64 (128 threads, 16
 *   blocks an SM).
 *
 * Constraints (and why):
 *   - m % 4 == 0, n % 4 == 0, 16-byte aligned in and out (checked by
 *     transpose_fast_launch): a float4 of an input row is 4 columns, of an
 *     output row 4 input rows; with both multiples of 4 a float4 that starts
 *     in range ends in range, and every row start is 16-byte aligned.
 *   - edges: loads and stores are predicated a float4 at a time; tile cells
 *     past an edge hold zeros that no in-range output reads.
 *   - indices are 64-bit (m * n may exceed 2^31; the tile count may exceed
 *     2^31 too, so tile ids are 64-bit; the mapping of an id to its tile uses
 *     32-bit division when the tile count fits). The loop over ids has a bound
 *     uniform across the block, so every thread reaches every barrier.
 *   - in and out must not overlap (the loads are non-coherent .nc/.cs loads).
 *   - host state: the shared-memory carveout hint (and, for a dynamic tile,
 *     the dynamic shared-memory limit) is set once per device and
 *     instantiation (smem_func_attr_once: one bit per device ordinal).
 */
#ifndef KERNELS_TRANSPOSE_FAST_CUH
#define KERNELS_TRANSPOSE_FAST_CUH

#include <stdint.h>
#include <cuda_runtime.h>

#include "smem.cuh"

#define TRANSPOSE_HINT_LDG 0
#define TRANSPOSE_HINT_CS 1
#define TRANSPOSE_HINT_NA 2
#define TRANSPOSE_HINT_EF 3

#define TRANSPOSE_FAST_GRID_MAX 2147483647LL /* hardware limit of gridDim.x */

/* The candidates: TRANSPOSE_FAST_CFG_<name> is the parameter list
 * TR, TC, THREADS, MINB, GROUP, HINT; TRANSPOSE_FAST_CANDIDATES lists the
 * names the probe times. The name says the parameters that differ from
 * `base`: the parameters of the kernel before the template (64 x 64, 256
 * threads, 8 blocks an SM, row-major, __ldg, one block a tile), in the
 * template's code (explicit 16-byte stores, all loads issued first; the probe
 * times the old kernel itself beside it). Rows of the scalar-shared kernel
 * compile without spills (check with -Xptxas -v): a thread holds its K
 * float4 loads, 4 K registers, under the cap 65536 / (MINB x THREADS). So the
 * 128 x 128 tile with 512 threads (K = 8) took 2 blocks an SM, not the 3 its
 * shared memory allows (3 caps it at 40 registers: it spills), and the
 * 96 x 96 tile takes 576 threads (K = 4): with 384 threads (K = 6) it spills
 * at 5 and at 4 blocks an SM. The b4 rows (B4 = 1) at 32 registers (8 blocks
 * of 256 threads) spill a few bytes of index state (4 at the 64 x 64 tile,
 * more at the others), read back from L1 once a tile; b4_b6 (6 blocks an SM,
 * 40 registers) has none and is timed beside it to show what the spill
 * costs. Rows removed after the second probe run (slower than base at
 * both sizes): g32, t64x128_b4, t128x128_w512_b2 and its diagonal twin. */
#define TRANSPOSE_FAST_CFG_base 64, 64, 256, 8, 0, TRANSPOSE_HINT_LDG
#define TRANSPOSE_FAST_CFG_g4 64, 64, 256, 8, 4, TRANSPOSE_HINT_LDG
#define TRANSPOSE_FAST_CFG_diag 64, 64, 256, 8, -1, TRANSPOSE_HINT_LDG
#define TRANSPOSE_FAST_CFG_ef 64, 64, 256, 8, 0, TRANSPOSE_HINT_EF
#define TRANSPOSE_FAST_CFG_t128x64_w512_b4 128, 64, 512, 4, 0, TRANSPOSE_HINT_LDG
#define TRANSPOSE_FAST_CFG_t96x96_w576_b3 96, 96, 576, 3, 0, TRANSPOSE_HINT_LDG
#define TRANSPOSE_FAST_CFG_t128x128_w1024_b2 128, 128, 1024, 2, 0, TRANSPOSE_HINT_LDG

/* 4x4 register blocks (the seventh parameter, B4 = 1: transpose_fast_b4_kernel) */
#define TRANSPOSE_FAST_CFG_b4 64, 64, 256, 8, 0, TRANSPOSE_HINT_LDG, 1
#define TRANSPOSE_FAST_CFG_b4_b6 64, 64, 256, 6, 0, TRANSPOSE_HINT_LDG, 1
#define TRANSPOSE_FAST_CFG_b4_w128_b12 64, 64, 128, 12, 0, TRANSPOSE_HINT_LDG, 1
#define TRANSPOSE_FAST_CFG_b4_t32x128_b6 32, 128, 256, 6, 0, TRANSPOSE_HINT_LDG, 1
#define TRANSPOSE_FAST_CFG_b4_t128x64_w512_b3 128, 64, 512, 3, 0, TRANSPOSE_HINT_LDG, 1
#define TRANSPOSE_FAST_CFG_b4_g4 64, 64, 256, 8, 4, TRANSPOSE_HINT_LDG, 1
#define TRANSPOSE_FAST_CFG_b4_ef 64, 64, 256, 8, 0, TRANSPOSE_HINT_EF, 1

#define TRANSPOSE_FAST_CANDIDATES(X)                                                                       \
    X(base) X(g4) X(diag) X(ef) X(t128x64_w512_b4) X(t96x96_w576_b3) X(t128x128_w1024_b2) X(b4) X(b4_b6)    \
        X(b4_w128_b12) X(b4_t32x128_b6) X(b4_t128x64_w512_b3) X(b4_g4) X(b4_ef)

/* the largest tile kept in static shared memory; larger ones are dynamic */
#define TRANSPOSE_FAST_STATIC_MAX (48 * 1024)

/* bytes of the shared tile of a TR x TC configuration */
#define TRANSPOSE_FAST_TILE_BYTES(TR, TC) ((TR) * ((TC) + 1) * 4)

// ---- global loads and stores with the chosen cache hints -------------------------

/* an L2 evict-first policy for TRANSPOSE_HINT_EF (0, unused, otherwise) */
template <int HINT>
static __device__ __forceinline__ unsigned long long transpose_fast_policy(void)
{
    unsigned long long pol = 0;
    if (HINT == TRANSPOSE_HINT_EF)
        asm volatile("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(pol));
    return pol;
}

template <int HINT>
static __device__ __forceinline__ float4 transpose_fast_ld(const float *p, unsigned long long pol)
{
    float4 v;
    if (HINT == TRANSPOSE_HINT_CS) {
        v = __ldcs((const float4 *)p);
    } else if (HINT == TRANSPOSE_HINT_NA) {
        asm("ld.global.nc.L1::no_allocate.L2::256B.v4.f32 {%0, %1, %2, %3}, [%4];"
            : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w)
            : "l"(p));
    } else if (HINT == TRANSPOSE_HINT_EF) {
        asm("ld.global.nc.L1::no_allocate.L2::cache_hint.v4.f32 {%0, %1, %2, %3}, [%4], %5;"
            : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w)
            : "l"(p), "l"(pol));
    } else {
        v = __ldg((const float4 *)p);
    }
    return v;
}

template <int HINT>
static __device__ __forceinline__ void transpose_fast_st(float *p, float4 v, unsigned long long pol)
{
    if (HINT == TRANSPOSE_HINT_CS) {
        __stcs((float4 *)p, v);
    } else if (HINT == TRANSPOSE_HINT_NA) {
        asm volatile("st.global.L1::no_allocate.v4.f32 [%0], {%1, %2, %3, %4};" ::"l"(p), "f"(v.x), "f"(v.y),
                     "f"(v.z), "f"(v.w));
    } else if (HINT == TRANSPOSE_HINT_EF) {
        asm volatile("st.global.L1::no_allocate.L2::cache_hint.v4.f32 [%0], {%1, %2, %3, %4}, %5;" ::"l"(p),
                     "f"(v.x), "f"(v.y), "f"(v.z), "f"(v.w), "l"(pol));
    } else {
        /* an explicit 16-byte store: nvcc compiles `*(float4 *)p = v` with
         * v gathered from shared memory into four 4-byte stores */
        asm volatile("st.global.v4.f32 [%0], {%1, %2, %3, %4};" ::"l"(p), "f"(v.x), "f"(v.y), "f"(v.z), "f"(v.w));
    }
}

// ---- tile order ----------------------------------------------------------------------

/* First input row (*row0) and column (*col0) of tile `id` on a grid of tiles_x
 * tile columns x tiles_y tile rows; GROUP as in the header comment. T is the
 * integer type of the division (32-bit when the tile count fits). */
template <int GROUP, typename T>
static __device__ __forceinline__ void transpose_fast_tile_at(T id, T tiles_x, T tiles_y, int tr, int tc,
                                                              long long *row0, long long *col0)
{
    static_assert(GROUP >= -1, "GROUP is -1 (diagonal), 0 (row-major) or a group height g > 0");
    T tx, ty;
    if (GROUP == 0) {
        ty = id / tiles_x;
        tx = id - ty * tiles_x;
    } else if (GROUP < 0) {
        /* (id % tiles_x + ty) % tiles_x with both terms below tiles_x: no
         * overflow of T, one conditional subtraction */
        ty = id / tiles_x;
        tx = id - ty * tiles_x + ty % tiles_x;
        if (tx >= tiles_x)
            tx -= tiles_x;
    } else {
        constexpr int G = GROUP > 0 ? GROUP : 1; /* this branch is compiled for GROUP 0 too */
        const T per_group = (T)G * tiles_x;
        const T g = id / per_group;
        const T first = g * (T)G;
        const T rows = tiles_y - first < (T)G ? tiles_y - first : (T)G;
        const T in = id - g * per_group;
        tx = in / rows;
        ty = first + (in - tx * rows);
    }
    *row0 = (long long)ty * tr;
    *col0 = (long long)tx * tc;
}

template <int GROUP>
static __device__ __forceinline__ void transpose_fast_tile(long long id, long long tiles_x, long long tiles_y,
                                                           int tr, int tc, long long *row0, long long *col0)
{
    /* uniform across the grid; GROUP x tiles_x may exceed the tile count */
    if (tiles_x * tiles_y <= 0x7fffffffLL && (long long)(GROUP > 0 ? GROUP : 1) * tiles_x <= 0x7fffffffLL)
        transpose_fast_tile_at<GROUP, unsigned int>((unsigned int)id, (unsigned int)tiles_x,
                                                    (unsigned int)tiles_y, tr, tc, row0, col0);
    else
        transpose_fast_tile_at<GROUP, long long>(id, tiles_x, tiles_y, tr, tc, row0, col0);
}

// ---- the kernel ---------------------------------------------------------------------

/* Issues this thread's K loads of the tile at (row0, col0): input rows row0 +
 * r + RSTEP k, columns col0 + c .. + 3. */
template <int K, int RSTEP, int HINT>
static __device__ __forceinline__ void transpose_fast_load(float4 (&v)[K], const float *__restrict__ in, int m,
                                                           int n, long long row0, long long col0, int r, int c,
                                                           unsigned long long pol)
{
    const float *src = in + (row0 + r) * n + col0 + c;
    const int col_ok = col0 + c < n;
#pragma unroll
    for (int k = 0; k < K; k++) {
        v[k] = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
        if (col_ok && row0 + r + RSTEP * k < m)
            v[k] = transpose_fast_ld<HINT>(src + (long long)RSTEP * k * n, pol);
    }
}

template <int TR, int TC, int THREADS, int MINB, int GROUP, int HINT>
static __global__ void __launch_bounds__(THREADS, MINB)
transpose_fast_kernel(const float *__restrict__ in, float *__restrict__ out, int m, int n, long long tiles_x,
                      long long tiles_y)
{
    constexpr int WARPS = THREADS / 32;
    constexpr int K = TR * TC / (4 * THREADS); /* float4 a thread a phase */
    constexpr int LU = TC / 32;                /* load units across a band of 4 input rows */
    constexpr int SU = TR / 32;                /* store units across a band of 4 output rows */
    constexpr int LSTEP = 4 * (WARPS / LU);    /* tile rows between a thread's load units */
    constexpr int SSTEP = 4 * (WARPS / SU);    /* tile columns between a thread's store units */
    static_assert(TR % 32 == 0 && TC % 32 == 0, "units are 4 x 32 in both phases; the bank mapping needs TC % 32 == 0");
    static_assert(THREADS % 32 == 0 && (TR * TC) % (4 * THREADS) == 0, "the units split evenly over the warps");
    static_assert(WARPS % LU == 0 && WARPS % SU == 0, "a thread keeps one column of units in both phases");
    static_assert(K * LSTEP == TR && K * SSTEP == TC, "a thread's units cover the tile");
    constexpr int BYTES = TRANSPOSE_FAST_TILE_BYTES(TR, TC);
    static_assert(BYTES <= SMEM_SM90_PER_BLOCK, "the tile fits in a block's shared memory (227 KiB dynamic)");
    static_assert(SMEM_SM90_FITS(BYTES, MINB),
                  "MINB tiles fit on an SM: ptxas caps the registers for MINB resident blocks");
    static_assert(MINB * THREADS <= 2048, "MINB blocks fit in an SM's 2048 threads (the register cap assumes them)");

    /* the tile as rows of TC + 1 floats (tile[r][c] is element r (TC + 1) + c):
     * a static array up to 48 KiB, dynamic shared memory above (launch-time
     * size, transpose_fast_launch) */
    float (*tile)[TC + 1];
    if constexpr (BYTES > TRANSPOSE_FAST_STATIC_MAX) {
        extern __shared__ __align__(16) float transpose_fast_dyn_tile[];
        tile = reinterpret_cast<float (*)[TC + 1]>(transpose_fast_dyn_tile);
    } else {
        __shared__ float transpose_fast_static_tile[TR][TC + 1];
        tile = transpose_fast_static_tile;
    }
    const int lane = threadIdx.x & 31;
    const int warp = threadIdx.x >> 5;
    /* load unit warp + WARPS k: tile rows lr + LSTEP k, columns lc .. lc + 3 */
    const int lr = 4 * (warp / LU) + (lane >> 3);
    const int lc = 32 * (warp % LU) + 4 * (lane & 7);
    /* store unit warp + WARPS k: tile column sc + SSTEP k (an output row),
     * tile rows sr .. sr + 3 (output columns) */
    const int sc = 4 * (warp / SU) + (lane >> 3);
    const int sr = 32 * (warp % SU) + 4 * (lane & 7);
    const unsigned long long pol = transpose_fast_policy<HINT>();
    const long long total = tiles_x * tiles_y;

    /* The loads of a tile are issued where v is free: before the loop for the
     * first tile, then for tile id + gridDim.x after the second barrier. v
     * lives across the loop's
     * back edge, which also keeps ptxas from interleaving the first loads
     * with the shared-memory writes of the earlier ones under the register
     * cap: all K loads go out before the first is waited for. */
    float4 v[K];
    long long id = blockIdx.x;
    long long row0 = 0, col0 = 0;
    if (id < total) {
        transpose_fast_tile<GROUP>(id, tiles_x, tiles_y, TR, TC, &row0, &col0);
        transpose_fast_load<K, LSTEP, HINT>(v, in, m, n, row0, col0, lr, lc, pol);
    }
    for (; id < total; id += gridDim.x) {
#pragma unroll
        for (int k = 0; k < K; k++) {
            tile[lr + LSTEP * k][lc + 0] = v[k].x;
            tile[lr + LSTEP * k][lc + 1] = v[k].y;
            tile[lr + LSTEP * k][lc + 2] = v[k].z;
            tile[lr + LSTEP * k][lc + 3] = v[k].w;
        }
        __syncthreads();
        const long long trow0 = row0, tcol0 = col0;
        const long long next = id + gridDim.x;
        /* output rows tcol0 + sc + SSTEP k, output columns trow0 + sr .. + 3
         * (m % 4 == 0: all four in range or none) */
        float *dst = out + (tcol0 + sc) * m + trow0 + sr;
        const int ocol_ok = trow0 + sr < m;
#pragma unroll
        for (int k = 0; k < K; k++) {
            const int c = sc + SSTEP * k;
            if (ocol_ok && tcol0 + c < n)
                transpose_fast_st<HINT>(dst + (long long)SSTEP * k * m,
                                        make_float4(tile[sr][c], tile[sr + 1][c], tile[sr + 2][c], tile[sr + 3][c]),
                                        pol);
        }
        __syncthreads(); /* the tile is refilled by the next one */
        if (next < total) {
            transpose_fast_tile<GROUP>(next, tiles_x, tiles_y, TR, TC, &row0, &col0);
            transpose_fast_load<K, LSTEP, HINT>(v, in, m, n, row0, col0, lr, lc, pol);
        }
    }
}

// ---- 4x4 register blocks ------------------------------------------------------------

/* The tile moved in 4x4 blocks: a thread loads rows 4 br .. 4 br + 3 of the
 * tile at columns 4 bc .. 4 bc + 3 (four 16-byte loads), transposes the
 * 4x4 block in registers (free: it only renames), and writes its four output
 * rows 4 bc + j, output columns 4 br .. + 3, as four 16-byte shared stores
 * into the tile held in output order, T[TC][TR]. After the barrier each
 * thread reads 16-byte chunks of T's rows and stores them to the output rows.
 * Why: the scalar kernel above moves a float4 through shared memory as four
 * 4-byte stores and four 4-byte loads; at 8192^2 Nsight Compute put its
 * warps' top stall on the MIO queue (shared-memory instructions), where this
 * moves it with one 16-byte store and one 16-byte load.
 * Banks (no padding; TR * 4 bytes a row of T, TR % 32 == 0, so every row
 * starts at bank 0): chunk q of row R is stored at chunk q ^ ((R / 4) & 7).
 * Writes: the 8 lanes of a quarter warp (one 128-byte shared access) hold
 * consecutive bc (TC / 4 % 8 == 0) and one br, write rows R = 4 bc + j at
 * logical chunk br: physical chunks br ^ (bc & 7), 8 distinct, 32 banks.
 * Reads: a quarter warp reads chunks q .. q + 7 (q % 8 == 0) of one row, at
 * q ^ s for one s: 8 distinct chunks. TR / 4 % 8 == 0 keeps q ^ s in the row.
 * Loads and stores: consecutive lanes take consecutive 16-byte chunks of a
 * row, TC / 4 (loads) or TR / 4 (stores) lanes a row: 256-byte runs at 64. */
/* One tile of transpose_fast_b4_kernel: tile id `id` through t. */
template <int TR, int TC, int THREADS, int GROUP, int HINT>
static __device__ __forceinline__ void transpose_fast_b4_tile(const float *__restrict__ in, float *__restrict__ out,
                                                              int m, int n, long long tiles_x, long long tiles_y,
                                                              long long id, float *t, unsigned long long pol)
{
    constexpr int BC = TC / 4, BR = TR / 4; /* 4x4 blocks across and down the tile */
    constexpr int K = BR * BC / THREADS;    /* 4x4 blocks a thread (and 4 K chunks to store) */
    long long row0, col0;
    transpose_fast_tile<GROUP>(id, tiles_x, tiles_y, TR, TC, &row0, &col0);
    float4 v[K][4];
#pragma unroll
    for (int b = 0; b < K; b++) {
        const int e = threadIdx.x + THREADS * b, br = e / BC, bc = e % BC;
        const long long col = col0 + 4 * bc;
        const float *src = in + (row0 + 4 * br) * n + col;
#pragma unroll
        for (int i = 0; i < 4; i++) {
            v[b][i] = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
            if (col < n && row0 + 4 * br + i < m)
                v[b][i] = transpose_fast_ld<HINT>(src + (long long)i * n, pol);
        }
    }
#pragma unroll
    for (int b = 0; b < K; b++) {
        const int e = threadIdx.x + THREADS * b, br = e / BC, bc = e % BC;
        const int chunk = br ^ (bc & 7); /* rows 4 bc + j: (R / 4) & 7 = bc & 7 */
        *(float4 *)&t[(4 * bc + 0) * TR + 4 * chunk] = make_float4(v[b][0].x, v[b][1].x, v[b][2].x, v[b][3].x);
        *(float4 *)&t[(4 * bc + 1) * TR + 4 * chunk] = make_float4(v[b][0].y, v[b][1].y, v[b][2].y, v[b][3].y);
        *(float4 *)&t[(4 * bc + 2) * TR + 4 * chunk] = make_float4(v[b][0].z, v[b][1].z, v[b][2].z, v[b][3].z);
        *(float4 *)&t[(4 * bc + 3) * TR + 4 * chunk] = make_float4(v[b][0].w, v[b][1].w, v[b][2].w, v[b][3].w);
    }
    __syncthreads();
#pragma unroll 2
    for (int b = 0; b < 4 * K; b++) { /* TC x BR chunks of 16 bytes: 4 K a thread */
        const int e = threadIdx.x + THREADS * b, r = e / BR, q = e % BR;
        const float4 w = *(const float4 *)&t[r * TR + 4 * (q ^ ((r >> 2) & 7))];
        /* output row col0 + r, output columns row0 + 4 q .. + 3 (m % 4 == 0) */
        if (col0 + r < n && row0 + 4 * q < m)
            transpose_fast_st<HINT>(out + (col0 + r) * m + row0 + 4 * q, w, pol);
    }
}

template <int TR, int TC, int THREADS, int MINB, int GROUP, int HINT>
static __global__ void __launch_bounds__(THREADS, MINB)
transpose_fast_b4_kernel(const float *__restrict__ in, float *__restrict__ out, int m, int n, long long tiles_x,
                         long long tiles_y)
{
    static_assert(TR % 32 == 0 && TC % 32 == 0, "the swizzle: 8 chunks per quarter warp in both phases");
    static_assert(THREADS % 32 == 0 && (TR * TC / 16) % THREADS == 0, "the 4x4 blocks split evenly over the threads");
    static_assert(TR * TC * 4 <= TRANSPOSE_FAST_STATIC_MAX, "the tile fits in static shared memory");
    static_assert(SMEM_SM90_FITS(TR * TC * 4, MINB) && MINB * THREADS <= 2048, "MINB blocks fit on an SM");
    __shared__ __align__(16) float t[TC * TR]; /* T[R][c]: output row R (tile column), tile row c */
    const unsigned long long pol = transpose_fast_policy<HINT>();
    const long long total = tiles_x * tiles_y;
    if (total <= (long long)gridDim.x) { /* one tile a block (every grid under the cap): no loop state */
        if ((long long)blockIdx.x < total)
            transpose_fast_b4_tile<TR, TC, THREADS, GROUP, HINT>(in, out, m, n, tiles_x, tiles_y, blockIdx.x, t, pol);
        return;
    }
    for (long long id = blockIdx.x; id < total; id += gridDim.x) {
        transpose_fast_b4_tile<TR, TC, THREADS, GROUP, HINT>(in, out, m, n, tiles_x, tiles_y, id, t, pol);
        __syncthreads(); /* t is refilled by the next tile */
    }
}

// ---- host launcher ----------------------------------------------------------------------

/* Launches the vector kernel of one configuration on `stream`, one block a
 * tile; returns a cudaError_t (cudaErrorInvalidValue, without launching,
 * when the vector path's conditions do not hold). Once per device: asks for
 * the largest shared-memory carveout (several resident blocks need more than
 * a default split may leave) and, for a tile above 48 KiB, raises the
 * kernel's dynamic shared-memory limit to the tile's size. */
template <int TR, int TC, int THREADS, int MINB, int GROUP, int HINT, int B4 = 0>
static int transpose_fast_launch(const float *in, float *out, int m, int n, cudaStream_t stream)
{
    static unsigned long long carveout_set; /* one bit per device ordinal */
    static unsigned long long dyn_set;      /* one bit per device ordinal */
    constexpr int bytes = B4 ? TR * TC * 4 : TRANSPOSE_FAST_TILE_BYTES(TR, TC);
    constexpr int dyn_bytes = bytes > TRANSPOSE_FAST_STATIC_MAX ? bytes : 0;
    const void *kern;
    if constexpr (B4)
        kern = (const void *)transpose_fast_b4_kernel<TR, TC, THREADS, MINB, GROUP, HINT>;
    else
        kern = (const void *)transpose_fast_kernel<TR, TC, THREADS, MINB, GROUP, HINT>;
    if (m < 1 || n < 1 || m % 4 != 0 || n % 4 != 0 || ((uintptr_t)in & 15u) != 0 || ((uintptr_t)out & 15u) != 0)
        return (int)cudaErrorInvalidValue;
    int err = smem_func_attr_once(kern, cudaFuncAttributePreferredSharedMemoryCarveout,
                                  cudaSharedmemCarveoutMaxShared, &carveout_set);
    if (err != 0)
        return err;
    if (dyn_bytes > 0) {
        err = smem_opt_in(kern, dyn_bytes, &dyn_set);
        if (err != 0)
            return err;
    }
    const long long tiles_x = ((long long)n + TC - 1) / TC;
    const long long tiles_y = ((long long)m + TR - 1) / TR;
    const long long blocks = tiles_x * tiles_y < TRANSPOSE_FAST_GRID_MAX ? tiles_x * tiles_y : TRANSPOSE_FAST_GRID_MAX;
    if constexpr (B4)
        transpose_fast_b4_kernel<TR, TC, THREADS, MINB, GROUP, HINT>
            <<<(unsigned int)blocks, THREADS, 0, stream>>>(in, out, m, n, tiles_x, tiles_y);
    else
        transpose_fast_kernel<TR, TC, THREADS, MINB, GROUP, HINT>
            <<<(unsigned int)blocks, THREADS, dyn_bytes, stream>>>(in, out, m, n, tiles_x, tiles_y);
    return (int)cudaGetLastError();
}

#endif
