/* baselines/blaslt.c: cuBLASLt plans, the heuristic's first algorithm or the
 * fastest of its top candidates (blaslt.h says why and how). */
#include "blaslt.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

#define BLASLT_TRIALS 5 /* timed runs of each candidate; their median decides */

static int blaslt_make(blaslt_plan *p, const blaslt_gemm *g)
{
    const cublasOperation_t no = CUBLAS_OP_N, tr = CUBLAS_OP_T;
    const cublasOperation_t op_b = g->b_kmajor ? tr : no;
    const int m = g->m, n = g->n, k = g->k;
    memset(p, 0, sizeof *p);
    p->g = *g;
    CK_CUBLAS(cublasLtMatmulDescCreate(&p->op, g->compute, CUDA_R_32F));
    p->made = 1;
    /* row-major C = A * B is column-major C^T = B^T * A^T (as baselines/blas.c):
     * the first operand is B, the second A (k x m, ld k); B k x n row-major is
     * the column-major n x k matrix (ld n, op N), B n x k row-major the
     * column-major k x n one (ld k, op T) */
    CK_CUBLAS(cublasLtMatmulDescSetAttribute(p->op, CUBLASLT_MATMUL_DESC_TRANSA, &op_b, sizeof op_b));
    CK_CUBLAS(cublasLtMatmulDescSetAttribute(p->op, CUBLASLT_MATMUL_DESC_TRANSB, &no, sizeof no));
    if (g->b_kmajor)
        CK_CUBLAS(cublasLtMatrixLayoutCreate(&p->la, g->ab_type, k, n, k));
    else
        CK_CUBLAS(cublasLtMatrixLayoutCreate(&p->la, g->ab_type, n, k, n));
    CK_CUBLAS(cublasLtMatrixLayoutCreate(&p->lb, g->ab_type, k, m, k));
    CK_CUBLAS(cublasLtMatrixLayoutCreate(&p->lc, g->c_type, n, m, n));
    /* FP8: per-tensor scales of 1 are cuBLASLt's default, so no scale
     * pointer is set. With A and B scale pointers (device floats of 1) set,
     * cuBLASLt 13.1 on the H200 returned CUBLAS_STATUS_NOT_SUPPORTED from
     * every algorithm its heuristic offered for a bf16 D (a probe of the
     * descriptors: with them, none ran; without, all did). */
    return 0;
}

static int blaslt_call(const blaslt_plan *p, cublasLtHandle_t h, const cublasLtMatmulAlgo_t *algo, const void *A,
                       const void *B, void *C, void *ws, size_t ws_bytes, cudaStream_t s)
{
    const float one = 1.0f, zero = 0.0f;
    CK_CUBLAS(cublasLtMatmul(h, p->op, &one, B, p->la, A, p->lb, &zero, C, p->lc, C, p->lc, algo, ws, ws_bytes, s));
    return 0;
}

static int blaslt_cmp_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* The median time of BLASLT_TRIALS runs of one candidate after a warm-up, or
 * a negative value when it cannot run (its error is cleared: the next one is
 * tried). */
static double blaslt_time(const blaslt_plan *p, cublasLtHandle_t h, const cublasLtMatmulAlgo_t *algo, const void *A,
                          const void *B, void *C, void *ws, size_t ws_bytes, cudaStream_t s, cudaEvent_t e0,
                          cudaEvent_t e1)
{
    const float one = 1.0f, zero = 0.0f;
    double ms[BLASLT_TRIALS];
    for (int i = -1; i < BLASLT_TRIALS; i++) {
        float t = 0;
        if (cudaEventRecord(e0, s) != cudaSuccess ||
            cublasLtMatmul(h, p->op, &one, B, p->la, A, p->lb, &zero, C, p->lc, C, p->lc, algo, ws, ws_bytes, s) !=
                CUBLAS_STATUS_SUCCESS ||
            cudaEventRecord(e1, s) != cudaSuccess || cudaEventSynchronize(e1) != cudaSuccess ||
            cudaEventElapsedTime(&t, e0, e1) != cudaSuccess) {
            (void)cudaGetLastError();
            return -1;
        }
        if (i >= 0) ms[i] = t;
    }
    qsort(ms, BLASLT_TRIALS, sizeof ms[0], blaslt_cmp_double);
    return ms[BLASLT_TRIALS / 2];
}

/* "cublasLt algo 21 tile 18 stages 9 splitk 1 swizzle 0 (fastest of 8)", or
 * "(heuristic's first)" for a plan of one candidate */
static void blaslt_name(blaslt_plan *p, int candidates, int timed)
{
    int id = -1, tile = -1, stages = -1, splitk = -1, swizzle = -1;
    size_t w = 0;
    cublasLtMatmulAlgoConfigGetAttribute(&p->algo, CUBLASLT_ALGO_CONFIG_ID, &id, sizeof id, &w);
    cublasLtMatmulAlgoConfigGetAttribute(&p->algo, CUBLASLT_ALGO_CONFIG_TILE_ID, &tile, sizeof tile, &w);
    cublasLtMatmulAlgoConfigGetAttribute(&p->algo, CUBLASLT_ALGO_CONFIG_STAGES_ID, &stages, sizeof stages, &w);
    cublasLtMatmulAlgoConfigGetAttribute(&p->algo, CUBLASLT_ALGO_CONFIG_SPLITK_NUM, &splitk, sizeof splitk, &w);
    cublasLtMatmulAlgoConfigGetAttribute(&p->algo, CUBLASLT_ALGO_CONFIG_CTA_SWIZZLING, &swizzle, sizeof swizzle, &w);
    if (timed)
        snprintf(p->name, sizeof p->name, "cublasLt algo %d tile %d stages %d splitk %d swizzle %d (fastest of %d)", id,
                 tile, stages, splitk, swizzle, candidates);
    else
        snprintf(p->name, sizeof p->name, "cublasLt algo %d tile %d stages %d splitk %d swizzle %d (heuristic's first)",
                 id, tile, stages, splitk, swizzle);
}

int blaslt_plan_pick_gemm(blaslt_plan *p, cublasLtHandle_t h, const blaslt_gemm *g, const void *A, const void *B,
                          void *C, int candidates, void *ws, size_t ws_bytes, cudaStream_t s)
{
    cublasLtMatmulPreference_t pref = NULL;
    cublasLtMatmulHeuristicResult_t res[BLASLT_CANDIDATES];
    cudaEvent_t e0 = NULL, e1 = NULL;
    int found = 0, st = STATUS_ERROR;
    double best = -1;
    if (candidates < 1) candidates = 1;
    if (candidates > BLASLT_CANDIDATES) candidates = BLASLT_CANDIDATES;
    if (blaslt_make(p, g)) return STATUS_ERROR;
    p->workspace_bytes = ws_bytes;
    if (check_cublas_status(cublasLtMatmulPreferenceCreate(&pref), "cublasLtMatmulPreferenceCreate", __FILE__,
                            __LINE__) ||
        check_cublas_status(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
                                                                 &ws_bytes, sizeof ws_bytes),
                            "cublasLtMatmulPreferenceSetAttribute", __FILE__, __LINE__) ||
        check_cublas_status(cublasLtMatmulAlgoGetHeuristic(h, p->op, p->la, p->lb, p->lc, p->lc, pref, candidates,
                                                           res, &found),
                            "cublasLtMatmulAlgoGetHeuristic", __FILE__, __LINE__))
        goto done;
    if (candidates == 1) {
        /* the heuristic's first, untimed: what a plain cublasLtMatmul call runs */
        if (found < 1 || res[0].state != CUBLAS_STATUS_SUCCESS) {
            status_set_message("cuBLASLt: the heuristic offers no algorithm for %dx%dx%d", g->m, g->n, g->k);
            goto done;
        }
        p->algo = res[0].algo;
        p->picked = 1;
        blaslt_name(p, 1, 0);
        st = STATUS_OK;
        goto done;
    }
    if (check_cuda_status(cudaEventCreate(&e0), "cudaEventCreate", __FILE__, __LINE__) ||
        check_cuda_status(cudaEventCreate(&e1), "cudaEventCreate", __FILE__, __LINE__))
        goto done;
    for (int i = 0; i < found; i++) {
        if (res[i].state != CUBLAS_STATUS_SUCCESS) continue;
        double t = blaslt_time(p, h, &res[i].algo, A, B, C, ws, ws_bytes, s, e0, e1);
        if (t >= 0 && (best < 0 || t < best)) {
            best = t;
            p->algo = res[i].algo;
        }
    }
    if (best < 0) {
        status_set_message("cuBLASLt: none of the heuristic's %d algorithms ran for %dx%dx%d", found, g->m, g->n,
                           g->k);
        goto done;
    }
    p->picked = 1;
    blaslt_name(p, found, 1);
    st = STATUS_OK;
done:
    if (pref) cublasLtMatmulPreferenceDestroy(pref);
    if (e0) cudaEventDestroy(e0);
    if (e1) cudaEventDestroy(e1);
    return st;
}

int blaslt_plan_pick(blaslt_plan *p, cublasLtHandle_t h, const float *A, const float *B, float *C, int m, int n,
                     int k, int tf32, void *ws, size_t ws_bytes, cudaStream_t s)
{
    const blaslt_gemm g = {m, n, k, CUDA_R_32F, CUDA_R_32F, tf32 ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F, 0};
    return blaslt_plan_pick_gemm(p, h, &g, A, B, C, BLASLT_CANDIDATES, ws, ws_bytes, s);
}

int blaslt_plan_run(const blaslt_plan *p, cublasLtHandle_t h, const void *A, const void *B, void *C, void *ws,
                    cudaStream_t s)
{
    if (!p->picked) {
        status_set_message("cuBLASLt: no algorithm picked for this case");
        return STATUS_ERROR;
    }
    return blaslt_call(p, h, &p->algo, A, B, C, ws, p->workspace_bytes, s) ? STATUS_ERROR : STATUS_OK;
}

void blaslt_plan_free(blaslt_plan *p)
{
    if (!p->made) return;
    if (p->la) cublasLtMatrixLayoutDestroy(p->la);
    if (p->lb) cublasLtMatrixLayoutDestroy(p->lb);
    if (p->lc) cublasLtMatrixLayoutDestroy(p->lc);
    cublasLtMatmulDescDestroy(p->op);
    memset(p, 0, sizeof *p);
}
