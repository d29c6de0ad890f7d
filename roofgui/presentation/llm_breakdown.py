"""An LLM step broken into its parts, as the window shows it (pure Python, no Qt).

For one LLM op of the scenario (the selected one, else the first), on every chip it runs on
and in each phase: the parts of :func:`roofgui.model.llm.part_records` as

* **rows** of a table: the step's share of each part (``count`` occurrences): FLOPs, HBM
  bytes, link bytes, ``count × T_lower``, the bound of one occurrence and its share of
  ``Σ count × T_lower``; and a **total** per phase whose FLOPs and bytes are the phase's
  own (the model computes the phase as that sum);
* **segments** of a stacked bar per phase (each part's ``count × T_lower``: the phase run one
  part after another, no overlap between parts);
* **points** on the roofline: each part at its intensity and ``FLOPs / T_lower`` (a part
  without FLOPs, the embedding lookup or an all-reduce, has no place there).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from roofgui.model import llm
from roofgui.model.units import format_number, format_si, format_time
from roofgui.presentation.llm_text import PART_LABELS, summary
from roofgui.presentation.tooltips import format_intensity

#: The parts in the order a step runs them; each keeps its colour (:data:`PART_COLOURS`).
PART_ORDER = ("embedding", "qkv_proj", "attention", "o_proj", "mlp", "moe", "allreduce",
              "norms", "lm_head")
#: One colour per part (distinct from the chips' palette, legible on light and dark).
PART_COLOURS = ("#9E9E9E", "#4E79A7", "#E15759", "#76B7B2", "#59A14F", "#59A14F",
                "#B07AA1", "#EDC948", "#F28E2B")
#: The table's columns, in order.
COLUMNS = ("Part", "Count", "FLOPs", "HBM bytes", "Link bytes", "T_lower", "Bound", "Share")
#: What the table and the bars count, for their tooltips.
TIME_NOTE = ("T_lower of a part = max(FLOPs / peak, HBM bytes / HBM bandwidth, link bytes / "
             "link bandwidth); the bar adds count × T_lower: the parts one after another")


def part_colour(name: str) -> str:
    """The colour of a part (grey for one not listed)."""
    return PART_COLOURS[PART_ORDER.index(name)] if name in PART_ORDER else PART_COLOURS[0]


def part_label(name: str) -> str:
    return PART_LABELS.get(name, name)


@dataclass(frozen=True)
class PartRow:
    """One part of a phase: values for the whole step (``count`` occurrences)."""

    name: str
    label: str
    count: int
    flops: float
    hbm_bytes: float
    net_bytes: float
    t_lower: float      # count × T_lower of one occurrence
    bound: str          # of one occurrence
    share: float        # of Σ count × T_lower over the phase's parts
    colour: str
    tooltip: str


@dataclass(frozen=True)
class PhaseBreakdown:
    """One phase on one chip: its parts and its totals (FLOPs and bytes: the phase's own)."""

    chip_id: str
    chip_label: str
    phase: str
    rows: tuple[PartRow, ...]
    flops: float
    hbm_bytes: float
    net_bytes: float
    t_parts: float       # Σ count × T_lower
    t_step: float        # the phase's own lower bound (the parts overlapped)
    bound: str           # the phase's bound
    title: str


@dataclass(frozen=True)
class PartPoint:
    """A part on the roofline (log10 intensity, log10 FLOP/s), on one chip in one phase."""

    chip_id: str
    phase: str
    name: str
    x: float
    y: float
    colour: str
    tooltip: str


@dataclass(frozen=True)
class Breakdown:
    op_index: int | None
    op_name: str
    phases: tuple[PhaseBreakdown, ...]
    points: tuple[PartPoint, ...]
    message: str = ""

    def chips(self) -> list[tuple[str, str]]:
        """(chip id, label) of every chip broken down, in order."""
        seen: dict[str, str] = {}
        for ph in self.phases:
            seen.setdefault(ph.chip_id, ph.chip_label)
        return list(seen.items())

    def for_chip(self, chip_id: str) -> list[PhaseBreakdown]:
        return [ph for ph in self.phases if ph.chip_id == chip_id]


def breakdown_op_index(scenario) -> int | None:
    """The LLM op to break down: the selected op if it is one, else the first."""
    ops = scenario.ops
    sel = scenario.selected
    if 0 <= sel < len(ops) and ops[sel].kind == llm.KIND:
        return sel
    return next((i for i, op in enumerate(ops) if op.kind == llm.KIND), None)


def _row(pt: Mapping[str, Any], t_sum: float, phase: str, chip: str) -> PartRow:
    n = pt["count"]
    t = n * pt["t_lower"]
    share = t / t_sum if t_sum > 0 else 0.0
    label = part_label(pt["name"])
    tip = (f"<b>{label}</b> ×{n} · {phase} on {chip}<br>"
           f"FLOPs {format_si(n * pt['flops'], 'FLOP')}, HBM {format_si(n * pt['hbm_bytes'], 'B')}, "
           f"link {format_si(n * pt['net_bytes'], 'B')}<br>"
           f"T_lower {format_time(pt['t_lower'])} each, {format_time(t)} in all: "
           f"<b>{pt['bound']}</b>-bound, {share:.1%} of the phase's parts")
    return PartRow(pt["name"], label, n, n * pt["flops"], n * pt["hbm_bytes"], n * pt["net_bytes"],
                   t, pt["bound"], share, part_colour(pt["name"]), tip)


def _point(row: PartRow, pt: Mapping[str, Any], chip_id: str, phase: str) -> PartPoint | None:
    f, h, t = pt["flops"], pt["hbm_bytes"], pt["t_lower"]
    if not (f > 0 and h > 0 and t > 0):
        return None
    x, y = f / h, f / t
    if not (math.isfinite(x) and math.isfinite(y)):
        return None
    tip = (row.tooltip + f"<br>intensity {format_intensity(x)} FLOP/B, "
           f"{format_si(y, 'FLOP/s')} attainable")
    return PartPoint(chip_id, phase, row.name, math.log10(x), math.log10(y), row.colour, tip)


def phase_breakdown(entry) -> tuple[PhaseBreakdown, list[PartPoint]]:
    """One evaluation entry (an LLM op's phase on a chip) broken into its parts."""
    s = summary(entry)
    r = s["phases"][entry.phase]
    chip = entry.analysis.chip.label()
    parts = r["parts"]
    t_sum = sum(pt["count"] * pt["t_lower"] for pt in parts)
    rows = tuple(_row(pt, t_sum, entry.phase, chip) for pt in parts)
    points = [p for p in (_point(row, pt, entry.chip_id, entry.phase)
                          for row, pt in zip(rows, parts)) if p is not None]
    flops = sum(row.flops for row in rows)
    hbm = sum(row.hbm_bytes for row in rows)
    net = sum(row.net_bytes for row in rows)
    t_step = float(r["t_step_lower"] or 0.0)
    title = (f"{entry.phase.capitalize()} on {chip}: parts one after another "
             f"{format_time(t_sum)}; the step (parts overlapped) ≥ {format_time(t_step)}")
    ph = PhaseBreakdown(entry.chip_id, chip, entry.phase, rows, flops, hbm, net, t_sum, t_step,
                        r["bound"], title)
    return ph, points


def llm_breakdown(scenario, evaluation) -> Breakdown:
    """The breakdown of the scenario's LLM op (see :func:`breakdown_op_index`)."""
    i = breakdown_op_index(scenario)
    if i is None:
        return Breakdown(None, "", (), (), "Add an LLM step to see its parts.")
    op = scenario.ops[i]
    entries = [e for e in (evaluation.for_op(i) if evaluation is not None else [])
               if e.phase in llm.PHASES]
    phases, points = [], []
    for e in entries:
        ph, pts = phase_breakdown(e)
        phases.append(ph)
        points += pts
    message = "" if phases else f"{op.name}: no chip to break it down on."
    return Breakdown(i, op.name, tuple(phases), tuple(points), message)


def _si(v: float, unit: str) -> str:
    return format_si(v, unit) if v else "—"


def cells(row: PartRow | PhaseBreakdown) -> list[str]:
    """The table's cells (:data:`COLUMNS`) of a part, or of a phase's total."""
    if isinstance(row, PartRow):
        return [row.label, f"×{format_number(row.count)}", _si(row.flops, "FLOP"),
                _si(row.hbm_bytes, "B"), _si(row.net_bytes, "B"),
                format_time(row.t_lower), row.bound, f"{row.share:.1%}"]
    return [f"{row.phase.capitalize()} (total)", "", format_si(row.flops, "FLOP"),
            format_si(row.hbm_bytes, "B"), format_si(row.net_bytes, "B"),
            format_time(row.t_parts), row.bound, "100.0%"]


def values(row: PartRow | PhaseBreakdown) -> list[float | None]:
    """The numbers behind :func:`cells` (None where a cell is text)."""
    if isinstance(row, PartRow):
        return [None, float(row.count), row.flops, row.hbm_bytes, row.net_bytes, row.t_lower,
                None, row.share]
    return [None, None, row.flops, row.hbm_bytes, row.net_bytes, row.t_parts, None, 1.0]


def legend_names(phases: Sequence[PhaseBreakdown]) -> list[tuple[str, str]]:
    """(label, colour) of every part the phases have, in :data:`PART_ORDER`."""
    names = {row.name for ph in phases for row in ph.rows}
    order = [n for n in PART_ORDER if n in names] + sorted(names - set(PART_ORDER))
    return [(part_label(n), part_colour(n)) for n in order]
