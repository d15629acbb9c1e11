/* baselines/cudnn_lib.c: the run-time loading of cuDNN (cudnn_lib.h says
 * where it looks and why). */
#include "cudnn_lib.h"

#include <stdio.h>
#include <string.h>

#ifndef COMPARE_HAVE_CUDNN

int cudnn_lib_available(char *why, size_t why_len)
{
    snprintf(why, why_len,
             "cuDNN not found at build time (no cudnn.h in COMPARE_CUDNN_ROOT, the CUDA toolkit or a pip "
             "nvidia-cudnn-cu13/-cu12 package)");
    return 0;
}

#else

#include <dlfcn.h>
#include <pthread.h>
#include <stdlib.h>

static pthread_once_t cudnn_lib_once = PTHREAD_ONCE_INIT;
static cudnn_fns cudnn_lib_table;
static int cudnn_lib_ok;
static char cudnn_lib_why[768];

/* dlopen of name; on failure appends dlerror() to cudnn_lib_why */
static void *cudnn_lib_open(const char *name)
{
    void *h = dlopen(name, RTLD_NOW | RTLD_LOCAL);
    size_t used = strlen(cudnn_lib_why);
    if (!h) {
        const char *e = dlerror();
        snprintf(cudnn_lib_why + used, sizeof cudnn_lib_why - used, "%s%s", used ? "; " : "", e ? e : name);
    }
    return h;
}

/* The symbol `name` into *slot (a function pointer's storage); 0, or -1 with the reason. */
static int cudnn_lib_sym(void *h, const char *name, void *slot, size_t slot_bytes)
{
    void *p = dlsym(h, name);
    if (!p) {
        snprintf(cudnn_lib_why, sizeof cudnn_lib_why, "cuDNN at %s lacks %s", cudnn_lib_table.path, name);
        return -1;
    }
    /* POSIX: a function's address from dlsym converts to a function pointer */
    memcpy(slot, &p, slot_bytes);
    return 0;
}

#define CUDNN_LIB_SYM(h, field) cudnn_lib_sym(h, "cudnn" #field, &cudnn_lib_table.field, sizeof cudnn_lib_table.field)

static void cudnn_lib_load(void)
{
    const char *env = getenv("COMPARE_CUDNN_LIB");
    void *h = NULL;
    char err[sizeof cudnn_lib_why];
    cudnn_lib_why[0] = '\0';
    if (env && *env) {
        h = cudnn_lib_open(env);
        snprintf(cudnn_lib_table.path, sizeof cudnn_lib_table.path, "%s", env);
    } else {
        h = cudnn_lib_open("libcudnn.so.9");
        snprintf(cudnn_lib_table.path, sizeof cudnn_lib_table.path, "libcudnn.so.9");
#ifdef COMPARE_CUDNN_LIBDIR
        if (!h) {
            snprintf(cudnn_lib_table.path, sizeof cudnn_lib_table.path, "%s/libcudnn.so.9", COMPARE_CUDNN_LIBDIR);
            h = cudnn_lib_open(cudnn_lib_table.path);
        }
#endif
    }
    if (!h) {
        snprintf(err, sizeof err, "cuDNN not found (dlopen: %.700s)", cudnn_lib_why);
        memcpy(cudnn_lib_why, err, sizeof err);
        return;
    }
    if (CUDNN_LIB_SYM(h, GetVersion) || CUDNN_LIB_SYM(h, GetErrorString) || CUDNN_LIB_SYM(h, Create) ||
        CUDNN_LIB_SYM(h, Destroy) || CUDNN_LIB_SYM(h, SetStream) || CUDNN_LIB_SYM(h, CreateTensorDescriptor) ||
        CUDNN_LIB_SYM(h, DestroyTensorDescriptor) || CUDNN_LIB_SYM(h, SetTensor4dDescriptor) ||
        CUDNN_LIB_SYM(h, SoftmaxForward) || CUDNN_LIB_SYM(h, BackendCreateDescriptor) ||
        CUDNN_LIB_SYM(h, BackendDestroyDescriptor) || CUDNN_LIB_SYM(h, BackendFinalize) ||
        CUDNN_LIB_SYM(h, BackendSetAttribute) || CUDNN_LIB_SYM(h, BackendGetAttribute) ||
        CUDNN_LIB_SYM(h, BackendExecute)) {
        dlclose(h);
        return;
    }
    if (CUDNN_LIB_SYM(h, GetLastErrorString)) cudnn_lib_table.GetLastErrorString = NULL; /* optional */
    cudnn_lib_table.version = cudnn_lib_table.GetVersion();
    if (cudnn_lib_table.version / 10000 != 9) {
        snprintf(cudnn_lib_why, sizeof cudnn_lib_why, "cuDNN at %s is version %zu; compare needs 9.x",
                 cudnn_lib_table.path, cudnn_lib_table.version);
        dlclose(h);
        return;
    }
    cudnn_lib_why[0] = '\0';
    cudnn_lib_ok = 1; /* h stays open for the life of the process */
}

const cudnn_fns *cudnn_lib_fns(char *why, size_t why_len)
{
    pthread_once(&cudnn_lib_once, cudnn_lib_load);
    if (cudnn_lib_ok) return &cudnn_lib_table;
    snprintf(why, why_len, "%s", cudnn_lib_why);
    return NULL;
}

int cudnn_lib_available(char *why, size_t why_len) { return cudnn_lib_fns(why, why_len) != NULL; }

#endif

#ifdef COMPARE_HAVE_CUDNN
/* The graph-API helpers the cuDNN rows share (cudnn_lib.h). */
#include "status.h"

int cudnn_lib_fail(const cudnn_fns *f, cudnnStatus_t st, const char *call, const char *file, int line)
{
    char last[256] = "";
    if (st == CUDNN_STATUS_SUCCESS) return 0;
    if (f->GetLastErrorString) f->GetLastErrorString(last, sizeof last);
    status_set_message("%s: %s%s%s%s (%s:%d)", call, f->GetErrorString(st), last[0] ? " (" : "", last,
                       last[0] ? ")" : "", file, line);
    return 1;
}

static _Thread_local cudnnHandle_t cudnn_lib_thread_handle;
static _Thread_local int cudnn_lib_thread_device = -1;

cudnnStatus_t cudnn_lib_handle(const cudnn_fns *f, int device, cudnnHandle_t *h)
{
    cudnnStatus_t st = CUDNN_STATUS_SUCCESS;
    if (!cudnn_lib_thread_handle || cudnn_lib_thread_device != device) {
        cudnn_lib_thread_handle = NULL;
        st = f->Create(&cudnn_lib_thread_handle);
        if (cudnn_lib_fail(f, st, "cudnnCreate", __FILE__, __LINE__)) {
            cudnn_lib_thread_handle = NULL;
            return st;
        }
        cudnn_lib_thread_device = device;
    }
    *h = cudnn_lib_thread_handle;
    return st;
}

int64_t cudnn_lib_engine_index(const cudnn_fns *f, cudnnBackendDescriptor_t cfg)
{
    cudnnBackendDescriptor_t engine = NULL;
    int64_t index = -1, got = 0;
    if (f->BackendCreateDescriptor(CUDNN_BACKEND_ENGINE_DESCRIPTOR, &engine) != CUDNN_STATUS_SUCCESS) return -1;
    if (f->BackendGetAttribute(cfg, CUDNN_ATTR_ENGINECFG_ENGINE, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &got, &engine) !=
            CUDNN_STATUS_SUCCESS ||
        f->BackendGetAttribute(engine, CUDNN_ATTR_ENGINE_GLOBAL_INDEX, CUDNN_TYPE_INT64, 1, &got, &index) !=
            CUDNN_STATUS_SUCCESS)
        index = -1;
    f->BackendDestroyDescriptor(engine);
    return index;
}

/* whether cands[0 ..< n] hold engine `index` from heuristic A under `tag` */
static int cudnn_lib_from_a(const cudnn_lib_cand *cands, int n, int64_t index, int tag)
{
    for (int i = 0; i < n; i++)
        if (index >= 0 && cands[i].engine == index && cands[i].tag == tag && cands[i].mode == CUDNN_HEUR_MODE_A)
            return 1;
    return 0;
}

/* The finalized execution plan of configuration cfg on handle h, or NULL
 * (the failure recorded). */
static cudnnBackendDescriptor_t cudnn_lib_exec_plan(const cudnn_fns *f, cudnnHandle_t h,
                                                    cudnnBackendDescriptor_t cfg)
{
    cudnnBackendDescriptor_t exec = NULL;
    cudnnStatus_t st = f->BackendCreateDescriptor(CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR, &exec);
    if (st == CUDNN_STATUS_SUCCESS)
        st = f->BackendSetAttribute(exec, CUDNN_ATTR_EXECUTION_PLAN_HANDLE, CUDNN_TYPE_HANDLE, 1, &h);
    if (st == CUDNN_STATUS_SUCCESS)
        st = f->BackendSetAttribute(exec, CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1,
                                    &cfg);
    if (st == CUDNN_STATUS_SUCCESS) st = f->BackendFinalize(exec);
    if (!cudnn_lib_fail(f, st, "cudnnBackendFinalize(execution plan)", __FILE__, __LINE__)) return exec;
    if (exec) f->BackendDestroyDescriptor(exec);
    return NULL;
}

/* The heuristic's configurations (up to CUDNN_LIB_HEUR_MAX) into cfgs,
 * their count into *count; a status (failures recorded). */
static cudnnStatus_t cudnn_lib_heuristic(const cudnn_fns *f, cudnnBackendDescriptor_t heur,
                                         cudnnBackendDescriptor_t graph, cudnnBackendHeurMode_t mode,
                                         cudnnBackendDescriptor_t *cfgs, int64_t *count)
{
    cudnnStatus_t st = f->BackendSetAttribute(heur, CUDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH,
                                              CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &graph);
    if (st == CUDNN_STATUS_SUCCESS)
        st = f->BackendSetAttribute(heur, CUDNN_ATTR_ENGINEHEUR_MODE, CUDNN_TYPE_HEUR_MODE, 1, &mode);
    if (st == CUDNN_STATUS_SUCCESS) st = f->BackendFinalize(heur);
    if (cudnn_lib_fail(f, st, "cudnnBackendFinalize(engine heuristic)", __FILE__, __LINE__)) return st;
    for (int i = 0; i < CUDNN_LIB_HEUR_MAX && st == CUDNN_STATUS_SUCCESS; i++)
        st = f->BackendCreateDescriptor(CUDNN_BACKEND_ENGINECFG_DESCRIPTOR, &cfgs[i]);
    if (st == CUDNN_STATUS_SUCCESS)
        st = f->BackendGetAttribute(heur, CUDNN_ATTR_ENGINEHEUR_RESULTS, CUDNN_TYPE_BACKEND_DESCRIPTOR,
                                    CUDNN_LIB_HEUR_MAX, count, cfgs);
    cudnn_lib_fail(f, st, "cudnnBackendGetAttribute(engine heuristic results)", __FILE__, __LINE__);
    return st;
}

cudnnStatus_t cudnn_lib_candidates(const cudnn_fns *f, cudnnHandle_t h, cudnnBackendDescriptor_t graph,
                                   cudnnBackendHeurMode_t mode, int all, int tag, cudnn_lib_cand *cands, int *n,
                                   int max)
{
    cudnnBackendDescriptor_t heur = NULL, cfgs[CUDNN_LIB_HEUR_MAX] = {NULL};
    const int before = *n;
    int64_t count = 0;
    cudnnStatus_t st = f->BackendCreateDescriptor(CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR, &heur);
    if (!cudnn_lib_fail(f, st, "cudnnBackendCreateDescriptor(engine heuristic)", __FILE__, __LINE__))
        st = cudnn_lib_heuristic(f, heur, graph, mode, cfgs, &count);
    if (st == CUDNN_STATUS_SUCCESS) {
        st = CUDNN_STATUS_NOT_SUPPORTED;
        if (count == 0)
            status_set_message("cuDNN's heuristic %s has no engine for this graph",
                               mode == CUDNN_HEUR_MODE_A ? "A" : "FALLBACK");
        for (int64_t i = 0; i < count && i < CUDNN_LIB_HEUR_MAX && *n < max; i++) {
            const int64_t index = cudnn_lib_engine_index(f, cfgs[i]);
            cudnnBackendDescriptor_t exec;
            if (mode != CUDNN_HEUR_MODE_A && cudnn_lib_from_a(cands, *n, index, tag)) continue;
            exec = cudnn_lib_exec_plan(f, h, cfgs[i]);
            if (!exec) continue;
            cands[(*n)++] = (cudnn_lib_cand){exec, index, mode, tag};
            if (!all) break;
        }
        if (*n > before) st = CUDNN_STATUS_SUCCESS;
    }
    for (int i = 0; i < CUDNN_LIB_HEUR_MAX; i++)
        if (cfgs[i]) f->BackendDestroyDescriptor(cfgs[i]);
    if (heur) f->BackendDestroyDescriptor(heur);
    return st;
}
#endif
