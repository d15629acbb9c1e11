/* kernels/sgemm_search.cu: a small space of shapes of the step-7 kernel
 * (sgemm_pipelined.cu), for picking the fastest on the target GPU.
 *
 * Idea: the design of sgemm_pipelined (cp.async multi-stage pipeline, A
 * row-major in shared memory read along k with LDS.128 from interleaved rows,
 * B read as float4 by 4x4-style lane groups, thread tile held in registers) is
 * written once as a macro, SGEMM_SEARCH_CONFIG, and instantiated for each row
 * of SGEMM_SEARCH_LIST below: block tile BM x BN, k-slab BK, warp tile WM x
 * WN, thread tile TM x TN, pipeline stages, minimum blocks per SM for
 * __launch_bounds__ (2 x 256 or 1 x 512 threads -> at most 128 registers;
 * 2 x 128 or 1 x 256 threads -> up to 255, which the 8x16 thread tiles need).
 * `compare` times every candidate through sgemm_search_count / _name / _run;
 * sgemm_tuned runs the one picked by SGEMM_TUNED_INDEX.
 *
 * Constraints: any m, n, k >= 1, edges handled as in sgemm_pipelined (16-byte
 * zero-fill cp.async when k % 4 == 0 and n % 4 == 0, else 4-byte ones; C
 * stores predicated; the transposed-A kernel copies A element by element, so
 * A needs no alignment at all). Shape constraints are static_asserts in the macro.
 * Every candidate uses dynamic shared memory (opt-in set by its launcher).
 * The stream-K candidates (_sk, and so `tuned` from 2^20 outputs) launch
 * cooperatively (every block resident, or the launch fails) and share one
 * set of flags per device: two of their launches must not run at the same
 * time (on one stream they never do). Their split tiles are summed in C
 * with FP32 atomic adds (subnormal sums flush to zero).
 *
 * A second kernel, SGEMM_SEARCH_DB_CONFIG, stores the A slab transposed in
 * shared memory ([BK][BM+4], written by 4-byte cp.async), so one k-step of a
 * thread's fragments is TM/4 + TN/4 LDS.128 and fits twice in registers: the
 * fragments of k-step kk+1 are loaded while the FFMAs of kk issue, and the
 * slab's single barrier sits before its last k-step, whose FFMAs hide the
 * first loads of the next slab. It can also swizzle the block order (GROUP
 * block rows walked down before moving right) so co-resident blocks share
 * A and B panels in L2.
 *
 * A third kernel, SGEMM_SEARCH_DB3_CONFIG, is the second with its slab
 * copies spread over the k-steps, clamped copy sources and the barrier moved
 * mid-slab (see its comment): on the H200 that took the FP32 SGEMM from
 * 88-91% to 98-100% of cuBLAS FP32. The profile behind each step (ncu,
 * clocks as found) is in tests/ncu_sgemm.sh's output; cuBLAS's own FP32
 * kernel there is sm80_xmma_gemm_..._tilesize256x128x8_stage3_warpsize4x2x1_ffma
 * (256 threads of 8x16, 254 registers, FFMA pipe 79% busy, issue 89%).
 * SGEMM_SEARCH_DB3S_CONFIG is the third kernel with C staged through shared
 * memory (SGEMM_SEARCH_DB_STAGED_C), which also frees ptxas to choose
 * registers with fewer FFMA operand bank conflicts.
 *
 * A fourth kernel, SGEMM_SEARCH_SK_CONFIG, runs the third kernel's main loop
 * on a persistent stream-K grid (one block per resident slot, full waves of
 * tiles shared out as in the third kernel's grid, the last partial wave's
 * tiles split along k between neighbouring blocks and finished through C),
 * with C staged: it fills the SMs the last wave leaves idle (128 tiles of
 * 128x256 at n = 2048 on 132 SMs). `tuned` runs it: 100.7 / 103.2 / 102.4%
 * of cuBLAS FP32 at n = 2048 / 4096 / 8192 in compare-search.
 *
 * Candidates (SGEMM_SEARCH_LIST, then SGEMM_SEARCH_DB_LIST, then
 * SGEMM_SEARCH_DB3_LIST, SGEMM_SEARCH_SK_LIST, SGEMM_SEARCH_DB3S_LIST; names
 * of the second kind end in _db_gGROUP, of the third in _gGROUP_spSP_bB0,
 * then _sk for the fourth kernel and _st for the third with C staged): 128x128 with 256 threads of 8x8 (warps
 * 64x32 or 32x64, 3/4 stages) or 128 threads of 8x16; 256x128 with 512
 * threads, 128x256 with 256 threads of 8x16; 128x64 for small n; then the
 * transposed-A kernel at 128x128 (128 threads of 8x16, BK 8/16/32, 3/4
 * stages, swizzle 0/8) and 128x256 / 256x128 (256 threads of 8x16, 1 block
 * per SM); then the third kernel around the winner; then the fourth kernel
 * and the staged third at the three best shapes. Dropped after the first
 * H200 sweep (dominated): 128x128x8 8x8 s4, 128x128x8 8x16 s4, 128x256x16
 * 8x8, 128x256x8 8x16 s4, 64x64x16 4x8. Removed after the second H200 sweep
 * (results/h200/search.txt, rows 15-22): a kernel with an unpredicated fast
 * path for tile-multiple sizes, around the then winner [12] (4/6/8 stages,
 * swizzle groups 4/8/16, BK 16, a serpentine FFMA order): 84-88% of cuBLAS,
 * none above [12] (it kept the copies in one block, branch included).
 *
 * Measured on the H200: every candidate in results/h200/search_fp32.txt
 * (compare-search --family fp32 --n 2048,4096,8192); sgemm_tuned (row 23) in
 * results/h200/sgemm.csv (figures in the comment at SGEMM_TUNED_INDEX).
 * Run just this: ./compare --variants tuned (the candidates are reached
 * through sgemm_search_run, one row each where the harness lists them). */
#include "sgemm.h"
#include "sgemm_common.cuh"
#include "sgemm_search.h"

/* Candidate chosen by sgemm_tuned: index into the candidate table, the
 * compare-search winner on the H200 (2026-11-30, median, L2 flushed; the
 * run is results/h200/search_fp32.txt):
 *   [23] 128x256x8_w64x64_t8x16_s4_g8_sp2_b4_sk (the fourth kernel: [17]'s
 *   main loop on a stream-K grid, C staged through shared memory): 100.7 /
 *   103.2 / 102.4% of cuBLAS FP32 at n = 2048 / 4096 / 8192. Runner-ups in
 *   the same run: [24] (warps 32x128) 100.3 / 103.0 / 102.0; [27] (the third
 *   kernel, C staged, one block per tile) 100.6 / 100.4 / 101.3; the previous
 *   pick [17] 98.6 / 97.9 / 99.1.
 * In results/h200/sgemm.csv (compare --ops sgemm --n 2048,4096,8192 at
 * 2971c2d) `tuned` ran at 50.6 / 53.2 / 53.6 TFLOP/s = 100.8 / 103.8 /
 * 105.7% of cuBLAS FP32 (76-80% of the FP32 peak); the sweep at 2971c2d has
 * 55 / 46 / 97% at n = 256 / 512 / 1024. */
#ifndef SGEMM_TUNED_INDEX /* -DCOMPARE_KERNEL_DEFS=SGEMM_TUNED_INDEX=i retunes without an edit */
#define SGEMM_TUNED_INDEX 23
#endif
/* Below 2^20 outputs (n < 1024 for square C) sgemm_tuned runs [6], the
 * 128x64 tile of the first kernel (4 blocks of 128 threads per SM): in the
 * same session (results/h200/search_fp32_small.txt) it ran at 57.3 / 46.6 /
 * 93.6% of cuBLAS FP32 at n = 256 / 512 / 1024, [23] at 37.5 / 37.0 / 95.3
 * and the previous small pick [15] at 37 / 30 / 62 (6e29a4a sweep). */
#ifndef SGEMM_TUNED_SMALL_INDEX
#define SGEMM_TUNED_SMALL_INDEX 6
#endif
#define SGEMM_TUNED_SMALL_OUTPUTS (1LL << 20)

// ---- the kernel, as a macro --------------------------------------------------------

/* Issues the copies of the next k-slab into stage `stage` (no commit) and
 * advances the running source pointers and "k left" counters. Expanded
 * inside sgemm_search_body_* only (it names that function's locals). */
#define SGEMM_SEARCH_LOAD_TILE(stage)                                                      \
    do {                                                                                   \
        const int so_ = (stage) * STAGE_FLOATS;                                            \
        _Pragma("unroll") for (int l = 0; l < A_CHUNKS; ++l)                               \
            sgemm_cp_async_chunk(as_dst + so_ + l * A_STEP * AS_LD,                        \
                                 a_src + (size_t)l * A_STEP * k, l * A_STEP < a_rows_left, \
                                 0, a_k_left, A, vec);                                     \
        _Pragma("unroll") for (int l = 0; l < B_CHUNKS; ++l)                               \
            sgemm_cp_async_chunk(bs_dst + so_ + l * B_STEP * BS_LD,                        \
                                 b_src + (size_t)l * B_STEP * n, l * B_STEP < b_k_left,    \
                                 bn + b_c, n, B, vec);                                     \
        a_src += SLAB;                                                                     \
        b_src += (size_t)SLAB * n;                                                         \
        a_k_left -= SLAB;                                                                  \
        b_k_left -= SLAB;                                                                  \
    } while (0)

/* Defines sgemm_search_launch_##ID (and its two kernels): the kernel of
 * sgemm_pipelined.cu with block tile BM x BN, k-slab BK, warp tile WM x WN,
 * thread tile TMP x TNP (rows interleaved by WM/TMP, columns in float4 groups),
 * ST stages, and __launch_bounds__(threads, MINB). */
#define SGEMM_SEARCH_CONFIG(ID, BM, BN, BK, WM, WN, TMP, TNP, ST, MINB)                            \
static __device__ __forceinline__ void sgemm_search_body_##ID(const float *__restrict__ A,          \
                                                             const float *__restrict__ B,           \
                                                             float *__restrict__ C, int m, int n,   \
                                                             int k, int vec)                        \
{                                                                                                   \
    const int TM = (TMP);                               /* rows of C per thread (interleaved) */    \
    const int TN = (TNP);                               /* columns of C per thread */               \
    const int LM = (WM) / TM;                           /* lanes of a warp along m */               \
    const int LN = (WN) / TN;                           /* lanes of a warp along n */               \
    const int WARPS_N = (BN) / (WN);                                                                \
    const int THREADS = 32 * ((BM) / (WM)) * WARPS_N;                                               \
    const int AS_LD = (BK) + 4;                         /* As row stride, floats */                 \
    const int STAGE_FLOATS = (BM) * AS_LD + (BK) * (BN);                                            \
    const int A_CHUNKS = (BM) * (BK) / 4 / THREADS;     /* A chunks per thread per slab */          \
    const int B_CHUNKS = (BK) * (BN) / 4 / THREADS;                                                 \
    const int A_STEP = THREADS / ((BK) / 4);            /* rows between a thread's A chunks */      \
    const int B_STEP = THREADS / ((BN) / 4);                                                        \
    const int BS_LD = (BN);                             /* Bs row stride, floats */                 \
    const int SLAB = (BK);                                                                          \
    static_assert(LM * LN == 32 && (WM) % TM == 0 && (WN) % TN == 0, "a warp is 32 lanes");         \
    static_assert(LM <= 8 && LN <= 8,                                                               \
                  "<= 8 distinct As rows / Bs float4 per LDS.128 keep reads conflict-free");        \
    static_assert((BM) % (WM) == 0 && (BN) % (WN) == 0, "warp tiles must cover the block tile");    \
    static_assert(TN % 4 == 0, "B fragments are read as float4");                                   \
    static_assert((BK) % 8 == 0, "BK/4 even keeps the As stride BK+4 conflict-free");               \
    static_assert((ST) >= 2, "need at least double buffering");                                     \
    static_assert(THREADS <= 1024, "block size");                                                   \
    static_assert(((BM) * (BK) / 4) % THREADS == 0 && THREADS % ((BK) / 4) == 0,                    \
                  "A chunks spread evenly, a thread keeps its k column");                           \
    static_assert(((BK) * (BN) / 4) % THREADS == 0 && THREADS % ((BN) / 4) == 0,                    \
                  "B chunks spread evenly, a thread keeps its n column");                           \
    static_assert((ST) * STAGE_FLOATS * 4 <= 227 * 1024, "shared memory per block");                \
                                                                                                    \
    extern __shared__ float4 sgemm_search_smem[];                                                   \
    float *smem = (float *)sgemm_search_smem;                                                       \
                                                                                                    \
    const int tid = threadIdx.x;                                                                    \
    const int bm = blockIdx.y * (BM);                                                               \
    const int bn = blockIdx.x * (BN);                                                               \
    const int warp = tid / 32, lane = tid % 32;                                                     \
    const int tm0 = (warp / WARPS_N) * (WM) + lane / LN;     /* rows tm0 + i*LM */                  \
    const int tn0 = (warp % WARPS_N) * (WN) + (lane % LN) * 4; /* cols tn0 + j4*LN*4 + [0,4) */     \
                                                                                                    \
    const int a_r = tid / ((BK) / 4), a_c = (tid % ((BK) / 4)) * 4;                                 \
    const int b_r = tid / ((BN) / 4), b_c = (tid % ((BN) / 4)) * 4;                                 \
    const int a_rows_left = m - (bm + a_r);                                                         \
    const float *a_src = A + (size_t)(bm + a_r) * k + a_c;                                          \
    const float *b_src = B + (size_t)b_r * n + bn + b_c;                                            \
    float *as_dst = smem + a_r * AS_LD + a_c;                                                       \
    float *bs_dst = smem + (BM) * AS_LD + b_r * (BN) + b_c;                                         \
    int a_k_left = k - a_c;                                                                         \
    int b_k_left = k - b_r;                                                                         \
    const int ntiles = SGEMM_CEIL_DIV(k, (BK));                                                     \
                                                                                                    \
    _Pragma("unroll") for (int s = 0; s < (ST) - 1; ++s) {                                          \
        if (s < ntiles) {                                                                           \
            SGEMM_SEARCH_LOAD_TILE(s);                                                              \
        }                                                                                           \
        sgemm_cp_async_commit();                                                                    \
    }                                                                                               \
                                                                                                    \
    float acc[TM][TN];                                                                              \
    _Pragma("unroll") for (int i = 0; i < TM; ++i)                                                  \
        _Pragma("unroll") for (int j = 0; j < TN; ++j)                                              \
            acc[i][j] = 0.0f;                                                                       \
                                                                                                    \
    int read_stage = 0, write_stage = (ST) - 1;                                                     \
    for (int t = 0; t < ntiles; ++t) {                                                              \
        SGEMM_CP_ASYNC_WAIT((ST) - 2);                                                              \
        __syncthreads();                                                                            \
        if (t + (ST) - 1 < ntiles) {                                                                \
            SGEMM_SEARCH_LOAD_TILE(write_stage);                                                    \
        }                                                                                           \
        sgemm_cp_async_commit();                                                                    \
                                                                                                    \
        const float *as = smem + read_stage * STAGE_FLOATS;                                         \
        const float *bs = as + (BM) * AS_LD;                                                        \
        _Pragma("unroll") for (int kc = 0; kc < (BK); kc += 4) {                                    \
            float a[TM][4];                                                                         \
            _Pragma("unroll") for (int i = 0; i < TM; ++i) {                                        \
                float4 v = *(const float4 *)&as[(tm0 + i * LM) * AS_LD + kc];                       \
                a[i][0] = v.x, a[i][1] = v.y, a[i][2] = v.z, a[i][3] = v.w;                         \
            }                                                                                       \
            _Pragma("unroll") for (int q = 0; q < 4; ++q) {                                         \
                float b[TN];                                                                        \
                _Pragma("unroll") for (int j4 = 0; j4 < TN / 4; ++j4) {                             \
                    float4 v = *(const float4 *)&bs[(kc + q) * (BN) + tn0 + j4 * (LN * 4)];         \
                    b[j4 * 4 + 0] = v.x, b[j4 * 4 + 1] = v.y, b[j4 * 4 + 2] = v.z, b[j4 * 4 + 3] = v.w; \
                }                                                                                   \
                _Pragma("unroll") for (int i = 0; i < TM; ++i)                                      \
                    _Pragma("unroll") for (int j = 0; j < TN; ++j)                                  \
                        acc[i][j] = fmaf(a[i][q], b[j], acc[i][j]);                                 \
            }                                                                                       \
        }                                                                                           \
        read_stage = read_stage + 1 == (ST) ? 0 : read_stage + 1;                                   \
        write_stage = write_stage + 1 == (ST) ? 0 : write_stage + 1;                                \
    }                                                                                               \
                                                                                                    \
    _Pragma("unroll") for (int i = 0; i < TM; ++i) {                                                \
        const int gr = bm + tm0 + i * LM;                                                           \
        float *c_row = C + (size_t)(gr < m ? gr : 0) * n;                                           \
        _Pragma("unroll") for (int j4 = 0; j4 < TN / 4; ++j4)                                       \
            sgemm_store4(c_row, gr < m, bn + tn0 + j4 * (LN * 4), n, vec,                           \
                         make_float4(acc[i][j4 * 4 + 0], acc[i][j4 * 4 + 1], acc[i][j4 * 4 + 2],    \
                                     acc[i][j4 * 4 + 3]));                                          \
    }                                                                                               \
}                                                                                                   \
                                                                                                    \
static __global__ void __launch_bounds__(32 * ((BM) / (WM)) * ((BN) / (WN)), MINB)                  \
sgemm_search_kernel_f4_##ID(const float *__restrict__ A, const float *__restrict__ B,               \
                            float *__restrict__ C, int m, int n, int k)                             \
{                                                                                                   \
    sgemm_search_body_##ID(A, B, C, m, n, k, 1);                                                    \
}                                                                                                   \
                                                                                                    \
static __global__ void __launch_bounds__(32 * ((BM) / (WM)) * ((BN) / (WN)), MINB)                  \
sgemm_search_kernel_scalar_##ID(const float *__restrict__ A, const float *__restrict__ B,           \
                                float *__restrict__ C, int m, int n, int k)                         \
{                                                                                                   \
    sgemm_search_body_##ID(A, B, C, m, n, k, 0);                                                    \
}                                                                                                   \
                                                                                                    \
static int sgemm_search_launch_##ID(const float *A, const float *B, float *C, int m, int n, int k,  \
                                    cudaStream_t stream)                                            \
{                                                                                                   \
    const int threads = 32 * ((BM) / (WM)) * ((BN) / (WN));                                         \
    const int smem_bytes = (ST) * ((BM) * ((BK) + 4) + (BK) * (BN)) * (int)sizeof(float);           \
    const int vec = k % 4 == 0 && n % 4 == 0;                                                       \
    cudaError_t err = cudaFuncSetAttribute(vec ? (const void *)sgemm_search_kernel_f4_##ID          \
                                               : (const void *)sgemm_search_kernel_scalar_##ID,     \
                                           cudaFuncAttributeMaxDynamicSharedMemorySize, smem_bytes); \
    if (err != cudaSuccess)                                                                         \
        return (int)err;                                                                            \
    dim3 grid(SGEMM_CEIL_DIV(n, (BN)), SGEMM_CEIL_DIV(m, (BM)));                                    \
    if (vec)                                                                                        \
        sgemm_search_kernel_f4_##ID<<<grid, threads, smem_bytes, stream>>>(A, B, C, m, n, k);       \
    else                                                                                            \
        sgemm_search_kernel_scalar_##ID<<<grid, threads, smem_bytes, stream>>>(A, B, C, m, n, k);   \
    return (int)cudaGetLastError();                                                                 \
}

// ---- second kernel: A transposed in shared memory, register double buffering ------

/* Issues the copies of the next k-slab into stage `stage` (no commit): A as
 * one 4-byte cp.async per element into As[k][m] (the transpose happens in
 * the copy's addressing), B as 4-float chunks as in the first kernel. Expanded
 * inside sgemm_search_db_body_* only. */
#define SGEMM_SEARCH_DB_LOAD_TILE(stage)                                                   \
    do {                                                                                   \
        const int so_ = (stage) * STAGE_FLOATS;                                            \
        const int kok_ = a_k_left > 0;                                                     \
        _Pragma("unroll") for (int l = 0; l < A_ELEMS; ++l) {                              \
            const int ok_ = kok_ && l * A_RSTEP < a_rows_left;                             \
            sgemm_cp_async4(as_dst + so_ + l * A_RSTEP,                                    \
                            ok_ ? a_src + (size_t)l * A_RSTEP * k : A, ok_ ? 4 : 0);       \
        }                                                                                  \
        _Pragma("unroll") for (int l = 0; l < B_CHUNKS; ++l)                               \
            sgemm_cp_async_chunk(bs_dst + so_ + l * B_STEP * BNC,                         \
                                 b_src + (size_t)l * B_STEP * n, l * B_STEP < b_k_left,    \
                                 bn + b_c, n, B, vec);                                     \
        a_src += BKC;                                                                     \
        b_src += (size_t)BKC * n;                                                         \
        a_k_left -= BKC;                                                                  \
        b_k_left -= BKC;                                                                  \
    } while (0)

/* Loads the fragments of k-step `kq` of the slab at as_/bs_ into a_f[buf_],
 * b_f[buf_]: TM/4 float4 of As row kq (m contiguous), TN/4 float4 of Bs row kq. */
#define SGEMM_SEARCH_DB_LOAD_FRAGS(buf_, as_, bs_, kq)                                     \
    do {                                                                                   \
        _Pragma("unroll") for (int i4 = 0; i4 < TM / 4; ++i4) {                            \
            const float4 v_ = *(const float4 *)&(as_)[(kq) * AS_LD + tm0 + i4 * (LM * 4)]; \
            a_f[buf_][i4 * 4 + 0] = v_.x, a_f[buf_][i4 * 4 + 1] = v_.y;                    \
            a_f[buf_][i4 * 4 + 2] = v_.z, a_f[buf_][i4 * 4 + 3] = v_.w;                    \
        }                                                                                  \
        _Pragma("unroll") for (int j4 = 0; j4 < TN / 4; ++j4) {                            \
            const float4 v_ = *(const float4 *)&(bs_)[(kq) * BNC + tn0 + j4 * (LN * 4)];  \
            b_f[buf_][j4 * 4 + 0] = v_.x, b_f[buf_][j4 * 4 + 1] = v_.y;                    \
            b_f[buf_][j4 * 4 + 2] = v_.z, b_f[buf_][j4 * 4 + 3] = v_.w;                    \
        }                                                                                  \
    } while (0)

/* The constants and checks shared by the bodies of the second and third
 * kernels (block tile BM x BN, k-slab BK, warp tile WM x WN, thread tile
 * TMP x TNP): thread-tile lanes, the stage layout (A transposed, [BK][BM+4],
 * then B, [BK][BN]) and who copies what. */
#define SGEMM_SEARCH_DB_CONSTANTS(BM, BN, BK, WM, WN, TMP, TNP)                                     \
    const int TM = (TMP);                               /* rows of C per thread */                  \
    const int TN = (TNP);                               /* columns of C per thread */               \
    const int LM = (WM) / TM;                           /* lanes of a warp along m */               \
    const int LN = (WN) / TN;                           /* lanes of a warp along n */               \
    const int WARPS_N = (BN) / (WN);                                                                \
    const int THREADS = 32 * ((BM) / (WM)) * WARPS_N;                                               \
    const int AS_LD = (BM) + 4;                         /* As (transposed) row stride, floats */    \
    const int BKC = (BK), BNC = (BN);                   /* for the helper macros */                 \
    const int STAGE_FLOATS = (BK) * AS_LD + (BK) * (BN);                                            \
    const int A_RSTEP = THREADS / (BK);                 /* rows between a thread's A elements */    \
    const int A_ELEMS = (BM) / A_RSTEP;                 /* A elements per thread per slab */        \
    const int B_CHUNKS = (BK) * (BN) / 4 / THREADS;                                                 \
    const int B_STEP = THREADS / ((BN) / 4);                                                        \
    static_assert(LM * LN == 32 && (WM) % TM == 0 && (WN) % TN == 0, "a warp is 32 lanes");         \
    static_assert(TM % 4 == 0 && TN % 4 == 0, "fragments are read as float4");                      \
    static_assert(LM <= 8 && LN <= 8, "<= 8 distinct float4 per LDS.128: one 128-byte line");       \
    static_assert((BM) % (WM) == 0 && (BN) % (WN) == 0, "warp tiles must cover the block tile");    \
    static_assert((BM) % 32 == 0, "As stride BM+4: the 4-byte copies land on banks 4k + r");        \
    static_assert((BK) % 8 == 0 && (THREADS / 32) % ((BK) / 8) == 0,                                \
                  "a warp copies 8 k x 4 rows of A; warps split BK in groups of 8");                \
    static_assert((BM) % A_RSTEP == 0, "A elements spread evenly, a thread keeps its k");           \
    static_assert(((BK) * (BN) / 4) % THREADS == 0 && THREADS % ((BN) / 4) == 0,                    \
                  "B chunks spread evenly, a thread keeps its n column");

/* Block tile (bx, by) of linear tile id on a tiles_n x tiles_m grid of
 * tiles, with the optional swizzle: ids walk `group` tile rows down before
 * moving one tile column right, so blocks resident together share A and B
 * panels in L2 (group 0: row-major order). */
static __device__ __forceinline__ int2 sgemm_search_swizzle(int id, int tiles_n, int tiles_m, int group)
{
    if (group <= 0)
        return make_int2(id % tiles_n, id / tiles_n);
    const int per_group = group * tiles_n;
    const int first = id / per_group * group;
    const int rows = min(tiles_m - first, group);
    const int in = id % per_group;
    return make_int2(in / rows, first + in % rows);
}

/* The shared memory of the second and third kernels and its checks. */
#define SGEMM_SEARCH_DB_SMEM(ST)                                                                    \
    static_assert((ST) >= 2, "need at least double buffering");                                     \
    static_assert(THREADS <= 1024, "block size");                                                   \
    static_assert((ST) * STAGE_FLOATS * 4 <= 227 * 1024, "shared memory per block");                \
                                                                                                    \
    extern __shared__ float4 sgemm_search_db_smem[];                                                \
    float *smem = (float *)sgemm_search_db_smem;

/* The thread's place in its block: warp, lane, and the first row / column
 * of its tile (rows tm0 + i4*LM*4 + [0,4), columns tn0 + j4*LN*4 + [0,4)). */
#define SGEMM_SEARCH_DB_THREAD(WM, WN)                                                              \
    const int tid = threadIdx.x;                                                                    \
    const int warp = tid / 32, lane = tid % 32;                                                     \
    const int tm0 = (warp / WARPS_N) * (WM) + (lane / LN) * 4;                                      \
    const int tn0 = (warp % WARPS_N) * (WN) + (lane % LN) * 4;

/* The rest of their shared set-up for a grid of one block per tile: the
 * shared memory, the block's tile (blockIdx, after the optional GROUP-row
 * swizzle) and the thread's place in it. */
#define SGEMM_SEARCH_DB_SETUP(BM, BN, WM, WN, ST, GROUP)                                            \
    SGEMM_SEARCH_DB_SMEM(ST)                                                                        \
    int bx = blockIdx.x, by = blockIdx.y;                                                           \
    if ((GROUP) > 0) {                                                                              \
        const int2 t_ = sgemm_search_swizzle(by * (int)gridDim.x + bx, (int)gridDim.x,              \
                                             (int)gridDim.y, (GROUP));                              \
        bx = t_.x, by = t_.y;                                                                       \
    }                                                                                               \
    const int bm = by * (BM);                                                                       \
    const int bn = bx * (BN);                                                                       \
    SGEMM_SEARCH_DB_THREAD(WM, WN)

/* Stores the thread tile acc (rows tm0 + i4*LM*4 + [0,4), columns
 * tn0 + j4*LN*4 + [0,4)) into C, skipping rows past m and columns past n.
 * Expanded inside the bodies of the second and third kernels. */
#define SGEMM_SEARCH_DB_STORE_C()                                                          \
    _Pragma("unroll") for (int i = 0; i < TM; ++i) {                                       \
        const int gr = bm + tm0 + (i / 4) * (LM * 4) + i % 4;                              \
        float *c_row = C + (size_t)(gr < m ? gr : 0) * n;                                  \
        _Pragma("unroll") for (int j4 = 0; j4 < TN / 4; ++j4)                              \
            sgemm_store4(c_row, gr < m, bn + tn0 + j4 * (LN * 4), n, vec,                  \
                         make_float4(acc[i][j4 * 4 + 0], acc[i][j4 * 4 + 1],               \
                                     acc[i][j4 * 4 + 2], acc[i][j4 * 4 + 3]));             \
    }

/* C[row, col .. col+3] += v for the elements before `lim` (nothing when
 * !row_ok), as reductions in L2 (RED: no value comes back): vec, one
 * red.global.add.v4.f32 (row 16-byte aligned, lim % 4 == 0); else one per
 * element. FP32 atomic adds round to nearest and flush subnormals. */
static __device__ __forceinline__ void sgemm_search_red4(float *row, int row_ok, int col, int lim,
                                                         int vec, float4 v)
{
    if (!row_ok)
        return;
    if (vec) {
        if (col < lim)
            asm volatile("red.global.add.v4.f32 [%0], {%1, %2, %3, %4};\n" ::"l"(row + col), "f"(v.x),
                         "f"(v.y), "f"(v.z), "f"(v.w)
                         : "memory");
    } else {
        if (col + 0 < lim) atomicAdd(row + col + 0, v.x);
        if (col + 1 < lim) atomicAdd(row + col + 1, v.y);
        if (col + 2 < lim) atomicAdd(row + col + 2, v.z);
        if (col + 3 < lim) atomicAdd(row + col + 3, v.w);
    }
}

/* Columns c .. c+3 of a staged quad from the float4 p read at c, whose
 * element x holds column c + (x ^ s) (SGEMM_SEARCH_DB_STAGED_C's swizzle). */
static __device__ __forceinline__ float4 sgemm_search_unswizzle4(float4 p, int s)
{
    if (s & 1)
        p = make_float4(p.y, p.x, p.w, p.z);
    if (s & 2)
        p = make_float4(p.z, p.w, p.x, p.y);
    return p;
}

/* Writes the thread tile acc into C through shared memory (RED_ 0: C = acc;
 * 1: C += acc by reductions), skipping rows past m and columns past n. The
 * stages must be free: every copy is drained and a barrier passed first.
 * One thread row i at a time, the block's BM/TM rows of that i are staged
 * ([BM/TM][BN+4], two buffers taken in turn, so one barrier per i), then
 * read back as float4 along the rows, so each warp stores (or reduces) 512
 * contiguous bytes. A thread writes its row's elements one by one, column
 * c at c ^ (lane row & 3): the 32 stores of one instruction then hit 32
 * banks (without the swizzle they share 8: 4-way conflicts); the reader
 * undoes it with sgemm_search_unswizzle4. Leaves reads of the staging
 * buffers in flight: a barrier comes before the stages are written again.
 * Why not the direct float4 stores of SGEMM_SEARCH_DB_STORE_C: at n = 2048
 * (one wave, every block stores at the same time) staged ran at 99.4% of
 * cuBLAS FP32, direct 98.6%; scalar stores straight to C 92% (4x the L2
 * write requests). Expanded inside the third and fourth kernels' bodies. */
#define SGEMM_SEARCH_DB_STAGED_C(BM, WM, ST, RED_)                                         \
    do {                                                                                   \
        const int C_ROWS = (BM) / TM;      /* staged rows: one per (warp row, lane row) */ \
        const int C_LD = BNC + 4;          /* staged row stride, 16-byte aligned */        \
        const int C_BUF = C_ROWS * C_LD;   /* floats per staging buffer */                 \
        const int C_F4 = C_ROWS * (BNC / 4) / THREADS; /* float4 read back per thread */  \
        static_assert(C_ROWS * (BNC / 4) % THREADS == 0, "float4 of a staged row set per thread"); \
        static_assert(2 * C_BUF <= (ST) * STAGE_FLOATS, "two staging buffers fit in the stages"); \
        const int c_rl = (warp / WARPS_N) * LM + lane / LN; /* this thread's staged row */ \
        const int c_sw = (lane / LN) & 3;                   /* its column swizzle */      \
        SGEMM_CP_ASYNC_WAIT(0);                                                            \
        __syncthreads();                                                                   \
        _Pragma("unroll") for (int i = 0; i < TM; ++i) {                                   \
            float *c_buf = smem + (i % 2) * C_BUF;                                         \
            _Pragma("unroll") for (int j = 0; j < TN; ++j)                                 \
                c_buf[c_rl * C_LD + tn0 + (j / 4) * (LN * 4) + ((j % 4) ^ c_sw)] = acc[i][j]; \
            __syncthreads(); /* also: buffer (i+1) % 2 was last read before this barrier */ \
            _Pragma("unroll") for (int q = 0; q < C_F4; ++q) {                             \
                const int e_ = q * THREADS + tid;                                          \
                const int r_ = e_ / (BNC / 4), c_ = e_ % (BNC / 4) * 4;                    \
                const int gr = bm + (r_ / LM) * (WM) + (r_ % LM) * 4 + (i / 4) * (LM * 4) + i % 4; \
                float *c_row = C + (size_t)(gr < m ? gr : 0) * n;                          \
                const float4 v_ = sgemm_search_unswizzle4(                                 \
                    *(const float4 *)&c_buf[r_ * C_LD + c_], (r_ % LM) & 3);               \
                if (RED_)                                                                  \
                    sgemm_search_red4(c_row, gr < m, bn + c_, n, vec, v_);                 \
                else                                                                       \
                    sgemm_store4(c_row, gr < m, bn + c_, n, vec, v_);                      \
            }                                                                              \
        }                                                                                  \
    } while (0)

/* Defines the two kernels of body sgemm_search_KIND_body_##ID (vec = 1: rows
 * of B and A 16-byte aligned; 0: any shape), sgemm_search_KIND_kernel_f4_##ID
 * and _scalar_##ID; XPARAM / XARG: extra kernel parameters after k (with
 * their leading comma) and the names passed on to the body (may be empty). */
#define SGEMM_SEARCH_KERNEL_PAIR(KIND, ID, BM, BN, WM, WN, MINB, XPARAM, XARG)                     \
static __global__ void __launch_bounds__(32 * ((BM) / (WM)) * ((BN) / (WN)), MINB)                  \
sgemm_search_##KIND##_kernel_f4_##ID(const float *__restrict__ A, const float *__restrict__ B,      \
                                     float *__restrict__ C, int m, int n, int k XPARAM)             \
{                                                                                                   \
    sgemm_search_##KIND##_body_##ID(A, B, C, m, n, k, 1 XARG);                                      \
}                                                                                                   \
                                                                                                    \
static __global__ void __launch_bounds__(32 * ((BM) / (WM)) * ((BN) / (WN)), MINB)                  \
sgemm_search_##KIND##_kernel_scalar_##ID(const float *__restrict__ A, const float *__restrict__ B,  \
                                         float *__restrict__ C, int m, int n, int k XPARAM)         \
{                                                                                                   \
    sgemm_search_##KIND##_body_##ID(A, B, C, m, n, k, 0 XARG);                                      \
}

/* The first lines of a launcher of those kernels: threads, smem_bytes (ST
 * stages of BK x (BM + 4) A and BK x BN B floats), vec, the kernel for vec,
 * and its dynamic shared memory opt-in (returns its error). */
#define SGEMM_SEARCH_LAUNCH_PREP(KIND, ID, BM, BN, BK, WM, WN, ST)                                  \
    const int threads = 32 * ((BM) / (WM)) * ((BN) / (WN));                                         \
    const int smem_bytes = (ST) * ((BK) * ((BM) + 4) + (BK) * (BN)) * (int)sizeof(float);           \
    const int vec = k % 4 == 0 && n % 4 == 0;                                                       \
    const void *kernel = vec ? (const void *)sgemm_search_##KIND##_kernel_f4_##ID                   \
                             : (const void *)sgemm_search_##KIND##_kernel_scalar_##ID;              \
    cudaError_t err = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,     \
                                           smem_bytes);                                             \
    if (err != cudaSuccess)                                                                         \
        return (int)err;

/* Defines the two kernels of body sgemm_search_KIND_body_##ID and
 * sgemm_search_launch_##ID, which picks one, opts in to its dynamic shared
 * memory and launches a BN x BM grid. */
#define SGEMM_SEARCH_DB_KERNELS(KIND, ID, BM, BN, BK, WM, WN, ST, MINB)                            \
SGEMM_SEARCH_KERNEL_PAIR(KIND, ID, BM, BN, WM, WN, MINB, , )                                        \
                                                                                                    \
static int sgemm_search_launch_##ID(const float *A, const float *B, float *C, int m, int n, int k,  \
                                    cudaStream_t stream)                                            \
{                                                                                                   \
    SGEMM_SEARCH_LAUNCH_PREP(KIND, ID, BM, BN, BK, WM, WN, ST)                                      \
    dim3 grid(SGEMM_CEIL_DIV(n, (BN)), SGEMM_CEIL_DIV(m, (BM)));                                    \
    if (vec)                                                                                        \
        sgemm_search_##KIND##_kernel_f4_##ID<<<grid, threads, smem_bytes, stream>>>(A, B, C, m, n,  \
                                                                                    k);             \
    else                                                                                            \
        sgemm_search_##KIND##_kernel_scalar_##ID<<<grid, threads, smem_bytes, stream>>>(A, B, C, m, \
                                                                                        n, k);      \
    return (int)cudaGetLastError();                                                                 \
}

/* Defines sgemm_search_db_launch_##ID: block tile BM x BN, k-slab BK, warp
 * tile WM x WN, thread tile TMP x TNP (rows and columns in groups of 4,
 * groups LM*4 rows / LN*4 columns apart), ST stages, __launch_bounds__
 * (threads, MINB), GROUP block rows per swizzle group (0: plain order).
 *
 * Differences from SGEMM_SEARCH_CONFIG:
 * - As is stored transposed, [BK][BM+4] (m contiguous), filled by 4-byte
 *   cp.async: lanes 0-7 of a warp take 8 consecutive k of one row (a 32-byte
 *   sector), lanes /8 take 4 rows, so the 32 shared stores of one copy
 *   instruction hit banks 4k + r: all distinct (BM % 32 == 0, stride BM + 4).
 *   A thread's k column and rows are fixed for the whole loop. With A
 *   transposed a k-step needs only TM + TN fragment registers, so both
 *   fragments can be double-buffered in registers.
 * - The fragments of k-step kk+1 are loaded before the FFMAs of kk; the wait
 *   and the one barrier per slab sit before the FFMAs of the slab's last
 *   k-step, which then cover the latency of the first loads of the next slab.
 *   That barrier also frees the stage read by this slab: every LDS of it was
 *   issued before the barrier, so the copies issued at the top of the next
 *   iteration (into the stage read one slab earlier) never race a read.
 * - Optional block swizzle: block ids walk GROUP block rows down before
 *   moving one block column right, so blocks resident together share A and
 *   B panels in L2. */
#define SGEMM_SEARCH_DB_CONFIG(ID, BM, BN, BK, WM, WN, TMP, TNP, ST, MINB, GROUP)                   \
static __device__ __forceinline__ void sgemm_search_db_body_##ID(const float *__restrict__ A,       \
                                                                const float *__restrict__ B,        \
                                                                float *__restrict__ C, int m,       \
                                                                int n, int k, int vec)              \
{                                                                                                   \
    SGEMM_SEARCH_DB_CONSTANTS(BM, BN, BK, WM, WN, TMP, TNP);                                        \
    SGEMM_SEARCH_DB_SETUP(BM, BN, WM, WN, ST, GROUP);                                               \
                                                                                                    \
    const int a_k = lane % 8 + 8 * (warp % ((BK) / 8));                                             \
    const int a_r = (lane / 8) % 4 + 4 * (warp / ((BK) / 8));  /* < A_RSTEP */                      \
    const int b_r = tid / ((BN) / 4), b_c = (tid % ((BN) / 4)) * 4;                                 \
    const int a_rows_left = m - (bm + a_r);                                                         \
    const float *a_src = A + (size_t)(bm + a_r) * k + a_k;                                          \
    const float *b_src = B + (size_t)b_r * n + bn + b_c;                                            \
    float *as_dst = smem + a_k * AS_LD + a_r;                                                       \
    float *bs_dst = smem + (BK) * AS_LD + b_r * (BN) + b_c;                                         \
    int a_k_left = k - a_k;                                                                         \
    int b_k_left = k - b_r;                                                                         \
    const int ntiles = SGEMM_CEIL_DIV(k, (BK));                                                     \
                                                                                                    \
    _Pragma("unroll") for (int s = 0; s < (ST) - 1; ++s) {                                          \
        if (s < ntiles) {                                                                           \
            SGEMM_SEARCH_DB_LOAD_TILE(s);                                                           \
        }                                                                                           \
        sgemm_cp_async_commit();                                                                    \
    }                                                                                               \
                                                                                                    \
    float acc[TM][TN];                                                                              \
    _Pragma("unroll") for (int i = 0; i < TM; ++i)                                                  \
        _Pragma("unroll") for (int j = 0; j < TN; ++j)                                              \
            acc[i][j] = 0.0f;                                                                       \
                                                                                                    \
    float a_f[2][TM], b_f[2][TN];                                                                   \
    SGEMM_CP_ASYNC_WAIT((ST) - 2);                                                                  \
    __syncthreads();                                                                                \
    SGEMM_SEARCH_DB_LOAD_FRAGS(0, smem, smem + (BK) * AS_LD, 0);                                    \
                                                                                                    \
    int read_stage = 0, write_stage = (ST) - 1;                                                     \
    for (int t = 0; t < ntiles; ++t) {                                                              \
        /* slab t is visible in read_stage and its k-step 0 is in a_f[0], b_f[0] */                 \
        if (t + (ST) - 1 < ntiles) {                                                                \
            SGEMM_SEARCH_DB_LOAD_TILE(write_stage);                                                 \
        }                                                                                           \
        sgemm_cp_async_commit();                                                                    \
        const float *as = smem + read_stage * STAGE_FLOATS;                                         \
        const float *bs = as + (BK) * AS_LD;                                                        \
        read_stage = read_stage + 1 == (ST) ? 0 : read_stage + 1;                                   \
        write_stage = write_stage + 1 == (ST) ? 0 : write_stage + 1;                                \
        _Pragma("unroll") for (int kk = 0; kk < (BK); ++kk) {                                       \
            if (kk < (BK) - 1) {                                                                    \
                SGEMM_SEARCH_DB_LOAD_FRAGS((kk + 1) % 2, as, bs, kk + 1);                           \
            } else {                                                                                \
                /* groups committed: ST + t; slab t+1 landed when <= ST-2 pending */                \
                SGEMM_CP_ASYNC_WAIT((ST) - 2);                                                      \
                __syncthreads();                                                                    \
                if (t + 1 < ntiles) {                                                               \
                    const float *as_n = smem + read_stage * STAGE_FLOATS;                           \
                    SGEMM_SEARCH_DB_LOAD_FRAGS(0, as_n, as_n + (BK) * AS_LD, 0);                    \
                }                                                                                   \
            }                                                                                       \
            _Pragma("unroll") for (int i = 0; i < TM; ++i)                                          \
                _Pragma("unroll") for (int j = 0; j < TN; ++j)                                      \
                    acc[i][j] = fmaf(a_f[kk % 2][i], b_f[kk % 2][j], acc[i][j]);                    \
        }                                                                                           \
    }                                                                                               \
                                                                                                    \
    SGEMM_SEARCH_DB_STORE_C();                                                                      \
}                                                                                                   \
                                                                                                    \
SGEMM_SEARCH_DB_KERNELS(db, ID, BM, BN, BK, WM, WN, ST, MINB)

// ---- third kernel: the second one with its slab copies spread over the k-steps ----

/* Copies A element l of the slab at a_ptr into stage pointer st_ (4-byte
 * cp.async, zero-filled past k). The row is clamped into A instead of
 * predicated: a row past m loads row m-1, whose products only reach rows of
 * C that are never stored. Expanded inside sgemm_search_db3_body_* only. */
#define SGEMM_SEARCH_DB3_COPY_A(st_, l)                                                    \
    sgemm_cp_async4((st_) + (l) * A_RSTEP,                                                 \
                    a_ptr + (size_t)min((l) * A_RSTEP, a_max_off) * k, a_kok ? 4 : 0)

/* Copies B chunk l (row b_r + l*B_STEP of the slab) into stage pointer st_:
 * with vec one 16-byte cp.async from a column clamped into B (as for A's
 * rows: clamped columns only reach columns of C that are never stored),
 * zero-filled past k; else four predicated 4-byte ones. */
#define SGEMM_SEARCH_DB3_COPY_B(st_, l)                                                    \
    do {                                                                                   \
        const int kok_ = (l) * B_STEP < b_k_left;                                          \
        if (vec)                                                                           \
            sgemm_cp_async16((st_) + (l) * B_STEP * BNC,                                  \
                             kok_ ? b_ptr + (size_t)(l) * B_STEP * n : B, kok_ ? 16 : 0);  \
        else                                                                               \
            sgemm_cp_async_chunk((st_) + (l) * B_STEP * BNC,                              \
                                 b_ptr + (size_t)(l) * B_STEP * n, kok_, bn + b_c, n, B, 0); \
    } while (0)

/* After a slab's copies: step the sources to the next slab. a_ptr stays on
 * its last slab that lies inside A, so it is always a valid address. */
#define SGEMM_SEARCH_DB3_NEXT_SLAB()                                                       \
    do {                                                                                   \
        a_k_left -= BKC;                                                                  \
        a_kok = a_k_left > 0;                                                              \
        if (a_kok)                                                                         \
            a_ptr += BKC;                                                                 \
        b_ptr += (size_t)BKC * n;                                                         \
        b_k_left -= BKC;                                                                  \
    } while (0)

/* Fragment buffer of k-step kk: with the barrier at the last k-step two
 * buffers alternate; with it at k-step B0 < BK-1, k-step 0 has a buffer of
 * its own (2), which the next slab's first fragments fill right after the
 * barrier, several k-steps before they are used. */
#define SGEMM_SEARCH_DB3_BUF(BK, B0, kk) ((B0) == (BK) - 1 ? (kk) % 2 : (kk) == 0 ? 2 : (kk) % 2)

/* cp.async groups a thread may leave pending at the barrier of slab t so that
 * slab t+1 has landed: D + t groups are committed before slab t's own, which
 * is committed before the barrier when its last copy group is not later. */
#define SGEMM_SEARCH_DB3_WAIT(BK, ST, SP, B0)                                                      \
    (((B0) == (BK) - 1 ? (ST) - 1 : (ST) - 2) - 2 + (((SP) - 1) * ((BK) / (SP)) <= (B0)))

/* The third kernel's constants and checks: LAST_COPY (k-step of the last
 * copy group) and D (slabs the copies run ahead). Expanded after
 * SGEMM_SEARCH_DB_CONSTANTS. */
#define SGEMM_SEARCH_DB3_CHECKS(BK, ST, SP, B0)                                                    \
    const int LAST_COPY = ((SP) - 1) * ((BK) / (SP));   /* k-step of the last copy group */         \
    static_assert((SP) >= 1 && (BK) % (SP) == 0 && A_ELEMS % (SP) == 0, "copy groups tile the slab"); \
    /* copies run D slabs ahead; a barrier before the last k-step (B0 < BK-1) leaves reads of */    \
    /* its slab after it, so that slab's stage is refilled one slab later: one stage more */        \
    const int D = (B0) == (BK) - 1 ? (ST) - 1 : (ST) - 2;                                           \
    static_assert((B0) >= 1 && (B0) < (BK), "the barrier's k-step (after k-step 0's buffer)");      \
    static_assert(D >= 1, "copies at least a slab ahead");                                          \
    static_assert(SGEMM_SEARCH_DB3_WAIT(BK, ST, SP, B0) >= 0, "stages for the barrier position");

/* The third kernel's main loop over NS k-slabs of the block tile at
 * (bm, bn), from slab KS on (k = KS*BK ..): declares acc[TM][TN] and leaves
 * the tile's partial product over those slabs in it. Copies run D slabs
 * ahead, past the last slab too (into stages nothing reads again: zero-fill
 * past k, real data before it). Expanded after SGEMM_SEARCH_DB3_CHECKS and
 * the set-up (smem, tid, warp, lane, tm0, tn0, bm, bn in scope). */
#define SGEMM_SEARCH_DB3_MAINLOOP(BM, BN, BK, ST, SP, B0, KS, NS)                                  \
    /* A: this thread copies column a_k of rows a_r + l*A_RSTEP of every slab */                    \
    const int a_k = lane % 8 + 8 * (warp % ((BK) / 8));                                             \
    const int a_r = (lane / 8) % 4 + 4 * (warp / ((BK) / 8));  /* < A_RSTEP */                      \
    const int a_row0 = min(bm + a_r, m - 1);                   /* clamped into A */                 \
    const int a_max_off = m - 1 - a_row0;                      /* >= 0: last row is m-1 */          \
    const float *a_ptr = A + (size_t)a_row0 * k + min((KS) * (BK) + a_k, k - 1);                    \
    int a_k_left = k - (KS) * (BK) - a_k;                                                           \
    int a_kok = a_k_left > 0;                                                                       \
    /* B: chunk at column bn + b_c (clamped into B when vec) of rows b_r + l*B_STEP */              \
    const int b_r = tid / ((BN) / 4), b_c = (tid % ((BN) / 4)) * 4;                                 \
    const float *b_ptr = B + (size_t)(b_r + (KS) * (BK)) * n +                          \
                       (vec ? min(bn + b_c, n - 4) : bn + b_c);             \
    int b_k_left = k - (KS) * (BK) - b_r;                                                           \
    float *as_dst = smem + a_k * AS_LD + a_r;                                                       \
    float *bs_dst = smem + (BK) * AS_LD + b_r * (BN) + b_c;                                         \
    const int ntiles = (NS);                                                                       \
                                                                                                    \
    _Pragma("unroll") for (int s = 0; s < D; ++s) {                                                 \
        _Pragma("unroll") for (int l = 0; l < A_ELEMS; ++l)                                         \
            SGEMM_SEARCH_DB3_COPY_A(as_dst + s * STAGE_FLOATS, l);                                  \
        _Pragma("unroll") for (int l = 0; l < B_CHUNKS; ++l)                                        \
            SGEMM_SEARCH_DB3_COPY_B(bs_dst + s * STAGE_FLOATS, l);                                  \
        SGEMM_SEARCH_DB3_NEXT_SLAB();                                                               \
        sgemm_cp_async_commit();                                                                    \
    }                                                                                               \
                                                                                                    \
    float acc[TM][TN];                                                                              \
    _Pragma("unroll") for (int i = 0; i < TM; ++i)                                                  \
        _Pragma("unroll") for (int j = 0; j < TN; ++j)                                              \
            acc[i][j] = 0.0f;                                                                       \
                                                                                                    \
    /* fragment buffers: k-step kk uses SGEMM_SEARCH_DB3_BUF(kk); with a mid-slab barrier the */    \
    /* next slab's first k-step gets a third buffer, loaded right after the barrier */              \
    float a_f[3][TM], b_f[3][TN];                                                                   \
    SGEMM_CP_ASYNC_WAIT(D - 1); /* slab 0 landed */                                                 \
    __syncthreads();                                                                                \
    SGEMM_SEARCH_DB_LOAD_FRAGS(SGEMM_SEARCH_DB3_BUF(BK, B0, 0), smem, smem + (BK) * AS_LD, 0);      \
                                                                                                    \
    /* stage offsets (floats), stepped with adds: an IMAD by the stage size would take */          \
    /* issue slots of the FMA pipe the FFMAs keep busy */                                           \
    const int RING = (ST) * STAGE_FLOATS;                                                           \
    int ro = 0, wo = D * STAGE_FLOATS;                                                              \
    for (int t = 0; t < ntiles; ++t) {                                                              \
        /* slab t is visible at ro and its k-step 0 is in its fragment buffer; the copies of */     \
        /* slab t+D go to wo, a stage whose last reads preceded the barrier of slab t-1 */          \
        const float *as = smem + ro;                                                                \
        const float *bs = as + (BK) * AS_LD;                                                        \
        float *const as_w = as_dst + wo, *const bs_w = bs_dst + wo;                                 \
        ro = ro + STAGE_FLOATS == RING ? 0 : ro + STAGE_FLOATS;                                     \
        wo = wo + STAGE_FLOATS == RING ? 0 : wo + STAGE_FLOATS;                                     \
        _Pragma("unroll") for (int kk = 0; kk < (BK); ++kk) {                                       \
            /* copy group g (A elements and B chunks l with l*SP/count == g) at k-step g*BK/SP */  \
            _Pragma("unroll") for (int l = 0; l < A_ELEMS; ++l)                                     \
                if (l * (SP) / A_ELEMS * ((BK) / (SP)) == kk)                                       \
                    SGEMM_SEARCH_DB3_COPY_A(as_w, l);                                               \
            _Pragma("unroll") for (int l = 0; l < B_CHUNKS; ++l)                                    \
                if (l * (SP) / B_CHUNKS * ((BK) / (SP)) == kk)                                      \
                    SGEMM_SEARCH_DB3_COPY_B(bs_w, l);                                               \
            if (kk == LAST_COPY) {                                                                  \
                SGEMM_SEARCH_DB3_NEXT_SLAB();                                                       \
                sgemm_cp_async_commit();                                                            \
            }                                                                                       \
            if (kk < (BK) - 1)                                                                      \
                SGEMM_SEARCH_DB_LOAD_FRAGS(SGEMM_SEARCH_DB3_BUF(BK, B0, kk + 1), as, bs, kk + 1);   \
            if (kk == (B0)) {                                                                       \
                /* groups committed: D + t (+1 if this slab's already): slab t+1 has landed */      \
                SGEMM_CP_ASYNC_WAIT(SGEMM_SEARCH_DB3_WAIT(BK, ST, SP, B0));                         \
                __syncthreads();                                                                    \
                /* the next slab's first fragments; past the last slab this reads a stage */        \
                /* of stale data, never used */                                                     \
                const float *as_n = smem + ro;                                                      \
                SGEMM_SEARCH_DB_LOAD_FRAGS(SGEMM_SEARCH_DB3_BUF(BK, B0, 0), as_n,                   \
                                           as_n + (BK) * AS_LD, 0);                                 \
            }                                                                                       \
            _Pragma("unroll") for (int i = 0; i < TM; ++i)                                          \
                _Pragma("unroll") for (int j = 0; j < TN; ++j)                                      \
                    acc[i][j] = fmaf(a_f[SGEMM_SEARCH_DB3_BUF(BK, B0, kk)][i],                      \
                                     b_f[SGEMM_SEARCH_DB3_BUF(BK, B0, kk)][j], acc[i][j]);          \
        }                                                                                           \
    }

/* Defines sgemm_search_launch_##ID like SGEMM_SEARCH_DB_CONFIG (same
 * shared-memory layout, fragment loads and FFMAs), plus SP and B0, and:
 * - Spread copies. The copies of slab t+D are spread over the k-steps of
 *   slab t in SP groups (group g, at k-step g*BK/SP, holds the A elements and
 *   B chunks l with l*SP/count == g) instead of issued as one block before
 *   them, and the loop body has no branch: past the last slab the copies are
 *   zero-fill copies into a free stage, which nothing reads again. The H200
 *   profile of SGEMM_SEARCH_DB_CONFIG (ncu source view, n = 4096) put 30% of
 *   the warps' stall samples on the ~11% of instructions in that block;
 *   spreading them took [12]'s shape from 88-90% to 94-95% of cuBLAS. ptxas
 *   puts three never-executed LDS before each group of 4-byte LDGSTS, so
 *   groups cost issue slots too.
 * - Clamped sources. A rows and B columns outside the matrix are clamped
 *   instead of predicated, so an A copy is an address and one LDGSTS.
 * - Barrier at k-step B0. With B0 = BK-1 the barrier sits before the last
 *   k-step as in the second kernel (copies D = ST-1 slabs ahead). ptxas
 *   hoists most of that k-step's FFMAs above the barrier, so the next slab's
 *   first fragments, loaded after it, are used ~40 FFMAs later: the short-
 *   scoreboard stall at the loop head was the largest after dispatch. With
 *   B0 < BK-1 the barrier sits mid-slab, k-step 0 gets a fragment buffer of
 *   its own (SGEMM_SEARCH_DB3_BUF) that the next slab's first fragments fill
 *   right after the barrier, several k-steps before they are used, and the
 *   copies run D = ST-2 slabs ahead (the stage of slab t-1 is still being
 *   read after t-1's barrier, so it is refilled one slab later): 96-97% ->
 *   98.5-99% at 128x256. */
#define SGEMM_SEARCH_DB3_DEFINE(KIND, EPI, ID, BM, BN, BK, WM, WN, TMP, TNP, ST, MINB, GROUP, SP, B0) \
static __device__ __forceinline__ void sgemm_search_##KIND##_body_##ID(const float *__restrict__ A, \
                                                                 const float *__restrict__ B,       \
                                                                 float *__restrict__ C, int m,      \
                                                                 int n, int k, int vec)             \
{                                                                                                   \
    SGEMM_SEARCH_DB_CONSTANTS(BM, BN, BK, WM, WN, TMP, TNP);                                        \
    SGEMM_SEARCH_DB3_CHECKS(BK, ST, SP, B0);                                                       \
    SGEMM_SEARCH_DB_SETUP(BM, BN, WM, WN, ST, GROUP);                                               \
    SGEMM_SEARCH_DB3_MAINLOOP(BM, BN, BK, ST, SP, B0, 0, SGEMM_CEIL_DIV(k, (BK)));                 \
                                                                                                    \
    if (EPI)                                                                                        \
        SGEMM_SEARCH_DB_STAGED_C(BM, WM, ST, 0);                                                    \
    else                                                                                            \
        SGEMM_SEARCH_DB_STORE_C();                                                                  \
}                                                                                                   \
                                                                                                    \
SGEMM_SEARCH_DB_KERNELS(KIND, ID, BM, BN, BK, WM, WN, ST, MINB)

/* The third kernel with C written straight from registers as float4
 * (SGEMM_SEARCH_DB_STORE_C), or staged through shared memory
 * (SGEMM_SEARCH_DB_STAGED_C; names end in _st). */
#define SGEMM_SEARCH_DB3_CONFIG(ID, BM, BN, BK, WM, WN, TMP, TNP, ST, MINB, GROUP, SP, B0)          \
    SGEMM_SEARCH_DB3_DEFINE(db3, 0, ID, BM, BN, BK, WM, WN, TMP, TNP, ST, MINB, GROUP, SP, B0)
#define SGEMM_SEARCH_DB3S_CONFIG(ID, BM, BN, BK, WM, WN, TMP, TNP, ST, MINB, GROUP, SP, B0)         \
    SGEMM_SEARCH_DB3_DEFINE(db3s, 1, ID, BM, BN, BK, WM, WN, TMP, TNP, ST, MINB, GROUP, SP, B0)

// ---- fourth kernel: the third one on a persistent stream-K grid --------------------

/* Stream-K (Osama et al., PPoPP 2023) with data-parallel full waves: one
 * block per resident slot (G blocks). The tiles of the full waves go out as
 * in a grid of one block per tile (wave w: tile w*G + block, all its
 * k-slabs), so the blocks working at the same time sit on neighbouring tiles
 * at the same k, as in the third kernel's grid (L2 reuse: with every tile
 * split, blocks drift apart in k and DRAM traffic rose from 0.37 to 1.6 GB
 * at n = 4096). The k-slabs of the remaining tiles, in tile order, are cut
 * into G equal contiguous ranges, one per block, after its full tiles. A
 * range that ends mid-tile leaves the rest of that tile's k to the next
 * block's range. Partial tiles go through C itself (no workspace): block b's
 * segment that starts mid-tile (its first of the split part) writes its
 * partial into C and publishes sgemm_search_sk_flags[b] = the launch's
 * epoch; block b's segment that ends mid-tile (its last) waits for flag
 * b+1, then adds its registers to C by reductions (the tile's later slabs
 * are there already). A block waits only on the next one, which publishes
 * after its first split segment, so the chain ends at the last block; all
 * blocks are resident (cooperative launch), so every wait ends. Each tile's
 * sum has a fixed order: results are deterministic. Launches of stream-K
 * candidates must not overlap in time (one set of flags per device; compare
 * runs one stream). */
#define SGEMM_SEARCH_SK_MAX_BLOCKS 4096
/* no block takes fewer k-slabs than this (small problems use fewer blocks) */
#define SGEMM_SEARCH_SK_MIN_SLABS 8
static __device__ unsigned sgemm_search_sk_flags[SGEMM_SEARCH_SK_MAX_BLOCKS];

/* Thread 0 waits (acquire, GPU scope) until *flag == epoch; then the block. */
static __device__ __forceinline__ void sgemm_search_sk_wait(const unsigned *flag, unsigned epoch)
{
    if (threadIdx.x == 0) {
        unsigned v;
        for (;;) {
            asm volatile("ld.acquire.gpu.global.u32 %0, [%1];\n" : "=r"(v) : "l"(flag) : "memory");
            if (v == epoch)
                break;
            __nanosleep(64);
        }
    }
    __syncthreads();
}

/* After the block's stores: *flag = epoch (release, GPU scope) once every
 * thread of the block has stored. */
static __device__ __forceinline__ void sgemm_search_sk_publish(unsigned *flag, unsigned epoch)
{
    __syncthreads();
    if (threadIdx.x == 0)
        asm volatile("st.release.gpu.global.u32 [%0], %1;\n" ::"l"(flag), "r"(epoch) : "memory");
}


/* Work units (k-slabs of all tiles) of a stream-K launch. */
#define SGEMM_SEARCH_SK_TOTAL(BM, BN, BK)                                                  \
    ((long long)SGEMM_CEIL_DIV(m, (BM)) * SGEMM_CEIL_DIV(n, (BN)) * SGEMM_CEIL_DIV(k, (BK)))

/* The block's segment at q (the k-slabs it has done so far: its full-wave
 * tiles first, then its range of the split ones) as {bm, bn, ks, ns}: tile
 * origin, first k-slab, k-slabs (ns <= 0: the block is done). Not inlined:
 * inlined, its 64-bit divisions changed ptxas's register choice for the
 * main loop's FFMAs (8% more operand bank conflicts). */
static __device__ __noinline__ int4 sgemm_search_sk_segment(long long q, int m, int n, int k, int bm_size,
                                                            int bn_size, int bk, int group)
{
    const int slabs = SGEMM_CEIL_DIV(k, bk);
    const int tiles_n = SGEMM_CEIL_DIV(n, bn_size), tiles_m = SGEMM_CEIL_DIV(m, bm_size);
    const int g = (int)gridDim.x;
    const int waves = tiles_n * tiles_m / g; /* full waves */
    long long p, e; /* position and end of the segment in all tiles' slabs */
    if (q < (long long)waves * slabs) {
        p = ((long long)(q / slabs) * g + blockIdx.x) * slabs;
        e = p + slabs;
    } else {
        const long long base = (long long)waves * g * slabs;
        const long long rest = ((long long)tiles_n * tiles_m - (long long)waves * g) * slabs;
        p = base + rest * blockIdx.x / g + (q - (long long)waves * slabs);
        e = base + rest * (blockIdx.x + 1) / g;
    }
    const int tile = (int)(p / slabs);
    const int ks = (int)(p - (long long)tile * slabs);
    const int ns = (int)min((long long)(slabs - ks), e - p);
    const int2 t = sgemm_search_swizzle(tile, tiles_n, tiles_m, group);
    return make_int4(t.y * bm_size, t.x * bn_size, ks, ns);
}

/* The block's current segment: q_ (its place in its own work, sk_pos),
 * bm, bn, ks, ns (<= 0 when the block is done). */
#define SGEMM_SEARCH_SK_SEGMENT(BM, BN, BK, GROUP)                                         \
    const long long q_ = *(volatile long long *)&sk_pos;                                   \
    const int4 seg_ = sgemm_search_sk_segment(q_, m, n, k, (BM), (BN), (BK), (GROUP));     \
    const int bm = seg_.x, bn = seg_.y, ks = seg_.z, ns = seg_.w;

/* Grid size, epoch and cooperative launch of a stream-K kernel over `total`
 * k-slabs: as many blocks as fit on the GPU at once, fewer when that would
 * leave a block under SGEMM_SEARCH_SK_MIN_SLABS slabs. */
static int sgemm_search_sk_launch(const void *kernel, int threads, int smem_bytes, long long total,
                                  const float *A, const float *B, float *C, int m, int n, int k,
                                  cudaStream_t stream)
{
    static unsigned epoch; /* launches so far, mod 2^32, never 0 (the flags' initial value) */
    int dev = 0, sms = 0, per_sm = 0;
    cudaError_t err = cudaGetDevice(&dev);
    if (err == cudaSuccess)
        err = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
    if (err == cudaSuccess)
        err = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, threads, (size_t)smem_bytes);
    if (err != cudaSuccess)
        return (int)err;
    long long grid = (long long)sms * per_sm;
    if (grid > total / SGEMM_SEARCH_SK_MIN_SLABS)
        grid = total / SGEMM_SEARCH_SK_MIN_SLABS;
    if (grid > SGEMM_SEARCH_SK_MAX_BLOCKS)
        grid = SGEMM_SEARCH_SK_MAX_BLOCKS;
    if (grid < 1)
        grid = 1;
    if (++epoch == 0)
        epoch = 1;
    unsigned e = epoch;
    void *args[] = {(void *)&A, (void *)&B, (void *)&C, (void *)&m, (void *)&n, (void *)&k, (void *)&e};
    err = cudaLaunchCooperativeKernel(kernel, dim3((unsigned)grid), dim3((unsigned)threads), args,
                                      (size_t)smem_bytes, stream);
    return (int)err;
}

/* The stream-K kernels' extra parameter: the launch's epoch. */
#define SGEMM_SEARCH_SK_XPARAM , unsigned epoch
#define SGEMM_SEARCH_SK_XARG , epoch

/* Defines sgemm_search_launch_##ID: SGEMM_SEARCH_DB3_CONFIG's main loop (same
 * parameters) on a stream-K grid. Each block walks its range of the work,
 * one segment (a tile's slabs inside the range) at a time: main loop over
 * the segment's slabs from the segment's first, then the fix-up above, then
 * every copy drained and a barrier before the next segment reuses the
 * stages. Tile order is the GROUP-row swizzle of the third kernel. */
#define SGEMM_SEARCH_SK_CONFIG(ID, BM, BN, BK, WM, WN, TMP, TNP, ST, MINB, GROUP, SP, B0)        \
static __device__ __forceinline__ void sgemm_search_sk_body_##ID(const float *__restrict__ A,       \
                                                                const float *__restrict__ B,        \
                                                                float *__restrict__ C, int m,       \
                                                                int n, int k, int vec,              \
                                                                unsigned epoch)                     \
{                                                                                                   \
    SGEMM_SEARCH_DB_CONSTANTS(BM, BN, BK, WM, WN, TMP, TNP);                                        \
    SGEMM_SEARCH_DB3_CHECKS(BK, ST, SP, B0);                                                        \
    SGEMM_SEARCH_DB_SMEM(ST)                                                                        \
    SGEMM_SEARCH_DB_THREAD(WM, WN)                                                                  \
    /* the block's place in its range lives in shared memory and everything derived from it is */  \
    /* recomputed after the main loop: a value live across it changes ptxas's register choice */    \
    /* for the FFMAs (twice the operand bank conflicts, 85% of cuBLAS instead of 98%) */            \
    __shared__ long long sk_pos;                                                                    \
    if (tid == 0)                                                                                   \
        sk_pos = 0;                                                                                 \
    __syncthreads();                                                                                \
    for (;;) {                                                                                      \
        {                                                                                           \
            SGEMM_SEARCH_SK_SEGMENT(BM, BN, BK, GROUP);                                             \
            if (ns <= 0)                                                                            \
                break;                                                                              \
            SGEMM_SEARCH_DB3_MAINLOOP(BM, BN, BK, ST, SP, B0, ks, ns);                              \
            {                                                                                       \
                SGEMM_SEARCH_SK_SEGMENT(BM, BN, BK, GROUP);                                         \
                if (ks + ns < SGEMM_CEIL_DIV(k, (BK))) {                                            \
                    /* the tile's later slabs (block blockIdx.x+1 on) are in C: add to them */      \
                    sgemm_search_sk_wait(&sgemm_search_sk_flags[blockIdx.x + 1], epoch);            \
                    SGEMM_SEARCH_DB_STAGED_C(BM, WM, ST, 1);                                        \
                } else {                                                                            \
                    SGEMM_SEARCH_DB_STAGED_C(BM, WM, ST, 0);                                        \
                }                                                                                   \
                if (ks > 0) /* a partial sum: block blockIdx.x-1 finishes the tile */               \
                    sgemm_search_sk_publish(&sgemm_search_sk_flags[blockIdx.x], epoch);             \
                SGEMM_CP_ASYNC_WAIT(0);                                                             \
                __syncthreads(); /* every thread has read sk_pos and the stages */                  \
                if (tid == 0)                                                                       \
                    sk_pos = q_ + ns;                                                               \
                __syncthreads();                                                                    \
            }                                                                                       \
        }                                                                                           \
    }                                                                                               \
}                                                                                                   \
                                                                                                    \
SGEMM_SEARCH_KERNEL_PAIR(sk, ID, BM, BN, WM, WN, MINB, SGEMM_SEARCH_SK_XPARAM, SGEMM_SEARCH_SK_XARG) \
                                                                                                    \
static int sgemm_search_launch_##ID(const float *A, const float *B, float *C, int m, int n, int k,  \
                                    cudaStream_t stream)                                            \
{                                                                                                   \
    SGEMM_SEARCH_LAUNCH_PREP(sk, ID, BM, BN, BK, WM, WN, ST)                                        \
    return sgemm_search_sk_launch(kernel, threads, smem_bytes, SGEMM_SEARCH_SK_TOTAL(BM, BN, BK), A, \
                                  B, C, m, n, k, stream);                                           \
}

// ---- the candidates ----------------------------------------------------------------

/* X(ID, BM, BN, BK, WM, WN, TM, TN, STAGES, MINB)
 * threads = 32 * (BM/WM) * (BN/WN); shared memory = STAGES * (BM*(BK+4) + BK*BN) * 4 bytes. */
#define SGEMM_SEARCH_LIST(X)                                                                        \
    X(c0, 128, 128, 16, 64, 32, 8, 8, 3, 2)  /* = sgemm_pipelined; 256 thr; 54 KiB; 40.8 at 4096 */ \
    X(c2, 128, 128, 16, 64, 32, 8, 8, 4, 2)  /* 4 stages; 72 KiB */                                 \
    X(c3, 128, 128, 16, 32, 64, 8, 8, 3, 2)  /* warps 32x64 (lanes 4x8); 54 KiB */                  \
    X(c5, 128, 128, 16, 64, 64, 8, 16, 3, 2) /* 128 thr of 8x16; 54 KiB; 43.1 at 4096 */            \
    X(c6, 256, 128, 32, 64, 32, 8, 8, 2, 1)  /* 512 thr; 104 KiB (BK 16 x 3 spills) */              \
    X(c9, 128, 256, 16, 64, 64, 8, 16, 3, 1) /* 256 thr of 8x16; 78 KiB; 42.9 at 4096 */            \
    X(c10, 128, 64, 16, 64, 32, 8, 8, 3, 4)  /* 128 thr, more blocks for small n; 42 KiB */

/* X(ID, BM, BN, BK, WM, WN, TM, TN, STAGES, MINB, GROUP): SGEMM_SEARCH_DB_CONFIG
 * (As transposed, fragments double-buffered in registers, GROUP-row swizzle).
 * shared memory = STAGES * BK * (BM + 4 + BN) * 4 bytes. */
#define SGEMM_SEARCH_DB_LIST(X)                                                                     \
    X(d0, 128, 128, 8, 64, 64, 8, 16, 3, 2, 0)   /* 128 thr of 8x16; 25 KiB */                      \
    X(d1, 128, 128, 16, 64, 64, 8, 16, 3, 2, 0)  /* 128 thr of 8x16; 49 KiB */                      \
    X(d2, 128, 128, 16, 64, 64, 8, 16, 3, 2, 8)  /* d1 + swizzle by 8 block rows */                 \
    X(d3, 128, 128, 16, 64, 64, 8, 16, 4, 2, 8)  /* 4 stages; 65 KiB */                             \
    X(d4, 128, 128, 32, 64, 64, 8, 16, 3, 2, 8)  /* BK 32: half the barriers; 98 KiB */             \
    X(d5, 128, 128, 8, 64, 64, 8, 16, 4, 2, 8)   /* d0 + 4 stages + swizzle; 33 KiB */              \
    X(d6, 128, 256, 16, 64, 64, 8, 16, 3, 1, 8)  /* 256 thr of 8x16, 1 block/SM; 74 KiB */          \
    X(d7, 256, 128, 16, 64, 64, 8, 16, 3, 1, 8)  /* 256 thr of 8x16, 1 block/SM; 74 KiB */

/* X(ID, BM, BN, BK, WM, WN, TM, TN, STAGES, MINB, GROUP, SP, B0): SGEMM_SEARCH_DB3_CONFIG
 * (SGEMM_SEARCH_DB_CONFIG with the slab copies spread over the k-steps in SP
 * groups, no branch in the loop, clamped sources, the slab's barrier at
 * k-step B0); names end in _gGROUP_spSP_bB0. H200, % of cuBLAS FP32 at
 * n = 2048 / 4096 / 8192 (compare-search, 2026-11-30, results/h200/search_fp32.txt
 * has the last run). Tried and dropped: copies in one block before the
 * k-steps (the second kernel's order): 88-90; 4 groups at 128x256 with the
 * barrier last: 90-91; BK 16 at 128x128: 92-93; 2 stages: 82-83; 5 stages or
 * swizzle 4/16/off around [17]: within 0.3 of it; the FFMAs column by column
 * or in 2x2 blocks at [17]: 95 / 98 (ptxas schedules them itself). */
#define SGEMM_SEARCH_DB3_LIST(X)                                                                    \
    X(p0, 128, 128, 8, 64, 64, 8, 16, 4, 2, 8, 8, 7)   /* [12] + spread copies: 94-95 */            \
    X(p6, 128, 256, 8, 64, 64, 8, 16, 3, 1, 8, 2, 7)   /* 256 thr, 1 block/SM; 37 KiB: 97 */        \
    X(q0, 128, 256, 8, 64, 64, 8, 16, 4, 1, 8, 2, 4)   /* p6, barrier mid-slab; 50 KiB: 98.5-99 */  \
    X(q5, 256, 128, 8, 64, 64, 8, 16, 4, 1, 8, 2, 4)   /* 256x128 (cuBLAS's FP32 tile): 95 */       \
    X(q7, 128, 256, 8, 64, 64, 8, 16, 4, 1, 8, 2, 2)   /* barrier at k-step 2: 97 */                \
    X(q8, 128, 256, 16, 64, 64, 8, 16, 4, 1, 8, 2, 8)  /* BK 16: half the barriers; 99 KiB: 96 */   \
    X(q11, 128, 256, 8, 64, 64, 8, 16, 4, 1, 8, 1, 4)  /* all copies at k-step 0: 98-99 */          \
    X(r2, 128, 256, 8, 32, 128, 8, 16, 4, 1, 8, 2, 4)  /* q0, warps 32x128 (lanes 4x8): 98.5-99 */

/* X(...): as SGEMM_SEARCH_DB3_LIST, on a stream-K grid with C staged
 * (SGEMM_SEARCH_SK_CONFIG); names end in _sk. H200, % of cuBLAS FP32 at
 * n = 2048 / 4096 / 8192 (compare-search, 2026-11-30, search_fp32.txt).
 * On the way: every tile split (no full waves): 85-87, 97/99/96 once the
 * main loop's state left the registers; partial tiles added by loading C:
 * 97 at 2048 (register pressure, see SGEMM_SEARCH_DB_STAGED_C); C stored
 * and reduced element by element: 93 / 99.5 / 102.4. */
#define SGEMM_SEARCH_SK_LIST(X)                                                                     \
    X(s0, 128, 256, 8, 64, 64, 8, 16, 4, 1, 8, 2, 4)   /* [17] (q0): 100.7 / 103.2 / 102.4 */       \
    X(s1, 128, 256, 8, 32, 128, 8, 16, 4, 1, 8, 2, 4)  /* [22] (r2): 100.3 / 103.0 / 102.0 */       \
    X(s2, 128, 128, 8, 64, 64, 8, 16, 4, 2, 8, 8, 7)   /* [15] (p0): 93 / 95 / 95; 48 at 512 */

/* X(...): as SGEMM_SEARCH_DB3_LIST, C staged through shared memory
 * (SGEMM_SEARCH_DB3S_CONFIG); names end in _st. % of cuBLAS FP32 as above;
 * before the staging swizzle (4-way bank conflicts on the staging stores,
 * and ptxas's register choice then 353 FFMA bank conflicts per slab, 247
 * after): [26] 99.4 / 100.1 / 100.3. */
#define SGEMM_SEARCH_DB3S_LIST(X)                                                                   \
    X(t0, 128, 256, 8, 64, 64, 8, 16, 4, 1, 8, 2, 4)   /* [17] (q0): 99.8 / 99.4 / 100.5 */         \
    X(t1, 128, 256, 8, 32, 128, 8, 16, 4, 1, 8, 2, 4)  /* [22] (r2): 100.6 / 100.4 / 101.3 */       \
    X(t2, 128, 128, 8, 64, 64, 8, 16, 4, 2, 8, 8, 7)   /* [15] (p0): 95 / 95 / 96 */

SGEMM_SEARCH_LIST(SGEMM_SEARCH_CONFIG)
SGEMM_SEARCH_DB_LIST(SGEMM_SEARCH_DB_CONFIG)
SGEMM_SEARCH_DB3_LIST(SGEMM_SEARCH_DB3_CONFIG)
SGEMM_SEARCH_SK_LIST(SGEMM_SEARCH_SK_CONFIG)
SGEMM_SEARCH_DB3S_LIST(SGEMM_SEARCH_DB3S_CONFIG)

#define SGEMM_SEARCH_ENTRY(ID, BM, BN, BK, WM, WN, TM, TN, ST, MINB)                                \
    {#BM "x" #BN "x" #BK "_w" #WM "x" #WN "_t" #TM "x" #TN "_s" #ST, sgemm_search_launch_##ID},
#define SGEMM_SEARCH_DB_ENTRY(ID, BM, BN, BK, WM, WN, TM, TN, ST, MINB, GROUP)                      \
    {#BM "x" #BN "x" #BK "_w" #WM "x" #WN "_t" #TM "x" #TN "_s" #ST "_db_g" #GROUP,                 \
     sgemm_search_launch_##ID},
#define SGEMM_SEARCH_DB3_ENTRY(ID, BM, BN, BK, WM, WN, TM, TN, ST, MINB, GROUP, SP, B0)             \
    {#BM "x" #BN "x" #BK "_w" #WM "x" #WN "_t" #TM "x" #TN "_s" #ST "_g" #GROUP "_sp" #SP "_b" #B0, \
     sgemm_search_launch_##ID},
#define SGEMM_SEARCH_SK_ENTRY(ID, BM, BN, BK, WM, WN, TM, TN, ST, MINB, GROUP, SP, B0)              \
    {#BM "x" #BN "x" #BK "_w" #WM "x" #WN "_t" #TM "x" #TN "_s" #ST "_g" #GROUP "_sp" #SP "_b" #B0  \
     "_sk", sgemm_search_launch_##ID},
#define SGEMM_SEARCH_DB3S_ENTRY(ID, BM, BN, BK, WM, WN, TM, TN, ST, MINB, GROUP, SP, B0)            \
    {#BM "x" #BN "x" #BK "_w" #WM "x" #WN "_t" #TM "x" #TN "_s" #ST "_g" #GROUP "_sp" #SP "_b" #B0  \
     "_st", sgemm_search_launch_##ID},
/* One row per candidate: SGEMM_SEARCH_LIST, then SGEMM_SEARCH_DB_LIST (new
 * rows are only ever appended: SGEMM_TUNED_INDEX and recorded results refer
 * to row numbers). */
static const struct {
    const char *name;      /* "BMxBNxBK_wWMxWN_tTMxTN_sSTAGES[_db_gGROUP]" */
    sgemm_launcher launch; /* the candidate's launcher */
} sgemm_search_table[] = {SGEMM_SEARCH_LIST(SGEMM_SEARCH_ENTRY)
                              SGEMM_SEARCH_DB_LIST(SGEMM_SEARCH_DB_ENTRY)
                                  SGEMM_SEARCH_DB3_LIST(SGEMM_SEARCH_DB3_ENTRY)
                                      SGEMM_SEARCH_SK_LIST(SGEMM_SEARCH_SK_ENTRY)
                                          SGEMM_SEARCH_DB3S_LIST(SGEMM_SEARCH_DB3S_ENTRY)};

#define SGEMM_SEARCH_N ((int)(sizeof sgemm_search_table / sizeof sgemm_search_table[0]))
static_assert(SGEMM_TUNED_INDEX >= 0 && SGEMM_TUNED_INDEX < SGEMM_SEARCH_N &&
                  SGEMM_TUNED_SMALL_INDEX >= 0 && SGEMM_TUNED_SMALL_INDEX < SGEMM_SEARCH_N,
              "SGEMM_TUNED_INDEX and SGEMM_TUNED_SMALL_INDEX must name rows of the table");

// ---- public API --------------------------------------------------------------------

extern "C" int sgemm_search_count(void)
{
    return SGEMM_SEARCH_N;
}

extern "C" const char *sgemm_search_name(int i)
{
    return i >= 0 && i < SGEMM_SEARCH_N ? sgemm_search_table[i].name : NULL;
}

extern "C" int sgemm_search_run(int i, const float *A, const float *B, float *C, int m, int n, int k,
                                cudaStream_t stream)
{
    if (i < 0 || i >= SGEMM_SEARCH_N || m < 1 || n < 1 || k < 1)
        return (int)cudaErrorInvalidValue;
    return sgemm_search_table[i].launch(A, B, C, m, n, k, stream);
}

extern "C" int sgemm_tuned(const float *A, const float *B, float *C, int m, int n, int k,
                           cudaStream_t stream)
{
    const int small = (long long)m * n < SGEMM_TUNED_SMALL_OUTPUTS;
    return sgemm_search_run(small ? SGEMM_TUNED_SMALL_INDEX : SGEMM_TUNED_INDEX, A, B, C, m, n, k,
                            stream);
}
