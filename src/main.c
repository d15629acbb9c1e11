/* src/main.c: `compare`, the command line (CPU core only). Parses options;
 * only then loads the GPU side (libcompare_gpu.so, src/core/gpu_api.h) and
 * the plugins, checks the names against the catalog, builds the plan, opens
 * the GPU, refuses sizes that cannot fit, runs the plan, and writes the
 * report on stdout and the CSV (atomically) if asked. Several devices
 * (--device all|N,M) go to src/fleet_run.c; built with COMPARE_MPI this is
 * compare-mpi, whose ranks go to src/fleet_mpi.c once the plan is built
 * (rank 0 alone prints). --help and --version
 * load no CUDA library; --list loads them but initialises none. Exit codes:
 * 0 all passed, 1 a variant failed or a GPU error occurred, 2 bad usage, 77
 * no usable GPU, 130/143 interrupted by SIGINT/SIGTERM (the CSV then holds
 * every completed row and no partial one). */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "csv.h"
#include "fleet.h"
#include "fleet_run.h"
#include "gpu_api.h"
#include "list.h"
#include "plan.h"
#include "report.h"
#include "stats.h"
#ifdef COMPARE_MPI
#include "fleet_mpi.h"
#endif

static int main_rank = 0; /* compare-mpi: this rank (only rank 0 prints) */

/* "compare: MESSAGE" on stderr (rank 0 only: every rank reaches the same verdict). */
static void main_say(const char *msg)
{
    if (main_rank == 0) fprintf(stderr, "compare: %s\n", msg);
}

static volatile sig_atomic_t main_stop = 0;
static struct timespec main_stop_at; /* when main_stop was set (CLOCK_MONOTONIC) */

/* The first SIGINT/SIGTERM stops the run after the case in progress (the CSV
 * keeps the completed rows); a second one leaves at once (the temp CSV is
 * left behind), unless it is the same signal within MAIN_SIGNAL_ECHO_S of
 * the first: coreutils `timeout` sends its SIGTERM to the child and again to
 * its process group, and a shell may deliver a Ctrl-C to the whole job. */
#define MAIN_SIGNAL_ECHO_S 1.0
static void main_on_signal(int sig)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now); /* async-signal-safe */
    if (main_stop) {
        const double since =
            (double)(now.tv_sec - main_stop_at.tv_sec) + 1e-9 * (double)(now.tv_nsec - main_stop_at.tv_nsec);
        if (sig == main_stop && since < MAIN_SIGNAL_ECHO_S) return;
        _Exit(128 + sig);
    }
    main_stop_at = now;
    main_stop = sig;
}

typedef struct {
    report rep;
    csv_writer csv;
    int csv_open;
    int csv_failed;
    run_info *info;
} main_sink;

static void main_emit_case(void *ctx, result_row *rows, int count)
{
    main_sink *s = ctx;
    report_case(&s->rep, rows, count);
    if (s->csv_open)
        for (int i = 0; i < count; i++)
            if (csv_write_row(&s->csv, s->info, &rows[i])) s->csv_failed = 1;
}

// ---------------------------------------------------------------------------
// --soak: the whole plan repeated in one process, checking that device memory
// comes back and that every median stays put from round to round

#define SOAK_MAX_KEYS 256
#define SOAK_MAX_ROUNDS 65536     /* medians kept per case (512 KiB); rounds beyond are counted */
#define SOAK_PROGRESS_S 10.0      /* a progress line on stderr at most this often */

typedef struct {
    char key[224];       /* case label and variant */
    double *medians;     /* one per round in which it passed, the first SOAK_MAX_ROUNDS */
    int n, cap;          /* medians stored, allocated */
    long long ok, bad;   /* rounds ok / not ok, all of them */
} soak_entry;

typedef struct {
    soak_entry e[SOAK_MAX_KEYS];
    int count;
} soak_state;

static void soak_emit_case(void *ctx, result_row *rows, int count)
{
    soak_state *s = ctx;
    for (int i = 0; i < count; i++) {
        const result_row *r = &rows[i];
        char key[224];
        int j;
        snprintf(key, sizeof key, "%s %s", r->case_label, r->variant);
        for (j = 0; j < s->count && strcmp(s->e[j].key, key) != 0; j++) {}
        if (j == s->count) {
            if (s->count == SOAK_MAX_KEYS) continue;
            snprintf(s->e[j].key, sizeof s->e[j].key, "%s", key);
            s->count++;
        }
        soak_entry *e = &s->e[j];
        if (r->status != STATUS_OK) {
            e->bad++;
            continue;
        }
        if (r->time_ms.count == 0) continue;
        e->ok++;
        if (e->n == e->cap && e->cap < SOAK_MAX_ROUNDS) { /* grow by doubling, up to the cap */
            int cap = e->cap ? 2 * e->cap : 256;
            double *m = realloc(e->medians, (size_t)cap * sizeof *m);
            if (m) {
                e->medians = m;
                e->cap = cap;
            }
        }
        if (e->n < e->cap) e->medians[e->n++] = r->time_ms.median;
    }
}

static double main_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int main_soak(const compare_gpu_api *api, compare_gpu_device *dev, cli_options *o, const plan *p)
{
    static soak_state st;
    run_sink sink = {soak_emit_case, &st};
    size_t free_first = 0, free_last = 0, total = 0;
    double t0 = main_now();
    int rounds = 0, failed_rounds = 0, rc = 0, capped = 0;
    double last_line = 0;
    o->progress = 0;
    fprintf(stderr, "soak: repeating the run for %.0f s\n", o->soak_s);
    while (!main_stop && main_now() - t0 < o->soak_s) {
        int r = api->run(dev, o, p, &sink, &main_stop);
        rounds++;
        if (r != 0 && !main_stop) failed_rounds++;
        if (api->mem_info(dev, &free_last, &total)) return 1;
        if (rounds == 1) free_first = free_last;
        /* a line for the first round, a failed one, and then every SOAK_PROGRESS_S */
        double now = main_now() - t0;
        if (rounds == 1 || r != 0 || now - last_line >= SOAK_PROGRESS_S) {
            fprintf(stderr, "soak: round %d done at %.0f s, exit %d, %d failed so far, device free %.1f MiB\n",
                    rounds, now, r, failed_rounds, free_last / 1048576.0);
            last_line = now;
        }
    }
    printf("soak: %d rounds in %.0f s, %d with a failure\n", rounds, main_now() - t0, failed_rounds);
    printf("soak: device free after round 1 %zu bytes, after round %d %zu bytes (%+lld)\n", free_first, rounds,
           free_last, (long long)free_last - (long long)free_first);
    printf("%-36s %6s %4s %11s %11s %11s %8s\n", "case", "rounds", "bad", "min ms", "median ms", "max ms",
           "range%");
    for (int i = 0; i < st.count; i++) {
        soak_entry *e = &st.e[i];
        stats_summary s;
        if (e->n == 0 || stats_summarize(e->medians, (size_t)e->n, &s) != 0) {
            printf("%-36s %6lld %4lld %11s\n", e->key, e->ok, e->bad, "-");
        } else {
            printf("%-36s %6lld %4lld %11.4f %11.4f %11.4f %8.2f\n", e->key, e->ok, e->bad, s.min, s.median,
                   s.max, (s.max - s.min) / s.median * 100.0);
            if (e->ok > e->n) capped = 1;
        }
        free(e->medians);
    }
    if (capped)
        printf("soak: min/median/max/range over the first %d passing rounds of a case (more were run)\n",
               SOAK_MAX_ROUNDS);
    if (failed_rounds) rc = 1;
    if (free_last < free_first) {
        printf("soak: LEAK: %zu bytes of device memory not returned\n", free_first - free_last);
        rc = 1;
    }
    if (main_stop) rc = main_stop == SIGTERM ? 143 : 130;
    return rc;
}

static void main_hostname(char *buf, size_t len)
{
    if (gethostname(buf, len) != 0) snprintf(buf, len, "unknown");
    buf[len - 1] = '\0';
}

static int main_run(int argc, char **argv)
{
    cli_options o;
    char err[1024];
    const compare_gpu_api *api;
    const catalog *cat;
    compare_gpu_device *dev = NULL;
    plan p;
    run_info info;
    main_sink sink;
    run_sink rs = {main_emit_case, &sink};
    int rc;
    time_t now = time(NULL);
    struct tm utc;
    const char *tv = getenv("COMPARE_TEST_VARIANTS");

    rc = cli_parse(argc, argv, &o, err, sizeof err);
    if (rc) {
        main_say(err);
        return rc;
    }
    if (o.help) {
        if (main_rank == 0) cli_print_help(argv[0]);
        return 0;
    }
    if (o.version) {
        if (main_rank == 0) printf("compare %s (commit %s)\n", COMPARE_VERSION, COMPARE_GIT_COMMIT);
        return 0;
    }
    o.test_variants = tv && strcmp(tv, "1") == 0;

    api = gpu_api_load(err, sizeof err);
    if (!api) {
        main_say(err);
        return 1;
    }
    for (int i = 0; i < o.plugin_count; i++) {
        rc = api->load_plugin(o.plugins[i], err, sizeof err);
        if (rc) {
            main_say(err);
            return 2;
        }
    }
    cat = api->catalog();
    rc = cli_resolve(&o, cat, err, sizeof err);
    if (rc) {
        main_say(err);
        return rc;
    }
    if (o.list) {
        if (main_rank == 0) {
            if (o.format == CLI_FORMAT_JSON) list_print_json(stdout, &o, cat);
            else list_print(stdout, &o, cat);
        }
        return 0;
    }
    int prc = plan_build(&p, &o, cat, err, sizeof err);
    if (prc) {
        main_say(err);
        return prc == 2 ? 2 : 1; /* 2: too many variants chosen (usage); else out of memory */
    }

    memset(&info, 0, sizeof info);
    gmtime_r(&now, &utc);
    strftime(info.timestamp, sizeof info.timestamp, "%Y-%m-%dT%H:%M:%SZ", &utc);
    info.git_commit = COMPARE_GIT_COMMIT;
    info.seed = o.seed;
    info.l2_flush = o.flush;
    info.interleave = o.interleave;
    info.metrics = o.metrics;
    info.rank = -1;
    main_hostname(info.hostname, sizeof info.hostname);

#ifdef COMPARE_MPI
    signal(SIGINT, main_on_signal);
    signal(SIGTERM, main_on_signal);
    rc = fleet_mpi_run(api, &o, &p, cat, &info, &main_stop);
    plan_free(&p);
    return rc;
#endif
    if (o.device_all || o.device_count > 1) {
        /* several devices: each ordinal must be there before any runs */
        int present = 0, devs[CLI_MAX_DEVICES], n = 0;
        rc = api->device_count(&present, err, sizeof err);
        if (rc == 0) rc = fleet_devices(&o, present, devs, &n, err, sizeof err);
        if (rc) {
            main_say(err);
            plan_free(&p);
            return rc;
        }
        if (n > 1) {
            signal(SIGINT, main_on_signal);
            signal(SIGTERM, main_on_signal);
            rc = fleet_local(api, &o, &p, cat, &info, devs, n, &main_stop);
            if (main_stop && rc != 130 && rc != 143) rc = fleet_signal_rc(main_stop);
            plan_free(&p);
            return rc;
        }
        o.device = devs[0]; /* --device all with one GPU: the run of one device */
    }

    rc = api->open(o.device, o.seed, &info, &dev, err, sizeof err);
    if (rc == 77 && main_rank == 0)
        fprintf(stderr, "compare: %s\n"
                        "compare: without a GPU these still work: the tests (ctest --preset release: the gpu ones are "
                        "reported as skipped), compare --list, compare --help, and the plots and tables of the CSVs in "
                        "results/ (python3 plots/plot.py, plots/tables.py)\n",
                err);
    else if (rc)
        main_say(err);
    if (rc) {
        plan_free(&p);
        return rc;
    }
    memset(&sink, 0, sizeof sink);
    sink.info = &info;
    if (o.csv_path) {
        if (csv_open(&sink.csv, o.csv_path, err, sizeof err)) {
            main_say(err);
            api->close(dev);
            plan_free(&p);
            return 2;
        }
        sink.csv_open = 1;
    }
    signal(SIGINT, main_on_signal);
    signal(SIGTERM, main_on_signal);
    if (o.soak_s > 0) {
        rc = main_soak(api, dev, &o, &p);
        api->close(dev);
        plan_free(&p);
        return rc;
    }

    report_begin(&sink.rep, stdout, o.format, &info, api->flush_bytes(dev));
    rc = api->run(dev, &o, &p, &rs, &main_stop);
    report_end(&sink.rep, rc);

    if (sink.csv_open) {
        if (sink.csv_failed) {
            fprintf(stderr, "compare: writing the CSV failed; '%s' left untouched\n", o.csv_path);
            csv_abort(&sink.csv);
            if (rc == 0) rc = 1;
        } else if (csv_commit(&sink.csv, err, sizeof err)) {
            fprintf(stderr, "compare: %s\n", err);
            if (rc == 0) rc = 1;
        } else if (o.progress) {
            fprintf(stderr, "compare: wrote %ld rows to %s%s\n", sink.csv.rows, o.csv_path,
                    main_stop ? " (interrupted: completed rows only)" : "");
        }
    }
    if (main_stop) fprintf(stderr, "compare: interrupted by signal %d\n", (int)main_stop);
    api->close(dev);
    plan_free(&p);
    return rc;
}

int main(int argc, char **argv)
{
#ifdef COMPARE_MPI
    int rc;
    main_rank = fleet_mpi_init(&argc, &argv);
    rc = main_run(argc, argv);
    return fleet_mpi_finalize(rc);
#else
    return main_run(argc, argv);
#endif
}
