/* kernels/norm_common.cuh: the machinery both norm ladders share (RMSNorm in
 * kernels/rmsnorm.cu, LayerNorm in kernels/layernorm.cu): element loads and
 * stores, the row statistics and their warp / block / cluster reductions,
 * the kernels of every rung and the launchers' dispatch. A kernel template
 * takes the element type T (float, __half, __nv_bfloat16) and the norm K
 * (NORM_RMS, NORM_LAYER); the two .cu files instantiate it for their norm.
 *
 * Semantics (rowwise.h): rmsnorm y = x / sqrt(mean(x^2) + eps) * w[c];
 * layernorm y = (x - mean) / sqrt(var + eps) * w[c] + b[c], var the
 * population variance. Arithmetic in FP32 whatever T is; y rounded to
 * nearest even once.
 *
 * Data path. A row is walked in 16-byte "vectors" (4 floats or 8 halves):
 * vector j holds elements [j*VEC, j*VEC + VEC). When cols * bytes is a
 * multiple of 16 and x, y, weight (and bias) are 16-byte aligned, a vector
 * is one 16-byte load or store (every row start is then aligned too);
 * otherwise the same vector is assembled from scalar loads with a bound
 * check per element (the "scalar path": any cols, same register layout).
 * Elements are kept as raw bits (a uint4 per vector: 4 words, two 16-bit
 * elements to a word for fp16 / bf16) and widened to float where used, so a
 * row held in registers costs 16 bytes per vector whatever T is. weight and
 * bias are read through the read-only path (ld.global.nc): every row reads
 * the same cols floats, which stay in L1 / L2 while x streams through. The
 * on-chip kernels read x with __ldcs and write y with __stcs (evict-first):
 * each is touched once.
 *
 * The rungs (launchers in rmsnorm.cu / layernorm.cu, per norm):
 *   naive    one thread per row, 128 rows a block: the thread walks its whole
 *            row, once for the statistics, once for the output. Neighbouring
 *            threads read addresses cols elements apart: every load is its
 *            own sector (uncoalesced); the lesson.
 *   warp     one warp per row, 8 rows a block, 16-byte loads (lane l takes
 *            vectors l, l+32, ...): coalesced. Statistics in one pass over x
 *            (shuffle reductions), then x read again for the output pass.
 *   block    one block (512 threads) per row, the same two passes, the
 *            statistics reduced through shared memory: for long rows, where
 *            a warp alone cannot keep enough loads in flight.
 *   fused    the pick: the row is held on chip (registers), so x is read
 *            once and y written once, the minimum traffic. Each thread
 *            loads all of its V vectors before using any (V * 16 bytes in
 *            flight per thread). Dispatch by the row's vectors nvec =
 *            ceil(cols / VEC), i.e. by cols and element bytes (thresholds
 *            are row bytes, the same for every T):
 *              row <= 4 KiB  (nvec <= 256): a warp per row, V = the power of
 *                  two >= nvec / 32 (1, 2, 4 or 8): no barrier at all, and
 *                  8 rows a block keep several rows' loads in flight per SM.
 *              row < 64 KiB (nvec < 4096): a block per row, V =
 *                  NORM_FUSED_BLOCK_V (4: 64 bytes a thread) and the power of
 *                  two threads >= nvec / V (128..1024): few registers, so
 *                  several rows' blocks share an SM and one block's
 *                  reduction overlaps another's loads.
 *              64 KiB <= row <= 1 MiB on sm_90 (cluster placed): the cluster kernel,
 *                  ceil(nvec / 4096) CTAs of 512 threads x 8 vectors (64 KiB
 *                  of row per CTA, at most 64 registers so that two CTAs fit
 *                  an SM): a row too long for one SM's registers is split
 *                  across a cluster; for 64-128 KiB rows this two-CTA form
 *                  lets two rows overlap on an SM where one 1024-thread
 *                  block would fill it (change NORM_FUSED_CLUSTER_MIN_VECS
 *                  to compare).
 *              row <= 128 KiB elsewhere: a block of 1024 threads x 8
 *                  vectors (one block per SM).
 *              anything longer: the block rung (x read twice), noted
 *                  through kernel_ran_note with the reason.
 *            The scalar path (see Data path) holds fewer vectors a thread
 *            (NORM_SCALAR_V; 2 in the cluster kernel for 16-bit types):
 *            every element load takes a register until it is packed, so its
 *            warp form stops at 2 KiB rows, its cluster CTAs hold 32 KiB
 *            (fp32) or 16 KiB (fp16 / bf16), and it has no 1024 x 8 form.
 *   cluster  the Hopper form for every cols: a row split across a thread
 *            block cluster of CL = max(2, ceil(nvec / 4096)) CTAs (at most
 *            16, non-portable above 8), each CTA's part held in registers;
 *            each CTA reduces its part, then the CTAs' partials are
 *            exchanged through distributed shared memory (each CTA's slot
 *            read by every CTA after a cluster barrier, merged in rank order
 *            so every CTA gets the same figures). Slots are double-buffered
 *            by row parity: the next row's barrier orders the reads of a row
 *            before the slot's reuse two rows later; a last barrier keeps
 *            every CTA's shared memory alive until its peers have read it.
 *            Compiled only for __CUDA_ARCH__ >= 900 (the build also makes
 *            sm_80 PTX, where the body is empty): the launcher declines
 *            (cudaErrorNotSupported) unless the policy is sm_90 and the
 *            loaded kernel was built from sm_90 code (ptxVersion >= 90); a
 *            row longer than 16 CTAs hold, or a cluster the GPU cannot
 *            place, runs the block rung with a note.
 *
 * Statistics. RMSNorm: the sum of x^2, one reduction. LayerNorm:
 *   - streaming rungs (naive, warp, block: the row is not on chip): Welford,
 *     in Chan's parallel form: each 16-byte vector's (count, mean, M2) by
 *     two-pass over its few registers, merged into the thread's running
 *     triple, then across lanes / warps. One statistics pass over x (a true
 *     two-pass would read x a third time from memory), and unlike
 *     E[x^2] - E[x]^2 no cancellation when |mean| >> stddev.
 *   - on-chip rungs (fused, cluster): two-pass over the registers: the
 *     group's exact mean first (sum, reduce), then the sum of squared
 *     deviations from it (reduce). The second pass re-reads registers, not
 *     memory: no extra traffic, and the most accurate order. In a cluster
 *     each CTA does this for its part, and the CTAs' (count, mean, M2)
 *     triples are merged with Chan's formula: one DSMEM exchange, not two.
 *   Padding elements (past cols) are zeros: harmless in sums, masked out of
 *   the squared deviations.
 *
 * Registers (ptxas -v, sm_90): the on-chip kernels are bounded at 64
 * registers a thread (1024-thread blocks; two 512-thread CTAs an SM; four
 * 256-thread warp-form blocks) and must not spill. Two habits of the
 * compiler cost more than the row itself there, and are blocked: keeping
 * the first pass's widened floats live across the reductions (norm_launder),
 * and hoisting each vector's 64-bit weight / bias addresses out of the row
 * loop (the weight pointers laundered per row); weight loads are volatile
 * so that they are not all issued above the reductions either.
 *
 * Constraints: any rows, cols >= 1 (64-bit indices; counts in float are exact
 * up to 2^24 elements a row, beyond that Chan's weights round at FP32's unit
 * roundoff); x and y must not overlap; types fp32, fp16, bf16 (anything else,
 * or a NULL pointer, is cudaErrorInvalidValue without a launch). Grids are
 * capped at NORM_GRID_MAX units; kernels loop over rows past that. Every
 * launcher runs only on its stream and never synchronises. */
#ifndef KERNELS_NORM_COMMON_CUH
#define KERNELS_NORM_COMMON_CUH

#include <stdint.h>
#include <cooperative_groups.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include "kernel_ran.h"
#include "policy.h"
#include "rowwise.h"
#include "smem.cuh"

// ---- tuning constants -------------------------------------------------------

#define NORM_NAIVE_THREADS 128      /* naive: rows a block */
#define NORM_WARP_THREADS 256       /* warp rung and fused's warp form: 8 rows a block */
#define NORM_WARP_MINB 4            /* fused warp form: 4 blocks an SM, <= 64 registers */
#define NORM_BLOCK_THREADS 512      /* block rung */
#define NORM_WARP_V_MAX 8           /* fused warp form: vectors a lane, at most */
#define NORM_FUSED_BLOCK_V 4        /* fused block form up to 64 KiB rows: vectors a thread */
#define NORM_BIG_V 8                /* fused 1024-thread block and the cluster kernel */
#define NORM_SCALAR_V 4             /* the scalar path's on-chip kernels: vectors a thread, at most */
#define NORM_BLOCK_MAX_THREADS 1024 /* fused block form */
#define NORM_CLUSTER_THREADS 512    /* cluster kernel: threads a CTA, at most */
#define NORM_CLUSTER_MINB 2         /* ... two CTAs an SM: <= 64 registers */
#define NORM_CLUSTER_MAX 16         /* CTAs a cluster (non-portable above 8) */
#define NORM_CLUSTER_PORTABLE 8
/* fused: rows of this many vectors or more take the cluster form on sm_90
 * (1024 x NORM_FUSED_BLOCK_V: the block form holds no more; a row of
 * exactly that many, 64 KiB, runs faster split over a two-CTA cluster than
 * in one 1024-thread block: the fused and cluster rows of bf16 at 32768
 * cols in docs/results.md; 8192 gives 64-128 KiB
 * rows to the 1024 x 8 block form instead) */
#define NORM_FUSED_CLUSTER_MIN_VECS (NORM_BLOCK_MAX_THREADS * NORM_FUSED_BLOCK_V)
#define NORM_GRID_MAX (1LL << 24)   /* blocks (or clusters) a launch, at most */

enum { NORM_RMS = 0, NORM_LAYER = 1 };
enum { NORM_G_WARP, NORM_G_BLOCK, NORM_G_CLUSTER }; /* who holds one row on chip */
enum { NORM_NAIVE, NORM_WARP, NORM_BLOCK, NORM_FUSED, NORM_CLUSTER };

static_assert(NORM_WARP_THREADS % 32 == 0 && NORM_BLOCK_THREADS % 32 == 0, "whole warps");
static_assert(NORM_BLOCK_MAX_THREADS / 32 <= 32 && NORM_BLOCK_THREADS / 32 <= 32,
              "one warp reduces every warp's partial");
static_assert(NORM_CLUSTER_MAX <= 32, "one warp merges every CTA's partial");
static_assert((NORM_FUSED_BLOCK_V & (NORM_FUSED_BLOCK_V - 1)) == 0 && NORM_BIG_V >= NORM_FUSED_BLOCK_V,
              "the 1024 x 8 block form holds at least what the block form does");
static_assert(NORM_FUSED_CLUSTER_MIN_VECS >= NORM_BLOCK_MAX_THREADS * NORM_FUSED_BLOCK_V,
              "the rows below the cluster threshold fit the block forms");
static_assert(NORM_BLOCK_MAX_THREADS * NORM_FUSED_BLOCK_V >= 32 * NORM_WARP_V_MAX,
              "the block form takes every row the warp form does not");

/* What every kernel gets (by value). vec: 1 when the 16-byte path applies. */
typedef struct {
    const void *x;
    void *y;
    const float *w, *b;   /* b: NULL for rmsnorm */
    long long rows, cols;
    float eps;
    int vec;
} norm_params;

/* LayerNorm's running statistics: element count, mean, sum of squared
 * deviations from the mean (Welford's M2). */
typedef struct {
    float n, mean, m2;
} norm_stats;

// ---- elements: raw bits <-> float ---------------------------------------------

template <typename T> __device__ __forceinline__ float norm_bits_f32(unsigned bits);
template <> __device__ __forceinline__ float norm_bits_f32<float>(unsigned bits)
{
    return __uint_as_float(bits);
}
template <> __device__ __forceinline__ float norm_bits_f32<__nv_bfloat16>(unsigned bits)
{
    return __uint_as_float(bits << 16);
}
template <> __device__ __forceinline__ float norm_bits_f32<__half>(unsigned bits)
{
    return __half2float(__ushort_as_half((unsigned short)bits));
}

/* two floats -> one word of two 16-bit elements (lo first in memory), RNE */
template <typename T> __device__ __forceinline__ unsigned norm_pack2(float lo, float hi);
template <> __device__ __forceinline__ unsigned norm_pack2<__nv_bfloat16>(float lo, float hi)
{
    __nv_bfloat162 v = __floats2bfloat162_rn(lo, hi);
    return *reinterpret_cast<unsigned *>(&v);
}
template <> __device__ __forceinline__ unsigned norm_pack2<__half>(float lo, float hi)
{
    __half2 v = __floats2half2_rn(lo, hi);
    return *reinterpret_cast<unsigned *>(&v);
}

/* one vector's raw bits -> its 16 / sizeof(T) floats */
template <typename T> __device__ __forceinline__ void norm_unpack(uint4 r, float *f)
{
    const unsigned w[4] = {r.x, r.y, r.z, r.w};
#pragma unroll
    for (int i = 0; i < 4; i++) {
        if constexpr (sizeof(T) == 4) {
            f[i] = __uint_as_float(w[i]);
        } else {
            f[2 * i] = norm_bits_f32<T>(w[i] & 0xffffu);
            f[2 * i + 1] = norm_bits_f32<T>(w[i] >> 16);
        }
    }
}

template <typename T> __device__ __forceinline__ uint4 norm_pack(const float *f)
{
    unsigned w[4];
#pragma unroll
    for (int i = 0; i < 4; i++) {
        if constexpr (sizeof(T) == 4)
            w[i] = __float_as_uint(f[i]);
        else
            w[i] = norm_pack2<T>(f[2 * i], f[2 * i + 1]);
    }
    return make_uint4(w[0], w[1], w[2], w[3]);
}

// ---- loads and stores of one vector -------------------------------------------

/* one element's raw bits; STREAM: evict-first (read once), else read-only path */
template <typename T, bool STREAM> __device__ __forceinline__ unsigned norm_ld_bits(const T *p)
{
    if constexpr (sizeof(T) == 4) {
        const unsigned *q = reinterpret_cast<const unsigned *>(p);
        return STREAM ? __ldcs(q) : __ldg(q);
    } else {
        const unsigned short *q = reinterpret_cast<const unsigned short *>(p);
        return STREAM ? (unsigned)__ldcs(q) : (unsigned)__ldg(q);
    }
}

/* The vector that starts at q, `left` elements of the row from q on (zeros
 * past the row's end). STREAM (x read once, on chip): ld.global.cs, evict
 * first, so that L1 keeps weight and bias. Every helper below takes the vector's address and
 * what is left of the row from it: the on-chip kernels compute those once
 * per thread in 32-bit arithmetic (their rows are short), the streaming
 * ones in 64-bit. */
template <typename T, bool STREAM>
__device__ __forceinline__ uint4 norm_load_vec(const T *q, long long left, int vec)
{
    constexpr int VEC = 16 / (int)sizeof(T);
    if (vec) {
        uint4 r = make_uint4(0u, 0u, 0u, 0u);
        if (left > 0) {
            const uint4 *q4 = reinterpret_cast<const uint4 *>(q);
            r = STREAM ? __ldcs(q4) : __ldg(q4);
        }
        return r;
    }
    /* scalar path: only the row's last vector can be partial, so one test
     * per vector, not one predicate per element */
    unsigned b[VEC], w[4];
    if (left >= VEC) {
#pragma unroll
        for (int e = 0; e < VEC; e++)
            b[e] = norm_ld_bits<T, STREAM>(q + e);
    } else {
#pragma unroll
        for (int e = 0; e < VEC; e++)
            b[e] = e < left ? norm_ld_bits<T, STREAM>(q + e) : 0u;
    }
#pragma unroll
    for (int i = 0; i < 4; i++) {
        if constexpr (sizeof(T) == 4)
            w[i] = b[i];
        else
            w[i] = b[2 * i] | b[2 * i + 1] << 16;
    }
    return make_uint4(w[0], w[1], w[2], w[3]);
}

/* Stores f as the vector at q (elements past the row's end are not written). */
template <typename T> __device__ __forceinline__ void norm_store_vec(T *q, long long left, int vec, const float *f)
{
    constexpr int VEC = 16 / (int)sizeof(T);
    const uint4 r = norm_pack<T>(f);
    if (vec) {
        __stcs(reinterpret_cast<uint4 *>(q), r);
        return;
    }
    const unsigned w[4] = {r.x, r.y, r.z, r.w};
#pragma unroll
    for (int e = 0; e < VEC; e++) {
        if (e >= left)
            break;
        if constexpr (sizeof(T) == 4)
            __stcs(reinterpret_cast<unsigned *>(q + e), w[e]);
        else
            __stcs(reinterpret_cast<unsigned short *>(q + e), (unsigned short)(w[e >> 1] >> (16 * (e & 1))));
    }
}

/* N floats of weight or bias from q (zeros past the row's end). The 16-byte
 * load is volatile asm on the read-only path, kept in L1 (evict_last: the
 * next rows on this SM read the same floats, while x is evicted first, see
 * norm_load_vec): the compiler would otherwise
 * hoist every vector's weight loads above the row's reductions (they do not
 * depend on them) and keep them all live across the barrier, which costs
 * more registers than the row itself in the on-chip kernels. */
template <int N> __device__ __forceinline__ void norm_load_param(const float *q, long long left, int vec, float *f)
{
    if (vec) {
#pragma unroll
        for (int i = 0; i < N / 4; i++)
            asm volatile("ld.global.nc.L1::evict_last.v4.f32 {%0, %1, %2, %3}, [%4];"
                         : "=f"(f[4 * i]), "=f"(f[4 * i + 1]), "=f"(f[4 * i + 2]), "=f"(f[4 * i + 3])
                         : "l"(q + 4 * i));
        return;
    }
#pragma unroll
    for (int e = 0; e < N; e++)
        f[e] = e < left ? __ldg(q + e) : 0.0f;
}

/* The output of the vector at column c (raw bits of x; `left` elements of
 * the row from c on, > 0), given the row's mean (0 for RMSNorm) and
 * 1 / sqrt(var + eps); vec: the 16-byte path (a constant in the on-chip
 * kernels, which are built once for each path). Four elements at a time
 * (one float4 of weight and of bias live, not a whole vector's), so that
 * the long-row on-chip kernels fit their 64 registers a thread. */
template <typename T, int K>
__device__ __forceinline__ void norm_vec_out(uint4 raw, T *yrow, const norm_params &p, long long c, long long left,
                                             int vec, float mean, float rstd)
{
    constexpr int VEC = 16 / (int)sizeof(T);
    float f[VEC];
    norm_unpack<T>(raw, f);
#pragma unroll
    for (int g = 0; g < VEC; g += 4) {
        float w[4], b[4];
        norm_load_param<4>(p.w + c + g, left - g, vec, w);
        if constexpr (K == NORM_LAYER) {
            norm_load_param<4>(p.b + c + g, left - g, vec, b);
#pragma unroll
            for (int e = 0; e < 4; e++)
                f[g + e] = (f[g + e] - mean) * rstd * w[e] + b[e];
        } else {
#pragma unroll
            for (int e = 0; e < 4; e++)
                f[g + e] = f[g + e] * rstd * w[e];
        }
    }
    norm_store_vec<T>(yrow + c, left, vec, f);
}

// ---- statistics of one vector ---------------------------------------------------

template <typename T> __device__ __forceinline__ float norm_vec_sum(uint4 raw)
{
    constexpr int VEC = 16 / (int)sizeof(T);
    float f[VEC], s = 0.0f;
    norm_unpack<T>(raw, f);
#pragma unroll
    for (int e = 0; e < VEC; e++)
        s += f[e];
    return s;
}

/* sum over the vector's elements inside the row of (x - mean)^2 */
template <typename T> __device__ __forceinline__ float norm_vec_sqdev(uint4 raw, long long left, float mean)
{
    constexpr int VEC = 16 / (int)sizeof(T);
    float f[VEC], s = 0.0f;
    norm_unpack<T>(raw, f);
#pragma unroll
    for (int e = 0; e < VEC; e++) {
        const float d = e < left ? f[e] - mean : 0.0f;
        s = fmaf(d, d, s);
    }
    return s;
}

// ---- accumulators and their merges -------------------------------------------------

/* The streaming rungs' accumulator per norm: RMSNorm a float (sum of x^2),
 * LayerNorm a norm_stats; chunk() is one vector's contribution. */
template <int K> struct norm_acc;
template <> struct norm_acc<NORM_RMS> {
    typedef float type;
    template <typename T> static __device__ __forceinline__ float chunk(uint4 raw, long long left)
    {
        return norm_vec_sqdev<T>(raw, left, 0.0f);
    }
};
template <> struct norm_acc<NORM_LAYER> {
    typedef norm_stats type;
    template <typename T> static __device__ __forceinline__ norm_stats chunk(uint4 raw, long long left)
    {
        constexpr int VEC = 16 / (int)sizeof(T);
        const int nv = left >= VEC ? VEC : (left > 0 ? (int)left : 0);
        norm_stats s = {(float)nv, 0.0f, 0.0f};
        if (nv > 0) {
            s.mean = norm_vec_sum<T>(raw) / (float)nv;
            s.m2 = norm_vec_sqdev<T>(raw, left, s.mean);
        }
        return s;
    }
};

static __device__ __forceinline__ float norm_combine(float a, float b)
{
    return a + b;
}

/* Chan et al.'s merge of two (count, mean, M2) triples (either may be empty) */
static __device__ __forceinline__ norm_stats norm_combine(norm_stats a, norm_stats b)
{
    const float n = a.n + b.n;
    if (n == 0.0f)
        return a;
    const float d = b.mean - a.mean, fb = b.n / n;
    const norm_stats r = {n, fmaf(d, fb, a.mean), a.m2 + b.m2 + d * d * a.n * fb};
    return r;
}

static __device__ __forceinline__ float norm_zero(float)
{
    return 0.0f;
}
static __device__ __forceinline__ norm_stats norm_zero(norm_stats)
{
    const norm_stats z = {0.0f, 0.0f, 0.0f};
    return z;
}

static __device__ __forceinline__ float norm_shfl(float v, int src, bool down)
{
    return down ? __shfl_down_sync(0xffffffffu, v, src) : __shfl_sync(0xffffffffu, v, src);
}
static __device__ __forceinline__ norm_stats norm_shfl(norm_stats v, int src, bool down)
{
    const norm_stats r = {norm_shfl(v.n, src, down), norm_shfl(v.mean, src, down), norm_shfl(v.m2, src, down)};
    return r;
}

/* Merge over the warp: a tree towards lane 0 in a fixed order, then lane 0's
 * result broadcast, so every lane (and every warp merging the same values)
 * gets bit-identical figures. */
template <typename S> __device__ __forceinline__ S norm_warp_reduce(S v)
{
#pragma unroll
    for (int off = 16; off > 0; off >>= 1)
        v = norm_combine(v, norm_shfl(v, off, true));
    return norm_shfl(v, 0, false);
}

/* Merge over the block, the result in every thread. slots: 32 entries of
 * shared memory; two calls in a row must use different slots (the caller
 * alternates two: a call's barrier orders the reads of the call before it). */
template <typename S> __device__ __forceinline__ S norm_block_reduce(S v, S *slots)
{
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    v = norm_warp_reduce(v);
    if (lane == 0)
        slots[warp] = v;
    __syncthreads();
    const S u = lane < (int)(blockDim.x >> 5) ? slots[lane] : norm_zero(v);
    return norm_warp_reduce(u);
}

/* Merge over the cluster of the CTA totals v (the same in every thread of a
 * CTA); slot: this CTA's shared slot for this row (double-buffered by the
 * caller). sm_90 only: never called elsewhere. */
template <typename S> __device__ __forceinline__ S norm_cluster_reduce(S v, S *slot)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    namespace cg = cooperative_groups;
    cg::cluster_group cl = cg::this_cluster();
    const int lane = threadIdx.x & 31;
    if (threadIdx.x == 0)
        *slot = v;
    cl.sync();
    const S u = lane < (int)cl.num_blocks() ? *cl.map_shared_rank(slot, (unsigned)lane) : norm_zero(v);
    return norm_warp_reduce(u);
#else
    (void)slot;
    return v;
#endif
}

/* A sum over the group that holds a row: a warp, or a block (ring: 2 x 32
 * floats of shared memory, k the caller's count of block reductions). */
template <int G> __device__ __forceinline__ float norm_group_sum(float v, float *ring, int &k)
{
    if constexpr (G == NORM_G_WARP)
        return norm_warp_reduce(v);
    else
        return norm_block_reduce(v, ring + 32 * (k++ & 1));
}

/* The row's mean (0 for RMSNorm) and 1 / sqrt(var + eps) from the row's total */
static __device__ __forceinline__ void norm_finish(float sumsq, const norm_params &p, float *mean, float *rstd)
{
    *mean = 0.0f;
    *rstd = rsqrtf(sumsq / (float)p.cols + p.eps);
}
static __device__ __forceinline__ void norm_finish(norm_stats s, const norm_params &p, float *mean, float *rstd)
{
    *mean = s.mean;
    *rstd = rsqrtf(s.m2 / (float)p.cols + p.eps);
}

// ---- streaming rungs: naive, warp, block ------------------------------------------

/* This thread's share of the row's statistics: vectors first, first + stride, ... */
template <typename T, int K>
__device__ __forceinline__ typename norm_acc<K>::type norm_stream_stats(const T *row, const norm_params &p,
                                                                         long long first, long long stride, int vec)
{
    constexpr int VEC = 16 / (int)sizeof(T);
    const long long nvec = (p.cols + VEC - 1) / VEC;
    typename norm_acc<K>::type acc = norm_zero(typename norm_acc<K>::type());
#pragma unroll 4
    for (long long j = first; j < nvec; j += stride) {
        const long long c = j * VEC;
        acc = norm_combine(acc, norm_acc<K>::template chunk<T>(norm_load_vec<T, false>(row + c, p.cols - c, vec),
                                                               p.cols - c));
    }
    return acc;
}

/* This thread's share of the output pass (x read again) */
template <typename T, int K>
__device__ __forceinline__ void norm_stream_out(const T *row, T *yrow, const norm_params &p, long long first,
                                                long long stride, int vec, float mean, float rstd)
{
    constexpr int VEC = 16 / (int)sizeof(T);
    const long long nvec = (p.cols + VEC - 1) / VEC;
#pragma unroll 4
    for (long long j = first; j < nvec; j += stride) {
        const long long c = j * VEC;
        norm_vec_out<T, K>(norm_load_vec<T, false>(row + c, p.cols - c, vec), yrow, p, c, p.cols - c, vec, mean, rstd);
    }
}

/* naive: thread r walks row r element by element (scalar loads, stride 1) */
template <typename T, int K>
static __global__ void __launch_bounds__(NORM_NAIVE_THREADS) norm_naive_kernel(norm_params p)
{
    const long long step = (long long)gridDim.x * blockDim.x;
    for (long long r = (long long)blockIdx.x * blockDim.x + threadIdx.x; r < p.rows; r += step) {
        const T *x = (const T *)p.x + r * p.cols;
        float mean, rstd;
        norm_finish(norm_stream_stats<T, K>(x, p, 0, 1, 0), p, &mean, &rstd);
        norm_stream_out<T, K>(x, (T *)p.y + r * p.cols, p, 0, 1, 0, mean, rstd);
    }
}

/* warp: warp w of the block takes rows blockIdx.x * 8 + w, then every
 * gridDim.x * 8 rows */
template <typename T, int K>
static __global__ void __launch_bounds__(NORM_WARP_THREADS) norm_warp_kernel(norm_params p)
{
    const int lane = threadIdx.x & 31, nw = NORM_WARP_THREADS / 32;
    const long long step = (long long)gridDim.x * nw;
    for (long long r = (long long)blockIdx.x * nw + (threadIdx.x >> 5); r < p.rows; r += step) {
        const T *x = (const T *)p.x + r * p.cols;
        float mean, rstd;
        norm_finish(norm_warp_reduce(norm_stream_stats<T, K>(x, p, lane, 32, p.vec)), p, &mean, &rstd);
        norm_stream_out<T, K>(x, (T *)p.y + r * p.cols, p, lane, 32, p.vec, mean, rstd);
    }
}

/* block: block b takes rows b, b + gridDim.x, ... */
template <typename T, int K>
static __global__ void __launch_bounds__(NORM_BLOCK_THREADS) norm_block_kernel(norm_params p)
{
    __shared__ typename norm_acc<K>::type ring[2][32];
    int k = 0;
    for (long long r = blockIdx.x; r < p.rows; r += gridDim.x) {
        const T *x = (const T *)p.x + r * p.cols;
        float mean, rstd;
        norm_finish(norm_block_reduce(norm_stream_stats<T, K>(x, p, threadIdx.x, blockDim.x, p.vec), ring[k++ & 1]),
                    p, &mean, &rstd);
        norm_stream_out<T, K>(x, (T *)p.y + r * p.cols, p, threadIdx.x, blockDim.x, p.vec, mean, rstd);
    }
}

// ---- on-chip rungs: fused (warp / block) and cluster ----------------------------------

/* Hides a held vector's value from the compiler (an empty volatile asm that
 * "may change" it): each pass over the row widens the raw bits again instead
 * of keeping the first pass's floats live across the reductions, which for
 * fp16 / bf16 would double the registers the row takes. */
static __device__ __forceinline__ void norm_launder(uint4 &r)
{
    asm volatile("" : "+r"(r.x), "+r"(r.y), "+r"(r.z), "+r"(r.w));
}

/* One row held on chip by its group: tpr threads per CTA, csize CTAs (1 for
 * a warp or a block), this thread t of CTA rank. CTA rank holds vectors
 * [rank * tpr * V, (rank + 1) * tpr * V); its thread t the vectors
 * rank * tpr * V + v * tpr + t (v < V): a warp's V loads are each 512
 * contiguous bytes. cslot: the cluster's slot for this row (NULL otherwise). */
template <typename T, int K, int V, int G, int VP>
__device__ __forceinline__ void norm_onchip_row(const norm_params &p, long long r, int t, int tpr, int rank,
                                                float *ring, int &k, typename norm_acc<K>::type *cslot)
{
    constexpr int VEC = 16 / (int)sizeof(T);
    const T *x = (const T *)p.x + r * p.cols;
    T *y = (T *)p.y + r * p.cols;
    /* 32-bit column arithmetic: the launchers hold no row of 2^31 elements
     * on chip. Vector v of this thread starts at column c0 + v * cstep. */
    const int cols = (int)p.cols, c0 = (rank * tpr * V + t) * VEC, cstep = tpr * VEC;
    uint4 frag[V];
#pragma unroll
    for (int v = 0; v < V; v++)
        frag[v] = norm_load_vec<T, true>(x + c0 + v * cstep, cols - c0 - v * cstep, VP);

    float mean = 0.0f, q = 0.0f;
    if constexpr (K == NORM_LAYER) {
        /* elements this group holds: the whole row, or the CTA's part */
        int nl = cols;
        if constexpr (G == NORM_G_CLUSTER) {
            const int span = tpr * V * VEC;
            nl = cols - rank * span;
            nl = nl < 0 ? 0 : (nl > span ? span : nl);
        }
        float s = 0.0f;
#pragma unroll
        for (int v = 0; v < V; v++)
            s += norm_vec_sum<T>(frag[v]);
        s = norm_group_sum<G>(s, ring, k);
        mean = nl > 0 ? s / (float)nl : 0.0f;
#pragma unroll
        for (int v = 0; v < V; v++) {
            norm_launder(frag[v]);
            q += norm_vec_sqdev<T>(frag[v], cols - c0 - v * cstep, mean);
        }
        q = norm_group_sum<G>(q, ring, k);
        if constexpr (G == NORM_G_CLUSTER) {
            const norm_stats local = {(float)nl, mean, q};
            const norm_stats all = norm_cluster_reduce(local, cslot);
            mean = all.mean;
            q = all.m2;
        }
    } else {
#pragma unroll
        for (int v = 0; v < V; v++)
            q += norm_vec_sqdev<T>(frag[v], cols - c0 - v * cstep, 0.0f);
        q = norm_group_sum<G>(q, ring, k);
        if constexpr (G == NORM_G_CLUSTER)
            q = norm_cluster_reduce(q, cslot);
    }
    const float rstd = rsqrtf(q / (float)cols + p.eps);
    /* weight and bias through pointers the compiler cannot see are the same
     * every row: otherwise it hoists the V addresses of each out of the row
     * loop, 64-bit each, and spills them */
    norm_params pr = p;
    asm volatile("" : "+l"(pr.w), "+l"(pr.b));
#pragma unroll
    for (int v = 0; v < V; v++) {
        const int c = c0 + v * cstep;
        norm_launder(frag[v]);
        if (c < cols)
            norm_vec_out<T, K>(frag[v], y, pr, c, cols - c, VP, mean, rstd);
    }
}

/* fused, warp form: a warp per row, 8 rows a block */
template <typename T, int K, int V, int VP>
static __global__ void __launch_bounds__(NORM_WARP_THREADS, NORM_WARP_MINB) norm_fused_warp_kernel(norm_params p)
{
    const int nw = NORM_WARP_THREADS / 32;
    const long long step = (long long)gridDim.x * nw;
    int k = 0;
    for (long long r = (long long)blockIdx.x * nw + (threadIdx.x >> 5); r < p.rows; r += step)
        norm_onchip_row<T, K, V, NORM_G_WARP, VP>(p, r, threadIdx.x & 31, 32, 0, NULL, k, NULL);
}

/* fused, block form: a block (blockDim.x threads, a power of two >= 32) per row */
template <typename T, int K, int V, int VP>
static __global__ void __launch_bounds__(NORM_BLOCK_MAX_THREADS) norm_fused_block_kernel(norm_params p)
{
    __shared__ float ring[2 * 32];
    int k = 0;
    for (long long r = blockIdx.x; r < p.rows; r += gridDim.x)
        norm_onchip_row<T, K, V, NORM_G_BLOCK, VP>(p, r, threadIdx.x, blockDim.x, 0, ring, k, NULL);
}

/* cluster form: cluster c (CTAs c * csize .. along x) takes rows c, c +
 * clusters, ...; every CTA of a cluster walks the same rows, so all reach
 * every cluster barrier. */
template <typename T, int K, int V, int VP>
static __global__ void __launch_bounds__(NORM_CLUSTER_THREADS, NORM_CLUSTER_MINB) norm_cluster_kernel(norm_params p)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    namespace cg = cooperative_groups;
    cg::cluster_group cl = cg::this_cluster();
    __shared__ float ring[2 * 32];
    __shared__ typename norm_acc<K>::type cslot[2];
    const unsigned csize = cl.num_blocks();
    const long long clusters = gridDim.x / csize;
    const int rank = (int)cl.block_rank();
    int k = 0, it = 0;
    for (long long r = blockIdx.x / csize; r < p.rows; r += clusters, it++)
        norm_onchip_row<T, K, V, NORM_G_CLUSTER, VP>(p, r, threadIdx.x, blockDim.x, rank, ring, k, &cslot[it & 1]);
    cl.sync(); /* no CTA leaves while a peer may still read its slots */
#else
    (void)p;
#endif
}

// ---- host side -------------------------------------------------------------------

static const char *const norm_kernel_names[2][7] = {
    {"rmsnorm_naive", "rmsnorm_warp", "rmsnorm_block", "rmsnorm_fused_warp", "rmsnorm_fused_block",
     "rmsnorm_fused_block_1024x8", "rmsnorm_cluster"},
    {"layernorm_naive", "layernorm_warp", "layernorm_block", "layernorm_fused_warp", "layernorm_fused_block",
     "layernorm_fused_block_1024x8", "layernorm_cluster"}};
enum { NORM_KN_NAIVE, NORM_KN_WARP, NORM_KN_BLOCK, NORM_KN_FWARP, NORM_KN_FBLOCK, NORM_KN_FBIG, NORM_KN_CLUSTER };

#define NORM_WHY_SCALAR "cols * element bytes not a multiple of 16 or a pointer not 16-byte aligned: scalar loads"
#define NORM_WHY_LONG "row longer than a 16-CTA cluster holds: the block rung (x read twice)"
#define NORM_WHY_PLACE "the GPU cannot place this cluster: the block rung (x read twice)"
#define NORM_WHY_NOCLUSTER "no cluster form here (not sm_90) and the row exceeds one block's registers: the block rung"

static inline int norm_aligned16(const void *p)
{
    return ((uintptr_t)p & 15u) == 0;
}

static inline long long norm_blocks(long long units, long long per_block)
{
    long long b = (units + per_block - 1) / per_block;
    return b > NORM_GRID_MAX ? NORM_GRID_MAX : b;
}

static inline int norm_pow2_at_least(long long v)
{
    int p = 1;
    while (p < v && p < (1 << 30))
        p <<= 1;
    return p;
}

/* Notes the kernel and why it is not the rung's own fast path (NULL: it
 * is), returns the launch's error. */
static inline int norm_launched(int K, int which, const char *why)
{
    kernel_ran_note(norm_kernel_names[K][which], why);
    return (int)cudaGetLastError();
}

/* why: the caller's reason, else the scalar path's when the 16-byte path is off */
static inline const char *norm_why(const norm_params &p, const char *why)
{
    return why ? why : (p.vec ? NULL : NORM_WHY_SCALAR);
}

template <typename T, int K> static int norm_run_naive(const norm_params &p, cudaStream_t s)
{
    norm_naive_kernel<T, K><<<(unsigned)norm_blocks(p.rows, NORM_NAIVE_THREADS), NORM_NAIVE_THREADS, 0, s>>>(p);
    return norm_launched(K, NORM_KN_NAIVE, NULL); /* scalar by design */
}

template <typename T, int K> static int norm_run_warp(const norm_params &p, cudaStream_t s)
{
    norm_warp_kernel<T, K><<<(unsigned)norm_blocks(p.rows, NORM_WARP_THREADS / 32), NORM_WARP_THREADS, 0, s>>>(p);
    return norm_launched(K, NORM_KN_WARP, norm_why(p, NULL));
}

template <typename T, int K> static int norm_run_block(const norm_params &p, cudaStream_t s, const char *why)
{
    norm_block_kernel<T, K><<<(unsigned)norm_blocks(p.rows, 1), NORM_BLOCK_THREADS, 0, s>>>(p);
    return norm_launched(K, NORM_KN_BLOCK, norm_why(p, why));
}

/* The 16-byte path runs kernels built for it (VP = 1); the scalar path
 * (VP = 0) runs at most NORM_SCALAR_V vectors a thread: its element loads
 * each take a register until packed, so more would spill. */
template <typename T, int K, int V> static int norm_run_fused_warp(const norm_params &p, cudaStream_t s)
{
    const unsigned blocks = (unsigned)norm_blocks(p.rows, NORM_WARP_THREADS / 32);
    if (p.vec)
        norm_fused_warp_kernel<T, K, V, 1><<<blocks, NORM_WARP_THREADS, 0, s>>>(p);
    else if constexpr (V <= NORM_SCALAR_V)
        norm_fused_warp_kernel<T, K, V, 0><<<blocks, NORM_WARP_THREADS, 0, s>>>(p);
    return norm_launched(K, NORM_KN_FWARP, norm_why(p, NULL));
}

template <typename T, int K, int V> static int norm_run_fused_block(const norm_params &p, int threads, cudaStream_t s)
{
    const unsigned blocks = (unsigned)norm_blocks(p.rows, 1);
    if (p.vec)
        norm_fused_block_kernel<T, K, V, 1><<<blocks, threads, 0, s>>>(p);
    else if constexpr (V <= NORM_SCALAR_V)
        norm_fused_block_kernel<T, K, V, 0><<<blocks, threads, 0, s>>>(p);
    return norm_launched(K, V == NORM_BIG_V ? NORM_KN_FBIG : NORM_KN_FBLOCK, norm_why(p, NULL));
}

/* vectors a thread of the cluster kernel holds on this path (its 512-thread
 * CTAs, two an SM, leave 64 registers a thread: the scalar path's 16-bit
 * element loads hold 8 registers a vector in flight, so 2 vectors there) */
template <typename T> static inline constexpr int norm_cluster_v(int vec)
{
    return vec ? NORM_BIG_V : (sizeof(T) == 4 ? NORM_SCALAR_V : NORM_SCALAR_V / 2);
}

/* 1 when the cluster kernel of this instantiation can run on the current
 * device: the sm_90 policy (not the forced mode) and code built for sm_90
 * (the sm_80 PTX of this build has an empty body), checked once per device. */
template <typename T, int K> static int norm_cluster_available(void)
{
    static int known[64]; /* 0 unknown, 1 yes, 2 no */
    if (policy_arch_current() != POLICY_ARCH_90)
        return 0;
    int dev = 0;
    if (cudaGetDevice(&dev) != cudaSuccess) {
        (void)cudaGetLastError();
        return 0;
    }
    int v = dev < 64 ? __atomic_load_n(&known[dev], __ATOMIC_RELAXED) : 0;
    if (v == 0) {
        cudaFuncAttributes fa;
        v = cudaFuncGetAttributes(&fa, (const void *)norm_cluster_kernel<T, K, NORM_BIG_V, 1>) == cudaSuccess &&
                    fa.ptxVersion >= 90
                ? 1
                : 2;
        (void)cudaGetLastError();
        if (dev < 64)
            __atomic_store_n(&known[dev], v, __ATOMIC_RELAXED);
    }
    return v == 1;
}

/* Launches the cluster kernel on csize CTAs of `threads` a row. Returns
 * -1 (nothing launched) when the GPU cannot place such a cluster, else the
 * launch's error. Sizes above 8 are non-portable: allowed per function and
 * checked with the occupancy query (once per device and size). */
template <typename T, int K>
static int norm_launch_cluster(const norm_params &p, int csize, int threads, cudaStream_t s)
{
    void (*const kern)(norm_params) =
        p.vec ? norm_cluster_kernel<T, K, norm_cluster_v<T>(1), 1> : norm_cluster_kernel<T, K, norm_cluster_v<T>(0), 0>;
    static unsigned long long nonportable_done[2];
    static signed char placeable[2][64][NORM_CLUSTER_MAX + 1]; /* [vec][dev][csize]: 0 unknown, 1 yes, -1 no */
    cudaLaunchAttribute attr;
    attr.id = cudaLaunchAttributeClusterDimension;
    attr.val.clusterDim = {(unsigned)csize, 1u, 1u};
    /* grid, block, dynamic shared memory, stream, attributes */
    cudaLaunchConfig_t cfg = {dim3((unsigned)(norm_blocks(p.rows, 1) * csize)), dim3((unsigned)threads), 0, s, &attr, 1};
    if (csize > NORM_CLUSTER_PORTABLE) {
        int rc = smem_func_attr_once((const void *)kern, cudaFuncAttributeNonPortableClusterSizeAllowed, 1,
                                     &nonportable_done[p.vec ? 1 : 0]);
        if (rc != 0)
            return rc;
        int dev = 0;
        if (cudaGetDevice(&dev) != cudaSuccess)
            return (int)cudaGetLastError();
        signed char ok = dev < 64 ? placeable[p.vec ? 1 : 0][dev][csize] : 0;
        if (ok == 0) {
            int n = 0;
            const cudaError_t e = cudaOccupancyMaxActiveClusters(&n, (const void *)kern, &cfg);
            (void)cudaGetLastError();
            ok = e == cudaSuccess && n > 0 ? 1 : -1;
            if (dev < 64)
                placeable[p.vec ? 1 : 0][dev][csize] = ok;
        }
        if (ok < 0)
            return -1;
    }
    return (int)cudaLaunchKernelEx(&cfg, kern, p);
}

/* The cluster rung: CL = max(min_csize, ceil(nvec / per-CTA vectors))
 * CTAs (512 threads x norm_cluster_v vectors), each of the power of two threads (32..512) that covers its part. A
 * row too long, or a cluster the GPU cannot place, runs the block rung with
 * a note. */
template <typename T, int K>
static int norm_run_cluster(const norm_params &p, int min_csize, cudaStream_t s)
{
    constexpr int VEC = 16 / (int)sizeof(T);
    const long long nvec = (p.cols + VEC - 1) / VEC, v = norm_cluster_v<T>(p.vec);
    long long csize = (nvec + NORM_CLUSTER_THREADS * v - 1) / (NORM_CLUSTER_THREADS * v);
    if (csize < min_csize)
        csize = min_csize;
    if (csize > NORM_CLUSTER_MAX)
        return norm_run_block<T, K>(p, s, NORM_WHY_LONG);
    int threads = norm_pow2_at_least((nvec + csize * v - 1) / (csize * v));
    threads = threads < 32 ? 32 : (threads > NORM_CLUSTER_THREADS ? NORM_CLUSTER_THREADS : threads);
    const int rc = norm_launch_cluster<T, K>(p, (int)csize, threads, s);
    if (rc < 0)
        return norm_run_block<T, K>(p, s, NORM_WHY_PLACE);
    if (rc != 0)
        return rc;
    return norm_launched(K, NORM_KN_CLUSTER, norm_why(p, NULL));
}

/* fused: the dispatch by row length explained in the header (the scalar
 * path's forms hold at most NORM_SCALAR_V vectors a thread) */
template <typename T, int K> static int norm_run_fused(const norm_params &p, cudaStream_t s)
{
    constexpr int VEC = 16 / (int)sizeof(T);
    const long long nvec = (p.cols + VEC - 1) / VEC;
    const int warp_v = p.vec ? NORM_WARP_V_MAX : NORM_SCALAR_V;
    if (nvec <= 32 * warp_v) {
        const long long per_lane = (nvec + 31) / 32;
        if (per_lane <= 1)
            return norm_run_fused_warp<T, K, 1>(p, s);
        if (per_lane <= 2)
            return norm_run_fused_warp<T, K, 2>(p, s);
        if (per_lane <= 4)
            return norm_run_fused_warp<T, K, 4>(p, s);
        return norm_run_fused_warp<T, K, 8>(p, s);
    }
    const bool block_fits = nvec <= NORM_BLOCK_MAX_THREADS * NORM_FUSED_BLOCK_V;
    const long long cta_vecs = (long long)NORM_CLUSTER_THREADS * norm_cluster_v<T>(p.vec);
    if (block_fits && nvec < NORM_FUSED_CLUSTER_MIN_VECS)
        return norm_run_fused_block<T, K, NORM_FUSED_BLOCK_V>(
            p, norm_pow2_at_least((nvec + NORM_FUSED_BLOCK_V - 1) / NORM_FUSED_BLOCK_V), s);
    if (nvec >= NORM_FUSED_CLUSTER_MIN_VECS && nvec <= NORM_CLUSTER_MAX * cta_vecs && norm_cluster_available<T, K>()) {
        const long long csize = (nvec + cta_vecs - 1) / cta_vecs;
        const int rc = norm_launch_cluster<T, K>(p, csize < 2 ? 2 : (int)csize, NORM_CLUSTER_THREADS, s);
        if (rc == 0)
            return norm_launched(K, NORM_KN_CLUSTER, norm_why(p, NULL));
        if (rc > 0)
            return rc;
    }
    /* no cluster here (not sm_90, or not placed): the block form where it holds the row */
    if (block_fits)
        return norm_run_fused_block<T, K, NORM_FUSED_BLOCK_V>(
            p, norm_pow2_at_least((nvec + NORM_FUSED_BLOCK_V - 1) / NORM_FUSED_BLOCK_V), s);
    if (p.vec && nvec <= (long long)NORM_BLOCK_MAX_THREADS * NORM_BIG_V)
        return norm_run_fused_block<T, K, NORM_BIG_V>(p, NORM_BLOCK_MAX_THREADS, s);
    const char *why = !norm_cluster_available<T, K>()        ? NORM_WHY_NOCLUSTER
                      : nvec > NORM_CLUSTER_MAX * cta_vecs ? NORM_WHY_LONG
                                                           : NORM_WHY_PLACE;
    return norm_run_block<T, K>(p, s, why);
}

template <typename T, int K> static int norm_run(int rung, const norm_params &p, cudaStream_t s)
{
    switch (rung) {
    case NORM_NAIVE:
        return norm_run_naive<T, K>(p, s);
    case NORM_WARP:
        return norm_run_warp<T, K>(p, s);
    case NORM_BLOCK:
        return norm_run_block<T, K>(p, s, NULL);
    case NORM_FUSED:
        return norm_run_fused<T, K>(p, s);
    default:
        if (!norm_cluster_available<T, K>())
            return (int)cudaErrorNotSupported;
        return norm_run_cluster<T, K>(p, 2, s);
    }
}

/* Checks the arguments, sets up the kernels' parameters, dispatches on the type. */
template <int K> static int norm_launch(int rung, const rowwise_args *a, cudaStream_t s)
{
    const int bytes = a ? elem_type_bytes(a->type) : 0;
    if (!a || a->rows < 1 || a->cols < 1 || !a->x || !a->y || !a->weight || (K == NORM_LAYER && !a->bias) ||
        (a->type != ELEM_FP32 && a->type != ELEM_FP16 && a->type != ELEM_BF16))
        return (int)cudaErrorInvalidValue;
    norm_params p;
    p.x = a->x;
    p.y = a->y;
    p.w = a->weight;
    p.b = K == NORM_LAYER ? a->bias : NULL;
    p.rows = a->rows;
    p.cols = a->cols;
    p.eps = a->eps;
    p.vec = (a->cols * bytes) % 16 == 0 && norm_aligned16(a->x) && norm_aligned16(a->y) && norm_aligned16(a->weight) &&
            (p.b == NULL || norm_aligned16(p.b));
    switch (a->type) {
    case ELEM_FP32:
        return norm_run<float, K>(rung, p, s);
    case ELEM_FP16:
        return norm_run<__half, K>(rung, p, s);
    default:
        return norm_run<__nv_bfloat16, K>(rung, p, s);
    }
}

/* The five extern "C" launchers of one norm (PREFIX_naive ... PREFIX_cluster,
 * declared in norms.h): one line each, so that rmsnorm.cu and layernorm.cu
 * differ only in the norm they instantiate. */
#define NORM_DEFINE_LAUNCHERS(PREFIX, K)                                                                  \
    int PREFIX##_naive(const rowwise_args *a, cudaStream_t s) { return norm_launch<K>(NORM_NAIVE, a, s); }     \
    int PREFIX##_warp(const rowwise_args *a, cudaStream_t s) { return norm_launch<K>(NORM_WARP, a, s); }       \
    int PREFIX##_block(const rowwise_args *a, cudaStream_t s) { return norm_launch<K>(NORM_BLOCK, a, s); }     \
    int PREFIX##_fused(const rowwise_args *a, cudaStream_t s) { return norm_launch<K>(NORM_FUSED, a, s); }     \
    int PREFIX##_cluster(const rowwise_args *a, cudaStream_t s) { return norm_launch<K>(NORM_CLUSTER, a, s); }

#endif
