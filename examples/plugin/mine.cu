/* examples/plugin/mine.cu: a user's own kernels, measured by compare beside
 * the libraries without any edit of compare's sources: an SGEMM (beside
 * cuBLAS) and a float sum (beside thrust and CUB), both named "mine".
 *
 * The SGEMM: 64x64 tiles of C per block of 256 threads, each thread 4x4
 * outputs held in registers; A and B staged through shared memory 16 columns
 * of k at a time. Every load and store is bounds-checked, so any m, n, k works.
 * The sum: a grid-stride loop of a fixed grid, a warp-shuffle tree per block
 * into one partial per block in the workspace compare sizes for it, then one
 * block sums the partials: two launches, deterministic, no atomics.
 * Not fast, and not meant to be: the smallest honest example of a plugin of
 * two ops (compare_plugin.h has the contract and every op's buffer slots).
 *
 *   cmake -S . -B build -DCMAKE_PREFIX_PATH=<compare's install prefix>
 *   cmake --build build
 *   compare --plugin build/libmine.so --ops sgemm --n 2048 --variants mine
 *   compare --plugin build/libmine.so --ops reduce --elems 2^24 --variants mine */
#include <stdio.h>

#include <compare_plugin.h>

#define MINE_TILE 64
#define MINE_K 16
#define MINE_PER_THREAD 4

static __global__ void __launch_bounds__(256) mine_kernel(const float *A, const float *B, float *C, int m, int n,
                                                          int k)
{
    __shared__ float as[MINE_K][MINE_TILE];
    __shared__ float bs[MINE_K][MINE_TILE];
    const int tx = threadIdx.x % 16, ty = threadIdx.x / 16;
    const int row0 = blockIdx.y * MINE_TILE, col0 = blockIdx.x * MINE_TILE;
    float acc[MINE_PER_THREAD][MINE_PER_THREAD] = {};
    for (int k0 = 0; k0 < k; k0 += MINE_K) {
        /* 64 x 16 of A and 16 x 64 of B: 4 elements of each per thread */
        for (int i = threadIdx.x; i < MINE_TILE * MINE_K; i += 256) {
            int r = i / MINE_K, c = i % MINE_K; /* A: row r of the tile, column c of the slab */
            int gr = row0 + r, gc = k0 + c;
            as[c][r] = gr < m && gc < k ? A[(size_t)gr * k + gc] : 0.0f;
            int br = i / MINE_TILE, bc = i % MINE_TILE; /* B: row br of the slab, column bc of the tile */
            int gbr = k0 + br, gbc = col0 + bc;
            bs[br][bc] = gbr < k && gbc < n ? B[(size_t)gbr * n + gbc] : 0.0f;
        }
        __syncthreads();
        for (int kk = 0; kk < MINE_K; kk++) {
            float a[MINE_PER_THREAD], b[MINE_PER_THREAD];
            for (int i = 0; i < MINE_PER_THREAD; i++) a[i] = as[kk][ty + 16 * i];
            for (int j = 0; j < MINE_PER_THREAD; j++) b[j] = bs[kk][tx + 16 * j];
            for (int i = 0; i < MINE_PER_THREAD; i++)
                for (int j = 0; j < MINE_PER_THREAD; j++) acc[i][j] += a[i] * b[j];
        }
        __syncthreads();
    }
    for (int i = 0; i < MINE_PER_THREAD; i++)
        for (int j = 0; j < MINE_PER_THREAD; j++) {
            int r = row0 + ty + 16 * i, c = col0 + tx + 16 * j;
            if (r < m && c < n) C[(size_t)r * n + c] = acc[i][j];
        }
}

/* The launcher: the SGEMM slots of compare_plugin.h (inputs A, B, output
 * C, row-major), returns the launch's error. */
static int mine_sgemm(const compare_plugin_args *a, cudaStream_t stream)
{
    dim3 grid((unsigned)((a->n + MINE_TILE - 1) / MINE_TILE), (unsigned)((a->m + MINE_TILE - 1) / MINE_TILE));
    mine_kernel<<<grid, 256, 0, stream>>>((const float *)a->inputs[0], (const float *)a->inputs[1],
                                          (float *)a->outputs[0], (int)a->m, (int)a->n, (int)a->k);
    return (int)cudaGetLastError();
}

static int mine_sgemm_supports(const compare_plugin_args *a, char *why, size_t why_len)
{
    if (a->m <= 65535LL * MINE_TILE) return 1;
    snprintf(why, why_len, "mine: m = %lld rows is more than its grid can cover", a->m);
    return 0;
}

// ---------------------------------------------------------------------------
// the sum

#define MINE_SUM_BLOCKS 512
#define MINE_SUM_THREADS 256

/* the sum of v over the block (every thread must call it); thread 0 gets it */
static __device__ float mine_block_sum(float v)
{
    __shared__ float warps[MINE_SUM_THREADS / 32];
    for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
    if (threadIdx.x % 32 == 0) warps[threadIdx.x / 32] = v;
    __syncthreads();
    v = threadIdx.x < MINE_SUM_THREADS / 32 ? warps[threadIdx.x] : 0.0f;
    if (threadIdx.x < 32)
        for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
    return v;
}

static __global__ void __launch_bounds__(MINE_SUM_THREADS) mine_sum_partials(const float *x, long long n,
                                                                             float *partials)
{
    float v = 0.0f;
    for (long long i = (long long)blockIdx.x * MINE_SUM_THREADS + threadIdx.x; i < n;
         i += (long long)MINE_SUM_BLOCKS * MINE_SUM_THREADS)
        v += x[i];
    v = mine_block_sum(v);
    if (threadIdx.x == 0) partials[blockIdx.x] = v;
}

static __global__ void __launch_bounds__(MINE_SUM_THREADS) mine_sum_final(const float *partials, float *out)
{
    float v = 0.0f;
    for (int i = threadIdx.x; i < MINE_SUM_BLOCKS; i += MINE_SUM_THREADS) v += partials[i];
    v = mine_block_sum(v);
    if (threadIdx.x == 0) *out = v;
}

/* The launcher: the reduce slots of compare_plugin.h (input x, output one
 * float), the partials in the workspace. */
static int mine_sum(const compare_plugin_args *a, cudaStream_t stream)
{
    float *partials = (float *)a->workspace;
    if (a->workspace_bytes < MINE_SUM_BLOCKS * sizeof(float)) return (int)cudaErrorInvalidValue;
    mine_sum_partials<<<MINE_SUM_BLOCKS, MINE_SUM_THREADS, 0, stream>>>((const float *)a->inputs[0], a->elems,
                                                                        partials);
    mine_sum_final<<<1, MINE_SUM_THREADS, 0, stream>>>(partials, (float *)a->outputs[0]);
    return (int)cudaGetLastError();
}

static size_t mine_sum_workspace(const compare_plugin_args *a)
{
    (void)a;
    return MINE_SUM_BLOCKS * sizeof(float);
}

// ---------------------------------------------------------------------------
// the table: one row per op (and element type), each with its struct_size

static const compare_plugin_variant mine_variants[] = {
    {sizeof(compare_plugin_variant), "mine", "sgemm", "fp32", "example plugin: 64x64 tiles, 4x4 per thread",
     mine_sgemm, NULL, mine_sgemm_supports},
    {sizeof(compare_plugin_variant), "mine", "reduce", "fp32",
     "example plugin: block partials in the workspace, then one block", mine_sum, mine_sum_workspace, NULL},
};

static const compare_plugin mine_plugin = {COMPARE_PLUGIN_ABI_VERSION, sizeof(compare_plugin), "mine",
                                           (int)(sizeof mine_variants / sizeof mine_variants[0]), mine_variants};

extern "C" const compare_plugin *compare_plugin_get(void) { return &mine_plugin; }
