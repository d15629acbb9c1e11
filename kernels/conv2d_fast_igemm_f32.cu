/* kernels/conv2d_fast_igemm_f32.cu: the fp32 multi-channel form of the conv2d
 * ladder's `fast` rung: the implicit GEMM of kernels/conv2d_fast_igemm.cu
 * (Y[k][p] = sum_q W[k][q] X[q][p], q = (c, u, v), p = (n, i, j), X gathered
 * from the input on the fly) on the FP32 SIMT lanes, so that the row's math
 * stays fp32 (tensor cores would round the inputs to TF32).
 *
 * Idea: the register-blocked SGEMM applied to the gathered operand:
 *  - a block computes a 64 x 128 tile of Y (output channels x pixels), each
 *    of its 256 threads 4 channels x 8 pixels (pixels 4 t.. and 64 + 4 t..,
 *    so that a warp's float4 reads of a shared row are contiguous);
 *  - per slice of 16 of the reduction, W's 64 x 16 piece is staged k-major
 *    (sA[q][m]) and X's 16 x 128 gathered piece k-major (sB[q][p]); each k
 *    step is one float4 of W and two float4 of X from shared memory for 32
 *    FMAs;
 *  - each thread gathers X for one pixel (fixed for the whole reduction) and
 *    8 values of q a slice, stepping (c, u, v) without a division; the next
 *    slice's loads are issued before the current slice's FMAs.
 * Constraints: fp32; batch h w and c_in r r below 2^30; odd r <= CONV2D_MAX_R.
 * Run just this rung: compare --ops conv2d --variants fast --axis c_in=64 --axis c_out=64 ... */
#include "conv2d_common.cuh"

#include "kernel_ran.h"

#define CONV2D_IGF_BM 64
#define CONV2D_IGF_BN 128
#define CONV2D_IGF_BK 16
#define CONV2D_IGF_THREADS 256
#define CONV2D_IGF_A_PER (CONV2D_IGF_BM * CONV2D_IGF_BK / CONV2D_IGF_THREADS) /* W elements a thread stages */
#define CONV2D_IGF_B_PER (CONV2D_IGF_BN * CONV2D_IGF_BK / CONV2D_IGF_THREADS) /* X elements a thread stages */

static __global__ void __launch_bounds__(CONV2D_IGF_THREADS)
    conv2d_fast_igemm_f32_kernel(const float *__restrict__ x, const float *__restrict__ w, float *__restrict__ y,
                                 int c_in, int c_out, int h, int wd, int r, long long pixels)
{
    __shared__ __align__(16) float sA[CONV2D_IGF_BK][CONV2D_IGF_BM]; /* W: [q][m] */
    __shared__ __align__(16) float sB[CONV2D_IGF_BK][CONV2D_IGF_BN]; /* X: [q][p] */
    const int tid = threadIdx.x;
    const int tm = tid / 16, tn = tid % 16; /* channels 4 tm.., pixels 4 tn.. and 64 + 4 tn.. */
    const int m0 = blockIdx.y * CONV2D_IGF_BM;
    const long long p0 = (long long)blockIdx.x * CONV2D_IGF_BN;
    /* this thread's X column (one pixel) and rows bq, bq + BQ_STEP, ... of a slice */
    const int bn = tid % CONV2D_IGF_BN, bq = tid / CONV2D_IGF_BN;
    constexpr int BQ_STEP = CONV2D_IGF_THREADS / CONV2D_IGF_BN;
    conv2d_gather<float> gx(x, p0 + bn, pixels, c_in, h, wd, r);
    const int kdim = gx.kdim;
    const long long hw = gx.hw;

    float ra[CONV2D_IGF_A_PER], rb[CONV2D_IGF_B_PER];
    /* the slice from q0 into ra, rb (global loads, zeros outside) */
    auto fetch = [&](int q0) {
#pragma unroll
        for (int l = 0; l < CONV2D_IGF_A_PER; l++) { /* W element (m, q): consecutive threads, consecutive q */
            const int e = tid + l * CONV2D_IGF_THREADS, am = e / CONV2D_IGF_BK, aq = e % CONV2D_IGF_BK;
            const int m = m0 + am, q = q0 + aq;
            ra[l] = m < c_out && q < kdim ? w[(long long)m * kdim + q] : 0.0f;
        }
        gx.start(q0 + bq);
#pragma unroll
        for (int l = 0; l < CONV2D_IGF_B_PER; l++) {
            rb[l] = gx.value();
            gx.step(BQ_STEP);
        }
    };
    auto stage = [&]() {
#pragma unroll
        for (int l = 0; l < CONV2D_IGF_A_PER; l++) {
            const int e = tid + l * CONV2D_IGF_THREADS;
            sA[e % CONV2D_IGF_BK][e / CONV2D_IGF_BK] = ra[l];
        }
#pragma unroll
        for (int l = 0; l < CONV2D_IGF_B_PER; l++) sB[bq + l * BQ_STEP][bn] = rb[l];
    };

    float acc[4][8];
#pragma unroll
    for (int i = 0; i < 4; i++)
#pragma unroll
        for (int j = 0; j < 8; j++) acc[i][j] = 0.0f;

    fetch(0);
    stage();
    __syncthreads();
    for (int q0 = 0; q0 < kdim; q0 += CONV2D_IGF_BK) {
        const bool more = q0 + CONV2D_IGF_BK < kdim;
        if (more) fetch(q0 + CONV2D_IGF_BK); /* in flight during the FMAs */
#pragma unroll
        for (int k = 0; k < CONV2D_IGF_BK; k++) {
            const float4 a = *reinterpret_cast<const float4 *>(&sA[k][4 * tm]);
            const float4 b0 = *reinterpret_cast<const float4 *>(&sB[k][4 * tn]);
            const float4 b1 = *reinterpret_cast<const float4 *>(&sB[k][64 + 4 * tn]);
            const float av[4] = {a.x, a.y, a.z, a.w};
            const float bv[8] = {b0.x, b0.y, b0.z, b0.w, b1.x, b1.y, b1.z, b1.w};
#pragma unroll
            for (int i = 0; i < 4; i++)
#pragma unroll
                for (int j = 0; j < 8; j++) acc[i][j] += av[i] * bv[j];
        }
        __syncthreads(); /* every thread is done reading this slice */
        if (more) {
            stage();
            __syncthreads();
        }
    }

#pragma unroll
    for (int i = 0; i < 4; i++) {
        const int m = m0 + 4 * tm + i;
        if (m >= c_out) break;
#pragma unroll
        for (int j = 0; j < 8; j++) {
            const long long p = p0 + (j < 4 ? 4 * tn + j : 64 + 4 * tn + j - 4);
            if (p >= pixels) continue;
            const long long n = p / hw, rem = p % hw;
            y[(n * c_out + m) * hw + rem] = acc[i][j];
        }
    }
}

extern "C" int conv2d_fast_igemm_f32(const conv2d_args *a, cudaStream_t s)
{
    const long long pixels = a->batch * a->height * a->width;
    const dim3 grid((unsigned)((pixels + CONV2D_IGF_BN - 1) / CONV2D_IGF_BN),
                    (unsigned)((a->c_out + CONV2D_IGF_BM - 1) / CONV2D_IGF_BM));
    if (a->type != ELEM_FP32) return (int)cudaErrorInvalidValue;
    kernel_ran_note("fast_igemm_f32_simt_64x128x16", NULL);
    conv2d_fast_igemm_f32_kernel<<<grid, CONV2D_IGF_THREADS, 0, s>>>((const float *)a->x, (const float *)a->w,
                                                                     (float *)a->y, (int)a->c_in, (int)a->c_out,
                                                                     (int)a->height, (int)a->width, a->r, pixels);
    return (int)cudaGetLastError();
}
