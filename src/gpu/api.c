/* src/gpu/api.c: what libcompare_gpu.so offers the core (src/core/gpu_api.h):
 * the catalog, plugins, one open device and the run. */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "device.h"
#include "gpu_api.h"
#include "op.h"
#include "plugin.h"
#include "run.h"

static device_ctx api_dev;
static int api_open_done;

static const catalog *api_catalog(void) { return ops_catalog(); }

static int api_open(int ordinal, unsigned long long seed, run_info *info, char *err, size_t err_len)
{
    int rc = device_open(&api_dev, ordinal, seed, err, err_len);
    if (rc) return rc;
    api_open_done = 1;
    info->dev = api_dev.info;
    return 0;
}

static int api_check_memory(const plan *p, char *err, size_t err_len) { return run_check_memory(p, err, err_len); }

static int api_run(const cli_options *o, const plan *p, run_sink *sink, volatile sig_atomic_t *stop)
{
    return run_plan(&api_dev, o, p, sink, stop);
}

static int api_mem_info(size_t *free_bytes, size_t *total_bytes)
{
    return device_mem_info(free_bytes, total_bytes) ? -1 : 0;
}

static long long api_flush_bytes(void) { return (long long)api_dev.flush_bytes; }

static void api_close(void)
{
    if (api_open_done) device_close(&api_dev);
    api_open_done = 0;
}

static const compare_gpu_api api_table = {
    COMPARE_GPU_API_VERSION, plugin_load, api_catalog, api_open, api_check_memory, api_run, api_mem_info,
    api_flush_bytes, api_close,
};

const compare_gpu_api *compare_gpu_api_get(void);
const compare_gpu_api *compare_gpu_api_get(void) { return &api_table; }
