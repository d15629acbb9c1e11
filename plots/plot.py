#!/usr/bin/env python3
"""plots/plot.py: charts from the CSV files that `compare --csv FILE` writes.

    python3 plots/plot.py [--out DIR] [--size N ...] [--speedup A:B ...] CSV [CSV...]
    python3 plots/plot.py --out plots/h200 results/h200/*.csv

Writes, as PNG and SVG, into DIR (default: plots/, beside this script), per
op the CSVs hold (any op: what a chart needs of it, its unit, peak, series,
whether it has FLOPs, is read from its rows by plots/csvlib.py; no op is
named here):
  <op>_pct_of_library   each hand variant's % of the reference and of the
                        fastest library (one bar where they are the same
                        library), at one size per op (default: the largest
                        size whose rows are all ok or SKIP; --size picks one:
                        n or MxNxK for matrix ops, elements for the others,
                        a shape sweep's axis value or axes, e.g. 4096,
                        4096x14336x4096, 2^26, sq=4096)
  <op>_throughput       throughput against size, every variant (library
                        lines dashed and grey, hand lines solid)
  <op>_shapes_pct_of_library, <op>_shapes_throughput
                        instead of the two above for a list of GEMM (or
                        transpose) shapes or of shape strings: grouped bars,
                        one group per shape (labelled MxNxK, or n when
                        square, or its shape string), one bar per hand
                        variant (% of its library: cuBLAS FP32, cuBLAS TF32
                        for TF32 rows) or per variant (throughput)
  roofline              every op on one roofline (below): a sweep at one
                        size (the % chart's), a list of shapes whole
With --roofline, instead of all the above: one picture per op (series) and
size, roofline_<op>_<size> (roofline_sgemm_4096, roofline_reduce_2pow26):
    python3 plots/plot.py --roofline --out plots/h200 results/h200/sgemm.csv
Roofline pictures: achieved TFLOP/s (flops / median time) against arithmetic
intensity (the CSV's intensity column, else flops / bytes; with --metrics'
intensity_measured, an x at the measured intensity too), under every roof of
each device: FP32 SIMT, the TF32/FP16/BF16/FP8 tensor roofs, HBM and L2
(plots/peaks.py: the CSV's own peaks first, a table keyed by compute
capability for the others; the footnote names each roof's source and the
roofs a device has no figure for). Markers at one intensity whose rates are
close are moved sideways (a grey line leads from a tick at the true intensity),
so that none hides another. Ops without FLOPs (sort, transpose, softmax,
the norms) have no point on it (a note names them); with --roofline each
gets its memory roofline instead: achieved GB/s (minimum bytes / median time)
per variant as bars against the HBM and L2 roofs, with the share of HBM
(and an x at the DRAM bytes as counted, with --metrics). Ops whose rows
have no % of peak (transfer: host copies) get none.
Line or bars: the sizes of one op in one CSV file form a sweep when every
matrix size is square (m = n = k), or when one axis of the shape strings
varies: a line over n (elements, that axis) reads well. Once one size is
rectangular, or several axes vary, the file is a list of shapes (the LLM
shapes of shapes/llm.txt, say): shapes have no order a line could follow, so
each is a group of bars. Charts of an op whose rows have several input
distributions (dist: histogram's uniform, skewed) hold one panel per
distribution; where a variant ran several key or element types, the type
(u8, i32, f32...) follows the variant's name. cpu_omp rows (the host, OpenMP) are hand rows like any other.

Fallbacks: a row whose kernel_note is not empty ran another kernel than its
variant's own. Its point is hollow (its bar white inside), and a footnote
under the chart says "variant at size ran <kernel>: <note>" (also printed).
An op with a speed-up pair (the CSV's speedup_vs column, or --speedup
VARIANT:BASELINE for a CSV without it, e.g. overlap:pinned for transfer) has
it in the footnote of its % chart.
Captions: under each title, the device, date and commit of each source, then
"from PATH" naming the CSV file(s) the chart was drawn from (as given).

Several CSVs go on the same charts; their series are told apart by device,
commit and/or L2 flush in the legend. Where several runs of one device, commit
and L2 setting measured the same case, the newest run's row is plotted (a note
names the rows left out). Rows whose status is not ok are not plotted. CSVs
written before the kernel/dist/clock columns existed are read as they are;
columns unknown here are ignored; a missing required column, or a file that
does not exist, is an error naming it. Each file is written to a temporary
name in DIR and renamed into place.

Exit status: 0 charts written; 1 nothing to plot, matplotlib missing or an
output error; 2 bad usage or a CSV that cannot be read or lacks a column.
Reads CSV only; needs matplotlib (pip install -r plots/requirements.txt; the
configure step makes build/venv: build/venv/bin/python plots/plot.py ...).
"""

import argparse
import math
import os
import sys

sys.dont_write_bytecode = True  # keep plots/ free of __pycache__
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import csvlib as cc  # noqa: E402
import peaks as pk  # noqa: E402
import roofline_layout as lay  # noqa: E402

# 14 distinct hand colours: the SGEMM ladder alone has 10 hand variants
HAND_COLORS = ("tab:blue", "tab:orange", "tab:green", "tab:red", "tab:purple",
               "tab:brown", "tab:pink", "tab:olive", "tab:cyan", "navy", "goldenrod",
               "teal", "crimson", "lime")
LIBRARY_COLORS = ("black", "gray", "darkgray", "silver")
LIBRARY_DASHES = ("--", "-.", (0, (1, 1)), (0, (5, 1, 1, 1, 1, 1)))
BAR_COLORS = ("tab:blue", "tab:orange", "tab:green", "tab:purple", "tab:red", "tab:cyan")
SOURCE_MARKERS = ("o", "s", "^", "D", "v", "P", "X")
SOURCE_HATCHES = ("", "//", "..", "xx", "\\\\")
OP_MARKERS = ("o", "s", "^", "D", "v", "P")  # roofline: one per op, in CSV order
PANEL_COLUMN = "dist"  # one panel per value (histogram: uniform, skewed)
FALLBACK_LEGEND = "hollow: ran another kernel (footnote)"


# ---- helpers ------------------------------------------------------------------

def load_matplotlib():
    """The matplotlib pieces used here, with the Agg backend; exits 1 if missing."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        from matplotlib.figure import Figure
        from matplotlib.lines import Line2D
        from matplotlib.patches import Patch
        from matplotlib import ticker
    except ImportError as e:
        sys.exit(f"plot.py: error: matplotlib is not importable ({e}); "
                 "install it with: pip install -r plots/requirements.txt")
    return {"Figure": Figure, "Line2D": Line2D, "Patch": Patch, "ticker": ticker}


def variant_label(row):
    """'radix u32' where the op is split by type, 'name (tf32)' where the math
    is not in the name, 'name (libx.so)' for a plugin's variant."""
    if "math" in row.info.split_by:
        label = f"{row.variant} {row.math}"
    elif row.math not in cc.PLAIN_MATHS and row.math not in row.variant:
        label = f"{row.variant} ({row.math})"
    else:
        label = row.variant
    source = row.cells["source"]
    return label if source in ("", "builtin") else f"{label} ({source})"


def title_caption(rows, ax):
    """Under a chart's title: per source its device, date and commit (and L2
    flush where they differ), then the CSV file(s) the rows came from (also
    kept on the figure for the files' Source metadata, save_figure)."""
    fig = ax.figure
    fig.compare_csvs = cc.first_seen(getattr(fig, "compare_csvs", []) + [r.path for r in rows])
    sources = sorted({r.source for r in rows})
    flushes = {s[2] for s in sources}
    lines = [cc.source_caption(rows, s) + (f", {cc.flush_label(s[2])}" if len(flushes) > 1
                                           else "") for s in sources]
    return "\n".join(lines + [csv_caption(rows)])


def csv_caption(rows):
    """'from results/h200/sweep.csv' (the paths as given on the command line)."""
    paths = cc.first_seen(r.path for r in rows)
    return "from " + ", ".join(paths) if paths else ""


def place_legend(ax, fontsize, loc, handles=None, outside=False):
    """Legend inside the axes when short, to the right of them when long or
    `outside` (the figure is widened once for it, whatever the number of panels)."""
    count = len(handles) if handles is not None else len(ax.get_legend_handles_labels()[0])
    outside = outside or count > 8
    where = dict(loc="upper left", bbox_to_anchor=(1.01, 1.0)) if outside else dict(loc=loc)
    ax.legend(handles=handles, fontsize=fontsize, handlelength=3.5, **where)
    fig = ax.figure
    if outside and not getattr(fig, "compare_widened", False):
        width, height = fig.get_size_inches()
        fig.set_size_inches(width + 3.5, height)
        fig.compare_widened = True


def source_handles(mpl, sources):
    """Legend entries for the marker of each source (none when there is one)."""
    if len(sources) < 2:
        return []
    labels = cc.source_labels(sources)
    return [mpl["Line2D"]([], [], color="gray", linestyle="none", label=labels[s],
                          marker=SOURCE_MARKERS[i % len(SOURCE_MARKERS)])
            for i, s in enumerate(sources)]


def ops_present(rows):
    return cc.first_seen(r.op for r in rows)


def split_by_layout(rows, op):
    """(sweep rows, shape-list rows) of one op: each file's rows go to one side
    (cc.is_shape_list: a file with a non-square matrix size is a list of shapes)."""
    mine = [r for r in rows if r.op == op]
    shaped = {path for path in {r.path for r in mine}
              if cc.is_shape_list([r for r in mine if r.path == path])}
    return ([r for r in mine if r.path not in shaped], [r for r in mine if r.path in shaped])


def panels(rows):
    """[(panel label, rows)]: one per PANEL_COLUMN value ('' and all rows when
    the rows have one value)."""
    values = cc.first_seen(r.cells[PANEL_COLUMN] for r in rows)
    if len(values) < 2:
        return [("", rows)]
    return [(v, [r for r in rows if r.cells[PANEL_COLUMN] == v]) for v in values]


def new_figure(mpl, count, width, height):
    """A figure of `count` panels stacked, and their axes."""
    fig = mpl["Figure"](figsize=(width, height * count), layout="constrained")
    axes = fig.subplots(count, 1, squeeze=False)
    return fig, [row[0] for row in axes]


def add_footnote(fig, fallback_rows, extra=(), notes=None, stem=""):
    """Under the chart: one line per fallback ("* variant at size ran kernel:
    note") then the `extra` lines; printed as notes too. The text's SVG id is
    fallback-footnote when there are fallbacks, footnote otherwise."""
    fallbacks = cc.fallback_notes(fallback_rows, variant_label)
    lines = [f"* {line}" for line in fallbacks] + list(extra)
    if not lines:
        return
    text = fig.supxlabel("\n".join(lines), x=0.01, ha="left", fontsize=8)
    text.set_gid("fallback-footnote" if fallbacks else "footnote")
    if notes is not None:
        notes += [f"note: {stem}: {line}" for line in lines]


def fallback_handle(mpl):
    return mpl["Line2D"]([], [], color="black", marker="o", markerfacecolor="white",
                         linestyle="none", label=FALLBACK_LEGEND)


def pick_size(rows, requested):
    """The size key for the bar chart of one op and source, or (None, reason).

    rows: every row of that op and source, whatever its status."""
    with_pct = [r for r in rows if r.ok and not r.is_library
                and (r.pct_of_ref_library is not None or r.pct_of_best_library is not None)]
    keys = sorted({r.size_key for r in with_pct}, key=cc.size_order)
    if not keys:
        return None, "no ok hand row with a % of library"
    if requested:
        for want in requested:
            hits = [r.size_key for r in with_pct if cc.size_matches(r, want)]
            if hits:
                return sorted(hits, key=cc.size_order)[-1], ""
        return None, f"none of the sizes {', '.join(map(str, requested))} is present"
    # SKIP is no failure: a row not run by choice (cpu_omp past --cpu-max-n)
    all_ok = [k for k in keys if all(r.ok or r.status == "SKIP" for r in rows if r.size_key == k)]
    if all_ok:
        return all_ok[-1], ""
    return keys[-1], "no size has every row ok: using the largest with ok hand rows"


def save_figure(fig, out_dir, stem):
    """Write stem.png and stem.svg via a temporary file and os.replace; their
    Source metadata names the CSV file(s) drawn from (as the caption does)."""
    source = ", ".join(getattr(fig, "compare_csvs", []))
    written = []
    for ext in ("png", "svg"):
        final = os.path.join(out_dir, f"{stem}.{ext}")
        tmp = os.path.join(out_dir, f".{stem}.{ext}.{os.getpid()}.tmp")
        try:
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o666)
            with os.fdopen(fd, "wb") as f:
                metadata = {"Source": source}
                if ext == "svg":
                    metadata["Date"] = None
                fig.savefig(f, format=ext, dpi=150, metadata=metadata)
            os.replace(tmp, final)
        except BaseException:
            if os.path.exists(tmp):
                os.unlink(tmp)
            raise
        written.append(final)
    return written


def op_title(op, panel):
    return f"{op} ({panel})" if panel else op


# ---- chart: % of library at one size -----------------------------------------

def collect_bars(rows, op, requested, notes, what):
    """[(category, source, slot, library, pct, row)] for one op (one panel);
    slot 0 = ref, 1 = best (left out where it is the reference again)."""
    bars = []
    sizes = {}
    for source in sorted({r.source for r in rows}):
        mine = [r for r in rows if r.source == source]
        key, why = pick_size(mine, requested)
        if why:
            notes.append(f"note: {what} ({cc.source_caption(mine, source)}): {why}")
        if key is None:
            continue
        for row in mine:
            if row.size_key != key or not row.ok or row.is_library:
                continue
            sizes[source] = cc.size_label(row)
            pairs = ((row.ref_library, row.pct_of_ref_library),
                     (row.best_library, row.pct_of_best_library))
            for slot, (library, pct) in enumerate(pairs):
                if pct is not None and not (slot == 1 and library == row.ref_library):
                    bars.append((variant_label(row), source, slot, library or "?", pct, row))
    return bars, sizes


def library_legend_labels(bars):
    roles = {}
    for _, _, slot, library, _, _ in bars:
        roles.setdefault(library, set()).add(slot)
    labels = {}
    for library, slots in roles.items():
        role = {frozenset({0}): " (reference)", frozenset({1}): " (fastest library)"}
        labels[library] = f"% of {library}" + role.get(frozenset(slots), "")
    return labels


def draw_pct(mpl, ax, rows, op, panel, bars, sizes):
    categories = cc.first_seen(b[0] for b in bars)
    sources = sorted(sizes)
    libraries = cc.first_seen(b[3] for b in bars)
    color = {lib: BAR_COLORS[i % len(BAR_COLORS)] for i, lib in enumerate(libraries)}
    labels = cc.source_labels(sources)
    share = 0.8 / len(sources)  # of a category, per source: its bars split it
    count = {}
    for b in bars:
        count[b[:2]] = count.get(b[:2], 0) + 1
    top = 100.0
    for cat, source, slot, library, pct, row in bars:
        width = share / count[(cat, source)]
        index = slot if count[(cat, source)] > 1 else 0
        pos = categories.index(cat) - 0.4 + share * sources.index(source) + width * (index + 0.5)
        hatch = SOURCE_HATCHES[sources.index(source) % len(SOURCE_HATCHES)]
        face = "white" if row.fallback else color[library]
        edge = color[library] if row.fallback else ("white" if not hatch else "black")
        container = ax.bar(pos, pct, width, color=face, hatch=hatch, edgecolor=edge,
                           linewidth=1.5 if row.fallback else 0.5)
        text = f"{pct:.1f}%" if pct < 10 else f"{pct:.0f}%"
        ax.bar_label(container, labels=[text + ("*" if row.fallback else "")], padding=2,
                     fontsize=8)
        top = max(top, pct)
    ax.axhline(100, color="black", linestyle="--", linewidth=1)
    ax.set_xticks(range(len(categories)), categories)
    ax.set_xlim(-0.5, len(categories) - 0.5)
    ax.set_ylim(0, top * 1.15)
    ax.set_ylabel("% of library throughput (same case)")
    handles = [mpl["Patch"](color=color[lib], label=text)
               for lib, text in library_legend_labels(bars).items()]
    handles.append(mpl["Line2D"]([], [], color="black", linestyle="--", label="library = 100%"))
    if any(b[5].fallback for b in bars):
        handles.append(mpl["Patch"](facecolor="white", edgecolor="black",
                                    label="white bar: ran another kernel (footnote)"))
    if len(sources) > 1:
        handles += [mpl["Patch"](facecolor="white", edgecolor="black",
                                 hatch=SOURCE_HATCHES[i % len(SOURCE_HATCHES)],
                                 label=f"{labels[s]} ({sizes[s]})") for i, s in enumerate(sources)]
        size_text = "per source"
    else:
        size_text = sizes[sources[0]]
    place_legend(ax, 8, "upper left", handles)
    used = [r for r in rows if r.source in sizes]
    ax.set_title(f"{op_title(op, panel)}: hand kernels as % of library, {size_text}\n"
                 f"{title_caption(used, ax)}", fontsize=10)


def chart_pct(mpl, rows, op, requested, notes):
    drawn = []
    for panel, prows in panels(rows):
        bars, sizes = collect_bars(prows, op, requested, notes, op_title(op, panel))
        if bars:
            drawn.append((panel, prows, bars, sizes))
    if not drawn:
        return None
    slots = max(len(cc.first_seen(b[0] for b in bars)) * len(sizes) for _, _, bars, sizes in drawn)
    fig, axes = new_figure(mpl, len(drawn), max(7.0, 1.3 * slots + 3), 5.5)
    speedups = []
    for ax, (panel, prows, bars, sizes) in zip(axes, drawn):
        draw_pct(mpl, ax, prows, op, panel, bars, sizes)
        for source, size in sizes.items():
            at = [r for r in prows if r.source == source and cc.size_label(r) == size]
            series = cc.series_in_order(at)
            for one in series:  # a ratio within one series (sort u32), never across two
                found = cc.speedup([r for r in at if r.series == one])
                if found:
                    where = f"{size}, {cc.series_label(one)}" if len(series) > 1 else size
                    speedups.append(f"{found[0]}: {found[2]:.2f}x the speed of {found[1]} at "
                                    f"{where} (median time ratio)")
    add_footnote(fig, [b[5] for _, _, bars, _ in drawn for b in bars], speedups, notes,
                 f"{op}_pct_of_library")
    return fig


# ---- chart: throughput against size ------------------------------------------

def throughput_series(rows):
    """{(source, is_library, label): [(x, throughput, row)]} for the ok rows."""
    series = {}
    for row in rows:
        if not row.ok or row.throughput is None or row.size_x is None:
            continue
        key = (row.source, row.is_library, variant_label(row))
        series.setdefault(key, []).append((row.size_x, row.throughput, row))
    return {k: sorted(v, key=lambda p: p[0]) for k, v in series.items()}


def peak_lines(rows, op):
    """{(device, peak)} in the op's throughput unit (FP32 or memory), if it has one."""
    column = rows[0].info.peak_column if rows else ""
    if not column:
        return set()
    return {(r.device, r.values[column]) for r in rows if r.ok and r.values.get(column)}


def throughput_axis_label(info):
    return info.unit + (f" ({info.throughput_note})" if info.throughput_note else "")


def style_size_axis(mpl, ax, rows, xs):
    ax.set_xscale("log", base=2)
    ax.set_xticks(sorted(xs))
    ax.xaxis.set_minor_locator(mpl["ticker"].NullLocator())
    if rows[0].is_matrix:
        ax.set_xticklabels([str(x) for x in sorted(xs)])
        ax.set_xlabel("n (square matrices: " + " = ".join("mnk"[:len(rows[0].dims)]) + ")")
    elif rows[0].by_shape:
        fixed = [f"{n}={v}" for n, v in rows[0].axes if n != rows[0].sweep_axis]
        ax.set_xticklabels([str(x) for x in sorted(xs)])
        ax.set_xlabel(rows[0].sweep_axis + (f" ({', '.join(fixed)})" if fixed else ""))
    else:
        ax.set_xticklabels([cc.pow2_label(x) for x in sorted(xs)])
        ax.set_xlabel("elements")


def line_styles(rows):
    """{(is_library, label): plot style}: hand lines solid and coloured; library
    lines thick, dashed, grey by library name, dash pattern by math."""
    hand = cc.first_seen(variant_label(r) for r in rows if not r.is_library)
    libs = cc.first_seen(r.variant for r in rows if r.is_library)
    maths = cc.first_seen(r.math for r in rows if r.is_library)
    styles = {(False, name): dict(color=HAND_COLORS[i % len(HAND_COLORS)],
                                  linestyle="-", linewidth=1.5)
              for i, name in enumerate(hand)}
    for r in rows:
        if r.is_library:
            styles[(True, variant_label(r))] = dict(
                color=LIBRARY_COLORS[libs.index(r.variant) % len(LIBRARY_COLORS)],
                linestyle=LIBRARY_DASHES[maths.index(r.math) % len(LIBRARY_DASHES)],
                linewidth=2.6)
    return styles


def draw_throughput(mpl, ax, rows, op, panel, styles):
    series = throughput_series(rows)
    sources = sorted({k[0] for k in series})
    for (source, is_library, name), points in series.items():
        marker = SOURCE_MARKERS[sources.index(source) % len(SOURCE_MARKERS)]
        style = styles[(is_library, name)]
        ax.plot([p[0] for p in points], [p[1] for p in points], marker=marker, **style)
        hollow = [p for p in points if p[2].fallback]
        if hollow:
            ax.plot([p[0] for p in hollow], [p[1] for p in hollow], marker=marker,
                    linestyle="none", markersize=9, markerfacecolor="white",
                    markeredgecolor=style["color"], markeredgewidth=1.8)
    marker = "o" if len(sources) == 1 else None
    handles = [mpl["Line2D"]([], [], marker=marker, **styles[key],
                             label=key[1] + (" (library)" if key[0] else ""))
               for key in styles if any(k[1:] == key for k in series)]
    for device, peak in sorted(peak_lines(rows, op)):
        info = rows[0].info
        what = "FP32 peak" if info.peak_column == "peak_fp32_tflops" else "memory bandwidth"
        handles.append(ax.axhline(peak, color="tab:red", linestyle=":", linewidth=1.2,
                                  label=f"{what}, {device}: {cc.fmt_sig(peak)} {info.unit}"))
    if any(p[2].fallback for pts in series.values() for p in pts):
        handles.append(fallback_handle(mpl))
    handles += source_handles(mpl, sources)
    values = [p[1] for pts in series.values() for p in pts if p[1] > 0]
    if values and max(values) / min(values) > 20:
        ax.set_yscale("log")
    else:
        ax.set_ylim(bottom=0)
    style_size_axis(mpl, ax, rows, {p[0] for pts in series.values() for p in pts})
    ax.set_ylabel(throughput_axis_label(rows[0].info))
    ax.grid(True, which="major", alpha=0.3)
    place_legend(ax, 8, "best", handles)
    used = [r for r in rows if r.ok]
    ax.set_title(f"{op_title(op, panel)}: throughput against size\n{title_caption(used, ax)}",
                 fontsize=10)


def chart_throughput(mpl, rows, op, notes):
    drawn = [(panel, prows) for panel, prows in panels(rows) if throughput_series(prows)]
    if not drawn:
        return None
    styles = line_styles(rows)
    fig, axes = new_figure(mpl, len(drawn), 9, 5.5)
    for ax, (panel, prows) in zip(axes, drawn):
        draw_throughput(mpl, ax, prows, op, panel, styles)
    add_footnote(fig, [r for r in rows if r.ok], notes=notes, stem=f"{op}_throughput")
    return fig


# ---- chart: a list of shapes, grouped bars --------------------------------------

def shape_bars(rows, op, pct):
    """[(shape key, group label, source, value, row)] of the ok rows: with pct,
    the hand rows' % of their library (cc.comparison_library), else every
    row's throughput. Also {group label: library} for the pct title."""
    against = {}
    bars = []
    for row in rows:
        if not row.ok or (pct and row.is_library):
            continue
        label = variant_label(row)
        if pct:
            if label not in against:
                mine = [r for r in rows if not r.is_library and variant_label(r) == label]
                against[label] = cc.comparison_library(mine, rows)
            case_rows = [r for r in rows if r.source == row.source and r.size_key == row.size_key]
            value = cc.pct_versus(row, against[label], case_rows)
        else:
            value = row.throughput
        if value is not None:
            bars.append((row.size_key, label, row.source, value, row))
    return bars, against


def against_text(against):
    """'% of cublas_fp32; tf32_tma: % of cublas_tf32'."""
    names = [lib for lib in against.values() if lib]
    usual = max(names, key=names.count) if names else "-"
    others = {}
    for label, lib in against.items():
        if lib and lib != usual:
            others.setdefault(lib, []).append(label)
    return "; ".join([f"% of {usual}"] + [f"{', '.join(v)}: % of {k}" for k, v in others.items()])


def shape_axis_label(rows):
    """'shape (MxNxK; n where square)', 'shape (MxN; ...)' or 'shape' (shape strings)."""
    if any(r.is_matrix for r in rows):
        names = "MxNxK" if any(len(r.dims) == 3 for r in rows) else "MxN"
        return f"shape ({names}; n where square)"
    return "shape"


def chart_shapes(mpl, rows, op, pct, notes):
    """Grouped bars for a list of shapes: x = shapes in CSV order, one bar per
    hand variant (pct: % of its library) or per variant (throughput)."""
    bars, against = shape_bars(rows, op, pct)
    if not bars:
        return None
    shapes = cc.first_seen(r.size_key for r in rows)
    shape_names = {r.size_key: cc.size_short(r) for r in rows}
    groups = cc.first_seen((b[4].is_library, b[1]) for b in bars)
    groups = [g for g in groups if not g[0]] + [g for g in groups if g[0]]
    sources = sorted({b[2] for b in bars})
    slots = [(g, s) for g in groups for s in sources]
    hand = [g for g in groups if not g[0]]
    libs = [g for g in groups if g[0]]
    color = {g: (LIBRARY_COLORS[libs.index(g) % len(LIBRARY_COLORS)] if g[0]
                 else HAND_COLORS[hand.index(g) % len(HAND_COLORS)]) for g in groups}
    width = 0.84 / len(slots)
    bars_drawn = len(slots) * len(shapes)
    fig, (ax,) = new_figure(mpl, 1, min(20.0, max(9.0, 0.09 * bars_drawn + 4)),
                            6.5 if bars_drawn > 60 else 5.5)
    for key, label, source, value, row in bars:
        group = (row.is_library, label)
        index = slots.index((group, source))
        pos = shapes.index(key) - 0.42 + width * (index + 0.5)
        hatch = SOURCE_HATCHES[sources.index(source) % len(SOURCE_HATCHES)]
        ax.bar(pos, value, width, color="white" if row.fallback else color[group],
               edgecolor=color[group] if row.fallback else ("black" if hatch else "white"),
               hatch=hatch, linewidth=1.6 if row.fallback else 0.3)
    for row in rows:  # a failed row has no bar: say so where it would be
        if not row.ok and row.status != "SKIP" and row.size_key in shapes:
            group = (row.is_library, variant_label(row))
            if (group, row.source) in slots and not (pct and row.is_library):
                pos = shapes.index(row.size_key) - 0.42 + width * (slots.index((group, row.source))
                                                                   + 0.5)
                ax.text(pos, 0.01, row.status, rotation=90, fontsize=6, ha="center",
                        va="bottom", transform=ax.get_xaxis_transform())
    labels = [shape_names[k] for k in shapes]
    long_labels = max(len(t) for t in labels) * len(labels) > 60
    ax.set_xticks(range(len(shapes)), labels, rotation=30 if long_labels else 0,
                  ha="right" if long_labels else "center")
    ax.set_xlim(-0.6, len(shapes) - 0.4)
    ax.set_xlabel(shape_axis_label(rows))
    ax.grid(True, axis="y", which="major", alpha=0.3)
    handles = [mpl["Patch"](color=color[g], label=g[1] + (" (library)" if g[0] else ""))
               for g in groups]
    if any(b[4].fallback for b in bars):
        handles.append(mpl["Patch"](facecolor="white", edgecolor="black",
                                    label="white bar: ran another kernel (footnote)"))
    if len(sources) > 1:
        names = cc.source_labels(sources)
        handles += [mpl["Patch"](facecolor="white", edgecolor="black",
                                 hatch=SOURCE_HATCHES[i % len(SOURCE_HATCHES)], label=names[s])
                    for i, s in enumerate(sources)]
    used = [r for r in rows if r.ok]
    if pct:
        ax.axhline(100, color="black", linestyle="--", linewidth=1)
        handles.append(mpl["Line2D"]([], [], color="black", linestyle="--",
                                     label="library = 100%"))
        ax.set_ylim(0, max(100.0, max(b[3] for b in bars)) * 1.12)
        ax.set_ylabel("% of library throughput (same shape)")
        title = f"{op}: hand kernels as % of library per shape ({against_text(against)})"
    else:
        values = [b[3] for b in bars if b[3] > 0]
        if values and max(values) / min(values) > 20:
            ax.set_yscale("log")
        ax.set_ylabel(throughput_axis_label(rows[0].info))
        title = f"{op}: throughput per shape"
    place_legend(ax, 8, "upper left", handles, outside=True)
    ax.set_title(f"{title}\n{title_caption(used, ax)}", fontsize=10)
    stem = f"{op}_shapes_{'pct_of_library' if pct else 'throughput'}"
    add_footnote(fig, [b[4] for b in bars], notes=notes, stem=stem)
    return fig


# ---- chart: roofline ------------------------------------------------------------
# Points and their spread: plots/roofline_layout.py; roofs: plots/peaks.py.

ROOF_COLORS = {"compute": "firebrick", "memory": "steelblue"}
LIBRARY_MARKERS = ("o", "s", "D", "^")  # hollow, one per library row of a picture
DEVICE_DASHES = ("-", "--", ":", "-.")
SPREAD_NOTE = ("markers at one intensity and close rates are moved sideways; a grey line leads "
               "from the tick at their true intensity")
MEASURED_LEGEND = "x: measured intensity (--metrics), same rate"


def roof_sets(points):
    """[DeviceRoofs] of the devices the points' rows come from, in order."""
    by_device = {}
    for p in points:
        by_device.setdefault(p.row.cells["device"], []).append(p.row)
    return [pk.device_roofs(rows) for rows in by_device.values()]


def roof_extent(sets):
    """The intensities where the roofs bend (compute roof over HBM and L2)."""
    bends = []
    for s in sets:
        for mem in s.memory():
            bends += [c.value / (mem.value * 1e-3) for c in s.compute()]
    return bends


def draw_roofs(ax, sets, lo, hi):
    """Each memory roof as a slope up to the top compute roof, each compute
    roof flat from where the HBM slope meets it; labelled on the line.
    Returns the caption lines: each roof's figure and source, what is missing."""
    lines = []
    for i, s in enumerate(sets):
        dash = DEVICE_DASHES[i % len(DEVICE_DASHES)]
        who = f"{s.device}: " if len(sets) > 1 else ""
        top = max((c.value for c in s.compute()), default=None)
        hbm = next((m for m in s.memory() if m.name == "HBM"), None)
        for mem in s.memory():
            tbps = mem.value * 1e-3
            end = top / tbps if top else hi
            line, = ax.plot([lo, min(end, hi)], [tbps * lo, tbps * min(end, hi)],
                            color=ROOF_COLORS["memory"], linestyle=dash if mem is hbm else ":",
                            linewidth=1.6 if mem is hbm else 1.2)
            line.set_gid(f"roof:{mem.name}")
            ax.text(lo * 1.15, tbps * lo * 1.25, f"{who}{mem.name} {cc.fmt_sig(tbps)} TB/s",
                    fontsize=7, color=ROOF_COLORS["memory"], rotation=0, va="bottom")
        for name, roof in pk.merged(s.compute()):
            start = roof.value / (hbm.value * 1e-3) if hbm else lo
            line, = ax.plot([max(start, lo), hi], [roof.value, roof.value],
                            color=ROOF_COLORS["compute"], linestyle=dash, linewidth=1.4)
            line.set_gid(f"roof:{name}")
            ax.text(hi / 1.1, roof.value * 1.05, f"{who}{name} {cc.fmt_sig(roof.value)} TFLOP/s",
                    fontsize=7, color=ROOF_COLORS["compute"], ha="right", va="bottom")
            lines.append(f"{who}{name} {cc.fmt_sig(roof.value)} TFLOP/s: {roof.source}")
        lines += [f"{who}{m.name} {cc.fmt_sig(m.value * 1e-3)} TB/s: {m.source}"
                  for m in s.memory()]
        lines += [f"{who}{text}" for text in s.missing]
    return lines


def point_styles(points):
    """{label: Line2D keyword arguments}: hand variants filled, libraries
    hollow, in the order the rows came (hand first)."""
    order = lay_first(points)
    styles = {}
    count = {True: 0, False: 0}
    for label, is_library in order:
        palette = LIBRARY_COLORS if is_library else HAND_COLORS
        color = palette[count[is_library] % len(palette)]
        marker = LIBRARY_MARKERS[count[True] % len(LIBRARY_MARKERS)] if is_library else None
        count[is_library] += 1
        styles[label] = dict(color=color, markeredgecolor=color, markeredgewidth=1.5,
                             markersize=8, markerfacecolor="white" if is_library else color,
                             linestyle="none", marker=marker)
    return styles


def lay_first(points):
    order = cc.first_seen((p.label, p.row.is_library) for p in points)
    return [k for k in order if not k[1]] + [k for k in order if k[1]]


def chart_roofline(mpl, points, notes, title, stem, extra_handles=()):
    """One roofline picture of `points` (roofline_layout.Point) under the
    roofs of their devices; None when there are none."""
    if not points:
        return None
    sets = roof_sets(points)
    xs = [p.intensity for p in points] + [p.measured for p in points if p.measured]
    bends = roof_extent(sets)
    lo, hi = min(xs + bends) / 4, max(xs + bends) * 4
    spread_out = lay.spread(points, math.log10(hi / lo))
    fig, (ax,) = new_figure(mpl, 1, 10, 6.5)
    caption_roofs = draw_roofs(ax, sets, lo, hi)
    sources = sorted({p.row.source for p in points})
    styles = point_styles(points)
    ops = cc.first_seen(p.row.op for p in points)
    op_marker = {op: OP_MARKERS[i % len(OP_MARKERS)] for i, op in enumerate(ops)}
    handles, ringed, measured = [], [], False
    for label, _ in lay_first(points):
        mine = [p for p in points if p.label == label]
        for p in mine:
            marker = (styles[label]["marker"] or op_marker[p.row.op] if len(sources) == 1
                      else SOURCE_MARKERS[sources.index(p.row.source) % len(SOURCE_MARKERS)])
            line, = ax.plot([p.x], [p.tflops], **dict(styles[label], marker=marker))
            line.set_gid(f"point:{label}")
            if p.measured:
                ax.plot([p.x, p.measured], [p.tflops, p.tflops], color=styles[label]["color"],
                        linestyle=":", linewidth=0.8)
                ax.plot([p.measured], [p.tflops], marker="x", color=styles[label]["color"],
                        linestyle="none", markersize=6)
                measured = True
            if p.row.fallback:
                ringed.append(p)
        own = styles[label]["marker"] if len(sources) == 1 else None
        handles.append(mpl["Line2D"]([], [], label=label, **dict(
            styles[label], marker=own or op_marker[mine[0].row.op])))
    for p in (p for group in spread_out for p in group):
        # a leader from the true intensity (a short tick) to the moved marker
        tick, = ax.plot([p.intensity, p.x], [p.tflops, p.tflops], color="gray", linewidth=0.8,
                        marker="|", markersize=9, markevery=[0], zorder=1)
        tick.set_gid("spread-tick")
    if ringed:  # library rows are hollow here already: a fallback gets a ring
        ax.plot([p.x for p in ringed], [p.tflops for p in ringed], linestyle="none",
                marker="o", markersize=15, markerfacecolor="none", markeredgecolor="tab:red")
        handles.append(mpl["Line2D"]([], [], linestyle="none", marker="o", markersize=12,
                                     markerfacecolor="none", markeredgecolor="tab:red",
                                     label="ringed: ran another kernel (footnote)"))
    if measured:
        handles.append(mpl["Line2D"]([], [], marker="x", color="gray", linestyle="none",
                                     label=MEASURED_LEGEND))
    handles += source_handles(mpl, sources) + list(extra_handles)
    ys = [p.tflops for p in points] + [r.value for s in sets for r in s.compute()]
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlim(lo, hi)
    ax.set_ylim(min(ys) / 4, max(ys) * 2.5)
    intensity_of = ("the CSV's intensity column" if all(p.from_column for p in points)
                    else "flops / bytes" if not any(p.from_column for p in points)
                    else "the intensity column, else flops / bytes")
    ax.set_xlabel("arithmetic intensity, FLOP per byte of minimum device-memory traffic "
                  f"({intensity_of})")
    ax.set_ylabel("achieved TFLOP/s (flops / median time, log)")
    ax.grid(True, which="major", alpha=0.3)
    place_legend(ax, 7, "lower right", handles, outside=True)
    ax.set_title(f"{title}\n{title_caption([p.row for p in points], ax)}", fontsize=10)
    extra = joined_lines(["roofs:"] + caption_roofs, 150)
    if spread_out:
        extra.append(SPREAD_NOTE)
    add_footnote(fig, [p.row for p in ringed], extra=extra, notes=notes, stem=stem)
    return fig


def joined_lines(items, width):
    """The items joined by '; ' into lines of about `width` characters, never
    splitting an item (each line of a footnote stays a sentence)."""
    lines = [items[0]]
    for item in items[1:]:
        if len(lines[-1]) + len(item) + 2 > width:
            lines[-1] += ";"
            lines.append(item)
        else:
            lines[-1] += ("; " if lines[-1] != items[0] else " ") + item
    return lines


def size_slug(row):
    """A file-name-safe size: '4096', '2pow26', '4096x14336x4096', 'b_4_h_32'."""
    text = cc.size_short(row).replace("^", "pow")
    return "".join(c if c.isalnum() else "_" for c in text).strip("_")


def roofline_points(rows, notes):
    """The roofline points of the ok rows, noting the ops without FLOPs."""
    points, without, left_out = lay.collect(rows, variant_label)
    if without:
        notes.append(f"note: roofline: {', '.join(without)}: no FLOP count in the CSV "
                     "(flops 0 or empty): no roofline point (with --roofline, their GB/s "
                     "against the memory roofs: roofline_<op>_<size>)")
    if left_out:
        notes.append(f"note: roofline: {left_out} ok row(s) with FLOPs lack bytes or time: "
                     "not drawn")
    return points, without


def overview_points(points, rows, requested):
    """The points of the overview: of a sweep, each op series and source at
    one size (the %-of-library chart's: pick_size; else the largest), since
    a dozen sizes of one op share one intensity and would bury each other;
    of a list of shapes, every shape. Returns (points, ['reduce 2^28', ...])."""
    keep, sizes = [], []
    for (series, source) in cc.first_seen((p.row.series, p.row.source) for p in points):
        mine = [p for p in points if (p.row.series, p.row.source) == (series, source)]
        if cc.is_shape_list([p.row for p in mine]):
            keep += mine
            continue
        key, _ = pick_size([r for r in rows if (r.series, r.source) == (series, source)],
                           requested)
        if key is None or not any(p.row.size_key == key for p in mine):
            key = max((p.row.size_key for p in mine), key=cc.size_order)
        chosen = [p for p in mine if p.row.size_key == key]
        keep += chosen
        sizes.append(f"{cc.series_label(series)} {cc.size_short(chosen[0].row)}")
    return keep, cc.first_seen(sizes)


def chart_roofline_all(mpl, rows, notes, requested=()):
    """The overview: every op of the CSVs on one picture, each sweep at one
    size (--size picks it, as for the % charts; --roofline draws them all)."""
    points, without = roofline_points(rows, notes)
    if not points:
        notes.append("note: roofline: no ok row with FLOPs and bytes: chart not written")
        return None
    points, sizes = overview_points(points, rows, requested)
    several_ops = len({p.row.op for p in points}) > 1
    for p in points:
        p.label = (f"{p.row.op} {p.label}" if several_ops else p.label) + (
            " (library)" if p.row.is_library else "")
    extra = [mpl["Line2D"]([], [], linestyle="none",
                           label=f"not drawn (no FLOP count): {', '.join(without)}")] if without else []
    title = "Roofline" + (f" at one size per op: {', '.join(sizes)}" if sizes else "")
    return chart_roofline(mpl, points, notes, title, "roofline", extra)


def memory_gbps(row):
    """(achieved GB/s from the minimum bytes, measured GB/s from --metrics'
    DRAM bytes or None) of an ok row, or None without bytes or time."""
    nbytes, time_ms = row.values.get("bytes"), row.values.get("time_ms_median")
    if not nbytes or not time_ms or nbytes <= 0 or time_ms <= 0:
        return None
    seconds = time_ms * 1e-3
    read, write = (lay.cell_float(row, c) for c in ("dram_read_bytes", "dram_write_bytes"))
    measured = (read or 0.0) + (write or 0.0)
    return nbytes / seconds / 1e9, (measured / seconds / 1e9 if measured > 0 else None)


def chart_memory_roofline(mpl, rows, notes, title, stem):
    """The roofline of an op that counts no FLOPs (transpose, softmax, the
    norms, sort): its intensity is 0, so the picture is the memory roof
    alone: each variant's achieved GB/s (minimum bytes / median time) as a
    bar against the device's memory roofs (HBM, L2), hand rows first,
    libraries hatched, each bar labelled with its share of HBM; with
    --metrics, the DRAM bytes as counted give a second mark (x)."""
    rows = [r for r in rows if memory_gbps(r) is not None]
    if not rows:
        return None
    rows = [r for r in rows if not r.is_library] + [r for r in rows if r.is_library]
    sets = [pk.device_roofs(rows)]
    fig, (ax,) = new_figure(mpl, 1, 10, 1.2 + 0.45 * len(rows))
    ys = list(range(len(rows)))[::-1]
    hbm = next((m.value for m in sets[0].memory() if m.name == "HBM"), None)
    measured_any = False
    for y, r in zip(ys, rows):
        gbps, measured = memory_gbps(r)
        color = LIBRARY_COLORS[0] if r.is_library else HAND_COLORS[0]
        bar = ax.barh([y], [gbps], color="white" if r.is_library else color, edgecolor=color,
                      hatch="//" if r.is_library else None, height=0.6)
        bar.patches[0].set_gid(f"bar:{variant_label(r)}")
        text = f"{cc.fmt_sig(gbps)} GB/s" + (f", {gbps / hbm * 100:.0f}% of HBM" if hbm else "")
        ax.text(gbps, y, "  " + text, va="center", fontsize=7)
        if measured:
            ax.plot([measured], [y], marker="x", color="tab:red", linestyle="none", markersize=7)
            measured_any = True
    caption = []
    top = max(memory_gbps(r)[0] for r in rows)
    for i, m in enumerate(sets[0].memory()):
        line = ax.axvline(m.value, color=ROOF_COLORS["memory"], linestyle="-" if m.name == "HBM" else ":",
                          linewidth=1.6 if m.name == "HBM" else 1.2)
        line.set_gid(f"roof:{m.name}")
        ax.text(m.value, len(rows) - 0.4 + 0.3 * i, f" {m.name} {cc.fmt_sig(m.value * 1e-3)} TB/s",
                color=ROOF_COLORS["memory"], fontsize=7, va="bottom")
        caption.append(f"{m.name} {cc.fmt_sig(m.value * 1e-3)} TB/s: {m.source}")
        top = max(top, m.value)
    caption += list(sets[0].missing)
    ax.set_yticks(ys, [variant_label(r) + (" (library)" if r.is_library else "") for r in rows],
                  fontsize=8)
    ax.set_xlim(0, top * 1.3)
    ax.set_ylim(-0.7, len(rows) + 0.3)
    ax.set_xlabel("achieved GB/s: the op's minimum device-memory bytes / median time")
    ax.grid(True, axis="x", alpha=0.3)
    if measured_any:
        ax.plot([], [], marker="x", color="tab:red", linestyle="none",
                label="x: DRAM bytes as counted (--metrics) / median time")
        ax.legend(fontsize=7, loc="lower right")
    ax.set_title(f"{title}\n{title_caption(rows, ax)}", fontsize=10)
    add_footnote(fig, [], extra=joined_lines(["roofs:"] + caption, 150), notes=notes, stem=stem)
    return fig


def memory_roofline_charts(mpl, rows, without, notes, requested=()):
    """[(stem, figure)] of the memory-roof pictures of the ops without FLOPs,
    one per op series and size (with --size, only the sizes named)."""
    charts, groups = [], {}
    # an op whose rows have no % of peak (transfer: host copies, not device
    # memory) has no device-memory roof to stand against
    on_device = {r.op for r in rows if r.ok and r.cells.get("pct_of_peak", "").strip()}
    for r in rows:
        if r.ok and r.op in without and r.op in on_device and memory_gbps(r) is not None and (
                not requested or any(cc.size_matches(r, s) for s in requested)):
            groups.setdefault((r.series, r.size_key), []).append(r)
    for (series, _), mine in groups.items():
        stem = f"roofline_{cc.series_slug(series)}_{size_slug(mine[0])}"
        title = (f"Memory roofline: {cc.series_label(series)} at {cc.size_label(mine[0])} "
                 "(no FLOPs: intensity 0, the memory roofs are its roofline)")
        fig = chart_memory_roofline(mpl, mine, notes, title, stem)
        if fig is not None:
            charts.append((stem, fig))
    return charts


def roofline_charts(mpl, rows, notes, requested=()):
    """--roofline: [(stem, figure)], one picture per op series and size (with
    --size, only the sizes named); an op without FLOPs gets its memory roof
    alone (chart_memory_roofline)."""
    points, without = roofline_points(rows, notes)
    if requested:
        points = [p for p in points if any(cc.size_matches(p.row, s) for s in requested)]
        if not points:
            notes.append("note: roofline: no row with FLOPs of the sizes given with --size")
    charts = memory_roofline_charts(mpl, rows, without, notes, requested)
    for (series, _), mine in lay.group_by_case(points):
        for p in mine:
            p.label += " (library)" if p.row.is_library else ""
        row = mine[0].row
        stem = f"roofline_{cc.series_slug(series)}_{size_slug(row)}"
        title = f"Roofline: {cc.series_label(series)} at {cc.size_label(row)}"
        charts.append((stem, chart_roofline(mpl, mine, notes, title, stem)))
    return charts

# ---- main ---------------------------------------------------------------------

def parse_args(argv):
    here = os.path.dirname(os.path.abspath(__file__))
    parser = argparse.ArgumentParser(
        prog="plot.py", description="Charts (PNG and SVG) from compare's CSV files.")
    parser.add_argument("csv", nargs="+", metavar="CSV", help="CSV file written by compare --csv")
    parser.add_argument("--out", default=here, metavar="DIR",
                        help="output directory (default: %(default)s)")
    parser.add_argument("--size", action="append", default=[], metavar="N",
                        help="size of the %%-of-library bar charts: n or MxNxK for matrix ops, "
                             "elements for the others, axes of a shape string (e.g. 4096, "
                             "2^26, sq=4096); repeat for several "
                             "ops; each op takes the first one it has (default: the largest "
                             "size whose rows are all ok)")
    parser.add_argument("--speedup", action="append", default=[], metavar="VARIANT:BASELINE",
                        help="for an op whose CSV has no speedup_vs column: note under its "
                             "%% chart how many times faster VARIANT ran than BASELINE "
                             "(median times), e.g. overlap:pinned; repeat for several")
    parser.add_argument("--roofline", action="store_true",
                        help="write only the roofline pictures, one per op and size "
                             "(roofline_<op>_<size>; with --size, those sizes only), "
                             "instead of the other charts")
    args = parser.parse_args(argv)
    try:
        args.speedup = cc.parse_speedups(args.speedup)
    except ValueError as e:
        parser.error(f"--speedup: expected VARIANT:BASELINE, got {e}")
    try:
        args.size = [cc.parse_size(s) for s in args.size]
    except ValueError:
        parser.error(f"--size: expected a positive integer, 2^K or MxNxK, got {args.size}")
    return args


def skipped_note(rows):
    bad = [r.status for r in rows if not r.ok]
    if not bad:
        return None
    counts = ", ".join(f"{bad.count(s)} {s or '(empty)'}" for s in sorted(set(bad)))
    return f"note: skipped {len(bad)} row(s) whose status is not ok ({counts})"


def make_charts(mpl, rows, requested, notes, roofline_only=False):
    """[(stem, figure)] for every chart the rows allow (--roofline: the
    roofline pictures of each op and size only)."""
    if roofline_only:
        return roofline_charts(mpl, rows, notes, requested)
    charts = []
    for op in ops_present(rows):
        sweep, shapes = split_by_layout(rows, op)
        for stem, make in ((f"{op}_pct_of_library",
                            lambda: chart_pct(mpl, sweep, op, requested, notes)),
                           (f"{op}_throughput", lambda: chart_throughput(mpl, sweep, op, notes)),
                           (f"{op}_shapes_pct_of_library",
                            lambda: chart_shapes(mpl, shapes, op, True, notes)),
                           (f"{op}_shapes_throughput",
                            lambda: chart_shapes(mpl, shapes, op, False, notes))):
            fig = make()
            if fig is not None:
                charts.append((stem, fig))
    fig = chart_roofline_all(mpl, rows, notes, requested)
    if fig is not None:
        charts.append(("roofline", fig))
    return charts


def main(argv):
    args = parse_args(argv)
    mpl = load_matplotlib()
    try:
        rows, notes = cc.read_all(args.csv, cc.PLOT_COLUMNS)
        rows, left_out = cc.newest(cc.with_speedups(rows, args.speedup))
        notes += left_out
    except cc.CsvError as e:
        print(f"plot.py: error: {e}", file=sys.stderr)
        return 2
    note = skipped_note(rows)
    if note:
        notes.insert(0, note)
    charts = make_charts(mpl, rows, args.size, notes, args.roofline)
    for line in notes:
        print(line)
    if not charts:
        what = "no ok row with FLOPs" if args.roofline else "no ok rows"
        print(f"plot.py: error: nothing to plot ({what})", file=sys.stderr)
        return 1
    try:
        os.makedirs(args.out, exist_ok=True)
        for stem, fig in charts:
            for path in save_figure(fig, args.out, stem):
                print(f"wrote {path}")
    except OSError as e:
        print(f"plot.py: error: cannot write into {args.out}: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
