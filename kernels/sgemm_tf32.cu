/* kernels/sgemm_tf32.cu: the variant tf32_mma, TF32 tensor cores with
 * warp-level mma.sync (the kernel and its candidates: sgemm_tf32.cuh).
 *
 * Idea: two candidates of SGEMM_TF32_CANDIDATES, picked by name: a 128x128
 * tile (two blocks per SM) up to 4096^2 outputs, where the bigger tile leaves
 * SMs idle in the last wave, and the 128x256 tile (fewer L2 bytes per flop)
 * beyond; both with truncated operands (no ALU work between fragment loads
 * and the mma). The picks are compare-search's winners on the H200
 * (compare-search --family tf32), overridable without an edit:
 * -DCOMPARE_KERNEL_DEFS="SGEMM_TF32_SMALL=NAME;SGEMM_TF32_DEFAULT=NAME";
 * an unknown name does not compile.
 * Constraints: any m, n, k >= 1. Rows of A (k % 4 == 0) and B (n % 4 == 0)
 * that are not 16-byte aligned are copied 4 bytes at a time: the same
 * candidate's slower kernel, noted through kernel_ran_note with the reason.
 * Run just this: ./compare --variants tf32_mma */
#include "kernel_ran.h"
#include "sgemm.h"
#include "sgemm_tf32.cuh"

#ifndef SGEMM_TF32_DEFAULT
#define SGEMM_TF32_DEFAULT tf32_128x256x32_s4_w64x64_trunc
#endif
#ifndef SGEMM_TF32_SMALL
#define SGEMM_TF32_SMALL tf32_128x128x32_s3_w64x32_trunc
#endif

static constexpr sgemm_tf32_cfg sgemm_tf32_default = SGEMM_TF32_CFG(SGEMM_TF32_DEFAULT);
static constexpr sgemm_tf32_cfg sgemm_tf32_small = SGEMM_TF32_CFG(SGEMM_TF32_SMALL);

/* 1: the small pick (up to 4096^2 outputs). */
static int sgemm_tf32_use_small(int m, int n)
{
    return (long long)m * n <= 4096LL * 4096LL;
}

/* Why the kernel of operand path `which` (sgemm_tf32_path) is not the fast
 * one; NULL for the fast one. Static strings. */
static const char *sgemm_tf32_path_reason(int which)
{
    switch (which) {
    case 3:
        return NULL;
    case 2:
        return "n not a multiple of 4 or B not 16-byte aligned: 4-byte copies of B";
    case 1:
        return "k not a multiple of 4 or A not 16-byte aligned: 4-byte copies of A";
    default:
        return "k and n not multiples of 4 or A, B not 16-byte aligned: 4-byte copies";
    }
}

extern "C" int sgemm_tf32_mma(const float *A, const float *B, float *C, int m, int n, int k,
                              cudaStream_t stream)
{
    const char *why = sgemm_tf32_path_reason(sgemm_tf32_path(A, B, n, k));
    if (sgemm_tf32_use_small(m, n)) {
        kernel_ran_note(sgemm_tf32_small.name, why);
        return sgemm_tf32_run<SGEMM_TF32_ARGS(sgemm_tf32_small)>(A, B, C, m, n, k, stream);
    }
    kernel_ran_note(sgemm_tf32_default.name, why);
    return sgemm_tf32_run<SGEMM_TF32_ARGS(sgemm_tf32_default)>(A, B, C, m, n, k, stream);
}
