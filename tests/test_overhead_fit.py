"""The calibration with a launch overhead (model.overhead_fit): known fractions and
overhead recovered, fractions never above 1, a roof no term is limited by left unfitted."""

from __future__ import annotations

import pytest

from roofgui.model.errors import ModelError
from roofgui.model.overhead_fit import fit_terms, predict_terms


def kernel(x, y, c=0.8, m=0.5, t0=0.0):
    """One kernel's terms and its time under the model."""
    return ((1.0, x, y, 0.0),), t0 + max(x / c, y / m)


def test_no_overhead_is_the_plain_fit_exactly():
    rows = [kernel(1.0, 0.1), kernel(2.0, 0.5), kernel(0.1, 1.0), kernel(0.2, 4.0)]
    f = fit_terms(rows)
    assert (f.compute, f.memory) == (pytest.approx(0.8, rel=1e-12), pytest.approx(0.5, rel=1e-12))
    assert f.overhead is None and (f.compute_rows, f.memory_rows) == (2, 2)


def test_an_overhead_is_recovered():
    t0 = 5e-6
    sizes = [1e-7, 1e-6, 1e-5, 1e-4, 1e-3]
    rows = [kernel(s, s / 10, t0=t0) for s in sizes] + [kernel(s / 10, s, t0=t0) for s in sizes]
    f = fit_terms(rows)
    assert f.compute == pytest.approx(0.8, rel=1e-4) and f.memory == pytest.approx(0.5, rel=1e-4)
    assert f.overhead == pytest.approx(t0, rel=1e-3)
    assert predict_terms(((1.0, 2e-7, 1e-8, 0.0),), f) == pytest.approx(t0 + 2e-7 / 0.8, rel=1e-3)


def test_many_kernels_each_pay_the_overhead_and_the_link_is_not_derated():
    terms = ((80.0, 1e-3, 1e-4, 0.0), (80.0, 1e-5, 2e-3, 0.0), (160.0, 0.0, 0.0, 5e-4))
    f = fit_terms([(terms, 320 * 2e-6 + 1e-3 / 0.8 + 2e-3 / 0.5 + 5e-4)], overhead=False)
    # one row, no overhead: the fit puts the whole time on the roofs it can derate
    assert predict_terms(terms, f) == pytest.approx(320 * 2e-6 + 1e-3 / 0.8 + 2e-3 / 0.5 + 5e-4,
                                                    rel=1e-6)


def test_fractions_are_never_above_one():
    # measured faster than the compute roof allows without an overhead: compute stays at 1
    rows = [kernel(1.0, 0.1, c=1.3), kernel(2.0, 0.1, c=1.3)]
    f = fit_terms(rows, overhead=False)
    assert f.compute == 1.0


def test_only_compute_bound_rows_leave_memory_unfitted():
    f = fit_terms([kernel(1.0, 0.1), kernel(3.0, 0.2)])
    assert f.compute == pytest.approx(0.8, rel=1e-12) and f.memory is None
    assert fit_terms([]).compute is None


def test_bad_rows():
    with pytest.raises(ModelError):
        fit_terms([(((1.0, 1.0, 1.0, 0.0),), 0.0)])
    with pytest.raises(ModelError):
        fit_terms([((), 1.0)])
