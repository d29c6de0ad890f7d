"""Validation: each published measurement against its analytic bound, and a leave-one-out
calibrated prediction.

For a time (a kernel, a first-token latency) the bound is the analytic ``T_lower``; for a
serving throughput it is the analytic upper bound on throughput (the LLM step's
``throughput_decode_max``: output tokens over one prefill step and ``d`` decode steps at
their lower bounds).  ``ratio`` is how many times slower than its bound the measurement
ran: ``measured / bound`` for a time, ``bound / measured`` for a throughput.  A ratio
below 1 -- a measurement faster than a correct bound -- means a wrong chip figure or byte
count: the row is *inconsistent*.

Calibration is per chip, compute dtype and workload (a kernel, a serving throughput, a
first-token latency).  A row's calibrated prediction is the model of
:mod:`.overhead_fit` with fractions and a launch overhead fitted to the *other* rows of
its group: every kernel of the measurement (one GEMM; each op of the prefill step and of
``d`` decode steps of a serving cycle, each op ``count`` times a step) runs at the
derated roof that limits it, its link transfers at the link's bandwidth, and each launch
adds the fitted overhead.  MAPE is taken over those predictions.  (The model's form --
ops one after another, an overhead added per launch -- was chosen by comparing the
leave-one-out errors of four forms on the suite; the leave-one-out guards the fitted
numbers, not that choice: ``docs/validation.md``.)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from roofgui.model.calibrate import Calibration, Fractions
from roofgui.model.catalog import Catalog
from roofgui.model.chips import Chip
from roofgui.model.llm import llm_summary
from roofgui.model.overhead_fit import Term, fit_terms, predict_terms
from roofgui.model.roofline import Settings, analyze
from roofgui.model.validation_suite import METRICS, SuiteRow

#: How the calibrations are fitted (shown beside them).
METHOD = ("least squares on log times of the sum over kernels of launch overhead + "
          "max(T_math/f_compute, T_hbm/f_memory, T_net)")
#: Relative slack below 1 a ratio may have before the row counts as inconsistent
#: (the suite's figures are rounded to 3-4 digits).
TOLERANCE = 1e-9


@dataclass(frozen=True)
class Analytic:
    """One row evaluated: the value in the row's unit, and the time terms the fit uses."""

    #: the bound (at fractions 1) or the prediction (derated), in the row's unit
    value: float
    #: seconds: the analytic compute and memory times (summed over a serving cycle)
    t_math: float
    t_hbm: float
    #: seconds per measured unit of time: converts the row's measurement to a time
    measured_seconds: float
    #: the kernels of the measurement (:data:`~roofgui.model.overhead_fit.Term` each)
    terms: tuple[Term, ...] = ()


@dataclass(frozen=True)
class RowResult:
    row: SuiteRow
    bound: float
    ratio: float
    calibrated: float | None
    consistent: bool
    t_math: float
    t_hbm: float

    def record(self) -> dict:
        """The row as ``roofgui validate --json`` prints it."""
        r = self.row
        return {"id": r.id, "source": r.citation, "chip": r.chip, "what": r.what,
                "measured": r.measured, "bound": self.bound, "ratio": self.ratio,
                "calibrated": self.calibrated, "consistent": self.consistent,
                "quantity": r.quantity, "unit": r.unit, "dtype": r.dtype}


@dataclass(frozen=True)
class Report:
    rows: list[RowResult]
    #: fitted to every row of each (chip, dtype) group: shown, never applied by default
    calibrations: list[Calibration]

    @property
    def consistent(self) -> bool:
        return all(r.consistent for r in self.rows)

    @property
    def inconsistent(self) -> list[RowResult]:
        return [r for r in self.rows if not r.consistent]

    @property
    def mape_calibrated(self) -> float | None:
        return mape(self.rows)

    def group_mape(self, c: Calibration) -> float | None:
        """The leave-one-out MAPE of the rows of one calibration's group."""
        return mape([r for r in self.rows
                     if group_key(r.row) == (c.chip, c.dtype or "", c.workload or "")])

    def summary(self) -> dict:
        return {"count": len(self.rows), "mape_calibrated": self.mape_calibrated,
                "consistent": self.consistent,
                "inconsistent": [r.row.id for r in self.inconsistent],
                "chips": sorted({r.row.chip for r in self.rows}),
                "calibrations": [dict(calibration_record(c), mape_calibrated=self.group_mape(c))
                                 for c in self.calibrations],
                "method": METHOD}

    def to_json(self) -> dict:
        return {"rows": [r.record() for r in self.rows], "summary": self.summary()}


def mape(rows: Sequence[RowResult]) -> float | None:
    """Mean absolute percentage error of the calibrated predictions (None without any)."""
    errs = [abs(r.calibrated - r.row.measured) / r.row.measured
            for r in rows if r.calibrated is not None]
    return sum(errs) / len(errs) if errs else None


def calibration_record(c: Calibration) -> dict:
    f = c.fractions
    return {"name": c.name, "chip": c.chip, "dtype": c.dtype, "workload": c.workload,
            "compute": f.compute,
            "memory": f.memory, "compute_rows": f.compute_rows, "memory_rows": f.memory_rows,
            "floor_seconds": f.floor, "floor_rows": f.floor_rows,
            "overhead_seconds": f.overhead, "count": c.count,
            "rms_log_error": f.rms_log_error}


def evaluate_row(row: SuiteRow, chip: Chip, settings: Settings = Settings()) -> Analytic:
    """The row's analytic value on ``chip`` under ``settings`` (pass a calibration's
    settings to derate; the default is the plain bound)."""
    if row.metric == "kernel":
        a = analyze(row.op.kind, row.op.full_dims(), chip, dtypes=row.op.dtypes,
                    settings=settings)
        res = a.result
        term = (1.0, float(res.t_math), float(res.t_hbm), float(res.t_net))
        return Analytic(float(res.t_lower) * 1e3, term[1], term[2], 1e-3, (term,))
    s = llm_summary(row.op, chip, settings)
    pre, dec = s["phases"]["prefill"], s["phases"]["decode"]
    _, _, per_chip = METRICS[row.metric]
    if row.quantity == "time":  # first-token latency: the prefill step of one request
        return Analytic(s["serving"]["ttft_lower"] * 1e3, pre["t_compute"], pre["t_mem"], 1e-3,
                        step_terms(s, "prefill", 1.0))
    d = float(row.op.dims["d"])
    n = s["inputs"]["chips"] if per_chip else 1
    tokens = float(row.op.dims["B"]) * d / n  # output tokens of a cycle, in the row's unit
    return Analytic(s["serving"]["throughput_decode_max"] / n,
                    pre["t_compute"] + d * dec["t_compute"], pre["t_mem"] + d * dec["t_mem"],
                    tokens, step_terms(s, "prefill", 1.0) + step_terms(s, "decode", d))


def step_terms(summary: dict, phase: str, steps: float) -> tuple[Term, ...]:
    """The ops of ``steps`` steps of an LLM phase as terms: launches, and the analytic
    compute, HBM and link times of all of them (per chip)."""
    c = summary["chip"]
    peak, hbm, link = c["peak_flops"], c["hbm_bandwidth"], c["link_bandwidth"]
    out = []
    for p in summary["phases"][phase]["parts"]:
        k = p["count"] * steps
        net = p["net_bytes"] * k / link if p["net_bytes"] and link else 0.0
        out.append((k, p["flops"] * k / peak, p["hbm_bytes"] * k / hbm, net))
    return tuple(out)


def measured_time(row: SuiteRow, a: Analytic) -> float:
    """The measurement as seconds (a throughput as the time of one serving cycle)."""
    if row.quantity == "time":
        return row.measured * a.measured_seconds
    return a.measured_seconds / row.measured


def in_unit(row: SuiteRow, a: Analytic, seconds: float) -> float:
    """A time in seconds (of the op, or of one serving cycle) in the row's unit."""
    if row.quantity == "time":
        return seconds / a.measured_seconds
    return a.measured_seconds / seconds


def group_key(row: SuiteRow) -> tuple[str, str, str]:
    """Rows calibrated together: one chip, one compute dtype, and one kind of workload
    (a lone kernel reaches more of its roofs than a serving system does, and a batch-1
    prefill reaches different ones than a full serving cycle)."""
    return row.chip, row.dtype, row.workload


def calibration_name(chip: str, dtype: str, workload: str) -> str:
    return f"fitted-{chip}-{dtype}-{workload}"


def validate(rows: Sequence[SuiteRow], catalog: Catalog | None = None) -> Report:
    """Every row against its bound, with leave-one-out calibrated predictions.

    Raises
    ------
    ModelError
        If a row names an unknown chip or model, or its op cannot run on its chip.
    """
    catalog = catalog if catalog is not None else Catalog.load()
    chips = {r.chip: catalog.get(r.chip) for r in rows}
    bounds = [evaluate_row(r, chips[r.chip]) for r in rows]
    fit_rows = [(a.terms, measured_time(r, a)) for r, a in zip(rows, bounds)]
    groups: dict[tuple[str, str, str], list[int]] = {}
    for i, r in enumerate(rows):
        groups.setdefault(group_key(r), []).append(i)
    full = {k: fit_terms([fit_rows[j] for j in idx]) for k, idx in groups.items()}
    results = []
    for i, (r, a) in enumerate(zip(rows, bounds)):
        others = [fit_rows[j] for j in groups[group_key(r)] if j != i]
        calibrated = None
        if others:  # (fitted without this row, from starts that do not depend on it)
            calibrated = in_unit(r, a, predict_terms(a.terms, fit_terms(others)))
        ratio = r.measured / a.value if r.quantity == "time" else a.value / r.measured
        results.append(RowResult(r, a.value, ratio, calibrated, ratio >= 1.0 - TOLERANCE,
                                 a.t_math, a.t_hbm))
    cals = [Calibration(calibration_name(*k), k[0], k[1], full[k], len(idx), workload=k[2],
                        method=METHOD) for k, idx in groups.items()]
    return Report(results, cals)


def fitted_calibrations(rows: Sequence[SuiteRow], catalog: Catalog | None = None
                        ) -> list[Calibration]:
    """The calibration of each (chip, dtype) fitted to all of its rows."""
    return validate(rows, catalog).calibrations


__all__ = ["Analytic", "Calibration", "Fractions", "Report", "RowResult", "evaluate_row",
           "fitted_calibrations", "measured_time", "validate"]
