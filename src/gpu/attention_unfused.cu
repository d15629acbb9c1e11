/* src/gpu/attention_unfused.cu: the mask and the rounding of the
 * cublas_unfused row (attention_unfused.h says what and why): elementwise
 * grid-stride kernels, one thread an element. */
#include "attention_unfused.h"

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#define AU_THREADS 256
#define AU_MAX_BLOCKS (65535LL * 16)

static __device__ void au_store(__half *p, long long i, float x) { p[i] = __float2half_rn(x); }
static __device__ void au_store(__nv_bfloat16 *p, long long i, float x) { p[i] = __float2bfloat16_rn(x); }

static __global__ void au_mask(float *S, long long n, long long sq, long long skv)
{
    for (long long e = blockIdx.x * (long long)AU_THREADS + threadIdx.x; e < n; e += (long long)gridDim.x * AU_THREADS) {
        const long long j = e % skv, i = (e / skv) % sq;
        if (j > i + skv - sq) S[e] = ATTENTION_UNFUSED_MASKED;
    }
}

template <typename T>
static __global__ void au_round(const float *S, T *P, long long n, long long sq, long long skv, int causal)
{
    for (long long e = blockIdx.x * (long long)AU_THREADS + threadIdx.x; e < n; e += (long long)gridDim.x * AU_THREADS) {
        const long long i = (e / skv) % sq;
        au_store(P, e, causal && i + skv - sq < 0 ? 0.0f : S[e]);
    }
}

static unsigned au_grid(long long n)
{
    const long long b = (n + AU_THREADS - 1) / AU_THREADS;
    return (unsigned)(b < 1 ? 1 : b > AU_MAX_BLOCKS ? AU_MAX_BLOCKS : b);
}

extern "C" int attention_unfused_mask(float *S, long long pairs, long long seq_q, long long seq_kv,
                                      cudaStream_t stream)
{
    const long long n = pairs * seq_q * seq_kv;
    if (n < 1) return (int)cudaErrorInvalidValue;
    au_mask<<<au_grid(n), AU_THREADS, 0, stream>>>(S, n, seq_q, seq_kv);
    return (int)cudaGetLastError();
}

extern "C" int attention_unfused_round(const float *S, void *P, elem_type type, long long pairs, long long seq_q,
                                       long long seq_kv, int causal, cudaStream_t stream)
{
    const long long n = pairs * seq_q * seq_kv;
    if (n < 1) return (int)cudaErrorInvalidValue;
    switch (type) {
    case ELEM_FP16: au_round<__half><<<au_grid(n), AU_THREADS, 0, stream>>>(S, (__half *)P, n, seq_q, seq_kv, causal); break;
    case ELEM_BF16:
        au_round<__nv_bfloat16><<<au_grid(n), AU_THREADS, 0, stream>>>(S, (__nv_bfloat16 *)P, n, seq_q, seq_kv, causal);
        break;
    default: return (int)cudaErrorInvalidValue;
    }
    return (int)cudaGetLastError();
}
