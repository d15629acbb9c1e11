/* src/core/report.h: stdout reports: the terminal table, Markdown and JSON.
 * Streamed case by case, so an interrupted run still shows what finished. */
#ifndef COMPARE_REPORT_H
#define COMPARE_REPORT_H

#include <stdio.h>

#include "cli.h"
#include "results.h"

typedef struct {
    FILE *out;              /* where the report goes (stdout) */
    cli_format format;      /* table, md or json */
    const run_info *info;   /* device block and run metadata */
    int rows_written;       /* JSON: rows so far (for commas) */
    long long flush_bytes;  /* the L2-flush buffer size (0 = no flush) */
} report;

void report_begin(report *rp, FILE *out, cli_format format, const run_info *info, long long flush_bytes);
/* One case: rows of one op at one size (and key type). */
void report_case(report *rp, const result_row *rows, int count);
/* Ends the report (JSON closes its document); exit_status is recorded. */
void report_end(report *rp, int exit_status);
/* Writes s as a JSON string literal. */
void report_json_string(FILE *f, const char *s);

#endif
