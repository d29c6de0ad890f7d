"""The parts of an LLM step (roofgui/model/llm_parts.py): the breakdown and its CLI output, the ring
all-reduce, the experts a MoE step reads, the 70B/8×H100 verdict both ways."""

from __future__ import annotations

import json

import pytest

from roofgui.cli import main
from roofgui.model import llm
from roofgui.model.catalog import Catalog
from roofgui.model.llm_parts import expected_experts, note_allreduce_bytes, ring_allreduce_bytes
from roofgui.model.scenario import OpSpec, ShardSpec

BF16 = {"w": "bf16", "x": "bf16", "kv": "bf16", "compute": "bf16"}


@pytest.fixture(scope="module")
def h100():
    return Catalog.load(user_dir=False).get("h100-sxm")


def op(model, B=64, p=1024, d=256, n=1, **params):
    shard = ShardSpec("tp", n, "nvlink") if n > 1 else None
    return OpSpec(model, "llm", {"B": B, "p": p, "d": d}, dict(BF16), shard, {"model": model, **params})


@pytest.mark.parametrize("model", list(llm.presets()))
@pytest.mark.parametrize("n", [1, 8])
def test_parts_sum_exactly_to_the_step(model, n, h100):
    s = llm.llm_summary(op(model, n=n), h100)
    for ph in llm.PHASES:
        r = s["phases"][ph]
        parts = r["parts"]
        for field, total in (("flops", "flops"), ("hbm_bytes", "hbm_bytes_refined"), ("net_bytes", "net_bytes")):
            acc = 0.0
            for pt in parts:
                acc = acc + pt["count"] * pt[field]
            assert acc == r[total], (model, ph, field)
        names = [pt["name"] for pt in parts]
        assert names[:4] == ["embedding", "qkv_proj", "attention", "o_proj"]
        assert ("moe" if llm.get_preset(model).experts > 1 else "mlp") in names
        assert {"allreduce", "lm_head"} <= set(names)
        for pt in parts:
            assert pt["bound"] in ("compute", "memory", "network") and pt["t_lower"] >= 0


def test_decode_attention_bytes_are_the_kv_read_by_hand(h100):
    # Llama-3 70B on 8 chips: 1 of 8 KV heads per chip; per layer and token K and V are
    # 2·1·128·2 = 512 B; each of the 64 requests reads p + (d−1)/2 = 1151.5 cached tokens.
    s = llm.llm_summary(op("llama-3-70b", n=8), h100)
    attn = next(pt for pt in s["phases"]["decode"]["parts"] if pt["name"] == "attention")
    assert attn["count"] == 80
    assert attn["hbm_bytes"] == pytest.approx(64 * 1151.5 * 512, rel=1e-12)
    assert attn["count"] * attn["hbm_bytes"] == pytest.approx(s["phases"]["decode"]["kv_read_bytes"], rel=1e-12)
    # Fused attention keeps no score matrix in HBM: prefill attention reads K and V once.
    pre = next(pt for pt in s["phases"]["prefill"]["parts"] if pt["name"] == "attention")
    assert pre["hbm_bytes"] == pytest.approx(64 * 1024 * 512, rel=1e-12)
    # Its FLOPs: 4·heads·head_dim per query and key, 64 heads split over 8 chips.
    assert attn["flops"] == pytest.approx(4 * 64 * 128 * 1151.5 * 64 / 8, rel=1e-12)


def test_all_reduces_are_two_per_layer_and_carry_all_link_bytes(h100):
    s = llm.llm_summary(op("llama-3-70b", n=8), h100)
    for ph in llm.PHASES:
        ar = [pt for pt in s["phases"][ph]["parts"] if pt["net_bytes"] > 0]
        assert [pt["name"] for pt in ar] == ["allreduce"] and ar[0]["count"] == 160
        tokens = s["phases"][ph]["tokens"]
        assert ar[0]["net_bytes"] == pytest.approx(2 * 7 / 8 * tokens * 8192 * 2, rel=1e-12)


def test_breakdown_flag_in_json_and_table(capsys):
    args = ["analyze", "--op", "llm", "--model", "llama-3-70b", "--chip", "h100-sxm", "--chips-count", "8",
            "--link", "nvlink"]
    assert main(args + ["--json"]) == 0
    assert "parts" not in json.loads(capsys.readouterr().out)[0]
    assert main(args + ["--breakdown", "--json"]) == 0
    recs = json.loads(capsys.readouterr().out)
    for rec in recs:
        assert set(rec["parts"][0]) == {"name", "count", "flops", "hbm_bytes", "net_bytes", "t_lower", "bound"}
        assert sum(pt["count"] * pt["flops"] for pt in rec["parts"]) == pytest.approx(rec["flops"], rel=1e-12)
    assert main(args + ["--breakdown"]) == 0
    out = capsys.readouterr().out
    for needle in ("Parts (×count)", "QKV proj ×80", "Attention ×80", "TP all-reduce ×160", "LM head ×1"):
        assert needle in out, needle


def test_moe_expected_experts_for_one_and_many_tokens(h100):
    assert expected_experts(8, 2, 1) == pytest.approx(2.0)              # B = 1: its 2 experts
    assert expected_experts(8, 2, 2) == pytest.approx(8 * (1 - 0.75 ** 2))   # 3.5
    assert expected_experts(8, 2, 4096) == pytest.approx(8.0)           # large B: all of them
    assert expected_experts(1, 1, 7) == 1.0                             # dense
    one = llm.llm_summary(op("mixtral-8x7b", B=1), h100)["phases"]
    assert one["decode"]["experts_read"] == pytest.approx(2.0)
    assert one["prefill"]["experts_read"] == pytest.approx(8.0)         # 512 prompt tokens read ~all
    cfg = llm.get_preset("mixtral-8x7b")
    w_exp = 3 * 4096 * 14336 * 2 * 32
    assert one["decode"]["weight_bytes"] == pytest.approx(2 * cfg.params_total - 6 * w_exp, rel=1e-12)


@pytest.mark.parametrize("n", [2, 4, 8])
def test_ring_all_reduce_by_hand(n):
    # A ring all-reduce: reduce-scatter then all-gather, n − 1 steps each of 1/n of the tensor.
    tensor = 64 * 8192 * 2
    by_hand = {2: 1 * tensor, 4: 1.5 * tensor, 8: 1.75 * tensor}[n]    # 2·(n−1)/n
    assert ring_allreduce_bytes(n, tensor) == pytest.approx(by_hand)
    assert note_allreduce_bytes(n, tensor) == pytest.approx(n * by_hand)


def test_llama3_70b_on_8_h100_prefill_is_compute_bound_by_default(h100):
    o = op("llama-3-70b", B=64, p=1024, d=256, n=8)
    ring = llm.llm_summary(o, h100)["phases"]["prefill"]
    # 2·80 all-reduces × 2·7/8 × 65,536 tokens × 8192 × 2 B = 300.6 GB over 450 GB/s = 0.668 s.
    assert ring["t_network"] == pytest.approx(160 * 1.75 * 65536 * 8192 * 2 / 450e9, rel=1e-12)
    assert ring["t_network"] == pytest.approx(0.668, abs=0.001)
    assert ring["bound"] == "compute"
    note = llm.llm_summary(op("llama-3-70b", B=64, p=1024, d=256, n=8, t_net="note"), h100)
    assert note["phases"]["prefill"]["t_network"] == pytest.approx(5.345, abs=0.001)
    assert note["phases"]["prefill"]["bound"] == "network"
