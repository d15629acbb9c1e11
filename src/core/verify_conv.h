/* src/core/verify_conv.h: the verification rule of the conv2d op
 * (kernels/conv2d.h), its FLOP and byte counts, in plain C so that a cpu
 * test pins them down. The GPU recomputes the reference and measures the
 * errors (src/gpu/conv_ref.h); the verdict is made here.
 *
 * Every output element is checked against its own scale. For an output y
 * with exact value r = sum of its L = c_in r r products x w (zero-padded
 * taps contribute nothing) and s = sum of |x w|, both in FP64 from the same
 * stored inputs:
 *
 *   e = |y - r| / (s + floor) <= tol
 *   tol = verify_tolerance({type, math, fp32, type}, L) + VERIFY_CONV_TRANSFORM
 * u32 = 8 u32 sqrt(L) + 6 u_math + 2 u_out + VERIFY_CONV_TRANSFORM u32
 *
 *  - 8 u32 sqrt(L): the FP32 accumulation of L terms in any order, the
 *    project's rule (src/core/verify.c: Higham and Mary's probabilistic
 *    bound, lambda = 8), measured against s, which bounds every partial sum,
 *    so an output that cancels (r near 0) does not fail a right kernel.
 *  - 6 u_math: TF32 math on fp32 inputs (the cudnn_tensor_op row) rounds
 *    each input to 10 fraction bits: each product errs by up to 2 u_tf32 of
 *    its magnitude (4 when the hardware truncates), i.e. by up to
 *    2-4 u_tf32 s in all; 0 where the math takes the stored inputs.
 *  - 2 u_out: the output's rounding to fp16 / bf16 (at most u_out |y| <=
 *    u_out s); 0 for fp32.
 *  - VERIFY_CONV_TRANSFORM u32: slack for a library kernel's own order of
 *    the sums, a fixed allowance of that many FP32 units of s (about 6e-5
 *    of s). A wrong kernel errs by far more: a dropped halo removes whole
 *    rows or columns of an output's taps (at least r c_in of its L
 *    products, about 1 / r of s), a wrong mask element one product in L.
 *
 * A library row whose algorithm computes in a transformed domain (cuDNN's
 * FFT, FFT_TILING, WINOGRAD, WINOGRAD_NONFUSED) is judged as a whole
 * instead: it rounds the transformed tiles (in the type itself where its
 * products run on tensor cores), so an output's error is bounded by its
 * tile's norms, not by its own products, and the per-element ratio has a
 * tail that grows with the number of outputs (the outputs whose s is small
 * beside their tile's). Its relative Frobenius error ||y - r|| / ||r||
 * does not: the bound is verify_tolerance's (the same types, L) plus
 * VERIFY_CONV_TRANSFORM_FRO units of the larger of the input's and the
 * math's unit roundoff. A wrong call (a layout, a padding) errs by O(1);
 * NaN / Inf outputs still fail.
 *  - floor: 2^min_exponent of the output type (a result in fp16's
 *    subnormal range rounds to a fixed quantum, not a relative one; for
 *    fp32 it only keeps 0 / 0 from arising where s = 0).
 *
 * What it catches: a halo dropped (the border outputs of a tile miss
 * r / 2 rows or columns of taps: a share of s), a wrong mask element, a
 * channel skipped, an output not written (poisoned with NaN, which no bound
 * accepts) or written to the wrong place. rel_err reports the worst e,
 * tolerance the bound. */
#ifndef COMPARE_VERIFY_CONV_H
#define COMPARE_VERIFY_CONV_H

#include "verify.h"

/* The per-element allowance above, in units of u32 times s. */
#define VERIFY_CONV_TRANSFORM 1024.0
/* The transform rule's allowance, in units of max(u_in, u_math). */
#define VERIFY_CONV_TRANSFORM_FRO 64.0

/* 2 batch c_out c_in height width r r (as a double: exact below 2^53). */
double verify_conv_flops(long long batch, long long c_in, long long c_out, long long height, long long width,
                         long long r);
/* The minimum bytes: x read, w read, y written once, elem_bytes each. */
double verify_conv_bytes(long long batch, long long c_in, long long c_out, long long height, long long width,
                         long long r, int elem_bytes);

/* tol for inputs and output of `type` ("fp32", "fp16", "bf16"), the row's
 * `math` (NULL or the type itself: the stored inputs; "tf32"), c_in
 * channels and an r x r mask; -1 for a type with no rule. */
double verify_conv_tolerance(const char *type, const char *math, long long c_in, long long r);
/* floor of the rule for the output type (-1 for an unknown type). */
double verify_conv_floor(const char *type);
/* One element's e: |y - ref| / (abs_sum + out_floor); NaN when y is NaN or
 * infinite (which no bound accepts). */
double verify_conv_ratio(double y, double ref, double abs_sum, double out_floor);
/* The verdict from the worst e over the finite outputs, the count of
 * non-finite ones and of those over the bound: rel_err = max_err = worst,
 * tolerance = max_tolerance = tol; passes iff nonfinite == 0, bad == 0 and
 * worst <= tol (NaN fails). */
void verify_conv_judge(double worst, long long nonfinite, long long bad, double tol, verify_verdict *v);
/* The transform rule (above): its bound on the relative Frobenius error
 * for the same arguments as verify_conv_tolerance (-1 for a type with no
 * rule), and its verdict from the check's sums (over the finite outputs for
 * the error): rel_err = max_err = sqrt(sum_sq_err / sum_sq_ref) (0 / 0 is
 * 0, x / 0 infinite), passes iff nonfinite == 0 and rel_err <= tol. */
double verify_conv_transform_tolerance(const char *type, const char *math, long long c_in, long long r);
void verify_conv_judge_transform(double sum_sq_err, double sum_sq_ref, long long nonfinite, double tol,
                                 verify_verdict *v);

#endif
