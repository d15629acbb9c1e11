#include "plan.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "axes.h"
#include "metrics.h"
#include "peaks.h"
#include "roofline.h"
#include "sizes.h"

/* 1 if --variants names a candidate of `family` */
static int plan_family_named(const cli_options *o, const catalog *cat, const char *family)
{
    for (int i = 0; i < o->variant_count; i++)
        for (int j = 0; j < cat->variant_count; j++)
            if (catalog_family(&cat->variants[j]) && strcmp(catalog_family(&cat->variants[j]), family) == 0 &&
                strcmp(cat->variants[j].name, o->variants[i]) == 0)
                return 1;
    return 0;
}

static int plan_selected(const cli_options *o, const catalog *cat, const op_info *op, const variant_info *v)
{
    if (!cli_variant_visible(o, v)) return 0;
    /* --candidates alone: the candidates and the op's library rows, not its hand rows */
    const char *family = catalog_family(v);
    if (o->variant_count == 0) return o->candidate_count == 0 || family || v->is_library;
    for (int i = 0; i < o->variant_count; i++)
        if (strcmp(o->variants[i], v->name) == 0) return 1;
    /* a family none of whose candidates --variants names runs whole beside the rows named */
    if (family && !plan_family_named(o, cat, family)) return 1;
    /* the rows the percents are taken against always run */
    return v->is_library && (strcmp(v->name, op->ref_library) == 0 || strcmp(v->name, op->best_library) == 0);
}

/* Variant indices of op `oi` in run order; returns their count, or -1 when
 * more than PLAN_MAX_VARIANTS are selected. */
static int plan_order(const cli_options *o, const catalog *cat, int oi, int *idx)
{
    const op_info *op = &cat->ops[oi];
    const char *first[2] = {op->ref_library, op->best_library};
    int n = 0;
    for (int f = 0; f < 2; f++) {
        int i = catalog_variant(cat, op->name, first[f]);
        if (i >= 0 && cat->variants[i].is_library && plan_selected(o, cat, op, &cat->variants[i]) &&
            (f == 0 || strcmp(first[0], first[1]) != 0))
            idx[n++] = i; /* at most 2: within the cap */
    }
    for (int pass = 0; pass < 2; pass++)
        for (int i = 0; i < cat->variant_count; i++) {
            const variant_info *v = &cat->variants[i];
            if (strcmp(v->op, op->name) != 0 || !plan_selected(o, cat, op, v)) continue;
            if (pass == 0 && (!v->is_library || strcmp(v->name, first[0]) == 0 || strcmp(v->name, first[1]) == 0))
                continue;
            if (pass == 1 && v->is_library) continue;
            if (n == PLAN_MAX_VARIANTS) return -1;
            idx[n++] = i;
        }
    return n;
}

static int plan_push(plan *p, int *cap, const plan_case *c)
{
    if (p->count == *cap) {
        int ncap = *cap ? 2 * *cap : 16;
        plan_case *nc = realloc(p->cases, (size_t)ncap * sizeof *nc);
        if (!nc) return -1;
        p->cases = nc;
        *cap = ncap;
    }
    p->cases[p->count++] = *c;
    p->runs += c->variant_count;
    return 0;
}

/* An op's cases as dimensions of a product: the GEMM shape tuples (its m,
 * n, k axes, at the first one's place) and each other axis. */
typedef struct {
    int axis[OP_MAX_AXES];            /* per dimension: its axis, or -1 for the shape tuples */
    int count[OP_MAX_AXES];           /* values per dimension */
    int dims;
    axes_list values[OP_MAX_AXES];    /* by axis (unused for m, n, k) */
    long long tuple[CLI_MAX_SHAPES][3]; /* the op's (m, n, k) tuples; 0 for a dimension it lacks */
    int tuples;
} plan_axes;

/* The op's part (its dims among m, n, k) of each GEMM shape of the run, each
 * once, or the product of its m, n, k defaults when no shape was given. */
static int plan_tuples(const cli_options *o, const op_info *op, plan_axes *pa, char *err, size_t err_len)
{
    static const char *const dim[3] = {"m", "n", "k"};
    int ax[3];
    for (int d = 0; d < 3; d++) ax[d] = catalog_axis(op, dim[d]);
    pa->tuples = 0;
    if (o->gemm_count > 0) {
        for (int s = 0; s < o->gemm_count; s++) {
            const long long v[3] = {o->gemm[s].m, o->gemm[s].n, o->gemm[s].k};
            long long t[3];
            int dup = 0;
            for (int d = 0; d < 3; d++) t[d] = ax[d] >= 0 ? v[d] : 0;
            for (int j = 0; j < pa->tuples && !dup; j++) dup = memcmp(pa->tuple[j], t, sizeof t) == 0;
            if (!dup) memcpy(pa->tuple[pa->tuples++], t, sizeof t);
        }
        return 0;
    }
    axes_list l[3];
    for (int d = 0; d < 3; d++) {
        memset(&l[d], 0, sizeof l[d]);
        l[d].count = 1; /* a dimension the op lacks: one 0 */
        if (ax[d] >= 0 && axes_values(o, op, ax[d], &l[d], err, err_len)) return -1;
    }
    for (int a = 0; a < l[0].count; a++)
        for (int b = 0; b < l[1].count; b++)
            for (int c = 0; c < l[2].count; c++) {
                if (pa->tuples == CLI_MAX_SHAPES) {
                    snprintf(err, err_len, "%s: its m, n, k defaults make more than %d shapes", op->name,
                             CLI_MAX_SHAPES);
                    return -1;
                }
                long long *t = pa->tuple[pa->tuples++];
                t[0] = l[0].num[a];
                t[1] = l[1].num[b];
                t[2] = l[2].num[c];
            }
    return 0;
}

static int plan_axes_of(const cli_options *o, const op_info *op, plan_axes *pa, char *err, size_t err_len)
{
    int shape_dim = 0;
    pa->dims = 0;
    for (int a = 0; a < catalog_axis_count(op); a++) {
        if (axes_is_shape_dim(op->axes[a].name)) {
            if (shape_dim++) continue;
            if (plan_tuples(o, op, pa, err, err_len)) return -1;
            pa->axis[pa->dims] = -1;
            pa->count[pa->dims++] = pa->tuples;
            continue;
        }
        if (axes_values(o, op, a, &pa->values[a], err, err_len)) return -1;
        pa->axis[pa->dims] = a;
        pa->count[pa->dims++] = pa->values[a].count;
    }
    return 0;
}

/* Appends "name=value" (sep before it unless at the start) to buf. */
static void plan_append(char *buf, size_t len, const char *sep, const char *name, const char *value)
{
    size_t used = strlen(buf);
    if (used + 1 < len) snprintf(buf + used, len - used, "%s%s%s%s", used ? sep : "", name, name[0] ? "=" : "", value);
}

/* The case's shape string, label and NVTX prefix from its axis values. The
 * label and NVTX name keep the forms they always had: "sgemm m=n=k=2^12",
 * "sgemm 4096x14336x4096 (MxNxK)", "transpose 4096x8192", "sort u32
 * elems=2^26"; any other integer axis follows as " name=value". */
static void plan_names(const op_info *op, plan_case *c)
{
    char tp[64] = "", extra_l[64] = "", extra_n[64] = "", sz[32], raw[32];
    int has[3] = {catalog_axis(op, "m") >= 0, catalog_axis(op, "n") >= 0, catalog_axis(op, "k") >= 0};
    int gemm = has[0] && has[1] && has[2], matrix = has[0] && has[1] && !has[2];
    c->shape[0] = '\0';
    for (int a = 0; a < c->axis_count; a++) {
        const op_axis *ax = &c->axes[a];
        if (ax->kind == OP_AXIS_ENUM) {
            plan_append(tp, sizeof tp, " ", "", c->axis_name[a]);
            continue;
        }
        if (ax->option) continue;
        snprintf(raw, sizeof raw, "%lld", c->axis_num[a]);
        plan_append(c->shape, sizeof c->shape, ",", ax->name, raw);
        if ((gemm || matrix) && axes_is_shape_dim(ax->name)) continue;
        if (strcmp(ax->name, "elems") == 0) continue;
        sizes_format(c->axis_num[a], sz, sizeof sz);
        plan_append(extra_l, sizeof extra_l, " ", ax->name, sz);
        plan_append(extra_n, sizeof extra_n, " ", ax->name, raw);
    }
    const char *sp = tp[0] ? " " : "";
    char size_l[64] = "", size_n[64] = "";
    if (gemm) {
        snprintf(size_n, sizeof size_n, "%lldx%lldx%lld", c->m, c->n, c->k);
        if (c->m == c->n && c->n == c->k) {
            sizes_format(c->n, sz, sizeof sz);
            snprintf(size_l, sizeof size_l, "m=n=k=%s", sz);
        } else {
            snprintf(size_l, sizeof size_l, "%lldx%lldx%lld (MxNxK)", c->m, c->n, c->k);
        }
    } else if (matrix) {
        snprintf(size_n, sizeof size_n, "%lldx%lld", c->m, c->n);
        snprintf(size_l, sizeof size_l, "%lldx%lld", c->m, c->n);
    } else if (catalog_axis(op, "elems") >= 0) {
        sizes_format(c->elems, sz, sizeof sz);
        snprintf(size_l, sizeof size_l, "elems=%s", sz);
        snprintf(size_n, sizeof size_n, "%lld", c->elems);
    }
    snprintf(c->label, sizeof c->label, "%s%s%s%s%s%s%s", op->name, sp, tp, size_l[0] ? " " : "", size_l,
             extra_l[0] ? " " : "", extra_l);
    snprintf(c->nvtx, sizeof c->nvtx, "%s%s%s%s%s%s%s", op->name, sp, tp, size_n[0] ? " " : "", size_n,
             extra_n[0] ? " " : "", extra_n);
}

/* Case number `idx` of the product (the last dimension fastest) into c. */
static void plan_point(const op_info *op, const plan_axes *pa, long long idx, plan_case *c)
{
    int at[OP_MAX_AXES];
    for (int d = pa->dims - 1; d >= 0; d--) {
        at[d] = (int)(idx % pa->count[d]);
        idx /= pa->count[d];
    }
    c->m = c->n = c->k = c->elems = 0;
    c->type = c->dist = NULL;
    for (int d = 0; d < pa->dims; d++) {
        int a = pa->axis[d];
        if (a < 0) {
            const long long *t = pa->tuple[at[d]];
            c->m = t[0];
            c->n = t[1];
            c->k = t[2];
            continue;
        }
        if (op->axes[a].kind == OP_AXIS_ENUM) c->axis_name[a] = pa->values[a].name[at[d]];
        else c->axis_num[a] = pa->values[a].num[at[d]];
    }
    for (int a = 0; a < c->axis_count; a++) {
        const char *name = op->axes[a].name;
        if (strcmp(name, "m") == 0) c->axis_num[a] = c->m;
        else if (strcmp(name, "n") == 0) c->axis_num[a] = c->n;
        else if (strcmp(name, "k") == 0) c->axis_num[a] = c->k;
        else if (strcmp(name, "elems") == 0) c->elems = c->axis_num[a];
        else if (strcmp(name, "type") == 0) c->type = c->axis_name[a];
        else if (strcmp(name, "dist") == 0) c->dist = c->axis_name[a];
    }
    plan_names(op, c);
}

int plan_build(plan *p, const cli_options *o, const catalog *cat, char *err, size_t err_len)
{
    int cap = 0;
    static plan_axes pa; /* ~10 KiB: not on the stack (the plan is built by one thread) */
    memset(p, 0, sizeof *p);
    for (int oi = 0; oi < cat->op_count; oi++) {
        const op_info *op = &cat->ops[oi];
        plan_case c;
        long long points = 1;
        if (!cli_op_runs(o, oi)) continue;
        memset(&c, 0, sizeof c);
        c.op = oi;
        c.opts = o;
        c.axes = op->axes;
        c.axis_count = catalog_axis_count(op);
        c.variant_count = plan_order(o, cat, oi, c.variant);
        if (c.variant_count < 0) {
            snprintf(err, err_len, "%s: more than %d variants selected; choose some with --variants", op->name,
                     PLAN_MAX_VARIANTS);
            plan_free(p);
            return 2;
        }
        if (c.variant_count == 0) continue;
        if (plan_axes_of(o, op, &pa, err, err_len)) {
            plan_free(p);
            return 2;
        }
        for (int d = 0; d < pa.dims; d++) points *= pa.count[d];
        if (points > PLAN_MAX_CASES) {
            snprintf(err, err_len, "%s: its axes make %lld cases, more than %d; give fewer values", op->name, points,
                     PLAN_MAX_CASES);
            plan_free(p);
            return 2;
        }
        for (long long i = 0; i < points; i++) {
            plan_point(op, &pa, i, &c);
            if (plan_push(p, &cap, &c)) {
                snprintf(err, err_len, "out of host memory for the plan");
                plan_free(p);
                return -1;
            }
        }
    }
    return 0;
}

long long plan_case_axis(const plan_case *pc, const char *name)
{
    for (int a = 0; a < pc->axis_count; a++)
        if (strcmp(pc->axes[a].name, name) == 0 && pc->axes[a].kind != OP_AXIS_ENUM) return pc->axis_num[a];
    return -1;
}

const char *plan_case_axis_name(const plan_case *pc, const char *name)
{
    for (int a = 0; a < pc->axis_count; a++)
        if (strcmp(pc->axes[a].name, name) == 0 && pc->axes[a].kind == OP_AXIS_ENUM) return pc->axis_name[a];
    return NULL;
}

void plan_free(plan *p)
{
    free(p->cases);
    memset(p, 0, sizeof *p);
}

plan_fit plan_case_fit(size_t base, size_t ws_largest, size_t ws_sum, size_t free_bytes, int want_interleaved)
{
    if (want_interleaved && base + ws_sum <= free_bytes) return PLAN_FITS_INTERLEAVED;
    return base + ws_largest <= free_bytes ? PLAN_FITS_SEQUENTIAL : PLAN_FITS_NOT;
}

double plan_row_throughput(const result_row *r)
{
    switch (r->rate) {
    case OP_RATE_TFLOPS: return r->tflops;
    case OP_RATE_GBPS: return r->gbps;
    case OP_RATE_GKEYS: return r->gkeys;
    }
    return -1;
}

void plan_percents(const op_info *op, const device_info *dev, result_row *rows, int count)
{
    for (int i = 0; i < count; i++) {
        result_row *r = &rows[i];
        /* the pair the op compares (transfer: overlap against pinned) */
        if (op->speedup[0] && r->variant && strcmp(r->variant, op->speedup[0]) == 0) r->speedup_vs = op->speedup[1];
        /* the ceiling is worked out here each time (a row may be re-percented) */
        r->pct_peak = r->peak_tflops = -1;
        r->peak_math[0] = '\0';
        if (r->status != STATUS_OK || r->time_ms.count == 0) continue;
        double ms = r->time_ms.median;
        switch (op->rate) {
        case OP_RATE_TFLOPS: r->tflops = metrics_tflops(r->flops, ms); break;
        case OP_RATE_GBPS: r->gbps = metrics_gbps(r->bytes, ms); break;
        case OP_RATE_GKEYS: r->gkeys = metrics_gkeys((double)r->elems, ms); break;
        }
        if (op->peak == OP_PEAK_COMPUTE) {
            /* the peak of the row's own math (a tf32 row against the dense TF32
             * tensor rate), at the clock its samples really ran at when that was
             * measured; a math or GPU the peak table does not know: no %peak */
            types_math m = types_math_of(r->math);
            double peak = peaks_tflops(dev, m, r->sm_clock_mhz > 0 ? r->sm_clock_mhz * 1e3 : 0);
            snprintf(r->peak_math, sizeof r->peak_math, "%s", types_math_name(m));
            if (peak > 0) r->peak_tflops = peak;
            if (peak > 0 && r->flops > 0) r->pct_peak = metrics_tflops(r->flops, ms) / peak * 100.0;
        } else if (op->peak == OP_PEAK_MEMORY) {
            double khz = r->mem_clock_mhz > 0 ? r->mem_clock_mhz * 1e3 : dev->mem_clock_khz;
            double peak = metrics_peak_mem_gbps(khz, dev->bus_width_bits);
            if (peak > 0 && r->bytes > 0) r->pct_peak = metrics_gbps(r->bytes, ms) / peak * 100.0;
        }
        if (r->library) continue;
        /* %best: against the fastest library row that passed and was timed
         * (the op's best_library names the one expected, and stays the name
         * when no library row ran) */
        const result_row *best = NULL;
        for (int j = 0; j < count; j++) {
            const result_row *l = &rows[j];
            if (!l->library || l->status != STATUS_OK || l->time_ms.count == 0) continue;
            if (r->ref_library && strcmp(l->variant, r->ref_library) == 0)
                r->pct_ref = metrics_pct_of(l->time_ms.median, ms);
            if (!best || l->time_ms.median < best->time_ms.median) best = l;
        }
        if (best) {
            r->best_library = best->variant;
            r->pct_best = metrics_pct_of(best->time_ms.median, ms);
        }
    }
    /* the roofline columns: intensity, bound, measured intensity, hints
     * (a hand row's DRAM traffic is weighed against its %ref library row's) */
    for (int i = 0; i < count; i++) {
        const result_row *ref = NULL;
        for (int j = 0; j < count && !rows[i].library && rows[i].ref_library; j++)
            if (rows[j].library && rows[j].variant && strcmp(rows[j].variant, rows[i].ref_library) == 0) ref = &rows[j];
        roofline_fill(&rows[i], dev, ref);
    }
}
