/* kernels/attention_fa2.cu: the rung fa2 of the attention ladder (contract:
 * kernels/attention.h), FlashAttention-2's schedule on mma.sync.
 *
 * Idea: one block per (batch, head, q tile), as in fa1, but the warps split
 * the q tile, not the keys: each warp owns 32 query rows (two m16 row tiles,
 * MT = 2; FlashAttention-2's layout at head_dim 128) and does the whole
 * rows' work itself. Its S tile (32 x BKV) stays in the MMA accumulators;
 * the row maximum and sum are reduced across the 4 lanes that hold a row
 * with two shuffles, never through shared memory; the accumulator layout of
 * S is already the A-operand layout of P V, so P goes from registers
 * (rounded to the input type as soon as a row tile's exponentials are
 * taken) straight into the second MMA. Per K/V tile each row's O
 * accumulator is rescaled once (by exp2(m_old - m_new)); the division by
 * the row sum happens once, at the end (each lane keeps its partial sum
 * until then). A K/V tile costs two barriers, both for the shared stages:
 * one at the top (K j has landed; tile j - 1's stages are free for K and V
 * j + 1) and one between the softmax and P V (V j has landed), since K and
 * V travel as separate cp.async groups (FA2_KV_GROUPS).
 *
 * Why 32 rows a warp: mma.sync's operands come from registers, so every K
 * and V fragment is first read from shared memory by ldmatrix. With 16 rows
 * a warp a fragment feeds one m16 MMA pair; with two row tiles it feeds two,
 * which halves the ldmatrix traffic (and its issue slots) per MMA, and each
 * Q fragment read serves a whole key block row. The price is registers: O is
 * 32 x d FP32 a warp (d registers a thread), S 32 x 64 (64), so at head_dim
 * 128 a block is 4 warps (128 rows) at up to 255 registers, two blocks an SM
 * on sm_90 (2 x 96 KiB of shared memory); Q is re-read from shared memory at
 * every tile there, while at head_dim 64 the warp's Q fragments (32
 * registers) are read once and kept (FA2_Q_REGS).
 *
 * What it adds over fa1:
 *  - no S / P round trip through shared memory, no softmax phase with its
 *    own thread layout, rescale and division in registers;
 *  - P's A fragments come from registers (S's accumulators), so ldmatrix
 *    reads only Q, K and V (ldmatrix.x4, .trans for V, from XOR-swizzled
 *    shared memory: kernels/gemm_mma_core.cuh's layout), each lane's offsets
 *    computed once, before the K/V loop (FA2_LDSM_OFFSETS, fa2_ldsm, below),
 *    and each K / V fragment feeding both of the warp's row tiles;
 *  - the scale folded into the exponent (one FFMA + ex2 an element, the
 *    running maximum in score units: FA2_SOFTMAX, below);
 *  - cp.async double buffering: the K and V tiles j + 1 are in flight while
 *    tile j is multiplied, two stages of each (fa1 overlaps one tile's
 *    copies with the other GEMM and the softmax, with one buffer each), K
 *    and V in separate groups, so that S j waits for K j alone and V j's
 *    copies have until the softmax ends (FA2_KV_GROUPS); each thread's
 *    copies are one shared and one global offset plus compile-time steps
 *    (fa2_copy);
 *  - causal: only the tiles that straddle the diagonal (or seq_kv) test the
 *    mask, the others skip it (as in fa1, the loop stops at the last tile
 *    the q tile can see and the q tiles with the most keys go first);
 *  - O leaves through shared memory (the warp's own Q rows) as 16-byte rows.
 *
 * Tiles (BQ q rows x BKV keys, 2 stages of K and V; shared memory 2 (BQ + 4
 * BKV) d bytes):
 *  - head_dim 64: 128 x 64, 4 warps of 32 rows, Q in registers (48 KiB);
 *  - head_dim 128: 128 x 64, 4 warps of 32 rows (96 KiB). Where two such
 *    blocks do not fit an SM's shared memory (sm_86 / sm_89: 100 KiB, sm_80:
 *    164 KiB) one block of 4 warps would leave one warp an SM sub-partition,
 *    so the launcher runs the MT = 1 instance there instead: 8 warps of 16
 *    rows (the layout before), one block an SM;
 *  - head_dim 256: 64 x 32 with 4 warps of 16 rows (96 KiB): a warp's O
 *    accumulators are 16 x 256 FP32, 128 registers a thread, so S shrinks
 *    to 16 x 32 and Q is read from shared memory at every tile.
 * All fit the 99 KiB a block may have on sm_86 / sm_89 where the compute_80
 * PTX may run. A third stage (128 KiB at head_dim 128) would leave one block
 * an SM on sm_90, so there are two.
 *
 * Constraints: fp16 / bf16, head_dim 64, 128 or 256, any seq_q, seq_kv >= 1,
 * 16-byte aligned tensors, sm_80+ (attn_supports_common); scale > 0 under
 * FA2_SOFTMAX 1 (the default: attention_fa2_supports declines it, and the
 * launcher returns cudaErrorNotSupported).
 * Run just this: ./compare --ops attention --variants fa2 */
#include "attention_common.cuh"

/* The tuning switches (docs/tuning/attention.md), 1 by default (the
 * schedule above); -DCOMPARE_ATTENTION_DEFS="FA2_LDSM_OFFSETS=0;FA2_SOFTMAX=0"
 * builds the schedule without the first two (FA2_SOFTMAX=0 alone keeps the
 * offsets):
 *  - FA2_LDSM_OFFSETS 1: each lane's ldmatrix offsets computed once, before
 *    the K/V loop. The swizzle XORs a chunk's low 3 bits with row & 7, which
 *    is the lane's own constant in every fragment, so an offset is its step
 *    0 value XOR a constant of the step mod 4, plus a constant: the loop
 *    adds a stage base to it, instead of recomputing the swizzle per
 *    ldmatrix (0: recomputed per ldmatrix, gemm_mma_swz; fa2_ldsm below
 *    keeps one register each for Q, K and V, fa1's attn_ldsm in
 *    kernels/attention_common.cuh the four values of each);
 *  - FA2_SOFTMAX 1 (needs FA2_LDSM_OFFSETS 1): the scale folded into the
 *    exponent (one FFMA + one ex2 an element, the running maximum in score
 *    units, scale > 0), so the tiles without the mask have no scaling pass
 *    (0: the scores scaled to base 2 first, a pass of its own);
 *  - FA2_WARP_ROWS 32 (head_dim 64 and 128): a warp owns 32 q rows (two m16
 *    row tiles), 4 warps a 128-row q tile, so every K and V fragment read by
 *    ldmatrix feeds two MMAs (16: 16 rows a warp, 8 warps, each fragment
 *    feeding one MMA: the schedule before; it keeps head_dim 64 at 2 blocks
 *    an SM under 128 registers and head_dim 128 at one block of 8 warps,
 *    the instance head_dim 128 falls back to where two blocks of 32-row warps
 *    do not fit an SM);
 *  - FA2_Q_REGS 1 (head_dim 64 with FA2_WARP_ROWS 32): the warp's Q
 *    fragments (32 rows x 64: 32 registers) read from shared memory once,
 *    before the K/V loop, and kept in registers (0: re-read at every tile,
 *    as at head_dim 128 and 256, where they do not fit beside O and S);
 *  - FA2_LAZY_RESCALE 1 (with FA2_WARP_ROWS 32): a row tile's O rescale
 *    skipped (one warp vote) when no row of it moved its maximum, f exactly
 *    1 in every lane, so the result is the same bits (fa3's
 *    FA3_LAZY_RESCALE); besides the multiplies it saves, the branch keeps
 *    ptxas from overlapping one row tile's softmax with the other's P V
 *    across it, which is what made head_dim 128 spill at the register cap
 *    (0: rescaled every tile);
 *  - FA2_KV_GROUPS 1: K and V of a tile committed as separate cp.async
 *    groups (Q, K 0, V 0 before the loop; K j + 1, V j + 1 after tile j's top
 *    barrier, a group each, empty past the last tile so that the counts stay
 *    fixed): the top of tile j waits for K j alone (wait_group 1), S = Q K^T
 *    and the softmax run while V j may still be landing, and a barrier
 *    before P V waits for it (wait_group 2). The barrier that ended a tile
 *    goes: the top barrier of tile j already follows every read of tile
 *    j - 1's stages. Still two barriers a tile, the same registers (0: K and
 *    V of a tile one group, waited for together at the top, a barrier at the
 *    end). */
#ifndef FA2_LDSM_OFFSETS
#define FA2_LDSM_OFFSETS 1
#endif
#ifndef FA2_SOFTMAX
#define FA2_SOFTMAX 1
#endif
#ifndef FA2_WARP_ROWS
#define FA2_WARP_ROWS 32
#endif
#ifndef FA2_Q_REGS
#define FA2_Q_REGS 1
#endif
#ifndef FA2_LAZY_RESCALE
#define FA2_LAZY_RESCALE 1
#endif
#ifndef FA2_KV_GROUPS
#define FA2_KV_GROUPS 1
#endif
#if FA2_SOFTMAX && !FA2_LDSM_OFFSETS
#error "FA2_SOFTMAX=1 needs FA2_LDSM_OFFSETS=1 (alone it spilled at head_dim 64 under 128 registers)"
#endif
#if FA2_WARP_ROWS != 16 && FA2_WARP_ROWS != 32
#error "FA2_WARP_ROWS is 16 or 32"
#endif

#define FA2_BQ(D) ((D) == 256 ? 64 : 128)
#define FA2_BKV(D) ((D) == 256 ? 32 : 64)
/* m16 row tiles a warp owns (the kernel's MT): FA2_WARP_ROWS / 16 at head_dim
 * 64 and 128, 1 at 256; head_dim 128 has the MT 1 instance too, for a device
 * where two blocks of MT 2 do not fit an SM's shared memory (the launcher) */
#define FA2_MT(D) ((D) == 256 ? 1 : FA2_WARP_ROWS / 16)
#define FA2_LAZY(MT) ((MT) == 2 && FA2_LAZY_RESCALE) /* O's rescale skipped when f is 1 */
#define FA2_QR(D, MT) ((D) == 64 && (MT) == 2 && FA2_Q_REGS) /* Q's fragments kept in registers */
#define FA2_THREADS(D, MT) (FA2_BQ(D) / (16 * (MT)) * 32)
/* blocks an SM that __launch_bounds__ asks for: 32 rows a warp (128 threads):
 * 2, the register cap 255 either way; 16 rows a warp: 2 at head_dim 64 (128
 * registers), as many as fit otherwise */
#define FA2_MIN_BLOCKS(D, MT)                                                                                    \
    ((D) == 256 ? 0 : (MT) == 2 ? 2 : (D) == 64 && (FA2_LDSM_OFFSETS || FA2_SOFTMAX) ? 2 : 0)
/* Q, and two stages of K and V */
#define FA2_SMEM(D) (2 * (FA2_BQ(D) + 4 * FA2_BKV(D)) * (D))

/* R rows x D of a head's Q, K or V (row-major, D elements a row, `rows` in
 * all) from row row0 into the swizzled tile s, by cp.async (zero-fill past
 * `rows`), NT threads. When a pass of NT threads covers whole rows and a
 * multiple of 8 of them, each thread's chunk column and row & 7 (the
 * swizzle's input) are the same in every pass: one shared and one global
 * offset, the passes compile-time steps from them (gemm_mma_tile's copy
 * computes each pass's swizzle, and ptxas keeps those addresses live across
 * the K/V loop); otherwise (head_dim 256) gemm_mma_tile's copy. */
template <typename T, int D, int R, int NT>
static __device__ __forceinline__ void fa2_copy(T *s, const T *g, int rows, int row0, int tid)
{
    enum { CPR = D / 8, RPP = NT / CPR /* rows a pass */ };
    if (NT % CPR == 0 && RPP % 8 == 0 && R % RPP == 0) {
        const int r = tid / CPR, c = tid % CPR;
        T *sp = s + gemm_mma_swz<CPR>(r, c);
        const T *gp = g + (long long)(row0 + r) * D + c * 8;
#pragma unroll
        for (int i = 0; i < R / RPP; i++) {
            const bool in = row0 + r + i * RPP < rows;
            cp_async16(sp + i * RPP * D, in ? (const void *)(gp + (long long)i * RPP * D) : (const void *)g, in ? 16 : 0);
        }
    } else {
        gemm_mma_tile<T, R, CPR, NT, true>::copy(s, g, D, rows, D, row0, 0, tid);
    }
}

/* This lane's swizzled ldmatrix offsets (FA2_LDSM_OFFSETS), one register
 * each for Q, K and V: the swizzle XORs a chunk's low 3 bits with row & 7,
 * and the steps i = 0..3 of a fragment's chunk pair (2 i, 2 i + 1) differ
 * from step 0 in bits 1-2 of the chunk alone, so step i's offset is step
 * 0's XOR 16 i (elements; a row is a multiple of 64), step i + 4 that plus
 * 64 (attn_ldsm keeps the four values of each instead: 9 registers more,
 * which the 32-row warps at head_dim 128 do not have). */
template <int CPR>
struct fa2_ldsm {
    int q, k, v;
    __device__ __forceinline__ void init(int wr, int lane)
    {
        const int lq = lane >> 3, lr = lane & 7;
        q = gemm_mma_swz<CPR>(wr + (lane & 15), lane >> 4);
        k = gemm_mma_swz<CPR>((lq >> 1) * 8 + lr, lq & 1);
        v = gemm_mma_swz<CPR>((lq & 1) * 8 + lr, lq >> 1);
    }
    /* Q at k step kk; K at key block np (16 keys), k step kk; V at key block kk, n step np */
    __device__ __forceinline__ int q_at(int kk) const { return (q ^ ((kk & 3) * 16)) + (kk >> 2) * 64; }
    __device__ __forceinline__ int k_at(int np, int kk) const
    {
        return (k ^ ((kk & 3) * 16)) + np * 16 * CPR * 8 + (kk >> 2) * 64;
    }
    __device__ __forceinline__ int v_at(int kk, int np) const
    {
        return (v ^ ((np & 3) * 16)) + kk * 16 * CPR * 8 + (np >> 2) * 64;
    }
};

template <typename T, int D, int MT>
static __global__ void __launch_bounds__(FA2_THREADS(D, MT), FA2_MIN_BLOCKS(D, MT))
    attention_fa2_kernel(const attn_params p)
{
    enum {
        BQ = FA2_BQ(D),
        BKV = FA2_BKV(D),
        NT = FA2_THREADS(D, MT),
        QR = FA2_QR(D, MT),
        CPR = D / 8,   /* 16-byte chunks of a row */
        SNF = BKV / 8, /* n8 fragments of a row tile's S */
        ONF = D / 8,   /* n8 fragments of a row tile's O */
        KS = D / 16,   /* k steps of Q K^T */
        STAGE = BKV * D
    };
    static_assert(BKV % 16 == 0 && D % 16 == 0, "k steps of 16");
    static_assert(FA2_SMEM(D) <= 99 * 1024, "fits a block on every sm_8x");
    static_assert(MT == 1 || MT == 2, "one or two m16 row tiles a warp");
    static_assert(SMEM_SM90_FITS(FA2_SMEM(D), FA2_MIN_BLOCKS(D, MT)), "the blocks __launch_bounds__ asks for fit an sm_90 SM");
    extern __shared__ __align__(128) unsigned char fa2_smem[];
    T *sQ = (T *)fa2_smem;
    T *sK = sQ + BQ * D; /* [2][BKV x D], swizzled */
    T *sV = sK + 2 * STAGE;

    const int tid = threadIdx.x, lane = tid & 31, w = tid >> 5, g = lane >> 2, t = lane & 3;
    const int wr = w * 16 * MT; /* the warp's first row in the tile */
    const T *Qh, *Kh, *Vh;
    T *Oh;
    const int q0 = attn_block_head<T, D, BQ>(p, &Qh, &Kh, &Vh, &Oh), off = p.seq_kv - p.seq_q;

    const int ntiles = (int)attn_kv_tiles(q0, BQ, p.seq_q, p.seq_kv, BKV, p.causal);
    const long long unmasked = attn_kv_tiles_unmasked(q0, p.seq_q, p.seq_kv, BKV, p.causal);
    const int nfull = unmasked < ntiles ? (int)unmasked : ntiles;

    fa2_copy<T, D, BQ, NT>(sQ, Qh, p.seq_q, q0, tid);
    cp_async_commit(); /* Q alone: FA2_Q_REGS waits for it before the loop */
    if (ntiles > 0)
        fa2_copy<T, D, BKV, NT>(sK, Kh, p.seq_kv, 0, tid);
    if (FA2_KV_GROUPS)
        cp_async_commit(); /* K 0 alone: S 0 waits for Q and it, not for V 0 */
    if (ntiles > 0)
        fa2_copy<T, D, BKV, NT>(sV, Vh, p.seq_kv, 0, tid);
    cp_async_commit();

    float o[MT][ONF][4];
    attn_zero<MT * ONF * 4>(&o[0][0][0]);
    float m[MT][2], l[MT][2]; /* rows g and g + 8 of each row tile: running maximum, this lane's part of the sum */
#pragma unroll
    for (int mt = 0; mt < MT; mt++)
#pragma unroll
        for (int h = 0; h < 2; h++) {
            m[mt][h] = -INFINITY;
            l[mt][h] = 0.0f;
        }
    const int lq = lane >> 3, lr = lane & 7; /* ldmatrix: the lane's matrix and row within it */
    fa2_ldsm<CPR> lo;
    if (FA2_LDSM_OFFSETS)
        lo.init(wr, lane);
    /* Q's A fragment of row tile mt at k step kk: 16 rows further is 16 D elements further (the
     * swizzle depends on row & 7 alone) */
#define FA2_Q_AT(mt, kk)                                                                                         \
    (FA2_LDSM_OFFSETS ? lo.q_at(kk) + (mt) * 16 * D                                                            \
                      : gemm_mma_swz<CPR>(wr + (mt) * 16 + (lane & 15), (kk) * 2 + (lane >> 4)))
    unsigned qf[QR ? MT : 1][QR ? KS : 1][4]; /* FA2_Q_REGS: the warp's Q fragments */
    if (QR) {
        cp_async_wait(FA2_KV_GROUPS ? 2 : 1); /* this thread's Q copies; the barrier: everyone's */
        __syncthreads();
#pragma unroll
        for (int mt = 0; mt < (QR ? MT : 1); mt++)
#pragma unroll
            for (int kk = 0; kk < (QR ? KS : 1); kk++) gemm_mma_ldsm_x4(qf[mt][kk], sQ + FA2_Q_AT(mt, kk));
    }

    for (int j = 0; j < ntiles; j++) {
        const int st = j & 1;
        if (FA2_KV_GROUPS) {
            /* the groups, oldest first: ..., K j, V j (both committed at tile j - 1's start, or
             * before the loop): all but the newest is K j. The barrier makes everyone's K j
             * visible and ends everyone's tile j - 1, the last reader of the other stages, which
             * K j + 1 and V j + 1 refill, each its own group (committed even when empty, so that
             * the counts stay the same) */
            cp_async_wait(1);
            __syncthreads();
            if (j + 1 < ntiles) {
                fa2_copy<T, D, BKV, NT>(sK + (st ^ 1) * STAGE, Kh, p.seq_kv, (j + 1) * BKV, tid);
                cp_async_commit();
                fa2_copy<T, D, BKV, NT>(sV + (st ^ 1) * STAGE, Vh, p.seq_kv, (j + 1) * BKV, tid);
                cp_async_commit();
            } else {
                cp_async_commit();
                cp_async_commit();
            }
        } else {
            if (j + 1 < ntiles) { /* tile j + 1 into the other stage, read last in tile j - 1 (barrier below) */
                fa2_copy<T, D, BKV, NT>(sK + (st ^ 1) * STAGE, Kh, p.seq_kv, (j + 1) * BKV, tid);
                fa2_copy<T, D, BKV, NT>(sV + (st ^ 1) * STAGE, Vh, p.seq_kv, (j + 1) * BKV, tid);
                cp_async_commit();
                cp_async_wait(1);
            } else {
                cp_async_wait(0);
            }
            __syncthreads();
        }
        const T *sKs = sK + st * STAGE, *sVs = sV + st * STAGE;

        /* S = Q K^T, the warp's MT x 16 rows x BKV keys: each K fragment feeds MT MMA pairs */
        float s[MT][SNF][4];
        attn_zero<MT * SNF * 4>(&s[0][0][0]);
#pragma unroll
        for (int kk = 0; kk < KS; kk++) {
            unsigned qa[QR ? 1 : MT][4];
            if (!QR) {
#pragma unroll
                for (int mt = 0; mt < (QR ? 1 : MT); mt++) gemm_mma_ldsm_x4(qa[mt], sQ + FA2_Q_AT(mt, kk));
            }
#pragma unroll
            for (int np = 0; np < BKV / 16; np++) { /* keys np 16 + (0-7, 8-15), head_dim chunks 2 kk + (0, 1) */
                unsigned b[4];
                gemm_mma_ldsm_x4(b, sKs + (FA2_LDSM_OFFSETS
                                               ? lo.k_at(np, kk)
                                               : gemm_mma_swz<CPR>(np * 16 + (lq >> 1) * 8 + lr, kk * 2 + (lq & 1))));
#pragma unroll
                for (int mt = 0; mt < MT; mt++) {
                    const unsigned *a = QR ? qf[QR ? mt : 0][QR ? kk : 0] : qa[QR ? 0 : mt];
                    gemm_mma_elem<T>::mma(s[mt][2 * np], a, b);
                    gemm_mma_elem<T>::mma(s[mt][2 * np + 1], a, b + 2);
                }
            }
        }

        /* base 2, masked only in the tiles that straddle the diagonal or seq_kv
         * (FA2_SOFTMAX: the scale comes with the exponent, below) */
        const float sl = FA2_SOFTMAX ? 1.0f : p.scale_log2;
        if (j >= nfull) {
            const int k0 = j * BKV;
#pragma unroll
            for (int mt = 0; mt < MT; mt++)
#pragma unroll
                for (int nf = 0; nf < SNF; nf++)
#pragma unroll
                    for (int e = 0; e < 4; e++) {
                        const int key = k0 + nf * 8 + 2 * t + (e & 1), row = q0 + wr + mt * 16 + g + (e >> 1) * 8;
                        s[mt][nf][e] = attn_masked(key, row, p.seq_kv, off, p.causal) ? -INFINITY : s[mt][nf][e] * sl;
                    }
        } else if (!FA2_SOFTMAX) {
#pragma unroll
            for (int mt = 0; mt < MT; mt++)
#pragma unroll
                for (int nf = 0; nf < SNF; nf++)
#pragma unroll
                    for (int e = 0; e < 4; e++) s[mt][nf][e] *= p.scale_log2;
        }

        /* the online softmax of rows g (h 0) and g + 8 (h 1) of each row tile: one rescale of O per tile;
         * P packed to the input type as soon as a row tile's exponentials are taken (pf: the A
         * fragments of P V, key fragments 2 kk and 2 kk + 1 -> pf[mt][kk]), so that S's FP32
         * registers are free before P V */
        unsigned pf[MT][BKV / 16][4];
#pragma unroll
        for (int mt = 0; mt < MT; mt++) {
            float f[2]; /* rows g, g + 8: O's rescale factors */
#pragma unroll
            for (int h = 0; h < 2; h++) {
                float mx = -INFINITY;
#pragma unroll
                for (int nf = 0; nf < SNF; nf++) mx = fmaxf(mx, fmaxf(s[mt][nf][2 * h], s[mt][nf][2 * h + 1]));
                mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 1));
                mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 2));
                const float m_new = fmaxf(m[mt][h], mx);
                float sh;
                if (FA2_SOFTMAX) { /* m in score units: exponent s scale - m scale as one FFMA */
                    sh = m_new == -INFINITY ? 0.0f : __fmul_rn(m_new, p.scale_log2);
                    f[h] = m_new == m[mt][h] ? 1.0f : softmax_ex2(__fmul_rn(m[mt][h], p.scale_log2) - sh);
                } else {
                    sh = attn_shift(m_new);
                    f[h] = softmax_ex2(m[mt][h] - sh);
                }
                m[mt][h] = m_new;
                float sum = 0.0f;
#pragma unroll
                for (int nf = 0; nf < SNF; nf++) {
                    float *x = &s[mt][nf][2 * h];
                    if (FA2_SOFTMAX) {
                        x[0] = softmax_ex2(fmaf(x[0], p.scale_log2, -sh));
                        x[1] = softmax_ex2(fmaf(x[1], p.scale_log2, -sh));
                    } else {
                        x[0] = softmax_ex2(x[0] - sh);
                        x[1] = softmax_ex2(x[1] - sh);
                    }
                    sum += x[0] + x[1];
                }
                l[mt][h] = l[mt][h] * f[h] + sum;
            }
            /* FA2_LAZY_RESCALE: skipped when no row of the warp's row tile moved its maximum (f
             * exactly 1 in every lane: the result is the same bits) */
            if (!FA2_LAZY(MT) || __any_sync(0xffffffffu, f[0] != 1.0f || f[1] != 1.0f)) {
#pragma unroll
                for (int nf = 0; nf < ONF; nf++) {
                    o[mt][nf][0] *= f[0];
                    o[mt][nf][1] *= f[0];
                    o[mt][nf][2] *= f[1];
                    o[mt][nf][3] *= f[1];
                }
            }
#pragma unroll
            for (int kk = 0; kk < BKV / 16; kk++) {
                pf[mt][kk][0] = gemm_mma_out<T>::pack(s[mt][2 * kk][0], s[mt][2 * kk][1]);
                pf[mt][kk][1] = gemm_mma_out<T>::pack(s[mt][2 * kk][2], s[mt][2 * kk][3]);
                pf[mt][kk][2] = gemm_mma_out<T>::pack(s[mt][2 * kk + 1][0], s[mt][2 * kk + 1][1]);
                pf[mt][kk][3] = gemm_mma_out<T>::pack(s[mt][2 * kk + 1][2], s[mt][2 * kk + 1][3]);
            }
        }

        if (FA2_KV_GROUPS) { /* V j: all but the two newest groups (K j + 1, V j + 1); the barrier: everyone's */
            cp_async_wait(2);
            __syncthreads();
        }

        /* O += P V: each V fragment feeds MT MMA pairs */
#pragma unroll
        for (int kk = 0; kk < BKV / 16; kk++) {
#pragma unroll
            for (int np = 0; np < D / 16; np++) { /* keys kk 16 + (0-7, 8-15), columns np 16 + (0-7, 8-15) */
                unsigned b[4];
                gemm_mma_ldsm_x4_trans(b, sVs + (FA2_LDSM_OFFSETS
                                                     ? lo.v_at(kk, np)
                                                     : gemm_mma_swz<CPR>(kk * 16 + (lq & 1) * 8 + lr, np * 2 + (lq >> 1))));
#pragma unroll
                for (int mt = 0; mt < MT; mt++) {
                    gemm_mma_elem<T>::mma(o[mt][2 * np], pf[mt][kk], b);
                    gemm_mma_elem<T>::mma(o[mt][2 * np + 1], pf[mt][kk], b + 2);
                }
            }
        }
        if (!FA2_KV_GROUPS)
            __syncthreads(); /* stage st is refilled at tile j + 1 */
    }
#undef FA2_Q_AT
    cp_async_wait(0); /* with no tile, Q's copies (any thread's) must land before its rows are reused */
    __syncthreads();

    /* O / l into the warp's own Q rows (read by it alone), then 16-byte rows to global */
#pragma unroll
    for (int mt = 0; mt < MT; mt++) {
        float inv[2];
#pragma unroll
        for (int h = 0; h < 2; h++) {
            float sum = l[mt][h];
            sum += __shfl_xor_sync(0xffffffffu, sum, 1);
            sum += __shfl_xor_sync(0xffffffffu, sum, 2);
            inv[h] = sum > 0.0f ? 1.0f / sum : 0.0f;
        }
#pragma unroll
        for (int nf = 0; nf < ONF; nf++)
#pragma unroll
            for (int h = 0; h < 2; h++) {
                const int c = nf * 8 + 2 * t;
                *(unsigned *)(sQ + gemm_mma_swz<CPR>(wr + mt * 16 + g + h * 8, c / 8) + c % 8) =
                    gemm_mma_out<T>::pack(o[mt][nf][2 * h] * inv[h], o[mt][nf][2 * h + 1] * inv[h]);
            }
    }
    __syncwarp();
#pragma unroll
    for (int i = lane; i < 16 * MT * CPR; i += 32) {
        const int r = i / CPR, c = i % CPR;
        if (q0 + wr + r < p.seq_q)
            *(uint4 *)(Oh + (long long)(q0 + wr + r) * D + c * 8) = *(const uint4 *)(sQ + gemm_mma_swz<CPR>(wr + r, c));
    }
}

template <typename T, int D>
static int attention_fa2_launch(const attention_args *a, cudaStream_t s)
{
    static unsigned long long done[2]; /* smem opt-in, a bit per device: MT = FA2_MT(D), MT = 1 */
    static int resident[64];           /* blocks of FA2_MT(D) an SM, per device (0: not yet queried) */
    enum { MT = FA2_MT(D), MT_ONE_BLOCK = D == 128 ? 1 : MT /* the fallback's (head_dim 128 only) */ };
    if (FA2_SOFTMAX && !(a->scale > 0.0f)) /* its maximum is taken before the scale */
        return (int)cudaErrorNotSupported;
    const attn_params p = attn_params_of(a, FA2_BQ(D));
    const void *kern = (const void *)attention_fa2_kernel<T, D, MT>;
    if (D == 128 && MT == 2) {
        /* 4 warps of 32 rows want 2 blocks an SM (sm_90: 2 x 96 KiB); where one block is all
         * that fits (sm_86 / sm_89: 100 KiB an SM, sm_80: 164 KiB), 8 warps of 16 rows hide
         * more latency than 4 of 32 */
        int e = smem_opt_in(kern, FA2_SMEM(D), &done[0]), per_sm = 0;
        if (e == 0)
            e = smem_resident_per_sm(kern, FA2_THREADS(D, MT), FA2_SMEM(D), resident, &per_sm);
        if (e != 0)
            return e;
        if (per_sm < 2) {
            kernel_ran_note("fa2_128x64_d128", "two blocks of 4 warps (32 rows each) do not fit an SM");
            return attn_launch((const void *)attention_fa2_kernel<T, D, MT_ONE_BLOCK>, &p,
                               FA2_THREADS(D, MT_ONE_BLOCK), FA2_SMEM(D), &done[1], s);
        }
    }
    return attn_launch(kern, &p, FA2_THREADS(D, MT), FA2_SMEM(D), &done[0], s);
}

/* the run's name: q tile x K/V tile, w4: 4 warps of 32 rows (FA2_WARP_ROWS 32) */
#if FA2_WARP_ROWS == 32
ATTN_ENTRY(attention_fa2, attention_fa2_launch, FA2_SOFTMAX, "fa2_128x64w4_d64", "fa2_128x64w4_d128", "fa2_64x32_d256")
#else
ATTN_ENTRY(attention_fa2, attention_fa2_launch, FA2_SOFTMAX, "fa2_128x64_d64", "fa2_128x64_d128", "fa2_64x32_d256")
#endif
