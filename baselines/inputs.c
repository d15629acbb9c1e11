#include "inputs.h"

#include "check.h"
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

int inputs_u32(curandGenerator_t g, uint32_t *x, size_t n)
{
    CK_CURAND(curandGenerate(g, (unsigned int *)x, n));
    return 0;
}
