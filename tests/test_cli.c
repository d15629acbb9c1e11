/* tests/test_cli.c (cpu): the command line.
 *
 * (a) cli_parse called directly with a small table of known variants:
 *     defaults, every option's accepted forms, --opt=value, how --variants
 *     selects the ops when --ops is absent, the --reps / --max-reps bounds.
 * (b) The bad-input table: each row is an argv run through the compare
 *     binary, which must exit 2 (no crash) with a stderr message naming the
 *     bad argument. Usage errors are found before any GPU is touched, so this
 *     runs on a machine with no GPU. Refused --csv targets are never created
 *     and a foreign file is left byte for byte as it was.
 * (c) Good invocations that need no GPU: --help, --version, --list. */
#include "catalog.h"
#include "cli.h"
#include "testlib.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

// ---- (a) cli_parse directly ---------------------------------------------------

/* A catalog shaped like the real one (three ops, a name in two ops, a hidden
 * test-only row), so that parsing and resolving are tested without the GPU
 * library. */
static const op_info test_ops[] = {
    {"sgemm", OP_SIZE_GEMM, OP_RATE_TFLOPS, OP_PEAK_FP32, "cublas_fp32", "cublas_tf32", {NULL}, {NULL, NULL}, "",
     {OP_AXIS_M, OP_AXIS_N, OP_AXIS_K}},
    {"reduce", OP_SIZE_ELEMS, OP_RATE_GBPS, OP_PEAK_MEMORY, "thrust", "cub", {NULL}, {NULL, NULL}, "", {OP_AXIS_ELEMS}},
    {"sort", OP_SIZE_ELEMS, OP_RATE_GKEYS, OP_PEAK_NONE, "thrust", "cub", {"u32", "f32"}, {NULL, NULL}, "",
     {OP_AXIS_ELEMS, OP_AXIS_TYPE}},
};
static const variant_info test_variants[] = {
    {"sgemm", "cublas_fp32", 1, "fp32", NULL, 0, "builtin", ""}, {"sgemm", "cublas_tf32", 1, "tf32", NULL, 0, "builtin", ""},
    {"sgemm", "naive", 0, "fp32", NULL, 0, "builtin", ""},       {"sgemm", "tiled32", 0, "fp32", NULL, 0, "builtin", ""},
    {"sgemm", "test_fault", 0, "fp32", NULL, 1, "builtin", ""},  {"reduce", "thrust", 1, "fp32", NULL, 0, "builtin", ""},
    {"reduce", "cub", 1, "fp32", NULL, 0, "builtin", ""},        {"reduce", "interleaved", 0, "fp32", NULL, 0, "builtin", ""},
    {"sort", "thrust", 1, "types", NULL, 0, "builtin", ""},      {"sort", "cub", 1, "types", NULL, 0, "builtin", ""},
    {"sort", "radix", 0, "types", NULL, 0, "builtin", ""},
    /* search candidates of two families: hidden unless --candidates names the family */
    {"sgemm", "c_fp32_a", 0, "fp32", NULL, 0, "candidates:tuned", ""},
    {"sgemm", "c_tf32_a", 0, "tf32", NULL, 0, "candidates:tf32_mma", ""},
    {"sgemm", "c_tf32_b", 0, "tf32", NULL, 0, "candidates:tf32_mma", ""},
};
static const catalog known = {test_ops, 3, test_variants, (int)(sizeof test_variants / sizeof test_variants[0])};

/* 1 if exactly the ops named in `list` ("a,b") run */
static int ops_are(const cli_options *o, const char *list)
{
    unsigned want = 0;
    char buf[128], *save = NULL;
    snprintf(buf, sizeof buf, "%s", list);
    for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) want |= 1u << catalog_op(&known, t);
    return o->op_mask == want;
}

/* cli_parse, then cli_resolve against the test catalog, as main does */
static int parse_resolve(int argc, char **argv, cli_options *o, char *err, size_t err_len)
{
    int rc = cli_parse(argc, argv, o, err, err_len);
    return rc ? rc : cli_resolve(o, &known, err, err_len);
}

/* cli_parse writes into argv strings (comma lists), so copy them first. */
typedef struct {
    char store[4096];
    char *argv[64];
    int argc;
} args_copy;

static void args_make(args_copy *a, const char *const *args)
{
    size_t used = 0;
    a->argc = 0;
    a->argv[a->argc++] = strcpy(a->store, "compare");
    used = strlen("compare") + 1;
    for (int i = 0; args[i]; i++) {
        size_t l = strlen(args[i]) + 1;
        memcpy(a->store + used, args[i], l);
        a->argv[a->argc++] = a->store + used;
        used += l;
    }
    a->argv[a->argc] = NULL;
}

/* Parses args (NULL-terminated, without argv[0]); returns cli_parse's code. */
static int parse(cli_options *o, char *err, size_t err_len, const char *const *args)
{
    static args_copy a; /* o->variants point into it: keep it alive */
    args_make(&a, args);
    return parse_resolve(a.argc, a.argv, o, err, err_len);
}

#define PARSE_OK(o, ...)                                                              \
    do {                                                                              \
        static const char *const a_[] = {__VA_ARGS__, NULL};                          \
        char e_[1024] = "";                                                           \
        int r_ = parse(o, e_, sizeof e_, a_);                                         \
        CHECK(r_ == 0, "%s ...: rc %d: %s", a_[0], r_, e_);                           \
    } while (0)

#define PARSE_BAD(needle, ...)                                                        \
    do {                                                                              \
        static const char *const a_[] = {__VA_ARGS__, NULL};                          \
        char e_[1024] = "";                                                           \
        cli_options o_;                                                               \
        int r_ = parse(&o_, e_, sizeof e_, a_);                                       \
        CHECK(r_ == 2, "%s ...: accepted (rc %d)", a_[0], r_);                        \
        CHECK(test_contains(e_, needle), "%s ...: \"%s\" lacks \"%s\"", a_[0], e_, needle); \
    } while (0)

static void test_parse_direct(void)
{
    cli_options o;
    char err[1024] = "";
    static const char *const none[] = {NULL};

    /* defaults */
    CHECK(parse(&o, err, sizeof err, none) == 0, "no arguments: %s", err);
    /* no shape, no length: each op's axis defaults (test_plan checks what they give) */
    CHECK(o.gemm_count == 0 && o.elems_count == 0 && o.axis_arg_count == 0, "defaults: %d shapes, %d lengths, %d axes",
          o.gemm_count, o.elems_count, o.axis_arg_count);
    CHECK(ops_are(&o, "sgemm,reduce,sort"), "default ops %u", o.op_mask);
    CHECK(o.variant_count == 0, "default variants %d", o.variant_count);
    CHECK(o.flush == 1, "flush off by default");
    CHECK(o.seed == 2026, "default seed %llu", o.seed);
    CHECK(o.warmup == 2 && o.min_reps == 10 && o.max_reps == 200, "default reps %d %d %d", o.warmup, o.min_reps,
          o.max_reps);
    CHECK(o.max_time_s == 2.0 && o.noise_pct == 1.0, "default time %g noise %g", o.max_time_s, o.noise_pct);
    CHECK(o.device == 0 && o.csv_path == NULL && o.format == CLI_FORMAT_TABLE, "default device/csv/format");
    CHECK(o.progress == 1 && o.check_only == 0 && o.list == 0 && o.help == 0 && o.version == 0 && o.soak_s == 0,
          "default modes");

    /* sizes: lists, ranges, both option forms */
    PARSE_OK(&o, "--n", "1024,2048,4096");
    CHECK(o.gemm_count == 3 && o.gemm[0].n == 1024 && o.gemm[1].n == 2048 && o.gemm[2].n == 4096, "--n list: %d", o.gemm_count);
    PARSE_OK(&o, "--n", "512:8192");
    CHECK(o.gemm_count == 5 && o.gemm[0].n == 512 && o.gemm[4].n == 8192, "--n range: %d", o.gemm_count);
    PARSE_OK(&o, "--n=4096");
    CHECK(o.gemm_count == 1 && o.gemm[0].n == 4096, "--n=4096: %lld", o.gemm[0].n);
    PARSE_OK(&o, "--n", "1,2^10,3:12");
    CHECK(o.gemm_count == 5 && o.gemm[0].n == 1 && o.gemm[1].n == 1024 && o.gemm[2].n == 3 && o.gemm[3].n == 6 && o.gemm[4].n == 12,
          "--n mixed: %d", o.gemm_count);
    PARSE_OK(&o, "--n", "46340"); /* the largest square whose matrices have at most 2^31-1 elements */
    CHECK(o.gemm[0].n == 46340 && o.gemm[0].m == 46340 && o.gemm[0].k == 46340, "--n max");
    PARSE_OK(&o, "--n", "1024:4096:1024");
    CHECK(o.gemm_count == 4 && o.gemm[1].n == 2048 && o.gemm[3].m == 4096, "--n stepped range: %d", o.gemm_count);

    /* shapes: --shape, the --m/--n/--k product, the union in command-line order */
    PARSE_OK(&o, "--shape", "4096x14336x4096");
    CHECK(o.gemm_count == 1 && o.gemm[0].m == 4096 && o.gemm[0].n == 14336 && o.gemm[0].k == 4096, "--shape");
    PARSE_OK(&o, "--m", "1024,2048", "--n", "4096", "--k", "512");
    CHECK(o.gemm_count == 2 && o.gemm[0].m == 1024 && o.gemm[1].m == 2048 && o.gemm[1].n == 4096 &&
              o.gemm[1].k == 512,
          "--m --n --k: %d", o.gemm_count);
    PARSE_OK(&o, "--shape", "1x2x3", "--n", "8,16");
    CHECK(o.gemm_count == 3 && o.gemm[0].k == 3 && o.gemm[1].m == 8 && o.gemm[2].k == 16, "--shape --n: %d",
          o.gemm_count);
    PARSE_OK(&o, "--n", "8,16", "--shape", "1x2x3");
    CHECK(o.gemm_count == 3 && o.gemm[0].k == 8 && o.gemm[2].m == 1 && o.gemm[2].k == 3, "--n --shape: %d",
          o.gemm_count);
    PARSE_OK(&o, "--elems=64M");
    CHECK(o.elems_count == 1 && o.elems[0] == (64LL << 20), "--elems=64M: %lld", o.elems[0]);
    PARSE_OK(&o, "--elems", "1:8,2^32");
    CHECK(o.elems_count == 5 && o.elems[3] == 8 && o.elems[4] == (1LL << 32), "--elems list: %d", o.elems_count);
    CHECK(o.gemm_count == 0, "--elems gave a shape");

    /* ops */
    PARSE_OK(&o, "--ops", "reduce,sort");
    CHECK(ops_are(&o, "reduce,sort"), "--ops reduce,sort: %u", o.op_mask);
    PARSE_OK(&o, "--ops=sgemm");
    CHECK(ops_are(&o, "sgemm"), "--ops=sgemm: %d", o.op_mask);
    PARSE_OK(&o, "--ops", "sgemm", "--n", "1024");
    CHECK(ops_are(&o, "sgemm")&& o.gemm[0].n == 1024, "--ops sgemm --n 1024");
    PARSE_OK(&o, "--ops", "sort", "--elems", "1M");
    CHECK(ops_are(&o, "sort")&& o.elems[0] == (1LL << 20), "--ops sort --elems 1M");

    /* --variants without --ops selects the variants' ops */
    PARSE_OK(&o, "--variants", "naive");
    CHECK(ops_are(&o, "sgemm")&& o.variant_count == 1 && strcmp(o.variants[0], "naive") == 0,
          "--variants naive: ops %d count %d", o.op_mask, o.variant_count);
    PARSE_OK(&o, "--variants=naive,tiled32");
    CHECK(ops_are(&o, "sgemm")&& o.variant_count == 2 && strcmp(o.variants[1], "tiled32") == 0,
          "--variants=naive,tiled32: ops %d count %d", o.op_mask, o.variant_count);
    PARSE_OK(&o, "--variants", "radix");
    CHECK(ops_are(&o, "sort"), "--variants radix: ops %d", o.op_mask);
    PARSE_OK(&o, "--variants", "interleaved,naive");
    CHECK(ops_are(&o, "sgemm,reduce"), "--variants interleaved,naive: ops %d", o.op_mask);
    PARSE_OK(&o, "--variants", "thrust"); /* a name in two ops: both */
    CHECK(ops_are(&o, "reduce,sort"), "--variants thrust: ops %d", o.op_mask);
    PARSE_OK(&o, "--variants", "thrust", "--ops", "sort");
    CHECK(ops_are(&o, "sort"), "--variants thrust --ops sort: ops %d", o.op_mask);
    PARSE_OK(&o, "--variants", "naive", "--n", "512");
    CHECK(ops_are(&o, "sgemm")&& o.gemm[0].n == 512, "--variants naive --n 512");
    PARSE_OK(&o, "--variants", "naive", "--ops", "sgemm,reduce");
    CHECK(ops_are(&o, "sgemm,reduce"), "explicit --ops kept: %d", o.op_mask);

    /* numbers and switches */
    PARSE_OK(&o, "--warmup", "0", "--reps", "5", "--max-reps", "7", "--max-time", "0.5", "--noise", "2.5", "--seed",
             "0", "--device", "3", "--no-flush", "--quiet", "--check-only", "--format", "json");
    CHECK(o.warmup == 0 && o.min_reps == 5 && o.max_reps == 7, "reps: %d %d %d", o.warmup, o.min_reps, o.max_reps);
    CHECK(o.max_time_s == 0.5 && o.noise_pct == 2.5, "max-time %g noise %g", o.max_time_s, o.noise_pct);
    CHECK(o.seed == 0 && o.device == 3 && o.flush == 0 && o.progress == 0 && o.check_only == 1,
          "seed %llu device %d flush %d progress %d check %d", o.seed, o.device, o.flush, o.progress, o.check_only);
    CHECK(o.format == CLI_FORMAT_JSON, "format %d", (int)o.format);
    CHECK(o.interleave == 0, "--check-only left interleaved timing on");
    PARSE_OK(&o, "--max-reps", "9");
    CHECK(o.interleave == 1 && o.max_reps == 9, "interleaved is not the default: %d", o.interleave);
    PARSE_OK(&o, "--interleave", "--max-reps", "9");
    CHECK(o.interleave == 1 && o.max_reps == 9, "--interleave: %d", o.interleave);
    PARSE_OK(&o, "--sequential");
    CHECK(o.interleave == 0, "--sequential: %d", o.interleave);
    PARSE_OK(&o, "--profile");
    CHECK(o.interleave == 0, "--profile left interleaved timing on");
    PARSE_OK(&o, "--discard-throttled");
    CHECK(o.interleave == 0, "--discard-throttled left interleaved timing on");
    CHECK(o.metrics == 0, "--metrics is on by default");
    PARSE_OK(&o, "--metrics");
    CHECK(o.metrics == 1 && o.interleave == 1, "--metrics: %d, interleave %d (it keeps the timing order)", o.metrics,
          o.interleave);
    PARSE_OK(&o, "--format=md", "--seed=18446744073709551615", "--max-time=0", "--noise=0", "--device=1023");
    CHECK(o.format == CLI_FORMAT_MD && o.seed == 18446744073709551615ULL && o.max_time_s == 0.0 &&
              o.noise_pct == 0.0 && o.device == 1023,
          "= forms: format %d seed %llu", (int)o.format, o.seed);
    PARSE_OK(&o, "--device", "3,1,2", "--parallel-devices", "--fleet-threshold", "2.5", "--fleet-serial",
             "--fleet-timeout", "90");
    CHECK(o.device_count == 3 && o.devices[0] == 3 && o.devices[1] == 1 && o.devices[2] == 2 && o.device == 3 &&
              o.device_given && !o.device_all && o.parallel_devices && o.fleet_threshold_pct == 2.5 &&
              o.fleet_serial && o.fleet_timeout_s == 90.0,
          "fleet options: %d devices, threshold %g", o.device_count, o.fleet_threshold_pct);
    PARSE_OK(&o, "--device=all");
    CHECK(o.device_all && o.device_given && o.device_count == 0, "--device=all");
    PARSE_OK(&o, "--n", "64");
    CHECK(o.device_count == 1 && o.devices[0] == 0 && !o.device_given && !o.parallel_devices &&
              o.fleet_threshold_pct == 5.0 && o.fleet_timeout_s == 600.0 && !o.fleet_serial,
          "fleet defaults");
    PARSE_OK(&o, "--format", "table");
    CHECK(o.format == CLI_FORMAT_TABLE, "format table");
    /* an option's value that looks like a size option sizes nothing */
    PARSE_OK(&o, "--ops", "reduce", "--csv", "--n");
    CHECK(o.gemm_option == NULL && o.csv_path && strcmp(o.csv_path, "--n") == 0, "--csv --n: a file name");
    PARSE_OK(&o, "--ops", "sgemm", "--csv", "--elems", "--shape", "2x3x4", "--n", "8");
    CHECK(o.gemm_option && strcmp(o.gemm_option, "--shape") == 0, "first GEMM size option: %s",
          o.gemm_option ? o.gemm_option : "(none)");
    PARSE_OK(&o, "--reps", "1", "--max-reps", "1");
    CHECK(o.min_reps == 1 && o.max_reps == 1, "reps 1/1");
    /* one bound alone moves the other's default out of the way */
    PARSE_OK(&o, "--reps", "300");
    CHECK(o.min_reps == 300 && o.max_reps == 300, "--reps 300 alone: %d..%d", o.min_reps, o.max_reps);
    PARSE_OK(&o, "--max-reps", "5");
    CHECK(o.min_reps == 5 && o.max_reps == 5, "--max-reps 5 alone: %d..%d", o.min_reps, o.max_reps);
    PARSE_OK(&o, "--reps", "20");
    CHECK(o.min_reps == 20 && o.max_reps == 200, "--reps 20 keeps max 200: %d", o.max_reps);

    PARSE_OK(&o, "--soak", "60");
    CHECK(o.soak_s == 60.0, "--soak 60: %g", o.soak_s);

    /* informational modes */
    PARSE_OK(&o, "--list");
    CHECK(o.list == 1, "--list");
    PARSE_OK(&o, "--help");
    CHECK(o.help == 1, "--help");
    PARSE_OK(&o, "-h");
    CHECK(o.help == 1, "-h");
    PARSE_OK(&o, "--version");
    CHECK(o.version == 1, "--version");

    /* the same refusals, seen from the function */
    PARSE_BAD("--n '0'", "--n", "0");
    PARSE_BAD("'2048x'", "--n=2048x");
    PARSE_BAD("--n needs a value", "--n");
    PARSE_BAD("--n given more than once", "--n", "1", "--n=2");
    PARSE_BAD("'foo'", "--ops", "foo");
    PARSE_BAD("known: cublas_fp32,cublas_tf32,naive,tiled32,thrust,cub,interleaved,radix", "--variants", "foo");
    PARSE_BAD("--ops does not include sgemm", "--variants", "naive", "--ops", "reduce");
    PARSE_BAD("--n is given but no op it sizes is run (it sizes sgemm)", "--variants", "thrust", "--n", "1024");
    PARSE_BAD("--elems is given but no op it sizes is run (it sizes reduce, sort)", "--variants", "naive", "--elems",
              "1M");
    PARSE_BAD("'test_fault'", "--variants", "test_fault"); /* hidden */
    {
        cli_options o2;
        char e2[512] = "";
        static const char *const a2[] = {"--variants", "test_fault", NULL};
        static args_copy ac;
        args_make(&ac, a2);
        CHECK(cli_parse(ac.argc, ac.argv, &o2, e2, sizeof e2) == 0, "parse: %s", e2);
        o2.test_variants = 1;
        CHECK(cli_resolve(&o2, &known, e2, sizeof e2) == 0 && ops_are(&o2, "sgemm"),
              "test_fault with COMPARE_TEST_VARIANTS: %s", e2);
    }
    /* --candidates: families checked against the catalog, their rows visible, their op run */
    PARSE_BAD("'c_fp32_a'", "--variants", "c_fp32_a"); /* hidden without --candidates */
    PARSE_OK(&o, "--candidates", "tuned");
    CHECK(o.candidate_count == 1 && strcmp(o.candidates[0], "tuned") == 0 && ops_are(&o, "sgemm"),
          "--candidates tuned: %d families, ops %u", o.candidate_count, o.op_mask);
    CHECK(cli_variant_visible(&o, &test_variants[11]) && !cli_variant_visible(&o, &test_variants[12]) &&
              cli_variant_visible(&o, &test_variants[2]),
          "--candidates tuned: its rows visible, the other family's hidden, the shipped rows visible");
    PARSE_OK(&o, "--candidates", "tf32_mma,tuned", "--variants", "c_tf32_b,naive");
    CHECK(o.candidate_count == 2 && o.variant_count == 2 && ops_are(&o, "sgemm"), "two families, two variants");
    PARSE_OK(&o, "--candidates=tuned", "--variants", "interleaved");
    CHECK(ops_are(&o, "sgemm,reduce"), "--candidates with another op's variant: ops %u", o.op_mask);
    PARSE_BAD("--candidates: unknown family 'bogus' (known: tuned, tf32_mma)", "--candidates", "bogus");
    PARSE_BAD("--candidates: unknown family 'c_fp32_a'", "--candidates", "c_fp32_a");
    PARSE_BAD("--candidates 'tuned' is a family of sgemm but --ops does not include sgemm", "--candidates", "tuned",
              "--ops", "reduce");
    PARSE_BAD("--candidates: 'tuned' is listed twice", "--candidates", "tuned,tuned");
    PARSE_BAD("--candidates: empty list", "--candidates", "");
    PARSE_BAD("--candidates given more than once", "--candidates", "tuned", "--candidates", "tf32_mma");
    PARSE_BAD("unknown variant 'c_tf32_a'", "--candidates", "tuned", "--variants", "c_tf32_a");
    PARSE_BAD("--reps 10 is more than --max-reps 5", "--reps", "10", "--max-reps", "5");
    PARSE_BAD("--warmup '\t2'", "--warmup", "\t2");
    PARSE_BAD("--max-time '0x10'", "--max-time", "0x10");
    PARSE_BAD("--noise 'inf'", "--noise", "inf");
    PARSE_BAD("--noise '+1'", "--noise", "+1");
    PARSE_BAD("--reps '+5'", "--reps", "+5");

}

// ---- (b) the bad-input table ------------------------------------------------------
//
// Every row runs in process through cli_parse + cli_resolve with the test
// catalog (fast), and rows marked BIN also through the compare binary (whose
// own catalog comes from the GPU library it loads, only for the rows that get
// past cli_parse). The binary rows run in parallel worker processes. "@" at the start of an
// argument stands for this test's temporary directory.

#define BIN 1
#define FUNC 0

typedef struct {
    int bin;                 /* 1: also through the binary */
    const char *needle;      /* the message must contain it */
    const char *args[8];     /* NULL-terminated, without argv[0] */
} bad_row;

static const bad_row bad_rows[] = {
    /* sizes */
    {BIN, "--n '0'", {"--n", "0"}},
    {BIN, "--n '-5'", {"--n", "-5"}},
    {BIN, "--n 'abc'", {"--n", "abc"}},
    {BIN, "--n '2048x'", {"--n", "2048x"}},
    {BIN, "--n ''", {"--n", ""}},
    {FUNC, "--n ''", {"--n="}},
    {BIN, "--n needs a value", {"--n"}},
    {BIN, "--n '1.5'", {"--n", "1.5"}},
    {BIN, "--n '2^99'", {"--n", "2^99"}},
    {BIN, "--n '99999999'", {"--n", "99999999"}},
    {FUNC, "at most 65536", {"--n", "99999999"}},
    {BIN, "--n '8192:512'", {"--n", "8192:512"}},
    {BIN, "--n '1,,2'", {"--n", "1,,2"}},
    {FUNC, "--n '1024,1024'", {"--n", "1024,1024"}},
    {FUNC, "--n '1:2:3:4'", {"--n", "1:2:3:4"}},
    {FUNC, "--n '1024:8192:0': range '1024:8192:0': step '0' is too small", {"--n", "1024:8192:0"}},
    {BIN, "--n: shape 46341x46341x46341: A (m x k) would hold 2147488281 elements, more than 2147483647",
     {"--n", "46341"}},
    {FUNC, "--n: shape 65536x65536x65536: A (m x k)", {"--n", "65536"}},
    {FUNC, "--n ' 12'", {"--n", " 12"}},
    {FUNC, "--n '--ops'", {"--n", "--ops", "sgemm"}}, /* a missing value swallows the next option */
    {BIN, "--elems '0'", {"--elems", "0"}},
    {BIN, "--elems '-1'", {"--elems", "-1"}},
    {BIN, "--elems '2^40'", {"--elems", "2^40"}},
    {FUNC, "at most 4294967296", {"--elems", "2^40"}},
    {BIN, "--elems '1.5'", {"--elems", "1.5"}},
    {BIN, "--elems 'abc'", {"--elems", "abc"}},
    {FUNC, "--elems '8G'", {"--elems", "8G"}},
    {FUNC, "--elems needs a value", {"--elems"}},

    /* GEMM shapes: --shape */
    {BIN, "--shape '0x5x5': m '0' is too small (at least 1)", {"--shape", "0x5x5"}},
    {BIN, "--shape '5x5': expected MxNxK", {"--shape", "5x5"}},
    {BIN, "--shape 'axbxc': m 'a' is not a size", {"--shape", "axbxc"}},
    {BIN, "--shape '5x5x5x5': expected MxNxK", {"--shape", "5x5x5x5"}},
    {BIN, "--shape '70000x5x5': m '70000' is too large (at most 65536)", {"--shape", "70000x5x5"}},
    {FUNC, "--shape '5x5x65537': k '65537' is too large (at most 65536)", {"--shape", "5x5x65537"}},
    {BIN, "--shape: shape 65536x65536x1: C (m x n) would hold 4294967296 elements, more than 2147483647",
     {"--shape", "65536x65536x1"}},
    {FUNC, "--shape: shape 1x65536x65536: B (k x n)", {"--shape", "1x65536x65536"}},
    {FUNC, "--shape: shape 65536x1x65536: A (m x k)", {"--shape", "65536x1x65536"}},
    {FUNC, "--shape '1x2x3,5x5': item '5x5': expected MxNxK", {"--shape", "1x2x3,5x5"}},
    {BIN, "--shape: shape 1x2x3 is listed twice", {"--shape", "1x2x3,1x2x3"}},
    {FUNC, "--shape: empty list", {"--shape", ""}},
    {FUNC, "--shape '1x2x3,': empty item", {"--shape", "1x2x3,"}},
    {FUNC, "--shape '1X2X3': expected MxNxK", {"--shape", "1X2X3"}},
    {FUNC, "--shape needs a value", {"--shape"}},
    {FUNC, "--shape given more than once", {"--shape", "1x1x1", "--shape", "2x2x2"}},
    /* the --m/--n/--k product */
    {BIN, "--m '0'", {"--m", "0", "--n", "1"}},
    {FUNC, "--k 'abc'", {"--k", "abc", "--n", "1"}},
    {BIN, "--m is given without --n", {"--m", "1024"}},
    {FUNC, "--k is given without --n", {"--k", "1024"}},
    {BIN, "--k is not given and --n lists 2 sizes: give --k", {"--m", "1024", "--n", "1,2"}},
    {FUNC, "--m is not given and --n lists 2 sizes: give --m", {"--k", "1024", "--n", "1,2"}},
    {BIN, "--m/--n/--k expand to 512 shapes (8 x 8 x 8), more than fit (at most 64 GEMM shapes a run)",
     {"--m", "1024:8192:1024", "--n", "1024:8192:1024", "--k", "1024:8192:1024"}},
    {FUNC, "--m/--n/--k: shape 65536x65536x1: C (m x n)", {"--m", "65536", "--n", "65536", "--k", "1"}},
    {FUNC, "--m given more than once", {"--m", "1", "--m", "2", "--n", "3"}},
    /* the union */
    {BIN, "--shape: shape 1x2x3 is one too many (at most 64 GEMM shapes a run)",
     {"--n", "1:64:1", "--shape", "1x2x3"}},
    {BIN, "--shape: shape 1024x1024x1024 is already given by --n (each shape once)",
     {"--n", "1024", "--shape", "1024x1024x1024"}},
    {FUNC, "--n: shape 1024x1024x1024 is already given by --shape", {"--shape", "1024x1024x1024", "--n", "1024"}},
    /* --shapes FILE (the files are written into @ by test_bad_table) */
    {BIN, "--shapes '", {"--shapes", "@/missing.txt"}},
    {BIN, "/missing.txt': cannot read it (No such file or directory)", {"--shapes", "@/missing.txt"}},
    {BIN, "' is a directory (expected a file with one MxNxK a line)", {"--shapes", "@"}},
    {BIN, "/fifo' is not a regular file", {"--shapes", "@/fifo"}},
    {BIN, "--shapes '/proc/self/mem': cannot read it (", {"--shapes", "/proc/self/mem"}},
    {BIN, "/empty.txt': no shapes in the file", {"--shapes", "@/empty.txt"}},
    {FUNC, "/comments.txt': no shapes in the file", {"--shapes", "@/comments.txt"}},
    {BIN, "/bad_line.txt:3: '5x5': expected MxNxK", {"--shapes", "@/bad_line.txt"}},
    {FUNC, "--shapes ", {"--shapes", "@/bad_line.txt"}},
    {BIN, "/bad_dim.txt:2: '0x5x5': m '0' is too small", {"--shapes", "@/bad_dim.txt"}},
    {FUNC, "/dup.txt:4: shape 2x2x2 is already given by --shapes ", {"--shapes", "@/dup.txt"}},
    {FUNC, "/dup.txt:2 (each shape once)", {"--shapes", "@/dup.txt"}},
    {BIN, "/too_many.txt:66: shape 65x1x1 is one too many (at most 64 GEMM shapes a run)",
     {"--shapes", "@/too_many.txt"}},
    {FUNC, "/big.txt:1: shape 65536x65536x1: C (m x n)", {"--shapes", "@/big.txt"}},
    {FUNC, "--shapes: empty path", {"--shapes", ""}},
    {FUNC, "--shapes needs a value", {"--shapes"}},
    {FUNC, "--shapes given more than once", {"--shapes", "@/good.txt", "--shapes", "@/good.txt"}},
    {FUNC, "--shape: shape 7x8x9 is already given by --shapes ", {"--shapes", "@/good.txt", "--shape", "7x8x9"}},

    /* ops and variants */
    {BIN, "--ops: unknown op 'foo' (known: sgemm,reduce,sort", {"--ops", "foo"}},
    {BIN, "--ops: empty list", {"--ops", ""}},
    {BIN, "--ops: 'sgemm' is listed twice", {"--ops", "sgemm,sgemm"}},
    {FUNC, "--ops: empty name", {"--ops", "sgemm,"}},
    {FUNC, "'SGEMM'", {"--ops", "SGEMM"}},
    {BIN, "--variants: unknown variant 'foo' (known: ", {"--variants", "foo"}},
    {FUNC, "naive", {"--variants", "foo"}}, /* the message lists the known names */
    {FUNC, "cublas_tf32", {"--variants", "foo"}},
    {FUNC, "thrust", {"--variants", "foo"}},
    {BIN, "--variants: empty list", {"--variants", ""}},
    /* the binary's own families: the FP32 and TF32 mma.sync ones are always built */
    {BIN, "--candidates: unknown family 'bogus' (known: tuned, tf32_mma", {"--candidates", "bogus"}},
    {BIN, "--candidates 'tuned' is a family of sgemm but --ops does not include sgemm",
     {"--candidates", "tuned", "--ops", "reduce"}},
    {FUNC, "'naive' is listed twice", {"--variants", "naive,naive"}},
    {FUNC, "'test_fault'", {"--variants", "test_fault"}}, /* hidden without COMPARE_TEST_VARIANTS=1 */
    {BIN, "--variants 'naive' is a sgemm variant but --ops does not include sgemm",
     {"--variants", "naive", "--ops", "reduce"}},
    {BIN, "--n is given but no op it sizes is run (it sizes sgemm", {"--n", "1024", "--ops", "reduce"}},
    {BIN, "--shape is given but no op it sizes is run (it sizes sgemm", {"--shape", "1x2x3", "--ops", "reduce"}},
    {BIN, "--shapes is given but no op it sizes is run", {"--shapes", "@/good.txt", "--ops", "sort"}},
    {FUNC, "--m is given but no op it sizes is run", {"--m", "1", "--n", "2", "--variants", "cub"}},
    {FUNC, "--n is given but no op it sizes is run", {"--variants", "cub", "--n", "1024"}},
    {BIN, "--elems is given but no op it sizes is run (it sizes reduce, sort", {"--elems", "1M", "--ops", "sgemm"}},
    {FUNC, "--elems is given but no op it sizes is run", {"--variants", "tiled32", "--elems", "1M"}},

    /* repeated options */
    {BIN, "--n given more than once", {"--n", "1", "--n", "2"}},
    {FUNC, "--n given more than once", {"--n=1", "--n=2"}},
    {FUNC, "--ops given more than once", {"--ops", "sgemm", "--ops", "reduce"}},
    {FUNC, "--no-flush given more than once", {"--no-flush", "--no-flush"}},
    {BIN, "--csv given more than once", {"--csv", "@/a.csv", "--csv", "@/b.csv"}},

    /* numbers */
    {BIN, "--reps '0'", {"--reps", "0"}},
    {FUNC, "--reps '100001'", {"--reps", "100001"}},
    {FUNC, "--reps '+5'", {"--reps", "+5"}},
    {FUNC, "--reps '5x'", {"--reps", "5x"}},
    {BIN, "--reps 10 is more than --max-reps 5", {"--reps", "10", "--max-reps", "5"}},
    {FUNC, "--max-reps '0'", {"--max-reps", "0"}},
    {BIN, "--warmup '-1'", {"--warmup", "-1"}},
    {FUNC, "--warmup ' 2'", {"--warmup", " 2"}},
    {FUNC, "--warmup '\t2'", {"--warmup", "\t2"}},
    {FUNC, "--warmup '99999999999999999999'", {"--warmup", "99999999999999999999"}},
    {BIN, "--max-time '-1'", {"--max-time", "-1"}},
    {FUNC, "--max-time 'inf'", {"--max-time", "inf"}},
    {FUNC, "--max-time '0x10'", {"--max-time", "0x10"}},
    {FUNC, "--max-time '3601'", {"--max-time", "3601"}},
    {BIN, "--noise 'abc'", {"--noise", "abc"}},
    {FUNC, "--noise 'nan'", {"--noise", "nan"}},
    {FUNC, "--noise '101'", {"--noise", "101"}},
    {FUNC, "--noise ''", {"--noise", ""}},
    {BIN, "--seed '-1'", {"--seed", "-1"}},
    {BIN, "--seed 'abc'", {"--seed", "abc"}},
    {FUNC, "--seed '1.5'", {"--seed", "1.5"}},
    {FUNC, "--seed '18446744073709551616'", {"--seed", "18446744073709551616"}},
    {FUNC, "--seed ''", {"--seed", ""}},
    {BIN, "--device '-1'", {"--device", "-1"}},
    {BIN, "--device 'x'", {"--device", "x"}},
    {FUNC, "--device '1024'", {"--device", "1024"}},
    {BIN, "--device '0,0': device 0 is listed twice", {"--device", "0,0"}},
    {FUNC, "--device '1,x': 'x' is not a device ordinal", {"--device", "1,x"}},
    {FUNC, "--device '0,': '' is not a device ordinal", {"--device", "0,"}},
    {FUNC, "--device 'ALL'", {"--device", "ALL"}},
    {BIN, "--format json takes one device", {"--device", "0,1", "--format", "json"}},
    {FUNC, "--soak takes one device", {"--soak", "10", "--device", "all"}},
    {FUNC, "--fleet-threshold '101'", {"--fleet-threshold", "101"}},
    {FUNC, "--fleet-timeout '0'", {"--fleet-timeout", "0"}},
    {FUNC, "--parallel-devices takes no value", {"--parallel-devices=1"}},

    /* format, switches, unknown things */
    {FUNC, "--soak '0'", {"--soak", "0"}},
    {FUNC, "--soak 'abc'", {"--soak", "abc"}},
    {FUNC, "--soak and --csv conflict", {"--soak", "10", "--csv", "@/soak.csv"}},
    {FUNC, "--soak and --check-only conflict", {"--soak", "10", "--check-only"}},
    {BIN, "--interleave conflicts with --discard-throttled", {"--interleave", "--discard-throttled"}},
    {FUNC, "--interleave conflicts with --check-only", {"--check-only", "--interleave"}},
    {FUNC, "--interleave conflicts with --profile", {"--interleave", "--profile"}},
    {FUNC, "--interleave takes no value", {"--interleave=1"}},
    {FUNC, "--interleave and --sequential conflict", {"--interleave", "--sequential"}},
    {BIN, "--metrics conflicts with --profile", {"--metrics", "--profile"}},
    {FUNC, "--metrics conflicts with --check-only", {"--check-only", "--metrics"}},
    {FUNC, "--metrics conflicts with --soak", {"--metrics", "--soak", "5"}},
    {FUNC, "--metrics takes no value", {"--metrics=1"}},
    {FUNC, "--sequential takes no value", {"--sequential=1"}},
    {BIN, "--format 'xml' is unknown (expected table, md or json)", {"--format", "xml"}},
    {FUNC, "--format 'TABLE'", {"--format", "TABLE"}},
    {BIN, "--list takes no value", {"--list=3"}},
    /* --axis (tests/test_axes.c has the rest) */
    {BIN, "--axis foo: no op has an axis 'foo' (the ops' axes: sgemm: m,n,k", {"--axis", "foo=1"}},
    {BIN, "--axis 'm' is not NAME=LIST", {"--axis", "m"}},
    {BIN, "--axis m '0': '0' is too small", {"--axis", "m=0"}},
    {BIN, "--axis k '1:8:x1'", {"--axis", "k=1:8:x1"}},
    {BIN, "--n given more than once (--axis n is the same option)", {"--n", "1024", "--axis", "n=2048"}},
    {BIN, "--axis type is given but no op that has axis type is run (it is an axis of sort",
     {"--ops", "sgemm", "--axis", "type=u32"}},
    {BIN, "--axis type 'u64' (sort): 'u64' is not a value of type (expected u32, f32)",
     {"--ops", "sort", "--axis", "type=u64"}},
    {FUNC, "--help takes no value", {"--help=1"}},
    {FUNC, "--no-flush takes no value", {"--no-flush=0"}},
    {FUNC, "--quiet takes no value", {"--quiet=yes"}},
    {BIN, "unknown option '--bogus'", {"--bogus"}},
    {FUNC, "unknown option '--N'", {"--N", "5"}},
    {FUNC, "unknown option '--n5'", {"--n5"}},
    {FUNC, "unknown option '--nn'", {"--nn", "5"}},
    {FUNC, "unknown option '--'", {"--"}},
    {BIN, "unexpected argument 'extra'", {"extra"}},
    {FUNC, "unexpected argument 'extra'", {"--n", "1024", "extra"}},
    {FUNC, "unexpected argument '-n'", {"-n", "5"}},
    {FUNC, "unexpected argument '-'", {"-"}},

    /* --csv targets */
    {BIN, "--csv: empty path", {"--csv", ""}},
    {FUNC, "--csv needs a value", {"--csv"}},
    {BIN, "directory '/nonexistent-dir-compare' does not exist", {"--csv", "/nonexistent-dir-compare/x.csv"}},
    {BIN, "--csv '/tmp' is a directory", {"--csv", "/tmp"}},
    {FUNC, "--csv '/tmp/' is a directory", {"--csv", "/tmp/"}},
    {FUNC, "--csv '/dev/null'", {"--csv", "/dev/null"}}, /* not a regular file (or /dev not writable) */
    {BIN, "/missing' does not exist", {"--csv", "@/missing/x.csv"}},
    {BIN, "is not a compare CSV (refusing to overwrite it)", {"--csv", "@/foreign.csv"}},
    {FUNC, "is not a compare CSV", {"--csv", "@/foreign.csv", "--ops", "sgemm"}},
    {BIN, "--n '0'", {"--csv", "@/fresh.csv", "--n", "0"}}, /* a good target, then a bad argument */
};
#define BAD_COUNT ((int)(sizeof bad_rows / sizeof bad_rows[0]))

static char tmp_dir[64];

static long read_file(const char *p, char *buf, size_t cap)
{
    FILE *f = fopen(p, "rb");
    size_t n;
    if (!f) return -1;
    n = fread(buf, 1, cap, f);
    fclose(f);
    return (long)n;
}

static void write_file(const char *p, const char *text)
{
    FILE *f = fopen(p, "wb");
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

/* Expands a row's arguments ("@" -> tmp_dir) into argv[1..]; argv[0] = prog. */
typedef struct {
    char store[2048];
    char *argv[12];
    int argc;
} row_args;

static void row_expand(const bad_row *r, const char *prog, row_args *a)
{
    size_t used = 0;
    a->argc = 0;
    a->argv[a->argc++] = (char *)prog;
    for (int i = 0; r->args[i]; i++) {
        const char *s = r->args[i];
        int w = s[0] == '@' ? snprintf(a->store + used, sizeof a->store - used, "%s%s", tmp_dir, s + 1)
                            : snprintf(a->store + used, sizeof a->store - used, "%s", s);
        a->argv[a->argc++] = a->store + used;
        used += (size_t)w + 1;
    }
    a->argv[a->argc] = NULL;
}

static void row_show(const row_args *a, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int i = 1; i < a->argc && used + 8 < len; i++)
        used += (size_t)snprintf(buf + used, len - used, " '%s'", a->argv[i]);
}

static void check_rows_in_process(void)
{
    for (int i = 0; i < BAD_COUNT; i++) {
        row_args a;
        cli_options o;
        char err[1024] = "", shown[512];
        int rc;
        row_expand(&bad_rows[i], "compare", &a);
        row_show(&a, shown, sizeof shown);
        rc = parse_resolve(a.argc, a.argv, &o, err, sizeof err);
        CHECK(rc == 2, "cli_parse%s: rc %d, expected 2", shown, rc);
        CHECK(test_contains(err, bad_rows[i].needle), "cli_parse%s: \"%s\" lacks \"%s\"", shown, err,
              bad_rows[i].needle);
    }
}

/* What a worker brings back for one binary row. */
typedef struct {
    int done;
    int status;
    char out[256];
    char err[2048];
} row_result;

static void check_rows_in_binary(int *bin_rows)
{
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    int workers = ncpu < 2 ? 4 : ncpu > 8 ? 8 : 2 * (int)ncpu;
    size_t bytes = sizeof(row_result) * BAD_COUNT;
    /* results shared with the workers through an unlinked file (POSIX has no MAP_ANONYMOUS) */
    char shm_path[] = "/tmp/test_cli_results.XXXXXX";
    int fd = mkstemp(shm_path);
    row_result *res = MAP_FAILED;
    pid_t pids[16];
    if (fd >= 0) {
        unlink(shm_path);
        if (ftruncate(fd, (off_t)bytes) == 0)
            res = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
        close(fd);
    }
    CHECK(res != MAP_FAILED, "cannot map a shared results file");
    if (res == MAP_FAILED) return;
    memset(res, 0, bytes);
    fflush(stdout);
    fflush(stderr);
    for (int w = 0; w < workers; w++) {
        pids[w] = fork();
        if (pids[w] == 0) {
            static test_proc p;
            int k = 0;
            for (int i = 0; i < BAD_COUNT; i++) {
                row_args a;
                if (!bad_rows[i].bin || k++ % workers != w) continue;
                row_expand(&bad_rows[i], COMPARE_BIN, &a);
                test_run(a.argv, NULL, 0, 0, 30.0, &p);
                res[i].status = p.status;
                snprintf(res[i].out, sizeof res[i].out, "%.*s", (int)sizeof res[i].out - 1, p.out);
                snprintf(res[i].err, sizeof res[i].err, "%.*s", (int)sizeof res[i].err - 1, p.err);
                res[i].done = 1;
            }
            _exit(0);
        }
    }
    for (int w = 0; w < workers; w++)
        if (pids[w] > 0) waitpid(pids[w], NULL, 0);
    *bin_rows = 0;
    for (int i = 0; i < BAD_COUNT; i++) {
        row_args a;
        char shown[512];
        const row_result *r = &res[i];
        if (!bad_rows[i].bin) continue;
        ++*bin_rows;
        row_expand(&bad_rows[i], "compare", &a);
        row_show(&a, shown, sizeof shown);
        CHECK(r->done, "compare%s: not run", shown);
        CHECK(r->status == 2, "compare%s: exit %d, expected 2 (stderr: %s)", shown, r->status, r->err);
        CHECK(r->status >= 0 && r->status < 128, "compare%s: crashed (status %d)", shown, r->status);
        CHECK(strncmp(r->err, "compare: ", 9) == 0, "compare%s: stderr not prefixed: %s", shown, r->err);
        CHECK(test_contains(r->err, bad_rows[i].needle), "compare%s: stderr \"%s\" lacks \"%s\"", shown, r->err,
              bad_rows[i].needle);
        CHECK(r->out[0] == '\0', "compare%s: wrote to stdout: %s", shown, r->out);
    }
    munmap(res, bytes);
}

/* The --shapes files the bad-input rows name ("@/NAME"). */
static const struct {
    const char *name, *text;
} shape_files[] = {
    {"good.txt", "7x8x9\n"},
    {"empty.txt", ""},
    {"comments.txt", "# only comments\n\n   # and blanks\n"},
    {"bad_line.txt", "# header\n\n5x5  # bad\n4x4x4\n"},
    {"bad_dim.txt", "1x1x1\n0x5x5\n"},
    {"dup.txt", "1x1x1\n2x2x2\n3x3x3\n2x2x2\n"},
    {"big.txt", "65536x65536x1\n"},
    {"too_many.txt", NULL}, /* a comment line, then 65 shapes */
};
#define SHAPE_FILES ((int)(sizeof shape_files / sizeof shape_files[0]))

/* Writes (make = 1) or removes (make = 0) the shapes files and the FIFO in tmp_dir. */
static void shape_files_make(int make)
{
    char path[256];
    for (int i = 0; i < SHAPE_FILES; i++) {
        snprintf(path, sizeof path, "%s/%s", tmp_dir, shape_files[i].name);
        if (!make) {
            unlink(path);
        } else if (shape_files[i].text) {
            write_file(path, shape_files[i].text);
        } else {
            char text[2048];
            size_t used = (size_t)snprintf(text, sizeof text, "# %d shapes\n", CLI_MAX_SHAPES + 1);
            for (int k = 1; k <= CLI_MAX_SHAPES + 1; k++)
                used += (size_t)snprintf(text + used, sizeof text - used, "%dx1x1\n", k);
            write_file(path, text);
        }
    }
    snprintf(path, sizeof path, "%s/fifo", tmp_dir);
    if (make) CHECK(mkfifo(path, 0600) == 0, "mkfifo %s", path);
    else unlink(path);
}

static void test_bad_table(void)
{
    static const char foreign_text[] = "name,value\r\nkeep me,1\n\"quoted, field\",2\n";
    char foreign[256], ro_dir[256], ro_csv[300], path[256];
    char before[4096], after[4096];
    long nb, na;
    int bin_rows = 0;

    snprintf(foreign, sizeof foreign, "%s/foreign.csv", tmp_dir);
    write_file(foreign, foreign_text);
    nb = read_file(foreign, before, sizeof before);

    shape_files_make(1);
    check_rows_in_process();
    check_rows_in_binary(&bin_rows);
    shape_files_make(0);
    CHECK(bin_rows >= 40, "only %d bad-input rows through the binary", bin_rows);
    printf("bad-input table: %d rows in process, %d of them also through %s\n", BAD_COUNT, bin_rows, COMPARE_BIN);

    /* the foreign file is left byte for byte as it was */
    na = read_file(foreign, after, sizeof after);
    CHECK(nb == (long)strlen(foreign_text) && na == nb && memcmp(before, after, (size_t)nb) == 0,
          "foreign file changed (%ld -> %ld bytes)", nb, na);
    /* refused targets were not created, nor their directories, nor temp files */
    CHECK(!test_file_exists("/nonexistent-dir-compare"), "a refused --csv created its directory");
    snprintf(path, sizeof path, "%s/missing", tmp_dir);
    CHECK(!test_file_exists(path), "%s created", path);
    CHECK(test_dir_entries(tmp_dir) == 1, "%s holds %d entries, expected 1 (the foreign file: no a.csv, b.csv, "
          "fresh.csv or temp file)", tmp_dir, test_dir_entries(tmp_dir));

    /* an unwritable directory: root writes anywhere, so the row means nothing there */
    snprintf(ro_dir, sizeof ro_dir, "%s/readonly", tmp_dir);
    snprintf(ro_csv, sizeof ro_csv, "%s/x.csv", ro_dir);
    mkdir(ro_dir, 0555);
    chmod(ro_dir, 0555);
    if (geteuid() == 0) {
        printf("note: running as root, the unwritable-directory row is skipped (root may write there)\n");
    } else {
        char *argv[] = {(char *)COMPARE_BIN, "--csv", ro_csv, NULL};
        static test_proc p;
        test_run(argv, NULL, 0, 0, 30.0, &p);
        CHECK(p.status == 2 && test_contains(p.err, "is not writable") && test_contains(p.err, ro_dir),
              "--csv in a 0555 directory: exit %d, stderr %s", p.status, p.err);
        CHECK(!test_file_exists(ro_csv), "%s created", ro_csv);
    }
    chmod(ro_dir, 0755);
    rmdir(ro_dir);
    unlink(foreign);
}

// ---- (c) good invocations that need no GPU ---------------------------------------

/* Runs compare with args (NULL-terminated, without argv[0]). */
static void run_compare(const char *const *args, char *const env[], test_proc *p)
{
    char *argv[40];
    int n = 0;
    argv[n++] = (char *)COMPARE_BIN;
    for (int i = 0; args[i] && n < 39; i++) argv[n++] = (char *)args[i];
    argv[n] = NULL;
    test_run(argv, env, 0, 0, 30.0, p);
}

static test_proc proc;


/* The --list row of `variant` (whole words: op, variant, kind, math, source),
 * or 0 when there is none. */
static int list_row(const char *out, const char *op, const char *variant, char *kind, char *math, char *source)
{
    const char *line = out;
    while (line && *line) {
        char f[5][64];
        if (sscanf(line, "%63s %63s %63s %63s %63s", f[0], f[1], f[2], f[3], f[4]) == 5 &&
            strcmp(f[0], op) == 0 && strcmp(f[1], variant) == 0) {
            strcpy(kind, f[2]);
            strcpy(math, f[3]);
            strcpy(source, f[4]);
            return 1;
        }
        line = strchr(line, '\n');
        if (line) line++;
    }
    return 0;
}

static void test_good(void)
{
    static const char *const opts[] = {"--n", "--m", "--k", "--shape", "--shapes", "--elems", "--ops", "--variants", "--list", "--warmup", "--reps",
                                       "--max-reps", "--max-time", "--noise", "--seed", "--no-flush", "--device",
                                       "--csv", "--format", "--check-only", "--soak", "--quiet", "--version", "--help",
                                       "--plugin", "--profile", "--parallel-devices", "--fleet-threshold",
                                       "--fleet-serial", "--fleet-timeout", "--candidates", "--metrics"};
    /* op, variant, kind, math: whole columns, so "cub" is not found inside "cublas_fp32" */
    static const char *const listed[][4] = {
        {"sgemm", "naive", "hand", "fp32"},         {"sgemm", "tiled16", "hand", "fp32"},
        {"sgemm", "tiled32", "hand", "fp32"},       {"sgemm", "cublas_fp32", "library", "fp32"},
        {"sgemm", "cublas_tf32", "library", "tf32"}, {"sgemm", "tf32_mma", "hand", "tf32"},
        {"reduce", "thrust", "library", "fp32"},    {"reduce", "cub", "library", "fp32"},
        {"reduce", "interleaved", "hand", "fp32"},  {"reduce", "sequential", "hand", "fp32"},
        {"reduce", "shuffle", "hand", "fp32"},      {"sort", "cub", "library", "u32,f32"},
        {"sort", "thrust", "library", "u32,f32"},   {"sort", "radix", "hand", "u32,f32"},
        {"transpose", "cublas_geam", "library", "fp32"}, {"transpose", "naive", "hand", "fp32"},
        {"transpose", "tiled", "hand", "fp32"},     {"transpose", "tiled_padded", "hand", "fp32"},
        {"transpose", "fast", "hand", "fp32"},      {"histogram", "cub", "library", "u8,f32"},
        {"histogram", "global_atomic", "hand", "u8,f32"}, {"histogram", "shared_private", "hand", "u8,f32"},
        {"histogram", "fast", "hand", "u8,f32"},    {"scan", "thrust", "library", "i32,f32"},
        {"scan", "cub", "library", "i32,f32"},      {"scan", "hillis_steele", "hand", "i32,f32"},
        {"scan", "blelloch", "hand", "i32,f32"},    {"scan", "decoupled", "hand", "i32,f32"}};
    char kind[64], math[64], source[64];
    {
        /* --help and --version load no GPU library: they work with none to load */
        const char *const a[] = {"--help", NULL};
        char *env[] = {"COMPARE_GPU_LIB=/nonexistent/libcompare_gpu.so", "LD_DEBUG=files", NULL};
        run_compare(a, env, &proc);
        CHECK(proc.status == 0, "--help: exit %d (%s)", proc.status, proc.err);
        CHECK(test_contains(proc.out, "usage:"), "--help: no usage line");
        for (size_t i = 0; i < sizeof opts / sizeof opts[0]; i++)
            CHECK(test_contains(proc.out, opts[i]), "--help does not mention %s", opts[i]);
        CHECK(test_contains(proc.out, "exit status"), "--help does not give the exit codes");
        /* the dynamic loader's own trace: no CUDA library was loaded */
        CHECK(test_contains(proc.err, "libc.so"), "LD_DEBUG=files traced nothing: %.200s", proc.err);
        CHECK(!test_contains(proc.err, "libcublas") && !test_contains(proc.err, "libcudart") &&
                  !test_contains(proc.err, "libcompare_gpu"),
              "--help loaded a CUDA library");
        CHECK(test_contains(proc.out, "start:end:step") && test_contains(proc.out, "MxNxK[,MxNxK...]") &&
                  test_contains(proc.out, "shapes/llm.txt") && test_contains(proc.out, "At most 64 shapes") &&
                  test_contains(proc.out, "takes --n's value, which must then be one size"),
              "--help does not describe the GEMM shape options");
    }
    {
        /* the shipped shapes file is accepted by the binary */
        const char *const a[] = {"--list", "--ops", "sgemm", "--shapes", COMPARE_SOURCE_DIR "/shapes/llm.txt",
                                 "--shape", "3x5x7", NULL};
        run_compare(a, NULL, &proc);
        CHECK(proc.status == 0, "--shapes shapes/llm.txt: exit %d (%s)", proc.status, proc.err);
    }
    {
        const char *const a[] = {"--version", NULL};
        char *env[] = {"COMPARE_GPU_LIB=/nonexistent/libcompare_gpu.so", NULL};
        run_compare(a, env, &proc);
        CHECK(proc.status == 0, "--version: exit %d (%s)", proc.status, proc.err);
        CHECK(test_contains(proc.out, "compare " COMPARE_VERSION), "--version: '%s'", proc.out);
        CHECK(test_contains(proc.out, COMPARE_GIT_COMMIT), "--version lacks the commit: '%s'", proc.out);
    }
    {
        /* --list needs the catalog: a missing GPU library is a clear error */
        const char *const a[] = {"--list", NULL};
        char *env[] = {"COMPARE_GPU_LIB=/nonexistent/libcompare_gpu.so", NULL};
        run_compare(a, env, &proc);
        CHECK(proc.status == 1 && test_contains(proc.err, "cannot find the GPU library") &&
                  test_contains(proc.err, "/nonexistent/libcompare_gpu.so"),
              "--list with no GPU library: exit %d (%s)", proc.status, proc.err);
    }
    {
        const char *const a[] = {"--list", NULL};
        run_compare(a, NULL, &proc);
        CHECK(proc.status == 0, "--list: exit %d (%s)", proc.status, proc.err);
        for (size_t i = 0; i < sizeof listed / sizeof listed[0]; i++) {
            int found = list_row(proc.out, listed[i][0], listed[i][1], kind, math, source);
            CHECK(found, "--list lacks %s %s", listed[i][0], listed[i][1]);
            if (!found) continue;
            CHECK(strcmp(kind, listed[i][2]) == 0 && strcmp(math, listed[i][3]) == 0 && strcmp(source, "builtin") == 0,
                  "--list %s %s: kind %s math %s source %s, expected %s %s builtin", listed[i][0], listed[i][1], kind,
                  math, source, listed[i][2], listed[i][3]);
        }
        CHECK(!list_row(proc.out, "sgemm", "test_fault", kind, math, source) &&
                  !list_row(proc.out, "sgemm", "test_wrong", kind, math, source),
              "--list shows test-only variants");
        CHECK(!test_contains(proc.out, "candidates:"), "plain --list shows search candidates");
    }
    {
        /* --candidates FAMILY: that family's rows join --list (source candidates:FAMILY), no other's */
        const char *const a[] = {"--list", "--candidates", "tuned", NULL};
        run_compare(a, NULL, &proc);
        CHECK(proc.status == 0, "--list --candidates tuned: exit %d (%s)", proc.status, proc.err);
        CHECK(test_count(proc.out, " candidates:tuned ") >= 1 && !test_contains(proc.out, "candidates:tf32_mma"),
              "--list --candidates tuned: %d tuned rows, tf32_mma rows %s", test_count(proc.out, " candidates:tuned "),
              test_contains(proc.out, "candidates:tf32_mma") ? "shown" : "hidden");
        CHECK(list_row(proc.out, "sgemm", "tuned", kind, math, source), "--list --candidates lost the shipped rows");
    }
    {
        /* transpose's family joins transpose */
        const char *const a[] = {"--list", "--candidates", "transpose_fast", NULL};
        run_compare(a, NULL, &proc);
        CHECK(proc.status == 0 && test_count(proc.out, "transpose  ") >= 1 &&
                  test_count(proc.out, " candidates:transpose_fast ") >= 1 && !test_contains(proc.out, "candidates:tuned"),
              "--list --candidates transpose_fast: exit %d, %d rows", proc.status,
              test_count(proc.out, " candidates:transpose_fast "));
    }
    {
        const char *const a[] = {"--list", NULL};
        char *env[] = {"COMPARE_TEST_VARIANTS=1", NULL};
        run_compare(a, env, &proc);
        CHECK(proc.status == 0 && list_row(proc.out, "sgemm", "test_fault", kind, math, source),
              "--list with COMPARE_TEST_VARIANTS=1: exit %d, no test_fault row", proc.status);
    }
    {
        /* options are checked even with --list; a valid set passes */
        const char *const a[] = {"--list", "--n", "1024", "--ops", "sgemm", "--variants", "naive", NULL};
        run_compare(a, NULL, &proc);
        CHECK(proc.status == 0 && list_row(proc.out, "sgemm", "naive", kind, math, source),
              "--list with options: exit %d (%s)", proc.status, proc.err);
    }
}

int main(void)
{
    snprintf(tmp_dir, sizeof tmp_dir, "/tmp/test_cli.XXXXXX");
    if (!mkdtemp(tmp_dir)) {
        perror("mkdtemp");
        return 1;
    }
    test_parse_direct();
    test_bad_table();
    test_good();
    rmdir(tmp_dir);
    return test_finish("test_cli");
}
