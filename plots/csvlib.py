"""plots/csvlib.py: read the CSV files that `compare --csv FILE` writes.

Shared by plot.py, tables.py and compare_csv.py (standard library only). One
Row per CSV row, with typed fields: empty cells become None; columns unknown
here are kept as text. A file that cannot be read, lacks a column the caller
needs, or holds a malformed cell raises CsvError, whose text names the file
(and the line and column where it applies); the scripts turn it into exit
status 2.

Series: rows are grouped by op, and further by what OPS says splits it: the
key or element type (`math`) for sort, scan and histogram, the input
distribution (`dist`) for histogram: "sort u32", "scan i32", "histogram u8
skewed"; sgemm, reduce, transpose and transfer are one series each.
Sizes: matrix ops (sgemm: m, n, k; transpose: m, n) are labelled by their
dimensions, "4096x14336x4096" (or "4096x14336"), and by n alone when square;
the other ops by their element count ("2^26").
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
                         "note", "peak_math", "shape")

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


@dataclasses.dataclass(frozen=True)
class OpInfo:
    """How one op is measured and plotted."""
    throughput_column: str   # CSV column holding the op's throughput
    unit: str                # its unit, for axes and table headers
    size_name: str           # "n" (matrix ops: m, n[, k] name the size) or "elems"
    peak_name: str           # what pct_of_peak is a percent of ("" if none)
    peak_column: str = ""    # the device ceiling in the throughput's unit ("" if none)
    split_by: tuple = ()     # columns whose values make separate series
    roofline: bool = False   # FLOPs over device-memory bytes mean something
    speedup: tuple = ()      # (variant, baseline): a time ratio the tables show
    throughput_note: str = ""  # what the throughput counts, for axes


OPS = {
    "sgemm": OpInfo("tflops", "TFLOP/s", "n", "FP32 peak", "peak_fp32_tflops", roofline=True),
    "reduce": OpInfo("gbps", "GB/s", "elems", "memory BW", "peak_mem_gbps", roofline=True,
                     throughput_note="input read"),
    "sort": OpInfo("gkeys_per_s", "Gkeys/s", "elems", "", split_by=("math",)),
    "transpose": OpInfo("gbps", "GB/s", "n", "memory BW", "peak_mem_gbps",
                        throughput_note="read + written"),
    "histogram": OpInfo("gbps", "GB/s", "elems", "memory BW", "peak_mem_gbps",
                        split_by=("math", "dist"), throughput_note="input read"),
    "scan": OpInfo("gbps", "GB/s", "elems", "memory BW", "peak_mem_gbps", split_by=("math",),
                   throughput_note="read + written"),
    "transfer": OpInfo("gbps", "GB/s", "elems", "", speedup=("overlap", "pinned"),
                       throughput_note="across the host link, both ways"),
}
# the order of split values in tables and legends (others follow, sorted)
SPLIT_ORDER = ("u32", "u8", "i32", "f32", "uniform", "skewed")


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
        """(device, op, variant, math, m, n, k, elems, l2_flush, dist, gpu): one
        measurement of one variant; two commits' rows of the same case are
        compared on it."""
        get = self.values.get
        return (self.cells["device"], self.cells["op"], self.cells["variant"],
                self.cells["math"], get("m"), get("n"), get("k"), get("elems"), get("l2_flush"),
                self.cells["dist"], self.cells.get("gpu", ""))

    @property
    def series(self):
        """(op, value of each OPS[op].split_by column): ('sort', 'u32'),
        ('histogram', 'u8', 'skewed'), ('sgemm',)."""
        info = self.info
        return (self.cells["op"],) + tuple(self.cells[c] for c in (info.split_by if info else ()))

    @property
    def info(self):
        return OPS.get(self.cells["op"])

    @property
    def is_matrix(self):
        """Sized by m, n (and k): sgemm, transpose."""
        return bool(self.info) and self.info.size_name == "n"

    @property
    def dims(self):
        """A matrix op's dimensions that are set: (m, n, k) or (m, n); () otherwise."""
        if not self.is_matrix:
            return ()
        return tuple(v for v in (self.values.get(c) for c in ("m", "n", "k")) if v is not None)

    @property
    def is_square(self):
        """A matrix op whose dimensions are all equal (any other op: True)."""
        return len(set(self.dims)) <= 1

    @property
    def size_x(self):
        """The size on a chart's x axis: n for matrix ops, elems otherwise."""
        return self.values.get(self.info.size_name) if self.info else None

    @property
    def size_key(self):
        """What makes two rows the same case: (m, n, k) for matrix ops, elems otherwise."""
        if self.is_matrix:
            return (self.values.get("m"), self.values.get("n"), self.values.get("k"))
        return self.values.get("elems")

    @property
    def fallback(self):
        """The row ran another kernel than its own (kernel_note says why)."""
        return bool(self.cells["kernel_note"])

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


def series_order(series):
    """Sort key for series: by op (OPS order), then SPLIT_ORDER ('u32' before 'f32')."""
    op = list(OPS).index(series[0]) if series[0] in OPS else len(OPS)
    return (op,) + tuple((SPLIT_ORDER.index(p) if p in SPLIT_ORDER else len(SPLIT_ORDER), p)
                         for p in series[1:])


def is_shape_list(rows):
    """Whether the sizes of these rows (one op, one file) are a list of shapes
    (some matrix size is not square) rather than a sweep of square sizes."""
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
    '4096x14336x4096' (MxNxK; MxN for transpose) otherwise, '2^26' for elements."""
    if row.is_matrix:
        dims = row.dims
        return str(row.n) if row.is_square else "x".join(map(str, dims))
    return pow2_label(row.elems)


def size_label(row):
    """The size in a sentence: 'n=2048', '4096x14336x4096', '2^26 elements'."""
    if row.is_matrix:
        return f"n={row.n}" if row.is_square else size_short(row)
    return f"{pow2_label(row.elems)} elements"


def parse_size(text):
    """'2048', '2^26' or '1<<26' -> int; 'MxNxK' or 'MxN' -> a tuple of ints;
    raises ValueError otherwise."""
    text = text.strip()
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
    ops) or the element count, a tuple the matrix dimensions."""
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

TF32_LIBRARY = "cublas_tf32"


def comparison_library(series, hand_rows):
    """The library a hand variant's rows compare against: the CSV's reference
    library (the most common one), cublas_tf32 for sgemm TF32 hand rows."""
    if series[0] == "sgemm" and hand_rows[0].math == "tf32":
        return TF32_LIBRARY
    names = [r.ref_library for r in hand_rows if r.ref_library]
    return max(set(names), key=names.count) if names else ""


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
    pair (OPS[op].speedup) among the rows of one case, or None."""
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
