#include "fleet_relay.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <time.h>

typedef struct {
    result_row *rows;   /* the posted case (the worker's own rows) */
    int count;
    int posted;         /* a case waits for the main thread */
    int taken;          /* the main thread has it */
    int finished;       /* the worker's run is over */
    int reported;       /* ... and the main thread was told */
    int rc;
} fleet_lane;

struct fleet_relay {
    pthread_mutex_t mu;
    pthread_cond_t cv;   /* any change: both sides re-check their condition */
    int closed;
    int lanes;
    int next;            /* round robin: the lane looked at first */
    fleet_lane lane[];
};

fleet_relay *fleet_relay_new(int lanes)
{
    fleet_relay *r = calloc(1, sizeof *r + (size_t)lanes * sizeof r->lane[0]);
    pthread_condattr_t ca;
    if (!r) return NULL;
    r->lanes = lanes;
    pthread_mutex_init(&r->mu, NULL);
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&r->cv, &ca);
    pthread_condattr_destroy(&ca);
    return r;
}

void fleet_relay_free(fleet_relay *r)
{
    if (!r) return;
    pthread_cond_destroy(&r->cv);
    pthread_mutex_destroy(&r->mu);
    free(r);
}

void fleet_relay_post(fleet_relay *r, int lane, result_row *rows, int count)
{
    fleet_lane *l = &r->lane[lane];
    pthread_mutex_lock(&r->mu);
    if (!r->closed) {
        l->rows = rows;
        l->count = count;
        l->posted = 1;
        l->taken = 0;
        pthread_cond_broadcast(&r->cv);
        while (l->posted && !r->closed) pthread_cond_wait(&r->cv, &r->mu);
        l->posted = 0;
    }
    pthread_mutex_unlock(&r->mu);
}

void fleet_relay_finish(fleet_relay *r, int lane, int rc)
{
    pthread_mutex_lock(&r->mu);
    r->lane[lane].finished = 1;
    r->lane[lane].rc = rc;
    pthread_cond_broadcast(&r->cv);
    pthread_mutex_unlock(&r->mu);
}

/* Under the lock: the next event, or IDLE when there is none yet. */
static fleet_relay_event fleet_relay_scan(fleet_relay *r, int *lane, result_row **rows, int *count, int *rc)
{
    int all = 1;
    for (int k = 0; k < r->lanes; k++) {
        int i = (r->next + k) % r->lanes;
        fleet_lane *l = &r->lane[i];
        if (l->posted && !l->taken) {
            l->taken = 1;
            *lane = i;
            *rows = l->rows;
            *count = l->count;
            r->next = (i + 1) % r->lanes;
            return FLEET_RELAY_CASE;
        }
        if (l->finished && !l->reported && !l->posted) {
            l->reported = 1;
            *lane = i;
            *rc = l->rc;
            return FLEET_RELAY_FINISHED;
        }
        all &= l->reported;
    }
    return all ? FLEET_RELAY_ALL_DONE : FLEET_RELAY_IDLE;
}

fleet_relay_event fleet_relay_next(fleet_relay *r, int timeout_ms, int *lane, result_row **rows, int *count,
                                   int *rc)
{
    struct timespec until;
    fleet_relay_event ev;
    clock_gettime(CLOCK_MONOTONIC, &until);
    if (timeout_ms > 0) {
        until.tv_sec += timeout_ms / 1000;
        until.tv_nsec += (long)(timeout_ms % 1000) * 1000000L;
        if (until.tv_nsec >= 1000000000L) {
            until.tv_sec++;
            until.tv_nsec -= 1000000000L;
        }
    }
    pthread_mutex_lock(&r->mu);
    for (;;) {
        ev = fleet_relay_scan(r, lane, rows, count, rc);
        if (ev != FLEET_RELAY_IDLE || timeout_ms == 0) break;
        if (timeout_ms < 0) pthread_cond_wait(&r->cv, &r->mu);
        else if (pthread_cond_timedwait(&r->cv, &r->mu, &until) == ETIMEDOUT) {
            ev = fleet_relay_scan(r, lane, rows, count, rc);
            break;
        }
    }
    pthread_mutex_unlock(&r->mu);
    return ev;
}

void fleet_relay_done(fleet_relay *r, int lane)
{
    pthread_mutex_lock(&r->mu);
    r->lane[lane].posted = 0;
    r->lane[lane].taken = 0;
    pthread_cond_broadcast(&r->cv);
    pthread_mutex_unlock(&r->mu);
}

void fleet_relay_close(fleet_relay *r)
{
    pthread_mutex_lock(&r->mu);
    r->closed = 1;
    pthread_cond_broadcast(&r->cv);
    pthread_mutex_unlock(&r->mu);
}
