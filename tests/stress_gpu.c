/* tests/stress_gpu.c: the hand kernels whose blocks talk to each other, run
 * again and again, counting every wrong result (the gpu-check phase `stress`;
 * results/h200/tuning/sort_stress.txt). A kernel that is wrong one time in a
 * hundred passes a test that runs it once; this runs each case hundreds of
 * times, alone and beside a second process loading the GPU.
 *
 *   stress_gpu [--reps N] [--families LIST] [--h2d-probe N] [--seed S]
 *
 * Families (default all):
 *   sort    every hand sort of the catalog (radix, onesweep), u32 and f32, every key pattern and every length
 *           of tests/sortcases.h (tile edges included), against the CPU radix
 *           sort; the inputs are made and checked once, uploaded once, and
 *           each repetition sorts all of them (compare done on the GPU)
 *   reduce  every hand reduce of the catalog (vec4: its last-block ticket) on
 *           integer-valued floats at odd lengths: every partial sum is
 *           exact, so the result must equal the sum
 *   tuned   the stream-K SGEMM (split last wave fixed up through C with
 *           flags between blocks) at sizes whose last wave is split: the first
 *           run is verified against FP64 DGEMM, every later one must be
 *           bit-identical to it (its summation order is fixed)
 *   tf32    the same for the split-tail TMA candidate
 *           (tf32_tma_m256n128k32_s4_pf_kst_pers_c2: the partial last wave's
 *           tiles cut into 2 .. 4 k pieces, the last of them to arrive summing
 *           all in piece order)
 *   scan    every hand scan of the catalog (decoupled: its look-back), int32
 *           and float, on small integers (exact), against the CPU prefix sum
 * The sort, reduce and scan rows are the op's hand rows in the catalog
 * (tests/catalog_rows.h), their scratch from the rows' workspace hooks, each
 * skipped where its supports hook declines.
 * --h2d-probe N: the race behind the radix "keys differ" failure, measured:
 *   a pageable cudaMemcpy (legacy stream) followed at once by a kernel on a
 *   non-blocking stream that counts elements not yet holding the new data,
 *   N times; then the same with cudaMemcpyAsync on the kernel's stream.
 * Exit 0 when nothing was wrong, 1 otherwise, 77 without a GPU. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "blas.h"
#include "catalog_rows.h"
#include "check.h"
#include "device.h"
#include "inputs.h"
#include "reduce.h"
#include "scan.h"
#include "sgemm.h"
#include "sgemm_search.h"
#include "sort.h"
#include "sortcases.h"
#include "sortkey.h"
#include "testlib_gpu.h"
#include "verify.h"
#include "verify_kernels.h"

static double stress_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

typedef struct {
    const char *name;
    long long runs, failures, first_failure_rep;
    char first[256];
} family_count;

/* Counts a failure; the first one's description is kept (and all are printed). */
static void count_fail(family_count *f, int rep, const char *msg)
{
    f->failures++;
    fprintf(stderr, "rep %d: %s\n", rep, msg);
    if (f->first_failure_rep < 0) {
        f->first_failure_rep = rep;
        snprintf(f->first, sizeof f->first, "rep %d: %s", rep, msg);
    }
}

// ---- sort --------------------------------------------------------------------

static void stress_sort(device_ctx *d, int reps, family_count *f)
{
    static const size_t lens[] = SORTCASES_LENGTHS;
    const int nlen = (int)(sizeof lens / sizeof lens[0]);
    const int ncases = 2 * PAT_COUNT * nlen;
    const variant *impls[CATALOG_ROWS_MAX];
    const int nimpl = catalog_hand_rows("sort", impls, CATALOG_ROWS_MAX);
    size_t total = 0, maxn = 0, off = 0;
    for (int li = 0; li < nlen; li++) {
        total += 2 * PAT_COUNT * lens[li];
        maxn = lens[li] > maxn ? lens[li] : maxn;
    }
    uint32_t *h_in = malloc(total * 4), *h_ref = malloc(total * 4), *tmp = malloc(maxn * 4);
    size_t *offs = malloc((size_t)ncases * sizeof *offs);
    void *d_in, *d_ref, *d_out, *scratch;
    unsigned long long *d_cnt, *h_cnt;
    size_t sb = 16;
    int takes[CATALOG_ROWS_MAX][2]; /* row im takes the largest u32 / f32 case (its supports hook) */
    for (int im = 0; im < nimpl; im++)
        for (int fl = 0; fl < 2; fl++) {
            const plan_case pc = catalog_case("sort", 0, 0, 0, (long long)maxn, fl ? "f32" : "u32");
            const size_t b = catalog_row_workspace(impls[im], &pc);
            takes[im][fl] = catalog_row_runs(impls[im], &pc);
            if (b > sb) sb = b;
        }
    /* inputs and CPU references, once */
    for (int c = 0; c < ncases; c++) {
        int is_float = c / (PAT_COUNT * nlen), pat = (c / nlen) % PAT_COUNT;
        size_t n = lens[c % nlen];
        offs[c] = off;
        make_keys(h_in + off, n, pat, is_float);
        memcpy(h_ref + off, h_in + off, n * 4);
        if (is_float) sortkey_cpu_radix_f32((float *)(h_ref + off), (float *)tmp, n);
        else sortkey_cpu_radix_u32(h_ref + off, tmp, n);
        off += n;
    }
    CK(cudaMalloc(&d_in, total * 4));
    CK(cudaMalloc(&d_ref, total * 4));
    CK(cudaMalloc(&d_out, maxn * 4));
    CK(cudaMalloc(&scratch, sb));
    CK(cudaMalloc((void **)&d_cnt, (size_t)ncases * nimpl * 2 * sizeof *d_cnt));
    h_cnt = malloc((size_t)ncases * nimpl * 2 * sizeof *h_cnt);
    CK(cudaMemcpyAsync(d_in, h_in, total * 4, cudaMemcpyHostToDevice, d->stream));
    CK(cudaMemcpyAsync(d_ref, h_ref, total * 4, cudaMemcpyHostToDevice, d->stream));
    CK(cudaStreamSynchronize(d->stream));
    for (int rep = 0; rep < reps; rep++) {
        for (int i = 0; i < ncases * nimpl; i++) {
            h_cnt[2 * i] = 0;
            h_cnt[2 * i + 1] = ~0ULL;
        }
        CK(cudaMemcpyAsync(d_cnt, h_cnt, (size_t)ncases * nimpl * 2 * sizeof *h_cnt, cudaMemcpyHostToDevice,
                           d->stream));
        for (int c = 0; c < ncases; c++) {
            int is_float = c / (PAT_COUNT * nlen);
            size_t n = lens[c % nlen];
            const uint32_t *in = (const uint32_t *)d_in + offs[c], *ref = (const uint32_t *)d_ref + offs[c];
            for (int im = 0; im < nimpl; im++) {
                int rc;
                if (!takes[im][is_float]) continue;
                CK(cudaMemsetAsync(d_out, 0xff, n * 4, d->stream));
                rc = is_float ? ((sort_f32_launcher)impls[im]->fn2)((const float *)in, d_out, (long long)n, scratch, sb,
                                                                     d->stream)
                              : ((sort_u32_launcher)impls[im]->fn)(in, d_out, (long long)n, scratch, sb, d->stream);
                if (rc) {
                    fprintf(stderr, "sort %s: launch error %d\n", impls[im]->info.name, rc);
                    exit(1);
                }
                CK((cudaError_t)gpucheck_compare_keys(d_out, ref, n, is_float, d_cnt + 2 * (nimpl * c + im),
                                                      d->stream));
            }
        }
        CK(cudaMemcpyAsync(h_cnt, d_cnt, (size_t)ncases * nimpl * 2 * sizeof *h_cnt, cudaMemcpyDeviceToHost,
                           d->stream));
        CK(cudaStreamSynchronize(d->stream));
        for (int c = 0; c < ncases; c++)
            for (int im = 0; im < nimpl; im++) {
                unsigned long long bad = h_cnt[2 * (nimpl * c + im)], at = h_cnt[2 * (nimpl * c + im) + 1];
                char msg[200];
                if (!takes[im][c / (PAT_COUNT * nlen)]) continue;
                f->runs++;
                if (!bad) continue;
                snprintf(msg, sizeof msg, "%s %s %s n=%zu: %llu keys differ, first at %llu", impls[im]->info.name,
                         c / (PAT_COUNT * nlen) ? "f32" : "u32", pat_names[(c / nlen) % PAT_COUNT], lens[c % nlen], bad,
                         at);
                count_fail(f, rep, msg);
            }
    }
    cudaFree(d_in);
    cudaFree(d_ref);
    cudaFree(d_out);
    cudaFree(scratch);
    cudaFree(d_cnt);
    free(h_in);
    free(h_ref);
    free(tmp);
    free(offs);
    free(h_cnt);
}

// ---- reduce ------------------------------------------------------------------------

static void stress_reduce(device_ctx *d, int reps, family_count *f)
{
    static const long long lens[] = {1, 33, 4099, 65537, (1 << 20) + 3, (1 << 24) + 1};
    const int nlen = (int)(sizeof lens / sizeof lens[0]);
    const long long maxn = (1 << 24) + 8;
    float *h = malloc((size_t)maxn * 4), *d_x, *d_out, got[8];
    long long exact[8];
    void *scratch;
    const variant *rows[CATALOG_ROWS_MAX];
    const int nrows = catalog_hand_rows("reduce", rows, CATALOG_ROWS_MAX);
    int takes[CATALOG_ROWS_MAX];
    size_t sb = 16;
    for (int r = 0; r < nrows; r++) {
        const plan_case pc = catalog_case("reduce", 0, 0, 0, maxn, NULL);
        const size_t b = catalog_row_workspace(rows[r], &pc);
        takes[r] = catalog_row_runs(rows[r], &pc);
        if (b > sb) sb = b;
    }
    for (long long i = 0; i < maxn; i++) h[i] = (float)((int)(rng_next() % 5) - 2);
    for (int li = 0; li < nlen; li++) {
        exact[li] = 0;
        for (long long i = 0; i < lens[li]; i++) exact[li] += (long long)h[i + li % 4]; /* misaligned starts too */
    }
    CK(cudaMalloc((void **)&d_x, (size_t)maxn * 4));
    CK(cudaMalloc((void **)&d_out, 64));
    CK(cudaMalloc(&scratch, sb));
    CK(cudaMemsetAsync(scratch, 0, sb, d->stream)); /* reduce.h: zeroed once */
    CK(cudaMemcpyAsync(d_x, h, (size_t)maxn * 4, cudaMemcpyHostToDevice, d->stream));
    for (int rep = 0; rep < reps; rep++)
        for (int r = 0; r < nrows; r++) {
            if (!takes[r]) continue;
            CK(cudaMemsetAsync(d_out, 0xff, 64, d->stream));
            for (int li = 0; li < nlen; li++) {
                int rc = ((reduce_launcher)rows[r]->fn)(d_x + li % 4, lens[li], d_out + li, scratch, sb, d->stream);
                if (rc) {
                    fprintf(stderr, "reduce %s: launch error %d\n", rows[r]->info.name, rc);
                    exit(1);
                }
            }
            CK(cudaMemcpyAsync(got, d_out, (size_t)nlen * 4, cudaMemcpyDeviceToHost, d->stream));
            CK(cudaStreamSynchronize(d->stream));
            for (int li = 0; li < nlen; li++) {
                char msg[128];
                f->runs++;
                if ((double)got[li] == (double)exact[li]) continue;
                snprintf(msg, sizeof msg, "%s n=%lld: sum %.1f, exact %lld", rows[r]->info.name, lens[li],
                         (double)got[li], exact[li]);
                count_fail(f, rep, msg);
            }
        }
    cudaFree(d_x);
    cudaFree(d_out);
    cudaFree(scratch);
    free(h);
}

// ---- tuned and tf32_tma (stream-K) -------------------------------------------------

/* square sizes whose last wave is split along k on a 132-SM H200, one
 * with partial tiles, and a rectangular one (the large pick); 256 and a
 * thin m (the small tile sliced four ways), 129 and 896x4864x1024 (sliced
 * two ways; that shape's stream-K grid once left a block without work: a
 * hang), and a thin m with a short n and a long k (the 32x128 stream-K pick) */
static const int stress_tuned_shapes[][3] = {{2048, 2048, 2048}, {1536, 1536, 1536}, {2049, 2049, 2049},
                                             {1024, 4096, 2048}, {256, 256, 256},    {129, 129, 129},
                                             {16, 14336, 4096},  {896, 4864, 1024},  {16, 2048, 4096}};
/* the split-tail TMA candidate where the partial last wave of 66 2-CTA
 * clusters is cut: 1024 x 14336 x 2048 (26 tail units in 2 pieces),
 * 2300 x 2052 x 1000 (15 units in 4 pieces; partial tiles in m, n and the
 * last slab, an odd last pair) and 2304 x 2048 x 4096 (6 units in 4 pieces) */
static const int stress_kst_shapes[][3] = {{1024, 14336, 2048}, {2300, 2052, 1000}, {2304, 2048, 4096}};
static const struct {
    const char *name;
    const int (*shapes)[3];
    int count;
} stress_tf32_cands[] = {
    {"tf32_tma_m256n128k32_s4_pf_kst_pers_c2", stress_kst_shapes,
     (int)(sizeof stress_kst_shapes / sizeof stress_kst_shapes[0])},
};
static int stress_tf32_index = -1; /* the row in the TMA search table being stressed */

static int stress_tf32_run(const float *A, const float *B, float *C, int m, int n, int k, cudaStream_t s)
{
    return sgemm_tf32_tma_search_run(stress_tf32_index, A, B, C, m, n, k, s);
}

/* Runs `fn` (math fp32 or tf32) on each shape: the first run verified
 * against FP64 DGEMM, every later one bit-identical to it (both kernels sum
 * each output in a fixed order). */
static void stress_gemm(device_ctx *d, int reps, family_count *f, const char *label,
                        int (*fn)(const float *, const float *, float *, int, int, int, cudaStream_t),
                        const char *math, const int (*shapes)[3], int ns)
{
    for (int si = 0; si < ns; si++) {
        int m = shapes[si][0], n = shapes[si][1], k = shapes[si][2];
        size_t na = (size_t)m * k, nb = (size_t)k * n, nc = (size_t)m * n;
        float *A, *B, *C, *gold;
        double *A64, *B64, *C64, *sums, h[5];
        unsigned long long *cnt, hc[2];
        verify_sums vs = {0}; /* no input norms: no cancellation floor (large shapes) */
        verify_verdict vd;
        char what[96];
        snprintf(what, sizeof what, "%s %dx%dx%d", label, m, n, k);
        CK(cudaMalloc((void **)&A, na * 4));
        CK(cudaMalloc((void **)&B, nb * 4));
        CK(cudaMalloc((void **)&C, nc * 4));
        CK(cudaMalloc((void **)&gold, nc * 4));
        CK(cudaMalloc((void **)&A64, na * 8));
        CK(cudaMalloc((void **)&B64, nb * 8));
        CK(cudaMalloc((void **)&C64, nc * 8));
        CK(cudaMalloc((void **)&sums, 64));
        CK(cudaMalloc((void **)&cnt, 16));
        if (inputs_reset(d->rng, 2026 + (unsigned)si) || inputs_uniform_pm1(d->rng, A, na, d->stream) ||
            inputs_uniform_pm1(d->rng, B, nb, d->stream) || gpucheck_to_f64(A, A64, na, d->stream) ||
            gpucheck_to_f64(B, B64, nb, d->stream) || blas_dgemm(d->blas, A64, B64, C64, m, n, k)) {
            fprintf(stderr, "%s: inputs/reference: %s\n", what, status_message());
            exit(1);
        }
        /* the first run, verified against FP64, is the golden output */
        CK(cudaMemsetAsync(gold, 0xff, nc * 4, d->stream));
        CK((cudaError_t)fn(A, B, gold, m, n, k, d->stream));
        CK(cudaMemsetAsync(sums, 0, 64, d->stream));
        CK((cudaError_t)gpucheck_gemm_sums(gold, C64, nc, sums, d->stream));
        CK(cudaMemcpyAsync(h, sums, sizeof h, cudaMemcpyDeviceToHost, d->stream));
        CK(cudaStreamSynchronize(d->stream));
        vs.sum_sq_err = h[0];
        vs.sum_sq_ref = h[1];
        vs.max_abs_err = h[2];
        vs.nonfinite = h[3];
        vs.count = (double)nc;
        verify_gemm_judge(&vs, math, k, &vd);
        f->runs++;
        if (!vd.pass) {
            char msg[200];
            snprintf(msg, sizeof msg, "%s: first run rel err %.3g (tolerance %.3g), %lld NaN/Inf", what, vd.rel_err,
                     vd.tolerance, vd.nonfinite);
            count_fail(f, 0, msg);
        }
        for (int rep = 1; rep < reps; rep++) {
            hc[0] = 0;
            hc[1] = ~0ULL;
            CK(cudaMemcpyAsync(cnt, hc, sizeof hc, cudaMemcpyHostToDevice, d->stream));
            CK(cudaMemsetAsync(C, 0xff, nc * 4, d->stream));
            CK((cudaError_t)fn(A, B, C, m, n, k, d->stream));
            /* bit for bit: compared as 32-bit words */
            CK((cudaError_t)gpucheck_compare_keys(C, gold, nc, 0, cnt, d->stream));
            CK(cudaMemcpyAsync(hc, cnt, sizeof hc, cudaMemcpyDeviceToHost, d->stream));
            CK(cudaStreamSynchronize(d->stream));
            f->runs++;
            if (hc[0]) {
                char msg[200];
                snprintf(msg, sizeof msg, "%s: %llu elements differ from the first run, first at %llu", what, hc[0],
                         hc[1]);
                count_fail(f, rep, msg);
            }
        }
        cudaFree(A);
        cudaFree(B);
        cudaFree(C);
        cudaFree(gold);
        cudaFree(A64);
        cudaFree(B64);
        cudaFree(C64);
        cudaFree(sums);
        cudaFree(cnt);
    }
}

// ---- scan ------------------------------------------------------------------------------

static void stress_scan(device_ctx *d, int reps, family_count *f)
{
    static const long long lens[] = {1, 33, 2943, 2944, 2945, 3583, 3584, 3585, 65537, (1 << 20) + 7, (1 << 22) + 1};
    const int nlen = (int)(sizeof lens / sizeof lens[0]);
    const long long maxn = (1 << 22) + 8;
    int32_t *hi = malloc((size_t)maxn * 4), *ri = malloc((size_t)maxn * 4);
    float *hf = malloc((size_t)maxn * 4), *rf = malloc((size_t)maxn * 4);
    void *d_in, *d_out, *d_ref, *scratch;
    unsigned long long *cnt, hc[2];
    const variant *rows[CATALOG_ROWS_MAX];
    const int nrows = catalog_hand_rows("scan", rows, CATALOG_ROWS_MAX);
    int takes[CATALOG_ROWS_MAX][2];
    size_t sb = 16;
    for (int r = 0; r < nrows; r++)
        for (int fl = 0; fl < 2; fl++) {
            const plan_case pc = catalog_case("scan", 0, 0, 0, maxn, fl ? "f32" : "i32");
            const size_t b = catalog_row_workspace(rows[r], &pc);
            takes[r][fl] = catalog_row_runs(rows[r], &pc);
            if (b > sb) sb = b;
        }
    /* values in {-1, 0, 1}: every float prefix sum is a small integer, exact */
    for (long long i = 0; i < maxn; i++) {
        hi[i] = (int32_t)(rng_next() % 3) - 1;
        hf[i] = (float)hi[i];
    }
    CK(cudaMalloc(&d_in, (size_t)maxn * 4));
    CK(cudaMalloc(&d_out, (size_t)maxn * 4));
    CK(cudaMalloc(&d_ref, (size_t)maxn * 4));
    CK(cudaMalloc(&scratch, sb));
    CK(cudaMalloc((void **)&cnt, 16));
    for (int is_float = 0; is_float < 2; is_float++) {
        long long acc = 0;
        for (long long i = 0; i < maxn; i++) {
            acc += hi[i];
            ri[i] = (int32_t)acc;
            rf[i] = (float)acc;
        }
        CK(cudaMemcpyAsync(d_in, is_float ? (void *)hf : (void *)hi, (size_t)maxn * 4, cudaMemcpyHostToDevice,
                           d->stream));
        CK(cudaMemcpyAsync(d_ref, is_float ? (void *)rf : (void *)ri, (size_t)maxn * 4, cudaMemcpyHostToDevice,
                           d->stream));
        for (int rep = 0; rep < reps; rep++)
            for (int r = 0; r < nrows; r++)
                for (int li = 0; li < nlen && takes[r][is_float]; li++) {
                    char msg[160];
                    hc[0] = 0;
                    hc[1] = ~0ULL;
                    CK(cudaMemcpyAsync(cnt, hc, sizeof hc, cudaMemcpyHostToDevice, d->stream));
                    CK(cudaMemsetAsync(d_out, 0xff, (size_t)lens[li] * 4, d->stream));
                    int rc = is_float ? ((scan_f32_launcher)rows[r]->fn2)(d_in, d_out, lens[li], scratch, sb, d->stream)
                                      : ((scan_i32_launcher)rows[r]->fn)(d_in, d_out, lens[li], scratch, sb, d->stream);
                    if (rc) {
                        fprintf(stderr, "scan %s: launch error %d\n", rows[r]->info.name, rc);
                        exit(1);
                    }
                    CK((cudaError_t)gpucheck_compare_keys(d_out, d_ref, (size_t)lens[li], is_float, cnt, d->stream));
                    CK(cudaMemcpyAsync(hc, cnt, sizeof hc, cudaMemcpyDeviceToHost, d->stream));
                    CK(cudaStreamSynchronize(d->stream));
                    f->runs++;
                    if (!hc[0]) continue;
                    snprintf(msg, sizeof msg, "%s %s n=%lld: %llu elements differ, first at %llu", rows[r]->info.name,
                             is_float ? "f32" : "i32", lens[li], hc[0], hc[1]);
                    count_fail(f, rep, msg);
                }
    }
    cudaFree(d_in);
    cudaFree(d_out);
    cudaFree(d_ref);
    cudaFree(scratch);
    cudaFree(cnt);
    free(hi);
    free(ri);
    free(hf);
    free(rf);
}

// ---- the race behind the sort test's failure ---------------------------------------------

/* Counts elements of d_x not equal to `want` (on the GPU, on stream s). */
static int stress_count_stale(const uint32_t *d_x, const uint32_t *d_want, size_t n, unsigned long long *cnt,
                              cudaStream_t s)
{
    return gpucheck_compare_keys(d_x, d_want, n, 0, cnt, s);
}

/* One size: `iters` copies of n words each way (old and fixed). A copy that
 * fits the driver's staging buffer can return as soon as it is staged, its
 * DMA still to come: the sort test's copies were 4 MiB. */
static void stress_h2d_probe_size(device_ctx *d, int iters, size_t n)
{
    uint32_t *h = malloc(n * 4), *d_x, *d_want;
    unsigned long long *cnt, hc[2];
    for (int mode = 0; mode < 2; mode++) {
        long long stale_iters = 0;
        unsigned long long max_stale = 0;
        CK(cudaMalloc((void **)&d_x, n * 4));
        CK(cudaMalloc((void **)&d_want, n * 4));
        CK(cudaMalloc((void **)&cnt, 16));
        for (int it = 0; it < iters; it++) {
            uint32_t tag = 0x9E3779B1u * (uint32_t)(it + 1);
            for (size_t i = 0; i < n; i++) h[i] = tag ^ (uint32_t)i;
            /* the expected data, placed on the GPU the safe way, and d_x made stale */
            CK(cudaMemcpyAsync(d_want, h, n * 4, cudaMemcpyHostToDevice, d->stream));
            CK(cudaMemsetAsync(d_x, 0, n * 4, d->stream));
            hc[0] = 0;
            hc[1] = ~0ULL;
            CK(cudaMemcpyAsync(cnt, hc, sizeof hc, cudaMemcpyHostToDevice, d->stream));
            CK(cudaStreamSynchronize(d->stream));
            if (mode == 0) /* the old test: legacy stream, pageable source */
                CK(cudaMemcpy(d_x, h, n * 4, cudaMemcpyHostToDevice)); /* legacy stream on purpose */
            else /* the fix: on the kernel's stream */
                CK(cudaMemcpyAsync(d_x, h, n * 4, cudaMemcpyHostToDevice, d->stream));
            CK((cudaError_t)stress_count_stale(d_x, d_want, n, cnt, d->stream));
            CK(cudaMemcpyAsync(hc, cnt, sizeof hc, cudaMemcpyDeviceToHost, d->stream));
            CK(cudaStreamSynchronize(d->stream));
            CK(cudaDeviceSynchronize());
            if (hc[0]) {
                stale_iters++;
                if (hc[0] > max_stale) max_stale = hc[0];
            }
        }
        printf("h2d-probe %-62s %8zu KiB x %d: %lld read stale data by the next kernel (at most %llu of %zu "
               "words)\n",
               mode == 0 ? "cudaMemcpy (legacy stream) + kernel on a non-blocking stream:"
                         : "cudaMemcpyAsync on the kernel's stream:",
               n * 4 / 1024, iters, stale_iters, max_stale, n);
        cudaFree(d_x);
        cudaFree(d_want);
        cudaFree(cnt);
    }
    free(h);
}

static void stress_h2d_probe(device_ctx *d, int iters)
{
    static const size_t words[] = {16 << 10, 256 << 10, 1 << 20, 4 << 20, 16 << 20}; /* 64 KiB .. 64 MiB */
    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++) stress_h2d_probe_size(d, iters, words[i]);
}

// ---------------------------------------------------------------------------

static int listed(const char *list, const char *name)
{
    size_t l = strlen(name);
    for (const char *p = list; p && *p;) {
        const char *e = strchr(p, ',');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        if (n == l && strncmp(p, name, l) == 0) return 1;
        p = e ? e + 1 : NULL;
    }
    return 0;
}

int main(int argc, char **argv)
{
    int reps = 500, probe = 0;
    const char *families = "sort,reduce,tuned,scan,tf32";
    unsigned long long seed = (unsigned long long)time(NULL);
    device_ctx d;
    char err[512];
    family_count fam[5] = {{"sort", 0, 0, -1, ""}, {"reduce", 0, 0, -1, ""}, {"tuned", 0, 0, -1, ""},
                           {"scan", 0, 0, -1, ""}, {"tf32", 0, 0, -1, ""}};
    int bad = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--reps") == 0 && i + 1 < argc) reps = atoi(argv[++i]);
        else if (strcmp(argv[i], "--families") == 0 && i + 1 < argc) families = argv[++i];
        else if (strcmp(argv[i], "--h2d-probe") == 0 && i + 1 < argc) probe = atoi(argv[++i]);
        else if (strcmp(argv[i], "--seed") == 0 && i + 1 < argc) seed = strtoull(argv[++i], NULL, 10);
        else {
            fprintf(stderr, "usage: stress_gpu [--reps N] [--families sort,reduce,tuned,scan,tf32] [--h2d-probe N] "
                            "[--seed S]\n");
            return 2;
        }
    }
    if (reps < 1 || probe < 0) {
        fprintf(stderr, "stress_gpu: --reps must be >= 1, --h2d-probe >= 0\n");
        return 2;
    }
    test_require_gpu();
    rng_state = seed;
    if (device_open(&d, 0, seed, err, sizeof err)) {
        fprintf(stderr, "stress_gpu: %s\n", err);
        return 1;
    }
    printf("stress_gpu on %s (%d SMs), seed %llu, %d repetitions per case\n", d.info.name, d.info.sms, seed, reps);
    if (probe) stress_h2d_probe(&d, probe);
    for (int i = 0; i < 5; i++) {
        double t0 = stress_now();
        if (!listed(families, fam[i].name)) continue;
        if (i == 0) stress_sort(&d, reps, &fam[i]);
        if (i == 1) stress_reduce(&d, reps, &fam[i]);
        if (i == 2)
            stress_gemm(&d, reps, &fam[i], "tuned", sgemm_tuned, "fp32", stress_tuned_shapes,
                        (int)(sizeof stress_tuned_shapes / sizeof stress_tuned_shapes[0]));
        if (i == 3) stress_scan(&d, reps, &fam[i]);
        for (int t = 0; i == 4 && t < (int)(sizeof stress_tf32_cands / sizeof stress_tf32_cands[0]); t++) {
            stress_tf32_index = -1;
            for (int c = 0; c < sgemm_tf32_tma_search_count(); c++)
                if (strcmp(sgemm_tf32_tma_search_name(c), stress_tf32_cands[t].name) == 0) stress_tf32_index = c;
            if (stress_tf32_index < 0)
                count_fail(&fam[i], 0, "a stressed candidate is not in the TMA search table");
            else
                stress_gemm(&d, reps, &fam[i], stress_tf32_cands[t].name, stress_tf32_run, "tf32",
                            stress_tf32_cands[t].shapes, stress_tf32_cands[t].count);
        }
        printf("%-7s %8lld runs, %lld failures (%.1f s)%s%s\n", fam[i].name, fam[i].runs, fam[i].failures,
               stress_now() - t0, fam[i].failures ? "; first: " : "", fam[i].first);
        fflush(stdout);
        bad |= fam[i].failures > 0;
    }
    device_close(&d);
    return bad ? 1 : 0;
}
