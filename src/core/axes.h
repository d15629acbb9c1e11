/* src/core/axes.h: the values an op's axes (catalog.h) take in a run.
 *
 * An axis's values come from, first to last: the command line (--axis
 * NAME=LIST or its shorthand; m, n, k through the GEMM shape list,
 * cli_options.gemm; elems through cli_options.elems), else the axis's
 * declared defaults. A LIST takes sizes.h's forms for the integer kinds
 * (4096, 2^26, 64M, 512:8192, 1024:8192:1024, 1024:8192:x2, lists of
 * them) and NAME[,NAME...] for an enum. The plan (plan.c) runs the product;
 * cli_resolve checks every LIST given against every op run that has it. */
#ifndef COMPARE_AXES_H
#define COMPARE_AXES_H

#include <stddef.h>

#include "catalog.h"
#include "cli.h"
#include "sizes.h"

typedef struct {
    int count;
    long long num[SIZES_MAX_COUNT];       /* integer kinds: the values, in the order given */
    const char *name[SIZES_MAX_COUNT];    /* enum: the names (the catalog's own strings) */
} axes_list;

/* Parses `list` as values of op's axis `a`. Returns 0, or -1 with a message
 * (without the option: callers add it) naming the bad part and the accepted
 * values. An option (a->option) takes exactly one value. */
int axes_parse(const op_info *op, const op_axis *a, const char *list, axes_list *out, char *err, size_t err_len);

/* The values of op's axis `axis` in the run of options o (see above; for m,
 * n and k only the defaults: the plan takes those from o->gemm when a shape
 * option was given). 0, or -1 with a message naming the option and the op. */
int axes_values(const cli_options *o, const op_info *op, int axis, axes_list *out, char *err, size_t err_len);

/* 1 for the axes the GEMM shape list feeds (m, n, k). */
int axes_is_shape_dim(const char *name);

/* "m,n,k,cpu_max_n": op's axis names. */
void axes_names(const op_info *op, char *buf, size_t len);
/* "sgemm: m,n,k,cpu_max_n; reduce: elems; ..." of every op, for messages. */
void axes_describe(const catalog *cat, char *buf, size_t len);

/* Checks the axes o sets (o->axis_args) against the catalog: each must be
 * an axis of some op, of some op that runs, and its LIST valid for each op
 * run that has it. 0, or 2 with the message (a usage error). */
int axes_check(const cli_options *o, const catalog *cat, char *err, size_t err_len);

#endif
