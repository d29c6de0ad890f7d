"""The LLM step (roofgui/model/llm.py): hand-computed figures, presets, conventions, properties."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings as hsettings, strategies as st

from roofgui.model import llm
from roofgui.presentation import llm_geometry, llm_text


def working(summary, op):
    """The working lines of an LLM summary of ``op``."""
    return llm_text.working(summary, llm.llm_inputs(op))
from roofgui.model.catalog import Catalog
from roofgui.model.chips import make_chip
from roofgui.model.errors import ModelError, SpecError
from roofgui.model.ops import OP_KINDS, op_work
from roofgui.model.roofline import Settings, analyze
from roofgui.model.scenario import OpSpec, Scenario, ShardSpec
from roofgui.model.units import format_number, format_si
from roofgui.model.evaluate import evaluate_scenario, sweep_scenario

BF16 = {"w": "bf16", "x": "bf16", "kv": "bf16", "compute": "bf16"}


@pytest.fixture(scope="module")
def catalog():
    return Catalog.load(user_dir=False)


@pytest.fixture(scope="module")
def h100(catalog):
    return catalog.get("h100-sxm")


def op(model="llama-2-7b", B=16, p=512, d=128, n=1, link="nvlink", dtypes=None, **params):
    shard = ShardSpec("tp", n, link) if n > 1 else None
    return OpSpec(model, "llm", {"B": B, "p": p, "d": d}, dict(dtypes or BF16), shard,
                  {"model": model, **params})


# -- the worked example: Llama-2 7B on one H100 SXM, bf16 everywhere ------------------------

# H100 SXM as shipped: 989.4e12 bf16 FLOP/s (dense), 3.35e12 B/s HBM, 80e9 B HBM.
PEAK, BW, CAP = 989.4e12, 3.35e12, 80e9
# Llama-2 7B config.json: D 4096, L 32, 32 heads, 32 KV heads, F 11008, V 32000.
D, L, H, HKV, F, V = 4096, 32, 32, 32, 11008, 32000
HD = D // H  # 128
# Parameters: per layer Q,K,V,O 4·D² + SwiGLU 3·D·F + two RMSNorms 2·D; embeddings + LM head 2·V·D; final norm D.
P = L * (4 * D * D + 3 * D * F + 2 * D) + 2 * V * D + D
B, p, d = 16, 512, 128


def test_hand_arithmetic_is_what_the_preset_says():
    assert P == 6_738_415_616  # "6.74B"
    cfg = llm.get_preset("llama-2-7b")
    assert (cfg.hidden_size, cfg.layers, cfg.heads, cfg.kv_heads, cfg.ffn_size, cfg.vocab_size) == (D, L, H, HKV, F, V)
    assert cfg.params_total == cfg.params_active == P
    assert cfg.head_dim == 128


def test_llama2_7b_on_one_h100_by_hand(h100):
    s = llm.llm_summary(op(), h100)
    weights = 2 * P                               # 13,476,831,232 B
    kv_tok = 2 * L * HKV * HD * 2                 # K and V, 32 layers, 32 heads of 128, 2 B = 524,288 B
    assert kv_tok == 524_288
    assert s["weight_bytes_per_chip"] == weights
    assert s["kv_bytes_per_token"] == kv_tok == s["kv_bytes_per_token_per_chip"]

    pre, dec = s["phases"]["prefill"], s["phases"]["decode"]
    # Prefill: B·p = 8192 tokens, 2 FLOPs per matmul weight each (all weights but the embedding
    # table, which is a lookup: P − V·D), plus attention QKᵀ and AV, causal: each of the p = 512
    # queries sees (p + 1)/2 = 256.5 keys on average, 4·heads·head_dim = 4·32·128 FLOPs per key,
    # L = 32 layers: 4·32·128·256.5·8192·32 = 1.1017e12 FLOPs.
    attn_pre = 4 * H * HD * 256.5 * 8192 * L
    assert attn_pre == 1_101_659_111_424
    f_pre = 2 * (P - V * D) * 8192 + attn_pre
    assert pre["attention_flops"] == pytest.approx(attn_pre, rel=1e-12)
    assert pre["tokens"] == 8192
    assert pre["flops"] == pytest.approx(f_pre, rel=1e-12)
    assert pre["t_compute"] == pytest.approx(f_pre / PEAK, rel=1e-12)
    assert pre["t_compute"] == pytest.approx(0.11053, rel=1e-4)        # ≈ 110.5 ms
    # t_mem, the note's: the whole 80 GB at 3.35 TB/s.
    assert pre["t_mem_note"] == pytest.approx(80e9 / 3.35e12, rel=1e-12)
    assert pre["t_mem_note"] == pytest.approx(23.88e-3, rel=1e-3)      # ≈ 23.9 ms
    # t_mem, refined: weights + the prompt's KV cache written (8192 tokens × 524,288 B) and read
    # once by the fused attention.
    ref = (weights + 2 * 8192 * kv_tok) / BW
    assert pre["t_mem_refined"] == pytest.approx(ref, rel=1e-12)
    assert pre["t_mem_refined"] == pytest.approx(6.5871e-3, rel=1e-4)  # (13.48 + 2·4.29) GB / 3.35 TB/s
    assert pre["t_mem"] == pre["t_mem_refined"] and pre["t_mem_model"] == "refined"
    assert pre["t_network"] == 0.0
    assert pre["t_step_lower"] == pytest.approx(max(ref, f_pre / PEAK), rel=1e-12)
    assert pre["t_step_upper"] == pytest.approx(ref + f_pre / PEAK, rel=1e-12)
    assert pre["bound"] == "compute"

    # Decode: B = 16 tokens; each request reads p + (d−1)/2 = 575.5 cached tokens and writes one;
    # its query attends those 575.5 keys: 4·32·128·575.5·16·32 FLOPs.
    f_dec = 2 * (P - V * D) * 16 + 4 * H * HD * 575.5 * 16 * L
    assert dec["tokens"] == 16
    assert dec["t_compute"] == pytest.approx(f_dec / PEAK, rel=1e-12)   # ≈ 0.219 ms
    kv_read = 16 * (512 + 127 / 2) * kv_tok                                   # 4.83e9 B
    kv_write = 16 * kv_tok
    assert dec["kv_read_bytes"] == pytest.approx(kv_read, rel=1e-12)
    assert dec["t_mem_refined"] == pytest.approx((weights + kv_read + kv_write) / BW, rel=1e-12)
    assert dec["t_mem_refined"] == pytest.approx(5.4665e-3, rel=1e-4)  # 18.31 GB / 3.35 TB/s
    assert dec["bound"] == "memory"
    t_dec_lo = (weights + kv_read + kv_write) / BW
    t_dec_hi = t_dec_lo + f_dec / PEAK
    assert dec["t_step_lower"] == pytest.approx(t_dec_lo, rel=1e-12)
    assert dec["t_step_upper"] == pytest.approx(t_dec_hi, rel=1e-12)

    # Serving: one prefill step then d = 128 decode steps for the 16 requests.
    cyc_lo = f_pre / PEAK + d * t_dec_lo                                      # ≈ 0.8102 s
    total_max = B * (p + d) / cyc_lo                                          # ≈ 12.6k tokens/s
    sv = s["serving"]
    assert sv["cycle_time_lower"] == pytest.approx(cyc_lo, rel=1e-12)
    assert sv["throughput_total_max"] == pytest.approx(total_max, rel=1e-12)
    assert sv["throughput_total_max"] == pytest.approx(12_638, rel=1e-3)
    assert sv["throughput_per_request_max"] == pytest.approx(total_max / (p + d), rel=1e-12)
    assert sv["throughput_decode_max"] == pytest.approx(total_max * d / (p + d), rel=1e-12)
    cyc_hi = (ref + f_pre / PEAK) + d * t_dec_hi
    assert sv["throughput_total_min"] == pytest.approx(B * (p + d) / cyc_hi, rel=1e-12)
    assert sv["tpot_lower"] == pytest.approx(t_dec_lo, rel=1e-12)


def test_llama2_7b_memory_and_largest_batch_by_hand(h100):
    s = llm.llm_summary(op(), h100)
    weights, kv_tok = 2 * P, 524_288
    act_tok = 2 * (2 * D + 2 * F)          # residual in + out, gate + up projections, 2 B each
    logits = 2 * V                         # one row of logits per request
    kv = 16 * (512 + 128) * kv_tok         # 5.37e9 B reserved for the full context
    pre_act = 16 * (512 * act_tok + logits)
    m = s["phases"]["prefill"]["memory"]
    assert m["kv_cache"] == kv and m["activations"] == pre_act
    assert m["total"] == weights + kv + pre_act
    assert m["fits"]
    per_req = 640 * kv_tok + 512 * act_tok + logits       # 366,541,312 B per request in prefill
    assert m["max_batch"] == math.floor((CAP - weights) / per_req) == 181
    per_req_dec = 640 * kv_tok + act_tok + logits
    assert s["phases"]["decode"]["memory"]["max_batch"] == math.floor((CAP - weights) / per_req_dec) == 198
    assert s["memory"]["max_batch"] == 181
    # The wall: 181 requests fit, 182 do not.
    assert llm.llm_summary(op(B=181), h100)["memory"]["fits"]
    past = llm.llm_summary(op(B=182), h100)
    assert not past["memory"]["fits"] and not past["phases"]["prefill"]["memory"]["fits"]
    assert past["phases"]["decode"]["memory"]["fits"]
    assert any("does not fit" in n for n in past["notes"])


def test_note_t_mem_is_selected_by_param(h100):
    s = llm.llm_summary(op(t_mem="note"), h100)
    dec = s["phases"]["decode"]
    assert s["t_mem_model"] == dec["t_mem_model"] == "note"
    assert dec["t_mem"] == dec["t_mem_note"] == pytest.approx(CAP / BW)
    assert dec["t_step_lower"] == pytest.approx(CAP / BW)
    assert any(line.startswith("t_mem shown: note") for line in working(s, op(t_mem="note")))
    # The roofline point stays the bytes actually moved.
    a = analyze("llm", {"B": 16, "p": 512, "d": 128}, h100, dtypes=BF16, params={"model": "llama-2-7b",
                                                                                 "t_mem": "note"},
                phase="decode")
    assert float(a.result.hbm_bytes) == pytest.approx(dec["hbm_bytes_refined"])


def test_working_shows_every_term_with_numbers(h100):
    lines = working(llm.llm_summary(op(n=2), h100), op(n=2))
    text = "\n".join(lines)
    for needle in ("t_compute = ", "t_mem (note) = GPU_mem / MemBW = 80 GB / 3.35 TB/s = 23.9 ms",
                   "t_mem (refined) = ", "t_network (ring) = 2·L all-reduces × 2(n−1)/n·B_dense·D·S_a / NetBW = ",
                   "attention (QKᵀ, AV) 4·heads·head_dim·context·B_dense·L/n", "one-way per-chip link bandwidth",
                   "t_step lower = max(", "t_step upper = ", "Throughput_total = B·(p+d) / cycle",
                   "Per-request = Throughput_total / (p+d)", "Decode = d·Throughput_total / (p+d)",
                   "Largest batch that fits", "KV cache per token = 2·L·n_kv·head_dim·S_kv = 2 · 32 · 32 · 128 · 2",
                   "huggingface.co/meta-llama/Llama-2-7b-hf"):
        assert needle in text, needle


# -- tensor parallelism, network, dtypes --------------------------------------------------

def test_tensor_parallel_conventions(h100):
    one = llm.llm_summary(op("llama-3-70b", B=64, p=1024, d=256), h100)
    eight = llm.llm_summary(op("llama-3-70b", B=64, p=1024, d=256, n=8), h100)
    cfg = llm.get_preset("llama-3-70b")
    assert eight["weight_bytes_per_chip"] == pytest.approx(one["weight_bytes_per_chip"] / 8)
    assert eight["phases"]["decode"]["flops"] == pytest.approx(one["phases"]["decode"]["flops"] / 8)
    assert eight["kv_heads_per_chip"] == 1 and one["kv_heads_per_chip"] == 8
    # The default network: 2 ring all-reduces per layer, each 2(n−1)/n of B_dense·D·S bytes per chip.
    ring = 2 * cfg.layers * (2 * 7 / 8) * 64 * cfg.hidden_size * 2
    assert eight["phases"]["decode"]["net_bytes"] == pytest.approx(ring, rel=1e-12)
    assert eight["phases"]["decode"]["t_network"] == pytest.approx(ring / 450e9)
    assert eight["phases"]["prefill"]["net_bytes"] == pytest.approx(ring * 1024, rel=1e-12)
    # The note's upper bound: 4 AllGathers per layer, n − 1 hops of B_dense·D·S bytes each.
    net = 4 * 7 * 64 * cfg.hidden_size * 2 * cfg.layers
    note = llm.llm_summary(op("llama-3-70b", B=64, p=1024, d=256, n=8, t_net="note"), h100)
    assert note["phases"]["decode"]["net_bytes"] == pytest.approx(net, rel=1e-12)
    assert note["t_net_model"] == "note" and eight["t_net_model"] == "ring"
    # 16 chips: the 8 KV heads are replicated, one per chip.
    sixteen = llm.llm_summary(op("llama-3-70b", B=64, p=1024, d=256, n=16), h100)
    assert sixteen["kv_heads_per_chip"] == 1
    assert any("replica" in n for n in sixteen["notes"])
    uneven = llm.llm_summary(op("llama-3-70b", n=3), h100)
    assert uneven["kv_heads_per_chip"] == 3


def test_dtypes_are_separate(h100):
    s = llm.llm_summary(op("llama-3-8b", dtypes={"w": "int8", "x": "bf16", "kv": "fp8", "compute": "bf16"}), h100)
    cfg = llm.get_preset("llama-3-8b")
    assert s["weight_bytes_per_chip"] == cfg.params_total * 1
    assert s["kv_bytes_per_token"] == 2 * 32 * 8 * 128 * 1
    act_tok = 2 * (2 * 4096 + 2 * 14336)
    assert s["phases"]["decode"]["memory"]["activations"] == 16 * (act_tok + 2 * 128256)
    assert s["inputs"]["kv_dtype"] == "fp8_e4m3"


def test_other_ops_ignore_the_kv_role():
    dims = {"B": 256, "D": 8192, "F": 8192}
    a = op_work("matmul", dims, {"x": "bf16", "w": "bf16", "out": "bf16"})
    b = op_work("matmul", dims, {"x": "bf16", "w": "bf16", "out": "bf16", "kv": "fp8"})
    assert float(a.flops) == float(b.flops) and float(a.hbm_bytes) == float(b.hbm_bytes)


def test_mixture_of_experts_reads_the_routed_experts_and_computes_top_k(h100):
    s = llm.llm_summary(op("mixtral-8x7b"), h100)
    cfg = llm.get_preset("mixtral-8x7b")
    assert (cfg.experts, cfg.top_k) == (8, 2)
    # Memory holds every expert; FLOPs use the top-2 (plus attention, less the embedding lookup).
    assert s["weight_bytes_per_chip"] == 2 * cfg.params_total
    dec = s["phases"]["decode"]
    attn = 4 * 32 * 128 * (512 + 127 / 2) * 16 * 32
    assert dec["flops"] == pytest.approx(2 * (cfg.params_active - 32000 * 4096) * 16 + attn, rel=1e-12)
    # 16 tokens, each to 2 of 8 experts: 8·(1 − (6/8)^16) = 7.92 distinct experts per layer.
    assert dec["experts_read"] == pytest.approx(8 * (1 - 0.75 ** 16), rel=1e-12)
    w_exp = 3 * 4096 * 14336 * 2 * 32                  # one expert in every layer, bf16
    assert dec["weight_bytes"] == pytest.approx(2 * cfg.params_total - (8 - dec["experts_read"]) * w_exp,
                                                rel=1e-12)
    assert any("mixture of experts" in n for n in s["notes"])


# -- presets ----------------------------------------------------------------------------------

def test_presets_are_all_there_and_cited():
    ids = llm.model_ids()
    for want in ("llama-2-7b", "llama-2-13b", "llama-2-70b", "llama-3-8b", "llama-3-70b", "llama-3.1-405b",
                 "mixtral-8x7b", "custom"):
        assert want in ids
    for cfg in llm.presets().values():
        for key in (cfg.source, cfg.paper, cfg.params_source):
            assert key in cfg.citations and cfg.citations[key].strip()
        assert "huggingface.co" in cfg.citations[cfg.source] and "config.json" in cfg.citations[cfg.source]


@pytest.mark.parametrize("mid, published_billions", [
    ("llama-2-7b", 6.74), ("llama-2-13b", 13.02), ("llama-2-70b", 68.98), ("llama-3-8b", 8.03),
    ("llama-3-70b", 70.55), ("llama-3.1-405b", 405.85), ("mixtral-8x7b", 46.70)])
def test_preset_parameter_counts_follow_from_the_config(mid, published_billions):
    cfg = llm.get_preset(mid)
    total, active = llm.architecture_params(cfg.hidden_size, cfg.layers, cfg.heads, cfg.kv_heads, cfg.head_dim,
                                            cfg.ffn_size, cfg.vocab_size, cfg.experts, cfg.top_k)
    assert (cfg.params_total, cfg.params_active) == (total, active)
    assert cfg.params_total / 1e9 == pytest.approx(published_billions, abs=0.006)


def test_mixtral_active_matches_the_published_12_9b():
    assert llm.get_preset("mixtral-8x7b").params_active / 1e9 == pytest.approx(12.9, abs=0.05)


def test_preset_lookup_ignores_case_and_punctuation():
    assert llm.get_preset("Llama_3.1_405B").id == "llama-3.1-405b"
    with pytest.raises(ModelError, match="unknown model 'gpt-9'"):
        llm.get_preset("gpt-9")


def test_custom_model_and_its_checks(h100):
    arch = dict(hidden_size=4096, layers=32, heads=32, kv_heads=8, ffn_size=14336, vocab_size=128256)
    cfg = llm.resolve_model({"model": "custom", **arch})
    assert cfg.params_total == llm.get_preset("llama-3-8b").params_total
    s = llm.llm_summary(op("custom", **arch), h100)
    ref = llm.llm_summary(op("llama-3-8b"), h100)
    assert s["serving"] == ref["serving"]
    for bad, field in ((dict(arch, kv_heads=5), "kv_heads"), (dict(arch, top_k=2), "top_k"),
                       (dict(arch, layers=0), "layers"), (dict(arch, layers=2.5), "layers"),
                       (dict(arch, hidden_size=float("nan")), "hidden_size"),
                       (dict(arch, params_active=10**12), "params_active"),
                       ({k: v for k, v in arch.items() if k != "vocab_size"}, "vocab_size")):
        with pytest.raises(ModelError) as e:
            llm.resolve_model({"model": "custom", **bad})
        assert e.value.field == field


def test_a_preset_refuses_changed_fields_but_accepts_its_own():
    assert llm.resolve_model({"model": "llama-3-8b", "layers": 32}).id == "llama-3-8b"
    with pytest.raises(ModelError, match="choose model 'custom'"):
        llm.resolve_model({"model": "llama-3-8b", "layers": 33})
    with pytest.raises(ModelError, match="unknown parameter 'layer'"):
        llm.resolve_model({"model": "llama-3-8b", "layer": 33})
    with pytest.raises(ModelError, match="'refined' or 'note'"):
        llm.t_mem_model({"t_mem": "both"})


def test_preset_file_errors_name_the_key():
    good = ('format = 1\n[sources]\nS = "a source"\n[models.m]\nname = "M"\nsource = "S"\npaper = "S"\n'
            'params_source = "S"\nhidden_size = 64\nlayers = 2\nheads = 4\nkv_heads = 2\nffn_size = 128\n'
            'vocab_size = 100\nexperts = 1\ntop_k = 1\nparams_total = 1000\nparams_active = 1000\n')
    assert llm.parse_model_toml(good, "x.toml")["m"].hidden_size == 64
    with pytest.raises(SpecError, match="models.m.paper"):
        llm.parse_model_toml(good.replace('paper = "S"', 'paper = "T"'), "x.toml")
    with pytest.raises(SpecError, match="models.m.params_active"):
        llm.parse_model_toml(good.replace("params_active = 1000\n", ""), "x.toml")
    with pytest.raises(SpecError, match="models.m.ffn_size"):
        llm.parse_model_toml(good.replace("ffn_size = 128", "ffn_size = -1"), "x.toml")
    with pytest.raises(SpecError, match="not valid TOML"):
        llm.parse_model_toml("[[", "x.toml")


# -- the op kind, the roofline and scenarios ----------------------------------------------------

def test_registered_with_two_phases():
    k = OP_KINDS["llm"]
    assert k.phases == ("prefill", "decode") and k.dim_names() == ("B", "p", "d")
    assert "kv" in k.dtype_roles and k.shard_axes == ("tp",)


@pytest.mark.parametrize("model, n", [("llama-2-7b", 1), ("llama-3-70b", 4), ("mixtral-8x7b", 2),
                                      ("llama-3.1-405b", 8)])
def test_critical_batch_agrees_with_the_generic_roofline(model, n, catalog):
    chip = catalog.get("h200")
    o = op(model, B=32, p=2048, d=512, n=n, t_net="ring")
    s = llm.llm_summary(o, chip)
    for ph in llm.PHASES:
        a = analyze("llm", o.full_dims(), chip, dtypes=o.dtypes, shard=o.shard_obj(), params=o.params, phase=ph)
        mine, theirs = s["phases"][ph]["critical_batch"], a.critical["B"]
        assert (mine is None) == (theirs is None), (ph, mine, theirs)
        if mine is not None:
            assert mine == pytest.approx(theirs, rel=1e-6)
        r = s["phases"][ph]
        assert float(a.result.flops) == pytest.approx(r["flops"])
        assert float(a.result.t_lower) == pytest.approx(r["t_step_lower"])  # refined t_mem: same max


def test_prefill_critical_tokens_is_the_ridge(h100):
    # One chip, Llama-3 8B: compute-bound once FLOPs/peak ≥ (weights + 2·B·p·kv)/BW, with
    # FLOPs per token 2·(P − V·D) + attention 4·32·128·(p + 1)/2·32 (KV written and read once).
    s = llm.llm_summary(op("llama-3-8b", p=1000), h100)
    cfg = llm.get_preset("llama-3-8b")
    kv_tok = 2 * 32 * 8 * 128 * 2
    f_tok = 2 * (cfg.params_active - 128256 * 4096) + 4 * 32 * 128 * 500.5 * 32
    tokens = (2 * cfg.params_total / BW) / (f_tok / PEAK - 2 * kv_tok / BW)
    assert s["phases"]["prefill"]["critical_tokens"] == pytest.approx(tokens, rel=1e-9)
    assert s["phases"]["prefill"]["critical_batch"] == pytest.approx(tokens / 1000, rel=1e-9)


def test_scenario_gives_two_points_per_chip(catalog):
    sc = Scenario(ops=[op("llama-3-8b", n=2)], chips=["h100-sxm", "b200"])
    sc = Scenario.from_json(sc.to_json())
    ev = evaluate_scenario(sc, catalog)
    assert not ev.errors
    assert [(e.chip_id, e.phase) for e in ev.entries] == [
        ("h100-sxm", "prefill"), ("h100-sxm", "decode"), ("b200", "prefill"), ("b200", "decode")]
    curves, errors = sweep_scenario(sc, catalog, np.geomspace(1, 4096, 50))
    assert not errors and len(curves) == 4
    assert all(np.all(np.isfinite(c.result.t_lower)) for c in curves)


def test_sweep_matches_the_summary_and_finds_the_wall(h100):
    o = op("llama-2-13b", p=2048, d=512)
    batch = np.arange(1, 400, dtype=float)
    sw = llm.llm_sweep(o, h100, batch)
    wall = sw["max_batch"]
    assert wall == llm.llm_summary(o, h100)["memory"]["max_batch"]
    assert np.array_equal(sw["fits"], batch <= wall)
    for b in (1, 7, 100):
        s = llm.llm_summary(op("llama-2-13b", B=b, p=2048, d=512), h100)
        i = b - 1
        assert sw["throughput_total_max"][i] == pytest.approx(s["serving"]["throughput_total_max"])
        assert sw["tpot_upper"][i] == pytest.approx(s["serving"]["tpot_upper"])
    assert np.all(np.diff(sw["throughput_total_max"]) >= -1e-9 * sw["throughput_total_max"][1:])


def test_summary_refuses_arrays_and_bad_dims(h100):
    with pytest.raises(ModelError):
        llm.llm_summary(op(B=np.array([1.0, 2.0])), h100)
    with pytest.raises(ModelError):
        llm.llm_summary(op(B=0), h100)
    with pytest.raises(ModelError):
        llm.llm_sweep(op(), h100, np.array([1.0, np.nan]))
    with pytest.raises(ModelError, match="no 'ici' link"):
        llm.llm_summary(op(n=2, link="ici"), h100)


# -- properties -------------------------------------------------------------------------------

MODELS = st.sampled_from(["llama-2-7b", "llama-2-70b", "llama-3-8b", "llama-3-70b", "llama-3.1-405b",
                          "mixtral-8x7b"])
DT = st.sampled_from(["bf16", "fp8", "int8", "int4", "fp32"])
PROPS = hsettings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
CHIP = make_chip("prop", "Prop chip", peak=1e15, hbm_bandwidth=3e12, hbm_capacity=192e9,
                 links={"nvlink": 450e9}, matrix={"fp8": 2e15, "int8": 2e15, "int4": 4e15}, vector={"fp32": 6e13})


def _ops(draw_model, B, p, d, n, w, kv, t_mem, t_net):
    return op(draw_model, B=B, p=p, d=d, n=n, dtypes={"w": w, "x": "bf16", "kv": kv, "compute": "bf16"},
              t_mem=t_mem, t_net=t_net)


inputs = dict(model=MODELS, B=st.integers(1, 100_000), p=st.integers(1, 200_000), d=st.integers(1, 100_000),
              n=st.integers(1, 64), w=DT, kv=DT, t_mem=st.sampled_from(llm.T_MEM_MODELS),
              t_net=st.sampled_from(llm.T_NET_MODELS))


@PROPS
@given(**inputs)
def test_doubling_the_link_never_slows_a_step(model, B, p, d, n, w, kv, t_mem, t_net):
    o = _ops(model, B, p, d, n, w, kv, t_mem, t_net)
    base = llm.llm_summary(o, CHIP)
    fast = llm.llm_summary(o, CHIP, Settings(link=2.0))
    for ph in llm.PHASES:
        for k in ("t_step_lower", "t_step_upper"):
            assert fast["phases"][ph][k] <= base["phases"][ph][k]
    assert fast["serving"]["throughput_total_max"] >= base["serving"]["throughput_total_max"]
    if n > 1:
        assert fast["phases"]["decode"]["t_network"] == pytest.approx(base["phases"]["decode"]["t_network"] / 2)


@PROPS
@given(**inputs)
def test_adding_chips_never_lowers_the_capacity(model, B, p, d, n, w, kv, t_mem, t_net):
    a = llm.llm_summary(_ops(model, B, p, d, n, w, kv, t_mem, t_net), CHIP)
    b = llm.llm_summary(_ops(model, B, p, d, n + 1, w, kv, t_mem, t_net), CHIP)
    assert b["memory"]["max_batch"] >= a["memory"]["max_batch"]
    for ph in llm.PHASES:
        assert b["phases"][ph]["memory"]["max_batch"] >= a["phases"][ph]["memory"]["max_batch"]
        assert b["phases"][ph]["memory"]["total"] <= a["phases"][ph]["memory"]["total"]
        assert b["phases"][ph]["memory"]["fits"] >= a["phases"][ph]["memory"]["fits"]


@PROPS
@given(**inputs)
def test_past_the_capacity_wall_does_not_fit(model, B, p, d, n, w, kv, t_mem, t_net):
    s = llm.llm_summary(_ops(model, B, p, d, n, w, kv, t_mem, t_net), CHIP)
    wall = s["memory"]["max_batch"]
    assert s["memory"]["fits"] == (B <= wall)
    past = llm.llm_summary(_ops(model, wall + 1, p, d, n, w, kv, t_mem, t_net), CHIP)
    assert not past["memory"]["fits"]
    if wall >= 1:
        assert llm.llm_summary(_ops(model, wall, p, d, n, w, kv, t_mem, t_net), CHIP)["memory"]["fits"]


@PROPS
@given(**inputs)
def test_no_nan_or_inf_for_valid_input(model, B, p, d, n, w, kv, t_mem, t_net):
    s = llm.llm_summary(_ops(model, B, p, d, n, w, kv, t_mem, t_net), CHIP)
    json.dumps(s, allow_nan=False)  # raises on NaN or inf

    def walk(x, path=""):
        if isinstance(x, dict):
            for k, v in x.items():
                walk(v, f"{path}.{k}")
        elif isinstance(x, list):
            for v in x:
                walk(v, path)
        elif x is None:
            assert path.endswith(("critical_batch", "critical_tokens", "link_bandwidth", "link")), path
        elif isinstance(x, float):
            assert math.isfinite(x) and x >= 0, path
    walk(s)
    sw = llm.llm_sweep(_ops(model, B, p, d, n, w, kv, t_mem, t_net), CHIP, np.geomspace(1, 1e9, 64))
    for k, v in sw.items():
        if isinstance(v, np.ndarray) and v.dtype.kind == "f":
            assert np.all(np.isfinite(v)) and np.all(v > 0), k


@PROPS
@given(**inputs)
def test_refined_t_mem_never_exceeds_the_notes_when_the_batch_fits(model, B, p, d, n, w, kv, t_mem, t_net):
    # The note reads the whole HBM once per step. When the batch fits, the refined traffic
    # reads each resident byte at most once, plus what the step writes: the KV cache a
    # prefill writes is then read once more by its fused attention.
    s = llm.llm_summary(_ops(model, B, p, d, n, w, kv, t_mem, t_net), CHIP)
    for ph in llm.PHASES:
        r = s["phases"][ph]
        assert r["t_step_lower"] <= r["t_step_upper"] <= 3 * r["t_step_lower"] * (1 + 1e-12)
        if r["memory"]["fits"]:
            written = r["kv_write_bytes"] / r["hbm_bytes_refined"] * r["t_mem_refined"]
            assert r["t_mem_refined"] <= (r["t_mem_note"] + written) * (1 + 1e-12)


# -- the window's sweep view: several chips at once, and what it draws ----------------------

def test_sweep_many_matches_llm_sweep_per_chip_and_adds_the_walls(catalog):
    o = op("llama-3-70b", B=64, p=1024, d=256, n=8, link="nvlink")
    chips = [catalog.get("h100-sxm"), catalog.get("h200")]
    b = np.geomspace(1, 4096, 50)
    recs, errors = llm.llm_sweep_many(o, chips, b, include=[64.0])
    assert errors == [] and [r["chip"].id for r in recs] == ["h100-sxm", "h200"]
    walls = [llm.llm_sweep(o, c, 1.0)["max_batch"] for c in chips]  # 619 and 1225
    for r, chip, wall in zip(recs, chips, walls):
        assert r["max_batch"] == wall
        assert {float(wall), 64.0} <= set(r["batch"].tolist())  # exact points at the wall and B
        assert set(b.tolist()) <= set(r["batch"].tolist())
        one = llm.llm_sweep(o, chip, r["batch"])
        for k in ("throughput_total_max", "throughput_total_min", "tpot_lower", "tpot_upper",
                  "ttft_lower", "memory_per_chip", "fits"):
            np.testing.assert_array_equal(r[k], one[k], err_msg=k)
        at = r["batch"] == wall
        assert r["fits"][at].all() and not r["fits"][r["batch"] > wall].any()


def test_sweep_many_reports_a_chip_without_the_link_and_times_the_others(catalog):
    o = op("llama-3-70b", n=8, link="nvlink")
    recs, errors = llm.llm_sweep_many(o, [catalog.get("mi300x"), catalog.get("h100-sxm")],
                                      np.geomspace(1, 100, 5))
    assert [r["chip"].id for r in recs] == ["h100-sxm"]
    assert len(errors) == 1 and "MI300X" in errors[0] and "nvlink" in errors[0]


def _scenario(*ops, chips=("h100-sxm", "h200"), y="throughput", selected=0):
    sc = Scenario(title="t", ops=list(ops), chips=list(chips), selected=selected)
    sc.sweep.y = y
    sc.sweep.start, sc.sweep.stop, sc.sweep.points = 1.0, 4096.0, 100
    return sc


def test_sweep_scenario_shows_the_selected_llm_op_else_the_first(catalog):
    mm = OpSpec("mm", "matmul", {"B": 8, "D": 64, "F": 64})
    a, b = op("llama-2-7b"), op("llama-3-8b")
    assert llm.llm_sweep_scenario(_scenario(mm, a, b, selected=2), catalog).op_index == 2
    assert llm.llm_sweep_scenario(_scenario(mm, a, b, selected=0), catalog).op_index == 1
    none = llm.llm_sweep_scenario(_scenario(mm), catalog)
    assert none.op_index is None and "No LLM step" in none.message
    nochip = llm.llm_sweep_scenario(_scenario(a, chips=()), catalog)
    assert nochip.op_index is None and "No chip" in nochip.message
    g = llm_geometry.llm_sweep_geometry(none)
    assert g.lines == () and g.message == none.message


def test_sweep_batches_use_the_sweep_range_only_when_it_sweeps_b():
    sc = _scenario()
    sc.sweep.start, sc.sweep.stop, sc.sweep.points = 2.0, 300.0, 7
    np.testing.assert_allclose(llm.sweep_batches(sc.sweep), np.geomspace(2, 300, 7))
    sc.sweep.dim = "p"
    np.testing.assert_allclose(llm.sweep_batches(sc.sweep), np.geomspace(*llm.SWEEP_DEFAULT_RANGE, 7))


@pytest.mark.parametrize("view", llm.SWEEP_VIEWS)
def test_sweep_geometry_splits_each_chip_at_its_wall(catalog, view):
    o = op("llama-3-70b", B=64, p=1024, d=256, n=8, link="nvlink")
    res = llm.llm_sweep_scenario(_scenario(o, y=view), catalog)
    g = llm_geometry.llm_sweep_geometry(res, {"h100-sxm": 3})
    assert g.view == view and g.y_kind == ("rate" if view == "throughput" else "time")
    assert [ln.chip_id for ln in g.lines] == ["h100-sxm", "h200"]
    assert g.lines[0].colour == 3 and g.lines[1].colour != 3  # kept from the roofline
    assert g.batch_x == pytest.approx(math.log10(64))
    for ln, r in zip(g.lines, res.chips):
        wall = math.log10(r["max_batch"])
        assert ln.wall_x == pytest.approx(wall)
        assert ln.x_fit.max() == pytest.approx(wall) and ln.x_unfit.min() == pytest.approx(wall)
        assert ln.x_unfit.max() == pytest.approx(math.log10(4096))
        # the solid curve is the perfect-overlap bound: more throughput, less latency
        if view == "throughput":
            assert np.all(ln.hi_fit >= ln.lo_fit)
        else:
            assert np.all(ln.hi_fit <= ln.lo_fit)
        assert f"B > {format_number(r['max_batch'])}" in ln.wall_label
        assert format_si(r["capacity"], "B") in ln.wall_label
        assert ln.marker is not None and ln.marker[0] == pytest.approx(math.log10(64))
    x0, x1, y0, y1 = g.fit
    ys = np.concatenate([np.r_[ln.hi_fit, ln.lo_fit, ln.hi_unfit, ln.lo_unfit] for ln in g.lines])
    assert y0 < ys.min() and ys.max() < y1 and x0 < 0 and x1 > math.log10(4096)


def test_sweep_geometry_when_nothing_fits_or_everything_does(catalog):
    small = make_chip("tiny", "Tiny", peak=1e14, hbm_bandwidth=1e12, hbm_capacity=10e9)  # 10 GB: Llama-2 7B's weights do not fit
    o = op("llama-2-7b")
    recs, _ = llm.llm_sweep_many(o, [small, catalog.get("mi300x")], np.geomspace(1, 100, 20))
    res = llm.LlmSweepResult("throughput", 0, o, recs[0]["batch"], tuple(recs))
    tiny, big = llm_geometry.llm_sweep_geometry(res).lines
    assert tiny.max_batch == 0 and tiny.wall_x is None and tiny.x_fit.size == 0
    assert tiny.x_unfit.size == recs[0]["batch"].size and "no batch fits" in tiny.wall_label
    assert big.max_batch > 100 and big.x_unfit.size == 0 and big.x_fit.size == recs[1]["batch"].size


def test_fp8_kv_cache_moves_the_wall_right(catalog):
    chips = [catalog.get("h100-sxm")]
    b = np.geomspace(1, 4096, 10)
    bf16, _ = llm.llm_sweep_many(op("llama-3-70b", n=8), chips, b)
    fp8, _ = llm.llm_sweep_many(op("llama-3-70b", n=8, dtypes={**BF16, "kv": "fp8"}), chips, b)
    assert fp8[0]["max_batch"] > bf16[0]["max_batch"]


def test_scenario_files_keep_the_llm_sweep_views():
    for y in ("flops", "time", "throughput", "latency"):
        sc = _scenario(op(), y=y)
        assert Scenario.from_json(sc.to_json()).sweep.y == y
    bad = json.loads(_scenario(op()).to_json())
    bad["sweep"]["y"] = "tokens"
    with pytest.raises(ModelError, match="'throughput' or 'latency'"):
        Scenario.from_dict(bad)


def test_sweep_table_holds_every_chips_numbers(catalog):
    o = op("llama-3-70b", B=64, p=1024, d=256, n=8, link="scale-up")
    res = llm.llm_sweep_scenario(_scenario(o, chips=("h100-sxm", "mi300x")), catalog)
    header, data = llm_geometry.llm_sweep_table(res)
    assert header[0] == "B" and len(header) == 1 + 2 * len(llm_geometry.SWEEP_TABLE_FIELDS)
    assert data.shape == (res.batch.size, len(header))
    np.testing.assert_array_equal(data[:, 0], res.batch)
    for r in res.chips:
        name = r["chip"].label()
        for k in ("throughput_total_max", "tpot_upper", "fits"):
            np.testing.assert_array_equal(data[:, header.index(f"{name}: {k}")], r[k])
    from roofgui.export.csv import table_csv
    text = table_csv(res_scenario := _scenario(o, chips=("h100-sxm", "mi300x")), catalog, "sweep")
    first = text.splitlines()[0].split(",")
    assert first == header and len(text.splitlines()) == res.batch.size + 1
    res_scenario.sweep.y = "flops"
    assert "attainable_flops" in table_csv(res_scenario, catalog, "sweep").splitlines()[0]


def test_summary_names_each_chips_own_scale_up_link(catalog):
    # sharded over "scale-up": the summary and its working name the link each chip actually uses
    o = op("llama-3-70b", B=64, p=1024, d=256, n=8, link="scale-up")
    for chip, name in (("h100-sxm", "nvlink"), ("mi300x", "xgmi")):
        s = llm.llm_summary(o, catalog.get(chip))
        assert s["inputs"]["link"] == name
        (line,) = [ln for ln in working(s, o) if ln.startswith("Inputs:")]
        assert f"over {name} (" in line and "scale-up" not in line
