"""The latency–throughput frontier (roofgui/model/pareto.py) and ``roofgui pareto``."""

from __future__ import annotations

import json

import pytest

from roofgui.cli import main
from roofgui.model import llm
from roofgui.model.catalog import Catalog
from roofgui.model.pareto import batch_sizes, frontier, meets, pareto, tp_degrees
from roofgui.model.scenario import OpSpec, ShardSpec

BF16 = {"w": "bf16", "x": "bf16", "kv": "bf16", "compute": "bf16"}


@pytest.fixture(scope="module")
def h100():
    return Catalog.load(user_dir=False).get("h100-sxm")


def op(model="llama-3-70b", p=1024, d=256):
    return OpSpec(model, "llm", {"B": 1, "p": p, "d": d}, dict(BF16), None, {"model": model})


def test_degrees_and_batches():
    assert tp_degrees(1) == [1] and tp_degrees(8) == [1, 2, 4, 8] and tp_degrees(6) == [1, 2, 4, 6]
    assert batch_sizes(0) == [1]                      # nothing fits: one point, marked so
    assert batch_sizes(5) == [1, 2, 4, 8]             # up to the limit and the first past it
    assert batch_sizes(4) == [1, 2, 4, 8]


def test_points_cover_every_degree_and_mark_memory(h100):
    res = pareto(op(), h100, 8, "nvlink")
    assert {q["chips"] for q in res["points"]} == {1, 2, 4, 8}
    # 70B in bf16 (141 GB) does not fit one 80 GB H100.
    assert not any(q["fits"] for q in res["points"] if q["chips"] == 1)
    for tp in (2, 4, 8):
        pts = [q for q in res["points"] if q["chips"] == tp]
        o = OpSpec("m", "llm", {"B": 1, "p": 1024, "d": 256}, dict(BF16), ShardSpec("tp", tp, "nvlink"),
                   {"model": "llama-3-70b"})
        s = llm.llm_summary(o, h100)
        wall = s["memory"]["max_batch"]
        for q in pts:
            assert q["fits"] == (q["batch"] <= wall)
        assert pts[-1]["batch"] > wall and not pts[-1]["fits"]
    for q in res["points"]:
        assert q["tokens_per_s_per_user"] == pytest.approx(1 / q["tpot"])
        assert q["tokens_per_s_per_chip"] == q["output_tokens_per_s_per_chip"]
        assert q["total_tokens_per_s_per_chip"] == pytest.approx(q["output_tokens_per_s_per_chip"] * 1280 / 256)


@pytest.mark.parametrize("ttft, tpot", [(None, None), (2.0, 50e-3), (0.5, 10e-3), (1e-3, 1e-3)])
def test_limits_are_never_exceeded_and_the_frontier_is_monotone(h100, ttft, tpot):
    res = pareto(op(), h100, 8, "nvlink", ttft=ttft, tpot=tpot)
    for q in res["points"]:
        if q["meets_slo"]:
            assert q["fits"]
            assert ttft is None or q["ttft"] <= ttft
            assert tpot is None or q["tpot"] <= tpot
    f = res["frontier"]
    assert all(q["meets_slo"] for q in f)
    for a, b in zip(f, f[1:]):   # per-user rate rises, per-chip rate never rises
        assert b["tokens_per_s_per_user"] >= a["tokens_per_s_per_user"]
        assert b["tokens_per_s_per_chip"] <= a["tokens_per_s_per_chip"]
    # Nothing that meets the limits dominates a frontier point.
    ok = [q for q in res["points"] if q["meets_slo"]]
    for q in f:
        assert not any(o["tokens_per_s_per_user"] >= q["tokens_per_s_per_user"]
                       and o["tokens_per_s_per_chip"] > q["tokens_per_s_per_chip"] for o in ok)
    if ttft == 1e-3:
        assert f == []


def test_frontier_and_meets_by_hand():
    pts = [{"tokens_per_s_per_user": u, "tokens_per_s_per_chip": c, "meets_slo": m, "name": nm}
           for u, c, m, nm in [(10, 100, True, "a"), (20, 80, True, "b"), (15, 70, True, "c"),
                               (30, 90, False, "d"), (30, 50, True, "e")]]
    assert [q["name"] for q in frontier(pts)] == ["a", "b", "e"]
    q = {"fits": True, "ttft": 1.0, "tpot": 0.05}
    assert meets(q, 1.0, 0.05) and not meets(q, 0.999, None) and not meets(q, None, 0.0499)
    assert not meets({**q, "fits": False}, None, None)


def test_pareto_cli_json_and_table(capsys):
    args = ["pareto", "--model", "llama-3-70b", "--chip", "h100-sxm", "--chips-count", "8", "--link", "nvlink",
            "--prefill", "1024", "--decode", "256", "--ttft", "2", "--tpot", "50e-3"]
    assert main(args + ["--json"]) == 0
    res = json.loads(capsys.readouterr().out)
    keys = {"chips", "batch", "tokens_per_s_per_chip", "tokens_per_s_per_user", "ttft", "tpot", "fits", "meets_slo"}
    assert keys <= set(res["points"][0]) and res["frontier"]
    assert res["throughput"] == "output" and "output tokens/s per chip" in res["throughput_label"]
    assert all(q["tpot"] <= 50e-3 and q["ttft"] <= 2 for q in res["frontier"])
    assert main(args + ["--json", "--throughput", "total"]) == 0
    tot = json.loads(capsys.readouterr().out)
    assert "total tokens/s per chip" in tot["throughput_label"]
    assert tot["points"][0]["tokens_per_s_per_chip"] == pytest.approx(
        res["points"][0]["tokens_per_s_per_chip"] * 1280 / 256)
    assert main(args) == 0
    out = capsys.readouterr().out
    assert "tok/s/chip" in out and "Best per chip within the limits" in out
    assert main(args[:-2] + ["--tpot", "-1"]) == 2
    assert main(["pareto", "--chip", "h100-sxm", "--chips-count", "4"]) == 2   # needs --link
