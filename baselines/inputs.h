/* baselines/inputs.h: inputs made by cuRAND on the GPU (Philox, seeded).
 * The generator's offset is reset per case, so a case's inputs depend only
 * on the seed and the sizes, whatever ran before it. */
#ifndef BASELINES_INPUTS_H
#define BASELINES_INPUTS_H

#include <stddef.h>
#include <stdint.h>
#include <curand.h>
#include <cuda_runtime_api.h>

/* Restarts the generator's sequence at offset 0 for seed. */
int inputs_reset(curandGenerator_t g, unsigned long long seed);
/* n floats uniform in (-1, 1]: cuRAND's (0, 1] mapped by 2u - 1. */
int inputs_uniform_pm1(curandGenerator_t g, float *x, size_t n, cudaStream_t stream);
/* n values uniform in (-1, 1] of element type `type` (src/core/types.c:
 * "fp32", "fp16", "bf16", "fp8_e4m3", "fp8_e5m2"): made in FP32 into
 * `scratch` (n floats; `out` itself only when type is "fp32") and
 * rounded on the device to nearest even (src/gpu/convert_kernels.h). A type
 * the converter lacks is an error with a message. */
int inputs_uniform_pm1_as(curandGenerator_t g, const char *type, void *out, float *scratch, size_t n,
                          cudaStream_t stream);
/* n uniformly random 32-bit keys. */
int inputs_u32(curandGenerator_t g, uint32_t *x, size_t n);

#endif
