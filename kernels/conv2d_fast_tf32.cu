/* kernels/conv2d_fast_tf32.cu: the conv2d row `fast_tf32`, fp32 only: the
 * tap form of fast's implicit GEMM (kernels/conv2d_fast_tap.cuh) on TF32
 * tensor cores (mma.sync m16n8k8 .tf32, FP32 accumulators). Its math is
 * tf32: x and w are rounded to TF32 (cvt.rna.tf32.f32, round to nearest,
 * ties away) once, when staged in shared memory, so the row is verified
 * under the TF32 rounding term, as cudnn_tensor_op is in fp32.
 *
 * Why a row of its own: `fast` in fp32 keeps FP32's math (the SIMT implicit
 * GEMM, kernels/conv2d_fast_igemm_f32.cu); the issue allows an implicit GEMM
 * on tensor cores in TF32 for the multi-channel cases, whose rival is
 * cuDNN's tensor-op row, so this row runs in that math and says so.
 *
 * Idea (as the 16-bit tap form): the reduction split by tap,
 *     Y[k][(i, j)] = sum_(u, v) sum_c W_uv[k][c] x[c][i + u - r/2][j + v - r/2],
 * each tap a plain GEMM against the same staged input, shifted:
 *  - a block computes 64 output channels x a 28 x 8 pixel tile of one image
 *    (8 warps, 2 x 4, each 32 channels x 7 rows of 8 pixels; an n8 fragment
 *    is one row of the tile);
 *  - per chunk of 8 input channels (one k8 step) the tile WITH its halo
 *    ((28 + r - 1) x (8 + r - 1) pixels, zeros outside the image) is staged
 *    once as [channel][pixel], pixel fastest, LDP floats a channel with
 *    LDP = 8 (mod 32): the B fragment's reads (channel t, 8 consecutive
 *    pixels g; channel t + 4 the same) hit 32 distinct banks at every tap,
 *    and the tap (u, v) is only an offset of u (8 + r - 1) + v pixels, so
 *    every staged element serves all r r taps. The loads are coalesced
 *    along the image's rows, into registers while the current chunk's taps
 *    run, rounded to TF32 and stored after them;
 *  - the chunk's weights w[k][c0 .. c0 + 7][u][v] are contiguous per k in
 *    KCRS (8 r r floats), copied as they lie with 16-byte cp.async into rows
 *    of WROW = 8 r r + 4 floats (WROW / 4 odd: the A fragment's reads
 *    W[g][t][tap], g = 0..7, t = 0..3, hit 32 distinct banks); once they
 *    have landed each thread rounds the pieces it copied to TF32 in place,
 *    before the chunk's barrier;
 *  - tap (u, v) reads tile rows ni + u of the staged tile, so on sm_90 a
 *    column of taps (v fixed) loads its 7 + r - 1 rows of B fragments once
 *    and runs its r taps from them (CONV2D_TF_BREUSE, default 1): fewer
 *    shared-memory reads than a load per tap (7 r rows); sm_80's ptxas
 *    spills that form at r = 3, so older GPUs load per tap;
 *  - two buffers: the next chunk's weights (cp.async) and input (registers)
 *    are in flight while the current chunk's r r taps run; one barrier a
 *    chunk;
 *  - the epilogue stores the FP32 accumulators masked (rows and columns past
 *    the image, channels past c_out), a float2 where the offset is even.
 * Registers: the 32 x 56 warp tile is 56 FP32 accumulators, plus the
 * column's B fragments (2 (7 + r - 1)); one column (or row) of taps is
 * unrolled and the staging positions are recomputed each chunk, so r = 3
 * fits 128 registers (two blocks an SM) without spills; r = 5 runs one
 * block an SM.
 * Constraints: fp32; r in {3, 5} (a template parameter); c_in % 8 == 0; w
 * 16-byte aligned (cp.async); any batch / h / w / c_out (masked); a block's
 * dynamic shared memory is 2 (8 LDP + 64 WROW) 4 bytes: 59904 at r = 3,
 * 129536 at r = 5 (opted in above 48 KiB); sm_80+ (mma .tf32, cp.async).
 * Every other case is SKIP with the reason (the row is this form only).
 * Run just this row: compare --ops conv2d --variants fast_tf32 --axis c_in=64 --axis c_out=64 ... */
#include "conv2d_common.cuh"

#include <stdio.h>

#include "kernel_ran.h"
#include "smem.cuh"

#define CONV2D_TF_BM 64      /* output channels a block */
#define CONV2D_TF_TH 28      /* tile rows */
#define CONV2D_TF_TW 8       /* tile columns (one n8 fragment) */
#define CONV2D_TF_BC 8       /* input channels a chunk (one k8 step) */
#define CONV2D_TF_THREADS 256
#define CONV2D_TF_WROWS 7    /* tile rows a warp (4 warps down the tile) */
#ifndef CONV2D_TF_BREUSE
#define CONV2D_TF_BREUSE 1 /* 1: a column of taps shares its B fragments (sm_90+, below); 0: loaded for every tap */
#endif

template <int R> struct conv2d_tf_geom {
    static constexpr int RR = R * R;
    static constexpr int SH = CONV2D_TF_TH + R - 1, SW = CONV2D_TF_TW + R - 1, SPIX = SH * SW;
    static constexpr int LDP = (SPIX + 23) / 32 * 32 + 8; /* >= SPIX, = 8 (mod 32) */
    static constexpr int WROW = CONV2D_TF_BC * RR + 4;    /* a staged weight row (one k), floats */
    static constexpr int X_ELEMS = CONV2D_TF_BC * LDP, W_ELEMS = CONV2D_TF_BM * WROW;
    static constexpr int X_VALS = CONV2D_TF_BC * SPIX; /* input elements staged a chunk */
    static constexpr int X_PER = (X_VALS + CONV2D_TF_THREADS - 1) / CONV2D_TF_THREADS;
    static constexpr int W_PER_K = CONV2D_TF_BC * RR / 4; /* 16-byte copies a k */
    static constexpr int W_PIECES = CONV2D_TF_BM * W_PER_K;
    static constexpr size_t SMEM = 2 * (size_t)(X_ELEMS + W_ELEMS) * 4;
    static constexpr int MINB = R == 3 ? 2 : 1; /* blocks an SM (__launch_bounds__) */
    static_assert(LDP >= SPIX && LDP % 32 == 8, "the staged channel's stride");
    static_assert(WROW % 4 == 0 && (WROW / 4) % 2 == 1, "the weight row: 16-byte pieces, conflict-free A reads");
    static_assert(SMEM_SM90_FITS(SMEM, MINB), "the TF32 tap kernel's shared memory for its blocks an SM");
};

/* 16 bytes global -> shared, zeros when !valid (src-size 0) */
static __device__ __forceinline__ void conv2d_tf_cp16(void *dst, const void *src, bool valid)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(smem_u32(dst)), "l"(src),
                 "r"(valid ? 16 : 0));
#endif
}
static __device__ __forceinline__ void conv2d_tf_cp_commit()
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm volatile("cp.async.commit_group;\n" ::);
#endif
}
static __device__ __forceinline__ void conv2d_tf_cp_wait_all()
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm volatile("cp.async.wait_group 0;\n" ::: "memory");
#endif
}

/* v rounded to TF32 (round to nearest, ties away), as the mma's bits */
static __device__ __forceinline__ unsigned conv2d_tf_round(float v)
{
    unsigned r = 0;
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm("cvt.rna.tf32.f32 %0, %1;\n" : "=r"(r) : "f"(v));
#endif
    return r;
}

/* d += a b on one m16n8k8 tile, TF32 inputs, FP32 accumulators. Fragments
 * (PTX ISA, "Matrix Fragments for mma.m16n8k8", .tf32; g = lane / 4,
 * t = lane % 4): a0 A[g][t], a1 A[g + 8][t], a2 A[g][t + 4], a3 A[g + 8][t + 4];
 * b0 B[t][g], b1 B[t + 4][g]; c0, c1 C[g][2t, 2t + 1], c2, c3 C[g + 8][2t, 2t + 1]. */
static __device__ __forceinline__ void conv2d_tf_mma(float (&d)[4], const unsigned (&a)[4], unsigned b0, unsigned b1)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
                 "{%0,%1,%2,%3};\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
#endif
}

template <int R>
static __global__ void __launch_bounds__(CONV2D_TF_THREADS, conv2d_tf_geom<R>::MINB)
    conv2d_fast_tf32_kernel(const float *__restrict__ x, const float *__restrict__ w, float *__restrict__ y,
                            int c_in, int c_out, int h, int wd, int tiles_w, int tiles_h, int pair_store)
{
    using G = conv2d_tf_geom<R>;
    constexpr int RR = G::RR, SW = G::SW, LDP = G::LDP, WROW = G::WROW;
    extern __shared__ __align__(16) unsigned char conv2d_tf_smem[];
    unsigned *sx = reinterpret_cast<unsigned *>(conv2d_tf_smem); /* [2][BC][LDP], TF32 bits */
    unsigned *sw = sx + 2 * G::X_ELEMS;                           /* [2][64][WROW] */

    const int tid = threadIdx.x, lane = tid % 32, warp = tid / 32;
    const int g = lane / 4, t = lane % 4;
    const int wm = warp / 4, wn = warp % 4; /* 32 channels x 7 tile rows */
    const int tj = blockIdx.x % tiles_w, rest = blockIdx.x / tiles_w;
    const int ti = rest % tiles_h, n = rest / tiles_h;
    const int i0 = ti * CONV2D_TF_TH, j0 = tj * CONV2D_TF_TW;
    const int m0 = blockIdx.y * CONV2D_TF_BM;
    const long long hw = (long long)h * wd;
    const float *xn = x + (long long)n * c_in * hw;

    /* the chunk's input, one element a register. The positions are the same
     * every chunk; they are recomputed from an opaque copy of tid each time
     * (a few integer ops) rather than kept live across the MMAs. */
    const int hw32 = (int)hw; /* 8 h w < 2^31 (conv2d_fast_tf32_supports) */
    float rx[G::X_PER];
    auto fetch_x = [&](int c0) {
        int me = tid;
        asm volatile("" : "+r"(me)); /* not hoisted out of the chunk loop */
        const float *xc = xn + (long long)c0 * hw;
#pragma unroll
        for (int l = 0; l < G::X_PER; l++) {
            const int e = me + l * CONV2D_TF_THREADS;
            const int cc = e / G::SPIX, pix = e % G::SPIX; /* consecutive threads: consecutive pixels */
            const int gi = i0 + pix / SW - R / 2, gj = j0 + pix % SW - R / 2;
            rx[l] = e < G::X_VALS && (unsigned)gi < (unsigned)h && (unsigned)gj < (unsigned)wd
                        ? __ldg(xc + (cc * hw32 + gi * wd + gj))
                        : 0.0f;
        }
    };
    auto stage_x = [&](int buf) {
        unsigned *dst = sx + buf * G::X_ELEMS;
#pragma unroll
        for (int l = 0; l < G::X_PER; l++) {
            const int e = tid + l * CONV2D_TF_THREADS;
            if (e < G::X_VALS) dst[(e / G::SPIX) * LDP + e % G::SPIX] = conv2d_tf_round(rx[l]);
        }
    };
    /* the chunk's weights as they lie in KCRS, one 8 r r row a k (zeros past c_out) */
    auto fetch_w = [&](int c0, int buf) {
        unsigned *dst = sw + buf * G::W_ELEMS;
        int me = tid;
        asm volatile("" : "+r"(me)); /* as fetch_x */
        for (int e = me; e < G::W_PIECES; e += CONV2D_TF_THREADS) {
            const int k = e / G::W_PER_K, piece = e % G::W_PER_K;
            const bool ok = m0 + k < c_out;
            const float *src = ok ? w + ((long long)(m0 + k) * c_in + c0) * RR + piece * 4 : w;
            conv2d_tf_cp16(&dst[k * WROW + piece * 4], src, ok);
        }
        conv2d_tf_cp_commit();
    };
    /* after the copies landed (cp.async.wait_group): the pieces this thread
     * copied, rounded to TF32 in place (its own copies are visible to it; the
     * barrier that follows publishes them) */
    auto round_w = [&](int buf) {
        unsigned *dst = sw + buf * G::W_ELEMS;
        int me = tid;
        asm volatile("" : "+r"(me));
        for (int e = me; e < G::W_PIECES; e += CONV2D_TF_THREADS) {
            uint4 *p = reinterpret_cast<uint4 *>(&dst[(e / G::W_PER_K) * WROW + (e % G::W_PER_K) * 4]);
            uint4 v = *p;
            v.x = conv2d_tf_round(__uint_as_float(v.x));
            v.y = conv2d_tf_round(__uint_as_float(v.y));
            v.z = conv2d_tf_round(__uint_as_float(v.z));
            v.w = conv2d_tf_round(__uint_as_float(v.w));
            *p = v;
        }
    };

    float acc[2][CONV2D_TF_WROWS][4];
#pragma unroll
    for (int mi = 0; mi < 2; mi++)
#pragma unroll
        for (int ni = 0; ni < CONV2D_TF_WROWS; ni++)
#pragma unroll
            for (int e = 0; e < 4; e++) acc[mi][ni][e] = 0.0f;

    /* the lane's B element: channel t, column g of the warp's first tile row */
    const int b_lane = t * LDP + wn * CONV2D_TF_WROWS * SW + g;
    /* the lane's A element: row g of its m16 tile, channel t */
    const int a_lane = (wm * 32 + g) * WROW + t * RR;

    const int chunks = c_in / CONV2D_TF_BC;
    fetch_w(0, 0);
    fetch_x(0);
    stage_x(0);
    conv2d_tf_cp_wait_all();
    round_w(0);
    __syncthreads();
    for (int ch = 0; ch < chunks; ch++) {
        const int buf = ch & 1;
        const bool more = ch + 1 < chunks;
        if (more) { /* in flight during the taps */
            fetch_w((ch + 1) * CONV2D_TF_BC, buf ^ 1);
            fetch_x((ch + 1) * CONV2D_TF_BC);
        }
        const unsigned *xb = sx + buf * G::X_ELEMS + b_lane;
        const unsigned *wa = sw + buf * G::W_ELEMS + a_lane;
#if CONV2D_TF_BREUSE && defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900 /* sm_80's ptxas spills it at r = 3 */
        /* a column of taps (v fixed) at a time: tap (u, v) reads tile rows
         * ni + u, so the column's WROWS + R - 1 rows of B fragments are
         * loaded once and serve its R taps */
#pragma unroll 1
        for (int v = 0; v < R; v++) {
            constexpr int BR = CONV2D_TF_WROWS + R - 1;
            unsigned b[BR][2];
            const unsigned *pb = xb + v;
#pragma unroll
            for (int rr = 0; rr < BR; rr++) { /* tile row wn 7 + rr of the staged tile; channels t, t + 4; pixel g */
                b[rr][0] = pb[rr * SW];
                b[rr][1] = pb[rr * SW + 4 * LDP];
            }
#pragma unroll
            for (int u = 0; u < R; u++) {
                const int tap = u * R + v;
                unsigned a[2][4];
#pragma unroll
                for (int mi = 0; mi < 2; mi++) {
                    const unsigned *pa = wa + mi * 16 * WROW + tap;
                    a[mi][0] = pa[0];                 /* row g, channel t */
                    a[mi][1] = pa[8 * WROW];          /* row g + 8 */
                    a[mi][2] = pa[4 * RR];            /* row g, channel t + 4 */
                    a[mi][3] = pa[8 * WROW + 4 * RR]; /* row g + 8 */
                }
#pragma unroll
                for (int ni = 0; ni < CONV2D_TF_WROWS; ni++)
#pragma unroll
                    for (int mi = 0; mi < 2; mi++) conv2d_tf_mma(acc[mi][ni], a[mi], b[ni + u][0], b[ni + u][1]);
            }
        }
#else
#pragma unroll 1 /* one row of taps unrolled: all r r would keep too many fragments live */
        for (int u = 0; u < R; u++)
#pragma unroll
            for (int v = 0; v < R; v++) {
                const int tap = u * R + v;
                unsigned a[2][4];
#pragma unroll
                for (int mi = 0; mi < 2; mi++) {
                    const unsigned *pa = wa + mi * 16 * WROW + tap;
                    a[mi][0] = pa[0];                    /* row g, channel t */
                    a[mi][1] = pa[8 * WROW];             /* row g + 8 */
                    a[mi][2] = pa[4 * RR];               /* row g, channel t + 4 */
                    a[mi][3] = pa[8 * WROW + 4 * RR];    /* row g + 8 */
                }
                const unsigned *pb = xb + u * SW + v;
#pragma unroll
                for (int ni = 0; ni < CONV2D_TF_WROWS; ni++) { /* tile row wn 7 + ni */
                    const unsigned b0 = pb[ni * SW], b1 = pb[ni * SW + 4 * LDP]; /* channels t, t + 4; pixel g */
#pragma unroll
                    for (int mi = 0; mi < 2; mi++) conv2d_tf_mma(acc[mi][ni], a[mi], b0, b1);
                }
            }
#endif
        if (more) {
            stage_x(buf ^ 1); /* buf ^ 1 was last read before the previous barrier */
            conv2d_tf_cp_wait_all();
            round_w(buf ^ 1);
        }
        __syncthreads();
    }

    /* epilogue: acc[mi][ni] holds channels g, g + 8 of its m16 tile and
     * columns 2t, 2t + 1 of tile row wn 7 + ni */
#pragma unroll
    for (int mi = 0; mi < 2; mi++)
#pragma unroll
        for (int ni = 0; ni < CONV2D_TF_WROWS; ni++) {
            const int i = i0 + wn * CONV2D_TF_WROWS + ni, j = j0 + 2 * t;
            if (i >= h || j >= wd) continue;
#pragma unroll
            for (int half = 0; half < 2; half++) {
                const int m = m0 + wm * 32 + mi * 16 + g + 8 * half;
                if (m >= c_out) continue;
                float *py = y + ((long long)n * c_out + m) * hw + (long long)i * wd + j;
                const float v0 = acc[mi][ni][2 * half], v1 = acc[mi][ni][2 * half + 1];
                if (pair_store && j + 1 < wd) { /* offset even: wd even, j even, y 8-byte aligned */
                    *reinterpret_cast<float2 *>(py) = make_float2(v0, v1);
                } else {
                    py[0] = v0;
                    if (j + 1 < wd) py[1] = v1;
                }
            }
        }
}

template <int R> static int conv2d_fast_tf32_launch(const conv2d_args *a, cudaStream_t s)
{
    using G = conv2d_tf_geom<R>;
    const int tiles_w = (int)((a->width + CONV2D_TF_TW - 1) / CONV2D_TF_TW);
    const int tiles_h = (int)((a->height + CONV2D_TF_TH - 1) / CONV2D_TF_TH);
    const dim3 grid((unsigned)(a->batch * tiles_w * tiles_h), (unsigned)((a->c_out + CONV2D_TF_BM - 1) / CONV2D_TF_BM));
    /* a float2 store: every (n, m, i) row starts at an even element when the
     * width is even, and y itself is 8-byte aligned */
    const int pair_store = a->width % 2 == 0 && (size_t)a->y % 8 == 0;
    static unsigned long long opted; /* smem_opt_in's devices done, one set an instantiation */
    const int e = smem_opt_in((const void *)conv2d_fast_tf32_kernel<R>, (int)G::SMEM, &opted);
    if (e != 0) return e;
    conv2d_fast_tf32_kernel<R><<<grid, CONV2D_TF_THREADS, G::SMEM, s>>>(
        (const float *)a->x, (const float *)a->w, (float *)a->y, (int)a->c_in, (int)a->c_out, (int)a->height,
        (int)a->width, tiles_w, tiles_h, pair_store);
    return (int)cudaGetLastError();
}

extern "C" int conv2d_fast_tf32_supports(const conv2d_args *a, char *why, size_t why_len)
{
    int dev = 0, major = 0, optin = 0;
    if (!conv2d_case_ok(a, why, why_len)) return 0;
    if (a->type != ELEM_FP32) {
        snprintf(why, why_len, "fp32 only: the 16-bit types' tap form is `fast`");
        return 0;
    }
    if (a->r != 3 && a->r != 5) {
        snprintf(why, why_len, "the TF32 tap form takes r = 3 or 5 (r = %d)", a->r);
        return 0;
    }
    if (a->c_in % CONV2D_TF_BC != 0) {
        snprintf(why, why_len, "the TF32 tap form takes c_in a multiple of %d (c_in = %lld)", CONV2D_TF_BC, a->c_in);
        return 0;
    }
    const long long tiles = a->batch * ((a->height + CONV2D_TF_TH - 1) / CONV2D_TF_TH) *
                            ((a->width + CONV2D_TF_TW - 1) / CONV2D_TF_TW);
    /* the grid (x up to 2^31 - 1, y up to 65535) and int offsets within an image's chunk */
    if (tiles >= (1LL << 31) || (a->c_out + CONV2D_TF_BM - 1) / CONV2D_TF_BM > 65535 ||
        CONV2D_TF_BC * a->height * a->width >= (1LL << 31) || a->c_in >= (1LL << 30)) {
        snprintf(why, why_len, "the TF32 tap form takes fewer than 2^31 tiles and 8 h w below 2^31");
        return 0;
    }
    if (cudaGetDevice(&dev) != cudaSuccess ||
        cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev) != cudaSuccess || major < 8) {
        snprintf(why, why_len, "the TF32 tap form needs sm_80 or newer (mma.sync .tf32, cp.async)");
        return 0;
    }
    const size_t smem = a->r == 3 ? conv2d_tf_geom<3>::SMEM : conv2d_tf_geom<5>::SMEM;
    if (cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev) != cudaSuccess ||
        smem > (size_t)optin) {
        snprintf(why, why_len, "the TF32 tap form at r = %d needs %zu bytes of shared memory a block (the GPU gives %d)",
                 a->r, smem, optin);
        return 0;
    }
    return 1;
}

extern "C" int conv2d_fast_tf32(const conv2d_args *a, cudaStream_t s)
{
    char why[256];
    if (!conv2d_fast_tf32_supports(a, why, sizeof why) || (size_t)a->w % 16 != 0) return (int)cudaErrorInvalidValue;
    if (a->r == 3) {
        kernel_ran_note("fast_tf32_tap_64x28x8_r3", NULL);
        return conv2d_fast_tf32_launch<3>(a, s);
    }
    kernel_ran_note("fast_tf32_tap_64x28x8_r5", NULL);
    return conv2d_fast_tf32_launch<5>(a, s);
}
