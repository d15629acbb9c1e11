/* src/gpu/op_attention.c: the attention op (forward),
 *     O = softmax(Q K^T * scale [+ causal mask]) V
 * in fp16 or bf16 with FP32 softmax and accumulation, layout BHSD, the
 * bottom-right causal mask (kernels/attention.h: the launcher contract), and
 * its variants: cuDNN's fused SDPA (cudnn_sdpa, the reference library) and
 * cuBLAS without a fused kernel (cublas_unfused) as the libraries, then the
 * hand ladder naive -> fa1 -> fa2 -> fa3 (kernels/attention_*.cu; each rung's idea
 * in its header).
 *
 * Axes: batch, heads, seq_q, seq_kv, head_dim (1..256; the ladder's kernels
 * take 64, 128, 256), causal (0, 1), type (bf16, fp16). The default run is
 * short: batch 1, heads 16, seq 2048, head_dim 128, causal 0 and 1, bf16.
 * scale = 1 / sqrt(head_dim) (as a float: the kernels and the reference get
 * the same value).
 *
 * Inputs (cuRAND, seeded; made in FP32 and rounded once on the device to
 * the type, so the reference reads what the kernels read): V uniform in
 * (-1, 1]; Q and K uniform in (-ATTENTION_QK_RANGE, ATTENTION_QK_RANGE], so
 * that a score scale * q.k has variance d (R^2 / 3)^2 / d = R^4 / 9: its
 * standard deviation about 2 at R = 2.5, and the softmax over a row spans
 * many orders of magnitude instead of being flat (with R = 1 it would be
 * 1/3: every key weighted almost alike, and a kernel that mixes up the
 * weights would hardly change the output).
 *
 * Reference and verification: src/gpu/attention_ref.h (FP64 on the GPU,
 * a documented sample of query rows for long sequences, every (batch,
 * head)), the rule src/core/verify_attention.h. O is poisoned (NaN) before
 * each checked run; NaN/Inf anywhere in O fails.
 *
 * Rate: TFLOP/s with 4 b h sq skv d FLOPs, halved when causal
 * (verify_attention_flops); %peak against the dense tensor peak of the type
 * (the row's math is the type). Bytes: Q, K, V read and O written once.
 *
 * Adding a hand kernel = its .cu exporting the launcher and supports query
 * of kernels/attention.h + one ATTENTION_HAND_ROW below. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "attention.h"
#include "attention_cublas.h"
#include "attention_ref.h"
#include "attention_wrong.h"
#include "candidates.h"
#include "check.h"
#include "convert_kernels.h"
#include "cudnn_sdpa.h"
#include "inputs.h"
#include "kernel_ran.h"
#include "op.h"
#include "verify_attention.h"
#include "verify_kernels.h"

#define ATTENTION_QK_RANGE 2.5f

typedef int (*attention_supports_fn)(const attention_args *a, char *why, size_t why_len);
typedef size_t (*attention_workspace_fn)(const attention_args *a);

typedef struct {
    attention_args a;          /* sizes and buffers (workspace: none; each call gets its slice) */
    double *ref, *srow;        /* the reference of the checked rows, each row's scale */
    double *scratch;           /* the reference's scores (ref_blocks x seq_kv) */
    long long *rows;           /* the checked query rows (device) */
    long long count;           /* how many */
    int ref_blocks;
    unsigned long long *words; /* [0..4): attention_errors' result, [4]: s_abs (bits), [5]: one o element */
    double s_abs;              /* the largest scale * sum |q k| of a checked score */
    cudnn_sdpa_plan *sdpa;     /* the cudnn_sdpa row's plan, made by its first prepare */
} attention_data;

/* The case's sizes as launcher arguments, without buffers. */
static attention_args attention_args_of(const plan_case *pc)
{
    attention_args a;
    memset(&a, 0, sizeof a);
    a.batch = plan_case_axis(pc, "batch");
    a.heads = plan_case_axis(pc, "heads");
    a.seq_q = plan_case_axis(pc, "seq_q");
    a.seq_kv = plan_case_axis(pc, "seq_kv");
    a.head_dim = plan_case_axis(pc, "head_dim");
    a.causal = plan_case_axis(pc, "causal") != 0;
    a.scale = 1.0f / sqrtf((float)a.head_dim);
    a.type = elem_type_from_name(pc->type);
    return a;
}

static int attention_ref_blocks(long long items)
{
    return (int)(items < ATTENTION_REF_MAX_BLOCKS ? items : ATTENTION_REF_MAX_BLOCKS);
}

static size_t attention_case_bytes(const plan_case *pc)
{
    const attention_args a = attention_args_of(pc);
    const double bh = (double)(a.batch * a.heads), nq = bh * a.seq_q * a.head_dim, nk = bh * a.seq_kv * a.head_dim;
    const double count = (double)verify_attention_row_count(a.seq_q);
    const double blocks = attention_ref_blocks(a.batch * a.heads * (long long)count);
    /* Q, O, K, V in the type; the FP32 scratch of the inputs (set-up only); the
     * reference, its row scales and rows; the reference's score scratch */
    return (size_t)(2 * (nq + nk) * 2 + (nq > nk ? nq : nk) * 4 + bh * count * (a.head_dim + 1) * 8 + count * 8 +
                    blocks * a.seq_kv * 8) + 4096;
}

static void attention_teardown(op_case *c)
{
    attention_data *d = c->data;
    if (!d) return;
    cudnn_sdpa_plan_free(d->sdpa);
    cudaFree((void *)d->a.q);
    cudaFree((void *)d->a.k);
    cudaFree((void *)d->a.v);
    cudaFree(d->a.o);
    cudaFree(d->ref);
    cudaFree(d->srow);
    cudaFree(d->scratch);
    cudaFree(d->rows);
    cudaFree(d->words);
    free(d);
    c->data = NULL;
}

/* n values of the type into x: uniform in (-range, range] made in FP32 in
 * f, rounded on the device */
static int attention_input(op_case *c, void *x, float *f, size_t n, float range)
{
    cudaStream_t s = c->dev->stream;
    if (inputs_uniform_pm1(c->dev->rng, f, n, s)) return STATUS_ERROR;
    if (range != 1.0f) CK_LAUNCH(gpucheck_affine(f, n, range, 0.0f, s));
    CK_LAUNCH(convert_from_f32(c->pc->type, f, x, (long long)n, s));
    return STATUS_OK;
}

static int attention_setup(op_case *c)
{
    const plan_case *pc = c->pc;
    cudaStream_t s = c->dev->stream;
    attention_data *d = calloc(1, sizeof *d);
    long long *rows = NULL;
    float *f = NULL;
    unsigned long long bits = 0;
    int st = STATUS_ERROR;
    if (!d) {
        status_set_message("out of host memory");
        return STATUS_ERROR;
    }
    c->data = d;
    d->a = attention_args_of(pc);
    const attention_args *a = &d->a;
    const long long bh = a->batch * a->heads;
    const size_t nq = (size_t)(bh * a->seq_q * a->head_dim), nk = (size_t)(bh * a->seq_kv * a->head_dim);
    if ((a->type != ELEM_FP16 && a->type != ELEM_BF16) || bh < 1 || a->seq_q < 1 || a->seq_kv < 1 ||
        a->head_dim < 1 || a->head_dim > 256) {
        status_set_message("attention: bad case (type %s, %s)", pc->type ? pc->type : "(none)", pc->shape);
        return STATUS_ERROR;
    }
    d->count = verify_attention_row_count(a->seq_q);
    d->ref_blocks = attention_ref_blocks(bh * d->count);
    CK_CUDA(cudaMalloc((void **)&d->a.q, nq * 2));
    CK_CUDA(cudaMalloc((void **)&d->a.k, nk * 2));
    CK_CUDA(cudaMalloc((void **)&d->a.v, nk * 2));
    CK_CUDA(cudaMalloc(&d->a.o, nq * 2));
    CK_CUDA(cudaMalloc((void **)&d->ref, (size_t)(bh * d->count * a->head_dim) * sizeof(double)));
    CK_CUDA(cudaMalloc((void **)&d->srow, (size_t)(bh * d->count) * sizeof(double)));
    CK_CUDA(cudaMalloc((void **)&d->scratch, (size_t)d->ref_blocks * (size_t)a->seq_kv * sizeof(double)));
    CK_CUDA(cudaMalloc((void **)&d->rows, (size_t)d->count * sizeof(long long)));
    CK_CUDA(cudaMalloc((void **)&d->words, 8 * sizeof(unsigned long long)));
    rows = malloc((size_t)d->count * sizeof *rows);
    if (!rows) {
        status_set_message("out of host memory");
        return STATUS_ERROR;
    }
    for (long long r = 0; r < d->count; r++) rows[r] = verify_attention_row(a->seq_q, r);
    if (check_cuda_status(cudaMalloc((void **)&f, (nq > nk ? nq : nk) * sizeof(float)), "cudaMalloc(scratch)",
                          __FILE__, __LINE__) ||
        check_cuda_status(cudaMemcpyAsync(d->rows, rows, (size_t)d->count * sizeof *rows, cudaMemcpyHostToDevice, s),
                          "cudaMemcpyAsync(rows)", __FILE__, __LINE__) ||
        inputs_reset(c->dev->rng, c->seed) || attention_input(c, (void *)a->q, f, nq, ATTENTION_QK_RANGE) ||
        attention_input(c, (void *)a->k, f, nk, ATTENTION_QK_RANGE) || attention_input(c, (void *)a->v, f, nk, 1.0f) ||
        check_cuda_status(cudaMemsetAsync(d->words, 0, 8 * sizeof(unsigned long long), s), "cudaMemsetAsync(words)",
                          __FILE__, __LINE__) ||
        check_cuda_status((cudaError_t)attention_ref(a, d->rows, d->count, d->ref, d->srow, d->scratch, d->ref_blocks,
                                                     &d->words[4], s),
                          "attention_ref", __FILE__, __LINE__) ||
        check_cuda_status(cudaMemcpyAsync(&bits, &d->words[4], sizeof bits, cudaMemcpyDeviceToHost, s),
                          "cudaMemcpyAsync(s_abs)", __FILE__, __LINE__) ||
        check_cuda_status(cudaStreamSynchronize(s), "cudaStreamSynchronize", __FILE__, __LINE__))
        goto done;
    memcpy(&d->s_abs, &bits, sizeof d->s_abs);
    st = STATUS_OK;
done:
    cudaFree(f); /* after the synchronisation (or an error that ends the case) */
    free(rows);
    return st;
}

static int attention_poison(op_case *c)
{
    attention_data *d = c->data;
    const attention_args *a = &d->a;
    CK_CUDA(cudaMemsetAsync(a->o, 0xff, (size_t)(a->batch * a->heads * a->seq_q * a->head_dim) * 2, c->dev->stream));
    return STATUS_OK;
}

static int attention_verify(op_case *c, const variant *v, result_row *r)
{
    attention_data *d = c->data;
    const attention_args *a = &d->a;
    cudaStream_t s = c->dev->stream;
    const double tol = verify_attention_tolerance(c->pc->type, a->seq_kv, a->head_dim, d->s_abs);
    unsigned long long h[4] = {0, ~0ULL, 0, 0};
    double worst, got = NAN, want = NAN, scale = NAN;
    verify_verdict vd;
    (void)v;
    CK_CUDA(cudaMemcpyAsync(d->words, h, sizeof h, cudaMemcpyHostToDevice, s));
    CK_LAUNCH(attention_errors(a, d->rows, d->count, d->ref, d->srow, tol, d->words, s));
    CK_CUDA(cudaMemcpyAsync(h, d->words, sizeof h, cudaMemcpyDeviceToHost, s));
    CK_CUDA(cudaStreamSynchronize(s));
    memcpy(&worst, &h[2], sizeof worst);
    verify_attention_judge(worst, (long long)h[3], c->pc->type, a->seq_kv, a->head_dim, d->s_abs, &vd);
    r->rel_err = vd.rel_err;
    r->tolerance = vd.tolerance;
    if (vd.pass) return STATUS_OK;
    const long long dim = a->head_dim, at = h[1] != ~0ULL ? (long long)h[1] : -1;
    const long long item = at >= 0 ? at / dim : 0, col = at >= 0 ? at % dim : -1;
    const long long bh = item / d->count, row = at >= 0 ? verify_attention_row(a->seq_q, item % d->count) : -1;
    if (at >= 0) {
        /* the first element off: its value, the reference's, the row's scale */
        const size_t o_at = (size_t)((bh * a->seq_q + row) * dim + col) * 2;
        CK_LAUNCH(convert_to_f64(c->pc->type, (const char *)a->o + o_at, (double *)&d->words[5], 1, s));
        CK_CUDA(cudaMemcpyAsync(&got, &d->words[5], sizeof got, cudaMemcpyDeviceToHost, s));
        CK_CUDA(cudaMemcpyAsync(&want, d->ref + at, sizeof want, cudaMemcpyDeviceToHost, s));
        CK_CUDA(cudaMemcpyAsync(&scale, d->srow + item, sizeof scale, cudaMemcpyDeviceToHost, s));
        CK_CUDA(cudaStreamSynchronize(s));
    }
    snprintf(r->message, sizeof r->message,
             "%llu of %lld checked elements off (%llu NaN/Inf in all of O); first at (batch, head) %lld row %lld "
             "col %lld: %.6g, reference %.6g (row scale %.3g); max err %.3g of the row's largest |v| (tolerance %.3g)",
             h[0], a->batch * a->heads * d->count * dim, h[3], at >= 0 ? bh : -1LL, row, col, got, want, scale,
             vd.rel_err, vd.tolerance);
    return STATUS_FAIL;
}

static void attention_fill_row(const op_case *c, const variant *v, result_row *r)
{
    const attention_args a = attention_args_of(c->pc);
    (void)v;
    r->math = c->pc->type;
    r->flops = verify_attention_flops(a.batch, a.heads, a.seq_q, a.seq_kv, a.head_dim, a.causal);
    /* Q and K, V read once, O written once */
    r->bytes = 2.0 * (double)(a.batch * a.heads) * (double)a.head_dim * 2.0 * (double)(a.seq_q + a.seq_kv);
}

// ---------------------------------------------------------------------------
// adapters

/* the case's arguments with the buffers and this call's workspace slice */
static attention_args attention_call_args(const op_case *c)
{
    const attention_data *d = c->data;
    attention_args a = d->a;
    a.workspace = c->workspace;
    a.workspace_bytes = c->workspace_bytes;
    return a;
}

/* candidates.h: the arguments of a running case for the candidate rows
 * (family fa3, src/gpu/op_attention_candidates.c), and of a planned one
 * for their workspace query */
attention_args op_attention_case_args(const op_case *c)
{
    return attention_call_args(c);
}

attention_args op_attention_plan_args(const plan_case *pc)
{
    return attention_args_of(pc);
}

/* hand rows: v->fn the launcher, v->aux its supports query, v->fn2 its
 * workspace query (NULL: none) */
static int v_hand(const op_case *c, const variant *v, cudaStream_t s)
{
    const attention_args a = attention_call_args(c);
    CK_LAUNCH(((attention_launcher)v->fn)(&a, s));
    return STATUS_OK;
}

static int v_hand_supports(const plan_case *pc, const device_info *dev, const variant *v, char *why, size_t len)
{
    const attention_args a = attention_args_of(pc);
    (void)dev;
    return v->aux ? ((attention_supports_fn)v->aux)(&a, why, len) : 1;
}

static size_t v_hand_workspace(const plan_case *pc, const variant *v)
{
    const attention_args a = attention_args_of(pc);
    return v->fn2 ? ((attention_workspace_fn)v->fn2)(&a) : 0;
}

static int v_unfused(const op_case *c, const variant *v, cudaStream_t s)
{
    const attention_args a = attention_call_args(c);
    (void)v;
    return attention_cublas_run(c->dev->blas, &a, s);
}

/* cudnn_sdpa: the plan made by the row's first prepare (untimed), then only
 * its execution is timed */
static int v_sdpa_prepare(const op_case *c, const variant *v, cudaStream_t s)
{
    attention_data *d = c->data;
    (void)v;
    if (d->sdpa) return STATUS_OK;
    return cudnn_sdpa_plan_make(&d->sdpa, &d->a, s);
}

static int v_sdpa(const op_case *c, const variant *v, cudaStream_t s)
{
    const attention_data *d = c->data;
    (void)v;
    kernel_ran_note(cudnn_sdpa_plan_name(d->sdpa), NULL);
    return cudnn_sdpa_plan_run(d->sdpa, s);
}

/* test only: the naive rung with the causal mask dropped */
static int v_test_nomask(const op_case *c, const variant *v, cudaStream_t s)
{
    attention_args a = attention_call_args(c);
    (void)v;
    a.causal = 0;
    CK_LAUNCH(attention_naive(&a, s));
    return STATUS_OK;
}

static int v_test_nomask_supports(const plan_case *pc, const device_info *dev, const variant *v, char *why,
                                  size_t len)
{
    const attention_args a = attention_args_of(pc);
    (void)dev;
    (void)v;
    if (a.causal) return attention_naive_supports(&a, why, len);
    snprintf(why, len, "test_nomask plants its error in the causal mask: causal cases only");
    return 0;
}

static int v_test_norescale_supports(const plan_case *pc, const device_info *dev, const variant *v, char *why,
                                     size_t len)
{
    const attention_args a = attention_args_of(pc);
    (void)dev;
    (void)v;
    if (a.seq_kv <= ATTENTION_WRONG_MAX_SEQ && a.seq_q <= ATTENTION_WRONG_MAX_SEQ) return 1;
    snprintf(why, len, "test_norescale recomputes every score per column: seq_q, seq_kv <= %d only",
             ATTENTION_WRONG_MAX_SEQ);
    return 0;
}

// ---------------------------------------------------------------------------
// the variant table

#define ATTENTION_HAND_ROW(name, launcher, query, ws, about)                                                \
    {.info = {"attention", #name, 0, "types", NULL, 0, "builtin", about}, .run = v_hand,                    \
     .fn = (variant_fn)launcher, .aux = (variant_fn)query, .fn2 = (variant_fn)ws, .workspace = v_hand_workspace, \
     .supports = v_hand_supports},

static const variant attention_variants[] = {
    {.info = {"attention", "cudnn_sdpa", 1, "types", NULL, 0, "builtin",
              "cuDNN's fused flash attention forward (SDPA), its plan built once per case in the untimed setup"},
     .run = v_sdpa, .prepare = v_sdpa_prepare, .supports = v_hand_supports, .aux = (variant_fn)cudnn_sdpa_supports,
     .kernel = "cudnn_sdpa"},
    {.info = {"attention", "cublas_unfused", 1, "types", NULL, 0, "builtin",
              "no fused kernel: cublasGemmStridedBatchedEx S = QK^T (FP32), the mask, softmax_fused in place, P in "
              "the type, a second batched GEMM for O; S and P materialised: 6 seq_q seq_kv bytes per (batch, head), "
              "groups of pairs within 4 GiB"},
     .run = v_unfused, .aux = (variant_fn)attention_cublas_supports, .fn2 = (variant_fn)attention_cublas_workspace,
     .workspace = v_hand_workspace, .supports = v_hand_supports,
     .kernel = "cublasGemmStridedBatchedEx x2 + softmax_fused"},
    ATTENTION_HAND_ROW(naive, attention_naive, attention_naive_supports, attention_naive_workspace,
                       "three kernels, S materialised in FP32: scores, row softmax, P V")
    ATTENTION_HAND_ROW(fa1, attention_fa1, attention_fa1_supports, NULL,
                       "tiled over K/V with the online softmax, a block per (batch, head, q tile), mma.sync")
    ATTENTION_HAND_ROW(fa2, attention_fa2, attention_fa2_supports, NULL,
                       "warps split the q tile, the softmax in registers, one rescale per K/V tile, ldmatrix")
    ATTENTION_HAND_ROW(fa3, attention_fa3, attention_fa3_supports, attention_fa3_workspace,
                       "Hopper: TMA K/V ring from a producer warp, wgmma for both GEMMs, consumer warpgroups "
                       "in ping-pong, 3 at head_dim 64, 2 at 128, 256 (sm_90a)")
    {.info = {"attention", "test_norescale", 0, "types", NULL, 1, "builtin",
              "test only: the online softmax without the rescale when the running max grows"},
     .run = v_hand, .fn = (variant_fn)attention_test_norescale, .supports = v_test_norescale_supports},
    {.info = {"attention", "test_nomask", 0, "types", NULL, 1, "builtin",
              "test only: the naive rung with the causal mask dropped (causal cases)"},
     .run = v_test_nomask, .fn2 = (variant_fn)attention_naive_workspace, .workspace = v_hand_workspace,
     .supports = v_test_nomask_supports},
};

const op_desc op_attention = {
    {.name = "attention",
     .size_kind = OP_SIZE_MATRIX,
     .rate = OP_RATE_TFLOPS,
     .peak = OP_PEAK_COMPUTE,
     .ref_library = "cudnn_sdpa",
     .best_library = "cudnn_sdpa",
     .types = {"bf16", "fp16"},
     .about = "attention forward O = softmax(Q K^T / sqrt(d) [+ causal mask]) V, BHSD, fp16 / bf16, FP32 softmax "
              "and accumulation (TFLOP/s of 4 b h sq skv d, half when causal)",
     .axes = {{"batch", OP_AXIS_INT, "1", 1, 1LL << 16, {NULL}, 0, "batch size (B of BHSD)"},
              {"heads", OP_AXIS_INT, "16", 1, 1024, {NULL}, 0, "attention heads (H)"},
              {"seq_q", OP_AXIS_INT, "2048", 1, 1LL << 20, {NULL}, 0, "query rows per (batch, head)"},
              {"seq_kv", OP_AXIS_INT, "2048", 1, 1LL << 20, {NULL}, 0,
               "key/value rows per (batch, head) (set it with seq_q: --axis seq_q=4096 --axis seq_kv=4096)"},
              {"head_dim", OP_AXIS_INT, "128", 1, 256, {NULL}, 0, "head dimension d (the ladder: 64, 128, 256)"},
              {"causal", OP_AXIS_INT, "0,1", 0, 1, {NULL}, 0, "1: query i sees keys j <= i + seq_kv - seq_q"},
              {"type", OP_AXIS_ENUM, "bf16", 0, 0, {NULL}, 0,
               "element type of Q, K, V, O (bf16, fp16: --axis type=fp16), FP32 softmax and accumulation"}}},
    attention_variants,
    (int)(sizeof attention_variants / sizeof attention_variants[0]),
    attention_case_bytes,
    attention_setup,
    attention_poison,
    attention_verify,
    attention_fill_row,
    attention_teardown,
    NULL,
};
