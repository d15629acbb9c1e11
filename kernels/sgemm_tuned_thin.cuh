/* kernels/sgemm_tuned_thin.cuh: `tuned`'s paths for a thin C: n tiny
 * (thin-n, n <= SGEMM_TUNED_THIN_N_MAX), m tiny (thin-m, m <=
 * SGEMM_TUNED_THIN_M_MAX) and m small with n wide (thin-mw, 8 < m <=
 * SGEMM_TUNED_THIN_MW_MAX), where every tile of the general kernels (16 ..
 * 128 rows, 128 or 256 columns) spends many of its FMAs on rows or columns
 * past C, and the GEMM streams the wide operand once from DRAM (A, m x k,
 * for thin-n; B, k x n, for thin-m and thin-mw) with the narrow one
 * L2-resident: bound by that stream (thin-n, thin-m) or by the FMAs
 * (thin-mw, 2m FLOPs per 4 bytes of B).
 *
 * Thin-n (sgemm_thin_n_kernel<NT, VA, VB>): NT, the tile's columns, is the
 * smallest of 8, 16, 32, 64 that is >= n, so a block owns BM rows of C across
 * all of its columns (BM = 128 rows) and reads its strip of A once. 128
 * threads, each a TM x TN register tile (2x4, 4x4, 8x4, 8x8 for NT 8 .. 64:
 * 128 threads for every NT); its rows are rg + i * (BM / TM) (interleaved, so a
 * quarter warp's float4 reads of A fall on distinct banks: the row stride
 * BK + 4 = 36 floats is 9 16-byte units), its columns one or two 4-wide
 * groups (cg * 4, and NT / 2 + cg * 4 at TN 8: a quarter warp's float4 reads
 * of B on 8 distinct 16-byte units). k runs in slabs of 32 through a
 * 3-stage cp.async ring: A's slab (BM x 32, rows as in memory, read as float4
 * along k) by 16-byte copies when k % 4 == 0 (VA), else 4-byte ones, B's slab
 * (32 x NT) by 16-byte copies when n % 4 == 0 (VB), else 4-byte ones; rows
 * past m, k past k and columns past n are zero-filled (3 stages: at most
 * 80 KB of shared memory, at NT 64, inside every sm_80+ GPU's per-block
 * limit). When m / BM blocks
 * leave slots of the SMs idle (few rows: 8192 / 128 = 64 blocks for 132 SMs)
 * k is split (grid.y, sgemm_thin_split: the split count that fills the
 * resident slots' waves best, at least 8 slabs a split, so a split's atomic
 * adds are at most n / 256 of its bytes of A); the splits add into C with
 * atomicAdd, C zeroed first by cudaMemsetAsync on the same stream (no
 * workspace; the memset is part of the call). C is stored masked (rows < m,
 * columns < n), a thread's 4-column groups as float4 stores or (sm_90)
 * float4 atomic adds when n % 4 == 0 and C is 16-byte aligned.
 *
 * Thin-m (sgemm_thin_m_kernel<MT, VEC>): c_i = a_i B for the m <= 8 rows of A,
 * MT (1, 2, 4, 8) the smallest >= m. B is streamed once: a thread owns 4
 * consecutive columns (VEC: n % 4 == 0, B and C 16-byte aligned; one float4
 * load of B a k-row, 8 in flight) or 1 column (else, 4-byte loads, a warp's
 * lanes on 32 consecutive columns), MT x 4 (or MT) accumulators. 128 threads
 * a block (512 or 128 columns); k is split over grid.y so that the grid has
 * about 4 blocks an SM, and each block stages its rows of A 256 k at a time
 * in shared memory (rows past m as zeros: read by every thread as a
 * broadcast, one float4 of MT values a k). Splits add into C with atomicAdd
 * (float4 ones on sm_90 when VEC), C zeroed first as above; one split stores
 * directly.
 *
 * Thin-mw (sgemm_thin_mw_kernel<MG>): every row of A in one pass over B.
 * MG, the rows of accumulators, is the smallest of 16, 24, .. 64 (steps of
 * 8) that is >= m: at most 7 rows of FMAs are padding (a 16-row grid would
 * make m = 33 a 48-row pass, 8 a 40-row one; finer steps buy little and
 * multiply the kernels). A block is 64 threads (2 warps, 128 columns); a
 * thread owns 2 columns, lane + 32 c of its warp's 64 (so each 4-byte load
 * of B is a warp's 128 contiguous bytes at any n and alignment: one kernel,
 * no vector/scalar pair, and a B element feeds MG FMAs, so the load count is
 * nothing beside them), MG x 2 accumulators. k runs in steps of 4: A's MG
 * rows come from shared memory as float4 along k, one address a warp (a
 * broadcast), each feeding 4 x 2 FMAs (two columns: with one, the shared
 * loads would be a quarter of the FMA issue slots; four would need 4 MG
 * accumulators, 256 at MG 64). B's rows are loaded 2 steps (8 k) ahead
 * (1 at MG 56, whose registers have no room), so each warp keeps 8 k-rows x
 * 2 runs of 128 bytes in flight under its FMAs: with 12 warps an SM (6 blocks at up
 * to 168 registers, 8 up to MG 32 at 128; MG 64 has 4 blocks, 8 warps, as
 * its 128 accumulators spilled at 168) that covers DRAM latency at the rate
 * the FMAs consume B. A is staged KS = 64 k at a time in two buffers by
 * 4-byte cp.async copies (a thread on one k of each row < m), the next
 * chunk's copies in flight under this one's FMAs (2 x MG x 64 floats, 32 KB
 * at MG 64); rows past m are zeroed once and k past the chunk zero-filled,
 * so the padding rows add zeros and nothing branches on m inside the loop.
 * k is split over grid.y into whole chunks, at least 4 a split: the count
 * that spreads the blocks most evenly over the SMs (FMA-bound: an SM's time
 * is its share of the blocks), scaled down while the grid fills under 7/8
 * of the resident slots, each split's work counted with its m x n atomic
 * adds as if they were loads of B (1 + s m / k), so few splits; the splits
 * add with scalar atomicAdd into C zeroed as above, one split stores.
 * Rule (kernels/sgemm_tuned.cu): 8 < m and the 32x128 tiles at least the
 * SMs; below that the tile picks spread k over the SMs and keep their
 * register tiling, whose FMAs are cheaper per shared load.
 *
 * Why not the tiles: a 16 x 128 tile at n = 16 puts 7/8 of its FMAs past n;
 * at m = 1 a 32 x 128 tile puts 31/32 past m. Here the padding is at most
 * NT / n (thin-n) or MT / m (thin-m), and the work per byte of the streamed
 * operand is small enough that the FMAs hide behind the loads, except for n
 * near 64, where the 128 x 64 tile's 8x8 register tiles keep the FMA pipe
 * busy.
 *
 * At m = 33 with n = 50257 the 16x128 tiles run 48 rows in three row tiles
 * that each read B's slabs (from L2 after the first) and redo the staging
 * and pipeline per tile; thin-mw runs 40 rows in one.
 *
 * Constraints: any m, n, k >= 1; thin-n needs n <= 64, thin-m m <= 8,
 * thin-mw m <= 64 (the callers' rule: kernels/sgemm_tuned.cu; thin-mw also
 * runs any m <= 64 through sgemm_tuned_thin_mw_run, for tests). With more than one split the sums are FP32 atomic adds in C:
 * the order of the splits' adds is not fixed, so the last bits may differ
 * between runs. Switches (0 turns a path off): SGEMM_TUNED_THIN_N_MAX
 * (default 64: the largest n thin-n takes, <= 64), SGEMM_TUNED_THIN_M_MAX
 * (default 8: the largest m thin-m takes, <= 8), SGEMM_TUNED_THIN_MW_MAX
 * (default 56: the largest m thin-mw's rule takes, <= 64; the MG 64
 * kernel stays, for sgemm_tuned_thin_mw_run and a -D of 64). */
#ifndef KERNELS_SGEMM_TUNED_THIN_CUH
#define KERNELS_SGEMM_TUNED_THIN_CUH

#include <stdint.h>
#include <cuda_runtime.h>

#include "cp_async.cuh"
#include "kernel_ran.h"
#include "sgemm_common.cuh"
#include "sgemm_tuned_common.cuh"
#include "smem.cuh"

#ifndef SGEMM_TUNED_THIN_N_MAX
#define SGEMM_TUNED_THIN_N_MAX 64
#endif
#ifndef SGEMM_TUNED_THIN_M_MAX
#define SGEMM_TUNED_THIN_M_MAX 8
#endif
#ifndef SGEMM_TUNED_THIN_MW_MAX
#define SGEMM_TUNED_THIN_MW_MAX 56 /* m = 64 (the MG 64 kernel, 4 blocks an SM) lost to the 16x128
                                    * sliced pick on the H200 (docs/tuning/awkward.md) */
#endif
static_assert(SGEMM_TUNED_THIN_N_MAX >= 0 && SGEMM_TUNED_THIN_N_MAX <= 64,
              "thin-n tiles are 8 .. 64 columns wide");
static_assert(SGEMM_TUNED_THIN_M_MAX >= 0 && SGEMM_TUNED_THIN_M_MAX <= 8,
              "thin-m keeps at most 8 rows of accumulators");
static_assert(SGEMM_TUNED_THIN_MW_MAX >= 0 && SGEMM_TUNED_THIN_MW_MAX <= 64,
              "thin-mw keeps at most 64 rows of accumulators");

#define SGEMM_THIN_THREADS 128
#define SGEMM_THIN_N_BK 32 /* k of a slab */
#define SGEMM_THIN_N_ST 3  /* stages of the cp.async ring */
#define SGEMM_THIN_N_AS 36 /* floats between rows of A's slab: BK + 4, 9 16-byte units */
#define SGEMM_THIN_M_KS 256 /* k of A staged at once by thin-m */
#define SGEMM_THIN_M_U 8    /* loads of B in flight a thread (thin-m) */
#define SGEMM_THIN_MW_THREADS 64 /* thin-mw's block: 2 warps, 128 columns */
#define SGEMM_THIN_MW_KS 64      /* k of A staged at once by thin-mw: one k a thread */
#define SGEMM_THIN_MW_MIN_PER 4  /* least KS-chunks of k a thin-mw split */
#define SGEMM_THIN_ATOMIC 1 /* thin-n flags: the splits add into C */
#define SGEMM_THIN_VEC_C 2  /* thin-n flags: C's rows 16-byte aligned */

/* The kernel_ran_note reason of the 4-byte paths. */
#define SGEMM_THIN_N_SCALAR_REASON "n or k not a multiple of 4: 4-byte copies of A or B"
#define SGEMM_THIN_M_SCALAR_REASON "n not a multiple of 4: one column a thread, 4-byte loads of B"

/* thin-mw: a thread's columns (2), the 4-k steps of B it loads ahead (2, but
 * 1 at 56 rows, which spilled at 2), and the blocks of 64 threads an SM its
 * registers are bounded for (8 up to 32 rows: 128 registers; 6 up to 56:
 * 168, 3 warps on each SM quarter's 16K registers; 4 at 64, whose 128
 * accumulators spilled at 168) */
constexpr int sgemm_thin_mw_cols(int mg) { return mg > 0 ? 2 : 0; }
constexpr int sgemm_thin_mw_depth(int mg) { return mg == 56 ? 1 : 2; }
constexpr int sgemm_thin_mw_minb(int mg) { return mg <= 32 ? 8 : mg <= 56 ? 6 : 4; }

constexpr int sgemm_thin_n_bm(int nt) { return nt > 0 ? 128 : 0; }
constexpr int sgemm_thin_n_tm(int nt) { return nt >= 32 ? 8 : nt == 16 ? 4 : 2; }
constexpr int sgemm_thin_n_tn(int nt) { return nt == 64 ? 8 : 4; }
/* floats of one stage: A [BM][AS], then B [BK][NT] */
constexpr int sgemm_thin_n_stage(int nt) { return sgemm_thin_n_bm(nt) * SGEMM_THIN_N_AS + SGEMM_THIN_N_BK * nt; }

/* p[0..3] += v (p 16-byte aligned): one vector atomic on sm_90 (a lane's 16
 * bytes in one request), four scalar ones before. */
static __device__ __forceinline__ void sgemm_thin_atomic_add4(float *p, float4 v)
{
#if __CUDA_ARCH__ >= 900
    atomicAdd((float4 *)p, v);
#else
    atomicAdd(p, v.x);
    atomicAdd(p + 1, v.y);
    atomicAdd(p + 2, v.z);
    atomicAdd(p + 3, v.w);
#endif
}

/* Copies slab `slab` (k from slab * BK) of A's rows row0 .. row0+BM-1 and of
 * B into stage `As` (B's part at As + BM * AS), zero-filling past m, k, n. */
template <int NT, int VA, int VB>
static __device__ __forceinline__ void sgemm_thin_n_copy(float *As, const float *__restrict__ A,
                                                         const float *__restrict__ B, int m, int n, int k,
                                                         int row0, int slab, int tid)
{
    constexpr int BM = sgemm_thin_n_bm(NT), BK = SGEMM_THIN_N_BK, AS = SGEMM_THIN_N_AS, T = SGEMM_THIN_THREADS;
    float *Bs = As + BM * AS;
    const int k0 = slab * BK;
    if constexpr (VA) { /* k % 4 == 0: a 4-float chunk of a row is wholly inside k or past it */
        constexpr int CH = BK / 4;
        static_assert((BM * CH) % T == 0, "A's chunks spread evenly");
#pragma unroll
        for (int i = 0; i < BM * CH / T; i++) {
            const int c = tid + i * T, r = c / CH, q = c % CH;
            const int gr = row0 + r, gk = k0 + q * 4;
            const int ok = gr < m && gk < k;
            cp_async16(As + r * AS + q * 4, ok ? A + (size_t)gr * k + gk : A, ok ? 16 : 0);
        }
    } else { /* a warp's lanes on 32 consecutive k of one row */
        static_assert((BM * BK) % T == 0 && BK == 32, "A's elements spread evenly, a warp a row");
#pragma unroll 8
        for (int i = 0; i < BM * BK / T; i++) {
            const int c = tid + i * T, r = c / BK, q = c % BK;
            const int gr = row0 + r, gk = k0 + q;
            const int ok = gr < m && gk < k;
            cp_async4(As + r * AS + q, ok ? A + (size_t)gr * k + gk : A, ok ? 4 : 0);
        }
    }
    if constexpr (VB) { /* n % 4 == 0: a chunk of a row of B is wholly inside n or past it */
        constexpr int CH = NT / 4, TOTAL = BK * CH;
#pragma unroll
        for (int c0 = 0; c0 < TOTAL; c0 += T) {
            const int c = c0 + tid, r = c / CH, q = c % CH;
            const int gk = k0 + r, col = q * 4;
            const int ok = gk < k && col < n;
            if (TOTAL % T == 0 || c < TOTAL)
                cp_async16(Bs + r * NT + col, ok ? B + (size_t)gk * n + col : B, ok ? 16 : 0);
        }
    } else {
        constexpr int TOTAL = BK * NT;
        static_assert(TOTAL % T == 0, "B's elements spread evenly");
#pragma unroll
        for (int i = 0; i < TOTAL / T; i++) {
            const int c = tid + i * T, r = c / NT, col = c % NT;
            const int gk = k0 + r;
            const int ok = gk < k && col < n;
            cp_async4(Bs + r * NT + col, ok ? B + (size_t)gk * n + col : B, ok ? 4 : 0);
        }
    }
}

/* Thin-n: block (blockIdx.x, blockIdx.y) computes rows blockIdx.x * BM ..
 * of C over slabs blockIdx.y * per .. (per slabs of BK, the last split's
 * fewer). flags: SGEMM_THIN_ATOMIC, add into C (zeroed by the launcher)
 * instead of storing; SGEMM_THIN_VEC_C, C's rows 16-byte aligned (n % 4 ==
 * 0): a thread's 4-column groups stored or added as float4. */
template <int NT, int VA, int VB>
static __global__ void __launch_bounds__(SGEMM_THIN_THREADS)
    sgemm_thin_n_kernel(const float *__restrict__ A, const float *__restrict__ B, float *__restrict__ C, int m,
                        int n, int k, int per, int flags)
{
    constexpr int BM = sgemm_thin_n_bm(NT), BK = SGEMM_THIN_N_BK, AS = SGEMM_THIN_N_AS, ST = SGEMM_THIN_N_ST;
    constexpr int TM = sgemm_thin_n_tm(NT), TN = sgemm_thin_n_tn(NT);
    constexpr int CG = NT / TN, RG = BM / TM, STAGE = sgemm_thin_n_stage(NT);
    static_assert(CG * RG == SGEMM_THIN_THREADS, "one register tile a thread covers the block tile");
    static_assert(TN == 4 || (TN == 8 && CG * 4 == NT / 2), "a thread's columns: one or two 4-wide groups");
    static_assert(STAGE % 4 == 0 && AS % 4 == 0, "stages and rows 16-byte aligned");
    float *smem = (float *)sgemm_tuned_smem;
    const int tid = threadIdx.x, cg = tid % CG, rg = tid / CG;
    const int row0 = blockIdx.x * BM;
    const int slabs = SGEMM_CEIL_DIV(k, BK);
    const int s0 = blockIdx.y * per;
    const int count = min(per, slabs - s0); /* >= 1: the launcher's grid has no empty split */

    float acc[TM][TN];
#pragma unroll
    for (int i = 0; i < TM; i++)
#pragma unroll
        for (int j = 0; j < TN; j++)
            acc[i][j] = 0.0f;

#pragma unroll
    for (int t = 0; t < ST - 1; t++) {
        if (t < count)
            sgemm_thin_n_copy<NT, VA, VB>(smem + t * STAGE, A, B, m, n, k, row0, s0 + t, tid);
        cp_async_commit();
    }
    for (int t = 0; t < count; t++) {
        cp_async_wait(ST - 2); /* this thread's copies of slab t have landed */
        __syncthreads();       /* everyone's have, and slab t-1's stage is free */
        const int nt = t + ST - 1;
        if (nt < count)
            sgemm_thin_n_copy<NT, VA, VB>(smem + (nt % ST) * STAGE, A, B, m, n, k, row0, s0 + nt, tid);
        cp_async_commit();
        const float *As = smem + (t % ST) * STAGE, *Bs = As + BM * AS;
#pragma unroll
        for (int kq = 0; kq < BK / 4; kq++) {
            float4 a[TM];
#pragma unroll
            for (int i = 0; i < TM; i++)
                a[i] = *(const float4 *)(As + (rg + i * RG) * AS + kq * 4);
#pragma unroll
            for (int kk = 0; kk < 4; kk++) {
                float b[TN];
#pragma unroll
                for (int h = 0; h < TN / 4; h++) {
                    const float4 v = *(const float4 *)(Bs + (kq * 4 + kk) * NT + h * CG * 4 + cg * 4);
                    b[h * 4 + 0] = v.x;
                    b[h * 4 + 1] = v.y;
                    b[h * 4 + 2] = v.z;
                    b[h * 4 + 3] = v.w;
                }
#pragma unroll
                for (int i = 0; i < TM; i++) {
                    const float av = kk == 0 ? a[i].x : kk == 1 ? a[i].y : kk == 2 ? a[i].z : a[i].w;
#pragma unroll
                    for (int j = 0; j < TN; j++)
                        acc[i][j] = fmaf(av, b[j], acc[i][j]);
                }
            }
        }
    }
    cp_async_wait(0); /* no copy outlives the block (the empty trailing groups) */

#pragma unroll
    for (int i = 0; i < TM; i++) {
        const int r = row0 + rg + i * RG;
        if (r >= m)
            continue;
        float *crow = C + (size_t)r * n;
#pragma unroll
        for (int h = 0; h < TN / 4; h++) {
            const int col0 = h * CG * 4 + cg * 4;
            if (flags & SGEMM_THIN_VEC_C) { /* n % 4 == 0: the group is wholly inside n or past it */
                if (col0 < n) {
                    const float4 v = make_float4(acc[i][h * 4], acc[i][h * 4 + 1], acc[i][h * 4 + 2], acc[i][h * 4 + 3]);
                    if (flags & SGEMM_THIN_ATOMIC)
                        sgemm_thin_atomic_add4(crow + col0, v);
                    else
                        *(float4 *)(crow + col0) = v;
                }
            } else {
#pragma unroll
                for (int e = 0; e < 4; e++) {
                    if (col0 + e < n) {
                        if (flags & SGEMM_THIN_ATOMIC)
                            atomicAdd(crow + col0 + e, acc[i][h * 4 + e]);
                        else
                            crow[col0 + e] = acc[i][h * 4 + e];
                    }
                }
            }
        }
    }
}

/* Thin-m: block (blockIdx.x, blockIdx.y) computes C's columns of its threads
 * (VEC: 4 a thread, else 1) over k in [blockIdx.y * kc, + kc), A's rows
 * staged KS k at a time; atomic: add into C (zeroed by the launcher). */
template <int MT, int VEC>
static __global__ void __launch_bounds__(SGEMM_THIN_THREADS, 4)
    sgemm_thin_m_kernel(const float *__restrict__ A, const float *__restrict__ B, float *__restrict__ C, int m,
                        int n, int k, int kc, int atomic)
{
    constexpr int CPT = VEC ? 4 : 1, KS = SGEMM_THIN_M_KS, U = SGEMM_THIN_M_U, T = SGEMM_THIN_THREADS;
    __shared__ __align__(16) float As[KS * MT]; /* As[kk * MT + i] = A[i][k0 + kk] */
    const int tid = threadIdx.x;
    const long long col = ((long long)blockIdx.x * T + tid) * CPT;
    const int active = col < n; /* VEC: n % 4 == 0, so the thread's 4 columns are all inside */
    const int kb = blockIdx.y * kc, ke = min(k, kb + kc);
    float acc[MT][CPT];
#pragma unroll
    for (int i = 0; i < MT; i++)
#pragma unroll
        for (int c = 0; c < CPT; c++)
            acc[i][c] = 0.0f;
    const float *bcol = B + (active ? col : 0);

    for (int k0 = kb; k0 < ke; k0 += KS) {
        const int kn = min(KS, ke - k0);
        __syncthreads(); /* the previous chunk's reads of As are done */
        for (int e = tid; e < KS * MT; e += T) {
            const int i = e / KS, kk = e % KS; /* a warp on consecutive k of one row */
            As[kk * MT + i] = i < m && kk < kn ? A[(size_t)i * k + k0 + kk] : 0.0f;
        }
        __syncthreads();
        if (!active)
            continue;
        const float *bp = bcol + (size_t)k0 * n;
        int kk = 0;
        for (; kk + U <= kn; kk += U) {
            float b[U][CPT];
#pragma unroll
            for (int u = 0; u < U; u++) {
                if constexpr (VEC) {
                    const float4 v = __ldg((const float4 *)(bp + (size_t)(kk + u) * n));
                    b[u][0] = v.x;
                    b[u][1] = v.y;
                    b[u][2] = v.z;
                    b[u][3] = v.w;
                } else {
                    b[u][0] = __ldg(bp + (size_t)(kk + u) * n);
                }
            }
#pragma unroll
            for (int u = 0; u < U; u++) {
                float a[MT];
                if constexpr (MT >= 4) {
#pragma unroll
                    for (int q = 0; q < MT / 4; q++) {
                        const float4 v = *(const float4 *)(As + (kk + u) * MT + q * 4);
                        a[q * 4 + 0] = v.x;
                        a[q * 4 + 1] = v.y;
                        a[q * 4 + 2] = v.z;
                        a[q * 4 + 3] = v.w;
                    }
                } else {
#pragma unroll
                    for (int i = 0; i < MT; i++)
                        a[i] = As[(kk + u) * MT + i];
                }
#pragma unroll
                for (int i = 0; i < MT; i++)
#pragma unroll
                    for (int c = 0; c < CPT; c++)
                        acc[i][c] = fmaf(a[i], b[u][c], acc[i][c]);
            }
        }
        for (; kk < kn; kk++) {
            float b[CPT];
            if constexpr (VEC) {
                const float4 v = __ldg((const float4 *)(bp + (size_t)kk * n));
                b[0] = v.x;
                b[1] = v.y;
                b[2] = v.z;
                b[3] = v.w;
            } else {
                b[0] = __ldg(bp + (size_t)kk * n);
            }
#pragma unroll
            for (int i = 0; i < MT; i++)
#pragma unroll
                for (int c = 0; c < CPT; c++)
                    acc[i][c] = fmaf(As[kk * MT + i], b[c], acc[i][c]);
        }
    }
    if (!active)
        return;
#pragma unroll
    for (int i = 0; i < MT; i++) {
        if (i >= m)
            break;
        float *p = C + (size_t)i * n + col;
        if constexpr (VEC) {
            const float4 v = make_float4(acc[i][0], acc[i][1], acc[i][2], acc[i][3]);
            if (atomic)
                sgemm_thin_atomic_add4(p, v);
            else
                *(float4 *)p = v;
        } else {
            if (atomic)
                atomicAdd(p, acc[i][0]);
            else
                *p = acc[i][0];
        }
    }
}

/* Thin-mw: B's rows kg .. kg+3 at this thread's COLS columns (col0 + c * 32;
 * bit c of cmask: inside n) into b, zeros past the split's k (ke) and past n. */
template <int COLS>
static __device__ __forceinline__ void sgemm_thin_mw_load(float (&b)[4][COLS], const float *__restrict__ B,
                                                          long long col0, int n, int kg, int ke, int cmask)
{
    const float *p = B + (size_t)kg * n + col0;
#pragma unroll
    for (int u = 0; u < 4; u++) {
        const int rok = kg + u < ke;
#pragma unroll
        for (int c = 0; c < COLS; c++)
            b[u][c] = rok && (cmask >> c & 1) ? __ldg(p + c * 32) : 0.0f;
        p += n;
    }
}

/* Thin-mw: copies A's rows 0 .. m-1 at k0 .. k0+KS-1 into As (MG x KS, a
 * thread on one k of every row: a warp's 4-byte copies on 32 consecutive k),
 * zero-filling k past kn; rows past m are the caller's (zeroed once). */
template <int MG>
static __device__ __forceinline__ void sgemm_thin_mw_stage(float *As, const float *__restrict__ A, int m, int k,
                                                           int k0, int kn, int tid)
{
    constexpr int KS = SGEMM_THIN_MW_KS;
    static_assert(KS == SGEMM_THIN_MW_THREADS, "one k of a row a thread");
    const int ok = tid < kn;
    const float *src = ok ? A + k0 + tid : A;
#pragma unroll 4
    for (int i = 0; i < MG; i++) {
        if (i >= m)
            break;
        cp_async4(As + i * KS + tid, src, ok ? 4 : 0);
        if (ok)
            src += k;
    }
}

/* Thin-mw: block (blockIdx.x, blockIdx.y) computes all MG (>= m) rows of C
 * at its threads' columns (a warp's lanes on 32 consecutive columns, COLS
 * such runs a warp) over k in [blockIdx.y * kc, + kc), A's rows staged KS k
 * at a time through two buffers (the next chunk's cp.async copies in flight
 * under this one's FMAs; rows past m and k past the chunk as zeros); B's
 * rows are loaded D steps of 4 k ahead of the FMAs that use them. atomic:
 * add into C (zeroed by the launcher). */
template <int MG>
static __global__ void __launch_bounds__(SGEMM_THIN_MW_THREADS, sgemm_thin_mw_minb(MG))
    sgemm_thin_mw_kernel(const float *__restrict__ A, const float *__restrict__ B, float *__restrict__ C, int m,
                         int n, int k, int kc, int atomic)
{
    constexpr int COLS = sgemm_thin_mw_cols(MG), D = sgemm_thin_mw_depth(MG), KS = SGEMM_THIN_MW_KS;
    constexpr int T = SGEMM_THIN_MW_THREADS;
    static_assert((MG * KS) % T == 0 && KS % 4 == 0, "A's chunk spreads evenly, read as float4 along k");
    __shared__ __align__(16) float As[2][MG * KS]; /* As[t % 2][i * KS + kk] = A[i][k0 + kk], chunk t */
    const int tid = threadIdx.x, lane = tid % 32, warp = tid / 32;
    const long long col0 = ((long long)blockIdx.x * (T / 32) + warp) * 32 * COLS + lane;
    const int kb = blockIdx.y * kc, ke = min(k, kb + kc);
    float acc[MG][COLS];
#pragma unroll
    for (int i = 0; i < MG; i++)
#pragma unroll
        for (int c = 0; c < COLS; c++)
            acc[i][c] = 0.0f;
    int cmask = 0;
#pragma unroll
    for (int c = 0; c < COLS; c++)
        cmask |= (col0 + c * 32 < n) << c;
    float bq[D][4][COLS]; /* B's next D steps, bq[0] the next */
#pragma unroll
    for (int d = 0; d < D; d++)
        sgemm_thin_mw_load<COLS>(bq[d], B, col0, n, kb + d * 4, ke, cmask);

    for (int e = tid; e < 2 * MG * KS; e += T) /* rows past m: zeros, never copied */
        if ((e % (MG * KS)) / KS >= m)
            As[e / (MG * KS)][e % (MG * KS)] = 0.0f;
    const int chunks = (ke - kb + KS - 1) / KS; /* >= 1: the launcher's grid has no empty split */
    sgemm_thin_mw_stage<MG>(As[0], A, m, k, kb, min(KS, ke - kb), tid);
    cp_async_commit();
    for (int t = 0; t < chunks; t++) {
        const int k0 = kb + t * KS, kn = min(KS, ke - k0);
        if (t + 1 < chunks)
            sgemm_thin_mw_stage<MG>(As[(t + 1) % 2], A, m, k, k0 + KS, min(KS, ke - k0 - KS), tid);
        cp_async_commit();
        cp_async_wait(1); /* this thread's copies of chunk t have landed */
        __syncthreads();  /* everyone's have (and the zeroed rows are written) */
        const float *Ac = As[t % 2];
#pragma unroll 1
        for (int kk = 0; kk < kn; kk += 4) {
            float b[4][COLS];
#pragma unroll
            for (int u = 0; u < 4; u++)
#pragma unroll
                for (int c = 0; c < COLS; c++) {
                    b[u][c] = bq[0][u][c];
#pragma unroll
                    for (int d = 0; d + 1 < D; d++)
                        bq[d][u][c] = bq[d + 1][u][c];
                }
            /* D steps ahead, in flight under the FMAs (past the chunk: the next chunk's rows of B) */
            sgemm_thin_mw_load<COLS>(bq[D - 1], B, col0, n, k0 + kk + 4 * D, ke, cmask);
#pragma unroll
            for (int i = 0; i < MG; i++) {
                const float4 a = *(const float4 *)(Ac + i * KS + kk); /* one address a warp: a broadcast */
#pragma unroll
                for (int c = 0; c < COLS; c++) {
                    acc[i][c] = fmaf(a.x, b[0][c], acc[i][c]);
                    acc[i][c] = fmaf(a.y, b[1][c], acc[i][c]);
                    acc[i][c] = fmaf(a.z, b[2][c], acc[i][c]);
                    acc[i][c] = fmaf(a.w, b[3][c], acc[i][c]);
                }
            }
        }
        __syncthreads(); /* chunk t's buffer is read before chunk t+2's copies into it */
    }
    cp_async_wait(0); /* no copy outlives the block (the empty trailing group) */
#pragma unroll
    for (int i = 0; i < MG; i++) {
        if (i >= m)
            break;
#pragma unroll
        for (int c = 0; c < COLS; c++) {
            if (cmask >> c & 1) {
                float *p = C + (size_t)i * n + col0 + c * 32;
                if (atomic)
                    atomicAdd(p, acc[i][c]);
                else
                    *p = acc[i][c];
            }
        }
    }
}

// ---- launchers ------------------------------------------------------------------

/* The split of `slabs` k-slabs for `units` blocks along m (or n) on `slots`
 * resident blocks: the count whose waves of blocks are best filled (useful
 * slab-time over the slots' time, each split `per` slabs, the last fewer),
 * at least min_per slabs a split; a larger count must beat a smaller by a
 * factor 1.02 (each split adds its partial C through atomics). */
static void sgemm_thin_split(long long units, long long slabs, long long slots, long long min_per,
                             long long max_splits, int *splits, int *per)
{
    long long best_s = 1, best_p = slabs;
    double best = (double)units / ((double)SGEMM_CEIL_DIV(units, slots) * slots);
    for (long long s = 2; s <= max_splits; s++) {
        const long long p = SGEMM_CEIL_DIV(slabs, s);
        if (p < min_per)
            break;
        if (SGEMM_CEIL_DIV(slabs, p) != s)
            continue; /* the same split as a smaller count */
        const long long blocks = units * s, waves = SGEMM_CEIL_DIV(blocks, slots);
        const double eff = (double)units * slabs / ((double)waves * slots * p);
        if (eff > best * 1.02) {
            best = eff;
            best_s = s;
            best_p = p;
        }
    }
    *splits = (int)best_s;
    *per = (int)best_p;
}

static int sgemm_thin_aligned(const void *p)
{
    return ((uintptr_t)p & 15) == 0;
}

/* Thin-n at NT columns, its 16-byte or 4-byte copies by n, k and the pointers. */
template <int NT>
static int sgemm_thin_n_launch(const float *A, const float *B, float *C, int m, int n, int k, int sms,
                               cudaStream_t stream)
{
    constexpr int BM = sgemm_thin_n_bm(NT);
    const int va = k % 4 == 0 && sgemm_thin_aligned(A), vb = n % 4 == 0 && sgemm_thin_aligned(B);
    const int which = va * 2 + vb;
    const void *kernels[4] = {(const void *)sgemm_thin_n_kernel<NT, 0, 0>, (const void *)sgemm_thin_n_kernel<NT, 0, 1>,
                              (const void *)sgemm_thin_n_kernel<NT, 1, 0>, (const void *)sgemm_thin_n_kernel<NT, 1, 1>};
    const void *kernel = kernels[which];
    const int smem_bytes = SGEMM_THIN_N_ST * sgemm_thin_n_stage(NT) * (int)sizeof(float);
    static unsigned long long opted_in[4];
    static int resident[4][64];
    int per_sm = 0;
    int err = smem_opt_in(kernel, smem_bytes, &opted_in[which]);
    if (err == 0)
        err = smem_resident_per_sm(kernel, SGEMM_THIN_THREADS, smem_bytes, resident[which], &per_sm);
    if (err != 0)
        return err;
    if (per_sm < 1)
        per_sm = 1;
    const long long units = SGEMM_CEIL_DIV((long long)m, BM), slabs = SGEMM_CEIL_DIV((long long)k, SGEMM_THIN_N_BK);
    int splits = 1, per = (int)slabs;
    sgemm_thin_split(units, slabs, (long long)sms * per_sm, 8, 64, &splits, &per);
    int flags = (splits > 1 ? SGEMM_THIN_ATOMIC : 0) | (n % 4 == 0 && sgemm_thin_aligned(C) ? SGEMM_THIN_VEC_C : 0);
    if (splits > 1) {
        const cudaError_t e = cudaMemsetAsync(C, 0, (size_t)m * n * sizeof(float), stream);
        if (e != cudaSuccess)
            return (int)e;
    }
    void *args[] = {(void *)&A, (void *)&B, (void *)&C, (void *)&m, (void *)&n, (void *)&k, (void *)&per, (void *)&flags};
    const dim3 grid((unsigned)units, (unsigned)splits);
    const cudaError_t e = cudaLaunchKernel(kernel, grid, dim3(SGEMM_THIN_THREADS), args, (size_t)smem_bytes, stream);
    return e != cudaSuccess ? (int)e : (int)cudaGetLastError();
}

/* Thin-m with MT rows of accumulators, VEC by n and the pointers. */
template <int MT>
static int sgemm_thin_m_launch(const float *A, const float *B, float *C, int m, int n, int k, int sms,
                               cudaStream_t stream)
{
    const int vec = n % 4 == 0 && sgemm_thin_aligned(B) && sgemm_thin_aligned(C);
    const void *kernel = vec ? (const void *)sgemm_thin_m_kernel<MT, 1> : (const void *)sgemm_thin_m_kernel<MT, 0>;
    const long long cols = (long long)SGEMM_THIN_THREADS * (vec ? 4 : 1);
    const long long units = SGEMM_CEIL_DIV((long long)n, cols);
    /* about 4 blocks an SM, each at least 64 k (a split's atomics against its B rows) */
    long long splits = SGEMM_CEIL_DIV(4LL * sms, units);
    long long kc = SGEMM_CEIL_DIV((long long)k, splits);
    if (kc < 64)
        kc = k < 64 ? k : 64;
    splits = SGEMM_CEIL_DIV((long long)k, kc);
    if (splits > 65535) { /* grid.y's limit */
        kc = SGEMM_CEIL_DIV((long long)k, 65535);
        splits = SGEMM_CEIL_DIV((long long)k, kc);
    }
    int atomic = splits > 1, kci = (int)kc;
    if (atomic) {
        const cudaError_t e = cudaMemsetAsync(C, 0, (size_t)m * n * sizeof(float), stream);
        if (e != cudaSuccess)
            return (int)e;
    }
    void *args[] = {(void *)&A, (void *)&B, (void *)&C, (void *)&m, (void *)&n, (void *)&k, (void *)&kci, (void *)&atomic};
    const dim3 grid((unsigned)units, (unsigned)splits);
    const cudaError_t e = cudaLaunchKernel(kernel, grid, dim3(SGEMM_THIN_THREADS), args, 0, stream);
    return e != cudaSuccess ? (int)e : (int)cudaGetLastError();
}

/* Thin-mw with MG rows of accumulators: the split of k (in KS-chunks, at
 * least SGEMM_THIN_MW_MIN_PER a split) that spreads the blocks most evenly
 * over the SMs with enough of them resident, net of its atomic adds. */
template <int MG>
static int sgemm_thin_mw_launch(const float *A, const float *B, float *C, int m, int n, int k, int sms,
                                cudaStream_t stream)
{
    constexpr int COLS = sgemm_thin_mw_cols(MG);
    const void *kernel = (const void *)sgemm_thin_mw_kernel<MG>;
    static int resident[64];
    int per_sm = 0;
    const int err = smem_resident_per_sm(kernel, SGEMM_THIN_MW_THREADS, 0, resident, &per_sm);
    if (err != 0)
        return err;
    if (per_sm < 1)
        per_sm = 1;
    const long long units = SGEMM_CEIL_DIV((long long)n, (long long)SGEMM_THIN_MW_THREADS * COLS);
    const long long chunks = SGEMM_CEIL_DIV((long long)k, SGEMM_THIN_MW_KS);
    /* FMA-bound, so an SM's time is its share of the blocks (ceil(blocks /
     * SMs) of them, however many are resident at once): the split whose
     * blocks spread most evenly over the SMs, scaled down while the grid
     * fills under 7/8 of the resident slots (too few warps to hide DRAM
     * latency), each split's time stretched by its m x n atomic adds
     * (counted like the k x n floats of B it reads: C is in L2, B in DRAM,
     * so this leans to fewer splits) */
    const long long slots = (long long)sms * per_sm;
    long long best_s = 1, best_p = chunks;
    double best = -1.0;
    for (long long sp = 1; sp <= 64; sp++) {
        const long long p = SGEMM_CEIL_DIV(chunks, sp);
        if (sp > 1 && p < SGEMM_THIN_MW_MIN_PER)
            break;
        if (SGEMM_CEIL_DIV(chunks, p) != sp)
            continue; /* the same split as a smaller count */
        const long long blocks = units * sp;
        const double even = (double)units * chunks / ((double)SGEMM_CEIL_DIV(blocks, (long long)sms) * sms * p);
        const double fill = 8.0 * blocks >= 7.0 * slots ? 1.0 : 8.0 * blocks / (7.0 * slots);
        const double eff = even * fill / (1.0 + (double)sp * m / k);
        if (eff > best) {
            best = eff;
            best_s = sp;
            best_p = p;
        }
    }
    int splits = (int)best_s, per = (int)best_p;
    int atomic = splits > 1, kc = per * SGEMM_THIN_MW_KS;
    if (atomic) {
        const cudaError_t e = cudaMemsetAsync(C, 0, (size_t)m * n * sizeof(float), stream);
        if (e != cudaSuccess)
            return (int)e;
    }
    void *args[] = {(void *)&A, (void *)&B, (void *)&C, (void *)&m, (void *)&n, (void *)&k, (void *)&kc, (void *)&atomic};
    const dim3 grid((unsigned)units, (unsigned)splits);
    const cudaError_t e = cudaLaunchKernel(kernel, grid, dim3(SGEMM_THIN_MW_THREADS), args, 0, stream);
    return e != cudaSuccess ? (int)e : (int)cudaGetLastError();
}

/* The kernel names thin-n and thin-m note (index: log2(NT) - 3, log2(MT)). */
static const char *const sgemm_thin_n_names[4] = {"thin_n8_128x8x32_t2x4_s3", "thin_n16_128x16x32_t4x4_s3",
                                                  "thin_n32_128x32x32_t8x4_s3", "thin_n64_128x64x32_t8x8_s3"};
static const char *const sgemm_thin_m_names[4] = {"thin_m1_128t", "thin_m2_128t", "thin_m4_128t", "thin_m8_128t"};

/* The name thin-n notes at n (<= 64). */
static const char *sgemm_thin_n_name(int n)
{
    return sgemm_thin_n_names[n <= 8 ? 0 : n <= 16 ? 1 : n <= 32 ? 2 : 3];
}

static const char *sgemm_thin_m_name(int m)
{
    return sgemm_thin_m_names[m <= 1 ? 0 : m <= 2 ? 1 : m <= 4 ? 2 : 3];
}

/* The kernel names thin-mw notes (index: MG / 8 - 2): rows of accumulators,
 * threads, a thread's register tile (rows x columns), A's chunk of k. */
static const char *const sgemm_thin_mw_names[7] = {
    "thin_mw16_64t_r16x2_ks64", "thin_mw24_64t_r24x2_ks64", "thin_mw32_64t_r32x2_ks64",
    "thin_mw40_64t_r40x2_ks64", "thin_mw48_64t_r48x2_ks64", "thin_mw56_64t_r56x2_ks64",
    "thin_mw64_64t_r64x2_ks64"};

/* The name thin-mw notes at m (<= 64): MG the smallest multiple of 8, at least 16, >= m. */
static const char *sgemm_thin_mw_name(int m)
{
    const int mg = m <= 16 ? 16 : SGEMM_CEIL_DIV(m, 8) * 8;
    return sgemm_thin_mw_names[(mg > 64 ? 64 : mg) / 8 - 2];
}

/* Thin-n at any n <= 64: the narrowest tile; notes its kernel. */
static int sgemm_thin_n(const float *A, const float *B, float *C, int m, int n, int k, int sms, cudaStream_t stream)
{
    const int vec = k % 4 == 0 && n % 4 == 0 && sgemm_thin_aligned(A) && sgemm_thin_aligned(B);
    kernel_ran_note(sgemm_thin_n_name(n), vec ? NULL : SGEMM_THIN_N_SCALAR_REASON);
    if (n <= 8)
        return sgemm_thin_n_launch<8>(A, B, C, m, n, k, sms, stream);
    if (n <= 16)
        return sgemm_thin_n_launch<16>(A, B, C, m, n, k, sms, stream);
    if (n <= 32)
        return sgemm_thin_n_launch<32>(A, B, C, m, n, k, sms, stream);
    return sgemm_thin_n_launch<64>(A, B, C, m, n, k, sms, stream);
}

/* Thin-m at any m <= 8; notes its kernel. */
static int sgemm_thin_m(const float *A, const float *B, float *C, int m, int n, int k, int sms, cudaStream_t stream)
{
    const int vec = n % 4 == 0 && sgemm_thin_aligned(B) && sgemm_thin_aligned(C);
    kernel_ran_note(sgemm_thin_m_name(m), vec ? NULL : SGEMM_THIN_M_SCALAR_REASON);
    if (m <= 1)
        return sgemm_thin_m_launch<1>(A, B, C, m, n, k, sms, stream);
    if (m <= 2)
        return sgemm_thin_m_launch<2>(A, B, C, m, n, k, sms, stream);
    if (m <= 4)
        return sgemm_thin_m_launch<4>(A, B, C, m, n, k, sms, stream);
    return sgemm_thin_m_launch<8>(A, B, C, m, n, k, sms, stream);
}

/* Thin-mw at any m <= 64 (the rule takes it at 8 < m, where B is wide);
 * notes its kernel. One kernel for every n and k: B read by 4-byte loads, a
 * warp's on 128 contiguous bytes, at any alignment. */
static int sgemm_thin_mw(const float *A, const float *B, float *C, int m, int n, int k, int sms,
                         cudaStream_t stream)
{
    kernel_ran_note(sgemm_thin_mw_name(m), NULL);
    if (m <= 16)
        return sgemm_thin_mw_launch<16>(A, B, C, m, n, k, sms, stream);
    if (m <= 24)
        return sgemm_thin_mw_launch<24>(A, B, C, m, n, k, sms, stream);
    if (m <= 32)
        return sgemm_thin_mw_launch<32>(A, B, C, m, n, k, sms, stream);
    if (m <= 40)
        return sgemm_thin_mw_launch<40>(A, B, C, m, n, k, sms, stream);
    if (m <= 48)
        return sgemm_thin_mw_launch<48>(A, B, C, m, n, k, sms, stream);
    if (m <= 56)
        return sgemm_thin_mw_launch<56>(A, B, C, m, n, k, sms, stream);
    return sgemm_thin_mw_launch<64>(A, B, C, m, n, k, sms, stream);
}

#endif
