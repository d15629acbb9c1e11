/* src/gpu/candidates.c: the rows of the candidate families (candidates.h):
 * one variant per candidate, the Hopper families declined off sm_90a. */
#include "candidates.h"

#include "policy.h"

#include <stdio.h>
#include <string.h>

/* the Hopper families: no code for any other GPU, and none under a forced
 * non-Hopper policy (COMPARE_POLICY_ARCH: their kernels have no PTX) */
static int candidates_sm90a(const plan_case *pc, const device_info *dev, const variant *v, char *why, size_t len)
{
    (void)pc;
    const policy_arch arch = policy_arch_for(dev->cc_major, dev->cc_minor);
    if (dev->cc_major == 9 && dev->cc_minor == 0 && arch == POLICY_ARCH_90) return 1;
    if (dev->cc_major == 9 && dev->cc_minor == 0)
        snprintf(why, len, "candidates of family %s need the sm_90 policy (sm_90a kernels, no PTX); "
                 "COMPARE_POLICY_ARCH forces %s", catalog_family(&v->info), policy_arch_name(arch));
    else
        snprintf(why, len, "candidates of family %s are built for sm_90a (Hopper) only; this GPU is cc %d.%d",
                 catalog_family(&v->info), dev->cc_major, dev->cc_minor);
    return 0;
}

int candidates_build(const candidate_family *families, int n, variant *rows, int cap)
{
    int count = 0;
    for (int f = 0; f < n; f++) {
        const candidate_family *fam = &families[f];
        for (int i = 0; i < fam->count(); i++) {
            if (count == cap) {
                fprintf(stderr, "compare: candidate %s (%s) left out: more than %d candidates\n", fam->name(i),
                        fam->source, cap);
                continue;
            }
            variant *v = &rows[count++];
            memset(v, 0, sizeof *v);
            v->info.op = fam->op;
            v->info.name = fam->name(i);
            v->info.math = fam->math;
            v->info.ref_library = fam->ref_library;
            v->info.source = fam->source;
            v->info.about = fam->about;
            v->run = fam->adapter;
            v->fn = fam->run;
            v->fn_index = i;
            v->supports = fam->sm90a ? candidates_sm90a : NULL;
            v->workspace = fam->workspace;
        }
    }
    return count;
}

void candidates_bind(const op_case *c, op_plugin_binding *b)
{
    memset(b, 0, sizeof *b);
    c->op->plugin->bind(c->pc, c, b);
}
