/* kernels/attention_fa1.cu: the rung fa1 of the attention ladder (contract:
 * kernels/attention.h), FlashAttention-1's idea on tensor cores.
 *
 * Idea: S = Q K^T is never materialised in global memory. One block takes
 * a (batch, head, q tile of 64 rows) and walks the K/V tiles of 64 keys:
 *   1. the K tile into shared memory; S tile = Q K^T (mma.sync m16n8k16,
 *      FP32 accumulators), the warps splitting the keys of the tile as
 *      FlashAttention-1 splits K/V across warps; S, scaled into the base-2
 *      domain and masked (past seq_kv, causal), to shared memory;
 *   2. the V tile into shared memory (over K's); the online softmax of the
 *      tile, row by row from shared memory: a running maximum m and sum l per
 *      query row (kept in shared memory), P = exp2(S - m_new) in the input's
 *      type, and the factor exp2(m_old - m_new) that rescales the row's
 *      earlier output;
 *   3. O = O * factor + P V, the warps now splitting the head_dim columns of
 *      O (the accumulators stay in registers across tiles).
 * At the end O / l is written (a row that saw no key as zeros). The
 * shuffle of work between steps (keys per warp, then columns per warp) is
 * why S and P go through shared memory and every tile costs three barriers:
 * that is what fa2 removes.
 *
 * Tiles: 64 x 64 (q rows x keys): S's FP32 tile and P fit beside Q and one
 * K/V tile in shared memory even at head_dim 256 (about 93 KiB, under the
 * 99 KiB a block may have on sm_86 / sm_89 where the compute_80 PTX may run).
 * 4 warps (8 at head_dim 256, so each warp's slice of O stays at most 32
 * columns: 64 x 32 accumulators, 64 registers a thread). Rows in shared
 * memory are padded by 16 bytes so that the operand fragments, read with
 * plain 32-bit loads (no ldmatrix yet), hit 32 different banks; V's
 * fragments (k x n, k strided) are assembled from two 16-bit loads.
 * K/V tiles are loaded synchronously (16-byte loads, zero past seq_kv); the
 * causal mask is tested on every score of every tile, though the loop stops
 * at the last tile a q tile's rows can see (and the blocks of the last q
 * tiles, which see the most keys, are scheduled first).
 *
 * Constraints: fp16 / bf16, head_dim 64, 128 or 256, any seq_q, seq_kv >= 1,
 * 16-byte aligned tensors, sm_80+ (attn_supports_common).
 * Run just this: ./compare --ops attention --variants fa1 */
#include "attention_common.cuh"

#define FA1_BQ 64  /* q rows per block */
#define FA1_BKV 64 /* keys per K/V tile */
#define FA1_WARPS(D) ((D) == 256 ? 8 : 4)
#define FA1_PAD 8  /* elements (16 bytes) of padding per shared row of Q, K, V */
#define FA1_LDS (FA1_BKV + 4) /* S's row, floats */
#define FA1_LDP (FA1_BKV + 8) /* P's row, elements */

/* shared bytes of the instance for head_dim D: Q, one K/V tile, S, P and the
 * per-row m, l and rescale factor */
#define FA1_SMEM(D)                                                                                           \
    (2 * (FA1_BQ + FA1_BKV) * ((D) + FA1_PAD) + 4 * FA1_BQ * FA1_LDS + 2 * FA1_BQ * FA1_LDP + 3 * 4 * FA1_BQ)

/* R rows of a head's seq x D matrix g from row r0 into shared rows of ld
 * elements (16-byte loads; zeros past seq) */
template <typename T, int D, int R, int NT>
static __device__ __forceinline__ void fa1_load_rows(T *s, const T *g, int r0, int seq, int tid)
{
    typedef gemm_mma_tile<T, R, D / 8, NT, true> tile;
#pragma unroll
    for (int j = 0; j < tile::PER; j++) {
        const int i = tid + j * NT;
        *(uint4 *)(s + (i / (D / 8)) * (D + FA1_PAD) + (i % (D / 8)) * 8) = tile::fetch(g, D, seq, D, r0, 0, tid, j);
    }
}

/* the A fragment (16 x 16, row-major) at row r0, column c0 of a shared
 * matrix with rows of ld elements */
template <typename T>
static __device__ __forceinline__ void fa1_frag_a(unsigned a[4], const T *s, int ld, int r0, int c0, int lane)
{
    const T *p = s + (r0 + (lane >> 2)) * ld + c0 + 2 * (lane & 3);
    a[0] = *(const unsigned *)p;
    a[1] = *(const unsigned *)(p + 8 * ld);
    a[2] = *(const unsigned *)(p + 8);
    a[3] = *(const unsigned *)(p + 8 * ld + 8);
}

/* acc[mi][nf] += A B for the MF row fragments of A (16 x 16 each, rows
 * mi 16.., columns c0.. of a shared matrix with rows of ld elements) and the
 * NF fragments b of B */
template <typename T, int MF, int NF>
static __device__ __forceinline__ void fa1_mma_rows(float (&acc)[MF][NF][4], const T *s, int ld, int c0,
                                                    const unsigned (&b)[NF][2], int lane)
{
#pragma unroll
    for (int mi = 0; mi < MF; mi++) {
        unsigned a[4];
        fa1_frag_a(a, s, ld, mi * 16, c0, lane);
#pragma unroll
        for (int nf = 0; nf < NF; nf++) gemm_mma_elem<T>::mma(acc[mi][nf], a, b[nf]);
    }
}

template <typename T, int D>
static __global__ void __launch_bounds__(FA1_WARPS(D) * 32) attention_fa1_kernel(const attn_params p)
{
    enum {
        NW = FA1_WARPS(D),
        NT = NW * 32,
        LD = D + FA1_PAD,
        MF = FA1_BQ / 16,      /* m16 fragments of a q tile */
        SNF = FA1_BKV / NW / 8, /* n8 fragments of S per warp (its keys) */
        ONF = D / NW / 8,       /* n8 fragments of O per warp (its columns) */
        TPR = NT / FA1_BQ,      /* softmax threads per row */
        CPT = FA1_BKV / TPR     /* softmax columns per thread */
    };
    static_assert(SNF >= 1 && ONF >= 1 && TPR >= 1 && (TPR & (TPR - 1)) == 0, "warps split keys and columns");
    static_assert(FA1_SMEM(D) <= 99 * 1024, "fits a block on every sm_8x");
    extern __shared__ __align__(16) unsigned char fa1_smem[];
    T *sQ = (T *)fa1_smem;
    T *sKV = sQ + FA1_BQ * LD;
    float *sS = (float *)(sKV + FA1_BKV * LD);
    T *sP = (T *)(sS + FA1_BQ * FA1_LDS);
    float *sM = (float *)(sP + FA1_BQ * FA1_LDP), *sL = sM + FA1_BQ, *sA = sL + FA1_BQ;

    const int tid = threadIdx.x, lane = tid & 31, w = tid >> 5, g = lane >> 2, t = lane & 3;
    const T *Qh, *Kh, *Vh;
    T *Oh;
    const int q0 = attn_block_head<T, D, FA1_BQ>(p, &Qh, &Kh, &Vh, &Oh), off = p.seq_kv - p.seq_q;

    fa1_load_rows<T, D, FA1_BQ, NT>(sQ, Qh, q0, p.seq_q, tid);
    for (int r = tid; r < FA1_BQ; r += NT) {
        sM[r] = -INFINITY;
        sL[r] = 0.0f;
    }
    float o[MF][ONF][4];
    attn_zero<MF * ONF * 4>(&o[0][0][0]);

    const int ntiles = (int)attn_kv_tiles(q0, FA1_BQ, p.seq_q, p.seq_kv, FA1_BKV, p.causal);
    for (int j = 0; j < ntiles; j++) {
        const int k0 = j * FA1_BKV;
        fa1_load_rows<T, D, FA1_BKV, NT>(sKV, Kh, k0, p.seq_kv, tid);
        __syncthreads();

        /* 1. S = Q K^T: warp w takes keys [w SNF 8, (w + 1) SNF 8) of the tile, all 64 rows */
        float s[MF][SNF][4];
        attn_zero<MF * SNF * 4>(&s[0][0][0]);
#pragma unroll 4
        for (int kk = 0; kk < D / 16; kk++) {
            unsigned b[SNF][2];
#pragma unroll
            for (int nf = 0; nf < SNF; nf++) { /* B = K^T: k (head_dim) pairs of key row g */
                const T *kp = sKV + (w * SNF * 8 + nf * 8 + g) * LD + kk * 16 + 2 * t;
                b[nf][0] = *(const unsigned *)kp;
                b[nf][1] = *(const unsigned *)(kp + 8);
            }
            fa1_mma_rows<T, MF, SNF>(s, sQ, LD, kk * 16, b, lane);
        }
#pragma unroll
        for (int mi = 0; mi < MF; mi++)
#pragma unroll
            for (int nf = 0; nf < SNF; nf++)
#pragma unroll
                for (int e = 0; e < 4; e++) {
                    const int r = mi * 16 + g + (e >> 1) * 8, c = w * SNF * 8 + nf * 8 + 2 * t + (e & 1);
                    sS[r * FA1_LDS + c] =
                        attn_masked(k0 + c, q0 + r, p.seq_kv, off, p.causal) ? -INFINITY : s[mi][nf][e] * p.scale_log2;
                }
        __syncthreads();

        /* 2. V over K; the online softmax of the tile, TPR threads a row */
        fa1_load_rows<T, D, FA1_BKV, NT>(sKV, Vh, k0, p.seq_kv, tid);
        {
            const int r = tid / TPR, part = tid % TPR;
            const float *srow = sS + r * FA1_LDS + part * CPT;
            T *prow = sP + r * FA1_LDP + part * CPT;
            float mx = -INFINITY;
#pragma unroll 8
            for (int c = 0; c < CPT; c++) mx = fmaxf(mx, srow[c]);
#pragma unroll
            for (int x = 1; x < TPR; x <<= 1) mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, x));
            const float m_old = sM[r], m_new = fmaxf(m_old, mx), sh = attn_shift(m_new);
            float sum = 0.0f;
#pragma unroll 8
            for (int c = 0; c < CPT; c++) {
                const float e = softmax_ex2(srow[c] - sh);
                sum += e;
                prow[c] = gemm_mma_out<T>::one(e);
            }
#pragma unroll
            for (int x = 1; x < TPR; x <<= 1) sum += __shfl_xor_sync(0xffffffffu, sum, x);
            __syncwarp(); /* every reader of sM[r] (the row's TPR lanes) before its writer */
            if (part == 0) {
                const float f = softmax_ex2(m_old - sh);
                sA[r] = f;
                sM[r] = m_new;
                sL[r] = sL[r] * f + sum;
            }
        }
        __syncthreads();

        /* 3. O = O * factor + P V: warp w takes columns [w ONF 8, (w + 1) ONF 8) of O, all 64 rows */
#pragma unroll
        for (int mi = 0; mi < MF; mi++) {
            const float f0 = sA[mi * 16 + g], f1 = sA[mi * 16 + g + 8];
#pragma unroll
            for (int nf = 0; nf < ONF; nf++) {
                o[mi][nf][0] *= f0;
                o[mi][nf][1] *= f0;
                o[mi][nf][2] *= f1;
                o[mi][nf][3] *= f1;
            }
        }
        const unsigned short *sVb = (const unsigned short *)sKV;
#pragma unroll
        for (int kk = 0; kk < FA1_BKV / 16; kk++) {
            unsigned b[ONF][2];
#pragma unroll
            for (int nf = 0; nf < ONF; nf++) { /* B = V: key pairs (2t, 2t + 1) and (2t + 8, 2t + 9) of column g */
                const unsigned short *vp = sVb + (kk * 16 + 2 * t) * LD + w * ONF * 8 + nf * 8 + g;
                b[nf][0] = attn_pack_bits(vp[0], vp[LD]);
                b[nf][1] = attn_pack_bits(vp[8 * LD], vp[9 * LD]);
            }
            fa1_mma_rows<T, MF, ONF>(o, sP, FA1_LDP, kk * 16, b, lane);
        }
        __syncthreads(); /* sKV, sS, sP and sA are rewritten by the next tile */
    }
    __syncthreads(); /* sL's initial values, when no tile ran */

#pragma unroll
    for (int mi = 0; mi < MF; mi++)
#pragma unroll
        for (int h = 0; h < 2; h++) {
            const int r = mi * 16 + g + h * 8;
            if (q0 + r >= p.seq_q)
                continue;
            const float l = sL[r], inv = l > 0.0f ? 1.0f / l : 0.0f;
            T *orow = Oh + (long long)(q0 + r) * D + w * ONF * 8 + 2 * t;
#pragma unroll
            for (int nf = 0; nf < ONF; nf++)
                *(unsigned *)(orow + nf * 8) = gemm_mma_out<T>::pack(o[mi][nf][2 * h] * inv, o[mi][nf][2 * h + 1] * inv);
        }
}

template <typename T, int D>
static int attention_fa1_launch(const attention_args *a, cudaStream_t s)
{
    static unsigned long long done; /* smem opt-in, a bit per device */
    const attn_params p = attn_params_of(a, FA1_BQ);
    return attn_launch((const void *)attention_fa1_kernel<T, D>, &p, FA1_WARPS(D) * 32, FA1_SMEM(D), &done, s);
}

ATTN_ENTRY(attention_fa1, attention_fa1_launch, 0, "fa1_64x64_d64", "fa1_64x64_d128", "fa1_64x64_d256")
