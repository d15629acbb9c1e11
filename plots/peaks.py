"""plots/peaks.py: the roofs of a roofline picture, per device.

Idea: a roofline needs every ceiling of the device (FP32 SIMT, the TF32,
FP16, BF16 and FP8 dense tensor rates, HBM and L2 bandwidth), but the CSV
carries only some: peak_fp32_tflops and peak_mem_gbps (at the device's
maximum clocks) on every row, and peak_tflops for the row's own math
(peak_math). The CSV's figures win; this table fills the others, keyed by
compute capability and board name like src/core/peaks.c, whose rates it
mirrors (tests/check_roofline.py compares the two): a tensor roof is the
CSV's FP32 roof times the ratio of the two rates per clock and SM, so that it
is taken at the same (maximum) clock as the FP32 roof and as the C side's
peak_tflops. A device that no row of the table names gets no tensor roof:
the picture says so, never a guess.

Each roof comes with the text of its source, for the picture's caption.
Standard library only.
"""

import dataclasses
import re

MATHS = ("tf32", "fp16", "bf16", "fp8")
MATH_NAMES = {"fp32": "FP32 SIMT", "tf32": "TF32 tensor", "fp16": "FP16 tensor",
              "bf16": "BF16 tensor", "fp8": "FP8 tensor"}


@dataclasses.dataclass(frozen=True)
class Board:
    """One row of the table: the boards of one compute capability it holds for."""
    cc: str                 # "9.0"
    boards: tuple           # names a device name matches (after "NVIDIA ")
    rates: dict             # math -> dense FLOP per clock per SM, FP32 accumulation
    l2_gbps: float = 0.0    # L2 bandwidth, GB/s (0: no published figure)
    source: str = ""        # where the rates come from (short, for captions)
    l2_source: str = ""


# FP32 SIMT lanes per SM by compute capability (src/core/metrics.c,
# metrics_fp32_lanes_per_sm): the FP32 rate per clock and SM is 2 x lanes.
FP32_LANES = {"6.0": 64, "7": 64, "8.0": 64, "8": 128, "9": 128, "10": 128, "11": 128,
              "12": 128}

TABLE = (
    # sm_80, GA100. NVIDIA A100 Tensor Core GPU Architecture whitepaper (2020),
    # https://images.nvidia.com/aem-dam/en-zz/Solutions/data-center/nvidia-ampere-architecture-whitepaper.pdf
    # A100 SXM4, 108 SMs at 1410 MHz: TF32 156, FP16 and BF16 (FP32 accumulate)
    # 312 TFLOP/s dense; no FP8. Its L2 read bandwidth, 5120 bytes per clock
    # (the whitepaper's V100/A100 comparison table), at 1410 MHz: 7219 GB/s.
    Board("8.0", ("A100", "A800"), {"tf32": 1024, "fp16": 2048, "bf16": 2048},
          l2_gbps=5120 * 1.410, source="A100 whitepaper",
          l2_source="A100 whitepaper: 5120 B/clk at 1410 MHz"),
    # sm_86, GA10x. NVIDIA Ampere GA102 GPU Architecture whitepaper v2.0,
    # https://www.nvidia.com/content/PDF/nvidia-ampere-ga-102-gpu-architecture-whitepaper-v2.pdf
    # RTX 3090, 82 SMs at 1695 MHz: FP16/BF16 (FP32 accumulate) 71, TF32 35.6
    # TFLOP/s dense. NVIDIA A40 datasheet,
    # https://images.nvidia.com/content/Solutions/data-center/a40/nvidia-a40-datasheet.pdf
    # 84 SMs at 1740 MHz: BF16 149.7, TF32 74.8 (the full rate).
    Board("8.6", ("GeForce",), {"tf32": 256, "fp16": 512, "bf16": 512},
          source="GA102 whitepaper"),
    Board("8.6", ("A40",), {"tf32": 512, "fp16": 1024, "bf16": 1024}, source="A40 datasheet"),
    # sm_89, AD10x. NVIDIA Ada GPU Architecture whitepaper,
    # https://images.nvidia.com/aem-dam/Solutions/geforce/ada/nvidia-ada-gpu-architecture.pdf
    # RTX 4090, 128 SMs at 2520 MHz: FP16/BF16 (FP32 accumulate) 165.2, FP8
    # 330.3, TF32 82.6 TFLOP/s dense. The L40/L40S datasheets do not say which
    # accumulation their figures are for: not listed (as in peaks.c).
    Board("8.9", ("GeForce",), {"tf32": 256, "fp16": 512, "bf16": 512, "fp8": 1024},
          source="Ada whitepaper"),
    # sm_90, GH100. NVIDIA H100 Tensor Core GPU Architecture whitepaper,
    # https://resources.nvidia.com/en-us-tensor-core/gtc22-whitepaper-hopper
    # H100 SXM5, 132 SMs at 1830 MHz: TF32 494.7, FP16 and BF16 989.4, FP8
    # 1978.9 TFLOP/s dense, FP32 accumulation at the full rate. The H200
    # (https://www.nvidia.com/en-us/data-center/h200/) has the same SM and
    # figures. NVIDIA publishes no L2 bandwidth for sm_90: no L2 roof.
    Board("9.0", ("H100", "H200", "H800", "GH200"),
          {"tf32": 2048, "fp16": 4096, "bf16": 4096, "fp8": 8192}, source="H100 whitepaper"),
    # sm_100 (B200): NVIDIA publishes per-GPU figures but not the clock they
    # are quoted at, so no rate per clock follows: not listed (as in peaks.c).
)


def normalise_cc(cc):
    """'9.0', '9', 9.0, '90' or 'sm_90' -> '9.0'; '' when unreadable."""
    text = str(cc or "").strip().lower()
    text = text[3:] if text.startswith("sm_") else text
    if re.fullmatch(r"\d+\.\d+", text):
        major, minor = text.split(".")
        return f"{int(major)}.{int(minor)}"
    if re.fullmatch(r"\d{2,3}", text):
        return f"{int(text[:-1])}.{int(text[-1])}"
    if re.fullmatch(r"\d", text):
        return f"{text}.0"
    return ""


def board_matches(boards, device):
    """Does `device` ('NVIDIA H200', 'NVIDIA H100 80GB HBM3') name one of
    `boards`: equal after an optional 'NVIDIA ', or followed by a character
    that is not a letter or digit (src/core/peaks.c's rule)."""
    name = device[7:] if device.startswith("NVIDIA ") else device
    return any(name.startswith(b) and (len(name) == len(b) or not name[len(b)].isalnum())
               for b in boards)


def lookup(cc, device):
    """The table's Board of this compute capability and device name, or None."""
    key = normalise_cc(cc)
    return next((b for b in TABLE if b.cc == key and board_matches(b.boards, device)), None)


def fp32_rate(cc):
    """FP32 SIMT FLOP per clock per SM of a compute capability (0 unknown)."""
    key = normalise_cc(cc)
    if not key:
        return 0
    lanes = FP32_LANES.get(key, FP32_LANES.get(key.split(".")[0], 0))
    return 2 * lanes


@dataclasses.dataclass(frozen=True)
class Roof:
    name: str       # 'FP32 SIMT', 'TF32 tensor', 'HBM', 'L2'
    kind: str       # 'compute' (TFLOP/s) or 'memory' (GB/s)
    value: float
    source: str     # where the figure comes from, for the caption


@dataclasses.dataclass
class DeviceRoofs:
    device: str
    cc: str
    roofs: list     # [Roof], compute roofs in rising order, then memory
    missing: list   # ['L2: no published figure for cc 9.0 (plots/peaks.py)', ...]

    def compute(self):
        return [r for r in self.roofs if r.kind == "compute"]

    def memory(self):
        return [r for r in self.roofs if r.kind == "memory"]


def _positive(values):
    return [v for v in values if v is not None and v > 0]


def device_roofs(rows):
    """The roofs of the device of `rows` (rows of one device: .device, .cc,
    .values peak_fp32_tflops, peak_mem_gbps, peak_tflops, cells peak_math):
    the CSV's own figures where present (their maximum over the rows: the
    maximum clock; a row's peak_tflops is at its measured clock), the table's
    rates at the CSV's clock for the other tensor maths."""
    first = rows[0]
    device, cc = first.cells["device"], normalise_cc(first.cells.get("cc", ""))
    fp32 = max(_positive(r.values.get("peak_fp32_tflops") for r in rows), default=0.0)
    hbm = max(_positive(r.values.get("peak_mem_gbps") for r in rows), default=0.0)
    own = {}
    for r in rows:
        math, value = r.cells.get("peak_math", ""), r.values.get("peak_tflops")
        if math and value and value > 0:
            own[math] = max(own.get(math, 0.0), value)
    if not fp32 and own.get("fp32"):
        fp32 = own["fp32"]
    roofs, missing = [], []
    if fp32:
        roofs.append(Roof(MATH_NAMES["fp32"], "compute", fp32, "CSV peak_fp32_tflops"))
    else:
        missing.append("FP32: no peak_fp32_tflops in the CSV")
    board = lookup(cc, device)
    base = fp32_rate(cc)
    for math in MATHS:
        if own.get(math):
            roofs.append(Roof(MATH_NAMES[math], "compute", own[math], "CSV peak_tflops"))
        elif board and board.rates.get(math) and fp32 and base:
            roofs.append(Roof(MATH_NAMES[math], "compute", fp32 * board.rates[math] / base,
                              f"peaks.py ({board.source}) at the CSV's clock"))
    if not board:
        missing.append(f"tensor: {device} (cc {cc or '?'}) is not in plots/peaks.py")
    roofs.sort(key=lambda r: r.value)
    if hbm:
        roofs.append(Roof("HBM", "memory", hbm, "CSV peak_mem_gbps"))
    else:
        missing.append("HBM: no peak_mem_gbps in the CSV")
    if board and board.l2_gbps:
        roofs.append(Roof("L2", "memory", board.l2_gbps, f"peaks.py ({board.l2_source})"))
    else:
        missing.append(f"L2: no published figure for {device} (cc {cc or '?'})")
    return DeviceRoofs(device, cc, roofs, missing)


def merged(roofs):
    """Compute roofs of equal value drawn once: [(names joined by '/', Roof)]
    ('FP16/BF16 tensor' on every GPU listed here)."""
    out = []
    for roof in roofs:
        if out and abs(out[-1][1].value - roof.value) <= 1e-9 * roof.value:
            name, first = out[-1]
            joined = name.replace(" tensor", "") + "/" + roof.name
            source = (first.source if first.source == roof.source
                      else f"{first.source}; {roof.source}")
            out[-1] = (joined, Roof(joined, first.kind, first.value, source))
        else:
            out.append((roof.name, roof))
    return out
