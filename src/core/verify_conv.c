/* src/core/verify_conv.c: the conv2d verdict and work counts (verify_conv.h
 * says the rule and why); the coefficients come from verify_tolerance, so the
 * rule is the project's one rule read per element, plus the transform
 * allowance. */
#include "verify_conv.h"

#include <math.h>

#include "types.h"

double verify_conv_flops(long long batch, long long c_in, long long c_out, long long height, long long width,
                         long long r)
{
    return 2.0 * (double)batch * (double)c_out * (double)c_in * (double)height * (double)width * (double)r * (double)r;
}

double verify_conv_bytes(long long batch, long long c_in, long long c_out, long long height, long long width,
                         long long r, int elem_bytes)
{
    const double plane = (double)height * (double)width;
    return ((double)batch * (double)c_in * plane + (double)c_out * (double)c_in * (double)r * (double)r +
            (double)batch * (double)c_out * plane) *
           elem_bytes;
}

double verify_conv_tolerance(const char *type, const char *math, long long c_in, long long r)
{
    const verify_types t = {type, math, "fp32", type};
    const double base = verify_tolerance(&t, c_in * r * r);
    const types_info *ti = types_find(type);
    if (base <= 0 || !ti || !ti->is_float) return -1.0;
    return base + VERIFY_CONV_TRANSFORM * ldexp(1.0, -24);
}

double verify_conv_floor(const char *type)
{
    const types_info *t = types_find(type);
    return t && t->is_float ? ldexp(1.0, t->min_exponent) : -1.0;
}

double verify_conv_ratio(double y, double ref, double abs_sum, double out_floor)
{
    if (!isfinite(y)) return NAN;
    return fabs(y - ref) / (abs_sum + out_floor);
}

void verify_conv_judge(double worst, long long nonfinite, long long bad, double tol, verify_verdict *v)
{
    v->rel_err = v->max_err = worst;
    v->tolerance = v->max_tolerance = tol;
    v->nonfinite = nonfinite;
    v->pass = nonfinite == 0 && bad == 0 && worst <= tol; /* NaN compares false */
}

double verify_conv_transform_tolerance(const char *type, const char *math, long long c_in, long long r)
{
    const verify_types t = {type, math, "fp32", type};
    const double base = verify_tolerance(&t, c_in * r * r);
    const types_info *ti = types_find(type);
    const double u_in = verify_unit_roundoff(type), u_math = verify_unit_roundoff(math ? math : type);
    if (base <= 0 || !ti || !ti->is_float) return -1.0;
    return base + VERIFY_CONV_TRANSFORM_FRO * (u_in > u_math ? u_in : u_math);
}

void verify_conv_judge_transform(double sum_sq_err, double sum_sq_ref, long long nonfinite, double tol,
                                 verify_verdict *v)
{
    const double rel = sum_sq_ref > 0 ? sqrt(sum_sq_err / sum_sq_ref) : sum_sq_err > 0 ? INFINITY : 0.0;
    v->rel_err = v->max_err = rel;
    v->tolerance = v->max_tolerance = tol;
    v->nonfinite = nonfinite;
    v->pass = nonfinite == 0 && rel <= tol; /* NaN compares false */
}
