/* tests/catalog_rows.c: see catalog_rows.h. */
#include "catalog_rows.h"

#include <stdio.h>
#include <string.h>

#include "device.h"
#include "testlib.h"

int catalog_hand_rows(const char *op, const variant **rows, int max)
{
    const catalog *cat = ops_catalog();
    int count = 0;
    CHECK(catalog_op(cat, op) >= 0, "no op %s in the catalog", op);
    for (int i = 0; i < cat->variant_count; i++) {
        const variant *v = ops_variant(i);
        /* search candidates (catalog_family) take a table index first: not launchers */
        if (strcmp(v->info.op, op) != 0 || v->info.is_library || v->info.test_only || v->plugin != NULL ||
            v->fn == NULL || catalog_family(&v->info))
            continue;
        CHECK(count < max, "%s: more than %d hand rows", op, max);
        if (count < max) rows[count++] = v;
    }
    CHECK(count > 0, "%s: no hand row with a launcher in the catalog", op);
    return count;
}

void catalog_check_library_rows(const char *op, const char *const *names, int count)
{
    const catalog *cat = ops_catalog();
    for (int i = 0; i < cat->variant_count; i++) {
        const variant *v = ops_variant(i);
        int known = 0;
        if (strcmp(v->info.op, op) != 0 || !v->info.is_library || v->plugin != NULL) continue;
        for (int j = 0; j < count; j++) known |= strcmp(names[j], v->info.name) == 0;
        CHECK(known, "%s: library row %s is not called by this test (add its call)", op, v->info.name);
    }
}

plan_case catalog_case(const char *op, long long m, long long n, long long k, long long elems, const char *type)
{
    const catalog *cat = ops_catalog();
    plan_case pc;
    memset(&pc, 0, sizeof pc);
    pc.op = catalog_op(cat, op);
    CHECK(pc.op >= 0, "no op %s in the catalog", op);
    if (pc.op < 0) return pc;
    pc.m = m;
    pc.n = n;
    pc.k = k;
    pc.elems = elems;
    pc.type = type;
    pc.axes = cat->ops[pc.op].axes;
    pc.axis_count = catalog_axis_count(&cat->ops[pc.op]);
    for (int a = 0; a < pc.axis_count; a++) {
        const char *name = pc.axes[a].name;
        pc.axis_num[a] = strcmp(name, "m") == 0   ? m
                         : strcmp(name, "n") == 0 ? n
                         : strcmp(name, "k") == 0 ? k
                         : strcmp(name, "elems") == 0 ? elems
                                                      : 0;
        if (strcmp(name, "type") == 0) pc.axis_name[a] = type;
    }
    snprintf(pc.label, sizeof pc.label, "%s m=%lld n=%lld k=%lld elems=%lld %s", op, m, n, k, elems,
             type ? type : "");
    return pc;
}

/* device 0 as compare sees it (device_open: the same info the run loop hands
 * the supports hooks); opened once, at the first row with a hook */
static const device_info *catalog_device(void)
{
    static device_ctx dev;
    static int state; /* 0 not yet, 1 open, -1 failed */
    char err[256] = "";
    if (state == 0) {
        state = device_open(&dev, 0, 1, err, sizeof err) == 0 ? 1 : -1;
        CHECK(state == 1, "device_open: %s", err);
    }
    return state == 1 ? &dev.info : NULL;
}

int catalog_row_runs(const variant *v, const plan_case *pc)
{
    char why[256] = "";
    const device_info *dev;
    if (v->supports == NULL) return 1;
    dev = catalog_device();
    if (dev == NULL) return 0;
    if (v->supports(pc, dev, v, why, sizeof why)) return 1;
    printf("SKIP %s %s (%s): %s\n", v->info.op, v->info.name, pc->label, why);
    return 0;
}

size_t catalog_row_workspace(const variant *v, const plan_case *pc)
{
    return v->workspace ? v->workspace(pc, v) : 0;
}
