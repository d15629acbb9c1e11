/* src/gpu/op_sort.c: the sort op, 32-bit keys ascending (u32 and f32 cases at
 * every length), and its variants. Input: cuRAND bits (u32) or uniform
 * floats in (-1, 1] (f32). Reference: cub::DeviceRadixSort's output, itself
 * checked to be in order. Verification: element for element equal to it
 * (which checks both the order and that the output is a permutation of the
 * input); the output is poisoned with 0xFFFFFFFF first.
 *
 * Adding a hand sort = its u32 and f32 launchers with sort.h's contract
 *     int f(const T *in, T *out, long long n, void *scratch, size_t scratch_bytes, cudaStream_t s)
 *     size_t f_scratch_bytes(long long n)
 * + one row in SORT_HAND_ROWS below. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "inputs.h"
#include "op.h"
#include "shim.h"
#include "sort.h"
#include "verify_kernels.h"

typedef int (*sort_u32_fn)(const uint32_t *in, uint32_t *out, long long n, void *scratch, size_t scratch_bytes,
                           cudaStream_t s);
typedef int (*sort_f32_fn)(const float *in, float *out, long long n, void *scratch, size_t scratch_bytes,
                           cudaStream_t s);
typedef size_t (*sort_scratch_fn)(long long n);

/* name, u32 launcher, f32 launcher, scratch query, what it is */
#define SORT_HAND_ROWS(X)                                                                                  \
    X(radix, sort_radix_u32, sort_radix_f32, sort_radix_scratch_bytes, "LSD radix sort, 8-bit digits, 3 kernels a pass") \
    X(onesweep, sort_onesweep_u32, sort_onesweep_f32, sort_onesweep_scratch_bytes,                           \
      "single-pass LSD radix sort: one histogram pass, then one pass a digit with decoupled look-back")

#define SORT_DECLARE(name, u32, f32, scratch, about)                                                        \
    int u32(const uint32_t *in, uint32_t *out, long long n, void *scratch_, size_t scratch_bytes, cudaStream_t s); \
    int f32(const float *in, float *out, long long n, void *scratch_, size_t scratch_bytes, cudaStream_t s);       \
    size_t scratch(long long n);
SORT_HAND_ROWS(SORT_DECLARE)

typedef struct {
    void *in, *out, *ref;           /* keys */
    void *ref_temp;                 /* CUB temp storage of the reference sort */
    unsigned long long *usums;      /* compare results (device) */
    int is_float;
} sort_data;

static int sort_is_float(const plan_case *pc) { return pc->type && strcmp(pc->type, "f32") == 0; }

static size_t sort_cub_temp(long long n)
{
    size_t b = 0;
    char msg[256];
    return shim_cub_sort_temp_bytes(n, &b, msg, sizeof msg) ? (size_t)n * 4 + (64u << 20) : b;
}

static size_t sort_case_bytes(const plan_case *pc)
{
    /* in, out, reference, the reference's CUB temp */
    return (size_t)pc->elems * 12 + sort_cub_temp(pc->elems) + 4096;
}

static void sort_teardown(op_case *c)
{
    sort_data *d = c->data;
    if (!d) return;
    cudaFree(d->in);
    cudaFree(d->out);
    cudaFree(d->ref);
    cudaFree(d->ref_temp);
    cudaFree(d->usums);
    free(d);
    c->data = NULL;
}

static int sort_setup(op_case *c)
{
    device_ctx *dv = c->dev;
    cudaStream_t s = dv->stream;
    long long n = c->pc->elems;
    size_t tb = 0;
    unsigned long long u[2] = {0, 0};
    char msg[400];
    sort_data *d = calloc(1, sizeof *d);
    if (!d) {
        status_set_message("out of host memory");
        return STATUS_ERROR;
    }
    c->data = d;
    d->is_float = sort_is_float(c->pc);
    CK_CUDA(cudaMalloc(&d->in, (size_t)n * 4));
    CK_CUDA(cudaMalloc(&d->out, (size_t)n * 4));
    CK_CUDA(cudaMalloc(&d->ref, (size_t)n * 4));
    CK_CUDA(cudaMalloc((void **)&d->usums, 4 * sizeof(unsigned long long)));
    if (shim_cub_sort_temp_bytes(n, &tb, msg, sizeof msg)) {
        status_set_message("shim_cub_sort_temp_bytes: %s", msg);
        return STATUS_ERROR;
    }
    CK_CUDA(cudaMalloc(&d->ref_temp, tb ? tb : 16));
    if (inputs_reset(dv->rng, c->seed) ||
        (d->is_float ? inputs_uniform_pm1(dv->rng, (float *)d->in, (size_t)n, s)
                     : inputs_u32(dv->rng, (uint32_t *)d->in, (size_t)n)))
        return STATUS_ERROR;
    /* the reference: the library's sorted output, itself checked for order */
    if (d->is_float ? shim_cub_sort_f32(d->in, d->ref, n, d->ref_temp, tb, 64, s, msg, sizeof msg)
                    : shim_cub_sort_u32(d->in, d->ref, n, d->ref_temp, tb, 64, s, msg, sizeof msg)) {
        status_set_message("reference sort (cub): %s", msg);
        return STATUS_ERROR;
    }
    CK_CUDA(cudaMemsetAsync(d->usums, 0, 2 * sizeof(unsigned long long), s));
    CK_LAUNCH(gpucheck_count_unsorted(d->ref, (size_t)n, d->is_float, d->usums, s));
    CK_CUDA(cudaMemcpyAsync(u, d->usums, sizeof u, cudaMemcpyDeviceToHost, s));
    CK_CUDA(cudaStreamSynchronize(s));
    if (u[0] != 0) {
        status_set_message("the reference sort is not sorted (%llu descents)", u[0]);
        return STATUS_ERROR;
    }
    return STATUS_OK;
}

/* 0xFFFFFFFF is a valid key, but never the whole sorted output of random
 * data, and the comparison is element for element */
static int sort_poison(op_case *c)
{
    sort_data *d = c->data;
    CK_CUDA(cudaMemsetAsync(d->out, 0xff, (size_t)c->pc->elems * 4, c->dev->stream));
    return STATUS_OK;
}

static int sort_verify(op_case *c, const variant *v, result_row *r)
{
    sort_data *d = c->data;
    cudaStream_t s = c->dev->stream;
    unsigned long long u[2] = {0, ~0ULL};
    (void)v;
    CK_CUDA(cudaMemcpyAsync(d->usums, u, sizeof u, cudaMemcpyHostToDevice, s));
    CK_LAUNCH(gpucheck_compare_keys(d->out, d->ref, (size_t)c->pc->elems, d->is_float, d->usums, s));
    CK_CUDA(cudaMemcpyAsync(u, d->usums, sizeof u, cudaMemcpyDeviceToHost, s));
    CK_CUDA(cudaStreamSynchronize(s));
    r->rel_err = (double)u[0] / (double)c->pc->elems;
    r->tolerance = 0.0;
    if (u[0] == 0) return STATUS_OK;
    snprintf(r->message, sizeof r->message, "%llu of %lld keys differ from the library's sort (first at %llu)", u[0],
             c->pc->elems, u[1]);
    return STATUS_FAIL;
}

static void sort_fill_row(const op_case *c, const variant *v, result_row *r)
{
    (void)v;
    r->elems = c->pc->elems;
    r->math = c->pc->type;
    r->bytes = 8.0 * (double)c->pc->elems; /* each key read once and written once */
}

// ---------------------------------------------------------------------------
// adapters

static int v_sort_hand(const op_case *c, const variant *v, cudaStream_t s)
{
    const sort_data *d = c->data;
    if (d->is_float)
        CK_LAUNCH(((sort_f32_fn)v->fn2)(d->in, d->out, c->pc->elems, c->workspace, c->workspace_bytes, s));
    else
        CK_LAUNCH(((sort_u32_fn)v->fn)(d->in, d->out, c->pc->elems, c->workspace, c->workspace_bytes, s));
    return STATUS_OK;
}

static size_t v_sort_scratch(const plan_case *pc, const variant *v)
{
    return ((sort_scratch_fn)v->aux)(pc->elems);
}

/* thrust::sort sorts in place: the unsorted keys are copied into the output
 * buffer before each run, untimed (a user's data is already in place). */
static int v_thrust_prepare(const op_case *c, const variant *v, cudaStream_t s)
{
    const sort_data *d = c->data;
    (void)v;
    CK_CUDA(cudaMemcpyAsync(d->out, d->in, (size_t)c->pc->elems * 4, cudaMemcpyDeviceToDevice, s));
    return STATUS_OK;
}

static int v_thrust(const op_case *c, const variant *v, cudaStream_t s)
{
    const sort_data *d = c->data;
    char msg[400];
    (void)v;
    int rc = d->is_float ? shim_thrust_sort_f32(d->out, c->pc->elems, s, msg, sizeof msg)
                         : shim_thrust_sort_u32(d->out, c->pc->elems, s, msg, sizeof msg);
    if (rc) status_set_message("shim_thrust_sort: %s", msg);
    return rc ? STATUS_ERROR : STATUS_OK;
}

/* cub and cub_i32: the same call with 64-bit (num_items as long long) or
 * 32-bit (int) offsets: the offset type picks which instantiation of CUB's
 * onesweep kernels runs. */
static int v_cub_bits(const op_case *c, int bits, cudaStream_t s)
{
    const sort_data *d = c->data;
    char msg[400];
    int rc = d->is_float ? shim_cub_sort_f32(d->in, d->out, c->pc->elems, c->workspace, c->workspace_bytes, bits, s,
                                             msg, sizeof msg)
                         : shim_cub_sort_u32(d->in, d->out, c->pc->elems, c->workspace, c->workspace_bytes, bits, s,
                                             msg, sizeof msg);
    if (rc) status_set_message("shim_cub_sort: %s", msg);
    return rc ? STATUS_ERROR : STATUS_OK;
}

static int v_cub(const op_case *c, const variant *v, cudaStream_t s)
{
    (void)v;
    return v_cub_bits(c, 64, s);
}

static int v_cub_i32(const op_case *c, const variant *v, cudaStream_t s)
{
    (void)v;
    return v_cub_bits(c, 32, s);
}

static size_t v_cub_temp(const plan_case *pc, const variant *v)
{
    (void)v;
    return sort_cub_temp(pc->elems);
}

// ---------------------------------------------------------------------------
// the variant table

#define SORT_THRUST_NOTE                                                                                         \
    "thrust::sort allocates and frees its temporary storage and synchronises the stream on every " \
    "call: both are in its time"

#define SORT_ROW(name, u32, f32, scratch, about)                                                     \
    {.info = {"sort", #name, 0, "types", NULL, 0, "builtin", about}, .run = v_sort_hand, .fn = (variant_fn)u32, \
     .fn2 = (variant_fn)f32, .aux = (variant_fn)scratch, .workspace = v_sort_scratch},

static const variant sort_variants[] = {
    {.info = {"sort", "thrust", 1, "types", NULL, 0, "builtin",
              "thrust::sort in place, as a user calls it (host costs timed)"},
     .run = v_thrust, .prepare = v_thrust_prepare, .host_sync = 1, .note = SORT_THRUST_NOTE},
    {.info = {"sort", "cub", 1, "types", NULL, 0, "builtin",
              "cub::DeviceRadixSort::SortKeys, num_items as long long: 64-bit offsets, the kernels thrust::sort runs"},
     .run = v_cub, .workspace = v_cub_temp},
    {.info = {"sort", "cub_i32", 1, "types", NULL, 0, "builtin",
              "cub::DeviceRadixSort::SortKeys, num_items as int: 32-bit offsets, another instantiation"},
     .run = v_cub_i32, .workspace = v_cub_temp},
    SORT_HAND_ROWS(SORT_ROW)
};

/* a plugin row: type u32 or f32 (rows of one name make one variant over
 * the key types); input the keys, output the sorted keys (compare_plugin.h) */
static void sort_plugin_bind(const plan_case *pc, const op_case *c, op_plugin_binding *b)
{
    const sort_data *d = c ? c->data : NULL;
    (void)pc;
    if (d) op_plugin_slots(b, d->in, NULL, d->out, NULL);
}

static const op_plugin_spec sort_plugin = {
    {{"u32", "types", NULL}, {"f32", "types", NULL}},
    sort_plugin_bind,
    0,
    "input in (elems keys); output out (elems keys)",
};

const op_desc op_sort = {
    {.name = "sort",
     .size_kind = OP_SIZE_ELEMS,
     .rate = OP_RATE_GKEYS,
     .peak = OP_PEAK_NONE,
     .ref_library = "thrust",
     .best_library = "cub",
     .types = {"u32", "f32"},
     .about = "32-bit keys ascending, u32 and f32 (Gkeys/s)",
     .axes = {OP_AXIS_ELEMS, OP_AXIS_TYPE}},
    sort_variants,
    (int)(sizeof sort_variants / sizeof sort_variants[0]),
    sort_case_bytes,
    sort_setup,
    sort_poison,
    sort_verify,
    sort_fill_row,
    sort_teardown,
    &sort_plugin,
};
