/* kernels/conv2d_naive.cu: the first rung of the conv2d ladder, and the case
 * check every rung shares (conv2d_case_ok).
 *
 * Idea: one thread per output element y[n][k][i][j]; it walks c_in x r x r
 * taps, reading the input (zero outside the image: the ghost cells of the
 * padding) and the mask from global memory. Neighbouring threads (j, j + 1)
 * read neighbouring inputs, so the loads coalesce, but each input element
 * is read r * r * c_out times through the caches and each mask element by
 * every thread: the loads per FMA are what the later rungs cut.
 * Constraints: any sizes (conv2d_case_ok), any type of the contract.
 * Run just this rung: compare --ops conv2d --variants naive */
#include "conv2d_common.cuh"

#include <stdio.h>

#define CONV2D_NAIVE_BX 32
#define CONV2D_NAIVE_BY 8

/* the kernel: conv2d_direct_kernel (conv2d_common.cuh), the mask read from
 * global memory */
template <typename T> struct conv2d_naive_run {
    static int run(const conv2d_args *a, cudaStream_t s)
    {
        return conv2d_direct_launch<T, CONV2D_NAIVE_BX, CONV2D_NAIVE_BY>(a, conv2d_mask_global<T>{(const T *)a->w},
                                                                         conv2d_taps_all(), s);
    }
};

extern "C" int conv2d_case_ok(const conv2d_args *a, char *why, size_t why_len)
{
    if (a->type != ELEM_FP32 && a->type != ELEM_FP16 && a->type != ELEM_BF16) {
        snprintf(why, why_len, "conv2d takes fp32, fp16 and bf16");
        return 0;
    }
    if (a->r < 1 || a->r > CONV2D_MAX_R || a->r % 2 == 0) {
        snprintf(why, why_len, "r = %d: the ladder takes odd r from 1 to %d (\"same\" padding needs an odd r)", a->r,
                 CONV2D_MAX_R);
        return 0;
    }
    /* int indices within a plane and a block grid of (width / 32, height / 8) */
    if (a->batch < 1 || a->c_in < 1 || a->c_out < 1 || a->height < 1 || a->width < 1 ||
        a->height * a->width > (1LL << 31) - 1 || a->c_in > (1 << 20) || a->c_out > (1 << 20) ||
        a->height > 65535LL * 8) {
        snprintf(why, why_len, "sizes out of the ladder's range (a plane over 2^31 elements, or a dimension < 1)");
        return 0;
    }
    return 1;
}

extern "C" int conv2d_naive(const conv2d_args *a, cudaStream_t s) { return conv2d_checked<conv2d_naive_run>(a, s); }

extern "C" int conv2d_naive_supports(const conv2d_args *a, char *why, size_t why_len)
{
    return conv2d_case_ok(a, why, why_len);
}
