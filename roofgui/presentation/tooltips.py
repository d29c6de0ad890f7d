"""Rich-text tooltips of the roofline's points, and intensities as people write them."""

from __future__ import annotations

from roofgui.model.roofline import BOUNDS
from roofgui.model.units import format_number, format_si, format_time

BOUND_LABELS = {"compute": "compute-bound", "memory": "memory-bound", "network": "network-bound"}


def format_intensity(v: float) -> str:
    """An intensity (FLOP/byte): whole from 100 up (``4 378``), else 3 significant digits."""
    if v >= 100:
        return format_number(round(v))
    return f"{v:.3g}"


def point_tooltip(e) -> str:
    """Rich-text tooltip with the exact figures of an evaluation entry."""
    r = e.analysis.result
    f = e.analysis.figures
    bound = BOUNDS[int(r.bound_code)]
    rows = [
        f"<b>{e.label}</b> on <b>{f.chip.label()}</b>",
        f"intensity: {format_intensity(float(r.intensity))} FLOP/byte "
        f"(ridge {format_intensity(float(r.critical_intensity))})",
        f"attainable: {format_si(float(r.attainable_flops), 'FLOP/s')} "
        f"of {format_si(float(r.peak_flops), 'FLOP/s')} ({float(r.utilisation):.0%})",
        f"FLOPs: {format_si(float(r.flops), 'FLOP')} · HBM: {format_si(float(r.hbm_bytes), 'B')}",
    ]
    if float(r.net_bytes) > 0:
        rows.append(f"link bytes: {format_si(float(r.net_bytes), 'B')} "
                    f"(intensity {format_intensity(float(r.net_intensity))} FLOP/byte)")
    rows.append(f"T_math {format_time(float(r.t_math))} · T_hbm {format_time(float(r.t_hbm))}"
                + (f" · T_net {format_time(float(r.t_net))}" if float(r.net_bytes) > 0 else ""))
    rows.append(f"T_lower {format_time(float(r.t_lower))} · T_upper {format_time(float(r.t_upper))}")
    rows.append(f"<b>{BOUND_LABELS[bound]}</b>")
    rows.append("<i>click to show this op in the form and results</i>")
    return "<br>".join(rows)
