"""An edit of one op makes that op's entries alone (``evaluate_scenario``): an op left
alone keeps the very entries of the last evaluation, and those entries are what a fresh
evaluation gives; anything about the op (its name, its tile) makes its entries anew."""

import copy

import pytest

from roofgui.model.catalog import Catalog
from roofgui.model.evaluate import evaluate_scenario
from roofgui.model.scenario import OpSpec, Scenario


@pytest.fixture(scope="module")
def cat():
    return Catalog.load(False)


def busy() -> Scenario:
    return Scenario(
        chips=["tpu-v5e", "h100-sxm", "no-such-chip"],
        ops=[OpSpec("a", "matmul", {"B": 256, "D": 8192, "F": 8192}),
             OpSpec("b", "matmul", {"B": 256, "D": 4096, "F": 4096}, {"w": "int8"}),
             OpSpec("c", "dot", {"N": 4096})])


def by_op(ev) -> dict[int, list]:
    out: dict[int, list] = {}
    for e in ev.entries:
        out.setdefault(e.op_index, []).append(e)
    return out


def test_an_op_left_alone_keeps_its_entries_and_an_edited_one_gets_new(cat):
    sc = busy()
    first = by_op(evaluate_scenario(sc, cat))
    sc = copy.deepcopy(sc)  # (as the window's edit: a new copy, one op changed)
    sc.ops[1].dims["B"] = 512
    ev = evaluate_scenario(sc, cat)
    second = by_op(ev)
    assert all(a is b for a, b in zip(first[0], second[0]))
    assert all(a is b for a, b in zip(first[2], second[2]))
    assert not any(a is b for a, b in zip(first[1], second[1]))
    assert [e.op.dims["B"] for e in second[1]] == [512, 512]
    fresh = evaluate_scenario(copy.deepcopy(sc), Catalog.load(False))  # (nothing to reuse)
    assert [(e.op_index, e.op, e.phase, e.chip_id, e.analysis.result.t_lower)
            for e in ev.entries] == [(e.op_index, e.op, e.phase, e.chip_id,
                                      e.analysis.result.t_lower) for e in fresh.entries]
    assert ev.errors == fresh.errors and len(ev.errors) == 1  # (the missing chip, once)


@pytest.mark.parametrize("change", [
    lambda op: setattr(op, "name", "renamed"),
    lambda op: setattr(op, "tile", {"B": 128, "D": 128, "F": 128}),
])
def test_a_renamed_or_retiled_op_gets_new_entries(cat, change):
    sc = busy()
    first = by_op(evaluate_scenario(sc, cat))
    sc = copy.deepcopy(sc)
    change(sc.ops[0])
    second = by_op(evaluate_scenario(sc, cat))
    assert not any(a is b for a, b in zip(first[0], second[0]))
    assert all(e.op == sc.ops[0] for e in second[0])
    assert all(a is b for a, b in zip(first[1], second[1]))


def test_an_op_changed_in_place_is_not_taken_for_the_one_evaluated(cat):
    sc = busy()
    first = by_op(evaluate_scenario(sc, cat))
    sc.ops[0].dims["D"] = 1024  # (the same scenario object, changed after evaluating it)
    second = by_op(evaluate_scenario(sc, cat))
    assert not any(a is b for a, b in zip(first[0], second[0]))
    assert second[0][0].analysis.result.flops == 2 * 256 * 1024 * 8192
