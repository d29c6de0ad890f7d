"""Scenario JSON: round trip, atomic saves (a crash mid-write keeps the old file), and every
malformed file raising one ScenarioError that names the file and the key."""

import copy
import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

import roofgui.model.paths as paths
from roofgui.model.catalog import Catalog
from roofgui.model.errors import ScenarioError
from roofgui.model.scenario import (MAX_SCENARIO_BYTES, OpSpec, Scenario, ShardSpec, SweepSpec, ViewSpec, WhatIf,
                                    default_scenario, load_scenario, save_scenario)
from roofgui.model.evaluate import evaluate_scenario

ROOT = Path(__file__).resolve().parents[1]


def full_scenario() -> Scenario:
    """A scenario with every field away from its default."""
    return Scenario(
        title="Every field — ünïcödé, \"quotes\", \\backslash",
        ops=[OpSpec("big matmul", "matmul", {"B": 4096.0, "D": 8192.0, "F": 28672.0},
                    {"x": "bf16", "w": "int8", "out": "fp32", "compute": "bf16"}, ShardSpec("D", 4, "ici"), {}),
             OpSpec("dot", "dot", {"N": 1048576.0}, {"x": "fp8_e5m2"}, None, {}),
             OpSpec("mine", "custom", {"flops": 1e12, "bytes": 3e9, "net_bytes": 1e8}, {"compute": "fp8_e4m3"},
                    ShardSpec("net", 8, "nvlink"), {"unit": "vector", "note": "from a profile", "nested": {"a": 1}})],
        chips=["tpu-v5e", "h100-sxm", "mi300x"],
        what_if=WhatIf(2.0, 0.5, 4.0),
        derate=True,
        sweep=SweepSpec("D", 128.0, 65536.0, 1234, "time"),
        view=ViewSpec([-1.0, 4.0, 9.0, 16.0]),
        selected=2,
    )


def test_round_trip_gives_an_equal_scenario(tmp_path):
    sc = full_scenario()
    p = tmp_path / "s.json"
    save_scenario(sc, p)
    back = load_scenario(p)
    assert back == sc
    assert json.loads(p.read_text(encoding="utf-8"))["format"] == "roofgui-scenario"
    assert Scenario.from_json(sc.to_json()) == sc
    assert sc.copy() == sc and sc.copy() is not sc
    save_scenario(back, tmp_path / "t.json")
    assert (tmp_path / "t.json").read_bytes() == p.read_bytes()  # stable bytes


def test_default_scenario_round_trips_and_evaluates(tmp_path):
    sc = default_scenario()
    p = tmp_path / "d.json"
    save_scenario(sc, p)
    back = load_scenario(p)
    assert back == sc
    ev = evaluate_scenario(back, Catalog.load(user_dir=False))
    assert ev.errors == [] and [e.chip_id for e in ev.entries] == ["tpu-v5e", "h100-sxm"]


def test_minimal_file_takes_defaults(tmp_path):
    p = tmp_path / "m.json"
    p.write_text('{"format": "roofgui-scenario", "version": 1}')
    assert load_scenario(p) == Scenario()


# --------------------------------------------------------------------------- atomic saves

def test_failed_rename_keeps_the_old_file_and_leaves_no_temp(tmp_path, monkeypatch):
    p = tmp_path / "s.json"
    save_scenario(default_scenario(), p)
    before = p.read_bytes()

    def boom(src, dst):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(paths.os, "replace", boom)
    with pytest.raises(OSError):
        save_scenario(full_scenario(), p)
    assert p.read_bytes() == before
    assert sorted(x.name for x in tmp_path.iterdir()) == ["s.json"]


def test_failed_write_keeps_the_old_file(tmp_path, monkeypatch):
    p = tmp_path / "s.json"
    save_scenario(default_scenario(), p)
    before = p.read_bytes()

    def boom(fd):
        raise OSError(5, "Input/output error")

    monkeypatch.setattr(paths.os, "fsync", boom)
    with pytest.raises(OSError):
        save_scenario(full_scenario(), p)
    assert p.read_bytes() == before
    assert sorted(x.name for x in tmp_path.iterdir()) == ["s.json"]


KILLED_WRITER = r"""
import os, sys, time
import roofgui.model.paths as paths
from roofgui.model.scenario import save_scenario, Scenario, OpSpec
real_fsync = os.fsync
def stall(fd):
    real_fsync(fd)
    print("half-way", flush=True)   # the new bytes are in the temporary file, not yet renamed
    time.sleep(600)
paths.os.fsync = stall
big = Scenario(title="new " * 10000, ops=[OpSpec(f"op{i}", "matmul", {"B": i + 1}) for i in range(200)])
save_scenario(big, sys.argv[1])
"""


def test_killing_a_save_half_way_keeps_the_old_file(tmp_path):
    p = tmp_path / "work.json"
    old = full_scenario()
    save_scenario(old, p)
    before = p.read_bytes()
    proc = subprocess.Popen([sys.executable, "-c", KILLED_WRITER, str(p)], cwd=ROOT, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    try:
        line = proc.stdout.readline()  # blocks until the writer is inside the save
        assert line.strip() == "half-way", proc.stderr.read()
        temps = [x for x in tmp_path.iterdir() if x.name != "work.json"]
        assert temps and temps[0].stat().st_size > len(before)  # the new content was being written
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=60)
        proc.stdout.close()
        proc.stderr.close()
    assert proc.returncode == -signal.SIGKILL
    assert p.read_bytes() == before
    assert load_scenario(p) == old


# --------------------------------------------------------------------------- malformed files

def base() -> dict:
    return full_scenario().to_dict()


def edit(fn):
    d = base()
    fn(d)
    return json.dumps(d)


def set_(path, value):
    def fn(d):
        *head, last = path
        for k in head:
            d = d[k]
        d[last] = value
    return fn


def delete(path):
    def fn(d):
        *head, last = path
        for k in head:
            d = d[k]
        del d[last]
    return fn


# (case, file text or bytes, expected key (None: the whole file), problem regex)
MALFORMED = [
    # wrong types
    ("top-list", "[1, 2]", "(top level)", r"an object"),
    ("top-string", '"scenario"', "(top level)", r"an object"),
    ("title-int", edit(set_(["title"], 5)), "title", r"a string"),
    ("ops-object", edit(set_(["ops"], {"a": 1})), "ops", r"a list"),
    ("op-int", edit(set_(["ops", 0], 7)), "ops[0]", r"an object"),
    ("dim-string", edit(set_(["ops", 0, "dims", "B"], "256")), "ops[0].dims.B", r"a number"),
    ("dim-bool", edit(set_(["ops", 0, "dims", "B"], True)), "ops[0].dims.B", r"a number"),
    ("dim-null", edit(set_(["ops", 0, "dims", "B"], None)), "ops[0].dims.B", r"a number"),
    ("dtype-int", edit(set_(["ops", 0, "dtypes", "x"], 16)), "ops[0].dtypes.x", r"dtype name"),
    ("shard-list", edit(set_(["ops", 0, "shard"], [1])), "ops[0].shard", r"an object"),
    ("shard-n-string", edit(set_(["ops", 0, "shard", "n"], "4")), "ops[0].shard.n", r"whole number"),
    ("shard-n-fraction", edit(set_(["ops", 0, "shard", "n"], 2.5)), "ops[0].shard.n", r"whole number"),
    ("params-list", edit(set_(["ops", 2, "params", "note"], [1])), "ops[2].params.note", r"must be a number"),
    ("chips-string", edit(set_(["chips"], "tpu-v5e")), "chips", r"a list"),
    ("chip-int", edit(set_(["chips", 1], 5)), "chips[1]", r"a chip id"),
    ("what-if-string", edit(set_(["what_if", "peak"], "2")), "what_if.peak", r"a number"),
    ("derate-string", edit(set_(["derate"], "yes")), "derate", r"true or false"),
    ("sweep-points-float", edit(set_(["sweep", "points"], 1.5)), "sweep.points", r"whole number"),
    ("selected-string", edit(set_(["selected"], "0")), "selected", r"whole number"),
    # missing keys
    ("no-format", edit(delete(["format"])), "format", r"roofgui-scenario"),
    ("no-version", edit(delete(["version"])), "version", r"missing"),
    ("wrong-format", edit(set_(["format"], "something-else")), "format", r"roofgui-scenario"),
    # unknown keys
    ("unknown-top", edit(set_(["colour"], "red")), "colour", r"unknown key"),
    ("unknown-op-key", edit(set_(["ops", 0, "size"], 3)), "ops[0].size", r"unknown key"),
    ("unknown-dim", edit(set_(["ops", 0, "dims", "N"], 3)), "ops[0].dims.N", r"no dimension 'N'"),
    ("unknown-what-if", edit(set_(["what_if", "speed"], 3)), "what_if.speed", r"unknown key"),
    ("unknown-sweep-key", edit(set_(["sweep", "colour"], 3)), "sweep.colour", r"unknown key"),
    ("unknown-view-key", edit(set_(["view", "zoom"], 3)), "view.zoom", r"unknown key"),
    ("unknown-shard-key", edit(set_(["ops", 0, "shard", "axes"], "D")), "ops[0].shard.axes", r"unknown key"),
    ("unknown-role", edit(set_(["ops", 0, "dtypes", "weights"], "bf16")), "ops[0].dtypes.weights",
     r"unknown role"),
    # unknown names
    ("unknown-op", edit(set_(["ops", 1, "kind"], "conv")), "ops[1].kind", r"unknown op 'conv'"),
    ("unknown-dtype", edit(set_(["ops", 0, "dtypes", "w"], "int3")), "ops[0].dtypes.w", r"unknown dtype"),
    ("unknown-link", edit(set_(["ops", 0, "shard", "link"], "warp")), "ops[0].shard.link", r"unknown link"),
    ("bad-shard-axis", edit(set_(["ops", 0, "shard", "axis"], "N")), "ops[0].shard.axis", r"cannot be sharded"),
    ("sweep-y", edit(set_(["sweep", "y"], "bytes")), "sweep.y", r"'flops' or 'time'"),
    # bad numbers
    ("dim-zero", edit(set_(["ops", 0, "dims", "B"], 0)), "ops[0].dims.B", r"greater than zero"),
    ("dim-negative", edit(set_(["ops", 0, "dims", "D"], -8)), "ops[0].dims.D", r"greater than zero"),
    ("dim-below-one", edit(set_(["ops", 0, "dims", "F"], 0.5)), "ops[0].dims.F", r"at least 1"),
    ("dim-too-large", edit(set_(["ops", 0, "dims", "F"], 1e300)), "ops[0].dims.F", r"too large"),
    ("dim-nan", edit(set_(["ops", 0, "dims", "B"], float("nan"))), "ops[0].dims.B", r"NaN"),
    ("dim-inf", edit(set_(["ops", 0, "dims", "B"], float("inf"))), "ops[0].dims.B", r"finite"),
    ("dim-1e400", json.dumps(base()).replace('"B": 4096.0', '"B": 1e400'), "ops[0].dims.B", r"finite"),
    ("what-if-zero", edit(set_(["what_if", "hbm"], 0)), "what_if.hbm", r"greater than zero"),
    ("what-if-nan", edit(set_(["what_if", "link"], float("nan"))), "what_if.link", r"NaN"),
    ("shard-n-zero", edit(set_(["ops", 0, "shard", "n"], 0)), "ops[0].shard.n", r"between 1 and"),
    ("sweep-backwards", edit(set_(["sweep", "stop"], 1.0)), "sweep.stop", r"greater than sweep.start"),
    ("sweep-points", edit(set_(["sweep", "points"], 10**9)), "sweep.points", r"between 2 and"),
    ("params-nan", edit(set_(["ops", 2, "params", "x"], float("nan"))), "ops[2].params.x", r"finite"),
    # version, truncation, junk, size, nesting
    ("version-newer", edit(set_(["version"], 2)), "version", r"newer than this app reads"),
    ("version-zero", edit(set_(["version"], 0)), "version", r"must be 1"),
    ("truncated", json.dumps(base())[:200], None, r"not valid JSON"),
    ("empty", "", None, r"not valid JSON"),
    ("binary-junk", bytes(range(256)) * 8, None, r"not a text file|not valid JSON"),
    ("nul-bytes", b"\x00" * 64, None, r"not valid JSON"),
    ("utf16", json.dumps(base()).encode("utf-16"), None, r"not a text file|not valid JSON"),
    ("too-large", json.dumps(base()) + " " * (MAX_SCENARIO_BYTES + 1), None, r"too large"),
    ("deeply-nested", '{"format": "roofgui-scenario", "version": 1, "ops": ' + "[" * 100000 + "]" * 100000 + "}",
     None, r"nested too deeply"),
    ("nested-params", edit(set_(["ops", 2, "params", "n"], json.loads("{\"a\": " * 60 + "1" + "}" * 60))),
     "ops[2].params.n" + ".a" * 8, r"nested more than 8"),
    ("too-many-ops", edit(set_(["ops"], [{"kind": "dot"}] * 201)), "ops", r"at most 200"),
]


@pytest.mark.parametrize("case, content, key, problem", MALFORMED, ids=[m[0] for m in MALFORMED])
def test_malformed_scenario_raises_one_error_naming_file_and_key(tmp_path, case, content, key, problem):
    p = tmp_path / f"{case}.json"
    if isinstance(content, bytes):
        p.write_bytes(content)
    else:
        p.write_text(content, encoding="utf-8")
    with pytest.raises(ScenarioError) as e:
        load_scenario(p)
    err = e.value
    assert err.path == str(p)
    assert err.key == key, str(err)
    import re
    assert re.search(problem, err.problem), str(err)
    msg = str(err)
    assert msg.startswith(str(p)) and (key is None or f": {key}: " in msg)
    assert "\n" not in msg and len(msg) < len(str(p)) + 300


def test_the_base_of_the_malformed_cases_is_valid(tmp_path):
    p = tmp_path / "ok.json"
    p.write_text(json.dumps(base()))
    assert load_scenario(p) == full_scenario()


def test_missing_file_and_directory(tmp_path):
    with pytest.raises(ScenarioError, match="cannot read"):
        load_scenario(tmp_path / "nope.json")
    (tmp_path / "dir.json").mkdir()
    with pytest.raises(ScenarioError, match="cannot read"):
        load_scenario(tmp_path / "dir.json")


def test_loading_never_unpickles_or_evaluates(tmp_path, monkeypatch):
    import builtins
    import pickle

    def no(*a, **k):
        raise AssertionError("eval/exec/pickle used on user data")

    for mod, name in ((builtins, "eval"), (builtins, "exec"), (pickle, "loads"), (pickle, "load")):
        monkeypatch.setattr(mod, name, no)
    p = tmp_path / "s.json"
    save_scenario(full_scenario(), p)
    assert load_scenario(p) == full_scenario()


def test_duplicate_chips_are_dropped_and_selected_is_clamped(tmp_path):
    d = base()
    d["chips"] = ["tpu-v5e", "tpu-v5e", "b200"]
    d["selected"] = 99
    sc = Scenario.from_dict(copy.deepcopy(d))
    assert sc.chips == ["tpu-v5e", "b200"] and sc.selected == len(sc.ops) - 1


def test_a_file_with_an_llm_step_reads_in_a_fresh_process_that_never_imported_it():
    """The LLM op kind registers itself on import: reading a scenario must not depend on
    some other module having imported it first (the examples menu once did)."""
    import subprocess
    import sys
    from pathlib import Path

    example = Path(__file__).resolve().parents[1] / "resources" / "examples" / \
        "10-llm-llama-2-7b-one-gpu.json"
    code = ("import sys; from roofgui.model.scenario import Scenario; "
            "assert 'roofgui.model.llm' not in sys.modules; "
            f"sc = Scenario.from_json(open({str(example)!r}).read()); "
            "print(sc.ops[0].kind)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "llm"


VIEWS_TO_RESET = [
    ("short", [1, 2]),
    ("zoomed-out-12-notches", [-59.0, 83.0, -40.0, 70.0]),
    ("backwards", [3.0, 1.0, 0.0, 1.0]),
    ("not-numbers", ["a", 1, 2, 3]),
    ("not-a-list", "wide"),
]


@pytest.mark.parametrize("case, view", VIEWS_TO_RESET, ids=[v[0] for v in VIEWS_TO_RESET])
def test_a_saved_view_that_cannot_be_drawn_opens_fitted_with_a_notice(tmp_path, case, view):
    d = base()
    d["view"]["roofline"] = view
    p = tmp_path / "s.json"
    p.write_text(json.dumps(d), encoding="utf-8")
    sc = load_scenario(p)
    assert sc.view.roofline is None
    assert len(sc.notices) == 1 and "view.roofline" in sc.notices[0] and str(p) in sc.notices[0]
    assert sc.ops == full_scenario().ops  # the work itself is all there


def test_an_infinite_view_opens_fitted(tmp_path):
    text = json.dumps(base()).replace("[\n", "[").replace("-1.0, 4.0", "-1.0, Infinity")
    assert "Infinity" in text
    p = tmp_path / "s.json"
    p.write_text(text, encoding="utf-8")
    assert load_scenario(p).view.roofline is None


def test_a_view_past_the_limit_is_saved_as_fitted_so_the_file_reopens(tmp_path):
    sc = full_scenario()
    sc.view.roofline = [-59.0, 83.0, -40.0, 70.0]
    p = tmp_path / "s.json"
    save_scenario(sc, p)
    again = load_scenario(p)
    assert again.view.roofline is None and again.notices == []


def test_a_lone_surrogate_in_a_title_saves_and_reads_back(tmp_path):
    sc = full_scenario()
    sc.title = "half a pair: \ud800 and an emoji \U0001F600"
    p = tmp_path / "s.json"
    save_scenario(sc, p)
    assert load_scenario(p).title == sc.title


def test_notices_are_never_saved(tmp_path):
    sc = full_scenario()
    sc.notices.append("something")
    assert "notices" not in sc.to_dict()


def test_the_plot_a_scenario_opens_on_is_saved_and_a_bad_one_is_noticed(tmp_path):
    from roofgui.model.scenario import load_scenario, save_scenario

    sc = Scenario(title="t")
    sc.view = ViewSpec(tab="sweep")
    p = tmp_path / "s.json"
    save_scenario(sc, p)
    assert json.loads(p.read_text())["view"]["tab"] == "sweep"
    assert load_scenario(p).view.tab == "sweep"
    d = json.loads(p.read_text())
    d["view"]["tab"] = "pie chart"
    p.write_text(json.dumps(d))
    back = load_scenario(p)
    assert back.view.tab is None
    assert any("view.tab must be one of roofline, sweep" in n for n in back.notices)
    d["view"] = {"tab": "sweep", "zoom": 2}
    p.write_text(json.dumps(d))
    with pytest.raises(ScenarioError, match="view.zoom"):
        load_scenario(p)
