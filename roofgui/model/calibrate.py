"""Calibration: a chip's achievable fractions of peak FLOP/s and of HBM bandwidth, fitted
from measurements, applied only when a :class:`Calibration` is passed explicitly.

The model of a measurement: ``t = max(T_math / f_compute, T_hbm / f_memory)``, the
analytic times stretched by the fraction of each roof the hardware reaches.  The fit is
least squares on log times: minimise ``sum((log t_pred - log t_measured)^2)`` over
``a = -log f_compute`` and ``b = -log f_memory``.  The max splits the rows into a compute
regime and a memory regime; for a fixed split the optimum is closed-form (``a`` the mean
of ``log(t / T_math)`` over the compute rows, ``b`` likewise over the memory rows), so
the fit alternates: assign each row to the larger derated term, refit, until the split
stops changing (Lloyd's iteration; it starts from the analytic bound of each row).

Kernels have a third regime: a small kernel runs no faster than its launch overhead,
whatever its size.  ``fit(rows, floor=True)`` adds a floor time ``t_floor`` (the mean log
time of its rows), so the model becomes
``max(T_math / f_compute, T_hbm / f_memory, t_floor)``.  The alternation is started
once without a floor and once from each measured time (the rows at or below it in the
floor); the start with the smallest squared error wins, a floor only when it fits better.  The floor is part of a
prediction; it is not a derate of a roof, so :meth:`Calibration.settings` leaves it out.

A regime with no row leaves its fraction unfitted (``None``); a prediction then derates
that roof by the other roof's fraction (:func:`applied`).
Fractions are not clamped: one above 1 says the measurements beat that roof, which
:mod:`roofgui.model.validate` reports as an inconsistency.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Sequence

from roofgui.model.errors import ModelError
from roofgui.model.roofline import Settings
from roofgui.model.units import format_time

#: How the fractions are fitted (shown beside them).
METHOD = "least squares on log(measured / analytic) times, regimes by alternating fit"
#: Enough for any split to settle; each step can only lower the objective.
MAX_ITERATIONS = 100


@dataclass(frozen=True)
class Fractions:
    """Fitted fractions of the compute and memory roofs (None: no row to fit it)."""

    compute: float | None
    memory: float | None
    #: rows in each regime after the fit
    compute_rows: int = 0
    memory_rows: int = 0
    #: root mean square of the log residuals (0 for a perfect fit)
    rms_log_error: float = 0.0
    #: seconds no row of the floor regime ran faster than (fitted only when asked)
    floor: float | None = None
    floor_rows: int = 0
    #: compute fractions of each group (dtype) fitted apart, when :func:`fit` was given groups
    by_group: tuple[tuple[str, float], ...] = ()
    #: seconds each kernel launch adds (:mod:`.overhead_fit`; None: not fitted)
    overhead: float | None = None

    def compute_for(self, group: str | None) -> float | None:
        """The compute fraction of a group (the pooled one when it has none of its own)."""
        return dict(self.by_group).get(group, self.compute) if group is not None \
            else self.compute


@dataclass(frozen=True)
class Calibration:
    """A named derate: fitted fractions for one chip (and dtype), applied only when given."""

    name: str
    chip: str
    dtype: str | None
    fractions: Fractions
    count: int
    #: what the measurements were ("kernel", "serving"), when it matters
    workload: str | None = None
    method: str = METHOD

    def settings(self, base: Settings = Settings()) -> Settings:
        """``base`` with the peak and HBM bandwidth multiplied by the fitted fractions."""
        c, m = applied(self.fractions)
        return replace(base, peak=base.peak * c, hbm=base.hbm * m)

    def describe(self) -> str:
        f = self.fractions

        def pct(v: float | None, n: int) -> str:
            return "not fitted (no row)" if v is None else f"{v:.1%} ({n} rows)"

        dtype = "".join(f" {v}" for v in (self.dtype, self.workload) if v)
        floor = "" if f.floor is None else \
            f", floor {format_time(f.floor)} ({f.floor_rows} rows)"
        if f.overhead is not None:
            floor += f", launch overhead {format_time(f.overhead)} a kernel"
        return (f"{self.name}: {self.chip}{dtype} compute {pct(f.compute, f.compute_rows)}, "
                f"memory {pct(f.memory, f.memory_rows)}{floor}; from {self.count} "
                f"measurements, {self.method}")


def applied(fractions: Fractions) -> tuple[float, float]:
    """The (compute, memory) fractions a prediction uses: a roof with no fit takes the
    other roof's fraction (one derate for both); with neither fitted, 1 (no derate)."""
    c, m = fractions.compute, fractions.memory
    return (c if c is not None else (m if m is not None else 1.0),
            m if m is not None else (c if c is not None else 1.0))


def predict(t_math: float, t_hbm: float, fractions: Fractions, group: str | None = None
            ) -> float:
    """The calibrated time of an op with analytic times ``t_math`` and ``t_hbm``: the larger
    derated time, and never below the fitted floor (when there is one); ``group``: the
    op's dtype, when the fractions were fitted by group."""
    c, m = applied(replace(fractions, compute=fractions.compute_for(group)))
    return max(t_math / c, t_hbm / m, fractions.floor or 0.0)


def fit(rows: Sequence[tuple[float, float, float]], floor: bool = False,
        groups: Sequence[str] | None = None) -> Fractions:
    """Fit fractions to ``(T_math, T_hbm, measured time)`` rows (see the module's text);
    with ``floor``, also a floor time (a third regime: rows whose time does not depend on
    their size, such as a kernel's launch overhead).  With ``groups`` (one label a row,
    its dtype), each group gets its own compute fraction (:attr:`Fractions.by_group`,
    for the groups with a compute row) and every group shares the memory fraction;
    :attr:`Fractions.compute` is then fitted over every compute row.

    Raises
    ------
    ModelError
        If a time is not a positive finite number, or ``groups`` is not one a row.
    """
    logs = [_logs(r) for r in rows]
    if not logs:
        return Fractions(None, None)
    labels = [""] * len(logs) if groups is None else [str(g) for g in groups]
    if len(labels) != len(logs):
        raise ModelError(f"{len(labels)} groups for {len(logs)} rows", "groups")
    analytic = [COMPUTE if x >= y else MEMORY for x, y, _ in logs]
    best = _lloyd(logs, labels, analytic)
    if floor:  # start a floor at each measured time in turn: its rows the ones at or below
        for t in _floor_starts(logs):
            start = [FLOOR if z <= t + TIE else r for (_, _, z), r in zip(logs, analytic)]
            if FLOOR in start and len(set(start)) > 1:
                found = _lloyd(logs, labels, start)
                if found[-1] < best[-1] - TIE:  # a floor must fit better than none
                    best = found
    regime, (a, b, c), sse = best
    by_group = () if groups is None else tuple(
        sorted((g, math.exp(-v)) for g, v in a.items() if g != POOLED and v is not None))
    return Fractions(_fraction(a[POOLED]), _fraction(b), regime.count(COMPUTE),
                     regime.count(MEMORY), math.sqrt(sse / len(logs)),
                     None if c is None else math.exp(c), regime.count(FLOOR), by_group)


#: The most floor times :func:`fit` starts from: every measured time up to this many
#: distinct ones, else this many spread evenly over them in order (a profile of
#: thousands of kernels is fitted in a moment; the suite's rows are all tried).
MAX_FLOOR_STARTS = 64


def _floor_starts(logs: list[tuple[float, float, float]]) -> list[float]:
    times = sorted({z for _, _, z in logs})
    if len(times) <= MAX_FLOOR_STARTS:
        return times
    step = (len(times) - 1) / (MAX_FLOOR_STARTS - 1)
    return [times[round(i * step)] for i in range(MAX_FLOOR_STARTS)]


def _lloyd(logs: list[tuple[float, float, float]], groups: list[str], regime: list[int]):
    """Alternate refitting each regime's level and reassigning each row to the regime of
    its largest fitted time, from ``regime`` until it settles; returns the regimes, the
    levels (a, b, c) and the sum of squared log residuals."""
    levels = _refit(logs, groups, regime)
    for _ in range(MAX_ITERATIONS):
        a, b, c = levels
        new = [_regime(_plus(x, _level(a, g)), _plus(y, b), c)
               for (x, y, _), g in zip(logs, groups)]
        if new == regime:
            break
        regime = new
        levels = _refit(logs, groups, regime)
    a, b, c = levels
    sse = sum((_log_time(x, y, r, _level(a, g), b, c) - z) ** 2
              for (x, y, z), g, r in zip(logs, groups, regime))
    return regime, levels, sse


def leave_one_out(rows: Sequence[tuple[float, float, float]], floor: bool = False
                  ) -> list[float]:
    """For each row, its time predicted with fractions fitted to the other rows only."""
    out = []
    for i, (t_math, t_hbm, _) in enumerate(rows):
        others = [r for j, r in enumerate(rows) if j != i]
        out.append(predict(t_math, t_hbm, fit(others, floor)))
    return out


#: Log-time differences smaller than this are ties (rounding of the same time).
TIE = 1e-9
#: The regimes of a row: which term of the calibrated time is the largest.
COMPUTE, MEMORY, FLOOR = 0, 1, 2


def _refit(logs: list[tuple[float, float, float]], groups: list[str], regime: list[int]):
    """The least-squares levels of each regime (None for a regime without rows): ``a``
    the mean log slowdown of each group's compute rows (and of all of them, under
    :data:`POOLED`), ``b`` that of the memory rows, ``c`` the mean log time of the floor
    rows."""
    a = {g: _mean([z - x for (x, _, z), h, r in zip(logs, groups, regime)
                   if r == COMPUTE and h == g]) for g in set(groups)}
    a[POOLED] = _mean([z - x for (x, _, z), r in zip(logs, regime) if r == COMPUTE])
    return (a, _mean([z - y for (_, y, z), r in zip(logs, regime) if r == MEMORY]),
            _mean([z for (_, _, z), r in zip(logs, regime) if r == FLOOR]))


#: The key of :func:`_refit`'s compute levels for every compute row together.
POOLED = None


def _level(a: dict, group: str) -> float | None:
    """A group's compute level, else (no compute row in it) the pooled one."""
    v = a.get(group)
    return v if v is not None else a.get(POOLED)


def _plus(x: float, level: float | None) -> float | None:
    return None if level is None else x + level


def _regime(compute: float | None, memory: float | None, floor: float | None) -> int:
    """The regime whose log time is the largest: compute before memory on a tie, and the
    floor only when it is larger by more than rounding (it starts at a measured time)."""
    if compute is None and memory is None:
        return FLOOR
    roof = (COMPUTE if memory is None or (compute is not None and compute >= memory)
            else MEMORY)
    level = compute if roof == COMPUTE else memory
    return FLOOR if floor is not None and floor > level + TIE else roof


def _log_time(x: float, y: float, regime: int, a, b, c) -> float:
    """The fitted log time of a row in ``regime``."""
    return x + a if regime == COMPUTE else (y + b if regime == MEMORY else c)


def _fraction(level: float | None) -> float | None:
    return None if level is None else math.exp(-level)


def _logs(row: tuple[float, float, float]) -> tuple[float, float, float]:
    for v in row:
        if not (v > 0 and math.isfinite(v)):
            raise ModelError(f"calibration needs positive finite times, not {v!r}", "time")
    return math.log(row[0]), math.log(row[1]), math.log(row[2])


def _mean(values: list[float]) -> float | None:
    return sum(values) / len(values) if values else None
