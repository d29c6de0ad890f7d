"""The breakdown of an LLM step into its parts (roofgui/model/llm_parts.py) and its CLI output."""

from __future__ import annotations

import json

import pytest

from roofgui.cli import main
from roofgui.model import llm
from roofgui.model.catalog import Catalog
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
