#!/usr/bin/env python3
"""plots/compare_csv.py: tools on the CSV files that `compare --csv FILE` writes.

    python3 plots/compare_csv.py diff OLD.csv NEW.csv [--threshold PCT]

diff: a regression check between two runs (two commits, two days). Rows are
matched by (device, op, variant, math, m, n, k, elems, l2_flush); where a file
holds several runs of one case, its newest run's row is used. For each hand
row ok in both files it prints the old and new % of the reference library
(pct_of_ref_library: the library's time over the hand kernel's, measured in
the same run), the change, and the old and new median times, worst change
first. The change is relative: new % / old % - 1, so a run on a warmer or
cooler day, whose library and hand times moved together, shows no change.
Rows whose status is not ok in either file, or whose reference library
differs, are listed and never compared; then the library rows (their times,
for context), and the rows found in only one file.

Exit status: 0 no hand variant lost more than the threshold (default 3%) of
its % of library; 1 at least one did (the summary names them); 2 bad usage or
a file that cannot be read or lacks a column. Standard library only.
"""

import argparse
import os
import sys

sys.dont_write_bytecode = True  # keep plots/ free of __pycache__
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import csvlib as cc  # noqa: E402

DEFAULT_THRESHOLD = 3.0
EPSILON = 1e-9  # a loss of exactly the threshold is within it, despite rounding


# ---- matching -------------------------------------------------------------------

def load(path):
    """{case: row} of one file (the newest run of each case) and notes."""
    rows, notes = cc.read_all([path], cc.DIFF_COLUMNS)
    rows, left_out = cc.newest(rows, same_commit=False)
    return {row.case: row for row in rows}, notes + left_out


def describe(path, rows):
    """'a.csv: 39 row(s); NVIDIA H200; commit 2971c2d; 2026-11-30T02:06:49Z'."""
    def joined(values):
        return ", ".join(sorted(v for v in set(values) if v)) or "-"
    return (f"{path}: {len(rows)} row(s); {joined(r.device for r in rows)}; "
            f"commit {joined(r.git_commit for r in rows)}; {joined(r.timestamp for r in rows)}")


def not_comparable(old, new):
    """Why a pair of matched hand rows is not compared, or "" when it is."""
    if not old.ok or not new.ok:
        return f"status {old.status or '(empty)'} -> {new.status or '(empty)'}"
    old_ref, new_ref = old.cells.get("ref_library", ""), new.cells.get("ref_library", "")
    if old_ref and new_ref and old_ref != new_ref:
        return f"reference library changed: {old_ref} -> {new_ref}"
    if not old.pct_of_ref_library or new.pct_of_ref_library is None:
        return "no % of library"
    return ""


def relative_change(old_value, new_value):
    """new / old - 1, in percent (None if old is not positive or either is missing)."""
    if old_value is None or new_value is None or old_value <= 0:
        return None
    return (new_value / old_value - 1.0) * 100.0


# ---- printing -------------------------------------------------------------------

def signed(value):
    return "-" if value is None else f"{value:+.1f}"


def is_number(text):
    try:
        float(text)
    except ValueError:
        return text == "-"
    return True


def text_table(header, rows):
    """Columns padded to their widest cell; columns of numbers right-aligned."""
    widths = [max(len(c) for c in column) for column in zip(header, *rows)]
    numeric = [all(is_number(c) for c in column) for column in zip(*rows)]
    lines = []
    for cells in [header] + rows:
        lines.append("  ".join(c.rjust(w) if right else c.ljust(w)
                               for c, w, right in zip(cells, widths, numeric)).rstrip())
    return "\n".join(lines)


def case_cells(row, show_device, show_flush, show_gpu=False):
    cells = [row.device] if show_device else []
    cells += [row.cells.get("gpu", "")] if show_gpu else []
    cells += [cc.series_label(row.series), cc.size_label(row), row.variant, row.math]
    if show_flush:
        cells.append(cc.flush_label(row.cells["l2_flush"]))
    return cells


def case_header(show_device, show_flush, show_gpu=False):
    return (["device"] if show_device else []) + (["gpu"] if show_gpu else []) + \
        ["op", "size", "variant", "math"] + (["L2"] if show_flush else [])


def case_name(row):
    """'tiled32 (sgemm n=2048)', 'radix (sort u32 2^20 elements)',
    'fast (histogram u8 skewed 2^26 elements, node1 GPU 1)'."""
    plain = row.math in ("fp32", "") or row.math in row.variant or row.math in row.series
    math = "" if plain else f" {row.math}"
    gpu = row.cells.get("gpu", "")
    gpu = f", {gpu}" if gpu else ""
    return f"{row.variant} ({cc.series_label(row.series)}{math} {cc.size_label(row)}{gpu})"


# ---- diff -----------------------------------------------------------------------

def verdict(change, threshold):
    if -change > threshold + EPSILON:
        return "REGRESSION"
    return "faster" if change > threshold + EPSILON else ""


def why_it_moved(old, new, threshold):
    """' (library faster; own time +0.6%)' where a hand row's % fell while its
    own median time held within the threshold: the reference got faster (or the
    clocks rose for it alone), the kernel did not get slower."""
    own = relative_change(old.time_ms_median, new.time_ms_median)
    if own is None or own > threshold + EPSILON:
        return ""
    return f" (library faster; own time {signed(own)}%)"


def match(old, new):
    """The matched cases sorted out: ([(old, new, change)] of the compared hand
    rows, worst first; [(old, new, why)] of those not compared; [(old, new)] of
    the library rows)."""
    compared, skipped, libraries = [], [], []
    for key in (k for k in old if k in new):
        o, n = old[key], new[key]
        if o.is_library or n.is_library:
            libraries.append((o, n))
            continue
        why = not_comparable(o, n)
        if why:
            skipped.append((o, n, why))
        else:
            compared.append((o, n, relative_change(o.pct_of_ref_library, n.pct_of_ref_library)))
    compared.sort(key=lambda item: (item[2], item[0].op, item[0].variant,
                                    cc.size_order(item[0].size_key)))
    return compared, skipped, libraries


def diff(args):
    old, old_notes = load(args.old)
    new, new_notes = load(args.new)
    compared, skipped, libraries = match(old, new)
    everything = list(old.values()) + list(new.values())
    show_device = len({r.device for r in everything}) > 1
    show_flush = len({r.cells["l2_flush"] for r in everything}) > 1
    show_gpu = any(r.cells.get("gpu") for r in everything)
    head = case_header(show_device, show_flush, show_gpu)

    def cells(row):
        return case_cells(row, show_device, show_flush, show_gpu)

    print(f"OLD {describe(args.old, list(old.values()))}")
    print(f"NEW {describe(args.new, list(new.values()))}")
    for line in old_notes + new_notes:
        print(line)

    print(f"\nhand rows, % of the reference library, worst change first "
          f"(change = new % / old % - 1; threshold {args.threshold:g}%):")
    body = [cells(o) + [o.cells.get("ref_library", "") or "-", f"{o.pct_of_ref_library:.1f}",
                        f"{n.pct_of_ref_library:.1f}", signed(change),
                        cc.fmt_sig(o.time_ms_median, 4), cc.fmt_sig(n.time_ms_median, 4),
                        verdict(change, args.threshold)
                        + (why_it_moved(o, n, args.threshold)
                           if verdict(change, args.threshold) == "REGRESSION" else "")]
            for o, n, change in compared]
    print(text_table(head + ["% of", "old %", "new %", "change %", "old ms", "new ms", ""],
                     body) if body else "(none)")
    if skipped:
        print("\nnot compared:")
        print(text_table(head + ["why"], [cells(o) + [why] for o, _, why in skipped]))
    if libraries:
        print("\nlibrary rows (the references, not judged): median time")
        print(text_table(head + ["old ms", "new ms", "change %", "status"],
                         [cells(o) + [cc.fmt_sig(o.time_ms_median, 4),
                                      cc.fmt_sig(n.time_ms_median, 4),
                                      signed(relative_change(o.time_ms_median,
                                                             n.time_ms_median)),
                                      f"{o.status} -> {n.status}"] for o, n in libraries]))
    for title, mine, other in (("only in OLD", old, new), ("only in NEW", new, old)):
        alone = [row for key, row in mine.items() if key not in other]
        if alone:
            print(f"\n{title}:")
            print(text_table(head + ["library", "status"],
                             [cells(r) + ["yes" if r.is_library else "no", r.status]
                              for r in alone]))

    print()
    if not (compared or skipped or libraries):
        print("note: no row of OLD matches a row of NEW (device, op, variant, math, "
              "size and L2 flush): nothing was compared")
    lost = [(o, change) for o, _, change in compared
            if verdict(change, args.threshold) == "REGRESSION"]
    if lost:
        names = "; ".join(f"{case_name(o)} {change:+.1f}%" for o, change in lost)
        print(f"REGRESSION: {len(lost)} of {len(compared)} hand row(s) lost more than "
              f"{args.threshold:g}% of their % of library: {names}")
        return 1
    print(f"ok: none of {len(compared)} hand row(s) lost more than {args.threshold:g}% "
          "of its % of library")
    return 0


# ---- main -----------------------------------------------------------------------

def parse_args(argv):
    parser = argparse.ArgumentParser(
        prog="compare_csv.py", description="Tools on compare's CSV files.")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    d = sub.add_parser("diff", help="regressions of hand kernels between two runs",
                       description="Compare two CSV files row by row; exit 1 when a hand "
                                   "variant lost more than the threshold of its % of library.")
    d.add_argument("old", metavar="OLD.csv", help="the earlier run (the baseline)")
    d.add_argument("new", metavar="NEW.csv", help="the later run")
    d.add_argument("--threshold", type=float, default=DEFAULT_THRESHOLD, metavar="PCT",
                   help="relative loss of %% of library that counts as a regression "
                        "(default: %(default)g)")
    args = parser.parse_args(argv)
    if not args.threshold >= 0:
        parser.error(f"--threshold: expected a percentage >= 0, got {args.threshold:g}")
    return args


def main(argv):
    args = parse_args(argv)
    try:
        return diff(args)
    except cc.CsvError as e:
        print(f"compare_csv.py: error: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
