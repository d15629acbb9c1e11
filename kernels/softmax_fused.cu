/* kernels/softmax_fused.cu: the pick of the softmax ladder, softmax_fused:
 * one read of x and one write of y, the row held on chip in between.
 *
 * Idea: a row is loaded into registers once (every load of a thread issued
 * before any is used), each thread takes its own maximum m_t and turns its
 * elements into e = exp(x - m_t) in place, summing them; the threads' (m_t,
 * sum) pairs merge by the online rule (Milakov & Gimelshein, 2018:
 * softmax_md_merge) in ONE reduction, not a max and then a sum; each thread
 * then stores e * exp(m_t - M) / D. One exp per element, one reduction per
 * row, one read, one write: memory traffic 2 * cols * bytes per row, the
 * minimum.
 *
 * Dispatch by cols (vector path: 16-byte packs of 16 / bytes elements when
 * softmax_vec_ok, else one element an access; the same choices either way):
 *   cols <= SOFTMAX_WARP_MAX_COLS (1024)
 *       a warp per row, SOFTMAX_WARP_ROWS rows a block; a lane holds at most
 *       32 floats (packs per lane rounded up to a power of two, a template
 *       parameter); the merge is five shuffles: no shared memory, no barrier.
 *   cols <= SOFTMAX_FUSED_CLUSTER_COLS (8192), or any cols off sm_90 up to
 *   SOFTMAX_REGS_MAX_ELEMS (32768)
 *       a block per row, the row in registers: 8, 16 or 32 floats a thread
 *       (softmax_regs_floats: 32 once the row has 2048 elements, the most
 *       data per register), as many warps as that needs (<= 1024 threads);
 *       one block reduction of the pairs (one __syncthreads, double-buffered
 *       shared slots). Up to 8192 a block is <= 256 threads of <= 64
 *       registers: at least four blocks, four rows in flight, per SM.
 *   on sm_90 (softmax_cluster_available): cols > SOFTMAX_FUSED_CLUSTER_COLS, or
 *   rows * 2 <= SMs and cols >= SOFTMAX_FEW_ROWS_COLS (4096)
 *       the cluster form (softmax_cluster.cu): the row split over the CTAs
 *       of a thread-block cluster, slices of <= 8192 elements in registers,
 *       the CTAs' pairs merged through distributed shared memory. A block
 *       per row of 32768 elements would be 1024 threads of 64 registers, one
 *       block per SM: its loads, its reduction and its stores could not
 *       overlap another row's; four CTAs of 256 threads can. Few rows spread
 *       over more SMs than one block per row would use.
 *   longer rows, off sm_90
 *       the online rung (softmax.cu): two reads of x. Noted as a fallback.
 * The thresholds are compile-time constants below, chosen from the
 * registers each form needs (ptxas -v), not yet from measurements: change
 * them after timing `compare --ops softmax --variants fused,cluster`.
 *
 * Constraints (and why):
 *   - any rows, cols >= 1; 64-bit indices; grids capped at 2^31 - 1 blocks,
 *     the kernels stride over what is left.
 *   - registers: the warp kernel runs 128 threads with __launch_bounds__
 *     (128, 8) (<= 64 registers, 32 floats held), the block kernel up to 1024
 *     threads (<= 64 registers, 32 floats held): no spills (ptxas -v).
 *   - kernel_ran_note names the form that ran (warp / block / cluster,
 *     vec16 or scalar), the scalar path and the two-pass fallback with their
 *     reasons.
 *
 * Run just this variant:  ./compare --ops softmax --variants fused
 */
#include "kernel_ran.h"
#include "softmax_common.cuh"

#define SOFTMAX_WARP_MAX_COLS 1024        /* a warp per row up to here: 32 floats a lane */
#define SOFTMAX_WARP_ROWS 4               /* warps (rows) per block of the warp kernel */
#define SOFTMAX_FUSED_CLUSTER_COLS 8192   /* sm_90: longer rows go to the cluster form */
#define SOFTMAX_FEW_ROWS_COLS 4096        /* sm_90: with rows * 2 <= SMs, rows this long too */

static_assert(SOFTMAX_WARP_MAX_COLS <= 32 * 32, "a lane holds at most 32 floats of a row");
static_assert(SOFTMAX_FUSED_CLUSTER_COLS <= SOFTMAX_REGS_MAX_ELEMS,
              "rows below the cluster threshold must fit the block kernel's registers");

// ---- warp per row -------------------------------------------------------------------

template <typename T, int VEC, int NP>
static __global__ void __launch_bounds__(SOFTMAX_WARP_ROWS * 32, 8)
softmax_warp_kernel(const T *__restrict__ x, T *__restrict__ y, long long rows, long long cols)
{
    const int lane = threadIdx.x & 31;
    const long long npacks = cols / VEC;
    const long long step = (long long)gridDim.x * SOFTMAX_WARP_ROWS;
    for (long long r = (long long)blockIdx.x * SOFTMAX_WARP_ROWS + (threadIdx.x >> 5); r < rows; r += step) {
        float e[NP][VEC];
        const softmax_md own = softmax_regs_load<T, VEC, NP>(x + r * cols, 0, npacks, lane, 32, e);
        const softmax_md all = softmax_warp_reduce<SOFTMAX_OP_MD>(own);
        softmax_regs_store<T, VEC, NP>(y + r * cols, 0, npacks, lane, 32, e, softmax_regs_scale(own, all));
    }
}

// ---- block per row, the row in registers ------------------------------------------------

template <typename T, int VEC, int NP>
static __global__ void __launch_bounds__(1024, 1)
softmax_block_kernel(const T *__restrict__ x, T *__restrict__ y, long long rows, long long cols)
{
    __shared__ softmax_md s_md[2][SOFTMAX_MAX_WARPS];
    const int tid = threadIdx.x, nthr = blockDim.x;
    const long long npacks = cols / VEC;
    int it = 0;
    for (long long r = blockIdx.x; r < rows; r += gridDim.x, it ^= 1) {
        float e[NP][VEC];
        const softmax_md own = softmax_regs_load<T, VEC, NP>(x + r * cols, 0, npacks, tid, nthr, e);
        const softmax_md all = softmax_block_reduce<SOFTMAX_OP_MD>(own, s_md[it]);
        softmax_regs_store<T, VEC, NP>(y + r * cols, 0, npacks, tid, nthr, e, softmax_regs_scale(own, all));
    }
}

// ---- host side ------------------------------------------------------------------------

template <typename T, int VEC, int NP>
static void softmax_warp_launch(const rowwise_args *a, cudaStream_t s)
{
    const dim3 grid(softmax_grid((a->rows + SOFTMAX_WARP_ROWS - 1) / SOFTMAX_WARP_ROWS));
    softmax_warp_kernel<T, VEC, NP><<<grid, SOFTMAX_WARP_ROWS * 32, 0, s>>>((const T *)a->x, (T *)a->y, a->rows,
                                                                            a->cols);
}

/* packs per lane: the power of two >= ceil(packs / 32); cols <= 1024 keeps
 * it <= 32 / VEC (32 floats a lane) */
template <typename T, int VEC>
static void softmax_warp_pick(const rowwise_args *a, cudaStream_t s)
{
    constexpr int max_np = 32 / VEC;
    const long long per_lane = (a->cols / VEC + 31) / 32;
    if (per_lane <= 1)
        softmax_warp_launch<T, VEC, 1>(a, s);
    else if (per_lane <= 2)
        softmax_warp_launch<T, VEC, 2>(a, s);
    else if (per_lane <= 4 || max_np == 4)
        softmax_warp_launch<T, VEC, 4>(a, s);
    else if constexpr (max_np >= 8) {
        if (per_lane <= 8 || max_np == 8)
            softmax_warp_launch<T, VEC, 8>(a, s);
        else if constexpr (max_np >= 32) {
            if (per_lane <= 16)
                softmax_warp_launch<T, VEC, 16>(a, s);
            else
                softmax_warp_launch<T, VEC, 32>(a, s);
        }
    }
}

template <typename T, int VEC, int NF>
static void softmax_block_launch(const rowwise_args *a, cudaStream_t s)
{
    static_assert(NF % VEC == 0, "a thread holds whole packs");
    constexpr int NP = NF / VEC;
    const long long threads = softmax_round_up((a->cols / VEC + NP - 1) / NP, 32);
    softmax_block_kernel<T, VEC, NP>
        <<<softmax_grid(a->rows), (unsigned)threads, 0, s>>>((const T *)a->x, (T *)a->y, a->rows, a->cols);
}

template <typename T, int VEC>
static void softmax_block_pick(const rowwise_args *a, cudaStream_t s)
{
    const int nf = softmax_regs_floats(a->cols);
    if (nf == 8)
        softmax_block_launch<T, VEC, 8>(a, s);
    else if (nf == 16)
        softmax_block_launch<T, VEC, 16>(a, s);
    else
        softmax_block_launch<T, VEC, 32>(a, s);
}

template <typename T>
static int softmax_fused_run(const rowwise_args *a, cudaStream_t s)
{
    const int vec = softmax_vec_ok(a);
    const char *scalar_why = vec ? NULL : "rows not 16-byte aligned: one element an access";
    if (a->cols <= SOFTMAX_WARP_MAX_COLS) {
        if (vec)
            softmax_warp_pick<T, softmax_vec<T>::n>(a, s);
        else
            softmax_warp_pick<T, 1>(a, s);
        kernel_ran_note(vec ? "softmax_fused_warp_vec16" : "softmax_fused_warp_scalar", scalar_why);
        return (int)cudaGetLastError();
    }
    int sms = 0;
    const int err = softmax_sm_count(&sms);
    if (err != 0)
        return err;
    const int hopper = softmax_cluster_available();
    if (hopper && (a->cols > SOFTMAX_FUSED_CLUSTER_COLS || (a->rows * 2 <= sms && a->cols >= SOFTMAX_FEW_ROWS_COLS)))
        return softmax_cluster_run(a, s, sms);
    if (a->cols <= SOFTMAX_REGS_MAX_ELEMS) {
        if (vec)
            softmax_block_pick<T, softmax_vec<T>::n>(a, s);
        else
            softmax_block_pick<T, 1>(a, s);
        kernel_ran_note(vec ? "softmax_fused_block_vec16" : "softmax_fused_block_scalar", scalar_why);
        return (int)cudaGetLastError();
    }
    const int rc = softmax_online(a, s);
    kernel_ran_note(vec ? "softmax_online_vec16" : "softmax_online_scalar",
                    "row longer than a block's registers and no clusters (sm_90) here: two reads of x");
    return rc;
}

int softmax_fused(const rowwise_args *a, cudaStream_t s)
{
    return softmax_by_type(a, s, softmax_fused_run<float>, softmax_fused_run<__half>,
                           softmax_fused_run<__nv_bfloat16>);
}
