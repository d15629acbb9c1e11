/* src/core/axes.c: parsing an axis's LIST against its declaration and
 * finding the values of each axis in a run (see axes.h). */
#include "axes.h"

#include <stdio.h>
#include <string.h>

int axes_is_shape_dim(const char *name)
{
    return strcmp(name, "m") == 0 || strcmp(name, "n") == 0 || strcmp(name, "k") == 0;
}

static int axes_parse_enum(const op_info *op, const op_axis *a, const char *list, axes_list *out, char *err,
                           size_t err_len)
{
    const char *names[OP_AXIS_MAX_VALUES];
    int n = catalog_axis_names(op, a, names, OP_AXIS_MAX_VALUES);
    const char *p = list;
    char known[256];
    catalog_join(names, n, ", ", known, sizeof known);
    out->count = 0;
    for (;;) {
        const char *c = strchr(p, ',');
        size_t l = c ? (size_t)(c - p) : strlen(p);
        int found = -1;
        for (int i = 0; i < n && found < 0; i++)
            if (strlen(names[i]) == l && strncmp(names[i], p, l) == 0) found = i;
        if (found < 0) {
            snprintf(err, err_len, "'%.*s' is not a value of %s (expected %s)", (int)(l > 64 ? 64 : l), p, a->name,
                     known);
            return -1;
        }
        for (int i = 0; i < out->count; i++)
            if (out->name[i] == names[found]) {
                snprintf(err, err_len, "'%s' is listed twice", names[found]);
                return -1;
            }
        out->name[out->count++] = names[found]; /* at most n <= OP_AXIS_MAX_VALUES: distinct */
        if (!c) break;
        p = c + 1;
    }
    return 0;
}

int axes_parse(const op_info *op, const op_axis *a, const char *list, axes_list *out, char *err, size_t err_len)
{
    memset(out, 0, sizeof *out);
    if (a->kind == OP_AXIS_ENUM) {
        if (axes_parse_enum(op, a, list, out, err, err_len)) return -1;
    } else {
        if (sizes_parse(list, a->min, a->max, out->num, SIZES_MAX_COUNT, &out->count, err, err_len)) return -1;
        for (int i = 0; a->kind == OP_AXIS_POW2 && i < out->count; i++)
            if (out->num[i] & (out->num[i] - 1)) {
                snprintf(err, err_len, "%lld is not a power of two (axis %s takes powers of two only)", out->num[i],
                         a->name);
                return -1;
            }
    }
    if (a->option && out->count != 1) {
        snprintf(err, err_len, "%s is an option of %s: one value, not a list", a->name, op->name);
        return -1;
    }
    return 0;
}

static const cli_axis_arg *axes_arg(const cli_options *o, const char *name)
{
    for (int i = 0; i < o->axis_arg_count; i++)
        if (strcmp(o->axis_args[i].name, name) == 0) return &o->axis_args[i];
    return NULL;
}

int axes_values(const cli_options *o, const op_info *op, int axis, axes_list *out, char *err, size_t err_len)
{
    const op_axis *a = &op->axes[axis];
    const cli_axis_arg *arg = axes_arg(o, a->name);
    char sub[512];
    if (strcmp(a->name, "elems") == 0 && o->elems_count > 0) {
        memset(out, 0, sizeof *out);
        out->count = o->elems_count;
        memcpy(out->num, o->elems, (size_t)o->elems_count * sizeof o->elems[0]);
        return 0;
    }
    if (arg) {
        if (axes_parse(op, a, arg->list, out, sub, sizeof sub) == 0) return 0;
        snprintf(err, err_len, "%s '%s' (%s): %s", arg->opt, arg->list, op->name, sub);
        return -1;
    }
    if (a->kind == OP_AXIS_ENUM && !a->defaults) {
        memset(out, 0, sizeof *out);
        out->count = catalog_axis_names(op, a, out->name, OP_AXIS_MAX_VALUES);
        return 0;
    }
    if (!a->defaults || axes_parse(op, a, a->defaults, out, sub, sizeof sub)) {
        snprintf(err, err_len, "%s: axis %s has no valid default (%s)", op->name, a->name,
                 a->defaults ? sub : "none declared");
        return -1;
    }
    return 0;
}

void axes_names(const op_info *op, char *buf, size_t len)
{
    const char *names[OP_MAX_AXES];
    int n = catalog_axis_count(op);
    for (int a = 0; a < n; a++) names[a] = op->axes[a].name;
    catalog_join(names, n, ",", buf, len);
}

void axes_describe(const catalog *cat, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int i = 0; i < cat->op_count && used + 1 < len; i++) {
        char axes[256];
        axes_names(&cat->ops[i], axes, sizeof axes);
        int w = snprintf(buf + used, len - used, "%s%s: %s", i ? "; " : "", cat->ops[i].name, axes);
        if (w < 0) return;
        used += (size_t)w;
    }
}

int axes_check(const cli_options *o, const catalog *cat, char *err, size_t err_len)
{
    char list[1024];
    for (int i = 0; i < o->axis_arg_count; i++) {
        const cli_axis_arg *arg = &o->axis_args[i];
        int has = 0, runs = 0;
        size_t used = 0;
        list[0] = '\0';
        for (int op = 0; op < cat->op_count; op++) {
            if (catalog_axis(&cat->ops[op], arg->name) < 0) continue;
            has++;
            if (used + 1 < sizeof list) {
                int w = snprintf(list + used, sizeof list - used, "%s%s", used ? ", " : "", cat->ops[op].name);
                if (w > 0) used += (size_t)w;
            }
            if (!cli_op_runs(o, op)) continue;
            runs++;
            axes_list v;
            if (axes_values(o, &cat->ops[op], catalog_axis(&cat->ops[op], arg->name), &v, err, err_len)) return 2;
        }
        if (!has) {
            char all[1024];
            axes_describe(cat, all, sizeof all);
            snprintf(err, err_len, "%s: no op has an axis '%s' (the ops' axes: %s)", arg->opt, arg->name, all);
            return 2;
        }
        if (!runs) {
            snprintf(err, err_len, "%s is given but no op that has axis %s is run (it is an axis of %s)", arg->opt,
                     arg->name, list);
            return 2;
        }
    }
    return 0;
}
