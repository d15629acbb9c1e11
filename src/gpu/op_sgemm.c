/* src/gpu/op_sgemm.c: the sgemm op, C = A * B in FP32 (row-major), and its
 * variants. Inputs: A and B uniform in (-1, 1] from cuRAND. Reference: FP64
 * cuBLAS DGEMM of the same float inputs. Verification: relative Frobenius
 * and max error against it, tolerance by precision and growing with k
 * (src/core/verify.h); the output is poisoned with NaN first, so an unwritten
 * element fails, and any NaN/Inf fails.
 *
 * Adding a hand SGEMM kernel = its .cu in kernels/ exporting
 *     extern "C" int f(const float *A, const float *B, float *C, int m, int n, int k, cudaStream_t s)
 * + one row in SGEMM_HAND_ROWS below (that row also declares f). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blas.h"
#include "blaslt.h"
#include "cpu_omp.h"
#include "check.h"
#include "gemm_check.h"
#include "inputs.h"
#include "kernel_ran.h"
#include "metrics.h"
#include "op.h"
#include "policy.h"
#include "sgemm.h"
#include "sgemm_tf32_tma.h"
#include "verify.h"
#include "verify_kernels.h"

typedef int (*op_sgemm_launcher)(const float *A, const float *B, float *C, int m, int n, int k, cudaStream_t s);

// ---------------------------------------------------------------------------
// the hand kernels: name, launcher, math, reference library, what it is

/* needs: ANY, or SM90A for kernels built for sm_90a only (declined elsewhere);
 * own: NONE, or TMA / TUNED: the launcher's own staging buffer (sgemm_tf32_tma_own_bytes,
 * sgemm_tuned_own_bytes) */
#define SGEMM_HAND_ROWS(X)                                                                                         \
    X(naive, sgemm_naive, "fp32", "cublas_fp32", ANY, NONE, "one thread per C element, 16x16 blocks")              \
    X(tiled16, sgemm_tiled16, "fp32", "cublas_fp32", ANY, NONE, "16x16 shared-memory tiles")                       \
    X(tiled32, sgemm_tiled32, "fp32", "cublas_fp32", ANY, NONE, "32x32 shared-memory tiles")                       \
    X(regblock, sgemm_regblock, "fp32", "cublas_fp32", ANY, NONE, "128x128 block tile, 8x8 per thread")            \
    X(vectorized, sgemm_vec4, "fp32", "cublas_fp32", ANY, NONE,                                                    \
      "+ float4 loads, A tile transposed, no bank conflicts")                                                      \
    X(warptile, sgemm_warptile, "fp32", "cublas_fp32", ANY, NONE,                                                  \
      "+ block/warp/thread tiling (64x32 warps, 2x2 of 4x4)")                                                      \
    X(pipelined, sgemm_pipelined, "fp32", "cublas_fp32", ANY, NONE, "+ 3-stage cp.async pipeline")                 \
    X(tuned, sgemm_tuned, "fp32", "cublas_fp32", ANY, TUNED,                                                       \
      "stream-K last wave; small problems: k sliced over warp groups; tile and kind by a rule on m, n, k, SMs")    \
    X(tf32_mma, sgemm_tf32_mma, "tf32", "cublas_tf32", ANY, NONE,                                                  \
      "TF32 tensor cores, mma.sync m16n8k8, cp.async pipeline, truncated operands")                                \
    X(tf32_wgmma, sgemm_tf32_wgmma, "tf32", "cublas_tf32", SM90A, NONE,                                            \
      "TF32 warpgroup MMA (wgmma), C^T = B^T A^T")                                                                 \
    X(tf32_tma, sgemm_tf32_tma, "tf32", "cublas_tf32", SM90A, TMA,                                                 \
      "tf32_wgmma fed by TMA through an mbarrier ring, operands rounded to TF32 on the way in; n, k % 4 != 0: "   \
      "operands staged padded")

#define SGEMM_DECLARE(name, fn, math, ref, needs, own, about) \
    int fn(const float *A, const float *B, float *C, int m, int n, int k, cudaStream_t s);
SGEMM_HAND_ROWS(SGEMM_DECLARE)

// ---------------------------------------------------------------------------
// buffers, inputs, reference

typedef struct {
    float *A, *B, *C;       /* inputs and the variants' output */
    double *C64;            /* FP64 reference */
    double *sums;           /* verification sums (device) */
    double norm_sq_a, norm_sq_b; /* ||A||_F^2, ||B||_F^2 (verify_gemm_judge's cancellation floor) */
    float *hA, *hB, *hC;    /* host copies for the CPU row (made by its prepare, once) */
    blaslt_plan lt[2];      /* cublaslt_best_fp32 [0] and cublaslt_best [1] (TF32): picked by their first prepare */
} sgemm_data;

static size_t sgemm_case_bytes(const plan_case *pc)
{
    double a = (double)pc->m * pc->k, b = (double)pc->k * pc->n, c = (double)pc->m * pc->n;
    /* A, B, C in float; A, B (freed after the reference) and C in double */
    return (size_t)((a + b + c) * 4 + (a + b + c) * 8) + 4096;
}

static void sgemm_teardown(op_case *c)
{
    sgemm_data *d = c->data;
    if (!d) return;
    cudaFree(d->A);
    cudaFree(d->B);
    cudaFree(d->C);
    cudaFree(d->C64);
    cudaFree(d->sums);
    free(d->hA);
    free(d->hB);
    free(d->hC);
    blaslt_plan_free(&d->lt[0]);
    blaslt_plan_free(&d->lt[1]);
    free(d);
    c->data = NULL;
}

static int sgemm_setup(op_case *c)
{
    const plan_case *pc = c->pc;
    device_ctx *dv = c->dev;
    cudaStream_t s = dv->stream;
    size_t na = (size_t)pc->m * pc->k, nb = (size_t)pc->k * pc->n, nc = (size_t)pc->m * pc->n;
    double *A64 = NULL, *B64 = NULL;
    sgemm_data *d = calloc(1, sizeof *d);
    int st = STATUS_ERROR;
    if (!d) {
        status_set_message("out of host memory");
        return STATUS_ERROR;
    }
    c->data = d;
    if (check_cuda_status(cudaMalloc((void **)&d->A, na * 4), "cudaMalloc(A)", __FILE__, __LINE__) ||
        check_cuda_status(cudaMalloc((void **)&d->B, nb * 4), "cudaMalloc(B)", __FILE__, __LINE__) ||
        check_cuda_status(cudaMalloc((void **)&d->C, nc * 4), "cudaMalloc(C)", __FILE__, __LINE__) ||
        check_cuda_status(cudaMalloc((void **)&d->C64, nc * 8), "cudaMalloc(C64)", __FILE__, __LINE__) ||
        check_cuda_status(cudaMalloc((void **)&d->sums, 8 * sizeof(double)), "cudaMalloc(sums)", __FILE__, __LINE__) ||
        check_cuda_status(cudaMalloc((void **)&A64, na * 8), "cudaMalloc(A64)", __FILE__, __LINE__) ||
        check_cuda_status(cudaMalloc((void **)&B64, nb * 8), "cudaMalloc(B64)", __FILE__, __LINE__))
        goto done;
    if (inputs_reset(dv->rng, c->seed) || inputs_uniform_pm1(dv->rng, d->A, na, s) ||
        inputs_uniform_pm1(dv->rng, d->B, nb, s))
        goto done;
    /* FP64 reference from the same float inputs */
    if (check_cuda_status((cudaError_t)gpucheck_to_f64(d->A, A64, na, s), "gpucheck_to_f64(A)", __FILE__, __LINE__) ||
        check_cuda_status((cudaError_t)gpucheck_to_f64(d->B, B64, nb, s), "gpucheck_to_f64(B)", __FILE__, __LINE__) ||
        blas_dgemm(dv->blas, A64, B64, d->C64, (int)pc->m, (int)pc->n, (int)pc->k) ||
        check_cuda_status(cudaStreamSynchronize(s), "cudaStreamSynchronize", __FILE__, __LINE__))
        goto done;
    /* ||A||^2 and ||B||^2: the reference sums of each input against its own
     * FP64 copy (the error sums are 0) */
    for (int i = 0; i < 2; i++) {
        double h[5];
        if (check_cuda_status(cudaMemsetAsync(d->sums, 0, 5 * sizeof(double), s), "cudaMemsetAsync", __FILE__,
                              __LINE__) ||
            check_cuda_status((cudaError_t)gpucheck_gemm_sums(i ? d->B : d->A, i ? B64 : A64, i ? nb : na,
                                                                d->sums, s),
                              "gpucheck_gemm_sums(norm)", __FILE__, __LINE__) ||
            check_cuda_status(cudaMemcpyAsync(h, d->sums, sizeof h, cudaMemcpyDeviceToHost, s), "cudaMemcpyAsync",
                              __FILE__, __LINE__) ||
            check_cuda_status(cudaStreamSynchronize(s), "cudaStreamSynchronize", __FILE__, __LINE__))
            goto done;
        *(i ? &d->norm_sq_b : &d->norm_sq_a) = h[1];
    }
    st = STATUS_OK;
done:
    cudaFree(A64);
    cudaFree(B64);
    return st;
}

static int sgemm_poison(op_case *c)
{
    sgemm_data *d = c->data;
    CK_CUDA(cudaMemsetAsync(d->C, 0xff, (size_t)c->pc->m * c->pc->n * 4, c->dev->stream)); /* NaN */
    return STATUS_OK;
}

static int sgemm_verify(op_case *c, const variant *v, result_row *r)
{
    sgemm_data *d = c->data;
    verify_sums sums;
    verify_verdict vd;
    int st = gemm_check_sums(d->C, d->C64, (size_t)c->pc->m * c->pc->n, d->sums, d->norm_sq_a, d->norm_sq_b,
                             c->dev->stream, &sums);
    if (st != STATUS_OK) return st;
    verify_gemm_judge(&sums, v->info.math, c->pc->k, &vd);
    return gemm_check_verdict(&vd, sums.count, r);
}

static void sgemm_fill_row(const op_case *c, const variant *v, result_row *r)
{
    r->m = c->pc->m;
    r->n = c->pc->n;
    r->k = c->pc->k;
    r->math = v->info.math;
    r->flops = metrics_gemm_flops(r->m, r->n, r->k);
    r->bytes = metrics_gemm_bytes(r->m, r->n, r->k);
}

// ---------------------------------------------------------------------------
// adapters

static int v_sgemm_hand(const op_case *c, const variant *v, cudaStream_t s)
{
    const sgemm_data *d = c->data;
    CK_LAUNCH(((op_sgemm_launcher)v->fn)(d->A, d->B, d->C, (int)c->pc->m, (int)c->pc->n, (int)c->pc->k, s));
    return STATUS_OK;
}

static int v_cublas(const op_case *c, const variant *v, cudaStream_t s)
{
    const sgemm_data *d = c->data;
    (void)s; /* the handle is bound to the run's stream */
    return blas_sgemm(c->dev->blas, d->A, d->B, d->C, (int)c->pc->m, (int)c->pc->n, (int)c->pc->k,
                      strcmp(v->info.math, "tf32") == 0);
}

/* cublaslt_best (TF32) and cublaslt_best_fp32: cuBLASLt's heuristic
 * candidates timed once each on the case's operands in the row's first
 * prepare, before its checked run and outside every timed region; the
 * fastest runs from then on and names itself in the `kernel` column. */
static int v_lt_prepare(const op_case *c, const variant *v, cudaStream_t s)
{
    sgemm_data *d = c->data;
    blaslt_plan *p = &d->lt[strcmp(v->info.math, "tf32") == 0];
    const size_t ws = c->workspace_bytes < BLASLT_WORKSPACE_BYTES ? c->workspace_bytes : BLASLT_WORKSPACE_BYTES;
    if (p->picked) return STATUS_OK;
    int st = blaslt_plan_pick(p, c->dev->blaslt, d->A, d->B, d->C, (int)c->pc->m, (int)c->pc->n, (int)c->pc->k,
                              p == &d->lt[1], c->workspace, ws, s);
    if (st != STATUS_OK) return st;
    /* the candidates wrote C: poisoned again, so that what is verified is the pick's own output */
    CK_CUDA(cudaMemsetAsync(d->C, 0xff, (size_t)c->pc->m * c->pc->n * 4, s));
    return STATUS_OK;
}

static int v_lt(const op_case *c, const variant *v, cudaStream_t s)
{
    sgemm_data *d = c->data;
    const blaslt_plan *p = &d->lt[strcmp(v->info.math, "tf32") == 0];
    kernel_ran_note(p->name, NULL);
    return blaslt_plan_run(p, c->dev->blaslt, d->A, d->B, d->C, c->workspace, s);
}

static size_t v_lt_workspace(const plan_case *pc, const variant *v)
{
    (void)pc;
    (void)v;
    return BLASLT_WORKSPACE_BYTES;
}

/* test-only: an illegal address, to prove faults are reported per variant */
static int v_test_fault(const op_case *c, const variant *v, cudaStream_t s)
{
    sgemm_data *d = c->data;
    (void)v;
    CK_LAUNCH(gpucheck_fault(d->C, s));
    CK_CUDA(cudaStreamSynchronize(s));
    return STATUS_OK;
}

/* test-only: a wrong result (the naive kernel over k - 1 terms) */
static int v_test_wrong(const op_case *c, const variant *v, cudaStream_t s)
{
    const sgemm_data *d = c->data;
    (void)v;
    CK_LAUNCH(sgemm_naive(d->A, d->B, d->C, (int)c->pc->m, (int)c->pc->n, (int)c->pc->k - 1, s));
    return STATUS_OK;
}

/* The CPU row (kernels/cpu_omp.c, OpenMP): A and B copied to the host once,
 * untimed; C computed on the host (timed by the wall clock) and uploaded for
 * the same verification as every row (the upload is inside its time: small
 * next to an O(n^3) CPU product). */
static int v_cpu_prepare(const op_case *c, const variant *v, cudaStream_t s)
{
    sgemm_data *d = c->data;
    size_t na = (size_t)c->pc->m * c->pc->k, nb = (size_t)c->pc->k * c->pc->n, nc = (size_t)c->pc->m * c->pc->n;
    (void)v;
    if (d->hA) return STATUS_OK;
    d->hA = malloc(na * 4);
    d->hB = malloc(nb * 4);
    d->hC = malloc(nc * 4);
    if (!d->hA || !d->hB || !d->hC) {
        status_set_message("out of host memory for the CPU row");
        return STATUS_ERROR;
    }
    CK_CUDA(cudaMemcpyAsync(d->hA, d->A, na * 4, cudaMemcpyDeviceToHost, s));
    CK_CUDA(cudaMemcpyAsync(d->hB, d->B, nb * 4, cudaMemcpyDeviceToHost, s));
    CK_CUDA(cudaStreamSynchronize(s));
    return STATUS_OK;
}

static int v_cpu(const op_case *c, const variant *v, cudaStream_t s)
{
    sgemm_data *d = c->data;
    (void)v;
    CK_LAUNCH(cpu_omp_sgemm(d->hA, d->hB, d->hC, (int)c->pc->m, (int)c->pc->n, (int)c->pc->k));
    CK_CUDA(cudaMemcpyAsync(d->C, d->hC, (size_t)c->pc->m * c->pc->n * 4, cudaMemcpyHostToDevice, s));
    CK_CUDA(cudaStreamSynchronize(s));
    return STATUS_OK;
}

/* an O(n^3) product on the host: past --cpu-max-n it would take minutes */
static int v_cpu_supports(const plan_case *pc, const device_info *dev, const variant *v, char *why, size_t len)
{
    long long big = pc->m > pc->n ? pc->m : pc->n;
    (void)dev;
    (void)v;
    if (big < pc->k) big = pc->k;
    const long long max_n = plan_case_axis(pc, "cpu_max_n");
    if (big <= max_n) return 1;
    snprintf(why, len, "CPU row not run past --cpu-max-n %lld (this case's largest dimension is %lld)", max_n, big);
    return 0;
}

/* the wgmma/TMA kernels are built for sm_90a (SASS, no PTX): on any other
 * GPU there is no code for them to run, and in the forced mode
 * (COMPARE_POLICY_ARCH=80 and the like: kernels/common/policy.h) their
 * families have no entry but sm_90's */
static int sgemm_needs_sm90a(const plan_case *pc, const device_info *dev, const variant *v, char *why, size_t len)
{
    (void)pc;
    const policy_arch arch = policy_arch_for(dev->cc_major, dev->cc_minor);
    if (dev->cc_major == 9 && dev->cc_minor == 0 && arch == POLICY_ARCH_90) return 1;
    if (arch != POLICY_ARCH_90 && dev->cc_major == 9 && dev->cc_minor == 0)
        snprintf(why, len, "%s needs the sm_90 policy (sm_90a kernels, no PTX); COMPARE_POLICY_ARCH forces %s",
                 v->info.name, policy_arch_name(arch));
    else
        snprintf(why, len, "%s needs an sm_90a GPU (Hopper); this one is cc %d.%d", v->info.name, dev->cc_major,
                 dev->cc_minor);
    return 0;
}

/* tf32_tma's staging buffer (and a stream-K pick's workspace) for the case */
static size_t sgemm_own_tma(const plan_case *pc, const variant *v)
{
    (void)v;
    return sgemm_tf32_tma_own_bytes((int)pc->m, (int)pc->n, (int)pc->k);
}

/* tuned's padded copy of B for the case */
static size_t sgemm_own_tuned(const plan_case *pc, const variant *v)
{
    (void)v;
    return sgemm_tuned_own_bytes((int)pc->m, (int)pc->n, (int)pc->k);
}

// ---------------------------------------------------------------------------
// the variant table

#define SGEMM_NEEDS_ANY NULL
#define SGEMM_NEEDS_SM90A sgemm_needs_sm90a
#define SGEMM_OWN_NONE NULL
#define SGEMM_OWN_TMA sgemm_own_tma
#define SGEMM_OWN_TUNED sgemm_own_tuned
#define SGEMM_ROW(name, launcher, math, ref, needs, own, about)                                            \
    {.info = {"sgemm", #name, 0, math, ref, 0, "builtin", about}, .run = v_sgemm_hand, .fn = (variant_fn)launcher, \
     .supports = SGEMM_NEEDS_##needs, .own_bytes = SGEMM_OWN_##own},

static const variant sgemm_variants[] = {
    {.info = {"sgemm", "cublas_fp32", 1, "fp32", NULL, 0, "builtin", "cuBLAS SGEMM, CUBLAS_DEFAULT_MATH (FP32 cores)"},
     .run = v_cublas},
    {.info = {"sgemm", "cublas_tf32", 1, "tf32", NULL, 0, "builtin", "cuBLAS SGEMM, CUBLAS_TF32_TENSOR_OP_MATH"},
     .run = v_cublas},
    {.info = {"sgemm", "cublaslt_best", 1, "tf32", NULL, 0, "builtin",
              "cuBLASLt TF32 (COMPUTE_32F_FAST_TF32): the fastest of its heuristic's top 8 algorithms, timed once "
              "each in the untimed setup"},
     .run = v_lt, .prepare = v_lt_prepare, .workspace = v_lt_workspace},
    {.info = {"sgemm", "cublaslt_best_fp32", 1, "fp32", NULL, 0, "builtin",
              "cuBLASLt FP32 (COMPUTE_32F): the fastest of its heuristic's top 8 algorithms, timed once each in the "
              "untimed setup"},
     .run = v_lt, .prepare = v_lt_prepare, .workspace = v_lt_workspace},
    SGEMM_HAND_ROWS(SGEMM_ROW)
    {.info = {"sgemm", "cpu_omp", 0, "fp32", NULL, 0, "builtin", "the host: OpenMP, cache-blocked, FP32 (up to --cpu-max-n)"},
     .run = v_cpu, .prepare = v_cpu_prepare, .host_timed = 1, .supports = v_cpu_supports},
    {.info = {"sgemm", "test_fault", 0, "fp32", NULL, 1, "builtin", "test only: illegal address"},
     .run = v_test_fault},
    {.info = {"sgemm", "test_wrong", 0, "fp32", NULL, 1, "builtin", "test only: wrong result"},
     .run = v_test_wrong},
};

/* a plugin row: type fp32 (against cuBLAS FP32) or tf32 (against cuBLAS
 * TF32); inputs A, B, output C (compare_plugin.h) */
static void sgemm_plugin_bind(const plan_case *pc, const op_case *c, op_plugin_binding *b)
{
    const sgemm_data *d = c ? c->data : NULL;
    (void)pc;
    if (d) op_plugin_slots(b, d->A, d->B, d->C, NULL);
}

static const op_plugin_spec sgemm_plugin = {
    {{"fp32", "fp32", NULL}, {"tf32", "tf32", "cublas_tf32"}},
    sgemm_plugin_bind,
    0,
    "inputs A (m x k), B (k x n); output C (m x n)",
};

const op_desc op_sgemm = {
    {.name = "sgemm",
     .size_kind = OP_SIZE_GEMM,
     .rate = OP_RATE_TFLOPS,
     .peak = OP_PEAK_FP32,
     .ref_library = "cublas_fp32",
     .best_library = "cublas_tf32",
     .about = "C = A B, FP32 row-major (TF32 rows: tensor cores), any m, n, k",
     .axes = {OP_AXIS_M, OP_AXIS_N, OP_AXIS_K,
              {"cpu_max_n", OP_AXIS_INT, "2048", 0, CATALOG_MAX_DIM, {NULL}, 1,
               "the CPU (OpenMP) row runs up to max(m, n, k) = N, SKIP beyond; 0: never (--cpu-max-n)"}}},
    sgemm_variants,
    (int)(sizeof sgemm_variants / sizeof sgemm_variants[0]),
    sgemm_case_bytes,
    sgemm_setup,
    sgemm_poison,
    sgemm_verify,
    sgemm_fill_row,
    sgemm_teardown,
    &sgemm_plugin,
};
