/* kernels/sgemm_warptile.cu: step 6 of the SGEMM ladder, warp tiling.
 *
 * Idea: as sgemm_vec4 (128x128 block tile, BK = 8, 256 threads, float4 global
 * loads, A transposed and padded in shared memory), with the block tile split
 * in three levels:
 *   block 128x128 -> 8 warps as 2 (m) x 4 (n) warp tiles of 64x32
 *   warp 64x32    -> 32 lanes as 8 (m) x 4 (n), each lane 2x2 sub-tiles of 4x4
 *   thread 8x8    =  rows {0,32} + lr*4 + [0,4), cols {0,16} + lc*4 + [0,4)
 *                    of its warp tile (lr = lane / 4, lc = lane % 4).
 * Why 4x4 sub-tiles: for one kk, the 8 lanes of a warp along m read 8
 * consecutive float4 of As (128 bytes) and the 4 lanes along n read 4
 * consecutive float4 of Bs (64 bytes); each LDS.128 of the warp is then one
 * shared-memory pass with no bank conflict, where step 5's contiguous 8x8
 * thread tiles made B's reads span 512 bytes (two passes). Per kk a thread
 * issues 4 LDS.128 for 64 FFMA. A warp's working set is also smaller (64x32
 * of C reads 64 + 32 floats per kk), which is what keeps it in one pass.
 *
 * Constraints: any m, n, k >= 1. float4 global accesses need k % 4 == 0 (A)
 * and n % 4 == 0 (B, C): the launcher picks the float4 kernel then, else the
 * same kernel with predicated scalar accesses. Elements outside the matrix are
 * zero-filled in shared memory; stores of C are predicated per element.
 *
 * Run just this variant: ./compare --variants warptile */
#include "kernel_ran.h"
#include "sgemm.h"
#include "sgemm_common.cuh"

#define WT_BM 128     /* rows of C per block */
#define WT_BN 128     /* columns of C per block */
#define WT_BK 8       /* k-slab per shared-memory tile */
#define WT_WM 64      /* rows of C per warp */
#define WT_WN 32      /* columns of C per warp */
#define WT_LANES_M 8  /* lanes of a warp along m */
#define WT_LANES_N 4  /* lanes of a warp along n */
#define WT_PAD 4      /* floats of padding per As row: conflict-free transposing stores */
#define WT_WARPS_N (WT_BN / WT_WN)
#define WT_THREADS (32 * (WT_BM / WT_WM) * (WT_BN / WT_WN))
#define WT_SUB_M (WT_WM / (WT_LANES_M * 4)) /* 4x4 sub-tiles per thread along m */
#define WT_SUB_N (WT_WN / (WT_LANES_N * 4)) /* 4x4 sub-tiles per thread along n */
#define WT_TM (WT_SUB_M * 4)                /* rows of C per thread */
#define WT_TN (WT_SUB_N * 4)                /* columns of C per thread */

static_assert(WT_LANES_M * WT_LANES_N == 32, "a warp is 32 lanes");
static_assert(WT_BM % WT_WM == 0 && WT_BN % WT_WN == 0, "warp tiles must cover the block tile");
static_assert(WT_WM % (WT_LANES_M * 4) == 0 && WT_WN % (WT_LANES_N * 4) == 0,
              "4x4 sub-tiles must cover the warp tile");
static_assert(WT_THREADS == 256 && WT_TM == 8 && WT_TN == 8, "launch bounds assume 256 threads of 8x8");
static_assert(WT_BM * WT_BK / 4 == WT_THREADS, "one 4-float chunk of A per thread per k-slab");
static_assert(WT_BK * WT_BN / 4 == WT_THREADS, "one 4-float chunk of B per thread per k-slab");
static_assert(((WT_BM + WT_PAD) * 4) % 16 == 0, "As rows must stay 16-byte aligned for LDS.128");
static_assert((WT_BM + WT_PAD) % 32 == 4, "pad chosen so the two chunks of a warp hit disjoint banks");

// ---- kernel ------------------------------------------------------------------------

/* vec: 1 = float4 global accesses (k % 4 == 0 and n % 4 == 0), 0 = scalar.
 * Always inlined into the two kernels below with a constant. */
static __device__ __forceinline__ void sgemm_warptile_body(const float *__restrict__ A,
                                                           const float *__restrict__ B,
                                                           float *__restrict__ C, int m, int n,
                                                           int k, int vec)
{
    __shared__ __align__(16) float As[WT_BK][WT_BM + WT_PAD]; /* A tile, transposed */
    __shared__ __align__(16) float Bs[WT_BK][WT_BN];          /* B tile */

    const int tid = threadIdx.x;
    const int bm = blockIdx.y * WT_BM;
    const int bn = blockIdx.x * WT_BN;
    const int warp = tid / 32, lane = tid % 32;
    const int wm0 = (warp / WT_WARPS_N) * WT_WM; /* warp tile origin in the block tile */
    const int wn0 = (warp % WT_WARPS_N) * WT_WN;
    const int lr = lane / WT_LANES_N, lc = lane % WT_LANES_N;
    const int tm0 = wm0 + lr * 4; /* thread rows: tm0 + si * (LANES_M*4) + [0,4) */
    const int tn0 = wn0 + lc * 4; /* thread cols: tn0 + sj * (LANES_N*4) + [0,4) */

    /* Global-load assignment (as in sgemm_vec4). */
    const int a_r = tid / (WT_BK / 4), a_c = (tid % (WT_BK / 4)) * 4;
    const int b_r = tid / (WT_BN / 4), b_c = (tid % (WT_BN / 4)) * 4;
    const int a_row_ok = bm + a_r < m;
    const float *a_row = A + (size_t)(a_row_ok ? bm + a_r : 0) * k;

    float acc[WT_TM][WT_TN];
#pragma unroll
    for (int i = 0; i < WT_TM; ++i)
#pragma unroll
        for (int j = 0; j < WT_TN; ++j)
            acc[i][j] = 0.0f;

    for (int k0 = 0; k0 < k; k0 += WT_BK) {
        const int b_row_ok = k0 + b_r < k;
        const float *b_row = B + (size_t)(b_row_ok ? k0 + b_r : 0) * n;
        float4 av = sgemm_load4(a_row, a_row_ok, k0 + a_c, k, vec);
        float4 bv = sgemm_load4(b_row, b_row_ok, bn + b_c, n, vec);
        As[a_c + 0][a_r] = av.x;
        As[a_c + 1][a_r] = av.y;
        As[a_c + 2][a_r] = av.z;
        As[a_c + 3][a_r] = av.w;
        *(float4 *)&Bs[b_r][b_c] = bv;
        __syncthreads(); /* tile filled */

#pragma unroll
        for (int kk = 0; kk < WT_BK; ++kk) {
            float a[WT_TM], b[WT_TN];
#pragma unroll
            for (int si = 0; si < WT_SUB_M; ++si) {
                float4 t = *(const float4 *)&As[kk][tm0 + si * (WT_LANES_M * 4)];
                a[si * 4 + 0] = t.x, a[si * 4 + 1] = t.y, a[si * 4 + 2] = t.z, a[si * 4 + 3] = t.w;
            }
#pragma unroll
            for (int sj = 0; sj < WT_SUB_N; ++sj) {
                float4 t = *(const float4 *)&Bs[kk][tn0 + sj * (WT_LANES_N * 4)];
                b[sj * 4 + 0] = t.x, b[sj * 4 + 1] = t.y, b[sj * 4 + 2] = t.z, b[sj * 4 + 3] = t.w;
            }
#pragma unroll
            for (int i = 0; i < WT_TM; ++i)
#pragma unroll
                for (int j = 0; j < WT_TN; ++j)
                    acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
        }
        __syncthreads(); /* everyone done reading before the next fill */
    }

    /* acc[si*4 + ii][sj*4 + jj] is C(bm + tm0 + si*LANES_M*4 + ii, bn + tn0 + sj*LANES_N*4 + jj). */
#pragma unroll
    for (int i = 0; i < WT_TM; ++i) {
        const int gr = bm + tm0 + (i / 4) * (WT_LANES_M * 4) + i % 4;
        float *c_row = C + (size_t)(gr < m ? gr : 0) * n;
#pragma unroll
        for (int sj = 0; sj < WT_SUB_N; ++sj)
            sgemm_store4(c_row, gr < m, bn + tn0 + sj * (WT_LANES_N * 4), n, vec,
                         make_float4(acc[i][sj * 4 + 0], acc[i][sj * 4 + 1], acc[i][sj * 4 + 2],
                                     acc[i][sj * 4 + 3]));
    }
}

static __global__ void __launch_bounds__(WT_THREADS, 2)
sgemm_warptile_kernel_f4(const float *__restrict__ A, const float *__restrict__ B,
                         float *__restrict__ C, int m, int n, int k)
{
    sgemm_warptile_body(A, B, C, m, n, k, 1);
}

static __global__ void __launch_bounds__(WT_THREADS, 2)
sgemm_warptile_kernel_scalar(const float *__restrict__ A, const float *__restrict__ B,
                             float *__restrict__ C, int m, int n, int k)
{
    sgemm_warptile_body(A, B, C, m, n, k, 0);
}

// ---- launcher ------------------------------------------------------------------------

extern "C" int sgemm_warptile(const float *A, const float *B, float *C, int m, int n, int k,
                              cudaStream_t stream)
{
    if (m < 1 || n < 1 || k < 1)
        return (int)cudaErrorInvalidValue;
    dim3 grid(SGEMM_CEIL_DIV(n, WT_BN), SGEMM_CEIL_DIV(m, WT_BM));
    if (k % 4 == 0 && n % 4 == 0) {
        kernel_ran_note("sgemm_warptile_kernel_f4", NULL);
        sgemm_warptile_kernel_f4<<<grid, WT_THREADS, 0, stream>>>(A, B, C, m, n, k);
    } else {
        kernel_ran_note("sgemm_warptile_kernel_scalar", SGEMM_SCALAR_REASON);
        sgemm_warptile_kernel_scalar<<<grid, WT_THREADS, 0, stream>>>(A, B, C, m, n, k);
    }
    return (int)cudaGetLastError();
}
