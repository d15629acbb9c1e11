/* kernels/common/smem.cuh: shared-memory facts of sm_90 (H100 / H200), the
 * one place every kernel's static_asserts take them from, and the 32-bit
 * shared address that inline PTX wants.
 *
 * Limits (CUDA C Programming Guide, compute capability 9.0): 228 KiB of
 * shared memory per SM, at most 227 KiB of dynamic shared memory per block
 * (above 48 KiB only after cudaFuncAttributeMaxDynamicSharedMemorySize), and
 * 1 KiB the system reserves per resident block. A kernel that asks
 * __launch_bounds__ for MINB blocks per SM checks SMEM_SM90_FITS(bytes, MINB):
 * otherwise fewer blocks are resident than ptxas assumed when it chose the
 * register budget. */
#ifndef KERNELS_COMMON_SMEM_CUH
#define KERNELS_COMMON_SMEM_CUH

#include <cuda_runtime.h>

#define SMEM_SM90_PER_SM (228 * 1024)    /* shared memory per SM, bytes */
#define SMEM_SM90_PER_BLOCK (227 * 1024) /* max dynamic shared memory per block, bytes */
#define SMEM_SM90_RESERVED 1024          /* reserved per resident block, bytes */

/* 1 if `blocks` blocks of `bytes` dynamic shared memory each fit on one SM */
#define SMEM_SM90_FITS(bytes, blocks)                                                              \
    ((bytes) <= SMEM_SM90_PER_BLOCK && (blocks) * ((bytes) + SMEM_SM90_RESERVED) <= SMEM_SM90_PER_SM)

/* Sets `kern`'s function attribute `attr` to `value` on the current device,
 * once per device: the attribute belongs to the device (a process running
 * several GPUs must set it on each), so *done holds one bit per device
 * ordinal (0..63; a device past 63 is set every call). Safe when threads of
 * one process race here: both set the same value. Returns the cudaError_t as
 * int, 0 on success. */
static inline int smem_func_attr_once(const void *kern, cudaFuncAttribute attr, int value,
                                      unsigned long long *done)
{
    int dev = 0;
    cudaError_t e = cudaGetDevice(&dev);
    if (e != cudaSuccess)
        return (int)e;
    const unsigned long long bit = dev < 64 ? 1ULL << dev : 0ULL;
    if (bit && (__atomic_load_n(done, __ATOMIC_ACQUIRE) & bit))
        return 0;
    e = cudaFuncSetAttribute(kern, attr, value);
    if (e != cudaSuccess)
        return (int)e;
    __atomic_fetch_or(done, bit, __ATOMIC_RELEASE);
    return 0;
}

/* Raises `kern`'s dynamic shared-memory limit to `bytes` on the current
 * device, once per device (smem_func_attr_once). */
static inline int smem_opt_in(const void *kern, int bytes, unsigned long long *done)
{
    return smem_func_attr_once(kern, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes, done);
}

/* Blocks of `kern` (`threads` threads, `bytes` of dynamic shared memory)
 * resident per SM on the current device, queried once per device: cache[dev]
 * (0..63, zero-initialised; 0 = not yet queried) keeps the answer, and a
 * device past 63 is queried every call. Threads of one process may race here:
 * both store the same value. Returns the cudaError_t as int, 0 on success. */
static inline int smem_resident_per_sm(const void *kern, int threads, int bytes, int *cache, int *per_sm)
{
    int dev = 0;
    cudaError_t e = cudaGetDevice(&dev);
    if (e != cudaSuccess)
        return (int)e;
    int v = dev < 64 ? __atomic_load_n(&cache[dev], __ATOMIC_RELAXED) : 0;
    if (v == 0) {
        e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&v, kern, threads, (size_t)bytes);
        if (e != cudaSuccess)
            return (int)e;
        if (dev < 64 && v > 0)
            __atomic_store_n(&cache[dev], v, __ATOMIC_RELAXED);
    }
    *per_sm = v;
    return 0;
}

/* The shared-window address of a pointer into shared memory (what the
 * .shared state space of ld / st / cp.async / ldmatrix / mbarrier takes). */
static __device__ __forceinline__ unsigned smem_u32(const void *p)
{
    return (unsigned)__cvta_generic_to_shared(p);
}

#endif
