/* tests/test_plan.c (cpu): the plan (src/core/plan.c): which cases and
 * variants a set of options gives and in what order, and the throughputs
 * and percents of a case's rows, with the code the run itself uses. */
#include "cli.h"
#include "metrics.h"
#include "peaks.h"
#include "plan.h"
#include "testlib.h"

#include <math.h>
#include <string.h>

static const op_info ops[] = {
    {"sgemm", OP_SIZE_GEMM, OP_RATE_TFLOPS, OP_PEAK_FP32, "cublas_fp32", "cublas_tf32", {NULL}, {NULL, NULL}, "",
     {OP_AXIS_M, OP_AXIS_N, OP_AXIS_K}},
    {"reduce", OP_SIZE_ELEMS, OP_RATE_GBPS, OP_PEAK_MEMORY, "thrust", "cub", {NULL}, {NULL, NULL}, "", {OP_AXIS_ELEMS}},
    {"sort", OP_SIZE_ELEMS, OP_RATE_GKEYS, OP_PEAK_NONE, "thrust", "cub", {"u32", "f32"}, {NULL, NULL}, "",
     {OP_AXIS_ELEMS, OP_AXIS_TYPE}},
};
/* library rows deliberately not first in the table: the plan orders them */
static const variant_info vars[] = {
    {"sgemm", "naive", 0, "fp32", NULL, 0, "builtin", ""},        /* 0 */
    {"sgemm", "cublas_tf32", 1, "tf32", NULL, 0, "builtin", ""},  /* 1 */
    {"sgemm", "tf32_mma", 0, "tf32", "cublas_tf32", 0, "builtin", ""}, /* 2 */
    {"sgemm", "cublas_fp32", 1, "fp32", NULL, 0, "builtin", ""},  /* 3 */
    {"sgemm", "test_fault", 0, "fp32", NULL, 1, "builtin", ""},   /* 4: hidden */
    {"sgemm", "mine", 0, "fp32", NULL, 0, "libmine.so", ""},      /* 5: a plugin row */
    {"reduce", "vec4", 0, "fp32", NULL, 0, "builtin", ""},        /* 6 */
    {"reduce", "cub", 1, "fp32", NULL, 0, "builtin", ""},         /* 7 */
    {"reduce", "thrust", 1, "fp32", NULL, 0, "builtin", ""},      /* 8 */
    {"sort", "radix", 0, "types", NULL, 0, "builtin", ""},        /* 9 */
    {"sort", "thrust", 1, "types", NULL, 0, "builtin", ""},       /* 10 */
    {"sort", "cub", 1, "types", NULL, 0, "builtin", ""},          /* 11 */
    {"sgemm", "c_a", 0, "tf32", "cublas_tf32", 0, "candidates:tf32_mma", ""}, /* 12: candidates, */
    {"sgemm", "c_b", 0, "tf32", "cublas_tf32", 0, "candidates:tf32_mma", ""}, /* 13: hidden */
};
static const catalog cat = {ops, 3, vars, (int)(sizeof vars / sizeof vars[0])};

static void options(cli_options *o, const char *op_list, const char *var_list)
{
    static char store[8][64];
    static int used;
    cli_defaults(o);
    char err[256];
    if (op_list) {
        snprintf(store[used % 8], sizeof store[0], "%s", op_list);
        char *save = NULL;
        for (char *t = strtok_r(store[used++ % 8], ",", &save); t; t = strtok_r(NULL, ",", &save))
            o->op_names[o->op_name_count++] = t;
    }
    if (var_list) {
        snprintf(store[used % 8], sizeof store[0], "%s", var_list);
        char *save = NULL;
        for (char *t = strtok_r(store[used++ % 8], ",", &save); t; t = strtok_r(NULL, ",", &save))
            o->variants[o->variant_count++] = t;
    }
    CHECK(cli_resolve(o, &cat, err, sizeof err) == 0, "cli_resolve(%s, %s): %s", op_list ? op_list : "-",
          var_list ? var_list : "-", err);
}

static void order_is(const plan_case *c, const int *want, int n, const char *what)
{
    int same = c->variant_count == n;
    for (int i = 0; same && i < n; i++) same = c->variant[i] == want[i];
    CHECK(same, "%s: %d variants, first %d, expected %d starting %d", what, c->variant_count,
          c->variant_count ? c->variant[0] : -1, n, n ? want[0] : -1);
}

static void test_build(void)
{
    cli_options o;
    plan p;
    char err[256];

    /* everything: sgemm at the default shape, reduce once, sort twice (u32, f32) */
    options(&o, NULL, NULL);
    CHECK(plan_build(&p, &o, &cat, err, sizeof err) == 0, "plan_build: %s", err);
    CHECK(p.count == 4, "%d cases, expected 4", p.count);
    if (p.count == 4) {
        const int sg[] = {3, 1, 0, 2, 5}, rd[] = {8, 7, 6}, so[] = {10, 11, 9};
        order_is(&p.cases[0], sg, 5, "sgemm: ref, best, then hand rows in table order, the hidden row left out");
        order_is(&p.cases[1], rd, 3, "reduce");
        order_is(&p.cases[2], so, 3, "sort u32");
        CHECK(strcmp(p.cases[0].label, "sgemm m=n=k=2^11") == 0, "label [%s]", p.cases[0].label);
        CHECK(strcmp(p.cases[0].nvtx, "sgemm 2048x2048x2048") == 0, "nvtx [%s]", p.cases[0].nvtx);
        CHECK(p.cases[2].type && strcmp(p.cases[2].type, "u32") == 0 && p.cases[3].type &&
                  strcmp(p.cases[3].type, "f32") == 0,
              "sort types");
        CHECK(strcmp(p.cases[3].label, "sort f32 elems=2^26") == 0, "label [%s]", p.cases[3].label);
        CHECK(p.runs == 5 + 3 + 3 + 3, "runs %d", p.runs);
    }
    plan_free(&p);

    /* a selection keeps the library rows the percents need */
    options(&o, NULL, "tf32_mma");
    o.gemm[0] = (cli_shape){4096, 14336, 4096};
    o.gemm[1] = (cli_shape){129, 129, 129};
    o.gemm_count = 2;
    CHECK(plan_build(&p, &o, &cat, err, sizeof err) == 0, "plan_build: %s", err);
    CHECK(p.count == 2, "--variants tf32_mma: %d cases, expected 2 (sgemm only)", p.count);
    if (p.count == 2) {
        const int want[] = {3, 1, 2};
        order_is(&p.cases[0], want, 3, "--variants tf32_mma");
        CHECK(p.cases[0].m == 4096 && p.cases[0].n == 14336 && p.cases[0].k == 4096, "shape");
        CHECK(strcmp(p.cases[0].label, "sgemm 4096x14336x4096 (MxNxK)") == 0, "label [%s]", p.cases[0].label);
        CHECK(strcmp(p.cases[0].nvtx, "sgemm 4096x14336x4096") == 0, "nvtx [%s]", p.cases[0].nvtx);
        CHECK(strcmp(p.cases[1].label, "sgemm m=n=k=129") == 0, "label [%s]", p.cases[1].label);
    }
    plan_free(&p);

    /* the hidden row runs with COMPARE_TEST_VARIANTS=1 */
    cli_defaults(&o);
    o.variants[0] = "test_fault";
    o.variant_count = 1;
    o.test_variants = 1;
    CHECK(cli_resolve(&o, &cat, err, sizeof err) == 0, "%s", err);
    CHECK(plan_build(&p, &o, &cat, err, sizeof err) == 0 && p.count == 1 && p.cases[0].variant_count == 3 &&
              p.cases[0].variant[2] == 4,
          "test_fault with the test rows visible");
    plan_free(&p);

    /* --candidates: alone, its candidates and the library rows; with --variants, the rows
       named plus the family whole, unless some of its candidates are named */
    {
        static const struct {
            const char *variants; /* NULL: none */
            int want[6], n;
        } cand[] = {{NULL, {3, 1, 12, 13}, 4}, {"naive", {3, 1, 0, 12, 13}, 5}, {"c_b", {3, 1, 13}, 3},
                    {"c_b,naive", {3, 1, 0, 13}, 4}};
        for (size_t i = 0; i < sizeof cand / sizeof cand[0]; i++) {
            char names[32];
            int nv = 0;
            cli_defaults(&o);
            snprintf(names, sizeof names, "%s", cand[i].variants ? cand[i].variants : "");
            for (char *save = NULL, *t = strtok_r(names, ",", &save); t; t = strtok_r(NULL, ",", &save))
                o.variants[nv++] = t;
            o.variant_count = nv;
            o.candidates[0] = "tf32_mma";
            o.candidate_count = 1;
            CHECK(cli_resolve(&o, &cat, err, sizeof err) == 0, "--candidates with %s: %s",
                  cand[i].variants ? cand[i].variants : "-", err);
            CHECK(plan_build(&p, &o, &cat, err, sizeof err) == 0 && p.count == 1, "--candidates: %d cases (%s)",
                  p.count, err);
            if (p.count == 1) order_is(&p.cases[0], cand[i].want, cand[i].n, cand[i].variants ? cand[i].variants : "-");
            plan_free(&p);
        }
    }

    /* --ops sort: two cases per length, both types */
    options(&o, "sort", NULL);
    o.elems[1] = 1000;
    o.elems_count = 2;
    CHECK(plan_build(&p, &o, &cat, err, sizeof err) == 0 && p.count == 4, "--ops sort, 2 lengths: %d cases", p.count);
    if (p.count == 4)
        CHECK(p.cases[2].elems == 1000 && strcmp(p.cases[2].type, "u32") == 0 && strcmp(p.cases[3].type, "f32") == 0,
              "sizes before types");
    plan_free(&p);
}

static void row(result_row *r, const char *variant, int library, const char *ref, const char *best, double ms)
{
    static double samples[16][3];
    static int next;
    double *s = samples[next++ % 16];
    results_row_clear(r);
    r->op = "sgemm";
    r->variant = variant;
    r->math = strstr(variant, "tf32") ? "tf32" : "fp32"; /* as the catalog above has them */
    r->library = library;
    r->ref_library = ref;
    r->best_library = best;
    r->m = r->n = r->k = 2048;
    r->flops = metrics_gemm_flops(2048, 2048, 2048);
    r->bytes = metrics_gemm_bytes(2048, 2048, 2048);
    s[0] = s[1] = s[2] = ms;
    stats_summarize(s, 3, &r->time_ms);
    r->status = STATUS_OK;
}

static void test_percents(void)
{
    run_info info;
    result_row rows[5];
    test_h200_run_info(&info, "NVIDIA H200");
    row(&rows[0], "cublas_fp32", 1, NULL, NULL, 1.0);
    row(&rows[1], "cublas_tf32", 1, NULL, NULL, 0.25);
    row(&rows[2], "tuned", 0, "cublas_fp32", "cublas_tf32", 0.8);
    row(&rows[3], "tf32_mma", 0, "cublas_tf32", "cublas_tf32", 0.5);
    row(&rows[4], "naive", 0, "cublas_fp32", "cublas_tf32", 2.0);
    rows[4].status = STATUS_FAIL; /* a failed row gets no figure */
    rows[2].sm_clock_mhz = 1755; /* measured while it ran: %peak at that clock */
    plan_percents(&ops[0], &info.dev, rows, 5);
    CHECK(fabs(rows[2].pct_ref - 125.0) < 1e-12, "tuned %%ref %.17g, expected 125", rows[2].pct_ref);
    CHECK(fabs(rows[2].pct_best - 31.25) < 1e-12, "tuned %%best %.17g", rows[2].pct_best);
    CHECK(fabs(rows[3].pct_ref - 50.0) < 1e-12 && fabs(rows[3].pct_best - 50.0) < 1e-12,
          "tf32_mma against cublas_tf32: %g %g", rows[3].pct_ref, rows[3].pct_best);
    CHECK(rows[0].pct_ref < 0 && rows[0].pct_best < 0 && rows[1].pct_ref < 0, "library rows have no %%ref");
    CHECK(rows[4].pct_ref < 0 && rows[4].tflops < 0 && rows[4].pct_peak < 0, "a FAIL row has no figure");
    /* 2^34 FLOPs in 0.8 ms = 21.47483648 TFLOP/s */
    CHECK(fabs(rows[2].tflops - 21.47483648) < 1e-9, "tuned TFLOP/s %.12g", rows[2].tflops);
    CHECK(rows[2].gbps < 0 && rows[2].gkeys < 0, "an sgemm row has only TFLOP/s");
    /* %peak: at the measured 1755 MHz for tuned, at the 1980 MHz maximum for the others */
    CHECK(fabs(rows[2].pct_peak - 21.47483648 / metrics_peak_fp32_tflops(132, 128, 1755000.0) * 100.0) < 1e-9,
          "tuned %%peak %.12g (measured clock)", rows[2].pct_peak);
    CHECK(fabs(rows[0].pct_peak - 17.179869184 / 66.90816 * 100.0) < 1e-9, "cublas %%peak %.12g", rows[0].pct_peak);

    /* a hand row whose reference library failed gets no %ref, only %best */
    row(&rows[0], "cublas_fp32", 1, NULL, NULL, 1.0);
    rows[0].status = STATUS_ERROR;
    row(&rows[1], "cublas_tf32", 1, NULL, NULL, 0.25);
    row(&rows[2], "tuned", 0, "cublas_fp32", "cublas_tf32", 0.8);
    plan_percents(&ops[0], &info.dev, rows, 3);
    CHECK(rows[2].pct_ref < 0 && fabs(rows[2].pct_best - 31.25) < 1e-12, "missing reference: %g %g", rows[2].pct_ref,
          rows[2].pct_best);

    /* reduce: GB/s of the bytes, %peak of the memory bandwidth */
    row(&rows[0], "thrust", 1, NULL, NULL, 0.1);
    rows[0].op = "reduce";
    rows[0].bytes = 268435456.0;
    plan_percents(&ops[1], &info.dev, rows, 1);
    CHECK(fabs(rows[0].gbps - 2684.35456) < 1e-9 && rows[0].tflops < 0, "reduce GB/s %.12g", rows[0].gbps);
    CHECK(fabs(rows[0].pct_peak - 2684.35456 / 4814.304 * 100.0) < 1e-9, "reduce %%peak %.12g", rows[0].pct_peak);
    /* sort: Gkeys/s of the elements, no %peak */
    row(&rows[0], "cub", 1, NULL, NULL, 10.0);
    rows[0].op = "sort";
    rows[0].rate = OP_RATE_GKEYS;
    rows[0].elems = 67108864;
    plan_percents(&ops[2], &info.dev, rows, 1);
    CHECK(fabs(rows[0].gkeys - 6.7108864) < 1e-12 && rows[0].pct_peak < 0, "sort Gkeys/s %.12g", rows[0].gkeys);
    CHECK(fabs(plan_row_throughput(&rows[0]) - 6.7108864) < 1e-12, "plan_row_throughput");
}

/* %best is against the fastest library row that ran, whichever it is */
static void test_best_is_fastest(void)
{
    run_info info;
    result_row rows[4];
    test_h200_run_info(&info, "NVIDIA H200");
    row(&rows[0], "thrust", 1, NULL, NULL, 2.0);
    row(&rows[1], "cub", 1, NULL, NULL, 1.25);
    row(&rows[2], "cub_i32", 1, NULL, NULL, 1.0);
    row(&rows[3], "onesweep", 0, "thrust", "cub", 0.8);
    plan_percents(&ops[0], &info.dev, rows, 4);
    CHECK(fabs(rows[3].pct_ref - 250.0) < 1e-12, "%%ref %.17g", rows[3].pct_ref);
    CHECK(fabs(rows[3].pct_best - 125.0) < 1e-12 && strcmp(rows[3].best_library, "cub_i32") == 0,
          "%%best %.17g against %s, expected 125 against cub_i32", rows[3].pct_best, rows[3].best_library);
    /* the fastest failed: the next fastest that passed */
    row(&rows[2], "cub_i32", 1, NULL, NULL, 1.0);
    rows[2].status = STATUS_FAIL;
    row(&rows[3], "onesweep", 0, "thrust", "cub", 0.8);
    plan_percents(&ops[0], &info.dev, rows, 4);
    CHECK(fabs(rows[3].pct_best - 156.25) < 1e-12 && strcmp(rows[3].best_library, "cub") == 0,
          "%%best %.17g against %s, expected 156.25 against cub", rows[3].pct_best, rows[3].best_library);
}

/* interleaved when the summed workspaces fit, else sequential when the
 * largest does, else not at all */
static void test_case_fit(void)
{
    CHECK(plan_case_fit(100, 10, 30, 130, 1) == PLAN_FITS_INTERLEAVED, "130 free, 130 needed interleaved");
    CHECK(plan_case_fit(100, 10, 30, 129, 1) == PLAN_FITS_SEQUENTIAL, "129 free: sequential");
    CHECK(plan_case_fit(100, 10, 30, 110, 1) == PLAN_FITS_SEQUENTIAL, "110 free: sequential");
    CHECK(plan_case_fit(100, 10, 30, 109, 1) == PLAN_FITS_NOT, "109 free: does not fit");
    CHECK(plan_case_fit(100, 10, 30, 1000, 0) == PLAN_FITS_SEQUENTIAL, "--sequential stays sequential");
    CHECK(plan_case_fit(100, 10, 30, 50, 0) == PLAN_FITS_NOT, "--sequential, 50 free");
}

/* %peak of a row is of its own math: a TF32 row against the dense TF32
 * tensor rate of the GPU at the clock it ran at; a GPU the peak table does
 * not know gets no %peak (and a note), never one against another ceiling */
static void test_tensor_peak(void)
{
    run_info info;
    result_row rows[2];
    /* cc 9.0, 132 SMs: the H200 of test_h200_run_info (device maximum 1980 MHz) */
    test_h200_run_info(&info, "NVIDIA H200");
    CHECK(info.dev.cc_major == 9 && info.dev.cc_minor == 0 && info.dev.sms == 132, "the fake H200");
    row(&rows[0], "cublas_tf32", 1, NULL, NULL, 0.05);
    rows[0].sm_clock_mhz = 1755; /* measured while it ran */
    row(&rows[1], "cublas_fp32", 1, NULL, NULL, 0.5);
    plan_percents(&ops[0], &info.dev, rows, 2);
    {
        /* 2^34 FLOPs in 0.05 ms = 343.59738368 TFLOP/s; dense TF32 on sm_90 is
         * 2048 FLOP per clock per SM: 132 x 2048 x 1.755 GHz = 474.44736 TFLOP/s */
        double tflops = metrics_tflops(metrics_gemm_flops(2048, 2048, 2048), 0.05);
        double peak = 132.0 * 2048.0 * 1755e6 / 1e12;
        CHECK(fabs(rows[0].tflops - tflops) < 1e-9, "cublas_tf32 TFLOP/s %.12g", rows[0].tflops);
        CHECK(fabs(rows[0].peak_tflops - peak) < 1e-9 && strcmp(rows[0].peak_math, "tf32") == 0,
              "cublas_tf32 ceiling %.12g (%s), expected %.12g (tf32)", rows[0].peak_tflops, rows[0].peak_math, peak);
        CHECK(fabs(rows[0].pct_peak - tflops / peak * 100.0) < 1e-9, "cublas_tf32 %%peak %.12g, expected %.12g",
              rows[0].pct_peak, tflops / peak * 100.0);
        CHECK(rows[0].pct_peak > 0 && rows[0].pct_peak <= 100.0, "cublas_tf32 %%peak %.1f is not in (0, 100]",
              rows[0].pct_peak);
        /* the FP32 row keeps the FP32 SIMT ceiling, at the device maximum (no clock measured) */
        CHECK(fabs(rows[1].pct_peak - metrics_tflops(metrics_gemm_flops(2048, 2048, 2048), 0.5) / 66.90816 * 100.0) <
                      1e-9 && strcmp(rows[1].peak_math, "fp32") == 0 && fabs(rows[1].peak_tflops - 66.90816) < 1e-9,
              "cublas_fp32 %%peak %.12g of %.12g (%s)", rows[1].pct_peak, rows[1].peak_tflops, rows[1].peak_math);
    }

    /* a GPU the peak table does not know: no tf32 ceiling, so no %peak for the
     * TF32 row, and the device's note says so; FP32 still from the lanes rule */
    test_h200_run_info(&info, "NVIDIA B200");
    info.dev.cc_major = 10;
    info.dev.sms = 148;
    peaks_fill(&info.dev);
    row(&rows[0], "cublas_tf32", 1, NULL, NULL, 0.05);
    rows[0].sm_clock_mhz = 1755;
    row(&rows[1], "cublas_fp32", 1, NULL, NULL, 0.5);
    plan_percents(&ops[0], &info.dev, rows, 2);
    CHECK(rows[0].tflops > 0 && rows[0].pct_peak < 0 && rows[0].peak_tflops < 0 && strcmp(rows[0].peak_math, "tf32") == 0,
          "unknown GPU: cublas_tf32 %%peak %g against %g (%s)", rows[0].pct_peak, rows[0].peak_tflops, rows[0].peak_math);
    CHECK(strstr(info.dev.peaks_note, "no tf32, fp16, bf16, fp8 ceiling for NVIDIA B200 (cc 10.0)") != NULL,
          "unknown GPU note: [%s]", info.dev.peaks_note);
    CHECK(rows[1].pct_peak > 0 && fabs(rows[1].peak_tflops - 148.0 * 256 * 1.98e9 / 1e12) < 1e-9,
          "unknown GPU: the FP32 row keeps its lanes-rule ceiling: %g", rows[1].peak_tflops);
    /* a math the type table does not know: no ceiling either */
    row(&rows[0], "cublas_fp32", 1, NULL, NULL, 0.5);
    rows[0].math = "fp64";
    plan_percents(&ops[0], &info.dev, rows, 1);
    CHECK(rows[0].pct_peak < 0 && rows[0].peak_math[0] == '\0', "an unknown math got %%peak %g", rows[0].pct_peak);
}

/* the op's speed-up pair: the first row names the second */
static void test_speedup(void)
{
    static const op_info transfer = {.name = "transfer", .rate = OP_RATE_GBPS, .ref_library = "cuda_memcpy",
                                     .best_library = "cuda_memcpy", .speedup = {"overlap", "pinned"}};
    run_info info;
    result_row r[3];
    test_h200_run_info(&info, "NVIDIA H200");
    row(&r[0], "cuda_memcpy", 1, NULL, NULL, 1.0);
    row(&r[1], "pinned", 0, "cuda_memcpy", "cuda_memcpy", 2.0);
    row(&r[2], "overlap", 0, "cuda_memcpy", "cuda_memcpy", 1.5);
    plan_percents(&transfer, &info.dev, r, 3);
    CHECK(r[2].speedup_vs && strcmp(r[2].speedup_vs, "pinned") == 0, "overlap does not name pinned");
    CHECK(!r[1].speedup_vs && !r[0].speedup_vs, "only the first of the pair names the other");
}

/* More variants of one op than a case can run: a usage error, never rows
 * dropped without a word. */
static void test_too_many_variants(void)
{
    enum { N = PLAN_MAX_VARIANTS + 1 };
    static variant_info many[N + 1];
    static char names[N][16];
    many[0] = (variant_info){"reduce", "cub", 1, "fp32", NULL, 0, "builtin", ""};
    for (int i = 0; i < N; i++) {
        snprintf(names[i], sizeof names[i], "v%d", i);
        many[i + 1] = (variant_info){"reduce", names[i], 0, "fp32", NULL, 0, "libmany.so", ""};
    }
    const catalog big = {ops, 3, many, N + 1};
    cli_options o;
    plan p;
    char err[256] = "";
    cli_defaults(&o);
    o.op_names[o.op_name_count++] = "reduce";
    CHECK(cli_resolve(&o, &big, err, sizeof err) == 0, "cli_resolve: %s", err);
    CHECK(plan_build(&p, &o, &big, err, sizeof err) == 2 && p.count == 0 && p.cases == NULL,
          "%d variants of one op: plan_build did not refuse", N + 1);
    CHECK(test_contains(err, "reduce: more than 64 variants selected"), "message: %s", err);
    /* 64 of them with --variants: runs */
    o.variant_count = 0;
    for (int i = 0; i < PLAN_MAX_VARIANTS - 1; i++) o.variants[o.variant_count++] = names[i];
    CHECK(cli_resolve(&o, &big, err, sizeof err) == 0, "cli_resolve: %s", err);
    CHECK(plan_build(&p, &o, &big, err, sizeof err) == 0 && p.count == 1 &&
              p.cases[0].variant_count == PLAN_MAX_VARIANTS,
          "63 chosen + cub: %d cases, %d variants (%s)", p.count, p.count ? p.cases[0].variant_count : -1, err);
    plan_free(&p);
}

int main(void)
{
    test_build();
    test_too_many_variants();
    test_speedup();
    test_percents();
    test_best_is_fastest();
    test_case_fit();
    test_tensor_peak();
    return test_finish("test_plan");
}
