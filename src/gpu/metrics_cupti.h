/* src/gpu/metrics_cupti.h: --metrics' counters: one call of a variant,
 * untimed, measured under CUPTI's Range Profiler (CUDA 12.6+ / 13: the
 * Range Profiling and Profiler Host APIs; no ncu process).
 *
 * How: libcupti is loaded with dlopen on first use (compare runs where it
 * is absent); for each measurement the profiler is initialised, one user
 * range is pushed around the call, and the call is replayed by us once per
 * pass the metrics need (CUPTI_UserReplay: the caller's reset() before each
 * pass restores the inputs and flushes L2, outside the range); then the
 * profiler is torn down again, so the timed samples of later rows run with
 * no profiler hooks in the driver. The figures are totals over everything
 * the call launched (several kernels, a library's internal ones too).
 *
 * Never a wrong number: where counters are not permitted (a driver that
 * restricts them to admin users, a virtualised GPU), where the device or
 * CUPTI does not support them, or where a range was dropped, nothing is
 * filled and the note says why. COMPARE_METRICS_FAKE=denied answers every
 * measurement as CUPTI does where counters are kept to admins
 * (CUPTI_ERROR_INSUFFICIENT_PRIVILEGES from cuptiRangeProfilerEnable), before
 * any CUPTI call, and COMPARE_METRICS_FAKE=absent makes libcupti not found,
 * so the tests check those paths alike on any machine. */
#ifndef COMPARE_METRICS_CUPTI_H
#define COMPARE_METRICS_CUPTI_H

#include <stddef.h>

/* The metrics collected (docs/metrics.md says what each counts). */
#define METRICS_DRAM_READ "dram__bytes_read.sum"
#define METRICS_DRAM_WRITE "dram__bytes_write.sum"
#define METRICS_L2_BYTES "lts__t_bytes.sum"
#define METRICS_FFMA "sm__sass_thread_inst_executed_op_ffma_pred_on.sum"
#define METRICS_FADD "sm__sass_thread_inst_executed_op_fadd_pred_on.sum"
#define METRICS_FMUL "sm__sass_thread_inst_executed_op_fmul_pred_on.sum"
#define METRICS_TENSOR_INST "sm__inst_executed_pipe_tensor.sum"
#define METRICS_GMMA_INST "sm__inst_executed_pipe_tensor_op_gmma.sum" /* sm_90 wgmma; optional */
#define METRICS_OCCUPANCY "sm__warps_active.avg.pct_of_peak_sustained_active"
#define METRICS_SM_THROUGHPUT "sm__throughput.avg.pct_of_peak_sustained_elapsed"
#define METRICS_SMEM_CONFLICTS "l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum"
#define METRICS_SMEM_WAVEFRONTS "l1tex__data_pipe_lsu_wavefronts_mem_shared.sum"

/* One measurement; each figure < 0 when not measured. */
typedef struct {
    double dram_read_bytes;    /* METRICS_DRAM_READ */
    double dram_write_bytes;   /* METRICS_DRAM_WRITE */
    double l2_bytes;           /* METRICS_L2_BYTES */
    double flops_fp32;         /* 2 x FFMA + FADD + FMUL thread instructions (predicated on) */
    double tensor_inst;        /* METRICS_TENSOR_INST: warp instructions on the tensor pipe */
    double gmma_inst;          /* METRICS_GMMA_INST: Hopper's warpgroup MMA instructions (< 0 where the chip has none) */
    double occupancy_pct;      /* METRICS_OCCUPANCY */
    double sm_throughput_pct;  /* METRICS_SM_THROUGHPUT */
    double smem_conflicts;     /* METRICS_SMEM_CONFLICTS */
    double smem_wavefronts;    /* METRICS_SMEM_WAVEFRONTS */
    int passes;                /* replays of the call it took */
} metrics_values;

/* The work measured: reset() before each pass (outside the profiled range:
 * the variant's prepare step, the L2 flush; it waits for them), run() the
 * call itself (it waits for its work). Each returns STATUS_OK or an error
 * status with the message set (status.h). */
typedef struct {
    int (*reset)(void *ctx);
    int (*run)(void *ctx);
    void *ctx;
} metrics_work;

typedef struct metrics_cupti metrics_cupti;

/* A measuring session for CUDA device `ordinal` (the current device of the
 * calling thread when measuring). Loads nothing yet. NULL when out of memory. */
metrics_cupti *metrics_cupti_open(int ordinal);
/* Measures w once. Returns 0 with *out filled (figures the chip lacks < 0,
 * the note naming them, else ""), -1 when nothing could be measured (the
 * note says why: counters not permitted, no CUPTI, a CUPTI error), -2 when
 * w's own call or reset failed (the note holds its message). Measurements of
 * all sessions are serialised (CUPTI's profiler is one per process). */
int metrics_cupti_measure(metrics_cupti *m, const metrics_work *w, metrics_values *out, char *note, size_t note_len);
void metrics_cupti_close(metrics_cupti *m);

#endif
