/* src/core/csv.h: the CSV writer (RFC 4180), written to a temporary file next to
 * the target and renamed over it on commit, so an interrupted run never
 * leaves a half-written CSV nor destroys the previous one. */
#ifndef COMPARE_CSV_H
#define COMPARE_CSV_H

#include <stdio.h>

#include "results.h"

typedef struct {
    FILE *f;            /* the temporary file */
    char path[4096];    /* final path */
    char tmp[4200];     /* temporary path (same directory) */
    long rows;          /* data rows written */
} csv_writer;

/* The header line (no newline), shared with tests and plots. */
extern const char *const csv_header;

/* Writes s as one RFC 4180 field (quoted if it holds , " CR or LF). */
void csv_write_field(FILE *f, const char *s);

/* Checks that `path` can be written: its directory exists and is writable,
 * it is not a directory, and if it exists its first line is our header (we
 * never overwrite a file that is not a compare CSV). 0 or -1 with err. */
int csv_check_target(const char *path, char *err, size_t err_len);

int csv_open(csv_writer *w, const char *path, char *err, size_t err_len);
/* Appends one row and flushes it to the temporary file. */
int csv_write_row(csv_writer *w, const run_info *info, const result_row *r);
/* fsync + rename over the target. 0 or -1 with err. */
int csv_commit(csv_writer *w, char *err, size_t err_len);
/* Drops the temporary file, leaving any previous target untouched. */
void csv_abort(csv_writer *w);

/* Formats a double for a CSV cell: empty when v < 0 or NaN (n/a); an
 * integral value under 2^53 exactly ("17179869184"); else %.9g. */
void csv_format_number(char *buf, size_t len, double v);

#endif
