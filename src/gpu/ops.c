/* src/gpu/ops.c: the op table (one row per op) and the catalog assembled from
 * it: each op's variants in its file's order, then plugin variants, then its
 * search candidates (hidden rows until `--candidates FAMILY`: candidates.h). */
#include "op.h"

#include "candidates.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern const op_desc op_sgemm, op_reduce, op_sort, op_transpose, op_histogram, op_scan, op_transfer;
extern const op_desc op_softmax, op_rmsnorm, op_layernorm;
extern const op_desc op_gemv;
extern const op_desc op_gemm;
extern const op_desc op_attention;
extern const op_desc op_conv2d;
/* the ops' candidate rows (candidates.h) */
static int (*const ops_candidate_tables[])(const variant **rows) = {op_sgemm_candidates, op_transpose_candidates,
                                                                      op_attention_candidates};

static const op_desc *const ops_table[] = {
    &op_sgemm,
    &op_reduce,
    &op_sort,
    &op_transpose,
    &op_histogram,
    &op_scan,
    &op_transfer,
    &op_softmax,
    &op_rmsnorm,
    &op_layernorm,
    &op_gemv,
    &op_gemm,
    &op_attention,
    &op_conv2d,
};
#define OPS_COUNT ((int)(sizeof ops_table / sizeof ops_table[0]))

#define OPS_MAX_EXTRA 64 /* plugin variants */
#define OPS_MAX_ROWS (512 + OPS_MAX_EXTRA) /* built-in rows and candidates, then plugin rows */

static op_info ops_infos[OPS_COUNT];
static const variant *ops_rows[OPS_MAX_ROWS];
static variant_info ops_row_infos[OPS_MAX_ROWS];
static variant ops_extra[OPS_MAX_EXTRA];
static int ops_extra_count;
static catalog ops_cat;
static int ops_built;

int ops_count(void) { return OPS_COUNT; }

const op_desc *ops_get(int i) { return i >= 0 && i < OPS_COUNT ? ops_table[i] : NULL; }

static void ops_build(void)
{
    int n = 0;
    for (int i = 0; i < OPS_COUNT; i++) {
        const int first = n; /* this op's first row */
        ops_infos[i] = ops_table[i]->info;
        for (int j = 0; j < ops_table[i]->variant_count && n < 512; j++) ops_rows[n++] = &ops_table[i]->variants[j];
        /* plugin rows of this op follow its own rows */
        for (int j = 0; j < ops_extra_count; j++)
            if (strcmp(ops_extra[j].info.op, ops_table[i]->info.name) == 0) ops_rows[n++] = &ops_extra[j];
        /* then its search candidates */
        for (size_t t = 0; t < sizeof ops_candidate_tables / sizeof ops_candidate_tables[0]; t++) {
            const variant *rows;
            const int count = ops_candidate_tables[t](&rows);
            for (int j = 0; j < count && n < 512; j++) {
                if (strcmp(rows[j].info.op, ops_table[i]->info.name) != 0) continue;
                int taken = 0; /* a name is unique within its op: a candidate never shadows a row */
                for (int r = first; r < n && !taken; r++) taken = strcmp(ops_rows[r]->info.name, rows[j].info.name) == 0;
                if (taken)
                    fprintf(stderr, "compare: candidate %s of %s left out: the name is taken\n", rows[j].info.name,
                            ops_table[i]->info.name);
                else
                    ops_rows[n++] = &rows[j];
            }
        }
    }
    for (int i = 0; i < n; i++) ops_row_infos[i] = ops_rows[i]->info;
    ops_cat.ops = ops_infos;
    ops_cat.op_count = OPS_COUNT;
    ops_cat.variants = ops_row_infos;
    ops_cat.variant_count = n;
    ops_built = 1;
}

const catalog *ops_catalog(void)
{
    if (!ops_built) ops_build();
    return &ops_cat;
}

const variant *ops_variant(int catalog_index)
{
    const catalog *c = ops_catalog();
    return catalog_index >= 0 && catalog_index < c->variant_count ? ops_rows[catalog_index] : NULL;
}

int ops_check_variant(const variant *v, int pending, char *err, size_t err_len)
{
    const catalog *c = ops_catalog();
    if (catalog_op(c, v->info.op) < 0) {
        snprintf(err, err_len, "variant '%s': unknown op '%s'", v->info.name, v->info.op);
        return -1;
    }
    if (catalog_variant(c, v->info.op, v->info.name) >= 0) {
        snprintf(err, err_len, "variant '%s' of op %s already exists", v->info.name, v->info.op);
        return -1;
    }
    if (ops_extra_count + pending >= OPS_MAX_EXTRA) {
        snprintf(err, err_len, "more than %d plugin variants", OPS_MAX_EXTRA);
        return -1;
    }
    return 0;
}

int ops_add_variant(const variant *v, char *err, size_t err_len)
{
    if (ops_check_variant(v, 0, err, err_len))
        return -1;
    ops_extra[ops_extra_count++] = *v;
    ops_build();
    return 0;
}

void op_plugin_slots(op_plugin_binding *b, const void *in0, const void *in1, void *out0, void *out1)
{
    const void *ins[] = {in0, in1};
    void *outs[] = {out0, out1};
    for (int i = 0; i < 2 && ins[i] && b->input_count < OP_PLUGIN_MAX_BUFFERS; i++) b->inputs[b->input_count++] = ins[i];
    for (int i = 0; i < 2 && outs[i] && b->output_count < OP_PLUGIN_MAX_BUFFERS; i++)
        b->outputs[b->output_count++] = outs[i];
}

void op_plugin_axis(op_plugin_binding *b, const char *name, long long value)
{
    if (b->axis_count == OP_PLUGIN_MAX_AXES) return;
    b->axes[b->axis_count].name = name;
    b->axes[b->axis_count++].value = value;
}
