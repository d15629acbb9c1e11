/* src/core/fleet_relay.h: rows from worker threads to the main thread.
 * With --parallel-devices (and on compare-mpi's rank 0, whose own GPU runs
 * on a thread while the main thread listens to the other ranks) each device
 * runs on a thread of its own, but the report and the CSV stay on the main
 * thread: a worker posts each finished case on its lane and waits until
 * the main thread has written it, so rows reach the sink one case at a
 * time and the worker's rows stay valid (no copy) while they are written. */
#ifndef COMPARE_FLEET_RELAY_H
#define COMPARE_FLEET_RELAY_H

#include "results.h"

typedef struct fleet_relay fleet_relay;

/* What fleet_relay_next found. */
typedef enum {
    FLEET_RELAY_IDLE = 0,  /* nothing before the timeout */
    FLEET_RELAY_CASE,      /* a case on *lane: handle it, then fleet_relay_done */
    FLEET_RELAY_FINISHED,  /* *lane's run is over, its exit code in *rc */
    FLEET_RELAY_ALL_DONE   /* every lane finished and was reported */
} fleet_relay_event;

/* A relay of `lanes` lanes (one per worker), or NULL. */
fleet_relay *fleet_relay_new(int lanes);
void fleet_relay_free(fleet_relay *r);

/* Worker: hands the case to the main thread and returns once it is handled
 * (at once, unhandled, when the relay is closed). */
void fleet_relay_post(fleet_relay *r, int lane, result_row *rows, int count);
/* Worker: its run is over. */
void fleet_relay_finish(fleet_relay *r, int lane, int rc);

/* Main thread: waits up to timeout_ms (< 0: for ever) for the next event. */
fleet_relay_event fleet_relay_next(fleet_relay *r, int timeout_ms, int *lane, result_row **rows, int *count,
                                   int *rc);
/* Main thread: the case of `lane` is handled; its worker goes on. */
void fleet_relay_done(fleet_relay *r, int lane);
/* Main thread: from now on posts return at once (their rows are dropped). */
void fleet_relay_close(fleet_relay *r);

#endif
