/* kernels/sgemm_pipelined.cu: step 7 of the SGEMM ladder, warp tiling
 * fed by a multi-stage cp.async pipeline.
 *
 * Idea: as sgemm_warptile (128x128 block tile, 8 warps of 64x32, 8x8 of C per
 * thread), but global -> shared copies are asynchronous (cp.async, sm_80+):
 * shared memory holds STAGES = 3 k-slabs of BK = 16; while the block computes
 * slab t, the copies of slabs t+1 and t+2 are in flight. No register staging,
 * so the loads cost no registers and no STS instructions. One __syncthreads
 * per slab is enough: at iteration t, after the barrier every thread has
 * finished computing slab t-1, so its stage ((t-1) % STAGES) is the one the
 * copies of slab t+STAGES-1 overwrite; cp.async.wait_group STAGES-2 plus the
 * same barrier make slab t's copies (issued by all threads) visible.
 *
 * A is kept row-major in shared memory: cp.async cannot transpose, and
 * transposing through registers would bring back the staging registers and
 * STS instructions that cp.async removes (at 128 registers per thread there
 * is no room for them). Reading A "down a column" with scalar loads would
 * cost 8 LDS per k-step, so a thread instead reads A along k: one LDS.128
 * gives 4 consecutive k's of one of its rows. Per 4 k-steps a thread loads
 * 8 float4 of A (its 8 rows) and 2 x 4 float4 of B: 16 LDS.128 for 256 FFMA,
 * the same 16:1 as step 6.
 * Conflict-free reads: a thread's 8 rows are interleaved, rows
 * wm0 + lr + 8*i (lr = lane / 4), so for one i the 8 lane-rows of a warp are 8
 * consecutive rows; As rows are padded to BK + 4 = 20 floats, and 8 rows of a
 * 20-float stride start in 8 distinct 4-bank groups (20*r mod 32 =
 * 0,20,8,28,16,4,24,12), so each LDS.128 is one pass. B is read as in step 6
 * (4 lanes along n read 4 consecutive float4). Columns of the thread tile are
 * wn0 + lc*4 + 16*j4 + [0,4) (lc = lane % 4, j4 = 0,1).
 *
 * Constraints: any m, n, k >= 1. With k % 4 == 0 and n % 4 == 0 rows are
 * 16-byte aligned and each chunk is one 16-byte cp.async (zero-fill form:
 * chunks past the edge read 0 bytes from the matrix base, never from an
 * out-of-range address); otherwise the launcher uses the same kernel built
 * with 4-byte cp.async per element. Predicates cost one compare per chunk
 * per slab (running pointers and "k left" counters, no per-element math).
 * Dynamic shared memory: STAGES * 18 KiB = 54 KiB per block (opt-in above
 * 48 KiB, set by the launcher); 128 registers, so 2 blocks of 256 threads per
 * SM. The rowa kernel of sgemm_tuned.cuh is the same design as a template over
 * its shape (compare-search times it in other shapes).
 *
 * Run just this variant: ./compare --variants pipelined */
#include "kernel_ran.h"
#include "sgemm.h"
#include "sgemm_common.cuh"
#include "smem.cuh"

#define PL_BM 128    /* rows of C per block */
#define PL_BN 128    /* columns of C per block */
#define PL_BK 16     /* k-slab per stage */
#define PL_STAGES 3  /* k-slabs resident in shared memory */
#define PL_WM 64     /* rows of C per warp */
#define PL_WN 32     /* columns of C per warp */
#define PL_LANES_M 8 /* lanes of a warp along m */
#define PL_LANES_N 4 /* lanes of a warp along n */
#define PL_AS_LD (PL_BK + 4) /* As row stride (floats): 16-byte aligned, conflict-free */
#define PL_WARPS_N (PL_BN / PL_WN)
#define PL_THREADS (32 * (PL_BM / PL_WM) * (PL_BN / PL_WN))
#define PL_TM (PL_WM / PL_LANES_M)              /* rows of C per thread (interleaved) */
#define PL_TN (PL_WN / PL_LANES_N)              /* columns of C per thread (float4 groups) */
#define PL_STAGE_FLOATS (PL_BM * PL_AS_LD + PL_BK * PL_BN)
#define PL_SMEM_BYTES (PL_STAGES * PL_STAGE_FLOATS * (int)sizeof(float))
#define PL_A_CHUNKS (PL_BM * PL_BK / 4 / PL_THREADS) /* A chunks per thread per slab */
#define PL_B_CHUNKS (PL_BK * PL_BN / 4 / PL_THREADS) /* B chunks per thread per slab */
#define PL_A_STEP (PL_THREADS / (PL_BK / 4))         /* rows between a thread's A chunks */
#define PL_B_STEP (PL_THREADS / (PL_BN / 4))         /* rows between a thread's B chunks */

static_assert(PL_LANES_M * PL_LANES_N == 32, "a warp is 32 lanes");
static_assert(PL_BM % PL_WM == 0 && PL_BN % PL_WN == 0, "warp tiles must cover the block tile");
static_assert(PL_THREADS == 256 && PL_TM == 8 && PL_TN == 8, "launch bounds assume 256 threads of 8x8");
static_assert(PL_TN % 4 == 0, "B fragments are read as float4");
static_assert(PL_BK % 8 == 0, "BK/4 even keeps the As stride BK+4 an odd number of float4 (no conflicts)");
static_assert(PL_LANES_M <= 8, "at most 8 distinct As rows per LDS.128 stay conflict-free");
static_assert(PL_STAGES >= 2, "need at least double buffering");
static_assert((PL_BM * PL_BK / 4) % PL_THREADS == 0 && PL_THREADS % (PL_BK / 4) == 0,
              "A chunks spread evenly, a thread keeps its k column");
static_assert((PL_BK * PL_BN / 4) % PL_THREADS == 0 && PL_THREADS % (PL_BN / 4) == 0,
              "B chunks spread evenly, a thread keeps its n column");
static_assert((PL_STAGE_FLOATS * 4) % 16 == 0 && (PL_BM * PL_AS_LD * 4) % 16 == 0,
              "every stage and its B part start 16-byte aligned");

// ---- kernel ------------------------------------------------------------------------

/* vec: 1 = 16-byte cp.async and float4 stores (k % 4 == 0 and n % 4 == 0),
 * 0 = 4-byte cp.async and scalar stores. Inlined with a constant. */
static __device__ __forceinline__ void sgemm_pipelined_body(const float *__restrict__ A,
                                                            const float *__restrict__ B,
                                                            float *__restrict__ C, int m, int n,
                                                            int k, int vec)
{
    /* Stage s: As = smem + s*STAGE_FLOATS ([BM][AS_LD], row-major A tile),
     *          Bs = As + BM*AS_LD ([BK][BN]). */
    extern __shared__ float4 sgemm_pipelined_smem[];
    float *smem = (float *)sgemm_pipelined_smem;

    const int tid = threadIdx.x;
    const int bm = blockIdx.y * PL_BM;
    const int bn = blockIdx.x * PL_BN;
    const int warp = tid / 32, lane = tid % 32;
    const int wm0 = (warp / PL_WARPS_N) * PL_WM;
    const int wn0 = (warp % PL_WARPS_N) * PL_WN;
    const int lr = lane / PL_LANES_N, lc = lane % PL_LANES_N;
    const int tm0 = wm0 + lr;     /* thread rows: tm0 + i * LANES_M, i < TM */
    const int tn0 = wn0 + lc * 4; /* thread cols: tn0 + j4 * (LANES_N*4) + [0,4) */

    /* Copy assignment, fixed for the whole k loop: A chunks (bm + a_r + l*A_STEP,
     * k0 + a_c..+3), B chunks (k0 + b_r + l*B_STEP, bn + b_c..+3). a_src is
     * where the first A chunk of slab 0 would be; chunks outside the matrix
     * are never read (sgemm_cp_async_chunk copies 0 bytes from A or B then). */
    const int a_r = tid / (PL_BK / 4), a_c = (tid % (PL_BK / 4)) * 4;
    const int b_r = tid / (PL_BN / 4), b_c = (tid % (PL_BN / 4)) * 4;
    const int a_rows_left = m - (bm + a_r); /* chunk l is inside m iff l*A_STEP < a_rows_left */
    const float *a_src = A + (size_t)(bm + a_r) * k + a_c;   /* advances by BK per slab */
    const float *b_src = B + (size_t)b_r * n + bn + b_c;     /* advances by BK rows per slab */
    float *as_dst = smem + a_r * PL_AS_LD + a_c;             /* + stage offset */
    float *bs_dst = smem + PL_BM * PL_AS_LD + b_r * PL_BN + b_c;
    int a_k_left = k - a_c;                                  /* decreases by BK per slab */
    int b_k_left = k - b_r;

    const int ntiles = SGEMM_CEIL_DIV(k, PL_BK);

    /* Issues the copies of the next k-slab into stage `stage` (no commit). */
#define PL_LOAD_TILE(stage)                                                                    \
    do {                                                                                       \
        const int so_ = (stage) * PL_STAGE_FLOATS;                                             \
        _Pragma("unroll") for (int l = 0; l < PL_A_CHUNKS; ++l)                                \
            sgemm_cp_async_chunk(as_dst + so_ + l * PL_A_STEP * PL_AS_LD,                      \
                                 a_src + (size_t)l * PL_A_STEP * k, l * PL_A_STEP < a_rows_left, \
                                 0, a_k_left, A, vec);                                            \
        _Pragma("unroll") for (int l = 0; l < PL_B_CHUNKS; ++l)                                \
            sgemm_cp_async_chunk(bs_dst + so_ + l * PL_B_STEP * PL_BN,                         \
                                 b_src + (size_t)l * PL_B_STEP * n, l * PL_B_STEP < b_k_left, \
                                 bn + b_c, n, B, vec);                                         \
        a_src += PL_BK;                                                                        \
        b_src += (size_t)PL_BK * n;                                                            \
        a_k_left -= PL_BK;                                                                     \
        b_k_left -= PL_BK;                                                                     \
    } while (0)

    /* Prologue: slabs 0 .. STAGES-2 in flight, one commit group each (empty
     * groups past the last slab keep the group count uniform). */
#pragma unroll
    for (int s = 0; s < PL_STAGES - 1; ++s) {
        if (s < ntiles)
            PL_LOAD_TILE(s);
        cp_async_commit();
    }

    float acc[PL_TM][PL_TN];
#pragma unroll
    for (int i = 0; i < PL_TM; ++i)
#pragma unroll
        for (int j = 0; j < PL_TN; ++j)
            acc[i][j] = 0.0f;

    int read_stage = 0;               /* stage holding slab t */
    int write_stage = PL_STAGES - 1;  /* stage receiving slab t + STAGES-1 */
    for (int t = 0; t < ntiles; ++t) {
        /* Groups committed so far: STAGES-1+t; at most STAGES-2 pending means
         * slabs 0..t have landed (this thread's copies); the barrier makes
         * all threads' copies visible and frees stage (t-1) % STAGES. */
        cp_async_wait(PL_STAGES - 2);
        __syncthreads();
        if (t + PL_STAGES - 1 < ntiles)
            PL_LOAD_TILE(write_stage);
        cp_async_commit();

        const float *as = smem + read_stage * PL_STAGE_FLOATS;
        const float *bs = as + PL_BM * PL_AS_LD;
#pragma unroll
        for (int kc = 0; kc < PL_BK; kc += 4) {
            float a[PL_TM][4]; /* a[i][q] = A(tm0 + i*LANES_M, k0 + kc + q) */
#pragma unroll
            for (int i = 0; i < PL_TM; ++i) {
                float4 v = *(const float4 *)&as[(tm0 + i * PL_LANES_M) * PL_AS_LD + kc];
                a[i][0] = v.x, a[i][1] = v.y, a[i][2] = v.z, a[i][3] = v.w;
            }
#pragma unroll
            for (int q = 0; q < 4; ++q) {
                float b[PL_TN];
#pragma unroll
                for (int j4 = 0; j4 < PL_TN / 4; ++j4) {
                    float4 v = *(const float4 *)&bs[(kc + q) * PL_BN + tn0 + j4 * (PL_LANES_N * 4)];
                    b[j4 * 4 + 0] = v.x, b[j4 * 4 + 1] = v.y, b[j4 * 4 + 2] = v.z, b[j4 * 4 + 3] = v.w;
                }
#pragma unroll
                for (int i = 0; i < PL_TM; ++i)
#pragma unroll
                    for (int j = 0; j < PL_TN; ++j)
                        acc[i][j] = fmaf(a[i][q], b[j], acc[i][j]);
            }
        }
        read_stage = read_stage + 1 == PL_STAGES ? 0 : read_stage + 1;
        write_stage = write_stage + 1 == PL_STAGES ? 0 : write_stage + 1;
    }
#undef PL_LOAD_TILE

    /* acc[i][j4*4 + jj] is C(bm + tm0 + i*LANES_M, bn + tn0 + j4*LANES_N*4 + jj). */
#pragma unroll
    for (int i = 0; i < PL_TM; ++i) {
        const int gr = bm + tm0 + i * PL_LANES_M;
        float *c_row = C + (size_t)(gr < m ? gr : 0) * n;
#pragma unroll
        for (int j4 = 0; j4 < PL_TN / 4; ++j4)
            sgemm_store4(c_row, gr < m, bn + tn0 + j4 * (PL_LANES_N * 4), n, vec,
                         make_float4(acc[i][j4 * 4 + 0], acc[i][j4 * 4 + 1], acc[i][j4 * 4 + 2],
                                     acc[i][j4 * 4 + 3]));
    }
}

static __global__ void __launch_bounds__(PL_THREADS, 2)
sgemm_pipelined_kernel_f4(const float *__restrict__ A, const float *__restrict__ B,
                          float *__restrict__ C, int m, int n, int k)
{
    sgemm_pipelined_body(A, B, C, m, n, k, 1);
}

static __global__ void __launch_bounds__(PL_THREADS, 2)
sgemm_pipelined_kernel_scalar(const float *__restrict__ A, const float *__restrict__ B,
                              float *__restrict__ C, int m, int n, int k)
{
    sgemm_pipelined_body(A, B, C, m, n, k, 0);
}

// ---- launcher ------------------------------------------------------------------------

extern "C" int sgemm_pipelined(const float *A, const float *B, float *C, int m, int n, int k,
                               cudaStream_t stream)
{
    if (m < 1 || n < 1 || k < 1)
        return (int)cudaErrorInvalidValue;
    const int vec = k % 4 == 0 && n % 4 == 0;
    kernel_ran_note(vec ? "sgemm_pipelined_kernel_f4" : "sgemm_pipelined_kernel_scalar",
                    vec ? NULL : SGEMM_SCALAR_REASON);
    /* Above 48 KiB of dynamic shared memory a kernel must opt in (once per device). */
    static unsigned long long opted_in[2];
    const int opt = smem_opt_in(vec ? (const void *)sgemm_pipelined_kernel_f4
                                    : (const void *)sgemm_pipelined_kernel_scalar,
                                PL_SMEM_BYTES, &opted_in[vec]);
    if (opt != 0)
        return opt;
    dim3 grid(SGEMM_CEIL_DIV(n, PL_BN), SGEMM_CEIL_DIV(m, PL_BM));
    if (vec)
        sgemm_pipelined_kernel_f4<<<grid, PL_THREADS, PL_SMEM_BYTES, stream>>>(A, B, C, m, n, k);
    else
        sgemm_pipelined_kernel_scalar<<<grid, PL_THREADS, PL_SMEM_BYTES, stream>>>(A, B, C, m, n, k);
    return (int)cudaGetLastError();
}
