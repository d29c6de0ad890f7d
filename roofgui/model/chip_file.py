"""Chip files: reading and validating a chip's TOML (schema in ``specs/README.md``), and
writing one back.

Parsing is strict: an unknown key, a missing source or a non-positive figure raises a
:class:`SpecError` naming the file, the key and the problem.
"""

from __future__ import annotations

import math
import tomllib
from pathlib import Path
from typing import Any, Mapping

from roofgui.model.chips import (FORMAT_VERSION, KINDS, LEVEL_IDS, LEVEL_KINDS, LINK_NAMES,
                                 MAX_FILE_BYTES, MIN_FIGURE, MIN_FRACTION, Chip, Figure, Link,
                                 MemoryLevel)
from roofgui.model.dtypes import PEAK_KEYS
from roofgui.model.errors import SpecError
from roofgui.model.paths import UnreadableFile, read_regular_file

_FIGURE_KEYS = {"value", "source", "sparsity_halved", "note", "alternatives"}
#: The letters of a chip id: ASCII only, so no id can look like another.
_ID_CHARS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789-")
_TOP_KEYS = {"format", "id", "name", "vendor", "kind", "summary", "sources", "matrix",
             "vector", "memory", "links", "achievable", "levels"}
_LEVEL_KEYS = ("name", "kind", "scope", "bandwidth", "capacity")



def load_chip_file(path: str | Path, *, builtin: bool = False) -> Chip:
    """Read and validate one chip TOML file."""
    p = Path(path)
    where = str(p)
    try:
        raw = read_regular_file(p, MAX_FILE_BYTES)
    except UnreadableFile as e:
        raise SpecError(where, None, "cannot read: " + str(e).split(": ", 1)[-1]) from None
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
            text = raw.decode("utf-8-sig")  # an editor's byte-order mark is no error
        except UnicodeDecodeError:
            raise SpecError(where, None, "not a text file (not valid UTF-8)") from None
    else:
        text = raw.removeprefix("\ufeff")
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise SpecError(where, None, f"not valid TOML: {e}") from None
    except ValueError:  # an integer past Python's int-string conversion limit
        raise SpecError(where, None, "a number is too large (thousands of digits)") from None


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
    _check_format(data.get("format"), where)
    cid = _req(data, "id", str, where, "")
    if not cid or not all(c in _ID_CHARS for c in cid):
        raise SpecError(where, "id", f"{cid!r} must be lowercase ASCII letters, digits and hyphens "
                        f"(a look-alike letter would pass for another chip)")
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
    matrix = _peaks(data, "matrix", where, sources)
    if not matrix:
        raise SpecError(where, "matrix", "needs at least one peak (e.g. bf16)")
    vector = _peaks(data, "vector", where, sources)
    cap, bw = _memory(data, where, sources)
    return Chip(id=cid, name=name, vendor=vendor, kind=kind, matrix=matrix, vector=vector,
                hbm_capacity=cap, hbm_bandwidth=bw, links=_links(data, where, sources),
                sources=dict(sources), achievable=_achievable(data, where, sources),
                summary=summary, path=where, builtin=builtin, levels=_levels(data, where, sources))


def _check_format(fmt: Any, where: str) -> None:
    if fmt is None:
        raise SpecError(where, "format", "is missing (expected format = 1)")
    if isinstance(fmt, bool) or not isinstance(fmt, int):
        raise SpecError(where, "format", "must be a whole number")
    if fmt > FORMAT_VERSION:
        raise SpecError(where, "format", f"is {fmt}, newer than this app reads ({FORMAT_VERSION}); "
                        "update Roofline Explorer")
    if fmt < 1:
        raise SpecError(where, "format", f"must be 1 (got {fmt})")


def _peaks(data: Mapping[str, Any], table: str, where: str, sources: Mapping[str, str]) -> dict[str, Figure]:
    out = {}
    for k, v in _table(data, table, where).items():
        if k not in PEAK_KEYS:
            raise SpecError(where, f"{table}.{k}", f"unknown dtype (allowed: {', '.join(PEAK_KEYS)})")
        out[k] = _figure(v, f"{table}.{k}", where, sources)
    return out


def _memory(data: Mapping[str, Any], where: str, sources: Mapping[str, str]) -> tuple[Figure, Figure]:
    mem = _table(data, "memory", where, required=True)
    for k in mem:
        if k not in ("capacity", "bandwidth"):
            raise SpecError(where, f"memory.{k}", "unknown key (allowed: capacity, bandwidth)")
    if "capacity" not in mem:
        raise SpecError(where, "memory.capacity", "is missing")
    if "bandwidth" not in mem:
        raise SpecError(where, "memory.bandwidth", "is missing")
    return (_figure(mem["capacity"], "memory.capacity", where, sources),
            _figure(mem["bandwidth"], "memory.bandwidth", where, sources))


def _links(data: Mapping[str, Any], where: str, sources: Mapping[str, str]) -> dict[str, Link]:
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
    return links


def _levels(data: Mapping[str, Any], where: str, sources: Mapping[str, str]) -> tuple[MemoryLevel, ...]:
    """The ``[levels.<id>]`` tables, nearest the compute units first."""
    table = _table(data, "levels", where)
    for lid in table:
        if lid not in LEVEL_IDS:
            raise SpecError(where, f"levels.{lid}", f"unknown level (allowed: {', '.join(LEVEL_IDS)})")
    return tuple(_level(lid, table[lid], where, sources) for lid in LEVEL_IDS if lid in table)


def _level(lid: str, lv: Any, where: str, sources: Mapping[str, str]) -> MemoryLevel:
    key = f"levels.{lid}"
    if not isinstance(lv, dict):
        raise SpecError(where, key, "must be a table")
    for k in lv:
        if k not in _LEVEL_KEYS:
            raise SpecError(where, f"{key}.{k}", f"unknown key (allowed: {', '.join(_LEVEL_KEYS)})")
    name = _req(lv, "name", str, where, key + ".")
    kind = _req(lv, "kind", str, where, key + ".")
    if kind not in LEVEL_KINDS:
        raise SpecError(where, f"{key}.kind", f"{kind!r} must be one of {', '.join(LEVEL_KINDS)}")
    scope = lv.get("scope", "per chip")
    if not isinstance(scope, str):
        raise SpecError(where, f"{key}.scope", "must be a string")
    if "bandwidth" not in lv and "capacity" not in lv:
        raise SpecError(where, key, "needs a bandwidth or a capacity (leave out a level with neither)")
    bw = _figure(lv["bandwidth"], f"{key}.bandwidth", where, sources) if "bandwidth" in lv else None
    cap = _figure(lv["capacity"], f"{key}.capacity", where, sources) if "capacity" in lv else None
    return MemoryLevel(lid, name, kind, bw, cap, scope)


def _achievable(data: Mapping[str, Any], where: str, sources: Mapping[str, str]) -> Figure | None:
    at = _table(data, "achievable", where)
    for k in at:
        if k != "fraction":
            raise SpecError(where, f"achievable.{k}", "unknown key (allowed: fraction)")
    if "fraction" not in at:
        return None
    ach = _figure(at["fraction"], "achievable.fraction", where, sources, MIN_FRACTION)
    if ach.value > 1:
        raise SpecError(where, "achievable.fraction.value", f"must be at most 1 (got {ach.value:g})")
    return ach


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
    for lv in chip.levels:
        lines += ["", f"[levels.{lv.id}]", f"name = {q(lv.name)}", f"kind = {q(lv.kind)}",
                  f"scope = {q(lv.scope)}"]
        lines += [f"{k} = {fig(f)}" for k, f in (("bandwidth", lv.bandwidth), ("capacity", lv.capacity))
                  if f is not None]
    return "\n".join(lines) + "\n"
