/* src/gpu/gemm_check.c: the GEMM ops' shared verification steps (gemm_check.h). */
#include "gemm_check.h"

#include <stdio.h>
#include <string.h>

#include "check.h"
#include "verify_kernels.h"

int gemm_check_sums(const float *c, const double *ref, size_t count, double *sums_dev, double norm_sq_a,
                    double norm_sq_b, cudaStream_t st, verify_sums *s)
{
    double h[5];
    memset(s, 0, sizeof *s);
    CK_CUDA(cudaMemsetAsync(sums_dev, 0, 5 * sizeof(double), st));
    CK_LAUNCH(gpucheck_gemm_sums(c, ref, count, sums_dev, st));
    CK_CUDA(cudaMemcpyAsync(h, sums_dev, sizeof h, cudaMemcpyDeviceToHost, st));
    CK_CUDA(cudaStreamSynchronize(st));
    s->sum_sq_err = h[0];
    s->sum_sq_ref = h[1];
    s->max_abs_err = h[2];
    s->nonfinite = h[3];
    s->count = (double)count;
    s->norm_sq_a = norm_sq_a;
    s->norm_sq_b = norm_sq_b;
    return STATUS_OK;
}

int gemm_check_verdict(const verify_verdict *vd, double count, result_row *r)
{
    r->rel_err = vd->rel_err;
    r->tolerance = vd->tolerance;
    if (vd->pass) return STATUS_OK;
    if (vd->nonfinite)
        snprintf(r->message, sizeof r->message, "%lld of %.0f elements NaN/Inf (unwritten or overflow)", vd->nonfinite,
                 count);
    else
        snprintf(r->message, sizeof r->message, "rel err %.3g (tolerance %.3g), max err %.3g rms (tolerance %.3g)",
                 vd->rel_err, vd->tolerance, vd->max_err, vd->max_tolerance);
    return STATUS_FAIL;
}
