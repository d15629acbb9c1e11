"""plots/csvlib.py: read the CSV files that `compare --csv FILE` writes.

Shared by plot.py, tables.py and compare_csv.py (standard library only). One
Row per CSV row, with typed fields: empty cells become None; columns unknown
here are kept as text. A file that cannot be read, lacks a column the caller
needs, or holds a malformed cell raises CsvError, whose text names the file
(and the line and column where it applies); the scripts turn it into exit
status 2.

Ops: nothing here names one. What plots and tables need of an op is read
from its rows (read_all sets each row's OpInfo): its throughput is the rate
column its rows fill (tflops, gbps, gkeys_per_s: the unit), its %peak's
ceiling that rate's peak column where the rows carry a %peak, the roofline
takes it where its rows count FLOPs and bytes, and a speed-up pair (the
median time of one variant over another's, shown beside the percents) comes
from the optional speedup_vs column or, for CSVs without it, from the
caller (--speedup VARIANT:BASELINE, with_speedups()). A CSV of an op never
seen before is read like any other.
Series: rows are grouped by op, and further by each of math and dist that
most variants of the op ran with several values of (an input of the case: a
key or element type, a distribution; not sgemm's fp32/tf32, each a variant's
own): "sort u32", "scan i32", "histogram u8 skewed"; "sgemm" is one series.
Series come in the order the rows show them first (the order compare ran).
Sizes: rows with m and n (GEMM shapes, a transposed matrix) are labelled by
their dimensions, "4096x14336x4096" (or "4096x14336"), and by n alone when
square; rows whose shape column names axes other than m, n, k, elems by that
string ("b=4,h=32,sq=4096"): a sweep where one axis varies in the file, a
list of shapes otherwise; the others by their element count ("2^26").
Fallbacks: a row whose kernel_note is not empty ran another kernel than its
variant's own (the `kernel` column names it); fallback_notes() words them.
Older CSVs (before the kernel, dist, clock and host columns) are read as if
those cells were empty; columns unknown here are kept as text.
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
    "peak_fp32_tflops", "peak_mem_gbps", "kernel", "kernel_note", "source",
    "sm_clock_mhz", "sm_clock_min_mhz", "mem_clock_mhz", "temp_c", "power_w",
    "throttle", "hostname", "rank", "device_index", "device_uuid", "pci_bus_id",
    "dist", "interleave", "timing", "message", "note", "peak_math", "peak_tflops", "shape",
)
# Text columns that CSVs written before them lack: read as "" there.
OPTIONAL_TEXT_COLUMNS = ("kernel", "kernel_note", "source", "throttle", "hostname",
                         "device_uuid", "pci_bus_id", "dist", "timing", "message",
                         "note", "peak_math", "shape", "speedup_vs")

INT_COLUMNS = ("library", "m", "n", "k", "elems", "samples", "seed", "l2_flush")
FLOAT_COLUMNS = (
    "time_ms_median", "time_ms_min", "time_ms_q1", "time_ms_q3", "spread_pct",
    "tflops", "gbps", "gkeys_per_s", "pct_of_ref_library", "pct_of_best_library",
    "pct_of_peak", "rel_err", "tolerance", "flops", "bytes", "peak_fp32_tflops",
    "peak_mem_gbps", "peak_tflops",
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


# What the CSV says of each op, read from its rows (no op is named here):
# the throughput is the rate column its rows fill, with its unit; %peak's
# ceiling is the peak column of that rate, where the rows carry a %peak.
RATE_UNITS = {"tflops": "TFLOP/s", "gbps": "GB/s", "gkeys_per_s": "Gkeys/s"}
RATE_PEAKS = {"tflops": ("peak_fp32_tflops", "FP32 peak"),
              "gbps": ("peak_mem_gbps", "memory BW")}
# Columns that split an op's rows into series when most of its variants ran
# with several values of them: an input the case varies (a key or element
# type, an input distribution), not a property of the variant (sgemm's
# fp32/tf32 rows are different variants, each with one math; one library row
# that ran both would not split it).
SPLIT_COLUMNS = ("math", "dist")
# The canonical axis string of a case ("b=4,h=32,sq=4096"), where the CSV has
# it; its axes other than these say the case's size instead of m, n, k, elems.
SHAPE_COLUMN = "shape"
LEGACY_AXES = ("m", "n", "k", "elems")
# Optional: on a row of variant A, the variant B whose median time over A's
# is A's speed-up (op_info.speedup of the C side); empty elsewhere.
SPEEDUP_COLUMN = "speedup_vs"
# The maths a variant's label leaves unsaid (the plain single-precision ones).
PLAIN_MATHS = ("fp32", "f32", "")


@dataclasses.dataclass(frozen=True)
class OpInfo:
    """How one op is measured and plotted, as read from its rows (op_info())."""
    name: str
    throughput_column: str   # CSV column holding the op's throughput ("" if no row has one)
    unit: str                # its unit, for axes and table headers
    peak_name: str           # what pct_of_peak is a percent of ("" if none)
    peak_column: str = ""    # the device ceiling in the throughput's unit ("" if none)
    split_by: tuple = ()     # columns whose values make separate series
    roofline: bool = False   # its rows count FLOPs and device-memory bytes
    speedup: tuple = ()      # (variant, baseline): a time ratio the tables show
    throughput_note: str = ""  # what the throughput counts, for axes


class CsvError(Exception):
    """A CSV file that cannot be used: the message says which and why."""


@dataclasses.dataclass
class Row:
    """One measured (variant, size) row; numbers are None where the cell is empty."""
    path: str                # file it came from
    line: int                # its line number there
    cells: dict              # every cell as text, by column name
    values: dict             # typed INT_COLUMNS / FLOAT_COLUMNS values (or None)
    info: OpInfo = None      # its op as the rows read with it say (read_all sets it)
    sweep_axis: str = ""     # a shape row's one axis that varies in its file (read_all)

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
        """(device, git_commit, l2_flush, gpu): rows of one source are comparable
        (gpu: which GPU of a fleet, '' for a run on one GPU)."""
        return (self.cells["device"], self.cells["git_commit"], self.cells["l2_flush"],
                self.cells.get("gpu", ""))

    @property
    def run(self):
        """The source and the timestamp: the rows of one `compare` call on one device."""
        return self.source + (self.cells["timestamp"],)

    @property
    def case(self):
        """(device, op, variant, math, m, n, k, elems, l2_flush, dist, gpu, shape):
        one measurement of one variant; two commits' rows of the same case are
        compared on it (shape only where it says more than m, n, k, elems, so
        that rows from before and after the shape column still match)."""
        get = self.values.get
        return (self.cells["device"], self.cells["op"], self.cells["variant"],
                self.cells["math"], get("m"), get("n"), get("k"), get("elems"), get("l2_flush"),
                self.cells["dist"], self.cells.get("gpu", ""),
                self.cells[SHAPE_COLUMN] if self.by_shape else "")

    @property
    def series(self):
        """(op, value of each split_by column): ('sort', 'u32'),
        ('histogram', 'u8', 'skewed'), ('sgemm',)."""
        split = self.info.split_by if self.info else ()
        return (self.cells["op"],) + tuple(self.cells[c] for c in split)

    @property
    def axes(self):
        """The shape column's axes, [(name, value text)] ([] where it is absent)."""
        text = self.cells[SHAPE_COLUMN].strip()
        return [tuple(p.strip() for p in item.partition("=")[::2])
                for item in text.split(",") if item.strip()] if text else []

    @property
    def by_shape(self):
        """Sized by its shape string: the shape names an axis other than m, n,
        k, elems, or the row has none of those."""
        names = [name for name, _ in self.axes]
        if not names:
            return False
        return (any(n not in LEGACY_AXES for n in names)
                or all(self.values.get(c) is None for c in LEGACY_AXES)
                # no m x n matrix and no element count (gemv: m and k)
                or (self.values.get("elems") is None
                    and (self.values.get("m") is None or self.values.get("n") is None)))

    @property
    def is_matrix(self):
        """Sized by m and n (and k): GEMM shapes, a transposed matrix."""
        return (not self.by_shape and self.values.get("m") is not None
                and self.values.get("n") is not None)

    @property
    def dims(self):
        """A matrix op's dimensions that are set: (m, n, k) or (m, n); () otherwise."""
        if not self.is_matrix:
            return ()
        return tuple(v for v in (self.values.get(c) for c in ("m", "n", "k")) if v is not None)

    @property
    def is_square(self):
        """A matrix whose dimensions are all equal, a shape row of a sweep
        (one axis varies in its file); any other row: True."""
        if self.by_shape:
            return bool(self.sweep_axis)
        return len(set(self.dims)) <= 1

    @property
    def size_x(self):
        """The size on a chart's x axis: n for a matrix, the varying axis of a
        shape sweep, elems otherwise."""
        if self.by_shape:
            value = dict(self.axes).get(self.sweep_axis, "")
            return int(value) if value.isdigit() else None
        return self.values.get("n" if self.is_matrix else "elems")

    @property
    def size_key(self):
        """What makes two rows the same case: (m, n, k) for a matrix, the shape
        string's values for a shape row, elems otherwise."""
        if self.by_shape:
            return tuple(int(v) if v.isdigit() else v for _, v in self.axes)
        if self.is_matrix:
            return (self.values.get("m"), self.values.get("n"), self.values.get("k"))
        return self.values.get("elems")

    @property
    def fallback(self):
        """The row ran another kernel than its own (kernel_note says why)."""
        return bool(self.cells["kernel_note"])

    @property
    def throughput(self):
        column = self.info.throughput_column if self.info else ""
        return self.values.get(column) if column else None

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
                for column in OPTIONAL_TEXT_COLUMNS:
                    cells.setdefault(column, "")
                rows.append(Row(path, line, cells, values))
            _mark_gpus(rows)
            return rows
    except FileNotFoundError:
        raise CsvError(f"{path}: no such file (compare --csv {path} writes it)") from None
    except OSError as e:
        raise CsvError(f"{path}: cannot read: {e.strerror or e}") from None
    except (csv.Error, UnicodeDecodeError) as e:
        raise CsvError(f"{path}: not a valid CSV file: {e}") from None


def _mark_gpus(rows):
    """Sets cells['gpu'] on the rows of one file: '' when each commit's rows
    come from one GPU (one process, one device), else which GPU ran the row
    ('node1 GPU 1', 'vm GPU 0 rank 1'), so that the rows of a fleet
    (--device all, compare-mpi) stay apart instead of repeating one case."""
    def ident(row):
        get = row.cells.get
        return (get("hostname", ""), get("rank", ""), get("device_index", ""))
    gpus = {}
    for row in rows:
        gpus.setdefault(row.cells["git_commit"], set()).add(ident(row))
    for row in rows:
        host, rank, index = ident(row)
        if len(gpus[row.cells["git_commit"]]) < 2:
            row.cells["gpu"] = ""
            continue
        parts = [host] if host else []
        parts.append(f"GPU {index}" if index else "GPU ?")
        if rank:
            parts.append(f"rank {rank}")
        row.cells["gpu"] = " ".join(parts)


def read_all(paths, required):
    """Rows of every file, in order, every run kept, each with its op's
    OpInfo (op_info() over all the rows of that op read here).

    A case repeated within one run (the same file read twice, say) keeps its
    last row. Returns (rows, notes): notes are lines worth printing (repeats)."""
    by_key = {}
    repeats = {}
    for path in paths:
        for row in read_csv(path, required):
            key = (row.run, row.case)
            if key in by_key:
                pair = (row.path, by_key[key].path)
                repeats[pair] = repeats.get(pair, 0) + 1
            by_key[key] = row
    notes = [f"note: {new}: {count} row(s) repeat a case of the same run in {old}: "
             "the later row is used" for (new, old), count in repeats.items()]
    rows = list(by_key.values())
    annotate(rows)
    return rows, notes


def annotate(rows):
    """Sets each row's info (its op's OpInfo, from these rows) and, for rows
    sized by a shape string, sweep_axis: the one axis whose value varies among
    the rows of that op in that file ('' when none or several do: a list of
    shapes)."""
    by_op = {}
    for row in rows:
        by_op.setdefault(row.op, []).append(row)
    for op, mine in by_op.items():
        info = op_info(op, mine)
        groups = {}
        for row in mine:
            row.info = info
            if row.by_shape:
                groups.setdefault(row.path, []).append(row)
        for group in groups.values():
            values = {}
            for row in group:
                for name, value in row.axes:
                    values.setdefault(name, set()).add(value)
            varying = [n for n, v in values.items() if len(v) > 1]
            axis = varying[0] if len(varying) == 1 and all(
                v.isdigit() for v in values[varying[0]]) else ""
            for row in group:
                row.sweep_axis = axis


def op_info(op, rows):
    """What the rows of one op say of it (see OpInfo)."""
    filled = {c: sum(1 for r in rows if r.values.get(c) is not None) for c in RATE_UNITS}
    column = max(filled, key=lambda c: filled[c]) if any(filled.values()) else ""
    peak_column, peak_name = RATE_PEAKS.get(column, ("", ""))
    if not any(r.pct_of_peak is not None for r in rows):
        peak_column, peak_name = "", ""
    split = []
    for c in SPLIT_COLUMNS:
        seen = {}
        for r in rows:
            seen.setdefault((r.variant, r.is_library), set()).add(r.cells[c])
        if 2 * sum(1 for v in seen.values() if len(v) > 1) > len(seen):
            split.append(c)
    pair = next(((r.variant, r.cells[SPEEDUP_COLUMN]) for r in rows
                 if r.cells[SPEEDUP_COLUMN]), ())
    return OpInfo(op, column, RATE_UNITS.get(column, "throughput"), peak_name, peak_column,
                  tuple(split), any(r.flops and r.bytes for r in rows), pair,
                  bytes_note(rows, column))


def parse_speedups(texts):
    """['overlap:pinned', ...] -> [('overlap', 'pinned'), ...]; ValueError if
    an item is not VARIANT:BASELINE."""
    pairs = []
    for text in texts:
        for item in (t for t in text.split(",") if t.strip()):
            variant, _, baseline = item.strip().partition(":")
            if not variant or not baseline:
                raise ValueError(item)
            pairs.append((variant, baseline))
    return pairs


def with_speedups(rows, pairs):
    """Gives each op without a speed-up pair (no speedup_vs column) the first
    of `pairs` (VARIANT, BASELINE) whose two variants its rows hold."""
    by_op = {}
    for row in rows:
        by_op.setdefault(row.op, []).append(row)
    for mine in by_op.values():
        info = mine[0].info
        if info is None or info.speedup:
            continue
        variants = {r.variant for r in mine}
        pair = next((p for p in pairs if set(p) <= variants), None)
        if pair:
            info = dataclasses.replace(info, speedup=pair)
            for row in mine:
                row.info = info
    return rows


def bytes_note(rows, column):
    """'4 bytes moved per element' where the op's throughput is in bytes and
    each ok row counts the same whole number of bytes per element (matrix:
    m x n), else ''."""
    if column != "gbps":
        return ""
    per = set()
    for r in rows:
        count = r.elems if not r.is_matrix else (r.m * r.n if r.m and r.n else None)
        if r.ok and r.bytes and count:
            per.add(r.bytes / count)
    if len(per) != 1:
        return ""
    value = per.pop()
    return f"{value:g} bytes moved per element" if value == int(value) else ""


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
    """Sort key for size keys: (m, n, k) tuples, element counts or a shape's
    values (numbers before text), None first."""
    parts = key if isinstance(key, tuple) else (key,)
    return tuple((0, -1, "") if p is None else (0, p, "") if isinstance(p, int) else (1, 0, p)
                 for p in parts)


def sizes_in_order(rows):
    """The size keys of these rows (one series): sorted, except for a list of
    shape strings (no axis of a sweep to sort on), which keeps CSV order."""
    keys = first_seen(r.size_key for r in rows)
    if any(r.by_shape and not r.sweep_axis for r in rows):
        return keys
    return sorted(keys, key=size_order)


def series_in_order(rows):
    """The series of these rows in the order the rows first show them (the
    order compare ran them: op by op, then each op's types and inputs)."""
    return first_seen(r.series for r in rows)


def is_shape_list(rows):
    """Whether the sizes of these rows (one op, one file) are a list of shapes
    (some matrix size is not square, or more than one axis of a shape string
    varies) rather than a sweep of square sizes or of one axis."""
    return any(not r.is_square for r in rows)


# ---- labels -------------------------------------------------------------------

def series_label(series):
    """'sgemm', 'sort u32', 'histogram u8 skewed'."""
    return " ".join(p for p in series if p)


def series_slug(series):
    return "_".join(p for p in series if p)


def pow2_label(value):
    """'2^26' for a power of two, else the number."""
    if value and value > 0 and value & (value - 1) == 0:
        return f"2^{value.bit_length() - 1}"
    return str(value)


def size_short(row):
    """The size as a column or tick label: '2048' for a square matrix,
    '4096x14336x4096' (MxNxK; MxN for transpose) otherwise, '2^26' for elements,
    the shape string ('b=4,h=32,sq=4096') for a row sized by it."""
    if row.by_shape:
        return ",".join(f"{n}={v}" for n, v in row.axes)
    if row.is_matrix:
        dims = row.dims
        return str(row.n) if row.is_square else "x".join(map(str, dims))
    return pow2_label(row.elems)


def size_label(row):
    """The size in a sentence: 'n=2048', '4096x14336x4096', '2^26 elements',
    'b=4,h=32,sq=4096'."""
    if row.by_shape:
        return size_short(row)
    if row.is_matrix:
        return f"n={row.n}" if row.is_square else size_short(row)
    return f"{pow2_label(row.elems)} elements"


def parse_size(text):
    """'2048', '2^26' or '1<<26' -> int; 'MxNxK' or 'MxN' -> a tuple of ints;
    'name=value[,name=value...]' (axes of a shape string) -> a dict; raises
    ValueError otherwise."""
    text = text.strip()
    if "=" in text:
        axes = [tuple(p.strip() for p in item.partition("=")[::2]) for item in text.split(",")]
        if any(not name or not value for name, value in axes):
            raise ValueError(text)
        return dict(axes)
    if "x" in text:
        dims = tuple(int(p) for p in text.split("x"))
        if len(dims) not in (2, 3) or min(dims) < 1:
            raise ValueError(text)
        return dims
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


def size_matches(row, size):
    """Whether the row is of a size parse_size returned: an int is n (matrix
    ops), the element count or the value of a shape sweep's axis, a tuple the
    matrix dimensions, a dict axes that the row's shape string has."""
    if isinstance(size, dict):
        axes = dict(row.axes)
        return bool(axes) and all(axes.get(n) == v for n, v in size.items())
    return row.dims == size if isinstance(size, tuple) else row.size_x == size


def flush_label(l2_flush):
    return {"1": "L2 flushed", "0": "L2 not flushed"}.get(l2_flush, f"l2_flush={l2_flush}")


def source_labels(sources):
    """Shortest label telling the sources apart: what differs among device,
    commit, L2 flush and GPU of a fleet (the device alone when there is one
    source)."""
    sources = sorted(set(sources))
    differ = [len({s[i] for s in sources}) > 1 for i in range(4)]
    labels = {}
    for device, commit, l2_flush, gpu in sources:
        label = device if differ[0] or not any(differ) else ""
        if differ[3]:
            label = f"{label} {gpu}" if label else gpu
        if differ[1]:
            label = f"{label} @ {commit[:12]}" if label else commit[:12]
        if differ[2]:
            label = f"{label}, {flush_label(l2_flush)}" if label else flush_label(l2_flush)
        labels[(device, commit, l2_flush, gpu)] = label
    return labels


def source_caption(rows, source):
    """'NVIDIA H200, 2026-11-29, commit abc123' for the rows of one source."""
    dates = sorted({r.date for r in rows if r.source == source})
    date = dates[0] if len(dates) == 1 else f"{dates[0]}..{dates[-1]}"
    device, commit, _, gpu = source
    device = f"{device} ({gpu})" if gpu else device
    return f"{device}, {date}, commit {commit[:12]}"


# ---- comparisons --------------------------------------------------------------

def library_maths(rows):
    """{library variant: its math} of the library rows among `rows` (the
    first math seen where one library runs several)."""
    maths = {}
    for r in rows:
        if r.is_library:
            maths.setdefault(r.variant, r.math)
    return maths


def comparison_library(hand_rows, rows):
    """The library a hand variant's rows compare against: the CSV's reference
    library (the most common one); where that library's rows (among `rows`,
    the series) have another math than the hand rows and a library of the
    hand rows' math ran, that one (the fastest library the rows name if it is
    of that math), so that like is compared with like (a CSV from before
    each TF32 row named its TF32 reference)."""
    names = [r.ref_library for r in hand_rows if r.ref_library]
    ref = max(set(names), key=names.count) if names else ""
    maths = library_maths(rows)
    math = hand_rows[0].math
    if not ref or maths.get(ref, math) == math:
        return ref
    best = [r.best_library for r in hand_rows if r.best_library]
    if best and maths.get(best[0]) == math:
        return best[0]
    return next((lib for lib, m in maths.items() if m == math), ref)


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


def speedup(case_rows):
    """(variant, baseline, baseline time / variant time) for the op's speed-up
    pair (OpInfo.speedup) among the rows of one case of one series, or None."""
    info = case_rows[0].info if case_rows else None
    if not info or not info.speedup:
        return None
    timed = {r.variant: r.time_ms_median for r in case_rows if r.ok and r.time_ms_median}
    variant, baseline = info.speedup
    if variant not in timed or baseline not in timed:
        return None
    return variant, baseline, timed[baseline] / timed[variant]


def fallback_notes(rows, label=None):
    """One line per variant, kernel and note among rows that fell back:
    'tf32_tma at 1024x50257x768, 16x14336x4098 ran tf32_mma: n not a multiple
    of 4', in row order. label(row) names the variant (default: its name)."""
    grouped = {}
    for row in rows:
        if row.fallback:
            key = ((label or (lambda r: r.variant))(row), row.kernel or "another kernel",
                   row.kernel_note)
            grouped.setdefault(key, []).append(size_short(row))
    return [f"{name} at {', '.join(first_seen(sizes))} ran {kernel}: {note}"
            for (name, kernel, note), sizes in grouped.items()]


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
