/* kernels/search/attention_fa3_search.cu: the rung fa3 at several K/V tiles
 * (BKV keys) and consumer warpgroup counts (NWG), family `fa3` of
 * `compare --candidates` (hidden rows of the
 * attention op, src/gpu/op_attention_candidates.c); the rung itself runs its
 * picks (FA3_BKV_D64 / _D128 and their _CAUSAL forms, attention_fa3.cuh).
 *
 * Idea: one candidate = one K/V tile, the same kernel template
 * (attention_fa3.cuh) and launcher (attention_fa3_launch.cuh) as the rung,
 * instantiated at head_dim 64 and 128 for both types, so one binary times
 * the tiles against cudnn_sdpa: larger tiles spend the per-tile fixed costs
 * (barriers, waits, the row maximum's shuffles, O's rescale) on more keys,
 * at the price of the consumer's registers (S: BKV / 2 floats, P: BKV / 4,
 * beside O) and of the ring's shared memory. Candidates: FA3_SEARCH_CANDIDATES
 * below; each kept one compiles without a spill and without C7512
 * (ptxas -v; docs/tuning/attention.md).
 * The fa3_w3_* rows run 3 consumer warpgroups (NWG 3: q tiles of 192 rows,
 * 512 threads, FlashAttention-3's layout at head_dim 64): a third
 * warpgroup's softmax to hide the others' dependency chains (MUFU behind
 * FFMA), at 160 registers a consumer thread (setmaxnreg 32 / 160), which
 * hold O, S and P of head_dim 64 at K/V tiles up to 128 keys (144 keys and
 * more spill and serialise the wgmmas, C7512), and head_dim 128's at tiles
 * up to 80 keys (96 spill): fa3_w3_k112 and fa3_w3_k128 decline head_dim
 * 128; fa3_w3_k64 and fa3_w3_k80 run both. fa3_q1_k128: fa3_k128 with
 * one Q buffer (the persistent kernel's before FA3_QBUF), to time the
 * double Q buffer against it in one run; fa3_nt_k128: fa3_k128 without the
 * tail split (FA3_TAIL_SPLIT: the last round's work tiles split over the
 * idle SMs), fa3_t4_k128 and fa3_t8_k128 with up to 4 and 8 chunks a
 * tail work tile, whatever FA3_TAIL_SPLIT is: its A/B in one run. A candidate's workspace (the tail split's
 * partials) is attention_fa3_search_workspace's.
 * Constraints: the rung's (attention_fa3_supports), head_dim 64 or 128
 * (head_dim 256 keeps its own tile: declined), and a ring that fits one CTA
 * per SM (a tile that does not at a head_dim has no instance there:
 * declined); NWG 3 at head_dim 128: tiles of at most 80 keys. Built for sm_90a
 * only (CMakeLists.txt's sm_90a list).
 * Run: ./compare --ops attention --candidates fa3 --axis head_dim=128. */
#include "attention_fa3_launch.cuh"
#include "attention_fa3_search.h"
#include "kernel_ran.h"

/* X(NAME, BKV, NWG, QB, TS, SMX): the candidates, a K/V tile (a multiple of 16
 * <= 256), consumer warpgroups (2: the rung's kernel; 3: FlashAttention-3's
 * at head_dim 64), Q buffers (0: the rung's rule, FA3_QB; 1: one, the
 * persistent kernel before its double Q buffer, an A/B in one binary), the
 * tail split's chunks (FA3_TAIL_SPLIT: the rung's; 0: none, its A/B) and
 * the softmax's and issue's options (FA3_SMX(POLY, THR, DESC, TEST), attention_fa3.cuh;
 * FA3_SMX_RUNG: the rung's). fa3_s0_*: none of the four (the kernel before
 * them: each descriptor masked and shifted from its address, the next
 * step's barriers waited at the loop's top); fa3_d_*: the descriptors by
 * addition alone (the rung without the early barrier test); fa3_dr_k128:
 * fa3_d_k128 and the conditional rescale (2^8); fa3_e3_k128: and 3 of
 * every 8 exponentials by polynomial */
#define FA3_SEARCH_CANDIDATES(X)                                                                   \
    X(fa3_k128, 128, 2, 0, FA3_TAIL_SPLIT, FA3_SMX_RUNG) X(fa3_k176, 176, 2, 0, FA3_TAIL_SPLIT, FA3_SMX_RUNG) \
    X(fa3_k192, 192, 2, 0, FA3_TAIL_SPLIT, FA3_SMX_RUNG)                                          \
    X(fa3_w3_k112, 112, 3, 0, FA3_TAIL_SPLIT, FA3_SMX_RUNG)                                       \
    X(fa3_w3_k128, 128, 3, 0, FA3_TAIL_SPLIT, FA3_SMX_RUNG)                                       \
    X(fa3_w3_k64, 64, 3, 0, FA3_TAIL_SPLIT, FA3_SMX_RUNG) X(fa3_w3_k80, 80, 3, 0, FA3_TAIL_SPLIT, FA3_SMX_RUNG) \
    X(fa3_q1_k128, 128, 2, 1, FA3_TAIL_SPLIT, FA3_SMX_RUNG) X(fa3_nt_k128, 128, 2, 0, 0, FA3_SMX_RUNG) \
    X(fa3_t4_k128, 128, 2, 0, 4, FA3_SMX_RUNG) X(fa3_t8_k128, 128, 2, 0, 8, FA3_SMX_RUNG)            \
    X(fa3_s0_k128, 128, 2, 0, FA3_TAIL_SPLIT, FA3_SMX(0, 0, 0, 0))                                    \
    X(fa3_dr_k128, 128, 2, 0, FA3_TAIL_SPLIT, FA3_SMX(0, 8, 1, 0))                                    \
    X(fa3_e3_k128, 128, 2, 0, FA3_TAIL_SPLIT, FA3_SMX(3, 8, 1, 0))                                    \
    X(fa3_s0_k192, 192, 2, 0, FA3_TAIL_SPLIT, FA3_SMX(0, 0, 0, 0))                                    \
    X(fa3_d_k128, 128, 2, 0, FA3_TAIL_SPLIT, FA3_SMX(0, 0, 1, 0))                                     \
    X(fa3_d_k192, 192, 2, 0, FA3_TAIL_SPLIT, FA3_SMX(0, 0, 1, 0))

/* the launcher of (T, D, BKV, NWG), or NULL where Q and the ring do not fit
 * the shared memory of one CTA per SM, or (NWG 3) at head_dim 128 with
 * tiles over 80 keys: 160 registers a consumer thread do not hold its O, S
 * and P (96 keys spill, C7512) */
template <typename T, int D, int BKV, int NWG, int QB, int TS, int SMX>
static constexpr attn_launch_fn fa3_search_fn()
{
    constexpr int qb = QB ? QB : FA3_QB(D, BKV, NWG);
    if constexpr (SMEM_SM90_FITS(FA3_SMEM_QB(D, BKV, NWG, qb), 1) && (NWG == 2 || D == 64 || BKV <= 80))
        return attention_fa3_launch<T, D, BKV, NWG, qb, TS, SMX>;
    else
        return nullptr;
}

typedef size_t (*fa3_search_ws_fn)(const attention_args *a, int ts);
typedef int (*fa3_search_split_fn)(const attention_args *a, int bkv, int ts);

typedef struct {
    const char *name;       /* the candidate's name (the rows' name and `kernel`) */
    attn_launch_fn run[2][2]; /* [fp16, bf16][head_dim 64, 128]; NULL: declined */
    fa3_search_ws_fn ws[2];   /* [head_dim 64, 128]: its workspace (fa3_tail_workspace) */
    fa3_search_split_fn split[2]; /* [head_dim 64, 128]: its tail split (fa3_tail_split_of) */
    int bkv, ts;              /* its K/V tile, its tail split's chunks (TS) */
} attention_fa3_search_row;

#define FA3_SEARCH_ROW(NAME, BKV, NWG, QB, TS, SMX)                                                     \
    {#NAME,                                                                                        \
     {{fa3_search_fn<__half, 64, BKV, NWG, QB, TS, SMX>(), fa3_search_fn<__half, 128, BKV, NWG, QB, TS, SMX>()}, \
      {fa3_search_fn<__nv_bfloat16, 64, BKV, NWG, QB, TS, SMX>(),                                       \
       fa3_search_fn<__nv_bfloat16, 128, BKV, NWG, QB, TS, SMX>()}},                                    \
     {fa3_tail_workspace<64, NWG>, fa3_tail_workspace<128, NWG>},                                  \
     {fa3_tail_split_of<64, NWG>, fa3_tail_split_of<128, NWG>},                                    \
     BKV, TS},

static const attention_fa3_search_row attention_fa3_search_table[] = {FA3_SEARCH_CANDIDATES(FA3_SEARCH_ROW)};

extern "C" int attention_fa3_search_count(void)
{
    return (int)(sizeof attention_fa3_search_table / sizeof attention_fa3_search_table[0]);
}

extern "C" const char *attention_fa3_search_name(int i)
{
    return i >= 0 && i < attention_fa3_search_count() ? attention_fa3_search_table[i].name : NULL;
}

extern "C" size_t attention_fa3_search_workspace(int i, const attention_args *a)
{
    if (i < 0 || i >= attention_fa3_search_count() || !a || (a->head_dim != 64 && a->head_dim != 128))
        return 0;
    const attention_fa3_search_row *r = &attention_fa3_search_table[i];
    const int di = a->head_dim == 64 ? 0 : 1;
    return r->run[a->type == ELEM_FP16 ? 0 : 1][di] ? r->ws[di](a, r->ts) : 0; /* declined: none */
}

extern "C" int attention_fa3_search_tail_split(int i, const attention_args *a)
{
    if (attention_fa3_search_workspace(i, a) == 0) /* out of range, declined, or never split */
        return 0;
    const attention_fa3_search_row *r = &attention_fa3_search_table[i];
    return r->split[a->head_dim == 64 ? 0 : 1](a, r->bkv, r->ts);
}

extern "C" int attention_fa3_search_run(int i, const attention_args *a, cudaStream_t stream)
{
    if (i < 0 || i >= attention_fa3_search_count() || !a)
        return (int)cudaErrorInvalidValue;
    char why[256];
    if (!attention_fa3_supports(a, why, sizeof why) || (a->head_dim != 64 && a->head_dim != 128))
        return (int)cudaErrorNotSupported;
    const int ti = a->type == ELEM_FP16 ? 0 : 1, di = a->head_dim == 64 ? 0 : 1;
    const attn_launch_fn fn = attention_fa3_search_table[i].run[ti][di];
    if (!fn)
        return (int)cudaErrorNotSupported; /* the ring does not fit at this head_dim, or NWG 3 at 128 */
    kernel_ran_note(attention_fa3_search_table[i].name, NULL);
    return fn(a, stream);
}
