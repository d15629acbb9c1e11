/* src/gpu/op_rowwise.h: what the three row-wise ops (src/gpu/op_softmax.c,
 * op_rmsnorm.c, op_layernorm.c) share: their buffers, inputs, FP64
 * reference, poisoning, verification, row sizes, the adapters of their
 * rows (hand launchers of kernels/rowwise.h, cuDNN, the CUB composition) and
 * the macros that make their variant tables. Each op file then holds only
 * its own table and op_desc.
 *
 * A case: x rows x cols of its type (fp32, bf16, fp16) from cuRAND (made in
 * FP32, rounded on the device to the type, so the reference reads exactly
 * what the kernels read): uniform in (-1, 1], or under softmax's `wide`
 * distribution in (-100, 100] (exp overflows FP32 above 88.7: the naive
 * softmax must fail there). The norms' weight uniform in (0.5, 1.5] and
 * LayerNorm's bias in (-0.5, 0.5] (cols floats each, from cuRAND: not 1 and
 * 0, so a kernel that skips them fails), eps 1e-5. The reference: FP64 on
 * the GPU (src/gpu/rowwise_ref.h); the verdict: src/core/verify_rowwise.h.
 * y is poisoned (all bits set: NaN in every type) before each checked run.
 * Rate: GB/s of x read once, y written once, plus the weight and bias. */
#ifndef COMPARE_OP_ROWWISE_H
#define COMPARE_OP_ROWWISE_H

#include "catalog.h"
#include "op.h"
#include "rowwise.h"
#include "rowwise_ref.h"

#define ROWWISE_EPS 1e-5f

/* The axes: rows and cols (integers), type, and (softmax) dist. */
#define ROWWISE_AXIS_ROWS {"rows", OP_AXIS_INT, "4096", 1, 1LL << 24, {NULL}, 0, "rows of x and y: one op per row"}
#define ROWWISE_AXIS_COLS {"cols", OP_AXIS_INT, "4096", 1, 1LL << 20, {NULL}, 0, "elements of a row"}
#define ROWWISE_AXIS_TYPE                                                                                      \
    {"type", OP_AXIS_ENUM, "fp32,bf16", 0, 0, {NULL}, 0,                                                       \
     "element type of x and y (fp32, bf16, fp16: --axis type=fp16), FP32 arithmetic inside"}
#define ROWWISE_AXIS_DIST                                                                                      \
    {"dist", OP_AXIS_ENUM, "uniform", 0, 0, {"uniform", "wide"}, 0,                                            \
     "x uniform in (-1, 1], or wide: in (-100, 100], where exp overflows FP32 (--axis dist=wide)"}
#define ROWWISE_TYPES {"fp32", "bf16", "fp16"}

/* The hooks every row-wise op_desc takes (the op is told apart by its
 * op_desc: op_softmax, op_rmsnorm, op_layernorm). */
size_t rowwise_case_bytes(const plan_case *pc);
int rowwise_setup(op_case *c);
int rowwise_poison(op_case *c);
int rowwise_verify(op_case *c, const variant *v, result_row *r);
void rowwise_fill_row(const op_case *c, const variant *v, result_row *r);
void rowwise_teardown(op_case *c);
extern const op_plugin_spec rowwise_plugin;

/* The adapters. */
int rowwise_v_hand(const op_case *c, const variant *v, cudaStream_t s);       /* v->fn: a rowwise_launcher */
int rowwise_v_cub(const op_case *c, const variant *v, cudaStream_t s);        /* shim_cub_rowwise */
int rowwise_v_cub_wrong(const op_case *c, const variant *v, cudaStream_t s);  /* test only: reductions over half a row */
int rowwise_v_cudnn_prepare(const op_case *c, const variant *v, cudaStream_t s); /* the plan, once per case */
int rowwise_v_cudnn(const op_case *c, const variant *v, cudaStream_t s);
int rowwise_cudnn_supports(const plan_case *pc, const device_info *dev, const variant *v, char *why, size_t len);
/* the *_cluster rows: sm_90 or later, and not in a forced pre-Hopper policy mode */
int rowwise_needs_sm90(const plan_case *pc, const device_info *dev, const variant *v, char *why, size_t len);

/* Rows of a variant table. */
#define ROWWISE_LIBRARY_ROWS(op, cudnn_about)                                                                  \
    {.info = {op, "cudnn", 1, "types", NULL, 0, "builtin", cudnn_about}, .run = rowwise_v_cudnn,                \
     .prepare = rowwise_v_cudnn_prepare, .supports = rowwise_cudnn_supports, .kernel = "cudnn"},                \
    {.info = {op, "cub", 1, "types", NULL, 0, "builtin",                                                        \
              "CUDA's own libraries without cuDNN: a block per row, cub::BlockReduce for the row's reductions, " \
              "a pass over the row per reduction"},                                                            \
     .run = rowwise_v_cub},
#define ROWWISE_HAND_ROW(op, name, launcher, about)                                                            \
    {.info = {op, #name, 0, "types", NULL, 0, "builtin", about}, .run = rowwise_v_hand, .fn = (variant_fn)launcher},
#define ROWWISE_CLUSTER_ROW(op, name, launcher, about)                                                         \
    {.info = {op, #name, 0, "types", NULL, 0, "builtin", about}, .run = rowwise_v_hand, .fn = (variant_fn)launcher, \
     .supports = rowwise_needs_sm90},
#define ROWWISE_TEST_ROWS(op)                                                                                  \
    {.info = {op, "test_wrong", 0, "types", NULL, 1, "builtin",                                                 \
              "test only: the cub row with its reductions over the first half of each row"},                    \
     .run = rowwise_v_cub_wrong},

/* The norms' ladder (kernels/norms.h), pfx rmsnorm or layernorm. */
#define ROWWISE_NORM_LADDER(op, pfx, block_about)                                                              \
    ROWWISE_HAND_ROW(op, naive, pfx##_naive, "a thread per row")                                               \
    ROWWISE_HAND_ROW(op, warp, pfx##_warp, "a warp per row, vector loads")                                      \
    ROWWISE_HAND_ROW(op, block, pfx##_block, block_about)                                                       \
    ROWWISE_HAND_ROW(op, fused, pfx##_fused, "the fastest form for the case's cols, the row held on chip")     \
    ROWWISE_CLUSTER_ROW(op, cluster, pfx##_cluster,                                                             \
                        "a thread-block cluster per row, the row in distributed shared memory (sm_90+)")

/* An op_desc of the row-wise family: its name, variant table, about line
 * and axes (the rest is shared). */
#define ROWWISE_OP_DESC(opname, table, about_line, ...)                                                        \
    {{.name = opname,                                                                                          \
      .size_kind = OP_SIZE_MATRIX,                                                                             \
      .rate = OP_RATE_GBPS,                                                                                    \
      .peak = OP_PEAK_MEMORY,                                                                                  \
      .ref_library = "cudnn",                                                                                  \
      .best_library = "cudnn",                                                                                 \
      .types = ROWWISE_TYPES,                                                                                  \
      .about = about_line,                                                                                     \
      .axes = {__VA_ARGS__}},                                                                                  \
     table,                                                                                                    \
     (int)(sizeof table / sizeof table[0]),                                                                    \
     rowwise_case_bytes,                                                                                       \
     rowwise_setup,                                                                                            \
     rowwise_poison,                                                                                           \
     rowwise_verify,                                                                                           \
     rowwise_fill_row,                                                                                         \
     rowwise_teardown,                                                                                         \
     &rowwise_plugin}

/* A norm op whole: its variant table (cuDNN's norm-forward node in
 * `mode`, cub, the ladder of kernels/norms.h, the test row) and its op_desc
 * op_<pfx>, over rows, cols and type. */
#define ROWWISE_NORM_OP(pfx, mode, block_about, about_line)                                                    \
    static const variant pfx##_variants[] = {                                                                  \
        ROWWISE_LIBRARY_ROWS(#pfx, "cuDNN graph API: one norm-forward node, " mode ", inference phase: the "   \
                                   "fastest engine of heuristic A's and FALLBACK's, each timed in the "         \
                                   "untimed setup")                                                            \
        ROWWISE_NORM_LADDER(#pfx, pfx, block_about)                                                            \
        ROWWISE_TEST_ROWS(#pfx)};                                                                              \
    const op_desc op_##pfx = ROWWISE_OP_DESC(#pfx, pfx##_variants, about_line, ROWWISE_AXIS_ROWS,              \
                                             ROWWISE_AXIS_COLS, ROWWISE_AXIS_TYPE)

#endif
