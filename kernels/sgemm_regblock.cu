/* kernels/sgemm_regblock.cu: step 4 of the SGEMM ladder, 2D register
 * blocking.
 *
 * Idea: a block of 256 threads computes a 128x128 tile of C; each thread owns
 * an 8x8 sub-tile held in 64 registers. Per k-slab of BK = 8, the block copies
 * a 128x8 tile of A and an 8x128 tile of B into shared memory; then, for each
 * of the 8 k's, a thread reads 8 values of A (a column of its rows) and 8 of B
 * (a row of its columns) and does 64 FFMAs with them: 16 shared loads for 64
 * FFMAs instead of 2 per FFMA as in the tiled kernels. Global loads are scalar
 * and A is kept row-major in shared memory (the next steps fix both).
 *
 * Constraints: any m, n, k >= 1; every load is predicated (zero outside the
 * matrix, so the edge tiles add zeros) and every store of C is predicated per
 * element. The tile sizes are fixed by the static_asserts below.
 *
 * Run just this variant: ./compare --variants regblock */
#include "sgemm.h"
#include "sgemm_common.cuh"

#define RB_BM 128 /* rows of C per block */
#define RB_BN 128 /* columns of C per block */
#define RB_BK 8   /* k-slab per shared-memory tile */
#define RB_TM 8   /* rows of C per thread */
#define RB_TN 8   /* columns of C per thread */
#define RB_THREADS ((RB_BM / RB_TM) * (RB_BN / RB_TN))

#define RB_A_STEP (RB_THREADS / RB_BK) /* rows between two A elements of one thread */
#define RB_B_STEP (RB_THREADS / RB_BN) /* rows between two B elements of one thread */

static_assert(RB_BM % RB_TM == 0 && RB_BN % RB_TN == 0, "thread tiles must cover the block tile");
static_assert(RB_THREADS % RB_BK == 0 && RB_THREADS % RB_BN == 0, "whole rows per load pass");
static_assert(RB_THREADS == 256, "launch bounds below assume 256 threads");
static_assert((RB_BM * RB_BK) % RB_THREADS == 0, "every thread loads the same number of A elements");
static_assert((RB_BK * RB_BN) % RB_THREADS == 0, "every thread loads the same number of B elements");

// ---- kernel ------------------------------------------------------------------------

static __global__ void __launch_bounds__(RB_THREADS, 2)
sgemm_regblock_kernel(const float *__restrict__ A, const float *__restrict__ B,
                      float *__restrict__ C, int m, int n, int k)
{
    __shared__ float As[RB_BM][RB_BK]; /* A tile, row-major as in global memory */
    __shared__ float Bs[RB_BK][RB_BN]; /* B tile */

    const int tid = threadIdx.x;
    const int bm = blockIdx.y * RB_BM; /* first row of C of this block */
    const int bn = blockIdx.x * RB_BN; /* first column of C of this block */
    const int tr = tid / (RB_BN / RB_TN); /* thread's rows: bm + tr*TM + [0, TM) */
    const int tc = tid % (RB_BN / RB_TN); /* thread's cols: bn + tc*TN + [0, TN) */

    /* Global-load assignment, fixed for the whole k loop. */
    const int a_r = tid / RB_BK, a_c = tid % RB_BK;
    const int b_r = tid / RB_BN, b_c = tid % RB_BN;
    const int b_col_ok = bn + b_c < n;
    const float *a_row = A + (size_t)min(bm + a_r, m - 1) * k + a_c; /* row clamped */
    const float *b_col = B + min(bn + b_c, n - 1); /* column clamped */
    /* (elements outside the matrix are never read: the loads below are predicated) */

    float acc[RB_TM][RB_TN];
#pragma unroll
    for (int i = 0; i < RB_TM; ++i)
#pragma unroll
        for (int j = 0; j < RB_TN; ++j)
            acc[i][j] = 0.0f;

    for (int k0 = 0; k0 < k; k0 += RB_BK) {
        /* Consecutive threads take consecutive elements of a row: coalesced.
         * Thread tid loads A(a_r + l*A_STEP, k0 + a_c) and B(k0 + b_r + l*B_STEP, bn + b_c). */
#pragma unroll
        for (int l = 0; l < RB_BM * RB_BK / RB_THREADS; ++l) {
            int r = a_r + l * RB_A_STEP;
            As[r][a_c] = (bm + r < m && k0 + a_c < k) ? a_row[(size_t)l * RB_A_STEP * k + k0] : 0.0f;
        }
#pragma unroll
        for (int l = 0; l < RB_BK * RB_BN / RB_THREADS; ++l) {
            int r = b_r + l * RB_B_STEP;
            Bs[r][b_c] = (k0 + r < k && b_col_ok) ? b_col[(size_t)(k0 + r) * n] : 0.0f;
        }
        __syncthreads(); /* tile filled */

#pragma unroll
        for (int kk = 0; kk < RB_BK; ++kk) {
            float a[RB_TM], b[RB_TN];
#pragma unroll
            for (int i = 0; i < RB_TM; ++i)
                a[i] = As[tr * RB_TM + i][kk];
#pragma unroll
            for (int j = 0; j < RB_TN; ++j)
                b[j] = Bs[kk][tc * RB_TN + j];
#pragma unroll
            for (int i = 0; i < RB_TM; ++i)
#pragma unroll
                for (int j = 0; j < RB_TN; ++j)
                    acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
        }
        __syncthreads(); /* everyone done reading before the next fill */
    }

#pragma unroll
    for (int i = 0; i < RB_TM; ++i) {
        int gr = bm + tr * RB_TM + i;
#pragma unroll
        for (int j = 0; j < RB_TN; ++j) {
            int gc = bn + tc * RB_TN + j;
            if (gr < m && gc < n)
                C[(size_t)gr * n + gc] = acc[i][j];
        }
    }
}

// ---- launcher ------------------------------------------------------------------------

extern "C" int sgemm_regblock(const float *A, const float *B, float *C, int m, int n, int k,
                              cudaStream_t stream)
{
    if (m < 1 || n < 1 || k < 1)
        return (int)cudaErrorInvalidValue;
    dim3 grid(SGEMM_CEIL_DIV(n, RB_BN), SGEMM_CEIL_DIV(m, RB_BM));
    sgemm_regblock_kernel<<<grid, RB_THREADS, 0, stream>>>(A, B, C, m, n, k);
    return (int)cudaGetLastError();
}
