/* kernels/attention_naive.cu: the first rung of the attention ladder,
 * attention_naive (kernels/attention.h): the formula as three kernels, S
 * materialised.
 *
 * Idea: what the textbook writes.
 *   1. S = Q K^T * scale in FP32, one warp per score (the lanes split the
 *      dot product over head_dim, so the loads of a q and a k row are
 *      coalesced; nothing is reused between scores), masked scores -inf;
 *   2. a row softmax of S in place, one block per row (max, sum of exp,
 *      normalise: three passes over the row); a row that sees no key
 *      becomes zeros;
 *   3. O = P V, one thread per output element (a sum over seq_kv), rounded
 *      to the type once.
 * Memory: S is seq_q x seq_kv floats per (batch, head), written once and
 * read three times, then read again by 3: the traffic the fused rungs
 * (fa1, fa2) remove. The workspace holds S for a group of (batch, head)
 * pairs at a time: at most ATTENTION_NAIVE_CHUNK_BYTES, at least one pair;
 * the groups run one after another. A case whose S of one (batch, head)
 * exceeds the cap is declined (its reason names the bytes).
 *
 * Constraints: fp16 and bf16; any sizes (64-bit indices); head_dim any.
 *
 * Run just this variant:  ./compare --ops attention --variants naive
 */
#include "attention.h"

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <math.h>
#include <stdio.h>

#define ATTENTION_NAIVE_CHUNK_BYTES ((size_t)4 << 30) /* the workspace's cap */
#define AN_THREADS 256
#define AN_MAX_GRID (65535LL * 64) /* grid-stride loops beyond this */

static __device__ float an_load(const __half *p, long long i) { return __half2float(p[i]); }
static __device__ float an_load(const __nv_bfloat16 *p, long long i) { return __bfloat162float(p[i]); }
static __device__ void an_store(__half *p, long long i, float x) { p[i] = __float2half_rn(x); }
static __device__ void an_store(__nv_bfloat16 *p, long long i, float x) { p[i] = __float2bfloat16_rn(x); }

// ---------------------------------------------------------------------------
// 1. scores

template <typename T>
static __global__ void an_scores(const T *q, const T *k, float *S, long long pairs, long long sq, long long skv,
                                 int d, int causal, float scale)
{
    const long long n = pairs * sq * skv, warps = (long long)gridDim.x * (blockDim.x / 32);
    const int lane = threadIdx.x & 31;
    for (long long e = blockIdx.x * (long long)(blockDim.x / 32) + threadIdx.x / 32; e < n; e += warps) {
        const long long j = e % skv, i = (e / skv) % sq, p = e / (sq * skv);
        float s = -INFINITY;
        if (!causal || j <= i + skv - sq) { /* warp-uniform */
            const T *qr = q + (p * sq + i) * d, *kr = k + (p * skv + j) * d;
            float acc = 0.0f;
            for (int c = lane; c < d; c += 32) acc += an_load(qr, c) * an_load(kr, c);
            for (int o = 16; o > 0; o >>= 1) acc += __shfl_xor_sync(0xffffffffu, acc, o);
            s = acc * scale;
        }
        if (lane == 0) S[e] = s;
    }
}

// ---------------------------------------------------------------------------
// 2. row softmax in place

static __device__ float an_block_reduce(float v, float *sh, int is_max)
{
    for (int o = 16; o > 0; o >>= 1) {
        const float w = __shfl_xor_sync(0xffffffffu, v, o);
        v = is_max ? fmaxf(v, w) : v + w;
    }
    __syncthreads();
    if ((threadIdx.x & 31) == 0) sh[threadIdx.x >> 5] = v;
    __syncthreads();
    float r = sh[0];
    for (int w = 1; w < AN_THREADS / 32; w++) r = is_max ? fmaxf(r, sh[w]) : r + sh[w];
    return r;
}

static __global__ void __launch_bounds__(AN_THREADS) an_softmax(float *S, long long rows, long long skv)
{
    __shared__ float sh[AN_THREADS / 32];
    for (long long r = blockIdx.x; r < rows; r += gridDim.x) {
        float *x = S + r * skv;
        float m = -INFINITY, l = 0.0f;
        for (long long j = threadIdx.x; j < skv; j += AN_THREADS) m = fmaxf(m, x[j]);
        m = an_block_reduce(m, sh, 1);
        if (m == -INFINITY) { /* the row sees no key: zeros */
            for (long long j = threadIdx.x; j < skv; j += AN_THREADS) x[j] = 0.0f;
            continue;
        }
        for (long long j = threadIdx.x; j < skv; j += AN_THREADS) l += expf(x[j] - m);
        l = an_block_reduce(l, sh, 0);
        const float inv = 1.0f / l;
        for (long long j = threadIdx.x; j < skv; j += AN_THREADS) x[j] = expf(x[j] - m) * inv;
    }
}

// ---------------------------------------------------------------------------
// 3. O = P V

template <typename T>
static __global__ void an_pv(const float *P, const T *v, T *o, long long pairs, long long sq, long long skv, int d)
{
    const long long n = pairs * sq * d;
    for (long long e = blockIdx.x * (long long)blockDim.x + threadIdx.x; e < n;
         e += (long long)gridDim.x * blockDim.x) {
        const long long c = e % d, i = (e / d) % sq, p = e / (sq * d);
        const float *pr = P + (p * sq + i) * skv;
        const T *vb = v + p * skv * d;
        float acc = 0.0f;
        for (long long j = 0; j < skv; j++) acc += pr[j] * an_load(vb, j * d + c);
        an_store(o, e, acc);
    }
}

// ---------------------------------------------------------------------------
// launchers

static unsigned an_grid(long long n, long long per_block)
{
    long long b = (n + per_block - 1) / per_block;
    return (unsigned)(b < 1 ? 1 : b > AN_MAX_GRID ? AN_MAX_GRID : b);
}

static size_t an_pair_bytes(const attention_args *a) { return (size_t)(a->seq_q * a->seq_kv) * sizeof(float); }

template <typename T>
static int an_run(const attention_args *a, cudaStream_t s)
{
    const long long pairs = a->batch * a->heads, per = (long long)an_pair_bytes(a);
    long long group = (long long)(a->workspace_bytes / (size_t)per);
    if (group < 1 || !a->workspace) return (int)cudaErrorInvalidValue;
    if (group > pairs) group = pairs;
    float *S = (float *)a->workspace;
    const int d = (int)a->head_dim;
    for (long long p0 = 0; p0 < pairs; p0 += group) {
        const long long g = pairs - p0 < group ? pairs - p0 : group;
        const T *q = (const T *)a->q + p0 * a->seq_q * d, *k = (const T *)a->k + p0 * a->seq_kv * d;
        const T *v = (const T *)a->v + p0 * a->seq_kv * d;
        T *o = (T *)a->o + p0 * a->seq_q * d;
        an_scores<T><<<an_grid(g * a->seq_q * a->seq_kv, AN_THREADS / 32), AN_THREADS, 0, s>>>(
            q, k, S, g, a->seq_q, a->seq_kv, d, a->causal, a->scale);
        an_softmax<<<an_grid(g * a->seq_q, 1), AN_THREADS, 0, s>>>(S, g * a->seq_q, a->seq_kv);
        an_pv<T><<<an_grid(g * a->seq_q * d, AN_THREADS), AN_THREADS, 0, s>>>(S, v, o, g, a->seq_q, a->seq_kv, d);
        const cudaError_t e = cudaGetLastError();
        if (e != cudaSuccess) return (int)e;
    }
    return (int)cudaSuccess;
}

extern "C" size_t attention_naive_workspace(const attention_args *a)
{
    const size_t per = an_pair_bytes(a), all = per * (size_t)(a->batch * a->heads);
    if (per > ATTENTION_NAIVE_CHUNK_BYTES) return 0; /* declined by supports */
    return all < ATTENTION_NAIVE_CHUNK_BYTES ? all : ATTENTION_NAIVE_CHUNK_BYTES / per * per;
}

extern "C" int attention_naive_supports(const attention_args *a, char *why, size_t why_len)
{
    if (a->type != ELEM_FP16 && a->type != ELEM_BF16) {
        snprintf(why, why_len, "naive takes fp16 and bf16 only");
        return 0;
    }
    if (an_pair_bytes(a) > ATTENTION_NAIVE_CHUNK_BYTES) {
        snprintf(why, why_len, "S of one (batch, head) needs %.2f GiB of FP32 scores, more than the naive row's "
                 "workspace cap of %.0f GiB", an_pair_bytes(a) / 1073741824.0,
                 ATTENTION_NAIVE_CHUNK_BYTES / 1073741824.0);
        return 0;
    }
    return 1;
}

extern "C" int attention_naive(const attention_args *a, cudaStream_t s)
{
    switch (a->type) {
    case ELEM_FP16: return an_run<__half>(a, s);
    case ELEM_BF16: return an_run<__nv_bfloat16>(a, s);
    default: return (int)cudaErrorInvalidValue;
    }
}
