#!/usr/bin/env bash
# tests/sass_bank_conflicts.sh: FFMA register-bank conflicts in a kernel's main
# loop, counted in its SASS. The last few percent of an FFMA-bound SGEMM
# (tuned) depend on which registers ptxas gives the FFMA operands; a change
# that must not slow a kernel down is checked by counting before and after.
#
#   tests/sass_bank_conflicts.sh FILE REGEX
#
# FILE: a cubin, object or executable (anything cuobjdump -sass reads);
# REGEX (grep -E) picks one function by its mangled name. Prints the main
# loop's address range, its FFMAs and the two counts below.
#
# Bank rule used for sm_90 (as measured by microbenchmarks on Volta, Jia et
# al. 2018, "Dissecting the NVIDIA Volta GPU Architecture via
# Microbenchmarking", and reported unchanged through Ampere and Hopper; NVIDIA
# does not document it): the general registers R0..R254 sit in 2 banks,
# bank(Rn) = n % 2, each 64 bits wide. An operand is read from its bank unless
# it is RZ, a constant or immediate, or served by the operand reuse cache:
# the previous instruction carried .reuse on the same operand slot with the
# same register. Reading the three sources of an FFMA costs an extra cycle
# when all three come from the banks and all three sit in the same bank:
# "conflicts" counts those FFMAs. "pairs" counts the FFMAs with at least two
# distinct bank-read sources in one bank, a stricter proxy (a conflict under
# a one-read-per-bank rule); both are relative measures for comparing builds
# of one kernel, not cycle counts.
# Main loop: the backward branch whose range [target, branch] holds the most
# FFMAs (the smallest such range on a tie: the innermost loop).
set -u
[ $# -eq 2 ] || { sed -n '2,12p' "$0" >&2; exit 2; }
CUOBJDUMP=${CUOBJDUMP:-cuobjdump}
names=$("$CUOBJDUMP" -sass "$1" | sed -n 's/^[[:space:]]*Function : //p' | grep -E -- "$2")
if [ "$(printf '%s\n' "$names" | grep -c .)" -ne 1 ]; then
    echo "sass_bank_conflicts: '$2' picks $(printf '%s\n' "$names" | grep -c .) functions in $1" >&2
    exit 2
fi
"$CUOBJDUMP" -sass -fun "$names" "$1" |
    sed -En 's#^[[:space:]]*/\*([0-9a-f]+)\*/[[:space:]]*(.*);.*$#\1 \2#p' |
    awk -v fn="$names" '
    function hex(s,    v, i, c) { # "0x1f0" or "1f0" -> number (mawk has no strtonum)
        sub(/^0x/, "", s); v = 0
        for (i = 1; i <= length(s); i++) { c = index("0123456789abcdef", substr(s, i, 1)) - 1; v = v * 16 + c }
        return v
    }
    function regnum(op) { # register number of a source operand, -1 if not a register
        gsub(/[-|!~]/, "", op)
        if (op !~ /^R[0-9]+/) return -1
        sub(/^R/, "", op); sub(/[^0-9].*$/, "", op)
        return op + 0
    }
    {
        addr[NR] = hex($1); line = $0; sub(/^[0-9a-f]+ /, "", line)
        pred = ""; if (line ~ /^@/) { pred = line; sub(/ .*/, "", pred); sub(/^@[^ ]+ /, "", line) }
        op = line; sub(/ .*/, "", op); opc[NR] = op
        args = line; sub(/^[^ ]+ ?/, "", args); n = split(args, a, /, */)
        nops[NR] = n
        for (j = 1; j <= n; j++) { gsub(/^ +| +$/, "", a[j]); ops[NR, j] = a[j] }
        if (op ~ /^BRA/ && n >= 1) {
            t = ops[NR, n]; if (t ~ /^0x/) { tgt[NR] = hex(t) }
        }
    }
    END {
        best = 0; bl = 0; bh = 0
        for (i = 1; i <= NR; i++) {
            if (!(i in tgt) || tgt[i] >= addr[i]) continue
            lo = tgt[i]; hi = addr[i]; f = 0
            for (k = 1; k <= NR; k++) if (addr[k] >= lo && addr[k] <= hi && opc[k] ~ /^FFMA/) f++
            if (f > best || (f == best && f > 0 && hi - lo < bh - bl)) { best = f; bl = lo; bh = hi }
        }
        if (best == 0) { printf "%s: no loop with FFMAs\n", fn; exit 1 }
        conf = 0; pairs = 0
        for (k = 1; k <= NR; k++) {
            if (addr[k] < bl || addr[k] > bh || opc[k] !~ /^FFMA/) continue
            delete seen; nb[0] = 0; nb[1] = 0; reads = 0
            for (j = 2; j <= 4 && j <= nops[k]; j++) {
                o = ops[k, j]; r = regnum(o)
                if (r < 0 || r == 255 || o ~ /^RZ/) continue
                # served by the reuse cache: previous instruction, same slot, same register, .reuse
                if (k > 1 && ops[k - 1, j] ~ /\.reuse/ && regnum(ops[k - 1, j]) == r) continue
                if (r in seen) continue
                seen[r] = 1; nb[r % 2]++; reads++
            }
            if (reads == 3 && (nb[0] == 3 || nb[1] == 3)) conf++
            if (nb[0] >= 2 || nb[1] >= 2) pairs++
        }
        printf "%s: main loop 0x%x..0x%x, %d FFMA, %d conflicts (3 sources in one bank), %d pairs (2+ in one bank)\n", fn, bl, bh, best, conf, pairs
    }'
