/* kernels/sgemm_tf32_tma.cuh: TF32 SGEMM on Hopper warpgroup MMA, fed by the
 * bulk tensor copy engine (TMA) through an mbarrier ring, two consumer
 * warpgroups issuing in ping-pong order, as a template over its shape; a
 * second kind, persistent and warp-specialised with 2-CTA clusters sharing A
 * by TMA multicast (KIND 1, below); and the table of shape candidates.
 * Compiled for sm_90a only.
 *
 * Included by kernels/sgemm_tf32_tma.cu (the variant tf32_tma: the two
 * candidates it picks, by name) and kernels/search/sgemm_tf32_tma_search.cu
 * (every row of SGEMM_TMA_CANDIDATES, for compare-search only). Names
 * tf32_tma_mBMnBNk32_sST[_pp][_db][_ws] (block tile BM rows x BN columns of
 * C, k slab 32, ST-stage ring; _pp ping-pong issue order, _db two fragment
 * register sets with one wgmma group in flight, _ws a producer warp instead
 * of thread 0), and for KIND 1
 * tf32_tma_mBMn128k32_sST[_pp][_pf|_sk][_stk|_stkl|_kst]_pers[_c2] (_pf the
 * next slab's fragments prefetched, _sk split k when the tiles do not fill
 * the GPU, _stk/_stkl stream-K, _kst the split tail, _c2 clusters of two).
 * Every candidate's figures: results/h200/search_tma*.txt.
 * What the candidates showed (compare-search, same process; runs differ by a
 * few percent):
 *   - m256n128 s4, wait_group 0 per slab: ncu (--clock-control none) had the
 *     tensor pipe idle a good part of the cycles with L2 far from its peak
 *     (not the limit), and most stall cycles counted as barrier waits (the
 *     loop has no block barrier: the warpgroup-wide wgmma ones). Hypothesis:
 *     the two warpgroups issue their batches at about the same moment, the
 *     tensor core interleaves them, both finish together and both then
 *     refill: a bubble per slab.
 *   - _pp (ping-pong: warpgroup 1 issues only after 0 has, 0 only after 1
 *     has; two named barriers): faster, as predicted by that hypothesis
 *     (which it supports), and the chosen one.
 *   - _db (two fragment sets, wait_group 1: a warpgroup's own next batch
 *     queued behind its current one; ptxas does not serialise it, no C7513):
 *     slower, not explained (more registers; the accumulator chain
 *     serialises consecutive batches anyway).
 *   - _ws (a producer warp instead of thread 0): 9 warps cap a thread at 168
 *     registers (4 sub-partitions x 16 K registers), too few for 128
 *     accumulators: spills and C7512 at BM = 256; at BM = 128 slower than
 *     _pp at large sizes, the best up to 1024^2 outputs (more, smaller tiles).
 *   - m128n192 (3 warpgroups) _ws: slower than _pp, noisy.
 *   - m256n192 (3 warpgroups, thread 0 producing; 166 registers and a small
 *     spill at 384 threads): tried because ncu at 8192 has tf32_tma moving
 *     more L2-to-SM sectors than cuBLAS, and a wider tile reads fewer per
 *     FMA; far slower than _pp at 2048-8192 (results/h200/
 *     search_tma_m256n192.txt), so L2 traffic per FMA alone is not what
 *     holds the large sizes back; removed from the table.
 *   - Where the time of the 256x128 structure goes (tests/probes/
 *     tf32_probe.cu; its figures in results/h200/tf32_probe.txt): the same
 *     kernel without the TMA copies (stale stages, a plain arrive on
 *     "full") and, separately, without the per-slab LDS of the fragments
 *     each ran well faster, and without both faster than cuBLAS; ncu had the
 *     tensor pipe busy a clearly smaller share of the cycles than cuBLAS's
 *     kernel, with no shared bank conflicts. The LDS sat on the path: after
 *     a warpgroup's wait_group 0 it loaded the next fragments and only then
 *     could issue.
 *   - _pf (KIND 1): slab kt + 1's fragments are loaded into a second
 *     register set while slab kt's batch runs, after which the next batch
 *     issues right behind the wait_group 0 (the stage is released at the
 *     same point as before, so the ring's lookahead is unchanged). It took
 *     the persistent kernels from below cuBLAS to about level with it at
 *     4096 and past it at 2048 (the probe, then results/h200/sgemm*.csv);
 *     at 8192 the 2-CTA form without ping-pong was the best. The same change
 *     in the KIND 0 kernel (thread 0 producing) ran far slower than without
 *     it, not explained (ptxas: 186 registers, no spill); not in the table.
 *   - Thin m (m16 .. m64 rows, KIND 0 with a producer warp, 6-8 stages):
 *     at m = 16, 32, 64 with n = 14336 each beat the 128-row tile by far
 *     and cuBLAS, the fewest rows that hold m the best
 *     (results/h200/search_tma_thin.txt); at n = 4096 the 64-column form
 *     (twice the tiles) beat the 128-column one, as NARROW does for 128 rows.
 *     There (32 tiles of 128 columns for 132 SMs) the persistent split-k
 *     form of the thin tiles (_sk_pers, KIND 1 with 16 .. 64 rows) beat
 *     both and cuBLAS: the k parts put every SM on the stream of B.
 *   - Clusters of four (a 2 x 2 block of tiles, each CTA multicasting half
 *     of its A slab along its block row and half of its B slab along its
 *     block column: L2 -> SM traffic per slab A / 2 + B / 2): tried because
 *     the 2-CTA multicast gained most at 8192 and the no-TMA probe row said
 *     the copies hold 8192 back. Only 30 such clusters are resident on the
 *     H200 (120 of 132 SMs, against 66 pairs), and the waves of 2 x 2 blocks
 *     quantise worse: slower at 2048, 4096 and 8192 though faster per CTA at
 *     8192 (results/h200/tf32_probe.txt, call 4); not in the table.
 *   - Streaming stores of C (st.global.cs, evict first; the probe built
 *     both ways, call 5): no change at 4096 or 8192, so C's writes are not
 *     what pushes the A and B panels out of L2; not kept.
 *   - Stream-K over the last waves (_stk, _stkl; KIND 1 below): whole
 *     waves of 2-CTA units leave the last one partial (4096: 256 units on
 *     66 clusters, 3.88 waves run as 4), which predicted a few percent at
 *     4096, 8192 and the long LLM shapes. Measured (results/h200/
 *     search_tma_streamk.txt, A/B/C twice in one process): slower than the
 *     whole-tile LARGE pick at 8192 (3-6 points) and 4096x8192x28672 (11
 *     points), level at 2048 and 4096x28672x8192, and at 4096 inside a
 *     clock drift of 17 points between the rounds. Why, as far as it was
 *     found: the spread units' clusters each sit at another k of another
 *     tile, so the A and B slabs they read are not shared in L2 the way a
 *     wave of whole units in the grouped order shares them, and that part
 *     of the run is bound by DRAM; the longer the spread part (1.76 units a
 *     cluster at k = 28672), the larger the loss. Kept as search candidates
 *     (verified, and stress_gpu's tf32 family repeats them bit for bit),
 *     not picked; a form that keeps the spread clusters in k lock-step
 *     would be the next thing to try.
 *   - wait_group 1 in the LARGE form (_pfw1: slab kt's batch issued
 *     before kt - 1's retires, kt - 1's stage released and its fragment set
 *     refilled with kt + 1's after; ptxas kept it unserialised, 168
 *     registers): level with _pf within the clock drift at 2048 .. 8192 and
 *     on the long LLM shapes, not faster (results/h200/
 *     search_tma_pfw1.txt), so the tensor pipe's idle share is not the
 *     gap between one warpgroup's batches; removed from the table.
 *   - The two consumer warpgroups' epilogues in turn in the LARGE form
 *     (_pf_se: warpgroup 1 stored only after 0 had issued its stores, so
 *     that each one's stores would overlap the other's MMAs, as the probe's
 *     no_epi row promised 2-4 points): slower at every size measured, by
 *     about 1 point at 2048 and 2 at 4096 and on 4096x4096x14336
 *     (results/h200/search_tma_se.txt, A/B/A/B in one process). Both
 *     warpgroups storing at once already overlap their store latencies,
 *     and one warpgroup alone cannot keep the tensor pipe busy while the
 *     other stores; removed from the table.
 *   - Where the LARGE pick trails cuBLAS TF32 (8192, the long LLM shapes),
 *     Nsight Compute has it doing the same work in the same cycles at a
 *     lower SM clock while reading 35-70% more bytes from DRAM
 *     (results/h200/ncu_tf32_8192.txt). A dynamic unit order (_dyn: units
 *     from a device counter, so that the units running at once stay one
 *     patch instead of drifting apart wave by wave) read the same DRAM
 *     bytes and ran far slower (results/h200/search_tma_dyn.txt; rank 1's
 *     producer waited on rank 0's per slab); removed from the table.
 *   - The tile order, measured the same way (results/h200/
 *     search_tma_order.txt): 4 rows per group read 25% more DRAM bytes and
 *     16 rows 8% more than the 8 kept here (a wave of 66 2-CTA units is
 *     most nearly square at 8); walking every second unit's k slabs
 *     downwards (_kz, so that a unit starts on the slabs its predecessor
 *     read last, still in L2) read 3-4% fewer; none ran faster, and all
 *     took the same cycles as cuBLAS at a lower clock. Group 4's extra
 *     0.8 GB cost about 1% of clock, so the DRAM bytes explain only a
 *     small part of the clock gap (4-5%): the rest of the extra power is
 *     spent elsewhere. Rows removed.
 *   - Nor is it the traffic between the two L2 partitions, though that is
 *     where tf32_tma differs most from cuBLAS (1.75x its L2 fabric sectors
 *     at 8192, with 11% fewer instructions and 17% fewer shared-memory
 *     wavefronts; results/h200/ncu_tf32_fabric.txt): 128-byte L2 promotion
 *     instead of 256 cut the fabric sectors by a third and the clock, the
 *     time and the interleaved ratio did not move; the tile orders above
 *     moved them by -5 to +20%, with the clock within 1%.
 *   - What closed the gap was the operands' low bits (results/h200/
 *     tf32_rounding.txt). With FP32 tensor maps the copy engine moved
 *     cuRAND's full 23-bit mantissas into shared memory and the tensor core
 *     dropped the low 13 (truncation). cuBLAS TF32's error against FP64 was
 *     2.65x smaller, sqrt(7): exactly what rounding both operands gives
 *     against truncating both on uniform (-1, 1] inputs. Pre-rounded inputs
 *     (tests/probes/tf32_round_probe.sh) raised the power-capped clock of
 *     both kernels and closed most of the gap, so the low bits were the
 *     extra power. Rounding only the B^T fragments (cvt.rna in registers,
 *     _pf_rn) cut the error to 1.6x cuBLAS's and moved no clock. Rounding A
 *     in shared memory with the producer warpgroup's idle warps (_pf_rnab)
 *     matched cuBLAS's error and ran at half speed (3.3x the instructions).
 *     TF32 tensor maps (CU_TENSOR_MAP_DATA_TYPE_TFLOAT32) make the copy
 *     engine round both operands on their way in, at no instruction cost:
 *     the results are bit for bit cuBLAS's, and at 8192 the clock rose
 *     from 1.57 to 1.61 GHz under ncu with the instruction count
 *     unchanged. Now every candidate's maps are TF32 (SGEMM_TMA_DATA_TYPE);
 *     the three rows were removed.
 *
 * Idea (what changes against sgemm_tf32_wgmma.cuh, the step before)
 *   The same math and operand roles: C^T = B^T A^T on
 *   wgmma.mma_async.m64nNk8.f32.tf32.tf32, the B^T fragments from registers
 *   (RS form: for .tf32 both shared-memory operands would have to be K-major,
 *   and B is N-major), A^T by a K-major 128-byte-swizzle descriptor; both
 *   rounded to TF32 by the copy engine (SGEMM_TMA_DATA_TYPE). That
 *   kernel stayed well below cuBLAS TF32: every thread issued cp.async copies,
 *   and one __syncthreads per 32-wide k slab lined both warpgroups up, so
 *   both waited for their MMAs at the same moment and the tensor core ran
 *   dry once per slab. Here:
 *   - Copies: one thread issues, per slab, one TMA box of A (32 k x BM rows,
 *     SWIZZLE_128B: exactly the layout the descriptor reads) and BN / 32
 *     boxes of B (32 n x 32 k each, SWIZZLE_128B), completing on the stage's
 *     "full" mbarrier (expect_tx of the whole stage). Edges are free: TMA
 *     fills every element outside m, n or k with zero, which adds 0.
 *   - No block-wide barrier in the main loop. Each consumer warpgroup waits
 *     on "full[s]", loads its B^T fragments, runs 4 wgmma, waits for them,
 *     and each of its warps arrives on "empty[s]" (count 4 x consumer
 *     warpgroups). The producer is thread 0 (a consumer too: a ninth,
 *     producer-only warp would cap every thread at 168 registers, see _ws
 *     below): after issuing its own MMAs it tops the ring up with every
 *     slab whose stage "empty" says is free, without blocking; it blocks on
 *     "empty" only for a slab its warpgroup needs next, which the other
 *     warps can always release (no deadlock).
 *   - Ping-pong (_pp): warpgroup 1 issues slab kt's batch only after 0 has
 *     (named barrier 1), and 0 issues kt + 1 only after 1 has issued kt
 *     (named barrier 2). Each batch queues behind the other's, so one
 *     warpgroup refills its fragments while the other's batch runs.
 *   B^T fragments from the swizzled B box. Thread (warp w of its warpgroup,
 *   lane = 4 g + t) owns the wgmma rows 16 w + g and 16 w + g + 8; rows map
 *   to n columns (a free permutation, undone at the store) as the pair
 *   n0 = 64 cw + 32 (w >> 1) + 2 q, n0 + 1, with
 *   q = (g & 1) + 8 ((g >> 1) & 1) + 2 (g >> 2) + 4 (w & 1).
 *   Then a0, a1 = B[k = 8 j + t][n0, n0 + 1] and a2, a3 = the same at k + 4:
 *   one LDS.64 each. In the swizzled box, 16-byte chunk q / 2 of row k sits
 *   at chunk (q / 2) ^ (k & 7); the 16 lanes of a half warp (g = 0..3 or
 *   4..7, t = 0..3) reach 8 distinct chunks x 2 halves = all 32 banks once:
 *   no bank conflict.
 *   Accumulators and store: as sgemm_tf32_wgmma.cu, d[4 j + v0 + 2 v1] =
 *   C[bm0 + 8 j + 2 t + v0][bn0 + n0 + v1]: float2 stores.
 *
 * Constraints (why)
 *   - n % 4 == 0 and k % 4 == 0 (TMA global strides are multiples of 16
 *     bytes), A and B 16-byte aligned (TMA base), C 8-byte aligned (float2
 *     stores). Otherwise the launcher returns cudaErrorNotSupported and the
 *     variant falls back to the mma.sync kernel. Any m >= 1.
 *   - The tensor maps are encoded on the host (cuTensorMapEncodeTiled, found
 *     through cudaGetDriverEntryPointByVersion: no -lcuda) for each call;
 *     they travel as __grid_constant__ kernel parameters.
 *   - A thread that polls an mbarrier 2^30 times without success traps (a
 *     fault the tool reports; tens of seconds at tens of ns a poll) instead
 *     of hanging the run.
 *   - sm_90a only; the body is empty in any other device pass (a binary
 *     without an sm_90a image fails at the launch, never silently).
 *
 * KIND 1 (_pers): persistent, warp-specialised, clusters of two
 *   The same math, fragments, descriptors, swizzle and stores as above;
 *   what changes is who does what, and for how long.
 *   - Persistent grid: min(units, resident clusters) clusters (the launcher
 *     asks cudaOccupancyMaxActiveClusters once per device), each walking
 *     units first, first + clusters, ... (a static schedule: no atomics, no
 *     workspace). A unit is one BM x 128 tile (CL = 1) or two side by side
 *     along n (CL = 2, one per CTA of the cluster, same rows of A), taken in
 *     the grouped order (tile_order.cuh), so the clusters running at once
 *     cover a compact patch of C and share A and B panels in L2 at 8192.
 *   - Warp specialisation: 384 threads, warpgroup 0 the producer (one thread
 *     issues every TMA copy; setmaxnreg.dec to 40 registers), warpgroups 1
 *     and 2 the consumers (setmaxnreg.inc to 232; 128 x 40 + 256 x 232 fits
 *     the 64 K register file). The ring runs across units: the producer
 *     keeps loading the next unit's slabs into the stages the consumers
 *     free, so one unit's epilogue (plain float2 stores) overlaps the next
 *     unit's loads, and no thread that computes ever waits on an empty stage.
 *     ptxas reports 168 registers (the launch bound of 384 threads;
 *     without the min-blocks bound of __launch_bounds__(384, 1) it drops
 *     setmaxnreg altogether, C7508), and no spill for BM = 256 consumers
 *     (128 accumulators + 16 fragments, or 32 with _pf); their loop keeps
 *     no other live state (the split-k bookkeeping is compiled out, SK = 0).
 *   - Ping-pong (_pp) across the CTA's whole run of slabs, not per tile: a
 *     per-tile pattern would let warpgroup 0 arrive twice on a named barrier
 *     across a tile boundary before 1 waits once (a barrier generation
 *     completed by one warpgroup alone: a hang at the end).
 *   - Cluster of 2 (_c2): each CTA's producer loads half of the A slab
 *     (BM / 2 rows: the A tensor map's box) and multicasts it to both CTAs
 *     (same shared offset, completing the same full barrier in each), and
 *     loads its own B. L2 -> SM traffic per slab drops from A + B to A / 2 +
 *     B per CTA. Barriers: full[s] counts the local producer's one
 *     arrive.expect_tx of the whole stage (the peer's bytes may land first:
 *     the tx count goes negative, the phase cannot complete before the
 *     local arrive); empty[s] counts 8 consumer warps x 2 CTAs, each warp
 *     arriving on both CTAs' empty[s] (mapa + remote arrive) after its wgmma
 *     retired, since either producer's multicast writes into both. A
 *     producer writes round r of stage s only after empty[s] completed
 *     round r - 1 (parity ph ^ 1; round 0 passes at once), so neither CTA's
 *     stage is overwritten while the other's consumers still read it. Both
 *     CTAs walk the same units and the same k slabs in the same order (the
 *     right member of an odd last pair loads zeros past n and stores
 *     nothing), so the rounds match. Start: barrier init + fence, then a
 *     cluster barrier before anyone arrives remotely or multicasts. Exit: a
 *     cluster barrier, so no CTA leaves while its peer may still arrive on
 *     its barriers (every multicast into a CTA has landed before its own
 *     consumers finish: they waited for each full barrier).
 *   - Split k (_sk): when the units do not fill the resident clusters
 *     (512, 1024), k is cut in nsplit parts of at least
 *     SGEMM_TMAP_MIN_SPLIT_SLABS slabs (none empty), each part a unit; the
 *     launcher zeroes C and the parts are added with float2 atomics (the
 *     order of the additions varies: results differ from run to run in the
 *     last bits, within the TF32 tolerance).
 *   - Prefetch (_pf): see "What the candidates showed" above; the unit's
 *     first slab's fragments are loaded before its loop (once a unit).
 *   - Stream-K (_stk: SK = 2, _stkl: SK = 3): when the last wave of units
 *     is at most 15/16 full, the last whole wave and the partial one (S +
 *     rem units on S clusters) are one run of slabs cut into S equal
 *     contiguous ranges (sgemm_tmap_item), run before (_stk) or after
 *     (_stkl) the other units, which go out whole. A range is at least one
 *     unit's slabs, so a tile is cut at most once, into a head (its first
 *     slabs, the end of cluster c - 1's range) and a tail (the start of
 *     cluster c's). The two pieces meet through a per-device workspace
 *     (sgemm_tmap_splice): whichever arrives second adds the other's
 *     accumulators and stores the tile; nobody waits for anybody, so no
 *     cluster needs another to be resident. Head + tail is one float
 *     addition either way round: results are deterministic.
 *   - Split tail (_kst: SK = 4): the tiles of a persistent grid go out in
 *     whole waves, and when the last wave is partial, the clusters without
 *     a unit in it wait out a whole unit's time (1024 x 14336 x 4096: 224
 *     units on 66 clusters, 3 whole waves and 26 units). Here the launcher
 *     cuts each of those rem units into P k pieces, as many as still run in
 *     one round (P = S / rem, at most 4: sgemm_tmap_kst_plan; there P = 2,
 *     52 pieces), and hands them out piece-major after the whole units:
 *     every cluster's piece starts at the same moment (all clusters finish
 *     their whole waves together), and, unlike stream-K's contiguous ranges
 *     (each cluster at another k of another tile, its slabs shared by no
 *     one: DRAM-bound, see above), the pieces running at once read the same
 *     k range of neighbouring tiles, in lock-step, as a whole wave does. The
 *     P pieces of a tile meet through the workspace (sgemm_tmap_gather):
 *     each stores its accumulators in its slot; the last to arrive adds the
 *     P partial tiles in piece order and stores the sums, so results are
 *     deterministic; nobody waits. Measured (results/h200/
 *     search_tma_kst.txt, A/B in one process, three calls):
 *     1024 x 14336 x 4096 about as much faster as the 3.5 unit times
 *     instead of 4 predicted, in every call; 2304 x 2048 x 4096 (6 units in
 *     4 pieces) far faster in both calls that ran it; 2048 x 49152 x 12288
 *     (18 units in 3 pieces, 23.33 unit times against 24) moved either way
 *     between calls: inside that long power-capped shape's drift. With more
 *     pieces than clusters (rounds of pieces: 8192, 34 units in 3 pieces,
 *     102 pieces, two rounds; 6144, three; 4096 x 14336 x 4096, two) it ran
 *     slower than whole units, not the 2-3% faster predicted: under the
 *     power cap the idle tail was not lost time (the busy SMs' clock is
 *     held by the energy of the whole run, and the pieces add their slot
 *     traffic to it), so the plan splits only into one round. Without a
 *     tail to cut the launcher runs the same candidate's whole-tile kernel
 *     (SK 0), so those shapes run exactly the kernel they ran before.
 *   - Not done: a TMA store epilogue (a 256 x 128 FP32 tile is 128 KB of
 *     staging next to a 192 KB ring: it does not fit, and the stores already
 *     overlap the next unit's loads).
 *   Constraints: those above (n, k multiples of 4, A and B 16-byte aligned,
 *   C 8-byte aligned; the launcher declines otherwise), plus a cluster
 *   launch (cudaLaunchKernelEx) for CL = 2.
 */
#include <stdint.h>

#ifndef KERNELS_SGEMM_TF32_TMA_CUH
#define KERNELS_SGEMM_TF32_TMA_CUH

#include <cuda.h>
#include <cudaTypedefs.h>
#include <cuda_runtime.h>

#include "candidate_name.cuh"
#include "sgemm_tf32_stage.cuh"
#include "sgemm_wgmma_common.cuh"
#include "smem.cuh"

// ---- fixed parameters ----------------------------------------------------------

#define SGEMM_TMA_BK 32                      /* k slab: 4 wgmma k steps, one 128-byte row */
#define SGEMM_TMA_BOX_BYTES 4096             /* one 32 x 32-float box */
#define SGEMM_TMA_SPIN_LIMIT (1u << 30)      /* failed mbarrier polls before a wait traps (> 20 s) */

/* NWG consumer warpgroups (warps 0 .. 4 NWG - 1), then with WS one producer
 * warp; BN = 64 NWG columns of C. Registers: the 4 SM sub-partitions hold
 * 64 K / 4 registers each and a block's warps are spread over them, so 9
 * warps (2 warpgroups + a producer warp) or 12 (+ a producer warpgroup) cap a
 * thread at 168 registers: with 128 accumulators (BM = 256) ptxas spills and
 * serialises the wgmma (C7512; setmaxnreg does not raise ptxas's own limit).
 * 8 warps allow 255: so BM = 256 candidates run without WS, thread 0 of the
 * consumers issuing the copies. */
#define SGEMM_TMA_THREADS_OF(NWG, WS) (128 * (NWG) + ((WS) ? 32 : 0))
#define SGEMM_TMA_BN_OF(NWG) (64 * (NWG))
#define SGEMM_TMA_ASTAGE(BM) ((BM) * SGEMM_TMA_BK * 4)
#define SGEMM_TMA_BSTAGE(NWG) (SGEMM_TMA_BN_OF(NWG) * SGEMM_TMA_BK * 4)
/* stages, 2 ST mbarriers, + 1024: the base is rounded up to a 1024-byte boundary */
#define SGEMM_TMA_SMEM_OF(NWG, BM, ST) \
    ((ST) * (SGEMM_TMA_ASTAGE(BM) + SGEMM_TMA_BSTAGE(NWG)) + 16 * (ST) + 1024)

// ---- mbarrier and TMA (inline PTX, sm_90) ------------------------------------------

static __device__ __forceinline__ void sgemm_tma_bar_init(unsigned bar, unsigned count)
{
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" :: "r"(bar), "r"(count) : "memory");
}

/* the inits, visible to the async proxy (TMA completes on these barriers) */
static __device__ __forceinline__ void sgemm_tma_bar_init_fence(void)
{
    asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
}

static __device__ __forceinline__ void sgemm_tma_bar_expect(unsigned bar, unsigned bytes)
{
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n"
                 :: "r"(bar), "r"(bytes) : "memory");
}

static __device__ __forceinline__ void sgemm_tma_bar_arrive(unsigned bar)
{
    asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" :: "r"(bar) : "memory");
}

static __device__ __forceinline__ int sgemm_tma_bar_try(unsigned bar, unsigned parity)
{
    unsigned done;
    asm volatile("{\n .reg .pred p;\n"
                 " mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n"
                 " selp.u32 %0, 1, 0, p;\n}\n"
                 : "=r"(done) : "r"(bar), "r"(parity) : "memory");
    return (int)done;
}

/* wait for the completion of the phase with this parity; trap after
 * SGEMM_TMA_SPIN_LIMIT polls (one register live, next to 128 accumulators) */
static __device__ __forceinline__ void sgemm_tma_bar_wait(unsigned bar, unsigned parity)
{
    unsigned polls = 0;
    while (!sgemm_tma_bar_try(bar, parity))
        if (++polls > SGEMM_TMA_SPIN_LIMIT)
            __trap();
}

/* named barrier `id` over `count` threads: wait for it / arrive without
 * waiting (id and count are literals after inlining) */
static __device__ __forceinline__ void sgemm_tma_named_sync(int id, int count)
{
    asm volatile("bar.sync %0, %1;\n" :: "r"(id), "r"(count) : "memory");
}

static __device__ __forceinline__ void sgemm_tma_named_arrive(int id, int count)
{
    asm volatile("bar.arrive %0, %1;\n" :: "r"(id), "r"(count) : "memory");
}

/* 2-D tiled TMA load of the box at (c0 inner, c1 outer) into shared `dst`,
 * completing `bar`'s transaction count */
static __device__ __forceinline__ void sgemm_tma_load(unsigned dst, const CUtensorMap *map, int c0,
                                                      int c1, unsigned bar)
{
    asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
                 " [%0], [%1, {%2, %3}], [%4];\n"
                 :: "r"(dst), "l"((unsigned long long)(uintptr_t)map), "r"(c0), "r"(c1), "r"(bar)
                 : "memory");
}

// ---- kernel body -----------------------------------------------------------------

/* B^T fragments of one slab: 16 registers, LDS.64 at shared addresses
 * lo + 1024 j and hi + 1024 j (32-bit shared addresses: fewer live registers
 * than generic pointers next to 128 accumulators) */
static __device__ __forceinline__ void sgemm_tma_frags(unsigned lo, unsigned hi, unsigned *f)
{
#pragma unroll
    for (int j = 0; j < 4; j++) {
        asm volatile("ld.shared.v2.b32 {%0, %1}, [%2];\n"
                     : "=r"(f[4 * j + 0]), "=r"(f[4 * j + 1]) : "r"(lo + 1024 * j) : "memory");
        asm volatile("ld.shared.v2.b32 {%0, %1}, [%2];\n"
                     : "=r"(f[4 * j + 2]), "=r"(f[4 * j + 3]) : "r"(hi + 1024 * j) : "memory");
    }
}

/* Issue the TMA copies of k slab kt into its stage (kt % ST), completing full[s]. */
static __device__ __forceinline__ void sgemm_tma_issue(const CUtensorMap *ta, const CUtensorMap *tb,
                                                       int kt, int bm0, int bn0, unsigned smem,
                                                       unsigned b_st, unsigned bars, const int NWG,
                                                       const int BM, const int ST)
{
    const int s = kt % ST;
    const unsigned full = bars + 8 * s;
    sgemm_tma_bar_expect(full, SGEMM_TMA_ASTAGE(BM) + SGEMM_TMA_BSTAGE(NWG));
    sgemm_tma_load(smem + s * SGEMM_TMA_ASTAGE(BM), ta, kt * SGEMM_TMA_BK, bm0, full);
    const unsigned bs = b_st + s * SGEMM_TMA_BSTAGE(NWG);
#pragma unroll
    for (int j = 0; j < SGEMM_TMA_BN_OF(NWG) / 32; j++)
        sgemm_tma_load(bs + j * SGEMM_TMA_BOX_BYTES, tb, bn0 + 32 * j, kt * SGEMM_TMA_BK, full);
}

/* The empty barrier of slab kt's stage has completed the phase that frees it
 * (the release of slab kt - ST by every consumer warp); kt < ST: always free. */
static __device__ __forceinline__ unsigned sgemm_tma_empty_parity(int kt, const int ST)
{
    return (unsigned)(kt / ST - 1) & 1u;
}

/* !WS producer (thread 0, prod = 1): make sure slab kt has been issued,
 * blocking on its stage's empty barrier if needed (rare: the top-up issues
 * ahead). The slabs the other warps wait for are all issued already, so this
 * wait cannot deadlock. */
static __device__ __forceinline__ void sgemm_tma_need(const CUtensorMap *ta, const CUtensorMap *tb,
                                                      int prod, int *issued, int kt, int bm0,
                                                      int bn0, unsigned smem, unsigned b_st,
                                                      unsigned bars, const int NWG, const int BM,
                                                      const int ST)
{
    if (prod && *issued == kt) {
        sgemm_tma_bar_wait(bars + 8 * (ST + kt % ST), sgemm_tma_empty_parity(kt, ST));
        sgemm_tma_issue(ta, tb, kt, bm0, bn0, smem, b_st, bars, NWG, BM, ST);
        *issued = kt + 1;
    }
}

/* !WS producer, after slab kt's wgmma are issued: issue every further slab
 * (up to kt + ST - 1, whose stage held a slab <= kt - 1) whose stage every
 * consumer warp has released, without blocking */
static __device__ __forceinline__ void sgemm_tma_top_up(const CUtensorMap *ta, const CUtensorMap *tb,
                                                        int prod, int *issued, int kt, int KT,
                                                        int bm0, int bn0, unsigned smem,
                                                        unsigned b_st, unsigned bars, const int NWG,
                                                        const int BM, const int ST)
{
    if (!prod)
        return;
    while (*issued < KT && *issued < kt + ST &&
           sgemm_tma_bar_try(bars + 8 * (ST + *issued % ST), sgemm_tma_empty_parity(*issued, ST))) {
        sgemm_tma_issue(ta, tb, *issued, bm0, bn0, smem, b_st, bars, NWG, BM, ST);
        *issued += 1;
    }
}

static __device__ __forceinline__ void sgemm_tma_body(const CUtensorMap *ta, const CUtensorMap *tb,
                                                      float *C, int m, int n, int k, const int NWG,
                                                      const int BM, const int ST, const int DB,
                                                      const int WS, const int PP)
{
    extern __shared__ float4 sgemm_tma_smem4[];
    const int BN = SGEMM_TMA_BN_OF(NWG);
    const unsigned raw = smem_u32(sgemm_tma_smem4);
    const unsigned smem = (raw + 1023u) & ~1023u;       /* ST A stages, ST B stages, barriers */
    const unsigned b_st = smem + ST * SGEMM_TMA_ASTAGE(BM);
    const unsigned bars = b_st + ST * SGEMM_TMA_BSTAGE(NWG); /* full[ST], then empty[ST] */
    int bm0, bn0;
    tile_order_origin(blockIdx.x, m, n, BM, BN, SGEMM_WG_GROUP_M, &bm0, &bn0);
    const int KT = (k + SGEMM_TMA_BK - 1) / SGEMM_TMA_BK;
    const int tid = threadIdx.x;

    if (tid == 0) {
        for (int s = 0; s < ST; s++) {
            sgemm_tma_bar_init(bars + 8 * s, 1);                  /* the producer's expect_tx */
            sgemm_tma_bar_init(bars + 8 * (ST + s), 4 * NWG);     /* one arrive per consumer warp */
        }
        sgemm_tma_bar_init_fence();
    }
    __syncthreads();

    if (WS && tid >= 128 * NWG) { /* producer warp: one thread issues every copy */
        if (tid == 128 * NWG) {
            for (int kt = 0; kt < KT; kt++) {
                if (kt >= ST)
                    sgemm_tma_bar_wait(bars + 8 * (ST + kt % ST), sgemm_tma_empty_parity(kt, ST));
                sgemm_tma_issue(ta, tb, kt, bm0, bn0, smem, b_st, bars, NWG, BM, ST);
            }
        }
        return;
    }
    /* !WS: thread 0 (a consumer) also produces: `issued` slabs so far; it
     * tops the ring up without blocking after each slab's wgmma are issued,
     * and blocks on an empty barrier only when the slab it needs next has not
     * been issued (the other warps need only earlier slabs: no deadlock). */
    const int prod = !WS && tid == 0;
    int issued = 0;
    if (prod)
        for (; issued < KT && issued < ST; issued++)
            sgemm_tma_issue(ta, tb, issued, bm0, bn0, smem, b_st, bars, NWG, BM, ST);

    /* consumer warpgroup cw */
    const int cw = tid >> 7, ct = tid & 127;
    const int w = ct >> 5, lane = ct & 31, g = lane >> 2, t = lane & 3;
    const int q = (g & 1) + 8 * ((g >> 1) & 1) + 2 * (g >> 2) + 4 * (w & 1);
    const int n0 = 64 * cw + 32 * (w >> 1) + 2 * q; /* this thread's n pair in the tile */
    const int box = (n0 >> 5) * SGEMM_TMA_BOX_BYTES + (n0 & 3) * 4;
    const int chunk = (n0 & 31) >> 2;
    const unsigned lo = b_st + box + t * 128 + ((chunk ^ t) << 4);             /* k = 8 j + t */
    const unsigned hi = b_st + box + (t + 4) * 128 + ((chunk ^ (t + 4)) << 4); /* k = 8 j + t + 4 */

    float d[128];
#pragma unroll
    for (int i = 0; i < BM / 2; i++) {
        d[i] = 0.0f;
        sgemm_wg_fence_operand(&d[i]);
    }
    if (!DB) {
        unsigned f[16];
        for (int kt = 0; kt < KT; kt++) {
            const int s = kt % ST;
            sgemm_tma_need(ta, tb, prod, &issued, kt, bm0, bn0, smem, b_st, bars, NWG, BM, ST);
            sgemm_tma_bar_wait(bars + 8 * s, (unsigned)(kt / ST) & 1u);
            sgemm_tma_frags(lo + s * SGEMM_TMA_BSTAGE(NWG), hi + s * SGEMM_TMA_BSTAGE(NWG), f);
            __syncwarp();
            /* PP: warpgroup 0 issues slab kt, then 1 does, then 0 issues kt + 1:
             * each batch queues behind the other's, so one warpgroup refills
             * its fragments while the other's batch runs (named barrier 1:
             * 0 has issued, 1 may; 2: 1 has issued, 0 may) */
            if (PP && cw == 1)
                sgemm_tma_named_sync(1, 256);
            else if (PP && cw == 0 && kt > 0)
                sgemm_tma_named_sync(2, 256);
            sgemm_wg_mma_slab(d, f, smem + s * SGEMM_TMA_ASTAGE(BM), BM);
            if (PP && cw == 0)
                sgemm_tma_named_arrive(1, 256);
            else if (PP && cw == 1 && kt + 1 < KT)
                sgemm_tma_named_arrive(2, 256);
            sgemm_tma_top_up(ta, tb, prod, &issued, kt, KT, bm0, bn0, smem, b_st, bars, NWG, BM, ST);
            __syncwarp();
            sgemm_wg_wait0();
            __syncwarp();
            if (lane == 0)
                sgemm_tma_bar_arrive(bars + 8 * (ST + s));
        }
    } else {
        /* two fragment sets: slab kt's wgmma run from set kt & 1 while set
         * (kt + 1) & 1, whose group has been retired (wait_group 1), is
         * loaded for slab kt + 1; the loop is unrolled by two so that each
         * set is a fixed group of registers */
        unsigned f[2][16];
        if (KT > 0) {
            sgemm_tma_bar_wait(bars, 0u);
            sgemm_tma_frags(lo, hi, f[0]);
        }
#pragma unroll 1
        for (int k2 = 0; k2 < KT; k2 += 2) {
#pragma unroll
            for (int h = 0; h < 2; h++) {
                const int kt = k2 + h;
                if (kt < KT) {
                    const int s = kt % ST;
                    __syncwarp();
                    sgemm_wg_mma_slab(d, f[h], smem + s * SGEMM_TMA_ASTAGE(BM), BM);
                    if (kt > 0) { /* slab kt - 1 retired: its stage and set h ^ 1 are free */
                        sgemm_wg_wait1();
                        __syncwarp();
                        if (lane == 0)
                            sgemm_tma_bar_arrive(bars + 8 * (ST + (kt - 1) % ST));
                    }
                    sgemm_tma_top_up(ta, tb, prod, &issued, kt, KT, bm0, bn0, smem, b_st, bars,
                                     NWG, BM, ST);
                    __syncwarp();
                    if (kt + 1 < KT) {
                        const int s1 = (kt + 1) % ST;
                        sgemm_tma_need(ta, tb, prod, &issued, kt + 1, bm0, bn0, smem, b_st, bars,
                                       NWG, BM, ST);
                        sgemm_tma_bar_wait(bars + 8 * s1, (unsigned)((kt + 1) / ST) & 1u);
                        sgemm_tma_frags(lo + s1 * SGEMM_TMA_BSTAGE(NWG),
                                        hi + s1 * SGEMM_TMA_BSTAGE(NWG), f[h ^ 1]);
                    }
                }
            }
        }
        sgemm_wg_wait0(); /* the last slab (its stage is not refilled: no release) */
    }
#pragma unroll
    for (int i = 0; i < BM / 2; i++)
        sgemm_wg_fence_operand(&d[i]);

    /* epilogue: d[4j + v0 + 2 v1] = C[bm0 + 8j + 2t + v0][bn0 + n0 + v1] */
    const int gn = bn0 + n0;
    if (gn < n) { /* n % 4 == 0 and gn even: gn + 1 < n too */
#pragma unroll
        for (int j = 0; j < BM / 8; j++) {
            const int m0 = bm0 + 8 * j + 2 * t;
            if (m0 < m)
                *(float2 *)(C + (size_t)m0 * n + gn) = make_float2(d[4 * j + 0], d[4 * j + 2]);
            if (m0 + 1 < m)
                *(float2 *)(C + (size_t)(m0 + 1) * n + gn) = make_float2(d[4 * j + 1], d[4 * j + 3]);
        }
    }
}

// ---- KIND 1: persistent, warp-specialised, optional 2-CTA cluster (see the header) ----

#define SGEMM_TMAP_THREADS 384    /* producer warpgroup + 2 consumer warpgroups */
#define SGEMM_TMAP_PROD_REGS 40   /* setmaxnreg of the producer warpgroup */
#define SGEMM_TMAP_CONS_REGS 232  /* of each consumer warpgroup: 128 x 40 + 256 x 232 <= 64 K */

/* this CTA's rank in its cluster (0 without a cluster launch) */
static __device__ __forceinline__ unsigned sgemm_tma_cluster_rank(void)
{
    unsigned r;
    asm volatile("mov.u32 %0, %%cluster_ctarank;\n" : "=r"(r));
    return r;
}

/* every thread of every CTA of the cluster: arrive (release), then wait
 * (acquire); not .aligned, so a divergent warp may call it */
static __device__ __forceinline__ void sgemm_tma_cluster_sync(void)
{
    asm volatile("barrier.cluster.arrive.release;\n"
                 "barrier.cluster.wait.acquire;\n" ::: "memory");
}

/* the shared::cluster address of `addr` (a shared::cta address) in CTA `rank` of the cluster */
static __device__ __forceinline__ unsigned sgemm_tma_mapa(unsigned addr, unsigned rank)
{
    unsigned r;
    asm volatile("mapa.shared::cluster.u32 %0, %1, %2;\n" : "=r"(r) : "r"(addr), "r"(rank));
    return r;
}

/* arrive on an mbarrier of any CTA of the cluster (a shared::cluster
 * address). Default semantics (release, CTA scope), as CUTLASS's cluster
 * barrier: what it orders is reads of the stage that have already returned
 * (wgmma retired, fragments in registers) before the peer's TMA overwrites
 * it; the .release.cluster form costs a MEMBAR.ALL.GPU per arrive. */
static __device__ __forceinline__ void sgemm_tma_bar_arrive_cluster(unsigned bar)
{
    asm volatile("mbarrier.arrive.shared::cluster.b64 _, [%0];\n" :: "r"(bar) : "memory");
}

/* TMA load multicast to the CTAs of `mask`: the box lands at shared offset
 * `dst` of each, completing the mbarrier at offset `bar` of each */
static __device__ __forceinline__ void sgemm_tma_load_mc(unsigned dst, const CUtensorMap *map, int c0,
                                                         int c1, unsigned bar, unsigned short mask)
{
    asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
                 ".multicast::cluster [%0], [%1, {%2, %3}], [%4], %5;\n"
                 :: "r"(dst), "l"((unsigned long long)(uintptr_t)map), "r"(c0), "r"(c1), "r"(bar),
                    "h"(mask)
                 : "memory");
}

/* KIND 1 consumer warpgroup cw: one slab's batch (4 wgmma on fragments f and
 * the A stage at a_stage), in ping-pong order when PP (see the loop in
 * sgemm_tmap_body): warpgroup 1 waits on named barrier 1 before every slab,
 * 0 on barrier 2 unless `first_slab`; 0 arrives on 1 after every slab, 1 on
 * 2 unless `last_slab` */
static __device__ __forceinline__ void sgemm_tmap_batch(float *d, unsigned *f, unsigned a_stage, const int BM,
                                                        const int PP, int cw, int first_slab, int last_slab)
{
    if (PP && cw == 1)
        sgemm_tma_named_sync(1, 256);
    else if (PP && cw == 0 && !first_slab)
        sgemm_tma_named_sync(2, 256);
    sgemm_wg_mma_slab(d, f, a_stage, BM);
    if (PP && cw == 0)
        sgemm_tma_named_arrive(1, 256);
    else if (PP && cw == 1 && !last_slab)
        sgemm_tma_named_arrive(2, 256);
}

/* KIND 1: stage `empty` (its empty barrier) read by this warp (fragments
 * loaded, wgmma retired): lane 0 releases it to the producer of every CTA
 * of the cluster that writes into it */
static __device__ __forceinline__ void sgemm_tmap_release(unsigned empty, int lane, const int CL)
{
    if (lane == 0) {
        if (CL == 1)
            sgemm_tma_bar_arrive(empty);
        else
            for (unsigned r = 0; r < (unsigned)CL; r++)
                sgemm_tma_bar_arrive_cluster(sgemm_tma_mapa(empty, r));
    }
}

/* KIND 1 schedule, the kernel's last argument (host-filled by
 * sgemm_tmap_launch). Split k (SK = 1): kts slabs per part, nsplit parts.
 * Stream-K (SK = 2, 3): sk_units tile units whose k slabs are spread evenly
 * over the clusters (0: none, every unit whole), ws and cnt their partial
 * tiles and arrival counters (SGEMM_STAGE_POOL_STREAMK, see
 * sgemm_tmap_splice). Split tail (SK = 4): the last sk_units tile units (0:
 * none) cut into nsplit pieces of kts slabs (the last may be shorter, none
 * empty), ws and cnt as for stream-K (sgemm_tmap_gather). */
typedef struct {
    int kts, nsplit;
    int sk_units;
    float *ws;
    unsigned *cnt;
} sgemm_tmap_sched;

#define SGEMM_TMAP_SK_MAX_CLUSTERS 1024 /* stream-K: counters for this many boundaries */
/* stream-K workspace: the counters (fixed size, first: every candidate's
 * launches share them; SGEMM_TMAP_SK_CNT_N for SK 2 and 3's boundaries, then
 * as many for SK 4's tail units), then per boundary, CTA rank, consumer
 * warpgroup and role (0 the head piece, 1 the tail) one slot of BM x 64
 * floats; SK 4: per tail unit, CTA rank, consumer warpgroup and piece one
 * such slot */
#define SGEMM_TMAP_SK_CNT_N (SGEMM_TMAP_SK_MAX_CLUSTERS * 2 * 2)
#define SGEMM_TMAP_SK_CNT_BYTES (2 * SGEMM_TMAP_SK_CNT_N * 4)
#define SGEMM_TMAP_SK_WS_BYTES(CLUSTERS, CL, BM) \
    (SGEMM_TMAP_SK_CNT_BYTES + (size_t)((CLUSTERS) + 1) * (CL) * 2 * 2 * (BM) * 64 * 4)
#define SGEMM_TMAP_KST_WS_BYTES(TAIL, PIECES, CL, BM) \
    (SGEMM_TMAP_SK_CNT_BYTES + (size_t)(TAIL) * (CL) * 2 * (PIECES) * (BM) * 64 * 4)

/* This cluster's work items (cluster `first` of `step`): their count, and
 * item `it` as a tile unit u (a pair (CL = 2) or a single tile (CL = 1) of
 * BM x 128 tiles side by side along n, in the grouped order) with its k
 * slabs [kt0, kt1).
 *   SK 0: units first, first + step, ... whole.
 *   SK 1 (split k): units of tile_units x nsplit; unit u is part
 *     u / tile_units (slabs [part kts, +kts)) of tile unit u % tile_units.
 *   SK 2, 3 (stream-K): the first (SK 2) or last (SK 3) sk_units tile units
 *     form one run of sk_units x KT slabs cut into `step` equal contiguous
 *     ranges, range c = [T c / step, T (c + 1) / step) for cluster c; the
 *     other units go out whole, unit (wave) x step + first. A range is cut
 *     at tile boundaries into pieces; sk_units >= step, so every range has
 *     at least KT slabs and each tile at most one inner boundary: a piece is
 *     whole, the head of a tile (kt0 = 0, kt1 < KT: cluster c + 1 has the
 *     rest) or its tail (kt0 > 0, kt1 = KT: cluster c - 1 has the head).
 *   SK 4 (split tail): units first, first + step, ... whole up to the last
 *     sk_units (the partial last wave, sk_units < step), then pieces
 *     t = first, first + step, ... < nsplit x sk_units, piece t being k part
 *     t / sk_units (slabs [part kts, +kts)) of tail unit t % sk_units:
 *     piece-major, so the pieces running at once share k ranges. */
static __device__ __forceinline__ int sgemm_tmap_items(int first, int step, int units, int KT,
                                                       const sgemm_tmap_sched &sc, const int SK)
{
    if (SK == 4) {
        const int whole = (units - sc.sk_units - first + step - 1) / step;
        const int pieces = sc.nsplit * sc.sk_units;
        return whole + (first < pieces ? (pieces - first + step - 1) / step : 0);
    }
    if (SK < 2 || sc.sk_units == 0)
        return (units - first + step - 1) / step;
    const long long T = (long long)sc.sk_units * KT;
    const long long b0 = T * first / step, b1 = T * (first + 1) / step;
    return (int)((b1 - 1) / KT - b0 / KT + 1) + (units - sc.sk_units) / step;
}

static __device__ __forceinline__ void sgemm_tmap_item(int it, int first, int step, int units, int KT,
                                                       const sgemm_tmap_sched &sc, const int SK, int *u,
                                                       int *kt0, int *kt1)
{
    if (SK == 1) {
        const int tile_units = units / sc.nsplit, v = first + it * step;
        const int sp = v / tile_units;
        *u = v - sp * tile_units;
        *kt0 = sp * sc.kts;
        *kt1 = min(KT, *kt0 + sc.kts); /* > kt0: the launcher makes every split non-empty */
        return;
    }
    *kt0 = 0;
    *kt1 = KT;
    if (SK == 4) {
        const int dp = units - sc.sk_units, whole = (dp - first + step - 1) / step;
        if (it < whole) {
            *u = first + it * step;
            return;
        }
        const int t = first + (it - whole) * step, part = t / sc.sk_units;
        *u = dp + (t - part * sc.sk_units);
        *kt0 = part * sc.kts;
        *kt1 = min(KT, *kt0 + sc.kts); /* > kt0: the launcher makes every piece non-empty */
        return;
    }
    if (SK < 2 || sc.sk_units == 0) {
        *u = first + it * step;
        return;
    }
    const int dp_units = units - sc.sk_units, sk_base = SK == 2 ? 0 : dp_units;
    const long long T = (long long)sc.sk_units * KT;
    const long long b0 = T * first / step, b1 = T * (first + 1) / step;
    const int t0 = (int)(b0 / KT), pieces = (int)((b1 - 1) / KT) - t0 + 1;
    const int p = SK == 2 ? it : it - dp_units / step; /* piece index when in [0, pieces) */
    if (p >= 0 && p < pieces) {
        const long long tile0 = (long long)(t0 + p) * KT;
        *u = sk_base + t0 + p;
        *kt0 = p == 0 ? (int)(b0 - tile0) : 0;
        *kt1 = p == pieces - 1 ? (int)(b1 - tile0) : KT;
        return;
    }
    const int w = SK == 2 ? it - pieces : it; /* a whole unit's wave */
    *u = (SK == 2 ? sc.sk_units : 0) + w * step + first;
}

/* Tile unit u's tile for this CTA: rows bm0.., columns bn0.. (CL x the unit
 * column + rank: past n for the right member of an odd last pair, which
 * loads zeros, stores nothing, and still multicasts its half of A to its
 * peer). */
static __device__ __forceinline__ void sgemm_tmap_tile(int u, int units_n, int tiles_m, unsigned rank,
                                                       const int BM, const int CL, int *bm0, int *bn0)
{
    const int2 t = tile_order_grouped(u, units_n, tiles_m, SGEMM_WG_GROUP_M);
    *bm0 = t.y * BM;
    *bn0 = (t.x * CL + (int)rank) * 128;
}

/* Stream-K: a piece of a tile (head or tail, see sgemm_tmap_item) meets
 * the other piece, through the workspace, per consumer warpgroup (its 64
 * columns of the tile; 128 threads, named barrier 3 + cw). The two pieces
 * of boundary c (the start of cluster c's range) count on cnt[c, rank, cw]:
 * each adds 1 once per launch, so an odd count means the other piece has
 * already arrived in this launch (the counts start at 0 when the workspace
 * is allocated and grow by 2 per split boundary per launch: never reset).
 * A piece that finds the other not yet arrived stores its accumulators in
 * its slot (thread-major float4: coalesced, no C layout), fences, and
 * arrives; if the other arrived meanwhile (the count it added to was odd),
 * or had arrived before it looked, it is the last: it adds the other's slot
 * to its registers and returns 1 (the caller stores the tile); else 0 (the
 * tile is the other's to store). Head + tail in either order is the same
 * float sum (two terms): results do not depend on which finished last.
 * Nobody waits for anybody: no residency assumption, no deadlock. */
static __device__ __forceinline__ int sgemm_tmap_splice(float *d, const sgemm_tmap_sched &sc, int bidx,
                                                        int role, unsigned rank, int cw, int ct,
                                                        const int BM, const int CL)
{
    __shared__ unsigned sgemm_tmap_last[2];
    const size_t who = ((size_t)bidx * CL + rank) * 2 + (size_t)cw;
    unsigned *cnt = sc.cnt + who;
    float4 *slot = (float4 *)(sc.ws + SGEMM_TMAP_SK_CNT_BYTES / 4) + (who * 2 + (size_t)role) * (BM * 16);
    const float4 *other = (float4 *)(sc.ws + SGEMM_TMAP_SK_CNT_BYTES / 4) + (who * 2 + (size_t)(role ^ 1)) * (BM * 16);
    /* each write of sgemm_tmap_last[cw] comes after a barrier that follows
     * every read of its previous value */
    sgemm_tma_named_sync(3 + cw, 128);
    if (ct == 0) {
        unsigned v;
        asm volatile("ld.acquire.gpu.global.u32 %0, [%1];\n" : "=r"(v) : "l"(cnt) : "memory");
        sgemm_tmap_last[cw] = v & 1u;
    }
    sgemm_tma_named_sync(3 + cw, 128);
    int last = (int)sgemm_tmap_last[cw];
    if (!last) {
#pragma unroll
        for (int i = 0; i < BM / 8; i++)
            __stcg(slot + i * 128 + ct, make_float4(d[4 * i], d[4 * i + 1], d[4 * i + 2], d[4 * i + 3]));
        __threadfence();
        sgemm_tma_named_sync(3 + cw, 128); /* every slot store fenced, every read of the peek done */
        if (ct == 0)
            sgemm_tmap_last[cw] = atomicAdd(cnt, 1u) & 1u;
        sgemm_tma_named_sync(3 + cw, 128);
        last = (int)sgemm_tmap_last[cw];
        if (!last)
            return 0;
    } else if (ct == 0) {
        atomicAdd(cnt, 1u); /* the launch's second arrival: the count stays even */
    }
    __threadfence();
#pragma unroll
    for (int i = 0; i < BM / 8; i++) {
        const float4 o = __ldcg(other + i * 128 + ct);
        d[4 * i] += o.x;
        d[4 * i + 1] += o.y;
        d[4 * i + 2] += o.z;
        d[4 * i + 3] += o.w;
    }
    return 1;
}

/* Split tail (SK 4): piece `part` of tail unit `tu` (of sc.nsplit pieces)
 * meets the others through the workspace, per consumer warpgroup (its 64
 * columns of the tile; 128 threads, named barrier 3 + cw). Every piece
 * stores its accumulators d in its slot (thread-major float4), fences, and
 * adds 1 to cnt[SGEMM_TMAP_SK_CNT_N + (tu, rank, cw)], which is 0 at every
 * launch's start (zeroed with the workspace; the last piece of a launch sets
 * it back to 0, after every other piece has added to it). The piece that
 * makes the count nsplit is the last: it sums the nsplit partial tiles in
 * piece order from the slots and stores the sums to C (its thread's
 * elements, as the caller's epilogue would: d[4 j + v0 + 2 v1] =
 * C[bm0 + 8 j + 2 t + v0][gn + v1]); the others store nothing. The sum's
 * order does not depend on which piece came last: results are
 * deterministic. Nobody waits for anybody. The sum runs from memory, in a
 * loop that is not unrolled, so that it holds no accumulator registers
 * (unrolled over d, ptxas spilled at the 168 registers of the launch bound). */
static __device__ __forceinline__ void sgemm_tmap_gather(const float *d, const sgemm_tmap_sched &sc, int tu,
                                                         int part, unsigned rank, int cw, int ct, float *C,
                                                         int m, int n, int bm0, int gn, int t, const int BM,
                                                         const int CL)
{
    __shared__ unsigned sgemm_tmap_done[2];
    const int P = sc.nsplit;
    const size_t who = ((size_t)tu * CL + rank) * 2 + (size_t)cw;
    unsigned *cnt = sc.cnt + SGEMM_TMAP_SK_CNT_N + who;
    float4 *slots = (float4 *)(sc.ws + SGEMM_TMAP_SK_CNT_BYTES / 4) + who * P * (BM * 16);
    float4 *mine = slots + (size_t)part * (BM * 16);
#pragma unroll
    for (int i = 0; i < BM / 8; i++)
        __stcg(mine + i * 128 + ct, make_float4(d[4 * i], d[4 * i + 1], d[4 * i + 2], d[4 * i + 3]));
    __threadfence();
    /* every slot store fenced; each write of sgemm_tmap_done[cw] comes after
     * a barrier that follows every read of its previous value */
    sgemm_tma_named_sync(3 + cw, 128);
    if (ct == 0) {
        const unsigned before = atomicAdd(cnt, 1u);
        sgemm_tmap_done[cw] = before + 1u == (unsigned)P;
        if (before + 1u == (unsigned)P) /* every other piece has added its 1: back to 0 */
            atomicExch(cnt, 0u);
    }
    sgemm_tma_named_sync(3 + cw, 128);
    if (!sgemm_tmap_done[cw])
        return;
    __threadfence();
    if (gn >= n) /* the right member of an odd last pair: nothing to store */
        return;
#pragma unroll 1
    for (int i = 0; i < BM / 8; i++) {
        float4 acc = __ldcg(slots + i * 128 + ct);
        for (int q = 1; q < P; q++) {
            const float4 o = __ldcg(slots + (size_t)q * (BM * 16) + i * 128 + ct);
            acc.x += o.x;
            acc.y += o.y;
            acc.z += o.z;
            acc.w += o.w;
        }
        const int m0 = bm0 + 8 * i + 2 * t;
        if (m0 < m)
            *(float2 *)(C + (size_t)m0 * n + gn) = make_float2(acc.x, acc.z);
        if (m0 + 1 < m)
            *(float2 *)(C + (size_t)(m0 + 1) * n + gn) = make_float2(acc.y, acc.w);
    }
}

template <int BM, int ST, int PP, int CL, int SK, int PF>
static __device__ __forceinline__ void sgemm_tmap_body(const CUtensorMap *ta, const CUtensorMap *tb,
                                                       float *C, int m, int n, int k,
                                                       const sgemm_tmap_sched &sc)
{
    constexpr int NWG = 2;
    constexpr unsigned STAGE_BYTES = SGEMM_TMA_ASTAGE(BM) + SGEMM_TMA_BSTAGE(NWG);
    extern __shared__ float4 sgemm_tma_smem4[];
    const unsigned raw = smem_u32(sgemm_tma_smem4);
    const unsigned smem = (raw + 1023u) & ~1023u;       /* ST A stages, ST B stages, barriers */
    const unsigned b_st = smem + ST * SGEMM_TMA_ASTAGE(BM);
    const unsigned bars = b_st + ST * SGEMM_TMA_BSTAGE(NWG); /* full[ST], then empty[ST] */
    const int tid = threadIdx.x;
    const unsigned rank = CL > 1 ? sgemm_tma_cluster_rank() : 0u;
    const int tiles_m = (m + BM - 1) / BM;
    const int units_n = ((n + 127) / 128 + CL - 1) / CL;
    const int KT = (k + SGEMM_TMA_BK - 1) / SGEMM_TMA_BK;
    /* without split k a compile-time 1, no register (BM = 256 is at ptxas's limit) */
    const int nsplit = SK == 1 ? sc.nsplit : 1;
    const int units = tiles_m * units_n * nsplit; /* < 2^31: checked by the launcher */
    const int first = (int)blockIdx.x / CL, step = (int)gridDim.x / CL; /* cluster id, count */
    const int items = sgemm_tmap_items(first, step, units, KT, sc, SK); /* this cluster's */

    if (tid == 0) {
        for (int s = 0; s < ST; s++) {
            sgemm_tma_bar_init(bars + 8 * s, 1);                 /* this CTA's producer's expect_tx */
            sgemm_tma_bar_init(bars + 8 * (ST + s), 4 * NWG * CL); /* every consumer warp of the cluster */
        }
        sgemm_tma_bar_init_fence();
    }
    /* CL = 2: the peer's barriers are initialised before anyone arrives on
     * them or multicasts into them */
    if (CL > 1)
        sgemm_tma_cluster_sync();
    else
        __syncthreads();

    if (tid < 128) {
        /* producer warpgroup: gives its registers to the consumers; one thread issues */
        asm volatile("setmaxnreg.dec.sync.aligned.u32 40;\n" ::: "memory");
        if (tid == 0) {
            int s = 0;
            unsigned ph = 0; /* round parity of stage s */
            for (int it = 0; it < items; it++) {
                int u, bm0, bn0, kt0, kt1;
                sgemm_tmap_item(it, first, step, units, KT, sc, SK, &u, &kt0, &kt1);
                sgemm_tmap_tile(u, units_n, tiles_m, rank, BM, CL, &bm0, &bn0);
                for (int kt = kt0; kt < kt1; kt++) {
                    const unsigned full = bars + 8 * s;
                    /* round r of stage s: every consumer warp of the cluster
                     * released round r - 1 (round 0: parity 1 passes at once) */
                    sgemm_tma_bar_wait(bars + 8 * (ST + s), ph ^ 1u);
                    sgemm_tma_bar_expect(full, STAGE_BYTES);
                    const unsigned as = smem + s * SGEMM_TMA_ASTAGE(BM);
                    if (CL == 1)
                        sgemm_tma_load(as, ta, kt * SGEMM_TMA_BK, bm0, full);
                    else /* rows rank x BM / CL.. of the A slab, into both CTAs */
                        sgemm_tma_load_mc(as + rank * (SGEMM_TMA_ASTAGE(BM) / CL), ta, kt * SGEMM_TMA_BK,
                                          bm0 + (int)rank * (BM / CL), full,
                                          (unsigned short)((1u << CL) - 1u));
                    const unsigned bs = b_st + s * SGEMM_TMA_BSTAGE(NWG);
#pragma unroll
                    for (int j = 0; j < 4; j++)
                        sgemm_tma_load(bs + j * SGEMM_TMA_BOX_BYTES, tb, bn0 + 32 * j, kt * SGEMM_TMA_BK,
                                       full);
                    if (++s == ST) {
                        s = 0;
                        ph ^= 1u;
                    }
                }
            }
        }
    } else {
        asm volatile("setmaxnreg.inc.sync.aligned.u32 232;\n" ::: "memory");
        /* consumer warpgroup cw: fragments and stores as sgemm_tma_body */
        const int cw = (tid >> 7) - 1, ct = tid & 127;
        const int w = ct >> 5, lane = ct & 31, g = lane >> 2, t = lane & 3;
        const int q = (g & 1) + 8 * ((g >> 1) & 1) + 2 * (g >> 2) + 4 * (w & 1);
        const int n0 = 64 * cw + 32 * (w >> 1) + 2 * q; /* this thread's n pair in the tile */
        const int box = (n0 >> 5) * SGEMM_TMA_BOX_BYTES + (n0 & 3) * 4;
        const int chunk = (n0 & 31) >> 2;
        const unsigned lo = b_st + box + t * 128 + ((chunk ^ t) << 4);             /* k = 8 j + t */
        const unsigned hi = b_st + box + (t + 4) * 128 + ((chunk ^ (t + 4)) << 4); /* k = 8 j + t + 4 */
        int s = 0;
        unsigned ph = 0;
        unsigned f[PF ? 2 : 1][16]; /* fragment sets: two with _pf */
        float d[BM / 2];
        for (int it = 0; it < items; it++) {
            int u, bm0, bn0, kt0, kt1;
            sgemm_tmap_item(it, first, step, units, KT, sc, SK, &u, &kt0, &kt1);
            sgemm_tmap_tile(u, units_n, tiles_m, rank, BM, CL, &bm0, &bn0);
#pragma unroll
            for (int i = 0; i < BM / 2; i++) {
                d[i] = 0.0f;
                sgemm_wg_fence_operand(&d[i]);
            }
            /* _pf: slab kt + 1's fragments are loaded into the other set
             * while slab kt's batch runs (see "What the candidates showed"),
             * the unit's first slab's before its loop; the loop is unrolled
             * by two so that each set is a fixed group of registers. Without
             * _pf each slab's fragments are loaded just before its batch. */
            constexpr int UNROLL = PF ? 2 : 1;
            if (PF) {
                sgemm_tma_bar_wait(bars + 8 * s, ph);
                sgemm_tma_frags(lo + s * SGEMM_TMA_BSTAGE(NWG), hi + s * SGEMM_TMA_BSTAGE(NWG), f[0]);
            }
#pragma unroll 1
            for (int k2 = kt0; k2 < kt1; k2 += UNROLL) {
#pragma unroll
                for (int h = 0; h < UNROLL; h++) {
                    const int kt = k2 + h;
                    if (kt >= kt1)
                        break;
                    if (!PF) {
                        sgemm_tma_bar_wait(bars + 8 * s, ph);
                        sgemm_tma_frags(lo + s * SGEMM_TMA_BSTAGE(NWG), hi + s * SGEMM_TMA_BSTAGE(NWG), f[0]);
                    }
                    __syncwarp();
                    /* PP: strict alternation over the CTA's whole run of
                     * slabs, across units (0 issues, then 1, then 0 its
                     * next...): 0 arrives on named barrier 1 after every
                     * slab, 1 waits for it before every slab; 1 arrives on
                     * barrier 2 after every slab but the CTA's last, 0 waits
                     * for it before every slab but the CTA's first (units are
                     * never empty, so both counts match). Each arrival is
                     * consumed before the next one: no barrier ever holds two
                     * generations (a per-unit pattern would let 0 arrive
                     * twice on barrier 1 across a unit boundary). */
                    sgemm_tmap_batch(d, f[PF ? h : 0], smem + s * SGEMM_TMA_ASTAGE(BM), BM, PP, cw,
                                     it == 0 && kt == kt0, it + 1 == items && kt + 1 == kt1);
                    const int s1 = s + 1 == ST ? 0 : s + 1;
                    const unsigned ph1 = s + 1 == ST ? ph ^ 1u : ph;
                    if (PF && kt + 1 < kt1) {
                        sgemm_tma_bar_wait(bars + 8 * s1, ph1);
                        sgemm_tma_frags(lo + s1 * SGEMM_TMA_BSTAGE(NWG), hi + s1 * SGEMM_TMA_BSTAGE(NWG),
                                        f[PF ? h ^ 1 : 0]);
                    }
                    __syncwarp();
                    sgemm_wg_wait0();
                    __syncwarp();
                    /* stage s read (fragments loaded, wgmma retired) */
                    sgemm_tmap_release(bars + 8 * (ST + s), lane, CL);
                    s = s1;
                    ph = ph1;
                }
            }
#pragma unroll
            for (int i = 0; i < BM / 2; i++)
                sgemm_wg_fence_operand(&d[i]);
            /* epilogue (the producer is already loading the next unit's
             * slabs): d[4j + v0 + 2 v1] = C[bm0 + 8j + 2t + v0][bn0 + n0 + v1];
             * split k: added (float2 atomics) into C, zeroed by the launcher;
             * stream-K: a head or tail piece stores only if it is the
             * second of its tile's two pieces to arrive, with the other's
             * sum added (its boundary: the start of this cluster's range
             * for a tail, of the next cluster's for a head); split tail:
             * the last of a tile's pieces to arrive stores the sum of all
             * (sgemm_tmap_gather) */
            if ((SK == 2 || SK == 3) && (kt0 > 0 || kt1 < KT) &&
                !sgemm_tmap_splice(d, sc, kt0 > 0 ? first : first + 1, kt0 > 0 ? 1 : 0, rank, cw, ct, BM, CL))
                continue;
            if (SK == 4 && (kt0 > 0 || kt1 < KT)) {
                /* the piece's tail unit and part, recomputed from `it` (no
                 * register held across the loop for them) */
                int pu, pk0, pk1;
                sgemm_tmap_item(it, first, step, units, KT, sc, SK, &pu, &pk0, &pk1);
                sgemm_tmap_gather(d, sc, pu - (units - sc.sk_units), pk0 / sc.kts, rank, cw, ct, C, m, n, bm0,
                                  bn0 + n0, t, BM, CL);
                continue;
            }
            const int gn = bn0 + n0;
            if (gn < n && (SK != 1 || nsplit == 1)) { /* n % 4 == 0 and gn even: gn + 1 < n too */
#pragma unroll
                for (int j = 0; j < BM / 8; j++) {
                    const int m0 = bm0 + 8 * j + 2 * t;
                    if (m0 < m)
                        *(float2 *)(C + (size_t)m0 * n + gn) = make_float2(d[4 * j + 0], d[4 * j + 2]);
                    if (m0 + 1 < m)
                        *(float2 *)(C + (size_t)(m0 + 1) * n + gn) = make_float2(d[4 * j + 1], d[4 * j + 3]);
                }
            } else if (gn < n) {
#pragma unroll
                for (int j = 0; j < BM / 8; j++) {
                    const int m0 = bm0 + 8 * j + 2 * t;
                    if (m0 < m)
                        atomicAdd((float2 *)(C + (size_t)m0 * n + gn), make_float2(d[4 * j + 0], d[4 * j + 2]));
                    if (m0 + 1 < m)
                        atomicAdd((float2 *)(C + (size_t)(m0 + 1) * n + gn),
                                  make_float2(d[4 * j + 1], d[4 * j + 3]));
                }
            }
        }
    }
    /* CL = 2: no CTA leaves while its peer may still arrive on its barriers
     * (its consumers' last releases); every multicast into this CTA has
     * landed already (its consumers waited for each full barrier) */
    if (CL > 1)
        sgemm_tma_cluster_sync();
}

// ---- host side: tensor maps, launch ----------------------------------------------

/* cuTensorMapEncodeTiled from the driver, through the runtime (no -lcuda) */
static PFN_cuTensorMapEncodeTiled_v12000 sgemm_tma_encoder(void)
{
    static PFN_cuTensorMapEncodeTiled_v12000 fn;
    static int tried;
    if (!tried) {
        void *p = NULL;
        cudaDriverEntryPointQueryResult q = cudaDriverEntryPointSymbolNotFound;
        tried = 1;
        if (cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &p, 12000, cudaEnableDefault,
                                             &q) == cudaSuccess &&
            q == cudaDriverEntryPointSuccess)
            fn = (PFN_cuTensorMapEncodeTiled_v12000)p;
    }
    return fn;
}

/* L2 promotion of every TMA load (the L2 fills whole 256-byte blocks around a
 * miss); 128 B moved a third less across the two L2 partitions at 8192 and ran
 * in the same time (results/h200/ncu_tf32_fabric.txt); a probe may build with
 * another (COMPARE_KERNEL_DEFS, tests/probes/tma_l2_probe.sh) */
#ifndef SGEMM_TMA_L2_PROMOTION
#define SGEMM_TMA_L2_PROMOTION CU_TENSOR_MAP_L2_PROMOTION_L2_256B
#endif

/* Element type of every map: TF32, so the copy engine rounds each FP32
 * element to TF32 (round to nearest) on its way into shared memory, as cuBLAS
 * TF32 does (bit for bit the same results); FP32 keeps the low 13 bits, which
 * the tensor core drops (truncation: 2.65x the error, and the extra bits cost
 * power; see "What the candidates showed"). A probe may build with FP32
 * (COMPARE_KERNEL_DEFS=SGEMM_TMA_DATA_TYPE=CU_TENSOR_MAP_DATA_TYPE_FLOAT32). */
#ifndef SGEMM_TMA_DATA_TYPE
#define SGEMM_TMA_DATA_TYPE CU_TENSOR_MAP_DATA_TYPE_TFLOAT32
#endif

/* row-major rows x cols FP32 matrix, boxes of box_cols x box_rows, 128-byte swizzle,
 * zero fill outside, rounded to TF32 on the way in (SGEMM_TMA_DATA_TYPE); 0 or a
 * cudaError_t value */
static int sgemm_tma_map(CUtensorMap *map, const float *base, int rows, int cols, int box_cols,
                         int box_rows)
{
    PFN_cuTensorMapEncodeTiled_v12000 enc = sgemm_tma_encoder();
    if (!enc)
        return (int)cudaErrorNotSupported; /* driver without TMA: the mma.sync fallback */
    const cuuint64_t dims[2] = {(cuuint64_t)cols, (cuuint64_t)rows};
    const cuuint64_t strides[1] = {(cuuint64_t)cols * 4};
    const cuuint32_t boxd[2] = {(cuuint32_t)box_cols, (cuuint32_t)box_rows};
    const cuuint32_t estr[2] = {1, 1};
    CUresult r = enc(map, SGEMM_TMA_DATA_TYPE, 2, (void *)base, dims, strides, boxd,
                     estr, CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
                     SGEMM_TMA_L2_PROMOTION, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    return r == CUDA_SUCCESS ? 0 : (int)cudaErrorInvalidValue;
}

typedef void (*sgemm_tma_kernel_fn)(const CUtensorMap, const CUtensorMap, float *, int, int, int);

static int sgemm_tma_launch(sgemm_tma_kernel_fn kern, unsigned long long *attr_set, int BM, int BN, int threads,
                            int smem, const float *A, const float *B, float *C, int m, int n,
                            int k, cudaStream_t stream)
{
    CUtensorMap ta, tb;
    unsigned tiles;
    int rc = sgemm_wg_shape_ok(A, B, C, m, n, k);
    if (rc == 0)
        rc = sgemm_tma_map(&ta, A, m, k, SGEMM_TMA_BK, BM);
    if (rc == 0)
        rc = sgemm_tma_map(&tb, B, k, n, 32, SGEMM_TMA_BK);
    if (rc == 0)
        rc = sgemm_wg_prepare((const void *)kern, attr_set, smem, m, n, BM, BN, &tiles);
    if (rc != 0)
        return rc;
    kern<<<tiles, threads, smem, stream>>>(ta, tb, C, m, n, k);
    return (int)cudaGetLastError();
}

/* KIND 1 kernels: the tensor maps, C, m, n, k, the schedule */
typedef void (*sgemm_tmap_kernel_fn)(const CUtensorMap, const CUtensorMap, float *, int, int, int,
                                     const sgemm_tmap_sched);

#define SGEMM_TMAP_MIN_SPLIT_SLABS 4 /* k slabs per split at least (split k) */

/* KIND 1: clusters of CL CTAs that can be resident at once on the current
 * device (cfg: the launch, its cluster attribute set), queried once per
 * device into cache[dev] (0..63; 0 = not yet queried); 0 or an error */
static int sgemm_tmap_slots(sgemm_tmap_kernel_fn kern, const cudaLaunchConfig_t *cfg, int CL, int *cache,
                            int *slots)
{
    int dev = 0, v = 0;
    cudaError_t e = cudaGetDevice(&dev);
    if (e != cudaSuccess)
        return (int)e;
    v = dev < 64 ? __atomic_load_n(&cache[dev], __ATOMIC_RELAXED) : 0;
    if (v == 0) {
        if (CL > 1) {
            e = cudaOccupancyMaxActiveClusters(&v, (const void *)kern, cfg);
        } else {
            int sms = 0, per_sm = 0;
            e = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
            if (e == cudaSuccess)
                e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, (const void *)kern,
                                                                  (int)cfg->blockDim.x,
                                                                  cfg->dynamicSmemBytes);
            v = sms * per_sm;
        }
        if (e != cudaSuccess)
            return (int)e;
        if (v < 1)
            return (int)cudaErrorInvalidConfiguration; /* not even one cluster fits */
        if (dev < 64)
            __atomic_store_n(&cache[dev], v, __ATOMIC_RELAXED);
    }
    *slots = v;
    return 0;
}

/* Stream-K (SK 2, 3) on `units` tile units over S resident clusters: the
 * units whose slabs are spread (sgemm_tmap_item), 0 for none. Whole waves
 * leave the last one rem = units % S units for S clusters: S - rem of them
 * idle for one unit's time. Spreading S + rem units (the last whole wave
 * and the partial one; at least one unit's slabs a cluster, so a tile has
 * at most two pieces) evens the clusters out, at the price of one partial
 * tile written and read through the workspace per split boundary; taken
 * when that frees at least 1/16 of a unit's time (rem <= 15 S / 16) and
 * there is a whole wave to spread with. */
static inline long long sgemm_tmap_streamk_units(long long units, long long S)
{
    const long long rem = units % S;
    if (units <= S || rem == 0 || (S - rem) * 16 < S || S > SGEMM_TMAP_SK_MAX_CLUSTERS)
        return 0;
    return S + rem;
}

/* Split tail (SK 4): how many tail units (the partial last wave: units %
 * S on S clusters, 0 for none) to cut into how many k pieces (*pieces,
 * 2 .. 4, each at least SGEMM_TMAP_MIN_SPLIT_SLABS slabs): the most that
 * still run in one round (P rem <= S), so that the tail takes 1 / P of a
 * unit's time instead of a whole one. Not taken when two pieces do not fit
 * in one round (rem > S / 2): rounds of pieces measured slower than whole
 * units on the H200 (8192: 34 units in 3 pieces, two rounds; see "Split
 * tail" in the KIND 1 notes at the top). */
static inline long long sgemm_tmap_kst_plan(long long units, long long S, int KT, int *pieces)
{
    const long long rem = S > 0 ? units % S : 0;
    *pieces = 0;
    if (units <= S || rem == 0 || 2 * rem > S || rem > SGEMM_TMAP_SK_MAX_CLUSTERS)
        return 0;
    int P = (int)(S / rem);
    if (P > 4)
        P = 4;
    while (P >= 2 && KT < P * SGEMM_TMAP_MIN_SPLIT_SLABS)
        P--;
    if (P < 2)
        return 0;
    *pieces = P;
    return rem;
}

/* KIND 1 launch: a persistent grid of min(units, resident clusters) clusters
 * of CL CTAs (cluster dimension set at the launch, not compiled in). SK = 1
 * and fewer tile units than resident clusters: k split in nsplit parts (each
 * at least SGEMM_TMAP_MIN_SPLIT_SLABS slabs, none empty), C zeroed first and
 * the parts added into it. SK = 2, 3 (stream-K) and a partial last wave:
 * the workspace (SGEMM_STAGE_POOL_STREAMK, taken in turn with other calls
 * on any stream) and the spread units (sgemm_tmap_streamk_units);
 * cudaErrorMemoryAllocation (cleared) when the workspace cannot be had,
 * for the caller to run a whole-tile candidate instead. */
static int sgemm_tmap_launch(sgemm_tmap_kernel_fn kern, unsigned long long *attr_set, int *slot_cache,
                             sgemm_tmap_kernel_fn kern_whole, unsigned long long *attr_set_whole, int BM, int CL,
                             int SK, int smem, const float *A, const float *B, float *C, int m, int n, int k,
                             cudaStream_t stream)
{
    CUtensorMap ta, tb;
    int rc = sgemm_wg_shape_ok(A, B, C, m, n, k);
    if (rc == 0)
        rc = sgemm_tma_map(&ta, A, m, k, SGEMM_TMA_BK, BM / CL); /* CL = 2: half an A slab per CTA */
    if (rc == 0)
        rc = sgemm_tma_map(&tb, B, k, n, 32, SGEMM_TMA_BK);
    if (rc == 0)
        rc = smem_opt_in((const void *)kern, smem, attr_set);
    if (rc != 0)
        return rc;
    cudaLaunchAttribute attr[1];
    attr[0].id = cudaLaunchAttributeClusterDimension;
    attr[0].val.clusterDim.x = (unsigned)CL;
    attr[0].val.clusterDim.y = 1;
    attr[0].val.clusterDim.z = 1;
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = dim3((unsigned)CL, 1, 1);
    cfg.blockDim = dim3(SGEMM_TMAP_THREADS, 1, 1);
    cfg.dynamicSmemBytes = (size_t)smem;
    cfg.stream = stream;
    cfg.attrs = attr;
    cfg.numAttrs = CL > 1 ? 1 : 0;
    int slots = 0;
    rc = sgemm_tmap_slots(kern, &cfg, CL, slot_cache, &slots);
    if (rc != 0)
        return rc;
    const int KT = (k + SGEMM_TMA_BK - 1) / SGEMM_TMA_BK;
    const long long tile_units = (long long)((m + BM - 1) / BM) * (((n + 127) / 128 + CL - 1) / CL);
    long long nsplit = 1;
    if (SK == 1 && tile_units < slots) { /* split k only: stream-K spreads its own way */
        nsplit = slots / tile_units;
        if (nsplit > KT / SGEMM_TMAP_MIN_SPLIT_SLABS)
            nsplit = KT / SGEMM_TMAP_MIN_SPLIT_SLABS;
        if (nsplit < 1)
            nsplit = 1;
    }
    const int kts = (int)((KT + nsplit - 1) / nsplit); /* slabs per split */
    nsplit = (KT + kts - 1) / kts;                     /* every split non-empty */
    const long long units = tile_units * nsplit;
    if (units > 0x7fffffffLL)
        return (int)cudaErrorInvalidValue;
    if (nsplit > 1) {
        const cudaError_t e = cudaMemsetAsync(C, 0, (size_t)m * n * sizeof(float), stream);
        if (e != cudaSuccess)
            return (int)e;
    }
    const long long clusters = units < slots ? units : slots;
    sgemm_tmap_sched sc = {kts, (int)nsplit, 0, NULL, NULL};
    int ws_slot = -1;
    size_t ws_bytes = 0;
    if ((SK == 2 || SK == 3) && (sc.sk_units = (int)sgemm_tmap_streamk_units(units, clusters)) > 0)
        ws_bytes = SGEMM_TMAP_SK_WS_BYTES(clusters, CL, BM);
    int pieces = 0;
    if (SK == 4 && (sc.sk_units = (int)sgemm_tmap_kst_plan(units, clusters, KT, &pieces)) > 0) {
        sc.kts = (KT + pieces - 1) / pieces;
        sc.nsplit = (KT + sc.kts - 1) / sc.kts; /* every piece non-empty */
        ws_bytes = SGEMM_TMAP_KST_WS_BYTES(sc.sk_units, sc.nsplit, CL, BM);
    } else if (SK == 4) {
        /* no tail to cut: the same candidate's whole-tile kernel (SK = 0,
         * the same resources), instruction for instruction the kernel
         * without the split tail */
        kern = kern_whole;
        if ((rc = smem_opt_in((const void *)kern, smem, attr_set_whole)) != 0)
            return rc;
    }
    if (ws_bytes > 0) {
        void *ws = NULL;
        rc = sgemm_stage_acquire(SGEMM_STAGE_POOL_STREAMK, ws_bytes, stream, &ws, &ws_slot);
        if (rc != 0)
            return rc;
        sc.ws = (float *)ws;
        sc.cnt = (unsigned *)ws;
    }
    cfg.gridDim = dim3((unsigned)(clusters * CL), 1, 1);
    rc = (int)cudaLaunchKernelEx(&cfg, kern, ta, tb, C, m, n, k, sc);
    if (rc == 0)
        rc = (int)cudaGetLastError();
    if (ws_slot >= 0) {
        const int rel = sgemm_stage_release(ws_slot, stream);
        rc = rc != 0 ? rc : rel;
    }
    return rc;
}

// ---- candidates ------------------------------------------------------------------

/* X(NAME, BM, BN, ST, DB, WS, PP, MINB, KIND, CL, SK): BM rows of C (=
 * wgmma N: 16, 32, 64 (the thin-m tiles), 128 or 256), BN =
 * 64 NWG columns (NWG consumer warpgroups), ST stages, DB double-buffered
 * fragments with one wgmma group in flight (1), wait_group 0 per slab (0),
 * or wait_group 0 per slab with the next slab's fragments prefetched into a
 * second set (2, _pf, KIND 1 only), WS a producer warp (1) or thread 0
 * producing (0), PP ping-pong issue order of the two warpgroups (1), MINB
 * blocks per SM, KIND 0 (one tile per CTA) or 1 (persistent, a producer warpgroup:
 * BN = 128, DB = 0 or 2, WS = 1, MINB = 1), CL CTAs per cluster sharing A by
 * multicast and SK: 1 split k when the units do not fill the GPU, 2
 * stream-K over the last whole wave and the partial one, those units
 * first, 3 the same, those units last, 4 the partial last wave's units
 * cut in k pieces (split tail) (KIND 1 only; CL 1 or 2, SK 0 .. 4;
 * the stream-K rows are slower than the whole-tile ones on the H200, see
 * "What the candidates showed", and are search candidates only).
 * NAME = tf32_tma_mBMnBNk32_sST then _pp, then _db, _pf or _sk, then _stk
 * (SK 2), _stkl (SK 3) or _kst (SK 4), then _ws (KIND 0) or _pers, _pers_c2
 * (KIND 1, CL = 1, 2), for the flags set, checked at compile time. */
#define SGEMM_TMA_CANDIDATES(X)                                                                    \
    X(tf32_tma_m256n128k32_s4, 256, 128, 4, 0, 0, 0, 1, 0, 1, 0)    /* 256 x 128, 256 thr */       \
    X(tf32_tma_m256n128k32_s4_pp, 256, 128, 4, 0, 0, 1, 1, 0, 1, 0) /* 256 x 128, 256 thr */       \
    X(tf32_tma_m256n128k32_s4_db, 256, 128, 4, 1, 0, 0, 1, 0, 1, 0) /* 256 x 128, 256 thr */       \
    X(tf32_tma_m128n128k32_s6_ws, 128, 128, 6, 0, 1, 0, 1, 0, 1, 0) /* 128 x 128, 288 thr */       \
    X(tf32_tma_m128n128k32_s3_pp, 128, 128, 3, 0, 0, 1, 2, 0, 1, 0) /* 128 x 128, 2 per SM */      \
    X(tf32_tma_m128n192k32_s5_ws, 128, 192, 5, 0, 1, 0, 1, 0, 1, 0) /* 128 x 192, 416 thr */       \
    X(tf32_tma_m128n64k32_s6_ws, 128, 64, 6, 0, 1, 0, 1, 0, 1, 0)   /* 128 x 64, 160 thr */        \
    X(tf32_tma_m128n64k32_s4_ws, 128, 64, 4, 0, 1, 0, 2, 0, 1, 0)   /* 128 x 64, 2 per SM */       \
    X(tf32_tma_m16n64k32_s8_ws, 16, 64, 8, 0, 1, 0, 2, 0, 1, 0)     /* thin m: 16 x 64, 2 per SM */\
    X(tf32_tma_m32n64k32_s8_ws, 32, 64, 8, 0, 1, 0, 2, 0, 1, 0)     /* 32 x 64, 2 per SM */        \
    X(tf32_tma_m64n64k32_s6_ws, 64, 64, 6, 0, 1, 0, 2, 0, 1, 0)     /* 64 x 64, 2 per SM */        \
    X(tf32_tma_m16n128k32_s8_ws, 16, 128, 8, 0, 1, 0, 1, 0, 1, 0)   /* 16 x 128 */                 \
    X(tf32_tma_m32n128k32_s8_ws, 32, 128, 8, 0, 1, 0, 1, 0, 1, 0)   /* 32 x 128 */                 \
    X(tf32_tma_m64n128k32_s6_ws, 64, 128, 6, 0, 1, 0, 1, 0, 1, 0)   /* 64 x 128 */                 \
    X(tf32_tma_m256n128k32_s4_pp_pers, 256, 128, 4, 0, 1, 1, 1, 1, 1, 0)     /* persistent */     \
    X(tf32_tma_m256n128k32_s4_pp_pers_c2, 256, 128, 4, 0, 1, 1, 1, 1, 2, 0)  /* + A multicast */  \
    X(tf32_tma_m256n128k32_s4_pers_c2, 256, 128, 4, 0, 1, 0, 1, 1, 2, 0)     /* no ping-pong */   \
    X(tf32_tma_m128n128k32_s6_pp_sk_pers_c2, 128, 128, 6, 0, 1, 1, 1, 1, 2, 1) /* + split k */   \
    X(tf32_tma_m16n128k32_s8_sk_pers, 16, 128, 8, 0, 1, 0, 1, 1, 1, 1)  /* thin m, split k */     \
    X(tf32_tma_m32n128k32_s8_sk_pers, 32, 128, 8, 0, 1, 0, 1, 1, 1, 1)  /* thin m, split k */     \
    X(tf32_tma_m64n128k32_s6_sk_pers, 64, 128, 6, 0, 1, 0, 1, 1, 1, 1)  /* thin m, split k */     \
    X(tf32_tma_m256n128k32_s4_pp_pf_pers, 256, 128, 4, 2, 1, 1, 1, 1, 1, 0)     /* persistent */ \
    X(tf32_tma_m256n128k32_s4_pp_pf_pers_c2, 256, 128, 4, 2, 1, 1, 1, 1, 2, 0)  /* + multicast */\
    X(tf32_tma_m256n128k32_s4_pf_pers_c2, 256, 128, 4, 2, 1, 0, 1, 1, 2, 0)     /* no ping-pong */ \
    X(tf32_tma_m256n128k32_s4_pf_stk_pers_c2, 256, 128, 4, 2, 1, 0, 1, 1, 2, 2)  /* + stream-K */  \
    X(tf32_tma_m256n128k32_s4_pf_stkl_pers_c2, 256, 128, 4, 2, 1, 0, 1, 1, 2, 3) /* its units last */ \
    X(tf32_tma_m256n128k32_s4_pf_kst_pers_c2, 256, 128, 4, 2, 1, 0, 1, 1, 2, 4)  /* split tail */

typedef struct {
    int bm, bn, st, db, ws, pp, minb, kind, cl, sk; /* as in SGEMM_TMA_CANDIDATES */
    const char *name;                               /* the row's NAME (a static string) */
} sgemm_tma_cfg;

#define SGEMM_TMA_CFG_ROW(NAME, BM, BN, ST, DB, WS, PP, MINB, KIND, CL, SK)                        \
    static constexpr sgemm_tma_cfg sgemm_tma_cfg_##NAME = {BM, BN, ST, DB, WS, PP, MINB, KIND, CL, \
                                                           SK, #NAME};                             \
    static_assert(candidate_name_is(#NAME, "tf32_tma_m" #BM "n" #BN "k32_s" #ST, (PP) ? "_pp" : "", \
                                    (DB) == 1 ? "_db" : (DB) == 2 ? "_pf" : (SK) == 1 ? "_sk" : "", \
                                    (SK) == 2 ? "_stk" : (SK) == 3 ? "_stkl" : (SK) == 4 ? "_kst" : "", \
                                    (KIND) ? ((CL) == 2 ? "_pers_c2" : "_pers")                     \
                                           : ((WS) ? "_ws" : "")),                                  \
                  "the candidate's name says its parameters");
SGEMM_TMA_CANDIDATES(SGEMM_TMA_CFG_ROW)

/* The row named NAME (expanded first); an unknown name does not compile. */
#define SGEMM_TMA_CFG(NAME) SGEMM_TMA_CFG_(NAME)
#define SGEMM_TMA_CFG_(NAME) sgemm_tma_cfg_##NAME
#define SGEMM_TMA_ARGS(c) c.bm, c.bn, c.st, c.db, c.ws, c.pp, c.minb, c.kind, c.cl, c.sk

/* The kernel of one candidate; its body compiles only in the sm_90a pass
 * (__CUDA_ARCH_FEAT_SM90_ALL), elsewhere it is empty and never launched. */
template <int BM, int BN, int ST, int DB, int WS, int PP, int MINB>
static __global__ void __launch_bounds__(SGEMM_TMA_THREADS_OF(BN / 64, WS), MINB)
sgemm_tma_kernel(const __grid_constant__ CUtensorMap ta, const __grid_constant__ CUtensorMap tb,
                 float *__restrict__ C, int m, int n, int k)
{
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
    sgemm_tma_body(&ta, &tb, C, m, n, k, BN / 64, BM, ST, DB, WS, PP);
#endif
}

/* The kernel of a KIND 1 candidate (384 threads, one block per SM: ptxas
 * needs both bounds to honour setmaxnreg, C7508); sm_90a pass only, as above. */
template <int BM, int ST, int PP, int CL, int SK, int PF>
static __global__ void __launch_bounds__(SGEMM_TMAP_THREADS, 1)
sgemm_tmap_kernel(const __grid_constant__ CUtensorMap ta, const __grid_constant__ CUtensorMap tb,
                  float *__restrict__ C, int m, int n, int k, const sgemm_tmap_sched sc)
{
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
    sgemm_tmap_body<BM, ST, PP, CL, SK, PF>(&ta, &tb, C, m, n, k, sc);
#endif
}

/* Runs a KIND 0 candidate (tensor maps made per call); cudaErrorNotSupported for
 * a shape it declines (sgemm_wg_decline) or a driver without TMA encoding. */
template <int BM, int BN, int ST, int DB, int WS, int PP, int MINB>
static int sgemm_tma_run_tile(const float *A, const float *B, float *C, int m, int n, int k,
                              cudaStream_t stream)
{
    constexpr int NWG = BN / 64;
    static_assert(BM == 16 || BM == 32 || BM == 64 || BM == 128 || BM == 256,
                  "wgmma N: the n16 .. n256 wrappers");
    static_assert(BN % 64 == 0 && NWG >= 1 && NWG <= 3, "1 to 3 consumer warpgroups");
    static_assert(ST >= 2, "a ring of at least two stages");
    static_assert(!PP || (NWG == 2 && !DB), "ping-pong order: two warpgroups, wait_group 0");
    static_assert(DB == 0 || DB == 1, "KIND 0: one fragment set, or two with wait_group 1 (_db)");
    static_assert(SMEM_SM90_FITS(SGEMM_TMA_SMEM_OF(NWG, BM, ST), MINB),
                  "MINB blocks per SM fit in sm_90 shared memory");
    static unsigned long long attr_set; /* one bit per device */
    return sgemm_tma_launch(sgemm_tma_kernel<BM, BN, ST, DB, WS, PP, MINB>, &attr_set, BM, BN,
                            SGEMM_TMA_THREADS_OF(NWG, WS), SGEMM_TMA_SMEM_OF(NWG, BM, ST), A, B, C,
                            m, n, k, stream);
}

/* Runs the candidate of a row (its SGEMM_TMA_ARGS): KIND 1 on the persistent
 * kernel, KIND 0 on the one-tile-per-CTA kernel; cudaErrorNotSupported for a
 * shape they decline or a driver without TMA encoding. */
template <int BM, int BN, int ST, int DB, int WS, int PP, int MINB, int KIND, int CL, int SK>
static int sgemm_tma_run(const float *A, const float *B, float *C, int m, int n, int k,
                         cudaStream_t stream)
{
    if constexpr (KIND == 1) {
        static_assert(BM == 16 || BM == 32 || BM == 64 || BM == 128 || BM == 256,
                      "wgmma N: the n16 .. n256 wrappers");
        static_assert(BN == 128 && (DB == 0 || DB == 2) && WS == 1 && MINB == 1,
                      "KIND 1: two consumer warpgroups, a producer warpgroup, one block per SM");
        static_assert(CL == 1 || CL == 2, "clusters of one or two CTAs");
        static_assert(SK >= 0 && SK <= 4,
                      "split k off or automatic, stream-K (its units first or last) or the split tail");
        static_assert(!(DB == 2 && SK == 1), "_pf or _sk: the name has room for one (untested together)");
        static_assert(ST >= 2, "a ring of at least two stages");
        static_assert(SMEM_SM90_FITS(SGEMM_TMA_SMEM_OF(2, BM, ST), 1), "fits in sm_90 shared memory");
        static unsigned long long attr_set, attr_set_whole; /* one bit per device */
        static int slots[64];                               /* resident clusters, per device */
        return sgemm_tmap_launch(sgemm_tmap_kernel<BM, ST, PP, CL, SK, DB == 2>, &attr_set, slots,
                                 sgemm_tmap_kernel<BM, ST, PP, CL, 0, DB == 2>, &attr_set_whole, BM, CL, SK,
                                 SGEMM_TMA_SMEM_OF(2, BM, ST), A, B, C, m, n, k, stream);
    } else {
        static_assert(CL == 1 && SK == 0, "KIND 0: no cluster, no split k");
        return sgemm_tma_run_tile<BM, BN, ST, DB, WS, PP, MINB>(A, B, C, m, n, k, stream);
    }
}

#endif
