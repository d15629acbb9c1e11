/* src/core/list.c: `compare --list`, the catalog as text (a table of the ops
 * with their axes, then one of the variants) or as JSON (--format json: each
 * op with its axes, element types and variants, for tools that must not
 * keep their own op table). */
#include "list.h"

#include <string.h>

#include "axes.h"
#include "report.h"

int list_op_types(const cli_options *o, const catalog *cat, int op, const char **out, int cap)
{
    const op_info *info = &cat->ops[op];
    int n = 0;
    if (info->types[0]) {
        while (n < OP_MAX_TYPES && n < cap && info->types[n]) {
            out[n] = info->types[n];
            n++;
        }
        return n;
    }
    /* one element type, each row's math its variant's: the maths of its rows, each once */
    for (int i = 0; i < cat->variant_count && n < cap; i++) {
        const variant_info *v = &cat->variants[i];
        int dup = 0;
        if (strcmp(v->op, info->name) != 0 || !cli_variant_visible(o, v)) continue;
        for (int j = 0; j < n && !dup; j++) dup = strcmp(out[j], v->math) == 0;
        if (!dup) out[n++] = v->math;
    }
    return n;
}

/* "fp32,tf32": a row's math as --list shows it ("types": the op's types). */
static void list_math(const op_info *op, const variant_info *v, char *buf, size_t len)
{
    int n = 0;
    if (strcmp(v->math, "types") != 0) {
        snprintf(buf, len, "%s", v->math);
        return;
    }
    while (n < OP_MAX_TYPES && op->types[n]) n++;
    catalog_join(op->types, n, ",", buf, len);
}

static int list_max(int a, size_t b) { return (size_t)a > b ? a : (int)b; }

/* Each column as wide as its longest entry (at least the old fixed widths),
 * so that an op with many axes or a long library name keeps the table aligned. */
void list_print(FILE *f, const cli_options *o, const catalog *cat)
{
    char axes[128], math[32];
    int wa = 16, wr = 12, wb = 12, wv = 18, wm = 7;
    for (int i = 0; i < cat->op_count; i++) {
        const op_info *op = &cat->ops[i];
        axes_names(op, axes, sizeof axes);
        wa = list_max(wa, strlen(axes));
        wr = list_max(wr, strlen(op->ref_library));
        wb = list_max(wb, strlen(op->best_library));
    }
    for (int i = 0; i < cat->variant_count; i++) {
        const variant_info *v = &cat->variants[i];
        if (!cli_variant_visible(o, v)) continue;
        list_math(&cat->ops[catalog_op(cat, v->op)], v, math, sizeof math);
        wv = list_max(wv, strlen(v->name));
        wm = list_max(wm, strlen(math));
    }
    fprintf(f, "%-10s %-*s %-8s %-*s %-*s %s\n", "op", wa, "axes", "unit", wr, "%ref vs", wb, "%best vs", "what");
    for (int i = 0; i < cat->op_count; i++) {
        const op_info *op = &cat->ops[i];
        axes_names(op, axes, sizeof axes);
        fprintf(f, "%-10s %-*s %-8s %-*s %-*s %s\n", op->name, wa, axes, catalog_rate_unit(op->rate), wr,
                op->ref_library, wb, op->best_library, op->about);
    }
    fprintf(f, "\n%-10s %-*s %-8s %-*s %-9s %s\n", "op", wv, "variant", "kind", wm, "math", "source", "what");
    for (int i = 0; i < cat->variant_count; i++) {
        const variant_info *v = &cat->variants[i];
        if (!cli_variant_visible(o, v)) continue;
        list_math(&cat->ops[catalog_op(cat, v->op)], v, math, sizeof math);
        fprintf(f, "%-10s %-*s %-8s %-*s %-9s %s\n", v->op, wv, v->name, v->is_library ? "library" : "hand", wm,
                math, v->source, v->about);
    }
}

static void list_json_strings(FILE *f, const char *const *s, int n)
{
    fputc('[', f);
    for (int i = 0; i < n; i++) {
        if (i) fputs(", ", f);
        report_json_string(f, s[i]);
    }
    fputc(']', f);
}

static void list_json_axis(FILE *f, const op_info *op, const op_axis *a)
{
    const char *names[OP_AXIS_MAX_VALUES];
    fputs("{\"name\": ", f);
    report_json_string(f, a->name);
    fputs(", \"kind\": ", f);
    report_json_string(f, catalog_axis_kind_name(a->kind));
    fputs(", \"defaults\": ", f);
    if (a->kind == OP_AXIS_ENUM && !a->defaults) {
        /* an enum without declared defaults runs all its values */
        char all[256];
        catalog_join(names, catalog_axis_names(op, a, names, OP_AXIS_MAX_VALUES), ",", all, sizeof all);
        report_json_string(f, all);
    } else {
        report_json_string(f, a->defaults);
    }
    if (a->kind == OP_AXIS_ENUM) {
        fputs(", \"values\": ", f);
        list_json_strings(f, names, catalog_axis_names(op, a, names, OP_AXIS_MAX_VALUES));
    } else {
        fprintf(f, ", \"min\": %lld, \"max\": %lld", a->min, a->max);
    }
    fprintf(f, ", \"option\": %s, \"help\": ", a->option ? "true" : "false");
    report_json_string(f, a->help);
    fputc('}', f);
}

void list_print_json(FILE *f, const cli_options *o, const catalog *cat)
{
    const char *types[64];
    fputs("{\"ops\": [", f);
    for (int i = 0; i < cat->op_count; i++) {
        const op_info *op = &cat->ops[i];
        int first = 1;
        fprintf(f, "%s\n  {\"name\": ", i ? "," : "");
        report_json_string(f, op->name);
        fputs(", \"unit\": ", f);
        report_json_string(f, catalog_rate_unit(op->rate));
        fputs(", \"ref_library\": ", f);
        report_json_string(f, op->ref_library);
        fputs(", \"best_library\": ", f);
        report_json_string(f, op->best_library);
        fputs(", \"about\": ", f);
        report_json_string(f, op->about);
        fputs(",\n   \"axes\": [", f);
        for (int a = 0; a < catalog_axis_count(op); a++) {
            fputs(a ? ",\n     " : "\n     ", f);
            list_json_axis(f, op, &op->axes[a]);
        }
        fputs("],\n   \"types\": ", f);
        list_json_strings(f, types, list_op_types(o, cat, i, types, 64));
        fputs(",\n   \"variants\": [", f);
        for (int j = 0; j < cat->variant_count; j++) {
            const variant_info *v = &cat->variants[j];
            char math[32];
            if (strcmp(v->op, op->name) != 0 || !cli_variant_visible(o, v)) continue;
            list_math(op, v, math, sizeof math);
            fputs(first ? "\n     {\"name\": " : ",\n     {\"name\": ", f);
            first = 0;
            report_json_string(f, v->name);
            fprintf(f, ", \"kind\": \"%s\", \"math\": ", v->is_library ? "library" : "hand");
            report_json_string(f, math);
            fputs(", \"source\": ", f);
            report_json_string(f, v->source);
            fputs(", \"about\": ", f);
            report_json_string(f, v->about);
            fputc('}', f);
        }
        fputs("]}", f);
    }
    fputs("\n]}\n", f);
}
