/* kernels/gemm_mma_core.cuh: the tensor-core core that the mma.sync rungs of
 * the low-precision GEMM share (gemm_mma.cu: register prefetch, two shared
 * stages; gemm_multistage.cu: a cp.async ring of stages). One home for the
 * parts that do not differ between them:
 *
 *  - the swizzled shared-memory layout of a tile: rows of 16-byte chunks
 *    (8 fp16/bf16 or 16 fp8 elements), the chunk column XORed with bits of
 *    the row so that the 8 rows one ldmatrix phase reads (16 bytes each, one
 *    chunk column) land in 8 different 16-byte bank groups: no bank
 *    conflicts on the reads, and 16-byte stores stay whole. The index
 *    arithmetic (swizzle, lane addressing, C fragment) is plain C in
 *    gemm_mma_layout.cuh, counted in chunks; gemm_mma_at alone turns a chunk
 *    into an address, in the pointer's own element size;
 *  - the global loads of a tile (16-byte chunks when the rows are 16-byte
 *    aligned, element by element otherwise), zero-filled past m, n, k, so
 *    edge tiles need no other branch and the MMAs see zeros;
 *  - the warp's MMAs: mma.sync.aligned.m16n8k16 for fp16 / bf16, m16n8k32
 *    for fp8 e4m3 (FP32 accumulators), fed by ldmatrix.x4 (A: 16 rows x 32
 *    bytes of k; B K-major ("tn"): plain ldmatrix of its n x k rows; B
 *    N-major ("nn"): ldmatrix.trans of its k x n rows, 16-bit types only:
 *    ldmatrix has no 8-bit transpose). Both MMA shapes read their operands
 *    as 8 x 16-byte matrices in the same order, so one addressing serves;
 *  - the epilogue: FP32 accumulators rounded to C's type (fp16 or bf16;
 *    bf16 for fp8), stored with predicates.
 *
 * Tile parameters are compile-time (template) values; the launchers are
 * extern "C" in the .cu files. Needs sm_80 (mma.sync bf16, ldmatrix,
 * cp.async); the fp8 MMA needs sm_89 and code built for it: the
 * instruction is compiled only where __CUDA_ARCH__ >= 890 (the compute_80
 * PTX and the sm_80 code hold a trap instead), and gemm_mma_fp8_runs
 * declines fp8 unless the device is cc 8.9+ and the kernel's code was built
 * for sm_89+ (its PTX version).
 *
 * The fp8 fault (cudaErrorMisalignedAddress at every fp8 shape tried on
 * the H200, a sticky error): the swizzle returned an element offset of
 * "chunk x 8", right for 2-byte elements only. For fp8 (1-byte elements)
 * chunk j began 8 j bytes into the tile, so every odd chunk started in the
 * middle of a 16-byte unit: the 16-byte cp.async and st.shared.v4 of the
 * tile copies and ldmatrix's 16-byte row reads were misaligned (and the
 * chunks overlapped). Now the swizzle counts chunks and gemm_mma_at scales
 * them by 16 / sizeof(T) (fp16 / bf16 keep the offsets they had). The rest of the fp8
 * path checks out against the PTX ISA: m16n8k32 e4m3 numbers its A
 * registers (rows g and g + 8, k bytes 4 t.. of each 16-byte half) and B
 * registers (n = g, the two 16-byte halves of k) exactly as m16n8k16 f16
 * numbers its 2-byte pairs, so one ldmatrix addressing serves both, and its
 * C fragment is the same (tests/test_gemm_mma_layout.c simulates both). */
#ifndef KERNELS_GEMM_MMA_CORE_CUH
#define KERNELS_GEMM_MMA_CORE_CUH

#include <stdio.h>

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>
#include <cuda_runtime.h>

#include "cp_async.cuh"
#include "gemm_lowp.h"
#include "gemm_mma_layout.cuh"
#include "kernel_ran.h"
#include "policy.h"
#include "smem.cuh"
#include "tile_order.cuh"

#define GEMM_MMA_GROUP 8 /* tile rows per group of the grouped tile order (tile_order.cuh) */

// ---- the element types -------------------------------------------------------

/* mma.sync.aligned of shape SH (m16n8k16, m16n8k32) and input type TY
 * (f16, bf16, e4m3), FP32 in and out */
#define GEMM_MMA_SYNC(SH, TY, c, a, b)                                                                         \
    asm("mma.sync.aligned." SH ".row.col.f32." TY "." TY ".f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "       \
        "{%0,%1,%2,%3};\n"                                                                                    \
        : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])                                                     \
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]))

/* The rounding of FP32 results to C's type: one value, or a pair packed in
 * 32 bits. */
template <typename TC> struct gemm_mma_out;
template <> struct gemm_mma_out<__half> {
    static __device__ __forceinline__ unsigned pack(float lo, float hi)
    {
        __half2 h = __floats2half2_rn(lo, hi);
        return *(unsigned *)&h;
    }
    static __device__ __forceinline__ __half one(float x) { return __float2half_rn(x); }
};
template <> struct gemm_mma_out<__nv_bfloat16> {
    static __device__ __forceinline__ unsigned pack(float lo, float hi)
    {
        __nv_bfloat162 h = __floats2bfloat162_rn(lo, hi);
        return *(unsigned *)&h;
    }
    static __device__ __forceinline__ __nv_bfloat16 one(float x) { return __float2bfloat16_rn(x); }
};

/* An input type: its MMA (k of 32 bytes: 16 elements of 2 bytes, 32 of 1),
 * C's type and the unsigned type of its bits. */
template <typename T> struct gemm_mma_elem;
template <> struct gemm_mma_elem<__half> {
    typedef __half out;
    typedef unsigned short bits;
    static __device__ __forceinline__ void mma(float c[4], const unsigned a[4], const unsigned b[2])
    {
        GEMM_MMA_SYNC("m16n8k16", "f16", c, a, b);
    }
};
template <> struct gemm_mma_elem<__nv_bfloat16> {
    typedef __nv_bfloat16 out;
    typedef unsigned short bits;
    static __device__ __forceinline__ void mma(float c[4], const unsigned a[4], const unsigned b[2])
    {
        GEMM_MMA_SYNC("m16n8k16", "bf16", c, a, b);
    }
};
template <> struct gemm_mma_elem<__nv_fp8_e4m3> {
    typedef __nv_bfloat16 out;
    typedef unsigned char bits;
    static __device__ __forceinline__ void mma(float c[4], const unsigned a[4], const unsigned b[2])
    {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 890
        GEMM_MMA_SYNC("m16n8k32", "e4m3", c, a, b);
#else
        (void)c; (void)a; (void)b;
        __trap(); /* never launched: gemm_mma_fp8_runs declines code built below sm_89 */
#endif
    }
};

// ---- the swizzled tile layout --------------------------------------------------

/* The element offset of chunk column c of row r in a tile of rows of CPR
 * chunks, for 16-bit elements (8 a chunk): attention's tiles
 * (kernels/attention_fa2.cu). The GEMM core takes gemm_mma_at instead, for
 * any element size. */
template <int CPR>
static __device__ __forceinline__ int gemm_mma_swz(int r, int c)
{
    static_assert(CPR == 4 || CPR >= 8, "rows of 4 or of 8+ chunks");
    return gemm_mma_elem_offset(2, CPR, r, c);
}

/* The address of chunk column c of row r in the tile at s, counted in s's
 * own elements (gemm_mma_elem_offset: 16 / sizeof(T) to a chunk), so that
 * each chunk starts on a 16-byte boundary whatever the element size */
template <int CPR, typename T>
static __device__ __forceinline__ T *gemm_mma_at(T *s, int r, int c)
{
    static_assert(CPR == 4 || CPR >= 8, "rows of 4 or of 8+ chunks");
    static_assert(16 % sizeof(T) == 0, "whole elements in a 16-byte chunk");
    return s + gemm_mma_elem_offset((int)sizeof(T), CPR, r, c);
}

// ---- global loads ------------------------------------------------------------------

/* A tile of R rows x CPR chunks of a row-major matrix g (leading dimension
 * ld, `rows` x `cols` in all), its origin at (row0, col0); NT threads load
 * it, chunk i = tid + j NT. VEC: cols % EPC == 0 and g 16-byte aligned, so a
 * chunk lies wholly inside or wholly outside; else element by element. */
template <typename T, int R, int CPR, int NT, bool VEC>
struct gemm_mma_tile {
    static_assert((R * CPR) % NT == 0, "whole chunks per thread");
    enum { PER = R * CPR / NT, EPC = 16 / (int)sizeof(T) };
    typedef typename gemm_mma_elem<T>::bits bits;

    /* chunk j of this thread into v (zeros outside the matrix) */
    static __device__ __forceinline__ uint4 fetch(const T *g, long long ld, int rows, int cols, int row0, int col0,
                                                  int tid, int j)
    {
        const int i = tid + j * NT, r = i / CPR, c = i % CPR;
        const int gr = row0 + r, gc = col0 + c * EPC;
        uint4 v = make_uint4(0, 0, 0, 0);
        if (VEC) {
            if (gr < rows && gc < cols) v = *(const uint4 *)(g + (long long)gr * ld + gc);
        } else if (gr < rows) {
            unsigned w[4] = {0, 0, 0, 0};
            const bits *p = (const bits *)(g + (long long)gr * ld);
#pragma unroll
            for (int q = 0; q < EPC; q++)
                if (gc + q < cols)
                    w[q * (int)sizeof(T) / 4] |= (unsigned)p[gc + q] << (8 * ((q * (int)sizeof(T)) % 4));
            v = make_uint4(w[0], w[1], w[2], w[3]);
        }
        return v;
    }

    static __device__ __forceinline__ void store(T *s, int tid, int j, uint4 v)
    {
        const int i = tid + j * NT;
        *(uint4 *)gemm_mma_at<CPR>(s, i / CPR, i % CPR) = v;
    }

    /* the whole tile straight to shared memory: cp.async (zero-fill) on the
     * VEC path, loads and stores through registers otherwise */
    static __device__ __forceinline__ void copy(T *s, const T *g, long long ld, int rows, int cols, int row0,
                                                int col0, int tid)
    {
#pragma unroll
        for (int j = 0; j < PER; j++) {
            if (VEC) {
                const int i = tid + j * NT, r = i / CPR, c = i % CPR;
                const int gr = row0 + r, gc = col0 + c * EPC;
                const bool in = gr < rows && gc < cols;
                cp_async16(gemm_mma_at<CPR>(s, r, c),
                           in ? (const void *)(g + (long long)gr * ld + gc) : (const void *)g, in ? 16 : 0);
            } else {
                store(s, tid, j, fetch(g, ld, rows, cols, row0, col0, tid, j));
            }
        }
    }
};

// ---- the warp's MMAs -------------------------------------------------------------

static __device__ __forceinline__ void gemm_mma_ldsm_x4(unsigned r[4], const void *p)
{
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(smem_u32(p)));
}

static __device__ __forceinline__ void gemm_mma_ldsm_x4_trans(unsigned r[4], const void *p)
{
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(smem_u32(p)));
}

/* One block tile's shared stage: A BM x BK (k contiguous); B BN x BK (k
 * contiguous, layout tn) or BK x BN (n contiguous, layout nn). A warp owns a
 * WM x WN patch of C at (wm0, wn0) of the block tile: MI x NI fragments of
 * 16 x 8, acc[MI][NI][4]. An MMA takes KS = 32 bytes of k (two chunks). */
template <typename T, int BM, int BN, int BK, int WM, int WN, bool BKM>
struct gemm_mma_warp {
    enum {
        EPC = 16 / (int)sizeof(T),
        KS = 2 * EPC,
        MI = WM / 16,
        NI = WN / 8,
        CPR_A = BK / EPC,
        CPR_B = BKM ? BK / EPC : BN / EPC
    };
    typedef typename gemm_mma_elem<T>::out TC;
    static_assert(WM % 16 == 0 && WN % 16 == 0 && BK % KS == 0, "warp tile of 16 x 16 x KS steps");
    static_assert(BKM || sizeof(T) == 2, "layout nn (ldmatrix.trans) for 16-bit types only");

    static __device__ __forceinline__ void zero(float (&acc)[MI][NI][4])
    {
#pragma unroll
        for (int i = 0; i < MI; i++)
#pragma unroll
            for (int j = 0; j < NI; j++)
#pragma unroll
                for (int q = 0; q < 4; q++) acc[i][j][q] = 0.0f;
    }

    /* the MMAs of k step kk (KS elements) of the stage */
    static __device__ __forceinline__ void step(float (&acc)[MI][NI][4], const T *sA, const T *sB, int wm0, int wn0,
                                                int lane, int kk)
    {
        unsigned a[MI][4];
        int ar, ac, br, bc; /* this lane's ldmatrix row and chunk in a fragment (gemm_mma_layout.cuh) */
        gemm_mma_lane_a(lane, &ar, &ac);
        gemm_mma_lane_b(lane, &br, &bc);
#pragma unroll
        for (int mi = 0; mi < MI; mi++) /* k step kk is chunks 2 kk and 2 kk + 1 (32 bytes) */
            gemm_mma_ldsm_x4(a[mi], gemm_mma_at<CPR_A>(sA, wm0 + mi * 16 + ar, kk * 2 + ac));
#pragma unroll
        for (int p = 0; p < NI / 2; p++) {
            /* two n8 fragments at once (n wn0 + 16 p ..), used at once, so only 4 B registers live */
            unsigned t[4];
            if (BKM) {
                gemm_mma_ldsm_x4(t, gemm_mma_at<CPR_B>(sB, wn0 + p * 16 + br, kk * 2 + bc));
            } else {
                /* 16-bit types: matrix q = lane / 8 is (k 0-7, n chunk 0), (k 8-15, n chunk 0), (k 0-7,
                 * chunk 1), (k 8-15, chunk 1), transposed */
                const int q = lane >> 3, r = lane & 7;
                gemm_mma_ldsm_x4_trans(
                    t, gemm_mma_at<CPR_B>(sB, kk * KS + (q & 1) * 8 + r, (wn0 + p * 16) / EPC + (q >> 1)));
            }
#pragma unroll
            for (int mi = 0; mi < MI; mi++) {
                gemm_mma_elem<T>::mma(acc[mi][2 * p], a[mi], t);
                gemm_mma_elem<T>::mma(acc[mi][2 * p + 1], a[mi], t + 2);
            }
        }
    }

    /* the stage's k steps; for 8-bit types not unrolled (with 64 x 64 warp
     * tiles the unrolled fp8 steps spill) */
    static __device__ __forceinline__ void compute(float (&acc)[MI][NI][4], const T *sA, const T *sB, int wm0, int wn0,
                                                   int lane)
    {
        if (sizeof(T) == 1) {
#pragma unroll 1
            for (int kk = 0; kk < BK / KS; kk++) step(acc, sA, sB, wm0, wn0, lane, kk);
        } else {
#pragma unroll
            for (int kk = 0; kk < BK / KS; kk++) step(acc, sA, sB, wm0, wn0, lane, kk);
        }
    }

    /* C (m x n, row-major) at the warp's patch, whose first element is
     * (row0, col0); pairs (even columns) stored as one 32-bit word when that
     * word is aligned: n even (rows of 4-byte multiples) and C 4-byte aligned */
    static __device__ __forceinline__ void store(const float (&acc)[MI][NI][4], TC *C, int m, int n, int row0,
                                                 int col0, int lane)
    {
        const bool pairs = (n & 1) == 0 && ((size_t)C & 3) == 0;
#pragma unroll
        for (int mi = 0; mi < MI; mi++)
#pragma unroll
            for (int ni = 0; ni < NI; ni++)
#pragma unroll
                for (int h = 0; h < 2; h++) {
                    int r, c;
                    gemm_mma_lane_c(lane, h, &r, &c);
                    r += row0 + mi * 16;
                    c += col0 + ni * 8;
                    if (r >= m || c >= n) continue;
                    TC *p = C + (long long)r * n + c;
                    const float lo = acc[mi][ni][2 * h], hi = acc[mi][ni][2 * h + 1];
                    if (pairs) {
                        *(unsigned *)p = gemm_mma_out<TC>::pack(lo, hi);
                    } else {
                        p[0] = gemm_mma_out<TC>::one(lo);
                        if (c + 1 < n) p[1] = gemm_mma_out<TC>::one(hi);
                    }
                }
    }
};

/* 1 when the operands' rows are 16-byte chunks aligned to 16 bytes (the
 * VEC path): k a multiple of a chunk's elements (8 for fp16 / bf16, 16 for
 * fp8; rows of A, and of B in layout tn), n too in layout nn, the pointers
 * 16-byte aligned. */
static inline int gemm_mma_vec_ok(const gemm_args *g)
{
    const int epc = 16 / elem_type_bytes(g->a_type);
    const int b_ok = g->b_kmajor ? g->k % epc == 0 : g->n % epc == 0;
    return g->k % epc == 0 && b_ok && ((size_t)g->A & 15) == 0 && ((size_t)g->B & 15) == 0;
}

/* Whether the fp8 instance `kern` can run on the current device: code built
 * for sm_89 or later (its PTX version; a compute_80 PTX JIT-compiled on a
 * newer GPU has no FP8 MMA) and a device of cc 8.9 or later. */
static inline int gemm_mma_fp8_runs(const void *kern, const char *rung, char *why, size_t why_len)
{
    cudaFuncAttributes fa;
    int dev = 0, major = 0, minor = 0;
    if (cudaGetDevice(&dev) != cudaSuccess ||
        cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev) != cudaSuccess ||
        cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev) != cudaSuccess ||
        cudaFuncGetAttributes(&fa, kern) != cudaSuccess) {
        (void)cudaGetLastError();
        snprintf(why, why_len, "%s: the device or its fp8 kernel cannot be queried", rung);
        return 0;
    }
    /* the forced mode (COMPARE_POLICY_ARCH) stands for an older GPU: only its sm_90 entry keeps FP8 */
    const int forced_old = policy_arch_forced() && policy_arch_current() != POLICY_ARCH_90;
    if (major * 10 + minor < 89 || fa.ptxVersion < 89 || forced_old) {
        snprintf(why, why_len, "%s: the fp8 MMA (mma.sync m16n8k32 e4m3) needs sm_89+ code on an sm_89+ GPU "
                 "(cc %d.%d, code built for %d%s)", rung, major, minor, fa.ptxVersion,
                 forced_old ? ", COMPARE_POLICY_ARCH forces an older GPU's policy" : "");
        return 0;
    }
    return 1;
}

/* The one decline of both rungs (gemm_lowp.h): types, layout and sizes;
 * fp8_kern: the rung's fp8 instance (gemm_mma_fp8_runs). */
static inline int gemm_mma_supports_common(const char *rung, long long m, long long n, long long k, int a_type,
                                           int b_kmajor, const void *fp8_kern, char *why, size_t why_len)
{
    if (a_type != ELEM_FP16 && a_type != ELEM_BF16 && a_type != ELEM_FP8_E4M3) {
        snprintf(why, why_len, "%s: mma.sync here takes fp16, bf16 and fp8_e4m3 only", rung);
        return 0;
    }
    if (m < 1 || n < 1 || k < 1 || m > 0x7fffffffLL || n > 0x7fffffffLL || k > 0x7fffffffLL) {
        snprintf(why, why_len, "%s: m, n, k must be in [1, 2^31)", rung);
        return 0;
    }
    if (a_type == ELEM_FP8_E4M3 && !b_kmajor) {
        snprintf(why, why_len, "%s: fp8 takes layout tn only (ldmatrix has no 8-bit transpose for a k x n B)", rung);
        return 0;
    }
    /* fp8 (mma.sync m16n8k32 e4m3) needs an sm_89+ GPU and code built for it */
    return a_type != ELEM_FP8_E4M3 || gemm_mma_fp8_runs(fp8_kern, rung, why, why_len);
}

/* A launch the supports query declines (fp8 in layout nn). */
static inline int gemm_mma_declined(const gemm_args *g, cudaStream_t s)
{
    (void)g;
    (void)s;
    return (int)cudaErrorNotSupported;
}

/* A rung's kernel instances: [type: fp16, bf16, fp8_e4m3][b_kmajor][VEC],
 * each LAUNCH<T, BKM, VEC> of the rung's own launch template. */
typedef int (*gemm_mma_launch_fn)(const gemm_args *g, cudaStream_t s);
#define GEMM_MMA_INSTANCES(LAUNCH)                                                                             \
    {{{LAUNCH<__half, false, false>, LAUNCH<__half, false, true>},                                            \
      {LAUNCH<__half, true, false>, LAUNCH<__half, true, true>}},                                             \
     {{LAUNCH<__nv_bfloat16, false, false>, LAUNCH<__nv_bfloat16, false, true>},                              \
      {LAUNCH<__nv_bfloat16, true, false>, LAUNCH<__nv_bfloat16, true, true>}},                               \
     {{gemm_mma_declined, gemm_mma_declined},                                                                 \
      {LAUNCH<__nv_fp8_e4m3, true, false>, LAUNCH<__nv_fp8_e4m3, true, true>}}}

/* A rung's launcher body: declines what gemm_mma_supports_common declines
 * or a C type other than the contract's (cudaErrorNotSupported), names the
 * instance it runs (kernel_ran_note: `name`, or `name_elem` with the reason
 * on the element-load path) and runs it. */
static inline int gemm_mma_run(const gemm_args *g, cudaStream_t s, const char *rung,
                               const gemm_mma_launch_fn (*inst)[2][2], const void *fp8_kern, const char *name,
                               const char *name_elem)
{
    char why[256];
    const elem_type want_c = g->a_type == ELEM_FP8_E4M3 ? ELEM_BF16 : g->a_type;
    if (!gemm_mma_supports_common(rung, g->m, g->n, g->k, g->a_type, g->b_kmajor, fp8_kern, why, sizeof why) ||
        g->c_type != want_c)
        return (int)cudaErrorNotSupported;
    const int vec = gemm_mma_vec_ok(g);
    kernel_ran_note(vec ? name : name_elem,
                    vec ? NULL : "rows not 16-byte aligned chunks (k, or n in layout nn, not a multiple of 16 bytes): "
                                 "element loads");
    const int t = g->a_type == ELEM_FP16 ? 0 : g->a_type == ELEM_BF16 ? 1 : 2;
    return inst[t][g->b_kmajor != 0][vec](g, s);
}

/* A rung's two extern "C" functions of gemm_lowp.h: RUNG_supports and RUNG
 * (over its instance table INST; FP8K its fp8 kernel), noting NAME, or
 * NAME_elem on the element-load path. */
#define GEMM_MMA_ENTRY(RUNG, INST, FP8K, NAME)                                                                 \
    extern "C" int RUNG##_supports(long long m, long long n, long long k, int a_type, int b_kmajor, char *why,  \
                                   size_t why_len)                                                             \
    {                                                                                                          \
        return gemm_mma_supports_common(#RUNG, m, n, k, a_type, b_kmajor, FP8K, why, why_len);                 \
    }                                                                                                          \
    extern "C" int RUNG(const gemm_args *g, cudaStream_t s)                                                    \
    {                                                                                                          \
        return gemm_mma_run(g, s, #RUNG, INST, FP8K, NAME, NAME "_elem");                                      \
    }

#endif
