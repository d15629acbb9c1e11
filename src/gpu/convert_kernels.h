/* src/gpu/convert_kernels.h: element-type conversions on the device. Inputs
 * of every type are made by cuRAND in FP32 and rounded here, once, to the
 * case's type (round to nearest, ties to even: what types_round in
 * src/core/types.c computes on the CPU); the FP64 reference then reads the
 * rounded values back (convert_to_f64), so it sees exactly the inputs the
 * kernels see. Types by their names in src/core/types.c: "fp32", "fp16",
 * "bf16", "fp8_e4m3", "fp8_e5m2" (FP8 saturates to +-max finite; NaN stays NaN).
 * Each launcher enqueues one grid-stride kernel on `stream` and returns its
 * cudaError_t (cudaErrorInvalidValue for a type it does not convert, or
 * n < 0): check it with CK_LAUNCH. */
#ifndef COMPARE_CONVERT_KERNELS_H
#define COMPARE_CONVERT_KERNELS_H

#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/* out[i] = in[i] rounded to `type`, i < n; out holds n elements of that type. */
int convert_from_f32(const char *type, const float *in, void *out, long long n, cudaStream_t stream);
/* out[i] = the value of in[i] (n elements of `type`) as float: exact for
 * every type here. */
int convert_to_f32(const char *type, const void *in, float *out, long long n, cudaStream_t stream);
/* The same as double, for FP64 references. */
int convert_to_f64(const char *type, const void *in, double *out, long long n, cudaStream_t stream);
/* 1 if the launchers convert `type`, else 0. */
int convert_supports(const char *type);

#ifdef __cplusplus
}
#endif

#endif
