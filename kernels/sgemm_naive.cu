/* kernels/sgemm_naive.cu: step 1 of the SGEMM ladder, one thread per C element.
 *
 * Idea: thread (x, y) of a 16x16 block computes C[row][col] with a k-long dot
 * product straight from global memory. threadIdx.x walks the columns, so the
 * 16 threads of a half-warp read 16 consecutive B elements (coalesced) and
 * the same A element (a broadcast). Every operand comes from L1/L2 or DRAM:
 * about 2 loads per FMA, so it is bound by load throughput, not arithmetic.
 * Constraints: none; any m, n, k >= 1 (out-of-range threads return).
 * Run just this: ./compare --variants naive */
#include "sgemm.h"

#define NAIVE_BLOCK 16

static __global__ void sgemm_naive_kernel(const float *__restrict__ A, const float *__restrict__ B,
                                          float *__restrict__ C, int m, int n, int k)
{
    int col = blockIdx.x * NAIVE_BLOCK + threadIdx.x;
    int row = blockIdx.y * NAIVE_BLOCK + threadIdx.y;
    if (row >= m || col >= n) return;
    float acc = 0.0f;
    for (int p = 0; p < k; p++) acc = fmaf(A[(size_t)row * k + p], B[(size_t)p * n + col], acc);
    C[(size_t)row * n + col] = acc;
}

extern "C" int sgemm_naive(const float *A, const float *B, float *C, int m, int n, int k, cudaStream_t stream)
{
    dim3 block(NAIVE_BLOCK, NAIVE_BLOCK);
    dim3 grid((n + NAIVE_BLOCK - 1) / NAIVE_BLOCK, (m + NAIVE_BLOCK - 1) / NAIVE_BLOCK);
    sgemm_naive_kernel<<<grid, block, 0, stream>>>(A, B, C, m, n, k);
    return (int)cudaGetLastError();
}
