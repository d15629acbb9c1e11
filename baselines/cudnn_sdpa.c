/* baselines/cudnn_sdpa.c: cuDNN's fused attention forward through the graph
 * API (see cudnn_sdpa.h for the two forms and how the engine is picked).
 * Two builds: with cuDNN's headers (COMPARE_HAVE_CUDNN) the calls through
 * cudnn_lib.h's table; without them every entry declines with
 * cudnn_lib_available's text. The graphs follow cudnn-frontend's lowering
 * of its sdpa node (the dedicated operation, and the composite graph of its
 * CompositeSDPANode with the frontend's bottom-right causal mask and
 * softmax), written here against the backend API in C. */
#include "cudnn_sdpa.h"

#include <stdio.h>

#include "cudnn_lib.h"
#include "status.h"

#ifndef COMPARE_HAVE_CUDNN

struct cudnn_sdpa_plan {
    int unused;
};

int cudnn_sdpa_supports(const attention_args *a, char *why, size_t why_len)
{
    (void)a;
    return cudnn_lib_available(why, why_len);
}

int cudnn_sdpa_plan_make(cudnn_sdpa_plan **out, const attention_args *a, cudaStream_t s)
{
    char why[256];
    (void)a, (void)s;
    *out = NULL;
    cudnn_lib_available(why, sizeof why);
    status_set_message("%s", why);
    return STATUS_ERROR;
}

int cudnn_sdpa_plan_run(const cudnn_sdpa_plan *p, cudaStream_t s)
{
    (void)p, (void)s;
    status_set_message("cuDNN not found at build time");
    return STATUS_ERROR;
}

const char *cudnn_sdpa_plan_name(const cudnn_sdpa_plan *p)
{
    (void)p;
    return "cudnn";
}

void cudnn_sdpa_plan_free(cudnn_sdpa_plan *p) { (void)p; }

#else

#include <float.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define SD_FORMS 2    /* the graphs: the SDPA_FWD operation; the fused composite graph */
#define SD_CANDS (SD_FORMS * 2 * CUDNN_LIB_HEUR_MAX) /* heuristic A's and FALLBACK's, per form */
#define SD_TRIALS 5   /* timed executions of each candidate (after one warm-up); the median counts */
#define SD_DESCS 96   /* descriptors of both graphs (tensors, nodes, operation descriptors) */
#define SD_OPS 24     /* nodes of one graph */
#define SD_PACK 8     /* non-virtual tensors of one graph */

enum { SD_FORM_OP = 0, SD_FORM_FUSED = 1 };
/* the unique ids of the non-virtual tensors; the virtual ones count up from SD_UID_VIRTUAL */
enum { SD_UID_Q = 1, SD_UID_K, SD_UID_V, SD_UID_O, SD_UID_SCALE, SD_UID_LOWEST, SD_UID_SKV, SD_UID_SQ };
#define SD_UID_VIRTUAL 100
/* sd_tensor's kinds */
enum { SD_REAL = 0, SD_VIRTUAL = 1, SD_BY_VALUE = 2 };

static const char *const sd_form_names[SD_FORMS] = {"sdpa op", "fused graph"};

struct cudnn_sdpa_plan {
    const cudnn_fns *f;
    cudnnHandle_t handle;
    attention_args a;
    /* every descriptor the graphs are made of, destroyed with the plan */
    cudnnBackendDescriptor_t descs[SD_DESCS];
    int ndescs;
    /* the graph being built: its nodes and the next virtual uid */
    cudnnBackendDescriptor_t ops[SD_OPS];
    int nops;
    int64_t next_uid;
    struct sd_form {
        cudnnBackendDescriptor_t graph, pack;
        int64_t uids[SD_PACK];
        void *ptrs[SD_PACK];
        int npack;
        int ok;             /* the graph finalized and has a candidate */
        char why[384];      /* else why not */
    } forms[SD_FORMS];
    int form; /* the form being built, then the one picked */
    /* the finalized execution plans before the pick (then exec holds the
     * kept one); each one's tag is its form */
    cudnn_lib_cand cands[SD_CANDS];
    int ncands;
    cudnnBackendDescriptor_t exec;
    void *workspace;
    /* the by-value scalars: the variant packs point at them */
    float scale, lowest;
    int32_t seq_kv, seq_q;
    char name[192];
};

// ---------------------------------------------------------------------------
// checked calls

/* In a function with a plan `p`, a `cudnnStatus_t st` and a `done` label: a
 * failed call keeps its status in st and leaves (cudnn_lib_fail records it). */
#define SD_CALL(call)                                                             \
    do {                                                                          \
        st = (call);                                                              \
        if (cudnn_lib_fail(p->f, st, #call, __FILE__, __LINE__)) goto done;       \
    } while (0)
/* a helper of this file that has recorded its own failure */
#define SD_TRY(expr)                                                              \
    do {                                                                          \
        st = (expr);                                                              \
        if (st != CUDNN_STATUS_SUCCESS) goto done;                                \
    } while (0)
#define SD_SET(d, attr, type, n, v) SD_CALL(p->f->BackendSetAttribute((d), (attr), (type), (n), (v)))

/* A CUDA call of this file: 0, or -1 with "call: error (file:line)" recorded. */
static int sd_cuda(cudaError_t e, const char *call, int line)
{
    if (e == cudaSuccess) return 0;
    status_set_message("%s: %s (%s:%d)", call, cudaGetErrorString(e), __FILE__, line);
    return -1;
}
#define SD_CUDA(call) sd_cuda((call), #call, __LINE__)

// ---------------------------------------------------------------------------
// descriptors and nodes

static cudnnStatus_t sd_new(cudnn_sdpa_plan *p, cudnnBackendDescriptorType_t type, cudnnBackendDescriptor_t *d)
{
    cudnnStatus_t st;
    *d = NULL;
    if (p->ndescs == SD_DESCS) {
        status_set_message("cudnn_sdpa: more than %d descriptors", SD_DESCS);
        return CUDNN_STATUS_INTERNAL_ERROR;
    }
    SD_CALL(p->f->BackendCreateDescriptor(type, d));
    p->descs[p->ndescs++] = *d;
done:
    return st;
}

static cudnnDataType_t sd_dtype(elem_type t) { return t == ELEM_BF16 ? CUDNN_DATA_BFLOAT16 : CUDNN_DATA_HALF; }

/* A finalized 4-d tensor of dims and strides (NULL: packed, last dimension
 * contiguous). SD_REAL and SD_BY_VALUE tensors join the form's variant pack
 * with ptr (a device buffer; a host scalar for SD_BY_VALUE); SD_VIRTUAL ones
 * take the next virtual uid. */
static cudnnStatus_t sd_tensor(cudnn_sdpa_plan *p, cudnnBackendDescriptor_t *t, int kind, int64_t uid,
                               cudnnDataType_t dt, const int64_t dims[4], const int64_t strides_in[4], void *ptr)
{
    struct sd_form *g = &p->forms[p->form];
    const int64_t align = 16;
    const bool yes = true;
    int64_t strides[4];
    cudnnStatus_t st;
    if (strides_in) memcpy(strides, strides_in, sizeof strides);
    else {
        strides[3] = 1;
        for (int i = 2; i >= 0; i--) strides[i] = strides[i + 1] * dims[i + 1];
    }
    if (kind == SD_VIRTUAL) uid = p->next_uid++;
    else if (g->npack == SD_PACK) {
        status_set_message("cudnn_sdpa: more than %d tensors in a variant pack", SD_PACK);
        return CUDNN_STATUS_INTERNAL_ERROR;
    }
    SD_TRY(sd_new(p, CUDNN_BACKEND_TENSOR_DESCRIPTOR, t));
    SD_SET(*t, CUDNN_ATTR_TENSOR_DATA_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &dt);
    SD_SET(*t, CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_INT64, 4, dims);
    SD_SET(*t, CUDNN_ATTR_TENSOR_STRIDES, CUDNN_TYPE_INT64, 4, strides);
    SD_SET(*t, CUDNN_ATTR_TENSOR_UNIQUE_ID, CUDNN_TYPE_INT64, 1, &uid);
    SD_SET(*t, CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT, CUDNN_TYPE_INT64, 1, &align);
    if (kind == SD_VIRTUAL) SD_SET(*t, CUDNN_ATTR_TENSOR_IS_VIRTUAL, CUDNN_TYPE_BOOLEAN, 1, &yes);
    if (kind == SD_BY_VALUE) SD_SET(*t, CUDNN_ATTR_TENSOR_IS_BY_VALUE, CUDNN_TYPE_BOOLEAN, 1, &yes);
    SD_CALL(p->f->BackendFinalize(*t));
    if (kind != SD_VIRTUAL) {
        g->uids[g->npack] = uid;
        g->ptrs[g->npack++] = ptr;
    }
done:
    return st;
}

/* a by-value scalar (1 x 1 x 1 x 1) of type dt at host address ptr */
static cudnnStatus_t sd_scalar(cudnn_sdpa_plan *p, cudnnBackendDescriptor_t *t, int64_t uid, cudnnDataType_t dt,
                               void *ptr)
{
    static const int64_t one[4] = {1, 1, 1, 1};
    return sd_tensor(p, t, SD_BY_VALUE, uid, dt, one, one, ptr);
}

/* a virtual tensor of dims (packed) */
static cudnnStatus_t sd_virtual(cudnn_sdpa_plan *p, cudnnBackendDescriptor_t *t, cudnnDataType_t dt,
                                const int64_t dims[4])
{
    return sd_tensor(p, t, SD_VIRTUAL, 0, dt, dims, NULL, NULL);
}

/* one descriptor-valued attribute of a node (skipped where d is NULL) */
typedef struct {
    cudnnBackendAttributeName_t attr;
    cudnnBackendDescriptor_t d;
} sd_link;

/* A node of type `type` with its links, finalized and appended to the
 * graph being built. */
static cudnnStatus_t sd_node(cudnn_sdpa_plan *p, cudnnBackendDescriptorType_t type, const sd_link *links, int n)
{
    cudnnBackendDescriptor_t node;
    cudnnStatus_t st;
    if (p->nops == SD_OPS) {
        status_set_message("cudnn_sdpa: more than %d nodes", SD_OPS);
        return CUDNN_STATUS_INTERNAL_ERROR;
    }
    SD_TRY(sd_new(p, type, &node));
    for (int i = 0; i < n; i++)
        if (links[i].d) SD_SET(node, links[i].attr, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &links[i].d);
    SD_CALL(p->f->BackendFinalize(node));
    p->ops[p->nops++] = node;
done:
    return st;
}

/* A finalized descriptor of `type` (a matmul, reduction or pointwise
 * descriptor) with the compute type comp as attribute comp_attr, the enum
 * *mode of attribute type mode_type as mode_attr where mode is not NULL
 * (mode says whether: CUDNN_ATTR_POINTWISE_MODE is 0), and a pointwise
 * descriptor's *axis where axis is not NULL. */
static cudnnStatus_t sd_desc(cudnn_sdpa_plan *p, cudnnBackendDescriptorType_t type, cudnnBackendAttributeName_t comp_attr,
                             cudnnDataType_t comp, cudnnBackendAttributeName_t mode_attr,
                             cudnnBackendAttributeType_t mode_type, const void *mode, const int64_t *axis,
                             cudnnBackendDescriptor_t *d)
{
    cudnnStatus_t st;
    SD_TRY(sd_new(p, type, d));
    SD_SET(*d, comp_attr, CUDNN_TYPE_DATA_TYPE, 1, &comp);
    if (mode) SD_SET(*d, mode_attr, mode_type, 1, mode);
    if (axis) SD_SET(*d, CUDNN_ATTR_POINTWISE_AXIS, CUDNN_TYPE_INT64, 1, axis);
    SD_CALL(p->f->BackendFinalize(*d));
done:
    return st;
}

/* y = mode(x[, b[, t]]) at math precision prec (axis: GEN_INDEX's, else -1) */
static cudnnStatus_t sd_pointwise(cudnn_sdpa_plan *p, cudnnPointwiseMode_t mode, cudnnDataType_t prec, int64_t axis,
                                  cudnnBackendDescriptor_t x, cudnnBackendDescriptor_t b, cudnnBackendDescriptor_t t,
                                  cudnnBackendDescriptor_t y)
{
    sd_link links[] = {{CUDNN_ATTR_OPERATION_POINTWISE_PW_DESCRIPTOR, NULL}, {CUDNN_ATTR_OPERATION_POINTWISE_XDESC, x},
                       {CUDNN_ATTR_OPERATION_POINTWISE_BDESC, b}, {CUDNN_ATTR_OPERATION_POINTWISE_TDESC, t},
                       {CUDNN_ATTR_OPERATION_POINTWISE_YDESC, y}};
    const cudnnStatus_t st = sd_desc(p, CUDNN_BACKEND_POINTWISE_DESCRIPTOR, CUDNN_ATTR_POINTWISE_MATH_PREC, prec,
                                     CUDNN_ATTR_POINTWISE_MODE, CUDNN_TYPE_POINTWISE_MODE, &mode,
                                     axis >= 0 ? &axis : NULL, &links[0].d);
    return st != CUDNN_STATUS_SUCCESS ? st : sd_node(p, CUDNN_BACKEND_OPERATION_POINTWISE_DESCRIPTOR, links, 5);
}

/* c = a b (batched over the two leading dimensions), FP32 accumulation */
static cudnnStatus_t sd_matmul(cudnn_sdpa_plan *p, cudnnBackendDescriptor_t a, cudnnBackendDescriptor_t b,
                               cudnnBackendDescriptor_t c)
{
    sd_link links[] = {{CUDNN_ATTR_OPERATION_MATMUL_DESC, NULL}, {CUDNN_ATTR_OPERATION_MATMUL_ADESC, a},
                       {CUDNN_ATTR_OPERATION_MATMUL_BDESC, b}, {CUDNN_ATTR_OPERATION_MATMUL_CDESC, c}};
    const cudnnStatus_t st = sd_desc(p, CUDNN_BACKEND_MATMUL_DESCRIPTOR, CUDNN_ATTR_MATMUL_COMP_TYPE,
                                     CUDNN_DATA_FLOAT, 0, 0, NULL, NULL, &links[0].d);
    return st != CUDNN_STATUS_SUCCESS ? st : sd_node(p, CUDNN_BACKEND_OPERATION_MATMUL_DESCRIPTOR, links, 4);
}

/* y = the reduction `op` of x over its last dimension, in FP32 */
static cudnnStatus_t sd_reduce(cudnn_sdpa_plan *p, cudnnReduceTensorOp_t op, cudnnBackendDescriptor_t x,
                               cudnnBackendDescriptor_t y)
{
    sd_link links[] = {{CUDNN_ATTR_OPERATION_REDUCTION_DESC, NULL}, {CUDNN_ATTR_OPERATION_REDUCTION_XDESC, x},
                       {CUDNN_ATTR_OPERATION_REDUCTION_YDESC, y}};
    const cudnnStatus_t st = sd_desc(p, CUDNN_BACKEND_REDUCTION_DESCRIPTOR, CUDNN_ATTR_REDUCTION_COMP_TYPE,
                                     CUDNN_DATA_FLOAT, CUDNN_ATTR_REDUCTION_OPERATOR,
                                     CUDNN_TYPE_REDUCTION_OPERATOR_TYPE, &op, NULL, &links[0].d);
    return st != CUDNN_STATUS_SUCCESS ? st : sd_node(p, CUDNN_BACKEND_OPERATION_REDUCTION_DESCRIPTOR, links, 3);
}

/* The operation graph of the nodes built (the form's graph). */
static cudnnStatus_t sd_graph(cudnn_sdpa_plan *p)
{
    struct sd_form *g = &p->forms[p->form];
    cudnnStatus_t st;
    SD_TRY(sd_new(p, CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR, &g->graph));
    SD_SET(g->graph, CUDNN_ATTR_OPERATIONGRAPH_HANDLE, CUDNN_TYPE_HANDLE, 1, &p->handle);
    SD_SET(g->graph, CUDNN_ATTR_OPERATIONGRAPH_OPS, CUDNN_TYPE_BACKEND_DESCRIPTOR, p->nops, p->ops);
    SD_CALL(p->f->BackendFinalize(g->graph));
done:
    return st;
}

// ---------------------------------------------------------------------------
// the two graphs

/* Q, V and O of the case (BHSD, packed) into q, v, o; their dims into
 * qdims, kvdims */
static cudnnStatus_t sd_qvo(cudnn_sdpa_plan *p, cudnnBackendDescriptor_t *q, cudnnBackendDescriptor_t *v,
                            cudnnBackendDescriptor_t *o, int64_t qdims[4], int64_t kvdims[4])
{
    const attention_args *a = &p->a;
    const cudnnDataType_t dt = sd_dtype(a->type);
    cudnnStatus_t st;
    qdims[0] = kvdims[0] = a->batch;
    qdims[1] = kvdims[1] = a->heads;
    qdims[2] = a->seq_q;
    kvdims[2] = a->seq_kv;
    qdims[3] = kvdims[3] = a->head_dim;
    SD_TRY(sd_tensor(p, q, SD_REAL, SD_UID_Q, dt, qdims, NULL, (void *)a->q));
    SD_TRY(sd_tensor(p, v, SD_REAL, SD_UID_V, dt, kvdims, NULL, (void *)a->v));
    SD_TRY(sd_tensor(p, o, SD_REAL, SD_UID_O, dt, qdims, NULL, a->o));
done:
    return st;
}

/* Form 0: one SDPA_FWD node (K as b x h x seq_kv x d, no stats). */
static cudnnStatus_t sd_graph_op(cudnn_sdpa_plan *p)
{
    const attention_args *a = &p->a;
    const size_t ver = p->f->version;
    if (ver < 91301) {
        status_set_message("the SDPA_FWD operation needs cuDNN 9.13.1 (this is %zu.%zu.%zu)", ver / 10000,
                           ver / 100 % 100, ver % 100);
        return CUDNN_STATUS_NOT_SUPPORTED;
    }
    if (a->causal) {
        status_set_message("the SDPA_FWD operation takes a causal mask only as its score subgraph (cuDNN 9.21)");
        return CUDNN_STATUS_NOT_SUPPORTED;
    }
#if CUDNN_VERSION >= 91301
    {
        int64_t qd[4], kvd[4];
        cudnnBackendDescriptor_t q, k, v, o, scale;
        cudnnStatus_t st;
        SD_TRY(sd_qvo(p, &q, &v, &o, qd, kvd));
        SD_TRY(sd_tensor(p, &k, SD_REAL, SD_UID_K, sd_dtype(a->type), kvd, NULL, (void *)a->k));
        SD_TRY(sd_scalar(p, &scale, SD_UID_SCALE, CUDNN_DATA_FLOAT, &p->scale));
        {
            const sd_link links[] = {{CUDNN_ATTR_OPERATION_SDPA_FWD_QDESC, q},
                                     {CUDNN_ATTR_OPERATION_SDPA_FWD_KDESC, k},
                                     {CUDNN_ATTR_OPERATION_SDPA_FWD_VDESC, v},
                                     {CUDNN_ATTR_OPERATION_SDPA_FWD_ODESC, o},
                                     {CUDNN_ATTR_OPERATION_SDPA_FWD_SCALEDESC, scale}};
            SD_TRY(sd_node(p, CUDNN_BACKEND_OPERATION_SDPA_FWD_DESCRIPTOR, links, 5));
        }
        SD_TRY(sd_graph(p));
    done:
        return st;
    }
#else
    status_set_message("built against cuDNN %d.%d headers, without the SDPA_FWD operation", CUDNN_MAJOR,
                       CUDNN_MINOR);
    return CUDNN_STATUS_NOT_SUPPORTED;
#endif
}

/* The causal mask of s (b x h x seq_q x seq_kv scores) into *out: query i
 * keeps key j where i + (seq_kv - seq_q) >= j (the bottom-right diagonal;
 * the row index shifted by two INT32 nodes as the frontend does, none when
 * the lengths are equal), the rest become the lowest float. */
static cudnnStatus_t sd_causal(cudnn_sdpa_plan *p, cudnnBackendDescriptor_t s, const int64_t sd[4],
                               cudnnBackendDescriptor_t *out)
{
    cudnnBackendDescriptor_t row, col, mask, lowest, skv, sq, shifted;
    cudnnStatus_t st;
    SD_TRY(sd_virtual(p, &row, CUDNN_DATA_INT32, sd));
    SD_TRY(sd_virtual(p, &col, CUDNN_DATA_INT32, sd));
    SD_TRY(sd_pointwise(p, CUDNN_POINTWISE_GEN_INDEX, CUDNN_DATA_FLOAT, 2, s, NULL, NULL, row));
    SD_TRY(sd_pointwise(p, CUDNN_POINTWISE_GEN_INDEX, CUDNN_DATA_FLOAT, 3, s, NULL, NULL, col));
    if (p->seq_q != p->seq_kv) {
        SD_TRY(sd_scalar(p, &skv, SD_UID_SKV, CUDNN_DATA_INT32, &p->seq_kv));
        SD_TRY(sd_scalar(p, &sq, SD_UID_SQ, CUDNN_DATA_INT32, &p->seq_q));
        SD_TRY(sd_virtual(p, &shifted, CUDNN_DATA_INT32, sd));
        SD_TRY(sd_pointwise(p, CUDNN_POINTWISE_ADD, CUDNN_DATA_INT32, -1, row, skv, NULL, shifted));
        row = shifted;
        SD_TRY(sd_virtual(p, &shifted, CUDNN_DATA_INT32, sd));
        SD_TRY(sd_pointwise(p, CUDNN_POINTWISE_SUB, CUDNN_DATA_INT32, -1, row, sq, NULL, shifted));
        row = shifted;
    }
    SD_TRY(sd_virtual(p, &mask, CUDNN_DATA_BOOLEAN, sd));
    SD_TRY(sd_pointwise(p, CUDNN_POINTWISE_CMP_GE, CUDNN_DATA_BOOLEAN, -1, row, col, NULL, mask));
    SD_TRY(sd_scalar(p, &lowest, SD_UID_LOWEST, CUDNN_DATA_FLOAT, &p->lowest));
    SD_TRY(sd_virtual(p, out, CUDNN_DATA_FLOAT, sd));
    SD_TRY(sd_pointwise(p, CUDNN_POINTWISE_BINARY_SELECT, CUDNN_DATA_FLOAT, -1, s, lowest, mask, *out));
done:
    return st;
}

/* y = mode(x[, b]) in FP32 into a new virtual tensor of dims */
static cudnnStatus_t sd_f32(cudnn_sdpa_plan *p, cudnnPointwiseMode_t mode, cudnnBackendDescriptor_t x,
                            cudnnBackendDescriptor_t b, const int64_t dims[4], cudnnBackendDescriptor_t *y)
{
    cudnnStatus_t st = sd_virtual(p, y, CUDNN_DATA_FLOAT, dims);
    if (st == CUDNN_STATUS_SUCCESS) st = sd_pointwise(p, mode, CUDNN_DATA_FLOAT, -1, x, b, NULL, *y);
    return st;
}

/* Form 1: the fused graph: S = Q K^T (K read as b x h x d x seq_kv through
 * its strides), S * scale, [the causal mask], the softmax (max, sub, exp,
 * sum, div; log(sum) + max as the virtual stats, as the frontend builds it
 * for inference), P in the input's type, O = P V. */
static cudnnStatus_t sd_graph_fused(cudnn_sdpa_plan *p)
{
    const attention_args *a = &p->a;
    const cudnnDataType_t dt = sd_dtype(a->type), f32 = CUDNN_DATA_FLOAT;
    const int64_t kt_dims[4] = {a->batch, a->heads, a->head_dim, a->seq_kv};
    const int64_t kt_strides[4] = {a->heads * a->seq_kv * a->head_dim, a->seq_kv * a->head_dim, 1, a->head_dim};
    const int64_t sd[4] = {a->batch, a->heads, a->seq_q, a->seq_kv}, rd[4] = {a->batch, a->heads, a->seq_q, 1};
    int64_t qd[4], kvd[4];
    cudnnBackendDescriptor_t q, kt, v, o, scale, s, scaled, m, diff, e, z, logz, stats, pm;
    cudnnStatus_t st;
    SD_TRY(sd_qvo(p, &q, &v, &o, qd, kvd));
    SD_TRY(sd_tensor(p, &kt, SD_REAL, SD_UID_K, dt, kt_dims, kt_strides, (void *)a->k));
    SD_TRY(sd_scalar(p, &scale, SD_UID_SCALE, f32, &p->scale));
    SD_TRY(sd_virtual(p, &s, f32, sd));
    SD_TRY(sd_matmul(p, q, kt, s));
    SD_TRY(sd_f32(p, CUDNN_POINTWISE_MUL, s, scale, sd, &scaled));
    if (a->causal) SD_TRY(sd_causal(p, scaled, sd, &scaled));
    SD_TRY(sd_virtual(p, &m, f32, rd));
    SD_TRY(sd_reduce(p, CUDNN_REDUCE_TENSOR_MAX, scaled, m));
    SD_TRY(sd_f32(p, CUDNN_POINTWISE_SUB, scaled, m, sd, &diff));
    SD_TRY(sd_f32(p, CUDNN_POINTWISE_EXP, diff, NULL, sd, &e));
    SD_TRY(sd_virtual(p, &z, f32, rd));
    SD_TRY(sd_reduce(p, CUDNN_REDUCE_TENSOR_ADD, e, z));
    SD_TRY(sd_f32(p, CUDNN_POINTWISE_LOG, z, NULL, rd, &logz));
    SD_TRY(sd_f32(p, CUDNN_POINTWISE_ADD, m, logz, rd, &stats));
    SD_TRY(sd_virtual(p, &pm, dt, sd));
    SD_TRY(sd_pointwise(p, CUDNN_POINTWISE_DIV, f32, -1, e, z, NULL, pm));
    SD_TRY(sd_matmul(p, pm, v, o));
    SD_TRY(sd_graph(p));
done:
    return st;
}

// ---------------------------------------------------------------------------
// engines

/* The form's candidates: heuristic A's and FALLBACK's when `all`, else A's
 * first, or FALLBACK's when A has none. */
static cudnnStatus_t sd_candidates(cudnn_sdpa_plan *p, int all)
{
    const int before = p->ncands;
    const cudnnBackendDescriptor_t graph = p->forms[p->form].graph;
    cudnnStatus_t st =
        cudnn_lib_candidates(p->f, p->handle, graph, CUDNN_HEUR_MODE_A, all, p->form, p->cands, &p->ncands, SD_CANDS);
    if (all || st != CUDNN_STATUS_SUCCESS) {
        const cudnnStatus_t fb = cudnn_lib_candidates(p->f, p->handle, graph, CUDNN_HEUR_MODE_FALLBACK, all, p->form,
                                                      p->cands, &p->ncands, SD_CANDS);
        st = p->ncands > before ? CUDNN_STATUS_SUCCESS : fb;
    }
    return st;
}

static int sd_verbose(void)
{
    const char *v = getenv("COMPARE_CUDNN_VERBOSE");
    return v && *v && strcmp(v, "0") != 0;
}

static const char *sd_mode_name(cudnnBackendHeurMode_t m) { return m == CUDNN_HEUR_MODE_A ? "A" : "fallback"; }

// ---------------------------------------------------------------------------
// plans

void cudnn_sdpa_plan_free(cudnn_sdpa_plan *p)
{
    if (!p) return;
    if (p->exec) p->f->BackendDestroyDescriptor(p->exec);
    for (int i = 0; i < p->ncands; i++)
        if (p->cands[i].exec) p->f->BackendDestroyDescriptor(p->cands[i].exec);
    for (int k = 0; k < SD_FORMS; k++)
        if (p->forms[k].pack) p->f->BackendDestroyDescriptor(p->forms[k].pack);
    for (int i = p->ndescs - 1; i >= 0; i--) p->f->BackendDestroyDescriptor(p->descs[i]);
    cudaFree(p->workspace);
    free(p);
}

/* What neither cuDNN form is asked about: 1, or 0 with the reason. */
static int sd_case_ok(const attention_args *a, char *why, size_t why_len)
{
    if (a->type != ELEM_FP16 && a->type != ELEM_BF16) {
        snprintf(why, why_len, "cuDNN SDPA takes fp16 and bf16 here (not this type)");
        return 0;
    }
    if (a->causal && a->seq_q > a->seq_kv) {
        snprintf(why, why_len,
                 "causal with seq_q > seq_kv: cuDNN's bottom-right mask gives the rows that see no key the lowest "
                 "float (a mean of V), not the contract's zeros");
        return 0;
    }
    if (a->seq_q > INT32_MAX || a->seq_kv > INT32_MAX || a->head_dim > INT32_MAX) {
        snprintf(why, why_len, "cuDNN's mask indices are int32 (seq_q %lld, seq_kv %lld)", a->seq_q, a->seq_kv);
        return 0;
    }
    return 1;
}

/* Builds one form's graph and candidates; a failure is the form's decline
 * (its reason kept). */
static cudnnStatus_t sd_form(cudnn_sdpa_plan *p, int k, int all)
{
    struct sd_form *g = &p->forms[k];
    cudnnStatus_t st;
    p->form = k;
    p->nops = 0;
    p->next_uid = SD_UID_VIRTUAL;
    st = k == SD_FORM_OP ? sd_graph_op(p) : sd_graph_fused(p);
    if (st == CUDNN_STATUS_SUCCESS) st = sd_candidates(p, all);
    g->ok = st == CUDNN_STATUS_SUCCESS;
    if (!g->ok) {
        snprintf(g->why, sizeof g->why, "%s", status_message());
        if (sd_verbose()) fprintf(stderr, "compare: cuDNN SDPA %s declined: %s\n", sd_form_names[k], g->why);
    }
    return st;
}

/* The plan's graphs and candidates (no buffers bound): a cuDNN status, *out
 * set on success; why gets the reason of a failure ("sdpa op: ...; fused
 * graph: ..."). With `all` every candidate of both forms, else the first
 * that finalizes (cudnn_sdpa_supports' check). A failure of the sdpa op
 * form counts as its decline (it is the newer, optional path); the fused
 * graph's status is the plan's. */
static cudnnStatus_t sd_make(cudnn_sdpa_plan **out, const attention_args *a, int all, char *why, size_t why_len)
{
    cudnn_sdpa_plan *p;
    cudnnStatus_t st = CUDNN_STATUS_NOT_SUPPORTED;
    int dev = -1;
    *out = NULL;
    if (!sd_case_ok(a, why, why_len)) return CUDNN_STATUS_NOT_SUPPORTED;
    p = calloc(1, sizeof *p);
    if (!p) {
        snprintf(why, why_len, "out of host memory");
        return CUDNN_STATUS_INTERNAL_ERROR_HOST_ALLOCATION_FAILED;
    }
    p->f = cudnn_lib_fns(why, why_len);
    if (!p->f) {
        free(p);
        return CUDNN_STATUS_NOT_SUPPORTED_SUBLIBRARY_UNAVAILABLE;
    }
    p->a = *a;
    p->scale = a->scale;
    p->lowest = -FLT_MAX; /* the frontend's mask value (std::numeric_limits<float>::lowest()) */
    p->seq_q = (int32_t)a->seq_q;
    p->seq_kv = (int32_t)a->seq_kv;
    if (SD_CUDA(cudaGetDevice(&dev))) st = CUDNN_STATUS_EXECUTION_FAILED_CUDART;
    else st = cudnn_lib_handle(p->f, dev, &p->handle);
    if (st == CUDNN_STATUS_SUCCESS && (sd_form(p, SD_FORM_OP, all) != CUDNN_STATUS_SUCCESS || all)) {
        const cudnnStatus_t fused = sd_form(p, SD_FORM_FUSED, all);
        if (p->ncands == 0) st = fused;
    }
    if (st != CUDNN_STATUS_SUCCESS || p->ncands == 0) {
        if (p->forms[SD_FORM_FUSED].why[0])
            snprintf(why, why_len, "%s: %.300s; %s: %.300s", sd_form_names[SD_FORM_OP], p->forms[SD_FORM_OP].why,
                     sd_form_names[SD_FORM_FUSED], p->forms[SD_FORM_FUSED].why);
        else snprintf(why, why_len, "%s", status_message());
        if (st == CUDNN_STATUS_SUCCESS) st = CUDNN_STATUS_NOT_SUPPORTED;
        cudnn_sdpa_plan_free(p);
        return st;
    }
    *out = p;
    return CUDNN_STATUS_SUCCESS;
}

/* The workspace (the largest any candidate needs) and each form's variant
 * pack with the case's pointers. */
static cudnnStatus_t sd_bind(cudnn_sdpa_plan *p)
{
    int64_t ws = 0, n = 0;
    cudnnStatus_t st = CUDNN_STATUS_SUCCESS;
    for (int i = 0; i < p->ncands; i++) {
        int64_t need = 0;
        SD_CALL(p->f->BackendGetAttribute(p->cands[i].exec, CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE, CUDNN_TYPE_INT64,
                                          1, &n, &need));
        if (need > ws) ws = need;
    }
    if (ws > 0 && SD_CUDA(cudaMalloc(&p->workspace, (size_t)ws)))
        return CUDNN_STATUS_INTERNAL_ERROR_DEVICE_ALLOCATION_FAILED;
    for (int k = 0; k < SD_FORMS; k++) {
        struct sd_form *g = &p->forms[k];
        if (!g->ok) continue;
        SD_CALL(p->f->BackendCreateDescriptor(CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR, &g->pack));
        SD_SET(g->pack, CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS, CUDNN_TYPE_INT64, g->npack, g->uids);
        SD_SET(g->pack, CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS, CUDNN_TYPE_VOID_PTR, g->npack, g->ptrs);
        SD_SET(g->pack, CUDNN_ATTR_VARIANT_PACK_WORKSPACE, CUDNN_TYPE_VOID_PTR, 1, &p->workspace);
        SD_CALL(p->f->BackendFinalize(g->pack));
    }
done:
    return st;
}

/* The median of SD_TRIALS executions of candidate k after one warm-up,
 * each between an event pair on s; negative when one failed (its error
 * recorded, a CUDA error cleared: the next candidate is tried). */
static double sd_time(const cudnn_sdpa_plan *p, const cudnn_lib_cand *c, cudaStream_t s, cudaEvent_t ev[2])
{
    double ms[SD_TRIALS];
    for (int i = -1; i < SD_TRIALS; i++) {
        float t = 0;
        int j = i;
        if (SD_CUDA(cudaEventRecord(ev[0], s)) ||
            cudnn_lib_fail(p->f, p->f->BackendExecute(p->handle, c->exec, p->forms[c->tag].pack),
                           "cudnnBackendExecute", __FILE__, __LINE__) ||
            SD_CUDA(cudaEventRecord(ev[1], s)) || SD_CUDA(cudaEventSynchronize(ev[1])) ||
            SD_CUDA(cudaEventElapsedTime(&t, ev[0], ev[1]))) {
            (void)cudaStreamSynchronize(s);
            (void)cudaGetLastError();
            return -1;
        }
        for (; j > 0 && ms[j - 1] > t; j--) ms[j] = ms[j - 1]; /* kept sorted; the warm-up (i = -1) is not */
        if (i >= 0) ms[j] = t;
    }
    return ms[SD_TRIALS / 2];
}

/* Keeps candidate k (the others destroyed) and names it. */
static void sd_keep(cudnn_sdpa_plan *p, int k, int ran)
{
    const size_t v = p->f->version;
    const cudnn_lib_cand *c = &p->cands[k];
    char of[32] = "";
    if (ran > 1) snprintf(of, sizeof of, ", fastest of %d", ran);
    p->form = c->tag;
    snprintf(p->name, sizeof p->name, "cuDNN %zu.%zu.%zu SDPA forward engine %lld, %s (heuristic %s%s)", v / 10000,
             v / 100 % 100, v % 100, (long long)c->engine, sd_form_names[c->tag], sd_mode_name(c->mode), of);
    p->exec = c->exec;
    p->cands[k].exec = NULL;
    for (int i = 0; i < p->ncands; i++)
        if (p->cands[i].exec) p->f->BackendDestroyDescriptor(p->cands[i].exec);
    p->ncands = 0;
}

/* Times every candidate on the case's buffers (o is written) and keeps the
 * fastest (the earlier on a tie: the sdpa op's, heuristic A's first).
 * Returns a status_t. */
static int sd_fastest(cudnn_sdpa_plan *p, cudaStream_t s)
{
    cudaEvent_t ev[2] = {NULL, NULL};
    const int verbose = sd_verbose();
    double best = -1;
    int pick = -1, ran = 0;
    if (p->ncands == 1 && !verbose) {
        sd_keep(p, 0, 1); /* nothing to choose between: not run here */
        return STATUS_OK;
    }
    if (cudnn_lib_fail(p->f, p->f->SetStream(p->handle, s), "cudnnSetStream", __FILE__, __LINE__)) return STATUS_ERROR;
    if (SD_CUDA(cudaEventCreate(&ev[0])) || SD_CUDA(cudaEventCreate(&ev[1]))) goto done;
    for (int k = 0; k < p->ncands; k++) {
        const cudnn_lib_cand *c = &p->cands[k];
        const double t = sd_time(p, c, s, ev);
        if (verbose)
            fprintf(stderr, "compare: cuDNN SDPA candidate %d: engine %lld, %s, heuristic %s: %s%.4f ms%s%s\n", k,
                    (long long)c->engine, sd_form_names[c->tag], sd_mode_name(c->mode), t < 0 ? "failed " : "",
                    t < 0 ? 0 : t, t < 0 ? ": " : "", t < 0 ? status_message() : "");
        ran += t >= 0;
        if (t >= 0 && (best < 0 || t < best)) {
            best = t;
            pick = k;
        }
    }
    if (pick < 0) {
        char last[384];
        snprintf(last, sizeof last, "%s", status_message());
        status_set_message("cuDNN: none of the %d SDPA execution plans ran (last: %s)", p->ncands, last);
        goto done;
    }
    sd_keep(p, pick, ran);
done:
    if (ev[0]) cudaEventDestroy(ev[0]);
    if (ev[1]) cudaEventDestroy(ev[1]);
    return pick < 0 ? STATUS_ERROR : STATUS_OK;
}

int cudnn_sdpa_supports(const attention_args *a, char *why, size_t why_len)
{
    cudnn_sdpa_plan *p = NULL;
    char reason[768] = "";
    cudnnStatus_t st;
    if (!cudnn_lib_available(why, why_len)) return 0;
    if (!sd_case_ok(a, why, why_len)) return 0;
    st = sd_make(&p, a, 0, reason, sizeof reason);
    cudnn_sdpa_plan_free(p);
    if (st == CUDNN_STATUS_SUCCESS || CUDNN_STATUS_CATEGORY(st) != CUDNN_STATUS_NOT_SUPPORTED) return 1;
    snprintf(why, why_len, "cuDNN declines this case: %s", reason);
    return 0;
}

int cudnn_sdpa_plan_make(cudnn_sdpa_plan **out, const attention_args *a, cudaStream_t s)
{
    char why[768];
    cudnn_sdpa_plan *p = NULL;
    const cudnnStatus_t st = sd_make(&p, a, 1, why, sizeof why);
    *out = NULL;
    if (st != CUDNN_STATUS_SUCCESS) {
        status_set_message("%s", why);
        return STATUS_ERROR;
    }
    if (sd_bind(p) != CUDNN_STATUS_SUCCESS || sd_fastest(p, s) != STATUS_OK) {
        cudnn_sdpa_plan_free(p);
        return STATUS_ERROR;
    }
    *out = p;
    return STATUS_OK;
}

int cudnn_sdpa_plan_run(const cudnn_sdpa_plan *p, cudaStream_t s)
{
    cudnnStatus_t st;
    SD_CALL(p->f->SetStream(p->handle, s));
    SD_CALL(p->f->BackendExecute(p->handle, p->exec, p->forms[p->form].pack));
done:
    return st == CUDNN_STATUS_SUCCESS ? STATUS_OK : STATUS_ERROR;
}

const char *cudnn_sdpa_plan_name(const cudnn_sdpa_plan *p) { return p->name; }

#endif
