/* src/gpu/device.h: the GPU context of a run: device, stream, cuBLAS handle,
 * cuRAND generator, timing events, the timing gate's words and the L2-flush
 * buffer. */
#ifndef COMPARE_DEVICE_H
#define COMPARE_DEVICE_H

#include <stddef.h>
#include <cublasLt.h>
#include <cublas_v2.h>
#include <curand.h>
#include <cuda_runtime_api.h>

#include "clocks.h"
#include "results.h"

typedef struct {
    int ordinal;               /* CUDA device ordinal */
    device_info info;          /* what the table's device block prints */
    cudaStream_t stream;       /* the one non-blocking stream everything runs on */
    cublasHandle_t blas;       /* bound to `stream` */
    cublasLtHandle_t blaslt;   /* cuBLASLt (its calls take the stream each time) */
    curandGenerator_t rng;     /* Philox, bound to `stream` */
    void *flush_buf;           /* >= 2x L2, memset before each sample when flushing */
    size_t flush_bytes;
    cudaEvent_t ev_start, ev_stop; /* one pair, reused sample after sample */
    /* the timing gate (src/gpu/gate_kernel.cu): two words of mapped pinned
     * host memory, [0] the sample the gate lets through, [1] the sample whose
     * gate gave up waiting; gate_dev the same words as the device sees them.
     * NULL when they could not be had: samples run without the gate. */
    unsigned *gate_host, *gate_dev;
    unsigned gate_seq;         /* the last sample number given to a gate */
    clocks *clk;               /* NVML clock observer, NULL without NVML (info.clocks_note says why) */
} device_ctx;

/* CUDA devices present: 0 with *count >= 1, or 77 with the reason there is
 * no usable GPU in err (no driver, a driver too old, no device). */
int device_count(int *count, char *err, size_t err_len);
/* Opens device `ordinal`. Returns 0; 77 if there is no usable GPU/driver
 * (message in err); 2 if there is no such ordinal; 1 on another CUDA error. */
int device_open(device_ctx *d, int ordinal, unsigned long long seed, char *err, size_t err_len);
void device_close(device_ctx *d);
/* Enqueues the L2 flush (a memset of flush_buf with a changing byte). */
int device_flush_l2(device_ctx *d, int salt);
/* Free and total device memory in bytes. */
int device_mem_info(size_t *free_bytes, size_t *total_bytes);

#endif
