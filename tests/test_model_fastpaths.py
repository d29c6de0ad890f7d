"""More of the sweep edit's shortcuts against the general paths they stand in for, bit
for bit (see also tests/test_model_shortcuts.py): remembered dtypes and curves handed
out again.
"""

import copy

import numpy as np
import pytest
from test_model_shortcuts import _bits, _line_fields, _scenario

from roofgui.model import ops
from roofgui.model import scenario as scn
from roofgui.presentation import sweepgeom as sg
from roofgui.model.catalog import Catalog
from roofgui.model.errors import ModelError
from roofgui.model.roofline import Result


@pytest.fixture(scope="module")
def cat():
    return Catalog.load(False)


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
    for d in (5000.0, 6000.0, 5000.0, 7001.0):
        sc.ops[0].dims["D"] = d
        curves, _ = scn.sweep_scenario(sc, cat)
        got = sg.sweep_geometry(sc, curves, {})
        fresh, _ = scn.sweep_scenario(sc, cat, values=np.asarray(curves[0].x).copy())
        want = sg.sweep_geometry(sc, fresh, {})
        assert [_line_fields(a) for a in got.lines] == [_line_fields(b) for b in want.lines]
        assert got.fit == want.fit


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
