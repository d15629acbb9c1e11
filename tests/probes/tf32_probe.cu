/* tests/probes/tf32_probe.cu: where tf32_tma's large-size time goes. Times
 * the LARGE candidate's structure (256 x 128 tile, 4-stage TMA ring, two
 * consumer warpgroups in ping-pong issue order, thread 0 producing: the body
 * of sgemm_tma_body, kernels/sgemm_tf32_tma.cuh, with its helpers) with parts
 * of its work taken away, next to cuBLAS TF32 and the shipped candidates, so
 * that the next change to the kernel aims at the part that costs:
 *   full       the structure as shipped (checked against cuBLAS: same speed
 *              as the LARGE candidate, or the probe does not model it);
 *   no_tma     TMA copies only for the first ST slabs; later slabs' full
 *              barriers are completed by a plain arrive (the tensor core
 *              reads stale stages): the kernel without L2 -> shared traffic;
 *   no_lds     copies as shipped, the B^T fragments loaded from shared
 *              memory once (slab 0) and reused: without the LDS.64 per slab;
 *   no_both    neither: what the wgmma issue pattern alone reaches;
 *   no_pp      as full without the ping-pong named barriers;
 *   no_epi     as full without the epilogue's stores (what the tile switch costs);
 *   full_groupG, full_rowmajor  as full with another tile order (L2 reuse).
 * Rows other than full compute wrong results by design (diagnostics only,
 * never a variant). Why a probe and not `compare --candidates`: every row but
 * `full` fails verification by design, so the harness (which times only
 * verified rows) cannot time them; the probe keeps its own flush and event
 * timer for that reason alone. Not part of `all` or of ctest; built for
 * sm_90a as CMakeLists.txt builds the Hopper kernels, and run on the GPU
 * machine (tests/probes/run_probes.sh, probe tf32):
 *
 *   cmake --build build --target probes && build/tf32_probe [REPS [SIZES]]
 *
 * REPS samples a row (default 20), SIZES a comma-separated list of n for
 * m = n = k (default 4096,8192), ROWS (third argument) a comma-separated
 * list of the rows to run (cuBLAS always runs first; default every row). Each sample is one launch between its own
 * cudaEvent pair after a 128 MiB memset that flushes the L2 (outside the
 * interval); the median is printed, with TFLOP/s and % of cuBLAS TF32.
 * Inputs: cuRAND-free deterministic hashed values in [-1, 1) (never zeros);
 * PROBE_DATA=grid (default: 16-bit values), full (every mantissa bit, like
 * compare's cuRAND inputs) or tf32 (full, rounded to TF32 first). Each row
 * also prints "span NAME T0 T1", its local time of day in seconds, so that a
 * power log can be cut per row (tests/probes/tf32_round_probe.sh).
 * Exit status 1 when a check fails, 2 on bad arguments. */
#include <cublas_v2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sgemm_tf32_tma.cuh"

#define PROBE_CHECK(x)                                                                   \
    do {                                                                                 \
        cudaError_t e_ = (x);                                                            \
        if (e_ != cudaSuccess) {                                                         \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); \
            exit(1);                                                                     \
        }                                                                                \
    } while (0)

enum { MODE_FULL, MODE_NO_TMA, MODE_NO_LDS, MODE_NO_BOTH, MODE_NO_PP, MODE_NO_EPI };

#define P_BM 256
#define P_NWG 2
#define P_ST 4

template <int MODE, int GROUP>
static __global__ void __launch_bounds__(256, 1)
probe_kernel(const __grid_constant__ CUtensorMap ta, const __grid_constant__ CUtensorMap tb, float *C,
             int m, int n, int k)
{
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
    constexpr int NWG = P_NWG, BM = P_BM, ST = P_ST;
    constexpr bool LOADS = MODE == MODE_FULL || MODE == MODE_NO_LDS || MODE == MODE_NO_PP || MODE == MODE_NO_EPI;
    constexpr bool LDS = MODE == MODE_FULL || MODE == MODE_NO_TMA || MODE == MODE_NO_PP || MODE == MODE_NO_EPI;
    constexpr bool PP = MODE != MODE_NO_PP;
    extern __shared__ float4 sgemm_tma_smem4[];
    const int BN = SGEMM_TMA_BN_OF(NWG);
    const unsigned raw = smem_u32(sgemm_tma_smem4);
    const unsigned smem = (raw + 1023u) & ~1023u;
    const unsigned b_st = smem + ST * SGEMM_TMA_ASTAGE(BM);
    const unsigned bars = b_st + ST * SGEMM_TMA_BSTAGE(NWG);
    int bm0, bn0;
    tile_order_origin(blockIdx.x, m, n, BM, BN, GROUP, &bm0, &bn0);
    const int KT = (k + SGEMM_TMA_BK - 1) / SGEMM_TMA_BK;
    const int tid = threadIdx.x;
    if (tid == 0) {
        for (int s = 0; s < ST; s++) {
            sgemm_tma_bar_init(bars + 8 * s, 1);
            sgemm_tma_bar_init(bars + 8 * (ST + s), 4 * NWG);
        }
        sgemm_tma_bar_init_fence();
    }
    __syncthreads();
    const int prod = tid == 0;
    int issued = 0;
    if (prod)
        for (; issued < KT && issued < ST; issued++)
            sgemm_tma_issue(&ta, &tb, issued, bm0, bn0, smem, b_st, bars, NWG, BM, ST);
    const int cw = tid >> 7, ct = tid & 127;
    const int w = ct >> 5, lane = ct & 31, g = lane >> 2, t = lane & 3;
    const int q = (g & 1) + 8 * ((g >> 1) & 1) + 2 * (g >> 2) + 4 * (w & 1);
    const int n0 = 64 * cw + 32 * (w >> 1) + 2 * q;
    const int box = (n0 >> 5) * SGEMM_TMA_BOX_BYTES + (n0 & 3) * 4;
    const int chunk = (n0 & 31) >> 2;
    const unsigned lo = b_st + box + t * 128 + ((chunk ^ t) << 4);
    const unsigned hi = b_st + box + (t + 4) * 128 + ((chunk ^ (t + 4)) << 4);
    float d[128];
#pragma unroll
    for (int i = 0; i < BM / 2; i++) {
        d[i] = 0.0f;
        sgemm_wg_fence_operand(&d[i]);
    }
    unsigned f[16];
    for (int kt = 0; kt < KT; kt++) {
        const int s = kt % ST;
        if (prod && issued == kt) { /* sgemm_tma_need, with the no-copy modes */
            sgemm_tma_bar_wait(bars + 8 * (ST + kt % ST), sgemm_tma_empty_parity(kt, ST));
            if (LOADS)
                sgemm_tma_issue(&ta, &tb, kt, bm0, bn0, smem, b_st, bars, NWG, BM, ST);
            else
                sgemm_tma_bar_arrive(bars + 8 * s);
            issued = kt + 1;
        }
        sgemm_tma_bar_wait(bars + 8 * s, (unsigned)(kt / ST) & 1u);
        if (LDS || kt == 0)
            sgemm_tma_frags(lo + s * SGEMM_TMA_BSTAGE(NWG), hi + s * SGEMM_TMA_BSTAGE(NWG), f);
        __syncwarp();
        if (PP && cw == 1)
            sgemm_tma_named_sync(1, 256);
        else if (PP && cw == 0 && kt > 0)
            sgemm_tma_named_sync(2, 256);
        sgemm_wg_mma_slab(d, f, smem + s * SGEMM_TMA_ASTAGE(BM), BM);
        if (PP && cw == 0)
            sgemm_tma_named_arrive(1, 256);
        else if (PP && cw == 1 && kt + 1 < KT)
            sgemm_tma_named_arrive(2, 256);
        if (prod) /* sgemm_tma_top_up, with the no-copy modes */
            while (issued < KT && issued < kt + ST &&
                   sgemm_tma_bar_try(bars + 8 * (ST + issued % ST), sgemm_tma_empty_parity(issued, ST))) {
                if (LOADS)
                    sgemm_tma_issue(&ta, &tb, issued, bm0, bn0, smem, b_st, bars, NWG, BM, ST);
                else
                    sgemm_tma_bar_arrive(bars + 8 * (issued % ST));
                issued++;
            }
        __syncwarp();
        sgemm_wg_wait0();
        __syncwarp();
        if (lane == 0)
            sgemm_tma_bar_arrive(bars + 8 * (ST + s));
    }
#pragma unroll
    for (int i = 0; i < BM / 2; i++)
        sgemm_wg_fence_operand(&d[i]);
    const int gn = bn0 + n0;
    /* no_epi: the stores only for an accumulator no input makes (kept live, never taken) */
    if (gn < n && (MODE != MODE_NO_EPI || d[0] == 1.2345e30f)) {
#pragma unroll
        for (int j = 0; j < BM / 8; j++) {
            const int m0 = bm0 + 8 * j + 2 * t;
            if (m0 < m)
                *(float2 *)(C + (size_t)m0 * n + gn) = make_float2(d[4 * j + 0], d[4 * j + 2]);
            if (m0 + 1 < m)
                *(float2 *)(C + (size_t)(m0 + 1) * n + gn) = make_float2(d[4 * j + 1], d[4 * j + 3]);
        }
    }
#endif
}

template <int MODE, int GROUP = SGEMM_WG_GROUP_M>
static int probe_run(const float *A, const float *B, float *C, int m, int n, int k, cudaStream_t st)
{
    static unsigned long long attr_set;
    return sgemm_tma_launch(probe_kernel<MODE, GROUP>, &attr_set, P_BM, 128, 256,
                            SGEMM_TMA_SMEM_OF(P_NWG, P_BM, P_ST), A, k, B, C, m, n, k, st);
}

static cublasHandle_t probe_blas;

static int probe_cublas(const float *A, const float *B, float *C, int m, int n, int k, cudaStream_t st)
{
    const float one = 1.0f, zero = 0.0f;
    cublasSetStream(probe_blas, st);
    /* row-major C = A B as column-major C^T = B^T A^T */
    return cublasSgemm(probe_blas, CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &one, B, n, A, k, &zero, C, n) ==
                   CUBLAS_STATUS_SUCCESS
               ? 0
               : 1;
}

#define PROBE_TMA_ROW(NAME)                                                                     \
    static int probe_##NAME(const float *A, const float *B, float *C, int m, int n, int k,       \
                            cudaStream_t st)                                                    \
    {                                                                                           \
        return sgemm_tma_run<SGEMM_TMA_ARGS(sgemm_tma_cfg_##NAME)>(A, B, C, m, n, k, st);       \
    }
PROBE_TMA_ROW(tf32_tma_m256n128k32_s4_pp)
PROBE_TMA_ROW(tf32_tma_m256n128k32_s4_pp_pf_pers)
PROBE_TMA_ROW(tf32_tma_m256n128k32_s4_pp_pf_pers_c2)
PROBE_TMA_ROW(tf32_tma_m256n128k32_s4_pf_pers_c2)

typedef int (*probe_fn)(const float *, const float *, float *, int, int, int, cudaStream_t);
static const struct {
    const char *name;
    probe_fn fn;
    int checked; /* its result is compared with cuBLAS's */
} probe_rows[] = {
    {"cublas_tf32", probe_cublas, 0},
    {"m256n128k32_s4_pp", probe_tf32_tma_m256n128k32_s4_pp, 1},
    {"m256n128k32_s4_pp_pf_pers", probe_tf32_tma_m256n128k32_s4_pp_pf_pers, 1},
    {"m256n128k32_s4_pp_pf_pers_c2", probe_tf32_tma_m256n128k32_s4_pp_pf_pers_c2, 1},
    {"m256n128k32_s4_pf_pers_c2", probe_tf32_tma_m256n128k32_s4_pf_pers_c2, 1},
    {"full", probe_run<MODE_FULL>, 1},
    {"no_tma", probe_run<MODE_NO_TMA>, 0},
    {"no_lds", probe_run<MODE_NO_LDS>, 0},
    {"no_both", probe_run<MODE_NO_BOTH>, 0},
    {"no_pp", probe_run<MODE_NO_PP>, 1},
    {"no_epi", probe_run<MODE_NO_EPI>, 0},
    {"full_group4", probe_run<MODE_FULL, 4>, 1},
    {"full_group16", probe_run<MODE_FULL, 16>, 1},
    {"full_rowmajor", probe_run<MODE_FULL, 0>, 1},
};

/* data 0 ("grid"): 16-bit values on a 2^-15 grid (the low 8 to 13 mantissa
 * bits zero); 1 ("full"): every mantissa bit used, as cuRAND's uniform floats
 * in compare; 2 ("tf32"): those rounded to TF32 (cvt.rna: the low 13 bits
 * zero, so the kernels' own rounding or truncation has nothing to drop) */
static __global__ void probe_fill(float *x, size_t count, unsigned seed, int data)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < count; i += (size_t)gridDim.x * blockDim.x) {
        unsigned h = (unsigned)i * 2654435761u ^ seed;
        h ^= h >> 15;
        h *= 2246822519u;
        h ^= h >> 13;
        if (data == 0) {
            x[i] = ((h >> 8) & 0xffff) / 32768.0f - 1.0f + 1.0f / 65536.0f;
            continue;
        }
        h *= 3266489917u;
        h ^= h >> 16;
        float v = (float)(int)h * 4.656612873e-10f; /* [-1, 1), 2^-31 steps */
        if (data == 2) {
            unsigned r;
            asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(r) : "f"(v));
            v = __uint_as_float(r);
        }
        x[i] = v;
    }
}

/* `name` is one of the comma-separated items of `list` */
static int probe_listed(const char *list, const char *name)
{
    const size_t len = strlen(name);
    for (const char *p = list; *p;) {
        const char *e = strchr(p, ',');
        const size_t l = e ? (size_t)(e - p) : strlen(p);
        if (l == len && strncmp(p, name, len) == 0)
            return 1;
        if (!e)
            break;
        p = e + 1;
    }
    return 0;
}

/* local time of day in seconds (matches nvidia-smi's timestamps in a power log) */
static double probe_day_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    struct tm tm;
    localtime_r(&ts.tv_sec, &tm);
    return tm.tm_hour * 3600.0 + tm.tm_min * 60.0 + tm.tm_sec + ts.tv_nsec * 1e-9;
}

static int cmp_float(const void *a, const void *b)
{
    const float x = *(const float *)a, y = *(const float *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
    const int reps = argc > 1 ? atoi(argv[1]) : 20;
    const char *sizes = argc > 2 ? argv[2] : "4096,8192";
    const char *only = argc > 3 ? argv[3] : NULL; /* comma-separated row names (default: all) */
    if (reps < 1 || reps > 1000) {
        fprintf(stderr, "usage: %s [REPS 1..1000 [SIZES]]\n", argv[0]);
        return 2;
    }
    const char *data_env = getenv("PROBE_DATA");
    const int data = !data_env || !strcmp(data_env, "grid") ? 0 : !strcmp(data_env, "full") ? 1
                     : !strcmp(data_env, "tf32")                ? 2
                                                                : -1;
    if (data < 0) {
        fprintf(stderr, "PROBE_DATA: grid, full or tf32\n");
        return 2;
    }
    if (cublasCreate(&probe_blas) != CUBLAS_STATUS_SUCCESS ||
        cublasSetMathMode(probe_blas, CUBLAS_TF32_TENSOR_OP_MATH) != CUBLAS_STATUS_SUCCESS) {
        fprintf(stderr, "cuBLAS init failed\n");
        return 1;
    }
    int fail = 0;
    {   /* how many 2-CTA clusters of the c2 kernels can be resident (132 SMs: 66 at most) */
        cudaLaunchAttribute at[1];
        at[0].id = cudaLaunchAttributeClusterDimension;
        at[0].val.clusterDim.x = 2;
        at[0].val.clusterDim.y = 1;
        at[0].val.clusterDim.z = 1;
        cudaLaunchConfig_t cfg = {};
        cfg.gridDim = dim3(2, 1, 1);
        cfg.blockDim = dim3(SGEMM_TMAP_THREADS, 1, 1);
        cfg.dynamicSmemBytes = SGEMM_TMA_SMEM_OF(2, 256, 4);
        cfg.attrs = at;
        cfg.numAttrs = 1;
        const void *kern = (const void *)sgemm_tmap_kernel<256, 4, 0, 2, 0, 0>;
        int clusters = -1, sms = 0;
        PROBE_CHECK(cudaFuncSetAttribute(kern, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                         (int)cfg.dynamicSmemBytes));
        PROBE_CHECK(cudaOccupancyMaxActiveClusters(&clusters, kern, &cfg));
        PROBE_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
        printf("SMs %d, resident 2-CTA clusters of the m256 c2 kernels: %d (%d CTAs)\n", sms, clusters,
               2 * clusters);
    }
    char buf[256];
    snprintf(buf, sizeof buf, "%s", sizes);
    void *flush;
    const size_t flush_bytes = 128u << 20;
    PROBE_CHECK(cudaMalloc(&flush, flush_bytes));
    cudaEvent_t e0, e1;
    PROBE_CHECK(cudaEventCreate(&e0));
    PROBE_CHECK(cudaEventCreate(&e1));
    for (char *tok = strtok(buf, ","); tok; tok = strtok(NULL, ",")) {
        const int n = atoi(tok);
        if (n < 256 || n > 16384 || n % 256) {
            fprintf(stderr, "size %s: a multiple of 256 in 256..16384\n", tok);
            return 2;
        }
        const size_t nn = (size_t)n * n;
        float *A, *B, *C, *R;
        PROBE_CHECK(cudaMalloc(&A, nn * 4));
        PROBE_CHECK(cudaMalloc(&B, nn * 4));
        PROBE_CHECK(cudaMalloc(&C, nn * 4));
        PROBE_CHECK(cudaMalloc(&R, nn * 4));
        probe_fill<<<1024, 256>>>(A, nn, 1u, data);
        probe_fill<<<1024, 256>>>(B, nn, 2u, data);
        PROBE_CHECK(cudaGetLastError());
        if (probe_cublas(A, B, R, n, n, n, 0)) {
            fprintf(stderr, "cublas failed\n");
            return 1;
        }
        PROBE_CHECK(cudaDeviceSynchronize());
        float *hr = (float *)malloc(nn * 4), *hc = (float *)malloc(nn * 4);
        PROBE_CHECK(cudaMemcpyAsync(hr, R, nn * 4, cudaMemcpyDeviceToHost, 0));
        PROBE_CHECK(cudaStreamSynchronize(0));
        printf("n = %d (m = n = k), median of %d samples, L2 flushed before each, data %s\n", n, reps,
               data == 0 ? "grid" : data == 1 ? "full" : "tf32");
        double ref_ms = 0;
        for (size_t r = 0; r < sizeof probe_rows / sizeof probe_rows[0]; r++) {
            float t[1000];
            if (only && r > 0 && !probe_listed(only, probe_rows[r].name))
                continue; /* row 0 (cuBLAS) always runs: the percents need it */
            const double day0 = probe_day_s();
            int rc = probe_rows[r].fn(A, B, C, n, n, n, 0); /* warm-up */
            PROBE_CHECK(cudaDeviceSynchronize());
            for (int i = 0; i < reps && rc == 0; i++) {
                PROBE_CHECK(cudaMemsetAsync(flush, i & 0xff, flush_bytes, 0));
                PROBE_CHECK(cudaEventRecord(e0, 0));
                rc = probe_rows[r].fn(A, B, C, n, n, n, 0);
                PROBE_CHECK(cudaEventRecord(e1, 0));
                PROBE_CHECK(cudaEventSynchronize(e1));
                PROBE_CHECK(cudaEventElapsedTime(&t[i], e0, e1));
            }
            if (rc != 0) {
                printf("%-26s launch failed: %d\n", probe_rows[r].name, rc);
                fail = 1;
                continue;
            }
            PROBE_CHECK(cudaDeviceSynchronize());
            printf("span %s %.3f %.3f\n", probe_rows[r].name, day0, probe_day_s());
            qsort(t, reps, sizeof t[0], cmp_float);
            const double ms = t[reps / 2];
            if (r == 0)
                ref_ms = ms;
            const char *verdict = "(not checked: diagnostic)";
            if (probe_rows[r].checked) {
                PROBE_CHECK(cudaMemcpyAsync(hc, C, nn * 4, cudaMemcpyDeviceToHost, 0));
                PROBE_CHECK(cudaStreamSynchronize(0));
                double num = 0, den = 0;
                for (size_t i = 0; i < nn; i += 7) {
                    num += (hc[i] - hr[i]) * (double)(hc[i] - hr[i]);
                    den += (double)hr[i] * hr[i];
                }
                const double rel = den > 0 ? sqrt(num / den) : 1.0;
                verdict = rel < 3e-3 ? "ok" : "FAIL";
                if (rel >= 3e-3)
                    fail = 1;
                printf("%-26s %9.4f ms %8.1f TFLOP/s %6.1f%% of cuBLAS  rel err vs cuBLAS %.2e %s\n",
                       probe_rows[r].name, ms, 2.0 * n * nn / (ms * 1e9), 100.0 * ref_ms / ms, rel, verdict);
            } else {
                printf("%-26s %9.4f ms %8.1f TFLOP/s %6.1f%% of cuBLAS  %s\n", probe_rows[r].name, ms,
                       2.0 * n * nn / (ms * 1e9), 100.0 * ref_ms / ms, r == 0 ? "" : verdict);
            }
        }
        free(hr);
        free(hc);
        cudaFree(A);
        cudaFree(B);
        cudaFree(C);
        cudaFree(R);
    }
    cublasDestroy(probe_blas);
    return fail;
}
