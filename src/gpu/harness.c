/* src/gpu/harness.c: see harness.h. */
#include "harness.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check.h"
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

static int harness_sample(device_ctx *d, const variant *v, const op_case *c, const harness_plan *p, int i,
                          double *ms)
{
    float t = 0.0f;
    int st;
    if (v->prepare && (st = v->prepare(c, v, d->stream)) != STATUS_OK) return st;
    /* the flush also keeps the GPU busy while the timed work is enqueued, so
     * launch latency does not leak into the interval */
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
    CK_CUDA(cudaEventRecord(d->ev_start, d->stream));
    if ((st = v->run(c, v, d->stream)) != STATUS_OK) return st;
    CK_CUDA(cudaGetLastError());
    CK_CUDA(cudaEventRecord(d->ev_stop, d->stream));
    CK_CUDA(cudaEventSynchronize(d->ev_stop));
    CK_CUDA(cudaEventElapsedTime(&t, d->ev_start, d->ev_stop));
    *ms = t;
    return STATUS_OK;
}

int harness_time(device_ctx *d, const variant *v, const op_case *c, const harness_plan *p,
                 volatile sig_atomic_t *stop, harness_progress_fn progress, void *progress_ctx,
                 double **samples_ms, size_t *count, clocks_summary *cs)
{
    double *s = malloc((size_t)p->max_reps * sizeof *s);
    double t0;
    size_t n = 0;
    int st = STATUS_OK;
    if (!s) {
        status_set_message("out of host memory for %d samples", p->max_reps);
        return STATUS_ERROR;
    }
    for (int i = 0; i < p->warmup && st == STATUS_OK; i++) st = harness_invoke(d, v, c);
    if (st == STATUS_OK &&
        check_cuda_status(cudaStreamSynchronize(d->stream), "cudaStreamSynchronize (warm-up)", __FILE__, __LINE__))
        st = STATUS_ERROR;
    t0 = harness_now();
    /* the clocks are watched from here (the GPU busy with the warm-up) to the last sample */
    int watching = st == STATUS_OK && cs && clocks_begin(d->clk) == 0;
    while (st == STATUS_OK && n < (size_t)p->max_reps) {
        if (stop && *stop) {
            st = STATUS_SKIP;
            break;
        }
        st = harness_sample(d, v, c, p, (int)n, &s[n]);
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
    return STATUS_OK;
}
