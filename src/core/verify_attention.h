/* src/core/verify_attention.h: the verification rule of the attention op
 * (kernels/attention.h), its FLOP count and the query rows it checks, in
 * plain C so that a cpu test pins them down. The GPU computes the reference
 * and the errors (src/gpu/attention_ref.h); the verdict is made here.
 *
 * The error is measured per output element against its row's scale:
 *     e = |o - ref| / s_row,   s_row = max |v_jc| over the keys j the row
 * sees and every column c. An output row is a convex combination of the
 * visible rows of V, so |o| <= s_row, and every rounding of a correct
 * kernel (P rounded to the type before P V, the output's rounding, the FP32
 * sums) is bounded by a multiple of s_row; a row that sees no key must be
 * exactly 0 (s_row = 0). The verdict takes the largest e over the checked
 * elements (one wrong element fails); any NaN/Inf in the whole output
 * fails (it is poisoned with NaN before each checked run). */
#ifndef COMPARE_VERIFY_ATTENTION_H
#define COMPARE_VERIFY_ATTENTION_H

#include "verify.h"

/* Up to this many query rows every row of each (batch, head) is checked;
 * longer, this many rows (verify_attention_row). */
#define VERIFY_ATTENTION_ALL_ROWS 1024

/* FLOPs of the case: 4 b h sq skv d (two GEMMs), halved when causal, in
 * 64-bit integer arithmetic (kernels/attention.h's rule). */
double verify_attention_flops(long long batch, long long heads, long long seq_q, long long seq_kv,
                              long long head_dim, int causal);

/* How many query rows of each (batch, head) are checked: seq_q up to
 * VERIFY_ATTENTION_ALL_ROWS, else VERIFY_ATTENTION_ALL_ROWS. */
long long verify_attention_row_count(long long seq_q);
/* The k-th checked row, 0 <= k < verify_attention_row_count: k itself
 * when all are checked, else floor(k (seq_q - 1) / (count - 1)): the first
 * and the last row and a stride between, which is not a power of two for
 * most seq_q (the rows fall at every offset within a kernel's q tile). */
long long verify_attention_row(long long seq_q, long long k);

/* The bound on e (verify_attention.c derives it) for `type` ("bf16", "fp16"
 * or any float type of src/core/types.c), seq_kv keys, head_dim columns,
 * and s_abs the largest scale * sum_c |q_c k_c| of a checked score (the
 * scores' magnitude, recorded by the reference):
 *     tol = 3 u_type + u32 (64 + 16 sqrt(seq_kv) + 8 (sqrt(head_dim) + 4) s_abs)
 * -1 for a type with no rule. */
double verify_attention_tolerance(const char *type, long long seq_kv, long long head_dim, double s_abs);

/* One element's e: |o - ref| / scale; 0 when equal, +inf when scale is 0
 * and o != ref, NaN for a NaN/Inf o. */
double verify_attention_ratio(double o, double ref, double scale);

/* The verdict from the largest e over the checked finite elements and the
 * count of non-finite elements of the whole output: rel_err = max_err =
 * worst_ratio, tolerance = max_tolerance = the bound above; passes iff
 * nonfinite == 0 and worst_ratio <= tolerance (NaN fails). */
void verify_attention_judge(double worst_ratio, long long nonfinite, const char *type, long long seq_kv,
                            long long head_dim, double s_abs, verify_verdict *v);

#endif
