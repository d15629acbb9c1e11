"""plots/roofline_layout.py: where each variant goes on a roofline picture.

Idea: a roofline point is (arithmetic intensity, achieved TFLOP/s). The
intensity is the CSV's `intensity` column where it has one (compare's
analytic FLOPs over minimum bytes), else flops / bytes from the older
columns; the measured one (`intensity_measured`, compare --metrics: DRAM
bytes as counted) is kept beside it. The achieved rate is flops / median
time. Rows without FLOPs (sort, transpose, transfer, softmax, the norms:
flops 0 or empty) have no point: they are left out and named, since placing
them on a FLOP/s axis would be a figure they never had.

Every variant of one op at one size has the same analytic intensity, so
markers pile up on one vertical line; where their rates are close too (the
hand reduce kernels and the library all sit at the memory roof), one marker
hides the others. spread() moves such markers sideways, each to the nearest
free place beside its intensity, by a fixed fraction of the axis's decades
per step and never far (the picture marks the true intensity with a tick
and says so). No matplotlib
here: the tests check the layout directly and on the drawn figure.
Standard library only.
"""

import dataclasses
import math

# Two markers closer than this in log10(TFLOP/s) would overlap (a marker of
# 8 points, with a margin, on a chart whose y axis spans about six decades in
# five inches).
Y_CLOSE_DECADES = 0.13
# The step between spread markers, as a fraction of the x axis's decades,
# and the farthest a marker may move to either side (decades): where a step
# would pass it, the step shrinks, so that a point never strays far from its
# intensity.
X_STEP_FRACTION = 0.02
X_SPREAD_MAX_DECADES = 0.25


@dataclasses.dataclass
class Point:
    row: object                 # the csvlib Row
    label: str                  # the variant as the legend names it
    intensity: float            # FLOP/byte, as the CSV (or flops/bytes) says
    tflops: float               # achieved: flops / median time
    measured: float = None      # intensity_measured (--metrics), or None
    from_column: bool = False   # intensity read from the CSV's intensity column
    x: float = 0.0              # where it is drawn (spread(); = intensity if alone)


def cell_float(row, column):
    """A float cell the csvlib row keeps as text (columns newer than csvlib's
    lists), or None when empty, absent, malformed or not positive."""
    text = row.cells.get(column, "")
    try:
        value = float(text) if text and text.strip() else None
    except ValueError:
        return None
    return value if value is not None and value > 0 and math.isfinite(value) else None


def make_point(row, label):
    """The Point of an ok row, or None where it has no FLOPs, bytes or time."""
    flops, time_ms = row.values.get("flops"), row.values.get("time_ms_median")
    if not flops or not time_ms or flops <= 0 or time_ms <= 0:
        return None
    intensity = cell_float(row, "intensity")
    from_column = intensity is not None
    if intensity is None:
        nbytes = row.values.get("bytes")
        if not nbytes or nbytes <= 0:
            return None
        intensity = flops / nbytes
    return Point(row, label, intensity, flops / (time_ms * 1e-3) / 1e12,
                 cell_float(row, "intensity_measured"), from_column, intensity)


def has_flops(row):
    return bool(row.values.get("flops")) and row.values.get("flops") > 0


def collect(rows, label):
    """(points of the ok rows with FLOPs, ops whose ok rows have none, count
    of ok rows of FLOP-counting ops left out for lack of bytes or time)."""
    points, without, left_out = [], [], 0
    ops_with = {r.op for r in rows if r.ok and has_flops(r)}
    for row in rows:
        if not row.ok:
            continue
        if row.op not in ops_with:
            if row.op not in without:
                without.append(row.op)
            continue
        point = make_point(row, label(row))
        if point is None:
            left_out += 1
        else:
            points.append(point)
    return points, without, left_out


def group_by_case(points):
    """[(key, points)] per op series and size, in the order first seen:
    one picture each."""
    groups = {}
    for p in points:
        groups.setdefault((p.row.series, p.row.size_key), []).append(p)
    return list(groups.items())


def same_intensity(a, b):
    return abs(a - b) <= 1e-6 * max(a, b)


def slots(count):
    """0, -1, 1, -2, 2, ... up to +-count: the x offsets tried, nearest first."""
    out = [0]
    for i in range(1, count + 1):
        out += [-i, i]
    return out


def spread(points, x_decades):
    """Sets each point's drawn x. Points are placed in rising intensity, then
    rate; each takes the offset nearest its intensity (0, -1, +1, -2, ...
    steps of X_STEP_FRACTION * x_decades decades, at most
    X_SPREAD_MAX_DECADES either side) where no marker placed before lies
    within a step in x and Y_CLOSE_DECADES in rate; where every offset
    clashes, the one with the fewest clashes. A point that nothing hides
    stays at its intensity. Returns [[points moved off one intensity]]."""
    step = min(X_STEP_FRACTION * max(x_decades, 1.0), X_SPREAD_MAX_DECADES)
    tries = slots(max(1, int(X_SPREAD_MAX_DECADES / step + 1e-9)))
    placed = []
    for p in sorted(points, key=lambda q: (q.intensity, q.tflops, q.label)):
        home, ly = math.log10(p.intensity), math.log10(p.tflops)
        best = None
        for s in tries:
            lx = home + s * step
            clashes = sum(1 for qx, qy in placed
                          if abs(qx - lx) < 0.95 * step and abs(qy - ly) < Y_CLOSE_DECADES)
            if best is None or clashes < best[0]:
                best = (clashes, lx)
            if clashes == 0:
                break
        p.x = 10 ** best[1] if best[1] != home else p.intensity
        placed.append((best[1], ly))
    moved = {}
    for p in points:
        if p.x != p.intensity:
            key = next((k for k in moved if same_intensity(k, p.intensity)), p.intensity)
            moved.setdefault(key, []).append(p)
    return list(moved.values())
