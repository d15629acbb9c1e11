/* src/gpu/plugin.c: see plugin.h. A plugin's variant becomes an ordinary
 * catalog row: its op's standard adapter (op_desc.run_launcher) calls the
 * plugin's launcher, the workspace and supports queries are forwarded. */
#include "plugin.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare_plugin.h"
#include "op.h"

static const compare_plugin_variant *plugin_row(const variant *v) { return v->plugin; }

static compare_plugin_case plugin_case(const plan_case *pc)
{
    compare_plugin_case c = {pc->m, pc->n, pc->k, pc->elems};
    return c;
}

static size_t plugin_workspace(const plan_case *pc, const variant *v)
{
    compare_plugin_case c = plugin_case(pc);
    return plugin_row(v)->workspace_bytes(&c);
}

static int plugin_supports(const plan_case *pc, const device_info *dev, const variant *v, char *why, size_t len)
{
    compare_plugin_case c = plugin_case(pc);
    (void)dev;
    why[0] = '\0';
    if (plugin_row(v)->supports(&c, why, len)) return 1;
    if (!why[0]) snprintf(why, len, "%s declines this case (no reason given)", v->info.name);
    return 0;
}

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

/* every launcher field of compare_plugin_variant (an op takes one or two of them) */
static const size_t plugin_fn_fields[] = {
    offsetof(compare_plugin_variant, sgemm),
    offsetof(compare_plugin_variant, reduce),
    offsetof(compare_plugin_variant, sort_u32),
    offsetof(compare_plugin_variant, sort_f32),
};

static variant_fn plugin_fn_at(const compare_plugin_variant *r, size_t off)
{
    variant_fn f = NULL;
    if (off != OP_PLUGIN_NO_FN)
        memcpy(&f, (const char *)r + off, sizeof f); /* every launcher field is a function pointer */
    return f;
}

/* Row r's launchers and math against what its op takes (spec): the math
 * entry it matches, or NULL. */
static const op_plugin_math *plugin_match(const compare_plugin_variant *r, const op_plugin_spec *spec)
{
    for (size_t i = 0; i < sizeof plugin_fn_fields / sizeof plugin_fn_fields[0]; i++) {
        const size_t off = plugin_fn_fields[i];
        const int wanted = off == spec->fn || off == spec->fn2;
        if ((plugin_fn_at(r, off) != NULL) != wanted)
            return NULL;
    }
    for (size_t i = 0; r->math && i < sizeof spec->maths / sizeof spec->maths[0]; i++)
        if (spec->maths[i].math && strcmp(spec->maths[i].math, r->math) == 0)
            return &spec->maths[i];
    return NULL;
}

/* what each op that takes a plugin takes, for the error ("sgemm: .sgemm, ...; reduce: ...") */
static void plugin_usage(char *out, size_t len)
{
    size_t used = 0;
    out[0] = '\0';
    for (int i = 0; i < ops_count() && used < len; i++) {
        const op_desc *op = ops_get(i);
        if (!op->plugin)
            continue;
        int w = snprintf(out + used, len - used, "%s%s: %s", used ? "; " : "", op->info.name, op->plugin->usage);
        used += w > 0 ? (size_t)w : 0;
    }
}

/* Checks row i of the plugin and makes its variant; 0 or 2 with err. */
static int plugin_make_row(const char *path, const compare_plugin_variant *r, int i, const char *source,
                           variant *v, char *err, size_t err_len)
{
    const catalog *cat = ops_catalog();
    int op_index;
    const op_desc *op;
    const op_plugin_math *pm;
    memset(v, 0, sizeof *v);
    if (!plugin_name_ok(r->name)) {
        snprintf(err, err_len, "--plugin '%s': variant %d: invalid name '%s' (1-31 of [a-z0-9_], a letter first)",
                 path, i, r->name ? r->name : "(null)");
        return 2;
    }
    op_index = r->op ? catalog_op(cat, r->op) : -1;
    if (op_index < 0 || !ops_get(op_index)->run_launcher || !ops_get(op_index)->plugin) {
        char usage[256];
        plugin_usage(usage, sizeof usage);
        snprintf(err, err_len, "--plugin '%s': variant '%s': op '%s' takes no plugin (%s)", path, r->name,
                 r->op ? r->op : "(null)", usage);
        return 2;
    }
    op = ops_get(op_index);
    pm = plugin_match(r, op->plugin);
    if (!pm) {
        char usage[256];
        plugin_usage(usage, sizeof usage);
        snprintf(err, err_len, "--plugin '%s': variant '%s' (op %s): needs exactly its op's launcher(s) and math (%s)",
                 path, r->name, op->info.name, usage);
        return 2;
    }
    if (catalog_variant(cat, op->info.name, r->name) >= 0) {
        snprintf(err, err_len, "--plugin '%s': variant '%s' of op %s already exists (names must be unique)", path,
                 r->name, op->info.name);
        return 2;
    }
    v->info.op = op->info.name;
    v->info.name = r->name;
    v->info.is_library = 0;
    v->info.math = pm->row_math;
    v->info.ref_library = pm->ref_library;
    v->info.source = source;
    v->info.about = r->about ? r->about : "(plugin)";
    v->run = op->run_launcher;
    v->fn = plugin_fn_at(r, op->plugin->fn);
    v->fn2 = plugin_fn_at(r, op->plugin->fn2);
    v->workspace = r->workspace_bytes ? plugin_workspace : NULL;
    v->supports = r->supports ? plugin_supports : NULL;
    v->plugin = r;
    return 0;
}

int plugin_load(const char *path, char *err, size_t err_len)
{
    void *h;
    compare_plugin_get_fn get;
    const compare_plugin *p;
    char *source;
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
    if (p->abi_version != COMPARE_PLUGIN_ABI_VERSION) {
        snprintf(err, err_len, "--plugin '%s': ABI version %d, this compare speaks version %d (rebuild the plugin "
                 "against this compare's compare_plugin.h)", path, p->abi_version, COMPARE_PLUGIN_ABI_VERSION);
        dlclose(h);
        return 2;
    }
    if (p->variant_count < 1 || p->variant_count > 64 || !p->variants) {
        snprintf(err, err_len, "--plugin '%s': variant_count %d (expected 1 to 64 rows)", path, p->variant_count);
        dlclose(h);
        return 2;
    }
    source = strdup(plugin_basename(path)); /* lives as long as the process, like the library */
    if (!source) {
        snprintf(err, err_len, "--plugin '%s': out of memory", path);
        dlclose(h);
        return 2;
    }
    /* check every row before adding any, so a bad plugin adds nothing */
    for (int i = 0; i < p->variant_count; i++) {
        variant v;
        int rc = plugin_make_row(path, &p->variants[i], i, source, &v, err, err_len);
        for (int j = 0; rc == 0 && j < i; j++)
            if (p->variants[j].name && strcmp(p->variants[j].name, p->variants[i].name) == 0 &&
                p->variants[j].op && p->variants[i].op && strcmp(p->variants[j].op, p->variants[i].op) == 0) {
                snprintf(err, err_len, "--plugin '%s': variant '%s' is listed twice", path, p->variants[i].name);
                rc = 2;
            }
        char e2[256];
        if (rc == 0 && ops_check_variant(&v, i, e2, sizeof e2)) {
            snprintf(err, err_len, "--plugin '%s': %s", path, e2);
            rc = 2;
        }
        if (rc) {
            free(source);
            dlclose(h);
            return rc;
        }
    }
    for (int i = 0; i < p->variant_count; i++) {
        variant v;
        char e2[256];
        plugin_make_row(path, &p->variants[i], i, source, &v, err, err_len);
        if (ops_add_variant(&v, e2, sizeof e2)) { /* checked above: not expected */
            snprintf(err, err_len, "--plugin '%s': %s", path, e2);
            return 2;
        }
    }
    return 0;
}
