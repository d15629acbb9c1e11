/* src/core/verify_gemv.c: the gemv verdict (verify_gemv.h says the rule and
 * why); the coefficients come from verify_tolerance, so the rule is the
 * project's one rule read per element. */
#include "verify_gemv.h"

#include <math.h>

#include "types.h"

int verify_gemv_bound_of(const char *type, long long k, verify_gemv_bound *b)
{
    const types_info *t = types_find(type);
    const verify_types acc_only = {type, NULL, "fp32", "fp32"}, whole = {type, NULL, "fp32", type};
    const double ta = verify_tolerance(&acc_only, k), tw = verify_tolerance(&whole, k);
    if (!t || !t->is_float || ta <= 0 || tw <= 0) return -1;
    b->c_acc = ta;
    b->c_out = tw - ta > 0 ? tw - ta : 0.0;
    b->out_floor = b->c_out > 0 ? ldexp(1.0, t->min_exponent) : 0.0;
    return 0;
}

int verify_gemv_elem_ok(const verify_gemv_bound *b, double y, double r, double s)
{
    return fabs(y - r) <= b->c_acc * s + b->c_out * (fabs(r) + b->out_floor);
}

int verify_gemv_judge(const verify_sums *s, const char *type, long long k, long long bad, verify_verdict *v)
{
    const verify_types t = {type, NULL, "fp32", type};
    if (verify_judge_types(s, &t, k, v)) return -1;
    if (bad != 0) v->pass = 0;
    return 0;
}
