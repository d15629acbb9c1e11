#!/usr/bin/env bash
# tests/probes/tma_l2_probe.sh LOGDIR: where tf32_tma's memory traffic goes at 8192.
# 1. the tile-order search rows named in ORDER_ROWS (if the tree has them) alone under
#    Nsight Compute: time, SM clock, DRAM bytes, L2 sectors, L2 fabric (cross-partition) sectors;
# 2. the tool built with each TMA L2 promotion in PROMOS (256B, 128B, 64B, NONE: SGEMM_TMA_L2_PROMOTION through
#    COMPARE_KERNEL_DEFS): the same ncu figures of tf32_tma, then cuBLAS TF32 and tf32_tma
#    timed with --interleave at 4096 and 8192.
# Clocks as found (never set); caches flushed before each profiled launch.
set -u
LOG=${1:?usage: tests/probes/tma_l2_probe.sh LOGDIR}
PROMOS=${PROMOS:-256B 128B NONE}
mkdir -p "$LOG"
cd "$(dirname "$0")/../.."
NCU=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
M=gpu__time_duration.sum,sm__cycles_elapsed.avg.per_second,dram__bytes_read.sum,lts__t_sectors.sum,lts__t_sectors_srcunit_ltcfabric.sum
gen=()
command -v ninja >/dev/null && gen=(-G Ninja)
for P in $PROMOS; do
    B=build-l2-$P
    cmake -S . -B "$B" "${gen[@]}" -DCMAKE_BUILD_TYPE=Release -DCOMPARE_PLOT_VENV=OFF \
        "-DCOMPARE_KERNEL_DEFS=SGEMM_TMA_L2_PROMOTION=CU_TENSOR_MAP_L2_PROMOTION_$([ "$P" = NONE ] || echo L2_)$P" \
        >"$LOG/configure-$P.log" 2>&1 &&
        cmake --build "$B" --target compare >"$LOG/build-$P.log" 2>&1 || { echo "build $P failed"; continue; }
    if [ "$P" = "${PROMOS%% *}" ] && [ -n "${ORDER_ROWS:-}" ]; then
        for c in ${ORDER_ROWS:-}; do
            "$NCU" --clock-control none --cache-control all -k regex:sgemm_tmap -c 4 --metrics "$M" \
                "$B/compare" --candidates tf32_tma --variants "$c" --n 8192 --warmup 0 --reps 1 --max-reps 1 \
                --quiet >"$LOG/ncu-order-$c.log" 2>&1
        done
    fi
    "$NCU" --clock-control none --cache-control all -k regex:sgemm_tmap -c 4 --metrics "$M" \
        "$B/compare" --ops sgemm --n 8192 --variants tf32_tma --reps 2 --max-reps 2 --quiet >"$LOG/ncu-promo-$P.log" 2>&1
    for r in 1 2; do
        "$B/compare" --interleave --ops sgemm --n 4096,8192 --variants cublas_tf32,tf32_tma \
            --csv "$LOG/promo-$P-run$r.csv" >"$LOG/promo-$P-run$r.txt" 2>&1
    done
done
summ() { grep -E "^    [a-z_]+__" "$1" | awk '{print $1, $NF}' | awk '{a[$1]=a[$1]" "$2} END {for (k in a) print k, a[k]}' | sort; }
for f in "$LOG"/ncu-*.log; do echo "## $(basename "$f" .log)"; summ "$f"; done
for f in "$LOG"/promo-*.txt; do echo "## $(basename "$f" .txt)"; grep -E "^tf32_tma|^cublas_tf32|^sgemm" "$f"; done
