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
 *   fast          Vector path (m, n multiples of 4, both pointers 16-byte
 *                 aligned): one configuration of the template in
 *                 transpose_fast.cuh, named by TRANSPOSE_FAST_PICK below
 *                 (tests/probes/transpose_probe.cu times every candidate
 *                 against cublasSgeam; change the pick after measuring). The
 *                 pick, b4: 64 x 64 tiles moved in 4x4 blocks, four 16-byte
 *                 loads of input rows a thread, the block transposed in
 *                 registers, written as four 16-byte shared stores into the
 *                 tile held in output order (XOR-swizzled 16-byte chunks:
 *                 no padding, no bank conflicts), read back as 16-byte
 *                 chunks and stored as 16-byte pieces of output rows. The
 *                 template's other kernel (tile[TR][TC + 1], four 4-byte
 *                 shared accesses each way per float4) was limited by the
 *                 shared-memory instruction queue (MIO throttle, Nsight
 *                 Compute at 8192^2). transpose_fast.cuh's header says each
 *                 parameter and its limits.
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
 *     scalar path and says so through kernel_ran_note. The vector path walks
 *     a 1-D list of tiles with 64-bit ids (no grid.y cap to mind).
 *   - in and out must not overlap; every launcher runs only on `stream`.
 *
 * Run just these variants:
 *   ./compare --variants naive,tiled,tiled_padded,fast --ops transpose
 */
#include <stdint.h>
#include <cuda_runtime.h>

#include "kernel_ran.h"
#include "policy.h"
#include "transpose.h"
#include "transpose_fast.cuh"

/* fast's vector path: one name of TRANSPOSE_FAST_CANDIDATES (transpose_fast.cuh).
 * b4 (64 x 64 in 4x4 register blocks, row-major, __ldg, one block a tile): the
 * fastest in the probe on the H200 at 8192^2 and 4096^2
 * (docs/tuning/transpose.md), as fast as a plain float4 copy kernel of
 * the same bytes there; no grouping, diagonal order, cache hint, tile shape or
 * persistent grid beat its base shape. The device-to-device cudaMemcpy beside
 * it in the probe is faster still, but it runs on a copy engine (Nsight
 * Compute lists no kernel for it); the copies
 * the SMs can issue, float4 loads and stores or TMA bulk copies, stop short of
 * it too, so that is not a bound a transpose on the SMs can reach. */
#define TRANSPOSE_FAST_PICK b4

// ---- tuning constants -------------------------------------------------------

#define TRANSPOSE_TILE 32          /* naive, tiled, tiled_padded: 32 x 32 tiles */
#define TRANSPOSE_ROWS 8           /* ... with 32 x 8 threads, 4 elements a thread */
#define TRANSPOSE_FAST_TILE 64     /* fast's scalar path: 64 x 64 tiles ... */
#define TRANSPOSE_FAST_ROWS 4      /* ... with 64 x 4 threads, 16 elements a thread */
#define TRANSPOSE_GRID_Y_MAX 65535 /* hardware limit of gridDim.y */

static_assert(TRANSPOSE_TILE % TRANSPOSE_ROWS == 0, "each thread takes TILE / ROWS whole rows of a tile");
static_assert(TRANSPOSE_FAST_TILE % TRANSPOSE_FAST_ROWS == 0, "each thread takes TILE / ROWS whole rows of a tile");

/* TRANSPOSE_FAST_PICK's parameter list and name (two steps, so that the pick
 * is expanded before it is pasted or stringized) */
#define TRANSPOSE_FAST_CFG_OF2(NAME) TRANSPOSE_FAST_CFG_##NAME
#define TRANSPOSE_FAST_CFG_OF(NAME) TRANSPOSE_FAST_CFG_OF2(NAME)
#define TRANSPOSE_FAST_STR2(NAME) #NAME
#define TRANSPOSE_FAST_STR(NAME) TRANSPOSE_FAST_STR2(NAME)

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

/* fast's vector path per architecture (kernels/common/policy.h): the
 * kernel and its name. Every entry holds TRANSPOSE_FAST_PICK for now: the
 * sm_90 pick, untuned elsewhere; its 64 x 64 tile (static shared memory,
 * under 48 KiB) fits every GPU since Ampere, so it is also the generic one. */
typedef struct {
    int (*vec)(const float *, float *, int, int, cudaStream_t);
    const char *vec_name; /* a static string */
} transpose_policy;
#define TRANSPOSE_FAST_POLICY_PICK                                                                                     {transpose_fast_launch<TRANSPOSE_FAST_CFG_OF(TRANSPOSE_FAST_PICK)>,                                                "transpose_fast_vec4_" TRANSPOSE_FAST_STR(TRANSPOSE_FAST_PICK)}
static const transpose_policy transpose_policies[POLICY_SLOTS] = {
    TRANSPOSE_FAST_POLICY_PICK, /* sm_90 */
    TRANSPOSE_FAST_POLICY_PICK, /* sm_80 (untuned) */
    TRANSPOSE_FAST_POLICY_PICK, /* sm_86/89 (untuned) */
    TRANSPOSE_FAST_POLICY_PICK, /* generic */
};

extern "C" int transpose_fast(const float *in, float *out, int m, int n, cudaStream_t stream)
{
    int err = transpose_check_args(in, out, m, n);
    if (err != 0)
        return err;
    const int vec = m % 4 == 0 && n % 4 == 0 && ((uintptr_t)in & 15u) == 0 && ((uintptr_t)out & 15u) == 0;
    if (vec) {
        const transpose_policy *p = &transpose_policies[policy_slot_current()];
        kernel_ran_note(p->vec_name, NULL);
        return p->vec(in, out, m, n, stream);
    }
    kernel_ran_note("transpose_fast_scalar_64x64",
                    m % 4 != 0 || n % 4 != 0 ? "m or n not a multiple of 4" : "pointer not 16-byte aligned");
    transpose_tile_kernel<TRANSPOSE_FAST_TILE, TRANSPOSE_FAST_ROWS, 1>
        <<<transpose_grid(m, n, TRANSPOSE_FAST_TILE, TRANSPOSE_FAST_TILE), dim3(TRANSPOSE_FAST_TILE, TRANSPOSE_FAST_ROWS),
           0, stream>>>(in, out, m, n);
    return (int)cudaGetLastError();
}
