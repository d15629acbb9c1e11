/* src/fleet_mpi.h: compare-mpi, `mpirun -np N ./compare-mpi [options]`.
 * Every rank parses the same options and builds the same plan, takes the
 * GPU of its node-local rank, and runs the plan; rank 0 gathers every row
 * into one report, one CSV and the fleet summary (src/fleet_run.h). Only
 * this file and src/main.c built with COMPARE_MPI see MPI. */
#ifndef COMPARE_FLEET_MPI_H
#define COMPARE_FLEET_MPI_H

#include <signal.h>

#include "gpu_api.h"
#include "plan.h"

/* MPI_Init_thread (funneled: rank 0's own GPU runs on a thread that never
 * calls MPI), errors returned rather than fatal. Returns this rank. */
int fleet_mpi_init(int *argc, char ***argv);
/* MPI_Finalize (every rank waits there for the others, so rank 0 has
 * written everything before any rank's exit status can end the job);
 * returns rc. */
int fleet_mpi_finalize(int rc);

/* The fleet run of this rank, base = its run_info without the device.
 * Returns this rank's exit code: rank 0's is the fleet's (0 all ran and
 * passed, 1 a rank failed, went missing or a variant failed, 2 bad usage,
 * 77 no rank has a usable GPU, 130/143 interrupted). */
int fleet_mpi_run(const compare_gpu_api *api, const cli_options *o, const plan *p, const catalog *cat,
                  const run_info *base, volatile sig_atomic_t *stop);

#endif
