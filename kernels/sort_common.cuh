/* kernels/sort_common.cuh: device helpers shared by the hand sorts
 * (sort_radix.cu, sort_onesweep.cu).
 *
 * Float keys are sorted as unsigned keys after an order-preserving bit flip,
 * applied when the first pass reads and undone when the last pass writes, so
 * both sorts place -0.0 before +0.0 and NaNs by sign and payload in the same
 * way (the CPU reference, src/core/sortkey.c, uses the same rule). */
#ifndef KERNELS_SORT_COMMON_CUH
#define KERNELS_SORT_COMMON_CUH

#include <cuda_runtime.h>
#include <stdint.h>

/* float bits -> key whose unsigned order is IEEE totalOrder: sign set, flip
 * all bits; sign clear, flip the sign bit only. */
static __device__ __forceinline__ uint32_t sort_float_to_key(uint32_t bits)
{
    return bits ^ ((uint32_t)(-(int32_t)(bits >> 31)) | 0x80000000u);
}

/* inverse: key top bit set came from a sign-clear float (flip the sign back),
 * clear came from a sign-set float (flip every bit back). */
static __device__ __forceinline__ uint32_t sort_key_to_float(uint32_t key)
{
    return key ^ (((key >> 31) - 1u) | 0x80000000u);
}

#endif
