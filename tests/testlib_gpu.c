#include "testlib_gpu.h"

#include <stdio.h>
#include <stdlib.h>

void test_require_gpu(void)
{
    int count = 0;
    cudaError_t e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess || count == 0) {
        printf("no usable GPU (%s): skipped\n", e != cudaSuccess ? cudaGetErrorString(e) : "0 devices");
        exit(77);
    }
}
