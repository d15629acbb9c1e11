/* tests/fleetlib.h: what the fleet tests (test_fleet_cli, test_mpi_fleet)
 * share: telling from the fake GPU library's log whether GPUs ran at once. */
#ifndef TESTS_FLEETLIB_H
#define TESTS_FLEETLIB_H

/* From a FAKE_GPU_LOG file: 1 if a case of one (process, device) began
 * while a case of another was running, 0 if never, -1 if the log is
 * missing or has no complete case. */
int fleet_log_overlap(const char *path);

#endif
