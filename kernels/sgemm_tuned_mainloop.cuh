/* kernels/sgemm_tuned_mainloop.cuh: the main loop of kinds tile, st, sk and
 * sl: the copies of A and B into the stage ring and the k-steps of FFMAs.
 *
 * Idea: A is stored transposed in shared memory ([BK][BM+4], written by
 * 4-byte cp.async: the transpose is in the copy's addressing), so one k-step
 * of a thread's fragments is TM/4 + TN/4 LDS.128 and fits twice in
 * registers. Then:
 * - spread copies: the copies of slab t+D are issued in SP groups spread
 *   over the k-steps of slab t (group g at k-step g*BK/SP) instead of one
 *   block before them, so the warps do not all wait on the copy issue at
 *   once; the loop body has no branch: past the last slab they are
 *   zero-fill copies into a stage nothing reads again.
 * - clamped sources: A rows and B columns outside the matrix are clamped
 *   into it instead of predicated (their products only reach elements of C
 *   that are never stored), so a copy is one address and one LDGSTS.
 * - the slab's one barrier at k-step B0: with B0 = BK-1 it sits before the
 *   last k-step and the copies run D = ST-1 slabs ahead; ptxas hoists most
 *   of that k-step's FFMAs above it, so the next slab's first fragments
 *   arrive just before use. With B0 < BK-1 it sits mid-slab, k-step 0 gets a
 *   fragment buffer of its own that is filled right after the barrier,
 *   several k-steps before use, and the copies run D = ST-2 slabs ahead (the
 *   stage of slab t-1 is still read after t-1's barrier, so it is refilled a
 *   slab later).
 * Constraints: sgemm_tuned_tile_checks (sgemm_tuned_common.cuh). The order
 * in which values are declared and updated here decides ptxas's register
 * choice for the FFMAs (operand bank conflicts): keep it when editing. */
#ifndef KERNELS_SGEMM_TUNED_MAINLOOP_CUH
#define KERNELS_SGEMM_TUNED_MAINLOOP_CUH

#include "sgemm_tuned_common.cuh"
#include "sgemm_tuned_edge.cuh"

/* Copies A element l of the slab at a_ptr into stage pointer st (4-byte
 * cp.async, zero-filled past k). The row is clamped into A instead of
 * predicated: a row past m loads row m-1, whose products only reach rows of
 * C that are never stored. */
template <int A_RSTEP>
static __device__ __forceinline__ void sgemm_tuned_copy_a(float *st, int l, const float *a_ptr,
                                                          int a_max_off, int k, int a_kok)
{
    cp_async4(st + l * A_RSTEP, a_ptr + (size_t)min(l * A_RSTEP, a_max_off) * k, a_kok ? 4 : 0);
}

/* Copies B chunk l (row b_r + l*B_STEP of the slab) into stage pointer st:
 * VEC 1 (SGEMM_TUNED_VEC_16B), one 16-byte cp.async from a column clamped
 * into B (as for A's rows: clamped columns only reach columns of C that are
 * never stored), zero-filled past k; VEC 3 (SGEMM_TUNED_VEC_PADB) the same
 * from the padded copy of B (rows of ldb floats, ldb = n rounded up to a
 * multiple of 4); VEC 0, four predicated 4-byte ones of the chunk; VEC 2,
 * four predicated 4-byte ones 32 columns apart (the thread's columns b_col
 * + 32q: sgemm_tuned_mainloop's b_c). ldb: B's row stride (n but for VEC 3). */
template <int BN, int B_STEP, int VEC>
static __device__ __forceinline__ void sgemm_tuned_copy_b(float *st, int l, const float *b_ptr,
                                                          int b_k_left, int b_col, int n, int ldb,
                                                          const float *B)
{
    const int kok = l * B_STEP < b_k_left;
    if (VEC == SGEMM_TUNED_VEC_16B || VEC == SGEMM_TUNED_VEC_PADB)
        cp_async16(st + l * B_STEP * BN, kok ? b_ptr + (size_t)l * B_STEP * ldb : B, kok ? 16 : 0);
    else if (VEC == SGEMM_TUNED_VEC_LANES)
        sgemm_tuned_cp_async_lanes(st + l * B_STEP * BN, b_ptr + (size_t)l * B_STEP * n, kok, b_col, n, B);
    else
        sgemm_cp_async_chunk(st + l * B_STEP * BN, b_ptr + (size_t)l * B_STEP * n, kok, b_col, n, B, 0);
}

/* Loads the fragments of k-step kq of the slab at as / bs into buffer buf of
 * a_f, b_f: TM/4 float4 of As row kq (m contiguous), TN/4 float4 of Bs row kq. */
template <int BM, int BN, int TM, int TN, int LM, int LN>
static __device__ __forceinline__ void sgemm_tuned_load_frags(float (&a_f)[3][TM], float (&b_f)[3][TN],
                                                              int buf, const float *as,
                                                              const float *bs, int kq, int tm0,
                                                              int tn0)
{
    constexpr int AS_LD = BM + 4;
#pragma unroll
    for (int i4 = 0; i4 < TM / 4; ++i4) {
        const float4 v = *(const float4 *)&as[kq * AS_LD + tm0 + i4 * (LM * 4)];
        a_f[buf][i4 * 4 + 0] = v.x, a_f[buf][i4 * 4 + 1] = v.y;
        a_f[buf][i4 * 4 + 2] = v.z, a_f[buf][i4 * 4 + 3] = v.w;
    }
#pragma unroll
    for (int j4 = 0; j4 < TN / 4; ++j4) {
        const float4 v = *(const float4 *)&bs[kq * BN + tn0 + j4 * (LN * 4)];
        b_f[buf][j4 * 4 + 0] = v.x, b_f[buf][j4 * 4 + 1] = v.y;
        b_f[buf][j4 * 4 + 2] = v.z, b_f[buf][j4 * 4 + 3] = v.w;
    }
}

/* The main loop of tile / st / sk over ns k-slabs of the block tile at
 * (bm, bn), from slab ks on (k = ks*BK ..): leaves the tile's partial
 * product over those slabs in acc. The thread's place: tid, warp, lane, and
 * its tile's first row / column tm0, tn0 (rows tm0 + i4*LM*4 + [0,4),
 * columns tn0 + j4*LN*4 + [0,4)). Copies run D slabs ahead, past the last
 * slab too (into stages nothing reads again: zero-fill past k, real data
 * before it). acc and the fragment buffers a_f, b_f (buffer
 * sgemm_tuned_buf(kk) for k-step kk) are the caller's, declared there in
 * that order: where they are declared decides the order in which the
 * compiler numbers their values, which ptxas's register choice, and so the
 * FFMAs' operand bank conflicts, follows (tests/sass_bank_conflicts.sh).
 * ring0: the first float of the stage ring in shared memory (0 but in sl,
 * where each k-slice has a ring of its own). */
template <int BM, int BN, int BK, int WM, int WN, int TM, int TN, int ST, int SP, int B0, int VEC>
static __device__ __forceinline__ void sgemm_tuned_mainloop(const float *__restrict__ A,
                                                            const float *__restrict__ B, int m,
                                                            int n, int k, int bm, int bn, int ks,
                                                            int ns, int tid, int warp, int lane,
                                                            int tm0, int tn0, float (&acc)[TM][TN],
                                                            float (&a_f)[3][TM], float (&b_f)[3][TN],
                                                            int ring0 = 0)
{
    constexpr int LM = WM / TM, LN = WN / TN;
    constexpr int THREADS = sgemm_tuned_threads(BM, BN, WM, WN);
    constexpr int AS_LD = BM + 4;                   /* As (transposed) row stride, floats */
    constexpr int STAGE_FLOATS = sgemm_tuned_stage_floats(BM, BN, BK);
    constexpr int A_RSTEP = THREADS / BK;           /* rows between a thread's A elements */
    constexpr int A_ELEMS = BM / A_RSTEP;           /* A elements per thread per slab */
    constexpr int B_CHUNKS = BK * BN / 4 / THREADS;
    constexpr int B_STEP = THREADS / (BN / 4);
    constexpr int LAST_COPY = (SP - 1) * (BK / SP); /* k-step of the last copy group */
    constexpr int D = sgemm_tuned_ahead(BK, ST, B0);
    float *smem = (float *)sgemm_tuned_smem + ring0;

    /* A: this thread copies column a_k of rows a_r + l*A_RSTEP of every slab */
    const int a_k = lane % 8 + 8 * (warp % (BK / 8));
    const int a_r = (lane / 8) % 4 + 4 * (warp / (BK / 8)); /* < A_RSTEP */
    const int a_row0 = min(bm + a_r, m - 1);                /* clamped into A */
    const int a_max_off = m - 1 - a_row0;                   /* >= 0: last row is m-1 */
    const float *a_ptr = A + (size_t)a_row0 * k + min(ks * BK + a_k, k - 1);
    int a_k_left = k - ks * BK - a_k;
    int a_kok = a_k_left > 0;
    /* B: chunk at column bn + b_c (clamped into B when VEC 1) of rows b_r +
     * l*B_STEP; VEC 2: the same 128 columns of a warp, lane-interleaved (the
     * thread's columns b_c + 32q) */
    static_assert(VEC != SGEMM_TUNED_VEC_LANES || BN % 128 == 0, "VEC 2: a warp's chunks are one row's 128 columns");
    const int b_r = tid / (BN / 4);
    const int b_c = VEC == SGEMM_TUNED_VEC_LANES ? (tid % (BN / 4)) / 32 * 128 + lane : (tid % (BN / 4)) * 4;
    /* B's row stride: n, or the padded copy's (VEC 3: its columns n .. ldb-1 are zeros) */
    const int ldb = VEC == SGEMM_TUNED_VEC_PADB ? sgemm_tuned_ld_padded(n) : n;
    const float *b_ptr =
        B + (size_t)(b_r + ks * BK) * ldb +
        (VEC == SGEMM_TUNED_VEC_16B || VEC == SGEMM_TUNED_VEC_PADB ? min(bn + b_c, ldb - 4) : bn + b_c);
    int b_k_left = k - ks * BK - b_r;
    float *as_dst = smem + a_k * AS_LD + a_r;
    float *bs_dst = smem + BK * AS_LD + b_r * BN + b_c;

#pragma unroll
    for (int s = 0; s < D; ++s) {
#pragma unroll
        for (int l = 0; l < A_ELEMS; ++l)
            sgemm_tuned_copy_a<A_RSTEP>(as_dst + s * STAGE_FLOATS, l, a_ptr, a_max_off, k, a_kok);
#pragma unroll
        for (int l = 0; l < B_CHUNKS; ++l)
            sgemm_tuned_copy_b<BN, B_STEP, VEC>(bs_dst + s * STAGE_FLOATS, l, b_ptr, b_k_left,
                                                bn + b_c, n, ldb, B);
        /* the next slab (written out here and in the loop: as a function taking
         * these by reference it reordered the loop's values and ptxas's
         * register choice). a_ptr stays on its last slab inside A: always a
         * valid address */
        a_k_left -= BK;
        a_kok = a_k_left > 0;
        if (a_kok)
            a_ptr += BK;
        b_ptr += (size_t)BK * ldb;
        b_k_left -= BK;
        cp_async_commit();
    }

#pragma unroll
    for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int j = 0; j < TN; ++j)
            acc[i][j] = 0.0f;

    cp_async_wait(D - 1); /* slab 0 landed */
    __syncthreads();
    sgemm_tuned_load_frags<BM, BN, TM, TN, LM, LN>(a_f, b_f, sgemm_tuned_buf(BK, B0, 0), smem,
                                                   smem + BK * AS_LD, 0, tm0, tn0);

    /* stage offsets (floats), stepped with adds: an IMAD by the stage size
     * would take issue slots of the FMA pipe the FFMAs keep busy */
    constexpr int RING = ST * STAGE_FLOATS;
    int ro = 0, wo = D * STAGE_FLOATS;
    for (int t = 0; t < ns; ++t) {
        /* slab t is visible at ro and its k-step 0 is in its fragment buffer;
         * the copies of slab t+D go to wo, a stage whose last reads preceded
         * the barrier of slab t-1 */
        const float *as = smem + ro;
        const float *bs = as + BK * AS_LD;
        float *const as_w = as_dst + wo, *const bs_w = bs_dst + wo;
        ro = ro + STAGE_FLOATS == RING ? 0 : ro + STAGE_FLOATS;
        wo = wo + STAGE_FLOATS == RING ? 0 : wo + STAGE_FLOATS;
#pragma unroll
        for (int kk = 0; kk < BK; ++kk) {
            /* copy group g (A elements and B chunks l with l*SP/count == g) at k-step g*BK/SP */
#pragma unroll
            for (int l = 0; l < A_ELEMS; ++l)
                if (l * SP / A_ELEMS * (BK / SP) == kk)
                    sgemm_tuned_copy_a<A_RSTEP>(as_w, l, a_ptr, a_max_off, k, a_kok);
#pragma unroll
            for (int l = 0; l < B_CHUNKS; ++l)
                if (l * SP / B_CHUNKS * (BK / SP) == kk)
                    sgemm_tuned_copy_b<BN, B_STEP, VEC>(bs_w, l, b_ptr, b_k_left, bn + b_c, n, ldb, B);
            if (kk == LAST_COPY) {
                a_k_left -= BK;
                a_kok = a_k_left > 0;
                if (a_kok)
                    a_ptr += BK;
                b_ptr += (size_t)BK * ldb;
                b_k_left -= BK;
                cp_async_commit();
            }
            if (kk < BK - 1)
                sgemm_tuned_load_frags<BM, BN, TM, TN, LM, LN>(a_f, b_f, sgemm_tuned_buf(BK, B0, kk + 1),
                                                               as, bs, kk + 1, tm0, tn0);
            if (kk == B0) {
                /* groups committed: D + t (+1 if this slab's already): slab t+1 has landed */
                cp_async_wait(sgemm_tuned_wait_groups(BK, ST, SP, B0));
                __syncthreads();
                /* the next slab's first fragments; past the last slab this
                 * reads a stage of stale data, never used */
                const float *as_n = smem + ro;
                sgemm_tuned_load_frags<BM, BN, TM, TN, LM, LN>(a_f, b_f, sgemm_tuned_buf(BK, B0, 0), as_n,
                                                               as_n + BK * AS_LD, 0, tm0, tn0);
            }
#pragma unroll
            for (int i = 0; i < TM; ++i)
#pragma unroll
                for (int j = 0; j < TN; ++j)
                    acc[i][j] = fmaf(a_f[sgemm_tuned_buf(BK, B0, kk)][i],
                                     b_f[sgemm_tuned_buf(BK, B0, kk)][j], acc[i][j]);
        }
    }
}

#endif
