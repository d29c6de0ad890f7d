"""An edit of one op re-sweeps, re-converts and re-simplifies that op alone.

The model remembers each op's sweep (``sweep_scenario``), the sweep geometry each
curve's log10 points and drawing (``SweepMemo``): what is reused must be exactly what
a fresh computation gives, and nothing stale may be reused.
"""

import copy

import numpy as np
import pytest

from roofgui.presentation import plotdata as pd
from roofgui.presentation import sweepgeom as sg
from roofgui.model.catalog import Catalog
from roofgui.model.scenario import OpSpec, Scenario, ShardSpec, SweepSpec
from roofgui.model.evaluate import sweep_scenario


@pytest.fixture(scope="module")
def cat():
    return Catalog.load(False)


def busy(points=500):
    return Scenario(
        chips=["tpu-v5e", "h100-sxm", "mi300x"],
        ops=[OpSpec("bf16", "matmul", {"B": 256, "D": 8192, "F": 8192}),
             OpSpec("int8 w", "matmul", {"B": 256, "D": 4096, "F": 4096}, {"w": "int8"}),
             OpSpec("sharded", "matmul", {"B": 256, "D": 8192, "F": 8192},
                    shard=ShardSpec("D", 2, "scale-up"))],
        sweep=SweepSpec("B", 1, 65536, points))


def _fields(res):
    return {f: np.asarray(getattr(res, f)) for f in res.__dataclass_fields__}


def test_an_unchanged_op_keeps_its_results_and_an_edited_one_is_swept_anew(cat):
    sc = busy()
    first, _ = sweep_scenario(sc, cat)
    sc.ops[1].dims["D"] = 5000.0  # the edit: op 1 only
    second, errors = sweep_scenario(sc, cat)
    assert not errors and len(first) == len(second) == 9
    for a, b in zip(first, second):
        assert (a.op_index, a.chip.id) == (b.op_index, b.chip.id)
        if a.op_index == 1:
            assert a.result is not b.result
        else:
            assert a.result is b.result and a.x is b.x
    # every reused or new result is what an uncached sweep gives, bit for bit
    fresh, _ = sweep_scenario(sc, cat, values=np.geomspace(1, 65536, 500))
    for b, f in zip(second, fresh):
        assert b.critical == f.critical
        for name, v in _fields(b.result).items():
            np.testing.assert_array_equal(v, _fields(f.result)[name], err_msg=name)
    # what the cache hands out cannot be changed in place
    with pytest.raises(ValueError):
        second[0].result.t_lower[0] = 0.0
    with pytest.raises(ValueError):
        second[0].x[0] = 0.0


def test_the_cache_tells_apart_what_changes_a_sweep(cat):
    sc = busy()
    base, _ = sweep_scenario(sc, cat)
    changes = [
        lambda s: setattr(s.sweep, "points", 501),
        lambda s: setattr(s.sweep, "stop", 32768.0),
        lambda s: setattr(s.what_if, "hbm", 2.0),
        lambda s: setattr(s, "derate", True),
        lambda s: s.ops[0].dtypes.update({"w": "int8"}),
        lambda s: setattr(s.ops[2].shard, "n", 4),
        lambda s: s.chips.reverse(),
    ]
    for change in changes:
        s = copy.deepcopy(sc)
        change(s)
        curves, _ = sweep_scenario(s, cat)
        fresh, _ = sweep_scenario(s, cat, values=np.asarray(
            np.geomspace(s.sweep.start, s.sweep.stop, s.sweep.points)))
        assert [(c.op_index, c.chip.id) for c in curves] == \
            [(c.op_index, c.chip.id) for c in fresh]
        for c, f in zip(curves, fresh):
            np.testing.assert_array_equal(c.result.t_lower, f.result.t_lower)
            np.testing.assert_array_equal(c.x, f.x)


def test_errors_name_the_op_they_belong_to_even_when_its_sweep_is_reused(cat):
    sc = busy()
    sc.chips.append("no-such-chip")
    sc.ops[2].shard.link = "nvlink"  # the TPU and the MI300X have none
    _, e1 = sweep_scenario(sc, cat)
    sc.ops[2].name = "renamed"  # (the name is not part of the cached sweep)
    _, e2 = sweep_scenario(sc, cat)
    assert any("no-such-chip" in e for e in e1)
    assert any(e.startswith("sharded on Google TPU v5e: ") for e in e1)
    assert [e.replace("renamed", "sharded") for e in e2] == e1
    assert sum(e.startswith("renamed on ") for e in e2) == 2


def test_a_polyline_simplifies_the_same_whatever_it_is_simplified_with():
    rng = np.random.default_rng(3)
    xs, ys = [], []
    for k in range(9):
        n = int(rng.integers(2, 300)) if k % 3 == 0 else int(rng.integers(1200, 5000))
        x = np.sort(rng.uniform(0, 5, n))
        y = np.log10(10 ** x / (rng.uniform(1e-3, 1) * 10 ** x * 1e-3 + rng.uniform(1e-6, 1e-2)))
        xs.append(x)
        ys.append(y + (rng.normal(0, 1e-4, n) if k % 2 else 0.0))
    together = pd.simplify_polylines(xs, ys)
    for i in range(len(xs)):
        (alone,) = pd.simplify_polylines([xs[i]], [ys[i]])
        np.testing.assert_array_equal(alone, together[i])
    for lo, hi in [(0, 3), (2, 7), (4, 9)]:
        for got, want in zip(pd.simplify_polylines(xs[lo:hi], ys[lo:hi]), together[lo:hi]):
            np.testing.assert_array_equal(got, want)


def test_long_curves_with_straight_runs_simplify_the_same_whatever_they_are_simplified_with():
    # curves that start from knots (long, with straight runs before and after their
    # bends) among short ones, a knee, an empty one and a single point: the knots, the
    # runs' knots and the splits of each are its own
    x = np.linspace(0.0, 4.0, 2000)
    xs, ys = [], []
    for k, (c, roof) in enumerate([(1e-3, 14.2), (3e-2, 13.1), (0.3, 12.9), (1e-2, 20.0),
                                   (5e-3, 13.7), (1e-1, 12.6)]):
        n = [2000, 1500, 700, 2000, 300, 1200][k]
        xs.append(x[:n])
        ys.append(np.minimum(12.0 + x[:n] - np.log10(1.0 + c * 10 ** x[:n]), roof))
        xs.append([np.empty(0), np.array([1.0]), x[:40], x[:251]][k % 4])
        ys.append(np.sin(3.0 * xs[-1]))
    xs.insert(3, x)  # (a knee: few candidates, long straight runs, no knots)
    ys.insert(3, np.minimum(x + 12.0, 14.5))
    t = np.clip(x - 2.0, 0.0, 0.4)  # (a bend of ~200 candidates between straight runs)
    xs.insert(6, x)
    ys.insert(6, 12.0 + x - t * t / 0.8 - (x - 2.0 - t))
    together = pd.simplify_polylines(xs, ys)
    for i in range(len(xs)):
        (alone,) = pd.simplify_polylines([xs[i]], [ys[i]])
        np.testing.assert_array_equal(alone, together[i])
    for lo, hi in [(0, 5), (3, 9), (5, 12), (1, 2)]:
        for got, want in zip(pd.simplify_polylines(xs[lo:hi], ys[lo:hi]), together[lo:hi]):
            np.testing.assert_array_equal(got, want)


def _same_geometry(a: sg.SweepGeometry, b: sg.SweepGeometry) -> None:
    assert a.fit == b.fit and a.dim == b.dim and len(a.lines) == len(b.lines)
    for la, lb in zip(a.lines, b.lines):
        assert (la.key, la.label, la.colour, la.dash, la.crit_label, la.tooltip) == \
            (lb.key, lb.label, lb.colour, lb.dash, lb.crit_label, lb.tooltip)
        assert (la.crit_x, la.crit_y) == (lb.crit_x, lb.crit_y)
        for u, v in [(la.x, lb.x), (la.y, lb.y), (la.draw_x, lb.draw_x), (la.draw_y, lb.draw_y)]:
            np.testing.assert_array_equal(u, v)


@pytest.mark.parametrize("y", ["flops", "time"])
def test_the_memo_redoes_only_the_edited_ops_curves_and_changes_nothing(cat, y):
    sc = busy(2000)
    sc.sweep.y = y
    memo = sg.SweepMemo()
    g1 = sg.sweep_geometry(sc, sweep_scenario(sc, cat)[0], memo=memo)
    assert memo.computed == 9
    _same_geometry(g1, sg.sweep_geometry(sc, sweep_scenario(sc, cat)[0]))
    for step, value in enumerate([3000.0, 12000.0, 700.0]):
        sc.ops[step % 3].dims["F"] = value
        curves, _ = sweep_scenario(sc, cat)
        g = sg.sweep_geometry(sc, curves, memo=memo)
        assert memo.computed == 3  # the edited op on each of the three chips
        _same_geometry(g, sg.sweep_geometry(sc, curves))
    # unchanged curves hand the plot the very arrays it drew last time
    g_again = sg.sweep_geometry(sc, sweep_scenario(sc, cat)[0], memo=memo)
    assert memo.computed == 0
    assert all(a.draw_x is b.draw_x and a.draw_y is b.draw_y
               for a, b in zip(g.lines, g_again.lines))
    # the memo holds the curves on show, no more
    assert len(memo.curves) == 9


def test_the_memo_never_reuses_a_drawing_for_other_numbers(cat):
    """Reuse is keyed on the result arrays' identity *and* kept objects, so an id
    reused by Python for a new array cannot bring back an old drawing."""
    sc = busy(300)
    memo = sg.SweepMemo()
    for value in np.geomspace(100, 50000, 25):
        sc.ops[0].dims["D"] = float(round(value))
        curves, _ = sweep_scenario(sc, cat, values=np.geomspace(1, 65536, 300))  # uncached
        _same_geometry(sg.sweep_geometry(sc, curves, memo=memo), sg.sweep_geometry(sc, curves))


def test_two_identical_ops_share_one_sweep_and_both_are_drawn(cat):
    sc = busy(400)
    sc.ops.append(OpSpec("twin", "matmul", dict(sc.ops[0].dims), dict(sc.ops[0].dtypes)))
    memo = sg.SweepMemo()
    curves, _ = sweep_scenario(sc, cat)
    twins = [c for c in curves if c.op_index in (0, 3)]
    assert twins[0].result is twins[3].result  # one cached sweep for the two ops
    g = sg.sweep_geometry(sc, curves, memo=memo)
    assert memo.computed == 9  # the twin's curves are the first op's
    _same_geometry(g, sg.sweep_geometry(sc, curves))
    assert all(ln.draw_x is not None and ln.draw_x.size >= 2 for ln in g.lines)
