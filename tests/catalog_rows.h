/* tests/catalog_rows.h: the gpu tests' view of the catalog. A test that
 * calls kernels directly (exact arithmetic, unaligned pointers, guard words,
 * bad arguments: what the run loop's random inputs cannot reach) takes the
 * rows it calls from the op's variant table, not from a list of its own, so
 * a kernel added to an op is tested the day its row is added:
 *   - catalog_hand_rows: the op's hand rows with a launcher (v->fn, and
 *     v->fn2 for the op's second element type, of the contract its
 *     src/gpu/op_<name>.c documents), in catalog order;
 *   - catalog_check_library_rows: fails the test when the op has a library
 *     row the test has no call for;
 *   - catalog_case, catalog_row_runs, catalog_row_workspace: a case of given
 *     sizes, whether a row takes it on this device (its supports hook: a test
 *     never calls a launcher behind it), and its scratch bytes (its
 *     workspace hook). */
#ifndef TESTS_CATALOG_ROWS_H
#define TESTS_CATALOG_ROWS_H

#include <stddef.h>

#include "op.h"

#define CATALOG_ROWS_MAX 64

/* The hand rows of op with a launcher (built in, not test-only; the CPU
 * rows have none), at most max of them, in catalog order; their count.
 * CHECKs the op exists and has at least one. */
int catalog_hand_rows(const char *op, const variant **rows, int max);
/* CHECKs that every library row of op is named in names[0 .. count). */
void catalog_check_library_rows(const char *op, const char *const *names, int count);
/* A case of op with these sizes (0 / NULL where the op has no such axis). */
plan_case catalog_case(const char *op, long long m, long long n, long long k, long long elems, const char *type);
/* 1 when v takes pc on device 0 (no supports hook, or it accepts); else 0,
 * with a "SKIP" line giving the reason. */
int catalog_row_runs(const variant *v, const plan_case *pc);
/* v's scratch bytes for pc (its workspace hook; 0 without one). */
size_t catalog_row_workspace(const variant *v, const plan_case *pc);

#endif
