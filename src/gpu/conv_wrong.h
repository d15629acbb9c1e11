/* src/gpu/conv_wrong.h: a planted wrong convolution for the tests (the conv2d
 * op's test-only row test_nohalo): each block of CONV_WRONG_TILE x
 * CONV_WRONG_TILE outputs reads only its own tile of the input and takes
 * every tap outside it as zero, as if the halo had never been loaded (the
 * tiled rung's easiest bug). Outputs at least r / 2 inside their tile are
 * right; those near a tile's edge miss taps, so verification must FAIL it
 * (tests/test_gpu_conv.c). Returns the launch's cudaError_t. */
#ifndef COMPARE_CONV_WRONG_H
#define COMPARE_CONV_WRONG_H

#include <cuda_runtime_api.h>

#include "conv2d.h"

#define CONV_WRONG_TILE 16

#ifdef __cplusplus
extern "C" {
#endif

int conv2d_test_nohalo(const conv2d_args *a, cudaStream_t s);

#ifdef __cplusplus
}
#endif

#endif
