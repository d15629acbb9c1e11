#!/usr/bin/env bash
# .ci/sanitize.sh: the cpu tests under AddressSanitizer + UBSan, and under
# valgrind memcheck.
#
#   bash .ci/sanitize.sh [NORMAL_BUILD_DIR]
#
# 1. Configures a separate build dir ($SANITIZE_BUILD_DIR, default
#    build-sanitize/) with -DCOMPARE_SANITIZE=ON (ASan + UBSan on every C
#    source, -fno-sanitize-recover) and -DCMAKE_CUDA_ARCHITECTURES=90, builds
#    the cpu tests and runs `ctest -L cpu` with LeakSanitizer on and UBSan
#    halting on the first error.
# 2. If NORMAL_BUILD_DIR is given (a configured, non-sanitized build dir, e.g.
#    the one the normal CI build made), builds its cpu tests (a no-op when up to
#    date) and runs each under `valgrind --error-exitcode=1 --leak-check=full`,
#    with the test's own working directory and environment from ctest. A test's
#    skip code (77) counts as skipped.
#
# The cpu tests must not initialise CUDA; should a library's own allocations
# ever show up, suppress them by library in .ci/valgrind.supp / .ci/lsan.supp
# (used when present), never by turning the checks off.
# Installs valgrind (apt-get, as root) when it is missing. Exit 1 on any
# sanitizer report, valgrind error, leak or test failure.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
SAN_DIR="${SANITIZE_BUILD_DIR:-$ROOT/build-sanitize}"
NORMAL_DIR="${1:-}"
JOBS="${JOBS:-$(nproc)}"
STEPS="${SANITIZE_STEPS:-asan valgrind}" # e.g. SANITIZE_STEPS=valgrind to rerun only step 2

fail=0
sanitize_summary=""
valgrind_summary=""

# ---- tools ---------------------------------------------------------------------
sanitize_install() {
    if [[ "$(id -u)" == 0 ]] && command -v apt-get >/dev/null; then
        export DEBIAN_FRONTEND=noninteractive
        [[ -n "${sanitize_apt_updated:-}" ]] || { apt-get update -qq; sanitize_apt_updated=1; }
        apt-get install -y -qq "$@" >/dev/null
    else
        echo "sanitize: missing $*; install it (not root, cannot apt-get)" >&2
        exit 2
    fi
}
command -v python3 >/dev/null || sanitize_install python3
if [[ -n "$NORMAL_DIR" ]] && ! command -v valgrind >/dev/null; then sanitize_install valgrind; fi

# Lists the C tests of label cpu in build dir $1 (those whose program is built
# there; the Python ones, e.g. the plot checks, have nothing to sanitize) as
# lines "name<TAB>skip_code<TAB>cwd<TAB>json(argv)<TAB>json(env)".
sanitize_list_cpu_tests() {
    (cd "$1" && ctest --show-only=json-v1 -L cpu) | python3 -c '
import json, os, sys
build = os.path.realpath(sys.argv[1])
for t in json.load(sys.stdin).get("tests", []):
    props = {p["name"]: p["value"] for p in t.get("properties", [])}
    cmd = t.get("command") or []  # none yet: a program not built yet, so one of ours
    if cmd and not os.path.realpath(cmd[0]).startswith(build + os.sep):
        continue
    env = props.get("ENVIRONMENT", [])
    if isinstance(env, str):
        env = [env]
    print("\t".join([t["name"], str(props.get("SKIP_RETURN_CODE", 77)),
                     props.get("WORKING_DIRECTORY", build), json.dumps(cmd), json.dumps(env)]))
' "$1"
}

# ---- 1. ASan + UBSan build, ctest -L cpu ------------------------------------------
if [[ " $STEPS " == *" asan "* ]]; then
echo "sanitize: configuring $SAN_DIR (COMPARE_SANITIZE=ON)"
mkdir -p "$SAN_DIR"
# COMPARE_PLOT_VENV=OFF: only the C tests run here, so no plot venv is made
cmake -S "$ROOT" -B "$SAN_DIR" -DCOMPARE_SANITIZE=ON -DCMAKE_CUDA_ARCHITECTURES=90 -DCOMPARE_PLOT_VENV=OFF \
      -DCMAKE_BUILD_TYPE=RelWithDebInfo >"$SAN_DIR/sanitize-configure.log" 2>&1 \
    || { tail -40 "$SAN_DIR/sanitize-configure.log" >&2; exit 1; }
mapfile -t san_tests < <(sanitize_list_cpu_tests "$SAN_DIR" | cut -f1)
[[ ${#san_tests[@]} -gt 0 ]] || { echo "sanitize: no cpu tests found" >&2; exit 1; }
echo "sanitize: building ${#san_tests[@]} cpu tests: ${san_tests[*]}"
cmake --build "$SAN_DIR" -j "$JOBS" --target "${san_tests[@]}" >"$SAN_DIR/sanitize-build.log" 2>&1 \
    || { grep -E "error|Error" "$SAN_DIR/sanitize-build.log" | head -30 >&2; tail -20 "$SAN_DIR/sanitize-build.log" >&2; exit 1; }

# detect_leaks: LeakSanitizer at exit; protect_shadow_gap=0: the CUDA driver
# needs that address range, should a test (or the compare binary a test runs)
# initialise CUDA on a machine with a GPU.
asan="detect_leaks=1:protect_shadow_gap=0:abort_on_error=0:print_suppressions=0"
[[ -f "$ROOT/.ci/lsan.supp" ]] && export LSAN_OPTIONS="suppressions=$ROOT/.ci/lsan.supp:${LSAN_OPTIONS:-}"
echo "sanitize: ctest -L cpu (the C tests) under ASan + UBSan"
if (cd "$SAN_DIR" && ASAN_OPTIONS="$asan" UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1" \
        ctest -L cpu -R "^($(IFS='|'; echo "${san_tests[*]}"))\$" --output-on-failure --timeout 600 \
              -j "$JOBS" >"$SAN_DIR/sanitize-ctest.log" 2>&1); then
    ok=1
else
    ok=0
    fail=1
fi
grep -E "tests passed|tests failed|Failed|Not Run|\*\*\*" "$SAN_DIR/sanitize-ctest.log" || true
[[ $ok == 1 ]] || { echo "sanitize: ASan/UBSan run failed; full log $SAN_DIR/sanitize-ctest.log" >&2; tail -80 "$SAN_DIR/sanitize-ctest.log" >&2; }
sanitize_summary="asan+ubsan: $(grep -E '^[0-9]+% tests passed' "$SAN_DIR/sanitize-ctest.log" | tail -1)"
fi

# ---- 2. valgrind memcheck in the normal build ---------------------------------------
vg_pass=0 vg_fail=0 vg_skip=0
if [[ -n "$NORMAL_DIR" && " $STEPS " == *" valgrind "* ]]; then
    NORMAL_DIR="$(cd "$NORMAL_DIR" && pwd)"
    if grep -q '^COMPARE_SANITIZE:BOOL=ON' "$NORMAL_DIR/CMakeCache.txt" 2>/dev/null; then
        echo "sanitize: $NORMAL_DIR is a sanitized build; valgrind needs a normal one" >&2
        exit 2
    fi
    # re-run its configure step first, so the test list and the build rules agree
    cmake "$NORMAL_DIR" >"$NORMAL_DIR/valgrind-configure.log" 2>&1 \
        || { tail -30 "$NORMAL_DIR/valgrind-configure.log" >&2; exit 1; }
    mapfile -t names < <(sanitize_list_cpu_tests "$NORMAL_DIR" | cut -f1)
    [[ ${#names[@]} -gt 0 ]] || { echo "sanitize: no cpu tests in $NORMAL_DIR" >&2; exit 1; }
    cmake --build "$NORMAL_DIR" -j "$JOBS" --target "${names[@]}" >"$NORMAL_DIR/valgrind-build.log" 2>&1 \
        || { tail -30 "$NORMAL_DIR/valgrind-build.log" >&2; exit 1; }
    mapfile -t vg_tests < <(sanitize_list_cpu_tests "$NORMAL_DIR") # now with their commands
    echo "sanitize: valgrind on ${#vg_tests[@]} cpu tests in $NORMAL_DIR"
    # --child-silent-after-fork: tests that run the compare binary fork first; the
    # child's copy of the parent's report would only repeat it (children are not
    # traced past exec: the ASan step covers the compare binary itself)
    vg=(valgrind --error-exitcode=1 --leak-check=full --num-callers=30 --child-silent-after-fork=yes)
    [[ -f "$ROOT/.ci/valgrind.supp" ]] && vg+=(--suppressions="$ROOT/.ci/valgrind.supp")
    mkdir -p "$NORMAL_DIR/valgrind"
    for line in "${vg_tests[@]}"; do
        IFS=$'\t' read -r name skip cwd cmd_json env_json <<<"$line"
        mapfile -t cmd < <(python3 -c 'import json,sys; sys.stdout.write("".join(a + "\n" for a in json.loads(sys.argv[1])))' "$cmd_json")
        mapfile -t envs < <(python3 -c 'import json,sys; sys.stdout.write("".join(a + "\n" for a in json.loads(sys.argv[1])))' "$env_json")
        log="$NORMAL_DIR/valgrind/$name.log"
        if [[ ${#cmd[@]} -eq 0 ]]; then
            vg_fail=$((vg_fail + 1)); fail=1
            echo "sanitize: valgrind $name: FAILED (its program was not built)" >&2
            continue
        fi
        t0=$SECONDS
        rc=0
        rm -f "$log.vg"
        (cd "$cwd" && env "${envs[@]}" "${vg[@]}" --log-file="$log.vg" "${cmd[@]}" >"$log" 2>&1) || rc=$?
        touch "$log.vg"
        cat "$log.vg" >>"$log"
        errs="$(sed -n 's/.*ERROR SUMMARY: \([0-9]*\) errors.*/\1/p' "$log.vg" | tail -1)"
        if [[ $rc == "$skip" ]]; then
            vg_skip=$((vg_skip + 1)); echo "sanitize: valgrind $name: skipped (exit $skip)"
        elif [[ $rc == 0 ]]; then
            vg_pass=$((vg_pass + 1)); echo "sanitize: valgrind $name: ok ($((SECONDS - t0)) s)"
        else
            vg_fail=$((vg_fail + 1)); fail=1
            echo "sanitize: valgrind $name: FAILED (exit $rc, ${errs:-?} valgrind errors); log $log" >&2
            grep -E "^==[0-9]+== (Invalid|Conditional|Use of|Syscall|Mismatched|Source and|.*definitely|.*possibly)" \
                "$log.vg" | head -20 >&2 || true
            tail -60 "$log" >&2
        fi
    done
    valgrind_summary="valgrind: $vg_pass passed, $vg_fail failed, $vg_skip skipped"
fi

echo "sanitize: ${sanitize_summary:-asan+ubsan: not run}; ${valgrind_summary:-valgrind: not run}"
exit $fail
