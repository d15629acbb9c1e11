/* src/gpu/attention_wrong.cu: the planted wrong kernel of attention_wrong.h:
 * the online softmax with the rescale left out (marked below). */
#include "attention_wrong.h"

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <math.h>

#define AW_THREADS 128

static __device__ float aw_load(const __half *p, long long i) { return __half2float(p[i]); }
static __device__ float aw_load(const __nv_bfloat16 *p, long long i) { return __bfloat162float(p[i]); }
static __device__ void aw_store(__half *p, long long i, float x) { p[i] = __float2half_rn(x); }
static __device__ void aw_store(__nv_bfloat16 *p, long long i, float x) { p[i] = __float2bfloat16_rn(x); }

template <typename T>
static __global__ void aw_kernel(const T *q, const T *k, const T *v, T *o, long long pairs, long long sq,
                                 long long skv, int d, int causal, float scale)
{
    const long long e = blockIdx.x * (long long)AW_THREADS + threadIdx.x;
    if (e >= pairs * sq * d) return;
    const long long c = e % d, i = (e / d) % sq, p = e / (sq * d);
    const long long last = causal ? i + skv - sq : skv - 1;
    const long long nvis = last < 0 ? 0 : last + 1 < skv ? last + 1 : skv;
    const T *qr = q + (p * sq + i) * d, *kb = k + p * skv * d, *vb = v + p * skv * d;
    float m = -INFINITY, l = 0.0f, acc = 0.0f;
    for (long long j0 = 0; j0 < nvis; j0 += ATTENTION_WRONG_TILE) {
        const long long j1 = j0 + ATTENTION_WRONG_TILE < nvis ? j0 + ATTENTION_WRONG_TILE : nvis;
        float tile_max = -INFINITY;
        for (long long j = j0; j < j1; j++) {
            float s = 0.0f;
            for (int x = 0; x < d; x++) s += aw_load(qr, x) * aw_load(kb, j * d + x);
            tile_max = fmaxf(tile_max, s * scale);
        }
        const float m_new = fmaxf(m, tile_max);
        /* THE PLANTED BUG: a correct kernel multiplies l and acc by
         * expf(m - m_new) here; this one does not. */
        for (long long j = j0; j < j1; j++) {
            float s = 0.0f;
            for (int x = 0; x < d; x++) s += aw_load(qr, x) * aw_load(kb, j * d + x);
            const float pj = expf(s * scale - m_new);
            l += pj;
            acc += pj * aw_load(vb, j * d + c);
        }
        m = m_new;
    }
    aw_store(o, e, nvis > 0 ? acc / l : 0.0f);
}

template <typename T>
static int aw_run(const attention_args *a, cudaStream_t s)
{
    const long long n = a->batch * a->heads * a->seq_q * a->head_dim;
    aw_kernel<T><<<(unsigned)((n + AW_THREADS - 1) / AW_THREADS), AW_THREADS, 0, s>>>(
        (const T *)a->q, (const T *)a->k, (const T *)a->v, (T *)a->o, a->batch * a->heads, a->seq_q, a->seq_kv,
        (int)a->head_dim, a->causal, a->scale);
    return (int)cudaGetLastError();
}

extern "C" int attention_test_norescale(const attention_args *a, cudaStream_t s)
{
    switch (a->type) {
    case ELEM_FP16: return aw_run<__half>(a, s);
    case ELEM_BF16: return aw_run<__nv_bfloat16>(a, s);
    default: return (int)cudaErrorInvalidValue;
    }
}
