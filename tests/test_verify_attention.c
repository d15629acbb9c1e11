/* tests/test_verify_attention.c (cpu): the attention op's verification rule,
 * FLOP count and row sample (src/core/verify_attention.c), and its axes as
 * the compare binary parses them.
 *
 * Heads computed on the host as the kernels compute them (inputs rounded to
 * bf16 / fp16 by types_round, scores in FP32, the online softmax over tiles
 * of 64 keys with P rounded to the type before P V, or the naive form with S
 * and P in FP32; the output rounded to the type) pass against a double
 * reference, causal and not, seq_q != seq_kv included; the online softmax
 * without its rescale, a dropped causal mask and a wrong scale fail, and so
 * does an unwritten (NaN) element. The axes: a head_dim past 256, a causal
 * of 2 and the type fp32 are usage errors (exit 2) naming the axis. */
#include "testlib.h"
#include "types.h"
#include "verify_attention.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static uint64_t rng = 0x38ull;

/* uniform in [-1, 1) */
static double rand_pm1(void)
{
    rng = rng * 6364136223846793005ull + 1442695040888963407ull;
    return (double)((int32_t)(rng >> 40) - (1 << 23)) / (double)(1 << 23);
}

typedef enum { FORM_ONLINE, FORM_NAIVE } form_kind;
typedef enum { BUG_NONE, BUG_NO_RESCALE, BUG_NO_MASK, BUG_SCALE, BUG_NAN } bug_kind;

typedef struct {
    int sq, skv, d, causal;
    const types_info *t;
    float *q, *k, *v;   /* the rounded inputs */
    double s_abs;       /* the largest scale * sum |q k| */
} head;

static void head_make(head *h, const char *type, int sq, int skv, int d, int causal)
{
    h->sq = sq, h->skv = skv, h->d = d, h->causal = causal;
    h->t = types_find(type);
    h->q = malloc(sizeof(float) * (size_t)sq * d);
    h->k = malloc(sizeof(float) * (size_t)skv * d);
    h->v = malloc(sizeof(float) * (size_t)skv * d);
    for (int i = 0; i < sq * d; i++) h->q[i] = (float)types_round(h->t, 2.5 * rand_pm1());
    for (int i = 0; i < skv * d; i++) h->k[i] = (float)types_round(h->t, 2.5 * rand_pm1());
    for (int i = 0; i < skv * d; i++) h->v[i] = (float)types_round(h->t, rand_pm1());
    h->s_abs = 0;
}

static void head_free(head *h) { free(h->q), free(h->k), free(h->v); }

/* keys row i sees (kernels/attention.h's bottom-right mask) */
static int visible(const head *h, int i, int causal)
{
    const int last = causal ? i + h->skv - h->sq : h->skv - 1;
    return last < 0 ? 0 : last + 1 < h->skv ? last + 1 : h->skv;
}

/* Row i: out[d] as the kernel computes it (FP32), ref[d] in double, and the
 * row's scale (largest visible |v|). */
static void head_row(head *h, form_kind form, bug_kind bug, int i, float *s32, double *s64, double *out,
                     double *ref, double *scale)
{
    const int d = h->d, nv = visible(h, i, h->causal);
    const int nk = bug == BUG_NO_MASK ? h->skv : nv; /* the kernel's keys */
    const float sc = 1.0f / sqrtf((float)d), ksc = bug == BUG_SCALE ? sc * 1.25f : sc;
    double m = -INFINITY, l = 0;
    *scale = 0;
    for (int j = 0; j < nv; j++) {
        double dot = 0, ab = 0;
        for (int c = 0; c < d; c++) {
            dot += (double)h->q[i * d + c] * h->k[j * d + c];
            ab += fabs((double)h->q[i * d + c] * h->k[j * d + c]);
        }
        s64[j] = dot * sc;
        m = fmax(m, s64[j]);
        h->s_abs = fmax(h->s_abs, ab * sc);
    }
    for (int j = 0; j < nv; j++) l += (s64[j] = exp(s64[j] - m)); /* s64 now holds the weights */
    for (int c = 0; c < d; c++) {
        double acc = 0;
        for (int j = 0; j < nv; j++) {
            acc += s64[j] / l * h->v[j * d + c];
            *scale = fmax(*scale, fabs(h->v[j * d + c]));
        }
        ref[c] = nv ? acc : 0;
    }
    /* the kernel */
    for (int j = 0; j < nk; j++) {
        float dot = 0;
        for (int c = 0; c < d; c++) dot += h->q[i * d + c] * h->k[j * d + c];
        s32[j] = dot * ksc;
    }
    if (form == FORM_NAIVE) {
        float mf = -INFINITY, lf = 0;
        for (int j = 0; j < nk; j++) mf = fmaxf(mf, s32[j]);
        for (int j = 0; j < nk; j++) lf += (s32[j] = expf(s32[j] - mf)); /* s32 now holds exp(s - max) */
        for (int c = 0; c < d; c++) {
            float acc = 0;
            for (int j = 0; j < nk; j++) acc += s32[j] / lf * h->v[j * d + c];
            out[c] = nk ? types_round(h->t, acc) : 0;
        }
    } else {
        float mf = -INFINITY, lf = 0, acc[256];
        for (int c = 0; c < d; c++) acc[c] = 0;
        for (int j0 = 0; j0 < nk; j0 += 64) {
            const int j1 = j0 + 64 < nk ? j0 + 64 : nk;
            float mt = mf;
            for (int j = j0; j < j1; j++) mt = fmaxf(mt, s32[j]);
            if (bug != BUG_NO_RESCALE) {
                const float r = expf(mf - mt);
                lf *= r;
                for (int c = 0; c < d; c++) acc[c] *= r;
            }
            for (int j = j0; j < j1; j++) {
                const float p = (float)types_round(h->t, expf(s32[j] - mt)); /* P in the type */
                lf += p;
                for (int c = 0; c < d; c++) acc[c] += p * h->v[j * d + c];
            }
            mf = mt;
        }
        for (int c = 0; c < d; c++) out[c] = nk ? types_round(h->t, acc[c] / lf) : 0;
    }
    if (bug == BUG_NAN && i == h->sq / 2) out[d / 3] = NAN;
}

/* One head judged by the rule over every row. */
static int judge(const char *type, int sq, int skv, int d, int causal, form_kind form, bug_kind bug,
                 verify_verdict *v)
{
    head h;
    head_make(&h, type, sq, skv, d, causal);
    float *s32 = malloc(sizeof(float) * (size_t)skv);
    double *s64 = malloc(sizeof(double) * (size_t)skv), out[256], ref[256], scale, worst = 0;
    long long nonfinite = 0;
    for (int i = 0; i < sq; i++) {
        head_row(&h, form, bug, i, s32, s64, out, ref, &scale);
        for (int c = 0; c < d; c++) {
            const double q = verify_attention_ratio(out[c], ref[c], scale);
            if (!isfinite(out[c])) nonfinite++;
            else if (q > worst) worst = q;
        }
    }
    verify_attention_judge(worst, nonfinite, type, skv, d, h.s_abs, v);
    free(s32), free(s64);
    head_free(&h);
    return v->pass;
}

static void test_flops_and_rows(void)
{
    CHECK(verify_attention_flops(1, 16, 2048, 2048, 128, 0) == 4.0 * 16 * 2048 * 2048 * 128, "flops %g",
          verify_attention_flops(1, 16, 2048, 2048, 128, 0));
    CHECK(verify_attention_flops(1, 16, 2048, 2048, 128, 1) == 2.0 * 16 * 2048 * 2048 * 128, "causal halves");
    CHECK(verify_attention_flops(8, 64, 16384, 16384, 256, 0) == 4.0 * 8 * 64 * 16384.0 * 16384 * 256,
          "64-bit: %g", verify_attention_flops(8, 64, 16384, 16384, 256, 0));
    CHECK(verify_attention_row_count(1000) == 1000 && verify_attention_row(1000, 999) == 999, "all rows up to 1024");
    const long long sq = 16384, n = verify_attention_row_count(sq);
    CHECK(n == VERIFY_ATTENTION_ALL_ROWS, "sampled count %lld", n);
    CHECK(verify_attention_row(sq, 0) == 0 && verify_attention_row(sq, n - 1) == sq - 1, "first and last row");
    int offsets[64] = {0}, distinct = 0;
    for (long long k = 1; k < n; k++)
        CHECK(verify_attention_row(sq, k) > verify_attention_row(sq, k - 1), "rows increase at %lld", k);
    for (long long k = 0; k < n; k++) offsets[verify_attention_row(sq, k) % 64] = 1;
    for (int i = 0; i < 64; i++) distinct += offsets[i];
    CHECK(distinct >= 32, "the sample falls at %d of 64 offsets within a tile", distinct);
    CHECK(verify_attention_row(sq, n) == -1 && verify_attention_row(sq, -1) == -1, "out of range");
}

static void test_tolerance(void)
{
    const double u32 = ldexp(1.0, -24);
    CHECK(fabs(verify_attention_tolerance("bf16", 4096, 128, 0) - (3 * ldexp(1.0, -8) + u32 * (64 + 16 * 64))) <
              1e-15,
          "bf16 4096: %g", verify_attention_tolerance("bf16", 4096, 128, 0));
    CHECK(verify_attention_tolerance("fp16", 4096, 128, 10) < verify_attention_tolerance("bf16", 4096, 128, 10),
          "fp16 tighter than bf16");
    CHECK(verify_attention_tolerance("fp16", 16384, 128, 10) > verify_attention_tolerance("fp16", 1024, 128, 10),
          "grows with seq_kv");
    CHECK(verify_attention_tolerance("fp16", 1024, 256, 10) > verify_attention_tolerance("fp16", 1024, 64, 10),
          "grows with head_dim");
    CHECK(verify_attention_tolerance("u32", 10, 64, 1) < 0 && verify_attention_tolerance("nope", 10, 64, 1) < 0,
          "no rule for an integer or unknown type");
    CHECK(isnan(verify_attention_ratio(NAN, 0, 1)) && verify_attention_ratio(1, 0, 0) == INFINITY &&
              verify_attention_ratio(0, 0, 0) == 0,
          "ratio edge cases");
}

static void test_rule(void)
{
    static const char *const types[] = {"bf16", "fp16"};
    static const int shapes[][4] = {{200, 200, 64, 0}, {200, 200, 64, 1}, {40, 700, 128, 1}, {150, 100, 64, 1},
                                    {24, 400, 256, 0}};
    verify_verdict v;
    for (int t = 0; t < 2; t++)
        for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
            const int *c = shapes[s];
            double err[2];
            for (int form = FORM_ONLINE; form <= FORM_NAIVE; form++) {
                CHECK(judge(types[t], c[0], c[1], c[2], c[3], (form_kind)form, BUG_NONE, &v),
                      "%s sq %d skv %d d %d causal %d %s: err %g > tol %g", types[t], c[0], c[1], c[2], c[3],
                      form == FORM_NAIVE ? "naive" : "online", v.rel_err, v.tolerance);
                err[form] = v.rel_err;
            }
            CHECK(!judge(types[t], c[0], c[1], c[2], c[3], FORM_ONLINE, BUG_NO_RESCALE, &v),
                  "%s %d/%d d %d: a missed rescale passed (err %g, tol %g)", types[t], c[0], c[1], c[2], v.rel_err,
                  v.tolerance);
            CHECK(!judge(types[t], c[0], c[1], c[2], c[3], FORM_NAIVE, BUG_SCALE, &v),
                  "%s %d/%d: a wrong scale passed (err %g)", types[t], c[0], c[1], v.rel_err);
            CHECK(!judge(types[t], c[0], c[1], c[2], c[3], FORM_ONLINE, BUG_NAN, &v) && v.nonfinite == 1,
                  "%s: a NaN element passed", types[t]);
            if (c[3])
                CHECK(!judge(types[t], c[0], c[1], c[2], c[3], FORM_NAIVE, BUG_NO_MASK, &v),
                      "%s %d/%d: a dropped mask passed (err %g)", types[t], c[0], c[1], v.rel_err);
            printf("%s sq %d skv %d d %d causal %d: tolerance %.3g, errors online %.3g naive %.3g\n", types[t],
                   c[0], c[1], c[2], c[3], v.tolerance, err[FORM_ONLINE], err[FORM_NAIVE]);
        }
}

/* the real op's axes, through the compare binary (a usage error needs no GPU) */
static void test_axes(void)
{
    static const char *const bad[][2] = {{"head_dim=300", "head_dim"}, {"causal=2", "causal"}, {"type=fp32", "type"},
                                         {"seq_q=0", "seq_q"}};
    static test_proc proc;
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char *argv[] = {COMPARE_BIN, "--ops", "attention", "--axis", (char *)bad[i][0], NULL};
        test_run(argv, NULL, 0, 0, 60, &proc);
        CHECK(proc.status == 2 && test_contains(proc.err, bad[i][1]) && test_contains(proc.err, "attention"),
              "--axis %s: exit %d, stderr %s", bad[i][0], proc.status, proc.err);
    }
    char *argv[] = {COMPARE_BIN, "--list", NULL};
    test_run(argv, NULL, 0, 0, 60, &proc);
    CHECK(proc.status == 0 && test_contains(proc.out, "batch,heads,seq_q,seq_kv,head_dim,causal,type") &&
              test_contains(proc.out, "cublas_unfused") && test_contains(proc.out, "cudnn_sdpa"),
          "--list: exit %d, no attention axes or rows:\n%s", proc.status, proc.out);
}

int main(void)
{
    test_flops_and_rows();
    test_tolerance();
    test_rule();
    test_axes();
    return test_finish("test_verify_attention");
}
