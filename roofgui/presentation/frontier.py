"""The latency–throughput frontier as the window draws it (pure Python, no Qt).

From :func:`roofgui.model.pareto.pareto`'s result: every (tensor-parallel degree, batch)
point at (log10 tokens/s per user, log10 tokens/s per chip), in one of three states —
**meets** the limits (fits in HBM, TTFT and TPOT within them), **misses** a limit (fits, but
too slow), **unfit** (does not fit in HBM) — one line per degree through its batches, the
frontier, the TPOT limit (a vertical line: 1/TPOT is the x axis) and the TTFT limit (where
each degree's line crosses it, interpolated in log space, joined).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from roofgui.model.units import format_number, format_si, format_time
from roofgui.presentation.plotdata import nice_range

MEETS, MISSES, UNFIT = "meets", "misses", "unfit"
#: The y axis by ``throughput`` (output: generated tokens only; total: prompt + generated).
Y_TITLES = {"output": "Output tokens/s per chip (generated tokens only)",
            "total": "Total tokens/s per chip (prompt + generated tokens)"}
X_TITLE = "Output tokens/s per user (1 / TPOT)"
STATE_LEGENDS = {MEETS: "fits and meets the limits", MISSES: "misses a latency limit",
                 UNFIT: "does not fit in HBM"}
_UNITS = {"": 1.0, "s": 1.0, "ms": 1e-3, "us": 1e-6, "µs": 1e-6, "μs": 1e-6, "ns": 1e-9}
_TIME = re.compile(r"^\s*([0-9]*\.?[0-9]+(?:[eE][+-]?[0-9]+)?)\s*([a-zµμ]*)\s*$")


def parse_seconds(text: str, what: str) -> float | None:
    """A time limit typed by the user (``2``, ``2 s``, ``50 ms``, ``50e-3``); empty: none.

    Raises ValueError naming ``what`` and what is wrong."""
    if not text.strip():
        return None
    m = _TIME.match(text)
    if m is None or m.group(2) not in _UNITS:
        raise ValueError(f"{what}: {text.strip()!r} is not a time (type e.g. 2 s, 50 ms or 0.05; "
                         "leave empty for no limit)")
    v = float(m.group(1)) * _UNITS[m.group(2)]
    if not (math.isfinite(v) and 0 < v <= 1e6):
        raise ValueError(f"{what}: must be a time above zero and at most 10^6 s (got {text.strip()})")
    return v


@dataclass(frozen=True)
class FrontierPoint:
    tp: int
    batch: int
    x: float            # log10 tokens/s per user
    y: float            # log10 tokens/s per chip
    state: str          # MEETS, MISSES or UNFIT
    on_frontier: bool
    slot: int           # colour slot of its degree
    ttft: float | None
    tpot: float | None
    tooltip: str


@dataclass(frozen=True)
class FrontierGeometry:
    points: tuple[FrontierPoint, ...]
    lines: tuple[tuple[int, int, tuple[float, ...], tuple[float, ...]], ...]  # tp, slot, xs, ys
    frontier: tuple[tuple[float, ...], tuple[float, ...]]
    tpot_x: float | None
    tpot_label: str
    ttft: tuple[tuple[float, ...], tuple[float, ...]]
    ttft_label: str
    fit: tuple[float, float, float, float]
    x_title: str
    y_title: str
    summary: str
    message: str = ""

    def of_state(self, state: str) -> list[FrontierPoint]:
        return [p for p in self.points if p.state == state]


def _state(q: Mapping[str, Any]) -> str:
    if not q["fits"]:
        return UNFIT
    return MEETS if q["meets_slo"] else MISSES


def _why(q: Mapping[str, Any], ttft: float | None, tpot: float | None) -> str:
    if not q["fits"]:
        return "<b>does not fit in HBM</b>"
    if q["meets_slo"]:
        return "fits in HBM and meets the limits"
    miss = [f"{k.upper()} {format_time(q[k])} &gt; {format_time(lim)}" for k, lim in
            (("ttft", ttft), ("tpot", tpot)) if lim is not None and (q[k] is None or q[k] > lim)]
    return "<b>misses</b> " + ", ".join(miss)


def _tooltip(q: Mapping[str, Any], res: Mapping[str, Any], on: bool) -> str:
    ttft, tpot = res["ttft_limit"], res["tpot_limit"]
    return (f"<b>TP {q['chips']} × batch {format_number(q['batch'])}</b>"
            + (" — on the frontier" if on else "")
            + f"<br>TTFT {format_time(q['ttft'])}, TPOT {format_time(q['tpot'])}"
            f"<br>{format_si(q['output_tokens_per_s_per_chip'], 'tok/s')} output, "
            f"{format_si(q['total_tokens_per_s_per_chip'], 'tok/s')} total per chip"
            f"<br>{format_si(q['tokens_per_s_per_user'], 'tok/s')} per user"
            f"<br>{_why(q, ttft, tpot)}")


def _crossing(a: FrontierPoint, b: FrontierPoint, limit: float) -> tuple[float, float] | None:
    """Where the TTFT of the line from ``a`` to ``b`` (batch rising) reaches ``limit``."""
    if not (a.ttft and b.ttft and a.ttft <= limit < b.ttft):
        return None
    t = (math.log(limit) - math.log(a.ttft)) / (math.log(b.ttft) - math.log(a.ttft))
    return a.x + t * (b.x - a.x), a.y + t * (b.y - a.y)


def frontier_geometry(res: Mapping[str, Any]) -> FrontierGeometry:
    """What the Frontier view draws for a :func:`~roofgui.model.pareto.pareto` result."""
    on = {(q["chips"], q["batch"]) for q in res["frontier"]}
    tps = sorted({q["chips"] for q in res["points"]})
    slots = {tp: i for i, tp in enumerate(tps)}
    pts = []
    for q in res["points"]:
        u, c = q["tokens_per_s_per_user"], q["tokens_per_s_per_chip"]
        if not (u and c and u > 0 and c > 0):
            continue
        key = (q["chips"], q["batch"])
        pts.append(FrontierPoint(q["chips"], q["batch"], math.log10(u), math.log10(c), _state(q),
                                 key in on, slots[q["chips"]], q["ttft"], q["tpot"],
                                 _tooltip(q, res, key in on)))
    lines, cross = [], []
    for tp in tps:
        mine = sorted((p for p in pts if p.tp == tp), key=lambda p: p.batch)
        lines.append((tp, slots[tp], tuple(p.x for p in mine), tuple(p.y for p in mine)))
        if res["ttft_limit"] is not None:
            cross += [c for a, b in zip(mine, mine[1:])
                      if (c := _crossing(a, b, res["ttft_limit"])) is not None]
    fr = sorted((p for p in pts if p.on_frontier), key=lambda p: p.x)
    tpot = res["tpot_limit"]
    tpot_x = -math.log10(tpot) if tpot is not None else None
    xs = [p.x for p in pts] + ([tpot_x] if tpot_x is not None else [])
    ys = [p.y for p in pts]
    x0, x1 = nice_range(min(xs), max(xs), pad=0.08, step=0.5, min_span=1.0) if xs else (0.0, 3.0)
    y0, y1 = nice_range(min(ys), max(ys), pad=0.08, step=0.5, min_span=1.0) if ys else (0.0, 4.0)
    cross.sort()
    return FrontierGeometry(
        tuple(pts), tuple(lines), (tuple(p.x for p in fr), tuple(p.y for p in fr)), tpot_x,
        f"TPOT ≤ {format_time(tpot)}" if tpot is not None else "",
        (tuple(c[0] for c in cross), tuple(c[1] for c in cross)),
        f"TTFT ≤ {format_time(res['ttft_limit'])}" if res["ttft_limit"] is not None else "",
        (x0, x1, y0, y1), X_TITLE, Y_TITLES[res["throughput"]], summary(res),
        "" if pts else "; ".join(res.get("errors", [])) or "No configuration to show.")


def summary(res: Mapping[str, Any]) -> str:
    """One line: the best per-chip point within the limits."""
    best = max(res["frontier"], key=lambda q: q["tokens_per_s_per_chip"], default=None)
    what = "output" if res["throughput"] == "output" else "total"
    if best is None:
        return "No configuration fits and meets the limits."
    return (f"Best per chip within the limits: TP {best['chips']}, batch {best['batch']}: "
            f"{format_si(best['tokens_per_s_per_chip'], 'tok/s')} {what} per chip, "
            f"{format_si(best['tokens_per_s_per_user'], 'tok/s')} per user "
            f"(TTFT {format_time(best['ttft'])}, TPOT {format_time(best['tpot'])})")


def legend_tps(points: Sequence[FrontierPoint]) -> list[tuple[int, int]]:
    """(degree, colour slot) of every degree drawn."""
    return sorted({(p.tp, p.slot) for p in points})
