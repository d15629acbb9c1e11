/* kernels/common/policy.h: which per-architecture policy entry the launchers
 * of the tunable families (tuned, tf32_mma, tf32_wgmma, tf32_tma, transpose,
 * scan, sort, histogram) use on the current device.
 *
 * Idea (CUB's policy hub): a family's picks and thresholds are a table of
 * entries, one per architecture, chosen at run time from the device's compute
 * capability; never compile-time names fitted to one GPU. The entries:
 *   POLICY_ARCH_90      cc 9.0 (H100/H200): the picks tuned on the H200;
 *   POLICY_ARCH_80      cc 8.0 (A100): untuned, reasonable choices;
 *   POLICY_ARCH_86      cc 8.6, 8.7, 8.9 (RTX 30xx/40xx, L40S, Orin): untuned,
 *                       sized for their 99 KiB of shared memory per block;
 *   POLICY_ARCH_GENERIC any other cc: choices correct on every GPU since
 *                       Ampere, fast on none in particular.
 * The override COMPARE_POLICY_ARCH=80 (or 86, 89, 90, generic) makes every
 * family use that entry whatever the device (the forced mode: in a build
 * whose kernels are compute_80 PTX only, CMake preset sm80-ptx, it runs the
 * sm_80 path on an H200 through the driver's JIT); Hopper-only variants check
 * policy_arch_current() too and decline in it. An unknown override value is
 * ignored (the device's entry), with one line on stderr.
 *
 * Constraints: policy_arch_select and policy_arch_parse are pure (tested on
 * the CPU); policy_arch_current asks the CUDA runtime once per device
 * ordinal (0..63; a device past 63 is asked every call) and reads the
 * environment once per process. */
#ifndef KERNELS_COMMON_POLICY_H
#define KERNELS_COMMON_POLICY_H

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
    POLICY_ARCH_GENERIC = 0,
    POLICY_ARCH_80 = 80,
    POLICY_ARCH_86 = 86, /* 8.6, 8.7 and 8.9 */
    POLICY_ARCH_90 = 90
} policy_arch;

/* A family's table holds POLICY_SLOTS entries in this order (CUB's
 * Policy900, Policy800, ... as rows of one array, each commented with its
 * architecture): table[policy_slot(a)] is arch a's entry. */
enum { POLICY_SLOT_90, POLICY_SLOT_80, POLICY_SLOT_86, POLICY_SLOT_GENERIC, POLICY_SLOTS };
int policy_slot(policy_arch a);
/* policy_slot(policy_arch_current()): the current device's row. */
int policy_slot_current(void);

/* The entry for a device of compute capability major.minor. */
policy_arch policy_arch_of_cc(int major, int minor);
/* An override's value: "80", "86", "89" (the 86 entry), "90", "generic" or
 * "0"; -1 for anything else (NULL or empty included). */
int policy_arch_parse(const char *text);
/* The entry for a device of cc major.minor under the override text
 * (COMPARE_POLICY_ARCH's value, NULL when unset): the override when it
 * parses, else the device's. */
policy_arch policy_arch_select(int major, int minor, const char *override_text);
/* The entry for a device of cc major.minor, COMPARE_POLICY_ARCH honoured
 * (what a supports hook asks, from the device_info it is given). */
policy_arch policy_arch_for(int major, int minor);
/* The entry of the current CUDA device (COMPARE_POLICY_ARCH honoured);
 * POLICY_ARCH_GENERIC when the device cannot be queried. */
policy_arch policy_arch_current(void);
/* 1 when COMPARE_POLICY_ARCH sets a valid entry (the forced mode). */
int policy_arch_forced(void);
/* "sm_90", "sm_80", "sm_86/89" or "generic": for messages. Static strings. */
const char *policy_arch_name(policy_arch a);

#ifdef __cplusplus
}
#endif

#endif
