"""Sweep geometry: the sweep plot's curves (log10), their critical markers and labels,
the points drawn of each curve and the fit range, computed without Qt from the model's sweep.

A curve keeps every point of the model's sweep in ``x``/``y`` (the CSV export writes them
all); what the plot draws (``draw_x``/``draw_y``) is about
:data:`~roofgui.presentation.polylines.DRAWN_PER_DECADE` of them a decade plus the
curve's knees, exactly: where the op's bound changes (the critical value, where compute
meets the slowest transfer, and a change from HBM to link between the two).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import Mapping, Sequence

import numpy as np

from roofgui.model.ops import OP_KINDS
from roofgui.model.units import format_number, format_si
from roofgui.presentation.colours import OP_DASHES, assign_colours
from roofgui.presentation.polylines import sweep_drawing
from roofgui.presentation.ticks import nice_range


@dataclass(frozen=True)
class SweepLine:
    op_index: int
    phase: str
    chip_id: str
    label: str  # "op — chip"
    op_label: str
    chip_label: str
    colour: int
    dash: str
    x: np.ndarray  # log10 of the swept dimension
    y: np.ndarray  # log10 FLOP/s or log10 seconds
    critical: float | None  # linear units of the swept dimension
    crit_x: float | None  # log10
    crit_y: float | None  # log10
    crit_label: str
    legend: str  # the op alone when one chip is shown, else "op — chip"
    tooltip: str
    #: False when an earlier line already labels the same critical value at the same x
    #: (two ops with identical curves): the plot draws that label once
    crit_label_shown: bool = True
    #: the points drawn: about DRAWN_PER_DECADE of ``x``, ``y`` a decade, and the knees
    draw_x: np.ndarray | None = None
    draw_y: np.ndarray | None = None

    @cached_property
    def key(self) -> tuple[int, str, str]:
        """``(op_index, phase, chip_id)``: the line's identity in a plot (a plot asks
        for it often)."""
        return (self.op_index, self.phase, self.chip_id)


@dataclass(frozen=True)
class SweepGeometry:
    lines: tuple[SweepLine, ...]
    fit: tuple[float, float, float, float]
    x_title: str
    y_title: str
    y_kind: str  # "si" | "time"
    dim: str = "B"
    colours: Mapping[str, int] = field(default_factory=dict)


def critical_label(dim: str, value: float) -> str:
    """``B* = 241``: the critical value rounded to what a person would say."""
    if value >= 1e4:
        v = format_si(value, "", 3).replace(" ", "")
    elif value >= 10:
        v = format_number(round(value))
    else:
        v = f"{value:.3g}"
    return f"{dim}* = {v}"


class SweepMemo:
    """The lines of the last :func:`sweep_geometry` call, for the next one (keep one per plot).

    The model hands an op an edit leaves alone its very Result again
    (:func:`~roofgui.model.scenario.sweep_scenario`): its lines come back as the very same
    SweepLine objects, neither worked out again nor redrawn by a plot that skips the lines
    it already shows.  Holds the last call's lines alone.
    """

    def __init__(self) -> None:
        #: line's inputs -> (Result, x, SweepLine); the Result and x keep their ids theirs
        self.lines: dict[tuple, tuple] = {}


def sweep_geometry(scenario, curves, previous_colours: Mapping[str, int] | None = None,
                   n_colours: int = 8, memo: SweepMemo | None = None) -> SweepGeometry:
    """Curves (log10), critical markers and the fit range for the sweep plot.

    ``scenario.sweep.y`` chooses attainable FLOP/s (``"flops"``) or time per op
    (``"time"``, T_lower).  The critical marker sits on the compute side of the
    knee: at the critical value, T_math equals the largest comms time, so the
    curve's value there is FLOPs/T_math (= the peak) or T_math itself.  ``memo``: the
    plot's :class:`SweepMemo`, whose unchanged lines are handed back.
    """
    dim = scenario.sweep.dim
    # "time" (and an LLM step's "latency") plot T_lower; anything else attainable FLOP/s
    mode = "time" if scenario.sweep.y in ("time", "latency") else "flops"
    looks, colours = line_looks(curves, previous_colours, n_colours)
    by_op = len({c.chip.id for c in curves}) <= 1
    axes: dict[int, tuple] = {}  # id(x) -> (x, its SweptAxis): the curves of a sweep share x
    last, kept = (memo.lines if memo is not None else {}), {}
    lines = []
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        for c, (colour, dash) in zip(curves, looks):
            key = (id(c.result), id(c.x), c.critical, c.op_index, c.phase, c.op.name,
                   c.chip.id, c.chip.label(), colour, dash, by_op, mode, dim)
            hit = last.get(key)
            if hit is not None and hit[0] is c.result and hit[1] is c.x:
                line = hit[2]
            else:
                if id(c.x) not in axes:
                    axes[id(c.x)] = (c.x, SweptAxis.of(c.x))
                line = _sweep_line(c, axes[id(c.x)][1], mode, dim, colour, dash, by_op)
            kept[key] = (c.result, c.x, line)
            lines.append(line)
    if memo is not None:
        memo.lines = kept
    y_title = ("Attainable performance (FLOP/s)" if mode == "flops"
               else "Time per op, T_lower (s)")
    return SweepGeometry(tuple(dedupe_critical_labels(lines)), _fit(lines, mode),
                         _dim_title(curves, dim), y_title,
                         "si" if mode == "flops" else "time", dim, colours)


def line_looks(curves, previous_colours: Mapping[str, int] | None,
               n_colours: int) -> tuple[list[tuple[int, str]], dict[str, int]]:
    """Each curve's palette slot and dash, and the colours (by chip, or ``op:<n>``).

    One chip: colour tells the ops apart (as in the reference's figure), every line
    solid.  Several chips: colour is the chip (as on the roofline) and the dash the op.
    """
    chip_ids = list(dict.fromkeys(c.chip.id for c in curves))
    op_order = {k: i for i, k in enumerate(dict.fromkeys((c.op_index, c.phase) for c in curves))}
    if len(chip_ids) <= 1:
        colours = {f"op:{i}": i % n_colours for i in range(len(op_order))}
        looks = [(colours[f"op:{op_order[(c.op_index, c.phase)]}"], "solid") for c in curves]
    else:
        colours = assign_colours(chip_ids, previous_colours, n_colours)
        looks = [(colours[c.chip.id], OP_DASHES[op_order[(c.op_index, c.phase)] % len(OP_DASHES)])
                 for c in curves]
    return looks, colours


def _sweep_line(c, axis: "SweptAxis", mode: str, dim: str, colour: int, dash: str,
                by_op: bool) -> SweepLine:
    """One curve's line (``axis``: its x): its points, critical marker, knees, drawing
    and texts."""
    r = c.result
    lx, ly, ok = axis.points(r.attainable_flops if mode == "flops" else r.t_lower)
    crit = c.critical
    cx = cy = None
    clabel = ""
    if crit is not None and np.isfinite(crit) and crit > 0 and lx.size >= 2:
        lc = math.log10(crit)
        lo, hi = (axis.lo, axis.hi) if ok is None else (lx.min(), lx.max())
        if lo <= lc <= hi:
            # np.interp reads the two points around lc: the compute side at those alone
            j = min(max(int(lx.searchsorted(lc, side="right")) - 1, 0), lx.size - 2)
            pair = np.flatnonzero(ok)[j:j + 2] if ok is not None else np.arange(j, j + 2)
            cx, cy = lc, float(np.interp(lc, lx[j:j + 2], side_values(r, 0, pair, mode)))
            clabel = critical_label(dim, crit)
    knee_x, knee_y = curve_knees(r, lx, ok, mode, cx, cy)
    draw_x, draw_y = sweep_drawing(lx, ly, knee_x, knee_y)
    chip_label = c.chip.label()
    label_op = f"{c.op.name} · {c.phase}" if c.phase else c.op.name
    full = f"{label_op} — {chip_label}"  # (c.label)
    tip = f"<b>{label_op}</b> on <b>{chip_label}</b>"
    if crit is not None:
        tip += f"<br>critical {clabel or critical_label(dim, crit)}"
    else:
        tip += f"<br>no critical {dim}: the bound does not change along {dim}"
    return SweepLine(c.op_index, c.phase, c.chip.id, full, label_op, chip_label, colour, dash,
                     lx, ly, crit, cx, cy, clabel, label_op if by_op else full, tip,
                     True, draw_x, draw_y)


@dataclass(frozen=True)
class SweptAxis:
    """log10 of a sweep's x, worked out once for the curves that share it."""

    lx: np.ndarray  # log10 of every x
    ok: np.ndarray | None  # which x are plottable (positive and finite); None: all
    lo: float  # the least and greatest plottable log10 x (nan: none)
    hi: float

    @classmethod
    def of(cls, x) -> "SweptAxis":
        """The axis of ``x`` (call it under ``np.errstate``: an x that is not plottable warns)."""
        lx = np.log10(np.asarray(x, dtype=np.float64))
        ok = np.isfinite(lx)  # (a log is finite just where its number is positive and finite)
        good = lx if ok.all() else lx[ok]
        lo, hi = (float(good.min()), float(good.max())) if good.size else (math.nan, math.nan)
        return cls(lx, None if good is lx else ok, lo, hi)

    def points(self, values) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
        """``(log10 x, log10 values, ok)`` of a curve's plottable points (x and value
        positive and finite); ``ok`` masks which of the sweep's points those are (None:
        all of them).  Call it under ``np.errstate``: a point that is not plottable warns."""
        values = np.asarray(values, dtype=np.float64)
        if values.shape != self.lx.shape:
            values = np.broadcast_to(values, self.lx.shape)
        ly = np.log10(values)
        ok = np.isfinite(ly)
        if self.ok is None and ok.all():
            return self.lx, ly, None
        if self.ok is not None:
            ok &= self.ok
        return self.lx[ok], ly[ok], ok


def side_values(r, bound: int, at, mode: str) -> np.ndarray:
    """The curve's log10 value had the op been bound by ``bound`` (0 compute, 1 HBM,
    2 link) throughout, at the points ``at`` (indices of the sweep's points):
    log10 FLOPs / T_bound in ``"flops"`` mode, log10 T_bound in ``"time"`` mode.
    Call it under ``np.errstate`` when a time may be zero."""
    t = _at(r.t_math if bound == 0 else r.t_hbm if bound == 1 else r.t_net, at)
    return np.log10(_at(r.flops, at) / t) if mode == "flops" else np.log10(t)


def _at(a, at) -> np.ndarray:
    """A Result field at the points ``at`` (a 0-d field is the same at every point)."""
    a = np.asarray(a, dtype=np.float64)
    return a[at] if a.ndim else np.full(len(at), float(a))


def curve_knees(r, lx: np.ndarray, ok: np.ndarray | None, mode: str, cx: float | None,
                cy: float | None) -> tuple[list[float], list[float]]:
    """Where a curve bends between two of its points: wherever the bound changes.

    A change between compute and transfer that brackets the critical marker ``(cx, cy)``
    bends at the marker (the model's exact critical value).  Any other change bends
    where the two bounds' log values, each a straight chord between the two points,
    cross (a change between HBM and link, or a compute knee outside the sweep's markers).

    Parameters
    ----------
    r : Result
        The curve's figures over the sweep.
    lx : numpy.ndarray
        log10 x of the plottable points, ``ok`` the mask of which those are (None: all).
    mode : str
        ``"flops"`` or ``"time"``.
    cx, cy : float or None
        The critical marker (log10), if drawn.
    """
    code = np.asarray(r.bound_code)
    if code.ndim == 0:
        return [], []  # (one bound all along)
    where = np.arange(code.size) if ok is None else np.flatnonzero(ok)
    if ok is not None:
        code = code[ok]
    kx: list[float] = []
    ky: list[float] = []
    for i in np.flatnonzero(code[1:] != code[:-1]).tolist():
        a, b = int(code[i]), int(code[i + 1])
        x0, x1 = float(lx[i]), float(lx[i + 1])
        if cx is not None and 0 in (a, b) and x0 <= cx <= x1:
            kx.append(cx)
            ky.append(cy)
            continue
        pair = where[i:i + 2]
        ya, yb = side_values(r, a, pair, mode), side_values(r, b, pair, mode)
        d0, d1 = float(ya[0] - yb[0]), float(ya[1] - yb[1])
        if not (math.isfinite(d0) and math.isfinite(d1) and np.all(np.isfinite(ya))) \
                or d0 == d1:
            continue
        t = min(max(d0 / (d0 - d1), 0.0), 1.0)
        kx.append(x0 + t * (x1 - x0))
        ky.append(float(ya[0] + t * (ya[1] - ya[0])))
    return kx, ky


def _fit(lines: Sequence[SweepLine], mode: str) -> tuple[float, float, float, float]:
    """The view that shows every line: x padded a little, y snapped to half decades."""
    drawn = [ln for ln in lines if ln.x.size]
    if not drawn:
        return (0.0, 4.0, 12.0, 16.0)
    xs = {id(ln.x): ln.x for ln in drawn}.values()  # (the lines of a sweep share theirs)
    x0 = min(float(x.min()) for x in xs)
    x1 = max(float(x.max()) for x in xs)
    lo = min(float(ln.y.min()) for ln in drawn)
    hi = max(float(ln.y.max()) for ln in drawn)
    pad = 0.02 * max(x1 - x0, 0.5)  # keep the end ticks' labels clear of the frame
    y0, y1 = nice_range(lo, hi, pad=0.15, step=0.5, min_span=1.0)
    if mode == "flops":
        y1 = max(y1, hi + 0.3)
    return (x0 - pad, x1 + pad, y0, y1)


def dedupe_critical_labels(lines: Sequence[SweepLine], tol: float = 1e-9) -> list[SweepLine]:
    """Mark all but the first of the lines whose critical label has the same text at the
    same x (log10, within ``tol``) as not shown, so identical labels are drawn once."""
    out: list[SweepLine] = []
    seen: list[tuple[str, float]] = []
    for ln in lines:
        if ln.crit_x is not None and ln.crit_label:
            dup = any(t == ln.crit_label and abs(x - ln.crit_x) <= tol for t, x in seen)
            if dup:
                ln = replace(ln, crit_label_shown=False)
            else:
                seen.append((ln.crit_label, ln.crit_x))
        out.append(ln)
    return out


def _dim_title(curves, dim: str) -> str:
    for c in curves:
        k = OP_KINDS.get(c.op.kind)
        if k is not None:
            for d in k.dims:
                if d.name == dim:
                    return d.label
    return dim
