/* kernels/sgemm_tuned_rowa.cuh: kind rowa, sgemm_pipelined.cu's design as a
 * template over its shape.
 *
 * Idea: a cp.async multi-stage pipeline; A row-major in shared memory read
 * along k with LDS.128 from interleaved rows, B read as float4 by lane
 * groups, the thread tile in registers. Kept as the search's baseline: the
 * other kinds are this design with A transposed in shared memory.
 * Constraints: the static_asserts of sgemm_tuned_rowa_kernel; A needs no
 * alignment (copied element by element when !VEC). */
#ifndef KERNELS_SGEMM_TUNED_ROWA_CUH
#define KERNELS_SGEMM_TUNED_ROWA_CUH

#include "sgemm_tuned_common.cuh"

/* Issues the copies of the next k-slab into the stage at stage offset `so`
 * (no commit) and advances the running sources and "k left" counters. */
template <int BM, int BN, int BK, int THREADS, int VEC>
static __device__ __forceinline__ void sgemm_tuned_rowa_copy(float *as_dst, float *bs_dst, int so,
                                                             const float *&a_src, const float *&b_src,
                                                             int a_rows_left, int &a_k_left,
                                                             int &b_k_left, int b_col, int n, int k,
                                                             const float *A, const float *B)
{
    constexpr int AS_LD = BK + 4;                      /* As row stride, floats */
    constexpr int A_CHUNKS = BM * BK / 4 / THREADS;    /* A chunks per thread per slab */
    constexpr int B_CHUNKS = BK * BN / 4 / THREADS;
    constexpr int A_STEP = THREADS / (BK / 4);         /* rows between a thread's A chunks */
    constexpr int B_STEP = THREADS / (BN / 4);
#pragma unroll
    for (int l = 0; l < A_CHUNKS; ++l)
        sgemm_cp_async_chunk(as_dst + so + l * A_STEP * AS_LD, a_src + (size_t)l * A_STEP * k,
                             l * A_STEP < a_rows_left, 0, a_k_left, A, VEC);
#pragma unroll
    for (int l = 0; l < B_CHUNKS; ++l)
        sgemm_cp_async_chunk(bs_dst + so + l * B_STEP * BN, b_src + (size_t)l * B_STEP * n,
                             l * B_STEP < b_k_left, b_col, n, B, VEC);
    a_src += BK;
    b_src += (size_t)BK * n;
    a_k_left -= BK;
    b_k_left -= BK;
}

/* Block tile BM x BN, k-slab BK, warp tile WM x WN, thread tile TM x TN (rows
 * interleaved by WM/TM, columns in float4 groups), ST stages. */
template <int BM, int BN, int BK, int WM, int WN, int TM, int TN, int ST, int MINB, int VEC>
static __global__ void __launch_bounds__(sgemm_tuned_threads(BM, BN, WM, WN), MINB)
sgemm_tuned_rowa_kernel(const float *__restrict__ A, const float *__restrict__ B,
                        float *__restrict__ C, int m, int n, int k)
{
    constexpr int LM = WM / TM;          /* lanes of a warp along m */
    constexpr int LN = WN / TN;          /* lanes of a warp along n */
    constexpr int WARPS_N = BN / WN;
    constexpr int THREADS = sgemm_tuned_threads(BM, BN, WM, WN);
    constexpr int AS_LD = BK + 4;        /* As row stride, floats */
    constexpr int STAGE_FLOATS = BM * AS_LD + BK * BN;
    static_assert(LM * LN == 32 && WM % TM == 0 && WN % TN == 0, "a warp is 32 lanes");
    static_assert(LM <= 8 && LN <= 8,
                  "<= 8 distinct As rows / Bs float4 per LDS.128 keep reads conflict-free");
    static_assert(BM % WM == 0 && BN % WN == 0, "warp tiles must cover the block tile");
    static_assert(TN % 4 == 0, "B fragments are read as float4");
    static_assert(BK % 8 == 0, "BK/4 even keeps the As stride BK+4 conflict-free");
    static_assert(ST >= 2, "need at least double buffering");
    static_assert(THREADS <= 1024, "block size");
    static_assert((BM * BK / 4) % THREADS == 0 && THREADS % (BK / 4) == 0,
                  "A chunks spread evenly, a thread keeps its k column");
    static_assert((BK * BN / 4) % THREADS == 0 && THREADS % (BN / 4) == 0,
                  "B chunks spread evenly, a thread keeps its n column");
    static_assert(SMEM_SM90_FITS(ST * STAGE_FLOATS * 4, MINB),
                  "MINB blocks per SM fit in sm_90 shared memory");

    float *smem = (float *)sgemm_tuned_smem;
    const int tid = threadIdx.x;
    const int bm = blockIdx.y * BM;
    const int bn = blockIdx.x * BN;
    const int warp = tid / 32, lane = tid % 32;
    const int tm0 = (warp / WARPS_N) * WM + lane / LN;       /* rows tm0 + i*LM */
    const int tn0 = (warp % WARPS_N) * WN + (lane % LN) * 4; /* cols tn0 + j4*LN*4 + [0,4) */

    /* copies, fixed for the whole loop: A chunks (bm + a_r + l*A_STEP, a_c..+3),
     * B chunks (b_r + l*B_STEP, bn + b_c..+3) of each slab */
    const int a_r = tid / (BK / 4), a_c = (tid % (BK / 4)) * 4;
    const int b_r = tid / (BN / 4), b_c = (tid % (BN / 4)) * 4;
    const int a_rows_left = m - (bm + a_r);
    const float *a_src = A + (size_t)(bm + a_r) * k + a_c;
    const float *b_src = B + (size_t)b_r * n + bn + b_c;
    float *as_dst = smem + a_r * AS_LD + a_c;
    float *bs_dst = smem + BM * AS_LD + b_r * BN + b_c;
    int a_k_left = k - a_c;
    int b_k_left = k - b_r;
    const int ntiles = SGEMM_CEIL_DIV(k, BK);

    /* slabs 0 .. ST-2 in flight, one group each (empty ones keep the count uniform) */
#pragma unroll
    for (int s = 0; s < ST - 1; ++s) {
        if (s < ntiles) {
            sgemm_tuned_rowa_copy<BM, BN, BK, THREADS, VEC>(as_dst, bs_dst, s * STAGE_FLOATS, a_src,
                                                            b_src, a_rows_left, a_k_left, b_k_left,
                                                            bn + b_c, n, k, A, B);
        }
        cp_async_commit();
    }

    float acc[TM][TN];
#pragma unroll
    for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int j = 0; j < TN; ++j)
            acc[i][j] = 0.0f;

    int read_stage = 0, write_stage = ST - 1;
    for (int t = 0; t < ntiles; ++t) {
        /* slabs 0..t landed (this thread); the barrier makes them visible and
         * frees stage (t-1) % ST for slab t+ST-1 */
        cp_async_wait(ST - 2);
        __syncthreads();
        if (t + ST - 1 < ntiles) {
            sgemm_tuned_rowa_copy<BM, BN, BK, THREADS, VEC>(as_dst, bs_dst, write_stage * STAGE_FLOATS,
                                                            a_src, b_src, a_rows_left, a_k_left,
                                                            b_k_left, bn + b_c, n, k, A, B);
        }
        cp_async_commit();

        const float *as = smem + read_stage * STAGE_FLOATS;
        const float *bs = as + BM * AS_LD;
#pragma unroll
        for (int kc = 0; kc < BK; kc += 4) {
            float a[TM][4]; /* a[i][q] = A(tm0 + i*LM, kc + q) */
#pragma unroll
            for (int i = 0; i < TM; ++i) {
                float4 v = *(const float4 *)&as[(tm0 + i * LM) * AS_LD + kc];
                a[i][0] = v.x, a[i][1] = v.y, a[i][2] = v.z, a[i][3] = v.w;
            }
#pragma unroll
            for (int q = 0; q < 4; ++q) {
                float b[TN];
#pragma unroll
                for (int j4 = 0; j4 < TN / 4; ++j4) {
                    float4 v = *(const float4 *)&bs[(kc + q) * BN + tn0 + j4 * (LN * 4)];
                    b[j4 * 4 + 0] = v.x, b[j4 * 4 + 1] = v.y, b[j4 * 4 + 2] = v.z, b[j4 * 4 + 3] = v.w;
                }
#pragma unroll
                for (int i = 0; i < TM; ++i)
#pragma unroll
                    for (int j = 0; j < TN; ++j)
                        acc[i][j] = fmaf(a[i][q], b[j], acc[i][j]);
            }
        }
        read_stage = read_stage + 1 == ST ? 0 : read_stage + 1;
        write_stage = write_stage + 1 == ST ? 0 : write_stage + 1;
    }

#pragma unroll
    for (int i = 0; i < TM; ++i) {
        const int gr = bm + tm0 + i * LM;
        float *c_row = C + (size_t)(gr < m ? gr : 0) * n;
#pragma unroll
        for (int j4 = 0; j4 < TN / 4; ++j4)
            sgemm_store4(c_row, gr < m, bn + tn0 + j4 * (LN * 4), n, VEC,
                         make_float4(acc[i][j4 * 4 + 0], acc[i][j4 * 4 + 1], acc[i][j4 * 4 + 2],
                                     acc[i][j4 * 4 + 3]));
    }
}

#endif
