"""The command line: ``roofgui chips`` and ``roofgui analyze``, in-process and as a real process."""

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from roofgui import cli
from roofgui.model.catalog import Catalog
from roofgui.model.ops import Shard
from roofgui.model.roofline import Settings, analyze

ROOT = Path(__file__).resolve().parents[1]

REQUIRED_KEYS = {"chip", "flops", "hbm_bytes", "net_bytes", "intensity", "peak_flops", "hbm_bandwidth",
                 "critical_intensity", "t_math", "t_hbm", "t_net", "t_lower", "t_upper", "attainable_flops",
                 "bound", "critical"}


@pytest.fixture(scope="module")
def catalog():
    return Catalog.load(user_dir=False)


def run(capsys, *argv):
    rc = cli.main(list(argv))
    cap = capsys.readouterr()
    return rc, cap.out, cap.err


def analyze_json(capsys, *argv):
    rc, out, err = run(capsys, "analyze", *argv, "--json")
    assert rc == 0, err
    assert err == ""
    return json.loads(out)


def check_record(rec, a):
    """A JSON record holds the model's own figures."""
    r = a.result
    for key in ("flops", "hbm_bytes", "net_bytes", "intensity", "peak_flops", "hbm_bandwidth",
                "critical_intensity", "t_math", "t_hbm", "t_net", "t_lower", "t_upper", "attainable_flops"):
        assert rec[key] == pytest.approx(float(getattr(r, key)), rel=1e-12), key
    assert rec["bound"] == r.bound
    assert rec["chip"] == a.chip.id
    assert set(rec["critical"]) == set(a.critical)
    for k, v in a.critical.items():
        assert (rec["critical"][k] is None) == (v is None)
        if v is not None:
            assert rec["critical"][k] == pytest.approx(v, rel=1e-12)


# --------------------------------------------------------------------------- chips

def test_chips_lists_every_id_with_headline_figures(capsys, catalog):
    rc, out, err = run(capsys, "chips")
    assert rc == 0 and err == ""
    lines = out.splitlines()
    ids = [line.split()[0] for line in lines[1:]]
    assert ids == catalog.ids()
    v5e = next(line for line in lines if line.startswith("tpu-v5e "))
    assert "197 TFLOP/s" in v5e and "820 GB/s" in v5e and " 240 " in v5e and "ici 45 GB/s" in v5e
    h100 = next(line for line in lines if line.startswith("h100-sxm "))
    assert "989 TFLOP/s" in h100 and "3.35 TB/s" in h100 and " 295 " in h100


def test_chips_json(capsys, catalog):
    rc, out, _ = run(capsys, "chips", "--json")
    rows = {r["id"]: r for r in json.loads(out)}
    assert rc == 0 and sorted(rows) == sorted(catalog.chips)
    r = rows["h100-sxm"]
    assert r["bf16_peak"] == 989.4e12 and r["hbm_bandwidth"] == 3.35e12 and r["links"]["nvlink"] == 450e9
    assert r["critical_intensity"] == pytest.approx(295.3, abs=0.1)


def test_chips_lists_user_chips_and_warns_once_per_bad_file(capsys):
    d = Path(os.environ["ROOFGUI_HOME"]) / "chips"
    d.mkdir(parents=True)
    (d / "lab.toml").write_text((ROOT / "specs" / "l4.toml").read_text().replace('id = "l4"', 'id = "lab"'))
    (d / "broken.toml").write_text("format = 1\n")
    rc, out, err = run(capsys, "chips")
    assert rc == 0
    assert any(line.startswith("lab ") for line in out.splitlines())
    assert len(err.splitlines()) == 1 and "broken.toml" in err


# --------------------------------------------------------------------------- analyze

def test_analyze_json_has_the_required_keys_and_the_models_values(capsys, catalog):
    recs = analyze_json(capsys, "--chip", "tpu-v5e", "--chip", "h100-sxm", "--chip", "mi300x",
                        "--op", "matmul", "--dims", "B=256,D=8192,F=8192")
    assert [r["chip"] for r in recs] == ["tpu-v5e", "h100-sxm", "mi300x"]
    for rec in recs:
        assert REQUIRED_KEYS <= set(rec)
        check_record(rec, analyze("matmul", {"B": 256, "D": 8192, "F": 8192}, catalog.get(rec["chip"])))
    v5e = recs[0]
    assert v5e["flops"] == 2 * 256 * 8192 * 8192
    assert v5e["hbm_bytes"] == 2 * (256 * 8192 + 8192 * 8192 + 256 * 8192)
    assert v5e["t_math"] == pytest.approx(174.4e-6, rel=1e-3)
    assert v5e["critical"]["B"] == pytest.approx(255.21, abs=0.01)


def test_analyze_table(capsys):
    rc, out, err = run(capsys, "analyze", "--chip", "tpu-v5e", "--op", "matmul", "--dims", "B=256,D=8192,F=8192")
    assert rc == 0 and err == ""
    assert out.startswith("matmul on Google TPU v5e")
    for label in ("FLOPs", "HBM bytes", "Intensity", "Peak", "HBM bandwidth", "Critical intensity", "T_math",
                  "T_hbm", "T_lower", "T_upper", "Attainable", "Bound", "Critical B"):
        assert f"  {label} " in out, label
    assert "34.4 GFLOP" in out and "174 µs" in out and "compute" in out


@pytest.mark.parametrize("op, dims", [("batched-matmul", "B=64,D=4096,F=4096"), ("dot", "N=1Mi"),
                                      ("elementwise", "N=1e6,inputs=3,flops_per_element=2.5"),
                                      ("custom", "flops=1e12,bytes=1e9")])
def test_analyze_every_op(capsys, catalog, op, dims):
    recs = analyze_json(capsys, "--chip", "h100-sxm", "--op", op, "--dims", dims)
    from roofgui.model.ops import OP_KINDS
    from roofgui.model.units import parse_quantity
    parsed = {k: parse_quantity(v) for k, v in (p.split("=") for p in dims.split(","))}
    check_record(recs[0], analyze(OP_KINDS[op], parsed, catalog.get("h100-sxm")))


def test_chip_given_as_a_path(capsys, tmp_path):
    p = tmp_path / "lab-v5e.toml"
    p.write_text((ROOT / "specs" / "tpu-v5e.toml").read_text().replace('id = "tpu-v5e"', 'id = "lab-v5e"')
                 .replace("value = 1.97e14", "value = 3.94e14", 1))
    recs = analyze_json(capsys, "--chip", str(p), "--chip", "tpu-v5e", "--op", "matmul")
    assert [r["chip"] for r in recs] == ["lab-v5e", "tpu-v5e"]
    assert recs[0]["peak_flops"] == 2 * recs[1]["peak_flops"]


def test_dtype_sets_every_role_and_the_other_flags_override_one_each(capsys):
    B, D, F = 512, 4096, 8192
    dims = f"B={B},D={D},F={F}"
    rec = analyze_json(capsys, "--chip", "tpu-v5e", "--op", "matmul", "--dims", dims, "--dtype", "int8")[0]
    assert rec["hbm_bytes"] == B * D + D * F + B * F  # 1 byte each
    assert rec["peak_flops"] == 3.94e14 and rec["peak_dtype"] == "int8"
    rec = analyze_json(capsys, "--chip", "tpu-v5e", "--op", "matmul", "--dims", dims, "--dtype", "int8",
                       "--w-dtype", "int4", "--out-dtype", "fp32", "--compute-dtype", "bf16")[0]
    assert rec["hbm_bytes"] == B * D * 1 + D * F * 0.5 + B * F * 4
    assert rec["peak_flops"] == 1.97e14
    rec = analyze_json(capsys, "--chip", "tpu-v5e", "--op", "matmul", "--dims", dims, "--x-dtype", "fp32")[0]
    assert rec["hbm_bytes"] == B * D * 4 + D * F * 2 + B * F * 2  # the rest default to bf16


@pytest.mark.parametrize("text, value", [("4096", 4096), ("4k", 4000), ("8Ki", 8192), ("1e6", 1e6),
                                         ("2**20", 2**20), ("2^10", 1024), ("1,024", 1024), ("4_096", 4096),
                                         (" 16 ", 16), ("1.5M", 1.5e6)])
def test_dimension_forms(capsys, text, value):
    rec = analyze_json(capsys, "--chip", "tpu-v5e", "--op", "matmul", "--dims", f"B={text},D=1024,F=2048")[0]
    assert rec["flops"] == 2 * value * 1024 * 2048


def test_two_chip_d_sharded_matmul_on_the_v5e_preset(capsys, catalog):
    B = D = F = 16384
    rec = analyze_json(capsys, "--chip", "tpu-v5e", "--op", "matmul", "--dims", f"B={B},D={D},F={F}",
                       "--shard", "D=2", "--link", "ici")[0]
    assert rec["critical"]["D"] == pytest.approx(8755.56, abs=0.01)  # compute-bound for D > 8755
    assert rec["net_bytes"] == 2 * B * F and rec["link"] == "ici" and rec["link_bandwidth"] == 4.5e10
    assert rec["t_net"] == pytest.approx(2 * B * F / 4.5e10)
    assert rec["t_math"] == pytest.approx(B * D * F / 1.97e14)
    check_record(rec, analyze("matmul", {"B": B, "D": D, "F": F}, catalog.get("tpu-v5e"),
                              shard=Shard("D", 2, "ici")))
    below = analyze_json(capsys, "--chip", "tpu-v5e", "--op", "matmul", "--dims", "B=16k,D=8000,F=16k",
                         "--shard", "D=2", "--link", "ici")[0]
    above = analyze_json(capsys, "--chip", "tpu-v5e", "--op", "matmul", "--dims", "B=16k,D=9000,F=16k",
                         "--shard", "D=2", "--link", "ici")[0]
    assert below["bound"] == "network" and above["bound"] == "compute"


def test_what_if_multiplies_peak_hbm_and_link(capsys, catalog):
    args = ["--chip", "tpu-v5e", "--op", "matmul", "--dims", "B=4096,D=8192,F=8192", "--shard", "D=4",
            "--link", "ici"]
    base = analyze_json(capsys, *args)[0]
    w = analyze_json(capsys, *args, "--what-if", "peak=2,hbm=0.5,link=4")[0]
    assert w["peak_flops"] == 2 * base["peak_flops"]
    assert w["hbm_bandwidth"] == 0.5 * base["hbm_bandwidth"]
    assert w["link_bandwidth"] == 4 * base["link_bandwidth"]
    assert w["t_math"] == pytest.approx(base["t_math"] / 2)
    assert w["t_hbm"] == pytest.approx(base["t_hbm"] * 2)
    assert w["t_net"] == pytest.approx(base["t_net"] / 4)
    assert w["critical_intensity"] == pytest.approx(4 * base["critical_intensity"])
    assert w["flops"] == base["flops"] and w["hbm_bytes"] == base["hbm_bytes"]
    check_record(w, analyze("matmul", {"B": 4096, "D": 8192, "F": 8192}, catalog.get("tpu-v5e"),
                            shard=Shard("D", 4, "ici"), settings=Settings(2, 0.5, 4)))
    assert "peak×2" in w["chip_name"]


def test_derate(capsys, catalog):
    rec = analyze_json(capsys, "--chip", "h100-sxm", "--op", "matmul", "--derate")[0]
    assert rec["peak_flops"] == pytest.approx(989.4e12 * catalog.get("h100-sxm").achievable.value)
    assert any("derated" in n for n in rec["notes"])


def test_peak_fallback_note_in_the_table(capsys):
    rc, out, err = run(capsys, "analyze", "--chip", "h100-sxm", "--op", "matmul", "--dtype", "int4")
    assert rc == 0 and "note:" in out and "int8" in out


def test_a_link_one_of_several_chips_lacks_is_a_warning(capsys):
    rc, out, err = run(capsys, "analyze", "--chip", "tpu-v5e", "--chip", "h100-sxm", "--op", "matmul",
                       "--shard", "D=2", "--link", "ici", "--json")
    assert rc == 0
    assert [r["chip"] for r in json.loads(out)] == ["tpu-v5e"]
    assert len(err.splitlines()) == 1 and "nvlink" in err and "ici" in err


def test_analyze_a_scenario_file(capsys, tmp_path):
    from roofgui.model.scenario import default_scenario, save_scenario
    p = tmp_path / "s.json"
    save_scenario(default_scenario(), p)
    rc, out, err = run(capsys, "analyze", str(p), "--json")
    assert rc == 0 and [r["chip"] for r in json.loads(out)] == ["tpu-v5e", "h100-sxm"]
    rc, out, err = run(capsys, "analyze", str(p), "--chip", "b200", "--json")
    assert [r["chip"] for r in json.loads(out)] == ["b200"]


def test_version(capsys):
    rc, out, _ = run(capsys, "--version")
    assert rc == 0 and out.startswith("roofgui ")


# --------------------------------------------------------------------------- bad input

MM = ["analyze", "--chip", "tpu-v5e", "--op", "matmul"]
BAD = [
    (["analyze", "--chip", "nope", "--op", "matmul"], r"unknown chip 'nope'"),
    (["analyze", "--chip", "tpu-v5e", "--op", "conv"], r"unknown op 'conv'"),
    (MM + ["--dtype", "fp9"], r"--dtype.*unknown dtype 'fp9'"),
    (MM + ["--w-dtype", "int3"], r"unknown dtype 'int3'"),
    (MM + ["--compute-dtype", ""], r"--compute-dtype: empty"),  # an empty flag is refused
    (MM + ["--shard", "D=2", "--link", "warp"], r"--link.*unknown link 'warp'"),
    (MM + ["--shard", "D=2", "--link", "nvlink"], r"no 'nvlink' link"),
    (MM + ["--dims", "B=0"], r"--dims B.*greater than zero"),
    (MM + ["--dims", "B=-5"], r"--dims B.*greater than zero"),
    (MM + ["--dims", "B=nan"], r"--dims B.*NaN"),
    (MM + ["--dims", "B=inf"], r"--dims B.*finite"),
    (MM + ["--dims", "D=1e400"], r"--dims D.*finite"),
    (MM + ["--dims", "F=2e15"], r"--dims F.*too large"),
    (MM + ["--dims", "B=2**5000"], r"--dims B.*too large"),
    (MM + ["--dims", "B="], r"--dims B.*empty"),
    (MM + ["--dims", "B=   "], r"--dims B.*empty"),
    (MM + ["--dims", "B=lots"], r"--dims B.*not a number"),
    (MM + ["--dims", "B=4 kb"], r"--dims B.*suffix"),
    (MM + ["--dims", "B=٣"], r"--dims B.*not a number"),
    (MM + ["--dims", "B=💥\n\u202e"], r"--dims B"),
    (MM + ["--dims", "B=0x10"], r"--dims B"),
    (MM + ["--dims", "B=__import__('os')"], r"--dims B.*not a number"),
    (MM + ["--dims", "N=4"], r"no dimension 'N'"),
    (MM + ["--dims", "B"], r"NAME=VALUE"),
    (MM + ["--dims", "=4"], r"missing name"),
    (MM + ["--dims", "B=1,B=2"], r"given twice"),
    (["analyze", "--chip", "tpu-v5e", "--op", "dot", "--dims", "N=0.5"], r"--dims N.*at least 1"),
    (["analyze", "--chip", "tpu-v5e", "--op", "dot", "--shard", "N=2", "--link", "ici"], r"cannot be sharded"),
    (MM + ["--shard", "X=2", "--link", "ici"], r"cannot be sharded along 'X'"),
    (MM + ["--shard", "D=0", "--link", "ici"], r"--shard N.*greater than zero"),
    (MM + ["--shard", "D=1.5", "--link", "ici"], r"whole number"),
    (MM + ["--shard", "D=2"], r"needs --link"),
    (MM + ["--link", "ici"], r"needs --shard"),
    (MM + ["--shard", "D=2,F=2", "--link", "ici"], r"one AXIS=N"),
    (MM + ["--what-if", "peak"], r"--what-if.*NAME=VALUE"),
    (MM + ["--what-if", "speed=2"], r"unknown multiplier 'speed'"),
    (MM + ["--what-if", "peak=0"], r"--what-if peak.*greater than zero"),
    (MM + ["--what-if", "hbm=-1"], r"--what-if hbm.*greater than zero"),
    (MM + ["--what-if", "link=fast"], r"--what-if link.*not a number"),
    (MM + ["--what-if", "peak=1e9"], r"--what-if peak.*too large"),
    (["analyze", "--op", "matmul"], r"--chip"),
    (["analyze", "--chip", "tpu-v5e"], r"--op"),
    (["analyze", "--chip", "/no/such/chip.toml", "--op", "matmul"], r"no chip file"),
    (["analyze", "/no/such/scenario.json"], r"cannot read"),
    (["analyze", "--chip", "tpu-v5e", "--op", "matmul", "--bogus"], r"unrecognized arguments"),
    (["frobnicate"], r"invalid choice"),
]


@pytest.mark.parametrize("argv, problem", BAD, ids=lambda v: " ".join(v)[:60]
                         if isinstance(v, list) else None)
def test_bad_input_exits_2_with_one_line(capsys, argv, problem):
    rc, out, err = run(capsys, *argv)
    if problem is None:
        assert rc == 0
        return
    assert rc == 2, (out, err)
    lines = err.splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("roofgui: error: ")
    assert "Traceback" not in err
    assert re.search(problem, lines[0]), lines[0]
    assert out == ""


def test_malformed_chip_file_on_the_command_line(capsys, tmp_path):
    p = tmp_path / "mine.toml"
    p.write_text((ROOT / "specs" / "l4.toml").read_text().replace('id = "l4"', 'id = "mine"')
                 .replace("[memory]", "[memory]\nspeed = 3"))
    rc, out, err = run(capsys, "analyze", "--chip", str(p), "--op", "matmul")
    assert rc == 2 and len(err.splitlines()) == 1
    assert "mine.toml" in err and "memory.speed" in err and "unknown key" in err


def test_unexpected_errors_are_one_line_too(capsys, monkeypatch):
    def boom(args, out):
        raise RuntimeError("something\nbroke")

    monkeypatch.setitem(cli.COMMANDS, "chips", boom)
    monkeypatch.delenv("ROOFGUI_DEBUG", raising=False)
    rc, out, err = run(capsys, "chips")
    assert rc == 1 and len(err.splitlines()) == 1 and "internal error" in err and "Traceback" not in err


# --------------------------------------------------------------------------- a real process

def _env():
    env = dict(os.environ)
    env.pop("ROOFGUI_DEBUG", None)
    return env


def test_subprocess_analyze_json():
    p = subprocess.run([sys.executable, "main.py", "analyze", "--chip", "tpu-v5e", "--op", "matmul",
                        "--dims", "B=16k,D=16384,F=2**14", "--shard", "D=2", "--link", "ici", "--json"],
                       cwd=ROOT, capture_output=True, text=True, env=_env(), timeout=120)
    assert p.returncode == 0, p.stderr
    assert p.stderr == ""
    rec = json.loads(p.stdout)[0]
    assert REQUIRED_KEYS <= set(rec)
    assert rec["critical"]["D"] == pytest.approx(8755.56, abs=0.01)


def test_subprocess_bad_input_is_one_line_and_status_2():
    p = subprocess.run([sys.executable, "main.py", "analyze", "--chip", "tpu-v5e", "--op", "matmul",
                        "--dims", "B=1e400"], cwd=ROOT, capture_output=True, text=True, env=_env(), timeout=120)
    assert p.returncode == 2
    assert p.stdout == ""
    assert p.stderr.count("\n") == 1 and "Traceback" not in p.stderr
    assert "--dims B" in p.stderr and "finite" in p.stderr


def test_subprocess_chips():
    p = subprocess.run([sys.executable, "main.py", "chips"], cwd=ROOT, capture_output=True, text=True,
                       env=_env(), timeout=120)
    assert p.returncode == 0 and p.stderr == ""
    assert "tpu-v5e" in p.stdout and "trainium2" in p.stdout
