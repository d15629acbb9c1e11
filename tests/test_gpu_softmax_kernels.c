/* tests/test_gpu_softmax_kernels.c: the hand softmax launchers (kernels/softmax.h)
 * called directly, against a CPU double reference, before any op file wires
 * them in:
 *  - every launcher, fp32 / fp16 / bf16, on shapes that reach each form of
 *    softmax_fused and softmax_cluster (warp, block, cluster, streamed
 *    cluster, the two-pass fallback) and the ladder's odd sizes: 1 x 1,
 *    333 x 1001, 64 x 4096, 8 x 65536, 3 x 200000 and a few more;
 *    inputs k / 16 for k in [-80, 80] (exact in every type, so all types see
 *    the same values and one reference serves them);
 *  - the output poisoned (NaN) before each run, so an unwritten element fails;
 *  - the scalar path: x and y one element past an aligned base;
 *  - `wide` inputs (integers in [-100, 100]): naive must be wrong (exp
 *    overflows FP32), every other launcher right;
 *  - bad arguments (rows 0, an fp8 type) are cudaErrorInvalidValue;
 *  - softmax_cluster declines (cudaErrorNotSupported) where it cannot run
 *    (softmax_cluster_available: a policy before sm_90, kernels/common/
 *    policy.h, or a build whose kernels are compute_80 PTX only), and is
 *    checked where it runs; the line "policy ...: softmax_cluster runs"
 *    says which (on an H200 with the default build it must run).
 * The tolerance per element: |y - ref| <= (u + 2^-24 (48 + 4 sqrt(cols))) ref
 * + a floor, u the output type's unit roundoff (2^-24, 2^-11, 2^-8), the
 * 2^-24 term the FP32 arithmetic (the argument x - max, exp, a per-thread
 * sum of up to cols / 256 terms), the floor half of fp16's subnormal
 * spacing. A missed rescale or a wrong maximum is wrong by far more.
 * Each line names the kernel that ran (kernel_ran_name). COMPARE_TEST_QUICK=1
 * keeps the shapes of at most 2^20 elements (for compute-sanitizer runs). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cuda_runtime_api.h>

#include "kernel_ran.h"
#include "policy.h"
#include "softmax.h"
#include "testlib_gpu.h"

/* kernels/softmax_cluster.cu's own test of whether the cluster form runs
 * here (declared in kernels/softmax_common.cuh, a CUDA header) */
int softmax_cluster_available(void);

typedef struct {
    const char *name;
    rowwise_launcher fn;
} softmax_row;

static const softmax_row rows_under_test[] = {
    {"naive", softmax_naive},   {"safe", softmax_safe},       {"online", softmax_online},
    {"fused", softmax_fused},   {"cluster", softmax_cluster},
};
#define NROWS ((int)(sizeof rows_under_test / sizeof rows_under_test[0]))

static const elem_type types[] = {ELEM_FP32, ELEM_FP16, ELEM_BF16};
static const char *const type_names[] = {"fp32", "fp16", "bf16"};

static uint64_t softmax_rng_state = 0x9e3779b97f4a7c15ull;
static uint32_t softmax_rng(void)
{
    softmax_rng_state ^= softmax_rng_state << 13;
    softmax_rng_state ^= softmax_rng_state >> 7;
    softmax_rng_state ^= softmax_rng_state << 17;
    return (uint32_t)(softmax_rng_state >> 11);
}

// ---- element conversions (host) --------------------------------------------

static float bits_to_float(uint32_t b)
{
    float f;
    memcpy(&f, &b, 4);
    return f;
}

static uint32_t float_to_bits(float f)
{
    uint32_t b;
    memcpy(&b, &f, 4);
    return b;
}

static float half_to_float(uint16_t h)
{
    const uint32_t sign = (uint32_t)(h >> 15) << 31;
    const int e = (h >> 10) & 31;
    const uint32_t m = h & 1023u;
    if (e == 31)
        return bits_to_float(sign | 0x7f800000u | (m << 13));
    if (e == 0) {
        const float v = ldexpf((float)m, -24);
        return sign ? -v : v;
    }
    return bits_to_float(sign | ((uint32_t)(e - 15 + 127) << 23) | (m << 13));
}

/* v is exact in fp16 and bf16 (the inputs here): no rounding needed */
static uint16_t float_to_half_exact(float v)
{
    const uint32_t b = float_to_bits(v);
    const uint16_t sign = (uint16_t)((b >> 16) & 0x8000u);
    if ((b & 0x7fffffffu) == 0)
        return sign;
    const int e = (int)((b >> 23) & 255) - 127 + 15;
    if (e <= 0 || e >= 31 || (b & 0x1fffu) != 0) {
        fprintf(stderr, "input %g is not a normal fp16 value\n", (double)v);
        exit(1);
    }
    return (uint16_t)(sign | (uint16_t)(e << 10) | (uint16_t)((b >> 13) & 1023u));
}

static size_t type_bytes(elem_type t)
{
    return (size_t)elem_type_bytes(t);
}

static void to_type(const float *in, size_t n, elem_type t, void *out)
{
    for (size_t i = 0; i < n; i++) {
        if (t == ELEM_FP32)
            ((float *)out)[i] = in[i];
        else if (t == ELEM_FP16)
            ((uint16_t *)out)[i] = float_to_half_exact(in[i]);
        else
            ((uint16_t *)out)[i] = (uint16_t)(float_to_bits(in[i]) >> 16);
    }
}

static double from_type(const void *buf, size_t i, elem_type t)
{
    if (t == ELEM_FP32)
        return ((const float *)buf)[i];
    if (t == ELEM_FP16)
        return half_to_float(((const uint16_t *)buf)[i]);
    return bits_to_float((uint32_t)((const uint16_t *)buf)[i] << 16);
}

// ---- reference and check -----------------------------------------------------------

static void reference(const float *x, long long rows, long long cols, double *ref)
{
    for (long long r = 0; r < rows; r++) {
        const float *xr = x + r * cols;
        double m = -INFINITY, d = 0.0;
        for (long long c = 0; c < cols; c++)
            m = xr[c] > m ? xr[c] : m;
        for (long long c = 0; c < cols; c++)
            d += exp((double)xr[c] - m);
        for (long long c = 0; c < cols; c++)
            ref[r * cols + c] = exp((double)xr[c] - m) / d;
    }
}

/* 1 when every element is within the tolerance; *worst the largest
 * |y - ref| / (tol_rel * ref + floor) (non-finite: inf) */
static int check_output(const void *y, elem_type t, const double *ref, long long rows, long long cols,
                        double *worst, long long *worst_at)
{
    const double u = t == ELEM_FP32 ? ldexp(1.0, -24) : t == ELEM_FP16 ? ldexp(1.0, -11) : ldexp(1.0, -8);
    const double rel = u + ldexp(1.0, -24) * (48.0 + 4.0 * sqrt((double)cols));
    const double floor_abs = t == ELEM_FP16 ? ldexp(1.0, -25) : 1e-37;
    const long long n = rows * cols;
    *worst = 0.0;
    *worst_at = -1;
    for (long long i = 0; i < n; i++) {
        const double v = from_type(y, (size_t)i, t);
        const double q = isfinite(v) ? fabs(v - ref[i]) / (rel * ref[i] + floor_abs) : INFINITY;
        if (!(q <= *worst)) {
            *worst = q;
            *worst_at = i;
        }
    }
    return *worst <= 1.0;
}

// ---- one case ------------------------------------------------------------------------

typedef struct {
    cudaStream_t s;
    void *dx, *dy;     /* device buffers, big enough for every case (+16 bytes for the offset) */
    void *hx, *hy;     /* host buffers of the same size */
    int cluster_runs;  /* softmax_cluster_available(): softmax_cluster runs */
} softmax_ctx;

/* Runs row `v` on (x, rows, cols) of type t, at an element offset off from
 * the buffers' aligned bases; returns 1 when the output is right. */
static int run_case(softmax_ctx *c, int v, const float *x, const double *ref, long long rows, long long cols,
                    int ti, int off, int expect_ok)
{
    const elem_type t = types[ti];
    const size_t n = (size_t)(rows * cols), b = type_bytes(t);
    char *dx = (char *)c->dx + off * b, *dy = (char *)c->dy + off * b;
    to_type(x, n, t, c->hx);
    CK(cudaMemcpyAsync(dx, c->hx, n * b, cudaMemcpyHostToDevice, c->s));
    CK(cudaMemsetAsync(dy, 0xff, n * b, c->s)); /* NaN in every type */
    rowwise_args a;
    memset(&a, 0, sizeof a);
    a.x = dx;
    a.y = dy;
    a.rows = rows;
    a.cols = cols;
    a.type = t;
    kernel_ran_clear();
    const int rc = rows_under_test[v].fn(&a, c->s);
    const char *kernel = kernel_ran_name() ? kernel_ran_name() : "?";
    if (v == NROWS - 1 && !c->cluster_runs) {
        CHECK(rc == (int)cudaErrorNotSupported, "cluster off sm_90: rc %d, want cudaErrorNotSupported", rc);
        return 1;
    }
    CHECK(rc == 0, "%s %lldx%lld %s: launch error %d (%s)", rows_under_test[v].name, rows, cols, type_names[ti], rc,
          cudaGetErrorString((cudaError_t)rc));
    if (rc != 0)
        return 0;
    CK(cudaMemcpyAsync(c->hy, dy, n * b, cudaMemcpyDeviceToHost, c->s));
    CK(cudaStreamSynchronize(c->s));
    double worst;
    long long at;
    const int ok = check_output(c->hy, t, ref, rows, cols, &worst, &at);
    printf("  %-7s %6lld x %-6lld %s off %d: %-30s worst %.3g of tolerance%s\n", rows_under_test[v].name, rows, cols,
           type_names[ti], off, kernel, worst, ok == expect_ok ? "" : "  <-- unexpected");
    if (expect_ok)
        CHECK(ok, "%s %lldx%lld %s off %d (%s): element %lld is %g, reference %g (%.3g x tolerance)",
              rows_under_test[v].name, rows, cols, type_names[ti], off, kernel, at,
              from_type(c->hy, (size_t)at, t), ref[at], worst);
    else
        CHECK(!ok, "%s %lldx%lld %s (%s): right on wide inputs, where exp(x) overflows FP32",
              rows_under_test[v].name, rows, cols, type_names[ti], kernel);
    return ok;
}

static void fill(float *x, size_t n, int wide)
{
    for (size_t i = 0; i < n; i++)
        x[i] = wide ? (float)((int)(softmax_rng() % 201) - 100) : (float)((int)(softmax_rng() % 161) - 80) / 16.0f;
}

int main(void)
{
    test_require_gpu();
    static const long long shapes[][2] = {
        {1, 1},     {333, 1001}, {64, 4096}, {8, 65536}, {3, 200000}, {4097, 7},  {5, 33},
        {70, 1536}, {2, 300000}, {300, 20000}, {16, 40000}, {200, 16384},
    };
    const int nshapes = (int)(sizeof shapes / sizeof shapes[0]);
    const char *quick_env = getenv("COMPARE_TEST_QUICK");
    const int quick = quick_env && strcmp(quick_env, "1") == 0;
    size_t maxn = 0;
    for (int i = 0; i < nshapes; i++)
        if ((size_t)(shapes[i][0] * shapes[i][1]) > maxn)
            maxn = (size_t)(shapes[i][0] * shapes[i][1]);
    softmax_ctx c;
    const size_t bytes = maxn * 4 + 64;
    float *x = malloc(maxn * sizeof *x);
    double *ref = malloc(maxn * sizeof *ref);
    c.hx = malloc(bytes);
    c.hy = malloc(bytes);
    if (!x || !ref || !c.hx || !c.hy) {
        fprintf(stderr, "out of host memory\n");
        return 1;
    }
    CK(cudaStreamCreateWithFlags(&c.s, cudaStreamNonBlocking));
    CK(cudaMalloc(&c.dx, bytes));
    CK(cudaMalloc(&c.dy, bytes));
    const policy_arch arch = policy_arch_current();
    c.cluster_runs = softmax_cluster_available();
    printf("policy %s: softmax_cluster %s\n", policy_arch_name(arch), c.cluster_runs ? "runs" : "declines");

    /* every launcher, every type, every shape; the scalar path at an offset */
    for (int i = 0; i < nshapes; i++) {
        const long long rows = shapes[i][0], cols = shapes[i][1];
        if (quick && rows * cols > (1 << 20))
            continue;
        fill(x, (size_t)(rows * cols), 0);
        reference(x, rows, cols, ref);
        for (int ti = 0; ti < 3; ti++)
            for (int v = 0; v < NROWS; v++) {
                run_case(&c, v, x, ref, rows, cols, ti, 0, 1);
                if (cols % 8 == 0 && rows * cols <= (1 << 20))
                    run_case(&c, v, x, ref, rows, cols, ti, 1, 1);
            }
    }

    /* wide inputs: naive overflows, the others hold */
    {
        const long long rows = 64, cols = 4096;
        fill(x, (size_t)(rows * cols), 1);
        reference(x, rows, cols, ref);
        for (int ti = 0; ti < 3; ti++)
            for (int v = 0; v < NROWS; v++)
                run_case(&c, v, x, ref, rows, cols, ti, 0, v != 0);
    }

    /* bad arguments: nothing launched */
    for (int v = 0; v < NROWS; v++) {
        rowwise_args a;
        memset(&a, 0, sizeof a);
        a.x = c.dx;
        a.y = c.dy;
        a.rows = 0;
        a.cols = 16;
        a.type = ELEM_FP32;
        CHECK(rows_under_test[v].fn(&a, c.s) == (int)cudaErrorInvalidValue, "%s: rows 0 accepted",
              rows_under_test[v].name);
        a.rows = 4;
        a.type = ELEM_FP8_E4M3;
        CHECK(rows_under_test[v].fn(&a, c.s) == (int)cudaErrorInvalidValue, "%s: fp8 accepted",
              rows_under_test[v].name);
    }
    CK(cudaStreamSynchronize(c.s));
    CK(cudaGetLastError());

    CK(cudaFree(c.dx));
    CK(cudaFree(c.dy));
    CK(cudaStreamDestroy(c.s));
    free(x);
    free(ref);
    free(c.hx);
    free(c.hy);
    return test_finish("test_gpu_softmax_kernels");
}
