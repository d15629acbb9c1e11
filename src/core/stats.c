#include "stats.h"

#include <stdlib.h>
#include <string.h>

static int stats_cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double stats_quantile_sorted(const double *sorted, size_t n, double p)
{
    double pos, frac;
    size_t lo;
    if (n == 1) return sorted[0];
    pos = p * (double)(n - 1);
    lo = (size_t)pos;
    if (lo >= n - 1) return sorted[n - 1];
    frac = pos - (double)lo;
    return sorted[lo] + frac * (sorted[lo + 1] - sorted[lo]);
}

int stats_summarize(const double *x, size_t n, stats_summary *out)
{
    double *s, sum = 0.0;
    if (n == 0) return -1;
    s = malloc(n * sizeof *s);
    if (!s) return -1;
    memcpy(s, x, n * sizeof *s);
    qsort(s, n, sizeof *s, stats_cmp);
    for (size_t i = 0; i < n; i++) sum += s[i];
    out->count = n;
    out->min = s[0];
    out->max = s[n - 1];
    out->mean = sum / (double)n;
    out->q1 = stats_quantile_sorted(s, n, 0.25);
    out->median = stats_quantile_sorted(s, n, 0.5);
    out->q3 = stats_quantile_sorted(s, n, 0.75);
    out->spread_pct = out->median > 0 ? (out->q3 - out->q1) / out->median * 100.0 : 0.0;
    free(s);
    return 0;
}
