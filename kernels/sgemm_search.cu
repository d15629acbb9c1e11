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
 * Candidates (SGEMM_SEARCH_LIST, then SGEMM_SEARCH_DB_LIST; names of the
 * second kind end in _db_gGROUP): 128x128 with 256 threads of 8x8 (warps
 * 64x32 or 32x64, 3/4 stages) or 128 threads of 8x16; 256x128 with 512
 * threads, 128x256 with 256 threads of 8x16; 128x64 for small n; then the
 * transposed-A kernel at 128x128 (128 threads of 8x16, BK 8/16/32, 3/4
 * stages, swizzle 0/8) and 128x256 / 256x128 (256 threads of 8x16, 1 block
 * per SM). Dropped after the first H200 sweep (dominated): 128x128x8 8x8 s4,
 * 128x128x8 8x16 s4, 128x256x16 8x8, 128x256x8 8x16 s4, 64x64x16 4x8.
 * Removed after the second H200 sweep (results/h200/search.txt, rows 15-22):
 * a third kernel with an unpredicated fast path for tile-multiple sizes,
 * around the [12] winner (4/6/8 stages, swizzle groups 4/8/16, BK 16, a
 * serpentine FFMA order): 84-88% of cuBLAS, none above [12].
 *
 * Measured on the H200: every candidate in results/h200/search.txt
 * (compare-search --n 2048,4096,8192). sgemm_tuned (row 12) in
 * results/h200/sgemm.csv: 44.3 / 45.6 / 46.2 TFLOP/s at n = 2048 / 4096 / 8192
 * = 88.4 / 88.7 / 90.6% of cuBLAS FP32 (the issue's target, 95-100%, is not met).
 * Run just this: ./compare --variants tuned (the candidates are reached
 * through sgemm_search_run, one row each where the harness lists them). */
#include "sgemm.h"
#include "sgemm_common.cuh"
#include "sgemm_search.h"

/* Candidate chosen by sgemm_tuned: index into SGEMM_SEARCH_LIST, the
 * compare-search winner on the H200 (2026-11-29, median, L2 flushed):
 *   [12] 128x128x8_w64x64_t8x16_s4_db_g8: 44.5 / 45.7 / 46.1 TFLOP/s at
 *   n = 2048 / 4096 / 8192 = 88.5 / 89.1 / 90.7% of cuBLAS FP32
 *   (runner-up [7], the same without the block swizzle: 88.1 / 88.5 / 89.9%;
 *   [0], the pipelined shape: 79.6 / 79.7 / 80.9%). */
#ifndef SGEMM_TUNED_INDEX /* -DCOMPARE_KERNEL_DEFS=SGEMM_TUNED_INDEX=i retunes without an edit */
#define SGEMM_TUNED_INDEX 12
#endif

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
#define SGEMM_SEARCH_DB_CONFIG(ID, BM, BN, BK, WM, WN, TMP, TNP, ST, MINB, GROUP)                    \
static __device__ __forceinline__ void sgemm_search_db_body_##ID(const float *__restrict__ A,       \
                                                                const float *__restrict__ B,        \
                                                                float *__restrict__ C, int m,       \
                                                                int n, int k, int vec)              \
{                                                                                                   \
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
                  "B chunks spread evenly, a thread keeps its n column");                           \
    static_assert((ST) >= 2, "need at least double buffering");                                     \
    static_assert(THREADS <= 1024, "block size");                                                   \
    static_assert((ST) * STAGE_FLOATS * 4 <= 227 * 1024, "shared memory per block");                \
                                                                                                    \
    extern __shared__ float4 sgemm_search_db_smem[];                                                \
    float *smem = (float *)sgemm_search_db_smem;                                                    \
                                                                                                    \
    int bx = blockIdx.x, by = blockIdx.y;                                                           \
    if ((GROUP) > 0) {                                                                              \
        const int id = by * (int)gridDim.x + bx;                                                    \
        const int per_group = (GROUP) * (int)gridDim.x;                                             \
        const int first = id / per_group * (GROUP);                                                 \
        const int rows = min((int)gridDim.y - first, (GROUP));                                      \
        const int in = id % per_group;                                                              \
        by = first + in % rows;                                                                     \
        bx = in / rows;                                                                             \
    }                                                                                               \
    const int tid = threadIdx.x;                                                                    \
    const int bm = by * (BM);                                                                       \
    const int bn = bx * (BN);                                                                       \
    const int warp = tid / 32, lane = tid % 32;                                                     \
    /* thread rows tm0 + i4*LM*4 + [0,4), cols tn0 + j4*LN*4 + [0,4) */                             \
    const int tm0 = (warp / WARPS_N) * (WM) + (lane / LN) * 4;                                      \
    const int tn0 = (warp % WARPS_N) * (WN) + (lane % LN) * 4;                                      \
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
    _Pragma("unroll") for (int i = 0; i < TM; ++i) {                                                \
        const int gr = bm + tm0 + (i / 4) * (LM * 4) + i % 4;                                       \
        float *c_row = C + (size_t)(gr < m ? gr : 0) * n;                                           \
        _Pragma("unroll") for (int j4 = 0; j4 < TN / 4; ++j4)                                       \
            sgemm_store4(c_row, gr < m, bn + tn0 + j4 * (LN * 4), n, vec,                           \
                         make_float4(acc[i][j4 * 4 + 0], acc[i][j4 * 4 + 1], acc[i][j4 * 4 + 2],    \
                                     acc[i][j4 * 4 + 3]));                                          \
    }                                                                                               \
}                                                                                                   \
                                                                                                    \
static __global__ void __launch_bounds__(32 * ((BM) / (WM)) * ((BN) / (WN)), MINB)                  \
sgemm_search_db_kernel_f4_##ID(const float *__restrict__ A, const float *__restrict__ B,            \
                               float *__restrict__ C, int m, int n, int k)                          \
{                                                                                                   \
    sgemm_search_db_body_##ID(A, B, C, m, n, k, 1);                                                 \
}                                                                                                   \
                                                                                                    \
static __global__ void __launch_bounds__(32 * ((BM) / (WM)) * ((BN) / (WN)), MINB)                  \
sgemm_search_db_kernel_scalar_##ID(const float *__restrict__ A, const float *__restrict__ B,        \
                                   float *__restrict__ C, int m, int n, int k)                      \
{                                                                                                   \
    sgemm_search_db_body_##ID(A, B, C, m, n, k, 0);                                                 \
}                                                                                                   \
                                                                                                    \
static int sgemm_search_launch_##ID(const float *A, const float *B, float *C, int m, int n, int k,  \
                                    cudaStream_t stream)                                            \
{                                                                                                   \
    const int threads = 32 * ((BM) / (WM)) * ((BN) / (WN));                                         \
    const int smem_bytes = (ST) * ((BK) * ((BM) + 4) + (BK) * (BN)) * (int)sizeof(float);           \
    const int vec = k % 4 == 0 && n % 4 == 0;                                                       \
    cudaError_t err = cudaFuncSetAttribute(vec ? (const void *)sgemm_search_db_kernel_f4_##ID       \
                                               : (const void *)sgemm_search_db_kernel_scalar_##ID,  \
                                           cudaFuncAttributeMaxDynamicSharedMemorySize, smem_bytes); \
    if (err != cudaSuccess)                                                                         \
        return (int)err;                                                                            \
    dim3 grid(SGEMM_CEIL_DIV(n, (BN)), SGEMM_CEIL_DIV(m, (BM)));                                    \
    if (vec)                                                                                        \
        sgemm_search_db_kernel_f4_##ID<<<grid, threads, smem_bytes, stream>>>(A, B, C, m, n, k);    \
    else                                                                                            \
        sgemm_search_db_kernel_scalar_##ID<<<grid, threads, smem_bytes, stream>>>(A, B, C, m, n, k); \
    return (int)cudaGetLastError();                                                                 \
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

SGEMM_SEARCH_LIST(SGEMM_SEARCH_CONFIG)
SGEMM_SEARCH_DB_LIST(SGEMM_SEARCH_DB_CONFIG)

#define SGEMM_SEARCH_ENTRY(ID, BM, BN, BK, WM, WN, TM, TN, ST, MINB)                                \
    {#BM "x" #BN "x" #BK "_w" #WM "x" #WN "_t" #TM "x" #TN "_s" #ST, sgemm_search_launch_##ID},
#define SGEMM_SEARCH_DB_ENTRY(ID, BM, BN, BK, WM, WN, TM, TN, ST, MINB, GROUP)                      \
    {#BM "x" #BN "x" #BK "_w" #WM "x" #WN "_t" #TM "x" #TN "_s" #ST "_db_g" #GROUP,                 \
     sgemm_search_launch_##ID},
/* One row per candidate: SGEMM_SEARCH_LIST, then SGEMM_SEARCH_DB_LIST (new
 * rows are only ever appended: SGEMM_TUNED_INDEX and recorded results refer
 * to row numbers). */
static const struct {
    const char *name;      /* "BMxBNxBK_wWMxWN_tTMxTN_sSTAGES[_db_gGROUP]" */
    sgemm_launcher launch; /* the candidate's launcher */
} sgemm_search_table[] = {SGEMM_SEARCH_LIST(SGEMM_SEARCH_ENTRY)
                              SGEMM_SEARCH_DB_LIST(SGEMM_SEARCH_DB_ENTRY)};

#define SGEMM_SEARCH_N ((int)(sizeof sgemm_search_table / sizeof sgemm_search_table[0]))
static_assert(SGEMM_TUNED_INDEX >= 0 && SGEMM_TUNED_INDEX < SGEMM_SEARCH_N,
              "SGEMM_TUNED_INDEX must name a row of SGEMM_SEARCH_LIST");

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
    return sgemm_search_run(SGEMM_TUNED_INDEX, A, B, C, m, n, k, stream);
}
