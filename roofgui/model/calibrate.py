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
        return (f"{self.name}: {self.chip}{dtype} compute {pct(f.compute, f.compute_rows)}, "
                f"memory {pct(f.memory, f.memory_rows)}; from {self.count} measurements, "
                f"{self.method}")


def applied(fractions: Fractions) -> tuple[float, float]:
    """The (compute, memory) fractions a prediction uses: a roof with no fit takes the
    other roof's fraction (one derate for both); with neither fitted, 1 (no derate)."""
    c, m = fractions.compute, fractions.memory
    return (c if c is not None else (m if m is not None else 1.0),
            m if m is not None else (c if c is not None else 1.0))


def predict(t_math: float, t_hbm: float, fractions: Fractions) -> float:
    """The calibrated time of an op with analytic times ``t_math`` and ``t_hbm``."""
    c, m = applied(fractions)
    return max(t_math / c, t_hbm / m)


def fit(rows: Sequence[tuple[float, float, float]]) -> Fractions:
    """Fit fractions to ``(T_math, T_hbm, measured time)`` rows (see the module's text).

    Raises
    ------
    ModelError
        If a time is not a positive finite number.
    """
    logs = [_logs(r) for r in rows]
    if not logs:
        return Fractions(None, None)
    regime = [x >= y for x, y, _ in logs]  # True: compute; start from the analytic bound
    a = b = None
    for _ in range(MAX_ITERATIONS):
        a = _mean([z - x for (x, _, z), c in zip(logs, regime) if c])
        b = _mean([z - y for (_, y, z), c in zip(logs, regime) if not c])
        new = [_is_compute(x, y, a, b) for x, y, _ in logs]
        if new == regime:
            break
        regime = new
    residuals = [max(x + (a or 0.0), y + (b or 0.0)) - z for x, y, z in logs]
    rms = math.sqrt(sum(r * r for r in residuals) / len(residuals))
    return Fractions(None if a is None else math.exp(-a), None if b is None else math.exp(-b),
                     sum(regime), len(regime) - sum(regime), rms)


def leave_one_out(rows: Sequence[tuple[float, float, float]]) -> list[float]:
    """For each row, its time predicted with fractions fitted to the other rows only."""
    out = []
    for i, (t_math, t_hbm, _) in enumerate(rows):
        out.append(predict(t_math, t_hbm, fit([r for j, r in enumerate(rows) if j != i])))
    return out


def _is_compute(x: float, y: float, a: float | None, b: float | None) -> bool:
    """Which derated term is larger (a regime without a fit keeps the analytic split)."""
    if a is None or b is None:
        return a is not None
    return x + a >= y + b


def _logs(row: tuple[float, float, float]) -> tuple[float, float, float]:
    for v in row:
        if not (v > 0 and math.isfinite(v)):
            raise ModelError(f"calibration needs positive finite times, not {v!r}", "time")
    return math.log(row[0]), math.log(row[1]), math.log(row[2])


def _mean(values: list[float]) -> float | None:
    return sum(values) / len(values) if values else None
