/* kernels/sort_radix.cu: hand-written LSD radix sort of 32-bit keys (uint32, float).
 *
 * Idea: 4 passes of 8-bit digits, least significant first. Each pass is a
 * stable counting sort, which is what makes LSD correct: keys with equal digits
 * keep the order the previous pass gave them. A pass is three kernels over
 * tiles of SORT_TILE = 256 threads x 16 keys = 4096 consecutive keys:
 *   (a) upsweep: each block counts its tile's digit histogram in shared memory
 *       (one sub-histogram per warp, so atomics only collide inside a warp) and
 *       writes the 256 counts digit-major: counts[digit * tiles + tile];
 *   (b) scan: one block per digit row turns that row into an exclusive prefix
 *       over tiles, in place, and writes the row total to totals[digit];
 *   (c) downsweep: each block re-reads its tile and ranks every key stably in
 *       it: warp w owns tile keys [512 w, 512 w + 512) and walks them 32 at a
 *       time in index order; __match_any_sync finds the lanes holding the same
 *       digit, __popc of those below a lane gives its rank in the round, and a
 *       per-warp shared counter per digit carries the rank across rounds. A
 *       prefix over warps (per digit) and over digits (one block scan) gives
 *       each key its position in the tile sorted by digit; keys are placed
 *       there in shared memory and then written out in tile order, so that
 *       consecutive threads write mostly consecutive addresses:
 *           out[digit start + counts scan[digit][tile] + rank in tile's digit].
 *       Order is (tile, warp, round, lane) = the input order: stable.
 * Buffers ping-pong in -> alt -> out -> alt -> out (alt = scratch), so the last
 * pass lands in `out` and `in` is only read (in == out also works).
 * Floats: the IEEE order-preserving flip (sort_float_to_key) is applied when
 * pass 0 reads and undone when pass 3 writes; no extra pass over memory.
 *
 * Constraints: 1 <= n <= 2^31 - 1 (larger: cudaErrorInvalidValue), any n (the
 * partial last tile is masked: slots past n are neither counted nor written).
 * 32-bit indices are used throughout: with n < 2^31 every index, tile start and
 * count fits. Scratch: sort_radix_scratch_bytes(n) = n keys (alt buffer) +
 * 256 x tiles counts + 256 totals, each 256-byte aligned (~4.25 bytes a key).
 * No alignment is assumed of `in`/`out` beyond 4 bytes (scalar loads/stores).
 * Not done: skipping a pass whose digit is the same for every key (would need
 * the histogram on the host or a device-side copy, and breaks the fixed
 * ping-pong parity).
 *
 * Why it is slower than a single-pass sort (sort_onesweep.cu): a pass is
 * three launches, and the upsweep and the downsweep each read every key, so a
 * pass moves about 3n words (keys read twice, written once) where onesweep
 * moves 2n; the scan is a launch of its own between them (a grid-wide
 * barrier: no tile can scatter until every tile has been counted), where
 * onesweep's decoupled look-back lets tile t scatter as soon as the tiles
 * before it have published their counts.
 * Run just this one: ./compare --variants radix   (op sort, u32 and f32) */
#include "sort.h"
#include "sort_common.cuh"

#include <cuda_runtime.h>
#include <stdint.h>

#define SORT_RADIX_BITS   8
#define SORT_RADIX        256                    /* digits per pass */
#define SORT_PASSES       4                      /* 32 / SORT_RADIX_BITS */
#define SORT_THREADS      256                    /* threads per block, all kernels */
#define SORT_WARPS        (SORT_THREADS / 32)
#define SORT_KEYS_PER_THREAD 16
#define SORT_TILE         (SORT_THREADS * SORT_KEYS_PER_THREAD)   /* 4096 keys */
#define SORT_WARP_KEYS    (SORT_TILE / SORT_WARPS)                /* 512 keys a warp */
#define SORT_SCAN_ITEMS   4                      /* counts per thread per scan step */
#define SORT_N_MAX        0x7FFFFFFFLL
/* downsweep blocks an SM must hold: caps it at 64 registers (65536 / (4 x 256));
 * 4 x 25.7 KiB of shared memory fits too. */
#define SORT_DOWNSWEEP_MIN_BLOCKS 4

static_assert(SORT_RADIX == 1 << SORT_RADIX_BITS, "radix = 2^bits");
static_assert(SORT_PASSES * SORT_RADIX_BITS == 32, "passes cover the 32-bit key");
static_assert(SORT_PASSES % 2 == 0, "even pass count: ping-pong ends in out");
static_assert(SORT_RADIX == SORT_THREADS,
              "one thread per digit in the per-digit steps (histogram sums, scans)");
static_assert(SORT_THREADS % 32 == 0 && SORT_WARPS <= 32, "whole warps; warp totals scanned by one loop");
static_assert(SORT_WARP_KEYS == SORT_KEYS_PER_THREAD * 32,
              "a warp's keys are its 16 rounds of 32 consecutive keys");
static_assert(SORT_WARP_KEYS <= 0xFFFF && SORT_KEYS_PER_THREAD % 2 == 0,
              "downsweep packs two in-warp ranks per register, 16 bits each");

// ---- (a) upsweep: per-tile digit histogram -------------------------------------------

static __global__ void __launch_bounds__(SORT_THREADS)
sort_radix_upsweep(const uint32_t *__restrict__ src, uint32_t n, int shift, int flip_in,
                   uint32_t *__restrict__ counts, uint32_t tiles)
{
    __shared__ uint32_t s_hist[SORT_WARPS][SORT_RADIX];
    const uint32_t tid = threadIdx.x;
    const uint32_t warp = tid / 32;

    for (int w = 0; w < SORT_WARPS; w++)
        s_hist[w][tid] = 0;
    __syncthreads();

    const uint32_t tile_start = blockIdx.x * (uint32_t)SORT_TILE;
#pragma unroll
    for (int j = 0; j < SORT_KEYS_PER_THREAD; j++) {
        uint32_t idx = tile_start + (uint32_t)j * SORT_THREADS + tid;
        if (idx < n) {
            uint32_t k = src[idx];
            if (flip_in)
                k = sort_float_to_key(k);
            atomicAdd(&s_hist[warp][(k >> shift) & (SORT_RADIX - 1)], 1u);
        }
    }
    __syncthreads();

    uint32_t sum = 0;
    for (int w = 0; w < SORT_WARPS; w++)
        sum += s_hist[w][tid];
    counts[(size_t)tid * tiles + blockIdx.x] = sum;
}

// ---- (b) scan: exclusive prefix over tiles, one block per digit row ----------------

static __global__ void __launch_bounds__(SORT_THREADS)
sort_radix_scan(uint32_t *__restrict__ counts, uint32_t tiles, uint32_t *__restrict__ totals)
{
    __shared__ uint32_t s_warp_sum[SORT_WARPS];
    const uint32_t tid = threadIdx.x;
    const uint32_t lane = tid % 32;
    const uint32_t warp = tid / 32;
    uint32_t *row = counts + (size_t)blockIdx.x * tiles;
    uint32_t carry = 0;   /* sum of the row before this step, same in every thread */

    for (uint32_t base = 0; base < tiles; base += SORT_THREADS * SORT_SCAN_ITEMS) {
        uint32_t v[SORT_SCAN_ITEMS];
        uint32_t first = base + tid * SORT_SCAN_ITEMS;
        uint32_t s = 0;
#pragma unroll
        for (int i = 0; i < SORT_SCAN_ITEMS; i++) {
            v[i] = first + i < tiles ? row[first + i] : 0u;
            s += v[i];
        }
        uint32_t incl = s;   /* inclusive scan of s over the warp */
#pragma unroll
        for (int off = 1; off < 32; off <<= 1) {
            uint32_t t = __shfl_up_sync(0xFFFFFFFFu, incl, off);
            if (lane >= (uint32_t)off)
                incl += t;
        }
        if (lane == 31)
            s_warp_sum[warp] = incl;
        __syncthreads();
        uint32_t before = 0, step_total = 0;
        for (uint32_t w = 0; w < SORT_WARPS; w++) {
            uint32_t ws = s_warp_sum[w];
            before += w < warp ? ws : 0u;
            step_total += ws;
        }
        uint32_t run = carry + before + incl - s;
#pragma unroll
        for (int i = 0; i < SORT_SCAN_ITEMS; i++) {
            if (first + i < tiles)
                row[first + i] = run;
            run += v[i];
        }
        carry += step_total;
        __syncthreads();   /* s_warp_sum is rewritten by the next step */
    }
    if (tid == 0)
        totals[blockIdx.x] = carry;
}

// ---- (c) downsweep: stable rank in the tile, scatter --------------------------------

/* Exclusive scan of one 64-bit value per thread over the block. Contains one
 * __syncthreads; the caller must not reuse s_warp_sum without another. */
static __device__ __forceinline__ unsigned long long
sort_block_exclusive_scan_u64(unsigned long long v, unsigned long long *s_warp_sum)
{
    const uint32_t lane = threadIdx.x % 32;
    const uint32_t warp = threadIdx.x / 32;
    unsigned long long incl = v;
#pragma unroll
    for (int off = 1; off < 32; off <<= 1) {
        unsigned long long t = __shfl_up_sync(0xFFFFFFFFu, incl, off);
        if (lane >= (uint32_t)off)
            incl += t;
    }
    if (lane == 31)
        s_warp_sum[warp] = incl;
    __syncthreads();
    unsigned long long before = 0;
    for (uint32_t w = 0; w < warp; w++)
        before += s_warp_sum[w];
    return before + incl - v;
}

static __global__ void __launch_bounds__(SORT_THREADS, SORT_DOWNSWEEP_MIN_BLOCKS)
sort_radix_downsweep(const uint32_t *__restrict__ src, uint32_t *__restrict__ dst, uint32_t n,
                     int shift, int flip_in, int flip_out,
                     const uint32_t *__restrict__ counts, uint32_t tiles,
                     const uint32_t *__restrict__ totals)
{
    /* s_pos[w][d]: first counts keys of digit d in warp w's part of the tile;
     * after the prefix step, the tile-local position of that part's first
     * key of digit d. */
    __shared__ uint32_t s_pos[SORT_WARPS][SORT_RADIX];
    __shared__ uint32_t s_keys[SORT_TILE];         /* the tile sorted by digit */
    __shared__ uint32_t s_base[SORT_RADIX];        /* dst index = s_base[d] + tile position */
    __shared__ unsigned long long s_warp_sum[SORT_WARPS];

    const uint32_t tid = threadIdx.x;
    const uint32_t lane = tid % 32;
    const uint32_t warp = tid / 32;
    const uint32_t lanes_below = (1u << lane) - 1u;
    const uint32_t tile_start = blockIdx.x * (uint32_t)SORT_TILE;
    const uint32_t warp_start = tile_start + warp * (uint32_t)SORT_WARP_KEYS;

    for (int w = 0; w < SORT_WARPS; w++)
        s_pos[w][tid] = 0;
    __syncthreads();

    /* Rank: round j covers keys warp_start + 32 j + lane. A slot past n gets
     * digit SORT_RADIX: it matches only other such slots and counts nowhere. */
    uint32_t key[SORT_KEYS_PER_THREAD];
    uint32_t rank2[SORT_KEYS_PER_THREAD / 2];   /* two ranks (< 512) per register, 16 bits each */
#pragma unroll
    for (int j = 0; j < SORT_KEYS_PER_THREAD; j++) {
        uint32_t idx = warp_start + (uint32_t)j * 32 + lane;
        uint32_t k = 0;
        if (idx < n) {
            k = src[idx];
            if (flip_in)
                k = sort_float_to_key(k);
        }
        key[j] = k;
    }
#pragma unroll
    for (int j = 0; j < SORT_KEYS_PER_THREAD; j++) {
        uint32_t idx = warp_start + (uint32_t)j * 32 + lane;
        uint32_t d = idx < n ? (key[j] >> shift) & (SORT_RADIX - 1) : (uint32_t)SORT_RADIX;
        uint32_t peers = __match_any_sync(0xFFFFFFFFu, d);
        uint32_t before = d < SORT_RADIX ? s_pos[warp][d] : 0u;
        __syncwarp();   /* every lane has read its count before the leader bumps it */
        if (d < SORT_RADIX && (peers & lanes_below) == 0)
            s_pos[warp][d] = before + __popc(peers);
        __syncwarp();   /* bump visible before the next round reads */
        uint32_t r = before + __popc(peers & lanes_below);
        if (j % 2 == 0)
            rank2[j / 2] = r;
        else
            rank2[j / 2] |= r << 16;
    }
    __syncthreads();

    /* One thread per digit d = tid: prefix over warps, then one block scan
     * gives both the tile-local start of d (low half: tile counts, sum <= 4096)
     * and the global start of d (high half: pass totals, sum = n < 2^32). */
    {
        const uint32_t d = tid;
        uint32_t tile_count = 0;
        for (int w = 0; w < SORT_WARPS; w++) {
            uint32_t c = s_pos[w][d];
            s_pos[w][d] = tile_count;
            tile_count += c;
        }
        unsigned long long packed = ((unsigned long long)totals[d] << 32) | tile_count;
        unsigned long long excl = sort_block_exclusive_scan_u64(packed, s_warp_sum);
        uint32_t digit_start = (uint32_t)(excl >> 32);
        uint32_t local_start = (uint32_t)excl;
        for (int w = 0; w < SORT_WARPS; w++)
            s_pos[w][d] += local_start;
        /* wraps modulo 2^32 when local_start is larger; the sum with a tile
         * position >= local_start is exact. */
        s_base[d] = digit_start + counts[(size_t)d * tiles + blockIdx.x] - local_start;
    }
    __syncthreads();

#pragma unroll
    for (int j = 0; j < SORT_KEYS_PER_THREAD; j++) {
        uint32_t idx = warp_start + (uint32_t)j * 32 + lane;
        if (idx < n) {
            uint32_t d = (key[j] >> shift) & (SORT_RADIX - 1);
            uint32_t r = (rank2[j / 2] >> (16 * (j % 2))) & 0xFFFFu;
            s_keys[s_pos[warp][d] + r] = key[j];
        }
    }
    __syncthreads();

    /* Positions [0, tile_n) of s_keys are all filled: write them in order. */
    const uint32_t tile_n = n - tile_start < (uint32_t)SORT_TILE ? n - tile_start : (uint32_t)SORT_TILE;
#pragma unroll
    for (int j = 0; j < SORT_KEYS_PER_THREAD; j++) {
        uint32_t p = (uint32_t)j * SORT_THREADS + tid;
        if (p < tile_n) {
            uint32_t k = s_keys[p];
            uint32_t d = (k >> shift) & (SORT_RADIX - 1);
            dst[s_base[d] + p] = flip_out ? sort_key_to_float(k) : k;
        }
    }
}

// ---- launchers -----------------------------------------------------------------

static size_t sort_align256(size_t bytes)
{
    return (bytes + 255) & ~(size_t)255;
}

static uint32_t sort_tiles(long long n)
{
    return (uint32_t)((n + SORT_TILE - 1) / SORT_TILE);
}

extern "C" size_t sort_radix_scratch_bytes(long long n)
{
    if (n < 1 || n > SORT_N_MAX)
        return 0;
    return sort_align256((size_t)n * sizeof(uint32_t)) +
           sort_align256((size_t)SORT_RADIX * sort_tiles(n) * sizeof(uint32_t)) +
           sort_align256((size_t)SORT_RADIX * sizeof(uint32_t));
}

static int sort_radix_run(const uint32_t *in, uint32_t *out, long long n, int is_float,
                          void *scratch, size_t scratch_bytes, cudaStream_t stream)
{
    if (n < 1 || n > SORT_N_MAX || !in || !out || !scratch ||
        scratch_bytes < sort_radix_scratch_bytes(n))
        return (int)cudaErrorInvalidValue;

    const uint32_t n32 = (uint32_t)n;
    const uint32_t tiles = sort_tiles(n);
    char *p = (char *)scratch;
    uint32_t *alt = (uint32_t *)p;
    p += sort_align256((size_t)n * sizeof(uint32_t));
    uint32_t *counts = (uint32_t *)p;
    p += sort_align256((size_t)SORT_RADIX * tiles * sizeof(uint32_t));
    uint32_t *totals = (uint32_t *)p;

    /* pass 0: in -> alt, 1: alt -> out, 2: out -> alt, 3: alt -> out */
    for (int pass = 0; pass < SORT_PASSES; pass++) {
        const uint32_t *src = pass == 0 ? in : (pass % 2 ? alt : out);
        uint32_t *dst = pass % 2 ? out : alt;
        const int shift = pass * SORT_RADIX_BITS;
        const int flip_in = is_float && pass == 0;
        const int flip_out = is_float && pass == SORT_PASSES - 1;

        sort_radix_upsweep<<<tiles, SORT_THREADS, 0, stream>>>(src, n32, shift, flip_in, counts, tiles);
        cudaError_t e = cudaGetLastError();
        if (e != cudaSuccess)
            return (int)e;
        sort_radix_scan<<<SORT_RADIX, SORT_THREADS, 0, stream>>>(counts, tiles, totals);
        e = cudaGetLastError();
        if (e != cudaSuccess)
            return (int)e;
        sort_radix_downsweep<<<tiles, SORT_THREADS, 0, stream>>>(src, dst, n32, shift, flip_in, flip_out,
                                                                counts, tiles, totals);
        e = cudaGetLastError();
        if (e != cudaSuccess)
            return (int)e;
    }
    return 0;
}

extern "C" int sort_radix_u32(const uint32_t *in, uint32_t *out, long long n,
                              void *scratch, size_t scratch_bytes, cudaStream_t stream)
{
    return sort_radix_run(in, out, n, 0, scratch, scratch_bytes, stream);
}

extern "C" int sort_radix_f32(const float *in, float *out, long long n,
                              void *scratch, size_t scratch_bytes, cudaStream_t stream)
{
    return sort_radix_run((const uint32_t *)in, (uint32_t *)out, n, 1, scratch, scratch_bytes, stream);
}
