#!/usr/bin/env python3
"""plots/tables.py: Markdown tables from the CSV files that `compare --csv` writes.

    python3 plots/tables.py CSV [CSV...] [--op sgemm] [--sizes 2048,4096] [--view ladder]
    python3 plots/tables.py results/h200/shapes_llm.csv --op sgemm --view shapes
    python3 plots/tables.py --readme README.md [--check] [CSV]

Ops: any op the CSV holds; what a table needs of it (unit, %peak ceiling,
series) is read from its rows (plots/csvlib.py), so a new op's CSV is
tabled without a change here.
Series: one set of tables per op, and per key or element type and input
distribution where one variant ran several (sort, scan, histogram):
"histogram u8 skewed"; in the order the CSV shows them.
Views (--view, or view= in a marker):
  sizes   per series and size, a table of every variant: median ms, spread %,
          throughput, % of the reference and of the fastest library (one
          column where they are the same library: transpose, histogram,
          transfer), % of device peak, relative error, status
  ladder  hand variants x sizes, each cell the variant's % of its library:
          the rows' reference library (a library of the hand rows' own math,
          e.g. cublas_tf32 for TF32 rows); a second line against the fastest
          library where it differs and computes in the same math (reduce,
          sort, scan: cub)
  all     sizes, then ladder (the default)
  shapes  sizes (rows, in CSV order) x variants: each library's throughput,
          then each hand variant's % of its library: the view for a list of
          GEMM shapes (results/h200/shapes_llm.csv)
Sizes: rows with m and n (sgemm; transpose) read "4096x14336x4096" (MxNxK;
MxN) where the dimensions differ, n where square; rows sized by a shape
string (the CSV's shape column, axes other than m, n, k, elems) read it,
"b=4,h=32,sq=4096"; the others "2^26". --sizes and sizes= take n, MxNxK /
MxN, element counts (2^26 accepted), a shape sweep's axis value, or axes a
shape must have ("sq=4096", several separated by ';').
Fallbacks: a row whose kernel_note is not empty ran another kernel than its
variant's own: its figure is marked " *" (the status in a size table; in the
shapes view the cell says "(ran KERNEL)"), and a list under the table says
"* VARIANT at SIZE ran KERNEL: NOTE". Speed-up pairs: under each size table
and as a ladder line, how many times faster a variant ran than another (the
baseline's median time over the variant's): the pair comes from the CSV's
speedup_vs column (on the variant's rows, the baseline's name) or, for CSVs
without it, from --speedup VARIANT:BASELINE / speedup= (transfer: the README
asks for overlap:pinned). cpu_omp rows (the host, OpenMP) are hand rows like any other; a
plugin's variant carries its file's name.
One block per source (device, commit, L2 flush), each under a caption line;
where several runs of one source measured the same case, the newest run's row
is shown (a note on stderr names the rows left out). CSVs from before the
kernel, dist, clock and host columns are read as they are; unknown columns
are ignored; a missing required column is an error naming it.

--readme FILE rewrites, in place and atomically, the text between marker lines
so that README tables are generated, never typed:

    <!-- tables:NAME:begin csv=results/h200/sgemm.csv op=sgemm view=ladder sizes=2048,4096 -->
    (generated; replaced on each run)
    <!-- tables:NAME:end -->

NAME is any [A-Za-z0-9_.-] word naming the block (begin and end must agree).
Keys: csv= one or more comma-separated paths, relative to the README's folder
(required unless a CSV is given on the command line); op= an op the CSVs hold
(default: all; one they do not hold stops the run with exit 2); view=
all|sizes|ladder|shapes (default: all); sizes= sizes as for --sizes
(default: all); series= the series to show, by their labels with '+' for
a space, several separated by ';' (softmax+bf16+uniform; default: all);
against= ref|best: the ladder's lines (ref, the default: against the
reference library, plus a line against the fastest where it differs; best:
one line per variant, each cell against its size's fastest library, named
in the cell where it is not the line's);
speedup= VARIANT:BASELINE[,...] as for --speedup; plot=
an image (path relative to the README's folder, drawn by plots/plot.py): the
block is then that picture and a caption naming the csv= file(s) and their
device, date and commit; refused (exit 2) when the image is absent or was
drawn (its PNG Source metadata) from other CSVs than csv= names.
With --check nothing is written: exit 1 if a block is out of date. A block
whose csv= does not exist (yet) stops the run with exit 2, naming the block
and the file, and nothing is written.

Exit status: 0 done; 1 --check found a stale block; 2 bad usage, a bad marker,
an absent CSV, or a CSV that cannot be read or lacks a column. Standard
library only.
"""

import argparse
import os
import re
import sys

sys.dont_write_bytecode = True  # keep plots/ free of __pycache__
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import csvlib as cc  # noqa: E402

VIEWS = ("all", "sizes", "ladder", "shapes")
MARKER_KEYS = ("csv", "op", "view", "sizes", "speedup", "plot", "series", "against")
AGAINST = ("ref", "best")
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
FALLBACK_MARK = " *"  # after a figure whose row ran another kernel (notes under the table)
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
        return row.status + (FALLBACK_MARK if row.fallback else "")
    return f"{row.status}: {md_escape(row.cells['message'])}"


def variant_cell(row):
    """The variant's name; a plugin's variant says which file it came from."""
    source = row.cells["source"]
    return row.variant if source in ("", "builtin") else f"{row.variant} ({md_escape(source)})"


def notes_list(rows):
    """The fallback notes of these rows as a Markdown list ("" if none)."""
    return "\n".join(f"* {md_escape(line)}" for line in cc.fallback_notes(rows))


def speedup_line(rows):
    """'overlap: 1.42x the speed of pinned (median time ratio)' or ""."""
    found = cc.speedup(rows)
    if not found:
        return ""
    variant, baseline, ratio = found
    return f"{variant}: {ratio:.2f}x the speed of {baseline} (median time ratio)"


def caption(rows, source):
    """One italic line: device, software, date, commit, seed, L2 flush, interleaving."""
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
    if get("interleave") == "1":
        details.append("variants timed interleaved")
    timing = [r.cells.get("timing", "") for r in rows if r.source == source]
    if "gated" in timing:
        ungated = timing.count("ungated")
        details.append("samples held by the timing gate" +
                       (f" ({ungated} row{'s' if ungated != 1 else ''} without it)" if ungated else ""))
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
    """The per-size table: every variant of one series at one size (one
    percent column where the reference is also the fastest library)."""
    info = rows[0].info
    ref = usual_name(rows, "ref_library")
    best = usual_name(rows, "best_library")
    one = ref and all(r.cells["best_library"] == r.cells["ref_library"] for r in rows)
    header = ["variant", "median ms", "spread %", info.unit,
              f"% of {ref}" if ref else "% of ref library",
              f"% of {best}" if best else "% of best library",
              f"% of {info.peak_name}" if info.peak_name else "% of peak", "rel err", "status"]
    body = [[variant_cell(r), cc.fmt_sig(r.time_ms_median, 4), fmt_fixed(r.spread_pct, 1),
             cc.fmt_sig(r.throughput, 3), pct_cell(r, "ref_library", ref),
             pct_cell(r, "best_library", best), fmt_fixed(r.pct_of_peak, 1),
             fmt_err(r.rel_err), status_cell(r)] for r in rows]
    align = "lrrrrrrrl"
    if one:
        header, align = header[:5] + header[6:], align[:5] + align[6:]
        body = [cells[:5] + cells[6:] for cells in body]
    parts = [md_table(header, align, body), speedup_line(rows), notes_list(rows)]
    return "\n\n".join(p for p in parts if p)


def hand_variants(rows, series):
    """[(name, {size key: row})] of the hand variants, in CSV order; the name
    carries the math where neither the series nor the variant says it."""
    out = []
    for variant, math_ in cc.first_seen((r.variant, r.math) for r in rows if not r.is_library):
        mine = {r.size_key: r for r in rows if not r.is_library
                and (r.variant, r.math) == (variant, math_)}
        first = next(iter(mine.values()))
        plain = "math" in first.info.split_by or math_ in cc.PLAIN_MATHS or math_ in variant
        name = variant_cell(first) if plain else f"{variant_cell(first)} ({math_})"
        out.append((name, mine))
    return out


def pct_figure(row, library, case_rows, fallback):
    """A hand row's cell: its % of `library`, its status when not ok, with the
    fallback(row) mark when it ran another kernel."""
    if not row.ok:
        return row.status
    text = fmt_fixed(cc.pct_versus(row, library, case_rows), 1)
    return text + fallback(row) if row.fallback else text


def ladder_table(rows, series, against="ref"):
    """Hand variants x sizes, cells = % of the line's library; under it the
    op's speed-up line (transfer: overlap vs pinned), then the fallback notes.
    against="best": one line per variant against each size's fastest library."""
    keys = cc.sizes_in_order(rows)
    by_size = {k: [r for r in rows if r.size_key == k] for k in keys}
    labels = [cc.size_short(by_size[k][0]) for k in keys]
    body = []
    maths = cc.library_maths(rows)
    for name, mine in hand_variants(rows, series):
        library = cc.comparison_library(list(mine.values()), rows)
        libraries = [library]
        # a second line against the fastest library where it differs (reduce,
        # sort: cub) and computes in the hand rows' math (not the FP32 GEMM
        # ladder against a TF32 library: another arithmetic)
        best = [r.best_library for r in mine.values() if r.best_library]
        math_ = next(iter(mine.values())).math
        if against == "best" and best:
            libraries = [min(best, key=lambda b: (-best.count(b), best.index(b)))]  # the most frequent, first seen
        elif best and best[0] != library and maths.get(best[0], math_) == math_:
            libraries.append(best[0])
        for i, lib in enumerate(libraries):
            # the fastest library can differ from size to size (sort: cub or
            # cub_i32): each cell is against its own size's fastest, named
            # where it is not the line's
            own = (i > 0 and len({r.best_library for r in mine.values() if r.best_library}) > 1) or \
                (against == "best" and bool(best))
            cells = [("-" if k not in mine
                      else pct_figure(mine[k], mine[k].best_library, by_size[k], lambda r: FALLBACK_MARK)
                      + (f" (of {mine[k].best_library})" if mine[k].best_library != lib and mine[k].ok else "")
                      if own else pct_figure(mine[k], lib, by_size[k], lambda r: FALLBACK_MARK)
                      if k in mine else "-") for k in keys]
            body.append([name, lib or "-"] + cells)
    if not body:
        return ""
    pair = rows[0].info.speedup
    ratios = [cc.speedup(by_size[k]) for k in keys]
    if pair and any(ratios):
        body.append([pair[0], f"speed-up vs {pair[1]}"]
                    + [f"{r[2]:.2f}x" if r else "-" for r in ratios])
    table = md_table(["variant", "% of"] + labels, "ll" + "r" * len(labels), body)
    notes = notes_list(rows)
    return table + ("\n\n" + notes if notes else "")


def shapes_table(rows, series):
    """Sizes (in CSV order) x variants: each library's throughput, then each
    hand variant's % of its library; a cell whose row ran another kernel names
    it, "(ran tf32_mma)", and the notes under the table say why. Returns
    (the line saying which library each percent is of, the table)."""
    info = rows[0].info
    keys = cc.first_seen(r.size_key for r in rows)
    by_size = {k: [r for r in rows if r.size_key == k] for k in keys}
    libraries = cc.first_seen(r.variant for r in rows if r.is_library)
    hand = hand_variants(rows, series)
    against = [(name, cc.comparison_library(list(mine.values()), rows)) for name, mine in hand]
    header = [size_word(by_size[keys[0]][0])]
    header += [f"{lib} {info.unit}" for lib in libraries] + [name for name, _ in hand]
    body = []
    for k in keys:
        cells = [cc.size_short(by_size[k][0])]
        for lib in libraries:
            row = next((r for r in by_size[k] if r.is_library and r.variant == lib), None)
            cells.append("-" if row is None else
                         cc.fmt_sig(row.throughput, 3) if row.ok else row.status)
        for (_, mine), (_, library) in zip(hand, against):
            cells.append(pct_figure(mine[k], library, by_size[k],
                                    lambda r: f" (ran {md_escape(r.kernel or 'another kernel')})")
                         if k in mine else "-")
        body.append(cells)
    known = [lib for _, lib in against if lib]  # "": a variant with no row naming one
    usual = max(known, key=known.count, default="")
    others = {}
    for name, lib in against:
        if lib and lib != usual:
            others.setdefault(lib, []).append(name)
    what = [f"% of {usual or '-'}"] + [f"{', '.join(names)}: % of {lib}"
                                       for lib, names in others.items()]
    table = md_table(header, "l" + "r" * (len(header) - 1), body)
    notes = notes_list(rows)
    return "; ".join(what), table + ("\n\n" + notes if notes else "")


def size_word(row):
    """'shape' for rows sized by dimensions or a shape string, 'size' otherwise."""
    return "shape" if row.is_matrix or row.by_shape else "size"


def render(rows, op=None, sizes=None, view="all", series_names=None, against="ref"):
    """Markdown for the selected rows: per source, per series, per size;
    series_names: only the series of these labels ("softmax bf16 uniform")."""
    rows = [r for r in rows if (op is None or r.op == op)
            and (not sizes or any(cc.size_matches(r, s) for s in sizes))]
    if not rows:
        return ""
    series_order = cc.series_in_order(rows)
    parts = []
    for source in sorted({r.source for r in rows}):
        mine = [r for r in rows if r.source == source]
        parts.append(caption(mine, source))
        for series in series_order:
            srows = [r for r in mine if r.series == series]
            if not srows:
                continue
            name = cc.series_label(series)
            if series_names and name not in series_names:
                continue
            if view in ("all", "sizes"):
                for key in cc.sizes_in_order(srows):
                    at = [r for r in srows if r.size_key == key]
                    parts.append(f"**{name}, {cc.size_label(at[0])}**")
                    parts.append(size_table(at, series))
            if view in ("all", "ladder"):
                ladder = ladder_table(srows, series, against)
                if ladder:
                    parts.append(f"**{name}: hand kernels as % of library throughput**")
                    parts.append(ladder)
            if view == "shapes" and any(not r.is_library for r in srows):
                what, table = shapes_table(srows, series)
                parts.append(f"**{name}: hand kernels as % of library throughput, per "
                             f"{size_word(srows[0])}** ({what})")
                parts.append(table)
    return "\n\n".join(parts) + "\n"


# ---- README rewriting -----------------------------------------------------------

def parse_sizes(text):
    """Sizes separated by commas, or by semicolons where they are shape
    strings (which hold commas): 'b=4,sq=1024;b=4,sq=2048'."""
    separator = r"[;\s]+" if "=" in text else r"[,\s]+"
    try:
        return [cc.parse_size(s) for s in re.split(separator, text.strip()) if s]
    except ValueError:
        raise UsageError(f"sizes: expected comma-separated integers, 2^K or MxNxK, "
                         f"got {text!r}") \
            from None


def parse_marker(readme, line_no, name, attributes, default_csvs):
    """The options a begin marker carries: {'csvs', 'op', 'view', 'sizes',
    'speedups'}."""
    where = f"{readme}:{line_no}"
    options = {}
    for item in attributes.split():
        key, _, value = item.partition("=")
        if key not in MARKER_KEYS or key in options:
            raise UsageError(f"{where}: unknown or repeated marker key '{key}' "
                             f"(accepted: {', '.join(k + '=' for k in MARKER_KEYS)})")
        options[key] = value
    base = os.path.dirname(os.path.abspath(readme))
    if "csv" in options:
        shown = [p for p in options["csv"].split(",") if p]
        csvs = [os.path.join(base, p) for p in shown]
    else:
        shown = list(default_csvs)
        csvs = list(default_csvs)
    if not csvs:
        raise UsageError(f"{where}: the marker names no csv= and none is given on the command line")
    op = options.get("op")
    view = options.get("view", "all")
    if view not in VIEWS:
        raise UsageError(f"{where}: view={view}: expected one of {', '.join(VIEWS)}")
    sizes = parse_sizes(options["sizes"]) if "sizes" in options else None
    try:
        speedups = cc.parse_speedups([options.get("speedup", "")])
    except ValueError as e:
        raise UsageError(f"{where}: speedup={e}: expected VARIANT:BASELINE[,...]") from None
    if "plot" in options and ("view" in options or "sizes" in options):
        raise UsageError(f"{where}: plot= draws a picture: view= and sizes= do not apply")
    plot = options.get("plot")
    series_names = [t.replace("+", " ") for t in options["series"].split(";")] if "series" in options else None
    against = options.get("against", "ref")
    if against not in AGAINST:
        raise UsageError(f"{where}: against={against}: expected one of {', '.join(AGAINST)}")
    return {"against": against, "csvs": csvs, "shown": shown, "op": op, "view": view, "sizes": sizes, "name": name,
            "series": series_names,
            "speedups": speedups, "plot": plot and (plot, os.path.join(base, plot))}


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
            open_block = (begin.group(1), i, parse_marker(readme, i + 1, begin.group(1),
                                                          begin.group(2), default_csvs))
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
        absent = [p for p in options["csvs"] if not os.path.exists(p)]
        if absent:
            raise UsageError(f"{readme}:{begin + 1}: block '{options['name']}': "
                             f"{', '.join(absent)} does not exist (yet): write it with "
                             "compare --csv FILE, or correct csv= in the marker")
        rows, _ = cc.read_all(options["csvs"], cc.TABLE_COLUMNS)
        rows, _ = cc.newest(cc.with_speedups(rows, options["speedups"]))
        if options["plot"]:
            text = picture(rows, options["op"], options["plot"], options["shown"],
                           f"{readme}:{begin + 1}")
        else:
            text = render(rows, options["op"], options["sizes"], options["view"], options["series"],
                          options["against"])
        if not text:
            raise UsageError(f"{readme}:{begin + 1}: the block selects no row"
                             + unknown_op(rows, options["op"], "op="))
        out += lines[done:begin + 1]
        out.append(newline + text.replace("\n", newline) + newline)
        done = end
    out += lines[done:]
    return old, "".join(out)


def unknown_op(rows, op, flag):
    """': op=nope: no row of that op (the CSVs hold sgemm, reduce)' where the
    selected op has no row at all, else ''."""
    if op is None or any(r.op == op for r in rows):
        return ""
    held = ", ".join(cc.first_seen(r.op for r in rows))
    return f": {flag}{op}: no row of that op (the CSVs hold {held})"


def png_source(path):
    """The Source text of a PNG that plot.py wrote (the CSVs it was drawn
    from, ', '-separated), or None where the file carries none."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:8] != PNG_SIGNATURE:
        return None
    at = 8
    while at + 8 <= len(data):
        length = int.from_bytes(data[at:at + 4], "big")
        kind = data[at + 4:at + 8]
        if kind == b"tEXt":
            key, _, value = data[at + 8:at + 8 + length].partition(b"\0")
            if key == b"Source":
                return value.decode("latin-1")
        if kind == b"IEND":
            break
        at += 12 + length
    return None


def picture(rows, op, plot, shown, where):
    """A README picture: the image, then a caption naming (and linking) the
    CSV(s) it was drawn from (the marker's csv=) and their device, date and
    commit, as the chart's own caption does. Refused when the image is absent, or when it says (its Source
    metadata) that it was drawn from other CSVs."""
    text, path = plot
    rows = [r for r in rows if op is None or r.op == op]
    if not rows:
        return ""
    if not os.path.exists(path):
        raise UsageError(f"{where}: plot={text} does not exist: draw it with plots/plot.py")
    drawn = png_source(path) if path.endswith(".png") else None
    if drawn is not None:
        names = sorted({os.path.basename(p) for p in drawn.split(", ") if p})
        if names != sorted({os.path.basename(p) for p in shown}):
            raise UsageError(f"{where}: plot={text} was drawn from {drawn}, but the marker's "
                             f"csv= names {', '.join(shown)}: redraw it or correct csv=")
    alt = os.path.splitext(os.path.basename(text))[0].replace("_", " ")
    captions = [cc.source_caption(rows, source) for source in sorted({r.source for r in rows})]
    files = ", ".join(f"[`{p}`]({p})" for p in shown)
    return f"![{alt}]({text})\n\n_Drawn from {files}: " + "; ".join(captions) + "_\n"


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
    parser.add_argument("--op", help="only this op, as the CSV's op column names it "
                                     "(default: all)")
    parser.add_argument("--sizes", action="append", default=[], metavar="N[,N...]",
                        help="only these sizes: n (or MxNxK, MxN) for matrix ops, elements "
                             "for the others, axes of a shape string (e.g. "
                             "2048,4096x14336x4096 or 2^24,2^26 or sq=4096;sq=8192; may be "
                             "repeated)")
    parser.add_argument("--view", choices=VIEWS, default="all",
                        help="per-size tables, the ladder, both (all, the default), or "
                             "shapes: sizes x variants in CSV order")
    parser.add_argument("--speedup", action="append", default=[], metavar="VARIANT:BASELINE",
                        help="for an op whose CSV has no speedup_vs column: show how many "
                             "times faster VARIANT ran than BASELINE (median times) where "
                             "both ran (e.g. overlap:pinned; repeat for several)")
    parser.add_argument("--against", choices=AGAINST, default="ref",
                        help="the ladder's lines: against the reference library plus the "
                             "fastest where it differs (ref, the default), or one line against "
                             "each size's fastest library (best)")
    parser.add_argument("--readme", metavar="FILE",
                        help="rewrite the marker blocks of FILE instead of printing")
    parser.add_argument("--check", action="store_true",
                        help="with --readme: write nothing, exit 1 if a block is stale")
    args = parser.parse_args(argv)
    if args.check and not args.readme:
        parser.error("--check needs --readme")
    if not args.readme and not args.csv:
        parser.error("give a CSV file (or --readme FILE)")
    if args.readme and (args.op or args.sizes or args.view != "all" or args.speedup or args.against != "ref"):
        parser.error("with --readme, --op/--sizes/--view/--speedup go in the markers "
                     "(op=, sizes=, view=, speedup=)")
    try:
        args.speedup = cc.parse_speedups(args.speedup)
    except ValueError as e:
        parser.error(f"--speedup: expected VARIANT:BASELINE, got {e}")
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
        rows, left_out = cc.newest(cc.with_speedups(rows, args.speedup))
        notes += left_out
        for line in notes:
            print(line, file=sys.stderr)
        text = render(rows, args.op, args.sizes, args.view, against=args.against)
        if not text:
            raise UsageError("no row matches the selection" + unknown_op(rows, args.op, "--op "))
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
