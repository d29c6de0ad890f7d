"""Accelerator descriptions: peak FLOP/s per dtype, memory, links, each figure cited.

A chip is read from a TOML file (schema in ``specs/README.md``).  Parsing is
strict: an unknown key, a missing source or a non-positive figure raises a
:class:`SpecError` naming the file, the key and the problem.
"""

from __future__ import annotations

import math
import numbers
import tomllib
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Mapping

from roofgui.model.dtypes import PEAK_FALLBACK, PEAK_KEYS
from roofgui.model.errors import ModelError, SpecError

FORMAT_VERSION = 1
LINK_NAMES = ("ici", "nvlink", "xgmi", "neuronlink", "pcie", "dcn", "ethernet")
#: Links a chip's scale-up domain uses (fastest first in ties); "scale-up" picks each chip's own.
SCALE_UP_LINKS = ("ici", "nvlink", "xgmi", "neuronlink", "ethernet")
SCALE_UP = "scale-up"
#: Names an op's sharding may name: a concrete link, or each chip's own scale-up link.
SHARD_LINKS = LINK_NAMES + (SCALE_UP,)
KINDS = ("TPU", "GPU", "Accelerator")
#: Chip files larger than this are refused before parsing.
MAX_FILE_BYTES = 256 * 1024

_FIGURE_KEYS = {"value", "source", "sparsity_halved", "note", "alternatives"}
_TOP_KEYS = {"format", "id", "name", "vendor", "kind", "summary", "sources", "matrix",
             "vector", "memory", "links", "achievable"}


@dataclass(frozen=True)
class Figure:
    """One cited number."""

    value: float
    source: str = ""
    sparsity_halved: bool = False
    note: str = ""
    alternatives: str = ""

    def scaled(self, factor: float, why: str) -> "Figure":
        if factor == 1.0:
            return self
        note = f"{self.note}; {why}" if self.note else why
        return replace(self, value=self.value * factor, note=note)


@dataclass(frozen=True)
class Link:
    """A chip-to-chip link: one-way bandwidth per chip per direction."""

    name: str
    bandwidth: Figure
    description: str = ""


@dataclass(frozen=True)
class Peak:
    """A peak looked up for a dtype, with what was actually used."""

    value: float
    key: str
    unit: str
    note: str = ""


@dataclass(frozen=True)
class Chip:
    """An accelerator.  All figures are per chip."""

    id: str
    name: str
    vendor: str
    kind: str
    matrix: Mapping[str, Figure]
    vector: Mapping[str, Figure]
    hbm_capacity: Figure
    hbm_bandwidth: Figure
    links: Mapping[str, Link]
    sources: Mapping[str, str]
    achievable: Figure | None = None
    summary: str = ""
    path: str = ""
    builtin: bool = True
    #: what-if multipliers already applied (peak, hbm, link), for legends
    what_if: tuple[float, float, float] = (1.0, 1.0, 1.0)

    # -- lookups -----------------------------------------------------------
    def peak(self, key: str, unit: str = "matrix") -> Peak:
        """Peak FLOP/s for a dtype peak key on a unit, with fallbacks.

        Raises
        ------
        ModelError
            If the chip publishes no figure that can serve.
        """
        table = self.matrix if unit == "matrix" else self.vector
        if key in table:
            return Peak(table[key].value, key, unit)
        for alt in PEAK_FALLBACK.get(key, ()):
            if alt in table:
                return Peak(table[alt].value, alt, unit,
                            f"{self.name} has no {key} {unit} path; runs at its {alt} peak")
        if unit == "vector" and "fp32" in table:
            # Vector units compute narrow types at least at their fp32 rate.
            return Peak(table["fp32"].value, "fp32", unit,
                        f"{self.name} publishes no {key} vector peak; using its fp32 vector peak")
        if unit == "vector":
            # No published vector figure: the matrix peak is the only number we have.
            p = self.peak(key, "matrix")
            return Peak(p.value, p.key, "matrix",
                        f"{self.name} publishes no vector-unit peak; using its {p.key} matrix peak")
        raise ModelError(f"{self.name} has no {key} {unit} peak in its spec", "compute dtype")

    def link(self, name: str) -> Link:
        """A link by name; ``"scale-up"`` is the chip's fastest scale-up link."""
        if name == SCALE_UP:
            ups = [self.links[n] for n in SCALE_UP_LINKS if n in self.links]
            if not ups:
                have = ", ".join(self.links) or "none"
                raise ModelError(f"{self.name} has no scale-up link (it has: {have})", "link")
            return max(ups, key=lambda l: l.bandwidth.value)
        try:
            return self.links[name]
        except KeyError:
            have = ", ".join(self.links) or "none"
            raise ModelError(f"{self.name} has no {name!r} link (it has: {have})", "link") from None

    @property
    def critical_intensity(self) -> float:
        """bf16 (else best available) matrix peak over HBM bandwidth."""
        return self.peak("bf16").value / self.hbm_bandwidth.value

    def headline_peak(self) -> Peak:
        return self.peak("bf16")

    def scaled(self, peak: float = 1.0, hbm: float = 1.0, link: float = 1.0) -> "Chip":
        """A copy with what-if multipliers applied to peaks, HBM and link bandwidths."""
        from roofgui.model.units import WHAT_IF_MAX, WHAT_IF_MIN

        for n, v in (("peak", peak), ("hbm", hbm), ("link", link)):
            if isinstance(v, bool) or not (isinstance(v, numbers.Real) and math.isfinite(v) and v > 0):
                raise ModelError(f"what-if multiplier must be a positive number (got {v!r})", n)
            if not WHAT_IF_MIN <= v <= WHAT_IF_MAX:
                raise ModelError(f"what-if multiplier must be between {WHAT_IF_MIN:g} and "
                                 f"{WHAT_IF_MAX:g} (got {v:g})", n)
        peak, hbm, link = float(peak), float(hbm), float(link)
        if peak == hbm == link == 1.0:
            return self
        why = "what-if ×{:g}"
        return replace(
            self,
            matrix={k: f.scaled(peak, why.format(peak)) for k, f in self.matrix.items()},
            vector={k: f.scaled(peak, why.format(peak)) for k, f in self.vector.items()},
            hbm_bandwidth=self.hbm_bandwidth.scaled(hbm, why.format(hbm)),
            links={k: replace(l, bandwidth=l.bandwidth.scaled(link, why.format(link)))
                   for k, l in self.links.items()},
            what_if=(self.what_if[0] * peak, self.what_if[1] * hbm, self.what_if[2] * link),
        )

    def label(self) -> str:
        """Display name with any what-if multipliers, for legends."""
        parts = [f"{n}×{v:g}" for n, v in zip(("peak", "HBM", "link"), self.what_if) if v != 1.0]
        return f"{self.name} ({', '.join(parts)})" if parts else self.name


# -- parsing -----------------------------------------------------------------

def load_chip_file(path: str | Path, *, builtin: bool = False) -> Chip:
    """Read and validate one chip TOML file."""
    p = Path(path)
    where = str(p)
    try:
        size = p.stat().st_size
    except OSError as e:
        raise SpecError(where, None, f"cannot read: {e.strerror or e}") from None
    if size > MAX_FILE_BYTES:
        raise SpecError(where, None, f"file is too large ({size} bytes; limit {MAX_FILE_BYTES})")
    try:
        raw = p.read_bytes()
    except OSError as e:
        raise SpecError(where, None, f"cannot read: {e.strerror or e}") from None
    return parse_chip_toml(raw, where, builtin=builtin)


def parse_chip_toml(raw: bytes | str, where: str, *, builtin: bool = False,
                    expected_id: str | None = None) -> Chip:
    """Parse and validate a chip file's content."""
    data = _parse_toml(raw, where)
    if expected_id is None and where.endswith(".toml"):
        expected_id = Path(where).stem
    return parse_chip(data, where, builtin=builtin, expected_id=expected_id)


def _parse_toml(raw: bytes | str, where: str) -> dict:
    if isinstance(raw, bytes):
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            raise SpecError(where, None, "not a text file (not valid UTF-8)") from None
    else:
        text = raw
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise SpecError(where, None, f"not valid TOML: {e}") from None


def _req(d: Mapping[str, Any], key: str, typ: type, where: str, path: str) -> Any:
    if key not in d:
        raise SpecError(where, path + key, "is missing")
    v = d[key]
    if typ is float:
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            raise SpecError(where, path + key, f"must be a number, not {type(v).__name__}")
        try:
            return float(v)
        except OverflowError:  # a TOML integer with hundreds of digits
            raise SpecError(where, path + key, "is too large (past what a float holds)") from None
    if not isinstance(v, typ):
        raise SpecError(where, path + key, f"must be a {typ.__name__}, not {type(v).__name__}")
    return v


def _table(d: Mapping[str, Any], key: str, where: str, required: bool = False) -> dict:
    if key not in d:
        if required:
            raise SpecError(where, key, "is missing")
        return {}
    v = d[key]
    if not isinstance(v, dict):
        raise SpecError(where, key, f"must be a table, not {type(v).__name__}")
    return v


#: Smallest figure a chip file may state (FLOP/s, B/s, bytes): with the 1e21 ceiling and the
#: what-if range, every ratio and time the model forms stays finite.
MIN_FIGURE = 1.0
#: Smallest achievable fraction of peak.
MIN_FRACTION = 1e-3


def _figure(v: Any, key: str, where: str, sources: Mapping[str, str],
            min_value: float = MIN_FIGURE) -> Figure:
    if not isinstance(v, dict):
        raise SpecError(where, key, "must be a table like { value = 1e12, source = \"KEY\" }")
    unknown = set(v) - _FIGURE_KEYS
    if unknown:
        raise SpecError(where, f"{key}.{sorted(unknown)[0]}",
                        f"unknown key (allowed: {', '.join(sorted(_FIGURE_KEYS))})")
    value = _req(v, "value", float, where, key + ".")
    if not math.isfinite(value):
        raise SpecError(where, key + ".value", "must be finite")
    if value <= 0:
        raise SpecError(where, key + ".value", f"must be greater than zero (got {value:g})")
    if value > 1e21:
        raise SpecError(where, key + ".value", f"is implausibly large ({value:g})")
    if value < min_value:
        raise SpecError(where, key + ".value", f"is implausibly small ({value:g}; at least {min_value:g})")
    source = _req(v, "source", str, where, key + ".")
    if source not in sources:
        raise SpecError(where, key + ".source", f"{source!r} is not a key of [sources]")
    halved = v.get("sparsity_halved", False)
    if not isinstance(halved, bool):
        raise SpecError(where, key + ".sparsity_halved", "must be true or false")
    note = v.get("note", "")
    alts = v.get("alternatives", "")
    if not isinstance(note, str):
        raise SpecError(where, key + ".note", "must be a string")
    if not isinstance(alts, str):
        raise SpecError(where, key + ".alternatives", "must be a string")
    return Figure(value, source, halved, note, alts)


def parse_chip(data: Mapping[str, Any], where: str, *, builtin: bool = False,
               expected_id: str | None = None) -> Chip:
    """Validate a parsed chip mapping and build a :class:`Chip`."""
    if not isinstance(data, dict):
        raise SpecError(where, None, "must be a table of keys")
    unknown = set(data) - _TOP_KEYS
    if unknown:
        raise SpecError(where, sorted(unknown)[0], f"unknown key (allowed: {', '.join(sorted(_TOP_KEYS))})")
    fmt = data.get("format")
    if fmt is None:
        raise SpecError(where, "format", "is missing (expected format = 1)")
    if isinstance(fmt, bool) or not isinstance(fmt, int):
        raise SpecError(where, "format", "must be a whole number")
    if fmt > FORMAT_VERSION:
        raise SpecError(where, "format", f"is {fmt}, newer than this app reads ({FORMAT_VERSION}); "
                        "update Roofline Explorer")
    if fmt < 1:
        raise SpecError(where, "format", f"must be 1 (got {fmt})")
    cid = _req(data, "id", str, where, "")
    if not cid or not all(c.islower() or c.isdigit() or c == "-" for c in cid):
        raise SpecError(where, "id", f"{cid!r} must be lowercase letters, digits and hyphens")
    if expected_id is not None and cid != expected_id:
        raise SpecError(where, "id", f"{cid!r} does not match the file name {expected_id!r}")
    name = _req(data, "name", str, where, "")
    vendor = _req(data, "vendor", str, where, "")
    kind = _req(data, "kind", str, where, "")
    if kind not in KINDS:
        raise SpecError(where, "kind", f"{kind!r} must be one of {', '.join(KINDS)}")
    summary = data.get("summary", "")
    if not isinstance(summary, str):
        raise SpecError(where, "summary", "must be a string")

    sources = _table(data, "sources", where, required=True)
    for k, v in sources.items():
        if not isinstance(v, str) or not v.strip():
            raise SpecError(where, f"sources.{k}", "must be a non-empty citation string")

    def peaks(table: str) -> dict[str, Figure]:
        out = {}
        for k, v in _table(data, table, where).items():
            if k not in PEAK_KEYS:
                raise SpecError(where, f"{table}.{k}", f"unknown dtype (allowed: {', '.join(PEAK_KEYS)})")
            out[k] = _figure(v, f"{table}.{k}", where, sources)
        return out

    matrix = peaks("matrix")
    if not matrix:
        raise SpecError(where, "matrix", "needs at least one peak (e.g. bf16)")
    vector = peaks("vector")

    mem = _table(data, "memory", where, required=True)
    for k in mem:
        if k not in ("capacity", "bandwidth"):
            raise SpecError(where, f"memory.{k}", "unknown key (allowed: capacity, bandwidth)")
    if "capacity" not in mem:
        raise SpecError(where, "memory.capacity", "is missing")
    if "bandwidth" not in mem:
        raise SpecError(where, "memory.bandwidth", "is missing")
    cap = _figure(mem["capacity"], "memory.capacity", where, sources)
    bw = _figure(mem["bandwidth"], "memory.bandwidth", where, sources)

    links: dict[str, Link] = {}
    for lname, lv in _table(data, "links", where).items():
        key = f"links.{lname}"
        if lname not in LINK_NAMES:
            raise SpecError(where, key, f"unknown link (allowed: {', '.join(LINK_NAMES)})")
        if not isinstance(lv, dict):
            raise SpecError(where, key, "must be a table")
        for k in lv:
            if k not in ("bandwidth", "description"):
                raise SpecError(where, f"{key}.{k}", "unknown key (allowed: bandwidth, description)")
        if "bandwidth" not in lv:
            raise SpecError(where, f"{key}.bandwidth", "is missing")
        desc = lv.get("description", "")
        if not isinstance(desc, str):
            raise SpecError(where, f"{key}.description", "must be a string")
        links[lname] = Link(lname, _figure(lv["bandwidth"], f"{key}.bandwidth", where, sources), desc)

    ach = None
    at = _table(data, "achievable", where)
    for k in at:
        if k != "fraction":
            raise SpecError(where, f"achievable.{k}", "unknown key (allowed: fraction)")
    if "fraction" in at:
        ach = _figure(at["fraction"], "achievable.fraction", where, sources, MIN_FRACTION)
        if ach.value > 1:
            raise SpecError(where, "achievable.fraction.value", f"must be at most 1 (got {ach.value:g})")

    return Chip(id=cid, name=name, vendor=vendor, kind=kind, matrix=matrix, vector=vector,
                hbm_capacity=cap, hbm_bandwidth=bw, links=links, sources=dict(sources),
                achievable=ach, summary=summary, path=where, builtin=builtin)


def make_chip(id: str, name: str, *, peak: float, hbm_bandwidth: float, hbm_capacity: float = 16e9,
              links: Mapping[str, float] | None = None, matrix: Mapping[str, float] | None = None,
              vector: Mapping[str, float] | None = None, source: str = "user") -> Chip:
    """Build a chip from plain numbers (tests, what-ifs, hand-entered chips).

    Raises
    ------
    ModelError
        If a figure is not a positive finite number, or a dtype or link name is unknown.
    """
    from roofgui.model.units import check_positive

    def ok(v: Any, key: str) -> float:
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            raise ModelError(f"must be a number, not {type(v).__name__}", key)
        return check_positive(float(v), key, max_value=1e21, min_value=MIN_FIGURE)

    ok(peak, "peak")
    ok(hbm_bandwidth, "hbm_bandwidth")
    ok(hbm_capacity, "hbm_capacity")
    for table, entries in (("matrix", matrix), ("vector", vector)):
        for k, v in (entries or {}).items():
            if k not in PEAK_KEYS:
                raise ModelError(f"unknown dtype {k!r} (allowed: {', '.join(PEAK_KEYS)})", f"{table}.{k}")
            ok(v, f"{table}.{k}")
    for k, v in (links or {}).items():
        if k not in LINK_NAMES:
            raise ModelError(f"unknown link {k!r} (allowed: {', '.join(LINK_NAMES)})", f"links.{k}")
        ok(v, f"links.{k}")
    src = {source: source}
    mat = {"bf16": Figure(peak, source)}
    mat.update({k: Figure(v, source) for k, v in (matrix or {}).items()})
    return Chip(id=id, name=name, vendor="", kind="Accelerator", matrix=mat,
                vector={k: Figure(v, source) for k, v in (vector or {}).items()},
                hbm_capacity=Figure(hbm_capacity, source), hbm_bandwidth=Figure(hbm_bandwidth, source),
                links={k: Link(k, Figure(v, source)) for k, v in (links or {}).items()},
                sources=src, builtin=False)


def chip_to_toml(chip: Chip) -> str:
    """Serialise a chip to the TOML schema (used to save custom chips)."""

    def q(s: str) -> str:
        out = s.replace("\\", "\\\\").replace('"', '\\"')
        out = "".join(c if (c >= " " and c != "\x7f") or c == "\t" else f"\\u{ord(c):04x}" for c in out)
        return f'"{out}"'

    def fig(f: Figure) -> str:
        parts = [f"value = {f.value!r}", f"source = {q(f.source)}"]
        if f.sparsity_halved:
            parts.append("sparsity_halved = true")
        if f.note:
            parts.append(f"note = {q(f.note)}")
        if f.alternatives:
            parts.append(f"alternatives = {q(f.alternatives)}")
        return "{ " + ", ".join(parts) + " }"

    lines = [f"format = {FORMAT_VERSION}", f"id = {q(chip.id)}", f"name = {q(chip.name)}",
             f"vendor = {q(chip.vendor)}", f"kind = {q(chip.kind)}"]
    if chip.summary:
        lines.append(f"summary = {q(chip.summary)}")
    lines += ["", "[sources]"] + [f"{q(k)} = {q(v)}" for k, v in chip.sources.items()]
    lines += ["", "[matrix]"] + [f"{k} = {fig(f)}" for k, f in chip.matrix.items()]
    if chip.vector:
        lines += ["", "[vector]"] + [f"{k} = {fig(f)}" for k, f in chip.vector.items()]
    lines += ["", "[memory]", f"capacity = {fig(chip.hbm_capacity)}", f"bandwidth = {fig(chip.hbm_bandwidth)}"]
    for name, link in chip.links.items():
        lines += ["", f"[links.{name}]"]
        if link.description:
            lines.append(f"description = {q(link.description)}")
        lines.append(f"bandwidth = {fig(link.bandwidth)}")
    if chip.achievable is not None:
        lines += ["", "[achievable]", f"fraction = {fig(chip.achievable)}"]
    return "\n".join(lines) + "\n"
