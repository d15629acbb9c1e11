/* kernels/attention_fa3.cu: the rung fa3 of the attention ladder (contract:
 * kernels/attention.h), FlashAttention-3's design on Hopper (sm_90a): TMA,
 * an mbarrier ring, warp specialisation, wgmma for both GEMMs, two consumer
 * warpgroups in ping-pong. The device side: kernels/attention_fa3.cuh.
 *
 * Idea: a CTA per work tile (batch, head, q tile of 128 rows), 3
 * warpgroups; the q tile runs fastest (ATTN_HEAD_MAJOR 1,
 * attention_common.cuh), so the CTAs resident at once share a few heads' K /
 * V in the L2. Persistent at head_dim 64 and 128 (FA3_PERSISTENT 1, the
 * default; FlashAttention-3's): min(SMs, work tiles) CTAs, CTA b taking a
 * work tile a round of a grid's worth in that order (b, then 2 grid - 1 - b,
 * ...: a snake, so that unequal causal work tiles even out; causal only
 * with many heads and few q tiles a head, FA3_PERS_CAUSAL_MIN_BH / _MAX_QT,
 * else one CTA per work tile), so the fixed start of a work tile
 * (Q's load, the ring's first fill) runs under the previous one's end (its
 * last P V, O's store) instead of between a CTA's exit and the next launch:
 * at seq 2K a work tile is only 16 K/V tiles long. The K/V rings' stages and
 * parities run on across a CTA's work tiles (both sides count its loads), Q
 * has an empty barrier of its own (released by the consumers at their work
 * tile's last step, before its last P V), two Q buffers where they fit
 * beside the ring (FA3_QB: 128-key tiles; the next work tile's Q loads
 * right behind the current one's last V tile instead of after that
 * release), and the ping-pong runs on across work tiles
 * (attention_fa3.cuh: fa3_body_pers, fa3_produce, fa3_consume).
 * head_dim 256 stays one CTA per work tile (its Q and ring fill the shared
 * memory: one Q buffer, little to overlap).
 *  - Producer (warpgroup 0, one thread; setmaxnreg.dec to 24 registers):
 *    TMA loads of the CTA's Q tile once, then of K and V tiles of BKV keys
 *    (128 by default; 80 at head_dim 256; "Tiles and why" below),
 *    each through its own ring of 2 stages (a full and an empty mbarrier
 *    per stage: expect_tx / complete_tx for the bytes, 8 consumer-warp
 *    arrives for the release), K one tile ahead of V (K 0, K 1, V 0, K 2,
 *    V 1, ...). The tensor maps are 3-D (d, seq, batch x head), boxes of
 *    64 elements (128 bytes, the 128-byte swizzle's row) x rows x 1 head: a
 *    q or K/V tile past seq is filled with zeros by the TMA unit, within its
 *    own head.
 *  - Consumers (warpgroups 1, 2; setmaxnreg.inc to 240): 64 q rows each.
 *    S = Q K^T by wgmma in its SS form: Q and K both K-major in shared memory
 *    (rows of head_dim, contiguous along the reduction), 128-byte-swizzle
 *    descriptors (sgemm_wg_desc: SBO 1024 = 8 rows of 128 bytes), k steps of
 *    16 elements = +32 bytes along the row, a new column block every 4
 *    steps (head_dim 256: 4 column blocks, 16 k steps; S's N is the tile's
 *    BKV: m64n128, or m64n80 at head_dim 256, fa3_mma_ss). O += P V by wgmma
 *    in its RS form: P from registers (the FP32
 *    accumulator layout of S, pairs rounded to the input type, is exactly
 *    wgmma's A-fragment layout: no shuffle), V from shared memory.
 *  - V and the transpose: V is seq x d row-major, so as the B operand of
 *    P V (k = key, n = d) its n runs along the 128-byte rows and its k down
 *    them: B is "MN-major". wgmma reads an MN-major B only for 16-bit types,
 *    through the instruction's imm-trans-b = 1 (SASS: gdesc[..].tnspB) with
 *    an MN-major descriptor (gemm_wg_desc_mn, the GEMM ladder's nn layout):
 *    LBO = the bytes from one 64-column block of d to the next (one V column
 *    block: BKV key rows x 128 bytes: 16 KiB, 10 KiB at 80 keys, still a
 *    multiple of the 1024-byte swizzle period), SBO = 1024 (8 key rows of
 *    128 bytes, one swizzle atom); a k step of 16 keys moves the start 16
 *    rows = 2048 bytes; P V's N is head_dim (m64n256 spans 4 column blocks
 *    at LBO apart). (The RS form has no imm-trans-a operand: after the
 *    B descriptor come scale-d, imm-scale-a, imm-scale-b, imm-trans-b.)
 *  - Ping-pong: each consumer issues the GEMMs of a step (S j+1 = Q K j+1^T
 *    and O += P j V j) between a wait on its own named barrier and an
 *    arrive on the other's (256 threads), so the tensor core alternates
 *    between the two and one warpgroup's softmax (exp2 on the MUFU unit)
 *    runs under the other's GEMMs. Consumer 0 starts (it pre-arrives on its
 *    own barrier); the counts balance (attention_fa3.cuh, fa3_consume).
 *  - Within a warpgroup, FlashAttention-3's intra-warpgroup overlap: S j+1
 *    issued before P j V j, the softmax of S j+1 while P j V j runs
 *    (wait_group 1), then O's rescale and P j+1's packing (wait_group 0).
 *    It keeps S, O and P (64 + 64 + 32 registers at d 128) live at once:
 *    more than the launch bound's 168 registers, so it needs the consumer's
 *    setmaxnreg budget (240), which ptxas (CUDA 13.0) grants only when no
 *    __trap is reachable from the consumer's waits; with the trapping wait
 *    it serialises every wgmma (C7512). So the consumer's waits do not trap
 *    (fa3_bar_wait): one that gives up sets a flag, and the consumer traps
 *    once, after its last wgmma.
 *  - The softmax: the mask tested only in the tiles that need it (a body
 *    chosen once per tile), the scale folded into the exponent's FFMA (the
 *    running maximum kept in score units), the row maximum and sum over 4
 *    partial chains; O's rescale skipped when no row of the warp changed
 *    its maximum (the factor is then exactly 1).
 *  - Compile-time switches (attention_fa3.cuh, docs/tuning/attention.md):
 *    the schedule above is the default: FA3_SOFTMAX 1 (the softmax),
 *    FA3_QK_EARLY 2 (the overlap; 1: S j+1 issued right behind P j V j, one
 *    wait), FA3_LAZY_RESCALE 1 and ATTN_HEAD_MAJOR 1 (the grid order);
 *    -DCOMPARE_ATTENTION_DEFS="FA3_SOFTMAX=0;FA3_QK_EARLY=0;FA3_LAZY_RESCALE=0;ATTN_HEAD_MAJOR=0"
 *    builds the first, serial schedule (the softmax of S j with the mask
 *    and scale per element, O rescaled every tile, P j packed, then P j V j
 *    waited and S j+1, the consumer's waits trapping; the head fastest).
 *    Also FA3_ST 3 (rings of 3 stages), FA3_PINGPONG 0 (no ping-pong
 *    barriers) and FA3_PERSISTENT 0 (a CTA per work tile at every
 *    head_dim, the kernel before the persistent one).
 *  - Causal: the K/V loop stops at the last tile the q tile sees (the fully
 *    masked tiles are never loaded nor multiplied); only the tiles that
 *    straddle the diagonal or seq_kv test the mask (keys >= seq_kv and keys
 *    past a row's limit get -inf), fa1 / fa2's tile arithmetic.
 *  - O leaves straight from the accumulators as 32-bit pairs (no staging
 *    through shared memory and TMA yet).
 *  - The tail split (FA3_TAIL_SPLIT, persistent and not causal): where the
 *    grid's last round holds at most half a grid of work tiles, each of
 *    them is split over up to FA3_TAIL_SPLIT CTAs along its K/V tiles; each
 *    writes an FP32 partial (O, the rows' shift and sum) to the workspace
 *    (attention_fa3_workspace) and the last to finish joins them, so the
 *    SMs that would idle through the last round share its work
 *    (attention_fa3.cuh, fa3_tail_out; the launcher's fa3_tail_plan).
 *
 * Tiles and why (FA3_BKV_DC, per head_dim and causal at compile time;
 * FlashAttention-3's tiles): BQ = 128 (2 x 64: wgmma's M is 64 per
 * warpgroup) at every head_dim; BKV = 128 keys at head_dim 64 and 128, 80
 * at 256. BKV is the kernel's template parameter (attention_fa3.cuh: S's
 * wgmma is m64nBKV for any multiple of 16 to 256, fa3_mma_ss), so other
 * tiles build from the same source: FA3_BKV_D64, FA3_BKV_D128 and their
 * _CAUSAL forms pick the rung's (-DCOMPARE_ATTENTION_DEFS="FA3_BKV_D128=176":
 * the per-tile fixed work, barriers, waits, shuffles, the rescale vote,
 * spread over more keys, as FlashAttention-3 does at d 128), and the
 * candidate family `fa3` (kernels/search/attention_fa3_search.cu) builds
 * 128, 176 and 192 into one binary for `compare --candidates fa3`; the
 * launcher, a template over (type, head_dim, BKV), is attention_fa3_launch.cuh.
 * Long K/V sequences (seq_kv >= FA3_LONG_KV, default 4096) at head_dim 128
 * (and 64 under FA3_NWG_D64 2) take FA3_BKV_LONG (192) keys a tile, causal
 * or not: measured ahead of 128 there, level or behind at 2K
 * (attention_fa3.cuh).
 * Equal picks share one instance. A consumer
 * thread holds S: BKV / 2 floats, O: head_dim / 2, P: BKV / 4 registers,
 * and under the overlap (FA3_QK_EARLY 2) S j+1, O and P j are live at once:
 * 64 + 32 + 32 (d 64), 64 + 64 + 32 (d 128), 40 + 128 + 20 (d 256) of the
 * consumer's 240 registers; 128 keys at d 256 (64 + 128 + 32) would not
 * leave room for the softmax, descriptors and addresses, and Q with two
 * stages of 128-key K and V tiles would not fit the shared memory either.
 * Shared memory: Q + 2 stages of K and V = 80 KiB (d 64), 160 KiB (d 128),
 * 224 KiB (d 256: Q 64 KiB, K and V 2 x 2 x 40 KiB; the 227 KiB opt-in
 * holds it with the barriers and the 1024-byte alignment slack), one CTA
 * per SM (BKV keys: Q + 4 BKV d 2 bytes; d 128 takes up to 192 keys); the
 * persistent kernel's second Q buffer adds 24 KiB at d 64 (3 warpgroups'
 * 192 rows) and 32 KiB at d 128 (192 KiB at 128 keys; at 192 keys the ring
 * leaves no room: one buffer).
 * Consumer warpgroups (the kernel's template parameter NWG): 2 at head_dim
 * 128 and 256; 3 at head_dim 64 (FA3_NWG_D64, below; FlashAttention-3's
 * layout there: q tiles of 192 rows, 512 threads, setmaxnreg 32 / 160, the
 * ping-pong a round robin over named barriers 1-3, the empty barriers
 * counting 12 consumer-warp arrives): a third warpgroup's softmax hides the
 * dependency chains of the others' (MUFU behind FFMA, what the consumers
 * stalled on at head_dim 64 with two), at 160 registers a consumer thread,
 * which hold head_dim 64's O, S and P at K/V tiles up to 128 keys, not
 * head_dim 128's. The candidates fa3_w3_* (kernels/search/
 * attention_fa3_search.cu) time it beside the two-warpgroup tiles.
 * Ring depth 2: a stage of K and of V in flight while the other is read,
 * as FlashAttention-3 at these head dims (FA3_ST 3 does not fit at d 256).
 * Register split (64 K registers a SM, launch bound 384 x 168): producer
 * 128 x 24, consumers 256 x 240. Every head_dim builds without a
 * spill or C7512 (ptxas -v, -warn-spills; so do 176 and 192 keys at d 64
 * and d 128, whose consumer waits never trap inside, fa3_consumer_wait;
 * 256 keys at d 64 spill); d 256's switches for A/B:
 * FA3_BKV_D256 64 (smaller S and P, 192 KiB) and FA3_QK_EARLY_D256 1 or 0
 * (caps the schedule at d 256 alone: S j+1 not live beside P j).
 *
 * What it adds over fa2: asynchronous copies without thread work (TMA) from
 * a producer warp, a real ring with per-stage barriers, wgmma (a
 * warpgroup-wide asynchronous MMA reading shared memory directly: no
 * ldmatrix), two warpgroups scheduled against each other by named barriers.
 *
 * Constraints: fp16 / bf16, head_dim 64, 128 or 256, any seq_q, seq_kv >= 1,
 * 16-byte aligned tensors (attn_supports_common, shared with fa1 / fa2);
 * sm_90 (wgmma, TMA, setmaxnreg; built for sm_90a only) under the sm_90
 * policy, and a driver with cuTensorMapEncodeTiled (FA3_SOFTMAX 1, the
 * default: scale > 0 too); declined otherwise. A wait that never completes
 * traps (the producer's at once, sgemm_tma_bar_wait; a consumer's after its
 * last wgmma, fa3_bar_wait, under FA3_QK_EARLY 1 or 2).
 * Run just this: ./compare --ops attention --variants fa3 */
#include <stdio.h>

#include "attention_fa3_launch.cuh"
#include "kernel_ran.h"
#include "policy.h"

/* Consumer warpgroups at head_dim 64 (the kernel's NWG): 3 (the default,
 * q tiles of 192 rows; its K/V tiles at most 128 keys, which its consumers'
 * 160 registers hold: FA3_BKV_D64 and _CAUSAL, at every seq_kv), or 2 (q
 * tiles of 128 rows, FA3_BKV_LONG at long K/V as at head_dim 128). A
 * switch: -DCOMPARE_ATTENTION_DEFS=FA3_NWG_D64=2. Head_dim 128 and 256 take
 * 2 (their O, S and P need the 240 registers of two consumers' split). */
#ifndef FA3_NWG_D64
#define FA3_NWG_D64 3
#endif
static_assert(FA3_NWG_D64 == 2 || FA3_NWG_D64 == 3, "FA3_NWG_D64: 2 or 3 consumer warpgroups");
static_assert(FA3_NWG_D64 == 2 || (FA3_BKV_D64 <= 128 && FA3_BKV_D64_CAUSAL <= 128),
              "3 consumer warpgroups at head_dim 64: K/V tiles of at most 128 keys (larger spill at 160 registers)");
#define FA3_NWG_D(D) ((D) == 64 ? FA3_NWG_D64 : 2)
/* The softmax's and issue's options at head_dim 64 (attention_fa3.cuh,
 * FA3_SMX): none (FA3_SMX(0, 0, 0, 0), the kernel before them) by default.
 * At head_dim 128 the descriptors by addition and the early barrier test
 * (FA3_SMX_RUNG) ran ahead of it; at head_dim 64 the rung with them ran
 * behind this kernel's figures of an earlier run (docs/tuning/attention.md,
 * "fa3 softmax and issue options": two runs, not an A/B in one). A switch:
 * -DCOMPARE_ATTENTION_DEFS=FA3_SMX_D64=768 (FA3_SMX_RUNG's value) */
#ifndef FA3_SMX_D64
#define FA3_SMX_D64 FA3_SMX(0, 0, 0, 0)
#endif
#define FA3_SMX_D(D) ((D) == 64 ? FA3_SMX_D64 : FA3_SMX_RUNG)

/* [type: fp16, bf16][head_dim: 64, 128, 256][causal: 0, 1][long K/V: 0, 1]:
 * the K/V tile FA3_BKV_DC picks, or FA3_BKV_LONG at seq_kv >= FA3_LONG_KV
 * (head_dim 128, and 64 with 2 consumer warpgroups; equal picks share one
 * instance) */
#define FA3_BKV_LONG_DC(D, C)                                                                      \
    ((D) == 256 ? FA3_BKV_D256 : (D) == 64 && FA3_NWG_D64 == 3 ? FA3_BKV_DC(D, C) : FA3_BKV_LONG)
/* the rung's launcher at (T, D, K/V tile BKV): its warpgroups, Q buffers,
 * tail split and softmax options */
#define FA3_LAUNCH(T, D, BKV)                                                                      \
    attention_fa3_launch<T, D, BKV, FA3_NWG_D(D), FA3_QB(D, BKV, FA3_NWG_D(D)), FA3_TAIL_SPLIT, FA3_SMX_D(D)>
#define FA3_INST_C(T, D, C) {FA3_LAUNCH(T, D, FA3_BKV_DC(D, C)), FA3_LAUNCH(T, D, FA3_BKV_LONG_DC(D, C))}
#define FA3_INST(T, D) {FA3_INST_C(T, D, 0), FA3_INST_C(T, D, 1)}
static const attn_launch_fn attention_fa3_instances[2][3][2][2] = {
    {FA3_INST(__half, 64), FA3_INST(__half, 128), FA3_INST(__half, 256)},
    {FA3_INST(__nv_bfloat16, 64), FA3_INST(__nv_bfloat16, 128), FA3_INST(__nv_bfloat16, 256)}};
#define FA3_STR_(x) #x
#define FA3_STR(x) FA3_STR_(x)
/* names: fa3_<q rows>x<keys>_d<head_dim> */
#if FA3_NWG_D64 == 3
#define FA3_Q64 "fa3_192x"
#define FA3_NAME_LONG64(C) FA3_Q64 FA3_STR(FA3_BKV_D64##C) "_d64"
#else
#define FA3_Q64 "fa3_128x"
#define FA3_NAME_LONG64(C) "fa3_128x" FA3_STR(FA3_BKV_LONG) "_d64"
#endif
#define FA3_NAME_LONG(D) "fa3_128x" FA3_STR(FA3_BKV_LONG) "_d" #D
static const char *const attention_fa3_names[3][2][2] = {
    {{FA3_Q64 FA3_STR(FA3_BKV_D64) "_d64", FA3_NAME_LONG64()},
     {FA3_Q64 FA3_STR(FA3_BKV_D64_CAUSAL) "_d64", FA3_NAME_LONG64(_CAUSAL)}},
    {{"fa3_128x" FA3_STR(FA3_BKV_D128) "_d128", FA3_NAME_LONG(128)},
     {"fa3_128x" FA3_STR(FA3_BKV_D128_CAUSAL) "_d128", FA3_NAME_LONG(128)}},
    {{"fa3_128x" FA3_STR(FA3_BKV_D256) "_d256", "fa3_128x" FA3_STR(FA3_BKV_D256) "_d256"},
     {"fa3_128x" FA3_STR(FA3_BKV_D256) "_d256", "fa3_128x" FA3_STR(FA3_BKV_D256) "_d256"}}};

extern "C" int attention_fa3_supports(const attention_args *a, char *why, size_t why_len)
{
    if (!attn_supports_common("attention_fa3", a, why, why_len))
        return 0;
    if (FA3_SOFTMAX && !(a->scale > 0.0f)) { /* its maximum is taken before the scale */
        snprintf(why, why_len, "attention_fa3: FA3_SOFTMAX=1 needs scale > 0");
        return 0;
    }
    if (policy_arch_current() != POLICY_ARCH_90) {
        snprintf(why, why_len, "attention_fa3: needs sm_90 (wgmma, TMA; built for sm_90a) under the sm_90 policy");
        return 0;
    }
    if (!sgemm_tma_encoder()) {
        snprintf(why, why_len, "attention_fa3: the driver has no cuTensorMapEncodeTiled");
        return 0;
    }
    return 1;
}

extern "C" size_t attention_fa3_workspace(const attention_args *a)
{
    if (a->head_dim == 64)
        return fa3_tail_workspace<64, FA3_NWG_D(64)>(a, FA3_TAIL_SPLIT);
    return a->head_dim == 128 ? fa3_tail_workspace<128, 2>(a, FA3_TAIL_SPLIT) : 0;
}

extern "C" int attention_fa3_tail_split(const attention_args *a)
{
    const int lg = FA3_LONG_KV > 0 && a->seq_kv >= FA3_LONG_KV;
    if (a->causal)
        return 0;
    if (a->head_dim == 64)
        return fa3_tail_split_of<64, FA3_NWG_D(64)>(a, lg ? FA3_BKV_LONG_DC(64, 0) : FA3_BKV_DC(64, 0),
                                                    FA3_TAIL_SPLIT);
    return a->head_dim == 128
               ? fa3_tail_split_of<128, 2>(a, lg ? FA3_BKV_LONG_DC(128, 0) : FA3_BKV_DC(128, 0), FA3_TAIL_SPLIT)
               : 0;
}

extern "C" int attention_fa3(const attention_args *a, cudaStream_t s)
{
    char why[256];
    if (!attention_fa3_supports(a, why, sizeof why))
        return (int)cudaErrorNotSupported;
    const int di = attn_dim_index(a->head_dim);
    const int c = a->causal ? 1 : 0;
    const int lg = FA3_LONG_KV > 0 && a->seq_kv >= FA3_LONG_KV;
    kernel_ran_note(attention_fa3_names[di][c][lg], NULL);
    return attention_fa3_instances[a->type == ELEM_FP16 ? 0 : 1][di][c][lg](a, s);
}
