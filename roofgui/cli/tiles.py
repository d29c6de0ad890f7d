"""``analyze --tile bm=128,bn=128[,bk=64]``: tile the scenario's matmuls and report each
memory level (bytes, intensity, roof, time) beside the usual figures."""

from __future__ import annotations

from typing import Any

from roofgui.cli.common import CliError, parse_kv
from roofgui.model.errors import ModelError
from roofgui.model.tiling import TILED_KINDS, analysis_levels, make_tile
from roofgui.model.units import parse_quantity
from roofgui.presentation.levels_text import level_rows, levels_json, working_lines


def apply_tile(scenario, text: str | None) -> None:
    """Set every matmul op's tile from ``--tile`` (one clear message for bad values)."""
    if not text:
        return
    values: dict[str, Any] = {}
    try:
        for k, v in parse_kv(text, "--tile").items():
            values[k] = parse_quantity(v, f"--tile {k}", integer=False)
        tile = make_tile(values, "--tile").as_dict()
    except ModelError as e:
        raise CliError(str(e) if str(e).startswith("--tile") else f"--tile: {e}") from None
    ops = [op for op in scenario.ops if op.kind in TILED_KINDS]
    if not ops:
        raise CliError(f"--tile: only a {' or '.join(TILED_KINDS)} op takes a tile "
                       f"(this scenario has {', '.join(op.kind for op in scenario.ops) or 'no ops'})")
    for op in ops:
        op.tile = dict(tile)


def _levels(entry):
    op = entry.op
    if not op.tile or op.kind not in TILED_KINDS:
        return None
    return analysis_levels(entry.analysis, op.full_dims(), op.dtypes, op.tile_obj(), op.shard_obj())


def record_levels(entry) -> dict[str, Any]:
    """The ``levels`` keys a tiled entry adds to its JSON record (none when untiled)."""
    tl = _levels(entry)
    return {} if tl is None else levels_json(tl, entry.op.tile)


def table_levels(entry) -> list[tuple[str, str]]:
    tl = _levels(entry)
    if tl is None:
        return []
    return [("Tile", " × ".join(f"{k}={v}" for k, v in entry.op.tile.items())), *level_rows(tl)]


def working_levels(entry) -> list[str]:
    """``--working`` lines of a tiled entry (none when untiled)."""
    tl = _levels(entry)
    return [] if tl is None else working_lines(tl, entry.op.tile)
