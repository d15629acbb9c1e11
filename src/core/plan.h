/* src/core/plan.h: what a run will do, worked out on the CPU before any GPU
 * work: the cases (each op's product of axes), the variants of each in run
 * order, and, once the rows are measured, their throughputs and percents.
 * Pure logic over the catalog, so the cpu tests pin it down. */
#ifndef COMPARE_PLAN_H
#define COMPARE_PLAN_H

#include <stddef.h>

#include "catalog.h"
#include "cli.h"
#include "results.h"

#define PLAN_MAX_VARIANTS 64  /* variants one case may run */
#define PLAN_MAX_CASES 4096   /* cases one op's product of axes may make */

typedef struct {
    int op;                           /* index into the catalog's ops */
    long long m, n, k;                /* its axes m, n, k (0 for an op without them) */
    long long elems;                  /* its axis elems (0 for an op without it) */
    const char *type;                 /* its axis type: the element type, else NULL */
    const char *dist;                 /* its axis dist: the input distribution, else NULL */
    const op_axis *axes;              /* the op's axes (op_info.axes), axis_count of them */
    int axis_count;
    long long axis_num[OP_MAX_AXES];  /* each integer axis's value in this case (options too) */
    const char *axis_name[OP_MAX_AXES]; /* each enum axis's value (NULL for the integer ones) */
    char shape[128];                  /* the canonical axis string: its integer axes that are not options,
                                         in the op's order, "m=4096,n=4096,k=1024", "elems=67108864" */
    int variant[PLAN_MAX_VARIANTS];   /* indices into the catalog's variants, in run order */
    int variant_count;
    char label[96];                   /* "sgemm 4096x4096x4096", "sort u32 elems=2^26" */
    char nvtx[96];                    /* prefix of its NVTX ranges: "sgemm 4096x4096x4096" */
    const cli_options *opts;          /* the run's options (how it is timed; the op's knobs are axes) */
} plan_case;

typedef struct {
    plan_case *cases;                 /* malloc'ed */
    int count;
    int runs;                         /* variant runs in all (for progress) */
} plan;

/* Builds the plan of a resolved cli_options (cli_resolve) over the visible
 * catalog: ops in catalog order, then per op the product of its axes
 * (axes.h), the first axis outermost: the GEMM shapes (m, n, k) in the order
 * given, each op's part of them once (transpose: m x n); then, for today's
 * ops, lengths, element types, input distributions; per case the variants selected (all visible when
 * --variants is absent; with --candidates and no --variants, the candidates and the op's library rows;
 * with both, the rows named and each family whole unless --variants names some of its candidates) plus
 * the op's reference and fastest library rows, which always run because the
 * percents need them, ordered: reference library, fastest library, other
 * libraries, hand rows in catalog order. Returns 0; 2 with err when an op
 * has more than PLAN_MAX_VARIANTS selected (a usage error); -1 with err when
 * out of memory. */
int plan_build(plan *p, const cli_options *o, const catalog *cat, char *err, size_t err_len);
void plan_free(plan *p);

/* The value of integer axis `name` of the case (options too); -1 when its
 * op has no integer axis of that name. */
long long plan_case_axis(const plan_case *pc, const char *name);
/* The value of enum axis `name` of the case; NULL when none. */
const char *plan_case_axis_name(const plan_case *pc, const char *name);

/* Fills the throughput, %ref, %best and %peak of a case's rows from their
 * medians: throughput in the op's rate unit, %ref / %best = library median
 * / hand median x 100 against the rows named by each hand row's
 * ref_library and against the fastest library row of the case (its name
 * then in best_library; only rows that passed and were timed count),
 * %peak against the device ceiling of the op: compute ops, the peak of the
 * row's own math (peaks.h: fp32 SIMT, or the dense tf32/fp16/bf16/fp8
 * tensor rate; peak_math and peak_tflops record which and how much; none
 * when the peak table does not know the math on this GPU), memory-bound
 * ops the DRAM bandwidth; the row's measured SM / memory clock, when known,
 * sets the ceiling at the clock the row really ran at, else the device
 * maximum;
 * and marks the row of the op's speed-up pair (op_info.speedup); then each
 * row's roofline columns (roofline_fill: intensity, bound, the measured
 * intensity and the hints). */
void plan_percents(const op_info *op, const device_info *dev, result_row *rows, int count);

/* Whether a case fits in free device memory: base (its buffers, the growth
 * of launchers' own buffers and the reserve) plus its workspaces, summed
 * when its variants are timed interleaved (each keeps a slice), the largest
 * when they are timed one after another. */
typedef enum { PLAN_FITS_INTERLEAVED, PLAN_FITS_SEQUENTIAL, PLAN_FITS_NOT } plan_fit;
plan_fit plan_case_fit(size_t base, size_t ws_largest, size_t ws_sum, size_t free_bytes, int want_interleaved);

/* The throughput the table shows for a row, in its op's unit; < 0 n/a. */
double plan_row_throughput(const result_row *r);

#endif
