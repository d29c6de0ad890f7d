"""Robustness of the model and the command line (issue 7).

* Every invalid number — zero, negative, NaN, ±inf, 1e400, empty, whitespace, unicode junk,
  past what a float holds, below the smallest value that keeps the arithmetic finite — is
  refused with the model's own typed error naming the field, *before* any arithmetic (the op's
  work function is never reached).
* Extreme but valid inputs, at every corner of the valid space (each dimension at its least
  and greatest, chip figures from 1 to 1e21, what-ifs from 1e-6 to 1e6, derating, the most
  chips a shard may span), give finite results everywhere the window looks: every result
  field, every critical value, every roofline and sweep coordinate.  Numpy warnings are
  errors here, so not even an intermediate overflows.
* The command line turns each of those inputs into exit status 2 and one line.
"""

from __future__ import annotations

import dataclasses
import itertools
import math
import re
import warnings

import numpy as np
import pytest

import roofgui.model.llm  # noqa: F401 - registers the LLM step, so it is checked too
from roofgui import cli
from roofgui.presentation import plotdata as pd
from roofgui.presentation import sweepgeom as sg
from roofgui.model.catalog import Catalog
from roofgui.model.chip_file import parse_chip_toml
from roofgui.model.chips import MIN_FIGURE, MIN_FRACTION, Figure, make_chip
from roofgui.model.errors import ModelError, ScenarioError, SpecError
from roofgui.model.ops import OP_KINDS, Shard, op_work, validate_shard
from roofgui.model.roofline import Result, Settings, chip_figures
from roofgui.model.scenario import OpSpec, Scenario, ShardSpec, WhatIf, default_scenario
from roofgui.model.evaluate import evaluate_scenario, sweep_scenario
from roofgui.model.units import (MAX_VALUE, MIN_VALUE, WHAT_IF_MAX, WHAT_IF_MIN, check_positive,
                                 parse_quantity)

#: Text no numeric field may accept.
JUNK_TEXT = ["", " ", "\t\n", "nan", "NaN", "-nan", "inf", "-inf", "Infinity", "∞", "-∞", "−1",
             "-1", "0", "-0", "0.0", "0e5", "1e400", "-1e400", "1e-400", "٣", "４", "\x00", "1\x00",
             "💥", "\u202e12", "None", "0x10", "1/0", "2**5000", "2^5000", "10**400", "1e15000",
             "9" * 70, "__import__('os').system('x')", "1e16", "abc", "12q", "4 kb", "1..2",
             "1e", "e5", "--1", "+-1", "1,2,3", "1_000_000_000_000_000_000"]
#: Numbers (and non-numbers) no dimension may take.
JUNK_VALUES = [0, 0.0, -0.0, -1, -1e-300, math.nan, math.inf, -math.inf, 10**400, 2e15, True, False,
               None, "", "nan", [], {}, object()]

MAYBE_INF = ("net_intensity", "net_critical_intensity")


# -- refused before any arithmetic ---------------------------------------------------------

@pytest.mark.parametrize("text", JUNK_TEXT, ids=repr)
def test_typed_text_is_refused_with_the_fields_name(text):
    for integer in (False, True):
        with pytest.raises(ModelError) as e:
            parse_quantity(text, "Batch B", integer=integer)
        msg = str(e.value)
        assert e.value.field == "Batch B" and msg.startswith("Batch B: "), msg
        assert "\n" not in msg.replace(text, "") and len(msg) < 200, msg


@pytest.mark.parametrize("value", [0.5e-6, 1e-300, 5e-324, 2e6], ids=repr)
def test_the_range_a_field_allows_is_enforced(value):
    with pytest.raises(ModelError, match="too (small|large)"):
        check_positive(value, "Peak ×", min_value=WHAT_IF_MIN, max_value=WHAT_IF_MAX)
    assert check_positive(WHAT_IF_MIN, "x", min_value=WHAT_IF_MIN) == WHAT_IF_MIN


def _spy_kind(kind):
    calls = []

    def work(*a, **k):
        calls.append(a)
        raise AssertionError("the work function ran on invalid input")

    return dataclasses.replace(kind, work=work), calls


def _cases():
    for kind in OP_KINDS.values():
        for spec in kind.dims:
            yield kind.name, spec.name


@pytest.mark.parametrize("kind_name, dim", list(_cases()))
def test_every_dimension_of_every_op_refuses_junk_before_any_arithmetic(kind_name, dim):
    kind, calls = _spy_kind(OP_KINDS[kind_name])
    spec = next(d for d in kind.dims if d.name == dim)
    bad = JUNK_VALUES + JUNK_TEXT[:20] + [np.array([1.0, np.nan]), np.array([]), [1, "x"],
                                          np.array([1.0, -2.0]), np.array([2e15])]
    if spec.integer:
        bad += [0.5, np.array([0.5, 2.0])]
    else:
        bad += [MIN_VALUE / 2, np.array([MIN_VALUE / 10, 1.0])]
    for v in bad:
        with pytest.raises(ModelError) as e:
            op_work(kind, {dim: v}, phase=kind.phases[0] if kind.phases != ("",) else "")
        assert e.value.field == dim, (v, str(e.value))
        assert str(e.value).startswith(f"{dim}: ") and len(str(e.value)) < 200
    assert calls == []
    # and the extremes of the valid range pass straight through to the arithmetic
    for v in ((1.0 if spec.integer else MIN_VALUE), MAX_VALUE):
        with pytest.raises(AssertionError, match="work function ran"):
            op_work(kind, {dim: v}, phase=kind.phases[0] if kind.phases != ("",) else "")


@pytest.mark.parametrize("n", [0, -1, 1.5, True, 10**7, math.nan, "2", None])
def test_shard_counts_are_refused_before_any_arithmetic(n):
    kind, calls = _spy_kind(OP_KINDS["matmul"])
    with pytest.raises(ModelError) as e:
        op_work(kind, {}, shard=Shard("D", n, "ici"))
    assert e.value.field in ("shard chips", "shard")
    for shard in (Shard("X", 2, "ici"), Shard("D", 2, "")):
        with pytest.raises(ModelError):
            validate_shard(kind, shard)
    assert calls == []


@pytest.mark.parametrize("v", [0, -1, math.nan, math.inf, -math.inf, WHAT_IF_MIN / 2, WHAT_IF_MAX * 2,
                               True, "2", None])
def test_what_if_multipliers_outside_the_range_are_refused(v):
    chip = Catalog.load(user_dir=False).get("tpu-v5e")
    work = op_work("matmul", {})
    for knob in ("peak", "hbm", "link"):
        with pytest.raises(ModelError) as e:
            chip_figures(chip, work, Settings(**{knob: v}))
        assert e.value.field == knob
    with pytest.raises(ScenarioError) as e:
        d = default_scenario().to_dict()
        d["what_if"]["hbm"] = v
        Scenario.from_dict(d, "s.json")
    assert e.value.key == "what_if.hbm"


@pytest.mark.parametrize("v", [0, -1, math.nan, math.inf, MIN_FIGURE / 2, 1e22, True, "1e12", None])
def test_chip_figures_outside_the_range_are_refused(v):
    with pytest.raises(ModelError):
        make_chip("x", "X", peak=v, hbm_bandwidth=1e12)
    with pytest.raises(ModelError):
        make_chip("x", "X", peak=1e15, hbm_bandwidth=1e12, links={"ici": v})


CHIP = """\
format = 1
id = "tiny"
name = "Tiny"
vendor = "Me"
kind = "Accelerator"
[sources]
me = "my own measurement"
[matrix]
bf16 = {{ value = {peak}, source = "me" }}
[memory]
capacity = {{ value = 1e9, source = "me" }}
bandwidth = {{ value = {bw}, source = "me" }}
[achievable]
fraction = {{ value = {frac}, source = "me" }}
"""


@pytest.mark.parametrize("peak, bw, frac, key", [
    ("0.5", "1e12", "0.9", "matrix.bf16.value"),
    ("1e15", "1e-300", "0.9", "memory.bandwidth.value"),
    ("1e15", "5e-324", "0.9", "memory.bandwidth.value"),
    ("1e15", "1e12", "1e-4", "achievable.fraction.value"),
])
def test_chip_files_with_figures_too_small_to_compute_with_are_refused(peak, bw, frac, key):
    with pytest.raises(SpecError) as e:
        parse_chip_toml(CHIP.format(peak=peak, bw=bw, frac=frac), "tiny.toml")
    assert e.value.key == key and "implausibly small" in e.value.problem
    assert str(e.value).startswith("tiny.toml: " + key)
    # the least values allowed are fine
    parse_chip_toml(CHIP.format(peak=MIN_FIGURE, bw=MIN_FIGURE, frac=MIN_FRACTION), "tiny.toml")


def _with(path, value):
    d = default_scenario().to_dict()
    d["ops"].append({"name": "mine", "kind": "custom", "dims": {"flops": 1e12, "bytes": 1e9},
                     "shard": {"axis": "net", "n": 2, "link": "ici"}, "params": {}})
    target = d
    for k in path[:-1]:
        target = target[k]
    target[path[-1]] = value
    return d


SCENARIO_NUMBERS = [
    (("ops", 0, "dims", "B"), [0, -1, math.nan, math.inf, 2e15, 0.5, True, "256", None, 10**400]),
    (("ops", 1, "dims", "flops"), [0, -1e-300, MIN_VALUE / 2, math.nan, math.inf, 2e15, "1e12"]),
    (("ops", 1, "shard", "n"), [0, -2, 1.5, 10**7, True, "2", None, math.nan]),
    (("what_if", "peak"), [0, -1, WHAT_IF_MIN / 2, WHAT_IF_MAX * 2, math.nan, math.inf, "2",
                           10**400]),
    (("sweep", "start"), [0, -1, math.nan, math.inf, 2e15, "1"]),
    (("sweep", "stop"), [0, math.nan, math.inf, 2e15, None]),
    (("sweep", "points"), [0, 1, 10**9, 2.5, math.nan, "400"]),
    (("ops", 1, "params", "x"), [math.nan, math.inf, -math.inf, 10**400, -(10**400)]),
]


@pytest.mark.parametrize("path, values", SCENARIO_NUMBERS, ids=lambda p: ".".join(map(str, p))
                         if isinstance(p, tuple) else None)
def test_scenario_numbers_are_refused_naming_the_key(path, values):
    key = ".".join(f"[{p}]" if isinstance(p, int) else p for p in path).replace(".[", "[")
    for v in values:
        with pytest.raises(ScenarioError) as e:
            Scenario.from_dict(_with(path, v), "mine.json")
        assert e.value.key == key, (v, str(e.value))
        assert str(e.value).startswith(f"mine.json: {key}: ") and "\n" not in str(e.value)


@pytest.mark.parametrize("view", [[0, 1, 2, math.nan], [0, 1, 2, math.inf], [1, 0, 2, 3], [0, 1, 2], "x",
                                  [10**400, 1, 2, 3]])
def test_a_view_that_cannot_be_drawn_is_reset_with_a_notice_not_refused(view):
    sc = Scenario.from_dict(_with(("view", "roofline"), view), "mine.json")
    assert sc.view.roofline is None
    assert [n.split(": ", 1)[0] for n in sc.notices] == ["mine.json"]


def test_integers_past_what_a_float_holds_are_named_errors_in_both_file_kinds(tmp_path):
    """JSON and TOML integers have no size limit; 400 digits must not escape as OverflowError."""
    from roofgui.model.paths import user_chip_dir
    from roofgui.model.scenario import load_scenario

    huge = "1" + "0" * 400
    p = tmp_path / "huge.json"
    p.write_text(default_scenario().to_json().replace('"B": 256', f'"B": {huge}'), encoding="utf-8")
    with pytest.raises(ScenarioError) as e:
        load_scenario(p)
    assert e.value.key == "ops[0].dims.B" and "too large" in e.value.problem
    d = user_chip_dir()
    d.mkdir(parents=True)
    (d / "huge.toml").write_text(CHIP.format(peak=huge, bw="1e12", frac="0.9").replace(
        'id = "tiny"', 'id = "huge"'), encoding="utf-8")
    (d / "fine.toml").write_text(CHIP.format(peak="1e15", bw="1e12", frac="0.9").replace(
        'id = "tiny"', 'id = "fine"'), encoding="utf-8")
    cat = Catalog.load()
    assert [(err.key, "too large" in err.problem) for err in cat.errors] == [("matrix.bf16.value", True)]
    assert "fine" in cat.chips and "huge" not in cat.chips


# -- extreme but valid: finite everywhere ------------------------------------------------------

def _corner_catalog() -> Catalog:
    """Chips at every corner of the figures a chip may state (1 .. 1e21, fraction 1e-3 .. 1)."""
    cat = Catalog()
    lo, hi = MIN_FIGURE, 1e21
    for i, (peak, bw, link) in enumerate(itertools.product((lo, hi), (lo, hi), (lo, hi))):
        frac = MIN_FRACTION if i % 2 else 1.0
        c = make_chip(f"corner-{i}", f"Corner {i}", peak=peak, hbm_bandwidth=bw, hbm_capacity=lo,
                      links={"ici": link, "pcie": link}, vector={"fp32": peak})
        cat.chips[c.id] = dataclasses.replace(c, achievable=Figure(frac, "user"))
    return cat


def _dim_corners(kind):
    lo = {d.name: (1.0 if d.integer else MIN_VALUE) for d in kind.dims}
    hi = {d.name: MAX_VALUE for d in kind.dims}
    yield lo
    yield hi
    for d in kind.dims:  # one dimension at the top, the others at the bottom, and the reverse
        yield {**lo, d.name: MAX_VALUE}
        yield {**hi, d.name: lo[d.name]}


def _check_finite(ev, where):
    for e in ev.entries:
        r = e.analysis.result
        for f in Result.__dataclass_fields__:
            a = np.asarray(getattr(r, f), dtype=float)
            assert not np.any(np.isnan(a)), (where, e.label, f)
            if f not in MAYBE_INF:
                assert np.all(np.isfinite(a)), (where, e.label, f, a)
        for name, v in e.analysis.critical.items():
            assert v is None or (math.isfinite(v) and v > 0), (where, name, v)


def _check_geometry(sc, ev, cat, where):
    g = pd.roofline_geometry(sc, ev)
    assert len(g.points) == len(ev.entries)
    for p in g.points:
        assert math.isfinite(p.x) and math.isfinite(p.y), (where, p)
        assert p.net_x is None or math.isfinite(p.net_x), (where, p)
    for c in g.chips:
        for r in c.roofs:
            assert np.all(np.isfinite(r.x)) and np.all(np.isfinite(r.y)), (where, r.key)
        for r in c.ridges:
            assert math.isfinite(r.x) and math.isfinite(r.y), (where, r.key)
    assert all(map(math.isfinite, g.fit)), (where, g.fit)
    curves, errors = sweep_scenario(sc, cat)
    geom = sg.sweep_geometry(sc, curves)
    for ln in geom.lines:
        assert np.all(np.isfinite(ln.x)) and np.all(np.isfinite(ln.y)), (where, ln.key)
    assert all(map(math.isfinite, geom.fit)), (where, geom.fit)


@pytest.mark.parametrize("kind_name", list(OP_KINDS))
def test_every_corner_of_the_valid_space_gives_finite_results_and_coordinates(kind_name):
    kind = OP_KINDS[kind_name]
    cat = _corner_catalog()
    ids = list(cat.chips)
    shard = ShardSpec(kind.shard_axes[0], 1_000_000, "ici") if kind.shard_axes else None
    n = 0
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no overflow or invalid operation, even in passing
        for dims in _dim_corners(kind):
            for wi, derate in itertools.product(((WHAT_IF_MIN,) * 3, (WHAT_IF_MAX,) * 3,
                                                 (WHAT_IF_MAX, WHAT_IF_MIN, WHAT_IF_MIN)),
                                                (False, True)):
                for sh in (None, shard):
                    sc = Scenario(ops=[OpSpec(kind_name, kind_name, dims, {}, sh)], chips=ids,
                                  what_if=WhatIf(*wi), derate=derate)
                    sc.sweep.dim = kind.dims[0].name
                    sc.sweep.start = 1.0
                    sc.sweep.stop = MAX_VALUE
                    sc.sweep.points = 50
                    where = (dims, wi, derate, sh)
                    ev = evaluate_scenario(sc, cat)
                    assert ev.entries, (where, ev.errors[:2])
                    _check_finite(ev, where)
                    if not derate and sh is None:  # geometry: once per dims × what-if
                        _check_geometry(sc, ev, cat, where)
                    n += 1
    assert n >= 12


@pytest.mark.parametrize("model", [
    {"model": "custom", "hidden_size": 1_000_000, "layers": 100_000, "heads": 100_000,
     "kv_heads": 100_000, "ffn_size": 10_000_000, "vocab_size": 100_000_000, "experts": 100_000,
     "top_k": 100_000},
    {"model": "custom", "hidden_size": 1, "layers": 1, "heads": 1, "kv_heads": 1, "ffn_size": 1,
     "vocab_size": 1},
], ids=["largest", "smallest"])
def test_the_llm_step_at_the_limits_of_its_model_fields_is_finite(model):
    cat = _corner_catalog()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for v in (1.0, MAX_VALUE):
            for wi in ((WHAT_IF_MIN,) * 3, (WHAT_IF_MAX,) * 3):
                sc = Scenario(ops=[OpSpec("llm", "llm", {"B": v, "p": v, "d": v}, {},
                                          ShardSpec("tp", 1_000_000, "ici"), dict(model))],
                              chips=list(cat.chips), what_if=WhatIf(*wi), derate=True)
                sc.sweep.start, sc.sweep.stop, sc.sweep.points = 1.0, MAX_VALUE, 50
                ev = evaluate_scenario(sc, cat)
                assert ev.entries and not ev.errors, ev.errors[:2]
                _check_finite(ev, (v, wi))
                _check_geometry(sc, ev, cat, (v, wi))


def test_the_issues_ranges_give_finite_results_on_shipped_chips():
    """Dimensions 1..1e12 and peaks 1e9..1e19 FLOP/s (the issue's words), on every op."""
    cat = Catalog.load(user_dir=False)
    for peak in (1e9, 1e19):
        c = make_chip(f"p{peak:g}", "P", peak=peak, hbm_bandwidth=1e12, links={"ici": 1e11},
                      vector={"fp32": peak})
        cat.chips[c.id] = c
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for kind in OP_KINDS.values():
            for v in (1.0, 1e12):
                dims = {d.name: v for d in kind.dims}
                sc = Scenario(ops=[OpSpec(kind.name, kind.name, dims, {})],
                              chips=["p1e+09", "p1e+19", "tpu-v5e", "h100-sxm", "mi300x"])
                ev = evaluate_scenario(sc, cat)
                assert len(ev.entries) == 5 * len(kind.phases), ev.errors
                _check_finite(ev, (kind.name, v))


# -- the command line --------------------------------------------------------------------------

MM = ["analyze", "--chip", "tpu-v5e", "--op", "matmul"]
LLM = ["analyze", "--chip", "h100-sxm", "--op", "llm"]
CLI_FLAGS = [
    (MM + ["--dims", "B={}"], "--dims B"),
    (["analyze", "--chip", "tpu-v5e", "--op", "custom", "--dims", "flops={}"], "--dims flops"),
    (["analyze", "--chip", "tpu-v5e", "--op", "elementwise", "--dims", "flops_per_element={}"],
     "--dims flops_per_element"),
    (MM + ["--shard", "D={}", "--link", "ici"], "--shard N"),
    (MM + ["--what-if", "peak={}"], "--what-if peak"),
    (MM + ["--what-if", "link={}"], "--what-if link"),
    (LLM + ["--batch", "{}"], "--batch"),
    (LLM + ["--prefill", "{}"], "--prefill"),
    (LLM + ["--decode", "{}"], "--decode"),
    (LLM + ["--chips-count", "{}", "--link", "nvlink"], "--chips-count"),
    (LLM + ["--model", "custom", "--arch", "hidden_size={},layers=32,heads=32,kv_heads=8,"
            "ffn_size=14336,vocab_size=128256"], "hidden_size"),
]
CLI_JUNK = ["0", "-1", "nan", "inf", "1e400", "", "   ", "٣", "💥", "2**5000", "1e16", "1e-300",
            "abc", "9" * 70, "0x10", "\u202e5"]


@pytest.mark.parametrize("argv, flag", CLI_FLAGS, ids=[f for _, f in CLI_FLAGS])
def test_every_numeric_flag_refuses_junk_with_exit_2_and_one_line(capsys, argv, flag):
    for junk in CLI_JUNK:
        rc = cli.main([a.replace("{}", junk) for a in argv])
        out, err = capsys.readouterr()
        assert rc == 2, (flag, junk, out, err)
        lines = err.splitlines()
        assert len(lines) == 1 and lines[0].startswith("roofgui: error: "), (flag, junk, err)
        assert flag in lines[0] or re.search(r"--dims|--what-if|--shard", lines[0]), lines[0]
        assert "Traceback" not in err and out == ""
