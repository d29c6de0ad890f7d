"""The scenario: everything the user set, as plain dataclasses, saved as JSON.

Format (``version`` 1)::

    {
      "format": "roofgui-scenario", "version": 1,
      "title": "...",
      "ops": [{"name": "matmul", "kind": "matmul",
               "dims": {"B": 256, "D": 8192, "F": 8192},
               "dtypes": {"x": "bf16", "w": "bf16", "out": "bf16", "compute": "bf16"},
               "shard": {"axis": "D", "n": 2, "link": "ici"} | null,
               "params": {}}],
      "chips": ["tpu-v5e", "h100-sxm"],
      "what_if": {"peak": 1, "hbm": 1, "link": 1},
      "derate": false,
      "sweep": {"dim": "B", "start": 1, "stop": 16384, "points": 400, "y": "flops"},
      "view": {"roofline": null | [x0, x1, y0, y1]   (log10 units)},
      "selected": 0
    }
"""

from __future__ import annotations

import json
import math
import threading
from collections import OrderedDict
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Mapping

import numpy as np

from roofgui.model.catalog import Catalog
from roofgui.model.chips import Chip
from roofgui.model.errors import ModelError, ScenarioError
from roofgui.model.ops import DTYPE_ROLES, OP_KINDS, Shard, get_kind, load_optional_op_kinds, op_work
from roofgui.model.paths import atomic_write
from roofgui.model.roofline import (Analysis, Result, Settings, analyze, chip_figures,  # noqa: F401
                       critical_values_many, evaluate_figures, evaluate_many)
from roofgui.model.units import MIN_VALUE, WHAT_IF_MAX, WHAT_IF_MIN, check_positive

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


@dataclass
class ViewSpec:
    roofline: list[float] | None = None  # [x0, x1, y0, y1] in log10 units


@dataclass
class Scenario:
    title: str = ""
    ops: list[OpSpec] = field(default_factory=list)
    chips: list[str] = field(default_factory=list)
    what_if: WhatIf = field(default_factory=WhatIf)
    derate: bool = False
    sweep: SweepSpec = field(default_factory=SweepSpec)
    view: ViewSpec = field(default_factory=ViewSpec)
    selected: int = 0

    def settings(self) -> Settings:
        return Settings(self.what_if.peak, self.what_if.hbm, self.what_if.link, self.derate)

    # -- JSON ---------------------------------------------------------------
    def to_dict(self) -> dict:
        d = asdict(self)
        return {"format": FORMAT, "version": VERSION, **d}

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=2, ensure_ascii=False) + "\n"

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
        return _parse(data, where)

    def copy(self) -> "Scenario":
        return Scenario.from_dict(self.to_dict())


def load_scenario(path: str | Path) -> Scenario:
    p = Path(path)
    try:
        size = p.stat().st_size
    except OSError as e:
        raise ScenarioError(str(p), None, f"cannot read: {e.strerror or e}") from None
    if size > MAX_SCENARIO_BYTES:
        raise ScenarioError(str(p), None, f"file is too large ({size} bytes; limit {MAX_SCENARIO_BYTES})")
    try:
        raw = p.read_bytes()
    except OSError as e:
        raise ScenarioError(str(p), None, f"cannot read: {e.strerror or e}") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise ScenarioError(str(p), None, "not a text file (not valid UTF-8)") from None
    return Scenario.from_json(text, str(p))


def save_scenario(scenario: Scenario, path: str | Path) -> None:
    """Atomically write the scenario as JSON."""
    atomic_write(path, scenario.to_json())


# -- validation ------------------------------------------------------------------

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
    _keys(data, {"format", "version", "title", "ops", "chips", "what_if", "derate", "sweep",
                 "view", "selected"}, where, "")
    if data.get("format") != FORMAT:
        _fail(where, "format", f"must be {FORMAT!r} (is this a Roofline Explorer scenario?)")
    if "version" not in data:
        _fail(where, "version", f"is missing (expected \"version\": {VERSION})")
    version = _expect(data.get("version"), int, where, "version", "a whole number")
    if version > VERSION:
        _fail(where, "version", f"is {version}, newer than this app reads ({VERSION}); update Roofline Explorer")
    if version < 1:
        _fail(where, "version", f"must be 1 (got {version})")
    sc = Scenario()
    sc.title = _expect(data.get("title", ""), str, where, "title", "a string")[:500]
    ops = _expect(data.get("ops", []), list, where, "ops", "a list")
    if len(ops) > 200:
        _fail(where, "ops", f"has {len(ops)} ops; at most 200")
    names = set()
    for i, od in enumerate(ops):
        op = _parse_op(od, where, f"ops[{i}].")
        names.add(op.name)
        sc.ops.append(op)
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
    sw = _expect(data.get("sweep", {}), dict, where, "sweep", "an object")
    _keys(sw, {"dim", "start", "stop", "points", "y"}, where, "sweep.")
    sc.sweep.dim = _expect(sw.get("dim", "B"), str, where, "sweep.dim", "a dimension name")
    sc.sweep.start = _positive(_expect(sw.get("start", 1.0), float, where, "sweep.start", "a number"),
                               where, "sweep.start")
    sc.sweep.stop = _positive(_expect(sw.get("stop", 16384.0), float, where, "sweep.stop", "a number"),
                              where, "sweep.stop")
    if sc.sweep.stop <= sc.sweep.start:
        _fail(where, "sweep.stop", "must be greater than sweep.start")
    pts = _expect(sw.get("points", 400), int, where, "sweep.points", "a whole number")
    if not 2 <= pts <= 100_000:
        _fail(where, "sweep.points", f"must be between 2 and 100000 (got {pts})")
    sc.sweep.points = pts
    y = _expect(sw.get("y", "flops"), str, where, "sweep.y", "a string")
    if y not in SWEEP_Y:
        _fail(where, "sweep.y", "must be 'flops' or 'time' (or, for an LLM step, "
              "'throughput' or 'latency')")
    sc.sweep.y = y
    view = _expect(data.get("view", {}), dict, where, "view", "an object")
    _keys(view, {"roofline"}, where, "view.")
    r = view.get("roofline")
    if r is not None:
        r = _expect(r, list, where, "view.roofline", "a list of 4 numbers or null")
        if len(r) != 4 or not all(isinstance(v, (int, float)) and not isinstance(v, bool)
                                  and abs(v) < 60 and math.isfinite(v) for v in r):
            _fail(where, "view.roofline", "must be 4 finite numbers [x0, x1, y0, y1] (log10)")
        if not (r[0] < r[1] and r[2] < r[3]):
            _fail(where, "view.roofline", "must have x0 < x1 and y0 < y1")
        sc.view.roofline = [float(v) for v in r]
    sel = _expect(data.get("selected", 0), int, where, "selected", "a whole number")
    sc.selected = min(max(sel, 0), max(len(sc.ops) - 1, 0))
    return sc


def _positive(v: float, where: str, key: str, max_value: float = 1e15,
              min_value: float = 0.0) -> float:
    try:
        return check_positive(v, key, max_value=max_value, min_value=min_value)
    except ModelError as e:
        _fail(where, key, e.args[0])
    raise AssertionError  # pragma: no cover


def _parse_op(od: Any, where: str, p: str) -> OpSpec:
    od = _expect(od, dict, where, p.rstrip("."), "an object")
    _keys(od, {"name", "kind", "dims", "dtypes", "shard", "params"}, where, p)
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
    from roofgui.model.dtypes import get_dtype
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
        from roofgui.model.chips import SHARD_LINKS as LINK_NAMES
        if link not in LINK_NAMES:
            _fail(where, p + "shard.link", f"unknown link {link!r} (known: {', '.join(LINK_NAMES)})")
        op.shard = ShardSpec(axis, n, link)
    params = _expect(od.get("params", {}), dict, where, p + "params", "an object")
    op.params = _clean_params(params, where, p + "params")
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


# -- evaluation ------------------------------------------------------------------

@dataclass(frozen=True)
class Entry:
    """One op phase on one chip."""

    op_index: int
    op: OpSpec
    phase: str
    chip_id: str
    analysis: Analysis

    @property
    def label(self) -> str:
        return f"{self.op.name} · {self.phase}" if self.phase else self.op.name


@dataclass
class Evaluation:
    """Every (op, phase, chip) of a scenario, and every problem met."""

    entries: list[Entry] = field(default_factory=list)
    chips: list[Chip] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)

    def for_op(self, index: int) -> list[Entry]:
        return [e for e in self.entries if e.op_index == index]


def resolve_chips(scenario: Scenario, catalog: Catalog) -> tuple[list[Chip], list[str]]:
    chips, errors = [], []
    for ref in scenario.chips:
        try:
            chips.append(catalog.get(ref))
        except ModelError as e:
            errors.append(str(e))
    return chips, errors


#: Per-op results, so that an edit of one op of several re-evaluates that op alone: keyed by
#: the op's fields, the chips (by identity) and the settings; a few dozen kept.
_PHASE_CACHE: "OrderedDict[tuple, tuple]" = OrderedDict()
_PHASE_CACHE_SIZE = 64
_PHASE_LOCK = threading.Lock()


def _op_key(kind, op: OpSpec, chips: list[Chip], settings: Settings) -> tuple | None:
    try:
        # (no params, as every op but the LLM step has: what json.dumps gives for {}, without
        # its ~3 us per op on every sweep and evaluation)
        params = "{}" if type(op.params) is dict and not op.params else \
            json.dumps(op.params, sort_keys=True, allow_nan=False)
        shard = None if op.shard is None else (op.shard.axis, op.shard.n, op.shard.link)
        # (the settings by their fields: a frozen dataclass's __hash__ is Python code, run
        # again at every hash of the key, ~1 us each time)
        key = (op.kind, id(kind), tuple(sorted(op.dims.items())), tuple(sorted(op.dtypes.items())),
               shard, params, tuple(id(c) for c in chips), type(settings),
               tuple(vars(settings).values()))
        hash(key)
    except (TypeError, ValueError):  # values that do not make a key (arrays, objects): no cache
        return None
    return key


def _cached_phases(kind, op: OpSpec, chips: list[Chip], settings: Settings) -> dict[str, list]:
    """:func:`_op_phases`, remembered: the same op on the same chip objects gives the same cells."""
    key = _op_key(kind, op, chips, settings)
    if key is not None:
        with _PHASE_LOCK:
            hit = _PHASE_CACHE.get(key)
            if (hit is not None and hit[0] is kind and len(hit[1]) == len(chips)
                    and all(a is b for a, b in zip(hit[1], chips))):
                _PHASE_CACHE.move_to_end(key)
                return hit[2]
    per_phase = _op_phases(kind, op, chips, settings)
    if key is not None:
        with _PHASE_LOCK:
            _PHASE_CACHE[key] = (kind, tuple(chips), per_phase)
            while len(_PHASE_CACHE) > _PHASE_CACHE_SIZE:
                _PHASE_CACHE.popitem(last=False)
    return per_phase


def _op_phases(kind, op: OpSpec, chips: list[Chip], settings: Settings) -> dict[str, list]:
    """Each phase's cells for one op: an :class:`Analysis` per chip, or the ModelError."""
    # What ``analyze`` gives per (chip, phase), with the chip-independent work counted
    # once per phase and the critical values of all chips in one vectorised call.
    dims, shard = op.full_dims(), op.shard_obj()
    per_phase: dict[str, list] = {}
    for phase in kind.phases:
        try:
            work = op_work(kind, dims, op.dtypes, shard, op.params, phase)
        except ModelError as e:
            per_phase[phase] = [e] * len(chips)
            continue
        cells: list = []
        for chip in chips:
            try:
                cells.append(chip_figures(chip, work, settings))
            except ModelError as e:
                cells.append(e)
        ok = [c for c, f in enumerate(cells) if not isinstance(f, ModelError)]
        try:
            crits = critical_values_many(kind, dims, [cells[c] for c in ok], dtypes=op.dtypes,
                                         shard=shard, params=op.params, phase=phase)
        except ModelError as e:
            per_phase[phase] = [c if isinstance(c, ModelError) else e for c in cells]
            continue
        if ok:  # every chip in one roofline call, each chip's Result a view of its row
            res = evaluate_figures(work, [cells[c] for c in ok])
            fields = [getattr(res, f) for f in Result.__dataclass_fields__]
            for j, (c, crit) in enumerate(zip(ok, crits)):
                figs = cells[c]
                cells[c] = Analysis(figs.chip, figs, work, Result(*(a[j, ...] for a in fields)),
                                    crit)
        per_phase[phase] = cells
    return per_phase


def evaluate_scenario(scenario: Scenario, catalog: Catalog) -> Evaluation:
    """Evaluate every op of the scenario on every chip; problems go to ``errors``."""
    ev = Evaluation()
    ev.chips, ev.errors = resolve_chips(scenario, catalog)
    settings = scenario.settings()
    for i, op in enumerate(scenario.ops):
        kind = OP_KINDS.get(op.kind)
        if kind is None:
            ev.errors.append(f"{op.name}: unknown op {op.kind!r}")
            continue
        per_phase = _cached_phases(kind, op, ev.chips, settings)
        for c, chip in enumerate(ev.chips):
            for phase in kind.phases:
                a = per_phase[phase][c]
                if isinstance(a, ModelError):
                    ev.errors.append(f"{op.name} on {chip.name}: {a}")
                    continue
                ev.entries.append(Entry(i, op, phase, chip.id, a))
    return ev


def sweep_values(spec: SweepSpec) -> np.ndarray:
    """Log-spaced sweep points (rounded to integers when the range allows)."""
    v = np.geomspace(spec.start, spec.stop, spec.points)
    return v


_RESULT_FIELDS = tuple(Result.__dataclass_fields__)


def _frozen(cls, names: tuple[str, ...], values) -> Any:
    """``cls(*values)`` for a frozen dataclass of the fields ``names`` (all of them, in
    order) that has no ``__post_init__``: the object its ``__init__`` builds, with the same
    ``__dict__``, filled in one update instead of one ``object.__setattr__`` per field.

    A sweep edit builds a curve for every op × chip (32 in the busy scenario) and a
    Result for every chip of the edited op: ~2.6 -> 1.0 us a curve, and the eight
    Results of the edited op 50 -> 34 us with their rows (tests/test_model_shortcuts.py
    checks the objects are those of ``__init__``).
    """
    obj = object.__new__(cls)
    obj.__dict__.update(zip(names, values))
    return obj


@dataclass(frozen=True)
class SweepCurve:
    op_index: int
    op: OpSpec
    phase: str
    chip: Chip
    x: np.ndarray
    result: Result
    critical: float | None

    @property
    def label(self) -> str:
        base = f"{self.op.name} · {self.phase}" if self.phase else self.op.name
        return f"{base} — {self.chip.label()}"


_CURVE_FIELDS = tuple(SweepCurve.__dataclass_fields__)


#: Per-op sweeps, so that an edit of one op of several sweeps that op alone (as
#: ``_PHASE_CACHE`` does for the roofline): keyed by the op's fields, the chips (by
#: identity), the settings and the swept dimension and points.  A sweep is large
#: (13 arrays per chip: 1.7 MB for 8 chips × 2,000 points), so the cache is bounded by
#: the bytes it holds, not by a count.
_SWEEP_CACHE: "OrderedDict[tuple, tuple]" = OrderedDict()
_SWEEP_CACHE_BYTES = 48 * 1024 * 1024
_SWEEP_LOCK = threading.Lock()
_sweep_bytes = 0
#: the points of the last few sweep specs, one read-only array each, so that every op
#: of a sweep (and the next sweep of the same points) shares one ``x``
_SWEEP_X: "OrderedDict[tuple, np.ndarray]" = OrderedDict()


def _shared_sweep_values(spec: SweepSpec) -> np.ndarray:
    key = (float(spec.start), float(spec.stop), int(spec.points))
    with _SWEEP_LOCK:
        x = _SWEEP_X.get(key)
        if x is not None:
            _SWEEP_X.move_to_end(key)
            return x
    x = np.asarray(sweep_values(spec), dtype=np.float64)
    x.flags.writeable = False  # shared by every curve of every sweep of these points
    with _SWEEP_LOCK:
        _SWEEP_X[key] = x
        while len(_SWEEP_X) > 8:
            _SWEEP_X.popitem(last=False)
    return x


def _sweep_op(kind, op: OpSpec, chips: list[Chip], settings: Settings, dim: str,
              x: np.ndarray) -> list[tuple[str, list, list]]:
    """One op swept along ``dim``: per phase, ``(phase, cells, problems)`` where a cell is
    ``(chip, Result, critical value of dim or None)`` and a problem ``(chip name or None,
    message)``.  Every result array is read-only: cached results are shared."""
    base, shard = op.full_dims(), op.shard_obj()
    dims = dict(base)
    dims[dim] = x
    out: list[tuple[str, list, list]] = []
    for phase in kind.phases:
        problems: list[tuple[str | None, str]] = []
        try:
            work = op_work(kind, dims, op.dtypes, shard, op.params, phase)
        except ModelError as e:
            out.append((phase, [], [(None, str(e))]))
            continue
        ok_figs = []
        for chip in chips:
            try:
                ok_figs.append(chip_figures(chip, work, settings))
            except ModelError as e:
                problems.append((chip.name, str(e)))
        if not ok_figs:
            out.append((phase, [], problems))
            continue
        res = evaluate_figures(work, ok_figs)  # evaluate_many, without a second lookup
        crits = critical_values_many(kind, base, ok_figs, dtypes=op.dtypes, shard=shard,
                                     params=op.params, phase=phase, names=[dim])
        arrays = [getattr(res, f) for f in _RESULT_FIELDS]
        for a in arrays:
            if isinstance(a, np.ndarray):
                a.flags.writeable = False
        # each chip's Result: row c of every field (iterating an array yields its rows)
        cells = [(figs.chip, _frozen(Result, _RESULT_FIELDS, row), crit.get(dim))
                 for figs, crit, row in zip(ok_figs, crits, zip(*arrays))]
        out.append((phase, cells, problems))
    return out


def _sweep_nbytes(per_phase: list[tuple[str, list, list]]) -> int:
    seen: dict[int, int] = {}
    for _, cells, _ in per_phase:
        # a phase's cells are rows of the same arrays (see _sweep_op): the first has them all
        for _, res, _ in cells[:1]:
            for f in _RESULT_FIELDS:
                a = getattr(res, f)
                base = a.base if isinstance(a, np.ndarray) and a.base is not None else a
                if isinstance(base, np.ndarray):
                    seen[id(base)] = base.nbytes
    return sum(seen.values()) + 1024


def _cached_sweep(kind, op: OpSpec, chips: list[Chip], settings: Settings, dim: str,
                  x: np.ndarray, shared_x: bool) -> list[tuple[str, list, list]]:
    """:func:`_sweep_op`, remembered when ``x`` is a shared sweep array: the same op on the
    same chip objects and points gives the same (read-only) results."""
    global _sweep_bytes
    key = _op_key(kind, op, chips, settings) if shared_x else None
    if key is not None:
        key = key + (dim, id(x))
        with _SWEEP_LOCK:
            hit = _SWEEP_CACHE.get(key)
            if (hit is not None and hit[0] is kind and hit[1] is x and len(hit[2]) == len(chips)
                    and all(a is b for a, b in zip(hit[2], chips))):
                _SWEEP_CACHE.move_to_end(key)
                return hit[3]
    per_phase = _sweep_op(kind, op, chips, settings, dim, x)
    if key is not None:
        size = _sweep_nbytes(per_phase)
        with _SWEEP_LOCK:
            old = _SWEEP_CACHE.pop(key, None)
            if old is not None:
                _sweep_bytes -= old[4]
            _SWEEP_CACHE[key] = (kind, x, tuple(chips), per_phase, size)
            _sweep_bytes += size
            while _sweep_bytes > _SWEEP_CACHE_BYTES and len(_SWEEP_CACHE) > 1:
                _sweep_bytes -= _SWEEP_CACHE.popitem(last=False)[1][4]
    return per_phase


def sweep_scenario(scenario: Scenario, catalog: Catalog,
                   values: np.ndarray | None = None) -> tuple[list[SweepCurve], list[str]]:
    """Sweep the chosen dimension for every op × chip: one vectorised call per op.

    An op unchanged since an earlier sweep of the same points on the same chips is not
    swept again: its curves carry the same (read-only) result arrays as before, which
    lets the sweep plot skip them too.
    """
    shared = values is None
    x = _shared_sweep_values(scenario.sweep) if shared else np.asarray(values, dtype=np.float64)
    global _LAST_CURVES
    chips, errors = resolve_chips(scenario, catalog)
    settings = scenario.settings()
    curves: list[SweepCurve] = []
    dim = scenario.sweep.dim
    last, built = _LAST_CURVES, {}
    for i, op in enumerate(scenario.ops):
        kind = OP_KINDS.get(op.kind)
        if kind is None or dim not in kind.dim_names():
            continue
        per_phase = _cached_sweep(kind, op, chips, settings, dim, x, shared)
        for phase, cells, problems in per_phase:
            for chip_name, msg in problems:
                errors.append(f"{op.name}: {msg}" if chip_name is None
                              else f"{op.name} on {chip_name}: {msg}")
        hit = last.get((id(per_phase), i))
        # (the window copies its scenario at every edit: an op left alone is an equal
        # OpSpec, not the same one; its curves, which hold the OpSpec of last time, give
        # the same values)
        if hit is not None and hit[0] is per_phase and hit[2] is x \
                and (hit[1] is op or hit[1] == op):
            op_curves = hit[3]
        else:
            op_curves = [_frozen(SweepCurve, _CURVE_FIELDS, (i, op, phase, chip, x, res, crit))
                         for phase, cells, _ in per_phase for chip, res, crit in cells]
        built[(id(per_phase), i)] = (per_phase, op, x, op_curves)
        curves += op_curves
    _LAST_CURVES = built
    return curves, errors


#: The curves the last :func:`sweep_scenario` built, per op: ``(id(its sweep), op index)
#: -> (sweep, op, x, curves)``.  An op whose sweep, index and points are those of last
#: time, and whose OpSpec is that one or an equal one, has the same curves (frozen): they
#: are handed out again rather than built anew (the busy sweep's edit leaves 3 ops of 4
#: alone: 24 curves, ~40 us).  Holds the last call's ops only, so it keeps no sweep the
#: sweep cache has dropped for longer than one call.
_LAST_CURVES: dict[tuple, tuple] = {}


def default_scenario() -> Scenario:
    """The first-launch example: the reference's bf16 matmul on TPU v5e and H100."""
    return Scenario(
        title="bf16 matmul: TPU v5e vs H100 (is B = 256 compute-bound?)",
        ops=[OpSpec("matmul", "matmul", {"B": 256, "D": 8192, "F": 8192},
                    {"x": "bf16", "w": "bf16", "out": "bf16", "compute": "bf16"})],
        chips=["tpu-v5e", "h100-sxm"],
    )
