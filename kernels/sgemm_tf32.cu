/* kernels/sgemm_tf32.cu: TF32 tensor-core SGEMM with warp-level mma.sync.
 *
 * Variant: sgemm_tf32_mma        run just it: ./compare --variants tf32_mma
 * Measured: pending H200 run (target >= 50% of cublas_tf32 at n = 4096).
 *
 * Idea
 *   C = A * B with FP32 in and out and TF32 products (10-bit mantissa, FP32
 *   accumulate), the same arithmetic as cuBLAS with CUBLAS_TF32_TENSOR_OP_MATH.
 *   Operands are rounded with cvt.rna.tf32.f32 (round to nearest, ties away)
 *   just before each mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32.
 *
 *   - Block tile 128 x 256 (BM x BN), BK = 32, 256 threads = 8 warps laid out
 *     2 (m) x 4 (n); each warp owns a 64 x 64 tile of C = 4 x 8 mma tiles of
 *     16 x 8, i.e. 128 FP32 accumulators per thread. 128 x 256 rather than
 *     128 x 128 because shared-memory bandwidth (128 B/clk/SM) is the limit of
 *     mma.sync TF32: a 64 x 64 warp tile reads 16 KB of fragments per BK slice
 *     per 262k flop, two thirds of the bytes per flop of a 64 x 32 warp tile.
 *   - Per thread and BK slice the main loop issues (sm_90 SASS) 128 HMMA.1688
 *     .F32.TF32, 16 LDSM, 64 LDS, 12 LDGSTS and 2 x 128 ALU ops for cvt.rna
 *     (FSETP + predicated IADD; ptxas drops the masking since the tensor core
 *     ignores the low 13 bits): ~580 instructions, no register moves.
 *   - 4-stage cp.async pipeline (16-byte cp.async.cg, zero-filled past the
 *     edges), one __syncthreads per BK slice. 52224 B of shared memory per
 *     stage, 208896 B in all (dynamic; the launcher raises the limit once).
 *   - Grouped rasterisation: consecutive blocks walk 8 block-rows of C before
 *     moving right, so the A and B panels of a wave are shared in L2.
 *
 * Fragment layouts (PTX ISA, "Matrix Fragments for mma.m16n8k8", .tf32 / .f32),
 * lane = threadIdx.x % 32, g = groupID = lane >> 2, t = threadID_in_group = lane & 3:
 *   A (16 x 8, row):  a0 = A[g][t]    a1 = A[g+8][t]    a2 = A[g][t+4]    a3 = A[g+8][t+4]
 *   B (8 x 8, col):   b0 = B[t][g]    b1 = B[t+4][g]                  (B[k][n])
 *   C (16 x 8):       c0 = C[g][2t]   c1 = C[g][2t+1]   c2 = C[g+8][2t]   c3 = C[g+8][2t+1]
 *
 * Fragment loads from shared memory (each lands directly in the registers the
 * HMMA reads, so no register moves are needed around the in-place cvt):
 *   A: one ldmatrix.sync.aligned.m8n8.x4.shared.b16 per 16 x 8 tile. For 32-bit
 *      data an "8 x 8 b16" matrix is 8 rows x 4 floats and lane l receives word
 *      (l >> 2, l & 3) of it, i.e. element (g, t): matrices {rows 0-7, k 0-3},
 *      {rows 8-15, k 0-3}, {rows 0-7, k 4-7}, {rows 8-15, k 4-7} give exactly
 *      a0, a1, a2, a3. Lane l supplies the address of row (l & 7) of matrix l >> 3.
 *   B: scalar LDS of B_s[8s + t][n0 + g] and B_s[8s + t + 4][n0 + g].
 *
 * Shared-memory layout (bank-conflict free):
 *   A_s: 128 rows x 36 floats (32 + 4 pad). An ldmatrix phase reads 8 rows of
 *        16 bytes at one k chunk c: chunk index 9r + c, mod 8 distinct over 8 rows.
 *   B_s: 32 rows x 264 floats (256 + 8 pad). Lane (g, t) reads row 8s + t (+4),
 *        column n0 + 8j + g: bank (8 * row + col) mod 32 = 8t + g (+ const),
 *        32 distinct banks.
 *
 * Constraints (why)
 *   - Any m, n, k >= 1. Edge tiles are zero-filled by cp.async (src-size 0) and
 *     every C store is predicated. m or n == 0: nothing to do; k == 0: C = 0.
 *   - 16-byte cp.async for A needs k % 4 == 0 and A 16-byte aligned (every row
 *     start then is); for B, n % 4 == 0 and B aligned. Otherwise the kernel
 *     instantiation with 4-byte cp.async.ca for that operand is taken: 4 kernels,
 *     (A, B) x (vector, scalar). C is written with float2 stores (c0/c1 are two
 *     adjacent columns; 4 lanes cover a 32-byte sector) when n is even and C is
 *     8-byte aligned, else with scalar predicated stores.
 *   - 208896 B of dynamic shared memory per block (sm_90: up to 227 KB), one
 *     block per SM, <= 255 registers per thread (__launch_bounds__(256, 1)).
 *   - Tolerance: products are TF32 (cvt.rna), accumulation FP32, as cuBLAS TF32:
 *     relative Frobenius error ~3e-4 on uniform [0, 1) inputs.
 *   - The max-dynamic-shared-memory attribute is set once per kernel per
 *     process (on the device current at the first call).
 */
#include <limits.h>
#include <stdint.h>

#include <cuda_runtime.h>

#include "sgemm.h"

// ---- configuration -----------------------------------------------------------

#define SGEMM_TF32_BM 128     /* block tile rows (m) */
#define SGEMM_TF32_BN 256     /* block tile columns (n) */
#define SGEMM_TF32_BK 32      /* k slice per pipeline stage */
#define SGEMM_TF32_WM 64      /* warp tile rows */
#define SGEMM_TF32_WN 64      /* warp tile columns */
#define SGEMM_TF32_THREADS 256
#define SGEMM_TF32_STAGES 4
#define SGEMM_TF32_AS 36      /* A_s row stride in floats: BK + 4 (bank shift) */
#define SGEMM_TF32_BS 264     /* B_s row stride in floats: BN + 8 (bank shift) */
#define SGEMM_TF32_GROUP_M 8  /* block-rows per rasterisation group */

#define SGEMM_TF32_A_STAGE (SGEMM_TF32_BM * SGEMM_TF32_AS)  /* floats */
#define SGEMM_TF32_B_STAGE (SGEMM_TF32_BK * SGEMM_TF32_BS)  /* floats */
#define SGEMM_TF32_STAGE (SGEMM_TF32_A_STAGE + SGEMM_TF32_B_STAGE)
#define SGEMM_TF32_SMEM_BYTES (SGEMM_TF32_STAGES * SGEMM_TF32_STAGE * 4)

static_assert(SGEMM_TF32_THREADS == 32 * (SGEMM_TF32_BM / SGEMM_TF32_WM) *
                                         (SGEMM_TF32_BN / SGEMM_TF32_WN),
              "one warp per warp tile");
static_assert(SGEMM_TF32_WM == 64 && SGEMM_TF32_WN == 64,
              "warp tile is 4 x 8 mma tiles of 16 x 8 (acc[4][8][4])");
static_assert(SGEMM_TF32_BK == 32, "loaders index 8 chunks / 32 floats per A row");
static_assert(SGEMM_TF32_AS % 4 == 0 && (SGEMM_TF32_AS / 4) % 8 == 1,
              "A_s rows 16-byte aligned (ldmatrix, cp.async) and shifted by one bank group");
static_assert(SGEMM_TF32_BS % 4 == 0 && SGEMM_TF32_BS % 32 == 8 && SGEMM_TF32_BS >= SGEMM_TF32_BN,
              "B_s rows 16-byte aligned (cp.async), consecutive rows 8 banks apart");
static_assert((SGEMM_TF32_BM * SGEMM_TF32_BK / 4) % SGEMM_TF32_THREADS == 0 &&
                  (SGEMM_TF32_BK * SGEMM_TF32_BN / 4) % SGEMM_TF32_THREADS == 0,
              "16-byte chunks of a stage split evenly over the threads");
static_assert(SGEMM_TF32_THREADS == SGEMM_TF32_BN && SGEMM_TF32_THREADS % SGEMM_TF32_BK == 0,
              "scalar loaders: one B column per thread, whole A rows per warp");
static_assert(SGEMM_TF32_SMEM_BYTES <= 227 * 1024, "sm_90 dynamic shared memory limit");

// ---- device helpers ----------------------------------------------------------

static __device__ __forceinline__ unsigned sgemm_tf32_smem_u32(const void *p)
{
    return (unsigned)__cvta_generic_to_shared(p);
}

/* 16-byte async copy global -> shared; copies 0 bytes and zero-fills when !valid. */
static __device__ __forceinline__ void sgemm_tf32_cp16(unsigned dst, const void *src, int valid)
{
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n"
                 :: "r"(dst), "l"(src), "r"(valid ? 16 : 0) : "memory");
}

/* 4-byte async copy (the unaligned / odd-size path), zero-fill when !valid. */
static __device__ __forceinline__ void sgemm_tf32_cp4(unsigned dst, const void *src, int valid)
{
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n"
                 :: "r"(dst), "l"(src), "r"(valid ? 4 : 0) : "memory");
}

static __device__ __forceinline__ void sgemm_tf32_commit(void)
{
    asm volatile("cp.async.commit_group;\n" ::: "memory");
}

/* wait until at most STAGES-2 groups of this thread are pending */
static __device__ __forceinline__ void sgemm_tf32_wait_stage(void)
{
    asm volatile("cp.async.wait_group %0;\n" :: "n"(SGEMM_TF32_STAGES - 2) : "memory");
}

/* the four 8 x 4-float matrices whose row addresses lanes 0-7, 8-15, 16-23, 24-31 give */
static __device__ __forceinline__ void sgemm_tf32_ldmatrix_x4(unsigned *d, unsigned addr)
{
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                 : "=r"(d[0]), "=r"(d[1]), "=r"(d[2]), "=r"(d[3]) : "r"(addr) : "memory");
}

static __device__ __forceinline__ unsigned sgemm_tf32_cvt(float x)
{
    unsigned r;
    asm("cvt.rna.tf32.f32 %0, %1;\n" : "=r"(r) : "f"(x));
    return r;
}

/* d += a * b on one 16 x 8 x 8 tile (fragments as in the header comment). */
static __device__ __forceinline__ void sgemm_tf32_mma(float *d, const unsigned *a, const unsigned *b)
{
    asm("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 "
        "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

/* Issue the cp.async copies of one BK slice (k0..k0+31) of the A panel (rows
 * bm0..bm0+127) and B panel (columns bn0..bn0+255) into one stage. Out-of-range
 * elements are zero-filled; their source address is the (valid) base pointer.
 * Vector paths: a_vptr / b_vptr point at this thread's first 16-byte chunk of
 * this slice, a_vstep / b_vstep (floats) from one of its chunks to the next. */
static __device__ __forceinline__ void sgemm_tf32_load_stage(
    float *As, float *Bs, const float *A, const float *B, int m, int n, int k,
    int bm0, int bn0, int k0, int tid, const float *a_vptr, const float *b_vptr,
    size_t a_vstep, size_t b_vstep, const int a_vec, const int b_vec)
{
    if (a_vec) {
        /* 128 rows x 8 chunks; 8 consecutive threads read one 128-byte row piece.
         * Thread: chunk kc = tid & 7 of rows tid / 8 + 32j, j = 0..3. */
        const int kc = tid & 7, row0 = tid >> 3;
        const int gk = k0 + 4 * kc;  /* k % 4 == 0: the chunk is all in or all out */
        const unsigned dst0 = sgemm_tf32_smem_u32(As + row0 * SGEMM_TF32_AS + 4 * kc);
#pragma unroll
        for (int j = 0; j < SGEMM_TF32_BM * SGEMM_TF32_BK / 4 / SGEMM_TF32_THREADS; ++j) {
            const int gm = bm0 + row0 + 32 * j;
            const int valid = gm < m && gk < k;
            const float *src = valid ? a_vptr + j * a_vstep : A;
            sgemm_tf32_cp16(dst0 + 4u * (32 * j * SGEMM_TF32_AS), src, valid);
        }
    } else {
        /* one warp per row (32 floats), 8 rows per pass; not unrolled so the
         * addresses are recomputed instead of held in registers */
#pragma unroll 1
        for (int j = 0; j < SGEMM_TF32_BM * SGEMM_TF32_BK / SGEMM_TF32_THREADS; ++j) {
            int row = (tid >> 5) + j * (SGEMM_TF32_THREADS / SGEMM_TF32_BK), kk = tid & 31;
            int gm = bm0 + row, gk = k0 + kk;
            int valid = gm < m && gk < k;
            const float *src = valid ? A + ((size_t)gm * k + gk) : A;
            sgemm_tf32_cp4(sgemm_tf32_smem_u32(As + row * SGEMM_TF32_AS + kk), src, valid);
        }
    }
    if (b_vec) {
        /* 32 rows x 64 chunks; 64 consecutive threads read one 1 KB row piece.
         * Thread: chunk cc = tid & 63 of rows tid / 64 + 4j, j = 0..7. */
        const int cc = tid & 63, row0 = tid >> 6;
        const int gn = bn0 + 4 * cc;  /* n % 4 == 0: the chunk is all in or all out */
        const unsigned dst0 = sgemm_tf32_smem_u32(Bs + row0 * SGEMM_TF32_BS + 4 * cc);
#pragma unroll
        for (int j = 0; j < SGEMM_TF32_BK * SGEMM_TF32_BN / 4 / SGEMM_TF32_THREADS; ++j) {
            const int gk = k0 + row0 + 4 * j;
            const int valid = gk < k && gn < n;
            const float *src = valid ? b_vptr + j * b_vstep : B;
            sgemm_tf32_cp16(dst0 + 4u * (4 * j * SGEMM_TF32_BS), src, valid);
        }
    } else {
        /* thread = column, one row per pass */
        int col = tid;
        int gn = bn0 + col;
#pragma unroll 1
        for (int row = 0; row < SGEMM_TF32_BK; ++row) {
            int gk = k0 + row;
            int valid = gk < k && gn < n;
            const float *src = valid ? B + ((size_t)gk * n + gn) : B;
            sgemm_tf32_cp4(sgemm_tf32_smem_u32(Bs + row * SGEMM_TF32_BS + col), src, valid);
        }
    }
}

// ---- kernel body ---------------------------------------------------------------

/* a_vec, b_vec are literal constants at every call site, so each __global__
 * wrapper below gets its own specialised copy after inlining. */
static __device__ __forceinline__ void sgemm_tf32_body(
    const float *__restrict__ A, const float *__restrict__ B, float *__restrict__ C,
    int m, int n, int k, int c_vec, const int a_vec, const int b_vec)
{
    extern __shared__ float4 sgemm_tf32_smem4[];
    float *smem = (float *)sgemm_tf32_smem4;

    const int tid = threadIdx.x;
    const int lane = tid & 31, warp = tid >> 5;
    const int g = lane >> 2, t = lane & 3;
    const int wm0 = (warp >> 2) * SGEMM_TF32_WM;  /* 2 warps along m */
    const int wn0 = (warp & 3) * SGEMM_TF32_WN;   /* 4 warps along n */

    /* grouped rasterisation of the 1-D grid */
    const int tiles_m = (m + SGEMM_TF32_BM - 1) / SGEMM_TF32_BM;
    const int tiles_n = (n + SGEMM_TF32_BN - 1) / SGEMM_TF32_BN;
    const int bid = blockIdx.x;
    const int per_group = SGEMM_TF32_GROUP_M * tiles_n;
    const int first_m = (bid / per_group) * SGEMM_TF32_GROUP_M;
    const int group_m = min(tiles_m - first_m, SGEMM_TF32_GROUP_M);
    const int in_group = bid % per_group;
    const int bm0 = (first_m + in_group % group_m) * SGEMM_TF32_BM;
    const int bn0 = (in_group / group_m) * SGEMM_TF32_BN;

    float acc[4][8][4];
#pragma unroll
    for (int i = 0; i < 4; ++i)
#pragma unroll
        for (int j = 0; j < 8; ++j)
#pragma unroll
            for (int r = 0; r < 4; ++r)
                acc[i][j][r] = 0.0f;

    const int ktiles = (k + SGEMM_TF32_BK - 1) / SGEMM_TF32_BK;

    /* vector loaders: first chunk of this thread in the next slice to load: A at
     * (row bm0 + tid/8, k 4 (tid%8)), then every 32 rows; B at (row tid/64,
     * column bn0 + 4 (tid%64)), then every 4 rows. Advanced by one slice per load;
     * only dereferenced where the row and column are in range. */
    const float *a_vptr = A + ((size_t)(bm0 + (tid >> 3)) * k + 4 * (tid & 7));
    const float *b_vptr = B + ((size_t)(tid >> 6) * n + bn0 + 4 * (tid & 63));
    const size_t a_vstep = (size_t)32 * k, b_vstep = (size_t)4 * n;
    const size_t b_slice = (size_t)SGEMM_TF32_BK * n;

    /* prologue: slices 0..STAGES-2; one commit per slot even when empty so the
     * group count (and wait_group's arithmetic) is the same for every thread */
#pragma unroll
    for (int s = 0; s < SGEMM_TF32_STAGES - 1; ++s) {
        if (s < ktiles) {
            sgemm_tf32_load_stage(smem + s * SGEMM_TF32_STAGE,
                                  smem + s * SGEMM_TF32_STAGE + SGEMM_TF32_A_STAGE,
                                  A, B, m, n, k, bm0, bn0, s * SGEMM_TF32_BK, tid, a_vptr, b_vptr,
                                  a_vstep, b_vstep, a_vec, b_vec);
            a_vptr += SGEMM_TF32_BK;
            b_vptr += b_slice;
        }
        sgemm_tf32_commit();
    }

    /* per-thread fragment offsets inside a stage: ldmatrix row address (bytes,
     * + 16 mt rows, + 8 s floats) and B element (floats, + 8 s rows, + 8 j) */
    const unsigned smem_u32 = sgemm_tf32_smem_u32(smem);
    const unsigned a_ld = 4u * (unsigned)((wm0 + (lane & 7) + 8 * ((lane >> 3) & 1)) * SGEMM_TF32_AS +
                                          4 * (lane >> 4));
    const int b_off = SGEMM_TF32_A_STAGE + t * SGEMM_TF32_BS + wn0 + g;

    int stage = 0;                           /* stage holding slice kt */
    int load_stage = SGEMM_TF32_STAGES - 1;  /* stage receiving slice kt + STAGES-1 */
    for (int kt = 0; kt < ktiles; ++kt) {
        sgemm_tf32_wait_stage();  /* this thread's copies of slice kt have landed */
        __syncthreads();          /* everyone's have; everyone is done with slice kt-1 */

        /* refill the stage that held slice kt-1 */
        {
            int next = kt + SGEMM_TF32_STAGES - 1;
            if (next < ktiles) {
                sgemm_tf32_load_stage(smem + load_stage * SGEMM_TF32_STAGE,
                                      smem + load_stage * SGEMM_TF32_STAGE + SGEMM_TF32_A_STAGE,
                                      A, B, m, n, k, bm0, bn0, next * SGEMM_TF32_BK, tid,
                                      a_vptr, b_vptr, a_vstep, b_vstep, a_vec, b_vec);
                a_vptr += SGEMM_TF32_BK;
                b_vptr += b_slice;
            }
            sgemm_tf32_commit();
            load_stage = (load_stage + 1 == SGEMM_TF32_STAGES) ? 0 : load_stage + 1;
        }

        const float *st = smem + stage * SGEMM_TF32_STAGE;
        const unsigned st_a = smem_u32 + 4u * (unsigned)(stage * SGEMM_TF32_STAGE) + a_ld;
#pragma unroll
        for (int s = 0; s < SGEMM_TF32_BK / 8; ++s) {
            unsigned a[4][4];
#pragma unroll
            for (int mt = 0; mt < 4; ++mt) {
                sgemm_tf32_ldmatrix_x4(a[mt], st_a + 4u * (16 * mt * SGEMM_TF32_AS + 8 * s));
#pragma unroll
                for (int r = 0; r < 4; ++r)
                    a[mt][r] = sgemm_tf32_cvt(__uint_as_float(a[mt][r]));
            }
            unsigned b[8][2];
#pragma unroll
            for (int j = 0; j < 8; ++j) {
                b[j][0] = sgemm_tf32_cvt(st[b_off + (8 * s) * SGEMM_TF32_BS + 8 * j]);      /* B[t][g]   */
                b[j][1] = sgemm_tf32_cvt(st[b_off + (8 * s + 4) * SGEMM_TF32_BS + 8 * j]);  /* B[t+4][g] */
            }
#pragma unroll
            for (int mt = 0; mt < 4; ++mt)
#pragma unroll
                for (int j = 0; j < 8; ++j)
                    sgemm_tf32_mma(acc[mt][j], a[mt], b[j]);
        }
        stage = (stage + 1 == SGEMM_TF32_STAGES) ? 0 : stage + 1;
    }

    /* epilogue: tile (mt, j), element c[2hr + e] is C row
     * bm0 + wm0 + 16mt + g + 8hr, column bn0 + wn0 + 8j + 2t + e */
#pragma unroll
    for (int mt = 0; mt < 4; ++mt) {
#pragma unroll
        for (int hr = 0; hr < 2; ++hr) {
            const int row = bm0 + wm0 + 16 * mt + g + 8 * hr;
            if (row >= m)
                continue;
            float *crow = C + (size_t)row * n;
#pragma unroll
            for (int j = 0; j < 8; ++j) {
                const int col = bn0 + wn0 + 8 * j + 2 * t;
                const float v0 = acc[mt][j][2 * hr];
                const float v1 = acc[mt][j][2 * hr + 1];
                if (c_vec) {
                    /* n even and col even: both columns in or both out */
                    if (col < n)
                        *(float2 *)(crow + col) = make_float2(v0, v1);
                } else {
                    if (col < n) crow[col] = v0;
                    if (col + 1 < n) crow[col + 1] = v1;
                }
            }
        }
    }
}

// ---- kernels -------------------------------------------------------------------

#define SGEMM_TF32_KERNEL(NAME, AVEC, BVEC)                                                  \
    static __global__ void __launch_bounds__(SGEMM_TF32_THREADS, 1)                          \
    NAME(const float *__restrict__ A, const float *__restrict__ B, float *__restrict__ C,     \
         int m, int n, int k, int c_vec)                                                     \
    {                                                                                        \
        sgemm_tf32_body(A, B, C, m, n, k, c_vec, AVEC, BVEC);                                \
    }

SGEMM_TF32_KERNEL(sgemm_tf32_mma_kernel_ss, 0, 0)
SGEMM_TF32_KERNEL(sgemm_tf32_mma_kernel_sv, 0, 1)
SGEMM_TF32_KERNEL(sgemm_tf32_mma_kernel_vs, 1, 0)
SGEMM_TF32_KERNEL(sgemm_tf32_mma_kernel_vv, 1, 1)

// ---- launcher ------------------------------------------------------------------

typedef void (*sgemm_tf32_kernel_fn)(const float *, const float *, float *, int, int, int, int);

static int sgemm_tf32_aligned16(const void *p)
{
    return ((uintptr_t)p & 15u) == 0;
}

extern "C" int sgemm_tf32_mma(const float *A, const float *B, float *C,
                              int m, int n, int k, cudaStream_t stream)
{
    /* index a_vec * 2 + b_vec */
    static const sgemm_tf32_kernel_fn kernels[4] = {
        sgemm_tf32_mma_kernel_ss, sgemm_tf32_mma_kernel_sv,
        sgemm_tf32_mma_kernel_vs, sgemm_tf32_mma_kernel_vv};
    static int smem_attr_set[4];  /* cudaFuncSetAttribute done for kernels[i] */

    if (m < 0 || n < 0 || k < 0)
        return (int)cudaErrorInvalidValue;
    if (m == 0 || n == 0)
        return 0;

    const int a_vec = (k % 4 == 0) && sgemm_tf32_aligned16(A);
    const int b_vec = (n % 4 == 0) && sgemm_tf32_aligned16(B);
    const int c_vec = (n % 2 == 0) && ((uintptr_t)C & 7u) == 0;
    const int which = a_vec * 2 + b_vec;

    if (!smem_attr_set[which]) {
        cudaError_t err = cudaFuncSetAttribute((const void *)kernels[which],
                                               cudaFuncAttributeMaxDynamicSharedMemorySize,
                                               SGEMM_TF32_SMEM_BYTES);
        if (err != cudaSuccess)
            return (int)err;
        smem_attr_set[which] = 1;
    }

    const long long tiles = (long long)((m + SGEMM_TF32_BM - 1) / SGEMM_TF32_BM) *
                            ((n + SGEMM_TF32_BN - 1) / SGEMM_TF32_BN);
    if (tiles > INT_MAX)
        return (int)cudaErrorInvalidValue;

    kernels[which]<<<(unsigned)tiles, SGEMM_TF32_THREADS, SGEMM_TF32_SMEM_BYTES, stream>>>(
        A, B, C, m, n, k, c_vec);
    return (int)cudaGetLastError();
}
