/* src/gpu/op_gemv.c: the gemv op, y = A x with A m x k row-major, in fp32,
 * bf16 and fp16 (FP32 accumulation, y in the type), and its variants.
 *
 * Sizes: axes m and k, fed by the GEMM shape options like sgemm's (each
 * shape's m and k; its n is not used): `--n 8192` runs 8192 x 8192,
 * `--shape 7x1x60000` a 7 x 60000 matrix. Inputs: A and x uniform in (-1, 1]
 * from cuRAND in FP32, rounded once on the device to the type
 * (inputs_uniform_pm1_as). Reference: FP64 over the same rounded values,
 * with each row's scale s_i = sum |A_ij x_j| (src/gpu/gemv_ref.cu).
 * Verification: y poisoned (NaN) before each checked run; EVERY element
 * within |y_i - r_i| <= c_acc s_i + c_out (|r_i| + floor), and the GEMM's
 * Frobenius verdict on the whole (src/core/verify_gemv.h: both from the one
 * tolerance rule, the type's unit roundoff and k). rel_err and tolerance
 * report the Frobenius part; a FAIL message names the elements out of bound.
 * Rate: GB/s of A and x read and y written once each, against the memory
 * bandwidth (%peak).
 *
 * Adding a hand GEMV = its launcher with kernels/gemv.h's contract
 *     int f(const gemv_args *a, cudaStream_t s)
 * + one row in GEMV_HAND_ROWS below (with its scratch query, or NONE). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blas_gemv.h"
#include "check.h"
#include "gemv.h"
#include "gemv_ref.h"
#include "inputs.h"
#include "kernel_ran.h"
#include "op.h"
#include "verify_gemv.h"

size_t gemv_splitk_scratch_bytes(long long m, long long k, int type);

/* name, launcher, scratch query (NONE or the launcher's), what it is */
#define GEMV_HAND_ROWS(X)                                                                                        \
    X(warp, gemv_warp, NONE,                                                                                     \
      "a warp per two long rows (each x load serves both), narrower lane groups for short rows; 16-byte "       \
      "streaming loads, a step in flight; x from L1")                                                           \
    X(splitk, gemv_splitk, gemv_splitk_scratch_bytes,                                                            \
      "short, wide A: a warp per (row, chunk), FP32 partials in scratch, a fixed-order finish pass")

#define GEMV_DECLARE(name, fn, scratch, about) int fn(const gemv_args *a, cudaStream_t s);
GEMV_HAND_ROWS(GEMV_DECLARE)

typedef size_t (*gemv_scratch_fn)(long long m, long long k, int type);

typedef struct {
    void *A, *x, *y;          /* inputs and the variants' output, in the type */
    double *ref, *abs_dot;    /* FP64 reference r_i and row scale s_i */
    double *norms;            /* ||A||_F^2, ||x||^2 (device, for the set-up) */
    gemv_check_sums *sums;    /* the check's results (device) */
    double norm_sq_a, norm_sq_x;
    elem_type type;
    int bytes;                /* bytes of an element */
} gemv_data;

static elem_type gemv_type(const plan_case *pc) { return elem_type_from_name(pc->type ? pc->type : "fp32"); }

static size_t gemv_case_bytes(const plan_case *pc)
{
    const double mk = (double)pc->m * (double)pc->k, b = elem_type_bytes(gemv_type(pc));
    /* A, x, y in the type; r and s in double; the FP32 staging of A for a
     * narrower type (freed after the set-up) */
    return (size_t)(mk * b + (double)pc->k * b + (double)pc->m * (b + 16) + (b < 4 ? mk * 4 : 0)) + 4096;
}

static void gemv_teardown(op_case *c)
{
    gemv_data *d = c->data;
    if (!d) return;
    cudaFree(d->A);
    cudaFree(d->x);
    cudaFree(d->y);
    cudaFree(d->ref);
    cudaFree(d->abs_dot);
    cudaFree(d->norms);
    cudaFree(d->sums);
    free(d);
    c->data = NULL;
}

/* n inputs of the case's type into out, through FP32 staging for the narrower types */
static int gemv_fill(op_case *c, void *out, float *stage, size_t n)
{
    const gemv_data *d = c->data;
    return inputs_uniform_pm1_as(c->dev->rng, c->pc->type, out, d->type == ELEM_FP32 ? (float *)out : stage, n,
                                 c->dev->stream);
}

static int gemv_setup(op_case *c)
{
    const plan_case *pc = c->pc;
    cudaStream_t s = c->dev->stream;
    const size_t m = (size_t)pc->m, k = (size_t)pc->k;
    float *stage = NULL;
    double h[2];
    int st = STATUS_ERROR;
    gemv_data *d = calloc(1, sizeof *d);
    if (!d) {
        status_set_message("out of host memory");
        return STATUS_ERROR;
    }
    c->data = d;
    d->type = gemv_type(pc);
    d->bytes = elem_type_bytes(d->type);
    if (d->bytes == 0 || d->type == ELEM_FP8_E4M3 || d->type == ELEM_FP8_E5M2) {
        status_set_message("gemv: element type %s is not fp32, bf16 or fp16", pc->type ? pc->type : "(none)");
        return STATUS_ERROR;
    }
    if (check_cuda_status(cudaMalloc(&d->A, m * k * d->bytes), "cudaMalloc(A)", __FILE__, __LINE__) ||
        check_cuda_status(cudaMalloc(&d->x, k * d->bytes), "cudaMalloc(x)", __FILE__, __LINE__) ||
        check_cuda_status(cudaMalloc(&d->y, m * d->bytes), "cudaMalloc(y)", __FILE__, __LINE__) ||
        check_cuda_status(cudaMalloc((void **)&d->ref, m * 8), "cudaMalloc(ref)", __FILE__, __LINE__) ||
        check_cuda_status(cudaMalloc((void **)&d->abs_dot, m * 8), "cudaMalloc(abs_dot)", __FILE__, __LINE__) ||
        check_cuda_status(cudaMalloc((void **)&d->norms, 2 * sizeof(double)), "cudaMalloc(norms)", __FILE__,
                          __LINE__) ||
        check_cuda_status(cudaMalloc((void **)&d->sums, sizeof *d->sums), "cudaMalloc(sums)", __FILE__, __LINE__) ||
        (d->type != ELEM_FP32 &&
         check_cuda_status(cudaMalloc((void **)&stage, m * k * 4), "cudaMalloc(staging)", __FILE__, __LINE__)))
        goto done;
    if (inputs_reset(c->dev->rng, c->seed) || gemv_fill(c, d->A, stage, m * k) || gemv_fill(c, d->x, stage, k))
        goto done;
    /* the FP64 reference and ||A||^2, ||x||^2 (the Frobenius verdict's cancellation floor) */
    if (check_cuda_status((cudaError_t)gemv_ref_f64(d->type, d->A, d->x, pc->m, pc->k, d->ref, d->abs_dot, s),
                          "gemv_ref_f64", __FILE__, __LINE__) ||
        check_cuda_status(cudaMemsetAsync(d->norms, 0, 2 * sizeof(double), s), "cudaMemsetAsync", __FILE__,
                          __LINE__) ||
        check_cuda_status((cudaError_t)gemv_ref_sum_sq(d->type, d->A, pc->m * pc->k, &d->norms[0], s),
                          "gemv_ref_sum_sq(A)", __FILE__, __LINE__) ||
        check_cuda_status((cudaError_t)gemv_ref_sum_sq(d->type, d->x, pc->k, &d->norms[1], s), "gemv_ref_sum_sq(x)",
                          __FILE__, __LINE__) ||
        check_cuda_status(cudaMemcpyAsync(h, d->norms, sizeof h, cudaMemcpyDeviceToHost, s), "cudaMemcpyAsync",
                          __FILE__, __LINE__) ||
        check_cuda_status(cudaStreamSynchronize(s), "cudaStreamSynchronize", __FILE__, __LINE__))
        goto done;
    d->norm_sq_a = h[0];
    d->norm_sq_x = h[1];
    st = STATUS_OK;
done:
    cudaFree(stage);
    return st;
}

static int gemv_poison(op_case *c)
{
    gemv_data *d = c->data;
    CK_CUDA(cudaMemsetAsync(d->y, 0xff, (size_t)c->pc->m * d->bytes, c->dev->stream)); /* NaN in every type */
    return STATUS_OK;
}

static int gemv_verify(op_case *c, const variant *v, result_row *r)
{
    gemv_data *d = c->data;
    cudaStream_t s = c->dev->stream;
    gemv_check_sums h;
    verify_gemv_bound b;
    verify_sums sums = {0};
    verify_verdict vd;
    double worst, max_abs;
    (void)v;
    if (verify_gemv_bound_of(c->pc->type, c->pc->k, &b)) {
        status_set_message("gemv: no tolerance rule for type %s", c->pc->type ? c->pc->type : "(none)");
        return STATUS_ERROR;
    }
    CK_CUDA(cudaMemsetAsync(d->sums, 0, sizeof *d->sums, s));
    CK_CUDA(cudaMemsetAsync(&d->sums->first_bad, 0xff, sizeof d->sums->first_bad, s));
    CK_LAUNCH(gemv_ref_check(d->type, d->y, d->ref, d->abs_dot, c->pc->m, b.c_acc, b.c_out, b.out_floor, d->sums, s));
    CK_CUDA(cudaMemcpyAsync(&h, d->sums, sizeof h, cudaMemcpyDeviceToHost, s));
    CK_CUDA(cudaStreamSynchronize(s));
    memcpy(&worst, &h.worst, sizeof worst);
    memcpy(&max_abs, &h.max_abs, sizeof max_abs);
    sums.sum_sq_err = h.sum_sq_err;
    sums.sum_sq_ref = h.sum_sq_ref;
    sums.max_abs_err = max_abs;
    sums.nonfinite = (double)h.nonfinite;
    sums.count = (double)c->pc->m;
    sums.norm_sq_a = d->norm_sq_a;
    sums.norm_sq_b = d->norm_sq_x;
    if (verify_gemv_judge(&sums, c->pc->type, c->pc->k, (long long)h.bad, &vd)) {
        status_set_message("gemv: no tolerance rule for type %s", c->pc->type);
        return STATUS_ERROR;
    }
    r->rel_err = vd.rel_err;
    r->tolerance = vd.tolerance;
    if (vd.pass) return STATUS_OK;
    if (h.nonfinite)
        snprintf(r->message, sizeof r->message, "%llu of %lld elements NaN/Inf (unwritten or overflow)", h.nonfinite,
                 c->pc->m);
    else if (h.bad)
        snprintf(r->message, sizeof r->message,
                 "%llu of %lld elements outside |y - r| <= %.3g s + %.3g |r| (first: row %llu; worst %.3g x its "
                 "bound)",
                 h.bad, c->pc->m, b.c_acc, b.c_out, h.first_bad, worst);
    else
        snprintf(r->message, sizeof r->message, "rel err %.3g (tolerance %.3g), max err %.3g rms (tolerance %.3g)",
                 vd.rel_err, vd.tolerance, vd.max_err, vd.max_tolerance);
    return STATUS_FAIL;
}

static void gemv_fill_row(const op_case *c, const variant *v, result_row *r)
{
    const double m = (double)c->pc->m, k = (double)c->pc->k, b = elem_type_bytes(gemv_type(c->pc));
    (void)v;
    r->m = c->pc->m;
    r->k = c->pc->k;
    r->math = c->pc->type;
    r->flops = 2.0 * m * k;
    r->bytes = (m * k + k + m) * b; /* A and x read, y written, once each */
}

// ---------------------------------------------------------------------------
// adapters

static gemv_args gemv_args_of(const op_case *c)
{
    const gemv_data *d = c->data;
    gemv_args a = {d->A, d->x, d->y, c->pc->m, c->pc->k, d->type, c->workspace, c->workspace_bytes};
    return a;
}

static int v_gemv_hand(const op_case *c, const variant *v, cudaStream_t s)
{
    const gemv_args a = gemv_args_of(c);
    CK_LAUNCH(((gemv_launcher)v->fn)(&a, s));
    return STATUS_OK;
}

static size_t v_gemv_scratch(const plan_case *pc, const variant *v)
{
    return v->aux ? ((gemv_scratch_fn)v->aux)(pc->m, pc->k, (int)gemv_type(pc)) : 0;
}

static const char *const gemv_blas_names[] = {"cublasSgemv", "cublasHSHgemvStridedBatched (batch 1)",
                                              "cublasTSTgemvStridedBatched (batch 1)"};

static int v_cublas(const op_case *c, const variant *v, cudaStream_t s)
{
    const gemv_data *d = c->data;
    (void)v;
    (void)s; /* the handle is bound to the run's stream */
    kernel_ran_note(gemv_blas_names[d->type == ELEM_FP16 ? 1 : d->type == ELEM_BF16 ? 2 : 0], NULL);
    return blas_gemv(c->dev->blas, d->type, d->A, d->x, d->y, c->pc->m, c->pc->k);
}

static int v_cublas_gemmex(const op_case *c, const variant *v, cudaStream_t s)
{
    const gemv_data *d = c->data;
    (void)v;
    (void)s;
    return blas_gemv_gemmex(c->dev->blas, d->type, d->A, d->x, d->y, c->pc->m, c->pc->k);
}

/* test-only: a wrong kernel, gemv_warp told k - 1 as the row length (each
 * row read from the wrong place and one term short); k = 1: the last row
 * left unwritten */
static int v_test_wrong(const op_case *c, const variant *v, cudaStream_t s)
{
    gemv_args a = gemv_args_of(c);
    (void)v;
    if (a.k > 1) a.k -= 1;
    else a.m -= 1;
    if (a.m > 0) CK_LAUNCH(gemv_warp(&a, s));
    return STATUS_OK;
}

// ---------------------------------------------------------------------------
// the variant table

#define GEMV_SCRATCH_NONE NULL
#define GEMV_SCRATCH(fn) GEMV_SCRATCH_##fn
#define GEMV_SCRATCH_gemv_splitk_scratch_bytes gemv_splitk_scratch_bytes
#define GEMV_ROW(name, launcher, scratch, about)                                                              \
    {.info = {"gemv", #name, 0, "types", NULL, 0, "builtin", about}, .run = v_gemv_hand,                       \
     .fn = (variant_fn)launcher, .aux = (variant_fn)GEMV_SCRATCH(scratch), .workspace = v_gemv_scratch},

static const variant gemv_variants[] = {
    {.info = {"gemv", "cublas", 1, "types", NULL, 0, "builtin",
              "cublasSgemv; fp16/bf16: cublasHSH/TSTgemvStridedBatched, batch 1 (FP32 compute)"},
     .run = v_cublas},
    {.info = {"gemv", "cublas_gemmex", 1, "types", NULL, 0, "builtin",
              "cublasGemmEx with n = 1, CUBLAS_COMPUTE_32F"},
     .run = v_cublas_gemmex, .kernel = "cublasGemmEx (n = 1)"},
    GEMV_HAND_ROWS(GEMV_ROW)
    {.info = {"gemv", "test_wrong", 0, "types", NULL, 1, "builtin", "test only: wrong result (row length k - 1)"},
     .run = v_test_wrong},
};

/* a plugin row: type fp32, bf16 or fp16 (rows of one name make one variant
 * over them); inputs A, x, output y (compare_plugin.h) */
static void gemv_plugin_bind(const plan_case *pc, const op_case *c, op_plugin_binding *b)
{
    const gemv_data *d = c ? c->data : NULL;
    (void)pc;
    if (d) op_plugin_slots(b, d->A, d->x, d->y, NULL);
}

static const op_plugin_spec gemv_plugin = {
    {{"fp32", "types", NULL}, {"bf16", "types", NULL}, {"fp16", "types", NULL}},
    gemv_plugin_bind,
    0,
    "inputs A (m x k), x (k); output y (m), all of the row's type",
};

const op_desc op_gemv = {
    {.name = "gemv",
     .size_kind = OP_SIZE_GEMM,
     .rate = OP_RATE_GBPS,
     .peak = OP_PEAK_MEMORY,
     .ref_library = "cublas",
     .best_library = "cublas",
     .types = {"fp32", "bf16", "fp16"},
     .about = "y = A x, A m x k row-major, fp32/bf16/fp16, FP32 accumulation (GB/s: A, x read, y written once)",
     .axes = {{"m", OP_AXIS_INT, "4096", 1, CATALOG_MAX_DIM, {NULL}, 0, "rows of A and y (--m, --n, --shape)"},
              {"k", OP_AXIS_INT, "4096", 1, CATALOG_MAX_DIM, {NULL}, 0,
               "columns of A, length of x (--k, --n, --shape)"},
              OP_AXIS_TYPE}},
    gemv_variants,
    (int)(sizeof gemv_variants / sizeof gemv_variants[0]),
    gemv_case_bytes,
    gemv_setup,
    gemv_poison,
    gemv_verify,
    gemv_fill_row,
    gemv_teardown,
    &gemv_plugin,
};
