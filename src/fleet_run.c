/* src/fleet_run.c: see fleet_run.h. */
#include "fleet_run.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fleet_relay.h"

int fleet_signal_rc(int sig) { return sig == SIGTERM ? 143 : 130; }

// ---------------------------------------------------------------------------
// output on the main thread

int fleet_out_init(fleet_out *f, const cli_options *o, const plan *p, const catalog *cat, const run_info *base,
                   int n)
{
    memset(f, 0, sizeof *f);
    f->o = o;
    f->p = p;
    f->cat = cat;
    f->n = n;
    f->shown = -1;
    f->m = calloc((size_t)n, sizeof *f->m);
    f->info = calloc((size_t)n, sizeof *f->info);
    f->rep = calloc((size_t)n, sizeof *f->rep);
    f->rep_begun = calloc((size_t)n, sizeof *f->rep_begun);
    fleet_summary_init(&f->sum);
    if (!f->m || !f->info || !f->rep || !f->rep_begun) {
        fleet_out_free(f);
        return -1;
    }
    for (int i = 0; i < n; i++) {
        f->info[i] = *base;
        snprintf(f->m[i].host, sizeof f->m[i].host, "%s", base->hostname);
        f->m[i].rank = base->rank;
    }
    return 0;
}

void fleet_out_free(fleet_out *f)
{
    if (f->csv_open) csv_abort(&f->csv);
    f->csv_open = 0;
    free(f->m);
    free(f->info);
    free(f->rep);
    free(f->rep_begun);
    fleet_summary_free(&f->sum);
    f->m = NULL;
    f->info = NULL;
    f->rep = NULL;
    f->rep_begun = NULL;
}

int fleet_out_open_csv(fleet_out *f, char *err, size_t err_len)
{
    if (!f->o->csv_path) return 0;
    if (csv_open(&f->csv, f->o->csv_path, err, err_len)) return 2;
    f->csv_open = 1;
    return 0;
}

/* "== GPU 1 (0000:19:00.0)" before a member's device block or rows. */
static void fleet_out_tag(fleet_out *f, int i)
{
    char name[160];
    const device_info *d = &f->info[i].dev;
    fleet_member_name(&f->m[i], name, sizeof name);
    if (f->m[i].pci_bus_id[0]) printf("\n== %s (%s, %s)\n", name, d->pci_bus_id, d->uuid);
    else printf("\n== %s\n", name);
    f->shown = i;
}

void fleet_out_opened(fleet_out *f, int i, long long flush_bytes)
{
    fleet_member *m = &f->m[i];
    m->device = f->info[i].dev.index;
    snprintf(m->pci_bus_id, sizeof m->pci_bus_id, "%s", f->info[i].dev.pci_bus_id);
    m->state = FLEET_RUNNING;
    fleet_out_tag(f, i);
    report_begin(&f->rep[i], stdout, f->o->format, &f->info[i], flush_bytes);
    f->rep_begun[i] = 1;
}

typedef struct {
    fleet_out *out;
    int i;
} fleet_out_sink;

static void fleet_out_emit(void *ctx, result_row *rows, int count)
{
    fleet_out_sink *s = ctx;
    fleet_out_rows(s->out, s->i, rows, count);
}

void fleet_out_failed(fleet_out *f, int i, const char *why)
{
    fleet_member *m = &f->m[i];
    fleet_out_sink s = {f, i};
    char name[160];
    m->state = FLEET_FAILED;
    snprintf(m->why, sizeof m->why, "%s", why);
    fleet_member_name(m, name, sizeof name);
    fleet_out_tag(f, i);
    printf("%s could not run: %s (ERROR rows stand for its plan)\n", name, why);
    fflush(stdout);
    /* the rows go to the CSV and the summary; the report shows the line above */
    fleet_error_rows(f->p, f->cat, why, fleet_out_emit, &s);
}

void fleet_out_rows(fleet_out *f, int i, result_row *rows, int count)
{
    if (f->m[i].state != FLEET_FAILED) {
        if (f->shown != i) fleet_out_tag(f, i);
        if (f->rep_begun[i]) report_case(&f->rep[i], rows, count);
    }
    if (f->csv_open)
        for (int k = 0; k < count; k++)
            if (csv_write_row(&f->csv, &f->info[i], &rows[k])) f->csv_failed = 1;
    fleet_summary_add(&f->sum, i, rows, count);
    f->m[i].rows += count;
}

int fleet_out_finish(fleet_out *f, int rc, int interrupted)
{
    char err[1024];
    int bad = 0;
    for (int i = 0; i < f->n; i++) {
        fleet_member *m = &f->m[i];
        if (f->rep_begun[i]) report_end(&f->rep[i], m->rc);
        /* a run cut short by the signal did not finish either */
        if (m->state == FLEET_RUNNING || m->state == FLEET_WAITING ||
            (interrupted && m->state == FLEET_DONE && (m->rc == 130 || m->rc == 143))) {
            m->state = FLEET_MISSING;
            if (!m->why[0])
                snprintf(m->why, sizeof m->why, "%s",
                         !interrupted  ? "did not finish"
                         : f->stop_why ? f->stop_why
                                       : "interrupted before it finished");
        }
        bad |= m->state == FLEET_FAILED || m->state == FLEET_MISSING || (m->state == FLEET_DONE && m->rc != 0);
    }
    /* the CSV first: a second signal (mpirun's SIGKILL follows its SIGTERM
     * within a second) must find it committed */
    if (f->csv_open) {
        f->csv_open = 0;
        if (f->csv_failed) {
            fprintf(stderr, "compare: writing the CSV failed; '%s' left untouched\n", f->o->csv_path);
            csv_abort(&f->csv);
            bad = 1;
        } else if (csv_commit(&f->csv, err, sizeof err)) {
            fprintf(stderr, "compare: %s\n", err);
            bad = 1;
        } else if (f->o->progress) {
            fprintf(stderr, "compare: wrote %ld rows of %d GPU%s to %s%s\n", f->csv.rows, f->n, f->n == 1 ? "" : "s",
                    f->o->csv_path, interrupted ? " (interrupted: completed rows only)" : "");
        }
    }
    fleet_summary_print(stdout, &f->sum, f->m, f->n, f->o->fleet_threshold_pct);
    if (interrupted) return rc;
    return bad && rc == 0 ? 1 : rc;
}

// ---------------------------------------------------------------------------
// one node: --device all | N,M

typedef struct {
    const compare_gpu_api *api;
    compare_gpu_device *dev;
    const cli_options *o;
    const plan *p;
    volatile sig_atomic_t *stop;
    fleet_relay *relay;
    int lane;
    pthread_t thread;
    int started;
} fleet_worker;

static void fleet_worker_emit(void *ctx, result_row *rows, int count)
{
    fleet_worker *w = ctx;
    fleet_relay_post(w->relay, w->lane, rows, count);
}

static void *fleet_worker_main(void *arg)
{
    fleet_worker *w = arg;
    run_sink sink = {fleet_worker_emit, w};
    int rc = w->api->run(w->dev, w->o, w->p, &sink, w->stop);
    fleet_relay_finish(w->relay, w->lane, rc);
    return NULL;
}

/* Opens member i's device: its handle, or NULL with the member FAILED. */
static compare_gpu_device *fleet_local_open(const compare_gpu_api *api, fleet_out *f, int i, int ordinal)
{
    compare_gpu_device *dev = NULL;
    char err[1024], why[1100];
    int rc = api->open(ordinal, f->o->seed, &f->info[i], &dev, err, sizeof err);
    if (rc == 0) {
        fleet_out_opened(f, i, api->flush_bytes(dev));
        return dev;
    }
    api->close(dev);
    snprintf(why, sizeof why, "device %d: %s", ordinal, err);
    fleet_out_failed(f, i, why);
    f->m[i].rc = rc;
    return NULL;
}

static void fleet_local_done(fleet_out *f, int i, int rc)
{
    if (f->m[i].state == FLEET_FAILED) return;
    f->m[i].state = FLEET_DONE;
    f->m[i].rc = rc;
    if (f->o->progress)
        fprintf(stderr, "compare: GPU %d done (exit %d, %ld rows)\n", f->m[i].device, rc, f->m[i].rows);
}

int fleet_local(const compare_gpu_api *api, const cli_options *o, const plan *p, const catalog *cat,
                const run_info *base, const int *devices, int n, volatile sig_atomic_t *stop)
{
    fleet_out f;
    char err[1024];
    int rc = 0, all_refused = 1;
    compare_gpu_device **dev = calloc((size_t)n, sizeof *dev);
    if (!dev || fleet_out_init(&f, o, p, cat, base, n)) {
        fprintf(stderr, "compare: out of memory\n");
        free(dev);
        return 1;
    }
    for (int i = 0; i < n; i++) f.m[i].device = devices[i];
    if (fleet_out_open_csv(&f, err, sizeof err)) {
        fprintf(stderr, "compare: %s\n", err);
        fleet_out_free(&f);
        free(dev);
        return 2;
    }
    if (!o->parallel_devices) {
        for (int i = 0; i < n && !*stop; i++) {
            fleet_out_sink s = {&f, i};
            run_sink sink = {fleet_out_emit, &s};
            dev[i] = fleet_local_open(api, &f, i, devices[i]);
            if (!dev[i]) continue;
            fleet_local_done(&f, i, api->run(dev[i], o, p, &sink, stop));
            api->close(dev[i]);
            dev[i] = NULL;
        }
    } else {
        /* every GPU opened first (the device blocks in order), then a thread
         * each; progress lines of several threads would mix: off */
        cli_options quiet = *o;
        fleet_worker *w = calloc((size_t)n, sizeof *w);
        fleet_relay *relay = fleet_relay_new(n);
        quiet.progress = 0;
        printf("--parallel-devices: %d GPUs run at the same time. They share this host's CPU cores (the CPU rows\n"
               "and the threads that issue every launch), PCIe and host memory bandwidth (transfer rows): a\n"
               "figure may be lower than the same GPU alone.\n", n);
        for (int i = 0; i < n && w && relay; i++) {
            w[i] = (fleet_worker){api, NULL, &quiet, p, stop, relay, i, 0, 0};
            dev[i] = w[i].dev = fleet_local_open(api, &f, i, devices[i]);
            if (!dev[i]) fleet_relay_finish(relay, i, f.m[i].rc);
        }
        for (int i = 0; i < n && w && relay; i++) {
            if (!dev[i]) continue;
            if (pthread_create(&w[i].thread, NULL, fleet_worker_main, &w[i]) == 0) {
                w[i].started = 1;
            } else {
                snprintf(err, sizeof err, "device %d: cannot start its thread", devices[i]);
                fleet_out_failed(&f, i, err);
                fleet_relay_finish(relay, i, 1);
            }
        }
        for (;;) {
            int lane = 0, count = 0, lrc = 0;
            result_row *rows = NULL;
            fleet_relay_event ev =
                relay ? fleet_relay_next(relay, -1, &lane, &rows, &count, &lrc) : FLEET_RELAY_ALL_DONE;
            if (ev == FLEET_RELAY_ALL_DONE) break;
            if (ev == FLEET_RELAY_CASE) {
                fleet_out_rows(&f, lane, rows, count);
                fleet_relay_done(relay, lane);
            } else if (ev == FLEET_RELAY_FINISHED) {
                fleet_local_done(&f, lane, lrc);
            }
        }
        for (int i = 0; i < n && w; i++) {
            if (w[i].started) pthread_join(w[i].thread, NULL);
            api->close(dev[i]);
        }
        if (!w || !relay) fprintf(stderr, "compare: out of memory\n");
        fleet_relay_free(relay);
        free(w);
    }
    for (int i = 0; i < n; i++) {
        if (f.m[i].state == FLEET_DONE) {
            all_refused = 0;
            if (f.m[i].rc > rc) rc = f.m[i].rc; /* 1, or 130/143 when interrupted */
        } else if (f.m[i].state != FLEET_FAILED || f.m[i].rc != 2) {
            all_refused = 0;
        }
    }
    if (*stop) rc = fleet_signal_rc(*stop);
    else if (all_refused) rc = 2; /* every device refused the plan (a size that does not fit) */
    rc = fleet_out_finish(&f, rc, *stop != 0);
    if (*stop) fprintf(stderr, "compare: interrupted by signal %d\n", (int)*stop);
    fleet_out_free(&f);
    free(dev);
    return rc;
}
