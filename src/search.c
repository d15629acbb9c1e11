/* src/search.c: `compare-search`, the tile-shape search behind the tuned
 * SGEMM picks. For each n given, every candidate of the FP32 and TF32
 * candidate tables (kernels/search/sgemm_search.h) is verified against the
 * FP64 reference, then timed with the same harness as `compare` (L2 flushed,
 * event pair per sample, median); the picks in the kernel files are candidate
 * NAMES, and --csv writes one row per candidate and size (the reference
 * library's row first in each family) for tools: tests/gpu_check.sh's search
 * phase passes the winners' names as -DCOMPARE_KERNEL_DEFS.
 *   compare-search [--n LIST] [--shape MxNxK[,MxNxK...]] [--reps N] [--family LIST]
 *                  [--candidates LIST] [--csv FILE]
 * --n gives square sizes (m = n = k), --shape explicit GEMM shapes (C m x n =
 * A m x k * B k x n, parsed by the core's shapes.c as `compare --shape`):
 * the --n sizes are timed first, then the shapes; without either, --n
 * 2048,4096,8192. A shape given twice (in --n and --shape too) is refused.
 * --candidates NAME[,NAME...]: only these candidates, in this order, each as
 * often as it is listed (a name twice: an A/B/A/B comparison that sees the
 * clocks drift), in each table that has it; a name no selected table has is
 * refused before anything runs.
 * CSV columns: family, candidate, m, n, k, status (ok, FAIL, ERROR, SKIP),
 * time_ms_median, tflops, pct_of_cublas, rel_err (empty where n/a).
 * Exit: 0, 1 if any candidate failed verification, 2 usage, 77 no GPU. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blas.h"
#include "check.h"
#include "device.h"
#include "verify_kernels.h"
#include "harness.h"
#include "inputs.h"
#include "metrics.h"
#include "csv.h"
#include "sgemm.h"
#include "sgemm_search.h"
#include "shapes.h"
#include "sizes.h"
#include "stats.h"
#include "verify.h"

typedef struct {
    const char *family;        /* "fp32" or "tf32": its math and table */
    int (*count)(void);
    const char *(*name)(int);
    int (*run)(int, const float *, const float *, float *, int, int, int, cudaStream_t);
} search_table;

static const search_table search_tables[] = {
    {"fp32", sgemm_search_count, sgemm_search_name, sgemm_search_run},
    {"tf32", sgemm_tf32_search_count, sgemm_tf32_search_name, sgemm_tf32_search_run},
    {"tf32-wgmma", sgemm_tf32_wgmma_search_count, sgemm_tf32_wgmma_search_name, sgemm_tf32_wgmma_search_run},
    {"tf32-tma", sgemm_tf32_tma_search_count, sgemm_tf32_tma_search_name, sgemm_tf32_tma_search_run},
};

/* the candidate the harness's run callback calls */
static const search_table *search_cur_table;
static int search_cur_index;

/* the buffers of one size (op_case.data) */
typedef struct {
    const float *A, *B;
    float *C;
} search_data;

static int search_run_current(const op_case *c, const variant *v, cudaStream_t s)
{
    const search_data *b = c->data;
    (void)v;
    CK_LAUNCH(search_cur_table->run(search_cur_index, b->A, b->B, b->C, (int)c->pc->m, (int)c->pc->n,
                                    (int)c->pc->k, s));
    return STATUS_OK;
}

static int search_library(const op_case *c, const variant *v, cudaStream_t s)
{
    const search_data *b = c->data;
    (void)s;
    return blas_sgemm(c->dev->blas, b->A, b->B, b->C, (int)c->pc->m, (int)c->pc->n, (int)c->pc->k,
                      strcmp(v->info.math, "tf32") == 0);
}

/* 1 if `name` is one of the comma-separated entries of `list` */
static int search_family_listed(const char *list, const char *name)
{
    size_t len = strlen(name);
    for (const char *p = list; *p;) {
        const char *e = strchr(p, ',');
        size_t l = e ? (size_t)(e - p) : strlen(p);
        if (l == len && strncmp(p, name, len) == 0)
            return 1;
        if (!e)
            break;
        p = e + 1;
    }
    return 0;
}

/* The index of candidate `name` (l characters) in table `tab`, or -1. */
static int search_candidate_index(const search_table *tab, const char *name, size_t l)
{
    for (int i = 0; i < tab->count(); i++)
        if (strlen(tab->name(i)) == l && strncmp(tab->name(i), name, l) == 0)
            return i;
    return -1;
}

/* 1 if the list entry p (l characters) names a built table */
static int search_is_family(const char *p, size_t l, const char *families)
{
    (void)families;
    for (size_t t = 0; t < sizeof search_tables / sizeof search_tables[0]; t++)
        if (strlen(search_tables[t].family) == l && strncmp(p, search_tables[t].family, l) == 0)
            return 1;
    return 0;
}

/* 1 if it names a candidate of a table the --family list (NULL: every table) selects */
static int search_is_candidate(const char *p, size_t l, const char *families)
{
    for (size_t t = 0; t < sizeof search_tables / sizeof search_tables[0]; t++)
        if ((!families || search_family_listed(families, search_tables[t].family)) &&
            search_candidate_index(&search_tables[t], p, l) >= 0)
            return 1;
    return 0;
}

/* The first entry of a comma-separated list that `known` refuses, as *bad
 * and *bad_len (an empty list: its empty first entry); 0 when every entry
 * passes, else 1. */
static int search_list_check(const char *list, const char *families,
                             int (*known)(const char *, size_t, const char *), const char **bad,
                             size_t *bad_len)
{
    for (const char *p = list;;) {
        const char *e = strchr(p, ',');
        const size_t l = e ? (size_t)(e - p) : strlen(p);
        if (l == 0 || !known(p, l, families)) {
            *bad = p;
            *bad_len = l;
            return 1;
        }
        if (!e)
            return 0;
        p = e + 1;
    }
}

/* One candidate's (or the library's) outcome at one size, for the CSV. */
typedef struct {
    const char *status; /* "ok", "FAIL", "ERROR", "SKIP" */
    double ms;          /* median time, -1 unless ok */
    double rel_err;     /* relative Frobenius error, -1 unless verified */
} search_outcome;

/* verify + time one runnable; prints one line; returns 0 ok, 1 fail */
static int search_measure(device_ctx *d, const variant *v, const op_case *c, const double *C64,
                          double *sums_dev, const harness_plan *hp, double ref_ms, const char *label,
                          search_outcome *out)
{
    double h[5], *samples = NULL;
    size_t count = 0;
    verify_sums vs = {0}; /* no input norms: no cancellation floor (searched sizes do not cancel) */
    verify_verdict vd;
    stats_summary st;
    const search_data *b = c->data;
    const long long m = c->pc->m, n = c->pc->n, k = c->pc->k;
    check_clear();
    out->status = "ERROR";
    out->ms = -1;
    out->rel_err = -1;
    if (cudaMemsetAsync(b->C, 0xff, (size_t)m * n * 4, d->stream) != cudaSuccess ||
        harness_run_once(d, v, c) != STATUS_OK) {
        int unsupported = check_last_cuda_error() == cudaErrorNotSupported;
        /* a candidate that declines a shape (wgmma: n, k multiples of 4) is skipped, not failed */
        printf("%-40s %s %s\n", label, unsupported ? "SKIP (shape not supported)" : "ERROR", status_message());
        (void)cudaGetLastError();
        if (unsupported)
            out->status = "SKIP";
        return unsupported ? 0 : 1;
    }
    /* d->stream is non-blocking: the copy back goes on it and is waited for
     * (a plain cudaMemcpy would not wait for the sums) */
    if (cudaMemsetAsync(sums_dev, 0, 5 * sizeof(double), d->stream) != cudaSuccess ||
        gpucheck_gemm_sums(b->C, C64, (size_t)m * n, sums_dev, d->stream) != 0 ||
        cudaMemcpyAsync(h, sums_dev, sizeof h, cudaMemcpyDeviceToHost, d->stream) != cudaSuccess ||
        cudaStreamSynchronize(d->stream) != cudaSuccess) {
        printf("%-40s ERROR verification\n", label);
        return 1;
    }
    vs.sum_sq_err = h[0];
    vs.sum_sq_ref = h[1];
    vs.max_abs_err = h[2];
    vs.nonfinite = h[3];
    vs.count = (double)m * n;
    verify_gemm_judge(&vs, v->info.math, k, &vd);
    out->rel_err = vd.rel_err;
    if (!vd.pass) {
        out->status = "FAIL";
        printf("%-40s FAIL rel err %.2e (tolerance %.2e), %lld NaN/Inf\n", label, vd.rel_err, vd.tolerance,
               vd.nonfinite);
        return 1;
    }
    if (harness_time(d, v, c, hp, NULL, NULL, NULL, &samples, &count, NULL, NULL) != STATUS_OK ||
        stats_summarize(samples, count, &st) != 0) {
        printf("%-40s ERROR timing: %s\n", label, status_message());
        free(samples);
        return 1;
    }
    out->status = "ok";
    out->ms = st.median;
    printf("%-40s %9.4f ms %6.1f%% %9.2f TFLOP/s", label, st.median, st.spread_pct,
           metrics_tflops(metrics_gemm_flops(m, n, k), st.median));
    if (ref_ms > 0) printf("  %6.1f%% of cuBLAS", metrics_pct_of(ref_ms, st.median));
    printf("  rel err %.2e\n", vd.rel_err);
    free(samples);
    return 0;
}

/* The --csv file: written to FILE.tmp, renamed over FILE at the end (an
 * interrupted search leaves any previous FILE as it was). */
typedef struct {
    FILE *f;
    char path[4096], tmp[4200];
} search_csv;

static int search_csv_open(search_csv *w, const char *path)
{
    if (snprintf(w->path, sizeof w->path, "%s", path) >= (int)sizeof w->path)
        return -1;
    snprintf(w->tmp, sizeof w->tmp, "%s.tmp", path);
    w->f = fopen(w->tmp, "w");
    if (!w->f)
        return -1;
    fprintf(w->f, "family,candidate,m,n,k,status,time_ms_median,tflops,pct_of_cublas,rel_err\n");
    return 0;
}

static void search_csv_row(search_csv *w, const char *family, const char *candidate, const cli_shape *sh,
                           const search_outcome *o, double ref_ms)
{
    char ms[64], tf[64], pct[64], err[64];
    if (!w->f)
        return;
    csv_format_number(ms, sizeof ms, o->ms);
    csv_format_number(tf, sizeof tf,
                      o->ms > 0 ? metrics_tflops(metrics_gemm_flops(sh->m, sh->n, sh->k), o->ms) : -1);
    csv_format_number(pct, sizeof pct, o->ms > 0 && ref_ms > 0 ? metrics_pct_of(ref_ms, o->ms) : -1);
    csv_format_number(err, sizeof err, o->rel_err);
    csv_write_field(w->f, family);
    fputc(',', w->f);
    csv_write_field(w->f, candidate);
    fprintf(w->f, ",%lld,%lld,%lld,%s,%s,%s,%s,%s\n", sh->m, sh->n, sh->k, o->status, ms, tf, pct, err);
}

/* Drops the temporary file (a search that stopped early). */
static void search_csv_discard(search_csv *w)
{
    if (w->f) {
        fclose(w->f);
        w->f = NULL;
        remove(w->tmp);
    }
}

/* 0 once FILE holds every row, else -1 (FILE untouched). */
static int search_csv_close(search_csv *w)
{
    if (!w->f)
        return 0;
    int bad = ferror(w->f) != 0;
    bad |= fclose(w->f) != 0;
    w->f = NULL;
    if (!bad && rename(w->tmp, w->path) == 0)
        return 0;
    remove(w->tmp);
    return -1;
}

/* The square sizes of --n (2048,4096,8192 when neither --n nor --shape is
 * given), then the --shape shapes, into *out; 0, or 2 after a message. */
static int search_shapes(const long long *sizes, int nsizes, int have_n, const shapes_list *given,
                         shapes_list *out)
{
    char err[512];
    static const long long defaults[] = {2048, 4096, 8192};
    if (!have_n && given->count == 0) {
        sizes = defaults;
        nsizes = 3;
    }
    shapes_init(out);
    for (int i = 0; i < nsizes; i++) {
        const cli_shape sh = {sizes[i], sizes[i], sizes[i]};
        if (shapes_add(out, &sh, "--n", err, sizeof err)) {
            fprintf(stderr, "compare-search: %s\n", err);
            return 2;
        }
    }
    if (shapes_merge(out, given, err, sizeof err)) {
        fprintf(stderr, "compare-search: %s\n", err);
        return 2;
    }
    return 0;
}

int main(int argc, char **argv)
{
    long long sizes[SIZES_MAX_COUNT];
    int nsizes = 0, have_n = 0, reps = 20, bad = 0;
    static shapes_list given, shapes; /* --shape as given; every shape to time */
    const char *families = NULL; /* comma-separated, NULL: every table */
    const char *candidates = NULL; /* --candidates, NULL: every candidate */
    const char *bad_entry = NULL;  /* the entry of a list refused */
    size_t bad_len = 0;
    const char *csv_path = NULL; /* --csv FILE */
    search_csv csv = {NULL, "", ""};
    char err[512];
    device_ctx d;
    shapes_init(&given);
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--n") == 0 && i + 1 < argc) {
            if (sizes_parse(argv[++i], 1, 32768, sizes, SIZES_MAX_COUNT, &nsizes, err, sizeof err)) {
                fprintf(stderr, "compare-search: --n: %s\n", err);
                return 2;
            }
            have_n = 1;
        } else if (strcmp(argv[i], "--shape") == 0 && i + 1 < argc) {
            if (shapes_parse_list("--shape", argv[++i], &given, err, sizeof err)) {
                fprintf(stderr, "compare-search: %s\n", err);
                return 2;
            }
        } else if (strcmp(argv[i], "--reps") == 0 && i + 1 < argc) {
            reps = atoi(argv[++i]);
            if (reps < 1 || reps > 10000) {
                fprintf(stderr, "compare-search: --reps '%s': expected 1..10000\n", argv[i]);
                return 2;
            }
        } else if (strcmp(argv[i], "--family") == 0 && i + 1 < argc) {
            families = argv[++i];
            if (search_list_check(families, NULL, search_is_family, &bad_entry, &bad_len)) {
                fprintf(stderr, "compare-search: --family: unknown family '%.*s' (fp32, tf32%s)\n",
                        (int)bad_len, bad_entry,
                        ", tf32-wgmma, tf32-tma");
                return 2;
            }
        } else if (strcmp(argv[i], "--candidates") == 0 && i + 1 < argc) {
            candidates = argv[++i];
        } else if (strcmp(argv[i], "--csv") == 0 && i + 1 < argc) {
            csv_path = argv[++i];
        } else {
            fprintf(stderr, "usage: compare-search [--n LIST] [--shape MxNxK[,MxNxK...]] [--reps N] [--family LIST]"
                            " [--candidates LIST] [--csv FILE]\n"
                            "  families: fp32, tf32, tf32-wgmma, tf32-tma (those built); default all\n"
                            "  --candidates: only these names, in this order, repeats allowed\n"
                            "  --n: square sizes; --shape: GEMM shapes C (m x n) = A (m x k) * B (k x n);\n"
                            "  neither: --n 2048,4096,8192\n");
            return 2;
        }
    }
    if (candidates && search_list_check(candidates, families, search_is_candidate, &bad_entry, &bad_len)) {
        fprintf(stderr, "compare-search: --candidates: no candidate '%.*s' in the families searched\n",
                (int)bad_len, bad_entry);
        return 2;
    }
    if (search_shapes(sizes, nsizes, have_n, &given, &shapes))
        return 2;
    int rc = device_open(&d, 0, 2026, err, sizeof err);
    if (rc) {
        fprintf(stderr, "compare-search: %s\n", err);
        return rc;
    }
    if (csv_path && search_csv_open(&csv, csv_path) != 0) {
        fprintf(stderr, "compare-search: --csv '%s': cannot write %s.tmp\n", csv_path, csv_path);
        device_close(&d);
        return 2;
    }
    printf("compare-search on %s (%d SMs), L2 flushed, median of >= %d samples\n", d.info.name, d.info.sms, reps);
    harness_plan hp = {2, reps, reps * 5, 1.0, 0.5, 1};
    for (int si = 0; si < shapes.count; si++) {
        const cli_shape *sh = &shapes.shape[si];
        const int m = (int)sh->m, n = (int)sh->n, k = (int)sh->k;
        const int square = m == n && n == k;
        const size_t na = (size_t)m * k, nb = (size_t)k * n, nc = (size_t)m * n;
        char label[64];
        float *A = NULL, *B = NULL, *C = NULL;
        double *A64 = NULL, *B64 = NULL, *C64 = NULL, *sums = NULL;
        op_case c;
        plan_case pc;
        search_data sd;
        if (square)
            snprintf(label, sizeof label, "n=%d", n);
        else
            shapes_format(sh, label, sizeof label);
        if (cudaMalloc((void **)&A, na * 4) || cudaMalloc((void **)&B, nb * 4) || cudaMalloc((void **)&C, nc * 4) ||
            cudaMalloc((void **)&A64, na * 8) || cudaMalloc((void **)&B64, nb * 8) ||
            cudaMalloc((void **)&C64, nc * 8) || cudaMalloc((void **)&sums, 64)) {
            fprintf(stderr, "compare-search: out of device memory at %s\n", label);
            search_csv_discard(&csv);
            return 1;
        }
        /* a square size keeps the seed it always had (2026 + n) */
        const unsigned seed = 2026u + (unsigned)n + (square ? 0u : (unsigned)m * 1000003u + (unsigned)k * 7919u);
        if (inputs_reset(d.rng, seed) || inputs_uniform_pm1(d.rng, A, na, d.stream) ||
            inputs_uniform_pm1(d.rng, B, nb, d.stream) || gpucheck_to_f64(A, A64, na, d.stream) ||
            gpucheck_to_f64(B, B64, nb, d.stream) || blas_dgemm(d.blas, A64, B64, C64, m, n, k) ||
            cudaStreamSynchronize(d.stream)) {
            fprintf(stderr, "compare-search: inputs/reference failed: %s\n", status_message());
            search_csv_discard(&csv);
            return 1;
        }
        memset(&c, 0, sizeof c);
        memset(&pc, 0, sizeof pc);
        pc.m = m;
        pc.n = n;
        pc.k = k;
        sd.A = A;
        sd.B = B;
        sd.C = C;
        c.pc = &pc;
        c.dev = &d;
        c.data = &sd;
        if (square)
            printf("\nn = %d\n", n);
        else
            printf("\nm x n x k = %s\n", label);
        for (size_t t = 0; t < sizeof search_tables / sizeof search_tables[0]; t++) {
            const search_table *tab = &search_tables[t];
            if (families && !search_family_listed(families, tab->family))
                continue;
            int tf32 = strncmp(tab->family, "tf32", 4) == 0;
            variant lib = {.info = {"sgemm", tf32 ? "cublas_tf32" : "cublas_fp32", 1, tf32 ? "tf32" : "fp32", NULL,
                                    0, "builtin", ""},
                           .run = search_library};
            variant cand = {.info = {"sgemm", "candidate", 0, tf32 ? "tf32" : "fp32", NULL, 0, "builtin", ""},
                            .run = search_run_current};
            double ref_ms, best_ms = -1;
            int best = -1;
            search_outcome o;
            search_measure(&d, &lib, &c, C64, sums, &hp, -1, lib.info.name, &o);
            ref_ms = o.ms;
            search_csv_row(&csv, tab->family, lib.info.name, sh, &o, ref_ms);
            search_cur_table = tab;
            /* every candidate, or those of --candidates this table has, in its order */
            const char *next = candidates;
            for (int j = 0; candidates ? next != NULL : j < tab->count(); j++) {
                int i = j;
                if (candidates) {
                    const char *e = strchr(next, ',');
                    const size_t l = e ? (size_t)(e - next) : strlen(next);
                    i = search_candidate_index(tab, next, l);
                    next = e ? e + 1 : NULL;
                    if (i < 0)
                        continue;
                }
                search_cur_index = i;
                bad |= search_measure(&d, &cand, &c, C64, sums, &hp, ref_ms, tab->name(i), &o);
                search_csv_row(&csv, tab->family, tab->name(i), sh, &o, ref_ms);
                if (o.ms > 0 && (best < 0 || o.ms < best_ms)) {
                    best = i;
                    best_ms = o.ms;
                }
            }
            if (best >= 0)
                printf("best %s at %s: [%d] %s, %.1f%% of %s\n", tab->family, label, best, tab->name(best),
                       metrics_pct_of(ref_ms, best_ms), lib.info.name);
        }
        cudaFree(A); cudaFree(B); cudaFree(C); cudaFree(A64); cudaFree(B64); cudaFree(C64); cudaFree(sums);
    }
    device_close(&d);
    if (search_csv_close(&csv) != 0) {
        fprintf(stderr, "compare-search: --csv '%s': write or rename failed\n", csv_path);
        return 1;
    }
    return bad ? 1 : 0;
}
