/* kernels/gemm_wgmma_mma.cuh: the warpgroup MMA instructions of the
 * low-precision Hopper GEMM (gemm_wgmma.cu), in their SS form (A and B both
 * read from shared memory by descriptor), templated on the element type:
 *   fp16 / bf16   wgmma.mma_async.m64nNk16.f32.{f16,bf16}.{f16,bf16}
 *   fp8_e4m3      wgmma.mma_async.m64nNk32.f32.e4m3.e4m3
 * and the accumulator operand lists they share with the TF32 wrappers
 * (sgemm_wgmma_common.cuh, whose m64nNk8 lists are these macros too).
 *
 * Idea: every type's k step is 32 bytes of K (k8 x 4 B for TF32, k16 x 2 B,
 * k32 x 1 B), so a 128-byte swizzle row of K holds 4 k steps for every type,
 * and a stage's descriptors advance the same way: +32 bytes along a K-major
 * row (the hardware applies the 128-byte swizzle to the address it forms,
 * as CUTLASS and DeepGEMM advance K inside a swizzle atom), or, for an
 * MN-major B (layout nn, 16-bit types only: wgmma's transpose bit exists
 * only for .f16/.bf16), +16 k rows = 2048 bytes.
 *
 * Descriptors (PTX ISA, "Shared Memory Matrix Layout", 128-byte swizzle):
 *   K-major: start >> 4, LBO unused (1), SBO 1024 (8 rows of 128 bytes),
 *     layout type 1 (bits 62-63): sgemm_wg_desc.
 *   MN-major: LBO = bytes from one 64-element (128-byte) run of N to the
 *     next (the TMA box stride, 8192 for 64 k rows), SBO = bytes from 8 k
 *     rows to the next (1024): gemm_wg_desc_mn. */
#ifndef KERNELS_GEMM_WGMMA_MMA_CUH
#define KERNELS_GEMM_WGMMA_MMA_CUH

#include "elem_type.h"

// ---- accumulator operand lists (N / 2 floats a thread for m64nN) ------------------

#define GEMM_WG_D8_OPS(d, i)                                                                       \
    "+f"(d[(i) + 0]), "+f"(d[(i) + 1]), "+f"(d[(i) + 2]), "+f"(d[(i) + 3]), "+f"(d[(i) + 4]),      \
        "+f"(d[(i) + 5]), "+f"(d[(i) + 6]), "+f"(d[(i) + 7])
#define GEMM_WG_D32_OPS(d, i)                                                                      \
    GEMM_WG_D8_OPS(d, (i) + 0), GEMM_WG_D8_OPS(d, (i) + 8), GEMM_WG_D8_OPS(d, (i) + 16),           \
        GEMM_WG_D8_OPS(d, (i) + 24)
#define GEMM_WG_D64_OPS(d) GEMM_WG_D32_OPS(d, 0), GEMM_WG_D32_OPS(d, 32)
#define GEMM_WG_D128_OPS(d) GEMM_WG_D64_OPS(d), GEMM_WG_D32_OPS(d, 64), GEMM_WG_D32_OPS(d, 96)

#define GEMM_WG_D32_STR                                                                            \
    "{"                                                                                            \
    "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "                       \
    "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31"               \
    "}"
#define GEMM_WG_D64_STR                                                                            \
    "{"                                                                                            \
    "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "                       \
    "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, "             \
    "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "             \
    "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63"               \
    "}"
#define GEMM_WG_D128_STR                                                                           \
    "{"                                                                                            \
    "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "                       \
    "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, "             \
    "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "             \
    "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, "             \
    "%64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, "             \
    "%80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, "             \
    "%96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, %111, " \
    "%112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, %125, %126, %127" \
    "}"

// ---- descriptors -------------------------------------------------------------------

/* MN-major, 128-byte-swizzle descriptor of the tile at shared address addr:
 * LBO = lbo bytes between 64-element runs of N, SBO 1024 (see the header) */
static __device__ __forceinline__ unsigned long long gemm_wg_desc_mn(unsigned addr, unsigned lbo)
{
    return (unsigned long long)((addr & 0x3FFFF) >> 4) | ((unsigned long long)(lbo >> 4) << 16) |
           (64ull << 32) | (1ull << 62);
}

// ---- D[64 x N] += A[64 x K] B[K x N], both by descriptor ---------------------------

/* the instruction's type suffix and k, per element type (T: an elem_type) */
#define GEMM_WG_SHAPE_F16(N) "wgmma.mma_async.sync.aligned.m64n" #N "k16.f32.f16.f16 "
#define GEMM_WG_SHAPE_BF16(N) "wgmma.mma_async.sync.aligned.m64n" #N "k16.f32.bf16.bf16 "
#define GEMM_WG_SHAPE_E4M3(N) "wgmma.mma_async.sync.aligned.m64n" #N "k32.f32.e4m3.e4m3 "

/* one wgmma of element type T, N columns, B MN-major when TB (16-bit types
 * only); scale-d 1 (D += A B: the caller zeroes D) */
template <int T, int N, int TB>
static __device__ __forceinline__ void gemm_wg_mma(float *d, unsigned long long da, unsigned long long db)
{
    static_assert(T == ELEM_FP16 || T == ELEM_BF16 || T == ELEM_FP8_E4M3, "fp16, bf16 or fp8_e4m3");
    static_assert(N == 64 || N == 128 || N == 256, "N = 64, 128 or 256");
    static_assert(!TB || T != ELEM_FP8_E4M3, "fp8 wgmma reads B K-major only");
    if constexpr (N == 256) {
        if constexpr (T == ELEM_FP16)
            asm volatile(GEMM_WG_SHAPE_F16(256) GEMM_WG_D128_STR ", %128, %129, 1, 1, 1, 0, %130;\n"
                         : GEMM_WG_D128_OPS(d) : "l"(da), "l"(db), "n"(TB) : "memory");
        else if constexpr (T == ELEM_BF16)
            asm volatile(GEMM_WG_SHAPE_BF16(256) GEMM_WG_D128_STR ", %128, %129, 1, 1, 1, 0, %130;\n"
                         : GEMM_WG_D128_OPS(d) : "l"(da), "l"(db), "n"(TB) : "memory");
        else
            asm volatile(GEMM_WG_SHAPE_E4M3(256) GEMM_WG_D128_STR ", %128, %129, 1, 1, 1;\n"
                         : GEMM_WG_D128_OPS(d) : "l"(da), "l"(db) : "memory");
    } else if constexpr (N == 128) {
        if constexpr (T == ELEM_FP16)
            asm volatile(GEMM_WG_SHAPE_F16(128) GEMM_WG_D64_STR ", %64, %65, 1, 1, 1, 0, %66;\n"
                         : GEMM_WG_D64_OPS(d) : "l"(da), "l"(db), "n"(TB) : "memory");
        else if constexpr (T == ELEM_BF16)
            asm volatile(GEMM_WG_SHAPE_BF16(128) GEMM_WG_D64_STR ", %64, %65, 1, 1, 1, 0, %66;\n"
                         : GEMM_WG_D64_OPS(d) : "l"(da), "l"(db), "n"(TB) : "memory");
        else
            asm volatile(GEMM_WG_SHAPE_E4M3(128) GEMM_WG_D64_STR ", %64, %65, 1, 1, 1;\n"
                         : GEMM_WG_D64_OPS(d) : "l"(da), "l"(db) : "memory");
    } else {
        if constexpr (T == ELEM_FP16)
            asm volatile(GEMM_WG_SHAPE_F16(64) GEMM_WG_D32_STR ", %32, %33, 1, 1, 1, 0, %34;\n"
                         : GEMM_WG_D32_OPS(d, 0) : "l"(da), "l"(db), "n"(TB) : "memory");
        else if constexpr (T == ELEM_BF16)
            asm volatile(GEMM_WG_SHAPE_BF16(64) GEMM_WG_D32_STR ", %32, %33, 1, 1, 1, 0, %34;\n"
                         : GEMM_WG_D32_OPS(d, 0) : "l"(da), "l"(db), "n"(TB) : "memory");
        else
            asm volatile(GEMM_WG_SHAPE_E4M3(64) GEMM_WG_D32_STR ", %32, %33, 1, 1, 1;\n"
                         : GEMM_WG_D32_OPS(d, 0) : "l"(da), "l"(db) : "memory");
    }
}

#endif
