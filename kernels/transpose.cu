/* kernels/transpose.cu: out (n x m) = transpose of in (m x n), float, row-major.
 *
 * A transpose moves every byte once in and once out: it is a copy whose
 * reads and writes cannot both be contiguous. The ladder is about making both
 * sides coalesced and then keeping enough bytes in flight.
 *
 * Idea, variant by variant:
 *   naive         one thread per element, 32 x 8 threads a block: threads of a
 *                 warp read 32 consecutive floats of a row (coalesced) and
 *                 write them 4*m bytes apart, one 32-byte sector per float.
 *   tiled         a 32 x 32 tile through shared memory, 32 x 8 threads, four
 *                 elements a thread: rows read coalesced into tile[r][c], then
 *                 tile columns written coalesced as output rows. The column
 *                 read tile[c][r] has a stride of 32 words: all 32 lanes of a
 *                 warp hit the same bank (32-way conflict).
 *   tiled_padded  the same with tile[32][33]: the stride becomes 33 words and
 *                 lane i reads bank (i + c) % 32, conflict-free.
 *   fast          a 64 x 64 tile, 256 threads (8 warps), tile[64][65].
 *                 Vector path (m, n multiples of 4, both pointers 16-byte
 *                 aligned): each warp moves units of 4 rows x 32 columns; lane
 *                 l takes row l / 8 of the unit and the float4 at column
 *                 4 (l % 8). Every thread first issues all four 16-byte loads
 *                 of its units (64 bytes in flight per thread), then stores them
 *                 as scalars into the tile; after the barrier it gathers four
 *                 tile rows of one column into a float4 and stores it as 16
 *                 bytes of an output row. With the stride of 65 words the
 *                 bank of (row r, column c) is (r + c) % 32, and in both
 *                 phases the 32 lanes of a unit cover (row offset 0..3) +
 *                 (4 x column offset 0..7) = 32 distinct banks: no conflicts.
 *                 Every warp-wide access covers four full 128-byte segments.
 *                 Scalar path (anything else): the tiled_padded body with a
 *                 64 x 64 tile and 64 x 4 threads, 16 elements a thread.
 *
 * Constraints (and why):
 *   - any m, n >= 1; indices are 64-bit (m * n may exceed 2^31). The grid's y
 *     dimension is capped at 65535 blocks (the hardware limit), so every
 *     kernel loops over row tiles: block (x, y) takes row tiles y, y +
 *     gridDim.y, ... (the loop bound is uniform across the block, so the
 *     barriers inside it are reached by every thread).
 *   - edges: loads and stores are predicated; tile cells past an edge are left
 *     unwritten and never read for an in-range output.
 *   - fast's vector path needs m % 4 == 0 and n % 4 == 0 (a float4 of an input
 *     row is 4 columns, of an output row 4 input rows: with both multiples of
 *     4, a float4 that starts in range ends in range, and every row start is
 *     16-byte aligned) and 16-byte aligned pointers; otherwise it runs the
 *     scalar path and says so through kernel_ran_note.
 *   - in and out must not overlap; every launcher runs only on `stream`.
 *
 * Run just these variants:
 *   ./compare --variants naive,tiled,tiled_padded,fast --ops transpose
 */
#include <stdint.h>
#include <cuda_runtime.h>

#include "kernel_ran.h"
#include "transpose.h"

// ---- tuning constants -------------------------------------------------------

#define TRANSPOSE_TILE 32          /* naive, tiled, tiled_padded: 32 x 32 tiles */
#define TRANSPOSE_ROWS 8           /* ... with 32 x 8 threads, 4 elements a thread */
#define TRANSPOSE_FAST_TILE 64     /* fast: 64 x 64 tiles */
#define TRANSPOSE_FAST_THREADS 256 /* 8 warps */
#define TRANSPOSE_FAST_ROWS 4      /* scalar path: 64 x 4 threads, 16 elements a thread */
/* vector path: 8 blocks an SM (2048 threads) caps it at 32 registers; 8 x 16.25 KiB of
 * shared memory fits too. Keeps 8 x 256 x 64 bytes of loads in flight an SM. */
#define TRANSPOSE_FAST_MIN_BLOCKS 8
#define TRANSPOSE_GRID_Y_MAX 65535 /* hardware limit of gridDim.y */
#define TRANSPOSE_MAX_DEVICES 64   /* per-device "attribute set" flags */

static_assert(TRANSPOSE_TILE % TRANSPOSE_ROWS == 0, "each thread takes TILE / ROWS whole rows of a tile");
static_assert(TRANSPOSE_FAST_TILE % TRANSPOSE_FAST_ROWS == 0, "each thread takes TILE / ROWS whole rows of a tile");
static_assert(TRANSPOSE_FAST_TILE * TRANSPOSE_FAST_ROWS == TRANSPOSE_FAST_THREADS,
              "the scalar path runs with the vector path's block size");
static_assert(TRANSPOSE_FAST_TILE == 64 && TRANSPOSE_FAST_THREADS == 256,
              "vector path: 32 units of 4 rows x 32 columns, 4 units per warp; the conflict-free "
              "bank mapping (r + c) % 32 needs 4 rows x 8 float4 per warp access");

// ---- naive: one thread per element ------------------------------------------------

static __global__ void __launch_bounds__(TRANSPOSE_TILE * TRANSPOSE_ROWS)
transpose_naive_kernel(const float *__restrict__ in, float *__restrict__ out, int m, int n)
{
    const long long col = (long long)blockIdx.x * TRANSPOSE_TILE + threadIdx.x;
    const long long step = (long long)gridDim.y * TRANSPOSE_ROWS;
    if (col >= n)
        return;
    for (long long row = (long long)blockIdx.y * TRANSPOSE_ROWS + threadIdx.y; row < m; row += step)
        out[col * m + row] = in[row * n + col];
}

// ---- tiled, tiled_padded, fast's scalar path: one tile body -------------------------

/* blockDim = (TILE, ROWS). PAD = 0: tile[TILE][TILE] (the column read is a
 * TILE-way bank conflict when TILE is a multiple of 32); PAD = 1: stride
 * TILE + 1, conflict-free. */
template <int TILE, int ROWS, int PAD>
static __global__ void __launch_bounds__(TILE * ROWS)
transpose_tile_kernel(const float *__restrict__ in, float *__restrict__ out, int m, int n)
{
    __shared__ float tile[TILE][TILE + PAD];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const long long col0 = (long long)blockIdx.x * TILE;
    const long long step = (long long)gridDim.y * TILE;
    for (long long row0 = (long long)blockIdx.y * TILE; row0 < m; row0 += step) {
        /* rows row0 + ty + j of the input, column col0 + tx: coalesced */
        const long long c = col0 + tx;
#pragma unroll
        for (int j = 0; j < TILE; j += ROWS) {
            const long long r = row0 + ty + j;
            if (r < m && c < n)
                tile[ty + j][tx] = in[r * n + c];
        }
        __syncthreads();
        /* output row col0 + ty + j (an input column), output column row0 + tx */
        const long long oc = row0 + tx;
#pragma unroll
        for (int j = 0; j < TILE; j += ROWS) {
            const long long orow = col0 + ty + j;
            if (orow < n && oc < m)
                out[orow * m + oc] = tile[tx][ty + j];
        }
        __syncthreads(); /* the tile is refilled by the next row tile */
    }
}

// ---- fast: 64 x 64 tile, float4 in and out --------------------------------------------

static __global__ void __launch_bounds__(TRANSPOSE_FAST_THREADS, TRANSPOSE_FAST_MIN_BLOCKS)
transpose_fast_vec4_kernel(const float *__restrict__ in, float *__restrict__ out, int m, int n)
{
    __shared__ float tile[TRANSPOSE_FAST_TILE][TRANSPOSE_FAST_TILE + 1];
    const int lane = threadIdx.x & 31;
    const int warp = threadIdx.x >> 5;
    /* Unit u = warp + 8 k (k = 0..3) covers tile rows 4 (u / 2) .. + 3 and tile
     * columns 32 (u % 2) .. + 31; lane l takes row l / 8 of it and the float4
     * at column 4 (l % 8). So a thread's rows are a + 16 k, its column b. */
    const int a = 4 * (warp >> 1) + (lane >> 3); /* 0..15 */
    const int b = 32 * (warp & 1) + 4 * (lane & 7); /* 0..60, a multiple of 4 */
    const long long col0 = (long long)blockIdx.x * TRANSPOSE_FAST_TILE;
    const long long step = (long long)gridDim.y * TRANSPOSE_FAST_TILE;

    for (long long row0 = (long long)blockIdx.y * TRANSPOSE_FAST_TILE; row0 < m; row0 += step) {
        /* input rows row0 + a + 16 k, columns col0 + b .. + 3 (n % 4 == 0: in
         * range as a whole or not at all) */
        const float *src = in + (row0 + a) * n + col0 + b;
        const int col_ok = col0 + b < n;
        float4 v[4];
#pragma unroll
        for (int k = 0; k < 4; k++) {
            v[k] = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
            if (col_ok && row0 + a + 16 * k < m)
                v[k] = __ldg((const float4 *)(src + (long long)16 * k * n));
        }
#pragma unroll
        for (int k = 0; k < 4; k++) {
            tile[a + 16 * k][b + 0] = v[k].x;
            tile[a + 16 * k][b + 1] = v[k].y;
            tile[a + 16 * k][b + 2] = v[k].z;
            tile[a + 16 * k][b + 3] = v[k].w;
        }
        __syncthreads();
        /* output rows col0 + a + 16 k (tile column a + 16 k), output columns
         * row0 + b .. + 3 (tile rows b .. b + 3; m % 4 == 0: all in range or none) */
        float *dst = out + (col0 + a) * m + row0 + b;
        const int ocol_ok = row0 + b < m;
#pragma unroll
        for (int k = 0; k < 4; k++) {
            const int c = a + 16 * k;
            if (ocol_ok && col0 + c < n)
                *(float4 *)(dst + (long long)16 * k * m) =
                    make_float4(tile[b][c], tile[b + 1][c], tile[b + 2][c], tile[b + 3][c]);
        }
        __syncthreads(); /* the tile is refilled by the next row tile */
    }
}

// ---- launchers -------------------------------------------------------------------

static int transpose_check_args(const float *in, const float *out, int m, int n)
{
    if (m < 1 || n < 1 || in == NULL || out == NULL || in == out)
        return (int)cudaErrorInvalidValue;
    if (((uintptr_t)in & 3u) != 0 || ((uintptr_t)out & 3u) != 0)
        return (int)cudaErrorInvalidValue;
    return 0;
}

/* x: column tiles (n / tile_cols, at most 2^26 + 1 < 2^31); y: row tiles
 * (m / tile_rows), capped at the hardware limit, the kernels loop over the rest. */
static dim3 transpose_grid(int m, int n, int tile_rows, int tile_cols)
{
    long long gx = ((long long)n + tile_cols - 1) / tile_cols;
    long long gy = ((long long)m + tile_rows - 1) / tile_rows;
    if (gy > TRANSPOSE_GRID_Y_MAX)
        gy = TRANSPOSE_GRID_Y_MAX;
    return dim3((unsigned int)gx, (unsigned int)gy);
}

extern "C" int transpose_naive(const float *in, float *out, int m, int n, cudaStream_t stream)
{
    int err = transpose_check_args(in, out, m, n);
    if (err != 0)
        return err;
    transpose_naive_kernel<<<transpose_grid(m, n, TRANSPOSE_ROWS, TRANSPOSE_TILE),
                             dim3(TRANSPOSE_TILE, TRANSPOSE_ROWS), 0, stream>>>(in, out, m, n);
    return (int)cudaGetLastError();
}

extern "C" int transpose_tiled(const float *in, float *out, int m, int n, cudaStream_t stream)
{
    int err = transpose_check_args(in, out, m, n);
    if (err != 0)
        return err;
    transpose_tile_kernel<TRANSPOSE_TILE, TRANSPOSE_ROWS, 0>
        <<<transpose_grid(m, n, TRANSPOSE_TILE, TRANSPOSE_TILE), dim3(TRANSPOSE_TILE, TRANSPOSE_ROWS), 0,
           stream>>>(in, out, m, n);
    return (int)cudaGetLastError();
}

extern "C" int transpose_tiled_padded(const float *in, float *out, int m, int n, cudaStream_t stream)
{
    int err = transpose_check_args(in, out, m, n);
    if (err != 0)
        return err;
    transpose_tile_kernel<TRANSPOSE_TILE, TRANSPOSE_ROWS, 1>
        <<<transpose_grid(m, n, TRANSPOSE_TILE, TRANSPOSE_TILE), dim3(TRANSPOSE_TILE, TRANSPOSE_ROWS), 0,
           stream>>>(in, out, m, n);
    return (int)cudaGetLastError();
}

/* Asks for the largest shared-memory carveout for the vector kernel, once per
 * device: 8 resident blocks need 8 x 16.25 KiB, more than a default split may
 * leave to shared memory (a hint to the driver; the kernel runs either way). */
static int transpose_fast_prepare(void)
{
    static int done[TRANSPOSE_MAX_DEVICES];
    int dev = 0;
    cudaError_t err = cudaGetDevice(&dev);
    if (err != cudaSuccess)
        return (int)err;
    if (dev >= 0 && dev < TRANSPOSE_MAX_DEVICES && done[dev])
        return 0;
    err = cudaFuncSetAttribute((const void *)transpose_fast_vec4_kernel,
                               cudaFuncAttributePreferredSharedMemoryCarveout, cudaSharedmemCarveoutMaxShared);
    if (err != cudaSuccess)
        return (int)err;
    if (dev >= 0 && dev < TRANSPOSE_MAX_DEVICES)
        done[dev] = 1;
    return 0;
}

extern "C" int transpose_fast(const float *in, float *out, int m, int n, cudaStream_t stream)
{
    int err = transpose_check_args(in, out, m, n);
    if (err != 0)
        return err;
    const dim3 grid = transpose_grid(m, n, TRANSPOSE_FAST_TILE, TRANSPOSE_FAST_TILE);
    const int vec = m % 4 == 0 && n % 4 == 0 && ((uintptr_t)in & 15u) == 0 && ((uintptr_t)out & 15u) == 0;
    if (vec) {
        err = transpose_fast_prepare();
        if (err != 0)
            return err;
        kernel_ran_note("transpose_fast_vec4_64x64", NULL);
        transpose_fast_vec4_kernel<<<grid, TRANSPOSE_FAST_THREADS, 0, stream>>>(in, out, m, n);
    } else {
        kernel_ran_note("transpose_fast_scalar_64x64",
                        m % 4 != 0 || n % 4 != 0 ? "m or n not a multiple of 4" : "pointer not 16-byte aligned");
        transpose_tile_kernel<TRANSPOSE_FAST_TILE, TRANSPOSE_FAST_ROWS, 1>
            <<<grid, dim3(TRANSPOSE_FAST_TILE, TRANSPOSE_FAST_ROWS), 0, stream>>>(in, out, m, n);
    }
    return (int)cudaGetLastError();
}
