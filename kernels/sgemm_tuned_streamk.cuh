/* kernels/sgemm_tuned_streamk.cuh: kind sk, the common main loop on a
 * persistent stream-K grid (Osama et al., PPoPP 2023) with C staged, and its
 * host side: the grid size and the cooperative launch.
 *
 * Idea: one block per resident slot, at most MINB per SM (G blocks). The
 * tiles of the full waves go out as in a grid of one block per tile (wave w:
 * tile w*G + block, all its k-slabs), so blocks working at the same time sit
 * on neighbouring tiles at the same k (L2 reuse: with every tile split,
 * blocks drift apart in k and DRAM traffic grows). The k-slabs of the
 * remaining tiles, in tile order, are cut into G equal contiguous ranges,
 * one per block, after its full tiles: they fill the SMs the last partial
 * wave would leave idle. Partial tiles go through C itself (no workspace):
 * block b's segment that starts mid-tile writes its partial sum into C and
 * publishes sgemm_tuned_sk_flags[b] = the launch's epoch; block b's segment
 * that ends mid-tile waits for flag b+1, then adds its registers to C by
 * reductions. A block waits only on the next one, which publishes after its
 * first split segment, so the chain ends at the last block; every block is
 * resident (cooperative launch), so every wait ends. That needs block b+1's
 * range to be non-empty whenever b's ends mid-tile: sgemm_tuned_sk_grid
 * picks G so. Each tile's sum has a fixed order: results are deterministic.
 * Constraints: the launch is cooperative (refused when not every block can
 * be resident: the caller falls back); the flags are one set per translation
 * unit and device, so two sk launches of one unit must not run at the same
 * time (on one stream they never do). */
#ifndef KERNELS_SGEMM_TUNED_STREAMK_CUH
#define KERNELS_SGEMM_TUNED_STREAMK_CUH

#include "sgemm_tuned_mainloop.cuh" /* before the epilogue: the order of the original single file */
#include "sgemm_tuned_epilogue.cuh"

#define SGEMM_TUNED_SK_MAX_BLOCKS 4096
/* no block takes fewer k-slabs than this (small problems use fewer blocks) */
#define SGEMM_TUNED_SK_MIN_SLABS 8
static __device__ unsigned sgemm_tuned_sk_flags[SGEMM_TUNED_SK_MAX_BLOCKS];

/* Thread 0 waits (acquire, GPU scope) until *flag == epoch; then the block. */
static __device__ __forceinline__ void sgemm_tuned_sk_wait(const unsigned *flag, unsigned epoch)
{
    if (threadIdx.x == 0) {
        unsigned v;
        for (;;) {
            asm volatile("ld.acquire.gpu.global.u32 %0, [%1];\n" : "=r"(v) : "l"(flag) : "memory");
            if (v == epoch)
                break;
            __nanosleep(64);
        }
    }
    __syncthreads();
}

/* After the block's stores: *flag = epoch (release, GPU scope) once every
 * thread of the block has stored. */
static __device__ __forceinline__ void sgemm_tuned_sk_publish(unsigned *flag, unsigned epoch)
{
    __syncthreads();
    if (threadIdx.x == 0)
        asm volatile("st.release.gpu.global.u32 [%0], %1;\n" ::"l"(flag), "r"(epoch) : "memory");
}

/* The block's segment at q (the k-slabs it has done so far: its full-wave
 * tiles first, then its range of the split ones) as {bm, bn, ks, ns}: tile
 * origin, first k-slab, k-slabs (ns <= 0: the block is done). Not inlined:
 * inlined, its 64-bit divisions changed ptxas's register choice for the
 * main loop's FFMAs (more operand bank conflicts). BM, BK and GROUP are
 * template parameters (one copy of the function per tile height), the tile
 * width a run-time argument passed through
 * sgemm_tuned_opaque: otherwise the compiler specialises the function for
 * the one width a translation unit happens to call it with, and the
 * caller's register choice, main loop included, then depends on which other
 * candidates the unit holds. */
template <int BM, int BK, int GROUP>
static __device__ __noinline__ int4 sgemm_tuned_sk_segment(long long q, int m, int n, int k,
                                                           int bn_size)
{
    const int slabs = SGEMM_CEIL_DIV(k, BK);
    const int tiles_n = SGEMM_CEIL_DIV(n, bn_size), tiles_m = SGEMM_CEIL_DIV(m, BM);
    const int g = (int)gridDim.x;
    const int waves = tiles_n * tiles_m / g; /* full waves */
    long long p, e; /* position and end of the segment in all tiles' slabs */
    if (q < (long long)waves * slabs) {
        p = ((long long)(q / slabs) * g + blockIdx.x) * slabs;
        e = p + slabs;
    } else {
        const long long base = (long long)waves * g * slabs;
        const long long rest = ((long long)tiles_n * tiles_m - (long long)waves * g) * slabs;
        p = base + rest * blockIdx.x / g + (q - (long long)waves * slabs);
        e = base + rest * (blockIdx.x + 1) / g;
    }
    const int tile = (int)(p / slabs);
    const int ks = (int)(p - (long long)tile * slabs);
    const int ns = (int)min((long long)(slabs - ks), e - p);
    const int2 t = tile_order_grouped(tile, tiles_n, tiles_m, GROUP);
    return make_int4(t.y * BM, t.x * bn_size, ks, ns);
}

/* x, through a move the compiler cannot see through (ptxas still can). */
static __device__ __forceinline__ int sgemm_tuned_opaque(int x)
{
    int r;
    asm("mov.b32 %0, %1;\n" : "=r"(r) : "r"(x));
    return r;
}

/* Each block walks its range of the work one segment (a tile's slabs inside
 * the range) at a time: main loop over the segment's slabs, then C (staged:
 * stored, or added to the later slabs a neighbour left there), then every
 * copy drained and a barrier before the next segment reuses the stages. */
template <int BM, int BN, int BK, int WM, int WN, int TM, int TN, int ST, int MINB, int GROUP,
          int SP, int B0, int VEC>
static __global__ void __launch_bounds__(sgemm_tuned_threads(BM, BN, WM, WN), MINB)
sgemm_tuned_sk_kernel(const float *__restrict__ A, const float *__restrict__ B,
                      float *__restrict__ C, int m, int n, int k, unsigned epoch)
{
    sgemm_tuned_tile_checks<BM, BN, BK, WM, WN, TM, TN, ST, MINB, SP, B0>();
    constexpr int LN = WN / TN;
    constexpr int WARPS_N = BN / WN;
    const int tid = threadIdx.x;
    const int warp = tid / 32, lane = tid % 32;
    const int tm0 = (warp / WARPS_N) * WM + (lane / LN) * 4;
    const int tn0 = (warp % WARPS_N) * WN + (lane % LN) * 4;
    /* the block's place in its range lives in shared memory and everything
     * derived from it is recomputed after the main loop: a value live across
     * it changes ptxas's register choice for the FFMAs (more operand bank
     * conflicts, a slower main loop) */
    __shared__ long long sk_pos;
    if (tid == 0)
        sk_pos = 0;
    __syncthreads();
    for (;;) {
        {
            const long long q0 = *(volatile long long *)&sk_pos;
            const int4 seg0 = sgemm_tuned_sk_segment<BM, BK, GROUP>(q0, m, n, k, sgemm_tuned_opaque(BN));
            if (seg0.w <= 0)
                break;
            float acc[TM][TN];
            float a_f[3][TM], b_f[3][TN]; /* fragments: 2 buffers, 3 with a mid-slab barrier */
            sgemm_tuned_mainloop<BM, BN, BK, WM, WN, TM, TN, ST, SP, B0, VEC>(
                A, B, m, n, k, seg0.x, seg0.y, seg0.z, seg0.w, tid, warp, lane, tm0, tn0, acc, a_f, b_f);
            {
                const long long q = *(volatile long long *)&sk_pos;
                const int4 seg = sgemm_tuned_sk_segment<BM, BK, GROUP>(q, m, n, k, sgemm_tuned_opaque(BN));
                const int bm = seg.x, bn = seg.y, ks = seg.z, ns = seg.w;
                if (ks + ns < SGEMM_CEIL_DIV(k, BK)) {
                    /* the tile's later slabs (block blockIdx.x+1 on) are in C: add to them */
                    sgemm_tuned_sk_wait(&sgemm_tuned_sk_flags[blockIdx.x + 1], epoch);
                    sgemm_tuned_store_staged<BM, BN, BK, WM, WN, TM, TN, ST, 1, VEC>(
                        C, m, n, bm, bn, tid, warp, lane, tn0, acc);
                } else {
                    sgemm_tuned_store_staged<BM, BN, BK, WM, WN, TM, TN, ST, 0, VEC>(
                        C, m, n, bm, bn, tid, warp, lane, tn0, acc);
                }
                if (ks > 0) /* a partial sum: block blockIdx.x-1 finishes the tile */
                    sgemm_tuned_sk_publish(&sgemm_tuned_sk_flags[blockIdx.x], epoch);
                cp_async_wait(0);
                __syncthreads(); /* every thread has read sk_pos and the stages */
                if (tid == 0)
                    sk_pos = q + ns;
                __syncthreads();
            }
        }
    }
}

// ---- host side: the grid and the cooperative launch ----------------------------------

/* The stream-K grid G for `tiles` tiles of `slabs` k-slabs on `slots`
 * resident blocks (SMs x blocks per SM): at most slots, fewer when that
 * would leave a block under SGEMM_TUNED_SK_MIN_SLABS slabs, at most
 * SGEMM_TUNED_SK_MAX_BLOCKS. Then, when the last partial wave's R = rest *
 * slabs split slabs are fewer than G, some blocks get an empty range, and a
 * block whose range ends mid-tile before such a block would wait on it
 * forever (it waits on the next block only): G is lowered to the largest
 * value, for the waves W = tiles / G it gives, with R >= G, i.e. G <=
 * tiles*slabs / (W*slabs + 1) (or G divides tiles; one slab per tile never
 * ends mid-tile). Large problems (no full wave: R = tiles*slabs >= 8G) keep
 * the first G. Host code, shared with `tuned`'s cost model. */
static inline long long sgemm_tuned_sk_grid(long long slots, long long tiles, long long slabs)
{
    long long g = slots;
    if (g > tiles * slabs / SGEMM_TUNED_SK_MIN_SLABS)
        g = tiles * slabs / SGEMM_TUNED_SK_MIN_SLABS;
    if (g > SGEMM_TUNED_SK_MAX_BLOCKS)
        g = SGEMM_TUNED_SK_MAX_BLOCKS;
    if (g < 1)
        g = 1;
    for (;;) { /* g falls each turn; g = 1 leaves no rest */
        const long long waves = tiles / g, rest = tiles - waves * g;
        if (rest == 0 || slabs == 1 || rest * slabs >= g)
            return g;
        const long long fit = tiles * slabs / (waves * slabs + 1);
        g = fit < g - 1 ? fit : g - 1;
    }
}

/* Grid size (sgemm_tuned_sk_grid), epoch and cooperative launch of a
 * stream-K kernel over tiles x slabs k-slabs: as many blocks as fit on the
 * GPU at once, at most max_per_sm (the candidate's MINB) per SM. The cap: a
 * small tile fits many blocks on an SM, and every block more splits the
 * tiles further (a longer chain of fix-ups through C) for no more FMA
 * throughput once MINB blocks keep the SM busy; the large tiles' occupancy
 * is MINB already. Returns the launch's error: a refused cooperative launch
 * (too many blocks for the GPU as it is shared now, not supported, not
 * permitted) is the caller's to handle. */
static inline int sgemm_tuned_sk_launch(const void *kernel, int threads, int smem_bytes, int *resident,
                                        int max_per_sm, long long tiles, long long slabs,
                                        const float *A, const float *B, float *C, int m, int n,
                                        int k, cudaStream_t stream)
{
    /* launches so far, mod 2^32, never 0 (the flags' initial value); atomic:
     * --parallel-devices launches from one thread per GPU, and two launches
     * given one epoch could each take the other's flags as their own */
    static unsigned epoch;
    int dev = 0, sms = 0, per_sm = 0;
    cudaError_t err = cudaGetDevice(&dev);
    if (err == cudaSuccess)
        err = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
    if (err != cudaSuccess)
        return (int)err;
    const int rerr = smem_resident_per_sm(kernel, threads, smem_bytes, resident, &per_sm);
    if (rerr != 0)
        return rerr;
    if (per_sm > max_per_sm)
        per_sm = max_per_sm;
    const long long grid = sgemm_tuned_sk_grid((long long)sms * per_sm, tiles, slabs);
    unsigned e;
    do
        e = __atomic_add_fetch(&epoch, 1u, __ATOMIC_RELAXED);
    while (e == 0);
    void *args[] = {(void *)&A, (void *)&B, (void *)&C, (void *)&m, (void *)&n, (void *)&k, (void *)&e};
    err = cudaLaunchCooperativeKernel(kernel, dim3((unsigned)grid), dim3((unsigned)threads), args,
                                      (size_t)smem_bytes, stream);
    return (int)err;
}

#endif
