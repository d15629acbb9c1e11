/* src/core/fleet.h: many GPUs in one run, the parts that are plain logic.
 * A fleet is a list of members, one per GPU run: the devices of
 * `--device all|N,M` in one process, or the ranks of compare-mpi. Here:
 * which devices run, which GPU an MPI rank takes, which members share a GPU
 * (they must take turns), the ERROR rows of a member that could not run,
 * rows as fixed-size records for MPI, and the fleet summary (min, median,
 * max of each case and variant across GPUs; GPUs below the median of a
 * library row flagged). No MPI and no CUDA here: the cpu tests pin it down. */
#ifndef COMPARE_FLEET_H
#define COMPARE_FLEET_H

#include <stdio.h>

#include "catalog.h"
#include "cli.h"
#include "plan.h"
#include "results.h"

// ---------------------------------------------------------------------------
// which GPUs

/* The ordinals --device names on a machine with `present` devices (all:
 * 0..present-1). Returns 0 with out[0..*n), or 2 with err naming the
 * ordinal that is not there. */
int fleet_devices(const cli_options *o, int present, int *out, int *n, char *err, size_t err_len);

/* The GPU of an MPI rank that is `local_rank` on its node: the
 * local_rank-th (modulo) of --device's list when given, else local_rank
 * modulo the devices present. */
int fleet_rank_device(const cli_options *o, int local_rank, int present);

// ---------------------------------------------------------------------------
// members

typedef enum {
    FLEET_WAITING = 0, /* known, not yet heard from / not yet run */
    FLEET_FAILED,      /* its GPU could not be opened: ERROR rows stand for its plan */
    FLEET_RUNNING,     /* running its plan */
    FLEET_DONE,        /* finished (rc says how) */
    FLEET_MISSING      /* died or went silent: its rows may be partial */
} fleet_state;

typedef struct {
    char host[64];        /* hostname */
    int rank;             /* MPI rank, -1 without MPI */
    int device;           /* CUDA ordinal */
    char pci_bus_id[32];  /* "" when its GPU never opened */
    fleet_state state;
    int rc;               /* its run's exit code (FLEET_DONE) */
    long rows;            /* rows received from it */
    char why[256];        /* FAILED / MISSING: the reason */
} fleet_member;

/* "rank 1 on node7 GPU 0" or "GPU 2" (no rank). */
void fleet_member_name(const fleet_member *m, char *buf, size_t len);

/* Turn groups: members that share a GPU (same host and PCI bus id) run one
 * after another, each group on its own; with `serial` every member is in
 * one group. group[i] = the index of the first member of i's group. A
 * member with no PCI bus id (its GPU never opened) is a group of its own.
 * Returns the number of groups with more than one member. */
int fleet_turn_groups(const fleet_member *m, int n, int serial, int *group);

// ---------------------------------------------------------------------------
// rows

/* Row i of case pc as the run names it, before any figure: op, variant,
 * library, math (the case's type for "types"), source, case label, rate,
 * peak, distribution, sizes, and the libraries a hand row is taken against. */
void fleet_case_row(const plan_case *pc, const catalog *cat, int i, result_row *r);

/* Calls emit once per case of the plan with an ERROR row for each of its
 * variants (names, sizes and distribution as the run would have had them),
 * message `why`: what stands in the CSV for a GPU that could not run. */
void fleet_error_rows(const plan *p, const catalog *cat, const char *why,
                      void (*emit)(void *ctx, result_row *rows, int count), void *ctx);

/* A row as a fixed-size record (the same binary on every rank: plain
 * bytes). The row's pointers are NULL on the wire; their strings travel in
 * the arrays; the samples do not travel. */
typedef struct {
    result_row row;
    char op[32], variant[64], math[16], source[128], dist[16];
    char speedup_vs[64], ref_library[64], best_library[64];
    unsigned char set;    /* bit i: pointer i (in the order above) was non-NULL */
} fleet_wire_row;

void fleet_wire_pack(const result_row *r, fleet_wire_row *w);
/* Fills *r from *w; r's strings point into w (keep w while r is used). */
void fleet_wire_unpack(const fleet_wire_row *w, result_row *r);

// ---------------------------------------------------------------------------
// the fleet summary

typedef struct {
    int member;           /* index into the members */
    char case_label[96];  /* the case */
    char variant[64];
    int library;
    const char *unit;     /* throughput unit (static string) */
    status_t status;
    double pct_ref;       /* < 0 n/a */
    double tput;          /* < 0 n/a */
    double sm_clock_mhz, sm_clock_min_mhz; /* < 0 unknown */
    char throttle[160];
} fleet_point;

typedef struct {
    fleet_point *p;
    int n, cap;
} fleet_summary;

void fleet_summary_init(fleet_summary *s);
void fleet_summary_free(fleet_summary *s);
/* Records the rows of a case of `member` (figures of timed ok rows only). */
void fleet_summary_add(fleet_summary *s, int member, const result_row *rows, int count);

/* Prints the FLEET SUMMARY: per case and variant, in order of first
 * appearance, the GPUs that ran it ok of those that reported it, min,
 * median and max of % of the reference library (hand rows) and of the
 * throughput; then every GPU whose throughput on a library row is more
 * than threshold_pct below that row's median across GPUs (clocks and
 * throttle reasons when NVML gave them); then members that failed or are
 * missing. Returns the number of flagged (GPU, row) pairs. */
int fleet_summary_print(FILE *f, const fleet_summary *s, const fleet_member *m, int n, double threshold_pct);

/* 1 if a throughput `tput` is more than threshold_pct below `median`. */
int fleet_is_slow(double tput, double median, double threshold_pct);

#endif
