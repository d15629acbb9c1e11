#!/usr/bin/env python3
"""tests/check_tables.py: ctest driver for plots/tables.py (label cpu).

    check_tables.py --script plots/tables.py --work DIR CSV
    check_tables.py --labs --script plots/tables.py --work DIR LABS_CSV

CSV is tests/data/synthetic.csv: the expected rows below are its figures.
With --labs, LABS_CSV is tests/data/synthetic_labs.csv and the checks are
those of check_tables_labs.py (the newer columns and ops). Otherwise, in order:
  1. the full output holds the expected Markdown rows (per-size tables with a
     FAIL row and an ERROR row whose message has a comma and quotes; the
     ladders, with the TF32 line of sgemm: tf32_mma against cublas_tf32);
  2. --op/--sizes/--view select what they say;
  3. --readme on a copy in DIR: --check reports the stale blocks (exit 1), the
     rewrite puts exactly the selected tables between the markers and keeps
     every other line, a second run changes nothing, --check then passes; a
     block of an op the CSV does not hold, and a malformed marker, are refused
     (exit 2) and leave the file as it was;
  4. a CSV without a needed column exits 2 naming the file and the column;
  5. the caption says the samples were held by the timing gate when the
     CSV's timing column says so, counting rows timed without it, and says
     nothing of it for a CSV without that column.
tables.py needs only the standard library (no matplotlib).
"""

import argparse
import csv
import os
import sys

import check_tables_labs
import check_tables_newop
from checklib import CheckFailed, block, fresh_work_dir, read, readme_fixture, run, run_ok

EXPECTED_ROWS = (
    "**sgemm, n=2048**",
    "| variant | median ms | spread % | TFLOP/s | % of cublas_fp32 | % of cublas_tf32 "
    "| % of FP32 peak | rel err | status |",
    "| tiled32 | 1.847 | 1.1 | 9.30 | 19.0 | 3.5 | 13.9 | 2.4e-07 | ok |",
    "| cublas_fp32 | 0.3506 | 1.1 | 49.0 | - | - | 73.2 | 1.8e-07 | ok |",
    "| tiled16 | - | - | - | - | - | - | 3.2e-02 | FAIL: rel err 3.2e-02 above tolerance "
    "2.0e-05 (max abs err 41.7 at row 17 col 1023) |",
    "| vec4 | - | - | - | - | - | - | - | ERROR: launch of \"reduce_vec4\" failed: "
    "cudaErrorInvalidConfiguration, invalid configuration argument (kernels/reduce.cu:212) |",
    "| shuffle | 0.1272 | 1.1 | 2110 | 153.2 | 55.5 | 43.9 | 3.0e-08 | ok |",
    "**sort f32, 2^24 elements**",
    "| radix | 0.9811 | 1.1 | 17.1 | 60.2 | 29.4 | - | - | ok |",
    "| variant | % of | 1024 | 2048 |",
    "| naive | cublas_fp32 | 16.5 | 11.0 |",
    "| tiled16 | cublas_fp32 | FAIL | 16.5 |",
    "| tiled32 | cublas_fp32 | 28.2 | 19.0 |",
    "| tf32_mma | cublas_tf32 | 64.2 | 57.9 |",
    "| tf32_mma | 0.1132 | 1.1 | 152 | 57.9 (of cublas_tf32) | 57.9 | 226.9 | 3.8e-04 | ok |",
    "| vec4 | thrust | 491.2 | ERROR |",
    "| radix | thrust | 70.6 | 62.8 |",
    "| radix | thrust | 68.0 | 60.2 |",
)

README = """\
# compare

Text before.

<!-- tables:sgemm-ladder:begin csv=results/synthetic.csv op=sgemm view=ladder -->
old text that must go
<!-- tables:sgemm-ladder:end -->

Between the blocks.

<!-- tables:reduce:begin csv=results/synthetic.csv op=reduce view=sizes sizes=2^24 -->
<!-- tables:reduce:end -->
Text after.
"""


SENTINEL = ".check_tables"


# ---- helpers ------------------------------------------------------------------

def require_lines(text, lines, what):
    have = set(text.splitlines())
    missing = [line for line in lines if line not in have]
    if missing:
        raise CheckFailed(f"{what}: missing rows:\n" + "\n".join(missing) + f"\n--- got:\n{text}")


def forbid(text, needles, what):
    found = [n for n in needles if n in text]
    if found:
        raise CheckFailed(f"{what}: should not contain {found}:\n{text}")


# ---- checks -------------------------------------------------------------------

def check_full_output(script, csv_path):
    out = run_ok(script, csv_path)
    require_lines(out, EXPECTED_ROWS, "full output")
    print("ok: full output holds the expected rows")


def check_selection(script, csv_path):
    out = run_ok(script, csv_path, "--op", "sgemm", "--sizes", "2048", "--view", "sizes")
    require_lines(out, EXPECTED_ROWS[:4], "--op sgemm --sizes 2048")
    forbid(out, ["n=1024", "reduce", "sort", "| variant | % of |"], "--op sgemm --sizes 2048")
    out = run_ok(script, csv_path, "--op", "reduce", "--view", "ladder")
    require_lines(out, ["| vec4 | thrust | 491.2 | ERROR |"], "--op reduce --view ladder")
    forbid(out, ["median ms", "sgemm"], "--op reduce --view ladder")
    # --against best: one line per variant, against the fastest library (cub)
    out = run_ok(script, csv_path, "--op", "reduce", "--view", "ladder", "--against", "best")
    require_lines(out, ["| interleaved | cub | 23.9 | 18.5 |", "| vec4 | cub | 91.7 | ERROR |"],
                  "--op reduce --view ladder --against best")
    forbid(out, ["| thrust |"], "--op reduce --view ladder --against best")
    print("ok: --op, --sizes and --view select")


def check_readme(script, csv_path, work):
    readme = readme_fixture(work, csv_path, "synthetic.csv", README)
    rc, _, err = run(script, "--readme", readme, "--check")
    if rc != 1 or "out of date" not in err:
        raise CheckFailed(f"--check on stale blocks: exit {rc}, expected 1\n{err}")
    run_ok(script, "--readme", readme)
    text = read(readme)
    ladder = run_ok(script, csv_path, "--op", "sgemm", "--view", "ladder")
    sizes = run_ok(script, csv_path, "--op", "reduce", "--view", "sizes", "--sizes", "2^24")
    if block(text, "sgemm-ladder").strip() != ladder.strip():
        raise CheckFailed(f"sgemm-ladder block differs from the printed ladder:\n{text}")
    if block(text, "reduce").strip() != sizes.strip():
        raise CheckFailed(f"reduce block differs from the printed table:\n{text}")
    kept = [line for line in README.splitlines() if line and "old text" not in line]
    require_lines(text, kept, "text outside the blocks")
    forbid(text, ["old text that must go", "2^26"], "rewritten README")
    run_ok(script, "--readme", readme)
    if read(readme) != text:
        raise CheckFailed("a second --readme run changed the file")
    run_ok(script, "--readme", readme, "--check")
    leftovers = [n for n in os.listdir(work) if n.endswith(".tmp")]
    if leftovers:
        raise CheckFailed(f"temporary files left in {work}: {leftovers}")
    with open(readme, "a", encoding="utf-8") as f:
        f.write("<!-- tables:none:begin op=nope csv=results/synthetic.csv -->\n"
                "<!-- tables:none:end -->\n")
    before = read(readme)
    rc, _, err = run(script, "--readme", readme)
    if rc != 2 or "op=nope: no row of that op" not in err or read(readme) != before:
        raise CheckFailed(f"a block of an op no CSV holds: exit {rc} (expected 2), file "
                          f"{'unchanged' if read(readme) == before else 'CHANGED'}\n{err}")
    with open(readme, "a", encoding="utf-8") as f:
        f.write("<!-- tables:broken:begin view=nope csv=results/synthetic.csv -->\n")
    before = read(readme)
    rc, _, err = run(script, "--readme", readme)
    if rc != 2 or "view=nope" not in err or read(readme) != before:
        raise CheckFailed(f"a malformed marker: exit {rc} (expected 2), file "
                          f"{'unchanged' if read(readme) == before else 'CHANGED'}\n{err}")
    print("ok: --readme rewrites the blocks, is idempotent, --check works, "
          "bad markers are refused")


def check_missing_column(script, csv_path, work):
    bad = os.path.join(work, "without_pct_of_peak.csv")
    with open(csv_path, newline="", encoding="utf-8") as f:
        rows = list(csv.reader(f))
    index = rows[0].index("pct_of_peak")
    with open(bad, "w", newline="", encoding="utf-8") as f:
        csv.writer(f).writerows([r[:index] + r[index + 1:] for r in rows])
    rc, _, err = run(script, bad)
    if rc != 2 or "pct_of_peak" not in err or bad not in err:
        raise CheckFailed(f"CSV without pct_of_peak: exit {rc} (expected 2)\n{err}")
    print(f"ok: missing column: exit 2, {err.strip()}")


def check_timing_caption(script, csv_path, work):
    out = run_ok(script, csv_path, "--op", "sgemm", "--view", "ladder")
    forbid(out, ["timing gate"], "a CSV without the timing column")
    gated = os.path.join(work, "with_timing.csv")
    with open(csv_path, newline="", encoding="utf-8") as f:
        rows = list(csv.reader(f))
    body = [r + ["gated"] for r in rows[1:]]
    body[0][-1] = "ungated"
    with open(gated, "w", newline="", encoding="utf-8") as f:
        csv.writer(f).writerows([rows[0] + ["timing"]] + body)
    out = run_ok(script, gated, "--op", "sgemm", "--view", "ladder")
    if "samples held by the timing gate (1 row without it)" not in out:
        raise CheckFailed(f"timing column gated but one row: caption does not say so:\n{out}")
    print("ok: the caption names the timing gate and the rows without it")


def main(argv):
    parser = argparse.ArgumentParser(prog="check_tables.py", description=__doc__.split("\n")[0])
    parser.add_argument("--script", required=True, help="path of plots/tables.py")
    parser.add_argument("--work", required=True,
                        help="scratch directory (recreated; must be new or made by this script)")
    parser.add_argument("--labs", action="store_true",
                        help="CSV is synthetic_labs.csv: run check_tables_labs.py's checks")
    parser.add_argument("--newop", action="store_true",
                        help="CSV is synthetic_newop.csv: run check_tables_newop.py's checks")
    parser.add_argument("csv", help="tests/data/synthetic.csv (or synthetic_labs.csv, "
                                    "synthetic_newop.csv)")
    args = parser.parse_args(argv)
    try:
        fresh_work_dir(args.work, SENTINEL)
        if args.labs:
            check_tables_labs.check_all(args.script, args.csv, args.work)
            return 0
        if args.newop:
            check_tables_newop.check_all(args.script, args.csv, args.work)
            return 0
        check_full_output(args.script, args.csv)
        check_selection(args.script, args.csv)
        check_readme(args.script, args.csv, args.work)
        check_missing_column(args.script, args.csv, args.work)
        check_timing_caption(args.script, args.csv, args.work)
    except CheckFailed as e:
        print(f"FAIL: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
