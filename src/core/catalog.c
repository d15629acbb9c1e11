#include "catalog.h"

#include <stdio.h>
#include <string.h>

int catalog_op(const catalog *c, const char *name)
{
    for (int i = 0; i < c->op_count; i++)
        if (strcmp(c->ops[i].name, name) == 0) return i;
    return -1;
}

int catalog_variant(const catalog *c, const char *op, const char *name)
{
    for (int i = 0; i < c->variant_count; i++)
        if (strcmp(c->variants[i].op, op) == 0 && strcmp(c->variants[i].name, name) == 0) return i;
    return -1;
}

const char *catalog_family(const variant_info *v)
{
    const size_t l = strlen(CATALOG_CANDIDATE_SOURCE);
    return v->source && strncmp(v->source, CATALOG_CANDIDATE_SOURCE, l) == 0 && v->source[l] ? v->source + l : NULL;
}

const char *catalog_rate_unit(op_rate r)
{
    switch (r) {
    case OP_RATE_TFLOPS: return "TFLOP/s";
    case OP_RATE_GBPS: return "GB/s";
    case OP_RATE_GKEYS: return "Gkeys/s";
    }
    return "?";
}

int catalog_axis_count(const op_info *op)
{
    int n = 0;
    while (n < OP_MAX_AXES && op->axes[n].name) n++;
    return n;
}

int catalog_axis(const op_info *op, const char *name)
{
    for (int i = 0; i < catalog_axis_count(op); i++)
        if (strcmp(op->axes[i].name, name) == 0) return i;
    return -1;
}

int catalog_axis_names(const op_info *op, const op_axis *a, const char **out, int cap)
{
    const char *const *src = a->values[0] ? a->values : op->types;
    int max = a->values[0] ? OP_AXIS_MAX_VALUES : OP_MAX_TYPES, n = 0;
    while (n < max && n < cap && src[n]) {
        out[n] = src[n];
        n++;
    }
    return n;
}

void catalog_join(const char *const *names, int n, const char *sep, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int i = 0; i < n && used + 1 < len; i++) {
        int w = snprintf(buf + used, len - used, "%s%s", i ? sep : "", names[i]);
        if (w < 0) break;
        used += (size_t)w;
    }
}

const char *catalog_axis_kind_name(op_axis_kind k)
{
    switch (k) {
    case OP_AXIS_INT: return "int";
    case OP_AXIS_POW2: return "pow2";
    case OP_AXIS_ENUM: return "enum";
    }
    return "?";
}
