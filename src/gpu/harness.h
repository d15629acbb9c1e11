/* src/gpu/harness.h: timing one variant on one case. Warm-up runs first; then
 * samples, each bracketed by its own CUDA event pair on the run's stream,
 * preceded (untimed) by the variant's prepare step and the L2 flush. Samples
 * continue until at least min_reps are in and either the spread is under
 * the noise target or max_time has passed, and stop at max_reps. */
#ifndef COMPARE_HARNESS_H
#define COMPARE_HARNESS_H

#include <signal.h>
#include <stddef.h>

#include "op.h"

typedef struct {
    int warmup;         /* untimed runs first */
    int min_reps;       /* at least this many samples */
    int max_reps;       /* at most this many */
    double max_time_s;  /* wall-clock budget once min_reps are in */
    double noise_pct;   /* stop once spread (IQR/median, %) is under this */
    int flush;          /* flush L2 before each sample */
} harness_plan;

/* Called after each sample with the count so far (for progress lines). */
typedef void (*harness_progress_fn)(void *ctx, size_t samples);

/* How a variant's samples were timed (harness_timing_name gives the CSV's word). */
typedef enum { HARNESS_GATED, HARNESS_UNGATED, HARNESS_HOST, HARNESS_WALL } harness_timing;
const char *harness_timing_name(harness_timing t);

/* Times v on c. On success returns STATUS_OK with *samples_ms (malloc'ed,
 * caller frees) and *count set, (cs not NULL) what the clocks were while
 * the samples ran (cs->valid 0 without NVML), and (timing not NULL) how the
 * kept samples were timed. Returns STATUS_ERROR on a CUDA error (message via
 * status.h) and STATUS_SKIP if *stop became non-zero. */
int harness_time(device_ctx *d, const variant *v, const op_case *c, const harness_plan *p,
                 volatile sig_atomic_t *stop, harness_progress_fn progress, void *progress_ctx,
                 double **samples_ms, size_t *count, clocks_summary *cs, harness_timing *timing);

/* --interleave: times nv variants (v[i] on its own case copy c[i]: the same
 * case, each its own workspace) in rounds of one sample each, the order
 * reversed every other round (0 1 2, 2 1 0, ...), so that a power cap or
 * heat that builds up during the case slows every variant alike. Each
 * variant's warm-up runs first. Rounds go on until min_reps rounds are in
 * and either max_time_s x (variants still timed) has passed or every
 * variant's spread is under the noise target; at most max_reps rounds. A
 * variant whose sample fails is dropped from the later rounds: status[i]
 * says so (STATUS_ERROR) and why[i] keeps its message; the
 * others go on. Per variant: samples_ms[i] (malloc'ed; NULL unless
 * status[i] is STATUS_OK), counts[i], and cs[i] (cs not NULL): the clocks
 * NVML read while its own samples ran (one window over the whole timing,
 * each reading given to the variant whose sample, flush included, it fell
 * in), and timing[i] (timing not NULL): how its kept samples were timed.
 * Returns STATUS_OK, STATUS_SKIP if *stop became non-zero (nothing kept),
 * STATUS_ERROR when out of host memory. */
int harness_time_interleaved(device_ctx *d, const variant *const *v, const op_case *const *c, int nv,
                             const harness_plan *p, volatile sig_atomic_t *stop, harness_progress_fn progress,
                             void *progress_ctx, double **samples_ms, size_t *counts, int *status,
                             char (*why)[256], clocks_summary *cs, harness_timing *timing);

/* Runs v once (prepare included) and waits for it: the checked run, and
 * --profile's single launch. */
int harness_run_once(device_ctx *d, const variant *v, const op_case *c);

/* Seconds on a monotonic clock. */
double harness_now(void);

#endif
