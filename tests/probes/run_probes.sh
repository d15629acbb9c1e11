#!/usr/bin/env bash
# tests/probes/run_probes.sh: one GPU call that measures every candidate the picks
# are chosen from, on the machine with the GPU, after tests/gpu_check.sh's build phase.
#
#   tests/probes/run_probes.sh LOGDIR
#
# transpose and scan probes (standalone programs, built here with nvcc), compare-search
# over the FP32 and TF32-TMA candidates at the sizes issue 17 names, and compare itself
# on the unaligned TF32 shapes. Each log in LOGDIR; exit status non-zero if any failed
# (the probe builds run in the background: their failure shows in their logs and rc lines).
set -u
LOG=${1:?usage: tests/probes/run_probes.sh LOGDIR}
mkdir -p "$LOG"
LOG=$(cd "$LOG" && pwd)
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build-gpu}
PROBES=" ${PROBES:-transpose scan fp32 tma unaligned} "
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
NVCC="nvcc -O3 -std=c++17 -arch=sm_90a -lineinfo -Ikernels -Ikernels/common"
# STAGE=build only compiles the probes (it can run beside gpu_check.sh's build), STAGE=run
# only runs them, anything else does both
STAGE=${STAGE:-both}
if [ "$STAGE" != run ]; then
    mkdir -p "$BUILD"
    has transpose && step transpose-build $NVCC tests/probes/transpose_probe.cu -lcublas -o "$BUILD/transpose_probe" &
    has scan && step scan-build $NVCC -Ishim tests/probes/scan_probe.cu shim/thrust_cub.cu -o "$BUILD/scan_probe" &
    wait
    [ "$STAGE" = build ] && exit $fail
fi
has transpose && step transpose timeout 120 "$BUILD/transpose_probe" 25 0
has scan && step scan timeout 120 "$BUILD/scan_probe"
has fp32 && step fp32 timeout 240 "$BUILD/compare-search" --family fp32 --n 256,512,1024,129,1537 \
    --shape 16x14336x4096,129x4099x257,1024x50257x768,65536x256x256,896x4864x1024 --csv "$LOG/search_small.csv"
has tma && step tma timeout 240 "$BUILD/compare-search" --family tf32-tma --n 512,1024,2048,4096,8192 \
    --csv "$LOG/search_tma.csv"
has unaligned && step unaligned timeout 120 "$BUILD/compare" --ops sgemm --variants tuned,tf32_tma,tf32_mma \
    --n 256,512,1024,129,1537 --shape 4097x4097x4097,3001x3001x3001,3001x1021x2053,129x4099x257,1024x50257x768,16x14336x4096 \
    --cpu-max-n 0 --max-time 1 --csv "$LOG/unaligned.csv"
exit $fail
