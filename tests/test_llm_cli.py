"""``roofgui analyze --op llm``: JSON and table output, and the bad-input rules (exit 2, one line)."""

from __future__ import annotations

import io
import json

import pytest

from roofgui import cli
from roofgui.model import llm
from roofgui.model.catalog import Catalog
from roofgui.model.scenario import OpSpec, Scenario, ShardSpec

BASE = ["analyze", "--op", "llm", "--model", "llama-3-70b", "--chip", "h100-sxm", "--chips-count", "8",
        "--link", "nvlink", "--batch", "64", "--prefill", "1024", "--decode", "256"]


def run(argv, capsys):
    out = io.StringIO()
    code = cli.main(list(argv), out=out)
    err = capsys.readouterr().err
    return code, out.getvalue(), err


def test_json_records_per_chip_and_phase(capsys):
    code, out, err = run(BASE + ["--chip", "b200", "--w-dtype", "int8", "--kv-dtype", "fp8", "--json"], capsys)
    assert code == 0, err
    recs = json.loads(out)
    assert [(r["chip"], r["phase"]) for r in recs] == [
        ("h100-sxm", "prefill"), ("h100-sxm", "decode"), ("b200", "prefill"), ("b200", "decode")]
    r = recs[1]
    # the usual roofline fields ...
    for k in ("flops", "hbm_bytes", "net_bytes", "intensity", "t_math", "t_hbm", "t_net", "t_lower", "t_upper",
              "bound", "critical", "peak_flops", "link_bandwidth"):
        assert k in r
    # ... and the LLM ones
    assert r["model"] == "llama-3-70b" and r["chips"] == 8
    assert (r["w_dtype"], r["kv_dtype"], r["act_dtype"], r["compute_dtype"]) == ("int8", "fp8_e4m3", "bf16", "bf16")
    assert r["t_mem_model"] == "refined" and r["t_mem"] == r["t_mem_refined"]
    assert r["tokens_per_step"] == 64 and recs[0]["tokens_per_step"] == 64 * 1024
    assert r["kv_bytes_per_token"] == 2 * 80 * 8 * 128 * 1
    assert r["weights_bytes_per_chip"] == llm.get_preset("llama-3-70b").params_total / 8
    assert r["fits"] is True and r["max_batch"] >= 64
    assert r["t_step_lower"] <= r["t_step_upper"]
    assert r["throughput_total_min"] <= r["throughput_total_max"]
    assert r["throughput_decode_max"] == pytest.approx(r["throughput_total_max"] * 256 / 1280)


def test_json_matches_the_model_summary(capsys):
    code, out, _ = run(BASE + ["--json"], capsys)
    recs = json.loads(out)
    chip = Catalog.load(user_dir=False).get("h100-sxm")
    o = OpSpec("x", "llm", {"B": 64, "p": 1024, "d": 256}, {"w": "bf16", "x": "bf16", "kv": "bf16",
                                                            "compute": "bf16"},
               ShardSpec("tp", 8, "nvlink"), {"model": "llama-3-70b"})
    s = llm.llm_summary(o, chip)
    for rec in recs:
        ph = s["phases"][rec["phase"]]
        assert rec["t_compute"] == pytest.approx(ph["t_compute"])
        assert rec["t_network"] == pytest.approx(ph["t_network"])
        assert rec["max_batch"] == ph["memory"]["max_batch"]
        assert rec["throughput_total_max"] == pytest.approx(s["serving"]["throughput_total_max"])


def test_t_mem_note_and_note_network_flags(capsys):
    _, out, _ = run(BASE + ["--t-mem", "note", "--t-net", "note", "--json"], capsys)
    r = json.loads(out)[1]
    assert r["t_mem_model"] == "note" and r["t_mem"] == pytest.approx(80e9 / 3.35e12)
    assert r["t_net_model"] == "note"
    _, out2, _ = run(BASE + ["--json"], capsys)
    assert json.loads(out2)[1]["t_net_model"] == "ring"                   # the default
    assert r["t_network"] == pytest.approx(json.loads(out2)[1]["t_network"] * 8)


def test_llama3_70b_prefill_verdict_both_ways(capsys):
    args = ["analyze", "--op", "llm", "--model", "llama-3-70b", "--chip", "h100-sxm", "--chips-count", "8",
            "--link", "nvlink", "--batch", "64", "--prefill", "1024", "--decode", "256", "--json"]
    _, out, _ = run(args, capsys)
    pre = json.loads(out)[0]
    assert pre["phase"] == "prefill" and pre["step_bound"] == "compute"
    assert pre["t_network"] == pytest.approx(0.668, abs=0.001)
    _, out, _ = run(args + ["--t-net", "note"], capsys)
    pre = json.loads(out)[0]
    assert pre["step_bound"] == "network" and pre["t_network"] == pytest.approx(5.345, abs=0.001)


def test_what_if_link_doubling_never_slows(capsys):
    _, a, _ = run(BASE + ["--json"], capsys)
    _, b, _ = run(BASE + ["--what-if", "link=2", "--json"], capsys)
    for x, y in zip(json.loads(a), json.loads(b)):
        assert y["t_step_lower"] <= x["t_step_lower"] and y["t_step_upper"] <= x["t_step_upper"]


def test_table_and_working(capsys):
    code, out, err = run(BASE + ["--working"], capsys)
    assert code == 0, err
    assert "llama-3-70b · prefill on NVIDIA H100 SXM" in out and "llama-3-70b · decode on" in out
    for needle in ("t_mem (shown: refined)", "t_network (ring)", "Step lower (max)", "Step upper (sum)",
                   "Memory per chip", "Largest batch", "Throughput total", "Per-request", "Decode throughput",
                   "t_mem (note) = GPU_mem / MemBW = 80 GB / 3.35 TB/s", "Throughput_total = B·(p+d) / cycle"):
        assert needle in out, needle


def test_defaults_and_custom_model(capsys):
    code, out, err = run(["analyze", "--op", "llm", "--chip", "h100-sxm", "--json"], capsys)
    assert code == 0, err
    r = json.loads(out)[0]
    assert (r["model"], r["batch"], r["prefill"], r["decode"], r["chips"]) == (llm.DEFAULT_MODEL, 64, 1024, 256, 1)
    arch = "hidden_size=4096,layers=32,heads=32,kv_heads=8,ffn_size=14336,vocab_size=128256"
    code, out, err = run(["analyze", "--op", "llm", "--chip", "h100-sxm", "--model", "custom", "--arch", arch,
                          "--json"], capsys)
    assert code == 0, err
    c = json.loads(out)[0]
    assert c["model"] == "custom" and c["t_compute"] == pytest.approx(r["t_compute"])


def test_a_scenario_file_with_an_llm_op(tmp_path, capsys):
    sc = Scenario(ops=[OpSpec("serve", "llm", {"B": 8}, {}, None, {"model": "mixtral-8x7b"})], chips=["h200"])
    f = tmp_path / "s.json"
    f.write_text(sc.to_json())
    code, out, err = run(["analyze", str(f), "--json"], capsys)
    assert code == 0, err
    recs = json.loads(out)
    assert [r["phase"] for r in recs] == ["prefill", "decode"] and recs[0]["model"] == "mixtral-8x7b"


def test_list_models(capsys):
    with pytest.raises(SystemExit) as e:
        cli.main(["analyze", "--list-models"])
    assert e.value.code == 0
    out = capsys.readouterr().out
    for mid in llm.model_ids():
        assert mid in out
    assert "46.70B" in out and "12.88B" in out


@pytest.mark.parametrize("extra, needle", [
    (["--model", "llama-9"], "unknown model 'llama-9'"),
    (["--chip", "nope"], "unknown chip 'nope'"),
    (["--link", "warp"], "unknown link 'warp'"),
    (["--kv-dtype", "fp7"], "--kv-dtype: unknown dtype 'fp7'"),
    (["--w-dtype", "int3"], "--w-dtype: unknown dtype 'int3'"),
    (["--act-dtype", "x"], "--act-dtype: unknown dtype 'x'"),
    (["--batch", "0"], "--batch: must be greater than zero"),
    (["--batch", "-4"], "--batch: must be greater than zero"),
    (["--batch", "nan"], "--batch: is not a number"),
    (["--batch", "inf"], "--batch: must be finite"),
    (["--batch", "1e30"], "--batch: is too large"),
    (["--batch", "2.5"], "--batch: must be a whole number"),
    (["--batch", "lots"], "--batch:"),
    (["--prefill", "0"], "--prefill: must be greater than zero"),
    (["--prefill", "0.5"], "--prefill: must be at least 1"),
    (["--decode", "1e300"], "--decode: is too large"),
    (["--decode", "-inf"], "--decode:"),
    (["--chips-count", "0"], "--chips-count: must be greater than zero"),
    (["--chips-count", "1e12"], "--chips-count: is too large"),
    (["--link", "ici"], "has no 'ici' link"),
    (["--t-mem", "both"], "invalid choice: 'both'"),
    (["--dims", "B=4"], "the LLM step takes --batch"),
    (["--shard", "D=2"], "--chips-count N and --link"),
    (["--arch", "layers=3"], "--arch needs --model custom"),
])
def test_bad_input_exits_2_with_one_line(extra, needle, capsys):
    argv = list(BASE)
    for flag in extra[::2]:  # drop the flag from BASE when the case sets it
        if flag in argv:
            i = argv.index(flag)
            del argv[i:i + 2]
    code, out, err = run(argv + extra, capsys)
    assert code == 2
    assert out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("roofgui: error: ") and needle in lines[0], err
    assert "Traceback" not in err


@pytest.mark.parametrize("argv, needle", [
    (["--chips-count", "8"], "needs --link"),
    (["--link", "nvlink"], "--link needs --chips-count 2 or more"),
    (["--model", "custom", "--arch", "layers=3"], "hidden_size: is missing"),
    (["--model", "custom", "--arch", "hidden_size=64,layers=2,heads=4,kv_heads=3,ffn_size=8,vocab_size=9"],
     "kv_heads: must divide"),
    (["--model", "custom", "--arch", "hidden_size=64,layers=0,heads=4,kv_heads=2,ffn_size=8,vocab_size=9"],
     "layers: must be greater than zero"),
    (["--model", "custom", "--arch", "frob=1"], "--arch: unknown field 'frob'"),
    (["--out-dtype", "bf16"], "no output dtype"),
])
def test_more_bad_input(argv, needle, capsys):
    code, out, err = run(["analyze", "--op", "llm", "--chip", "h100-sxm"] + argv, capsys)
    assert code == 2 and out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1 and needle in lines[0], err
