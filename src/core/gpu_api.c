/* src/core/gpu_api.c: finds and loads libcompare_gpu.so. */
#include "gpu_api.h"

#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define GPU_API_LIB "libcompare_gpu.so"

/* dirname of the running executable, "" if unknown */
static void gpu_api_exe_dir(char *dir, size_t len)
{
    char path[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", path, sizeof path - 1);
    dir[0] = '\0';
    if (n <= 0) return;
    path[n] = '\0';
    char *slash = strrchr(path, '/');
    if (!slash) return;
    *slash = '\0';
    snprintf(dir, len, "%s", path);
}

const compare_gpu_api *gpu_api_load(char *err, size_t err_len)
{
    char dir[PATH_MAX], cand[3][PATH_MAX + 64], tried[3 * (PATH_MAX + 80)] = "";
    const char *env = getenv("COMPARE_GPU_LIB");
    int n = 0;
    gpu_api_exe_dir(dir, sizeof dir);
    if (env && env[0]) snprintf(cand[n++], sizeof cand[0], "%s", env); /* alone: an override */
    else if (dir[0]) {
        snprintf(cand[n++], sizeof cand[0], "%s/%s", dir, GPU_API_LIB);        /* the build tree */
        snprintf(cand[n++], sizeof cand[0], "%s/../lib/%s", dir, GPU_API_LIB); /* an installed prefix */
    }
    for (int i = 0; i < n; i++) {
        void *h;
        if (access(cand[i], R_OK) != 0) {
            size_t l = strlen(tried);
            snprintf(tried + l, sizeof tried - l, "%s%s (missing)", l ? ", " : "", cand[i]);
            continue;
        }
        /* libstdc++ first, in the global scope (what a program that links
         * libcompare_gpu.so gets, as the tests do): loaded only as this
         * library's dependency, in its local scope, cuDNN 9.14's legacy
         * convolution Find (an engine library cuDNN loads itself) died in
         * ostream::operator<<(long) on the H200 at r = 5 and multi-channel
         * cases. Not found: the library below brings its own as before. */
        (void)dlopen("libstdc++.so.6", RTLD_NOW | RTLD_GLOBAL);
        h = dlopen(cand[i], RTLD_NOW | RTLD_LOCAL);
        if (!h) {
            snprintf(err, err_len, "cannot load the GPU library %s: %s", cand[i], dlerror());
            return NULL;
        }
        compare_gpu_api_fn get = (compare_gpu_api_fn)dlsym(h, COMPARE_GPU_API_SYMBOL);
        if (!get) {
            snprintf(err, err_len, "%s has no %s: %s", cand[i], COMPARE_GPU_API_SYMBOL, dlerror());
            return NULL;
        }
        const compare_gpu_api *api = get();
        if (!api || api->version != COMPARE_GPU_API_VERSION) {
            snprintf(err, err_len, "%s is API version %d, this compare needs %d (a stale build: rebuild)", cand[i],
                     api ? api->version : -1, COMPARE_GPU_API_VERSION);
            return NULL;
        }
        return api;
    }
    snprintf(err, err_len, "cannot find the GPU library %s (looked for %s; set COMPARE_GPU_LIB)", GPU_API_LIB, tried);
    return NULL;
}
