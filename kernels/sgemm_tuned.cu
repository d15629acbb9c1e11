/* kernels/sgemm_tuned.cu: `tuned`, the FP32 SGEMM whose tile shapes were
 * picked by compare-search on the target GPU.
 *
 * Idea: the kernels are the templates of sgemm_tuned.cuh (their header says
 * how each works); this file instantiates only the two shapes `tuned` runs,
 * named in SGEMM_TUNED_LARGE and SGEMM_TUNED_SMALL (rows of
 * SGEMM_TUNED_CANDIDATES), and the size rule between them
 * (sgemm_tuned_use_small). The large pick is a stream-K kernel (`_sk`): full
 * waves of tiles as one block per tile, the last partial wave's tiles split
 * along k between neighbouring blocks, so no SM idles in the last wave. The
 * small pick is a 128x64 tile of the pipelined kernel's design: below 2^20
 * outputs a 128x256 tile leaves most SMs without a tile.
 *
 * Constraints: any m, n, k >= 1 (edges as in sgemm_tuned.cuh). A stream-K
 * pick needs a cooperative launch (every block resident at once). When the
 * runtime refuses it (cudaErrorCooperativeLaunchTooLarge when fewer SMs are
 * free than the grid assumes, e.g. under MPS or beside other work;
 * cudaErrorNotSupported / cudaErrorNotPermitted where cooperative launches
 * are unavailable), the launcher clears that error and runs the same tile
 * shape as one block per tile with C staged (`_st`), and says so through
 * kernel_ran_note: every call names the kernel it ran (the candidate's
 * name) and why when it is not the fast path (the fallback; else the
 * scalar kernels when n or k is not a multiple of 4). Picks are names, resolved at compile
 * time: a name that is not a row of the table does not compile.
 * Run just this: ./compare --variants tuned; re-time the candidates:
 * ./compare-search --family fp32 --n 2048,4096,8192 --csv FILE. */
#include "kernel_ran.h"
#include "sgemm.h"
#include "sgemm_tuned.cuh"

/* The picks, overridable without an edit through CMake:
 * -DCOMPARE_KERNEL_DEFS="SGEMM_TUNED_LARGE=NAME;SGEMM_TUNED_SMALL=NAME"
 * (tests/gpu_check.sh's search phase passes compare-search's winners). The
 * figures behind these are in results/h200/search_fp32.txt (2048 .. 8192)
 * and search_fp32_small.txt (256 .. 1024). */
#ifndef SGEMM_TUNED_LARGE
#define SGEMM_TUNED_LARGE 128x256x8_w64x64_t8x16_s4_g8_sp2_b4_sk
#endif
#ifndef SGEMM_TUNED_SMALL
#define SGEMM_TUNED_SMALL 128x64x16_w64x32_t8x8_s3
#endif

static constexpr sgemm_tuned_cfg sgemm_tuned_large = SGEMM_TUNED_CFG(SGEMM_TUNED_LARGE);
static constexpr sgemm_tuned_cfg sgemm_tuned_small = SGEMM_TUNED_CFG(SGEMM_TUNED_SMALL);

/* 1: the small pick. Today only the output count decides (below 2^20 outputs,
 * n < 1024 for a square C, the large tile leaves SMs idle); k and the SM
 * count are the rule's inputs so that a rule fitted on another GPU can use
 * them without touching the callers. */
static int sgemm_tuned_use_small(int m, int n, int k, int sms)
{
    (void)k;
    (void)sms;
    return (long long)m * n < (1LL << 20);
}

static int sgemm_tuned_forced; /* sgemm_tuned_force_fallback's switch */

extern "C" void sgemm_tuned_force_fallback(int on)
{
    sgemm_tuned_forced = on != 0;
}

/* The fallback reason for a refused cooperative launch, NULL for any other
 * result (success or an error that is the caller's). Static strings. */
static const char *sgemm_tuned_refusal(int err)
{
    switch (err) {
    case cudaErrorCooperativeLaunchTooLarge:
        return "cooperative launch refused: cudaErrorCooperativeLaunchTooLarge";
    case cudaErrorNotSupported:
        return "cooperative launch refused: cudaErrorNotSupported";
    case cudaErrorNotPermitted:
        return "cooperative launch refused: cudaErrorNotPermitted";
    default:
        return NULL;
    }
}

/* Runs pick c (its kind as a template argument); a refused stream-K launch
 * falls back to st at the same shape. The note names the candidate; its
 * reason is the fallback's, else the scalar kernel's when n or k % 4 != 0. */
template <int KIND, int BM, int BN, int BK, int WM, int WN, int TM, int TN, int ST, int MINB,
          int GROUP, int SP, int B0>
static int sgemm_tuned_run(const sgemm_tuned_cfg &c, const float *A, const float *B, float *C, int m,
                           int n, int k, cudaStream_t stream)
{
    const char *scalar = k % 4 == 0 && n % 4 == 0 ? NULL : SGEMM_SCALAR_REASON;
    if constexpr (KIND != SGEMM_TUNED_KIND_sk) {
        kernel_ran_note(c.name, scalar);
        return sgemm_tuned_launch<KIND, BM, BN, BK, WM, WN, TM, TN, ST, MINB, GROUP, SP, B0>(
            A, B, C, m, n, k, stream);
    } else {
        const char *why = "cooperative launch refused: forced by sgemm_tuned_force_fallback (test)";
        if (!sgemm_tuned_forced) {
            const int err = sgemm_tuned_launch<KIND, BM, BN, BK, WM, WN, TM, TN, ST, MINB, GROUP, SP,
                                               B0>(A, B, C, m, n, k, stream);
            why = sgemm_tuned_refusal(err);
            if (!why) {
                kernel_ran_note(c.name, scalar);
                return err;
            }
            (void)cudaGetLastError(); /* the refusal is handled here, not the caller's error */
        }
        kernel_ran_note(c.fallback, why);
        return sgemm_tuned_launch<SGEMM_TUNED_KIND_st, BM, BN, BK, WM, WN, TM, TN, ST, MINB, GROUP,
                                  SP, B0>(A, B, C, m, n, k, stream);
    }
}

extern "C" int sgemm_tuned(const float *A, const float *B, float *C, int m, int n, int k,
                           cudaStream_t stream)
{
    if (m < 1 || n < 1 || k < 1)
        return (int)cudaErrorInvalidValue;
    int dev = 0, sms = 0;
    cudaError_t err = cudaGetDevice(&dev);
    if (err == cudaSuccess)
        err = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
    if (err != cudaSuccess)
        return (int)err;
    if (sgemm_tuned_use_small(m, n, k, sms))
        return sgemm_tuned_run<sgemm_tuned_small.kind, SGEMM_TUNED_ARGS(sgemm_tuned_small)>(
            sgemm_tuned_small, A, B, C, m, n, k, stream);
    return sgemm_tuned_run<sgemm_tuned_large.kind, SGEMM_TUNED_ARGS(sgemm_tuned_large)>(
        sgemm_tuned_large, A, B, C, m, n, k, stream);
}
