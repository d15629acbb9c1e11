/* src/gpu/op.h: an operation and its variants, the GPU side of the catalog.
 *
 * An op (sgemm, reduce, sort, ...) is one file src/gpu/op_<name>.c holding
 * one op_desc: its op_info row (the plain data the core sees), its hooks
 * (device memory a case needs, inputs and reference, poisoning the output,
 * verification, the row's sizes and work counts) and the table of its own
 * variants. The op table in src/gpu/ops.c lists the ops, one row each;
 * plugins add variants at start-up (src/gpu/plugin.c). The run loop
 * (src/gpu/run.c) only ever calls these hooks: it has no per-op branch.
 *
 * Adding an op = its op file + one row in ops.c. Adding a variant to an op =
 * its kernel file + one row in the op's variant table. */
#ifndef COMPARE_OP_H
#define COMPARE_OP_H

#include <stddef.h>
#include <cuda_runtime_api.h>

#include "catalog.h"
#include "compare_plugin.h"
#include "device.h"
#include "plan.h"
#include "results.h"

typedef struct variant variant;
typedef struct op_desc op_desc;

/* One case (op x size x type) while it runs. */
typedef struct {
    const plan_case *pc;       /* sizes, element type, label */
    const op_desc *op;         /* its op */
    device_ctx *dev;           /* stream, cuBLAS handle, cuRAND generator */
    unsigned long long seed;   /* the inputs' seed */
    void *data;                /* the op's buffers (its own struct), made by setup */
    void *workspace;           /* the variants' scratch: max over the case's variants, zeroed before
                                  each variant's first call (so a variant's state survives only its own calls) */
    size_t workspace_bytes;
} op_case;

/* What a plugin row of an op may be, and how a call of it sees the case
 * (src/gpu/plugin.c serves every op through this; it has no branch per op).
 * An op takes plugins by filling one of these: its element types, and the
 * hook that hands its case's buffers (and any axes beyond m, n, k, elems) to
 * compare_plugin_args, in the slots compare_plugin.h documents for it. */
#define OP_PLUGIN_MAX_TYPES 8
#define OP_PLUGIN_MAX_BUFFERS 4
#define OP_PLUGIN_MAX_AXES 16

typedef struct {
    const char *type;          /* a plugin row's .type ("fp32", "tf32", "u32") */
    const char *row_math;      /* the catalog row's math ("types" for an op whose cases carry the type) */
    const char *ref_library;   /* the row's reference library (NULL: the op's) */
} op_plugin_type;

/* What the op's bind hook fills: the case's buffers in the op's slots, and
 * axes of its own (the loader has already put m, n, k, elems, those the case
 * has, in axes[0 .. axis_count)). */
typedef struct {
    compare_plugin_axis axes[OP_PLUGIN_MAX_AXES];
    int axis_count;
    const void *inputs[OP_PLUGIN_MAX_BUFFERS];
    int input_count;
    void *outputs[OP_PLUGIN_MAX_BUFFERS];
    int output_count;
} op_plugin_binding;

typedef struct {
    op_plugin_type types[OP_PLUGIN_MAX_TYPES]; /* the .type values it takes; unused entries: type NULL */
    /* Fills b for case pc: its own axes always; with c (a running case,
     * c->data set up) its buffers too; c is NULL for the workspace and
     * supports queries, which see no buffer. */
    void (*bind)(const plan_case *pc, const op_case *c, op_plugin_binding *b);
    int host_sync;             /* plugin rows timed from an idle stream, like the op's own (variant.host_sync) */
    const char *slots;         /* the slots, for messages ("inputs A, B; output C") */
} op_plugin_spec;

/* A launcher of any signature, kept in a row for the row's adapter to cast. */
typedef void (*variant_fn)(void);

struct variant {
    variant_info info;         /* name, op, hand/library, math, about: what the core sees */
    /* The timed work: enqueue on s, return a status_t (message through check.h). */
    int (*run)(const op_case *c, const variant *v, cudaStream_t s);
    /* Untimed set-up before every run (thrust's in-place sort: copy the
     * input in), or NULL. */
    int (*prepare)(const op_case *c, const variant *v, cudaStream_t s);
    /* 1: the call synchronises with the host (allocates, returns a result to
     * it): timed from an idle stream, so those host costs are in its figure. */
    int host_sync;
    /* 1: the work is the host's (the CPU rows): timed by a wall clock, not by
     * events on the stream. */
    int host_timed;
    variant_fn fn, fn2;        /* launchers the adapter calls (one adapter serves many rows) */
    variant_fn aux;            /* a helper of the row's family (sort: its scratch-size query) */
    int fn_index;              /* the row of fn's table it runs (a search candidate: fn takes an index) */
    /* Scratch bytes it needs for this case (NULL: none); from sizes only. */
    size_t (*workspace)(const plan_case *pc, const variant *v);
    /* Device bytes its launcher allocates for itself and keeps between calls
     * (tf32_tma's staging buffer), at most, for this case (NULL: none): not
     * allocated by the case, only counted by the up-front memory check. */
    size_t (*own_bytes)(const plan_case *pc, const variant *v);
    /* 0 when it declines the case on this device, with the reason in why
     * (NULL: runs any). */
    int (*supports)(const plan_case *pc, const device_info *dev, const variant *v, char *why, size_t why_len);
    const char *note;          /* a line under the case about what its time includes (thrust's
                                  per-call allocation), or NULL */
    const char *kernel;        /* what the row's `kernel` says when the launcher notes nothing
                                  (NULL: the variant's name) */
    const void *plugin;        /* a plugin variant's rows (src/gpu/plugin.c), NULL for built-in rows */
};

struct op_desc {
    op_info info;              /* the plain-data row */
    const variant *variants;   /* its built-in variants */
    int variant_count;
    /* Device memory of the case's own buffers (inputs, outputs, reference),
     * workspaces not included: refused up front when it cannot fit. */
    size_t (*case_bytes)(const plan_case *pc);
    /* Allocates and fills inputs (cuRAND, seeded) and the reference. */
    int (*setup)(op_case *c);
    /* Poisons the output so that an unwritten element fails verification. */
    int (*poison)(op_case *c);
    /* Verifies the checked run's output: STATUS_OK, STATUS_FAIL (r->message
     * says why) or STATUS_ERROR; fills r->rel_err and r->tolerance. */
    int (*verify)(op_case *c, const variant *v, result_row *r);
    /* Sizes, work counts (flops, bytes) and math of a row of this case. */
    void (*fill_row)(const op_case *c, const variant *v, result_row *r);
    /* Frees what setup made (also after a failed setup). */
    void (*teardown)(op_case *c);
    /* How plugin rows of this op are made and called (compare_plugin.h);
     * NULL: the op takes none. */
    const op_plugin_spec *plugin;
};

/* For op_plugin_spec.bind hooks: puts the buffers in b's slots (inputs,
 * then outputs, each up to its first NULL), and appends an axis. */
void op_plugin_slots(op_plugin_binding *b, const void *in0, const void *in1, void *out0, void *out1);
void op_plugin_axis(op_plugin_binding *b, const char *name, long long value);

/* The op table (src/gpu/ops.c) and the variants of every op plus those of
 * the loaded plugins, in catalog order. */
int ops_count(void);
const op_desc *ops_get(int i);
/* Builds the catalog once (ops, then each op's variants, then plugin rows
 * appended by ops_add_variant). */
const catalog *ops_catalog(void);
const variant *ops_variant(int catalog_index);
/* Whether a variant (a plugin's) could be added after `pending` others now
 * being checked: its op must exist, its name must be new within that op and
 * there must be room. 0 or -1 with err. */
int ops_check_variant(const variant *v, int pending, char *err, size_t err_len);
/* Adds a variant after ops_check_variant(v, 0, ...). 0 or -1 with err. */
int ops_add_variant(const variant *v, char *err, size_t err_len);

#endif
