"""An evaluation is freed once nothing shows it, even when some op cannot run on some chip
(issue 28's soak: the errors the model keeps between edits held every frame, and so every
evaluation, that raised them: 300 MB a thousand edits)."""

from __future__ import annotations

import gc
import weakref

from roofgui.model.catalog import Catalog
from roofgui.model.evaluate import evaluate_scenario, sweep_scenario
from roofgui.model.scenario import OpSpec, Scenario, ShardSpec


def test_evaluations_with_errors_are_not_kept_alive_by_the_models_memory():
    cat = Catalog.load(user_dir=False)
    sc = Scenario(chips=["tpu-v5e", "h100-sxm", "l40s"], ops=[
        OpSpec("sharded", "matmul", {"B": 1024, "D": 8192, "F": 8192}, {}, ShardSpec("D", 4, "ici")),
    ])
    ev = evaluate_scenario(sc, cat)
    curves, sweep_errors = sweep_scenario(sc, cat)
    assert ev.errors and any("ici" in e for e in ev.errors)
    gone = weakref.ref(ev)
    del ev, curves, sweep_errors
    gc.collect()
    assert gone() is None
