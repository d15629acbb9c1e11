/* kernels/common/policy.c: the compute capability -> policy entry map and
 * the override's parser (policy.h says why). Pure, no CUDA: the CPU test
 * (tests/test_policy.c) links this file alone; the current device's entry is
 * policy_device.c's. */
#include "policy.h"

#include <string.h>

policy_arch policy_arch_of_cc(int major, int minor)
{
    if (major == 9 && minor == 0)
        return POLICY_ARCH_90;
    if (major == 8 && minor == 0)
        return POLICY_ARCH_80;
    if (major == 8 && (minor == 6 || minor == 7 || minor == 9))
        return POLICY_ARCH_86;
    return POLICY_ARCH_GENERIC;
}

int policy_arch_parse(const char *text)
{
    if (!text || !*text)
        return -1;
    if (!strcmp(text, "90"))
        return POLICY_ARCH_90;
    if (!strcmp(text, "80"))
        return POLICY_ARCH_80;
    if (!strcmp(text, "86") || !strcmp(text, "89"))
        return POLICY_ARCH_86;
    if (!strcmp(text, "generic") || !strcmp(text, "0"))
        return POLICY_ARCH_GENERIC;
    return -1;
}

policy_arch policy_arch_select(int major, int minor, const char *override_text)
{
    const int forced = policy_arch_parse(override_text);
    return forced >= 0 ? (policy_arch)forced : policy_arch_of_cc(major, minor);
}

int policy_slot(policy_arch a)
{
    switch (a) {
    case POLICY_ARCH_90:
        return POLICY_SLOT_90;
    case POLICY_ARCH_80:
        return POLICY_SLOT_80;
    case POLICY_ARCH_86:
        return POLICY_SLOT_86;
    default:
        return POLICY_SLOT_GENERIC;
    }
}

const char *policy_arch_name(policy_arch a)
{
    switch (a) {
    case POLICY_ARCH_90:
        return "sm_90";
    case POLICY_ARCH_80:
        return "sm_80";
    case POLICY_ARCH_86:
        return "sm_86/89";
    default:
        return "generic";
    }
}
