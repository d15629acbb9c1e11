/* baselines/cudnn_rows.c: the cuDNN calls of the row-wise ops (see
 * cudnn_rows.h). Two builds: with cuDNN's headers (COMPARE_HAVE_CUDNN) the
 * calls through cudnn_lib.h's table; without them every entry declines with
 * cudnn_lib_available's text. */
#include "cudnn_rows.h"

#include <stdio.h>

#include "check.h"
#include "convert_kernels.h"
#include "cudnn_lib.h"
#include "status.h"

#ifndef COMPARE_HAVE_CUDNN

struct cudnn_rows_plan {
    int unused;
};

int cudnn_rows_supports(rowwise_op op, elem_type type, long long rows, long long cols, char *why, size_t why_len)
{
    (void)op, (void)type, (void)rows, (void)cols;
    return cudnn_lib_available(why, why_len);
}

int cudnn_rows_plan_make(cudnn_rows_plan **out, rowwise_op op, elem_type type, long long rows, long long cols,
                         float eps, const void *x, void *y, const float *weight, const float *bias, cudaStream_t s)
{
    char why[256];
    (void)op, (void)type, (void)rows, (void)cols, (void)eps, (void)x, (void)y, (void)weight, (void)bias, (void)s;
    *out = NULL;
    cudnn_lib_available(why, sizeof why);
    status_set_message("%s", why);
    return STATUS_ERROR;
}

int cudnn_rows_plan_run(const cudnn_rows_plan *p, cudaStream_t s)
{
    (void)p, (void)s;
    status_set_message("cuDNN not found at build time");
    return STATUS_ERROR;
}

const char *cudnn_rows_plan_name(const cudnn_rows_plan *p)
{
    (void)p;
    return "cudnn";
}

void cudnn_rows_plan_free(cudnn_rows_plan *p) { (void)p; }

#else

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define CR_HEUR_MAX 8          /* engine configurations tried per heuristic mode */
#define CR_FORMS 2             /* the graph's forms: scale and bias in FP32; in the 2-byte input's type */
#define CR_CANDS (CR_FORMS * 2 * CR_HEUR_MAX) /* execution plans timed: heuristic A's and FALLBACK's, per form */
#define CR_TRIALS 5            /* timed executions of each candidate (after one warm-up); the median counts */
#define CR_UID_X 1
#define CR_UID_Y 2
#define CR_UID_SCALE 3
#define CR_UID_BIAS 4
#define CR_UID_EPS 5

struct cudnn_rows_plan {
    const cudnn_fns *f;
    cudnnHandle_t handle;
    rowwise_op op;
    /* softmax */
    cudnnTensorDescriptor_t td;
    const void *x;
    void *y;
    /* the norms: one graph per form (form 0 takes scale and bias in FP32,
     * form 1 in the input's 2-byte type, from copies made in the plan) */
    struct cr_form {
        cudnnBackendDescriptor_t tensors[5], node, graph, pack;
        cudnnDataType_t scale_type;
        void *scale, *bias; /* form 1's copies of the weight and bias (device) */
        int ok;             /* the graph finalized and has a candidate */
    } forms[CR_FORMS];
    int nforms, form; /* forms made; the form being built or picked from */
    cudnnBackendDescriptor_t exec;
    /* the finalized execution plans, before the pick (then exec holds the
     * kept one and these are gone): engine global index, heuristic and form
     * each */
    cudnnBackendDescriptor_t cands[CR_CANDS];
    int64_t cand_engine[CR_CANDS];
    cudnnBackendHeurMode_t cand_mode[CR_CANDS];
    int cand_form[CR_CANDS];
    int ncands;
    elem_type type;
    long long cols;
    void *workspace;
    float eps;             /* the by-value epsilon: the variant pack points at it */
    char name[128];
};

// ---------------------------------------------------------------------------
// statuses

/* "call: CUDNN_STATUS_... (cuDNN's last error)" into buf */
static void cr_describe(const cudnn_fns *f, cudnnStatus_t st, const char *call, char *buf, size_t len)
{
    char last[256] = "";
    if (f->GetLastErrorString) f->GetLastErrorString(last, sizeof last);
    snprintf(buf, len, "%s: %s%s%s%s", call, f->GetErrorString(st), last[0] ? " (" : "", last, last[0] ? ")" : "");
}

/* a decline (not an error): cuDNN says it does not support the graph, the
 * type, the shape or the layout */
static int cr_declines(cudnnStatus_t st) { return CUDNN_STATUS_CATEGORY(st) == CUDNN_STATUS_NOT_SUPPORTED; }

/* Records a failed call in status.h's buffer; returns 1 when st failed. */
static int cr_fail(const cudnn_fns *f, cudnnStatus_t st, const char *call, const char *file, int line)
{
    char d[384];
    if (st == CUDNN_STATUS_SUCCESS) return 0;
    cr_describe(f, st, call, d, sizeof d);
    status_set_message("%s (%s:%d)", d, file, line);
    return 1;
}

/* Inside a function with `cudnnStatus_t st` and a `done` label: a failed
 * call keeps its status in st and leaves. */
#define CR_CALL(f, call)                                                          \
    do {                                                                          \
        st = (call);                                                              \
        if (cr_fail((f), st, #call, __FILE__, __LINE__)) goto done;               \
    } while (0)

/* The same for a helper of this file that has recorded its own failure. */
#define CR_TRY(expr)                                                              \
    do {                                                                          \
        st = (expr);                                                              \
        if (st != CUDNN_STATUS_SUCCESS) goto done;                                \
    } while (0)

// ---------------------------------------------------------------------------
// the handle: one per thread and device

static _Thread_local cudnnHandle_t cr_handle;
static _Thread_local int cr_handle_device = -1;

static cudnnStatus_t cr_get_handle(const cudnn_fns *f, cudnnHandle_t *h)
{
    int dev = -1;
    cudnnStatus_t st = CUDNN_STATUS_SUCCESS;
    if (cudaGetDevice(&dev) != cudaSuccess) return CUDNN_STATUS_EXECUTION_FAILED_CUDART;
    if (!cr_handle || cr_handle_device != dev) {
        /* a handle of another device on this thread is dropped (destroying it
         * would need that device current) */
        cr_handle = NULL;
        st = f->Create(&cr_handle);
        if (st != CUDNN_STATUS_SUCCESS) {
            cr_handle = NULL;
            return st;
        }
        cr_handle_device = dev;
    }
    *h = cr_handle;
    return st;
}

static cudnnDataType_t cr_dtype(elem_type t)
{
    return t == ELEM_FP16 ? CUDNN_DATA_HALF : t == ELEM_BF16 ? CUDNN_DATA_BFLOAT16 : CUDNN_DATA_FLOAT;
}

// ---------------------------------------------------------------------------
// softmax: the legacy call (its own descriptor)

static cudnnStatus_t cr_softmax_make(cudnn_rows_plan *p, elem_type type, long long rows, long long cols)
{
    cudnnStatus_t st;
    if (rows > 0x7fffffffLL || cols > 0x7fffffffLL) {
        status_set_message("cudnnSetTensor4dDescriptor takes int dimensions (%lld x %lld)", rows, cols);
        return CUDNN_STATUS_NOT_SUPPORTED_SHAPE;
    }
    CR_CALL(p->f, p->f->CreateTensorDescriptor(&p->td));
    CR_CALL(p->f, p->f->SetTensor4dDescriptor(p->td, CUDNN_TENSOR_NCHW, cr_dtype(type), (int)rows, (int)cols, 1, 1));
done:
    return st;
}

static cudnnStatus_t cr_softmax_run(const cudnn_rows_plan *p, const void *x, void *y)
{
    const float one = 1.0f, zero = 0.0f; /* alpha, beta: float for every non-double type */
    cudnnStatus_t st;
    CR_CALL(p->f, p->f->SoftmaxForward(p->handle, CUDNN_SOFTMAX_ACCURATE, CUDNN_SOFTMAX_MODE_INSTANCE, &one, p->td, x,
                                       &zero, p->td, y));
done:
    return st;
}

// ---------------------------------------------------------------------------
// the norms: the graph API

/* a finalized tensor descriptor: 4 dims (n, c, 1, 1), NCHW strides (c, 1, c, c) */
static cudnnStatus_t cr_tensor(const cudnn_fns *f, cudnnBackendDescriptor_t *t, int64_t uid, cudnnDataType_t dt,
                               int64_t n, int64_t c, int by_value)
{
    const int64_t dims[4] = {n, c, 1, 1}, strides[4] = {c, 1, c, c}, align = 16;
    const bool value = true;
    cudnnStatus_t st;
    CR_CALL(f, f->BackendCreateDescriptor(CUDNN_BACKEND_TENSOR_DESCRIPTOR, t));
    CR_CALL(f, f->BackendSetAttribute(*t, CUDNN_ATTR_TENSOR_DATA_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &dt));
    CR_CALL(f, f->BackendSetAttribute(*t, CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_INT64, 4, dims));
    CR_CALL(f, f->BackendSetAttribute(*t, CUDNN_ATTR_TENSOR_STRIDES, CUDNN_TYPE_INT64, 4, strides));
    CR_CALL(f, f->BackendSetAttribute(*t, CUDNN_ATTR_TENSOR_UNIQUE_ID, CUDNN_TYPE_INT64, 1, &uid));
    CR_CALL(f, f->BackendSetAttribute(*t, CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT, CUDNN_TYPE_INT64, 1, &align));
    if (by_value) CR_CALL(f, f->BackendSetAttribute(*t, CUDNN_ATTR_TENSOR_IS_BY_VALUE, CUDNN_TYPE_BOOLEAN, 1, &value));
    CR_CALL(f, f->BackendFinalize(*t));
done:
    return st;
}

/* The engine global index of a configuration (best effort: -1 when cuDNN
 * does not say), for the row's `kernel` and to drop FALLBACK's repeats of
 * heuristic A's engines. */
static int64_t cr_engine_index(const cudnn_fns *f, cudnnBackendDescriptor_t cfg)
{
    cudnnBackendDescriptor_t engine = NULL;
    int64_t index = -1, n = 0;
    if (f->BackendCreateDescriptor(CUDNN_BACKEND_ENGINE_DESCRIPTOR, &engine) != CUDNN_STATUS_SUCCESS) return -1;
    if (f->BackendGetAttribute(cfg, CUDNN_ATTR_ENGINECFG_ENGINE, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &n, &engine) !=
            CUDNN_STATUS_SUCCESS ||
        f->BackendGetAttribute(engine, CUDNN_ATTR_ENGINE_GLOBAL_INDEX, CUDNN_TYPE_INT64, 1, &n, &index) !=
            CUDNN_STATUS_SUCCESS)
        index = -1;
    f->BackendDestroyDescriptor(engine);
    return index;
}

/* Whether a FALLBACK configuration repeats an engine heuristic A gave */
static int cr_seen_in_a(const cudnn_rows_plan *p, int64_t index)
{
    for (int i = 0; i < p->ncands; i++)
        if (index >= 0 && p->cand_engine[i] == index && p->cand_mode[i] == CUDNN_HEUR_MODE_A &&
            p->cand_form[i] == p->form)
            return 1;
    return 0;
}

/* Appends to p->cands the configurations of heuristic mode `mode` (its first
 * CR_HEUR_MAX) whose execution plan finalizes: every one when `all`, else
 * the first only. Returns success when one was added, else the last
 * failure (its message in status.h's buffer). */
static cudnnStatus_t cr_pick(cudnn_rows_plan *p, cudnnBackendHeurMode_t mode, int all)
{
    const cudnn_fns *f = p->f;
    cudnnBackendDescriptor_t heur = NULL, cfgs[CR_HEUR_MAX] = {NULL};
    const int before = p->ncands;
    int64_t count = 0;
    cudnnStatus_t st;
    CR_CALL(f, f->BackendCreateDescriptor(CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR, &heur));
    CR_CALL(f, f->BackendSetAttribute(heur, CUDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1,
                                      &p->forms[p->form].graph));
    CR_CALL(f, f->BackendSetAttribute(heur, CUDNN_ATTR_ENGINEHEUR_MODE, CUDNN_TYPE_HEUR_MODE, 1, &mode));
    CR_CALL(f, f->BackendFinalize(heur));
    for (int i = 0; i < CR_HEUR_MAX; i++) CR_CALL(f, f->BackendCreateDescriptor(CUDNN_BACKEND_ENGINECFG_DESCRIPTOR, &cfgs[i]));
    CR_CALL(f, f->BackendGetAttribute(heur, CUDNN_ATTR_ENGINEHEUR_RESULTS, CUDNN_TYPE_BACKEND_DESCRIPTOR, CR_HEUR_MAX,
                                      &count, cfgs));
    st = CUDNN_STATUS_NOT_SUPPORTED;
    if (count == 0)
        status_set_message("cuDNN's heuristic %s has no engine for this graph",
                           mode == CUDNN_HEUR_MODE_A ? "A" : "FALLBACK");
    for (int64_t i = 0; i < count && i < CR_HEUR_MAX && p->ncands < CR_CANDS; i++) {
        cudnnBackendDescriptor_t exec = NULL;
        const int64_t index = cr_engine_index(f, cfgs[i]);
        if (mode != CUDNN_HEUR_MODE_A && cr_seen_in_a(p, index)) continue;
        st = f->BackendCreateDescriptor(CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR, &exec);
        if (st == CUDNN_STATUS_SUCCESS)
            st = f->BackendSetAttribute(exec, CUDNN_ATTR_EXECUTION_PLAN_HANDLE, CUDNN_TYPE_HANDLE, 1, &p->handle);
        if (st == CUDNN_STATUS_SUCCESS)
            st = f->BackendSetAttribute(exec, CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1,
                                        &cfgs[i]);
        if (st == CUDNN_STATUS_SUCCESS) st = f->BackendFinalize(exec);
        if (st != CUDNN_STATUS_SUCCESS) {
            cr_fail(f, st, "cudnnBackendFinalize(execution plan)", __FILE__, __LINE__);
            if (exec) f->BackendDestroyDescriptor(exec);
            continue;
        }
        p->cands[p->ncands] = exec;
        p->cand_engine[p->ncands] = index;
        p->cand_form[p->ncands] = p->form;
        p->cand_mode[p->ncands++] = mode;
        if (!all) break;
    }
    if (p->ncands > before) st = CUDNN_STATUS_SUCCESS;
done:
    for (int i = 0; i < CR_HEUR_MAX; i++)
        if (cfgs[i]) f->BackendDestroyDescriptor(cfgs[i]);
    if (heur) f->BackendDestroyDescriptor(heur);
    return st;
}

static const char *cr_dtype_name(cudnnDataType_t t)
{
    return t == CUDNN_DATA_HALF ? "fp16" : t == CUDNN_DATA_BFLOAT16 ? "bf16" : "fp32";
}

/* Keeps candidate k as the plan's execution plan (the others destroyed) and
 * names it: "... engine 3, scale bf16 (heuristic A, fastest of 5)" (`ran`:
 * the candidates timed), or without the count when there was no choice. */
static void cr_keep(cudnn_rows_plan *p, int k, int ran)
{
    const cudnn_fns *f = p->f;
    char of[32] = "";
    if (ran > 1) snprintf(of, sizeof of, ", fastest of %d", ran);
    p->form = p->cand_form[k];
    snprintf(p->name, sizeof p->name, "cuDNN %zu.%zu.%zu norm forward engine %lld, scale %s (heuristic %s%s)",
             f->version / 10000, f->version / 100 % 100, f->version % 100, (long long)p->cand_engine[k],
             cr_dtype_name(p->forms[p->form].scale_type), p->cand_mode[k] == CUDNN_HEUR_MODE_A ? "A" : "fallback",
             of);
    p->exec = p->cands[k];
    p->cands[k] = NULL;
    for (int i = 0; i < p->ncands; i++)
        if (p->cands[i]) f->BackendDestroyDescriptor(p->cands[i]);
    memset(p->cands, 0, sizeof p->cands);
}

/* The graph of one norm-forward node in form p->form, scale and bias of
 * scale_type (descriptors only). */
static cudnnStatus_t cr_norm_graph(cudnn_rows_plan *p, cudnnDataType_t dt, cudnnDataType_t scale_type, long long rows,
                                   long long cols)
{
    const cudnn_fns *f = p->f;
    struct cr_form *g = &p->forms[p->form];
    const cudnnBackendNormMode_t mode = p->op == ROWWISE_RMSNORM ? CUDNN_RMS_NORM : CUDNN_LAYER_NORM;
    const cudnnBackendNormFwdPhase_t phase = CUDNN_NORM_FWD_INFERENCE;
    cudnnStatus_t st;
    g->scale_type = scale_type;
    CR_TRY(cr_tensor(f, &g->tensors[0], CR_UID_X, dt, rows, cols, 0));
    CR_TRY(cr_tensor(f, &g->tensors[1], CR_UID_Y, dt, rows, cols, 0));
    CR_TRY(cr_tensor(f, &g->tensors[2], CR_UID_SCALE, scale_type, 1, cols, 0));
    if (p->op == ROWWISE_LAYERNORM) CR_TRY(cr_tensor(f, &g->tensors[3], CR_UID_BIAS, scale_type, 1, cols, 0));
    CR_TRY(cr_tensor(f, &g->tensors[4], CR_UID_EPS, CUDNN_DATA_FLOAT, 1, 1, 1));
    CR_CALL(f, f->BackendCreateDescriptor(CUDNN_BACKEND_OPERATION_NORM_FORWARD_DESCRIPTOR, &g->node));
    CR_CALL(f, f->BackendSetAttribute(g->node, CUDNN_ATTR_OPERATION_NORM_FWD_MODE, CUDNN_TYPE_NORM_MODE, 1, &mode));
    CR_CALL(f, f->BackendSetAttribute(g->node, CUDNN_ATTR_OPERATION_NORM_FWD_PHASE, CUDNN_TYPE_NORM_FWD_PHASE, 1,
                                      &phase));
    CR_CALL(f, f->BackendSetAttribute(g->node, CUDNN_ATTR_OPERATION_NORM_FWD_XDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1,
                                      &g->tensors[0]));
    CR_CALL(f, f->BackendSetAttribute(g->node, CUDNN_ATTR_OPERATION_NORM_FWD_YDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1,
                                      &g->tensors[1]));
    CR_CALL(f, f->BackendSetAttribute(g->node, CUDNN_ATTR_OPERATION_NORM_FWD_SCALE_DESC,
                                      CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &g->tensors[2]));
    if (p->op == ROWWISE_LAYERNORM)
        CR_CALL(f, f->BackendSetAttribute(g->node, CUDNN_ATTR_OPERATION_NORM_FWD_BIAS_DESC,
                                          CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &g->tensors[3]));
    CR_CALL(f, f->BackendSetAttribute(g->node, CUDNN_ATTR_OPERATION_NORM_FWD_EPSILON_DESC,
                                      CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &g->tensors[4]));
    CR_CALL(f, f->BackendFinalize(g->node));
    CR_CALL(f, f->BackendCreateDescriptor(CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR, &g->graph));
    CR_CALL(f, f->BackendSetAttribute(g->graph, CUDNN_ATTR_OPERATIONGRAPH_HANDLE, CUDNN_TYPE_HANDLE, 1, &p->handle));
    CR_CALL(f, f->BackendSetAttribute(g->graph, CUDNN_ATTR_OPERATIONGRAPH_OPS, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1,
                                      &g->node));
    CR_CALL(f, f->BackendFinalize(g->graph));
done:
    return st;
}

/* The candidate execution plans of one form (all: every finalizing
 * configuration of heuristic A and FALLBACK; else heuristic A's first, or
 * FALLBACK's when A has none). */
static cudnnStatus_t cr_norm_candidates(cudnn_rows_plan *p, int all)
{
    cudnnStatus_t st = cr_pick(p, CUDNN_HEUR_MODE_A, all);
    if (all || st != CUDNN_STATUS_SUCCESS) {
        const int before = p->ncands;
        const cudnnStatus_t fb = cr_pick(p, CUDNN_HEUR_MODE_FALLBACK, all);
        if (st != CUDNN_STATUS_SUCCESS && p->ncands == before) return fb;
        st = CUDNN_STATUS_SUCCESS;
    }
    return st;
}

/* The norm's forms and their candidates: form 0 (scale and bias in FP32)
 * always; for a 2-byte input also form 1 (scale and bias in the input's
 * type: cuDNN's fast norm engines take the weights in the input's type; the
 * case's weights are values of that type, so the copies are exact). With
 * `all` every form's candidates (the pick is cr_norm_fastest's); else the
 * first form that has one (cudnn_rows_supports' check). */
static cudnnStatus_t cr_norm_make(cudnn_rows_plan *p, elem_type type, long long rows, long long cols, int all)
{
    const cudnnDataType_t dt = cr_dtype(type);
    const int forms = elem_type_bytes(type) == 2 ? 2 : 1;
    cudnnStatus_t st = CUDNN_STATUS_NOT_SUPPORTED, first = CUDNN_STATUS_SUCCESS;
    char first_why[512] = "";
    p->type = type;
    p->cols = cols;
    for (int k = 0; k < forms; k++) {
        p->form = p->nforms++;
        st = cr_norm_graph(p, dt, k == 0 ? CUDNN_DATA_FLOAT : dt, rows, cols);
        if (st == CUDNN_STATUS_SUCCESS) st = cr_norm_candidates(p, all);
        p->forms[p->form].ok = st == CUDNN_STATUS_SUCCESS;
        if (st != CUDNN_STATUS_SUCCESS && k == 0) {
            first = st;
            snprintf(first_why, sizeof first_why, "%s", status_message());
        }
        if (!cr_declines(st) && st != CUDNN_STATUS_SUCCESS) return st; /* an error, not a decline */
        if (!all && p->ncands > 0) break;
    }
    if (p->ncands > 0) return CUDNN_STATUS_SUCCESS;
    if (first != CUDNN_STATUS_SUCCESS) status_set_message("%s", first_why); /* form 0's reason */
    return first != CUDNN_STATUS_SUCCESS ? first : st;
}

/* The variant packs (one per form, with the case's pointers; form 1 with
 * copies of the weight and bias in the input's type) and a workspace as
 * large as the largest any candidate needs. */
static cudnnStatus_t cr_norm_bind(cudnn_rows_plan *p, const void *x, void *y, const float *weight, const float *bias,
                                  cudaStream_t s)
{
    const cudnn_fns *f = p->f;
    int64_t ws = 0, n = 0;
    const int64_t count = p->op == ROWWISE_LAYERNORM ? 5 : 4;
    cudnnStatus_t st = CUDNN_STATUS_SUCCESS;
    for (int i = 0; i < p->ncands; i++) {
        int64_t need = 0;
        CR_CALL(f, f->BackendGetAttribute(p->cands[i], CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE, CUDNN_TYPE_INT64, 1,
                                          &n, &need));
        if (need > ws) ws = need;
    }
    if (ws > 0 && cudaMalloc(&p->workspace, (size_t)ws) != cudaSuccess) {
        status_set_message("cudaMalloc of cuDNN's workspace (%lld bytes) failed", (long long)ws);
        return CUDNN_STATUS_INTERNAL_ERROR_DEVICE_ALLOCATION_FAILED;
    }
    for (int k = 0; k < p->nforms; k++) {
        struct cr_form *g = &p->forms[k];
        int64_t uids[5] = {CR_UID_X, CR_UID_Y, CR_UID_SCALE, CR_UID_EPS, CR_UID_BIAS};
        void *ptrs[5] = {(void *)x, y, (void *)weight, &p->eps, (void *)bias};
        if (!g->ok) continue;
        if (g->scale_type != CUDNN_DATA_FLOAT) {
            const char *tn = cr_dtype_name(g->scale_type);
            const size_t bytes = (size_t)p->cols * (size_t)elem_type_bytes(p->type);
            if (cudaMalloc(&g->scale, bytes) != cudaSuccess || (bias && cudaMalloc(&g->bias, bytes) != cudaSuccess)) {
                status_set_message("cudaMalloc of cuDNN's %s scale and bias (%zu bytes each) failed", tn, bytes);
                return CUDNN_STATUS_INTERNAL_ERROR_DEVICE_ALLOCATION_FAILED;
            }
            if (check_cuda_status(convert_from_f32(tn, weight, g->scale, p->cols, s), "convert_from_f32", __FILE__,
                                  __LINE__) ||
                (bias && check_cuda_status(convert_from_f32(tn, bias, g->bias, p->cols, s), "convert_from_f32",
                                           __FILE__, __LINE__)))
                return CUDNN_STATUS_EXECUTION_FAILED_CUDART;
            ptrs[2] = g->scale;
            ptrs[4] = g->bias;
        }
        CR_CALL(f, f->BackendCreateDescriptor(CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR, &g->pack));
        CR_CALL(f, f->BackendSetAttribute(g->pack, CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS, CUDNN_TYPE_INT64, count, uids));
        CR_CALL(f, f->BackendSetAttribute(g->pack, CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS, CUDNN_TYPE_VOID_PTR, count,
                                          ptrs));
        CR_CALL(f, f->BackendSetAttribute(g->pack, CUDNN_ATTR_VARIANT_PACK_WORKSPACE, CUDNN_TYPE_VOID_PTR, 1,
                                          &p->workspace));
        CR_CALL(f, f->BackendFinalize(g->pack));
    }
done:
    return st;
}

/* The median of CR_TRIALS executions of candidate k after one warm-up, each
 * between an event pair on s, or a negative value when one failed (its
 * error recorded, a CUDA error cleared: the next candidate is tried). */
static double cr_norm_time(const cudnn_rows_plan *p, int k, cudaStream_t s, cudaEvent_t e0, cudaEvent_t e1)
{
    const cudnn_fns *f = p->f;
    double ms[CR_TRIALS];
    for (int i = -1; i < CR_TRIALS; i++) {
        float t = 0;
        if (check_cuda_status(cudaEventRecord(e0, s), "cudaEventRecord", __FILE__, __LINE__) ||
            cr_fail(f, f->BackendExecute(p->handle, p->cands[k], p->forms[p->cand_form[k]].pack), "cudnnBackendExecute",
                    __FILE__, __LINE__) ||
            check_cuda_status(cudaEventRecord(e1, s), "cudaEventRecord", __FILE__, __LINE__) ||
            check_cuda_status(cudaEventSynchronize(e1), "cudaEventSynchronize", __FILE__, __LINE__) ||
            check_cuda_status(cudaEventElapsedTime(&t, e0, e1), "cudaEventElapsedTime", __FILE__, __LINE__)) {
            (void)cudaStreamSynchronize(s);
            (void)cudaGetLastError();
            return -1;
        }
        if (i >= 0) ms[i] = t;
    }
    /* insertion sort of the few samples */
    for (int i = 1; i < CR_TRIALS; i++)
        for (int j = i; j > 0 && ms[j] < ms[j - 1]; j--) {
            const double t = ms[j];
            ms[j] = ms[j - 1];
            ms[j - 1] = t;
        }
    return ms[CR_TRIALS / 2];
}

/* Times every candidate on the case's buffers (y is written) and keeps the
 * fastest (the earlier, heuristic A's order first, on a tie); with
 * COMPARE_CUDNN_VERBOSE set (not 0) each candidate's engine, form and time
 * go to stderr. Returns a status_t. */
static int cr_norm_fastest(cudnn_rows_plan *p, cudaStream_t s)
{
    cudaEvent_t e0 = NULL, e1 = NULL;
    const char *v = getenv("COMPARE_CUDNN_VERBOSE");
    const int verbose = v && *v && strcmp(v, "0") != 0;
    double best = -1;
    int pick = -1, ran = 0;
    if (p->ncands == 1 && !verbose) {
        cr_keep(p, 0, 1); /* nothing to choose between: not run here */
        return STATUS_OK;
    }
    if (cr_fail(p->f, p->f->SetStream(p->handle, s), "cudnnSetStream", __FILE__, __LINE__)) return STATUS_ERROR;
    if (check_cuda_status(cudaEventCreate(&e0), "cudaEventCreate", __FILE__, __LINE__) ||
        check_cuda_status(cudaEventCreate(&e1), "cudaEventCreate", __FILE__, __LINE__))
        goto done;
    for (int k = 0; k < p->ncands; k++) {
        const double t = cr_norm_time(p, k, s, e0, e1);
        if (verbose)
            fprintf(stderr, "compare: cuDNN %s candidate %d: engine %lld, scale %s, heuristic %s: %s%.4f ms\n",
                    p->op == ROWWISE_RMSNORM ? "rmsnorm" : "layernorm", k, (long long)p->cand_engine[k],
                    cr_dtype_name(p->forms[p->cand_form[k]].scale_type),
                    p->cand_mode[k] == CUDNN_HEUR_MODE_A ? "A" : "fallback", t < 0 ? "failed " : "", t < 0 ? 0 : t);
        ran += t >= 0;
        if (t >= 0 && (best < 0 || t < best)) {
            best = t;
            pick = k;
        }
    }
    if (pick < 0) {
        char last[384];
        snprintf(last, sizeof last, "%s", status_message());
        status_set_message("cuDNN: none of the %d norm-forward execution plans ran (last: %s)", p->ncands, last);
        goto done;
    }
    cr_keep(p, pick, ran);
done:
    if (e0) cudaEventDestroy(e0);
    if (e1) cudaEventDestroy(e1);
    return pick < 0 ? STATUS_ERROR : STATUS_OK;
}

// ---------------------------------------------------------------------------
// plans

void cudnn_rows_plan_free(cudnn_rows_plan *p)
{
    if (!p) return;
    if (p->td) p->f->DestroyTensorDescriptor(p->td);
    if (p->exec) p->f->BackendDestroyDescriptor(p->exec);
    for (int i = 0; i < p->ncands; i++)
        if (p->cands[i]) p->f->BackendDestroyDescriptor(p->cands[i]);
    for (int k = 0; k < p->nforms; k++) {
        struct cr_form *g = &p->forms[k];
        if (g->pack) p->f->BackendDestroyDescriptor(g->pack);
        if (g->graph) p->f->BackendDestroyDescriptor(g->graph);
        if (g->node) p->f->BackendDestroyDescriptor(g->node);
        for (int i = 0; i < 5; i++)
            if (g->tensors[i]) p->f->BackendDestroyDescriptor(g->tensors[i]);
        cudaFree(g->scale);
        cudaFree(g->bias);
    }
    cudaFree(p->workspace);
    free(p);
}

/* The plan's descriptors (no buffers yet): a status, *out set on success;
 * why (when given) gets the reason of a failure. The norms: every candidate
 * execution plan when `all` (the pick is cr_norm_fastest's), else only the
 * first that finalizes (cudnn_rows_supports' check). */
static cudnnStatus_t cr_make(cudnn_rows_plan **out, rowwise_op op, elem_type type, long long rows, long long cols,
                             int all, char *why, size_t why_len)
{
    cudnn_rows_plan *p = calloc(1, sizeof *p);
    cudnnStatus_t st;
    *out = NULL;
    if (!p) {
        snprintf(why, why_len, "out of host memory");
        return CUDNN_STATUS_INTERNAL_ERROR_HOST_ALLOCATION_FAILED;
    }
    p->f = cudnn_lib_fns(why, why_len);
    p->op = op;
    if (!p->f) {
        free(p);
        return CUDNN_STATUS_NOT_SUPPORTED_SUBLIBRARY_UNAVAILABLE;
    }
    st = cr_get_handle(p->f, &p->handle);
    if (cr_fail(p->f, st, "cudnnCreate", __FILE__, __LINE__) == 0)
        st = op == ROWWISE_SOFTMAX ? cr_softmax_make(p, type, rows, cols) : cr_norm_make(p, type, rows, cols, all);
    if (st != CUDNN_STATUS_SUCCESS) {
        snprintf(why, why_len, "%s", status_message());
        cudnn_rows_plan_free(p);
        return st;
    }
    if (op == ROWWISE_SOFTMAX)
        snprintf(p->name, sizeof p->name, "cudnnSoftmaxForward ACCURATE INSTANCE (cuDNN %zu.%zu.%zu)",
                 p->f->version / 10000, p->f->version / 100 % 100, p->f->version % 100);
    *out = p;
    return st;
}

/* softmax has no query: one call on two rows of scratch memory */
static cudnnStatus_t cr_softmax_probe(elem_type type, long long cols, char *why, size_t why_len)
{
    cudnn_rows_plan *p = NULL;
    void *buf = NULL;
    cudaStream_t s = NULL;
    const size_t bytes = (size_t)(2 * cols) * (size_t)elem_type_bytes(type);
    cudnnStatus_t st = cr_make(&p, ROWWISE_SOFTMAX, type, 2, cols, 0, why, why_len);
    if (st != CUDNN_STATUS_SUCCESS) return st;
    if (cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking) != cudaSuccess) s = NULL;
    if (!s || cudaMalloc(&buf, 2 * bytes) != cudaSuccess) {
        if (s) cudaStreamDestroy(s);
        cudnn_rows_plan_free(p);
        return CUDNN_STATUS_SUCCESS; /* no stream or memory for the probe: the run will tell */
    }
    if (cudaMemsetAsync(buf, 0, 2 * bytes, s) == cudaSuccess) {
        st = p->f->SetStream(p->handle, s);
        if (st == CUDNN_STATUS_SUCCESS) st = cr_softmax_run(p, buf, (char *)buf + bytes);
        if (st != CUDNN_STATUS_SUCCESS) snprintf(why, why_len, "%s", status_message());
        (void)cudaStreamSynchronize(s);
        (void)p->f->SetStream(p->handle, NULL); /* s goes away; each run binds its own stream */
    }
    cudaFree(buf);
    cudaStreamDestroy(s);
    cudnn_rows_plan_free(p);
    return st;
}

int cudnn_rows_supports(rowwise_op op, elem_type type, long long rows, long long cols, char *why, size_t why_len)
{
    cudnn_rows_plan *p = NULL;
    char reason[512] = "";
    cudnnStatus_t st;
    if (!cudnn_lib_available(why, why_len)) return 0;
    st = cr_make(&p, op, type, rows, cols, 0, reason, sizeof reason);
    cudnn_rows_plan_free(p);
    if (st == CUDNN_STATUS_SUCCESS && op == ROWWISE_SOFTMAX) st = cr_softmax_probe(type, cols, reason, sizeof reason);
    if (st == CUDNN_STATUS_SUCCESS || !cr_declines(st)) return 1;
    snprintf(why, why_len, "cuDNN declines this case: %s", reason);
    return 0;
}

int cudnn_rows_plan_make(cudnn_rows_plan **out, rowwise_op op, elem_type type, long long rows, long long cols,
                         float eps, const void *x, void *y, const float *weight, const float *bias, cudaStream_t s)
{
    char why[512];
    cudnn_rows_plan *p = NULL;
    cudnnStatus_t st = cr_make(&p, op, type, rows, cols, 1, why, sizeof why);
    *out = NULL;
    if (st != CUDNN_STATUS_SUCCESS) {
        status_set_message("%s", why);
        return STATUS_ERROR;
    }
    p->eps = eps;
    p->x = x;
    p->y = y;
    if (op != ROWWISE_SOFTMAX &&
        (cr_norm_bind(p, x, y, weight, bias, s) != CUDNN_STATUS_SUCCESS || cr_norm_fastest(p, s) != STATUS_OK)) {
        cudnn_rows_plan_free(p);
        return STATUS_ERROR;
    }
    *out = p;
    return STATUS_OK;
}

int cudnn_rows_plan_run(const cudnn_rows_plan *p, cudaStream_t s)
{
    cudnnStatus_t st;
    CR_CALL(p->f, p->f->SetStream(p->handle, s));
    if (p->op == ROWWISE_SOFTMAX) st = cr_softmax_run(p, p->x, p->y);
    else CR_CALL(p->f, p->f->BackendExecute(p->handle, p->exec, p->forms[p->form].pack));
done:
    return st == CUDNN_STATUS_SUCCESS ? STATUS_OK : STATUS_ERROR;
}

const char *cudnn_rows_plan_name(const cudnn_rows_plan *p) { return p->name; }

#endif
