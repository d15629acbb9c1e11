#!/usr/bin/env python3
"""tests/check_tables_newop.py: plots/tables.py on ops that no Python file
names, run by `check_tables.py --newop` (ctest test_tables_newop, label cpu;
standard library only).

Why: what a table needs of an op (its unit, its %peak ceiling, its series,
how its sizes read, a speed-up pair) comes from the CSV's columns, so a new
op's CSV is tabled with no change to plots/. This holds that promise.

CSV is tests/data/synthetic_newop.csv: ops softmax and attention, which
plots/ never names, with the columns a newer compare writes: a `shape`
column (the canonical axis string, m, n, k, elems empty) and `speedup_vs`.
softmax: GB/s with a %peak (memory bandwidth), fp32 and bf16 rows of each
variant (two series), a sweep over one axis (cols), a FAIL row, online's
speed-up over naive from speedup_vs. attention: TFLOP/s, no %peak, a list of
shapes that differ in several axes (kept in CSV order). Checks:
  1. each selection prints the Markdown lines below, in that order;
  2. --sizes picks rows by the axes of a shape;
  3. --readme fills a block of the new op (op=softmax) with exactly the
     printed table; op= of an op the CSV does not hold exits 2 naming it;
  4. a plot= block is the picture and a caption naming its CSV; a picture
     whose PNG says (Source metadata, as plot.py writes it) it was drawn from
     another CSV, or an absent one, exits 2 and leaves the README as it was.
"""

import os
import struct
import zlib

from checklib import CheckFailed, block, read, readme_fixture, run, run_ok

# (name, tables.py arguments after the CSV, lines that must appear in this order)
EXPECTED = (
    ('softmax', ['--op', 'softmax'], [
        '**softmax fp32, rows=4096,cols=1024**',
        '| variant | median ms | spread % | GB/s | % of cudnn | % of memory BW | rel err | status |',
        '| online | 0.01063 | 1.0 | 3158 | 105.3 | 65.7 | 1.0e-07 | ok |',
        'online: 2.11x the speed of naive (median time ratio)',
        '**softmax fp32, rows=4096,cols=4096**',
        '**softmax fp32: hand kernels as % of library throughput**',
        '| variant | % of | rows=4096,cols=1024 | rows=4096,cols=4096 |',
        '| online | speed-up vs naive | 2.11x | 2.11x |',
        '**softmax bf16, rows=4096,cols=1024**',
        '| naive | - | - | - | - | - | 5.0e-01 | FAIL: rel err 5.0e-01 above tolerance 1.0e-02 |',
        '**softmax bf16: hand kernels as % of library throughput**',
        '| naive | cudnn | 50.0 | FAIL |',
        '| online | speed-up vs naive | 2.11x | - |',
    ]),
    ('attention', ['--op', 'attention'], [
        '**attention, b=4,h=32,sq=1024,skv=1024,d=128,causal=1**',
        '| variant | median ms | spread % | TFLOP/s | % of cudnn_sdpa | % of peak | rel err | status |',
        '| flash_hand | 0.1074 | 1.0 | 320 | 80.0 | - | 2.0e-04 | ok |',
        '**attention, b=1,h=32,sq=4096,skv=4096,d=128,causal=1**',
        '| flash_hand (fp16) | cudnn_sdpa | 80.0 | 80.0 |',
    ]),
    ('attention_shapes', ['--op', 'attention', '--view', 'shapes'], [
        '**attention: hand kernels as % of library throughput, per shape** (% of cudnn_sdpa)',
        '| shape | cudnn_sdpa TFLOP/s | flash_hand (fp16) |',
        '| b=4,h=32,sq=1024,skv=1024,d=128,causal=1 | 400 | 80.0 |',
        '| b=1,h=32,sq=4096,skv=4096,d=128,causal=1 | 400 | 80.0 |',
    ]),
    ('sizes_by_axis', ['--op', 'softmax', '--view', 'sizes', '--sizes', 'cols=4096'], [
        '**softmax fp32, rows=4096,cols=4096**',
        '**softmax bf16, rows=4096,cols=4096**',
    ]),
)
# what the selection must not print
FORBIDDEN = {
    'softmax': ['attention'],
    'attention': ['softmax', '% of memory BW'],
    'sizes_by_axis': ['cols=1024', 'hand kernels'],
}

README = """\
# new ops

<!-- tables:softmax:begin csv=results/newop.csv op=softmax view=ladder -->
stale
<!-- tables:softmax:end -->
"""

UNKNOWN = """\
<!-- tables:none:begin csv=results/newop.csv op=layernorm view=ladder -->
<!-- tables:none:end -->
"""


def require_in_order(text, lines, what):
    at = 0
    for line in lines:
        found = text.find(line + "\n", at)
        if found < 0:
            raise CheckFailed(f"{what}: expected, after what came before, the line\n{line}\n"
                              f"--- got:\n{text}")
        at = found + len(line)


def check_expected(script, csv_path):
    for name, args, lines in EXPECTED:
        out = run_ok(script, csv_path, *args)
        require_in_order(out, lines, f"{name} ({' '.join(args)})")
        for bad in FORBIDDEN.get(name, []):
            if bad in out:
                raise CheckFailed(f"{name}: printed {bad!r}, which it must not:\n{out}")
        print(f"ok: {name}: {' '.join(args)}")


def check_readme(script, csv_path, work):
    readme = readme_fixture(work, csv_path, "newop.csv", README)
    run_ok(script, "--readme", readme)
    text = read(readme)
    want = run_ok(script, csv_path, "--op", "softmax", "--view", "ladder")
    if block(text, "softmax").strip() != want.strip() or "stale" in text:
        raise CheckFailed(f"block softmax differs from tables.py --op softmax:\n{text}")
    run_ok(script, "--readme", readme, "--check")
    with open(readme, "a", encoding="utf-8") as f:
        f.write(UNKNOWN)
    before = read(readme)
    rc, _, err = run(script, "--readme", readme)
    if rc != 2 or "op=layernorm: no row of that op" not in err or "softmax, attention" not in err \
            or read(readme) != before:
        raise CheckFailed(f"op= of an op the CSV lacks: exit {rc} (expected 2, naming it and "
                          f"the ops there, the README unchanged)\n{err}")
    print("ok: --readme fills a block of the new op; an op the CSV lacks exits 2: "
          f"{err.strip()}")


def write_png(path, source):
    """A 1x1 grey PNG whose tEXt Source is `source` (what plot.py writes)."""
    def chunk(kind, data):
        return (struct.pack(">I", len(data)) + kind + data
                + struct.pack(">I", zlib.crc32(kind + data) & 0xffffffff))
    with open(path, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 1, 1, 8, 0, 0, 0, 0))
                + chunk(b"tEXt", b"Source\0" + source.encode("latin-1"))
                + chunk(b"IDAT", zlib.compress(b"\0\x80")) + chunk(b"IEND", b""))


PICTURE = """<!-- tables:pic:begin csv=results/newop.csv op=softmax plot=pics/softmax_throughput.png -->
<!-- tables:pic:end -->
"""
CAPTION = ("_Drawn from [`results/newop.csv`](results/newop.csv): NVIDIA H200, 2026-12-03, "
           "commit feedface0001_")


def check_picture(script, csv_path, work):
    readme = readme_fixture(work, csv_path, "newop.csv", PICTURE)
    os.makedirs(os.path.join(work, "pics"), exist_ok=True)
    png = os.path.join(work, "pics", "softmax_throughput.png")
    write_png(png, "results/h200/newop.csv")  # the same file name, as plot.py was given it
    run_ok(script, "--readme", readme)
    want = f"![softmax throughput](pics/softmax_throughput.png)\n\n{CAPTION}\n"
    if block(read(readme), "pic").strip() != want.strip():
        raise CheckFailed(f"plot= block: expected\n{want}--- got:\n{read(readme)}")
    print("ok: a plot= block is the picture and a caption naming its CSV")
    for source, needle in (("results/h200/sweep.csv", "was drawn from results/h200/sweep.csv"),
                           (None, "does not exist")):
        before = read(readme)
        if source:
            write_png(png, source)
        else:
            os.unlink(png)
        rc, _, err = run(script, "--readme", readme)
        if rc != 2 or needle not in err or read(readme) != before:
            raise CheckFailed(f"plot= of a picture {needle}: exit {rc} (expected 2 and the "
                              f"README unchanged)\n{err}")
        print(f"ok: a picture that {needle}: exit 2, {err.strip()}")


def check_all(script, csv_path, work):
    check_expected(script, csv_path)
    check_readme(script, csv_path, work)
    check_picture(script, csv_path, work)
