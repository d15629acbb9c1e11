/* src/gpu/run.h: the run plan (op x size x variant) and its execution:
 * inputs, reference, then per variant: checked run, verification, timing. */
#ifndef COMPARE_RUN_H
#define COMPARE_RUN_H

#include <signal.h>
#include <stddef.h>

#include "cli.h"
#include "device.h"
#include "results.h"

/* Receives each case's rows once the case is complete (or cut short). */
typedef struct {
    void (*emit_case)(void *ctx, result_row *rows, int count);
    void *ctx;
} run_sink;

/* Bytes of device memory one case needs (buffers, reference, scratch,
 * library temp storage). keys_float is ignored except for sort. */
int run_case_bytes(const char *op, long long size, size_t *bytes);

/* Refuses, before any allocation, sizes that cannot fit in free device
 * memory: returns 0, or 2 with "needed vs free" in err. */
int run_check_memory(const cli_options *o, char *err, size_t err_len);

/* Runs every selected case. Returns 0 if all passed, 1 if a variant failed
 * or a GPU error occurred, or the stop signal's exit code (130 SIGINT,
 * 143 SIGTERM) when *stop was set (to the signal number). */
int run_all(device_ctx *d, const cli_options *o, run_sink *sink, volatile sig_atomic_t *stop);

#endif
