/* tests/probes/transpose_probe.cu: times every candidate of transpose `fast`'s
 * vector path (TRANSPOSE_FAST_CANDIDATES in kernels/transpose_fast.cuh)
 * against cublasSgeam (alpha 1, beta 0, OP_T) and a device-to-device copy of
 * the same bytes, so that TRANSPOSE_FAST_PICK in kernels/transpose.cu can be
 * chosen by measurement. Not part of the build or of ctest: a standalone
 * program, built and run on the GPU machine from the repository root:
 *
 *   nvcc -O3 -std=c++17 -arch=sm_90a -lineinfo -Ikernels -Ikernels/common tests/probes/transpose_probe.cu -lcublas -o /tmp/tp && /tmp/tp
 *
 * (optional arguments: reps, default 25; 0 as a second argument skips the
 * correctness case with more than 2^31 elements).
 *
 * What it does:
 *   1. correctness, every candidate: awkward shapes (multiples of 4 that cross
 *      every tile edge, thin and tall shapes, partial tile groups) and one
 *      shape with m * n > 2^31 elements when the memory is there, each output
 *      (poisoned with 0xff first) checked bit for bit against the definition
 *      out[j * m + i] == in[i * n + j] by a GPU kernel.
 *   2. timing at 8192 x 8192 (the size that matters) and 4096 x 4096: geam
 *      is checked against the definition, each candidate's output (and the
 *      "old" row's: fast's vector kernel before the template, kept verbatim
 *      below) bit for bit against geam's; then every row is timed as the median of `reps`
 *      samples after warm-up, each sample its own cudaEvent pair, with the L2
 *      flushed before each by a 128 MiB cudaMemsetAsync outside the timed
 *      interval.
 * Input: a deterministic pattern of finite, non-zero floats in [1, 2) with
 * hashed mantissas (never zeros: DRAM and the bus may move zeros faster).
 * Bytes counted: 8 m n (each element read once and written once); the copy
 * row moves 4 m n bytes from one buffer to another (the same count).
 * Theoretical bandwidth: 2 x memory clock (kHz) x 1e3 x bus width (bits) / 8.
 * Exit status 1 (and FAIL lines) when any check fails. */
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <cuda_runtime.h>
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
    int p[6]; /* TR, TC, THREADS, MINB, GROUP, HINT */
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

enum { PROBE_OLD = -3, PROBE_GEAM = -2, PROBE_COPY = -1 }; /* rows that are not candidates */

static const char *probe_name(int which)
{
    return which == PROBE_OLD ? "old" : which == PROBE_GEAM ? "cublas_geam" : which == PROBE_COPY ? "memcpy_d2d"
                                                                                              : probe_cands[which].name;
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
        probe_run(t, which, in, out, m, n);
        CK(cudaEventRecord(t->ev[2 * i + 1], t->s));
    }
    CK(cudaStreamSynchronize(t->s));
    for (int i = 0; i < t->reps; i++)
        CK(cudaEventElapsedTime(&t->ms[i], t->ev[2 * i], t->ev[2 * i + 1]));
    qsort(t->ms, (size_t)t->reps, sizeof t->ms[0], probe_cmp_float);
    return t->reps % 2 ? t->ms[t->reps / 2] : 0.5 * (t->ms[t->reps / 2 - 1] + t->ms[t->reps / 2]);
}

// ---- main ---------------------------------------------------------------------------------

int main(int argc, char **argv)
{
    const int reps = argc > 1 ? atoi(argv[1]) : 25;
    const int big = argc > 2 ? atoi(argv[2]) : 1;
    int fails = 0;
    if (reps < 1 || reps > 1000) {
        fprintf(stderr, "reps must be 1..1000\n");
        return 2;
    }

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
    t.warm = 3;
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

    /* 1. correctness on shapes that cross every edge */
    static const int shapes[][2] = {{4, 4},       {4, 8},      {8, 4},       {36, 100},   {100, 36},
                                    {1028, 1052}, {4, 65540},  {65540, 4},   {8196, 4100}, {4100, 8196},
                                    {2052, 8192}, {8192, 2052}};
    probe_fill_input(in, (long long)max_elems, t.s);
    for (int si = 0; si < (int)(sizeof shapes / sizeof shapes[0]); si++) {
        const int m = shapes[si][0], n = shapes[si][1];
        for (int c = PROBE_OLD; c < PROBE_NCANDS; c++)
            for (int rep = 0; rep < 2; rep++) { /* twice: the second call takes the set-up-done path */
                if (c == PROBE_GEAM || c == PROBE_COPY)
                    continue;
                CK(cudaMemsetAsync(out, 0xff, (size_t)m * n * 4, t.s));
                probe_run(&t, c, in, out, m, n);
                const unsigned long long bad = probe_mismatch_def(in, out, m, n, d_bad, t.s);
                if (bad) {
                    printf("FAIL %s %dx%d: %llu of %lld elements wrong\n", probe_name(c), m, n, bad,
                           (long long)m * n);
                    fails++;
                }
            }
    }
    printf("correctness on %d edge shapes x %d candidates: %s\n", (int)(sizeof shapes / sizeof shapes[0]),
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

    /* 2. timing */
    static const int sizes[] = {8192, 4096};
    for (int zi = 0; zi < (int)(sizeof sizes / sizeof sizes[0]); zi++) {
        const int m = sizes[zi], n = sizes[zi];
        const long long e = (long long)m * n;
        const double bytes = 8.0 * (double)e;
        probe_fill_input(in, e, t.s);
        CK(cudaMemsetAsync(ref, 0xff, (size_t)e * 4, t.s));
        probe_run(&t, PROBE_GEAM, in, ref, m, n);
        unsigned long long bad = probe_mismatch_def(in, ref, m, n, d_bad, t.s);
        if (bad) {
            printf("FAIL cublas_geam %dx%d: %llu elements differ from the definition\n", m, n, bad);
            fails++;
        }
        for (int c = PROBE_OLD; c < PROBE_NCANDS; c++) {
            if (c == PROBE_GEAM || c == PROBE_COPY)
                continue;
            CK(cudaMemsetAsync(out, 0xff, (size_t)e * 4, t.s));
            probe_run(&t, c, in, out, m, n);
            bad = probe_mismatch_eq(out, ref, e, d_bad, t.s);
            if (bad) {
                printf("FAIL %s %dx%d: %llu of %lld elements differ from cublas_geam\n", probe_name(c), m, n, bad,
                       e);
                fails++;
            }
        }

        printf("\n%dx%d float (%.1f MiB a matrix), median of %d samples, L2 flushed before each\n", m, n,
               e * 4.0 / (1 << 20), reps);
        printf("%-26s %-8s %4s %4s %4s %-4s %9s %9s %8s %8s\n", "config", "tile", "thr", "minb", "grp", "hint", "ms",
               "GB/s", "%geam", "%peak");
        const double geam_ms = probe_time(&t, PROBE_GEAM, in, ref, m, n);
        const double geam_gbps = bytes / (geam_ms * 1e-3) / 1e9;
        printf("%-26s %-8s %4s %4s %4s %-4s %9.4f %9.1f %8.1f %8.1f\n", "cublas_geam", "-", "-", "-", "-", "-",
               geam_ms, geam_gbps, 100.0, 100.0 * geam_gbps / peak_gbps);
        const double copy_ms = probe_time(&t, PROBE_COPY, in, out, m, n);
        const double copy_gbps = bytes / (copy_ms * 1e-3) / 1e9;
        printf("%-26s %-8s %4s %4s %4s %-4s %9.4f %9.1f %8.1f %8.1f\n", "memcpy_d2d (ceiling)", "-", "-", "-", "-",
               "-", copy_ms, copy_gbps, 100.0 * copy_gbps / geam_gbps, 100.0 * copy_gbps / peak_gbps);
        const double old_ms = probe_time(&t, PROBE_OLD, in, out, m, n);
        const double old_gbps = bytes / (old_ms * 1e-3) / 1e9;
        printf("%-26s %-8s %4d %4d %4s %-4s %9.4f %9.1f %8.1f %8.1f\n", "old (before the template)", "64x64",
               PROBE_OLD_THREADS, 8, "-", "ldg", old_ms, old_gbps, 100.0 * old_gbps / geam_gbps,
               100.0 * old_gbps / peak_gbps);
        for (int c = 0; c < PROBE_NCANDS; c++) {
            const int *p = probe_cands[c].p;
            char tile[32];
            snprintf(tile, sizeof tile, "%dx%d", p[0], p[1]);
            const double ms = probe_time(&t, c, in, out, m, n);
            const double gbps = bytes / (ms * 1e-3) / 1e9;
            printf("%-26s %-8s %4d %4d %4d %-4s %9.4f %9.1f %8.1f %8.1f\n", probe_cands[c].name, tile, p[2], p[3],
                   p[4], probe_hint_name(p[5]), ms, gbps, 100.0 * gbps / geam_gbps, 100.0 * gbps / peak_gbps);
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
    printf("\n%s\n", fails ? "FAIL: some output was wrong (see FAIL lines)" : "all outputs correct");
    return fails ? 1 : 0;
}
