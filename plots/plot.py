#!/usr/bin/env python3
"""plots/plot.py: charts from the CSV files that `compare --csv FILE` writes.

    python3 plots/plot.py [--out DIR] [--size N ...] CSV [CSV...]

Writes, as PNG and SVG, into DIR (default: plots/, beside this script):
  <op>_pct_of_library   each hand variant's % of the reference and of the
                        fastest library, at one size per op (default: the
                        largest size whose rows are all ok; --size picks one:
                        n for sgemm, elements for reduce/sort, e.g. 2^26)
  <op>_throughput       throughput against size, every variant (library
                        lines dashed and grey, hand lines solid)
  roofline              FLOP/s against arithmetic intensity, under the FP32
                        and memory ceilings of each device (sort has no FLOPs:
                        not drawn)
Several CSVs go on the same charts; their series are told apart by device,
commit and/or L2 flush in the legend. Where several runs of one device, commit
and L2 setting measured the same case, the newest run's row is plotted (a note
names the rows left out). Rows whose status is not ok are not plotted.
Each file is written to a temporary name in DIR and renamed into place.

Exit status: 0 charts written; 1 nothing to plot, matplotlib missing or an
output error; 2 bad usage or a CSV that cannot be read or lacks a column.
Reads CSV only; needs matplotlib (pip install -r plots/requirements.txt).
"""

import argparse
import os
import sys

sys.dont_write_bytecode = True  # keep plots/ free of __pycache__
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import csvlib as cc  # noqa: E402

# 14 distinct hand colours: the SGEMM ladder alone has 10 hand variants
HAND_COLORS = ("tab:blue", "tab:orange", "tab:green", "tab:red", "tab:purple",
               "tab:brown", "tab:pink", "tab:olive", "tab:cyan", "navy", "gold",
               "teal", "crimson", "lime")
LIBRARY_COLORS = ("black", "gray", "darkgray", "silver")
LIBRARY_DASHES = ("--", "-.", (0, (1, 1)), (0, (5, 1, 1, 1, 1, 1)))
BAR_COLORS = ("tab:blue", "tab:orange", "tab:green", "tab:purple", "tab:red", "tab:cyan")
SOURCE_MARKERS = ("o", "s", "^", "D", "v", "P", "X")
SOURCE_HATCHES = ("", "//", "..", "xx", "\\\\")
OP_MARKERS = {"sgemm": "o", "reduce": "s"}


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
    """'radix u32' for sort, 'name (tf32)' where the math is not in the name."""
    if row.op == "sort":
        return f"{row.variant} {row.math}"
    if row.math not in ("fp32", "f32", "") and row.math not in row.variant:
        return f"{row.variant} ({row.math})"
    return row.variant


def title_caption(rows):
    sources = sorted({r.source for r in rows})
    flushes = {s[2] for s in sources}
    return "\n".join(cc.source_caption(rows, s) + (f", {cc.flush_label(s[2])}"
                                                   if len(flushes) > 1 else "")
                     for s in sources)


def place_legend(ax, fontsize, loc, handles=None):
    """Legend inside the axes when short, to the right of them when long."""
    count = len(handles) if handles is not None else len(ax.get_legend_handles_labels()[0])
    where = dict(loc="upper left", bbox_to_anchor=(1.01, 1.0)) if count > 8 else dict(loc=loc)
    ax.legend(handles=handles, fontsize=fontsize, handlelength=3.5, **where)
    if count > 8:
        width, height = ax.figure.get_size_inches()
        ax.figure.set_size_inches(width + 3.5, height)


def source_handles(mpl, sources):
    """Legend entries for the marker of each source (none when there is one)."""
    if len(sources) < 2:
        return []
    labels = cc.source_labels(sources)
    return [mpl["Line2D"]([], [], color="gray", linestyle="none", label=labels[s],
                          marker=SOURCE_MARKERS[i % len(SOURCE_MARKERS)])
            for i, s in enumerate(sources)]


def ops_present(rows):
    return [op for op in cc.OPS if any(r.op == op for r in rows)]


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
            hits = [k for k in keys if (k[1] if isinstance(k, tuple) else k) == want]
            if hits:
                return hits[-1], ""
        return None, f"none of the sizes {', '.join(map(str, requested))} is present"
    all_ok = [k for k in keys if all(r.ok for r in rows if r.size_key == k)]
    if all_ok:
        return all_ok[-1], ""
    return keys[-1], "no size has every row ok: using the largest with ok hand rows"


def save_figure(fig, out_dir, stem):
    """Write stem.png and stem.svg via a temporary file and os.replace."""
    written = []
    for ext in ("png", "svg"):
        final = os.path.join(out_dir, f"{stem}.{ext}")
        tmp = os.path.join(out_dir, f".{stem}.{ext}.{os.getpid()}.tmp")
        try:
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o666)
            with os.fdopen(fd, "wb") as f:
                metadata = {"Date": None} if ext == "svg" else None
                fig.savefig(f, format=ext, dpi=150, metadata=metadata)
            os.replace(tmp, final)
        except BaseException:
            if os.path.exists(tmp):
                os.unlink(tmp)
            raise
        written.append(final)
    return written


# ---- chart: % of library at one size -----------------------------------------

def collect_bars(rows, op, requested, notes):
    """[(category, source, slot, library, pct)] for one op; slot 0 = ref, 1 = best."""
    bars = []
    sizes = {}
    for source in sorted({r.source for r in rows if r.op == op}):
        mine = [r for r in rows if r.op == op and r.source == source]
        key, why = pick_size(mine, requested)
        if why:
            notes.append(f"note: {op} ({cc.source_caption(mine, source)}): {why}")
        if key is None:
            continue
        for row in mine:
            if row.size_key != key or not row.ok or row.is_library:
                continue
            sizes[source] = cc.size_label(row)
            pairs = ((row.ref_library, row.pct_of_ref_library),
                     (row.best_library, row.pct_of_best_library))
            for slot, (library, pct) in enumerate(pairs):
                if pct is not None:
                    bars.append((variant_label(row), source, slot, library or "?", pct))
    return bars, sizes


def library_legend_labels(bars):
    roles = {}
    for _, _, slot, library, _ in bars:
        roles.setdefault(library, set()).add(slot)
    labels = {}
    for library, slots in roles.items():
        role = {frozenset({0}): " (reference)", frozenset({1}): " (fastest library)"}
        labels[library] = f"% of {library}" + role.get(frozenset(slots), "")
    return labels


def chart_pct(mpl, rows, op, requested, notes):
    bars, sizes = collect_bars(rows, op, requested, notes)
    if not bars:
        return None
    categories = cc.first_seen(b[0] for b in bars)
    sources = sorted(sizes)
    libraries = cc.first_seen(b[3] for b in bars)
    color = {lib: BAR_COLORS[i % len(BAR_COLORS)] for i, lib in enumerate(libraries)}
    labels = cc.source_labels(sources)
    slots = 2 * len(sources)
    width = 0.8 / slots

    fig = mpl["Figure"](figsize=(max(7.0, 1.3 * len(categories) * len(sources) + 3), 5.5),
                        layout="constrained")
    ax = fig.add_subplot()
    top = 100.0
    for cat, source, slot, library, pct in bars:
        pos = categories.index(cat) - 0.4 + width * (2 * sources.index(source) + slot + 0.5)
        hatch = SOURCE_HATCHES[sources.index(source) % len(SOURCE_HATCHES)]
        container = ax.bar(pos, pct, width, color=color[library], hatch=hatch,
                           edgecolor="white" if not hatch else "black", linewidth=0.5)
        text = f"{pct:.1f}%" if pct < 10 else f"{pct:.0f}%"
        ax.bar_label(container, labels=[text], padding=2, fontsize=8)
        top = max(top, pct)
    ax.axhline(100, color="black", linestyle="--", linewidth=1)
    ax.set_xticks(range(len(categories)), categories)
    ax.set_ylim(0, top * 1.15)
    ax.set_ylabel("% of library throughput (same case)")
    handles = [mpl["Patch"](color=color[lib], label=text)
               for lib, text in library_legend_labels(bars).items()]
    handles.append(mpl["Line2D"]([], [], color="black", linestyle="--", label="library = 100%"))
    if len(sources) > 1:
        handles += [mpl["Patch"](facecolor="white", edgecolor="black",
                                 hatch=SOURCE_HATCHES[i % len(SOURCE_HATCHES)],
                                 label=f"{labels[s]} ({sizes[s]})") for i, s in enumerate(sources)]
        size_text = "per source"
    else:
        size_text = sizes[sources[0]]
    place_legend(ax, 8, "upper left", handles)
    used = [r for r in rows if r.op == op and r.source in sizes]
    ax.set_title(f"{op}: hand kernels as % of library, {size_text}\n{title_caption(used)}",
                 fontsize=10)
    return fig


# ---- chart: throughput against size ------------------------------------------

def throughput_series(rows, op):
    """{(source, is_library, label): [(x, throughput)]} for the ok rows of one op."""
    series = {}
    for row in rows:
        if row.op != op or not row.ok or row.throughput is None or row.size_x is None:
            continue
        key = (row.source, row.is_library, variant_label(row))
        series.setdefault(key, []).append((row.size_x, row.throughput))
    return {k: sorted(v) for k, v in series.items()}


def peak_lines(rows, op):
    """{(device, peak)} in the op's throughput unit: FP32 for sgemm, memory for reduce."""
    column = {"sgemm": "peak_fp32_tflops", "reduce": "peak_mem_gbps"}.get(op)
    if column is None:
        return set()
    return {(r.device, r.values[column]) for r in rows
            if r.op == op and r.ok and r.values.get(column)}


def style_size_axis(mpl, ax, op, xs):
    ax.set_xscale("log", base=2)
    ax.set_xticks(sorted(xs))
    ax.xaxis.set_minor_locator(mpl["ticker"].NullLocator())
    if op == "sgemm":
        ax.set_xticklabels([str(x) for x in sorted(xs)])
        ax.set_xlabel("n (m = n = k where square)")
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


def chart_throughput(mpl, rows, op):
    series = throughput_series(rows, op)
    if not series:
        return None
    sources = sorted({k[0] for k in series})
    styles = line_styles([r for r in rows if r.op == op])
    order = list(styles)
    fig = mpl["Figure"](figsize=(9, 5.5), layout="constrained")
    ax = fig.add_subplot()
    for (source, is_library, name), points in series.items():
        marker = SOURCE_MARKERS[sources.index(source) % len(SOURCE_MARKERS)]
        ax.plot([p[0] for p in points], [p[1] for p in points], marker=marker,
                **styles[(is_library, name)])
    marker = "o" if len(sources) == 1 else None
    handles = [mpl["Line2D"]([], [], marker=marker, **styles[key],
                             label=key[1] + (" (library)" if key[0] else ""))
               for key in order if any(k[1:] == key for k in series)]
    for device, peak in sorted(peak_lines(rows, op)):
        what = "FP32 peak" if op == "sgemm" else "memory bandwidth"
        handles.append(ax.axhline(peak, color="tab:red", linestyle=":", linewidth=1.2,
                                  label=f"{what}, {device}: {cc.fmt_sig(peak)} {cc.OPS[op].unit}"))
    handles += source_handles(mpl, sources)
    values = [p[1] for pts in series.values() for p in pts if p[1] > 0]
    if values and max(values) / min(values) > 20:
        ax.set_yscale("log")
    else:
        ax.set_ylim(bottom=0)
    style_size_axis(mpl, ax, op, {p[0] for pts in series.values() for p in pts})
    ax.set_ylabel(cc.OPS[op].unit + (" (input read)" if op == "reduce" else ""))
    ax.grid(True, which="major", alpha=0.3)
    place_legend(ax, 8, "best", handles)
    used = [r for r in rows if r.op == op and r.ok]
    ax.set_title(f"{op}: throughput against size\n{title_caption(used)}", fontsize=10)
    return fig


# ---- chart: roofline ------------------------------------------------------------

def roofline_points(rows):
    """{(source, op, is_library, label): [(intensity, TFLOP/s)]} and the sort count."""
    points = {}
    left_out = 0
    for row in rows:
        if not row.ok:
            continue
        if not row.flops or not row.bytes or not row.time_ms_median:
            left_out += 1
            continue
        key = (row.source, row.op, row.is_library, variant_label(row))
        tflops = row.flops / (row.time_ms_median * 1e-3) / 1e12
        points.setdefault(key, []).append((row.flops / row.bytes, tflops))
    return {k: sorted(v) for k, v in points.items()}, left_out


def ceilings(rows):
    """{(device, fp32 TFLOP/s, memory GB/s)} of the devices with both peaks."""
    return {(r.device, r.peak_fp32_tflops, r.peak_mem_gbps) for r in rows
            if r.ok and r.peak_fp32_tflops and r.peak_mem_gbps}


def roofline_styles(rows, points):
    """[((op, is_library, label), Line2D keyword arguments)] in CSV order."""
    order = cc.first_seen((r.op, r.is_library, variant_label(r)) for r in rows)
    order = [k for k in order if not k[1]] + [k for k in order if k[1]]
    styles = []
    for op, is_library, name in order:
        if not any(k[1:] == (op, is_library, name) for k in points):
            continue
        palette = LIBRARY_COLORS if is_library else HAND_COLORS
        color = palette[sum(1 for k, _ in styles if k[1] == is_library) % len(palette)]
        styles.append(((op, is_library, name), dict(
            color=color, markeredgecolor=color, markeredgewidth=1.5, markersize=8,
            markerfacecolor="white" if is_library else color, linestyle="none")))
    return styles


def draw_ceilings(ax, roofs, lo, hi):
    """One roofline per device: memory slope up to the ridge, then the FP32 roof."""
    handles = []
    for i, (device, peak, bw) in enumerate(roofs):
        ridge = peak / (bw * 1e-3)
        line, = ax.plot([lo, ridge, hi], [bw * 1e-3 * lo, peak, peak], color="tab:red",
                        linestyle=("-", "--", ":", "-.")[i % 4], linewidth=2,
                        label=f"{device}: FP32 {cc.fmt_sig(peak)} TFLOP/s, "
                              f"memory {cc.fmt_sig(bw * 1e-3)} TB/s")
        handles.append(line)
    return handles


def chart_roofline(mpl, rows, notes):
    points, left_out = roofline_points(rows)
    if not points:
        notes.append("note: roofline: no ok row with FLOPs and bytes: chart not written")
        return None
    sources = sorted({k[0] for k in points})
    fig = mpl["Figure"](figsize=(9, 6), layout="constrained")
    ax = fig.add_subplot()
    xs = [p[0] for pts in points.values() for p in pts]
    roofs = sorted(ceilings(rows))
    ridges = [peak / (bw * 1e-3) for _, peak, bw in roofs]
    lo, hi = min(xs + ridges) / 4, max(xs + ridges) * 4
    handles = draw_ceilings(ax, roofs, lo, hi)
    styles = roofline_styles(rows, points)
    for key, style in styles:
        op = key[0]
        for source in sources:
            pts = points.get((source,) + key)
            if not pts:
                continue
            marker = (OP_MARKERS.get(op, "o") if len(sources) == 1
                      else SOURCE_MARKERS[sources.index(source) % len(SOURCE_MARKERS)])
            ax.plot([p[0] for p in pts], [p[1] for p in pts], marker=marker, **style)
        label = f"{op} {key[2]}" + (" (library)" if key[1] else "")
        handles.append(mpl["Line2D"]([], [], marker=OP_MARKERS.get(op, "o"), label=label,
                                     **style))
    handles += source_handles(mpl, sources)
    sort_rows = sum(1 for r in rows if r.ok and r.op == "sort")
    if sort_rows:
        handles.append(mpl["Line2D"]([], [], linestyle="none",
                                     label=f"sort: {sort_rows} rows not drawn (no FLOPs)"))
    if left_out > sort_rows:
        notes.append(f"note: roofline: {left_out - sort_rows} ok non-sort row(s) lack FLOPs, "
                     "bytes or time: not drawn")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlim(lo, hi)
    ax.set_xlabel("arithmetic intensity (FLOP per byte of minimum device-memory traffic)")
    ax.set_ylabel("achieved TFLOP/s (log)")
    ax.grid(True, which="major", alpha=0.3)
    place_legend(ax, 7, "lower right", handles)
    footnotes = ["Sort rows have no FLOPs and are not drawn."] if sort_rows else []
    if any(r.ok and r.math == "tf32" for r in rows):
        footnotes.append("TF32 rows use tensor cores and may pass the FP32 ceiling.")
    if footnotes:
        ax.text(0.01, 0.99, "\n".join(footnotes), transform=ax.transAxes, fontsize=8,
                ha="left", va="top")
    used = [r for r in rows if r.ok]
    ax.set_title(f"Roofline (FP32 and memory ceilings)\n{title_caption(used)}", fontsize=10)
    return fig


# ---- main ---------------------------------------------------------------------

def parse_args(argv):
    here = os.path.dirname(os.path.abspath(__file__))
    parser = argparse.ArgumentParser(
        prog="plot.py", description="Charts (PNG and SVG) from compare's CSV files.")
    parser.add_argument("csv", nargs="+", metavar="CSV", help="CSV file written by compare --csv")
    parser.add_argument("--out", default=here, metavar="DIR",
                        help="output directory (default: %(default)s)")
    parser.add_argument("--size", action="append", default=[], metavar="N",
                        help="size of the %%-of-library bar charts: n for sgemm, elements for "
                             "reduce/sort (e.g. 4096, 2^26); repeat for several ops; each op "
                             "takes the first one it has (default: the largest all-ok size)")
    args = parser.parse_args(argv)
    try:
        args.size = [cc.parse_size(s) for s in args.size]
    except ValueError:
        parser.error(f"--size: expected a positive integer or 2^K, got {args.size}")
    return args


def skipped_note(rows):
    bad = [r.status for r in rows if not r.ok]
    if not bad:
        return None
    counts = ", ".join(f"{bad.count(s)} {s or '(empty)'}" for s in sorted(set(bad)))
    return f"note: skipped {len(bad)} row(s) whose status is not ok ({counts})"


def make_charts(mpl, rows, requested, notes):
    """[(stem, figure)] for every chart the rows allow."""
    charts = []
    for op in ops_present(rows):
        fig = chart_pct(mpl, rows, op, requested, notes)
        if fig is not None:
            charts.append((f"{op}_pct_of_library", fig))
        fig = chart_throughput(mpl, rows, op)
        if fig is not None:
            charts.append((f"{op}_throughput", fig))
    fig = chart_roofline(mpl, rows, notes)
    if fig is not None:
        charts.append(("roofline", fig))
    return charts


def main(argv):
    args = parse_args(argv)
    mpl = load_matplotlib()
    try:
        rows, notes = cc.read_all(args.csv, cc.PLOT_COLUMNS)
        rows, left_out = cc.newest(rows)
        notes += left_out
    except cc.CsvError as e:
        print(f"plot.py: error: {e}", file=sys.stderr)
        return 2
    note = skipped_note(rows)
    if note:
        notes.insert(0, note)
    charts = make_charts(mpl, rows, args.size, notes)
    for line in notes:
        print(line)
    if not charts:
        print("plot.py: error: nothing to plot (no ok rows)", file=sys.stderr)
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
