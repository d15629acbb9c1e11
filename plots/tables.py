#!/usr/bin/env python3
"""plots/tables.py: Markdown tables from the CSV files that `compare --csv` writes.

    python3 plots/tables.py CSV [CSV...] [--op sgemm] [--sizes 2048,4096] [--view ladder]
    python3 plots/tables.py --readme README.md [--check] [CSV]

Prints, per op (sort: per key type) and size, a table of every variant:
median ms, spread %, throughput, % of the reference and of the fastest
library, % of device peak, relative error, status; then a "ladder": hand
variants x sizes, each cell the variant's % of its library: the op's
reference library, except sgemm TF32 hand rows (e.g. tf32_mma), whose line
is against cublas_tf32. One block per source (device, commit, L2 flush), each
under a caption line; where several runs of one source measured the same case,
the newest run's row is shown (a note on stderr names the rows left out).

--readme FILE rewrites, in place and atomically, the text between marker lines
so that README tables are generated, never typed:

    <!-- tables:NAME:begin csv=results/h200/sgemm.csv op=sgemm view=ladder sizes=2048,4096 -->
    (generated; replaced on each run)
    <!-- tables:NAME:end -->

NAME is any [A-Za-z0-9_.-] word naming the block (begin and end must agree).
Keys: csv= one or more comma-separated paths, relative to the README's folder
(required unless a CSV is given on the command line); op= sgemm|reduce|sort
(default: all); view= all|sizes|ladder (default: all); sizes= comma-separated
n or element counts (2^26 accepted; default: all). With --check nothing is
written: exit 1 if a block is out of date.

Exit status: 0 done; 1 --check found a stale block; 2 bad usage, a bad marker,
or a CSV that cannot be read or lacks a column. Standard library only.
"""

import argparse
import os
import re
import sys

sys.dont_write_bytecode = True  # keep plots/ free of __pycache__
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import csvlib as cc  # noqa: E402

VIEWS = ("all", "sizes", "ladder")
TF32_LIBRARY = "cublas_tf32"
MARKER_PREFIX = re.compile(r"^\s*<!--\s*tables:")
BEGIN = re.compile(r"^\s*<!--\s*tables:([A-Za-z0-9_.-]+):begin((?:\s+[a-z_]+=\S+)*)\s*-->\s*$")
END = re.compile(r"^\s*<!--\s*tables:([A-Za-z0-9_.-]+):end\s*-->\s*$")


class UsageError(Exception):
    """Bad arguments or markers: exit 2."""


# ---- formatting -----------------------------------------------------------------

def fmt_fixed(value, decimals):
    return "-" if value is None else f"{value:.{decimals}f}"


def fmt_err(value):
    if value is None:
        return "-"
    return "0" if value == 0 else f"{value:.1e}"


def md_escape(text):
    return text.replace("|", "\\|").replace("\n", " ")


def md_table(header, align, rows):
    """Markdown table; align is a string of 'l'/'r', one per column."""
    lines = ["| " + " | ".join(header) + " |",
             "|" + "|".join("---:" if a == "r" else "---" for a in align) + "|"]
    lines += ["| " + " | ".join(cells) + " |" for cells in rows]
    return "\n".join(lines)


def status_cell(row):
    if row.ok or not row.cells.get("message"):
        return row.status
    return f"{row.status}: {md_escape(row.cells['message'])}"


def ladder_size_label(row):
    if row.op == "sgemm":
        m, n, k = row.size_key
        return str(n) if m == n == k else f"{m}x{n}x{k}"
    return cc.pow2_label(row.elems)


def caption(rows, source):
    """One italic line: device, software, date, commit, seed, L2 flush."""
    first = next(r for r in rows if r.source == source)
    get = first.cells.get
    parts = [cc.source_caption(rows, source)]
    details = [f"cc {get('cc')}" if get("cc") else "",
               f"driver {get('driver')}" if get("driver") else "",
               f"CUDA runtime {get('cuda_runtime')}" if get("cuda_runtime") else "",
               f"cuBLAS {get('cublas_version')}" if get("cublas_version") else "",
               f"seed {get('seed')}" if get("seed") else ""]
    if get("l2_flush") in ("0", "1"):
        details.append("L2 flushed before each sample" if get("l2_flush") == "1"
                       else "L2 not flushed")
    details = [d for d in details if d]
    if details:
        parts.append(", ".join(details))
    return "_" + "; ".join(parts) + "_"


# ---- tables -----------------------------------------------------------------------

def usual_name(rows, column):
    """The library most hand rows name in `column` (it heads the table's column)."""
    names = [r.cells[column] for r in rows if not r.is_library and r.cells[column]]
    return max(set(names), key=lambda n: (names.count(n), n)) if names else ""


def pct_cell(row, column, usual):
    """'19.0', or '57.9 (of cublas_tf32)' where the row's library is not the column's."""
    value = fmt_fixed(row.values.get(f"pct_of_{column}"), 1)
    library = row.cells[column]
    if value != "-" and library and library != usual:
        value += f" (of {library})"
    return value


def size_table(rows, series):
    """The per-size table: every variant of one series at one size."""
    info = cc.OPS[series[0]]
    ref = usual_name(rows, "ref_library")
    best = usual_name(rows, "best_library")
    header = ["variant", "median ms", "spread %", info.unit,
              f"% of {ref}" if ref else "% of ref library",
              f"% of {best}" if best else "% of best library",
              f"% of {info.peak_name}" if info.peak_name else "% of peak", "rel err", "status"]
    body = [[r.variant, cc.fmt_sig(r.time_ms_median, 4), fmt_fixed(r.spread_pct, 1),
             cc.fmt_sig(r.throughput, 3), pct_cell(r, "ref_library", ref),
             pct_cell(r, "best_library", best), fmt_fixed(r.pct_of_peak, 1),
             fmt_err(r.rel_err), status_cell(r)] for r in rows]
    return md_table(header, "lrrrrrrrl", body)


def pct_versus(row, library, case_rows):
    """row's throughput as % of `library` on the same case, or None."""
    if not row.ok:
        return None
    if row.ref_library == library and row.pct_of_ref_library is not None:
        return row.pct_of_ref_library
    if row.best_library == library and row.pct_of_best_library is not None:
        return row.pct_of_best_library
    lib = next((r for r in case_rows if r.is_library and r.variant == library and r.ok), None)
    if lib is None or not lib.time_ms_median or not row.time_ms_median:
        return None
    return lib.time_ms_median / row.time_ms_median * 100.0


def comparison_library(series, hand_rows):
    """The library a ladder line compares against: the CSV's reference library
    (the most common one), cublas_tf32 for sgemm TF32 hand rows."""
    if series[0] == "sgemm" and hand_rows[0].math == "tf32":
        return TF32_LIBRARY
    names = [r.ref_library for r in hand_rows if r.ref_library]
    return max(set(names), key=names.count) if names else ""


def ladder_table(rows, series):
    """Hand variants x sizes, cells = % of the line's library."""
    keys = sorted({r.size_key for r in rows}, key=cc.size_order)
    by_size = {k: [r for r in rows if r.size_key == k] for k in keys}
    labels = [ladder_size_label(by_size[k][0]) for k in keys]
    hand = cc.first_seen((r.variant, r.math) for r in rows if not r.is_library)
    body = []
    for variant, math_ in hand:
        mine = {r.size_key: r for r in rows if not r.is_library
                and (r.variant, r.math) == (variant, math_)}
        library = comparison_library(series, list(mine.values()))
        libraries = [library]
        # reduce and sort: a second line against the fastest library (cub);
        # sgemm's fastest library is TF32, another arithmetic than the FP32 ladder
        best = [r.best_library for r in mine.values() if r.best_library]
        if series[0] != "sgemm" and best and best[0] != library:
            libraries.append(best[0])
        plain = series[0] == "sort" or math_ in ("fp32", "f32", "") or math_ in variant
        name = variant if plain else f"{variant} ({math_})"
        for lib in libraries:
            cells = []
            for k in keys:
                row = mine.get(k)
                if row is None:
                    cells.append("-")
                elif not row.ok:
                    cells.append(row.status)
                else:
                    cells.append(fmt_fixed(pct_versus(row, lib, by_size[k]), 1))
            body.append([name, lib or "-"] + cells)
    if not body:
        return ""
    return md_table(["variant", "% of"] + labels, "ll" + "r" * len(labels), body)


def render(rows, op=None, sizes=None, view="all"):
    """Markdown for the selected rows: per source, per series, per size."""
    rows = [r for r in rows if (op is None or r.op == op)
            and (not sizes or r.size_x in sizes)]
    if not rows:
        return ""
    series_order = sorted({r.series for r in rows},
                          key=lambda s: (list(cc.OPS).index(s[0]), s[1] != "u32", s[1]))
    parts = []
    for source in sorted({r.source for r in rows}):
        mine = [r for r in rows if r.source == source]
        parts.append(caption(mine, source))
        for series in series_order:
            srows = [r for r in mine if r.series == series]
            if not srows:
                continue
            name = cc.series_label(series)
            if view in ("all", "sizes"):
                for key in sorted({r.size_key for r in srows}, key=cc.size_order):
                    at = [r for r in srows if r.size_key == key]
                    parts.append(f"**{name}, {cc.size_label(at[0])}**")
                    parts.append(size_table(at, series))
            if view in ("all", "ladder"):
                ladder = ladder_table(srows, series)
                if ladder:
                    parts.append(f"**{name}: hand kernels as % of library throughput**")
                    parts.append(ladder)
    return "\n\n".join(parts) + "\n"


# ---- README rewriting -----------------------------------------------------------

def parse_sizes(text):
    try:
        return [cc.parse_size(s) for s in re.split(r"[,\s]+", text.strip()) if s]
    except ValueError:
        raise UsageError(f"sizes: expected comma-separated integers or 2^K, got {text!r}") \
            from None


def parse_marker(readme, line_no, attributes, default_csvs):
    """The options a begin marker carries: {'csvs', 'op', 'view', 'sizes'}."""
    where = f"{readme}:{line_no}"
    options = {}
    for item in attributes.split():
        key, _, value = item.partition("=")
        if key not in ("csv", "op", "view", "sizes") or key in options:
            raise UsageError(f"{where}: unknown or repeated marker key '{key}' "
                             "(accepted: csv=, op=, view=, sizes=)")
        options[key] = value
    base = os.path.dirname(os.path.abspath(readme))
    if "csv" in options:
        csvs = [os.path.join(base, p) for p in options["csv"].split(",") if p]
    else:
        csvs = list(default_csvs)
    if not csvs:
        raise UsageError(f"{where}: the marker names no csv= and none is given on the command line")
    op = options.get("op")
    if op is not None and op not in cc.OPS:
        raise UsageError(f"{where}: op={op}: expected one of {', '.join(cc.OPS)}")
    view = options.get("view", "all")
    if view not in VIEWS:
        raise UsageError(f"{where}: view={view}: expected one of {', '.join(VIEWS)}")
    sizes = parse_sizes(options["sizes"]) if "sizes" in options else None
    return {"csvs": csvs, "op": op, "view": view, "sizes": sizes}


def find_blocks(readme, lines, default_csvs):
    """[(begin index, end index, options)] of every marker pair, in order."""
    blocks = []
    open_block = None
    for i, line in enumerate(lines):
        if not MARKER_PREFIX.match(line):
            continue
        begin, end = BEGIN.match(line), END.match(line)
        if begin:
            if open_block:
                raise UsageError(f"{readme}:{i + 1}: begin marker inside block "
                                 f"'{open_block[0]}' (opened on line {open_block[1] + 1})")
            open_block = (begin.group(1), i, parse_marker(readme, i + 1, begin.group(2),
                                                          default_csvs))
        elif end:
            if not open_block or open_block[0] != end.group(1):
                raise UsageError(f"{readme}:{i + 1}: end marker '{end.group(1)}' without "
                                 "a matching begin marker")
            blocks.append((open_block[1], i, open_block[2]))
            open_block = None
        else:
            raise UsageError(f"{readme}:{i + 1}: malformed tables marker: {line.strip()}")
    if open_block:
        raise UsageError(f"{readme}:{open_block[1] + 1}: block '{open_block[0]}' has no end marker")
    return blocks


def rewrite_readme(readme, default_csvs):
    """(old text, new text) of the README with every block regenerated."""
    try:
        with open(readme, encoding="utf-8", newline="") as f:
            old = f.read()
    except OSError as e:
        raise UsageError(f"{readme}: cannot read: {e.strerror or e}") from None
    lines = old.splitlines(keepends=True)
    newline = "\r\n" if lines and lines[0].endswith("\r\n") else "\n"
    blocks = find_blocks(readme, lines, default_csvs)
    if not blocks:
        raise UsageError(f"{readme}: no '<!-- tables:NAME:begin ... -->' marker found")
    out = []
    done = 0
    for begin, end, options in blocks:
        rows, _ = cc.read_all(options["csvs"], cc.TABLE_COLUMNS)
        rows, _ = cc.newest(rows)
        text = render(rows, options["op"], options["sizes"], options["view"])
        if not text:
            raise UsageError(f"{readme}:{begin + 1}: the block selects no row")
        out += lines[done:begin + 1]
        out.append(newline + text.replace("\n", newline) + newline)
        done = end
    out += lines[done:]
    return old, "".join(out)


def write_atomically(path, text):
    tmp = os.path.join(os.path.dirname(os.path.abspath(path)),
                       f".{os.path.basename(path)}.{os.getpid()}.tmp")
    try:
        with open(tmp, "w", encoding="utf-8", newline="") as f:
            f.write(text)
        os.chmod(tmp, os.stat(path).st_mode & 0o7777)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


# ---- main -----------------------------------------------------------------------

def parse_args(argv):
    parser = argparse.ArgumentParser(
        prog="tables.py", description="Markdown tables from compare's CSV files.")
    parser.add_argument("csv", nargs="*", metavar="CSV", help="CSV file written by compare --csv")
    parser.add_argument("--op", choices=list(cc.OPS), help="only this op (default: all)")
    parser.add_argument("--sizes", action="append", default=[], metavar="N[,N...]",
                        help="only these sizes: n for sgemm, elements for reduce/sort "
                             "(e.g. 2048,4096 or 2^24,2^26; may be repeated)")
    parser.add_argument("--view", choices=VIEWS, default="all",
                        help="per-size tables, the ladder, or both (default)")
    parser.add_argument("--readme", metavar="FILE",
                        help="rewrite the marker blocks of FILE instead of printing")
    parser.add_argument("--check", action="store_true",
                        help="with --readme: write nothing, exit 1 if a block is stale")
    args = parser.parse_args(argv)
    if args.check and not args.readme:
        parser.error("--check needs --readme")
    if not args.readme and not args.csv:
        parser.error("give a CSV file (or --readme FILE)")
    if args.readme and (args.op or args.sizes or args.view != "all"):
        parser.error("with --readme, --op/--sizes/--view go in the markers (op=, sizes=, view=)")
    try:
        args.sizes = parse_sizes(",".join(args.sizes)) if args.sizes else None
    except UsageError as e:
        parser.error(f"--{e}")
    return args


def main(argv):
    args = parse_args(argv)
    try:
        if args.readme:
            old, new = rewrite_readme(args.readme, args.csv)
            if args.check:
                if old != new:
                    print(f"tables.py: {args.readme}: tables are out of date "
                          f"(run: python3 plots/tables.py --readme {args.readme})",
                          file=sys.stderr)
                    return 1
                print(f"{args.readme}: tables up to date")
            elif old != new:
                write_atomically(args.readme, new)
                print(f"rewrote {args.readme}")
            else:
                print(f"{args.readme}: tables already up to date")
            return 0
        rows, notes = cc.read_all(args.csv, cc.TABLE_COLUMNS)
        rows, left_out = cc.newest(rows)
        notes += left_out
        for line in notes:
            print(line, file=sys.stderr)
        text = render(rows, args.op, args.sizes, args.view)
        if not text:
            raise UsageError("no row matches the selection")
        sys.stdout.write(text)
        return 0
    except (cc.CsvError, UsageError) as e:
        print(f"tables.py: error: {e}", file=sys.stderr)
        return 2
    except OSError as e:
        print(f"tables.py: error: {e}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
