"""A plain CSV anyone can write: ``name,seconds,flops,bytes``, optionally ``chip``,
``count`` and ``dtype`` (any order; header names are case-insensitive).

``seconds`` is one launch's time, ``flops`` its FLOPs and ``bytes`` the bytes it moved to
and from HBM; an empty ``flops`` or ``bytes`` cell means unknown.  ``count`` (default 1)
says how many launches a row stands for; rows with the same name and chip are grouped
(median).  Each row may name its own chip (a catalog id, or a path to a chip file).
"""

from __future__ import annotations

from roofgui.model.dtypes import get_dtype
from roofgui.model.errors import ModelError
from roofgui.model.measured.record import PLAIN, Kernel, Launch, MeasurementError, group_launches
from roofgui.model.measured.table import Row, cell_number, decimal_comma, require_columns

REQUIRED = ("name", "seconds", "flops", "bytes")
OPTIONAL = ("chip", "count", "dtype")


def is_plain(cells: tuple[str, ...]) -> bool:
    """A plain header (then every column of :data:`REQUIRED` is required)."""
    names = {c.strip().lower() for c in cells}
    return "name" in names and "seconds" in names


def _index(header: Row, path: str) -> dict[str, int]:
    ix: dict[str, int] = {}
    for i, cell in enumerate(header.cells):
        name = cell.strip().lower()
        if name in ix:
            raise MeasurementError(path, header.line, i + 1, f"duplicate header {name!r}")
        if name and name not in REQUIRED + OPTIONAL:
            raise MeasurementError(path, header.line, i + 1,
                                   f"unknown column {cell!r} (known: {', '.join(REQUIRED + OPTIONAL)})")
        ix[name] = i
    require_columns(ix, REQUIRED, header, path, "plain CSV")
    return ix


def parse(rows: list[Row], path: str) -> tuple[tuple[Kernel, ...], str | None]:
    header = rows[0]
    ix = _index(header, path)
    if len(rows) < 2:
        raise MeasurementError(path, header.line, 1, "plain CSV: no rows after the header")
    comma = decimal_comma(c for r in rows[1:] for i, c in enumerate(r.cells) if i != ix["name"])
    launches = []
    for row in rows[1:]:
        if len(row.cells) != len(header.cells):
            raise MeasurementError(path, row.line, min(len(row.cells), len(header.cells)) + 1,
                                   f"plain CSV: row has {len(row.cells)} fields, the header {len(header.cells)}")
        launches.append(_launch(row, ix, comma, path))
    chips = {launch.chip for launch in launches}
    chip = chips.pop() if len(chips) == 1 else None
    return group_launches(launches, PLAIN, None, path), chip


def _launch(row: Row, ix: dict[str, int], comma: bool, path: str) -> Launch:
    name = row.cells[ix["name"]]
    if not name:
        raise MeasurementError(path, row.line, ix["name"] + 1, "name is empty")
    seconds = cell_number(row, ix["seconds"], comma, path, "seconds")
    if seconds is None:
        raise MeasurementError(path, row.line, ix["seconds"] + 1, f"{name}: seconds is empty")
    count = 1
    if "count" in ix:
        c = cell_number(row, ix["count"], comma, path, "count")
        if c is not None:
            if c != int(c) or c < 1:
                raise MeasurementError(path, row.line, ix["count"] + 1,
                                       f"{name}: count must be a whole number of at least 1")
            count = int(c)
    dtype = None
    if "dtype" in ix and row.cells[ix["dtype"]]:
        try:
            dtype = get_dtype(row.cells[ix["dtype"]]).name
        except ModelError as e:
            raise MeasurementError(path, row.line, ix["dtype"] + 1, str(e)) from None
    chip = (row.cells[ix["chip"]] or None) if "chip" in ix else None
    return Launch(key=(name, chip), name=name, seconds=seconds, chip=chip,
                  flops=cell_number(row, ix["flops"], comma, path, "flops"),
                  hbm_bytes=cell_number(row, ix["bytes"], comma, path, "bytes"),
                  dtype=dtype, count=count, line=row.line, column=ix["seconds"] + 1)
