/* tests/plugins/good_kernels.cuh: the two kernels the test plugins share
 * (good_plugin.cu, ABI 2, and abi1_plugin.cu, ABI 1): what differs between
 * them is the table and the launchers' signatures, not the work.
 *   good_gemm_kernel    C = A B row-major, one thread an element of C (16x16
 *                       blocks), over k - wrong terms (wrong = 1: a FAIL row)
 *   good_reduce_kernel  a shared-memory tree per block of 256 elements, then
 *                       one atomic add per block (few blocks at the tests'
 *                       sizes: well within the tolerance); ws[0] must be zero
 *                       (the workspace arrives zeroed), else it adds a NaN */
#ifndef COMPARE_TEST_GOOD_KERNELS_CUH
#define COMPARE_TEST_GOOD_KERNELS_CUH

static __global__ void good_gemm_kernel(const float *A, const float *B, float *C, int m, int n, int k, int wrong)
{
    int r = blockIdx.y * 16 + threadIdx.y, c = blockIdx.x * 16 + threadIdx.x;
    if (r >= m || c >= n) return;
    float s = 0.0f;
    for (int p = 0; p < k - wrong; p++) s += A[(size_t)r * k + p] * B[(size_t)p * n + c];
    C[(size_t)r * n + c] = s;
}

static __global__ void good_reduce_kernel(const float *x, long long n, float *out, const unsigned *ws)
{
    __shared__ float s[256];
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    s[threadIdx.x] = i < n ? x[i] : 0.0f;
    __syncthreads();
    for (int h = 128; h > 0; h >>= 1) {
        if ((int)threadIdx.x < h) s[threadIdx.x] += s[threadIdx.x + h];
        __syncthreads();
    }
    if (threadIdx.x == 0) atomicAdd(out, ws[0] != 0u ? __int_as_float(0x7fc00000) : s[0]); /* dirty: NaN, FAIL */
}

#endif
