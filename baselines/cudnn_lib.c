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
