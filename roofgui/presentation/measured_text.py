"""A measured kernel read against a chip's roofline: the record and the one-line summary
that ``roofgui measured`` prints (and the window's hover and results table show).
"""

from __future__ import annotations

from roofgui.model.measured.roof import MeasuredPoint
from roofgui.model.units import format_si, format_time


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
