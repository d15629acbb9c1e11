/* src/main.c: `compare`, the command line. Parses options, opens the GPU,
 * refuses sizes that cannot fit, runs the plan, and writes the report on
 * stdout and the CSV (atomically) if asked. Exit codes: 0 all passed, 1 a
 * variant failed or a GPU error occurred, 2 bad usage, 77 no usable GPU,
 * 130/143 interrupted by SIGINT/SIGTERM (the CSV then holds every completed
 * row and no partial one). */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check.h"
#include "cli.h"
#include "csv.h"
#include "device.h"
#include "report.h"
#include "run.h"
#include "variants.h"

static volatile sig_atomic_t main_stop = 0;

static void main_on_signal(int sig)
{
    if (main_stop) _Exit(128 + sig); /* a second signal: leave at once (the temp CSV is left behind) */
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

static void main_list(void)
{
    printf("%-7s %-13s %-8s %-5s %s\n", "op", "variant", "kind", "math", "what");
    for (int i = 0; i < variants_count; i++) {
        const variant *v = &variants_table[i];
        if (!variants_visible(i)) continue;
        printf("%-7s %-13s %-8s %-5s %s\n", v->op, v->name, v->is_library ? "library" : "hand",
               strcmp(v->math, "keys") == 0 ? "u32,f32" : v->math, v->about);
    }
}

int main(int argc, char **argv)
{
    const char *names[CLI_MAX_VARIANTS], *ops[CLI_MAX_VARIANTS];
    cli_known known = {names, ops, 0};
    cli_options o;
    char err[1024];
    device_ctx dev;
    run_info info;
    main_sink sink;
    run_sink rs = {main_emit_case, &sink};
    int rc;
    time_t now = time(NULL);
    struct tm utc;

    for (int i = 0; i < variants_count && known.count < CLI_MAX_VARIANTS; i++)
        if (variants_visible(i)) {
            names[known.count] = variants_table[i].name;
            ops[known.count++] = variants_table[i].op;
        }
    rc = cli_parse(argc, argv, &known, &o, err, sizeof err);
    if (rc) {
        fprintf(stderr, "compare: %s\n", err);
        return rc;
    }
    if (o.help) {
        cli_print_help(argv[0]);
        return 0;
    }
    if (o.version) {
        printf("compare %s (commit %s)\n", COMPARE_VERSION, COMPARE_GIT_COMMIT);
        return 0;
    }
    if (o.list) {
        main_list();
        return 0;
    }

    rc = device_open(&dev, o.device, o.seed, err, sizeof err);
    if (rc) {
        fprintf(stderr, "compare: %s\n", err);
        return rc;
    }
    rc = run_check_memory(&o, err, sizeof err);
    if (rc) {
        fprintf(stderr, "compare: %s\n", err);
        device_close(&dev);
        return rc;
    }

    memset(&info, 0, sizeof info);
    gmtime_r(&now, &utc);
    strftime(info.timestamp, sizeof info.timestamp, "%Y-%m-%dT%H:%M:%SZ", &utc);
    info.git_commit = COMPARE_GIT_COMMIT;
    info.seed = o.seed;
    info.l2_flush = o.flush;
    info.dev = dev.info;

    memset(&sink, 0, sizeof sink);
    sink.info = &info;
    if (o.csv_path) {
        if (csv_open(&sink.csv, o.csv_path, err, sizeof err)) {
            fprintf(stderr, "compare: %s\n", err);
            device_close(&dev);
            return 2;
        }
        sink.csv_open = 1;
    }
    signal(SIGINT, main_on_signal);
    signal(SIGTERM, main_on_signal);

    report_begin(&sink.rep, stdout, o.format, &info, (long long)dev.flush_bytes);
    rc = run_all(&dev, &o, &rs, &main_stop);
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
    device_close(&dev);
    return rc;
}
