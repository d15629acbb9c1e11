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

/* Times v on c. On success returns STATUS_OK with *samples_ms (malloc'ed,
 * caller frees) and *count set, and (cs not NULL) what the clocks were while
 * the samples ran (cs->valid 0 without NVML). Returns STATUS_ERROR on a CUDA
 * error (message via status.h) and STATUS_SKIP if *stop became non-zero. */
int harness_time(device_ctx *d, const variant *v, const op_case *c, const harness_plan *p,
                 volatile sig_atomic_t *stop, harness_progress_fn progress, void *progress_ctx,
                 double **samples_ms, size_t *count, clocks_summary *cs);

/* Runs v once (prepare included) and waits for it: the checked run, and
 * --profile's single launch. */
int harness_run_once(device_ctx *d, const variant *v, const op_case *c);

/* Seconds on a monotonic clock. */
double harness_now(void);

#endif
