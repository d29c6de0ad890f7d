"""Every bundled example loads, evaluates without errors, and gives the reference's answer."""

import numpy as np
import pytest

import roofgui.model.llm as llm  # registers the LLM step, so its examples load (else they are skipped)
from roofgui.gui.examples import examples
from roofgui.model.catalog import Catalog
from roofgui.model.ops import OP_KINDS
from roofgui.model.scenario import Scenario
from roofgui.model.evaluate import evaluate_scenario, sweep_scenario

EXPECTED = {"01-bf16-matmul-tpu-v5e.json", "02-int8-matmul.json", "03-int8-weights-bf16-compute.json",
            "04-question-3-sweep.json", "05-per-example-weights.json", "06-dot-product.json",
            "07-two-chip-sharded-matmul.json", "08-h100-critical-batch.json",
            "10-llm-llama-2-7b-one-gpu.json", "10-llm-llama-3-70b-eight-gpus.json"}


@pytest.fixture(scope="module")
def catalog():
    return Catalog.load(user_dir=False)


@pytest.fixture(scope="module")
def bundled():
    return {ex.name: Scenario.from_json(ex.text, ex.name) for ex in examples()}


def _ev(sc, catalog):
    ev = evaluate_scenario(sc, catalog)
    assert ev.errors == []
    return ev


def _entry(ev, op, chip):
    (e,) = [e for e in ev.for_op(op) if e.chip_id == chip]
    return e.analysis


def test_every_reference_problem_is_bundled(bundled):
    assert EXPECTED <= set(bundled)


def test_every_example_loads_and_evaluates_without_errors(bundled, catalog):
    titles = set()
    for name, sc in bundled.items():
        assert sc.title and sc.title not in titles, name
        titles.add(sc.title)
        ev = evaluate_scenario(sc, catalog)
        assert ev.errors == [], name
        phases = sum(len(OP_KINDS[op.kind].phases) for op in sc.ops)
        assert len(ev.entries) == phases * len(sc.chips), name
        curves, errors = sweep_scenario(sc, catalog)
        assert errors == [], name
        assert curves, name
        for e in ev.entries:
            r = e.analysis.result
            assert np.isfinite(float(r.t_lower)) and float(r.attainable_flops) > 0
        assert Scenario.from_json(sc.to_json()).to_dict() == sc.to_dict()


def test_bf16_matmul_v5e_b_240(bundled, catalog):
    sc = bundled["01-bf16-matmul-tpu-v5e.json"]
    ev = _ev(sc, catalog)
    below, above = _entry(ev, 0, "tpu-v5e"), _entry(ev, 1, "tpu-v5e")
    assert 240 < below.critical["B"] < 250  # 240 as B ≪ D, F; exact bytes at D = F = 16k: 247.5
    assert below.result.bound == "memory" and above.result.bound == "compute"


def test_int8_matmul_question_1(bundled, catalog):
    a = _entry(_ev(bundled["02-int8-matmul.json"], catalog), 0, "tpu-v5e")
    assert a.figures.peak == 3.94e14
    assert 240 < a.critical["B"] < 250


def test_int8_weights_bf16_compute_b_120(bundled, catalog):
    ev = _ev(bundled["03-int8-weights-bf16-compute.json"], catalog)
    int8w, bf16w = _entry(ev, 0, "tpu-v5e"), _entry(ev, 1, "tpu-v5e")
    assert 120 < int8w.critical["B"] < 125
    assert int8w.result.bound == "compute" and bf16w.result.bound == "memory"


def test_question_3_sweep_matches_the_reference_code(bundled, catalog):
    sc = bundled["04-question-3-sweep.json"]
    _ev(sc, catalog)
    curves, errors = sweep_scenario(sc, catalog)
    assert errors == [] and len(curves) == 2
    for c in curves:
        D = c.op.dims["D"]
        B = c.x
        # the reference's own code: comms_time = (2*B*D + D*F + 2*B*F) / 8.2e11
        flops = 2 * B * D * D
        expected = flops / np.maximum(flops / 1.97e14, (2 * B * D + D * D + 2 * B * D) / 8.2e11)
        np.testing.assert_allclose(c.result.attainable_flops, expected, rtol=1e-12)
    big, small = curves
    assert big.op.dims["D"] == 4096 and small.op.dims["D"] == 1024
    assert big.critical < small.critical  # "D=F=1024 almost doubles the critical batch size"
    assert 1.5 < small.critical / big.critical < 2


def test_per_example_weights_intensity_about_2(bundled, catalog):
    ev = _ev(bundled["05-per-example-weights.json"], catalog)
    a = _entry(ev, 0, "tpu-v5e")
    assert float(a.result.intensity) == pytest.approx(2.0, rel=0.01)
    assert a.result.bound == "memory" and a.critical["B"] is None


def test_dot_product_intensity_one_half(bundled, catalog):
    sc = bundled["06-dot-product.json"]
    ev = _ev(sc, catalog)
    for chip in sc.chips:
        a = _entry(ev, 0, chip)
        assert float(a.result.intensity) == pytest.approx(0.5, rel=1e-5)
        assert a.result.bound == "memory"


def test_two_chip_sharded_matmul_d_8755(bundled, catalog):
    ev = _ev(bundled["07-two-chip-sharded-matmul.json"], catalog)
    small, big = _entry(ev, 0, "tpu-v5e"), _entry(ev, 1, "tpu-v5e")
    for a in (small, big):
        assert a.critical["D"] == pytest.approx(2 * 1.97e14 / 4.5e10, rel=1e-9)  # 8755.6
    assert small.result.bound == "network" and big.result.bound == "compute"


def test_h100_critical_batch_about_298(bundled, catalog):
    ev = _ev(bundled["08-h100-critical-batch.json"], catalog)
    a, b = _entry(ev, 0, "h100-sxm"), _entry(ev, 1, "h100-sxm")
    assert 295 < a.critical["B"] < 305
    assert a.result.bound == "memory" and b.result.bound == "compute"


def test_busy_example_shows_all_three_bounds(bundled, catalog):
    sc = bundled["09-mlp-on-three-gpus.json"]
    ev = _ev(sc, catalog)
    assert len(sc.chips) == 3 and len(sc.ops) == 3 and any(op.shard for op in sc.ops)
    assert {str(e.analysis.result.bound) for e in ev.entries} == {"compute", "memory", "network"}


def _llm_sweep(sc, catalog):
    res = llm.llm_sweep_scenario(sc, catalog)
    assert res.errors == () and res.op_index == 0
    return {r["chip"].id: r for r in res.chips}


def test_llm_one_gpu_capacity_wall_is_the_worked_example(bundled, catalog):
    sc = bundled["10-llm-llama-2-7b-one-gpu.json"]
    assert sc.sweep.y in llm.SWEEP_VIEWS and sc.ops[0].kind == "llm"
    ev = _ev(sc, catalog)
    walls = _llm_sweep(sc, catalog)
    # docs/llm.md: weights 2·6 738 415 616 B = 13.48 GB; each request holds (p+d)·524 288 B of
    # KV cache plus prefill activations p·2·(2·4096 + 2·11008) B and logits 2·32000 B:
    # 335 544 320 + 30 932 992 + 64 000 = 366 541 312 B; (80e9 − 13 476 831 232) / 366 541 312
    # = 181.49, so 181 requests fit on the H100
    assert walls["h100-sxm"]["max_batch"] == 181
    # MI300X: (192 GiB − 13 476 831 232) / 366 541 312 = (206 158 430 208 − 13 476 831 232) / 366 541 312 = 525.68
    assert walls["mi300x"]["max_batch"] == 525
    # decode is memory-bound on both: the KV cache read grows faster with B than the FLOPs
    for chip in sc.chips:
        (dec,) = [e for e in ev.for_op(0) if e.chip_id == chip and e.phase == "decode"]
        assert dec.analysis.result.bound == "memory"


def test_llm_eight_gpus_how_many_fit_and_decode_bound(bundled, catalog):
    sc = bundled["10-llm-llama-3-70b-eight-gpus.json"]
    assert sc.ops[0].shard.n == 8 and sc.ops[0].shard.link == "scale-up"  # NVLink and xGMI
    ev = _ev(sc, catalog)
    walls = _llm_sweep(sc, catalog)
    for chip in sc.chips:  # the wall is the model's own largest batch, and the op's batch fits
        s = llm.llm_summary(sc.ops[0], catalog.get(chip))
        assert walls[chip]["max_batch"] == s["memory"]["max_batch"] > sc.ops[0].dims["B"]
    assert walls["mi300x"]["max_batch"] > 2.5 * walls["h100-sxm"]["max_batch"]  # 192 GiB vs 80 GB
    links = {e.chip_id: e.analysis.figures.link_name for e in ev.entries}
    assert links == {"h100-sxm": "nvlink", "mi300x": "xgmi"}
    bounds = {(e.chip_id, e.phase): str(e.analysis.result.bound) for e in ev.entries}
    assert bounds[("h100-sxm", "decode")] == "memory"
    # With the default ring all-reduce, prefill is compute-bound on both (the note's upper bound
    # would call it network-bound).
    assert sc.ops[0].params["t_net"] == "ring"
    assert {bounds[(c, "prefill")] for c in ("h100-sxm", "mi300x")} == {"compute"}
