"""Plain records and worked derivations of analyses, shared by the CLI, CSV and the window."""

from __future__ import annotations

import math
from typing import Any

from roofgui.model.roofline import Analysis
from roofgui.model.units import format_number, format_si, format_time

#: Columns of a result record, in order (CSV header, JSON keys).
FIELDS = ("op", "phase", "chip", "flops", "hbm_bytes", "net_bytes", "intensity", "net_intensity",
          "peak_flops", "peak_dtype", "hbm_bandwidth", "link", "link_bandwidth",
          "critical_intensity", "net_critical_intensity", "t_math", "t_hbm", "t_net", "t_comms",
          "t_lower", "t_upper", "attainable_flops", "utilisation", "bound")


def _f(v: Any) -> float | None:
    x = float(v)
    return x if math.isfinite(x) else None


def record(analysis: Analysis, op: str = "", phase: str = "") -> dict[str, Any]:
    """A JSON-ready dict of every figure (SI units; ``None`` for infinities)."""
    r, f, w = analysis.result, analysis.figures, analysis.work
    rec: dict[str, Any] = {
        "op": op, "phase": phase, "chip": analysis.chip.id,
        "flops": _f(r.flops), "hbm_bytes": _f(r.hbm_bytes), "net_bytes": _f(r.net_bytes),
        "intensity": _f(r.intensity), "net_intensity": _f(r.net_intensity),
        "peak_flops": _f(r.peak_flops), "peak_dtype": f.peak_info.key,
        "hbm_bandwidth": _f(r.hbm_bandwidth), "link": f.link_name or w.link,
        "link_bandwidth": f.link_bandwidth,
        "critical_intensity": _f(r.critical_intensity),
        "net_critical_intensity": _f(r.net_critical_intensity),
        "t_math": _f(r.t_math), "t_hbm": _f(r.t_hbm), "t_net": _f(r.t_net),
        "t_comms": _f(r.t_comms), "t_lower": _f(r.t_lower), "t_upper": _f(r.t_upper),
        "attainable_flops": _f(r.attainable_flops), "utilisation": _f(r.utilisation),
        "bound": str(r.bound),
    }
    rec["critical"] = {k: (None if v is None else float(v)) for k, v in analysis.critical.items()}
    rec["chip_name"] = analysis.chip.label()
    rec["notes"] = list(f.notes)
    return rec


def working(analysis: Analysis) -> list[str]:
    """Each formula with the numbers put in, e.g.
    ``T_math = 3.44e10 FLOP / 1.97e14 FLOP/s = 174 µs``."""
    r, f, w = analysis.result, analysis.figures, analysis.work
    g = lambda v: f"{float(v):.3g}"  # noqa: E731
    lines = []
    if w.formulas.get("per_chip"):
        lines.append(f"Sharded over {w.shards} chips: {w.formulas['per_chip']}")
    lines.append(f"FLOPs = {w.formulas.get('flops', '')} = {g(r.flops)} FLOP")
    lines.append(f"HBM bytes = {w.formulas.get('hbm_bytes', '')} = {g(r.hbm_bytes)} B")
    if float(r.net_bytes) > 0:
        lines.append(f"Link bytes = {w.formulas.get('net_bytes', 'entered')} = {g(r.net_bytes)} B")
    peak_note = f" ({f.peak_info.key} {f.peak_info.unit} peak"
    peak_note += f" × {f.derate_fraction:.0%} achievable)" if f.derate_fraction != 1 else ")"
    lines.append(f"T_math = {g(r.flops)} FLOP / {g(r.peak_flops)} FLOP/s{peak_note} = {format_time(float(r.t_math))}")
    lines.append(f"T_hbm = {g(r.hbm_bytes)} B / {g(r.hbm_bandwidth)} B/s = {format_time(float(r.t_hbm))}")
    if f.link_bandwidth:
        lines.append(f"T_net = {g(r.net_bytes)} B / {g(f.link_bandwidth)} B/s ({f.link_name or w.link}) = "
                     f"{format_time(float(r.t_net))}")
        lines.append(f"T_comms = max(T_hbm, T_net) = {format_time(float(r.t_comms))}")
    lines.append(f"T_lower = max(T_math, T_comms) = {format_time(float(r.t_lower))}")
    lines.append(f"T_upper = T_math + T_comms = {format_time(float(r.t_upper))}")
    lines.append(f"Intensity = {g(r.flops)} FLOP / {g(r.hbm_bytes)} B = {g(r.intensity)} FLOP/B")
    lines.append(f"Critical intensity = {g(r.peak_flops)} / {g(r.hbm_bandwidth)} = "
                 f"{g(r.critical_intensity)} FLOP/B")
    if f.link_bandwidth:
        lines.append(f"Link intensity = {g(r.flops)} / {g(r.net_bytes)} = {g(r.net_intensity)} FLOP/B; "
                     f"critical {g(r.peak_flops)} / {g(f.link_bandwidth)} = {g(r.net_critical_intensity)}")
    lines.append(f"Attainable = {g(r.flops)} FLOP / {format_time(float(r.t_lower))} = "
                 f"{format_si(float(r.attainable_flops), 'FLOP/s')} ({float(r.utilisation):.1%} of peak) "
                 f"→ {r.bound}-bound")
    for name, v in analysis.critical.items():
        if v is not None:
            lines.append(f"Critical {name} = {format_number(v)} (T_math = largest comms time)")
    for n in f.notes:
        lines.append(f"Note: {n}")
    return lines
