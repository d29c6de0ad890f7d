"""An edit of one op re-sweeps that op alone.

The model remembers each op's sweep (``sweep_scenario``): what is reused must be exactly
what a fresh computation gives, and nothing stale may be reused.
"""

import copy

import numpy as np
import pytest

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


def test_two_identical_ops_share_one_sweep_and_both_are_drawn(cat):
    sc = busy(400)
    sc.ops.append(OpSpec("twin", "matmul", dict(sc.ops[0].dims), dict(sc.ops[0].dtypes)))
    curves, _ = sweep_scenario(sc, cat)
    twins = [c for c in curves if c.op_index in (0, 3)]
    assert twins[0].result is twins[3].result  # one cached sweep for the two ops
    g = sg.sweep_geometry(sc, curves)
    assert len(g.lines) == 12
    assert all(ln.draw_x is not None and ln.draw_x.size >= 2 for ln in g.lines)
    first, twin = g.lines[0], g.lines[9]
    assert first.crit_label == twin.crit_label and not twin.crit_label_shown
    np.testing.assert_array_equal(first.draw_y, twin.draw_y)


def _line_fields(ln):
    return [v.tobytes() if isinstance(v, np.ndarray) else v
            for v in (getattr(ln, f) for f in ln.__dataclass_fields__)]


@pytest.mark.parametrize("y", ["flops", "time"])
def test_the_memo_hands_back_only_lines_a_fresh_geometry_would_draw(cat, y):
    sc = busy(300)
    sc.sweep.y = y
    memo = sg.SweepMemo()
    edits = [
        lambda s: None,
        lambda s: s.ops[0].dims.update(D=5000.0),
        lambda s: setattr(s.ops[1], "name", "renamed"),  # same numbers, other labels
        lambda s: s.chips.reverse(),  # same numbers, other colours
        lambda s: s.ops.reverse(),  # other op indices and dashes
        lambda s: setattr(s, "chips", s.chips[:1]),  # one chip: colours by op
        lambda s: s.ops.append(copy.deepcopy(s.ops[0])),  # identical curves: labels once
        lambda s: setattr(s.sweep, "dim", "F"),
    ]
    colours = {}
    for edit in edits:
        edit(sc)
        curves, _ = sweep_scenario(sc, cat)
        got = sg.sweep_geometry(sc, curves, colours, n_colours=6, memo=memo)
        want = sg.sweep_geometry(sc, curves, colours, n_colours=6)
        assert [_line_fields(a) for a in got.lines] == [_line_fields(b) for b in want.lines]
        assert got.fit == want.fit and got.colours == want.colours
        colours = dict(got.colours)
    # the same curves again (the ops an edit leaves alone): the very lines of last time
    again = sg.sweep_geometry(sc, curves, colours, n_colours=6, memo=memo)
    assert all(a is b for a, b in zip(got.lines, again.lines) if a.crit_label_shown)


def test_one_op_alone_is_swept_as_in_the_sweep_of_every_op(cat):
    sc = busy()
    every, _ = sweep_scenario(copy.deepcopy(sc), cat)
    mine, errors = sweep_scenario(copy.deepcopy(sc), cat, only=2)
    assert errors == [] and {c.op_index for c in mine} == {2} and len(mine) == 3
    theirs = [c for c in every if c.op_index == 2]
    for a, b in zip(mine, theirs):
        assert a.chip.id == b.chip.id and a.critical == b.critical
        for f, v in _fields(a.result).items():
            np.testing.assert_array_equal(v, _fields(b.result)[f], err_msg=f)
    sc.ops.append(OpSpec("dot", "dot", {"N": 4096}))  # (no B: nothing to sweep)
    assert sweep_scenario(sc, cat, only=3) == ([], [])
