/* src/core/verify_attention.c: the tolerance, FLOP count and checked rows of
 * the attention op (verify_attention.h says how the error is measured).
 *
 *   tol = 3 u_type + u32 (64 + 16 sqrt(seq_kv) + 8 (sqrt(head_dim) + 4) s_abs)
 *
 * The FP64 reference (src/gpu/attention_ref.cu) reads the same stored
 * Q, K, V as the kernels (rounded once to the type on the device) and the
 * same FP32 scale, so input rounding is not an error. What remains, in units
 * of s_row (the largest |v| the row sees; |o| <= s_row):
 *  - 3 u_type: the output's rounding to the type (u |o| <= u s_row); the
 *    probabilities rounded to the type before the P V product, as every
 *    fused kernel and the unfused library row do (each p_j off by u p_j
 *    relative: at most u sum p_j |v_j| <= u s_row); one more for a
 *    margin (a kernel that rounds the unnormalised exp, then divides).
 *  - 64 u32: the fixed FP32 roundings per element (exp or exp2 with a log2 e
 *    scaling, the division by the row sum, the rescale factors of the
 *    online softmax, a few ulp each).
 *  - 16 u32 sqrt(seq_kv): the FP32 sums over the keys (the row sum of the
 *    exponentials and each output's sum of p_j v_jc), walking like the
 *    square root of the terms (the rule of verify.c: 8 u sqrt(k)), twice.
 *  - 8 u32 (sqrt(head_dim) + 4) s_abs: a score's FP32 error, from its sum
 *    over head_dim products (8 u sqrt(d) of sum |q_c k_c| scale) and the
 *    exponent's argument s - max (a few u |s|), becomes the same relative
 *    error in p_j and so at most twice it in o (numerator and row sum).
 * At the fp16 and bf16 types the first term dominates at every size here.
 * What it catches: a missed online-softmax rescale (early keys weighted by
 * exp of the max's growth), a dropped or shifted causal mask, a wrong scale,
 * an unwritten row (NaN), a dropped tile of keys; not an error smaller than
 * the type's own rounding. The rows checked: every row up to
 * VERIFY_ATTENTION_ALL_ROWS query rows per (batch, head), else that many
 * spread over the sequence with the first and the last (the reference's
 * cost then grows with seq_kv only); every (batch, head) is checked, and
 * every element of the output is scanned for NaN/Inf. */
#include "verify_attention.h"

#include <math.h>

#include "types.h"
#include "verify_rowwise.h"

double verify_attention_flops(long long batch, long long heads, long long seq_q, long long seq_kv,
                              long long head_dim, int causal)
{
    const long long f = 4LL * batch * heads * seq_q * seq_kv * head_dim;
    return causal ? (double)(f / 2) : (double)f;
}

long long verify_attention_row_count(long long seq_q)
{
    if (seq_q < 1) return 0;
    return seq_q <= VERIFY_ATTENTION_ALL_ROWS ? seq_q : VERIFY_ATTENTION_ALL_ROWS;
}

long long verify_attention_row(long long seq_q, long long k)
{
    const long long n = verify_attention_row_count(seq_q);
    if (k < 0 || k >= n) return -1;
    if (n == seq_q) return k;
    return k * (seq_q - 1) / (n - 1);
}

double verify_attention_tolerance(const char *type, long long seq_kv, long long head_dim, double s_abs)
{
    const types_info *t = types_find(type);
    const double u32 = ldexp(1.0, -24);
    if (!t || !t->is_float) return -1.0;
    if (seq_kv < 1) seq_kv = 1;
    if (head_dim < 1) head_dim = 1;
    if (!(s_abs >= 0)) s_abs = 0; /* NaN or negative: no term */
    return 3.0 * t->unit_roundoff +
           u32 * (64.0 + 16.0 * sqrt((double)seq_kv) + 8.0 * (sqrt((double)head_dim) + 4.0) * s_abs);
}

/* the row-wise ops' ratio: the same measure, another unit */
double verify_attention_ratio(double o, double ref, double scale) { return verify_rowwise_ratio(o, ref, scale); }

void verify_attention_judge(double worst_ratio, long long nonfinite, const char *type, long long seq_kv,
                            long long head_dim, double s_abs, verify_verdict *v)
{
    verify_ratio_verdict(worst_ratio, nonfinite, verify_attention_tolerance(type, seq_kv, head_dim, s_abs), v);
}
