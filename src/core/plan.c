#include "plan.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "metrics.h"
#include "peaks.h"
#include "sizes.h"

static int plan_selected(const cli_options *o, const catalog *cat, const op_info *op, const variant_info *v)
{
    if (!cli_variant_visible(o, v)) return 0;
    if (o->variant_count == 0) return 1;
    for (int i = 0; i < o->variant_count; i++)
        if (strcmp(o->variants[i], v->name) == 0) return 1;
    (void)cat;
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

int plan_build(plan *p, const cli_options *o, const catalog *cat, char *err, size_t err_len)
{
    int cap = 0;
    memset(p, 0, sizeof *p);
    for (int oi = 0; oi < cat->op_count; oi++) {
        const op_info *op = &cat->ops[oi];
        plan_case c;
        int nsizes;
        if (!cli_op_runs(o, oi)) continue;
        memset(&c, 0, sizeof c);
        c.op = oi;
        c.opts = o;
        c.variant_count = plan_order(o, cat, oi, c.variant);
        if (c.variant_count < 0) {
            snprintf(err, err_len, "%s: more than %d variants selected; choose some with --variants", op->name,
                     PLAN_MAX_VARIANTS);
            plan_free(p);
            return 2;
        }
        if (c.variant_count == 0) continue;
        nsizes = op->size_kind == OP_SIZE_ELEMS ? o->elems_count : o->gemm_count;
        for (int si = 0; si < nsizes; si++) {
            int ntypes = 0, ndists = op->per_dist ? o->dist_count : 1;
            while (ntypes < OP_MAX_TYPES && op->types[ntypes]) ntypes++;
            for (int ti = 0; ti < (ntypes ? ntypes : 1) * ndists; ti++) {
                char sz[32], tp[48];
                c.type = ntypes ? op->types[ti / ndists] : NULL;
                c.dist = op->per_dist ? o->dists[ti % ndists] : NULL;
                snprintf(tp, sizeof tp, "%s%s%s%s", c.type ? " " : "", c.type ? c.type : "", c.dist ? " " : "",
                         c.dist ? c.dist : "");
                if (op->size_kind == OP_SIZE_MATRIX) {
                    /* m x n of each shape, k unused: a shape repeating an (m, n) makes no new case */
                    int dup = 0;
                    for (int sj = 0; sj < si; sj++) dup |= o->gemm[sj].m == o->gemm[si].m && o->gemm[sj].n == o->gemm[si].n;
                    if (dup) continue;
                    c.m = o->gemm[si].m;
                    c.n = o->gemm[si].n;
                    c.k = 0;
                    c.elems = 0;
                    snprintf(c.label, sizeof c.label, "%s%s %lldx%lld", op->name, tp, c.m, c.n);
                    snprintf(c.nvtx, sizeof c.nvtx, "%s%s %lldx%lld", op->name, tp, c.m, c.n);
                } else if (op->size_kind == OP_SIZE_GEMM) {
                    c.m = o->gemm[si].m;
                    c.n = o->gemm[si].n;
                    c.k = o->gemm[si].k;
                    c.elems = 0;
                    snprintf(c.nvtx, sizeof c.nvtx, "%s %lldx%lldx%lld", op->name, c.m, c.n, c.k);
                    if (c.m == c.n && c.n == c.k) {
                        sizes_format(c.n, sz, sizeof sz);
                        snprintf(c.label, sizeof c.label, "%s m=n=k=%s", op->name, sz);
                    } else {
                        snprintf(c.label, sizeof c.label, "%s %lldx%lldx%lld (MxNxK)", op->name, c.m, c.n, c.k);
                    }
                } else {
                    c.m = c.n = c.k = 0;
                    c.elems = o->elems[si];
                    sizes_format(c.elems, sz, sizeof sz);
                    snprintf(c.label, sizeof c.label, "%s%s elems=%s", op->name, tp, sz);
                    snprintf(c.nvtx, sizeof c.nvtx, "%s%s %lld", op->name, tp, c.elems);
                }
                if (plan_push(p, &cap, &c)) {
                    snprintf(err, err_len, "out of host memory for the plan");
                    plan_free(p);
                    return -1;
                }
            }
        }
    }
    return 0;
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
}
