"""CSV of the results table and of the sweep data, straight from the model (no Qt).

* :func:`results_csv` — one row per (op, phase, chip): the columns of
  :data:`roofgui.presentation.report.FIELDS`, then ``critical_<dim>`` for every
  dimension of the ops in the scenario (empty where an op has no such
  dimension, or the op is never/always compute-bound along it).
* :func:`sweep_csv` — one row per sweep point: the swept dimension, then for
  every op × chip curve its attainable FLOP/s and its time per op (T_lower).
  When the sweep shows an LLM step's throughput or latency, :func:`table_csv`
  writes that view instead (:func:`roofgui.presentation.llm_geometry.llm_sweep_table`).

Numbers are written with ``repr`` so they read back to exactly the model's
floats.  Text cells that a spreadsheet would run as a formula (``=``, ``+``,
``-``, ``@``, tab, CR at the start) are prefixed with ``'``.
"""

from __future__ import annotations

import csv as _csv
import io
import math
from typing import Any, Iterable, Iterator, Sequence

import numpy as np

from roofgui.presentation.report import FIELDS, record
from roofgui.model.scenario import Scenario
from roofgui.model.evaluate import Evaluation, SweepCurve, evaluate_scenario, sweep_scenario

_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def _cell(v: Any) -> str:
    if v is None:
        return ""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, np.integer)):
        return str(int(v))
    if isinstance(v, (float, np.floating)):
        f = float(v)
        if math.isnan(f):
            return ""
        if math.isinf(f):
            return "inf" if f > 0 else "-inf"
        return repr(f)
    s = str(v)
    if s.startswith(_FORMULA_START):
        s = "'" + s
    return s


def _write(header: Sequence[str], rows: Iterable[Sequence[Any]]) -> str:
    return _write_rows([header]) + _write_rows(rows)


def _write_rows(rows: Iterable[Sequence[Any]]) -> str:
    buf = io.StringIO(newline="")
    w = _csv.writer(buf, lineterminator="\r\n")
    for row in rows:
        w.writerow([_cell(v) for v in row])
    return buf.getvalue()


def critical_dims(evaluation: Evaluation) -> list[str]:
    """Every dimension name with a critical value, in first-seen order."""
    dims: list[str] = []
    for e in evaluation.entries:
        for k in e.analysis.critical:
            if k not in dims:
                dims.append(k)
    return dims


def results_columns(evaluation: Evaluation) -> list[str]:
    return list(FIELDS) + [f"critical_{d}" for d in critical_dims(evaluation)]


def results_rows(evaluation: Evaluation) -> list[list[Any]]:
    """The table's rows as model values (``None`` where empty)."""
    dims = critical_dims(evaluation)
    rows = []
    for e in evaluation.entries:
        rec = record(e.analysis, e.op.name, e.phase)
        row = [rec[f] for f in FIELDS]
        row += [rec["critical"].get(d) for d in dims]
        rows.append(row)
    return rows


def results_csv(scenario: Scenario, catalog, evaluation: Evaluation | None = None) -> str:
    """The results table of every op × chip of the scenario, as CSV text."""
    ev = evaluation if evaluation is not None else evaluate_scenario(scenario, catalog)
    return _write(results_columns(ev), results_rows(ev))


def curve_name(c: SweepCurve) -> str:
    """``matmul @ tpu-v5e`` / ``llm · decode @ h100-sxm``: unique per op × phase × chip."""
    base = f"{c.op.name} · {c.phase}" if c.phase else c.op.name
    return f"{base} @ {c.chip.id}"


def sweep_columns(scenario: Scenario, curves: Sequence[SweepCurve]) -> list[str]:
    cols = [scenario.sweep.dim]
    seen: dict[str, int] = {}
    for c in curves:
        name = curve_name(c)
        n = seen.get(name, 0)
        seen[name] = n + 1
        if n:  # two ops with the same name: keep the columns apart
            name = f"{name} #{n + 1}"
        cols += [f"{name}: attainable_flops", f"{name}: t_lower"]
    return cols


def sweep_table(scenario: Scenario, curves: Sequence[SweepCurve]) -> tuple[list[str], np.ndarray]:
    """Header and a (points × columns) float array of the sweep."""
    if curves:
        x = np.asarray(curves[0].x, dtype=np.float64)
    else:
        from roofgui.model.evaluate import sweep_values
        x = sweep_values(scenario.sweep)
    return sweep_columns(scenario, curves), _sweep_array(x, curves)


def _sweep_array(x: np.ndarray, curves: Sequence[SweepCurve]) -> np.ndarray:
    cols = [x]
    for c in curves:
        r = c.result
        cols.append(np.broadcast_to(np.asarray(r.attainable_flops, dtype=np.float64), x.shape))
        cols.append(np.broadcast_to(np.asarray(r.t_lower, dtype=np.float64), x.shape))
    return np.column_stack(cols)


#: Values (op phases × chips × points) a streamed sweep CSV computes and formats at a time.
CHUNK_VALUES = 500_000
#: The most values a sweep CSV may hold, and the bytes of text each takes (two numbers).
MAX_SWEEP_CSV_VALUES = 500_000_000
SWEEP_CSV_BYTES_PER_VALUE = 44


def sweep_csv_chunks(scenario: Scenario, catalog, chunk_values: int | None = None) -> Iterator[str]:
    """The text of :func:`sweep_csv` in pieces, computed a slice of sweep points at a time
    (about ``chunk_values`` values each), so memory stays bounded however large the sweep."""
    from roofgui.model.errors import ModelError
    from roofgui.model.evaluate import sweep_values

    x = sweep_values(scenario.sweep)
    first, _ = sweep_scenario(scenario, catalog, x[:1])
    header = sweep_columns(scenario, first)
    yield _write_rows([header])
    step = max(1, (chunk_values or CHUNK_VALUES) // max(1, len(first)))
    for i in range(0, len(x), step):
        part = x[i:i + step]
        curves = sweep_scenario(scenario, catalog, part)[0] if first else []
        if sweep_columns(scenario, curves) != header:
            raise ModelError("the sweep's curves differ from point to point", "sweep")
        yield _float_rows(_sweep_array(part, curves))


def _float_rows(data: np.ndarray) -> str:
    """Rows of floats as :func:`_write_rows` writes them (``repr``; NaN empty; ``inf``), fast:
    the csv module writes a float with ``repr`` itself."""
    rows = data.tolist()
    if np.isnan(data).any():
        rows = [["" if v != v else v for v in row] for row in rows]
    buf = io.StringIO(newline="")
    _csv.writer(buf, lineterminator="\r\n").writerows(rows)
    return buf.getvalue()


def sweep_csv(scenario: Scenario, catalog, curves: Sequence[SweepCurve] | None = None) -> str:
    """The sweep (``scenario.sweep``) of every op × chip, as CSV text."""
    if curves is None:
        return "".join(sweep_csv_chunks(scenario, catalog))
    header, data = sweep_table(scenario, curves)
    return _write(header, data.tolist())


def table_csv(scenario: Scenario, catalog, plot: str = "roofline") -> str:
    """The table behind a plot: the results for ``"roofline"``, the sweep for ``"sweep"``."""
    return "".join(table_csv_chunks(scenario, catalog, plot))


def table_csv_chunks(scenario: Scenario, catalog, plot: str = "roofline") -> Iterator[str]:
    """:func:`table_csv` in pieces: a large sweep is streamed (:func:`sweep_csv_chunks`)."""
    if plot == "sweep":
        try:
            from roofgui.model import llm
            from roofgui.presentation import llm_geometry
        except ImportError:
            llm = None
        if llm is not None and scenario.sweep.y in llm.SWEEP_VIEWS:  # the LLM view's numbers
            header, data = llm_geometry.llm_sweep_table(llm.llm_sweep_scenario(scenario, catalog))
            yield _write(header, data.tolist())
            return
        yield from sweep_csv_chunks(scenario, catalog)
        return
    if plot == "roofline":
        yield results_csv(scenario, catalog)
        return
    raise ValueError(f"unknown plot {plot!r} (roofline or sweep)")
