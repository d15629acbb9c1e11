/* tests/test_gpu_metrics.c: `compare --metrics` end to end on the GPU.
 *  - no counter rights (COMPARE_METRICS_FAKE=denied: the answer CUPTI gives
 *    where counters are kept to admins, CUPTI_ERROR_INSUFFICIENT_PRIVILEGES): every row ok and timed, every
 *    measured column empty, metrics_note naming the error, the analytic
 *    intensity and bound filled, no hint; the table says why once;
 *  - no CUPTI (COMPARE_METRICS_FAKE=absent): the same, with that reason;
 *  - the real counters, where this machine permits them: reduce and
 *    transpose at sizes well beyond L2, every measured column filled; the
 *    DRAM bytes of the library and the good hand rows near the minimum
 *    (reads within 5% of the input for reduce; no write-back of the L2
 *    flush or of the profiler's own lines counted as the call's writes); the 32-way bank conflicts of
 *    transpose `tiled` named by the hint; FP32 FLOPs of vec4 about one add
 *    per element, where the SASS counters are collected. Where counters are
 *    not permitted, the reason is printed and those checks are left out
 *    (the fake above covers that path). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "testlib_gpu.h"

static test_proc proc;

static const char *const measured_columns[] = {"dram_read_bytes", "dram_write_bytes", "l2_bytes",
                                               "flops_measured",  "occupancy_pct",    "sm_throughput_pct",
                                               "intensity_measured"};
#define NMEASURED ((int)(sizeof measured_columns / sizeof measured_columns[0]))

static double cell_num(const test_csv_doc *d, int r, const char *name)
{
    const char *c = test_csv_cell(d, r, name);
    return c && *c ? strtod(c, NULL) : -1.0;
}

/* Runs compare with `env` and the args, into csv; parses it into d. 0 on a clean run. */
static int run_metrics(char *const env[], char **args, const char *csv, test_csv_doc *d)
{
    char *argv[32];
    int n = 0;
    argv[n++] = COMPARE_BIN;
    for (int i = 0; args[i] && n < 28; i++) argv[n++] = args[i];
    argv[n++] = "--metrics";
    argv[n++] = "--csv";
    argv[n++] = (char *)csv;
    argv[n] = NULL;
    remove(csv);
    test_run(argv, env, 0, 0, 600, &proc);
    CHECK(proc.status == 0, "exit %d; stderr:\n%s\nstdout:\n%s", proc.status, proc.err, proc.out);
    char *text = test_read_file(csv);
    CHECK(text != NULL, "no CSV at %s", csv);
    if (!text) return -1;
    test_csv_parse(text, d);
    free(text);
    CHECK(d->ok && d->nrec > 1, "CSV: ok %d, %d records", d->ok, d->nrec);
    return proc.status == 0 && d->ok && d->nrec > 1 ? 0 : -1;
}

/* No counters: every row ok and timed, measured columns empty, the reason in the note. */
static void test_without_counters(const char *fake, const char *reason, const char *dir)
{
    char csv[512], envvar[64];
    test_csv_doc d;
    snprintf(csv, sizeof csv, "%s/fake_%s.csv", dir, fake);
    snprintf(envvar, sizeof envvar, "COMPARE_METRICS_FAKE=%s", fake);
    char *env[] = {envvar, NULL};
    char *args[] = {"--ops", "reduce", "--elems", "1048576", "--variants", "cub,vec4,shuffle", "--reps", "3",
                    "--max-time", "0.2", NULL};
    if (run_metrics(env, args, csv, &d)) return;
    for (int r = 1; r < d.nrec; r++) {
        const char *v = test_csv_cell(&d, r, "variant");
        CHECK(strcmp(test_csv_cell(&d, r, "status"), "ok") == 0 && test_csv_cell(&d, r, "time_ms_median")[0],
              "%s: %s not ok and timed", fake, v);
        for (int i = 0; i < NMEASURED; i++)
            CHECK(test_csv_cell(&d, r, measured_columns[i])[0] == '\0', "%s: %s has %s = %s without counters", fake, v,
                  measured_columns[i], test_csv_cell(&d, r, measured_columns[i]));
        CHECK(test_contains(test_csv_cell(&d, r, "metrics_note"), reason), "%s: %s metrics_note '%s', expected '%s'",
              fake, v, test_csv_cell(&d, r, "metrics_note"), reason);
        CHECK(strcmp(test_csv_cell(&d, r, "intensity"), "0.25") == 0, "%s: %s intensity '%s'", fake, v,
              test_csv_cell(&d, r, "intensity"));
        CHECK(strncmp(test_csv_cell(&d, r, "bound"), "memory ", 7) == 0, "%s: %s bound '%s'", fake, v,
              test_csv_cell(&d, r, "bound"));
        CHECK(test_csv_cell(&d, r, "hint")[0] == '\0', "%s: %s hint '%s' without counters", fake, v,
              test_csv_cell(&d, r, "hint"));
    }
    CHECK(test_contains(proc.out, "bound") && test_contains(proc.out, reason), "%s: the table lacks bound or the reason:\n%s",
          fake, proc.out);
    CHECK(test_count(proc.out, reason) == 1, "%s: the reason said %d times (once per run of rows expected)", fake,
          test_count(proc.out, reason));
    test_csv_doc_free(&d);
}

static int row_of(const test_csv_doc *d, const char *op, const char *variant)
{
    for (int r = 1; r < d->nrec; r++)
        if (strcmp(test_csv_cell(d, r, "op"), op) == 0 && strcmp(test_csv_cell(d, r, "variant"), variant) == 0) return r;
    return -1;
}

static void test_real_counters(const char *dir)
{
    char csv[512];
    test_csv_doc d;
    snprintf(csv, sizeof csv, "%s/real.csv", dir);
    /* 256 MiB of reduce input, 256 MiB in and out of transpose: far beyond any L2 */
    char *args[] = {"--ops", "reduce,transpose", "--elems", "67108864", "--n", "8192", "--variants",
                    "cub,vec4,cublas_geam,tiled,fast", "--reps", "3", "--max-time", "0.2", NULL};
    if (run_metrics(NULL, args, csv, &d)) return;
    const char *note = test_csv_cell(&d, 1, "metrics_note");
    if (test_contains(note, "not permitted") || test_contains(note, "not measured") ||
        test_contains(note, "not available")) {
        printf("test_gpu_metrics: no counters on this machine (%s): the real-counter checks are left out\n", note);
        for (int r = 1; r < d.nrec; r++)
            CHECK(test_csv_cell(&d, r, "dram_read_bytes")[0] == '\0', "row %d measured though row 1 was not", r);
        test_csv_doc_free(&d);
        return;
    }
    for (int r = 1; r < d.nrec; r++) {
        const char *v = test_csv_cell(&d, r, "variant");
        CHECK(strcmp(test_csv_cell(&d, r, "status"), "ok") == 0, "%s: status %s", v, test_csv_cell(&d, r, "status"));
        for (int i = 0; i < 3; i++)
            CHECK(cell_num(&d, r, measured_columns[i]) >= 0, "%s: %s empty (note: %s)", v, measured_columns[i],
                  test_csv_cell(&d, r, "metrics_note"));
        const double occ = cell_num(&d, r, "occupancy_pct"), smt = cell_num(&d, r, "sm_throughput_pct");
        CHECK(occ > 0 && occ <= 100 && smt > 0 && smt <= 100, "%s: occupancy %g, SM throughput %g", v, occ, smt);
        printf("  %-10s %-12s DRAM read %.4g write %.4g (min %.4g), L2 %.4g, FP32 FLOPs %s, occupancy %.1f%%, SM %.1f%%, "
               "bound %s, hint '%s', note '%s'\n",
               test_csv_cell(&d, r, "op"), v, cell_num(&d, r, "dram_read_bytes"), cell_num(&d, r, "dram_write_bytes"),
               cell_num(&d, r, "bytes"), cell_num(&d, r, "l2_bytes"), test_csv_cell(&d, r, "flops_measured"), occ, smt,
               test_csv_cell(&d, r, "bound"), test_csv_cell(&d, r, "hint"), test_csv_cell(&d, r, "metrics_note"));
    }
    /* reduce reads its input once from DRAM and writes (almost) nothing: in
     * particular not the L2 flush's dirty lines, nor those CUPTI's Start
     * leaves (MB of them, counted when the reset ran before Start) */
    const char *reducers[] = {"cub", "vec4"};
    for (int i = 0; i < 2; i++) {
        int r = row_of(&d, "reduce", reducers[i]);
        CHECK(r > 0, "no reduce %s row", reducers[i]);
        if (r < 0) continue;
        const double min = cell_num(&d, r, "bytes"), rd = cell_num(&d, r, "dram_read_bytes"),
                     wr = cell_num(&d, r, "dram_write_bytes");
        CHECK(rd >= 0.95 * min && rd <= 1.05 * min, "reduce %s: DRAM read %.6g, input %.6g", reducers[i], rd, min);
        CHECK(wr >= 0 && wr < 0.002 * min, "reduce %s: DRAM write %.6g (the flush's or the profiler's dirty lines counted?)",
              reducers[i], wr);
        CHECK(test_csv_cell(&d, r, "hint")[0] == '\0', "reduce %s: hint '%s'", reducers[i], test_csv_cell(&d, r, "hint"));
    }
    {
        int r = row_of(&d, "reduce", "vec4");
        const double fl = r > 0 ? cell_num(&d, r, "flops_measured") : -1, elems = r > 0 ? cell_num(&d, r, "elems") : 0;
        if (fl >= 0) {
            CHECK(fl >= 0.99 * elems && fl <= 1.1 * elems, "vec4: FP32 FLOPs %.6g for %.6g elements", fl, elems);
            CHECK(cell_num(&d, r, "intensity_measured") > 0, "vec4: no measured intensity");
        } else {
            printf("test_gpu_metrics: no FP32 FLOP counters here: %s\n", r > 0 ? test_csv_cell(&d, r, "metrics_note") : "");
        }
    }
    /* transpose moves its minimum give or take what stays in L2 at the end */
    const char *movers[] = {"cublas_geam", "fast"};
    for (int i = 0; i < 2; i++) {
        int r = row_of(&d, "transpose", movers[i]);
        CHECK(r > 0, "no transpose %s row", movers[i]);
        if (r < 0) continue;
        const double min = cell_num(&d, r, "bytes"),
                     moved = cell_num(&d, r, "dram_read_bytes") + cell_num(&d, r, "dram_write_bytes");
        CHECK(moved >= 0.8 * min && moved <= 1.2 * min, "transpose %s: DRAM %.6g, minimum %.6g", movers[i], moved, min);
    }
    {
        int r = row_of(&d, "transpose", "tiled");
        CHECK(r > 0 && test_contains(test_csv_cell(&d, r, "hint"), "l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum"),
              "transpose tiled (32-way conflicts): hint '%s'", r > 0 ? test_csv_cell(&d, r, "hint") : "no row");
        r = row_of(&d, "transpose", "fast");
        CHECK(r > 0 && !test_contains(test_csv_cell(&d, r, "hint"), "bank conflicts"), "transpose fast: hint '%s'",
              r > 0 ? test_csv_cell(&d, r, "hint") : "no row");
    }
    test_csv_doc_free(&d);
}

int main(void)
{
    char dir[] = "/tmp/compare_gpu_metrics_XXXXXX";
    test_require_gpu();
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    test_without_counters("denied", "CUPTI_ERROR_INSUFFICIENT_PRIVILEGES", dir);
    test_without_counters("absent", "CUPTI not found", dir);
    test_real_counters(dir);
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", dir);
    return test_finish("test_gpu_metrics");
}
