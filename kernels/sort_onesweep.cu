/* kernels/sort_onesweep.cu: single-pass LSD radix sort of 32-bit keys (uint32,
 * float), after Adinets & Merrill, "Onesweep" (2022), the algorithm behind
 * cub::DeviceRadixSort.
 *
 * Idea: the same 4 stable counting-sort passes of 8-bit digits as
 * sort_radix.cu, but each pass is ONE kernel that reads every key once and
 * writes it once (2n words a pass instead of radix's 3n), and there is no scan
 * launch between counting and scattering:
 *   (a) histogram, once for all passes: one kernel reads the keys (16-byte
 *       loads when `in` allows) and counts the four digit histograms at once,
 *       in shared memory per block, then adds them into hist[pass][digit]
 *       with global atomics (the launcher zeroed it on the stream);
 *   (b) per pass, one kernel of SORT_OS_THREADS threads a block. A block takes
 *       its tile id from an atomic counter (not blockIdx): every tile it may
 *       wait for was taken by a block that is already running, so the pass
 *       needs no co-residency and cannot hang on a shared or partly busy GPU.
 *       It loads the tile (warp w owns SORT_OS_WARP_KEYS consecutive keys and
 *       reads them 32 at a time, lane-consecutive) and:
 *       - counts the tile's digits into per-warp shared histograms, then
 *         publishes the tile's count of each digit at once (flag AGGREGATE):
 *         later tiles can look past this tile before it has ranked anything;
 *       - one block scan of (global digit total << 32 | tile digit count)
 *         gives each digit's global start (the exclusive scan of hist[pass])
 *         and its start in the tile; a prefix over warps turns the per-warp
 *         histograms into each warp's first slot per digit;
 *       - ranks every key stably: round j of warp w handles the 32 keys
 *         warp_start + 32 j + lane; eight ballots over the digit bits give
 *         the lanes holding the same digit (cheaper than __match_any_sync for
 *         8 bits), the highest of them adds their number to the warp's
 *         counter for that digit with one shared atomic and broadcasts the
 *         old value; slot = old value + same-digit lanes below. Order
 *         is (warp, round, lane) = input order: stable. Each key is stored at
 *         once at its rank in shared memory, so the tile ends up sorted by
 *         digit there and ranks are never kept in registers;
 *       - decoupled look-back, one thread per digit: walk back over the
 *         tiles before, adding AGGREGATE counts, until a PREFIX (count of the
 *         digit in all tiles up to that one) is found, sleeping with
 *         __nanosleep backoff on NOT_READY; publish this tile's PREFIX;
 *       - writes the tile in its sorted order: thread t writes tile slots t,
 *         t + SORT_OS_THREADS, ..., slot p of digit d to
 *         out[digit start + count of d in earlier tiles + p - tile start of d],
 *         so a warp writes runs of consecutive addresses.
 *       Tile 0 publishes its PREFIX at once, so every walk ends.
 * Buffers ping-pong in -> alt -> out -> alt -> out (alt = scratch): the last
 * pass lands in `out`, `in` is only read, and in == out works. Floats: the
 * order-preserving flip (sort_common.cuh) when the histogram and pass 0 read,
 * undone when pass 3 writes, exactly as radix, so NaNs land in the same places.
 *
 * Look-back words: one 32-bit word per (tile, digit) holds flag and value, so
 * a reader that sees the flag sees the value with it, and relaxed single-word
 * loads and stores need no fence. 0 = NOT_READY (the launcher's memset);
 * bit 30 = AGGREGATE with the tile's count (< 2^30) in bits 0-29; bit 31 =
 * PREFIX with an inclusive count (<= n) in bits 0-30. A prefix thus keeps
 * 31 bits and n may reach 2^31 - 1 like radix, at half the look-back traffic
 * and memset of 64-bit words.
 *
 * Geometry: 384 threads x 20 keys = 7680-key tiles, as CUB picks for 32-bit
 * keys on sm_90. The sort is not bandwidth bound: what limits it is latency
 * (loads, the look-back chain, barriers) hidden by blocks in flight, and the
 * rank's instructions. A large tile makes the look-back (256 words a tile)
 * and the block-wide steps (5 barriers, one scan) cheap per key; 20 keys in
 * registers and ranks stored to shared memory straight away keep a thread
 * within SORT_OS_MAX_REGS, so SORT_OS_MIN_BLOCKS blocks (their shared memory
 * too) fit an SM and one block's look-back or barrier wait is covered by the
 * others' work. Pass loads are 32-bit and warp-striped: each warp load is one
 * fully used 128-byte request, and 16-byte loads would give a thread 4
 * consecutive keys, breaking the (round, lane) = input order that the stable
 * rank needs without a transpose through shared memory. Key loads are
 * evict-first (__ldcs): each key is read once a pass.
 *
 * Constraints: 1 <= n <= 2^31 - 1 (larger: cudaErrorInvalidValue), any n: the
 * partial last tile is padded with keys of digit 255 that rank after every
 * real key, are left out of the published counts and are never written.
 * 32-bit indices throughout (every index, tile start and count is < 2^32).
 * Scratch (sort_onesweep_scratch_bytes): n keys (alt) + hist (4 x 256) +
 * tile counters (4) + look-back words (4 x tiles x 256), all zeroed but alt
 * by one cudaMemsetAsync in the launcher, so no state carries between calls.
 * `in`/`out` need only 4-byte alignment.
 * Run just this one: ./compare --variants onesweep   (op sort, u32 and f32) */
#include "policy.h"
#include "sort.h"
#include "sort_common.cuh"

#include <cuda_runtime.h>
#include <stdint.h>

#define SORT_OS_BITS       8
#define SORT_OS_RADIX      256                     /* digits per pass */
#define SORT_OS_PASSES     4                       /* 32 / SORT_OS_BITS */
#define SORT_OS_THREADS    384                     /* pass kernel: threads per block */
#define SORT_OS_WARPS      (SORT_OS_THREADS / 32)
#define SORT_OS_KEYS       20                      /* keys per thread */
#define SORT_OS_TILE       (SORT_OS_THREADS * SORT_OS_KEYS)        /* 7680 keys */
#define SORT_OS_WARP_KEYS  (SORT_OS_KEYS * 32)                     /* 640 keys a warp */
/* pass blocks an SM must hold; SORT_OS_MAX_REGS = 65536 / (3 x 384), rounded
 * down to the allocation granularity of 8 */
#define SORT_OS_MIN_BLOCKS 3
#define SORT_OS_MAX_REGS   56
#define SORT_OS_N_MAX      0x7FFFFFFFLL

#define SORT_OS_HIST_THREADS 256                   /* histogram kernel */
#define SORT_OS_HIST_VECS    4                     /* 16-byte loads in flight per thread */

#define SORT_OS_NOT_READY  0u
#define SORT_OS_AGGREGATE  0x40000000u             /* count of the tile, bits 0-29 */
#define SORT_OS_PREFIX     0x80000000u             /* inclusive count, bits 0-30 */
#define SORT_OS_SLEEP_NS_MIN 32
#define SORT_OS_SLEEP_NS_MAX 512

static_assert(SORT_OS_RADIX == 1 << SORT_OS_BITS, "radix = 2^bits");
static_assert(SORT_OS_PASSES * SORT_OS_BITS == 32, "passes cover the 32-bit key");
static_assert(SORT_OS_PASSES % 2 == 0, "even pass count: ping-pong ends in out");
static_assert(SORT_OS_BITS == 8, "digits are whole bytes (__byte_perm extracts them) and 8 ballots match them");
static_assert(SORT_OS_THREADS % 32 == 0 && SORT_OS_THREADS >= SORT_OS_RADIX,
              "whole warps; one thread per digit in the per-digit steps (scan, look-back)");
static_assert(SORT_OS_RADIX % 32 == 0 && SORT_OS_RADIX / 32 <= 32,
              "the per-digit threads are whole warps; their warp totals are summed by one loop");
static_assert(SORT_OS_TILE < SORT_OS_AGGREGATE, "a tile count fits the AGGREGATE value bits");
static_assert(SORT_OS_N_MAX <= 0x7FFFFFFFLL, "a PREFIX count (<= n) fits the 31 value bits");
static_assert(SORT_OS_N_MAX + SORT_OS_TILE <= 0xFFFFFFFFLL, "tile starts and key indices fit 32 bits");
static_assert(SORT_OS_WARPS * SORT_OS_RADIX % (4 * SORT_OS_THREADS) == 0,
              "the per-warp histograms are zeroed by whole 16-byte stores of every thread");
static_assert(SORT_OS_MAX_REGS * SORT_OS_THREADS * SORT_OS_MIN_BLOCKS <= 65536,
              "register budget for SORT_OS_MIN_BLOCKS blocks an SM");

// ---- small device helpers --------------------------------------------------------

/* digit of `key` for the byte selected by sel = 0x4440 | byte (zero-extended) */
static __device__ __forceinline__ uint32_t sort_os_digit(uint32_t key, uint32_t sel)
{
    return __byte_perm(key, 0u, sel);
}

/* the same, but never merged with an earlier extraction of the same digit:
 * the rank recomputes digits rather than keep the histogram step's 20 shared
 * addresses live in registers through the scan (they would cost an SM a block) */
static __device__ __forceinline__ uint32_t sort_os_digit_again(uint32_t key, uint32_t sel)
{
    uint32_t d;
    asm volatile("prmt.b32 %0, %1, 0, %2;\n" : "=r"(d) : "r"(key), "r"(sel));
    return d;
}

/* lanes of the (full) warp whose digit equals this lane's: per bit, one
 * ballot of the lanes with the bit set, inverted where this lane's bit is
 * clear, ANDed (in PTX so that each bit is one test, one vote, one predicated
 * NOT and one AND; the C form tested every bit twice) */
static __device__ __forceinline__ uint32_t sort_os_match_digit(uint32_t digit)
{
    uint32_t peers = 0xFFFFFFFFu;
#pragma unroll
    for (int b = 0; b < SORT_OS_BITS; b++) {
        uint32_t same;
        asm("{\n"
            "    .reg .pred p;\n"
            "    and.b32 %0, %1, %2;\n"
            "    setp.ne.u32 p, %0, 0;\n"
            "    vote.sync.ballot.b32 %0, p, 0xffffffff;\n"
            "    @!p not.b32 %0, %0;\n"
            "}\n"
            : "=r"(same)
            : "r"(digit), "r"(1u << b));
        peers &= same;
    }
    return peers;
}

/* one look-back word, read and written whole at gpu scope (no L1, no tearing) */
static __device__ __forceinline__ uint32_t sort_os_load_word(const uint32_t *p)
{
    uint32_t v;
    asm volatile("ld.relaxed.gpu.global.u32 %0, [%1];\n" : "=r"(v) : "l"(p) : "memory");
    return v;
}

static __device__ __forceinline__ void sort_os_store_word(uint32_t *p, uint32_t v)
{
    asm volatile("st.relaxed.gpu.global.u32 [%0], %1;\n" ::"l"(p), "r"(v) : "memory");
}

// ---- (a) histogram of all four digits -------------------------------------------------

static __device__ __forceinline__ void sort_os_count(uint32_t *s_hist, uint32_t key, int flip)
{
    if (flip)
        key = sort_float_to_key(key);
#pragma unroll
    for (int p = 0; p < SORT_OS_PASSES; p++)
        atomicAdd(&s_hist[p * SORT_OS_RADIX + ((key >> (p * SORT_OS_BITS)) & (SORT_OS_RADIX - 1))], 1u);
}

/* hist[pass][digit] += count of the digit over src[0, n). The 16-byte aligned
 * middle is read as uint4 by a grid-stride loop; the up to 3 keys before it
 * and 3 after it are counted by block 0. */
static __global__ void __launch_bounds__(SORT_OS_HIST_THREADS)
sort_onesweep_histogram(const uint32_t *__restrict__ src, uint32_t n, int flip, uint32_t *__restrict__ hist)
{
    __shared__ uint32_t s_hist[SORT_OS_PASSES * SORT_OS_RADIX];
    const uint32_t tid = threadIdx.x;

    for (uint32_t i = tid; i < SORT_OS_PASSES * SORT_OS_RADIX; i += SORT_OS_HIST_THREADS)
        s_hist[i] = 0;
    __syncthreads();

    const uint32_t misalign = (uint32_t)(((uintptr_t)src / sizeof(uint32_t)) % 4);   /* keys past a 16-byte boundary */
    const uint32_t head = min((4u - misalign) % 4u, n);
    const uint32_t nvec = (n - head) / 4;
    const uint32_t tail = head + nvec * 4;                                         /* n - tail <= 3 */
    const uint4 *__restrict__ vec = (const uint4 *)(src + head);
    const uint32_t stride = gridDim.x * SORT_OS_HIST_THREADS;

    for (uint32_t i = blockIdx.x * SORT_OS_HIST_THREADS + tid; i < nvec; i += stride * SORT_OS_HIST_VECS) {
        uint4 v[SORT_OS_HIST_VECS];
#pragma unroll
        for (int u = 0; u < SORT_OS_HIST_VECS; u++)
            if (i + u * stride < nvec)
                v[u] = __ldcs(vec + i + u * stride);
#pragma unroll
        for (int u = 0; u < SORT_OS_HIST_VECS; u++)
            if (i + u * stride < nvec) {
                sort_os_count(s_hist, v[u].x, flip);
                sort_os_count(s_hist, v[u].y, flip);
                sort_os_count(s_hist, v[u].z, flip);
                sort_os_count(s_hist, v[u].w, flip);
            }
    }
    if (blockIdx.x == 0) {
        if (tid < head)
            sort_os_count(s_hist, src[tid], flip);
        if (tid < n - tail)
            sort_os_count(s_hist, src[tail + tid], flip);
    }
    __syncthreads();

    for (uint32_t i = tid; i < SORT_OS_PASSES * SORT_OS_RADIX; i += SORT_OS_HIST_THREADS) {
        const uint32_t c = s_hist[i];
        if (c)
            atomicAdd(&hist[i], c);
    }
}

// ---- (b) one pass: rank in the tile, look-back, scatter -----------------------------

/* key[j] = src[warp_first + 32 j] (warp_first = this lane's first key); slots
 * at or past n (only when !full) get 0xFFFFFFFF: digit 255 in every pass. */
static __device__ __forceinline__ void sort_os_load_tile(uint32_t (&key)[SORT_OS_KEYS],
                                                         const uint32_t *__restrict__ src,
                                                         uint32_t warp_first, uint32_t n, bool full, bool flip)
{
    const uint32_t *__restrict__ p = src + warp_first;
#pragma unroll
    for (int j = 0; j < SORT_OS_KEYS; j++) {
        uint32_t k = 0xFFFFFFFFu;
        if (full || warp_first + (uint32_t)j * 32 < n) {
            k = __ldcs(p + j * 32);
            if (flip)
                k = sort_float_to_key(k);
        }
        key[j] = k;
    }
}

/* out[s_base[digit] + p] = s_keys[p] for this thread's slots p < tile_n */
static __device__ __forceinline__ void sort_os_write_tile(uint32_t *__restrict__ dst, const uint32_t *s_keys,
                                                          const uint32_t *s_base, uint32_t sel, uint32_t tile_n,
                                                          bool full, bool flip)
{
#pragma unroll
    for (int j = 0; j < SORT_OS_KEYS; j++) {
        const uint32_t p = (uint32_t)j * SORT_OS_THREADS + threadIdx.x;
        if (full || p < tile_n) {
            const uint32_t k = s_keys[p];
            dst[s_base[sort_os_digit(k, sel)] + p] = flip ? sort_key_to_float(k) : k;
        }
    }
}

/* hist: this pass's digit totals; tile_ctr: this pass's tile counter;
 * lookback: this pass's words, [tile][digit]. All zeroed by the launcher. */
static __global__ void __launch_bounds__(SORT_OS_THREADS, SORT_OS_MIN_BLOCKS)
sort_onesweep_pass(const uint32_t *__restrict__ src, uint32_t *__restrict__ dst, uint32_t n, uint32_t sel,
                   int flip_in, int flip_out, const uint32_t *__restrict__ hist, uint32_t *__restrict__ tile_ctr,
                   uint32_t *__restrict__ lookback)
{
    __shared__ uint32_t s_keys[SORT_OS_TILE];                  /* the tile sorted by digit */
    /* s_warp[w][d]: first warp w's count of digit d; then the tile slot of
     * warp w's next key of digit d (bumped as the rank goes) */
    __shared__ __align__(16) uint32_t s_warp[SORT_OS_WARPS][SORT_OS_RADIX];
    __shared__ uint32_t s_base[SORT_OS_RADIX];                 /* out index = s_base[d] + tile slot */
    __shared__ unsigned long long s_scan[SORT_OS_RADIX / 32];  /* warp totals of the digit scan */
    __shared__ uint32_t s_tile;

    const uint32_t tid = threadIdx.x;
    const uint32_t lane = tid % 32;
    const uint32_t warp = tid / 32;

    if (tid == 0)
        s_tile = atomicAdd(tile_ctr, 1u);
    {
        uint4 *z = (uint4 *)&s_warp[0][0];
#pragma unroll
        for (int i = 0; i < SORT_OS_WARPS * SORT_OS_RADIX / (4 * SORT_OS_THREADS); i++)
            z[i * SORT_OS_THREADS + tid] = make_uint4(0u, 0u, 0u, 0u);
    }
    const uint32_t digit_total = tid < SORT_OS_RADIX ? __ldg(hist + tid) : 0u;
    __syncthreads();

    const uint32_t tile = s_tile;
    const uint32_t tile_start = tile * (uint32_t)SORT_OS_TILE;
    const uint32_t tile_n = min(n - tile_start, (uint32_t)SORT_OS_TILE);
    const bool full = tile_n == SORT_OS_TILE;
    const uint32_t warp_first = tile_start + warp * (uint32_t)SORT_OS_WARP_KEYS + lane;

    uint32_t key[SORT_OS_KEYS];
    if (full) {
        if (flip_in) sort_os_load_tile(key, src, warp_first, n, true, true);
        else sort_os_load_tile(key, src, warp_first, n, true, false);
    } else {
        if (flip_in) sort_os_load_tile(key, src, warp_first, n, false, true);
        else sort_os_load_tile(key, src, warp_first, n, false, false);
    }

    /* per-warp digit histograms (padding slots count as digit 255) */
#pragma unroll
    for (int j = 0; j < SORT_OS_KEYS; j++)
        atomicAdd(&s_warp[warp][sort_os_digit(key[j], sel)], 1u);
    __syncthreads();

    /* thread d < 256: the tile's count of digit d (with the padding:
     * `count`, without: `real`), published at once */
    uint32_t count = 0, real = 0;
    if (tid < SORT_OS_RADIX) {
#pragma unroll
        for (int w = 0; w < SORT_OS_WARPS; w++)
            count += s_warp[w][tid];
        real = tid == SORT_OS_RADIX - 1 ? count - (SORT_OS_TILE - tile_n) : count;
        sort_os_store_word(lookback + (size_t)tile * SORT_OS_RADIX + tid,
                           real | (tile == 0 ? SORT_OS_PREFIX : SORT_OS_AGGREGATE));
    }

    /* scan over digits of (global total << 32 | tile count): the global start
     * of d (high half, sum n < 2^32) and its tile start (low half, sum
     * SORT_OS_TILE) in one pass; warps past the digits only join the barrier */
    const unsigned long long packed = ((unsigned long long)digit_total << 32) | count;
    unsigned long long incl = packed;
    if (tid < SORT_OS_RADIX) {
#pragma unroll
        for (int off = 1; off < 32; off <<= 1) {
            const unsigned long long t = __shfl_up_sync(0xFFFFFFFFu, incl, off);
            if (lane >= (uint32_t)off)
                incl += t;
        }
        if (lane == 31)
            s_scan[warp] = incl;
    }
    __syncthreads();

    uint32_t base_less_start = 0;   /* kept by thread d < 256 for the look-back */
    if (tid < SORT_OS_RADIX) {
        unsigned long long excl = incl - packed;
        for (uint32_t w = 0; w < warp; w++)
            excl += s_scan[w];
        const uint32_t local_start = (uint32_t)excl;
        base_less_start = (uint32_t)(excl >> 32) - local_start;   /* modulo 2^32, see the scatter */
        uint32_t slot = local_start;
#pragma unroll
        for (int w = 0; w < SORT_OS_WARPS; w++) {
            const uint32_t c = s_warp[w][tid];
            s_warp[w][tid] = slot;
            slot += c;
        }
    }
    __syncthreads();

    /* stable rank, each key stored at its tile slot at once */
    {
        const uint32_t lanes_le = (2u << lane) - 1u;   /* lane 31: 2 << 31 wraps to 0 */
        uint32_t *next_slot = s_warp[warp];
#pragma unroll
        for (int j = 0; j < SORT_OS_KEYS; j++) {
            const uint32_t k = key[j];
            const uint32_t d = sort_os_digit_again(k, sel);
            const uint32_t peers = sort_os_match_digit(d);
            const uint32_t leader = 31 - __clz(peers);
            const uint32_t rank = __popc(peers & lanes_le);   /* leader: all of them */
            uint32_t first = 0;
            if (lane == leader)
                first = atomicAdd(&next_slot[d], rank);
            first = __shfl_sync(0xFFFFFFFFu, first, leader);
            s_keys[first + rank - 1] = k;
        }
    }

    /* decoupled look-back, thread d < 256 for digit d */
    if (tid < SORT_OS_RADIX) {
        uint32_t before = 0;   /* count of digit d in tiles < tile */
        if (tile > 0) {
            const uint32_t *w = lookback + (size_t)(tile - 1) * SORT_OS_RADIX + tid;
            for (;;) {
                uint32_t v = sort_os_load_word(w);
                unsigned ns = SORT_OS_SLEEP_NS_MIN;
                while (v == SORT_OS_NOT_READY) {
                    __nanosleep(ns);
                    ns = min(2 * ns, (unsigned)SORT_OS_SLEEP_NS_MAX);
                    v = sort_os_load_word(w);
                }
                if (v & SORT_OS_PREFIX) {
                    before += v & ~SORT_OS_PREFIX;
                    break;
                }
                before += v & ~SORT_OS_AGGREGATE;
                w -= SORT_OS_RADIX;   /* never past tile 0: its word is a PREFIX */
            }
            sort_os_store_word(lookback + (size_t)tile * SORT_OS_RADIX + tid, (before + real) | SORT_OS_PREFIX);
        }
        /* dst index of tile slot p of digit d = global start + before + (p -
         * tile start): computed modulo 2^32, exact for p >= tile start */
        s_base[tid] = base_less_start + before;
    }
    __syncthreads();

    if (full) {
        if (flip_out) sort_os_write_tile(dst, s_keys, s_base, sel, tile_n, true, true);
        else sort_os_write_tile(dst, s_keys, s_base, sel, tile_n, true, false);
    } else {
        if (flip_out) sort_os_write_tile(dst, s_keys, s_base, sel, tile_n, false, true);
        else sort_os_write_tile(dst, s_keys, s_base, sel, tile_n, false, false);
    }
}

// ---- launchers -----------------------------------------------------------------

static size_t sort_os_align256(size_t bytes)
{
    return (bytes + 255) & ~(size_t)255;
}

static uint32_t sort_os_tiles(long long n)
{
    return (uint32_t)((n + SORT_OS_TILE - 1) / SORT_OS_TILE);
}

/* Per architecture (kernels/common/policy.h): the histogram kernel's grid,
 * at most this many blocks an SM. The pass kernel's tile and block are
 * compile-time (SORT_OS_THREADS, SORT_OS_KEYS: its shared memory is static
 * and fits every GPU since Ampere). Every entry holds the sm_90 value for
 * now, untuned elsewhere. */
typedef struct {
    uint32_t hist_blocks_per_sm;
} sort_os_policy;
static const sort_os_policy sort_os_policies[POLICY_SLOTS] = {
    {4}, /* sm_90 */
    {4}, /* sm_80 (untuned) */
    {4}, /* sm_86/89 (untuned) */
    {4}, /* generic */
};

/* bytes of the zeroed state after alt: hist, tile counters (own 256 bytes), look-back */
static size_t sort_os_state_bytes(long long n)
{
    return sort_os_align256((size_t)SORT_OS_PASSES * SORT_OS_RADIX * sizeof(uint32_t)) +
           sort_os_align256((size_t)SORT_OS_PASSES * sizeof(uint32_t)) +
           (size_t)SORT_OS_PASSES * sort_os_tiles(n) * SORT_OS_RADIX * sizeof(uint32_t);
}

extern "C" size_t sort_onesweep_scratch_bytes(long long n)
{
    if (n < 1 || n > SORT_OS_N_MAX)
        return 0;
    return sort_os_align256((size_t)n * sizeof(uint32_t)) + sort_os_state_bytes(n);
}

static int sort_onesweep_run(const uint32_t *in, uint32_t *out, long long n, int is_float,
                             void *scratch, size_t scratch_bytes, cudaStream_t stream)
{
    if (n < 1 || n > SORT_OS_N_MAX || !in || !out || !scratch ||
        scratch_bytes < sort_onesweep_scratch_bytes(n))
        return (int)cudaErrorInvalidValue;

    const uint32_t n32 = (uint32_t)n;
    const uint32_t tiles = sort_os_tiles(n);
    char *p = (char *)scratch;
    uint32_t *alt = (uint32_t *)p;
    p += sort_os_align256((size_t)n * sizeof(uint32_t));
    char *state = p;
    uint32_t *hist = (uint32_t *)p;
    p += sort_os_align256((size_t)SORT_OS_PASSES * SORT_OS_RADIX * sizeof(uint32_t));
    uint32_t *tile_ctr = (uint32_t *)p;
    p += sort_os_align256((size_t)SORT_OS_PASSES * sizeof(uint32_t));
    uint32_t *lookback = (uint32_t *)p;

    cudaError_t e = cudaMemsetAsync(state, 0, sort_os_state_bytes(n), stream);
    if (e != cudaSuccess)
        return (int)e;

    int dev = 0, sms = 0;
    e = cudaGetDevice(&dev);
    if (e != cudaSuccess)
        return (int)e;
    e = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
    if (e != cudaSuccess)
        return (int)e;
    const uint32_t vec_blocks = (n32 / 4 + SORT_OS_HIST_THREADS - 1) / SORT_OS_HIST_THREADS;
    const uint32_t max_blocks = (uint32_t)sms * sort_os_policies[policy_slot_current()].hist_blocks_per_sm;
    const uint32_t hist_blocks = vec_blocks < 1 ? 1 : vec_blocks < max_blocks ? vec_blocks : max_blocks;
    sort_onesweep_histogram<<<hist_blocks, SORT_OS_HIST_THREADS, 0, stream>>>(in, n32, is_float, hist);
    e = cudaGetLastError();
    if (e != cudaSuccess)
        return (int)e;

    /* pass 0: in -> alt, 1: alt -> out, 2: out -> alt, 3: alt -> out */
    for (int pass = 0; pass < SORT_OS_PASSES; pass++) {
        const uint32_t *src = pass == 0 ? in : (pass % 2 ? alt : out);
        uint32_t *dst = pass % 2 ? out : alt;
        const uint32_t sel = 0x4440u | (uint32_t)pass;   /* __byte_perm: byte `pass`, zero-extended */
        sort_onesweep_pass<<<tiles, SORT_OS_THREADS, 0, stream>>>(
            src, dst, n32, sel, is_float && pass == 0, is_float && pass == SORT_OS_PASSES - 1,
            hist + pass * SORT_OS_RADIX, tile_ctr + pass, lookback + (size_t)pass * tiles * SORT_OS_RADIX);
        e = cudaGetLastError();
        if (e != cudaSuccess)
            return (int)e;
    }
    return 0;
}

extern "C" int sort_onesweep_u32(const uint32_t *in, uint32_t *out, long long n,
                                 void *scratch, size_t scratch_bytes, cudaStream_t stream)
{
    return sort_onesweep_run(in, out, n, 0, scratch, scratch_bytes, stream);
}

extern "C" int sort_onesweep_f32(const float *in, float *out, long long n,
                                 void *scratch, size_t scratch_bytes, cudaStream_t stream)
{
    return sort_onesweep_run((const uint32_t *)in, (uint32_t *)out, n, 1, scratch, scratch_bytes, stream);
}
