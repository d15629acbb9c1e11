/* tests/testlib_gpu.h: what the gpu tests add to testlib.h. test_require_gpu()
 * exits 77 (ctest: skipped, never passed) when no usable GPU is present, or 1
 * when COMPARE_REQUIRE_GPU is set (tests/gpu_check.sh sets it: on the GPU
 * machine a skip would hide a broken driver or runtime); CK
 * wraps a CUDA runtime call that must succeed; test_sm90a_runs says whether
 * the Hopper-only rows run on this device and mode. */
#ifndef TESTS_TESTLIB_GPU_H
#define TESTS_TESTLIB_GPU_H

#include <cuda_runtime_api.h>

#include "device.h"
#include "run.h"
#include "testlib.h"

/* CK(call): a CUDA runtime call that must succeed; otherwise prints it and exits 1 */
#define CK(call)                                                                                     \
    do {                                                                                             \
        cudaError_t e_ = (call);                                                                     \
        if (e_ != cudaSuccess) {                                                                     \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_));  \
            exit(1);                                                                                 \
        }                                                                                            \
    } while (0)

void test_require_gpu(void);
/* 1 when the current device runs the sm_90a rows (tf32_wgmma, tf32_tma): cc
 * 9.0 under the sm_90 policy (kernels/common/policy.h: not in the forced
 * mode, COMPARE_POLICY_ARCH); else 0, with a line saying why. */
int test_sm90a_runs(void);

/* The gpu tests that run plans: test_require_gpu, the seed (the clock, or
 * COMPARE_TEST_SEED; printed so a run can be repeated), then device 0 opened
 * into dev (a failure is printed and exits 1). Returns the seed. */
unsigned long long test_open_device(device_ctx *dev);

/* Runs op `op` checked only (compare --check-only) with seed `seed` over the
 * axes given as {NAME, LIST} pairs (--axis NAME=LIST), the rows into sink;
 * with test_rows (NULL-terminated names) only those and the op's reference
 * rows, the test-only rows made visible. Returns run_plan's status, or -1
 * (with a CHECK failure) when the options or the plan are refused. */
int test_run_axes(device_ctx *dev, const char *op, const char *const axes[][2], int n_axes,
                  const char *const *test_rows, unsigned long long seed, run_sink *sink);

#endif
