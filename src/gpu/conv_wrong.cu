/* src/gpu/conv_wrong.cu: the planted wrong convolution (conv_wrong.h says
 * what it gets wrong and why): naive's kernel (conv2d_direct_kernel) with a
 * tap filter that drops every tap outside the block's own tile. */
#include "conv_wrong.h"

#include "conv2d_common.cuh"

/* a tap is taken only inside the block's CONV_WRONG_TILE x CONV_WRONG_TILE tile */
struct conv_wrong_taps {
    __device__ __forceinline__ bool operator()(int i0, int j0, int ii, int jj) const
    {
        return ii >= i0 && ii < i0 + CONV_WRONG_TILE && jj >= j0 && jj < j0 + CONV_WRONG_TILE;
    }
};

template <typename T> struct conv_wrong_run {
    static int run(const conv2d_args *a, cudaStream_t s)
    {
        return conv2d_direct_launch<T, CONV_WRONG_TILE, CONV_WRONG_TILE>(a, conv2d_mask_global<T>{(const T *)a->w},
                                                                         conv_wrong_taps(), s);
    }
};

extern "C" int conv2d_test_nohalo(const conv2d_args *a, cudaStream_t s)
{
    if (a->height > 65535LL * CONV_WRONG_TILE) return (int)cudaErrorInvalidValue; /* the grid's y */
    return conv2d_checked<conv_wrong_run>(a, s);
}
