/* kernels/scan_decoupled.cuh: the single-pass decoupled look-back inclusive
 * scan (Merrill & Garland) as one kernel template over its tuning
 * parameters, shared by kernels/scan.cu (the `decoupled` variant) and
 * tests/probes/scan_probe.cu (which times candidate parameter sets beside cub).
 *
 * Idea: a block takes tile ids from an atomic counter, NOT blockIdx (a block
 * only ever waits on tiles already handed out to running blocks, so no
 * co-residency is assumed and it cannot hang). Per tile: each warp loads its
 * part of the tile striped (coalesced, VEC elements a load), transposes it
 * through its own part of shared memory to ITEMS consecutive elements a
 * thread, scans them sequentially, then the thread totals by warp shuffles and
 * the warp totals through shared memory; the tile-local inclusive sums go
 * back to the warp's shared part in striped order, so no element waits in a
 * register during the look-back. The tile publishes its total (flag A); warp
 * 0 looks back 32 predecessor tiles at a time: it waits until none of them
 * is unpublished, adds the A totals up to the nearest tile that has published
 * its inclusive prefix (flag P), and stops there, or moves 32 tiles further
 * back. The tile then publishes its own P, and every thread adds the tile's
 * prefix to its striped elements and stores them, coalesced.
 *
 * Tuning parameters (template arguments, in this order after the type):
 *   THREADS   threads a block (whole warps).
 *   ITEMS     elements a thread; TILE = THREADS x ITEMS >= 1024.
 *   VEC       elements a global load/store (1, 2 or 4; ITEMS % VEC == 0). The
 *             launcher uses VEC > 1 only when in and out are 4 VEC-byte aligned.
 *   MINB      __launch_bounds__ minimum blocks an SM (caps registers).
 *   HINT      0: loads through the read-only path (__ldg), plain stores;
 *             1: streaming (evict-first) loads and stores (__ldcs, __stcs).
 *   LB_FIRST  ns to sleep after publishing A before the first look (0: none);
 *   LB_POLL, LB_MAX: ns to sleep between looks, doubling from LB_POLL up to
 *             LB_MAX.
 * Each named pick below is such a list; kernels/scan.cu launches
 * SCAN_DL_PICK_I32 / SCAN_DL_PICK_F32 when both pointers allow their VEC,
 * SCAN_DL_PICK_SCALAR (VEC = 1) otherwise.
 *
 * Constraints (and why):
 *   - status words: one 64-bit word a tile, {tag | flag : 32, value bits : 32},
 *     written with a single 64-bit store, so a reader that sees a flag sees
 *     the value stored with it, no fence needed. The tag (low two bits clear,
 *     chosen by the caller, new for every call) makes words of an earlier call
 *     read as "not ready": the array is never cleared. Only the tile counter
 *     is reset, by a 4-byte cudaMemsetAsync on the stream before the kernel.
 *   - shared-memory transpose: in units of VEC elements ("chunks"), 32 / VEC
 *     chunks a bank row; chunk c is stored at c ^ ((c >> s) & (32 / VEC - 1)),
 *     s = the number of trailing zero bits of ITEMS / VEC (at most
 *     log2(32 / VEC)): both the striped chunk accesses (32 j + lane) and the
 *     blocked ones (lane x ITEMS / VEC + q) then hit distinct banks in every
 *     phase, for any ITEMS / VEC that is not a multiple of 2 x 32 / VEC.
 *     With ITEMS / VEC odd, s = 0 (no swizzle): every shared address is then
 *     one register plus a constant; a swizzle costs a register an address.
 *   - in == out is allowed: every element is read once, by the block of its
 *     tile, before that block writes it (a barrier lies between).
 *   - 64-bit element indices; tile ids are 32-bit: TILE >= 1024 keeps them
 *     below 2^31 for any n scan.h accepts.
 *   - float: element = tile prefix + ((warp prefix + thread prefix) + the
 *     thread's sequential sum up to it); thread totals by a shuffle tree, warp
 *     totals in order, tile prefixes in look-back order.
 *   - element addresses are one register plus constant offsets
 *     (scan_dl_opaque, bounds as offset < limit): otherwise the compiler
 *     keeps a 64-bit address or an index a load alive and the registers, not
 *     the tile, decide the blocks an SM.
 *   - scratch: [0, SCAN_DL_HEADER) holds the counter, then 8 bytes a tile
 *     (scan_dl_scratch_bytes). */
#ifndef KERNELS_SCAN_DECOUPLED_CUH
#define KERNELS_SCAN_DECOUPLED_CUH

#include <stdint.h>
#include <cuda_runtime.h>

// ---- the named picks ------------------------------------------------------------------
// THREADS, ITEMS, VEC, MINB, HINT, LB_FIRST, LB_POLL, LB_MAX.
// Change after measuring with tests/probes/scan_probe.cu (its header says how).
// The picks: 16-byte accesses, 28 items, 10 blocks an SM, one tile a block, and
// a 2 us sleep between publishing A and the first look back (then 600 ns polls):
// a tile that looks at once mostly finds its predecessors unpublished and polls
// L2 while they are still loading. In the probe runs on the H200
// (docs/tuning/scan.md) the sleep mattered most, then the tile shape;
// persistent grids (blocks looping over tiles, with or without the next
// tile's loads issued before the look-back) were slower at every size and are
// not kept (the "persist" and "prefetch" rows of the probe log).
#define SCAN_DL_PICK_I32 128, 28, 4, 10, 0, 2000, 600, 600
#define SCAN_DL_PICK_F32 128, 28, 4, 10, 0, 2000, 600, 600
#define SCAN_DL_PICK_SCALAR 128, 23, 1, 1, 0, 0, 32, 512 /* misaligned pointers */

/* THREADS x ITEMS and VEC of a pick (or of any such list) */
#define SCAN_DL_TILE_OF_(threads, items, ...) ((long long)(threads) * (items))
#define SCAN_DL_TILE_OF(pick) SCAN_DL_TILE_OF_(pick)
#define SCAN_DL_VEC_OF_(threads, items, vec, ...) (vec)
#define SCAN_DL_VEC_OF(pick) SCAN_DL_VEC_OF_(pick)

#define SCAN_DL_HEADER 256 /* scratch bytes before the status words */
#define SCAN_DL_FLAG_A 1u  /* tile total published */
#define SCAN_DL_FLAG_P 2u  /* inclusive prefix through the tile published */
#define SCAN_DL_FULL_MASK 0xffffffffu

static_assert(SCAN_DL_HEADER % 8 == 0, "status words are 8-byte aligned");

// ---- element operations (float, int32) ------------------------------------------

static __device__ __forceinline__ float scan_dl_add(float a, float b)
{
    return a + b;
}

static __device__ __forceinline__ int32_t scan_dl_add(int32_t a, int32_t b)
{
    return (int32_t)((uint32_t)a + (uint32_t)b); /* wrap-around: no signed overflow */
}

static __device__ __forceinline__ uint32_t scan_dl_bits(float v)
{
    return __float_as_uint(v);
}

static __device__ __forceinline__ uint32_t scan_dl_bits(int32_t v)
{
    return (uint32_t)v;
}

static __device__ __forceinline__ void scan_dl_unbits(uint32_t b, float *v)
{
    *v = __uint_as_float(b);
}

static __device__ __forceinline__ void scan_dl_unbits(uint32_t b, int32_t *v)
{
    *v = (int32_t)b;
}

// ---- global and shared chunks of VEC words ------------------------------------------

template <int VEC, int HINT>
static __device__ __forceinline__ void scan_dl_load(const uint32_t *p, uint32_t *r)
{
    if constexpr (VEC == 4) {
        const uint4 q = HINT ? __ldcs((const uint4 *)p) : __ldg((const uint4 *)p);
        r[0] = q.x;
        r[1] = q.y;
        r[2] = q.z;
        r[3] = q.w;
    } else if constexpr (VEC == 2) {
        const uint2 q = HINT ? __ldcs((const uint2 *)p) : __ldg((const uint2 *)p);
        r[0] = q.x;
        r[1] = q.y;
    } else {
        r[0] = HINT ? __ldcs(p) : __ldg(p);
    }
}

template <int VEC, int HINT>
static __device__ __forceinline__ void scan_dl_store(uint32_t *p, const uint32_t *r)
{
    if constexpr (VEC == 4) {
        const uint4 q = make_uint4(r[0], r[1], r[2], r[3]);
        if (HINT)
            __stcs((uint4 *)p, q);
        else
            *(uint4 *)p = q;
    } else if constexpr (VEC == 2) {
        const uint2 q = make_uint2(r[0], r[1]);
        if (HINT)
            __stcs((uint2 *)p, q);
        else
            *(uint2 *)p = q;
    } else {
        if (HINT)
            __stcs(p, r[0]);
        else
            *p = r[0];
    }
}

template <int VEC>
static __device__ __forceinline__ void scan_dl_sts(uint32_t *p, const uint32_t *r)
{
    if constexpr (VEC == 4)
        *(uint4 *)p = make_uint4(r[0], r[1], r[2], r[3]);
    else if constexpr (VEC == 2)
        *(uint2 *)p = make_uint2(r[0], r[1]);
    else
        *p = r[0];
}

template <int VEC>
static __device__ __forceinline__ void scan_dl_lds(const uint32_t *p, uint32_t *r)
{
    if constexpr (VEC == 4) {
        const uint4 q = *(const uint4 *)p;
        r[0] = q.x;
        r[1] = q.y;
        r[2] = q.z;
        r[3] = q.w;
    } else if constexpr (VEC == 2) {
        const uint2 q = *(const uint2 *)p;
        r[0] = q.x;
        r[1] = q.y;
    } else {
        r[0] = *p;
    }
}

/* r[k] = bits of (prefix + the T in r[k]), k < VEC */
template <typename T, int VEC>
static __device__ __forceinline__ void scan_dl_add_prefix(T prefix, uint32_t *r)
{
#pragma unroll
    for (int k = 0; k < VEC; k++) {
        T x;
        scan_dl_unbits(r[k], &x);
        r[k] = scan_dl_bits(scan_dl_add(prefix, x));
    }
}

/* trailing zero bits of x > 0, at most cap */
static __host__ __device__ constexpr int scan_dl_tz(int x, int cap)
{
    return (x & 1) || cap == 0 ? 0 : 1 + scan_dl_tz(x >> 1, cap - 1);
}

static __host__ __device__ constexpr int scan_dl_log2(int x)
{
    return x <= 1 ? 0 : 1 + scan_dl_log2(x >> 1);
}

/* shared word offset of chunk c of a warp's part (see the header) */
template <int ITEMS, int VEC>
static __device__ __forceinline__ int scan_dl_slot(int c)
{
    constexpr int ROW = 32 / VEC;
    constexpr int S = scan_dl_tz(ITEMS / VEC, scan_dl_log2(ROW));
    if constexpr (S == 0)
        return c * VEC;
    else
        return (c ^ ((c >> S) & (ROW - 1))) * VEC;
}

/* p, with its origin hidden from the compiler: addresses p + constant then
 * stay one register plus immediate offsets, instead of one 64-bit register
 * pair each, rebuilt from the element index (which costs ~2 registers a load) */
template <typename P>
static __device__ __forceinline__ P *scan_dl_opaque(P *p)
{
    asm("mov.b64 %0, %0;" : "+l"(p));
    return p;
}

/* The raw words of a warp's part of a tile, striped: w[j VEC + k] is
 * element (32 j + lane) VEC + k of the part; past n: 0. */
template <int ITEMS, int VEC, int HINT>
static __device__ __forceinline__ void scan_dl_load_part(const uint32_t *part, long long left, int lane,
                                                         uint32_t *w)
{
    constexpr int R = ITEMS / VEC;
    const uint32_t *p = scan_dl_opaque(part + lane * VEC); /* constant offsets from one address */
    if (left >= 32 * ITEMS) {
#pragma unroll
        for (int j = 0; j < R; j++)
            scan_dl_load<VEC, HINT>(p + 32 * j * VEC, w + j * VEC);
    } else {
        /* elements of this lane's chunks before n: offsets (constants) below
         * lim (the compiler then keeps no per-element index alive) */
        const long long lim = left - lane * VEC;
#pragma unroll
        for (int j = 0; j < R; j++)
#pragma unroll
            for (int k = 0; k < VEC; k++) {
                const int o = 32 * j * VEC + k;
                w[j * VEC + k] = o < lim ? (HINT ? __ldcs(p + o) : __ldg(p + o)) : 0u;
            }
    }
}

// ---- decoupled look-back ------------------------------------------------------------

static __device__ __forceinline__ void scan_dl_publish(unsigned long long *word, uint32_t tag, uint32_t flag,
                                                       uint32_t bits)
{
    *(volatile unsigned long long *)word = ((unsigned long long)(tag | flag) << 32) | bits;
}

/* Warp 0 of tile `tile` (>= 1): the sum of every element before the tile.
 * Lane l looks at tile - 1 - l, then 32 tiles further back per round. A tile
 * before 0 counts as published P with value 0. Returned in every lane. */
template <typename T, int LB_FIRST, int LB_POLL, int LB_MAX>
static __device__ __forceinline__ T scan_dl_look_back(const unsigned long long *status, unsigned int tile,
                                                      uint32_t tag)
{
    const int lane = threadIdx.x & 31;
    long long pred = (long long)tile - 1 - lane;
    T exclusive = (T)0;
    unsigned int delay = LB_POLL;
    if (LB_FIRST > 0)
        __nanosleep(LB_FIRST);
    for (;;) {
        uint32_t flag, bits;
        for (;;) {
            flag = SCAN_DL_FLAG_P;
            bits = 0u;
            if (pred >= 0) {
                const unsigned long long w = *(const volatile unsigned long long *)&status[pred];
                const uint32_t hi = (uint32_t)(w >> 32);
                flag = (hi & ~3u) == tag ? (hi & 3u) : 0u; /* another call's word: not ready */
                bits = (uint32_t)w;
            }
            if (!__any_sync(SCAN_DL_FULL_MASK, flag != SCAN_DL_FLAG_A && flag != SCAN_DL_FLAG_P))
                break;
            __nanosleep(delay);
            if (delay < LB_MAX)
                delay <<= 1;
        }
        /* lanes up to the nearest P (lowest lane) count, farther ones do not */
        const uint32_t p_lanes = __ballot_sync(SCAN_DL_FULL_MASK, flag == SCAN_DL_FLAG_P);
        const int stop = p_lanes != 0 ? __ffs(p_lanes) - 1 : 31;
        T v;
        scan_dl_unbits(bits, &v);
        T part = lane <= stop ? v : (T)0;
#pragma unroll
        for (int off = 16; off > 0; off >>= 1)
            part = scan_dl_add(part, __shfl_xor_sync(SCAN_DL_FULL_MASK, part, off));
        exclusive = scan_dl_add(exclusive, part);
        if (p_lanes != 0)
            return exclusive;
        pred -= 32;
    }
}

// ---- the kernel -----------------------------------------------------------------------

template <typename T, int THREADS, int ITEMS, int VEC, int MINB, int HINT, int LB_FIRST, int LB_POLL,
          int LB_MAX>
static __global__ void __launch_bounds__(THREADS, MINB)
scan_dl_kernel(const T *in, T *out, long long n, unsigned int tiles, unsigned int *tile_counter,
               unsigned long long *status, uint32_t tag)
{
    constexpr int WARPS = THREADS / 32;
    constexpr int TILE = THREADS * ITEMS;
    constexpr int PART = 32 * ITEMS; /* elements of a warp's part of a tile */
    constexpr int R = ITEMS / VEC;   /* chunks a thread */
    static_assert(THREADS % 32 == 0, "whole warps: each transposes its own part of the tile");
    static_assert(VEC == 1 || VEC == 2 || VEC == 4, "loads of 4, 8 or 16 bytes");
    static_assert(ITEMS % VEC == 0, "a thread's items are whole chunks");
    static_assert(R % (2 * (32 / VEC)) != 0, "the shared-memory swizzle is conflict-free only for these");
    static_assert(TILE >= 1024, "tile ids stay below 2^31 for any n scan.h accepts");
    static_assert(sizeof(T) == 4, "4-byte elements: status words carry 32 value bits");

    __shared__ __align__(16) uint32_t s_items[TILE];
    __shared__ T s_warp_total[WARPS];
    __shared__ T s_tile_prefix;
    __shared__ unsigned int s_tile;
    const int tid = threadIdx.x;
    const int lane = tid & 31;
    const int warp = tid >> 5;
    const uint32_t *gin = (const uint32_t *)in;
    uint32_t *gout = (uint32_t *)out;
    uint32_t *s_part = s_items + warp * PART; /* this warp's part */

    /* tile ids in the order blocks ask, not blockIdx: see the header */
    if (tid == 0)
        s_tile = atomicAdd(tile_counter, 1u);
    __syncthreads();
    const unsigned int tile = s_tile;
    uint32_t w[ITEMS]; /* raw words of the tile */
    if (tile < tiles) { /* always, with grid = tiles */
        const long long base = (long long)tile * TILE + warp * PART; /* this warp's part */
        scan_dl_load_part<ITEMS, VEC, HINT>(gin + base, n - base, lane, w);

        /* striped words -> shared -> ITEMS consecutive elements a thread */
#pragma unroll
        for (int j = 0; j < R; j++)
            scan_dl_sts<VEC>(s_part + scan_dl_slot<ITEMS, VEC>(32 * j + lane), w + j * VEC);
        __syncwarp();
        T v[ITEMS];
#pragma unroll
        for (int q = 0; q < R; q++) {
            uint32_t t[VEC];
            scan_dl_lds<VEC>(s_part + scan_dl_slot<ITEMS, VEC>(lane * R + q), t);
#pragma unroll
            for (int k = 0; k < VEC; k++)
                scan_dl_unbits(t[k], &v[q * VEC + k]);
        }

        /* thread, warp and block levels of the tile's own scan */
#pragma unroll
        for (int j = 1; j < ITEMS; j++)
            v[j] = scan_dl_add(v[j - 1], v[j]);
        T incl = v[ITEMS - 1];
#pragma unroll
        for (int off = 1; off < 32; off <<= 1) {
            const T t = __shfl_up_sync(SCAN_DL_FULL_MASK, incl, off);
            if (lane >= off)
                incl = scan_dl_add(t, incl);
        }
        T thread_prefix = __shfl_up_sync(SCAN_DL_FULL_MASK, incl, 1);
        if (lane == 0)
            thread_prefix = (T)0;
        if (lane == 31)
            s_warp_total[warp] = incl;
        __syncthreads();
        T warp_prefix = (T)0, tile_total = (T)0;
#pragma unroll
        for (int k = 0; k < WARPS; k++) {
            const T t = s_warp_total[k];
            if (k < warp)
                warp_prefix = scan_dl_add(warp_prefix, t);
            tile_total = scan_dl_add(tile_total, t);
        }

        /* the tile-local inclusive sums back through the warp's own part to
         * striped order now (its blocked reads above finished before the
         * barrier): only the tile's prefix is left to add after the look-back,
         * and no element stays in registers while warp 0 waits */
        const T local = scan_dl_add(warp_prefix, thread_prefix);
#pragma unroll
        for (int q = 0; q < R; q++) {
            uint32_t t[VEC];
#pragma unroll
            for (int k = 0; k < VEC; k++)
                t[k] = scan_dl_bits(scan_dl_add(local, v[q * VEC + k]));
            scan_dl_sts<VEC>(s_part + scan_dl_slot<ITEMS, VEC>(lane * R + q), t);
        }

        /* publish A, look back, publish P */
        if (warp == 0) {
            T exclusive = (T)0;
            if (tile == 0) {
                if (lane == 0)
                    scan_dl_publish(&status[0], tag, SCAN_DL_FLAG_P, scan_dl_bits(tile_total));
            } else {
                if (lane == 0)
                    scan_dl_publish(&status[tile], tag, SCAN_DL_FLAG_A, scan_dl_bits(tile_total));
                exclusive = scan_dl_look_back<T, LB_FIRST, LB_POLL, LB_MAX>(status, tile, tag);
                if (lane == 0)
                    scan_dl_publish(&status[tile], tag, SCAN_DL_FLAG_P,
                                    scan_dl_bits(scan_dl_add(exclusive, tile_total)));
            }
            if (lane == 0)
                s_tile_prefix = exclusive;
        }
        __syncthreads();
        const T prefix = s_tile_prefix;

        /* + the tile's prefix, striped (the barrier above ordered the warp's
         * blocked writes before these reads), coalesced stores */
        const long long left = n - base;
        uint32_t *p = scan_dl_opaque(gout + base + lane * VEC); /* constant offsets from one address */
        if (left >= PART) {
#pragma unroll
            for (int j = 0; j < R; j++) {
                uint32_t t[VEC];
                scan_dl_lds<VEC>(s_part + scan_dl_slot<ITEMS, VEC>(32 * j + lane), t);
                scan_dl_add_prefix<T, VEC>(prefix, t);
                scan_dl_store<VEC, HINT>(p + 32 * j * VEC, t);
            }
        } else {
            const long long lim = left - lane * VEC; /* as in scan_dl_load_part */
#pragma unroll
            for (int j = 0; j < R; j++) {
                uint32_t t[VEC];
                scan_dl_lds<VEC>(s_part + scan_dl_slot<ITEMS, VEC>(32 * j + lane), t);
                scan_dl_add_prefix<T, VEC>(prefix, t);
#pragma unroll
                for (int k = 0; k < VEC; k++)
                    if (32 * j * VEC + k < lim)
                        scan_dl_store<1, HINT>(p + 32 * j * VEC + k, t + k);
            }
        }
    }
}

// ---- host side ------------------------------------------------------------------------

static inline long long scan_dl_ceil_div(long long a, long long b)
{
    return (a + b - 1) / b;
}

/* Scratch a decoupled scan of n elements with tiles of `tile` elements needs. */
static inline size_t scan_dl_scratch_bytes(long long n, long long tile)
{
    return SCAN_DL_HEADER + 8 * (size_t)scan_dl_ceil_div(n < 1 ? 1 : n, tile);
}

/* One scan with the given parameters: resets the tile counter on the stream,
 * then launches. Arguments already checked by the caller (n >= 1, pointers
 * aligned for VEC, scratch >= scan_dl_scratch_bytes(n, THREADS x ITEMS), tag
 * with its low two bits clear and new for this scratch). */
template <typename T, int THREADS, int ITEMS, int VEC, int MINB, int HINT, int LB_FIRST, int LB_POLL,
          int LB_MAX>
static int scan_dl_run(const T *in, T *out, long long n, void *scratch, uint32_t tag, cudaStream_t stream)
{
    constexpr long long TILE = (long long)THREADS * ITEMS;
    const long long tiles = scan_dl_ceil_div(n, TILE);
    unsigned int *counter = (unsigned int *)scratch;
    unsigned long long *status = (unsigned long long *)((char *)scratch + SCAN_DL_HEADER);
    cudaError_t e = cudaMemsetAsync(counter, 0, sizeof(unsigned int), stream);
    if (e != cudaSuccess)
        return (int)e;
    scan_dl_kernel<T, THREADS, ITEMS, VEC, MINB, HINT, LB_FIRST, LB_POLL, LB_MAX>
        <<<(unsigned int)tiles, THREADS, 0, stream>>>(in, out, n, (unsigned int)tiles, counter, status, tag);
    return (int)cudaGetLastError();
}

#endif
