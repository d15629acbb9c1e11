/* kernels/sgemm_tf32_wgmma.cuh: TF32 SGEMM on Hopper warpgroup MMA
 * (wgmma.mma_async), as a template over its tile shape, and the table of
 * shape candidates. Compiled for sm_90a only.
 *
 * Included by kernels/sgemm_tf32_wgmma.cu (the variant tf32_wgmma: the two
 * candidates it picks, by name) and kernels/search/
 * sgemm_tf32_wgmma_search.cu (every row of SGEMM_WG_CANDIDATES, for
 * compare-search only). Names tf32_wgmma_mBMnBNk32_sST (block tile BM rows
 * of C x BN columns of C, k slab 32, ST-stage cp.async ring).
 *
 * Idea
 *   C = A * B, FP32 in and out, TF32 products, FP32 accumulation, on
 *   wgmma.mma_async.sync.aligned.m64nNk8.f32.tf32.tf32 (N = 128 or 256): one
 *   instruction per warpgroup (4 warps, 128 threads) computes a 64 x N x 8
 *   product asynchronously; the tensor core reads the "B" operand straight
 *   from shared memory through a matrix descriptor.
 *
 *   Operand roles. For .tf32, both shared-memory operands must be K-major
 *   (PTX ISA, wgmma.mma_async: the transpose immediates imm-trans-a/b exist
 *   only for .f16/.bf16; for other types the matrices are K-major). A (m x k,
 *   row-major) is K-major, B (k x n, row-major) is N-major. So the kernel
 *   computes C^T = B^T A^T:
 *     wgmma "A" (M = 64 rows, K = 8)  = B^T tile: rows are n, columns k. It comes
 *       from REGISTERS (the RS form, allowed for .tf32), loaded with plain
 *       LDS.64 from a row-major k x n B tile in shared memory, so B never needs
 *       a K-major copy: no transpose pass, no scratch.
 *     wgmma "B" (K = 8, N = 128/256) = A^T tile: element (kk, mm) = A[mm][kk];
 *       in shared memory each m row of A holds its 32 k values contiguously =
 *       K-major, exactly what the descriptor form wants. Loaded by 16-byte
 *       cp.async straight from A, into the 128-byte-swizzled layout.
 *     wgmma D (64 x N) = C^T tile: row = n, column = m.
 *   Each warpgroup owns 64 n columns of C; the block has NWG warpgroups
 *   (BN = 64 NWG) sharing one A tile of BM = N rows of C.
 *
 *   Pipeline (one __syncthreads per 32-wide k slab, no producer/consumer split,
 *   no TMA, no mbarrier: nothing can wait forever):
 *     prologue: slabs 0 .. ST-2 issued by cp.async, one commit group each.
 *     slab kt:  cp.async.wait_group ST-2      (own copies of slab kt landed)
 *               fence.proxy.async.shared::cta (make them visible to wgmma, which
 *                                              reads shared memory through the
 *                                              async proxy)
 *               __syncthreads                 (everyone's copies landed; every
 *                                              warpgroup has retired slab kt-1)
 *               cp.async slab kt+ST-1 into the stage of slab kt-1; commit
 *               LDS the B^T fragments of slab kt (16 registers / thread)
 *               wgmma.fence; 4 x wgmma (k steps 0..3); wgmma.commit_group
 *               wgmma.wait_group 0
 *     Why wait_group 0 and not 1: ptxas (CUDA 13.0) serialises every wgmma
 *     of the kernel (warning C7513, "non wgmma instructions defining input
 *     registers of a wgmma between start and end of the pipeline stage") as
 *     soon as any wgmma input register (here the A fragments of the next slab)
 *     is written while an earlier wgmma group of the warpgroup is in flight,
 *     even into a disjoint register set (tried: two fragment sets, loop
 *     unrolled by two, wait_group 1: serialised). So a warpgroup cannot
 *     overlap its own fragment loads with its own MMAs in the RS form; the
 *     tensor core is kept busy by the other warpgroup or the other resident
 *     block instead (candidates with MINB 2). The next step is
 *     sgemm_tf32_tma.cu (variant tf32_tma): TMA copies, an mbarrier ring
 *     instead of the block barrier, and ping-pong issue order between the
 *     two warpgroups. (Its _db candidates, two fragment sets written between
 *     wait_group 1 and the next fence, compiled without C7513 there, but ran
 *     slower.)
 *     Epilogue: float2 stores straight from the accumulators (each store
 *     instruction writes four 64-byte row segments).
 *   - TF32 rounding: the raw FP32 bits go to the tensor core, which ignores the
 *     low 13 mantissa bits (truncation), as the _trunc mma.sync candidates.
 *   - Grouped rasterisation: consecutive blocks walk 8 block-rows of C.
 *
 * Layout derivation (lane = tid % 32, g = lane >> 2, t = lane & 3, w = warp in
 * the warpgroup = (tid / 32) % 4)
 *   wgmma A from registers, .tf32, 64 x 8 (PTX ISA "Register fragments and
 *   shared memory matrix layouts", wgmma 64N8 A; CUTLASS cute ALayout_64x8 =
 *   ((4,8,4),(2,2)):((64,1,16),(8,256)) in (m + 64 k) coordinates):
 *     a0 = A[16w + g][t]   a1 = A[16w + g + 8][t]   a2 = A[16w + g][t + 4]
 *     a3 = A[16w + g + 8][t + 4]
 *   wgmma D, .f32, 64 x N (CUTLASS CLayout_64xN =
 *   ((4,8,4),(2,2,N/8)):((128,1,16),(64,8,512))):
 *     d[4j + v0 + 2 v1] = D[16w + g + 8 v1][8j + 2t + v0],  j = 0 .. N/8 - 1
 *   Row permutation (free, undone at the store): inside each warp's 16 rows,
 *   wgmma row r = c + 8h (c = 0..7, h = 0/1) is physical n column 2c + h of
 *   the tile. Then (a0, a1) = B_s[k = t][nw + 2g .. +1] and (a2, a3) =
 *   B_s[k = t + 4][nw + 2g .. +1] (nw = 64 wg + 16 w): two LDS.64 per k step;
 *   and d[4j] / d[4j + 2] are C[m0][n0], C[m0][n0 + 1], d[4j + 1] / d[4j + 3]
 *   are C[m0 + 1][n0], C[m0 + 1][n0 + 1] with m0 = bm0 + 8j + 2t, n0 = bn0 +
 *   nw + 2g: float2 stores.
 *   B_s: 32 k rows x (BN + 8) floats; BN + 8 = 8 (mod 32) banks, so a half warp
 *   of an LDS.64 (t = 0..3, 4 consecutive g) hits banks 8t + 2g + {0, 1}: no
 *   conflict.
 *   A_s (wgmma "B", K-major, 128-byte swizzle): BM rows of 128 bytes (the 32
 *   floats of the slab); 16-byte chunk c of row r is stored at byte
 *   r * 128 + ((c ^ (r & 7)) << 4) of a 1024-byte-aligned stage. That is the
 *   canonical K-major SWIZZLE_128B layout (cute Swizzle<3,4,3>: address bits
 *   [4,7) ^= bits [7,10)): 8-row x 128-byte atoms, atoms 1024 bytes apart
 *   along N.
 *   Descriptor (PTX ISA "Matrix Descriptor Format"): bits 0-13 start address
 *   >> 4, bits 16-29 leading-dimension byte offset >> 4 (unused for K-major
 *   swizzled layouts whose K extent per instruction, 8 x 4 = 32 bytes, lies
 *   inside the 128-byte swizzle row; set to 1), bits 32-45 stride byte offset
 *   >> 4 = 1024 >> 4 = 64 (distance between 8-row core-matrix groups along N),
 *   bits 49-51 base offset = 0 (stages 1024-byte aligned), bits 62-63 = 1
 *   (128-byte swizzle). k step j (8 floats) of the slab starts 32 j bytes into
 *   the row: start address + 32 j; the swizzle is applied by the hardware on
 *   the absolute address bits, which matches the XOR used by the stores above
 *   (chunk 2j + c' of row r, c' = 0, 1, lands at (2j + c') ^ (r & 7)).
 *
 * Constraints (why)
 *   - n % 4 == 0 and k % 4 == 0 (rows of A and B are whole 16-byte cp.async
 *     chunks), A and B 16-byte aligned, C 8-byte aligned (float2 stores).
 *     Otherwise the launcher returns cudaErrorNotSupported. Any m >= 1.
 *     Edges: chunks outside m, n or k are zero-filled (cp.async src-size 0),
 *     so they add 0 to the sums; every C store is predicated.
 *   - sm_90a only (wgmma): the kernel bodies compile only where
 *     __CUDA_ARCH_FEAT_SM90_ALL is defined (nvcc 13.0 defines it, and
 *     __CUDA_ARCH_SPECIFIC__, for -gencode arch=compute_90a,code=sm_90a); in
 *     any other device pass they are empty. A binary without an sm_90a image
 *     fails at the launch (no kernel image), never silently.
 *   - Tile constraints are static_asserts per candidate (whole loader passes,
 *     shared memory per block and per SM, stage alignment).
 *   - The max-dynamic-shared-memory attribute is set once per kernel per
 *     process.
 */
#ifndef KERNELS_SGEMM_TF32_WGMMA_CUH
#define KERNELS_SGEMM_TF32_WGMMA_CUH

#include <stdint.h>

#include <cuda_runtime.h>

#include "candidate_name.cuh"
#include "cp_async.cuh"
#include "sgemm_wgmma_common.cuh"
#include "smem.cuh"

// ---- fixed parameters ----------------------------------------------------------

#define SGEMM_WG_BK 32            /* k slab per stage: 4 wgmma k steps, one 128-byte row */

/* derived sizes of a candidate: NWG warpgroups, BM = wgmma N (rows of C), ST stages */
#define SGEMM_WG_THREADS_OF(NWG) (128 * (NWG))
#define SGEMM_WG_BN_OF(NWG) (64 * (NWG))
#define SGEMM_WG_BS_OF(NWG) (SGEMM_WG_BN_OF(NWG) + 8)            /* B_s row stride, floats */
#define SGEMM_WG_ASTAGE_BYTES(BM) ((BM) * SGEMM_WG_BK * 4)         /* multiple of 1024 */
#define SGEMM_WG_BSTAGE_BYTES(NWG) (SGEMM_WG_BK * SGEMM_WG_BS_OF(NWG) * 4)
/* + 1024: the base is rounded up to a 1024-byte boundary inside the allocation */
#define SGEMM_WG_SMEM_BYTES_OF(NWG, BM, ST) \
    ((ST) * (SGEMM_WG_ASTAGE_BYTES(BM) + SGEMM_WG_BSTAGE_BYTES(NWG)) + 1024)

// ---- device helpers ----------------------------------------------------------

/* generic-proxy writes to shared memory (the cp.async data) -> async-proxy reads (wgmma) */
static __device__ __forceinline__ void sgemm_wg_fence_proxy_async(void)
{
    asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
}

// ---- kernel body -----------------------------------------------------------------


/* Issue the cp.async copies of k slab kt into stage buffers a_s (BM rows x 128
 * bytes, swizzled) and b_s (32 rows x BS floats). Out-of-range chunks are zero-filled. */
static __device__ __forceinline__ void sgemm_wg_load(const float *A, const float *B, int m, int n,
                                                     int k, int bm0, int bn0, int kt,
                                                     unsigned a_s, unsigned b_s, const int NWG,
                                                     const int BM)
{
    const int T = SGEMM_WG_THREADS_OF(NWG);
    const int BN = SGEMM_WG_BN_OF(NWG);
    const int BS = SGEMM_WG_BS_OF(NWG);
    const int tid = threadIdx.x;
    const int k0 = kt * SGEMM_WG_BK;
#pragma unroll
    for (int i = 0; i < BM * 8 / T; i++) {
        const int idx = tid + i * T;
        const int r = idx >> 3, c = idx & 7;
        const int gm = bm0 + r, gk = k0 + 4 * c;
        const int valid = gm < m && gk < k;
        const float *src = valid ? A + (size_t)gm * k + gk : A;
        cp_async16_to(a_s + r * 128 + ((c ^ (r & 7)) << 4), src, valid ? 16 : 0);
    }
#pragma unroll
    for (int i = 0; i < SGEMM_WG_BK * BN / 4 / T; i++) {
        const int idx = tid + i * T;
        const int r = idx / (BN / 4), c = idx % (BN / 4);
        const int gk = k0 + r, gn = bn0 + 4 * c;
        const int valid = gk < k && gn < n;
        const float *src = valid ? B + (size_t)gk * n + gn : B;
        cp_async16_to(b_s + (r * BS + 4 * c) * 4, src, valid ? 16 : 0);
    }
}

/* One k slab: barrier, refill, fragment loads, 4 wgmma, retire them. */
static __device__ __forceinline__ void sgemm_wg_slab(const float *A, const float *B, int m, int n,
                                                     int k, int bm0, int bn0, int kt, int KT,
                                                     unsigned smem, const float *bsm, float *d,
                                                     unsigned *f, const int NWG, const int BM,
                                                     const int ST)
{
    const int BS = SGEMM_WG_BS_OF(NWG);
    const int tid = threadIdx.x;
    const int lane = tid & 31, g = lane >> 2, t = lane & 3;
    const int nw = (tid >> 5) * 16; /* 64 wg + 16 w: this warp's 16 n columns */

    cp_async_wait(ST - 2);
    sgemm_wg_fence_proxy_async();
    __syncthreads();
    {
        const int ks = kt + ST - 1; /* into the stage of slab kt - 1, retired by everyone */
        if (ks < KT) {
            const int s = ks % ST;
            sgemm_wg_load(A, B, m, n, k, bm0, bn0, ks, smem + s * SGEMM_WG_ASTAGE_BYTES(BM),
                          smem + ST * SGEMM_WG_ASTAGE_BYTES(BM) + s * SGEMM_WG_BSTAGE_BYTES(NWG),
                          NWG, BM);
        }
        cp_async_commit();
    }
    const int s = kt % ST;
    const float *b_s = bsm + s * (SGEMM_WG_BSTAGE_BYTES(NWG) / 4) + nw + 2 * g;
#pragma unroll
    for (int j = 0; j < 4; j++) {
        const float2 lo = *(const float2 *)(b_s + (8 * j + t) * BS);
        const float2 hi = *(const float2 *)(b_s + (8 * j + t + 4) * BS);
        f[4 * j + 0] = __float_as_uint(lo.x);
        f[4 * j + 1] = __float_as_uint(lo.y);
        f[4 * j + 2] = __float_as_uint(hi.x);
        f[4 * j + 3] = __float_as_uint(hi.y);
    }
    sgemm_wg_mma_slab(d, f, smem + s * SGEMM_WG_ASTAGE_BYTES(BM), BM);
    sgemm_wg_wait0();
}

static __device__ __forceinline__ void sgemm_wg_body(const float *A, const float *B, float *C,
                                                     int m, int n, int k, const int NWG,
                                                     const int BM, const int ST)
{
    extern __shared__ float4 sgemm_wg_smem4[];
    const int BN = SGEMM_WG_BN_OF(NWG);
    const unsigned raw = smem_u32(sgemm_wg_smem4);
    const unsigned smem = (raw + 1023u) & ~1023u; /* stages of A_s, then stages of B_s */
    const float *bsm = (const float *)((const char *)sgemm_wg_smem4 + (smem - raw) +
                                       ST * SGEMM_WG_ASTAGE_BYTES(BM));
    int bm0, bn0;
    tile_order_origin(blockIdx.x, m, n, BM, BN, SGEMM_WG_GROUP_M, &bm0, &bn0);
    const int KT = (k + SGEMM_WG_BK - 1) / SGEMM_WG_BK;

    for (int s = 0; s < ST - 1; s++) {
        if (s < KT)
            sgemm_wg_load(A, B, m, n, k, bm0, bn0, s, smem + s * SGEMM_WG_ASTAGE_BYTES(BM),
                          smem + ST * SGEMM_WG_ASTAGE_BYTES(BM) + s * SGEMM_WG_BSTAGE_BYTES(NWG),
                          NWG, BM);
        cp_async_commit();
    }

    float d[128];
#pragma unroll
    for (int i = 0; i < BM / 2; i++) {
        d[i] = 0.0f;
        sgemm_wg_fence_operand(&d[i]); /* zeroed before the first wgmma.fence */
    }
    unsigned f[16]; /* B^T fragments of the current slab */

    for (int kt = 0; kt < KT; kt++)
        sgemm_wg_slab(A, B, m, n, k, bm0, bn0, kt, KT, smem, bsm, d, f, NWG, BM, ST);
#pragma unroll
    for (int i = 0; i < BM / 2; i++)
        sgemm_wg_fence_operand(&d[i]);

    /* epilogue: d[4j + v0 + 2 v1] = C[bm0 + 8j + 2t + v0][bn0 + nw + 2g + v1] */
    const int tid = threadIdx.x;
    const int lane = tid & 31, g = lane >> 2, t = lane & 3;
    const int n0 = bn0 + (tid >> 5) * 16 + 2 * g;
    if (n0 < n) { /* n % 4 == 0 and n0 even: n0 + 1 < n too */
#pragma unroll
        for (int j = 0; j < BM / 8; j++) {
            const int m0 = bm0 + 8 * j + 2 * t;
            if (m0 < m)
                *(float2 *)(C + (size_t)m0 * n + n0) = make_float2(d[4 * j + 0], d[4 * j + 2]);
            if (m0 + 1 < m)
                *(float2 *)(C + (size_t)(m0 + 1) * n + n0) =
                    make_float2(d[4 * j + 1], d[4 * j + 3]);
        }
    }
}

// ---- candidates ------------------------------------------------------------------

/* X(NAME, BM, BN, ST, MINB): BM rows of C (= wgmma N, 128 or 256), BN = 64 NWG
 * columns of C (NWG warpgroups), ST stages, MINB blocks per SM in
 * __launch_bounds__. NAME = tf32_wgmma_mBMnBNk32_sST, checked at compile time. */
#define SGEMM_WG_CANDIDATES(X)                                                                     \
    X(tf32_wgmma_m256n128k32_s4, 256, 128, 4, 1) /* 256 x 128, 256 thr, 201728 B */             \
    X(tf32_wgmma_m128n128k32_s5, 128, 128, 5, 1) /* 128 x 128, 256 thr, 169984 B */             \
    X(tf32_wgmma_m128n128k32_s3, 128, 128, 3, 2) /* 128 x 128, 256 thr, 102400 B */             \
    X(tf32_wgmma_m256n64k32_s2, 256, 64, 2, 2)   /* 256 x  64, 128 thr,  84992 B */

typedef struct {
    int bm, bn, st, minb; /* as in SGEMM_WG_CANDIDATES */
    const char *name;     /* the row's NAME (a static string) */
} sgemm_wg_cfg;

#define SGEMM_WG_CFG_ROW(NAME, BM, BN, ST, MINB)                                                   \
    static constexpr sgemm_wg_cfg sgemm_wg_cfg_##NAME = {BM, BN, ST, MINB, #NAME};                 \
    static_assert(candidate_name_is(#NAME, "tf32_wgmma_m" #BM "n" #BN "k32_s" #ST),                \
                  "the candidate's name says its parameters");
SGEMM_WG_CANDIDATES(SGEMM_WG_CFG_ROW)

/* The row named NAME (expanded first); an unknown name does not compile. */
#define SGEMM_WG_CFG(NAME) SGEMM_WG_CFG_(NAME)
#define SGEMM_WG_CFG_(NAME) sgemm_wg_cfg_##NAME
#define SGEMM_WG_ARGS(c) c.bm, c.bn, c.st, c.minb

/* The kernel of one candidate; its body compiles only where wgmma exists
 * (__CUDA_ARCH_FEAT_SM90_ALL: the sm_90a pass), elsewhere it is empty and
 * never launched. */
template <int BM, int BN, int ST, int MINB>
static __global__ void __launch_bounds__(SGEMM_WG_THREADS_OF(BN / 64), MINB)
sgemm_wg_kernel(const float *__restrict__ A, const float *__restrict__ B, float *__restrict__ C,
                int m, int n, int k)
{
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
    sgemm_wg_body(A, B, C, m, n, k, BN / 64, BM, ST);
#endif
}

/* Runs the candidate on a 1-D grid of tiles (sets the dynamic shared-memory
 * attribute once per process); cudaErrorNotSupported for a shape it declines
 * (sgemm_wg_decline). */
template <int BM, int BN, int ST, int MINB>
static int sgemm_wg_run(const float *A, const float *B, float *C, int m, int n, int k,
                        cudaStream_t stream)
{
    constexpr int NWG = BN / 64;
    constexpr int SMEM = SGEMM_WG_SMEM_BYTES_OF(NWG, BM, ST);
    static_assert(BM == 128 || BM == 256, "wgmma N: the n128 and n256 wrappers");
    static_assert(BN % 64 == 0 && NWG >= 1 && NWG <= 4, "1 to 4 warpgroups, whole 64-column slices");
    static_assert((BM * 8) % SGEMM_WG_THREADS_OF(NWG) == 0, "A loader: whole passes");
    static_assert((SGEMM_WG_BK * BN / 4) % SGEMM_WG_THREADS_OF(NWG) == 0, "B loader: whole passes");
    static_assert(SGEMM_WG_BS_OF(NWG) % 32 == 8, "B_s rows 8 banks apart (LDS.64 conflict free)");
    static_assert(SGEMM_WG_ASTAGE_BYTES(BM) % 1024 == 0, "A_s stages on 1024-byte swizzle atoms");
    static_assert(ST >= 2 && ST <= 5, "prefetch distance ST - 1, cp.async.wait_group ST - 2 <= 3");
    static_assert(SMEM_SM90_FITS(SMEM, MINB), "MINB blocks per SM fit in sm_90 shared memory");
    static unsigned long long attr_set; /* one bit per device */
    unsigned tiles;
    int rc = sgemm_wg_shape_ok(A, B, C, m, n, k);
    if (rc == 0)
        rc = sgemm_wg_prepare((const void *)sgemm_wg_kernel<BM, BN, ST, MINB>, &attr_set, SMEM, m, n,
                              BM, BN, &tiles);
    if (rc != 0)
        return rc;
    sgemm_wg_kernel<BM, BN, ST, MINB><<<tiles, SGEMM_WG_THREADS_OF(NWG), SMEM, stream>>>(A, B, C, m, n, k);
    return (int)cudaGetLastError();
}

#endif
