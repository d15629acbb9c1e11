/* kernels/sgemm_tf32.cu: the variant tf32_mma, TF32 tensor cores with
 * warp-level mma.sync (the kernel and its candidates: sgemm_tf32.cuh).
 *
 * Idea: candidates of SGEMM_TF32_CANDIDATES, picked by name and by a
 * per-architecture policy (sgemm_tf32_policies, chosen at run time from the
 * current device: kernels/common/policy.h). sm_90: a 128x128 tile (two
 * blocks per SM) up to 4096^2 outputs, where the bigger tile leaves SMs idle
 * in the last wave, and the 128x256 tile (fewer L2 bytes per flop) beyond;
 * other GPUs: tiles that fit their shared memory (untuned). All with
 * truncated operands (no ALU work between fragment loads and the mma). The
 * sm_90 picks are compare-search's winners on the H200 (compare-search
 * --family tf32), overridable without an edit:
 * -DCOMPARE_KERNEL_DEFS="SGEMM_TF32_SMALL=NAME;SGEMM_TF32_DEFAULT=NAME"
 * (SGEMM_TF32_NARROW: the other GPUs' pick); an unknown name does not compile.
 * Constraints: any m, n, k >= 1. Rows of A (k % 4 == 0) and B (n % 4 == 0)
 * that are not 16-byte aligned are copied 4 bytes at a time: the same
 * candidate's slower kernel, noted through kernel_ran_note with the reason.
 * Run just this: ./compare --variants tf32_mma */
#include "kernel_ran.h"
#include "policy.h"
#include "sgemm.h"
#include "sgemm_tf32.cuh"

#ifndef SGEMM_TF32_DEFAULT
#define SGEMM_TF32_DEFAULT tf32_128x256x32_s4_w64x64_trunc
#endif
#ifndef SGEMM_TF32_SMALL
#define SGEMM_TF32_SMALL tf32_128x128x32_s3_w64x32_trunc
#endif
#ifndef SGEMM_TF32_NARROW
#define SGEMM_TF32_NARROW tf32_64x128x32_s3_w32x64_trunc
#endif

typedef int (*sgemm_tf32_run_fn)(const float *, const float *, float *, int, int, int, cudaStream_t);
typedef struct {
    const sgemm_tf32_cfg *cfg;
    sgemm_tf32_run_fn run;
} sgemm_tf32_pick;
#define SGEMM_TF32_PICK(NAME) {&SGEMM_TF32_CFG(NAME), sgemm_tf32_run<SGEMM_TF32_ARGS(SGEMM_TF32_CFG(NAME))>}

static const sgemm_tf32_pick sgemm_tf32_default = SGEMM_TF32_PICK(SGEMM_TF32_DEFAULT);
static const sgemm_tf32_pick sgemm_tf32_small = SGEMM_TF32_PICK(SGEMM_TF32_SMALL);
static const sgemm_tf32_pick sgemm_tf32_narrow = SGEMM_TF32_PICK(SGEMM_TF32_NARROW);

/* One entry of the tf32_mma policy (kernels/common/policy.h): `small` up to
 * small_max outputs (m x n; -1: every shape), `large` beyond. */
typedef struct {
    const sgemm_tf32_pick *small, *large;
    long long small_max;
} sgemm_tf32_policy;

/* sm_90: the H200's picks. sm_80 (untuned): the 128x128 tile at every
 * shape (the 128x256 one needs more shared memory than an A100 block may
 * have). sm_86/89 and generic (untuned): the 64x128 tile, within the 99 KiB
 * a block may have there, and so on every GPU since Ampere. */
static const sgemm_tf32_policy sgemm_tf32_policies[POLICY_SLOTS] = {
    {&sgemm_tf32_small, &sgemm_tf32_default, 4096LL * 4096LL}, /* sm_90 */
    {&sgemm_tf32_small, &sgemm_tf32_small, -1},                /* sm_80 (untuned) */
    {&sgemm_tf32_narrow, &sgemm_tf32_narrow, -1},              /* sm_86/89 (untuned) */
    {&sgemm_tf32_narrow, &sgemm_tf32_narrow, -1},              /* generic */
};

/* The pick for m x n on the current device. */
static const sgemm_tf32_pick *sgemm_tf32_pick_for(int m, int n)
{
    const sgemm_tf32_policy *p = &sgemm_tf32_policies[policy_slot_current()];
    return p->small_max < 0 || (long long)m * n <= p->small_max ? p->small : p->large;
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
    const sgemm_tf32_pick *p = sgemm_tf32_pick_for(m, n);
    kernel_ran_note(p->cfg->name, why);
    return p->run(A, B, C, m, n, k, stream);
}
