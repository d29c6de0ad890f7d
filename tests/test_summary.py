"""The summary table's rows and totals (presentation), and ``roofgui analyze``'s summary."""

from types import SimpleNamespace

from roofgui import cli
from roofgui.model.catalog import Catalog
from roofgui.model.evaluate import evaluate_scenario
from roofgui.model.roofline import BOUNDS
from roofgui.model.scenario import OpSpec, Scenario
from roofgui.presentation.summary import TOTAL_LABEL, summarise, summary_lines


def entry(i, label, chip, bound, t_lower, util):
    res = SimpleNamespace(bound_code=BOUNDS.index(bound), t_lower=t_lower, utilisation=util)
    return SimpleNamespace(op_index=i, label=label, chip_id=chip,
                           analysis=SimpleNamespace(result=res))


def chip(cid, label):
    return SimpleNamespace(id=cid, label=lambda: label)


def test_totals_sum_the_ops_per_chip_and_weight_utilisation_by_time():
    chips = [chip("a", "Chip A"), chip("b", "Chip B")]
    entries = [entry(0, "qkv", "a", "compute", 3e-3, 1.0), entry(0, "qkv", "b", "memory", 2e-3, 0.25),
               entry(1, "attn", "a", "memory", 1e-3, 0.5), entry(1, "attn", "b", "memory", 2e-3, 0.5)]
    s = summarise(entries, chips, selected=1)
    assert s.rows == ["qkv", "attn"]
    assert s.selected_rows == [1]
    assert s.text_rows() == [
        [TOTAL_LABEL, "compute · 4 ms · 87.5%", "memory · 4 ms · 37.5%"],
        ["qkv", "compute · 3 ms · 100.0%", "memory · 2 ms · 25.0%"],
        ["attn", "memory · 1 ms · 50.0%", "memory · 2 ms · 50.0%"]]
    assert s.totals[0].note == "Time by bound: compute 75%, memory 25%."


def test_a_total_missing_an_op_is_marked_as_a_lower_bound():
    chips = [chip("a", "Chip A"), chip("b", "Chip B")]
    entries = [entry(0, "qkv", "a", "compute", 3e-3, 1.0), entry(0, "qkv", "b", "memory", 2e-3, 0.25),
               entry(1, "attn", "a", "memory", 1e-3, 0.5)]
    s = summarise(entries, chips)
    assert s.text_rows()[0] == [TOTAL_LABEL, "compute · 4 ms · 87.5%", "memory · ≥ 2 ms · 25.0%"]
    assert s.text_rows()[2] == ["attn", "memory · 1 ms · 50.0%", "—"]
    assert "Not counted (no result): attn." in s.totals[1].note
    assert summary_lines(s)[4:6] == [
        "Chip B", "  Whole block (Σ ops)  memory · ≥ 2 ms · 25.0%  (Time by bound: memory 100%. "
        "Not counted (no result): attn.)"]


def test_the_totals_match_the_model_on_real_chips():
    cat = Catalog.load(user_dir=False)
    sc = Scenario(chips=["h100-sxm", "tpu-v5e"],
                  ops=[OpSpec("up", "matmul", {"B": 256, "D": 8192, "F": 8192}),
                       OpSpec("down", "matmul", {"B": 16, "D": 8192, "F": 8192})])
    ev = evaluate_scenario(sc, cat)
    s = summarise(ev.entries, ev.chips)
    for c, cid in enumerate(sc.chips):
        mine = [e.analysis.result for e in ev.entries if e.chip_id == cid]
        assert abs(s.totals[c].t_lower - sum(float(r.t_lower) for r in mine)) < 1e-15
        t_math = sum(float(r.t_math) for r in mine)
        assert abs(s.totals[c].utilisation - t_math / s.totals[c].t_lower) < 1e-9


def test_analyze_prints_the_whole_block_per_chip_for_a_scenario(capsys, tmp_path):
    assert cli.main(["analyze", "resources/examples/09-mlp-on-three-gpus.json"]) == 0
    out = capsys.readouterr().out
    tail = out[out.index("Summary: bound"):].splitlines()
    assert tail[1] == "NVIDIA H100 SXM (80 GB)"
    assert tail[2].startswith("  Whole block (Σ ops)       compute · 2.35 ms · 93.6%  (Time by bound: ")
    assert tail[3] == "  prefill up-proj           compute · 1.94 ms · 100.0%"


def test_analyze_of_one_op_prints_no_summary(capsys):
    assert cli.main(["analyze", "--op", "matmul", "--chip", "h100-sxm"]) == 0
    assert "Whole block" not in capsys.readouterr().out


def test_analyze_of_one_llm_step_prints_no_block_total(capsys):
    # (its prefill and decode phases are one op: they are no block to sum)
    assert cli.main(["analyze", "resources/examples/10-llm-llama-3-70b-eight-gpus.json"]) == 0
    assert "Whole block" not in capsys.readouterr().out
