/* src/gpu/plugin.c: see plugin.h. A plugin's variant becomes an ordinary
 * catalog row whose adapter (plugin_run) builds compare_plugin_args for the
 * case and calls the row's one launcher. Every op is served the same way:
 * the sizes m, n, k, elems the case has become axes here, and the op's own
 * hook (op_desc.plugin->bind) adds its buffers and any axes of its own, so an
 * op added later takes plugins with no change in this file.
 *
 * A plugin's rows are copied once into this file's storage, normalised to
 * this header's layout (a row whose struct_size is smaller, from an older
 * header of the same ABI, reads as zeros past its end; a larger one, from a
 * newer header, is read up to what this compare knows). Rows of the same
 * name and op, for an op whose cases carry an element type, make one
 * variant that dispatches on the case's type. */
#include "plugin.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "compare_plugin.h"
#include "op.h"

#define PLUGIN_MAX_VARIANTS 64 /* over every plugin loaded (ops.c holds as many extra rows) */

/* What ABI 2's first header had: a struct_size below these is not ABI 2. */
#define PLUGIN_TABLE_MIN (offsetof(compare_plugin, variants) + sizeof(const compare_plugin_variant *))
#define PLUGIN_ROW_MIN (offsetof(compare_plugin_variant, supports) + sizeof(void (*)(void)))
#define PLUGIN_ROW_MAX 4096 /* a larger struct_size is not a row's (and would be read past the table) */

/* One plugin variant: the rows (one per element type) of one name of one op. */
typedef struct {
    const op_desc *op;
    int row_count;
    compare_plugin_variant rows[OP_PLUGIN_MAX_TYPES];
} plugin_variant;

static plugin_variant plugin_variants[PLUGIN_MAX_VARIANTS];
static int plugin_variant_count;

// ---------------------------------------------------------------------------
// calling a row

/* The row of variant pv that runs case pc: the one of the case's element
 * type, or the only one when the op's cases carry no type; NULL: none. */
static const compare_plugin_variant *plugin_row_for(const plugin_variant *pv, const plan_case *pc)
{
    if (!pc->type) return &pv->rows[0];
    for (int i = 0; i < pv->row_count; i++)
        if (strcmp(pv->rows[i].type, pc->type) == 0) return &pv->rows[i];
    return NULL;
}

/* The args of a call of row r on case pc: axes, then, with c, the buffers
 * and the workspace. b holds what a points into. */
static void plugin_args(const plan_case *pc, const op_case *c, const plugin_variant *pv,
                        const compare_plugin_variant *r, op_plugin_binding *b, compare_plugin_args *a)
{
    static const char *const names[] = {"m", "n", "k", "elems"};
    const long long sizes[] = {pc->m, pc->n, pc->k, pc->elems};
    memset(b, 0, sizeof *b);
    for (int i = 0; i < 4; i++)
        if (sizes[i] > 0) op_plugin_axis(b, names[i], sizes[i]);
    pv->op->plugin->bind(pc, c, b);
    memset(a, 0, sizeof *a);
    a->struct_size = sizeof *a;
    a->op = pv->op->info.name;
    a->type = r->type;
    a->m = pc->m;
    a->n = pc->n;
    a->k = pc->k;
    a->elems = pc->elems;
    a->axis_count = b->axis_count;
    a->axes = b->axes;
    a->input_count = b->input_count;
    a->inputs = b->inputs;
    a->output_count = b->output_count;
    a->outputs = b->outputs;
    a->workspace = c ? c->workspace : NULL;
    a->workspace_bytes = c ? c->workspace_bytes : 0;
}

static int plugin_run(const op_case *c, const variant *v, cudaStream_t s)
{
    const plugin_variant *pv = v->plugin;
    const compare_plugin_variant *r = plugin_row_for(pv, c->pc);
    op_plugin_binding b;
    compare_plugin_args a;
    if (!r) { /* plugin_supports declined it: not expected here */
        status_set_message("%s has no row of type %s", v->info.name, c->pc->type);
        return STATUS_ERROR;
    }
    plugin_args(c->pc, c, pv, r, &b, &a);
    if (check_cuda_status((cudaError_t)r->launch(&a, s), "launch(args, stream)", __FILE__, __LINE__))
        return STATUS_ERROR;
    return STATUS_OK;
}

static size_t plugin_workspace(const plan_case *pc, const variant *v)
{
    const plugin_variant *pv = v->plugin;
    const compare_plugin_variant *r = plugin_row_for(pv, pc);
    op_plugin_binding b;
    compare_plugin_args a;
    if (!r || !r->workspace_bytes) return 0;
    plugin_args(pc, NULL, pv, r, &b, &a);
    return r->workspace_bytes(&a);
}

static int plugin_supports(const plan_case *pc, const device_info *dev, const variant *v, char *why, size_t len)
{
    const plugin_variant *pv = v->plugin;
    const compare_plugin_variant *r = plugin_row_for(pv, pc);
    op_plugin_binding b;
    compare_plugin_args a;
    (void)dev;
    why[0] = '\0';
    if (!r) {
        char types[64] = "";
        for (int i = 0; i < pv->row_count; i++)
            snprintf(types + strlen(types), sizeof types - strlen(types), "%s%s", i ? ", " : "", pv->rows[i].type);
        snprintf(why, len, "%s has no %s row (its plugin gives %s)", v->info.name, pc->type, types);
        return 0;
    }
    if (!r->supports) return 1;
    plugin_args(pc, NULL, pv, r, &b, &a);
    if (r->supports(&a, why, len)) return 1;
    if (!why[0]) snprintf(why, len, "%s declines this case (no reason given)", v->info.name);
    return 0;
}

// ---------------------------------------------------------------------------
// checking a plugin's table

/* 1 if s is 1..31 characters of [a-z0-9_] starting with a letter */
static int plugin_name_ok(const char *s)
{
    size_t n = s ? strlen(s) : 0;
    if (n < 1 || n > 31 || s[0] < 'a' || s[0] > 'z') return 0;
    for (size_t i = 0; i < n; i++)
        if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= '0' && s[i] <= '9') || s[i] == '_')) return 0;
    return 1;
}

static const char *plugin_basename(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

/* The types op takes, "fp32|tf32", into out */
static void plugin_types_of(const op_desc *op, char *out, size_t len)
{
    size_t used = 0;
    out[0] = '\0';
    for (int t = 0; t < OP_PLUGIN_MAX_TYPES && op->plugin->types[t].type && used < len; t++) {
        int w = snprintf(out + used, len - used, "%s%s", t ? "|" : "", op->plugin->types[t].type);
        used += w > 0 ? (size_t)w : 0;
    }
}

/* what each op takes, for the error ("sgemm fp32|tf32; reduce fp32; ...") */
static void plugin_usage(char *out, size_t len)
{
    size_t used = 0;
    out[0] = '\0';
    for (int i = 0; i < ops_count() && used < len; i++) {
        const op_desc *op = ops_get(i);
        char types[64];
        if (!op->plugin) continue;
        plugin_types_of(op, types, sizeof types);
        int w = snprintf(out + used, len - used, "%s%s %s", used ? "; " : "", op->info.name, types);
        used += w > 0 ? (size_t)w : 0;
    }
}

/* The entry of .type t in op's plugin spec, or NULL */
static const op_plugin_type *plugin_type_of(const op_desc *op, const char *t)
{
    for (int i = 0; t && i < OP_PLUGIN_MAX_TYPES && op->plugin->types[i].type; i++)
        if (strcmp(op->plugin->types[i].type, t) == 0) return &op->plugin->types[i];
    return NULL;
}

/* Checks row r (the plugin's row i) on its own: name, op, type, launcher.
 * The op, or NULL with err. */
static const op_desc *plugin_check_row(const char *path, const compare_plugin_variant *r, int i, char *err,
                                       size_t err_len)
{
    const catalog *cat = ops_catalog();
    const int op_index = r->op ? catalog_op(cat, r->op) : -1;
    const op_desc *op = op_index >= 0 ? ops_get(op_index) : NULL;
    char usage[320];
    if (!plugin_name_ok(r->name)) {
        snprintf(err, err_len, "--plugin '%s': variant %d: invalid name '%s' (1-31 of [a-z0-9_], a letter first)",
                 path, i, r->name ? r->name : "(null)");
        return NULL;
    }
    if (!op || !op->plugin) {
        plugin_usage(usage, sizeof usage);
        snprintf(err, err_len, "--plugin '%s': variant '%s': op '%s' takes no plugin (ops and their types: %s)", path,
                 r->name, r->op ? r->op : "(null)", usage);
        return NULL;
    }
    if (!plugin_type_of(op, r->type)) {
        char types[64];
        plugin_types_of(op, types, sizeof types);
        snprintf(err, err_len, "--plugin '%s': variant '%s' (op %s): type '%s' is not one the op takes (%s; its "
                 "launch gets %s: see compare_plugin.h)", path, r->name, op->info.name, r->type ? r->type : "(null)",
                 types, op->plugin->slots);
        return NULL;
    }
    if (!r->launch) {
        snprintf(err, err_len, "--plugin '%s': variant '%s' (op %s): no .launch", path, r->name, op->info.name);
        return NULL;
    }
    if (catalog_variant(cat, op->info.name, r->name) >= 0) {
        snprintf(err, err_len, "--plugin '%s': variant '%s' of op %s already exists (names must be unique)", path,
                 r->name, op->info.name);
        return NULL;
    }
    return op;
}

/* Adds row r to the pending variants pv[0 .. *count): joined to the one of
 * the same name and op when the op's cases carry a type, else a new one.
 * 0, or 2 with err. */
static int plugin_group_row(const char *path, const compare_plugin_variant *r, const op_desc *op,
                            plugin_variant *pv, int *count, int room, char *err, size_t err_len)
{
    for (int j = 0; j < *count; j++) {
        plugin_variant *e = &pv[j];
        if (e->op != op || strcmp(e->rows[0].name, r->name) != 0) continue;
        int has_type = 0;
        for (int t = 0; t < e->row_count; t++) has_type |= strcmp(e->rows[t].type, r->type) == 0;
        if (!op->info.types[0] || has_type || e->row_count == OP_PLUGIN_MAX_TYPES) {
            if (op->info.types[0])
                snprintf(err, err_len, "--plugin '%s': variant '%s' is listed twice for type %s", path, r->name,
                         r->type);
            else
                snprintf(err, err_len, "--plugin '%s': variant '%s' is listed twice (%s's cases carry no element "
                         "type: one row per name)", path, r->name, op->info.name);
            return 2;
        }
        e->rows[e->row_count++] = *r;
        return 0;
    }
    if (*count >= room) {
        snprintf(err, err_len, "--plugin '%s': more than %d plugin variants in all", path, PLUGIN_MAX_VARIANTS);
        return 2;
    }
    memset(&pv[*count], 0, sizeof pv[*count]);
    pv[*count].op = op;
    pv[*count].rows[0] = *r;
    pv[*count].row_count = 1;
    (*count)++;
    return 0;
}

/* The catalog row of plugin variant pv */
static void plugin_make_variant(const plugin_variant *pv, const char *source, variant *v)
{
    const op_plugin_type *t = plugin_type_of(pv->op, pv->rows[0].type);
    memset(v, 0, sizeof *v);
    v->info.op = pv->op->info.name;
    v->info.name = pv->rows[0].name;
    v->info.is_library = 0;
    v->info.math = t->row_math;
    v->info.ref_library = t->ref_library;
    v->info.source = source;
    v->info.about = pv->rows[0].about ? pv->rows[0].about : "(plugin)";
    v->run = plugin_run;
    v->host_sync = pv->op->plugin->host_sync;
    v->workspace = plugin_workspace;
    v->supports = plugin_supports;
    v->plugin = pv;
}

/* The message for a table of another ABI version */
static void plugin_abi_message(const char *path, int version, char *err, size_t err_len)
{
    if (version == 1)
        snprintf(err, err_len,
                 "--plugin '%s': ABI version 1 (one launcher field per op); this compare speaks ABI version %d and "
                 "loads no ABI-1 plugin. Port it (compare_plugin.h, \"Porting from ABI 1\"): each row gets "
                 ".struct_size = sizeof(compare_plugin_variant) and .type for .math (sort: one row per key type, "
                 "u32 and f32, of the same name), and one .launch(const compare_plugin_args *a, cudaStream_t s) "
                 "calling your launcher with a->inputs[], a->outputs[] and a->m, n, k, elems; the table gets "
                 ".struct_size = sizeof(compare_plugin) and COMPARE_PLUGIN_ABI_VERSION",
                 path, COMPARE_PLUGIN_ABI_VERSION);
    else
        snprintf(err, err_len,
                 "--plugin '%s': ABI version %d, this compare speaks version %d (rebuild the plugin against this "
                 "compare's compare_plugin.h)", path, version, COMPARE_PLUGIN_ABI_VERSION);
}

/* Reads and checks the table p into pv[0 .. *count) (room rows at most):
 * 0, or 2 with err. */
static int plugin_read_table(const char *path, const compare_plugin *p, plugin_variant *pv, int *count, int room,
                             char *err, size_t err_len)
{
    compare_plugin t;
    size_t stride;
    if (p->abi_version != COMPARE_PLUGIN_ABI_VERSION) {
        plugin_abi_message(path, p->abi_version, err, err_len);
        return 2;
    }
    if (p->struct_size < PLUGIN_TABLE_MIN) {
        snprintf(err, err_len, "--plugin '%s': the table's struct_size is %zu (set it to sizeof(compare_plugin))",
                 path, p->struct_size);
        return 2;
    }
    memset(&t, 0, sizeof t);
    memcpy(&t, p, p->struct_size < sizeof t ? p->struct_size : sizeof t);
    if (t.variant_count < 1 || t.variant_count > PLUGIN_MAX_VARIANTS || !t.variants) {
        snprintf(err, err_len, "--plugin '%s': variant_count %d (expected 1 to %d rows)", path, t.variant_count,
                 PLUGIN_MAX_VARIANTS);
        return 2;
    }
    stride = t.variants[0].struct_size;
    *count = 0;
    for (int i = 0; i < t.variant_count; i++) {
        const compare_plugin_variant *raw = (const void *)((const char *)t.variants + (size_t)i * stride);
        compare_plugin_variant r;
        const op_desc *op;
        if (stride < PLUGIN_ROW_MIN || stride > PLUGIN_ROW_MAX || raw->struct_size != stride) {
            snprintf(err, err_len, "--plugin '%s': variant %d: struct_size %zu (set every row's to "
                     "sizeof(compare_plugin_variant); row 0 says %zu)", path, i, raw->struct_size, stride);
            return 2;
        }
        memset(&r, 0, sizeof r);
        memcpy(&r, raw, stride < sizeof r ? stride : sizeof r);
        if (!(op = plugin_check_row(path, &r, i, err, err_len))) return 2;
        if (plugin_group_row(path, &r, op, pv, count, room, err, err_len)) return 2;
    }
    return 0;
}

int plugin_load(const char *path, char *err, size_t err_len)
{
    void *h;
    compare_plugin_get_fn get;
    const compare_plugin *p;
    char *source;
    plugin_variant *pending = &plugin_variants[plugin_variant_count];
    int count = 0, rc;
    h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        snprintf(err, err_len, "--plugin '%s': cannot load it: %s", path, dlerror());
        return 2;
    }
    dlerror();
    get = (compare_plugin_get_fn)dlsym(h, COMPARE_PLUGIN_SYMBOL);
    if (!get) {
        const char *e = dlerror();
        snprintf(err, err_len, "--plugin '%s': no symbol %s (%s)", path, COMPARE_PLUGIN_SYMBOL,
                 e ? e : "it is NULL");
        dlclose(h);
        return 2;
    }
    p = get();
    if (!p) {
        snprintf(err, err_len, "--plugin '%s': %s() returned NULL", path, COMPARE_PLUGIN_SYMBOL);
        dlclose(h);
        return 2;
    }
    /* check every row before adding any, so a bad plugin adds nothing */
    rc = plugin_read_table(path, p, pending, &count, PLUGIN_MAX_VARIANTS - plugin_variant_count, err, err_len);
    source = rc ? NULL : strdup(plugin_basename(path)); /* lives as long as the process, like the library */
    if (!rc && !source) {
        snprintf(err, err_len, "--plugin '%s': out of memory", path);
        rc = 2;
    }
    for (int i = 0; !rc && i < count; i++) {
        variant v;
        char e2[256];
        plugin_make_variant(&pending[i], source, &v);
        if (ops_check_variant(&v, i, e2, sizeof e2)) {
            snprintf(err, err_len, "--plugin '%s': %s", path, e2);
            rc = 2;
        }
    }
    if (rc) {
        free(source);
        dlclose(h);
        return rc;
    }
    for (int i = 0; i < count; i++) {
        variant v;
        char e2[256];
        plugin_make_variant(&pending[i], source, &v);
        if (ops_add_variant(&v, e2, sizeof e2)) { /* checked above: not expected */
            snprintf(err, err_len, "--plugin '%s': %s", path, e2);
            return 2;
        }
        plugin_variant_count++;
    }
    return 0;
}
