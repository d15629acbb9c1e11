/* src/core/gpu_api.h: the boundary between `compare` (the CPU core: options,
 * plan, reports, CSV) and the GPU side (libcompare_gpu.so: device, kernels,
 * libraries, plugins). The core loads the GPU side with dlopen only once it
 * needs it, so --help and --version start without loading the CUDA
 * libraries, and --list loads them without initialising any. Plain C types
 * only: the core sees no CUDA header. */
#ifndef COMPARE_GPU_API_H
#define COMPARE_GPU_API_H

#include <signal.h>
#include <stddef.h>

#include "catalog.h"
#include "cli.h"
#include "plan.h"
#include "results.h"

#define COMPARE_GPU_API_VERSION 3

/* One open device: its context, stream, handles and flush buffer. Opaque to
 * the core; each is used by one thread at a time (several devices may run
 * at once, one thread each: --parallel-devices). Every call that takes one
 * makes its device current on the calling thread first. */
typedef struct compare_gpu_device compare_gpu_device;

typedef struct {
    int version;  /* COMPARE_GPU_API_VERSION of the library */
    /* Loads a plugin's variants into the catalog (no CUDA call). 0, or 2
     * with a message naming the plugin. */
    int (*load_plugin)(const char *path, char *err, size_t err_len);
    /* The catalog: built-in ops and variants, then plugin variants. */
    const catalog *(*catalog)(void);
    /* CUDA devices present: 0 with *count >= 1; 77 no usable GPU (message
     * in err, as open gives it). */
    int (*device_count)(int *count, char *err, size_t err_len);
    /* Opens a device into *dev: 0; 77 no usable GPU; 2 bad ordinal; 1 another
     * error (message in err; *dev stays NULL). Fills info->dev. */
    int (*open)(int ordinal, unsigned long long seed, run_info *info, compare_gpu_device **dev, char *err,
                size_t err_len);
    /* Runs the plan on the device (see src/gpu/run.h for the codes). The
     * sink is called on the calling thread. */
    int (*run)(compare_gpu_device *dev, const cli_options *o, const plan *p, run_sink *sink,
               volatile sig_atomic_t *stop);
    /* Free and total memory of the device, or -1. */
    int (*mem_info)(compare_gpu_device *dev, size_t *free_bytes, size_t *total_bytes);
    /* Bytes of the device's L2-flush buffer. */
    long long (*flush_bytes)(const compare_gpu_device *dev);
    /* Releases everything of the device (NULL: nothing). */
    void (*close)(compare_gpu_device *dev);
} compare_gpu_api;

/* The one symbol libcompare_gpu.so exports for the core. */
typedef const compare_gpu_api *(*compare_gpu_api_fn)(void);
#define COMPARE_GPU_API_SYMBOL "compare_gpu_api_get"

/* Loads libcompare_gpu.so ($COMPARE_GPU_LIB when set, else next to the
 * executable, else in ../lib from it) and returns its API, or NULL with a
 * message. */
const compare_gpu_api *gpu_api_load(char *err, size_t err_len);

#endif
