"""CSV text as rows that remember their line, numbers in either locale, and units.

Profilers write numbers as their locale prints them: ``1,234,567.5`` (thousands
separators), ``1.234.567,5`` or ``0,19`` (a comma for the decimal point).  A file keeps
one locale, so :func:`decimal_comma` decides it once from every value cell; then
:func:`to_number` reads each cell that way, and a cell written in the other locale (``0,19``
among ``0.5``s) is an error, never misread.  A file whose every number is ambiguous
(``1,234`` or ``1.234`` alone) is read with a decimal point.
"""

from __future__ import annotations

import csv
import math
import re
from dataclasses import dataclass
from typing import Iterable, Sequence

from roofgui.model.measured.record import MeasurementError

#: Lines profilers print around their CSV: ``==PROF== Connected ...``, ``==WARNING== ...``
DIRECTIVE = re.compile(r"^\s*==[A-Z]+==")
#: Cells that stand for "no value".
MISSING = {"", "n/a", "N/A", "nan", "NaN", "-"}

_DOT_EVIDENCE = (re.compile(r"^[-+]?\d*\.\d{1,2}$"), re.compile(r"^[-+]?\d*\.\d{4,}$"),
                 re.compile(r",\d{3}\.\d"), re.compile(r"^[-+]?\d{1,3}(,\d{3}){2,}$"),
                 re.compile(r"\d[eE][-+]?\d"))
_COMMA_EVIDENCE = (re.compile(r"^[-+]?\d*,\d{1,2}$"), re.compile(r"^[-+]?\d*,\d{4,}$"),
                   re.compile(r"\.\d{3},\d"), re.compile(r"^[-+]?\d{1,3}(\.\d{3}){2,}$"))
_PLAIN_NUMBER = re.compile(r"^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$")
#: Thousands groups as each locale writes them: 1,234,567.5 or 1.234.567,5
_GROUPED_DOT = re.compile(r"^[-+]?\d{1,3}(,\d{3})+(\.\d*)?([eE][-+]?\d+)?$")
_GROUPED_COMMA = re.compile(r"^[-+]?\d{1,3}(\.\d{3})+(,\d*)?$")


@dataclass(frozen=True)
class Row:
    """The cells of one CSV line, and the line's number in the file (1-based)."""

    line: int
    cells: tuple[str, ...]


def csv_rows(text: str) -> list[Row]:
    """Every non-blank line that is not a profiler directive, split as CSV."""
    rows = []
    for number, raw in enumerate(text.split("\n"), start=1):  # lines as an editor counts them
        raw = raw.rstrip("\r")
        if not raw.strip() or DIRECTIVE.match(raw):
            continue
        cells = next(csv.reader([raw]))
        rows.append(Row(number, tuple(c.strip() for c in cells)))
    return rows


def header_index(row: Row, path: str) -> dict[str, int]:
    """Column name -> index of a header row; a name given twice is an error at its second
    place."""
    index: dict[str, int] = {}
    for i, name in enumerate(row.cells):
        if name and name in index:
            raise MeasurementError(path, row.line, i + 1,
                                   f"duplicate header {name!r} (also column {index[name] + 1})")
        index[name] = i
    return index


def decimal_comma(cells: Iterable[str]) -> bool:
    """True when the value cells are written with a decimal comma (``0,19``, ``1.234,5``)."""
    comma = dot = False
    for cell in cells:
        if not cell or cell[0] not in "+-.,0123456789":
            continue
        dot = dot or any(p.search(cell) for p in _DOT_EVIDENCE)
        comma = comma or any(p.search(cell) for p in _COMMA_EVIDENCE)
    return comma and not dot


def to_number(text: str, comma: bool) -> float | None:
    """A cell as a number in the file's locale; None for an empty or n/a cell.

    Raises
    ------
    ValueError
        If the cell is not a number.
    """
    s = text.strip().replace("\u00a0", "").replace(" ", "")
    if s in MISSING:
        return None
    if comma:
        if "." in s and not _GROUPED_COMMA.match(s):
            raise ValueError(text)
        s = s.replace(".", "").replace(",", ".")
    else:
        if "," in s and not _GROUPED_DOT.match(s):
            raise ValueError(text)
        s = s.replace(",", "")
    if not _PLAIN_NUMBER.match(s):
        raise ValueError(text)
    return float(s)


def cell_number(row: Row, col: int, comma: bool, path: str, what: str) -> float | None:
    """:func:`to_number` of one cell, a non-number or a non-finite one an error at its place."""
    text = row.cells[col] if col < len(row.cells) else ""
    try:
        value = to_number(text, comma)
    except ValueError:
        raise MeasurementError(path, row.line, col + 1,
                               f"{what}: {text!r} is not a number") from None
    if value is not None and not math.isfinite(value):
        raise MeasurementError(path, row.line, col + 1, f"{what}: {text!r} is not finite")
    if value is not None and value < 0:
        raise MeasurementError(path, row.line, col + 1, f"{what}: {text!r} is negative")
    return value


def require_columns(index: dict[str, int], names: Sequence[str], row: Row, path: str,
                    fmt: str) -> None:
    """Every name must be a column of the header ``row``."""
    for name in names:
        if name not in index:
            raise MeasurementError(path, row.line, len(row.cells) + 1,
                                   f"{fmt}: missing column {name!r}")


# -- units -------------------------------------------------------------------

_TIME = {"nsecond": 1e-9, "ns": 1e-9, "usecond": 1e-6, "us": 1e-6, "\u00b5s": 1e-6,
         "msecond": 1e-3, "ms": 1e-3, "second": 1.0, "s": 1.0, "sec": 1.0}
_BYTES = {"byte": 1.0, "b": 1.0, "bytes": 1.0,
          "kbyte": 1e3, "kb": 1e3, "mbyte": 1e6, "mb": 1e6, "gbyte": 1e9, "gb": 1e9,
          "tbyte": 1e12, "tb": 1e12,
          "kib": 1024.0, "mib": 1024.0 ** 2, "gib": 1024.0 ** 3, "tib": 1024.0 ** 4}
_COUNT_PREFIX = {"": 1.0, "k": 1e3, "m": 1e6, "g": 1e9, "t": 1e12}
_COUNT_BASES = ("inst", "op", "ops", "flop", "thread", "cycle", "")


def unit_factor(unit: str, kind: str) -> float | None:
    """The factor that takes a value in ``unit`` to seconds, bytes or a plain count;
    None when the unit is not one of that kind (``byte`` for a time, say)."""
    u = unit.strip()
    if kind == "time":
        return _TIME.get(u) if u in _TIME else _TIME.get(u.lower())
    if kind == "bytes":
        return _BYTES.get(u.lower())
    low = u.lower()
    for base in _COUNT_BASES:
        if low.endswith(base) and low[:len(low) - len(base)] in _COUNT_PREFIX:
            return _COUNT_PREFIX[low[:len(low) - len(base)]]
    return None
