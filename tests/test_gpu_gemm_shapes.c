/* tests/test_gpu_gemm_shapes.c: every SGEMM launcher and every compare-search
 * candidate on rectangular shapes (m != n != k), which the variant test
 * (square n only) cannot make: each result, written over a NaN-poisoned C,
 * is judged against a CPU double GEMM by the tool's own rule
 * (verify_gemm_judge, FP32 or TF32 tolerance). A search candidate may decline
 * a shape (cudaErrorNotSupported) only where its header says so (the wgmma
 * and TMA ones: n or k not a multiple of 4); a launcher never may. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cuda_runtime_api.h>

#include "sgemm.h"
#include "sgemm_search.h"
#ifdef COMPARE_HAVE_WGMMA
#include "sgemm_tf32_tma.h"
#include "sgemm_tf32_wgmma.h"
#endif
#include "op.h"
#include "testlib_gpu.h"
#include "verify.h"

typedef struct {
    int m, n, k;
} shape;

/* edges of every tile size in use (16 .. 256 rows, 32-wide k slabs, 4-float
 * chunks), k = 4 (one partial slab), n = 4 (one chunk), single rows */
static const shape shapes_full[] = {
    {1, 4, 4},     {3, 8, 20},     {64, 132, 36},   {129, 516, 4},   {257, 260, 1028},
    {300, 4, 700}, {1000, 68, 1000}, {130, 1028, 260}, {5, 1, 3},    {17, 31, 33},
    {33, 100, 1}, {511, 129, 67},
};
/* COMPARE_TEST_QUICK=1 (under compute-sanitizer): the small ones */
static const shape shapes_quick[] = {
    {1, 4, 4}, {3, 8, 20}, {64, 132, 36}, {129, 516, 4}, {5, 1, 3}, {17, 31, 33}, {33, 100, 1},
};

typedef struct {
    const char *family;
    const char *math;
    int may_decline; /* 1: cudaErrorNotSupported allowed when n or k % 4 != 0 */
    int (*count)(void);
    const char *(*name)(int);
    int (*run)(int, const float *, const float *, float *, int, int, int, cudaStream_t);
} cand_table;

static const cand_table tables[] = {
    {"fp32", "fp32", 0, sgemm_search_count, sgemm_search_name, sgemm_search_run},
    {"tf32", "tf32", 0, sgemm_tf32_search_count, sgemm_tf32_search_name, sgemm_tf32_search_run},
#ifdef COMPARE_HAVE_WGMMA
    {"tf32-wgmma", "tf32", 1, sgemm_tf32_wgmma_search_count, sgemm_tf32_wgmma_search_name,
     sgemm_tf32_wgmma_search_run},
    {"tf32-tma", "tf32", 1, sgemm_tf32_tma_search_count, sgemm_tf32_tma_search_name,
     sgemm_tf32_tma_search_run},
#endif
};


typedef struct {
    const float *dA, *dB;
    float *dC, *hC;
    const double *ref;
    cudaStream_t s;
} bufs;

/* C poisoned with NaN, the call, then the verdict. rc: the launcher's return. */
static int judge(const bufs *b, const shape *sh, const char *math, int rc, const char *label)
{
    verify_sums vs;
    verify_verdict vd;
    size_t mn = (size_t)sh->m * sh->n;
    if (rc != 0) {
        CHECK(0, "%s m=%d n=%d k=%d: launch returned %d (%s)", label, sh->m, sh->n, sh->k, rc,
              cudaGetErrorString((cudaError_t)rc));
        (void)cudaGetLastError();
        return 1;
    }
    CK(cudaMemcpyAsync(b->hC, b->dC, mn * 4, cudaMemcpyDeviceToHost, b->s));
    CK(cudaStreamSynchronize(b->s));
    verify_sums_host(b->hC, b->ref, mn, &vs);
    verify_gemm_judge(&vs, math, sh->k, &vd);
    CHECK(vd.pass, "%s m=%d n=%d k=%d: rel err %.2e (tol %.2e), max %.2e (tol %.2e), %lld NaN/Inf",
          label, sh->m, sh->n, sh->k, vd.rel_err, vd.tolerance, vd.max_err, vd.max_tolerance,
          vd.nonfinite);
    return !vd.pass;
}

int main(void)
{
    const char *quick_env = getenv("COMPARE_TEST_QUICK");
    const int quick = quick_env && strcmp(quick_env, "1") == 0;
    const shape *shapes = quick ? shapes_quick : shapes_full;
    const size_t nshapes = quick ? sizeof shapes_quick / sizeof shapes_quick[0]
                                 : sizeof shapes_full / sizeof shapes_full[0];
    size_t max_a = 0, max_b = 0, max_c = 0;
    uint64_t rng = 0x9e3779b97f4a7c15ULL;
    int runs = 0, declined = 0, hand_rows = 0;
    cudaStream_t s;
    const catalog *cat = ops_catalog();
    test_require_gpu();
    for (size_t i = 0; i < nshapes; i++) {
        size_t a = (size_t)shapes[i].m * shapes[i].k, bb = (size_t)shapes[i].k * shapes[i].n,
               c = (size_t)shapes[i].m * shapes[i].n;
        max_a = a > max_a ? a : max_a;
        max_b = bb > max_b ? bb : max_b;
        max_c = c > max_c ? c : max_c;
    }
    float *hA = malloc(max_a * 4), *hB = malloc(max_b * 4), *hC = malloc(max_c * 4);
    double *ref = malloc(max_c * sizeof *ref);
    float *dA, *dB, *dC;
    if (!hA || !hB || !hC || !ref) {
        fprintf(stderr, "out of host memory\n");
        return 1;
    }
    CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    CK(cudaMalloc((void **)&dA, max_a * 4));
    CK(cudaMalloc((void **)&dB, max_b * 4));
    CK(cudaMalloc((void **)&dC, max_c * 4));
    for (size_t i = 0; i < nshapes; i++) {
        const shape *sh = &shapes[i];
        const size_t na = (size_t)sh->m * sh->k, nb = (size_t)sh->k * sh->n, nc = (size_t)sh->m * sh->n;
        /* uniform in (-1, 1), fixed seed: a failure repeats */
        for (size_t j = 0; j < na + nb; j++) {
            rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
            float v = (float)((double)(rng >> 40) / 8388608.0 - 1.0);
            if (j < na) hA[j] = v;
            else hB[j - na] = v;
        }
        verify_cpu_gemm(hA, hB, ref, sh->m, sh->n, sh->k);
        CK(cudaMemcpyAsync(dA, hA, na * 4, cudaMemcpyHostToDevice, s));
        CK(cudaMemcpyAsync(dB, hB, nb * 4, cudaMemcpyHostToDevice, s));
        bufs b = {dA, dB, dC, hC, ref, s};
        /* every hand SGEMM row of the variant table (its launcher, called directly) */
        for (int l = 0; l < cat->variant_count; l++) {
            const variant *v = ops_variant(l);
            if (strcmp(v->info.op, "sgemm") != 0 || v->info.is_library || v->info.test_only || !v->fn) continue;
            CK(cudaMemsetAsync(dC, 0xff, nc * 4, s));
            judge(&b, sh, v->info.math, ((sgemm_launcher)v->fn)(dA, dB, dC, sh->m, sh->n, sh->k, s), v->info.name);
            runs++;
            hand_rows++;
        }
        for (size_t t = 0; t < sizeof tables / sizeof tables[0]; t++) {
            const cand_table *tab = &tables[t];
            for (int c = 0; c < tab->count(); c++) {
                CK(cudaMemsetAsync(dC, 0xff, nc * 4, s));
                int rc = tab->run(c, dA, dB, dC, sh->m, sh->n, sh->k, s);
                if (rc == (int)cudaErrorNotSupported && tab->may_decline &&
                    (sh->n % 4 != 0 || sh->k % 4 != 0)) {
                    declined++;
                    continue;
                }
                judge(&b, sh, tab->math, rc, tab->name(c));
                runs++;
            }
        }
    }
    CK(cudaStreamSynchronize(s));
    CK(cudaGetLastError());
    printf("%d runs judged, %d declined (n or k %% 4 != 0) over %zu shapes\n", runs, declined, nshapes);
    CHECK(runs > 0 && hand_rows >= 11 * (int)nshapes, "nothing ran (%d runs, %d of hand rows)", runs, hand_rows);
    cudaFree(dA);
    cudaFree(dB);
    cudaFree(dC);
    cudaStreamDestroy(s);
    free(hA);
    free(hB);
    free(hC);
    free(ref);
    return test_finish("test_gpu_gemm_shapes");
}
