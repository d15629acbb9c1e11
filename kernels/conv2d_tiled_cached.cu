/* kernels/conv2d_tiled_cached.cu: the conv2d ladder's fourth rung, only the
 * tile in shared memory, the halo through the L1 cache.
 *
 * Idea: the course's second form of the tiled convolution. A block computes
 * a CONV2D_CACHED_BX x CONV2D_CACHED_BY tile of one output plane, one output
 * a thread, and stages only the input elements at its own outputs'
 * positions (one load a thread, no halo loop, no idle loader threads). A tap
 * that falls inside the tile reads shared memory; one in the halo reads
 * global memory through the read-only path (__ldg): those elements are the
 * neighbouring blocks' tiles, read by them too, so they are likely in L1 or
 * L2 already. Fewer instructions to stage than tiled_halo, a branch per tap
 * instead. The mask is read through the read-only cache (one broadcast per
 * tap), so any mask fits.
 * Constraints: any sizes (conv2d_case_ok), any type of the contract.
 * Run just this rung: compare --ops conv2d --variants tiled_cached */
#include "conv2d_common.cuh"

#define CONV2D_CACHED_BX 32
#define CONV2D_CACHED_BY 8

template <typename T> static __global__ void __launch_bounds__(CONV2D_CACHED_BX *CONV2D_CACHED_BY)
    conv2d_tiled_cached_kernel(const T *__restrict__ x, const T *__restrict__ w, T *__restrict__ y, int c_in, int c_out,
                               int h, int wd, int r, long long planes)
{
    __shared__ float tile[CONV2D_CACHED_BY][CONV2D_CACHED_BX];
    const int half = r / 2;
    const int i0 = blockIdx.y * CONV2D_CACHED_BY, j0 = blockIdx.x * CONV2D_CACHED_BX;
    const int i = i0 + threadIdx.y, j = j0 + threadIdx.x;
    for (long long p = blockIdx.z; p < planes; p += gridDim.z) {
        const long long n = p / c_out, k = p % c_out;
        float acc = 0.0f;
        for (int c = 0; c < c_in; c++) {
            const T *plane = x + (n * c_in + c) * (long long)h * wd;
            const T *mask = w + (k * c_in + c) * (long long)r * r;
            __syncthreads(); /* the previous channel's reads are done */
            tile[threadIdx.y][threadIdx.x] = i < h && j < wd ? conv2d_f(__ldg(&plane[(long long)i * wd + j])) : 0.0f;
            __syncthreads();
            for (int u = 0; u < r; u++) {
                const int ii = i + u - half, ti = (int)threadIdx.y + u - half;
                for (int v = 0; v < r; v++) {
                    const int jj = j + v - half, tj = (int)threadIdx.x + v - half;
                    float in;
                    if (ti >= 0 && ti < CONV2D_CACHED_BY && tj >= 0 && tj < CONV2D_CACHED_BX)
                        in = tile[ti][tj]; /* zero already where the tile passes the image's
                                              edge */
                    else
                        in = ii >= 0 && ii < h && jj >= 0 && jj < wd ? conv2d_f(__ldg(&plane[(long long)ii * wd + jj]))
                                                                     : 0.0f;
                    acc += in * conv2d_f(__ldg(&mask[u * r + v]));
                }
            }
        }
        if (i < h && j < wd) y[p * (long long)h * wd + (long long)i * wd + j] = conv2d_to<T>(acc);
    }
}

template <typename T> struct conv2d_tiled_cached_run {
    static int run(const conv2d_args *a, cudaStream_t s)
    {
        return conv2d_launch<T>(conv2d_tiled_cached_kernel<T>, a, CONV2D_CACHED_BX, CONV2D_CACHED_BY, 0, s);
    }
};

extern "C" int conv2d_tiled_cached(const conv2d_args *a, cudaStream_t s)
{
    return conv2d_checked<conv2d_tiled_cached_run>(a, s);
}

extern "C" int conv2d_tiled_cached_supports(const conv2d_args *a, char *why, size_t why_len)
{
    return conv2d_case_ok(a, why, why_len);
}
