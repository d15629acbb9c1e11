/* src/gpu/check_warp.cuh: the end of a per-element check kernel (the gemv and
 * conv2d references, gemv_ref.cu and conv_ref.cu): each thread's partial
 * sums reduced over its warp by shuffles, then one atomic per warp and field
 * into the check's device sums. Every lane of the warp must call it (the
 * kernels' grid-stride loops end in it). */
#ifndef COMPARE_CHECK_WARP_CUH
#define COMPARE_CHECK_WARP_CUH

/* one thread's part of a check */
typedef struct {
    double sum_sq_err, sum_sq_ref; /* over its elements (finite ones for the error) */
    double max_abs, worst;         /* non-negative maxima */
    unsigned long long nonfinite, bad;
    unsigned long long first_bad;  /* the smallest bad index, ~0ULL for none */
} check_warp_part;

/* The device sums a check accumulates into (max_abs may be NULL). The
 * maxima are the bits of non-negative doubles, which order like them. */
static __device__ void check_warp_commit(check_warp_part v, double *sum_sq_err, double *sum_sq_ref,
                                         unsigned long long *nonfinite, unsigned long long *bad,
                                         unsigned long long *first_bad, unsigned long long *max_abs,
                                         unsigned long long *worst)
{
    for (int o = 16; o > 0; o /= 2) {
        v.sum_sq_err += __shfl_xor_sync(0xffffffffu, v.sum_sq_err, o);
        v.sum_sq_ref += __shfl_xor_sync(0xffffffffu, v.sum_sq_ref, o);
        v.max_abs = fmax(v.max_abs, __shfl_xor_sync(0xffffffffu, v.max_abs, o));
        v.worst = fmax(v.worst, __shfl_xor_sync(0xffffffffu, v.worst, o));
        v.nonfinite += __shfl_xor_sync(0xffffffffu, v.nonfinite, o);
        v.bad += __shfl_xor_sync(0xffffffffu, v.bad, o);
        const unsigned long long f = __shfl_xor_sync(0xffffffffu, v.first_bad, o);
        v.first_bad = f < v.first_bad ? f : v.first_bad;
    }
    if (threadIdx.x % 32 != 0) return;
    atomicAdd(sum_sq_err, v.sum_sq_err);
    atomicAdd(sum_sq_ref, v.sum_sq_ref);
    if (v.nonfinite) atomicAdd(nonfinite, v.nonfinite);
    if (v.bad) {
        atomicAdd(bad, v.bad);
        atomicMin(first_bad, v.first_bad);
    }
    if (max_abs) atomicMax(max_abs, (unsigned long long)__double_as_longlong(v.max_abs));
    atomicMax(worst, (unsigned long long)__double_as_longlong(v.worst));
}

#endif
