/* tests/test_gpu_candidates.c (gpu): the one tuning path, `compare
 * --candidates FAMILY`, end to end. For every family built, compare runs its
 * candidates at n = 260 (every candidate takes it) and 258 (the wgmma, TMA
 * and transpose candidates decline n % 4 != 0), and on one shape of
 * shapes/awkward.txt's kind, 97 x 1030 x 257 (m odd, n and k not multiples of
 * 4; the sgemm families only), into a CSV; every candidate
 * of the family's table (kernels/search/: count and names, read here
 * straight from the table, not from compare's catalog) must have one row per
 * size, named as the candidate, `kernel` the candidate, `source`
 * candidates:FAMILY, and be either verified (ok, an error within its
 * tolerance, a time) or SKIP with a reason, but the rows that take every
 * shape (check_takes_every_shape: an _edge row where its row without _edge
 * ran, tf32_tma_lean_staging on a GPU with TMA), which must be ok; the
 * library rows run beside them, the shipped hand rows do not. The
 * attention family fa3 (K/V tiles, kernels/search/attention_fa3_search.h)
 * runs through --ops attention at batch 1 x heads 3 x 1000 x 1000, head_dim
 * 64, 128 and 256, causal 0 and 1, bf16 and fp16: cudnn_sdpa beside it, not
 * the shipped fa3 row; each candidate a row per case, named and `kernel` as
 * the candidate, verified ok at head_dim 64 and 128 on an unforced cc 9.0
 * device (else SKIP naming sm_90), SKIP at head_dim 256; the fa3_w3_*
 * candidates (3 consumer warpgroups) over 80 keys (k112, k128) SKIP at
 * head_dim 128 too. Exit 77
 * without a GPU. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "attention_fa3_search.h"
#include "sgemm_search.h"
#include "sgemm_tf32_tma.h"
#include "testlib_gpu.h"
#include "transpose_search.h"

typedef struct {
    const char *family;
    const char *library; /* the reference library row expected beside it */
    int (*count)(void);
    const char *(*name)(int);
} cand_family;

static const cand_family families[] = {
    {"tuned", "cublas_fp32", sgemm_search_count, sgemm_search_name},
    {"tf32_mma", "cublas_tf32", sgemm_tf32_search_count, sgemm_tf32_search_name},
    {"tf32_wgmma", "cublas_tf32", sgemm_tf32_wgmma_search_count, sgemm_tf32_wgmma_search_name},
    {"tf32_tma", "cublas_tf32", sgemm_tf32_tma_search_count, sgemm_tf32_tma_search_name},
    {"transpose_fast", "cublas_geam", transpose_search_count, transpose_search_name},
};

/* the n of each case (a row is found by its variant and n) */
static const char *const sizes[] = {"260", "258", "1030"};
#define AWKWARD_SHAPE "97x1030x257"

static int is_sgemm_family(const cand_family *f)
{
    return strcmp(f->library, "cublas_fp32") == 0 || strcmp(f->library, "cublas_tf32") == 0;
}

/* The row of `variant` at size n, or -1 (a second one: -2). */
static int find_row(const test_csv_doc *d, const char *variant, const char *n)
{
    int found = -1;
    for (int r = 1; r < d->nrec; r++)
        if (strcmp(test_csv_cell(d, r, "variant"), variant) == 0 && strcmp(test_csv_cell(d, r, "n"), n) == 0)
            found = found == -1 ? r : -2;
    return found;
}

static int row_ok(const test_csv_doc *d, int r)
{
    return r > 0 && strcmp(test_csv_cell(d, r, "status"), "ok") == 0;
}

/* The rows that take every shape their family's kernels take: an _edge row of
 * `tuned` wherever its row without _edge ran (the same kernels, another rule
 * for which one), and tf32_tma_lean_staging at every size once the family
 * ran a kernel at n = 260 (the GPU has TMA): a SKIP of either is a failure. */
static void check_takes_every_shape(const test_csv_doc *d, const cand_family *f, int nsizes)
{
    int family_ran = 0;
    for (int i = 0; i < f->count(); i++) family_ran |= row_ok(d, find_row(d, f->name(i), "260"));
    for (int i = 0; i < f->count(); i++) {
        const char *name = f->name(i);
        const size_t len = strlen(name);
        char base[128] = "";
        if (len > 5 && len - 5 < sizeof base && strcmp(name + len - 5, "_edge") == 0)
            memcpy(base, name, len - 5);
        const int lean = strcmp(name, SGEMM_TF32_TMA_LEAN_NAME) == 0;
        for (int s = 0; s < nsizes; s++) {
            if (base[0] && row_ok(d, find_row(d, base, sizes[s])))
                CHECK(row_ok(d, find_row(d, name, sizes[s])), "%s at n=%s: not ok where %s ran", name, sizes[s], base);
            if (lean && family_ran)
                CHECK(row_ok(d, find_row(d, name, sizes[s])), "%s at n=%s: not ok (it takes every shape)", name,
                      sizes[s]);
        }
    }
}

static void check_family(const cand_family *f)
{
    char csv[] = "/tmp/test_gpu_candidates_XXXXXX";
    char source[64];
    test_proc p;
    int fd = mkstemp(csv);
    CHECK(fd >= 0, "mkstemp");
    if (fd < 0) return;
    close(fd);
    const int nsizes = is_sgemm_family(f) ? 3 : 2;
    char *argv[] = {COMPARE_BIN, "--candidates", (char *)f->family, "--n", "260,258", "--reps", "2", "--max-reps",
                    "3", "--max-time", "0.1", "--warmup", "1", "--quiet", "--csv", csv,
                    nsizes == 3 ? "--shape" : NULL, AWKWARD_SHAPE, NULL};
    test_run(argv, NULL, 0, 0, 600, &p);
    CHECK(p.status == 0, "--candidates %s: exit %d: %.2000s", f->family, p.status, p.err);
    CHECK(test_contains(p.out, f->library), "--candidates %s: no %s in the table", f->family, f->library);
    char *text = test_read_file(csv);
    remove(csv);
    CHECK(text != NULL, "--candidates %s: no CSV", f->family);
    if (!text) return;
    test_csv_doc d;
    test_csv_parse(text, &d);
    free(text);
    CHECK(d.ok && d.nrec > 1, "--candidates %s: CSV unreadable or empty", f->family);
    snprintf(source, sizeof source, "candidates:%s", f->family);
    CHECK(f->count() >= 1, "family %s has no candidate", f->family);
    for (int s = 0; s < nsizes; s++) {
        int lib = find_row(&d, f->library, sizes[s]);
        CHECK(lib > 0 && strcmp(test_csv_cell(&d, lib, "status"), "ok") == 0, "--candidates %s n=%s: %s row %d",
              f->family, sizes[s], f->library, lib);
        CHECK(find_row(&d, "naive", sizes[s]) == -1 && find_row(&d, "fast", sizes[s]) == -1 &&
                  find_row(&d, f->family, sizes[s]) == -1,
              "--candidates %s alone ran shipped hand rows", f->family);
        for (int i = 0; i < f->count(); i++) {
            const char *name = f->name(i);
            const int r = find_row(&d, name, sizes[s]);
            CHECK(r > 0, "%s candidate %s at n=%s: %s", f->family, name, sizes[s], r == -1 ? "no row" : "two rows");
            if (r <= 0) continue;
            const char *st = test_csv_cell(&d, r, "status");
            /* a declined row (SKIP before it ran: another GPU, the forced policy mode) names no kernel */
            CHECK((strcmp(test_csv_cell(&d, r, "kernel"), name) == 0 ||
                   (strcmp(st, "SKIP") == 0 && test_csv_cell(&d, r, "kernel")[0] == '\0')) &&
                      strcmp(test_csv_cell(&d, r, "source"), source) == 0,
                  "%s at n=%s: kernel '%s', source '%s'", name, sizes[s], test_csv_cell(&d, r, "kernel"),
                  test_csv_cell(&d, r, "source"));
            if (strcmp(st, "ok") == 0) {
                const double err = atof(test_csv_cell(&d, r, "rel_err"));
                const double tol = atof(test_csv_cell(&d, r, "tolerance"));
                CHECK(err >= 0 && err <= tol && atof(test_csv_cell(&d, r, "time_ms_median")) > 0 &&
                          test_csv_cell(&d, r, "pct_of_ref_library")[0] != '\0',
                      "%s at n=%s: ok with rel err %g (tolerance %g), time '%s'", name, sizes[s], err, tol,
                      test_csv_cell(&d, r, "time_ms_median"));
            } else {
                CHECK(strcmp(st, "SKIP") == 0 && strlen(test_csv_cell(&d, r, "message")) > 8,
                      "%s at n=%s: status %s, message '%s' (ok or SKIP with a reason expected)", name, sizes[s], st,
                      test_csv_cell(&d, r, "message"));
            }
        }
    }
    check_takes_every_shape(&d, f, nsizes);
    test_csv_doc_free(&d);
}

/* The attention family fa3 (see the header): 12 cases, every candidate a row each */
static void check_attention_family(void)
{
    char csv[] = "/tmp/test_gpu_candidates_XXXXXX";
    test_proc p;
    int fd = mkstemp(csv);
    CHECK(fd >= 0, "mkstemp");
    if (fd < 0) return;
    close(fd);
    int dev = 0, major = 0, minor = 0;
    CHECK(cudaGetDevice(&dev) == cudaSuccess &&
              cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev) == cudaSuccess &&
              cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev) == cudaSuccess,
          "device attributes");
    const char *forced = getenv("COMPARE_POLICY_ARCH");
    const int hopper = major == 9 && minor == 0 && !(forced && forced[0]);
    char *argv[] = {COMPARE_BIN, "--ops", "attention", "--candidates", "fa3", "--axis", "batch=1", "--axis",
                    "heads=3", "--axis", "seq_q=1000", "--axis", "seq_kv=1000", "--axis", "head_dim=64,128,256",
                    "--axis", "causal=0,1", "--axis", "type=bf16,fp16", "--reps", "2", "--max-reps", "3",
                    "--max-time", "0.1", "--warmup", "1", "--quiet", "--csv", csv, NULL};
    test_run(argv, NULL, 0, 0, 600, &p);
    CHECK(p.status == 0, "--candidates fa3: exit %d: %.2000s", p.status, p.err);
    char *text = test_read_file(csv);
    remove(csv);
    CHECK(text != NULL, "--candidates fa3: no CSV");
    if (!text) return;
    test_csv_doc d;
    test_csv_parse(text, &d);
    free(text);
    CHECK(d.ok && d.nrec > 1, "--candidates fa3: CSV unreadable or empty");
    const int n = attention_fa3_search_count();
    CHECK(n >= 1, "family fa3 has no candidate");
    int sdpa = 0, cand_rows = 0;
    for (int r = 1; r < d.nrec; r++) {
        const char *v = test_csv_cell(&d, r, "variant"), *shape = test_csv_cell(&d, r, "shape");
        const char *st = test_csv_cell(&d, r, "status");
        sdpa += strcmp(v, "cudnn_sdpa") == 0;
        CHECK(strcmp(v, "fa3") != 0 && strcmp(v, "fa2") != 0, "--candidates fa3 ran the shipped row %s", v);
        int cand = -1;
        for (int i = 0; i < n; i++)
            if (strcmp(v, attention_fa3_search_name(i)) == 0) cand = i;
        if (cand < 0) continue;
        cand_rows++;
        CHECK(strcmp(test_csv_cell(&d, r, "source"), "candidates:fa3") == 0, "%s %s: source '%s'", v, shape,
              test_csv_cell(&d, r, "source"));
        if (test_contains(shape, "head_dim=256")) {
            CHECK(strcmp(st, "SKIP") == 0, "%s %s: %s (head_dim 256 is declined)", v, shape, st);
        } else if ((strcmp(v, "fa3_w3_k112") == 0 || strcmp(v, "fa3_w3_k128") == 0) &&
                   test_contains(shape, "head_dim=128")) {
            CHECK(strcmp(st, "SKIP") == 0, "%s %s: %s (3 warpgroups decline head_dim 128 over 80 keys)", v, shape,
                  st);
        } else if (hopper) {
            const double err = atof(test_csv_cell(&d, r, "rel_err"));
            const double tol = atof(test_csv_cell(&d, r, "tolerance"));
            CHECK(strcmp(st, "ok") == 0 && strcmp(test_csv_cell(&d, r, "kernel"), v) == 0 && err >= 0 &&
                      err <= tol && atof(test_csv_cell(&d, r, "time_ms_median")) > 0,
                  "%s %s %s: status %s (%s), kernel '%s', rel err %g (tolerance %g)", v,
                  test_csv_cell(&d, r, "math"), shape, st, test_csv_cell(&d, r, "message"),
                  test_csv_cell(&d, r, "kernel"), err, tol);
        } else {
            CHECK(strcmp(st, "SKIP") == 0 && test_contains(test_csv_cell(&d, r, "message"), "sm_90"),
                  "%s %s off sm_90: status %s (%s)", v, shape, st, test_csv_cell(&d, r, "message"));
        }
    }
    CHECK(sdpa == 12, "--candidates fa3: %d cudnn_sdpa rows (12 cases)", sdpa);
    CHECK(cand_rows == 12 * n, "--candidates fa3: %d candidate rows, %d expected", cand_rows, 12 * n);
    test_csv_doc_free(&d);
}

int main(void)
{
    test_require_gpu();
    for (size_t i = 0; i < sizeof families / sizeof families[0]; i++) check_family(&families[i]);
    check_attention_family();
    return test_finish("test_gpu_candidates");
}
