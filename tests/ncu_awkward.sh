#!/usr/bin/env bash
# tests/ncu_awkward.sh: where each SGEMM loses at the awkward shapes (issue 41):
# Nsight Compute on the library's kernels and the hand ones, one shape per
# class of shapes/awkward.txt (not a ctest test: it needs ncu and a GPU).
#
#   tests/ncu_awkward.sh LOGDIR [SHAPES] [VARIANTS]
#
# SHAPES: comma-separated MxNxK (default: one per class, below). VARIANTS:
# comma-separated; a shipped row by its name (cublas_fp32, tuned, ...), a
# search candidate as FAMILY:NAME (e.g. tuned:128x256x8_w64x64_t8x16_s4_g8_sp2_b4_sk_edge).
# For each shape and variant: `compare --profile` (each verified variant
# launched once, no flush, in an NVTX range "sgemm <variant> <MxNxK>") under
# ncu filtered to that range, caches flushed before each profiled kernel
# (ncu's default), clocks as found (--clock-control none). Every kernel of the
# range is recorded (a staged tf32_tma call is three: copies, GEMM, copy back;
# a split-k call has its memset): name, grid, block, registers, time, DRAM
# bytes, achieved occupancy, SM throughput, FMA and tensor pipes.
# Writes LOGDIR/ncu_awkward_<shape>_<variant>.csv (ncu's raw CSV) and prints
# LOGDIR/ncu_awkward.md: per shape, one row per variant (its kernels summed:
# time, DRAM bytes; the longest kernel's name and rates) and one per kernel.
# Needs an existing build in ${BUILD:-build-gpu}. Exit status 1 when a run
# failed or profiled no kernel (the table is written anyway).
set -u
LOG=${1:?usage: tests/ncu_awkward.sh LOGDIR [SHAPES] [VARIANTS]}
# a shape per class of shapes/awkward.txt: k_unaligned (n aligned, then n and k
# unaligned as prime_8191 in n or k is), mn_tiny (m, then n), k_tiny, all_odd
SHAPES=${2:-4096x4096x999,8192x2051x4095,33x50257x4096,8192x16x8192,8192x8192x64,4095x4093x511}
# the libraries, the shipped hand rows, and the candidates that fix a class
VARIANTS=${3:-cublas_fp32,cublas_tf32,tuned,tf32_tma,tuned:128x256x8_w64x64_t8x16_s4_g8_sp2_b4_sk_edge,tf32_tma:tf32_tma_lean_staging}
mkdir -p "$LOG"
LOG=$(cd "$LOG" && pwd)
cd "$(dirname "$0")/.." || exit 1
BUILD=${BUILD:-build-gpu}
NCU=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
METRICS=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,\
sm__warps_active.avg.pct_of_peak_sustained_active,sm__throughput.avg.pct_of_peak_sustained_elapsed,\
gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed,launch__grid_size,launch__block_size,\
launch__registers_per_thread,sm__cycles_elapsed.avg.per_second,\
sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active,\
sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_active,\
sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active
fail=0
for shape in ${SHAPES//,/ }; do
    for spec in ${VARIANTS//,/ }; do
        variant=${spec#*:}
        cand=()
        [ "$spec" != "$variant" ] && cand=(--candidates "${spec%%:*}")
        out="$LOG/ncu_awkward_${shape}_${variant}.csv"
        "$NCU" --clock-control none --nvtx --nvtx-include "sgemm $variant $shape/" --metrics "$METRICS" \
            --print-units base --csv "$BUILD/compare" --ops sgemm --shape "$shape" ${cand[@]+"${cand[@]}"} \
            --variants "$variant" --cpu-max-n 0 --profile --quiet >"$out" 2>"${out%.csv}.err"
        rc=$?
        nk=$(grep -c '"gpu__time_duration.sum"' "$out")
        echo "ncu $shape $spec: exit $rc, $nk kernels" >&2
        # a failed run or a range with no kernel (a misspelt variant, a SKIP) fails the script
        if [ "$rc" -ne 0 ] || [ "$nk" -eq 0 ]; then fail=1; fi
    done
done
python3 - "$LOG" "$SHAPES" "$VARIANTS" <<'PY' | tee "$LOG/ncu_awkward.md"
import csv, os, sys
log, shapes, variants = sys.argv[1], sys.argv[2].split(","), sys.argv[3].split(",")
def kernels(path):
    """ncu's CSV records of one run: {kernel ID: {metric: value, 'name': kernel name}}"""
    if not os.path.exists(path):
        return {}
    lines = [l for l in open(path, errors="replace") if l.startswith('"')]
    out = {}
    for rec in csv.DictReader(lines):
        k = out.setdefault(rec.get("ID"), {"name": rec.get("Kernel Name", "?")})
        try:
            k[rec["Metric Name"]] = float(rec["Metric Value"].replace(",", ""))
        except (KeyError, ValueError):
            pass
    return out
def g(k, m):
    return k.get(m, float("nan"))
def i(x):
    return "-" if x != x else "%d" % x
print("# Nsight Compute at the awkward shapes (tests/ncu_awkward.sh)\n")
print("Per variant: every kernel of its call summed (time, DRAM bytes), the rates of its longest kernel.\n")
for shape in shapes:
    print("## %s\n" % shape)
    print("| variant | kernels | time us | DRAM read MB | DRAM write MB | longest kernel | grid x block | regs |"
          " occupancy % | SM thr % | mem thr % | FMA pipe % | tensor pipe % | SM MHz |")
    print("|---|---:|---:|---:|---:|---|---|---:|---:|---:|---:|---:|---:|---:|")
    for spec in variants:
        v = spec.split(":", 1)[-1]
        ks = kernels(os.path.join(log, "ncu_awkward_%s_%s.csv" % (shape, v)))
        if not ks:
            print("| %s | 0 | no kernels profiled (see the .err file) |||||||||||" % spec)
            continue
        t = sum(g(k, "gpu__time_duration.sum") for k in ks.values())
        rd = sum(g(k, "dram__bytes_read.sum") for k in ks.values())
        wr = sum(g(k, "dram__bytes_write.sum") for k in ks.values())
        big = max(ks.values(), key=lambda k: g(k, "gpu__time_duration.sum"))
        tensor = max(g(big, "sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_active"),
                     g(big, "sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active"))
        print("| %s | %d | %.1f | %.1f | %.1f | `%s` | %s x %s | %s | %.0f | %.0f | %.0f | %.0f | %.0f | %.0f |" % (
            spec, len(ks), t / 1e3, rd / 1e6, wr / 1e6, big["name"][:70],
            i(g(big, "launch__grid_size")), i(g(big, "launch__block_size")), i(g(big, "launch__registers_per_thread")),
            g(big, "sm__warps_active.avg.pct_of_peak_sustained_active"),
            g(big, "sm__throughput.avg.pct_of_peak_sustained_elapsed"),
            g(big, "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed"),
            g(big, "sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active"), tensor,
            g(big, "sm__cycles_elapsed.avg.per_second") / 1e6))
        if len(ks) > 1:
            for k in ks.values():
                print("|  | | %.1f | %.1f | %.1f | `%s` | | | | | | | | |" % (
                    g(k, "gpu__time_duration.sum") / 1e3, g(k, "dram__bytes_read.sum") / 1e6,
                    g(k, "dram__bytes_write.sum") / 1e6, k["name"][:70]))
    print()
PY
exit "$fail"
