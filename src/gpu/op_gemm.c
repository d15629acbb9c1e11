/* src/gpu/op_gemm.c: the gemm op, C = A B in fp16, bf16 or fp8_e4m3 with
 * FP32 accumulation (C in the type; fp8: C in bf16, per-tensor scales of 1),
 * B in layout tn (n x k row-major, K-major: y = x W^T, the layout FP8
 * tensor cores need) or nn (k x n row-major, sgemm's); the launcher
 * contract is kernels/gemm_lowp.h.
 *
 * Inputs: uniform in (-1, 1] from cuRAND in FP32, rounded once on the device
 * to the type (src/gpu/convert_kernels.h). Reference: FP64 cuBLAS DGEMM of
 * those rounded values read back exactly (the rounding of the inputs is
 * part of the problem, not an error). Verification: C converted to FP32
 * (exact), its relative Frobenius and max error against the reference,
 * judged by the one tolerance rule of src/core/verify.c
 * (verify_judge_types: inputs of the type, FP32 accumulation, output of C's
 * type), which reads here
 *     tol = 8 u32 sqrt(k) + 2 u_out
 * u_out = 2^-11 (fp16 C) or 2^-8 (bf16 C, also fp8's): the final rounding
 * of C to its type is the largest term at every k here, and the FP8 products
 * are exact in FP32, so fp8 rows are judged at bf16's output bound. The
 * output is poisoned with NaN first (an unwritten element fails).
 *
 * Adding a hand kernel = its .cu in kernels/ exporting the two functions of
 * gemm_lowp.h (launcher and supports query) + one row in GEMM_HAND_ROWS. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blas_lowp.h"
#include "blaslt.h"
#include "check.h"
#include "convert_kernels.h"
#include "gemm_check.h"
#include "gemm_lowp.h"
#include "inputs.h"
#include "kernel_ran.h"
#include "metrics.h"
#include "op.h"
#include "verify.h"
#include "verify_kernels.h"

typedef int (*op_gemm_supports_fn)(long long m, long long n, long long k, int a_type, int b_kmajor, char *why,
                                   size_t why_len);

// ---------------------------------------------------------------------------
// the hand kernels: name, launcher, supports query, what it is

#define GEMM_HAND_ROWS(X)                                                                                       \
    X(mma, gemm_mma, gemm_mma_supports,                                                                    \
      "mma.sync m16n8k16 (fp8: m16n8k32, layout tn) with FP32 accumulators fed by ldmatrix from swizzled shared " \
      "memory, 128x128 tile, k slabs of 64 bytes, register prefetch into 2 stages")                             \
    X(multistage, gemm_multistage, gemm_multistage_supports,                                               \
      "the same mma.sync core fed by a 4-stage cp.async pipeline, 64x64 warp tiles (fp8: 64x32)")             \
    X(wgmma, gemm_wgmma, gemm_wgmma_supports,                                                                   \
      "Hopper: TMA + wgmma, persistent, a producer warpgroup and 2 consumers, 2-CTA clusters multicasting B "    \
      "(sm_90a; fp16/bf16 tn and nn, fp8 tn)")

#define GEMM_DECLARE(name, fn, query, about)                                                               \
    int fn(const gemm_args *g, cudaStream_t s);                                                               \
    int query(long long m, long long n, long long k, int a_type, int b_kmajor, char *why, size_t why_len);
GEMM_HAND_ROWS(GEMM_DECLARE)

// ---------------------------------------------------------------------------
// the case: types, layout, buffers

typedef struct {
    void *A, *B, *C;        /* inputs in the type, the variants' output in C's type */
    float *C32;             /* C converted to FP32 for verification */
    double *C64;            /* FP64 reference */
    double *sums;           /* verification sums (device) */
    double norm_sq_a, norm_sq_b; /* ||A||_F^2, ||B||_F^2 of the rounded inputs (the cancellation floor) */
    blaslt_plan lt[2];      /* cublaslt [0] (heuristic's first) and cublaslt_best [1]: made by their first prepare */
} gemm_data;

/* C's type: the inputs' for fp16 and bf16, bf16 for FP8 */
static const char *gemm_c_type(const char *type)
{
    return type && strncmp(type, "fp8", 3) == 0 ? "bf16" : type;
}

/* 1: layout tn (B n x k, K-major), the default; 0: nn */
static int gemm_b_kmajor(const plan_case *pc)
{
    const char *l = plan_case_axis_name(pc, "layout");
    return !l || strcmp(l, "nn") != 0;
}

static int gemm_bytes_of(const char *type) { return elem_type_bytes(elem_type_from_name(type)); }

static cudaDataType_t gemm_cuda_type(const char *type)
{
    switch (elem_type_from_name(type)) {
    case ELEM_FP16: return CUDA_R_16F;
    case ELEM_BF16: return CUDA_R_16BF;
    case ELEM_FP8_E4M3: return CUDA_R_8F_E4M3;
    case ELEM_FP8_E5M2: return CUDA_R_8F_E5M2;
    default: return CUDA_R_32F;
    }
}

static size_t gemm_case_bytes(const plan_case *pc)
{
    double a = (double)pc->m * pc->k, b = (double)pc->k * pc->n, c = (double)pc->m * pc->n;
    double tb = gemm_bytes_of(pc->type), cb = gemm_bytes_of(gemm_c_type(pc->type));
    double scratch = a > b ? a : b;
    /* A, B, C in their types; C in float and double; during set-up a float
     * scratch and A, B in double */
    return (size_t)((a + b) * tb + c * cb + c * 12 + scratch * 4 + (a + b) * 8) + 4096;
}

static void gemm_teardown(op_case *c)
{
    gemm_data *d = c->data;
    if (!d) return;
    cudaFree(d->A);
    cudaFree(d->B);
    cudaFree(d->C);
    cudaFree(d->C32);
    cudaFree(d->C64);
    cudaFree(d->sums);
    blaslt_plan_free(&d->lt[0]);
    blaslt_plan_free(&d->lt[1]);
    free(d);
    c->data = NULL;
}

/* One input: n values in the type into x (cuRAND in FP32 into scratch,
 * rounded), its exact FP64 copy into x64, and ||x||^2 into *norm_sq. */
static int gemm_input(op_case *c, const char *type, void *x, float *scratch, double *x64, size_t n, double *norm_sq)
{
    gemm_data *d = c->data;
    cudaStream_t s = c->dev->stream;
    double h[2];
    if (inputs_uniform_pm1_as(c->dev->rng, type, x, scratch, n, s)) return STATUS_ERROR;
    CK_LAUNCH(convert_to_f32(type, x, scratch, (long long)n, s)); /* the rounded values, exact in FP32 */
    CK_LAUNCH(gpucheck_to_f64(scratch, x64, n, s));
    CK_CUDA(cudaMemsetAsync(d->sums, 0, 2 * sizeof(double), s));
    CK_LAUNCH(gpucheck_sum_f64(scratch, n, d->sums, s));
    CK_CUDA(cudaMemcpyAsync(h, d->sums, sizeof h, cudaMemcpyDeviceToHost, s));
    CK_CUDA(cudaStreamSynchronize(s));
    *norm_sq = h[1];
    return STATUS_OK;
}

static int gemm_setup(op_case *c)
{
    const plan_case *pc = c->pc;
    device_ctx *dv = c->dev;
    const char *type = pc->type, *ctype = gemm_c_type(pc->type);
    const size_t na = (size_t)pc->m * pc->k, nb = (size_t)pc->k * pc->n, nc = (size_t)pc->m * pc->n;
    const size_t tb = (size_t)gemm_bytes_of(type), cb = (size_t)gemm_bytes_of(ctype);
    float *scratch = NULL;
    double *A64 = NULL, *B64 = NULL;
    gemm_data *d = calloc(1, sizeof *d);
    int st = STATUS_ERROR;
    if (!d) {
        status_set_message("out of host memory");
        return STATUS_ERROR;
    }
    c->data = d;
    if (!tb || !cb || !convert_supports(type)) {
        status_set_message("gemm: no conversion for element type %s", type ? type : "(none)");
        return STATUS_ERROR;
    }
    if (check_cuda_status(cudaMalloc(&d->A, na * tb), "cudaMalloc(A)", __FILE__, __LINE__) ||
        check_cuda_status(cudaMalloc(&d->B, nb * tb), "cudaMalloc(B)", __FILE__, __LINE__) ||
        check_cuda_status(cudaMalloc(&d->C, nc * cb), "cudaMalloc(C)", __FILE__, __LINE__) ||
        check_cuda_status(cudaMalloc((void **)&d->C32, nc * 4), "cudaMalloc(C32)", __FILE__, __LINE__) ||
        check_cuda_status(cudaMalloc((void **)&d->C64, nc * 8), "cudaMalloc(C64)", __FILE__, __LINE__) ||
        check_cuda_status(cudaMalloc((void **)&d->sums, 8 * sizeof(double)), "cudaMalloc(sums)", __FILE__, __LINE__) ||
        check_cuda_status(cudaMalloc((void **)&scratch, (na > nb ? na : nb) * 4), "cudaMalloc(scratch)", __FILE__,
                          __LINE__) ||
        check_cuda_status(cudaMalloc((void **)&A64, na * 8), "cudaMalloc(A64)", __FILE__, __LINE__) ||
        check_cuda_status(cudaMalloc((void **)&B64, nb * 8), "cudaMalloc(B64)", __FILE__, __LINE__))
        goto done;
    if (inputs_reset(dv->rng, c->seed) || gemm_input(c, type, d->A, scratch, A64, na, &d->norm_sq_a) ||
        gemm_input(c, type, d->B, scratch, B64, nb, &d->norm_sq_b))
        goto done;
    /* the FP64 reference over the same rounded inputs, B in the case's layout */
    if (blas_dgemm_layout(dv->blas, A64, B64, d->C64, (int)pc->m, (int)pc->n, (int)pc->k, gemm_b_kmajor(pc)) ||
        check_cuda_status(cudaStreamSynchronize(dv->stream), "cudaStreamSynchronize", __FILE__, __LINE__))
        goto done;
    st = STATUS_OK;
done:
    cudaFree(scratch);
    cudaFree(A64);
    cudaFree(B64);
    return st;
}

static int gemm_poison(op_case *c)
{
    gemm_data *d = c->data;
    const size_t cb = (size_t)gemm_bytes_of(gemm_c_type(c->pc->type));
    CK_CUDA(cudaMemsetAsync(d->C, 0xff, (size_t)c->pc->m * c->pc->n * cb, c->dev->stream)); /* NaN in fp16 / bf16 */
    return STATUS_OK;
}

static int gemm_verify(op_case *c, const variant *v, result_row *r)
{
    gemm_data *d = c->data;
    const char *ctype = gemm_c_type(c->pc->type);
    const size_t count = (size_t)c->pc->m * c->pc->n;
    const verify_types t = {c->pc->type, NULL, "fp32", ctype};
    verify_sums sums;
    verify_verdict vd;
    (void)v;
    CK_LAUNCH(convert_to_f32(ctype, d->C, d->C32, (long long)count, c->dev->stream));
    int st = gemm_check_sums(d->C32, d->C64, count, d->sums, d->norm_sq_a, d->norm_sq_b, c->dev->stream, &sums);
    if (st != STATUS_OK) return st;
    if (verify_judge_types(&sums, &t, c->pc->k, &vd)) {
        status_set_message("gemm: no tolerance rule for type %s (C %s)", c->pc->type, ctype);
        return STATUS_ERROR;
    }
    return gemm_check_verdict(&vd, sums.count, r);
}

static void gemm_fill_row(const op_case *c, const variant *v, result_row *r)
{
    const double tb = gemm_bytes_of(c->pc->type), cb = gemm_bytes_of(gemm_c_type(c->pc->type));
    (void)v;
    r->m = c->pc->m;
    r->n = c->pc->n;
    r->k = c->pc->k;
    r->math = c->pc->type;
    r->flops = metrics_gemm_flops(r->m, r->n, r->k);
    r->bytes = ((double)r->m * r->k + (double)r->k * r->n) * tb + (double)r->m * r->n * cb;
}

// ---------------------------------------------------------------------------
// adapters

static gemm_args gemm_args_of(const op_case *c)
{
    const gemm_data *d = c->data;
    gemm_args g;
    memset(&g, 0, sizeof g);
    g.A = d->A;
    g.B = d->B;
    g.C = d->C;
    g.m = c->pc->m;
    g.n = c->pc->n;
    g.k = c->pc->k;
    g.a_type = elem_type_from_name(c->pc->type);
    g.c_type = elem_type_from_name(gemm_c_type(c->pc->type));
    g.b_kmajor = gemm_b_kmajor(c->pc);
    g.workspace = c->workspace;
    g.workspace_bytes = c->workspace_bytes;
    return g;
}

static int v_gemm_hand(const op_case *c, const variant *v, cudaStream_t s)
{
    const gemm_args g = gemm_args_of(c);
    CK_LAUNCH(((gemm_launcher)v->fn)(&g, s));
    return STATUS_OK;
}

/* a hand row's own supports query (gemm_lowp.h), held in v->aux */
static int v_gemm_hand_supports(const plan_case *pc, const device_info *dev, const variant *v, char *why, size_t len)
{
    (void)dev;
    return ((op_gemm_supports_fn)v->aux)(pc->m, pc->n, pc->k, (int)elem_type_from_name(pc->type), gemm_b_kmajor(pc),
                                         why, len);
}

static int gemm_is_fp8(const plan_case *pc) { return pc->type && strncmp(pc->type, "fp8", 3) == 0; }

static int v_cublas(const op_case *c, const variant *v, cudaStream_t s)
{
    const gemm_data *d = c->data;
    (void)v;
    (void)s; /* the handle is bound to the run's stream */
    return blas_gemm_ex(c->dev->blas, d->A, d->B, d->C, gemm_cuda_type(c->pc->type),
                        gemm_cuda_type(gemm_c_type(c->pc->type)), (int)c->pc->m, (int)c->pc->n, (int)c->pc->k,
                        gemm_b_kmajor(c->pc));
}

static int v_cublas_supports(const plan_case *pc, const device_info *dev, const variant *v, char *why, size_t len)
{
    (void)dev;
    (void)v;
    if (!gemm_is_fp8(pc)) return 1;
    snprintf(why, len, "cublasGemmEx takes no FP8 inputs: %s runs through cuBLASLt (cublaslt, cublaslt_best)",
             pc->type);
    return 0;
}

/* cuBLASLt's FP8 kernels (cublasLtMatmul's documented requirements): the
 * "TN" form only (here layout tn), and the Tensor Core Usage alignment: the
 * K-major rows of A and B 16-byte multiples (k % 16 == 0), and D's
 * bf16 rows too (n % 8 == 0) */
static int v_lt_supports(const plan_case *pc, const device_info *dev, const variant *v, char *why, size_t len)
{
    (void)v;
    if (!gemm_is_fp8(pc)) return 1;
    if (dev->cc_major < 9 && !(dev->cc_major == 8 && dev->cc_minor >= 9)) {
        snprintf(why, len, "cuBLASLt FP8 needs sm_89 or later; this GPU is cc %d.%d", dev->cc_major, dev->cc_minor);
        return 0;
    }
    if (!gemm_b_kmajor(pc)) {
        snprintf(why, len, "cuBLASLt FP8 takes only the TN form (B K-major: layout tn), not layout nn");
        return 0;
    }
    if (pc->k % 16 != 0 || pc->n % 8 != 0) {
        snprintf(why, len, "cuBLASLt FP8 needs 16-byte multiples: k %% 16 == 0 (A, B rows) and n %% 8 == 0 (bf16 D "
                 "rows); this case is k=%lld, n=%lld", pc->k, pc->n);
        return 0;
    }
    return 1;
}

/* cublaslt ([0]: the heuristic's first algorithm) and cublaslt_best ([1]:
 * the fastest of its top BLASLT_CANDIDATES, each timed once on the case's
 * operands): planned in the row's first prepare, before its checked run and
 * outside every timed region; the row names its algorithm in `kernel`. */
static int gemm_lt_index(const variant *v) { return strcmp(v->info.name, "cublaslt_best") == 0; }

static int v_lt_prepare(const op_case *c, const variant *v, cudaStream_t s)
{
    gemm_data *d = c->data;
    const int best = gemm_lt_index(v);
    blaslt_plan *p = &d->lt[best];
    const size_t ws = c->workspace_bytes < BLASLT_WORKSPACE_BYTES ? c->workspace_bytes : BLASLT_WORKSPACE_BYTES;
    const blaslt_gemm g = {(int)c->pc->m,
                           (int)c->pc->n,
                           (int)c->pc->k,
                           gemm_cuda_type(c->pc->type),
                           gemm_cuda_type(gemm_c_type(c->pc->type)),
                           CUBLAS_COMPUTE_32F,
                           gemm_b_kmajor(c->pc)};
    if (p->picked) return STATUS_OK;
    blaslt_plan_free(p); /* a failed earlier attempt */
    int st = blaslt_plan_pick_gemm(p, c->dev->blaslt, &g, d->A, d->B, d->C, best ? BLASLT_CANDIDATES : 1,
                                   c->workspace, ws, s);
    if (st != STATUS_OK) return st;
    /* the candidates wrote C: poisoned again, so that what is verified is the pick's own output */
    if (best)
        CK_CUDA(cudaMemsetAsync(d->C, 0xff,
                                (size_t)c->pc->m * c->pc->n * (size_t)gemm_bytes_of(gemm_c_type(c->pc->type)), s));
    return STATUS_OK;
}

static int v_lt(const op_case *c, const variant *v, cudaStream_t s)
{
    gemm_data *d = c->data;
    const blaslt_plan *p = &d->lt[gemm_lt_index(v)];
    kernel_ran_note(p->name, NULL);
    return blaslt_plan_run(p, c->dev->blaslt, d->A, d->B, d->C, c->workspace, s);
}

static size_t v_lt_workspace(const plan_case *pc, const variant *v)
{
    (void)pc;
    (void)v;
    return BLASLT_WORKSPACE_BYTES;
}

/* test-only: a wrong result (gemm_multistage over k - 1 terms, rows still k
 * long: a dropped column of A and row of B, and the rows misread) */
static int v_test_wrong(const op_case *c, const variant *v, cudaStream_t s)
{
    gemm_args g = gemm_args_of(c);
    (void)v;
    g.k -= 1;
    CK_LAUNCH(gemm_multistage(&g, s));
    return STATUS_OK;
}

static int v_test_wrong_supports(const plan_case *pc, const device_info *dev, const variant *v, char *why, size_t len)
{
    (void)dev;
    (void)v;
    if (pc->k >= 2 && !gemm_is_fp8(pc)) return 1;
    snprintf(why, len, "test_wrong plants its error in gemm_multistage: fp16 and bf16 with k >= 2 only");
    return 0;
}

// ---------------------------------------------------------------------------
// the variant table

#define GEMM_ROW(name, launcher, query, about)                                                                \
    {.info = {"gemm", #name, 0, "types", NULL, 0, "builtin", about}, .run = v_gemm_hand,                      \
     .fn = (variant_fn)launcher, .aux = (variant_fn)query, .supports = v_gemm_hand_supports},

static const variant gemm_variants[] = {
    {.info = {"gemm", "cublas", 1, "types", NULL, 0, "builtin",
              "cublasGemmEx, CUBLAS_COMPUTE_32F (FP32 accumulation; no FP8)"},
     .run = v_cublas, .supports = v_cublas_supports},
    {.info = {"gemm", "cublaslt", 1, "types", NULL, 0, "builtin",
              "cublasLtMatmul, COMPUTE_32F, its heuristic's first algorithm (FP8: TN only, scales of 1, D bf16)"},
     .run = v_lt, .prepare = v_lt_prepare, .workspace = v_lt_workspace, .supports = v_lt_supports},
    {.info = {"gemm", "cublaslt_best", 1, "types", NULL, 0, "builtin",
              "cublasLtMatmul, COMPUTE_32F: the fastest of its heuristic's top 8 algorithms, timed once each in "
              "the untimed setup"},
     .run = v_lt, .prepare = v_lt_prepare, .workspace = v_lt_workspace, .supports = v_lt_supports},
    GEMM_HAND_ROWS(GEMM_ROW)
    {.info = {"gemm", "test_wrong", 0, "types", NULL, 1, "builtin", "test only: wrong result (k - 1 terms)"},
     .run = v_test_wrong, .supports = v_test_wrong_supports},
};

/* a plugin row: type fp16, bf16 or fp8_e4m3 (C in bf16); inputs A, B,
 * output C, axis b_kmajor (compare_plugin.h) */
static void gemm_plugin_bind(const plan_case *pc, const op_case *c, op_plugin_binding *b)
{
    const gemm_data *d = c ? c->data : NULL;
    op_plugin_axis(b, "b_kmajor", gemm_b_kmajor(pc));
    if (d) op_plugin_slots(b, d->A, d->B, d->C, NULL);
}

static const op_plugin_spec gemm_plugin = {
    {{"fp16", "types", NULL}, {"bf16", "types", NULL}, {"fp8_e4m3", "types", NULL}},
    gemm_plugin_bind,
    0,
    "inputs A (m x k), B (n x k if b_kmajor, else k x n); output C (m x n; bf16 for fp8_e4m3)",
};

const op_desc op_gemm = {
    {.name = "gemm",
     .size_kind = OP_SIZE_GEMM,
     .rate = OP_RATE_TFLOPS,
     .peak = OP_PEAK_COMPUTE,
     .ref_library = "cublaslt_best",
     .best_library = "cublaslt_best",
     .types = {"fp16", "bf16", "fp8_e4m3"},
     .about = "C = A B in fp16 / bf16 / fp8_e4m3 (C bf16), FP32 accumulation, B K-major (tn) or row-major (nn)",
     .axes = {OP_AXIS_M, OP_AXIS_N, OP_AXIS_K, OP_AXIS_TYPE,
              {"layout", OP_AXIS_ENUM, "tn", 0, 0, {"tn", "nn"}, 0,
               "B's layout: tn (n x k, K-major: y = x W^T; FP8 needs it) or nn (k x n, as sgemm)"}}},
    gemm_variants,
    (int)(sizeof gemm_variants / sizeof gemm_variants[0]),
    gemm_case_bytes,
    gemm_setup,
    gemm_poison,
    gemm_verify,
    gemm_fill_row,
    gemm_teardown,
    &gemm_plugin,
};
