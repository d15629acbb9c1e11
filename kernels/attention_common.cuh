/* kernels/attention_common.cuh: what the flash-attention rungs fa1 and fa2
 * (kernels/attention_fa1.cu, kernels/attention_fa2.cu; contract:
 * kernels/attention.h) share.
 *
 *  - The tile arithmetic (plain C, host and device; tests/test_attention_tiles.c
 *    checks it against a brute-force mask on the CPU): which block takes which
 *    (q tile, batch x head), how many K/V tiles a q tile needs (causal: none
 *    past the last key its last row sees), and how many of them every row of
 *    the q tile sees whole (those need no mask).
 *  - The CUDA side (only under nvcc): the one decline of both rungs, the
 *    dispatch over (type, head_dim) to a rung's template instances, and the
 *    masking rule. The tensor-core pieces (mma.sync m16n8k16 per type,
 *    ldmatrix, the XOR swizzle, the zero-filling tile copies) are the GEMM
 *    ladder's (kernels/gemm_mma_core.cuh), the exp2 the softmax ladder's
 *    (kernels/softmax_common.cuh): one home each.
 *
 * Exponentials: every one is one ex2.approx (FlashAttention's form). fa1 (and
 * fa2 / fa3 with FA2_SOFTMAX / FA3_SOFTMAX 0) multiply the scores by scale *
 * log2 e once and keep the running maximum in that base-2 domain; fa2 and fa3
 * by default keep it in score units and fold scale * log2 e into the
 * exponent's FFMA (s c - m c: needs scale > 0). A row whose keys are all
 * masked so far has maximum -inf; its shift is taken as 0 so that
 * exp2(-inf - 0) = 0 and no NaN appears (-inf - -inf); at the end a row with
 * sum 0 (it saw no key) is written as zeros, as the contract asks. */
#ifndef KERNELS_ATTENTION_COMMON_CUH
#define KERNELS_ATTENTION_COMMON_CUH

#ifdef __CUDACC__
#define ATTN_HD __host__ __device__
#else
#define ATTN_HD
#endif

// ---- tile arithmetic (plain C) -----------------------------------------------

/* The q tile and the (batch x head) index of block `blk` of a grid of
 * qtiles * nbh blocks. Blocks are taken in index order roughly, so with the
 * causal mask the q tiles with the most keys (the last ones) go first and the
 * short ones fill the tail of the grid.
 *  - head_major 0: the head runs fastest (blocks b, b + 1 are two heads of
 *    one q tile), so the CTAs resident at once cover many heads, each head's
 *    K / V read by about (resident CTAs / nbh) of them: when the heads' K / V
 *    exceed the L2, most K / V tiles come from DRAM.
 *  - head_major 1: the q tile runs fastest (FlashAttention's grid order),
 *    so the resident CTAs cover a few heads and read the same K / V tiles at
 *    about the same time: one DRAM read, the rest L2 hits. With the mask each
 *    head still starts with its longest q tile. */
static inline ATTN_HD void attn_block_tile_order(long long blk, long long qtiles, long long nbh, int causal,
                                                 int head_major, long long *qt, long long *bh)
{
    const long long t = head_major ? blk % qtiles : blk / nbh;
    *bh = head_major ? blk / qtiles : blk % nbh;
    *qt = causal ? qtiles - 1 - t : t;
}

/* The kernels' order, a compile-time switch for fa1, fa2 and fa3 alike
 * (attn_block_tile_order): 1 (the default) the q tile fastest, 0 the head
 * fastest (-DCOMPARE_ATTENTION_DEFS=ATTN_HEAD_MAJOR=0) */
#ifndef ATTN_HEAD_MAJOR
#define ATTN_HEAD_MAJOR 1
#endif
static inline ATTN_HD void attn_block_tile(long long blk, long long qtiles, long long nbh, int causal,
                                           long long *qt, long long *bh)
{
    attn_block_tile_order(blk, qtiles, nbh, causal, ATTN_HEAD_MAJOR, qt, bh);
}

/* K/V tiles of bkv keys that the q tile of rows [q0, q0 + bq) needs: all
 * ceil(seq_kv / bkv) without the mask; with it, the tiles up to the one that
 * holds the last key its last valid row (below seq_q) sees, row i seeing keys
 * j <= i + seq_kv - seq_q (0 when that row sees none). q0 < seq_q. */
static inline ATTN_HD long long attn_kv_tiles(long long q0, long long bq, long long seq_q, long long seq_kv,
                                              long long bkv, int causal)
{
    const long long all = (seq_kv + bkv - 1) / bkv;
    if (!causal)
        return all;
    const long long last_row = q0 + bq - 1 < seq_q - 1 ? q0 + bq - 1 : seq_q - 1;
    const long long last_key = last_row + seq_kv - seq_q;
    if (last_key < 0)
        return 0;
    return last_key / bkv + 1 < all ? last_key / bkv + 1 : all;
}

/* K/V tiles [0, n) that every row of the q tile starting at q0 sees whole: no
 * key at or past seq_kv, none past a row's causal limit (the first row's
 * limit q0 + seq_kv - seq_q is the tightest). Those tiles skip the mask. */
static inline ATTN_HD long long attn_kv_tiles_unmasked(long long q0, long long seq_q, long long seq_kv,
                                                       long long bkv, int causal)
{
    long long lim = seq_kv; /* keys below lim are seen by every row */
    if (causal && q0 + seq_kv - seq_q + 1 < lim)
        lim = q0 + seq_kv - seq_q + 1;
    return lim <= 0 ? 0 : lim / bkv;
}

/* The tail split of a persistent grid (fa3's FA3_TAIL_SPLIT): `total` equal
 * work tiles of `nkv` K/V tiles each on `grid` CTAs take ceil(total / grid)
 * rounds; where the last holds r = total - *tail0 work tiles, r <= grid / 2
 * (*tail0 = (rounds - 1) grid, its first block index), each is split into s
 * = min(ts, grid / r, nkv) chunks of its K/V tiles, one CTA each (r s <=
 * grid). Returns s, or 0 (no split: one round or fewer, a last round more
 * than half full, fewer than 2 chunks). */
static inline ATTN_HD long long attn_tail_split(long long total, long long grid, long long nkv, long long ts,
                                                long long *tail0)
{
    *tail0 = 0;
    if (grid <= 0 || total <= grid || ts < 2)
        return 0;
    const long long t0 = (total - 1) / grid * grid, r = total - t0;
    long long s = grid / r;
    s = s < ts ? s : ts;
    s = s < nkv ? s : nkv;
    if (2 * r > grid || s < 2)
        return 0;
    *tail0 = t0;
    return s;
}

/* Chunk c of s of n K/V tiles (1 <= s <= n): its first tile (returned) and
 * its count *cnt (n / s or one more; the chunks cover 0 .. n - 1 in order) */
static inline ATTN_HD int attn_tail_chunk(int c, int s, int n, int *cnt)
{
    const int j0 = c * n / s;
    *cnt = (c + 1) * n / s - j0;
    return j0;
}

#ifdef __CUDACC__

// ---- the CUDA side ------------------------------------------------------------

#include <math.h>
#include <stdio.h>

#include "attention.h"
#include "gemm_mma_core.cuh"
#include "kernel_ran.h"
#include "smem.cuh"
#include "softmax_common.cuh"

#define ATTN_MIN_BQ 64                 /* the smallest q tile of either rung: bounds the grid */
#define ATTN_SEQ_MAX (1LL << 30)       /* row + (seq_kv - seq_q) stays inside an int */
#define ATTN_GRID_MAX 0x7fffffffLL     /* blocks of a 1-D grid */

/* 1 when key `key` is masked for query `row`: past seq_kv, or (causal) past
 * the row's limit row + off, off = seq_kv - seq_q. */
static __device__ __forceinline__ bool attn_masked(int key, int row, int seq_kv, int off, int causal)
{
    return key >= seq_kv || (causal && key > row + off);
}

/* The base-2 shift of a row whose running maximum is m: m, or 0 while every
 * key of the row was masked (m = -inf), so that exp2(x - shift) is 0 for a
 * masked x and never NaN. */
static __device__ __forceinline__ float attn_shift(float m)
{
    return m == -INFINITY ? 0.0f : m;
}

/* This lane's element offsets (swizzled: gemm_mma_swz) of its ldmatrix rows
 * in Q, a K stage and a V stage, for the k (Q, K) or n (V) steps i = 0..3
 * mod 4; the other steps and the 16-row blocks add compile-time constants
 * (q_at, k_at, v_at). fa2 passes its warp's first row as wr; fa1 passes 0
 * and adds 16 D elements (16 rows) per 16-row fragment of its q tile. */
template <int CPR>
struct attn_ldsm {
    int q[4], k[4], v[4];
    __device__ __forceinline__ void init(int wr, int lane)
    {
        const int lq = lane >> 3, lr = lane & 7;
#pragma unroll
        for (int i = 0; i < 4; i++) {
            q[i] = gemm_mma_swz<CPR>(wr + (lane & 15), i * 2 + (lane >> 4));
            k[i] = gemm_mma_swz<CPR>((lq >> 1) * 8 + lr, i * 2 + (lq & 1));
            v[i] = gemm_mma_swz<CPR>((lq & 1) * 8 + lr, i * 2 + (lq >> 1));
        }
    }
    /* Q at k step kk; K at key block np (16 keys), k step kk; V at key block
     * kk (16 keys), n step np: row + 16 blocks, chunk + 8 every 4 steps (the
     * XOR leaves the bits above the low 3 alone) */
    __device__ __forceinline__ int q_at(int kk) const { return q[kk & 3] + (kk >> 2) * 64; }
    __device__ __forceinline__ int k_at(int np, int kk) const { return k[kk & 3] + np * 16 * CPR * 8 + (kk >> 2) * 64; }
    __device__ __forceinline__ int v_at(int kk, int np) const { return v[np & 3] + kk * 16 * CPR * 8 + (np >> 2) * 64; }
};

/* The one decline of both rungs: type, head_dim, sizes, alignment (16-byte
 * rows: cp.async and vector loads), causal 0/1, an sm_80+ device. */
static inline int attn_supports_common(const char *rung, const attention_args *a, char *why, size_t why_len)
{
    if (a->type != ELEM_FP16 && a->type != ELEM_BF16) {
        snprintf(why, why_len, "%s: takes fp16 and bf16 only", rung);
        return 0;
    }
    if (a->head_dim != 64 && a->head_dim != 128 && a->head_dim != 256) {
        snprintf(why, why_len, "%s: head_dim must be 64, 128 or 256 (got %lld)", rung, a->head_dim);
        return 0;
    }
    if (a->batch < 1 || a->heads < 1 || a->seq_q < 1 || a->seq_kv < 1 || a->seq_q > ATTN_SEQ_MAX ||
        a->seq_kv > ATTN_SEQ_MAX || a->batch > ATTN_GRID_MAX || a->heads > ATTN_GRID_MAX) {
        snprintf(why, why_len, "%s: batch, heads >= 1 and seq_q, seq_kv in [1, 2^30]", rung);
        return 0;
    }
    const long long qtiles = (a->seq_q + ATTN_MIN_BQ - 1) / ATTN_MIN_BQ;
    if (a->batch * a->heads > ATTN_GRID_MAX / qtiles) {
        snprintf(why, why_len, "%s: batch x heads x q tiles must stay below 2^31 blocks", rung);
        return 0;
    }
    if (a->causal != 0 && a->causal != 1) {
        snprintf(why, why_len, "%s: causal must be 0 or 1", rung);
        return 0;
    }
    if (((size_t)a->q | (size_t)a->k | (size_t)a->v | (size_t)a->o) & 15) {
        snprintf(why, why_len, "%s: q, k, v and o must be 16-byte aligned", rung);
        return 0;
    }
    int dev = 0, major = 0;
    if (cudaGetDevice(&dev) != cudaSuccess ||
        cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev) != cudaSuccess) {
        (void)cudaGetLastError();
        snprintf(why, why_len, "%s: the device cannot be queried", rung);
        return 0;
    }
    if (major < 8) {
        snprintf(why, why_len, "%s: needs sm_80+ (mma.sync bf16, ldmatrix, cp.async)", rung);
        return 0;
    }
    return 1;
}

/* A rung's instances, [type: fp16, bf16][head_dim: 64, 128, 256]. */
typedef int (*attn_launch_fn)(const attention_args *a, cudaStream_t s);

static inline int attn_dim_index(long long d)
{
    return d == 64 ? 0 : d == 128 ? 1 : 2;
}

/* A rung's launcher body: declines what attn_supports_common declines
 * (cudaErrorNotSupported), names the instance (names[head_dim index]) and
 * runs it. */
static inline int attn_run(const char *rung, const attention_args *a, cudaStream_t s,
                           const attn_launch_fn (*inst)[3], const char *const names[3])
{
    char why[256];
    if (!attn_supports_common(rung, a, why, sizeof why))
        return (int)cudaErrorNotSupported;
    const int di = attn_dim_index(a->head_dim);
    kernel_ran_note(names[di], NULL);
    return inst[a->type == ELEM_FP16 ? 0 : 1][di](a, s);
}

/* Zeroes N accumulators (an array of fragments, flattened). */
template <int N>
static __device__ __forceinline__ void attn_zero(float *acc)
{
#pragma unroll
    for (int i = 0; i < N; i++) acc[i] = 0.0f;
}

/* The kernels' common arguments, unpacked from attention_args on the host. */
typedef struct {
    const void *q, *k, *v;
    void *o;
    int seq_q, seq_kv;
    long long nbh;      /* batch x heads */
    long long qtiles;   /* q tiles per head */
    int causal;
    float scale_log2;   /* scale * log2 e: the scores in the base-2 domain */
} attn_params;

static inline attn_params attn_params_of(const attention_args *a, int bq)
{
    attn_params p;
    p.q = a->q;
    p.k = a->k;
    p.v = a->v;
    p.o = a->o;
    p.seq_q = (int)a->seq_q;
    p.seq_kv = (int)a->seq_kv;
    p.nbh = a->batch * a->heads;
    p.qtiles = (a->seq_q + bq - 1) / bq;
    p.causal = a->causal;
    p.scale_log2 = a->scale * SOFTMAX_LOG2E;
    return p;
}

/* The block's q tile (its first row, returned) and its head's Q, K, V and O
 * (q tiles of BQ rows, attn_block_tile's order). */
template <typename T, int D, int BQ>
static __device__ __forceinline__ int attn_block_head(const attn_params &p, const T **qh, const T **kh, const T **vh,
                                                      T **oh)
{
    long long qt, bh;
    attn_block_tile(blockIdx.x, p.qtiles, p.nbh, p.causal, &qt, &bh);
    *qh = (const T *)p.q + bh * p.seq_q * D;
    *kh = (const T *)p.k + bh * p.seq_kv * D;
    *vh = (const T *)p.v + bh * p.seq_kv * D;
    *oh = (T *)p.o + bh * p.seq_q * D;
    return (int)qt * BQ;
}

/* Launches `kern` (a rung's instance) over qtiles x nbh blocks of `threads`
 * threads and `smem` bytes of dynamic shared memory (raised once per device
 * through *done) on s; returns the launch's error. */
static inline int attn_launch(const void *kern, const attn_params *p, int threads, int smem,
                              unsigned long long *done, cudaStream_t s)
{
    int e = smem_opt_in(kern, smem, done);
    if (e != 0)
        return e;
    void *args[] = {(void *)p};
    e = (int)cudaLaunchKernel(kern, dim3((unsigned)(p->qtiles * p->nbh)), dim3((unsigned)threads), args,
                              (size_t)smem, s);
    if (e != 0)
        return e;
    return (int)cudaGetLastError();
}

/* A rung's instance table and its two extern "C" functions of attention.h:
 * RUNG_supports and RUNG over LAUNCH<T, D> (T: __half, __nv_bfloat16; D:
 * 64, 128, 256), each run named N64, N128 or N256 (kernel_ran_note).
 * POS_SCALE nonzero: the rung declines scale <= 0 (its launcher refuses it). */
#define ATTN_ENTRY(RUNG, LAUNCH, POS_SCALE, N64, N128, N256)                                                 \
    static const attn_launch_fn RUNG##_instances[2][3] = {                                                   \
        {LAUNCH<__half, 64>, LAUNCH<__half, 128>, LAUNCH<__half, 256>},                                      \
        {LAUNCH<__nv_bfloat16, 64>, LAUNCH<__nv_bfloat16, 128>, LAUNCH<__nv_bfloat16, 256>}};                \
    static const char *const RUNG##_names[3] = {N64, N128, N256};                                            \
    extern "C" int RUNG##_supports(const attention_args *a, char *why, size_t why_len)                      \
    {                                                                                                        \
        if (!attn_supports_common(#RUNG, a, why, why_len)) return 0;                                         \
        if ((POS_SCALE) && !(a->scale > 0.0f)) {                                                             \
            snprintf(why, why_len, "%s: needs scale > 0 (the scale folded into the exponent)", #RUNG);       \
            return 0;                                                                                        \
        }                                                                                                    \
        return 1;                                                                                            \
    }                                                                                                        \
    extern "C" int RUNG(const attention_args *a, cudaStream_t s)                                             \
    {                                                                                                        \
        return attn_run(#RUNG, a, s, RUNG##_instances, RUNG##_names);                                        \
    }

#endif /* __CUDACC__ */

#endif
