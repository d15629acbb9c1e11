/* src/gpu/op_sgemm_candidates.c: the search candidates of sgemm as hidden
 * variants of its table, the one tuning path (`compare --candidates FAMILY`).
 *
 * Idea: a family is the candidate table behind one shipped variant's picks
 * (kernels/search/sgemm_search.h: count, name and run of each candidate);
 * each candidate becomes a row of op sgemm named as the candidate, its
 * source "candidates:FAMILY" (catalog_family), so that it stays out of
 * --list and of every run until --candidates names its family. It is then
 * verified against the same FP64 reference, timed by the same harness
 * (interleaved, clocks, L2 flush) and written to the same CSV as every row;
 * `kernel` is the candidate's name (the name the picks are made by,
 * -DSGEMM_TUNED_LARGE=NAME and the like).
 *
 * Constraints: a candidate has no supports query; one that declines a shape
 * returns cudaErrorNotSupported from its checked run, and the run loop makes
 * that row SKIP with the launcher's message (src/gpu/run.c). The Hopper
 * families are built for sm_90a alone: SKIP on any other GPU. Names are
 * unique within sgemm (a candidate that would shadow another row is left
 * out, and said so on stderr). The buffers come through the op's plugin
 * binding (op.h), the op's one documented map of its slots. */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "op.h"
#include "sgemm_search.h"

typedef int (*sgemm_cand_run_fn)(int i, const float *A, const float *B, float *C, int m, int n, int k,
                                 cudaStream_t s);

/* One family: the shipped variant it tunes, its math, and its table. */
typedef struct {
    const char *family;     /* --candidates NAME: the shipped variant whose picks it feeds */
    const char *math;       /* "fp32" or "tf32": tolerance and reference library */
    const char *source;     /* the rows' `source` column: CATALOG_CANDIDATE_SOURCE FAMILY */
    const char *about;      /* the rows' --list line */
    int sm90a;              /* 1: built for sm_90a only */
    int (*count)(void);
    const char *(*name)(int i);
    sgemm_cand_run_fn run;
} sgemm_cand_family;

static const sgemm_cand_family sgemm_cand_families[] = {
    {"tuned", "fp32", CATALOG_CANDIDATE_SOURCE "tuned", "FP32 `tuned` candidate (kernels/sgemm_tuned.cuh)", 0,
     sgemm_search_count, sgemm_search_name, sgemm_search_run},
    {"tf32_mma", "tf32", CATALOG_CANDIDATE_SOURCE "tf32_mma", "TF32 mma.sync candidate (kernels/sgemm_tf32.cuh)", 0,
     sgemm_tf32_search_count, sgemm_tf32_search_name, sgemm_tf32_search_run},
#ifdef COMPARE_HAVE_WGMMA
    {"tf32_wgmma", "tf32", CATALOG_CANDIDATE_SOURCE "tf32_wgmma", "TF32 wgmma candidate (kernels/sgemm_tf32_wgmma.cuh)", 1,
     sgemm_tf32_wgmma_search_count, sgemm_tf32_wgmma_search_name, sgemm_tf32_wgmma_search_run},
    {"tf32_tma", "tf32", CATALOG_CANDIDATE_SOURCE "tf32_tma", "TF32 wgmma + TMA candidate (kernels/sgemm_tf32_tma.cuh)", 1,
     sgemm_tf32_tma_search_count, sgemm_tf32_tma_search_name, sgemm_tf32_tma_search_run},
#endif
};
#define SGEMM_CAND_FAMILIES ((int)(sizeof sgemm_cand_families / sizeof sgemm_cand_families[0]))
#define SGEMM_CAND_MAX 256

static variant sgemm_cand_rows[SGEMM_CAND_MAX];
static int sgemm_cand_count = -1;

static int sgemm_cand_adapter(const op_case *c, const variant *v, cudaStream_t s)
{
    op_plugin_binding b;
    memset(&b, 0, sizeof b);
    c->op->plugin->bind(c->pc, c, &b); /* inputs A, B; output C */
    const int rc = ((sgemm_cand_run_fn)v->fn)(v->fn_index, b.inputs[0], b.inputs[1], b.outputs[0], (int)c->pc->m,
                                               (int)c->pc->n, (int)c->pc->k, s);
    /* "NAME failed: operation not supported (...)": the row's message when it declines */
    return check_cuda_status((cudaError_t)rc, v->info.name, __FILE__, __LINE__) ? STATUS_ERROR : STATUS_OK;
}

/* the Hopper families: no code for any other GPU */
static int sgemm_cand_sm90a(const plan_case *pc, const device_info *dev, const variant *v, char *why, size_t len)
{
    (void)pc;
    if (dev->cc_major == 9 && dev->cc_minor == 0) return 1;
    snprintf(why, len, "candidates of family %s are built for sm_90a (Hopper) only; this GPU is cc %d.%d",
             catalog_family(&v->info), dev->cc_major, dev->cc_minor);
    return 0;
}

/* 1 if `name` is taken in sgemm: by a row of its own table or an earlier candidate */
static int sgemm_cand_taken(const op_desc *op, const char *name, int upto)
{
    for (int i = 0; i < op->variant_count; i++)
        if (strcmp(op->variants[i].info.name, name) == 0) return 1;
    for (int i = 0; i < upto; i++)
        if (strcmp(sgemm_cand_rows[i].info.name, name) == 0) return 1;
    return 0;
}

int op_sgemm_candidates(const variant **rows)
{
    extern const op_desc op_sgemm;
    if (sgemm_cand_count < 0) {
        int n = 0;
        for (int f = 0; f < SGEMM_CAND_FAMILIES; f++) {
            const sgemm_cand_family *fam = &sgemm_cand_families[f];
            for (int i = 0; i < fam->count(); i++) {
                const char *name = fam->name(i);
                if (n == SGEMM_CAND_MAX || sgemm_cand_taken(&op_sgemm, name, n)) {
                    fprintf(stderr, "compare: sgemm candidate %s of family %s left out (%s)\n", name, fam->family,
                            n == SGEMM_CAND_MAX ? "too many candidates" : "its name is taken");
                    continue;
                }
                variant *v = &sgemm_cand_rows[n++];
                memset(v, 0, sizeof *v);
                v->info.op = "sgemm";
                v->info.name = name;
                v->info.math = fam->math;
                v->info.ref_library = strcmp(fam->math, "tf32") == 0 ? "cublas_tf32" : "cublas_fp32";
                v->info.source = fam->source;
                v->info.about = fam->about;
                v->run = sgemm_cand_adapter;
                v->fn = (variant_fn)fam->run;
                v->fn_index = i;
                v->supports = fam->sm90a ? sgemm_cand_sm90a : NULL;
            }
        }
        sgemm_cand_count = n;
    }
    *rows = sgemm_cand_rows;
    return sgemm_cand_count;
}
