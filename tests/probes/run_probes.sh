#!/usr/bin/env bash
# tests/probes/run_probes.sh: one GPU call that measures every candidate the picks
# are chosen from, on the machine with the GPU, after tests/gpu_check.sh's build phase.
#
#   tests/probes/run_probes.sh LOGDIR
#
# transpose and scan probes (built by CMake's `probes` target in BUILD, not in `all`),
# compare --candidates over the FP32 (`tuned`) and TF32-TMA candidates at small and
# model sizes, and compare itself on the unaligned TF32 shapes. Each log in LOGDIR;
# exit status non-zero if any failed.
# PROBES picks the steps (default: transpose transpose-cands scan fp32 tma unaligned; tf32 only when
# named, see tests/probes/tf32_probe.cu); transpose-ncu, only
# when named, runs Nsight Compute on one launch each of cublas geam, transpose `base`,
# `diag` and the copy_vec ceiling at 8192 x 8192 (rows: TRANSPOSE_NCU_ROWS), e.g.
#   PROBES="transpose transpose-ncu" STAGE=both tests/probes/run_probes.sh LOGDIR
set -u
LOG=${1:?usage: tests/probes/run_probes.sh LOGDIR}
mkdir -p "$LOG"
LOG=$(cd "$LOG" && pwd)
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build-gpu}
PROBES=" ${PROBES:-transpose transpose-cands scan fp32 tma unaligned} "
fail=0
step() { # name, then the command; output to LOG/name.log and a one-line verdict
    local name=$1
    shift
    local t0=$SECONDS
    "$@" >"$LOG/$name.log" 2>&1
    local rc=$?
    echo "$name: rc=$rc $((SECONDS - t0))s"
    [ $rc -eq 0 ] || fail=1
}
has() { [[ $PROBES == *" $1 "* ]]; }
# STAGE=build only compiles the probes (in BUILD, configured by gpu_check.sh's build phase),
# STAGE=run only runs them, anything else does both
STAGE=${STAGE:-both}
if [ "$STAGE" != run ]; then
    targets=()
    { has transpose || has transpose-ncu; } && targets+=(transpose_probe)
    has tf32 && targets+=(tf32_probe)
    has scan && targets+=(scan_probe)
    [ ${#targets[@]} -gt 0 ] && step probes-build cmake --build "$BUILD" --target "${targets[@]}"
    [ "$STAGE" = build ] && exit $fail
fi
has transpose && step transpose timeout 120 "$BUILD/transpose_probe" 25 0
# the transpose candidates on the harness (interleaved, clocks, L2 flush) beside cublas_geam
has transpose-cands && step transpose-cands timeout 120 "$BUILD/compare" --candidates transpose_fast \
    --n 4096,8192 --csv "$LOG/transpose_cands.csv"
# transpose-ncu: the probe's quick mode (third argument: the rows) runs 8192 x 8192 only,
# one warm-up and one timed launch a row, the timed one alone between cudaProfilerStart
# and cudaProfilerStop: with --profile-from-start off, ncu profiles exactly that launch of
# each row whatever cuBLAS calls its kernel (--launch-count only caps it). Caches flushed
# before each profiled pass (--cache-control all); clocks never touched
# (--clock-control none). If ncu rejects the first metric list (the stall-reason regex,
# --print-units), it runs again with plainer ones; under 90 s in all.
TRANSPOSE_NCU_ROWS=${TRANSPOSE_NCU_ROWS:-cublas_geam,base,b4,b4_b6,copy_vec}
TRANSPOSE_NCU_METRICS=launch__grid_size,launch__block_size,launch__registers_per_thread,\
launch__shared_mem_per_block_static,launch__shared_mem_per_block_dynamic,gpu__time_duration.sum,\
dram__bytes_read.sum,dram__bytes_write.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,\
lts__t_sectors_op_read.sum,lts__t_sectors_op_write.sum,sm__warps_active.avg.pct_of_peak_sustained_active,\
l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum
transpose_ncu() {
    local ncu=(ncu --profile-from-start off --cache-control all --clock-control none --launch-count 16)
    local probe=("$BUILD/transpose_probe" 1 0 "$TRANSPOSE_NCU_ROWS")
    local stalls='regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio'
    local rc
    ncu --version
    timeout 45 "${ncu[@]}" --print-units base --section WarpStateStats \
        --metrics "$TRANSPOSE_NCU_METRICS,$stalls" "${probe[@]}"
    rc=$?
    [ $rc -eq 0 ] || [ $rc -eq 124 ] && return $rc
    echo "== ncu rc=$rc: again without the stall-reason regex and --print-units"
    timeout 20 "${ncu[@]}" --section WarpStateStats --metrics "$TRANSPOSE_NCU_METRICS" "${probe[@]}"
    rc=$?
    [ $rc -eq 0 ] || [ $rc -eq 124 ] && return $rc
    echo "== ncu rc=$rc: again with sections only"
    timeout 20 "${ncu[@]}" --section LaunchStats --section Occupancy --section SpeedOfLight \
        --section MemoryWorkloadAnalysis --section WarpStateStats "${probe[@]}"
}
has transpose-ncu && step transpose-ncu transpose_ncu
has scan && step scan timeout 120 "$BUILD/scan_probe"
# tf32: the LARGE tf32_tma structure with parts of its work taken away (TMA copies,
# fragment loads, ping-pong), beside cuBLAS TF32 and the shipped candidates
has tf32 && step tf32 timeout 150 "$BUILD/tf32_probe" "${TF32_PROBE_REPS:-20}" "${TF32_PROBE_SIZES:-2048,4096,8192}"
has fp32 && step fp32 timeout 300 "$BUILD/compare" --candidates tuned --n 129,256,384,512,768,1024,1537 \
    --shape 16x14336x4096,129x4099x257,896x4864x1024,1024x50257x768,65536x256x256,256x4096x4096,1024x1024x8192,4096x512x512 \
    --csv "$LOG/search_small.csv"
has tma && step tma timeout 240 "$BUILD/compare" --candidates tf32_tma --n 256,512,768,1024,2048 \
    --shape 16x14336x4096,1024x14336x4096 --csv "$LOG/search_tma.csv"
has unaligned && step unaligned timeout 120 "$BUILD/compare" --ops sgemm --variants tuned,tf32_tma,tf32_mma \
    --n 256,512,1024,129,1537 --shape 4097x4097x4097,3001x3001x3001,3001x1021x2053,129x4099x257,1024x50257x768,16x14336x4096 \
    --cpu-max-n 0 --max-time 1 --csv "$LOG/unaligned.csv"
exit $fail
