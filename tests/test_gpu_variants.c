/* tests/test_gpu_variants.c: every visible variant of every op, checked
 * against its reference at awkward sizes, through the same code path as
 * `compare --check-only` (poison, run once, verify). Fresh inputs each run:
 * the seed comes from the clock (or COMPARE_TEST_SEED) and is printed. */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "device.h"
#include "run.h"
#include "testlib.h"
#include "variants.h"

typedef struct {
    int rows, ok;
    const char *what;
} collect;

static void collect_case(void *ctx, result_row *rows, int count)
{
    collect *c = ctx;
    for (int i = 0; i < count; i++) {
        const result_row *r = &rows[i];
        c->rows++;
        CHECK(r->status == STATUS_OK, "%s %s %s m=%lld elems=%lld: %s %s", c->what, r->op, r->variant, r->m,
              r->elems, status_name(r->status), r->message);
        CHECK(r->rel_err >= 0 && r->rel_err <= r->tolerance, "%s %s: rel_err %g tolerance %g", r->op, r->variant,
              r->rel_err, r->tolerance);
        if (r->status == STATUS_OK) c->ok++;
    }
}

int main(void)
{
    static const long long gemm_full[] = {1, 2, 17, 31, 33, 100, 1000, 2049, 4095};
    static const long long gemm_quick[] = {1, 2, 17, 31, 33, 100, 129, 257};
    static const long long elems_full[] = {1, 2, 31, 32, 33, 1023, 1025, (1LL << 20) + 3, 1LL << 24};
    static const long long elems_quick[] = {1, 2, 31, 32, 33, 1023, 1025, 4099, 65539};
    /* COMPARE_TEST_QUICK=1 (under the slower compute-sanitizer tools): sizes
     * that still cross every tile edge, but small */
    const char *quick_env = getenv("COMPARE_TEST_QUICK");
    int quick = quick_env && strcmp(quick_env, "1") == 0;
    const long long *gemm_n = quick ? gemm_quick : gemm_full;
    const long long *elems = quick ? elems_quick : elems_full;
    size_t gemm_count = quick ? sizeof gemm_quick / sizeof gemm_quick[0] : sizeof gemm_full / sizeof gemm_full[0];
    size_t elems_count = quick ? sizeof elems_quick / sizeof elems_quick[0] : sizeof elems_full / sizeof elems_full[0];
    device_ctx dev;
    char err[512];
    unsigned long long seed = (unsigned long long)time(NULL);
    volatile sig_atomic_t stop = 0;
    const char *env = getenv("COMPARE_TEST_SEED");
    int expected_gemm = 0, expected_rs = 0;
    test_require_gpu();
    if (env) seed = strtoull(env, NULL, 10);
    printf("seed %llu (set COMPARE_TEST_SEED to repeat)\n", seed);
    if (device_open(&dev, 0, seed, err, sizeof err)) {
        fprintf(stderr, "%s\n", err);
        return 1;
    }
    for (int i = 0; i < variants_count; i++) {
        if (!variants_visible(i)) continue;
        if (strcmp(variants_table[i].op, "sgemm") == 0) expected_gemm++;
        else expected_rs += strcmp(variants_table[i].op, "sort") == 0 ? 2 : 1;
    }
    /* sgemm, one size at a time with its own seed */
    for (size_t i = 0; i < gemm_count; i++) {
        cli_options o;
        collect c = {0, 0, "sgemm"};
        run_sink sink = {collect_case, &c};
        cli_defaults(&o);
        o.ops = CLI_OP_SGEMM;
        o.gemm[0] = (cli_shape){gemm_n[i], gemm_n[i], gemm_n[i]};
        o.gemm_count = 1;
        o.check_only = 1;
        o.progress = 0;
        o.seed = seed + (unsigned long long)i;
        CHECK(run_all(&dev, &o, &sink, &stop) == 0, "sgemm n=%lld: run_all failed", gemm_n[i]);
        CHECK(c.rows == expected_gemm, "sgemm n=%lld: %d rows, expected %d", gemm_n[i], c.rows, expected_gemm);
    }
    for (size_t i = 0; i < elems_count; i++) {
        cli_options o;
        collect c = {0, 0, "reduce/sort"};
        run_sink sink = {collect_case, &c};
        cli_defaults(&o);
        o.ops = CLI_OP_REDUCE | CLI_OP_SORT;
        o.elems[0] = elems[i];
        o.elems_count = 1;
        o.check_only = 1;
        o.progress = 0;
        o.seed = seed + 100 + (unsigned long long)i;
        CHECK(run_all(&dev, &o, &sink, &stop) == 0, "elems=%lld: run_all failed", elems[i]);
        CHECK(c.rows == expected_rs, "elems=%lld: %d rows, expected %d", elems[i], c.rows, expected_rs);
    }
    device_close(&dev);
    return test_finish("test_gpu_variants");
}
