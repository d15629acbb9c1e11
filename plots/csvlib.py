"""plots/csvlib.py: read the CSV files that `compare --csv FILE` writes.

Shared by plot.py, tables.py and compare_csv.py (standard library only). One
Row per CSV row, with typed fields: empty cells become None; columns unknown
here are kept as text. A file that cannot be read, lacks a column the caller
needs, or holds a malformed cell raises CsvError, whose text names the file
(and the line and column where it applies); the scripts turn it into exit
status 2.

Series: rows are grouped by (op, math) for sort (u32 and f32 keys are two
series, labelled "sort u32" / "sort f32") and by op alone for sgemm and reduce.
Run: (device, git_commit, l2_flush, timestamp): the rows one `compare` call
wrote for one device. Source: a run without its timestamp: what tells two
GPUs, two commits or flushed and unflushed measurements apart when several
runs are read together. Several runs of one source measuring the same case
are re-measurements: plots and tables use the newest (newest()).
"""

import csv
import dataclasses
import math
import re

# ---- the CSV contract ---------------------------------------------------------

ALL_COLUMNS = (
    "timestamp", "git_commit", "device", "cc", "driver", "cuda_runtime",
    "cublas_version", "seed", "l2_flush", "op", "variant", "library", "math",
    "m", "n", "k", "elems", "samples", "time_ms_median", "time_ms_min",
    "time_ms_q1", "time_ms_q3", "spread_pct", "tflops", "gbps", "gkeys_per_s",
    "ref_library", "pct_of_ref_library", "best_library", "pct_of_best_library",
    "pct_of_peak", "rel_err", "tolerance", "status", "flops", "bytes",
    "peak_fp32_tflops", "peak_mem_gbps", "message",
)

INT_COLUMNS = ("library", "m", "n", "k", "elems", "samples", "seed", "l2_flush")
FLOAT_COLUMNS = (
    "time_ms_median", "time_ms_min", "time_ms_q1", "time_ms_q3", "spread_pct",
    "tflops", "gbps", "gkeys_per_s", "pct_of_ref_library", "pct_of_best_library",
    "pct_of_peak", "rel_err", "tolerance", "flops", "bytes", "peak_fp32_tflops",
    "peak_mem_gbps",
)

# What each tool needs (a file lacking one of its columns is refused by name):
# CASE_COLUMNS say which run measured which case and whether it passed.
CASE_COLUMNS = (
    "timestamp", "git_commit", "device", "l2_flush", "op", "variant", "library",
    "math", "m", "n", "k", "elems", "status",
)
PCT_COLUMNS = ("ref_library", "pct_of_ref_library", "best_library", "pct_of_best_library")
THROUGHPUT_COLUMNS = ("time_ms_median", "tflops", "gbps", "gkeys_per_s")
PLOT_COLUMNS = CASE_COLUMNS + THROUGHPUT_COLUMNS + PCT_COLUMNS + (
    "flops", "bytes", "peak_fp32_tflops", "peak_mem_gbps")
TABLE_COLUMNS = CASE_COLUMNS + THROUGHPUT_COLUMNS + PCT_COLUMNS + (
    "spread_pct", "pct_of_peak", "rel_err")
DIFF_COLUMNS = CASE_COLUMNS + ("time_ms_median", "pct_of_ref_library")


@dataclasses.dataclass(frozen=True)
class OpInfo:
    """How one op is measured and plotted."""
    throughput_column: str   # CSV column holding the op's throughput
    unit: str                # its unit, for axes and table headers
    size_name: str           # "n" (GEMM dimension) or "elems"
    peak_name: str           # what pct_of_peak is a percent of ("" if none)


OPS = {
    "sgemm": OpInfo("tflops", "TFLOP/s", "n", "FP32 peak"),
    "reduce": OpInfo("gbps", "GB/s", "elems", "memory BW"),
    "sort": OpInfo("gkeys_per_s", "Gkeys/s", "elems", ""),
}


class CsvError(Exception):
    """A CSV file that cannot be used: the message says which and why."""


@dataclasses.dataclass
class Row:
    """One measured (variant, size) row; numbers are None where the cell is empty."""
    path: str                # file it came from
    line: int                # its line number there
    cells: dict              # every cell as text, by column name
    values: dict             # typed INT_COLUMNS / FLOAT_COLUMNS values (or None)

    def __getattr__(self, name):
        values = self.__dict__.get("values", {})
        if name in values:
            return values[name]
        cells = self.__dict__.get("cells", {})
        if name in cells:
            return cells[name]
        raise AttributeError(name)

    @property
    def ok(self):
        return self.cells["status"] == "ok"

    @property
    def is_library(self):
        return self.values.get("library") == 1

    @property
    def source(self):
        """(device, git_commit, l2_flush): rows of one source are comparable."""
        return (self.cells["device"], self.cells["git_commit"], self.cells["l2_flush"])

    @property
    def run(self):
        """The source and the timestamp: the rows of one `compare` call on one device."""
        return self.source + (self.cells["timestamp"],)

    @property
    def case(self):
        """(device, op, variant, math, m, n, k, elems, l2_flush): one measurement
        of one variant; two commits' rows of the same case are compared on it."""
        get = self.values.get
        return (self.cells["device"], self.cells["op"], self.cells["variant"],
                self.cells["math"], get("m"), get("n"), get("k"), get("elems"), get("l2_flush"))

    @property
    def series(self):
        """(op, math) for sort, (op, "") otherwise."""
        op = self.cells["op"]
        return (op, self.cells["math"]) if op == "sort" else (op, "")

    @property
    def info(self):
        return OPS.get(self.cells["op"])

    @property
    def size_x(self):
        """The size on a chart's x axis: n for sgemm, elems for reduce/sort."""
        return self.values.get(self.info.size_name) if self.info else None

    @property
    def size_key(self):
        """What makes two rows the same case: (m, n, k) for sgemm, elems otherwise."""
        if self.cells["op"] == "sgemm":
            return (self.values.get("m"), self.values.get("n"), self.values.get("k"))
        return self.values.get("elems")

    @property
    def throughput(self):
        return self.values.get(self.info.throughput_column) if self.info else None

    @property
    def date(self):
        return self.cells["timestamp"][:10]


# ---- reading ------------------------------------------------------------------

def _parse_cell(path, line, column, text):
    if text.strip() == "":
        return None
    try:
        if column in INT_COLUMNS:
            return int(text)
        value = float(text)
    except ValueError:
        raise CsvError(f"{path}:{line}: column '{column}': not a number: {text!r}") from None
    return value


def read_csv(path, required):
    """All rows of one CSV file; raises CsvError if a `required` column is missing."""
    try:
        with open(path, newline="", encoding="utf-8") as f:
            reader = csv.DictReader(f, strict=True)
            header = reader.fieldnames or []
            if not header:
                raise CsvError(f"{path}: empty file: no header row")
            missing = [c for c in required if c not in header]
            if missing:
                raise CsvError(f"{path}: missing column(s): {', '.join(missing)}")
            rows = []
            for cells in reader:
                line = reader.line_num
                if None in cells or any(v is None for v in cells.values()):
                    raise CsvError(f"{path}:{line}: expected {len(header)} fields")
                values = {c: _parse_cell(path, line, c, cells[c])
                          for c in INT_COLUMNS + FLOAT_COLUMNS if c in cells}
                cells.setdefault("message", "")
                rows.append(Row(path, line, cells, values))
            return rows
    except OSError as e:
        raise CsvError(f"{path}: cannot read: {e.strerror or e}") from None
    except (csv.Error, UnicodeDecodeError) as e:
        raise CsvError(f"{path}: not a valid CSV file: {e}") from None


def read_all(paths, required):
    """Rows of every file, in order, every run kept.

    A case repeated within one run (the same file read twice, say) keeps its
    last row. Returns (rows, notes): notes are lines worth printing (repeats,
    unknown ops)."""
    by_key = {}
    repeats = {}
    unknown = {}
    for path in paths:
        for row in read_csv(path, required):
            if row.op not in OPS:
                unknown[row.op] = unknown.get(row.op, 0) + 1
                continue
            key = (row.run, row.case)
            if key in by_key:
                pair = (row.path, by_key[key].path)
                repeats[pair] = repeats.get(pair, 0) + 1
            by_key[key] = row
    notes = [f"note: {new}: {count} row(s) repeat a case of the same run in {old}: "
             "the later row is used" for (new, old), count in repeats.items()]
    for op, count in sorted(unknown.items()):
        notes.append(f"note: skipped {count} row(s) of unknown op '{op}'")
    return list(by_key.values()), notes


def newest(rows, same_commit=True):
    """The row of the newest run (latest timestamp, then the last read) of each
    case: of each source's cases, or with same_commit=False of each case whatever
    its commit. Returns (rows in their first order, notes naming the runs left out)."""
    best = {}
    for index, row in enumerate(rows):
        key = (row.git_commit, row.case) if same_commit else row.case
        if key not in best or row.timestamp >= best[key][1].timestamp:
            best[key] = (best.get(key, (index,))[0], row)
    kept = {id(row) for _, row in best.values()}
    left_out = {}
    for row in rows:
        if id(row) not in kept:
            run = (row.path, row.timestamp)
            left_out[run] = left_out.get(run, 0) + 1
    same = "device, commit and L2 setting" if same_commit else "device and L2 setting"
    notes = [f"note: {path} (run of {timestamp or 'no timestamp'}): {count} row(s) left out "
             f"for a newer run of the same {same}" for (path, timestamp), count in left_out.items()]
    return [row for _, row in sorted(best.values(), key=lambda item: item[0])], notes


# ---- ordering -----------------------------------------------------------------

def first_seen(items):
    """Distinct items in order of first appearance."""
    return list(dict.fromkeys(items))


def size_order(key):
    """Sort key for size keys: (m, n, k) tuples or element counts, None first."""
    parts = key if isinstance(key, tuple) else (key,)
    return tuple(-1 if p is None else p for p in parts)


# ---- labels -------------------------------------------------------------------

def series_label(series):
    op, math = series
    return f"{op} {math}" if math else op


def series_slug(series):
    return "_".join(p for p in series if p)


def pow2_label(value):
    """'2^26' for a power of two, else the number."""
    if value and value > 0 and value & (value - 1) == 0:
        return f"2^{value.bit_length() - 1}"
    return str(value)


def size_label(row):
    if row.op == "sgemm":
        m, n, k = row.size_key
        return f"n={n}" if m == n == k else f"m={m} n={n} k={k}"
    return f"{pow2_label(row.elems)} elements"


def parse_size(text):
    """'2048', '2^26' or '1<<26' -> int; raises ValueError otherwise."""
    text = text.strip()
    match = re.fullmatch(r"(\d+)\s*(?:\^|\*\*)\s*(\d+)", text)
    if match:
        return int(match.group(1)) ** int(match.group(2))
    match = re.fullmatch(r"(\d+)\s*<<\s*(\d+)", text)
    if match:
        return int(match.group(1)) << int(match.group(2))
    value = int(text)
    if value < 1:
        raise ValueError(text)
    return value


def flush_label(l2_flush):
    return {"1": "L2 flushed", "0": "L2 not flushed"}.get(l2_flush, f"l2_flush={l2_flush}")


def source_labels(sources):
    """Shortest label telling the sources apart: what differs among device,
    commit and L2 flush (the device alone when there is one source)."""
    sources = sorted(set(sources))
    differ = [len({s[i] for s in sources}) > 1 for i in range(3)]
    labels = {}
    for device, commit, l2_flush in sources:
        label = device if differ[0] or not any(differ) else ""
        if differ[1]:
            label = f"{label} @ {commit[:12]}" if label else commit[:12]
        if differ[2]:
            label = f"{label}, {flush_label(l2_flush)}" if label else flush_label(l2_flush)
        labels[(device, commit, l2_flush)] = label
    return labels


def source_caption(rows, source):
    """'NVIDIA H200, 2026-11-29, commit abc123' for the rows of one source."""
    dates = sorted({r.date for r in rows if r.source == source})
    date = dates[0] if len(dates) == 1 else f"{dates[0]}..{dates[-1]}"
    device, commit, _ = source
    return f"{device}, {date}, commit {commit[:12]}"


# ---- formatting ---------------------------------------------------------------

def fmt_sig(value, digits=3):
    """`digits` significant figures, never in exponent form: 66.9, 4810, 0.428;
    '-' for None."""
    if value is None:
        return "-"
    if value == 0:
        return "0"
    exponent = math.floor(math.log10(abs(value)))
    if round(abs(value), digits - 1 - exponent) >= 10 ** (exponent + 1):
        exponent += 1  # 99.96 rounds up to 100: three figures are "100", not "100.0"
    return f"{value:.{max(0, digits - 1 - exponent)}f}"
