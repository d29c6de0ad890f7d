"""A measured kernel read against a chip's roofline: the record and the one-line summary
that ``roofgui measured`` prints (and the window's hover and results table show).

The roof a kernel runs under: the chip's peak for the kernel's dtype on its unit (matrix
unless the file shows vector work; bf16 when the dtype is unknown) and the chip's HBM
bandwidth.  ``attainable = min(peak, intensity x bandwidth)``; the kernel is memory-bound
when the slope is the lower roof, compute-bound otherwise.  ``roof_fraction`` is achieved
over attainable FLOP/s (for a memory-bound kernel, equally, achieved over peak bandwidth).

When a count is unknown the bound is ``"unknown"`` and the fraction is taken of the one roof
that can be known -- the compute roof without bytes, the memory roof without FLOPs -- which
is never more than the kernel's fraction of the roof that truly limits it.  A fraction
above 1 means the kernel beat its bound: a wrong chip figure, dtype or byte count.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

from roofgui.model.chips import Chip
from roofgui.model.dtypes import get_dtype
from roofgui.model.errors import ModelError
from roofgui.model.measured import Kernel
from roofgui.model.units import format_si, format_time

#: The peak key used when a kernel's dtype is unknown.
DEFAULT_PEAK_KEY = "bf16"
#: The fields of :meth:`MeasuredPoint.record`, in order.
RECORD_FIELDS = ("name", "count", "seconds", "flops", "hbm_bytes", "achieved_flops",
                 "achieved_bandwidth", "intensity", "attainable_flops", "roof_fraction",
                 "bound", "format")


@dataclass(frozen=True)
class MeasuredPoint:
    """One measured kernel placed against one chip's roofline."""

    name: str
    count: int
    seconds: float
    flops: float | None
    hbm_bytes: float | None
    achieved_flops: float | None
    achieved_bandwidth: float | None
    intensity: float | None
    attainable_flops: float | None
    roof_fraction: float | None
    #: "compute", "memory" or "unknown"
    bound: str
    format: str
    chip: str
    peak: float
    peak_key: str
    unit: str
    hbm_bandwidth: float
    dtype: str | None = None

    def record(self) -> dict:
        """The record ``roofgui measured --json`` prints (see :data:`RECORD_FIELDS`)."""
        d = asdict(self)
        return {k: d[k] for k in RECORD_FIELDS}

    def summary(self) -> str:
        return summary(self)


def chip_peak(chip: Chip, kernel: Kernel) -> tuple[float, str, str]:
    """(peak FLOP/s, peak key, unit) the kernel runs against on ``chip``."""
    key = get_dtype(kernel.dtype).peak_key if kernel.dtype else DEFAULT_PEAK_KEY
    unit = kernel.unit or "matrix"
    try:
        p = chip.peak(key, unit)
    except ModelError:  # no figure for this dtype: the chip's headline peak
        p = chip.headline_peak()
    return p.value, p.key, p.unit


def place(kernel: Kernel, chip: Chip) -> MeasuredPoint:
    """Read ``kernel`` against ``chip``'s roofline."""
    peak, key, unit = chip_peak(chip, kernel)
    bw = chip.hbm_bandwidth.value
    af, ab, ai = kernel.achieved_flops, kernel.achieved_bandwidth, kernel.intensity
    if kernel.flops is not None and kernel.hbm_bytes:
        ai = kernel.flops / kernel.hbm_bytes
        slope = ai * bw
        attainable = min(peak, slope)
        bound = "memory" if slope < peak else "compute"
        fraction = ab / bw if bound == "memory" else af / peak
    elif kernel.flops is not None:  # bytes unknown (or none moved): the compute roof
        attainable, bound, fraction = peak, ("unknown" if kernel.hbm_bytes is None
                                             else "compute"), af / peak
    elif ab is not None:  # FLOPs unknown: the memory roof
        attainable, bound, fraction = None, "unknown", ab / bw
    else:
        attainable, bound, fraction = None, "unknown", None
    return MeasuredPoint(kernel.name, kernel.count, kernel.seconds, kernel.flops,
                         kernel.hbm_bytes, af, ab, ai, attainable, fraction, bound,
                         kernel.format, chip.id, peak, key, unit, bw, kernel.dtype)


def summary(p: MeasuredPoint) -> str:
    """One line: the kernel, its time, what it achieved, and its place under the roof."""
    launches = f" \u00d7{p.count}" if p.count != 1 else ""
    parts = [f"{p.name}{launches}: {format_time(p.seconds)}"]
    if p.achieved_flops is not None:
        parts.append(format_si(p.achieved_flops, "FLOP/s"))
    if p.achieved_bandwidth is not None:
        parts.append(format_si(p.achieved_bandwidth, "B/s"))
    if p.intensity is not None:
        parts.append(f"{p.intensity:.3g} FLOP/B")
    head = ", ".join(parts)
    if p.roof_fraction is None:
        return f"{head} \u2014 FLOPs and bytes unknown: not placed on {p.chip}'s roofline"
    memory_roof = p.bound == "memory" or p.attainable_flops is None
    roof = (f"{format_si(p.hbm_bandwidth, 'B/s')} HBM" if memory_roof
            else f"{format_si(p.peak, 'FLOP/s')} {p.peak_key} {p.unit} peak")
    where = {"compute": "compute-bound", "memory": "memory-bound",
             "unknown": "bound unknown"}[p.bound]
    above = " (ABOVE its roof: check the chip, dtype or byte count)" if p.roof_fraction > 1 else ""
    return f"{head} \u2014 {where}, {p.roof_fraction:.1%} of {roof} on {p.chip}{above}"
