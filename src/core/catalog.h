/* src/core/catalog.h: what the run can measure, as plain data. Two tables,
 * read by everything (the plan, the table, the CSV, --list, the tests):
 *   op_info      one row per operation (sgemm, reduce, sort, ...);
 *   variant_info one row per variant of an op, hand or library.
 * The GPU side owns the rows (src/gpu/op_*.c, each op's file holding its own
 * variants; plugins add theirs at start-up) and hands the core these views;
 * the core never sees a function pointer or a CUDA type. */
#ifndef COMPARE_CATALOG_H
#define COMPARE_CATALOG_H

/* What sizes an op: GEMM shapes (--n, --shape, --m/--n/--k, --shapes), a
 * matrix m x n (the same options; k is not used) or a length (--elems). */
typedef enum { OP_SIZE_GEMM, OP_SIZE_ELEMS, OP_SIZE_MATRIX } op_size_kind;
/* The throughput an op is reported in. */
typedef enum { OP_RATE_TFLOPS, OP_RATE_GBPS, OP_RATE_GKEYS } op_rate;
/* The device ceiling behind %peak: COMPUTE, the peak of each row's own math
 * (fp32 SIMT, tf32/fp16/bf16/fp8 tensor; src/core/peaks.c); MEMORY, the
 * DRAM bandwidth. OP_PEAK_FP32 is COMPUTE's old name, kept so that op
 * tables written before it still build. */
typedef enum { OP_PEAK_NONE, OP_PEAK_COMPUTE, OP_PEAK_MEMORY, OP_PEAK_FP32 = OP_PEAK_COMPUTE } op_peak;

#define OP_MAX_TYPES 3

typedef struct {
    const char *name;                 /* "sgemm": verbatim in --ops, the table, the CSV */
    op_size_kind size_kind;           /* what sizes it */
    op_rate rate;                     /* throughput unit of its rows */
    op_peak peak;                     /* the ceiling of its %peak column */
    const char *ref_library;          /* hand rows' %ref is taken against this library row */
    const char *best_library;         /* the library expected fastest (always run); %best is against the fastest that ran */
    const char *types[OP_MAX_TYPES];  /* element types run per size, e.g. {"u32", "f32"}; {NULL}: one,
                                         each row's math is its variant's */
    int per_dist;                     /* 1: one case per input distribution of --dist */
    const char *speedup[2];           /* {"a", "b"}: the table says how much faster variant a ran
                                         than variant b (transfer: overlap vs pinned); NULLs: none */
    const char *about;                /* one line for --list */
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
/* The unit string of a rate ("TFLOP/s", "GB/s", "Gkeys/s"). */
const char *catalog_rate_unit(op_rate r);

#endif
