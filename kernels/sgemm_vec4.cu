/* kernels/sgemm_vec4.cu: step 5 of the SGEMM ladder, 2D register
 * blocking with 128-bit memory accesses.
 *
 * Idea: as sgemm_regblock (128x128 block tile, BK = 8, 256 threads, 8x8 of C
 * per thread), plus
 *  - float4 global loads: each thread fetches one 4-float chunk of the A tile
 *    and one of the B tile per k-slab (LDG.128), and stores C with STG.128;
 *  - the A tile is stored transposed in shared memory, As[kk][row], so that
 *    the 8 A values a thread needs for one kk are contiguous: with B's 8
 *    values, a k-step is 4 LDS.128 for 64 FFMA;
 *  - As rows are padded by 4 floats: the transposing scalar stores of a warp
 *    (16 rows x 2 chunks) then fall in 32 different banks. The 16-byte
 *    alignment of every As row is kept (132 floats = 528 bytes).
 * Left for step 6 (warptile): a warp's B reads (16 threads x 8 contiguous
 * floats) span 512 bytes, twice the minimum, so they take two passes.
 *
 * Constraints: any m, n, k >= 1. float4 accesses need 16-byte aligned rows,
 * i.e. k % 4 == 0 (A) and n % 4 == 0 (B, C): the launcher picks the float4
 * kernel then, else the same kernel built with predicated scalar accesses.
 * With k and n multiples of 4 a chunk is wholly inside or wholly outside the
 * matrix, so a load costs one compare; outside elements are zero-filled.
 *
 * Run just this variant: ./compare --variants vectorized */
#include "kernel_ran.h"
#include "sgemm.h"
#include "sgemm_common.cuh"

#define V4_BM 128 /* rows of C per block */
#define V4_BN 128 /* columns of C per block */
#define V4_BK 8   /* k-slab per shared-memory tile */
#define V4_TM 8   /* rows of C per thread */
#define V4_TN 8   /* columns of C per thread */
#define V4_PAD 4  /* floats of padding per As row: conflict-free transposing stores */
#define V4_THREADS ((V4_BM / V4_TM) * (V4_BN / V4_TN))

static_assert(V4_THREADS == 256, "launch bounds below assume 256 threads");
static_assert(V4_BM * V4_BK / 4 == V4_THREADS, "one 4-float chunk of A per thread per k-slab");
static_assert(V4_BK * V4_BN / 4 == V4_THREADS, "one 4-float chunk of B per thread per k-slab");
static_assert(V4_TM % 4 == 0 && V4_TN % 4 == 0, "thread tile read as float4s");
static_assert(((V4_BM + V4_PAD) * 4) % 16 == 0, "As rows must stay 16-byte aligned for LDS.128");
static_assert((V4_BM + V4_PAD) % 32 == 4, "pad chosen so the two chunks of a warp hit disjoint banks");

// ---- kernel ------------------------------------------------------------------------

/* vec: 1 = float4 global accesses (k % 4 == 0 and n % 4 == 0), 0 = scalar.
 * Always inlined into the two kernels below with a constant, so each gets
 * only its own path. */
static __device__ __forceinline__ void sgemm_vec4_body(const float *__restrict__ A,
                                                       const float *__restrict__ B,
                                                       float *__restrict__ C, int m, int n, int k,
                                                       int vec)
{
    __shared__ __align__(16) float As[V4_BK][V4_BM + V4_PAD]; /* A tile, transposed */
    __shared__ __align__(16) float Bs[V4_BK][V4_BN];          /* B tile */

    const int tid = threadIdx.x;
    const int bm = blockIdx.y * V4_BM;
    const int bn = blockIdx.x * V4_BN;
    const int tr = tid / (V4_BN / V4_TN); /* thread's rows: bm + tr*TM + [0, TM) */
    const int tc = tid % (V4_BN / V4_TN); /* thread's cols: bn + tc*TN + [0, TN) */

    /* Global-load assignment: A chunk (bm + a_r, k0 + a_c..+3), B chunk
     * (k0 + b_r, bn + b_c..+3). Row pointers are clamped into the matrix. */
    const int a_r = tid / (V4_BK / 4), a_c = (tid % (V4_BK / 4)) * 4;
    const int b_r = tid / (V4_BN / 4), b_c = (tid % (V4_BN / 4)) * 4;
    const int a_row_ok = bm + a_r < m;
    const float *a_row = A + (size_t)(a_row_ok ? bm + a_r : 0) * k;

    float acc[V4_TM][V4_TN];
#pragma unroll
    for (int i = 0; i < V4_TM; ++i)
#pragma unroll
        for (int j = 0; j < V4_TN; ++j)
            acc[i][j] = 0.0f;

    for (int k0 = 0; k0 < k; k0 += V4_BK) {
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
        for (int kk = 0; kk < V4_BK; ++kk) {
            float a[V4_TM], b[V4_TN];
#pragma unroll
            for (int i = 0; i < V4_TM; i += 4) {
                float4 t = *(const float4 *)&As[kk][tr * V4_TM + i];
                a[i + 0] = t.x, a[i + 1] = t.y, a[i + 2] = t.z, a[i + 3] = t.w;
            }
#pragma unroll
            for (int j = 0; j < V4_TN; j += 4) {
                float4 t = *(const float4 *)&Bs[kk][tc * V4_TN + j];
                b[j + 0] = t.x, b[j + 1] = t.y, b[j + 2] = t.z, b[j + 3] = t.w;
            }
#pragma unroll
            for (int i = 0; i < V4_TM; ++i)
#pragma unroll
                for (int j = 0; j < V4_TN; ++j)
                    acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
        }
        __syncthreads(); /* everyone done reading before the next fill */
    }

#pragma unroll
    for (int i = 0; i < V4_TM; ++i) {
        const int gr = bm + tr * V4_TM + i;
        float *c_row = C + (size_t)(gr < m ? gr : 0) * n;
#pragma unroll
        for (int j = 0; j < V4_TN; j += 4)
            sgemm_store4(c_row, gr < m, bn + tc * V4_TN + j, n, vec,
                         make_float4(acc[i][j], acc[i][j + 1], acc[i][j + 2], acc[i][j + 3]));
    }
}

static __global__ void __launch_bounds__(V4_THREADS, 2)
sgemm_vec4_kernel_f4(const float *__restrict__ A, const float *__restrict__ B,
                     float *__restrict__ C, int m, int n, int k)
{
    sgemm_vec4_body(A, B, C, m, n, k, 1);
}

static __global__ void __launch_bounds__(V4_THREADS, 2)
sgemm_vec4_kernel_scalar(const float *__restrict__ A, const float *__restrict__ B,
                         float *__restrict__ C, int m, int n, int k)
{
    sgemm_vec4_body(A, B, C, m, n, k, 0);
}

// ---- launcher ------------------------------------------------------------------------

extern "C" int sgemm_vec4(const float *A, const float *B, float *C, int m, int n, int k,
                          cudaStream_t stream)
{
    if (m < 1 || n < 1 || k < 1)
        return (int)cudaErrorInvalidValue;
    dim3 grid(SGEMM_CEIL_DIV(n, V4_BN), SGEMM_CEIL_DIV(m, V4_BM));
    if (k % 4 == 0 && n % 4 == 0) {
        kernel_ran_note("sgemm_vec4_kernel_f4", NULL);
        sgemm_vec4_kernel_f4<<<grid, V4_THREADS, 0, stream>>>(A, B, C, m, n, k);
    } else {
        kernel_ran_note("sgemm_vec4_kernel_scalar", SGEMM_SCALAR_REASON);
        sgemm_vec4_kernel_scalar<<<grid, V4_THREADS, 0, stream>>>(A, B, C, m, n, k);
    }
    return (int)cudaGetLastError();
}
