/* src/core/cli.h: command-line options of `compare`. The sizes are the ops'
 * axes (catalog.h): --axis NAME=LIST sets any of them; --n, --m, --k,
 * --shape, --shapes, --elems, --dist, --chunks and --cpu-max-n are
 * shorthands for axes m, n, k, elems, dist, chunks and cpu_max_n. No op's
 * own knob has a field here: the ops read their axes from the plan case. */
#ifndef COMPARE_CLI_H
#define COMPARE_CLI_H

#include <stddef.h>

#include "sizes.h"

#include "catalog.h"

#define CLI_MAX_VARIANTS 64
#define CLI_MAX_OPS 32                 /* ops one catalog may hold (one bit each in op_mask) */
#define CLI_MAX_PLUGINS 16
#define CLI_MAX_SHAPES SIZES_MAX_COUNT /* GEMM shapes one run may list */
#define CLI_MAX_DEVICES 64             /* devices one --device list may name */
#define CLI_MAX_ORDINAL 1023           /* the largest CUDA device ordinal accepted */
#define CLI_MAX_FAMILIES 8             /* candidate families one --candidates list may name */
#define CLI_MAX_AXIS_ARGS 16           /* axes (other than m, n, k, elems) one command line may set */
#define CLI_AXIS_NAME_LEN 32           /* an axis name, NUL included */

typedef enum { CLI_FORMAT_TABLE, CLI_FORMAT_MD, CLI_FORMAT_JSON } cli_format;

/* One GEMM problem: C (m x n) = A (m x k) * B (k x n). */
typedef struct {
    long long m, n, k;
} cli_shape;

/* An axis set on the command line other than m, n, k and elems (which go
 * to gemm[] and elems[]): its LIST is checked against each op that has the
 * axis once the catalog is known (cli_resolve), and read by the plan. */
typedef struct {
    char name[CLI_AXIS_NAME_LEN];       /* "dist", "chunks", "cpu_max_n", ... */
    const char *list;                   /* its LIST as given (into argv) */
    char opt[CLI_AXIS_NAME_LEN + 8];    /* how it was given, for messages: "--axis chunks", "--chunks" */
} cli_axis_arg;

typedef struct {
    cli_shape gemm[CLI_MAX_SHAPES];     /* GEMM shapes, in the order given (--n: m = n = k); none: each
                                           op's m, n, k axis defaults */
    int gemm_count;
    long long elems[SIZES_MAX_COUNT];   /* lengths (--elems, --axis elems); none: each op's default */
    int elems_count;
    const char *op_names[CLI_MAX_OPS];  /* --ops as given (into argv); 0 = all */
    int op_name_count;
    unsigned op_mask;                   /* after cli_resolve: bit i = catalog op i runs */
    const char *variants[CLI_MAX_VARIANTS]; /* selected variant names (into argv); 0 = all */
    int variant_count;
    const char *candidates[CLI_MAX_FAMILIES]; /* --candidates: search-candidate families made visible
                                           (variant_info.family; into argv); 0 = none */
    int candidate_count;
    const char *plugins[CLI_MAX_PLUGINS]; /* --plugin PATH, in the order given */
    int plugin_count;
    int size_given[2];                  /* a size option was given: [0] a GEMM shape option, [1] --elems */
    const char *gemm_option;            /* the first GEMM size option given ("--n", "--shape", ...), or NULL */
    const char *elems_option;           /* the length option given ("--elems", "--axis elems"), or NULL */
    int list, help, version;            /* informational modes */
    int warmup;                         /* warm-up runs per variant and size */
    int min_reps;                       /* at least this many timed samples */
    int max_reps;                       /* at most this many */
    double max_time_s;                  /* stop sampling after this long once min_reps are in */
    double noise_pct;                   /* stop early once the spread is under this */
    unsigned long long seed;            /* cuRAND seed */
    int flush;                          /* flush L2 before each sample */
    int device;                         /* CUDA device ordinal (the first of --device's list) */
    int devices[CLI_MAX_DEVICES];       /* --device N or N,M,...: the ordinals, in the order given */
    int device_count;                   /* how many (1 by default: device 0) */
    int device_all;                     /* --device all: every device present (counted once loaded) */
    int device_given;                   /* --device was given (MPI: else each rank takes its node-local rank's) */
    int parallel_devices;               /* --parallel-devices: the listed devices run at once, a thread each */
    double fleet_threshold_pct;         /* --fleet-threshold: a GPU this far below the fleet median is flagged */
    int fleet_serial;                   /* --fleet-serial: MPI ranks run one after another */
    double fleet_timeout_s;             /* --fleet-timeout: a running rank silent this long is missing */
    const char *csv_path;               /* --csv FILE or NULL */
    cli_format format;                  /* stdout format */
    int progress;                       /* progress lines on stderr (on unless --quiet) */
    int check_only;                     /* verify every variant, time nothing */
    double soak_s;                      /* > 0: repeat the whole plan for this long (leak/stability check) */
    int profile;                        /* --profile: verify, then launch each variant once, untimed */
    int metrics;                        /* --metrics: after timing, one counter launch per row (CUPTI) */
    int discard_throttled;              /* --discard-throttled: re-sample rows measured while throttled */
    int interleave;                     /* 1 (default): a case's variants timed in rounds, one sample each; 0 --sequential */
    cli_axis_arg axis_args[CLI_MAX_AXIS_ARGS]; /* the other axes set (--axis NAME=LIST, --dist, --chunks,
                                                   --cpu-max-n), in the order given; checked by cli_resolve */
    int axis_arg_count;
    int test_variants;                  /* COMPARE_TEST_VARIANTS=1: the test-only rows are visible */
} cli_options;

void cli_defaults(cli_options *o);
/* Parses the command line: syntax and values. Names of ops and variants are
 * only recorded here (the catalog is not loaded yet: --help and --version
 * must not load the GPU libraries); cli_resolve checks them. Returns 0 on
 * success, 2 on a usage error (message in err naming the bad argument and
 * the accepted form). */
int cli_parse(int argc, char **argv, cli_options *o, char *err, size_t err_len);
/* Checks the names against the catalog (its visible rows) and settles which
 * ops run: --ops as given; else the ops of the --variants named and of the
 * --candidates families; else all. Returns 0, or 2 with a message (unknown
 * op, variant or candidate family, a variant or family outside --ops, a size
 * option that no op run uses). */
int cli_resolve(cli_options *o, const catalog *cat, char *err, size_t err_len);
/* Records axis `name` = `list` as given by option `opt` ("--axis NAME",
 * "--dist"): m, n, k and elems are refused here (cli_parse gives them to the
 * shape and length lists), as is a name set twice or not [a-z0-9_]+. 0 or 2
 * with err. */
int cli_axis_set(cli_options *o, const char *opt, const char *name, const char *list, char *err, size_t err_len);
/* 1 if the variant is visible: not test-only (or COMPARE_TEST_VARIANTS=1),
 * and not a search candidate (or one of a family --candidates names). */
int cli_variant_visible(const cli_options *o, const variant_info *v);
/* 1 if op `i` of the catalog runs (after cli_resolve). */
int cli_op_runs(const cli_options *o, int op_index);
void cli_print_help(const char *prog);

#endif
