/* src/gpu/run.c: executes the plan. Per case: allocate, generate inputs with
 * cuRAND, compute the reference, then for every selected variant (library
 * rows first, so the percents have their denominators): poison the output,
 * run once, verify, and only then time. A failed variant is reported and
 * the others still run; a sticky device error stops the run cleanly. */
#include "run.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "blas.h"
#include "check.h"
#include "verify_kernels.h"
#include "harness.h"
#include "inputs.h"
#include "metrics.h"
#include "shim.h"
#include "sizes.h"
#include "variants.h"
#include "verify.h"

#define RUN_MAX_ROWS 64

// ---------------------------------------------------------------------------
// progress on stderr: a live line on a terminal, plain lines in a log

typedef struct {
    int enabled, tty;
    int total, done;   /* variant runs planned / finished */
    double t0;         /* run start */
    char label[160];   /* what runs now */
} run_progress;

static void run_progress_print(run_progress *p, const char *state, size_t samples)
{
    double el = harness_now() - p->t0;
    char eta[32] = "";
    if (!p->enabled) return;
    if (p->done > 0 && p->done < p->total)
        snprintf(eta, sizeof eta, ", ~%.0fs left", el / p->done * (p->total - p->done));
    if (p->tty) {
        fprintf(stderr, "\r\033[K[%d/%d] %s: %s", p->done + 1, p->total, p->label, state);
        if (samples) fprintf(stderr, " %zu", samples);
        fprintf(stderr, " (%.0fs%s)", el, eta);
    } else if (!samples) {
        fprintf(stderr, "[%d/%d] %s: %s (%.0fs%s)\n", p->done + 1, p->total, p->label, state, el, eta);
    }
    fflush(stderr);
}

static void run_progress_samples(void *ctx, size_t n)
{
    run_progress *p = ctx;
    if (p->tty && (n % 5 == 0 || n < 5)) run_progress_print(p, "timing, samples", n);
}

static void run_progress_clear(run_progress *p)
{
    if (p->enabled && p->tty) {
        fputs("\r\033[K", stderr);
        fflush(stderr);
    }
}

// ---------------------------------------------------------------------------
// plan

static int run_selected(const cli_options *o, const variant *v)
{
    if (o->variant_count == 0) return 1;
    for (int i = 0; i < o->variant_count; i++)
        if (strcmp(o->variants[i], v->name) == 0) return 1;
    /* the rows the percents are taken against always run */
    return v->is_library && (strcmp(v->name, variants_op_ref(v->op)) == 0 ||
                             strcmp(v->name, variants_op_best(v->op)) == 0);
}

/* Variant indices for op in run order: ref library, best library, other
 * libraries, hand rows in table order. */
static int run_order(const cli_options *o, const char *op, int *idx)
{
    int n = 0;
    const char *first[2] = {variants_op_ref(op), variants_op_best(op)};
    for (int f = 0; f < 2; f++) {
        int i = variants_find(op, first[f]);
        if (i >= 0 && variants_visible(i) && run_selected(o, &variants_table[i])) idx[n++] = i;
    }
    for (int pass = 0; pass < 2; pass++)
        for (int i = 0; i < variants_count; i++) {
            const variant *v = &variants_table[i];
            if (strcmp(v->op, op) != 0 || !variants_visible(i) || !run_selected(o, v)) continue;
            if (pass == 0 && (!v->is_library || strcmp(v->name, first[0]) == 0 || strcmp(v->name, first[1]) == 0))
                continue;
            if (pass == 1 && v->is_library) continue;
            idx[n++] = i;
        }
    return n;
}

static const char *const run_ops[3] = {"sgemm", "reduce", "sort"};

int run_case_bytes(const char *op, long long size, size_t *bytes)
{
    char msg[256];
    size_t b = 0, t = 0;
    if (strcmp(op, "sgemm") == 0) {
        double nn = (double)size * (double)size;
        /* A, B, C in float; A, B, C in double for the FP64 reference */
        b = (size_t)(nn * (3 * 4 + 3 * 8));
    } else if (strcmp(op, "reduce") == 0) {
        if (shim_cub_reduce_temp_bytes(size, &t, msg, sizeof msg)) t = 1 << 20;
        b = (size_t)size * 4 + variants_scratch_bytes(op, size) + t + 4096;
    } else {
        if (shim_cub_sort_temp_bytes(size, &t, msg, sizeof msg)) t = (size_t)size * 4 + (64 << 20);
        /* in, out, reference, hand scratch, CUB temp */
        b = (size_t)size * 12 + variants_scratch_bytes(op, size) + t + 4096;
    }
    *bytes = b;
    return 0;
}

int run_check_memory(const cli_options *o, char *err, size_t err_len)
{
    size_t free_b = 0, total_b = 0;
    const double gib = 1024.0 * 1024.0 * 1024.0;
    if (device_mem_info(&free_b, &total_b)) {
        snprintf(err, err_len, "%s", status_message());
        return 1;
    }
    for (int op = 0; op < 3; op++) {
        int bit = cli_op_bit(run_ops[op]);
        const long long *sizes = o->elems;
        int count = op == 0 ? o->gemm_count : o->elems_count;
        if (!(o->ops & bit)) continue;
        for (int i = 0; i < count; i++) {
            size_t need;
            char sz[32];
            run_case_bytes(run_ops[op], op == 0 ? o->gemm[i].n : sizes[i], &need);
            /* keep 256 MiB for the context, cuBLAS workspaces and thrust's temporaries */
            if (need + (256u << 20) > free_b) {
                sizes_format(op == 0 ? o->gemm[i].n : sizes[i], sz, sizeof sz);
                snprintf(err, err_len,
                         "%s %s=%s needs %.2f GiB of device memory, only %.2f GiB free (of %.2f GiB): "
                         "choose a smaller %s",
                         run_ops[op], op == 0 ? "n" : "elems", sz, (need + (256u << 20)) / gib, free_b / gib,
                         total_b / gib, op == 0 ? "--n" : "--elems");
                return 2;
            }
        }
    }
    return 0;
}

// ---------------------------------------------------------------------------
// one case

typedef struct {
    device_ctx *dev;
    const cli_options *o;
    volatile sig_atomic_t *stop;
    run_progress *prog;
    run_sink *sink;
    int any_bad;     /* a FAIL or ERROR so far */
    int sticky;      /* the context is unusable: stop */
} run_state;

typedef struct {
    /* device buffers (NULL when unused) */
    float *A, *B, *C;
    double *A64, *B64, *C64;
    float *x, *sum_dev;
    void *keys_in, *keys_out, *keys_ref;
    void *scratch, *lib_temp;
    double *dsums;               /* verification sums (device) */
    unsigned long long *usums;   /* key compare results (device) */
    /* host */
    float sum_host;
    int sum_on_host;
    double ref_sum, ref_sum_sq;  /* reduce reference */
} run_buffers;

static void run_free(run_buffers *b)
{
    void *p[] = {b->A, b->B, b->C, b->A64, b->B64, b->C64, b->x, b->sum_dev, b->keys_in, b->keys_out,
                 b->keys_ref, b->scratch, b->lib_temp, b->dsums, b->usums};
    for (size_t i = 0; i < sizeof p / sizeof p[0]; i++)
        if (p[i]) cudaFree(p[i]);
    memset(b, 0, sizeof *b);
}

static int run_alloc(void **p, size_t bytes)
{
    CK_CUDA(cudaMalloc(p, bytes ? bytes : 16));
    return 0;
}

/* Allocates and fills the case's inputs and reference. */
static int run_setup(run_state *rs, case_ctx *c, run_buffers *b)
{
    device_ctx *d = rs->dev;
    cudaStream_t s = d->stream;
    char msg[400];
    CK_CUDA(cudaMalloc((void **)&b->dsums, 8 * sizeof(double)));
    CK_CUDA(cudaMalloc((void **)&b->usums, 4 * sizeof(unsigned long long)));
    if (inputs_reset(d->rng, rs->o->seed)) return STATUS_ERROR;
    if (strcmp(c->op, "sgemm") == 0) {
        size_t a = (size_t)c->m * c->k, bb = (size_t)c->k * c->n, cc = (size_t)c->m * c->n;
        if (run_alloc((void **)&b->A, a * 4) || run_alloc((void **)&b->B, bb * 4) ||
            run_alloc((void **)&b->C, cc * 4) || run_alloc((void **)&b->A64, a * 8) ||
            run_alloc((void **)&b->B64, bb * 8) || run_alloc((void **)&b->C64, cc * 8))
            return STATUS_ERROR;
        if (inputs_uniform_pm1(d->rng, b->A, a, s) || inputs_uniform_pm1(d->rng, b->B, bb, s)) return STATUS_ERROR;
        /* FP64 reference from the same float inputs */
        CK_LAUNCH(gpucheck_to_f64(b->A, b->A64, a, s));
        CK_LAUNCH(gpucheck_to_f64(b->B, b->B64, bb, s));
        if (blas_dgemm(d->blas, b->A64, b->B64, b->C64, c->m, c->n, c->k)) return STATUS_ERROR;
        CK_CUDA(cudaStreamSynchronize(s));
        cudaFree(b->A64);
        cudaFree(b->B64);
        b->A64 = b->B64 = NULL;
        c->A = b->A;
        c->B = b->B;
        c->C = b->C;
    } else if (strcmp(c->op, "reduce") == 0) {
        double h[2];
        size_t n = (size_t)c->elems;
        if (run_alloc((void **)&b->x, n * 4) || run_alloc((void **)&b->sum_dev, 16)) return STATUS_ERROR;
        if (inputs_uniform_pm1(d->rng, b->x, n, s)) return STATUS_ERROR;
        CK_CUDA(cudaMemsetAsync(b->dsums, 0, 8 * sizeof(double), s));
        CK_LAUNCH(gpucheck_sum_f64(b->x, n, b->dsums, s));
        CK_CUDA(cudaMemcpyAsync(h, b->dsums, sizeof h, cudaMemcpyDeviceToHost, s));
        CK_CUDA(cudaStreamSynchronize(s));
        b->ref_sum = h[0];
        b->ref_sum_sq = h[1];
        if (shim_cub_reduce_temp_bytes(c->elems, &c->lib_temp_bytes, msg, sizeof msg)) {
            status_set_message("shim_cub_reduce_temp_bytes: %s", msg);
            return STATUS_ERROR;
        }
        c->x = b->x;
        c->sum_dev = b->sum_dev;
    } else {
        size_t n = (size_t)c->elems;
        unsigned long long u[2] = {0, 0};
        if (run_alloc(&b->keys_in, n * 4) || run_alloc(&b->keys_out, n * 4) || run_alloc(&b->keys_ref, n * 4))
            return STATUS_ERROR;
        if (c->keys_are_float ? inputs_uniform_pm1(d->rng, (float *)b->keys_in, n, s)
                              : inputs_u32(d->rng, (uint32_t *)b->keys_in, n))
            return STATUS_ERROR;
        if (shim_cub_sort_temp_bytes(c->elems, &c->lib_temp_bytes, msg, sizeof msg)) {
            status_set_message("shim_cub_sort_temp_bytes: %s", msg);
            return STATUS_ERROR;
        }
        if (run_alloc(&b->lib_temp, c->lib_temp_bytes)) return STATUS_ERROR;
        /* the reference: the library's sorted output, itself checked for order */
        if (c->keys_are_float
                ? shim_cub_sort_f32(b->keys_in, b->keys_ref, c->elems, b->lib_temp, c->lib_temp_bytes, s, msg, sizeof msg)
                : shim_cub_sort_u32(b->keys_in, b->keys_ref, c->elems, b->lib_temp, c->lib_temp_bytes, s, msg,
                                    sizeof msg)) {
            status_set_message("reference sort (cub): %s", msg);
            return STATUS_ERROR;
        }
        CK_CUDA(cudaMemsetAsync(b->usums, 0, 2 * sizeof(unsigned long long), s));
        CK_LAUNCH(gpucheck_count_unsorted(b->keys_ref, n, c->keys_are_float, b->usums, s));
        CK_CUDA(cudaMemcpyAsync(u, b->usums, sizeof u, cudaMemcpyDeviceToHost, s));
        CK_CUDA(cudaStreamSynchronize(s));
        if (u[0] != 0) {
            status_set_message("the reference sort is not sorted (%llu descents)", u[0]);
            return STATUS_ERROR;
        }
        c->keys_in = b->keys_in;
        c->keys_out = b->keys_out;
    }
    c->scratch_bytes = variants_scratch_bytes(c->op, c->elems);
    if (strcmp(c->op, "sgemm") != 0) {
        if (run_alloc(&b->scratch, c->scratch_bytes)) return STATUS_ERROR;
        /* zeroed once: kernels may keep state there between calls (reduce.h) */
        CK_CUDA(cudaMemsetAsync(b->scratch, 0, c->scratch_bytes ? c->scratch_bytes : 16, s));
        if (!b->lib_temp && run_alloc(&b->lib_temp, c->lib_temp_bytes)) return STATUS_ERROR;
    }
    c->scratch = b->scratch;
    c->lib_temp = b->lib_temp;
    c->sum_host = &b->sum_host;
    c->sum_on_host = &b->sum_on_host;
    return STATUS_OK;
}

/* Poisons the output so an unwritten element fails (NaN is all-ones bits;
 * for keys, 0xFFFFFFFF is a valid key but never the whole sorted output
 * of random data, and the comparison is element for element). */
static int run_poison(const case_ctx *c, run_buffers *b, cudaStream_t s)
{
    if (strcmp(c->op, "sgemm") == 0) CK_CUDA(cudaMemsetAsync(b->C, 0xff, (size_t)c->m * c->n * 4, s));
    else if (strcmp(c->op, "reduce") == 0) CK_CUDA(cudaMemsetAsync(b->sum_dev, 0xff, 4, s));
    else CK_CUDA(cudaMemsetAsync(b->keys_out, 0xff, (size_t)c->elems * 4, s));
    b->sum_host = NAN;
    b->sum_on_host = 0;
    return STATUS_OK;
}

/* Verifies the output of the checked run; fills rel_err/tolerance, returns
 * STATUS_OK, STATUS_FAIL (message set) or STATUS_ERROR. */
static int run_verify(const variant *v, const case_ctx *c, run_buffers *b, cudaStream_t s, result_row *r)
{
    verify_verdict vd;
    if (strcmp(c->op, "sgemm") == 0) {
        double h[5];
        verify_sums sums;
        CK_CUDA(cudaMemsetAsync(b->dsums, 0, 5 * sizeof(double), s));
        CK_LAUNCH(gpucheck_gemm_sums(b->C, b->C64, (size_t)c->m * c->n, b->dsums, s));
        CK_CUDA(cudaMemcpyAsync(h, b->dsums, sizeof h, cudaMemcpyDeviceToHost, s));
        CK_CUDA(cudaStreamSynchronize(s));
        sums.sum_sq_err = h[0];
        sums.sum_sq_ref = h[1];
        sums.max_abs_err = h[2];
        sums.nonfinite = h[3];
        sums.count = (double)c->m * c->n;
        verify_gemm_judge(&sums, v->math, c->k, &vd);
        r->rel_err = vd.rel_err;
        r->tolerance = vd.tolerance;
        if (!vd.pass) {
            if (vd.nonfinite)
                snprintf(r->message, sizeof r->message, "%lld of %.0f elements NaN/Inf (unwritten or overflow)",
                         vd.nonfinite, sums.count);
            else
                snprintf(r->message, sizeof r->message,
                         "rel err %.3g (tolerance %.3g), max err %.3g rms (tolerance %.3g)", vd.rel_err, vd.tolerance,
                         vd.max_err, vd.max_tolerance);
            return STATUS_FAIL;
        }
    } else if (strcmp(c->op, "reduce") == 0) {
        float got = b->sum_host;
        if (!b->sum_on_host) {
            CK_CUDA(cudaMemcpyAsync(&got, b->sum_dev, 4, cudaMemcpyDeviceToHost, s));
            CK_CUDA(cudaStreamSynchronize(s));
        }
        verify_reduce_judge(got, b->ref_sum, c->elems, b->ref_sum_sq, &vd);
        r->rel_err = vd.rel_err;
        r->tolerance = vd.tolerance;
        if (!vd.pass) {
            snprintf(r->message, sizeof r->message, "sum %.9g, reference %.9g: rel err %.3g (tolerance %.3g)",
                     (double)got, b->ref_sum, vd.rel_err, vd.tolerance);
            return STATUS_FAIL;
        }
    } else {
        unsigned long long u[2] = {0, ~0ULL};
        CK_CUDA(cudaMemcpyAsync(b->usums, u, sizeof u, cudaMemcpyHostToDevice, s));
        CK_LAUNCH(gpucheck_compare_keys(b->keys_out, b->keys_ref, (size_t)c->elems, c->keys_are_float, b->usums, s));
        CK_CUDA(cudaMemcpyAsync(u, b->usums, sizeof u, cudaMemcpyDeviceToHost, s));
        CK_CUDA(cudaStreamSynchronize(s));
        r->rel_err = (double)u[0] / (double)c->elems;
        r->tolerance = 0.0;
        if (u[0]) {
            snprintf(r->message, sizeof r->message, "%llu of %lld keys differ from the library's sort (first at %llu)",
                     u[0], c->elems, u[1]);
            return STATUS_FAIL;
        }
    }
    return STATUS_OK;
}

static void run_row_init(result_row *r, const variant *v, const case_ctx *c)
{
    memset(r, 0, sizeof *r);
    r->op = v->op;
    r->variant = v->name;
    r->library = v->is_library;
    r->math = strcmp(c->op, "sort") == 0 ? (c->keys_are_float ? "f32" : "u32") : v->math;
    if (strcmp(c->op, "sgemm") == 0) {
        r->m = c->m;
        r->n = c->n;
        r->k = c->k;
        r->flops = metrics_gemm_flops(c->m, c->n, c->k);
        r->bytes = metrics_gemm_bytes(c->m, c->n, c->k);
    } else {
        r->elems = c->elems;
        r->flops = strcmp(c->op, "reduce") == 0 ? (double)c->elems : -1;
        r->bytes = (strcmp(c->op, "reduce") == 0 ? 4.0 : 8.0) * (double)c->elems;
    }
    r->tflops = r->gbps = r->gkeys = -1;
    r->pct_ref = r->pct_best = r->pct_peak = -1;
    r->rel_err = r->tolerance = -1;
    r->ref_library = v->is_library ? NULL : (v->ref_library ? v->ref_library : variants_op_ref(v->op));
    r->best_library = v->is_library ? NULL : variants_op_best(v->op);
}

/* Records an error status for the row and detects a sticky device error. */
static void run_row_error(run_state *rs, result_row *r, const char *variant_name)
{
    cudaError_t e = check_last_cuda_error();
    cudaError_t sync = cudaDeviceSynchronize();
    r->status = STATUS_ERROR;
    snprintf(r->message, sizeof r->message, "%s: %s", variant_name, status_message());
    if (check_is_sticky(e) || check_is_sticky(sync)) {
        rs->sticky = 1;
        size_t l = strlen(r->message);
        snprintf(r->message + l, sizeof r->message - l, " [device error is sticky: run stopped]");
    }
    (void)cudaGetLastError();
}

static void run_percents(const device_info *dev, result_row *rows, int count)
{
    for (int i = 0; i < count; i++) {
        result_row *r = &rows[i];
        if (r->status != STATUS_OK || r->time_ms.count == 0) continue;
        double ms = r->time_ms.median;
        if (strcmp(r->op, "sgemm") == 0) {
            r->tflops = metrics_tflops(r->flops, ms);
            if (dev->peak_fp32_tflops > 0) r->pct_peak = r->tflops / dev->peak_fp32_tflops * 100.0;
        } else if (strcmp(r->op, "reduce") == 0) {
            r->gbps = metrics_gbps(r->bytes, ms);
            if (dev->peak_mem_gbps > 0) r->pct_peak = r->gbps / dev->peak_mem_gbps * 100.0;
        } else {
            r->gkeys = metrics_gkeys((double)r->elems, ms);
        }
        if (r->library) continue;
        for (int j = 0; j < count; j++) {
            const result_row *l = &rows[j];
            if (!l->library || l->status != STATUS_OK || l->time_ms.count == 0) continue;
            if (strcmp(l->variant, r->ref_library) == 0) r->pct_ref = metrics_pct_of(l->time_ms.median, ms);
            if (strcmp(l->variant, r->best_library) == 0) r->pct_best = metrics_pct_of(l->time_ms.median, ms);
        }
    }
}

static void run_case(run_state *rs, case_ctx *c, const char *label)
{
    result_row rows[RUN_MAX_ROWS];
    int idx[RUN_MAX_ROWS], nv, nrows = 0;
    run_buffers b;
    harness_plan plan = {rs->o->warmup, rs->o->min_reps, rs->o->max_reps, rs->o->max_time_s, rs->o->noise_pct,
                         rs->o->flush};
    int setup_st;
    memset(&b, 0, sizeof b);
    nv = run_order(rs->o, c->op, idx);
    check_clear();
    snprintf(rs->prog->label, sizeof rs->prog->label, "%s: inputs and reference", label);
    run_progress_print(rs->prog, "preparing", 0);
    setup_st = run_setup(rs, c, &b);
    for (int i = 0; i < nv; i++) {
        const variant *v = &variants_table[idx[i]];
        result_row *r = &rows[nrows];
        int st;
        if (*rs->stop) break;
        run_row_init(r, v, c);
        nrows++;
        if (setup_st != STATUS_OK) {
            run_row_error(rs, r, "inputs/reference");
            rs->any_bad = 1;
            if (rs->sticky) break;
            continue;
        }
        if (rs->sticky) {
            r->status = STATUS_SKIP;
            snprintf(r->message, sizeof r->message, "not run: an earlier device error");
            continue;
        }
        snprintf(rs->prog->label, sizeof rs->prog->label, "%s %s", label, v->name);
        run_progress_print(rs->prog, "checking", 0);
        check_clear();
        st = run_poison(c, &b, rs->dev->stream);
        if (st == STATUS_OK) st = harness_run_once(rs->dev, v, c);
        if (st == STATUS_OK) st = run_verify(v, c, &b, rs->dev->stream, r);
        if (st == STATUS_OK && !rs->o->check_only) {
            run_progress_print(rs->prog, "timing", 0);
            st = harness_time(rs->dev, v, c, &plan, rs->stop, run_progress_samples, rs->prog, &r->samples_ms,
                              &r->time_ms.count);
            if (st == STATUS_OK && stats_summarize(r->samples_ms, r->time_ms.count, &r->time_ms) != 0) {
                status_set_message("no samples");
                st = STATUS_ERROR;
            }
        }
        rs->prog->done++;
        if (st == STATUS_SKIP) { /* interrupted mid-timing: the row is dropped */
            nrows--;
            break;
        }
        r->status = (status_t)st;
        if (st == STATUS_ERROR) run_row_error(rs, r, v->name);
        if (st == STATUS_FAIL || st == STATUS_ERROR) rs->any_bad = 1;
    }
    run_progress_clear(rs->prog);
    run_percents(&rs->dev->info, rows, nrows);
    if (nrows > 0) rs->sink->emit_case(rs->sink->ctx, rows, nrows);
    for (int i = 0; i < nrows; i++) results_row_free(&rows[i]);
    run_free(&b);
    (void)cudaGetLastError();
}

int run_all(device_ctx *d, const cli_options *o, run_sink *sink, volatile sig_atomic_t *stop)
{
    run_progress prog = {o->progress, isatty(2), 0, 0, harness_now(), ""};
    run_state rs = {d, o, stop, &prog, sink, 0, 0};
    int idx[RUN_MAX_ROWS];
    for (int op = 0; op < 3; op++) {
        if (!(o->ops & cli_op_bit(run_ops[op]))) continue;
        int per = run_order(o, run_ops[op], idx);
        prog.total += per * (op == 0 ? o->gemm_count : o->elems_count) * (op == 2 ? 2 : 1);
    }
    for (int op = 0; op < 3 && !*stop && !rs.sticky; op++) {
        if (!(o->ops & cli_op_bit(run_ops[op]))) continue;
        int count = op == 0 ? o->gemm_count : o->elems_count;
        for (int i = 0; i < count && !*stop && !rs.sticky; i++) {
            for (int kf = 0; kf < (op == 2 ? 2 : 1) && !*stop && !rs.sticky; kf++) {
                case_ctx c;
                char label[96], sz[32];
                memset(&c, 0, sizeof c);
                c.dev = d;
                c.op = run_ops[op];
                sizes_format(op == 0 ? o->gemm[i].n : o->elems[i], sz, sizeof sz);
                if (op == 0) {
                    c.m = (int)o->gemm[i].m;
                    c.n = (int)o->gemm[i].n;
                    c.k = (int)o->gemm[i].k;
                    snprintf(label, sizeof label, "sgemm n=%s", sz);
                } else {
                    c.elems = o->elems[i];
                    c.keys_are_float = kf;
                    snprintf(label, sizeof label, "%s%s elems=%s", run_ops[op], op == 2 ? (kf ? " f32" : " u32") : "",
                             sz);
                }
                run_case(&rs, &c, label);
            }
        }
    }
    if (*stop) return *stop == SIGTERM ? 143 : 130;
    return rs.any_bad || rs.sticky ? 1 : 0;
}
