#!/usr/bin/env bash
# tests/sass_compare.sh: are two kernels the same machine code, up to names
# and addresses? For refactors that must not change a kernel (a macro turned
# into a template, a helper moved to kernels/common/): same SASS, same speed,
# proven without a GPU.
#
#   tests/sass_compare.sh OLD.cubin OLD_REGEX NEW.cubin NEW_REGEX
#
# The two cubins are built with the same flags (e.g. nvcc -cubin -O3
# -gencode=arch=compute_90,code=sm_90 -lineinfo ...); each REGEX (grep -E)
# picks exactly one function, by its mangled name, in its cubin. Each SASS
# listing (cuobjdump -sass) is normalised: addresses and encodings dropped,
# symbol names in operands replaced by SYM, blanks squeezed; branch targets
# stay (offsets inside the function: equal when the code before them is).
# Prints "identical: N instructions" (exit 0) or the diff (exit 1); 2 on
# bad usage or a regex that does not pick one function.
set -u
[ $# -eq 4 ] || { sed -n '2,16p' "$0" >&2; exit 2; }
CUOBJDUMP=${CUOBJDUMP:-cuobjdump}

sass_of() { # cubin regex -> normalised instruction lines on stdout
    local names
    names=$("$CUOBJDUMP" -sass "$1" | sed -n 's/^[[:space:]]*Function : //p' | grep -E -- "$2")
    if [ "$(printf '%s\n' "$names" | grep -c .)" -ne 1 ]; then
        echo "sass_compare: '$2' picks $(printf '%s\n' "$names" | grep -c .) functions in $1:" >&2
        printf '%s\n' "$names" >&2
        return 2
    fi
    "$CUOBJDUMP" -sass -fun "$names" "$1" |
        grep -E '^[[:space:]]*/\*[0-9a-f]{4,}\*/' |
        sed -E 's#^[[:space:]]*/\*[0-9a-f]+\*/[[:space:]]*##; s#[[:space:]]*/\* 0x[0-9a-f]+ \*/[[:space:]]*$##;
                s#\(\*?[_.$A-Za-z][_.$A-Za-z0-9]*\)#(SYM)#g; s#`\([^)]*\)#`(SYM)#g; s#[[:space:]]+# #g; s# ;$##'
}

old=$(mktemp) new=$(mktemp)
trap 'rm -f "$old" "$new"' EXIT
sass_of "$1" "$2" >"$old" || exit 2
sass_of "$3" "$4" >"$new" || exit 2
if diff -q "$old" "$new" >/dev/null; then
    echo "identical: $(wc -l <"$new") instructions"
    exit 0
fi
echo "different: $(wc -l <"$old") -> $(wc -l <"$new") instructions; diff (old <, new >):"
diff "$old" "$new" | head -n "${SASS_DIFF_LINES:-60}"
exit 1
