"""CSV: the results table and the sweep data hold exactly the model's columns and values."""

from __future__ import annotations

import csv
import io

import numpy as np
import pytest

from roofgui.export.csv import results_csv, sweep_csv, table_csv
from roofgui.model.catalog import Catalog
from roofgui.presentation.report import FIELDS, record
from roofgui.model.scenario import OpSpec
from roofgui.model.evaluate import evaluate_scenario, sweep_scenario, sweep_values
from test_export_support import sharded_scenario, two_chip_scenario


@pytest.fixture(scope="module")
def catalog():
    return Catalog.load()


def _rows(text: str) -> list[list[str]]:
    return list(csv.reader(io.StringIO(text)))


def _cell_value(cell: str, want):
    if want is None:
        return cell == ""
    if isinstance(want, str):
        return cell == want
    return float(cell) == float(want)  # repr round-trips exactly


@pytest.mark.parametrize("make", [two_chip_scenario, sharded_scenario])
def test_results_columns_and_values_equal_the_model(catalog, make):
    sc = make()
    rows = _rows(results_csv(sc, catalog))
    ev = evaluate_scenario(sc, catalog)
    dims = []
    for e in ev.entries:
        for k in e.analysis.critical:
            if k not in dims:
                dims.append(k)
    assert rows[0] == list(FIELDS) + [f"critical_{d}" for d in dims]
    assert len(rows) - 1 == len(ev.entries) > 0
    for row, e in zip(rows[1:], ev.entries):
        rec = record(e.analysis, e.op.name, e.phase)
        got = dict(zip(rows[0], row))
        for f in FIELDS:
            assert _cell_value(got[f], rec[f]), (f, got[f], rec[f])
        for d in dims:
            assert _cell_value(got[f"critical_{d}"], rec["critical"].get(d)), d


def test_results_hold_the_reference_numbers(catalog):
    """The reference: bf16 matmul B=256, D=F=8192 on TPU v5e is compute-bound, ridge 240."""
    rows = _rows(results_csv(two_chip_scenario(), catalog))
    tpu = dict(zip(rows[0], next(r for r in rows[1:] if r[2] == "tpu-v5e")))
    assert float(tpu["flops"]) == 2 * 256 * 8192 * 8192
    assert float(tpu["hbm_bytes"]) == 256 * 8192 * 2 + 8192 * 8192 * 2 + 256 * 8192 * 2
    assert abs(float(tpu["critical_intensity"]) - 1.97e14 / 8.2e11) < 1e-9
    assert tpu["bound"] == "compute"


def test_sweep_columns_and_values_equal_the_model(catalog):
    sc = sharded_scenario()
    rows = _rows(sweep_csv(sc, catalog))
    curves, _ = sweep_scenario(sc, catalog)
    header = rows[0]
    assert header[0] == sc.sweep.dim
    assert len(header) == 1 + 2 * len(curves)
    data = np.array([[float(v) for v in r] for r in rows[1:]])
    assert data.shape == (sc.sweep.points, len(header))
    assert np.array_equal(data[:, 0], sweep_values(sc.sweep))
    for i, c in enumerate(curves):
        assert header[1 + 2 * i] == f"{c.op.name} @ {c.chip.id}: attainable_flops"
        assert header[2 + 2 * i] == f"{c.op.name} @ {c.chip.id}: t_lower"
        assert np.array_equal(data[:, 1 + 2 * i], np.asarray(c.result.attainable_flops))
        assert np.array_equal(data[:, 2 + 2 * i], np.asarray(c.result.t_lower))


def test_table_csv_picks_the_table_of_the_plot(catalog):
    sc = two_chip_scenario()
    assert table_csv(sc, catalog, "roofline") == results_csv(sc, catalog)
    assert table_csv(sc, catalog, "sweep") == sweep_csv(sc, catalog)
    with pytest.raises(ValueError):
        table_csv(sc, catalog, "pie")


def test_op_names_cannot_become_spreadsheet_formulas(catalog):
    sc = two_chip_scenario()
    sc.ops[0] = OpSpec("=HYPERLINK(\"x\")", "matmul", {"B": 8, "D": 8, "F": 8}, {})
    rows = _rows(results_csv(sc, catalog))
    assert rows[1][0] == "'=HYPERLINK(\"x\")"
    assert all(not r[0].startswith("=") for r in _rows(sweep_csv(sc, catalog))[0])
