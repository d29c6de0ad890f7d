"""An evaluation's critical values are worked out when first read, once per op phase
for all its chips: the window's plot, which needs the results alone, is drawn without
them, and the results panel reads them after the plot has painted."""

from __future__ import annotations

import pytest

from roofgui.model import evaluate
from roofgui.model.catalog import Catalog
from roofgui.model.ops import OP_KINDS
from roofgui.model.roofline import critical_values
from roofgui.model.scenario import OpSpec, Scenario


@pytest.fixture
def counted(monkeypatch):
    calls = []
    real = evaluate.critical_values_many
    monkeypatch.setattr(evaluate, "critical_values_many",
                        lambda *a, **k: (calls.append(len(a[2])), real(*a, **k))[1])
    return calls


def test_critical_values_are_made_when_first_read_once_for_every_chip(counted):
    cat = Catalog.load(user_dir=False)
    sc = Scenario(chips=["tpu-v5e", "h100-sxm", "mi300x"], ops=[
        OpSpec("up", "matmul", {"B": 1000 + 1, "D": 4096, "F": 16384}, {}),
        OpSpec("dot", "dot", {"N": 77777}, {})])
    ev = evaluate.evaluate_scenario(sc, cat)
    assert len(ev.entries) == 6 and counted == []
    for e in ev.entries:
        a = e.analysis
        assert a.critical == critical_values(OP_KINDS[e.op.kind], e.op.full_dims(), a.figures)
        assert a.critical  # (every dimension named)
    assert counted == [3, 3]  # (one call per op phase, all three chips in it)
    assert ev.entries[0].analysis.critical is ev.entries[0].analysis.critical  # (kept)


def test_critical_values_read_late_are_those_of_the_op_as_evaluated():
    cat = Catalog.load(user_dir=False)
    sc = Scenario(chips=["h100-sxm"], ops=[OpSpec("w8", "matmul",
                                                  {"B": 256, "D": 4096, "F": 4096}, {"w": "int8"})])
    a = evaluate.evaluate_scenario(sc, cat).entries[0].analysis
    want = critical_values(OP_KINDS["matmul"], sc.ops[0].full_dims(), a.figures,
                           dtypes={"w": "int8"})
    sc.ops[0].dtypes["w"] = "bf16"  # (a scenario changed in place after it was evaluated)
    assert a.critical == want
