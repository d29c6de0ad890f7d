"""The hierarchical roofline, without Qt: one slanted roof per on-chip memory level of each
chip a tiled op runs on, and one point per level for each tiled op (Nsight-style).

Every level's point of an op sits at the op's attained performance (its FLOPs over the
longest of its math and level times) and at the op's intensity against that level's bytes,
so the point nearest its own roof is the level that binds.  Coordinates are log10.
"""

from __future__ import annotations

import math
from html import escape as escape_html
from dataclasses import dataclass
from typing import Mapping

import numpy as np

from roofgui.model.tiling import TILED_KINDS, LevelPoint, TiledLevels, analysis_levels
from roofgui.model.units import format_number, format_si, format_time
from roofgui.presentation.levels_text import binding_sentence, capacity_sentence


#: Where the level roofs start (log10 FLOP/byte): far left of any view the plot fits.
ROOF_X0, ROOF_X1 = -6.0, 12.0
#: Short names drawn on the level roofs.
SHORT = {"smem": "SMEM", "lds": "LDS", "vmem": "VMEM", "tmem": "TMEM", "l2": "L2", "cmem": "CMEM",
         "mall": "MALL"}
#: How far down its slant from the ridge (log10 units) a roof's label sits: the first level
#: of a chip at LABEL_BACK, each further one LABEL_STEP further, so they stack apart.
LABEL_BACK, LABEL_STEP = 0.9, 0.35


@dataclass(frozen=True)
class LevelRoof:
    """A memory level's roof on one chip: its slant up to the ridge with the op's peak, then
    flat at that peak (where the chip's own compute roof is)."""

    chip_id: str
    level: str
    name: str
    colour: int
    x: np.ndarray
    y: np.ndarray
    bandwidth: float
    ridge: float  # FLOP/byte where the slant meets the peak
    label: str
    tooltip: str
    label_x: float = 0.0  # where the label's top-left corner sits (log10)
    label_y: float = 0.0


@dataclass(frozen=True)
class LevelMark:
    """One level's point of a tiled op on a chip."""

    op_index: int
    chip_id: str
    level: str
    x: float
    y: float
    colour: int
    binding: bool
    tooltip: str


@dataclass(frozen=True)
class LevelsGeometry:
    roofs: tuple[LevelRoof, ...] = ()
    marks: tuple[LevelMark, ...] = ()
    #: each tiled entry's levels by (op_index, chip_id), for the window's text
    levels: Mapping[tuple[int, str], TiledLevels] | None = None


def tiled_entries(evaluation):
    """The evaluation's entries of tiled matmuls, with their levels."""
    out = []
    for e in getattr(evaluation, "entries", []) or []:
        op = e.op
        if op.kind in TILED_KINDS and op.tile and not e.phase:
            tl = analysis_levels(e.analysis, op.full_dims(), op.dtypes, op.tile_obj(), op.shard_obj())
            out.append((e, tl))
    return out


def levels_geometry(evaluation, colours: Mapping[str, int]) -> LevelsGeometry:
    """Level roofs and points of every tiled matmul in ``evaluation``."""
    roofs: dict[tuple[str, str], LevelRoof] = {}
    marks: list[LevelMark] = []
    levels: dict[tuple[int, str], TiledLevels] = {}
    for e, tl in tiled_entries(evaluation):
        chip = e.analysis.chip
        colour = colours.get(e.chip_id, 0)
        peak = float(e.analysis.figures.peak)
        levels[(e.op_index, e.chip_id)] = tl
        for p in tl.points:
            if p.level != "hbm" and p.bandwidth is not None and (e.chip_id, p.level) not in roofs:
                n = sum(1 for cid, _ in roofs if cid == e.chip_id)
                roofs[(e.chip_id, p.level)] = _roof(e.chip_id, chip.label(), p, peak, colour, n)
        marks += _marks(e, tl, colour)
    return LevelsGeometry(tuple(roofs.values()), tuple(marks), levels)


def _roof(chip_id: str, chip_label: str, p, peak: float, colour: int, n: int) -> LevelRoof:
    ridge = peak / p.bandwidth
    xr = math.log10(ridge)
    x = np.array([ROOF_X0, xr, ROOF_X1])
    y = np.minimum(np.log10(p.bandwidth) + x, math.log10(peak))
    label = f"{SHORT.get(p.level, p.name)} {format_si(p.bandwidth, 'B/s')}"
    lx = xr - LABEL_BACK - LABEL_STEP * n
    tip = (f"<b>{escape_html(chip_label)}</b> · {escape_html(p.name)}: "
           f"{format_si(p.bandwidth, 'B/s')} ({escape_html(p.kind)}, [{escape_html(p.source)}])"
           f"<br>ridge at {format_number(ridge)} FLOP/byte")
    return LevelRoof(chip_id, p.level, p.name, colour, x, y, p.bandwidth, ridge, label, tip,
                     lx, math.log10(p.bandwidth) + lx - 0.04)


def _marks(e, tl: TiledLevels, colour: int) -> list[LevelMark]:
    timed = [p.t for p in tl.points if p.t is not None]
    t = max([tl.t_math, *timed])
    y = math.log10(tl.flops / t)
    b = tl.binding
    verdict = escape_html(binding_sentence(tl))
    head = f"<b>{escape_html(e.op.name)}</b> (tile {e.op.tile_obj().label()}) on " \
           f"{escape_html(e.analysis.chip.label())}"
    out = []
    for p in tl.points:
        if p.bandwidth is None:
            continue
        warn = capacity_sentence(p)
        tip = (f"{head}<br>{escape_html(p.name)}: {format_si(p.bytes, 'B')}, "
               f"{format_number(p.intensity)} FLOP/byte<br>roof {format_si(p.bandwidth, 'B/s')}, "
               f"critical {format_number(p.critical_intensity)} FLOP/byte, t = {format_time(p.t)}"
               + (f"<br>⚠ {escape_html(warn)}" if warn else "") + f"<br><i>{verdict}</i>")
        out.append(LevelMark(e.op_index, e.chip_id, p.level, math.log10(p.intensity), y, colour,
                             b is not None and p.level == b.level, tip))
    return out


def level_summary(geometry: LevelsGeometry, op_index: int, chip_names: Mapping[str, str]) -> str:
    """One line per chip saying which level binds the op (empty when the op is untiled)."""
    lines = []
    for (i, cid), tl in (geometry.levels or {}).items():
        if i != op_index:
            continue
        warns = [w for w in (capacity_sentence(p) for p in tl.points) if w]
        lines.append(f"{chip_names.get(cid, cid)}: {binding_sentence(tl)}"
                     + "".join(f"; {w}" for w in warns))
    return "\n".join(lines)


#: Which chip level a measured kernel's cache bytes belong to: L2 bytes to ``l2``, L1 bytes
#: to the chip's staging level (shared memory / L1 on NVIDIA, LDS on AMD).
MEASURED_LEVELS = (("l2_bytes", ("l2",)), ("l1_bytes", ("smem", "lds")))


@dataclass(frozen=True)
class MeasuredMark:
    """A measured kernel's point on one on-chip level (its FLOPs over that level's bytes)."""

    chip_id: str
    level: str
    x: float
    y: float
    hbm_x: float | None  # the kernel's HBM point, for the row joining its points
    colour: int
    tooltip: str


def measured_marks(placed, chips: Mapping[str, object], colours: Mapping[str, int]) -> tuple:
    """Level points of measured kernels that carry L2 / L1 byte counts (Nsight Compute's
    ``lts__t_bytes.sum`` and ``l1tex__t_bytes.sum``, rocprof-compute's TCC / TCP bytes)."""
    out = []
    for pk in placed:
        k, pt = pk.kernel, pk.point
        if not k.flops or not pt.achieved_flops or pt.achieved_flops <= 0:
            continue
        chip = chips.get(pt.chip)
        levels = {lv.id: lv for lv in getattr(chip, "levels", ())}
        for attr, ids in MEASURED_LEVELS:
            nbytes = getattr(k, attr)
            if not nbytes or nbytes <= 0:
                continue
            lv = next((levels[i] for i in ids if i in levels), None)
            level = lv.id if lv else ids[0]
            name = lv.name if lv else ("L2 cache" if attr == "l2_bytes" else "L1")
            inten = k.flops / nbytes
            roof = ""
            if lv is not None and lv.bandwidth is not None:
                att = min(pt.peak, inten * lv.bandwidth.value)
                roof = (f"<br>roof {format_si(lv.bandwidth.value, 'B/s')}: attainable "
                        f"{format_si(att, 'FLOP/s')} ({pt.achieved_flops / att:.0%} reached)")
            tip = (f"<b>{escape_html(k.name)}</b> (measured) · {escape_html(name)}: "
                   f"{format_si(nbytes, 'B')}, {format_number(inten)} FLOP/byte, "
                   f"{format_si(pt.achieved_flops, 'FLOP/s')} achieved{roof}")
            out.append(MeasuredMark(pt.chip, level, math.log10(inten), math.log10(pt.achieved_flops),
                                    pk.x, colours.get(pt.chip, 0), tip))
    return tuple(out)


def with_measured_roofs(g: LevelsGeometry, placed, chips: Mapping[str, object],
                        colours: Mapping[str, int]) -> LevelsGeometry:
    """``g`` plus the level roofs of the chips measured kernels with cache bytes sit on
    (against each kernel's peak), where ``g`` has none for that chip and level yet."""
    roofs = {(r.chip_id, r.level): r for r in g.roofs}
    for pk in placed:
        k, pt = pk.kernel, pk.point
        if not (k.l2_bytes or k.l1_bytes) or not k.flops:
            continue
        chip = chips.get(pt.chip)
        for lv in getattr(chip, "levels", ()):
            if lv.bandwidth is None or (pt.chip, lv.id) in roofs:
                continue
            n = sum(1 for cid, _ in roofs if cid == pt.chip)
            p = LevelPoint(lv.id, lv.name, 1.0, 1.0, lv.bandwidth.value, None, None,
                           kind=lv.kind, source=lv.bandwidth.source)
            roofs[(pt.chip, lv.id)] = _roof(pt.chip, chip.label(), p, pt.peak,
                                            colours.get(pt.chip, 0), n)
    return LevelsGeometry(tuple(roofs.values()), g.marks, g.levels)
