/* src/gpu/op_rowwise.c: the shared part of softmax, rmsnorm and layernorm
 * (op_rowwise.h says what the cases are and how they are checked). */
#include "op_rowwise.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "convert_kernels.h"
#include "cudnn_rows.h"
#include "inputs.h"
#include "kernel_ran.h"
#include "policy.h"
#include "shim.h"
#include "verify_kernels.h"
#include "verify_rowwise.h"

extern const op_desc op_softmax, op_rmsnorm, op_layernorm;

#define ROWWISE_WIDE 100.0f /* the `wide` inputs' bound */

typedef struct {
    rowwise_op op;
    elem_type type;
    long long rows, cols;
    void *x, *y;               /* rows x cols of type */
    float *weight, *bias;      /* cols floats, NULL where the op has none */
    double *ref, *scale;       /* the FP64 reference (rows x cols) and each row's largest |ref| */
    unsigned long long *words; /* [0..4): rowwise_errors' result, [4]: max |x| (bits), [5]: one y element (double) */
    double x_max;
    cudnn_rows_plan *cudnn;    /* the cudnn row's plan, made by its first prepare */
} rowwise_data;

/* the op of a case (the three op_descs share these hooks) */
static rowwise_op rowwise_op_of(const plan_case *pc)
{
    const op_desc *op = ops_get(pc->op);
    return op == &op_rmsnorm ? ROWWISE_RMSNORM : op == &op_layernorm ? ROWWISE_LAYERNORM : ROWWISE_SOFTMAX;
}

static long long rowwise_elems(const plan_case *pc)
{
    return plan_case_axis(pc, "rows") * plan_case_axis(pc, "cols");
}

size_t rowwise_case_bytes(const plan_case *pc)
{
    const long long rows = plan_case_axis(pc, "rows"), cols = plan_case_axis(pc, "cols");
    const size_t b = (size_t)elem_type_bytes(elem_type_from_name(pc->type));
    /* x, y; the reference (8 bytes an element, also the FP32 scratch of the inputs); scales; weight, bias */
    return (size_t)rowwise_elems(pc) * (2 * b + 8) + (size_t)rows * 8 + (size_t)cols * 8 + 4096;
}

void rowwise_teardown(op_case *c)
{
    rowwise_data *d = c->data;
    if (!d) return;
    cudnn_rows_plan_free(d->cudnn);
    cudaFree(d->x);
    cudaFree(d->y);
    cudaFree(d->weight);
    cudaFree(d->bias);
    cudaFree(d->ref);
    cudaFree(d->scale);
    cudaFree(d->words);
    free(d);
    c->data = NULL;
}

/* v (n floats) rounded in place to a 2-byte type, through scratch */
static int rowwise_round(const char *type, float *v, size_t n, void *scratch, cudaStream_t s)
{
    CK_LAUNCH(convert_from_f32(type, v, scratch, (long long)n, s));
    CK_LAUNCH(convert_to_f32(type, scratch, v, (long long)n, s));
    return STATUS_OK;
}

/* x from cuRAND: FP32 in scratch (x itself for fp32), scaled for `wide`,
 * rounded to the type on the device. The weight and bias stay FP32 arrays
 * (rowwise_args), but for a 2-byte type they hold values of that type, as
 * a model's weights do: a library that takes them in the input's type
 * (cuDNN's fast norm engines) gets them exactly. */
static int rowwise_inputs(op_case *c, rowwise_data *d, float *scratch)
{
    device_ctx *dv = c->dev;
    cudaStream_t s = dv->stream;
    const size_t n = (size_t)(d->rows * d->cols);
    const int wide = c->pc->dist && strcmp(c->pc->dist, "wide") == 0;
    float *f = d->type == ELEM_FP32 ? (float *)d->x : scratch;
    if (inputs_reset(dv->rng, c->seed) || inputs_uniform_pm1(dv->rng, f, n, s)) return STATUS_ERROR;
    if (wide) CK_LAUNCH(gpucheck_affine(f, n, ROWWISE_WIDE, 0.0f, s));
    if (d->type != ELEM_FP32) CK_LAUNCH(convert_from_f32(c->pc->type, f, d->x, (long long)n, s));
    if (d->weight) {
        if (inputs_uniform_pm1(dv->rng, d->weight, (size_t)d->cols, s)) return STATUS_ERROR;
        CK_LAUNCH(gpucheck_affine(d->weight, (size_t)d->cols, 0.5f, 1.0f, s)); /* (0.5, 1.5] */
        if (d->type != ELEM_FP32 && rowwise_round(c->pc->type, d->weight, (size_t)d->cols, scratch, s))
            return STATUS_ERROR;
    }
    if (d->bias) {
        if (inputs_uniform_pm1(dv->rng, d->bias, (size_t)d->cols, s)) return STATUS_ERROR;
        CK_LAUNCH(gpucheck_affine(d->bias, (size_t)d->cols, 0.5f, 0.0f, s)); /* (-0.5, 0.5] */
        if (d->type != ELEM_FP32 && rowwise_round(c->pc->type, d->bias, (size_t)d->cols, scratch, s))
            return STATUS_ERROR;
    }
    return STATUS_OK;
}

int rowwise_setup(op_case *c)
{
    const plan_case *pc = c->pc;
    cudaStream_t s = c->dev->stream;
    rowwise_data *d = calloc(1, sizeof *d);
    unsigned long long xm = 0;
    size_t n, b;
    if (!d) {
        status_set_message("out of host memory");
        return STATUS_ERROR;
    }
    c->data = d;
    d->op = rowwise_op_of(pc);
    d->type = elem_type_from_name(pc->type);
    d->rows = plan_case_axis(pc, "rows");
    d->cols = plan_case_axis(pc, "cols");
    b = (size_t)elem_type_bytes(d->type);
    n = (size_t)(d->rows * d->cols);
    if (b == 0 || d->rows < 1 || d->cols < 1) {
        status_set_message("rowwise: bad case (type %s, rows %lld, cols %lld)", pc->type ? pc->type : "(none)",
                           d->rows, d->cols);
        return STATUS_ERROR;
    }
    CK_CUDA(cudaMalloc(&d->x, n * b));
    CK_CUDA(cudaMalloc(&d->y, n * b));
    CK_CUDA(cudaMalloc((void **)&d->ref, n * sizeof(double)));
    CK_CUDA(cudaMalloc((void **)&d->scale, (size_t)d->rows * sizeof(double)));
    CK_CUDA(cudaMalloc((void **)&d->words, 8 * sizeof(unsigned long long)));
    if (d->op != ROWWISE_SOFTMAX) CK_CUDA(cudaMalloc((void **)&d->weight, (size_t)d->cols * sizeof(float)));
    if (d->op == ROWWISE_LAYERNORM) CK_CUDA(cudaMalloc((void **)&d->bias, (size_t)d->cols * sizeof(float)));
    if (rowwise_inputs(c, d, (float *)d->ref) != STATUS_OK) return STATUS_ERROR;
    /* the reference overwrites the scratch, after the conversion on the same stream */
    CK_CUDA(cudaMemsetAsync(d->words, 0, 8 * sizeof(unsigned long long), s));
    CK_LAUNCH(rowwise_ref(d->op, d->type, d->x, d->weight, d->bias, ROWWISE_EPS, d->rows, d->cols, d->ref, d->scale,
                          &d->words[4], s));
    CK_CUDA(cudaMemcpyAsync(&xm, &d->words[4], sizeof xm, cudaMemcpyDeviceToHost, s));
    CK_CUDA(cudaStreamSynchronize(s));
    memcpy(&d->x_max, &xm, sizeof d->x_max);
    return STATUS_OK;
}

/* y's bits all set: NaN in fp32, fp16 and bf16 */
static int rowwise_poison_y(const rowwise_data *d, cudaStream_t s)
{
    CK_CUDA(cudaMemsetAsync(d->y, 0xff, (size_t)(d->rows * d->cols) * (size_t)elem_type_bytes(d->type), s));
    return STATUS_OK;
}

int rowwise_poison(op_case *c) { return rowwise_poison_y(c->data, c->dev->stream); }

int rowwise_verify(op_case *c, const variant *v, result_row *r)
{
    rowwise_data *d = c->data;
    cudaStream_t s = c->dev->stream;
    const double tol = verify_rowwise_tolerance(c->pc->type, d->cols, d->x_max);
    unsigned long long h[4] = {0, ~0ULL, 0, 0};
    double worst, got = NAN, want = NAN;
    verify_verdict vd;
    (void)v;
    CK_CUDA(cudaMemcpyAsync(d->words, h, sizeof h, cudaMemcpyHostToDevice, s));
    CK_LAUNCH(rowwise_errors(d->type, d->y, d->ref, d->scale, d->rows, d->cols, tol, d->words, s));
    CK_CUDA(cudaMemcpyAsync(h, d->words, sizeof h, cudaMemcpyDeviceToHost, s));
    CK_CUDA(cudaStreamSynchronize(s));
    memcpy(&worst, &h[2], sizeof worst);
    verify_rowwise_judge(worst, (long long)h[3], c->pc->type, d->cols, d->x_max, &vd);
    r->rel_err = vd.rel_err;
    r->tolerance = vd.tolerance;
    if (vd.pass) return STATUS_OK;
    if (h[1] != ~0ULL) {
        /* the first element off: its value and the reference's */
        const size_t at = (size_t)h[1];
        CK_LAUNCH(convert_to_f64(c->pc->type, (const char *)d->y + at * (size_t)elem_type_bytes(d->type),
                                 (double *)&d->words[5], 1, s));
        CK_CUDA(cudaMemcpyAsync(&got, &d->words[5], sizeof got, cudaMemcpyDeviceToHost, s));
        CK_CUDA(cudaMemcpyAsync(&want, d->ref + at, sizeof want, cudaMemcpyDeviceToHost, s));
        CK_CUDA(cudaStreamSynchronize(s));
    }
    snprintf(r->message, sizeof r->message,
             "%llu of %lld elements off (%llu NaN/Inf); first at row %lld col %lld: %.6g, reference %.6g; max err "
             "%.3g of the row's largest output (tolerance %.3g)",
             h[0], d->rows * d->cols, h[3], h[1] != ~0ULL ? (long long)(h[1] / (unsigned long long)d->cols) : -1LL,
             h[1] != ~0ULL ? (long long)(h[1] % (unsigned long long)d->cols) : -1LL, got, want, vd.rel_err,
             vd.tolerance);
    return STATUS_FAIL;
}

void rowwise_fill_row(const op_case *c, const variant *v, result_row *r)
{
    const long long rows = plan_case_axis(c->pc, "rows"), cols = plan_case_axis(c->pc, "cols");
    const rowwise_op op = rowwise_op_of(c->pc);
    (void)v;
    r->elems = rows * cols;
    r->math = c->pc->type;
    r->flops = 0;
    /* x read and y written once each, the weight and the bias once */
    r->bytes = 2.0 * (double)rows * (double)cols * elem_type_bytes(elem_type_from_name(c->pc->type)) +
               4.0 * (double)cols * (op == ROWWISE_SOFTMAX ? 0 : op == ROWWISE_RMSNORM ? 1 : 2);
}

// ---------------------------------------------------------------------------
// adapters

int rowwise_v_hand(const op_case *c, const variant *v, cudaStream_t s)
{
    const rowwise_data *d = c->data;
    const rowwise_args a = {d->x, d->y, d->weight, d->bias, d->rows, d->cols, d->type, ROWWISE_EPS};
    CK_LAUNCH(((rowwise_launcher)v->fn)(&a, s));
    return STATUS_OK;
}

/* the CUB composition over the first reduce_cols elements of each row */
static int rowwise_cub_call(const op_case *c, long long reduce_cols, cudaStream_t s)
{
    const rowwise_data *d = c->data;
    char msg[400];
    if (shim_cub_rowwise((int)d->op, (int)d->type, d->x, d->y, d->weight, d->bias, ROWWISE_EPS, d->rows, d->cols,
                         reduce_cols, s, msg, sizeof msg)) {
        status_set_message("shim_cub_rowwise: %s", msg);
        return STATUS_ERROR;
    }
    return STATUS_OK;
}

int rowwise_v_cub(const op_case *c, const variant *v, cudaStream_t s)
{
    const rowwise_data *d = c->data;
    (void)v;
    return rowwise_cub_call(c, d->cols, s);
}

int rowwise_v_cub_wrong(const op_case *c, const variant *v, cudaStream_t s)
{
    const rowwise_data *d = c->data;
    (void)v;
    return rowwise_cub_call(c, d->cols > 1 ? d->cols / 2 : 1, s);
}

/* The plan, made by the row's first prepare (inside its checked run, after
 * the poisoning): the norms' candidates are timed there on the case's
 * buffers, so y is poisoned again and what is verified is the pick's own
 * output. */
int rowwise_v_cudnn_prepare(const op_case *c, const variant *v, cudaStream_t s)
{
    rowwise_data *d = c->data;
    (void)v;
    if (d->cudnn) return STATUS_OK;
    int st = cudnn_rows_plan_make(&d->cudnn, d->op, d->type, d->rows, d->cols, ROWWISE_EPS, d->x, d->y, d->weight,
                                  d->bias, s);
    if (st != STATUS_OK || d->op == ROWWISE_SOFTMAX) return st;
    return rowwise_poison_y(d, s);
}

int rowwise_v_cudnn(const op_case *c, const variant *v, cudaStream_t s)
{
    const rowwise_data *d = c->data;
    (void)v;
    kernel_ran_note(cudnn_rows_plan_name(d->cudnn), NULL);
    return cudnn_rows_plan_run(d->cudnn, s);
}

int rowwise_cudnn_supports(const plan_case *pc, const device_info *dev, const variant *v, char *why, size_t len)
{
    (void)dev;
    (void)v;
    return cudnn_rows_supports(rowwise_op_of(pc), elem_type_from_name(pc->type), plan_case_axis(pc, "rows"),
                               plan_case_axis(pc, "cols"), why, len);
}

int rowwise_needs_sm90(const plan_case *pc, const device_info *dev, const variant *v, char *why, size_t len)
{
    const policy_arch arch = policy_arch_for(dev->cc_major, dev->cc_minor);
    (void)pc;
    if (dev->cc_major >= 9 && (arch == POLICY_ARCH_90 || (arch == POLICY_ARCH_GENERIC && !policy_arch_forced())))
        return 1;
    if (dev->cc_major >= 9)
        snprintf(why, len, "%s needs the sm_90 policy (thread-block clusters); COMPARE_POLICY_ARCH forces %s",
                 v->info.name, policy_arch_name(arch));
    else
        snprintf(why, len, "%s needs thread-block clusters (sm_90 or later); this GPU is cc %d.%d", v->info.name,
                 dev->cc_major, dev->cc_minor);
    return 0;
}

// ---------------------------------------------------------------------------
// plugins: .type fp32, bf16 or fp16; axes rows, cols; inputs x, weight,
// bias (compare_plugin.h)

static void rowwise_plugin_bind(const plan_case *pc, const op_case *c, op_plugin_binding *b)
{
    const rowwise_data *d = c ? c->data : NULL;
    op_plugin_axis(b, "rows", plan_case_axis(pc, "rows"));
    op_plugin_axis(b, "cols", plan_case_axis(pc, "cols"));
    if (!d) return;
    op_plugin_slots(b, d->x, d->weight, d->y, NULL);
    if (d->bias && b->input_count < OP_PLUGIN_MAX_BUFFERS) b->inputs[b->input_count++] = d->bias;
}

const op_plugin_spec rowwise_plugin = {
    {{"fp32", "types", NULL}, {"bf16", "types", NULL}, {"fp16", "types", NULL}},
    rowwise_plugin_bind,
    0,
    "input x (rows x cols of the type), weight and bias (cols floats, the norms); output y (rows x cols)",
};
