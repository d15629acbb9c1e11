/* src/core/verify_gemv.h: the verdict on a GEMV result y = A x (the gemv op,
 * src/gpu/op_gemv.c), from the one tolerance rule of src/core/verify.c.
 *
 * Every element is checked, each against the scale of its own row. For row
 * i, with r_i = sum_j A_ij x_j and s_i = sum_j |A_ij x_j| computed in FP64
 * from the same stored (rounded) inputs:
 *
 *   |y_i - r_i| <= c_acc s_i + c_out (|r_i| + out_floor)
 *
 *  - c_acc = verify_tolerance(in = type, acc = fp32, out = fp32, k)
 *    = 8 u32 sqrt(k): the FP32 accumulation. Any order of FP32 additions
 *    errs by at most (k - 1) u32 s_i, and with rounding errors that are
 *    independent and of mean zero by at most lambda sqrt(k) u32 s_i but
 *    with probability 2 exp(-lambda^2 / 2) (Higham and Mary's probabilistic
 *    bound, SIAM J. Sci. Comput. 41(5), 2019): lambda = 8 makes a false
 *    FAIL about 1e-14 per element. Scaling by s_i rather than |r_i| keeps
 *    a row that cancels (r_i near 0) from failing a right kernel.
 *  - c_out = verify_tolerance(..., out = type, k) - c_acc = 2 u_out when
 *    the output type is coarser than FP32 (bf16, fp16: y_i is rounded once
 *    to it, an error of at most u_out |y_i|), else 0.
 *  - out_floor = 2^min_exponent of the output type when c_out > 0: a
 *    result in fp16's subnormal range rounds to a fixed quantum (2 u_out
 *    2^min_exponent), not to a relative one.
 *
 * What it catches: a dropped term |A_ij x_j| (about s_i / k) exceeds
 * c_acc s_i while k^1.5 < 1 / (8 u32), i.e. k below about 16000, and the
 * output rounding where |r_i| is not many times the term; a wrong or
 * missing chunk of a row, a row written to the wrong place or not at all
 * (poison: NaN) fail at any k. The Frobenius verdict of the GEMM
 * (verify_judge_types: relative error, max error against the rms, the
 * cancellation floor) must hold as well; rel_err and tolerance report it. */
#ifndef COMPARE_VERIFY_GEMV_H
#define COMPARE_VERIFY_GEMV_H

#include "verify.h"

typedef struct {
    double c_acc;     /* times s_i: the FP32 accumulation */
    double c_out;     /* times |r_i| + out_floor: the output's rounding (0 for fp32) */
    double out_floor; /* 2^min_exponent of the output type, 0 when c_out is 0 */
} verify_gemv_bound;

/* The bound of a row of length k in type `type` (inputs and output; FP32
 * accumulation). 0, or -1 when the type is not a float type of the table. */
int verify_gemv_bound_of(const char *type, long long k, verify_gemv_bound *b);
/* 1 when y passes the element bound for reference r and scale s (NaN: 0). */
int verify_gemv_elem_ok(const verify_gemv_bound *b, double y, double r, double s);
/* The verdict: verify_judge_types over the sums (with ||A||_F^2, ||x||^2 in
 * norm_sq_a / norm_sq_b) AND no element outside its bound (bad == 0).
 * 0, or -1 (verdict untouched) for an unknown type. */
int verify_gemv_judge(const verify_sums *s, const char *type, long long k, long long bad, verify_verdict *v);

#endif
