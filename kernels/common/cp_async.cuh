/* kernels/common/cp_async.cuh: cp.async (sm_80+), global -> shared copies
 * that bypass the registers, in their zero-fill form; the one home for every
 * kernel that uses them (the FP32 ladder, tuned and its search, the TF32
 * mma.sync and wgmma kernels).
 *
 * Zero fill: only the first src_bytes (0 or the full size) are read, the rest
 * of the destination is written with zeros, so a copy past a matrix edge
 * costs a predicate, not a branch. The source must still be a valid address
 * when src_bytes is 0: callers hand the matrix base (or a clamped address)
 * for those. 16-byte copies use .cg (L2 only, the data is used once per
 * block from shared memory); 4-byte ones .ca (.cg exists only for 16).
 *
 * Groups: a thread's copies since its last commit form one group;
 * cp_async_wait(n) returns when at most n of its groups are still in flight.
 * Other threads' copies are visible only after a barrier that follows it. */
#ifndef KERNELS_COMMON_CP_ASYNC_CUH
#define KERNELS_COMMON_CP_ASYNC_CUH

#include "smem.cuh"

/* 16 bytes from global `src` to the shared address `dst` (16-byte aligned
 * both); src_bytes 0 or 16. */
static __device__ __forceinline__ void cp_async16_to(unsigned dst, const void *src, int src_bytes)
{
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n"
                 :: "r"(dst), "l"(src), "r"(src_bytes) : "memory");
}

/* 4 bytes; src_bytes 0 or 4. */
static __device__ __forceinline__ void cp_async4_to(unsigned dst, const void *src, int src_bytes)
{
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n"
                 :: "r"(dst), "l"(src), "r"(src_bytes) : "memory");
}

/* The same with a generic pointer into shared memory as the destination. */
static __device__ __forceinline__ void cp_async16(void *dst, const void *src, int src_bytes)
{
    cp_async16_to(smem_u32(dst), src, src_bytes);
}

static __device__ __forceinline__ void cp_async4(void *dst, const void *src, int src_bytes)
{
    cp_async4_to(smem_u32(dst), src, src_bytes);
}

/* Closes the group of copies issued by this thread since the last commit. */
static __device__ __forceinline__ void cp_async_commit(void)
{
    asm volatile("cp.async.commit_group;\n" ::: "memory");
}

/* Waits until at most `pending` of this thread's committed groups are in
 * flight. The PTX takes an immediate: call it with a compile-time constant
 * (a template parameter or a literal after inlining), so the chain folds to
 * one instruction. Above 7 it waits for 7 (more than asked: still correct). */
static __device__ __forceinline__ void cp_async_wait(const int pending)
{
    if (pending <= 0)
        asm volatile("cp.async.wait_group 0;\n" ::: "memory");
    else if (pending == 1)
        asm volatile("cp.async.wait_group 1;\n" ::: "memory");
    else if (pending == 2)
        asm volatile("cp.async.wait_group 2;\n" ::: "memory");
    else if (pending == 3)
        asm volatile("cp.async.wait_group 3;\n" ::: "memory");
    else if (pending == 4)
        asm volatile("cp.async.wait_group 4;\n" ::: "memory");
    else if (pending == 5)
        asm volatile("cp.async.wait_group 5;\n" ::: "memory");
    else if (pending == 6)
        asm volatile("cp.async.wait_group 6;\n" ::: "memory");
    else
        asm volatile("cp.async.wait_group 7;\n" ::: "memory");
}

#endif
