#!/usr/bin/env python3
"""tests/check_roofline.py: ctest driver for the roofline pictures (label cpu).

    check_roofline.py --plots plots/ --work DIR [--why TEXT]

Checks, on fake CSVs written into DIR (none of them measured):
  peaks     plots/peaks.py: lookup by compute capability and board name (H200,
            A100-SXM4, RTX 4090; L40S, B200 and H20 unknown), the roofs of a
            device (tensor roofs at the CSV's clock, the row's own peak_tflops
            first, HBM from the CSV, L2 only where published), and that its
            rates are src/core/peaks.c's, row for row.
  spread    four hand reduce kernels and the library at one intensity and
            close rates: on the drawn figure (plot.py's own chart function)
            five markers at five different x, each near the true intensity,
            a grey leader from a tick there, every variant in the legend,
            the footnote saying so; points at distinct rates or intensities
            stay put.
  legacy    a CSV without the newer columns (no intensity, peak_math,
            peak_tflops, kernel, shape): plot.py --roofline writes one picture
            per op and size (with --size, that size's only), plot.py alone
            the overview roofline; an op without FLOPs is left out with a
            note, and alone it exits 1.
  intensity a CSV with `intensity` (and intensity_measured): the point is
            drawn at that intensity, not flops/bytes, the axis says so, and the
            measured intensity gets its own marker.
Without matplotlib: SKIPPED (exit 77), a failure with COMPARE_REQUIRE_PLOTS=1.
"""

import argparse
import csv
import importlib
import math
import os
import re
import shutil
import subprocess
import sys

SKIP_EXIT = 77
HEADER = ("timestamp,git_commit,device,cc,driver,cuda_runtime,cublas_version,seed,"
          "l2_flush,op,variant,library,math,m,n,k,elems,samples,time_ms_median,"
          "time_ms_min,time_ms_q1,time_ms_q3,spread_pct,tflops,gbps,gkeys_per_s,"
          "ref_library,pct_of_ref_library,best_library,pct_of_best_library,pct_of_peak,"
          "rel_err,tolerance,status,flops,bytes,peak_fp32_tflops,peak_mem_gbps").split(",")
ELEMS = 1 << 26
REDUCE_FLOPS, REDUCE_BYTES = ELEMS, 4 * ELEMS  # intensity 0.25
SORT_SLUG = "2pow26"  # the file-name size of ELEMS
# (variant, library, median ms): four hand kernels and cub within a few percent
REDUCE_ROWS = (("interleaved", 0, 0.0600), ("sequential", 0, 0.0595), ("shuffle", 0, 0.0590),
               ("vec4", 0, 0.0585), ("cub", 1, 0.0580))


class CheckFailed(Exception):
    pass


def check(cond, text):
    if not cond:
        raise CheckFailed(text)


def row(op, variant, library, ms, flops, nbytes, **extra):
    cells = dict.fromkeys(HEADER, "")
    cells.update(timestamp="2026-12-03T12:00:00Z", git_commit="0123456789ab",
                 device="NVIDIA H200", cc="9.0", l2_flush="1", op=op, variant=variant,
                 library=str(library), math="fp32", samples="50", time_ms_median=str(ms),
                 status="ok", flops=str(flops), bytes=str(nbytes),
                 peak_fp32_tflops="66.90816", peak_mem_gbps="4814.304")
    if op in ("reduce", "sort"):
        cells["elems"] = str(ELEMS)
    cells.update({k: str(v) for k, v in extra.items()})
    return cells


def write_csv(path, rows, extra_columns=()):
    with open(path, "w", newline="", encoding="utf-8") as f:
        w = csv.DictWriter(f, fieldnames=HEADER + list(extra_columns))
        w.writeheader()
        for r in rows:
            w.writerow({c: r.get(c, "") for c in HEADER + list(extra_columns)})
    return path


def run_plot(plots, *args):
    result = subprocess.run([sys.executable, os.path.join(plots, "plot.py")] + list(args),
                            capture_output=True, text=True, timeout=300)
    return result.returncode, result.stdout, result.stderr


# ---- peaks -------------------------------------------------------------------------

def check_peaks(plots, pk):
    h200 = pk.lookup("9.0", "NVIDIA H200")
    check(h200 is not None and h200.rates["tf32"] == 2048 and h200.rates["fp8"] == 8192,
          f"lookup 9.0 NVIDIA H200: {h200}")
    check(pk.lookup("sm_90", "NVIDIA H100 80GB HBM3") is h200, "sm_90 H100 80GB HBM3")
    check(pk.lookup("90", "NVIDIA H200") is h200, "cc '90'")
    a100 = pk.lookup("8.0", "NVIDIA A100-SXM4-80GB")
    check(a100 is not None and a100.rates["tf32"] == 1024 and "fp8" not in a100.rates
          and a100.l2_gbps > 0, f"lookup 8.0 A100-SXM4-80GB: {a100}")
    ada = pk.lookup("8.9", "NVIDIA GeForce RTX 4090")
    check(ada is not None and ada.rates["fp8"] == 1024, f"lookup 8.9 RTX 4090: {ada}")
    for cc, name in (("8.9", "NVIDIA L40S"), ("10.0", "NVIDIA B200"), ("9.0", "NVIDIA H20"),
                     ("8.0", "NVIDIA H200"), ("", "NVIDIA H200")):
        check(pk.lookup(cc, name) is None, f"lookup {cc!r} {name}: expected none")
    check(pk.fp32_rate("9.0") == 256 and pk.fp32_rate("8.0") == 128 and pk.fp32_rate("8.6") == 256,
          "fp32 rates per clock and SM")
    # the table mirrors src/core/peaks.c row for row
    src = open(os.path.join(plots, "..", "src", "core", "peaks.c"), encoding="utf-8").read()
    c_rows = re.findall(r'\{\s*(\d+),\s*(\d+),\s*"([^"]+)",\s*(\d+),\s*(\d+),\s*(\d+),\s*(\d+)\s*\}',
                        src)
    check(len(c_rows) == len(pk.TABLE), f"peaks.c has {len(c_rows)} rows, peaks.py {len(pk.TABLE)}")
    for (major, minor, boards, *rates), board in zip(c_rows, pk.TABLE):
        want = {m: int(v) for m, v in zip(pk.MATHS, rates) if int(v)}
        check((f"{major}.{minor}", tuple(boards.split("|")), want)
              == (board.cc, board.boards, board.rates),
              f"peaks.py {board} differs from peaks.c {{{major}, {minor}, {boards}, {rates}}}")


class FakeRow:
    def __init__(self, cells):
        self.cells = cells
        self.values = {c: float(cells[c]) for c in ("peak_fp32_tflops", "peak_mem_gbps",
                                                    "peak_tflops") if cells.get(c)}


def check_roofs(pk):
    rows = [FakeRow(row("sgemm", "naive", 0, 1.0, 1, 1, peak_math="fp32",
                        peak_tflops="66.0")),
            FakeRow(row("sgemm", "tf32_mma", 0, 1.0, 1, 1, peak_math="tf32",
                        peak_tflops="500.0"))]
    roofs = pk.device_roofs(rows)
    got = {r.name: (r.value, r.source) for r in roofs.roofs}
    check(got["FP32 SIMT"][0] == 66.90816 and "peak_fp32_tflops" in got["FP32 SIMT"][1],
          f"FP32 roof: {got}")
    check(got["TF32 tensor"] == (500.0, "CSV peak_tflops"), f"TF32 roof from the row: {got}")
    check(math.isclose(got["BF16 tensor"][0], 66.90816 * 16) and "peaks.py" in got["BF16 tensor"][1],
          f"BF16 roof at the CSV's clock: {got}")
    check(math.isclose(got["FP8 tensor"][0], 66.90816 * 32), f"FP8 roof: {got}")
    check(got["HBM"][0] == 4814.304 and "L2" not in got, f"memory roofs: {got}")
    check(any(m.startswith("L2:") for m in roofs.missing), f"L2 missing named: {roofs.missing}")
    merged = [name for name, _ in pk.merged(roofs.compute())]
    check("FP16/BF16 tensor" in merged, f"merged roofs: {merged}")
    a100 = [FakeRow(row("sgemm", "naive", 0, 1.0, 1, 1, device="NVIDIA A100-SXM4-40GB",
                        cc="8.0", peak_fp32_tflops="19.49", peak_mem_gbps="1555"))]
    names = {r.name for r in pk.device_roofs(a100).roofs}
    check({"L2", "HBM", "TF32 tensor", "FP16 tensor", "BF16 tensor"} <= names
          and "FP8 tensor" not in names, f"A100 roofs: {names}")
    l40s = pk.device_roofs([FakeRow(row("sgemm", "naive", 0, 1.0, 1, 1, device="NVIDIA L40S",
                                        cc="8.9"))])
    check([r.name for r in l40s.compute()] == ["FP32 SIMT"]
          and any("not in plots/peaks.py" in m for m in l40s.missing),
          f"L40S: FP32 only, said so: {l40s}")


# ---- layout and drawing ------------------------------------------------------------

def drawn_points(fig):
    ax = fig.axes[0]
    return {line.get_gid()[len("point:"):]: (line.get_xdata()[0], line.get_ydata()[0])
            for line in ax.get_lines() if (line.get_gid() or "").startswith("point:")}


def load_rows(plots, paths):
    import csvlib
    rows, _ = csvlib.read_all(paths, csvlib.PLOT_COLUMNS)
    return rows


def check_spread(plots, work, plot, lay):
    path = write_csv(os.path.join(work, "reduce_same_intensity.csv"),
                     [row("reduce", v, lib, ms, REDUCE_FLOPS, REDUCE_BYTES)
                      for v, lib, ms in REDUCE_ROWS]
                     + [row("reduce", "cpu_omp", 0, 3.0, REDUCE_FLOPS, REDUCE_BYTES)])
    mpl = plot.load_matplotlib()
    notes = []
    charts = plot.make_charts(mpl, load_rows(plots, [path]), [], notes, roofline_only=True)
    check([stem for stem, _ in charts] == ["roofline_reduce_2pow26"],
          f"one picture per op and size: {[s for s, _ in charts]}")
    fig = charts[0][1]
    pts = drawn_points(fig)
    names = [v + (" (library)" if lib else "") for v, lib, _ in REDUCE_ROWS]
    check(set(names) | {"cpu_omp"} == set(pts), f"drawn points: {sorted(pts)}")
    xs = sorted(pts[n][0] for n in names)
    check(all(b / a > 1.05 for a, b in zip(xs, xs[1:])),
          f"markers at one intensity must not share an x: {xs}")
    check(all(abs(math.log10(x / 0.25)) <= lay.X_SPREAD_MAX_DECADES + 1e-9 for x in xs),
          f"spread markers stay near intensity 0.25: {xs}")
    check(math.isclose(pts["cpu_omp"][0], 0.25), f"a lone point stays put: {pts['cpu_omp']}")
    ax = fig.axes[0]
    check(any(line.get_gid() == "spread-tick" and math.isclose(line.get_xdata()[0], 0.25)
              for line in ax.get_lines()), "no grey leader from the true intensity")
    legend = [t.get_text() for t in ax.get_legend().get_texts()]
    check(all(n in legend for n in names + ["cpu_omp"]), f"legend labels: {legend}")
    check(any(plot.SPREAD_NOTE in n for n in notes), f"footnote names the spread: {notes}")
    roofs = {line.get_gid() for line in ax.get_lines() if (line.get_gid() or "").startswith("roof:")}
    check({"roof:FP32 SIMT", "roof:TF32 tensor", "roof:FP16/BF16 tensor", "roof:FP8 tensor",
           "roof:HBM"} <= roofs, f"roofs drawn: {roofs}")
    check(any("L2: no published figure" in n for n in notes), f"L2 absence said: {notes}")
    # the layout rule alone: far-apart rates or intensities are not moved
    a = lay.Point(None, "a", 1.0, 1.0)
    b = lay.Point(None, "b", 1.0, 10.0)
    c = lay.Point(None, "c", 2.0, 1.0)
    check(lay.spread([a, b, c], 5.0) == [] and (a.x, b.x, c.x) == (1.0, 1.0, 2.0),
          "points apart were moved")


def check_legacy(plots, work):
    legacy = write_csv(os.path.join(work, "legacy.csv"),
                       [row("reduce", v, lib, ms, REDUCE_FLOPS, REDUCE_BYTES)
                        for v, lib, ms in REDUCE_ROWS]
                       + [row("sort", "radix", 0, 1.0, 0, 2 * REDUCE_BYTES, pct_of_peak="11.2")]
                       + [row("sgemm", "naive", 0, 10.0, 2 * 1024 ** 3, 3 * 4 * 1024 ** 2,
                              m=1024, n=1024, k=1024)])
    out = os.path.join(work, "legacy_out")
    shutil.rmtree(out, ignore_errors=True)
    rc, so, se = run_plot(plots, "--roofline", "--out", out, legacy)
    check(rc == 0, f"plot.py --roofline on a CSV without the new columns: exit {rc}\n{se}")
    made = sorted(os.listdir(out))
    # sort counts no FLOPs: its picture is the memory roof alone
    check(made == ["roofline_reduce_2pow26.png", "roofline_reduce_2pow26.svg",
                   "roofline_sgemm_1024.png", "roofline_sgemm_1024.svg",
                   f"roofline_sort_{SORT_SLUG}.png", f"roofline_sort_{SORT_SLUG}.svg"],
          f"written: {made}")
    check("sort: no FLOP count" in so, f"the op without FLOPs is named:\n{so}")
    shutil.rmtree(out)
    rc, so, se = run_plot(plots, "--roofline", "--size", "2^26", "--out", out, legacy)
    made = sorted(os.listdir(out)) if rc == 0 else []
    check(made == ["roofline_reduce_2pow26.png", "roofline_reduce_2pow26.svg",
                   f"roofline_sort_{SORT_SLUG}.png", f"roofline_sort_{SORT_SLUG}.svg"],
          f"--roofline --size 2^26: exit {rc}, written {made}\n{se}")
    rc, so, se = run_plot(plots, "--out", out, legacy)
    check(rc == 0 and os.path.exists(os.path.join(out, "roofline.png")),
          f"plot.py without --roofline: exit {rc}, the overview roofline\n{se}")
    sort_only = write_csv(os.path.join(work, "sort_only.csv"),
                          [row("sort", "radix", 0, 1.0, 0, 2 * REDUCE_BYTES, pct_of_peak="11.2")])
    rc, so, se = run_plot(plots, "--roofline", "--out", os.path.join(work, "sort_out"), sort_only)
    made = sorted(os.listdir(os.path.join(work, "sort_out"))) if rc == 0 else []
    check(rc == 0 and made == [f"roofline_sort_{SORT_SLUG}.png", f"roofline_sort_{SORT_SLUG}.svg"]
          and "sort: no FLOP count" in so,
          f"--roofline on an op without FLOPs (its memory roof alone): exit {rc}, {made}\n{so}{se}")
    # an op without FLOPs and without a % of peak (host copies): no picture at all
    no_peak = write_csv(os.path.join(work, "no_peak.csv"),
                        [row("sort", "radix", 0, 1.0, 0, 2 * REDUCE_BYTES, pct_of_peak="")])
    rc, so, se = run_plot(plots, "--roofline", "--out", os.path.join(work, "no_peak_out"), no_peak)
    check(rc == 1 and "no ok row with FLOPs" in se,
          f"--roofline on an op without FLOPs or a device-memory peak: exit {rc}\n{so}{se}")


def check_intensity(plots, work, plot):
    path = write_csv(os.path.join(work, "with_intensity.csv"),
                     [row("reduce", "vec4", 0, 0.06, REDUCE_FLOPS, REDUCE_BYTES,
                          intensity="0.5", intensity_measured="0.2")],
                     extra_columns=("intensity", "intensity_measured", "bound"))
    mpl = plot.load_matplotlib()
    charts = plot.make_charts(mpl, load_rows(plots, [path]), [], [], roofline_only=True)
    fig = charts[0][1]
    pts = drawn_points(fig)
    check(math.isclose(pts["vec4"][0], 0.5), f"x from the intensity column (0.5): {pts}")
    ax = fig.axes[0]
    check("intensity column" in ax.get_xlabel(), f"x label: {ax.get_xlabel()}")
    check(any(line.get_marker() == "x" and math.isclose(line.get_xdata()[0], 0.2)
              for line in ax.get_lines()), "no x marker at the measured intensity 0.2")
    legend = [t.get_text() for t in ax.get_legend().get_texts()]
    check(plot.MEASURED_LEGEND in legend, f"legend: {legend}")


def main(argv):
    parser = argparse.ArgumentParser()
    parser.add_argument("--plots", required=True)
    parser.add_argument("--work", required=True)
    parser.add_argument("--why", default="")
    args = parser.parse_args(argv)
    try:
        importlib.import_module("matplotlib")
    except ImportError as e:
        text = f"matplotlib is not importable by {sys.executable} ({e})" + (
            f"; configure said: {args.why}" if args.why else "")
        if os.environ.get("COMPARE_REQUIRE_PLOTS") == "1":
            print(f"FAIL: {text} (COMPARE_REQUIRE_PLOTS=1)")
            return 1
        print(f"SKIPPED: {text}")
        return SKIP_EXIT
    sys.dont_write_bytecode = True
    sys.path.insert(0, os.path.abspath(args.plots))
    pk = importlib.import_module("peaks")
    lay = importlib.import_module("roofline_layout")
    plot = importlib.import_module("plot")
    shutil.rmtree(args.work, ignore_errors=True)
    os.makedirs(args.work)
    checks = (("peaks", lambda: (check_peaks(args.plots, pk), check_roofs(pk))),
              ("spread", lambda: check_spread(args.plots, args.work, plot, lay)),
              ("legacy", lambda: check_legacy(args.plots, args.work)),
              ("intensity", lambda: check_intensity(args.plots, args.work, plot)))
    failed = 0
    for name, fn in checks:
        try:
            fn()
            print(f"ok: {name}")
        except CheckFailed as e:
            failed += 1
            print(f"FAIL: {name}: {e}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
