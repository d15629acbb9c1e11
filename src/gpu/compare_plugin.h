/* compare_plugin.h: put your own kernel beside compare's, with no edit of ours.
 *
 * A plugin is a shared library that exports one function,
 *
 *     const compare_plugin *compare_plugin_get(void);
 *
 * returning a static table of variant rows. `compare --plugin ./libmine.so`
 * loads it at start-up (before any GPU work); its variants then join the
 * built-in ones: --list shows them, --variants selects them, and each is
 * verified against the same reference, timed by the same harness, reported as
 * a percent of the library and written to the CSV (column `source`: the
 * plugin's file name) and the plots exactly like ours.
 *
 * ABI version 2. A row names its op and element type and gives ONE launcher,
 *
 *     int launch(const compare_plugin_args *a, cudaStream_t stream);
 *
 * which finds the case's sizes (a->m, n, k, elems, and every integer axis by
 * name in a->axes) and its buffers (a->inputs[], a->outputs[]) in one struct.
 * Every op takes plugins, and an op added later takes them with no change of
 * this header: its sizes arrive as named axes, its buffers in the same two
 * arrays, documented below with the op.
 *
 * Growing compatibly: every struct starts with (or, for compare_plugin, has
 * right after abi_version) a `struct_size`. Later versions of this header
 * only ADD fields at the end and keep ABI version 2:
 *  - your tables: set struct_size = sizeof(the struct) (the initialisers in
 *    examples/plugin/mine.cu do); compare reads only the fields your
 *    struct_size covers (the others count as NULL / 0);
 *  - compare_plugin_args: compare sets struct_size to its own sizeof; read a
 *    field added later only when COMPARE_PLUGIN_ARGS_HAS(a, field).
 * The ABI version changes only for a change that cannot be made that way;
 * compare refuses a plugin of another version, with exit 2, before any GPU
 * work (an ABI-1 plugin with the steps to port it: see "Porting from ABI 1").
 *
 * ---------------------------------------------------------------------------
 * The contract of every launcher (the same as compare's own kernels):
 *  - every buffer pointer is device memory (transfer's host buffers are the
 *    one exception, see there), densely packed, aligned to its element size
 *    at least: that is all the contract promises (today each buffer is its
 *    own cudaMalloc allocation; check the address before a wider access);
 *  - enqueue the work on `stream` only, never synchronise the device or the
 *    stream, never allocate in the call if you can size a workspace instead
 *    (the call is timed);
 *  - outputs hold garbage on entry (compare poisons them before the checked
 *    run so that an unwritten element fails): write every element, and zero
 *    an accumulator (reduce's sum, histogram's bins) yourself, on `stream`;
 *  - inputs must not be modified;
 *  - return 0 on success, else a cudaError_t value (e.g. cudaGetLastError()
 *    after your launch): the row becomes ERROR with that error's name and the
 *    run goes on. A wrong result is a FAIL row.
 *  - workspace (optional): workspace_bytes(a) is asked once per case with
 *    every buffer pointer NULL; compare allocates at least that many bytes
 *    (256-byte aligned) outside the timed region, zeroes them before the
 *    variant's first call of the case, and passes them in a->workspace /
 *    a->workspace_bytes to every call of the case (state you keep there
 *    survives from call to call).
 *  - supports (optional): asked once per case (buffers NULL); return 1 to
 *    run it, 0 to decline with a reason in why[0..why_len) (the row is SKIP
 *    with that reason).
 *
 * The ops: rows' .type, axes (in a->axes; m, n, k, elems are also fields)
 * and buffer slots. Every matrix is ROW-MAJOR.
 *
 *  sgemm      C = A B in FP32.
 *             .type "fp32": FP32 math, %ref against cuBLAS FP32, FP32
 *             tolerance; "tf32": TF32 tensor cores allowed, %ref against
 *             cuBLAS TF32, TF32's tolerance. a->type is the row's type (the
 *             data are float in both).
 *             axes m, n, k (any >= 1: decline what you do not handle).
 *             inputs[0]  A, m x k floats (A[i*k + p])
 *             inputs[1]  B, k x n floats (B[p*n + j])
 *             outputs[0] C, m x n floats (C[i*n + j])
 *  reduce     *out = the float sum of x[0..elems).  .type "fp32".  axis elems.
 *             inputs[0]  x, elems floats
 *             outputs[0] out, one float (write it; it holds NaN on entry)
 *  sort       out = in sorted ascending.  .type "u32" (unsigned 32-bit
 *             keys) or "f32" (floats by IEEE order, -0.0 before +0.0; no
 *             NaN in the input).  axis elems.
 *             inputs[0]  in, elems keys
 *             outputs[0] out, elems keys
 *  transpose  out = in transposed.  .type "fp32".  axes m, n.
 *             inputs[0]  in, m x n floats (in[i*n + j])
 *             outputs[0] out, n x m floats (out[j*m + i] = in[i*n + j]),
 *             compared bit for bit
 *  histogram  bins[b] = how many inputs fall in bin b.  axes elems, bins.
 *             .type "u8": 256 bins, bin = the byte;
 *             .type "f32": 1024 equal bins over [-1, 1): x counts iff
 *             -1 <= x < 1, in bin (int)((x - (-1.0f)) * (1024.0f / 2.0f))
 *             computed in float (a product that rounds up to 1024 goes to
 *             bin 1023): cub::DeviceHistogram::HistogramEven's rule.
 *             inputs[0]  x, elems bytes (u8) or floats (f32)
 *             outputs[0] bins, `bins` unsigned 32-bit counters (poisoned on
 *             entry: zero them first), compared exactly
 *  scan       out[i] = in[0] + ... + in[i] (inclusive).  .type "i32"
 *             (int32, wrapping, compared exactly) or "f32" (float, within
 *             a tolerance scaled by the running sum of magnitudes).  axis elems.
 *             inputs[0]  in, elems values
 *             outputs[0] out, elems values
 *  transfer   the host -> device -> kernel -> host round trip: y = 2 x + 1
 *             (in float: exactly 2.0f * x + 1.0f) computed on the device, from
 *             and to host memory.  .type "fp32".  axis elems.  Measured in
 *             GB/s of the 8 * elems bytes that cross the link, against one
 *             cudaMemcpyAsync each way. Here the host buffers are the point:
 *             inputs[0]  x, elems floats in PINNED HOST memory (cudaMallocHost:
 *                        mapped, so a kernel may also read it directly)
 *             outputs[0] y, elems floats in PINNED HOST memory (the result,
 *                        read by the host after the stream drains)
 *             outputs[1] a DEVICE buffer of elems floats (staging: use it or not)
 *             Your call may split the work over streams of its own, created
 *             in its first call and kept, if it makes `stream` wait for all of
 *             them (cudaEventRecord + cudaStreamWaitEvent) before it returns.
 *             The row is timed from an idle stream, like the built-in rows.
 *  softmax    y = exp(x - max) / sum exp(x - max) per row; rmsnorm y = x /
 *  rmsnorm    sqrt(mean x^2 + eps) * weight; layernorm y = (x - mean) /
 *  layernorm  sqrt(var + eps) * weight + bias (kernels/rowwise.h; eps
 *             1e-5f).  .type "fp32", "bf16" or "fp16" (x and y; FP32
 *             arithmetic).  axes rows, cols.
 *             inputs[0]  x, rows x cols elements of the type (x[r*cols + c])
 *             inputs[1]  weight, cols floats (rmsnorm, layernorm)
 *             inputs[2]  bias, cols floats (layernorm)
 *             outputs[0] y, rows x cols elements of the type (NaN on entry),
 *             checked element by element against an FP64 reference
 *  gemv       y = A x, FP32 accumulation.  .type "fp32", "bf16" or "fp16"
 *             (A, x and y all of it: IEEE binary16 / bfloat16 storage; one
 *             row per type, same name).  axes m, k (n is 0).
 *             inputs[0]  A, m x k elements (A[i*k + j])
 *             inputs[1]  x, k elements
 *             outputs[0] y, m elements (NaN on entry), each checked against
 *             an FP64 reference within the type's bound (src/core/verify_gemv.h)
 *  gemm       C = A B with FP32 accumulation.  .type "fp16", "bf16" (A, B
 *             and C in the type) or "fp8_e4m3" (A, B e4m3, C bf16); %ref
 *             against cublaslt_best; the tolerance of src/core/verify.c
 *             (FP32 accumulation, C's rounding).  axes m, n, k and b_kmajor
 *             (1: layout tn, 0: layout nn).
 *             inputs[0]  A, m x k (A[i*k + p])
 *             inputs[1]  B, n x k if b_kmajor (B[j*k + p]), else k x n (B[p*n + j])
 *             outputs[0] C, m x n (C[i*n + j])
 *
 * An op added later documents its slots here in the same form; an op whose
 * cases have several element types (sort, histogram, scan) lets one
 * variant name run them all: give one row per type, each with the SAME
 * name (the same launcher may serve them, switching on a->type); a case of a
 * type you gave no row for is SKIP with that reason.
 *
 * Names: 1 to 31 characters of [a-z0-9_], starting with a letter, unique
 * among all variants of the op (built-in ones included).
 *
 * Porting from ABI 1 (one launcher field per op: .sgemm, .reduce,
 * .sort_u32, .sort_f32; .math; compare_plugin_case): give each row
 * .struct_size = sizeof(compare_plugin_variant), rename .math to .type
 * (sort's "keys" row becomes two rows of the same name, "u32" and "f32"), and
 * replace the per-op launcher by .launch, which calls yours with the
 * arguments it used to receive:
 *     sgemm:  f(a->inputs[0], a->inputs[1], a->outputs[0], (int)a->m, (int)a->n, (int)a->k, s)
 *     reduce: f(a->inputs[0], a->elems, a->outputs[0], a->workspace, a->workspace_bytes, s)
 *     sort:   f(a->inputs[0], a->outputs[0], a->elems, a->workspace, a->workspace_bytes, s)
 * workspace_bytes and supports take the args (a->m, ... as c->m did); the
 * table gains .struct_size = sizeof(compare_plugin) and abi_version 2.
 *
 * Build against the installed package (see examples/plugin/):
 *     find_package(compare REQUIRED)
 *     target_link_libraries(mine PRIVATE compare::plugin)
 * which brings this header and nothing else to link. */
#ifndef COMPARE_PLUGIN_H
#define COMPARE_PLUGIN_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

#define COMPARE_PLUGIN_ABI_VERSION 2
#define COMPARE_PLUGIN_SYMBOL "compare_plugin_get"

/* One integer axis of a case: "m", "elems", "bins"; an op added later names
 * its own ("rows", "cols"; "b", "h", "sq", "skv", "d", "causal"). */
typedef struct {
    const char *name;
    long long value;
} compare_plugin_axis;

/* One call: the case and its buffers. Filled by compare; valid during the
 * call only (copy what you keep). */
typedef struct {
    size_t struct_size;                  /* compare's sizeof(compare_plugin_args) */
    const char *op;                      /* "sgemm", ...: the row's op */
    const char *type;                    /* the element type this call runs: the row's .type */
    long long m, n, k;                   /* the GEMM / matrix sizes, 0 where the op has none */
    long long elems;                     /* the length, 0 where the op has none */
    int axis_count;
    const compare_plugin_axis *axes;     /* every integer axis of the case, m, n, k, elems
                                            included where the op has them */
    int input_count;
    const void *const *inputs;           /* input buffers, the op's slots (above) */
    int output_count;
    void *const *outputs;                /* output buffers, the op's slots (above) */
    void *workspace;                     /* at least workspace_bytes(a) bytes (may be NULL if you asked none) */
    size_t workspace_bytes;
} compare_plugin_args;

/* Whether compare filled `field` of *a (a field added after your header). */
#define COMPARE_PLUGIN_ARGS_HAS(a, field) \
    ((a)->struct_size >= offsetof(compare_plugin_args, field) + sizeof((a)->field))

/* The value of axis `name` of the call, or `missing` when it has none. */
static inline long long compare_plugin_axis_value(const compare_plugin_args *a, const char *name, long long missing)
{
    for (int i = 0; i < a->axis_count; i++)
        if (strcmp(a->axes[i].name, name) == 0) return a->axes[i].value;
    return missing;
}

typedef int (*compare_plugin_launch_fn)(const compare_plugin_args *a, cudaStream_t stream);

typedef struct {
    size_t struct_size;                  /* sizeof(compare_plugin_variant) */
    const char *name;                    /* see "Names" above */
    const char *op;                      /* "sgemm", "reduce", "sort", "transpose", "histogram", "scan", "transfer",
                                            "gemv" */
    const char *type;                    /* the element type it runs, per op above ("fp32", "tf32", "u32", ...) */
    const char *about;                   /* one line for --list (may be NULL) */
    compare_plugin_launch_fn launch;     /* the timed work */
    /* optional (NULL: none / runs every case); buffers are NULL in both */
    size_t (*workspace_bytes)(const compare_plugin_args *a);
    int (*supports)(const compare_plugin_args *a, char *why, size_t why_len);
} compare_plugin_variant;

typedef struct {
    int abi_version;                         /* COMPARE_PLUGIN_ABI_VERSION; first in every version */
    size_t struct_size;                      /* sizeof(compare_plugin) */
    const char *name;                        /* the plugin's name, for messages */
    int variant_count;                       /* 1 .. 64 rows */
    const compare_plugin_variant *variants;  /* variant_count rows, each variants[0].struct_size bytes */
} compare_plugin;

/* Exported by every plugin (extern "C" in C++). */
const compare_plugin *compare_plugin_get(void);
typedef const compare_plugin *(*compare_plugin_get_fn)(void);

#ifdef __cplusplus
}
#endif

#endif
