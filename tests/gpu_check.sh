#!/usr/bin/env bash
# tests/gpu_check.sh: the whole GPU check in one go, on a machine with a GPU.
#   tests/gpu_check.sh LOGDIR [BENCH_ARGS...]
# 1. configures and builds (Release, architecture of the GPU present) in build-gpu/
# 2. runs every test (cpu and gpu labels) with ctest
# 3. runs the gpu tests under compute-sanitizer: memcheck, racecheck, initcheck, synccheck
# 4. runs the benchmark: compare BENCH_ARGS, or by default the reference runs
#    behind results/h200/ (compare --n 2048; sgemm at 2048/4096/8192; reduce and
#    sort at 2^20..2^28, with and without the L2 flush; compare-search; a sweep
#    of every op), CSVs into LOGDIR
# Logs go to LOGDIR; the last lines printed are a summary. Exit status is
# non-zero if any step failed.
set -u
LOG=${1:?usage: tests/gpu_check.sh LOGDIR [BENCH_ARGS...]}
shift
mkdir -p "$LOG"
LOG=$(cd "$LOG" && pwd)
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build-gpu}
JOBS=$(nproc 2>/dev/null || echo 4)
summary=()
fail=0
step() { # name, then the command; output to LOG/name.log
    local name=$1; shift
    local t0=$SECONDS
    echo "== $name: $*" >&2
    "$@" >"$LOG/$name.log" 2>&1
    local rc=$?
    summary+=("$(printf '%-22s rc=%-3s %4ss' "$name" "$rc" $((SECONDS - t0)))")
    [ $rc -eq 0 ] || fail=1
    tail -n 5 "$LOG/$name.log" >&2
    return $rc
}

nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,temperature.gpu,power.draw \
    --format=csv >"$LOG/gpu.txt" 2>&1
step configure cmake -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=Release || { printf '%s\n' "${summary[@]}"; exit 1; }
step build cmake --build "$BUILD" -j "$JOBS" || { printf '%s\n' "${summary[@]}"; exit 1; }
step ctest ctest --test-dir "$BUILD" --output-on-failure --timeout 900

# compute-sanitizer over the gpu tests. memcheck at the full sizes; the slower
# tools on the quick size set (COMPARE_TEST_QUICK=1), which still crosses
# every tile edge.
CS=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
for tool in memcheck racecheck initcheck synccheck; do
    quick=1
    [ "$tool" = memcheck ] && quick=${MEMCHECK_QUICK:-0}
    step "sanitizer-$tool" env COMPARE_TEST_QUICK=$quick "$CS" --tool "$tool" --error-exitcode 1 \
        --target-processes all "$BUILD/tests/test_gpu_variants"
    step "sanitizer-$tool-kernels" env COMPARE_TEST_QUICK=1 "$CS" --tool "$tool" --error-exitcode 1 \
        "$BUILD/tests/test_gpu_kernels"
done

# one file with every sanitizer run's verdict, for results/h200/
for f in "$LOG"/sanitizer-*.log; do
    echo "== $(basename "$f" .log)"
    grep -E "^(seed|test_gpu|=+ (ERROR|RACECHECK) SUMMARY)" "$f"
done >"$LOG/compute_sanitizer.txt"

if [ $# -eq 0 ]; then
    # the reference runs behind results/h200/ and the README
    step compare-n2048 "$BUILD/compare" --n 2048
    step bench-sgemm "$BUILD/compare" --ops sgemm --n 2048,4096,8192 --csv "$LOG/sgemm.csv"
    step bench-reduce-sort "$BUILD/compare" --ops reduce,sort --elems 2^20,2^24,2^26,2^28 --csv "$LOG/reduce_sort.csv"
    step bench-reduce-sort-noflush "$BUILD/compare" --ops reduce,sort --elems 2^20,2^24,2^26,2^28 --no-flush \
        --csv "$LOG/reduce_sort_noflush.csv"
    step search "$BUILD/compare-search" --n 2048,4096,8192
    step sweep "$BUILD/compare" --n 256:8192 --elems 2^16:2^30 --csv "$LOG/sweep.csv"
else
    step bench "$BUILD/compare" "$@"
fi
echo "== summary (logs in $LOG)"
printf '%s\n' "${summary[@]}"
exit $fail
