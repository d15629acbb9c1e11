/* kernels/conv2d_fast.cu: the conv2d ladder's last rung, register blocking
 * for the single-channel image (c_in = c_out = 1, the course's case); other
 * cases go to its implicit-GEMM form (kernels/conv2d_fast_igemm.cu).
 *
 * Idea: with one channel a convolution does r * r FMAs per output and reads
 * one input element per output from DRAM: at small r it is a streaming
 * kernel, at large r an FMA kernel, and both want few instructions besides
 * the loads and the FMAs. So:
 *  - a block (32 x 8 threads) computes a 32 x 128 output tile; each thread
 *    a 4 x 4 block of it (4 rows, 4 adjacent columns). The block stages the
 *    tile's input plus the halo, (32 + r - 1) rows of 128 + 2P columns
 *    (P = r / 2 rounded up to 4, so that every row segment starts 16-byte
 *    aligned), in shared memory as FP32, with 16-byte loads of 4 elements
 *    (8-byte ones for fp16 / bf16) where width is a multiple of 4, else the
 *    same vectors from scalar loads with a bound check each (any width);
 *    outside the image: zeros (the padding);
 *  - each thread walks the 4 + r - 1 input rows its outputs read, once each:
 *    a row's 4 + r - 1 values come from shared memory as float4 loads
 *    (conflict-free: a warp reads one contiguous row segment), and feed
 *    every one of its up to 4 output rows that tap that row: 16 FMAs per
 *    mask element per row, with the loop fully unrolled (r is a template
 *    parameter) so every index is a register name;
 *  - the mask is staged in shared memory once per block and held in
 *    registers for r <= CONV2D_FAST_REG_R (r * r of them); larger masks are
 *    read from shared memory as broadcasts (the registers would spill);
 *  - outputs leave as one 16-byte (8-byte) store per row where width allows.
 * Multi-channel cases (c_in or c_out > 1) run conv2d_fast_igemm: an implicit
 * GEMM, on tensor cores for fp16 / bf16, on the FP32 lanes for fp32.
 * Constraints here: c_in = c_out = 1; odd r <= CONV2D_MAX_R; any height, width.
 * Run just this rung: compare --ops conv2d --variants fast */
#include "conv2d_common.cuh"

#include <stdio.h>

#define CONV2D_FAST_BX 32                                  /* threads across: 4 columns each */
#define CONV2D_FAST_BY 8                                   /* threads down: 4 rows each */
#define CONV2D_FAST_COLS 4                                 /* outputs a thread, across (one vector) */
#define CONV2D_FAST_ROWS 4                                 /* outputs a thread, down */
#define CONV2D_FAST_TW (CONV2D_FAST_BX * CONV2D_FAST_COLS) /* tile width, outputs */
#define CONV2D_FAST_TH (CONV2D_FAST_BY * CONV2D_FAST_ROWS) /* tile height, outputs */
#define CONV2D_FAST_REG_R 9                                /* masks up to 9 x 9 are held in registers */

/* 4 elements of T at p (16-byte aligned for float, 8-byte for 16-bit types)
 * widened to float */
static __device__ __forceinline__ float4 conv2d_fast_ld4(const float *p)
{
    return *reinterpret_cast<const float4 *>(p);
}
static __device__ __forceinline__ float4 conv2d_fast_ld4(const __half *p)
{
    const uint2 raw = *reinterpret_cast<const uint2 *>(p);
    const float2 a = __half22float2(*reinterpret_cast<const __half2 *>(&raw.x));
    const float2 b = __half22float2(*reinterpret_cast<const __half2 *>(&raw.y));
    return make_float4(a.x, a.y, b.x, b.y);
}
static __device__ __forceinline__ float4 conv2d_fast_ld4(const __nv_bfloat16 *p)
{
    const uint2 raw = *reinterpret_cast<const uint2 *>(p);
    const float2 a = __bfloat1622float2(*reinterpret_cast<const __nv_bfloat162 *>(&raw.x));
    const float2 b = __bfloat1622float2(*reinterpret_cast<const __nv_bfloat162 *>(&raw.y));
    return make_float4(a.x, a.y, b.x, b.y);
}

/* 4 floats rounded to T stored at p (aligned as above) */
static __device__ __forceinline__ void conv2d_fast_st4(float *p, const float *v)
{
    *reinterpret_cast<float4 *>(p) = make_float4(v[0], v[1], v[2], v[3]);
}
static __device__ __forceinline__ void conv2d_fast_st4(__half *p, const float *v)
{
    __half2 a = __floats2half2_rn(v[0], v[1]), b = __floats2half2_rn(v[2], v[3]);
    uint2 raw;
    raw.x = *reinterpret_cast<unsigned *>(&a);
    raw.y = *reinterpret_cast<unsigned *>(&b);
    *reinterpret_cast<uint2 *>(p) = raw;
}
static __device__ __forceinline__ void conv2d_fast_st4(__nv_bfloat16 *p, const float *v)
{
    __nv_bfloat162 a = __floats2bfloat162_rn(v[0], v[1]), b = __floats2bfloat162_rn(v[2], v[3]);
    uint2 raw;
    raw.x = *reinterpret_cast<unsigned *>(&a);
    raw.y = *reinterpret_cast<unsigned *>(&b);
    *reinterpret_cast<uint2 *>(p) = raw;
}

template <typename T, int R> static __global__ void __launch_bounds__(CONV2D_FAST_BX *CONV2D_FAST_BY)
    conv2d_fast_kernel(const T *__restrict__ x, const T *__restrict__ w, T *__restrict__ y, int h, int wd, int vec)
{
    constexpr int HALF = R / 2;
    constexpr int P = (HALF + 3) / 4 * 4;                     /* left and right margin, a multiple of 4 */
    constexpr int SH = CONV2D_FAST_TH + R - 1;                /* staged rows */
    constexpr int SW = CONV2D_FAST_TW + 2 * P;                /* staged columns */
    constexpr int SV = SW / 4;                                /* vectors a staged row */
    constexpr int NV = (P + HALF + CONV2D_FAST_COLS + 3) / 4; /* vectors a thread reads of a row */
    constexpr int OFF = P - HALF;                             /* a thread's first tap within its segment */
    constexpr int RR = R * R, RR4 = (RR + 3) / 4 * 4;
    static_assert(SW % 4 == 0, "staged rows are whole vectors: P is a multiple of 4");
    static_assert(NV * 4 <= CONV2D_FAST_COLS + 2 * P, "a thread's segment stays inside the staged row");
    __shared__ __align__(16) float tile[SH * SW];
    __shared__ __align__(16) float s_w[RR4];

    const int tid = threadIdx.y * CONV2D_FAST_BX + threadIdx.x;
    const int i0 = blockIdx.y * CONV2D_FAST_TH, j0 = blockIdx.x * CONV2D_FAST_TW;
    const long long plane = (long long)blockIdx.z * h * wd;
    const T *src = x + plane;

    /* stage the mask and the tile with its halo: every load of the thread
     * issued before the first store, so that they are all in flight at once */
    constexpr int NT = CONV2D_FAST_BX * CONV2D_FAST_BY, LOADS = (SH * SV + NT - 1) / NT;
    float4 staged[LOADS];
#pragma unroll
    for (int l = 0; l < LOADS; l++) {
        const int t = tid + l * NT, row = t / SV, cv = t % SV;
        const int i = i0 - HALF + row, j = j0 - P + cv * 4; /* j is a multiple of 4 */
        staged[l] = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
        if (t < SH * SV && i >= 0 && i < h) {
            const T *p = src + (long long)i * wd;
            if (vec) { /* width % 4 == 0: a vector is wholly inside or outside */
                if (j >= 0 && j < wd) staged[l] = conv2d_fast_ld4(p + j);
            } else {
                staged[l].x = j >= 0 && j < wd ? conv2d_f(p[j]) : 0.0f;
                staged[l].y = j + 1 >= 0 && j + 1 < wd ? conv2d_f(p[j + 1]) : 0.0f;
                staged[l].z = j + 2 >= 0 && j + 2 < wd ? conv2d_f(p[j + 2]) : 0.0f;
                staged[l].w = j + 3 >= 0 && j + 3 < wd ? conv2d_f(p[j + 3]) : 0.0f;
            }
        }
    }
    for (int t = tid; t < RR4; t += NT) s_w[t] = t < RR ? conv2d_f(__ldg(&w[t])) : 0.0f;
#pragma unroll
    for (int l = 0; l < LOADS; l++) {
        const int t = tid + l * NT;
        if (t < SH * SV) *reinterpret_cast<float4 *>(&tile[t * 4]) = staged[l]; /* row t / SV, vector t % SV */
    }
    __syncthreads();

    float wr[R <= CONV2D_FAST_REG_R ? RR : 1];
    if (R <= CONV2D_FAST_REG_R) {
#pragma unroll
        for (int t = 0; t < RR; t++) wr[t] = s_w[t];
    }

    float acc[CONV2D_FAST_ROWS][CONV2D_FAST_COLS];
#pragma unroll
    for (int a = 0; a < CONV2D_FAST_ROWS; a++)
#pragma unroll
        for (int b = 0; b < CONV2D_FAST_COLS; b++) acc[a][b] = 0.0f;

    /* input row q of the thread's window feeds output row a through mask row u =
     * q - a */
    const float *base = &tile[threadIdx.y * CONV2D_FAST_ROWS * SW + threadIdx.x * CONV2D_FAST_COLS];
#pragma unroll
    for (int q = 0; q < CONV2D_FAST_ROWS + R - 1; q++) {
        float seg[NV * 4];
#pragma unroll
        for (int s = 0; s < NV; s++) {
            const float4 v = *reinterpret_cast<const float4 *>(&base[q * SW + s * 4]);
            seg[4 * s] = v.x;
            seg[4 * s + 1] = v.y;
            seg[4 * s + 2] = v.z;
            seg[4 * s + 3] = v.w;
        }
#pragma unroll
        for (int a = 0; a < CONV2D_FAST_ROWS; a++) {
            const int u = q - a;
            if (u < 0 || u >= R) continue; /* resolved at compile time */
#pragma unroll
            for (int v = 0; v < R; v++) {
                const float m = R <= CONV2D_FAST_REG_R ? wr[R <= CONV2D_FAST_REG_R ? u * R + v : 0] : s_w[u * R + v];
#pragma unroll
                for (int b = 0; b < CONV2D_FAST_COLS; b++) acc[a][b] += seg[OFF + b + v] * m;
            }
        }
    }

    T *dst = y + plane;
    const int jc = j0 + threadIdx.x * CONV2D_FAST_COLS;
#pragma unroll
    for (int a = 0; a < CONV2D_FAST_ROWS; a++) {
        const int i = i0 + threadIdx.y * CONV2D_FAST_ROWS + a;
        if (i >= h) break;
        T *p = dst + (long long)i * wd + jc;
        if (vec && jc < wd) {
            conv2d_fast_st4(p, acc[a]);
        } else {
#pragma unroll
            for (int b = 0; b < CONV2D_FAST_COLS; b++)
                if (jc + b < wd) p[b] = conv2d_to<T>(acc[a][b]);
        }
    }
}

template <typename T, int R> static int conv2d_fast_launch(const conv2d_args *a, cudaStream_t s)
{
    const dim3 block(CONV2D_FAST_BX, CONV2D_FAST_BY);
    const dim3 grid((unsigned)((a->width + CONV2D_FAST_TW - 1) / CONV2D_FAST_TW),
                    (unsigned)((a->height + CONV2D_FAST_TH - 1) / CONV2D_FAST_TH), (unsigned)a->batch);
    /* 16-byte (8-byte) vectors: every row start aligned when width % 4 == 0 and
     * the buffers are */
    const size_t align = 4 * sizeof(T);
    const int vec = a->width % 4 == 0 && (size_t)a->x % align == 0 && (size_t)a->y % align == 0;
    conv2d_fast_kernel<T, R>
        <<<grid, block, 0, s>>>((const T *)a->x, (const T *)a->w, (T *)a->y, (int)a->height, (int)a->width, vec);
    return (int)cudaGetLastError();
}

template <typename T> struct conv2d_fast_run {
    static int run(const conv2d_args *a, cudaStream_t s)
    {
        switch (a->r) {
        case 1: return conv2d_fast_launch<T, 1>(a, s);
        case 3: return conv2d_fast_launch<T, 3>(a, s);
        case 5: return conv2d_fast_launch<T, 5>(a, s);
        case 7: return conv2d_fast_launch<T, 7>(a, s);
        case 9: return conv2d_fast_launch<T, 9>(a, s);
        case 11: return conv2d_fast_launch<T, 11>(a, s);
        case 13: return conv2d_fast_launch<T, 13>(a, s);
        case 15: return conv2d_fast_launch<T, 15>(a, s);
        default: return (int)cudaErrorInvalidValue;
        }
    }
};

extern "C" int conv2d_fast_supports(const conv2d_args *a, char *why, size_t why_len)
{
    if (!conv2d_case_ok(a, why, why_len)) return 0;
    if (a->c_in != 1 || a->c_out != 1) return conv2d_fast_igemm_supports(a, why, why_len);
    if (a->batch > 65535) {
        snprintf(why, why_len, "fast takes a batch of at most 65535 single-channel images (a grid's z)");
        return 0;
    }
    return 1;
}

extern "C" int conv2d_fast(const conv2d_args *a, cudaStream_t s)
{
    char why[256];
    if (!conv2d_fast_supports(a, why, sizeof why)) return (int)cudaErrorInvalidValue;
    if (a->c_in != 1 || a->c_out != 1) return conv2d_fast_igemm(a, s); /* kernels/conv2d_fast_igemm.cu */
    return conv2d_dispatch<conv2d_fast_run>(a, s);
}
