/* kernels/softmax_cluster.cu: the Hopper form of the softmax, softmax_cluster:
 * a row split across the CTAs of a thread-block cluster, the CTAs' partial
 * (max, sum) pairs exchanged through distributed shared memory (DSMEM). Also
 * the form softmax_fused picks on sm_90 for long rows, and for few rows
 * (softmax_cluster_run).
 *
 * Idea: cluster of C CTAs per row (C a power of two, 2..SOFTMAX_CLUSTER_MAX);
 * CTA k holds the slice [k * S, (k + 1) * S) of the row in registers
 * (softmax_regs_load: every load issued first, e = exp(x - m_t) in place),
 * merges its threads' pairs by the online rule (one block reduction), and
 * thread 0 puts the CTA's pair in its shared memory. One cluster barrier
 * (barrier.cluster arrive.release / wait.acquire), then each warp reads the
 * C pairs straight from the other CTAs' shared memory (mapa + ld.shared::
 * cluster, through cooperative_groups' map_shared_rank) and merges them:
 * every thread has the row's (M, D) and stores e * exp(m_t - M) / D. One
 * read of x, one write of y, one cluster barrier a row.
 *   The pair slots are double-buffered by row parity: a CTA writes row i +
 *   2's slot only after the barrier of row i + 1, which every CTA reaches
 *   after reading row i's. A last barrier keeps each CTA's shared memory alive
 *   until the others have read it.
 * Rows longer than C * SOFTMAX_REGS_MAX_ELEMS (a slice past 32 floats for
 * each of 1024 threads) are not held: each CTA streams its slice twice (the
 * running pair, then the normalising pass), the same exchange between:
 * memory traffic 2 reads + 1 write, noted as softmax_cluster_stream.
 *
 * Cluster size (softmax_cluster_choose): the smallest C >= 2 whose slice is
 * <= SOFTMAX_CLUSTER_SLICE elements (a slice that size leaves room for
 * several CTAs per SM: softmax_regs_floats), capped at SOFTMAX_CLUSTER_MAX
 * (8: the portable limit, no opt-in attribute needed); then, while rows * C
 * * 2 <= SMs and the slices stay >= SOFTMAX_CLUSTER_MIN_SLICE, C doubles:
 * few long rows spread over the GPU instead of leaving SMs idle.
 *
 * Constraints (and why):
 *   - sm_90 or later: the kernel body is compiled only for __CUDA_ARCH__ >=
 *     900 (the build also makes compute_80 PTX, where the body is a trap);
 *     softmax_cluster returns cudaErrorNotSupported, launching nothing,
 *     unless policy_arch_current() is sm_90 and the kernel was compiled for
 *     sm_90 (softmax_cluster_available: a compute_80-PTX-only build run
 *     without the forced policy would otherwise reach the trap); the op
 *     file declines the row off sm_90 anyway.
 *   - any rows, cols >= 1 (a CTA whose slice is empty joins the barriers with
 *     an empty pair), 64-bit indices, at most 2^31 - 1 CTAs, the clusters
 *     striding over the rows; vector packs as in softmax_common.cuh.
 *   - launched with cudaLaunchKernelEx and a cluster-dimension attribute (the
 *     size is a run-time choice, not __cluster_dims__).
 *
 * Run just this variant:  ./compare --ops softmax --variants cluster
 */
#include <cooperative_groups.h>

#include "kernel_ran.h"
#include "policy.h"
#include "softmax_common.cuh"

namespace cg = cooperative_groups;

#define SOFTMAX_CLUSTER_MAX 8          /* portable cluster size limit */
#define SOFTMAX_CLUSTER_SLICE 8192     /* target elements per CTA */
#define SOFTMAX_CLUSTER_MIN_SLICE 2048 /* few rows: grow C while slices stay this long */
#define SOFTMAX_CLUSTER_STREAM_THREADS 512

static_assert(SOFTMAX_CLUSTER_MAX <= 32, "one warp merges the cluster's pairs, a lane each");
static_assert(SOFTMAX_CLUSTER_SLICE <= SOFTMAX_REGS_MAX_ELEMS, "the target slice must fit in registers");

// ---- the kernel ------------------------------------------------------------------------

/* NP packs a thread held in registers; NP = 0: the slice streamed twice. */
template <typename T, int VEC, int NP>
static __global__ void __launch_bounds__(1024, 1)
softmax_cluster_kernel(const T *__restrict__ x, T *__restrict__ y, long long rows, long long cols,
                       long long slice_packs)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    __shared__ softmax_md s_md[2][SOFTMAX_MAX_WARPS];
    __shared__ softmax_md s_cta[2];
    cg::cluster_group cl = cg::this_cluster();
    const int csize = (int)cl.num_blocks();
    const int rank = (int)cl.block_rank();
    const int tid = threadIdx.x, nthr = blockDim.x, lane = tid & 31;
    const long long npacks = cols / VEC;
    const long long p0 = min(npacks, (long long)rank * slice_packs);
    const long long p1 = min(npacks, p0 + slice_packs);
    const long long step = gridDim.x / csize;
    int it = 0;
    for (long long r = blockIdx.x / csize; r < rows; r += step, it ^= 1) {
        const T *xr = x + r * cols;
        T *yr = y + r * cols;
        float e[NP > 0 ? NP : 1][VEC];
        softmax_md own;
        if constexpr (NP > 0)
            own = softmax_regs_load<T, VEC, NP>(xr, p0, p1, tid, nthr, e);
        else
            own = softmax_stream_md<T, VEC>(xr + p0 * VEC, p1 - p0, tid, nthr);
        const softmax_md cta = softmax_block_reduce<SOFTMAX_OP_MD>(own, s_md[it]);
        if (tid == 0)
            s_cta[it] = cta;
        cl.sync();
        softmax_md all = softmax_md_empty();
        if (lane < csize)
            all = *cl.map_shared_rank(&s_cta[it], lane);
        all = softmax_warp_reduce<SOFTMAX_OP_MD>(all);
        if constexpr (NP > 0)
            softmax_regs_store<T, VEC, NP>(yr, p0, p1, tid, nthr, e, softmax_regs_scale(own, all));
        else
            softmax_stream_write<T, VEC>(xr + p0 * VEC, yr + p0 * VEC, p1 - p0, all.m, 1.0f / all.d, tid, nthr);
    }
    cl.sync(); /* no CTA exits while another may still read its s_cta */
#else
    __trap(); /* never launched: softmax_cluster declines off sm_90 */
#endif
}

// ---- host side ---------------------------------------------------------------------------

typedef struct {
    int csize;             /* CTAs per cluster (per row) */
    long long slice_packs; /* packs per CTA */
    int floats;            /* floats a thread holds (8, 16, 32), 0: streamed */
    int threads;           /* per CTA */
} softmax_cluster_plan;

static softmax_cluster_plan softmax_cluster_choose(long long rows, long long cols, int vec, int sms)
{
    softmax_cluster_plan p;
    int c = 2;
    while (c < SOFTMAX_CLUSTER_MAX && (cols + c - 1) / c > SOFTMAX_CLUSTER_SLICE)
        c *= 2;
    while (c < SOFTMAX_CLUSTER_MAX && rows * c * 2 <= sms && cols / (c * 2) >= SOFTMAX_CLUSTER_MIN_SLICE)
        c *= 2;
    const long long slice = softmax_round_up((cols + c - 1) / c, vec);
    p.csize = c;
    p.slice_packs = slice / vec;
    p.floats = softmax_regs_floats(slice);
    const long long per_thread = p.floats ? p.floats / vec : 1;
    const long long threads =
        p.floats ? softmax_round_up((p.slice_packs + per_thread - 1) / per_thread, 32) : SOFTMAX_CLUSTER_STREAM_THREADS;
    p.threads = (int)threads;
    return p;
}

template <typename T, int VEC, int NP>
static int softmax_cluster_launch(const rowwise_args *a, cudaStream_t s, const softmax_cluster_plan *p)
{
    const long long max_clusters = 0x7fffffffLL / p->csize;
    const long long clusters = a->rows < max_clusters ? a->rows : max_clusters;
    cudaLaunchConfig_t cfg = {};
    cudaLaunchAttribute attr[1];
    attr[0].id = cudaLaunchAttributeClusterDimension;
    attr[0].val.clusterDim.x = (unsigned)p->csize;
    attr[0].val.clusterDim.y = 1;
    attr[0].val.clusterDim.z = 1;
    cfg.gridDim = dim3((unsigned)(clusters * p->csize));
    cfg.blockDim = dim3((unsigned)p->threads);
    cfg.dynamicSmemBytes = 0;
    cfg.stream = s;
    cfg.attrs = attr;
    cfg.numAttrs = 1;
    const cudaError_t e = cudaLaunchKernelEx(&cfg, softmax_cluster_kernel<T, VEC, NP>, (const T *)a->x, (T *)a->y,
                                             a->rows, a->cols, p->slice_packs);
    const cudaError_t last = cudaGetLastError(); /* clears a refused launch's error too */
    return (int)(e != cudaSuccess ? e : last);
}

template <typename T, int VEC>
static int softmax_cluster_pick(const rowwise_args *a, cudaStream_t s, const softmax_cluster_plan *p)
{
    switch (p->floats) {
    case 8: return softmax_cluster_launch<T, VEC, 8 / VEC>(a, s, p);
    case 16: return softmax_cluster_launch<T, VEC, 16 / VEC>(a, s, p);
    case 32: return softmax_cluster_launch<T, VEC, 32 / VEC>(a, s, p);
    default: return softmax_cluster_launch<T, VEC, 0>(a, s, p);
    }
}

template <typename T>
static int softmax_cluster_typed(const rowwise_args *a, cudaStream_t s, int sms)
{
    const int vec = softmax_vec_ok(a);
    const softmax_cluster_plan p = softmax_cluster_choose(a->rows, a->cols, vec ? softmax_vec<T>::n : 1, sms);
    const int rc = vec ? softmax_cluster_pick<T, softmax_vec<T>::n>(a, s, &p) : softmax_cluster_pick<T, 1>(a, s, &p);
    static const char *const names[2][2] = {{"softmax_cluster_stream_scalar", "softmax_cluster_stream_vec16"},
                                            {"softmax_cluster_scalar", "softmax_cluster_vec16"}};
    const char *why = p.floats ? NULL : "row longer than the cluster's registers: two reads of x";
    if (!vec)
        why = p.floats ? "rows not 16-byte aligned: one element an access"
                       : "row longer than the cluster's registers, rows not 16-byte aligned";
    kernel_ran_note(names[p.floats != 0][vec], why);
    return rc;
}

int softmax_cluster_run(const rowwise_args *a, cudaStream_t s, int sms)
{
    switch (a->type) {
    case ELEM_FP32: return softmax_cluster_typed<float>(a, s, sms);
    case ELEM_FP16: return softmax_cluster_typed<__half>(a, s, sms);
    case ELEM_BF16: return softmax_cluster_typed<__nv_bfloat16>(a, s, sms);
    default: return (int)cudaErrorInvalidValue;
    }
}

/* 1 when the cluster kernel was compiled for sm_90 or later, not from
 * compute_80 PTX (preset sm80-ptx), where its body is the trap: asked once
 * per device ordinal (0..63; 0 unknown, 1 no, 2 yes), the others every call. */
static int softmax_cluster_compiled(void)
{
    static int cache[64];
    int dev = 0;
    if (cudaGetDevice(&dev) != cudaSuccess) {
        (void)cudaGetLastError();
        return 0;
    }
    int v = dev < 64 ? __atomic_load_n(&cache[dev], __ATOMIC_RELAXED) : 0;
    if (v == 0) {
        cudaFuncAttributes fa;
        if (cudaFuncGetAttributes(&fa, softmax_cluster_kernel<float, 4, 8>) != cudaSuccess) {
            (void)cudaGetLastError();
            return 0;
        }
        v = fa.ptxVersion >= 90 || (fa.ptxVersion == 0 && fa.binaryVersion >= 90) ? 2 : 1;
        if (dev < 64)
            __atomic_store_n(&cache[dev], v, __ATOMIC_RELAXED);
    }
    return v == 2;
}

int softmax_cluster_available(void)
{
    const policy_arch arch = policy_arch_current();
    if (arch == POLICY_ARCH_GENERIC || arch < POLICY_ARCH_90)
        return 0;
    return softmax_cluster_compiled();
}

static int softmax_cluster_entry(const rowwise_args *a, cudaStream_t s)
{
    if (!softmax_cluster_available())
        return (int)cudaErrorNotSupported;
    int sms = 0;
    const int err = softmax_sm_count(&sms);
    if (err != 0)
        return err;
    return softmax_cluster_run(a, s, sms);
}

int softmax_cluster(const rowwise_args *a, cudaStream_t s)
{
    return softmax_by_type(a, s, softmax_cluster_entry, softmax_cluster_entry, softmax_cluster_entry);
}
