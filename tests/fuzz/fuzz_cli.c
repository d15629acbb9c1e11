/* tests/fuzz/fuzz_cli.c: libFuzzer target for cli_parse + cli_resolve.
 *
 * The input bytes are split on NUL or newline into argv[1..] (argv[0] is
 * "compare"; empty tokens are kept as empty arguments, as a shell can pass
 * them). Each argument is its own heap block of exactly its size, so ASan sees
 * any read or write past one argument (cli_parse writes into argv: it cuts
 * comma lists in place). The error buffer is also an exact-size heap block.
 *
 * After each call the target checks what cli_parse promises: rc is 0 or 2; on
 * 2 the message is non-empty and NUL-terminated inside err_len; on 0 every
 * size lies in the CLI's bounds (GEMM shapes: shapes_check, each once), the
 * counts fit their arrays, every --variants name is a known one and points
 * into argv, the ops mask is a non-empty subset
 * of the catalog's ops, --reps <= --max-reps. A broken promise aborts (a crash).
 *
 * Filesystem guard: --csv makes cli_parse call csv_check_target and --shapes
 * shapes_read_file, which may stat, access and read the named path but must
 * never create, write, rename or remove anything. .ci/fuzz.sh renames every filesystem-changing libc symbol
 * that the core objects reference (objcopy --redefine-sym fopen=fuzz_fs_fopen,
 * ...) to the guards below, which abort on any write-capable use. libFuzzer's
 * own calls (writing crash files) are untouched. FUZZ_FS_GUARD_SELFTEST=1
 * makes the first input call csv_open, which must trip the guard: fuzz.sh runs
 * that once to prove the guard is wired in.
 *
 * Run: bash .ci/fuzz.sh [SECONDS]   (builds this with clang -fsanitize=fuzzer) */
#include "cli.h"
#include "csv.h"
#include "plan.h"
#include "shapes.h"

#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#define FUZZ_MAX_ARGS 256
#define FUZZ_ERR_LEN 512

// ---- the variant table cli_parse validates against ---------------------------
/* Shaped like the real one: several ops, and one name ("thrust") under two ops,
 * which exercises the duplicate handling in the lookup and in the known list. */
static const op_info fuzz_ops[] = {
    {"sgemm", OP_SIZE_GEMM, OP_RATE_TFLOPS, OP_PEAK_FP32, "cublas", "cublas_tf32", {NULL}, {NULL, NULL}, "",
     {OP_AXIS_M, OP_AXIS_N, OP_AXIS_K}},
    {"reduce", OP_SIZE_ELEMS, OP_RATE_GBPS, OP_PEAK_MEMORY, "thrust", "cub", {NULL}, {NULL, NULL}, "", {OP_AXIS_ELEMS}},
    {"sort", OP_SIZE_ELEMS, OP_RATE_GKEYS, OP_PEAK_NONE, "thrust", "cub_radix", {"u32", "f32"}, {NULL, NULL}, "",
     {OP_AXIS_ELEMS, OP_AXIS_TYPE}},
};
#define FV(op, name, lib) {op, name, lib, "fp32", NULL, 0, "builtin", ""}
static const variant_info fuzz_variants[] = {
    FV("sgemm", "sgemm_naive", 0), FV("sgemm", "sgemm_tiled", 0), FV("sgemm", "sgemm_vec4", 0),
    FV("sgemm", "cublas", 1),      FV("sgemm", "cublas_tf32", 1), FV("reduce", "reduce_warp", 0),
    FV("reduce", "reduce_vec4", 0), FV("reduce", "cub", 1),      FV("reduce", "thrust", 1),
    FV("sort", "sort_radix", 0),   FV("sort", "thrust", 1),       FV("sort", "cub_radix", 1),
};
static const catalog fuzz_known = {fuzz_ops, 3, fuzz_variants,
                                   (int)(sizeof fuzz_variants / sizeof fuzz_variants[0])};

// ---- filesystem guard ---------------------------------------------------------
/* Every function here replaces one libc symbol inside the core objects only. */

static void fuzz_fs_violation(const char *call, const char *path)
{
    fprintf(stderr, "fuzz_cli: FILESYSTEM GUARD: core code called %s(\"%s\") while parsing "
                    "the command line (it must only stat/read)\n",
            call, path ? path : "");
    abort();
}

static int fuzz_fs_mode_writes(const char *mode)
{
    return mode == NULL || strpbrk(mode, "wax+") != NULL;
}

static int fuzz_fs_flags_write(int flags)
{
    return (flags & O_ACCMODE) != O_RDONLY || (flags & (O_CREAT | O_TRUNC | O_APPEND)) != 0;
}

FILE *fuzz_fs_fopen(const char *path, const char *mode);
FILE *fuzz_fs_fopen(const char *path, const char *mode)
{
    if (fuzz_fs_mode_writes(mode)) fuzz_fs_violation("fopen", path);
    return fopen(path, mode);
}

FILE *fuzz_fs_freopen(const char *path, const char *mode, FILE *f);
FILE *fuzz_fs_freopen(const char *path, const char *mode, FILE *f)
{
    if (fuzz_fs_mode_writes(mode)) fuzz_fs_violation("freopen", path);
    return freopen(path, mode, f);
}

FILE *fuzz_fs_fdopen(int fd, const char *mode);
FILE *fuzz_fs_fdopen(int fd, const char *mode)
{
    if (fuzz_fs_mode_writes(mode)) fuzz_fs_violation("fdopen", "<fd>");
    return fdopen(fd, mode);
}

int fuzz_fs_open(const char *path, int flags, ...);
int fuzz_fs_open(const char *path, int flags, ...)
{
    if (fuzz_fs_flags_write(flags)) fuzz_fs_violation("open", path);
    return open(path, flags);
}

int fuzz_fs_openat(int dir, const char *path, int flags, ...);
int fuzz_fs_openat(int dir, const char *path, int flags, ...)
{
    if (fuzz_fs_flags_write(flags)) fuzz_fs_violation("openat", path);
    return openat(dir, path, flags);
}

/* Calls that change the filesystem whatever their arguments. */
#define FUZZ_FS_DENY(name, params, path_expr)                                   \
    int fuzz_fs_##name params;                                                  \
    int fuzz_fs_##name params                                                   \
    {                                                                           \
        fuzz_fs_violation(#name, path_expr);                                    \
        return -1;                                                              \
    }
FUZZ_FS_DENY(creat, (const char *p, mode_t m), ((void)m, p))
FUZZ_FS_DENY(mkstemp, (char *p), p)
FUZZ_FS_DENY(mkostemp, (char *p, int f), ((void)f, p))
FUZZ_FS_DENY(mkdir, (const char *p, mode_t m), ((void)m, p))
FUZZ_FS_DENY(rename, (const char *a, const char *b), ((void)b, a))
FUZZ_FS_DENY(renameat, (int d, const char *a, int e, const char *b), ((void)d, (void)e, (void)b, a))
FUZZ_FS_DENY(unlink, (const char *p), p)
FUZZ_FS_DENY(unlinkat, (int d, const char *p, int f), ((void)d, (void)f, p))
FUZZ_FS_DENY(remove, (const char *p), p)
FUZZ_FS_DENY(rmdir, (const char *p), p)
FUZZ_FS_DENY(truncate, (const char *p, off_t l), ((void)l, p))
FUZZ_FS_DENY(ftruncate, (int fd, off_t l), ((void)fd, (void)l, "<fd>"))
FUZZ_FS_DENY(chmod, (const char *p, mode_t m), ((void)m, p))
FUZZ_FS_DENY(fchmod, (int fd, mode_t m), ((void)fd, (void)m, "<fd>"))
FUZZ_FS_DENY(link, (const char *a, const char *b), ((void)b, a))
FUZZ_FS_DENY(symlink, (const char *a, const char *b), ((void)a, b))
FUZZ_FS_DENY(mkfifo, (const char *p, mode_t m), ((void)m, p))

// ---- invariants ---------------------------------------------------------------

static void fuzz_fail(const char *what, const char *err)
{
    fprintf(stderr, "fuzz_cli: INVARIANT BROKEN: %s (err: '%s')\n", what, err ? err : "");
    abort();
}

/* 1 if p points inside one of the argument blocks. */
static int fuzz_in_args(const char *p, char **args, const size_t *lens, int n)
{
    for (int i = 0; i < n; i++)
        if (p >= args[i] && p <= args[i] + lens[i]) return 1;
    return 0;
}

static void fuzz_check_sizes(const long long *v, int count, long long hi, const char *what)
{
    if (count < 1 || count > SIZES_MAX_COUNT) fuzz_fail(what, "count out of [1, SIZES_MAX_COUNT]");
    for (int i = 0; i < count; i++)
        if (v[i] < 1 || v[i] > hi) fuzz_fail(what, "value out of bounds");
}

/* GEMM shapes: within the bounds (shapes_check), each once, at most CLI_MAX_SHAPES. */
static void fuzz_check_shapes(const cli_options *o)
{
    if (o->gemm_count < 0 || o->gemm_count > CLI_MAX_SHAPES) /* 0: the ops' defaults */
        fuzz_fail("gemm_count out of [0, CLI_MAX_SHAPES]", NULL);
    for (int i = 0; i < o->gemm_count; i++) {
        char e[256];
        if (shapes_check(&o->gemm[i], e, sizeof e)) fuzz_fail("accepted a GEMM shape out of bounds", e);
        for (int j = 0; j < i; j++)
            if (o->gemm[j].m == o->gemm[i].m && o->gemm[j].n == o->gemm[i].n && o->gemm[j].k == o->gemm[i].k)
                fuzz_fail("accepted a GEMM shape twice", NULL);
    }
}

/* What was accepted plans: every case of an op run, each with its shape string. */
static void fuzz_check_plan(const cli_options *o)
{
    plan p;
    char err[512];
    if (plan_build(&p, o, &fuzz_known, err, sizeof err) != 0) fuzz_fail("plan_build refused accepted options", err);
    for (int i = 0; i < p.count; i++)
        if (p.cases[i].shape[0] == '\0' || !cli_op_runs(o, p.cases[i].op)) fuzz_fail("a case without a shape", NULL);
    plan_free(&p);
}

static void fuzz_check_ok(const cli_options *o, char **args, const size_t *lens, int n)
{
    fuzz_check_shapes(o);
    fuzz_check_plan(o);
    if (o->elems_count) fuzz_check_sizes(o->elems, o->elems_count, 1LL << 32, "--elems sizes");
    if (o->op_mask == 0 || (o->op_mask & ~7u)) fuzz_fail("op mask empty or naming an op not in the catalog", NULL);
    if (o->variant_count < 0 || o->variant_count > CLI_MAX_VARIANTS) fuzz_fail("variant_count", NULL);
    for (int i = 0; i < o->variant_count; i++) {
        int known = 0;
        if (!fuzz_in_args(o->variants[i], args, lens, n)) fuzz_fail("variant name outside argv", NULL);
        for (int j = 0; j < fuzz_known.variant_count && !known; j++)
            known = strcmp(o->variants[i], fuzz_known.variants[j].name) == 0 &&
                    cli_op_runs(o, catalog_op(&fuzz_known, fuzz_known.variants[j].op));
        if (!known) fuzz_fail("accepted a variant that is unknown or whose op is not run", o->variants[i]);
    }
    if (o->min_reps < 1 || o->min_reps > o->max_reps) fuzz_fail("--reps / --max-reps", NULL);
    if (o->warmup < 0 || o->device < 0) fuzz_fail("negative --warmup or --device", NULL);
    if (!(o->max_time_s >= 0.0 && o->max_time_s <= 3600.0)) fuzz_fail("--max-time out of range", NULL);
    if (!(o->noise_pct >= 0.0 && o->noise_pct <= 100.0)) fuzz_fail("--noise out of range", NULL);
    if (o->format != CLI_FORMAT_TABLE && o->format != CLI_FORMAT_MD && o->format != CLI_FORMAT_JSON)
        fuzz_fail("format", NULL);
    if (o->csv_path && (o->csv_path[0] == '\0' || !fuzz_in_args(o->csv_path, args, lens, n)))
        fuzz_fail("csv path empty or outside argv", NULL);
}

// ---- entry points -------------------------------------------------------------

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static int selftest_done;
    char *args[FUZZ_MAX_ARGS + 1];
    size_t lens[FUZZ_MAX_ARGS + 1];
    char *argv[FUZZ_MAX_ARGS + 2];
    int argc = 1, nargs = 0;
    size_t start = 0;
    cli_options opts;
    char *err;
    int rc;

    if (!selftest_done) {
        const char *s = getenv("FUZZ_FS_GUARD_SELFTEST");
        selftest_done = 1;
        if (s && s[0] == '1') {
            csv_writer w;
            char e[256];
            csv_open(&w, "fuzz_fs_guard_selftest.csv", e, sizeof e); /* must abort in the guard */
            fprintf(stderr, "fuzz_cli: FILESYSTEM GUARD NOT WIRED: csv_open returned\n");
            csv_abort(&w);
            exit(3);
        }
    }

    /* "a\nb" -> {a, b}; "a\n\nb" -> {a, "", b}; one trailing separator adds
     * nothing ("a\n" -> {a}, "a\n\n" -> {a, ""}); the empty input -> no args */
    argv[0] = (char *)"compare";
    for (size_t i = 0; size > 0 && i <= size && nargs < FUZZ_MAX_ARGS; i++) {
        if (i < size && data[i] != '\0' && data[i] != '\n') continue;
        if (i == size && start == size) break;
        lens[nargs] = i - start;
        args[nargs] = malloc(lens[nargs] + 1);
        if (!args[nargs]) abort();
        memcpy(args[nargs], data + start, lens[nargs]);
        args[nargs][lens[nargs]] = '\0';
        argv[argc++] = args[nargs++];
        start = i + 1;
    }
    argv[argc] = NULL;

    err = malloc(FUZZ_ERR_LEN);
    if (!err) abort();
    memset(err, 'X', FUZZ_ERR_LEN);
    rc = cli_parse(argc, argv, &opts, err, FUZZ_ERR_LEN);
    if (rc == 0) rc = cli_resolve(&opts, &fuzz_known, err, FUZZ_ERR_LEN);
    if (memchr(err, '\0', FUZZ_ERR_LEN) == NULL) fuzz_fail("err not NUL-terminated", NULL);
    if (rc == 2) {
        if (err[0] == '\0') fuzz_fail("usage error with an empty message", NULL);
    } else if (rc == 0) {
        fuzz_check_ok(&opts, args, lens, nargs);
    } else {
        fuzz_fail("cli_parse returned neither 0 nor 2", err);
    }

    for (int i = 0; i < nargs; i++) free(args[i]);
    free(err);
    return 0;
}
