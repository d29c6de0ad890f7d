"""XProf (TensorBoard profile plugin) Roofline Model tool, "Export as CSV".

The export (``plugin/xprof/convert/csv_writer.py``) writes the tool's first table with
the column labels as header, every cell quoted.  Its columns
(``xprof/convert/op_stats_to_roofline_model.cc``) include ``Step``, ``Rank``,
``Category``, ``Operation``, ``# Occurrences``, ``Total Time (us)``, ``Avg. time (us)``,
``Normalized FLOP Rate (GFLOP/s)``, ``Memory BW (GiB/s)``, ``HBM BW (GiB/s)``,
``Operational Intensity (FLOP/Byte)`` and ``Bound by``.

One launch's figures: time ``Avg. time (us)``; FLOPs the FLOP rate x that time; HBM bytes
``HBM BW`` (GiB/s, 2**30 bytes) x that time.  The table repeats each op per step; the
rows of one step selection are read: ``Total`` if there, else ``Average``, else
``Total (HW)``, else every numbered step (grouped by op, median).  The ``Program`` rows
(the whole program, rank 0) are not kernels and are skipped.
"""

from __future__ import annotations

from roofgui.model.measured.record import XPROF, Kernel, Launch, MeasurementError, group_launches
from roofgui.model.measured.table import (Row, cell_number, decimal_comma, header_index,
                                          require_columns)

OPERATION, OCCURRENCES, AVG_TIME = "Operation", "# Occurrences", "Avg. time (us)"
FLOP_RATES = ("Normalized FLOP Rate (GFLOP/s)", "Measured FLOP Rate (GFLOP/s)")
HBM_BW = "HBM BW (GiB/s)"
STEP, CATEGORY, BOUND_BY = "Step", "Category", "Bound by"
STEP_PREFERENCE = ("Total", "Average", "Total (HW)")
GIB = 1024.0 ** 3


def is_xprof(cells: tuple[str, ...]) -> bool:
    return OPERATION in cells and BOUND_BY in cells


def _chosen_rows(rows: list[Row], step_col: int | None) -> list[Row]:
    if step_col is None:
        return rows
    steps = {r.cells[step_col] for r in rows if step_col < len(r.cells)}
    for want in STEP_PREFERENCE:
        if want in steps:
            return [r for r in rows if r.cells[step_col] == want]
    return rows


def parse(rows: list[Row], path: str) -> tuple[Kernel, ...]:
    header = rows[0]
    ix = header_index(header, path)
    require_columns(ix, (OPERATION, AVG_TIME), header, path, "XProf roofline CSV")
    rate_col = next((ix[c] for c in FLOP_RATES if c in ix), None)
    if rate_col is None:
        require_columns(ix, FLOP_RATES[:1], header, path, "XProf roofline CSV")
    for row in rows[1:]:
        if len(row.cells) != len(header.cells):
            raise MeasurementError(path, row.line, min(len(row.cells), len(header.cells)) + 1,
                                   f"XProf: row has {len(row.cells)} fields, the header {len(header.cells)}")
    chosen = _chosen_rows(rows[1:], ix.get(STEP))
    comma = decimal_comma(c for r in chosen for c in r.cells)
    launches = []
    for row in chosen:
        if CATEGORY in ix and row.cells[ix[CATEGORY]] == "Program":
            continue
        launches.extend(_launches(row, ix, rate_col, comma, path))
    if not launches:
        raise MeasurementError(path, header.line, 1, "XProf: no operation rows after the header")
    return group_launches(launches, XPROF, None, path)


def _launches(row: Row, ix: dict[str, int], rate_col: int, comma: bool, path: str) -> list[Launch]:
    """The launches of one row: one record standing for its occurrences."""
    name = row.cells[ix[OPERATION]]
    avg_us = cell_number(row, ix[AVG_TIME], comma, path, AVG_TIME)
    if avg_us is None:
        raise MeasurementError(path, row.line, ix[AVG_TIME] + 1, f"{name}: {AVG_TIME} is empty")
    seconds = avg_us * 1e-6
    rate = cell_number(row, rate_col, comma, path, "FLOP rate")
    hbm = cell_number(row, ix[HBM_BW], comma, path, HBM_BW) if HBM_BW in ix else None
    count = 1
    if OCCURRENCES in ix:
        occ = cell_number(row, ix[OCCURRENCES], comma, path, OCCURRENCES)
        if occ is not None:
            if occ != int(occ) or occ < 1:
                raise MeasurementError(path, row.line, ix[OCCURRENCES] + 1,
                                       f"{name}: {OCCURRENCES} must be a whole number of at least 1")
            count = int(occ)
    launch = Launch(key=(name,), name=name, seconds=seconds,
                    flops=None if rate is None else rate * 1e9 * seconds,
                    hbm_bytes=None if hbm is None else hbm * GIB * seconds,
                    count=count, line=row.line, column=ix[AVG_TIME] + 1)
    return [launch]
