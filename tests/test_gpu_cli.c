/* tests/test_gpu_cli.c: `compare` itself on the GPU, end to end:
 *  - per-op axes: --axis m/n/k (the four-case form), transfer's
 *    chunks axis, sgemm's cpu_max_n option; the CSV's shape column;
 *  - a smoke run at small sizes: device block, every variant ok in the
 *    table, and the CSV with the documented columns and one row per variant;
 *  - a faulting variant (illegal address): ERROR naming it, rows measured
 *    before it kept, exit 1, no hang;
 *  - a wrong variant: FAIL, the others still run and pass, exit 1;
 *  - plugins (ABI 2): the test plugin's rows of every op and outcome, and the
 *    example plugin's sgemm and reduce rows, verified and timed;
 *  - a size too large for device memory: refused with needed vs free, exit 2
 *    (tf32_tma's own staging buffer counted);
 *  - SIGINT and SIGTERM mid-sweep: exit 130/143 and a CSV with only complete rows;
 *  - --interleave: every row checked and timed, the same number of rounds
 *    for each variant of a case, the CSV's interleave column 1, clocks on
 *    every row where NVML is (the readings nearest samples too short to hold one);
 *  - the timing column: every stream-ordered row gated, thrust and transfer
 *    "host", the CPU rows "wall";
 *  - cuDNN's legacy convolution Find through the CLI, which loads
 *    libcompare_gpu.so at run time (src/core/gpu_api.c): at r = 5 and at 64
 *    channels it died in libstdc++ until libstdc++ was loaded first, in the
 *    global scope; the library tests link it and never saw that. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "csv.h"
#include "testlib_gpu.h"

static test_proc proc;

/* Counts RFC 4180 fields of each record; returns records, sets *bad to the
 * number of records whose field count differs from the header's. */
static int csv_records(const char *text, int *bad, int *header_fields)
{
    int records = 0, fields = 1, inq = 0;
    *bad = 0;
    *header_fields = -1;
    for (const char *p = text; *p; p++) {
        if (inq) {
            if (*p == '"' && p[1] == '"') p++;
            else if (*p == '"') inq = 0;
        } else if (*p == '"') inq = 1;
        else if (*p == ',') fields++;
        else if (*p == '\n') {
            if (*header_fields < 0) *header_fields = fields;
            else if (fields != *header_fields) (*bad)++;
            records++;
            fields = 1;
        }
    }
    return records; /* the header included */
}

/* Fields of the CSV header (the writer's own, so a new column needs no edit here). */
static int header_fields(void)
{
    int n = 1;
    for (const char *p = csv_header; *p; p++) n += *p == ',';
    return n;
}

/* 1 if a line of the table starts with `name` followed by a space (the
 * variant column: "cub" does not match inside "cublas_fp32"). */
static int table_has_row(const char *out, const char *name)
{
    size_t l = strlen(name);
    for (const char *p = out; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
        if (strncmp(p, name, l) == 0 && p[l] == ' ') return 1;
    return 0;
}

/* Visible variants of `op` in `compare --list`. */
static int listed_variants(const char *op)
{
    static test_proc lp;
    char *argv[] = {COMPARE_BIN, "--list", NULL};
    char a[64], b[64], k[64];
    int n = 0;
    test_run(argv, NULL, 0, 0, 60, &lp);
    for (const char *p = lp.out; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
        if (sscanf(p, "%63s %63s %63s", a, b, k) == 3 && strcmp(a, op) == 0 &&
            (strcmp(k, "hand") == 0 || strcmp(k, "library") == 0))
            n++;
    return n;
}

static void test_smoke(const char *dir)
{
    char csv[512];
    int bad, hf, rec;
    char *text;
    snprintf(csv, sizeof csv, "%s/smoke.csv", dir);
    char *argv[] = {COMPARE_BIN, "--n", "64,100", "--elems", "1000,4099", "--reps", "3", "--max-time", "0.2",
                    "--csv", csv, NULL};
    test_run(argv, NULL, 0, 0, 300, &proc);
    CHECK(proc.status == 0, "smoke run exit %d; stderr:\n%s\nstdout:\n%s", proc.status, proc.err, proc.out);
    CHECK(test_contains(proc.out, "device: "), "no device block");
    CHECK(test_contains(proc.out, "ceilings: FP32"), "no ceilings line");
    CHECK(test_contains(proc.out, "cuBLAS "), "no cuBLAS version");
    const char *names[] = {"naive", "tiled16", "tiled32", "cublas_fp32", "cublas_tf32", "interleaved", "sequential",
                           "shuffle", "vec4", "thrust", "cub", "radix", "cublas_geam", "tiled_padded", "global_atomic",
                           "shared_private", "hillis_steele", "blelloch", "decoupled"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        CHECK(table_has_row(proc.out, names[i]), "variant %s missing from the table", names[i]);
    CHECK(!test_contains(proc.out, "FAIL") && !test_contains(proc.out, "ERROR"), "a FAIL/ERROR in the smoke table");
    text = test_read_file(csv);
    CHECK(text != NULL, "no CSV written at %s", csv);
    if (!text) return;
    CHECK(strncmp(text, csv_header, strlen(csv_header)) == 0 && text[strlen(csv_header)] == '\n',
          "CSV header differs from csv_header");
    rec = csv_records(text, &bad, &hf);
    CHECK(hf == header_fields(), "CSV header has %d fields, expected %d", hf, header_fields());
    CHECK(bad == 0, "%d CSV rows with the wrong field count", bad);
    /* rows: every listed variant of each op at each of 2 sizes, sort at 2 key types */
    int ns = listed_variants("sgemm"), nr = listed_variants("reduce"), nk = listed_variants("sort");
    CHECK(ns >= 13 && nr >= 6 && nk >= 3, "--list: %d sgemm, %d reduce, %d sort variants", ns, nr, nk);
    CHECK(test_count(text, ",sgemm,") == 2 * ns, "%d sgemm rows, expected %d", test_count(text, ",sgemm,"),
          2 * ns);
    CHECK(test_count(text, ",reduce,") == 2 * nr, "%d reduce rows", test_count(text, ",reduce,"));
    CHECK(test_count(text, ",sort,") == 2 * 2 * nk, "%d sort rows", test_count(text, ",sort,"));
    /* transpose at 2 matrix sizes; histogram at 2 types x 2 distributions; scan at 2 types */
    int nt = listed_variants("transpose"), nh = listed_variants("histogram"), nc = listed_variants("scan");
    CHECK(nt >= 5 && nh >= 4 && nc >= 5, "--list: %d transpose, %d histogram, %d scan variants", nt, nh, nc);
    CHECK(test_count(text, ",transpose,") == 2 * nt, "%d transpose rows, expected %d",
          test_count(text, ",transpose,"), 2 * nt);
    CHECK(test_count(text, ",histogram,") == 2 * 2 * 2 * nh, "%d histogram rows, expected %d",
          test_count(text, ",histogram,"), 2 * 2 * 2 * nh);
    CHECK(test_count(text, ",scan,") == 2 * 2 * nc, "%d scan rows, expected %d", test_count(text, ",scan,"),
          2 * 2 * nc);
    CHECK(test_count(text, ",builtin,") == rec - 1, "rows without source builtin");
    /* how each row was timed: the timing gate for every stream-ordered
     * call (none waits on its stream), from an idle stream for thrust; every
     * row ok but those declined (SKIP, with the reason), fewer than a fifth */
    test_csv_doc d;
    test_csv_parse(text, &d);
    int gated = 0, declined = 0;
    for (int r = 1; d.ok && r < d.nrec; r++) {
        const char *v = test_csv_cell(&d, r, "variant"), *t = test_csv_cell(&d, r, "timing");
        /* declined with the reason: a row an sm_90 policy needs off sm_90 or in
         * the forced mode, or a case a row does not take (fp8 at k = 100) */
        if (strcmp(test_csv_cell(&d, r, "status"), "SKIP") == 0 && strlen(test_csv_cell(&d, r, "message")) > 8) {
            declined++;
            continue;
        }
        /* any other row not ok: named, so a failure says which */
        CHECK(strcmp(test_csv_cell(&d, r, "status"), "ok") == 0, "row %d (%s %s %s): status %s, message [%s]", r,
              test_csv_cell(&d, r, "op"), v, test_csv_cell(&d, r, "shape"), test_csv_cell(&d, r, "status"),
              test_csv_cell(&d, r, "message"));
        const char *want = strcmp(v, "thrust") == 0 || strcmp(test_csv_cell(&d, r, "op"), "transfer") == 0 ? "host"
                           : strcmp(v, "cpu_omp") == 0                                                    ? "wall"
                                                                                                          : "gated";
        CHECK(strcmp(t, want) == 0, "row %d (%s %s) timing [%s], expected [%s]", r, test_csv_cell(&d, r, "op"), v,
              t, want);
        gated += strcmp(t, "gated") == 0;
    }
    CHECK(d.ok && gated > 0 && gated < d.nrec - 1, "%d gated rows of %d", gated, d.nrec - 1);
    CHECK(test_count(text, ",ok,") == rec - 1 - declined && declined * 5 < rec - 1, "%d ok rows of %d (%d declined)",
          test_count(text, ",ok,"), rec - 1, declined);
    CHECK(!test_contains(proc.out, "timed without the timing gate"), "a row timed ungated in:\n%s", proc.out);
    test_csv_doc_free(&d);
    free(text);
}

static void test_fault(const char *dir)
{
    char csv[512];
    char *env[] = {"COMPARE_TEST_VARIANTS=1", NULL};
    char *text;
    snprintf(csv, sizeof csv, "%s/fault.csv", dir);
    /* sequential: the rows before the fault are timed before it happens
     * (interleaved, every row is checked before any is timed, so a sticky
     * fault leaves the checked rows untimed: SKIP) */
    char *argv[] = {COMPARE_BIN, "--sequential", "--n", "64", "--variants", "naive,test_fault,test_wrong", "--reps",
                    "3", "--max-time", "0.2", "--csv", csv, "--quiet", NULL};
    test_run(argv, env, 0, 0, 120, &proc);
    CHECK(proc.status == 1, "fault run exit %d (expected 1); stderr:\n%s", proc.status, proc.err);
    CHECK(test_contains(proc.out, "test_fault ERROR"), "the fault is not reported as ERROR for test_fault:\n%s",
          proc.out);
    CHECK(test_contains(proc.out, "cudaErrorIllegalAddress") || test_contains(proc.out, "illegal"),
          "the message does not name the illegal address:\n%s", proc.out);
    text = test_read_file(csv);
    CHECK(text != NULL, "no CSV after a fault");
    if (text) {
        CHECK(test_count(text, ",sgemm,naive,0,fp32,") == 1, "naive row missing");
        CHECK(test_count(text, ",ok,") >= 3, "rows measured before the fault are missing:\n%s", text);
        CHECK(test_contains(text, ",test_fault,") && test_contains(text, ",ERROR,"), "no ERROR row for test_fault");
        free(text);
    }

    char *argv2[] = {COMPARE_BIN, "--n", "64", "--variants", "naive,test_wrong,tiled32", "--reps", "3",
                     "--max-time", "0.2", "--quiet", NULL};
    test_run(argv2, env, 0, 0, 120, &proc);
    CHECK(proc.status == 1, "wrong-result run exit %d (expected 1)", proc.status);
    CHECK(test_contains(proc.out, "test_wrong FAIL"), "test_wrong not FAIL:\n%s", proc.out);
    CHECK(test_count(proc.out, "  ok") >= 4, "the other variants did not all pass:\n%s", proc.out);
}

/* How many CSV lines hold `needle` (a run of cells ending before
 * `samples`); *ok_timed: how many of them have a sample count and status ok. */
static int lines_ok_timed(const char *text, const char *needle, int *ok_timed)
{
    int n = 0;
    *ok_timed = 0;
    for (const char *p = strstr(text, needle); p; p = strstr(p + 1, needle)) {
        const char *e = strchr(p, '\n');
        char line[2048];
        snprintf(line, sizeof line, "%.*s", (int)(e ? e - p : (long)strlen(p)), p);
        n++;
        *ok_timed += line[strlen(needle)] >= '1' && line[strlen(needle)] <= '9' && strstr(line, ",ok,") != NULL;
    }
    return n;
}

/* 1 if exactly `want` CSV lines hold `needle` and every one is ok and timed */
static int rows_ok_timed(const char *text, const char *needle, int want)
{
    int ok = 0, n = lines_ok_timed(text, needle, &ok);
    return n == want && ok == want;
}

/* A plugin's variants beside ours (tests/plugins/good_plugin.cu, ABI 2):
 * each outcome reported like a built-in row's, a row of every op verified
 * and timed through its op's buffer slots (histogram: both distributions),
 * a type the plugin gave no row for SKIP with the reason, and the CSV names
 * the plugin as the source. */
static void test_plugin(const char *dir)
{
    static const struct {
        const char *needle; /* op, variant, library, math, m, n, k, elems: up to `samples` */
        int rows;
    } oks[] = {
        {",sgemm,good_sgemm,0,fp32,100,100,100,,", 1},  {",reduce,good_reduce,0,fp32,,,,4099,", 1},
        {",sort,good_sort,0,u32,,,,4099,", 1},          {",sort,good_sort,0,f32,,,,4099,", 1},
        {",sort,good_u32only,0,u32,,,,4099,", 1},       {",transpose,good_transpose,0,fp32,100,100,,,", 1},
        {",histogram,good_hist,0,u8,,,,4099,", 2},      {",histogram,good_hist,0,f32,,,,4099,", 2},
        {",scan,good_scan,0,i32,,,,4099,", 1},          {",scan,good_scan,0,f32,,,,4099,", 1},
        {",transfer,good_transfer,0,fp32,,,,4099,", 1},
    };
    char csv[512];
    char *text;
    snprintf(csv, sizeof csv, "%s/plugin.csv", dir);
    char *argv[] = {COMPARE_BIN, "--plugin", GOOD_PLUGIN, "--n", "100", "--elems", "4099", "--variants",
                    "good_sgemm,good_declines,good_error,good_wrong,good_reduce,good_sort,good_u32only,"
                    "good_transpose,good_hist,good_scan,good_transfer",
                    "--reps", "3", "--max-time", "0.2", "--csv", csv, "--quiet", NULL};
    test_run(argv, NULL, 0, 0, 300, &proc);
    CHECK(proc.status == 1, "plugin run: exit %d (expected 1: an ERROR and a FAIL row)\n%s\n%s", proc.status, proc.out,
          proc.err);
    CHECK(test_contains(proc.out, "\ngood_sgemm ") && test_contains(proc.out, "\ngood_reduce "), "rows missing:\n%s",
          proc.out);
    CHECK(test_contains(proc.out, "good_declines SKIP: good_declines takes no 100x100x100"), "no SKIP with the reason:\n%s",
          proc.out);
    CHECK(test_contains(proc.out, "good_error ERROR: good_error:") &&
              test_contains(proc.out, "cudaErrorInvalidConfiguration"),
          "no ERROR naming the launcher's error:\n%s", proc.out);
    CHECK(test_contains(proc.out, "good_wrong FAIL"), "good_wrong not FAIL:\n%s", proc.out);
    CHECK(test_contains(proc.out, "good_u32only SKIP: good_u32only has no f32 row (its plugin gives u32)"),
          "no SKIP for the type the plugin lacks:\n%s", proc.out);
    text = test_read_file(csv);
    CHECK(text != NULL, "no CSV");
    if (!text) return;
    /* 4 sgemm, reduce, 2 sort + 2 u32only (its f32 SKIP), transpose, 4 histogram, 2 scan, transfer */
    CHECK(test_count(text, ",sgemm,good_sgemm,0,fp32,") == 1 && test_count(text, ",libgood_plugin.so,") == 17,
          "CSV: the plugin rows and their source (%d rows):\n%s", test_count(text, ",libgood_plugin.so,"), text);
    for (size_t i = 0; i < sizeof oks / sizeof oks[0]; i++) {
        int ok = 0, n = lines_ok_timed(text, oks[i].needle, &ok);
        CHECK(n == oks[i].rows && ok == oks[i].rows, "[%s]: %d rows, %d ok and timed (expected %d):\n%s",
              oks[i].needle, n, ok, oks[i].rows, text);
    }
    free(text);
}

/* The example plugin (examples/plugin/mine.cu, built in this tree): its two
 * ops' rows, both named mine, verified and timed beside the libraries. */
static void test_example_plugin(const char *dir)
{
    char csv[512];
    char *text;
    snprintf(csv, sizeof csv, "%s/example.csv", dir);
    char *argv[] = {COMPARE_BIN, "--plugin", EXAMPLE_PLUGIN, "--ops", "sgemm,reduce", "--n", "1000", "--elems",
                    "1000003", "--variants", "mine", "--reps", "3", "--max-time", "0.2", "--csv", csv, "--quiet",
                    NULL};
    test_run(argv, NULL, 0, 0, 120, &proc);
    CHECK(proc.status == 0, "example plugin run: exit %d (expected 0)\n%s\n%s", proc.status, proc.out, proc.err);
    text = test_read_file(csv);
    CHECK(text != NULL, "no CSV of the example plugin");
    if (!text) return;
    CHECK(rows_ok_timed(text, ",sgemm,mine,0,fp32,1000,1000,1000,,", 1) &&
              rows_ok_timed(text, ",reduce,mine,0,fp32,,,,1000003,", 1) && test_count(text, ",libmine.so,") == 2,
          "the example's sgemm and reduce rows not both ok and timed:\n%s", text);
    free(text);
}

static void test_memory_refusal(void)
{
    /* no shape the CLI accepts is too large for an H200: pretend 1 GiB is free
     * (a test-only cap on what device_mem_info reports): the case that does
     * not fit is SKIP with needed vs free, the others run, exit 0 */
    char *env[] = {"COMPARE_TEST_FREE_BYTES=1073741824", NULL};
    char *argv[] = {COMPARE_BIN, "--ops", "sgemm,reduce", "--n", "8192", "--elems", "4099", "--variants",
                    "cublas_fp32,cublas_tf32,vec4", "--reps", "3", "--quiet", NULL};
    test_run(argv, env, 0, 0, 120, &proc);
    CHECK(proc.status == 0, "oversized case: exit %d (expected 0, its rows SKIP): %s", proc.status, proc.err);
    CHECK(test_contains(proc.out, "cublas_fp32 SKIP: not run: the case needs") && test_contains(proc.out, "GiB free"),
          "no SKIP with needed vs free:\n%s", proc.out);
    CHECK(test_contains(proc.out, "\nvec4 ") && !test_contains(proc.out, "vec4 SKIP"), "the reduce case did not run:\n%s",
          proc.out);
    /* tf32_tma's own staging buffer counts: at n = 4097 the case's buffers
     * (A, B, C in float and double, 0.60 GB) and the 256 MiB reserve fit in
     * 0.974 GB, with the staged A', B', C' (0.20 GB) they do not */
    char *env2[] = {"COMPARE_TEST_FREE_BYTES=974000000", NULL};
    char *lib[] = {COMPARE_BIN, "--ops", "sgemm", "--variants", "cublas_tf32", "--n", "4097", "--reps", "3",
                   "--quiet", NULL};
    test_run(lib, env2, 0, 0, 120, &proc);
    CHECK(proc.status == 0 && !test_contains(proc.out, "SKIP"),
          "cublas_tf32 at 4097 under a 0.974 GB cap: exit %d (expected 0, nothing skipped): %s\n%s", proc.status,
          proc.err, proc.out);
    if (!test_sm90a_runs()) { /* tf32_tma declines this device or mode: no staging to count */
        printf("tf32_tma staging under a cap: not checked\n");
        return;
    }
    char *tma[] = {COMPARE_BIN, "--ops", "sgemm", "--variants", "tf32_tma", "--n", "4097", "--reps", "3",
                   "--quiet", NULL};
    test_run(tma, env2, 0, 0, 120, &proc);
    CHECK(proc.status == 0 && test_contains(proc.out, "tf32_tma SKIP: not run: the case needs"),
          "tf32_tma at 4097 (staged) under a 0.974 GB cap: exit %d (expected 0, SKIP: its staging counted): %s\n%s",
          proc.status, proc.err, proc.out);
}

/* `repeat`: the signal sent that many times back to back (2: as coreutils
 * `timeout` delivers its SIGTERM, to the child and to its process group),
 * which must count as one interrupt, not the second that leaves at once */
static void test_interrupt(const char *dir, int sig, int expected, int repeat)
{
    char csv[512], old[600];
    char *text;
    int bad, hf, rec;
    snprintf(csv, sizeof csv, "%s/sweep%d.csv", dir, sig);
    /* a sweep long enough to be cut in the middle: the naive kernel alone
     * needs ~7 s for 30 samples at n = 8192 */
    char *argv[] = {COMPARE_BIN, "--n", "1024:8192", "--ops", "sgemm", "--reps", "30", "--noise", "0",
                    "--max-time", "1", "--csv", csv, NULL};
    /* the signal comes once the first case's table is out (its naive row),
     * at 6 s at the earliest: interleaved timing writes a case's rows together */
    test_signal_after_out = "\nnaive ";
    test_signal_repeat = repeat;
    test_run(argv, NULL, 6.0, sig, 180, &proc);
    test_signal_after_out = NULL;
    test_signal_repeat = 1;
    CHECK(proc.status == expected, "signal %d: exit %d (expected %d); stderr:\n%s", sig, proc.status, expected,
          proc.err);
    text = test_read_file(csv);
    CHECK(text != NULL, "signal %d: no CSV", sig);
    if (!text) return;
    rec = csv_records(text, &bad, &hf);
    CHECK(bad == 0 && hf == header_fields(), "signal %d: malformed CSV (%d bad rows)", sig, bad);
    CHECK(rec >= 2, "signal %d: no completed row kept (%d records)", sig, rec);
    CHECK(text[strlen(text) - 1] == '\n', "signal %d: last row incomplete", sig);
    CHECK(test_count(text, ",8192,8192,8192,") == 0, "signal %d: the sweep was not interrupted", sig);
    printf("signal %d: %d complete rows kept\n", sig, rec - 1);
    free(text);
    /* no temporary file left behind */
    snprintf(old, sizeof old, "ls %s | grep -c tmp > /dev/null", dir);
    CHECK(system(old) != 0, "a temporary CSV was left in %s", dir);
}

/* interleaved timing (the default) on sgemm and reduce (vec4 keeps a ticket
 * in its workspace between its own calls: each variant has a slice of its
 * own): with --reps 5 --max-reps 5 every variant gets exactly 5 samples, one
 * a round; cublaslt_best names the algorithm it picked; --sequential
 * writes interleave 0 */
static void test_interleave(const char *dir)
{
    char csv[512];
    test_csv_doc d;
    snprintf(csv, sizeof csv, "%s/interleave.csv", dir);
    /* tf32_tma where it runs, else (another GPU, the forced policy mode) tf32_mma: every row must be ok */
    char *argv[] = {COMPARE_BIN, "--ops", "sgemm,reduce", "--n", "100", "--elems", "4099", "--variants",
                    test_sm90a_runs() ? "cublas_fp32,cublas_tf32,cublaslt_best,tuned,tf32_tma,thrust,cub,vec4,shuffle"
                                      : "cublas_fp32,cublas_tf32,cublaslt_best,tuned,tf32_mma,thrust,cub,vec4,shuffle",
                    "--reps", "5",
                    "--max-reps", "5", "--csv", csv, NULL};
    test_run(argv, NULL, 0, 0, 300, &proc);
    CHECK(proc.status == 0, "interleaved run exit %d; stderr:\n%s\nstdout:\n%s", proc.status, proc.err, proc.out);
    CHECK(test_contains(proc.out, "timing: interleaved"), "no 'timing: interleaved' line in:\n%s", proc.out);
    char *text = test_read_file(csv);
    CHECK(text != NULL, "no CSV written at %s", csv);
    if (!text) return;
    test_csv_parse(text, &d);
    CHECK(d.ok && d.nrec == 10, "%d records, expected a header and 9 rows", d.nrec);
    const int nvml = test_contains(proc.out, "observed through NVML");
    for (int r = 1; r < d.nrec; r++) {
        CHECK(strcmp(test_csv_cell(&d, r, "status"), "ok") == 0, "row %d (%s) status %s: %s", r,
              test_csv_cell(&d, r, "variant"), test_csv_cell(&d, r, "status"), test_csv_cell(&d, r, "message"));
        CHECK(strcmp(test_csv_cell(&d, r, "interleave"), "1") == 0, "row %d interleave [%s]", r,
              test_csv_cell(&d, r, "interleave"));
        CHECK(strcmp(test_csv_cell(&d, r, "samples"), "5") == 0, "row %d (%s): %s samples, expected 5 rounds", r,
              test_csv_cell(&d, r, "variant"), test_csv_cell(&d, r, "samples"));
        CHECK(strcmp(test_csv_cell(&d, r, "timing"), strcmp(test_csv_cell(&d, r, "variant"), "thrust") ? "gated" : "host") == 0,
              "row %d (%s): timing [%s]", r, test_csv_cell(&d, r, "variant"), test_csv_cell(&d, r, "timing"));
        if (strcmp(test_csv_cell(&d, r, "variant"), "cublaslt_best") == 0)
            CHECK(strncmp(test_csv_cell(&d, r, "kernel"), "cublasLt algo ", 14) == 0, "cublaslt_best kernel [%s]",
                  test_csv_cell(&d, r, "kernel"));
        /* samples of microseconds, none with a 5 ms reading inside: the nearest ones */
        if (nvml)
            CHECK(test_csv_cell(&d, r, "sm_clock_mhz")[0] != '\0', "row %d (%s): no SM clock though NVML is there",
                  r, test_csv_cell(&d, r, "variant"));
    }
    test_csv_doc_free(&d);
    free(text);
    char *seq[] = {COMPARE_BIN, "--sequential", "--ops", "reduce", "--elems", "4099", "--variants", "vec4", "--reps",
                   "3", "--max-reps", "3", "--csv", csv, "--quiet", NULL};
    test_run(seq, NULL, 0, 0, 120, &proc);
    CHECK(proc.status == 0 && test_contains(proc.out, "timing: sequential"), "--sequential run exit %d:\n%s",
          proc.status, proc.out);
    text = test_read_file(csv);
    CHECK(text != NULL, "no CSV written at %s", csv);
    if (!text) return;
    test_csv_parse(text, &d);
    for (int r = 1; r < d.nrec; r++)
        CHECK(strcmp(test_csv_cell(&d, r, "interleave"), "0") == 0, "--sequential row %d interleave [%s]", r,
              test_csv_cell(&d, r, "interleave"));
    test_csv_doc_free(&d);
    free(text);
}

/* Runs argv (argv[0] is replaced by the binary) and reads its CSV into d. */
static int run_csv(char **argv, const char *csv, test_csv_doc *d, const char *what)
{
    argv[0] = COMPARE_BIN;
    test_run(argv, NULL, 0, 0, 300, &proc);
    CHECK(proc.status == 0, "%s: exit %d; stderr:\n%s\nstdout:\n%s", what, proc.status, proc.err, proc.out);
    char *text = test_read_file(csv);
    CHECK(text != NULL, "%s: no CSV written at %s", what, csv);
    if (!text) return -1;
    test_csv_parse(text, d);
    free(text);
    return d->ok ? 0 : -1;
}

/* Per-op axes on the GPU: the issue's --axis command (four cases, k
 * innermost, each row's shape), transfer's chunks as a dimension of its
 * cases (read by the op from the case), and sgemm's cpu_max_n option. */
static void test_axes(const char *dir)
{
    char csv[512];
    test_csv_doc d;
    snprintf(csv, sizeof csv, "%s/axes.csv", dir);
    char *gemm[] = {"", "--ops", "sgemm", "--axis", "m=64", "--axis", "n=96", "--axis", "k=32:128:32", "--variants",
                    "cublas_fp32,cublas_tf32,naive", "--reps", "3", "--max-time", "0.2", "--csv", csv, NULL};
    if (run_csv(gemm, csv, &d, "--axis m n k") == 0) {
        CHECK(d.nrec == 1 + 4 * 3, "--axis m n k: %d records, expected 1 + 12", d.nrec);
        for (int r = 1; r < d.nrec; r++) {
            char want[64];
            snprintf(want, sizeof want, "m=64,n=96,k=%d", 32 * (1 + (r - 1) / 3));
            CHECK(strcmp(test_csv_cell(&d, r, "shape"), want) == 0 && strcmp(test_csv_cell(&d, r, "status"), "ok") == 0,
                  "row %d (%s): shape [%s] status %s, expected [%s] ok", r, test_csv_cell(&d, r, "variant"),
                  test_csv_cell(&d, r, "shape"), test_csv_cell(&d, r, "status"), want);
        }
        CHECK(test_contains(proc.out, "sgemm 64x96x128 (MxNxK)"), "no case title sgemm 64x96x128 in:\n%s", proc.out);
        test_csv_doc_free(&d);
    }
    snprintf(csv, sizeof csv, "%s/chunks.csv", dir);
    char *chunks[] = {"", "--ops", "transfer", "--axis", "chunks=1,3", "--elems", "1000003", "--reps", "3",
                      "--max-time", "0.2", "--csv", csv, NULL};
    if (run_csv(chunks, csv, &d, "--axis chunks") == 0) {
        int n = listed_variants("transfer"), overlap = 0;
        CHECK(d.nrec == 1 + 2 * n, "--axis chunks: %d records, expected 1 + 2 x %d", d.nrec, n);
        for (int r = 1; r < d.nrec; r++) {
            const char *want = r <= n ? "elems=1000003,chunks=1" : "elems=1000003,chunks=3";
            CHECK(strcmp(test_csv_cell(&d, r, "shape"), want) == 0 && strcmp(test_csv_cell(&d, r, "status"), "ok") == 0,
                  "row %d (%s): shape [%s] status %s", r, test_csv_cell(&d, r, "variant"),
                  test_csv_cell(&d, r, "shape"), test_csv_cell(&d, r, "status"));
            overlap += strcmp(test_csv_cell(&d, r, "variant"), "overlap") == 0;
        }
        CHECK(overlap == 2, "%d overlap rows, expected one per chunks value", overlap);
        CHECK(test_contains(proc.out, "transfer elems=1000003 chunks=3"), "no chunks=3 case title in:\n%s", proc.out);
        test_csv_doc_free(&d);
    }
    /* cpu_max_n: the CPU row SKIPs past it, runs up to it */
    for (int allow = 0; allow < 2; allow++) {
        snprintf(csv, sizeof csv, "%s/cpu%d.csv", dir, allow);
        char *cpu[] = {"", "--ops", "sgemm", "--n", "64", "--variants", "cpu_omp", allow ? "--axis" : "--cpu-max-n",
                       allow ? "cpu_max_n=64" : "63", "--reps", "3", "--max-time", "0.2", "--csv", csv, NULL};
        if (run_csv(cpu, csv, &d, "cpu_max_n") != 0) continue;
        int found = 0;
        for (int r = 1; r < d.nrec; r++) {
            if (strcmp(test_csv_cell(&d, r, "variant"), "cpu_omp") != 0) continue;
            found = 1;
            CHECK(strcmp(test_csv_cell(&d, r, "status"), allow ? "ok" : "SKIP") == 0 &&
                      (allow || test_contains(test_csv_cell(&d, r, "message"), "past --cpu-max-n 63")),
                  "cpu_omp with cpu_max_n %s: %s %s", allow ? "64" : "63", test_csv_cell(&d, r, "status"),
                  test_csv_cell(&d, r, "message"));
        }
        CHECK(found, "no cpu_omp row");
        test_csv_doc_free(&d);
    }
}

/* conv2d's cudnn rows through `compare` at the cases that once died:
 * exit 0 and every cudnn row ok (SKIP allowed only without
 * COMPARE_REQUIRE_CUDNN=1, i.e. where cuDNN is missing) */
static void test_cudnn_conv(void)
{
    static const char *const cases[][3] = {{"c_in=1", "c_out=1", "r=5"}, {"c_in=64", "c_out=64", "r=3"}};
    const char *req = getenv("COMPARE_REQUIRE_CUDNN");
    const int require = req && strcmp(req, "1") == 0;
    for (int i = 0; i < 2; i++) {
        char *argv[] = {COMPARE_BIN, "--ops", "conv2d", "--check-only", "--axis", "h=64", "--axis", "w=64",
                        "--axis", (char *)cases[i][0], "--axis", (char *)cases[i][1], "--axis", (char *)cases[i][2],
                        "--axis", "type=fp32,bf16", "--variants", "cudnn,cudnn_tensor_op", "--quiet", NULL};
        test_run(argv, NULL, 0, 0, 120, &proc);
        CHECK(proc.status == 0, "conv2d cudnn %s %s: exit %d (expected 0); stderr:\n%s", cases[i][1], cases[i][2],
              proc.status, proc.err);
        const int ok = test_count(proc.out, "  ok\n"), skip = test_count(proc.out, "  SKIP\n");
        CHECK(ok + skip == 4, "conv2d cudnn %s %s: %d ok + %d SKIP rows, expected 4:\n%s", cases[i][1], cases[i][2],
              ok, skip, proc.out);
        CHECK(!require || ok == 4, "conv2d cudnn %s %s: a cudnn row not ok with COMPARE_REQUIRE_CUDNN=1:\n%s",
              cases[i][1], cases[i][2], proc.out);
    }
}

int main(void)
{
    char dir[] = "/tmp/compare_gpu_cli_XXXXXX";
    test_require_gpu();
    if (!mkdtemp(dir)) return 1;
    test_smoke(dir);
    test_fault(dir);
    test_plugin(dir);
    test_example_plugin(dir);
    test_memory_refusal();
    test_interrupt(dir, SIGINT, 130, 1);
    test_interrupt(dir, SIGTERM, 143, 2);
    test_interleave(dir);
    test_axes(dir);
    test_cudnn_conv();
    return test_finish("test_gpu_cli");
}
