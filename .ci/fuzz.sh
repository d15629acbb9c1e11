#!/usr/bin/env bash
# .ci/fuzz.sh: builds and runs the libFuzzer targets of the CPU-side parsers.
#
#   bash .ci/fuzz.sh [SECONDS]      SECONDS per target (default $FUZZ_TIME, else 30);
#                                   0: build, self-test and replay regressions only
#
# Targets (tests/fuzz/): fuzz_cli (cli_parse on an argv cut from the input at
# NUL / newline), fuzz_sizes (sizes_parse, sizes_parse_one) and fuzz_shapes
# (shapes_parse_list, shapes_parse_text, shapes_product). All are built with
# clang -fsanitize=fuzzer,address,undefined straight from the core sources
# they need (src/core/cli.c sizes.c shapes.c csv.c status.c catalog.c axes.c plan.c types.c peaks.c roofline.c
# metrics.c: fuzz_cli also builds the plan of what it accepts); the core has no
# CUDA headers and links no CUDA library.
#
# fuzz_cli runs with a filesystem guard: every libc call that could create,
# write, rename or remove a file is renamed (objcopy --redefine-sym) in the
# core objects to an aborting stub in fuzz_cli.c, so an input that makes
# cli_parse change the filesystem is reported as a crash. The guard is proven
# wired before fuzzing (FUZZ_FS_GUARD_SELFTEST).
#
# Steps: install clang + the sanitizer/fuzzer runtimes if missing (as root,
# apt-get), build, replay tests/fuzz/regressions/<target>/* (inputs that once
# crashed, committed), then fuzz each target for SECONDS from a scratch copy of
# tests/fuzz/corpus/<target>/ (the committed seeds are never written). New
# crashing inputs are copied to tests/fuzz/regressions/<target>/ for
# committing. Exit 1 on any crash, leak, timeout or out-of-memory.
#
# Environment: FUZZ_TIME (seconds per target), FUZZ_BUILD_DIR (default
# build-fuzz/), FUZZ_TARGETS (default "cli sizes shapes"), FUZZ_CC (default clang),
# (no CUDA needed).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
FUZZ_TIME="${1:-${FUZZ_TIME:-30}}"
BUILD="${FUZZ_BUILD_DIR:-$ROOT/build-fuzz}"
TARGETS="${FUZZ_TARGETS:-cli sizes shapes}"
CC="${FUZZ_CC:-clang}" # not $CC: CI may export CC=gcc for the main build
[[ "$FUZZ_TIME" =~ ^[0-9]+$ ]] || { echo "fuzz: SECONDS must be a whole number, got '$FUZZ_TIME'" >&2; exit 2; }

# ---- toolchain ---------------------------------------------------------------
fuzz_runtime_ok() {
    command -v "$CC" >/dev/null 2>&1 || return 1
    command -v objcopy >/dev/null 2>&1 || return 1
    # links a trivial fuzzer: proves clang and libclang_rt.{fuzzer,asan,ubsan} are there
    local d; d="$(mktemp -d)"
    printf '#include <stdint.h>\n#include <stddef.h>\nint LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) { (void)d; (void)n; return 0; }\n' > "$d/t.c"
    "$CC" -fsanitize=fuzzer,address,undefined "$d/t.c" -o "$d/t" >/dev/null 2>&1
    local rc=$?
    rm -rf "$d"
    return $rc
}
if ! fuzz_runtime_ok; then
    if [[ "$(id -u)" == 0 ]] && command -v apt-get >/dev/null; then
        echo "fuzz: installing clang and its fuzzer/sanitizer runtimes (apt-get)"
        export DEBIAN_FRONTEND=noninteractive
        apt-get update -qq
        # Debian 12: clang is clang-14; the runtimes are in libclang-rt-14-dev
        apt-get install -y -qq clang binutils >/dev/null
        ver="$(clang --version | sed -n 's/.*clang version \([0-9]*\).*/\1/p' | head -1)"
        apt-get install -y -qq "libclang-rt-${ver}-dev" >/dev/null || true
    fi
    fuzz_runtime_ok || { echo "fuzz: $CC cannot link -fsanitize=fuzzer,address,undefined (install clang and libclang-rt-NN-dev)" >&2; exit 2; }
fi

# ---- build ---------------------------------------------------------------------
mkdir -p "$BUILD/obj"
CFLAGS=(-g -O1 -std=c11 -D_POSIX_C_SOURCE=200809L -Wall -Wextra -Wshadow -Wstrict-prototypes
        -fno-omit-frame-pointer -fno-sanitize-recover=all
        -I"$ROOT/src/core"
        -DCOMPARE_VERSION=\"fuzz\" -DCOMPARE_GIT_COMMIT=\"fuzz\")
SAN=address,undefined
# libc calls that change the filesystem: redirected to fuzz_fs_<name> in fuzz_cli.c
FS_CALLS=(fopen freopen fdopen open openat creat mkstemp mkostemp mkdir rename renameat
          unlink unlinkat remove rmdir truncate ftruncate chmod fchmod link symlink mkfifo)
REDEF=()
for s in "${FS_CALLS[@]}"; do REDEF+=(--redefine-sym "$s=fuzz_fs_$s"); done

echo "fuzz: building with $("$CC" --version | head -1) in $BUILD"
for s in cli sizes shapes csv status catalog axes plan metrics types peaks roofline; do
    "$CC" "${CFLAGS[@]}" -fsanitize=fuzzer-no-link,$SAN -c "$ROOT/src/core/$s.c" -o "$BUILD/obj/$s.o"
    objcopy "${REDEF[@]}" "$BUILD/obj/$s.o" "$BUILD/obj/guarded_$s.o"
done
# the guard must have caught every such call the core objects make
left="$(nm -u "$BUILD"/obj/guarded_*.o | awk '{print $NF}' | grep -xF -f <(printf '%s\n' "${FS_CALLS[@]}") \
        || true)"
[[ -z "$left" ]] || { echo "fuzz: filesystem calls left unguarded: $left" >&2; exit 2; }

"$CC" "${CFLAGS[@]}" -fsanitize=fuzzer,$SAN "$ROOT/tests/fuzz/fuzz_cli.c" \
    "$BUILD"/obj/guarded_{cli,csv,sizes,shapes,status,catalog,axes,plan,metrics,types,peaks,roofline}.o -lm -o "$BUILD/fuzz_cli"
"$CC" "${CFLAGS[@]}" -fsanitize=fuzzer,$SAN "$ROOT/tests/fuzz/fuzz_sizes.c" "$BUILD/obj/sizes.o" \
    -o "$BUILD/fuzz_sizes"
"$CC" "${CFLAGS[@]}" -fsanitize=fuzzer,$SAN "$ROOT/tests/fuzz/fuzz_shapes.c" \
    "$BUILD"/obj/{shapes,sizes}.o -o "$BUILD/fuzz_shapes"

export ASAN_OPTIONS="detect_leaks=1:${ASAN_OPTIONS:-}"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1:${UBSAN_OPTIONS:-}"

# ---- guard self-test: csv_open must trip the guard -------------------------------
st="$(mktemp -d)"
if (cd "$st" && FUZZ_FS_GUARD_SELFTEST=1 "$BUILD/fuzz_cli" -runs=1 -artifact_prefix="$st/" >"$st/log" 2>&1); then
    echo "fuzz: filesystem guard self-test did not abort" >&2; cat "$st/log" >&2; exit 2
fi
grep -q "FILESYSTEM GUARD: core code called mkstemp" "$st/log" || {
    echo "fuzz: filesystem guard self-test failed:" >&2; tail -20 "$st/log" >&2; exit 2; }
[[ -z "$(find "$st" -name 'fuzz_fs_guard_selftest*' -print -quit)" ]] || {
    echo "fuzz: the guard let a file be created" >&2; exit 2; }
rm -rf "$st"
echo "fuzz: filesystem guard wired (csv_open aborts in mkstemp)"

# ---- regressions, then fuzzing ---------------------------------------------------
crashes=0
summary=""
for t in $TARGETS; do
    bin="$BUILD/fuzz_$t"
    [[ -x "$bin" ]] || { echo "fuzz: unknown target '$t'" >&2; exit 2; }
    reg="$ROOT/tests/fuzz/regressions/$t"
    if [[ -d "$reg" ]] && [[ -n "$(ls -A "$reg")" ]]; then
        n=$(find "$reg" -type f | wc -l)
        if (cd "$ROOT" && "$bin" $(find "$reg" -type f | sort) >"$BUILD/regress_$t.log" 2>&1); then
            echo "fuzz: fuzz_$t: $n regression inputs pass"
        else
            echo "fuzz: fuzz_$t: a committed regression input fails again:" >&2
            tail -40 "$BUILD/regress_$t.log" >&2
            crashes=$((crashes + 1))
        fi
    fi

    if [[ "$FUZZ_TIME" == 0 ]]; then
        summary="${summary:+$summary, }fuzz_$t 0 execs"
        continue
    fi
    work="$BUILD/work/$t"
    rm -rf "$work/artifacts"
    mkdir -p "$work/corpus" "$work/artifacts"
    case $t in cli | shapes) max_len=4200 ;; *) max_len=1024 ;; esac
    dict=()
    [[ -f "$ROOT/tests/fuzz/$t.dict" ]] && dict=(-dict="$ROOT/tests/fuzz/$t.dict")
    log="$BUILD/fuzz_$t.log"
    echo "fuzz: fuzz_$t for ${FUZZ_TIME}s (log: $log)"
    rc=0
    # cwd = the repo root, so --csv inputs with relative paths meet real files
    (cd "$ROOT" && "$bin" -max_total_time="$FUZZ_TIME" -timeout=10 -rss_limit_mb=2048 \
        -max_len="$max_len" "${dict[@]}" -print_final_stats=1 -artifact_prefix="$work/artifacts/" \
        "$work/corpus" "$ROOT/tests/fuzz/corpus/$t" >"$log" 2>&1) || rc=$?
    execs="$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)"
    [[ -n "$execs" ]] || execs="$(sed -n 's/^Done \([0-9]*\) runs.*/\1/p' "$log" | tail -1)"
    execs="${execs:-0}"
    found=$(find "$work/artifacts" -type f \( -name 'crash-*' -o -name 'leak-*' -o -name 'timeout-*' \
            -o -name 'oom-*' \) | wc -l)
    if [[ $rc -ne 0 || $found -gt 0 ]]; then
        [[ $found -gt 0 ]] || found=1
        crashes=$((crashes + found))
        mkdir -p "$reg"
        find "$work/artifacts" -type f \( -name 'crash-*' -o -name 'leak-*' -o -name 'timeout-*' \
            -o -name 'oom-*' \) -exec cp {} "$reg/" \;
        echo "fuzz: fuzz_$t FAILED (exit $rc); inputs copied to tests/fuzz/regressions/$t/:" >&2
        grep -E "ERROR|INVARIANT|GUARD|runtime error|SUMMARY" "$log" | head -20 >&2 || true
        tail -40 "$log" >&2
    fi
    summary="${summary:+$summary, }fuzz_$t $execs execs"
done

echo "fuzz: $summary, $crashes crashes"
[[ $crashes -eq 0 ]]
