/* src/gpu/op_reduce.c: the reduce op, the float sum of E elements, and its
 * variants. Input: uniform in (-1, 1] from cuRAND. Reference: the sum in
 * double (and the sum of squares, which scales the tolerance; see
 * src/core/verify.h). The output is poisoned with NaN before each checked run.
 *
 * Adding a hand reduction = its launcher in kernels/ with reduce.h's contract
 *     int f(const float *x, long long n, float *out, void *scratch, size_t scratch_bytes, cudaStream_t s)
 * + one row in REDUCE_HAND_ROWS below. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "cpu_omp.h"
#include "inputs.h"
#include "op.h"
#include "reduce.h"
#include "shim.h"
#include "verify.h"
#include "verify_kernels.h"

#define REDUCE_HAND_ROWS(X)                                                              \
    X(interleaved, reduce_interleaved, "tree, interleaved addressing (divergent)")         \
    X(sequential, reduce_sequential, "tree, sequential addressing")                        \
    X(shuffle, reduce_shuffle, "warp-shuffle tree")                                        \
    X(vec4, reduce_vec4, "float4 loads, grid sized to the GPU, one launch, last-block ticket")

#define REDUCE_DECLARE(name, fn, about) \
    int fn(const float *x, long long n, float *out, void *scratch, size_t scratch_bytes, cudaStream_t s);
REDUCE_HAND_ROWS(REDUCE_DECLARE)

typedef struct {
    float *x;              /* input */
    float *sum_dev;        /* the variants' result in device memory */
    double *sums;          /* reference sums (device) */
    double ref_sum, ref_sum_sq;
    float sum_host;        /* the result of a variant that returns it to the host */
    int sum_on_host;       /* set by such a variant */
    float *hx;             /* host copy of x for the CPU row (made by its prepare, once) */
} reduce_data;

static size_t reduce_case_bytes(const plan_case *pc) { return (size_t)pc->elems * 4 + 4096; }

static void reduce_teardown(op_case *c)
{
    reduce_data *d = c->data;
    if (!d) return;
    cudaFree(d->x);
    cudaFree(d->sum_dev);
    cudaFree(d->sums);
    free(d->hx);
    free(d);
    c->data = NULL;
}

static int reduce_setup(op_case *c)
{
    device_ctx *dv = c->dev;
    cudaStream_t s = dv->stream;
    size_t n = (size_t)c->pc->elems;
    double h[2];
    reduce_data *d = calloc(1, sizeof *d);
    if (!d) {
        status_set_message("out of host memory");
        return STATUS_ERROR;
    }
    c->data = d;
    CK_CUDA(cudaMalloc((void **)&d->x, n * 4));
    CK_CUDA(cudaMalloc((void **)&d->sum_dev, 16));
    CK_CUDA(cudaMalloc((void **)&d->sums, 8 * sizeof(double)));
    if (inputs_reset(dv->rng, c->seed) || inputs_uniform_pm1(dv->rng, d->x, n, s)) return STATUS_ERROR;
    CK_CUDA(cudaMemsetAsync(d->sums, 0, 8 * sizeof(double), s));
    CK_LAUNCH(gpucheck_sum_f64(d->x, n, d->sums, s));
    CK_CUDA(cudaMemcpyAsync(h, d->sums, sizeof h, cudaMemcpyDeviceToHost, s));
    CK_CUDA(cudaStreamSynchronize(s));
    d->ref_sum = h[0];
    d->ref_sum_sq = h[1];
    return STATUS_OK;
}

static int reduce_poison(op_case *c)
{
    reduce_data *d = c->data;
    CK_CUDA(cudaMemsetAsync(d->sum_dev, 0xff, 4, c->dev->stream));
    d->sum_host = NAN;
    d->sum_on_host = 0;
    return STATUS_OK;
}

static int reduce_verify(op_case *c, const variant *v, result_row *r)
{
    reduce_data *d = c->data;
    cudaStream_t s = c->dev->stream;
    verify_verdict vd;
    float got = d->sum_host;
    (void)v;
    if (!d->sum_on_host) {
        CK_CUDA(cudaMemcpyAsync(&got, d->sum_dev, 4, cudaMemcpyDeviceToHost, s));
        CK_CUDA(cudaStreamSynchronize(s));
    }
    verify_reduce_judge(got, d->ref_sum, c->pc->elems, d->ref_sum_sq, &vd);
    r->rel_err = vd.rel_err;
    r->tolerance = vd.tolerance;
    if (vd.pass) return STATUS_OK;
    snprintf(r->message, sizeof r->message, "sum %.9g, reference %.9g: rel err %.3g (tolerance %.3g)", (double)got,
             d->ref_sum, vd.rel_err, vd.tolerance);
    return STATUS_FAIL;
}

static void reduce_fill_row(const op_case *c, const variant *v, result_row *r)
{
    r->elems = c->pc->elems;
    r->math = v->info.math;
    r->flops = (double)c->pc->elems;
    r->bytes = 4.0 * (double)c->pc->elems;
}

// ---------------------------------------------------------------------------
// adapters

static int v_reduce_hand(const op_case *c, const variant *v, cudaStream_t s)
{
    const reduce_data *d = c->data;
    CK_LAUNCH(((reduce_launcher)v->fn)(d->x, c->pc->elems, d->sum_dev, c->workspace, c->workspace_bytes, s));
    return STATUS_OK;
}

static size_t v_reduce_scratch(const plan_case *pc, const variant *v)
{
    (void)v;
    return reduce_scratch_bytes(pc->elems);
}

static int v_thrust(const op_case *c, const variant *v, cudaStream_t s)
{
    reduce_data *d = c->data;
    char msg[400];
    (void)v;
    if (shim_thrust_reduce_f32(d->x, c->pc->elems, &d->sum_host, s, msg, sizeof msg)) {
        status_set_message("shim_thrust_reduce_f32: %s", msg);
        return STATUS_ERROR;
    }
    d->sum_on_host = 1;
    return STATUS_OK;
}

static int v_cub(const op_case *c, const variant *v, cudaStream_t s)
{
    reduce_data *d = c->data;
    char msg[400];
    (void)v;
    if (shim_cub_reduce_f32(d->x, c->pc->elems, d->sum_dev, c->workspace, c->workspace_bytes, s, msg, sizeof msg)) {
        status_set_message("shim_cub_reduce_f32: %s", msg);
        return STATUS_ERROR;
    }
    return STATUS_OK;
}

static size_t v_cub_temp(const plan_case *pc, const variant *v)
{
    size_t b = 0;
    char msg[256];
    (void)v;
    /* a failed query shows again, with its message, when the variant runs */
    return shim_cub_reduce_temp_bytes(pc->elems, &b, msg, sizeof msg) ? (1u << 20) : b;
}

/* The CPU row (kernels/cpu_omp.c): x copied to the host once, untimed; the
 * sum on the host, timed by the wall clock. */
static int v_cpu_prepare(const op_case *c, const variant *v, cudaStream_t s)
{
    reduce_data *d = c->data;
    (void)v;
    if (d->hx) return STATUS_OK;
    d->hx = malloc((size_t)c->pc->elems * 4);
    if (!d->hx) {
        status_set_message("out of host memory for the CPU row");
        return STATUS_ERROR;
    }
    CK_CUDA(cudaMemcpyAsync(d->hx, d->x, (size_t)c->pc->elems * 4, cudaMemcpyDeviceToHost, s));
    CK_CUDA(cudaStreamSynchronize(s));
    return STATUS_OK;
}

static int v_cpu(const op_case *c, const variant *v, cudaStream_t s)
{
    reduce_data *d = c->data;
    (void)v;
    (void)s;
    CK_LAUNCH(cpu_omp_reduce(d->hx, c->pc->elems, &d->sum_host));
    d->sum_on_host = 1;
    return STATUS_OK;
}

// ---------------------------------------------------------------------------
// the variant table

#define REDUCE_ROW(name, launcher, about)                                                                    \
    {.info = {"reduce", #name, 0, "fp32", NULL, 0, "builtin", about}, .run = v_reduce_hand, .fn = (variant_fn)launcher, \
     .workspace = v_reduce_scratch},

static const variant reduce_variants[] = {
    {.info = {"reduce", "thrust", 1, "fp32", NULL, 0, "builtin",
              "thrust::reduce as a user calls it (temp alloc, result to host: host costs timed)"},
     .run = v_thrust, .host_sync = 1,
     .note = "thrust::reduce allocates and frees its temporary storage and copies the sum to the "
             "host on every call: both are in its time"},
    {.info = {"reduce", "cub", 1, "fp32", NULL, 0, "builtin", "cub::DeviceReduce::Sum, temp storage preallocated"},
     .run = v_cub, .workspace = v_cub_temp},
    REDUCE_HAND_ROWS(REDUCE_ROW)
    {.info = {"reduce", "cpu_omp", 0, "fp32", NULL, 0, "builtin", "the host: OpenMP, chunked pairwise float sum"},
     .run = v_cpu, .prepare = v_cpu_prepare, .host_timed = 1},
};

/* a plugin row: type fp32; input x, output the sum (compare_plugin.h) */
static void reduce_plugin_bind(const plan_case *pc, const op_case *c, op_plugin_binding *b)
{
    const reduce_data *d = c ? c->data : NULL;
    (void)pc;
    if (d) op_plugin_slots(b, d->x, NULL, d->sum_dev, NULL);
}

static const op_plugin_spec reduce_plugin = {
    {{"fp32", "fp32", NULL}},
    reduce_plugin_bind,
    0,
    "input x (elems floats); output the sum (one float)",
};

const op_desc op_reduce = {
    {.name = "reduce",
     .size_kind = OP_SIZE_ELEMS,
     .rate = OP_RATE_GBPS,
     .peak = OP_PEAK_MEMORY,
     .ref_library = "thrust",
     .best_library = "cub",
     .about = "float sum of E elements (GB/s of input read)",
     .axes = {OP_AXIS_ELEMS}},
    reduce_variants,
    (int)(sizeof reduce_variants / sizeof reduce_variants[0]),
    reduce_case_bytes,
    reduce_setup,
    reduce_poison,
    reduce_verify,
    reduce_fill_row,
    reduce_teardown,
    &reduce_plugin,
};
