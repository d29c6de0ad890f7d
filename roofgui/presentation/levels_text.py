"""Memory levels as records and text: the ``--json`` "levels" list, table rows, the
sentence saying which level binds, and a chip's levels with their sources."""

from __future__ import annotations

from typing import Any

from roofgui.model.chips import Chip, MemoryLevel
from roofgui.model.tiling import LevelPoint, TiledLevels
from roofgui.model.units import format_capacity, format_number, format_si, format_time


def level_record(p: LevelPoint) -> dict[str, Any]:
    """One level as JSON: the issue's six keys first, then capacity and source."""
    return {"level": p.level, "bytes": p.bytes, "intensity": p.intensity, "bandwidth": p.bandwidth,
            "critical_intensity": p.critical_intensity, "t": p.t, "name": p.name,
            "capacity": p.capacity, "footprint": p.footprint, "fits": p.fits, "scope": p.scope,
            "kind": p.kind, "source": p.source}


def levels_json(tl: TiledLevels, tile: dict[str, int]) -> dict[str, Any]:
    """What a tiled op adds to its ``analyze --json`` record."""
    b = tl.binding
    return {"tile": dict(tile), "levels": [level_record(p) for p in tl.points],
            "binding_level": b.level if b else None, "level_bound": tl.bound}


def binding_sentence(tl: TiledLevels) -> str:
    """E.g. "HBM binds: 12.3 µs against 4.1 µs of math" or "compute-bound: ..."."""
    b = tl.binding
    if b is None:
        return "no level has a published bandwidth"
    if tl.bound == "compute":
        return (f"compute-bound: math {format_time(tl.t_math)} ≥ {b.name} "
                f"{format_time(b.t)} (the slowest level)")
    return f"{b.name} binds: {format_time(b.t)} against {format_time(tl.t_math)} of math"


def capacity_sentence(p: LevelPoint) -> str | None:
    """A warning when the tile (staging levels) or the operands (caches) overflow a level."""
    if p.fits is not False:
        return None
    what = "operands" if p.level not in ("smem", "lds", "vmem", "tmem") else "tile working set"
    return (f"{what} {format_capacity(p.footprint)} exceed {p.name} "
            f"{format_capacity(p.capacity)} ({p.scope})")


def level_rows(tl: TiledLevels) -> list[tuple[str, str]]:
    """(label, text) rows for the text table, one per level, then the verdict."""
    rows = []
    for p in tl.points:
        parts = [format_si(p.bytes, "B"), f"{format_number(p.intensity)} FLOP/B"]
        if p.bandwidth is None:
            parts.append("no published bandwidth")
        else:
            parts += [f"at {format_si(p.bandwidth, 'B/s')}",
                      f"critical {format_number(p.critical_intensity)}", f"t {format_time(p.t)}"]
        warn = capacity_sentence(p)
        rows.append((f"Level {p.name}", ", ".join(parts) + (f" — {warn}" if warn else "")))
    rows.append(("Binding level", binding_sentence(tl)))
    return rows


def chip_level_lines(chip: Chip) -> list[str]:
    """``show-chip`` lines: each level's bandwidth and capacity with kind and source."""
    if not chip.levels:
        return ["  on-chip levels: none published in this chip's file"]
    return [line for lv in chip.levels for line in _level_lines(lv)]


def _level_lines(lv: MemoryLevel) -> list[str]:
    out = [f"  level {lv.id}: {lv.name} ({lv.kind})"]
    for label, f in (("bandwidth", lv.bandwidth), ("capacity", lv.capacity)):
        if f is None:
            out.append(f"    {label:<11} {'not published':>14}")
            continue
        shown = format_si(f.value, "B/s") if label == "bandwidth" else \
            f"{format_capacity(f.value)} {lv.scope}"
        note = f" — {f.note}" if f.note else ""
        alts = f" (other sources: {f.alternatives})" if f.alternatives else ""
        out.append(f"    {label:<11} {shown:>14}  [{f.source}]{note}{alts}")
    return out


def working_lines(tl: TiledLevels, tile: dict[str, int]) -> list[str]:
    """The derivation of each level's bytes, for ``analyze --working``."""
    f_t, f_u, f_w = tl.formulas
    lines = [f"Tile {' × '.join(f'{k}={v}' for k, v in tile.items())}",
             f"  tile traffic T = {f_t} = {format_si(tl.tiled_bytes, 'B')}",
             f"  operands once U = {f_u} = {format_si(tl.once_bytes, 'B')}",
             f"  tile working set = {f_w} = {format_capacity(tl.working_bytes)}"]
    held = f"U: the operands fit in {tl.held_by}" if tl.held_by else "T: no cache nearer holds the operands"
    for p in tl.points:
        why = ("T: every tile load passes through it" if p.bytes == tl.tiled_bytes
               else held if p.level == "hbm" or p.bytes == tl.once_bytes else "")
        t = "no published bandwidth" if p.t is None else \
            f"t = {format_si(p.bytes, 'B')} / {format_si(p.bandwidth, 'B/s')} = {format_time(p.t)}"
        lines.append(f"  {p.name}: {why}; intensity {format_number(p.intensity)} FLOP/B; {t}")
    lines.append(f"  {binding_sentence(tl)}")
    return lines
