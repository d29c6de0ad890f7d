"""Sweep geometry: the sweep plot's curves (log10), their critical markers and labels,
simplified drawings and the fit range, computed without Qt from the model's sweep.

Split out of :mod:`roofgui.presentation.plotdata`, which re-exports these names (lazily: the
roofline's first paint does not need them).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import Mapping, Sequence

import numpy as np

from roofgui.model.ops import OP_KINDS
from roofgui.presentation.plotdata import OP_DASHES, assign_colours, nice_range
from roofgui.presentation.polylines import simplify_polylines
from roofgui.model.units import format_number, format_si

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


_LINE_FIELDS = tuple(SweepLine.__dataclass_fields__)


def _sweep_line(values: tuple) -> SweepLine:
    """``SweepLine(*values)`` (every field, in order), filled in one ``__dict__`` update
    rather than the frozen ``__init__``'s ``object.__setattr__`` per field: the same
    object (tests/test_model_fastpaths.py checks it), built for each line an edit moves
    (8 in the busy sweep: ~10 -> ~2 us each inside the edit).  SweepLine has no
    ``__post_init__`` and no slots, which this relies on."""
    line = object.__new__(SweepLine)
    line.__dict__.update(zip(_LINE_FIELDS, values))
    return line


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
        #: the last :meth:`curves` call's y ranges, found for a whole batch at once:
        #: id(log10 values) -> (values, min, max)
        self._y_ranges: dict[int, tuple] = {}

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

    def y_range(self, ly: np.ndarray) -> tuple[float, float]:
        """``(min, max)`` of a curve's log10 values.

        Why: the curves of a batch (:meth:`curves`) have theirs found in two numpy
        calls over the whole batch rather than two per curve (the busy sweep's edit: 16
        reductions of 2,000 points, ~19 us a curve inside the edit); min and max pick
        an element, so a row's are those of the row alone.
        """
        e = self._y_ranges.get(id(ly))
        if e is None or e[0] is not ly:
            return float(ly.min()), float(ly.max())
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
        self._y_ranges = y_ranges = {}
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
                lo, hi = ly.min(axis=1).tolist(), ly.max(axis=1).tolist()
                for (i, c, val), every, row, a, b in zip(group, plain, ly, lo, hi):
                    # every point plottable (the usual case): no masking
                    if every:
                        out[i] = (of[2], row, _crit_y_of(c.result, of[0], of[2], None, mode))
                        y_ranges[id(row)] = (row, a, b)
                    else:
                        out[i] = self._one(c, of, val, mode)
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
    log10 x, and ``ok`` which points those are (None: all of them).  A curve whose
    points are all plottable takes :func:`_crit_y_plain`, the others (and whatever that
    turns away) :func:`_crit_y_arrays`: the same number either way.
    """
    known: dict[float, float] = {}

    def crit_y(lc: float) -> float:
        v = known.get(lc)
        if v is None:
            v = None if ok is not None else _crit_y_plain(r, x, lx, lc, mode)
            if v is None:
                v = _crit_y_arrays(r, x, lx, ok, mode, lc)
            known[lc] = v
        return v

    return crit_y


def _crit_y_arrays(r, x: np.ndarray, lx: np.ndarray, ok: np.ndarray | None, mode: str,
                   lc: float) -> float:
    """A curve's compute side at ``lc`` (log10 x), read off ``np.interp`` of its points:
    the general path of :func:`_crit_y_of` (arguments as there)."""
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


def _two(a, shape: tuple, j: int) -> tuple[float, float] | None:
    """Points ``j`` and ``j + 1`` of a Result field over the sweep's ``shape`` as Python
    floats (a 0-d field: its value twice), or None for a field of another form."""
    if type(a) is np.ndarray and a.dtype == np.float64:
        if a.shape == shape:
            return a.item(j), a.item(j + 1)
        if a.ndim == 0:
            v = a.item()
            return v, v
    return None


def _crit_y_plain(r, x: np.ndarray, lx: np.ndarray, lc: float, mode: str) -> float | None:
    """:func:`_crit_y_arrays` of a curve whose points are all plottable, in Python floats
    and two numpy ``log10`` of scalars; None where that is not the same arithmetic.

    Why: the general path is ~10 numpy calls on two-element slices (asarray,
    broadcast_to, searchsorted, ascontiguousarray, log10, interp ...): an edit of the
    busy sweep asks it for 8 markers, ~30 us each inside the edit (~240 us of a ~2.5 ms
    geometry stage); this is one searchsorted, four ``item`` and two scalar ``log10``.

    The same numbers: a Python float division is the IEEE double division numpy does
    (so ``fl / tm`` is the array path's quotient), ``log10`` stays numpy's (its SIMD
    ``log10`` is not libm's ``math.log10``, which differs in the last bit for ~0.5 % of
    values on an AVX-512 machine), and the interpolation between the two points is
    numpy's own arithmetic (``numpy/_core/src/multiarray/compiled_base.c``,
    ``arr_interp``): the left point's value at or left of it, the right point's at or
    right of it, else ``slope * (lc - x0) + y0`` with ``slope = (y1 - y0) / (x1 - x0)``.
    That last expression is one rounding per operation only where numpy was not built
    to fuse it into a multiply-add: :func:`_interp_is_plain` checks that once.  Turned
    away (None): a quotient or log that is not finite and positive-finite (numpy's inf,
    NaN, warnings), points that do not rise, a field of another shape or dtype, a NaN.
    """
    n = lx.size
    if n < 2 or lx.shape != x.shape or not _interp_is_plain():
        return None
    j = min(max(int(lx.searchsorted(lc, side="right")) - 1, 0), n - 2)
    x0, x1 = lx.item(j), lx.item(j + 1)
    tm = _two(r.t_math, x.shape, j)
    if tm is None:
        return None
    if mode == "flops":
        fl = _two(r.flops, x.shape, j)
        if fl is None or not (tm[0] > 0.0 and tm[1] > 0.0):
            return None
        q0, q1 = fl[0] / tm[0], fl[1] / tm[1]
    else:
        q0, q1 = tm
    if not (0.0 < q0 < math.inf and 0.0 < q1 < math.inf and x0 < x1 and lc == lc):
        return None
    y0 = float(_log10(np.float64(q0)))
    y1 = float(_log10(np.float64(q1)))
    if lc >= x1:  # (right of the last point: its value; at it: its value too)
        return y1
    if lc <= x0:  # (left of the first point: its value; at it: its value too)
        return y0
    slope = (y1 - y0) / (x1 - x0)
    y = slope * (lc - x0) + y0
    return y if y == y else None  # (numpy retries a NaN from the other end)


_log10 = np.log10
#: whether np.interp's ``slope * (x - x0) + y0`` rounds each operation (see
#: :func:`_interp_is_plain`); None until asked
_PLAIN_INTERP: bool | None = None


def _interp_is_plain() -> bool:
    """Whether ``np.interp`` between two points gives, here, what Python's doubles give
    for its formula (:func:`_crit_y_plain`).

    A compiler may fuse numpy's ``slope * (x - x0) + y0`` into one multiply-add (one
    rounding, not two): x86-64 wheels are built without FMA, clang on arm64 contracts
    by default.  A fused result differs from the two-rounding one for a good share of
    random inputs, so 4 × 64 of them tell which this numpy does (once, ~0.1 ms).
    """
    global _PLAIN_INTERP
    if _PLAIN_INTERP is None:
        rng = np.random.default_rng(20240607)
        same = True
        for _ in range(4):
            x0, x1 = np.sort(rng.uniform(-3.0, 6.0, 2)).tolist()
            y0, y1 = rng.uniform(-20.0, 20.0, 2).tolist()
            at = rng.uniform(x0, x1, 64)
            want = np.interp(at, [x0, x1], [y0, y1]).tolist()
            slope = (y1 - y0) / (x1 - x0)
            got = [slope * (v - x0) + y0 if x0 < v < x1 else np.interp(v, [x0, x1], [y0, y1])
                   for v in at.tolist()]
            same = same and x0 < x1 and got == want
        _PLAIN_INTERP = same
    return _PLAIN_INTERP


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
        oi = op_order[(c.op_index, c.phase)]
        if by_op:
            colour, dash = colours[f"op:{oi}"], "solid"
        else:
            colour, dash = colours[c.chip.id], OP_DASHES[oi % len(OP_DASHES)]
        # The very curve of last time (the model hands an unchanged op's curves back) in
        # the same colour and dash, its op of the same name (an OpSpec may be renamed in
        # place): its line, x bounds and y range are last time's, unless the labels drawn
        # before it now repeat its own (24 of the busy edit's 32 lines: ~10 -> ~3 us
        # each).  Two curves sharing one result take the path below.
        look = (by_op, colour, dash, c.op.name)
        fast = kept.get("fast")
        if fast is not None and fast[0] is c and fast[1] == look:
            line = fast[2]
            cx, clabel = line.crit_x, line.crit_label
            shown, at_x = True, None
            if cx is not None and clabel:
                at_x = seen.setdefault(clabel, [])
                shown = not any(abs(x - cx) <= 1e-9 for x in at_x)
            if shown == line.crit_label_shown:
                if shown and at_x is not None:
                    at_x.append(cx)
                lines.append(line)
                if fast[3] is not None:
                    xs += fast[3]
                    ys += fast[4]
                continue
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
        legend = label_op if by_op else full
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
            line = _sweep_line((c.op_index, c.phase, c.chip.id, full, label_op, chip_label,
                                colour, dash, lx, ly, crit, cx, cy, clabel,
                                legend, tip, shown, draw_x, draw_y))
            kept["line"] = (sig, line)
        lines.append(line)
        bounds = y_range = None
        if lx.size:
            bounds = list(logs.bounds(lx))
            xs += bounds
            y_range = kept.get("y")
            if y_range is None:
                y_range = kept["y"] = logs.y_range(ly)
            ys += y_range
        kept["fast"] = (c, look, line, bounds, y_range)
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
    for c in curves:
        k = OP_KINDS.get(c.op.kind)
        if k is not None:
            for d in k.dims:
                if d.name == dim:
                    return d.label
    return dim
