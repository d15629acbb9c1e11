/* src/gpu/op_transfer.c: the transfer op, the host -> device -> kernel -> host
 * round trip of E floats, and its variants: how much of the link a program
 * gets, and what overlapping the copies with the kernel buys.
 *
 * The work: copy x (host) to the device, y = 2 x + 1 there (a memory-bound
 * kernel), copy y back. Throughput in GB/s of the bytes that cross the link
 * (8 E: 4 E each way).
 *   cuda_memcpy  the reference (library) row: one pinned cudaMemcpyAsync each
 *                way and no kernel, the link alone
 *   pageable     the round trip from and to malloc'ed memory (the driver
 *                stages every byte through its own pinned buffers)
 *   pinned       the round trip from and to pinned memory, one stream, in order
 *   overlap      pinned, the data split into --chunks C pieces, piece i on
 *                stream i (copy in, kernel, copy out), so that the copies of
 *                one piece overlap the kernel and the other direction's copy
 *                of another: how much depends on the copy engines (the device
 *                block shows their count and the link)
 * Verification: the host result equals 2 x + 1 computed on the host (the same
 * float operation, exact), cuda_memcpy's equals x; the host output buffers
 * are poisoned with NaN first. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "inputs.h"
#include "op.h"
#include "transfer_kernel.h"

#define TRANSFER_MAX_CHUNKS 64

typedef struct {
    float *dx;                        /* the device buffer */
    float *page_in, *page_out;        /* malloc'ed host buffers */
    float *pin_in, *pin_out;          /* cudaMallocHost'ed host buffers */
    float *want;                      /* 2 x + 1 on the host */
    cudaStream_t streams[TRANSFER_MAX_CHUNKS];
    cudaEvent_t fork, joins[TRANSFER_MAX_CHUNKS];
    int nstreams;
    const float *out;                 /* the output buffer of the last run */
    int copy_only;                    /* the last run was cuda_memcpy's */
} transfer_data;

static size_t transfer_case_bytes(const plan_case *pc) { return (size_t)pc->elems * 4 + 4096; }

static void transfer_teardown(op_case *c)
{
    transfer_data *d = c->data;
    if (!d) return;
    for (int i = 0; i < d->nstreams; i++) {
        cudaStreamDestroy(d->streams[i]);
        cudaEventDestroy(d->joins[i]);
    }
    if (d->fork) cudaEventDestroy(d->fork);
    cudaFree(d->dx);
    cudaFreeHost(d->pin_in);
    cudaFreeHost(d->pin_out);
    free(d->page_in);
    free(d->page_out);
    free(d->want);
    free(d);
    c->data = NULL;
}

static int transfer_setup(op_case *c)
{
    device_ctx *dv = c->dev;
    size_t n = (size_t)c->pc->elems;
    long long chunks = plan_case_axis(c->pc, "chunks");
    transfer_data *d = calloc(1, sizeof *d);
    if (!d) {
        status_set_message("out of host memory");
        return STATUS_ERROR;
    }
    c->data = d;
    d->page_in = malloc(n * 4);
    d->page_out = malloc(n * 4);
    d->want = malloc(n * 4);
    if (!d->page_in || !d->page_out || !d->want) {
        status_set_message("out of host memory for %zu floats (x3)", n);
        return STATUS_ERROR;
    }
    CK_CUDA(cudaMalloc((void **)&d->dx, n * 4));
    CK_CUDA(cudaMallocHost((void **)&d->pin_in, n * 4));
    CK_CUDA(cudaMallocHost((void **)&d->pin_out, n * 4));
    if (chunks > TRANSFER_MAX_CHUNKS) chunks = TRANSFER_MAX_CHUNKS;
    CK_CUDA(cudaEventCreateWithFlags(&d->fork, cudaEventDisableTiming));
    for (; d->nstreams < chunks; d->nstreams++) {
        CK_CUDA(cudaStreamCreateWithFlags(&d->streams[d->nstreams], cudaStreamNonBlocking));
        if (check_cuda_status(cudaEventCreateWithFlags(&d->joins[d->nstreams], cudaEventDisableTiming),
                              "cudaEventCreateWithFlags", __FILE__, __LINE__)) {
            cudaStreamDestroy(d->streams[d->nstreams]);
            return STATUS_ERROR;
        }
    }
    /* x from cuRAND, brought to both host buffers; the expected result on the host */
    if (inputs_reset(dv->rng, c->seed) || inputs_uniform_pm1(dv->rng, d->dx, n, dv->stream)) return STATUS_ERROR;
    CK_CUDA(cudaMemcpyAsync(d->pin_in, d->dx, n * 4, cudaMemcpyDeviceToHost, dv->stream));
    CK_CUDA(cudaStreamSynchronize(dv->stream));
    memcpy(d->page_in, d->pin_in, n * 4);
    for (size_t i = 0; i < n; i++) d->want[i] = 2.0f * d->pin_in[i] + 1.0f;
    return STATUS_OK;
}

static int transfer_poison(op_case *c)
{
    transfer_data *d = c->data;
    size_t n = (size_t)c->pc->elems;
    memset(d->page_out, 0xff, n * 4);
    memset(d->pin_out, 0xff, n * 4);
    d->out = NULL;
    return STATUS_OK;
}

static int transfer_verify(op_case *c, const variant *v, result_row *r)
{
    transfer_data *d = c->data;
    size_t n = (size_t)c->pc->elems, bad = 0, first = 0;
    (void)v;
    if (!d->out) {
        snprintf(r->message, sizeof r->message, "no output was produced");
        return STATUS_FAIL;
    }
    for (size_t i = 0; i < n; i++) {
        float want = d->copy_only ? d->pin_in[i] : d->want[i];
        if (memcmp(&d->out[i], &want, 4) != 0 && !bad++) first = i;
    }
    r->rel_err = (double)bad / (double)n;
    r->tolerance = 0.0;
    if (!bad) return STATUS_OK;
    snprintf(r->message, sizeof r->message, "%zu of %zu values differ from 2x+1 (first at %zu: %.9g, want %.9g)", bad,
             n, first, (double)d->out[first], (double)(d->copy_only ? d->pin_in[first] : d->want[first]));
    return STATUS_FAIL;
}

static void transfer_fill_row(const op_case *c, const variant *v, result_row *r)
{
    r->elems = c->pc->elems;
    r->math = v->info.math;
    r->bytes = 8.0 * (double)c->pc->elems; /* across the link: in and out */
}

// ---------------------------------------------------------------------------
// variants

/* in -> device -> 2x+1 -> out, in order on one stream */
static int transfer_round_trip(const op_case *c, const float *in, float *out, cudaStream_t s)
{
    transfer_data *d = c->data;
    size_t n = (size_t)c->pc->elems;
    CK_CUDA(cudaMemcpyAsync(d->dx, in, n * 4, cudaMemcpyHostToDevice, s));
    CK_LAUNCH(transfer_affine(d->dx, (long long)n, s));
    CK_CUDA(cudaMemcpyAsync(out, d->dx, n * 4, cudaMemcpyDeviceToHost, s));
    d->out = out;
    d->copy_only = 0;
    return STATUS_OK;
}

static int v_memcpy(const op_case *c, const variant *v, cudaStream_t s)
{
    transfer_data *d = c->data;
    size_t n = (size_t)c->pc->elems;
    (void)v;
    CK_CUDA(cudaMemcpyAsync(d->dx, d->pin_in, n * 4, cudaMemcpyHostToDevice, s));
    CK_CUDA(cudaMemcpyAsync(d->pin_out, d->dx, n * 4, cudaMemcpyDeviceToHost, s));
    d->out = d->pin_out;
    d->copy_only = 1;
    return STATUS_OK;
}

static int v_pageable(const op_case *c, const variant *v, cudaStream_t s)
{
    transfer_data *d = c->data;
    (void)v;
    return transfer_round_trip(c, d->page_in, d->page_out, s);
}

static int v_pinned(const op_case *c, const variant *v, cudaStream_t s)
{
    transfer_data *d = c->data;
    (void)v;
    return transfer_round_trip(c, d->pin_in, d->pin_out, s);
}

/* chunk i on stream i; the streams start after, and s ends after, all of
 * them (events), so the timing on s covers the whole */
static int v_overlap(const op_case *c, const variant *v, cudaStream_t s)
{
    transfer_data *d = c->data;
    long long n = c->pc->elems, per = (n + d->nstreams - 1) / d->nstreams;
    (void)v;
    CK_CUDA(cudaEventRecord(d->fork, s));
    for (int i = 0; i < d->nstreams; i++) {
        long long off = (long long)i * per, len = n - off < per ? n - off : per;
        cudaStream_t si = d->streams[i];
        CK_CUDA(cudaStreamWaitEvent(si, d->fork, 0));
        if (len > 0) {
            CK_CUDA(cudaMemcpyAsync(d->dx + off, d->pin_in + off, (size_t)len * 4, cudaMemcpyHostToDevice, si));
            CK_LAUNCH(transfer_affine(d->dx + off, len, si));
            CK_CUDA(cudaMemcpyAsync(d->pin_out + off, d->dx + off, (size_t)len * 4, cudaMemcpyDeviceToHost, si));
        }
        CK_CUDA(cudaEventRecord(d->joins[i], si));
        CK_CUDA(cudaStreamWaitEvent(s, d->joins[i], 0));
    }
    d->out = d->pin_out;
    d->copy_only = 0;
    return STATUS_OK;
}

/* a plugin row: type fp32; input x (pinned host), outputs y (pinned host)
 * and a device buffer (compare_plugin.h). Its round trip lands in pin_out,
 * where verification reads it. Timed from an idle stream like the rows
 * above (host_sync). */
static void transfer_plugin_bind(const plan_case *pc, const op_case *c, op_plugin_binding *b)
{
    transfer_data *d = c ? c->data : NULL;
    (void)pc;
    if (!d) return;
    op_plugin_slots(b, d->pin_in, NULL, d->pin_out, d->dx);
    d->out = d->pin_out;
    d->copy_only = 0;
}

static const op_plugin_spec transfer_plugin = {
    {{"fp32", "fp32", NULL}},
    transfer_plugin_bind,
    1,
    "input x (elems floats, pinned host); outputs y (elems floats, pinned host), a device buffer (elems floats)",
};

static const variant transfer_variants[] = {
    {.info = {"transfer", "cuda_memcpy", 1, "fp32", NULL, 0, "builtin",
              "one pinned cudaMemcpyAsync each way, no kernel: the link alone"},
     .run = v_memcpy, .host_sync = 1},
    {.info = {"transfer", "pageable", 0, "fp32", NULL, 0, "builtin", "malloc'ed host memory: copy in, 2x+1, copy out"},
     .run = v_pageable, .host_sync = 1},
    {.info = {"transfer", "pinned", 0, "fp32", NULL, 0, "builtin", "pinned host memory, in order on one stream"},
     .run = v_pinned, .host_sync = 1},
    {.info = {"transfer", "overlap", 0, "fp32", NULL, 0, "builtin",
              "pinned, --chunks pieces on as many streams: copies overlap the kernel"},
     .run = v_overlap, .host_sync = 1},
};

const op_desc op_transfer = {
    {.name = "transfer",
     .size_kind = OP_SIZE_ELEMS,
     .rate = OP_RATE_GBPS,
     .peak = OP_PEAK_NONE,
     .ref_library = "cuda_memcpy",
     .best_library = "cuda_memcpy",
     .speedup = {"overlap", "pinned"},
     .about = "host -> device -> kernel -> host of E floats (GB/s across the link)",
     .axes = {OP_AXIS_ELEMS,
              {"chunks", OP_AXIS_INT, "4", 1, TRANSFER_MAX_CHUNKS, {NULL}, 0,
               "overlap: pieces of the data, one stream each (--chunks)"}}},
    transfer_variants,
    (int)(sizeof transfer_variants / sizeof transfer_variants[0]),
    transfer_case_bytes,
    transfer_setup,
    transfer_poison,
    transfer_verify,
    transfer_fill_row,
    transfer_teardown,
    &transfer_plugin,
};
