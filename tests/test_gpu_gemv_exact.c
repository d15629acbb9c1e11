/* tests/test_gpu_gemv_exact.c (gpu): the gemv hand launchers called
 * directly (kernels/gemv.h), on what the run loop cannot make: inputs in
 * {-1, 0, 1}, whose products and partial sums are exact in FP32 in any order,
 * so that a kernel rounds only once, to the output type: every element must
 * EQUAL the exact integer rounded to the type (types_round), with no
 * tolerance for a dropped, doubled or misplaced term to hide in; A and x at starts 0 and 1 element past an
 * aligned one (the 16-byte path must decline and fall back), at shapes
 * that cover every lane-group width, the two-row groups, an odd last row and
 * split-k with aligned and unaligned rows. The rows come from the op's
 * table (tests/catalog_rows.h: a new hand row is tested once listed), their
 * scratch from the row's workspace hook; bad arguments are refused. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cuda_runtime_api.h>

#include "catalog_rows.h"
#include "elem_type.h"
#include "gemv.h"
#include "testlib_gpu.h"
#include "types.h"

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static int rand_trit(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (int)(rng % 3) - 1;
}

/* the bits of v in {-1, 0, 1} in type t */
static void put(elem_type t, void *p, size_t i, int v)
{
    float f = (float)v;
    uint32_t b;
    memcpy(&b, &f, 4);
    if (t == ELEM_FP32) {
        ((float *)p)[i] = f;
    } else if (t == ELEM_BF16) {
        ((uint16_t *)p)[i] = (uint16_t)(b >> 16); /* exact: +-1 and 0 have no fraction bits */
    } else { /* fp16: sign, exponent rebias 127 -> 15, top 10 fraction bits */
        uint16_t h = 0;
        if (v != 0) h = (uint16_t)(((b >> 16) & 0x8000u) | ((((b >> 23) & 0xffu) - 112u) << 10) | ((b >> 13) & 0x3ffu));
        ((uint16_t *)p)[i] = h;
    }
}

/* the value of element i of type t (fp16: the zeros, normals and NaN these
 * inputs and results make) */
static double get(elem_type t, const void *p, size_t i)
{
    uint32_t b;
    float f;
    if (t == ELEM_FP32) return ((const float *)p)[i];
    if (t == ELEM_BF16) {
        b = (uint32_t)((const uint16_t *)p)[i] << 16;
    } else {
        const uint16_t h = ((const uint16_t *)p)[i];
        const uint32_t e = (h >> 10) & 0x1fu;
        if (e == 0x1f) return NAN; /* the poison */
        b = ((uint32_t)(h & 0x8000u) << 16) | ((h & 0x7fffu) ? ((e + 112u) << 23) | ((uint32_t)(h & 0x3ffu) << 13) : 0);
    }
    memcpy(&f, &b, 4);
    return f;
}

static void check_shape(const variant *v, elem_type t, long long m, long long k, int off, cudaStream_t s)
{
    static const char *const names[] = {"fp32", "fp16", "bf16"};
    const int eb = elem_type_bytes(t);
    const plan_case pc = catalog_case("gemv", m, 0, k, 0, names[t]);
    const size_t sb = catalog_row_workspace(v, &pc);
    int *ha = malloc((size_t)(m * k) * sizeof *ha), *hx = malloc((size_t)k * sizeof *hx);
    char *pa = malloc((size_t)(m * k + 1) * eb), *px = malloc((size_t)(k + 1) * eb), *py = malloc((size_t)m * eb);
    char *da, *dx, *dy;
    void *scratch = NULL;
    const types_info *ti = types_find(names[t]);
    long long wrong = 0, first = -1;
    if (!ha || !hx || !pa || !px || !py) {
        CHECK(0, "out of host memory");
        goto out;
    }
    for (long long i = 0; i < m * k; i++) put(t, pa, (size_t)(i + off), ha[i] = rand_trit());
    for (long long j = 0; j < k; j++) put(t, px, (size_t)(j + off), hx[j] = rand_trit());
    CK(cudaMalloc((void **)&da, (size_t)(m * k + 1) * eb));
    CK(cudaMalloc((void **)&dx, (size_t)(k + 1) * eb));
    CK(cudaMalloc((void **)&dy, (size_t)m * eb));
    if (sb) CK(cudaMalloc(&scratch, sb));
    CK(cudaMemcpyAsync(da, pa, (size_t)(m * k + 1) * eb, cudaMemcpyHostToDevice, s));
    CK(cudaMemcpyAsync(dx, px, (size_t)(k + 1) * eb, cudaMemcpyHostToDevice, s));
    CK(cudaMemsetAsync(dy, 0xff, (size_t)m * eb, s)); /* NaN */
    if (sb) CK(cudaMemsetAsync(scratch, 0, sb, s));
    {
        const gemv_args a = {da + (size_t)off * eb, dx + (size_t)off * eb, dy, m, k, t, scratch, sb};
        CK((cudaError_t)((gemv_launcher)v->fn)(&a, s));
    }
    CK(cudaMemcpyAsync(py, dy, (size_t)m * eb, cudaMemcpyDeviceToHost, s));
    CK(cudaStreamSynchronize(s));
    for (long long i = 0; i < m; i++) {
        long long exact = 0;
        for (long long j = 0; j < k; j++) exact += (long long)ha[i * k + j] * hx[j];
        if (get(t, py, (size_t)i) != types_round(ti, (double)exact)) {
            if (first < 0) first = i;
            wrong++;
        }
    }
    CHECK(wrong == 0, "%s %s %lldx%lld offset %d: %lld rows wrong (first %lld: %g)", v->info.name, names[t], m, k, off,
          wrong, first, first >= 0 ? get(t, py, (size_t)first) : 0.0);
    CK(cudaFree(da));
    CK(cudaFree(dx));
    CK(cudaFree(dy));
    if (scratch) CK(cudaFree(scratch));
out:
    free(ha);
    free(hx);
    free(pa);
    free(px);
    free(py);
}

int main(void)
{
    /* lane groups 1..32 (k 3, 17, 64, 128, 1001), two-row groups with an odd
     * last row (33 x 256, 333 x 1024), split-k aligned (5 x 40000) and not
     * (7 x 100001), and 1 x 1 */
    static const long long shapes[][2] = {{1, 1},     {100, 3},   {9, 17},    {50, 64},    {31, 128}, {333, 1001},
                                          {33, 256},  {333, 1024}, {5, 40000}, {7, 100001}, {2, 65536}};
    const variant *rows[CATALOG_ROWS_MAX];
    cudaStream_t s;
    int n;
    test_require_gpu();
    CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    n = catalog_hand_rows("gemv", rows, CATALOG_ROWS_MAX);
    for (int v = 0; v < n; v++) {
        for (int t = 0; t < 3; t++)
            for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++)
                for (int off = 0; off < 2; off++)
                    check_shape(rows[v], (elem_type)t, shapes[i][0], shapes[i][1], off, s);
        /* bad arguments: refused, nothing launched */
        {
            static char dummy[64]; /* never read: the launchers refuse first */
            const gemv_args bad_k = {dummy, dummy, dummy, 4, 0, ELEM_FP32, NULL, 0};
            const gemv_args bad_t = {dummy, dummy, dummy, 4, 4, ELEM_FP8_E4M3, NULL, 0};
            CHECK(((gemv_launcher)rows[v]->fn)(&bad_k, s) == (int)cudaErrorInvalidValue, "%s: k = 0 taken",
                  rows[v]->info.name);
            CHECK(((gemv_launcher)rows[v]->fn)(&bad_t, s) == (int)cudaErrorInvalidValue, "%s: fp8 taken",
                  rows[v]->info.name);
        }
    }
    CK(cudaStreamDestroy(s));
    return test_finish("test_gpu_gemv_exact");
}
