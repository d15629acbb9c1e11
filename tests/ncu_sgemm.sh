#!/usr/bin/env bash
# tests/ncu_sgemm.sh: profile SGEMM kernels with Nsight Compute, clocks as found.
#
#   tests/ncu_sgemm.sh LOGDIR [N] [VARIANTS] [KERNEL_REGEX]
#
# Runs `compare --ops sgemm --n N --variants VARIANTS --reps 3 --max-reps 3` under ncu
# (--clock-control none: the GPU's clocks are never touched) and writes, for
# the first NCU_COUNT (default 40) launches whose name matches KERNEL_REGEX
# (default: anything with "gemm" except the tool's checking kernels and the
# FP64 reference; the libraries run too, as they do in every comparison):
#   LOGDIR/ncu_sections.txt  speed of light, compute, scheduler, warp state,
#                            instruction, occupancy and launch sections
#   LOGDIR/ncu_kernels.txt   every kernel launched (name, duration) in the run
#   LOGDIR/ncu_source.csv    with SOURCE_RX set: the SASS of the first launch matching
#                            it, with per-instruction stall samples
# Needs an existing build in ${BUILD:-build-gpu} (tests/gpu_check.sh PHASES=build).
set -u
LOG=${1:?usage: tests/ncu_sgemm.sh LOGDIR [N] [VARIANTS] [KERNEL_REGEX]}
N=${2:-4096}
VARIANTS=${3:-cublas_fp32,tuned}
RX=${4:-'regex:^(?!gc_|.*f64f64).*gemm'}
mkdir -p "$LOG"
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build-gpu}
NCU=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
args=(--ops sgemm --n "$N" --variants "$VARIANTS" --reps 3 --max-reps 3)
"$NCU" --clock-control none --metrics gpu__time_duration.sum -c 400 \
    "$BUILD/compare" "${args[@]}" >"$LOG/ncu_kernels.txt" 2>&1
"$NCU" --clock-control none -k "$RX" -c "${NCU_COUNT:-40}" \
    --section SpeedOfLight --section ComputeWorkloadAnalysis --section SchedulerStats \
    --section WarpStateStats --section InstructionStats --section Occupancy --section LaunchStats \
    --metrics sm__cycles_elapsed.avg.per_second,smsp__inst_executed.sum,smsp__inst_executed_pipe_fma.sum,sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active,smsp__issue_active.avg.pct_of_peak_sustained_active,smsp__inst_executed_op_shared_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum \
    "$BUILD/compare" "${args[@]}" >"$LOG/ncu_sections.txt" 2>&1
# per-instruction SASS view (stall samples) of the first kernel matching SOURCE_RX
if [ -n "${SOURCE_RX:-}" ]; then
    "$NCU" --clock-control none -k "$SOURCE_RX" -c 1 --set full --import-source no -f -o "$LOG/ncu_source" \
        "$BUILD/compare" "${args[@]}" >"$LOG/ncu_source_run.txt" 2>&1
    "$NCU" -i "$LOG/ncu_source.ncu-rep" --page source --csv --print-source sass >"$LOG/ncu_source.csv" 2>&1
fi
echo "ncu done: $(grep -c 'Section: Launch Statistics' "$LOG/ncu_sections.txt") launches profiled"
