/* kernels/gemm_mma.cu: the variant gemm_mma of the op gemm, the first
 * tensor-core rung of the low-precision ladder (fp16 and bf16 in layouts tn
 * and nn, fp8_e4m3 in tn; contract: gemm_lowp.h).
 *
 * Idea: warp-level mma.sync.aligned.m16n8k16 with FP32 accumulators, fed by
 * ldmatrix from XOR-swizzled shared memory (kernels/gemm_mma_core.cuh: no
 * bank conflicts on the fragment reads; layout nn reads B with
 * ldmatrix.trans). A 128 x 128 block tile, k in slabs of 64 bytes (32 fp16 /
 * bf16 elements, 64 fp8), 8 warps of 64 x 32 each (4 x 4 fragments). Two
 * shared stages with register prefetch:
 * the next slab is loaded from global memory into registers while the warps
 * multiply the current one out of shared memory, then stored to the other
 * stage, one barrier a slab. This is the classic pre-cp.async pipeline; the
 * next rung (gemm_multistage) replaces the register round trip with cp.async.
 *
 * Constraints: any m, n, k >= 1 (tiles past the edges are zero-filled and
 * their stores predicated). Rows that are not 16-byte chunks (k, or n in
 * layout nn, not a multiple of 8 fp16 / bf16 or 16 fp8 elements) or
 * pointers not 16-byte aligned are loaded element by element: the same
 * kernel's slower instance, noted through kernel_ran_note with the reason.
 * fp8_e4m3 (mma.sync m16n8k32, C in bf16) runs in layout tn only, on sm_89+
 * with code built for it; otherwise gemm_mma_supports declines.
 *
 * fp8 once stopped with a misaligned address at every shape: the shared
 * tile's swizzle gave chunk offsets of 8 elements, 16 bytes only for 2-byte
 * types, so fp8's 16-byte stores and ldmatrix rows began mid-unit. Chunks
 * are now scaled by the element size (kernels/gemm_mma_core.cuh's header
 * says more; tests/test_gemm_mma_layout.c checks the layout on the CPU).
 * Run just this: ./compare --ops gemm --variants mma */
#include <stdio.h>

#include "gemm_mma_core.cuh"

#define GM_BM 128
#define GM_BN 128
#define GM_BKB 64 /* k slab in bytes: 32 fp16 / bf16, 64 fp8 */
#define GM_WM 64
#define GM_WN 32
#define GM_THREADS ((GM_BM / GM_WM) * (GM_BN / GM_WN) * 32)

template <typename T, bool BKM, bool VEC>
static __global__ void __launch_bounds__(GM_THREADS)
    gemm_mma_kernel(const T *__restrict__ A, const T *__restrict__ B, typename gemm_mma_elem<T>::out *__restrict__ C,
                    int m, int n, int k)
{
    enum { GM_BK = GM_BKB / (int)sizeof(T), EPC = 16 / (int)sizeof(T) };
    typedef gemm_mma_warp<T, GM_BM, GM_BN, GM_BK, GM_WM, GM_WN, BKM> warp;
    typedef gemm_mma_tile<T, GM_BM, GM_BK / EPC, GM_THREADS, VEC> tile_a;
    /* B: n x k rows (tn) or k x n rows (nn) */
    typedef gemm_mma_tile<T, BKM ? GM_BN : GM_BK, BKM ? GM_BK / EPC : GM_BN / EPC, GM_THREADS, VEC> tile_b;
    __shared__ __align__(128) T sA[2][GM_BM * GM_BK];
    __shared__ __align__(128) T sB[2][GM_BN * GM_BK];

    const int tid = threadIdx.x, lane = tid & 31, w = tid >> 5;
    const int wm0 = (w / (GM_BN / GM_WN)) * GM_WM, wn0 = (w % (GM_BN / GM_WN)) * GM_WN;
    int bm0, bn0;
    tile_order_origin(blockIdx.x, m, n, GM_BM, GM_BN, GEMM_MMA_GROUP, &bm0, &bn0);

    /* slab kt's tiles: A rows bm0.., columns kt BK..; B likewise */
    uint4 ra[tile_a::PER], rb[tile_b::PER];
#define GM_FETCH(kt)                                                                                            \
    do {                                                                                                        \
        _Pragma("unroll") for (int j = 0; j < tile_a::PER; j++) ra[j] =                                         \
            tile_a::fetch(A, k, m, k, bm0, (kt) * GM_BK, tid, j);                                               \
        _Pragma("unroll") for (int j = 0; j < tile_b::PER; j++) rb[j] =                                         \
            BKM ? tile_b::fetch(B, k, n, k, bn0, (kt) * GM_BK, tid, j)                                          \
                : tile_b::fetch(B, n, k, n, (kt) * GM_BK, bn0, tid, j);                                         \
    } while (0)
#define GM_STORE(s)                                                                                             \
    do {                                                                                                        \
        _Pragma("unroll") for (int j = 0; j < tile_a::PER; j++) tile_a::store(sA[s], tid, j, ra[j]);            \
        _Pragma("unroll") for (int j = 0; j < tile_b::PER; j++) tile_b::store(sB[s], tid, j, rb[j]);            \
    } while (0)

    float acc[warp::MI][warp::NI][4];
    warp::zero(acc);

    const int slabs = (k + GM_BK - 1) / GM_BK;
    GM_FETCH(0);
    GM_STORE(0);
    __syncthreads();
    for (int kt = 0; kt < slabs; kt++) {
        const int s = kt & 1;
        if (kt + 1 < slabs) GM_FETCH(kt + 1); /* in flight while this slab is multiplied */
        warp::compute(acc, sA[s], sB[s], wm0, wn0, lane);
        if (kt + 1 < slabs) GM_STORE(s ^ 1); /* stage s ^ 1 was last read before the previous barrier */
        __syncthreads();
    }
#undef GM_FETCH
#undef GM_STORE
    warp::store(acc, C, m, n, bm0 + wm0, bn0 + wn0, lane);
}

template <typename T, bool BKM, bool VEC>
static int gemm_mma_launch(const gemm_args *g, cudaStream_t s)
{
    const long long tiles = ((g->m + GM_BM - 1) / GM_BM) * ((g->n + GM_BN - 1) / GM_BN);
    gemm_mma_kernel<T, BKM, VEC><<<(unsigned)tiles, GM_THREADS, 0, s>>>(
        (const T *)g->A, (const T *)g->B, (typename gemm_mma_elem<T>::out *)g->C, (int)g->m, (int)g->n, (int)g->k);
    return (int)cudaGetLastError();
}

static const gemm_mma_launch_fn gemm_mma_instances[3][2][2] = GEMM_MMA_INSTANCES(gemm_mma_launch);

GEMM_MMA_ENTRY(gemm_mma, gemm_mma_instances, ((const void *)gemm_mma_kernel<__nv_fp8_e4m3, true, true>),
               "gemm_mma_128x128x64B")
