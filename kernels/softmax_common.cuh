/* kernels/softmax_common.cuh: what every softmax kernel shares (the ladder in
 * softmax.cu, the fused pick in softmax_fused.cu, the Hopper cluster form in
 * softmax_cluster.cu).
 *
 *   - element packs: a thread moves VEC elements at a time, VEC = 16 / bytes
 *     (one 16-byte load or store: 4 floats, 8 halves or bf16s) on the vector
 *     path, VEC = 1 on the scalar path; each pack is widened to VEC floats on
 *     load and narrowed (round to nearest even) on store. All arithmetic is
 *     FP32 whatever the storage type. x is read through the read-only path
 *     (ld.global.nc); y is written with streaming stores (st.global.cs):
 *     nothing reads y again, so it should not push x out of L2.
 *   - the vector path is taken only when every pack is 16-byte aligned:
 *     cols * bytes a multiple of 16 (so every row start is) and x, y 16-byte
 *     aligned (softmax_vec_ok); with cols a multiple of VEC no pack straddles
 *     a row end, so the vector loops need no tail.
 *   - exp of every element: exp(x - m) = 2^(x log2 e - m log2 e), the
 *     argument one FMA (m log2 e computed once a row or a pack), the power
 *     the hardware's ex2.approx.ftz.f32 (one MUFU.EX2, relative error a few
 *     ulp; results below FP32's smallest normal number flush to 0): two
 *     instructions an element where libdevice's expf takes about ten, which
 *     made the 2-byte types (twice the elements a byte) instruction-bound.
 *     Its error is what src/core/verify_rowwise.c budgets for exp2 with a
 *     log2(e) scaling: the argument's absolute error is about u32 (|m| +
 *     |x - m|) log2 e (the rounded m log2 e and the FMA's one rounding; the
 *     product x log2 e is exact inside the FMA), the exp's relative error
 *     a few ulp. Too large an x still overflows to inf (the naive rung's
 *     lesson holds). The rare merges of two (max, sum) pairs and the
 *     per-thread scale keep expf. The normalisation multiplies by 1 / sum
 *     (one IEEE division per row, or per thread in the fused kernels), about
 *     one more rounding than dividing every element.
 *   - the (max, sum) pair of the online softmax (Milakov & Gimelshein, 2018,
 *     "Online normalizer calculation for softmax"): two partial pairs merge
 *     as m = max(m1, m2), d = d1 exp(m1 - m) + d2 exp(m2 - m). A pair with
 *     m = -inf is empty (a thread or a CTA that held no element of the row).
 *   - reductions: warp shuffles (xor: every lane ends with the result), then
 *     one value per warp through shared memory; the shared slots are double
 *     buffered by the caller (an iteration's parity), so one __syncthreads()
 *     per block reduction suffices in the row loops: the barrier of row i + 1
 *     orders row i's reads before row i + 2's writes of the same slots.
 *   - the launchers' common checks and the type switch (softmax_by_type).
 *
 * Header-only, included by the three softmax .cu files; everything static. */
#ifndef KERNELS_SOFTMAX_COMMON_CUH
#define KERNELS_SOFTMAX_COMMON_CUH

#include <math.h>
#include <stdint.h>
#include <type_traits>
#include <cuda_runtime.h>
#include <cuda_fp16.h>
#include <cuda_bf16.h>

#include "softmax.h"

#define SOFTMAX_FULL_MASK 0xffffffffu
#define SOFTMAX_MAX_WARPS 32 /* 1024 threads: the largest block any softmax kernel launches */

typedef struct {
    float m; /* running maximum (-inf: empty) */
    float d; /* sum of exp(x - m) */
} softmax_md;

// ---- exp of every element -----------------------------------------------------

#define SOFTMAX_LOG2E 1.4426950408889634f

/* 2^a: ex2.approx.ftz.f32, one MUFU.EX2 (no range reduction, no slow path);
 * -inf gives +0, past 128 gives +inf. */
static __device__ __forceinline__ float softmax_ex2(float a)
{
    float r;
    asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(a));
    return r;
}

/* m log2 e, rounded once (never contracted into a later FMA), so that every
 * use of a shift m sees the same value. */
static __device__ __forceinline__ float softmax_log2e(float m)
{
    return __fmul_rn(m, SOFTMAX_LOG2E);
}

/* exp(x - m) with ml = softmax_log2e(m) (the caller's, once for many x):
 * one FMA and one ex2. x = -inf (a padding element) gives 0; ml must be
 * finite. */
static __device__ __forceinline__ float softmax_exp_shifted(float x, float ml)
{
    return softmax_ex2(fmaf(x, SOFTMAX_LOG2E, -ml));
}

// ---- element packs ------------------------------------------------------------

/* Elements of one 16-byte pack of T. */
template <typename T>
struct softmax_vec {
    static constexpr int n = 16 / (int)sizeof(T);
};

/* A 2-byte element's bits as a float (exact). */
template <typename T>
static __device__ __forceinline__ float softmax_half_to_float(unsigned short b)
{
    if constexpr (std::is_same_v<T, __nv_bfloat16>)
        return __uint_as_float((unsigned)b << 16);
    else
        return __half2float(__ushort_as_half(b));
}

/* Two floats as two 2-byte elements in one word (lo in the low half), rounded
 * to nearest even. */
template <typename T>
static __device__ __forceinline__ unsigned softmax_pack2(float lo, float hi)
{
    if constexpr (std::is_same_v<T, __nv_bfloat16>) {
        __nv_bfloat162 h = __floats2bfloat162_rn(lo, hi);
        return *reinterpret_cast<unsigned *>(&h);
    } else {
        __half2 h = __floats2half2_rn(lo, hi);
        return *reinterpret_cast<unsigned *>(&h);
    }
}

/* VEC elements at p (16-byte aligned when VEC > 1) widened to floats. */
template <typename T, int VEC>
static __device__ __forceinline__ void softmax_load(const T *p, float (&f)[VEC])
{
    if constexpr (VEC == 1) {
        if constexpr (sizeof(T) == 4)
            f[0] = __ldg(reinterpret_cast<const float *>(p));
        else
            f[0] = softmax_half_to_float<T>(__ldg(reinterpret_cast<const unsigned short *>(p)));
    } else {
        static_assert(VEC * sizeof(T) == 16, "a vector pack is one 16-byte load");
        const uint4 u = __ldg(reinterpret_cast<const uint4 *>(p));
        const unsigned w[4] = {u.x, u.y, u.z, u.w};
#pragma unroll
        for (int i = 0; i < 4; i++) {
            if constexpr (sizeof(T) == 4) {
                f[i] = __uint_as_float(w[i]);
            } else {
                f[2 * i] = softmax_half_to_float<T>((unsigned short)(w[i] & 0xffffu));
                f[2 * i + 1] = softmax_half_to_float<T>((unsigned short)(w[i] >> 16));
            }
        }
    }
}

/* VEC floats narrowed to T and stored at p with a streaming store. */
template <typename T, int VEC>
static __device__ __forceinline__ void softmax_store(T *p, const float (&f)[VEC])
{
    if constexpr (VEC == 1) {
        if constexpr (sizeof(T) == 4) {
            __stcs(reinterpret_cast<float *>(p), f[0]);
        } else {
            const unsigned w = softmax_pack2<T>(f[0], 0.0f);
            __stcs(reinterpret_cast<unsigned short *>(p), (unsigned short)(w & 0xffffu));
        }
    } else {
        static_assert(VEC * sizeof(T) == 16, "a vector pack is one 16-byte store");
        unsigned w[4];
#pragma unroll
        for (int i = 0; i < 4; i++) {
            if constexpr (sizeof(T) == 4)
                w[i] = __float_as_uint(f[i]);
            else
                w[i] = softmax_pack2<T>(f[2 * i], f[2 * i + 1]);
        }
        __stcs(reinterpret_cast<uint4 *>(p), make_uint4(w[0], w[1], w[2], w[3]));
    }
}

// ---- the online (max, sum) pair ---------------------------------------------------

static __device__ __forceinline__ softmax_md softmax_md_empty(void)
{
    softmax_md r;
    r.m = -INFINITY;
    r.d = 0.0f;
    return r;
}

static __device__ __forceinline__ softmax_md softmax_md_merge(softmax_md a, softmax_md b)
{
    const float m = fmaxf(a.m, b.m);
    if (m == -INFINITY) /* both empty: exp(-inf - -inf) would be NaN */
        return a;
    softmax_md r;
    r.m = m;
    r.d = a.d * expf(a.m - m) + b.d * expf(b.m - m);
    return r;
}

/* One pack folded into a running pair: one rescale per pack, not per element. */
template <int VEC>
static __device__ __forceinline__ softmax_md softmax_md_add_pack(softmax_md a, const float (&f)[VEC])
{
    float pm = f[0];
#pragma unroll
    for (int i = 1; i < VEC; i++)
        pm = fmaxf(pm, f[i]);
    const float m = fmaxf(a.m, pm);
    const float ml = softmax_log2e(m);
    /* the rescale 2^(a.m log2 e - ml) with a.m log2 e rounded as the old
     * terms' shift was (no FMA contraction): the shifts' roundings then
     * cancel instead of piling up over the rescales; a.m = -inf (empty)
     * gives 0 */
    float d = a.d * softmax_ex2(softmax_log2e(a.m) - ml);
#pragma unroll
    for (int i = 0; i < VEC; i++)
        d += softmax_exp_shifted(f[i], ml);
    softmax_md r;
    r.m = m;
    r.d = d;
    return r;
}

// ---- warp and block reductions ------------------------------------------------------

/* What a reduction combines: floats by max or by sum, or (max, sum) pairs
 * by the online rule. */
enum { SOFTMAX_OP_MAX, SOFTMAX_OP_SUM, SOFTMAX_OP_MD };

static __device__ __forceinline__ float softmax_combine(float a, float b, int op)
{
    return op == SOFTMAX_OP_MAX ? fmaxf(a, b) : a + b;
}

static __device__ __forceinline__ softmax_md softmax_combine(softmax_md a, softmax_md b, int op)
{
    (void)op;
    return softmax_md_merge(a, b);
}

static __device__ __forceinline__ float softmax_shfl_xor(float v, int off)
{
    return __shfl_xor_sync(SOFTMAX_FULL_MASK, v, off);
}

static __device__ __forceinline__ softmax_md softmax_shfl_xor(softmax_md v, int off)
{
    softmax_md o;
    o.m = __shfl_xor_sync(SOFTMAX_FULL_MASK, v.m, off);
    o.d = __shfl_xor_sync(SOFTMAX_FULL_MASK, v.d, off);
    return o;
}

/* The identity of each op: an empty pair, -inf, 0. */
template <int OP, typename V>
static __device__ __forceinline__ V softmax_identity(void)
{
    if constexpr (OP == SOFTMAX_OP_MD)
        return softmax_md_empty();
    else
        return OP == SOFTMAX_OP_MAX ? -INFINITY : 0.0f;
}

/* Warp-wide reduction by xor shuffles: every lane ends with the result. */
template <int OP, typename V>
static __device__ __forceinline__ V softmax_warp_reduce(V v)
{
#pragma unroll
    for (int off = 16; off > 0; off >>= 1)
        v = softmax_combine(v, softmax_shfl_xor(v, off), OP);
    return v;
}

/* Block-wide reduction, the result in every thread: one barrier. s holds
 * SOFTMAX_MAX_WARPS slots that no other thread touches until the block's next
 * barrier (callers alternate two sets by row parity). blockDim.x a multiple
 * of 32. */
template <int OP, typename V>
static __device__ __forceinline__ V softmax_block_reduce(V v, V *s)
{
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, nwarps = blockDim.x >> 5;
    v = softmax_warp_reduce<OP>(v);
    if (lane == 0)
        s[warp] = v;
    __syncthreads();
    return softmax_warp_reduce<OP>(lane < nwarps ? s[lane] : softmax_identity<OP, V>());
}

// ---- streaming passes over a row (the ladder; the cluster form past its registers) -------

/* Each helper walks the npacks packs of one row, thread tid of nthr taking
 * packs tid, tid + nthr, ...; a group of SOFTMAX_STREAM_UNROLL packs is
 * loaded before any is used, so that many loads per thread are in flight. */
#define SOFTMAX_STREAM_UNROLL 4

/* The group at pack i: packs i + u * nthr that exist (< npacks) are loaded,
 * the others hold -inf (whose exp is 0 and which no maximum takes). */
template <typename T, int VEC>
static __device__ __forceinline__ void softmax_stream_group(const T *xr, long long i, long long npacks, int nthr,
                                                            float (&f)[SOFTMAX_STREAM_UNROLL][VEC])
{
#pragma unroll
    for (int u = 0; u < SOFTMAX_STREAM_UNROLL; u++) {
        const long long j = i + (long long)u * nthr;
        if (j < npacks)
            softmax_load<T, VEC>(xr + j * VEC, f[u]);
        else
#pragma unroll
            for (int k = 0; k < VEC; k++)
                f[u][k] = -INFINITY;
    }
}

/* One pass folding the thread's packs into a float: OP = SOFTMAX_OP_MAX the
 * maximum of x, OP = SOFTMAX_OP_SUM the sum of exp(x - shift) (shift = 0:
 * the naive sum of exp(x)). */
template <typename T, int VEC, int OP>
static __device__ __forceinline__ float softmax_stream_fold(const T *xr, long long npacks, float shift, int tid,
                                                            int nthr)
{
    float acc = softmax_identity<OP, float>();
    const float ml = softmax_log2e(shift);
    for (long long i = tid; i < npacks; i += (long long)SOFTMAX_STREAM_UNROLL * nthr) {
        float f[SOFTMAX_STREAM_UNROLL][VEC];
        softmax_stream_group<T, VEC>(xr, i, npacks, nthr, f);
#pragma unroll
        for (int u = 0; u < SOFTMAX_STREAM_UNROLL; u++)
#pragma unroll
            for (int k = 0; k < VEC; k++)
                acc = OP == SOFTMAX_OP_MAX ? fmaxf(acc, f[u][k]) : acc + softmax_exp_shifted(f[u][k], ml);
    }
    return acc;
}

/* the running (max, sum) pair over the thread's packs, in one pass */
template <typename T, int VEC>
static __device__ __forceinline__ softmax_md softmax_stream_md(const T *xr, long long npacks, int tid, int nthr)
{
    softmax_md md = softmax_md_empty();
    for (long long i = tid; i < npacks; i += (long long)SOFTMAX_STREAM_UNROLL * nthr) {
        float f[SOFTMAX_STREAM_UNROLL][VEC];
        softmax_stream_group<T, VEC>(xr, i, npacks, nthr, f);
#pragma unroll
        for (int u = 0; u < SOFTMAX_STREAM_UNROLL; u++)
            if (i + (long long)u * nthr < npacks) /* an all -inf pack on an empty pair would give NaN */
                md = softmax_md_add_pack<VEC>(md, f[u]);
    }
    return md;
}

/* y = exp(x - m) * inv over the thread's packs */
template <typename T, int VEC>
static __device__ __forceinline__ void softmax_stream_write(const T *xr, T *yr, long long npacks, float m,
                                                            float inv, int tid, int nthr)
{
    const float ml = softmax_log2e(m);
    for (long long i = tid; i < npacks; i += (long long)SOFTMAX_STREAM_UNROLL * nthr) {
        float f[SOFTMAX_STREAM_UNROLL][VEC];
        softmax_stream_group<T, VEC>(xr, i, npacks, nthr, f);
#pragma unroll
        for (int u = 0; u < SOFTMAX_STREAM_UNROLL; u++) {
            const long long j = i + (long long)u * nthr;
            if (j < npacks) {
#pragma unroll
                for (int k = 0; k < VEC; k++)
                    f[u][k] = softmax_exp_shifted(f[u][k], ml) * inv;
                softmax_store<T, VEC>(yr + j * VEC, f[u]);
            }
        }
    }
}

// ---- a row slice held in registers (the fused warp and block kernels, the cluster form) ----

/* Packs of [p0, p1) that thread tid of nthr holds (p0 + q * nthr + tid for
 * q < the count): an int, so that the per-pack predicates below are cheap
 * compares against one register, not 64-bit indices kept per pack. */
static __device__ __forceinline__ int softmax_regs_count(long long p0, long long p1, int tid, int nthr)
{
    const long long left = p1 - p0 - tid;
    return left <= 0 ? 0 : (int)((left + nthr - 1) / nthr);
}

/* Thread tid of nthr holds packs p0 + q * nthr + tid (q < NP) of [p0, p1):
 * all its loads are issued first (NP loads in flight per thread), then e[q]
 * = exp(x - m_t) with m_t the thread's own maximum; returns the thread's
 * pair (m_t, sum of its e). Packs past p1 are not loaded: they hold -inf,
 * whose exp is 0 (a thread with no pack skips the exps: its pair is empty). */
template <typename T, int VEC, int NP>
static __device__ __forceinline__ softmax_md softmax_regs_load(const T *xr, long long p0, long long p1, int tid,
                                                               int nthr, float (&e)[NP][VEC])
{
    const int have = softmax_regs_count(p0, p1, tid, nthr);
    const T *p = xr + (p0 + tid) * VEC;
    const long long stride = (long long)nthr * VEC;
#pragma unroll
    for (int q = 0; q < NP; q++) {
        if (q < have)
            softmax_load<T, VEC>(p + q * stride, e[q]);
        else
#pragma unroll
            for (int k = 0; k < VEC; k++)
                e[q][k] = -INFINITY;
    }
    softmax_md r = softmax_md_empty();
    if (have == 0)
        return r;
    float m = -INFINITY;
#pragma unroll
    for (int q = 0; q < NP; q++)
#pragma unroll
        for (int k = 0; k < VEC; k++)
            m = fmaxf(m, e[q][k]);
    const float ml = softmax_log2e(m);
    float d = 0.0f;
#pragma unroll
    for (int q = 0; q < NP; q++)
#pragma unroll
        for (int k = 0; k < VEC; k++) {
            e[q][k] = softmax_exp_shifted(e[q][k], ml);
            d += e[q][k];
        }
    r.m = m;
    r.d = d;
    return r;
}

/* y = e * scale for the packs softmax_regs_load filled; scale = exp(m_t - M)
 * / D turns the thread's exp(x - m_t) into exp(x - M) / D. */
template <typename T, int VEC, int NP>
static __device__ __forceinline__ void softmax_regs_store(T *yr, long long p0, long long p1, int tid, int nthr,
                                                          float (&e)[NP][VEC], float scale)
{
    const int have = softmax_regs_count(p0, p1, tid, nthr);
    T *p = yr + (p0 + tid) * VEC;
    const long long stride = (long long)nthr * VEC;
#pragma unroll
    for (int q = 0; q < NP; q++) {
        if (q < have) {
#pragma unroll
            for (int k = 0; k < VEC; k++)
                e[q][k] *= scale;
            softmax_store<T, VEC>(p + q * stride, e[q]);
        }
    }
}

/* The scale of a thread whose pair is own, in a row whose pair is all. */
static __device__ __forceinline__ float softmax_regs_scale(softmax_md own, softmax_md all)
{
    return expf(own.m - all.m) / all.d;
}

/* Floats a thread holds for a slice of `elems` elements in registers (the
 * fused block kernel, the cluster form). A thread's registers are the floats
 * it holds plus a fixed overhead (indices, pointers, the pair), so 32 floats
 * a thread hold the most data per register: the most bytes per SM when
 * registers limit the CTAs an SM takes (every load of a CTA is issued before
 * any is used: the bytes held are the bytes in flight). Short slices take 8
 * or 16 so that the CTA still has a few warps. 0: more than
 * SOFTMAX_REGS_MAX_ELEMS (1024 threads x 32 floats), not held. */
#define SOFTMAX_REGS_MAX_ELEMS (1024 * 32)
static inline int softmax_regs_floats(long long elems)
{
    return elems <= 1024 ? 8 : elems < 2048 ? 16 : elems <= SOFTMAX_REGS_MAX_ELEMS ? 32 : 0;
}

// ---- host side: checks, the type switch, device facts ------------------------------------

typedef int (*softmax_typed_run)(const rowwise_args *a, cudaStream_t s);

/* The checks every launcher makes, then the run of a's element type:
 * cudaErrorInvalidValue (nothing launched) for rows or cols < 1, null
 * pointers or a type other than fp32, fp16, bf16. */
static inline int softmax_by_type(const rowwise_args *a, cudaStream_t s, softmax_typed_run f32,
                                  softmax_typed_run f16, softmax_typed_run bf16)
{
    if (a == NULL || a->x == NULL || a->y == NULL || a->rows < 1 || a->cols < 1)
        return (int)cudaErrorInvalidValue;
    switch (a->type) {
    case ELEM_FP32: return f32(a, s);
    case ELEM_FP16: return f16(a, s);
    case ELEM_BF16: return bf16(a, s);
    default: return (int)cudaErrorInvalidValue;
    }
}

/* 1 when the 16-byte vector path applies to a (every row start and both
 * bases 16-byte aligned). */
static inline int softmax_vec_ok(const rowwise_args *a)
{
    const long long bytes = elem_type_bytes(a->type);
    return (a->cols * bytes) % 16 == 0 && ((uintptr_t)a->x & 15u) == 0 && ((uintptr_t)a->y & 15u) == 0;
}

/* A grid of `want` blocks, capped at the hardware's limit of gridDim.x (the
 * kernels stride over what is left). */
static inline unsigned softmax_grid(long long want)
{
    const long long cap = 0x7fffffffLL;
    return (unsigned)(want < 1 ? 1 : want > cap ? cap : want);
}

/* SMs of the current device (the runtime answers from its cache). */
static inline int softmax_sm_count(int *sms)
{
    int dev = 0;
    cudaError_t e = cudaGetDevice(&dev);
    if (e == cudaSuccess)
        e = cudaDeviceGetAttribute(sms, cudaDevAttrMultiProcessorCount, dev);
    return (int)e;
}

static inline long long softmax_round_up(long long v, long long m)
{
    return (v + m - 1) / m * m;
}

// ---- what softmax_fused borrows from softmax_cluster.cu --------------------------------

#ifdef __cplusplus
extern "C" {
#endif
/* 1 when the cluster form runs here: the policy is sm_90 or later
 * (policy_arch_current) and the cluster kernel was compiled for sm_90, not
 * from compute_80 PTX (where its body is a trap). */
int softmax_cluster_available(void);
/* The cluster form on a (softmax_cluster_available() must be 1: the caller
 * checks), the cluster size chosen from cols and, where rows are few
 * against `sms`, grown to fill the GPU. Notes the kernel it ran. */
int softmax_cluster_run(const rowwise_args *a, cudaStream_t s, int sms);
#ifdef __cplusplus
}
#endif

#endif
