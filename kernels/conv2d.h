/* kernels/conv2d.h: the launcher contract of the conv2d op (forward 2-D
 * convolution), src/gpu/op_conv2d.c.
 *
 *   y[n][k][i][j] = sum_c sum_u sum_v x[n][c][i + u - R/2][j + v - R/2] *
 * w[k][c][u][v]
 *
 * (cross-correlation, as cuDNN's CUDNN_CROSS_CORRELATION and every deep
 * learning framework compute it), stride 1, zero padding R/2 on every side:
 * the output has the input's H x W ("same"). R is odd. Layouts are NCHW and
 * KCRS, contiguous: x is batch x c_in x height x width, w c_out x c_in x r x r,
 * y batch x c_out x height x width (element (n, c, i, j) of x at
 * ((n * c_in + c) * height + i) * width + j). x, w and y hold elements of
 * `type` (fp32, fp16 or bf16); every sum is FP32.
 *
 * FLOPs: 2 * batch * c_out * c_in * height * width * r * r (the border's
 * zero taps counted, as cuDNN and the course count them). Minimum bytes:
 * x and w read, y written once.
 *
 * A launcher enqueues its kernels on `s` and returns a cudaError_t as int
 * (cudaErrorInvalidValue for a case it does not take); NAME_supports says
 * whether it takes the case (1), or declines it (0, with the reason in why).
 * Launchers do not allocate. */
#ifndef COMPARE_CONV2D_H
#define COMPARE_CONV2D_H

#include <cuda_runtime_api.h>
#include <stddef.h>

#include "elem_type.h"

typedef struct {
    const void *x; /* input, batch x c_in x height x width */
    const void *w; /* mask, c_out x c_in x r x r */
    void *y;       /* output, batch x c_out x height x width */
    long long batch, c_in, c_out, height, width;
    int r;          /* mask side, odd */
    elem_type type; /* ELEM_FP32, ELEM_FP16 or ELEM_BF16 */
} conv2d_args;

typedef int (*conv2d_launcher)(const conv2d_args *a, cudaStream_t s);
typedef int (*conv2d_supports_fn)(const conv2d_args *a, char *why, size_t why_len);

/* Bytes of __constant__ memory const_mask keeps the mask in (the 64 KiB bank
 * less a margin for the compiler's own constants). */
#define CONV2D_CONST_MASK_BYTES (60 * 1024)
/* The largest r the ladder takes (fast's shared tile is sized for it). */
#define CONV2D_MAX_R 15

#ifdef __cplusplus
extern "C" {
#endif

/* What every rung takes: r odd in [1, CONV2D_MAX_R], a type above, sizes
 * >= 1 whose element counts fit in 63 bits. 1, or 0 with the reason. */
int conv2d_case_ok(const conv2d_args *a, char *why, size_t why_len);

/* The hand ladder (each launcher in its own file, its idea in the header):
 *   conv2d_naive         kernels/conv2d_naive.cu: one thread per output, the
 *                        mask read from global memory.
 *   conv2d_const_mask    kernels/conv2d_const_mask.cu: the same with the mask
 *                        in __constant__ memory, loaded by
 *                        conv2d_const_mask_load (the variant's untimed
 *                        prepare step); declines masks over
 *                        CONV2D_CONST_MASK_BYTES.
 *   conv2d_tiled_halo    kernels/conv2d_tiled_halo.cu: the block's input tile
 *                        plus its halo staged in shared memory.
 *   conv2d_tiled_cached  kernels/conv2d_tiled_cached.cu: only the tile in
 *                        shared memory, the halo read through L1.
 *   conv2d_fast          kernels/conv2d_fast.cu: single-channel (c_in =
 *                        c_out = 1): register blocking (4 x 4 outputs a
 *                        thread), 16-byte loads, the mask in registers;
 *                        otherwise conv2d_fast_igemm
 *                        (kernels/conv2d_fast_igemm.cu): an implicit GEMM on
 *                        tensor cores for fp16 / bf16, on the FP32 lanes for
 *                        fp32 (conv2d_fast_igemm_f32.cu); fp16 / bf16 at
 *                        r = 3, 5 with c_in % 16 == 0 in its tap form
 *                        (conv2d_fast_tap.cuh: the input tile and halo
 *                        staged once a chunk of channels, every tap a GEMM
 *                        against it, shifted).
 *   conv2d_fast_tf32     kernels/conv2d_fast_tf32.cu: fp32 only, math tf32:
 *                        the tap form on TF32 tensor cores (mma.sync
 *                        m16n8k8, x and w rounded to TF32 when staged),
 *                        r = 3, 5 with c_in % 8 == 0; declines the rest. */
int conv2d_naive(const conv2d_args *a, cudaStream_t s);
int conv2d_naive_supports(const conv2d_args *a, char *why, size_t why_len);

int conv2d_const_mask(const conv2d_args *a, cudaStream_t s);
int conv2d_const_mask_supports(const conv2d_args *a, char *why, size_t why_len);
/* Copies a->w into the __constant__ mask (device to device, on s). */
int conv2d_const_mask_load(const conv2d_args *a, cudaStream_t s);

int conv2d_tiled_halo(const conv2d_args *a, cudaStream_t s);
int conv2d_tiled_halo_supports(const conv2d_args *a, char *why, size_t why_len);

int conv2d_tiled_cached(const conv2d_args *a, cudaStream_t s);
int conv2d_tiled_cached_supports(const conv2d_args *a, char *why, size_t why_len);

int conv2d_fast(const conv2d_args *a, cudaStream_t s);
int conv2d_fast_supports(const conv2d_args *a, char *why, size_t why_len);
/* fast's multi-channel form (conv2d_fast calls it; its supports is part of fast's) */
int conv2d_fast_igemm(const conv2d_args *a, cudaStream_t s);
int conv2d_fast_igemm_supports(const conv2d_args *a, char *why, size_t why_len);
int conv2d_fast_igemm_f32(const conv2d_args *a, cudaStream_t s);

int conv2d_fast_tf32(const conv2d_args *a, cudaStream_t s);
int conv2d_fast_tf32_supports(const conv2d_args *a, char *why, size_t why_len);

#ifdef __cplusplus
}
#endif

#endif
