/* tests/test_axes.c (cpu): per-op axes (catalog.h, axes.h, plan.c).
 *
 * With a catalog of ops shaped like the real ones plus an attention-like op
 * of six axes: --axis NAME=LIST parsed and checked (good and bad forms, x2
 * doubling, an unknown axis, an axis of an op not run, an option given a
 * list, an enum value not declared, a power-of-two axis given another
 * number); the plan's product order; the shape strings, labels and NVTX
 * names; every shorthand (--n, --m/--k, --shape, --elems, --dist, --chunks,
 * --cpu-max-n) giving the very plan its --axis spelling gives; and the
 * --list JSON, of this catalog and of the real one through the compare
 * binary (--list loads the GPU library but needs no GPU). */
#include "axes.h"
#include "cli.h"
#include "list.h"
#include "plan.h"
#include "testlib.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define AXIS_CHUNKS {"chunks", OP_AXIS_INT, "4", 1, 64, {NULL}, 0, "overlap pieces"}
#define AXIS_CPU_MAX_N {"cpu_max_n", OP_AXIS_INT, "2048", 0, CATALOG_MAX_DIM, {NULL}, 1, "CPU row limit"}

static const op_info ops[] = {
    {.name = "sgemm", .size_kind = OP_SIZE_GEMM, .rate = OP_RATE_TFLOPS, .peak = OP_PEAK_FP32,
     .ref_library = "lib", .best_library = "lib", .about = "",
     .axes = {OP_AXIS_M, OP_AXIS_N, OP_AXIS_K, AXIS_CPU_MAX_N}},
    {.name = "reduce", .size_kind = OP_SIZE_ELEMS, .rate = OP_RATE_GBPS, .ref_library = "lib", .best_library = "lib",
     .about = "", .axes = {OP_AXIS_ELEMS}},
    {.name = "transpose", .size_kind = OP_SIZE_MATRIX, .rate = OP_RATE_GBPS, .ref_library = "lib",
     .best_library = "lib", .about = "", .axes = {OP_AXIS_M, OP_AXIS_N}},
    {.name = "histogram", .size_kind = OP_SIZE_ELEMS, .rate = OP_RATE_GBPS, .ref_library = "lib",
     .best_library = "lib", .types = {"u8", "f32"}, .about = "",
     .axes = {OP_AXIS_ELEMS, OP_AXIS_TYPE, OP_AXIS_DIST}},
    {.name = "transfer", .size_kind = OP_SIZE_ELEMS, .rate = OP_RATE_GBPS, .ref_library = "lib",
     .best_library = "lib", .about = "", .axes = {OP_AXIS_ELEMS, AXIS_CHUNKS}},
    {.name = "attention", .size_kind = OP_SIZE_ELEMS, .rate = OP_RATE_TFLOPS, .ref_library = "lib",
     .best_library = "lib", .types = {"bf16", "fp16"}, .about = "",
     .axes = {{"b", OP_AXIS_INT, "4", 1, 1024, {NULL}, 0, "batch"},
              {"h", OP_AXIS_INT, "32", 1, 256, {NULL}, 0, "heads"},
              {"sq", OP_AXIS_POW2, "4096", 1, 1 << 20, {NULL}, 0, "query length"},
              {"skv", OP_AXIS_POW2, "4096", 1, 1 << 20, {NULL}, 0, "key/value length"},
              {"d", OP_AXIS_POW2, "128", 16, 256, {NULL}, 0, "head dimension"},
              {"causal", OP_AXIS_INT, "1", 0, 1, {NULL}, 0, "1: causal mask"},
              OP_AXIS_TYPE}},
};
#define NOPS ((int)(sizeof ops / sizeof ops[0]))
static const variant_info vars[] = {
    {"sgemm", "lib", 1, "fp32", NULL, 0, "builtin", ""},        {"sgemm", "hand", 0, "tf32", NULL, 0, "builtin", ""},
    {"reduce", "lib", 1, "fp32", NULL, 0, "builtin", ""},       {"transpose", "lib", 1, "fp32", NULL, 0, "builtin", ""},
    {"histogram", "lib", 1, "types", NULL, 0, "builtin", ""},   {"transfer", "lib", 1, "fp32", NULL, 0, "builtin", ""},
    {"attention", "lib", 1, "types", NULL, 0, "builtin", ""},
};
static const catalog cat = {ops, NOPS, vars, (int)(sizeof vars / sizeof vars[0])};

/* argv (NULL-terminated, without argv[0]) parsed and resolved; 0 or 2 with err. */
static int resolve(cli_options *o, char *err, size_t len, const char *const *args)
{
    static char store[16][256];
    char *argv[17] = {"compare"};
    int argc = 1;
    for (; args[argc - 1]; argc++) {
        snprintf(store[argc - 1], sizeof store[0], "%s", args[argc - 1]); /* cli_parse writes into argv */
        argv[argc] = store[argc - 1];
    }
    argv[argc] = NULL;
    err[0] = '\0';
    int rc = cli_parse(argc, argv, o, err, len);
    return rc ? rc : cli_resolve(o, &cat, err, len);
}

/* The plan of args; checks it builds. */
static int plan_of(plan *p, const char *const *args, const char *what)
{
    static cli_options o[64]; /* the plan points at its options: one slot per call, kept */
    static int used;
    char err[1024];
    cli_options *op = &o[used++ % 64];
    memset(p, 0, sizeof *p);
    int rc = resolve(op, err, sizeof err, args);
    CHECK(rc == 0, "%s: rc %d: %s", what, rc, err);
    if (rc) return -1;
    rc = plan_build(p, op, &cat, err, sizeof err);
    CHECK(rc == 0, "%s: plan_build %d: %s", what, rc, err);
    return rc ? -1 : 0;
}

#define PLAN(p, what, ...) plan_of(p, (const char *const[]){__VA_ARGS__, NULL}, what)

/* Case i's shape, label and NVTX name. */
static void case_is(const plan *p, int i, const char *shape, const char *label, const char *nvtx)
{
    CHECK(i < p->count, "case %d of %d", i, p->count);
    if (i >= p->count) return;
    const plan_case *c = &p->cases[i];
    CHECK(strcmp(c->shape, shape) == 0, "case %d shape [%s], expected [%s]", i, c->shape, shape);
    if (label) CHECK(strcmp(c->label, label) == 0, "case %d label [%s], expected [%s]", i, c->label, label);
    if (nvtx) CHECK(strcmp(c->nvtx, nvtx) == 0, "case %d nvtx [%s], expected [%s]", i, c->nvtx, nvtx);
}

/* Two plans are the same: cases, their axis values and names, their variants. */
static void same_plan(const plan *a, const plan *b, const char *what)
{
    CHECK(a->count == b->count && a->runs == b->runs, "%s: %d cases vs %d", what, a->count, b->count);
    for (int i = 0; i < a->count && i < b->count; i++) {
        const plan_case *x = &a->cases[i], *y = &b->cases[i];
        int same = x->op == y->op && x->m == y->m && x->n == y->n && x->k == y->k && x->elems == y->elems &&
                   x->type == y->type && x->dist == y->dist && x->axis_count == y->axis_count &&
                   strcmp(x->shape, y->shape) == 0 && strcmp(x->label, y->label) == 0 &&
                   strcmp(x->nvtx, y->nvtx) == 0 && x->variant_count == y->variant_count &&
                   memcmp(x->axis_num, y->axis_num, sizeof x->axis_num) == 0 &&
                   memcmp(x->axis_name, y->axis_name, sizeof x->axis_name) == 0;
        CHECK(same, "%s: case %d differs: [%s] [%s] vs [%s] [%s]", what, i, x->label, x->shape, y->label, y->shape);
    }
}

static void bad(const char *needle, const char *const *args)
{
    cli_options o;
    char err[2048];
    int rc = resolve(&o, err, sizeof err, args);
    CHECK(rc == 2, "%s ...: rc %d, expected 2 (%s)", args[0], rc, err);
    CHECK(test_contains(err, needle), "%s ...: \"%s\" lacks \"%s\"", args[0], err, needle);
}
#define BAD(needle, ...) bad(needle, (const char *const[]){__VA_ARGS__, NULL})

// ---- the plan ---------------------------------------------------------------------

static void test_defaults(void)
{
    plan p;
    if (PLAN(&p, "defaults", "--quiet")) return;
    /* ops in catalog order, each its axes' defaults; histogram: elems, then type, then dist */
    CHECK(p.count == 1 + 1 + 1 + 4 + 1 + 2, "defaults: %d cases", p.count);
    case_is(&p, 0, "m=2048,n=2048,k=2048", "sgemm m=n=k=2^11", "sgemm 2048x2048x2048");
    CHECK(plan_case_axis(&p.cases[0], "cpu_max_n") == 2048, "cpu_max_n default %lld",
          plan_case_axis(&p.cases[0], "cpu_max_n"));
    CHECK(plan_case_axis(&p.cases[0], "chunks") == -1 && plan_case_axis_name(&p.cases[0], "dist") == NULL,
          "sgemm has no chunks, no dist");
    case_is(&p, 1, "elems=67108864", "reduce elems=2^26", "reduce 67108864");
    case_is(&p, 2, "m=2048,n=2048", "transpose 2048x2048", "transpose 2048x2048");
    case_is(&p, 3, "elems=67108864", "histogram u8 uniform elems=2^26", "histogram u8 uniform 67108864");
    case_is(&p, 4, "elems=67108864", "histogram u8 skewed elems=2^26", "histogram u8 skewed 67108864");
    case_is(&p, 5, "elems=67108864", "histogram f32 uniform elems=2^26", NULL);
    case_is(&p, 6, "elems=67108864", "histogram f32 skewed elems=2^26", NULL);
    CHECK(p.count > 6 && strcmp(p.cases[6].type, "f32") == 0 && strcmp(p.cases[6].dist, "skewed") == 0 &&
              plan_case_axis_name(&p.cases[6], "dist") == p.cases[6].dist,
          "histogram case 4: type/dist");
    case_is(&p, 7, "elems=67108864,chunks=4", "transfer elems=2^26 chunks=4", "transfer 67108864 chunks=4");
    CHECK(p.count > 7 && plan_case_axis(&p.cases[7], "chunks") == 4, "chunks default");
    /* the design's example string */
    case_is(&p, 8, "b=4,h=32,sq=4096,skv=4096,d=128,causal=1",
            "attention bf16 b=4 h=32 sq=2^12 skv=2^12 d=128 causal=1",
            "attention bf16 b=4 h=32 sq=4096 skv=4096 d=128 causal=1");
    case_is(&p, 9, "b=4,h=32,sq=4096,skv=4096,d=128,causal=1", "attention fp16 b=4 h=32 sq=2^12 skv=2^12 d=128 causal=1",
            NULL);
    plan_free(&p);
}

static void test_gemm_axes(void)
{
    plan a, b, c;
    /* the command: four cases, k innermost */
    if (PLAN(&a, "--axis k", "--ops", "sgemm", "--axis", "m=4096", "--axis", "n=4096", "--axis", "k=1024:4096:1024"))
        return;
    CHECK(a.count == 4, "--axis m n k: %d cases", a.count);
    case_is(&a, 0, "m=4096,n=4096,k=1024", "sgemm 4096x4096x1024 (MxNxK)", "sgemm 4096x4096x1024");
    case_is(&a, 1, "m=4096,n=4096,k=2048", NULL, NULL);
    case_is(&a, 2, "m=4096,n=4096,k=3072", NULL, NULL);
    case_is(&a, 3, "m=4096,n=4096,k=4096", "sgemm m=n=k=2^12", "sgemm 4096x4096x4096");
    if (PLAN(&b, "--m --k", "--ops", "sgemm", "--m", "4096", "--n", "4096", "--k", "1024:4096:1024") == 0) {
        same_plan(&a, &b, "--m/--n/--k vs --axis");
        plan_free(&b);
    }
    if (PLAN(&b, "--axis=", "--ops=sgemm", "--axis=k=1024:4096:1024", "--axis=n=4096", "--axis=m=4096") == 0) {
        same_plan(&a, &b, "--axis=NAME=LIST in another order");
        plan_free(&b);
    }
    plan_free(&a);

    /* x2 doubling, the plain doubling range and the list: one plan */
    if (PLAN(&a, "x2", "--ops", "sgemm", "--axis", "n=1024:8192:x2") == 0 &&
        PLAN(&b, "--n range", "--ops", "sgemm", "--n", "1024:8192") == 0 &&
        PLAN(&c, "--n list", "--ops", "sgemm", "--n", "1024,2048,4096,8192") == 0) {
        CHECK(a.count == 4, "x2: %d cases", a.count);
        case_is(&a, 3, "m=8192,n=8192,k=8192", "sgemm m=n=k=2^13", "sgemm 8192x8192x8192");
        same_plan(&a, &b, "--axis n=...:x2 vs --n LO:HI");
        same_plan(&a, &c, "--axis n=...:x2 vs --n list");
        plan_free(&b);
        plan_free(&c);
    }
    plan_free(&a);

    /* --shape: the tuples as given; transpose takes each (m, n) once */
    if (PLAN(&a, "--shape", "--ops", "sgemm,transpose", "--shape", "8x8x1,8x8x2,4x8x1") == 0) {
        CHECK(a.count == 5, "--shape: %d cases", a.count);
        case_is(&a, 0, "m=8,n=8,k=1", NULL, NULL);
        case_is(&a, 2, "m=4,n=8,k=1", "sgemm 4x8x1 (MxNxK)", NULL);
        case_is(&a, 3, "m=8,n=8", "transpose 8x8", "transpose 8x8");
        case_is(&a, 4, "m=4,n=8", NULL, NULL);
        plan_free(&a);
    }
    /* cpu_max_n: an option, not a dimension: one case, not in the shape */
    if (PLAN(&a, "--cpu-max-n", "--ops", "sgemm", "--cpu-max-n", "0") == 0 &&
        PLAN(&b, "--axis cpu_max_n", "--ops", "sgemm", "--axis", "cpu_max_n=0") == 0) {
        CHECK(a.count == 1 && plan_case_axis(&a.cases[0], "cpu_max_n") == 0, "--cpu-max-n 0");
        case_is(&a, 0, "m=2048,n=2048,k=2048", NULL, NULL);
        same_plan(&a, &b, "--cpu-max-n vs --axis cpu_max_n");
        plan_free(&b);
    }
    plan_free(&a);
}

static void test_length_axes(void)
{
    plan a, b;
    /* lengths outermost, then type, then dist */
    if (PLAN(&a, "--elems", "--ops", "histogram,reduce", "--elems", "2^20,2^22", "--dist", "skewed,uniform") == 0 &&
        PLAN(&b, "--axis elems", "--ops", "reduce,histogram", "--axis", "dist=skewed,uniform", "--axis",
             "elems=2^20:2^22:x4") == 0) {
        CHECK(a.count == 2 + 8, "--elems x dist: %d cases", a.count);
        case_is(&a, 0, "elems=1048576", "reduce elems=2^20", "reduce 1048576");
        case_is(&a, 1, "elems=4194304", "reduce elems=2^22", NULL);
        case_is(&a, 2, "elems=1048576", "histogram u8 skewed elems=2^20", NULL);
        case_is(&a, 3, "elems=1048576", "histogram u8 uniform elems=2^20", NULL);
        case_is(&a, 4, "elems=1048576", "histogram f32 skewed elems=2^20", NULL);
        case_is(&a, 6, "elems=4194304", "histogram u8 skewed elems=2^22", NULL);
        same_plan(&a, &b, "--elems/--dist vs --axis");
        plan_free(&b);
    }
    plan_free(&a);
    /* an element type chosen by its axis */
    if (PLAN(&a, "type", "--ops", "histogram", "--axis", "type=f32", "--axis", "dist=uniform") == 0) {
        CHECK(a.count == 1 && strcmp(a.cases[0].type, "f32") == 0 && strcmp(a.cases[0].dist, "uniform") == 0,
              "--axis type=f32: %d cases", a.count);
        plan_free(&a);
    }
    /* chunks: a dimension of transfer's cases */
    if (PLAN(&a, "--chunks", "--ops", "transfer", "--chunks", "2,8", "--elems", "1M") == 0 &&
        PLAN(&b, "--axis chunks", "--ops", "transfer", "--axis", "chunks=2:8:x4", "--axis", "elems=1M") == 0) {
        CHECK(a.count == 2, "--chunks 2,8: %d cases", a.count);
        case_is(&a, 0, "elems=1048576,chunks=2", "transfer elems=2^20 chunks=2", "transfer 1048576 chunks=2");
        case_is(&a, 1, "elems=1048576,chunks=8", NULL, NULL);
        CHECK(a.count == 2 && plan_case_axis(&a.cases[1], "chunks") == 8, "chunks of case 1");
        same_plan(&a, &b, "--chunks vs --axis chunks");
        plan_free(&b);
    }
    plan_free(&a);
}

static void test_generic_axes(void)
{
    plan a;
    /* a product of two axes (the first outermost) and two types */
    if (PLAN(&a, "attention", "--ops", "attention", "--axis", "sq=1024:4096:x2", "--axis", "causal=0,1", "--axis",
             "type=fp16") == 0) {
        CHECK(a.count == 6, "attention sq x causal: %d cases", a.count);
        case_is(&a, 0, "b=4,h=32,sq=1024,skv=4096,d=128,causal=0", "attention fp16 b=4 h=32 sq=2^10 skv=2^12 d=128 causal=0",
                NULL);
        case_is(&a, 1, "b=4,h=32,sq=1024,skv=4096,d=128,causal=1", NULL, NULL);
        case_is(&a, 2, "b=4,h=32,sq=2048,skv=4096,d=128,causal=0", NULL, NULL);
        case_is(&a, 5, "b=4,h=32,sq=4096,skv=4096,d=128,causal=1", NULL, NULL);
        CHECK(a.count == 6 && plan_case_axis(&a.cases[5], "sq") == 4096 && plan_case_axis(&a.cases[5], "d") == 128,
              "plan_case_axis sq, d");
        plan_free(&a);
    }
    /* a product beyond PLAN_MAX_CASES is refused, not built */
    {
        cli_options o;
        char err[1024];
        plan p;
        const char *const args[] = {"--ops", "attention", "--axis", "b=1:64", "--axis", "h=1:64", "--axis",
                                    "sq=1:2^12", "--axis", "skv=1:2^12", NULL};
        CHECK(resolve(&o, err, sizeof err, args) == 0, "big product resolves: %s", err);
        CHECK(plan_build(&p, &o, &cat, err, sizeof err) == 2 && test_contains(err, "more than 4096"),
              "big product: %s", err);
    }
}

// ---- refusals ---------------------------------------------------------------------

static void test_bad(void)
{
    BAD("--axis foo: no op has an axis 'foo' (the ops' axes: sgemm: m,n,k,cpu_max_n; reduce: elems; transpose: m,n; "
        "histogram: elems,type,dist; transfer: elems,chunks; attention: b,h,sq,skv,d,causal,type)",
        "--axis", "foo=1");
    BAD("--axis chunks is given but no op that has axis chunks is run (it is an axis of transfer)", "--ops", "reduce",
        "--axis", "chunks=4");
    BAD("--chunks is given but no op that has axis chunks is run", "--ops", "reduce", "--chunks", "4");
    BAD("--dist is given but no op that has axis dist is run (it is an axis of histogram)", "--ops", "sgemm",
        "--dist", "skewed");
    BAD("--cpu-max-n is given but no op that has axis cpu_max_n is run", "--ops", "reduce", "--cpu-max-n", "0");
    BAD("--axis type is given but no op that has axis type is run (it is an axis of histogram, attention)", "--ops",
        "sgemm", "--axis", "type=u8");
    BAD("--axis elems is given but no op it sizes is run", "--ops", "sgemm", "--axis", "elems=4096");
    BAD("--axis n is given but no op it sizes is run", "--ops", "reduce", "--axis", "n=4096");
    BAD("--axis 'm' is not NAME=LIST", "--axis", "m");
    BAD("--axis '=5' is not NAME=LIST", "--axis", "=5");
    BAD("'Type' is not an axis name", "--axis", "Type=u8");
    BAD("'a-b' is not an axis name", "--axis", "a-b=1");
    BAD("is not an axis name", "--axis", "averyveryveryveryveryverylongaxisname=1");
    BAD("--axis chunks: empty LIST", "--axis", "chunks=");
    BAD("--axis m '': empty size list", "--axis", "m=");
    BAD("--axis m '0': '0' is too small", "--axis", "m=0");
    BAD("--axis k '1:8:x1'", "--axis", "k=1:8:x1");
    BAD("--axis elems '2^40'", "--axis", "elems=2^40");
    BAD("--n given more than once (--axis n is the same option)", "--n", "1024", "--axis", "n=2048");
    BAD("--elems given more than once (--axis elems is the same option)", "--axis", "elems=1K", "--elems", "2K");
    BAD("--axis chunks: axis chunks is already set by --chunks", "--chunks", "2", "--axis", "chunks=4");
    BAD("--dist: axis dist is already set by --axis dist", "--axis", "dist=skewed", "--dist", "uniform");
    BAD("--axis chunks '0' (transfer): '0' is too small (at least 1)", "--axis", "chunks=0");
    BAD("--chunks '65' (transfer): '65' is too large (at most 64)", "--chunks", "65");
    BAD("--dist 'bogus' (histogram): 'bogus' is not a value of dist (expected uniform, skewed)", "--dist", "bogus");
    BAD("--dist 'uniform,uniform' (histogram): 'uniform' is listed twice", "--dist", "uniform,uniform");
    BAD("--axis type 'u32' (histogram): 'u32' is not a value of type (expected u8, f32)", "--ops", "histogram",
        "--axis", "type=u32");
    BAD("--cpu-max-n '1,2' (sgemm): cpu_max_n is an option of sgemm: one value, not a list", "--cpu-max-n", "1,2");
    BAD("--axis d '96' (attention): 96 is not a power of two", "--axis", "d=96");
    BAD("--axis d '512' (attention): '512' is too large (at most 256)", "--axis", "d=512");
    BAD("--axis causal '2' (attention)", "--axis", "causal=2");
}

// ---- --list --format json ---------------------------------------------------------

static void test_list_json(void)
{
    char *buf = NULL;
    size_t len = 0;
    cli_options o;
    FILE *f = open_memstream(&buf, &len);
    CHECK(f != NULL, "open_memstream");
    if (!f) return;
    cli_defaults(&o);
    list_print_json(f, &o, &cat);
    fclose(f);
    CHECK(test_contains(buf, "{\"name\": \"m\", \"kind\": \"int\", \"defaults\": \"2048\", \"min\": 1, \"max\": 65536, "
                             "\"option\": false"),
          "json: sgemm's m:\n%s", buf);
    CHECK(test_contains(buf, "{\"name\": \"cpu_max_n\", \"kind\": \"int\", \"defaults\": \"2048\", \"min\": 0, "
                             "\"max\": 65536, \"option\": true, \"help\": \"CPU row limit\"}"),
          "json: the option");
    CHECK(test_contains(buf, "{\"name\": \"dist\", \"kind\": \"enum\", \"defaults\": \"uniform,skewed\", \"values\": "
                             "[\"uniform\", \"skewed\"], \"option\": false"),
          "json: dist");
    CHECK(test_contains(buf, "{\"name\": \"type\", \"kind\": \"enum\", \"defaults\": \"u8,f32\", \"values\": "
                             "[\"u8\", \"f32\"]"),
          "json: histogram's type");
    CHECK(test_contains(buf, "{\"name\": \"sq\", \"kind\": \"pow2\", \"defaults\": \"4096\""), "json: pow2");
    /* types: an op's own, else the maths of its rows */
    CHECK(test_contains(buf, "\"types\": [\"fp32\", \"tf32\"]"), "json: sgemm types from its rows' math");
    CHECK(test_contains(buf, "\"types\": [\"bf16\", \"fp16\"]"), "json: attention types");
    CHECK(test_contains(buf, "{\"name\": \"hand\", \"kind\": \"hand\", \"math\": \"tf32\""), "json: a variant");
    CHECK(test_count(buf, "{\"name\": \"sgemm\"") == 1 && test_count(buf, "\"axes\": [") == NOPS, "json: ops");
    free(buf);
}

/* The real catalog through the binary: it loads the GPU library, opens no GPU. */
static void test_list_json_binary(void)
{
    static test_proc p;
    char *const argv[] = {(char *)COMPARE_BIN, "--list", "--format", "json", NULL};
    test_run(argv, NULL, 0, 0, 60.0, &p);
    CHECK(p.status == 0, "compare --list --format json: exit %d: %s", p.status, p.err);
    if (p.status != 0) return;
    const char *want[] = {
        "{\"name\": \"sgemm\"", "{\"name\": \"k\", \"kind\": \"int\", \"defaults\": \"2048\"",
        "{\"name\": \"cpu_max_n\", \"kind\": \"int\", \"defaults\": \"2048\", \"min\": 0, \"max\": 65536, "
        "\"option\": true",
        "\"types\": [\"fp32\", \"tf32\"]", "{\"name\": \"sort\"", "\"types\": [\"u32\", \"f32\"]",
        "\"types\": [\"u8\", \"f32\"]", "{\"name\": \"dist\", \"kind\": \"enum\", \"defaults\": \"uniform,skewed\"",
        "{\"name\": \"chunks\", \"kind\": \"int\", \"defaults\": \"4\", \"min\": 1, \"max\": 64",
        "{\"name\": \"elems\", \"kind\": \"int\", \"defaults\": \"2^26\"", "{\"name\": \"cublas_tf32\", \"kind\": "
        "\"library\", \"math\": \"tf32\"",
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
        CHECK(test_contains(p.out, want[i]), "compare --list --format json lacks %s", want[i]);
    CHECK(p.out[0] == '{' && test_count(p.out, "\"axes\": [") == test_count(p.out, "\"types\": ["),
          "every op has axes and types");
    /* the usage errors of the real catalog's axes, through the binary */
    static const struct {
        const char *args[6];
        const char *needle;
    } rows[] = {
        {{"--chunks", "0"}, "--chunks '0' (transfer): '0' is too small"},
        {{"--axis", "foo=1"}, "no op has an axis 'foo' (the ops' axes: sgemm: m,n,k,cpu_max_n"},
        {{"--ops", "sgemm", "--dist", "skewed"}, "no op that has axis dist is run (it is an axis of histogram, softmax)"},
        {{"--ops", "sort", "--axis", "type=u8"}, "'u8' is not a value of type (expected u32, f32)"},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
        test_usage_error(COMPARE_BIN, rows[i].args, rows[i].needle);
}

int main(void)
{
    test_defaults();
    test_gemm_axes();
    test_length_axes();
    test_generic_axes();
    test_bad();
    test_list_json();
    test_list_json_binary();
    return test_finish("test_axes");
}
