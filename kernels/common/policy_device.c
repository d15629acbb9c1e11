/* kernels/common/policy_device.c: the current device's policy entry
 * (policy.h): COMPARE_POLICY_ARCH read once per process, the device's compute
 * capability asked once per device ordinal (a fleet runs several GPUs in one
 * process, each thread on its own current device). */
#include "policy.h"

#include <stdio.h>
#include <stdlib.h>

#include <cuda_runtime_api.h>

#define POLICY_ENV "COMPARE_POLICY_ARCH"
#define POLICY_MAX_DEVICES 64 /* cached ordinals 0..63 */

/* The override, read once: -2 not yet read, -1 none (or invalid), else the
 * entry. Threads racing here store the same value. */
static int policy_override = -2;

static int policy_override_read(void)
{
    int v = __atomic_load_n(&policy_override, __ATOMIC_ACQUIRE);
    if (v != -2)
        return v;
    const char *text = getenv(POLICY_ENV);
    v = policy_arch_parse(text);
    if (v < 0 && text && *text)
        fprintf(stderr, "compare: %s=%s is not 80, 86, 89, 90 or generic: ignored (the device's policy)\n",
                POLICY_ENV, text);
    __atomic_store_n(&policy_override, v, __ATOMIC_RELEASE);
    return v;
}

int policy_arch_forced(void)
{
    return policy_override_read() >= 0;
}

policy_arch policy_arch_for(int major, int minor)
{
    const int forced = policy_override_read();
    return forced >= 0 ? (policy_arch)forced : policy_arch_of_cc(major, minor);
}

/* per device ordinal: 0 not yet asked, else the entry + 1 */
static int policy_cache[POLICY_MAX_DEVICES];

policy_arch policy_arch_current(void)
{
    const int forced = policy_override_read();
    if (forced >= 0)
        return (policy_arch)forced;
    int dev = 0;
    if (cudaGetDevice(&dev) != cudaSuccess) {
        (void)cudaGetLastError();
        return POLICY_ARCH_GENERIC;
    }
    if (dev >= 0 && dev < POLICY_MAX_DEVICES) {
        const int c = __atomic_load_n(&policy_cache[dev], __ATOMIC_ACQUIRE);
        if (c > 0)
            return (policy_arch)(c - 1);
    }
    int major = 0, minor = 0;
    if (cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev) != cudaSuccess ||
        cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev) != cudaSuccess) {
        (void)cudaGetLastError();
        return POLICY_ARCH_GENERIC;
    }
    const policy_arch a = policy_arch_of_cc(major, minor);
    if (dev >= 0 && dev < POLICY_MAX_DEVICES)
        __atomic_store_n(&policy_cache[dev], (int)a + 1, __ATOMIC_RELEASE);
    return a;
}

int policy_slot_current(void)
{
    return policy_slot(policy_arch_current());
}
