/* tests/fake_gpu.c: libfake_gpu.so, a stand-in for libcompare_gpu.so
 * (COMPARE_GPU_LIB=...) with no CUDA at all, so that the fleet paths of
 * `compare --device all|N,M` and compare-mpi run end to end on a machine
 * without a GPU. It has two ops (sgemm, reduce) of three variants each and
 * FAKE_GPU_COUNT devices (default 2; 0: "no usable GPU", 77). A run takes
 * FAKE_GPU_CASE_MS per case (default 40, in 10 ms steps that watch the stop
 * flag) and produces rows whose speed is made up: library rows at 50
 * TFLOP/s or 3000 GB/s, hand rows at half that, and the device named by
 * FAKE_GPU_SLOW at 80% (its clock 1500 MHz, "sw_power_cap"). FAKE_GPU_SHARED=1
 * gives every device one PCI bus id (ranks sharing one GPU). With
 * FAKE_GPU_LOG=FILE each case appends "begin|end PID DEVICE SECONDS" lines,
 * from which the tests tell runs one after another from runs at once. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "fleet.h"
#include "gpu_api.h"
#include "peaks.h"

struct compare_gpu_device {
    int ordinal;
    device_info info;
};

static const op_info fake_ops[] = {
    {"sgemm", OP_SIZE_GEMM, OP_RATE_TFLOPS, OP_PEAK_FP32, "cublas_fp32", "cublas_tf32", {NULL}, {NULL, NULL},
     "fake GEMM", {OP_AXIS_M, OP_AXIS_N, OP_AXIS_K}},
    {"reduce", OP_SIZE_ELEMS, OP_RATE_GBPS, OP_PEAK_MEMORY, "thrust", "cub", {NULL}, {NULL, NULL}, "fake sum",
     {OP_AXIS_ELEMS}},
};
static const variant_info fake_variants[] = {
    {"sgemm", "cublas_fp32", 1, "fp32", NULL, 0, "builtin", "fake library"},
    {"sgemm", "cublas_tf32", 1, "tf32", NULL, 0, "builtin", "fake library"},
    {"sgemm", "naive", 0, "fp32", NULL, 0, "builtin", "fake hand"},
    {"reduce", "thrust", 1, "fp32", NULL, 0, "builtin", "fake library"},
    {"reduce", "cub", 1, "fp32", NULL, 0, "builtin", "fake library"},
    {"reduce", "interleaved", 0, "fp32", NULL, 0, "builtin", "fake hand"},
};
static const catalog fake_cat = {fake_ops, 2, fake_variants, 6};

static int fake_env(const char *name, int dflt)
{
    const char *v = getenv(name);
    return v && v[0] ? atoi(v) : dflt;
}

static double fake_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_REALTIME, &t);
    return (double)t.tv_sec + t.tv_nsec * 1e-9;
}

static void fake_log(const char *what, int ordinal)
{
    const char *path = getenv("FAKE_GPU_LOG");
    char line[128];
    int fd, n;
    if (!path || !path[0]) return;
    n = snprintf(line, sizeof line, "%s %d %d %.6f\n", what, (int)getpid(), ordinal, fake_now());
    fd = open(path, O_WRONLY | O_CREAT | O_APPEND, 0644);
    if (fd < 0) return;
    if (write(fd, line, (size_t)n) != n) {} /* one write: lines of several processes do not mix */
    close(fd);
}

static int fake_load_plugin(const char *path, char *err, size_t err_len)
{
    snprintf(err, err_len, "--plugin '%s': the fake GPU library takes no plugin", path);
    return 2;
}

static const catalog *fake_catalog(void) { return &fake_cat; }

static int fake_device_count(int *count, char *err, size_t err_len)
{
    *count = fake_env("FAKE_GPU_COUNT", 2);
    if (*count > 0) return 0;
    snprintf(err, err_len, "no usable GPU: the fake GPU library has none (FAKE_GPU_COUNT=0)");
    return 77;
}

static int fake_open(int ordinal, unsigned long long seed, run_info *info, compare_gpu_device **dev, char *err,
                     size_t err_len)
{
    int count = 0, rc = fake_device_count(&count, err, err_len);
    compare_gpu_device *d;
    device_info *in;
    (void)seed;
    *dev = NULL;
    if (rc) return rc;
    if (ordinal >= count) {
        snprintf(err, err_len, "--device %d: only %d CUDA device%s present (0..%d)", ordinal, count,
                 count == 1 ? "" : "s", count - 1);
        return 2;
    }
    d = calloc(1, sizeof *d);
    if (!d) return 1;
    in = &d->info;
    d->ordinal = ordinal;
    snprintf(in->name, sizeof in->name, "Fake GPU");
    in->cc_major = 9;
    in->sms = 132;
    in->sm_clock_khz = 1980000;
    in->mem_clock_khz = 2619000;
    in->bus_width_bits = 6144;
    in->l2_bytes = 50 << 20;
    in->total_mem_bytes = 80LL << 30;
    in->driver_version = in->runtime_version = 13000;
    in->cublas_version = 130100;
    peaks_fill(in); /* "Fake GPU" at cc 9.0: FP32 and memory ceilings, no tensor ones (and a note) */
    in->index = ordinal;
    snprintf(in->uuid, sizeof in->uuid, "GPU-fake-%04d", ordinal);
    snprintf(in->pci_bus_id, sizeof in->pci_bus_id, "%08X:%02X:00.0", 0,
             fake_env("FAKE_GPU_SHARED", 0) ? 0x19 : 0x19 + ordinal);
    in->max_sm_clock_mhz = 1980;
    snprintf(in->clocks_note, sizeof in->clocks_note, "fake GPU");
    info->dev = *in;
    *dev = d;
    return 0;
}

static int fake_run(compare_gpu_device *dev, const cli_options *o, const plan *p, run_sink *sink,
                    volatile sig_atomic_t *stop)
{
    const int case_ms = fake_env("FAKE_GPU_CASE_MS", 40);
    const int slow = fake_env("FAKE_GPU_SLOW", -1) == dev->ordinal;
    (void)o;
    for (int c = 0; c < p->count; c++) {
        const plan_case *pc = &p->cases[c];
        const op_info *op = &fake_ops[pc->op];
        result_row rows[PLAN_MAX_VARIANTS];
        fake_log("begin", dev->ordinal);
        for (int t = 0; t < case_ms; t += 10) {
            struct timespec ts = {0, 10000000L};
            if (*stop) {
                fake_log("end", dev->ordinal);
                return *stop == SIGTERM ? 143 : 130;
            }
            nanosleep(&ts, NULL);
        }
        fake_log("end", dev->ordinal);
        for (int i = 0; i < pc->variant_count; i++) {
            const variant_info *v = &fake_variants[pc->variant[i]];
            result_row *r = &rows[i];
            double rate = (v->is_library ? 1.0 : 0.5) * (slow ? 0.8 : 1.0);
            fleet_case_row(pc, &fake_cat, i, r);
            r->status = STATUS_OK;
            r->time_ms.count = 5;
            if (op->rate == OP_RATE_TFLOPS) {
                r->flops = 2.0 * (double)pc->m * (double)pc->n * (double)pc->k;
                r->time_ms.median = r->flops / (50e12 * rate) * 1e3;
            } else {
                r->bytes = 4.0 * (double)pc->elems;
                r->time_ms.median = r->bytes / (3000e9 * rate) * 1e3;
            }
            r->time_ms.min = r->time_ms.q1 = r->time_ms.q3 = r->time_ms.max = r->time_ms.mean = r->time_ms.median;
            snprintf(r->kernel, sizeof r->kernel, "%s", v->name);
            if (slow) {
                r->sm_clock_mhz = 1500;
                r->sm_clock_min_mhz = 1410;
                snprintf(r->throttle, sizeof r->throttle, "sw_power_cap");
            }
        }
        plan_percents(op, &dev->info, rows, pc->variant_count);
        sink->emit_case(sink->ctx, rows, pc->variant_count);
    }
    return 0;
}

static int fake_mem_info(compare_gpu_device *dev, size_t *free_bytes, size_t *total_bytes)
{
    (void)dev;
    *free_bytes = *total_bytes = (size_t)80 << 30;
    return 0;
}

static long long fake_flush_bytes(const compare_gpu_device *dev)
{
    (void)dev;
    return 100LL << 20;
}

static void fake_close(compare_gpu_device *dev) { free(dev); }

static const compare_gpu_api fake_api = {
    COMPARE_GPU_API_VERSION, fake_load_plugin, fake_catalog,  fake_device_count, fake_open,
    fake_run,         fake_mem_info, fake_flush_bytes,  fake_close,
};

const compare_gpu_api *compare_gpu_api_get(void);
const compare_gpu_api *compare_gpu_api_get(void) { return &fake_api; }
