/* src/gpu/op_histogram.c: the histogram op and its variants, two forms (the
 * case's type) and one case per input distribution (--dist):
 *   u8   256 bins over bytes (bin = the byte);
 *   f32  1024 equal bins over [lo, hi) = [-1, 1) (the bin rule of
 *        kernels/histogram.h, which is cub's).
 * Inputs, from cuRAND words (gpucheck_hist_inputs_*, src/gpu/verify_kernels.h):
 * "uniform" (uniform bytes, uniform floats on a 2^-23 grid in
 * [-1, 1 - 2^-23]) and "skewed" (90% of the elements in 4 hot bins). Every f32 input lies in range and none rounds
 * onto the upper edge, where cub and the hand kernels are allowed to differ.
 * Reference: the counts made on the CPU, once in setup, from a copy of the
 * input (copied back in chunks; the f32 bin computed with the same float
 * operations as histogram.h): independent of every GPU kernel. Verification:
 * every count equal (exact); the bins are poisoned with 0xFF first, although
 * each variant zeroes them itself. Rate: GB/s of input read (n bytes for u8,
 * 4n for f32). Row math = the type, the row's dist = the distribution.
 *
 * Adding a hand histogram = its u8 and f32 launchers with histogram.h's contract
 *     int f_u8(const uint8_t *x, long long n, unsigned int *bins, cudaStream_t s)
 *     int f_f32(const float *x, long long n, float lo, float hi, unsigned int *bins, cudaStream_t s)
 * + one row in HIST_HAND_ROWS below. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "histogram.h"
#include "inputs.h"
#include "op.h"
#include "shim.h"
#include "verify_kernels.h"

#define HIST_LO (-1.0f)
#define HIST_HI 1.0f
#define HIST_GEN_WORDS ((size_t)1 << 22)  /* u8 set-up: cuRAND words made at a time (16 MiB of device memory) */
#define HIST_HOST_CHUNK ((size_t)1 << 24) /* CPU count: bytes copied back at a time */

/* name, u8 launcher, f32 launcher, what it is */
#define HIST_HAND_ROWS(X)                                                                                        \
    X(global_atomic, histogram_global_atomic_u8, histogram_global_atomic_f32, "one global atomicAdd an element")   \
    X(shared_private, histogram_shared_private_u8, histogram_shared_private_f32,                                   \
      "block-private histogram in shared memory, merged with one global atomic a bin")                            \
    X(fast, histogram_fast_u8, histogram_fast_f32, "32 lane-private shared copies (no bank conflicts), 16-byte loads")

typedef struct {
    void *x;                    /* input: n bytes (u8) or n floats (f32) */
    unsigned int *bins;         /* the variants' histogram: HISTOGRAM_F32_BINS counters (u8 uses 256) */
    uint32_t *bits;             /* u8 set-up only: a chunk of cuRAND words (freed at the end of setup) */
    unsigned long long ref[HISTOGRAM_F32_BINS]; /* reference counts (CPU) */
    int is_float, nbins;
} hist_data;

static int hist_is_float(const plan_case *pc) { return pc->type && strcmp(pc->type, "f32") == 0; }

static size_t hist_gen_words(long long n) { return (size_t)n < HIST_GEN_WORDS ? (size_t)n : HIST_GEN_WORDS; }

static size_t hist_case_bytes(const plan_case *pc)
{
    /* input, bins; u8: the chunk of cuRAND words its set-up uses */
    size_t n = (size_t)pc->elems;
    return (hist_is_float(pc) ? n * 4 : n + hist_gen_words(pc->elems) * 4) + HISTOGRAM_F32_BINS * 4 + 4096;
}

static void hist_teardown(op_case *c)
{
    hist_data *d = c->data;
    if (!d) return;
    cudaFree(d->x);
    cudaFree(d->bins);
    cudaFree(d->bits);
    free(d);
    c->data = NULL;
}

static int hist_inputs(op_case *c, hist_data *d, int skewed)
{
    device_ctx *dv = c->dev;
    cudaStream_t s = dv->stream;
    size_t n = (size_t)c->pc->elems, chunk = hist_gen_words(c->pc->elems);
    if (inputs_reset(dv->rng, c->seed)) return STATUS_ERROR;
    if (d->is_float) {
        if (inputs_u32(dv->rng, (uint32_t *)d->x, n)) return STATUS_ERROR;
        CK_LAUNCH(gpucheck_hist_inputs_f32((float *)d->x, n, skewed, s));
        return STATUS_OK;
    }
    /* one cuRAND word a byte, a chunk at a time (all on s: the next chunk's
     * words are made after the previous chunk's kernel read them) */
    CK_CUDA(cudaMalloc((void **)&d->bits, chunk * 4));
    for (size_t at = 0; at < n; at += chunk) {
        size_t cnt = n - at < chunk ? n - at : chunk;
        if (inputs_u32(dv->rng, d->bits, cnt)) return STATUS_ERROR;
        CK_LAUNCH(gpucheck_hist_inputs_u8(d->bits, (uint8_t *)d->x + at, cnt, skewed, s));
    }
    return STATUS_OK;
}

/* The f32 bin rule of histogram.h on the host: counted iff lo <= x < hi,
 * bin (int)((x - lo) * r) with every operation in float (C11 on x86-64 and
 * aarch64 evaluates float in float, and ISO mode does not contract) and the
 * conversion truncating; a product that rounds up to the bin count goes to
 * the last bin. -1: not counted. (The set-up's inputs make the subtraction
 * and the product exact anyway.) */
static int hist_bin_f32(float x, float lo, float hi, float r)
{
    if (!(x >= lo && x < hi)) return -1;
    float t = (x - lo) * r;
    int b = (int)t;
    return b < HISTOGRAM_F32_BINS - 1 ? b : HISTOGRAM_F32_BINS - 1;
}

/* Counts the input on the host into d->ref, HIST_HOST_CHUNK bytes at a time
 * through h; *outside: f32 values not counted. */
static int hist_count(op_case *c, hist_data *d, void *h, unsigned long long *outside)
{
    cudaStream_t s = c->dev->stream;
    const size_t n = (size_t)c->pc->elems, esz = d->is_float ? 4 : 1, per = HIST_HOST_CHUNK / esz;
    const float r = (float)HISTOGRAM_F32_BINS / (HIST_HI - HIST_LO); /* as the launchers compute it */
    memset(d->ref, 0, sizeof d->ref);
    *outside = 0;
    for (size_t at = 0; at < n; at += per) {
        size_t cnt = n - at < per ? n - at : per;
        CK_CUDA(cudaMemcpyAsync(h, (const char *)d->x + at * esz, cnt * esz, cudaMemcpyDeviceToHost, s));
        CK_CUDA(cudaStreamSynchronize(s));
        if (d->is_float) {
            const float *x = h;
            for (size_t i = 0; i < cnt; i++) {
                int b = hist_bin_f32(x[i], HIST_LO, HIST_HI, r);
                if (b < 0)
                    (*outside)++;
                else
                    d->ref[b]++;
            }
        } else {
            const uint8_t *x = h;
            for (size_t i = 0; i < cnt; i++) d->ref[x[i]]++;
        }
    }
    return STATUS_OK;
}

static int hist_setup(op_case *c)
{
    const long long n = c->pc->elems;
    const int skewed = c->pc->dist && strcmp(c->pc->dist, "skewed") == 0;
    unsigned long long outside = 0;
    void *h;
    int st;
    hist_data *d = calloc(1, sizeof *d);
    if (!d) {
        status_set_message("out of host memory");
        return STATUS_ERROR;
    }
    c->data = d;
    d->is_float = hist_is_float(c->pc);
    d->nbins = d->is_float ? HISTOGRAM_F32_BINS : HISTOGRAM_U8_BINS;
    CK_CUDA(cudaMalloc(&d->x, (size_t)n * (d->is_float ? 4 : 1)));
    CK_CUDA(cudaMalloc((void **)&d->bins, HISTOGRAM_F32_BINS * 4));
    if (hist_inputs(c, d, skewed) != STATUS_OK) return STATUS_ERROR;
    /* the reference: the CPU's count of a copy of the input */
    h = malloc(HIST_HOST_CHUNK);
    if (!h) {
        status_set_message("out of host memory (%zu bytes for the reference count)", HIST_HOST_CHUNK);
        return STATUS_ERROR;
    }
    st = hist_count(c, d, h, &outside);
    free(h);
    if (st != STATUS_OK) return st;
    /* the stream is idle (hist_count synchronised): the words can go */
    {
        cudaError_t e = cudaFree(d->bits);
        d->bits = NULL;
        CK_CUDA(e);
    }
    if (outside) {
        status_set_message("histogram inputs: %llu of %lld floats outside [%g, %g)", outside, n, (double)HIST_LO,
                           (double)HIST_HI);
        return STATUS_ERROR;
    }
    for (int b = 0; b < d->nbins; b++)
        if (d->ref[b] > 0xffffffffULL) {
            status_set_message("bin %d holds %llu elements: the 32-bit counters would wrap", b, d->ref[b]);
            return STATUS_ERROR;
        }
    return STATUS_OK;
}

static int hist_poison(op_case *c)
{
    hist_data *d = c->data;
    CK_CUDA(cudaMemsetAsync(d->bins, 0xff, HISTOGRAM_F32_BINS * 4, c->dev->stream));
    return STATUS_OK;
}

static int hist_verify(op_case *c, const variant *v, result_row *r)
{
    hist_data *d = c->data;
    cudaStream_t s = c->dev->stream;
    unsigned int got[HISTOGRAM_F32_BINS];
    unsigned long long off = 0;
    int bad = 0, first = 0;
    (void)v;
    CK_CUDA(cudaMemcpyAsync(got, d->bins, (size_t)d->nbins * 4, cudaMemcpyDeviceToHost, s));
    CK_CUDA(cudaStreamSynchronize(s));
    for (int b = 0; b < d->nbins; b++) {
        if (got[b] == d->ref[b]) continue;
        if (!bad++) first = b;
        off += got[b] > d->ref[b] ? got[b] - d->ref[b] : d->ref[b] - got[b];
    }
    r->rel_err = (double)off / (double)c->pc->elems; /* counts off, per element */
    r->tolerance = 0.0;
    if (bad == 0) return STATUS_OK;
    snprintf(r->message, sizeof r->message,
             "%d of %d bins differ from the CPU count (first: bin %d = %u, expected %llu)",
             bad, d->nbins, first, got[first], d->ref[first]);
    return STATUS_FAIL;
}

static void hist_fill_row(const op_case *c, const variant *v, result_row *r)
{
    (void)v;
    r->elems = c->pc->elems;
    r->math = c->pc->type;
    r->dist = c->pc->dist;
    r->bytes = (double)c->pc->elems * (hist_is_float(c->pc) ? 4.0 : 1.0); /* the input, read once */
}

// ---------------------------------------------------------------------------
// adapters

static int v_hist_hand(const op_case *c, const variant *v, cudaStream_t s)
{
    const hist_data *d = c->data;
    if (d->is_float)
        CK_LAUNCH(((histogram_f32_launcher)v->fn2)(d->x, c->pc->elems, HIST_LO, HIST_HI, d->bins, s));
    else
        CK_LAUNCH(((histogram_u8_launcher)v->fn)(d->x, c->pc->elems, d->bins, s));
    return STATUS_OK;
}

static int v_cub(const op_case *c, const variant *v, cudaStream_t s)
{
    const hist_data *d = c->data;
    char msg[400];
    (void)v;
    int rc = d->is_float ? shim_cub_histogram_f32(d->x, c->pc->elems, HIST_LO, HIST_HI, HISTOGRAM_F32_BINS, d->bins,
                                                  c->workspace, c->workspace_bytes, s, msg, sizeof msg)
                         : shim_cub_histogram_u8(d->x, c->pc->elems, d->bins, c->workspace, c->workspace_bytes, s,
                                                 msg, sizeof msg);
    if (rc) status_set_message("shim_cub_histogram: %s", msg);
    return rc ? STATUS_ERROR : STATUS_OK;
}

static size_t v_cub_temp(const plan_case *pc, const variant *v)
{
    size_t b = 0;
    char msg[256];
    (void)v;
    int rc = hist_is_float(pc)
                 ? shim_cub_histogram_f32_temp_bytes(pc->elems, HISTOGRAM_F32_BINS, &b, msg, sizeof msg)
                 : shim_cub_histogram_u8_temp_bytes(pc->elems, &b, msg, sizeof msg);
    /* a failed query shows again, with its message, when the variant runs;
     * never 0: a NULL temp pointer would make the call a size query */
    return rc ? (1u << 20) : b ? b : 16;
}

/* a plugin row: type u8 or f32 (rows of one name make one variant over both);
 * axis bins; input x, output the bins (compare_plugin.h, which states the
 * f32 range and bin rule above) */
static void hist_plugin_bind(const plan_case *pc, const op_case *c, op_plugin_binding *b)
{
    const hist_data *d = c ? c->data : NULL;
    op_plugin_axis(b, "bins", hist_is_float(pc) ? HISTOGRAM_F32_BINS : HISTOGRAM_U8_BINS);
    if (d) op_plugin_slots(b, d->x, NULL, d->bins, NULL);
}

static const op_plugin_spec hist_plugin = {
    {{"u8", "types", NULL}, {"f32", "types", NULL}},
    hist_plugin_bind,
    0,
    "input x (elems bytes or floats); output bins (bins counters)",
};

// ---------------------------------------------------------------------------
// the variant table

#define HIST_ROW(name, u8, f32, about)                                                                          \
    {.info = {"histogram", #name, 0, "types", NULL, 0, "builtin", about}, .run = v_hist_hand, .fn = (variant_fn)u8, \
     .fn2 = (variant_fn)f32},

static const variant hist_variants[] = {
    {.info = {"histogram", "cub", 1, "types", NULL, 0, "builtin",
              "cub::DeviceHistogram::HistogramEven, temp storage preallocated"},
     .run = v_cub, .workspace = v_cub_temp},
    HIST_HAND_ROWS(HIST_ROW)
};

const op_desc op_histogram = {
    {.name = "histogram",
     .size_kind = OP_SIZE_ELEMS,
     .rate = OP_RATE_GBPS,
     .peak = OP_PEAK_MEMORY,
     .ref_library = "cub",
     .best_library = "cub",
     .types = {"u8", "f32"},
     .axes = {OP_AXIS_ELEMS, OP_AXIS_TYPE, OP_AXIS_DIST},
     .about = "u8: 256 bins over bytes; f32: 1024 bins over [-1, 1); uniform and skewed inputs (GB/s of input read)"},
    hist_variants,
    (int)(sizeof hist_variants / sizeof hist_variants[0]),
    hist_case_bytes,
    hist_setup,
    hist_poison,
    hist_verify,
    hist_fill_row,
    hist_teardown,
    &hist_plugin,
};
