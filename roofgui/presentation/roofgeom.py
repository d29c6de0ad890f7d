"""Roofline geometry: the roofs, ridges, op points, op labels and regions the roofline plot
draws, and the view that fits them, computed without Qt.  All coordinates are **log10**.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import cached_property
from typing import Mapping, Sequence

import numpy as np

from roofgui.model.errors import ModelError
from roofgui.model.roofline import BOUNDS
from roofgui.model.units import format_si
from roofgui.presentation.coincide import dedupe_ridge_labels, mark_coincident_roofs
from roofgui.presentation.colours import assign_colours
from roofgui.presentation.regions import Region, region_intervals
from roofgui.presentation.ticks import nice_range
from roofgui.presentation.tooltips import format_intensity, point_tooltip

BOUND_SYMBOLS = {"compute": "o", "memory": "s", "network": "t"}


@dataclass(frozen=True)
class Roof:
    """One drawn roof segment of a chip, as a log10 polyline."""

    chip_id: str
    key: str  # "compute:bf16", "compute:bf16/vector", "hbm", "link:ici"
    kind: str  # "compute" | "hbm" | "link"
    x: np.ndarray
    y: np.ndarray
    peak: float  # FLOP/s (the highest peak the slant reaches, for slants)
    bandwidth: float | None  # bytes/s for slants
    tooltip: str
    label: str = ""  # short text drawn on the roof ("bf16 197 TFLOP/s"), compute roofs only
    #: (k, m): the k-th of m chips' compute roofs on one line (see :mod:`.coincide`)
    overlap: tuple[int, int] = (0, 1)


@dataclass(frozen=True)
class Ridge:
    """Where a slanted roof meets a flat one."""

    chip_id: str
    key: str  # "hbm|compute:bf16", "link:ici|compute:bf16"
    intensity: float  # FLOP/byte
    peak: float
    x: float  # log10
    y: float  # log10
    label: str  # "240"
    tooltip: str
    #: False when another chip's ridge already labels the same value at the same x
    #: (two chips with the same peak and link): the plot draws that label once
    label_shown: bool = True


@dataclass(frozen=True)
class ChipGeometry:
    chip_id: str
    label: str  # Chip.label(): name with what-if multipliers
    colour: int  # palette slot
    roofs: tuple[Roof, ...]
    ridges: tuple[Ridge, ...]


@dataclass(frozen=True)
class Point:
    """An op (phase) on a chip at (intensity, attainable FLOP/s)."""

    op_index: int
    phase: str
    chip_id: str
    op_label: str
    x: float  # log10 intensity
    y: float  # log10 attainable FLOP/s
    bound: str
    symbol: str
    colour: int
    #: the evaluation's entry the point shows (for its tooltip)
    entry: object = field(repr=False, compare=False)
    #: log10 FLOPs per *link* byte when the op sends anything over a link: where
    #: the op sits against the (dashed) link roof, drawn as a hollow twin marker.
    net_x: float | None = None

    @property
    def key(self) -> tuple[int, str, str]:
        return (self.op_index, self.phase, self.chip_id)

    @cached_property
    def tooltip(self) -> str:
        """What hovering the point shows (made when first asked: most points never are)."""
        return point_tooltip(self.entry)


@dataclass(frozen=True)
class OpLabel:
    """One text label per op (phase), placed at its highest point."""

    op_index: int
    phase: str
    text: str
    x: float
    y: float
    #: "above" or "below" the anchor, chosen so neighbouring labels alternate.
    side: str = "above"

    @property
    def key(self) -> tuple[int, str]:
        return (self.op_index, self.phase)


@dataclass(frozen=True)
class RooflineGeometry:
    chips: tuple[ChipGeometry, ...]
    points: tuple[Point, ...]
    labels: tuple[OpLabel, ...]
    regions: tuple[Region, ...]
    #: suggested view [x0, x1, y0, y1] in log10 units
    fit: tuple[float, float, float, float]
    colours: Mapping[str, int] = field(default_factory=dict)

    def chip(self, chip_id: str) -> ChipGeometry:
        for c in self.chips:
            if c.chip_id == chip_id:
                return c
        raise KeyError(chip_id)


@dataclass
class ChipRoofs:
    """What a chip's roofs are drawn from: its label, the peaks in use (roof key ->
    (FLOP/s, description)), its HBM bandwidth and the links in use (name -> bytes/s)."""

    label: str
    peaks: dict[str, tuple[float, str]] = field(default_factory=dict)
    hbm: float = 0.0
    links: dict[str, float] = field(default_factory=dict)

    def ridges(self) -> list[tuple[str, str, float, float, str]]:
        """``(key, bandwidth's name, intensity, peak, peak's description)`` of each ridge."""
        out = []
        for k, (pv, desc) in self.peaks.items():
            out.append((f"hbm|{k}", "HBM", pv / self.hbm, pv, desc))
            out += [(f"link:{ln}|{k}", ln, pv / bw, pv, desc) for ln, bw in self.links.items()]
        return out


def roofline_geometry(scenario, evaluation, previous_colours: Mapping[str, int] | None = None,
                      span: float = 10.0, n_colours: int = 8) -> RooflineGeometry:
    """Everything the roofline plot draws for a scenario and its evaluation.

    Parameters
    ----------
    scenario:
        A :class:`~roofgui.model.scenario.Scenario` (for what-if settings).
    evaluation:
        Its :class:`~roofgui.model.scenario.Evaluation`.
    previous_colours:
        Palette slots from the last call, so chips keep their colour.
    span:
        Decades (at least; rounded out to whole decades) the roofs extend beyond the
        chips' ridges on each side, and at least half that beyond every point, so
        panning does not run off their ends (see :func:`roof_extent`).
    """
    colours = assign_colours([c.id for c in evaluation.chips], previous_colours, n_colours)
    roofs = chip_roofs(scenario, evaluation)
    points = [p for p in _points_of(evaluation.entries, colours) if p is not None]
    fit = fit_view(points, roofs)
    xa, xb = roof_extent(points, roofs, span)
    key = (xa, xb, tuple((cid, cr.label, colours[cid], tuple(cr.peaks.items()), cr.hbm,
                          tuple(cr.links.items())) for cid, cr in roofs.items()))
    hit = _CHIPS.get(key)
    if hit is None:
        if len(_CHIPS) >= 16:
            _CHIPS.clear()
        chips = [chip_geometry(cid, cr, colours[cid], xa, xb) for cid, cr in roofs.items()]
        regions = region_intervals(r.intensity for c in chips for r in c.ridges)
        hit = _CHIPS[key] = (tuple(mark_coincident_roofs(dedupe_ridge_labels(chips))),
                             tuple(regions))
    return RooflineGeometry(hit[0], tuple(points), tuple(op_labels(points)), hit[1], fit,
                            colours)


def _points_of(entries, colours: Mapping[str, int]) -> list[Point | None]:
    """Each entry's point: the one the last call made for the very same entry (an op the
    edit left alone keeps its entries) in the same colour, else a new one.  (16 ops × 16
    chips: 256 points a keystroke, of which an edit of one op moves 16.)"""
    made, out = {}, []
    for e in entries:
        key = (id(e), colours.get(e.chip_id, 0))
        hit = _LAST_POINTS.get(key)
        if hit is None or hit[0] is not e:
            hit = (e, make_point(e, key[1]))
        made[key] = hit
        out.append(hit[1])
    _LAST_POINTS.clear()
    _LAST_POINTS.update(made)
    return out


#: The points the last geometry made, by the entry each was made from and its colour (the
#: entry held, so its id is not reused while it is remembered).
_LAST_POINTS: dict[tuple, tuple] = {}


#: The chips' part of recent geometries (roofs, ridges, regions) by what it is made of:
#: an edit that only moves points (most edits) gets the very same objects back, and
#: the plot skips re-laying its roofs and ridge labels by identity.
_CHIPS: dict[tuple, tuple[tuple[ChipGeometry, ...], tuple[Region, ...]]] = {}


def roof_extent(points: Sequence[Point], roofs: Mapping[str, ChipRoofs],
                span: float) -> tuple[int, int]:
    """Where the roofs start and end (log10 intensity): whole decades ``span`` beyond the
    chips' ridges, widened to ``span / 2`` beyond a point that lies further out.  An edit
    moves points, not ridges, so the extent (and with it the chips' geometry, the same
    objects, and the plot's roofs as drawn) stays put unless the edit sends an op far off."""
    ridges = [math.log10(ri) for cr in roofs.values() for _, _, ri, _, _ in cr.ridges()]
    xs = [p.x for p in points] + [p.net_x for p in points if p.net_x is not None]
    lo, hi = (min(ridges), max(ridges)) if ridges else (min(xs, default=0.0), max(xs, default=0.0))
    xa, xb = math.floor(lo - span), math.ceil(hi + span)
    if xs and min(xs) - span / 2 < xa:
        xa = math.floor(min(xs) - span)
    if xs and max(xs) + span / 2 > xb:
        xb = math.ceil(max(xs) + span)
    return xa, xb


def chip_roofs(scenario, evaluation) -> dict[str, ChipRoofs]:
    """Each chip's roofs, in the evaluation's chip order: the peaks, HBM and links its ops
    use, or its bf16 roof when no op runs on it.  A chip with neither is left out."""
    settings = scenario.settings()
    out: dict[str, ChipRoofs] = {}
    for e in evaluation.entries:
        f = e.analysis.figures
        cr = out.get(e.chip_id)
        if cr is None:
            cr = out[e.chip_id] = ChipRoofs(f.chip.label())
        desc = f"{f.peak_info.key} {f.peak_info.unit}"
        if f.derate_fraction != 1.0:
            desc += f", derated to {f.derate_fraction:.0%}"
        cr.peaks[peak_key(f.peak_info.key, f.peak_info.unit)] = (f.peak, desc)
        cr.hbm = f.hbm_bandwidth
        if e.analysis.work.link and f.link_bandwidth:
            # keyed by the link actually used ("scale-up" resolves per chip: ici, nvlink …)
            cr.links[f.link_name or e.analysis.work.link] = f.link_bandwidth
    ordered: dict[str, ChipRoofs] = {}
    for c in evaluation.chips:
        if c.id in out:
            ordered[c.id] = out[c.id]
            continue
        try:  # no op runs on this chip (no ops, or all failed): show its bf16 roof
            sc = c.scaled(settings.peak, settings.hbm, settings.link)
            p = sc.peak("bf16")
        except ModelError:
            continue
        ordered[c.id] = ChipRoofs(sc.label(), {peak_key(p.key, p.unit): (p.value, f"{p.key} {p.unit}")},
                                  sc.hbm_bandwidth.value)
    return ordered


def peak_key(key: str, unit: str) -> str:
    """A compute roof's key: ``compute:bf16`` (matrix) or ``compute:bf16/vector``."""
    return f"compute:{key}" if unit == "matrix" else f"compute:{key}/{unit}"


def fit_view(points: Sequence[Point], roofs: Mapping[str, ChipRoofs]) -> tuple[float, float, float, float]:
    """The view ``(x0, x1, y0, y1)`` (log10) showing every point, ridge and flat roof, and
    the slanted roofs where they enter it: the top ~5 decades of them at most."""
    xs = [p.x for p in points] + [p.net_x for p in points if p.net_x is not None]
    ys = [p.y for p in points]
    for cr in roofs.values():
        xs += [math.log10(ri) for _, _, ri, _, _ in cr.ridges()]
        ys += [math.log10(pv) for pv, _ in cr.peaks.values()]
    if not xs:
        return (-1.0, 4.0, 12.0, 16.0)
    x0, x1 = nice_range(min(xs), max(xs), pad=0.35, min_span=2.0)
    for cr in roofs.values():  # each slanted roof where it enters the view
        ys += [x0 + math.log10(bw) for bw in [cr.hbm, *cr.links.values()]]
    top, bottom = max(ys), min(ys)
    # keep the plot about the top ~5 decades: very low slant ends are not interesting
    bottom = max(bottom, min(top - 4.0, min((p.y for p in points), default=top)))
    y0, y1 = nice_range(bottom, top, pad=0.2, min_span=1.5)
    return (x0, x1, y0, max(y1, top + 0.4))  # (headroom for labels above the flat roofs)


def chip_geometry(cid: str, cr: ChipRoofs, colour: int, xa: float, xb: float) -> ChipGeometry:
    """A chip's roofs (from ``xa`` to ``xb``, log10 intensity) and ridges."""
    label, bw = cr.label, cr.hbm
    top_peak = max(v for v, _ in cr.peaks.values())
    roofs: list[Roof] = []
    for k, (pv, desc) in sorted(cr.peaks.items(), key=lambda kv: kv[1][0]):
        rx = math.log10(pv / bw)
        roofs.append(Roof(cid, k, "compute", np.array([min(rx, xb), xb]),
                          np.array([math.log10(pv)] * 2), pv, None,
                          f"<b>{label}</b><br>compute roof: {format_si(pv, 'FLOP/s')} ({desc})",
                          roof_label(desc, pv)))
    roofs.append(_slant(cid, "hbm", "hbm", bw, top_peak, xa,
                        f"<b>{label}</b><br>HBM roof: {format_si(bw, 'B/s')}<br>"
                        f"FLOP/s = intensity × {format_si(bw, 'B/s')}"))
    for ln, lbw in sorted(cr.links.items()):
        roofs.append(_slant(cid, f"link:{ln}", "link", lbw, top_peak, xa,
                            f"<b>{label}</b><br>{ln} link roof: {format_si(lbw, 'B/s')} one-way"
                            f"<br>x = FLOPs per link byte"))
    ridges = [Ridge(cid, rkey, ri, pv, math.log10(ri), math.log10(pv), format_intensity(ri),
                    f"<b>{label}</b><br>ridge ({what} × {desc}): {format_intensity(ri)} "
                    f"FLOP/byte<br>peak {format_si(pv, 'FLOP/s')}")
              for rkey, what, ri, pv, desc in cr.ridges()]
    return ChipGeometry(cid, label, colour, tuple(roofs), tuple(ridges))


def _slant(cid: str, key: str, kind: str, bw: float, top_peak: float, xa: float,
           tooltip: str) -> Roof:
    """A slanted roof of bandwidth ``bw`` from ``xa`` up to the highest peak's ridge."""
    end = max(math.log10(top_peak / bw), xa)
    return Roof(cid, key, kind, np.array([xa, end]),
                np.array([xa + math.log10(bw), end + math.log10(bw)]), top_peak, bw, tooltip)


def roof_label(desc: str, peak: float) -> str:
    """The text drawn on a compute roof: ``bf16 197 TFLOP/s``."""
    what = desc.replace(" matrix", "").split(",")[0]
    return f"{what} {format_si(peak, 'FLOP/s')}"


def make_point(e, colour: int) -> Point | None:
    """An entry's point (None: nothing to draw, as for a zero or infinite figure)."""
    r = e.analysis.result
    x, y = float(r.intensity), float(r.attainable_flops)
    if not (x > 0 and y > 0 and math.isfinite(x) and math.isfinite(y)):
        return None
    bound = BOUNDS[int(r.bound_code)]
    ni = float(r.net_intensity)
    net_x = math.log10(ni) if float(r.net_bytes) > 0 and 0 < ni < math.inf else None
    return Point(e.op_index, e.phase, e.chip_id, e.label, math.log10(x), math.log10(y),
                 bound, BOUND_SYMBOLS[bound], colour, e, net_x)


def op_labels(points: Sequence[Point], min_dx: float = 0.25) -> list[OpLabel]:
    """One label per op (phase), at its highest point; neighbours closer than
    ``min_dx`` decades alternate above/below so their texts do not stack."""
    best: dict[tuple[int, str], Point] = {}
    for p in points:
        k = (p.op_index, p.phase)
        if k not in best or p.y > best[k].y:
            best[k] = p
    out: list[OpLabel] = []
    side = "above"
    last_x = None
    for p in sorted(best.values(), key=lambda p: (p.x, p.op_index)):
        if last_x is not None and p.x - last_x < min_dx:
            side = "below" if side == "above" else "above"
        else:
            side = "above"
        out.append(OpLabel(p.op_index, p.phase, p.op_label, p.x, p.y, side))
        last_x = p.x
    return out


def key_points(g: RooflineGeometry) -> tuple[list[float], list[float]]:
    """What a roofline view must show for the picture to make sense: every op point
    (and its link twin), every ridge, and the top of the highest roof."""
    xs = [p.x for p in g.points] + [p.net_x for p in g.points if p.net_x is not None]
    ys = [p.y for p in g.points] + [p.y for p in g.points if p.net_x is not None]
    for c in g.chips:
        for r in c.ridges:
            xs.append(r.x)
            ys.append(r.y)
    return xs, ys
