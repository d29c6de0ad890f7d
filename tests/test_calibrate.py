"""Calibration (model.calibrate): fitted achievable fractions, exact on hand-made rows,
the leave-one-out predictions, and the derate applied only through explicit settings."""

from __future__ import annotations

import math

import pytest

from roofgui.model.calibrate import Calibration, Fractions, fit, leave_one_out, predict
from roofgui.model.chips import make_chip
from roofgui.model.errors import ModelError
from roofgui.model.roofline import Settings, analyze


def approx(v):
    return pytest.approx(v, rel=1e-12)


def test_three_compute_rows_at_80_percent():
    # measured = T_math / 0.8 and T_math > T_hbm: compute fraction 0.8, memory unfitted
    rows = [(1.0, 0.1, 1.25), (2.0, 0.5, 2.5), (4.0, 1.0, 5.0)]
    f = fit(rows)
    assert f.compute == approx(0.8)
    assert f.memory is None
    assert (f.compute_rows, f.memory_rows) == (3, 0)
    assert f.rms_log_error == pytest.approx(0.0, abs=1e-12)


def test_compute_and_memory_fitted_separately():
    # two compute rows at 0.8 of peak, two memory rows at 0.5 of bandwidth
    rows = [(1.0, 0.1, 1.25), (3.0, 1.0, 3.75), (0.1, 1.0, 2.0), (0.2, 4.0, 8.0)]
    f = fit(rows)
    assert (f.compute, f.memory) == (approx(0.8), approx(0.5))
    assert (f.compute_rows, f.memory_rows) == (2, 2)


def test_fit_is_least_squares_on_log_ratios():
    # one regime: the fraction is the geometric mean of T_math / measured
    rows = [(1.0, 0.01, 2.0), (1.0, 0.01, 1.25)]
    assert fit(rows).compute == approx(1 / math.sqrt(2.0 * 1.25))
    assert fit(rows).rms_log_error == approx(abs(math.log(2.0 / 1.25)) / 2)


def test_a_row_changes_regime_once_derated():
    # analytically compute-bound (1 > 0.9), but memory reaches only 0.5: 0.9/0.5 = 1.8 is
    # the larger derated time, so the row belongs to the memory regime
    rows = [(1.0, 0.1, 1.25), (2.0, 0.2, 2.5), (0.1, 1.0, 2.0), (1.0, 0.9, 1.8)]
    f = fit(rows)
    assert (f.compute, f.memory) == (approx(0.8), approx(0.5))
    assert (f.compute_rows, f.memory_rows) == (2, 2)


def test_no_rows_and_bad_times():
    assert fit([]) == Fractions(None, None)
    with pytest.raises(ModelError):
        fit([(1.0, 0.0, 1.0)])
    with pytest.raises(ModelError):
        fit([(1.0, 1.0, float("nan"))])


def test_predict_uses_the_other_roof_when_one_is_unfitted():
    assert predict(1.0, 2.0, Fractions(0.5, None)) == approx(4.0)
    assert predict(1.0, 2.0, Fractions(None, None)) == 2.0
    assert predict(1.0, 2.0, Fractions(0.8, 0.25)) == approx(8.0)


def test_leave_one_out_fits_without_the_row():
    rows = [(1.0, 0.1, 1.25), (1.0, 0.1, 2.5), (1.0, 0.1, 5.0)]
    # row 0 from rows 1, 2: fraction sqrt(0.4 * 0.2); row 1 from rows 0, 2 ...
    expected = [1.0 / math.sqrt(0.4 * 0.2), 1.0 / math.sqrt(0.8 * 0.2),
                1.0 / math.sqrt(0.8 * 0.4)]
    assert leave_one_out(rows) == [approx(v) for v in expected]
    # a row never predicts itself: a perfect outlier is predicted from the others
    assert leave_one_out([(1.0, 0.1, 1.25), (1.0, 0.1, 1.25), (1.0, 0.1, 100.0)])[2] \
        == approx(1.25)


def test_calibration_is_a_named_derate_applied_only_through_settings():
    chip = make_chip("t", "T", peak=100e12, hbm_bandwidth=1e12)
    cal = Calibration("fitted-t", "t", "bf16", Fractions(0.8, 0.5), 4)
    dims = {"B": 4096, "D": 4096, "F": 4096}
    plain = analyze("matmul", dims, chip)
    derated = analyze("matmul", dims, chip, settings=cal.settings())
    assert float(derated.result.t_math) == approx(float(plain.result.t_math) / 0.8)
    assert float(derated.result.t_hbm) == approx(float(plain.result.t_hbm) / 0.5)
    assert float(derated.result.t_lower) == approx(predict(
        float(plain.result.t_math), float(plain.result.t_hbm), cal.fractions))
    # what-ifs already set are kept and multiplied
    assert cal.settings(Settings(peak=2.0, hbm=1.0, link=3.0)) == Settings(1.6, 0.5, 3.0)
    assert cal.describe().startswith("fitted-t: t bf16 compute 80.0% (0 rows), memory 50.0%")


def test_floor_regime_for_launch_bound_kernels():
    # two compute rows at 0.8, one memory row at 0.5, and two tiny kernels that take 30 us
    # whatever their size: with floor=True they settle in a floor of exactly 30 us
    rows = [(1e-3, 1e-4, 1.25e-3), (2e-3, 1e-4, 2.5e-3), (1e-5, 1e-3, 2e-3),
            (1e-7, 2e-7, 3e-5), (2e-7, 4e-7, 3e-5)]
    f = fit(rows, floor=True)
    assert (f.compute, f.memory, f.floor) == (approx(0.8), approx(0.5), approx(3e-5))
    assert (f.compute_rows, f.memory_rows, f.floor_rows) == (2, 1, 2)
    assert predict(1e-8, 1e-8, f) == approx(3e-5)
    assert predict(1e-3, 1e-4, f) == approx(1.25e-3)
    # without the floor the tiny kernels pull the memory fraction down
    assert fit(rows).floor is None and fit(rows).memory < 0.1
    # a floor no row settles in is dropped (it starts at the fastest measurement)
    assert fit(rows[:2], floor=True).floor is None
    # leave-one-out with the floor: a tiny kernel is predicted from the other's 30 us
    assert leave_one_out(rows, floor=True)[3] == approx(3e-5)
