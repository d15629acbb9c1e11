/* src/gpu/candidates.h: search candidates as hidden variants of their op's
 * table, the one tuning path (`compare --candidates FAMILY`).
 *
 * A family is one candidate table (kernels/search/: count, name and run of
 * each candidate) joined to an op: each candidate becomes a row of the op
 * named as the candidate, its source CATALOG_CANDIDATE_SOURCE FAMILY
 * (catalog_family), so that it stays out of --list and of every run until
 * --candidates names its family. It is then verified against the op's
 * reference, timed by the same harness (interleaved, clocks, L2 flush) and
 * written to the same CSV as every row; `kernel` is the candidate's name
 * (the name the picks are made by in the kernel files). A candidate has no
 * supports query: one that declines a case returns cudaErrorNotSupported
 * from its checked run and its row is SKIP (src/gpu/run.c). The buffers
 * come through the op's plugin binding (op.h), its one map of its slots.
 * Each op with candidates has a file src/gpu/op_<op>_candidates.c holding
 * its families and their adapter, listed in ops.c. */
#ifndef COMPARE_CANDIDATES_H
#define COMPARE_CANDIDATES_H

#include "attention.h"
#include "op.h"

typedef struct {
    const char *op;          /* the op it joins ("sgemm") */
    const char *source;      /* CATALOG_CANDIDATE_SOURCE FAMILY: --candidates FAMILY, the rows' source */
    const char *math;        /* the rows' math ("fp32", "tf32") */
    const char *ref_library; /* their %ref library (NULL: the op's) */
    const char *about;       /* their --list line */
    int sm90a;               /* 1: built for sm_90a only (SKIP on any other GPU) */
    int (*count)(void);      /* the table: its candidates ... */
    const char *(*name)(int i); /* ... their names ... */
    variant_fn run;          /* ... and its run (row index first), called by `adapter` */
    int (*adapter)(const op_case *c, const variant *v, cudaStream_t s); /* the rows' run */
    size_t (*workspace)(const plan_case *pc, const variant *v); /* a row's workspace (NULL: none) */
} candidate_family;

/* Makes one row per candidate of families[0 .. n) into rows[0 .. cap);
 * returns their count (a candidate past cap is left out, said on stderr). */
int candidates_build(const candidate_family *families, int n, variant *rows, int cap);

/* The op's plugin binding of a running case (inputs, outputs), for adapters. */
void candidates_bind(const op_case *c, op_plugin_binding *b);

/* Each op's rows, built once (src/gpu/op_<op>_candidates.c): *rows set, their count returned. */
int op_sgemm_candidates(const variant **rows);
int op_transpose_candidates(const variant **rows);
int op_attention_candidates(const variant **rows);

/* The attention op has no plugin binding: its adapter takes the running
 * case's launcher arguments (buffers, sizes, scale, causal, type and the
 * call's workspace slice) from the op itself (src/gpu/op_attention.c), and
 * its workspace query a planned case's (no buffers). */
attention_args op_attention_case_args(const op_case *c);
attention_args op_attention_plan_args(const plan_case *pc);

#endif
