#include "testlib_gpu.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void test_require_gpu(void)
{
    int count = 0;
    cudaError_t e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess || count == 0) {
        const char *req = getenv("COMPARE_REQUIRE_GPU");
        const int required = req && req[0] && strcmp(req, "0") != 0;
        printf("no usable GPU (%s): %s\n", e != cudaSuccess ? cudaGetErrorString(e) : "0 devices",
               required ? "FAILED (COMPARE_REQUIRE_GPU is set: a GPU test may not skip here)" : "skipped");
        exit(required ? 1 : 77);
    }
}
