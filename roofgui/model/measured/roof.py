"""A measured kernel placed against a chip's roofline.

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
from roofgui.model.measured.record import Kernel


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
