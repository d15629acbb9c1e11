/* src/gpu/run.c: executes the plan. Per case: the op's set-up (inputs from
 * cuRAND, the reference), one workspace for its variants (the largest any of
 * them needs, zeroed before each variant starts), then for every variant in plan order (library rows
 * first, so the percents have their denominators): poison the output, run
 * once, verify, and only then time (or, with --profile, launch once). A failed
 * variant is reported and the others still run (a search candidate, which
 * has no supports query, that returns cudaErrorNotSupported declines the
 * case: SKIP with its message); a sticky device error stops
 * the run cleanly. The run loop knows no op by name: everything op-specific
 * is a hook of its op_desc (src/gpu/op.h). */
#include "run.h"

#define RUN_THROTTLE_RETRIES 3 /* --discard-throttled: timings taken again at most this often */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <nvtx3/nvToolsExt.h>

#include "check.h"
#include "harness.h"
#include "kernel_ran.h"
#include "metrics_cupti.h"
#include "metrics_sweep.h"
#include "op.h"

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
// memory

/* Variant v's workspace bytes for the case, rounded up to 256 (its slice of
 * an interleaved case's workspace starts on such a boundary). */
static size_t run_workspace_of(const plan_case *pc, const variant *v)
{
    size_t b = v && v->workspace ? v->workspace(pc, v) : 0;
    return (b + 255) / 256 * 256;
}

/* The case's workspace: the largest variant's (variants timed one after
 * another each start from it zeroed), or, interleaved, the sum of all (each
 * variant keeps a slice of its own: they take turns sample by sample, and a
 * variant may keep state there between its own calls). */
static size_t run_workspace_bytes(const plan_case *pc, int interleaved)
{
    size_t w = 0;
    for (int i = 0; i < pc->variant_count; i++) {
        size_t b = run_workspace_of(pc, ops_variant(pc->variant[i]));
        w = interleaved ? w + b : b > w ? b : w;
    }
    return w;
}

/* The most any of the case's variants allocates for itself and keeps
 * (variant.own_bytes: tf32_tma's staging buffer). */
static size_t run_own_bytes(const plan_case *pc)
{
    size_t w = 0;
    for (int i = 0; i < pc->variant_count; i++) {
        const variant *v = ops_variant(pc->variant[i]);
        const size_t b = v && v->own_bytes ? v->own_bytes(pc, v) : 0;
        w = b > w ? b : w;
    }
    return w;
}

/* Kept free for the context, cuBLAS workspaces and thrust's temporaries. */
#define RUN_MEM_RESERVE ((size_t)256 << 20)

/* Whether the case fits in the device's free memory now (what other
 * processes hold counts), interleaved or only sequentially (plan_case_fit);
 * a launcher's own buffer is kept between calls and only grows, so only its
 * growth beyond `held` (the most any earlier case needed) is new. why:
 * "needed vs free" when it does not fit as asked. */
static plan_fit run_case_fits(const plan_case *pc, int want_interleaved, size_t held, char *why, size_t why_len)
{
    size_t free_b = 0, total_b = 0;
    const double gib = 1024.0 * 1024.0 * 1024.0;
    const char *cap = getenv("COMPARE_TEST_FREE_BYTES"); /* test-only: pretend less is free */
    const size_t own = run_own_bytes(pc);
    const size_t base = ops_get(pc->op)->case_bytes(pc) + (own > held ? own - held : 0) + RUN_MEM_RESERVE;
    const size_t seq = run_workspace_bytes(pc, 0), inter = run_workspace_bytes(pc, 1);
    why[0] = '\0';
    if (device_mem_info(&free_b, &total_b)) return want_interleaved ? PLAN_FITS_INTERLEAVED : PLAN_FITS_SEQUENTIAL;
    if (cap && strtoull(cap, NULL, 10) < free_b) free_b = (size_t)strtoull(cap, NULL, 10);
    const plan_fit fit = plan_case_fit(base, seq, inter, free_b, want_interleaved);
    if (fit == PLAN_FITS_SEQUENTIAL && want_interleaved)
        snprintf(why, why_len,
                 "timed sequentially: the variants' workspaces together need %.2f GiB, only %.2f GiB free",
                 (base + inter) / gib, free_b / gib);
    else if (fit == PLAN_FITS_NOT)
        snprintf(why, why_len, "not run: the case needs %.2f GiB of device memory, only %.2f GiB free (of %.2f GiB)",
                 (base + seq) / gib, free_b / gib, total_b / gib);
    return fit;
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
    size_t own_held; /* the most any case so far needed for launchers' own buffers (kept between calls) */
    int sticky;      /* the context is unusable: stop */
    metrics_cupti *metrics; /* --metrics: the CUPTI session (NULL without --metrics) */
} run_state;

static void run_row_init(result_row *r, const op_case *c, const variant *v)
{
    const op_desc *op = c->op;
    results_row_clear(r);
    r->op = op->info.name;
    r->variant = v->info.name;
    r->library = v->info.is_library;
    r->source = v->info.source;
    r->rate = op->info.rate;
    r->peak = op->info.peak;
    snprintf(r->case_label, sizeof r->case_label, "%s", c->pc->label);
    snprintf(r->shape, sizeof r->shape, "%s", c->pc->shape);
    r->dist = c->pc->dist;
    op->fill_row(c, v, r);
    snprintf(r->note, sizeof r->note, "%s", v->note ? v->note : "");
    if (!r->library) {
        r->ref_library = v->info.ref_library ? v->info.ref_library : op->info.ref_library;
        r->best_library = op->info.best_library;
    }
}

/* Records an error status for the row and detects a sticky device error. */
static void run_row_error(run_state *rs, result_row *r, const char *what)
{
    cudaError_t e = check_last_cuda_error();
    cudaError_t sync = cudaDeviceSynchronize();
    r->status = STATUS_ERROR;
    snprintf(r->message, sizeof r->message, "%s: %s", what, status_message());
    if (check_is_sticky(e) || check_is_sticky(sync)) {
        rs->sticky = 1;
        size_t l = strlen(r->message);
        snprintf(r->message + l, sizeof r->message - l, " [device error is sticky: run stopped]");
    }
    (void)cudaGetLastError();
}

/* The kernel the checked run really launched (the launcher's note, else the
 * row's default), and the reason when it is a fallback. */
static void run_note_kernel(result_row *r, const variant *v)
{
    const char *k = kernel_ran_name();
    const char *why = kernel_ran_reason();
    snprintf(r->kernel, sizeof r->kernel, "%s", k ? k : v->kernel ? v->kernel : v->info.name);
    snprintf(r->kernel_note, sizeof r->kernel_note, "%s", why ? why : "");
}

/* The clocks seen while the samples ran (none without NVML). */
static void run_note_clocks(result_row *r, const clocks_summary *cs)
{
    if (!cs->valid) return;
    r->sm_clock_mhz = cs->sm_mhz_mean;
    r->sm_clock_min_mhz = cs->sm_mhz_min;
    r->mem_clock_mhz = cs->mem_mhz_mean == cs->mem_mhz_mean ? cs->mem_mhz_mean : -1; /* NAN: unread */
    r->temp_c = cs->temp_c_max == cs->temp_c_max ? cs->temp_c_max : -1;
    r->power_w = cs->power_w_mean == cs->power_w_mean ? cs->power_w_mean : -1;
    snprintf(r->throttle, sizeof r->throttle, "%s", cs->reason_names);
    r->throttled = cs->power_or_thermal;
}

/* NVTX: one push/pop range open at a time, so that
 * `ncu --nvtx --nvtx-include "<op> <variant> <size>/"` selects exactly the
 * launch of --profile, whatever the nesting rules of the filter. */
static void run_nvtx_push(const op_case *c, const variant *v, const char *phase)
{
    char name[192];
    /* "sgemm tuned 4096x4096x4096": the op, the variant, then the sizes */
    const char *sizes = strchr(c->pc->nvtx, ' ');
    snprintf(name, sizeof name, "%s %s%s%s%s", c->op->info.name, v->info.name, sizes ? sizes : "", phase[0] ? " " : "",
             phase);
    nvtxRangePushA(name);
}

/* The checked run: poison, run once, verify (the row's kernel noted). */
static int run_check(run_state *rs, op_case *c, const variant *v, result_row *r)
{
    device_ctx *d = rs->dev;
    int st;
    check_clear();
    kernel_ran_clear();
    /* each variant starts from a zeroed workspace: a launcher may keep state
     * there between its own calls (reduce.h), and the previous variant of the
     * case (cub's temp storage, say) left its own bytes */
    if (c->workspace) CK_CUDA(cudaMemsetAsync(c->workspace, 0, c->workspace_bytes, d->stream));
    run_nvtx_push(c, v, "verify");
    st = c->op->poison(c);
    if (st == STATUS_OK) st = harness_run_once(d, v, c);
    nvtxRangePop();
    run_note_kernel(r, v);
    if (st == STATUS_OK) st = c->op->verify(c, v, r);
    return st;
}

/* A checked variant's timing (or --profile's one launch), one variant alone. */
static int run_time(run_state *rs, op_case *c, const variant *v, result_row *r, const harness_plan *hp)
{
    device_ctx *d = rs->dev;
    int st;
    if (rs->o->profile) {
        /* one clean launch: no flush, no warm-up, nothing else in its range */
        run_progress_print(rs->prog, "profiling launch", 0);
        CK_CUDA(cudaDeviceSynchronize());
        run_nvtx_push(c, v, "");
        st = harness_run_once(d, v, c);
        nvtxRangePop();
        return st;
    }
    /* --discard-throttled: samples taken while the GPU slowed down for power or
     * heat are taken again, up to RUN_THROTTLE_RETRIES times; the row keeps
     * the last attempt (never an empty row), marked if it still was */
    for (int attempt = 0;; attempt++) {
        clocks_summary cs;
        run_progress_print(rs->prog, attempt ? "timing again (throttled)" : "timing", 0);
        run_nvtx_push(c, v, "timed");
        free(r->samples_ms);
        r->samples_ms = NULL;
        r->time_ms.count = 0;
        harness_timing how = HARNESS_UNGATED;
        st = harness_time(d, v, c, hp, rs->stop, run_progress_samples, rs->prog, &r->samples_ms, &r->time_ms.count,
                          &cs, &how);
        nvtxRangePop();
        if (st != STATUS_OK) return st;
        snprintf(r->timing, sizeof r->timing, "%s", harness_timing_name(how));
        run_note_clocks(r, &cs);
        if (!r->throttled || !rs->o->discard_throttled || attempt == RUN_THROTTLE_RETRIES) break;
        r->resampled++;
    }
    if (stats_summarize(r->samples_ms, r->time_ms.count, &r->time_ms) != 0) {
        status_set_message("no samples");
        st = STATUS_ERROR;
    }
    return st;
}

// ---------------------------------------------------------------------------
// --metrics: one more call of a timed row, untimed, under CUPTI (src/gpu/metrics_cupti.h)

typedef struct {
    device_ctx *d;
    const variant *v;
    const op_case *c;
    int flush;        /* the samples were flushed: so is this call */
    int l2_mode;      /* METRICS_L2_*: how the flush's dirty lines are cleaned */
} run_metrics_ctx;

/* Before each pass, outside the profiled range: the variant's prepare step,
 * and, as before every sample, the L2 flush; then the flush buffer's dirty
 * lines dropped from L2 (metrics_sweep.cu: discard, or a read sweep under
 * COMPARE_METRICS_L2=sweep) so they are not counted as the call's DRAM
 * writes. */
static int run_metrics_reset(void *p)
{
    const run_metrics_ctx *x = p;
    int st;
    if (x->v->prepare && (st = x->v->prepare(x->c, x->v, x->d->stream)) != STATUS_OK) return st;
    if (x->flush) {
        if ((st = device_flush_l2(x->d, 0)) != STATUS_OK) return st;
        CK_LAUNCH(metrics_sweep_launch(x->d->flush_buf, x->d->flush_bytes & ~(size_t)127, x->l2_mode, x->d->stream));
    }
    CK_CUDA(cudaStreamSynchronize(x->d->stream));
    return STATUS_OK;
}

/* The call, inside the range, waited for. */
static int run_metrics_call(void *p)
{
    const run_metrics_ctx *x = p;
    const int st = x->v->run(x->c, x->v, x->d->stream);
    if (st != STATUS_OK) return st;
    CK_CUDA(cudaGetLastError());
    CK_CUDA(cudaStreamSynchronize(x->d->stream));
    return STATUS_OK;
}

/* Measures row r (timed, ok) of v: its counter columns, or in metrics_note
 * why they stay empty. The row's status and timing are not touched; a
 * sticky device error in the counter launch stops the run as anywhere. */
static void run_metrics(run_state *rs, const op_case *c, const variant *v, result_row *r)
{
    metrics_values mv;
    char note[sizeof r->metrics_note];
    if (!rs->o->metrics) return;
    if (!rs->metrics) {
        snprintf(r->metrics_note, sizeof r->metrics_note, "not measured: out of host memory for the CUPTI session");
        return;
    }
    if (v->host_timed) {
        snprintf(r->metrics_note, sizeof r->metrics_note, "not measured: the host's own work, no GPU counters");
        return;
    }
    const int l2_mode = metrics_l2_mode();
    if (l2_mode < 0) {
        snprintf(r->metrics_note, sizeof r->metrics_note,
                 "not measured: COMPARE_METRICS_L2 is not discard, sweep, both or none");
        return;
    }
    run_progress_print(rs->prog, "counters (--metrics)", 0);
    run_metrics_ctx x = {rs->dev, v, c, rs->o->flush, l2_mode};
    const metrics_work w = {run_metrics_reset, run_metrics_call, &x};
    check_clear();
    run_nvtx_push(c, v, "metrics");
    const int rc = metrics_cupti_measure(rs->metrics, &w, &mv, note, sizeof note);
    nvtxRangePop();
    snprintf(r->metrics_note, sizeof r->metrics_note, "%s", note);
    if (rc == -2 && check_is_sticky(check_last_cuda_error())) {
        rs->sticky = 1;
        r->status = STATUS_ERROR;
        snprintf(r->message, sizeof r->message, "the --metrics launch: %s [device error is sticky: run stopped]",
                 status_message());
        rs->any_bad = 1;
    }
    (void)cudaGetLastError();
    if (rc != 0) return;
    r->dram_read_bytes = mv.dram_read_bytes;
    r->dram_write_bytes = mv.dram_write_bytes;
    r->l2_bytes = mv.l2_bytes;
    r->flops_measured = mv.flops_fp32;
    r->tensor_inst = mv.tensor_inst;
    r->occupancy_pct = mv.occupancy_pct;
    r->sm_throughput_pct = mv.sm_throughput_pct;
    r->smem_conflicts = mv.smem_conflicts;
    r->smem_wavefronts = mv.smem_wavefronts;
    if (!r->metrics_note[0] && (mv.tensor_inst > 0 || mv.gmma_inst > 0))
        snprintf(r->metrics_note, sizeof r->metrics_note,
                 "flops_measured is FP32 SIMT only; tensor instructions, no FLOP counter: %.0f %s, %.0f %s",
                 mv.tensor_inst, METRICS_TENSOR_INST, mv.gmma_inst > 0 ? mv.gmma_inst : 0.0, METRICS_GMMA_INST);
}

static int run_variant(run_state *rs, op_case *c, const variant *v, result_row *r, const harness_plan *hp)
{
    int st = run_check(rs, c, v, r);
    if (st != STATUS_OK || rs->o->check_only) return st;
    st = run_time(rs, c, v, r, hp);
    if (st == STATUS_OK && !rs->o->profile && !*rs->stop) run_metrics(rs, c, v, r);
    return rs->sticky ? STATUS_ERROR : st; /* the counter launch broke the context */
}

/* --interleave: the rows pend[0 .. np) (checked, ok) timed together in
 * rounds, each variant on its own copy of the case (its workspace slice).
 * Fills their samples, medians and clocks, or their error. Returns 1 when
 * interrupted (the caller drops the pending rows), else 0. */
static int run_time_interleaved(run_state *rs, op_case *cv, const variant **pv, result_row **pend, int np,
                                const harness_plan *hp)
{
    const variant *const *v = pv;
    const op_case *c[PLAN_MAX_VARIANTS];
    double *samples[PLAN_MAX_VARIANTS];
    size_t counts[PLAN_MAX_VARIANTS];
    int status[PLAN_MAX_VARIANTS];
    char why[PLAN_MAX_VARIANTS][256];
    clocks_summary cs[PLAN_MAX_VARIANTS];
    harness_timing how[PLAN_MAX_VARIANTS];
    for (int i = 0; i < np; i++) c[i] = &cv[i];
    snprintf(rs->prog->label, sizeof rs->prog->label, "%s (%d variants interleaved)", cv[0].pc->label, np);
    run_progress_print(rs->prog, "timing", 0);
    char name[192];
    snprintf(name, sizeof name, "%s interleaved timed", cv[0].pc->nvtx);
    nvtxRangePushA(name);
    int st = harness_time_interleaved(rs->dev, v, c, np, hp, rs->stop, run_progress_samples, rs->prog, samples,
                                      counts, status, why, cs, how);
    nvtxRangePop();
    if (st == STATUS_SKIP) return 1;
    for (int i = 0; i < np; i++) {
        result_row *r = pend[i];
        if (st != STATUS_OK) { /* out of host memory: every row */
            r->status = STATUS_ERROR;
            run_row_error(rs, r, v[i]->info.name);
            rs->any_bad = 1;
            continue;
        }
        r->samples_ms = samples[i];
        r->time_ms.count = counts[i];
        r->interleaved = 1;
        if (status[i] == STATUS_OK) {
            run_note_clocks(r, &cs[i]);
            snprintf(r->timing, sizeof r->timing, "%s", harness_timing_name(how[i]));
            if (stats_summarize(r->samples_ms, r->time_ms.count, &r->time_ms) != 0) {
                status_set_message("no samples");
                status[i] = STATUS_ERROR;
            }
        } else {
            status_set_message("%s", why[i]);
        }
        r->status = (status_t)status[i];
        if (status[i] != STATUS_OK) {
            r->status = STATUS_ERROR;
            run_row_error(rs, r, v[i]->info.name);
            rs->any_bad = 1;
        }
    }
    /* --metrics: each timed row's counter launch, after all the case's samples */
    for (int i = 0; i < np && st == STATUS_OK && !*rs->stop && !rs->sticky; i++)
        if (pend[i]->status == STATUS_OK) run_metrics(rs, &cv[i], v[i], pend[i]);
    return 0;
}

static void run_case(run_state *rs, const plan_case *pc)
{
    result_row rows[PLAN_MAX_VARIANTS];
    int nrows = 0, setup_st = STATUS_OK;
    op_case c;
    /* interleaved (the default): the checked rows waiting to be timed
     * together, each variant's case copy (its own workspace slice); a case
     * whose workspaces do not fit together is timed sequentially, one that
     * does not fit at all is SKIP (room[] says why) */
    char room[256];
    const plan_fit fit = run_case_fits(pc, rs->o->interleave && !rs->o->check_only && !rs->o->profile,
                                      rs->own_held, room, sizeof room);
    const int interleave = fit == PLAN_FITS_INTERLEAVED;
    op_case cv[PLAN_MAX_VARIANTS];
    const variant *pv[PLAN_MAX_VARIANTS];
    int pend[PLAN_MAX_VARIANTS], np = 0;
    size_t slice_at = 0;
    harness_plan hp = {rs->o->warmup, rs->o->min_reps, rs->o->max_reps, rs->o->max_time_s, rs->o->noise_pct,
                       rs->o->flush};
    nvtxRangeId_t case_range = nvtxRangeStartA(pc->nvtx);
    memset(&c, 0, sizeof c);
    c.pc = pc;
    c.op = ops_get(pc->op);
    c.dev = rs->dev;
    c.seed = rs->o->seed;
    check_clear();
    snprintf(rs->prog->label, sizeof rs->prog->label, "%s: inputs and reference", pc->label);
    run_progress_print(rs->prog, "preparing", 0);
    if (fit != PLAN_FITS_NOT) {
        const size_t own = run_own_bytes(pc);
        rs->own_held = own > rs->own_held ? own : rs->own_held;
        setup_st = c.op->setup(&c);
    }
    if (fit != PLAN_FITS_NOT && setup_st == STATUS_OK) {
        c.workspace_bytes = run_workspace_bytes(pc, interleave);
        if (c.workspace_bytes && check_cuda_status(cudaMalloc(&c.workspace, c.workspace_bytes),
                                                   "cudaMalloc(workspace)", __FILE__, __LINE__))
            setup_st = STATUS_ERROR;
    }
    for (int i = 0; i < pc->variant_count; i++) {
        const variant *v = ops_variant(pc->variant[i]);
        result_row *r = &rows[nrows];
        char why[256] = "";
        int st;
        if (*rs->stop) break;
        run_row_init(r, &c, v);
        nrows++;
        if (fit == PLAN_FITS_NOT) {
            r->status = STATUS_SKIP;
            snprintf(r->message, sizeof r->message, "%s", room);
            rs->prog->done++;
            continue;
        }
        if (room[0]) /* the fallback first, then the variant's own note */
            snprintf(r->note, sizeof r->note, "%s%s%s", room, v->note ? "; " : "", v->note ? v->note : "");
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
        if (v->supports && !v->supports(pc, &rs->dev->info, v, why, sizeof why)) {
            r->status = STATUS_SKIP;
            snprintf(r->message, sizeof r->message, "%s", why);
            rs->prog->done++;
            continue;
        }
        snprintf(rs->prog->label, sizeof rs->prog->label, "%s %s", pc->label, v->info.name);
        run_progress_print(rs->prog, "checking", 0);
        if (interleave) {
            /* checked now, timed with the others after the loop */
            const size_t own = run_workspace_of(pc, v);
            cv[np] = c;
            cv[np].workspace = own ? (char *)c.workspace + slice_at : NULL;
            cv[np].workspace_bytes = own;
            slice_at += own;
            st = run_check(rs, &cv[np], v, r);
            rs->prog->done++;
            if (st == STATUS_OK) {
                pv[np] = v;
                pend[np++] = nrows - 1;
                continue;
            }
        } else {
            st = run_variant(rs, &c, v, r, &hp);
            rs->prog->done++;
        }
        if (st == STATUS_ERROR && catalog_family(&v->info) && check_last_cuda_error() == cudaErrorNotSupported) {
            /* a search candidate (no supports query) declined the case at its checked run */
            r->status = STATUS_SKIP;
            snprintf(r->message, sizeof r->message, "the candidate declines this case: %s", status_message());
            (void)cudaGetLastError();
            continue;
        }
        if (st == STATUS_SKIP) { /* interrupted mid-timing: the row is dropped */
            results_row_free(r);
            nrows--;
            break;
        }
        r->status = (status_t)st;
        if (st == STATUS_ERROR) run_row_error(rs, r, v->info.name);
        if (st == STATUS_FAIL || st == STATUS_ERROR) rs->any_bad = 1;
    }
    if (np > 0 && rs->sticky) { /* checked, but the context died after: not timed */
        for (int i = 0; i < np; i++) {
            rows[pend[i]].status = STATUS_SKIP;
            snprintf(rows[pend[i]].message, sizeof rows[pend[i]].message, "not run: an earlier device error");
        }
    } else if (np > 0) {
        result_row *pr[PLAN_MAX_VARIANTS];
        for (int i = 0; i < np; i++) pr[i] = &rows[pend[i]];
        if (*rs->stop || run_time_interleaved(rs, cv, pv, pr, np, &hp)) {
            /* interrupted before or while the rounds ran: the rows being timed are dropped */
            int kept = 0;
            for (int i = 0, j = 0; i < nrows; i++) {
                if (j < np && pend[j] == i) {
                    results_row_free(&rows[i]);
                    j++;
                    continue;
                }
                if (kept != i) rows[kept] = rows[i];
                kept++;
            }
            nrows = kept;
        }
    }
    run_progress_clear(rs->prog);
    for (int i = 0; i < nrows && rs->o->metrics; i++) /* --metrics: every row says why it has no counters */
        if (!rows[i].metrics_note[0] && rows[i].dram_read_bytes < 0)
            snprintf(rows[i].metrics_note, sizeof rows[i].metrics_note, "not measured: the row was not timed (%s)",
                     status_name(rows[i].status));
    plan_percents(&c.op->info, &rs->dev->info, rows, nrows);
    if (nrows > 0) rs->sink->emit_case(rs->sink->ctx, rows, nrows);
    for (int i = 0; i < nrows; i++) results_row_free(&rows[i]);
    if (c.workspace) cudaFree(c.workspace);
    if (fit != PLAN_FITS_NOT) c.op->teardown(&c);
    (void)cudaGetLastError();
    nvtxRangeEnd(case_range);
}

int run_plan(device_ctx *d, const cli_options *o, const plan *p, run_sink *sink, volatile sig_atomic_t *stop)
{
    run_progress prog = {o->progress, isatty(2), p->runs, 0, harness_now(), ""};
    run_state rs = {d, o, stop, &prog, sink, 0, 0, 0, NULL};
    if (o->metrics) rs.metrics = metrics_cupti_open(d->ordinal);
    for (int i = 0; i < p->count && !*stop && !rs.sticky; i++) run_case(&rs, &p->cases[i]);
    metrics_cupti_close(rs.metrics);
    if (*stop) return *stop == SIGTERM ? 143 : 130;
    return rs.any_bad || rs.sticky ? 1 : 0;
}
