/* kernels/conv2d_tiled_halo.cu: the conv2d ladder's third rung, the input
 * tile and its halo in shared memory.
 *
 * Idea: a block computes a CONV2D_HALO_BX x CONV2D_HALO_BY tile of one output
 * plane, one output a thread. For each input channel it first stages the
 * (BY + r - 1) x (BX + r - 1) input elements the tile's outputs read (the
 * tile plus a halo of r / 2 on each side; zeros where the halo falls outside
 * the image: the ghost cells) in shared memory, cooperatively, every thread
 * loading a strided share of it; after a barrier every tap is a shared-memory
 * read. Each input element then comes from global memory about
 * (1 + (r - 1) / BX) (1 + (r - 1) / BY) times instead of r * r times. The
 * mask is read through the read-only cache (__ldg: every thread of the block
 * reads the same element, one broadcast), not __constant__, so any
 * c_out x c_in x r x r mask fits. Shared memory: (BY + r - 1) (BX + r - 1)
 * floats, dynamic (about 4 KiB at r = 15).
 * Constraints: any sizes (conv2d_case_ok), any type of the contract.
 * Run just this rung: compare --ops conv2d --variants tiled_halo */
#include "conv2d_common.cuh"

#define CONV2D_HALO_BX 32
#define CONV2D_HALO_BY 8

template <typename T> static __global__ void __launch_bounds__(CONV2D_HALO_BX *CONV2D_HALO_BY)
    conv2d_tiled_halo_kernel(const T *__restrict__ x, const T *__restrict__ w, T *__restrict__ y, int c_in, int c_out,
                             int h, int wd, int r, long long planes)
{
    extern __shared__ float conv2d_halo_tile[]; /* (BY + r - 1) rows of (BX + r - 1) */
    const int half = r / 2, tw = CONV2D_HALO_BX + r - 1, th = CONV2D_HALO_BY + r - 1;
    const int tid = threadIdx.y * CONV2D_HALO_BX + threadIdx.x;
    const int i0 = blockIdx.y * CONV2D_HALO_BY, j0 = blockIdx.x * CONV2D_HALO_BX;
    const int i = i0 + threadIdx.y, j = j0 + threadIdx.x;
    for (long long p = blockIdx.z; p < planes; p += gridDim.z) {
        const long long n = p / c_out, k = p % c_out;
        float acc = 0.0f;
        for (int c = 0; c < c_in; c++) {
            const T *plane = x + (n * c_in + c) * (long long)h * wd;
            const T *mask = w + (k * c_in + c) * (long long)r * r;
            __syncthreads(); /* the previous channel's reads are done */
            for (int t = tid; t < tw * th; t += CONV2D_HALO_BX * CONV2D_HALO_BY) {
                const int ti = t / tw, tj = t % tw;
                conv2d_halo_tile[t] = conv2d_at(plane, i0 - half + ti, j0 - half + tj, h, wd);
            }
            __syncthreads();
            for (int u = 0; u < r; u++)
                for (int v = 0; v < r; v++)
                    acc +=
                        conv2d_halo_tile[(threadIdx.y + u) * tw + threadIdx.x + v] * conv2d_f(__ldg(&mask[u * r + v]));
        }
        if (i < h && j < wd) y[p * (long long)h * wd + (long long)i * wd + j] = conv2d_to<T>(acc);
    }
}

template <typename T> struct conv2d_tiled_halo_run {
    static int run(const conv2d_args *a, cudaStream_t s)
    {
        const size_t smem = (size_t)(CONV2D_HALO_BX + a->r - 1) * (CONV2D_HALO_BY + a->r - 1) * sizeof(float);
        return conv2d_launch<T>(conv2d_tiled_halo_kernel<T>, a, CONV2D_HALO_BX, CONV2D_HALO_BY, smem, s);
    }
};

extern "C" int conv2d_tiled_halo(const conv2d_args *a, cudaStream_t s)
{
    return conv2d_checked<conv2d_tiled_halo_run>(a, s);
}

extern "C" int conv2d_tiled_halo_supports(const conv2d_args *a, char *why, size_t why_len)
{
    return conv2d_case_ok(a, why, why_len);
}
