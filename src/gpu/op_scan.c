/* src/gpu/op_scan.c: the scan op, the inclusive prefix sum
 * out[i] = in[0] + ... + in[i] of n elements, i32 and f32 cases at every
 * length, and its variants. Inputs: i32 integers in -8..8 from cuRAND words
 * (gpucheck_small_i32: every prefix stays far from int32 overflow), f32
 * uniform in (-1, 1] from cuRAND. Reference: computed on the CPU, once in
 * setup, from a copy of the input, a chunk at a time (host memory stays
 * small whatever n): i32 the exact sum modulo 2^32 (scan.h's wrap-around
 * semantics; no wrap happens with these inputs), f32 the sum in double and
 * the running sum of magnitudes A_i = |x_0| + ... + |x_i| (kept in float: it
 * only scales the tolerance), both uploaded to the device.
 * Verification on the GPU: i32 element for element equal (exact); f32
 * per element |y_i - r_i| <= tol(n) A_i with src/core/verify.h's
 * verify_scan_tolerance (gpucheck_scan_f32_errors computes the ratios,
 * verify_scan_judge decides). The output is poisoned first (scan_poison).
 * Rate: GB/s of 8 bytes an element (each read once, written once).
 *
 * Adding a hand scan = its i32 and f32 launchers with scan.h's contract
 *     int f(const T *in, T *out, long long n, void *scratch, size_t scratch_bytes, cudaStream_t s)
 * (scratch: scan_scratch_bytes(n)) + one row in SCAN_HAND_ROWS below. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "inputs.h"
#include "op.h"
#include "scan.h"
#include "shim.h"
#include "verify.h"
#include "verify_kernels.h"

#define SCAN_HOST_CHUNK ((size_t)1 << 22) /* reference: elements copied back at a time */

/* name, i32 launcher, f32 launcher, what it is */
#define SCAN_HAND_ROWS(X)                                                                                     \
    X(hillis_steele, scan_hillis_steele_i32, scan_hillis_steele_f32,                                           \
      "step-efficient block scan (log2 B steps), multi-level: block totals scanned, then added")               \
    X(blelloch, scan_blelloch_i32, scan_blelloch_f32, "work-efficient up/down-sweep block scan, multi-level")  \
    X(decoupled, scan_decoupled_i32, scan_decoupled_f32,                                                       \
      "single pass, decoupled look-back (Merrill & Garland), atomic tile ids, 16-byte accesses")

typedef struct {
    void *in, *out;             /* n elements each */
    void *ref;                  /* reference: n int32 (i32) or n doubles (f32) */
    float *abs_sum;             /* f32: A_i, which scales the tolerance */
    unsigned long long *usums;  /* check results (device) */
    int is_float;
} scan_data;

static int scan_is_float(const plan_case *pc) { return pc->type && strcmp(pc->type, "f32") == 0; }

static size_t scan_case_bytes(const plan_case *pc)
{
    /* in, out and the reference: int32 (i32); double + float A (f32) */
    return (size_t)pc->elems * (scan_is_float(pc) ? 20 : 12) + 4096;
}

static void scan_teardown(op_case *c)
{
    scan_data *d = c->data;
    if (!d) return;
    cudaFree(d->in);
    cudaFree(d->out);
    cudaFree(d->ref);
    cudaFree(d->abs_sum);
    cudaFree(d->usums);
    free(d);
    c->data = NULL;
}

/* The reference on the host, SCAN_HOST_CHUNK elements at a time: the input
 * chunk comes back into h_in, its sums go up from h_ref (and h_abs). The
 * stream is synchronised before each chunk's host work, so no copy still
 * reads or writes a host buffer when it is reused. */
static int scan_reference(op_case *c, scan_data *d, void *h_in, void *h_ref, float *h_abs)
{
    cudaStream_t s = c->dev->stream;
    const size_t n = (size_t)c->pc->elems;
    double acc = 0.0, abs_acc = 0.0;
    uint32_t iacc = 0;
    for (size_t at = 0; at < n; at += SCAN_HOST_CHUNK) {
        size_t cnt = n - at < SCAN_HOST_CHUNK ? n - at : SCAN_HOST_CHUNK;
        CK_CUDA(cudaMemcpyAsync(h_in, (const char *)d->in + at * 4, cnt * 4, cudaMemcpyDeviceToHost, s));
        CK_CUDA(cudaStreamSynchronize(s));
        if (d->is_float) {
            const float *x = h_in;
            double *r = h_ref;
            for (size_t i = 0; i < cnt; i++) {
                acc += x[i];
                abs_acc += fabs((double)x[i]);
                r[i] = acc;
                h_abs[i] = (float)abs_acc;
            }
            CK_CUDA(cudaMemcpyAsync((double *)d->ref + at, h_ref, cnt * 8, cudaMemcpyHostToDevice, s));
            CK_CUDA(cudaMemcpyAsync(d->abs_sum + at, h_abs, cnt * 4, cudaMemcpyHostToDevice, s));
        } else {
            const int32_t *x = h_in;
            int32_t *r = h_ref;
            for (size_t i = 0; i < cnt; i++) {
                iacc += (uint32_t)x[i]; /* modulo 2^32, as scan.h defines it */
                r[i] = (int32_t)iacc;
            }
            CK_CUDA(cudaMemcpyAsync((int32_t *)d->ref + at, h_ref, cnt * 4, cudaMemcpyHostToDevice, s));
        }
    }
    CK_CUDA(cudaStreamSynchronize(s));
    return STATUS_OK;
}

static int scan_setup(op_case *c)
{
    device_ctx *dv = c->dev;
    cudaStream_t s = dv->stream;
    const size_t n = (size_t)c->pc->elems;
    const size_t chunk = n < SCAN_HOST_CHUNK ? n : SCAN_HOST_CHUNK;
    void *h_in, *h_ref;
    float *h_abs;
    int st;
    scan_data *d = calloc(1, sizeof *d);
    if (!d) {
        status_set_message("out of host memory");
        return STATUS_ERROR;
    }
    c->data = d;
    d->is_float = scan_is_float(c->pc);
    CK_CUDA(cudaMalloc(&d->in, n * 4));
    CK_CUDA(cudaMalloc(&d->out, n * 4));
    CK_CUDA(cudaMalloc(&d->ref, n * (d->is_float ? 8 : 4)));
    if (d->is_float) CK_CUDA(cudaMalloc((void **)&d->abs_sum, n * 4));
    CK_CUDA(cudaMalloc((void **)&d->usums, 4 * sizeof(unsigned long long)));
    if (inputs_reset(dv->rng, c->seed)) return STATUS_ERROR;
    if (d->is_float) {
        if (inputs_uniform_pm1(dv->rng, d->in, n, s)) return STATUS_ERROR;
    } else {
        if (inputs_u32(dv->rng, d->in, n)) return STATUS_ERROR;
        CK_LAUNCH(gpucheck_small_i32(d->in, n, s));
    }
    h_in = malloc(chunk * 4);
    h_ref = malloc(chunk * 8);
    h_abs = malloc(chunk * 4);
    if (!h_in || !h_ref || !h_abs) {
        status_set_message("out of host memory (%zu bytes for the reference)", chunk * 16);
        st = STATUS_ERROR;
    } else {
        st = scan_reference(c, d, h_in, h_ref, h_abs);
    }
    free(h_in);
    free(h_ref);
    free(h_abs);
    return st;
}

/* f32: 0xFFFFFFFF, a NaN, which fails. i32: 0x7F7F7F7F = 2139062143, which
 * a prefix of values in -8..8 reaches only after 267 million 8s in a row
 * (0xFFFFFFFF would be -1, a prefix sum the data does reach). */
static int scan_poison(op_case *c)
{
    scan_data *d = c->data;
    CK_CUDA(cudaMemsetAsync(d->out, d->is_float ? 0xff : 0x7f, (size_t)c->pc->elems * 4, c->dev->stream));
    return STATUS_OK;
}

static int scan_verify(op_case *c, const variant *v, result_row *r)
{
    scan_data *d = c->data;
    cudaStream_t s = c->dev->stream;
    const long long n = c->pc->elems;
    const double tol = verify_scan_tolerance(n);
    unsigned long long u[4] = {0, ~0ULL, 0, 0};
    double worst;
    verify_verdict vd;
    (void)v;
    CK_CUDA(cudaMemcpyAsync(d->usums, u, sizeof u, cudaMemcpyHostToDevice, s));
    if (d->is_float)
        CK_LAUNCH(gpucheck_scan_f32_errors(d->out, d->ref, d->abs_sum, (size_t)n, tol, d->usums, s));
    else
        CK_LAUNCH(gpucheck_compare_keys(d->out, d->ref, (size_t)n, 0, d->usums, s));
    CK_CUDA(cudaMemcpyAsync(u, d->usums, sizeof u, cudaMemcpyDeviceToHost, s));
    CK_CUDA(cudaStreamSynchronize(s));
    if (!d->is_float) {
        r->rel_err = (double)u[0] / (double)n;
        r->tolerance = 0.0;
        if (u[0] == 0) return STATUS_OK;
        snprintf(r->message, sizeof r->message, "%llu of %lld prefix sums differ from the exact ones (first at %llu)",
                 u[0], n, u[1]);
        return STATUS_FAIL;
    }
    memcpy(&worst, &u[2], sizeof worst);
    verify_scan_judge(worst, (long long)u[3], n, &vd);
    r->rel_err = vd.rel_err;
    r->tolerance = vd.tolerance;
    if (vd.pass && u[0] == 0) return STATUS_OK;
    snprintf(r->message, sizeof r->message,
             "%llu of %lld elements outside |y - ref| <= tol * A (first at %llu), %llu NaN/Inf; worst ratio %.3g, "
             "tolerance %.3g",
             u[0], n, u[1], u[3], worst, vd.tolerance);
    return STATUS_FAIL;
}

static void scan_fill_row(const op_case *c, const variant *v, result_row *r)
{
    (void)v;
    r->elems = c->pc->elems;
    r->math = c->pc->type;
    r->bytes = 8.0 * (double)c->pc->elems; /* each element read once and written once */
}

// ---------------------------------------------------------------------------
// adapters

static int v_scan_hand(const op_case *c, const variant *v, cudaStream_t s)
{
    const scan_data *d = c->data;
    if (d->is_float)
        CK_LAUNCH(((scan_f32_launcher)v->fn2)(d->in, d->out, c->pc->elems, c->workspace, c->workspace_bytes, s));
    else
        CK_LAUNCH(((scan_i32_launcher)v->fn)(d->in, d->out, c->pc->elems, c->workspace, c->workspace_bytes, s));
    return STATUS_OK;
}

static size_t v_scan_scratch(const plan_case *pc, const variant *v)
{
    (void)v;
    return scan_scratch_bytes(pc->elems);
}

static int v_thrust(const op_case *c, const variant *v, cudaStream_t s)
{
    const scan_data *d = c->data;
    char msg[400];
    (void)v;
    int rc = d->is_float ? shim_thrust_scan_f32(d->in, d->out, c->pc->elems, s, msg, sizeof msg)
                         : shim_thrust_scan_i32(d->in, d->out, c->pc->elems, s, msg, sizeof msg);
    if (rc) status_set_message("shim_thrust_scan: %s", msg);
    return rc ? STATUS_ERROR : STATUS_OK;
}

static int v_cub(const op_case *c, const variant *v, cudaStream_t s)
{
    const scan_data *d = c->data;
    char msg[400];
    (void)v;
    int rc = d->is_float ? shim_cub_scan_f32(d->in, d->out, c->pc->elems, c->workspace, c->workspace_bytes, s, msg,
                                             sizeof msg)
                         : shim_cub_scan_i32(d->in, d->out, c->pc->elems, c->workspace, c->workspace_bytes, s, msg,
                                             sizeof msg);
    if (rc) status_set_message("shim_cub_scan: %s", msg);
    return rc ? STATUS_ERROR : STATUS_OK;
}

static size_t v_cub_temp(const plan_case *pc, const variant *v)
{
    size_t b = 0;
    char msg[256];
    (void)v;
    /* a failed query shows again, with its message, when the variant runs;
     * never 0: a NULL temp pointer would make the call a size query */
    return shim_cub_scan_temp_bytes(pc->elems, &b, msg, sizeof msg) ? (1u << 20) : b ? b : 16;
}

/* a plugin row: type i32 or f32 (rows of one name make one variant over
 * both); input in, output out (compare_plugin.h) */
static void scan_plugin_bind(const plan_case *pc, const op_case *c, op_plugin_binding *b)
{
    const scan_data *d = c ? c->data : NULL;
    (void)pc;
    if (d) op_plugin_slots(b, d->in, NULL, d->out, NULL);
}

static const op_plugin_spec scan_plugin = {
    {{"i32", "types", NULL}, {"f32", "types", NULL}},
    scan_plugin_bind,
    0,
    "input in (elems values); output out (elems values)",
};

// ---------------------------------------------------------------------------
// the variant table

#define SCAN_ROW(name, i32, f32, about)                                                                    \
    {.info = {"scan", #name, 0, "types", NULL, 0, "builtin", about}, .run = v_scan_hand, .fn = (variant_fn)i32, \
     .fn2 = (variant_fn)f32, .workspace = v_scan_scratch},

static const variant scan_variants[] = {
    {.info = {"scan", "thrust", 1, "types", NULL, 0, "builtin",
              "thrust::inclusive_scan as a user calls it (temp alloc: host costs timed)"},
     .run = v_thrust, .host_sync = 1,
     .note = "thrust::inclusive_scan allocates and frees its temporary storage on every call: "
             "that is in its time"},
    {.info = {"scan", "cub", 1, "types", NULL, 0, "builtin",
              "cub::DeviceScan::InclusiveSum, temp storage preallocated"},
     .run = v_cub, .workspace = v_cub_temp},
    SCAN_HAND_ROWS(SCAN_ROW)
};

const op_desc op_scan = {
    {.name = "scan",
     .size_kind = OP_SIZE_ELEMS,
     .rate = OP_RATE_GBPS,
     .peak = OP_PEAK_MEMORY,
     .ref_library = "thrust",
     .best_library = "cub",
     .types = {"i32", "f32"},
     .about = "inclusive prefix sum, i32 and f32 (GB/s: each element read and written once)",
     .axes = {OP_AXIS_ELEMS, OP_AXIS_TYPE}},
    scan_variants,
    (int)(sizeof scan_variants / sizeof scan_variants[0]),
    scan_case_bytes,
    scan_setup,
    scan_poison,
    scan_verify,
    scan_fill_row,
    scan_teardown,
    &scan_plugin,
};
