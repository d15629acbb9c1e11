/* examples/plugin/mine.cu: a user's own SGEMM, measured by compare beside
 * cuBLAS without any edit of compare's sources.
 *
 * The kernel: 64x64 tiles of C per block of 256 threads, each thread 4x4
 * outputs held in registers; A and B staged through shared memory 16 columns
 * of k at a time. Every load and store is bounds-checked, so any m, n, k works
 * (the contract in compare_plugin.h). Not fast, and not meant to be: it is the
 * smallest honest example of a plugin.
 *
 *   cmake -S . -B build -DCMAKE_PREFIX_PATH=<compare's install prefix>
 *   cmake --build build
 *   compare --plugin build/libmine.so --ops sgemm --n 2048 --variants mine */
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

/* The launcher: compare's SGEMM signature, row-major, returns the launch's error. */
static int mine_sgemm(const float *A, const float *B, float *C, int m, int n, int k, cudaStream_t stream)
{
    dim3 grid((n + MINE_TILE - 1) / MINE_TILE, (m + MINE_TILE - 1) / MINE_TILE);
    if (grid.y > 65535) return (int)cudaErrorInvalidValue; /* m beyond 4 million rows: declined below */
    mine_kernel<<<grid, 256, 0, stream>>>(A, B, C, m, n, k);
    return (int)cudaGetLastError();
}

static int mine_supports(const compare_plugin_case *c, char *why, size_t why_len)
{
    if (c->m <= 65535LL * MINE_TILE) return 1;
    snprintf(why, why_len, "mine: m = %lld rows is more than its grid can cover", c->m);
    return 0;
}

static const compare_plugin_variant mine_variants[] = {
    {"mine", "sgemm", "fp32", "example plugin: 64x64 tiles, 4x4 per thread", mine_sgemm, NULL, NULL, NULL, NULL,
     mine_supports},
};

static const compare_plugin mine_plugin = {COMPARE_PLUGIN_ABI_VERSION, "mine", 1, mine_variants};

extern "C" const compare_plugin *compare_plugin_get(void) { return &mine_plugin; }
