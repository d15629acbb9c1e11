/* tests/test_gpu_norm_kernels.c: the ten hand norm launchers (kernels/norms.h:
 * rmsnorm_* and layernorm_*, naive / warp / block / fused / cluster) called
 * directly against a CPU double-precision reference, on shapes that walk every
 * dispatch branch: 1x1, 333x1001 (odd cols: the scalar path), 64x4096 (also
 * with x and y one element off 16-byte alignment: the scalar path at an even
 * cols), 4x32768, 8x65536 and 3x200000 (long rows: the block form, the
 * cluster form from 64 KiB rows, 13 CTAs for fp32), in fp32, fp16 and bf16.
 *
 * Inputs: x = row offset (0, 2 or 4: LayerNorm's mean far from 0, where
 * E[x^2] - E[x]^2 would cancel) + a uniform deviate in [-1, 1), rounded on
 * the host to the element type, so that the reference sees exactly the
 * values the kernel reads; weight in [0.5, 1.5), bias in [-0.5, 0.5) (FP32).
 * y is poisoned with NaN before each run (an unwritten element fails) and is
 * followed by a guard zone that must stay untouched (a partial vector written
 * past the end fails).
 *
 * Tolerance per element (documented here, asserted below):
 *     |y - ref| <= u * |ref| + 8 * sqrt(cols) * 2^-24 * (|ref| + rstd * |w| * |mean| + 1) + 2^-24
 * u the element type's unit roundoff (2^-24 fp32, 2^-11 fp16, 2^-8 bf16):
 * the output's one rounding. The middle term is FP32 arithmetic: the sums
 * behind mean and rstd carry a relative error growing like sqrt(cols) * 2^-24
 * (random-walk rounding over a row; the trees and chunked Welford merges are
 * shorter than that), and for LayerNorm the error of the mean is scaled by
 * rstd * |w| into y, hence the |mean| term. The last term covers fp16's
 * subnormal outputs. A wrong formula, a missed element of a row's statistics
 * at small cols, or a wrong weight index is far outside it.
 *
 * The cluster rungs may return cudaErrorNotSupported only where the policy
 * is not sm_90 (kernels/common/policy.h) or the device is not cc 9.0; on the
 * H200 in the default mode they must run, and there the fused pick of an
 * aligned row of 64 KiB or more must be the cluster form. Bad arguments (rows 0, an
 * fp8 type, a NULL bias for LayerNorm) must be cudaErrorInvalidValue. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cuda_runtime_api.h>

#include "kernel_ran.h"
#include "norms.h"
#include "policy.h"
#include "testlib_gpu.h"

#define GUARD_BYTES 256
#define GUARD_BYTE 0x5a

typedef struct {
    const char *name;
    rowwise_launcher fn;
    int layer; /* 1: layernorm */
    int cluster;
} launcher_row;

static const launcher_row LAUNCHERS[] = {
    {"rmsnorm_naive", rmsnorm_naive, 0, 0},     {"rmsnorm_warp", rmsnorm_warp, 0, 0},
    {"rmsnorm_block", rmsnorm_block, 0, 0},     {"rmsnorm_fused", rmsnorm_fused, 0, 0},
    {"rmsnorm_cluster", rmsnorm_cluster, 0, 1}, {"layernorm_naive", layernorm_naive, 1, 0},
    {"layernorm_warp", layernorm_warp, 1, 0},   {"layernorm_block", layernorm_block, 1, 0},
    {"layernorm_fused", layernorm_fused, 1, 0}, {"layernorm_cluster", layernorm_cluster, 1, 1},
};
#define NLAUNCHERS ((int)(sizeof LAUNCHERS / sizeof LAUNCHERS[0]))

typedef struct {
    long long rows, cols;
    int offset; /* elements x and y start past a 16-byte boundary */
} shape;

static const shape SHAPES[] = {{1, 1, 0}, {333, 1001, 0}, {64, 4096, 0}, {64, 4096, 1}, {4, 32768, 0}, {8, 65536, 0}, {3, 200000, 0}};

static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;
static double rng_uniform(void) /* [0, 1) */
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (double)(rng_state >> 11) * (1.0 / 9007199254740992.0);
}

// ---- element types on the host ------------------------------------------------

/* f rounded to nearest even at `bits` significant bits (normal range; tiny
 * values flushed to 0 so that fp16 inputs stay normal) */
static float round_to_bits(float f, int bits)
{
    if (fabsf(f) < 0x1p-10f)
        return 0.0f;
    int e;
    const float m = frexpf(f, &e);
    return ldexpf(rintf(ldexpf(m, bits)), e - bits);
}

static float round_to_type(float f, elem_type t)
{
    return t == ELEM_FP32 ? f : round_to_bits(f, t == ELEM_FP16 ? 11 : 8);
}

/* the bits of f, which must be exactly representable (round_to_type) */
static void store_elem(void *base, long long i, float f, elem_type t)
{
    uint32_t b;
    memcpy(&b, &f, 4);
    if (t == ELEM_FP32) {
        ((uint32_t *)base)[i] = b;
    } else if (t == ELEM_BF16) {
        ((uint16_t *)base)[i] = (uint16_t)(b >> 16);
    } else {
        uint16_t h = f < 0 ? 0x8000 : 0;
        if (f != 0.0f) {
            int e;
            const float m = frexpf(fabsf(f), &e); /* |f| = 2m * 2^(e-1), 2m in [1, 2) */
            h |= (uint16_t)((e - 1 + 15) << 10) | (uint16_t)lrintf((2.0f * m - 1.0f) * 1024.0f);
        }
        ((uint16_t *)base)[i] = h;
    }
}

static double load_elem(const void *base, long long i, elem_type t)
{
    if (t == ELEM_FP32) {
        float f;
        memcpy(&f, (const char *)base + 4 * i, 4);
        return f;
    }
    const uint16_t h = ((const uint16_t *)base)[i];
    if (t == ELEM_BF16) {
        const uint32_t b = (uint32_t)h << 16;
        float f;
        memcpy(&f, &b, 4);
        return f;
    }
    const int s = h >> 15, e = (h >> 10) & 31, m = h & 1023;
    double v;
    if (e == 31)
        v = m ? NAN : INFINITY;
    else
        v = e ? ldexp(1024 + m, e - 25) : ldexp(m, -24);
    return s ? -v : v;
}

static double unit_roundoff(elem_type t)
{
    return t == ELEM_FP32 ? 0x1p-24 : (t == ELEM_FP16 ? 0x1p-11 : 0x1p-8);
}

static const char *type_name(elem_type t)
{
    return t == ELEM_FP32 ? "fp32" : (t == ELEM_FP16 ? "fp16" : "bf16");
}

// ---- one shape and type ---------------------------------------------------------

/* Compares y (rows x cols of t) with the double reference of one norm;
 * returns the number of elements out of tolerance and reports the first. */
static long long check_output(const launcher_row *L, const shape *sh, elem_type t, const double *xd,
                              const float *w, const float *b, float eps, const void *y)
{
    const long long rows = sh->rows, cols = sh->cols;
    const double u = unit_roundoff(t), arith = 8.0 * sqrt((double)cols) * 0x1p-24;
    long long bad = 0;
    for (long long r = 0; r < rows; r++) {
        const double *xr = xd + r * cols;
        double mean = 0.0, var = 0.0;
        if (L->layer) {
            for (long long c = 0; c < cols; c++)
                mean += xr[c];
            mean /= (double)cols;
            for (long long c = 0; c < cols; c++)
                var += (xr[c] - mean) * (xr[c] - mean);
        } else {
            for (long long c = 0; c < cols; c++)
                var += xr[c] * xr[c];
        }
        const double rstd = 1.0 / sqrt(var / (double)cols + (double)eps);
        for (long long c = 0; c < cols; c++) {
            const double ref = (xr[c] - mean) * rstd * w[c] + (L->layer ? b[c] : 0.0);
            const double got = load_elem(y, r * cols + c, t);
            const double tol = u * fabs(ref) + arith * (fabs(ref) + rstd * fabs(w[c]) * fabs(mean) + 1.0) + 0x1p-24;
            if (!(fabs(got - ref) <= tol)) {
                if (bad == 0)
                    fprintf(stderr, "  %s %s %lldx%lld%s: y[%lld][%lld] = %.9g, reference %.9g, tolerance %.3g\n",
                            L->name, type_name(t), rows, cols, sh->offset ? " (offset)" : "", r, c, got, ref, tol);
                bad++;
            }
        }
    }
    return bad;
}

static void run_case(const shape *sh, elem_type t, cudaStream_t s, int clusters_must_run)
{
    const long long rows = sh->rows, cols = sh->cols, n = rows * cols;
    const int bytes = elem_type_bytes(t);
    const size_t data_bytes = (size_t)(n + sh->offset) * bytes;
    const size_t y_alloc = data_bytes + GUARD_BYTES;
    void *hx = calloc(1, data_bytes), *hy = malloc(y_alloc);
    double *xd = malloc((size_t)n * sizeof *xd);
    float *hw = malloc((size_t)cols * sizeof *hw), *hb = malloc((size_t)cols * sizeof *hb);
    const float eps = 1e-5f;
    CHECK(hx && hy && xd && hw && hb, "host allocation");
    if (!(hx && hy && xd && hw && hb))
        exit(1);
    for (long long r = 0; r < rows; r++) {
        const float offset = (float)(2 * (r % 3));
        for (long long c = 0; c < cols; c++) {
            const float v = round_to_type(offset + (float)(2.0 * rng_uniform() - 1.0), t);
            store_elem(hx, sh->offset + r * cols + c, v, t);
            xd[r * cols + c] = v;
        }
    }
    for (long long c = 0; c < cols; c++) {
        hw[c] = (float)(0.5 + rng_uniform());
        hb[c] = (float)(rng_uniform() - 0.5);
    }
    char *dx, *dy;
    float *dw, *db;
    CK(cudaMalloc((void **)&dx, data_bytes));
    CK(cudaMalloc((void **)&dy, y_alloc));
    CK(cudaMalloc((void **)&dw, (size_t)cols * 4));
    CK(cudaMalloc((void **)&db, (size_t)cols * 4));
    CK(cudaMemcpyAsync(dx, hx, data_bytes, cudaMemcpyHostToDevice, s));
    CK(cudaMemcpyAsync(dw, hw, (size_t)cols * 4, cudaMemcpyHostToDevice, s));
    CK(cudaMemcpyAsync(db, hb, (size_t)cols * 4, cudaMemcpyHostToDevice, s));

    for (int li = 0; li < NLAUNCHERS; li++) {
        const launcher_row *L = &LAUNCHERS[li];
        rowwise_args a;
        memset(&a, 0, sizeof a);
        a.x = dx + (size_t)sh->offset * bytes;
        a.y = dy + (size_t)sh->offset * bytes;
        a.weight = dw;
        a.bias = L->layer ? db : NULL;
        a.rows = rows;
        a.cols = cols;
        a.type = t;
        a.eps = eps;
        CK(cudaMemsetAsync(dy, 0xff, data_bytes, s)); /* NaN in every type */
        CK(cudaMemsetAsync(dy + data_bytes, GUARD_BYTE, GUARD_BYTES, s));
        kernel_ran_clear();
        const int rc = L->fn(&a, s);
        if (L->cluster && rc == (int)cudaErrorNotSupported) {
            CHECK(!clusters_must_run, "%s %s %lldx%lld: cudaErrorNotSupported on a device under the sm_90 policy",
                  L->name, type_name(t), rows, cols);
            continue;
        }
        CHECK(rc == 0, "%s %s %lldx%lld: launch error %d (%s)", L->name, type_name(t), rows, cols, rc,
              cudaGetErrorString((cudaError_t)rc));
        if (rc != 0)
            continue;
        CK(cudaMemcpyAsync(hy, dy, y_alloc, cudaMemcpyDeviceToHost, s));
        CK(cudaStreamSynchronize(s));
        const char *kname = kernel_ran_name(), *why = kernel_ran_reason();
        printf("  %-18s %s %6lldx%-6lld%s ran %s%s%s\n", L->name, type_name(t), rows, cols, sh->offset ? " (+1)" : "    ",
               kname ? kname : "?", why ? ": " : "", why ? why : "");
        const long long bad = check_output(L, sh, t, xd, hw, hb, eps, (const char *)hy + (size_t)sh->offset * bytes);
        CHECK(bad == 0, "%s %s %lldx%lld%s: %lld of %lld elements out of tolerance", L->name, type_name(t), rows, cols,
              sh->offset ? " (offset)" : "", bad, n);
        long long guard_bad = 0;
        for (size_t i = 0; i < GUARD_BYTES; i++)
            guard_bad += ((const unsigned char *)hy)[data_bytes + i] != GUARD_BYTE;
        CHECK(guard_bad == 0, "%s %s %lldx%lld: %lld guard bytes after y overwritten", L->name, type_name(t), rows,
              cols, guard_bad);
        /* the fused pick of an aligned long row on sm_90 is the cluster form, never the block rung */
        if (clusters_must_run && !sh->offset && !strcmp(L->name + strlen(L->name) - 5, "fused") &&
            cols * bytes >= 64 * 1024)
            CHECK(kname && strstr(kname, "cluster"), "%s %s %lldx%lld ran %s, not the cluster form", L->name,
                  type_name(t), rows, cols, kname ? kname : "?");
    }
    CK(cudaFree(dx));
    CK(cudaFree(dy));
    CK(cudaFree(dw));
    CK(cudaFree(db));
    free(hx);
    free(hy);
    free(xd);
    free(hw);
    free(hb);
}

/* rows 0, cols 0, an fp8 type, NULL pointers: cudaErrorInvalidValue, nothing launched */
static void test_bad_args(cudaStream_t s)
{
    float *d;
    CK(cudaMalloc((void **)&d, 64));
    for (int li = 0; li < NLAUNCHERS; li++) {
        const launcher_row *L = &LAUNCHERS[li];
        rowwise_args good;
        memset(&good, 0, sizeof good);
        good.x = d;
        good.y = d + 4;
        good.weight = d + 8;
        good.bias = L->layer ? d + 12 : NULL;
        good.rows = 1;
        good.cols = 4;
        good.type = ELEM_FP32;
        good.eps = 1e-5f;
        rowwise_args a = good;
        a.rows = 0;
        CHECK(L->fn(&a, s) == (int)cudaErrorInvalidValue, "%s: rows 0 accepted", L->name);
        a = good;
        a.cols = 0;
        CHECK(L->fn(&a, s) == (int)cudaErrorInvalidValue, "%s: cols 0 accepted", L->name);
        a = good;
        a.type = ELEM_FP8_E4M3;
        CHECK(L->fn(&a, s) == (int)cudaErrorInvalidValue, "%s: fp8 accepted", L->name);
        a = good;
        a.weight = NULL;
        CHECK(L->fn(&a, s) == (int)cudaErrorInvalidValue, "%s: NULL weight accepted", L->name);
        if (L->layer) {
            a = good;
            a.bias = NULL;
            CHECK(L->fn(&a, s) == (int)cudaErrorInvalidValue, "%s: NULL bias accepted", L->name);
        }
    }
    CK(cudaStreamSynchronize(s));
    CK(cudaFree(d));
}

int main(void)
{
    test_require_gpu();
    cudaStream_t s;
    CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    /* the cluster rungs run where the sm_90a rows do: cc 9.0 under the sm_90 policy */
    const int clusters_must_run = test_sm90a_runs();
    printf("cluster rungs %s here (policy %s)\n", clusters_must_run ? "must run" : "may decline",
           policy_arch_name(policy_arch_current()));
    static const elem_type types[] = {ELEM_FP32, ELEM_FP16, ELEM_BF16};
    for (size_t si = 0; si < sizeof SHAPES / sizeof SHAPES[0]; si++)
        for (int ti = 0; ti < 3; ti++)
            run_case(&SHAPES[si], types[ti], s, clusters_must_run);
    test_bad_args(s);
    CK(cudaStreamDestroy(s));
    return test_finish("test_gpu_norm_kernels");
}
