/* baselines/cudnn_conv.c: cuDNN's legacy forward convolution for the conv2d
 * op's library rows (cudnn_conv.h says which calls, which math and how the
 * algorithm is picked). Two builds: with cuDNN's headers
 * (COMPARE_HAVE_CUDNN) the calls through cudnn_lib.h's table and the legacy
 * entry points looked up here; without them every entry declines with
 * cudnn_lib_available's text. */
#include "cudnn_conv.h"

#include <stdio.h>

#include "cudnn_lib.h"
#include "status.h"

#ifndef COMPARE_HAVE_CUDNN

struct cudnn_conv_plan {
    int unused;
};

int cudnn_conv_supports(const conv2d_args *a, int tensor_op, char *why, size_t why_len)
{
    (void)a, (void)tensor_op;
    return cudnn_lib_available(why, why_len);
}

size_t cudnn_conv_workspace(const conv2d_args *a, int tensor_op)
{
    (void)a, (void)tensor_op;
    return 0;
}

int cudnn_conv_plan_make(cudnn_conv_plan **out, const conv2d_args *a, int tensor_op)
{
    char why[256];
    (void)a, (void)tensor_op;
    *out = NULL;
    cudnn_lib_available(why, sizeof why);
    status_set_message("%s", why);
    return STATUS_ERROR;
}

int cudnn_conv_plan_run(const cudnn_conv_plan *p, const conv2d_args *a, void *workspace, size_t workspace_bytes,
                        cudaStream_t s)
{
    (void)p, (void)a, (void)workspace, (void)workspace_bytes, (void)s;
    status_set_message("cuDNN not found at build time");
    return STATUS_ERROR;
}

const char *cudnn_conv_plan_name(const cudnn_conv_plan *p)
{
    (void)p;
    return "cudnn";
}

int cudnn_conv_plan_transform(const cudnn_conv_plan *p)
{
    (void)p;
    return 0;
}

void cudnn_conv_plan_free(cudnn_conv_plan *p) { (void)p; }

#else

#include <dlfcn.h>
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* The legacy convolution entry points, by their cuDNN names without the prefix. */
typedef struct {
    cudnnStatus_t (*CreateFilterDescriptor)(cudnnFilterDescriptor_t *desc);
    cudnnStatus_t (*DestroyFilterDescriptor)(cudnnFilterDescriptor_t desc);
    cudnnStatus_t (*SetFilter4dDescriptor)(cudnnFilterDescriptor_t desc, cudnnDataType_t type,
                                           cudnnTensorFormat_t format, int k, int c, int h, int w);
    cudnnStatus_t (*CreateConvolutionDescriptor)(cudnnConvolutionDescriptor_t *desc);
    cudnnStatus_t (*DestroyConvolutionDescriptor)(cudnnConvolutionDescriptor_t desc);
    cudnnStatus_t (*SetConvolution2dDescriptor)(cudnnConvolutionDescriptor_t desc, int pad_h, int pad_w, int u, int v,
                                                int dilation_h, int dilation_w, cudnnConvolutionMode_t mode,
                                                cudnnDataType_t compute);
    cudnnStatus_t (*SetConvolutionMathType)(cudnnConvolutionDescriptor_t desc, cudnnMathType_t math);
    cudnnStatus_t (*GetConvolutionForwardAlgorithmMaxCount)(cudnnHandle_t handle, int *count);
    cudnnStatus_t (*FindConvolutionForwardAlgorithm)(cudnnHandle_t handle, const cudnnTensorDescriptor_t x_desc,
                                                     const cudnnFilterDescriptor_t w_desc,
                                                     const cudnnConvolutionDescriptor_t conv_desc,
                                                     const cudnnTensorDescriptor_t y_desc, const int requested,
                                                     int *returned, cudnnConvolutionFwdAlgoPerf_t *results);
    cudnnStatus_t (*ConvolutionForward)(cudnnHandle_t handle, const void *alpha, const cudnnTensorDescriptor_t x_desc,
                                        const void *x, const cudnnFilterDescriptor_t w_desc, const void *w,
                                        const cudnnConvolutionDescriptor_t conv_desc, cudnnConvolutionFwdAlgo_t algo,
                                        void *workspace, size_t workspace_bytes, const void *beta,
                                        const cudnnTensorDescriptor_t y_desc, void *y);
} cc_fns;

static pthread_once_t cc_once = PTHREAD_ONCE_INIT;
static cc_fns cc_table;
static const cudnn_fns *cc_base;
static char cc_why[768];

/* The symbol `name` of library h into *slot; 0, or -1 with the reason in
 * cc_why. */
static int cc_sym(void *h, const char *name, void *slot, size_t slot_bytes)
{
    void *p = dlsym(h, name);
    if (!p) {
        snprintf(cc_why, sizeof cc_why, "cuDNN at %s lacks %s (the legacy convolution API)", cc_base->path, name);
        return -1;
    }
    memcpy(slot, &p, slot_bytes); /* POSIX: dlsym's address converts to a function pointer */
    return 0;
}

#define CC_SYM(h, field) cc_sym(h, "cudnn" #field, &cc_table.field, sizeof cc_table.field)

static void cc_load(void)
{
    const cudnn_fns *f = cudnn_lib_fns(cc_why, sizeof cc_why);
    void *h;
    if (!f) return;
    cc_base = f;
    /* the file cudnn_lib loaded: dlopen hands back the same, already loaded,
     * library */
    h = dlopen(f->path, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        const char *e = dlerror();
        snprintf(cc_why, sizeof cc_why, "cuDNN at %s: dlopen: %s", f->path, e ? e : "failed");
        cc_base = NULL;
        return;
    }
    if (CC_SYM(h, CreateFilterDescriptor) || CC_SYM(h, DestroyFilterDescriptor) || CC_SYM(h, SetFilter4dDescriptor) ||
        CC_SYM(h, CreateConvolutionDescriptor) || CC_SYM(h, DestroyConvolutionDescriptor) ||
        CC_SYM(h, SetConvolution2dDescriptor) || CC_SYM(h, SetConvolutionMathType) ||
        CC_SYM(h, GetConvolutionForwardAlgorithmMaxCount) || CC_SYM(h, FindConvolutionForwardAlgorithm) ||
        CC_SYM(h, ConvolutionForward)) {
        dlclose(h);
        cc_base = NULL;
        return;
    }
    cc_why[0] = '\0'; /* h stays open for the life of the process */
}

/* The base table (cudnn_lib) with the legacy entry points loaded, or NULL
 * with the SKIP text in why. */
static const cudnn_fns *cc_fns_get(char *why, size_t why_len)
{
    pthread_once(&cc_once, cc_load);
    if (cc_base) return cc_base;
    snprintf(why, why_len, "%.480s", cc_why);
    return NULL;
}

static const char *const cc_algo_names[] = {
    "IMPLICIT_GEMM", "IMPLICIT_PRECOMP_GEMM", "GEMM", "DIRECT", "FFT", "FFT_TILING", "WINOGRAD", "WINOGRAD_NONFUSED"};
static const char *const cc_math_names[] = {"DEFAULT", "TENSOR_OP", "TENSOR_OP_ALLOW_CONVERSION", "FMA"};

static const char *cc_algo_name(cudnnConvolutionFwdAlgo_t a)
{
    return (int)a >= 0 && (int)a < (int)(sizeof cc_algo_names / sizeof cc_algo_names[0]) ? cc_algo_names[a] : "?";
}

static const char *cc_math_name(cudnnMathType_t m)
{
    return (int)m >= 0 && (int)m < (int)(sizeof cc_math_names / sizeof cc_math_names[0]) ? cc_math_names[m] : "?";
}

static cudnnDataType_t cc_dtype(elem_type t)
{
    return t == ELEM_FP16 ? CUDNN_DATA_HALF : t == ELEM_BF16 ? CUDNN_DATA_BFLOAT16 : CUDNN_DATA_FLOAT;
}

/* The math the row asks for (cudnn_conv.h). */
static cudnnMathType_t cc_math(const conv2d_args *a, int tensor_op)
{
    if (tensor_op) return CUDNN_TENSOR_OP_MATH;
    return a->type == ELEM_FP32 ? CUDNN_FMA_MATH : CUDNN_DEFAULT_MATH;
}

/* Whether the row takes an algorithm Find ran in math m. Find runs each
 * algorithm in the descriptor's math and in CUDNN_DEFAULT_MATH too, and
 * DEFAULT allows TF32 for fp32 on sm_80 and newer: the fp32 `cudnn` row takes
 * FMA results only, the tensor-op row tensor-op results only; the 16-bit
 * `cudnn` row (DEFAULT asked) takes any. */
static int cc_math_ok(const conv2d_args *a, int tensor_op, cudnnMathType_t m)
{
    if (tensor_op) return m == CUDNN_TENSOR_OP_MATH || m == CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION;
    return a->type != ELEM_FP32 || m == CUDNN_FMA_MATH;
}

static int cc_verbose(void)
{
    const char *v = getenv("COMPARE_CUDNN_VERBOSE");
    return v && *v && strcmp(v, "0") != 0;
}

// ---------------------------------------------------------------------------
// descriptors

struct cudnn_conv_plan {
    const cudnn_fns *f;
    cudnnHandle_t handle;
    cudnnTensorDescriptor_t x_desc, y_desc;
    cudnnFilterDescriptor_t w_desc;
    cudnnConvolutionDescriptor_t conv_desc;
    cudnnConvolutionFwdAlgo_t algo;
    size_t workspace; /* the algorithm's workspace bytes */
    const char *name; /* the choice's name (cc_cache: lives as long as the process) */
};

/* In a function with a plan `p`, a `cudnnStatus_t st` and a `done` label: a
 * failed call keeps its status in st and leaves (cudnn_lib_fail records it). */
#define CC_CALL(call)                                                                                                  \
    do {                                                                                                               \
        st = (call);                                                                                                   \
        if (cudnn_lib_fail(p->f, st, #call, __FILE__, __LINE__)) goto done;                                            \
    } while (0)

void cudnn_conv_plan_free(cudnn_conv_plan *p)
{
    if (!p) return;
    if (p->conv_desc) cc_table.DestroyConvolutionDescriptor(p->conv_desc);
    if (p->w_desc) cc_table.DestroyFilterDescriptor(p->w_desc);
    if (p->y_desc) p->f->DestroyTensorDescriptor(p->y_desc);
    if (p->x_desc) p->f->DestroyTensorDescriptor(p->x_desc);
    free(p);
}

/* A plan with the handle of the current device and the case's descriptors
 * in the row's math (no algorithm yet). */
static cudnnStatus_t cc_describe(cudnn_conv_plan **out, const cudnn_fns *f, const conv2d_args *a, cudnnMathType_t math)
{
    const cudnnDataType_t dt = cc_dtype(a->type);
    const int n = (int)a->batch, c = (int)a->c_in, k = (int)a->c_out, h = (int)a->height, w = (int)a->width;
    cudnnStatus_t st = CUDNN_STATUS_SUCCESS;
    int dev = -1;
    cudnn_conv_plan *p = calloc(1, sizeof *p);
    *out = NULL;
    if (!p) {
        status_set_message("out of host memory");
        return CUDNN_STATUS_ALLOC_FAILED;
    }
    p->f = f;
    if (cudaGetDevice(&dev) != cudaSuccess) {
        status_set_message("cudaGetDevice failed (%s:%d)", __FILE__, __LINE__);
        st = CUDNN_STATUS_EXECUTION_FAILED_CUDART;
        goto done;
    }
    CC_CALL(cudnn_lib_handle(f, dev, &p->handle));
    CC_CALL(f->CreateTensorDescriptor(&p->x_desc));
    CC_CALL(f->SetTensor4dDescriptor(p->x_desc, CUDNN_TENSOR_NCHW, dt, n, c, h, w));
    CC_CALL(f->CreateTensorDescriptor(&p->y_desc));
    CC_CALL(f->SetTensor4dDescriptor(p->y_desc, CUDNN_TENSOR_NCHW, dt, n, k, h, w));
    CC_CALL(cc_table.CreateFilterDescriptor(&p->w_desc));
    CC_CALL(cc_table.SetFilter4dDescriptor(p->w_desc, dt, CUDNN_TENSOR_NCHW, k, c, a->r, a->r));
    CC_CALL(cc_table.CreateConvolutionDescriptor(&p->conv_desc));
    /* FP32 compute for every type (fp16 / bf16: cuDNN's pseudo-half
     * configurations) */
    CC_CALL(cc_table.SetConvolution2dDescriptor(p->conv_desc, a->r / 2, a->r / 2, 1, 1, 1, 1, CUDNN_CROSS_CORRELATION,
                                                CUDNN_DATA_FLOAT));
    CC_CALL(cc_table.SetConvolutionMathType(p->conv_desc, math));
done:
    if (st != CUDNN_STATUS_SUCCESS)
        cudnn_conv_plan_free(p);
    else
        *out = p;
    return st;
}

// ---------------------------------------------------------------------------
// the algorithm: Find once per (device, sizes, type, row)

#define CC_CACHE 64

typedef struct {
    int used;
    int device, tensor_op, r;
    long long batch, c_in, c_out, height, width;
    elem_type type;
    int state; /* 1 chosen; 0 declined (why); -1 an error (why) */
    cudnnConvolutionFwdAlgo_t algo;
    cudnnMathType_t math; /* the math Find ran it in: the plan's descriptor gets it */
    size_t workspace;
    char name[128]; /* the row's kernel: algorithm and math */
    char why[512];
} cc_choice;

static cc_choice cc_cache[CC_CACHE];
static int cc_cache_next;
static pthread_mutex_t cc_mu = PTHREAD_MUTEX_INITIALIZER;

static int cc_same(const cc_choice *e, int dev, const conv2d_args *a, int tensor_op)
{
    return e->used && e->device == dev && e->tensor_op == tensor_op && e->r == a->r && e->batch == a->batch &&
           e->c_in == a->c_in && e->c_out == a->c_out && e->height == a->height && e->width == a->width &&
           e->type == a->type;
}

/* A failed call of the choice: cuDNN declining the case (a NOT_SUPPORTED
 * status: the descriptors or Find refuse it) makes the row SKIP with
 * cuDNN's words, and so does Find failing to allocate memory (it
 * allocates x, w, y and workspaces of its own beside the case's buffers: a
 * case too large for that is SKIP, as one whose buffers do not fit);
 * another failure is an error the row reports when it runs. */
static void cc_failed(cc_choice *e, cudnnStatus_t st)
{
    const int declined = CUDNN_STATUS_CATEGORY(st) == CUDNN_STATUS_NOT_SUPPORTED;
    /* the legacy API's ALLOC_FAILED is the host-allocation code in cuDNN 9 */
    const int no_memory = st == CUDNN_STATUS_INTERNAL_ERROR_DEVICE_ALLOCATION_FAILED ||
                          st == CUDNN_STATUS_INTERNAL_ERROR_HOST_ALLOCATION_FAILED;
    e->state = declined || no_memory ? 0 : -1;
    snprintf(e->why, sizeof e->why, "%s%.440s",
             declined    ? "cuDNN declines this case: "
             : no_memory ? "cuDNN could not allocate memory for Find's own buffers: "
                         : "",
             status_message());
}

/* Runs Find for the case into e (cudnn_conv.h: the fastest successful
 * algorithm of the row's math whose workspace fits). */
static void cc_find(cc_choice *e, const cudnn_fns *f, const conv2d_args *a, int tensor_op)
{
    cudnn_conv_plan *p = NULL;
    cudnnConvolutionFwdAlgoPerf_t res[4 * CUDNN_CONVOLUTION_FWD_ALGO_COUNT];
    int max = 0, got = 0, of_math = 0, pick = -1;
    size_t free_b = 0, total_b = 0, smallest = 0;
    cudnnStatus_t st = cc_describe(&p, f, a, cc_math(a, tensor_op));
    e->state = -1;
    if (st != CUDNN_STATUS_SUCCESS) {
        cc_failed(e, st);
        return;
    }
    CC_CALL(f->SetStream(p->handle, NULL)); /* Find synchronises; the case's stream is set by each run */
    CC_CALL(cc_table.GetConvolutionForwardAlgorithmMaxCount(p->handle, &max));
    /* room for every algorithm in both maths Find runs (MaxCount may count
     * algorithms, not results): asking for fewer would keep only the fastest
     * few results, possibly none of the row's math */
    if (max < 2 * CUDNN_CONVOLUTION_FWD_ALGO_COUNT) max = 2 * CUDNN_CONVOLUTION_FWD_ALGO_COUNT;
    if (max > (int)(sizeof res / sizeof res[0])) max = (int)(sizeof res / sizeof res[0]);
    CC_CALL(cc_table.FindConvolutionForwardAlgorithm(p->handle, p->x_desc, p->w_desc, p->conv_desc, p->y_desc, max,
                                                     &got, res));
    if (cudaMemGetInfo(&free_b, &total_b) != cudaSuccess) {
        snprintf(e->why, sizeof e->why, "cudaMemGetInfo failed (%s:%d)", __FILE__, __LINE__);
        goto done;
    }
    for (int i = 0; i < got; i++) { /* Find sorts them fastest first */
        const cudnnConvolutionFwdAlgoPerf_t *r = &res[i];
        if (cc_verbose())
            fprintf(stderr, "cudnn_conv %s: %s %s math: %s, %.4f ms, workspace %zu bytes\n",
                    tensor_op ? "tensor_op" : "fma/default", cc_algo_name(r->algo), cc_math_name(r->mathType),
                    f->GetErrorString(r->status), (double)r->time, r->memory);
        if (r->status != CUDNN_STATUS_SUCCESS || !cc_math_ok(a, tensor_op, r->mathType)) continue;
        of_math++;
        if (r->memory > free_b / 2) {
            smallest = smallest == 0 || r->memory < smallest ? r->memory : smallest;
            continue;
        }
        if (pick < 0) pick = i;
    }
    if (pick >= 0) {
        e->state = 1;
        e->algo = res[pick].algo;
        e->math = res[pick].mathType;
        e->workspace = res[pick].memory;
        snprintf(e->name, sizeof e->name, "cudnnConvolutionForward %s (%s math)", cc_algo_name(res[pick].algo),
                 cc_math_name(res[pick].mathType));
    } else if (of_math > 0) {
        e->state = 0;
        snprintf(e->why, sizeof e->why,
                 "every algorithm cuDNN's Find ran needs more workspace than half the free memory (the smallest %.1f "
                 "MiB, %.1f MiB free)",
                 (double)smallest / 1048576.0, (double)free_b / 1048576.0);
    } else {
        e->state = 0;
        snprintf(e->why, sizeof e->why, "cuDNN's Find ran no algorithm of %s for this case (%d returned)",
                 tensor_op ? "tensor-op math" : "this row's math", got);
    }
done:
    if (st != CUDNN_STATUS_SUCCESS) cc_failed(e, st);
    cudnn_conv_plan_free(p);
}

/* The choice for the case and row (Find run at the first ask), or NULL with
 * the reason in why when cuDNN is missing or the sizes are beyond the legacy
 * API. The entry lives as long as the process. */
static const cc_choice *cc_choose(const conv2d_args *a, int tensor_op, char *why, size_t why_len)
{
    const cudnn_fns *f = cc_fns_get(why, why_len);
    const cc_choice *out = NULL;
    int dev = -1;
    if (!f) return NULL;
    if (a->batch * a->c_in * a->height * a->width > INT_MAX || a->batch * a->c_out * a->height * a->width > INT_MAX ||
        a->c_out * a->c_in * a->r * a->r > INT_MAX) {
        snprintf(why, why_len, "a tensor of 2^31 elements or more: the legacy API's dimensions are int");
        return NULL;
    }
    if (a->type != ELEM_FP32 && a->type != ELEM_FP16 && a->type != ELEM_BF16) {
        snprintf(why, why_len, "cudnn rows take fp32, fp16 and bf16");
        return NULL;
    }
    if (cudaGetDevice(&dev) != cudaSuccess) {
        snprintf(why, why_len, "cudaGetDevice failed");
        return NULL;
    }
    pthread_mutex_lock(&cc_mu);
    for (int i = 0; i < CC_CACHE && !out; i++)
        if (cc_same(&cc_cache[i], dev, a, tensor_op)) out = &cc_cache[i];
    if (!out) {
        cc_choice *e = &cc_cache[cc_cache_next];
        cc_cache_next = (cc_cache_next + 1) % CC_CACHE; /* the oldest goes: a run rarely has 64 cases of cuDNN */
        memset(e, 0, sizeof *e);
        e->device = dev;
        e->tensor_op = tensor_op;
        e->r = a->r;
        e->batch = a->batch;
        e->c_in = a->c_in;
        e->c_out = a->c_out;
        e->height = a->height;
        e->width = a->width;
        e->type = a->type;
        cc_find(e, f, a, tensor_op);
        e->used = 1;
        out = e;
    }
    pthread_mutex_unlock(&cc_mu);
    return out;
}

int cudnn_conv_supports(const conv2d_args *a, int tensor_op, char *why, size_t why_len)
{
    const cc_choice *e = cc_choose(a, tensor_op, why, why_len);
    if (!e) return 0;
    if (e->state == 0) {
        snprintf(why, why_len, "%s", e->why);
        return 0;
    }
    return 1; /* chosen, or an error the row reports when it runs */
}

size_t cudnn_conv_workspace(const conv2d_args *a, int tensor_op)
{
    char why[512];
    const cc_choice *e = cc_choose(a, tensor_op, why, sizeof why);
    return e && e->state == 1 ? e->workspace : 0;
}

int cudnn_conv_plan_make(cudnn_conv_plan **out, const conv2d_args *a, int tensor_op)
{
    char why[512];
    const cc_choice *e = cc_choose(a, tensor_op, why, sizeof why);
    *out = NULL;
    if (!e || e->state != 1) {
        status_set_message("%s", e ? e->why : why);
        return STATUS_ERROR;
    }
    if (cc_describe(out, cc_base, a, e->math) != CUDNN_STATUS_SUCCESS) return STATUS_ERROR;
    (*out)->algo = e->algo;
    (*out)->workspace = e->workspace;
    (*out)->name = e->name;
    return STATUS_OK;
}

int cudnn_conv_plan_run(const cudnn_conv_plan *p, const conv2d_args *a, void *workspace, size_t workspace_bytes,
                        cudaStream_t s)
{
    const float alpha = 1.0f, beta = 0.0f; /* FP32 compute: float scalars */
    cudnnStatus_t st;
    if (workspace_bytes < p->workspace) {
        status_set_message("cudnn conv: workspace of %zu bytes, the algorithm needs %zu", workspace_bytes,
                           p->workspace);
        return STATUS_ERROR;
    }
    CC_CALL(p->f->SetStream(p->handle, s));
    CC_CALL(cc_table.ConvolutionForward(p->handle, &alpha, p->x_desc, a->x, p->w_desc, a->w, p->conv_desc, p->algo,
                                        p->workspace ? workspace : NULL, p->workspace, &beta, p->y_desc, a->y));
done:
    return st == CUDNN_STATUS_SUCCESS ? STATUS_OK : STATUS_ERROR;
}

const char *cudnn_conv_plan_name(const cudnn_conv_plan *p) { return p->name; }

int cudnn_conv_plan_transform(const cudnn_conv_plan *p)
{
    return p && (p->algo == CUDNN_CONVOLUTION_FWD_ALGO_FFT || p->algo == CUDNN_CONVOLUTION_FWD_ALGO_FFT_TILING ||
                 p->algo == CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD ||
                 p->algo == CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD_NONFUSED);
}

#endif
