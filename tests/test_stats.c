/* tests/test_stats.c (cpu): the sample statistics (src/core/stats.c) on samples
 * whose quartiles are worked out by hand. Quantiles are type 7 (linear
 * interpolation between order statistics): position p * (n - 1). */
#include "stats.h"
#include "testlib.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

// ---- helpers ----------------------------------------------------------------

static int near(double a, double b)
{
    return fabs(a - b) <= 1e-12 * (fabs(b) > 1 ? fabs(b) : 1.0);
}

#define NEAR(got, want) CHECK(near((got), (want)), "%s = %.17g, expected %.17g", #got, (double)(got), (double)(want))

/* Summarises x and checks every field; x must come back unchanged. */
static void expect_summary(const char *what, const double *x, size_t n, double min, double q1, double med, double q3,
                           double max, double mean, double spread)
{
    stats_summary s;
    double copy[64];
    memcpy(copy, x, n * sizeof *x);
    memset(&s, 0xff, sizeof s);
    CHECK(stats_summarize(x, n, &s) == 0, "%s: summarize failed", what);
    CHECK(s.count == n, "%s: count %zu, expected %zu", what, s.count, n);
    CHECK(near(s.min, min), "%s: min %.17g, expected %.17g", what, s.min, min);
    CHECK(near(s.q1, q1), "%s: q1 %.17g, expected %.17g", what, s.q1, q1);
    CHECK(near(s.median, med), "%s: median %.17g, expected %.17g", what, s.median, med);
    CHECK(near(s.q3, q3), "%s: q3 %.17g, expected %.17g", what, s.q3, q3);
    CHECK(near(s.max, max), "%s: max %.17g, expected %.17g", what, s.max, max);
    CHECK(near(s.mean, mean), "%s: mean %.17g, expected %.17g", what, s.mean, mean);
    CHECK(near(s.spread_pct, spread), "%s: spread %.17g, expected %.17g", what, s.spread_pct, spread);
    CHECK(memcmp(copy, x, n * sizeof *x) == 0, "%s: input modified", what);
}

// ---- summaries ------------------------------------------------------------------

static void test_summaries(void)
{
    static const double one[] = {3.5};
    static const double two[] = {4.0, 2.0};
    static const double five[] = {5, 1, 4, 2, 3};
    static const double four[] = {10, 40, 20, 30};
    static const double dups[] = {2, 7, 2, 2, 2};
    static const double six[] = {100, 5, 1, 4, 2, 3};
    static const double neg[] = {-3, -1, -2};
    static const double zeros[] = {0, 0, 0, 0};
    static const double ms[] = {1.25, 1.5, 1.0, 1.75, 1.125, 1.375, 1.625, 1.0625, 1.875};

    /* n = 1: every figure is the sample, no spread */
    expect_summary("n=1", one, 1, 3.5, 3.5, 3.5, 3.5, 3.5, 3.5, 0.0);
    /* n = 2, {2, 4}: q1 = 2 + 0.25 * 2, q3 = 2 + 0.75 * 2; spread = 1 / 3 */
    expect_summary("n=2", two, 2, 2, 2.5, 3, 3.5, 4, 3, 100.0 / 3.0);
    /* odd, unsorted 1..5: positions 1, 2, 3 fall on samples */
    expect_summary("n=5", five, 5, 1, 2, 3, 4, 5, 3, 200.0 / 3.0);
    /* even {10,20,30,40}: positions 0.75, 1.5, 2.25 */
    expect_summary("n=4", four, 4, 10, 17.5, 25, 32.5, 40, 25, 60.0);
    /* duplicates: quartiles all 2, the outlier moves max and mean only */
    expect_summary("dups", dups, 5, 2, 2, 2, 2, 7, 3, 0.0);
    /* n = 6 with an outlier: positions 1.25, 2.5, 3.75; median is robust */
    expect_summary("n=6", six, 6, 1, 2.25, 3.5, 4.75, 100, 115.0 / 6.0, 2.5 / 3.5 * 100.0);
    /* negative median: no meaningful relative spread */
    expect_summary("negative", neg, 3, -3, -2.5, -2, -1.5, -1, -2, 0.0);
    expect_summary("zeros", zeros, 4, 0, 0, 0, 0, 0, 0, 0.0);
    /* timings in ms (exact binary fractions): sorted 1, 1.0625, 1.125, 1.25, 1.375, 1.5, 1.625, 1.75, 1.875 */
    expect_summary("ms", ms, 9, 1.0, 1.125, 1.375, 1.625, 1.875, 12.5625 / 9.0, 0.5 / 1.375 * 100.0);

    /* n = 0 is refused */
    {
        stats_summary s;
        CHECK(stats_summarize(one, 0, &s) == -1, "n = 0 accepted");
    }

    /* a long reversed sample: 1001..1 */
    {
        double *x = malloc(1001 * sizeof *x);
        stats_summary s;
        for (int i = 0; i < 1001; i++) x[i] = 1001 - i;
        CHECK(stats_summarize(x, 1001, &s) == 0, "1001 samples");
        NEAR(s.min, 1);
        NEAR(s.q1, 251);
        NEAR(s.median, 501);
        NEAR(s.q3, 751);
        NEAR(s.max, 1001);
        NEAR(s.mean, 501);
        NEAR(s.spread_pct, 500.0 / 501.0 * 100.0);
        CHECK(x[0] == 1001 && x[1000] == 1, "input sorted in place");
        free(x);
    }
}

// ---- quantiles ------------------------------------------------------------------

static void test_quantiles(void)
{
    static const double q[] = {0, 10, 20, 30};
    static const double r[] = {1, 2, 4, 8, 16};
    static const double single[] = {42};
    NEAR(stats_quantile_sorted(q, 4, 0.0), 0);
    NEAR(stats_quantile_sorted(q, 4, 1.0), 30);
    NEAR(stats_quantile_sorted(q, 4, 0.1), 3);   /* pos 0.3 */
    NEAR(stats_quantile_sorted(q, 4, 0.5), 15);  /* pos 1.5 */
    NEAR(stats_quantile_sorted(q, 4, 0.9), 27);  /* pos 2.7 */
    NEAR(stats_quantile_sorted(q, 4, 1.0 / 3.0), 10);
    NEAR(stats_quantile_sorted(q, 4, 0.99), 29.7); /* pos 2.97 */
    NEAR(stats_quantile_sorted(r, 5, 0.25), 2);    /* pos 1 */
    NEAR(stats_quantile_sorted(r, 5, 0.375), 3);   /* pos 1.5: 2 + 0.5 * 2 */
    NEAR(stats_quantile_sorted(r, 5, 0.625), 6);   /* pos 2.5: 4 + 0.5 * 4 */
    NEAR(stats_quantile_sorted(r, 5, 0.8125), 10); /* pos 3.25: 8 + 0.25 * (16 - 8) */
    NEAR(stats_quantile_sorted(r, 5, 0.95), 14.4); /* pos 3.8: 8 + 0.8 * (16 - 8) */
    NEAR(stats_quantile_sorted(single, 1, 0.0), 42);
    NEAR(stats_quantile_sorted(single, 1, 0.5), 42);
    NEAR(stats_quantile_sorted(single, 1, 1.0), 42);
    /* monotone in p */
    {
        double prev = -1;
        int mono = 1;
        for (int i = 0; i <= 100; i++) {
            double v = stats_quantile_sorted(r, 5, i / 100.0);
            if (v < prev) mono = 0;
            prev = v;
        }
        CHECK(mono, "quantile not monotone in p");
    }
}

int main(void)
{
    test_summaries();
    test_quantiles();
    return test_finish("test_stats");
}
