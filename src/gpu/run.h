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

/* Device memory one case needs: the op's buffers, the largest workspace of
 * its variants (their sum with --interleave) and the most any of them
 * allocates for itself (variant.own_bytes). */
size_t run_case_bytes(const plan_case *pc);

/* Refuses, before any allocation, cases that cannot fit in free device
 * memory (a launcher's own buffer counted at the largest any case so far
 * needed: it is kept between calls): returns 0, or 2 with "needed vs free"
 * in err. */
int run_check_memory(const plan *p, char *err, size_t err_len);

/* Runs every case of the plan. Returns 0 if all passed, 1 if a variant failed
 * or a GPU error occurred, or the stop signal's exit code (130 SIGINT,
 * 143 SIGTERM) when *stop was set (to the signal number). */
int run_plan(device_ctx *d, const cli_options *o, const plan *p, run_sink *sink, volatile sig_atomic_t *stop);

#endif
