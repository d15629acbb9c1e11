/* tests/test_gpu_attention.c (gpu): every row of the attention op checked
 * against the FP64 reference through the path of `compare --check-only`
 * (plan, poison, run once, verify) at small odd cases: batch 2, heads 3,
 * seq_q and seq_kv each 1000 or 333 (seq_q != seq_kv both ways: the
 * bottom-right causal mask, rows that see no key), head_dim 64 and 128
 * (and 256 at one shape), causal 0 and 1, bf16 and fp16; and batch 2 x
 * heads 20 x 1000 x 1000 (more work tiles than SMs: fa3's persistent CTAs
 * take several). A row is ok, or
 * SKIP with its reason, and only the rows that may decline may SKIP
 * (cudnn_sdpa: no cuDNN, or causal with seq_q > seq_kv; fa1, fa2: a head_dim
 * or architecture they decline; fa3: a device off the sm_90 policy only,
 * head_dim 256 included); cublas_unfused and naive must pass, and fa1 at
 * head_dim 256 (333 x 1000, causal 0 and 1) too. The
 * planted rows must FAIL: test_norescale (the online softmax without its
 * rescale) in every case, test_nomask (the causal mask dropped) in every
 * causal case (it declines the others). The chunking of naive and
 * cublas_unfused over (batch, head) groups: their launchers called
 * directly with a workspace of one pair give the output of a workspace of
 * all pairs (naive bit for bit; cuBLAS within an ulp of the type, its
 * algorithm may differ with the batch count). COMPARE_REQUIRE_CUDNN=1 makes
 * a cudnn_sdpa SKIP a failure, except its decline by design (causal with
 * seq_q > seq_kv). Fresh inputs each run: the seed comes from
 * the clock (or COMPARE_TEST_SEED) and is printed. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "attention.h"
#include "attention_cublas.h"
#include "cli.h"
#include "device.h"
#include "op.h"
#include "plan.h"
#include "run.h"
#include "testlib_gpu.h"

typedef struct {
    int rows, ok, skipped;
    int norescale_failed, nomask_failed, nomask_skipped;
    int fa3_ok, fa3_skipped; /* fa3's rows: ok, SKIP (off the sm_90 policy) */
    int fa1_ok;              /* fa1's rows: ok */
    const char *what;
} collect;

static int env_is(const char *name)
{
    const char *e = getenv(name);
    return e && strcmp(e, "1") == 0;
}

static void collect_case(void *ctx, result_row *rows, int count)
{
    collect *c = ctx;
    for (int i = 0; i < count; i++) {
        const result_row *r = &rows[i];
        const int causal = test_contains(r->shape, "causal=1");
        c->rows++;
        if (strcmp(r->variant, "test_norescale") == 0) {
            CHECK(r->status == STATUS_FAIL, "%s %s %s: test_norescale is %s (%s)", c->what, r->math, r->shape,
                  status_name(r->status), r->message);
            c->norescale_failed += r->status == STATUS_FAIL;
            continue;
        }
        if (strcmp(r->variant, "test_nomask") == 0) {
            CHECK(r->status == (causal ? STATUS_FAIL : STATUS_SKIP), "%s %s %s: test_nomask is %s (%s)", c->what,
                  r->math, r->shape, status_name(r->status), r->message);
            c->nomask_failed += r->status == STATUS_FAIL;
            c->nomask_skipped += r->status == STATUS_SKIP;
            continue;
        }
        if (r->status == STATUS_SKIP) {
            CHECK(r->message[0] != '\0', "%s %s %s: SKIP without a reason", c->what, r->variant, r->shape);
            CHECK(strcmp(r->variant, "cudnn_sdpa") == 0 || strcmp(r->variant, "fa1") == 0 ||
                      strcmp(r->variant, "fa2") == 0 || strcmp(r->variant, "fa3") == 0,
                  "%s %s %s %s: only cudnn_sdpa, fa1, fa2 and fa3 may SKIP (%s)", c->what, r->variant, r->math,
                  r->shape, r->message);
            /* fa3 declines only a device off the sm_90 policy (head_dim 256 runs) */
            if (strcmp(r->variant, "fa3") == 0)
                CHECK(test_contains(r->message, "sm_90"),
                      "%s fa3 %s %s: an unexpected decline: %s", c->what, r->math, r->shape, r->message);
            /* with cuDNN required, its row may SKIP only where it declines by
             * design: causal with seq_q > seq_kv (rows that see no key) */
            if (strcmp(r->variant, "cudnn_sdpa") == 0 && env_is("COMPARE_REQUIRE_CUDNN"))
                CHECK(causal && test_contains(r->message, "causal with seq_q > seq_kv"),
                      "%s cudnn_sdpa %s %s: cuDNN required: %s", c->what, r->math, r->shape, r->message);
            printf("SKIP %s %s %s: %s\n", r->variant, r->math, r->shape, r->message);
            c->skipped++;
            c->fa3_skipped += strcmp(r->variant, "fa3") == 0;
            continue;
        }
        CHECK(r->status == STATUS_OK, "%s %s %s %s: %s %s", c->what, r->variant, r->math, r->shape,
              status_name(r->status), r->message);
        CHECK(r->status != STATUS_OK || (r->rel_err >= 0 && r->rel_err <= r->tolerance), "%s %s: err %g tol %g",
              r->shape, r->variant, r->rel_err, r->tolerance);
        CHECK(r->flops > 0, "%s %s: no FLOP count", r->shape, r->variant);
        if (r->status == STATUS_OK) c->ok++;
        if (r->status == STATUS_OK && strcmp(r->variant, "fa3") == 0) c->fa3_ok++;
        if (r->status == STATUS_OK && strcmp(r->variant, "fa1") == 0) c->fa1_ok++;
    }
}

/* Runs the op over the axes given (checked only); planted: the test rows
 * alone. Returns the rows collected into *c. */
static void run_op(device_ctx *dev, const char *const axes[][2], int n_axes, int planted, unsigned long long seed,
                   collect *c)
{
    static const char *const planted_rows[] = {"test_norescale", "test_nomask", NULL};
    run_sink sink = {collect_case, c};
    const int rc = test_run_axes(dev, "attention", axes, n_axes, planted ? planted_rows : NULL, seed, &sink);
    /* the planted rows FAIL, so that run's status is 1 */
    CHECK(rc == (planted ? 1 : 0), "%s: run_plan returned %d", c->what, rc);
    printf("%s: %d rows, %d ok, %d skipped\n", c->what, c->rows, c->ok, c->skipped);
}

// ---------------------------------------------------------------------------
// chunking: a workspace of one (batch, head) pair against one of all pairs

/* bits of a 2-byte value of the type nearest x (truncation for bf16 is
 * enough here: any value of the type will do) */
static uint16_t half_bits(float x, elem_type t)
{
    uint32_t u;
    memcpy(&u, &x, 4);
    if (t == ELEM_BF16) return (uint16_t)(u >> 16);
    /* fp16 of |x| < 2, normal: sign, exponent rebased, 10 mantissa bits */
    const uint32_t sign = (u >> 16) & 0x8000u, e = (u >> 23) & 0xffu, m = (u >> 13) & 0x3ffu;
    if (e < 127 - 14) return (uint16_t)sign; /* tiny: 0 */
    return (uint16_t)(sign | ((e - 127 + 15) << 10) | m);
}

static float half_value(uint16_t h, elem_type t)
{
    if (t == ELEM_BF16) {
        const uint32_t u = (uint32_t)h << 16;
        float x;
        memcpy(&x, &u, 4);
        return x;
    }
    const int e = (h >> 10) & 0x1f, m = h & 0x3ff;
    const float v = e ? ldexpf(1.0f + m / 1024.0f, e - 15) : ldexpf(m / 1024.0f, -14);
    return (h & 0x8000) ? -v : v;
}

typedef int (*run_fn)(device_ctx *dev, const attention_args *a);

static int run_naive(device_ctx *dev, const attention_args *a) { return attention_naive(a, dev->stream); }
static int run_cublas(device_ctx *dev, const attention_args *a) { return attention_cublas_run(dev->blas, a, dev->stream); }

static void check_chunks(device_ctx *dev, elem_type t, int causal)
{
    attention_args a;
    memset(&a, 0, sizeof a);
    a.batch = 2, a.heads = 3, a.seq_q = 333, a.seq_kv = 257, a.head_dim = 64, a.causal = causal, a.type = t;
    a.scale = 0.125f;
    const size_t nq = (size_t)(a.batch * a.heads * a.seq_q * a.head_dim), nk = (size_t)(a.batch * a.heads * a.seq_kv * a.head_dim);
    uint16_t *h = malloc(2 * (nq > nk ? nq : nk)), *o1 = malloc(2 * nq), *o2 = malloc(2 * nq);
    void *q, *k, *v, *o, *ws;
    CK(cudaMalloc(&q, 2 * nq));
    CK(cudaMalloc(&k, 2 * nk));
    CK(cudaMalloc(&v, 2 * nk));
    CK(cudaMalloc(&o, 2 * nq));
    srand(7);
    for (size_t i = 0; i < nq; i++) h[i] = half_bits(2.5f * (2.0f * rand() / (float)RAND_MAX - 1.0f), t);
    CK(cudaMemcpyAsync(q, h, 2 * nq, cudaMemcpyHostToDevice, dev->stream));
    CK(cudaStreamSynchronize(dev->stream)); /* h is refilled next */
    for (size_t i = 0; i < nk; i++) h[i] = half_bits(2.5f * (2.0f * rand() / (float)RAND_MAX - 1.0f), t);
    CK(cudaMemcpyAsync(k, h, 2 * nk, cudaMemcpyHostToDevice, dev->stream));
    CK(cudaStreamSynchronize(dev->stream));
    for (size_t i = 0; i < nk; i++) h[i] = half_bits(2.0f * rand() / (float)RAND_MAX - 1.0f, t);
    CK(cudaMemcpyAsync(v, h, 2 * nk, cudaMemcpyHostToDevice, dev->stream));
    a.q = q, a.k = k, a.v = v, a.o = o;
    static const run_fn fns[] = {run_naive, run_cublas};
    static const char *const names[] = {"naive", "cublas_unfused"};
    const size_t pair[] = {(size_t)(a.seq_q * a.seq_kv) * 4, attention_cublas_pair_bytes(&a)};
    const size_t all[] = {attention_naive_workspace(&a), attention_cublas_workspace(&a)};
    for (int f = 0; f < 2; f++) {
        CHECK(all[f] == pair[f] * 6, "%s: workspace %zu for 6 pairs of %zu", names[f], all[f], pair[f]);
        CK(cudaMalloc(&ws, all[f]));
        a.workspace = ws;
        a.workspace_bytes = all[f];
        CHECK(fns[f](dev, &a) == 0, "%s: all pairs at once failed", names[f]);
        CK(cudaMemcpyAsync(o1, o, 2 * nq, cudaMemcpyDeviceToHost, dev->stream));
        CK(cudaMemsetAsync(o, 0xff, 2 * nq, dev->stream));
        a.workspace_bytes = pair[f] + pair[f] / 2; /* one pair a group (six groups) */
        CHECK(fns[f](dev, &a) == 0, "%s: a pair at a time failed", names[f]);
        CK(cudaMemcpyAsync(o2, o, 2 * nq, cudaMemcpyDeviceToHost, dev->stream));
        CK(cudaStreamSynchronize(dev->stream));
        double worst = 0;
        for (size_t i = 0; i < nq; i++) {
            const double d = fabs((double)half_value(o1[i], t) - half_value(o2[i], t));
            worst = isnan(d) ? INFINITY : fmax(worst, d);
        }
        const double bound = f == 0 ? 0.0 : ldexp(1.0, t == ELEM_BF16 ? -7 : -10);
        CHECK(worst <= bound, "%s %s causal %d: a pair at a time differs by %g (bound %g)", names[f],
              t == ELEM_BF16 ? "bf16" : "fp16", causal, worst, bound);
        CK(cudaFree(ws));
    }
    cudaFree(q), cudaFree(k), cudaFree(v), cudaFree(o);
    free(h), free(o1), free(o2);
}

int main(void)
{
    device_ctx dev;
    const unsigned long long seed = test_open_device(&dev);
    static const char *const odd[][2] = {{"batch", "2"},           {"heads", "3"},          {"seq_q", "1000,333"},
                                         {"seq_kv", "1000,333"},   {"head_dim", "64,128"}, {"causal", "0,1"},
                                         {"type", "bf16,fp16"}};
    static const char *const wide[][2] = {{"batch", "1"},  {"heads", "2"},    {"seq_q", "333"},     {"seq_kv", "1000"},
                                          {"head_dim", "256"}, {"causal", "0,1"}, {"type", "bf16,fp16"}};
    /* more work tiles (q tiles of 128 x batch x heads: 320) than the SMs of
     * an H200 (132): fa3's persistent CTAs take 2-3 work tiles each, of
     * different q tiles (8 a head) */
    static const char *const many[][2] = {{"batch", "2"},  {"heads", "20"},   {"seq_q", "1000"},  {"seq_kv", "1000"},
                                          {"head_dim", "64,128"}, {"causal", "0,1"}, {"type", "bf16"}};
    /* the op's rows: cudnn_sdpa, cublas_unfused, naive, fa1, fa2, fa3 */
    enum { ROWS = 6 };
    collect c1 = {0}, c2 = {0}, c3 = {0}, c4 = {0};
    c1.what = "odd cases";
    run_op(&dev, odd, 7, 0, seed, &c1);
    CHECK(c1.rows == 32 * ROWS, "odd cases: %d rows, expected %d", c1.rows, 32 * ROWS);
    CHECK(c1.ok >= 32 * 2, "odd cases: %d ok, at least cublas_unfused and naive in 32 cases", c1.ok);
    c2.what = "head_dim 256";
    run_op(&dev, wide, 7, 0, seed + 1, &c2);
    CHECK(c2.rows == 4 * ROWS, "head_dim 256: %d rows, expected %d", c2.rows, 4 * ROWS);
    /* fa3 runs head_dim 256 (128 x 80 tiles): all 4 cases ok, or all 4
     * declined off the sm_90 policy */
    CHECK(c2.fa3_ok == 4 || c2.fa3_skipped == 4, "head_dim 256: fa3 ok in %d, skipped in %d of 4 cases", c2.fa3_ok,
          c2.fa3_skipped);
    /* fa1 runs head_dim 256 on every sm_80+ device (separate K and V buffers
     * where the device's shared memory per block takes them, else one) */
    CHECK(c2.fa1_ok == 4, "head_dim 256: fa1 ok in %d of 4 cases", c2.fa1_ok);
    c4.what = "many work tiles";
    run_op(&dev, many, 7, 0, seed + 3, &c4);
    CHECK(c4.rows == 4 * ROWS, "many work tiles: %d rows, expected %d", c4.rows, 4 * ROWS);
    CHECK(c4.fa3_ok == 4 || c4.fa3_skipped == 4, "many work tiles: fa3 ok in %d, skipped in %d of 4 cases",
          c4.fa3_ok, c4.fa3_skipped);
    c3.what = "planted";
    run_op(&dev, odd, 7, 1, seed + 2, &c3);
    CHECK(c3.norescale_failed == 32, "planted: test_norescale failed in %d of 32 cases", c3.norescale_failed);
    CHECK(c3.nomask_failed == 16 && c3.nomask_skipped == 16, "planted: test_nomask failed in %d, skipped in %d",
          c3.nomask_failed, c3.nomask_skipped);
    for (int t = 0; t < 2; t++)
        for (int causal = 0; causal < 2; causal++) check_chunks(&dev, t ? ELEM_FP16 : ELEM_BF16, causal);
    device_close(&dev);
    return test_finish("test_gpu_attention");
}
