/* kernels/attention_fa3.cuh: the device side of the rung fa3
 * (kernels/attention_fa3.cu: the idea, tiles, constraints; the launcher:
 * attention_fa3_launch.cuh): the kernel template over (type, head_dim, K/V
 * tile BKV, consumer warpgroups NWG: 2 by default, 3 for the rung at head_dim
 * 64 and the candidates fa3_w3_*), its producer and its consumer warpgroups, and the
 * instructions the GEMM ladder's Hopper helpers do not have yet:
 *   - the 3-D tiled TMA load (d, seq, batch x head): a box past seq reads
 *     zeros of its own head, never the next head's rows;
 *   - wgmma in its RS form for 16-bit types with B transposed (O += P V:
 *     P from registers, V MN-major from shared memory);
 *   - the SS wgmma for S at N = BKV, any multiple of 16 to 256 (fa3_mma_ss,
 *     FA3_SS_CASE's operand lists).
 * Everything else is reused: the mbarrier / named-barrier / 2-D TMA PTX
 * (sgemm_tf32_tma_ptx.cuh), wgmma fence / commit / wait and the K-major
 * descriptor (sgemm_wgmma_common.cuh), the SS wgmma and the MN-major
 * descriptor (gemm_wgmma_mma.cuh), the tile arithmetic, mask, exp2 and
 * shift rules of fa1 / fa2 (attention_common.cuh).
 *
 * Compiled for sm_90a only (CMakeLists.txt's sm_90a list); the kernel's body
 * is guarded by __CUDA_ARCH_FEAT_SM90_ALL, so any other pass (a plain sm_90,
 * sm_80, compute_80 PTX) compiles it empty, and the launcher never runs it
 * there (attention_fa3_supports declines off the sm_90 policy). */
#ifndef KERNELS_ATTENTION_FA3_CUH
#define KERNELS_ATTENTION_FA3_CUH

#include <cuda.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "attention_common.cuh"
#include "elem_type.h"
#include "gemm_wgmma_mma.cuh"
#include "sgemm_tf32_tma_ptx.cuh"
#include "sgemm_wgmma_common.cuh"
#include "smem.cuh"

/* NWG: consumer warpgroups a CTA, the kernel's template parameter (2, the
 * default and the rung's at head_dim 128 and 256; 3: FlashAttention-3's at
 * head_dim 64, the rung's there (FA3_NWG_D64, attention_fa3.cu) and the
 * candidates fa3_w3_*, kernels/search/attention_fa3_search.cu), 64 q rows
 * each (wgmma's M) */
#define FA3_BQ_W(NWG) (64 * (NWG))        /* q rows a CTA: NWG consumer warpgroups of 64 rows */
#define FA3_BQ FA3_BQ_W(2)
/* keys a K/V tile: 128 at head_dim 64 and 128; FA3_BKV_D256 at head_dim
 * 256 (80, FlashAttention-3's: a consumer thread's 128 O accumulators
 * leave room under 240 registers for S (40) and P (20) of an 80-key tile,
 * not for those of a 128-key one; and Q + 2 stages of 80-key K and V fit
 * the 227 KiB opt-in). A switch: -DCOMPARE_ATTENTION_DEFS=FA3_BKV_D256=64
 * (m64n64 for S, 192 KiB); 64, 80 or 128 (128: too much shared memory) */
#ifndef FA3_BKV_D256
#define FA3_BKV_D256 80
#endif
/* keys a K/V tile at head_dim 64 and 128, without and with the causal mask
 * (default 128 each: m64n128 for S); a multiple of 16 from 64 to 256 whose
 * ring fits the shared memory (the launcher's static_assert) and whose S (BKV
 * / 2 floats) and P (BKV / 4) leave the consumer no spill (ptxas -v). FlashAttention-3
 * takes larger tiles at these head dims (176 keys at d 128 non-causal):
 * fewer per-tile fixed costs (barriers, waits, the row maximum's shuffles,
 * O's rescale) per GEMM. Switches, e.g.
 * -DCOMPARE_ATTENTION_DEFS="FA3_BKV_D128=176;FA3_BKV_D64=192"
 * (FA3_BKV_D64_CAUSAL, FA3_BKV_D128_CAUSAL likewise); the candidate family
 * `fa3` (kernels/search/attention_fa3_search.cu) times several in one build */
#ifndef FA3_BKV_D64
#define FA3_BKV_D64 128
#endif
#ifndef FA3_BKV_D64_CAUSAL
#define FA3_BKV_D64_CAUSAL 128
#endif
#ifndef FA3_BKV_D128
#define FA3_BKV_D128 128
#endif
#ifndef FA3_BKV_D128_CAUSAL
#define FA3_BKV_D128_CAUSAL 128
#endif
/* long K/V sequences (seq_kv >= FA3_LONG_KV) at head_dim 64 and 128: K/V
 * tiles of FA3_BKV_LONG keys instead (causal or not). A larger tile spreads
 * the per-tile fixed costs over more keys but wastes more of a partial last
 * tile and of the causal diagonal's, and a work tile's fixed start and end
 * weigh more at short sequences: the candidate family `fa3` (k128, k176,
 * k192) measured 192 keys ahead at 4K, 8K and 16K and level or behind at 2K
 * (docs/tuning/attention.md, "fa3 K/V tiles"). FA3_LONG_KV 0: never */
#ifndef FA3_BKV_LONG
#define FA3_BKV_LONG 192
#endif
#ifndef FA3_LONG_KV
#define FA3_LONG_KV 4096
#endif
/* the K/V tile of head_dim D (causal C: 0 or 1), the launcher's pick */
#define FA3_BKV_DC(D, C)                                                                           \
    ((D) == 256 ? FA3_BKV_D256                                                                     \
                : (D) == 128 ? ((C) ? FA3_BKV_D128_CAUSAL : FA3_BKV_D128)                          \
                             : ((C) ? FA3_BKV_D64_CAUSAL : FA3_BKV_D64))
#ifndef FA3_ST
#define FA3_ST 2                          /* ring depth: stages of K, and of V (switch: 3 fits too; d 256: 2) */
#endif
#define FA3_THREADS_W(NWG) (128 * ((NWG) + 1)) /* producer warpgroup + NWG consumer warpgroups */
#define FA3_THREADS FA3_THREADS_W(2)
#define FA3_ROW 128                       /* bytes of a swizzled row: 64 16-bit elements */
/* the ring depth at head_dim D: FA3_ST, but 2 at 256 (3 stages of 80-key K
 * and V tiles and Q exceed the shared memory) */
#define FA3_STAGES(D) ((D) == 256 ? 2 : FA3_ST)
/* FA3_PERSISTENT 1 (the default): at head_dim 64 and 128 the kernel is
 * persistent (attention_fa3.cu: one CTA per SM, each looping over work tiles
 * in the grid's order, the K/V rings' stages counted across its tiles, Q
 * released by an empty barrier of its own); 0, or head_dim 256 (whose Q and
 * ring fill the shared memory: no overlap to gain from a single Q buffer
 * beyond the launch), one CTA per work tile:
 * -DCOMPARE_ATTENTION_DEFS=FA3_PERSISTENT=0 */
#ifndef FA3_PERSISTENT
#define FA3_PERSISTENT 1
#endif
#define FA3_PERS(D) (FA3_PERSISTENT && (D) != 256)
/* causal: persistent rounds only with at least this many heads (batch x
 * heads) and at most this many q tiles a head (attention_fa3.cu's grid:
 * where the static snake of unequal causal work tiles balances the CTAs at
 * least as well as the hardware's order of one CTA per work tile, by a
 * model of the work tiles' K/V counts; outside it the persistent kernel runs
 * one work tile per CTA) */
#ifndef FA3_PERS_CAUSAL_MIN_BH
#define FA3_PERS_CAUSAL_MIN_BH 32
#endif
#ifndef FA3_PERS_CAUSAL_MAX_QT
#define FA3_PERS_CAUSAL_MAX_QT 64
#endif
/* full K, full V, empty K, empty V per stage; full Q and (persistent)
 * empty Q per Q buffer (room for 2 of each, used or not) */
#define FA3_NBARS(D) (4 * FA3_STAGES(D) + 4)
/* QB Q buffers, ST stages of K and of V (tiles of BKV keys, 16-bit
 * elements), the barriers, + 1024: the base is rounded up to a 1024-byte
 * boundary (the 128-byte swizzle's period) */
#define FA3_SMEM_QB(D, BKV, NWG, QB) \
    (((QB) * FA3_BQ_W(NWG) + 2 * FA3_STAGES(D) * (BKV)) * (D) * 2 + 8 * FA3_NBARS(D) + 1024)
/* Q buffers of the persistent kernel (FA3_QBUF 2, the default): two where
 * they fit one CTA per SM beside the ring, so that the producer loads the
 * next work tile's Q (and its first K tile) as soon as it has issued the
 * current one's last V tile, a K/V step or two ahead, instead of after the
 * consumers' release of the one buffer at the start of their last step,
 * which leaves Q's DRAM latency about one P V and O's store to hide. 1:
 * one buffer (the kernel before; head_dim 128 at 192-key tiles, whose ring
 * leaves no room for a second, and every non-persistent kernel). A switch:
 * -DCOMPARE_ATTENTION_DEFS=FA3_QBUF=1 */
#ifndef FA3_QBUF
#define FA3_QBUF 2
#endif
#define FA3_QB(D, BKV, NWG) \
    (FA3_PERS(D) && FA3_QBUF >= 2 && SMEM_SM90_FITS(FA3_SMEM_QB(D, BKV, NWG, 2), 1) ? 2 : 1)
#define FA3_SMEM_W(D, BKV, NWG) FA3_SMEM_QB(D, BKV, NWG, FA3_QB(D, BKV, NWG))
#define FA3_SMEM(D, BKV) FA3_SMEM_W(D, BKV, 2)
/* named barriers 1 .. NWG: the ping-pong of consumers 0 .. NWG - 1 (0 is
 * __syncthreads'; ids stay below 16) */
#define FA3_SCHED_BAR 1
/* 0 drops the ping-pong's named barriers (the consumers then issue
 * independently): a switch for bisecting a hang or a wrong result,
 * -DCOMPARE_KERNEL_DEFS=FA3_PINGPONG=0; the barriers are the default */
#ifndef FA3_PINGPONG
#define FA3_PINGPONG 1
#endif
/* The tuning switches (docs/tuning/attention.md). The default is
 * FA3_SOFTMAX 1, FA3_QK_EARLY 2, FA3_LAZY_RESCALE 1, FA3_ST 2 (the schedule
 * described in attention_fa3.cu); each set to 0 turns it off, all three at
 * 0 build the serial schedule without them (ATTN_HEAD_MAJOR, the grid order,
 * is attention_common.cuh's):
 * -DCOMPARE_ATTENTION_DEFS="FA3_SOFTMAX=0;FA3_QK_EARLY=0;FA3_LAZY_RESCALE=0"
 * (CMakeLists.txt: the attention files only; COMPARE_KERNEL_DEFS works too):
 *  - FA3_SOFTMAX 1: the softmax without per-element branches (the mask test
 *    only in the tiles that need it, chosen once per tile), the scale folded
 *    into the exponent (one FFMA + one ex2 an element: the running maximum
 *    kept in score units; scale > 0, else attention_fa3_supports declines),
 *    the row maximum and sum over 4 independent partial chains each (0:
 *    fa3_softmax, the mask test and the scale per element, one chain of
 *    BKV / 4 dependent operations);
 *  - FA3_QK_EARLY 1: S j+1 = Q K j+1^T issued right behind O += P j V j
 *    (P's registers and S's distinct: the loop carries P, not S), then one
 *    wait for both, so the tensor core does not drain between the two GEMMs
 *    (V's stage is released after S j+1, not before it is issued);
 *    FA3_QK_EARLY 2: FlashAttention-3's intra-warpgroup overlap on top: S
 *    j+1 issued first, P j V j behind it, the softmax of S j+1 while P j V j
 *    runs (wait_group 1), O's rescale and P's packing after it (wait_group
 *    0). Both use the consumer wait without a trap (fa3_bar_wait);
 *    FA3_QK_EARLY 0: P j V j waited, then S j+1 issued and waited (the
 *    consumer's waits trap: sgemm_tma_bar_wait);
 *  - FA3_LAZY_RESCALE 1: O's rescale skipped when no row of the warp changed
 *    its maximum (the factor is then exactly 1: the same result);
 *  - FA3_ST 3 (default 2): a third stage in the K and V rings (225 KiB of
 *    shared memory at head_dim 128: still one CTA an SM), loads issued a tile
 *    earlier; head_dim 256 keeps 2 (FA3_STAGES: a third does not fit);
 *  - FA3_BKV_D256 and FA3_QK_EARLY_D256: head_dim 256's K/V tile and its
 *    cap on FA3_QK_EARLY (below). */
#ifndef FA3_SOFTMAX
#define FA3_SOFTMAX 1
#endif
#ifndef FA3_QK_EARLY
#define FA3_QK_EARLY 2
#endif
#ifndef FA3_LAZY_RESCALE
#define FA3_LAZY_RESCALE 1
#endif
/* The softmax's and the issue's options, the kernel's template parameter
 * SMX (FA3_SMX; the rung's: FA3_SMX_RUNG at head_dim 128 and 256,
 * FA3_SMX_D64 at 64, attention_fa3.cu; the candidates fa3_s0_*,
 * fa3_dr_k128 and fa3_e3_k128 of kernels/search/attention_fa3_search.cu
 * time others in one binary; measured: docs/tuning/attention.md, "fa3
 * softmax and issue options"):
 *  - bit 9, TEST (FA3_EARLY_TEST, default 1): under FA3_QK_EARLY 2, the
 *    next step's full barriers (V j+1, K j+2) tested without blocking
 *    (sgemm_tma_bar_test: mbarrier.test_wait) right behind this step's GEMMs' issue, where the
 *    test's latency hides under the wait for S j+1, instead of waited at
 *    the loop's top, in the chain from P j V j's end to the next issue; the
 *    blocking wait at the loop's top runs only for a barrier not yet
 *    complete at the test (a completed phase stays completed until this
 *    consumer releases the stage);
 *  - bit 8, DESC (FA3_DESC_ADD, default 1): the wgmma descriptors of a step
 *    formed as a base descriptor plus the byte offset / 16 (one add each:
 *    the address field is 14 bits of a shared address / 16, no carry out
 *    of it) instead of masking and shifting each address (four dependent
 *    uniform instructions) inside the ping-pong's turn, where the other
 *    warpgroup waits for this one's GEMMs to be issued;
 *  - bits 4-7, THR (FA3_RESCALE_THRESH, log2 units, default 0): O and l
 *    rescaled only when a row's maximum grows by more than THR exponent
 *    units (FlashAttention-4's conditional rescale): below it the row keeps
 *    its old shift, its exponentials reach at most 2^THR (exact in FP32,
 *    within the 16-bit types' range up to 15), and the result is the same
 *    softmax (the shift cancels in O / l). 0: rescale whenever the maximum
 *    moves (FA3_LAZY_RESCALE's rule alone). Measured slower here: off;
 *  - bits 0-3, POLY (FA3_EXP_POLY, default 0): of every 8 exponentials of a
 *    row in a tile without the mask, POLY computed on the FMA pipe by a
 *    polynomial (fa3_exp2_poly) instead of MUFU.EX2 (16 lanes an SM: a
 *    warp instruction every 8 cycles a scheduler), FlashAttention-4's split
 *    of the exponentials between the pipes; masked tiles keep MUFU (a masked
 *    key must give exactly 0). Each costs 8 or 9 issue slots for one:
 *    measured slower here (the consumer's softmax is bound by its issue and
 *    dependency chains more than by the MUFU unit): off. */
#ifndef FA3_EXP_POLY
#define FA3_EXP_POLY 0
#endif
#ifndef FA3_RESCALE_THRESH
#define FA3_RESCALE_THRESH 0
#endif
#ifndef FA3_DESC_ADD
#define FA3_DESC_ADD 1
#endif
#ifndef FA3_EARLY_TEST
#define FA3_EARLY_TEST 1
#endif
#define FA3_SMX(POLY, THR, DESC, TEST) ((POLY) | ((THR) << 4) | ((DESC) << 8) | ((TEST) << 9))
#define FA3_SMX_POLY(X) ((X) & 15)
#define FA3_SMX_THR(X) (((X) >> 4) & 15)
#define FA3_SMX_DESC(X) (((X) >> 8) & 1)
#define FA3_SMX_TEST(X) (((X) >> 9) & 1)
#define FA3_SMX_RUNG FA3_SMX(FA3_EXP_POLY, FA3_RESCALE_THRESH, FA3_DESC_ADD, FA3_EARLY_TEST)
static_assert(FA3_EXP_POLY >= 0 && FA3_EXP_POLY <= 8, "FA3_EXP_POLY: 0 .. 8 of every 8 exponentials");
static_assert(FA3_RESCALE_THRESH >= 0 && FA3_RESCALE_THRESH <= 15, "FA3_RESCALE_THRESH: 0 .. 15 (2^15 fits fp16)");

/* head_dim 256's cap on FA3_QK_EARLY (default 2: no cap, the overlap, whose
 * S j+1, P j and 128 O accumulators fit the consumer's 240 registers at 80-
 * and 64-key tiles without a spill or C7512; 1 or 0: a schedule that keeps
 * fewer of them live, a switch for comparing; either way head_dim 256's
 * consumer waits never trap inside, fa3_consumer_wait) */
#ifndef FA3_QK_EARLY_D256
#define FA3_QK_EARLY_D256 2
#endif
/* FA3_QK_EARLY as head_dim D's schedule runs it */
#define FA3_EARLY(D) ((D) == 256 && FA3_QK_EARLY > FA3_QK_EARLY_D256 ? FA3_QK_EARLY_D256 : FA3_QK_EARLY)
/* setmaxnreg split (FlashAttention-3's): NWG 2: 128 x 24 + 256 x 240 = 384
 * x 168, the launch bound's budget; NWG 3: 128 x 32 + 384 x 160 = 512 x
 * 128 = 65536, the whole register file (multiples of 8) */
#define FA3_REGS_PRODUCER_W(NWG) ((NWG) == 2 ? 24 : 32)
#define FA3_REGS_CONSUMER_W(NWG) ((NWG) == 2 ? 240 : 160)
#define FA3_REGS_PRODUCER FA3_REGS_PRODUCER_W(2)
#define FA3_REGS_CONSUMER FA3_REGS_CONSUMER_W(2)

/* The tail split (FA3_TAIL_SPLIT, default 4; the persistent kernel without
 * the causal mask): a grid of G CTAs takes T work tiles in ceil(T / G)
 * rounds, and a last round of r < G tiles leaves G - r SMs idle for a whole
 * work tile's time (at 8 x 32 x 2K on 132 SMs: 4096 tiles, 31 full rounds
 * and 4 tiles in a 32nd round). Where r <= G / 2, each of those r work
 * tiles is split over s = min(FA3_TAIL_SPLIT, G / r, its K/V tiles) CTAs, a
 * run of K/V tiles each: each writes its unnormalised O, its rows' shift
 * and sum (FP32) to the workspace, and the last of the s to finish (a
 * counter per work tile) joins them into O, as split-K/V ("flash decoding")
 * does. 0 or 1: no split. A switch:
 * -DCOMPARE_ATTENTION_DEFS=FA3_TAIL_SPLIT=0; the candidates fa3_nt_k128,
 * fa3_t4_k128 and fa3_t8_k128 run 0, 4 and 8 in one binary (measured:
 * docs/tuning/attention.md, "fa3 tail split"). */
#ifndef FA3_TAIL_SPLIT
#define FA3_TAIL_SPLIT 4
#endif
/* floats of one chunk's partial in the workspace: O (BQ rows x D), then the
 * rows' base-2 shifts, then their sums */
#define FA3_TAIL_SLOT(D, NWG) (FA3_BQ_W(NWG) * (D) + 2 * FA3_BQ_W(NWG))
/* the workspace of a grid of `sms` CTAs: a slot per CTA (r s <= G), then a
 * counter per tail work tile (r <= G) */
#define FA3_TAIL_BYTES(D, NWG, SMS) ((size_t)(SMS) * (FA3_TAIL_SLOT(D, NWG) * 4 + 4))

/* The kernel's one parameter: the three tensor maps (3-D: d, seq, batch x
 * head; boxes 64 x BQ or 64 x BKV, 128-byte swizzle, zero fill), fa1 /
 * fa2's arguments (scale, sizes, grid order) and the tail split's: split
 * (s; <= 1: none), tail0 (the last round's first block index: (rounds - 1)
 * G), ws (the slots: tail work tile i's chunk c in slot i s + c) and cnt
 * (a counter per tail work tile, zero between launches: the last chunk
 * resets it). */
typedef struct {
    CUtensorMap tq, tk, tv;
    attn_params p;
    int split;
    unsigned tail0;
    float *ws;
    unsigned *cnt;
} fa3_params;

/* the elem_type of a 16-bit element type (what gemm_wg_mma takes) */
template <typename T> struct fa3_elem;
template <> struct fa3_elem<__half> {
    enum { et = ELEM_FP16 };
};
template <> struct fa3_elem<__nv_bfloat16> {
    enum { et = ELEM_BF16 };
};

// ---- the two new instructions --------------------------------------------------------

/* The SS wgmma's accumulator operands for any N: FA3_DSTR_K / FA3_DOPS_K,
 * the first 8 K operands "%0, .., %(8 K - 1)" and their "+f" bindings
 * d[0 .. 8 K) (an m64nN tile: N / 2 = 8 K floats a thread) */
#define FA3_DSTR_1 "%0, %1, %2, %3, %4, %5, %6, %7"
#define FA3_DSTR_2 FA3_DSTR_1 ", %8, %9, %10, %11, %12, %13, %14, %15"
#define FA3_DSTR_3 FA3_DSTR_2 ", %16, %17, %18, %19, %20, %21, %22, %23"
#define FA3_DSTR_4 FA3_DSTR_3 ", %24, %25, %26, %27, %28, %29, %30, %31"
#define FA3_DSTR_5 FA3_DSTR_4 ", %32, %33, %34, %35, %36, %37, %38, %39"
#define FA3_DSTR_6 FA3_DSTR_5 ", %40, %41, %42, %43, %44, %45, %46, %47"
#define FA3_DSTR_7 FA3_DSTR_6 ", %48, %49, %50, %51, %52, %53, %54, %55"
#define FA3_DSTR_8 FA3_DSTR_7 ", %56, %57, %58, %59, %60, %61, %62, %63"
#define FA3_DSTR_9 FA3_DSTR_8 ", %64, %65, %66, %67, %68, %69, %70, %71"
#define FA3_DSTR_10 FA3_DSTR_9 ", %72, %73, %74, %75, %76, %77, %78, %79"
#define FA3_DSTR_11 FA3_DSTR_10 ", %80, %81, %82, %83, %84, %85, %86, %87"
#define FA3_DSTR_12 FA3_DSTR_11 ", %88, %89, %90, %91, %92, %93, %94, %95"
#define FA3_DSTR_13 FA3_DSTR_12 ", %96, %97, %98, %99, %100, %101, %102, %103"
#define FA3_DSTR_14 FA3_DSTR_13 ", %104, %105, %106, %107, %108, %109, %110, %111"
#define FA3_DSTR_15 FA3_DSTR_14 ", %112, %113, %114, %115, %116, %117, %118, %119"
#define FA3_DOPS_1(d) GEMM_WG_D8_OPS(d, 0)
#define FA3_DOPS_2(d) FA3_DOPS_1(d), GEMM_WG_D8_OPS(d, 8)
#define FA3_DOPS_3(d) FA3_DOPS_2(d), GEMM_WG_D8_OPS(d, 16)
#define FA3_DOPS_4(d) FA3_DOPS_3(d), GEMM_WG_D8_OPS(d, 24)
#define FA3_DOPS_5(d) FA3_DOPS_4(d), GEMM_WG_D8_OPS(d, 32)
#define FA3_DOPS_6(d) FA3_DOPS_5(d), GEMM_WG_D8_OPS(d, 40)
#define FA3_DOPS_7(d) FA3_DOPS_6(d), GEMM_WG_D8_OPS(d, 48)
#define FA3_DOPS_8(d) FA3_DOPS_7(d), GEMM_WG_D8_OPS(d, 56)
#define FA3_DOPS_9(d) FA3_DOPS_8(d), GEMM_WG_D8_OPS(d, 64)
#define FA3_DOPS_10(d) FA3_DOPS_9(d), GEMM_WG_D8_OPS(d, 72)
#define FA3_DOPS_11(d) FA3_DOPS_10(d), GEMM_WG_D8_OPS(d, 80)
#define FA3_DOPS_12(d) FA3_DOPS_11(d), GEMM_WG_D8_OPS(d, 88)
#define FA3_DOPS_13(d) FA3_DOPS_12(d), GEMM_WG_D8_OPS(d, 96)
#define FA3_DOPS_14(d) FA3_DOPS_13(d), GEMM_WG_D8_OPS(d, 104)
#define FA3_DOPS_15(d) FA3_DOPS_14(d), GEMM_WG_D8_OPS(d, 112)
/* one SS wgmma m64nN (N = 16 K) of 16-bit type ET: the K accumulator blocks,
 * then the descriptors da, db as operands %(8 K) (DA) and %(8 K + 1) (DB);
 * scale-d 1, imm-scale-a 1, imm-scale-b 1, both K-major (trans 0) */
#define FA3_SS_CASE(N, K, DA, DB)                                                                  \
    if constexpr (N_ == N) {                                                                       \
        if constexpr (ET == ELEM_FP16)                                                             \
            asm volatile(GEMM_WG_SHAPE_F16(N) "{" FA3_DSTR_##K "}, %" #DA ", %" #DB ", 1, 1, 1, 0, 0;\n" \
                         : FA3_DOPS_##K(d) : "l"(da), "l"(db) : "memory");                         \
        else                                                                                       \
            asm volatile(GEMM_WG_SHAPE_BF16(N) "{" FA3_DSTR_##K "}, %" #DA ", %" #DB ", 1, 1, 1, 0, 0;\n" \
                         : FA3_DOPS_##K(d) : "l"(da), "l"(db) : "memory");                         \
        return;                                                                                    \
    }

/* 3-D tiled TMA load of the box at (c0 inner, c1, c2) into shared `dst`,
 * completing `bar`'s transaction count (sgemm_tma_load's 3-D form) */
static __device__ __forceinline__ void fa3_tma_load_3d(unsigned dst, const CUtensorMap *map, int c0, int c1, int c2,
                                                       unsigned bar)
{
    asm volatile("cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
                 " [%0], [%1, {%2, %3, %4}], [%5];\n"
                 :: "r"(dst), "l"((unsigned long long)(uintptr_t)map), "r"(c0), "r"(c1), "r"(c2), "r"(bar)
                 : "memory");
}

/* D[64 x N] += A[64 x 16] B[16 x N], both K-major in shared memory (the
 * SS form, by descriptor), N = the K/V tile's keys: gemm_wg_mma for N 64,
 * 128 and 256, every other multiple of 16 from 80 to 240 here
 * (FA3_SS_CASE: N / 2 accumulators a thread) */
template <int ET, int N_>
static __device__ __forceinline__ void fa3_mma_ss(float *d, unsigned long long da, unsigned long long db)
{
    static_assert(ET == ELEM_FP16 || ET == ELEM_BF16, "16-bit types");
    static_assert(N_ % 16 == 0 && N_ >= 64 && N_ <= 256, "S's N: a multiple of 16 from 64 to 256");
    if constexpr (N_ == 64 || N_ == 128 || N_ == 256) {
        gemm_wg_mma<ET, N_, 0>(d, da, db);
        return;
    }
    FA3_SS_CASE(80, 5, 40, 41)
    FA3_SS_CASE(96, 6, 48, 49)
    FA3_SS_CASE(112, 7, 56, 57)
    FA3_SS_CASE(144, 9, 72, 73)
    FA3_SS_CASE(160, 10, 80, 81)
    FA3_SS_CASE(176, 11, 88, 89)
    FA3_SS_CASE(192, 12, 96, 97)
    FA3_SS_CASE(208, 13, 104, 105)
    FA3_SS_CASE(224, 14, 112, 113)
    FA3_SS_CASE(240, 15, 120, 121)
}

/* D[64 x N] += A[64 x 16] B[16 x N]: A from 4 registers (16-bit pairs, the
 * m16n8k16 A-fragment layout per warp: rows 16 w + g, + 8, columns 2 t, + 1,
 * + 8), B by descriptor, MN-major (imm-trans-b = 1: B's N runs along the
 * 128-byte rows, its k down them). The RS form has no imm-trans-a: after
 * b-desc come scale-d, imm-scale-a, imm-scale-b, imm-trans-b. */
template <int ET, int N>
static __device__ __forceinline__ void fa3_mma_rs_tb(float *d, const unsigned *a, unsigned long long db)
{
    static_assert(ET == ELEM_FP16 || ET == ELEM_BF16, "the transpose exists for 16-bit types only");
    static_assert(N == 64 || N == 128 || N == 256, "N = head_dim: 64, 128 or 256");
    if constexpr (N == 256) {
        if constexpr (ET == ELEM_FP16)
            asm volatile(GEMM_WG_SHAPE_F16(256) GEMM_WG_D128_STR ", {%128, %129, %130, %131}, %132, 1, 1, 1, 1;\n"
                         : GEMM_WG_D128_OPS(d) : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(db) : "memory");
        else
            asm volatile(GEMM_WG_SHAPE_BF16(256) GEMM_WG_D128_STR ", {%128, %129, %130, %131}, %132, 1, 1, 1, 1;\n"
                         : GEMM_WG_D128_OPS(d) : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(db) : "memory");
    } else if constexpr (N == 128) {
        if constexpr (ET == ELEM_FP16)
            asm volatile(GEMM_WG_SHAPE_F16(128) GEMM_WG_D64_STR ", {%64, %65, %66, %67}, %68, 1, 1, 1, 1;\n"
                         : GEMM_WG_D64_OPS(d) : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(db) : "memory");
        else
            asm volatile(GEMM_WG_SHAPE_BF16(128) GEMM_WG_D64_STR ", {%64, %65, %66, %67}, %68, 1, 1, 1, 1;\n"
                         : GEMM_WG_D64_OPS(d) : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(db) : "memory");
    } else {
        if constexpr (ET == ELEM_FP16)
            asm volatile(GEMM_WG_SHAPE_F16(64) GEMM_WG_D32_STR ", {%32, %33, %34, %35}, %36, 1, 1, 1, 1;\n"
                         : GEMM_WG_D32_OPS(d, 0) : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(db) : "memory");
        else
            asm volatile(GEMM_WG_SHAPE_BF16(64) GEMM_WG_D32_STR ", {%32, %33, %34, %35}, %36, 1, 1, 1, 1;\n"
                         : GEMM_WG_D32_OPS(d, 0) : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(db) : "memory");
    }
}

// ---- shared memory and barriers ------------------------------------------------------

/* Where things sit (shared addresses): Q buffer b (of FA3_QB) as D / 64
 * column blocks of BQ rows x 128 bytes; stage s of K (and of V) as D / 64
 * column blocks of BKV rows x 128 bytes; barriers: full K[ST], full V[ST],
 * empty K[ST], empty V[ST], full Q[2], then (FA3_PERS(D)) empty Q[2]. q and
 * qsel: the Q buffer of the work tile at hand and its index (the persistent
 * body sets both per work tile; bar_q and empty_q are that buffer's). */
template <int D, int BKV_, int NWG = 2>
struct fa3_smem {
    static_assert(BKV_ % 16 == 0 && BKV_ >= 64 && BKV_ <= 256,
                  "BKV: a multiple of 16 (P V's k step, the swizzle's 8-row atom) up to 256 (a TMA box's rows)");
    static_assert(NWG == 2 || NWG == 3, "NWG: 2 or 3 consumer warpgroups (Q's box: 64 NWG <= 256 rows)");
    enum {
        BKV = BKV_,
        QBLK = FA3_BQ_W(NWG) * FA3_ROW, /* bytes of a Q column block */
        KVBLK = BKV * FA3_ROW,    /* bytes of a K or V column block */
        QBYTES = QBLK * (D / 64),
        KVBYTES = KVBLK * (D / 64) /* one stage of K or V */
    };
    unsigned q, k, v, bars, qsel;
    __device__ __forceinline__ unsigned full_k(int s) const { return bars + 8 * s; }
    __device__ __forceinline__ unsigned full_v(int s) const { return bars + 8 * (FA3_STAGES(D) + s); }
    __device__ __forceinline__ unsigned empty_k(int s) const { return bars + 8 * (2 * FA3_STAGES(D) + s); }
    __device__ __forceinline__ unsigned empty_v(int s) const { return bars + 8 * (3 * FA3_STAGES(D) + s); }
    __device__ __forceinline__ unsigned bar_q() const { return bars + 8 * (4 * FA3_STAGES(D) + qsel); }
    /* FA3_PERS(D): Q's release (4 NWG consumer-warp arrives a tile) */
    __device__ __forceinline__ unsigned empty_q() const { return bars + 8 * (4 * FA3_STAGES(D) + 2 + qsel); }
    /* this layout with Q buffer b (of FA3_QB) as the one at hand (q and qsel
     * set from the first buffer's address, the one the kernel keeps in q) */
    __device__ __forceinline__ fa3_smem with_q(unsigned b) const
    {
        fa3_smem r = *this;
        r.qsel = b;
        r.q = q + b * QBYTES;
        return r;
    }
};

// ---- producer --------------------------------------------------------------------------

/* Tile j of K or V (map) into its stage, the ring's load number g (j plus
 * the K/V tiles of the CTA's earlier work tiles, FA3_PERS; else j): wait
 * until every consumer released the stage's previous round (round 0: parity
 * 1 passes at once), arm `full` with the stage's bytes, issue its D / 64
 * boxes (rows past seq_kv: zeros). */
template <int D, int BKV>
static __device__ __forceinline__ void fa3_load_kv(const CUtensorMap *map, unsigned base, unsigned full,
                                                   unsigned empty, int j, int g, int bh)
{
    typedef fa3_smem<D, BKV> L;
    const unsigned ph = (unsigned)(g / FA3_STAGES(D)) & 1u;
    sgemm_tma_bar_wait(empty, ph ^ 1u);
    sgemm_tma_bar_expect(full, L::KVBYTES);
#pragma unroll
    for (int c = 0; c < D / 64; c++)
        fa3_tma_load_3d(base + c * L::KVBLK, map, c * 64, j * L::BKV, bh, full);
}

/* The producer thread: Q once, then K and V each through its own ring, K
 * one tile ahead (K 0, K 1, V 0, K 2, V 1, ...: at step j a consumer waits
 * for V j and K j+1 together). No wait here depends on a load issued after
 * it: K j+2 waits for the release of K j, V j+1 for that of V j-1, both
 * released once K j+1 and V j (issued before) have landed.
 * Persistent (FA3_PERS): one work tile of the CTA's, kb: the K/V tiles of
 * its earlier work tiles mod 2 ST (the rings' stages and parities run on
 * across work tiles: load g = kb + j), sm.q / sm.qsel: its Q buffer, qph:
 * that buffer's fill parity (its earlier fills mod 2). A Q buffer is
 * overwritten once every consumer released the Q it held (their last Q K^T
 * of that work tile done), which they do before its last P V: with one
 * buffer (FA3_QB 1) the next Q and its first K/V tiles load under that P V
 * and O's store; with two, the other buffer was released a work tile ago,
 * so the next Q loads right behind this work tile's last V tile. Still no
 * wait on a later load: the loads keep the consumers' order across work
 * tiles (V n-1, then Q', K 0', ...), Q's release needs V n-1 at most.
 * j0: the work tile's first K/V tile (a tail split's chunk, FA3_TAIL_SPLIT:
 * tiles j0 .. j0 + ntiles - 1; else 0). */
template <int D, int BKV, int NWG>
static __device__ __forceinline__ void fa3_produce(const fa3_params &fp, const fa3_smem<D, BKV, NWG> &sm, int q0,
                                                   int bh, int ntiles, int kb, unsigned qph, int j0)
{
    typedef fa3_smem<D, BKV, NWG> L;
    constexpr int ST = FA3_STAGES(D);
    if (FA3_PERS(D))
        sgemm_tma_bar_wait(sm.empty_q(), qph ^ 1u); /* a buffer's first fill: parity 1 passes at once */
    sgemm_tma_bar_expect(sm.bar_q(), L::QBYTES);
#pragma unroll
    for (int c = 0; c < D / 64; c++)
        fa3_tma_load_3d(sm.q + c * L::QBLK, &fp.tq, c * 64, q0, bh, sm.bar_q());
    const int s0 = kb % ST;
    fa3_load_kv<D, BKV>(&fp.tk, sm.k + s0 * L::KVBYTES, sm.full_k(s0), sm.empty_k(s0), j0, kb, bh);
#pragma unroll 1
    for (int j = 1; j < ntiles; j++) {
        const int s = (kb + j) % ST, sp = (kb + j - 1) % ST;
        fa3_load_kv<D, BKV>(&fp.tk, sm.k + s * L::KVBYTES, sm.full_k(s), sm.empty_k(s), j0 + j, kb + j, bh);
        fa3_load_kv<D, BKV>(&fp.tv, sm.v + sp * L::KVBYTES, sm.full_v(sp), sm.empty_v(sp), j0 + j - 1, kb + j - 1,
                            bh);
    }
    const int sl = (kb + ntiles - 1) % ST;
    fa3_load_kv<D, BKV>(&fp.tv, sm.v + sl * L::KVBYTES, sm.full_v(sl), sm.empty_v(sl), j0 + ntiles - 1,
                        kb + ntiles - 1, bh);
}

// ---- consumer pieces -----------------------------------------------------------------

/* The ping-pong's two halves on named barrier `id` (256 threads: its owner
 * consumer warpgroup's wait + the previous one's arrive, fa3_consume): wait
 * for it, or arrive without waiting */
static __device__ __forceinline__ void fa3_sched_sync(int id)
{
    if (FA3_PINGPONG)
        sgemm_tma_named_sync(id, 256);
}

static __device__ __forceinline__ void fa3_sched_arrive(int id)
{
    if (FA3_PINGPONG)
        sgemm_tma_named_arrive(id, 256);
}

/* FA3_QK_EARLY's wait (sgemm_tma_bar_wait without its trap: with a __trap
 * in any consumer wait, ptxas of CUDA 13.0 gives the consumer no more
 * registers than the launch bound's 168 and, short of registers for S, O
 * and P at once, serialises every wgmma of the kernel, C7512): a wait that
 * gives up sets *failed, and once failed every later wait returns at once;
 * the consumer traps after its last wgmma (fa3_consume), so a lost arrive
 * still ends as a fault, not a hang. */
static __device__ __forceinline__ void fa3_bar_wait(unsigned bar, unsigned parity, bool *failed)
{
    unsigned polls = 0;
    while (!*failed && !sgemm_tma_bar_try(bar, parity))
        if (++polls > SGEMM_TMA_SPIN_LIMIT)
            *failed = true;
}

/* A consumer's wait: FA3_QK_EARLY's (fa3_bar_wait), else the trapping one
 * (head_dim 256, or K/V tiles over 128 keys: always fa3_bar_wait, which
 * their 128 O accumulators, or S and P of the larger tile, need for the
 * consumer's 240 registers whatever the schedule) */
template <int D, int BKV>
static __device__ __forceinline__ void fa3_consumer_wait(unsigned bar, unsigned parity, bool *failed)
{
    if (FA3_EARLY(D) || D == 256 || BKV > 128)
        fa3_bar_wait(bar, parity, failed);
    else
        sgemm_tma_bar_wait(bar, parity);
}

/* This warp's release of a stage: one arrive per consumer warp (8 a round) */
static __device__ __forceinline__ void fa3_release(unsigned empty, int lane)
{
    __syncwarp();
    if (lane == 0)
        sgemm_tma_bar_arrive(empty);
}

/* A descriptor (sgemm_wg_desc / gemm_wg_desc_mn of a shared address a)
 * moved on by `bytes` (a multiple of 16): the descriptor of a + bytes, as
 * long as a + bytes stays in the 256 KiB shared window (its 14-bit start
 * field, address / 16, cannot carry into the next field); one 32-bit add
 * on the low word (FA3_SMX_DESC) */
static __device__ __forceinline__ unsigned long long fa3_desc_add(unsigned long long desc, unsigned bytes)
{
    const unsigned lo = (unsigned)desc + (bytes >> 4), hi = (unsigned)(desc >> 32);
    return ((unsigned long long)hi << 32) | lo;
}

/* S[64 x BKV] = Q_w K_s^T issued (not waited): zeroed, then D / 16 k steps
 * of 32 bytes along the K-major rows of both (4 per 128-byte column block) */
template <int ET, int D, int BKV, int NWG, int SMX = FA3_SMX_RUNG>
static __device__ __forceinline__ void fa3_issue_qk(float *s, unsigned qw, unsigned ks)
{
    typedef fa3_smem<D, BKV, NWG> L;
    unsigned long long da[D / 16], db[D / 16];
#pragma unroll
    for (int kk = 0; kk < D / 16; kk++) {
        if constexpr (FA3_SMX_DESC(SMX)) {
            da[kk] = fa3_desc_add(sgemm_wg_desc(qw), (kk / 4) * L::QBLK + (kk % 4) * 32);
            db[kk] = fa3_desc_add(sgemm_wg_desc(ks), (kk / 4) * L::KVBLK + (kk % 4) * 32);
        } else {
            da[kk] = sgemm_wg_desc(qw + (kk / 4) * L::QBLK + (kk % 4) * 32);
            db[kk] = sgemm_wg_desc(ks + (kk / 4) * L::KVBLK + (kk % 4) * 32);
        }
    }
#pragma unroll
    for (int i = 0; i < BKV / 2; i++) {
        s[i] = 0.0f;
        sgemm_wg_fence_operand(&s[i]);
    }
    sgemm_wg_fence();
#pragma unroll
    for (int kk = 0; kk < D / 16; kk++)
        fa3_mma_ss<ET, BKV>(s, da[kk], db[kk]);
    sgemm_wg_commit();
}

/* O[64 x D] += P[64 x BKV] V_s[BKV x D] issued (not waited): BKV / 16 k
 * steps, P's registers 4 kk.. as A, V's descriptor 16 key rows (2048 bytes)
 * further each step; LBO = one V column block (BKV rows), SBO 1024 */
template <int ET, int D, int BKV, int SMX = FA3_SMX_RUNG>
static __device__ __forceinline__ void fa3_issue_pv(float *o, unsigned *pr, unsigned vs)
{
    typedef fa3_smem<D, BKV> L;
    unsigned long long db[BKV / 16];
#pragma unroll
    for (int kk = 0; kk < BKV / 16; kk++)
        db[kk] = FA3_SMX_DESC(SMX) ? fa3_desc_add(gemm_wg_desc_mn(vs, L::KVBLK), kk * 16 * FA3_ROW)
                                   : gemm_wg_desc_mn(vs + kk * 16 * FA3_ROW, L::KVBLK);
#pragma unroll
    for (int i = 0; i < BKV / 4; i++)
        asm volatile("" : "+r"(pr[i]) :: "memory");
#pragma unroll
    for (int i = 0; i < D / 2; i++)
        sgemm_wg_fence_operand(&o[i]);
    sgemm_wg_fence();
#pragma unroll
    for (int kk = 0; kk < BKV / 16; kk++)
        fa3_mma_rs_tb<ET, D>(o, pr + 4 * kk, db[kk]);
    sgemm_wg_commit();
}

/* The online softmax of S tile j (rows r0 = this thread's row g, r0 + 8;
 * s[4 i + 2 h + e]: row r0 + 8 h, key j BKV + 8 i + 2 t + e): to base 2,
 * masked when `masked`, new running maximum m, factor f[h] = exp2(m_old -
 * m_new) for O (fa3_softmax_p applies it), this lane's running sum l,
 * and s overwritten by the unnormalised probabilities. fa2's rules. */
template <int BKV>
static __device__ __forceinline__ void fa3_softmax(float *s, float *m, float *l, float *f, int j, int r0, int t,
                                                   bool masked, const attn_params &p)
{
    const int off = p.seq_kv - p.seq_q, k0 = j * BKV + 2 * t;
#pragma unroll
    for (int h = 0; h < 2; h++) {
        float mx = -INFINITY;
#pragma unroll
        for (int i = 0; i < BKV / 8; i++)
#pragma unroll
            for (int e = 0; e < 2; e++) {
                float &x = s[4 * i + 2 * h + e];
                x = masked && attn_masked(k0 + 8 * i + e, r0 + 8 * h, p.seq_kv, off, p.causal) ? -INFINITY
                                                                                              : x * p.scale_log2;
                mx = fmaxf(mx, x);
            }
        mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 1));
        mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 2));
        const float m_new = fmaxf(m[h], mx), sh = attn_shift(m_new);
        f[h] = softmax_ex2(m[h] - sh);
        m[h] = m_new;
        float sum = 0.0f;
#pragma unroll
        for (int i = 0; i < BKV / 8; i++)
#pragma unroll
            for (int e = 0; e < 2; e++) {
                float &x = s[4 * i + 2 * h + e];
                x = softmax_ex2(x - sh);
                sum += x;
            }
        l[h] = l[h] * f[h] + sum;
    }
}

/* The base-2 shift of a row whose running maximum (in score units) is m,
 * under FA3_SOFTMAX 1: m scale_log2 rounded once, or 0 while every key of
 * the row was masked (m = -inf); the softmax's exponents and the tail
 * split's join (fa3_tail_out) take the same value */
static __device__ __forceinline__ float fa3_shift_fast(float m, float scale_log2)
{
    return m == -INFINITY ? 0.0f : __fmul_rn(m, scale_log2);
}

/* 2^x on the FMA pipe (FA3_SMX_POLY): x clamped to -126 (below it the
 * result is a denormal-range value, nothing a sum of exponentials of at
 * least 1 notices; x is never -inf here: no masked tile), split as j + f
 * with j = round(x) (adding 1.5 x 2^23 rounds to an integer in the low
 * mantissa bits) and f in [-0.5, 0.5], 2^f by a minimax polynomial in
 * Horner form (degree 3 for bf16, 4 for fp16: their errors against the
 * probabilities' own rounding in docs/tuning/attention.md, "fa3 softmax and
 * issue options"), then j added to the exponent field (the low bits of the
 * rounded sum, shifted up: two's complement wraps right for j < 0). x <=
 * 15 (FA3_SMX_THR): no overflow. 8 or 9 FMA-pipe and ALU instructions for
 * one MUFU.EX2. */
template <int ET>
static __device__ __forceinline__ float fa3_exp2_poly(float x)
{
    x = fmaxf(x, -126.0f);
    const float t = __fadd_rn(x, 12582912.0f);
    const float f = __fadd_rn(x, -__fadd_rn(t, -12582912.0f));
    float p;
    if constexpr (ET == ELEM_FP16)
        p = fmaf(fmaf(fmaf(fmaf(0.00957007986f, f, 0.0559178367f), f, 0.240247443f), f, 0.693121791f), f,
                 0.999999285f);
    else
        p = fmaf(fmaf(fmaf(0.0551714338f, f, 0.242610812f), f, 0.693260968f), f, 0.999928117f);
    return __int_as_float(__float_as_int(p) + (int)((unsigned)__float_as_int(t) << 23));
}

/* fa3_softmax's contract (FA3_SOFTMAX 1), with the mask tested only when
 * MASKED (a tile straddling the diagonal or seq_kv) and m kept in score
 * units: exponent = s scale_log2 - m scale_log2 as one FFMA (scale > 0, so
 * the maximum of the scores is the maximum of the scaled scores). f[h] is
 * exactly 1 when the row's maximum did not move. Row maximum and sum: 4
 * partial chains per row (elements 2 i + e, mod 4), joined at the end. */
template <int BKV, bool MASKED, int SMX = FA3_SMX_RUNG, int ET = ELEM_BF16>
static __device__ __forceinline__ void fa3_softmax_fast(float *s, float *m, float *l, float *f, int j, int r0,
                                                        int t, const attn_params &p)
{
    const float sl = p.scale_log2;
    if constexpr (MASKED) {
        const int off = p.seq_kv - p.seq_q, k0 = j * BKV + 2 * t;
#pragma unroll
        for (int i = 0; i < BKV / 8; i++)
#pragma unroll
            for (int h = 0; h < 2; h++)
#pragma unroll
                for (int e = 0; e < 2; e++)
                    if (attn_masked(k0 + 8 * i + e, r0 + 8 * h, p.seq_kv, off, p.causal))
                        s[4 * i + 2 * h + e] = -INFINITY;
    }
    float mx[2][4];
#pragma unroll
    for (int h = 0; h < 2; h++)
#pragma unroll
        for (int c = 0; c < 4; c++) mx[h][c] = -INFINITY;
#pragma unroll
    for (int i = 0; i < BKV / 8; i++)
#pragma unroll
        for (int h = 0; h < 2; h++)
#pragma unroll
            for (int e = 0; e < 2; e++) mx[h][(2 * i + e) & 3] = fmaxf(mx[h][(2 * i + e) & 3], s[4 * i + 2 * h + e]);
    float sh[2];
#pragma unroll
    for (int h = 0; h < 2; h++) {
        float r = fmaxf(fmaxf(mx[h][0], mx[h][1]), fmaxf(mx[h][2], mx[h][3]));
        r = fmaxf(r, __shfl_xor_sync(0xffffffffu, r, 1));
        r = fmaxf(r, __shfl_xor_sync(0xffffffffu, r, 2));
        /* FA3_SMX_THR: the shift moves only when the maximum grows by more
         * than THR exponent units (or from -inf: the row's first key) */
        const float m_new = FA3_SMX_THR(SMX) == 0 ? fmaxf(m[h], r)
                            : r > m[h] && (m[h] == -INFINITY ||
                                           __fmul_rn(r, sl) - __fmul_rn(m[h], sl) > (float)FA3_SMX_THR(SMX))
                                ? r
                                : m[h];
        sh[h] = fa3_shift_fast(m_new, sl);
        /* m_old = -inf: exp2(-inf) = 0; both -inf: equal, 1 (l and O are 0) */
        f[h] = m_new == m[h] ? 1.0f : softmax_ex2(__fmul_rn(m[h], sl) - sh[h]);
        m[h] = m_new;
    }
    float sum[2][4];
#pragma unroll
    for (int h = 0; h < 2; h++)
#pragma unroll
        for (int c = 0; c < 4; c++) sum[h][c] = 0.0f;
#pragma unroll
    for (int i = 0; i < BKV / 8; i++)
#pragma unroll
        for (int h = 0; h < 2; h++)
#pragma unroll
            for (int e = 0; e < 2; e++) {
                float &x = s[4 * i + 2 * h + e];
                /* FA3_SMX_POLY of every 8 on the FMA pipe (never a masked tile's) */
                if (!MASKED && (2 * i + e) % 8 < FA3_SMX_POLY(SMX))
                    x = fa3_exp2_poly<ET>(fmaf(x, sl, -sh[h]));
                else
                    x = softmax_ex2(fmaf(x, sl, -sh[h]));
                sum[h][(2 * i + e) & 3] += x;
            }
#pragma unroll
    for (int h = 0; h < 2; h++) l[h] = l[h] * f[h] + ((sum[h][0] + sum[h][1]) + (sum[h][2] + sum[h][3]));
}

/* O's rows r0 (h 0) and r0 + 8 (h 1) times f[h] (FA3_LAZY_RESCALE: not
 * when every factor of the warp is 1) */
template <int D>
static __device__ __forceinline__ void fa3_rescale(float *o, const float *f)
{
    if (FA3_LAZY_RESCALE && !__any_sync(0xffffffffu, f[0] != 1.0f || f[1] != 1.0f))
        return;
#pragma unroll
    for (int i = 0; i < D / 8; i++) {
        o[4 * i + 0] *= f[0];
        o[4 * i + 1] *= f[0];
        o[4 * i + 2] *= f[1];
        o[4 * i + 3] *= f[1];
    }
}

/* P (s, FP32) rounded to T and packed in pairs: register i = keys 2 i, + 1
 * of the accumulator order, which is the A-fragment order of P V */
template <typename T, int BKV>
static __device__ __forceinline__ void fa3_pack_p(unsigned *pr, const float *s)
{
#pragma unroll
    for (int i = 0; i < BKV / 4; i++)
        pr[i] = gemm_mma_out<T>::pack(s[2 * i], s[2 * i + 1]);
}

/* Waits for every wgmma of this warpgroup, then pins the N accumulators acc
 * after the wait (no read of them moves above it) */
template <int N>
static __device__ __forceinline__ void fa3_wait_all(float *acc)
{
    sgemm_wg_wait0();
#pragma unroll
    for (int i = 0; i < N; i++)
        sgemm_wg_fence_operand(&acc[i]);
}

/* FA3_QK_EARLY: waits for both groups (P V, then Q K^T behind it), then
 * pins O and P's registers after the wait. P's pin keeps its registers
 * apart from S's (else ptxas hands P's registers to S, the Q K^T in flight
 * would overwrite them, and it serialises every wgmma: C7512); waiting for
 * P V alone (wait_group 1) serialises them too (ptxas of CUDA 13.0, head_dim
 * 128), so one wait_group 0 serves both GEMMs. */
template <int D, int BKV>
static __device__ __forceinline__ void fa3_wait_pv(float *o, unsigned *pr)
{
    fa3_wait_all<D / 2>(o);
#pragma unroll
    for (int i = 0; i < BKV / 4; i++)
        asm volatile("" : "+r"(pr[i]) :: "memory");
}

/* The softmax of S tile j (fa3_softmax or, FA3_SOFTMAX 1, fa3_softmax_fast)
 * alone: s becomes the probabilities, f[h] the factor of O's row h */
template <int BKV, int SMX = FA3_SMX_RUNG, int ET = ELEM_BF16>
static __device__ __forceinline__ void fa3_softmax_any(float *s, float *m, float *l, float *f, int j, int r0, int t,
                                                       bool masked, const attn_params &p)
{
    if (!FA3_SOFTMAX)
        fa3_softmax<BKV>(s, m, l, f, j, r0, t, masked, p);
    else if (masked)
        fa3_softmax_fast<BKV, true, SMX, ET>(s, m, l, f, j, r0, t, p);
    else
        fa3_softmax_fast<BKV, false, SMX, ET>(s, m, l, f, j, r0, t, p);
}

/* The softmax of S tile j, O rescaled by its factor (no P V is in flight),
 * and P packed into pr */
template <typename T, int D, int BKV, int SMX = FA3_SMX_RUNG>
static __device__ __forceinline__ void fa3_softmax_p(float *s, float *o, unsigned *pr, float *m, float *l, int j,
                                                     int r0, int t, bool masked, const attn_params &p)
{
    float f[2];
    fa3_softmax_any<BKV, SMX, fa3_elem<T>::et>(s, m, l, f, j, r0, t, masked, p);
    fa3_rescale<D>(o, f);
    fa3_pack_p<T, BKV>(pr, s);
}

/* The last tile's O += P V (stage sl, its fill's parity ph), waited; the
 * ping-pong's last arrive (every consumer but the cycle's last, NWG - 1:
 * see fa3_consume). FA3_PERS: Q released first (every Q K^T of the work
 * tile is done: the producer loads the next one's Q under this P V), and
 * every consumer arrives, right behind the issue (the next may issue its
 * next GEMM, maybe the next work tile's first Q K^T, while this P V runs) */
template <int ET, int D, int BKV, int NWG, int SMX = FA3_SMX_RUNG>
static __device__ __forceinline__ void fa3_last_pv(float *o, unsigned *pr, const fa3_smem<D, BKV, NWG> &sm, int sl,
                                                   unsigned ph, int own, int other, int cw, int lane, bool *failed)
{
    fa3_consumer_wait<D, BKV>(sm.full_v(sl), ph, failed);
    if (FA3_PERS(D))
        fa3_release(sm.empty_q(), lane);
    fa3_sched_sync(own);
    fa3_issue_pv<ET, D, BKV, SMX>(o, pr, sm.v + sl * fa3_smem<D, BKV, NWG>::KVBYTES);
    if (FA3_PERS(D))
        fa3_sched_arrive(other);
    fa3_wait_all<D / 2>(o);
    fa3_release(sm.empty_v(sl), lane);
    if (!FA3_PERS(D) && (NWG == 2 ? cw == 0 : cw != NWG - 1)) /* all but the cycle's last consumer */
        fa3_sched_arrive(other);
}

/* O / l, rows r0 (h 0) and r0 + 8 (h 1), l[h] the row's whole sum (a row
 * that saw no key: l = 0, zeros), as 32-bit pairs straight from the
 * accumulators (columns 8 i + 2 t, + 1) */
template <typename T, int D>
static __device__ __forceinline__ void fa3_store_o(const attn_params &p, T *Oh, const float *o, const float *l,
                                                   int r0, int t)
{
#pragma unroll
    for (int h = 0; h < 2; h++) {
        const float inv = l[h] > 0.0f ? 1.0f / l[h] : 0.0f;
        const int row = r0 + 8 * h;
        if (row < p.seq_q) {
            unsigned *orow = (unsigned *)(Oh + (long long)row * D + 2 * t);
#pragma unroll
            for (int i = 0; i < D / 8; i++)
                orow[4 * i] = gemm_mma_out<T>::pack(o[4 * i + 2 * h] * inv, o[4 * i + 2 * h + 1] * inv);
        }
    }
}

/* bar.red.or over named barrier id (count threads): 1 if any thread's v */
static __device__ __forceinline__ bool fa3_bar_or(int id, int count, bool v)
{
    unsigned r;
    asm volatile("{\n\t.reg .pred p, q;\n\tsetp.ne.u32 p, %1, 0;\n\tbar.red.or.pred q, %2, %3, p;\n\t"
                 "selp.u32 %0, 1, 0, q;\n\t}\n"
                 : "=r"(r) : "r"((unsigned)v), "r"(id), "r"(count) : "memory");
    return r != 0;
}

/* the named barrier of the tail split's join: after the ping-pong's 1 .. NWG */
#define FA3_TAIL_BAR(NWG) (FA3_SCHED_BAR + (NWG))

/* A tail split's chunk ti.y of tail work tile ti.x (FA3_TAIL_SPLIT): this
 * thread's rows (local rl, rl + 8 of the tile's BQ; global r0, r0 + 8) as
 * a partial, O unnormalised and the rows' base-2 shift (the one its
 * exponentials took: m scale_log2 under FA3_SOFTMAX 1, m else; 0 for a row
 * that saw no key) and sum l, to slot ti.x s + ti.y; then every consumer
 * thread's writes fenced, one counter increment per CTA (the lead thread),
 * and the CTA that brings it to s joins the s partials (reading them from
 * the L2: __ldcg) into O / l: shift M = the largest of the rows' shifts
 * with l > 0, weights exp2(shift_c - M), and resets the counter for the
 * next launch. The others are done: their O is the joiner's to write. */
template <typename T, int D, int NWG>
static __device__ __forceinline__ void fa3_tail_out(const fa3_params &fp, T *Oh, float *o, const float *m, float *l,
                                                 int r0, int rl, int t, bool lead, int2 ti)
{
    constexpr int BQ = FA3_BQ_W(NWG), SLOT = FA3_TAIL_SLOT(D, NWG);
    const int s = fp.split;
    float *base = fp.ws + (size_t)(ti.x * s + ti.y) * SLOT;
#pragma unroll
    for (int h = 0; h < 2; h++) {
        const int r = rl + 8 * h;
        float *orow = base + r * D + 2 * t;
#pragma unroll
        for (int i = 0; i < D / 8; i++)
            __stcg((float2 *)(orow + 8 * i), make_float2(o[4 * i + 2 * h], o[4 * i + 2 * h + 1]));
        if (t == 0) {
            const float sh = FA3_SOFTMAX ? fa3_shift_fast(m[h], fp.p.scale_log2) : attn_shift(m[h]);
            __stcg(base + BQ * D + r, sh);
            __stcg(base + BQ * D + BQ + r, l[h]);
        }
    }
    __threadfence();
    sgemm_tma_named_sync(FA3_TAIL_BAR(NWG), 128 * NWG); /* every consumer thread's partial written and fenced */
    bool mine = false;
    if (lead) {
        mine = atomicAdd(&fp.cnt[ti.x], 1u) == (unsigned)s - 1u;
        if (mine)
            fp.cnt[ti.x] = 0u; /* every chunk counted: zero for the next launch */
    }
    if (!fa3_bar_or(FA3_TAIL_BAR(NWG), 128 * NWG, mine))
        return;
    __threadfence(); /* the other chunks' partials, fenced before their increments */
#pragma unroll
    for (int h = 0; h < 2; h++) {
        const int r = rl + 8 * h;
        float mx = -INFINITY;
        for (int c = 0; c < s; c++) {
            const float *bc = fp.ws + (size_t)(ti.x * s + c) * SLOT;
            if (__ldcg(bc + BQ * D + BQ + r) > 0.0f)
                mx = fmaxf(mx, __ldcg(bc + BQ * D + r));
        }
#pragma unroll
        for (int i = 0; i < D / 8; i++) o[4 * i + 2 * h] = o[4 * i + 2 * h + 1] = 0.0f;
        float sum = 0.0f;
        for (int c = 0; c < s; c++) {
            const float *bc = fp.ws + (size_t)(ti.x * s + c) * SLOT;
            const float lc = __ldcg(bc + BQ * D + BQ + r);
            if (!(lc > 0.0f))
                continue;
            const float wc = softmax_ex2(__ldcg(bc + BQ * D + r) - mx);
            sum += lc * wc;
            const float *orow = bc + r * D + 2 * t;
#pragma unroll
            for (int i = 0; i < D / 8; i++) {
                const float2 x = __ldcg((const float2 *)(orow + 8 * i));
                o[4 * i + 2 * h] = fmaf(x.x, wc, o[4 * i + 2 * h]);
                o[4 * i + 2 * h + 1] = fmaf(x.y, wc, o[4 * i + 2 * h + 1]);
            }
        }
        l[h] = sum;
    }
    fa3_store_o<T, D>(fp.p, Oh, o, l, r0, t);
}

/* One consumer warpgroup (cw 0 .. NWG - 1, thread ct of 128): rows q0 +
 * 64 cw.. of the CTA's q tile over its ntiles K/V tiles, then O / l to
 * global. Between a wait on this warpgroup's named barrier and an arrive
 * on the next one's in the cycle 0, 1, .., NWG - 1, 0 it issues a step's
 * two GEMMs, so the warpgroups' GEMMs take turns on the tensor core in that
 * order and one's softmax runs under the others' GEMMs (the ping-pong; NWG
 * 2: the other's, FlashAttention-3's round robin at NWG 3). Step j by
 * FA3_QK_EARLY:
 *  - 2 (the default): S j+1 = Q K j+1^T issued, then O += P j V j; the
 *    softmax of S j+1 while P j V j runs (wait_group 1), then (wait_group 0)
 *    O rescaled and P j+1 packed: the loop rotated, P carried;
 *  - 1: O += P j V j, S j+1 issued behind it, one wait for both, then the
 *    softmax of S j+1, O rescaled, P j+1 packed;
 *  - 0: the softmax of S j (O rescaled at once: no P V is in flight), P j
 *    packed; P j V j issued and waited (P's registers are then free), S j+1
 *    issued and waited: within a warpgroup the GEMMs and the softmax serial.
 * Persistent (FA3_PERS): one work tile of the CTA's; kb: the K/V tiles of
 * its earlier work tiles mod 2 ST (the rings' load numbers run on: tile j
 * is load kb + j), sm.q / sm.qsel: this work tile's Q buffer, qph: its
 * fill's parity (the buffer's earlier fills, mod 2); m, l and O start afresh. The ping-pong runs on across work
 * tiles: consumer 0's first arrive and last wait are the kernel's
 * (fa3_body_pers), and the cycle's last consumer NWG - 1 arrives after its
 * last P V of every work tile too, so the warpgroups' GEMMs take turns
 * over the whole CTA (every consumer of a work tile with keys waits and
 * arrives ntiles + 1 times; consumer 0's barrier: its first arrive +
 * consumer NWG - 1's sum of (ntiles + 1) arrives against its own 1 + sum of
 * (ntiles + 1) waits, the last one at the kernel's end; consumer c > 0's:
 * sum of (ntiles + 1) waits against consumer c - 1's as many arrives).
 * failed: FA3_QK_EARLY's waits that gave up (the caller traps after the
 * last wgmma). j0: the first K/V tile (tiles j0 .. j0 + ntiles - 1); ti:
 * a tail split's chunk (FA3_TAIL_SPLIT: tail work tile ti.x, chunk ti.y,
 * whose partial goes to the workspace, fa3_tail_out), ti.x < 0: a whole
 * work tile (O to global). */
template <typename T, int D, int BKV, int NWG, int SMX = FA3_SMX_RUNG>
static __device__ __forceinline__ void fa3_consume(const fa3_params &fp, const fa3_smem<D, BKV, NWG> &sm, T *Oh,
                                                   int q0, int ntiles, int cw, int ct, int kb, unsigned qph,
                                                   bool &failed, int j0, int2 ti)
{
    typedef fa3_smem<D, BKV, NWG> L;
    const attn_params &p = fp.p;
    constexpr int ET = fa3_elem<T>::et, ST = FA3_STAGES(D);
    const int w = ct >> 5, lane = ct & 31, g = lane >> 2, t = lane & 3;
    const int r0 = q0 + 64 * cw + 16 * w + g;
    /* this consumer's barrier and the next one's in the cycle 0, 1, .., NWG - 1, 0 */
    /* the next consumer, cw + 1 mod NWG (NWG 2: cw ^ 1, the form whose SASS
     * the two-warpgroup kernels were measured with; the general form changes it) */
    const int own = FA3_SCHED_BAR + cw, other = FA3_SCHED_BAR + (NWG == 2 ? cw ^ 1 : (cw == NWG - 1 ? 0 : cw + 1));
    /* this run's tiles j (K/V tile j0 + j) below nfull skip the mask */
    const long long unmasked = attn_kv_tiles_unmasked(q0, p.seq_q, p.seq_kv, BKV, p.causal) - j0;
    const int nfull = unmasked < 0 ? 0 : unmasked < ntiles ? (int)unmasked : ntiles;
    const unsigned qw = sm.q + cw * 64 * FA3_ROW; /* this warpgroup's 64 rows of each Q column block */

    float o[D / 2];
    float m[2] = {-INFINITY, -INFINITY}, l[2] = {0.0f, 0.0f};
    attn_zero<D / 2>(o);
    if (ntiles > 0) {
        float s[BKV / 2];
        const int s0 = kb % ST;
        /* the ping-pong's start: consumer 0's barrier gets its first half
         * from consumer 0 itself, so consumer 0 issues first (FlashAttention-3's
         * order); every later generation of barrier c is consumer c's wait
         * (128 threads) + consumer c - 1's arrive (c - 1 mod NWG: 128). Each
         * warpgroup waits ntiles + 1 times and arrives as often, but the
         * cycle's last, consumer NWG - 1, skips its last arrive: consumer
         * 0's barrier then counts its own first arrive + its ntiles + 1
         * waits + consumer NWG - 1's ntiles arrives, barrier c > 0 consumer
         * c's ntiles + 1 waits + consumer c - 1's ntiles + 1 arrives, whole
         * generations of 256 threads. No generation takes a later one's
         * arrive: one turn circulates (a wait passes only on the previous
         * consumer's arrive, and a consumer arrives once a turn, after its
         * own wait), so consumer c - 1 arrives on barrier c again only after
         * the turn went round the cycle through consumer c's wait. */
        if (!FA3_PERS(D) && cw == 0)
            fa3_sched_arrive(own);
        fa3_consumer_wait<D, BKV>(sm.bar_q(), qph, &failed);
        fa3_consumer_wait<D, BKV>(sm.full_k(s0), (unsigned)(kb / ST) & 1u, &failed);
        fa3_sched_sync(own);
        fa3_issue_qk<ET, D, BKV, NWG, SMX>(s, qw, sm.k + s0 * L::KVBYTES);
        fa3_sched_arrive(other);
        fa3_wait_all<BKV / 2>(s);
        fa3_release(sm.empty_k(s0), lane);

        if (FA3_EARLY(D)) {
            unsigned pr[BKV / 4];
            /* the loop rotated: P (packed) carried from step to step, S a
             * step's own (so ptxas keeps S's registers apart from the P
             * that P V reads while Q K^T writes S) */
            fa3_softmax_p<T, D, BKV, SMX>(s, o, pr, m, l, j0, r0, t, 0 >= nfull, p);
            bool rdy_v = false, rdy_k = false; /* FA3_SMX_TEST: this step's barriers found complete */
#pragma unroll 1
            for (int j = 0; j < ntiles - 1; j++) {
                const int g = kb + j, st = g % ST, sn = (g + 1) % ST;
                float sj[BKV / 2];
                if (!rdy_v)
                    fa3_bar_wait(sm.full_v(st), (unsigned)(g / ST) & 1u, &failed);
                if (!rdy_k)
                    fa3_bar_wait(sm.full_k(sn), (unsigned)((g + 1) / ST) & 1u, &failed);
                fa3_sched_sync(own);
                if (FA3_EARLY(D) == 2) {
                    /* FlashAttention-3's intra-warpgroup overlap: S j+1
                     * first, then P j V j; the softmax of S j+1 runs while
                     * P j V j is in flight; O's rescale and P's packing
                     * wait for it */
                    fa3_issue_qk<ET, D, BKV, NWG, SMX>(sj, qw, sm.k + sn * L::KVBYTES);
                    fa3_issue_pv<ET, D, BKV, SMX>(o, pr, sm.v + st * L::KVBYTES);
                    fa3_sched_arrive(other);
                    if (FA3_SMX_TEST(SMX) && j + 1 < ntiles - 1) { /* the next step's V j+1 and K j+2 */
                        rdy_v = sgemm_tma_bar_test(sm.full_v(sn), (unsigned)((g + 1) / ST) & 1u);
                        rdy_k = sgemm_tma_bar_test(sm.full_k((g + 2) % ST), (unsigned)((g + 2) / ST) & 1u);
                    }
                    sgemm_wg_wait1(); /* S j+1 done (P j V j may run on) */
#pragma unroll
                    for (int i = 0; i < BKV / 2; i++)
                        sgemm_wg_fence_operand(&sj[i]);
                    fa3_release(sm.empty_k(sn), lane);
                    float f[2];
                    fa3_softmax_any<BKV, SMX, ET>(sj, m, l, f, j0 + j + 1, r0, t, j + 1 >= nfull, p);
                    fa3_wait_pv<D, BKV>(o, pr); /* P j V j done: V's stage and P's registers free */
                    fa3_release(sm.empty_v(st), lane);
                    fa3_rescale<D>(o, f);
                    fa3_pack_p<T, BKV>(pr, sj);
                } else {
                    fa3_issue_pv<ET, D, BKV, SMX>(o, pr, sm.v + st * L::KVBYTES);
                    fa3_issue_qk<ET, D, BKV, NWG, SMX>(sj, qw, sm.k + sn * L::KVBYTES);
                    fa3_sched_arrive(other);
                    fa3_wait_pv<D, BKV>(o, pr); /* both GEMMs done: V's and K's stages free */
#pragma unroll
                    for (int i = 0; i < BKV / 2; i++)
                        sgemm_wg_fence_operand(&sj[i]);
                    fa3_release(sm.empty_v(st), lane);
                    fa3_release(sm.empty_k(sn), lane);
                    fa3_softmax_p<T, D, BKV, SMX>(sj, o, pr, m, l, j0 + j + 1, r0, t, j + 1 >= nfull, p);
                }
            }
            const int gl = kb + ntiles - 1;
            fa3_last_pv<ET, D, BKV, NWG, SMX>(o, pr, sm, gl % ST, (unsigned)(gl / ST) & 1u, own, other, cw, lane, &failed);
        } else {
#pragma unroll 1
            for (int j = 0; j < ntiles - 1; j++) {
                const int g = kb + j, st = g % ST, sn = (g + 1) % ST;
                unsigned pr[BKV / 4];
                fa3_softmax_p<T, D, BKV, SMX>(s, o, pr, m, l, j0 + j, r0, t, j >= nfull, p);
                fa3_consumer_wait<D, BKV>(sm.full_v(st), (unsigned)(g / ST) & 1u, &failed);
                fa3_consumer_wait<D, BKV>(sm.full_k(sn), (unsigned)((g + 1) / ST) & 1u, &failed);
                fa3_sched_sync(own);
                fa3_issue_pv<ET, D, BKV, SMX>(o, pr, sm.v + st * L::KVBYTES);
                fa3_wait_all<D / 2>(o); /* P j V j done: V's stage and P's registers free */
                fa3_release(sm.empty_v(st), lane);
                fa3_issue_qk<ET, D, BKV, NWG, SMX>(s, qw, sm.k + sn * L::KVBYTES);
                fa3_sched_arrive(other);
                fa3_wait_all<BKV / 2>(s);
                fa3_release(sm.empty_k(sn), lane);
            }
            /* the last tile: P V only; consumer NWG - 1 skips its arrive (see above; not when FA3_PERS) */
            const int gl = kb + ntiles - 1;
            unsigned pr[BKV / 4];
            fa3_softmax_p<T, D, BKV, SMX>(s, o, pr, m, l, j0 + ntiles - 1, r0, t, ntiles - 1 >= nfull,
                                     p);
            fa3_last_pv<ET, D, BKV, NWG, SMX>(o, pr, sm, gl % ST, (unsigned)(gl / ST) & 1u, own, other, cw, lane, &failed);
        }
        if (!FA3_PERS(D) && failed)
            __trap();
    }

    /* the rows' sums: this lane's part, then the quad's (the 4 lanes of a row) */
#pragma unroll
    for (int h = 0; h < 2; h++) {
        l[h] += __shfl_xor_sync(0xffffffffu, l[h], 1);
        l[h] += __shfl_xor_sync(0xffffffffu, l[h], 2);
    }
    if (FA3_PERS(D) && ti.x >= 0)
        fa3_tail_out<T, D, NWG>(fp, Oh, o, m, l, r0, 64 * cw + 16 * (ct >> 5) + g, t, cw == 0 && ct == 0, ti);
    else
        fa3_store_o<T, D>(p, Oh, o, l, r0, t);
}

// ---- the kernel ----------------------------------------------------------------------

/* Persistent: the block index (attn_block_tile's) of round k of CTA b of a
 * grid of g: k g + b in even rounds, k g + g - 1 - b in odd ones (a snake:
 * under the causal mask a CTA that took a round's longest work tile takes
 * the next round's shortest, so the CTAs' sums of unequal work tiles even
 * out); the rounds still cover the block indices in order, a grid's worth
 * at a time (the heads' K / V shared in the L2 as without persistence). May
 * be >= qtiles x nbh in the last round: no work tile. */
static __device__ __forceinline__ unsigned fa3_round_block(unsigned k, unsigned g, unsigned b)
{
    return k * g + ((k & 1u) ? g - 1u - b : b); /* < qtiles x nbh + g <= 2^32: ATTN_GRID_MAX */
}

/* This CTA's work (producer and consumers alike): TAIL false, round k's
 * block index (fa3_round_block's; >= qtiles x nbh: none), the whole work
 * tile (*j0 0, *ti (-1, 0)); TAIL true, the tail split's (fp.split = s >
 * 1: the last round) tail work tile tail0 + b / s, chunk c = b mod s of its
 * K/V tiles: *j0 and *n narrowed to the chunk's run (c n / s .. (c + 1) n
 * / s: at least one tile, s <= n), *ti = (b / s, c). *n: the K/V tiles
 * (attn_kv_tiles). false: no work tile. */
template <int NWG, int BKV, bool TAIL>
static __device__ __forceinline__ bool fa3_round_work(const fa3_params &fp, unsigned k, unsigned total, int *q0,
                                                      long long *bh, int *n, int *j0, int2 *ti)
{
    const attn_params &p = fp.p;
    const unsigned g = gridDim.x, b = blockIdx.x;
    const unsigned blk = TAIL ? fp.tail0 + b / (unsigned)fp.split : fa3_round_block(k, g, b);
    if (blk >= total)
        return false;
    long long qt;
    attn_block_tile(blk, p.qtiles, p.nbh, p.causal, &qt, bh);
    *q0 = (int)qt * FA3_BQ_W(NWG);
    *n = (int)attn_kv_tiles(*q0, FA3_BQ_W(NWG), p.seq_q, p.seq_kv, BKV, p.causal);
    *j0 = 0;
    *ti = make_int2(-1, 0);
    if (TAIL) {
        const int c = (int)(b % (unsigned)fp.split);
        *j0 = attn_tail_chunk(c, fp.split, *n, n);
        *ti = make_int2((int)(b / (unsigned)fp.split), c);
    }
    return true;
}

/* The rounds of whole work tiles: all, or (tail split) all but the last,
 * whose chunks run after them (fa3_body_pers: the consumers' chunk is a
 * second inlined fa3_consume, so the loop's keeps j0 = 0 and no join, and
 * its registers are the kernel's without the split) */
static __device__ __forceinline__ unsigned fa3_whole_rounds(const fa3_params &fp, unsigned total)
{
    return fp.split > 1 ? fp.tail0 / gridDim.x : (total + gridDim.x - 1) / gridDim.x;
}

/* Persistent (FA3_PERS): the CTA's work tiles, a block index a round
 * (fa3_round_block: blockIdx.x, then 2 gridDim.x - 1 - blockIdx.x, ...)
 * below qtiles x nbh, each (q tile, batch x head) by attn_block_tile as the
 * one-tile-per-CTA grid's blocks (a grid of qtiles x nbh CTAs: one work tile
 * each, the hardware's order; attention_fa3.cu picks the grid). The producer
 * thread loads them one after another, the consumers take them in the same
 * order, both counting the K/V tiles (kb, mod 2 x the ring's depth: all that
 * a stage and its parity need, and no overflow) and the work tiles with keys
 * (qi, mod 2 QB: work tile qi's Q buffer is qi mod QB, its fill parity qi /
 * QB mod 2) alike. A work tile with no key (causal, seq_kv <
 * seq_q) loads nothing and joins no barrier (the turn stays with consumer
 * 0): its rows are zeros. Consumer 0 opens the ping-pong once and closes it
 * after its last work tile (its barrier's last generation: that wait +
 * consumer NWG - 1's last arrive; with no work tile with keys, its own
 * arrive + wait). Under the tail split (fp.split > 1) the last round's
 * CTAs take chunks of its work tiles (fa3_round_work<.., true>) and join them
 * (fa3_tail_out). The named barriers: 1 .. NWG (FA3_SCHED_BAR + cw), NWG
 * + 1 (FA3_TAIL_BAR: the join's). */
template <typename T, int D, int BKV, int NWG, int QB, int SMX>
static __device__ __forceinline__ void fa3_body_pers(const fa3_params &fp, const fa3_smem<D, BKV, NWG> &sm)
{
    static_assert(QB == 1 || QB == 2, "QB: 1 or 2 Q buffers");
    typedef fa3_smem<D, BKV, NWG> L;
    const attn_params &p = fp.p;
    const unsigned total = (unsigned)(p.qtiles * p.nbh); /* <= ATTN_GRID_MAX */
    const int tid = threadIdx.x;
    if (tid < 128) {
        asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;\n" :: "n"(FA3_REGS_PRODUCER_W(NWG)) : "memory");
        if (tid == 0) {
            const unsigned rounds = fa3_whole_rounds(fp, total);
            int kb = 0;
            unsigned qi = 0;
#pragma unroll 1
            for (unsigned k = 0; k <= rounds; k++) {
                int q0, n, j0;
                long long bh;
                int2 ti;
                if (k < rounds ? !fa3_round_work<NWG, BKV, false>(fp, k, total, &q0, &bh, &n, &j0, &ti)
                               : fp.split < 2 || !fa3_round_work<NWG, BKV, true>(fp, k, total, &q0, &bh, &n, &j0, &ti))
                    continue;
                if (n > 0) { /* no key to see: nothing to load, the consumers write zeros */
                    const L cur = sm.with_q(qi % QB); /* work tile qi's Q buffer */
                    fa3_produce<D, BKV, NWG>(fp, cur, q0, (int)bh, n, kb, (qi / QB) & 1u, j0);
                    kb = (kb + n) % (2 * FA3_STAGES(D)); /* a stage and its parity: the count mod 2 ST */
                    qi = (qi + 1) % (2 * QB);
                }
            }
        }
    } else {
        asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;\n" :: "n"(FA3_REGS_CONSUMER_W(NWG)) : "memory");
        const int cw = __shfl_sync(0xffffffffu, (tid >> 7) - 1, 0);
        bool failed = false; /* a consumer wait gave up (fa3_bar_wait) */
        int kb = 0;
        unsigned qi = 0;
        const unsigned rounds = fa3_whole_rounds(fp, total);
        if (cw == 0)
            fa3_sched_arrive(FA3_SCHED_BAR); /* the ping-pong's start: consumer 0 issues first */
#pragma unroll 1
        for (unsigned k = 0; k < rounds; k++) { /* the producer's work tiles, in its order */
            int q0, n, j0;
            long long bh;
            int2 ti;
            if (!fa3_round_work<NWG, BKV, false>(fp, k, total, &q0, &bh, &n, &j0, &ti))
                continue;
            T *Oh = (T *)p.o + bh * p.seq_q * D;
            const L cur = sm.with_q(qi % QB); /* as the producer's */
            fa3_consume<T, D, BKV, NWG, SMX>(fp, cur, Oh, q0, n, cw, tid & 127, kb, (qi / QB) & 1u, failed, 0,
                                        make_int2(-1, 0));
            if (n > 0) {
                kb = (kb + n) % (2 * FA3_STAGES(D)); /* as the producer's */
                qi = (qi + 1) % (2 * QB);
            }
        }
        int q0, n, j0;
        long long bh;
        int2 ti;
        if (fp.split > 1 && fa3_round_work<NWG, BKV, true>(fp, rounds, total, &q0, &bh, &n, &j0, &ti)) {
            const L cur = sm.with_q(qi % QB); /* the tail's chunk, as the producer's (n >= 1: no mask) */
            fa3_consume<T, D, BKV, NWG, SMX>(fp, cur, (T *)p.o + bh * p.seq_q * D, q0, n, cw, tid & 127, kb,
                                        (qi / QB) & 1u, failed, j0, ti);
        }
        if (cw == 0)
            fa3_sched_sync(FA3_SCHED_BAR); /* the ping-pong's end: consumer NWG - 1's last arrive */
        if (failed)
            __trap();
    }
}

/* One CTA per (q tile of 64 NWG rows, batch x head), attn_block_tile's
 * order (FA3_PERS: fa3_body_pers, the CTA's work tiles in that order):
 * barriers set up by thread 0 (the empty ones count 4 NWG consumer-warp
 * arrives), then the producer warpgroup (one thread issues every TMA copy)
 * gives registers away and the NWG consumer warpgroups take them
 * (FA3_REGS_PRODUCER_W / FA3_REGS_CONSUMER_W). QB: Q buffers (FA3_QB; 1
 * unless persistent). */
template <typename T, int D, int BKV, int NWG, int QB, int SMX>
static __device__ __forceinline__ void fa3_body(const fa3_params &fp)
{
    typedef fa3_smem<D, BKV, NWG> L;
    static_assert(QB == 1 || FA3_PERS(D), "two Q buffers: the persistent kernel only");
    extern __shared__ float4 fa3_smem4[];
    L sm;
    sm.q = (smem_u32(fa3_smem4) + 1023u) & ~1023u;
    sm.qsel = 0;
    sm.k = sm.q + QB * L::QBYTES;
    sm.v = sm.k + FA3_STAGES(D) * L::KVBYTES;
    sm.bars = sm.v + FA3_STAGES(D) * L::KVBYTES;
    if constexpr (FA3_PERS(D)) {
        if (threadIdx.x == 0) {
            for (int b = 0; b < QB; b++) {
                const L qb = sm.with_q((unsigned)b);
                sgemm_tma_bar_init(qb.bar_q(), 1);
                sgemm_tma_bar_init(qb.empty_q(), 4 * NWG); /* one arrive per consumer warp */
            }
            for (int s = 0; s < FA3_STAGES(D); s++) {
                sgemm_tma_bar_init(sm.full_k(s), 1);
                sgemm_tma_bar_init(sm.full_v(s), 1);
                sgemm_tma_bar_init(sm.empty_k(s), 4 * NWG);
                sgemm_tma_bar_init(sm.empty_v(s), 4 * NWG);
            }
            sgemm_tma_bar_init_fence();
        }
        __syncthreads();
        fa3_body_pers<T, D, BKV, NWG, QB, SMX>(fp, sm);
        return;
    }
    const attn_params &p = fp.p;
    long long qt, bh;
    attn_block_tile(blockIdx.x, p.qtiles, p.nbh, p.causal, &qt, &bh);
    const int q0 = (int)qt * FA3_BQ_W(NWG), tid = threadIdx.x;
    const int ntiles = (int)attn_kv_tiles(q0, FA3_BQ_W(NWG), p.seq_q, p.seq_kv, L::BKV, p.causal);

    if (tid == 0) {
        sgemm_tma_bar_init(sm.bar_q(), 1);
        for (int s = 0; s < FA3_STAGES(D); s++) {
            sgemm_tma_bar_init(sm.full_k(s), 1);
            sgemm_tma_bar_init(sm.full_v(s), 1);
            sgemm_tma_bar_init(sm.empty_k(s), 4 * NWG); /* one arrive per consumer warp */
            sgemm_tma_bar_init(sm.empty_v(s), 4 * NWG);
        }
        sgemm_tma_bar_init_fence();
    }
    __syncthreads();

    if (tid < 128) {
        asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;\n" :: "n"(FA3_REGS_PRODUCER_W(NWG)) : "memory");
        if (tid == 0 && ntiles > 0) /* no key to see: nothing to load, the consumers write zeros */
            fa3_produce<D, BKV, NWG>(fp, sm, q0, (int)bh, ntiles, 0, 0u, 0);
    } else {
        asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;\n" :: "n"(FA3_REGS_CONSUMER_W(NWG)) : "memory");
        T *Oh = (T *)p.o + bh * p.seq_q * D;
        /* the consumer index, broadcast from lane 0: warp-uniform for the
         * compiler too (descriptors in uniform registers) */
        const int cw = __shfl_sync(0xffffffffu, (tid >> 7) - 1, 0);
        bool failed = false; /* FA3_QK_EARLY: a wait gave up (fa3_bar_wait; fa3_consume traps) */
        fa3_consume<T, D, BKV, NWG, SMX>(fp, sm, Oh, q0, ntiles, cw, tid & 127, 0, 0u, failed, 0, make_int2(-1, 0));
    }
}

/* One CTA per SM (ptxas needs both launch bounds to honour setmaxnreg,
 * C7508), 128 (NWG + 1) threads, QB Q buffers (FA3_SMEM_QB's shared
 * memory); the body only in the sm_90a pass, elsewhere empty and never
 * launched. */
template <typename T, int D, int BKV, int NWG, int QB, int SMX>
static __global__ void __launch_bounds__(FA3_THREADS_W(NWG), 1)
    attention_fa3_kernel(const __grid_constant__ fa3_params fp)
{
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
    fa3_body<T, D, BKV, NWG, QB, SMX>(fp);
#endif
}

#endif
