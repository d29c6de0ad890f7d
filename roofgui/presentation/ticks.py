"""Log-axis ticks, their labels and readout values, and padded log ranges (log10 units)."""

from __future__ import annotations

import math

from roofgui.model.units import format_si, format_time


#: The most major ticks asked of :func:`log_ticks`, whatever the caller's room.
MAX_MAJORS = 60
#: Widest span (decades) whose every decade gets a minor tick (beyond it: majors only).
MAX_MINOR_SPAN = 120
#: Beyond this log10 value a float cannot hold the number: labels read ``1e400``.
_FLOAT_LOG_MAX = 307


def log_ticks(lo: float, hi: float, max_major: int = 9) -> tuple[list[float], list[float]]:
    """Major and minor tick positions (log10) for a log axis spanning [lo, hi] (log10).

    Majors are whole decades (every 2nd/3rd... decade when the span is wide);
    minors are 2..9 × each decade while the span is small enough to show them.
    When less than one decade is visible, 2 and 5 become majors so the axis
    always has labels.  However wide the span, at most ``MAX_MAJORS + 1`` majors and
    a few hundred minors come back (a view zoomed far out costs no more to draw).
    """
    if not (math.isfinite(lo) and math.isfinite(hi)) or hi <= lo:
        return [], []
    max_major = max(1, min(int(max_major), MAX_MAJORS))
    span = hi - lo
    step = max(1, int(math.ceil(span / max_major)))
    majors = [float(k * step) for k in range(math.ceil(lo / step), math.floor(hi / step) + 1)]
    majors = [v for v in majors if lo <= v <= hi]
    minors: list[float] = []
    if step == 1 and span <= 8:
        first = int(math.floor(lo))
        for d in range(first - 1, int(math.ceil(hi)) + 1):
            for m in (2, 3, 4, 5, 6, 7, 8, 9):
                v = d + math.log10(m)
                if lo <= v <= hi:
                    minors.append(v)
    elif step > 1 and span <= MAX_MINOR_SPAN:
        minors = [float(d) for d in range(int(math.floor(lo)), int(math.ceil(hi)) + 1)
                  if d % step != 0 and lo <= d <= hi]
    if len(majors) < 2:
        extra = [v for v in minors if round(10 ** (v - math.floor(v + 1e-9))) in (2, 5)]
        majors = sorted(set(majors) | set(extra))
        minors = [v for v in minors if v not in majors]
    return majors, minors


#: Views spanning fewer decades than this label the 2× and 5× ticks too (room allowing).
INTERMEDIATE_SPAN = 3.0


def log_tick_levels(lo: float, hi: float, max_major: int = 9
                    ) -> tuple[list[float], list[float], list[float]]:
    """Major, intermediate and minor tick positions (log10) for a log axis on [lo, hi].

    As :func:`log_ticks`, and when fewer than :data:`INTERMEDIATE_SPAN` decades are in
    view and the axis has room for them (``max_major`` labels in all), the 2× and 5×
    ticks move from the minors to a level of their own, which is labelled (20, 50,
    200 …), so a zoomed-in view reads without counting minor ticks.
    """
    majors, minors = log_ticks(lo, hi, max_major)
    if not majors and not minors or hi - lo >= INTERMEDIATE_SPAN:
        return majors, [], minors
    mids = [v for v in minors if round(10 ** (v - math.floor(v + 1e-9))) in (2, 5)]
    if len(majors) + len(mids) > max(1, min(int(max_major), MAX_MAJORS)):
        return majors, [], minors
    return majors, mids, [v for v in minors if v not in mids]


def _power(v_log: float) -> float | None:
    """``10 ** v_log``, or None where a float cannot hold it (or it is not a number)."""
    if not math.isfinite(v_log) or abs(v_log) > _FLOAT_LOG_MAX:
        return None
    return 10.0 ** v_log


def _beyond(v_log: float) -> str:
    """A label for a value no float holds: ``1e400``, ``1e-400`` (``—`` for no number)."""
    if math.isnan(v_log):
        return "—"
    if math.isinf(v_log):
        return "∞" if v_log > 0 else "0"
    return f"1e{round(v_log):d}"


def tick_label(v_log: float, kind: str = "si") -> str:
    """Label for a tick at log10 value ``v_log``.

    ``kind``: ``"si"`` → ``100 T``, ``1 P``; ``"plain"`` → ``0.1``, ``10``, ``1k``, ``10M``;
    ``"time"`` → ``100 µs``, ``1 ms``, ``10 s``; ``"rate"`` (tokens or requests per
    second) as ``"si"`` from 1 up, and ``0.5``, ``0.01`` below (never ``500 m``).
    """
    v = _power(v_log)
    if v is None:
        return _beyond(v_log)
    # snap to 3 significant digits so 10**2.9999999 prints as 1k
    v = float(f"{v:.3g}")
    if kind == "time":
        return format_time(v, 3)
    if kind == "plain" or (kind == "rate" and v < 1):
        if v < 1000:
            return f"{v:g}"
        return format_si(v, "", 3).replace(" ", "")
    return format_si(v, "", 3)


def tick_label_exact(v_log: float, kind: str = "si") -> str:
    """A readout value at log10 ``v_log`` with 3 significant digits.

    ``"si"`` gives ``"197 T"`` (append a unit directly: ``197 TFLOP/s``),
    ``"plain"`` gives ``"241"`` / ``"4.38k"``, ``"time"`` gives ``"174 µs"``, ``"rate"``
    gives ``"0.05 "`` below 1 (append ``tok/s``) and as ``"si"`` from 1 up.
    """
    v = _power(v_log)
    if v is None:
        return _beyond(v_log)
    if kind == "time":
        return format_time(v, 3)
    if kind == "plain":
        return f"{v:.3g}" if v < 1000 else format_si(v, "", 3).replace(" ", "")
    if kind == "rate" and v < 0.9995:
        return f"{v:.3g} "
    t = format_si(v, "", 3)
    return t if " " in t else t + " "


def nice_range(lo: float, hi: float, pad: float = 0.15, step: float = 0.5,
               min_span: float = 1.0) -> tuple[float, float]:
    """Pad a log10 interval and snap its ends outwards to multiples of ``step`` decades."""
    if not (math.isfinite(lo) and math.isfinite(hi)):
        return 0.0, 1.0
    if hi - lo < min_span:
        mid = (lo + hi) / 2
        lo, hi = mid - min_span / 2, mid + min_span / 2
    lo = math.floor((lo - pad) / step) * step
    hi = math.ceil((hi + pad) / step) * step
    return lo, hi
