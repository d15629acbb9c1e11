#include "fleet.h"

#include <stdlib.h>
#include <string.h>

#include "stats.h"

// ---------------------------------------------------------------------------
// which GPUs

int fleet_devices(const cli_options *o, int present, int *out, int *n, char *err, size_t err_len)
{
    *n = 0;
    if (o->device_all) {
        for (int i = 0; i < present && i < CLI_MAX_DEVICES; i++) out[(*n)++] = i;
        return 0;
    }
    for (int i = 0; i < o->device_count; i++) {
        if (o->devices[i] >= present) {
            snprintf(err, err_len, "--device %d: only %d CUDA device%s present (0..%d)", o->devices[i], present,
                     present == 1 ? "" : "s", present - 1);
            return 2;
        }
        out[(*n)++] = o->devices[i];
    }
    return 0;
}

int fleet_rank_device(const cli_options *o, int local_rank, int present)
{
    if (local_rank < 0) local_rank = 0;
    if (o->device_given && !o->device_all && o->device_count > 0) return o->devices[local_rank % o->device_count];
    return present > 0 ? local_rank % present : local_rank;
}

// ---------------------------------------------------------------------------
// members

void fleet_member_name(const fleet_member *m, char *buf, size_t len)
{
    if (m->rank < 0) snprintf(buf, len, "GPU %d", m->device);
    else if (!m->host[0]) snprintf(buf, len, "rank %d (host unknown)", m->rank);
    else snprintf(buf, len, "rank %d on %s GPU %d", m->rank, m->host, m->device);
}

int fleet_turn_groups(const fleet_member *m, int n, int serial, int *group)
{
    int shared = 0;
    for (int i = 0; i < n; i++) {
        group[i] = i;
        if (serial) group[i] = 0;
        else if (m[i].pci_bus_id[0])
            for (int j = 0; j < i; j++)
                if (strcmp(m[j].pci_bus_id, m[i].pci_bus_id) == 0 && strcmp(m[j].host, m[i].host) == 0) {
                    group[i] = group[j];
                    break;
                }
    }
    /* groups (named by their first member) with another member */
    for (int i = 0; i < n; i++) {
        if (group[i] != i) continue;
        for (int j = i + 1; j < n; j++)
            if (group[j] == i) {
                shared++;
                break;
            }
    }
    return shared;
}

// ---------------------------------------------------------------------------
// rows

void fleet_case_row(const plan_case *pc, const catalog *cat, int i, result_row *r)
{
    const op_info *op = &cat->ops[pc->op];
    const variant_info *v = &cat->variants[pc->variant[i]];
    results_row_clear(r);
    r->op = op->name;
    r->variant = v->name;
    r->library = v->is_library;
    r->math = strcmp(v->math, "types") == 0 && pc->type ? pc->type : v->math;
    r->source = v->source;
    snprintf(r->case_label, sizeof r->case_label, "%s", pc->label);
    snprintf(r->shape, sizeof r->shape, "%s", pc->shape);
    r->rate = op->rate;
    r->peak = op->peak;
    r->dist = pc->dist;
    r->m = pc->m;
    r->n = pc->n;
    r->k = pc->k;
    r->elems = pc->elems;
    if (!r->library) {
        r->ref_library = v->ref_library ? v->ref_library : op->ref_library;
        r->best_library = op->best_library;
    }
}

void fleet_error_rows(const plan *p, const catalog *cat, const char *why,
                      void (*emit)(void *ctx, result_row *rows, int count), void *ctx)
{
    static result_row rows[PLAN_MAX_VARIANTS]; /* 64 rows of ~2 KiB: not on the stack */
    for (int c = 0; c < p->count; c++) {
        const plan_case *pc = &p->cases[c];
        int n = pc->variant_count < PLAN_MAX_VARIANTS ? pc->variant_count : PLAN_MAX_VARIANTS;
        for (int i = 0; i < n; i++) {
            fleet_case_row(pc, cat, i, &rows[i]);
            rows[i].status = STATUS_ERROR;
            snprintf(rows[i].message, sizeof rows[i].message, "%s", why);
        }
        if (n) emit(ctx, rows, n);
    }
}

static void fleet_copy(char *dst, size_t len, const char *src, unsigned char *set, int bit)
{
    dst[0] = '\0';
    if (!src) return;
    snprintf(dst, len, "%s", src);
    *set |= (unsigned char)(1u << bit);
}

void fleet_wire_pack(const result_row *r, fleet_wire_row *w)
{
    memset(w, 0, sizeof *w);
    w->row = *r;
    fleet_copy(w->op, sizeof w->op, r->op, &w->set, 0);
    fleet_copy(w->variant, sizeof w->variant, r->variant, &w->set, 1);
    fleet_copy(w->math, sizeof w->math, r->math, &w->set, 2);
    fleet_copy(w->source, sizeof w->source, r->source, &w->set, 3);
    fleet_copy(w->dist, sizeof w->dist, r->dist, &w->set, 4);
    fleet_copy(w->speedup_vs, sizeof w->speedup_vs, r->speedup_vs, &w->set, 5);
    fleet_copy(w->ref_library, sizeof w->ref_library, r->ref_library, &w->set, 6);
    fleet_copy(w->best_library, sizeof w->best_library, r->best_library, &w->set, 7);
    w->row.op = w->row.variant = w->row.math = w->row.source = w->row.dist = NULL;
    w->row.speedup_vs = w->row.ref_library = w->row.best_library = NULL;
    w->row.samples_ms = NULL;
}

void fleet_wire_unpack(const fleet_wire_row *w, result_row *r)
{
    *r = w->row;
#define FLEET_PTR(bit, field) r->field = (w->set >> (bit) & 1u) ? w->field : NULL
    FLEET_PTR(0, op);
    FLEET_PTR(1, variant);
    FLEET_PTR(2, math);
    FLEET_PTR(3, source);
    FLEET_PTR(4, dist);
    FLEET_PTR(5, speedup_vs);
    FLEET_PTR(6, ref_library);
    FLEET_PTR(7, best_library);
#undef FLEET_PTR
    r->samples_ms = NULL;
}

// ---------------------------------------------------------------------------
// the fleet summary

void fleet_summary_init(fleet_summary *s) { memset(s, 0, sizeof *s); }

void fleet_summary_free(fleet_summary *s)
{
    free(s->p);
    memset(s, 0, sizeof *s);
}

void fleet_summary_add(fleet_summary *s, int member, const result_row *rows, int count)
{
    for (int i = 0; i < count; i++) {
        const result_row *r = &rows[i];
        int timed = r->status == STATUS_OK && r->time_ms.count > 0;
        if (s->n == s->cap) {
            int cap = s->cap ? 2 * s->cap : 256;
            fleet_point *p = realloc(s->p, (size_t)cap * sizeof *p);
            if (!p) return; /* the summary misses rows; the CSV still has them */
            s->p = p;
            s->cap = cap;
        }
        fleet_point *q = &s->p[s->n++];
        memset(q, 0, sizeof *q);
        q->member = member;
        snprintf(q->case_label, sizeof q->case_label, "%s", r->case_label);
        snprintf(q->variant, sizeof q->variant, "%s", r->variant ? r->variant : "?");
        q->library = r->library;
        q->unit = catalog_rate_unit(r->rate);
        q->status = r->status;
        q->pct_ref = timed && !r->library ? r->pct_ref : -1;
        q->tput = timed ? plan_row_throughput(r) : -1;
        q->sm_clock_mhz = r->sm_clock_mhz;
        q->sm_clock_min_mhz = r->sm_clock_min_mhz;
        snprintf(q->throttle, sizeof q->throttle, "%s", r->throttle);
    }
}

int fleet_is_slow(double tput, double median, double threshold_pct)
{
    /* (median - tput) / median > threshold / 100, without the division's rounding */
    return median > 0 && tput >= 0 && (median - tput) * 100.0 > threshold_pct * median;
}

/* Points of one (case, variant) are a group; the summary takes them group by
 * group in the order each was first seen. Sorting pointers to the points by
 * (case, variant, position) puts every group's points together, in arrival
 * order, in O(P log P) for P points (a fleet of many ranks over a long plan
 * has hundreds of thousands). */
static int fleet_point_cmp(const void *x, const void *y)
{
    const fleet_point *a = *(const fleet_point *const *)x, *b = *(const fleet_point *const *)y;
    int c = strcmp(a->case_label, b->case_label);
    if (c == 0) c = strcmp(a->variant, b->variant);
    return c ? c : (a > b) - (a < b);
}

typedef struct {
    int start, count;         /* the group's points: order[start .. start + count) */
    const fleet_point *first; /* order[start]: the group's first point to arrive */
} fleet_group;

static int fleet_group_cmp(const void *x, const void *y)
{
    const fleet_point *a = ((const fleet_group *)x)->first, *b = ((const fleet_group *)y)->first;
    return (a > b) - (a < b);
}

/* order: the points sorted (fleet_point_cmp); groups: one per (case, variant),
 * in first-seen order. Returns the number of groups, -1 when out of memory. */
static int fleet_group_points(const fleet_summary *s, const fleet_point ***order_out, fleet_group **groups_out)
{
    const fleet_point **order = malloc((size_t)(s->n > 0 ? s->n : 1) * sizeof *order);
    fleet_group *g = malloc((size_t)(s->n > 0 ? s->n : 1) * sizeof *g);
    int ng = 0;
    if (!order || !g) {
        free(order);
        free(g);
        return -1;
    }
    for (int i = 0; i < s->n; i++) order[i] = &s->p[i];
    qsort(order, (size_t)s->n, sizeof *order, fleet_point_cmp);
    for (int i = 0; i < s->n; i++) {
        if (i > 0 && strcmp(order[i]->case_label, order[i - 1]->case_label) == 0 &&
            strcmp(order[i]->variant, order[i - 1]->variant) == 0) {
            g[ng - 1].count++;
            continue;
        }
        g[ng++] = (fleet_group){i, 1, order[i]};
    }
    qsort(g, (size_t)ng, sizeof *g, fleet_group_cmp);
    *order_out = order;
    *groups_out = g;
    return ng;
}

static void fleet_cells(char *buf, size_t len, const double *x, int n)
{
    stats_summary st;
    if (n == 0 || stats_summarize(x, (size_t)n, &st) != 0) snprintf(buf, len, "%9s %9s %9s", "-", "-", "-");
    else snprintf(buf, len, "%9.2f %9.2f %9.2f", st.min, st.median, st.max);
}

int fleet_summary_print(FILE *f, const fleet_summary *s, const fleet_member *m, int n, double threshold_pct)
{
    int flagged = 0, ran = 0, failed = 0, missing = 0, hosts = 0;
    double *pct = malloc((size_t)(n > 0 ? n : 1) * sizeof *pct);
    double *tp = malloc((size_t)(n > 0 ? n : 1) * sizeof *tp);
    const fleet_point **order = NULL;
    fleet_group *groups = NULL;
    int ngroups = pct && tp ? fleet_group_points(s, &order, &groups) : -1;
    char name[160];
    if (ngroups < 0) {
        fprintf(f, "\nFLEET SUMMARY: out of memory\n");
        free(pct);
        free(tp);
        return 0;
    }
    int gpus = 0;
    for (int i = 0; i < n; i++) {
        int first = m[i].host[0] != '\0', first_gpu = 1;
        for (int j = 0; j < i && first; j++) first = strcmp(m[j].host, m[i].host) != 0;
        for (int j = 0; j < i && first_gpu && m[i].pci_bus_id[0]; j++)
            first_gpu = strcmp(m[j].pci_bus_id, m[i].pci_bus_id) != 0 || strcmp(m[j].host, m[i].host) != 0;
        hosts += first;
        gpus += first_gpu;
        ran += m[i].state == FLEET_DONE || m[i].state == FLEET_RUNNING;
        failed += m[i].state == FLEET_FAILED;
        missing += m[i].state == FLEET_MISSING || m[i].state == FLEET_WAITING;
    }
    if (gpus < n) /* ranks that took turns on a GPU: each counts, and the header says so */
        fprintf(f, "\nFLEET SUMMARY: %d ranks on %d GPU%s", n, gpus, gpus == 1 ? "" : "s");
    else
        fprintf(f, "\nFLEET SUMMARY: %d GPU%s", n, n == 1 ? "" : "s");
    fprintf(f, " on %d host%s: %d ran, %d failed, %d missing; per case and variant across GPUs\n", hosts,
            hosts == 1 ? "" : "s", ran, failed, missing);
    fprintf(f, "%-30s %-14s %5s %9s %9s %9s %9s %9s %9s  %s\n", "case", "variant", "GPUs", "%ref min", "median",
            "max", "min", "median", "max", "throughput");
    /* one line per (case, variant) that ran somewhere, in the order first seen */
    int lines = 0;
    for (int gi = 0; gi < ngroups; gi++) {
        const fleet_point *const *pts = order + groups[gi].start;
        char a[64], b[64], cell[16];
        int np = 0, nt = 0, total = groups[gi].count;
        for (int j = 0; j < total; j++) {
            if (pts[j]->pct_ref >= 0 && np < n) pct[np++] = pts[j]->pct_ref;
            if (pts[j]->tput >= 0 && nt < n) tp[nt++] = pts[j]->tput;
        }
        if (nt == 0) continue; /* no GPU timed it: its rows say why */
        fleet_cells(a, sizeof a, pct, np);
        fleet_cells(b, sizeof b, tp, nt);
        snprintf(cell, sizeof cell, "%d/%d", nt, total);
        fprintf(f, "%-30s %-14s %5s %s %s  %s\n", pts[0]->case_label, pts[0]->variant, cell, a, b, pts[0]->unit);
        lines++;
    }
    if (!lines) fprintf(f, "(no row was timed on any GPU)\n");
    /* slow GPUs: below the median of a library row */
    for (int gi = 0; gi < ngroups; gi++) {
        const fleet_point *const *pts = order + groups[gi].start;
        stats_summary st;
        int nt = 0;
        if (!pts[0]->library) continue;
        for (int j = 0; j < groups[gi].count; j++)
            if (pts[j]->tput >= 0 && nt < n) tp[nt++] = pts[j]->tput;
        if (nt < 2 || stats_summarize(tp, (size_t)nt, &st) != 0) continue;
        for (int j = 0; j < groups[gi].count; j++) {
            const fleet_point *q = pts[j];
            if (!fleet_is_slow(q->tput, st.median, threshold_pct)) continue;
            flagged++;
            fleet_member_name(&m[q->member], name, sizeof name);
            fprintf(f, "SLOW %s %s: %s (%s): %.2f %s, %.1f%% below the fleet median %.2f", q->case_label, q->variant,
                    name, m[q->member].pci_bus_id, q->tput, q->unit, (st.median - q->tput) / st.median * 100.0,
                    st.median);
            if (q->sm_clock_mhz > 0)
                fprintf(f, " (SM clock %.0f MHz mean, %.0f min; throttle: %s)", q->sm_clock_mhz, q->sm_clock_min_mhz,
                        q->throttle[0] ? q->throttle : "none");
            else fprintf(f, " (clocks not observed: no NVML)");
            fputc('\n', f);
        }
    }
    if (!flagged)
        fprintf(f, "no GPU more than %g%% below the fleet median on a library row\n", threshold_pct);
    for (int i = 0; i < n; i++) {
        if (m[i].state != FLEET_FAILED && m[i].state != FLEET_MISSING && m[i].state != FLEET_WAITING) continue;
        fleet_member_name(&m[i], name, sizeof name);
        if (m[i].state == FLEET_FAILED)
            fprintf(f, "FAILED %s: %s (%ld ERROR row%s stand for its plan)\n", name, m[i].why, m[i].rows,
                    m[i].rows == 1 ? "" : "s");
        else
            fprintf(f, "MISSING %s: %s (%ld row%s arrived)\n", name, m[i].why[0] ? m[i].why : "no word from it",
                    m[i].rows, m[i].rows == 1 ? "" : "s");
    }
    fflush(f);
    free(pct);
    free(tp);
    free(order);
    free(groups);
    return flagged;
}
