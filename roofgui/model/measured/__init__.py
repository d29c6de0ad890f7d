"""Measured kernels from profiler files, as one record type (pure Python, no Qt).

:func:`parse_measurements` reads a file and :func:`parse_text` its text; the format is
told from the content (the header row, or JSON with ``traceEvents``), not the name:

* Nsight Compute ``ncu --csv`` (one row per metric, or ``--page raw``) -- :mod:`.ncu`
* rocprof-compute ``pmc_perf.csv`` and ``roofline.csv`` -- :mod:`.rocprof`
* XProf Roofline Model tool CSV export -- :mod:`.xprof`
* PyTorch profiler (Kineto) trace JSON -- :mod:`.kineto`
* a plain ``name,seconds,flops,bytes`` CSV -- :mod:`.plain`

Every malformed file raises :class:`MeasurementError` naming the file, line and column;
nothing half-read is returned.
"""

from __future__ import annotations

from pathlib import Path

from roofgui.model.paths import read_regular_file
from roofgui.model.measured import kineto, ncu, plain, rocprof, xprof
from roofgui.model.measured.record import (FORMATS, KINETO, NCU, PLAIN, ROCPROF,
                                           ROCPROF_ROOFLINE, XPROF, Kernel, MeasuredSet,
                                           MeasurementError, achieved_bandwidth,
                                           achieved_flops, intensity)
from roofgui.model.measured.table import csv_rows

__all__ = ["FORMATS", "Kernel", "MeasuredSet", "MeasurementError", "achieved_bandwidth",
           "achieved_flops", "intensity", "parse_measurements", "parse_text",
           "NCU", "ROCPROF", "ROCPROF_ROOFLINE", "XPROF", "KINETO", "PLAIN"]

#: Files larger than this are refused before reading (a profile of a few thousand kernels
#: is a few megabytes; a full-set ncu raw page a few hundred kilobytes a kernel).
MAX_FILE_BYTES = 256 * 1024 * 1024
#: Lines of tool output an ncu CSV may follow (the program's own stdout comes first).
MAX_PREAMBLE_LINES = 200


def parse_measurements(path: str | Path) -> MeasuredSet:
    """Read one measurement file.

    Raises
    ------
    MeasurementError
        If the file cannot be read, its format is unknown, or any part is malformed.
    """
    where = str(path)
    try:
        raw = read_regular_file(path, MAX_FILE_BYTES)  # a FIFO or a device is refused at once
    except OSError as e:
        problem = e.strerror or str(e).removeprefix(f"{where}: ")
        raise MeasurementError(where, 1, 1, f"cannot read: {problem}") from None
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        line = raw.count(b"\n", 0, e.start) + 1
        column = e.start - (raw.rfind(b"\n", 0, e.start) + 1) + 1
        raise MeasurementError(where, line, column, "not a text file (not valid UTF-8)") from None
    return parse_text(text, where)


def parse_text(text: str, name: str) -> MeasuredSet:
    """Read the text of a measurement file; ``name`` is the file named in errors."""
    text = text.removeprefix("\ufeff")
    if not text.strip():
        raise MeasurementError(name, 1, 1, "empty file")
    if text.lstrip().startswith(("{", "[")):
        if not kineto.looks_like_kineto(text):
            kineto.load(text, name)  # invalid JSON: the error names where
            raise MeasurementError(name, 1, 1, "unknown format: JSON without traceEvents "
                                               "(expected a PyTorch profiler trace)")
        kernels, chip = kineto.parse(text, name)
        return MeasuredSet(name, KINETO, kernels, chip)
    rows = csv_rows(text)
    if not rows:
        raise MeasurementError(name, 1, 1, "empty file (only profiler messages)")
    for i, row in enumerate(rows[:MAX_PREAMBLE_LINES]):
        found = _csv_format(row.cells)
        if found is not None:
            if i and found != NCU:
                raise MeasurementError(name, rows[0].line, 1,
                                       f"unknown format: text before the {found} header "
                                       f"at line {row.line}")
            return _parse_csv(found, rows[i:], name)
    raise MeasurementError(name, rows[0].line, 1, _unknown(rows[0].cells))


def _csv_format(cells: tuple[str, ...]) -> str | None:
    if ncu.is_metric_layout(cells) or ncu.is_raw_layout(cells):
        return NCU
    if rocprof.is_pmc_perf(cells):
        return ROCPROF
    if rocprof.is_roofline(cells):
        return ROCPROF_ROOFLINE
    if xprof.is_xprof(cells):
        return XPROF
    if plain.is_plain(cells):
        return PLAIN
    return None


def _parse_csv(fmt: str, rows, name: str) -> MeasuredSet:
    chip = None
    if fmt == NCU:
        kernels, chip = ncu.parse(rows, name)
    elif fmt == ROCPROF:
        kernels = rocprof.parse_pmc_perf(rows, name)
    elif fmt == ROCPROF_ROOFLINE:
        return MeasuredSet(name, fmt, (), ceilings=rocprof.parse_roofline(rows, name))
    elif fmt == XPROF:
        kernels = xprof.parse(rows, name)
    else:
        kernels, chip = plain.parse(rows, name)
    return MeasuredSet(name, fmt, kernels, chip)


def _unknown(cells: tuple[str, ...]) -> str:
    shown = ",".join(cells[:6]) + (",..." if len(cells) > 6 else "")
    return (f"unknown format: header {shown!r} is none of ncu --csv, rocprof-compute "
            "pmc_perf.csv/roofline.csv, XProf roofline CSV, or name,seconds,flops,bytes")
