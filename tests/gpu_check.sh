#!/usr/bin/env bash
# tests/gpu_check.sh: the whole GPU check in one go, on a machine with a GPU.
#
#   tests/gpu_check.sh LOGDIR [BENCH_ARGS...]
#
# Phases (PHASES, default "build tests sanitize bench"; add "search" first to
# retune, "sweep" and "soak" for the reference runs):
#   build     configure (Release, the GPU present's architecture) and build in build-gpu/
#   search    compare --candidates ${SEARCH_FAMILIES:-tuned,tf32_mma} at 2048/4096/8192 (every
#             candidate of those families beside the library rows, same harness as every
#             run: interleaved, clocks, L2 flush; search.csv, log search.txt), then rebuild
#             with the winners' names passed as -DCOMPARE_KERNEL_DEFS (FP32 `tuned`'s
#             large pick = best at 4096; `tf32_mma` = best at 4096 up to 4096^2
#             outputs, best at 8192 beyond)
#   tests     every test (cpu and gpu labels) with ctest
#   sanitize  compute-sanitizer memcheck, racecheck, initcheck and synccheck over the gpu
#             tests (memcheck at full sizes unless MEMCHECK_QUICK=1, the slower tools on
#             COMPARE_TEST_QUICK sizes), plus memcheck/racecheck over every search
#             candidate (compare --candidates) at awkward n (SANITIZE_SETS, default "tests shapes search";
#             "conv": the four tools over tests/test_gpu_conv's quick shapes, 1001 x 777 r = 5 among them
#             (cuDNN's rows under memcheck only);
#             "search-tma": only the wgmma/TMA candidates; "kst": memcheck and racecheck of the
#             split-tail TMA candidate (KST_CANDIDATE) on shapes whose tail it cuts; "compare-tma": memcheck and racecheck
#             of `compare --variants tf32_tma` at n = 1 .. 100 and thin shapes; "awkward": memcheck and
#             racecheck of the tuned _edge candidates and tf32_tma_lean_staging (AWKWARD_EDGE) at small shapes of each
#             class of shapes/awkward.txt; "compare-gate": every
#             tool over `compare` at n = 256, sequential and --interleave (the timing gate);
#             SANITIZE_TOOLS narrows the four
#             tools of the test sets; SANITIZE_TIMEOUT, default 400 s, bounds each shapes run)
#   stress    tests/stress_gpu.c: the kernels whose blocks talk to each other (every hand
#             sort, reduce and scan of the catalog, stream-K tuned, stream-K tf32_tma;
#             STRESS_FAMILIES narrows them) ${STRESS_REPS:-500}
#             times, first alone, then while a second process (compare --soak) loads the
#             GPU; plus the pageable-copy race probe; log stress.txt (results/h200/tuning/sort_stress.txt)
#   sanitize-full  racecheck and synccheck at full sizes: test_gpu_kernels (1M-key sorts,
#             2^22-element reductions) and stress_gpu --reps 2 (every stressed kernel)
#   fleet     compare-mpi built (-DCOMPARE_MPI=ON) and run with 2 ranks on the GPU
#             (fleet_np2.csv and its summary), then with rank 1 planted on a missing device
#             (fleet_bad_rank.csv: its ERROR rows, exit 1 expected)
#   ncu       one variant's kernels selected by its NVTX range with Nsight Compute
#             (ncu --nvtx --nvtx-include "sgemm tuned 2048x2048x2048/", --profile); then
#             the TF32 kernels at 8192 (NCU_L2_N, NCU_L2_VARIANTS): device time, SM clock,
#             DRAM bytes and L2 hit rate (or NCU_L2_METRICS), caches flushed (ncu-l2.log)
#   ab        compare --candidates AB_FAMILY (default tf32_tma) --variants AB_CANDIDATES: named
#             candidates side by side ("A,B", each once: the interleaved rounds alternate them,
#             so clock drift slows them alike; AB_N, default 2048,4096,8192; AB_SHAPES), log
#             ab.txt, CSV ab.csv; then each of AB_NCU (comma-separated names) alone under Nsight Compute at
#             AB_NCU_N (default 8192) and AB_NCU_SHAPE: device time, SM clock, DRAM bytes and
#             L2 hit rate (or NCU_L2_METRICS) of its first AB_NCU_COUNT (default 8) launches, caches flushed
#             (ncu-ab-NAME.log)
#   bench     compare BENCH_ARGS, or the reference runs behind results/h200/ (BENCH_SETS,
#             default "n2048 sgemm reduce-sort labs shapes plugin"; also "conv": shapes/conv.txt,
#             one run per line, joined into conv.csv; "sgemm-repeat": the
#             sgemm run twice more, "sgemm-interleave": three runs of the libraries, tuned and
#             tf32_tma with --interleave, then the LLM shapes and the small sizes so, "sgemm-small": 256 .. 1537, 3001, 4097,
#             "attention": every line of shapes/attention.txt (attention.csv; ATTENTION_LINES picks lines), "thin": m = 1 .. 64,
#             every TMA candidate, compare --candidates tf32_tma (search_tma_thin.csv), and the tool
#             (thin.csv)): compare --n 2048; sgemm at
#             2048/4096/8192; reduce and sort at 2^20..2^28 with and without the L2 flush;
#             transpose/histogram/scan/transfer (labs.csv); every SGEMM variant on
#             shapes/llm.txt and odd shapes (shapes_llm.csv); the example plugin built
#             from the installed package beside tuned (plugin_example.csv) and, its
#             second op, beside vec4 (plugin_example_reduce.csv); "awkward" (issue 41, not in
#             the default): shapes/awkward.txt with the libraries, tuned, tf32_mma, tf32_wgmma and
#             tf32_tma (shapes_awkward.csv), every tuned candidate (the picks' shapes with and
#             without _edge, narrow-n rows; AWKWARD_TUNED narrows them; search_awkward_tuned.csv), tf32_tma beside
#             its candidate tf32_tma_lean_staging (search_awkward_tma.csv), and
#             tests/ncu_awkward.sh (ncu_awkward/ncu_awkward.md)
#   sweep     compare --n 256:8192 --elems 2^16:2^28 --max-time 1 (the plots' CSV)
#   soak      compare --soak ${SOAK_S:-300} (the default comparison, repeated)
# Logs and CSVs go to LOGDIR; the last lines printed are a summary. Exit status
# is non-zero if any step failed. On a copy of the tree without .git (or with a stale one), set
# COMPARE_GIT_COMMIT so the CSV rows name the commit they measured.
set -u
LOG=${1:?usage: tests/gpu_check.sh LOGDIR [BENCH_ARGS...]}
shift
mkdir -p "$LOG"
LOG=$(cd "$LOG" && pwd)
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build-gpu}
PHASES=" ${PHASES:-build tests sanitize bench} "
JOBS=$(nproc 2>/dev/null || echo 4)
CS=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
summary=()
fail=0

# Each step runs in its own session (setsid), waited for in the background, so
# that when this script is stopped (TERM or INT: an outer timeout, ^C) the
# trap can stop the step and everything it started: nested `timeout`s and
# compute-sanitizer's target put themselves in process groups of their own,
# which a signal to this script's group does not reach (one such leftover
# kept loading the GPU during a later measurement).
STEP_PID=
stop_step() {
    if [ -n "$STEP_PID" ]; then
        pkill -TERM -s "$STEP_PID" 2>/dev/null || kill -TERM -- "-$STEP_PID" 2>/dev/null
        sleep 2
        pkill -KILL -s "$STEP_PID" 2>/dev/null
    fi
    echo "== stopped by a signal during a step; its session killed" >&2
    exit 143
}
trap stop_step TERM INT
step() { # name, then the command; output to LOG/name.log
    local name=$1
    shift
    local t0=$SECONDS
    echo "== $name: $*" >&2
    setsid "$@" >"$LOG/$name.log" 2>&1 </dev/null &
    STEP_PID=$!
    wait "$STEP_PID"
    local rc=$?
    STEP_PID=
    summary+=("$(printf '%-28s rc=%-3s %4ss' "$name" "$rc" $((SECONDS - t0)))")
    [ $rc -eq 0 ] || fail=1
    tail -n 4 "$LOG/$name.log" >&2
    return $rc
}
finish() {
    echo "== summary (logs in $LOG)"
    printf '%s\n' "${summary[@]}"
    exit $fail
}
has() { [[ $PHASES == *" $1 "* ]]; }
# bench_axis_lines NAME OP FILE LINES [COMPARE_ARGS...]: one `compare --ops OP` run per line of
# FILE (comments and blank lines dropped; each word of a line is an --axis word), into
# LOG/NAME_<line>.csv, then those CSVs joined in line order into LOG/NAME.csv (header once);
# LINES picks lines by number (empty: all)
bench_axis_lines() {
    local name=$1 op=$2 file=$3 lines=$4 idx line
    shift 4
    grep -v '^ *#' "$file" | sed 's/#.*//' | awk 'NF' >"$LOG/${name}_lines.txt"
    rm -f "$LOG/$name.csv"
    for idx in ${lines:-$(seq 1 "$(wc -l <"$LOG/${name}_lines.txt")")}; do
        line=$(sed -n "${idx}p" "$LOG/${name}_lines.txt")
        [ -n "$line" ] || continue
        # shellcheck disable=SC2046,SC2086 # the line's words become --axis words
        step "bench-$name-$idx" "$BUILD/compare" --ops "$op" "$@" $(printf -- '--axis %s ' $line) \
            --csv "$LOG/${name}_$idx.csv"
        if [ -s "$LOG/${name}_$idx.csv" ]; then
            if [ -s "$LOG/$name.csv" ]; then tail -n +2 "$LOG/${name}_$idx.csv"; else cat "$LOG/${name}_$idx.csv"; fi >>"$LOG/$name.csv"
        fi
    done
}

nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,temperature.gpu,power.draw \
    --format=csv >"$LOG/gpu.txt" 2>&1

gen=()
command -v ninja >/dev/null && gen=(-G Ninja)
if has build; then
    # no network on the GPU machine: draw plots with its python if it can, make no venv
    step configure cmake -S . -B "$BUILD" "${gen[@]}" -DCMAKE_BUILD_TYPE=Release -DCOMPARE_PLOT_VENV=OFF || finish
    step build cmake --build "$BUILD" -j "$JOBS" || finish
fi

if has search; then
    step search "$BUILD/compare" --candidates "${SEARCH_FAMILIES:-tuned,tf32_mma}" --n 2048,4096,8192 \
        --csv "$LOG/search.csv"
    cp "$LOG/search.log" "$LOG/search.txt"
    best() { # family size -> NAME of the fastest verified candidate (search.csv's columns by name;
        # the fields up to `source` hold no comma in a candidate's row)
        awk -F, -v src="candidates:$1" -v n="$2" 'NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
            $col["source"] == src && $col["m"] == n && $col["n"] == n && $col["k"] == n &&
            $col["status"] == "ok" && (best == "" || $col["time_ms_median"] + 0 < t) {
                best = $col["variant"]; t = $col["time_ms_median"] + 0 }
            END { print best }' "$LOG/search.csv"
    }
    f32=$(best tuned 4096) t_small=$(best tf32_mma 4096) t_large=$(best tf32_mma 8192)
    if [ -n "$f32" ] && [ -n "$t_small" ] && [ -n "$t_large" ]; then
        defs="SGEMM_TUNED_LARGE=$f32;SGEMM_TF32_SMALL=$t_small;SGEMM_TF32_DEFAULT=$t_large"
        echo "tuned: $defs" | tee -a "$LOG/search.txt" >&2
        step retune cmake -S . -B "$BUILD" "-DCOMPARE_KERNEL_DEFS=$defs" &&
            step rebuild cmake --build "$BUILD" -j "$JOBS"
    else
        echo "search: no winner in $LOG/search.csv; keeping the compiled picks" >&2
        fail=1
    fi
fi

if has tests; then
    step ctest env COMPARE_REQUIRE_GPU=1 ctest --test-dir "$BUILD" --output-on-failure --timeout 900
fi

if has sanitize; then
    ssets=" ${SANITIZE_SETS:-tests shapes search} "
    for tool in ${SANITIZE_TOOLS:-memcheck racecheck initcheck synccheck}; do
        [[ $ssets == *" tests "* ]] || break
        quick=1
        [ "$tool" = memcheck ] && quick=${MEMCHECK_QUICK:-0}
        step "sanitizer-$tool" env COMPARE_TEST_QUICK=$quick timeout 400 "$CS" --tool "$tool" \
            --error-exitcode 1 "$BUILD/tests/test_gpu_variants"
        step "sanitizer-$tool-kernels" env COMPARE_TEST_QUICK=1 COMPARE_TEST_NO_ALLOC_PROBE=1 timeout 400 "$CS" --tool "$tool" \
            --error-exitcode 1 "$BUILD/tests/test_gpu_kernels"
        step "sanitizer-$tool-labs" env COMPARE_TEST_QUICK=1 timeout 300 "$CS" --tool "$tool" \
            --error-exitcode 1 "$BUILD/tests/test_gpu_labs"
    done
    # every launcher and search candidate on rectangular shapes (the TMA and
    # wgmma kernels' mbarrier rings, swizzled tiles and edges), all four tools
    for tool in ${SANITIZE_TOOLS:-memcheck racecheck initcheck synccheck}; do
        [[ $ssets == *" shapes "* ]] || break
        step "sanitizer-$tool-shapes" env COMPARE_TEST_QUICK=1 timeout "${SANITIZE_TIMEOUT:-400}" "$CS" --tool "$tool" \
            --error-exitcode 1 "$BUILD/tests/test_gpu_gemm_shapes"
    done
    # conv2d: every row at test_gpu_conv's quick shapes: 1001 x 777 r = 5, r = 15, 5 x 3 under
    # 7 x 7, multi-channel (the implicit GEMM), the planted row. cuDNN's rows only under
    # memcheck (our calls, its workspace): cuDNN's Find runs every algorithm on buffers of its
    # own, which initcheck/racecheck would judge in cuDNN's kernels, not ours; for those tools
    # the rows SKIP (COMPARE_CUDNN_LIB at a missing file)
    for tool in ${SANITIZE_TOOLS:-memcheck racecheck initcheck synccheck}; do
        [[ $ssets == *" conv "* ]] || break
        nocudnn=()
        [ "$tool" = memcheck ] || nocudnn=(COMPARE_CUDNN_LIB=/nonexistent/libcudnn.so.9)
        step "sanitizer-$tool-conv" env COMPARE_TEST_QUICK=1 ${nocudnn[@]+"${nocudnn[@]}"} \
            timeout "${SANITIZE_TIMEOUT:-400}" "$CS" --tool "$tool" --error-exitcode 1 "$BUILD/tests/test_gpu_conv"
    done
    # every candidate: a checked run, a warm-up and two samples each (repeated launches
    # reuse split-k counters and workspaces); the library rows run beside them
    cand_quick=(--warmup 1 --reps 2 --max-reps 2 --quiet)
    [[ $ssets == *" search "* ]] &&
    step sanitizer-memcheck-search timeout 300 "$CS" --tool memcheck --error-exitcode 1 \
        "$BUILD/compare" --candidates tuned,tf32_mma --n 257 "${cand_quick[@]}"
    [[ $ssets == *" search "* ]] &&
    step sanitizer-racecheck-search timeout 300 "$CS" --tool racecheck --error-exitcode 1 \
        "$BUILD/compare" --candidates tuned,tf32_mma --n 129 "${cand_quick[@]}"
    # n = 260: a multiple of 4 (the wgmma/TMA candidates run, not decline), not of a tile
    [[ $ssets == *" search "* || $ssets == *" search-tma "* ]] &&
    step sanitizer-memcheck-search-tma timeout 300 "$CS" --tool memcheck --error-exitcode 1 \
        "$BUILD/compare" --candidates tf32_wgmma,tf32_tma --n 260 "${cand_quick[@]}"
    [[ $ssets == *" search "* || $ssets == *" search-tma "* ]] &&
    step sanitizer-racecheck-search-tma timeout 300 "$CS" --tool racecheck --error-exitcode 1 \
        "$BUILD/compare" --candidates tf32_wgmma,tf32_tma --n 260 "${cand_quick[@]}"
    # the split-tail candidate where its tail is cut (on 66 resident 2-CTA clusters:
    # 15 tail units in 4 pieces, partial tiles in m, n and k, an odd last pair; 6 units in 4)
    # and its pick in the tool (tf32_tma's LARGE) at the same shapes
    for tool in ${SANITIZE_TOOLS:-memcheck racecheck initcheck synccheck}; do
        [[ $ssets == *" search "* || $ssets == *" search-tma "* || $ssets == *" kst "* ]] || break
        [ "$tool" = memcheck ] || [ "$tool" = racecheck ] || continue
        step "sanitizer-$tool-search-kst" timeout 300 "$CS" --tool "$tool" --error-exitcode 1 \
            "$BUILD/compare" --candidates tf32_tma --variants "${KST_CANDIDATE:-tf32_tma_m256n128k32_s4_pf_kst_pers_c2}" \
            --shape 2300x2052x1000,2304x2048x512 "${cand_quick[@]}"
        step "sanitizer-$tool-compare-kst" timeout 300 "$CS" --tool "$tool" --error-exitcode 1 \
            "$BUILD/compare" --ops sgemm --variants tf32_tma --shape 2300x2052x1000,2304x2048x512 \
            --cpu-max-n 0 --warmup 1 --reps 2 --max-reps 2
    done
    # the tool's own tf32_tma path (its pick rule, staging, every pick it can make at
    # these sizes: thin 16/32/64 rows at n = 1 .. 33, NARROW at 100, thin and staged shapes);
    # four launches a variant (check, one warm-up, two samples: repeated launches still
    # reuse the staging buffers and split-k counters), since under racecheck cuBLAS's rows
    # at the default sampling took over 300 s before the thin shapes (3137414)
    for tool in ${SANITIZE_TOOLS:-memcheck racecheck initcheck synccheck}; do
        [[ $ssets == *" compare-tma "* ]] || break
        [ "$tool" = memcheck ] || [ "$tool" = racecheck ] || continue
        step "sanitizer-$tool-compare-tma" timeout 300 "$CS" --tool "$tool" --error-exitcode 1 \
            "$BUILD/compare" --ops sgemm --variants tf32_tma --n 1,2,17,31,33,100 \
            --shape 16x14336x4096,48x1000x260,61x4100x1029 --cpu-max-n 0 --warmup 1 --reps 2 --max-reps 2
    done
    # issue 41: the tuned _edge candidates (16-byte kernel at an odd k, lane kernel at an odd
    # n, split stream-K tiles reduced by 4-byte atomics at 20 x 131 x 129; shapes kept small:
    # racecheck runs the FP32 kernels' shared-memory traffic slowly) and the TMA
    # staging candidate (A alone staged at an odd k, B read in place past k) through compare
    for tool in ${SANITIZE_TOOLS:-memcheck racecheck initcheck synccheck}; do
        [[ $ssets == *" awkward "* ]] || break
        [ "$tool" = memcheck ] || [ "$tool" = racecheck ] || continue
        step "sanitizer-$tool-awkward" timeout 400 "$CS" --tool "$tool" --error-exitcode 1 \
            "$BUILD/compare" --candidates tuned,tf32_tma --variants "${AWKWARD_EDGE:-128x256x8_w64x64_t8x16_s4_g8_sp2_b4_sk_edge,\
128x256x8_w64x64_t8x16_s4_g8_sp2_b4_st_edge,32x128x8_w16x64_t4x8_s6_g8_sp2_b7_sk_edge,\
16x128x8_w16x64_t4x8_s4_g8_sp2_b7_sl4_edge,16x128x8_w16x64_t4x8_s4_g8_sp2_b7_sl2_edge,tf32_tma_lean_staging}" \
            --shape 20x132x37,20x131x129,33x5x20,7x260x97,131x133x67 "${cand_quick[@]}"
    done
    # the timing gate (src/gpu/gate_kernel.cu: a kernel polling mapped host memory) and the
    # harness around it, sequential and interleaved; the CSV's timing column says whether the
    # rows stayed gated under the tool (gate-*.csv)
    for tool in ${SANITIZE_TOOLS:-memcheck racecheck initcheck synccheck}; do
        [[ $ssets == *" compare-gate "* ]] || break
        step "sanitizer-$tool-compare-gate" timeout 300 "$CS" --tool "$tool" --error-exitcode 1 \
            "$BUILD/compare" --ops sgemm,reduce --n 256 --elems 2^16 --reps 3 --max-reps 3 \
            --variants cublas_tf32,tuned,tf32_tma,cub,vec4,thrust --csv "$LOG/gate-$tool.csv"
        step "sanitizer-$tool-compare-gate-interleave" timeout 300 "$CS" --tool "$tool" --error-exitcode 1 \
            "$BUILD/compare" --interleave --ops sgemm,reduce --n 256 --elems 2^16 --reps 3 --max-reps 3 \
            --variants cublas_tf32,tuned,tf32_tma,cub,vec4,thrust --csv "$LOG/gate-$tool-interleave.csv"
    done
    # one file with every sanitizer run's verdict, for results/h200/tuning/
    for f in "$LOG"/sanitizer-*.log; do
        echo "== $(basename "$f" .log)"
        grep -E "^(seed|test_gpu|best|=+ (ERROR|RACECHECK) SUMMARY)|FAIL|ERROR " "$f"
    done >"$LOG/compute_sanitizer.txt"
fi

if has bench; then
    if [ $# -eq 0 ]; then
        sets=" ${BENCH_SETS:-n2048 sgemm reduce-sort labs shapes plugin} "
        [[ $sets == *" n2048 "* ]] && step compare-n2048 "$BUILD/compare" --ops sgemm,reduce,sort --n 2048
        [[ $sets == *" sgemm "* ]] &&
            step bench-sgemm "$BUILD/compare" --ops sgemm --n 2048,4096,8192 --csv "$LOG/sgemm.csv"
        # the same twice more (repeatability: three runs of one commit)
        if [[ $sets == *" sgemm-repeat "* ]]; then
            for r in 2 3; do
                step "bench-sgemm-run$r" "$BUILD/compare" --ops sgemm --n 2048,4096,8192 \
                    --variants cublas_fp32,cublas_tf32,tuned,tf32_tma --csv "$LOG/sgemm_run$r.csv"
            done
        fi
        # the same three times with --interleave (the four rows timed in rounds of one sample
        # each: a power cap that builds up slows cuBLAS and the hand kernels alike)
        if [[ $sets == *" sgemm-interleave "* ]]; then
            for r in 1 2 3; do
                step "bench-sgemm-interleave$r" "$BUILD/compare" --interleave --ops sgemm --n 2048,4096,8192 \
                    --variants cublas_fp32,cublas_tf32,tuned,tf32_tma --csv "$LOG/sgemm_interleave_run$r.csv"
            done
            # the LLM shapes (the long ones run power-capped) and the small and odd sizes
            step bench-shapes-interleave "$BUILD/compare" --interleave --ops sgemm --shapes shapes/llm.txt \
                --variants cublas_fp32,cublas_tf32,tuned,tf32_tma --csv "$LOG/shapes_llm_interleave.csv"
            step bench-sgemm-small-interleave "$BUILD/compare" --interleave --ops sgemm \
                --n 256,512,1024,129,1537,3001,4097 --variants cublas_fp32,cublas_tf32,tuned,tf32_tma \
                --cpu-max-n 0 --csv "$LOG/sgemm_small_interleave.csv"
        fi
        # small and odd square sizes (tuned's small picks, tf32_tma's staged operands)
        [[ $sets == *" sgemm-small "* ]] &&
            step bench-sgemm-small "$BUILD/compare" --ops sgemm --n 256,512,1024,129,1537,3001,4097 \
                --cpu-max-n 0 --csv "$LOG/sgemm_small.csv"
        # thin m (decode-like: m = 1 .. 64 against long and short n): every TMA candidate
        # (behind tf32_tma's thin picks), then the tool itself on the same shapes
        thin=1x14336x4096,16x14336x4096,32x14336x4096,64x14336x4096,16x4096x4096,32x4096x4096,64x4096x4096
        if [[ $sets == *" thin "* ]]; then
            step search-thin "$BUILD/compare" --candidates tf32_tma --shape "$thin" \
                --csv "$LOG/search_tma_thin.csv"
            step bench-thin "$BUILD/compare" --ops sgemm --shape "$thin" \
                --variants cublas_fp32,cublas_tf32,tuned,tf32_tma --csv "$LOG/thin.csv"
        fi
        # the labs' ops at 2-4 sizes each, odd ones included (transpose: m x n of the shapes)
        [[ $sets == *" labs "* ]] &&
            step bench-labs "$BUILD/compare" --ops transpose,histogram,scan,transfer --shape 1000x999x1,8192x8192x1 \
                --elems 1000003,2^24,2^26,2^28 --csv "$LOG/labs.csv"
        # every SGEMM variant on the LLM shapes and on odd ones (not multiples of 4, primes)
        [[ $sets == *" shapes "* ]] &&
            step bench-shapes "$BUILD/compare" --ops sgemm --shapes shapes/llm.txt --shape 1537x1537x1537,4097x4097x4097,3001x1021x2053,129x4099x257 \
                --cpu-max-n 0 --csv "$LOG/shapes_llm.csv"
        # issue 41: every class of shapes/awkward.txt (k % 4 != 0, tiny m or n, tiny k, all
        # odd, 8191), the libraries at their best beside the hand TF32 and FP32 ladders' tops
        # (shapes_awkward.csv); then every tuned candidate: the picks' shapes with and without
        # _edge, the narrow-n rows, the other tiles for the k-tiny class (search_awkward_tuned.csv); then
        # tf32_tma beside its lean-staging candidate; then Nsight Compute per class,
        # cuBLAS's kernels against tuned and tf32_tma (ncu_awkward.md: tests/ncu_awkward.sh)
        if [[ $sets == *" awkward "* ]]; then
            step bench-awkward "$BUILD/compare" --ops sgemm --shapes shapes/awkward.txt \
                --variants cublas_fp32,cublas_tf32,cublaslt_best,cublaslt_best_fp32,tuned,tf32_mma,tf32_wgmma,tf32_tma \
                --cpu-max-n 0 --csv "$LOG/shapes_awkward.csv"
            # every tuned candidate (AWKWARD_TUNED: a comma-separated list narrows them), the
            # library rows beside them
            tv=()
            [ -n "${AWKWARD_TUNED:-}" ] && tv=(--variants "$AWKWARD_TUNED")
            step search-awkward-tuned "$BUILD/compare" --candidates tuned --shapes shapes/awkward.txt ${tv[@]+"${tv[@]}"} \
                --cpu-max-n 0 --max-time 1 --csv "$LOG/search_awkward_tuned.csv"
            step search-awkward-tma "$BUILD/compare" --candidates tf32_tma --shapes shapes/awkward.txt \
                --variants cublas_tf32,tf32_tma,tf32_tma_lean_staging --cpu-max-n 0 \
                --csv "$LOG/search_awkward_tma.csv"
            step ncu-awkward env BUILD="$BUILD" tests/ncu_awkward.sh "$LOG/ncu_awkward"
        fi
        # a user's plugin, built from the installed package like a user builds it
        if [[ $sets == *" plugin "* ]]; then
            # an absolute prefix: find_package does not take a relative CMAKE_PREFIX_PATH
            # from the command line as relative to the source tree
            prefix=$(cd "$BUILD" && pwd)/prefix
            step plugin-install cmake --install "$BUILD" --prefix "$prefix" &&
                step plugin-build bash -c "cmake -S examples/plugin -B '$BUILD/example' -DCMAKE_PREFIX_PATH='$prefix' -DCMAKE_BUILD_TYPE=Release && cmake --build '$BUILD/example'" &&
                step bench-plugin "$BUILD/prefix/bin/compare" --plugin "$BUILD/example/libmine.so" --ops sgemm \
                    --n 1000,2048,4096 --variants mine,tuned --csv "$LOG/plugin_example.csv" &&
                step bench-plugin-reduce "$BUILD/prefix/bin/compare" --plugin "$BUILD/example/libmine.so" \
                    --ops reduce --elems 1000003,2^24,2^26 --variants mine,vec4 --csv "$LOG/plugin_example_reduce.csv"
        fi
        # attention and conv2d (results/h200/attention.csv, conv.csv): one compare run per line of
        # their shapes file (each line's words are --axis words; its header says why)
        [[ $sets == *" attention "* ]] && bench_axis_lines attention attention shapes/attention.txt "${ATTENTION_LINES:-}" --max-time 0.1
        [[ $sets == *" conv "* ]] && bench_axis_lines conv conv2d shapes/conv.txt ""
        if [[ $sets == *" reduce-sort "* ]]; then
            step bench-reduce-sort "$BUILD/compare" --ops reduce,sort --elems 2^20,2^24,2^26,2^28 \
                --csv "$LOG/reduce_sort.csv"
            step bench-reduce-sort-noflush "$BUILD/compare" --ops reduce,sort \
                --elems 2^20,2^24,2^26,2^28 --no-flush --csv "$LOG/reduce_sort_noflush.csv"
        fi
    else
        step bench "$BUILD/compare" "$@"
    fi
fi

if has stress; then
    SR=${STRESS_REPS:-500}
    SF=${STRESS_FAMILIES:-sort,reduce,tuned,scan,tf32}
    step stress-alone "$BUILD/tests/stress_gpu" --reps "$SR" --families "$SF" --h2d-probe "${H2D_PROBES:-200}"
    # a second process loading the GPU the whole time: the default comparison, repeated
    "$BUILD/compare" --ops sgemm,reduce --n 4096 --elems 2^26 --soak 3600 --quiet >"$LOG/stress-load.log" 2>&1 &
    load=$!
    sleep 3
    step stress-loaded "$BUILD/tests/stress_gpu" --reps "$SR" --families "$SF" --h2d-probe "${H2D_PROBES:-200}"
    kill -INT $load 2>/dev/null
    wait $load
    echo "load process: exit $? (130: stopped by SIGINT as planned)" >>"$LOG/stress-load.log"
    {
        echo "# stress_gpu: $SR repetitions per case, alone and beside a second process"
        echo "# (compare --ops sgemm,reduce --n 4096 --elems 2^26 --soak) on $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null)"
        echo "## alone"
        grep -v "^rep " "$LOG/stress-alone.log"
        echo "## with the second process loading the GPU"
        grep -v "^rep " "$LOG/stress-loaded.log"
        echo "## the load process"
        tail -n 3 "$LOG/stress-load.log"
    } >"$LOG/stress.txt"
fi

if has fleet; then
    # compare-mpi (-DCOMPARE_MPI=ON): two ranks on the one GPU (they take turns),
    # then rank 1 given a device that is not there (ERROR rows, exit 1)
    step fleet-configure cmake -S . -B "$BUILD-mpi" "${gen[@]}" -DCMAKE_BUILD_TYPE=Release -DCOMPARE_MPI=ON \
        -DCOMPARE_PLOT_VENV=OFF &&
        step fleet-build cmake --build "$BUILD-mpi" -j "$JOBS" --target compare-mpi &&
        step fleet-np2 mpirun -np 2 --oversubscribe --allow-run-as-root "$BUILD-mpi/compare-mpi" --ops sgemm,reduce \
            --n 2048 --csv "$LOG/fleet_np2.csv"
    # passes when compare-mpi exits 1 (and only then): the planted failure is reported
    step fleet-bad-rank bash -c "COMPARE_FLEET_TEST_BAD_RANK=1 mpirun -np 2 --oversubscribe --allow-run-as-root \
        -x COMPARE_FLEET_TEST_BAD_RANK '$BUILD-mpi/compare-mpi' --ops sgemm --n 1024 --csv '$LOG/fleet_bad_rank.csv'; \
        rc=\$?; echo \"compare-mpi exit \$rc (1 expected: rank 1 planted on a missing device)\"; [ \$rc -eq 1 ]"
fi

if has sanitize-full; then
    for tool in ${SANITIZE_FULL_TOOLS:-racecheck synccheck}; do
        step "sanitizer-$tool-kernels-full" env COMPARE_TEST_QUICK=0 COMPARE_TEST_NO_ALLOC_PROBE=1 timeout 500 "$CS" \
            --tool "$tool" --error-exitcode 1 "$BUILD/tests/test_gpu_kernels"
        step "sanitizer-$tool-stress" timeout 500 "$CS" --tool "$tool" --error-exitcode 1 \
            "$BUILD/tests/stress_gpu" --reps 2
    done
fi

if has ncu; then
    NCU=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
    step ncu-nvtx "$NCU" --clock-control none --nvtx --nvtx-include "sgemm tuned 2048x2048x2048/" \
        --metrics gpu__time_duration.sum "$BUILD/compare" --ops sgemm --n 2048 --variants tuned --profile --quiet
    # the TF32 8192 drift: L2 hit rate and DRAM bytes of the hand kernel beside cuBLAS's, with the
    # SM clock each ran at (caches flushed before each profiled launch, clocks as found)
    step ncu-l2 "$NCU" --clock-control none --cache-control all -k "${NCU_L2_RX:-regex:sgemm_tma|tf32f32}" \
        -c "${NCU_L2_COUNT:-6}" --metrics "${NCU_L2_METRICS:-gpu__time_duration.sum,sm__cycles_elapsed.avg.per_second,\
dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sector_hit_rate.pct,lts__t_sectors_srcunit_tex_op_read.sum,\
lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum,sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_active}" \
        "$BUILD/compare" --ops sgemm --n "${NCU_L2_N:-8192}" --variants "${NCU_L2_VARIANTS:-cublas_tf32,tf32_tma}" \
        --reps 2 --max-reps 2 --quiet
fi

NCU_METRICS="gpu__time_duration.sum,sm__cycles_elapsed.avg.per_second,dram__bytes_read.sum,\
dram__bytes_write.sum,lts__t_sector_hit_rate.pct,lts__t_sectors_srcunit_tex_op_read.sum,\
lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum"
if has ab; then
    step ab "$BUILD/compare" --candidates "${AB_FAMILY:-tf32_tma}" --variants "${AB_CANDIDATES:?AB_CANDIDATES}" \
        --n "${AB_N:-2048,4096,8192}" ${AB_SHAPES:+--shape "$AB_SHAPES"} --csv "$LOG/ab.csv"
    cp "$LOG/ab.log" "$LOG/ab.txt"
    NCU=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
    for c in ${AB_NCU:+${AB_NCU//,/ }}; do
        step "ncu-ab-$c" "$NCU" --clock-control none --cache-control all -k "${AB_NCU_RX:-regex:sgemm_tmap}" \
            -c "${AB_NCU_COUNT:-8}" --metrics "${NCU_L2_METRICS:-$NCU_METRICS}" "$BUILD/compare" \
            --candidates "${AB_FAMILY:-tf32_tma}" --variants "$c" --n "${AB_NCU_N:-8192}" \
            ${AB_NCU_SHAPE:+--shape "$AB_NCU_SHAPE"} --warmup 0 --reps 1 --max-reps 1 --quiet
    done
fi

has sweep && step sweep "$BUILD/compare" --n 256:8192 --elems 2^16:2^28 --max-time 1 --csv "$LOG/sweep.csv"
has soak && step soak "$BUILD/compare" --soak "${SOAK_S:-300}"
finish
