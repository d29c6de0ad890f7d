"""The scenario: everything the user set, as plain dataclasses, saved as JSON.

Format (``version`` 1)::

    {
      "format": "roofgui-scenario", "version": 1,
      "title": "...",
      "ops": [{"name": "matmul", "kind": "matmul",
               "dims": {"B": 256, "D": 8192, "F": 8192},
               "dtypes": {"x": "bf16", "w": "bf16", "out": "bf16", "compute": "bf16"},
               "shard": {"axis": "D", "n": 2, "link": "ici"} | null,
               "params": {}, "tile": {"bm": 128, "bn": 128, "bk": 64} (matmul; optional)}],
      "chips": ["tpu-v5e", "h100-sxm"],
      "what_if": {"peak": 1, "hbm": 1, "link": 1},
      "derate": false, "derates": [{"name": "cal", "chip": "h100-sxm", "compute": 0.7, ...}],
      "sweep": {"dim": "B", "start": 1, "stop": 16384, "points": 400, "y": "flops"},
      "view": {"roofline": null | [x0, x1, y0, y1]   (log10 units),
               "tab": "roofline" | "sweep"   (optional: the plot it opens on)},
      "selected": 0
    }
"""

from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from roofgui.model.chips import SHARD_LINKS
from roofgui.model.derate import Derate, parse_derates
from roofgui.model.dtypes import get_dtype
from roofgui.model.errors import ModelError, ScenarioError
from roofgui.model.view import VIEW_LIMIT, VIEW_TABS, ViewSpec, parse_view, view_in_range  # noqa: F401
from roofgui.model.ops import DTYPE_ROLES, OP_KINDS, Shard, get_kind, load_optional_op_kinds
from roofgui.model.paths import UnreadableFile, atomic_write, read_regular_file
from roofgui.model.roofline import Settings
from roofgui.model.units import MIN_VALUE, WHAT_IF_MAX, WHAT_IF_MIN, check_positive
from roofgui.model.tiling import Tile, make_tile, op_tile

FORMAT = "roofgui-scenario"
VERSION = 1
MAX_SCENARIO_BYTES = 4 * 1024 * 1024
#: What a sweep plots: attainable FLOP/s, time per op, or (the LLM step's views, drawn
#: against batch by the window) serving throughput and per-token latency.
SWEEP_Y = ("flops", "time", "throughput", "latency")


@dataclass
class ShardSpec:
    axis: str = "D"
    n: int = 2
    link: str = "ici"


@dataclass
class OpSpec:
    name: str = "matmul"
    kind: str = "matmul"
    dims: dict[str, float] = field(default_factory=dict)
    dtypes: dict[str, str] = field(default_factory=dict)
    shard: ShardSpec | None = None
    params: dict[str, Any] = field(default_factory=dict)
    #: a matmul's tile sizes {"bm", "bn"[, "bk"]} for the memory-level view; None: untiled
    tile: dict[str, int] | None = None

    def tile_obj(self) -> Tile | None:
        return make_tile(self.tile) if self.tile else None

    def shard_obj(self) -> Shard | None:
        if self.shard is None or self.shard.n == 1:
            return None
        return Shard(self.shard.axis, int(self.shard.n), self.shard.link)

    def full_dims(self) -> dict[str, float]:
        k = get_kind(self.kind)
        return {d.name: float(self.dims.get(d.name, d.default)) for d in k.dims}


@dataclass
class WhatIf:
    peak: float = 1.0
    hbm: float = 1.0
    link: float = 1.0


@dataclass
class SweepSpec:
    dim: str = "B"
    start: float = 1.0
    stop: float = 16384.0
    points: int = 400
    y: str = "flops"  # one of SWEEP_Y: "flops", "time"; for an LLM step "throughput", "latency"
    all_ops: bool = False  # every op's curves, or (False) the selected op's alone




@dataclass
class Scenario:
    title: str = ""
    ops: list[OpSpec] = field(default_factory=list)
    chips: list[str] = field(default_factory=list)
    what_if: WhatIf = field(default_factory=WhatIf)
    derate: bool = False
    derates: list[Derate] = field(default_factory=list)  # (see roofgui.model.derate)
    sweep: SweepSpec = field(default_factory=SweepSpec)
    view: ViewSpec = field(default_factory=ViewSpec)
    selected: int = 0
    #: What reading the file set right (a view out of range, ...): shown once, never saved.
    notices: list[str] = field(default_factory=list, compare=False, repr=False)
    #: The file it was read from (chip paths in it are relative to its folder); never saved.
    source: str | None = field(default=None, compare=False, repr=False)

    def settings(self) -> Settings:
        return Settings(self.what_if.peak, self.what_if.hbm, self.what_if.link, self.derate)

    # -- JSON ---------------------------------------------------------------
    def to_dict(self) -> dict:
        d = asdict(self)
        d["ops"] = [{k: v for k, v in op.items() if k != "tile" or v} for op in d["ops"]]  # untiled: as before
        d.pop("notices")
        d.pop("source")
        if d["view"]["roofline"] is not None and not view_in_range(d["view"]["roofline"]):
            d["view"]["roofline"] = None
        return {"format": FORMAT, "version": VERSION, **d}

    def to_json(self) -> str:
        text = json.dumps(self.to_dict(), indent=2, ensure_ascii=False) + "\n"
        try:
            text.encode("utf-8")
        except UnicodeEncodeError:  # a lone surrogate (pasted, or from a file): JSON escapes it
            text = json.dumps(self.to_dict(), indent=2, ensure_ascii=True) + "\n"
        return text

    @classmethod
    def from_dict(cls, data: Any, where: str = "scenario") -> "Scenario":
        return _parse(data, where)

    @classmethod
    def from_json(cls, text: str, where: str = "scenario") -> "Scenario":
        try:
            data = json.loads(text)
        except json.JSONDecodeError as e:
            raise ScenarioError(where, None, f"not valid JSON: {e.msg} at line {e.lineno}") from None
        except RecursionError:
            raise ScenarioError(where, None, "not valid JSON: nested too deeply") from None
        except ValueError:  # an integer past Python's int-string conversion limit
            raise ScenarioError(where, None, "a number is too large (thousands of digits)") from None
        return _parse(data, where)

    def copy(self) -> "Scenario":
        c = Scenario.from_dict(self.to_dict())
        c.source = self.source
        return c


def load_scenario(path: str | Path) -> Scenario:
    p = Path(path)
    try:
        raw = read_regular_file(p, MAX_SCENARIO_BYTES)
    except UnreadableFile as e:
        raise ScenarioError(str(p), None, "cannot read: " + str(e).split(": ", 1)[-1]) from None
    except OSError as e:
        raise ScenarioError(str(p), None, f"cannot read: {e.strerror or e}") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise ScenarioError(str(p), None, "not a text file (not valid UTF-8)") from None
    sc = Scenario.from_json(text, str(p))
    sc.source = str(p.resolve())
    return sc


def save_scenario(scenario: Scenario, path: str | Path) -> None:
    """Atomically write the scenario as JSON."""
    atomic_write(path, scenario.to_json())


def _fail(where: str, key: str, problem: str):
    raise ScenarioError(where, key, problem)


def _expect(data: Any, typ, where: str, key: str, what: str):
    if typ is float:
        if isinstance(data, bool) or not isinstance(data, (int, float)):
            _fail(where, key, f"must be {what}, not {_tn(data)}")
        try:
            return float(data)
        except OverflowError:  # a JSON integer with hundreds of digits
            _fail(where, key, "is too large (past what a float holds)")
    if typ is int:
        if isinstance(data, bool) or not isinstance(data, int):
            if isinstance(data, float) and data.is_integer():
                return int(data)
            _fail(where, key, f"must be {what}, not {_tn(data)}")
        return data
    if not isinstance(data, typ):
        _fail(where, key, f"must be {what}, not {_tn(data)}")
    return data


def _tn(v: Any) -> str:
    return {dict: "an object", list: "a list", str: "a string", bool: "true/false",
            type(None): "null", int: "a number", float: "a number"}.get(type(v), type(v).__name__)


def _keys(d: dict, allowed: set[str], where: str, prefix: str) -> None:
    for k in d:
        if k not in allowed:
            _fail(where, f"{prefix}{k}", f"unknown key (allowed: {', '.join(sorted(allowed))})")


def _parse(data: Any, where: str) -> Scenario:
    data = _expect(data, dict, where, "(top level)", "an object")
    _keys(data, {"format", "version", "title", "ops", "chips", "what_if", "derate", "derates",
                 "sweep", "view", "selected"}, where, "")
    _check_version(data, where)
    sc = Scenario()
    sc.title = _expect(data.get("title", ""), str, where, "title", "a string")[:500]
    ops = _expect(data.get("ops", []), list, where, "ops", "a list")
    if len(ops) > 200:
        _fail(where, "ops", f"has {len(ops)} ops; at most 200")
    sc.ops = [_parse_op(od, where, f"ops[{i}].") for i, od in enumerate(ops)]
    chips = _expect(data.get("chips", []), list, where, "chips", "a list")
    if len(chips) > 100:
        _fail(where, "chips", f"has {len(chips)} chips; at most 100")
    for i, c in enumerate(chips):
        c = _expect(c, str, where, f"chips[{i}]", "a chip id")
        if c not in sc.chips:
            sc.chips.append(c)
    wi = _expect(data.get("what_if", {}), dict, where, "what_if", "an object")
    _keys(wi, {"peak", "hbm", "link"}, where, "what_if.")
    for k in ("peak", "hbm", "link"):
        v = _expect(wi.get(k, 1.0), float, where, f"what_if.{k}", "a number")
        _positive(v, where, f"what_if.{k}", max_value=WHAT_IF_MAX, min_value=WHAT_IF_MIN)
        setattr(sc.what_if, k, v)
    sc.derate = _expect(data.get("derate", False), bool, where, "derate", "true or false")
    sc.derates = parse_derates(data.get("derates", []), where, sc.notices)
    sc.sweep = _parse_sweep(_expect(data.get("sweep", {}), dict, where, "sweep", "an object"), where)
    sc.view = parse_view(_expect(data.get("view", {}), dict, where, "view", "an object"), where, sc.notices)
    sel = _expect(data.get("selected", 0), int, where, "selected", "a whole number")
    sc.selected = min(max(sel, 0), max(len(sc.ops) - 1, 0))
    return sc


def _check_version(data: dict, where: str) -> None:
    if data.get("format") != FORMAT:
        _fail(where, "format", f"must be {FORMAT!r} (is this a Roofline Explorer scenario?)")
    if "version" not in data:
        _fail(where, "version", f"is missing (expected \"version\": {VERSION})")
    version = _expect(data.get("version"), int, where, "version", "a whole number")
    if version > VERSION:
        _fail(where, "version", f"is {version}, newer than this app reads ({VERSION}); update Roofline Explorer")
    if version < 1:
        _fail(where, "version", f"must be 1 (got {version})")


def _parse_sweep(sw: dict, where: str) -> SweepSpec:
    _keys(sw, {"dim", "start", "stop", "points", "y", "all_ops"}, where, "sweep.")
    spec = SweepSpec()
    spec.dim = _expect(sw.get("dim", "B"), str, where, "sweep.dim", "a dimension name")
    spec.start = _positive(_expect(sw.get("start", 1.0), float, where, "sweep.start", "a number"),
                           where, "sweep.start")
    spec.stop = _positive(_expect(sw.get("stop", 16384.0), float, where, "sweep.stop", "a number"),
                          where, "sweep.stop")
    if spec.stop <= spec.start:
        _fail(where, "sweep.stop", "must be greater than sweep.start")
    pts = _expect(sw.get("points", 400), int, where, "sweep.points", "a whole number")
    if not 2 <= pts <= 100_000:
        _fail(where, "sweep.points", f"must be between 2 and 100000 (got {pts})")
    spec.points = pts
    y = _expect(sw.get("y", "flops"), str, where, "sweep.y", "a string")
    if y not in SWEEP_Y:
        _fail(where, "sweep.y", "must be 'flops' or 'time' (or, for an LLM step, "
              "'throughput' or 'latency')")
    spec.y, spec.all_ops = y, _expect(sw.get("all_ops", False), bool, where, "sweep.all_ops", "true or false")
    return spec




def _positive(v: float, where: str, key: str, max_value: float = 1e15,
              min_value: float = 0.0) -> float:
    try:
        return check_positive(v, key, max_value=max_value, min_value=min_value)
    except ModelError as e:
        _fail(where, key, e.args[0])
    raise AssertionError  # pragma: no cover


def _parse_op(od: Any, where: str, p: str) -> OpSpec:
    od = _expect(od, dict, where, p.rstrip("."), "an object")
    _keys(od, {"name", "kind", "dims", "dtypes", "shard", "params", "tile"}, where, p)
    kind = _expect(od.get("kind", "matmul"), str, where, p + "kind", "an op kind")
    if kind not in OP_KINDS:
        load_optional_op_kinds()
    if kind not in OP_KINDS:
        _fail(where, p + "kind", f"unknown op {kind!r} (known: {', '.join(OP_KINDS)})")
    k = OP_KINDS[kind]
    op = OpSpec(kind=kind)
    op.name = _expect(od.get("name", kind), str, where, p + "name", "a string")[:200] or kind
    dims = _expect(od.get("dims", {}), dict, where, p + "dims", "an object")
    for dn, dv in dims.items():
        if dn not in k.dim_names():
            _fail(where, f"{p}dims.{dn}", f"{kind} has no dimension {dn!r} (it has {', '.join(k.dim_names())})")
        v = _expect(dv, float, where, f"{p}dims.{dn}", "a number")
        integer = next(d for d in k.dims if d.name == dn).integer
        op.dims[dn] = _positive(v, where, f"{p}dims.{dn}", min_value=0.0 if integer else MIN_VALUE)
        if integer and op.dims[dn] < 1:
            _fail(where, f"{p}dims.{dn}", f"must be at least 1 (got {op.dims[dn]:g})")
    dts = _expect(od.get("dtypes", {}), dict, where, p + "dtypes", "an object")
    for role, name in dts.items():
        if role not in DTYPE_ROLES:
            _fail(where, f"{p}dtypes.{role}", f"unknown role (allowed: {', '.join(DTYPE_ROLES)})")
        name = _expect(name, str, where, f"{p}dtypes.{role}", "a dtype name")
        try:
            op.dtypes[role] = get_dtype(name).name
        except ModelError as e:
            _fail(where, f"{p}dtypes.{role}", e.args[0])
    sh = od.get("shard")
    if sh is not None:
        sh = _expect(sh, dict, where, p + "shard", "an object or null")
        _keys(sh, {"axis", "n", "link"}, where, p + "shard.")
        axis = _expect(sh.get("axis", ""), str, where, p + "shard.axis", "an axis name")
        if axis not in k.shard_axes:
            _fail(where, p + "shard.axis", f"{kind} cannot be sharded along {axis!r} "
                  f"(axes: {', '.join(k.shard_axes) or 'none'})")
        n = _expect(sh.get("n", 1), int, where, p + "shard.n", "a whole number")
        if not 1 <= n <= 1_000_000:
            _fail(where, p + "shard.n", f"must be between 1 and 1000000 (got {n})")
        link = _expect(sh.get("link", ""), str, where, p + "shard.link", "a link name")
        if link not in SHARD_LINKS:
            _fail(where, p + "shard.link", f"unknown link {link!r} (known: {', '.join(SHARD_LINKS)})")
        op.shard = ShardSpec(axis, n, link)
    params = _expect(od.get("params", {}), dict, where, p + "params", "an object")
    op.params = _clean_params(params, where, p + "params")
    try:
        op.tile = op_tile(od.get("tile"), kind)
    except ModelError as e:
        _fail(where, p + "tile", e.args[0])
    return op


#: How deeply op parameters may nest (objects within objects).
MAX_PARAMS_DEPTH = 8


def _clean_params(params: dict, where: str, p: str, depth: int = 0) -> dict:
    if depth > MAX_PARAMS_DEPTH:
        _fail(where, p, f"is nested more than {MAX_PARAMS_DEPTH} levels deep")
    out: dict[str, Any] = {}
    for key, v in params.items():
        if isinstance(v, bool) or isinstance(v, str) or v is None:
            out[key] = v
        elif isinstance(v, (int, float)):
            if abs(v) > 1e300 or not math.isfinite(v):  # (abs first: a huge int has no float)
                _fail(where, f"{p}.{key}", "must be finite")
            out[key] = v
        elif isinstance(v, dict):
            out[key] = _clean_params(v, where, f"{p}.{key}", depth + 1)
        else:
            _fail(where, f"{p}.{key}", f"must be a number, string, true/false or object, not {_tn(v)}")
    return out


def default_scenario() -> Scenario:
    """The first-launch example: the reference's bf16 matmul on TPU v5e and H100."""
    return Scenario(
        title="bf16 matmul: TPU v5e vs H100 (is B = 256 compute-bound?)",
        ops=[OpSpec("matmul", "matmul", {"B": 256, "D": 8192, "F": 8192},
                    {"x": "bf16", "w": "bf16", "out": "bf16", "compute": "bf16"})],
        chips=["tpu-v5e", "h100-sxm"],
    )
