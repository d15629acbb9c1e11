/* kernels/gemm_wgmma.cu: the variant gemm_wgmma, fp16 / bf16 / fp8_e4m3
 * GEMM on Hopper warpgroup MMA fed by TMA (the kernel:
 * gemm_wgmma_kernel.cuh; the contract: gemm_lowp.h, gemm_wgmma.h).
 * Compiled for sm_90a only.
 *
 * Idea: one kernel template, instantiated per element type, layout and
 * configuration (GEMM_WG_CONFIGS), picked per shape:
 *   m128n256_s4_c2  128 x 256 tiles, 4 stages (192 KB ring), 2 consumer
 *                   warpgroups of 64 x 256 each (128 accumulators a thread),
 *                   clusters of 2 CTAs one above the other sharing B by
 *                   multicast: the large-shape kernel (the shape of the
 *                   fastest published hand Hopper GEMMs: fast.cu's,
 *                   CUTLASS's 128x256 cooperative)
 *   m128n256_s4     the same without a cluster (a single tile row)
 *   m128n128_s6     128 x 128, 6 stages: twice the tiles of the above
 *   m64n128_s8      64 x 128, one consumer warpgroup, 8 stages: four times
 * The pick: the configuration with the least modelled time, waves x tile
 * area x a per-tile cost factor (GEMM_WG_COST: the smaller tiles read more
 * shared memory per flop and have fewer warps to hide latency); waves =
 * ceil(tiles / SMs), one CTA per SM for every configuration. A shape with
 * many tiles takes 128 x 256 (in clusters of 2 when it has two tile rows or
 * more), a shape whose 128 x 256 tiles leave SMs idle the smaller tiles.
 * The factors are a first guess, not tuned on the GPU yet: re-measure them
 * with tests/probes/gemm_wgmma_probe.c (every configuration beside
 * cublasGemmEx); -DCOMPARE_KERNEL_DEFS=GEMM_WG_FORCE=i forces
 * configuration i.
 *
 * Shapes the TMA copies cannot read in place (a row stride not a multiple of
 * 16 bytes) are declined with the reason (gemm_wgmma_supports), not staged:
 * k % 8 (fp16 / bf16) or k % 16 (fp8), and for layout nn n % 8. Any m; any n
 * in tn (C's stores are 32-bit pairs when n is even, single elements
 * otherwise). fp8 nn is declined: wgmma reads an fp8 B K-major only.
 * Policy (kernels/common/policy.h): sm_90 only; under any other entry the
 * supports hook declines and the launcher returns cudaErrorNotSupported. */
#include <limits.h>
#include <stdint.h>
#include <stdio.h>

#include "gemm_wgmma.h"
#include "gemm_wgmma_kernel.cuh"
#include "gemm_wgmma_tmap.cuh"
#include "kernel_ran.h"
#include "policy.h"
#include "smem.cuh"

/* X(NAME, BN, NWG, ST, CL): BM = 64 NWG rows x BN columns, ST stages, CL CTAs a cluster */
#define GEMM_WG_CONFIGS(X)                                                                         \
    X(m128n256_s4_c2, 256, 2, 4, 2)                                                                \
    X(m128n256_s4, 256, 2, 4, 1)                                                                   \
    X(m128n128_s6, 128, 2, 6, 1)                                                                   \
    X(m64n128_s8, 128, 1, 8, 1)

/* modelled cost of a tile per element of its area, x 100, per configuration */
static const int GEMM_WG_COST[] = {100, 100, 115, 140};

typedef int (*gemm_wg_run_fn)(const gemm_args *g, cudaStream_t s);
typedef struct {
    const char *name; /* kernel_ran name: wgmma_TYPE_LAYOUT_CONFIG */
    gemm_wg_run_fn run;
    int bm, bn, cl;
} gemm_wg_cfg;

/* Launches configuration <T, BN, NWG, ST, CL, TB> on g (checked by the
 * caller): tensor maps, a persistent grid of min(tile units, resident
 * clusters) clusters. */
template <int T, int BN, int NWG, int ST, int CL, int TB>
static int gemm_wg_run(const gemm_args *g, cudaStream_t stream)
{
    constexpr int BM = 64 * NWG, BKE = GEMM_WG_BKE(T), ES = T == ELEM_FP8_E4M3 ? 1 : 2;
    constexpr int SMEM = GEMM_WG_SMEM(BM, BN, ST);
    static_assert(SMEM_SM90_FITS(SMEM, 1), "the ring fits in sm_90 shared memory");
    static_assert(CL == 1 || CL == 2, "clusters of one or two CTAs");
    static_assert(BN / CL <= 256 && BM <= 256, "TMA boxes of at most 256 rows");
    static_assert(!TB || (BN / 64) % CL == 0, "whole N-major boxes per CTA");
    const CUtensorMapDataType dt = T == ELEM_FP16   ? CU_TENSOR_MAP_DATA_TYPE_FLOAT16
                                   : T == ELEM_BF16 ? CU_TENSOR_MAP_DATA_TYPE_BFLOAT16
                                                    : CU_TENSOR_MAP_DATA_TYPE_UINT8;
    const CUtensorMapL2promotion l2 = CU_TENSOR_MAP_L2_PROMOTION_L2_256B;
    void (*kern)(const CUtensorMap, const CUtensorMap, void *, int, int, int) =
        gemm_wg_kernel<T, BN, NWG, ST, CL, TB>;
    static unsigned long long attr_set; /* one bit per device */
    static int slot_cache[64];          /* resident clusters, per device */
    CUtensorMap ta, tb;
    int rc = gemm_tma_map_2d(&ta, dt, ES, g->A, g->m, g->k, BKE, BM, l2);
    if (rc == 0)
        rc = TB ? gemm_tma_map_2d(&tb, dt, ES, g->B, g->k, g->n, 64, BKE, l2)       /* k x n */
                : gemm_tma_map_2d(&tb, dt, ES, g->B, g->n, g->k, BKE, BN / CL, l2); /* n x k */
    if (rc == 0)
        rc = smem_opt_in((const void *)kern, SMEM, &attr_set);
    if (rc != 0)
        return rc;
    cudaLaunchAttribute attr[1];
    cudaLaunchConfig_t cfg;
    gemm_tma_cluster_cfg(&cfg, attr, CL, GEMM_WG_THREADS(NWG), SMEM, stream);
    int slots = 0;
    rc = gemm_tma_cluster_slots((const void *)kern, &cfg, CL, slot_cache, &slots);
    if (rc != 0)
        return rc;
    const long long tiles_m = (g->m + BM - 1) / BM, tiles_n = (g->n + BN - 1) / BN;
    const long long units = (tiles_m + CL - 1) / CL * tiles_n;
    if (units > 0x7fffffffLL)
        return (int)cudaErrorInvalidValue;
    const long long clusters = units < slots ? units : slots;
    cfg.gridDim = dim3((unsigned)(clusters * CL), 1, 1);
    rc = (int)cudaLaunchKernelEx(&cfg, kern, ta, tb, g->C, (int)g->m, (int)g->n, (int)g->k);
    return rc != 0 ? rc : (int)cudaGetLastError();
}

/* the configurations of one element type and layout, in GEMM_WG_CONFIGS order */
#define GEMM_WG_ROW(NAME, BN, NWG, ST, CL, T, TB, TNAME, LNAME)                                    \
    {"wgmma_" TNAME "_" LNAME "_" #NAME, gemm_wg_run<T, BN, NWG, ST, CL, TB>, 64 * (NWG), BN, CL},
#define GEMM_WG_F16_TN(NAME, BN, NWG, ST, CL) GEMM_WG_ROW(NAME, BN, NWG, ST, CL, ELEM_FP16, 0, "fp16", "tn")
#define GEMM_WG_F16_NN(NAME, BN, NWG, ST, CL) GEMM_WG_ROW(NAME, BN, NWG, ST, CL, ELEM_FP16, 1, "fp16", "nn")
#define GEMM_WG_BF16_TN(NAME, BN, NWG, ST, CL) GEMM_WG_ROW(NAME, BN, NWG, ST, CL, ELEM_BF16, 0, "bf16", "tn")
#define GEMM_WG_BF16_NN(NAME, BN, NWG, ST, CL) GEMM_WG_ROW(NAME, BN, NWG, ST, CL, ELEM_BF16, 1, "bf16", "nn")
#define GEMM_WG_E4M3_TN(NAME, BN, NWG, ST, CL)                                                     \
    GEMM_WG_ROW(NAME, BN, NWG, ST, CL, ELEM_FP8_E4M3, 0, "fp8_e4m3", "tn")
#define GEMM_WG_COUNT_ONE(NAME, BN, NWG, ST, CL) +1

enum { GEMM_WG_NCFG = 0 GEMM_WG_CONFIGS(GEMM_WG_COUNT_ONE) };
static_assert(sizeof(GEMM_WG_COST) / sizeof(GEMM_WG_COST[0]) == GEMM_WG_NCFG, "a cost per configuration");

static const gemm_wg_cfg gemm_wg_f16_tn[] = {GEMM_WG_CONFIGS(GEMM_WG_F16_TN)};
static const gemm_wg_cfg gemm_wg_f16_nn[] = {GEMM_WG_CONFIGS(GEMM_WG_F16_NN)};
static const gemm_wg_cfg gemm_wg_bf16_tn[] = {GEMM_WG_CONFIGS(GEMM_WG_BF16_TN)};
static const gemm_wg_cfg gemm_wg_bf16_nn[] = {GEMM_WG_CONFIGS(GEMM_WG_BF16_NN)};
static const gemm_wg_cfg gemm_wg_e4m3_tn[] = {GEMM_WG_CONFIGS(GEMM_WG_E4M3_TN)};

/* the configurations of a type and layout, NULL for none */
static const gemm_wg_cfg *gemm_wg_table(int a_type, int b_kmajor)
{
    switch (a_type) {
    case ELEM_FP16: return b_kmajor ? gemm_wg_f16_tn : gemm_wg_f16_nn;
    case ELEM_BF16: return b_kmajor ? gemm_wg_bf16_tn : gemm_wg_bf16_nn;
    case ELEM_FP8_E4M3: return b_kmajor ? gemm_wg_e4m3_tn : NULL;
    default: return NULL;
    }
}

static void gemm_wg_why(char *why, size_t why_len, const char *text)
{
    if (why && why_len > 0)
        snprintf(why, why_len, "%s", text);
}

extern "C" int gemm_wgmma_supports(long long m, long long n, long long k, int a_type, int b_kmajor,
                                   char *why, size_t why_len)
{
    gemm_wg_why(why, why_len, "");
    if (m < 1 || n < 1 || k < 1) {
        gemm_wg_why(why, why_len, "m, n and k must be at least 1");
        return 0;
    }
    if (m > INT_MAX - 512 || n > INT_MAX - 512 || k > INT_MAX - 512) {
        gemm_wg_why(why, why_len, "m, n or k past the 32-bit TMA coordinates");
        return 0;
    }
    if (a_type != ELEM_FP16 && a_type != ELEM_BF16 && a_type != ELEM_FP8_E4M3) {
        gemm_wg_why(why, why_len, "element type not fp16, bf16 or fp8_e4m3");
        return 0;
    }
    if (a_type == ELEM_FP8_E4M3 && !b_kmajor) {
        gemm_wg_why(why, why_len, "fp8 wgmma reads B K-major only: layout tn");
        return 0;
    }
    const int es = a_type == ELEM_FP8_E4M3 ? 1 : 2;
    if ((k * es) % 16 != 0) {
        gemm_wg_why(why, why_len,
                    es == 2 ? "k not a multiple of 8: the TMA row stride of A and B must be a multiple of 16 bytes"
                            : "k not a multiple of 16: the TMA row stride of A and B must be a multiple of 16 bytes");
        return 0;
    }
    if (!b_kmajor && (n * es) % 16 != 0) {
        gemm_wg_why(why, why_len, "layout nn with n not a multiple of 8: the TMA row stride of B must be a "
                                  "multiple of 16 bytes");
        return 0;
    }
    if (policy_arch_current() != POLICY_ARCH_90) {
        gemm_wg_why(why, why_len, "needs sm_90 (wgmma and TMA, built for sm_90a) under the sm_90 policy");
        return 0;
    }
    if (!sgemm_tma_encoder()) {
        gemm_wg_why(why, why_len, "the driver has no cuTensorMapEncodeTiled");
        return 0;
    }
    return 1;
}

/* the arguments' checks shared by gemm_wgmma and gemm_wgmma_with: 0 or an error */
static int gemm_wg_check(const gemm_args *g)
{
    if (!g || !g->A || !g->B || !g->C || g->m < 1 || g->n < 1 || g->k < 1)
        return (int)cudaErrorInvalidValue;
    const int want_c = g->a_type == ELEM_FP8_E4M3 ? ELEM_BF16 : (int)g->a_type;
    if ((int)g->c_type != want_c)
        return (int)cudaErrorInvalidValue;
    if (!gemm_wgmma_supports(g->m, g->n, g->k, g->a_type, g->b_kmajor, NULL, 0))
        return (int)cudaErrorNotSupported;
    if (((uintptr_t)g->A & 15) != 0 || ((uintptr_t)g->B & 15) != 0 || ((uintptr_t)g->C & 3) != 0)
        return (int)cudaErrorNotSupported;
    return 0;
}

/* The configuration with the least modelled time (see the header); a
 * cluster configuration only with two tile rows or more. */
static int gemm_wg_pick(const gemm_wg_cfg *t, long long m, long long n)
{
#ifdef GEMM_WG_FORCE
    return GEMM_WG_FORCE;
#endif
    const int sms_now = sgemm_tma_sms();
    const long long sms = sms_now > 0 ? sms_now : 132;
    int best = -1;
    long long best_cost = 0;
    for (int i = 0; i < GEMM_WG_NCFG; i++) {
        const long long tiles_m = (m + t[i].bm - 1) / t[i].bm, tiles_n = (n + t[i].bn - 1) / t[i].bn;
        if (t[i].cl > 1 && tiles_m < 2)
            continue;
        const long long waves = (tiles_m * tiles_n + sms - 1) / sms;
        const long long cost = waves * t[i].bm * t[i].bn * GEMM_WG_COST[i];
        if (best < 0 || cost < best_cost) {
            best = i;
            best_cost = cost;
        }
    }
    return best;
}

extern "C" int gemm_wgmma_configs(void)
{
    return GEMM_WG_NCFG;
}

extern "C" const char *gemm_wgmma_config_name(int a_type, int b_kmajor, int i)
{
    const gemm_wg_cfg *t = gemm_wg_table(a_type, b_kmajor);
    return t && i >= 0 && i < GEMM_WG_NCFG ? t[i].name : NULL;
}

extern "C" int gemm_wgmma_with(int i, const gemm_args *g, cudaStream_t s)
{
    const int rc = gemm_wg_check(g);
    if (rc != 0)
        return rc;
    if (i < 0 || i >= GEMM_WG_NCFG)
        return (int)cudaErrorInvalidValue;
    const gemm_wg_cfg *t = gemm_wg_table(g->a_type, g->b_kmajor);
    kernel_ran_note(t[i].name, NULL);
    return t[i].run(g, s);
}

extern "C" int gemm_wgmma(const gemm_args *g, cudaStream_t s)
{
    const int rc = gemm_wg_check(g);
    if (rc != 0)
        return rc;
    const gemm_wg_cfg *t = gemm_wg_table(g->a_type, g->b_kmajor);
    const int i = gemm_wg_pick(t, g->m, g->n);
    kernel_ran_note(t[i].name, NULL);
    return t[i].run(g, s);
}
