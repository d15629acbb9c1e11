/* src/gpu/gemm_check.h: the verification steps the GEMM ops share (sgemm,
 * gemm): the error sums of an FP32 result against its FP64 reference,
 * reduced on the device, and the row's fields from the verdict that
 * src/core/verify.c makes of them (each op picks its own tolerance rule). */
#ifndef COMPARE_GEMM_CHECK_H
#define COMPARE_GEMM_CHECK_H

#include <stddef.h>
#include <cuda_runtime_api.h>

#include "results.h"
#include "verify.h"

/* Fills s with the sums of c (count floats) against ref, reduced into the
 * device buffer sums_dev (5 doubles, zeroed here) on stream st, and the
 * inputs' squared norms (the cancellation floor; 0: none). Returns a status_t. */
int gemm_check_sums(const float *c, const double *ref, size_t count, double *sums_dev, double norm_sq_a,
                    double norm_sq_b, cudaStream_t st, verify_sums *s);
/* r's rel_err and tolerance from vd, and its message when it fails (NaN/Inf
 * of `count` elements, or the errors against their bounds). Returns
 * STATUS_OK or STATUS_FAIL. */
int gemm_check_verdict(const verify_verdict *vd, double count, result_row *r);

#endif
