/* kernels/sgemm_tiled.cu: steps 2 and 3 of the SGEMM ladder, shared-memory tiles.
 *
 * Idea: a TxT block of threads computes a TxT tile of C. For each k-slab the
 * block copies a TxT tile of A and one of B into shared memory (one element
 * per thread, coalesced), waits (barrier 1), does T FMAs per thread from
 * shared memory, and waits again (barrier 2) before the tiles are
 * overwritten. Global traffic drops by a factor T; the inner loop still does
 * 2 shared loads per FMA (the A element is a broadcast, B is conflict-free).
 * Constraints: none; any m, n, k >= 1: tile elements past an edge are
 * zero-filled, so they add 0 to the dot product, and stores are predicated.
 * Two instantiations: T = 16 (tiled16) and T = 32 (tiled32, 1024 threads).
 * Run just these: ./compare --variants tiled16,tiled32 */
#include "sgemm.h"

/* One kernel body, instantiated per tile size T (a compile-time tile parameter). */
template <int T>
static __global__ void sgemm_tiled_kernel(const float *__restrict__ A, const float *__restrict__ B,
                                          float *__restrict__ C, int m, int n, int k)
{
    static_assert(T * T <= 1024, "one thread per tile element: at most 1024 threads a block");
    __shared__ float As[T][T];
    __shared__ float Bs[T][T];
    int tx = threadIdx.x, ty = threadIdx.y;
    int row = blockIdx.y * T + ty, col = blockIdx.x * T + tx;
    float acc = 0.0f;
    for (int k0 = 0; k0 < k; k0 += T) {
        int ak = k0 + tx, bk = k0 + ty;
        As[ty][tx] = (row < m && ak < k) ? A[(size_t)row * k + ak] : 0.0f;
        Bs[ty][tx] = (bk < k && col < n) ? B[(size_t)bk * n + col] : 0.0f;
        __syncthreads();
#pragma unroll
        for (int p = 0; p < T; p++)
            acc = fmaf(As[ty][p], Bs[p][tx], acc);
        __syncthreads();
    }
    if (row < m && col < n)
        C[(size_t)row * n + col] = acc;
}

extern "C" int sgemm_tiled16(const float *A, const float *B, float *C, int m, int n, int k, cudaStream_t stream)
{
    dim3 block(16, 16), grid((n + 15) / 16, (m + 15) / 16);
    sgemm_tiled_kernel<16><<<grid, block, 0, stream>>>(A, B, C, m, n, k);
    return (int)cudaGetLastError();
}

extern "C" int sgemm_tiled32(const float *A, const float *B, float *C, int m, int n, int k, cudaStream_t stream)
{
    dim3 block(32, 32), grid((n + 31) / 32, (m + 31) / 32);
    sgemm_tiled_kernel<32><<<grid, block, 0, stream>>>(A, B, C, m, n, k);
    return (int)cudaGetLastError();
}
