"""Evaluating a scenario: every op on every chip, as roofline points and as sweeps.

Each op phase is one vectorised roofline call over all the chips (a leading chip
axis); a sweep adds the swept points as a second axis.  Problems (an op a chip cannot
run, a bad value) are collected as messages, never raised.
"""

from __future__ import annotations

import copy
import json
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any, Callable

import numpy as np

from roofgui.model.catalog import Catalog
from roofgui.model.chips import Chip
from roofgui.model.derate import apply_derates
from roofgui.model.errors import ModelError
from roofgui.model.ops import OP_KINDS, OpKind, Work, op_work
from roofgui.model.roofline import (Analysis, ChipFigures, Result, Settings, chip_figures,
                                    critical_values_many, evaluate_figures)
from roofgui.model.scenario import OpSpec, Scenario, SweepSpec


@dataclass(frozen=True)
class Entry:
    """One op phase on one chip."""

    op_index: int
    op: OpSpec
    phase: str
    chip_id: str
    analysis: Analysis

    @property
    def label(self) -> str:
        return f"{self.op.name} · {self.phase}" if self.phase else self.op.name


@dataclass
class Evaluation:
    """Every (op, phase, chip) of a scenario, and every problem met."""

    entries: list[Entry] = field(default_factory=list)
    chips: list[Chip] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)

    def for_op(self, index: int) -> list[Entry]:
        return [e for e in self.entries if e.op_index == index]


@dataclass(frozen=True)
class SweepCurve:
    """One op phase on one chip along the swept dimension."""

    op_index: int
    op: OpSpec
    phase: str
    chip: Chip
    x: np.ndarray
    result: Result
    critical: float | None

    @property
    def label(self) -> str:
        base = f"{self.op.name} · {self.phase}" if self.phase else self.op.name
        return f"{base} — {self.chip.label()}"


def resolve_chips(scenario: Scenario, catalog: Catalog) -> tuple[list[Chip], list[str]]:
    chips, errors = [], []
    base = Path(scenario.source).parent if scenario.source else None
    for ref in scenario.chips:
        try:
            chips.append(catalog.get(ref, base))
        except ModelError as e:
            errors.append(str(e))
    return apply_derates(chips, scenario.derates), errors  # (each only by the user's choice)


def _figures(chips: list[Chip], work: Work, settings: Settings) -> list[ChipFigures | ModelError]:
    """Each chip's figures for the work, or the ModelError saying why it cannot run it."""
    out: list[ChipFigures | ModelError] = []
    for chip in chips:
        try:
            out.append(chip_figures(chip, work, settings))
        except ModelError as e:
            out.append(_bare(e))
    return out


def _bare(e: ModelError) -> ModelError:
    """The error alone, without its traceback or the error it replaced: kept (with the
    results it stands among, in :data:`_LAST`), their frames would keep the whole
    evaluation that raised it alive (a soak grew 300 MB a thousand edits)."""
    e.__traceback__ = e.__context__ = e.__cause__ = None
    return e


def _phase_cells(kind: OpKind, op: OpSpec, phase: str, chips: list[Chip],
                 settings: Settings) -> list[Analysis | ModelError]:
    """One phase of an op on every chip: an :class:`Analysis` per chip, or the ModelError."""
    dims, shard = op.full_dims(), op.shard_obj()
    try:
        work = op_work(kind, dims, op.dtypes, shard, op.params, phase)
    except ModelError as e:
        return [_bare(e)] * len(chips)
    cells = _figures(chips, work, settings)
    ok = [c for c in cells if isinstance(c, ChipFigures)]
    res = evaluate_figures(work, ok) if ok else None  # every chip in one call
    dtypes, params = dict(op.dtypes), copy.deepcopy(op.params)  # (as evaluated, if op changes)
    crits = _Critical(lambda: critical_values_many(kind, dims, ok, dtypes=dtypes, shard=shard,
                                                   params=params, phase=phase))
    rows = iter(enumerate(res.rows() if ok else []))
    return [c if isinstance(c, ModelError) else Analysis(
        c.chip, c, work, (row := next(rows))[1], partial(crits.of_chip, row[0])) for c in cells]


class _Critical:
    """Every chip's critical values of one op phase, made once when the first is read."""

    def __init__(self, compute: Callable[[], list[dict]]) -> None:
        self.compute: Callable[[], list[dict]] | None = compute
        self.values: list[dict] = []

    def of_chip(self, row: int) -> dict:
        if self.compute is not None:
            compute, self.compute = self.compute, None
            try:
                self.values = compute()
            except ModelError:  # (probes of values the op itself accepted: never seen)
                self.values = []
        return self.values[row] if row < len(self.values) else {}


def evaluate_scenario(scenario: Scenario, catalog: Catalog) -> Evaluation:
    """Evaluate every op of the scenario on every chip; problems go to ``errors``."""
    ev = Evaluation()
    ev.chips, ev.errors = resolve_chips(scenario, catalog)
    settings = scenario.settings()
    used: dict[tuple, tuple] = {}
    kept: dict[int, tuple] = {}
    for i, op in enumerate(scenario.ops):
        kind = OP_KINDS.get(op.kind)
        if kind is None:
            ev.errors.append(f"{op.name}: unknown op {op.kind!r}")
            continue
        cells = tuple(_remember(_LAST["phase"], used, (ph,), op, ev.chips, settings,
                                lambda ph=ph: _phase_cells(kind, op, ph, ev.chips, settings))
                      for ph in kind.phases)
        entries, errors = _op_entries(i, op, kind.phases, cells, ev.chips, kept)
        ev.entries += entries
        ev.errors += errors
    _LAST["phase"] = used
    _LAST["entries"] = kept
    return ev


def _op_entries(i: int, op: OpSpec, phases: tuple[str, ...], cells: tuple, chips: list[Chip],
                kept: dict) -> tuple[list[Entry], list[str]]:
    """The op's entry per chip and phase, and its errors: the last evaluation's when the
    op (the same in every field) had the very same results (recorded in ``kept``)."""
    last = _LAST["entries"].get(i)
    if last is not None and last[0] == op and all(a is b for a, b in zip(last[1], cells)):
        kept[i] = last
        return last[2], last[3]
    entries, errors = [], []
    for c, chip in enumerate(chips):
        for phase, per_chip in zip(phases, cells):
            a = per_chip[c]
            if isinstance(a, ModelError):
                errors.append(f"{op.name} on {chip.name}: {a}")
            else:
                entries.append(Entry(i, op, phase, chip.id, a))
    kept[i] = (copy.deepcopy(op), cells, entries, errors)
    return entries, errors


def sweep_values(spec: SweepSpec) -> np.ndarray:
    """Log-spaced sweep points."""
    return np.geomspace(spec.start, spec.stop, spec.points)


#: What the last evaluation ("phase") and the last sweep ("sweep") computed per op phase,
#: so that a keystroke, which changes one op, recomputes that op alone (the others'
#: results come back the same objects, which lets the sweep plot skip them too).  Keyed
#: by what the results depend on: the op's fields (not its name), the chips (by identity:
#: an entry holds its chips, so their ids are not reused while it lives), the settings
#: and, for a sweep, the dimension and points.  Each call keeps only what it used, so no
#: more than one scenario's results are held.  Measured (CPU time of evaluate_scenario +
#: sweep_scenario after a one-op edit, median of 1,000 runs, 2 loaded cores): example 09
#: (3 ops, 3 chips) 3.3 ms with it, 8.7 ms without; the benchmark's busy scenario (4 ops,
#: 8 chips, 2,000 points) 4.9 ms with it, 22 ms without, which alone exceeds a 16 ms frame.
#: "entries": each op's entries and errors by its index, with the op (a copy) and the
#: results they were made from: 16 ops × 16 chips make 256 entries a keystroke otherwise.
_LAST: dict[str, dict] = {"phase": {}, "sweep": {}, "entries": {}}


def _remember(last: dict, used: dict, what: tuple, op: OpSpec, chips: list[Chip],
              settings: Settings, compute: Callable[[], Any]) -> Any:
    """``compute()``, or what it gave in ``last`` for the same ``what``, op fields, chips and
    settings; either way recorded in ``used`` (what this call will leave for the next)."""
    try:
        shard = None if op.shard is None else (op.shard.axis, op.shard.n, op.shard.link)
        key = (what, op.kind, tuple(sorted(op.dims.items())), tuple(sorted(op.dtypes.items())),
               shard, json.dumps(op.params, sort_keys=True), tuple(map(id, chips)), settings)
        hash(key)
    except (TypeError, ValueError):  # (values that make no key: not remembered)
        return compute()
    hit = last.get(key) or used.get(key)
    if hit is None or not all(a is b for a, b in zip(hit[0], chips)):
        hit = (tuple(chips), compute())
    used[key] = hit
    return hit[1]


_POINTS: dict[tuple, np.ndarray] = {}


def _points(key: tuple[float, float, int]) -> np.ndarray:
    """:func:`sweep_values` of (start, stop, points) as one read-only array per range, shared
    by every curve of every sweep of it (so an op's remembered sweep holds the same x)."""
    x = _POINTS.get(key)
    if x is None:
        x = np.geomspace(*key)
        x.flags.writeable = False
        if len(_POINTS) > 16:
            _POINTS.clear()
        _POINTS[key] = x
    return x


def _sweep_cells(kind: OpKind, op: OpSpec, phase: str, chips: list[Chip], settings: Settings,
                 dim: str, x: np.ndarray) -> tuple[list[tuple], list[tuple]]:
    """One phase of an op swept along ``dim`` on every chip: ``(chip, Result, critical value
    of dim or None)`` per chip that can run it, ``(chip name or None, message)`` per problem."""
    base, shard = op.full_dims(), op.shard_obj()
    try:
        work = op_work(kind, {**base, dim: x}, op.dtypes, shard, op.params, phase)
    except ModelError as e:
        return [], [(None, str(e))]
    figs = _figures(chips, work, settings)
    problems = [(chip.name, str(c)) for chip, c in zip(chips, figs) if isinstance(c, ModelError)]
    ok = [c for c in figs if isinstance(c, ChipFigures)]
    if not ok:
        return [], problems
    res = evaluate_figures(work, ok)  # every chip in one call, a row each
    crits = critical_values_many(kind, base, ok, dtypes=op.dtypes, shard=shard,
                                 params=op.params, phase=phase, names=[dim])
    cells = [(f.chip, row, crit.get(dim)) for f, crit, row in zip(ok, crits, res.rows())]
    return cells, problems


def sweep_scenario(scenario: Scenario, catalog: Catalog, values: np.ndarray | None = None,
                   max_points: int | None = None, only: int | None = None,
                   ) -> tuple[list[SweepCurve], list[str]]:
    """Sweep the chosen dimension for every op × chip: one vectorised call per op phase.

    ``values``: the swept points (by default :func:`sweep_values` of the scenario's sweep).
    ``max_points``: at most this many of them, log-spaced over the same range (a plot
    draws no more; an export of the table asks for every point).  ``only``: the index
    of the one op to sweep (a plot of the selected op's curves); None: every op.
    """
    spec = scenario.sweep
    n = int(spec.points) if max_points is None else min(int(spec.points), max(2, int(max_points)))
    points = (float(spec.start), float(spec.stop), n) if values is None else None
    x = _points(points) if values is None else np.array(values, dtype=np.float64)
    chips, errors = resolve_chips(scenario, catalog)
    settings = scenario.settings()
    dim = scenario.sweep.dim
    curves: list[SweepCurve] = []
    used: dict[tuple, tuple] = {}
    kept: dict[int, tuple] = {}
    for i, op in enumerate(scenario.ops):
        kind = OP_KINDS.get(op.kind)
        if kind is None or dim not in kind.dim_names() or only not in (None, i):
            continue
        for phase in kind.phases:
            def compute(phase=phase):
                return _sweep_cells(kind, op, phase, chips, settings, dim, x)

            # (points given by the caller are swept afresh: only the scenario's are remembered)
            cells, problems = compute() if points is None else \
                _remember(_LAST["sweep"], used, (phase, dim, points), op, chips, settings, compute)
            errors += [f"{op.name}: {msg}" if name is None else f"{op.name} on {name}: {msg}"
                       for name, msg in problems]
            curves += [SweepCurve(i, op, phase, chip, x, res, crit) for chip, res, crit in cells]
    if points is not None:
        _LAST["sweep"] = used
    return curves, errors


#: Bytes of figures a sweep holds per value (one op phase on one chip at one point), measured
#: with tracemalloc at its peak (~19 B), rounded up.
SWEEP_BYTES_PER_VALUE = 24
#: The most values (op phases × chips × points) a sweep computes at once: about 1 GiB.
MAX_SWEEP_VALUES = 40_000_000


def sweep_size(scenario: Scenario, n_chips: int) -> int:
    """How many values the scenario's sweep holds: op phases with the swept dimension ×
    ``n_chips`` × points (0 when no op has the dimension)."""
    dim = scenario.sweep.dim
    phases = sum(len(k.phases) for k in (OP_KINDS.get(op.kind) for op in scenario.ops)
                 if k is not None and dim in k.dim_names())
    return phases * max(0, int(n_chips)) * max(0, int(scenario.sweep.points))


def check_sweep_size(scenario: Scenario, n_chips: int, max_values: int = MAX_SWEEP_VALUES,
                     bytes_per_value: float = SWEEP_BYTES_PER_VALUE) -> int:
    """:func:`sweep_size`, or a :class:`ModelError` saying how large the sweep would be when
    it holds more than ``max_values`` (before anything is computed)."""
    n = sweep_size(scenario, n_chips)
    if n > max_values:
        raise ModelError(f"the sweep would hold {n:,} values ({n * bytes_per_value / 2**30:.1f} GiB); "
                         f"at most {max_values:,}: use fewer points, ops or chips", "sweep")
    return n
