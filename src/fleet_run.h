/* src/fleet_run.h: running the plan on many GPUs and writing what they
 * measured, on the main thread: one report section and one device block
 * per GPU, one CSV whose rows carry each GPU's host, rank and device
 * columns, and the fleet summary at the end. Used by `compare --device
 * all|N,M` (fleet_local) and by compare-mpi's rank 0 (src/fleet_mpi.c). */
#ifndef COMPARE_FLEET_RUN_H
#define COMPARE_FLEET_RUN_H

#include <signal.h>

#include "csv.h"
#include "fleet.h"
#include "gpu_api.h"
#include "report.h"

typedef struct {
    const cli_options *o;       /* the run's options */
    const plan *p;
    const catalog *cat;
    int n;                      /* members */
    fleet_member *m;            /* who, and how far */
    run_info *info;             /* per member: its run and device (the CSV's columns) */
    report *rep;                /* per member: its report (begun when it opened) */
    int *rep_begun;
    csv_writer csv;
    int csv_open, csv_failed;
    fleet_summary sum;
    int shown;                  /* member whose rows the report showed last, -1 none */
    const char *stop_why;       /* why members did not finish when the run was stopped (NULL: interrupted) */
} fleet_out;

/* Members 0..n-1, each starting from `base` (timestamp, commit, seed,
 * host, rank). 0, or -1 out of memory. */
int fleet_out_init(fleet_out *f, const cli_options *o, const plan *p, const catalog *cat, const run_info *base,
                   int n);
void fleet_out_free(fleet_out *f);
/* Opens --csv (when given): 0, or 2 with err. */
int fleet_out_open_csv(fleet_out *f, char *err, size_t err_len);
/* Member i's GPU opened (info[i].dev filled): its device block. */
void fleet_out_opened(fleet_out *f, int i, long long flush_bytes);
/* Member i could not run: FAILED, one line, and ERROR rows for its plan. */
void fleet_out_failed(fleet_out *f, int i, const char *why);
/* A case of member i: the report, the CSV, the summary. */
void fleet_out_rows(fleet_out *f, int i, result_row *rows, int count);
/* Ends the reports, commits the CSV, prints the summary. Returns rc, made
 * 1 when a member failed, went missing or the CSV could not be written
 * (an interruption's 130/143 is kept). */
int fleet_out_finish(fleet_out *f, int rc, int interrupted);

/* `compare --device all|N,M` in one process: the plan on each device, one
 * after another or (--parallel-devices) at once, a thread each. devices[]
 * are valid ordinals. Returns the exit code. */
int fleet_local(const compare_gpu_api *api, const cli_options *o, const plan *p, const catalog *cat,
                const run_info *base, const int *devices, int n, volatile sig_atomic_t *stop);

/* The exit code of an interrupted run (130 SIGINT, 143 SIGTERM). */
int fleet_signal_rc(int sig);

#endif
