"""More of the sweep edit's shortcuts against the general paths they stand in for, bit
for bit (see also tests/test_model_shortcuts.py): the critical marker's y in Python
floats, the batch's y ranges, sweep lines built in one update, remembered dtypes and
curves handed out again.
"""

import copy
import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_model_shortcuts import _Curve, _bits, _line_fields, _result, _scenario

from roofgui.model import ops
from roofgui.model import scenario as scn
from roofgui.presentation import sweepgeom as sg
from roofgui.model.catalog import Catalog
from roofgui.model.errors import ModelError
from roofgui.model.roofline import Result


@pytest.fixture(scope="module")
def cat():
    return Catalog.load(False)


# -- the critical marker's y in Python floats ----------------------------------------

def _old_crit_y(r, x, lx, ok, mode, lc):
    """The marker's y as the array path works it out (what sweepgeom did before the plain
    path, kept as its general path)."""
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        return sg._crit_y_arrays(r, x, lx, ok, mode, lc)


_odd = [0.0, -0.0, -1.0, math.inf, -math.inf, math.nan, 5e-324, 1e-308, 1e308]


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(n=st.integers(2, 60), seed=st.integers(0, 2 ** 32 - 1),
       mode=st.sampled_from(["flops", "time"]),
       odd=st.lists(st.tuples(st.sampled_from(["tm", "fl"]), st.sampled_from(_odd)),
                    max_size=3),
       scalar=st.sampled_from([None, "tm", "fl"]))
def test_the_plain_marker_y_is_the_array_paths(n, seed, mode, odd, scalar):
    rng = np.random.default_rng(seed)
    x = np.geomspace(1.0, 10.0 ** rng.uniform(0.001, 8), n)
    lx = np.log10(x)
    tm = np.exp(rng.uniform(-40, 5, n))
    fl = np.exp(rng.uniform(0, 60, n))
    for which, v in odd:  # zeros, infinities, NaNs, subnormals where they fall
        (tm if which == "tm" else fl)[rng.integers(0, n)] = v
    if scalar == "tm":  # (a field that does not vary along the sweep: 0-d)
        tm = np.array(tm[0])
    elif scalar == "fl":
        fl = np.array(fl[0])
    r = _result(np.ones(n), tm, fl)
    points = [float(lx[0]), float(lx[-1]), float(lx[n // 2]), float(lx[0]) - 0.5,
              float(lx[-1]) + 0.5, math.nextafter(float(lx[-1]), -math.inf),
              math.nextafter(float(lx[0]), math.inf), math.nan, math.inf, -math.inf]
    points += rng.uniform(lx[0], lx[-1], 8).tolist()
    for lc in points:
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            want = _old_crit_y(r, x, lx, None, mode, lc)
            plain = sg._crit_y_plain(r, x, lx, lc, mode)
            got = sg._crit_y_of(r, x, lx, None, mode)(lc)
        assert _bits(got) == _bits(want), (lc, got, want)
        assert plain is None or _bits(plain) == _bits(want)


def test_the_plain_marker_y_answers_for_the_busy_sweeps_markers(cat):
    """Not only the general path's results, but the plain path itself on real curves
    (so that a plain path that always turned away would fail here)."""
    sc = _scenario(2000)
    curves, _ = scn.sweep_scenario(sc, cat)
    answered = 0
    for mode in ("flops", "time"):
        logs = sg._SweepLogs()
        for c, (lx, _, fy) in zip(curves, logs.curves(curves, mode)):
            if c.critical is None:
                continue
            lc = math.log10(c.critical)
            plain = sg._crit_y_plain(c.result, c.x, lx, lc, mode)
            assert plain is not None
            assert _bits(plain) == _bits(_old_crit_y(c.result, c.x, lx, None, mode, lc))
            assert _bits(fy(lc)) == _bits(plain)
            answered += 1
    assert answered >= 16


def test_numpy_interp_between_two_points_is_the_plain_formula_here():
    # the plain path relies on it (and checks it once per process: _interp_is_plain)
    assert sg._interp_is_plain()
    rng = np.random.default_rng(7)
    for _ in range(2000):
        x0, x1 = np.sort(rng.uniform(-5, 9, 2)).tolist()
        y0, y1 = rng.uniform(-300, 300, 2).tolist()
        lc = float(rng.uniform(x0, x1))
        if x0 < lc < x1:
            slope = (y1 - y0) / (x1 - x0)
            want = float(np.interp(lc, [x0, x1], [y0, y1]))
            assert _bits(slope * (lc - x0) + y0) == _bits(want)


def test_a_numpy_that_fuses_the_interpolation_turns_the_plain_path_away(monkeypatch):
    from fractions import Fraction

    def fused(at, xp, fp):  # one rounding of slope * (x - x0) + y0, as an FMA gives
        (x0, x1), (y0, y1) = xp, fp
        slope = (y1 - y0) / (x1 - x0)
        return np.array([float(Fraction(slope) * Fraction(v - x0) + Fraction(y0))
                         for v in np.atleast_1d(at).tolist()])

    monkeypatch.setattr(sg, "_PLAIN_INTERP", None)
    monkeypatch.setattr(sg.np, "interp", fused)
    assert not sg._interp_is_plain()
    monkeypatch.undo()
    assert sg._interp_is_plain()


# -- y ranges of a batch -------------------------------------------------------------
# (a batch's own curves: tests/test_model_shortcuts.py, each curve in one batch)

def test_a_y_range_the_batch_did_not_see_is_measured_on_the_spot():
    logs = sg._SweepLogs()
    seen = np.log10(np.geomspace(1.0, 1e9, 50))
    cs = [_Curve(np.geomspace(1.0, 1e5, 50), _result(10 ** seen, 10 ** seen, 10 ** seen))]
    ly = logs.curves(cs, "flops")[0][1]
    assert logs.y_range(ly) == (float(ly.min()), float(ly.max()))
    other = ly.copy()  # (the same numbers, another array)
    other[3] = 99.0
    assert logs.y_range(other) == (float(other.min()), 99.0)


# -- sweep lines built in one update -------------------------------------------------

def test_sweep_line_builds_what_init_builds():
    assert not hasattr(sg.SweepLine, "__post_init__") and "__slots__" not in vars(sg.SweepLine)
    a = np.arange(3.0)
    vals = (1, "p", "chip", "full", "op", "Chip", 3, "dash", a, a + 1, 2.5, 0.4, 12.0,
            "B* = 3", "legend", "tip", False, a + 2, a + 3)
    got, want = sg._sweep_line(vals), sg.SweepLine(*vals)
    assert type(got) is sg.SweepLine and vars(got).keys() == vars(want).keys()
    assert all(vars(got)[f] is vars(want)[f] for f in sg._LINE_FIELDS)
    assert got.key == want.key == (1, "p", "chip")
    with pytest.raises(AttributeError):
        got.crit_x = None  # still frozen


# -- remembered dtypes ---------------------------------------------------------------

def test_remembered_dtypes_are_the_dtypes_resolved():
    kind = ops.OP_KINDS["matmul"]
    for given_ in ({}, {"x": "bf16", "w": "int8"}, {"w": "INT8", "compute": "fp8"},
                   {"compute": "float32"}):
        ops._RESOLVED.clear()
        want = ops._resolve_dtypes(given_)
        first, second = ops.resolve_dtypes(kind, given_), ops.resolve_dtypes(kind, given_)
        assert first == second == want and first is not second  # (a dict of one's own)
        first["x"] = None  # ... which the next caller does not see
        assert ops.resolve_dtypes(kind, given_) == want
    for bad in ({"nope": "bf16"}, {"x": "float7"}, {"x": 3}):
        with pytest.raises(ModelError):
            ops.resolve_dtypes(kind, bad)
        with pytest.raises(ModelError):  # (errors are not remembered)
            ops.resolve_dtypes(kind, bad)


# -- curves handed out again ---------------------------------------------------------

def _curve_fields(c):
    return [getattr(c, f) for f in scn._CURVE_FIELDS[:4]] + [
        c.x.tobytes(), [getattr(c.result, f).tobytes() for f in Result.__dataclass_fields__],
        _bits(c.critical)]


def test_curves_handed_out_again_are_the_curves_built_anew(cat, monkeypatch):
    sc = _scenario(200)
    edits = [
        lambda s: None,
        lambda s: s.ops[0].dims.update(D=5000.0),
        lambda s: setattr(s.ops[1], "name", "renamed"),
        lambda s: s.ops.reverse(),  # other op indices
        lambda s: s.ops.append(copy.deepcopy(s.ops[0])),  # two ops, one sweep
        lambda s: setattr(s, "chips", s.chips[:2]),
        lambda s: setattr(s.sweep, "points", 150),
    ]
    for edit in edits:
        edit(sc)
        got, got_err = scn.sweep_scenario(sc, cat)
        again, _ = scn.sweep_scenario(sc, cat)
        assert [a is b for a, b in zip(got, again)] == [True] * len(got)  # (reused)
        monkeypatch.setattr(scn, "_LAST_CURVES", {})
        want, want_err = scn.sweep_scenario(sc, cat)
        monkeypatch.undo()
        assert got_err == want_err
        assert [_curve_fields(c) for c in got] == [_curve_fields(c) for c in want]
        assert [c.label for c in got] == [c.label for c in want]


def test_an_edit_through_the_shortcuts_draws_the_geometry_of_a_fresh_start(cat):
    """An edit sequence with every cache warm gives the lines of one with none."""
    sc = _scenario(400)
    memo = sg.SweepMemo()
    for d in (5000.0, 6000.0, 5000.0, 7001.0):
        sc.ops[0].dims["D"] = d
        curves, _ = scn.sweep_scenario(sc, cat)
        got = sg.sweep_geometry(sc, curves, {}, memo=memo)
        want = sg.sweep_geometry(sc, curves, {})
        assert [_line_fields(a) for a in got.lines] == [_line_fields(b) for b in want.lines]
        assert got.fit == want.fit


def test_the_windows_copied_scenario_gets_its_unchanged_ops_curves_and_lines_back(cat):
    """The window copies its scenario at every edit (``document.copy_scenario``): the ops an
    edit leaves alone are equal OpSpecs, not the same ones.  Their curves and lines are
    handed back all the same, and the geometry is that of a fresh start."""
    from copy import deepcopy as copy_scenario

    sc = _scenario(400)
    memo = sg.SweepMemo()
    curves, _ = scn.sweep_scenario(sc, cat)
    first = sg.sweep_geometry(sc, curves, {}, memo=memo)
    for d in (5000.0, 6000.0, 7001.0):
        sc = copy_scenario(sc)
        sc.ops[0].dims["D"] = d
        again, _ = scn.sweep_scenario(sc, cat)
        assert [a is b for a, b in zip(curves, again)] == [c.op_index != 0 for c in again]
        got = sg.sweep_geometry(sc, again, {}, memo=memo)
        assert [a is b for a, b in zip(first.lines, got.lines)] == \
            [ln.op_index != 0 for ln in got.lines]
        want = sg.sweep_geometry(sc, again, {})
        assert [_line_fields(a) for a in got.lines] == [_line_fields(b) for b in want.lines]
        assert got.fit == want.fit
        curves, first = again, got
    # a renamed op (equal but for its name) gets new curves' labels
    sc = copy_scenario(sc)
    sc.ops[1].name = "renamed"
    again, _ = scn.sweep_scenario(sc, cat)
    got = sg.sweep_geometry(sc, again, {}, memo=memo)
    assert {ln.op_label for ln in got.lines if ln.op_index == 1} == {"renamed"}


@pytest.mark.parametrize("chips, points", [(8, 10_000), (3, 30_001), (2, 20_001), (5, 7_000)])
@pytest.mark.parametrize("odd", ["", "flops", "bandwidth"])
def test_a_large_sweep_taken_a_few_rows_at_a_time_is_the_whole_arrays_arithmetic(
        monkeypatch, chips, points, odd):
    """roofline() takes a large (chips, points) sweep a few rows at a time: every field is
    the one it works out on the whole arrays, to the last bit (NaN where NaN), whether the
    inputs are rows, (chips, 1) columns or one row for all, and with zero, negative,
    infinite or NaN FLOPs among them; a zero bandwidth takes the whole-array path."""
    from roofgui.model import roofline as rl

    rng = np.random.default_rng(points + 7 * chips + len(odd))
    b = np.exp(rng.uniform(0.0, 11.0, points))
    flops = 2.0 * b * 8192.0 * 8192.0
    hbm = b * 8192.0 * 2.0 + 8192.0 * 8192.0 * rng.choice([1.0, 2.0]) + b * 8192.0 * 2.0
    hbm_rows = np.outer(rng.uniform(0.5, 2.0, chips), hbm)  # (chips, points)
    peak = rng.uniform(1e14, 5e15, (chips, 1))
    bw = rng.uniform(5e11, 8e12, (chips, 1))
    link = np.zeros((chips, 1))
    if odd == "flops":
        flops[rng.choice(points, 5, replace=False)] = [0.0, -1.0, np.inf, np.nan, 1e-300]
    if odd == "bandwidth":
        bw[0, 0] = 0.0
    for h in (hbm, hbm_rows, hbm[None, :]):
        assert rl._row_step((chips, points), (flops, h, peak, bw)) is not None
        assert rl._quotients_positive(h, bw) == (odd != "bandwidth")  # (rows at a time)
        shared = rl.helper_calls
        got = rl.roofline(flops, h, 0.0, peak, bw, link)
        if odd != "bandwidth" and rl._cpus() >= 2:
            assert rl.helper_calls == shared + 1  # (half the rows on the helper thread)
        monkeypatch.setattr(rl, "_ROW_ELEMENTS", 10 ** 12)  # (all rows at once)
        want = rl.roofline(flops, h, 0.0, peak, bw, link)
        monkeypatch.undo()
        for name in Result.__dataclass_fields__:
            a, w = getattr(got, name), getattr(want, name)
            assert a.shape == w.shape and a.dtype == w.dtype, name
            assert np.array_equal(a, w, equal_nan=a.dtype.kind == "f"), name
            assert not a.flags.writeable, name
    # a small sweep (the window's 2,000 points) and other shapes: all rows at once
    assert rl._row_step((8, 2_000), (flops[:2000], hbm[:2000], peak, bw)) is None
    assert rl._row_step((points,), (flops, hbm, peak[0], bw[0])) is None
    assert rl._row_step((2, chips, points), (flops, hbm, peak, bw)) is None


def test_a_large_sweep_without_a_helper_thread_takes_every_row_itself(monkeypatch):
    """When the helper thread cannot be had (one CPU, or no new threads as the interpreter
    shuts down) or has not started on its half when the caller is done with the other (a
    busy machine), roofline() takes all the rows itself, with the same results."""
    from roofgui.model import roofline as rl

    rng = np.random.default_rng(11)
    flops = rng.uniform(1e9, 1e15, 10_000)
    hbm = rng.uniform(1e6, 1e10, 10_000)
    peak, bw = rng.uniform(1e14, 5e15, (8, 1)), rng.uniform(5e11, 8e12, (8, 1))
    want = rl.roofline(flops, hbm, 0.0, peak, bw, np.zeros((8, 1)))

    class Closed:
        def submit(self, *args):
            raise RuntimeError("cannot schedule new futures after interpreter shutdown")

    class Busy:  # (its thread never gets to the task: the caller takes it back)
        def submit(self, *args):
            from concurrent.futures import Future

            return Future()

    for helper in (lambda: None, Closed, Busy):
        monkeypatch.setattr(rl, "_helper", helper)
        got = rl.roofline(flops, hbm, 0.0, peak, bw, np.zeros((8, 1)))
        for name in Result.__dataclass_fields__:
            assert np.array_equal(getattr(got, name), getattr(want, name)), name
