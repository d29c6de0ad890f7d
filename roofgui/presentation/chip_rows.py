"""The chips list's row: a chip's bf16 peak, HBM bandwidth and critical intensity as short
text, and its tooltip, with the scenario's derate of that chip applied when it has one.

A derated chip's figures are the ones its roofs are drawn at, so the list agrees with the
roofline; they are marked (:data:`DERATED_MARK`) and the tooltip gives the spec-sheet
figures beside them and the derate's name and fractions.
"""

from __future__ import annotations

from dataclasses import dataclass

from roofgui.model.chips import Chip
from roofgui.model.derate import Derate
from roofgui.model.errors import ModelError
from roofgui.model.units import format_capacity, format_number, format_si

#: What precedes a derated figure in the list ("≈ 692 T"): a figure lowered to a fit.
DERATED_MARK = "\u2248 "


def chip_headline(chip: Chip) -> tuple[str, str, str]:
    """(bf16 peak, HBM bandwidth, critical intensity) as short text."""
    try:
        peak = chip.headline_peak()
        p = format_si(peak.value, "FLOP/s")
        ridge = format_number(round(chip.critical_intensity))
    except ModelError:
        p, ridge = "—", "—"
    return p, format_si(chip.hbm_bandwidth.value, "B/s"), ridge


def _figures(chip: Chip) -> str:
    p, bw, ridge = chip_headline(chip)
    return f"bf16 peak {p} · HBM {bw} · critical intensity {ridge} FLOP/B"


def chip_tooltip(chip: Chip, derate: Derate | None = None) -> str:
    """The chip's name, summary, figures, links and kind; with ``derate``, the derated
    figures first and the spec sheet's after them."""
    p, bw, ridge = chip_headline(chip)
    links = ", ".join(f"{n} {format_si(l.bandwidth.value, 'B/s')}" for n, l in chip.links.items())
    kind = "preset (read-only)" if chip.builtin else f"custom chip ({chip.path})"
    spec = (f"bf16 peak {p} · HBM {bw} · {format_capacity(chip.hbm_capacity.value)} · "
            f"critical intensity {ridge} FLOP/B")
    figures = [spec]
    if derate is not None:
        figures = [f"Derated by '{derate.name}' ({derate.fractions_text()}): "
                   f"{_figures(derate.apply(chip))}", derate.note, f"Spec sheet: {spec}",
                   "Remove Derate in the Measured panel (View \u25b8 Measured) restores it."]
    lines = [chip.name, chip.summary, *figures, f"Links: {links or 'none'}", kind,
             "Double-click for the full spec and its sources."]
    return "\n".join(x for x in lines if x)


@dataclass(frozen=True)
class ChipRow:
    """The list's columns after the name, their tooltip and whether they are derated."""

    peak: str
    hbm: str
    ridge: str
    tooltip: str
    derated: bool

    def columns(self) -> tuple[str, str, str]:
        return self.peak, self.hbm, self.ridge


def chip_row(chip: Chip, derate: Derate | None = None) -> ChipRow:
    """The chip's row as the list shows it (``derate``: the scenario's derate of it)."""
    p, bw, ridge = chip_headline(derate.apply(chip) if derate is not None else chip)
    cells = [p.replace("FLOP/s", "").strip(), bw.replace("B/s", "").strip(), ridge]
    if derate is not None:
        cells = [c if c == "—" else DERATED_MARK + c for c in cells]
    return ChipRow(*cells, chip_tooltip(chip, derate), derate is not None)
