/* src/core/cli.h: command-line options of `compare`. */
#ifndef COMPARE_CLI_H
#define COMPARE_CLI_H

#include <stddef.h>

#include "sizes.h"

#define CLI_MAX_VARIANTS 64
#define CLI_MAX_SHAPES SIZES_MAX_COUNT /* GEMM shapes one run may list */

enum { CLI_OP_SGEMM = 1, CLI_OP_REDUCE = 2, CLI_OP_SORT = 4, CLI_OP_ALL = 7 };
typedef enum { CLI_FORMAT_TABLE, CLI_FORMAT_MD, CLI_FORMAT_JSON } cli_format;

/* One GEMM problem: C (m x n) = A (m x k) * B (k x n). */
typedef struct {
    long long m, n, k;
} cli_shape;

typedef struct {
    cli_shape gemm[CLI_MAX_SHAPES];     /* GEMM shapes, in the order given (--n: m = n = k) */
    int gemm_count;
    long long elems[SIZES_MAX_COUNT];   /* reduce/sort lengths */
    int elems_count;
    int ops;                            /* CLI_OP_* mask */
    const char *variants[CLI_MAX_VARIANTS]; /* selected variant names (into argv); 0 = all */
    int variant_count;
    int list, help, version;            /* informational modes */
    int warmup;                         /* warm-up runs per variant and size */
    int min_reps;                       /* at least this many timed samples */
    int max_reps;                       /* at most this many */
    double max_time_s;                  /* stop sampling after this long once min_reps are in */
    double noise_pct;                   /* stop early once the spread is under this */
    unsigned long long seed;            /* cuRAND seed */
    int flush;                          /* flush L2 before each sample */
    int device;                         /* CUDA device ordinal */
    const char *csv_path;               /* --csv FILE or NULL */
    cli_format format;                  /* stdout format */
    int progress;                       /* progress lines on stderr (on unless --quiet) */
    int check_only;                     /* verify every variant, time nothing */
    double soak_s;                      /* > 0: repeat the whole plan for this long (leak/stability check) */
} cli_options;

/* Known variants, for validating --variants: names[i] belongs to ops_of[i]
 * ("sgemm" | "reduce" | "sort"). */
typedef struct {
    const char *const *names;
    const char *const *ops_of;
    int count;
} cli_known;

void cli_defaults(cli_options *o);
/* Returns 0 on success, 2 on a usage error (message in err naming the bad
 * argument and the accepted form). */
int cli_parse(int argc, char **argv, const cli_known *known, cli_options *o,
              char *err, size_t err_len);
void cli_print_help(const char *prog);
/* Maps an op name to its CLI_OP_* bit, 0 if unknown. */
int cli_op_bit(const char *op);

#endif
