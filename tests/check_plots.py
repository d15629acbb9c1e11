#!/usr/bin/env python3
"""tests/check_plots.py: ctest driver for plots/plot.py (label cpu).

    check_plots.py plot --script plots/plot.py --out DIR [--expect STEM]...
                        [--skipped N] [--note TEXT]... [--footnote STEM=TEXT]...
                        CSV [CSV...]
        Runs plot.py on the CSVs into DIR (emptied of earlier charts first),
        requires exit 0, then checks that each expected chart exists as a
        valid PNG (signature, IHDR with a non-zero size, IEND) and a valid SVG
        (XML with an <svg> root) whose Source metadata names the CSV(s) it
        was drawn from (among those given), that nothing else (no temporary
        file) is left in DIR and, with --skipped, that the printed note
        counts N rows whose status is not ok; each --note TEXT is printed.
        Each --footnote: chart STEM's SVG holds the fallback footnote (the
        element id fallback-footnote) and plot.py printed it ("note: STEM:
        * TEXT"); with --footnote given, no other chart may hold one. Without --expect the expected charts are derived
        from the CSVs: per op and file, <op>_throughput for an ok row and
        <op>_pct_of_library for an ok hand row carrying a percent, named
        <op>_shapes_... when a matrix size of that op in that file is not
        square or its shape strings vary in more than one axis (a list of
        shapes, not a sweep); roofline if an ok row has FLOPs and bytes. No
        op is named here: a CSV of any op is checked alike.

    check_plots.py missing-column --script plots/plot.py --work DIR
                                  --column NAME [--column NAME ...] CSV
        For each NAME, writes a copy of CSV without that column and requires
        plot.py to exit 2 with a message naming the file and the column; also
        requires exit 2 and the file's name for a CSV that does not exist.

When matplotlib cannot be imported (configure could not make the venv, e.g.
offline: --why says what it reported), both print SKIPPED and the reason and
exit 77 (ctest: skipped); with COMPARE_REQUIRE_PLOTS=1 in the environment (CI)
they fail instead (exit 1).
"""

import argparse
import csv
import importlib
import os
import struct
import subprocess
import sys
import xml.etree.ElementTree as ET

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
CHART_SUFFIXES = (".png", ".svg", ".tmp")
SKIP_EXIT = 77  # the tests' SKIP_RETURN_CODE


class CheckFailed(Exception):
    """A check that did not hold: the message says which."""


# ---- helpers ------------------------------------------------------------------

class Skipped(Exception):
    """The test cannot run here: the message says why and how to fix it."""


def require_matplotlib(why):
    try:
        importlib.import_module("matplotlib")
    except ImportError as e:
        text = (f"matplotlib is not importable by {sys.executable} ({e})"
                + (f"; configure said: {why}" if why else
                   "; re-run the configure step (it makes build/venv from "
                   "plots/requirements.txt) or pip install -r plots/requirements.txt"))
        if os.environ.get("COMPARE_REQUIRE_PLOTS") == "1":
            raise CheckFailed(f"{text} (COMPARE_REQUIRE_PLOTS=1: a failure, not a skip)") \
                from None
        raise Skipped(text) from None


def run(cmd):
    result = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    return result.returncode, result.stdout, result.stderr


def check_png(path):
    with open(path, "rb") as f:
        data = f.read()
    if data[:8] != PNG_SIGNATURE:
        raise CheckFailed(f"{path}: no PNG signature")
    length, kind = struct.unpack(">I4s", data[8:16])
    if kind != b"IHDR" or length != 13:
        raise CheckFailed(f"{path}: first chunk is not a 13-byte IHDR")
    width, height = struct.unpack(">II", data[16:24])
    if width == 0 or height == 0:
        raise CheckFailed(f"{path}: IHDR size {width}x{height}")
    if data[-12:-8] != b"\x00\x00\x00\x00" or data[-8:-4] != b"IEND":
        raise CheckFailed(f"{path}: does not end with an IEND chunk (truncated?)")


def check_svg(path):
    try:
        root = ET.parse(path).getroot()
    except ET.ParseError as e:
        raise CheckFailed(f"{path}: not well-formed XML: {e}") from None
    if root.tag not in ("svg", "{http://www.w3.org/2000/svg}svg"):
        raise CheckFailed(f"{path}: root element is <{root.tag}>, not <svg>")


def empty_chart_dir(path):
    """Create `path`, or empty it of earlier charts; refuse to touch anything else."""
    os.makedirs(path, exist_ok=True)
    for name in os.listdir(path):
        if not name.endswith(CHART_SUFFIXES):
            raise CheckFailed(f"{path}: holds {name!r}, not a chart: refusing to reuse it")
        os.unlink(os.path.join(path, name))


LEGACY_AXES = ("m", "n", "k", "elems")


def shape_axes(row):
    """The shape column's axes as (name, value) pairs, [] where it is absent."""
    text = (row.get("shape") or "").strip()
    return [tuple(p.strip() for p in item.partition("=")[::2])
            for item in text.split(",") if item.strip()] if text else []


def by_shape(row):
    names = [n for n, _ in shape_axes(row)]
    return bool(names) and (any(n not in LEGACY_AXES for n in names)
                            or not any(row.get(c) for c in LEGACY_AXES)
                            or (not row.get("elems") and not (row.get("m") and row.get("n"))))


def is_shape_list(rows):
    """One op's rows of one file: a list of shapes (a matrix size not square,
    or not exactly one axis of the shape strings varying), not a sweep."""
    matrix = [r for r in rows if not by_shape(r) and r["m"] and r["n"]]
    if any(len({r[d] for d in ("m", "n", "k") if r[d]}) > 1 for r in matrix):
        return True
    values = {}
    for row in (r for r in rows if by_shape(r)):
        for name, value in shape_axes(row):
            values.setdefault(name, set()).add(value)
    varying = [v for v in values.values() if len(v) > 1]
    return bool(values) and (len(varying) != 1 or not all(x.isdigit() for x in varying[0]))


def expected_stems(csv_paths):
    """The charts plot.py must write for these CSVs (see the module comment)."""
    stems = set()
    for path in csv_paths:
        with open(path, newline="", encoding="utf-8") as f:
            rows = list(csv.DictReader(f))
        ops = {r["op"] for r in rows}
        shaped = {op for op in ops if is_shape_list([r for r in rows if r["op"] == op])}
        for row in rows:
            if row["status"] != "ok":
                continue
            op = row["op"] + ("_shapes" if row["op"] in shaped else "")
            stems.add(f"{op}_throughput")
            has_pct = row["pct_of_ref_library"] or row["pct_of_best_library"]
            if row["library"] == "0" and has_pct:
                stems.add(f"{op}_pct_of_library")
            if row["flops"] and row["bytes"] and float(row["flops"]) and float(row["bytes"]):
                stems.add("roofline")
    return sorted(stems)


DC_SOURCE = "{http://purl.org/dc/elements/1.1/}source"


def check_source(svg, csv_paths):
    """The chart names the CSV file(s) it was drawn from: its SVG's Source
    metadata (which the caption under the title repeats) lists some of the
    CSVs given, and no other file."""
    sources = [e.text or "" for e in ET.parse(svg).getroot().iter(DC_SOURCE)]
    named = [p.strip() for text in sources for p in text.split(", ") if p.strip()]
    if not named:
        raise CheckFailed(f"{svg}: no Source metadata naming the CSV it was drawn from")
    strangers = [p for p in named if p not in csv_paths]
    if strangers:
        raise CheckFailed(f"{svg}: Source names {', '.join(strangers)}, not a CSV given "
                          f"({', '.join(csv_paths)})")


def check_footnotes(out_dir, stdout, stems, footnotes):
    """The fallback footnote is on the charts named by --footnote and on no other."""
    wanted = {}
    for item in footnotes:
        stem, _, text = item.partition("=")
        wanted.setdefault(stem, []).append(text)
    for stem in stems:
        svg = os.path.join(out_dir, f"{stem}.svg")
        ids = {e.get("id") for e in ET.parse(svg).getroot().iter()}
        has = "fallback-footnote" in ids
        if has != (stem in wanted):
            raise CheckFailed(f"{svg}: fallback footnote {'present' if has else 'missing'} "
                              f"(expected {'one' if stem in wanted else 'none'})")
        for text in wanted.get(stem, []):
            if f"note: {stem}: * {text}" not in stdout:
                raise CheckFailed(f"plot.py did not print the footnote of {stem}: "
                                  f"'* {text}'\nstdout:\n{stdout}")
    missing = sorted(set(wanted) - set(stems))
    if missing:
        raise CheckFailed(f"--footnote names charts not expected: {', '.join(missing)}")


# ---- commands -------------------------------------------------------------------

def cmd_plot(args):
    require_matplotlib(args.why)
    empty_chart_dir(args.out)
    rc, out, err = run([sys.executable, args.script, "--out", args.out] + args.csv)
    if rc != 0:
        raise CheckFailed(f"plot.py exited {rc}\nstdout:\n{out}\nstderr:\n{err}")
    stems = args.expect or expected_stems(args.csv)
    if not stems:
        raise CheckFailed("no chart expected from these CSVs: nothing was tested")
    wanted = {f"{s}.{ext}" for s in stems for ext in ("png", "svg")}
    present = set(os.listdir(args.out))
    missing = sorted(wanted - present)
    if missing:
        raise CheckFailed(f"missing in {args.out}: {', '.join(missing)}\nstdout:\n{out}")
    extra = sorted(present - wanted)
    if extra:
        raise CheckFailed(f"unexpected files in {args.out}: {', '.join(extra)}")
    for name in sorted(wanted):
        path = os.path.join(args.out, name)
        check_png(path) if name.endswith(".png") else check_svg(path)
        if name.endswith(".svg"):
            check_source(path, args.csv)
    if args.skipped is not None:
        note = f"skipped {args.skipped} row(s) whose status is not ok"
        if note not in out:
            raise CheckFailed(f"expected the note '{note}' in plot.py's output:\n{out}")
    for note in args.note:
        if note not in out:
            raise CheckFailed(f"expected '{note}' in plot.py's output:\n{out}")
    if args.footnote:
        check_footnotes(args.out, out, stems, args.footnote)
        print(f"ok: the fallback footnotes are on {len(args.footnote)} chart(s) and no other")
    print(f"ok: {len(wanted)} valid charts in {args.out}")


def without_column(src, dst, column):
    with open(src, newline="", encoding="utf-8") as f:
        rows = list(csv.reader(f))
    if column not in rows[0]:
        raise CheckFailed(f"{src} has no column {column!r} to remove")
    index = rows[0].index(column)
    with open(dst, "w", newline="", encoding="utf-8") as f:
        csv.writer(f).writerows([r[:index] + r[index + 1:] for r in rows])


def expect_exit_2(cmd, needles, what):
    rc, out, err = run(cmd)
    if rc != 2 or "Traceback" in err:
        raise CheckFailed(f"{what}: exit status {rc}, expected 2 and a message (no traceback)"
                          f"\nstdout:\n{out}\nstderr:\n{err}")
    for needle in needles:
        if needle not in err:
            raise CheckFailed(f"{what}: the error message does not name {needle!r}:\n{err}")
    print(f"ok: {what}: exit 2, {err.strip()}")


def cmd_missing_column(args):
    require_matplotlib(args.why)
    os.makedirs(args.work, exist_ok=True)
    out_dir = os.path.join(args.work, "charts")
    for column in args.column:
        bad = os.path.join(args.work, f"without_{column}.csv")
        without_column(args.csv, bad, column)
        empty_chart_dir(out_dir)
        expect_exit_2([sys.executable, args.script, "--out", out_dir, bad],
                      [bad, column], f"CSV without '{column}'")
        if os.listdir(out_dir):
            raise CheckFailed(f"plot.py wrote charts for a bad CSV: {os.listdir(out_dir)}")
    absent = os.path.join(args.work, "does_not_exist.csv")
    expect_exit_2([sys.executable, args.script, "--out", out_dir, absent],
                  [absent], "CSV that does not exist")


def parse_args(argv):
    parser = argparse.ArgumentParser(prog="check_plots.py", description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    plot = sub.add_parser("plot", help="run plot.py and validate its charts")
    plot.add_argument("--script", required=True, help="path of plots/plot.py")
    plot.add_argument("--why", default="", help="why configure found no python with matplotlib")
    plot.add_argument("--out", required=True, help="chart directory (emptied first)")
    plot.add_argument("--expect", action="append", default=[], metavar="STEM",
                      help="a chart expected, without extension; repeat for each "
                           "(default: derived from the CSVs)")
    plot.add_argument("--skipped", type=int, help="rows whose status is not ok, as noted")
    plot.add_argument("--note", action="append", default=[], metavar="TEXT",
                      help="plot.py prints TEXT (a footnote line, say); repeat for each")
    plot.add_argument("--footnote", action="append", default=[], metavar="STEM=TEXT",
                      help="chart STEM carries the fallback footnote '* TEXT' (repeat)")
    plot.add_argument("csv", nargs="+")
    missing = sub.add_parser("missing-column", help="bad CSVs must exit 2 with a clear message")
    missing.add_argument("--script", required=True, help="path of plots/plot.py")
    missing.add_argument("--why", default="", help="why configure found no python with matplotlib")
    missing.add_argument("--work", required=True, help="scratch directory")
    missing.add_argument("--column", action="append", required=True, help="column to remove")
    missing.add_argument("csv")
    return parser.parse_args(argv)


def main(argv):
    args = parse_args(argv)
    try:
        if args.command == "plot":
            cmd_plot(args)
        else:
            cmd_missing_column(args)
    except CheckFailed as e:
        print(f"FAIL: {e}", file=sys.stderr)
        return 1
    except Skipped as e:
        print(f"SKIPPED: {e}")
        return SKIP_EXIT
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
