/* tests/test_gemv_rules.c (cpu): the pure logic of the gemv op.
 *
 * Launch choices (kernels/gemv_plan.h): lanes per row grow with the row to a
 * whole warp, which reads two rows on the 16-byte path; the split-k plan covers every row exactly with chunks that
 * start on 16-byte units, never splits below one warp step, aims at the
 * warp target, leaves tall matrices unsplit, and its scratch is what the
 * finish pass reads.
 * Verdict (src/core/verify_gemv.c): the coefficients come from the one
 * tolerance rule (fp32: 8 u32 sqrt(k), no output term; bf16/fp16: + 2 u);
 * an FP32 dot product rounded to the type passes at every k tried, rows
 * that cancel included, and fp16 results in the subnormal range; a dropped
 * term, a wrong row and NaN fail; a bad element fails the whole verdict
 * even when the Frobenius error is small. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gemv_plan.h"
#include "testlib.h"
#include "types.h"
#include "verify_gemv.h"

static uint64_t rng = 0x6e6d76ull;

/* uniform in [-1, 1), exact in float */
static double rand_pm1(void)
{
    rng = rng * 6364136223846793005ull + 1442695040888963407ull;
    return (double)((int32_t)(rng >> 40) - (1 << 23)) / (double)(1 << 23);
}

// ---- launch choices ------------------------------------------------------------

static void test_group_lanes(void)
{
    CHECK(gemv_group_lanes(1, 4, 0) == 1, "k 1: %d lanes", gemv_group_lanes(1, 4, 0));
    CHECK(gemv_group_lanes(3, 4, 0) == 1, "k 3: %d lanes", gemv_group_lanes(3, 4, 0));
    CHECK(gemv_group_lanes(1001, 4, 0) == 32, "k 1001: %d lanes", gemv_group_lanes(1001, 4, 0));
    CHECK(gemv_group_lanes(8192, 4, 1) == 32, "k 8192: %d lanes", gemv_group_lanes(8192, 4, 1));
    /* fp32 k = 64 aligned: 16 units, 4 a lane -> 4 lanes */
    CHECK(gemv_group_lanes(64, 4, 1) == 4, "k 64 vec: %d lanes", gemv_group_lanes(64, 4, 1));
    /* bf16 k = 64 aligned: 8 units -> 2 lanes */
    CHECK(gemv_group_lanes(64, 2, 1) == 2, "k 64 bf16: %d lanes", gemv_group_lanes(64, 2, 1));
    CHECK(gemv_rows_per_group(32, 1) == 2 && gemv_rows_per_group(32, 0) == 1 && gemv_rows_per_group(16, 1) == 1,
          "rows per group: %d %d %d", gemv_rows_per_group(32, 1), gemv_rows_per_group(32, 0),
          gemv_rows_per_group(16, 1));
    for (long long k = 1; k < 5000; k += 37) {
        for (int vec = 0; vec < 2; vec++) {
            const int g = gemv_group_lanes(k, 4, vec);
            const long long units = (k + gemv_unit_elems(4, vec) - 1) / gemv_unit_elems(4, vec);
            CHECK(g >= 1 && g <= 32 && (g & (g - 1)) == 0, "k %lld: %d lanes not a power of two", k, g);
            CHECK(g == 32 || (long long)g * gemv_unroll(vec) >= units, "k %lld: %d lanes leave a row unread", k, g);
            CHECK(g == 1 || (long long)g / 2 * gemv_unroll(vec) < units, "k %lld: %d lanes, half would do", k, g);
        }
    }
}

static void check_split(long long m, long long k, int bytes, int vec)
{
    const gemv_split s = gemv_splitk_plan(m, k, bytes, vec);
    const long long unit = gemv_unit_elems(bytes, vec), step = 32LL * gemv_unroll(vec) * unit;
    CHECK(s.splits >= 1 && s.splits <= GEMV_SPLITK_MAX, "%lldx%lld: %lld splits", m, k, s.splits);
    CHECK((s.splits - 1) * s.chunk < k && s.splits * s.chunk >= k, "%lldx%lld: %lld chunks of %lld do not tile k", m,
          k, s.splits, s.chunk);
    if (s.splits > 1) {
        CHECK(s.chunk % unit == 0, "%lldx%lld: chunk %lld not whole 16-byte units", m, k, s.chunk);
        CHECK(s.chunk >= step / 2, "%lldx%lld: chunk %lld shorter than a warp step %lld", m, k, s.chunk, step);
        CHECK(m * s.splits <= 2 * GEMV_SPLITK_WARPS, "%lldx%lld: %lld warps, far past the target", m, k,
              m * s.splits);
        CHECK(gemv_split_scratch(m, &s) == (size_t)(m * s.splits) * 4, "%lldx%lld: scratch %zu", m, k,
              gemv_split_scratch(m, &s));
    } else {
        CHECK(s.chunk == k && gemv_split_scratch(m, &s) == 0, "%lldx%lld: no split but chunk %lld", m, k, s.chunk);
    }
}

static void test_split(void)
{
    static const long long shapes[][2] = {{1, 1},      {7, 1000001}, {7, 100001},   {333, 1001}, {100000, 3},
                                          {8192, 8192}, {1, 65536},   {16, 65536},  {4096, 4096}, {1, 4097},
                                          {2, 1 << 20}, {64, 257},    {4095, 8191}, {1, 1LL << 31}};
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++)
        for (int bytes = 2; bytes <= 4; bytes += 2)
            for (int vec = 0; vec < 2; vec++) check_split(shapes[i][0], shapes[i][1], bytes, vec);
    /* tall matrices are not split; short wide ones are, enough to fill the target */
    CHECK(gemv_splitk_plan(8192, 8192, 4, 1).splits == 1, "8192 rows split");
    CHECK(gemv_splitk_plan(4096, 4096, 2, 1).splits == 1, "4096 rows split");
    {
        const gemv_split s = gemv_splitk_plan(1, 1 << 20, 4, 1);
        CHECK(s.splits >= GEMV_SPLITK_WARPS / 2, "1 x 2^20: %lld splits, expected about %d", s.splits,
              GEMV_SPLITK_WARPS);
    }
    {
        const gemv_split s = gemv_splitk_plan(7, 1000001, 4, 0);
        CHECK(s.splits > 100, "7 x 1000001: %lld splits", s.splits);
    }
    /* a row shorter than a warp step is never split */
    CHECK(gemv_splitk_plan(1, 100, 4, 0).splits == 1, "1 x 100 split");
}

// ---- the verdict -----------------------------------------------------------------

static void test_bound(void)
{
    verify_gemv_bound b;
    const double u32 = ldexp(1.0, -24);
    CHECK(verify_gemv_bound_of("fp32", 1024, &b) == 0, "fp32 bound");
    CHECK(fabs(b.c_acc - 8 * u32 * 32) < 1e-20 && b.c_out == 0 && b.out_floor == 0, "fp32: %g %g %g", b.c_acc,
          b.c_out, b.out_floor);
    CHECK(verify_gemv_bound_of("bf16", 1024, &b) == 0, "bf16 bound");
    CHECK(fabs(b.c_acc - 8 * u32 * 32) < 1e-20 && fabs(b.c_out - 2 * ldexp(1.0, -8)) < 1e-15 &&
              b.out_floor == ldexp(1.0, -126),
          "bf16: %g %g %g", b.c_acc, b.c_out, b.out_floor);
    CHECK(verify_gemv_bound_of("fp16", 1, &b) == 0, "fp16 bound");
    CHECK(fabs(b.c_out - 2 * ldexp(1.0, -11)) < 1e-15 && b.out_floor == ldexp(1.0, -14), "fp16: %g %g", b.c_out,
          b.out_floor);
    CHECK(verify_gemv_bound_of("u32", 16, &b) == -1, "u32 has a bound");
    CHECK(verify_gemv_bound_of("nope", 16, &b) == -1, "unknown type has a bound");
}

/* one row of length k in `type`: the FP32 dot product in order, rounded to
 * the type, against its FP64 reference; and the same row with a fault */
static void check_row(const char *type, long long k, int cancel)
{
    const types_info *t = types_find(type);
    verify_gemv_bound b;
    double *a = malloc((size_t)k * sizeof *a), *x = malloc((size_t)k * sizeof *x);
    double r = 0, s = 0;
    float acc = 0;
    if (!a || !x || verify_gemv_bound_of(type, k, &b)) {
        CHECK(0, "set-up %s %lld", type, k);
        free(a);
        free(x);
        return;
    }
    for (long long j = 0; j < k; j++) {
        a[j] = types_round(t, rand_pm1());
        x[j] = types_round(t, rand_pm1());
        if (cancel && j % 2 == 1) { /* a row whose terms cancel in pairs: r near 0, s large */
            a[j] = -a[j - 1];
            x[j] = x[j - 1];
        }
    }
    for (long long j = 0; j < k; j++) {
        r += a[j] * x[j];
        s += fabs(a[j] * x[j]);
        acc = fmaf((float)a[j], (float)x[j], acc);
    }
    const double y = types_round(t, (double)acc);
    CHECK(verify_gemv_elem_ok(&b, y, r, s), "%s k %lld%s: y %.9g r %.9g s %.9g fails", type, k,
          cancel ? " (cancelling)" : "", y, r, s);
    if (!cancel) {
        /* the largest term dropped: caught while it is big against the bound */
        long long big = 0;
        for (long long j = 1; j < k; j++)
            if (fabs(a[j] * x[j]) > fabs(a[big] * x[big])) big = j;
        const double dropped = types_round(t, (double)acc - a[big] * x[big]);
        if (fabs(a[big] * x[big]) > 4 * (b.c_acc * s + b.c_out * (fabs(r) + fabs(a[big] * x[big]))))
            CHECK(!verify_gemv_elem_ok(&b, dropped, r, s), "%s k %lld: a dropped term passes", type, k);
    }
    CHECK(!verify_gemv_elem_ok(&b, NAN, r, s), "%s: NaN passes", type);
    CHECK(!verify_gemv_elem_ok(&b, r + 0.5 * s, r, s), "%s: half the row's scale off passes", type);
    free(a);
    free(x);
}

static void test_rows(void)
{
    static const char *const types[] = {"fp32", "bf16", "fp16"};
    static const long long ks[] = {1, 2, 3, 17, 1001, 4096, 65536};
    for (int t = 0; t < 3; t++)
        for (size_t i = 0; i < sizeof ks / sizeof ks[0]; i++)
            for (int rep = 0; rep < 20; rep++) check_row(types[t], ks[i], rep % 4 == 3 && ks[i] > 1);
    /* fp16 subnormal results: the quantum 2^-24 is the error, not 2 u |r| */
    {
        verify_gemv_bound b;
        const types_info *h = types_find("fp16");
        const double r = 3.0e-6, y = types_round(h, r);
        CHECK(verify_gemv_bound_of("fp16", 1, &b) == 0 && verify_gemv_elem_ok(&b, y, r, r),
              "fp16 subnormal %.9g for %.9g fails", y, r);
    }
}

static void test_judge(void)
{
    verify_sums s = {0};
    verify_verdict v;
    s.sum_sq_err = 1e-20;
    s.sum_sq_ref = 1.0;
    s.max_abs_err = 1e-10;
    s.count = 100;
    CHECK(verify_gemv_judge(&s, "fp32", 1000, 0, &v) == 0 && v.pass, "a tiny error fails");
    CHECK(verify_gemv_judge(&s, "fp32", 1000, 1, &v) == 0 && !v.pass, "one bad element passes");
    CHECK(v.rel_err <= v.tolerance, "rel_err %g tolerance %g", v.rel_err, v.tolerance);
    s.nonfinite = 1;
    CHECK(verify_gemv_judge(&s, "bf16", 1000, 0, &v) == 0 && !v.pass, "NaN passes");
    CHECK(verify_gemv_judge(&s, "u8", 1000, 0, &v) == -1, "u8 judged");
}

int main(void)
{
    test_group_lanes();
    test_split();
    test_bound();
    test_rows();
    test_judge();
    return test_finish("test_gemv_rules");
}
