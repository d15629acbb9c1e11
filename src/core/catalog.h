/* src/core/catalog.h: what the run can measure, as plain data. Two tables,
 * read by everything (the plan, the table, the CSV, --list, the tests):
 *   op_info      one row per operation (sgemm, reduce, sort, ...);
 *   variant_info one row per variant of an op, hand or library.
 * The GPU side owns the rows (src/gpu/op_*.c, each op's file holding its own
 * variants; plugins add theirs at start-up) and hands the core these views;
 * the core never sees a function pointer or a CUDA type. */
#ifndef COMPARE_CATALOG_H
#define COMPARE_CATALOG_H

#include <stddef.h>

/* What sizes an op: GEMM shapes (--n, --shape, --m/--n/--k, --shapes), a
 * matrix m x n (the same options; k is not used) or a length (--elems). The
 * shorthands feed the op's axes of those names (m, n, k, elems). */
typedef enum { OP_SIZE_GEMM, OP_SIZE_ELEMS, OP_SIZE_MATRIX } op_size_kind;
/* The throughput an op is reported in. */
typedef enum { OP_RATE_TFLOPS, OP_RATE_GBPS, OP_RATE_GKEYS } op_rate;
/* The device ceiling behind %peak: COMPUTE, the peak of each row's own math
 * (fp32 SIMT, tf32/fp16/bf16/fp8 tensor; src/core/peaks.c); MEMORY, the
 * DRAM bandwidth. OP_PEAK_FP32 is COMPUTE's old name, kept so that op
 * tables written before it still build. */
typedef enum { OP_PEAK_NONE, OP_PEAK_COMPUTE, OP_PEAK_MEMORY, OP_PEAK_FP32 = OP_PEAK_COMPUTE } op_peak;

#define OP_MAX_TYPES 3
#define OP_MAX_AXES 8          /* axes one op declares */
#define OP_AXIS_MAX_VALUES 8   /* values an enum axis accepts */
#define CATALOG_MAX_DIM 65536LL        /* each of m, n, k */
#define CATALOG_MAX_ELEMS (1LL << 32)  /* a length: 16 GiB of floats */

/* An axis (nvbench's idea): one dimension of an op's cases. The plan runs
 * the product of an op's axes, each over its values (--axis NAME=LIST, a
 * shorthand, or its defaults); the case's shape string names the integer
 * axes. Kinds:
 *   OP_AXIS_INT   integers in [min, max], any of sizes.h's LIST forms
 *   OP_AXIS_POW2  the same, each value a power of two
 *   OP_AXIS_ENUM  names out of values[] (values[0] NULL: the op's element
 *                 types, op_info.types)
 * An option (option = 1) takes one value that tunes the op (sgemm's CPU row
 * limit): not part of the product, nor of the shape string. The axes named
 * m, n and k take their values from the GEMM shape options (--n, --shape,
 * --shapes, --m/--k, --axis m=...) as (m, n, k) tuples, each op its part of
 * every tuple; `type` and `dist` fill the case's element type and input
 * distribution. */
typedef enum { OP_AXIS_INT, OP_AXIS_POW2, OP_AXIS_ENUM } op_axis_kind;

typedef struct {
    const char *name;                 /* "m", "elems", "dist": --axis NAME=LIST, the shape string */
    op_axis_kind kind;
    const char *defaults;             /* its LIST when none is given: "2048", "2^26", "uniform,skewed";
                                         NULL for an enum: all its values */
    long long min, max;               /* integer kinds: each value's bounds */
    const char *values[OP_AXIS_MAX_VALUES]; /* enum: the names accepted ({NULL}: the op's types) */
    int option;                       /* 1: one value, an option of the op, not a dimension of its cases */
    const char *help;                 /* one line for --list */
} op_axis;

/* The axes of today's ops, shared by their rows (an op may declare its own). */
#define OP_AXIS_M {"m", OP_AXIS_INT, "2048", 1, CATALOG_MAX_DIM, {NULL}, 0, "rows of A and C (--m, --n, --shape)"}
#define OP_AXIS_N {"n", OP_AXIS_INT, "2048", 1, CATALOG_MAX_DIM, {NULL}, 0, "columns of B and C (--n, --shape)"}
#define OP_AXIS_K {"k", OP_AXIS_INT, "2048", 1, CATALOG_MAX_DIM, {NULL}, 0, "the inner dimension (--k, --n, --shape)"}
#define OP_AXIS_ELEMS {"elems", OP_AXIS_INT, "2^26", 1, CATALOG_MAX_ELEMS, {NULL}, 0, "elements of the input (--elems)"}
#define OP_AXIS_TYPE {"type", OP_AXIS_ENUM, NULL, 0, 0, {NULL}, 0, "element type (the op's types)"}
#define OP_AXIS_DIST                                                                                          \
    {"dist", OP_AXIS_ENUM, NULL, 0, 0, {"uniform", "skewed"}, 0,                                             \
     "input distribution: uniform, or skewed (most values in a few bins) (--dist)"}

typedef struct {
    const char *name;                 /* "sgemm": verbatim in --ops, the table, the CSV */
    op_size_kind size_kind;           /* which size shorthands it takes */
    op_rate rate;                     /* throughput unit of its rows */
    op_peak peak;                     /* the ceiling of its %peak column */
    const char *ref_library;          /* hand rows' %ref is taken against this library row */
    const char *best_library;         /* the library expected fastest (always run); %best is against the fastest that ran */
    const char *types[OP_MAX_TYPES];  /* element types run per size, e.g. {"u32", "f32"}; {NULL}: one,
                                         each row's math is its variant's */
    const char *speedup[2];           /* {"a", "b"}: the table says how much faster variant a ran
                                         than variant b (transfer: overlap vs pinned); NULLs: none */
    const char *about;                /* one line for --list */
    op_axis axes[OP_MAX_AXES];        /* its axes in product order (first outermost); name NULL ends */
} op_info;

typedef struct {
    const char *op;                   /* the op_info name it belongs to */
    const char *name;                 /* "tiled32": verbatim in the table, the CSV, the plots */
    int is_library;                   /* 1 vendor library, 0 hand-written */
    const char *math;                 /* "fp32", "tf32", ...; "types": the case's element type */
    const char *ref_library;          /* hand rows: %ref against this row instead of the op's (NULL: the op's) */
    int test_only;                    /* 1: hidden unless COMPARE_TEST_VARIANTS=1 (fault injection) */
    const char *source;               /* "builtin", or the plugin's file name */
    const char *about;                /* one line for --list */
} variant_info;

/* A search candidate's source is "candidates:FAMILY" (catalog_family): such
 * a row is hidden unless `--candidates FAMILY` selects it. */
#define CATALOG_CANDIDATE_SOURCE "candidates:"

/* The whole catalog, as the GPU side exposes it. */
typedef struct {
    const op_info *ops;               /* ops[0 .. op_count) */
    int op_count;
    const variant_info *variants;     /* variants[0 .. variant_count), each op's rows together */
    int variant_count;
} catalog;

/* Index of the op named `name`, -1 if none. */
int catalog_op(const catalog *c, const char *name);
/* Index of variant `name` of op `op`, -1 if none. */
int catalog_variant(const catalog *c, const char *op, const char *name);
/* A search candidate's family ("tf32_tma", from its source), NULL for every other row. */
const char *catalog_family(const variant_info *v);
/* The unit string of a rate ("TFLOP/s", "GB/s", "Gkeys/s"). */
const char *catalog_rate_unit(op_rate r);
/* How many axes op declares; the index of its axis `name`, -1 if none. */
int catalog_axis_count(const op_info *op);
int catalog_axis(const op_info *op, const char *name);
/* The names an enum axis accepts (its values, or the op's types) into
 * out[0..cap); returns their count. */
int catalog_axis_names(const op_info *op, const op_axis *a, const char **out, int cap);
/* names[0..n) joined by sep into buf ("u8,f32"), truncated to fit. */
void catalog_join(const char *const *names, int n, const char *sep, char *buf, size_t len);
/* "int", "pow2" or "enum". */
const char *catalog_axis_kind_name(op_axis_kind k);

#endif
