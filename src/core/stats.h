/* src/core/stats.h: summary statistics of timing samples. */
#ifndef COMPARE_STATS_H
#define COMPARE_STATS_H

#include <stddef.h>

typedef struct {
    size_t count;      /* number of samples */
    double min;        /* smallest sample */
    double max;        /* largest sample */
    double mean;       /* arithmetic mean */
    double q1;         /* first quartile (linear interpolation between order statistics) */
    double median;     /* second quartile */
    double q3;         /* third quartile */
    double spread_pct; /* (q3 - q1) / median * 100: the relative spread */
} stats_summary;

/* Quantile p in [0,1] of sorted[0..n) by linear interpolation (type 7). */
double stats_quantile_sorted(const double *sorted, size_t n, double p);
/* Summarises x[0..n) (n >= 1); x is not modified. Returns 0, or -1 if n == 0
 * or memory runs out. */
int stats_summarize(const double *x, size_t n, stats_summary *out);

#endif
