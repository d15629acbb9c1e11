/* tests/test_fleet.c (cpu): many GPUs without a GPU (src/core/fleet.c,
 * fleet_relay.c): which devices --device names, which GPU an MPI rank
 * takes, which ranks share a GPU, the ERROR rows of a GPU that could not
 * run, rows through the MPI record and back, the fleet summary (4 GPUs,
 * one slow: flagged; the threshold's edge; ties at the median), and the
 * relay that carries rows from device threads to the main thread. */
#include <pthread.h>
#include <string.h>

#include "cli.h"
#include "fleet.h"
#include "fleet_relay.h"
#include "plan.h"
#include "testlib.h"

static const op_info ops[] = {
    {"sgemm", OP_SIZE_GEMM, OP_RATE_TFLOPS, OP_PEAK_FP32, "cublas_fp32", "cublas_tf32", {NULL}, {NULL, NULL}, "",
     {OP_AXIS_M, OP_AXIS_N, OP_AXIS_K}},
    {"sort", OP_SIZE_ELEMS, OP_RATE_GKEYS, OP_PEAK_NONE, "thrust", "cub", {"u32", "f32"}, {NULL, NULL}, "",
     {OP_AXIS_ELEMS, OP_AXIS_TYPE}},
};
static const variant_info vars[] = {
    {"sgemm", "naive", 0, "fp32", NULL, 0, "builtin", ""},
    {"sgemm", "cublas_fp32", 1, "fp32", NULL, 0, "builtin", ""},
    {"sgemm", "cublas_tf32", 1, "tf32", NULL, 0, "builtin", ""},
    {"sgemm", "tf32_mma", 0, "tf32", "cublas_tf32", 0, "builtin", ""},
    {"sort", "radix", 0, "types", NULL, 0, "builtin", ""},
    {"sort", "thrust", 1, "types", NULL, 0, "builtin", ""},
    {"sort", "cub", 1, "types", NULL, 0, "builtin", ""},
};
static const catalog cat = {ops, 2, vars, (int)(sizeof vars / sizeof vars[0])};

static int parse(cli_options *o, const char *device)
{
    char err[256];
    char *argv[] = {"compare", "--device", (char *)device, NULL};
    return cli_parse(device ? 3 : 1, argv, o, err, sizeof err);
}

static void test_devices(void)
{
    cli_options o;
    int d[CLI_MAX_DEVICES], n = -1;
    char err[256] = "";
    CHECK(parse(&o, "all") == 0 && o.device_all, "--device all");
    CHECK(fleet_devices(&o, 3, d, &n, err, sizeof err) == 0 && n == 3 && d[0] == 0 && d[2] == 2, "all of 3: %d", n);
    CHECK(parse(&o, "2,0") == 0 && o.device_count == 2 && o.device == 2, "--device 2,0");
    CHECK(fleet_devices(&o, 3, d, &n, err, sizeof err) == 0 && n == 2 && d[0] == 2 && d[1] == 0, "2,0 of 3");
    CHECK(fleet_devices(&o, 2, d, &n, err, sizeof err) == 2 && strstr(err, "--device 2: only 2 CUDA devices present"),
          "2,0 of 2: %s", err);
    CHECK(parse(&o, "0,0") == 2 && parse(&o, "1,x") == 2 && parse(&o, "") == 2 && parse(&o, "0,") == 2 &&
              parse(&o, "1024") == 2 && parse(&o, "+1") == 2,
          "bad --device lists accepted");
    CHECK(parse(&o, "5") == 0 && o.device_count == 1 && o.device == 5 && !o.device_all, "--device 5 (one)");

    /* MPI: the GPU of node-local rank lr */
    CHECK(parse(&o, NULL) == 0, "defaults");
    CHECK(fleet_rank_device(&o, 0, 2) == 0 && fleet_rank_device(&o, 1, 2) == 1 && fleet_rank_device(&o, 2, 2) == 0 &&
              fleet_rank_device(&o, 3, 1) == 0,
          "default: local rank modulo the devices present");
    CHECK(parse(&o, "3") == 0 && fleet_rank_device(&o, 0, 8) == 3 && fleet_rank_device(&o, 5, 8) == 3, "--device 3");
    CHECK(parse(&o, "6,7") == 0 && fleet_rank_device(&o, 0, 8) == 6 && fleet_rank_device(&o, 1, 8) == 7 &&
              fleet_rank_device(&o, 2, 8) == 6,
          "--device 6,7: the list by local rank");
    CHECK(parse(&o, "all") == 0 && fleet_rank_device(&o, 3, 2) == 1, "--device all: local rank modulo present");
}

static fleet_member member(const char *host, int rank, int device, const char *pci)
{
    fleet_member m;
    memset(&m, 0, sizeof m);
    snprintf(m.host, sizeof m.host, "%s", host);
    snprintf(m.pci_bus_id, sizeof m.pci_bus_id, "%s", pci);
    m.rank = rank;
    m.device = device;
    m.state = FLEET_DONE;
    return m;
}

static void test_groups(void)
{
    fleet_member m[5] = {member("a", 0, 0, "0000:19:00.0"), member("a", 1, 0, "0000:19:00.0"),
                         member("a", 2, 1, "0000:3b:00.0"), member("b", 3, 0, "0000:19:00.0"),
                         member("a", 4, 7, "")};
    int g[5];
    CHECK(fleet_turn_groups(m, 5, 0, g) == 1, "one shared GPU");
    CHECK(g[0] == 0 && g[1] == 0 && g[2] == 2 && g[3] == 3 && g[4] == 4,
          "groups %d %d %d %d %d (same bus id on another host is another GPU)", g[0], g[1], g[2], g[3], g[4]);
    CHECK(fleet_turn_groups(m, 5, 1, g) == 1 && g[1] == 0 && g[3] == 0 && g[4] == 0, "--fleet-serial: one group");
    CHECK(fleet_turn_groups(m + 2, 3, 0, g) == 0, "no GPU shared");
}

typedef struct {
    int cases, rows;
    result_row last[8];
} collect;

static void collect_case(void *ctx, result_row *rows, int count)
{
    collect *c = ctx;
    c->cases++;
    c->rows += count;
    for (int i = 0; i < count && i < 8; i++) c->last[i] = rows[i];
}

static void test_error_rows(void)
{
    cli_options o;
    plan p;
    char err[256];
    collect c;
    char names[] = "naive,radix"; /* cli_parse splits lists in place */
    char *argv[] = {"compare", "--n", "100", "--elems", "1000", "--variants", names, NULL};
    memset(&c, 0, sizeof c);
    CHECK(cli_parse(7, argv, &o, err, sizeof err) == 0 && cli_resolve(&o, &cat, err, sizeof err) == 0, "%s", err);
    CHECK(plan_build(&p, &o, &cat, err, sizeof err) == 0, "plan: %s", err);
    fleet_error_rows(&p, &cat, "device 1023: --device 1023: only 1 CUDA device present (0..0)", collect_case, &c);
    /* sgemm: naive + its two library rows; sort u32 and f32: radix + two libraries */
    CHECK(c.cases == 3 && c.rows == 9, "%d cases, %d rows", c.cases, c.rows);
    /* the last case: sort f32 */
    CHECK(strcmp(c.last[0].op, "sort") == 0 && c.last[0].elems == 1000 && strcmp(c.last[0].math, "f32") == 0,
          "sort row: %s %lld %s", c.last[0].op, c.last[0].elems, c.last[0].math);
    for (int i = 0; i < 3; i++) {
        const result_row *r = &c.last[i];
        CHECK(r->status == STATUS_ERROR && strstr(r->message, "only 1 CUDA device") && r->time_ms.count == 0 &&
                  r->tflops < 0 && r->pct_ref < 0,
              "row %d: status %d, message '%s'", i, r->status, r->message);
        CHECK(r->library ? r->ref_library == NULL : strcmp(r->ref_library, "thrust") == 0, "row %d ref", i);
    }
    CHECK(strcmp(c.last[2].variant, "radix") == 0 && !c.last[2].library, "the hand row last: %s", c.last[2].variant);
    plan_free(&p);
}

static void test_wire(void)
{
    result_row r, back;
    static fleet_wire_row w;
    double samples[3] = {1, 2, 3};
    results_row_clear(&r);
    r.op = "sgemm";
    r.variant = "tf32_mma";
    r.library = 0;
    r.math = "tf32";
    r.source = "libmine.so";
    r.ref_library = "cublas_tf32";
    r.best_library = "cublas_tf32";
    r.dist = NULL;
    snprintf(r.case_label, sizeof r.case_label, "sgemm 4096x14336x4096");
    snprintf(r.throttle, sizeof r.throttle, "sw_power_cap|hw_slowdown");
    snprintf(r.message, sizeof r.message, "a, \"quoted\" message");
    r.m = 4096;
    r.n = 14336;
    r.k = 4096;
    r.status = STATUS_OK;
    r.time_ms.count = 3;
    r.time_ms.median = 1.25;
    r.samples_ms = samples;
    r.tflops = 384.5;
    r.pct_ref = 87.5;
    r.sm_clock_mhz = 1755;
    fleet_wire_pack(&r, &w);
    CHECK(w.row.op == NULL && w.row.variant == NULL && w.row.samples_ms == NULL && w.row.ref_library == NULL,
          "pointers travel as NULL");
    memset(&r, 0x5a, sizeof r.op); /* the sender's strings are gone on the other side */
    fleet_wire_unpack(&w, &back);
    CHECK(strcmp(back.op, "sgemm") == 0 && strcmp(back.variant, "tf32_mma") == 0 && strcmp(back.math, "tf32") == 0 &&
              strcmp(back.source, "libmine.so") == 0 && strcmp(back.ref_library, "cublas_tf32") == 0,
          "strings back");
    CHECK(back.op == w.op && back.dist == NULL && back.speedup_vs == NULL && back.samples_ms == NULL,
          "into the record; NULL stays NULL");
    CHECK(back.m == 4096 && back.n == 14336 && back.time_ms.count == 3 && back.time_ms.median == 1.25 &&
              back.tflops == 384.5 && back.pct_ref == 87.5 && back.sm_clock_mhz == 1755 && back.gbps < 0,
          "figures back");
    CHECK(strcmp(back.throttle, "sw_power_cap|hw_slowdown") == 0 && strcmp(back.message, "a, \"quoted\" message") == 0,
          "text fields back");
}

/* A timed row of 4096^3 sgemm at `tflops` (the median time from it). */
static result_row timed(const char *variant, int library, double tflops, double pct_ref)
{
    result_row r;
    results_row_clear(&r);
    r.op = "sgemm";
    r.variant = variant;
    r.library = library;
    r.rate = OP_RATE_TFLOPS;
    snprintf(r.case_label, sizeof r.case_label, "sgemm m=n=k=4096");
    r.status = STATUS_OK;
    r.time_ms.count = 10;
    r.flops = 2.0 * 4096.0 * 4096.0 * 4096.0;
    r.time_ms.median = r.flops / (tflops * 1e12) * 1e3;
    r.tflops = tflops;
    r.pct_ref = library ? -1 : pct_ref;
    return r;
}

/* Runs the summary of 4 GPUs whose cublas_fp32 rows ran at lib[i] TFLOP/s
 * (a hand row beside each); returns the flags, output in out. */
static int summary4(const double lib[4], double threshold, char *out, size_t len, int error_gpu)
{
    fleet_summary s;
    fleet_member m[4];
    FILE *f = fmemopen(out, len, "w");
    int flagged;
    fleet_summary_init(&s);
    for (int i = 0; i < 4; i++) {
        char host[16];
        result_row rows[2];
        snprintf(host, sizeof host, "node%d", i / 2);
        m[i] = member(host, i, i % 2, i % 2 ? "0000:3b:00.0" : "0000:19:00.0");
        rows[0] = timed("cublas_fp32", 1, lib[i], -1);
        rows[1] = timed("naive", 0, 2.0 + i, (2.0 + i) / lib[i] * 100);
        if (i == 3) {
            rows[0].sm_clock_mhz = 1410;
            rows[0].sm_clock_min_mhz = 1200;
            snprintf(rows[0].throttle, sizeof rows[0].throttle, "hw_thermal_slowdown");
        }
        if (i == error_gpu) {
            rows[0].status = rows[1].status = STATUS_ERROR;
            m[i].state = FLEET_FAILED;
            snprintf(m[i].why, sizeof m[i].why, "device 1023: no such device");
        }
        fleet_summary_add(&s, i, rows, 2);
        m[i].rows = 2;
    }
    flagged = fleet_summary_print(f, &s, m, 4, threshold);
    fclose(f);
    fleet_summary_free(&s);
    return flagged;
}

static void test_summary(void)
{
    static char out[8192];
    const double slow[4] = {50.0, 51.0, 52.0, 40.0};
    const double edge[4] = {100.0, 100.0, 95.0, 100.0};
    const double tie[4] = {100.0, 100.0, 90.0, 90.0};
    const double same[4] = {60.0, 60.0, 60.0, 60.0};

    /* one slow GPU among 4: median 50.5, 40 is 20.8% below */
    CHECK(summary4(slow, 5.0, out, sizeof out, -1) == 1, "one flag expected:\n%s", out);
    CHECK(strstr(out, "FLEET SUMMARY: 4 GPUs on 2 hosts: 4 ran, 0 failed, 0 missing"), "header:\n%s", out);
    CHECK(strstr(out, "SLOW sgemm m=n=k=4096 cublas_fp32: rank 3 on node1 GPU 1 (0000:3b:00.0): 40.00 TFLOP/s, "
                      "20.8% below the fleet median 50.50 (SM clock 1410 MHz mean, 1200 min; throttle: "
                      "hw_thermal_slowdown)"),
          "the slow GPU's line:\n%s", out);
    CHECK(strstr(out, "cublas_fp32      4/4         -         -         -     40.00     50.50     52.00  TFLOP/s"),
          "library line (no %%ref; min, median, max of throughput):\n%s", out);
    /* naive: 2,3,4,5 TFLOP/s; %ref 4, 5.88, 7.69, 12.5 */
    CHECK(strstr(out, "naive            4/4      4.00      6.79     12.50      2.00      3.50      5.00  TFLOP/s"),
          "hand line:\n%s", out);
    /* a higher threshold lets it pass */
    CHECK(summary4(slow, 25.0, out, sizeof out, -1) == 0 && strstr(out, "no GPU more than 25% below"), "25%%:\n%s",
          out);

    /* exactly 5% below the median is not "more than" 5% */
    CHECK(summary4(edge, 5.0, out, sizeof out, -1) == 0, "5%% below at threshold 5 flagged:\n%s", out);
    CHECK(summary4(edge, 4.9, out, sizeof out, -1) == 1 && strstr(out, "rank 2 on node1 GPU 0"), "4.9:\n%s", out);
    CHECK(summary4(edge, 0.0, out, sizeof out, -1) == 1, "threshold 0 flags anything below the median");
    CHECK(fleet_is_slow(95.0, 100.0, 5.0) == 0 && fleet_is_slow(94.99, 100.0, 5.0) == 1 &&
              fleet_is_slow(100.0, 100.0, 0.0) == 0 && fleet_is_slow(-1.0, 100.0, 5.0) == 0,
          "fleet_is_slow at the edges");

    /* ties: two at 100, two at 90: the median is 95, both 90s are 5.3% below */
    CHECK(summary4(tie, 5.0, out, sizeof out, -1) == 2, "ties: two flags expected:\n%s", out);
    CHECK(strstr(out, "rank 2 on node1 GPU 0") && strstr(out, "rank 3 on node1 GPU 1") &&
              strstr(out, "5.3% below the fleet median 95.00"),
          "ties:\n%s", out);
    CHECK(summary4(same, 5.0, out, sizeof out, -1) == 0, "all equal: none flagged:\n%s", out);

    {
        /* two ranks that took turns on one GPU, and a third whose GPU never opened */
        fleet_summary s;
        fleet_member m[3] = {member("h", 0, 0, "0000:19:00.0"), member("h", 1, 0, "0000:19:00.0"),
                             member("h", 2, 1023, "")};
        result_row r = timed("cublas_fp32", 1, 50.0, -1);
        FILE *f = fmemopen(out, sizeof out, "w");
        m[2].state = FLEET_FAILED;
        fleet_summary_init(&s);
        fleet_summary_add(&s, 0, &r, 1);
        fleet_summary_add(&s, 1, &r, 1);
        fleet_summary_print(f, &s, m, 3, 5.0);
        fclose(f);
        fleet_summary_free(&s);
        CHECK(strstr(out, "FLEET SUMMARY: 3 ranks on 2 GPUs on 1 host: 2 ran, 1 failed, 0 missing") &&
                  strstr(out, "cublas_fp32      2/2"),
              "ranks sharing a GPU:\n%s", out);
    }

    /* a GPU that could not run: not in the figures, named at the end */
    CHECK(summary4(slow, 5.0, out, sizeof out, 3) == 0, "the slow GPU failed instead:\n%s", out);
    CHECK(strstr(out, "cublas_fp32      3/4") && strstr(out, "3 ran, 1 failed, 0 missing") &&
              strstr(out, "FAILED rank 3 on node1 GPU 1: device 1023: no such device (2 ERROR rows"),
          "failed GPU:\n%s", out);
}

// ---------------------------------------------------------------------------
// the relay: 3 device threads, 40 cases each, to the main thread

#define RELAY_LANES 3
#define RELAY_CASES 40

typedef struct {
    fleet_relay *r;
    int lane;
} relay_worker;

static void *relay_worker_main(void *arg)
{
    relay_worker *w = arg;
    for (int c = 0; c < RELAY_CASES; c++) {
        result_row rows[2];
        results_row_clear(&rows[0]);
        results_row_clear(&rows[1]);
        rows[0].m = w->lane;
        rows[0].n = c;
        rows[1].m = w->lane;
        rows[1].n = c;
        fleet_relay_post(w->r, w->lane, rows, 2);
        /* the main thread is done with them: scribble */
        rows[0].m = rows[1].m = -7;
    }
    fleet_relay_finish(w->r, w->lane, 10 + w->lane);
    return NULL;
}

static void test_relay(void)
{
    fleet_relay *r = fleet_relay_new(RELAY_LANES);
    relay_worker w[RELAY_LANES];
    pthread_t t[RELAY_LANES];
    int next[RELAY_LANES] = {0}, finished = 0, bad = 0, rcs = 0;
    CHECK(r != NULL, "relay");
    if (!r) return;
    for (int i = 0; i < RELAY_LANES; i++) {
        w[i] = (relay_worker){r, i};
        pthread_create(&t[i], NULL, relay_worker_main, &w[i]);
    }
    for (;;) {
        int lane = -1, count = 0, rc = 0;
        result_row *rows = NULL;
        fleet_relay_event ev = fleet_relay_next(r, 5000, &lane, &rows, &count, &rc);
        if (ev == FLEET_RELAY_ALL_DONE) break;
        if (ev == FLEET_RELAY_IDLE) {
            bad++; /* 5 s without an event: a lost wake-up */
            break;
        }
        if (ev == FLEET_RELAY_CASE) {
            /* in order per lane, intact while handled */
            if (count != 2 || rows[0].m != lane || rows[1].m != lane || rows[0].n != next[lane]) bad++;
            next[lane]++;
            fleet_relay_done(r, lane);
        } else if (ev == FLEET_RELAY_FINISHED) {
            finished++;
            rcs += rc;
            if (next[lane] != RELAY_CASES) bad++; /* finished before its last case was handled */
        }
    }
    for (int i = 0; i < RELAY_LANES; i++) pthread_join(t[i], NULL);
    CHECK(bad == 0, "%d relay errors", bad);
    CHECK(finished == RELAY_LANES && rcs == 10 + 11 + 12, "finished %d, rc sum %d", finished, rcs);
    CHECK(next[0] == RELAY_CASES && next[1] == RELAY_CASES && next[2] == RELAY_CASES, "cases %d %d %d", next[0],
          next[1], next[2]);
    fleet_relay_free(r);

    /* closed: a post returns at once, unhandled (an interrupted run) */
    r = fleet_relay_new(1);
    fleet_relay_close(r);
    {
        relay_worker one = {r, 0};
        pthread_t th;
        int lane, count, rc;
        result_row *rows;
        pthread_create(&th, NULL, relay_worker_main, &one);
        pthread_join(th, NULL); /* would hang if posts waited */
        CHECK(fleet_relay_next(r, 0, &lane, &rows, &count, &rc) == FLEET_RELAY_FINISHED && rc == 10,
              "closed relay: the finish still arrives");
        CHECK(fleet_relay_next(r, 0, &lane, &rows, &count, &rc) == FLEET_RELAY_ALL_DONE, "then all done");
    }
    fleet_relay_free(r);
}

int main(void)
{
    test_devices();
    test_groups();
    test_error_rows();
    test_wire();
    test_summary();
    test_relay();
    return test_finish("test_fleet");
}
