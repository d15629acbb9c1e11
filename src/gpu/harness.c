/* src/gpu/harness.c: see harness.h. */
#include "harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check.h"
#include "gate_kernel.h"
#include "stats.h"

double harness_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int harness_invoke(device_ctx *d, const variant *v, const op_case *c)
{
    int st;
    if (v->prepare && (st = v->prepare(c, v, d->stream)) != STATUS_OK) return st;
    st = v->run(c, v, d->stream);
    if (st != STATUS_OK) return st;
    /* a launch error the adapter did not see (an async library launch) */
    CK_CUDA(cudaGetLastError());
    return STATUS_OK;
}

int harness_run_once(device_ctx *d, const variant *v, const op_case *c)
{
    int st = harness_invoke(d, v, c);
    if (st != STATUS_OK) return st;
    CK_CUDA(cudaStreamSynchronize(d->stream));
    return STATUS_OK;
}

/* The variant's untimed warm-up runs, waited for. */
static int harness_warm(device_ctx *d, const variant *v, const op_case *c, const harness_plan *p)
{
    int st = STATUS_OK;
    for (int i = 0; i < p->warmup && st == STATUS_OK; i++) st = harness_invoke(d, v, c);
    if (st == STATUS_OK &&
        check_cuda_status(cudaStreamSynchronize(d->stream), "cudaStreamSynchronize (warm-up)", __FILE__, __LINE__))
        st = STATUS_ERROR;
    return st;
}

/* How long a gate waits for the host before it gives up (the host enqueues
 * a sample's work in microseconds; a call that waits on its own stream
 * inside would otherwise wait for the gate). */
#define HARNESS_GATE_TIMEOUT_NS 20000000ull

/* Lets the gate of sample `seq` through (the GPU may start the timed work). */
static void harness_gate_open(device_ctx *d, unsigned seq)
{
    __atomic_store_n(&d->gate_host[0], seq, __ATOMIC_RELEASE);
}

const char *harness_timing_name(harness_timing t)
{
    return t == HARNESS_GATED ? "gated" : t == HARNESS_HOST ? "host" : t == HARNESS_WALL ? "wall" : "ungated";
}

/* Whether v's samples can go through the timing gate at all: stream-ordered
 * work (not host-synchronous, not host-timed) and the gate's mapped words */
static int harness_gate_usable(const device_ctx *d, const variant *v)
{
    return d->gate_host && !v->host_sync && !v->host_timed;
}

/* How v's samples were timed, given its gate flag after harness_sample */
static harness_timing harness_timing_of(const device_ctx *d, const variant *v, int gate)
{
    if (v->host_timed) return HARNESS_WALL;
    if (v->host_sync) return HARNESS_HOST;
    return gate && harness_gate_usable(d, v) ? HARNESS_GATED : HARNESS_UNGATED;
}

/* One sample of v: prepare, flush, then the timed call between the event
 * pair. *gate (per variant, 1 to start with): hold the stream with the
 * timing gate (src/gpu/gate_kernel.cu) until the call's work and the stop
 * event are enqueued, so that no launch latency or host time of the call
 * falls inside the interval; set to 0, and the sample taken again without
 * it, when the gate gave up waiting (the call waited on its stream inside). */
static int harness_sample(device_ctx *d, const variant *v, const op_case *c, const harness_plan *p, int i,
                          int *gate, double *ms)
{
    float t = 0.0f;
    int st;
    if (v->prepare && (st = v->prepare(c, v, d->stream)) != STATUS_OK) return st;
    if (p->flush && (st = device_flush_l2(d, i)) != STATUS_OK) return st;
    /* a host-synchronous call (thrust) starts from an idle stream, so its
     * host-side costs (allocation, launch, copy back) fall inside the interval */
    if (v->host_sync || v->host_timed) CK_CUDA(cudaStreamSynchronize(d->stream));
    if (v->host_timed) {
        /* work done by the host (the CPU rows): a wall clock, the stream idle
         * before and drained after */
        double t0 = harness_now();
        if ((st = v->run(c, v, d->stream)) != STATUS_OK) return st;
        CK_CUDA(cudaStreamSynchronize(d->stream));
        *ms = (harness_now() - t0) * 1e3;
        return STATUS_OK;
    }
    const int gated = gate && *gate && harness_gate_usable(d, v);
    unsigned seq = 0;
    if (gated) {
        seq = ++d->gate_seq ? d->gate_seq : ++d->gate_seq; /* never 0: the words start at 0 */
        CK_LAUNCH(gate_launch(d->gate_dev, seq, d->gate_dev + 1, HARNESS_GATE_TIMEOUT_NS, d->stream));
    }
    /* every path from here opens the gate before it waits or returns */
    st = check_cuda_status(cudaEventRecord(d->ev_start, d->stream), "cudaEventRecord", __FILE__, __LINE__)
             ? STATUS_ERROR
             : v->run(c, v, d->stream);
    if (st == STATUS_OK &&
        (check_cuda_status(cudaGetLastError(), "the timed call", __FILE__, __LINE__) ||
         check_cuda_status(cudaEventRecord(d->ev_stop, d->stream), "cudaEventRecord", __FILE__, __LINE__)))
        st = STATUS_ERROR;
    if (gated) harness_gate_open(d, seq);
    if (st != STATUS_OK) return st;
    CK_CUDA(cudaEventSynchronize(d->ev_stop));
    CK_CUDA(cudaEventElapsedTime(&t, d->ev_start, d->ev_stop));
    if (gated && __atomic_load_n(&d->gate_host[1], __ATOMIC_ACQUIRE) == seq) {
        /* the gate gave up: the call waited for its stream inside, the
         * interval may hold that wait; this variant goes ungated from here */
        *gate = 0;
        return harness_sample(d, v, c, p, i, gate, ms);
    }
    *ms = t;
    return STATUS_OK;
}

int harness_time(device_ctx *d, const variant *v, const op_case *c, const harness_plan *p,
                 volatile sig_atomic_t *stop, harness_progress_fn progress, void *progress_ctx,
                 double **samples_ms, size_t *count, clocks_summary *cs, harness_timing *timing)
{
    double *s = malloc((size_t)p->max_reps * sizeof *s);
    double t0;
    size_t n = 0;
    int st = STATUS_OK, gate = 1;
    if (!s) {
        status_set_message("out of host memory for %d samples", p->max_reps);
        return STATUS_ERROR;
    }
    st = harness_warm(d, v, c, p);
    t0 = harness_now();
    /* the clocks are watched from here (the GPU busy with the warm-up) to the last sample */
    int watching = st == STATUS_OK && cs && clocks_begin(d->clk) == 0;
    while (st == STATUS_OK && n < (size_t)p->max_reps) {
        if (stop && *stop) {
            st = STATUS_SKIP;
            break;
        }
        st = harness_sample(d, v, c, p, (int)n, &gate, &s[n]);
        if (st != STATUS_OK) break;
        n++;
        if (progress) progress(progress_ctx, n);
        if (n >= (size_t)p->min_reps) {
            stats_summary sum;
            if (harness_now() - t0 >= p->max_time_s) break;
            if (stats_summarize(s, n, &sum) == 0 && sum.spread_pct <= p->noise_pct) break;
        }
    }
    if (cs) {
        if (watching) clocks_end(d->clk, cs);
        else memset(cs, 0, sizeof *cs);
    }
    if (st != STATUS_OK) {
        free(s);
        return st;
    }
    *samples_ms = s;
    *count = n;
    if (timing) *timing = harness_timing_of(d, v, gate);
    return STATUS_OK;
}

/* The interleaved timing's state of one variant. */
typedef struct {
    double *s;          /* samples (ms) */
    double *span;       /* per sample: host start, end (s, harness_now) */
    size_t n;
    int gate;           /* its samples still use the timing gate (harness_sample) */
} harness_lane;

/* 1 when every variant still timed has a spread under the noise target */
static int harness_lanes_quiet(const harness_lane *lane, const int *status, int nv, double noise_pct)
{
    for (int i = 0; i < nv; i++) {
        stats_summary sum;
        if (status[i] != STATUS_OK) continue;
        if (stats_summarize(lane[i].s, lane[i].n, &sum) != 0 || sum.spread_pct > noise_pct) return 0;
    }
    return 1;
}

/* Gives each reading of the clocks window (begun at host time t_begin) to
 * the variant whose sample it fell in (a variant none fell in, its samples
 * shorter than the sampling period: the readings nearest its samples);
 * cs[i]: the summary of variant i's. */
static void harness_lanes_clocks(device_ctx *d, const harness_lane *lane, const int *status, int nv,
                                 double t_begin, const clocks_summary *whole, clocks_summary *cs)
{
    int nt = 0;
    const clocks_sample *tr = clocks_trace(d->clk, &nt);
    clocks_sample *mine = nt > 0 ? malloc((size_t)nt * sizeof *mine) : NULL;
    for (int i = 0; i < nv; i++) {
        int nearest = 0;
        memset(&cs[i], 0, sizeof cs[i]);
        if (status[i] != STATUS_OK || !whole->valid || !mine) continue;
        const int m = clocks_pick_spans(tr, nt, t_begin, lane[i].span, lane[i].n, mine, &nearest);
        clocks_summarise_trace(mine, m, whole->reasons_valid, &cs[i]);
        cs[i].trace_dropped = whole->trace_dropped;
    }
    free(mine);
}

int harness_time_interleaved(device_ctx *d, const variant *const *v, const op_case *const *c, int nv,
                             const harness_plan *p, volatile sig_atomic_t *stop, harness_progress_fn progress,
                             void *progress_ctx, double **samples_ms, size_t *counts, int *status,
                             char (*why)[256], clocks_summary *cs, harness_timing *timing)
{
    harness_lane *lane = calloc((size_t)(nv > 0 ? nv : 1), sizeof *lane);
    int st = STATUS_OK, active = 0, flush_index = 0;
    size_t rounds = 0;
    clocks_summary whole;
    memset(&whole, 0, sizeof whole);
    for (int i = 0; i < nv && lane; i++) {
        lane[i].gate = 1;
        lane[i].s = malloc((size_t)p->max_reps * sizeof *lane[i].s);
        lane[i].span = malloc((size_t)p->max_reps * 2 * sizeof *lane[i].span);
        if (!lane[i].s || !lane[i].span) st = STATUS_ERROR;
    }
    if (!lane || st != STATUS_OK) {
        status_set_message("out of host memory for %d samples of %d variants", p->max_reps, nv);
        st = STATUS_ERROR;
        goto out;
    }
    for (int i = 0; i < nv; i++) {
        samples_ms[i] = NULL;
        counts[i] = 0;
        why[i][0] = '\0';
        status[i] = harness_warm(d, v[i], c[i], p);
        if (status[i] != STATUS_OK) snprintf(why[i], sizeof why[i], "%s", status_message());
        else active++;
    }
    const double t_begin = harness_now();
    int watching = active > 0 && cs && clocks_begin(d->clk) == 0;
    const double t0 = harness_now();
    while (active > 0 && rounds < (size_t)p->max_reps) {
        if (stop && *stop) {
            st = STATUS_SKIP;
            break;
        }
        for (int j = 0; j < nv; j++) {
            const int i = rounds % 2 == 0 ? j : nv - 1 - j;
            harness_lane *l = &lane[i];
            if (status[i] != STATUS_OK) continue;
            l->span[2 * l->n] = harness_now();
            int sst = harness_sample(d, v[i], c[i], p, flush_index++, &l->gate, &l->s[l->n]);
            l->span[2 * l->n + 1] = harness_now();
            if (sst != STATUS_OK) {
                status[i] = sst;
                snprintf(why[i], sizeof why[i], "%s", status_message());
                active--;
                continue;
            }
            l->n++;
        }
        rounds++;
        if (progress) progress(progress_ctx, rounds);
        if (rounds >= (size_t)p->min_reps) {
            if (harness_now() - t0 >= p->max_time_s * active) break;
            if (harness_lanes_quiet(lane, status, nv, p->noise_pct)) break;
        }
    }
    if (watching) clocks_end(d->clk, &whole);
    if (cs) harness_lanes_clocks(d, lane, status, nv, t_begin, &whole, cs);
    if (st == STATUS_OK)
        for (int i = 0; i < nv; i++) {
            counts[i] = lane[i].n;
            if (status[i] == STATUS_OK) {
                samples_ms[i] = lane[i].s;
                lane[i].s = NULL;
            }
            if (timing) timing[i] = harness_timing_of(d, v[i], lane[i].gate);
        }
out:
    for (int i = 0; lane && i < nv; i++) {
        free(lane[i].s);
        free(lane[i].span);
    }
    free(lane);
    return st;
}
