/* tests/testlib_gpu.c: testlib_gpu.h's helpers. */
#include "testlib_gpu.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <time.h>

#include "catalog.h"
#include "cli.h"
#include "device.h"
#include "op.h"
#include "plan.h"
#include "policy.h"

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

int test_sm90a_runs(void)
{
    int dev = 0, major = 0, minor = 0;
    if (cudaGetDevice(&dev) != cudaSuccess ||
        cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev) != cudaSuccess ||
        cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev) != cudaSuccess) {
        (void)cudaGetLastError();
        return 0;
    }
    const policy_arch a = policy_arch_for(major, minor);
    if (major == 9 && minor == 0 && a == POLICY_ARCH_90)
        return 1;
    printf("note: the sm_90a rows (tf32_wgmma, tf32_tma) do not run here: cc %d.%d, policy %s\n", major, minor,
           policy_arch_name(a));
    return 0;
}

unsigned long long test_open_device(device_ctx *dev)
{
    char err[512];
    unsigned long long seed = (unsigned long long)time(NULL);
    const char *env = getenv("COMPARE_TEST_SEED");
    test_require_gpu();
    if (env) seed = strtoull(env, NULL, 10);
    printf("seed %llu (set COMPARE_TEST_SEED to repeat)\n", seed);
    if (device_open(dev, 0, seed, err, sizeof err)) {
        fprintf(stderr, "%s\n", err);
        exit(1);
    }
    return seed;
}

int test_run_axes(device_ctx *dev, const char *op, const char *const axes[][2], int n_axes,
                  const char *const *test_rows, unsigned long long seed, run_sink *sink)
{
    static cli_options o; /* the plan points at its options until run_plan returns */
    char err[512];
    plan p;
    volatile sig_atomic_t stop = 0;
    cli_defaults(&o);
    o.op_names[0] = op;
    o.op_name_count = 1;
    o.seed = seed;
    o.check_only = 1;
    o.progress = 0;
    for (int i = 0; test_rows && test_rows[i] && i < CLI_MAX_VARIANTS; i++) {
        o.test_variants = 1;
        o.variants[o.variant_count++] = test_rows[i];
    }
    for (int i = 0; i < n_axes; i++)
        if (cli_axis_set(&o, "--axis", axes[i][0], axes[i][1], err, sizeof err)) {
            CHECK(0, "%s: %s", op, err);
            return -1;
        }
    if (cli_resolve(&o, ops_catalog(), err, sizeof err) || plan_build(&p, &o, ops_catalog(), err, sizeof err)) {
        CHECK(0, "%s: the options or the plan refused: %s", op, err);
        return -1;
    }
    const int rc = run_plan(dev, &o, &p, sink, &stop);
    plan_free(&p);
    return rc;
}
