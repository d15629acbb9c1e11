/* kernels/conv2d_fast_igemm.cu: the multi-channel form of the conv2d ladder's
 * `fast` rung, an implicit GEMM on tensor cores (fp16 / bf16, FP32
 * accumulation); conv2d_fast (kernels/conv2d_fast.cu) calls it for every case
 * that is not single-channel.
 *
 * Idea: a convolution is the GEMM
 *     Y[k][p] = sum_q W[k][q] X[q][p],   q = (c, u, v), p = (n, i, j)
 * of M = c_out rows, N = batch h w columns and a reduction of c_in r r:
 * W is the mask itself (KCRS is row-major M x (c_in r r)), X the input
 * gathered on the fly ("im2col" never written): X[(c, u, v)][(n, i, j)] =
 * x[n][c][i + u - r/2][j + v - r/2], zero outside the image. So:
 *  - a block computes a 64 x 128 tile of Y (64 output channels x 128 output
 *    pixels), 8 warps of 32 x 32 each, with mma.sync.m16n8k16 (bf16 or fp16
 *    inputs, FP32 accumulators);
 *  - per slice of 32 of the reduction, W's 64 x 32 piece and X's 32 x 128
 *    gathered piece are staged in shared memory, both k-contiguous (rows of
 *    32 + 8 elements: the 8 of padding put the 8 rows a fragment load reads
 *    in different banks), and the fragments are read from there as the
 *    PTX ISA lays them out (A: rows g and g + 8, k pairs 2t and 2t + 8; B:
 *    column g, the same k pairs);
 *  - each thread gathers X for one pixel (fixed for the whole reduction:
 *    its (n, i, j) computed once) and 16 values of q, stepping (c, u, v)
 *    incrementally instead of dividing; the next slice's loads are issued
 *    before the current slice's MMAs, into registers, and stored after;
 *  - the epilogue rounds the FP32 accumulators to the type and stores them
 *    with bounds checks (any c_out, any pixel count).
 * fp16 / bf16 at r = 3 or 5 with c_in % 16 == 0 take the tap form instead
 * (kernels/conv2d_fast_tap.cuh, CONV2D_IG_TAP, default 1): the gather above
 * fetches every input element r r times and its index math dominates; there
 * the input tile and its halo are staged once a chunk of channels and every
 * tap is a GEMM against it, shifted. The gathered form stays for every
 * other case (any r, any c_in).
 * fp32 cases run the same GEMM on the FP32 SIMT lanes
 * (kernels/conv2d_fast_igemm_f32.cu): on tensor cores they would run in TF32,
 * another math than the row's (and its tolerance).
 * Constraints: fp16 / bf16 (fp32: see there); batch h w and c_in r r below 2^30; odd r <= CONV2D_MAX_R; sm_80+
 * (mma.sync bf16).
 * Run just this rung: compare --ops conv2d --variants fast --axis c_in=64 --axis c_out=64 ... */
#include "conv2d_common.cuh"

#include <stdio.h>

#include "kernel_ran.h"

#define CONV2D_IG_BM 64      /* output channels a block */
#define CONV2D_IG_BN 128     /* output pixels a block */
#define CONV2D_IG_BK 32      /* reduction slice */
#define CONV2D_IG_PAD 8      /* elements of padding a shared row */
#define CONV2D_IG_THREADS 256
#define CONV2D_IG_LD (CONV2D_IG_BK + CONV2D_IG_PAD)
#define CONV2D_IG_A_PER (CONV2D_IG_BM * CONV2D_IG_BK / CONV2D_IG_THREADS) /* W elements a thread stages */
#define CONV2D_IG_B_PER (CONV2D_IG_BN * CONV2D_IG_BK / CONV2D_IG_THREADS) /* X elements a thread stages */

/* the MMA of the type: D = A B + D, m16n8k16, FP32 accumulators */
template <typename T> struct conv2d_ig_mma;
template <> struct conv2d_ig_mma<__half> {
    static __device__ __forceinline__ void run(float (&d)[4], const unsigned (&a)[4], const unsigned (&b)[2])
    {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
        asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
                     "{%0,%1,%2,%3};"
                     : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                     : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
#endif
    }
};
template <> struct conv2d_ig_mma<__nv_bfloat16> {
    static __device__ __forceinline__ void run(float (&d)[4], const unsigned (&a)[4], const unsigned (&b)[2])
    {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
        asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
                     "{%0,%1,%2,%3};"
                     : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                     : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
#endif
    }
};

/* two adjacent 16-bit elements of shared memory as one register (the lower
 * index in the low half, as the MMA's fragments hold them) */
template <typename T> static __device__ __forceinline__ unsigned conv2d_ig_pair(const T *p)
{
    return *reinterpret_cast<const unsigned *>(p);
}

/* lo and hi in one word, lo in the low half */
template <typename T> static __device__ __forceinline__ unsigned conv2d_ig_pack(T lo, T hi)
{
    return (unsigned)__half_as_ushort(*reinterpret_cast<const __half *>(&lo)) |
           (unsigned)__half_as_ushort(*reinterpret_cast<const __half *>(&hi)) << 16;
}

#ifndef CONV2D_IG_TAP
#define CONV2D_IG_TAP 1 /* 1: the tap form (conv2d_fast_tap.cuh) where it applies; 0: the gathered form only */
#endif
#if CONV2D_IG_TAP
#include "conv2d_fast_tap.cuh"
#endif

template <typename T>
static __global__ void __launch_bounds__(CONV2D_IG_THREADS, 2)
    conv2d_fast_igemm_kernel(const T *__restrict__ x, const T *__restrict__ w, T *__restrict__ y, int c_in, int c_out,
                             int h, int wd, int r, long long pixels)
{
    __shared__ __align__(16) T sA[CONV2D_IG_BM * CONV2D_IG_LD]; /* W: [m][q] */
    __shared__ __align__(16) T sB[CONV2D_IG_BN * CONV2D_IG_LD]; /* X: [p][q] */
    const int tid = threadIdx.x, lane = tid % 32, warp = tid / 32;
    const int g = lane / 4, t = lane % 4;
    const int wm = warp / 4, wn = warp % 4; /* the warp's 32 x 32 of the 64 x 128 tile */
    const int m0 = blockIdx.y * CONV2D_IG_BM;
    const long long p0 = (long long)blockIdx.x * CONV2D_IG_BN;
    /* this thread's X column: one pixel, and its rows within a slice: the
     * pairs 2 bq + 2 BQ_STEP l and the next */
    const int bn = tid % CONV2D_IG_BN, bq = tid / CONV2D_IG_BN;
    constexpr int BQ_STEP = CONV2D_IG_THREADS / CONV2D_IG_BN;
    conv2d_gather<T> gx(x, p0 + bn, pixels, c_in, h, wd, r);
    const int kdim = gx.kdim;
    const long long hw = gx.hw;

    /* the staged slice in registers, two adjacent q of one row a word (the
     * lower q in the low half, as shared memory and the fragments hold them) */
    unsigned ra[CONV2D_IG_A_PER / 2], rb[CONV2D_IG_B_PER / 2];
    /* the slice from q0 into ra, rb (global loads, zeros outside) */
    auto fetch = [&](int q0) {
#pragma unroll
        for (int l = 0; l < CONV2D_IG_A_PER / 2; l++) { /* W row am, q pair aq, aq + 1 */
            const int e = tid + l * CONV2D_IG_THREADS, am = e / (CONV2D_IG_BK / 2), aq = 2 * (e % (CONV2D_IG_BK / 2));
            const int m = m0 + am, q = q0 + aq;
            const T *pw = w + (long long)m * kdim + q;
            const T lo = m < c_out && q < kdim ? pw[0] : conv2d_to<T>(0.0f);
            const T hi = m < c_out && q + 1 < kdim ? pw[1] : conv2d_to<T>(0.0f);
            ra[l] = conv2d_ig_pack(lo, hi);
        }
        /* X column bn, q pairs 2 bq + 2 BQ_STEP l and the next */
        gx.start(q0 + 2 * bq);
#pragma unroll
        for (int l = 0; l < CONV2D_IG_B_PER / 2; l++) {
            const T lo = gx.value();
            gx.step(1);
            const T hi = gx.value();
            gx.step(2 * BQ_STEP - 1); /* to the next pair */
            rb[l] = conv2d_ig_pack(lo, hi);
        }
    };
    auto stage = [&]() {
#pragma unroll
        for (int l = 0; l < CONV2D_IG_A_PER / 2; l++) {
            const int e = tid + l * CONV2D_IG_THREADS;
            *reinterpret_cast<unsigned *>(&sA[(e / (CONV2D_IG_BK / 2)) * CONV2D_IG_LD + 2 * (e % (CONV2D_IG_BK / 2))]) =
                ra[l];
        }
#pragma unroll
        for (int l = 0; l < CONV2D_IG_B_PER / 2; l++)
            *reinterpret_cast<unsigned *>(&sB[bn * CONV2D_IG_LD + 2 * bq + 2 * BQ_STEP * l]) = rb[l];
    };

    float acc[2][4][4];
#pragma unroll
    for (int mi = 0; mi < 2; mi++)
#pragma unroll
        for (int ni = 0; ni < 4; ni++)
#pragma unroll
            for (int e = 0; e < 4; e++) acc[mi][ni][e] = 0.0f;

    fetch(0);
    stage();
    __syncthreads();
    for (int q0 = 0; q0 < kdim; q0 += CONV2D_IG_BK) {
        const bool more = q0 + CONV2D_IG_BK < kdim;
        if (more) fetch(q0 + CONV2D_IG_BK); /* in flight during the MMAs */
#pragma unroll
        for (int k0 = 0; k0 < CONV2D_IG_BK; k0 += 16) {
            unsigned a[2][4], b[4][2];
#pragma unroll
            for (int mi = 0; mi < 2; mi++) {
                const T *pa = &sA[(wm * 32 + mi * 16 + g) * CONV2D_IG_LD + k0 + 2 * t];
                a[mi][0] = conv2d_ig_pair(pa);
                a[mi][1] = conv2d_ig_pair(pa + 8 * CONV2D_IG_LD);
                a[mi][2] = conv2d_ig_pair(pa + 8);
                a[mi][3] = conv2d_ig_pair(pa + 8 * CONV2D_IG_LD + 8);
            }
#pragma unroll
            for (int ni = 0; ni < 4; ni++) {
                const T *pb = &sB[(wn * 32 + ni * 8 + g) * CONV2D_IG_LD + k0 + 2 * t];
                b[ni][0] = conv2d_ig_pair(pb);
                b[ni][1] = conv2d_ig_pair(pb + 8);
            }
#pragma unroll
            for (int mi = 0; mi < 2; mi++)
#pragma unroll
                for (int ni = 0; ni < 4; ni++) conv2d_ig_mma<T>::run(acc[mi][ni], a[mi], b[ni]);
        }
        __syncthreads(); /* every warp is done reading this slice */
        if (more) {
            stage();
            __syncthreads();
        }
    }

    /* epilogue: acc[mi][ni] holds rows g, g + 8 and columns 2t, 2t + 1 of its 16 x 8 */
#pragma unroll
    for (int mi = 0; mi < 2; mi++)
#pragma unroll
        for (int ni = 0; ni < 4; ni++)
#pragma unroll
            for (int e = 0; e < 4; e++) {
                const int m = m0 + wm * 32 + mi * 16 + g + (e >= 2 ? 8 : 0);
                const long long p = p0 + wn * 32 + ni * 8 + 2 * t + (e & 1);
                if (m >= c_out || p >= pixels) continue;
                const long long n = p / hw, rem = p % hw;
                y[(n * c_out + m) * hw + rem] = conv2d_to<T>(acc[mi][ni][e]);
            }
}

template <typename T> static int conv2d_fast_igemm_launch(const conv2d_args *a, cudaStream_t s)
{
    const long long pixels = a->batch * a->height * a->width;
    const dim3 grid((unsigned)((pixels + CONV2D_IG_BN - 1) / CONV2D_IG_BN),
                    (unsigned)((a->c_out + CONV2D_IG_BM - 1) / CONV2D_IG_BM));
    conv2d_fast_igemm_kernel<T><<<grid, CONV2D_IG_THREADS, 0, s>>>((const T *)a->x, (const T *)a->w, (T *)a->y,
                                                                   (int)a->c_in, (int)a->c_out, (int)a->height,
                                                                   (int)a->width, a->r, pixels);
    return (int)cudaGetLastError();
}

extern "C" int conv2d_fast_igemm_supports(const conv2d_args *a, char *why, size_t why_len)
{
    int dev = 0, major = 0;
    if (!conv2d_case_ok(a, why, why_len)) return 0;
    if (a->batch * a->height * a->width >= (1LL << 31) / 2 || a->c_in * a->r * a->r >= (1LL << 30) ||
        (a->c_out + CONV2D_IG_BM - 1) / CONV2D_IG_BM > 65535) {
        snprintf(why, why_len, "fast's implicit GEMM takes fewer than 2^30 output pixels and reduction terms");
        return 0;
    }
    if (a->type == ELEM_FP32) return 1; /* the SIMT form (conv2d_fast_igemm_f32.cu) */
    if (cudaGetDevice(&dev) != cudaSuccess ||
        cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev) != cudaSuccess || major < 8) {
        snprintf(why, why_len, "fast's implicit GEMM needs sm_80 or newer (mma.sync bf16)");
        return 0;
    }
    return 1;
}

extern "C" int conv2d_fast_igemm(const conv2d_args *a, cudaStream_t s)
{
    char why[256];
    if (!conv2d_fast_igemm_supports(a, why, sizeof why)) return (int)cudaErrorInvalidValue;
    if (a->type == ELEM_FP32) return conv2d_fast_igemm_f32(a, s);
#if CONV2D_IG_TAP
    if (conv2d_fast_tap_applies(a)) {
        const bool f16 = a->type == ELEM_FP16;
        if (a->r == 3) {
            kernel_ran_note(f16 ? "fast_tap_f16_64x28x8_r3" : "fast_tap_bf16_64x28x8_r3", NULL);
            return f16 ? conv2d_fast_tap_launch<__half, 3>(a, s) : conv2d_fast_tap_launch<__nv_bfloat16, 3>(a, s);
        }
        kernel_ran_note(f16 ? "fast_tap_f16_64x28x8_r5" : "fast_tap_bf16_64x28x8_r5", NULL);
        return f16 ? conv2d_fast_tap_launch<__half, 5>(a, s) : conv2d_fast_tap_launch<__nv_bfloat16, 5>(a, s);
    }
#endif
    if (a->type == ELEM_FP16) {
        kernel_ran_note("fast_igemm_f16_64x128x32", NULL);
        return conv2d_fast_igemm_launch<__half>(a, s);
    }
    kernel_ran_note("fast_igemm_bf16_64x128x32", NULL);
    return conv2d_fast_igemm_launch<__nv_bfloat16>(a, s);
}
