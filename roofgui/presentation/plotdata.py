"""Plot geometry: everything the roofline and sweep plots draw, computed without Qt.

The widgets in :mod:`roofgui.gui` only call ``setData`` with what this module
returns.  All coordinates are **log10** of the quantity (the plot library's log mode
transforms curves only, so the plots draw log10 data on linear axes whose
ticks read as powers of ten).

Regions
-------
A *roof* is a (compute peak, bandwidth) pair; it is bandwidth-bound below its
ridge intensity ``peak / bandwidth``.  Over the x axis, an intensity is

* **red** when it lies below every roof's ridge (bandwidth-bound under all),
* **yellow** when it lies below some ridges but not all,
* **green** when it lies at or above every ridge (compute-bound under all).

With one roof there is no yellow.  This is the reference's BW1/BW2 figure
generalised to every chip, peak and link on screen.

The sweep plot's geometry is in :mod:`.sweepgeom` and the polyline helpers (points
along a line, simplifying one for drawing) in :mod:`.polylines`; their names are
re-exported here.
"""

from __future__ import annotations

import math
import zlib
from collections import OrderedDict
from dataclasses import dataclass, field, replace
from typing import Iterable, Mapping, Sequence

import numpy as np

from roofgui.model.chips import Chip
from roofgui.model.errors import ModelError
from roofgui.model.roofline import BOUNDS, Settings
from roofgui.presentation.polylines import DRAW_TOLERANCE, densify, densify_many, simplify_polylines  # noqa: F401
from roofgui.model.units import format_number, format_si, format_time

#: log10 stand-in for "unbounded" ends of regions (1e±60 is far outside any view).
LOG_INF = 60.0

BOUND_SYMBOLS = {"compute": "o", "memory": "s", "network": "t"}
BOUND_LABELS = {"compute": "compute-bound", "memory": "memory-bound", "network": "network-bound"}
REGION_KINDS = ("red", "yellow", "green")
REGION_LABELS = {
    "red": "bandwidth-bound under every roof",
    "yellow": "bandwidth-bound under some roofs",
    "green": "compute-bound under every roof",
}
#: Short names drawn inside the bands.
REGION_SHORT = {"red": "bandwidth-bound on all roofs", "yellow": "bound on some",
                "green": "compute-bound on all"}
#: Line styles per op in the sweep plot, cycled.
OP_DASHES = ("solid", "dash", "dot", "dashdot", "dashdotdot")


# ---------------------------------------------------------------------------
# Regions
# ---------------------------------------------------------------------------

@dataclass(frozen=True)
class Region:
    """An interval of the x axis (log10 intensity); ends may be ±LOG_INF."""

    kind: str  # "red" | "yellow" | "green"
    x0: float
    x1: float

    @property
    def label(self) -> str:
        return REGION_LABELS[self.kind]


def region_intervals(ridges: Iterable[float]) -> list[Region]:
    """Red / yellow / green intervals of log10 intensity for the given ridge intensities.

    Parameters
    ----------
    ridges:
        Ridge intensities (FLOP/byte, linear units) of every roof shown.

    Returns
    -------
    list[Region]
        In x order; empty when there are no roofs.  Yellow only appears when the
        ridges differ.
    """
    r = np.asarray([float(v) for v in ridges if v is not None and np.isfinite(v) and v > 0])
    if r.size == 0:
        return []
    lo, hi = float(np.log10(r.min())), float(np.log10(r.max()))
    out = [Region("red", -LOG_INF, lo)]
    if hi > lo:
        out.append(Region("yellow", lo, hi))
    out.append(Region("green", hi, LOG_INF))
    return out


def region_at(regions: Sequence[Region], x_log: float) -> str | None:
    """The region kind covering log10 intensity ``x_log`` (intervals are [x0, x1))."""
    for reg in regions:
        if reg.x0 <= x_log < reg.x1:
            return reg.kind
    return None


# ---------------------------------------------------------------------------
# Colours
# ---------------------------------------------------------------------------

def assign_colours(chip_ids: Sequence[str], previous: Mapping[str, int] | None = None,
                   n: int = 8) -> dict[str, int]:
    """Palette slots per chip: chips keep their previous slot; new chips take the lowest free one.

    So unchecking one chip never recolours the others, and a fresh plot of the
    same scenario is coloured in chip order (blue, orange, ... for the first chips).
    """
    prev = dict(previous or {})
    out: dict[str, int] = {}
    for cid in chip_ids:
        if cid in prev and cid not in out:
            out[cid] = prev[cid] % n
    used = set(out.values())
    for cid in chip_ids:
        if cid in out:
            continue
        free = [s for s in range(n) if s not in used]
        slot = free[0] if free else zlib.crc32(cid.encode()) % n
        out[cid] = slot
        used.add(slot)
    return out


# ---------------------------------------------------------------------------
# Ticks
# ---------------------------------------------------------------------------

def log_ticks(lo: float, hi: float, max_major: int = 9) -> tuple[list[float], list[float]]:
    """Major and minor tick positions (log10) for a log axis spanning [lo, hi] (log10).

    Majors are whole decades (every 2nd/3rd... decade when the span is wide);
    minors are 2..9 × each decade while the span is small enough to show them.
    When less than one decade is visible, 2 and 5 become majors so the axis
    always has labels.
    """
    if not (math.isfinite(lo) and math.isfinite(hi)) or hi <= lo:
        return [], []
    span = hi - lo
    step = max(1, int(math.ceil(span / max_major)))
    first = int(math.floor(lo))
    last = int(math.ceil(hi))
    majors = [float(d) for d in range(first, last + 1) if d % step == 0 and lo <= d <= hi]
    minors: list[float] = []
    if step == 1 and span <= 8:
        mults = (2, 3, 4, 5, 6, 7, 8, 9)
        for d in range(first - 1, last + 1):
            for m in mults:
                v = d + math.log10(m)
                if lo <= v <= hi:
                    minors.append(v)
    elif step > 1:
        minors = [float(d) for d in range(first, last + 1) if d % step != 0 and lo <= d <= hi]
    if len(majors) < 2:
        extra = [v for v in minors if round(10 ** (v - math.floor(v + 1e-9))) in (2, 5)]
        majors = sorted(set(majors) | set(extra))
        minors = [v for v in minors if v not in majors]
    return majors, minors


def tick_label(v_log: float, kind: str = "si") -> str:
    """Label for a tick at log10 value ``v_log``.

    ``kind``: ``"si"`` → ``100 T``, ``1 P``; ``"plain"`` → ``0.1``, ``10``, ``1k``, ``10M``;
    ``"time"`` → ``100 µs``, ``1 ms``, ``10 s``.
    """
    v = 10.0 ** v_log
    # snap to 3 significant digits so 10**2.9999999 prints as 1k
    v = float(f"{v:.3g}")
    if kind == "time":
        return format_time(v, 3)
    if kind == "plain":
        if v < 1000:
            return f"{v:g}"
        return format_si(v, "", 3).replace(" ", "")
    return format_si(v, "", 3)


def tick_label_exact(v_log: float, kind: str = "si") -> str:
    """A readout value at log10 ``v_log`` with 3 significant digits.

    ``"si"`` gives ``"197 T"`` (append a unit directly: ``197 TFLOP/s``),
    ``"plain"`` gives ``"241"`` / ``"4.38k"``, ``"time"`` gives ``"174 µs"``.
    """
    v = 10.0 ** v_log
    if kind == "time":
        return format_time(v, 3)
    if kind == "plain":
        return f"{v:.3g}" if v < 1000 else format_si(v, "", 3).replace(" ", "")
    t = format_si(v, "", 3)
    return t if " " in t else t + " "


def stack_rows(xs: Sequence[float], widths: Sequence[float], gap: float = 0.0) -> list[int]:
    """Rows for labels centred at ``xs`` with the given widths, so none overlap in a row.

    Greedy in x order (the input order is kept in the output): each label takes
    the lowest row whose last label ends before it starts.  Units are whatever
    ``xs`` and ``widths`` share (decades, pixels).
    """
    order = sorted(range(len(xs)), key=lambda i: xs[i])
    ends: list[float] = []  # right edge of the last label in each row
    rows = [0] * len(xs)
    for i in order:
        left = xs[i] - widths[i] / 2
        for r, end in enumerate(ends):
            if left >= end + gap:
                rows[i] = r
                ends[r] = xs[i] + widths[i] / 2
                break
        else:
            rows[i] = len(ends)
            ends.append(xs[i] + widths[i] / 2)
    return rows


def spread_1d(positions: Sequence[float], size: float) -> list[float]:
    """Move 1-D label positions apart so neighbours are at least ``size`` apart,
    each moving as little as possible (order kept; input order kept in the output)."""
    n = len(positions)
    if n == 0:
        return []
    order = sorted(range(n), key=lambda i: positions[i])
    # clusters of labels that must sit shoulder to shoulder, centred on their mean
    clusters: list[list[int]] = []
    starts: list[float] = []
    for i in order:
        clusters.append([i])
        starts.append(positions[i])
        while len(clusters) > 1:
            a, b = clusters[-2], clusters[-1]
            if starts[-2] + len(a) * size <= starts[-1]:
                break
            merged = a + b
            mean = sum(positions[j] for j in merged) / len(merged)
            clusters[-2:] = [merged]
            starts[-2:] = [mean - (len(merged) - 1) * size / 2]
    out = [0.0] * n
    for cl, st in zip(clusters, starts):
        for k, i in enumerate(cl):
            out[i] = st + k * size
    return out


def least_covered(rects: Sequence[tuple[float, float, float, float]], xs, ys,
                  margin: float = 0.0) -> int:
    """Index of the rectangle ``(left, top, width, height)`` holding the fewest points.

    Ties go to the earliest rectangle, so callers list their preference first.
    """
    x = np.asarray(xs, dtype=np.float64)
    y = np.asarray(ys, dtype=np.float64)
    best, best_n = 0, None
    for i, (l, t, w, h) in enumerate(rects):
        n = int(np.count_nonzero((x >= l - margin) & (x <= l + w + margin)
                                 & (y >= t - margin) & (y <= t + h + margin)))
        if best_n is None or n < best_n:
            best, best_n = i, n
    return best


def label_rects(x: float, y: float, w: float, h: float,
                anchors: Sequence[tuple[float, float]]) -> list[tuple[float, float, float, float]]:
    """Rectangles ``(left, top, width, height)`` of a ``w``×``h`` label pinned at ``(x, y)``
    by each anchor ``(ax, ay)`` (the fraction of the label at the pin; y grows downwards)."""
    return [(x - ax * w, y - ay * h, w, h) for ax, ay in anchors]


def place_label(x: float, y: float, w: float, h: float, anchors: Sequence[tuple[float, float]],
                xs, ys, bounds: tuple[float, float, float, float] | None = None,
                margin: float = 0.0) -> int:
    """Index of the anchor at which a ``w``×``h`` label pinned at ``(x, y)`` covers the fewest
    points ``(xs, ys)`` (its own point, at the pin, is ignored).

    Anchors whose label lies inside ``bounds`` ``(left, top, right, bottom)`` are preferred;
    ties go to the earlier anchor, so callers list their preference first.  Pixel units.
    """
    rects = label_rects(x, y, w, h, anchors)
    ok = [i for i, (l, t, rw, rh) in enumerate(rects)
          if bounds is None or (l >= bounds[0] and t >= bounds[1]
                                and l + rw <= bounds[2] and t + rh <= bounds[3])]
    if not ok:
        return 0
    px = np.asarray(xs, dtype=np.float64)
    py = np.asarray(ys, dtype=np.float64)
    other = ~((np.abs(px - x) < 0.5) & (np.abs(py - y) < 0.5))
    best = least_covered([rects[i] for i in ok], px[other], py[other], margin=margin)
    return ok[best]


def nice_range(lo: float, hi: float, pad: float = 0.15, step: float = 0.5,
               min_span: float = 1.0) -> tuple[float, float]:
    """Pad a log10 interval and snap its ends outwards to multiples of ``step`` decades."""
    if not (math.isfinite(lo) and math.isfinite(hi)):
        return 0.0, 1.0
    if hi - lo < min_span:
        mid = (lo + hi) / 2
        lo, hi = mid - min_span / 2, mid + min_span / 2
    lo = math.floor((lo - pad) / step) * step
    hi = math.ceil((hi + pad) / step) * step
    return lo, hi


def view_covers(view: Sequence[float] | None, xs: Sequence[float], ys: Sequence[float],
                margin: float = 0.0) -> bool:
    """Whether the view ``[x0, x1, y0, y1]`` holds every point ``(xs[i], ys[i])``
    at least ``margin`` inside its edges (all log10 units)."""
    if view is None:
        return False
    x0, x1, y0, y1 = view
    return all(x0 + margin <= x <= x1 - margin and y0 + margin <= y <= y1 - margin
               for x, y in zip(xs, ys))


def key_points(g: "RooflineGeometry") -> tuple[list[float], list[float]]:
    """What a roofline view must show for the picture to make sense: every op point
    (and its link twin), every ridge, and the top of the highest roof."""
    xs = [p.x for p in g.points] + [p.net_x for p in g.points if p.net_x is not None]
    ys = [p.y for p in g.points] + [p.y for p in g.points if p.net_x is not None]
    for c in g.chips:
        for r in c.ridges:
            xs.append(r.x)
            ys.append(r.y)
    return xs, ys


# ---------------------------------------------------------------------------
# Roofline geometry
# ---------------------------------------------------------------------------

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
    tooltip: str
    #: log10 FLOPs per *link* byte when the op sends anything over a link: where
    #: the op sits against the (dashed) link roof, drawn as a hollow twin marker.
    net_x: float | None = None

    @property
    def key(self) -> tuple[int, str, str]:
        return (self.op_index, self.phase, self.chip_id)


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


def _peak_key(key: str, unit: str) -> str:
    return f"compute:{key}" if unit == "matrix" else f"compute:{key}/{unit}"


def _fmt_intensity(v: float) -> str:
    if v >= 100:
        return format_number(round(v))
    return f"{v:.3g}"


def _roof_label(desc: str, peak: float) -> str:
    what = desc.replace(" matrix", "").split(",")[0]
    return f"{what} {format_si(peak, 'FLOP/s')}"


def roofline_geometry(scenario, evaluation, previous_colours: Mapping[str, int] | None = None,
                      span: float = 4.0, n_colours: int = 8) -> RooflineGeometry:
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
        Decades the roofs extend beyond the fitted view on each side, so
        panning does not run off their ends.
    """
    settings: Settings = scenario.settings()
    chips: list[Chip] = list(evaluation.chips)
    colours = assign_colours([c.id for c in chips], previous_colours, n_colours)

    # Per chip: the peaks in use (key -> (value, description)), HBM bw, links in use.
    peaks: dict[str, dict[str, tuple[float, str]]] = {c.id: {} for c in chips}
    hbm: dict[str, float] = {}
    links: dict[str, dict[str, float]] = {c.id: {} for c in chips}
    labels: dict[str, str] = {}
    for e in evaluation.entries:
        f = e.analysis.figures
        k = _peak_key(f.peak_info.key, f.peak_info.unit)
        desc = f"{f.peak_info.key} {f.peak_info.unit}"
        if f.derate_fraction != 1.0:
            desc += f", derated to {f.derate_fraction:.0%}"
        peaks.setdefault(e.chip_id, {})[k] = (f.peak, desc)
        hbm[e.chip_id] = f.hbm_bandwidth
        if e.analysis.work.link and f.link_bandwidth:
            # keyed by the link actually used ("scale-up" resolves per chip: ici, nvlink …)
            links.setdefault(e.chip_id, {})[f.link_name or e.analysis.work.link] = f.link_bandwidth
        if e.chip_id not in labels:  # (the same scaled chip for every op)
            labels[e.chip_id] = f.chip.label()
    for c in chips:
        if not peaks.get(c.id):
            # No op runs on this chip (no ops, or all failed): show its bf16 roof.
            try:
                sc = c.scaled(settings.peak, settings.hbm, settings.link)
                p = sc.peak("bf16")
                peaks[c.id] = {_peak_key(p.key, p.unit): (p.value, f"{p.key} {p.unit}")}
                hbm[c.id] = sc.hbm_bandwidth.value
                labels[c.id] = sc.label()
            except ModelError:
                continue
        labels.setdefault(c.id, c.label())

    # Points.
    points: list[Point] = []
    for e in evaluation.entries:
        p = _point(e, colours.get(e.chip_id, 0))
        if p is not None:
            points.append(p)

    # Extent of interest, for the fit and the roof polylines.
    xs: list[float] = [p.x for p in points] + [p.net_x for p in points if p.net_x is not None]
    ys: list[float] = [p.y for p in points]
    ridge_list: list[tuple[str, str, float, float, str, str]] = []
    for c in chips:
        if c.id not in hbm:
            continue
        for k, (pv, desc) in peaks[c.id].items():
            ridge_list.append((c.id, f"hbm|{k}", pv / hbm[c.id], pv, "HBM", desc))
            for ln, bw in links[c.id].items():
                ridge_list.append((c.id, f"link:{ln}|{k}", pv / bw, pv, ln, desc))
            ys.append(math.log10(pv))
    for _, _, ri, _, _, _ in ridge_list:
        xs.append(math.log10(ri))
    if not xs:
        fit = (-1.0, 4.0, 12.0, 16.0)
    else:
        x0, x1 = nice_range(min(xs), max(xs), pad=0.35, min_span=2.0)
        # lowest y we need: the points, and each slanted roof where it enters the view
        for c in chips:
            if c.id in hbm:
                ys.append(x0 + math.log10(hbm[c.id]))
                for bw in links[c.id].values():
                    ys.append(x0 + math.log10(bw))
        top = max(ys)
        bottom = min(ys)
        # keep the plot about the top ~5 decades: very low slant ends are not interesting
        pts_low = min((p.y for p in points), default=top)
        bottom = max(bottom, min(top - 4.0, pts_low))
        y0, y1 = nice_range(bottom, top, pad=0.2, min_span=1.5)
        y1 = max(y1, top + 0.4)  # headroom for labels above the flat roofs
        fit = (x0, x1, y0, y1)
    xa, xb = fit[0] - span, fit[1] + span

    # Roofs, ridges and regions depend on the chips' peaks, bandwidths, labels and colours
    # and on the roofs' extent only: an edit that moves points (most edits) finds them in
    # the memo, the very same objects, which lets the plot skip them by identity.
    key = (xa, xb, tuple((c.id, labels[c.id], colours[c.id], tuple(peaks[c.id].items()),
                          hbm[c.id], tuple(links[c.id].items())) for c in chips if c.id in hbm))
    hit = _CHIP_MEMO.get(key)
    if hit is None:
        if len(_CHIP_MEMO) >= 32:
            _CHIP_MEMO.clear()
        hit = _CHIP_MEMO[key] = _chip_geometries(key)
    chip_geoms, regions = hit
    return RooflineGeometry(chip_geoms, tuple(points), tuple(op_labels(points)), regions, fit,
                            colours)


#: :func:`_chip_geometries` by its key (a few kept: the plots, an export, ...)
_CHIP_MEMO: dict[tuple, tuple[tuple[ChipGeometry, ...], tuple[Region, ...]]] = {}


def _chip_geometries(key: tuple) -> tuple[tuple[ChipGeometry, ...], tuple[Region, ...]]:
    """Every chip's roofs and ridges, and the regions, from ``(xa, xb, chips)``: the roofs'
    x extent and per chip ``(id, label, colour, peaks, hbm bandwidth, links)``, where peaks
    are ``(roof key, (FLOP/s, description))`` and links ``(name, bytes/s)``."""
    xa, xb, chips = key
    chip_geoms: list[ChipGeometry] = []
    intensities: list[float] = []
    for cid, label, colour, pk, bw, links in chips:
        roofs: list[Roof] = []
        ridges: list[Ridge] = []
        top_peak = max(v for _, (v, _) in pk)
        for k, (pv, desc) in sorted(pk, key=lambda kv: kv[1][0]):
            rx = math.log10(pv / bw)
            roofs.append(Roof(cid, k, "compute", _frozen([min(rx, xb), xb]),
                              _frozen([math.log10(pv)] * 2), pv, None,
                              f"<b>{label}</b><br>compute roof: {format_si(pv, 'FLOP/s')} "
                              f"({desc})", _roof_label(desc, pv)))
        rtop = math.log10(top_peak / bw)
        roofs.append(Roof(cid, "hbm", "hbm", _frozen([xa, max(rtop, xa)]),
                          _frozen([xa + math.log10(bw), max(rtop, xa) + math.log10(bw)]),
                          top_peak, bw,
                          f"<b>{label}</b><br>HBM roof: {format_si(bw, 'B/s')}<br>"
                          f"FLOP/s = intensity × {format_si(bw, 'B/s')}"))
        for ln, lbw in sorted(links):
            lt = math.log10(top_peak / lbw)
            roofs.append(Roof(cid, f"link:{ln}", "link", _frozen([xa, max(lt, xa)]),
                              _frozen([xa + math.log10(lbw), max(lt, xa) + math.log10(lbw)]),
                              top_peak, lbw,
                              f"<b>{label}</b><br>{ln} link roof: {format_si(lbw, 'B/s')} one-way"
                              f"<br>x = FLOPs per link byte"))
        for k, (pv, desc) in pk:
            for rkey, what, ri in [(f"hbm|{k}", "HBM", pv / bw)] + [
                    (f"link:{ln}|{k}", ln, pv / lbw) for ln, lbw in links]:
                intensities.append(ri)
                ridges.append(Ridge(cid, rkey, ri, pv, math.log10(ri), math.log10(pv),
                                    _fmt_intensity(ri),
                                    f"<b>{label}</b><br>ridge ({what} × {desc}): "
                                    f"{_fmt_intensity(ri)} FLOP/byte<br>"
                                    f"peak {format_si(pv, 'FLOP/s')}"))
        chip_geoms.append(ChipGeometry(cid, label, colour, tuple(roofs), tuple(ridges)))
    return tuple(_dedupe_ridge_labels(chip_geoms)), tuple(region_intervals(intensities))


def _frozen(values: list[float]) -> np.ndarray:
    """A read-only array: roof polylines are shared by every geometry using them."""
    a = np.array(values)
    a.flags.writeable = False
    return a


#: points by analysis: the model hands back the same analysis object for an op it did not
#: re-evaluate, so an edit builds only the edited op's points (the others are the same
#: objects as before, which the plot skips by identity).  The least recently used go
#: first once :data:`_POINTS_SIZE` are kept: the memo used to be emptied whole when full,
#: and an edit that filled it lost the other ops' points half-way (they were built anew,
#: and the plot redrew them).
_POINTS: "OrderedDict[tuple[int, int, str], tuple[object, tuple, Point | None]]" = OrderedDict()
_POINTS_SIZE = 1024


def _point(e, colour: int) -> Point | None:
    """An entry's point (None: nothing to draw, as for a zero or infinite figure)."""
    a = e.analysis
    mkey = (id(a), e.op_index, e.phase)
    want = (e.chip_id, e.label, colour)
    hit = _POINTS.get(mkey)
    if hit is not None and hit[0] is a and hit[1] == want:
        _POINTS.move_to_end(mkey)
        return hit[2]
    r = a.result
    x, y = float(r.intensity), float(r.attainable_flops)
    p = None
    if x > 0 and y > 0 and math.isfinite(x) and math.isfinite(y):
        bound = BOUNDS[int(r.bound_code)]
        ni = float(r.net_intensity)
        net_x = math.log10(ni) if float(r.net_bytes) > 0 and 0 < ni < math.inf else None
        p = Point(e.op_index, e.phase, e.chip_id, want[1], math.log10(x), math.log10(y),
                  bound, BOUND_SYMBOLS[bound], colour, point_tooltip(e), net_x)
    _POINTS[mkey] = (a, want, p)  # (holds the analysis: its id stays its own)
    _POINTS.move_to_end(mkey)  # (an entry replaced is one used)
    while len(_POINTS) > _POINTS_SIZE:
        _POINTS.popitem(last=False)
    return p


def _dedupe_ridge_labels(chips: Sequence[ChipGeometry], tol: float = 1e-9) -> list[ChipGeometry]:
    """Mark ridge labels repeating an earlier chip's text at the same x as not shown."""
    seen: list[tuple[str, float]] = []
    out: list[ChipGeometry] = []
    for c in chips:
        ridges = []
        for r in c.ridges:
            if any(t == r.label and abs(x - r.x) <= tol for t, x in seen):
                r = replace(r, label_shown=False)
            else:
                seen.append((r.label, r.x))
            ridges.append(r)
        out.append(replace(c, ridges=tuple(ridges)))
    return out


def op_labels(points: Sequence[Point], min_dx: float = 0.25) -> list[OpLabel]:
    """One label per op (phase), at its highest point; neighbours closer than
    ``min_dx`` decades alternate above/below so their texts do not stack."""
    best: dict[tuple[int, str], Point] = {}
    for p in points:
        k = (p.op_index, p.phase)
        if k not in best or p.y > best[k].y:
            best[k] = p
    ordered = sorted(best.values(), key=lambda p: (p.x, p.op_index))
    out: list[OpLabel] = []
    side = "above"
    last_x = None
    for p in ordered:
        if last_x is not None and p.x - last_x < min_dx:
            side = "below" if side == "above" else "above"
        else:
            side = "above"
        out.append(OpLabel(p.op_index, p.phase, p.op_label, p.x, p.y, side))
        last_x = p.x
    return out


#: point tooltips by analysis: the model hands back the same analysis object for an op it
#: did not re-evaluate, so an edit formats only the edited op's tooltips (a dozen figures each)
_TOOLTIPS: dict[int, tuple[object, str, str]] = {}


def point_tooltip(e) -> str:
    """Rich-text tooltip with the exact figures of an entry."""
    hit = _TOOLTIPS.get(id(e.analysis))
    if hit is not None and hit[0] is e.analysis and hit[1] == e.label:
        return hit[2]
    text = _point_tooltip(e)
    if len(_TOOLTIPS) > 1024:
        _TOOLTIPS.clear()
    _TOOLTIPS[id(e.analysis)] = (e.analysis, e.label, text)  # (holds it: its id stays its own)
    return text


def _point_tooltip(e) -> str:
    r = e.analysis.result
    f = e.analysis.figures
    bound = BOUNDS[int(r.bound_code)]
    rows = [
        f"<b>{e.label}</b> on <b>{f.chip.label()}</b>",
        f"intensity: {_fmt_intensity(float(r.intensity))} FLOP/byte "
        f"(ridge {_fmt_intensity(float(r.critical_intensity))})",
        f"attainable: {format_si(float(r.attainable_flops), 'FLOP/s')} "
        f"of {format_si(float(r.peak_flops), 'FLOP/s')} ({float(r.utilisation):.0%})",
        f"FLOPs: {format_si(float(r.flops), 'FLOP')} · HBM: {format_si(float(r.hbm_bytes), 'B')}",
    ]
    if float(r.net_bytes) > 0:
        rows.append(f"link bytes: {format_si(float(r.net_bytes), 'B')} "
                    f"(intensity {_fmt_intensity(float(r.net_intensity))} FLOP/byte)")
    rows.append(f"T_math {format_time(float(r.t_math))} · T_hbm {format_time(float(r.t_hbm))}"
                + (f" · T_net {format_time(float(r.t_net))}" if float(r.net_bytes) > 0 else ""))
    rows.append(f"T_lower {format_time(float(r.t_lower))} · T_upper {format_time(float(r.t_upper))}")
    rows.append(f"<b>{BOUND_LABELS[bound]}</b>")
    rows.append("<i>click to show this op in the form and results</i>")
    return "<br>".join(rows)
