/* tests/test_gpu_attention_fa.c: the flash-attention launchers
 * attention_fa1, attention_fa2 and attention_fa3 (kernels/attention.h) called directly
 * against an FP64 host reference, on small shapes that walk the edges: seq
 * 64 (whole tiles), 100 and 333 (partial q and K/V tiles), seq_q != seq_kv
 * both ways (100 x 333: the causal limit off the diagonal; 333 x 100: rows
 * that see no key and must be zeros), 150 x 1100 (fa3: 9 K/V tiles, so its
 * ring of 2 stages wraps four times and both barrier parities repeat; a
 * q tile whose second warpgroup has no valid row), 1000 x 1000 (16 K/V
 * tiles of 64 with a partial last one: fa1's copies of V_j and K_j+1 in
 * flight across the tile loop, its last tile waiting for V alone), 1 x 1
 * (one row, one key), 1 x 1000 (one query row seeing every key, causal or
 * not) and 1000 x 1 (causal: only the last row sees its key, the other 999
 * are zeros), 200 x 400 (fa3 at head_dim 256: 5 whole K/V tiles of 80, the
 * causal limit off the diagonal), 130 x 130 (fa2: the last q tile's two
 * rows lie in its first warp's first row tile; its second row tile and the
 * other warps have no valid row), 333 x 1000 (causal: the limit off the
 * diagonal across 16 K/V tiles, fa1's tiles that straddle it masked and the
 * others not); and fa3's persistent kernel (head_dim 64
 * and 128: a CTA per SM, on an H200 132) with more work tiles (q tile x
 * batch x head) than CTAs, so CTAs take 2-4 work tiles back to back, its
 * K/V rings' stages and Q's barrier running on across them: 4 x 100 x
 * 1 x 300 (400 work tiles of 3 K/V tiles: an odd count, the rings' parity
 * shifts from one work tile to the next), 2 x 70 x 1 x 1100 (140 work
 * tiles of 9 K/V tiles), 1 x 70 x 140 x 140 (140 work tiles; causal: 2
 * then 1 K/V tiles, 1 then 2), 1 x 67 x 260 x 40 (201 work tiles of a single
 * partial K/V tile; causal: some see no key, zeros, before or after one
 * with keys), 1 x 33 x 520 x 140 (165 work tiles, 5 q tiles a head; causal:
 * 2 then 1, 1 then 2, 2 then none, none then 2); orders as on 132 SMs (the
 * CTAs' rounds, fa3_round_block; causal persistent from 32 heads); the
 * shapes above have fewer work tiles than SMs (one each); 1 x 48 x 400 x
 * 400 (192 work tiles, causal persistent: 4 q tiles a head of 1-4 K/V
 * tiles, the diagonal tile partial); 1 x 2 x 130 x 8200 (seq_kv past
 * FA3_LONG_KV: fa3 at 128 takes its FA3_BKV_LONG tiles, checked by
 * name; causal: the last of 43 tiles of 192 keys partial and masked). fa3's
 * tail split (no mask, more work tiles than SMs, a last round at most half
 * full: on 132 SMs, e.g., 4 x 100 x 1 x 300 in 3 chunks of one K/V tile, 2 x 70 x
 * 1 x 1100 in 4 of 2-3, 1 x 33 x 520 x 140 in 2 of 1; the workspace one
 * buffer for every run, so a counter left unreset fails the next) runs
 * where attention_fa3_tail_split (the rung, by FA3_TAIL_SPLIT) and
 * attention_fa3_search_tail_split (the candidates) say, and the
 * candidates fa3_t4_k128 and fa3_t8_k128 run it at least once. Batch 1-4,
 * heads 1-100, head_dim 64, 128 and 256, causal 0 and 1, fp16 and bf16.
 * fa3 (Hopper only) may decline with a reason naming sm_90 on another
 * device (printed as SKIP); anything else it declines fails (head_dim 256
 * included: fa3 runs it at 128 x 80 tiles, its kernel named _d256).
 * fa3's candidate family (kernels/search/attention_fa3_search.h: K/V tiles
 * of 128, 176 and 192 keys) runs every shape at head_dim 64 and 128 as a
 * rung of its own, named by its candidate (fa3_k176: 1000 keys are 5 tiles
 * of 176 and a partial one of 120, 1100 are 6 and 44); it declines head_dim
 * 256 (cudaErrorNotSupported, checked) and, like fa3, a device off sm_90.
 * Its fa3_w3_* rows (3 consumer warpgroups: q tiles of 192 rows): K/V
 * tiles of 112 and 128 keys run head_dim 64 alone and decline 128 too
 * (checked alike), 64 and 80 keys run both; at 192 rows a q tile whose third warpgroup has no valid row (130,
 * 150 rows), 1 x 67 x 260 x 40 (134 work tiles: two CTAs take two, causal
 * one then no K/V tile and none then one) and 1 x 70 x 400 x 100 (210 work tiles,
 * causal persistent: a head's first q tile sees no key, its others one K/V
 * tile each; at 128 rows 280 work tiles, two of four with no key), so the
 * ping-pong's cycle over 3 warpgroups meets work tiles with and without
 * keys in both orders.
 *
 * Inputs: Q, K, V elements k / 64 for integers k in [-128, 128] (exact in both
 * types, so the reference sees exactly what the kernels read); scale
 * 1 / sqrt(head_dim), so the scores spread over a few units and the softmax
 * is far from flat. O is poisoned (all bits set: NaN in both types) before
 * each run, so an unwritten element fails, and is followed by a guard zone
 * that must stay untouched.
 *
 * Tolerance per element (documented here, asserted below):
 *     |O - ref| <= 2 u max|V| + 2^-16
 * u the type's unit roundoff (2^-11 fp16, 2^-8 bf16). The kernels round P
 * (each probability, relative error u) to the input type before the P V
 * product: the error of sum_j p_j v_j / l is at most u sum_j p_j |v_j| / l
 * <= u max|V|; the output's own rounding adds u |O| <= u max|V|. The FP32
 * accumulations, ex2.approx and the FP32 running sum are far below that
 * (2^-16 covers them at these lengths). A missed rescale, a wrong mask or a
 * dropped tile gives errors of the order of |V| itself.
 *
 * Also: both supports queries decline head_dim 96, fp32 and a q pointer off
 * 16 bytes with a reason, and the launchers then return
 * cudaErrorNotSupported; each run names its kernel
 * (kernel_ran_name); fa1 at head_dim 256 runs its separate K and V buffers
 * (fa1_64x64kv2_d256) where the device's opt-in shared memory per block
 * takes them (FA1_SPLIT_BYTES_D256), else its one buffer with a reason. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cuda_runtime_api.h>

#include "attention.h"
#include "attention_fa3_search.h"
#include "kernel_ran.h"
#include "testlib_gpu.h"

#define GUARD_BYTES 256
/* fa1's head_dim 256 instance with separate K and V buffers: Q, K, V
 * (64 x 256 each), S (64 x 72 floats), P (64 x 64) and 3 x 64 floats
 * (kernels/attention_fa1.cu, FA1_SMEM(256, 1)) */
#define FA1_SPLIT_BYTES_D256 (2 * 3 * 64 * 256 + 4 * 64 * 72 + 2 * 64 * 64 + 3 * 4 * 64)
static int optin_bytes; /* the device's opt-in shared memory per block */

typedef struct {
    long long b, h, sq, skv;
} shape;

static const shape SHAPES[] = {{1, 2, 64, 64},     {2, 2, 100, 100}, {1, 2, 333, 333}, {1, 2, 100, 333},
                               {2, 2, 333, 100},   {1, 1, 150, 1100}, {1, 2, 1000, 1000}, {1, 1, 1, 1},
                               {1, 1, 1, 1000},    {1, 1, 1000, 1},   {1, 1, 200, 400}, {1, 2, 130, 130},
                               {1, 1, 333, 1000},  {4, 100, 1, 300},  {2, 70, 1, 1100},  {1, 70, 140, 140},
                               {1, 67, 260, 40},   {1, 33, 520, 140}, {1, 48, 400, 400}, {1, 2, 130, 8200},
                               {1, 70, 400, 100}};
static const long long DIMS[] = {64, 128, 256};

typedef struct {
    const char *name;
    attention_launcher fn; /* NULL: candidate `cand` of family fa3 */
    int (*supports)(const attention_args *, char *, size_t);
    int cand;
} rung;

/* fa3's candidates: the rung's supports, and head_dim 64 or 128 */
static int cand_supports(const attention_args *a, char *why, size_t why_len)
{
    if (!attention_fa3_supports(a, why, why_len))
        return 0;
    if (a->head_dim != 64 && a->head_dim != 128) {
        snprintf(why, why_len, "fa3 candidates: head_dim 64 and 128 only");
        return 0;
    }
    return 1;
}

/* fa3's 3-warpgroup candidates over 80 keys (fa3_w3_k112, _k128): head_dim 64 alone */
static int cand_w3_supports(const attention_args *a, char *why, size_t why_len)
{
    if (!cand_supports(a, why, why_len))
        return 0;
    if (a->head_dim != 64) {
        snprintf(why, why_len, "fa3 w3 candidates: head_dim 64 only");
        return 0;
    }
    return 1;
}

static const rung RUNGS[] = {{"fa1", attention_fa1, attention_fa1_supports, -1},
                             {"fa2", attention_fa2, attention_fa2_supports, -1},
                             {"fa3", attention_fa3, attention_fa3_supports, -1},
                             {"fa3_k128", NULL, cand_supports, 0},
                             {"fa3_k176", NULL, cand_supports, 1},
                             {"fa3_k192", NULL, cand_supports, 2},
                             {"fa3_w3_k112", NULL, cand_w3_supports, 3},
                             {"fa3_w3_k128", NULL, cand_w3_supports, 4},
                             {"fa3_w3_k64", NULL, cand_supports, 5},
                             {"fa3_w3_k80", NULL, cand_supports, 6},
                             {"fa3_q1_k128", NULL, cand_supports, 7},
                             {"fa3_nt_k128", NULL, cand_supports, 8},
                             {"fa3_t4_k128", NULL, cand_supports, 9},
                             {"fa3_t8_k128", NULL, cand_supports, 10},
                             {"fa3_s0_k128", NULL, cand_supports, 11},
                             {"fa3_dr_k128", NULL, cand_supports, 12},
                             {"fa3_e3_k128", NULL, cand_supports, 13},
                             {"fa3_s0_k192", NULL, cand_supports, 14},
                             {"fa3_d_k128", NULL, cand_supports, 15},
                             {"fa3_d_k192", NULL, cand_supports, 16}};
#define NRUNGS (int)(sizeof RUNGS / sizeof RUNGS[0])

static int rung_run(int r, const attention_args *a, cudaStream_t st)
{
    return RUNGS[r].fn ? RUNGS[r].fn(a, st) : attention_fa3_search_run(RUNGS[r].cand, a, st);
}

/* the workspace rung r asks for at case a (fa3's and its candidates' tail
 * split; fa1 and fa2 none) */
static size_t rung_workspace(int r, const attention_args *a)
{
    if (!RUNGS[r].fn)
        return attention_fa3_search_workspace(RUNGS[r].cand, a);
    return strcmp(RUNGS[r].name, "fa3") == 0 ? attention_fa3_workspace(a) : 0;
}

/* one workspace for every run, zeroed once: the tail split's counters
 * must be back at zero after each run, or the next run's join (any fa3
 * row's, candidates included) comes early and its O fails */
#define WS_BYTES ((size_t)32 << 20)

/* the candidate table holds what RUNGS names, in that order */
static void check_candidates(void)
{
    CHECK(attention_fa3_search_count() == 17, "fa3 has 17 candidates (%d)", attention_fa3_search_count());
    for (int r = 0; r < NRUNGS; r++)
        if (!RUNGS[r].fn) {
            const char *n = attention_fa3_search_name(RUNGS[r].cand);
            CHECK(n && strcmp(n, RUNGS[r].name) == 0, "candidate %d is %s (%s)", RUNGS[r].cand, RUNGS[r].name,
                  n ? n : "none");
        }
    CHECK(attention_fa3_search_name(attention_fa3_search_count()) == NULL && attention_fa3_search_name(-1) == NULL,
          "candidate names out of range: NULL");
}

/* 1: the device is cc 9.0 and no policy is forced (COMPARE_POLICY_ARCH):
 * fa3 must then run */
static int hopper_native;

/* 1 if a candidate of rung r declines a's head_dim by design: 256, and
 * 128 for the fa3_w3_* rows */
static int cand_declines_dim(int r, const attention_args *a)
{
    return !RUNGS[r].fn && (a->head_dim == 256 || (RUNGS[r].supports == cand_w3_supports && a->head_dim == 128));
}

/* 1 if rung r takes case a; 0 (SKIP, printed) for fa3's one designed
 * decline: a device off the sm_90 policy (not on an unforced cc 9.0
 * device), and the candidates' head_dims (cand_declines_dim); any other
 * decline fails (head_dim 256 included) */
static int rung_takes(int r, const attention_args *a)
{
    char why[256] = "";
    if (RUNGS[r].supports(a, why, sizeof why))
        return 1;
    const int designed = (strncmp(RUNGS[r].name, "fa3", 3) == 0 && !hopper_native && strstr(why, "sm_90") != NULL) ||
                         cand_declines_dim(r, a);
    CHECK(designed, "%s declines: %s", RUNGS[r].name, why);
    if (designed && cand_declines_dim(r, a) && a->q) /* the candidate's run declines too */
        CHECK(rung_run(r, a, NULL) == (int)cudaErrorNotSupported, "%s declines head_dim %lld", RUNGS[r].name,
              a->head_dim);
    if (designed)
        printf("%s d=%lld: SKIP (%s)\n", RUNGS[r].name, a->head_dim, why);
    return 0;
}

static uint64_t rng_state = 0x243f6a8885a308d3ULL;
static int rng_int(int lo, int hi) /* uniform in [lo, hi] */
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return lo + (int)((rng_state >> 11) % (uint64_t)(hi - lo + 1));
}

/* the bits of k / 64 (|k| <= 128: exact) in fp16 or bf16 */
static uint16_t bits_of(int k, elem_type t)
{
    if (k == 0)
        return 0;
    const float f = (float)k / 64.0f;
    if (t == ELEM_BF16) {
        uint32_t b;
        memcpy(&b, &f, 4);
        return (uint16_t)(b >> 16);
    }
    int e;
    const float m = frexpf(fabsf(f), &e); /* |f| = 2m * 2^(e-1), 2m in [1, 2) */
    return (uint16_t)((f < 0 ? 0x8000 : 0) | ((e - 1 + 15) << 10) | (int)lrintf((2.0f * m - 1.0f) * 1024.0f));
}

/* the value of fp16 or bf16 bits: bf16 is the upper half of an fp32; an fp16
 * is rebuilt as an fp32 (exponent rebiased by 127 - 15), its subnormals as
 * m 2^-24 */
static double value_of(uint16_t h, elem_type t)
{
    uint32_t b = (uint32_t)h << 16;
    if (t == ELEM_FP16) {
        const uint32_t e = (h >> 10) & 31u, m = h & 1023u, sign = (uint32_t)(h >> 15);
        if (e == 0)
            return sign ? -ldexp(m, -24) : ldexp(m, -24);
        b = sign << 31 | (e == 31 ? 255u : e + 112u) << 23 | m << 13;
    }
    float f;
    memcpy(&f, &b, 4);
    return f;
}

/* O (b, h, sq, d) in FP64 from the integer inputs (value k / 64) */
static void reference(const shape *sh, long long d, int causal, const int *q, const int *k, const int *v, double *o)
{
    const double scale = 1.0 / sqrt((double)d);
    double *p = malloc((size_t)sh->skv * sizeof *p);
    for (long long bh = 0; bh < sh->b * sh->h; bh++)
        for (long long i = 0; i < sh->sq; i++) {
            const int *qi = q + (bh * sh->sq + i) * d;
            double mx = -INFINITY, l = 0.0;
            long long nvis = 0;
            for (long long j = 0; j < sh->skv; j++) {
                if (causal && j > i + sh->skv - sh->sq)
                    break;
                const int *kj = k + (bh * sh->skv + j) * d;
                double s = 0.0;
                for (long long c = 0; c < d; c++) s += (double)qi[c] * kj[c];
                p[j] = s / 4096.0 * scale;
                if (p[j] > mx) mx = p[j];
                nvis = j + 1;
            }
            for (long long j = 0; j < nvis; j++) {
                p[j] = exp(p[j] - mx);
                l += p[j];
            }
            double *oi = o + (bh * sh->sq + i) * d;
            for (long long c = 0; c < d; c++) {
                double acc = 0.0;
                for (long long j = 0; j < nvis; j++) acc += p[j] * v[(bh * sh->skv + j) * d + c] / 64.0;
                oi[c] = nvis ? acc / l : 0.0;
            }
        }
    free(p);
}

static void fill(int *x, long long n)
{
    for (long long i = 0; i < n; i++) x[i] = rng_int(-128, 128);
}

static void to_bits(uint16_t *dst, const int *x, long long n, elem_type t)
{
    for (long long i = 0; i < n; i++) dst[i] = bits_of(x[i], t);
}

static void check_declines(cudaStream_t st)
{
    attention_args a;
    memset(&a, 0, sizeof a);
    a.batch = a.heads = 1;
    a.seq_q = a.seq_kv = 64;
    a.head_dim = 96;
    a.type = ELEM_BF16;
    a.scale = 0.125f;
    for (int r = 0; r < NRUNGS; r++) {
        char why[256] = "";
        a.head_dim = 96;
        a.type = ELEM_BF16;
        CHECK(!RUNGS[r].supports(&a, why, sizeof why) && strstr(why, "head_dim"), "%s declines d 96: %s",
              RUNGS[r].name, why);
        CHECK(rung_run(r, &a, st) == (int)cudaErrorNotSupported, "%s launcher declines d 96", RUNGS[r].name);
        why[0] = 0;
        a.head_dim = 128;
        a.type = ELEM_FP32;
        CHECK(!RUNGS[r].supports(&a, why, sizeof why) && strstr(why, "bf16"), "%s declines fp32: %s",
              RUNGS[r].name, why);
        a.type = ELEM_FP16;
        a.q = (const void *)(uintptr_t)0x1002; /* never dereferenced: declined first */
        CHECK(!RUNGS[r].supports(&a, why, sizeof why) && strstr(why, "aligned"), "%s declines a misaligned q: %s",
              RUNGS[r].name, why);
        CHECK(rung_run(r, &a, st) == (int)cudaErrorNotSupported, "%s launcher declines a misaligned q",
              RUNGS[r].name);
        a.q = NULL;
        (void)rung_takes(r, &a); /* fp16 d 128: taken (fa3: on an sm_90 device) */
    }
}

int main(void)
{
    test_require_gpu();
    int dev = 0, major = 0, minor = 0;
    CK(cudaGetDevice(&dev));
    CK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev));
    CK(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev));
    const char *forced = getenv("COMPARE_POLICY_ARCH");
    hopper_native = major == 9 && minor == 0 && !(forced && forced[0]);
    CK(cudaDeviceGetAttribute(&optin_bytes, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev));
    cudaStream_t st;
    CK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
    check_declines(st);
    check_candidates();
    void *dws;
    CK(cudaMalloc(&dws, WS_BYTES));
    CK(cudaMemsetAsync(dws, 0, WS_BYTES, st));
    /* runs of rung r whose last round was split (attention_fa3_tail_split, _search_tail_split) */
    int split_runs[NRUNGS] = {0};

    for (size_t si = 0; si < sizeof SHAPES / sizeof SHAPES[0]; si++)
        for (size_t di = 0; di < sizeof DIMS / sizeof DIMS[0]; di++) {
            const shape *sh = &SHAPES[si];
            const long long d = DIMS[di];
            const long long nq = sh->b * sh->h * sh->sq * d, nkv = sh->b * sh->h * sh->skv * d;
            int *q = malloc((size_t)nq * sizeof *q), *k = malloc((size_t)nkv * sizeof *k),
                *v = malloc((size_t)nkv * sizeof *v);
            double *ref = malloc((size_t)nq * sizeof *ref);
            uint16_t *hq = malloc((size_t)nq * 2), *hk = malloc((size_t)nkv * 2), *hv = malloc((size_t)nkv * 2);
            uint16_t *ho = malloc((size_t)nq * 2 + GUARD_BYTES);
            fill(q, nq);
            fill(k, nkv);
            fill(v, nkv);
            double vmax = 0.0;
            for (long long i = 0; i < nkv; i++) vmax = fmax(vmax, fabs(v[i] / 64.0));
            void *dq, *dk, *dv, *dout;
            CK(cudaMalloc(&dq, (size_t)nq * 2));
            CK(cudaMalloc(&dk, (size_t)nkv * 2));
            CK(cudaMalloc(&dv, (size_t)nkv * 2));
            CK(cudaMalloc(&dout, (size_t)nq * 2 + GUARD_BYTES));
            for (int causal = 0; causal < 2; causal++) {
                reference(sh, d, causal, q, k, v, ref);
                for (int ti = 0; ti < 2; ti++) {
                    const elem_type t = ti ? ELEM_BF16 : ELEM_FP16;
                    const double u = t == ELEM_BF16 ? 0x1p-8 : 0x1p-11;
                    const double tol = 2.0 * u * vmax + 0x1p-16;
                    to_bits(hq, q, nq, t);
                    to_bits(hk, k, nkv, t);
                    to_bits(hv, v, nkv, t);
                    CK(cudaMemcpyAsync(dq, hq, (size_t)nq * 2, cudaMemcpyHostToDevice, st));
                    CK(cudaMemcpyAsync(dk, hk, (size_t)nkv * 2, cudaMemcpyHostToDevice, st));
                    CK(cudaMemcpyAsync(dv, hv, (size_t)nkv * 2, cudaMemcpyHostToDevice, st));
                    for (int r = 0; r < NRUNGS; r++) {
                        attention_args a;
                        memset(&a, 0, sizeof a);
                        a.q = dq;
                        a.k = dk;
                        a.v = dv;
                        a.o = dout;
                        a.batch = sh->b;
                        a.heads = sh->h;
                        a.seq_q = sh->sq;
                        a.seq_kv = sh->skv;
                        a.head_dim = d;
                        a.causal = causal;
                        a.scale = (float)(1.0 / sqrt((double)d));
                        a.type = t;
                        const char *label = RUNGS[r].name;
                        if (!rung_takes(r, &a))
                            continue;
                        const size_t wsb = rung_workspace(r, &a);
                        CHECK(wsb <= WS_BYTES, "%s asks for %zu bytes of workspace (test has %zu)", label, wsb,
                              WS_BYTES);
                        a.workspace = wsb ? dws : NULL;
                        a.workspace_bytes = wsb;
                        int split = strcmp(label, "fa3") == 0 ? attention_fa3_tail_split(&a) : 0;
                        if (!RUNGS[r].fn)
                            split = attention_fa3_search_tail_split(RUNGS[r].cand, &a);
                        if (split > 1) {
                            split_runs[r]++;
                            printf("%s tail split: %d chunks\n", label, split);
                        }
                        CK(cudaMemsetAsync(dout, 0xff, (size_t)nq * 2 + GUARD_BYTES, st));
                        kernel_ran_clear();
                        const int e = rung_run(r, &a, st);
                        CHECK(e == 0, "%s returned %d (%s)", label, e, cudaGetErrorString((cudaError_t)e));
                        CK(cudaMemcpyAsync(ho, dout, (size_t)nq * 2 + GUARD_BYTES, cudaMemcpyDeviceToHost, st));
                        CK(cudaStreamSynchronize(st));
                        const char *kn = kernel_ran_name();
                        CHECK(kn && strncmp(kn, label, 3) == 0, "%s names its kernel (%s)", label, kn ? kn : "none");
                        if (strcmp(label, "fa1") == 0 && d == 256) {
                            const char *why = kernel_ran_reason();
                            if (optin_bytes >= FA1_SPLIT_BYTES_D256)
                                CHECK(kn && strcmp(kn, "fa1_64x64kv2_d256") == 0,
                                      "fa1 d 256 runs separate K and V buffers (%s)", kn ? kn : "none");
                            else
                                CHECK(kn && strcmp(kn, "fa1_64x64_d256") == 0 && why && why[0],
                                      "fa1 d 256 runs its one K/V buffer, with a reason (%s)", kn ? kn : "none");
                        }
                        if (!RUNGS[r].fn)
                            CHECK(kn && strcmp(kn, label) == 0, "candidate %s names itself (%s)", label,
                                  kn ? kn : "none");
                        if (strcmp(label, "fa3") == 0 && d == 256)
                            CHECK(kn && strstr(kn, "_d256") != NULL, "fa3 d 256 runs its d256 kernel (%s)",
                                  kn ? kn : "none");
                        /* a long K/V sequence at head_dim 128: the FA3_BKV_LONG tiles
                         * (8200 keys: a partial last tile of 136 keys at 192); head_dim
                         * 64: three consumer warpgroups (192 q rows) on 128-key tiles at
                         * every length (the defaults, FA3_LONG_KV and FA3_NWG_D64) */
                        if (strcmp(label, "fa3") == 0 && d == 128 && sh->skv >= 4096)
                            CHECK(kn && strncmp(kn, "fa3_128x192_", 12) == 0, "fa3 at %lld keys runs 192-key tiles (%s)",
                                  sh->skv, kn ? kn : "none");
                        if (strcmp(label, "fa3") == 0 && d == 64)
                            CHECK(kn && strcmp(kn, "fa3_192x128_d64") == 0,
                                  "fa3 at head_dim 64 runs 3 consumer warpgroups on 128-key tiles (%s)", kn ? kn : "none");
                        double worst = 0.0;
                        long long bad = 0, first = -1;
                        for (long long i = 0; i < nq; i++) {
                            const double err = fabs(value_of(ho[i], t) - ref[i]);
                            if (!(err <= tol)) {
                                if (first < 0) first = i;
                                bad++;
                            }
                            if (err > worst || err != err) worst = err;
                        }
                        int guard_ok = 1;
                        for (long long i = 0; i < GUARD_BYTES / 2; i++) guard_ok &= ho[nq + i] == 0xffff;
                        CHECK(bad == 0,
                              "%s %s b %lld h %lld sq %lld skv %lld d %lld causal %d: %lld of %lld elements off "
                              "(worst %.3g, tol %.3g; first at %lld: got %g want %g)",
                              label, ti ? "bf16" : "fp16", sh->b, sh->h, sh->sq, sh->skv, d, causal, bad, nq, worst,
                              tol, first, first >= 0 ? value_of(ho[first], t) : 0.0, first >= 0 ? ref[first] : 0.0);
                        CHECK(guard_ok, "%s wrote past O (sq %lld d %lld)", label, sh->sq, d);
                        printf("%s %s b=%lld h=%lld sq=%lld skv=%lld d=%lld causal=%d: max err %.3g (tol %.3g)\n",
                               label, ti ? "bf16" : "fp16", sh->b, sh->h, sh->sq, sh->skv, d, causal, worst, tol);
                    }
                }
            }
            CK(cudaFree(dq));
            CK(cudaFree(dk));
            CK(cudaFree(dv));
            CK(cudaFree(dout));
            free(q);
            free(k);
            free(v);
            free(ref);
            free(hq);
            free(hk);
            free(hv);
            free(ho);
        }
    /* the shapes with more work tiles than SMs and a small last round (4 x 100 x 1 x 300,
     * 2 x 70 x 1 x 1100, 1 x 33 x 520 x 140 on 132 SMs) run the tail split, checked above */
    if (hopper_native)
        for (int r = 0; r < NRUNGS; r++)
            if (strcmp(RUNGS[r].name, "fa3_t4_k128") == 0 || strcmp(RUNGS[r].name, "fa3_t8_k128") == 0)
                CHECK(split_runs[r] > 0, "%s ran the tail split (%d runs)", RUNGS[r].name, split_runs[r]);
    CK(cudaFree(dws));
    CK(cudaStreamDestroy(st));
    return test_finish("test_gpu_attention_fa");
}
