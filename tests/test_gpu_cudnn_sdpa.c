/* tests/test_gpu_cudnn_sdpa.c (gpu): the attention op's library row
 * cudnn_sdpa (baselines/cudnn_sdpa.h) on small cases against an FP64 host
 * reference of its own: batch 1-2, heads 2-4, seq 128 / 333 / 1000, head_dim
 * 64 and 128, causal 0 and 1, fp16 and bf16, seq_q != seq_kv (both ways for
 * non-causal, seq_q < seq_kv for causal, where the mask is aligned to the
 * bottom right). Each case: supports, plan_make (the candidates' timing runs
 * here), O poisoned (all bits set: NaN in both types), plan_run once, O
 * checked; the plan's name (`kernel`) is printed and must name the engine.
 *
 * Inputs: multiples of 1/32 in [-2, 2] from a seeded generator, exact in
 * fp16 and bf16 (so the reference reads the same values as cuDNN), large
 * enough that the softmax is far from flat. Tolerance: every element of O
 * within 4 u max|V| of the reference (u: the type's unit roundoff, 2^-11 for
 * fp16, 2^-8 for bf16): O is a convex combination of V's rows; cuDNN rounds
 * P to the input type before P V (relative error u per weight, at most u
 * max|V| in all) and O once more (u |O|); the FP32 scores and softmax add
 * far less. A wrong mask or a missed rescale moves O by a sizable fraction
 * of max|V| (checked: the causal cases' output is off the non-causal
 * reference by more than the tolerance). NaN anywhere fails.
 *
 * Declines: an fp32 case and a causal case with seq_q > seq_kv must be
 * declined with a reason. Without cuDNN every case is declined with
 * cudnn_lib's reason, and where cuDNN declines a case its reason is printed
 * (the test passes), unless COMPARE_REQUIRE_CUDNN=1 (the GPU machine), where
 * a declined case is a failure. The seed comes from the clock (or
 * COMPARE_TEST_SEED) and is printed. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "convert_kernels.h"
#include "cudnn_sdpa.h"
#include "device.h"
#include "status.h"
#include "testlib_gpu.h"

typedef struct {
    long long b, h, sq, skv, d;
    int causal;
    elem_type type;
} sdpa_case;

static const sdpa_case cases[] = {
    {1, 2, 128, 128, 64, 0, ELEM_FP16},   {1, 2, 128, 128, 64, 1, ELEM_BF16},
    {2, 3, 333, 333, 64, 1, ELEM_FP16},   {2, 2, 333, 333, 128, 0, ELEM_BF16},
    {1, 4, 1000, 1000, 128, 1, ELEM_BF16}, {1, 2, 1000, 1000, 64, 0, ELEM_FP16},
    {2, 2, 200, 333, 64, 1, ELEM_FP16},   {1, 2, 256, 1000, 128, 0, ELEM_BF16},
    {1, 2, 333, 128, 64, 0, ELEM_FP16},   {1, 2, 128, 333, 128, 1, ELEM_BF16},
};

static int require_cudnn(void)
{
    const char *e = getenv("COMPARE_REQUIRE_CUDNN");
    return e && strcmp(e, "1") == 0;
}

static unsigned long long rng_state;

static const char *type_name(elem_type t) { return t == ELEM_FP16 ? "fp16" : t == ELEM_BF16 ? "bf16" : "fp32"; }

/* a multiple of 1/32 in [-2, 2]: exact in fp16 and bf16 */
static float next_input(void)
{
    rng_state = rng_state * 6364136223846793005ULL + 1442695040888963407ULL;
    return (float)((int)((rng_state >> 33) % 129u) - 64) / 32.0f;
}

/* O = softmax(Q K^T scale [+ bottom-right causal mask]) V in FP64; a row that
 * sees no key is zeros */
static void reference(const sdpa_case *c, const float *q, const float *k, const float *v, double scale, int causal,
                      double *o)
{
    double *s = malloc((size_t)c->skv * sizeof *s);
    if (!s) exit(1);
    for (long long bh = 0; bh < c->b * c->h; bh++)
        for (long long i = 0; i < c->sq; i++) {
            const float *qi = q + (bh * c->sq + i) * c->d;
            const long long last = causal ? i + (c->skv - c->sq) : c->skv - 1; /* last key seen */
            double m = -INFINITY, sum = 0;
            double *oi = o + (bh * c->sq + i) * c->d;
            for (long long j = 0; j <= last && j < c->skv; j++) {
                const float *kj = k + (bh * c->skv + j) * c->d;
                double dot = 0;
                for (long long x = 0; x < c->d; x++) dot += (double)qi[x] * kj[x];
                s[j] = dot * scale;
                if (s[j] > m) m = s[j];
            }
            for (long long x = 0; x < c->d; x++) oi[x] = 0;
            for (long long j = 0; j <= last && j < c->skv; j++) {
                const float *vj = v + (bh * c->skv + j) * c->d;
                const double p = exp(s[j] - m);
                sum += p;
                for (long long x = 0; x < c->d; x++) oi[x] += p * vj[x];
            }
            if (sum > 0)
                for (long long x = 0; x < c->d; x++) oi[x] /= sum;
        }
    free(s);
}

/* a device copy of host floats in type t (exact: the inputs are values of t) */
static void *to_device(const float *h, size_t n, elem_type t, float *scratch, cudaStream_t s)
{
    void *d = NULL;
    CK(cudaMalloc(&d, n * (size_t)elem_type_bytes(t)));
    CK(cudaMemcpyAsync(scratch, h, n * sizeof *h, cudaMemcpyHostToDevice, s));
    CK((cudaError_t)convert_from_f32(type_name(t), scratch, d, (long long)n, s));
    CK(cudaStreamSynchronize(s));
    return d;
}

/* max |got - ref| (NaN counts as infinite) */
static double max_err(const float *got, const double *ref, size_t n)
{
    double e = 0;
    for (size_t i = 0; i < n; i++) {
        const double d = fabs((double)got[i] - ref[i]);
        if (!(d <= e)) e = isnan(d) ? INFINITY : d;
    }
    return e;
}

/* Runs one case; returns 1 when it ran, 0 when declined. */
static int run_case(const sdpa_case *c, cudaStream_t s)
{
    const size_t nq = (size_t)(c->b * c->h * c->sq * c->d), nkv = (size_t)(c->b * c->h * c->skv * c->d);
    const double u = c->type == ELEM_FP16 ? ldexp(1, -11) : ldexp(1, -8), vmax = 2.0;
    const double tol = 4 * u * vmax;
    float *hq = malloc(nq * sizeof *hq), *hk = malloc(nkv * sizeof *hk), *hv = malloc(nkv * sizeof *hv);
    float *ho = malloc(nq * sizeof *ho), *scratch = NULL;
    double *ref = malloc(nq * sizeof *ref);
    cudnn_sdpa_plan *plan = NULL;
    attention_args a = {0};
    char why[1024] = "", label[160];
    int ran = 0;
    if (!hq || !hk || !hv || !ho || !ref) exit(1);
    snprintf(label, sizeof label, "b=%lld,h=%lld,sq=%lld,skv=%lld,d=%lld,causal=%d %s", c->b, c->h, c->sq, c->skv,
             c->d, c->causal, type_name(c->type));
    for (size_t i = 0; i < nq; i++) hq[i] = next_input();
    for (size_t i = 0; i < nkv; i++) hk[i] = next_input();
    for (size_t i = 0; i < nkv; i++) hv[i] = next_input();
    CK(cudaMalloc((void **)&scratch, (nq > nkv ? nq : nkv) * sizeof *scratch));
    a.q = to_device(hq, nq, c->type, scratch, s);
    a.k = to_device(hk, nkv, c->type, scratch, s);
    a.v = to_device(hv, nkv, c->type, scratch, s);
    CK(cudaMalloc(&a.o, nq * (size_t)elem_type_bytes(c->type)));
    a.batch = c->b, a.heads = c->h, a.seq_q = c->sq, a.seq_kv = c->skv, a.head_dim = c->d;
    a.causal = c->causal;
    a.scale = (float)(1.0 / sqrt((double)c->d));
    a.type = c->type;
    if (!cudnn_sdpa_supports(&a, why, sizeof why)) {
        printf("%-52s SKIP: %s\n", label, why);
        CHECK(why[0] != '\0', "%s: declined without a reason", label);
        CHECK(!require_cudnn(), "%s: COMPARE_REQUIRE_CUDNN=1 but the case is declined: %s", label, why);
        goto out;
    }
    if (cudnn_sdpa_plan_make(&plan, &a, s) != STATUS_OK) {
        CHECK(0, "%s: cudnn_sdpa_plan_make: %s", label, status_message());
        goto out;
    }
    CHECK(strstr(cudnn_sdpa_plan_name(plan), "SDPA forward engine") != NULL, "%s: plan name %s", label,
          cudnn_sdpa_plan_name(plan));
    CK(cudaMemsetAsync(a.o, 0xff, nq * (size_t)elem_type_bytes(c->type), s)); /* NaN in fp16 and bf16 */
    CHECK(cudnn_sdpa_plan_run(plan, s) == STATUS_OK, "%s: cudnn_sdpa_plan_run: %s", label, status_message());
    CK(cudaStreamSynchronize(s));
    CK((cudaError_t)convert_to_f32(type_name(c->type), a.o, scratch, (long long)nq, s));
    CK(cudaMemcpyAsync(ho, scratch, nq * sizeof *ho, cudaMemcpyDeviceToHost, s));
    CK(cudaStreamSynchronize(s));
    reference(c, hq, hk, hv, a.scale, c->causal, ref);
    {
        const double err = max_err(ho, ref, nq);
        printf("%-52s max err %.3e (tol %.3e) %s\n", label, err, tol, cudnn_sdpa_plan_name(plan));
        CHECK(err <= tol, "%s: max error %.3e > %.3e (%s)", label, err, tol, cudnn_sdpa_plan_name(plan));
        if (c->causal) {
            /* the tolerance tells the mask apart: unmasked, the output is far off */
            reference(c, hq, hk, hv, a.scale, 0, ref);
            const double off = max_err(ho, ref, nq);
            CHECK(off > tol, "%s: the causal output is within %.3e of the unmasked reference", label, off);
        }
    }
    ran = 1;
out:
    cudnn_sdpa_plan_free(plan);
    CK(cudaFree((void *)a.q));
    CK(cudaFree((void *)a.k));
    CK(cudaFree((void *)a.v));
    CK(cudaFree(a.o));
    CK(cudaFree(scratch));
    free(hq), free(hk), free(hv), free(ho), free(ref);
    return ran;
}

/* a case cuDNN's row must decline, with a reason containing `expect` */
static void check_declined(attention_args a, const char *what, const char *expect)
{
    char why[1024] = "";
    CHECK(cudnn_sdpa_supports(&a, why, sizeof why) == 0, "%s: taken", what);
    CHECK(test_contains(why, expect) || test_contains(why, "cuDNN not found"), "%s: reason %s", what, why);
    printf("%-52s SKIP: %s\n", what, why);
}

int main(void)
{
    device_ctx dev;
    char why[1024] = "";
    const int ncases = (int)(sizeof cases / sizeof cases[0]);
    int ran = 0;
    rng_state = test_open_device(&dev);
    const attention_args probe = {.batch = 1, .heads = 1, .seq_q = 128, .seq_kv = 128, .head_dim = 64,
                                  .scale = 0.125f, .type = ELEM_FP16};
    const int have = cudnn_sdpa_supports(&probe, why, sizeof why);
    printf("cuDNN SDPA: %s\n", have ? "available" : why);
    for (int i = 0; i < ncases; i++) ran += run_case(&cases[i], dev.stream);
    {
        attention_args a = {.batch = 1, .heads = 2, .seq_q = 128, .seq_kv = 128, .head_dim = 64, .scale = 0.125f,
                            .type = ELEM_FP32};
        check_declined(a, "fp32", "fp16 and bf16");
        a.type = ELEM_BF16, a.causal = 1, a.seq_q = 333;
        check_declined(a, "causal seq_q 333 > seq_kv 128", "seq_q > seq_kv");
    }
    if (have) CHECK(ran > 0, "cuDNN is there but no case ran");
    printf("%d of %d cases ran\n", ran, ncases);
    device_close(&dev);
    return test_finish("test_gpu_cudnn_sdpa");
}
