/* kernels/gemv_common.cuh: what the GEMV kernels share (gemv_warp.cu,
 * gemv_splitk.cu): element conversions, the streaming loads of A, and the
 * core loop, one group of G lanes reading a stretch of one row of A against
 * the same stretch of x and returning each lane's FP32 partial dot product.
 *
 * Traffic: A is read once, straight from HBM, and never again, so its loads
 * skip L1 (ld.global.nc.L1::no_allocate) and ask L2 to fetch 256-byte
 * blocks (.L2::256B: fewer, larger DRAM requests for a pure stream). x is
 * read by every row: its loads go through L1 (__ldg), where the warps of an
 * SM sweeping the same x keep it hot, and L2 holds it for the rest.
 *
 * Bytes in flight: each lane loads GEMV_UNROLL units of each of its R rows
 * of A (and of x, shared by the R rows) a step, and the 16-byte path is
 * software-pipelined: the next step's loads are issued before the current
 * step's FMAs, so a warp always has at least R x GEMV_UNROLL x 512 bytes of
 * A outstanding; with the grids of the kernels, enough warps per SM to
 * cover DRAM latency at full bandwidth.
 *
 * Two paths: VEC, 16-byte loads (4 floats or 8 halves), when A's rows and x
 * start on 16-byte boundaries (the caller checks: k * element bytes a
 * multiple of 16, A and x aligned) and the stretch is whole units; else one
 * element a load, same loop. Accumulation is FP32 (fmaf) whatever the type. */
#ifndef COMPARE_GEMV_COMMON_CUH
#define COMPARE_GEMV_COMMON_CUH

#include <stdint.h>

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include "gemv.h"
#include "gemv_plan.h"

/* the launchers (kernels/gemv.h's contract), for the op file and each other */
extern "C" int gemv_warp(const gemv_args *a, cudaStream_t s);
extern "C" int gemv_splitk(const gemv_args *a, cudaStream_t s);
extern "C" size_t gemv_splitk_scratch_bytes(long long m, long long k, int type);

// ---- elements ------------------------------------------------------------------

static __device__ __forceinline__ float gemv_to_f(float v) { return v; }
static __device__ __forceinline__ float gemv_to_f(__half v) { return __half2float(v); }
static __device__ __forceinline__ float gemv_to_f(__nv_bfloat16 v) { return __bfloat162float(v); }

template <typename T> static __device__ __forceinline__ T gemv_from_f(float v);
template <> __device__ __forceinline__ float gemv_from_f<float>(float v) { return v; }
template <> __device__ __forceinline__ __half gemv_from_f<__half>(float v) { return __float2half_rn(v); }
template <> __device__ __forceinline__ __nv_bfloat16 gemv_from_f<__nv_bfloat16>(float v)
{
    return __float2bfloat16_rn(v);
}

/* acc += the dot product of two 16-byte units of type T */
static __device__ __forceinline__ float gemv_dot16(float acc, uint4 a, uint4 x, float)
{
    acc = fmaf(__uint_as_float(a.x), __uint_as_float(x.x), acc);
    acc = fmaf(__uint_as_float(a.y), __uint_as_float(x.y), acc);
    acc = fmaf(__uint_as_float(a.z), __uint_as_float(x.z), acc);
    return fmaf(__uint_as_float(a.w), __uint_as_float(x.w), acc);
}

static __device__ __forceinline__ float2 gemv_pair(unsigned w, __half)
{
    __half2 h;
    memcpy(&h, &w, 4);
    return __half22float2(h);
}

static __device__ __forceinline__ float2 gemv_pair(unsigned w, __nv_bfloat16)
{
    __nv_bfloat162 h;
    memcpy(&h, &w, 4);
    return __bfloat1622float2(h);
}

template <typename H>
static __device__ __forceinline__ float gemv_dot16(float acc, uint4 a, uint4 x, H tag)
{
    const unsigned aw[4] = {a.x, a.y, a.z, a.w}, xw[4] = {x.x, x.y, x.z, x.w};
#pragma unroll
    for (int i = 0; i < 4; i++) {
        const float2 fa = gemv_pair(aw[i], tag), fx = gemv_pair(xw[i], tag);
        acc = fmaf(fa.x, fx.x, acc);
        acc = fmaf(fa.y, fx.y, acc);
    }
    return acc;
}

// ---- loads ---------------------------------------------------------------------

/* 16 bytes of A: read once, not kept in L1, 256-byte L2 fetches */
static __device__ __forceinline__ uint4 gemv_load_stream(const void *p)
{
    uint4 v;
    asm("ld.global.nc.L1::no_allocate.L2::256B.v4.u32 {%0, %1, %2, %3}, [%4];"
                 : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
                 : "l"(p));
    return v;
}

// ---- the core loop ---------------------------------------------------------------

/* One step of the 16-byte path: GEMV_UNROLL units of each of R rows of A
 * (row r at av + r * ldu) and of x, from unit `base` on, G apart. */
template <int G, int R>
static __device__ __forceinline__ void gemv_load_step(const uint4 *av, long long ldu, const uint4 *xv, long long base,
                                                      uint4 (&ra)[R][GEMV_UNROLL], uint4 (&rx)[GEMV_UNROLL])
{
#pragma unroll
    for (int u = 0; u < GEMV_UNROLL; u++) {
#pragma unroll
        for (int r = 0; r < R; r++) ra[r][u] = gemv_load_stream(av + r * ldu + base + u * G);
        rx[u] = __ldg(xv + base + u * G);
    }
}

template <typename T, int R>
static __device__ __forceinline__ void gemv_fma_step(const uint4 (&ra)[R][GEMV_UNROLL], const uint4 (&rx)[GEMV_UNROLL],
                                                     float (&acc)[R])
{
#pragma unroll
    for (int u = 0; u < GEMV_UNROLL; u++)
#pragma unroll
        for (int r = 0; r < R; r++) acc[r] = gemv_dot16(acc[r], ra[r][u], rx[u], T());
}

/* Lane `lane` (0..G-1) of a group reading R rows, row r at a + r * lda,
 * each a[0..n) . x[0..n): adds its partial sums to acc[0..R). Each x unit
 * loaded serves all R rows (R = 2: half the x traffic, twice the A bytes in
 * flight a lane). VEC: a, lda and x 16-byte aligned, n a multiple of
 * 16 / sizeof(T). */
template <typename T, bool VEC, int G, int R>
static __device__ __forceinline__ void gemv_lane_dot(const T *__restrict__ a, long long lda,
                                                     const T *__restrict__ x, long long n, int lane, float (&acc)[R])
{
    if (VEC) {
        const long long units = n / (16 / (long long)sizeof(T)), ldu = lda / (16 / (long long)sizeof(T));
        const uint4 *av = (const uint4 *)a, *xv = (const uint4 *)x;
        const long long step = (long long)G * GEMV_UNROLL;
        long long base = lane;
        /* whole steps, software-pipelined: the loads of the next step are
         * issued before the FMAs of the current one, so a full step of
         * loads is always in flight (the scheduler would otherwise hold
         * most loads back behind the FMAs that wait on the first) */
        if (base + (long long)(GEMV_UNROLL - 1) * G < units) {
            uint4 ca[R][GEMV_UNROLL], cx[GEMV_UNROLL];
            gemv_load_step<G, R>(av, ldu, xv, base, ca, cx);
            for (base += step; base + (long long)(GEMV_UNROLL - 1) * G < units; base += step) {
                uint4 na[R][GEMV_UNROLL], nx[GEMV_UNROLL];
                gemv_load_step<G, R>(av, ldu, xv, base, na, nx);
                gemv_fma_step<T, R>(ca, cx, acc);
#pragma unroll
                for (int u = 0; u < GEMV_UNROLL; u++) {
                    cx[u] = nx[u];
#pragma unroll
                    for (int r = 0; r < R; r++) ca[r][u] = na[r][u];
                }
            }
            gemv_fma_step<T, R>(ca, cx, acc);
        }
        /* the last, partial step */
        for (; base < units; base += G) {
            const uint4 xu = __ldg(xv + base);
#pragma unroll
            for (int r = 0; r < R; r++) acc[r] = gemv_dot16(acc[r], gemv_load_stream(av + r * ldu + base), xu, T());
        }
    } else {
        /* one element a load: twice the unroll (gemv_unroll), the loads being narrower */
        enum { U = 2 * GEMV_UNROLL };
        long long base = lane;
        for (; base + (long long)(U - 1) * G < n; base += (long long)G * U) {
            float ra[R][U], rx[U];
#pragma unroll
            for (int u = 0; u < U; u++) {
#pragma unroll
                for (int r = 0; r < R; r++) ra[r][u] = gemv_to_f(__ldcs(a + r * lda + base + u * G));
                rx[u] = gemv_to_f(__ldg(x + base + u * G));
            }
#pragma unroll
            for (int u = 0; u < U; u++)
#pragma unroll
                for (int r = 0; r < R; r++) acc[r] = fmaf(ra[r][u], rx[u], acc[r]);
        }
        for (; base < n; base += G) {
            const float xe = gemv_to_f(__ldg(x + base));
#pragma unroll
            for (int r = 0; r < R; r++) acc[r] = fmaf(gemv_to_f(__ldcs(a + r * lda + base)), xe, acc[r]);
        }
    }
}

/* The sum of v over the G lanes of each aligned group of G lanes of a warp
 * (every lane of the group gets it). */
template <int G> static __device__ __forceinline__ float gemv_group_sum(float v)
{
#pragma unroll
    for (int o = G / 2; o > 0; o /= 2) v += __shfl_xor_sync(0xffffffffu, v, o);
    return v;
}

/* Whether A's rows and x allow the 16-byte path. */
static inline bool gemv_vec_ok(const gemv_args *a, int elem_bytes)
{
    return ((uintptr_t)a->A % 16) == 0 && ((uintptr_t)a->x % 16) == 0 && (a->k * elem_bytes) % 16 == 0;
}

#endif
