"""Sweep geometry: the sweep plot's curves (log10), their critical markers and labels,
simplified drawings and the fit range, computed without Qt from the model's sweep.

Split out of :mod:`roofgui.model.plotdata`, which re-exports these names (lazily: the
roofline's first paint does not need them).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import Mapping, Sequence

import numpy as np

from .plotdata import OP_DASHES, assign_colours, nice_range
from .polylines import simplify_polylines
from .units import format_number, format_si

class _Key:
    """:attr:`SweepLine.key`, worked out once per line and then kept in the line's
    ``__dict__``, where Python finds it before this (non-data) descriptor: a plot asks a
    line for its key several times per update (~220 calls an edit of the busy sweep, whose
    unchanged lines are last time's objects).  ``functools.cached_property`` does the same
    behind a lock (~1 us a first look-up in Python 3.11)."""

    def __get__(self, line, owner=None):
        if line is None:
            return self
        key = line.__dict__["key"] = (line.op_index, line.phase, line.chip_id)
        return key


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
    #: the points drawn: ``x``, ``y`` simplified to within :data:`DRAW_TOLERANCE`
    #: (a 2,000-point roofline sweep draws as a handful of points)
    draw_x: np.ndarray | None = None
    draw_y: np.ndarray | None = None

    #: ``(op_index, phase, chip_id)``: the line's identity in a plot (see :class:`_Key`)
    key = _Key()


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


class _SweepLogs:
    """The log10 coordinates of sweep curves, with the work their curves share done once.

    Every curve of a sweep has the same x array: its log10, its bounds and whether it
    rises are computed once, and a curve whose values are all plottable uses that
    array itself (read-only) rather than a copy.  The numbers are those of the
    per-curve formula, element by element (``log10`` is elementwise).
    """

    def __init__(self) -> None:
        self._x: dict[int, tuple] = {}  # id(x) -> (x, x > 0, log10 x, all x > 0, rising)
        self._bounds: dict[int, tuple] = {}  # id(log10 array) -> (array, min, max)

    def _of_x(self, x: np.ndarray) -> tuple:
        e = self._x.get(id(x))
        if e is None or e[0] is not x:
            pos = x > 0
            with np.errstate(divide="ignore", invalid="ignore"):
                lx = np.log10(np.where(pos, x, 1.0))
            lx.flags.writeable = False  # shared by the curves' SweepLines
            rising = bool(lx.size < 2 or np.all(lx[1:] > lx[:-1]))
            e = self._x[id(x)] = (x, pos, lx, bool(pos.all()), rising)
        return e

    def bounds(self, lx: np.ndarray) -> tuple[float, float]:
        """``(min, max)`` of a curve's log10 x (once per shared array)."""
        e = self._bounds.get(id(lx))
        if e is None or e[0] is not lx:
            e = self._bounds[id(lx)] = (lx, float(lx.min()), float(lx.max()))
        return e[1], e[2]

    def curve(self, c, mode: str):
        """``(lx, ly, crit_y)`` of a curve: its plottable points (log10) and a function of
        log10 x giving the compute side's value there (the critical marker's y)."""
        return self.curves([c], mode)[0]

    def curves(self, cs: Sequence, mode: str) -> list[tuple]:
        """:meth:`curve` of several curves at once.

        The curves of one op's sweep share their ``x`` and their values are rows of one
        (chips, points) array: the usual test (every point plottable) and the ``log10``
        are one numpy call each for all of them, not one per curve (``log10`` is
        elementwise, so each row's numbers are those of its own call).  A curve with
        points that are not plottable takes the per-curve path.  (The busy scenario's
        edit converts eight curves of 2,000 points: 0.16 -> 0.09 ms.)
        """
        out: list = [None] * len(cs)
        groups: dict[int, tuple] = {}  # id(x) -> (x of, [(index, curve, values)])
        with np.errstate(divide="ignore", invalid="ignore"):
            for i, c in enumerate(cs):
                x = np.asarray(c.x, dtype=np.float64)
                of = self._of_x(x)
                r = c.result
                val = np.asarray(r.attainable_flops if mode == "flops" else r.t_lower,
                                 dtype=np.float64)
                if of[3] and of[4] and val.shape == x.shape and val.ndim == 1:
                    groups.setdefault(id(x), (of, []))[1].append((i, c, val))
                else:
                    out[i] = self._one(c, of, val, mode)
            for of, group in groups.values():
                v = np.concatenate([val for _, _, val in group]).reshape(len(group), of[0].size)
                good = v > 0
                good &= np.isfinite(v)
                plain = good.all(axis=1).tolist()
                ly = np.log10(v)
                for (i, c, val), every, row in zip(group, plain, ly):
                    # every point plottable (the usual case): no masking
                    out[i] = ((of[2], row, _crit_y_of(c.result, of[0], of[2], None, mode))
                              if every else self._one(c, of, val, mode))
        return out

    @staticmethod
    def _one(c, of: tuple, val: np.ndarray, mode: str) -> tuple:
        """:meth:`curve` of one curve, its values ``val`` (under the caller's errstate)."""
        x, pos, lx_all, all_pos, rising = of
        good = (val > 0) & np.isfinite(val)
        if all_pos and rising and val.shape == x.shape and good.all():
            lx, ly, ok = lx_all, np.log10(np.ascontiguousarray(val)), None
        else:
            ok = pos & good
            lx, ly = lx_all[ok], np.log10(np.where(ok, val, 1.0))[ok]
        return lx, ly, _crit_y_of(c.result, x, lx, ok, mode)


def _crit_y_of(r, x: np.ndarray, lx: np.ndarray, ok: np.ndarray | None, mode: str):
    """The function of log10 x giving a curve's compute side there (its critical marker's
    y), remembering its answers (a curve kept by a SweepMemo is asked again).

    ``r``: the curve's Result, over the points ``x``; ``lx``: its plottable points'
    log10 x, and ``ok`` which points those are (None: all of them)."""
    known: dict[float, float] = {}

    def crit_y(lc: float) -> float:
        v = known.get(lc)
        if v is None:
            v = known[lc] = _crit_y(lc)
        return v

    def _crit_y(lc: float) -> float:
        tm = np.asarray(r.t_math, dtype=np.float64)
        fl = np.asarray(r.flops, dtype=np.float64)
        if tm.shape != x.shape:  # (a value that does not vary along the sweep)
            tm = np.broadcast_to(tm, x.shape)
        if fl.shape != x.shape:
            fl = np.broadcast_to(fl, x.shape)
        if ok is None:
            # np.interp reads only the two points around lc: compute just those
            j = min(max(int(lx.searchsorted(lc, side="right")) - 1, 0), lx.size - 2)
            at, xp = slice(j, j + 2), lx[j:j + 2]
        else:
            at, xp = ok, lx
        tm, fl = np.ascontiguousarray(tm[at]), np.ascontiguousarray(fl[at])
        comp = np.log10(fl / tm) if mode == "flops" else np.log10(tm)
        return float(np.interp(lc, xp, comp))

    return crit_y


class SweepMemo:
    """What :func:`sweep_geometry` worked out for each curve last time, for the next call.

    A curve whose result arrays are the very objects of last time (the model hands an
    unchanged op's cached results back: :func:`~roofgui.model.scenario.sweep_scenario`)
    keeps its log10 points and its simplified drawing, which are pure functions of those
    arrays; only the curves of an edited op are converted and simplified again.  Holds
    the last call's curves alone, so it never outgrows the sweep on show.  Keep one per
    plot (the window's plot and an export's each have their own).
    """

    def __init__(self) -> None:
        self.logs = _SweepLogs()
        #: (id(result), id(x), mode) -> (result, x, lx, ly, crit_y, draw_x, draw_y, and a
        #: dict of what sweep_geometry derived from them: critical marker, texts, y range)
        self.curves: dict[tuple, tuple] = {}
        #: curves converted and simplified by the last call (the rest were reused)
        self.computed = 0


def sweep_geometry(scenario, curves, previous_colours: Mapping[str, int] | None = None,
                   n_colours: int = 8,
                   memo: SweepMemo | None = None) -> SweepGeometry:
    """Curves (log10), critical markers and the fit range for the sweep plot.

    ``scenario.sweep.y`` chooses attainable FLOP/s (``"flops"``) or time per op
    (``"time"``, T_lower).  The critical marker sits on the compute side of the
    knee: at the critical value, T_math equals the largest comms time, so the
    curve's value there is FLOPs/T_math (= the peak) or T_math itself.
    """
    dim = scenario.sweep.dim
    # "time" (and an LLM step's "latency") plot T_lower; anything else attainable FLOP/s
    mode = "time" if scenario.sweep.y in ("time", "latency") else "flops"
    chip_ids: list[str] = []
    for c in curves:
        if c.chip.id not in chip_ids:
            chip_ids.append(c.chip.id)
    op_order: dict[tuple[int, str], int] = {}
    for c in curves:
        op_order.setdefault((c.op_index, c.phase), len(op_order))
    # One chip: colour tells the ops apart (as in the reference's figure).
    # Several chips: colour is the chip (as on the roofline) and line style the op.
    by_op = len(chip_ids) <= 1
    if by_op:
        colours = {f"op:{i}": i % n_colours for i in range(len(op_order))}
    else:
        colours = assign_colours(chip_ids, previous_colours, n_colours)
    lines: list[SweepLine] = []
    xs, ys = [], []
    if memo is None:
        memo = SweepMemo()
    elif len(memo.logs._x) > 8 or len(memo.logs._bounds) > 1024:  # (sweeps no longer shown)
        memo.logs = _SweepLogs()
    logs = memo.logs
    chip_labels: dict[int, str] = {}
    # critical labels drawn so far: text -> their x (by text, not one list of every label
    # drawn: 32 lines compared each label with all those before it)
    seen: dict[str, list[float]] = {}
    labels: dict[float, str] = {}  # critical_label(dim, crit) once per positive value

    def crit_text(v: float) -> str:
        t = labels.get(v) if v > 0 else None  # (positive: equal keys are the same number)
        if t is None:
            t = critical_label(dim, v)
            if v > 0:
                labels[v] = t
        return t

    # each curve's log10 points and drawing: reused when its result arrays are unchanged
    # (two identical ops share one cached result: one entry serves both curves)
    known, fresh = memo.curves, {}
    keys, todo, new = [], [], []
    for c in curves:
        key = (id(c.result), id(c.x), mode)
        keys.append(key)
        if key in fresh:
            continue
        e = known.get(key)
        if e is None or e[0] is not c.result or e[1] is not c.x:
            e = (c.result, c.x)
            todo.append(key)
            new.append(c)
        fresh[key] = e
    if todo:
        for k, pts in zip(todo, logs.curves(new, mode)):
            # (the last item: what the loop below works out from the arrays, kept with them)
            fresh[k] = fresh[k] + pts + (None, None, {})
        masks = simplify_polylines([fresh[k][2] for k in todo], [fresh[k][3] for k in todo])
        for k, m in zip(todo, masks):
            e = fresh[k]
            fresh[k] = e[:5] + (e[2][m], e[3][m], e[7])
    memo.curves, memo.computed = fresh, len(todo)
    pts = [fresh[k] for k in keys]
    for c, (_, _, lx, ly, comp, draw_x, draw_y, kept) in zip(curves, pts):
        crit = c.critical
        at = kept.get(("crit", dim, crit))
        if at is None:
            cx = cy = None
            clabel = ""
            if crit is not None and np.isfinite(crit) and crit > 0 and lx.size >= 2:
                lc = math.log10(crit)
                lo, hi = logs.bounds(lx)
                if lo <= lc <= hi:
                    cx, cy = lc, comp(lc)
                    clabel = crit_text(crit)
            at = kept[("crit", dim, crit)] = (cx, cy, clabel)
        cx, cy, clabel = at
        chip_label = chip_labels.get(id(c.chip))
        if chip_label is None:
            chip_label = chip_labels[id(c.chip)] = c.chip.label()
        texts = kept.get(("text", c.op.name, c.phase, chip_label, dim, crit))
        if texts is None:
            label_op = f"{c.op.name} · {c.phase}" if c.phase else c.op.name
            full = f"{label_op} — {chip_label}"  # (c.label)
            tip = f"<b>{label_op}</b> on <b>{chip_label}</b>"
            if crit is not None:
                tip += f"<br>critical {crit_text(crit)}"
            else:
                tip += f"<br>no critical {dim}: the bound does not change along {dim}"
            texts = kept[("text", c.op.name, c.phase, chip_label, dim, crit)] = \
                (label_op, full, tip)
        label_op, full, tip = texts
        oi = op_order[(c.op_index, c.phase)]
        if by_op:
            colour, dash, legend = colours[f"op:{oi}"], "solid", label_op
        else:
            colour, dash, legend = colours[c.chip.id], OP_DASHES[oi % len(OP_DASHES)], full
        # a label already drawn with the same text at the same x (identical curves): once
        shown = True
        if cx is not None and clabel:
            at_x = seen.setdefault(clabel, [])
            shown = not any(abs(x - cx) <= 1e-9 for x in at_x)
            if shown:
                at_x.append(cx)
        # An unchanged op's line is last time's object when every field is the same (lx,
        # ly and the drawing are kept with the arrays, the rest compared here): building
        # a frozen dataclass of 19 fields is ~3 us, and an edit of the busy scenario
        # leaves 24 of its 32 lines alone.  (With the labels' texts worked out once per
        # value and compared by text: 32 lines all reused, 0.25 -> 0.15 ms.)
        sig = (c.op_index, c.phase, c.chip.id, full, label_op, chip_label, colour, dash, crit,
               cx, cy, clabel, legend, tip, shown)
        last = kept.get("line")
        if last is not None and last[0] == sig and crit != 0:  # (== does not tell 0.0 from -0.0)
            line = last[1]
        else:
            line = SweepLine(c.op_index, c.phase, c.chip.id, full, label_op, chip_label,
                             colour, dash, lx, ly, crit, cx, cy, clabel,
                             legend, tip, shown, draw_x, draw_y)
            kept["line"] = (sig, line)
        lines.append(line)
        if lx.size:
            lo, hi = logs.bounds(lx)
            xs += [lo, hi]
            y_range = kept.get("y")
            if y_range is None:
                y_range = kept["y"] = (float(ly.min()), float(ly.max()))
            ys += y_range
    if xs:
        x0, x1 = min(xs), max(xs)
        pad = 0.02 * max(x1 - x0, 0.5)  # keep the end ticks' labels clear of the frame
        x0, x1 = x0 - pad, x1 + pad
        y0, y1 = nice_range(min(ys), max(ys), pad=0.15, step=0.5, min_span=1.0)
        if mode == "flops":
            y1 = max(y1, max(ys) + 0.3)
        fit = (x0, x1, y0, y1)
    else:
        fit = (0.0, 4.0, 12.0, 16.0)
    y_title = ("Attainable performance (FLOP/s)" if mode == "flops"
               else "Time per op, T_lower (s)")
    return SweepGeometry(tuple(lines), fit, _dim_title(curves, dim), y_title,
                         "si" if mode == "flops" else "time", dim, colours)


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
    from .ops import OP_KINDS
    for c in curves:
        k = OP_KINDS.get(c.op.kind)
        if k is not None:
            for d in k.dims:
                if d.name == dim:
                    return d.label
    return dim
