/* kernels/sgemm_wgmma_common.cuh: Hopper warpgroup-MMA helpers shared by
 * sgemm_tf32_wgmma.cuh and sgemm_tf32_tma.cuh (both built for sm_90a only):
 * wgmma fence / commit / wait, the K-major 128-byte-swizzle matrix
 * descriptor, the m64nNk8 TF32 instructions (N = 16, 32, 64, 128, 256: the
 * tile's BM rows of C; the small ones for thin m) in their RS form
 * (A from 4 registers, B by descriptor, D += A * B; the accumulator
 * operand lists are gemm_wgmma_mma.cuh's, shared with the fp16 / bf16 /
 * fp8 GEMM, which also uses the fences, waits and descriptor), the group size of the
 * grouped tile order (kernels/common/tile_order.cuh),
 * and the host-side shape check. The layouts are derived in
 * sgemm_tf32_wgmma.cuh's header. */
#ifndef KERNELS_SGEMM_WGMMA_COMMON_CUH
#define KERNELS_SGEMM_WGMMA_COMMON_CUH

#include <stdint.h>

#include <cuda_runtime.h>

#include "gemm_wgmma_mma.cuh" /* the accumulator operand lists */
#include "smem.cuh"
#include "tile_order.cuh"

#ifndef SGEMM_WG_GROUP_M /* a probe may build with another group */
#define SGEMM_WG_GROUP_M 8        /* block-rows per rasterisation group */
#endif

static __device__ __forceinline__ void sgemm_wg_fence(void)
{
    asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
}

static __device__ __forceinline__ void sgemm_wg_commit(void)
{
    asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
}

static __device__ __forceinline__ void sgemm_wg_wait0(void)
{
    asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory");
}

/* at most one committed wgmma group of this warpgroup still in flight */
static __device__ __forceinline__ void sgemm_wg_wait1(void)
{
    asm volatile("wgmma.wait_group.sync.aligned 1;\n" ::: "memory");
}

/* pins an accumulator register in program order (no read or move across it) */
static __device__ __forceinline__ void sgemm_wg_fence_operand(float *r)
{
    asm volatile("" : "+f"(*r) :: "memory");
}

/* K-major, 128-byte-swizzle descriptor of the tile starting at shared address `addr`
 * (see the header: LBO 1 (unused), SBO 1024 bytes, base offset 0, layout type 1) */
static __device__ __forceinline__ unsigned long long sgemm_wg_desc(unsigned addr)
{
    return (unsigned long long)((addr & 0x3FFFF) >> 4) | (1ull << 16) | (64ull << 32) |
           (1ull << 62);
}

// ---- wgmma wrappers (RS form: A in 4 registers, B by descriptor, D += A * B) ----

/* D[64 x 16] += A[64 x 8] (registers a) * B[8 x 16] (shared memory, descriptor) */
static __device__ __forceinline__ void sgemm_wg_mma_n16(float *d, const unsigned *a, unsigned long long desc)
{
    asm volatile(
        "wgmma.mma_async.sync.aligned.m64n16k8.f32.tf32.tf32 {"
        "%0, %1, %2, %3, %4, %5, %6, %7"
        "}, {%8, %9, %10, %11}, %12, 1, 1, 1;\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(desc)
        : "memory");
}

/* D[64 x 32] += A[64 x 8] (registers a) * B[8 x 32] (shared memory, descriptor) */
static __device__ __forceinline__ void sgemm_wg_mma_n32(float *d, const unsigned *a, unsigned long long desc)
{
    asm volatile(
        "wgmma.mma_async.sync.aligned.m64n32k8.f32.tf32.tf32 {"
        "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15"
        "}, {%16, %17, %18, %19}, %20, 1, 1, 1;\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
          "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(desc)
        : "memory");
}

/* D[64 x 64] += A[64 x 8] (registers a) * B[8 x 64] (shared memory, descriptor) */
static __device__ __forceinline__ void sgemm_wg_mma_n64(float *d, const unsigned *a, unsigned long long desc)
{
    asm volatile("wgmma.mma_async.sync.aligned.m64n64k8.f32.tf32.tf32 " GEMM_WG_D32_STR
                 ", {%32, %33, %34, %35}, %36, 1, 1, 1;\n"
                 : GEMM_WG_D32_OPS(d, 0)
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(desc)
                 : "memory");
}

/* D[64 x 128] += A[64 x 8] (registers a) * B[8 x 128] (shared memory, descriptor) */
static __device__ __forceinline__ void sgemm_wg_mma_n128(float *d, const unsigned *a, unsigned long long desc)
{
    asm volatile("wgmma.mma_async.sync.aligned.m64n128k8.f32.tf32.tf32 " GEMM_WG_D64_STR
                 ", {%64, %65, %66, %67}, %68, 1, 1, 1;\n"
                 : GEMM_WG_D64_OPS(d)
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(desc)
                 : "memory");
}

/* D[64 x 256] += A[64 x 8] (registers a) * B[8 x 256] (shared memory, descriptor) */
static __device__ __forceinline__ void sgemm_wg_mma_n256(float *d, const unsigned *a, unsigned long long desc)
{
    asm volatile("wgmma.mma_async.sync.aligned.m64n256k8.f32.tf32.tf32 " GEMM_WG_D128_STR
                 ", {%128, %129, %130, %131}, %132, 1, 1, 1;\n"
                 : GEMM_WG_D128_OPS(d)
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(desc)
                 : "memory");
}

/* 4 wgmma k steps of a slab on A_s stage a_s; descriptors and fragments pinned
 * before wgmma.fence (a non-wgmma definition of a wgmma input inside the
 * fence..commit window serialises the wgmma, C7513) */
static __device__ __forceinline__ void sgemm_wg_mma_slab(float *d, unsigned *f, unsigned a_s,
                                                          const int BM)
{
    unsigned long long desc[4];
#pragma unroll
    for (int j = 0; j < 4; j++) {
        desc[j] = sgemm_wg_desc(a_s + 32 * j);
        asm volatile("" : "+l"(desc[j]) :: "memory");
    }
#pragma unroll
    for (int j = 0; j < 16; j++)
        asm volatile("" : "+r"(f[j]) :: "memory");
    sgemm_wg_fence();
#pragma unroll
    for (int j = 0; j < 4; j++) {
        if (BM == 256)
            sgemm_wg_mma_n256(d, f + 4 * j, desc[j]);
        else if (BM == 128)
            sgemm_wg_mma_n128(d, f + 4 * j, desc[j]);
        else if (BM == 64)
            sgemm_wg_mma_n64(d, f + 4 * j, desc[j]);
        else if (BM == 32)
            sgemm_wg_mma_n32(d, f + 4 * j, desc[j]);
        else
            sgemm_wg_mma_n16(d, f + 4 * j, desc[j]);
    }
    sgemm_wg_commit();
}

// ---- host side: what both launchers check before a launch ------------------------

/* Why the wgmma kernels decline this shape (a static string), NULL if they
 * take it: whole 16-byte rows of A and B (n % 4 == 0, k % 4 == 0, A and B
 * 16-byte aligned) and float2 stores of C (C 8-byte aligned). */
static inline const char *sgemm_wg_decline(const float *A, const float *B, const float *C, int n,
                                           int k)
{
    if (n % 4 != 0)
        return "n not a multiple of 4";
    if (k % 4 != 0)
        return "k not a multiple of 4";
    if (((uintptr_t)A & 15) != 0 || ((uintptr_t)B & 15) != 0)
        return "A or B not 16-byte aligned";
    if (((uintptr_t)C & 7) != 0)
        return "C not 8-byte aligned";
    return NULL;
}

/* 0 if the wgmma kernels take this shape, cudaErrorInvalidValue for a size < 1,
 * cudaErrorNotSupported when they decline it (sgemm_wg_decline). */
static inline int sgemm_wg_shape_ok(const float *A, const float *B, const float *C, int m, int n,
                                    int k)
{
    if (m < 1 || n < 1 || k < 1)
        return (int)cudaErrorInvalidValue;
    return sgemm_wg_decline(A, B, C, n, k) ? (int)cudaErrorNotSupported : 0;
}

/* Raises the kernel's dynamic shared-memory limit once per device (*attr_set,
 * smem_opt_in) and returns the number of BM x BN tiles in *tiles (a 1-D grid);
 * 0 or an error. */
static inline int sgemm_wg_prepare(const void *kern, unsigned long long *attr_set, int smem, int m, int n,
                                   int BM, int BN, unsigned *tiles)
{
    const int e = smem_opt_in(kern, smem, attr_set);
    if (e != 0)
        return e;
    long long t = (long long)((m + BM - 1) / BM) * ((n + BN - 1) / BN);
    if (t > 0x7fffffffLL)
        return (int)cudaErrorInvalidValue;
    *tiles = (unsigned)t;
    return 0;
}

#endif
