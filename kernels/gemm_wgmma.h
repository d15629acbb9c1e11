/* kernels/gemm_wgmma.h: the variant gemm_wgmma of the low-precision GEMM op
 * (contract: kernels/gemm_lowp.h), fp16 / bf16 / fp8_e4m3 on Hopper
 * warpgroup MMA fed by TMA, persistent and warp-specialised
 * (kernels/gemm_wgmma.cu, built for sm_90a only).
 *
 * Takes: any m, n, k >= 1 whose TMA row strides are multiples of 16 bytes
 * (k % 8 == 0 for fp16 / bf16, k % 16 == 0 for fp8; layout nn also
 * n % 8 == 0), layout tn for every type, nn for fp16 and bf16 (fp8 wgmma
 * reads B K-major only), A and B 16-byte aligned, C 4-byte aligned, on an
 * sm_90 device under the sm_90 policy. Declines the rest (no staging), with
 * the reason from gemm_wgmma_supports. No workspace. */
#ifndef KERNELS_GEMM_WGMMA_H
#define KERNELS_GEMM_WGMMA_H

#include <stddef.h>

#include <cuda_runtime_api.h>

#include "gemm_lowp.h"

#ifdef __cplusplus
extern "C" {
#endif

/* C = A B (gemm_lowp.h) on the configuration the shape picks (named in
 * kernel_ran_note); cudaErrorInvalidValue for bad arguments (sizes < 1, a
 * wrong c_type, NULL pointers), cudaErrorNotSupported for a case
 * gemm_wgmma_supports declines or misaligned pointers. */
int gemm_wgmma(const gemm_args *g, cudaStream_t s);

/* 1 when gemm_wgmma runs this case on the current device, else 0 with the
 * reason in why (why_len bytes, may be NULL / 0). */
int gemm_wgmma_supports(long long m, long long n, long long k, int a_type, int b_kmajor, char *why,
                        size_t why_len);

/* For tests and tuning: the number of configurations, the name of
 * configuration i for a type and layout (NULL when there is none: fp8 nn,
 * i out of range), and gemm_wgmma run on configuration i instead of the
 * pick (same checks; noted by kernel_ran_note). */
int gemm_wgmma_configs(void);
const char *gemm_wgmma_config_name(int a_type, int b_kmajor, int i);
int gemm_wgmma_with(int i, const gemm_args *g, cudaStream_t s);

#ifdef __cplusplus
}
#endif

#endif
