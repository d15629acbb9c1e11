/* src/core/verify.h: the verification rules (tolerances and verdicts) and a CPU
 * reference GEMM. The GPU computes the raw error sums (baselines/gpu_check.cu);
 * the decision is made here, in plain C, so the cpu tests pin it down. */
#ifndef COMPARE_VERIFY_H
#define COMPARE_VERIFY_H

#include <stddef.h>

/* Raw error sums of a result against its FP64 reference. */
typedef struct {
    double sum_sq_err; /* sum (c - ref)^2 over finite elements */
    double sum_sq_ref; /* sum ref^2 */
    double max_abs_err;/* max |c - ref| over finite elements */
    double nonfinite;  /* count of NaN/Inf elements in c (as a double) */
    double count;      /* elements compared */
    /* ||A||_F^2 and ||B||_F^2 of the GEMM's inputs, for the cancellation
     * floor of verify_gemm_judge (0: not known, no floor) */
    double norm_sq_a, norm_sq_b;
} verify_sums;

typedef struct {
    double rel_err;     /* relative Frobenius error ||c - ref|| / ||ref|| */
    double max_err;     /* max |c - ref| / rms(ref) */
    double tolerance;   /* bound on rel_err */
    double max_tolerance; /* bound on max_err */
    long long nonfinite;/* NaN/Inf elements */
    int pass;           /* 1 if every bound holds and nonfinite == 0 */
} verify_verdict;

/* The element types of a reduction, by name (src/core/types.c). */
typedef struct {
    const char *in;   /* storage type of the inputs, which the FP64 reference reads too ("fp32", "bf16") */
    const char *math; /* the arithmetic: "tf32" rounds FP32 inputs further; NULL: the inputs' type */
    const char *acc;  /* the accumulator; NULL: "fp32" */
    const char *out;  /* the output's type; NULL: the accumulator's */
} verify_types;

/* The one tolerance rule (documented in verify.c) on the relative Frobenius
 * error of a reduction of length k:
 *   tol = 8 u_acc sqrt(k) + 6 u_math + 2 u_out
 * u_math counted only when the math rounds the stored inputs (u_math > u_in),
 * u_out only when the output is coarser than the accumulator. -1 when a name
 * is not a float type of the table. */
double verify_tolerance(const verify_types *t, long long k);

/* Unit roundoff of a float type ("fp32" 2^-24, "tf32" and "fp16" 2^-11,
 * "bf16" 2^-8, "fp8_e4m3" 2^-4, "fp8_e5m2" 2^-3); 2^-24 for other names. */
double verify_unit_roundoff(const char *math);

/* GEMM tolerance on the relative Frobenius error for inner dimension k, FP32
 * storage in and out, math "fp32" or "tf32" (another name is judged as fp32):
 * verify_tolerance's rule, which here reads
 *   tol = 8 * u32 * sqrt(k) + 6 * u_in
 * u_in = 2^-11 for TF32, 0 for FP32. */
double verify_gemm_tolerance(const char *math, long long k);
/* Bound on max |c - ref| / rms(ref): 16 * the Frobenius tolerance (a single
 * dropped or misplaced element is ~1 rms). */
double verify_gemm_max_tolerance(const char *math, long long k);
/* Turns raw sums into the verdict for a GEMM with inner dimension k.
 * Cancellation floor: the rounding errors of c = sum_k a b scale with
 * sum_k |a b|, not with |c|, and in a tiny C (a few elements, a short k)
 * the sums can cancel, so ||ref|| alone made a right TF32 result fail now
 * and then (2x2x2: about 1 run in 2000; 1x1x17: 1 in 20). With the input
 * norms known, both tolerances are scaled by
 *   max(1, ||A||_F ||B||_F / (2 sqrt(k) ||ref||_F))
 * For random inputs ||A|| ||B|| / sqrt(k) is about ||ref|| (the factor is
 * 1 with a margin of two: large cases keep the plain bound); it exceeds 1
 * only when C cancels, and bounds the error the inputs' rounding can make
 * (|c - ref| <= 2 u_in sum_k |a b|, and sum (sum_k |a b|)^2 <= ||A||^2 ||B||^2). */
void verify_gemm_judge(const verify_sums *s, const char *math, long long k, verify_verdict *v);
/* The same verdict under verify_tolerance(t, k) (max error: 16 times it).
 * Returns 0, or -1 (verdict untouched) when t names a type that has no rule. */
int verify_judge_types(const verify_sums *s, const verify_types *t, long long k, verify_verdict *v);
/* sum x^2 over n floats (in double): an input's ||.||_F^2 for the floor above */
double verify_norm_sq(const float *x, size_t n);

/* Reduce: the error is measured as rel_err = |sum - ref| / sqrt(sum x^2)
 * (the sum itself may be ~0 for random signs; sqrt(sum x^2) = rms*sqrt(n)
 * never is). The float rounding error of a tree or blocked sum is a random
 * walk with std ~ u32 * rms * sqrt(n * log2 n) / 3, so
 *   tol = 8 * u32 * (log2(n) + 1)
 * sits ~100x above it at n = 2^26 while dropping or doubling a single
 * element of typical size (|x| ~ 0.5 against sqrt(sum x^2) ~ 4700) fails.
 * One float accumulator fed by one atomicAdd per block is NOT within it.
 * The verdict scales this by (1 + |sum| / (2 sqrt(sum x^2))): with a
 * non-zero mean the partial sums, and their rounding, grow like |sum|. */
double verify_reduce_tolerance(long long n);
void verify_reduce_judge(double result, double ref, long long n, double sum_sq, verify_verdict *v);

/* Scan (float inclusive prefix sum y of x, n elements), per element:
 *   |y_i - r_i| <= tol(n) * A_i,   tol(n) = u32 * (32 + 4 sqrt(n)),
 * r_i the exact (double) inclusive sum and A_i = |x_0| + ... + |x_i|, which
 * bounds every partial sum that can enter y_i. Each float addition rounds by
 * at most u32 = 2^-24 times its result, so by at most u32 * A_i.
 * The constant covers, worst case, the fixed-depth part of a block or tile
 * scan (a decoupled look-back tile: at most 27 sequential item additions, 5
 * warp steps, the warp and tile prefixes, never more than n - 1 and so
 * within 32 + 4 sqrt(n) for every n; Hillis-Steele: 10 steps a level). The
 * square root covers the part whose length grows with n (the chain of tile
 * prefixes of a decoupled scan, n / 3584 additions in kernels/scan.cu and
 * similar in cub; the levels of the multi-level ones; even a sequential
 * scan's n) as a random walk: with random data the rounding errors are
 * independent, each with std <= u32 A_i / sqrt(3), so n of them have
 * std <= u32 A_i sqrt(n / 3) and 4 sqrt(n) is about 7 sigma. Not a
 * worst-case bound (that is n u32 A_i for a chain of n). It still catches a
 * lost tile (~1500 A units at i < ~10^7 for n = 2^20) or an
 * exclusive-for-inclusive shift near the start (x_i against ~2.5e-4 A_i). */
double verify_scan_tolerance(long long n);
/* One element's error in units of its scale: |y - ref| / abs_sum; 0 when
 * both are 0, +inf when abs_sum is 0 and y != ref, NaN when y is NaN or
 * infinite (which no bound accepts). The element passes iff ratio <= tol. */
double verify_scan_ratio(double y, double ref, double abs_sum);
/* Verdict of a whole scan from the largest ratio over its finite elements
 * and the count of its non-finite ones: rel_err = max_err = worst_ratio,
 * tolerance = max_tolerance = verify_scan_tolerance(n); passes iff
 * nonfinite == 0 and worst_ratio <= the tolerance (NaN fails). */
void verify_scan_judge(double worst_ratio, long long nonfinite, long long n, verify_verdict *v);

/* The verdict of an op judged by its worst element ratio against one bound
 * (scan, the row-wise ops, attention): rel_err = max_err = worst_ratio,
 * tolerance = max_tolerance = tol; passes iff tol > 0, nonfinite == 0 and
 * worst_ratio <= tol (NaN fails). */
void verify_ratio_verdict(double worst_ratio, long long nonfinite, double tol, verify_verdict *v);

/* CPU reference: C = A * B in double, row-major (A m x k, B k x n, C m x n). */
void verify_cpu_gemm(const float *A, const float *B, double *C, int m, int n, int k);
/* Raw sums of a float result against a double reference, on the CPU. */
void verify_sums_host(const float *c, const double *ref, size_t count, verify_sums *s);

#endif
