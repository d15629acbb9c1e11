/* kernels/scan.cu: hand-written inclusive prefix sums (float, int32).
 *
 * A scan reads n elements and writes n: at best it runs at copy speed. The
 * textbook versions pay for a second and third pass over memory; the fast
 * one reads and writes each element once.
 *
 * Idea, variant by variant:
 *   hillis_steele  step-efficient block scan: 1024 threads, one element each,
 *                  log2(1024) = 10 steps; in step d every thread i >= 2^d adds
 *                  element i - 2^d (double-buffered shared memory, one barrier a
 *                  step): O(B log B) additions per block.
 *   blelloch       work-efficient block scan: 512 threads, 1024 elements; an
 *                  up-sweep builds partial sums in a balanced tree in place, the
 *                  root is cleared, a down-sweep turns the tree into an exclusive
 *                  scan (O(B) additions), and each element adds itself back.
 *                  Shared indices are padded by one word per 32 (i + i / 32) so
 *                  the strided tree accesses do not pile onto one bank.
 *   Both are the first level of the same multi-level scheme: each block of
 *   1024 elements is scanned on its own and writes its total to scratch; the
 *   totals are scanned the same way (recursively, 1024 to a block, in place),
 *   then every block b >= 1 adds the scanned total of blocks 0..b-1. 2^28
 *   elements take 3 block-scan launches and 2 add launches: ~4 passes of
 *   memory traffic over the data.
 *   decoupled      single pass (Merrill & Garland, "Single-pass Parallel Prefix
 *                  Scan with Decoupled Look-back"): tile ids from an atomic
 *                  counter (no co-residency assumed, cannot hang), each tile
 *                  loaded once (16-byte loads when aligned), scanned in
 *                  registers after a shared-memory transpose, its prefix
 *                  found by a warp looking back over the status words of its
 *                  predecessors, written once. The kernel
 *                  is a template over its tuning (threads, items a thread,
 *                  vector width, cache hints, look-back
 *                  delays) in kernels/scan_decoupled.cuh, which documents it;
 *                  this file launches that header's named picks
 *                  SCAN_DL_PICK_I32 / SCAN_DL_PICK_F32 (SCAN_DL_PICK_SCALAR
 *                  when a pointer is not aligned for their vector width).
 *                  tests/probes/scan_probe.cu times candidate picks beside cub.
 *
 * Constraints (and why):
 *   - any n >= 1 up to 1024 x (2^31 - 1) (the largest level-0 grid), 64-bit
 *     indices. in == out is allowed: every element is read by the thread (or
 *     block) that later writes it, and read before it is written.
 *   - int32 sums are done in uint32 (wrap-around modulo 2^32: no signed
 *     overflow, which C++ leaves undefined).
 *   - decoupled status words never need clearing: each call stamps its own
 *     tag (a per-process counter through an odd multiplier, shifted left by
 *     2: no repeat within 2^30 calls, and the usual fill patterns are
 *     skipped); words of an earlier call read as "not ready", and garbage in
 *     fresh scratch matches a tag with probability 2^-30 per word. Only the
 *     tile counter is reset, by a 4-byte cudaMemsetAsync before the kernel.
 *   - scratch (scan_scratch_bytes): decoupled uses [0, 256) for the counter and
 *     8 bytes a tile after it, sized for the smallest tile of the three picks;
 *     the multi-level variants use it from 0 for the block totals of every
 *     level (about n / 256 bytes). 8-byte alignment.
 *
 * Run just these variants:
 *   ./compare --ops scan --variants hillis_steele,blelloch,decoupled
 */
#include <stdint.h>
#include <cuda_runtime.h>

#include "policy.h"
#include "scan.h"
#include "scan_decoupled.cuh"

// ---- tuning constants -------------------------------------------------------

#define SCAN_BLOCK_ELEMS 1024 /* multi-level: elements per block scan */
#define SCAN_HS_THREADS 1024  /* Hillis-Steele: one element a thread */
#define SCAN_BL_THREADS 512   /* Blelloch: two elements a thread */
#define SCAN_ADD_THREADS 256  /* adding the block prefixes: 4 elements a thread */
#define SCAN_MAX_LEVELS 8     /* 1024^7 > any n accepted */
#define SCAN_GRID_MAX 0x7fffffffLL

#define SCAN_DL_MIN2(a, b) ((a) < (b) ? (a) : (b))
/* the smallest tile of the three picks: the most status words */
#define SCAN_DL_MIN_TILE                                                                                             \
    SCAN_DL_MIN2(SCAN_DL_MIN2(SCAN_DL_TILE_OF(SCAN_DL_PICK_I32), SCAN_DL_TILE_OF(SCAN_DL_PICK_F32)),             \
                 SCAN_DL_TILE_OF(SCAN_DL_PICK_SCALAR))

static_assert(SCAN_HS_THREADS == SCAN_BLOCK_ELEMS, "Hillis-Steele: one element a thread");
static_assert(2 * SCAN_BL_THREADS == SCAN_BLOCK_ELEMS, "Blelloch: two elements a thread");
static_assert((SCAN_BLOCK_ELEMS & (SCAN_BLOCK_ELEMS - 1)) == 0, "the Blelloch tree halves the block each level");
static_assert(SCAN_DL_MIN_TILE >= 1024, "scan_scratch_bytes: decoupled tiles of at least 1024 elements");

// ---- element operations (float, int32) ------------------------------------------

static __device__ __forceinline__ float scan_add(float a, float b)
{
    return scan_dl_add(a, b);
}

static __device__ __forceinline__ int32_t scan_add(int32_t a, int32_t b)
{
    return scan_dl_add(a, b);
}

// ---- multi-level: block scans, then block prefixes added ---------------------------

/* Hillis-Steele: out[block] = inclusive scan of in[block]; the block total to
 * block_sums[blockIdx.x] when block_sums is not NULL. */
template <typename T>
static __global__ void __launch_bounds__(SCAN_HS_THREADS)
scan_hs_block_kernel(const T *in, T *out, long long n, T *block_sums)
{
    __shared__ T buf[2][SCAN_HS_THREADS];
    const int tid = threadIdx.x;
    const long long i = (long long)blockIdx.x * SCAN_BLOCK_ELEMS + tid;
    buf[0][tid] = i < n ? __ldg(in + i) : (T)0;
    __syncthreads();
    int cur = 0;
    for (int off = 1; off < SCAN_HS_THREADS; off <<= 1) {
        T v = buf[cur][tid];
        if (tid >= off)
            v = scan_add(buf[cur][tid - off], v);
        buf[cur ^ 1][tid] = v;
        cur ^= 1;
        __syncthreads();
    }
    const T v = buf[cur][tid];
    if (i < n)
        out[i] = v;
    if (block_sums != NULL && tid == SCAN_HS_THREADS - 1)
        block_sums[blockIdx.x] = v;
}

/* shared index of tree slot i: one pad word per 32 */
#define SCAN_BL_SLOT(i) ((i) + ((i) >> 5))

/* Blelloch: same contract as scan_hs_block_kernel. */
template <typename T>
static __global__ void __launch_bounds__(SCAN_BL_THREADS)
scan_blelloch_block_kernel(const T *in, T *out, long long n, T *block_sums)
{
    __shared__ T s[SCAN_BL_SLOT(SCAN_BLOCK_ELEMS)];
    const int tid = threadIdx.x;
    const long long base = (long long)blockIdx.x * SCAN_BLOCK_ELEMS;
    const int ia = tid, ib = tid + SCAN_BL_THREADS;
    const T a = base + ia < n ? __ldg(in + base + ia) : (T)0;
    const T b = base + ib < n ? __ldg(in + base + ib) : (T)0;
    s[SCAN_BL_SLOT(ia)] = a;
    s[SCAN_BL_SLOT(ib)] = b;

    /* up-sweep: after the level with d active threads, slot k * 2 off - 1 holds
     * the sum of its 2 off-element subtree */
    int off = 1;
    for (int d = SCAN_BLOCK_ELEMS / 2; d > 0; d >>= 1) {
        __syncthreads();
        if (tid < d) {
            const int x = off * (2 * tid + 1) - 1;
            const int y = off * (2 * tid + 2) - 1;
            s[SCAN_BL_SLOT(y)] = scan_add(s[SCAN_BL_SLOT(x)], s[SCAN_BL_SLOT(y)]);
        }
        off <<= 1;
    }
    /* the root (written by thread 0 itself in the last level) is the block
     * total; clearing it starts the down-sweep */
    T total = (T)0;
    if (tid == 0) {
        total = s[SCAN_BL_SLOT(SCAN_BLOCK_ELEMS - 1)];
        s[SCAN_BL_SLOT(SCAN_BLOCK_ELEMS - 1)] = (T)0;
    }
    /* down-sweep: a node passes its value to its left child and value + left
     * child's old sum to its right child */
    for (int d = 1; d < SCAN_BLOCK_ELEMS; d <<= 1) {
        off >>= 1;
        __syncthreads();
        if (tid < d) {
            const int x = off * (2 * tid + 1) - 1;
            const int y = off * (2 * tid + 2) - 1;
            const T left = s[SCAN_BL_SLOT(x)];
            s[SCAN_BL_SLOT(x)] = s[SCAN_BL_SLOT(y)];
            s[SCAN_BL_SLOT(y)] = scan_add(s[SCAN_BL_SLOT(y)], left);
        }
    }
    __syncthreads();
    /* exclusive + own element = inclusive */
    if (base + ia < n)
        out[base + ia] = scan_add(s[SCAN_BL_SLOT(ia)], a);
    if (base + ib < n)
        out[base + ib] = scan_add(s[SCAN_BL_SLOT(ib)], b);
    if (block_sums != NULL && tid == 0)
        block_sums[blockIdx.x] = total;
}

/* data[block b] += prefix[b - 1] for every block b >= 1 (block b = blockIdx.x + 1) */
template <typename T>
static __global__ void __launch_bounds__(SCAN_ADD_THREADS)
scan_add_prefix_kernel(T *data, long long n, const T *prefix)
{
    const long long blk = (long long)blockIdx.x + 1;
    const T p = prefix[blk - 1];
    const long long base = blk * SCAN_BLOCK_ELEMS;
    for (int j = threadIdx.x; j < SCAN_BLOCK_ELEMS; j += SCAN_ADD_THREADS) {
        const long long i = base + j;
        if (i < n)
            data[i] = scan_add(p, data[i]);
    }
}

// ---- host side ------------------------------------------------------------------------

static long long scan_ceil_div(long long a, long long b)
{
    return (a + b - 1) / b;
}

/* Block totals the multi-level variants store: every level with more than one block. */
static long long scan_tree_scratch_elems(long long n)
{
    long long total = 0;
    long long count = n;
    while (count > SCAN_BLOCK_ELEMS) {
        count = scan_ceil_div(count, SCAN_BLOCK_ELEMS);
        total += count;
    }
    return total;
}

extern "C" size_t scan_scratch_bytes(long long n)
{
    if (n < 1)
        n = 1;
    const size_t tree = 4 * (size_t)scan_tree_scratch_elems(n);
    const size_t decoupled = scan_dl_scratch_bytes(n, SCAN_DL_MIN_TILE);
    return tree > decoupled ? tree : decoupled;
}

static int scan_check_args(const void *in, const void *out, long long n, const void *scratch, size_t scratch_bytes)
{
    if (n < 1 || n > SCAN_GRID_MAX * SCAN_BLOCK_ELEMS || in == NULL || out == NULL || scratch == NULL)
        return (int)cudaErrorInvalidValue;
    if (((uintptr_t)in & 3u) != 0 || ((uintptr_t)out & 3u) != 0 || ((uintptr_t)scratch & 7u) != 0)
        return (int)cudaErrorInvalidValue;
    if (scratch_bytes < scan_scratch_bytes(n))
        return (int)cudaErrorInvalidValue;
    return 0;
}

typedef enum { SCAN_TREE_HILLIS_STEELE, SCAN_TREE_BLELLOCH } scan_tree_kind;

/* Level l holds count[l] elements in data[l] (level 0: out; level l >= 1: the
 * block totals of level l - 1, in scratch). Block-scan every level upwards
 * until one block is left, then add the block prefixes downwards. */
template <typename T>
static int scan_tree_run(scan_tree_kind kind, const T *in, T *out, long long n, void *scratch,
                         size_t scratch_bytes, cudaStream_t stream)
{
    int err = scan_check_args(in, out, n, scratch, scratch_bytes);
    if (err != 0)
        return err;
    T *data[SCAN_MAX_LEVELS];
    long long count[SCAN_MAX_LEVELS];
    T *free_sums = (T *)scratch;
    const T *src = in;
    data[0] = out;
    count[0] = n;
    int top = 0;
    for (;;) {
        const long long blocks = scan_ceil_div(count[top], SCAN_BLOCK_ELEMS);
        T *sums = blocks > 1 ? free_sums : NULL;
        if (kind == SCAN_TREE_HILLIS_STEELE)
            scan_hs_block_kernel<T><<<(unsigned int)blocks, SCAN_HS_THREADS, 0, stream>>>(src, data[top], count[top],
                                                                                         sums);
        else
            scan_blelloch_block_kernel<T><<<(unsigned int)blocks, SCAN_BL_THREADS, 0, stream>>>(src, data[top],
                                                                                               count[top], sums);
        err = (int)cudaGetLastError();
        if (err != 0)
            return err;
        if (blocks == 1)
            break;
        top++;
        data[top] = sums;
        count[top] = blocks;
        src = sums; /* the next level scans the totals in place */
        free_sums += blocks;
    }
    for (int l = top - 1; l >= 0; l--) {
        const long long blocks = scan_ceil_div(count[l], SCAN_BLOCK_ELEMS); /* > 1 */
        scan_add_prefix_kernel<T><<<(unsigned int)(blocks - 1), SCAN_ADD_THREADS, 0, stream>>>(data[l], count[l],
                                                                                               data[l + 1]);
        err = (int)cudaGetLastError();
        if (err != 0)
            return err;
    }
    return 0;
}

/* A tag with the low two bits clear that no earlier call of this process
 * used (for 2^30 calls) and that is none of the usual fill patterns. */
static uint32_t scan_next_tag(void)
{
    static unsigned int calls = 0;
    for (;;) {
        const uint32_t tag = (__atomic_add_fetch(&calls, 1u, __ATOMIC_RELAXED) * 0x9E3779B1u) << 2;
        if (tag != 0u && tag != 0xfffffffcu && tag != 0x7ffffffcu && tag != 0x7fc00000u && tag != 0xffc00000u &&
            tag != 0x7f800000u && tag != 0xff800000u)
            return tag;
    }
}

/* The decoupled scan's kernels per architecture (kernels/common/policy.h):
 * each type's vector pick, used when in and out are aligned for its vector
 * width (vec_f32, vec_i32 elements), the scalar pick otherwise. Every entry
 * holds SCAN_DL_PICK_F32 / _I32 / _SCALAR for now: the sm_90 picks, untuned
 * elsewhere; their tiles' static shared memory fits every GPU since Ampere,
 * so they are also the generic ones. scan_scratch_bytes sizes for the
 * smallest tile of these picks (SCAN_DL_MIN_TILE), whichever entry runs. */
typedef struct {
    int (*f32)(const float *, float *, long long, void *, uint32_t, cudaStream_t);
    int (*f32_scalar)(const float *, float *, long long, void *, uint32_t, cudaStream_t);
    int (*i32)(const int32_t *, int32_t *, long long, void *, uint32_t, cudaStream_t);
    int (*i32_scalar)(const int32_t *, int32_t *, long long, void *, uint32_t, cudaStream_t);
    unsigned vec_f32, vec_i32;
} scan_policy;
#define SCAN_POLICY_PICKS                                                                                                {scan_dl_run<float, SCAN_DL_PICK_F32>, scan_dl_run<float, SCAN_DL_PICK_SCALAR>,                                     scan_dl_run<int32_t, SCAN_DL_PICK_I32>, scan_dl_run<int32_t, SCAN_DL_PICK_SCALAR>,                                 SCAN_DL_VEC_OF(SCAN_DL_PICK_F32), SCAN_DL_VEC_OF(SCAN_DL_PICK_I32)}
static const scan_policy scan_policies[POLICY_SLOTS] = {
    SCAN_POLICY_PICKS, /* sm_90 */
    SCAN_POLICY_PICKS, /* sm_80 (untuned) */
    SCAN_POLICY_PICKS, /* sm_86/89 (untuned) */
    SCAN_POLICY_PICKS, /* generic */
};

/* The type's pick when in and out are aligned for its vector width, the
 * scalar pick otherwise. */
static int scan_decoupled_run_f32(const float *in, float *out, long long n, void *scratch, size_t scratch_bytes,
                                  cudaStream_t stream)
{
    int err = scan_check_args(in, out, n, scratch, scratch_bytes);
    if (err != 0)
        return err;
    const scan_policy *p = &scan_policies[policy_slot_current()];
    if ((((uintptr_t)in | (uintptr_t)out) & (4u * p->vec_f32 - 1u)) == 0)
        return p->f32(in, out, n, scratch, scan_next_tag(), stream);
    return p->f32_scalar(in, out, n, scratch, scan_next_tag(), stream);
}

static int scan_decoupled_run_i32(const int32_t *in, int32_t *out, long long n, void *scratch, size_t scratch_bytes,
                                  cudaStream_t stream)
{
    int err = scan_check_args(in, out, n, scratch, scratch_bytes);
    if (err != 0)
        return err;
    const scan_policy *p = &scan_policies[policy_slot_current()];
    if ((((uintptr_t)in | (uintptr_t)out) & (4u * p->vec_i32 - 1u)) == 0)
        return p->i32(in, out, n, scratch, scan_next_tag(), stream);
    return p->i32_scalar(in, out, n, scratch, scan_next_tag(), stream);
}

// ---- launchers ---------------------------------------------------------------------------

extern "C" int scan_hillis_steele_f32(const float *in, float *out, long long n, void *scratch, size_t scratch_bytes,
                                      cudaStream_t stream)
{
    return scan_tree_run<float>(SCAN_TREE_HILLIS_STEELE, in, out, n, scratch, scratch_bytes, stream);
}

extern "C" int scan_blelloch_f32(const float *in, float *out, long long n, void *scratch, size_t scratch_bytes,
                                 cudaStream_t stream)
{
    return scan_tree_run<float>(SCAN_TREE_BLELLOCH, in, out, n, scratch, scratch_bytes, stream);
}

extern "C" int scan_decoupled_f32(const float *in, float *out, long long n, void *scratch, size_t scratch_bytes,
                                  cudaStream_t stream)
{
    return scan_decoupled_run_f32(in, out, n, scratch, scratch_bytes, stream);
}

extern "C" int scan_hillis_steele_i32(const int32_t *in, int32_t *out, long long n, void *scratch,
                                      size_t scratch_bytes, cudaStream_t stream)
{
    return scan_tree_run<int32_t>(SCAN_TREE_HILLIS_STEELE, in, out, n, scratch, scratch_bytes, stream);
}

extern "C" int scan_blelloch_i32(const int32_t *in, int32_t *out, long long n, void *scratch, size_t scratch_bytes,
                                 cudaStream_t stream)
{
    return scan_tree_run<int32_t>(SCAN_TREE_BLELLOCH, in, out, n, scratch, scratch_bytes, stream);
}

extern "C" int scan_decoupled_i32(const int32_t *in, int32_t *out, long long n, void *scratch, size_t scratch_bytes,
                                  cudaStream_t stream)
{
    return scan_decoupled_run_i32(in, out, n, scratch, scratch_bytes, stream);
}
