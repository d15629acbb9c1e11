/* kernels/sgemm_tf32_tma_epilogue.cuh: how C leaves the TF32 TMA GEMM (both
 * kinds, sgemm_tf32_tma.cuh): a consumer warpgroup's accumulators stored as
 * float2 (whole tiles), added with float2 atomics (split k), or met with the
 * other k pieces of their tile through a workspace (the split tail).
 *
 * Idea: the wgmma accumulator layout (sgemm_tf32_tma_tile.cuh) gives each
 * thread two adjacent columns gn, gn + 1 of rows bm0 + 8 j + 2 t and
 * bm0 + 8 j + 2 t + 1: d[4 j + v0 + 2 v1] = C[bm0 + 8 j + 2 t + v0][gn + v1],
 * so every store is one float2. Plain stores, not a TMA store: a 256 x 128
 * FP32 tile is 128 KB of staging next to a 192 KB ring, which does not fit,
 * and in the persistent kernel the stores already overlap the next unit's
 * loads.
 *
 * Constraints: n % 4 == 0 and gn even, so gn < n implies gn + 1 < n; C
 * 8-byte aligned (the launcher declines otherwise). */
#ifndef KERNELS_SGEMM_TF32_TMA_EPILOGUE_CUH
#define KERNELS_SGEMM_TF32_TMA_EPILOGUE_CUH

#include "sgemm_tf32_tma_ptx.cuh"
#include "sgemm_tf32_tma_sched.cuh"

/* one float2 of C: stored, or with ADD added with an atomic */
static __device__ __forceinline__ void sgemm_tma_put2(float *p, float2 v, const int ADD)
{
    if (ADD)
        atomicAdd((float2 *)p, v);
    else
        *(float2 *)p = v;
}

/* d[4j + v0 + 2 v1] = C[bm0 + 8j + 2t + v0][gn + v1], rows past m skipped
 * (the caller checks gn < n): stored, or with ADD (split k) added into C
 * (zeroed by the launcher) */
static __device__ __forceinline__ void sgemm_tma_put_tile(const float *d, float *C, int m, int n, int bm0,
                                                          int gn, int t, const int BM, const int ADD)
{
#pragma unroll
    for (int j = 0; j < BM / 8; j++) {
        const int m0 = bm0 + 8 * j + 2 * t;
        if (m0 < m)
            sgemm_tma_put2(C + (size_t)m0 * n + gn, make_float2(d[4 * j + 0], d[4 * j + 2]), ADD);
        if (m0 + 1 < m)
            sgemm_tma_put2(C + (size_t)(m0 + 1) * n + gn, make_float2(d[4 * j + 1], d[4 * j + 3]), ADD);
    }
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

#endif
