/* tests/probes/transpose_probe.cu: times every candidate of transpose `fast`'s
 * vector path (TRANSPOSE_FAST_CANDIDATES in kernels/transpose_fast.cuh)
 * against cublasSgeam (alpha 1, beta 0, OP_T) and a device-to-device copy of
 * the same bytes, so that TRANSPOSE_FAST_PICK in kernels/transpose.cu can be
 * chosen by measurement. Not part of `all` or of ctest: built by
 *
 *   cmake --build build --target probes     (the build's CUDA architectures)
 *
 * The candidates themselves are timed by the harness now, and a pick is
 * chosen from that: `compare --candidates transpose_fast --n 4096,8192`
 * (run_probes.sh step transpose-cands). The probe stays, with its own flush
 * and event timer, for what is not a variant: the ceiling rows (a float4
 * copy kernel, the device-to-device cudaMemcpy), the kernel before the
 * template, the >2^31-element correctness case and the one-launch Nsight
 * mode; it still lists the candidates beside those rows (the same table),
 * so that one run shows them against the ceilings.
 *
 * Arguments: build/transpose_probe [REPS [BIG [ROWS]]]
 *   REPS  samples a row, default 25;
 *   BIG   0 skips the correctness case with more than 2^31 elements;
 *   ROWS  quick mode, for Nsight Compute: a comma-separated list of row names
 *         (the first column of the table, e.g. cublas_geam,base,diag,copy_vec;
 *         put cublas_geam first for the %geam column). Only 8192 x 8192, no
 *         correctness checks, REPS ignored: each named row runs once as a
 *         warm-up and once timed, the timed launch alone between
 *         cudaProfilerStart and cudaProfilerStop, so that
 *         `ncu --profile-from-start off` profiles exactly one launch of each
 *         row whatever its kernels are called (tests/probes/run_probes.sh,
 *         probe transpose-ncu). Its times are one sample, and under ncu they
 *         include the replay passes: read the profiler's numbers instead.
 *
 * What it does:
 *   1. correctness, every candidate: awkward shapes (multiples of 4 that cross
 *      every tile edge, thin and tall shapes, partial tile groups) and one
 *      shape with m * n > 2^31 elements when the memory is there, each output
 *      (poisoned with 0xff first) checked bit for bit against the definition
 *      out[j * m + i] == in[i * n + j] by a GPU kernel (the two copy rows
 *      below on the edge shapes too, against out == in).
 *   2. timing at 8192 x 8192 (the size that matters) and 4096 x 4096: geam
 *      is checked against the definition, each candidate's output (and the
 *      "old" row's: fast's vector kernel before the template, kept verbatim
 *      below) bit for bit against geam's, the copy rows' against the input;
 *      then every row is timed as the median of `reps` samples after
 *      warm-up, each sample its own cudaEvent pair, with the L2 flushed
 *      before each by a 128 MiB cudaMemsetAsync outside the timed interval.
 * Diagnostic rows (kernels of this file, not candidates):
 *   copy_vec        a grid-stride float4 copy (4 loads in flight a thread,
 *                   8 blocks of 256 an SM): a hand-written ceiling beside
 *                   memcpy_d2d.
 *   copy_bulk       the same copy by the SM's bulk copy engine (TMA 1-D
 *                   cp.async.bulk through 16 KiB of shared memory a block):
 *                   whether TMA traffic reaches memcpy_d2d where SM loads
 *                   and stores stop short.
 *   tilecopy_64x64  base's structure (64 x 64 tiles, 256 threads, 8 blocks an
 *                   SM, one block a tile in row-major tile order, the same
 *                   16-byte loads, shared tile, barriers and 16-byte stores of
 *                   4 x 32 units) without the transpose: out tile (ty, tx) =
 *                   in tile (ty, tx). At copy speed while base is slower, the
 *                   cost is the transposed write pattern (the resident blocks
 *                   writing 256-byte pieces of many output rows 32 KiB apart
 *                   at 8192), not the kernel's structure; as slow as base, the
 *                   structure (occupancy, barriers, bytes in flight) is.
 * Input: a deterministic pattern of finite, non-zero floats in [1, 2) with
 * hashed mantissas (never zeros: DRAM and the bus may move zeros faster).
 * Bytes counted: 8 m n (each element read once and written once); the copy
 * rows move 4 m n bytes from one buffer to another (the same count).
 * Theoretical bandwidth: 2 x memory clock (kHz) x 1e3 x bus width (bits) / 8.
 * Exit status 1 (and FAIL lines) when any check fails, 2 on bad arguments. */
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <cuda_runtime.h>
#include <cuda_profiler_api.h>
#include <cublas_v2.h>

#include "transpose_fast.cuh"

// ---- checks ---------------------------------------------------------------------------

static void probe_cuda_fail(cudaError_t e, const char *what, const char *file, int line)
{
    fprintf(stderr, "FAIL %s:%d: %s: %s\n", file, line, what, cudaGetErrorString(e));
    exit(1);
}

static void probe_blas_fail(cublasStatus_t s, const char *what, const char *file, int line)
{
    fprintf(stderr, "FAIL %s:%d: %s: cuBLAS status %d\n", file, line, what, (int)s);
    exit(1);
}

#define CK(x)                                                                                                  \
    do {                                                                                                       \
        cudaError_t probe_e_ = (cudaError_t)(x);                                                               \
        if (probe_e_ != cudaSuccess)                                                                           \
            probe_cuda_fail(probe_e_, #x, __FILE__, __LINE__);                                                 \
    } while (0)
#define CKB(x)                                                                                                 \
    do {                                                                                                       \
        cublasStatus_t probe_s_ = (x);                                                                         \
        if (probe_s_ != CUBLAS_STATUS_SUCCESS)                                                                 \
            probe_blas_fail(probe_s_, #x, __FILE__, __LINE__);                                                 \
    } while (0)

// ---- candidates ------------------------------------------------------------------------

typedef int (*probe_launcher)(const float *in, float *out, int m, int n, cudaStream_t stream);

typedef struct {
    const char *name;
    probe_launcher fn;
    int p[7]; /* TR, TC, THREADS, MINB, GROUP, HINT, B4 (0 when a row leaves it out) */
} probe_candidate;

#define PROBE_ROW(NAME) {#NAME, transpose_fast_launch<TRANSPOSE_FAST_CFG_##NAME>, {TRANSPOSE_FAST_CFG_##NAME}},
static const probe_candidate probe_cands[] = {TRANSPOSE_FAST_CANDIDATES(PROBE_ROW)};
#define PROBE_NCANDS ((int)(sizeof probe_cands / sizeof probe_cands[0]))

static const char *probe_hint_name(int h)
{
    return h == TRANSPOSE_HINT_LDG ? "ldg" : h == TRANSPOSE_HINT_CS ? "cs" : h == TRANSPOSE_HINT_NA ? "na" : "ef";
}

// ---- the kernel before the template, verbatim: the "old" row ----------------------------

/* fast's vector kernel as it was before transpose_fast.cuh (64 x 64 tile, 256
 * threads, 8 blocks an SM, blockIdx.x = column tile, blockIdx.y loops over row
 * tiles), kept here to measure the template's `base` against it in one run.
 * nvcc compiles its float4 store into four 4-byte stores. */
#define PROBE_OLD_TILE 64
#define PROBE_OLD_THREADS 256
static __global__ void __launch_bounds__(PROBE_OLD_THREADS, 8)
probe_old_kernel(const float *__restrict__ in, float *__restrict__ out, int m, int n)
{
    __shared__ float tile[PROBE_OLD_TILE][PROBE_OLD_TILE + 1];
    const int lane = threadIdx.x & 31;
    const int warp = threadIdx.x >> 5;
    const int a = 4 * (warp >> 1) + (lane >> 3);
    const int b = 32 * (warp & 1) + 4 * (lane & 7);
    const long long col0 = (long long)blockIdx.x * PROBE_OLD_TILE;
    const long long step = (long long)gridDim.y * PROBE_OLD_TILE;
    for (long long row0 = (long long)blockIdx.y * PROBE_OLD_TILE; row0 < m; row0 += step) {
        const float *src = in + (row0 + a) * n + col0 + b;
        const int col_ok = col0 + b < n;
        float4 v[4];
#pragma unroll
        for (int k = 0; k < 4; k++) {
            v[k] = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
            if (col_ok && row0 + a + 16 * k < m)
                v[k] = __ldg((const float4 *)(src + (long long)16 * k * n));
        }
#pragma unroll
        for (int k = 0; k < 4; k++) {
            tile[a + 16 * k][b + 0] = v[k].x;
            tile[a + 16 * k][b + 1] = v[k].y;
            tile[a + 16 * k][b + 2] = v[k].z;
            tile[a + 16 * k][b + 3] = v[k].w;
        }
        __syncthreads();
        float *dst = out + (col0 + a) * m + row0 + b;
        const int ocol_ok = row0 + b < m;
#pragma unroll
        for (int k = 0; k < 4; k++) {
            const int c = a + 16 * k;
            if (ocol_ok && col0 + c < n)
                *(float4 *)(dst + (long long)16 * k * m) =
                    make_float4(tile[b][c], tile[b + 1][c], tile[b + 2][c], tile[b + 3][c]);
        }
        __syncthreads();
    }
}

static int probe_old_launch(const float *in, float *out, int m, int n, cudaStream_t stream)
{
    static int ready;
    if (m % 4 != 0 || n % 4 != 0 || ((uintptr_t)in & 15u) != 0 || ((uintptr_t)out & 15u) != 0)
        return (int)cudaErrorInvalidValue;
    if (!ready) {
        cudaError_t err = cudaFuncSetAttribute((const void *)probe_old_kernel,
                                               cudaFuncAttributePreferredSharedMemoryCarveout,
                                               cudaSharedmemCarveoutMaxShared);
        if (err != cudaSuccess)
            return (int)err;
        ready = 1;
    }
    long long gy = ((long long)m + PROBE_OLD_TILE - 1) / PROBE_OLD_TILE;
    if (gy > 65535)
        gy = 65535;
    const dim3 grid((unsigned int)(((long long)n + PROBE_OLD_TILE - 1) / PROBE_OLD_TILE), (unsigned int)gy);
    probe_old_kernel<<<grid, PROBE_OLD_THREADS, 0, stream>>>(in, out, m, n);
    return (int)cudaGetLastError();
}

// ---- diagnostic rows: copies of the same bytes ------------------------------------------

/* copy_vec: out[i] = in[i] over count4 float4s, grid-stride, PROBE_COPY_UNROLL
 * loads issued before their stores (bytes in flight as the transpose has) */
#define PROBE_COPY_THREADS 256
#define PROBE_COPY_UNROLL 4
static __global__ void __launch_bounds__(PROBE_COPY_THREADS)
probe_copy_vec_kernel(const float4 *__restrict__ in, float4 *__restrict__ out, long long count4)
{
    const long long stride = (long long)gridDim.x * PROBE_COPY_THREADS;
    long long i = (long long)blockIdx.x * PROBE_COPY_THREADS + threadIdx.x;
    for (; i + (PROBE_COPY_UNROLL - 1) * stride < count4; i += PROBE_COPY_UNROLL * stride) {
        float4 v[PROBE_COPY_UNROLL];
#pragma unroll
        for (int k = 0; k < PROBE_COPY_UNROLL; k++)
            v[k] = __ldg(in + i + k * stride);
#pragma unroll
        for (int k = 0; k < PROBE_COPY_UNROLL; k++)
            out[i + k * stride] = v[k];
    }
    for (; i < count4; i += stride)
        out[i] = __ldg(in + i);
}

static int probe_copy_vec_launch(const float *in, float *out, int m, int n, cudaStream_t stream)
{
    static int sms;
    const long long count = (long long)m * n;
    if (count < 1 || count % 4 != 0 || ((uintptr_t)in & 15u) != 0 || ((uintptr_t)out & 15u) != 0)
        return (int)cudaErrorInvalidValue;
    if (!sms) {
        int dev = 0;
        cudaError_t err = cudaGetDevice(&dev);
        if (err == cudaSuccess)
            err = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
        if (err != cudaSuccess)
            return (int)err;
    }
    const long long count4 = count / 4;
    const long long full = (long long)sms * (2048 / PROBE_COPY_THREADS); /* 8 resident blocks an SM */
    const long long need = (count4 + PROBE_COPY_THREADS - 1) / PROBE_COPY_THREADS;
    probe_copy_vec_kernel<<<(unsigned int)(need < full ? need : full), PROBE_COPY_THREADS, 0, stream>>>(
        (const float4 *)in, (float4 *)out, count4);
    return (int)cudaGetLastError();
}

/* copy_bulk: the copy engine of the SM (TMA, 1-D bulk copies, no tensor map):
 * a block of one warp moves one PROBE_BULK_FLOATS chunk, global -> shared
 * (cp.async.bulk, completing on an mbarrier) -> global (cp.async.bulk
 * bulk_group), thread 0 issuing both; 16 KiB a block, up to 13 resident an
 * SM (shared memory), so about 200 KiB in flight an SM. Does a TMA-driven
 * copy reach the memcpy ceiling where SM loads and stores (copy_vec) do not? */
#define PROBE_BULK_FLOATS 4096
static __global__ void __launch_bounds__(32) probe_copy_bulk_kernel(const float *__restrict__ in,
                                                                    float *__restrict__ out, long long count)
{
    __shared__ __align__(128) float buf[PROBE_BULK_FLOATS];
    __shared__ __align__(8) unsigned long long bar;
    const long long off = (long long)blockIdx.x * PROBE_BULK_FLOATS;
    if (threadIdx.x != 0 || off >= count)
        return;
    const long long left = count - off;
    const unsigned bytes = (unsigned)(left < PROBE_BULK_FLOATS ? left : PROBE_BULK_FLOATS) * 4u; /* % 16 == 0 */
    const unsigned b = smem_u32(&bar), dst = smem_u32(buf);
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(b) : "memory");
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(b), "r"(bytes) : "memory");
    asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(dst),
                 "l"(in + off), "r"(bytes), "r"(b)
                 : "memory");
    asm volatile("{\n"
                 ".reg .pred p;\n"
                 "PROBE_BULK_WAIT_%=:\n"
                 "mbarrier.try_wait.parity.shared::cta.b64 p, [%0], 0;\n"
                 "@!p bra PROBE_BULK_WAIT_%=;\n"
                 "}" ::"r"(b)
                 : "memory");
    asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;" ::"l"(out + off), "r"(dst), "r"(bytes)
                 : "memory");
    asm volatile("cp.async.bulk.commit_group;" ::: "memory");
    asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory"); /* buf stays valid until read */
}

static int probe_copy_bulk_launch(const float *in, float *out, int m, int n, cudaStream_t stream)
{
    const long long count = (long long)m * n;
    if (count < 1 || count % 4 != 0 || ((uintptr_t)in & 15u) != 0 || ((uintptr_t)out & 15u) != 0)
        return (int)cudaErrorInvalidValue;
    const long long blocks = (count + PROBE_BULK_FLOATS - 1) / PROBE_BULK_FLOATS;
    if (blocks > 0x7fffffffLL)
        return (int)cudaErrorInvalidValue;
    probe_copy_bulk_kernel<<<(unsigned int)blocks, 32, 0, stream>>>(in, out, count);
    return (int)cudaGetLastError();
}

/* tilecopy_64x64: transpose_fast_kernel<TRANSPOSE_FAST_CFG_base> with the
 * store phase of a copy: the same tile order (transpose_fast_tile<0>), the
 * same loads (transpose_fast_load) into the same tile[64][65], the same
 * barriers; then each thread reads back its own load units' floats (4 x 32
 * units, conflict-free as in the load phase) and stores them as 16 bytes to
 * the same place of out (m x n, like in). */
#define PROBE_TC_TILE 64
#define PROBE_TC_THREADS 256
static __global__ void __launch_bounds__(PROBE_TC_THREADS, 8)
probe_tilecopy_kernel(const float *__restrict__ in, float *__restrict__ out, int m, int n, long long tiles_x,
                      long long tiles_y)
{
    constexpr int K = PROBE_TC_TILE * PROBE_TC_TILE / (4 * PROBE_TC_THREADS); /* 4 */
    constexpr int LU = PROBE_TC_TILE / 32;                                     /* units across a band */
    constexpr int LSTEP = 4 * (PROBE_TC_THREADS / 32 / LU);                    /* 16 */
    static_assert(K * LSTEP == PROBE_TC_TILE, "a thread's units cover the tile");
    __shared__ float tile[PROBE_TC_TILE][PROBE_TC_TILE + 1];
    const int lane = threadIdx.x & 31;
    const int warp = threadIdx.x >> 5;
    const int lr = 4 * (warp / LU) + (lane >> 3);
    const int lc = 32 * (warp % LU) + 4 * (lane & 7);
    const long long total = tiles_x * tiles_y;
    float4 v[K];
    long long id = blockIdx.x;
    long long row0 = 0, col0 = 0;
    if (id < total) {
        transpose_fast_tile<0>(id, tiles_x, tiles_y, PROBE_TC_TILE, PROBE_TC_TILE, &row0, &col0);
        transpose_fast_load<K, LSTEP, TRANSPOSE_HINT_LDG>(v, in, m, n, row0, col0, lr, lc, 0);
    }
    for (; id < total; id += gridDim.x) {
#pragma unroll
        for (int k = 0; k < K; k++) {
            tile[lr + LSTEP * k][lc + 0] = v[k].x;
            tile[lr + LSTEP * k][lc + 1] = v[k].y;
            tile[lr + LSTEP * k][lc + 2] = v[k].z;
            tile[lr + LSTEP * k][lc + 3] = v[k].w;
        }
        __syncthreads();
        const long long trow0 = row0, tcol0 = col0;
        const long long next = id + gridDim.x;
        const int col_ok = tcol0 + lc < n;
#pragma unroll
        for (int k = 0; k < K; k++) {
            const int r = lr + LSTEP * k;
            if (col_ok && trow0 + r < m)
                transpose_fast_st<TRANSPOSE_HINT_LDG>(
                    out + (trow0 + r) * n + tcol0 + lc,
                    make_float4(tile[r][lc + 0], tile[r][lc + 1], tile[r][lc + 2], tile[r][lc + 3]), 0);
        }
        __syncthreads();
        if (next < total) {
            transpose_fast_tile<0>(next, tiles_x, tiles_y, PROBE_TC_TILE, PROBE_TC_TILE, &row0, &col0);
            transpose_fast_load<K, LSTEP, TRANSPOSE_HINT_LDG>(v, in, m, n, row0, col0, lr, lc, 0);
        }
    }
}

static int probe_tilecopy_launch(const float *in, float *out, int m, int n, cudaStream_t stream)
{
    static unsigned long long carveout_set;
    if (m < 1 || n < 1 || m % 4 != 0 || n % 4 != 0 || ((uintptr_t)in & 15u) != 0 || ((uintptr_t)out & 15u) != 0)
        return (int)cudaErrorInvalidValue;
    const int err = smem_func_attr_once((const void *)probe_tilecopy_kernel,
                                        cudaFuncAttributePreferredSharedMemoryCarveout,
                                        cudaSharedmemCarveoutMaxShared, &carveout_set);
    if (err != 0)
        return err;
    const long long tiles_x = ((long long)n + PROBE_TC_TILE - 1) / PROBE_TC_TILE;
    const long long tiles_y = ((long long)m + PROBE_TC_TILE - 1) / PROBE_TC_TILE;
    const long long blocks = tiles_x * tiles_y < TRANSPOSE_FAST_GRID_MAX ? tiles_x * tiles_y : TRANSPOSE_FAST_GRID_MAX;
    probe_tilecopy_kernel<<<(unsigned int)blocks, PROBE_TC_THREADS, 0, stream>>>(in, out, m, n, tiles_x, tiles_y);
    return (int)cudaGetLastError();
}

// ---- GPU helpers -----------------------------------------------------------------------

/* finite floats in [1, 2) with hashed mantissas: never zero, never NaN */
static __global__ void probe_fill(uint32_t *x, long long count)
{
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < count;
         i += (long long)gridDim.x * blockDim.x) {
        const unsigned long long h = ((unsigned long long)i + 1) * 0x9E3779B97F4A7C15ull;
        x[i] = 0x3f800000u | (uint32_t)(h >> 41);
    }
}

/* counts k with out[k] != in[(k % m) * n + k / m] (out is n x m) */
static __global__ void probe_check_def(const uint32_t *in, const uint32_t *out, int m, int n,
                                       unsigned long long *bad)
{
    const long long count = (long long)m * n;
    unsigned long long mine = 0;
    for (long long k = (long long)blockIdx.x * blockDim.x + threadIdx.x; k < count;
         k += (long long)gridDim.x * blockDim.x) {
        const long long j = k / m, i = k - j * m;
        mine += out[k] != in[i * n + j];
    }
    if (mine)
        atomicAdd(bad, mine);
}

/* counts k with a[k] != b[k], bit for bit */
static __global__ void probe_check_eq(const uint32_t *a, const uint32_t *b, long long count, unsigned long long *bad)
{
    unsigned long long mine = 0;
    for (long long k = (long long)blockIdx.x * blockDim.x + threadIdx.x; k < count;
         k += (long long)gridDim.x * blockDim.x)
        mine += a[k] != b[k];
    if (mine)
        atomicAdd(bad, mine);
}

static unsigned long long probe_count(unsigned long long *d_bad, cudaStream_t s)
{
    unsigned long long h = 0;
    CK(cudaMemcpyAsync(&h, d_bad, sizeof h, cudaMemcpyDeviceToHost, s));
    CK(cudaStreamSynchronize(s));
    return h;
}

static unsigned long long probe_mismatch_def(const float *in, const float *out, int m, int n,
                                             unsigned long long *d_bad, cudaStream_t s)
{
    CK(cudaMemsetAsync(d_bad, 0, sizeof *d_bad, s));
    probe_check_def<<<132 * 16, 256, 0, s>>>((const uint32_t *)in, (const uint32_t *)out, m, n, d_bad);
    CK(cudaGetLastError());
    return probe_count(d_bad, s);
}

static unsigned long long probe_mismatch_eq(const float *a, const float *b, long long count,
                                            unsigned long long *d_bad, cudaStream_t s)
{
    CK(cudaMemsetAsync(d_bad, 0, sizeof *d_bad, s));
    probe_check_eq<<<132 * 16, 256, 0, s>>>((const uint32_t *)a, (const uint32_t *)b, count, d_bad);
    CK(cudaGetLastError());
    return probe_count(d_bad, s);
}

static void probe_fill_input(float *in, long long count, cudaStream_t s)
{
    probe_fill<<<132 * 16, 256, 0, s>>>((uint32_t *)in, count);
    CK(cudaGetLastError());
}

/* rows that are not candidates (candidates are 0 .. PROBE_NCANDS - 1) */
enum { PROBE_COPYBULK = -6, PROBE_TILECOPY = -5, PROBE_COPYVEC = -4, PROBE_OLD = -3, PROBE_GEAM = -2, PROBE_COPY = -1 };
#define PROBE_FIRST PROBE_COPYBULK

static const char *probe_name(int which)
{
    switch (which) {
    case PROBE_COPYBULK:
        return "copy_bulk";
    case PROBE_TILECOPY:
        return "tilecopy_64x64";
    case PROBE_COPYVEC:
        return "copy_vec";
    case PROBE_OLD:
        return "old";
    case PROBE_GEAM:
        return "cublas_geam";
    case PROBE_COPY:
        return "memcpy_d2d";
    default:
        return probe_cands[which].name;
    }
}

/* 1 for the rows whose output is the transpose (checked against the
 * definition or geam), 0 for the copies (checked against the input) */
static int probe_is_transpose(int which)
{
    return which != PROBE_TILECOPY && which != PROBE_COPYVEC && which != PROBE_COPY && which != PROBE_COPYBULK;
}

// ---- timing ------------------------------------------------------------------------------

typedef struct {
    cudaStream_t s;
    cublasHandle_t blas;
    void *flush;        /* 128 MiB written before every sample */
    size_t flush_bytes;
    cudaEvent_t *ev;    /* 2 x reps events */
    float *ms;          /* reps samples */
    int reps;
    int warm;
    int profile;        /* quick mode: each timed launch inside cudaProfilerStart/Stop */
} probe_timer;

static void probe_run(const probe_timer *t, int which, const float *in, float *out, int m, int n)
{
    if (which == PROBE_GEAM) {
        const float one = 1.0f, zero = 0.0f;
        /* row-major in (m x n) is column-major n x m with ld n; out = in^T is
         * column-major m x n with ld m. B (= in, beta 0) is never used. */
        CKB(cublasSgeam(t->blas, CUBLAS_OP_T, CUBLAS_OP_T, m, n, &one, in, n, &zero, in, n, out, m));
    } else if (which == PROBE_OLD) {
        CK(probe_old_launch(in, out, m, n, t->s));
    } else if (which == PROBE_COPY) {
        CK(cudaMemcpyAsync(out, in, (size_t)m * n * 4, cudaMemcpyDeviceToDevice, t->s));
    } else if (which == PROBE_COPYVEC) {
        CK(probe_copy_vec_launch(in, out, m, n, t->s));
    } else if (which == PROBE_TILECOPY) {
        CK(probe_tilecopy_launch(in, out, m, n, t->s));
    } else if (which == PROBE_COPYBULK) {
        CK(probe_copy_bulk_launch(in, out, m, n, t->s));
    } else {
        CK(probe_cands[which].fn(in, out, m, n, t->s));
    }
}

static int probe_cmp_float(const void *a, const void *b)
{
    const float x = *(const float *)a, y = *(const float *)b;
    return x < y ? -1 : x > y;
}

/* median ms of t->reps samples, each after an L2 flush */
static double probe_time(const probe_timer *t, int which, const float *in, float *out, int m, int n)
{
    for (int i = 0; i < t->warm; i++)
        probe_run(t, which, in, out, m, n);
    for (int i = 0; i < t->reps; i++) {
        CK(cudaMemsetAsync(t->flush, i & 0xff, t->flush_bytes, t->s));
        CK(cudaEventRecord(t->ev[2 * i], t->s));
        if (t->profile)
            CK(cudaProfilerStart());
        probe_run(t, which, in, out, m, n);
        if (t->profile)
            CK(cudaProfilerStop());
        CK(cudaEventRecord(t->ev[2 * i + 1], t->s));
    }
    CK(cudaStreamSynchronize(t->s));
    for (int i = 0; i < t->reps; i++)
        CK(cudaEventElapsedTime(&t->ms[i], t->ev[2 * i], t->ev[2 * i + 1]));
    qsort(t->ms, (size_t)t->reps, sizeof t->ms[0], probe_cmp_float);
    return t->reps % 2 ? t->ms[t->reps / 2] : 0.5 * (t->ms[t->reps / 2 - 1] + t->ms[t->reps / 2]);
}

/* one table line: the row's parameters, its time, GB/s (8 m n bytes), % of
 * geam (when geam_gbps > 0) and % of the theoretical bandwidth */
static void probe_print_row(int which, double ms, double bytes, double geam_gbps, double peak_gbps)
{
    char tile[32] = "-", thr[16] = "-", minb[16] = "-", grp[16] = "-", pgeam[16] = "-";
    const char *hint = "-";
    const char *name = which == PROBE_COPY ? "memcpy_d2d (ceiling)" : which == PROBE_OLD ? "old (before the template)"
                                                                                        : probe_name(which);
    if (which >= 0) {
        const int *p = probe_cands[which].p;
        snprintf(tile, sizeof tile, "%dx%d", p[0], p[1]);
        snprintf(thr, sizeof thr, "%d", p[2]);
        snprintf(minb, sizeof minb, "%d", p[3]);
        snprintf(grp, sizeof grp, "%d", p[4]);
        hint = probe_hint_name(p[5]);
    } else if (which == PROBE_OLD || which == PROBE_TILECOPY) {
        snprintf(tile, sizeof tile, "64x64");
        snprintf(thr, sizeof thr, "%d", 256);
        snprintf(minb, sizeof minb, "%d", 8);
        if (which == PROBE_TILECOPY)
            snprintf(grp, sizeof grp, "%d", 0);
        hint = "ldg";
    } else if (which == PROBE_COPYVEC) {
        snprintf(thr, sizeof thr, "%d", PROBE_COPY_THREADS);
        hint = "ldg";
    } else if (which == PROBE_COPYBULK) {
        snprintf(thr, sizeof thr, "%d", 32);
        hint = "tma";
    }
    const double gbps = bytes / (ms * 1e-3) / 1e9;
    if (geam_gbps > 0)
        snprintf(pgeam, sizeof pgeam, "%.1f", 100.0 * gbps / geam_gbps);
    printf("%-26s %-8s %4s %4s %4s %-4s %9.4f %9.1f %8s %8.1f\n", name, tile, thr, minb, grp, hint, ms, gbps, pgeam,
           100.0 * gbps / peak_gbps);
}

/* the row named `name` (probe_name), or PROBE_FIRST - 1 when none is */
static int probe_find(const char *name, size_t len)
{
    for (int c = PROBE_FIRST; c < PROBE_NCANDS; c++)
        if (strlen(probe_name(c)) == len && strncmp(probe_name(c), name, len) == 0)
            return c;
    return PROBE_FIRST - 1;
}

// ---- main ---------------------------------------------------------------------------------

#define PROBE_MAX_ROWS 64

int main(int argc, char **argv)
{
    const int reps_arg = argc > 1 ? atoi(argv[1]) : 25;
    const int big_arg = argc > 2 ? atoi(argv[2]) : 1;
    const int quick = argc > 3;
    int fails = 0;
    if (reps_arg < 1 || reps_arg > 1000) {
        fprintf(stderr, "reps must be 1..1000\n");
        return 2;
    }

    /* the rows timed, in this order: all of them, or quick mode's list */
    int rows[PROBE_MAX_ROWS];
    int nrows = 0;
    if (quick) {
        for (const char *r = argv[3]; *r;) {
            const size_t len = strcspn(r, ",");
            const int which = probe_find(r, len);
            if (which < PROBE_FIRST || nrows == PROBE_MAX_ROWS) {
                fprintf(stderr, "unknown row '%.*s' (or more than %d rows); rows:", (int)len, r, PROBE_MAX_ROWS);
                for (int c = PROBE_FIRST; c < PROBE_NCANDS; c++)
                    fprintf(stderr, " %s", probe_name(c));
                fprintf(stderr, "\n");
                return 2;
            }
            rows[nrows++] = which;
            r += len + (r[len] == ',');
        }
        if (nrows == 0) {
            fprintf(stderr, "quick mode needs at least one row name\n");
            return 2;
        }
    } else {
        static const int fixed[] = {PROBE_GEAM, PROBE_COPY, PROBE_COPYVEC, PROBE_COPYBULK, PROBE_TILECOPY, PROBE_OLD};
        for (int i = 0; i < (int)(sizeof fixed / sizeof fixed[0]); i++)
            rows[nrows++] = fixed[i];
        for (int c = 0; c < PROBE_NCANDS; c++)
            rows[nrows++] = c;
    }
    const int reps = quick ? 1 : reps_arg;
    const int big = quick ? 0 : big_arg;

    int dev = 0, sms = 0, clock_khz = 0, bus_bits = 0;
    cudaDeviceProp prop;
    CK(cudaGetDevice(&dev));
    CK(cudaGetDeviceProperties(&prop, dev));
    CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    CK(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrMemoryClockRate, dev));
    CK(cudaDeviceGetAttribute(&bus_bits, cudaDevAttrGlobalMemoryBusWidth, dev));
    const double peak_gbps = 2.0 * clock_khz * 1e3 * (bus_bits / 8.0) / 1e9;
    printf("device %s, %d SMs, memory clock %d kHz, bus %d bits: theoretical %.1f GB/s\n", prop.name, sms,
           clock_khz, bus_bits, peak_gbps);

    probe_timer t;
    memset(&t, 0, sizeof t);
    t.reps = reps;
    t.warm = quick ? 1 : 3;
    t.profile = quick;
    t.flush_bytes = (size_t)128 << 20;
    CK(cudaStreamCreateWithFlags(&t.s, cudaStreamNonBlocking));
    CKB(cublasCreate(&t.blas));
    CKB(cublasSetStream(t.blas, t.s));
    CK(cudaMalloc(&t.flush, t.flush_bytes));
    t.ev = (cudaEvent_t *)malloc(sizeof(cudaEvent_t) * 2 * reps);
    t.ms = (float *)malloc(sizeof(float) * reps);
    if (!t.ev || !t.ms) {
        fprintf(stderr, "FAIL: out of host memory\n");
        return 1;
    }
    for (int i = 0; i < 2 * reps; i++)
        CK(cudaEventCreate(&t.ev[i]));

    unsigned long long *d_bad = NULL;
    CK(cudaMalloc(&d_bad, sizeof *d_bad));
    const size_t max_elems = (size_t)8192 * 8192;
    float *in = NULL, *out = NULL, *ref = NULL;
    CK(cudaMalloc(&in, max_elems * 4));
    CK(cudaMalloc(&out, max_elems * 4));
    CK(cudaMalloc(&ref, max_elems * 4));

    /* 1. correctness on shapes that cross every edge (not in quick mode) */
    static const int shapes[][2] = {{4, 4},       {4, 8},      {8, 4},       {36, 100},   {100, 36},
                                    {1028, 1052}, {4, 65540},  {65540, 4},   {8196, 4100}, {4100, 8196},
                                    {2052, 8192}, {8192, 2052}};
    probe_fill_input(in, (long long)max_elems, t.s);
    const int nshapes = quick ? 0 : (int)(sizeof shapes / sizeof shapes[0]);
    for (int si = 0; si < nshapes; si++) {
        const int m = shapes[si][0], n = shapes[si][1];
        for (int c = PROBE_FIRST; c < PROBE_NCANDS; c++)
            for (int rep = 0; rep < 2; rep++) { /* twice: the second call takes the set-up-done path */
                if (c == PROBE_GEAM || c == PROBE_COPY)
                    continue;
                CK(cudaMemsetAsync(out, 0xff, (size_t)m * n * 4, t.s));
                probe_run(&t, c, in, out, m, n);
                const unsigned long long bad = probe_is_transpose(c)
                                                   ? probe_mismatch_def(in, out, m, n, d_bad, t.s)
                                                   : probe_mismatch_eq(in, out, (long long)m * n, d_bad, t.s);
                if (bad) {
                    printf("FAIL %s %dx%d: %llu of %lld elements wrong\n", probe_name(c), m, n, bad,
                           (long long)m * n);
                    fails++;
                }
            }
    }
    if (!quick)
        printf("correctness on %d edge shapes x %d candidates (and old, copy_vec, tilecopy_64x64): %s\n", nshapes,
               PROBE_NCANDS, fails ? "FAILED" : "ok");

    /* more than 2^31 elements: 64-bit indices */
    if (big) {
        const int m = 32772, n = 65540; /* 2147876880 elements, 8.6 GB a buffer */
        const size_t e = (size_t)m * n;
        size_t free_b = 0, total_b = 0;
        CK(cudaMemGetInfo(&free_b, &total_b));
        if (free_b < 2 * e * 4 + ((size_t)1 << 30)) {
            printf("skipped the %dx%d case: %zu bytes free\n", m, n, free_b);
        } else {
            float *bin = NULL, *bout = NULL;
            CK(cudaMalloc(&bin, e * 4));
            CK(cudaMalloc(&bout, e * 4));
            probe_fill_input(bin, (long long)e, t.s);
            int bfails = 0;
            for (int c = 0; c < PROBE_NCANDS; c++) {
                CK(cudaMemsetAsync(bout, 0xff, e * 4, t.s));
                probe_run(&t, c, bin, bout, m, n);
                const unsigned long long bad = probe_mismatch_def(bin, bout, m, n, d_bad, t.s);
                if (bad) {
                    printf("FAIL %s %dx%d: %llu of %zu elements wrong\n", probe_cands[c].name, m, n, bad, e);
                    bfails++;
                }
            }
            printf("correctness at %dx%d (> 2^31 elements) x %d candidates: %s\n", m, n, PROBE_NCANDS,
                   bfails ? "FAILED" : "ok");
            fails += bfails;
            CK(cudaFree(bin));
            CK(cudaFree(bout));
        }
    }

    /* 2. timing (quick mode: 8192 only, no checks) */
    static const int sizes[] = {8192, 4096};
    const int nsizes = quick ? 1 : (int)(sizeof sizes / sizeof sizes[0]);
    for (int zi = 0; zi < nsizes; zi++) {
        const int m = sizes[zi], n = sizes[zi];
        const long long e = (long long)m * n;
        const double bytes = 8.0 * (double)e;
        probe_fill_input(in, e, t.s);
        if (!quick) {
            CK(cudaMemsetAsync(ref, 0xff, (size_t)e * 4, t.s));
            probe_run(&t, PROBE_GEAM, in, ref, m, n);
            unsigned long long bad = probe_mismatch_def(in, ref, m, n, d_bad, t.s);
            if (bad) {
                printf("FAIL cublas_geam %dx%d: %llu elements differ from the definition\n", m, n, bad);
                fails++;
            }
            for (int r = 0; r < nrows; r++) {
                const int c = rows[r];
                if (c == PROBE_GEAM || c == PROBE_COPY)
                    continue;
                CK(cudaMemsetAsync(out, 0xff, (size_t)e * 4, t.s));
                probe_run(&t, c, in, out, m, n);
                bad = probe_mismatch_eq(out, probe_is_transpose(c) ? ref : in, e, d_bad, t.s);
                if (bad) {
                    printf("FAIL %s %dx%d: %llu of %lld elements differ from %s\n", probe_name(c), m, n, bad, e,
                           probe_is_transpose(c) ? "cublas_geam" : "the input");
                    fails++;
                }
            }
        }

        if (quick)
            printf("\n%dx%d float (%.1f MiB a matrix), quick mode: 1 warm-up + 1 sample a row, no checks\n", m, n,
                   e * 4.0 / (1 << 20));
        else
            printf("\n%dx%d float (%.1f MiB a matrix), median of %d samples, L2 flushed before each\n", m, n,
                   e * 4.0 / (1 << 20), reps);
        printf("%-26s %-8s %4s %4s %4s %-4s %9s %9s %8s %8s\n", "config", "tile", "thr", "minb", "grp", "hint", "ms",
               "GB/s", "%geam", "%peak");
        double geam_gbps = 0;
        for (int r = 0; r < nrows; r++) {
            const int c = rows[r];
            const double ms = probe_time(&t, c, in, c == PROBE_GEAM ? ref : out, m, n);
            if (c == PROBE_GEAM)
                geam_gbps = bytes / (ms * 1e-3) / 1e9;
            probe_print_row(c, ms, bytes, geam_gbps, peak_gbps);
        }
        fflush(stdout);
    }

    for (int i = 0; i < 2 * reps; i++)
        CK(cudaEventDestroy(t.ev[i]));
    free(t.ev);
    free(t.ms);
    CK(cudaFree(in));
    CK(cudaFree(out));
    CK(cudaFree(ref));
    CK(cudaFree(d_bad));
    CK(cudaFree(t.flush));
    CKB(cublasDestroy(t.blas));
    CK(cudaStreamDestroy(t.s));
    if (quick)
        printf("\nquick mode: outputs not checked\n");
    else
        printf("\n%s\n", fails ? "FAIL: some output was wrong (see FAIL lines)" : "all outputs correct");
    return fails ? 1 : 0;
}
