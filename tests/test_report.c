/* tests/test_report.c (cpu): the stdout reports (src/core/report.c).
 *
 * One sgemm case (two library rows, a timed hand row, a FAIL row whose
 * message holds quotes, commas, a newline, a tab and a backslash) and one
 * reduce case, written as the terminal table, Markdown and JSON into
 * tmpfile()s. The table and Markdown are checked line by line; the JSON is
 * parsed by a strict little parser below, and each row's numbers are compared
 * field by field with the same row written by the CSV writer. */
#include "csv.h"
#include "metrics.h"
#include "peaks.h"
#include "plan.h"
#include "report.h"
#include "testlib.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

// ---- a strict JSON parser (RFC 8259) ----------------------------------------------

enum { J_NULL, J_BOOL, J_NUM, J_STR, J_ARR, J_OBJ };

typedef struct jv {
    int type;
    double num;        /* J_NUM, J_BOOL */
    char *str;         /* J_STR (decoded), J_NUM (the literal text) */
    int n;             /* J_ARR, J_OBJ: element count */
    char **keys;       /* J_OBJ */
    struct jv *items;  /* J_ARR, J_OBJ */
} jv;

typedef struct {
    const char *p;
    const char *err; /* first error, or NULL */
    const char *at;  /* where */
} jparser;

static void jfail(jparser *j, const char *msg)
{
    if (!j->err) {
        j->err = msg;
        j->at = j->p;
    }
}

static void jws(jparser *j)
{
    while (*j->p == ' ' || *j->p == '\t' || *j->p == '\n' || *j->p == '\r') j->p++;
}

static int jhex(char c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

static char *jstring(jparser *j)
{
    size_t cap = 64, n = 0;
    char *s = malloc(cap);
    if (*j->p != '"') {
        jfail(j, "expected a string");
        s[0] = '\0';
        return s;
    }
    j->p++;
    for (;;) {
        unsigned char c = (unsigned char)*j->p;
        if (n + 8 > cap) s = realloc(s, cap *= 2);
        if (c == '\0') {
            jfail(j, "unterminated string");
            break;
        }
        if (c < 0x20) {
            jfail(j, "raw control character in a string");
            break;
        }
        j->p++;
        if (c == '"') break;
        if (c != '\\') {
            s[n++] = (char)c;
            continue;
        }
        c = (unsigned char)*j->p++;
        switch (c) {
        case '"': s[n++] = '"'; break;
        case '\\': s[n++] = '\\'; break;
        case '/': s[n++] = '/'; break;
        case 'b': s[n++] = '\b'; break;
        case 'f': s[n++] = '\f'; break;
        case 'n': s[n++] = '\n'; break;
        case 'r': s[n++] = '\r'; break;
        case 't': s[n++] = '\t'; break;
        case 'u': {
            int v = 0;
            for (int i = 0; i < 4; i++) {
                int h = jhex(j->p[i]);
                if (h < 0) {
                    jfail(j, "bad \\u escape");
                    h = 0;
                }
                v = v * 16 + h;
            }
            j->p += 4;
            if (v < 0x80) s[n++] = (char)v; /* the writer only escapes control characters */
            else jfail(j, "non-ASCII \\u escape not expected");
            break;
        }
        default: jfail(j, "bad escape"); break;
        }
    }
    s[n] = '\0';
    return s;
}

static void jvalue(jparser *j, jv *v, int depth);

static void jnumber(jparser *j, jv *v)
{
    const char *start = j->p;
    if (*j->p == '-') j->p++;
    if (*j->p == '0') j->p++;
    else if (*j->p >= '1' && *j->p <= '9')
        while (isdigit((unsigned char)*j->p)) j->p++;
    else jfail(j, "bad number");
    if (*j->p == '.') {
        j->p++;
        if (!isdigit((unsigned char)*j->p)) jfail(j, "bad fraction");
        while (isdigit((unsigned char)*j->p)) j->p++;
    }
    if (*j->p == 'e' || *j->p == 'E') {
        j->p++;
        if (*j->p == '+' || *j->p == '-') j->p++;
        if (!isdigit((unsigned char)*j->p)) jfail(j, "bad exponent");
        while (isdigit((unsigned char)*j->p)) j->p++;
    }
    v->type = J_NUM;
    v->str = malloc((size_t)(j->p - start) + 1);
    memcpy(v->str, start, (size_t)(j->p - start));
    v->str[j->p - start] = '\0';
    v->num = strtod(v->str, NULL);
}

static void jvalue(jparser *j, jv *v, int depth)
{
    memset(v, 0, sizeof *v);
    jws(j);
    if (depth > 32) {
        jfail(j, "too deep");
        return;
    }
    if (*j->p == '{' || *j->p == '[') {
        int obj = *j->p == '{';
        char close = obj ? '}' : ']';
        int cap = 8;
        v->type = obj ? J_OBJ : J_ARR;
        v->items = calloc((size_t)cap, sizeof *v->items);
        v->keys = obj ? calloc((size_t)cap, sizeof *v->keys) : NULL;
        j->p++;
        jws(j);
        if (*j->p == close) {
            j->p++;
            return;
        }
        for (;;) {
            if (v->n == cap) {
                cap *= 2;
                v->items = realloc(v->items, (size_t)cap * sizeof *v->items);
                if (obj) v->keys = realloc(v->keys, (size_t)cap * sizeof *v->keys);
            }
            jws(j);
            if (obj) {
                v->keys[v->n] = jstring(j);
                for (int i = 0; i < v->n; i++)
                    if (strcmp(v->keys[i], v->keys[v->n]) == 0) jfail(j, "duplicate key");
                jws(j);
                if (*j->p != ':') jfail(j, "expected ':'");
                else j->p++;
            }
            jvalue(j, &v->items[v->n], depth + 1);
            v->n++;
            if (j->err) return;
            jws(j);
            if (*j->p == ',') {
                j->p++;
                jws(j);
                if (*j->p == close) jfail(j, "trailing comma");
                continue;
            }
            if (*j->p == close) {
                j->p++;
                return;
            }
            jfail(j, obj ? "expected ',' or '}'" : "expected ',' or ']'");
            return;
        }
    }
    if (*j->p == '"') {
        v->type = J_STR;
        v->str = jstring(j);
    } else if (strncmp(j->p, "null", 4) == 0) {
        v->type = J_NULL;
        j->p += 4;
    } else if (strncmp(j->p, "true", 4) == 0) {
        v->type = J_BOOL;
        v->num = 1;
        j->p += 4;
    } else if (strncmp(j->p, "false", 5) == 0) {
        v->type = J_BOOL;
        j->p += 5;
    } else if (*j->p == '-' || isdigit((unsigned char)*j->p)) {
        jnumber(j, v);
    } else {
        jfail(j, "unexpected character");
    }
}

/* Parses a whole document; returns NULL on success, else the error. */
static const char *json_parse(const char *text, jv *root, const char **at)
{
    jparser j = {text, NULL, NULL};
    jvalue(&j, root, 0);
    jws(&j);
    if (!j.err && *j.p != '\0') jfail(&j, "text after the document");
    if (at) *at = j.at;
    return j.err;
}

static void json_free(jv *v)
{
    for (int i = 0; i < v->n; i++) {
        json_free(&v->items[i]);
        if (v->keys) free(v->keys[i]);
    }
    free(v->items);
    free(v->keys);
    free(v->str);
}

static const jv *jget(const jv *o, const char *key)
{
    if (!o || o->type != J_OBJ) return NULL;
    for (int i = 0; i < o->n; i++)
        if (strcmp(o->keys[i], key) == 0) return &o->items[i];
    return NULL;
}

static void test_json_parser_itself(void)
{
    static const char *const good[] = {"{}", "[]", "{\"a\": [1, -2.5e-3, 0, true, false, null, \"x\\n\\u0001\"]}",
                                       " [ {\"k\" : {}} ] "};
    static const char *const bad[] = {"{", "[1,]", "{\"a\":1,}", "{\"a\" 1}", "[01]", "[1.]", "[.5]", "[nan]",
                                      "[inf]", "[\"a\nb\"]", "[\"\\x\"]", "{\"a\":1,\"a\":2}", "[1] 2", "{'a':1}",
                                      "[-]", "[1e]", ""};
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        jv v;
        const char *e = json_parse(good[i], &v, NULL);
        CHECK(e == NULL, "parser refused good JSON [%s]: %s", good[i], e);
        json_free(&v);
    }
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        jv v;
        const char *e = json_parse(bad[i], &v, NULL);
        CHECK(e != NULL, "parser accepted bad JSON [%s]", bad[i]);
        json_free(&v);
    }
}

// ---- the rows ---------------------------------------------------------------------

static const char tricky[] = "wrong at (3, 7): got \"1.5\", want 2\nC:\\tmp\\x\tend";

static run_info info;
static result_row rows[4];   /* sgemm n = 2048 */
static result_row red[2];    /* reduce 2^26 */
static double s_fp32[5] = {1.0, 1.1, 0.9, 1.05, 0.95};
static double s_tf32[5] = {0.5, 0.5, 0.5, 0.5, 0.5};
static double s_hand[5] = {4.0, 4.0, 4.0, 4.0, 4.0};
static double s_red[3] = {0.25, 0.25, 0.25};

static void timed(result_row *r, double *s, size_t n)
{
    stats_summarize(s, n, &r->time_ms);
    r->samples_ms = s;
    r->status = STATUS_OK;
}

static const op_info sgemm_op = {"sgemm", OP_SIZE_GEMM, OP_RATE_TFLOPS, OP_PEAK_FP32, "cublas_fp32",
                                  "cublas_tf32", {NULL}, {NULL, NULL}, "", {OP_AXIS_M, OP_AXIS_N, OP_AXIS_K}};
static const op_info reduce_op = {"reduce", OP_SIZE_ELEMS, OP_RATE_GBPS, OP_PEAK_MEMORY, "thrust", "cub", {NULL},
                                  {NULL, NULL}, "", {OP_AXIS_ELEMS}};

static void make_rows(void)
{
    const double tol = 3.0517578125e-05; /* 8 * 2^-24 * sqrt(2048), rounded */
    test_h200_run_info(&info, "NVIDIA H200 \"lab\" \\ rig");

    for (int i = 0; i < 4; i++) {
        result_row *r = &rows[i];
        results_row_clear(r);
        r->op = "sgemm";
        r->math = "fp32";
        r->source = "builtin";
        r->rate = sgemm_op.rate;
        r->peak = sgemm_op.peak;
        snprintf(r->case_label, sizeof r->case_label, "sgemm m=n=k=2048");
        snprintf(r->shape, sizeof r->shape, "m=2048,n=2048,k=2048");
        r->m = r->n = r->k = 2048;
        r->flops = metrics_gemm_flops(2048, 2048, 2048);
        r->bytes = metrics_gemm_bytes(2048, 2048, 2048);
        r->rel_err = 1e-7;
        r->tolerance = tol;
        r->status = STATUS_OK;
    }
    rows[0].variant = "cublas_fp32";
    rows[0].library = 1;
    timed(&rows[0], s_fp32, 5); /* median 1, q1 0.95, q3 1.05: spread 10% */
    rows[1].variant = "cublas_tf32";
    rows[1].library = 1;
    rows[1].math = "tf32";
    rows[1].rel_err = 2.5e-4;
    rows[1].tolerance = 2.96e-3;
    timed(&rows[1], s_tf32, 5);
    rows[2].variant = "tiled32";
    rows[2].ref_library = "cublas_fp32";
    rows[2].best_library = "cublas_tf32";
    rows[2].rel_err = 2.5e-7;
    timed(&rows[2], s_hand, 5);
    rows[3].variant = "naive";
    rows[3].ref_library = "cublas_fp32";
    rows[3].best_library = "cublas_tf32";
    rows[3].status = STATUS_FAIL;
    rows[3].rel_err = 0.5;
    snprintf(rows[3].message, sizeof rows[3].message, "%s", tricky);
    /* throughputs and percents by the code the run uses */
    plan_percents(&sgemm_op, &info.dev, rows, 4);

    for (int i = 0; i < 2; i++) {
        result_row *r = &red[i];
        results_row_clear(r);
        r->op = "reduce";
        r->math = "fp32";
        r->source = "builtin";
        r->dist = "skewed"; /* (reduce takes none; here to follow the field through every format) */
        r->rate = reduce_op.rate;
        r->peak = reduce_op.peak;
        snprintf(r->case_label, sizeof r->case_label, "reduce elems=67108864");
        r->elems = 1LL << 26;
        r->flops = (double)r->elems;
        r->bytes = 4.0 * (double)r->elems;
        r->rel_err = 1e-9;
        r->tolerance = 1.2874603271484375e-05;
    }
    red[0].variant = "thrust";
    red[0].library = 1;
    timed(&red[0], s_red, 3);
    red[1].variant = "interleaved";
    red[1].ref_library = "thrust";
    red[1].best_library = "cub";
    red[1].status = STATUS_SKIP;
    snprintf(red[1].message, sizeof red[1].message, "needs more scratch");
    red[1].rel_err = -1;
    plan_percents(&reduce_op, &info.dev, red, 2);
}

/* Writes the two cases in `format` and returns what was written (malloc'd). */
static char *render(cli_format format, int exit_status)
{
    FILE *f = tmpfile();
    report rp;
    long n;
    char *buf;
    report_begin(&rp, f, format, &info, 120LL << 20);
    report_case(&rp, rows, 4);
    report_case(&rp, red, 2);
    report_case(&rp, red, 0); /* nothing */
    report_end(&rp, exit_status);
    n = ftell(f);
    buf = malloc((size_t)n + 1);
    rewind(f);
    n = (long)fread(buf, 1, (size_t)n, f);
    buf[n] = '\0';
    fclose(f);
    return buf;
}

/* The line of text that starts with `start` (a copy in buf), or "" */
static const char *line_starting(const char *text, const char *start, char *buf, size_t len)
{
    const char *p = text;
    buf[0] = '\0';
    while (p && *p) {
        if (strncmp(p, start, strlen(start)) == 0) {
            const char *e = strchr(p, '\n');
            size_t l = e ? (size_t)(e - p) : strlen(p);
            snprintf(buf, len, "%.*s", (int)l, p);
            return buf;
        }
        p = strchr(p, '\n');
        if (p) p++;
    }
    return buf;
}

/* Splits a table line on runs of spaces into at most `cap` words. */
static int words(const char *line, char w[][32], int cap)
{
    int n = 0;
    const char *p = line;
    while (*p && n < cap) {
        size_t l;
        while (*p == ' ') p++;
        if (!*p) break;
        l = strcspn(p, " ");
        snprintf(w[n++], 32, "%.*s", (int)(l < 31 ? l : 31), p);
        p += l;
    }
    return n;
}

// ---- table ------------------------------------------------------------------------

static void test_table(void)
{
    char *t = render(CLI_FORMAT_TABLE, 1);
    char line[512], w[16][32];
    int n;
    CHECK(strcmp(line_starting(t, "compare ", line, sizeof line),
                 "compare " COMPARE_VERSION " (commit 0123456789ab), 2026-01-02T03:04:05Z, seed 2026, L2 flush on") == 0,
          "run line: [%s]", line);
    CHECK(strcmp(line_starting(t, "  (a ", line, sizeof line), "  (a 120 MiB memset before every sample)") == 0,
          "flush line: [%s]", line);
    CHECK(strcmp(line_starting(t, "device: ", line, sizeof line),
                 "device: NVIDIA H200 \"lab\" \\ rig, cc 9.0, 132 SMs, SM clock max 1980 MHz, memory 3201 MHz x 6016-bit, "
                 "L2 60.0 MiB, 139.8 GiB") == 0,
          "device line: [%s]", line);
    CHECK(strcmp(line_starting(t, "driver ", line, sizeof line), "driver 13.0, CUDA runtime 13.0, cuBLAS 13.1.0") == 0,
          "driver line: [%s]", line);
    CHECK(strcmp(line_starting(t, "ceilings: ", line, sizeof line),
                 "ceilings: FP32 66.9 TFLOP/s (132 SMs x 128 lanes x 2 x 1.980 GHz), memory 4814 GB/s "
                 "(3201 MHz x 2 x 6016 bit / 8)") == 0,
          "ceilings line: [%s]", line);
    /* the sm_90 tensor rates (2048, 4096, 4096, 8192 FLOP per clock per SM) at the maximum clock */
    CHECK(strcmp(line_starting(t, "tensor ceilings", line, sizeof line),
                 "tensor ceilings (dense, FP32 accumulate): tf32 535.3, fp16 1070.5, bf16 1070.5, fp8 2141.1 TFLOP/s "
                 "(132 SMs x FLOP per clock per SM x 1.980 GHz); %peak of a row is of its own math") == 0,
          "tensor ceilings line: [%s]", line);
    CHECK(!test_contains(t, "\npeaks: "), "a peaks note for a GPU the table knows:\n%s", t);
    CHECK(strcmp(line_starting(t, "sgemm m=n=k=2048", line, sizeof line),
                 "sgemm m=n=k=2048  (%ref = % of cublas_fp32, %best = % of cublas_tf32, %peak = % of the dense peak "
                 "of the row's math)") == 0,
          "sgemm title: [%s]", line);
    CHECK(test_contains(t, "reduce elems=67108864  (%ref = % of thrust, %best = % of cub, %peak = % of memory "
                           "bandwidth)"),
          "reduce title missing");

    n = words(line_starting(t, "variant ", line, sizeof line), w, 16);
    CHECK(n == 12 && strcmp(w[0], "variant") == 0 && strcmp(w[2], "median") == 0 && strcmp(w[4], "spread%") == 0 &&
              strcmp(w[5], "TFLOP/s") == 0 && strcmp(w[6], "%ref") == 0 && strcmp(w[11], "status") == 0, /* "rel err" is two words */
          "header: [%s]", line);
    CHECK(test_contains(t, " GB/s "), "reduce unit missing");

    /* library rows: figures, no percents of a library */
    n = words(line_starting(t, "cublas_fp32 ", line, sizeof line), w, 16);
    CHECK(n == 10, "cublas_fp32 row has %d cells: [%s]", n, line);
    if (n == 10) {
        CHECK(strcmp(w[1], "fp32") == 0 && strcmp(w[2], "1.0000") == 0 && strcmp(w[3], "10.0") == 0 &&
                  strcmp(w[4], "17.18") == 0 && strcmp(w[5], "-") == 0 && strcmp(w[6], "-") == 0 &&
                  strcmp(w[7], "25.7") == 0 && strcmp(w[8], "1.00e-07") == 0 && strcmp(w[9], "ok") == 0,
              "cublas_fp32 row: [%s]", line);
    }
    n = words(line_starting(t, "cublas_tf32 ", line, sizeof line), w, 16);
    CHECK(n == 10 && strcmp(w[1], "tf32") == 0 && strcmp(w[2], "0.5000") == 0 && strcmp(w[4], "34.36") == 0 &&
              strcmp(w[8], "2.50e-04") == 0,
          "cublas_tf32 row: [%s]", line);
    /* the hand row: 4 ms = 25% of 1 ms, 12.5% of 0.5 ms, 4.29 TFLOP/s = 6.4% of 66.9 */
    n = words(line_starting(t, "tiled32 ", line, sizeof line), w, 16);
    CHECK(n == 10 && strcmp(w[2], "4.0000") == 0 && strcmp(w[3], "0.0") == 0 && strcmp(w[4], "4.29") == 0 &&
              strcmp(w[5], "25.0") == 0 && strcmp(w[6], "12.5") == 0 && strcmp(w[7], "6.4") == 0 &&
              strcmp(w[8], "2.50e-07") == 0 && strcmp(w[9], "ok") == 0,
          "tiled32 row: [%s]", line);
    /* the FAIL row: no speed figure, the error, FAIL; its message below */
    n = words(line_starting(t, "naive ", line, sizeof line), w, 16);
    CHECK(n == 10 && strcmp(w[2], "-") == 0 && strcmp(w[4], "-") == 0 && strcmp(w[5], "-") == 0 &&
              strcmp(w[8], "5.00e-01") == 0 && strcmp(w[9], "FAIL") == 0,
          "naive row: [%s]", line);
    CHECK(test_contains(t, "  naive FAIL: wrong at (3, 7): got \"1.5\", want 2"), "FAIL message missing");
    /* reduce: 2^28 bytes in 0.25 ms = 1073.74 GB/s (>= 100: no decimals) */
    n = words(line_starting(t, "thrust ", line, sizeof line), w, 16);
    CHECK(n == 10 && strcmp(w[4], "1074") == 0 && strcmp(w[7], "22.3") == 0, "thrust row: [%s]", line);
    n = words(line_starting(t, "interleaved ", line, sizeof line), w, 16);
    CHECK(n == 10 && strcmp(w[8], "-") == 0 && strcmp(w[9], "SKIP") == 0, "interleaved row: [%s]", line);
    CHECK(test_contains(t, "  interleaved SKIP: needs more scratch"), "SKIP message missing");
    CHECK(!test_contains(t, "exit_status") && !test_contains(t, "{"), "table holds JSON");
    free(t);
}

// ---- markdown ----------------------------------------------------------------------

static void test_markdown(void)
{
    char *t = render(CLI_FORMAT_MD, 0);
    char line[512];
    CHECK(strcmp(line_starting(t, "device: ", line, sizeof line),
                 "device: NVIDIA H200 \"lab\" \\ rig, cc 9.0, 132 SMs, SM clock max 1980 MHz, memory 3201 MHz x 6016-bit, "
                 "L2 60.0 MiB, 139.8 GiB  ") == 0,
          "md device line (hard break): [%s]", line);
    CHECK(test_contains(t, "\n#### sgemm m=n=k=2048  (%ref"), "md sgemm heading");
    CHECK(test_contains(t, "\n#### reduce elems=67108864"), "md reduce heading");
    CHECK(test_contains(t, "\n| variant | math | median ms | spread % | TFLOP/s | % ref | % best | % peak | rel err | "
                           "status |\n|---|---|---:|---:|---:|---:|---:|---:|---:|---|\n"),
          "md sgemm table header");
    CHECK(test_contains(t, "| variant | math | median ms | spread % | GB/s |"), "md reduce table header");
    CHECK(test_contains(t, "\n| cublas_fp32 | fp32 | 1.0000 | 10.0 | 17.18 |  |  | 25.7 | 1.00e-07 | ok |\n"),
          "md cublas_fp32 row");
    CHECK(test_contains(t, "\n| tiled32 | fp32 | 4.0000 | 0.0 | 4.29 | 25.0 | 12.5 | 6.4 | 2.50e-07 | ok |\n"),
          "md tiled32 row");
    CHECK(test_contains(t, "\n| naive | fp32 |  |  |  |  |  |  | 5.00e-01 | FAIL |\n"), "md naive row");
    CHECK(test_contains(t, "\n| thrust | fp32 | 0.2500 | 0.0 | 1074 |  |  | 22.3 | 1.00e-09 | ok |\n"),
          "md thrust row");
    CHECK(test_contains(t, "\n>  naive FAIL: wrong at"), "md FAIL message");
    /* every table line has the same number of pipes (11) */
    {
        const char *p = t;
        int bad = 0, lines = 0;
        while (p && *p) {
            const char *e = strchr(p, '\n');
            size_t l = e ? (size_t)(e - p) : strlen(p);
            if (l > 0 && p[0] == '|') {
                int pipes = 0;
                for (size_t i = 0; i < l; i++) pipes += p[i] == '|';
                if (pipes != 11) bad++;
                lines++;
            }
            p = e ? e + 1 : NULL;
        }
        CHECK(lines == 2 * 2 + 4 + 2 && bad == 0, "md table lines %d, %d with a wrong pipe count", lines, bad);
    }
    free(t);
}

// ---- JSON, and JSON against CSV ---------------------------------------------------------

static char tmp_dir[64];

static char *csv_of_rows(void)
{
    char path[256], err[512] = "";
    csv_writer w;
    FILE *f;
    long n;
    char *buf = NULL;
    snprintf(path, sizeof path, "%s/rows.csv", tmp_dir);
    if (csv_open(&w, path, err, sizeof err)) {
        CHECK(0, "csv_open: %s", err);
        return NULL;
    }
    for (int i = 0; i < 4; i++) csv_write_row(&w, &info, &rows[i]);
    for (int i = 0; i < 2; i++) csv_write_row(&w, &info, &red[i]);
    CHECK(csv_commit(&w, err, sizeof err) == 0, "csv_commit: %s", err);
    f = fopen(path, "rb");
    if (f) {
        fseek(f, 0, SEEK_END);
        n = ftell(f);
        rewind(f);
        buf = malloc((size_t)n + 1);
        n = (long)fread(buf, 1, (size_t)n, f);
        buf[n] = '\0';
        fclose(f);
    }
    unlink(path);
    return buf;
}

/* Same number in a CSV cell and a JSON value: "" <-> null, else equal within
 * the 9 significant digits both print (integral counts are exact in CSV). */
static void same_number(const char *what, const char *csv, const jv *j)
{
    CHECK(j != NULL, "%s: missing in JSON", what);
    if (!j) return;
    if (csv[0] == '\0') {
        CHECK(j->type == J_NULL, "%s: CSV empty, JSON %s", what, j->str ? j->str : "(not a number)");
        return;
    }
    CHECK(j->type == J_NUM, "%s: CSV [%s], JSON not a number", what, csv);
    if (j->type != J_NUM) return;
    {
        double c = strtod(csv, NULL);
        CHECK(fabs(c - j->num) <= 5e-9 * fabs(c), "%s: CSV [%s] vs JSON [%s]", what, csv, j->str);
    }
}

static void test_json(void)
{
    static const char *const numeric[] = {"time_ms_median", "time_ms_min", "time_ms_q1", "time_ms_q3", "spread_pct",
                                          "tflops", "gbps", "gkeys_per_s", "pct_of_ref_library", "pct_of_best_library",
                                          "pct_of_peak", "rel_err", "tolerance", "flops", "bytes", "peak_tflops"};
    static const char *const strings[] = {"op", "variant", "math", "status", "message", "peak_math", "shape"};
    char *t = render(CLI_FORMAT_JSON, 1);
    char *c = csv_of_rows();
    jv root;
    const char *at = NULL;
    const char *e = json_parse(t, &root, &at);
    const jv *rws, *dev;
    test_csv_doc d;
    CHECK(e == NULL, "report JSON does not parse: %s at offset %ld: [%.40s]", e, at ? (long)(at - t) : -1L,
          at ? at : "");
    if (e) {
        fprintf(stderr, "%s\n", t);
        json_free(&root);
        free(t);
        free(c);
        return;
    }
    CHECK(root.type == J_OBJ, "top level is not an object");
    CHECK(jget(&root, "tool") && strcmp(jget(&root, "tool")->str, "compare") == 0, "tool");
    CHECK(jget(&root, "version") && strcmp(jget(&root, "version")->str, COMPARE_VERSION) == 0, "version");
    CHECK(jget(&root, "git_commit") && strcmp(jget(&root, "git_commit")->str, "0123456789ab") == 0, "git_commit");
    CHECK(jget(&root, "seed") && jget(&root, "seed")->num == 2026, "seed");
    CHECK(jget(&root, "flush_bytes") && jget(&root, "flush_bytes")->num == 125829120.0, "flush_bytes");
    CHECK(jget(&root, "exit_status") && jget(&root, "exit_status")->num == 1, "exit_status");
    dev = jget(&root, "device");
    CHECK(dev && jget(dev, "name") && strcmp(jget(dev, "name")->str, "NVIDIA H200 \"lab\" \\ rig") == 0,
          "device name does not round-trip");
    CHECK(dev && jget(dev, "cc") && strcmp(jget(dev, "cc")->str, "9.0") == 0, "device cc");
    CHECK(dev && jget(dev, "sms") && jget(dev, "sms")->num == 132, "device sms");
    {
        const jv *pk = dev ? jget(dev, "peak_tflops") : NULL;
        CHECK(pk && jget(pk, "fp32") && fabs(jget(pk, "fp32")->num - 66.90816) < 1e-9 && jget(pk, "tf32") &&
                  fabs(jget(pk, "tf32")->num - 535.26528) < 1e-9 && jget(pk, "fp8") &&
                  fabs(jget(pk, "fp8")->num - 2141.06112) < 1e-9,
              "device peak_tflops");
        CHECK(dev && jget(dev, "peaks_note") && jget(dev, "peaks_note")->type == J_STR &&
                  jget(dev, "peaks_note")->str[0] == '\0',
              "device peaks_note");
    }
    CHECK(dev && jget(dev, "peak_fp32_tflops") && fabs(jget(dev, "peak_fp32_tflops")->num - 66.90816) < 1e-9,
          "device peak");
    rws = jget(&root, "rows");
    CHECK(rws && rws->type == J_ARR && rws->n == 6, "rows: %d", rws ? rws->n : -1);
    if (rws && rws->n == 6) {
        const jv *r2 = &rws->items[2], *r3 = &rws->items[3];
        CHECK(strcmp(jget(r2, "variant")->str, "tiled32") == 0, "row 2 variant");
        CHECK(jget(r2, "shape") && strcmp(jget(r2, "shape")->str, "m=2048,n=2048,k=2048") == 0, "row 2 shape");
        CHECK(jget(r2, "time_ms_median")->num == 4.0 && jget(r2, "pct_of_ref_library")->num == 25.0 &&
                  jget(r2, "pct_of_best_library")->num == 12.5,
              "tiled32 figures");
        CHECK(jget(r2, "samples")->num == 5 && jget(r2, "samples_ms")->type == J_ARR &&
                  jget(r2, "samples_ms")->n == 5,
              "tiled32 samples");
        CHECK(strcmp(jget(r3, "message")->str, tricky) == 0, "the FAIL message does not round-trip: [%s]",
              jget(r3, "message")->str);
        CHECK(jget(r3, "time_ms_median")->type == J_NULL && jget(r3, "tflops")->type == J_NULL,
              "FAIL row has a speed figure");
        CHECK(jget(r3, "samples_ms")->n == 0, "FAIL row has samples");
        CHECK(jget(&rws->items[0], "ref_library")->type == J_NULL, "library row has a ref_library");
        CHECK(jget(&rws->items[5], "rel_err")->type == J_NULL, "SKIP row has a rel_err");
    }
    /* the raw escapes in the text */
    CHECK(test_contains(t, "\"wrong at (3, 7): got \\\"1.5\\\", want 2\\nC:\\\\tmp\\\\x\\tend\""),
          "message escapes in the JSON text");

    /* field by field against the CSV */
    CHECK(c != NULL, "no CSV");
    if (c && rws && rws->n == 6) {
        test_csv_parse(c, &d);
        CHECK(d.ok && d.nrec == 7, "CSV: ok %d, %d records", d.ok, d.nrec);
        for (int i = 0; i < 6 && i + 1 < d.nrec; i++) {
            const jv *r = &rws->items[i];
            char what[96];
            for (size_t k = 0; k < sizeof numeric / sizeof numeric[0]; k++) {
                snprintf(what, sizeof what, "row %d (%s) %s", i, test_csv_cell(&d, i + 1, "variant"), numeric[k]);
                same_number(what, test_csv_cell(&d, i + 1, numeric[k]), jget(r, numeric[k]));
            }
            for (size_t k = 0; k < sizeof strings / sizeof strings[0]; k++) {
                const jv *v = jget(r, strings[k]);
                CHECK(v && v->type == J_STR && strcmp(v->str, test_csv_cell(&d, i + 1, strings[k])) == 0,
                      "row %d %s: JSON [%s] vs CSV [%s]", i, strings[k], v && v->str ? v->str : "?",
                      test_csv_cell(&d, i + 1, strings[k]));
            }
            {
                const jv *lib = jget(r, "library");
                CHECK(lib && lib->type == J_NUM && lib->num == strtod(test_csv_cell(&d, i + 1, "library"), NULL),
                      "row %d library", i);
                const jv *dist = jget(r, "dist");
                const char *cdist = test_csv_cell(&d, i + 1, "dist");
                CHECK(dist && (cdist[0] ? dist->type == J_STR && strcmp(dist->str, cdist) == 0 : dist->type == J_NULL),
                      "row %d dist: CSV [%s]", i, cdist);
                CHECK(strcmp(test_csv_cell(&d, i + 1, "op"), "reduce") != 0 || strcmp(cdist, "skewed") == 0,
                      "row %d: reduce row without its dist in the CSV", i);
                const jv *ref = jget(r, "ref_library");
                const char *cref = test_csv_cell(&d, i + 1, "ref_library");
                CHECK(ref && (cref[0] ? ref->type == J_STR && strcmp(ref->str, cref) == 0 : ref->type == J_NULL),
                      "row %d ref_library: CSV [%s]", i, cref);
            }
        }
        CHECK(strcmp(test_csv_cell(&d, 4, "message"), tricky) == 0, "CSV message does not round-trip: [%s]",
              test_csv_cell(&d, 4, "message"));
        test_csv_doc_free(&d);
    }
    json_free(&root);
    free(t);
    free(c);

    /* a run with no rows is still a valid document */
    {
        FILE *f = tmpfile();
        report rp;
        char buf[8192];
        size_t n;
        jv v;
        info.l2_flush = 0;
        report_begin(&rp, f, CLI_FORMAT_JSON, &info, 120LL << 20);
        report_end(&rp, 77);
        rewind(f);
        n = fread(buf, 1, sizeof buf - 1, f);
        buf[n] = '\0';
        fclose(f);
        e = json_parse(buf, &v, NULL);
        CHECK(e == NULL, "empty JSON report does not parse: %s", e);
        CHECK(!e && jget(&v, "rows")->n == 0 && jget(&v, "exit_status")->num == 77 &&
                  jget(&v, "flush_bytes")->num == 0 && jget(&v, "l2_flush")->num == 0 &&
                  jget(&v, "interleave")->num == info.interleave,
              "empty JSON report fields");
        json_free(&v);
        info.l2_flush = 1;
    }
    /* report_json_string on every control character */
    {
        FILE *f = tmpfile();
        char in[40], buf[512];
        size_t n;
        jv v;
        for (int i = 0; i < 31; i++) in[i] = (char)(i + 1);
        in[31] = '"';
        in[32] = '\\';
        in[33] = '/';
        in[34] = '\0';
        report_json_string(f, in);
        rewind(f);
        n = fread(buf, 1, sizeof buf - 1, f);
        buf[n] = '\0';
        fclose(f);
        e = json_parse(buf, &v, NULL);
        CHECK(e == NULL && v.type == J_STR && strcmp(v.str, in) == 0, "control characters do not round-trip: %s", e);
        json_free(&v);
    }
}

// ---- the kernel that ran, and the clocks ----------------------------------------

/* The table report of one case (count rows; none: the device block alone), malloc'd. */
static char *render_case(const run_info *ri, const result_row *rs, int count)
{
    report rp;
    FILE *f = tmpfile();
    long n;
    char *t;
    report_begin(&rp, f, CLI_FORMAT_TABLE, ri, 0);
    if (count) report_case(&rp, rs, count);
    report_end(&rp, 0);
    n = ftell(f);
    t = malloc((size_t)n + 1);
    rewind(f);
    t[fread(t, 1, (size_t)n, f)] = '\0';
    fclose(f);
    return t;
}

static void test_notes(void)
{
    result_row nr[2];
    char line[512], *t, w[8][32];
    int n;
    run_info ni;
    test_h200_run_info(&ni, "NVIDIA H200");
    for (int i = 0; i < 2; i++) {
        results_row_clear(&nr[i]);
        nr[i].op = "sgemm";
        nr[i].math = "tf32";
        nr[i].source = "builtin";
        snprintf(nr[i].case_label, sizeof nr[i].case_label, "sgemm m=n=k=4097");
        nr[i].m = nr[i].n = nr[i].k = 4097;
        nr[i].flops = metrics_gemm_flops(4097, 4097, 4097);
        nr[i].rel_err = 1e-4;
        nr[i].tolerance = 1e-3;
        nr[i].mem_clock_mhz = 3201;
        nr[i].temp_c = 40 + i * 15;
        nr[i].power_w = 300 + i * 300;
    }
    nr[0].variant = "cublas_tf32";
    nr[0].library = 1;
    nr[0].sm_clock_mhz = 1980;
    timed(&nr[0], s_tf32, 5);
    nr[1].variant = "tf32_tma";
    nr[1].ref_library = nr[1].best_library = "cublas_tf32";
    snprintf(nr[1].kernel, sizeof nr[1].kernel, "tf32_mma");
    snprintf(nr[1].kernel_note, sizeof nr[1].kernel_note, "k not a multiple of 4");
    nr[1].sm_clock_mhz = 1600;
    nr[1].sm_clock_min_mhz = 1400;
    snprintf(nr[1].throttle, sizeof nr[1].throttle, "sw_power_cap");
    nr[1].throttled = 1;
    timed(&nr[1], s_hand, 5);
    plan_percents(&sgemm_op, &ni.dev, nr, 2);
    t = render_case(&ni, nr, 2);
    CHECK(test_contains(t, "\nclocks: observed through NVML while each variant is timed (never set)"),
          "no clocks line in the device block:\n%s", t);
    line_starting(t, "tf32_tma ", line, sizeof line);
    CHECK(strlen(line) > 3 && strcmp(line + strlen(line) - 5, "ok *!") == 0, "tf32_tma row not marked: [%s]", line);
    line_starting(t, "cublas_tf32 ", line, sizeof line);
    CHECK(strlen(line) > 2 && strcmp(line + strlen(line) - 2, "ok") == 0, "cublas_tf32 row marked: [%s]", line);
    CHECK(test_contains(t, "\n  * tf32_tma ran tf32_mma: k not a multiple of 4\n"), "no fallback note:\n%s", t);
    CHECK(test_contains(t, "\n  ! tf32_tma: measured while the GPU slowed its clocks (sw_power_cap; SM clock 1600 "
                           "MHz mean, 1400 min)\n"),
          "no throttle warning:\n%s", t);
    CHECK(test_contains(t, "\n  clocks while timed: SM 1600-1980 MHz (max 1980), memory 3201-3201 MHz, up to 55 C, "
                           "300-600 W\n"),
          "no clocks line under the case:\n%s", t);
    /* 1600 against 1980 MHz: the percent compares different clocks, said once
     * (its reference and fastest library are the same row) */
    CHECK(test_contains(t, "\n  ~ tf32_tma ran at 1600 MHz (mean SM clock), cublas_tf32 at 1980 MHz: the percent "
                           "against it compares the two at different clocks (interleaved timing, the default, "
                           "times a case's variants alike)\n"),
          "no clock-gap note:\n%s", t);
    CHECK(strstr(strstr(t, "\n  ~ ") + 1, "\n  ~ ") == NULL, "the clock-gap note twice:\n%s", t);
    /* within 5%: no note */
    nr[1].sm_clock_mhz = 1900;
    free(t);
    t = render_case(&ni, nr, 2);
    CHECK(!test_contains(t, "\n  ~ "), "a clock-gap note within 5%%:\n%s", t);
    nr[1].sm_clock_mhz = 1600;
    /* %peak of the TF32 row: against sm_90's dense TF32 rate (2048 FLOP per
     * clock per SM) at its measured clock: 2 x 4097^3 FLOPs in 4 ms at 1600 MHz */
    CHECK(fabs(nr[1].pct_peak - metrics_tflops(nr[1].flops, 4.0) / metrics_peak_tflops(132, 2048.0, 1600000.0) *
                                     100.0) < 1e-9,
          "%%peak %.9g not of TF32 at the measured clock", nr[1].pct_peak);
    CHECK(!test_contains(t, "left empty"), "a missing-peak note where every ceiling is known:\n%s", t);
    free(t);

    /* a GPU the peak table does not know: the device block says which maths
     * have no ceiling, the TF32 rows get no %peak, and the case says why */
    {
        run_info ui;
        result_row ur[2];
        test_h200_run_info(&ui, "NVIDIA B200");
        ui.dev.cc_major = 10;
        peaks_fill(&ui.dev);
        ur[0] = nr[0];
        ur[1] = nr[1];
        ur[0].peak = ur[1].peak = sgemm_op.peak; /* as run.c sets them */
        plan_percents(&sgemm_op, &ui.dev, ur, 2);
        CHECK(ur[0].pct_peak < 0 && ur[1].pct_peak < 0, "unknown GPU: %%peak %g %g", ur[0].pct_peak, ur[1].pct_peak);
        t = render_case(&ui, ur, 2);
        CHECK(strcmp(line_starting(t, "peaks: ", line, sizeof line),
                     "peaks: no tf32, fp16, bf16, fp8 ceiling for NVIDIA B200 (cc 10.0) in the peak table "
                     "(src/core/peaks.c): %peak of those rows is left empty") == 0,
              "peaks note: [%s]", line);
        CHECK(!test_contains(t, "tensor ceilings"), "tensor ceilings for an unknown GPU:\n%s", t);
        CHECK(test_contains(t, "\n  %peak of tf32 rows left empty: the peak table has no ceiling for tf32 on this GPU "
                               "(device block)\n"),
              "no missing-peak note under the case:\n%s", t);
        CHECK(strstr(strstr(t, "left empty: ") + 1, "left empty: ") == NULL, "the missing-peak note twice:\n%s", t);
        line_starting(t, "tf32_tma ", line, sizeof line);
        n = sscanf(line, "%31s %31s %31s %31s %31s %31s %31s %31s", w[0], w[1], w[2], w[3], w[4], w[5], w[6], w[7]);
        CHECK(n == 8 && strcmp(w[7], "-") == 0, "tf32_tma's %%peak cell on an unknown GPU: [%s]", line);
        free(t);
    }

    /* a pair the op compares: "overlap: 1.25x the speed of pinned" */
    {
        static double s4[3] = {4, 4, 4}, s5[3] = {5, 5, 5};
        result_row tr[2];
        for (int i = 0; i < 2; i++) {
            results_row_clear(&tr[i]);
            tr[i].op = "transfer";
            tr[i].math = "fp32";
            tr[i].rate = OP_RATE_GBPS;
            tr[i].elems = 1000;
            tr[i].bytes = 8000;
            snprintf(tr[i].case_label, sizeof tr[i].case_label, "transfer elems=1000");
        }
        tr[0].variant = "pinned";
        timed(&tr[0], s5, 3);
        tr[1].variant = "overlap";
        tr[1].speedup_vs = "pinned";
        timed(&tr[1], s4, 3);
        t = render_case(&ni, tr, 2);
        CHECK(test_contains(t, "\n  overlap: 1.25x the speed of pinned\n"), "no speed-up line:\n%s", t);
        free(t);
    }

    /* without NVML: one line says why */
    snprintf(ni.dev.clocks_note, sizeof ni.dev.clocks_note, "no libnvidia-ml: libnvidia-ml.so.1: cannot open");
    t = render_case(&ni, NULL, 0);
    CHECK(test_contains(t, "\nclocks: not observed (no libnvidia-ml: libnvidia-ml.so.1: cannot open): rows carry no "
                           "clocks"),
          "no 'not observed' line:\n%s", t);
    free(t);
}

/* --metrics: the table's bound column (only then), each row's counters in a
 * line, the reason of rows without counters once, and the hints; without
 * --metrics none of it (the CSV has the columns always). */
static void test_metrics_table(void)
{
    result_row mr[3];
    run_info mi;
    char line[512], *t;
    test_h200_run_info(&mi, "NVIDIA H200");
    for (int i = 0; i < 3; i++) {
        results_row_clear(&mr[i]);
        mr[i].op = "reduce";
        mr[i].math = "fp32";
        mr[i].source = "builtin";
        mr[i].rate = red[0].rate;
        mr[i].peak = red[0].peak;
        snprintf(mr[i].case_label, sizeof mr[i].case_label, "reduce elems=2^26");
        mr[i].elems = 1 << 26;
        mr[i].flops = 1 << 26;
        mr[i].bytes = 4.0 * (1 << 26);
        mr[i].status = STATUS_OK;
        timed(&mr[i], s_fp32, 5);
    }
    mr[0].variant = "cub";
    mr[0].library = 1;
    snprintf(mr[0].bound, sizeof mr[0].bound, "memory 93%%");
    mr[0].dram_read_bytes = 268435456;
    mr[0].dram_write_bytes = 1048576;
    mr[0].l2_bytes = 270532608;
    mr[0].occupancy_pct = 88;
    mr[0].sm_throughput_pct = 21;
    mr[1].variant = "interleaved";
    mr[1].ref_library = "cub";
    snprintf(mr[1].bound, sizeof mr[1].bound, "memory 20%%");
    mr[1].dram_read_bytes = 3.0 * 268435456;
    mr[1].dram_write_bytes = 0;
    snprintf(mr[1].hint, sizeof mr[1].hint, "DRAM traffic 3.0x the minimum bytes (dram__bytes_read.sum + dram__bytes_write.sum)");
    mr[2].variant = "shuffle";
    mr[2].ref_library = "cub";
    snprintf(mr[2].metrics_note, sizeof mr[2].metrics_note, "counters not permitted: CUPTI_ERROR_INSUFFICIENT_PRIVILEGES");
    mi.metrics = 1;
    t = render_case(&mi, mr, 3);
    CHECK(strstr(line_starting(t, "variant ", line, sizeof line), "bound") != NULL, "no bound column: [%s]", line);
    CHECK(strstr(line_starting(t, "cub ", line, sizeof line), "memory 93%") != NULL, "cub's bound: [%s]", line);
    CHECK(strstr(line_starting(t, "shuffle ", line, sizeof line), " -  ") != NULL, "shuffle has no bound: [%s]", line);
    CHECK(strstr(line_starting(t, "  cub: DRAM ", line, sizeof line), "268.4 MB read, 1.0 MB written (1.00x the minimum)") &&
              strstr(line, "occupancy 88%, SM throughput 21%"),
          "cub's counters: [%s]", line);
    CHECK(test_contains(t, "  ? interleaved: DRAM traffic 3.0x"), "the hint line:\n%s", t);
    CHECK(test_count(t, "CUPTI_ERROR_INSUFFICIENT_PRIVILEGES") == 1, "the reason once:\n%s", t);
    free(t);
    mi.metrics = 0;
    t = render_case(&mi, mr, 3);
    CHECK(!test_contains(t, "bound") && !test_contains(t, "DRAM") && !test_contains(t, "? interleaved"),
          "without --metrics the table shows none of it:\n%s", t);
    free(t);
}

int main(void)
{
    snprintf(tmp_dir, sizeof tmp_dir, "/tmp/test_report.XXXXXX");
    if (!mkdtemp(tmp_dir)) {
        perror("mkdtemp");
        return 1;
    }
    make_rows();
    test_json_parser_itself();
    test_table();
    test_notes();
    test_markdown();
    test_json();
    test_metrics_table();
    rmdir(tmp_dir);
    return test_finish("test_report");
}
