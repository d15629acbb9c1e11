/* kernels/sgemm_tf32_thin.cuh: tf32_tma's thin-mw kernel, TF32 on
 * mma.sync for a thin m (m <= 64) whose B (k x n, rows n floats apart)
 * TMA cannot read in place (n or k not a multiple of 4): every row of A in
 * one pass over B, B read by cp.async copies at any n and alignment.
 * Included by kernels/sgemm_tf32_tma.cu (which routes such shapes here,
 * SGEMM_TMA_THIN_MW_MAX); `tuned`'s FP32 thin-mw (sgemm_tuned_thin.cuh) is
 * the same idea on FMAs.
 *
 * Why: a thin m against a wide B (a few rows of activations against a
 * vocabulary-sized weight matrix, n odd) streams B once from DRAM and has
 * little math per byte of it (2 m FLOPs per 4 bytes). The TMA tiles need
 * 16-byte row strides, so such a B would have to be copied first (as much
 * traffic again as the GEMM); the general mma.sync kernel reads it in
 * place but in 128-row tiles, most of whose rows are past m. Here a block
 * owns all of C's rows (padded to MG, a multiple of 8) at a strip of
 * columns, so B is read once, at the rate DRAM gives it, and A (m x k,
 * small, L2-resident) is read once per strip.
 *
 * Idea (sgemm_tf32_thin_kernel<MG, VB>):
 *   - The mma computes C^T = B^T A^T on m16n8k8 (.tf32, FP32 accumulate):
 *     its M (16) runs along n, its N (8) along m, so m is padded to a
 *     multiple of 8 (MG = 8 .. 64), not of 16: m = 33 is a 40-row pass.
 *     Fragments (PTX ISA, lane = 4 g + t): the mma's A operand (16 x 8,
 *     row) is B^T: a0 = B[t][g], a1 = B[t][g+8], a2 = B[t+4][g],
 *     a3 = B[t+4][g+8] of the 16-column, 8-k tile; its B operand (8 x 8,
 *     col) is A^T: b0 = A[g][t], b1 = A[g][t+4] of the 8-row tile; its
 *     accumulator c0..c3 = C[2t][g], C[2t+1][g], C[2t][g+8], C[2t+1][g+8].
 *   - A block: 128 threads (4 warps), BN = 128 columns of C; a warp owns 32
 *     of them (two 16-column mma tiles) across all MG rows (MG / 8 row
 *     tiles): 2 x MG / 8 mma a k-step of 8, MG accumulators a thread.
 *   - k runs in slabs of BK = 32 through a 4-stage cp.async ring (3 slabs
 *     in flight under the mma of the fourth: per SM, with 2 blocks
 *     resident, 6 slabs of B of 16 KB each, the bytes in flight that cover
 *     DRAM latency at its bandwidth). B's slab (32 x 128): 4-byte copies, a
 *     warp's on 128 contiguous bytes of one row (any n, any alignment), or
 *     16-byte ones when n % 4 == 0 and B is 16-byte aligned (VB: 8 x fewer
 *     copy instructions). A's slab (MG x 32): 4-byte copies (A is small;
 *     any k), a warp's on 32 consecutive k of one row. Rows past m, k past
 *     the split's end and columns past n are zero-filled by the copies, so
 *     the padding adds zeros and nothing branches inside the loop.
 *   - Shared rows are padded for conflict-free fragment reads: B's slab
 *     rows BN + 8 = 136 floats apart (8 banks mod 32: lane (g, t) reads
 *     bank 8 t + g + const, 32 distinct), A's BK + 4 = 36 apart (4 banks:
 *     4 g + t + const, 32 distinct).
 *   - Operands rounded to TF32 as the TMA kernels' copy engine rounds them
 *     (round to nearest; the tf32 rows are verified with a TF32 rounding
 *     term): the mma reads the top 19 bits of each register, so adding half
 *     their last place (0x1000) to the FP32 bits gives exactly the bits of
 *     cvt.rna.tf32.f32 (nearest, ties away from zero) that the mma reads,
 *     in one integer add (the carry rounds the magnitude; Inf stays Inf,
 *     NaN stays NaN, the largest finite values round to Inf as with cvt).
 *   - k is split over grid.y only where the column strips leave the
 *     resident slots badly filled (sgemm_tf32_thin_split): the split count
 *     whose waves of blocks fill the slots best, at least
 *     SGEMM_TF32_THIN_MIN_PER slabs a split, each split's m x n atomic adds
 *     counted against the k x n floats of B it reads; the splits add into C
 *     with atomicAdd, C zeroed first by cudaMemsetAsync on the same stream
 *     (part of the call). One split stores directly. C is written masked
 *     (rows < m, columns < n), 4-byte stores (n odd: rows at any alignment).
 *
 * Constraints: any m in 1 .. 64, n >= 1, k >= 1, any pointer alignment
 * (4-byte aligned floats); for larger m the caller runs other kernels. Shared
 * memory: 4 x (32 x 136 + MG x 36) floats, at most 104 KB (MG 64): two
 * blocks an SM on sm_90 (three at MG 8). With more than one split the sums
 * are FP32 atomic adds: their order is not fixed, so the last bits may
 * differ between runs. */
#ifndef KERNELS_SGEMM_TF32_THIN_CUH
#define KERNELS_SGEMM_TF32_THIN_CUH

#include <stdint.h>
#include <cuda_runtime.h>

#include "cp_async.cuh"
#include "smem.cuh"

#define SGEMM_TF32_THIN_THREADS 128 /* 4 warps */
#define SGEMM_TF32_THIN_BN 128      /* columns of C a block */
#define SGEMM_TF32_THIN_BK 32       /* k of a slab: 4 mma k-steps */
#define SGEMM_TF32_THIN_ST 4        /* stages of the cp.async ring */
#define SGEMM_TF32_THIN_BS 136      /* floats between rows of B's slab: BN + 8 */
#define SGEMM_TF32_THIN_AS 36       /* floats between rows of A's slab: BK + 4 */
#define SGEMM_TF32_THIN_MIN_PER 8   /* least slabs a split of k */
#define SGEMM_TF32_THIN_MAX_SPLITS 512 /* grid.y: a long k over few strips still fills the SMs */

static_assert(SGEMM_TF32_THIN_BN == 4 * 32 && SGEMM_TF32_THIN_THREADS == 128,
              "4 warps, 32 columns each; a thread copies one column of B's slab");
static_assert(SGEMM_TF32_THIN_BS % 32 == 8 && SGEMM_TF32_THIN_BS % 4 == 0,
              "B's rows 8 banks apart (conflict-free fragments), 16-byte aligned (VB copies)");
static_assert(SGEMM_TF32_THIN_AS % 32 == 4 && SGEMM_TF32_THIN_BK == 32,
              "A's rows 4 banks apart; a warp copies the 32 k of a row");

/* floats of one stage (B's slab, then A's) at MG rows */
__host__ __device__ constexpr int sgemm_tf32_thin_stage(int mg)
{
    return SGEMM_TF32_THIN_BK * SGEMM_TF32_THIN_BS + mg * SGEMM_TF32_THIN_AS;
}
__host__ __device__ constexpr int sgemm_tf32_thin_smem_bytes(int mg)
{
    return SGEMM_TF32_THIN_ST * sgemm_tf32_thin_stage(mg) * 4;
}

/* FP32 bits as the mma's TF32 operand, rounded to nearest (see the header) */
static __device__ __forceinline__ unsigned sgemm_tf32_thin_round(float x)
{
    return __float_as_uint(x) + 0x1000u;
}

/* d += a * b on one 16 x 8 x 8 tile (C^T += B^T A^T, fragments as above) */
static __device__ __forceinline__ void sgemm_tf32_thin_mma(float (&d)[4], const unsigned (&a)[4],
                                                           const unsigned (&b)[2])
{
    asm("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 "
        "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

/* Copies slab k0 .. k0+31 (k past ke zero-filled) of B's columns n0 ..
 * n0+127 (past n zero-filled) and of A's MG rows (past m zero-filled) into
 * the stage at shared address st (B's slab at st, A's after it). */
template <int MG, int VB>
static __device__ __forceinline__ void sgemm_tf32_thin_load(unsigned st, const float *__restrict__ A,
                                                            const float *__restrict__ B, int m, int n, int k,
                                                            long long n0, int k0, int ke, int tid)
{
    constexpr int BK = SGEMM_TF32_THIN_BK, BS = SGEMM_TF32_THIN_BS, AS = SGEMM_TF32_THIN_AS;
    constexpr int T = SGEMM_TF32_THIN_THREADS;
    if (VB) {
        /* 16-byte copies: n % 4 == 0, B 16-byte aligned; a warp on one row's
         * 32 chunks of 4 columns, 4 rows a pass (a chunk is all in n or all past) */
        const int ch = tid % 32, r0 = tid / 32;
        const long long col = n0 + 4 * ch;
        const int cok = col < n;
#pragma unroll
        for (int p = 0; p < BK * 32 / T; p++) {
            const int r = r0 + p * (T / 32);
            const int ok = cok && k0 + r < ke;
            const float *src = ok ? B + (size_t)(k0 + r) * n + col : B;
            cp_async16_to(st + 4u * (unsigned)(r * BS + 4 * ch), src, ok ? 16 : 0);
        }
    } else {
        /* 4-byte copies: a thread on one column, every k of the slab */
        const long long col = n0 + tid;
        const int cok = col < n;
        const float *src = B + (size_t)k0 * n + col;
#pragma unroll 8
        for (int r = 0; r < BK; r++) {
            const int ok = cok && k0 + r < ke;
            cp_async4_to(st + 4u * (unsigned)(r * BS + tid), ok ? src : B, ok ? 4 : 0);
            src += n;
        }
    }
    /* A: a warp on 32 consecutive k of a row, rows w, w + 4, .. */
    const int kk = tid % 32, kok = k0 + kk < ke;
    const unsigned sa = st + 4u * (unsigned)(BK * BS + kk);
#pragma unroll
    for (int j = 0; j < MG / 4; j++) {
        const int i = tid / 32 + 4 * j;
        const int ok = kok && i < m;
        const float *src = ok ? A + (size_t)i * k + k0 + kk : A;
        cp_async4_to(sa + 4u * (unsigned)(i * AS), src, ok ? 4 : 0);
    }
}

/* Block (blockIdx.x, blockIdx.y): C's MG (>= m) rows at columns
 * blockIdx.x * 128 .. + 127 over k in [blockIdx.y * kc, + kc). atomic: add
 * into C (zeroed by the launcher), else store. */
template <int MG, int VB>
static __global__ void __launch_bounds__(SGEMM_TF32_THIN_THREADS, 2)
    sgemm_tf32_thin_kernel(const float *__restrict__ A, const float *__restrict__ B, float *__restrict__ C, int m,
                           int n, int k, int kc, int atomic)
{
    constexpr int BK = SGEMM_TF32_THIN_BK, BS = SGEMM_TF32_THIN_BS, AS = SGEMM_TF32_THIN_AS;
    constexpr int ST = SGEMM_TF32_THIN_ST, STAGE = sgemm_tf32_thin_stage(MG), MT = MG / 8;
    static_assert(MG % 8 == 0 && MG >= 8 && MG <= 64, "MG: 8 .. 64 rows, 8-row mma tiles");
    static_assert((STAGE * 4) % 16 == 0 && (BK * BS * 4) % 16 == 0, "stages and A's slab 16-byte aligned");
    static_assert(SMEM_SM90_FITS(sgemm_tf32_thin_smem_bytes(MG), 2), "two blocks an SM");
    extern __shared__ float4 sgemm_tf32_thin_smem4[];
    float *smem = (float *)sgemm_tf32_thin_smem4;
    const unsigned sbase = smem_u32(smem);
    const int tid = threadIdx.x, lane = tid % 32, warp = tid / 32, g = lane / 4, t = lane % 4;
    const long long n0 = (long long)blockIdx.x * SGEMM_TF32_THIN_BN;
    const int kb = blockIdx.y * kc, ke = min(k, kb + kc);
    const int slabs = (int)(((long long)ke - kb + BK - 1) / BK); /* >= 1: the launcher's grid has no empty split */

    float acc[2][MT][4];
#pragma unroll
    for (int j = 0; j < 2; j++)
#pragma unroll
        for (int i = 0; i < MT; i++)
#pragma unroll
            for (int r = 0; r < 4; r++)
                acc[j][i][r] = 0.0f;

#pragma unroll
    for (int s = 0; s < ST - 1; s++) {
        if (s < slabs)
            sgemm_tf32_thin_load<MG, VB>(sbase + 4u * (unsigned)(s * STAGE), A, B, m, n, k, n0, kb + s * BK, ke,
                                         tid);
        cp_async_commit();
    }
    /* this lane's fragment bases in a stage: B[t][32 warp + g], A[g][t] */
    const int b_off = t * BS + 32 * warp + g, a_off = BK * BS + g * AS + t;
#pragma unroll 1
    for (int s = 0; s < slabs; s++) {
        cp_async_wait(ST - 2); /* this thread's copies of slab s have landed */
        __syncthreads();       /* everyone's have, and slab s - 1's stage is read by all */
        const int nx = s + ST - 1;
        if (nx < slabs)
            sgemm_tf32_thin_load<MG, VB>(sbase + 4u * (unsigned)((nx % ST) * STAGE), A, B, m, n, k, n0,
                                         kb + nx * BK, ke, tid);
        cp_async_commit(); /* (empty past the last slab: the wait count stays uniform) */
        const float *sb = smem + (s % ST) * STAGE + b_off;
        const float *sa = smem + (s % ST) * STAGE + a_off;
#pragma unroll
        for (int ks = 0; ks < BK / 8; ks++) {
            unsigned fa[2][4];
#pragma unroll
            for (int j = 0; j < 2; j++) {
                const float *p = sb + ks * 8 * BS + 16 * j;
                fa[j][0] = sgemm_tf32_thin_round(p[0]);
                fa[j][1] = sgemm_tf32_thin_round(p[8]);
                fa[j][2] = sgemm_tf32_thin_round(p[4 * BS]);
                fa[j][3] = sgemm_tf32_thin_round(p[4 * BS + 8]);
            }
#pragma unroll
            for (int i = 0; i < MT; i++) {
                const float *q = sa + 8 * i * AS + ks * 8;
                const unsigned fb[2] = {sgemm_tf32_thin_round(q[0]), sgemm_tf32_thin_round(q[4])};
#pragma unroll
                for (int j = 0; j < 2; j++)
                    sgemm_tf32_thin_mma(acc[j][i], fa[j], fb);
            }
        }
    }
    cp_async_wait(0); /* no copy outlives the block (the empty trailing groups) */

    /* c0..c3 of (column tile j, row tile i): C[8i + 2t (+1)][col (+8)] */
#pragma unroll
    for (int i = 0; i < MT; i++) {
        const int row = 8 * i + 2 * t;
#pragma unroll
        for (int j = 0; j < 2; j++) {
            const long long col = n0 + 32 * warp + 16 * j + g;
#pragma unroll
            for (int r = 0; r < 4; r++) {
                const int rr = row + (r & 1);
                const long long cc = col + (r & 2 ? 8 : 0);
                if (rr < m && cc < n) {
                    float *p = C + (size_t)rr * n + cc;
                    if (atomic)
                        atomicAdd(p, acc[j][i][r]);
                    else
                        *p = acc[j][i][r];
                }
            }
        }
    }
}

// ---- launcher -----------------------------------------------------------------

/* The split of `slabs` k-slabs for `units` column strips on `slots`
 * resident blocks (bound by DRAM: an idle slot is bytes not in flight): the
 * count whose waves best fill the slots (useful slab-time over the slots'
 * time, each split `per` slabs, the last fewer), at least
 * SGEMM_TF32_THIN_MIN_PER slabs a split, each split's time stretched by its
 * m x n atomic adds counted like the k x n floats of B it reads (so few
 * splits); a larger count must beat a smaller by a factor 1.02. */
static void sgemm_tf32_thin_split(long long units, long long slabs, long long slots, int m, int k, int *splits,
                                  int *per)
{
    long long best_s = 1, best_p = slabs;
    double best = -1.0;
    for (long long s = 1; s <= SGEMM_TF32_THIN_MAX_SPLITS; s++) {
        const long long p = (slabs + s - 1) / s;
        if (s > 1 && p < SGEMM_TF32_THIN_MIN_PER)
            break;
        if ((slabs + p - 1) / p != s)
            continue; /* the same split as a smaller count */
        const long long blocks = units * s, waves = (blocks + slots - 1) / slots;
        const double fill = (double)units * slabs / ((double)waves * slots * p);
        const double eff = fill / (1.0 + (double)s * m / k);
        if (eff > best * 1.02) {
            best = eff;
            best_s = s;
            best_p = p;
        }
    }
    *splits = (int)best_s;
    *per = (int)best_p;
}

/* The kernel at MG rows, 16-byte copies of B when n % 4 == 0 and B is
 * 16-byte aligned. Returns 0 or a cudaError_t value. */
template <int MG>
static int sgemm_tf32_thin_launch(const float *A, const float *B, float *C, int m, int n, int k, int sms,
                                  cudaStream_t stream)
{
    const int vb = n % 4 == 0 && ((uintptr_t)B & 15) == 0;
    const void *kernel = vb ? (const void *)sgemm_tf32_thin_kernel<MG, 1> : (const void *)sgemm_tf32_thin_kernel<MG, 0>;
    const int smem_bytes = sgemm_tf32_thin_smem_bytes(MG);
    static unsigned long long opted_in[2];
    static int resident[2][64];
    int per_sm = 0;
    int err = smem_opt_in(kernel, smem_bytes, &opted_in[vb]);
    if (err == 0)
        err = smem_resident_per_sm(kernel, SGEMM_TF32_THIN_THREADS, smem_bytes, resident[vb], &per_sm);
    if (err != 0)
        return err;
    if (per_sm < 1)
        per_sm = 1;
    const long long units = ((long long)n + SGEMM_TF32_THIN_BN - 1) / SGEMM_TF32_THIN_BN;
    const long long slabs = ((long long)k + SGEMM_TF32_THIN_BK - 1) / SGEMM_TF32_THIN_BK;
    int splits = 1, per = (int)slabs;
    sgemm_tf32_thin_split(units, slabs, (long long)(sms > 0 ? sms : 1) * per_sm, m, k, &splits, &per);
    int atomic = splits > 1;
    int kc = per * SGEMM_TF32_THIN_BK;
    if (splits == 1)
        kc = k; /* (per * BK may pass INT_MAX at k near it) */
    if (atomic) {
        const cudaError_t e = cudaMemsetAsync(C, 0, (size_t)m * n * sizeof(float), stream);
        if (e != cudaSuccess)
            return (int)e;
    }
    void *args[] = {(void *)&A, (void *)&B, (void *)&C, (void *)&m, (void *)&n, (void *)&k, (void *)&kc, (void *)&atomic};
    const dim3 grid((unsigned)units, (unsigned)splits);
    const cudaError_t e =
        cudaLaunchKernel(kernel, grid, dim3(SGEMM_TF32_THIN_THREADS), args, (size_t)smem_bytes, stream);
    return e != cudaSuccess ? (int)e : (int)cudaGetLastError();
}

/* The names noted (index: 2 (MG / 8 - 1) + VB): rows, threads, the block's
 * columns and slab of k, stages, B's copies (4 or 16 bytes). */
static const char *const sgemm_tf32_thin_names[16] = {
    "tf32_tma_thin_mw8_128t_n128k32_s4_b4",   "tf32_tma_thin_mw8_128t_n128k32_s4_b16",
    "tf32_tma_thin_mw16_128t_n128k32_s4_b4",  "tf32_tma_thin_mw16_128t_n128k32_s4_b16",
    "tf32_tma_thin_mw24_128t_n128k32_s4_b4",  "tf32_tma_thin_mw24_128t_n128k32_s4_b16",
    "tf32_tma_thin_mw32_128t_n128k32_s4_b4",  "tf32_tma_thin_mw32_128t_n128k32_s4_b16",
    "tf32_tma_thin_mw40_128t_n128k32_s4_b4",  "tf32_tma_thin_mw40_128t_n128k32_s4_b16",
    "tf32_tma_thin_mw48_128t_n128k32_s4_b4",  "tf32_tma_thin_mw48_128t_n128k32_s4_b16",
    "tf32_tma_thin_mw56_128t_n128k32_s4_b4",  "tf32_tma_thin_mw56_128t_n128k32_s4_b16",
    "tf32_tma_thin_mw64_128t_n128k32_s4_b4",  "tf32_tma_thin_mw64_128t_n128k32_s4_b16"};

/* The name of the kernel sgemm_tf32_thin runs at m (1 .. 64), n and B. */
static const char *sgemm_tf32_thin_name(int m, int n, const float *B)
{
    const int mg = m <= 8 ? 8 : m >= 64 ? 64 : (m + 7) / 8 * 8;
    const int vb = n % 4 == 0 && ((uintptr_t)B & 15) == 0;
    return sgemm_tf32_thin_names[2 * (mg / 8 - 1) + vb];
}

/* The thin-mw kernel at any m in 1 .. 64 (MG: the smallest multiple of 8
 * >= m), any n, k >= 1 and alignment. Returns 0 or a cudaError_t value
 * (cudaErrorInvalidValue outside those ranges). Notes nothing: the caller
 * does, with sgemm_tf32_thin_name. */
static int sgemm_tf32_thin(const float *A, const float *B, float *C, int m, int n, int k, int sms,
                           cudaStream_t stream)
{
    if (m < 1 || m > 64 || n < 1 || k < 1)
        return (int)cudaErrorInvalidValue;
    switch ((m + 7) / 8) {
    case 1:
        return sgemm_tf32_thin_launch<8>(A, B, C, m, n, k, sms, stream);
    case 2:
        return sgemm_tf32_thin_launch<16>(A, B, C, m, n, k, sms, stream);
    case 3:
        return sgemm_tf32_thin_launch<24>(A, B, C, m, n, k, sms, stream);
    case 4:
        return sgemm_tf32_thin_launch<32>(A, B, C, m, n, k, sms, stream);
    case 5:
        return sgemm_tf32_thin_launch<40>(A, B, C, m, n, k, sms, stream);
    case 6:
        return sgemm_tf32_thin_launch<48>(A, B, C, m, n, k, sms, stream);
    case 7:
        return sgemm_tf32_thin_launch<56>(A, B, C, m, n, k, sms, stream);
    default:
        return sgemm_tf32_thin_launch<64>(A, B, C, m, n, k, sms, stream);
    }
}

#endif
