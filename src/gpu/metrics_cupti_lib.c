/* src/gpu/metrics_cupti_lib.c: see metrics_cupti_lib.h. */
#include "metrics_cupti_lib.h"

#ifdef METRICS_HAVE_CUPTI

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static pthread_once_t metrics_lib_once = PTHREAD_ONCE_INIT;
static metrics_fns metrics_lib;
static int metrics_lib_ok;
static char metrics_lib_why[192];

/* dlsym of `name` into *slot (a function pointer's storage): 0 or -1 with the reason. */
static int metrics_sym(void *h, const char *lib, const char *name, void *slot, size_t slot_bytes)
{
    void *p = dlsym(h, name);
    if (!p) {
        snprintf(metrics_lib_why, sizeof metrics_lib_why, "not measured: %s lacks %s (a CUPTI older than CUDA 12.6?)",
                 lib, name);
        return -1;
    }
    memcpy(slot, &p, slot_bytes); /* POSIX: dlsym's function address as a function pointer */
    return 0;
}

#define METRICS_SYM(h, lib, field, name) metrics_sym(h, lib, name, &metrics_lib.field, sizeof metrics_lib.field)

static void metrics_lib_load(void)
{
    const char *fake = getenv("COMPARE_METRICS_FAKE");
    const char *env = getenv("COMPARE_CUPTI_LIB");
    const char *names[] = {env && *env ? env : "libcupti.so.13", "libcupti.so", "libcupti.so.12"};
    const char *lib = NULL;
    void *h = NULL, *cuda = NULL;
    if (fake && strcmp(fake, "absent") == 0) {
        snprintf(metrics_lib_why, sizeof metrics_lib_why,
                 "not measured: CUPTI not found (COMPARE_METRICS_FAKE=absent stands for a machine without libcupti)");
        return;
    }
    for (size_t i = 0; i < (env && *env ? 1u : sizeof names / sizeof names[0]) && !h; i++) {
        h = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
        lib = names[i];
    }
    if (!h) {
        const char *e = dlerror();
        snprintf(metrics_lib_why, sizeof metrics_lib_why, "not measured: CUPTI not found (dlopen %s: %.100s)", lib,
                 e ? e : "failed");
        return;
    }
    cuda = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL); /* loaded already by the runtime: a reference */
    if (!cuda) {
        snprintf(metrics_lib_why, sizeof metrics_lib_why, "not measured: the CUDA driver (libcuda.so.1) cannot be opened");
        return;
    }
    if (METRICS_SYM(h, lib, get_result_string, "cuptiGetResultString") ||
        METRICS_SYM(h, lib, profiler_initialize, "cuptiProfilerInitialize") ||
        METRICS_SYM(h, lib, profiler_deinitialize, "cuptiProfilerDeInitialize") ||
        METRICS_SYM(h, lib, device_supported, "cuptiProfilerDeviceSupported") ||
        METRICS_SYM(h, lib, chip_name, "cuptiDeviceGetChipName") ||
        METRICS_SYM(h, lib, counter_availability, "cuptiProfilerGetCounterAvailability") ||
        METRICS_SYM(h, lib, host_initialize, "cuptiProfilerHostInitialize") ||
        METRICS_SYM(h, lib, host_deinitialize, "cuptiProfilerHostDeinitialize") ||
        METRICS_SYM(h, lib, host_properties, "cuptiProfilerHostGetMetricProperties") ||
        METRICS_SYM(h, lib, host_add_metrics, "cuptiProfilerHostConfigAddMetrics") ||
        METRICS_SYM(h, lib, host_config_size, "cuptiProfilerHostGetConfigImageSize") ||
        METRICS_SYM(h, lib, host_config, "cuptiProfilerHostGetConfigImage") ||
        METRICS_SYM(h, lib, host_passes, "cuptiProfilerHostGetNumOfPasses") ||
        METRICS_SYM(h, lib, host_evaluate, "cuptiProfilerHostEvaluateToGpuValues") ||
        METRICS_SYM(h, lib, rp_enable, "cuptiRangeProfilerEnable") ||
        METRICS_SYM(h, lib, rp_disable, "cuptiRangeProfilerDisable") ||
        METRICS_SYM(h, lib, rp_data_size, "cuptiRangeProfilerGetCounterDataSize") ||
        METRICS_SYM(h, lib, rp_data_init, "cuptiRangeProfilerCounterDataImageInitialize") ||
        METRICS_SYM(h, lib, rp_set_config, "cuptiRangeProfilerSetConfig") ||
        METRICS_SYM(h, lib, rp_start, "cuptiRangeProfilerStart") ||
        METRICS_SYM(h, lib, rp_stop, "cuptiRangeProfilerStop") ||
        METRICS_SYM(h, lib, rp_push, "cuptiRangeProfilerPushRange") ||
        METRICS_SYM(h, lib, rp_pop, "cuptiRangeProfilerPopRange") ||
        METRICS_SYM(h, lib, rp_decode, "cuptiRangeProfilerDecodeData") ||
        METRICS_SYM(h, lib, rp_data_info, "cuptiRangeProfilerGetCounterDataInfo") ||
        METRICS_SYM(cuda, "libcuda.so.1", cu_ctx_get_current, "cuCtxGetCurrent") ||
        METRICS_SYM(cuda, "libcuda.so.1", cu_device_get, "cuDeviceGet"))
        return;
    metrics_lib_ok = 1;
}

// ---------------------------------------------------------------------------
// results: a CUPTI status in words, and which ones mean "never on this machine"

const char *metrics_cupti_result_name(CUptiResult r)
{
    switch ((int)r) {
    case CUPTI_ERROR_INSUFFICIENT_PRIVILEGES: return "CUPTI_ERROR_INSUFFICIENT_PRIVILEGES";
    case CUPTI_ERROR_VIRTUALIZED_DEVICE_INSUFFICIENT_PRIVILEGES: return "CUPTI_ERROR_VIRTUALIZED_DEVICE_INSUFFICIENT_PRIVILEGES";
    case CUPTI_ERROR_VIRTUALIZED_DEVICE_NOT_SUPPORTED: return "CUPTI_ERROR_VIRTUALIZED_DEVICE_NOT_SUPPORTED";
    case CUPTI_ERROR_CONFIDENTIAL_COMPUTING_NOT_SUPPORTED: return "CUPTI_ERROR_CONFIDENTIAL_COMPUTING_NOT_SUPPORTED";
    case CUPTI_ERROR_CMP_DEVICE_NOT_SUPPORTED: return "CUPTI_ERROR_CMP_DEVICE_NOT_SUPPORTED";
    case CUPTI_ERROR_NOT_SUPPORTED: return "CUPTI_ERROR_NOT_SUPPORTED";
    default: break;
    }
    const char *s = NULL;
    if (metrics_lib.get_result_string && metrics_lib.get_result_string(r, &s) == CUPTI_SUCCESS && s) return s;
    return "CUPTI error";
}

/* 1 when r says counters will never work here (no retry, every row told so) */
int metrics_cupti_result_final(CUptiResult r)
{
    switch ((int)r) {
    case CUPTI_ERROR_INSUFFICIENT_PRIVILEGES:
    case CUPTI_ERROR_VIRTUALIZED_DEVICE_INSUFFICIENT_PRIVILEGES:
    case CUPTI_ERROR_VIRTUALIZED_DEVICE_NOT_SUPPORTED:
    case CUPTI_ERROR_CONFIDENTIAL_COMPUTING_NOT_SUPPORTED:
    case CUPTI_ERROR_CMP_DEVICE_NOT_SUPPORTED: return 1;
    default: return 0; /* CUPTI_ERROR_NOT_SUPPORTED too: a config without the SASS metrics may still work */
    }
}

/* The note for a failed CUPTI call. */
void metrics_cupti_reason(char *note, size_t len, CUptiResult r, const char *call)
{
    if (r == CUPTI_ERROR_INSUFFICIENT_PRIVILEGES || r == CUPTI_ERROR_VIRTUALIZED_DEVICE_INSUFFICIENT_PRIVILEGES)
        snprintf(note, len, "counters not permitted: %s from %s (the driver gives GPU counters to admin users only: "
                            "NVreg_RestrictProfilingToAdminUsers)",
                 metrics_cupti_result_name(r), call);
    else
        snprintf(note, len, "not measured: %s from %s", metrics_cupti_result_name(r), call);
}

const metrics_fns *metrics_cupti_lib(char *why, size_t why_len)
{
    pthread_once(&metrics_lib_once, metrics_lib_load);
    if (metrics_lib_ok) return &metrics_lib;
    snprintf(why, why_len, "%s", metrics_lib_why);
    return NULL;
}

#endif
