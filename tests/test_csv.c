/* tests/test_csv.c (cpu): the CSV writer (src/core/csv.c).
 *
 * Field quoting and number cells; the header is exactly DESIGN.md's columns
 * in order; rows written through csv_open / csv_write_row / csv_commit parse
 * back (with a small RFC 4180 parser below) into as many fields as the header,
 * holding the expected values; the write is atomic (the target is untouched
 * until commit, csv_abort leaves an older CSV byte for byte as it was and
 * removes the temporary file); csv_check_target's refusals. */
#include "csv.h"
#include "metrics.h"
#include "testlib.h"

#include <dirent.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

// ---- helpers ----------------------------------------------------------------

static char tmp_dir[64];

static char *slurp(const char *path, long *len)
{
    FILE *f = fopen(path, "rb");
    char *buf;
    long n;
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    n = ftell(f);
    fseek(f, 0, SEEK_SET);
    buf = malloc((size_t)n + 1);
    if (fread(buf, 1, (size_t)n, f) != (size_t)n) n = 0;
    buf[n] = '\0';
    fclose(f);
    if (len) *len = n;
    return buf;
}

static void spit(const char *path, const char *text)
{
    FILE *f = fopen(path, "wb");
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

/* What csv_write_field writes for s. */
static void field_text(const char *s, char *buf, size_t len)
{
    FILE *f = tmpfile();
    size_t n;
    csv_write_field(f, s);
    rewind(f);
    n = fread(buf, 1, len - 1, f);
    buf[n] = '\0';
    fclose(f);
}

// ---- fields and numbers -------------------------------------------------------------

static void expect_field(const char *in, const char *want)
{
    char got[256];
    field_text(in, got, sizeof got);
    CHECK(strcmp(got, want) == 0, "csv_write_field(\"%s\") wrote [%s], expected [%s]", in ? in : "NULL", got, want);
}

static void expect_number(double v, const char *want)
{
    char got[64];
    memset(got, 'Z', sizeof got);
    csv_format_number(got, sizeof got, v);
    CHECK(strcmp(got, want) == 0, "csv_format_number(%.17g) = [%s], expected [%s]", v, got, want);
}

static void test_fields(void)
{
    expect_field("plain", "plain");
    expect_field("NVIDIA H200", "NVIDIA H200");
    expect_field("", "");
    expect_field(NULL, "");
    expect_field("a,b", "\"a,b\"");
    expect_field("say \"hi\"", "\"say \"\"hi\"\"\"");
    expect_field("\"", "\"\"\"\"");
    expect_field("line\nnext", "\"line\nnext\"");
    expect_field("cr\rhere", "\"cr\rhere\"");
    expect_field("back\\slash", "back\\slash"); /* nothing special in CSV */
    expect_field("semi;colon 'q'", "semi;colon 'q'");
    expect_field(" lead", " lead"); /* spaces are data */

    expect_number(-1.0, "");
    expect_number(-1e-300, "");
    expect_number(NAN, "");
    expect_number(0.0, "0");
    expect_number(1.5, "1.5");
    expect_number(0.1, "0.1");
    expect_number(25.0, "25");
    expect_number(17179869184.0, "17179869184");
    expect_number(562949953421312.0, "562949953421312"); /* counts stay exact */
    expect_number(9007199254740991.0, "9007199254740991");
    expect_number(1e20, "1e+20");
    expect_number(-0.0, "0");
    expect_number(66.90816, "66.90816");
    expect_number(4814.304, "4814.304");
    expect_number(1.0 / 3.0, "0.333333333");
    expect_number(2.5e-7, "2.5e-07");
    /* a cell parses back to the value within the 9 significant digits printed */
    {
        const double vs[] = {0.0123456789012, 12345.6789012, 9.87654321e-9, 1e15 / 7.0};
        for (size_t i = 0; i < sizeof vs / sizeof vs[0]; i++) {
            char b[64];
            csv_format_number(b, sizeof b, vs[i]);
            CHECK(fabs(strtod(b, NULL) - vs[i]) <= 5e-9 * vs[i], "[%s] does not round-trip %.17g", b, vs[i]);
        }
    }
}

// ---- the header -----------------------------------------------------------------

static const char *const design_columns[] = {
    "timestamp", "git_commit", "device", "cc", "driver", "cuda_runtime", "cublas_version", "seed", "l2_flush",
    "op", "variant", "library", "math", "m", "n", "k", "elems", "samples", "time_ms_median", "time_ms_min",
    "time_ms_q1", "time_ms_q3", "spread_pct", "tflops", "gbps", "gkeys_per_s", "ref_library", "pct_of_ref_library",
    "best_library", "pct_of_best_library", "pct_of_peak", "rel_err", "tolerance", "status",
    /* more may follow (DESIGN.md): these do */
    "flops", "bytes", "peak_fp32_tflops", "peak_mem_gbps", "kernel", "kernel_note", "source", "sm_clock_mhz",
    "sm_clock_min_mhz", "mem_clock_mhz", "temp_c", "power_w", "throttle", "hostname", "rank", "device_index",
    "device_uuid", "pci_bus_id", "dist", "interleave", "timing", "message", "note", "peak_math", "peak_tflops",
    "shape",
    /* issue 40: the roofline and --metrics */
    "intensity", "bound", "dram_read_bytes", "dram_write_bytes", "l2_bytes", "flops_measured", "occupancy_pct",
    "sm_throughput_pct", "intensity_measured", "metrics_note", "hint"};
#define NCOLS ((int)(sizeof design_columns / sizeof design_columns[0]))

static void test_header(void)
{
    test_csv_doc d;
    test_csv_parse(csv_header, &d);
    CHECK(d.ok && d.nrec == 1, "header does not parse as one record");
    CHECK(d.nfield[0] == NCOLS, "header has %d columns, expected %d", d.nfield[0], NCOLS);
    for (int i = 0; i < NCOLS && i < d.nfield[0]; i++)
        CHECK(strcmp(d.field[0][i], design_columns[i]) == 0, "column %d is '%s', expected '%s'", i, d.field[0][i],
              design_columns[i]);
    CHECK(strchr(csv_header, '\n') == NULL && strchr(csv_header, ' ') == NULL, "header holds a newline or space");
    test_csv_doc_free(&d);
}

// ---- rows through the writer ---------------------------------------------------------

static run_info info;
static double samples[5] = {4.0, 4.25, 3.75, 4.5, 4.125};

static void make_info(void) { test_h200_run_info(&info, "NVIDIA H200, \"test\" rig"); }

/* A timed hand sgemm row at n = 2048: 4.125 ms median. */
static void make_hand_row(result_row *r)
{
    results_row_clear(r);
    r->op = "sgemm";
    r->variant = "tiled32";
    r->library = 0;
    r->math = "fp32";
    r->m = r->n = r->k = 2048;
    r->elems = 0;
    snprintf(r->shape, sizeof r->shape, "m=2048,n=2048,k=2048");
    r->status = STATUS_OK;
    stats_summarize(samples, 5, &r->time_ms);
    r->flops = metrics_gemm_flops(2048, 2048, 2048);
    r->bytes = metrics_gemm_bytes(2048, 2048, 2048);
    r->tflops = metrics_tflops(r->flops, r->time_ms.median);
    r->gbps = -1;
    r->gkeys = -1;
    r->ref_library = "cublas_fp32";
    r->pct_ref = metrics_pct_of(1.03125, r->time_ms.median);
    r->best_library = "cublas_tf32";
    r->pct_best = metrics_pct_of(0.515625, r->time_ms.median);
    r->pct_peak = r->tflops / info.dev.peak_fp32_tflops * 100.0;
    snprintf(r->peak_math, sizeof r->peak_math, "fp32");
    r->peak_tflops = info.dev.peak_fp32_tflops;
    r->rel_err = 1.25e-7;
    r->tolerance = 3.0517578125e-05;
    r->source = "builtin";
    snprintf(r->kernel, sizeof r->kernel, "tiled32_k");
    r->sm_clock_mhz = 1965.5;
    r->sm_clock_min_mhz = 1755;
    r->mem_clock_mhz = 3201;
    r->temp_c = 51;
    r->power_w = 612.25;
    snprintf(r->throttle, sizeof r->throttle, "sw_power_cap|hw_thermal");
    snprintf(r->timing, sizeof r->timing, "gated");
    r->interleaved = 1;
    /* the roofline columns, and counters as --metrics fills them */
    r->intensity = r->flops / r->bytes;
    snprintf(r->bound, sizeof r->bound, "fp32 6%%");
    r->dram_read_bytes = 41943040;
    r->dram_write_bytes = 16777216;
    r->l2_bytes = 1073741824;
    r->flops_measured = 17179869184.0;
    r->occupancy_pct = 12.5;
    r->sm_throughput_pct = 43.75;
    r->intensity_measured = 17179869184.0 / (41943040.0 + 16777216.0);
    snprintf(r->hint, sizeof r->hint, "low occupancy: 12%% (sm__warps_active.avg.pct_of_peak_sustained_active); x");
}

static void test_rows(void)
{
    char path[256], err[1024] = "";
    csv_writer w;
    result_row hand, lib, fail, red;
    char *text;
    long len;
    test_csv_doc d;

    make_info();
    make_hand_row(&hand);
    lib = hand;
    lib.variant = "cublas_fp32";
    lib.library = 1;
    lib.ref_library = NULL;
    lib.best_library = NULL;
    lib.pct_ref = lib.pct_best = -1; /* as run.c leaves them on library rows */
    snprintf(lib.note, sizeof lib.note, "allocates on every call, \"timed\"");
    fail = hand;
    fail.variant = "naive";
    fail.status = STATUS_FAIL;
    fail.rel_err = 0.5;
    snprintf(fail.message, sizeof fail.message, "max err 3.2 at (7, 9), \"C\" poisoned\nsecond line\\end");
    results_row_clear(&red);
    red.op = "reduce";
    red.variant = "shuffle";
    red.math = "fp32";
    red.elems = 1LL << 26;
    snprintf(red.shape, sizeof red.shape, "elems=67108864,chunks=4");
    red.status = STATUS_OK;
    stats_summarize(samples, 5, &red.time_ms);
    red.tflops = -1;
    red.gbps = metrics_gbps(4.0 * (1 << 26), red.time_ms.median);
    red.gkeys = -1;
    red.ref_library = "thrust";
    red.best_library = "cub";
    red.pct_ref = 80.0;
    red.pct_best = 75.5;
    red.pct_peak = 12.5;
    red.rel_err = 3e-9;
    red.tolerance = 1.2874603271484375e-05;
    red.flops = -1;
    red.bytes = 4.0 * (1 << 26);
    red.interleaved = 1;
    snprintf(red.metrics_note, sizeof red.metrics_note, "counters not permitted, \"CUPTI_ERROR_INSUFFICIENT_PRIVILEGES\"");

    snprintf(path, sizeof path, "%s/rows.csv", tmp_dir);
    CHECK(csv_open(&w, path, err, sizeof err) == 0, "csv_open: %s", err);
    CHECK(!test_file_exists(path), "the target exists before commit");
    CHECK(test_file_exists(w.tmp) && strncmp(w.tmp, path, strlen(path)) == 0, "temporary file '%s' not next to the target",
          w.tmp);
    CHECK(csv_write_row(&w, &info, &hand) == 0, "write hand row");
    CHECK(csv_write_row(&w, &info, &lib) == 0, "write library row");
    CHECK(csv_write_row(&w, &info, &fail) == 0, "write FAIL row");
    CHECK(csv_write_row(&w, &info, &red) == 0, "write reduce row");
    CHECK(w.rows == 4, "rows %ld", w.rows);
    CHECK(!test_file_exists(path), "the target exists before commit (after rows)");
    CHECK(csv_commit(&w, err, sizeof err) == 0, "csv_commit: %s", err);
    CHECK(test_file_exists(path) && !test_file_exists(w.tmp), "after commit: target %d, temp %d", test_file_exists(path), test_file_exists(w.tmp));
    {
        struct stat st;
        CHECK(stat(path, &st) == 0 && (st.st_mode & 0777) == 0644, "mode %o, expected 644",
              (unsigned)(st.st_mode & 0777));
    }
    CHECK(test_dir_entries(tmp_dir) == 1, "%d entries after commit", test_dir_entries(tmp_dir));

    text = slurp(path, &len);
    CHECK(text != NULL, "cannot read %s", path);
    if (!text) return;
    CHECK(strncmp(text, csv_header, strlen(csv_header)) == 0 && text[strlen(csv_header)] == '\n',
          "file does not start with the header line");
    test_csv_parse(text, &d);
    CHECK(d.ok, "the file is not valid RFC 4180");
    CHECK(d.nrec == 5, "%d records, expected 5", d.nrec);
    for (int r = 0; r < d.nrec; r++)
        CHECK(d.nfield[r] == NCOLS, "record %d has %d fields, expected %d", r, d.nfield[r], NCOLS);

#define CELL(r, name, want)                                                                         \
    CHECK(strcmp(test_csv_cell(&d, r, name), want) == 0, "row %d %s = [%s], expected [%s]", r, name, test_csv_cell(&d, r, name), want)
    /* run and device columns, on every row */
    for (int r = 1; r < d.nrec; r++) {
        CELL(r, "timestamp", "2026-01-02T03:04:05Z");
        CELL(r, "git_commit", "0123456789ab");
        CELL(r, "device", "NVIDIA H200, \"test\" rig");
        CELL(r, "cc", "9.0");
        CELL(r, "driver", "13000");
        CELL(r, "cuda_runtime", "13000");
        CELL(r, "cublas_version", "130100");
        CELL(r, "seed", "2026");
        CELL(r, "l2_flush", "1");
        CELL(r, "interleave", "1");
        CELL(r, "peak_fp32_tflops", "66.90816");
        CELL(r, "peak_mem_gbps", "4814.304");
    }
    /* the timed hand row: median of {3.75, 4, 4.125, 4.25, 4.5} = 4.125, q1 4, q3 4.25 */
    CELL(1, "op", "sgemm");
    CELL(1, "variant", "tiled32");
    CELL(1, "library", "0");
    CELL(1, "math", "fp32");
    CELL(1, "m", "2048");
    CELL(1, "n", "2048");
    CELL(1, "k", "2048");
    CELL(1, "elems", "");
    CELL(1, "samples", "5");
    CELL(1, "time_ms_median", "4.125");
    CELL(1, "time_ms_min", "3.75");
    CELL(1, "time_ms_q1", "4");
    CELL(1, "time_ms_q3", "4.25");
    CELL(1, "spread_pct", "6.06060606"); /* 0.25 / 4.125 */
    CELL(1, "tflops", "4.16481677");    /* 2^34 / 4.125e-3 / 1e12 */
    CELL(1, "gbps", "");
    CELL(1, "gkeys_per_s", "");
    CELL(1, "ref_library", "cublas_fp32");
    CELL(1, "pct_of_ref_library", "25");  /* 1.03125 / 4.125 */
    CELL(1, "best_library", "cublas_tf32");
    CELL(1, "pct_of_best_library", "12.5");
    CELL(1, "pct_of_peak", "6.22467689");
    CELL(1, "rel_err", "1.25e-07");
    CELL(1, "tolerance", "3.05175781e-05");
    CELL(1, "status", "ok");
    CELL(1, "flops", "17179869184");
    CELL(1, "bytes", "50331648");
    CELL(1, "message", "");
    CELL(1, "peak_math", "fp32"); /* the ceiling its %peak is of */
    CELL(1, "peak_tflops", "66.90816");
    CELL(1, "shape", "m=2048,n=2048,k=2048");
    /* what ran, and the clocks while it ran */
    CELL(1, "kernel", "tiled32_k");
    CELL(1, "kernel_note", "");
    CELL(1, "source", "builtin");
    CELL(1, "sm_clock_mhz", "1965.5");
    CELL(1, "sm_clock_min_mhz", "1755");
    CELL(1, "mem_clock_mhz", "3201");
    CELL(1, "temp_c", "51");
    CELL(1, "power_w", "612.25");
    CELL(1, "throttle", "sw_power_cap|hw_thermal");
    CELL(1, "hostname", "h200-node");
    CELL(1, "rank", "");
    CELL(1, "device_index", "0");
    CELL(1, "device_uuid", "GPU-00112233-4455-6677-8899-aabbccddeeff");
    CELL(1, "pci_bus_id", "0000:19:00.0");
    CELL(4, "sm_clock_mhz", ""); /* not observed: empty */
    CELL(4, "throttle", "");
    CELL(1, "timing", "gated");
    /* the library row: no percent, no ref/best names */
    CELL(2, "variant", "cublas_fp32");
    CELL(2, "library", "1");
    CELL(2, "ref_library", "");
    CELL(2, "pct_of_ref_library", "");
    CELL(2, "best_library", "");
    CELL(2, "pct_of_best_library", "");
    CELL(2, "time_ms_median", "4.125");
    CELL(2, "note", "allocates on every call, \"timed\"");
    CELL(1, "note", "");
    /* the FAIL row: no speed figure at all, the error and the message kept */
    CELL(3, "variant", "naive");
    CELL(3, "status", "FAIL");
    CELL(3, "samples", "");
    CELL(3, "time_ms_median", "");
    CELL(3, "time_ms_min", "");
    CELL(3, "time_ms_q1", "");
    CELL(3, "time_ms_q3", "");
    CELL(3, "spread_pct", "");
    CELL(3, "tflops", "");
    CELL(3, "pct_of_ref_library", "");
    CELL(3, "pct_of_best_library", "");
    CELL(3, "pct_of_peak", "");
    CELL(3, "peak_tflops", ""); /* not timed: no clock, no ceiling */
    CELL(3, "ref_library", "cublas_fp32");
    CELL(3, "rel_err", "0.5");
    CELL(3, "tolerance", "3.05175781e-05");
    CELL(3, "message", "max err 3.2 at (7, 9), \"C\" poisoned\nsecond line\\end");
    /* the reduce row: no GEMM shape, elems and GB/s */
    CELL(4, "op", "reduce");
    CELL(4, "shape", "elems=67108864,chunks=4"); /* quoted: it holds commas */
    CELL(4, "m", "");
    CELL(4, "n", "");
    CELL(4, "k", "");
    CELL(4, "elems", "67108864");
    CELL(4, "tflops", "");
    CELL(4, "gbps", "65.0752621"); /* 2^28 bytes / 4.125 ms */
    CELL(4, "peak_math", "");      /* memory-bound: of the bandwidth */
    CELL(4, "peak_tflops", "");
    CELL(4, "ref_library", "thrust");
    CELL(4, "pct_of_ref_library", "80");
    CELL(4, "best_library", "cub");
    CELL(4, "pct_of_best_library", "75.5");
    CELL(4, "pct_of_peak", "12.5");
    /* the roofline and --metrics columns */
    CELL(1, "intensity", "341.333333"); /* 2^34 / (3 x 2^24 bytes) */
    CELL(1, "bound", "fp32 6%");
    CELL(1, "dram_read_bytes", "41943040");
    CELL(1, "dram_write_bytes", "16777216");
    CELL(1, "l2_bytes", "1073741824");
    CELL(1, "flops_measured", "17179869184");
    CELL(1, "occupancy_pct", "12.5");
    CELL(1, "sm_throughput_pct", "43.75");
    CELL(1, "intensity_measured", "292.571429");
    CELL(1, "metrics_note", "");
    CELL(1, "hint", "low occupancy: 12% (sm__warps_active.avg.pct_of_peak_sustained_active); x");
    CELL(4, "intensity", ""); /* no FLOPs counted */
    CELL(4, "bound", "");
    CELL(4, "dram_read_bytes", ""); /* not measured: empty, the reason beside */
    CELL(4, "occupancy_pct", "");
    CELL(4, "intensity_measured", "");
    CELL(4, "metrics_note", "counters not permitted, \"CUPTI_ERROR_INSUFFICIENT_PRIVILEGES\"");
    CELL(4, "hint", "");
    CELL(4, "flops", "");
    CELL(4, "bytes", "268435456");
#undef CELL
    test_csv_doc_free(&d);
    free(text);
    unlink(path);
}

// ---- atomicity ---------------------------------------------------------------------

static void test_atomic(void)
{
    char path[256], err[1024] = "", old[4096];
    csv_writer w;
    result_row r;
    char *now;
    long len;
    make_info();
    make_hand_row(&r);
    snprintf(path, sizeof path, "%s/keep.csv", tmp_dir);
    snprintf(old, sizeof old, "%s\r\nold,row,\"with, comma\"\n", csv_header);
    spit(path, old);

    /* rows written, then aborted: the old file is untouched, the temp file gone */
    CHECK(csv_open(&w, path, err, sizeof err) == 0, "csv_open over an older CSV: %s", err);
    CHECK(csv_write_row(&w, &info, &r) == 0 && csv_write_row(&w, &info, &r) == 0, "rows");
    now = slurp(path, &len);
    CHECK(now && len == (long)strlen(old) && memcmp(now, old, (size_t)len) == 0, "target changed before commit");
    free(now);
    CHECK(test_dir_entries(tmp_dir) == 2, "%d entries while writing (target + temp)", test_dir_entries(tmp_dir));
    {
        char tmp[sizeof w.tmp];
        snprintf(tmp, sizeof tmp, "%s", w.tmp);
        csv_abort(&w);
        CHECK(!test_file_exists(tmp), "csv_abort left the temp file %s", tmp);
    }
    now = slurp(path, &len);
    CHECK(now && len == (long)strlen(old) && memcmp(now, old, (size_t)len) == 0, "csv_abort changed the target");
    free(now);
    CHECK(test_dir_entries(tmp_dir) == 1, "%d entries after abort", test_dir_entries(tmp_dir));
    csv_abort(&w); /* twice is harmless */

    /* rows written, then committed: replaced */
    CHECK(csv_open(&w, path, err, sizeof err) == 0, "csv_open again: %s", err);
    CHECK(csv_write_row(&w, &info, &r) == 0, "row");
    CHECK(csv_commit(&w, err, sizeof err) == 0, "commit: %s", err);
    now = slurp(path, &len);
    CHECK(now && strstr(now, "old,row") == NULL && strstr(now, "tiled32") != NULL, "commit did not replace");
    {
        test_csv_doc d;
        test_csv_parse(now ? now : "", &d);
        CHECK(d.ok && d.nrec == 2 && d.nfield[1] == NCOLS, "committed file: %d records", d.nrec);
        test_csv_doc_free(&d);
    }
    free(now);
    CHECK(test_dir_entries(tmp_dir) == 1, "%d entries after commit", test_dir_entries(tmp_dir));
    CHECK(csv_commit(&w, err, sizeof err) == -1, "a second commit succeeded");

    /* an empty CSV (header only) after a commit with no rows */
    CHECK(csv_open(&w, path, err, sizeof err) == 0 && csv_commit(&w, err, sizeof err) == 0, "empty commit: %s", err);
    now = slurp(path, &len);
    CHECK(now && len == (long)strlen(csv_header) + 1, "empty commit wrote %ld bytes", len);
    free(now);
    unlink(path);

    /* csv_open refuses a foreign file and leaves no temp file */
    snprintf(path, sizeof path, "%s/foreign.csv", tmp_dir);
    spit(path, "a,b\n1,2\n");
    err[0] = '\0';
    CHECK(csv_open(&w, path, err, sizeof err) == -1 && test_contains(err, "not a compare CSV"),
          "csv_open over a foreign file: %s", err);
    now = slurp(path, &len);
    CHECK(now && strcmp(now, "a,b\n1,2\n") == 0, "foreign file changed");
    free(now);
    CHECK(test_dir_entries(tmp_dir) == 1, "%d entries after a refused open", test_dir_entries(tmp_dir));
    unlink(path);
}

// ---- csv_check_target -----------------------------------------------------------------

static void test_check_target(void)
{
    char path[256], err[1024];
#define REFUSE(p, needle)                                                                                  \
    do {                                                                                                   \
        err[0] = '\0';                                                                                     \
        CHECK(csv_check_target(p, err, sizeof err) == -1, "csv_check_target('%s') accepted", p);           \
        CHECK(test_contains(err, needle), "csv_check_target('%s'): \"%s\" lacks \"%s\"", p, err, needle); \
    } while (0)
#define ACCEPT(p)                                                                                          \
    do {                                                                                                   \
        err[0] = '\0';                                                                                     \
        CHECK(csv_check_target(p, err, sizeof err) == 0, "csv_check_target('%s') refused: %s", p, err);    \
    } while (0)

    REFUSE(tmp_dir, "is a directory");
    REFUSE("", "empty path");
    snprintf(path, sizeof path, "%s/no/such/dir/x.csv", tmp_dir);
    REFUSE(path, "does not exist");
    snprintf(path, sizeof path, "%s/sub", tmp_dir);
    mkdir(path, 0755);
    REFUSE(path, "is a directory");
    rmdir(path);
    /* a regular file used as a directory */
    snprintf(path, sizeof path, "%s/plain", tmp_dir);
    spit(path, "x");
    snprintf(path, sizeof path, "%s/plain/x.csv", tmp_dir);
    REFUSE(path, "does not exist");
    snprintf(path, sizeof path, "%s/plain", tmp_dir);
    unlink(path);
    /* foreign files: another CSV, a near miss of our header, binary */
    snprintf(path, sizeof path, "%s/other.csv", tmp_dir);
    spit(path, "name,value\n");
    REFUSE(path, "not a compare CSV");
    spit(path, "timestamp,git_commit,dev\n");
    REFUSE(path, "not a compare CSV");
    spit(path, "\n");
    REFUSE(path, "not a compare CSV");
    /* a too-long path */
    {
        static char longp[5000];
        memset(longp, 'a', sizeof longp - 1);
        longp[0] = '/';
        REFUSE(longp, "too long");
    }

    /* accepted: a new file in an existing directory, an empty file, one of ours */
    snprintf(path, sizeof path, "%s/new.csv", tmp_dir);
    ACCEPT(path);
    CHECK(!test_file_exists(path), "csv_check_target created %s", path);
    spit(path, "");
    ACCEPT(path);
    spit(path, csv_header);
    ACCEPT(path);
    {
        char buf[1024];
        snprintf(buf, sizeof buf, "%s\n2026-01-01T00:00:00Z,abc,NVIDIA H200,9.0\n", csv_header);
        spit(path, buf);
        ACCEPT(path);
    }
    unlink(path);
    snprintf(path, sizeof path, "%s/other.csv", tmp_dir);
    unlink(path);
    ACCEPT("relative-name.csv"); /* the current directory */
#undef REFUSE
#undef ACCEPT
}

int main(void)
{
    snprintf(tmp_dir, sizeof tmp_dir, "/tmp/test_csv.XXXXXX");
    if (!mkdtemp(tmp_dir)) {
        perror("mkdtemp");
        return 1;
    }
    test_fields();
    test_header();
    test_rows();
    test_atomic();
    test_check_target();
    CHECK(test_dir_entries(tmp_dir) == 0, "%d files left in %s", test_dir_entries(tmp_dir), tmp_dir);
    rmdir(tmp_dir);
    return test_finish("test_csv");
}
