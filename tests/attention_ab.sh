#!/usr/bin/env bash
# tests/attention_ab.sh: the A/B of the attention rungs' tuning switches on a GPU
# (docs/tuning/attention.md), in one go (not a ctest test).
#
#   tests/attention_ab.sh LOGDIR
#
# The combinations of switches: COMBOS, "name|DEFS" words, DEFS as for
# -DCOMPARE_ATTENTION_DEFS (';'-separated; empty: the defaults). Since the
# defaults have the seven switches below on, each default combination but the
# last names all seven: base (every one 0, fa2's warps of 16 rows: the
# schedule before the A/B's winners became the defaults), soft (base +
# FA3_SOFTMAX, FA2_LDSM_OFFSETS, FA2_SOFTMAX), soft_qk2 (soft +
# FA3_QK_EARLY=2), rows32 (soft_qk2 + fa2's warps of 32 rows,
# FA2_WARP_ROWS=32, FA2_LAZY_RESCALE=0), all (rows32 + FA3_LAZY_RESCALE,
# ATTN_HEAD_MAJOR and FA2_LAZY_RESCALE: the defaults, no defines). For
# each: reconfigure ${BUILD:-build-gpu} with
# -DCOMPARE_ATTENTION_DEFS=DEFS (only the attention files recompile),
# rebuild compare and the attention GPU tests, run test_gpu_attention_fa
# (every rung against an FP64 reference at edge shapes), then time
# cudnn_sdpa, fa2 and fa3 (bf16, batch 2, 32 heads, seq 8192, head_dim 128
# and 64, causal 0 and 1, --max-time 0.1: interleaved, L2 flushed) into
# LOGDIR/ab_NAME.csv. Then test_gpu_attention (the compare path, planted
# faults) once under the last combination, tests/ncu_attention.sh under it
# (NCU=0 skips), the build put back to the defaults (no defines), and a
# table of % of cudnn_sdpa per combination (LOGDIR/ab.md). A build that
# fails or a test that fails stops that combination (its rows missing) and
# the exit status is 1. About 8-10 minutes on an H200 with the default
# combinations.
set -u
LOG=${1:?usage: tests/attention_ab.sh LOGDIR}
mkdir -p "$LOG" || exit 2
cd "$(dirname "$0")/.." || exit 2
BUILD=${BUILD:-build-gpu}
JOBS=${JOBS:-$(nproc)}
sw() { # FA3_SOFTMAX FA3_QK_EARLY FA3_LAZY_RESCALE FA2_LDSM_OFFSETS FA2_SOFTMAX ATTN_HEAD_MAJOR FA2_WARP_ROWS -> DEFS
    printf 'FA3_SOFTMAX=%s;FA3_QK_EARLY=%s;FA3_LAZY_RESCALE=%s;FA2_LDSM_OFFSETS=%s;FA2_SOFTMAX=%s;ATTN_HEAD_MAJOR=%s;FA2_WARP_ROWS=%s' "$@"
}
# (FA2_SOFTMAX=1 needs FA2_LDSM_OFFSETS=1: attention_fa2.cu's #error)
COMBOS=${COMBOS:-"base|$(sw 0 0 0 0 0 0 16) soft|$(sw 1 0 0 1 1 0 16) soft_qk2|$(sw 1 2 0 1 1 0 16) rows32|$(sw 1 2 0 1 1 0 32);FA2_LAZY_RESCALE=0 all|"}
SHAPE=(--axis batch=2 --axis heads=32 --axis seq_q=8192 --axis seq_kv=8192 --axis "head_dim=128,64"
       --axis "causal=0,1" --axis type=bf16)
fail=0
t0=$(date +%s)
say() { echo "[$(($(date +%s) - t0)) s] $*" | tee -a "$LOG/ab.log" >&2; }

if [ ! -x "$BUILD/compare" ]; then
    say "configure and build $BUILD (first time: every kernel)"
    if ! { cmake -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DCOMPARE_PLOT_VENV=OFF >>"$LOG/ab.log" 2>&1 &&
        cmake --build "$BUILD" -j "$JOBS" >>"$LOG/ab.log" 2>&1; }; then
        say "build failed (see ab.log)"
        exit 1
    fi
fi

rebuild() { # DEFS -> 0 when compare and the attention tests are built with them
    cmake -S . -B "$BUILD" "-DCOMPARE_ATTENTION_DEFS=$1" >>"$LOG/ab.log" 2>&1 &&
        cmake --build "$BUILD" -j "$JOBS" --target compare test_gpu_attention test_gpu_attention_fa \
            >>"$LOG/ab.log" 2>&1
}

last=""
for combo in $COMBOS; do
    name=${combo%%|*} defs=${combo#*|}
    say "$name: rebuild with COMPARE_ATTENTION_DEFS='$defs'"
    if ! rebuild "$defs"; then
        say "$name: build FAILED (see ab.log)"
        fail=1
        continue
    fi
    if ! COMPARE_REQUIRE_GPU=1 ctest --test-dir "$BUILD" -R '^test_gpu_attention_fa$' --output-on-failure >"$LOG/test_fa_$name.txt" 2>&1; then
        say "$name: test_gpu_attention_fa FAILED ($LOG/test_fa_$name.txt)"
        fail=1
        continue
    fi
    say "$name: test_gpu_attention_fa passed; timing"
    "$BUILD/compare" --ops attention --variants cudnn_sdpa,fa2,fa3 "${SHAPE[@]}" --max-time 0.1 \
        --csv "$LOG/ab_$name.csv" >"$LOG/ab_$name.txt" 2>&1 || fail=1
    last=$combo
done

if [ -n "$last" ]; then
    say "${last%%|*}: test_gpu_attention (every row, planted faults)"
    COMPARE_REQUIRE_GPU=1 ctest --test-dir "$BUILD" -R '^test_gpu_attention$' --output-on-failure >"$LOG/test_attention.txt" 2>&1 ||
        { say "test_gpu_attention FAILED"; fail=1; }
    if [ "${NCU:-}" != 0 ]; then
        say "${last%%|*}: tests/ncu_attention.sh"
        BUILD=$BUILD tests/ncu_attention.sh "$LOG/ncu" >"$LOG/ncu.txt" 2>&1 || say "ncu_attention.sh failed (see $LOG/ncu)"
    fi
fi
say "build back to the defaults (no defines)"
rebuild "" || fail=1

# shellcheck disable=SC2086 # one argument per combination
python3 - "$LOG" $COMBOS <<'PY' | tee "$LOG/ab.md"
import csv, os, sys
log, combos = sys.argv[1], [c.split("|")[0] for c in sys.argv[2:]]
cells, shapes = {}, []
for name in combos:
    path = os.path.join(log, "ab_%s.csv" % name)
    if not os.path.exists(path):
        continue
    for r in csv.DictReader(open(path)):
        if r["op"] != "attention":
            continue
        key = r["shape"].replace("batch=2,heads=32,seq_q=8192,seq_kv=8192,", "")
        if key not in shapes:
            shapes.append(key)
        if r["variant"] == "cudnn_sdpa":
            cells[(name, key, "cudnn TFLOP/s")] = r["tflops"] if r["status"] == "ok" else r["status"]
        elif r["variant"] in ("fa2", "fa3"):
            cells[(name, key, r["variant"])] = (r["pct_of_best_library"] or r["pct_of_ref_library"]
                                                if r["status"] == "ok" else r["status"])
cols = ["cudnn TFLOP/s", "fa2", "fa3"]
print("bf16, batch 2, 32 heads, seq 8192: fa2 and fa3 as % of the best library row (cudnn_sdpa)\n")
print("| combination | " + " | ".join("%s %s" % (s, c) for s in shapes for c in cols) + " |")
print("|---|" + "---:|" * (len(shapes) * len(cols)))
for name in combos:
    row = []
    for s in shapes:
        for c in cols:
            v = cells.get((name, s, c), "-")
            try:
                v = "%.1f" % float(v)
            except ValueError:
                pass
            row.append(v)
    print("| %s | %s |" % (name, " | ".join(row)))
PY
say "done (exit $fail)"
exit $fail
