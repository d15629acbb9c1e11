/* kernels/conv2d_const_mask.cu: the conv2d ladder's second rung, the mask in
 * constant memory.
 *
 * Idea: naive's thread per output, with the mask in __constant__ memory.
 * Every thread of a warp reads the same mask element at the same time (the
 * block's output channel k is uniform, the tap loop is the same in every
 * thread), which is the access the constant cache serves as one broadcast:
 * the mask loads leave the L1/L2 path to the input alone. The mask is
 * copied in once, by conv2d_const_mask_load (the variant's untimed prepare
 * step: a network's weights are loaded once and reused, the course's
 * setting); only the kernel is timed.
 * Constraints: c_out x c_in x r x r elements within CONV2D_CONST_MASK_BYTES
 * (declined otherwise, with the sizes: C = K = 64 at 3 x 3 in fp32 needs
 * 144 KiB); any image size.
 * Run just this rung: compare --ops conv2d --variants const_mask */
#include "conv2d_common.cuh"

#include <stdio.h>

#define CONV2D_CONST_BX 32
#define CONV2D_CONST_BY 8

/* the mask in the case's element type (read as T) */
static __constant__ __align__(16) unsigned char conv2d_cmask[CONV2D_CONST_MASK_BYTES];

/* the mask from __constant__ memory: the index is the same in every thread
 * of a warp (one output channel a block, one tap at a time), a broadcast */
template <typename T> struct conv2d_mask_const {
    __device__ __forceinline__ float operator()(long long i) const
    {
        return conv2d_f(reinterpret_cast<const T *>(conv2d_cmask)[i]);
    }
};

/* the kernel: conv2d_direct_kernel (conv2d_common.cuh) with that mask */
template <typename T> struct conv2d_const_mask_run {
    static int run(const conv2d_args *a, cudaStream_t s)
    {
        return conv2d_direct_launch<T, CONV2D_CONST_BX, CONV2D_CONST_BY>(a, conv2d_mask_const<T>(), conv2d_taps_all(),
                                                                         s);
    }
};

/* the mask's bytes */
static long long conv2d_const_mask_bytes(const conv2d_args *a)
{
    return a->c_out * a->c_in * a->r * a->r * (long long)elem_type_bytes(a->type);
}

extern "C" int conv2d_const_mask_supports(const conv2d_args *a, char *why, size_t why_len)
{
    if (!conv2d_case_ok(a, why, why_len)) return 0;
    if (conv2d_const_mask_bytes(a) > CONV2D_CONST_MASK_BYTES) {
        snprintf(why, why_len,
                 "the mask (%lld x %lld x %d x %d, %lld bytes) does not fit the %d bytes of __constant__ memory "
                 "const_mask keeps it in",
                 a->c_out, a->c_in, a->r, a->r, conv2d_const_mask_bytes(a), CONV2D_CONST_MASK_BYTES);
        return 0;
    }
    return 1;
}

extern "C" int conv2d_const_mask_load(const conv2d_args *a, cudaStream_t s)
{
    char why[256];
    if (!conv2d_const_mask_supports(a, why, sizeof why)) return (int)cudaErrorInvalidValue;
    return (int)cudaMemcpyToSymbolAsync(conv2d_cmask, a->w, (size_t)conv2d_const_mask_bytes(a), 0,
                                        cudaMemcpyDeviceToDevice, s);
}

extern "C" int conv2d_const_mask(const conv2d_args *a, cudaStream_t s)
{
    char why[256];
    if (!conv2d_const_mask_supports(a, why, sizeof why)) return (int)cudaErrorInvalidValue;
    return conv2d_dispatch<conv2d_const_mask_run>(a, s);
}
