/* kernels/sgemm_tf32.cuh: TF32 tensor-core SGEMM with warp-level mma.sync,
 * as a template over its tile shape, and the table of shape candidates.
 *
 * Included by kernels/sgemm_tf32.cu (the variant tf32_mma: instantiates only
 * the two candidates it picks, by name) and kernels/search/
 * sgemm_tf32_search.cu (every row of SGEMM_TF32_CANDIDATES, for
 * compare-search only). Names like tf32_128x128x32_s3_w64x32_trunc
 * (BMxBNxBK, stages, warp tile WMxWN, operand rounding). The step after this
 * one is sgemm_tf32_wgmma.cuh / sgemm_tf32_tma.cuh (warpgroup MMA): mma.sync
 * issued by every warp stays well below cuBLAS TF32.
 *
 * Idea
 *   C = A * B with FP32 in and out and TF32 products (10-bit mantissa, FP32
 *   accumulate), as cuBLAS with CUBLAS_TF32_TENSOR_OP_MATH, on
 *   mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32.
 *
 *   - One kernel body (sgemm_tf32_body), called by the __global__ template
 *     sgemm_tf32_kernel with its template parameters, so each instantiation
 *     is fully specialised after inlining. Candidate = block tile BM x BN, BK = 32, warp
 *     tile WM x WN (multiples of 16, at most 64), STAGES-deep cp.async ring,
 *     and the operand rounding:
 *       _rna   operands rounded with cvt.rna.tf32.f32 (round to nearest, ties
 *              away) after each fragment load: 2-3 ALU ops per register
 *              (FSETP, IADD, LOP3 in SASS).
 *       _trunc the raw FP32 bits go to the .tf32 mma; the tensor core ignores
 *              the low 13 mantissa bits, i.e. truncates toward zero. NaN and
 *              Inf stay NaN and Inf (exponent and top mantissa bits are kept).
 *              Error per input up to 2^-10 instead of 2^-11 relative, and
 *              biased: on uniform [0, 1) inputs (all positive) the relative
 *              error is ~7e-4 instead of ~2.6e-4, inside the TF32 tolerance
 *              (6 * 2^-11 + 8 * 2^-24 sqrt(k) ~ 3e-3). No ALU work at all
 *              between the fragment loads and the mma.
 *   - Operand roles swapped: each mma computes a 16 (n) x 8 (m) tile of C^T =
 *     B^T A^T. Its "A" operand (16 x 8, row) is B^T, read from B_s; its "B"
 *     operand (8 x 8, col) is A^T, read from A_s. Why: the mma wants each
 *     operand in consecutive registers (a quad for A, a pair for B), and
 *     this way both come straight out of one load with no register moves:
 *       B_s side: inside a 16-column n tile, physical column 2c + h is tile
 *       row c + 8h (a permutation the mma does not see, undone when C is
 *       stored). Lane (g, t) needs B^T[g][t], B^T[g+8][t], B^T[g][t+4],
 *       B^T[g+8][t+4] = B_s[t][2g], B_s[t][2g+1], B_s[t+4][2g], B_s[t+4][2g+1]:
 *       two 8-byte LDS per 16 n columns per k step (the previous version
 *       needed four 4-byte LDS; 16-byte LDS along n cannot feed the pairs
 *       without a MOV per register, measured in SASS: 156 MOVs per slice).
 *       A_s side: lane (g, t) needs A[g][t], A[g][t+4] per 8-row m tile; one
 *       ldmatrix.x4 gives them for two m tiles, in register pairs.
 *     Accumulator d0..d3 of (n tile i, m tile j) is C[2t][2g], C[2t+1][2g],
 *     C[2t][2g+1], C[2t+1][2g+1] of the tile: written as float2 pairs.
 *   - Register budget: each k step loads the next step's operands while its
 *     mma run; the smaller operand set is loaded whole first, the other is
 *     reloaded in place right after its last mma of the step. 128-register
 *     candidates (2 blocks of 256 threads per SM) fit with 0 spills only
 *     because the loaders recompute their addresses (loops not unrolled) and
 *     the epilogue recomputes its indices (sgemm_tf32_tid).
 *   - The barrier of slice kt + 1 sits before the last k step of slice kt:
 *     the operands of the next slice's first step are loaded right after it
 *     and overlap the last step's mma, so no warp waits on shared-memory
 *     latency after a barrier. One __syncthreads per slice.
 *   - Grouped rasterisation: consecutive blocks walk 8 block-rows of C before
 *     moving right, so the A and B panels of a wave are shared in L2.
 *   - Per slice and warp (64 x 64 warp tile, trunc) the loop body is the
 *     HMMA.1688 themselves, their LDS.64 and LDSM, and a few address updates
 *     (sm_90 SASS): a third of an earlier version that loaded B fragments
 *     with 4-byte LDS and rounded every operand.
 *
 * Fragment layouts (PTX ISA, "Matrix Fragments for mma.m16n8k8", .tf32 / .f32),
 * lane = threadIdx.x % 32, g = groupID = lane >> 2, t = threadID_in_group = lane & 3:
 *   A (16 x 8, row):  a0 = A[g][t]    a1 = A[g+8][t]    a2 = A[g][t+4]    a3 = A[g+8][t+4]
 *   B (8 x 8, col):   b0 = B[t][g]    b1 = B[t+4][g]                  (B[k][n])
 *   C (16 x 8):       c0 = C[g][2t]   c1 = C[g][2t+1]   c2 = C[g+8][2t]   c3 = C[g+8][2t+1]
 *   (here A, B, C are the mma's operands: B^T, A^T, C^T of the GEMM.)
 *   ldmatrix.sync.aligned.m8n8.x4.shared.b16 on 32-bit data: an "8 x 8 b16"
 *   matrix is 8 rows x 4 floats and lane l receives word (l >> 2, l & 3) of
 *   it, element (g, t). Matrices {m rows 0-7, k 0-3}, {rows 0-7, k 4-7},
 *   {rows 8-15, k 0-3}, {rows 8-15, k 4-7} give A[g][t], A[g][t+4] of m tile
 *   0 and the same of m tile 1. Lane l supplies the address of row (l & 7)
 *   of matrix l >> 3.
 *
 * Shared-memory layout (bank-conflict free):
 *   A_s: BM rows x 36 floats (32 + 4 pad). An ldmatrix phase reads 8 rows of
 *        16 bytes at one k chunk c: chunk index 9r + c, mod 8 distinct.
 *   B_s: 32 rows x (BN + 8) floats, row stride = 8 banks (mod 32). A half
 *        warp of an LDS.64 (t = 0..3, 4 consecutive g) reads banks
 *        8t + 2g + {0, 1} (+ const): 32 distinct banks.
 *
 * Constraints (why)
 *   - Any m, n, k >= 1. Edge tiles are zero-filled by cp.async (src-size 0) and
 *     every C store is predicated. m or n == 0: nothing to do; k == 0: C = 0.
 *   - 16-byte cp.async for A needs k % 4 == 0 and A 16-byte aligned (every row
 *     start then is); for B, n % 4 == 0 and B aligned. Otherwise the kernel
 *     instantiation with 4-byte cp.async.ca for that operand is taken: 4
 *     kernels per candidate, (A, B) x (vector, scalar). C is written with
 *     float2 stores when n is even and C is 8-byte aligned, else with scalar
 *     predicated stores.
 *   - Tile constraints are static_asserts in sgemm_tf32_run (loader shapes,
 *     warp tiles, the sm_90 shared-memory limits of kernels/common/smem.cuh
 *     for the blocks per SM the candidate asks for in __launch_bounds__).
 *   - The max-dynamic-shared-memory attribute is set once per kernel per
 *     process (on the device current at the first call).
 */
#ifndef KERNELS_SGEMM_TF32_CUH
#define KERNELS_SGEMM_TF32_CUH

#include <limits.h>
#include <stdint.h>

#include <cuda_runtime.h>

#include "candidate_name.cuh"
#include "cp_async.cuh"
#include "smem.cuh"
#include "tile_order.cuh"

// ---- fixed parameters ----------------------------------------------------------

#define SGEMM_TF32_BK 32       /* k slice per pipeline stage: 4 mma k steps */
#define SGEMM_TF32_AS 36       /* A_s row stride in floats: BK + 4 (bank shift) */
#define SGEMM_TF32_GROUP_M 8   /* block-rows per rasterisation group */

/* derived sizes of a candidate (all in floats unless _BYTES) */
#define SGEMM_TF32_THREADS_OF(BM, BN, WM, WN) (32 * ((BM) / (WM)) * ((BN) / (WN)))
#define SGEMM_TF32_BS_OF(BN) ((BN) + 8)
#define SGEMM_TF32_STAGE_OF(BM, BN) ((BM) * SGEMM_TF32_AS + SGEMM_TF32_BK * SGEMM_TF32_BS_OF(BN))
#define SGEMM_TF32_SMEM_BYTES_OF(BM, BN, ST) ((ST) * SGEMM_TF32_STAGE_OF(BM, BN) * 4)

static_assert(SGEMM_TF32_BK == 32, "loaders index 8 chunks / 32 floats per A row");
static_assert(SGEMM_TF32_AS % 4 == 0 && (SGEMM_TF32_AS / 4) % 8 == 1,
              "A_s rows 16-byte aligned (ldmatrix, cp.async) and shifted by one bank group");

// ---- device helpers ----------------------------------------------------------

/* %tid.x and %ctaid.x read with volatile asm: not merged with earlier reads, so
 * the epilogue recomputes its indices instead of holding them in registers
 * through the main loop (the 128-register candidates need those registers). */
static __device__ __forceinline__ int sgemm_tf32_tid(void)
{
    unsigned r;
    asm volatile("mov.u32 %0, %%tid.x;\n" : "=r"(r));
    return (int)r;
}

static __device__ __forceinline__ int sgemm_tf32_ctaid(void)
{
    unsigned r;
    asm volatile("mov.u32 %0, %%ctaid.x;\n" : "=r"(r));
    return (int)r;
}


/* the four 8 x 4-float matrices whose row addresses lanes 0-7, 8-15, 16-23, 24-31 give */
static __device__ __forceinline__ void sgemm_tf32_ldmatrix_x4(unsigned *d, unsigned addr)
{
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                 : "=r"(d[0]), "=r"(d[1]), "=r"(d[2]), "=r"(d[3]) : "r"(addr) : "memory");
}

/* operand bits for the mma: rounded to TF32 (rna) or the raw FP32 bits (trunc) */
static __device__ __forceinline__ unsigned sgemm_tf32_operand(unsigned x, const int rna)
{
    if (!rna)
        return x;
    unsigned r;
    asm("cvt.rna.tf32.f32 %0, %1;\n" : "=r"(r) : "f"(__uint_as_float(x)));
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

/* mma A operand of n tile i of one k step, from B_s (see "Operand roles"):
 * q = B_s[t][2g], B_s[t][2g+1], B_s[t+4][2g], B_s[t+4][2g+1] of the tile, two
 * 8-byte LDS; b_ptr points at this lane's B_s[t][2g] of n tile 0. */
static __device__ __forceinline__ void sgemm_tf32_frag_q(unsigned *q, const float *b_ptr, int i,
                                                         const int BS, const int rna)
{
    const float2 lo = *(const float2 *)(b_ptr + 16 * i);
    const float2 hi = *(const float2 *)(b_ptr + 4 * BS + 16 * i);
    q[0] = sgemm_tf32_operand(__float_as_uint(lo.x), rna);
    q[1] = sgemm_tf32_operand(__float_as_uint(lo.y), rna);
    q[2] = sgemm_tf32_operand(__float_as_uint(hi.x), rna);
    q[3] = sgemm_tf32_operand(__float_as_uint(hi.y), rna);
}

/* mma B operands of m tiles 2jj and 2jj+1 of one k step, from A_s by one
 * ldmatrix.x4: p[0..1] = tile 2jj, p[2..3] = tile 2jj+1; a_addr is this
 * lane's row address for jj = 0 (bytes). */
static __device__ __forceinline__ void sgemm_tf32_frag_p(unsigned *p, unsigned a_addr, int jj,
                                                         const int rna)
{
    sgemm_tf32_ldmatrix_x4(p, a_addr + 4u * (16 * jj * SGEMM_TF32_AS));
#pragma unroll
    for (int r = 0; r < 4; ++r)
        p[r] = sgemm_tf32_operand(p[r], rna);
}

/* Issue the cp.async copies of one BK slice (k0..k0+31) of the A panel (rows
 * bm0..bm0+BM-1) and B panel (columns bn0..bn0+BN-1) into one stage. Out-of-
 * range elements are zero-filled; their source address is the (valid) base
 * pointer. Vector paths: a thread's 16-byte chunks are T/8 rows (A) and
 * T/(BN/4) rows (B) apart; the loops are not unrolled so the addresses are
 * recomputed instead of held in registers. */
static __device__ __forceinline__ void sgemm_tf32_load_stage(
    float *As, float *Bs, const float *A, const float *B, int m, int n, int k,
    int bm0, int bn0, int k0, int tid, const int BM, const int BN, const int T, const int a_vec, const int b_vec)
{
    const int BS = SGEMM_TF32_BS_OF(BN);
    if (a_vec) {
        /* BM rows x 8 chunks; 8 consecutive threads read one 128-byte row piece.
         * Thread: chunk kc = tid & 7 of rows tid / 8 + (T/8) j. */
        const int kc = tid & 7, row0 = tid >> 3, rpp = T / 8;
        const int gk = k0 + 4 * kc;  /* k % 4 == 0: the chunk is all in or all out */
        const unsigned dst0 = smem_u32(As + row0 * SGEMM_TF32_AS + 4 * kc);
#pragma unroll 1
        for (int j = 0; j < BM / rpp; ++j) {
            const int gm = bm0 + row0 + rpp * j;
            const int valid = gm < m && gk < k;
            const float *src = valid ? A + ((size_t)gm * k + gk) : A;
            cp_async16_to(dst0 + 4u * (rpp * j * SGEMM_TF32_AS), src, valid ? 16 : 0);
        }
    } else {
        /* one warp per row (32 floats), T/32 rows per pass; not unrolled so the
         * addresses are recomputed instead of held in registers */
#pragma unroll 1
        for (int j = 0; j < BM / (T / 32); ++j) {
            int row = (tid >> 5) + j * (T / 32), kk = tid & 31;
            int gm = bm0 + row, gk = k0 + kk;
            int valid = gm < m && gk < k;
            const float *src = valid ? A + ((size_t)gm * k + gk) : A;
            cp_async4_to(smem_u32(As + row * SGEMM_TF32_AS + kk), src, valid ? 4 : 0);
        }
    }
    if (b_vec) {
        /* 32 rows x BN/4 chunks; BN/4 consecutive threads read one row piece.
         * Thread: chunk cc = tid % (BN/4) of rows tid / (BN/4) + rpp j. */
        const int cpr = BN / 4, rpp = T / (BN / 4);
        const int cc = tid % cpr, row0 = tid / cpr;
        const int gn = bn0 + 4 * cc;  /* n % 4 == 0: the chunk is all in or all out */
        const unsigned dst0 = smem_u32(Bs + row0 * BS + 4 * cc);
#pragma unroll 1
        for (int j = 0; j < SGEMM_TF32_BK / rpp; ++j) {
            const int gk = k0 + row0 + rpp * j;
            const int valid = gk < k && gn < n;
            const float *src = valid ? B + ((size_t)gk * n + gn) : B;
            cp_async16_to(dst0 + 4u * (rpp * j * BS), src, valid ? 16 : 0);
        }
    } else {
        /* thread = column tid % BN, rows tid / BN + (T/BN) j */
        const int col = tid % BN, row0 = tid / BN, rpp = T / BN;
        const int gn = bn0 + col;
#pragma unroll 1
        for (int row = row0; row < SGEMM_TF32_BK; row += rpp) {
            int gk = k0 + row;
            int valid = gk < k && gn < n;
            const float *src = valid ? B + ((size_t)gk * n + gn) : B;
            cp_async4_to(smem_u32(Bs + row * BS + col), src, valid ? 4 : 0);
        }
    }
}

// ---- kernel body ---------------------------------------------------------------

/* Every argument after c_vec is a literal constant at each call site, so each
 * __global__ wrapper gets its own specialised copy after inlining. Arrays are
 * declared at the largest warp tile (64 x 64) and used up to NI x MJ (mma
 * tiles of 16 n x 8 m: C^T, see "Operand roles swapped"). */
static __device__ __forceinline__ void sgemm_tf32_body(
    const float *__restrict__ A, const float *__restrict__ B, float *__restrict__ C,
    int m, int n, int k, int c_vec,
    const int BM, const int BN, const int WM, const int WN, const int STAGES, const int rna,
    const int a_vec, const int b_vec)
{
    extern __shared__ float4 sgemm_tf32_smem4[];
    float *smem = (float *)sgemm_tf32_smem4;

    const int T = SGEMM_TF32_THREADS_OF(BM, BN, WM, WN);
    const int NI = WN / 16, MJ = WM / 8;  /* mma tiles per warp: 16 n x 8 m each */
    const int BS = SGEMM_TF32_BS_OF(BN);
    const int A_STAGE = BM * SGEMM_TF32_AS;
    const int STAGE = SGEMM_TF32_STAGE_OF(BM, BN);
    const int KSTEPS = SGEMM_TF32_BK / 8;

    const int tid = sgemm_tf32_tid();
    const int lane = tid & 31, warp = tid >> 5;
    const int g = lane >> 2, t = lane & 3;
    const int wm0 = (warp / (BN / WN)) * WM;
    const int wn0 = (warp % (BN / WN)) * WN;
    int bm0, bn0;
    tile_order_origin(sgemm_tf32_ctaid(), m, n, BM, BN, SGEMM_TF32_GROUP_M, &bm0, &bn0);

    float acc[4][8][4];  /* [n tile i][m tile j][d0..d3] */
#pragma unroll
    for (int i = 0; i < NI; ++i)
#pragma unroll
        for (int j = 0; j < MJ; ++j)
#pragma unroll
            for (int r = 0; r < 4; ++r)
                acc[i][j][r] = 0.0f;

    const int ktiles = (k + SGEMM_TF32_BK - 1) / SGEMM_TF32_BK;

    /* prologue: slices 0..STAGES-2; one commit per slot even when empty so the
     * group count (and wait_group's arithmetic) is the same for every thread:
     * group i always holds slice i */
#pragma unroll
    for (int s = 0; s < STAGES - 1; ++s) {
        if (s < ktiles) {
            sgemm_tf32_load_stage(smem + s * STAGE, smem + s * STAGE + A_STAGE, A, B, m, n, k,
                                  bm0, bn0, s * SGEMM_TF32_BK, tid, BM, BN, T, a_vec, b_vec);
        }
        cp_async_commit();
    }

    /* per-thread fragment offsets inside a stage: ldmatrix row address (bytes;
     * + 16 jj rows, + 8 s floats) and B_s float2 (floats; + 8 s rows, + 16 i) */
    const unsigned smem_base = smem_u32(smem);
    const unsigned a_ld = 4u * (unsigned)((wm0 + (lane & 7) + 8 * (lane >> 4)) * SGEMM_TF32_AS +
                                          4 * ((lane >> 3) & 1));
    const int b_off = A_STAGE + t * BS + wn0 + 2 * g;

    /* fq[i] (n tile i), fp[j] (m tile j): the operands of the k step being
     * multiplied. Each step loads the next step's operands while multiplying:
     * the smaller set (gq or gp) is loaded in full first, the other is
     * reloaded in place as soon as its last mma of this step has been issued,
     * so one step's worth plus the smaller set are live at once. */
    const int DBQ = (NI * 4 <= MJ * 2);  /* double-buffer the quads (else the pairs) */
    unsigned fq[4][4], fp[8][2];
    if (ktiles > 0) {
        cp_async_wait(STAGES - 2);  /* group 0 = slice 0 has landed (this thread) */
        __syncthreads();              /* for every thread */
#pragma unroll
        for (int i = 0; i < NI; ++i)
            sgemm_tf32_frag_q(fq[i], smem + b_off, i, BS, rna);
#pragma unroll
        for (int jj = 0; jj < MJ / 2; ++jj)
            sgemm_tf32_frag_p(&fp[2 * jj][0], smem_base + a_ld, jj, rna);
    }

    int stage = 0;                /* stage holding slice kt */
    int load_stage = STAGES - 1;  /* stage receiving slice kt + STAGES-1 (held slice kt-1) */
    for (int kt = 0; kt < ktiles; ++kt) {
        /* refill the stage of slice kt-1: every warp loaded its last fragments
         * of it before the barrier in iteration kt-1 (or it is still unused) */
        {
            const int next = kt + STAGES - 1;
            if (next < ktiles) {
                sgemm_tf32_load_stage(smem + load_stage * STAGE, smem + load_stage * STAGE + A_STAGE,
                                      A, B, m, n, k, bm0, bn0, next * SGEMM_TF32_BK, tid,
                                      BM, BN, T, a_vec, b_vec);
            }
            cp_async_commit();
            load_stage = (load_stage + 1 == STAGES) ? 0 : load_stage + 1;
        }

        const int nstage = (stage + 1 == STAGES) ? 0 : stage + 1;
#pragma unroll
        for (int s = 0; s < KSTEPS; ++s) {
            /* the next step: s+1 of this slice, or step 0 of slice kt+1 once it
             * has landed (groups 0..kt+STAGES-1 are committed; group kt+1 is
             * complete when at most STAGES-2 are pending). In the last
             * iteration the barrier is still taken (uniform) and the loads
             * read a stale stage into operands that are never used. */
            const int last = (s + 1 == KSTEPS);
            const int fst = last ? nstage : stage;
            const int fk = last ? 0 : s + 1;
            if (last) {
                cp_async_wait(STAGES - 2);
                __syncthreads();
            }
            const unsigned a_next = smem_base + 4u * (unsigned)(fst * STAGE + 8 * fk) + a_ld;
            const float *b_next = smem + fst * STAGE + b_off + 8 * fk * BS;
            if (DBQ) {
                unsigned gq[4][4];
#pragma unroll
                for (int i = 0; i < NI; ++i)
                    sgemm_tf32_frag_q(gq[i], b_next, i, BS, rna);
#pragma unroll
                for (int jj = 0; jj < MJ / 2; ++jj) {
#pragma unroll
                    for (int j = 2 * jj; j < 2 * jj + 2; ++j)
#pragma unroll
                        for (int i = 0; i < NI; ++i)
                            sgemm_tf32_mma(acc[i][j], fq[i], fp[j]);
                    sgemm_tf32_frag_p(&fp[2 * jj][0], a_next, jj, rna);
                }
#pragma unroll
                for (int i = 0; i < NI; ++i)
#pragma unroll
                    for (int r = 0; r < 4; ++r)
                        fq[i][r] = gq[i][r];
            } else {
                unsigned gp[8][2];
#pragma unroll
                for (int jj = 0; jj < MJ / 2; ++jj)
                    sgemm_tf32_frag_p(&gp[2 * jj][0], a_next, jj, rna);
#pragma unroll
                for (int i = 0; i < NI; ++i) {
#pragma unroll
                    for (int j = 0; j < MJ; ++j)
                        sgemm_tf32_mma(acc[i][j], fq[i], fp[j]);
                    sgemm_tf32_frag_q(fq[i], b_next, i, BS, rna);
                }
#pragma unroll
                for (int j = 0; j < MJ; ++j) {
                    fp[j][0] = gp[j][0];
                    fp[j][1] = gp[j][1];
                }
            }
        }
        stage = nstage;
    }

    /* epilogue: acc[i][j] is the C^T tile of n tile i, m tile j: element
     * d[2h + e] is C row r0 + 8j + e, column c0 + 16i + h, where r0 = bm0 +
     * wm0 + 2t and c0 = bn0 + wn0 + 2g are recomputed here (see sgemm_tf32_tid) */
    int r0, c0;
    {
        const int tid2 = sgemm_tf32_tid();
        const int lane2 = tid2 & 31, warp2 = tid2 >> 5;
        int bm2, bn2;
        tile_order_origin(sgemm_tf32_ctaid(), m, n, BM, BN, SGEMM_TF32_GROUP_M, &bm2, &bn2);
        r0 = bm2 + (warp2 / (BN / WN)) * WM + 2 * (lane2 & 3);
        c0 = bn2 + (warp2 % (BN / WN)) * WN + 2 * (lane2 >> 2);
    }
#pragma unroll
    for (int j = 0; j < MJ; ++j) {
#pragma unroll
        for (int e = 0; e < 2; ++e) {
            const int row = r0 + 8 * j + e;
            if (row >= m)
                continue;
            float *crow = C + (size_t)row * n;
#pragma unroll
            for (int i = 0; i < NI; ++i) {
                const int col = c0 + 16 * i;
                const float v0 = acc[i][j][e], v1 = acc[i][j][2 + e];
                if (c_vec) {
                    /* n even and col even: both columns in or both out */
                    if (col < n)
                        *(float2 *)(crow + col) = make_float2(v0, v1);
                } else {
                    if (col < n)
                        crow[col] = v0;
                    if (col + 1 < n)
                        crow[col + 1] = v1;
                }
            }
        }
    }
}

// ---- candidates ----------------------------------------------------------------

/* X(NAME, BM, BN, WM, WN, ST, ROUND, MINB): block tile BM x BN (BK = 32),
 * warp tile WM x WN, ST stages, operand rounding ROUND (rna or trunc, see
 * "Idea"), MINB blocks per SM asked of ptxas (__launch_bounds__) and checked
 * against shared memory. NAME = tf32_BMxBNx32_sST_wWMxWN_ROUND, checked at
 * compile time; picks (sgemm_tf32.cu's SGEMM_TF32_SMALL / _DEFAULT / _NARROW) name a row.
 * The 64x128 row fits the 99 KiB a block may have on cc 8.6/8.9: the
 * sm_86/89 and generic policies' pick. */
#define SGEMM_TF32_CANDIDATES(X)                                                                  \
    X(tf32_128x256x32_s4_w64x64_rna, 128, 256, 64, 64, 4, rna, 1)     /* 256 thr, 208896 B */   \
    X(tf32_128x256x32_s4_w64x64_trunc, 128, 256, 64, 64, 4, trunc, 1) /* 256 thr, 208896 B */   \
    X(tf32_128x128x32_s3_w64x32_rna, 128, 128, 64, 32, 3, rna, 2)     /* 256 thr, 107520 B */   \
    X(tf32_128x128x32_s3_w64x32_trunc, 128, 128, 64, 32, 3, trunc, 2) /* 256 thr, 107520 B */   \
    X(tf32_128x128x32_s3_w32x64_trunc, 128, 128, 32, 64, 3, trunc, 2) /* 256 thr, 107520 B */   \
    X(tf32_128x128x32_s3_w64x64_trunc, 128, 128, 64, 64, 3, trunc, 2) /* 128 thr, 107520 B */   \
    X(tf32_256x128x32_s4_w64x64_trunc, 256, 128, 64, 64, 4, trunc, 1) /* 256 thr, 217088 B */   \
    X(tf32_64x128x32_s3_w32x64_trunc, 64, 128, 32, 64, 3, trunc, 2)   /* 128 thr, 79872 B */

#define SGEMM_TF32_ROUND_rna 1
#define SGEMM_TF32_ROUND_trunc 0

/* A candidate's parameters (template arguments of sgemm_tf32_run). */
typedef struct {
    int bm, bn, wm, wn, st, rna, minb; /* as in SGEMM_TF32_CANDIDATES */
    const char *name;                  /* the row's NAME (a static string) */
} sgemm_tf32_cfg;

#define SGEMM_TF32_CFG_ROW(NAME, BM, BN, WM, WN, ST, ROUND, MINB)                                  \
    static constexpr sgemm_tf32_cfg sgemm_tf32_cfg_##NAME = {BM, BN, WM, WN, ST,                   \
                                                             SGEMM_TF32_ROUND_##ROUND, MINB, #NAME}; \
    static_assert(candidate_name_is(#NAME, "tf32_" #BM "x" #BN "x32_s" #ST "_w" #WM "x" #WN "_",   \
                                    #ROUND),                                                       \
                  "the candidate's name says its parameters");
SGEMM_TF32_CANDIDATES(SGEMM_TF32_CFG_ROW)

/* The row named NAME (expanded first); an unknown name does not compile. */
#define SGEMM_TF32_CFG(NAME) SGEMM_TF32_CFG_(NAME)
#define SGEMM_TF32_CFG_(NAME) sgemm_tf32_cfg_##NAME
#define SGEMM_TF32_ARGS(c) c.bm, c.bn, c.wm, c.wn, c.st, c.rna, c.minb

/* (A, B) operand copies the launch takes: 2 * a_vec + b_vec, a_vec = 16-byte
 * copies of A (k % 4 == 0 and A 16-byte aligned), b_vec the same for B. */
static inline int sgemm_tf32_path(const float *A, const float *B, int n, int k)
{
    const int a_vec = (k % 4 == 0) && ((uintptr_t)A & 15u) == 0;
    const int b_vec = (n % 4 == 0) && ((uintptr_t)B & 15u) == 0;
    return a_vec * 2 + b_vec;
}

/* The kernel of one candidate and operand path (AVEC, BVEC: 16-byte copies). */
template <int BM, int BN, int WM, int WN, int ST, int RNA, int MINB, int AVEC, int BVEC>
static __global__ void __launch_bounds__(SGEMM_TF32_THREADS_OF(BM, BN, WM, WN), MINB)
sgemm_tf32_kernel(const float *__restrict__ A, const float *__restrict__ B, float *__restrict__ C,
                  int m, int n, int k, int c_vec)
{
    sgemm_tf32_body(A, B, C, m, n, k, c_vec, BM, BN, WM, WN, ST, RNA, AVEC, BVEC);
}

/* Runs the candidate: picks the (A, B) vector/scalar kernel
 * (sgemm_tf32_path), sets that kernel's shared-memory attribute once per
 * process, launches the 1-D grid of tiles. */
template <int BM, int BN, int WM, int WN, int ST, int RNA, int MINB>
static int sgemm_tf32_run(const float *A, const float *B, float *C, int m, int n, int k,
                          cudaStream_t stream)
{
    constexpr int T = SGEMM_TF32_THREADS_OF(BM, BN, WM, WN);
    constexpr int SMEM = SGEMM_TF32_SMEM_BYTES_OF(BM, BN, ST);
    static_assert(WM % 16 == 0 && WM <= 64 && WN % 16 == 0 && WN <= 64,
                  "warp tile: up to 4 x 8 mma tiles of 16 n x 8 m (acc[4][8][4]), ldmatrix.x4 = 2 m tiles");
    static_assert(BM % WM == 0 && BN % WN == 0, "warps tile the block");
    static_assert(T % 32 == 0 && T <= 1024, "whole warps, one block");
    static_assert((BM * 8) % T == 0 && (BM * 32) % T == 0,
                  "A loaders: whole passes of T/8 rows (vector) and T/32 rows (scalar)");
    static_assert(T % (BN / 4) == 0 && SGEMM_TF32_BK % (T / (BN / 4)) == 0,
                  "B vector loader: whole rows of BN/4 chunks per pass, whole passes per slice");
    static_assert(T % BN == 0, "B scalar loader: whole rows of BN columns per pass");
    static_assert(SGEMM_TF32_BS_OF(BN) % 32 == 8,
                  "B_s rows 16-byte aligned, consecutive rows 8 banks apart (LDS.64 conflict free)");
    static_assert(ST >= 3, "refill of slice kt-1's stage while slices kt, kt+1 are read");
    static_assert(SMEM_SM90_FITS(SMEM, MINB), "MINB blocks per SM fit in sm_90 shared memory");
    typedef void (*kernel_fn)(const float *, const float *, float *, int, int, int, int);
    static const kernel_fn kernels[4] = {
        sgemm_tf32_kernel<BM, BN, WM, WN, ST, RNA, MINB, 0, 0>, sgemm_tf32_kernel<BM, BN, WM, WN, ST, RNA, MINB, 0, 1>,
        sgemm_tf32_kernel<BM, BN, WM, WN, ST, RNA, MINB, 1, 0>, sgemm_tf32_kernel<BM, BN, WM, WN, ST, RNA, MINB, 1, 1>};
    static unsigned long long attr_set[4]; /* per path: one bit per device */

    if (m < 0 || n < 0 || k < 0)
        return (int)cudaErrorInvalidValue;
    if (m == 0 || n == 0)
        return 0;
    const int which = sgemm_tf32_path(A, B, n, k);
    const int c_vec = (n % 2 == 0) && ((uintptr_t)C & 7u) == 0;
    const int opt = smem_opt_in((const void *)kernels[which], SMEM, &attr_set[which]);
    if (opt != 0)
        return opt;
    const long long tiles = (long long)((m + BM - 1) / BM) * ((n + BN - 1) / BN);
    if (tiles > INT_MAX)
        return (int)cudaErrorInvalidValue;
    kernels[which]<<<(unsigned)tiles, T, SMEM, stream>>>(A, B, C, m, n, k, c_vec);
    return (int)cudaGetLastError();
}

#endif
