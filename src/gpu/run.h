/* src/gpu/run.h: executes a plan (src/core/plan.h) on one device: per case
 * inputs and reference, then per variant the checked run, verification and
 * timing (or, with --profile, one launch). */
#ifndef COMPARE_RUN_H
#define COMPARE_RUN_H

#include <signal.h>
#include <stddef.h>

#include "cli.h"
#include "device.h"
#include "plan.h"
#include "results.h"

/* Runs every case of the plan. Before a case allocates anything, its need
 * is held against the device's free memory (what other processes use counts):
 * a case whose variants' workspaces do not fit together is timed
 * sequentially (its rows say so), one that does not fit at all is SKIP with
 * "needed vs free", and the other cases run. Returns 0 if all that ran
 * passed (SKIP rows included), 1 if a variant failed or a GPU error
 * occurred, or the stop signal's exit code (130 SIGINT, 143 SIGTERM) when
 * *stop was set (to the signal number). */
int run_plan(device_ctx *d, const cli_options *o, const plan *p, run_sink *sink, volatile sig_atomic_t *stop);

#endif
