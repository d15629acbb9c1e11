#!/usr/bin/env python3
"""tests/check_diff.py: ctest driver for plots/compare_csv.py diff and for how
the CSV tools merge several runs (label cpu; standard library only).

    check_diff.py CHECK --plots plots/ --work DIR CSV

CSV is tests/data/synthetic.csv; each check writes variants of it into DIR
(the "new" runs carry another commit, a later timestamp and two extra columns
that the tools do not know, placed mid-row) and runs the tools on them:

  identical       a file against itself, and against its re-run with the same
                  figures under another commit: exit 0, every ok hand row compared
  regression      one hand row (sgemm tiled32, n=2048) 5% slower: exit 1 and the
                  summary names it and nothing else; a row that now FAILs is
                  listed as not compared; rows in one file only are listed
  threshold       one hand row 2% lower: exit 0 under --threshold 3 (and the
                  default), exit 1 under --threshold 1; every row 10% slower,
                  libraries included (a cooler day): exit 0
  missing-column  NEW without pct_of_ref_library, an absent file, a negative
                  threshold: exit 2, the message naming the column or file
  merge-runs      runs of one device and commit (flushed, unflushed, and a
                  later re-run of the flushed one): every run's rows are read,
                  tables.py shows the flushed and unflushed runs apart and the
                  newest of the re-runs; diff on a merged CSV uses its newest run;
                  one run on two GPUs keeps both GPUs' rows, shown apart
"""

import argparse
import csv
import os
import sys

from checklib import CheckFailed, fresh_work_dir, run

NEW_COMMIT = "b7e0c1d2a3f4"
NEW_TIMESTAMP = "2026-12-01T08:00:00Z"
EXTRA_COLUMNS = {"kernel": "k_{variant}", "sm_clock_mhz": "1980"}  # unknown to the tools
SENTINEL = ".check_diff"


# ---- synthetic CSVs -------------------------------------------------------------

def read_fixture(path):
    with open(path, newline="", encoding="utf-8") as f:
        reader = csv.DictReader(f)
        return list(reader.fieldnames), [dict(r) for r in reader]


def write_csv(path, header, rows):
    with open(path, "w", newline="", encoding="utf-8") as f:
        writer = csv.DictWriter(f, fieldnames=header, lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)


def rerun(header, rows, commit=NEW_COMMIT, timestamp=NEW_TIMESTAMP):
    """The same rows as another run: new commit and timestamp, extra columns mid-row."""
    middle = header.index("op")
    new_header = header[:middle] + list(EXTRA_COLUMNS) + header[middle:]
    out = []
    for row in rows:
        row = dict(row, git_commit=commit, timestamp=timestamp)
        row.update({k: v.format(**row) for k, v in EXTRA_COLUMNS.items()})
        out.append(row)
    return new_header, out


def scale(row, factor, libraries_too=False):
    """The row measured `factor` times slower: times up, throughputs and (for a
    hand row, unless its library slowed as much) percents down."""
    def mul(column, by):
        if row[column]:
            row[column] = f"{float(row[column]) * by:.6g}"
    for column in ("time_ms_median", "time_ms_min", "time_ms_q1", "time_ms_q3"):
        mul(column, factor)
    for column in ("tflops", "gbps", "gkeys_per_s", "pct_of_peak"):
        mul(column, 1.0 / factor)
    if not libraries_too:
        for column in ("pct_of_ref_library", "pct_of_best_library"):
            mul(column, 1.0 / factor)


def find(rows, op, variant, size_column, size, math=None):
    hits = [r for r in rows if r["op"] == op and r["variant"] == variant
            and r[size_column] == str(size) and (math is None or r["math"] == math)]
    if len(hits) != 1:
        raise CheckFailed(f"fixture: expected one {op} {variant} {size_column}={size} row, "
                          f"found {len(hits)}")
    return hits[0]


# ---- running the tools ----------------------------------------------------------

def expect(script, args, rc_wanted, what):
    rc, out, err = run(script, *args)
    if rc != rc_wanted:
        raise CheckFailed(f"{what}: exit {rc}, expected {rc_wanted}\nstdout:\n{out}\n"
                          f"stderr:\n{err}")
    return out, err


def line_with(text, needle, what):
    lines = [line for line in text.splitlines() if needle in line]
    if not lines:
        raise CheckFailed(f"{what}: no line holds {needle!r}:\n{text}")
    return lines[0]


def section(text, title):
    """The lines of the section headed `title:` up to the next blank line."""
    lines = text.splitlines()
    if f"{title}:" not in lines:
        raise CheckFailed(f"no section {title!r} in:\n{text}")
    start = lines.index(f"{title}:") + 1
    end = next((i for i in range(start, len(lines)) if not lines[i].strip()), len(lines))
    return lines[start:end]


# ---- checks ---------------------------------------------------------------------

def check_identical(tools, fixture, work):
    header, rows = read_fixture(fixture)
    same = os.path.join(work, "same_figures.csv")
    write_csv(same, *rerun(header, rows))
    hand_ok = sum(1 for r in rows if r["library"] == "0" and r["status"] == "ok"
                  and r["pct_of_ref_library"])
    for new in (fixture, same):
        out, _ = expect(tools["diff"], ["diff", fixture, new], 0, f"diff against {new}")
        line_with(out, f"ok: none of {hand_ok} hand row(s) lost more than 3%", new)
        for needle in ("REGRESSION", "only in OLD", "only in NEW", "faster"):
            if needle in out:
                raise CheckFailed(f"diff against {new}: unexpected {needle!r}:\n{out}")
    print(f"ok: identical figures: exit 0, {hand_ok} hand rows compared")


def check_regression(tools, fixture, work):
    header, rows = read_fixture(fixture)
    header, rows = rerun(header, rows)
    slow = find(rows, "sgemm", "tiled32", "n", 2048)
    old_pct = float(slow["pct_of_ref_library"])
    scale(slow, 1.05)
    find(rows, "sgemm", "tf32_mma", "n", 1024).update(status="FAIL", time_ms_median="",
                                                      pct_of_ref_library="")
    gone = find(rows, "sort", "radix", "elems", 2 ** 20, "u32")
    rows.remove(gone)
    added = dict(find(rows, "sgemm", "tiled32", "n", 1024), variant="tiled64")
    rows.append(added)
    new = os.path.join(work, "tiled32_5pct_slower.csv")
    write_csv(new, header, rows)
    out, _ = expect(tools["diff"], ["diff", fixture, new], 1, "a 5% slowdown")
    summary = line_with(out, "REGRESSION: 1 of ", "summary")
    if "tiled32 (sgemm n=2048) -4.8%" not in summary:
        raise CheckFailed(f"the summary does not name tiled32 at n=2048, -4.8%:\n{summary}")
    table = section(out, "hand rows, % of the reference library, worst change first "
                         "(change = new % / old % - 1; threshold 3%)")
    worst = table[1].split()
    if worst[:3] != ["sgemm", "n=2048", "tiled32"] or worst[-1] != "REGRESSION" \
            or f"{old_pct:.1f}" not in worst or "-4.8" not in worst:
        raise CheckFailed(f"the worst row is not tiled32 n=2048, -4.8%, REGRESSION:\n{out}")
    if sum("REGRESSION" in line for line in out.splitlines()) != 2:
        raise CheckFailed(f"only tiled32's row and the summary should say REGRESSION:\n{out}")
    not_compared = "\n".join(section(out, "not compared"))
    if "tf32_mma" not in not_compared or "status ok -> FAIL" not in not_compared:
        raise CheckFailed(f"tf32_mma (ok -> FAIL) is not listed as not compared:\n{out}")
    if not any("radix" in s and "u32" in s for s in section(out, "only in OLD")):
        raise CheckFailed(f"sort radix u32 2^20 is not listed as only in OLD:\n{out}")
    if not any("tiled64" in s for s in section(out, "only in NEW")):
        raise CheckFailed(f"tiled64 is not listed as only in NEW:\n{out}")
    print(f"ok: 5% slowdown: exit 1, {summary}")


def check_threshold(tools, fixture, work):
    header, rows = read_fixture(fixture)
    header, rows = rerun(header, rows)
    row = find(rows, "reduce", "shuffle", "elems", 2 ** 26)
    row["pct_of_ref_library"] = f"{float(row['pct_of_ref_library']) * 0.98:.6g}"
    new = os.path.join(work, "shuffle_2pct_lower.csv")
    write_csv(new, header, rows)
    expect(tools["diff"], ["diff", fixture, new, "--threshold", "3"], 0, "2% under --threshold 3")
    expect(tools["diff"], ["diff", fixture, new], 0, "2% under the default threshold")
    out, _ = expect(tools["diff"], ["diff", fixture, new, "--threshold", "1"], 1,
                    "2% under --threshold 1")
    line_with(out, "shuffle (reduce 2^26 elements) -2.0%", "--threshold 1 summary")
    header, rows = rerun(*read_fixture(fixture))
    for row in rows:
        scale(row, 1.10, libraries_too=True)
    cooler = os.path.join(work, "all_10pct_slower.csv")
    write_csv(cooler, header, rows)
    expect(tools["diff"], ["diff", fixture, cooler, "--threshold", "1"], 0,
           "every row 10% slower, libraries too")
    print("ok: 2% passes --threshold 3 and fails --threshold 1; a uniform 10% slowdown passes")


def check_missing_column(tools, fixture, work):
    header, rows = read_fixture(fixture)
    bad = os.path.join(work, "without_pct_of_ref_library.csv")
    write_csv(bad, [c for c in header if c != "pct_of_ref_library"],
              [{k: v for k, v in r.items() if k != "pct_of_ref_library"} for r in rows])
    _, err = expect(tools["diff"], ["diff", fixture, bad], 2, "NEW without pct_of_ref_library")
    if "pct_of_ref_library" not in err or bad not in err:
        raise CheckFailed(f"the message names neither the column nor the file:\n{err}")
    absent = os.path.join(work, "does_not_exist.csv")
    _, err = expect(tools["diff"], ["diff", absent, fixture], 2, "an absent OLD")
    if absent not in err:
        raise CheckFailed(f"the message does not name the absent file:\n{err}")
    expect(tools["diff"], ["diff", fixture, fixture, "--threshold", "-1"], 2,
           "a negative threshold")
    expect(tools["diff"], ["diff", fixture], 2, "one file only")
    print("ok: a missing column, an absent file and bad arguments exit 2")


def check_merge_runs(tools, fixture, work):
    header, rows = read_fixture(fixture)
    commit = rows[0]["git_commit"]
    flushed = os.path.join(work, "run_flushed.csv")
    unflushed = os.path.join(work, "run_unflushed.csv")
    later = os.path.join(work, "run_flushed_later.csv")
    write_csv(flushed, header, rows)
    h, unflushed_rows = rerun(header, rows, commit, "2026-11-29T21:10:00Z")
    for row in unflushed_rows:
        row["l2_flush"] = "0"
        scale(row, 0.5, libraries_too=True)
    write_csv(unflushed, h, unflushed_rows)
    h, later_rows = rerun(header, rows, commit, "2026-11-30T09:00:00Z")
    find(later_rows, "sgemm", "naive", "n", 1024)["pct_of_ref_library"] = "17.25"
    write_csv(later, h, later_rows)

    sys.path.insert(0, tools["dir"])
    import csvlib
    every, notes = csvlib.read_all([flushed, unflushed, later], csvlib.TABLE_COLUMNS)
    per_op = len(rows)  # every row is read, whatever its op
    if len(every) != 3 * per_op or notes:
        raise CheckFailed(f"read_all kept {len(every)} rows of 3 x {per_op}, notes {notes}")
    kept, notes = csvlib.newest(every)
    if len(kept) != 2 * per_op or not any(flushed in n and f"{per_op} row(s)" in n
                                          for n in notes):
        raise CheckFailed(f"newest() kept {len(kept)} rows of 2 x {per_op}, notes {notes}")

    out, err = expect(tools["tables"], ["--op", "sgemm", "--view", "ladder", flushed,
                                        unflushed, later], 0, "tables.py on three runs")
    captions = [line for line in out.splitlines() if line.startswith("_")]
    if (len(captions) != 2 or not any("L2 flushed" in c for c in captions)
            or not any("L2 not flushed" in c for c in captions)):
        raise CheckFailed(f"expected one caption per L2 setting, got {captions}:\n{out}")
    if "| naive | cublas_fp32 | 17.2 | 11.0 |" not in out.splitlines():
        raise CheckFailed(f"the flushed ladder does not show the later run's 17.2:\n{out}")
    if flushed not in err or "left out" not in err:
        raise CheckFailed(f"no note says which run was left out:\n{err}")

    # one CSV holding both flushed runs, the older appended after the newer
    merged = os.path.join(work, "merged.csv")
    write_csv(merged, h, later_rows + [dict(r, **{c: "" for c in EXTRA_COLUMNS}) for r in rows])
    out, _ = expect(tools["diff"], ["diff", merged, later], 0, "diff of a merged CSV")
    line_with(out, "left out for a newer run", "diff of a merged CSV")

    # one run on two GPUs (compare --device all): both GPUs' rows are kept and shown apart
    fleet = os.path.join(work, "fleet.csv")
    fh = header + [c for c in ("hostname", "rank", "device_index") if c not in header]
    fleet_rows = [dict(r, hostname="node1", rank="", device_index=str(gpu)) for gpu in (0, 1) for r in rows]
    find(fleet_rows[len(rows):], "sgemm", "naive", "n", 1024)["pct_of_ref_library"] = "9.5"
    write_csv(fleet, fh, fleet_rows)
    every, notes = csvlib.read_all([fleet], csvlib.TABLE_COLUMNS)
    kept, left_out = csvlib.newest(every)
    if len(every) != 2 * per_op or len(kept) != 2 * per_op or notes or left_out:
        raise CheckFailed(f"two GPUs' rows: read_all kept {len(every)}, newest {len(kept)} of "
                          f"2 x {per_op}; notes {notes + left_out}")
    out, _ = expect(tools["tables"], ["--op", "sgemm", "--view", "ladder", fleet], 0,
                    "tables.py on two GPUs")
    captions = [line for line in out.splitlines() if line.startswith("_")]
    if len(captions) != 2 or not any("node1 GPU 0" in c for c in captions) \
            or not any("node1 GPU 1" in c for c in captions):
        raise CheckFailed(f"expected one caption per GPU, got {captions}:\n{out}")
    if not any(line.startswith("| naive | cublas_fp32 | 9.5 |") for line in out.splitlines()):
        raise CheckFailed(f"GPU 1's own naive figure (9.5) is not shown:\n{out}")
    out, _ = expect(tools["diff"], ["diff", fleet, fleet], 0, "diff of a two-GPU CSV against itself")
    hand_ok = 2 * sum(1 for r in rows if r["library"] == "0" and r["status"] == "ok"
                      and r["pct_of_ref_library"])
    line_with(out, f"ok: none of {hand_ok} hand row(s)", "diff of a two-GPU CSV")
    line_with(out, "node1 GPU 1", "diff of a two-GPU CSV")
    print("ok: every run is kept; flushed and unflushed runs shown apart; the newest "
          "re-run is used; two GPUs of one run shown apart")


CHECKS = {"identical": check_identical, "regression": check_regression,
          "threshold": check_threshold, "missing-column": check_missing_column,
          "merge-runs": check_merge_runs}


def main(argv):
    parser = argparse.ArgumentParser(prog="check_diff.py", description=__doc__.split("\n")[0])
    parser.add_argument("check", choices=list(CHECKS))
    parser.add_argument("--plots", required=True, help="the plots/ directory")
    parser.add_argument("--work", required=True,
                        help="scratch directory (recreated; must be new or made by this script)")
    parser.add_argument("csv", help="tests/data/synthetic.csv")
    args = parser.parse_args(argv)
    tools = {"dir": args.plots, "diff": os.path.join(args.plots, "compare_csv.py"),
             "tables": os.path.join(args.plots, "tables.py")}
    try:
        fresh_work_dir(args.work, SENTINEL)
        CHECKS[args.check](tools, args.csv, args.work)
    except CheckFailed as e:
        print(f"FAIL: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
