/* src/gpu/op_transpose.c: the transpose op, out (n x m) = in (m x n)
 * transposed, float, row-major, m x n from the GEMM shape options (k is not
 * used), and its variants. Input: uniform in (-1, 1] from cuRAND.
 * Reference: cuBLAS geam (blas_transpose, the op's library row) into a buffer
 * of its own, made once in setup and itself checked element for element
 * against the input by an independent GPU kernel (gpucheck_transpose_mismatch),
 * so a wrong reference is an error of the case, not a failure of every hand
 * row. Verification: bit for bit equal to it (compared as 32-bit words: a
 * transpose moves bits, it computes nothing); the output is poisoned with
 * 0xFF bytes first (a NaN, which the input never holds). Rate: GB/s of
 * 2 * 4 * m * n bytes (each element read once and written once).
 *
 * Adding a hand transpose = its launcher in kernels/ with transpose.h's contract
 *     int f(const float *in, float *out, int m, int n, cudaStream_t s)
 * + one row in TRANSPOSE_HAND_ROWS below. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>

#include "blas.h"
#include "check.h"
#include "inputs.h"
#include "op.h"
#include "transpose.h"
#include "verify_kernels.h"

#define TRANSPOSE_HAND_ROWS(X)                                                                               \
    X(naive, transpose_naive, "one thread an element: coalesced reads, writes 4m bytes apart")                 \
    X(tiled, transpose_tiled, "32x32 tile through shared memory (32-way bank conflicts on the column read)")   \
    X(tiled_padded, transpose_tiled_padded, "32x33 padded tile: conflict-free")                                 \
    X(fast, transpose_fast, "64x64 tile in 4x4 register blocks, 16-byte global and shared accesses when m, n % 4 == 0")

typedef struct {
    float *in;                  /* m x n input */
    float *out;                 /* n x m: the variants' output */
    float *ref;                 /* n x m: the reference (cuBLAS geam) */
    unsigned long long *usums;  /* compare results (device) */
} transpose_data;

static size_t transpose_elems(const plan_case *pc) { return (size_t)pc->m * (size_t)pc->n; }

static size_t transpose_case_bytes(const plan_case *pc)
{
    /* in, out, reference, the compare results */
    return transpose_elems(pc) * 12 + 4096;
}

static void transpose_teardown(op_case *c)
{
    transpose_data *d = c->data;
    if (!d) return;
    cudaFree(d->in);
    cudaFree(d->out);
    cudaFree(d->ref);
    cudaFree(d->usums);
    free(d);
    c->data = NULL;
}

static int transpose_setup(op_case *c)
{
    device_ctx *dv = c->dev;
    cudaStream_t s = dv->stream;
    const long long m = c->pc->m, n = c->pc->n;
    const size_t e = transpose_elems(c->pc);
    unsigned long long u[2] = {0, ~0ULL};
    transpose_data *d;
    if (m < 1 || n < 1 || m > INT_MAX || n > INT_MAX) {
        status_set_message("transpose %lldx%lld: m and n must be in 1 .. %d (the launchers take int)", m, n, INT_MAX);
        return STATUS_ERROR;
    }
    d = calloc(1, sizeof *d);
    if (!d) {
        status_set_message("out of host memory");
        return STATUS_ERROR;
    }
    c->data = d;
    CK_CUDA(cudaMalloc((void **)&d->in, e * 4));
    CK_CUDA(cudaMalloc((void **)&d->out, e * 4));
    CK_CUDA(cudaMalloc((void **)&d->ref, e * 4));
    CK_CUDA(cudaMalloc((void **)&d->usums, 4 * sizeof(unsigned long long)));
    if (inputs_reset(dv->rng, c->seed) || inputs_uniform_pm1(dv->rng, d->in, e, s)) return STATUS_ERROR;
    /* the reference, then its own check against the input; geam is elementwise
     * (no TF32 path), the default math mode is set all the same */
    CK_CUBLAS(cublasSetMathMode(dv->blas, CUBLAS_DEFAULT_MATH));
    CK_CUDA(cudaMemsetAsync(d->ref, 0xff, e * 4, s));
    if (blas_transpose(dv->blas, d->in, d->ref, (int)m, (int)n) != STATUS_OK) return STATUS_ERROR;
    CK_CUDA(cudaMemcpyAsync(d->usums, u, sizeof u, cudaMemcpyHostToDevice, s));
    CK_LAUNCH(gpucheck_transpose_mismatch(d->in, d->ref, (size_t)m, (size_t)n, d->usums, s));
    CK_CUDA(cudaMemcpyAsync(u, d->usums, sizeof u, cudaMemcpyDeviceToHost, s));
    CK_CUDA(cudaStreamSynchronize(s));
    if (u[0] != 0) {
        status_set_message("the reference transpose (cuBLAS geam) is wrong at %llu of %zu elements (first at %llu)",
                           u[0], e, u[1]);
        return STATUS_ERROR;
    }
    return STATUS_OK;
}

static int transpose_poison(op_case *c)
{
    transpose_data *d = c->data;
    CK_CUDA(cudaMemsetAsync(d->out, 0xff, transpose_elems(c->pc) * 4, c->dev->stream));
    return STATUS_OK;
}

static int transpose_verify(op_case *c, const variant *v, result_row *r)
{
    transpose_data *d = c->data;
    cudaStream_t s = c->dev->stream;
    const size_t e = transpose_elems(c->pc);
    unsigned long long u[2] = {0, ~0ULL};
    (void)v;
    CK_CUDA(cudaMemcpyAsync(d->usums, u, sizeof u, cudaMemcpyHostToDevice, s));
    CK_LAUNCH(gpucheck_compare_keys(d->out, d->ref, e, 0, d->usums, s));
    CK_CUDA(cudaMemcpyAsync(u, d->usums, sizeof u, cudaMemcpyDeviceToHost, s));
    CK_CUDA(cudaStreamSynchronize(s));
    r->rel_err = (double)u[0] / (double)e;
    r->tolerance = 0.0;
    if (u[0] == 0) return STATUS_OK;
    /* out[k] is row k / m, column k % m of the n x m output */
    snprintf(r->message, sizeof r->message,
             "%llu of %zu elements differ from the reference (first at out[%llu][%llu])", u[0], e,
             u[1] / (unsigned long long)c->pc->m, u[1] % (unsigned long long)c->pc->m);
    return STATUS_FAIL;
}

static void transpose_fill_row(const op_case *c, const variant *v, result_row *r)
{
    r->m = c->pc->m;
    r->n = c->pc->n;
    r->math = v->info.math;
    r->bytes = 8.0 * (double)c->pc->m * (double)c->pc->n; /* each element read once and written once */
}

// ---------------------------------------------------------------------------
// adapters

static int v_transpose_hand(const op_case *c, const variant *v, cudaStream_t s)
{
    const transpose_data *d = c->data;
    CK_LAUNCH(((transpose_launcher)v->fn)(d->in, d->out, (int)c->pc->m, (int)c->pc->n, s));
    return STATUS_OK;
}

/* c->dev->blas is bound to the run's stream, which s is */
static int v_geam(const op_case *c, const variant *v, cudaStream_t s)
{
    const transpose_data *d = c->data;
    (void)v;
    (void)s;
    return blas_transpose(c->dev->blas, d->in, d->out, (int)c->pc->m, (int)c->pc->n);
}

/* a plugin row: type fp32; input in (m x n), output out (n x m)
 * (compare_plugin.h) */
static void transpose_plugin_bind(const plan_case *pc, const op_case *c, op_plugin_binding *b)
{
    const transpose_data *d = c ? c->data : NULL;
    (void)pc;
    if (d) op_plugin_slots(b, d->in, NULL, d->out, NULL);
}

static const op_plugin_spec transpose_plugin = {
    {{"fp32", "fp32", NULL}},
    transpose_plugin_bind,
    0,
    "input in (m x n floats); output out (n x m floats)",
};

// ---------------------------------------------------------------------------
// the variant table

#define TRANSPOSE_ROW(name, launcher, about)                                                                   \
    {.info = {"transpose", #name, 0, "fp32", NULL, 0, "builtin", about}, .run = v_transpose_hand,             \
     .fn = (variant_fn)launcher},

static const variant transpose_variants[] = {
    {.info = {"transpose", "cublas_geam", 1, "fp32", NULL, 0, "builtin",
              "cublasSgeam (C = 1 * A^T + 0 * B), the row-major transpose through cuBLAS"},
     .run = v_geam},
    TRANSPOSE_HAND_ROWS(TRANSPOSE_ROW)
};

const op_desc op_transpose = {
    {.name = "transpose",
     .size_kind = OP_SIZE_MATRIX,
     .rate = OP_RATE_GBPS,
     .peak = OP_PEAK_MEMORY,
     .ref_library = "cublas_geam",
     .best_library = "cublas_geam",
     .about = "float m x n -> n x m, row-major (GB/s: each element read and written once)",
     .axes = {OP_AXIS_M, OP_AXIS_N}},
    transpose_variants,
    (int)(sizeof transpose_variants / sizeof transpose_variants[0]),
    transpose_case_bytes,
    transpose_setup,
    transpose_poison,
    transpose_verify,
    transpose_fill_row,
    transpose_teardown,
    &transpose_plugin,
};
