#include "cli.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "axes.h"
#include "csv.h"
#include "shapes.h"

#define CLI_MAX_ELEMS CATALOG_MAX_ELEMS

void cli_defaults(cli_options *o)
{
    memset(o, 0, sizeof *o); /* no shape, no length: each op's axis defaults */
    o->warmup = 2;
    o->min_reps = 10;
    o->max_reps = 200;
    o->max_time_s = 2.0;
    o->noise_pct = 1.0;
    o->seed = 2026;
    o->flush = 1;
    o->interleave = 1; /* fair by default: a case's variants timed in rounds */
    o->device = 0;
    o->devices[0] = 0;
    o->device_count = 1;
    o->fleet_threshold_pct = 5.0;
    o->fleet_timeout_s = 600.0;
    o->csv_path = NULL;
    o->format = CLI_FORMAT_TABLE;
    o->progress = 1;
}

void cli_print_help(const char *prog)
{
    printf("usage: %s [options]\n\n"
           "Runs hand-written CUDA kernels beside cuBLAS, Thrust and CUB on the same inputs,\n"
           "verifies every result against a higher-precision reference, and reports each\n"
           "hand kernel as a percent of the library's throughput.\n\n"
           "  --n LIST          GEMM sizes; alone (no --m, --k), square shapes m = n = k (default 2048).\n"
           "                    LIST: 4096 | 1024,2048 | 512:8192 (doubling range) | 2^12 | 4K |\n"
           "                    1024:8192:1024 (start:end:step; end included when it lands on a step)\n"
           "  --m LIST          with --n: GEMM shapes m x n x k for every m, n and k listed (m\n"
           "  --k LIST          outermost, k innermost; same LIST forms). An --m or --k not given\n"
           "                    takes --n's value, which must then be one size\n"
           "  --shape LIST      GEMM shapes MxNxK[,MxNxK...], e.g. 4096x14336x4096 (C = A B: A is\n"
           "                    M x K, B is K x N, C is M x N)\n"
           "  --shapes FILE     GEMM shapes from FILE: one MxNxK a line, # comments, blank lines\n"
           "                    (shapes/llm.txt: common transformer shapes)\n"
           "                    --n/--m/--k, --shape and --shapes combine: all their shapes, in the\n"
           "                    order given; a shape given twice is an error. At most %d shapes;\n"
           "                    each dimension in [1, %lld]; A, B and C at most 2^31-1 elements\n"
           "  --elems LIST      reduce/sort lengths, default 2^26. Same forms; K/M/G are 2^10/2^20/2^30\n"
           "  --axis NAME=LIST  set an axis of the ops that have it (repeatable; --list shows each\n"
           "                    op's axes, kinds and defaults); each op runs the product of its\n"
           "                    axes. Integer LISTs as above, plus 1024:8192:x2 (times 2 each step);\n"
           "                    names for the others (--axis dist=skewed). --n, --m, --k, --shape,\n"
           "                    --shapes and --elems set axes m, n, k and elems; --dist, --chunks\n"
           "                    and --cpu-max-n set dist, chunks and cpu_max_n\n"
           "  --ops LIST        operations to run (default all; --list shows them)\n"
           "  --variants LIST   variants to run (default all; see --list). The reference and\n"
           "                    fastest library rows of each op always run, for the percents\n"
           "  --list            print every op and variant (hand/library, math, source) and exit\n"
           "  --candidates LIST  tuning: the search candidates of these families (sgemm: tuned,\n"
           "                    tf32_mma, tf32_wgmma, tf32_tma, after the variant whose picks\n"
           "                    they feed; transpose: transpose_fast; attention: fa3, its K/V\n"
           "                    tiles) join their op as variants\n"
           "                    named as the candidates, verified and timed like every row;\n"
           "                    without --variants only they and the op's library rows run;\n"
           "                    --variants adds rows, and a family some of whose candidates\n"
           "                    it names runs only those.\n"
           "                    Hidden otherwise (--list with --candidates shows them)\n"
           "  --plugin PATH     load hand variants from a shared library (repeatable; see\n"
           "                    compare_plugin.h): verified, timed and reported like ours\n"
           "  --warmup N        warm-up runs per variant and size (default 2)\n"
           "  --reps N          at least N timed samples (default 10)\n"
           "  --max-reps N      at most N timed samples (default 200)\n"
           "  --max-time SEC    stop sampling after SEC seconds once --reps are in (default 2)\n"
           "  --noise PCT       stop early once the spread (IQR/median) is under PCT (default 1)\n"
           "  --seed N          cuRAND seed (default 2026, printed)\n"
           "  --no-flush        do not flush the L2 cache before each sample (flush is on)\n"
           "  --device D        CUDA device: N (default 0), a list N,M,... or all; several devices\n"
           "                    run the same plan one after another, rows carry device_index,\n"
           "                    device_uuid and pci_bus_id, and a fleet summary follows\n"
           "  --parallel-devices  run the listed devices at the same time, a thread each (host CPU\n"
           "                    cores, PCIe and host memory bandwidth are then shared)\n"
           "  --fleet-threshold PCT  flag a GPU more than PCT below the fleet median of a library\n"
           "                    row's throughput (default 5)\n"
           "  --fleet-serial    compare-mpi: ranks run one after another (automatic for ranks\n"
           "                    that share a GPU)\n"
           "  --fleet-timeout SEC  compare-mpi: a running rank silent for SEC is reported missing\n"
           "                    (default 600)\n"
           "  --csv FILE        also write one CSV row per variant and size to FILE\n"
           "                    (written to a temporary file and renamed when complete)\n"
           "  --format F        stdout format: table (default), md, json\n"
           "  --check-only      verify every variant, time nothing (no speed figures)\n"
           "  --profile         verify each variant, then launch it exactly once (no flush, no\n"
           "                    warm-up) inside an NVTX range named like 'sgemm tuned 4096x4096x4096':\n"
           "                    for nsys and ncu --nvtx --nvtx-include\n"
           "  --metrics         after timing, launch each row once more (untimed, L2 flushed) under\n"
           "                    CUPTI: DRAM and L2 bytes, FP32 FLOPs, occupancy, SM throughput, the\n"
           "                    measured intensity and hints (docs/metrics.md); without counter\n"
           "                    rights the columns stay empty and metrics_note says why\n"
           "  --soak SEC        repeat the whole run for SEC seconds in one process; report device\n"
           "                    memory before/after and the spread of each median across rounds\n"
           "  --discard-throttled  time a variant again (up to 3 times) when NVML saw the GPU slow\n"
           "                    down for power or heat during its samples; the row keeps the last\n"
           "                    try and its mark if it still was (clocks are observed, never set)\n"
           "  --interleave      the default: check every variant of a case first, then time them in\n"
           "                    rounds of one sample each (order reversed every other round), so\n"
           "                    that a power cap or heat that builds up slows them alike, not the\n"
           "                    ones timed last; --reps/--max-reps count rounds, --max-time is per\n"
           "                    variant. A case whose variants' workspaces do not fit in device\n"
           "                    memory together is timed sequentially, and its rows say so\n"
           "  --sequential      time each variant's samples together, one variant after another\n"
           "                    (the order before interleaving became the default; implied by\n"
           "                    --check-only, --profile and --discard-throttled)\n"
           "  --dist LIST       histogram inputs: uniform, skewed (most values in a few bins) or\n"
           "                    both, the default (uniform,skewed); recorded in the CSV\n"
           "  --chunks LIST     transfer: chunks (one stream each) of the overlapped variant (default 4)\n"
           "  --cpu-max-n N     the CPU (OpenMP) sgemm row runs up to max(m,n,k) = N, SKIP beyond\n"
           "                    (default 2048; 0: never)\n"
           "  --quiet           no progress lines on stderr\n"
           "  --version         print the version and exit\n"
           "  --help            this text\n\n"
           "exit status: 0 all passed, 1 a variant failed or a GPU error, 2 bad usage,\n"
           "             77 no usable GPU, 130/143 interrupted (SIGINT/SIGTERM)\n",
           prog, CLI_MAX_SHAPES, SHAPES_MAX_DIM);
}

static int cli_int(const char *opt, const char *v, long lo, long hi, int *out, char *err, size_t len)
{
    char *end;
    long x;
    errno = 0;
    /* strtol would skip leading white space and take a '+' */
    if (!((v[0] >= '0' && v[0] <= '9') || (v[0] == '-' && v[1] >= '0' && v[1] <= '9'))) goto bad;
    x = strtol(v, &end, 10);
    if (*end != '\0') goto bad;
    if (errno == ERANGE || x < lo || x > hi) {
        snprintf(err, len, "%s '%s' is out of range (expected an integer in [%ld, %ld])", opt, v, lo, hi);
        return 2;
    }
    *out = (int)x;
    return 0;
bad:
    snprintf(err, len, "%s '%s' is not an integer (expected an integer in [%ld, %ld])", opt, v, lo, hi);
    return 2;
}

static int cli_double(const char *opt, const char *v, double lo, double hi, double *out, char *err,
                      size_t len)
{
    char *end;
    double x;
    errno = 0;
    /* strtod would skip white space and take '+', "inf", "nan" and hex (0x1p3) */
    if (!((v[0] >= '0' && v[0] <= '9') || v[0] == '.' || v[0] == '-') || strpbrk(v, "xX")) goto bad;
    x = strtod(v, &end);
    if (*end != '\0' || x != x) goto bad;
    /* ERANGE with a tiny result is underflow: the value is ~0, judged by the bounds */
    if ((errno == ERANGE && (x > 1.0 || x < -1.0)) || x < lo || x > hi) {
        snprintf(err, len, "%s '%s' is out of range (expected a number in [%g, %g])", opt, v, lo, hi);
        return 2;
    }
    *out = x;
    return 0;
bad:
    snprintf(err, len, "%s '%s' is not a number (expected a number in [%g, %g])", opt, v, lo, hi);
    return 2;
}

/* Splits a comma list into the caller's argv-owned copy. */
static int cli_names(const char *opt, char *v, const char **out, int cap, int *count, char *err,
                     size_t len)
{
    int n = 0;
    char *p = v;
    if (*p == '\0') {
        snprintf(err, len, "%s: empty list (expected NAME[,NAME...])", opt);
        return 2;
    }
    for (;;) {
        char *c = strchr(p, ',');
        if (c) *c = '\0';
        if (*p == '\0') {
            snprintf(err, len, "%s: empty name in list (expected NAME[,NAME...])", opt);
            return 2;
        }
        for (int i = 0; i < n; i++)
            if (strcmp(out[i], p) == 0) {
                snprintf(err, len, "%s: '%s' is listed twice", opt, p);
                return 2;
            }
        if (n >= cap) {
            snprintf(err, len, "%s: more than %d names", opt, cap);
            return 2;
        }
        out[n++] = p;
        if (!c) break;
        p = c + 1;
    }
    *count = n;
    return 0;
}

/* "a,b,c": the visible variant names (of `op`, or all when NULL), each once. */
static void cli_variant_list(const cli_options *o, const catalog *cat, const char *op, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int i = 0; i < cat->variant_count && used + 1 < len; i++) {
        int dup = 0;
        const variant_info *v = &cat->variants[i];
        if ((op && strcmp(v->op, op) != 0) || !cli_variant_visible(o, v)) continue;
        for (int j = 0; j < i && !dup; j++) dup = strcmp(cat->variants[j].name, v->name) == 0;
        if (dup) continue;
        int w = snprintf(buf + used, len - used, "%s%s", used ? "," : "", v->name);
        if (w < 0) break;
        used += (size_t)w;
    }
}

static void cli_op_list(const catalog *cat, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int i = 0; i < cat->op_count && used + 1 < len; i++) {
        int w = snprintf(buf + used, len - used, "%s%s", used ? "," : "", cat->ops[i].name);
        if (w < 0) break;
        used += (size_t)w;
    }
}

typedef enum {
    OPT_M, OPT_N, OPT_K, OPT_SHAPE, OPT_SHAPES, OPT_ELEMS, OPT_OPS, OPT_VARIANTS, OPT_LIST, OPT_WARMUP,
    OPT_REPS, OPT_MAX_REPS, OPT_MAX_TIME, OPT_NOISE, OPT_SEED, OPT_NO_FLUSH, OPT_DEVICE, OPT_CSV, OPT_FORMAT,
    OPT_QUIET, OPT_VERSION, OPT_HELP, OPT_CHECK_ONLY, OPT_SOAK, OPT_PLUGIN, OPT_PROFILE,
    OPT_DISCARD_THROTTLED, OPT_DIST, OPT_CHUNKS, OPT_CPU_MAX_N, OPT_PARALLEL_DEVICES, OPT_FLEET_THRESHOLD,
    OPT_FLEET_SERIAL, OPT_FLEET_TIMEOUT, OPT_INTERLEAVE, OPT_SEQUENTIAL, OPT_AXIS, OPT_CANDIDATES, OPT_METRICS, OPT_COUNT
} cli_opt_id;

static const struct {
    const char *name;
    int takes_value;
} cli_opts[OPT_COUNT] = {
    [OPT_M] = {"--m", 1},          [OPT_N] = {"--n", 1},           [OPT_K] = {"--k", 1},
    [OPT_SHAPE] = {"--shape", 1},  [OPT_SHAPES] = {"--shapes", 1}, [OPT_ELEMS] = {"--elems", 1},
    [OPT_OPS] = {"--ops", 1},
    [OPT_VARIANTS] = {"--variants", 1}, [OPT_LIST] = {"--list", 0}, [OPT_WARMUP] = {"--warmup", 1},
    [OPT_REPS] = {"--reps", 1},    [OPT_MAX_REPS] = {"--max-reps", 1},
    [OPT_MAX_TIME] = {"--max-time", 1}, [OPT_NOISE] = {"--noise", 1}, [OPT_SEED] = {"--seed", 1},
    [OPT_NO_FLUSH] = {"--no-flush", 0}, [OPT_DEVICE] = {"--device", 1}, [OPT_CSV] = {"--csv", 1},
    [OPT_FORMAT] = {"--format", 1}, [OPT_QUIET] = {"--quiet", 0}, [OPT_VERSION] = {"--version", 0},
    [OPT_HELP] = {"--help", 0},    [OPT_CHECK_ONLY] = {"--check-only", 0},
    [OPT_SOAK] = {"--soak", 1},    [OPT_PLUGIN] = {"--plugin", 1}, [OPT_PROFILE] = {"--profile", 0},
    [OPT_DISCARD_THROTTLED] = {"--discard-throttled", 0},
    [OPT_DIST] = {"--dist", 1},    [OPT_CHUNKS] = {"--chunks", 1}, [OPT_CPU_MAX_N] = {"--cpu-max-n", 1},
    [OPT_PARALLEL_DEVICES] = {"--parallel-devices", 0}, [OPT_FLEET_THRESHOLD] = {"--fleet-threshold", 1},
    [OPT_FLEET_SERIAL] = {"--fleet-serial", 0}, [OPT_FLEET_TIMEOUT] = {"--fleet-timeout", 1},
    [OPT_INTERLEAVE] = {"--interleave", 0}, [OPT_SEQUENTIAL] = {"--sequential", 0}, [OPT_AXIS] = {"--axis", 1},
    [OPT_CANDIDATES] = {"--candidates", 1},
    [OPT_METRICS] = {"--metrics", 0},
};

/* --device: N, a list N,M,... (each ordinal once) or all. */
static int cli_devices(const char *v, cli_options *o, char *err, size_t len)
{
    const char *p = v;
    int n = 0;
    if (strcmp(v, "all") == 0) {
        o->device_all = 1;
        o->device_count = 0; /* counted once the GPU library is loaded */
        return 0;
    }
    for (;;) {
        const char *c = strchr(p, ',');
        size_t l = c ? (size_t)(c - p) : strlen(p);
        long x = 0;
        if (l == 0 || l > 4 || strspn(p, "0123456789") < l) {
            snprintf(err, len, "--device '%s': '%.*s' is not a device ordinal (expected N in [0, %d], a list "
                     "N,M,... or all)", v, (int)(l > 32 ? 32 : l), p, CLI_MAX_ORDINAL);
            return 2;
        }
        for (size_t i = 0; i < l; i++) x = x * 10 + (p[i] - '0');
        if (x > CLI_MAX_ORDINAL) {
            snprintf(err, len, "--device '%s' is out of range (expected ordinals in [0, %d])", v, CLI_MAX_ORDINAL);
            return 2;
        }
        for (int i = 0; i < n; i++)
            if (o->devices[i] == (int)x) {
                snprintf(err, len, "--device '%s': device %ld is listed twice", v, x);
                return 2;
            }
        if (n == CLI_MAX_DEVICES) {
            snprintf(err, len, "--device '%s': more than %d devices", v, CLI_MAX_DEVICES);
            return 2;
        }
        o->devices[n++] = (int)x;
        if (!c) break;
        p = c + 1;
    }
    o->device_count = n;
    o->device = o->devices[0];
    return 0;
}

int cli_axis_set(cli_options *o, const char *opt, const char *name, const char *list, char *err, size_t err_len)
{
    size_t l = strlen(name);
    if (l == 0 || l >= CLI_AXIS_NAME_LEN || strspn(name, "abcdefghijklmnopqrstuvwxyz0123456789_") != l) {
        snprintf(err, err_len, "%s: '%.*s' is not an axis name (expected NAME=LIST, NAME of a-z, 0-9, _)", opt,
                 (int)(l > 40 ? 40 : l), name);
        return 2;
    }
    if (axes_is_shape_dim(name) || strcmp(name, "elems") == 0) {
        snprintf(err, err_len, "%s: axis %s is set through the shape or length options", opt, name);
        return 2;
    }
    if (list[0] == '\0') {
        snprintf(err, err_len, "%s: empty LIST (expected %s=LIST)", opt, name);
        return 2;
    }
    for (int i = 0; i < o->axis_arg_count; i++)
        if (strcmp(o->axis_args[i].name, name) == 0) {
            snprintf(err, err_len, "%s: axis %s is already set by %s", opt, name, o->axis_args[i].opt);
            return 2;
        }
    if (o->axis_arg_count == CLI_MAX_AXIS_ARGS) {
        snprintf(err, err_len, "%s: more than %d axes set", opt, CLI_MAX_AXIS_ARGS);
        return 2;
    }
    cli_axis_arg *a = &o->axis_args[o->axis_arg_count++];
    snprintf(a->name, sizeof a->name, "%s", name);
    snprintf(a->opt, sizeof a->opt, "%s", opt);
    a->list = list;
    return 0;
}

/* --axis NAME=LIST of m, n, k or elems: the option it stands for (the shape
 * and length options), else -1 (another axis: cli_axis_set). */
static int cli_axis_shorthand(const char *name, size_t len)
{
    static const struct {
        const char *name;
        cli_opt_id id;
    } map[] = {{"m", OPT_M}, {"n", OPT_N}, {"k", OPT_K}, {"elems", OPT_ELEMS}};
    for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
        if (strlen(map[i].name) == len && strncmp(map[i].name, name, len) == 0) return map[i].id;
    return -1;
}

int cli_parse(int argc, char **argv, cli_options *o, char *err, size_t err_len)
{
    int seen[OPT_COUNT] = {0};
    /* GEMM shapes: the --m/--n/--k lists, then the three sources (the product,
     * --shape, --shapes) with the argv index each first appeared at (0: absent) */
    long long dims[3][SIZES_MAX_COUNT];
    int dim_count[3] = {0, 0, 0};
    shapes_list from[3], all;
    int pos[3] = {0, 0, 0};
    cli_defaults(o);
    err[0] = '\0';
    for (int s = 0; s < 3; s++) shapes_init(&from[s]);
    for (int i = 1; i < argc; i++) {
        char *arg = argv[i];
        char *value = NULL;
        char *eq;
        int id = -1;
        int rc = 0;
        if (strcmp(arg, "-h") == 0) arg = "--help";
        if (strncmp(arg, "--", 2) != 0) {
            snprintf(err, err_len, "unexpected argument '%s' (options start with --; see --help)", arg);
            return 2;
        }
        eq = strchr(arg, '=');
        for (int j = 0; j < OPT_COUNT; j++) {
            size_t l = strlen(cli_opts[j].name);
            if (strncmp(arg, cli_opts[j].name, l) == 0 && (arg[l] == '\0' || arg[l] == '=')) {
                id = j;
                break;
            }
        }
        if (id < 0) {
            snprintf(err, err_len, "unknown option '%s' (see --help)", arg);
            return 2;
        }
        if (cli_opts[id].takes_value) {
            if (eq) value = eq + 1;
            else if (i + 1 < argc) value = argv[++i];
            else {
                snprintf(err, err_len, "%s needs a value (see --help)", cli_opts[id].name);
                return 2;
            }
        } else if (eq) {
            snprintf(err, err_len, "%s takes no value", cli_opts[id].name);
            return 2;
        }
        const char *opt = cli_opts[id].name;
        char sub[400], axis_opt[CLI_AXIS_NAME_LEN + 8];
        if (id == OPT_AXIS) {
            /* --axis m=LIST is --m LIST (and so on): the same option, seen once */
            const char *e = strchr(value, '=');
            int short_id = e ? cli_axis_shorthand(value, (size_t)(e - value)) : -1;
            if (!e || e == value) {
                snprintf(err, err_len, "--axis '%s' is not NAME=LIST (e.g. --axis k=1024:4096:1024)", value);
                return 2;
            }
            const int name_len = (int)(e - value < CLI_AXIS_NAME_LEN ? e - value : CLI_AXIS_NAME_LEN - 1);
            snprintf(axis_opt, sizeof axis_opt, "--axis %.*s", name_len, value);
            if (short_id >= 0) {
                id = short_id;
                opt = axis_opt;
                value = (char *)e + 1;
            }
        }
        if (seen[id]++ && id != OPT_PLUGIN && id != OPT_AXIS) {
            int alias = id == OPT_M || id == OPT_N || id == OPT_K || id == OPT_ELEMS;
            snprintf(err, err_len, "%s given more than once%s%s%s", cli_opts[id].name,
                     alias ? " (--axis " : "", alias ? cli_opts[id].name + 2 : "", alias ? " is the same option)" : "");
            return 2;
        }
        switch ((cli_opt_id)id) {
        case OPT_M:
        case OPT_N:
        case OPT_K: {
            int d = id == OPT_M ? 0 : id == OPT_N ? 1 : 2;
            if (sizes_parse(value, 1, SHAPES_MAX_DIM, dims[d], SIZES_MAX_COUNT, &dim_count[d], sub,
                            sizeof sub)) {
                snprintf(err, err_len, "%s '%s': %s", opt, value, sub);
                return 2;
            }
            if (!pos[0]) pos[0] = i;
            if (!o->gemm_option) {
                static const char *const names[3][2] = {{"--m", "--axis m"}, {"--n", "--axis n"}, {"--k", "--axis k"}};
                o->gemm_option = names[d][opt == axis_opt];
            }
            break;
        }
        case OPT_SHAPE:
            if (shapes_parse_list(opt, value, &from[1], err, err_len)) return 2;
            pos[1] = i;
            if (!o->gemm_option) o->gemm_option = opt;
            break;
        case OPT_SHAPES:
            if (shapes_read_file(opt, value, &from[2], err, err_len)) return 2;
            pos[2] = i;
            if (!o->gemm_option) o->gemm_option = opt;
            break;
        case OPT_ELEMS:
            o->elems_option = opt == axis_opt ? "--axis elems" : "--elems";
            if (sizes_parse(value, 1, CLI_MAX_ELEMS, o->elems, SIZES_MAX_COUNT, &o->elems_count, sub,
                            sizeof sub)) {
                snprintf(err, err_len, "%s '%s': %s", opt, value, sub);
                return 2;
            }
            break;
        case OPT_OPS:
            rc = cli_names(opt, value, o->op_names, CLI_MAX_OPS, &o->op_name_count, err, err_len);
            break;
        case OPT_VARIANTS:
            rc = cli_names(opt, value, o->variants, CLI_MAX_VARIANTS, &o->variant_count, err, err_len);
            break;
        case OPT_CANDIDATES:
            rc = cli_names(opt, value, o->candidates, CLI_MAX_FAMILIES, &o->candidate_count, err, err_len);
            break;
        case OPT_LIST: o->list = 1; break;
        case OPT_WARMUP: rc = cli_int(opt, value, 0, 1000, &o->warmup, err, err_len); break;
        case OPT_REPS: rc = cli_int(opt, value, 1, 100000, &o->min_reps, err, err_len); break;
        case OPT_MAX_REPS: rc = cli_int(opt, value, 1, 100000, &o->max_reps, err, err_len); break;
        case OPT_MAX_TIME: rc = cli_double(opt, value, 0.0, 3600.0, &o->max_time_s, err, err_len); break;
        case OPT_NOISE: rc = cli_double(opt, value, 0.0, 100.0, &o->noise_pct, err, err_len); break;
        case OPT_SEED: {
            char *end;
            errno = 0;
            if (value[0] < '0' || value[0] > '9') {
                snprintf(err, err_len, "--seed '%s' is not a non-negative integer", value);
                return 2;
            }
            o->seed = strtoull(value, &end, 10);
            if (*end != '\0' || errno == ERANGE) {
                snprintf(err, err_len, "--seed '%s' is not a non-negative 64-bit integer", value);
                return 2;
            }
            break;
        }
        case OPT_NO_FLUSH: o->flush = 0; break;
        case OPT_DEVICE:
            rc = cli_devices(value, o, err, err_len);
            o->device_given = 1;
            break;
        case OPT_PARALLEL_DEVICES: o->parallel_devices = 1; break;
        case OPT_FLEET_THRESHOLD: rc = cli_double(opt, value, 0.0, 100.0, &o->fleet_threshold_pct, err, err_len); break;
        case OPT_FLEET_SERIAL: o->fleet_serial = 1; break;
        case OPT_FLEET_TIMEOUT: rc = cli_double(opt, value, 1.0, 86400.0, &o->fleet_timeout_s, err, err_len); break;
        case OPT_CSV:
            if (csv_check_target(value, err, err_len)) return 2;
            o->csv_path = value;
            break;
        case OPT_FORMAT:
            if (strcmp(value, "table") == 0) o->format = CLI_FORMAT_TABLE;
            else if (strcmp(value, "md") == 0) o->format = CLI_FORMAT_MD;
            else if (strcmp(value, "json") == 0) o->format = CLI_FORMAT_JSON;
            else {
                snprintf(err, err_len, "--format '%s' is unknown (expected table, md or json)", value);
                return 2;
            }
            break;
        case OPT_QUIET: o->progress = 0; break;
        case OPT_VERSION: o->version = 1; break;
        case OPT_HELP: o->help = 1; break;
        case OPT_CHECK_ONLY: o->check_only = 1; break;
        case OPT_SOAK: rc = cli_double(opt, value, 1.0, 86400.0, &o->soak_s, err, err_len); break;
        case OPT_PLUGIN:
            if (value[0] == '\0') {
                snprintf(err, err_len, "--plugin: empty path (expected a shared library, e.g. ./libmine.so)");
                return 2;
            }
            if (o->plugin_count == CLI_MAX_PLUGINS) {
                snprintf(err, err_len, "--plugin: more than %d plugins", CLI_MAX_PLUGINS);
                return 2;
            }
            for (int j = 0; j < o->plugin_count; j++)
                if (strcmp(o->plugins[j], value) == 0) {
                    snprintf(err, err_len, "--plugin '%s' given twice", value);
                    return 2;
                }
            o->plugins[o->plugin_count++] = value;
            break;
        case OPT_PROFILE: o->profile = 1; break;
        case OPT_METRICS: o->metrics = 1; break;
        case OPT_DISCARD_THROTTLED: o->discard_throttled = 1; break;
        case OPT_INTERLEAVE: o->interleave = 1; break;
        case OPT_SEQUENTIAL: o->interleave = 0; break;
        /* the shorthands of the ops' own axes; their values are checked against
           the ops that have them once the catalog is known (cli_resolve) */
        case OPT_DIST: rc = cli_axis_set(o, opt, "dist", value, err, err_len); break;
        case OPT_CHUNKS: rc = cli_axis_set(o, opt, "chunks", value, err, err_len); break;
        case OPT_CPU_MAX_N: rc = cli_axis_set(o, opt, "cpu_max_n", value, err, err_len); break;
        case OPT_AXIS: {
            char *e = strchr(value, '=');
            *e = '\0'; /* NAME=LIST: found above */
            rc = cli_axis_set(o, axis_opt, value, e + 1, err, err_len);
            *e = '=';
            break;
        }
        case OPT_COUNT: break;
        }
        if (rc) return rc;
    }
    if (pos[0] || pos[1] || pos[2]) {
        const long long *const dimv[3] = {dims[0], dims[1], dims[2]};
        int order[3] = {0, 1, 2};
        if (pos[0] && shapes_product(dimv, dim_count, &from[0], err, err_len)) return 2;
        /* the sources in command-line order (three items: a bubble sort) */
        for (int a = 0; a < 2; a++)
            for (int b = 0; b < 2 - a; b++)
                if (pos[order[b]] > pos[order[b + 1]]) {
                    int t = order[b];
                    order[b] = order[b + 1];
                    order[b + 1] = t;
                }
        shapes_init(&all);
        for (int j = 0; j < 3; j++)
            if (shapes_merge(&all, &from[order[j]], err, err_len)) return 2;
        memcpy(o->gemm, all.shape, (size_t)all.count * sizeof all.shape[0]);
        o->gemm_count = all.count;
    }
    /* one bound given alone moves the other's default out of its way */
    if (seen[OPT_REPS] && !seen[OPT_MAX_REPS] && o->max_reps < o->min_reps) o->max_reps = o->min_reps;
    if (seen[OPT_MAX_REPS] && !seen[OPT_REPS] && o->min_reps > o->max_reps) o->min_reps = o->max_reps;
    if (o->soak_s > 0 && o->csv_path) {
        snprintf(err, err_len, "--soak and --csv conflict (a soak reports a summary, not rows)");
        return 2;
    }
    if (o->soak_s > 0 && o->check_only) {
        snprintf(err, err_len, "--soak and --check-only conflict (a soak times every round)");
        return 2;
    }
    if (o->min_reps > o->max_reps) {
        snprintf(err, err_len, "--reps %d is more than --max-reps %d", o->min_reps, o->max_reps);
        return 2;
    }
    if (o->soak_s > 0 && (o->device_count > 1 || o->device_all)) {
        snprintf(err, err_len, "--soak takes one device (--device N)");
        return 2;
    }
    if (o->format == CLI_FORMAT_JSON && (o->device_count > 1 || o->device_all)) {
        snprintf(err, err_len, "--format json takes one device (--device N); with several, use --csv");
        return 2;
    }
    if (seen[OPT_INTERLEAVE] && seen[OPT_SEQUENTIAL]) {
        snprintf(err, err_len, "--interleave and --sequential conflict (choose one timing order)");
        return 2;
    }
    if (seen[OPT_INTERLEAVE] && (o->discard_throttled || o->profile || o->check_only)) {
        snprintf(err, err_len, "--interleave conflicts with %s (%s)",
                 o->discard_throttled ? "--discard-throttled" : o->profile ? "--profile" : "--check-only",
                 o->discard_throttled ? "it times one variant again on its own" : "it times nothing");
        return 2;
    }
    /* interleaved is the default; these time one variant at a time (or nothing) */
    if (o->discard_throttled || o->profile || o->check_only) o->interleave = 0;
    if (o->profile && (o->soak_s > 0 || o->check_only)) {
        snprintf(err, err_len, "--profile conflicts with %s (it launches each variant once)",
                 o->soak_s > 0 ? "--soak" : "--check-only");
        return 2;
    }
    if (o->metrics && (o->profile || o->check_only || o->soak_s > 0)) {
        snprintf(err, err_len, "--metrics conflicts with %s (it measures each timed row once more)",
                 o->profile ? "--profile" : o->check_only ? "--check-only" : "--soak");
        return 2;
    }
    o->size_given[0] = o->gemm_option != NULL;
    o->size_given[1] = seen[OPT_ELEMS] > 0;
    return 0;
}

/* 1 if --candidates names `family`. */
static int cli_family_selected(const cli_options *o, const char *family)
{
    for (int i = 0; i < o->candidate_count; i++)
        if (strcmp(o->candidates[i], family) == 0) return 1;
    return 0;
}

int cli_variant_visible(const cli_options *o, const variant_info *v)
{
    const char *family = catalog_family(v);
    if (family && !cli_family_selected(o, family)) return 0;
    return !v->test_only || o->test_variants;
}

/* "a, b": the candidate families of the catalog, each once, in catalog order. */
static void cli_family_list(const catalog *cat, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int i = 0; i < cat->variant_count && used + 1 < len; i++) {
        const char *f = catalog_family(&cat->variants[i]);
        int dup = 0;
        if (!f) continue;
        for (int j = 0; j < i && !dup; j++) {
            const char *g = catalog_family(&cat->variants[j]);
            dup = g && strcmp(g, f) == 0;
        }
        if (dup) continue;
        int w = snprintf(buf + used, len - used, "%s%s", used ? ", " : "", f);
        if (w < 0) break;
        used += (size_t)w;
    }
}

/* Checks each --candidates family against the catalog and, with --ops, that
 * its op runs; adds the op of each to `mask`. 0, or 2 with err. */
static int cli_resolve_families(const cli_options *o, const catalog *cat, unsigned *mask, char *err, size_t err_len)
{
    char list[512];
    for (int i = 0; i < o->candidate_count; i++) {
        int found = -1;
        for (int j = 0; j < cat->variant_count && found < 0; j++)
            if (catalog_family(&cat->variants[j]) && strcmp(catalog_family(&cat->variants[j]), o->candidates[i]) == 0)
                found = j;
        if (found < 0) {
            cli_family_list(cat, list, sizeof list);
            snprintf(err, err_len, "--candidates: unknown family '%s' (known: %s)", o->candidates[i],
                     list[0] ? list : "none built");
            return 2;
        }
        const int op = catalog_op(cat, cat->variants[found].op);
        if (o->op_name_count && !cli_op_runs(o, op)) {
            snprintf(err, err_len, "--candidates '%s' is a family of %s but --ops does not include %s",
                     o->candidates[i], cat->variants[found].op, cat->variants[found].op);
            return 2;
        }
        *mask |= 1u << op;
    }
    return 0;
}

int cli_op_runs(const cli_options *o, int op_index)
{
    return op_index >= 0 && op_index < CLI_MAX_OPS && (o->op_mask >> op_index & 1u);
}

/* 0 for the ops the GEMM shape options size (GEMM and matrix ops), 1 for --elems */
static int cli_size_kind(op_size_kind k) { return k == OP_SIZE_ELEMS ? 1 : 0; }

/* "sgemm" or "sgemm, reduce": the names of the ops sized by `kind`. */
static void cli_sized_ops(const catalog *cat, op_size_kind kind, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int i = 0; i < cat->op_count && used + 1 < len; i++) {
        if (cli_size_kind(cat->ops[i].size_kind) != (int)kind) continue;
        int w = snprintf(buf + used, len - used, "%s%s", used ? ", " : "", cat->ops[i].name);
        if (w < 0) break;
        used += (size_t)w;
    }
}

int cli_resolve(cli_options *o, const catalog *cat, char *err, size_t err_len)
{
    char list[2048];
    if (cat->op_count > CLI_MAX_OPS) {
        snprintf(err, err_len, "the catalog holds %d ops, more than %d", cat->op_count, CLI_MAX_OPS);
        return 2;
    }
    o->op_mask = 0;
    for (int i = 0; i < o->op_name_count; i++) {
        int op = catalog_op(cat, o->op_names[i]);
        if (op < 0) {
            cli_op_list(cat, list, sizeof list);
            snprintf(err, err_len, "--ops: unknown op '%s' (known: %s)", o->op_names[i], list);
            return 2;
        }
        o->op_mask |= 1u << op;
    }
    /* every named variant must exist; with --ops, its op must be among them */
    for (int i = 0; i < o->variant_count; i++) {
        int found = -1;
        for (int j = 0; j < cat->variant_count; j++) {
            if (strcmp(o->variants[i], cat->variants[j].name) != 0 || !cli_variant_visible(o, &cat->variants[j]))
                continue;
            int op = catalog_op(cat, cat->variants[j].op);
            if (found < 0 || (o->op_name_count && cli_op_runs(o, op))) found = j;
        }
        if (found < 0) {
            cli_variant_list(o, cat, NULL, list, sizeof list);
            snprintf(err, err_len, "--variants: unknown variant '%s' (known: %s)", o->variants[i], list);
            return 2;
        }
        if (o->op_name_count && !cli_op_runs(o, catalog_op(cat, cat->variants[found].op))) {
            snprintf(err, err_len, "--variants '%s' is a %s variant but --ops does not include %s", o->variants[i],
                     cat->variants[found].op, cat->variants[found].op);
            return 2;
        }
    }
    unsigned family_ops = 0;
    if (cli_resolve_families(o, cat, &family_ops, err, err_len)) return 2;
    if (o->op_name_count == 0) {
        /* with --variants or --candidates and no --ops, run only the ops they belong to */
        o->op_mask = family_ops;
        for (int i = 0; i < o->variant_count; i++)
            for (int j = 0; j < cat->variant_count; j++)
                if (strcmp(o->variants[i], cat->variants[j].name) == 0 && cli_variant_visible(o, &cat->variants[j]))
                    o->op_mask |= 1u << catalog_op(cat, cat->variants[j].op);
        if (o->variant_count == 0 && o->candidate_count == 0)
            o->op_mask = cat->op_count >= 32 ? ~0u : (1u << cat->op_count) - 1u;
    }
    /* a size option must size something that runs */
    for (int kind = 0; kind < 2; kind++) {
        int used = 0;
        if (!o->size_given[kind]) continue;
        for (int i = 0; i < cat->op_count; i++) used |= cli_op_runs(o, i) && cli_size_kind(cat->ops[i].size_kind) == kind;
        if (!used) {
            cli_sized_ops(cat, kind ? OP_SIZE_ELEMS : OP_SIZE_GEMM, list, sizeof list);
            snprintf(err, err_len, "%s is given but no op it sizes is run (it sizes %s)",
                     kind == 0 ? o->gemm_option : o->elems_option, list[0] ? list : "none");
            return 2;
        }
    }
    return axes_check(o, cat, err, err_len);
}
