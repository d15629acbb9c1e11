#include "inputs.h"

#include <string.h>

#include "check.h"
#include "convert_kernels.h"
#include "verify_kernels.h"

int inputs_reset(curandGenerator_t g, unsigned long long seed)
{
    CK_CURAND(curandSetPseudoRandomGeneratorSeed(g, seed));
    CK_CURAND(curandSetGeneratorOffset(g, 0));
    return 0;
}

int inputs_uniform_pm1(curandGenerator_t g, float *x, size_t n, cudaStream_t stream)
{
    CK_CURAND(curandGenerateUniform(g, x, n));
    CK_LAUNCH(gpucheck_affine(x, n, 2.0f, -1.0f, stream));
    return 0;
}

int inputs_uniform_pm1_as(curandGenerator_t g, const char *type, void *out, float *scratch, size_t n,
                          cudaStream_t stream)
{
    int in_place = (void *)scratch == out;
    if (!convert_supports(type) || (in_place && strcmp(type, "fp32") != 0)) {
        status_set_message("inputs: %s '%s'", in_place ? "an in-place conversion to narrower type" :
                                                          "no device conversion to element type", type ? type : "(none)");
        return STATUS_ERROR;
    }
    if (inputs_uniform_pm1(g, scratch, n, stream)) return STATUS_ERROR;
    if (in_place) return 0; /* fp32: the values are already there */
    CK_LAUNCH(convert_from_f32(type, scratch, out, (long long)n, stream));
    return 0;
}

int inputs_u32(curandGenerator_t g, uint32_t *x, size_t n)
{
    CK_CURAND(curandGenerate(g, (unsigned int *)x, n));
    return 0;
}
