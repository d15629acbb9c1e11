/* tests/test_gpu_labs.c: the transpose, histogram and scan launchers and
 * their library calls (cublasSgeam, cub::DeviceHistogram::HistogramEven,
 * cub::DeviceScan::InclusiveSum, thrust::inclusive_scan) against CPU
 * references, called directly:
 *  - transpose: awkward and rectangular shapes (1x1 .. 33x4097, 1x1000,
 *    1000x1, and 4194400 rows, past the 65535-block grid limit of every
 *    kernel), distinct values compared bit for bit, unaligned in/out, guard
 *    words around the output, and which path transpose_fast took;
 *  - histogram: uniform, skewed (90% in three bins), single-value and
 *    run-length (runs of 1..64 equal bytes) inputs,
 *    values on and beside every f32 bin edge, out-of-range values, NaN and
 *    infinities, unaligned starts (x+1, x+3), bins poisoned before each call
 *    (the launchers zero them), counts compared exactly;
 *  - scan: int32 exactly (also wrapping past 2^31 for the hand kernels),
 *    float exactly on integer-valued inputs (every partial sum exact) and
 *    within verify_scan_tolerance (src/core/verify.h) on random inputs,
 *    sizes around the block and tile sizes and past three levels / many
 *    look-back windows, in place, unaligned, scratch filled with 0x00 and
 *    0xff patterns;
 *  - every launcher twice in a row (no state left behind), and the argument
 *    checks.
 * The hand rows are each op's rows in the catalog (tests/catalog_rows.h: a
 * kernel added to an op's table is tested with no change here), skipped
 * where the row's supports hook declines, scan's scratch sized by the rows'
 * workspace hooks; the library rows are called through blas.h and the shim,
 * and an op's library row this test has no call for fails it.
 * All copies are cudaMemcpyAsync/cudaMemsetAsync on the test's non-blocking
 * stream, which is synchronised before the host reads a result (a pageable
 * cudaMemcpy runs on the legacy stream, returns before its DMA lands and is
 * not ordered with a non-blocking stream). */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include "blas.h"
#include "catalog_rows.h"
#include "histogram.h"
#include "kernel_ran.h"
#include "scan.h"
#include "shim.h"
#include "testlib_gpu.h"
#include "transpose.h"
#include "verify.h"

static uint64_t rng_state;
static uint32_t rng_next(void)
{
    rng_state = rng_state * 6364136223846793005ULL + 1442695040888963407ULL;
    return (uint32_t)(rng_state >> 32);
}

/* uniform in [0, 1), 24 random bits */
static float rng_unit(void)
{
    return (float)(rng_next() >> 8) / 16777216.0f;
}

static cublasHandle_t g_blas;
static char g_msg[512];

static void *dev_alloc(size_t bytes)
{
    void *p = NULL;
    CK(cudaMalloc(&p, bytes));
    return p;
}

static void *host_alloc(size_t bytes)
{
    void *p = malloc(bytes);
    if (p == NULL) {
        fprintf(stderr, "out of host memory (%zu bytes)\n", bytes);
        exit(1);
    }
    return p;
}

/* device -> host on s, then wait for s */
static void fetch(void *dst, const void *src, size_t bytes, cudaStream_t s)
{
    CK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToHost, s));
    CK(cudaStreamSynchronize(s));
}

/* A row this test calls: one of an op's hand rows from the catalog (its
 * launchers v->fn and v->fn2, of the contract the op's file documents), or a
 * library row through the test's own call (row NULL). */
typedef struct {
    const char *name;
    variant_fn fn, fn2;
    const variant *row;
} lab_row;

#define LAB_LIBS_MAX 4
#define LAB_ROWS_MAX (CATALOG_ROWS_MAX + LAB_LIBS_MAX)

/* Fills rows with op's hand rows (each with a second launcher when two is
 * set), then libs[0 .. nlibs), every library row of the op being among them;
 * the hand rows' count in *hands, all rows' returned. */
static int lab_rows(const char *op, const lab_row *libs, int nlibs, int two, lab_row *rows, int *hands)
{
    const variant *h[CATALOG_ROWS_MAX];
    const char *names[LAB_LIBS_MAX];
    const int n = catalog_hand_rows(op, h, CATALOG_ROWS_MAX);
    for (int v = 0; v < n; v++) {
        rows[v] = (lab_row){h[v]->info.name, h[v]->fn, h[v]->fn2, h[v]};
        CHECK(!two || h[v]->fn2 != NULL, "%s %s: no second launcher (fn2)", op, h[v]->info.name);
    }
    for (int l = 0; l < nlibs && l < LAB_LIBS_MAX; l++) {
        rows[n + l] = libs[l];
        names[l] = libs[l].name;
    }
    catalog_check_library_rows(op, names, nlibs);
    *hands = n;
    return n + nlibs;
}

static lab_row transposes[LAB_ROWS_MAX], hists[LAB_ROWS_MAX], scans[LAB_ROWS_MAX];
static int n_transposes, n_transpose_hands, n_hists, n_hist_hands, n_scans, n_scan_hands;

/* 1 when a hand row takes this case on this device (its supports hook; a
 * SKIP line says why not); library rows (row NULL) are the test's own calls.
 * The repeat loops ask once, before a row's first call:
 * rep < 2 && (rep || row_takes(...)). */
static int row_takes(const variant *row, const char *op, long long m, long long n, long long elems,
                     const char *type)
{
    plan_case pc;
    if (row == NULL) return 1;
    pc = catalog_case(op, m, n, 0, elems, type);
    return catalog_row_runs(row, &pc);
}

static int report_lib(int rc, const char *what)
{
    if (rc != 0)
        fprintf(stderr, "%s: %s\n", what, g_msg);
    return rc;
}

// ---- transpose ----------------------------------------------------------------

static int lib_transpose(const float *in, float *out, int m, int n, cudaStream_t s)
{
    (void)s; /* g_blas is bound to the test stream in main */
    return blas_transpose(g_blas, in, out, m, n);
}


/* COMPARE_TEST_QUICK=1 (under the slower compute-sanitizer tools): only the
 * cases up to this many elements (every tile edge still crossed) */
static long long labs_quick_cap = 0; /* 0: no cap */

static int labs_skip(long long elems) { return labs_quick_cap && elems > labs_quick_cap; }

static void test_transpose(cudaStream_t s)
{
    static const int shapes[][2] = {{1, 1},      {1, 2},       {2, 1},       {2, 2},      {31, 33},    {33, 31},
                                    {1, 1000},   {1000, 1},    {33, 4097},   {4097, 33},  {4, 8},      {64, 64},
                                    {65, 63},    {8, 1000},    {1000, 1000}, {1024, 1028}, {1, 65537}, {65537, 2},
                                    {4194400, 1}, {4194400, 4}};
    static const int offsets[][2] = {{0, 0}, {1, 0}, {0, 1}}; /* elements added to in, out */
    const size_t max_elems = (size_t)4194400 * 4;
    const size_t pad = 8;
    uint32_t *h_in = host_alloc((max_elems + pad) * 4);
    uint32_t *h_out = host_alloc((max_elems + pad) * 4);
    float *d_in = dev_alloc((max_elems + pad) * 4);
    float *d_out = dev_alloc((max_elems + pad) * 4);
    /* random normal floats of both signs, magnitudes 2^-7 .. 2^9 (28 random
     * bits): never the 0xff poison, never -0, and 1 * x + 0 * y == x bit for
     * bit should cuBLAS compute the beta term */
    for (size_t i = 0; i < max_elems + pad; i++) {
        uint32_t r = rng_next();
        h_in[i] = (r & 0x807fffffu) | ((120u + ((r >> 23) & 15u)) << 23);
    }
    CK(cudaMemcpyAsync(d_in, h_in, (max_elems + pad) * 4, cudaMemcpyHostToDevice, s));

    for (size_t si = 0; si < sizeof shapes / sizeof shapes[0]; si++) {
        const int m = shapes[si][0], n = shapes[si][1];
        const size_t elems = (size_t)m * n;
        const size_t noff = elems <= ((size_t)1 << 20) ? 3 : 1; /* unaligned runs on the smaller shapes */
        if (labs_skip((long long)elems)) continue;
        for (size_t oi = 0; oi < noff; oi++) {
            const int io = offsets[oi][0], oo = offsets[oi][1];
            for (int v = 0; v < n_transposes; v++)
                for (int rep = 0; rep < 2 && (rep || row_takes(transposes[v].row, "transpose", m, n, 0, NULL)); rep++) {
                    /* poison [d_out, d_out + oo + elems + 2): guards before and after */
                    CK(cudaMemsetAsync(d_out, 0xff, (oo + elems + 2) * 4, s));
                    kernel_ran_clear();
                    int rc = ((transpose_launcher)transposes[v].fn)(d_in + io, d_out + oo, m, n, s);
                    CHECK(rc == 0, "%s %dx%d in+%d out+%d: error %d", transposes[v].name, m, n, io, oo, rc);
                    fetch(h_out, d_out, (oo + elems + 2) * 4, s);
                    size_t bad = 0, first = 0;
                    const uint32_t *got = h_out + oo;
                    for (int i = 0; i < m; i++)
                        for (int j = 0; j < n; j++) {
                            size_t at = (size_t)j * m + i;
                            if (got[at] != h_in[io + (size_t)i * n + j] && !bad++)
                                first = at;
                        }
                    CHECK(bad == 0, "%s %dx%d in+%d out+%d rep %d: %zu elements wrong, first out[%zu]",
                          transposes[v].name, m, n, io, oo, rep, bad, first);
                    CHECK(got[elems] == 0xffffffffu && got[elems + 1] == 0xffffffffu &&
                              (oo == 0 || h_out[0] == 0xffffffffu),
                          "%s %dx%d in+%d out+%d: wrote outside the output", transposes[v].name, m, n, io, oo);
                    if ((transpose_launcher)transposes[v].fn == transpose_fast) {
                        const int vec = m % 4 == 0 && n % 4 == 0 && io == 0 && oo == 0;
                        const char *k = kernel_ran_name();
                        CHECK(k != NULL && (strstr(k, "vec4") != NULL) == vec,
                              "fast %dx%d in+%d out+%d: ran %s, expected the %s path", m, n, io, oo,
                              k ? k : "(none)", vec ? "vec4" : "scalar");
                    }
                }
        }
    }
    /* argument checks: nothing launched, cudaErrorInvalidValue */
    for (int v = 0; v < n_transpose_hands; v++) {
        const transpose_launcher fn = (transpose_launcher)transposes[v].fn;
        if (!row_takes(transposes[v].row, "transpose", 4, 4, 0, NULL)) continue;
        CHECK(fn(d_in, d_out, 0, 5, s) == (int)cudaErrorInvalidValue, "%s: m = 0 accepted",
              transposes[v].name);
        CHECK(fn(d_in, d_out, 5, -1, s) == (int)cudaErrorInvalidValue, "%s: n = -1 accepted",
              transposes[v].name);
        CHECK(fn(d_in, d_in, 4, 4, s) == (int)cudaErrorInvalidValue, "%s: in == out accepted",
              transposes[v].name);
    }
    CK(cudaStreamSynchronize(s));
    cudaFree(d_in);
    cudaFree(d_out);
    free(h_in);
    free(h_out);
}

// ---- histogram -------------------------------------------------------------------

static void *g_hist_temp;
static size_t g_hist_temp_bytes;

static int lib_cub_hist_u8(const uint8_t *x, long long n, unsigned int *bins, cudaStream_t s)
{
    return report_lib(shim_cub_histogram_u8(x, n, bins, g_hist_temp, g_hist_temp_bytes, s, g_msg, sizeof g_msg),
                      "cub histogram u8");
}

static int lib_cub_hist_f32(const float *x, long long n, float lo, float hi, unsigned int *bins, cudaStream_t s)
{
    return report_lib(shim_cub_histogram_f32(x, n, lo, hi, HISTOGRAM_F32_BINS, bins, g_hist_temp, g_hist_temp_bytes,
                                             s, g_msg, sizeof g_msg),
                      "cub histogram f32");
}


static const long long hist_lens[] = {1, 2, 31, 33, 1000, 4097, 65537, 1 << 20, (1 << 22) + 3};
#define HIST_MAX_N ((1LL << 22) + 3)
#define HIST_POISON 0xabababab

/* The bin rule of histogram.h, on the CPU: float operations (C11 evaluates
 * float expressions in float on x86-64 and does not contract), truncation. */
static float ref_scale(float lo, float hi)
{
    return (float)HISTOGRAM_F32_BINS / (hi - lo);
}

static int ref_bin_f32(float x, float lo, float hi, float r)
{
    if (!(x >= lo && x < hi))
        return -1;
    float t = (x - lo) * r;
    int b = (int)t;
    return b < HISTOGRAM_F32_BINS - 1 ? b : HISTOGRAM_F32_BINS - 1;
}

/* 1 if cub's formula gives an index past its last bin for x (see histogram.h) */
static int cub_past_last_bin(float x, float lo, float hi, float r)
{
    return x >= lo && x < hi && (int)((x - lo) * r) >= HISTOGRAM_F32_BINS;
}

/* Runs fn twice into poisoned bins and compares both results with ref. */
static void hist_check_counts(const char *what, const char *name, long long n, int off, const unsigned int *ref,
                              int nbins, unsigned int *d_bins, unsigned int *h_bins, int rep, int rc,
                              cudaStream_t s)
{
    CHECK(rc == 0, "%s %s n=%lld x+%d: error %d", what, name, n, off, rc);
    fetch(h_bins, d_bins, (size_t)nbins * 4, s);
    int bad = 0, first = 0;
    for (int b = 0; b < nbins; b++)
        if (h_bins[b] != ref[b] && !bad++)
            first = b;
    CHECK(bad == 0, "%s %s n=%lld x+%d rep %d: %d bins differ, first bin %d: %u, expected %u", what, name, n, off,
          rep, bad, first, h_bins[first], ref[first]);
}

static void test_histogram_u8(cudaStream_t s, uint8_t *d_x, unsigned int *d_bins)
{
    static const char *const kinds[] = {"uniform", "skewed", "one-value", "runs"};
    const size_t nx = HIST_MAX_N + 8;
    uint8_t *h_x = host_alloc(nx);
    unsigned int ref[HISTOGRAM_U8_BINS], h_bins[HISTOGRAM_U8_BINS];
    for (int kind = 0; kind < 4; kind++) {
        uint8_t run_value = 0;
        size_t run_left = 0;
        for (size_t i = 0; i < nx; i++) {
            uint32_t r = rng_next();
            if (kind == 0)
                h_x[i] = (uint8_t)(r >> 24);
            else if (kind == 1) /* 90% in bins 0, 7, 200; the rest uniform */
                h_x[i] = (r % 10) < 9 ? (uint8_t)((r >> 8) % 3 == 0 ? 0 : (r >> 8) % 3 == 1 ? 7 : 200)
                                      : (uint8_t)(r >> 24);
            else if (kind == 2)
                h_x[i] = 255;
            else { /* runs of 1..64 equal bytes: some 16-byte words uniform, some not */
                if (run_left == 0) {
                    run_value = (uint8_t)(r >> 24);
                    run_left = 1 + (r % 64);
                }
                h_x[i] = run_value;
                run_left--;
            }
        }
        CK(cudaMemcpyAsync(d_x, h_x, nx, cudaMemcpyHostToDevice, s));
        for (size_t li = 0; li < sizeof hist_lens / sizeof hist_lens[0]; li++) {
            if (labs_skip(hist_lens[li])) continue;
            const long long n = hist_lens[li];
            static const int offs[] = {0, 1, 3};
            const int noff = n <= (1 << 20) ? 3 : 1;
            for (int oi = 0; oi < noff; oi++) {
                const int off = offs[oi];
                memset(ref, 0, sizeof ref);
                for (long long i = 0; i < n; i++)
                    ref[h_x[off + i]]++;
                for (int v = 0; v < n_hists; v++)
                    for (int rep = 0; rep < 2 && (rep || row_takes(hists[v].row, "histogram", 0, 0, n, "u8")); rep++) {
                        CK(cudaMemsetAsync(d_bins, 0xab, HISTOGRAM_U8_BINS * 4, s));
                        int rc = ((histogram_u8_launcher)hists[v].fn)(d_x + off, n, d_bins, s);
                        hist_check_counts(kinds[kind], hists[v].name, n, off, ref, HISTOGRAM_U8_BINS, d_bins,
                                          h_bins, rep, rc, s);
                    }
            }
        }
    }
    for (int v = 0; v < n_hist_hands; v++) {
        const histogram_u8_launcher fn = (histogram_u8_launcher)hists[v].fn;
        if (!row_takes(hists[v].row, "histogram", 0, 0, 10, "u8")) continue;
        CHECK(fn(d_x, 0, d_bins, s) == (int)cudaErrorInvalidValue, "u8 %s: n = 0 accepted",
              hists[v].name);
        CHECK(fn(d_x, 10, NULL, s) == (int)cudaErrorInvalidValue, "u8 %s: NULL bins accepted",
              hists[v].name);
    }
    free(h_x);
}

static void test_histogram_f32(cudaStream_t s, float *d_x, unsigned int *d_bins)
{
    static const float ranges[][2] = {{0.0f, 1.0f}, {-1.5f, 2.25f}, {1000.0f, 1003.7f}};
    static const char *const kinds[] = {"uniform+edges", "skewed"};
    const size_t nx = HIST_MAX_N + 8;
    float *h_x = host_alloc(nx * 4);
    unsigned int *ref = host_alloc(HISTOGRAM_F32_BINS * 4);
    unsigned int *h_bins = host_alloc(HISTOGRAM_F32_BINS * 4);
    for (size_t ri = 0; ri < sizeof ranges / sizeof ranges[0]; ri++) {
        const float lo = ranges[ri][0], hi = ranges[ri][1];
        const float r = ref_scale(lo, hi);
        const float width = (hi - lo) / (float)HISTOGRAM_F32_BINS;
        for (int kind = 0; kind < 2; kind++) {
            for (size_t i = 0; i < nx; i++) {
                uint32_t q = rng_next();
                float x;
                if (kind == 0) {
                    /* mostly uniform over [lo - 5%, hi + 5%); 1 in 8 on or beside a bin edge */
                    if (q % 8 == 0) {
                        int k = (int)((q >> 3) % (HISTOGRAM_F32_BINS + 1));
                        x = lo + (float)k * width;
                        if ((q >> 16) % 3 == 1)
                            x = nextafterf(x, -INFINITY);
                        else if ((q >> 16) % 3 == 2)
                            x = nextafterf(x, INFINITY);
                    } else {
                        x = lo + (rng_unit() * 1.1f - 0.05f) * (hi - lo);
                    }
                } else {
                    /* 90% in bins 5, 500, 1000 */
                    int b = (q % 10) < 9 ? ((q >> 8) % 3 == 0 ? 5 : (q >> 8) % 3 == 1 ? 500 : 1000)
                                         : (int)((q >> 8) % HISTOGRAM_F32_BINS);
                    x = lo + ((float)b + rng_unit()) * width;
                }
                /* keep values cub would count past its last bin out of the shared data */
                if (cub_past_last_bin(x, lo, hi, r))
                    x = lo;
                h_x[i] = x;
            }
            if (kind == 0) { /* specials near the start, inside every length >= 17 */
                const float sp[] = {NAN, INFINITY, -INFINITY, -0.0f, lo, hi, nextafterf(lo, -INFINITY),
                                    -NAN, 1e30f, -1e30f, 0.0f, lo + width, hi - width};
                for (size_t j = 0; j < sizeof sp / sizeof sp[0]; j++)
                    h_x[1 + j] = cub_past_last_bin(sp[j], lo, hi, r) ? lo : sp[j];
            }
            CK(cudaMemcpyAsync(d_x, h_x, nx * 4, cudaMemcpyHostToDevice, s));
            for (size_t li = 0; li < sizeof hist_lens / sizeof hist_lens[0]; li++) {
                if (labs_skip(hist_lens[li])) continue;
                const long long n = hist_lens[li];
                const int noff = n <= (1 << 20) ? 2 : 1;
                for (int off = 0; off < noff; off++) {
                    char what[96];
                    snprintf(what, sizeof what, "f32 %s [%g, %g)", kinds[kind], (double)lo, (double)hi);
                    memset(ref, 0, HISTOGRAM_F32_BINS * 4);
                    for (long long i = 0; i < n; i++) {
                        int b = ref_bin_f32(h_x[off + i], lo, hi, r);
                        if (b >= 0)
                            ref[b]++;
                    }
                    for (int v = 0; v < n_hists; v++)
                        for (int rep = 0; rep < 2 && (rep || row_takes(hists[v].row, "histogram", 0, 0, n, "f32"));
                             rep++) {
                            CK(cudaMemsetAsync(d_bins, 0xab, HISTOGRAM_F32_BINS * 4, s));
                            int rc = ((histogram_f32_launcher)hists[v].fn2)(d_x + off, n, lo, hi, d_bins, s);
                            hist_check_counts(what, hists[v].name, n, off, ref, HISTOGRAM_F32_BINS, d_bins,
                                              h_bins, rep, rc, s);
                        }
                }
            }
        }
    }
    /* the clamp (hand kernels only): just below hi, where rounding gives bin
     * 1024 for [-1.5, 2.25), counted in the last bin */
    {
        const float lo = -1.5f, hi = 2.25f, r = ref_scale(lo, hi);
        float x = nextafterf(hi, -INFINITY);
        float vals[40];
        CHECK(cub_past_last_bin(x, lo, hi, r), "the clamp case no longer arises for [-1.5, 2.25): pick another");
        for (int j = 0; j < 40; j++)
            vals[j] = j % 2 ? x : lo + 0.5f;
        CK(cudaMemcpyAsync(d_x, vals, sizeof vals, cudaMemcpyHostToDevice, s));
        for (int v = 0; v < n_hist_hands; v++) {
            if (!row_takes(hists[v].row, "histogram", 0, 0, 40, "f32")) continue;
            CK(cudaMemsetAsync(d_bins, 0xab, HISTOGRAM_F32_BINS * 4, s));
            int rc = ((histogram_f32_launcher)hists[v].fn2)(d_x, 40, lo, hi, d_bins, s);
            CHECK(rc == 0, "clamp %s: error %d", hists[v].name, rc);
            fetch(h_bins, d_bins, HISTOGRAM_F32_BINS * 4, s);
            int b_mid = ref_bin_f32(lo + 0.5f, lo, hi, r);
            unsigned int total = 0;
            for (int b = 0; b < HISTOGRAM_F32_BINS; b++)
                total += h_bins[b];
            CHECK(h_bins[HISTOGRAM_F32_BINS - 1] == 20 && h_bins[b_mid] == 20 && total == 40,
                  "clamp %s: last bin %u, bin %d %u, total %u (expected 20, 20, 40)", hists[v].name,
                  h_bins[HISTOGRAM_F32_BINS - 1], b_mid, h_bins[b_mid], total);
        }
    }
    for (int v = 0; v < n_hist_hands; v++) {
        const histogram_f32_launcher fn = (histogram_f32_launcher)hists[v].fn2;
        if (!row_takes(hists[v].row, "histogram", 0, 0, 10, "f32")) continue;
        CHECK(fn(d_x, 10, 1.0f, 1.0f, d_bins, s) == (int)cudaErrorInvalidValue,
              "f32 %s: lo == hi accepted", hists[v].name);
        CHECK(fn(d_x, 10, 0.0f, INFINITY, d_bins, s) == (int)cudaErrorInvalidValue,
              "f32 %s: hi = inf accepted", hists[v].name);
        CHECK(fn(d_x, 0, 0.0f, 1.0f, d_bins, s) == (int)cudaErrorInvalidValue,
              "f32 %s: n = 0 accepted", hists[v].name);
        CHECK(fn((const float *)((const char *)d_x + 2), 10, 0.0f, 1.0f, d_bins, s) ==
                  (int)cudaErrorInvalidValue,
              "f32 %s: a float pointer off by 2 bytes accepted", hists[v].name);
    }
    free(h_x);
    free(ref);
    free(h_bins);
}

static void test_histogram(cudaStream_t s)
{
    void *d_x = dev_alloc((size_t)(HIST_MAX_N + 8) * 4);
    unsigned int *d_bins = dev_alloc(HISTOGRAM_F32_BINS * 4);
    /* one cub temp buffer, the largest any call below asks for */
    g_hist_temp_bytes = 0;
    for (size_t li = 0; li < sizeof hist_lens / sizeof hist_lens[0]; li++) {
        if (labs_skip(hist_lens[li])) continue;
        size_t b_u8 = 0, b_f32 = 0;
        CHECK(shim_cub_histogram_u8_temp_bytes(hist_lens[li], &b_u8, g_msg, sizeof g_msg) == 0, "u8 temp: %s",
              g_msg);
        CHECK(shim_cub_histogram_f32_temp_bytes(hist_lens[li], HISTOGRAM_F32_BINS, &b_f32, g_msg, sizeof g_msg) == 0,
              "f32 temp: %s", g_msg);
        if (b_u8 > g_hist_temp_bytes)
            g_hist_temp_bytes = b_u8;
        if (b_f32 > g_hist_temp_bytes)
            g_hist_temp_bytes = b_f32;
    }
    g_hist_temp = dev_alloc(g_hist_temp_bytes ? g_hist_temp_bytes : 16);
    test_histogram_u8(s, d_x, d_bins);
    test_histogram_f32(s, d_x, d_bins);
    CK(cudaStreamSynchronize(s));
    cudaFree(g_hist_temp);
    cudaFree(d_x);
    cudaFree(d_bins);
}

// ---- scan --------------------------------------------------------------------------

static void *g_scan_temp;
static size_t g_scan_temp_bytes;

static int lib_cub_scan_f32(const float *in, float *out, long long n, void *scratch, size_t sb, cudaStream_t s)
{
    (void)scratch;
    (void)sb;
    return report_lib(shim_cub_scan_f32(in, out, n, g_scan_temp, g_scan_temp_bytes, s, g_msg, sizeof g_msg),
                      "cub scan f32");
}

static int lib_thrust_scan_f32(const float *in, float *out, long long n, void *scratch, size_t sb, cudaStream_t s)
{
    (void)scratch;
    (void)sb;
    return report_lib(shim_thrust_scan_f32(in, out, n, s, g_msg, sizeof g_msg), "thrust scan f32");
}

static int lib_cub_scan_i32(const int32_t *in, int32_t *out, long long n, void *scratch, size_t sb, cudaStream_t s)
{
    (void)scratch;
    (void)sb;
    return report_lib(shim_cub_scan_i32(in, out, n, g_scan_temp, g_scan_temp_bytes, s, g_msg, sizeof g_msg),
                      "cub scan i32");
}

static int lib_thrust_scan_i32(const int32_t *in, int32_t *out, long long n, void *scratch, size_t sb,
                               cudaStream_t s)
{
    (void)scratch;
    (void)sb;
    return report_lib(shim_thrust_scan_i32(in, out, n, s, g_msg, sizeof g_msg), "thrust scan i32");
}


/* 2943..2945: the scalar (misaligned) decoupled tile's edge; 3583..3585: the vector tile's */
static const long long scan_lens[] = {1,    2,    31,   33,   1000, 1023,  1024,    1025,          2943,
                                      2944, 2945, 3583, 3584, 3585, 4097,  65537,   1 << 20,       (1 << 20) + 1,
                                      (1 << 22) + 3};
#define SCAN_MAX_N ((1LL << 22) + 3)

/* Float scan bound: per element verify_scan_ratio(y_i, r_i, A_i) <=
 * verify_scan_tolerance(n), r_i the double inclusive sum and A_i =
 * |x_0| + ... + |x_i| (the rule and its derivation: src/core/verify.h). */

/* 0: integers -2..2 as floats (exact); 1: uniform [0, 1); 2: uniform [-1, 1) */
static void scan_fill_f32(float *x, size_t n, int kind)
{
    for (size_t i = 0; i < n; i++) {
        if (kind == 0)
            x[i] = (float)((int)(rng_next() % 5) - 2);
        else if (kind == 1)
            x[i] = rng_unit();
        else
            x[i] = 2.0f * rng_unit() - 1.0f;
    }
}

static void test_scan_f32(cudaStream_t s, void *scratch, size_t sb, void *d_in_v, void *d_out_v)
{
    static const char *const kinds[] = {"integers", "uniform[0,1)", "uniform[-1,1)"};
    static const int offsets[][2] = {{0, 0}, {1, 0}, {0, 1}};
    float *d_in = d_in_v, *d_out = d_out_v;
    const size_t nx = SCAN_MAX_N + 8;
    float *h_x = host_alloc(nx * 4);
    float *h_y = host_alloc(nx * 4);
    double *ref = host_alloc(nx * 8), *abs_sum = host_alloc(nx * 8);
    for (int kind = 0; kind < 3; kind++) {
        scan_fill_f32(h_x, nx, kind);
        CK(cudaMemcpyAsync(d_in, h_x, nx * 4, cudaMemcpyHostToDevice, s));
        for (size_t li = 0; li < sizeof scan_lens / sizeof scan_lens[0]; li++) {
            if (labs_skip(scan_lens[li])) continue;
            const long long n = scan_lens[li];
            const int noff = n <= (1 << 20) + 1 ? 3 : 1;
            const double tol = kind == 0 ? 0.0 : verify_scan_tolerance(n);
            /* scratch contents are the launcher's business: vary them */
            CK(cudaMemsetAsync(scratch, li % 2 ? 0x00 : 0xff, sb, s));
            for (int oi = 0; oi < noff; oi++) {
                const int io = offsets[oi][0], oo = offsets[oi][1];
                double acc = 0.0, aacc = 0.0;
                for (long long i = 0; i < n; i++) {
                    acc += h_x[io + i];
                    aacc += fabs((double)h_x[io + i]);
                    ref[i] = acc;
                    abs_sum[i] = aacc;
                }
                for (int v = 0; v < n_scans; v++)
                    for (int rep = 0; rep < 2 && (rep || row_takes(scans[v].row, "scan", 0, 0, n, "f32")); rep++) {
                        CK(cudaMemsetAsync(d_out, 0xff, (oo + n + 2) * 4, s));
                        int rc = ((scan_f32_launcher)scans[v].fn2)(d_in + io, d_out + oo, n, scratch, sb, s);
                        CHECK(rc == 0, "scan f32 %s n=%lld: error %d", scans[v].name, n, rc);
                        fetch(h_y, d_out, (oo + n + 2) * 4, s);
                        const float *y = h_y + oo;
                        long long bad = 0, first = 0;
                        double worst = 0.0;
                        for (long long i = 0; i < n; i++) {
                            double q = verify_scan_ratio(y[i], ref[i], abs_sum[i]);
                            if (!(q <= tol) && !bad++) /* NaN fails too */
                                first = i;
                            if (q > worst)
                                worst = q;
                        }
                        CHECK(bad == 0,
                              "scan f32 %s %s n=%lld in+%d out+%d rep %d: %lld wrong, first [%lld] = %.9g vs %.9g "
                              "(tol %.3g x %.6g)",
                              scans[v].name, kinds[kind], n, io, oo, rep, bad, first, (double)y[first], ref[first],
                              tol, abs_sum[first]);
                        uint32_t g0, g1, g2;
                        memcpy(&g0, &y[n], 4);
                        memcpy(&g1, &y[n + 1], 4);
                        memcpy(&g2, h_y, 4);
                        CHECK(g0 == 0xffffffffu && g1 == 0xffffffffu && (oo == 0 || g2 == 0xffffffffu),
                              "scan f32 %s n=%lld: wrote outside the output", scans[v].name, n);
                        if (kind == 1 && n == (1 << 22) + 3 && rep == 0)
                            printf("scan f32 %-13s n=%lld uniform[0,1): worst |err| / A_i = %.3g (tol %.3g)\n",
                                   scans[v].name, n, worst, tol);
                    }
            }
        }
    }
    free(h_x);
    free(h_y);
    free(ref);
    free(abs_sum);
}

static void test_scan_i32(cudaStream_t s, void *scratch, size_t sb, void *d_in_v, void *d_out_v)
{
    static const int offsets[][2] = {{0, 0}, {1, 0}, {0, 1}};
    int32_t *d_in = d_in_v, *d_out = d_out_v;
    const size_t nx = SCAN_MAX_N + 8;
    int32_t *h_x = host_alloc(nx * 4);
    int32_t *h_y = host_alloc(nx * 4);
    int32_t *ref = host_alloc(nx * 4);
    for (int kind = 0; kind < 2; kind++) {
        /* 0: -8..8 (no overflow: |sum| <= 8 n < 2^31); 1: values near 2^30,
         * wrapping many times (hand kernels only: signed overflow is
         * undefined for cub and thrust) */
        for (size_t i = 0; i < nx; i++)
            h_x[i] = kind == 0 ? (int32_t)(rng_next() % 17) - 8 : (int32_t)(0x40000000u - (rng_next() % 1000));
        CK(cudaMemcpyAsync(d_in, h_x, nx * 4, cudaMemcpyHostToDevice, s));
        for (size_t li = 0; li < sizeof scan_lens / sizeof scan_lens[0]; li++) {
            if (labs_skip(scan_lens[li])) continue;
            const long long n = scan_lens[li];
            const int noff = n <= (1 << 20) + 1 ? 3 : 1;
            CK(cudaMemsetAsync(scratch, li % 2 ? 0xff : 0x00, sb, s));
            for (int oi = 0; oi < noff; oi++) {
                const int io = offsets[oi][0], oo = offsets[oi][1];
                uint32_t acc = 0;
                for (long long i = 0; i < n; i++) {
                    acc += (uint32_t)h_x[io + i];
                    ref[i] = (int32_t)acc;
                }
                const int nv = kind == 0 ? n_scans : n_scan_hands;
                for (int v = 0; v < nv; v++)
                    for (int rep = 0; rep < 2 && (rep || row_takes(scans[v].row, "scan", 0, 0, n, "i32")); rep++) {
                        CK(cudaMemsetAsync(d_out, 0x7f, (oo + n + 2) * 4, s));
                        int rc = ((scan_i32_launcher)scans[v].fn)(d_in + io, d_out + oo, n, scratch, sb, s);
                        CHECK(rc == 0, "scan i32 %s n=%lld: error %d", scans[v].name, n, rc);
                        fetch(h_y, d_out, (oo + n + 2) * 4, s);
                        const int32_t *y = h_y + oo;
                        long long bad = 0, first = 0;
                        for (long long i = 0; i < n; i++)
                            if (y[i] != ref[i] && !bad++)
                                first = i;
                        CHECK(bad == 0, "scan i32 %s %s n=%lld in+%d out+%d rep %d: %lld wrong, first [%lld] = %d vs %d",
                              scans[v].name, kind ? "wrapping" : "small", n, io, oo, rep, bad, first, y[first],
                              ref[first]);
                        CHECK(y[n] == 0x7f7f7f7f && y[n + 1] == 0x7f7f7f7f && (oo == 0 || h_y[0] == 0x7f7f7f7f),
                              "scan i32 %s n=%lld: wrote outside the output", scans[v].name, n);
                    }
            }
        }
    }
    /* in place (in == out), every launcher, integer data: exact */
    {
        static const long long lens[] = {65537, (1 << 20) + 1};
        for (size_t li = 0; li < 2; li++) {
            const long long n = lens[li];
            for (long long i = 0; i < n; i++)
                h_x[i] = (int32_t)(rng_next() % 17) - 8;
            int32_t run = 0;
            for (long long i = 0; i < n; i++)
                ref[i] = run += h_x[i];
            for (int v = 0; v < n_scans; v++) {
                if (!row_takes(scans[v].row, "scan", 0, 0, n, "i32")) continue;
                CK(cudaMemcpyAsync(d_out, h_x, (size_t)n * 4, cudaMemcpyHostToDevice, s));
                int rc = ((scan_i32_launcher)scans[v].fn)(d_out, d_out, n, scratch, sb, s);
                CHECK(rc == 0, "in-place scan i32 %s n=%lld: error %d", scans[v].name, n, rc);
                fetch(h_y, d_out, (size_t)n * 4, s);
                CHECK(memcmp(h_y, ref, (size_t)n * 4) == 0, "in-place scan i32 %s n=%lld differs", scans[v].name,
                      n);
            }
        }
    }
    /* argument checks */
    for (int v = 0; v < n_scan_hands; v++) {
        const plan_case pc = catalog_case("scan", 0, 0, 0, 1000, "i32");
        const scan_i32_launcher fn = (scan_i32_launcher)scans[v].fn;
        if (!catalog_row_runs(scans[v].row, &pc)) continue;
        CHECK(fn(d_in, d_out, 0, scratch, sb, s) == (int)cudaErrorInvalidValue, "%s: n = 0 accepted",
              scans[v].name);
        CHECK(fn(d_in, d_out, 1000, scratch, catalog_row_workspace(scans[v].row, &pc) - 1, s) ==
                  (int)cudaErrorInvalidValue,
              "%s: a scratch one byte short accepted", scans[v].name);
        CHECK(fn(d_in, d_out, 1000, NULL, sb, s) == (int)cudaErrorInvalidValue,
              "%s: NULL scratch accepted", scans[v].name);
    }
    free(h_x);
    free(h_y);
    free(ref);
}

static void test_scan(cudaStream_t s)
{
    const size_t nx = SCAN_MAX_N + 8;
    size_t sb = 16;
    /* one scratch for every hand row: the largest their workspace hooks ask for */
    for (int v = 0; v < n_scan_hands; v++) {
        const plan_case pi = catalog_case("scan", 0, 0, 0, SCAN_MAX_N, "i32");
        const plan_case pf = catalog_case("scan", 0, 0, 0, SCAN_MAX_N, "f32");
        const size_t bi = catalog_row_workspace(scans[v].row, &pi), bf = catalog_row_workspace(scans[v].row, &pf);
        if (bi > sb) sb = bi;
        if (bf > sb) sb = bf;
    }
    void *scratch = dev_alloc(sb);
    void *d_in = dev_alloc(nx * 4);
    void *d_out = dev_alloc(nx * 4);
    CHECK(scan_scratch_bytes(1) >= 256 && scan_scratch_bytes(SCAN_MAX_N) >= scan_scratch_bytes(1 << 20),
          "scan_scratch_bytes: %zu at 1, %zu at max", scan_scratch_bytes(1), sb);
    CHECK(shim_cub_scan_temp_bytes(SCAN_MAX_N, &g_scan_temp_bytes, g_msg, sizeof g_msg) == 0, "cub scan temp: %s",
          g_msg);
    g_scan_temp = dev_alloc(g_scan_temp_bytes ? g_scan_temp_bytes : 16);
    test_scan_f32(s, scratch, sb, d_in, d_out);
    test_scan_i32(s, scratch, sb, d_in, d_out);
    CK(cudaStreamSynchronize(s));
    cudaFree(g_scan_temp);
    cudaFree(scratch);
    cudaFree(d_in);
    cudaFree(d_out);
}

int main(void)
{
    cudaStream_t s;
    const char *env = getenv("COMPARE_TEST_SEED"), *quick = getenv("COMPARE_TEST_QUICK");
    test_require_gpu();
    if (quick && strcmp(quick, "1") == 0) labs_quick_cap = 70000;
    rng_state = env ? strtoull(env, NULL, 10) : (uint64_t)time(NULL);
    printf("seed %llu (set COMPARE_TEST_SEED to repeat)\n", (unsigned long long)rng_state);
    CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    if (cublasCreate(&g_blas) != CUBLAS_STATUS_SUCCESS || cublasSetStream(g_blas, s) != CUBLAS_STATUS_SUCCESS) {
        fprintf(stderr, "cublasCreate / cublasSetStream failed\n");
        return 1;
    }
    {
        static const lab_row transpose_libs[] = {{"cublas_geam", (variant_fn)lib_transpose, NULL, NULL}};
        static const lab_row hist_libs[] = {{"cub", (variant_fn)lib_cub_hist_u8, (variant_fn)lib_cub_hist_f32, NULL}};
        static const lab_row scan_libs[] = {{"cub", (variant_fn)lib_cub_scan_i32, (variant_fn)lib_cub_scan_f32, NULL},
                                            {"thrust", (variant_fn)lib_thrust_scan_i32,
                                             (variant_fn)lib_thrust_scan_f32, NULL}};
        n_transposes = lab_rows("transpose", transpose_libs, 1, 0, transposes, &n_transpose_hands);
        n_hists = lab_rows("histogram", hist_libs, 1, 1, hists, &n_hist_hands);
        n_scans = lab_rows("scan", scan_libs, 2, 1, scans, &n_scan_hands);
    }
    test_transpose(s);
    test_histogram(s);
    test_scan(s);
    CHECK(cudaGetLastError() == cudaSuccess, "a CUDA error was left behind");
    cublasDestroy(g_blas);
    CK(cudaStreamDestroy(s));
    return test_finish("test_gpu_labs");
}
