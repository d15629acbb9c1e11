/* tests/test_gpu_convert.c: the device's element-type conversions
 * (src/gpu/convert_kernels.cu) against values worked out by hand and against
 * the CPU's rounding (types_round, src/core/types.c):
 *  - known floats to fp16 / bf16 / fp8_e4m3 / fp8_e5m2 bit patterns: exact
 *    values, ties to even, subnormals, the largest finite value, overflow
 *    (inf for fp16 and bf16, saturation for FP8), NaN;
 *  - back to float and to double: exactly the value the bits encode;
 *  - 2^20 random floats over a wide exponent range, each type: the GPU's
 *    rounding equals types_round element for element (a double rounding,
 *    a truncation or a wrong tie rule would differ);
 *  - a type the launchers do not convert is an error code, not a launch;
 *  - inputs_uniform_pm1_as (baselines/inputs.c): cuRAND's FP32 values rounded
 *    to bf16 and fp8_e4m3 on the device equal types_round of the same FP32
 *    values, all in [-1, 1]; a type without a conversion, or an in-place
 *    narrowing, is an error with a message. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cuda_runtime_api.h>
#include <curand.h>

#include "convert_kernels.h"
#include "inputs.h"
#include "status.h"
#include "sortcases.h"
#include "testlib_gpu.h"
#include "types.h"

#define ANY_NAN 0xffffffffu

typedef struct {
    float in;
    unsigned bits; /* expected encoding; ANY_NAN: a NaN of the type (CUDA writes its canonical one) */
    double value;  /* what the encoding means */
} convert_case;

/* Rounds `n` floats to `type` on the GPU: the bits (bytes each) and the values back as float and double. */
static void gpu_round(const char *type, const float *x, long long n, void *bits, float *back32, double *back64,
                      cudaStream_t s)
{
    const types_info *t = types_find(type);
    size_t bytes = (size_t)t->bytes;
    float *dx, *d32;
    double *d64;
    void *dq;
    CK(cudaMalloc((void **)&dx, (size_t)n * 4));
    CK(cudaMalloc(&dq, (size_t)n * bytes));
    CK(cudaMalloc((void **)&d32, (size_t)n * 4));
    CK(cudaMalloc((void **)&d64, (size_t)n * 8));
    CK(cudaMemcpyAsync(dx, x, (size_t)n * 4, cudaMemcpyHostToDevice, s));
    CK((cudaError_t)convert_from_f32(type, dx, dq, n, s));
    CK((cudaError_t)convert_to_f32(type, dq, d32, n, s));
    CK((cudaError_t)convert_to_f64(type, dq, d64, n, s));
    CK(cudaMemcpyAsync(bits, dq, (size_t)n * bytes, cudaMemcpyDeviceToHost, s));
    CK(cudaMemcpyAsync(back32, d32, (size_t)n * 4, cudaMemcpyDeviceToHost, s));
    CK(cudaMemcpyAsync(back64, d64, (size_t)n * 8, cudaMemcpyDeviceToHost, s));
    CK(cudaStreamSynchronize(s));
    CK(cudaFree(dx));
    CK(cudaFree(dq));
    CK(cudaFree(d32));
    CK(cudaFree(d64));
}

static unsigned bits_at(const void *bits, size_t bytes, int i)
{
    const unsigned char *p = (const unsigned char *)bits + (size_t)i * bytes;
    return bytes == 1 ? p[0] : bytes == 2 ? (unsigned)(p[0] | p[1] << 8) : 0u;
}

static int same_value(double a, double b) { return (isnan(a) && isnan(b)) || a == b; }

static void check_known(const char *type, const convert_case *c, int n, cudaStream_t s)
{
    const types_info *t = types_find(type);
    float x[32], back32[32];
    double back64[32];
    unsigned char bits[64];
    for (int i = 0; i < n; i++) x[i] = c[i].in;
    gpu_round(type, x, n, bits, back32, back64, s);
    for (int i = 0; i < n; i++) {
        unsigned got = bits_at(bits, (size_t)t->bytes, i);
        if (c[i].bits == ANY_NAN)
            CHECK(isnan(back64[i]), "%s(NaN): bits 0x%x are not a NaN", type, got);
        else
            CHECK(got == c[i].bits, "%s(%.9g): bits 0x%x, expected 0x%x", type, (double)c[i].in, got, c[i].bits);
        CHECK(same_value(back64[i], c[i].value), "%s(%.9g) as double: %.17g, expected %.17g", type, (double)c[i].in,
              back64[i], c[i].value);
        CHECK(same_value((double)back32[i], c[i].value), "%s(%.9g) as float: %.9g, expected %.17g", type,
              (double)c[i].in, (double)back32[i], c[i].value);
        CHECK(same_value(types_round(t, (double)c[i].in), c[i].value), "types_round(%s, %.9g) = %.17g, expected %.17g",
              type, (double)c[i].in, types_round(t, (double)c[i].in), c[i].value);
    }
}

static void test_known(cudaStream_t s)
{
    /* binary16: 1 sign, 5 exponent (bias 15), 10 fraction bits */
    static const convert_case fp16[] = {
        {1.0f, 0x3C00, 1.0},
        {-2.5f, 0xC100, -2.5},
        {0.1f, 0x2E66, 0.0999755859375},         /* 0.1 rounds down to 1638 / 16384 */
        {1.0f + 0x1p-11f, 0x3C00, 1.0},          /* a tie: to the even 1.0 */
        {1.0f + 0x3p-11f, 0x3C02, 1.0 + 0x1p-9}, /* a tie: to the even 1 + 2/1024 */
        {65504.0f, 0x7BFF, 65504.0},             /* the largest finite */
        {65520.0f, 0x7C00, INFINITY},            /* half an ulp above it: overflow */
        {0x1p-24f, 0x0001, 0x1p-24},             /* the smallest subnormal */
        {0x1p-25f, 0x0000, 0.0},                 /* a tie with 0: to the even 0 */
        {0x3p-25f, 0x0002, 0x1p-23},             /* a tie: to the even 2 * 2^-24 */
        {NAN, ANY_NAN, NAN},
    };
    /* bfloat16: binary32's top 16 bits */
    static const convert_case bf16[] = {
        {1.0f, 0x3F80, 1.0},
        {1.0f + 0x1p-8f, 0x3F80, 1.0},          /* a tie: to the even 1.0 */
        {1.0f + 0x3p-8f, 0x3F82, 1.0 + 0x1p-6}, /* a tie: up to the even one */
        {-0.1f, 0xBDCD, -0.10009765625},        /* 0x3DCCCCCD: the low half 0xCCCD > 0x8000 rounds up */
        {3.14159274f, 0x4049, 3.140625},
        {0x1.ff8p127f, 0x7F80, INFINITY},       /* above the largest bf16 (0x1.fep127) by half an ulp: inf */
    };
    /* E4M3: bias 7, no inf, S.1111.111 is NaN, largest 448 */
    static const convert_case e4m3[] = {
        {1.0f, 0x38, 1.0},
        {-2.0f, 0xC0, -2.0},
        {1.0625f, 0x38, 1.0},  /* a tie between 1 and 1.125: to the even 1 */
        {1.1875f, 0x3A, 1.25}, /* a tie between 1.125 and 1.25: to the even 1.25 */
        {448.0f, 0x7E, 448.0},
        {464.0f, 0x7E, 448.0}, /* a tie between 448 and 480 (not a value): to 448 */
        {1000.0f, 0x7E, 448.0},  /* saturates */
        {-1000.0f, 0xFE, -448.0},
        {0x1p-9f, 0x01, 0x1p-9}, /* the smallest subnormal */
        {0.0f, 0x00, 0.0},
        {NAN, ANY_NAN, NAN},
    };
    /* E5M2: bias 15, IEEE-like, largest 57344 */
    static const convert_case e5m2[] = {
        {1.0f, 0x3C, 1.0},
        {-0.5f, 0xB8, -0.5},
        {1.125f, 0x3C, 1.0},  /* a tie between 1 and 1.25: to the even 1 */
        {1.375f, 0x3E, 1.5},  /* a tie between 1.25 and 1.5: to the even 1.5 */
        {57344.0f, 0x7B, 57344.0},
        {1.0e6f, 0x7B, 57344.0}, /* saturates */
        {0x1p-16f, 0x01, 0x1p-16}, /* the smallest subnormal */
    };
    check_known("fp16", fp16, (int)(sizeof fp16 / sizeof fp16[0]), s);
    check_known("bf16", bf16, (int)(sizeof bf16 / sizeof bf16[0]), s);
    check_known("fp8_e4m3", e4m3, (int)(sizeof e4m3 / sizeof e4m3[0]), s);
    check_known("fp8_e5m2", e5m2, (int)(sizeof e5m2 / sizeof e5m2[0]), s);
}

/* 2^20 floats with random signs, mantissas and exponents in [-30, 20): every
 * type's normal, subnormal, underflow and (fp16, FP8) overflow ranges */
static void test_random(cudaStream_t s)
{
    static const char *const types[] = {"fp32", "fp16", "bf16", "fp8_e4m3", "fp8_e5m2"};
    const long long n = 1 << 20;
    float *x = malloc((size_t)n * 4), *back32 = malloc((size_t)n * 4);
    double *back64 = malloc((size_t)n * 8);
    void *bits = malloc((size_t)n * 4);
    for (long long i = 0; i < n; i++) {
        double m = 1.0 + (double)(rng_next() & 0xffffff) / 16777216.0;
        int e = (int)(rng_next() % 50) - 30;
        x[i] = (float)ldexp(rng_next() & 1 ? -m : m, e);
    }
    for (size_t ti = 0; ti < sizeof types / sizeof types[0]; ti++) {
        const types_info *t = types_find(types[ti]);
        long long bad = 0, first = -1;
        gpu_round(types[ti], x, n, bits, back32, back64, s);
        for (long long i = 0; i < n; i++) {
            double want = types_round(t, (double)x[i]);
            if (!same_value(back64[i], want) || !same_value((double)back32[i], want)) {
                if (first < 0) first = i;
                bad++;
            }
        }
        CHECK(bad == 0, "%s: %lld of %lld random values differ from types_round; first %.9g -> %.17g, expected %.17g",
              types[ti], bad, n, first >= 0 ? (double)x[first] : 0.0, first >= 0 ? back64[first] : 0.0,
              first >= 0 ? types_round(t, (double)x[first]) : 0.0);
    }
    free(x);
    free(back32);
    free(back64);
    free(bits);
}

static void test_refused(cudaStream_t s)
{
    float *d;
    CK(cudaMalloc((void **)&d, 64));
    CHECK(!convert_supports("u32") && !convert_supports("tf32") && !convert_supports(NULL) &&
              convert_supports("bf16") && convert_supports("fp8_e5m2"),
          "convert_supports");
    CHECK(convert_from_f32("u32", d, d, 4, s) == (int)cudaErrorInvalidValue, "u32 is not converted");
    CHECK(convert_to_f64("fp12", d, (double *)d, 4, s) == (int)cudaErrorInvalidValue, "fp12 is not a type");
    CHECK(convert_to_f32("fp16", d, d, -1, s) == (int)cudaErrorInvalidValue, "n < 0");
    CHECK(convert_from_f32("fp16", d, d, 0, s) == (int)cudaSuccess, "n = 0 launches nothing");
    CHECK(cudaGetLastError() == cudaSuccess, "a refused conversion left an error behind");
    CK(cudaFree(d));
}

static void test_inputs(cudaStream_t s)
{
    static const char *const types[] = {"bf16", "fp8_e4m3", "fp16"};
    const size_t n = (1 << 16) + 3;
    curandGenerator_t g;
    float *scratch, *h32 = malloc(n * 4);
    double *back64 = malloc(n * 8);
    void *out;
    CHECK(curandCreateGenerator(&g, CURAND_RNG_PSEUDO_PHILOX4_32_10) == CURAND_STATUS_SUCCESS, "curandCreateGenerator");
    CHECK(curandSetStream(g, s) == CURAND_STATUS_SUCCESS, "curandSetStream");
    CK(cudaMalloc((void **)&scratch, n * 4));
    CK(cudaMalloc(&out, n * 2));
    for (size_t ti = 0; ti < sizeof types / sizeof types[0]; ti++) {
        const types_info *t = types_find(types[ti]);
        size_t bad = 0, outside = 0;
        double *d64;
        CHECK(inputs_reset(g, 2026) == 0 && inputs_uniform_pm1_as(g, types[ti], out, scratch, n, s) == 0, "%s: %s",
              types[ti], status_message());
        CK(cudaMalloc((void **)&d64, n * 8));
        CK((cudaError_t)convert_to_f64(types[ti], out, d64, (long long)n, s));
        CK(cudaMemcpyAsync(h32, scratch, n * 4, cudaMemcpyDeviceToHost, s));
        CK(cudaMemcpyAsync(back64, d64, n * 8, cudaMemcpyDeviceToHost, s));
        CK(cudaStreamSynchronize(s));
        CK(cudaFree(d64));
        for (size_t i = 0; i < n; i++) {
            bad += !same_value(back64[i], types_round(t, (double)h32[i]));
            outside += !(back64[i] >= -1.0 && back64[i] <= 1.0);
        }
        CHECK(bad == 0 && outside == 0, "%s inputs: %zu of %zu differ from types_round, %zu outside [-1, 1]", types[ti],
              bad, n, outside);
    }
    status_clear();
    CHECK(inputs_uniform_pm1_as(g, "u32", out, scratch, n, s) == STATUS_ERROR && strstr(status_message(), "'u32'"),
          "u32 inputs: [%s]", status_message());
    status_clear();
    CHECK(inputs_uniform_pm1_as(g, "bf16", scratch, scratch, n, s) == STATUS_ERROR &&
              strstr(status_message(), "in-place"),
          "in-place bf16: [%s]", status_message());
    CHECK(inputs_uniform_pm1_as(g, "fp32", scratch, scratch, n, s) == 0, "fp32 in place: %s", status_message());
    CK(cudaStreamSynchronize(s));
    CK(cudaFree(scratch));
    CK(cudaFree(out));
    curandDestroyGenerator(g);
    free(h32);
    free(back64);
}

int main(void)
{
    cudaStream_t s;
    test_require_gpu();
    CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    test_known(s);
    test_random(s);
    test_refused(s);
    test_inputs(s);
    CK(cudaStreamDestroy(s));
    return test_finish("test_gpu_convert");
}
