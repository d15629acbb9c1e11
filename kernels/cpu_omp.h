/* kernels/cpu_omp.h: CPU rows, C11 + OpenMP (serial when built without it).
 *
 * cpu_omp_sgemm: C = A * B, row-major, A m x k, B k x n, C m x n, any sizes
 *   >= 1, FP32 products and FP32 accumulation, C overwritten.
 * cpu_omp_reduce: *out = float sum of x[0..n), n >= 1, accumulated in float
 *   (chunked and pairwise, deterministic whatever the thread count).
 * Host pointers. Return 0 on success, 1 for a bad argument, 2 when memory
 * for the partial sums cannot be allocated: the values of cudaErrorInvalidValue
 * and cudaErrorMemoryAllocation, so the harness reports them like a
 * launcher's. */
#ifndef KERNELS_CPU_OMP_H
#define KERNELS_CPU_OMP_H

#ifdef __cplusplus
extern "C" {
#endif

int cpu_omp_sgemm(const float *A, const float *B, float *C, int m, int n, int k);
int cpu_omp_reduce(const float *x, long long n, float *out);
/* Threads a parallel region of these functions uses (1 without OpenMP). */
int cpu_omp_threads(void);

#ifdef __cplusplus
}
#endif

#endif
