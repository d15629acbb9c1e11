/* kernels/sgemm_tuned_launch.cuh: sgemm_tuned_launch, one launcher template
 * for every kind: picks the vec or edge kernel (the candidate's rule), opts in
 * to its dynamic shared memory and launches it.
 *
 * Idea: the kind and shape are template arguments (SGEMM_TUNED_ARGS of a
 * row), so a caller names a candidate and gets exactly its kernels; its
 * signature is the search table's row type (kernels/search/sgemm_search.cu). */
#ifndef KERNELS_SGEMM_TUNED_LAUNCH_CUH
#define KERNELS_SGEMM_TUNED_LAUNCH_CUH

#include "sgemm_tuned_configs.cuh"
#include "sgemm_tuned_rowa.cuh"
#include "sgemm_tuned_streamk.cuh"
#include "sgemm_tuned_tile.cuh"

/* Candidate KIND at the given shape: picks the vec or edge kernel by RULE
 * (SGEMM_TUNED_RULE_*: sgemm_tuned_vec_of), opts in to its dynamic shared
 * memory and launches it (rowa / tile / st: a BN x BM grid of tiles; sk:
 * cooperatively, see sgemm_tuned_sk_launch). Returns the launch's error;
 * m, n, k >= 1 are the caller's to check. */
template <int KIND, int BM, int BN, int BK, int WM, int WN, int TM, int TN, int ST, int MINB,
          int GROUP, int SP, int B0, int RULE = SGEMM_TUNED_RULE_NK>
static int sgemm_tuned_launch(const float *A, const float *B, float *C, int m, int n, int k,
                              cudaStream_t stream)
{
    static_assert(RULE == SGEMM_TUNED_RULE_NK || KIND != SGEMM_TUNED_KIND_rowa,
                  "rowa copies rows of A by 16-byte chunks: k % 4 matters to it");
    /* EDGE: the VEC argument of the kernel for rows that are not 16-byte aligned */
    constexpr int EDGE = RULE == SGEMM_TUNED_RULE_NK ? SGEMM_TUNED_VEC_SCALAR : SGEMM_TUNED_VEC_LANES;
    int threads = sgemm_tuned_threads(BM, BN, WM, WN);
    const int vec = sgemm_tuned_vec_of(RULE, n, k) == SGEMM_TUNED_VEC_16B;
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

#endif
