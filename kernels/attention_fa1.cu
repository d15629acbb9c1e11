/* kernels/attention_fa1.cu: the rung fa1 of the attention ladder (contract:
 * kernels/attention.h), FlashAttention-1's idea on tensor cores.
 *
 * Idea: S = Q K^T is never materialised in global memory. One block takes
 * a (batch, head, q tile of 64 rows) and walks the K/V tiles of 64 keys:
 *   1. S tile = Q K^T (mma.sync m16n8k16, FP32 accumulators), the warps
 *      splitting the keys of the tile as FlashAttention-1 splits K/V across
 *      warps; S, scaled into the base-2 domain and masked (past seq_kv,
 *      causal), to shared memory;
 *   2. the online softmax of the tile, row by row from shared memory: a
 *      running maximum m and sum l per query row (kept in shared memory),
 *      P = exp2(S - m_new) in the input's type (to shared memory), and the
 *      factor exp2(m_old - m_new) that rescales the row's earlier output;
 *   3. O = O * factor + P V, the warps now splitting the head_dim columns of
 *      O (the accumulators stay in registers across tiles).
 * At the end O / l is written (a row that saw no key as zeros). The
 * shuffle of work between steps (keys per warp, then columns per warp) is
 * why S and P go through shared memory and every tile costs three barriers
 * (after the K copy, after S, after the softmax): that is what fa2 removes.
 *
 * Loads: K and V have a buffer each, filled by cp.async (16 bytes, zero
 * past seq_kv). V_j's copy is issued at the top of tile j and is in flight
 * during S_j = Q K_j^T and the softmax; K_j+1's is issued once S_j is in
 * shared memory (K_j read by every warp) and is in flight during the softmax
 * and O += P V_j. FlashAttention-1's own kernel loads its tiles
 * synchronously; any hand kernel written today overlaps them, so fa1 does,
 * and the rung's gap to fa2 is the schedule (S and P through shared memory,
 * the barriers, the softmax's own thread layout), not exposed loads. The
 * overlap stops at one tile: no K/V tile is prefetched two ahead, so the
 * three barriers per tile remain. At head_dim 256, Q, K and V of 64 x 256
 * with S and P pass the 99 KiB a block may have on sm_86 / sm_89, where the
 * compute_80 PTX may run: the launcher reads the device's opt-in shared
 * memory per block once (cudaDevAttrMaxSharedMemoryPerBlockOptin) and runs
 * the two buffers where they fit (sm_80, sm_90: fa1_64x64kv2_d256), else a
 * second instance with a single K/V buffer (FA1_SPLIT 0, named
 * fa1_64x64_d256 with a note): there V_j's copy (over K_j, once S_j is done)
 * overlaps only the softmax, and K_j+1's is issued after P V_j
 * (FA1_SPLIT_D256 0: that instance everywhere).
 *
 * Fragments: Q, K, V (rows of head_dim) and P (rows of 64 keys) are stored
 * XOR-swizzled (kernels/gemm_mma_core.cuh's layout, which its cp.async tile
 * copies write) and read with ldmatrix.x4 (.trans for V, whose k runs down
 * the rows), conflict-free without padding; each lane's offsets are
 * computed once, before the K/V loop (attn_ldsm). S (FP32) is padded to rows
 * of 72 floats: the MMA lanes store it as float2 pairs and the softmax
 * threads read it as float4s, both without bank conflicts (the TPR threads
 * of a row interleave their float4s); P is written as 8-byte halves of its
 * swizzled chunks. The scale stays a separate multiply of S (its fold into
 * the exponent, which needs scale > 0, is fa2's).
 *
 * Tiles: 64 x 64 (q rows x keys), 4 warps (8 at head_dim 256, so each
 * warp's slice of O stays at most 32 columns: 64 x 32 accumulators; two row
 * groups x four column groups would read as many fragments per MMA). For S
 * at head_dim 256 the 8 warps are 2 row groups (32 rows) x 4 key groups (16
 * keys; FA1_S_ROWS_D256): a warp with all 64 rows and 8 keys would read
 * 4 Q fragments and half a K fragment per 4 MMAs, one with 32 rows and 16
 * keys reads 2 and 1 (the S phase is bound by its shared-memory reads).
 * Shared memory (FA1_SMEM): Q, K, V, S and P; without padding in Q, K, V
 * and P, head_dim 128 keeps 3 blocks an SM on sm_90 (228 KiB an SM, 1 KiB
 * reserved a block) and head_dim 64 keeps 4, as with the one padded K/V
 * buffer before; __launch_bounds__ asks for those (head_dim 256: 1 block, as
 * its registers allow); the launcher asks for the largest shared carveout.
 * The causal mask is tested on every score of every tile (at head_dim 256,
 * FA1_EDGE_MASK_D256: only in a tile past seq_kv or straddling the first
 * row's causal limit, a warp-uniform test), though the loop stops at the
 * last tile a q tile's rows can see (and the blocks of the last q tiles,
 * which see the most keys, are scheduled first). Head_dim 256 stays at one
 * block an SM either way: two would need the single buffer and at most 128
 * registers, under which ptxas spills.
 *
 * Constraints: fp16 / bf16, head_dim 64, 128 or 256, any seq_q, seq_kv >= 1,
 * 16-byte aligned tensors, sm_80+ (attn_supports_common).
 * Run just this: ./compare --ops attention --variants fa1 */
#include "attention_common.cuh"

#define FA1_BQ 64  /* q rows per block */
#define FA1_BKV 64 /* keys per K/V tile */
#define FA1_WARPS(D) ((D) == 256 ? 8 : 4)
/* Head_dim 256 with separate K and V buffers where the device's opt-in shared
 * memory per block takes them (FA1_SMEM(256, 1); else, with a note, the one
 * buffer); 0: the one buffer everywhere */
#ifndef FA1_SPLIT_D256
#define FA1_SPLIT_D256 1
#endif
/* Head_dim 256: the row groups of S's warp split (2: 8 warps as 2 groups of
 * 32 rows x 4 of 16 keys; 1: each warp all 64 rows x 8 keys) */
#ifndef FA1_S_ROWS_D256
#define FA1_S_ROWS_D256 2
#endif
/* Head_dim 256: the mask (past seq_kv, causal) tested only in a tile that
 * may need it (one past seq_kv, or one straddling a causal limit); 0: on
 * every tile */
#ifndef FA1_EDGE_MASK_D256
#define FA1_EDGE_MASK_D256 1
#endif
#define FA1_EDGE_MASK(D) ((D) == 256 && FA1_EDGE_MASK_D256)
/* 1: separate K and V buffers (V_j's copy under S_j and the softmax, K_j+1's
 * under the softmax and P V_j); 0: one K/V buffer, V over K. The instance a
 * head_dim prefers; head_dim 256's single-buffer one is its fallback */
#define FA1_SPLIT(D) ((D) != 256 || FA1_SPLIT_D256)
/* S's warps: row groups (each warp takes 64 / FA1_SROWS rows of S and
 * FA1_SROWS x 64 / warps of its keys) */
#define FA1_SROWS(D) ((D) == 256 ? FA1_S_ROWS_D256 : 1)
/* blocks an SM that __launch_bounds__ asks for (the shared memory allows it
 * on sm_90: SMEM_SM90_FITS, below); head_dim 256: 1, as its registers (8
 * warps of 64 x 32 O accumulators) allow no more without spilling */
#define FA1_MIN_BLOCKS(D) ((D) == 64 ? 4 : (D) == 128 ? 3 : 1)
#define FA1_LDS (FA1_BKV + 8) /* S's row, floats (288 bytes: 32 past a 128-byte line) */

/* shared bytes of the instance for head_dim D: Q, K and V (SPLIT 1) or one
 * K/V buffer (SPLIT 0), S, P and the per-row m, l and rescale factor */
#define FA1_SMEM(D, SPLIT)                                                                                    \
    (2 * (FA1_BQ + (1 + (SPLIT)) * FA1_BKV) * (D) + 4 * FA1_BQ * FA1_LDS + 2 * FA1_BQ * FA1_BKV +             \
     3 * 4 * FA1_BQ)

template <typename T, int D, int SPLIT>
static __global__ void __launch_bounds__(FA1_WARPS(D) * 32, FA1_MIN_BLOCKS(D)) attention_fa1_kernel(const attn_params p)
{
    enum {
        NW = FA1_WARPS(D),
        NT = NW * 32,
        CPR = D / 8,            /* 16-byte chunks of a Q / K / V row */
        PCPR = FA1_BKV / 8,     /* of a P row */
        MF = FA1_BQ / 16,       /* m16 fragments of a q tile */
        SR = FA1_SROWS(D),      /* S's row groups */
        KW = NW / SR,           /* S's key groups (warps of a row group) */
        SMF = MF / SR,          /* m16 fragments of S per warp (its rows) */
        SNF = FA1_BKV / KW / 8, /* n8 fragments of S per warp (its keys) */
        ONF = D / NW / 8,       /* n8 fragments of O per warp (its columns) */
        TPR = NT / FA1_BQ,      /* softmax threads per row */
        F4 = FA1_BKV / 4 / TPR, /* float4s of a row per softmax thread */
        TILE = FA1_BKV * D
    };
    static_assert(SNF >= 1 && (SNF == 1 || SNF % 2 == 0) && ONF % 2 == 0, "warps split keys and columns");
    static_assert(SR >= 1 && NW % SR == 0 && MF % SR == 0, "S's row groups");
    static_assert(TPR >= 1 && (TPR & (TPR - 1)) == 0 && F4 >= 1, "softmax threads per row");
    /* every instance but head_dim 256's split one (the launcher checks the device's opt-in) */
    static_assert(FA1_SMEM(D, SPLIT) <= 99 * 1024 || (D == 256 && SPLIT), "fits a block on every sm_8x");
    static_assert(SMEM_SM90_FITS(FA1_SMEM(D, SPLIT), FA1_MIN_BLOCKS(D)), "__launch_bounds__'s blocks fit an sm_90 SM");
    typedef gemm_mma_tile<T, FA1_BQ, CPR, NT, true> tile_q;
    typedef gemm_mma_tile<T, FA1_BKV, CPR, NT, true> tile_kv;
    extern __shared__ __align__(128) unsigned char fa1_smem[];
    T *sQ = (T *)fa1_smem; /* swizzled (gemm_mma_swz), as K and V */
    T *sK = sQ + FA1_BQ * D;
    T *sV = sK + (SPLIT ? TILE : 0);
    float *sS = (float *)(sK + (1 + SPLIT) * TILE);
    T *sP = (T *)(sS + FA1_BQ * FA1_LDS); /* swizzled, rows of PCPR chunks */
    float *sM = (float *)(sP + FA1_BQ * FA1_BKV), *sL = sM + FA1_BQ, *sA = sL + FA1_BQ;

    const int tid = threadIdx.x, lane = tid & 31, w = tid >> 5, g = lane >> 2, t = lane & 3;
    const int rw = SR == 1 ? 0 : w / KW, kw = SR == 1 ? w : w % KW; /* S: the warp's row and key groups */
    const T *Qh, *Kh, *Vh;
    T *Oh;
    const int q0 = attn_block_head<T, D, FA1_BQ>(p, &Qh, &Kh, &Vh, &Oh), off = p.seq_kv - p.seq_q;
    const int ntiles = (int)attn_kv_tiles(q0, FA1_BQ, p.seq_q, p.seq_kv, FA1_BKV, p.causal);

    tile_q::copy(sQ, Qh, D, p.seq_q, D, q0, 0, tid);
    if (ntiles > 0)
        tile_kv::copy(sK, Kh, D, p.seq_kv, D, 0, 0, tid);
    cp_async_commit();
    for (int r = tid; r < FA1_BQ; r += NT) {
        sM[r] = -INFINITY;
        sL[r] = 0.0f;
    }
    float o[MF][ONF][4];
    attn_zero<MF * ONF * 4>(&o[0][0][0]);
    attn_ldsm<CPR> lo; /* this lane's ldmatrix offsets in Q and K */
    lo.init(0, lane);
    int vo[ONF / 2]; /* in V: key rows 0-15, the warp's columns np 16 + (0-15) (ldmatrix.trans) */
#pragma unroll
    for (int np = 0; np < ONF / 2; np++)
        vo[np] = gemm_mma_swz<CPR>(((lane >> 3) & 1) * 8 + (lane & 7), (w * ONF / 2 + np) * 2 + (lane >> 4));
    int po[4]; /* and in P (A fragments: rows lane & 15, chunks 2 i + lane / 16) */
#pragma unroll
    for (int i = 0; i < 4; i++) po[i] = gemm_mma_swz<PCPR>(lane & 15, i * 2 + (lane >> 4));

    for (int j = 0; j < ntiles; j++) {
        const int k0 = j * FA1_BKV;
        cp_async_wait(0); /* K_j (and Q) */
        __syncthreads();  /* every thread's copies landed; P V_j-1 done with V's buffer */
        if (SPLIT) {      /* V_j in flight during S_j and the softmax */
            tile_kv::copy(sV, Vh, D, p.seq_kv, D, k0, 0, tid);
            cp_async_commit();
        }

        /* 1. S = Q K^T: warp w takes keys [kw SNF 8, (kw + 1) SNF 8) of the tile, rows
         * [rw SMF 16, (rw + 1) SMF 16) (SR 1: all 64 rows) */
        float s[SMF][SNF][4];
        attn_zero<SMF * SNF * 4>(&s[0][0][0]);
#pragma unroll
        for (int k2 = 0; k2 < D / 32; k2++) { /* two k steps of 16 */
            unsigned b[2][SNF][2];
            if (SNF == 1) { /* the warp's 8 keys x 4 chunks: k steps 2 k2 (regs 0-1) and 2 k2 + 1 (2-3) */
                unsigned r[4];
                gemm_mma_ldsm_x4(r, sK + gemm_mma_swz<CPR>(kw * 8 + (lane & 7), k2 * 4 + (lane >> 3)));
                b[0][0][0] = r[0];
                b[0][0][1] = r[1];
                b[1][0][0] = r[2];
                b[1][0][1] = r[3];
            }
#pragma unroll
            for (int h = 0; h < 2; h++)
#pragma unroll
                for (int np = 0; np < SNF / 2; np++) { /* keys np 16 + (0-7, 8-15) of the warp's */
                    unsigned r[4];
                    gemm_mma_ldsm_x4(r, sK + lo.k_at(kw * SNF / 2 + np, 2 * k2 + h));
                    b[h][2 * np][0] = r[0];
                    b[h][2 * np][1] = r[1];
                    b[h][2 * np + 1][0] = r[2];
                    b[h][2 * np + 1][1] = r[3];
                }
#pragma unroll
            for (int h = 0; h < 2; h++)
#pragma unroll
                for (int mi = 0; mi < SMF; mi++) {
                    unsigned a[4];
                    gemm_mma_ldsm_x4(a, sQ + lo.q_at(2 * k2 + h) + (rw * SMF + mi) * 16 * D);
#pragma unroll
                    for (int nf = 0; nf < SNF; nf++) gemm_mma_elem<T>::mma(s[mi][nf], a, b[h][nf]);
                }
        }
        /* 0 when no score of the tile is masked: every key below seq_kv and, causal, at most
         * the first row's limit (FA1_EDGE_MASK; else always tested) */
        const bool edge = !FA1_EDGE_MASK(D) || k0 + FA1_BKV > p.seq_kv || (p.causal && k0 + FA1_BKV - 1 > q0 + off);
#pragma unroll
        for (int mi = 0; mi < SMF; mi++)
#pragma unroll
            for (int nf = 0; nf < SNF; nf++)
#pragma unroll
                for (int h = 0; h < 2; h++) { /* scaled to base 2, masked, two scores a store */
                    const int r = (rw * SMF + mi) * 16 + g + h * 8, c = kw * SNF * 8 + nf * 8 + 2 * t;
                    float2 v;
                    v.x = edge && attn_masked(k0 + c, q0 + r, p.seq_kv, off, p.causal) ? -INFINITY
                                                                                        : s[mi][nf][2 * h] * p.scale_log2;
                    v.y = edge && attn_masked(k0 + c + 1, q0 + r, p.seq_kv, off, p.causal)
                              ? -INFINITY
                              : s[mi][nf][2 * h + 1] * p.scale_log2;
                    *(float2 *)(sS + r * FA1_LDS + c) = v;
                }
        __syncthreads(); /* S whole; K_j read by every warp */
        if (SPLIT) {     /* K_j+1 in flight during the softmax and P V_j */
            if (j + 1 < ntiles) {
                tile_kv::copy(sK, Kh, D, p.seq_kv, D, k0 + FA1_BKV, 0, tid);
                cp_async_commit();
            }
        } else { /* V_j over K_j, in flight during the softmax */
            tile_kv::copy(sV, Vh, D, p.seq_kv, D, k0, 0, tid);
            cp_async_commit();
        }

        /* 2. the online softmax of the tile, TPR threads a row, each taking
         * the row's float4s part, part + TPR, ... (the 8 lanes of a 16-byte
         * access phase then hit 8 different 16-byte bank groups) */
        {
            const int r = tid / TPR, part = tid % TPR;
            const float *srow = sS + r * FA1_LDS;
            float4 x[F4];
#pragma unroll
            for (int i = 0; i < F4; i++) x[i] = *(const float4 *)(srow + (i * TPR + part) * 4);
            float mx = -INFINITY;
#pragma unroll
            for (int i = 0; i < F4; i++) mx = fmaxf(mx, fmaxf(fmaxf(x[i].x, x[i].y), fmaxf(x[i].z, x[i].w)));
#pragma unroll
            for (int y = 1; y < TPR; y <<= 1) mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, y));
            const float m_old = sM[r], m_new = fmaxf(m_old, mx), sh = attn_shift(m_new);
            float sum = 0.0f;
#pragma unroll
            for (int i = 0; i < F4; i++) {
                const float e0 = softmax_ex2(x[i].x - sh), e1 = softmax_ex2(x[i].y - sh);
                const float e2 = softmax_ex2(x[i].z - sh), e3 = softmax_ex2(x[i].w - sh);
                sum += (e0 + e1) + (e2 + e3);
                const int f = i * TPR + part; /* P's elements 4 f .. 4 f + 3: half f & 1 of chunk f / 2 */
                *(uint2 *)(sP + gemm_mma_swz<PCPR>(r, f >> 1) + (f & 1) * 4) =
                    make_uint2(gemm_mma_out<T>::pack(e0, e1), gemm_mma_out<T>::pack(e2, e3));
            }
#pragma unroll
            for (int y = 1; y < TPR; y <<= 1) sum += __shfl_xor_sync(0xffffffffu, sum, y);
            __syncwarp(); /* every reader of sM[r] (the row's TPR lanes) before its writer */
            if (part == 0) {
                const float f = softmax_ex2(m_old - sh);
                sA[r] = f;
                sM[r] = m_new;
                sL[r] = sL[r] * f + sum;
            }
        }
        if (SPLIT && j + 1 < ntiles)
            cp_async_wait(1); /* V_j; K_j+1 may stay in flight */
        else
            cp_async_wait(0);
        __syncthreads(); /* P, the factors and V_j */

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
#pragma unroll
        for (int kk = 0; kk < FA1_BKV / 16; kk++) {
            unsigned b[ONF][2];
#pragma unroll
            for (int np = 0; np < ONF / 2; np++) { /* keys kk 16 + (0-7, 8-15), the warp's columns np 16 + .. */
                unsigned r[4];
                gemm_mma_ldsm_x4_trans(r, sV + vo[np] + kk * 16 * D);
                b[2 * np][0] = r[0];
                b[2 * np][1] = r[1];
                b[2 * np + 1][0] = r[2];
                b[2 * np + 1][1] = r[3];
            }
#pragma unroll
            for (int mi = 0; mi < MF; mi++) {
                unsigned a[4];
                gemm_mma_ldsm_x4(a, sP + po[kk & 3] + (kk >> 2) * 64 + mi * 16 * FA1_BKV);
#pragma unroll
                for (int nf = 0; nf < ONF; nf++) gemm_mma_elem<T>::mma(o[mi][nf], a, b[nf]);
            }
        }
        if (!SPLIT) {
            __syncthreads(); /* V_j read by every warp: K_j+1 over it */
            if (j + 1 < ntiles) {
                tile_kv::copy(sK, Kh, D, p.seq_kv, D, k0 + FA1_BKV, 0, tid);
                cp_async_commit();
            }
        }
        /* SPLIT: the next tile's first barrier orders V's, S's, P's and the
         * factors' rewrites after this tile's reads */
    }
    cp_async_wait(0); /* with no tile, Q's copies are still in flight */
    __syncthreads();  /* sL's initial values, when no tile ran */

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

/* The device's opt-in shared memory per block, bytes, queried once per
 * device: cache[dev] (0..63, zero-initialised; 0 = not yet queried) keeps
 * it, and a device past 63 is queried every call. Returns the cudaError_t as
 * int, 0 on success. */
static inline int attention_fa1_optin(int *cache, int *bytes)
{
    int dev = 0;
    cudaError_t e = cudaGetDevice(&dev);
    if (e != cudaSuccess)
        return (int)e;
    int v = dev < 64 ? __atomic_load_n(&cache[dev], __ATOMIC_RELAXED) : 0;
    if (v == 0) {
        e = cudaDeviceGetAttribute(&v, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev);
        if (e != cudaSuccess)
            return (int)e;
        if (dev < 64 && v > 0)
            __atomic_store_n(&cache[dev], v, __ATOMIC_RELAXED);
    }
    *bytes = v;
    return 0;
}

/* Runs the instance <T, D, SPLIT>: the largest shared carveout (FA1_MIN_BLOCKS
 * blocks need nearly all of an SM's), the opt-in, the launch; done and
 * carveout hold a bit per device each. */
template <typename T, int D, int SPLIT>
static int attention_fa1_run(const attn_params *p, unsigned long long *done, unsigned long long *carveout,
                             cudaStream_t s)
{
    const void *kern = (const void *)attention_fa1_kernel<T, D, SPLIT>;
    const int e = smem_func_attr_once(kern, cudaFuncAttributePreferredSharedMemoryCarveout,
                                      cudaSharedmemCarveoutMaxShared, carveout);
    if (e != 0)
        return e;
    return attn_launch(kern, p, FA1_WARPS(D) * 32, FA1_SMEM(D, SPLIT), done, s);
}

template <typename T, int D>
static int attention_fa1_launch(const attention_args *a, cudaStream_t s)
{
    static unsigned long long done[2], carveout[2]; /* smem opt-in and carveout, a bit per device each:
                                                       FA1_SPLIT(D), the single-buffer fallback */
    static int optin[64];                          /* the device's opt-in bytes a block (0: not yet queried) */
    enum { SPLIT = FA1_SPLIT(D), D_FALLBACK = D == 256 && SPLIT };
    const attn_params p = attn_params_of(a, FA1_BQ);
    if (D_FALLBACK) {
        /* Q, K, V, S and P of head_dim 256 pass 99 KiB: sm_80 and sm_90 take them, sm_86 / sm_89
         * (where the compute_80 PTX may run) run the single K/V buffer */
        int bytes = 0;
        const int e = attention_fa1_optin(optin, &bytes);
        if (e != 0)
            return e;
        if (bytes < FA1_SMEM(D, SPLIT)) {
            kernel_ran_note("fa1_64x64_d256", "one K/V buffer: separate K and V pass the device's shared memory "
                                              "per block");
            return attention_fa1_run<T, D, D_FALLBACK ? 0 : SPLIT>(&p, &done[1], &carveout[1], s);
        }
    }
    return attention_fa1_run<T, D, SPLIT>(&p, &done[0], &carveout[0], s);
}

/* the run's name: q tile x K/V tile; kv2: head_dim 256's separate K and V
 * buffers (its single-buffer fallback is named fa1_64x64_d256, with a note) */
#if FA1_SPLIT_D256
ATTN_ENTRY(attention_fa1, attention_fa1_launch, 0, "fa1_64x64_d64", "fa1_64x64_d128", "fa1_64x64kv2_d256")
#else
ATTN_ENTRY(attention_fa1, attention_fa1_launch, 0, "fa1_64x64_d64", "fa1_64x64_d128", "fa1_64x64_d256")
#endif
