/* kernels/sgemm_tuned_launch.cuh: sgemm_tuned_launch, one launcher template
 * for every kind: picks the vec or edge kernel (the candidate's rule), opts in
 * to its dynamic shared memory and launches it; under rule PAD_B at n % 4 !=
 * 0 it first copies B into a buffer with padded rows (sgemm_tf32_stage.cuh:
 * the launchers' own buffer, taken at the first call that needs it and kept;
 * the copy is part of the call and timed with it).
 *
 * Idea: the kind and shape are template arguments (SGEMM_TUNED_ARGS of a
 * row), so a caller names a candidate and gets exactly its kernels; its
 * signature is the search table's row type (kernels/search/sgemm_search.cu). */
#ifndef KERNELS_SGEMM_TUNED_LAUNCH_CUH
#define KERNELS_SGEMM_TUNED_LAUNCH_CUH

#include "sgemm_tf32_stage.cuh"
#include "sgemm_tuned_configs.cuh"
#include "sgemm_tuned_rowa.cuh"
#include "sgemm_tuned_streamk.cuh"
#include "sgemm_tuned_tile.cuh"

/* Candidate KIND's kernel at the given shape (VEC: the 16-byte kernel
 * when 1, else the rule's edge kernel, whose B is the padded copy under rule
 * PAD_B): opts in to its dynamic shared memory and launches it (rowa / tile /
 * st: a BN x BM grid of tiles; sk: cooperatively, see sgemm_tuned_sk_launch).
 * Returns the launch's error. */
template <int KIND, int BM, int BN, int BK, int WM, int WN, int TM, int TN, int ST, int MINB,
          int GROUP, int SP, int B0, int RULE>
static int sgemm_tuned_launch_kernel(const float *A, const float *B, float *C, int m, int n, int k,
                                     int vec, cudaStream_t stream)
{
    static_assert(RULE == SGEMM_TUNED_RULE_NK || KIND != SGEMM_TUNED_KIND_rowa,
                  "rowa copies rows of A by 16-byte chunks: k % 4 matters to it");
    /* EDGE: the VEC argument of the kernel for rows that are not 16-byte aligned */
    constexpr int EDGE = RULE == SGEMM_TUNED_RULE_NK       ? SGEMM_TUNED_VEC_SCALAR
                         : RULE == SGEMM_TUNED_RULE_PAD_B ? SGEMM_TUNED_VEC_PADB
                                                          : SGEMM_TUNED_VEC_LANES;
    int threads = sgemm_tuned_threads(BM, BN, WM, WN);
    int smem_bytes;
    const void *kernel;
    if constexpr (KIND == SGEMM_TUNED_KIND_rowa) {
        smem_bytes = ST * (BM * (BK + 4) + BK * BN) * (int)sizeof(float);
        kernel = vec ? (const void *)sgemm_tuned_rowa_kernel<BM, BN, BK, WM, WN, TM, TN, ST, MINB, 1>
                     : (const void *)sgemm_tuned_rowa_kernel<BM, BN, BK, WM, WN, TM, TN, ST, MINB, 0>;
    } else if constexpr (KIND == SGEMM_TUNED_KIND_sk) {
        smem_bytes = ST * sgemm_tuned_stage_floats(BM, BN, BK) * (int)sizeof(float);
        kernel = vec ? (const void *)sgemm_tuned_sk_kernel<BM, BN, BK, WM, WN, TM, TN, ST, MINB,
                                                             GROUP, SP, B0, 1>
                     : (const void *)sgemm_tuned_sk_kernel<BM, BN, BK, WM, WN, TM, TN, ST, MINB,
                                                             GROUP, SP, B0, EDGE>;
    } else if constexpr (sgemm_tuned_slices(KIND) > 1) {
        constexpr int SL = sgemm_tuned_slices(KIND);
        threads = SL * sgemm_tuned_threads(BM, BN, WM, WN);
        smem_bytes = SL * ST * sgemm_tuned_stage_floats(BM, BN, BK) * (int)sizeof(float);
        kernel = vec ? (const void *)sgemm_tuned_sliced_kernel<BM, BN, BK, WM, WN, TM, TN, ST, MINB,
                                                                 GROUP, SP, B0, SL, 1>
                     : (const void *)sgemm_tuned_sliced_kernel<BM, BN, BK, WM, WN, TM, TN, ST, MINB,
                                                                 GROUP, SP, B0, SL, EDGE>;
    } else {
        constexpr int STAGED = KIND == SGEMM_TUNED_KIND_st;
        smem_bytes = ST * sgemm_tuned_stage_floats(BM, BN, BK) * (int)sizeof(float);
        kernel = vec ? (const void *)sgemm_tuned_tile_kernel<BM, BN, BK, WM, WN, TM, TN, ST, MINB,
                                                               GROUP, SP, B0, STAGED, 1>
                     : (const void *)sgemm_tuned_tile_kernel<BM, BN, BK, WM, WN, TM, TN, ST, MINB,
                                                               GROUP, SP, B0, STAGED, EDGE>;
    }
    /* per instantiation, [vec]: opted in (a bit per device), resident blocks per SM (per device) */
    static unsigned long long opted_in[2];
    static int resident[2][64];
    const int opt = smem_opt_in(kernel, smem_bytes, &opted_in[vec]);
    if (opt != 0)
        return opt;
    if constexpr (KIND == SGEMM_TUNED_KIND_sk) {
        const long long tiles = (long long)SGEMM_CEIL_DIV(m, BM) * SGEMM_CEIL_DIV(n, BN);
        return sgemm_tuned_sk_launch(kernel, threads, smem_bytes, resident[vec], MINB, tiles,
                                     SGEMM_CEIL_DIV(k, BK), A, B, C, m, n, k, stream);
    } else {
        void *args[] = {(void *)&A, (void *)&B, (void *)&C, (void *)&m, (void *)&n, (void *)&k};
        const dim3 grid(SGEMM_CEIL_DIV(n, BN), SGEMM_CEIL_DIV(m, BM));
        const cudaError_t err = cudaLaunchKernel(kernel, grid, dim3(threads), args, (size_t)smem_bytes, stream);
        return err != cudaSuccess ? (int)err : (int)cudaGetLastError();
    }
}

/* Candidate KIND at the given shape: the vec or edge kernel by RULE
 * (SGEMM_TUNED_RULE_*: sgemm_tuned_vec_of); under rule PAD_B at n % 4 != 0,
 * B is first copied into the launchers' buffer (rows of n rounded up to a
 * multiple of 4 floats, the padding zeros) and the kernel reads that copy.
 * Returns the launch's error, or cudaErrorMemoryAllocation (cleared, not
 * sticky) when the buffer cannot be had (the caller may run rule NK
 * instead); m, n, k >= 1 are the caller's to check. */
template <int KIND, int BM, int BN, int BK, int WM, int WN, int TM, int TN, int ST, int MINB,
          int GROUP, int SP, int B0, int RULE = SGEMM_TUNED_RULE_NK>
static int sgemm_tuned_launch(const float *A, const float *B, float *C, int m, int n, int k,
                              cudaStream_t stream)
{
    const int v = sgemm_tuned_vec_of(RULE, KIND, n, k);
    if (v != SGEMM_TUNED_VEC_PADB)
        return sgemm_tuned_launch_kernel<KIND, BM, BN, BK, WM, WN, TM, TN, ST, MINB, GROUP, SP, B0, RULE>(
            A, B, C, m, n, k, v == SGEMM_TUNED_VEC_16B, stream);
    if constexpr (RULE == SGEMM_TUNED_RULE_PAD_B) {
        const int n4 = sgemm_tuned_ld_padded(n);
        void *buf = NULL;
        int slot = 0;
        int rc = sgemm_stage_acquire(SGEMM_STAGE_POOL_COPY, (size_t)k * n4 * sizeof(float), stream, &buf, &slot);
        if (rc == cudaErrorNotSupported)
            rc = cudaErrorMemoryAllocation; /* no slot for the ordinal: as no memory, the caller falls back */
        if (rc != 0)
            return rc;
        /* B (k x n, stride n) into buf (k x n4, stride n4), columns n .. n4-1 zero */
        const sgemm_stage_copy copy_b = {B, (float *)buf, n, n4, k, n, k, n4};
        rc = sgemm_stage_launch(&copy_b, NULL, stream);
        if (rc == 0)
            rc = sgemm_tuned_launch_kernel<KIND, BM, BN, BK, WM, WN, TM, TN, ST, MINB, GROUP, SP, B0, RULE>(
                A, (const float *)buf, C, m, n, k, 0, stream);
        const int rel = sgemm_stage_release(slot, stream);
        return rc != 0 ? rc : rel;
    }
    return (int)cudaErrorInvalidValue; /* not reached: VEC 3 only under rule PAD_B */
}

/* The bytes of the launchers' own buffer that candidate KIND under RULE
 * takes at m x n x k (rule PAD_B at n % 4 != 0: the padded copy of B,
 * rounded as the pool allocates it), for compare's up-front memory check. */
static inline size_t sgemm_tuned_own_bytes_of(int rule, int kind, int n, int k)
{
    if (sgemm_tuned_vec_of(rule, kind, n, k) != SGEMM_TUNED_VEC_PADB)
        return 0;
    return sgemm_stage_rounded((size_t)k * (size_t)sgemm_tuned_ld_padded(n) * sizeof(float));
}

#endif
