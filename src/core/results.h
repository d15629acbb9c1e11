/* src/core/results.h: what a run measured. One result_row per variant and size,
 * plus the run_info that every output (table, CSV, JSON) starts with. */
#ifndef COMPARE_RESULTS_H
#define COMPARE_RESULTS_H

#include <stddef.h>

#include "catalog.h"
#include "stats.h"
#include "status.h"
#include "types.h"

typedef struct {
    char name[256];            /* device name */
    int cc_major, cc_minor;    /* compute capability */
    int sms;                   /* multiprocessors */
    double sm_clock_khz;       /* peak SM clock */
    double mem_clock_khz;      /* peak memory clock */
    int bus_width_bits;        /* memory bus width */
    long long l2_bytes;        /* L2 cache size */
    long long total_mem_bytes; /* device memory */
    int driver_version;        /* e.g. 13000 */
    int runtime_version;       /* e.g. 13000 */
    int cublas_version;        /* e.g. 130100 */
    int fp32_lanes_per_sm;     /* FMA lanes per SM for this cc */
    double peak_fp32_tflops;   /* sms * lanes * 2 * clock */
    double peak_mem_gbps;      /* mem clock * 2 * bus / 8 */
    /* the compute ceiling of each math (types_math: fp32, tf32, fp16, bf16,
     * fp8; dense, FP32 accumulate) at sm_clock_khz in TFLOP/s, 0 when the
     * peak table (src/core/peaks.c) does not know it for this GPU */
    double peak_tflops[TYPES_MATH_COUNT];
    char peaks_note[256];      /* which maths have no ceiling here and why ("" when all are known) */
    int index;                 /* CUDA device ordinal */
    char uuid[48];             /* "GPU-xxxxxxxx-..." */
    char pci_bus_id[32];       /* "0000:19:00.0" */
    double max_sm_clock_mhz;   /* NVML's maximum SM clock (< 0 unknown) */
    char clocks_note[160];     /* why clocks are not observed ("" when they are) */
    int copy_engines;          /* asynchronous copy engines (cudaDevAttrAsyncEngineCount) */
    int pcie_gen, pcie_width;  /* the PCIe link now (NVML), 0 unknown */
} device_info;

typedef struct {
    char timestamp[32];        /* ISO 8601 UTC, run start */
    const char *git_commit;    /* build's commit */
    unsigned long long seed;   /* cuRAND seed for the inputs */
    int l2_flush;              /* 1 if L2 was flushed before each sample */
    int interleave;            /* 1 if each case's variants were timed in rounds (--interleave) */
    device_info dev;           /* the GPU */
    char hostname[64];         /* the machine the GPU is in */
    int rank;                  /* MPI rank, -1 without MPI */
    int metrics;               /* 1: --metrics (a counter launch per row; the table shows `bound`) */
} run_info;

typedef struct {
    const char *op;            /* op name ("sgemm", "reduce", "sort", ...) */
    const char *variant;       /* variant name, verbatim from the variant table */
    int library;               /* 1 library row, 0 hand row */
    const char *math;          /* "fp32" | "tf32" | the case's element type ("u32", "f32") */
    const char *source;        /* "builtin" or the plugin's file name */
    char case_label[96];       /* the case's title, e.g. "sgemm 4096x14336x4096" */
    char shape[128];           /* the case's canonical axis string, "m=4096,n=14336,k=4096" (plan_case.shape) */
    op_rate rate;              /* which throughput the table shows */
    op_peak peak;              /* which ceiling %peak is taken against */
    char kernel[96];           /* the kernel that really ran ("" when not known) */
    char kernel_note[160];     /* why it is not the variant's own kernel ("" when it is) */
    const char *dist;          /* input distribution, for ops that have one ("uniform", "skewed"), else NULL */
    const char *speedup_vs;    /* the table also says how much faster this row ran than that one */
    long long m, n, k;         /* GEMM shape, 0 when not a GEMM */
    long long elems;           /* reduce/sort length, 0 for GEMM */
    status_t status;           /* ok / FAIL / ERROR / SKIP */
    char message[512];         /* reason for FAIL/ERROR/SKIP, "" otherwise */
    stats_summary time_ms;     /* sample statistics in ms (count 0 when not timed) */
    double *samples_ms;        /* every sample in ms (owned, may be NULL) */
    double tflops;             /* sgemm throughput, < 0 when n/a */
    double gbps;               /* reduce throughput (bytes read), < 0 when n/a */
    double gkeys;              /* sort throughput, < 0 when n/a */
    const char *ref_library;   /* reference library row name (NULL for library rows) */
    double pct_ref;            /* % of ref library, < 0 when n/a */
    const char *best_library;  /* fastest library row name */
    double pct_best;           /* % of best library, < 0 when n/a */
    double pct_peak;           /* % of the row's ceiling: its math's peak (compute ops) or the
                                  memory bandwidth (memory-bound ops); < 0 n/a */
    char peak_math[8];         /* compute ops: the math whose ceiling %peak is of ("tf32"), "" otherwise */
    double peak_tflops;        /* that ceiling at the row's SM clock, TFLOP/s; < 0 n/a or unknown */
    double rel_err;            /* verification error, < 0 when not verified */
    double tolerance;          /* its bound */
    double flops;              /* operations done, < 0 when n/a */
    double bytes;              /* fewest bytes moved through device memory */
    /* clocks observed while the samples ran (NVML; < 0 / "" when unknown) */
    double sm_clock_mhz;       /* mean SM clock */
    double sm_clock_min_mhz;   /* lowest SM clock seen */
    double mem_clock_mhz;      /* mean memory clock */
    double temp_c;             /* highest GPU temperature */
    double power_w;            /* mean board power */
    char throttle[160];        /* clock-event reasons seen, "a|b" ("" when none) */
    int throttled;             /* 1 if a power or thermal slowdown was seen */
    int resampled;             /* times its samples were taken again (--discard-throttled) */
    /* how its samples were timed: "gated" (the timing gate held the stream
     * until the call and the stop event were enqueued), "ungated" (the gate
     * gave up: the call waits on its stream; or no mapped memory for it),
     * "host" (a host-synchronous call, timed from an idle stream), "wall"
     * (the host's own work, a wall clock), "" when not timed */
    char timing[8];
    int interleaved;           /* 1: timed in rounds with the case's other variants (the default) */
    char note[320];            /* what its time includes or how it was timed (a sequential
                                  fallback, thrust's allocation per call), "" when nothing */
    /* the roofline (src/core/roofline.h): analytic, every row */
    double intensity;          /* flops / bytes: FLOP per byte of the minimum traffic; < 0 n/a */
    char bound[24];            /* the limiting roof and the % of its ceiling reached: "memory N%",
                                  "tensor N%", "fp32 N%"; "" n/a (untimed, or a ceiling unknown) */
    double bound_pct;          /* that %, < 0 n/a */
    /* --metrics (src/gpu/metrics_cupti.h): one untimed launch under CUPTI;
     * each < 0 when not measured (metrics_note then says why) */
    double dram_read_bytes;    /* dram__bytes_read.sum */
    double dram_write_bytes;   /* dram__bytes_write.sum */
    double l2_bytes;           /* lts__t_bytes.sum: bytes through the L2 slices */
    double flops_measured;     /* executed FP32 FLOPs: 2 x FFMA + FADD + FMUL thread instructions */
    double tensor_inst;        /* sm__inst_executed_pipe_tensor.sum: tensor warp instructions */
    double occupancy_pct;      /* sm__warps_active.avg.pct_of_peak_sustained_active */
    double sm_throughput_pct;  /* sm__throughput.avg.pct_of_peak_sustained_elapsed */
    double smem_conflicts;     /* l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum */
    double smem_wavefronts;    /* l1tex__data_pipe_lsu_wavefronts_mem_shared.sum */
    double intensity_measured; /* flops_measured / (dram read + write bytes) */
    char metrics_note[192];    /* what the measured columns count or why they are empty ("" without --metrics) */
    char hint[448];            /* hand rows: the hints of roofline_hints, "; "-separated */
} result_row;

/* Sets every "not applicable" figure of a fresh row (< 0, empty strings). */
void results_row_clear(result_row *r);

/* Receives each case's rows once the case is complete (or cut short). */
typedef struct {
    void (*emit_case)(void *ctx, result_row *rows, int count);
    void *ctx;
} run_sink;

/* Frees what a row owns (its samples). */
void results_row_free(result_row *r);

#endif
