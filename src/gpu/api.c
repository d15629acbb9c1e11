/* src/gpu/api.c: what libcompare_gpu.so offers the core (src/core/gpu_api.h):
 * the catalog, plugins, open devices and the run. Each open device is its
 * own compare_gpu_device (context, stream, handles), so several can run at
 * once, one thread each; the CUDA current device is per thread, so every
 * call makes its device current first. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "device.h"
#include "gpu_api.h"
#include "op.h"
#include "plugin.h"
#include "run.h"

struct compare_gpu_device {
    device_ctx ctx;
};

static const catalog *api_catalog(void) { return ops_catalog(); }

static int api_device_count(int *count, char *err, size_t err_len) { return device_count(count, err, err_len); }

static int api_open(int ordinal, unsigned long long seed, run_info *info, compare_gpu_device **dev, char *err,
                    size_t err_len)
{
    compare_gpu_device *d = calloc(1, sizeof *d);
    int rc;
    *dev = NULL;
    if (!d) {
        snprintf(err, err_len, "device %d: out of host memory", ordinal);
        return 1;
    }
    rc = device_open(&d->ctx, ordinal, seed, err, err_len);
    if (rc) {
        device_close(&d->ctx); /* what a half-done open made */
        free(d);
        return rc;
    }
    info->dev = d->ctx.info;
    *dev = d;
    return 0;
}

/* Makes the device current on this thread: 0, or 1 with the message in err. */
static int api_use(compare_gpu_device *d, char *err, size_t err_len)
{
    cudaError_t e = cudaSetDevice(d->ctx.ordinal);
    if (e == cudaSuccess) return 0;
    if (err) snprintf(err, err_len, "cudaSetDevice(%d) failed: %s", d->ctx.ordinal, cudaGetErrorString(e));
    return 1;
}

static int api_run(compare_gpu_device *d, const cli_options *o, const plan *p, run_sink *sink,
                   volatile sig_atomic_t *stop)
{
    char err[256];
    if (api_use(d, err, sizeof err)) {
        fprintf(stderr, "compare: %s\n", err);
        return 1;
    }
    return run_plan(&d->ctx, o, p, sink, stop);
}

static int api_mem_info(compare_gpu_device *d, size_t *free_bytes, size_t *total_bytes)
{
    if (api_use(d, NULL, 0)) return -1;
    return device_mem_info(free_bytes, total_bytes) ? -1 : 0;
}

static long long api_flush_bytes(const compare_gpu_device *d) { return (long long)d->ctx.flush_bytes; }

static void api_close(compare_gpu_device *d)
{
    if (!d) return;
    if (api_use(d, NULL, 0) == 0) device_close(&d->ctx);
    free(d);
}

static const compare_gpu_api api_table = {
    COMPARE_GPU_API_VERSION, plugin_load,   api_catalog,     api_device_count, api_open,
    api_run,       api_mem_info,    api_flush_bytes,  api_close,
};

const compare_gpu_api *compare_gpu_api_get(void);
const compare_gpu_api *compare_gpu_api_get(void) { return &api_table; }
