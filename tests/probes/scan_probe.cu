/* tests/probes/scan_probe.cu: times candidate tunings of the decoupled
 * look-back scan (kernels/scan_decoupled.cuh) beside cub::DeviceScan::
 * InclusiveSum (through shim/), int32 and float, at 2^24, 2^26 and 2^28
 * elements, and prints one table row per type, size and candidate: median
 * ms, GB/s (8 bytes an element: read once, written once) and % of cub (cub
 * median / candidate median, same run).
 *
 * Test code, not part of `compare`: a probe to choose the named picks
 * SCAN_DL_PICK_I32 / SCAN_DL_PICK_F32 with (the header's parameter order).
 * Before anything is timed, every candidate is checked against cub's output:
 * int32 exactly (at odd sizes around the tile and in place too), float within
 * 1e-3 relative of cub. Input: a deterministic hash pattern, int32 in -8..8,
 * float in (0, 1). Each timed sample: the L2 flushed by a memset, then one
 * call (counter reset + kernel) between a pair of CUDA events; medians of
 * PROBE_REPS samples after PROBE_WARM warm-up calls; cub's samples are taken
 * before and after the candidates and pooled.
 *
 * Why a probe and not `compare --candidates`: its candidates are template
 * rows of scan_decoupled.cuh with no candidate table yet (kernels/search/
 * holds sgemm's); once scan has one, this program goes and the harness
 * times them. Until then it keeps its own flush and event timer.
 *
 * Build: cmake --build build --target probes (the build's CUDA architectures;
 * not in `all`).
 * Run: build/scan_probe           (exit 1 if a candidate's output is wrong)
 *      build/scan_probe --quick   (2^24 only) */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cuda_runtime.h>

#include "scan_decoupled.cuh"
#include "shim.h"

#define PROBE_WARM 3
#define PROBE_REPS 25
#define PROBE_FLUSH_BYTES ((size_t)128 << 20) /* > the 50 MB L2 */
#define PROBE_MAX_N (1LL << 28)
#define PROBE_MAX_SAMPLES (2 * PROBE_REPS)

#define CK(call)                                                                                                   \
    do {                                                                                                           \
        cudaError_t e_ = (call);                                                                                   \
        if (e_ != cudaSuccess) {                                                                                   \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_));               \
            exit(2);                                                                                               \
        }                                                                                                          \
    } while (0)

typedef int (*probe_fn)(const void *in, void *out, long long n, void *scratch, cudaStream_t s);

// ---- candidates -----------------------------------------------------------------------------

static uint32_t probe_next_tag(void)
{
    static unsigned int calls = 0;
    for (;;) {
        const uint32_t tag = (++calls * 0x9E3779B1u) << 2;
        if (tag != 0u && tag != 0xfffffffcu && tag != 0x7ffffffcu)
            return tag;
    }
}

template <int... P>
static int probe_i32(const void *in, void *out, long long n, void *scratch, cudaStream_t s)
{
    return scan_dl_run<int32_t, P...>((const int32_t *)in, (int32_t *)out, n, scratch, probe_next_tag(), s);
}

template <int... P>
static int probe_f32(const void *in, void *out, long long n, void *scratch, cudaStream_t s)
{
    return scan_dl_run<float, P...>((const float *)in, (float *)out, n, scratch, probe_next_tag(), s);
}

typedef struct {
    const char *name;   /* what the candidate changes */
    const char *params; /* THREADS, ITEMS, VEC, MINB, HINT, LB_FIRST, LB_POLL, LB_MAX */
    long long tile;
    probe_fn run[2]; /* [0] int32, [1] float */
} probe_cand;

#define PROBE_CAND(name, ...)                                                                                      \
    { name, #__VA_ARGS__, SCAN_DL_TILE_OF_(__VA_ARGS__), { probe_i32<__VA_ARGS__>, probe_f32<__VA_ARGS__> } }

static const probe_cand probe_cands[] = {
    PROBE_CAND("scalar 23 (old shape)", 128, 23, 1, 1, 0, 0, 32, 512),
    PROBE_CAND("scalar 23 cubdelay", 128, 23, 1, 1, 0, 1000, 600, 600),
    PROBE_CAND("vec4 20", 128, 20, 4, 1, 0, 0, 32, 512),
    PROBE_CAND("vec4 20 cubdelay", 128, 20, 4, 1, 0, 1000, 600, 600),
    PROBE_CAND("vec4 28 minb10", 128, 28, 4, 10, 0, 0, 32, 512),
    PROBE_CAND("vec4 28 minb10 cubdelay", 128, 28, 4, 10, 0, 1000, 600, 600),
    PROBE_CAND("vec4 28 minb10 delay2000", 128, 28, 4, 10, 0, 2000, 600, 600),
    PROBE_CAND("vec4 28 minb10 delay500", 128, 28, 4, 10, 0, 500, 300, 600),
    PROBE_CAND("vec4 36 minb8 cubdelay", 128, 36, 4, 8, 0, 1000, 600, 600),
    PROBE_CAND("vec4 12 minb12 cubdelay", 128, 12, 4, 12, 0, 1000, 600, 600),
    PROBE_CAND("vec4 20 256t minb4 cubdelay", 256, 20, 4, 4, 0, 1000, 600, 600),
};
#define PROBE_NCANDS ((int)(sizeof probe_cands / sizeof probe_cands[0]))

/* the picks scan.cu launches, for the table's last rows */
static const probe_fn probe_pick_run[2] = {probe_i32<SCAN_DL_PICK_I32>, probe_f32<SCAN_DL_PICK_F32>};
static const char *const probe_pick_params[2] = {"SCAN_DL_PICK_I32", "SCAN_DL_PICK_F32"};

// ---- device helpers -------------------------------------------------------------------------

static __global__ void probe_fill(void *x, long long n, int is_float)
{
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x) {
        uint32_t h = (uint32_t)i * 2654435761u;
        h ^= h >> 15;
        h *= 0x2c1b3c6du;
        h ^= h >> 12;
        if (is_float)
            ((float *)x)[i] = ((float)(h & 1023u) + 0.5f) / 1024.0f;
        else
            ((int32_t *)x)[i] = (int32_t)(h % 17u) - 8;
    }
}

/* bad[0] += elements of y that differ from ref (float: by more than 1e-3
 * relative, or not finite), bad[1] = min index of one */
static __global__ void probe_compare(const void *y, const void *ref, long long n, int is_float,
                                     unsigned long long *bad)
{
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x) {
        int wrong;
        if (is_float) {
            const float a = ((const float *)y)[i], b = ((const float *)ref)[i];
            wrong = !(fabsf(a - b) <= 1e-3f * fabsf(b) + 1e-6f);
        } else {
            wrong = ((const int32_t *)y)[i] != ((const int32_t *)ref)[i];
        }
        if (wrong) {
            atomicAdd(&bad[0], 1ull);
            atomicMin(&bad[1], (unsigned long long)i);
        }
    }
}

// ---- host ---------------------------------------------------------------------------------

typedef struct {
    cudaStream_t s;
    void *in, *out, *ref, *scratch, *cub_temp, *flush;
    size_t cub_temp_bytes;
    unsigned long long *bad; /* device, 2 words */
    cudaEvent_t e0, e1;
} probe_ctx;

static int probe_cub(probe_ctx *c, const void *in, void *out, long long n, int is_float)
{
    char msg[256];
    const int rc = is_float ? shim_cub_scan_f32((const float *)in, (float *)out, n, c->cub_temp, c->cub_temp_bytes,
                                                c->s, msg, sizeof msg)
                            : shim_cub_scan_i32((const int32_t *)in, (int32_t *)out, n, c->cub_temp,
                                                c->cub_temp_bytes, c->s, msg, sizeof msg);
    if (rc != 0) {
        fprintf(stderr, "cub scan: %s\n", msg);
        exit(2);
    }
    return 0;
}

/* wrong elements of c->out against c->ref (first one in *first) */
static unsigned long long probe_check(probe_ctx *c, long long n, int is_float, unsigned long long *first)
{
    unsigned long long h[2] = {0, ~0ull};
    CK(cudaMemcpyAsync(c->bad, h, sizeof h, cudaMemcpyHostToDevice, c->s));
    probe_compare<<<1024, 256, 0, c->s>>>(c->out, c->ref, n, is_float, c->bad);
    CK(cudaGetLastError());
    CK(cudaMemcpyAsync(h, c->bad, sizeof h, cudaMemcpyDeviceToHost, c->s));
    CK(cudaStreamSynchronize(c->s));
    *first = h[1];
    return h[0];
}

static int probe_cmp_float(const void *a, const void *b)
{
    const float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

/* run() reps times after warm-up, each sample after an L2 flush; samples
 * appended to t[*nt] */
static void probe_time(probe_ctx *c, probe_fn fn, int is_float, long long n, int reps, float *t, int *nt)
{
    for (int r = 0; r < PROBE_WARM + reps; r++) {
        CK(cudaMemsetAsync(c->flush, r & 1, PROBE_FLUSH_BYTES, c->s));
        CK(cudaEventRecord(c->e0, c->s));
        if (fn != NULL) {
            const int rc = fn(c->in, c->out, n, c->scratch, c->s);
            if (rc != 0) {
                fprintf(stderr, "launch error %d\n", rc);
                exit(2);
            }
        } else {
            probe_cub(c, c->in, c->out, n, is_float);
        }
        CK(cudaEventRecord(c->e1, c->s));
        CK(cudaEventSynchronize(c->e1));
        float ms = 0.0f;
        CK(cudaEventElapsedTime(&ms, c->e0, c->e1));
        if (r >= PROBE_WARM)
            t[(*nt)++] = ms;
    }
}

static float probe_median(float *t, int nt)
{
    qsort(t, (size_t)nt, sizeof t[0], probe_cmp_float);
    return nt % 2 ? t[nt / 2] : 0.5f * (t[nt / 2 - 1] + t[nt / 2]);
}

/* int32 exactly against cub at odd sizes, in place, over garbage scratch */
static int probe_edges(probe_ctx *c, const char *name, probe_fn fn, long long tile)
{
    const long long lens[] = {1, 33, 1000, tile - 1, tile, tile + 1, 3 * tile + 77, (1 << 20) + 7, (3 << 20) + 5};
    int fails = 0;
    probe_fill<<<1024, 256, 0, c->s>>>(c->in, (3 << 20) + 8, 0);
    CK(cudaGetLastError());
    CK(cudaMemsetAsync(c->scratch, 0xff, scan_dl_scratch_bytes(PROBE_MAX_N, 1024), c->s));
    for (size_t li = 0; li < sizeof lens / sizeof lens[0]; li++) {
        const long long n = lens[li];
        for (int in_place = 0; in_place < 2; in_place++) {
            unsigned long long first = 0;
            probe_cub(c, c->in, c->ref, n, 0);
            CK(cudaMemsetAsync(c->out, 0x7f, (size_t)(n + 64) * 4, c->s));
            if (in_place)
                CK(cudaMemcpyAsync(c->out, c->in, (size_t)n * 4, cudaMemcpyDeviceToDevice, c->s));
            const int rc = fn(in_place ? c->out : c->in, c->out, n, c->scratch, c->s);
            unsigned long long bad = rc != 0 ? 1 : probe_check(c, n, 0, &first);
            int32_t guard[64];
            CK(cudaMemcpyAsync(guard, (int32_t *)c->out + n, sizeof guard, cudaMemcpyDeviceToHost, c->s));
            CK(cudaStreamSynchronize(c->s));
            for (int g = 0; g < 64; g++)
                bad += guard[g] != 0x7f7f7f7f;
            if (bad != 0) {
                printf("WRONG %s int32 n=%lld%s: rc %d, %llu bad, first %llu\n", name, n, in_place ? " in place" : "",
                       rc, bad, first);
                fails++;
            }
        }
    }
    return fails;
}

int main(int argc, char **argv)
{
    const int quick = argc > 1 && strcmp(argv[1], "--quick") == 0;
    const long long sizes[] = {1LL << 24, 1LL << 26, 1LL << 28};
    const int nsizes = quick ? 1 : 3;
    probe_ctx c;
    char msg[256];
    int fails = 0;
    CK(cudaStreamCreateWithFlags(&c.s, cudaStreamNonBlocking));
    CK(cudaMalloc(&c.in, (size_t)PROBE_MAX_N * 4));
    CK(cudaMalloc(&c.out, (size_t)PROBE_MAX_N * 4 + 256));
    CK(cudaMalloc(&c.ref, (size_t)PROBE_MAX_N * 4));
    CK(cudaMalloc(&c.scratch, scan_dl_scratch_bytes(PROBE_MAX_N, 1024)));
    CK(cudaMalloc(&c.flush, PROBE_FLUSH_BYTES));
    CK(cudaMalloc((void **)&c.bad, 16));
    if (shim_cub_scan_temp_bytes(PROBE_MAX_N, &c.cub_temp_bytes, msg, sizeof msg) != 0) {
        fprintf(stderr, "cub temp: %s\n", msg);
        return 2;
    }
    CK(cudaMalloc(&c.cub_temp, c.cub_temp_bytes ? c.cub_temp_bytes : 16));
    CK(cudaEventCreate(&c.e0));
    CK(cudaEventCreate(&c.e1));
    cudaDeviceProp prop;
    CK(cudaGetDeviceProperties(&prop, 0));
    printf("scan_probe on %s (%d SMs); medians of %d samples, L2 flushed before each\n", prop.name,
           prop.multiProcessorCount, PROBE_REPS);
    printf("params: THREADS, ITEMS, VEC, MINB, HINT, LB_FIRST, LB_POLL, LB_MAX\n");

    for (int k = 0; k < PROBE_NCANDS; k++)
        fails += probe_edges(&c, probe_cands[k].name, probe_cands[k].run[0], probe_cands[k].tile);
    fails += probe_edges(&c, "pick", probe_pick_run[0], 1024);
    printf("edge sizes and in place (int32, exact): %s\n", fails ? "FAILURES above" : "all candidates pass");

    printf("\n%-6s %-10s %-32s %-36s %9s %8s %7s\n", "type", "n", "candidate", "params", "ms", "GB/s", "%cub");
    for (int is_float = 0; is_float < 2; is_float++)
        for (int si = 0; si < nsizes; si++) {
            const long long n = sizes[si];
            const char *type = is_float ? "float" : "int32";
            float cub_t[PROBE_MAX_SAMPLES], t[PROBE_MAX_SAMPLES];
            int ncub = 0;
            probe_fill<<<4096, 256, 0, c.s>>>(c.in, n, is_float);
            CK(cudaGetLastError());
            probe_cub(&c, c.in, c.ref, n, is_float);
            probe_time(&c, NULL, is_float, n, PROBE_REPS, cub_t, &ncub);
            float med[PROBE_NCANDS + 1];
            for (int k = 0; k <= PROBE_NCANDS; k++) {
                const probe_fn fn = k < PROBE_NCANDS ? probe_cands[k].run[is_float] : probe_pick_run[is_float];
                const char *name = k < PROBE_NCANDS ? probe_cands[k].name : "pick";
                unsigned long long first = 0;
                CK(cudaMemsetAsync(c.out, 0xff, (size_t)n * 4, c.s));
                if (fn(c.in, c.out, n, c.scratch, c.s) != 0) {
                    fprintf(stderr, "%s: launch error\n", name);
                    return 2;
                }
                const unsigned long long bad = probe_check(&c, n, is_float, &first);
                if (bad != 0) {
                    printf("WRONG %s %s n=%lld: %llu bad, first %llu\n", name, type, n, bad, first);
                    fails++;
                }
                int nt = 0;
                probe_time(&c, fn, is_float, n, PROBE_REPS, t, &nt);
                med[k] = probe_median(t, nt);
            }
            probe_time(&c, NULL, is_float, n, PROBE_REPS, cub_t, &ncub); /* cub again, pooled */
            const float cub_ms = probe_median(cub_t, ncub);
            printf("%-6s %-10lld %-32s %-36s %9.4f %8.1f %7.1f\n", type, n, "cub", "-", cub_ms, 8.0 * n / cub_ms / 1e6,
                   100.0);
            for (int k = 0; k <= PROBE_NCANDS; k++)
                printf("%-6s %-10lld %-32s %-36s %9.4f %8.1f %7.1f\n", type, n,
                       k < PROBE_NCANDS ? probe_cands[k].name : "pick (scan.cu)",
                       k < PROBE_NCANDS ? probe_cands[k].params : probe_pick_params[is_float], med[k],
                       8.0 * n / med[k] / 1e6, 100.0 * cub_ms / med[k]);
        }
    CK(cudaStreamSynchronize(c.s));
    printf("%s\n", fails ? "scan_probe: WRONG results above" : "scan_probe: all outputs match cub");
    return fails ? 1 : 0;
}
