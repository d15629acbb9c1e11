#include "catalog.h"

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

const char *catalog_rate_unit(op_rate r)
{
    switch (r) {
    case OP_RATE_TFLOPS: return "TFLOP/s";
    case OP_RATE_GBPS: return "GB/s";
    case OP_RATE_GKEYS: return "Gkeys/s";
    }
    return "?";
}
