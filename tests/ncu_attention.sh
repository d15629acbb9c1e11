#!/usr/bin/env bash
# tests/ncu_attention.sh: why fa2 and fa3 trail cuDNN SDPA, in Nsight Compute
# metrics (not a ctest test: it needs ncu and a GPU). docs/tuning/attention.md
# says what each column answers.
#
#   tests/ncu_attention.sh LOGDIR [AXIS=VALUE ...]
#
# With no axes: two shapes, batch=2 heads=32 seq_q=seq_kv=8192 causal=0 bf16 at
# head_dim 128 and at head_dim 64 (16K tokens, the FlashAttention benchmarks'
# setting). With axes (batch, heads, seq_q, seq_kv, head_dim, causal, type):
# that one shape, the others at those defaults. VARIANTS (default
# cudnn_sdpa,fa2,fa3) picks the rows.
#
# Per shape and variant: one `compare --ops attention --variants V --profile`
# (verified, then launched once inside the NVTX range "attention V <type>
# <axes>", no flush of its own) under ncu filtered to that range, with ncu's
# cache control (caches flushed before each profiled kernel) and
# --clock-control none (clocks as found: never set). Metrics ncu does not
# know on this GPU / version are dropped with a note, not a failure. Prints
# one markdown table (LOGDIR/ncu_attention.md): per variant and shape the
# kernel, its time, its grid and block (cuDNN's tiles and persistence), the
# least and most busy SM's active cycles as % of the elapsed (a grid's idle
# last round shows as a low minimum), the tensor pipe (wgmma for Hopper
# kernels, mma.sync otherwise), the MUFU (xu) pipe, issue slots, achieved occupancy, registers,
# DRAM bytes, L2 hit rate and the top 4 stall reasons (warps stalled per
# issue). About 20 s a run, 6 runs by default: 2-3 minutes on an H200.
# Needs an existing build in ${BUILD:-build-gpu}; ncu from PATH or $NCU.
set -u
LOG=${1:?usage: tests/ncu_attention.sh LOGDIR [AXIS=VALUE ...]}
shift
mkdir -p "$LOG" || exit 2
cd "$(dirname "$0")/.." || exit 2
BUILD=${BUILD:-build-gpu}
NCU=${NCU:-$(command -v ncu || echo /usr/local/cuda/bin/ncu)}
VARIANTS=${VARIANTS:-cudnn_sdpa,fa2,fa3}
if [ ! -x "$NCU" ]; then
    echo "ncu_attention: Nsight Compute (ncu) not found (PATH, /usr/local/cuda/bin, or set NCU=...)" >&2
    exit 2
fi
if [ ! -x "$BUILD/compare" ]; then
    echo "ncu_attention: no $BUILD/compare (build first, e.g. tests/gpu_check.sh PHASES=build, or set BUILD=...)" >&2
    exit 2
fi

# the shapes: each a full set of the op's axes, in the op's order (the NVTX name's order)
order=(batch heads seq_q seq_kv head_dim causal)
declare -A def=([batch]=2 [heads]=32 [seq_q]=8192 [seq_kv]=8192 [head_dim]=128 [causal]=0 [type]=bf16)
shapes=()
if [ $# -gt 0 ]; then
    declare -A one
    for k in "${!def[@]}"; do one[$k]=${def[$k]}; done
    for kv in "$@"; do
        k=${kv%%=*}
        if [ -z "${def[$k]+x}" ] || [ "$k" = "$kv" ]; then
            echo "ncu_attention: bad axis '$kv' (batch, heads, seq_q, seq_kv, head_dim, causal, type as NAME=VALUE)" >&2
            exit 2
        fi
        one[$k]=${kv#*=}
    done
    s=""
    for k in "${order[@]}" type; do s="$s $k=${one[$k]}"; done
    shapes+=("${s# }")
else
    shapes+=("batch=2 heads=32 seq_q=8192 seq_kv=8192 head_dim=128 causal=0 type=bf16"
             "batch=2 heads=32 seq_q=8192 seq_kv=8192 head_dim=64 causal=0 type=bf16")
fi

# the metrics; those this ncu does not list for the GPU are left out
want=(gpu__time_duration.sum
      sm__cycles_elapsed.avg.per_second
      sm__cycles_elapsed.max
      sm__cycles_active.min
      sm__cycles_active.max
      launch__grid_size
      launch__block_size
      launch__registers_per_thread
      sm__warps_active.avg.pct_of_peak_sustained_active
      sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_active
      sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active
      sm__inst_executed_pipe_xu.avg.pct_of_peak_sustained_active
      smsp__issue_active.avg.pct_of_peak_sustained_active
      smsp__inst_executed.sum
      dram__bytes_read.sum
      dram__bytes_write.sum
      lts__t_sector_hit_rate.pct)
for r in barrier long_scoreboard wait math_pipe_throttle mio_throttle membar short_scoreboard dispatch_stall \
         no_instruction lg_throttle branch_resolving sleeping selected not_selected; do
    want+=("smsp__average_warps_issue_stalled_${r}_per_issue_active.ratio")
done
known=$(timeout 60 "$NCU" --query-metrics 2>/dev/null | awk '{print $1}')
metrics=""
for m in "${want[@]}"; do
    base=${m%%.*}
    case $base in
    gpu__* | launch__*) metrics="$metrics,$m" ;; # always there (not all versions list them)
    *)
        if [ -z "$known" ] || printf '%s\n' "$known" | grep -qx -- "$base"; then
            metrics="$metrics,$m"
        else
            echo "ncu_attention: this ncu has no $base: left out" >&2
        fi ;;
    esac
done
metrics=${metrics#,}

# one ncu run per (shape, variant): the variant alone in its compare run, its one
# --profile launch selected by its NVTX range
n=0
rm -f "$LOG"/ncu_*.csv "$LOG"/ncu_*.err "$LOG"/ncu_*.case
for shape in "${shapes[@]}"; do
    n=$((n + 1))
    axes=() extra="" type=bf16
    for kv in $shape; do
        axes+=(--axis "$kv")
        case $kv in type=*) type=${kv#type=} ;; *) extra="$extra $kv" ;; esac
    done
    extra=${extra# }
    extra=${extra:0:63} # src/core/plan.c keeps 63 characters of the axes in the NVTX name
    for v in ${VARIANTS//,/ }; do
        echo "ncu_attention: $v at $shape" >&2
        timeout 100 "$NCU" --clock-control none --cache-control all --nvtx \
            --nvtx-include "attention $v $type $extra/" --metrics "$metrics" --print-units base --csv \
            "$BUILD/compare" --ops attention "${axes[@]}" --variants "$v" --profile --quiet \
            >"$LOG/ncu_${n}_$v.csv" 2>"$LOG/ncu_${n}_$v.err"
        printf '%s\n%s\n' "$shape" "$v" >"$LOG/ncu_${n}_$v.case"
    done
done

python3 - "$LOG" <<'PY' | tee "$LOG/ncu_attention.md"
import csv, glob, os, sys
log = sys.argv[1]
def short(name):
    return name if len(name) <= 48 else name[:45] + "..."
rows = []
for path in sorted(glob.glob(os.path.join(log, "ncu_*_*.csv"))):
    shape, var = open(path[:-4] + ".case").read().split("\n")[:2]
    lines = [l for l in open(path) if l.startswith('"')]  # ncu's CSV records
    kernels = {}  # ID -> [kernel name, {metric: value}]
    for rec in csv.DictReader(lines):
        if rec.get("ID") is None or rec.get("Metric Name") is None:
            continue
        k = kernels.setdefault(rec["ID"], [rec.get("Kernel Name", ""), {}])
        try:
            k[1][rec["Metric Name"]] = float(rec["Metric Value"].replace(",", ""))
        except (TypeError, ValueError):
            pass
    if not kernels:
        rows.append((shape, var, "(nothing profiled: see %s)" % os.path.basename(path[:-4] + ".err"), {}))
    for kid, (kname, m) in sorted(kernels.items(), key=lambda x: int(x[0])):
        rows.append((shape, var, kname, m))
if not rows:
    print("ncu_attention: no kernel profiled (see the .err files in %s)" % log)
    sys.exit(1)
def g(m, name, scale=1.0, fmt="%.1f"):
    v = m.get(name)
    return fmt % (v * scale) if v is not None else "-"
def busy(m, name):  # an SM's active cycles (the least or most busy) as % of the kernel's elapsed cycles
    v, e = m.get(name), m.get("sm__cycles_elapsed.max")
    return "%.1f" % (100.0 * v / e) if v is not None and e else "-"
print("| shape | variant | kernel | time us | SM MHz | grid x block | SM busy min / max % | tensor % (gmma / hmma) "
      "| xu % | issue % | occupancy % | regs | DRAM rd+wr MB | L2 hit % | top stalls (warps per issue) |")
print("|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|")
for shape, var, kname, m in rows:
    stalls = sorted(((v, k.split("stalled_")[1].split("_per_issue")[0]) for k, v in m.items()
                     if "issue_stalled_" in k and "selected" not in k), reverse=True)[:4]
    dram = sum(m.get(k, 0.0) for k in ("dram__bytes_read.sum", "dram__bytes_write.sum")) / 1e6
    print("| %s | %s | %s | %s | %s | %s x %s | %s / %s | %s / %s | %s | %s | %s | %s | %.0f | %s | %s |" % (
        shape.replace("seq_q=", "sq=").replace("seq_kv=", "skv=").replace("head_dim=", "d="), var, short(kname),
        g(m, "gpu__time_duration.sum", 1e-3), g(m, "sm__cycles_elapsed.avg.per_second", 1e-6, "%.0f"),
        g(m, "launch__grid_size", 1.0, "%.0f"), g(m, "launch__block_size", 1.0, "%.0f"),
        busy(m, "sm__cycles_active.min"), busy(m, "sm__cycles_active.max"),
        g(m, "sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_active"),
        g(m, "sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active"),
        g(m, "sm__inst_executed_pipe_xu.avg.pct_of_peak_sustained_active"),
        g(m, "smsp__issue_active.avg.pct_of_peak_sustained_active"),
        g(m, "sm__warps_active.avg.pct_of_peak_sustained_active"),
        g(m, "launch__registers_per_thread", 1.0, "%.0f"), dram, g(m, "lts__t_sector_hit_rate.pct"),
        ", ".join("%s %.2f" % (n, v) for v, n in stalls) or "-"))
PY
