"""Named derates (model.derate) and the fit of imported kernels (model.measured.fit): exact
fractions from a file written to them, the derated chip, the scenario's "derates" checked
on load and kept on save, and a fit that cannot be applied."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from roofgui.model.calibrate import MAX_FLOOR_STARTS, fit, predict
from roofgui.model.catalog import Catalog
from roofgui.model.derate import Derate, apply_derates, parse_derates
from roofgui.model.errors import ScenarioError
from roofgui.model.evaluate import evaluate_scenario
from roofgui.model.measured import parse_measurements
from roofgui.model.measured.fit import fit_chip
from roofgui.model.scenario import OpSpec, Scenario

CAL = Path(__file__).resolve().parent / "fixtures" / "measured" / "calibration_h100.csv"


@pytest.fixture(scope="module")
def catalog():
    return Catalog.load(user_dir=False)


def test_grouped_fit_gives_each_dtype_its_compute_fraction():
    # group a at 0.8 of its compute roof, group b at 0.5, two memory rows at 0.4
    rows = [(1.0, 0.1, 1.25), (2.0, 0.1, 2.5), (1.0, 0.1, 2.0), (0.1, 1.0, 2.5), (0.1, 2.0, 5.0)]
    f = fit(rows, groups=["a", "a", "b", "b", "b"])
    assert dict(f.by_group) == pytest.approx({"a": 0.8, "b": 0.5}, rel=1e-12)
    assert f.memory == pytest.approx(0.4, rel=1e-12)
    assert f.compute == pytest.approx(math.sqrt(0.8 * 0.8 * 0.5) ** (2 / 3), rel=1e-12)
    assert predict(1.0, 0.1, f, "b") == pytest.approx(2.0)
    assert predict(1.0, 0.1, f, "other") == pytest.approx(1.0 / f.compute)
    # one group: the same as no groups
    assert fit(rows, groups=["g"] * 5).compute == fit(rows).compute


def test_many_kernels_try_a_bounded_number_of_floor_starts():
    rows = [(1e-9 * i, 1e-9 * i, 1e-5 + 1e-9 * i) for i in range(1, 400)]
    f = fit(rows, floor=True)  # (a moment, not minutes: at most MAX_FLOOR_STARTS starts)
    assert f.floor is not None and MAX_FLOOR_STARTS == 64


def test_fit_of_the_fixture_is_exact(catalog):
    h100 = catalog.get("h100-sxm")
    f = fit_chip(h100, parse_measurements(CAL).kernels)
    assert (f.count, f.skipped) == (8, 0)
    assert dict(f.fractions.by_group) == pytest.approx({"bf16": 0.7, "fp8": 0.6}, rel=1e-9)
    assert f.memory == pytest.approx(0.8, rel=1e-9)
    assert (f.fractions.compute_rows, f.fractions.memory_rows, f.fractions.floor) == (5, 3, None)
    assert f.error_after == pytest.approx(0.0, abs=1e-9)
    # before: each compute kernel 30% or 40% faster than measured, each copy 20%
    assert f.error_before == pytest.approx((3 * 0.3 + 2 * 0.4 + 3 * 0.2) / 8, rel=1e-9)
    assert f.problem() is None
    d = f.derate("my-cal")
    assert d.summary() == \
        "derate 'my-cal' (compute bf16 0.70 \u00b7 fp8 0.60 (others 0.66), memory 0.80)"


def test_a_fit_faster_than_the_roof_cannot_be_applied(catalog):
    h100 = catalog.get("h100-sxm")
    from roofgui.model.measured import parse_text
    fast = parse_text("name,seconds,flops,bytes\ngemm,1e-4,2e11,1e6\n", "fast.csv")
    f = fit_chip(h100, fast.kernels)
    assert f.compute > 1 and "compute fraction must be at most 1" in f.problem()
    assert f.memory == 1.0  # (no memory-bound kernel: that roof is left alone)


def test_the_derate_lowers_one_chips_roofs_and_says_so(catalog):
    h100, h200 = catalog.get("h100-sxm"), catalog.get("h200")
    d = Derate("my-cal", "h100-sxm", 0.71, 0.83, {"fp8": 0.5})
    a, b = apply_derates([h100, h200], [d])
    assert b is h200
    assert a.name == f"{h100.name} \u00b7 derate 'my-cal' (compute fp8 0.50 (others 0.71), " \
                     "memory 0.83)"
    assert a.peak("bf16").value == pytest.approx(0.71 * h100.peak("bf16").value)
    assert a.peak("fp8").value == pytest.approx(0.5 * h100.peak("fp8").value)
    assert a.hbm_bandwidth.value == pytest.approx(0.83 * h100.hbm_bandwidth.value)
    assert apply_derates([h100], [d])[0] is a  # (the same chip back: results are reused)


def test_an_evaluation_uses_the_derate_only_when_the_scenario_has_it(catalog):
    op = OpSpec("mm", "matmul", {"B": 4096, "D": 8192, "F": 8192}, {"compute": "bf16"})
    sc = Scenario(ops=[op], chips=["h100-sxm"])
    plain = evaluate_scenario(sc, catalog).entries[0].analysis.result
    sc.derates = [Derate("c", "h100-sxm", 0.5, 0.5)]
    derated = evaluate_scenario(sc, catalog).entries[0].analysis.result
    assert float(derated.t_lower) == pytest.approx(2 * float(plain.t_lower))


def test_saved_and_read_back(catalog):
    sc = Scenario(chips=["h100-sxm"],
                  derates=[Derate("my-cal", "h100-sxm", 0.71, 0.83, {"fp8": 0.6}, "fitted")])
    data = json.loads(sc.to_json())
    assert data["derates"] == [{"name": "my-cal", "chip": "h100-sxm", "compute": 0.71,
                                "memory": 0.83, "by_dtype": {"fp8": 0.6}, "note": "fitted"}]
    back = Scenario.from_json(sc.to_json(), "f.json")
    assert back == sc
    assert back.notices == ["f.json: derate 'my-cal' lowers h100-sxm's roofs (compute fp8 0.60 "
                            "(others 0.71), memory 0.83); Remove Derate in the Measured panel "
                            "(View \u25b8 Measured) takes it off"]
    assert Scenario.from_dict({"format": "roofgui-scenario", "version": 1}).derates == []


@pytest.mark.parametrize("bad, key, says", [
    ({}, "derates[0].name", "is empty"),
    ({"name": "x"}, "derates[0].chip", "is missing or empty"),
    ({"name": "x", "chip": "c", "compute": 0.5}, "derates[0].memory", "must be a number"),
    ({"name": "x", "chip": "c", "compute": 0.5, "memory": 0}, "derates[0].memory",
     "must be at least 0.001"),
    ({"name": "x", "chip": "c", "compute": 1.2, "memory": 0.5}, "derates[0].compute",
     "must be at most 1"),
    ({"name": "x", "chip": "c", "compute": True, "memory": 0.5}, "derates[0].compute",
     "must be a number"),
    ({"name": "x", "chip": "c", "compute": 0.5, "memory": 0.5, "by_dtype": {"fp9": 0.5}},
     "derates[0].by_dtype.fp9", "unknown dtype peak"),
    ({"name": "x", "chip": "c", "compute": 0.5, "memory": 0.5, "extra": 1}, "derates[0].extra",
     "unknown key"),
    ({"name": "x" * 81, "chip": "c", "compute": 0.5, "memory": 0.5}, "derates[0].name",
     "at most 80"),
    ("text", "derates[0]", "must be an object"),
])
def test_bad_derates_are_refused_naming_the_key(bad, key, says):
    with pytest.raises(ScenarioError) as e:
        parse_derates([bad], "f.json")
    assert e.value.key == key and says in e.value.problem


def test_one_derate_a_chip():
    one = {"name": "a", "chip": "h100-sxm", "compute": 0.5, "memory": 0.5}
    with pytest.raises(ScenarioError, match=r"derates\[1\]\.chip: h100-sxm already has derate 'a'"):
        parse_derates([one, dict(one, name="b")], "f.json")
    with pytest.raises(ScenarioError, match="derates: must be a list"):
        Scenario.from_dict({"format": "roofgui-scenario", "version": 1, "derates": {}}, "f.json")
