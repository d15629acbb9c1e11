#!/usr/bin/env bash
# tests/probes/tf32_round_probe.sh LOGDIR: do the operands' low bits set tf32_tma's power?
#
# Runs tests/probes/tf32_probe (built first: PROBES=tf32 STAGE=build
# tests/probes/run_probes.sh) at N (default 8192) on ROWS (default the LARGE
# pick), REPS samples a row (default 1000, about 3 s at 8192), with
# PROBE_DATA=full (every mantissa bit, as compare's cuRAND inputs) and tf32
# (the same values rounded to TF32 first), ROUNDS times (default 2), while
# nvidia-smi samples power and SM clock every 50 ms (read only; clocks never
# set). Prints every row's time and % of cuBLAS TF32, then per row and data
# its mean power and SM clock over its span (the first 0.5 s of each
# skipped). When a kernel's clock under the power cap rises with pre-rounded
# data, the low bits it moves cost power. With FP32 tensor maps tf32_tma
# moved them all the way to the tensor core (which truncated them) and ran
# 95-96% of cuBLAS on full data, 98-100% on pre-rounded data; with TF32 maps
# (the copy engine rounds, as cuBLAS's kernel does) 98-99% on both, within
# 1.3% of cuBLAS's clock in these 3-second capped rows
# (results/h200/tuning/tf32_rounding.txt). To see the old form again, build with
# COMPARE_KERNEL_DEFS=SGEMM_TMA_DATA_TYPE=CU_TENSOR_MAP_DATA_TYPE_FLOAT32.
set -u
LOG=${1:?usage: tests/probes/tf32_round_probe.sh LOGDIR}
mkdir -p "$LOG"
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build-gpu}
ROWS=${ROWS:-m256n128k32_s4_pf_pers_c2}
REPS=${REPS:-1000}
ROUNDS=${ROUNDS:-2}
N=${N:-8192}
[ -x "$BUILD/tf32_probe" ] || { echo "no $BUILD/tf32_probe: build it first (run_probes.sh)" >&2; exit 2; }
fail=0
nvidia-smi --query-gpu=timestamp,power.draw,clocks.sm --format=csv,noheader,nounits -lms 50 >"$LOG/smi.csv" &
smi=$!
for r in $(seq "$ROUNDS"); do
    for d in full tf32; do
        PROBE_DATA=$d timeout 300 "$BUILD/tf32_probe" "$REPS" "$N" "$ROWS" >>"$LOG/probe.txt" 2>&1 || fail=1
    done
done
kill "$smi" 2>/dev/null
wait "$smi" 2>/dev/null
grep -v "^span" "$LOG/probe.txt"
echo "# mean power and SM clock over each row's span (first 0.5 s skipped)"
awk -F', *' 'FNR == NR {
        split($1, dt, " "); split(dt[2], hms, ":");
        t[++ns] = hms[1] * 3600 + hms[2] * 60 + hms[3]; w[ns] = $2; c[ns] = $3; next }
    / data / { nq = split($0, q, " "); data = q[nq] }
    /^span / { split($0, f, " "); sw = sc = k = 0
        for (i = 1; i <= ns; i++) if (t[i] >= f[3] + 0.5 && t[i] <= f[4]) { sw += w[i]; sc += c[i]; k++ }
        if (k) printf "%-32s data %-4s %4d samples  %6.1f W  %6.1f MHz\n", f[2], data, k, sw / k, sc / k
        else printf "%-32s data %-4s no samples\n", f[2], data }' "$LOG/smi.csv" "$LOG/probe.txt"
exit $fail
