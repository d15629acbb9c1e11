/* tests/testlib.h: the tiny assertion kit every test program uses.
 * CHECK(cond, fmt, ...) records a failure with file:line and goes on;
 * test_finish() prints "N passed, N failed" and returns the exit status
 * (0 all passed, 1 otherwise). No CUDA here: the cpu tests link none; the gpu
 * tests add testlib_gpu.h (test_require_gpu, CK). */
#ifndef TESTS_TESTLIB_H
#define TESTS_TESTLIB_H

#include <stdio.h>
#include <stdlib.h>

#include "results.h"

extern int test_passed;
extern int test_failed;

#define CHECK(cond, ...)                                                        \
    do {                                                                        \
        if (cond) {                                                             \
            test_passed++;                                                      \
        } else {                                                                \
            test_failed++;                                                      \
            fprintf(stderr, "%s:%d: CHECK(%s) failed: ", __FILE__, __LINE__, #cond); \
            fprintf(stderr, __VA_ARGS__);                                       \
            fputc('\n', stderr);                                                \
        }                                                                       \
    } while (0)

int test_finish(const char *name);

/* Output of a child process run by test_run. */
typedef struct {
    int status;        /* exit code, 128 + signal if killed, -1 if it could not start */
    char out[65536];   /* stdout (truncated) */
    char err[16384];   /* stderr (truncated) */
} test_proc;

/* Runs argv (argv[0] is a path; NULL-terminated) with `env` entries
 * ("NAME=value", NULL-terminated, may be NULL) added to the environment.
 * If signal_after_s > 0, sends `sig` to it after that many seconds. Kills it
 * after timeout_s seconds. */
void test_run(char *const argv[], char *const env[], double signal_after_s, int sig, double timeout_s,
              test_proc *p);
/* When set (non-NULL), test_run's signal waits, beyond signal_after_s, until
 * the child's stdout holds this text (a row of the table: the first case has
 * finished), so that an interrupt test does not depend on how fast the GPU
 * got there. Reset to NULL by the caller. */
extern const char *test_signal_after_out;
/* How many times test_run sends the signal, back to back (default 1; 2 is
 * what coreutils `timeout` does: to the child, then to its process group). */
extern int test_signal_repeat;

/* Runs `bin` with args (NULL-terminated, at most 14) and CHECKs that it is a
 * usage error: exit 2 with `needle` in its stderr. */
void test_usage_error(const char *bin, const char *const *args, const char *needle);

/* 1 if haystack contains needle. */
int test_contains(const char *haystack, const char *needle);

/* Occurrences of needle in text (overlapping ones too). */
int test_count(const char *text, const char *needle);
/* The whole file, NUL-terminated (malloc'ed), or NULL if it cannot be read. */
char *test_read_file(const char *path);

/* 1 if path exists (any kind of file). */
int test_file_exists(const char *path);
/* Entries of a directory other than . and .., -1 if it cannot be read. */
int test_dir_entries(const char *dir);

/* Fills *info with a fixed H200-like run (2026-01-02T03:04:05Z, commit
 * 0123456789ab, seed 2026, L2 flush on, 132 SMs at 1980 MHz, HBM 3201 MHz x
 * 6016 bit, CUDA 13.0, cuBLAS 13.1.0) named device_name. */
void test_h200_run_info(run_info *info, const char *device_name);

/* A parsed CSV text (RFC 4180): records end with LF or CRLF; quoted fields
 * may hold , " CR LF with "" for a quote. Fields are malloc'd. */
#define TEST_CSV_MAX_FIELDS 96
#define TEST_CSV_MAX_RECORDS 1024
typedef struct {
    int nrec;                                                      /* records, the header included */
    int nfield[TEST_CSV_MAX_RECORDS];                              /* fields per record */
    char *field[TEST_CSV_MAX_RECORDS][TEST_CSV_MAX_FIELDS];        /* the fields */
    int ok; /* 0 on a syntax error (a stray quote, text after a closing quote) or past TEST_CSV_MAX_RECORDS */
} test_csv_doc;

void test_csv_parse(const char *text, test_csv_doc *d);
void test_csv_doc_free(test_csv_doc *d);
/* The cell of record r in the column named `name` ("<missing>" if none). */
const char *test_csv_cell(const test_csv_doc *d, int r, const char *name);

/* Path of the compare binary (set by CMake). */
#ifndef COMPARE_BIN
#define COMPARE_BIN "./compare"
#endif

#endif
