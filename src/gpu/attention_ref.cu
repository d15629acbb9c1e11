/* src/gpu/attention_ref.cu: the FP64 reference and the element check of the
 * attention op (attention_ref.h says what and why). A block of AR_THREADS
 * per (batch, head, checked row), taking turns over them: the threads split
 * the keys for the scores (each a double dot product over head_dim, q held
 * in shared memory), block reductions give the max and the row sum, then the
 * threads split the columns for the P V sums. Slow next to the kernels
 * (double arithmetic, scores written to and read from global scratch), and
 * never timed: that is why only a sample of rows is checked for long
 * sequences (src/core/verify_attention.h). */
#include "attention_ref.h"

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#define AR_THREADS 256
#define AR_MAX_D 256

static __device__ double ar_load(const __half *p, long long i) { return (double)__half2float(p[i]); }
static __device__ double ar_load(const __nv_bfloat16 *p, long long i) { return (double)__bfloat162float(p[i]); }

/* block reduction whose result every thread gets */
template <int IS_MAX>
static __device__ double ar_block_reduce(double v, double *sh)
{
    for (int o = 16; o > 0; o >>= 1) {
        const double w = __shfl_xor_sync(0xffffffffu, v, o);
        v = IS_MAX ? fmax(v, w) : v + w;
    }
    __syncthreads(); /* sh may still be read from the previous reduction */
    if ((threadIdx.x & 31) == 0) sh[threadIdx.x >> 5] = v;
    __syncthreads();
    double r = sh[0];
    for (int w = 1; w < AR_THREADS / 32; w++) r = IS_MAX ? fmax(r, sh[w]) : r + sh[w];
    return r;
}

static __device__ void ar_atomic_max_nonneg(unsigned long long *addr, double v)
{
    atomicMax(addr, (unsigned long long)__double_as_longlong(v));
}

// ---------------------------------------------------------------------------
// the reference

template <typename T>
static __global__ void __launch_bounds__(AR_THREADS)
    ar_ref_kernel(const T *q, const T *k, const T *v, long long bh_count, long long sq, long long skv, int d,
                  int causal, double scale, const long long *rows, long long count, double *ref, double *srow,
                  double *scratch, unsigned long long *s_abs_bits)
{
    __shared__ double qs[AR_MAX_D];
    __shared__ double sh[AR_THREADS / 32];
    double *sc = scratch + (long long)blockIdx.x * skv;
    double s_abs = 0.0;
    for (long long item = blockIdx.x; item < bh_count * count; item += gridDim.x) {
        const long long bh = item / count, i = rows[item % count];
        /* keys j <= i + skv - sq are visible when causal */
        const long long last = causal ? i + skv - sq : skv - 1;
        const long long nvis = last < 0 ? 0 : last + 1 < skv ? last + 1 : skv;
        const T *qr = q + (bh * sq + i) * d, *kb = k + bh * skv * d, *vb = v + bh * skv * d;
        double *out = ref + item * d;
        __syncthreads(); /* qs and sc of the previous item are no longer read */
        for (int c = threadIdx.x; c < d; c += AR_THREADS) qs[c] = ar_load(qr, c);
        __syncthreads();
        double m = -INFINITY;
        for (long long j = threadIdx.x; j < nvis; j += AR_THREADS) {
            double dot = 0.0, ab = 0.0;
            for (int c = 0; c < d; c++) {
                const double p = qs[c] * ar_load(kb, j * d + c);
                dot += p;
                ab += fabs(p);
            }
            sc[j] = dot * scale;
            m = fmax(m, dot * scale);
            s_abs = fmax(s_abs, ab * fabs(scale));
        }
        m = ar_block_reduce<1>(m, sh);
        double l = 0.0;
        for (long long j = threadIdx.x; j < nvis; j += AR_THREADS) {
            const double p = exp(sc[j] - m);
            sc[j] = p;
            l += p;
        }
        l = ar_block_reduce<0>(l, sh); /* its barriers also publish sc */
        double vmax = 0.0;
        for (int c = threadIdx.x; c < d; c += AR_THREADS) {
            double acc = 0.0;
            for (long long j = 0; j < nvis; j++) {
                const double x = ar_load(vb, j * d + c);
                acc += sc[j] * x;
                vmax = fmax(vmax, fabs(x));
            }
            out[c] = nvis > 0 ? acc / l : 0.0;
        }
        vmax = ar_block_reduce<1>(vmax, sh);
        if (threadIdx.x == 0) srow[item] = vmax;
    }
    s_abs = ar_block_reduce<1>(s_abs, sh);
    if (threadIdx.x == 0 && s_abs > 0.0) ar_atomic_max_nonneg(s_abs_bits, s_abs);
}

// ---------------------------------------------------------------------------
// the check

template <typename T>
static __global__ void __launch_bounds__(AR_THREADS)
    ar_errors_kernel(const T *o, long long sq, int d, const long long *rows, long long count, long long checked,
                     long long total, const double *ref, const double *srow, double tol,
                     unsigned long long *result)
{
    __shared__ double sh[AR_THREADS / 32];
    unsigned long long bad = 0, first = ~0ULL, nonfinite = 0;
    double worst = 0.0;
    const long long stride = (long long)gridDim.x * AR_THREADS;
    for (long long e = blockIdx.x * (long long)AR_THREADS + threadIdx.x; e < checked; e += stride) {
        const long long item = e / d, c = e % d, bh = item / count, i = rows[item % count];
        const double y = ar_load(o, (bh * sq + i) * d + c), s = srow[item];
        double qv = NAN;
        if (isfinite(y)) {
            const double err = fabs(y - ref[e]);
            qv = s > 0.0 ? err / s : (err > 0.0 ? INFINITY : 0.0);
            worst = fmax(worst, qv);
        }
        if (!(qv <= tol)) {
            bad++;
            if ((unsigned long long)e < first) first = (unsigned long long)e;
        }
    }
    for (long long e = blockIdx.x * (long long)AR_THREADS + threadIdx.x; e < total; e += stride)
        nonfinite += !isfinite(ar_load(o, e));
    worst = ar_block_reduce<1>(worst, sh);
    if (bad) {
        atomicAdd(&result[0], bad);
        atomicMin(&result[1], first);
    }
    if (nonfinite) atomicAdd(&result[3], nonfinite);
    if (threadIdx.x == 0 && worst > 0.0) ar_atomic_max_nonneg(&result[2], worst);
}

// ---------------------------------------------------------------------------
// launchers

static int ar_bad_args(const attention_args *a, long long count)
{
    return !a || a->batch < 1 || a->heads < 1 || a->seq_q < 1 || a->seq_kv < 1 || a->head_dim < 1 ||
           a->head_dim > AR_MAX_D || count < 1;
}

template <typename T>
static int ar_ref_as(const attention_args *a, const long long *rows, long long count, double *ref, double *srow,
                     double *scratch, int blocks, unsigned long long *s_abs_bits, cudaStream_t stream)
{
    ar_ref_kernel<T><<<blocks, AR_THREADS, 0, stream>>>(
        (const T *)a->q, (const T *)a->k, (const T *)a->v, a->batch * a->heads, a->seq_q, a->seq_kv,
        (int)a->head_dim, a->causal, (double)a->scale, rows, count, ref, srow, scratch, s_abs_bits);
    return (int)cudaGetLastError();
}

template <typename T>
static int ar_errors_as(const attention_args *a, const long long *rows, long long count, const double *ref,
                        const double *srow, double tol, unsigned long long *result, cudaStream_t stream)
{
    const long long bh = a->batch * a->heads, checked = bh * count * a->head_dim;
    const long long total = bh * a->seq_q * a->head_dim;
    long long blocks = (total + AR_THREADS - 1) / AR_THREADS;
    if (blocks > 4096) blocks = 4096;
    ar_errors_kernel<T><<<(unsigned)blocks, AR_THREADS, 0, stream>>>((const T *)a->o, a->seq_q, (int)a->head_dim,
                                                                     rows, count, checked, total, ref, srow, tol,
                                                                     result);
    return (int)cudaGetLastError();
}

extern "C" int attention_ref(const attention_args *a, const long long *rows, long long count, double *ref,
                             double *srow, double *scratch, int blocks, unsigned long long *s_abs_bits,
                             cudaStream_t stream)
{
    if (ar_bad_args(a, count) || blocks < 1 || blocks > ATTENTION_REF_MAX_BLOCKS) return (int)cudaErrorInvalidValue;
    switch (a->type) {
    case ELEM_FP16: return ar_ref_as<__half>(a, rows, count, ref, srow, scratch, blocks, s_abs_bits, stream);
    case ELEM_BF16: return ar_ref_as<__nv_bfloat16>(a, rows, count, ref, srow, scratch, blocks, s_abs_bits, stream);
    default: return (int)cudaErrorInvalidValue;
    }
}

extern "C" int attention_errors(const attention_args *a, const long long *rows, long long count, const double *ref,
                                const double *srow, double tol, unsigned long long *result, cudaStream_t stream)
{
    if (ar_bad_args(a, count)) return (int)cudaErrorInvalidValue;
    switch (a->type) {
    case ELEM_FP16: return ar_errors_as<__half>(a, rows, count, ref, srow, tol, result, stream);
    case ELEM_BF16: return ar_errors_as<__nv_bfloat16>(a, rows, count, ref, srow, tol, result, stream);
    default: return (int)cudaErrorInvalidValue;
    }
}
