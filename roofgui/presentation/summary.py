"""The summary of a scenario: every op on every chip, verdict first, and the whole block.

One row per op (per phase for ops with phases), one column per chip; each cell gives
the verdict first — what bounds the op, its lower-bound time, the fraction of peak it
reaches — and the first row sums every op on each chip: the time of the whole block
(ops run one after another), its utilisation (Σ T_math ÷ Σ T_lower) and which bound
holds it up most (the bound of the ops taking most of its time).  Shared by the
window's summary table and ``roofgui analyze``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable, Sequence

from roofgui.model.roofline import BOUNDS
from roofgui.model.units import format_time

#: The label of the row of totals.
TOTAL_LABEL = "Whole block (Σ ops)"
#: Short names of the bounds, for narrow cells.
BOUND_SHORT = {"compute": "compute", "memory": "memory", "network": "network"}


@dataclass(frozen=True)
class Cell:
    """One op on one chip (or the block's total): the verdict."""

    bound: str
    t_lower: float
    utilisation: float
    complete: bool = True  # (a total missing some ops: the time is a lower bound)
    note: str = ""

    def text(self) -> str:
        """``"memory · 1.20 ms · 34.0%"``: bound first, then T_lower, then utilisation."""
        t = ("≥ " if not self.complete else "") + format_time(self.t_lower)
        return f"{self.bound} · {t} · {self.utilisation:.1%}"


@dataclass
class Summary:
    """The table: ``chips`` (labels) across, ``rows`` (labels) down, the totals first."""

    chips: list[str] = field(default_factory=list)
    rows: list[str] = field(default_factory=list)
    cells: list[list[Cell | None]] = field(default_factory=list)  # [row][chip]
    totals: list[Cell | None] = field(default_factory=list)  # [chip]
    selected_rows: list[int] = field(default_factory=list)  # rows of the selected op
    op_indices: list[int] = field(default_factory=list)  # [row]: the op it shows

    @property
    def has_block(self) -> bool:
        """Whether the totals sum several ops (one op's phases, such as an LLM step's
        prefill and decode, are no block to sum)."""
        return len(set(self.op_indices)) > 1

    def text_rows(self) -> list[list[str]]:
        """Every row as text, the totals first: ``[label, cell per chip ...]``."""
        out = [[TOTAL_LABEL] + [c.text() if c else "—" for c in self.totals]]
        for label, row in zip(self.rows, self.cells):
            out.append([label] + [c.text() if c else "—" for c in row])
        return out


def _cell(analysis) -> Cell:
    r = analysis.result
    return Cell(BOUNDS[int(r.bound_code)], float(r.t_lower), float(r.utilisation))


def _total(cells: Sequence[Cell | None], labels: Sequence[str]) -> Cell | None:
    have = [c for c in cells if c is not None]
    if not have:
        return None
    t_lower = sum(c.t_lower for c in have)
    t_math = sum(c.t_lower * c.utilisation for c in have)
    share: dict[str, float] = {}
    for c in have:
        share[c.bound] = share.get(c.bound, 0.0) + c.t_lower
    bound = max(share, key=lambda b: share[b])
    parts = ", ".join(f"{b} {t / t_lower:.0%}" for b, t in sorted(share.items(), key=lambda kv: -kv[1])
                      ) if t_lower > 0 else ""
    missing = [lab for c, lab in zip(cells, labels) if c is None]
    note = f"Time by bound: {parts}." if parts else ""
    if missing:
        note += f" Not counted (no result): {', '.join(missing)}."
    return Cell(bound, t_lower, t_math / t_lower if t_lower > 0 else 0.0, not missing, note.strip())


def summarise(entries: Iterable, chips: Sequence, selected: int = -1) -> Summary:
    """The summary of evaluated entries (``op_index``, ``label``, ``chip_id``, ``analysis``)
    on ``chips`` (each with ``id`` and ``label()``), in scenario order."""
    col = {c.id: k for k, c in enumerate(chips)}
    keys: list[tuple[int, str]] = []
    by_key: dict[tuple[int, str], list[Cell | None]] = {}
    for e in entries:
        if e.chip_id not in col:
            continue
        key = (e.op_index, e.label)
        if key not in by_key:
            keys.append(key)
            by_key[key] = [None] * len(chips)
        by_key[key][col[e.chip_id]] = _cell(e.analysis)
    keys.sort(key=lambda k: k[0])
    s = Summary(chips=[c.label() for c in chips], rows=[k[1] for k in keys],
                cells=[by_key[k] for k in keys])
    s.totals = [_total([row[c] for row in s.cells], s.rows) for c in range(len(chips))]
    s.selected_rows = [r for r, k in enumerate(keys) if k[0] == selected]
    s.op_indices = [k[0] for k in keys]
    return s


def summary_lines(s: Summary) -> list[str]:
    """The summary as aligned plain text, one chip per block of lines (for a terminal,
    where 16 chip columns would not fit side by side)."""
    lines: list[str] = []
    width = max([len(TOTAL_LABEL)] + [len(r) for r in s.rows])
    for c, chip in enumerate(s.chips):
        lines.append(f"{chip}")
        total = s.totals[c]
        lines.append(f"  {TOTAL_LABEL:<{width}}  {total.text() if total else '—'}"
                     + (f"  ({total.note})" if total and total.note else ""))
        for label, row in zip(s.rows, s.cells):
            lines.append(f"  {label:<{width}}  {row[c].text() if row[c] else '—'}")
    return lines
