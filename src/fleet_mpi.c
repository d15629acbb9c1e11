/* src/fleet_mpi.c: compare-mpi's ranks (see fleet_mpi.h).
 *
 * Protocol (point to point on MPI_COMM_WORLD, rank 0 the only receiver of
 * rows; every wait is a probe loop with a short sleep, so a rank waiting
 * for its turn neither spins a CPU core nor hangs on a rank that died):
 *   every rank  opens the GPU of its node-local rank -> HELLO to 0 (its run_info,
 *               or why it could not open: rank 0 writes ERROR rows for it)
 *   rank 0      ORDER{go 1} to the first rank of each turn group: ranks on
 *               one GPU (same host and PCI bus id), or all with --fleet-serial,
 *               run one after another; the others at once
 *   a rank      runs the plan, one CASE message per case (fleet_wire_row
 *               records), then DONE{exit code}; rank 0 then gives the next
 *               rank of its group its turn
 *   rank 0      ORDER{go 0, code} to everyone once it has written the CSV
 *               and the summary; every rank then meets the others in
 *               MPI_Finalize.
 * Rank 0's own GPU runs on a thread (src/core/fleet_relay.h) so that its
 * main thread keeps listening. A rank that dies: mpirun then stops the
 * job (SIGTERM, then SIGKILL about a second later), and rank 0's handler
 * commits the rows that arrived and prints the summary naming the ranks
 * that did not finish. Where the job goes on (mpirun --enable-recovery, a
 * fault-tolerant MPI) a rank silent for --fleet-timeout is reported missing
 * and rank 0 ends the job with MPI_Abort rather than wait for it in
 * MPI_Finalize.
 * Test hooks: COMPARE_FLEET_TEST_BAD_RANK=R gives rank R a device ordinal
 * that does not exist; COMPARE_FLEET_TEST_DIE_RANK=R[:N] kills rank R
 * (SIGKILL) instead of sending its message N+1 (N = 0: before its HELLO). */
#include "fleet_mpi.h"

#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fleet.h"
#include "fleet_relay.h"
#include "fleet_run.h"

enum { FLEET_TAG_HELLO = 1801, FLEET_TAG_ORDER, FLEET_TAG_CASE, FLEET_TAG_DONE };

#define FLEET_MAGIC 0x666c7431u /* "flt1" */
#define FLEET_POLL_NS 2000000L  /* probe loops sleep 2 ms between looks */

typedef struct {
    unsigned magic;          /* FLEET_MAGIC */
    int row_bytes;           /* sizeof(fleet_wire_row): the same build on every rank */
    int hello_bytes;         /* sizeof(fleet_hello) */
    int rank, local_rank;
    int device;              /* the ordinal it took */
    int rc;                  /* 0 opened; else what open returned */
    long long flush_bytes;
    char git_commit[48];
    char err[768];           /* why it could not open */
    run_info info;           /* its run and device (git_commit NULL on the wire) */
} fleet_hello;

typedef struct {
    int go;    /* 1: run now; 0: do not (any more) */
    int code;  /* with go 0: exit with this code, -1: with your own */
} fleet_order;

static int fleet_rank, fleet_size;
static int fleet_abort;           /* a rank is missing: end with MPI_Abort, not MPI_Finalize */
static int fleet_die_rank = -1;   /* test hook */
static int fleet_die_after;
static int fleet_sent;            /* messages this rank sent */

static double fleet_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + t.tv_nsec * 1e-9;
}

static void fleet_nap(void)
{
    struct timespec t = {0, FLEET_POLL_NS};
    nanosleep(&t, NULL);
}

int fleet_mpi_init(int *argc, char ***argv)
{
    int provided = 0;
    const char *die = getenv("COMPARE_FLEET_TEST_DIE_RANK");
    MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_rank(MPI_COMM_WORLD, &fleet_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &fleet_size);
    if (die && die[0]) {
        fleet_die_rank = atoi(die);
        fleet_die_after = strchr(die, ':') ? atoi(strchr(die, ':') + 1) : 0;
    }
    return fleet_rank;
}

int fleet_mpi_finalize(int rc)
{
    fflush(stdout);
    fflush(stderr);
    if (fleet_abort) MPI_Abort(MPI_COMM_WORLD, rc ? rc : 1);
    MPI_Finalize();
    return rc;
}

static int fleet_send(const void *buf, int bytes, int to, int tag)
{
    if (fleet_rank == fleet_die_rank && fleet_sent == fleet_die_after) raise(SIGKILL);
    fleet_sent++;
    return MPI_Send((void *)buf, bytes, MPI_BYTE, to, tag, MPI_COMM_WORLD) == MPI_SUCCESS ? 0 : -1;
}

static void fleet_send_order(int to, int go, int code)
{
    fleet_order ord = {go, code};
    fleet_send(&ord, (int)sizeof ord, to, FLEET_TAG_ORDER);
}

/* This rank's node-local rank (ranks on one shared-memory node). */
static int fleet_local_rank(void)
{
    MPI_Comm node;
    int lr = 0;
    if (MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, fleet_rank, MPI_INFO_NULL, &node) != MPI_SUCCESS) {
        const char *e = getenv("OMPI_COMM_WORLD_LOCAL_RANK");
        return e ? atoi(e) : 0;
    }
    MPI_Comm_rank(node, &lr);
    MPI_Comm_free(&node);
    return lr;
}

/* Opens this rank's GPU into *dev and fills its HELLO. */
static void fleet_open_own(const compare_gpu_api *api, const cli_options *o, const run_info *base,
                           compare_gpu_device **dev, fleet_hello *h)
{
    const char *bad = getenv("COMPARE_FLEET_TEST_BAD_RANK");
    int present = 0;
    memset(h, 0, sizeof *h);
    h->magic = FLEET_MAGIC;
    h->row_bytes = (int)sizeof(fleet_wire_row);
    h->hello_bytes = (int)sizeof(fleet_hello);
    h->rank = fleet_rank;
    h->local_rank = fleet_local_rank();
    snprintf(h->git_commit, sizeof h->git_commit, "%s", base->git_commit);
    h->info = *base;
    h->info.rank = fleet_rank;
    *dev = NULL;
    h->rc = api->device_count(&present, h->err, sizeof h->err);
    if (h->rc) return;
    h->device = fleet_rank_device(o, h->local_rank, present);
    if (bad && bad[0] && atoi(bad) == fleet_rank) h->device = CLI_MAX_ORDINAL; /* planted: no such GPU */
    h->rc = api->open(h->device, o->seed, &h->info, dev, h->err, sizeof h->err);
    if (h->rc == 0) h->flush_bytes = api->flush_bytes(*dev);
    if (h->rc) {
        api->close(*dev);
        *dev = NULL;
    }
    h->info.dev.index = h->device;
    h->info.git_commit = NULL;
}

// ---------------------------------------------------------------------------
// ranks other than 0

static void fleet_case_send(void *ctx, result_row *rows, int count)
{
    fleet_wire_row *w = malloc((size_t)count * sizeof *w);
    (void)ctx;
    if (!w) return; /* rank 0 counts the rows that arrived */
    for (int i = 0; i < count; i++) fleet_wire_pack(&rows[i], &w[i]);
    fleet_send(w, count * (int)sizeof *w, 0, FLEET_TAG_CASE);
    free(w);
}

/* Waits (probe loop) for rank 0's ORDER: 0, or -1 when MPI fails. */
static int fleet_wait_order(fleet_order *ord)
{
    for (;;) {
        int flag = 0;
        MPI_Status st;
        if (MPI_Iprobe(0, FLEET_TAG_ORDER, MPI_COMM_WORLD, &flag, &st) != MPI_SUCCESS) return -1;
        if (flag)
            return MPI_Recv(ord, (int)sizeof *ord, MPI_BYTE, 0, FLEET_TAG_ORDER, MPI_COMM_WORLD, MPI_STATUS_IGNORE) ==
                           MPI_SUCCESS
                       ? 0
                       : -1;
        fleet_nap();
    }
}

static int fleet_member_rank(const compare_gpu_api *api, const cli_options *o, const plan *p,
                             compare_gpu_device *dev, const fleet_hello *h, volatile sig_atomic_t *stop)
{
    fleet_order ord = {0, 1};
    int rc = h->rc ? 1 : 0;
    if (fleet_send(h, (int)sizeof *h, 0, FLEET_TAG_HELLO) || fleet_wait_order(&ord)) {
        api->close(dev);
        return 1;
    }
    if (ord.go && dev) {
        cli_options quiet = *o; /* rank 0 reports progress for everyone */
        run_sink sink = {fleet_case_send, NULL};
        quiet.progress = 0;
        rc = api->run(dev, &quiet, p, &sink, stop);
        if (fleet_send(&rc, (int)sizeof rc, 0, FLEET_TAG_DONE) || fleet_wait_order(&ord)) ord.code = 1;
    }
    api->close(dev);
    return ord.code >= 0 ? ord.code : rc;
}

// ---------------------------------------------------------------------------
// rank 0

typedef struct {
    const compare_gpu_api *api;
    const cli_options *o;
    volatile sig_atomic_t *stop;
    fleet_out f;
    fleet_hello *hello;     /* per rank */
    int *heard;             /* per rank: its HELLO arrived */
    int *group;             /* per rank: its turn group */
    int turns;              /* the groups are known: turns may be given */
    int *told;              /* per rank: its final ORDER was sent */
    double *last;           /* per rank: when it was last heard from while running */
    /* rank 0's own GPU, run on a thread */
    compare_gpu_device *dev;
    cli_options quiet;
    fleet_relay *relay;
    pthread_t thread;
    int thread_started;
} fleet_root;

static void fleet_own_emit(void *ctx, result_row *rows, int count)
{
    fleet_root *r = ctx;
    fleet_relay_post(r->relay, 0, rows, count);
}

static void *fleet_own_main(void *arg)
{
    fleet_root *r = arg;
    run_sink sink = {fleet_own_emit, r};
    fleet_relay_finish(r->relay, 0, r->api->run(r->dev, &r->quiet, r->f.p, &sink, r->stop));
    return NULL;
}

static void fleet_say(const fleet_root *r, int i, const char *what)
{
    char name[160];
    if (!r->o->progress) return;
    fleet_member_name(&r->f.m[i], name, sizeof name);
    fprintf(stderr, "compare: %s: %s\n", name, what);
}

/* Gives rank i its turn. */
static void fleet_start(fleet_root *r, int i)
{
    r->f.m[i].state = FLEET_RUNNING;
    r->last[i] = fleet_now();
    fleet_say(r, i, "running");
    if (i != 0) {
        fleet_send_order(i, 1, -1);
        return;
    }
    r->relay = fleet_relay_new(1);
    if (r->relay && pthread_create(&r->thread, NULL, fleet_own_main, r) == 0) {
        r->thread_started = 1;
        return;
    }
    r->f.m[0].state = FLEET_DONE;
    r->f.m[0].rc = 1;
    fprintf(stderr, "compare: rank 0: cannot start the thread of its GPU\n");
}

/* The next rank of i's group that waits for its turn, if any, gets it. */
static void fleet_next_turn(fleet_root *r, int i)
{
    if (!r->turns) return;
    for (int j = 0; j < r->f.n; j++)
        if (r->group[j] == r->group[i] && r->f.m[j].state == FLEET_RUNNING) return; /* one at a time */
    for (int j = 0; j < r->f.n; j++)
        if (r->group[j] == r->group[i] && r->f.m[j].state == FLEET_WAITING && r->f.m[j].pci_bus_id[0]) {
            fleet_start(r, j);
            return;
        }
}

static void fleet_finished(fleet_root *r, int i, int rc)
{
    char what[64];
    if (r->f.m[i].state == FLEET_FAILED) return;
    r->f.m[i].state = FLEET_DONE;
    r->f.m[i].rc = rc;
    snprintf(what, sizeof what, "finished (exit %d, %ld rows)", rc, r->f.m[i].rows);
    fleet_say(r, i, what);
    fleet_next_turn(r, i);
}

static void fleet_missing(fleet_root *r, int i, const char *why)
{
    r->f.m[i].state = FLEET_MISSING;
    snprintf(r->f.m[i].why, sizeof r->f.m[i].why, "%s", why);
    fleet_say(r, i, why);
    fleet_next_turn(r, i);
}

/* Receives one message of any rank (0 when there was none, -1 on an MPI
 * error that names no rank). */
static int fleet_receive(fleet_root *r)
{
    static result_row rows[PLAN_MAX_VARIANTS];
    int flag = 0, bytes = 0, src;
    MPI_Status st;
    if (MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st) != MPI_SUCCESS) return -1;
    if (!flag) return 0;
    src = st.MPI_SOURCE;
    MPI_Get_count(&st, MPI_BYTE, &bytes);
    char *buf = malloc(bytes > 0 ? (size_t)bytes : 1);
    if (!buf || MPI_Recv(buf, bytes, MPI_BYTE, src, st.MPI_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE) != MPI_SUCCESS) {
        free(buf);
        if (src > 0 && src < r->f.n) fleet_missing(r, src, "an MPI receive from it failed");
        return 1;
    }
    if (src <= 0 || src >= r->f.n) {
        free(buf);
        return 1;
    }
    if (st.MPI_TAG == FLEET_TAG_CASE && bytes % (int)sizeof(fleet_wire_row) == 0) {
        const fleet_wire_row *w = (const fleet_wire_row *)buf;
        int count = bytes / (int)sizeof *w;
        if (count > PLAN_MAX_VARIANTS) count = PLAN_MAX_VARIANTS;
        for (int i = 0; i < count; i++) fleet_wire_unpack(&w[i], &rows[i]);
        if (r->f.m[src].state == FLEET_MISSING) r->f.m[src].state = FLEET_RUNNING; /* it was only slow */
        fleet_out_rows(&r->f, src, rows, count);
        r->last[src] = fleet_now();
    } else if (st.MPI_TAG == FLEET_TAG_DONE && bytes == (int)sizeof(int)) {
        int rc;
        memcpy(&rc, buf, sizeof rc);
        fleet_finished(r, src, rc);
    } else if (st.MPI_TAG == FLEET_TAG_HELLO && bytes == (int)sizeof(fleet_hello) && !r->heard[src]) {
        memcpy(&r->hello[src], buf, sizeof(fleet_hello));
        r->heard[src] = 1;
    } else if (st.MPI_TAG == FLEET_TAG_HELLO && !r->told[src]) {
        fleet_send_order(src, 0, 1); /* a HELLO too late or of another build: it is not part of this run */
        r->told[src] = 1;
    }
    free(buf);
    return 1;
}

/* Rank i's HELLO: its device block, or why it could not run. */
static void fleet_greet(fleet_root *r, int i)
{
    fleet_hello *h = &r->hello[i];
    char why[1024];
    r->f.m[i].device = h->device;
    if (h->magic != FLEET_MAGIC || h->row_bytes != (int)sizeof(fleet_wire_row) ||
        h->hello_bytes != (int)sizeof(fleet_hello)) {
        fleet_out_failed(&r->f, i, "it runs another build of compare-mpi (its records differ)");
        return;
    }
    r->f.info[i] = h->info;
    r->f.info[i].git_commit = r->f.info[0].git_commit;
    r->f.info[i].rank = i;
    snprintf(r->f.m[i].host, sizeof r->f.m[i].host, "%s", h->info.hostname);
    if (strcmp(h->git_commit, r->hello[0].git_commit) != 0)
        fprintf(stderr, "compare: rank %d runs commit %s, rank 0 %s\n", i, h->git_commit, r->hello[0].git_commit);
    if (h->rc == 0) {
        fleet_out_opened(&r->f, i, h->flush_bytes);
        r->f.m[i].state = FLEET_WAITING; /* for its turn */
        return;
    }
    snprintf(why, sizeof why, "device %d: %s", h->device, h->err);
    fleet_out_failed(&r->f, i, why);
}

static int fleet_root_run(fleet_root *r)
{
    const int n = r->f.n;
    char err[1024];
    int rc = 0, all77 = 1, running;
    double t0 = fleet_now();
    /* every HELLO, or the timeout */
    for (;;) {
        int have = 0;
        for (int i = 0; i < n; i++) have += r->heard[i];
        if (have == n || *r->stop || fleet_now() - t0 > r->o->fleet_timeout_s) break;
        if (fleet_receive(r) == 0) fleet_nap();
    }
    for (int i = 0; i < n; i++) all77 &= r->heard[i] && r->hello[i].rc == 77;
    if (all77) {
        char msg[900];
        snprintf(msg, sizeof msg, "no usable GPU on any of the %d rank%s (rank 0: %s)", n, n == 1 ? "" : "s",
                 r->hello[0].err);
        fprintf(stderr, "compare: %s\n", msg);
        for (int i = 1; i < n; i++) {
            fleet_send_order(i, 0, 77);
            r->told[i] = 1;
        }
        return 77;
    }
    if (fleet_out_open_csv(&r->f, err, sizeof err)) {
        fprintf(stderr, "compare: %s\n", err);
        for (int i = 1; i < n; i++) {
            if (r->heard[i]) fleet_send_order(i, 0, 2);
            r->told[i] = 1;
        }
        return 2;
    }
    for (int i = 0; i < n; i++) {
        if (r->heard[i]) {
            fleet_greet(r, i);
        } else {
            r->f.m[i].host[0] = '\0'; /* unknown */
            fleet_missing(r, i, "its HELLO did not arrive");
        }
        if (i > 0 && r->heard[i] && r->f.m[i].state == FLEET_FAILED) {
            fleet_send_order(i, 0, -1);
            r->told[i] = 1;
        }
    }
    if (fleet_turn_groups(r->f.m, n, r->o->fleet_serial, r->group) > 0 || r->o->fleet_serial)
        printf("\nranks on one GPU (or all, with --fleet-serial) run one after another, so that none times "
               "its kernels while another uses the GPU\n");
    r->turns = 1;
    for (int i = 0; i < n; i++)
        if (r->group[i] == i) fleet_next_turn(r, i);
    /* rows, DONEs, silences */
    for (int own_done = 0;;) {
        int got = 0, errors = 0;
        running = 0;
        if (*r->stop) break;
        if (r->relay && !own_done) {
            /* rank 0's own GPU; this waits up to one poll interval */
            int lane, count, lrc;
            result_row *rows;
            fleet_relay_event ev = fleet_relay_next(r->relay, FLEET_POLL_NS / 1000000L, &lane, &rows, &count, &lrc);
            if (ev == FLEET_RELAY_CASE) {
                fleet_out_rows(&r->f, 0, rows, count);
                fleet_relay_done(r->relay, 0);
            } else if (ev == FLEET_RELAY_FINISHED) {
                fleet_finished(r, 0, lrc);
            } else if (ev == FLEET_RELAY_ALL_DONE) {
                own_done = 1;
            }
        }
        for (int k = 0; k < 64; k++) {
            int g = fleet_receive(r);
            if (g <= 0) {
                errors += g < 0;
                break;
            }
            got++;
        }
        if (errors) {
            fprintf(stderr, "compare: MPI_Iprobe failed: the ranks still running are reported missing\n");
            for (int i = 1; i < n; i++)
                if (r->f.m[i].state == FLEET_RUNNING) fleet_missing(r, i, "MPI failed while it ran");
        }
        for (int i = 1; i < n; i++)
            if (r->f.m[i].state == FLEET_RUNNING && fleet_now() - r->last[i] > r->o->fleet_timeout_s) {
                char why[128];
                snprintf(why, sizeof why, "silent for %.0f s while running (--fleet-timeout)", r->o->fleet_timeout_s);
                fleet_missing(r, i, why);
            }
        for (int i = 0; i < n; i++)
            running += r->f.m[i].state == FLEET_RUNNING ||
                       (r->f.m[i].state == FLEET_WAITING && r->f.m[i].pci_bus_id[0]); /* a turn to come */
        if (!running) break;
        if ((!r->relay || own_done) && !got) fleet_nap();
    }
    for (int i = 0; i < n; i++)
        if (r->f.m[i].state == FLEET_DONE && r->f.m[i].rc > rc) rc = r->f.m[i].rc;
    if (*r->stop) rc = fleet_signal_rc(*r->stop);
    if (r->relay) fleet_relay_close(r->relay); /* an interrupted own run: its last case is not written */
    return fleet_out_finish(&r->f, rc, *r->stop != 0);
}

int fleet_mpi_run(const compare_gpu_api *api, const cli_options *o, const plan *p, const catalog *cat,
                  const run_info *base, volatile sig_atomic_t *stop)
{
    fleet_root r;
    fleet_hello own;
    compare_gpu_device *dev = NULL;
    int rc;
    if (o->format == CLI_FORMAT_JSON) {
        if (fleet_rank == 0)
            fprintf(stderr, "compare: --format json is for one GPU (compare --device N); use --csv\n");
        return 2;
    }
    if (o->soak_s > 0) {
        if (fleet_rank == 0) fprintf(stderr, "compare: --soak is not for compare-mpi (run compare --soak)\n");
        return 2;
    }
    fleet_open_own(api, o, base, &dev, &own);
    if (fleet_rank != 0) return fleet_member_rank(api, o, p, dev, &own, stop);

    memset(&r, 0, sizeof r);
    r.api = api;
    r.o = o;
    r.stop = stop;
    r.dev = dev;
    r.quiet = *o;
    r.quiet.progress = 0;
    r.hello = calloc((size_t)fleet_size, sizeof *r.hello);
    r.heard = calloc((size_t)fleet_size, sizeof *r.heard);
    r.group = calloc((size_t)fleet_size, sizeof *r.group);
    r.told = calloc((size_t)fleet_size, sizeof *r.told);
    r.last = calloc((size_t)fleet_size, sizeof *r.last);
    if (!r.hello || !r.heard || !r.group || !r.told || !r.last ||
        fleet_out_init(&r.f, o, p, cat, base, fleet_size)) {
        fprintf(stderr, "compare: out of memory\n");
        fleet_abort = 1;
        return 1;
    }
    for (int i = 0; i < fleet_size; i++) r.f.m[i].rank = r.f.info[i].rank = i;
    r.f.stop_why = "the job was stopped before it finished (a signal: an interruption, or mpirun ending the job "
                   "because a rank died)";
    own.info.git_commit = base->git_commit;
    r.hello[0] = own;
    r.heard[0] = 1;
    rc = fleet_root_run(&r);
    /* everyone still there finishes; with a rank missing (or an interrupted
     * run, whose ranks may still be sending) the job ends in MPI_Abort, not
     * in MPI_Finalize, which would wait for them */
    fleet_abort = *stop != 0;
    for (int i = 1; i < fleet_size; i++) {
        fleet_abort |= r.f.m[i].state == FLEET_MISSING;
        if (r.heard[i] && !r.told[i] && r.f.m[i].state != FLEET_FAILED) fleet_send_order(i, 0, *stop ? rc : -1);
    }
    if (r.thread_started) pthread_join(r.thread, NULL);
    fleet_relay_free(r.relay);
    api->close(dev);
    fleet_out_free(&r.f);
    free(r.hello);
    free(r.heard);
    free(r.group);
    free(r.told);
    free(r.last);
    return rc;
}
