/* tests/test_policy.c: the per-architecture policy selection
 * (kernels/common/policy.c), on the CPU: each compute capability maps to its
 * entry (9.0 -> sm_90, 8.0 -> sm_80, 8.6/8.7/8.9 -> sm_86/89, anything else,
 * newer GPUs included, -> generic), the override COMPARE_POLICY_ARCH wins
 * when it parses and is ignored when it does not. */
#include <string.h>

#include "policy.h"
#include "testlib.h"

int main(void)
{
    static const struct {
        int major, minor;
        policy_arch want;
    } ccs[] = {{9, 0, POLICY_ARCH_90},      {8, 0, POLICY_ARCH_80},      {8, 6, POLICY_ARCH_86},
               {8, 7, POLICY_ARCH_86},      {8, 9, POLICY_ARCH_86},      {7, 5, POLICY_ARCH_GENERIC},
               {10, 0, POLICY_ARCH_GENERIC}, {12, 0, POLICY_ARCH_GENERIC}, {9, 1, POLICY_ARCH_GENERIC},
               {0, 0, POLICY_ARCH_GENERIC}};
    for (size_t i = 0; i < sizeof ccs / sizeof ccs[0]; i++) {
        CHECK(policy_arch_of_cc(ccs[i].major, ccs[i].minor) == ccs[i].want, "cc %d.%d -> %d, want %d",
              ccs[i].major, ccs[i].minor, (int)policy_arch_of_cc(ccs[i].major, ccs[i].minor), (int)ccs[i].want);
        /* no override, an empty one, an invalid one: the device's entry */
        CHECK(policy_arch_select(ccs[i].major, ccs[i].minor, NULL) == ccs[i].want, "cc %d.%d unset", ccs[i].major,
              ccs[i].minor);
        CHECK(policy_arch_select(ccs[i].major, ccs[i].minor, "") == ccs[i].want, "cc %d.%d empty", ccs[i].major,
              ccs[i].minor);
        CHECK(policy_arch_select(ccs[i].major, ccs[i].minor, "sm_80") == ccs[i].want, "cc %d.%d invalid",
              ccs[i].major, ccs[i].minor);
        /* the forced mode: every device takes the named entry */
        CHECK(policy_arch_select(ccs[i].major, ccs[i].minor, "80") == POLICY_ARCH_80, "cc %d.%d forced 80",
              ccs[i].major, ccs[i].minor);
        CHECK(policy_arch_select(ccs[i].major, ccs[i].minor, "generic") == POLICY_ARCH_GENERIC,
              "cc %d.%d forced generic", ccs[i].major, ccs[i].minor);
    }
    static const struct {
        const char *text;
        int want;
    } texts[] = {{"90", POLICY_ARCH_90}, {"80", POLICY_ARCH_80},       {"86", POLICY_ARCH_86}, {"89", POLICY_ARCH_86},
                 {"0", POLICY_ARCH_GENERIC}, {"generic", POLICY_ARCH_GENERIC}, {"8.0", -1}, {"sm_90", -1},
                 {"100", -1}, {" 80", -1}, {"80x", -1}, {"", -1}};
    for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++)
        CHECK(policy_arch_parse(texts[i].text) == texts[i].want, "parse '%s' -> %d, want %d", texts[i].text,
              policy_arch_parse(texts[i].text), texts[i].want);
    CHECK(policy_arch_parse(NULL) == -1, "parse NULL");
    CHECK(strcmp(policy_arch_name(POLICY_ARCH_90), "sm_90") == 0, "name 90");
    CHECK(strcmp(policy_arch_name(POLICY_ARCH_80), "sm_80") == 0, "name 80");
    CHECK(strcmp(policy_arch_name(POLICY_ARCH_86), "sm_86/89") == 0, "name 86");
    CHECK(strcmp(policy_arch_name(POLICY_ARCH_GENERIC), "generic") == 0, "name generic");
    return test_finish("test_policy");
}
