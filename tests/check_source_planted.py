#!/usr/bin/env python3
"""tests/check_source_planted.py (ctest test_source_rules_planted, label cpu):
tests/check_source.py's comment rules (rule 1) on planted comments: each
figure, results/ path and issue number below must be caught, in a /* */
block, in // lines and when broken over two lines; each clean comment (an
idea, a constraint, a modulo, a tile shape, a datasheet's word for a clock
without a number) must not be. Also: the temporary skip list spares only the
added rules, and src/ gets only the rules that rot."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import check_source as cs  # noqa: E402

CAUGHT = [
    "3-6 points",
    "by a few points over SMALL",
    "within a point of cuBLAS",
    "11 points at 4096x8192x28672",
    "2 percentage points faster",
    "1.57 to 1.61 GHz under ncu",
    "at 1980 MHz",
    "a 400 kHz poll",
    "35-70% more DRAM bytes",
    "12.5% of the SMs idle",
    "about 20 percent slower",
    "97.6 % of cuBLAS",
    "407 TFLOP/s",
    "3.1 GB/s",
    "see results/h200/tuning/search_tma.txt",
    "(../results/h200/sgemm.csv)",
    "issue 17's drift",
    "Issue #35",
    "as #17 found",
    "measured at 99b9062",
]
CLEAN = [
    "m % 4 == 0 and n % 4 == 0: the 16-byte path",
    "if w % 10 < 9 one of 4 hot bins",
    "64 x 64 tile in 4x4 register blocks, 16-byte accesses",
    "the point of the split tail is to fill the last wave",
    "a point on the grid: one thread a tile",
    "the clock of the SM decides; read it from NVML",
    "the percentage is the row's time over the library's",
    "each thread issues 4 LDS.128 for 64 FFMA",
    "#include <cuda_runtime.h>",
    "results of the first pass land in scratch",
    "out[k] is row k / m, column k % m",
    "2^31 - 1 blocks, then blocks loop",
    "1.71798692e+10 flops counted exactly",
]

fails = []


def hits(text, rel="kernels/planted.cu", rules=None):
    return cs.comment_violations(rel, text, cs.kernel_rules(rel) if rules is None else rules)


for s in CAUGHT:
    for form in (f"/* {s} */\n", f"// {s}\n", f"/*\n * {s}\n */\n"):
        if not hits(form):
            fails.append(f"not caught: {form!r}")
for s in CLEAN:
    for form in (f"/* {s} */\n", f"// {s}\n"):
        h = hits(form)
        if h:
            fails.append(f"caught but clean: {form!r}: {h}")

# a figure broken over two lines, in a block and in // lines; line numbers
two = "int x;\n/* won by a few\n * points at 512 */\n// within a\n// point\n"
h = hits(two)
if len(h) != 2 or not h[0].startswith("kernels/planted.cu:2:") or not h[1].startswith("kernels/planted.cu:4:"):
    fails.append(f"figures over two lines: {h}")

# code is not a comment
if hits('const char *s = "97% of cuBLAS, issue 17, results/x"; int y = 50 % 7;\n'):
    fails.append("a string or code was checked as a comment")

# the temporary skip list: the added rules spared, the old ones kept
for rel in sorted(cs.FIGURE_SKIP_TEMPORARY):
    if hits("/* 3-6 points, results/h200/x.txt */\n", rel):
        fails.append(f"{rel}: an added rule applied to a skipped path")
    if not hits("/* 400 TFLOP/s at 99b9062 */\n", rel):
        fails.append(f"{rel}: the old rules no longer apply")

# src/, shim/, baselines/: only what rots (a datasheet clock and a share of
# an input distribution are not measurements)
if cs.comment_violations("src/core/peaks.c", "/* 108 SMs at 1410 MHz, 90% in 4 bins */\n", cs.ROT_RULES):
    fails.append("src: a datasheet clock or a share was caught")
if len(cs.comment_violations("src/x.c", "/* results/h200/a.csv, issue 9, 99b9062 */\n", cs.ROT_RULES)) != 3:
    fails.append("src: a results/ path, an issue or a commit id not caught")

for f in fails:
    print(f)
print(f"check_source_planted: {len(CAUGHT)} planted, {len(CLEAN)} clean, {len(fails)} failure(s)")
sys.exit(1 if fails else 0)
