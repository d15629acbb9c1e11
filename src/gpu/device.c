#include "device.h"

#include <stdio.h>
#include <string.h>

#include "check.h"
#include "peaks.h"

static int device_fill_info(device_ctx *d)
{
    struct cudaDeviceProp p;
    device_info *in = &d->info;
    int v = 0;
    CK_CUDA(cudaGetDeviceProperties(&p, d->ordinal));
    snprintf(in->name, sizeof in->name, "%s", p.name);
    in->cc_major = p.major;
    in->cc_minor = p.minor;
    in->sms = p.multiProcessorCount;
    in->l2_bytes = p.l2CacheSize;
    in->total_mem_bytes = (long long)p.totalGlobalMem;
    in->bus_width_bits = p.memoryBusWidth;
    CK_CUDA(cudaDeviceGetAttribute(&v, cudaDevAttrClockRate, d->ordinal));
    in->sm_clock_khz = v;
    CK_CUDA(cudaDeviceGetAttribute(&v, cudaDevAttrMemoryClockRate, d->ordinal));
    in->mem_clock_khz = v;
    CK_CUDA(cudaDriverGetVersion(&in->driver_version));
    CK_CUDA(cudaRuntimeGetVersion(&in->runtime_version));
    CK_CUBLAS(cublasGetVersion(d->blas, &in->cublas_version));
    peaks_fill(in); /* FP32, tensor and memory ceilings, or a note of those the peak table lacks */
    in->index = d->ordinal;
    in->max_sm_clock_mhz = -1;
    {
        const unsigned char *u = (const unsigned char *)p.uuid.bytes;
        snprintf(in->uuid, sizeof in->uuid,
                 "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", u[0], u[1], u[2], u[3],
                 u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12], u[13], u[14], u[15]);
    }
    CK_CUDA(cudaDeviceGetPCIBusId(in->pci_bus_id, (int)sizeof in->pci_bus_id, d->ordinal));
    /* clocks are observed, never set: without NVML the rows carry none, and
     * the device block says why */
    if (clocks_open(&d->clk, in->pci_bus_id, in->clocks_note, sizeof in->clocks_note) == 0) {
        unsigned sm = 0, mem = 0, gen = 0, width = 0;
        clocks_max_mhz(d->clk, &sm, &mem);
        in->max_sm_clock_mhz = sm ? (double)sm : -1.0;
        in->clocks_note[0] = '\0';
        clocks_pcie_link(d->clk, &gen, &width);
        in->pcie_gen = (int)gen;
        in->pcie_width = (int)width;
    }
    CK_CUDA(cudaDeviceGetAttribute(&in->copy_engines, cudaDevAttrAsyncEngineCount, d->ordinal));
    return 0;
}

static int device_open_checked(device_ctx *d, unsigned long long seed)
{
    CK_CUDA(cudaSetDevice(d->ordinal));
    CK_CUDA(cudaFree(NULL)); /* create the context now, outside any timing */
    CK_CUDA(cudaStreamCreateWithFlags(&d->stream, cudaStreamNonBlocking));
    CK_CUBLAS(cublasCreate(&d->blas));
    CK_CUBLAS(cublasSetStream(d->blas, d->stream));
    CK_CUBLAS(cublasLtCreate(&d->blaslt));
    CK_CURAND(curandCreateGenerator(&d->rng, CURAND_RNG_PSEUDO_PHILOX4_32_10));
    CK_CURAND(curandSetPseudoRandomGeneratorSeed(d->rng, seed));
    CK_CURAND(curandSetStream(d->rng, d->stream));
    CK_CUDA(cudaEventCreate(&d->ev_start));
    CK_CUDA(cudaEventCreate(&d->ev_stop));
    if (device_fill_info(d)) return STATUS_ERROR;
    /* twice the L2, at least 64 MiB: every line of the last run is evicted */
    d->flush_bytes = (size_t)d->info.l2_bytes * 2;
    if (d->flush_bytes < (64u << 20)) d->flush_bytes = 64u << 20;
    CK_CUDA(cudaMalloc(&d->flush_buf, d->flush_bytes));
    /* the timing gate's words; without them samples go ungated (not an error) */
    if (cudaHostAlloc((void **)&d->gate_host, 2 * sizeof(unsigned), cudaHostAllocMapped | cudaHostAllocPortable) !=
            cudaSuccess ||
        cudaHostGetDevicePointer((void **)&d->gate_dev, d->gate_host, 0) != cudaSuccess) {
        (void)cudaGetLastError();
        if (d->gate_host) cudaFreeHost(d->gate_host);
        d->gate_host = d->gate_dev = NULL;
    } else {
        d->gate_host[0] = d->gate_host[1] = 0;
    }
    return 0;
}

/* "13.0" from 13000 */
static void device_version(char *buf, size_t len, int v)
{
    snprintf(buf, len, "%d.%d", v / 1000, (v % 1000) / 10);
}

int device_count(int *count, char *err, size_t err_len)
{
    int drv = 0, rt = 0;
    cudaError_t e;
    *count = 0;
    /* tell apart: no driver at all, a driver older than this build's runtime,
     * and a driver with no device, so the user knows which one to fix */
    (void)cudaDriverGetVersion(&drv);
    (void)cudaRuntimeGetVersion(&rt);
    e = cudaGetDeviceCount(count);
    if (e != cudaSuccess || *count == 0) {
        char have[16], need[16];
        device_version(have, sizeof have, drv);
        device_version(need, sizeof need, rt);
        if (drv == 0)
            snprintf(err, err_len, "no usable GPU: no NVIDIA driver found (libcuda.so.1 cannot be loaded)");
        else if (e == cudaErrorInsufficientDriver || drv < rt)
            snprintf(err, err_len,
                     "no usable GPU: the NVIDIA driver is too old (it supports CUDA %s, this build needs %s): "
                     "update the driver or build with an older toolkit", have, need);
        else if (e == cudaErrorNoDevice || *count == 0)
            snprintf(err, err_len, "no usable GPU: the NVIDIA driver (CUDA %s) sees no CUDA device", have);
        else
            snprintf(err, err_len, "no usable GPU: %s (%s)", cudaGetErrorName(e), cudaGetErrorString(e));
        (void)cudaGetLastError();
        *count = 0;
        return 77;
    }
    return 0;
}

int device_open(device_ctx *d, int ordinal, unsigned long long seed, char *err, size_t err_len)
{
    int count = 0, rc;
    memset(d, 0, sizeof *d);
    d->ordinal = ordinal;
    rc = device_count(&count, err, err_len);
    if (rc) return rc;
    if (ordinal >= count) {
        snprintf(err, err_len, "--device %d: only %d CUDA device%s present (0..%d)", ordinal, count,
                 count == 1 ? "" : "s", count - 1);
        return 2;
    }
    check_clear();
    if (device_open_checked(d, seed)) {
        snprintf(err, err_len, "device %d: %s", ordinal, status_message());
        return 1;
    }
    return 0;
}

void device_close(device_ctx *d)
{
    clocks_close(d->clk);
    if (d->flush_buf) cudaFree(d->flush_buf);
    if (d->gate_host) cudaFreeHost(d->gate_host);
    if (d->ev_start) cudaEventDestroy(d->ev_start);
    if (d->ev_stop) cudaEventDestroy(d->ev_stop);
    if (d->rng) curandDestroyGenerator(d->rng);
    if (d->blaslt) cublasLtDestroy(d->blaslt);
    if (d->blas) cublasDestroy(d->blas);
    if (d->stream) cudaStreamDestroy(d->stream);
    memset(d, 0, sizeof *d);
}

int device_flush_l2(device_ctx *d, int salt)
{
    CK_CUDA(cudaMemsetAsync(d->flush_buf, salt & 0xff, d->flush_bytes, d->stream));
    return 0;
}

int device_mem_info(size_t *free_bytes, size_t *total_bytes)
{
    CK_CUDA(cudaMemGetInfo(free_bytes, total_bytes));
    return 0;
}
