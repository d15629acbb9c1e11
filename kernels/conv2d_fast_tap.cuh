/* kernels/conv2d_fast_tap.cuh: the "tap form" of the conv2d ladder's `fast`
 * rung for fp16 / bf16 with many channels, an implicit GEMM on tensor cores
 * (mma.sync m16n8k16, FP32 accumulators); included by
 * kernels/conv2d_fast_igemm.cu, whose launcher takes this path where it
 * applies (CONV2D_IG_TAP, default 1; 0 keeps the gathered form only).
 *
 * Idea: the gathered implicit GEMM (conv2d_fast_igemm.cu) builds X[(c, u, v)]
 * [pixel] on the fly for every slice of the reduction, so every input element
 * is fetched r r times and the index math of the gather dominates. Here the
 * reduction is split by tap instead:
 *     Y[k][(i, j)] = sum_(u, v) sum_c W_uv[k][c] x[c][i + u - r/2][j + v - r/2]
 * and each tap is a plain GEMM against the same staged input, shifted:
 *  - a block computes 64 output channels x a 28 x 8 pixel tile of one image
 *    (224 pixels; 8 warps, 2 x 4, each 32 channels x 7 rows of 8 pixels, an
 *    n8 fragment being one row of the tile, so the 56 x 56 of ResNet's
 *    conv2_x splits into 2 x 7 tiles with nothing wasted);
 *  - per chunk of 16 input channels, the tile WITH its halo ((28 + r - 1) x
 *    (8 + r - 1) pixels, zeros outside the image) is staged once in shared
 *    memory as [pixel][channel], channel fastest, 16 + 8 channels a pixel
 *    (48 bytes: the 8 rows an ldmatrix reads fall in distinct bank groups),
 *    so one ldmatrix.x4 gives the B fragments (pixel = n, channel = k) of two
 *    n8 tiles, and the tap (u, v) is only an offset of u (8 + r - 1) + v
 *    pixels: every staged element is reused r r times from shared memory;
 *  - the chunk's weights w[k][c0 .. c0 + 15][u][v] are contiguous per k in
 *    KCRS (16 r r elements), so they are copied as they lie with 16-byte
 *    cp.async (rows padded to 16 r r + 8 elements: the A fragment's reads,
 *    W[g][2t][tap] and W[g][2t + 1][tap], r r apart, hit 32 distinct banks)
 *    and each A fragment is built from two 16-bit reads a register;
 *  - two buffers: the next chunk's weights are in flight (cp.async) and its
 *    input loads issued into registers (transposed to channel pairs) while
 *    the current chunk's r r taps run; one barrier a chunk;
 *  - the epilogue rounds the FP32 accumulators to the type and stores them
 *    masked (rows and columns past the image, channels past c_out), a pair a
 *    32-bit store where y's offset is even, one element a store otherwise.
 * Registers: the 32 x 56 warp tile is 56 FP32 accumulators; one row of taps
 * is unrolled (all r r would keep too many fragments live) and the input
 * pairs' positions are recomputed each chunk, so r = 3 fits 128 registers
 * (two blocks an SM) without spills; r = 5 runs one block an SM.
 * Constraints: fp16 / bf16, r in {3, 5} (a template parameter),
 * c_in % 16 == 0, w 16-byte aligned (cp.async), any batch / h / w / c_out
 * (masked); a block's dynamic shared memory is 2 (SPIX 48 + 64 (16 r r + 8)
 * 2) bytes: 67712 at r = 3, 141312 at r = 5 (opt-in above 48 KiB). Other
 * cases take the gathered form. sm_80+ (mma.sync bf16, cp.async, ldmatrix). */
#ifndef COMPARE_CONV2D_FAST_TAP_CUH
#define COMPARE_CONV2D_FAST_TAP_CUH

#include "conv2d_common.cuh"
#include "smem.cuh"

#define CONV2D_TAP_BM 64      /* output channels a block */
#define CONV2D_TAP_TH 28      /* tile rows */
#define CONV2D_TAP_TW 8       /* tile columns (one n8 fragment) */
#define CONV2D_TAP_BC 16      /* input channels a chunk (one k16 step) */
#define CONV2D_TAP_LDC 24     /* elements a staged pixel (16 channels + 8 of padding) */
#define CONV2D_TAP_THREADS 256
#define CONV2D_TAP_WROWS 7    /* tile rows a warp (4 warps down the tile) */

template <int R> struct conv2d_tap_geom {
    static constexpr int RR = R * R;
    static constexpr int SH = CONV2D_TAP_TH + R - 1, SW = CONV2D_TAP_TW + R - 1, SPIX = SH * SW;
    static constexpr int WROW = CONV2D_TAP_BC * RR + 8; /* a staged weight row (one k), elements */
    static constexpr int X_ELEMS = SPIX * CONV2D_TAP_LDC, W_ELEMS = CONV2D_TAP_BM * WROW;
    static constexpr int X_PAIRS = SPIX * (CONV2D_TAP_BC / 2); /* channel pairs staged a chunk */
    static constexpr int X_PER = (X_PAIRS + CONV2D_TAP_THREADS - 1) / CONV2D_TAP_THREADS;
    static constexpr int W_PIECES = CONV2D_TAP_BM * (CONV2D_TAP_BC * RR / 8); /* 16-byte copies a chunk */
    static constexpr size_t SMEM = 2 * (size_t)(X_ELEMS + W_ELEMS) * 2;
    static constexpr int MINB = R == 3 ? 2 : 1; /* blocks an SM (__launch_bounds__): r = 5's shared memory fits one */
    static_assert(SMEM_SM90_FITS(SMEM, MINB), "the tap kernel's shared memory for its blocks an SM");
};

/* 16 bytes global -> shared, zeros when !valid (src-size 0) */
static __device__ __forceinline__ void conv2d_tap_cp16(void *dst, const void *src, bool valid)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(smem_u32(dst)), "l"(src),
                 "r"(valid ? 16 : 0));
#endif
}
static __device__ __forceinline__ void conv2d_tap_cp_commit()
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm volatile("cp.async.commit_group;\n" ::);
#endif
}
static __device__ __forceinline__ void conv2d_tap_cp_wait_all()
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm volatile("cp.async.wait_group 0;\n" ::);
#endif
}

static __device__ __forceinline__ void conv2d_tap_ldm_x4(unsigned (&d)[4], unsigned addr)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n"
                 : "=r"(d[0]), "=r"(d[1]), "=r"(d[2]), "=r"(d[3])
                 : "r"(addr));
#endif
}
static __device__ __forceinline__ void conv2d_tap_ldm_x2(unsigned (&d)[2], unsigned addr)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0,%1}, [%2];\n" : "=r"(d[0]), "=r"(d[1]) : "r"(addr));
#endif
}

/* two 16-bit shared elements `gap` apart as one register, the first in the low half */
static __device__ __forceinline__ unsigned conv2d_tap_pair(const unsigned short *p, int gap)
{
    return (unsigned)p[0] | (unsigned)p[gap] << 16;
}

template <typename T, int R>
static __global__ void __launch_bounds__(CONV2D_TAP_THREADS, conv2d_tap_geom<R>::MINB)
    conv2d_fast_tap_kernel(const T *__restrict__ x, const T *__restrict__ w, T *__restrict__ y, int c_in, int c_out,
                           int h, int wd, int tiles_w, int tiles_h, int pair_store)
{
    using G = conv2d_tap_geom<R>;
    constexpr int RR = G::RR, SW = G::SW, LDC = CONV2D_TAP_LDC, WROW = G::WROW;
    extern __shared__ __align__(16) unsigned char conv2d_tap_smem[];
    unsigned short *sx = reinterpret_cast<unsigned short *>(conv2d_tap_smem); /* [2][SPIX][LDC] */
    unsigned short *sw = sx + 2 * G::X_ELEMS;                                 /* [2][64][WROW] */

    const int tid = threadIdx.x, lane = tid % 32, warp = tid / 32;
    const int g = lane / 4, t = lane % 4;
    const int wm = warp / 4, wn = warp % 4; /* 32 channels x 7 tile rows */
    const int tj = blockIdx.x % tiles_w, rest = blockIdx.x / tiles_w;
    const int ti = rest % tiles_h, n = rest / tiles_h;
    const int i0 = ti * CONV2D_TAP_TH, j0 = tj * CONV2D_TAP_TW;
    const int m0 = blockIdx.y * CONV2D_TAP_BM;
    const long long hw = (long long)h * wd;
    const T *xn = x + (long long)n * c_in * hw;

    /* the chunk's input, channel pairs of one staged pixel a register. The
     * pairs' positions are the same every chunk; they are recomputed from an
     * opaque copy of tid each time (a few integer ops) rather than kept live
     * across the MMAs, which would cost registers. */
    const int hw32 = (int)hw; /* 16 h w < 2^31 (conv2d_fast_tap_applies) */
    unsigned rx[G::X_PER];
    auto fetch_x = [&](int c0) {
        int me = tid;
        asm volatile("" : "+r"(me)); /* not hoisted out of the chunk loop */
        const unsigned short *xc = reinterpret_cast<const unsigned short *>(xn + (long long)c0 * hw);
#pragma unroll
        for (int l = 0; l < G::X_PER; l++) {
            const int e = me + l * CONV2D_TAP_THREADS;
            const int cp = e / G::SPIX, pix = e % G::SPIX; /* consecutive threads: consecutive pixels */
            const int gi = i0 + pix / SW - R / 2, gj = j0 + pix % SW - R / 2;
            unsigned short lo = 0, hi = 0;
            if (e < G::X_PAIRS && (unsigned)gi < (unsigned)h && (unsigned)gj < (unsigned)wd) {
                const int off = 2 * cp * hw32 + gi * wd + gj;
                lo = xc[off];
                hi = xc[off + hw32];
            }
            rx[l] = (unsigned)lo | (unsigned)hi << 16;
        }
    };
    auto stage_x = [&](int buf) {
        unsigned short *dst = sx + buf * G::X_ELEMS;
#pragma unroll
        for (int l = 0; l < G::X_PER; l++) {
            const int e = tid + l * CONV2D_TAP_THREADS;
            if (e < G::X_PAIRS)
                *reinterpret_cast<unsigned *>(&dst[(e % G::SPIX) * LDC + 2 * (e / G::SPIX)]) = rx[l];
        }
    };
    /* the chunk's weights as they lie in KCRS, one 16 r r row a k (zeros past c_out) */
    auto fetch_w = [&](int c0, int buf) {
        unsigned short *dst = sw + buf * G::W_ELEMS;
        constexpr int PER_K = CONV2D_TAP_BC * RR / 8;
        int me = tid;
        asm volatile("" : "+r"(me)); /* as fetch_x */
        for (int e = me; e < G::W_PIECES; e += CONV2D_TAP_THREADS) {
            const int k = e / PER_K, piece = e % PER_K;
            const bool ok = m0 + k < c_out;
            const T *src = ok ? w + ((long long)(m0 + k) * c_in + c0) * RR + piece * 8 : w;
            conv2d_tap_cp16(&dst[k * WROW + piece * 8], src, ok);
        }
        conv2d_tap_cp_commit();
    };

    float acc[2][CONV2D_TAP_WROWS][4];
#pragma unroll
    for (int mi = 0; mi < 2; mi++)
#pragma unroll
        for (int ni = 0; ni < CONV2D_TAP_WROWS; ni++)
#pragma unroll
            for (int e = 0; e < 4; e++) acc[mi][ni][e] = 0.0f;

    /* the lane's ldmatrix row: lanes 0-15 the first n8 tile of a pair, 16-31
     * the second; lanes 8-15 and 24-31 channels 8-15; the tile's column lane % 8 */
    const int b_lane = ((wn * CONV2D_TAP_WROWS + lane / 16) * SW + lane % 8) * LDC + ((lane / 8) % 2) * 8;
    /* the lane's A element: row g of its m16 tile, channel 2t */
    const int a_lane = (wm * 32 + g) * WROW + 2 * t * RR;

    const int chunks = c_in / CONV2D_TAP_BC;
    fetch_w(0, 0);
    fetch_x(0);
    stage_x(0);
    conv2d_tap_cp_wait_all();
    __syncthreads();
    for (int ch = 0; ch < chunks; ch++) {
        const int buf = ch & 1;
        const bool more = ch + 1 < chunks;
        if (more) { /* in flight during the taps */
            fetch_w((ch + 1) * CONV2D_TAP_BC, buf ^ 1);
            fetch_x((ch + 1) * CONV2D_TAP_BC);
        }
        const unsigned xb = smem_u32(sx + buf * G::X_ELEMS + b_lane);
        const unsigned short *wa = sw + buf * G::W_ELEMS + a_lane;
#pragma unroll 1 /* one row of taps unrolled: all r r would keep too many fragments live */
        for (int u = 0; u < R; u++)
#pragma unroll
            for (int v = 0; v < R; v++) {
                const int tap = u * R + v;
                unsigned a[2][4];
#pragma unroll
                for (int mi = 0; mi < 2; mi++) {
                    const unsigned short *pa = wa + mi * 16 * WROW + tap;
                    a[mi][0] = conv2d_tap_pair(pa, RR);                    /* row g, channels 2t, 2t + 1 */
                    a[mi][1] = conv2d_tap_pair(pa + 8 * WROW, RR);         /* row g + 8 */
                    a[mi][2] = conv2d_tap_pair(pa + 8 * RR, RR);           /* row g, channels 2t + 8, 2t + 9 */
                    a[mi][3] = conv2d_tap_pair(pa + 8 * WROW + 8 * RR, RR); /* row g + 8 */
                }
                const unsigned tb = xb + (unsigned)((u * SW + v) * LDC * 2);
#pragma unroll
                for (int np = 0; np < CONV2D_TAP_WROWS / 2; np++) { /* n8 tiles 2 np and 2 np + 1 */
                    unsigned b[4];
                    conv2d_tap_ldm_x4(b, tb + (unsigned)(2 * np * SW * LDC * 2));
                    const unsigned b0[2] = {b[0], b[1]}, b1[2] = {b[2], b[3]};
#pragma unroll
                    for (int mi = 0; mi < 2; mi++) {
                        conv2d_ig_mma<T>::run(acc[mi][2 * np], a[mi], b0);
                        conv2d_ig_mma<T>::run(acc[mi][2 * np + 1], a[mi], b1);
                    }
                }
                { /* the last (odd) n8 tile: lanes 0-15's addresses */
                    unsigned b[2];
                    conv2d_tap_ldm_x2(b, tb + (unsigned)((CONV2D_TAP_WROWS - 1) * SW * LDC * 2));
#pragma unroll
                    for (int mi = 0; mi < 2; mi++) conv2d_ig_mma<T>::run(acc[mi][CONV2D_TAP_WROWS - 1], a[mi], b);
                }
            }
        if (more) {
            stage_x(buf ^ 1); /* buf ^ 1 was last read before the previous barrier */
            conv2d_tap_cp_wait_all();
        }
        __syncthreads();
    }

    /* epilogue: acc[mi][ni] holds channels g, g + 8 of its m16 tile and
     * columns 2t, 2t + 1 of tile row wn 7 + ni */
#pragma unroll
    for (int mi = 0; mi < 2; mi++)
#pragma unroll
        for (int ni = 0; ni < CONV2D_TAP_WROWS; ni++) {
            const int i = i0 + wn * CONV2D_TAP_WROWS + ni, j = j0 + 2 * t;
            if (i >= h || j >= wd) continue;
#pragma unroll
            for (int half = 0; half < 2; half++) {
                const int m = m0 + wm * 32 + mi * 16 + g + 8 * half;
                if (m >= c_out) continue;
                T *py = y + ((long long)n * c_out + m) * hw + (long long)i * wd + j;
                const float v0 = acc[mi][ni][2 * half], v1 = acc[mi][ni][2 * half + 1];
                if (pair_store && j + 1 < wd) { /* offset even: wd even, j even, y 4-byte aligned */
                    *reinterpret_cast<unsigned *>(py) = conv2d_ig_pack(conv2d_to<T>(v0), conv2d_to<T>(v1));
                } else {
                    py[0] = conv2d_to<T>(v0);
                    if (j + 1 < wd) py[1] = conv2d_to<T>(v1);
                }
            }
        }
}

/* Whether the tap form takes the case (the gathered form otherwise). */
static inline bool conv2d_fast_tap_applies(const conv2d_args *a)
{
    if (a->type != ELEM_FP16 && a->type != ELEM_BF16) return false;
    if (a->r != 3 && a->r != 5) return false;
    if (a->c_in % CONV2D_TAP_BC != 0 || (size_t)a->w % 16 != 0) return false;
    const long long tiles = a->batch * ((a->height + CONV2D_TAP_TH - 1) / CONV2D_TAP_TH) *
                            ((a->width + CONV2D_TAP_TW - 1) / CONV2D_TAP_TW);
    /* the grid (x up to 2^31 - 1, y up to 65535) and int offsets within an image's chunk */
    if (tiles >= (1LL << 31) || (a->c_out + CONV2D_TAP_BM - 1) / CONV2D_TAP_BM > 65535 ||
        CONV2D_TAP_BC * a->height * a->width >= (1LL << 31) || a->c_in >= (1LL << 30))
        return false;
    /* the block's shared memory, opted in above 48 KiB (r = 5's is more than some GPUs give a block) */
    int dev = 0, optin = 0;
    if (cudaGetDevice(&dev) != cudaSuccess ||
        cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev) != cudaSuccess)
        return false;
    const size_t smem = a->r == 3 ? conv2d_tap_geom<3>::SMEM : conv2d_tap_geom<5>::SMEM;
    return smem <= (size_t)optin;
}

template <typename T, int R> static int conv2d_fast_tap_launch(const conv2d_args *a, cudaStream_t s)
{
    using G = conv2d_tap_geom<R>;
    const int tiles_w = (int)((a->width + CONV2D_TAP_TW - 1) / CONV2D_TAP_TW);
    const int tiles_h = (int)((a->height + CONV2D_TAP_TH - 1) / CONV2D_TAP_TH);
    const dim3 grid((unsigned)(a->batch * tiles_w * tiles_h),
                    (unsigned)((a->c_out + CONV2D_TAP_BM - 1) / CONV2D_TAP_BM));
    /* a pair a 32-bit store: every (n, m, i) row starts at an even element
     * when the width is even, and y itself is 4-byte aligned */
    const int pair_store = a->width % 2 == 0 && (size_t)a->y % 4 == 0;
    static unsigned long long opted; /* smem_opt_in's devices done, one set an instantiation */
    const int e = smem_opt_in((const void *)conv2d_fast_tap_kernel<T, R>, (int)G::SMEM, &opted);
    if (e != 0) return e;
    conv2d_fast_tap_kernel<T, R><<<grid, CONV2D_TAP_THREADS, G::SMEM, s>>>(
        (const T *)a->x, (const T *)a->w, (T *)a->y, (int)a->c_in, (int)a->c_out, (int)a->height, (int)a->width,
        tiles_w, tiles_h, pair_store);
    return (int)cudaGetLastError();
}

#endif
