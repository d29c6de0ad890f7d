"""Where a plot's legend goes: in the style's corner, or ("auto") in the corner of the
axes that covers nothing, else outside the axes — to their right when a narrow column
of entries fits there, else below them in as many columns as fit.  Outside, the legend
is a child of the PlotItem in room its layout keeps free (so exports, which paint the
PlotItem, draw it there too).
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from roofgui.plotting.placement import covered, rect_bounds
from roofgui.plotting.plot_items import LEGEND_CORNERS


def corner_rects(plot, corners) -> tuple[list, list, list]:
    """Each corner's legend rectangle (scene), its lift above the x-axis labels, and
    whether the legend (in one column) fits there."""
    s = plot.style
    off = s.legend_padding + 2
    vr = plot.vb.sceneBoundingRect()
    w, h = one_column_size(plot)
    room = max(vr.height() - 2 * off - h, 0.0)  # the most a bottom corner can lift it
    below = [lab.sceneBoundingRect() for lab in plot.bottom_labels() if lab.isVisible()]
    rects, lifts, fits = [], [], []
    for c in corners:
        left = vr.left() + off if "left" in c else vr.right() - off - w
        lift = bottom_clearance(plot, below, left, left + w) if "bottom" in c else 0.0
        fits.append(lift <= room and w + 2 * off <= vr.width() and h + 2 * off <= vr.height())
        lift = min(lift, room)
        top = vr.top() + off if "top" in c else vr.bottom() - off - h - lift
        rects.append((left, top, w, h))
        lifts.append(lift)
    return rects, lifts, fits


def bottom_clearance(plot, below: list, left: float, right: float) -> float:
    """Whole pixels to lift a bottom-corner legend clear of the x-axis labels ``below``
    it (their scene rectangles)."""
    bottom = plot.vb.sceneBoundingRect().bottom()
    lift = 0.0
    for r in below:
        if r.right() >= left and r.left() <= right:
            lift = max(lift, bottom - r.top() - plot.style.legend_padding + 2)
    return float(np.ceil(lift))


class Entries(NamedTuple):
    """The legend's entries measured once: each sample's and text's width (the text's
    least), and the tallest row."""

    samples: list[float]
    texts: list[float]
    row_h: float

    @classmethod
    def of(cls, lg) -> "Entries":
        samples = [sample.width() for sample, _ in lg.items]
        texts = [label.minimumWidth() for _, label in lg.items]
        row_h = max((max(sample.height(), label.height()) for sample, label in lg.items),
                    default=0.0)
        return cls(samples, texts, row_h)

    def columns_width(self, cols: int, pad: float) -> float:
        """The legend's width in ``cols`` columns filled row by row (as pyqtgraph fills
        them), each column as wide as its widest sample and text, with the margins and
        spacing :class:`~roofgui.plotting.plot_base.PlotBase` gives the legend."""
        samples = [max(self.samples[c::cols], default=0.0) for c in range(cols)]
        texts = [max(self.texts[c::cols], default=0.0) for c in range(cols)]
        return sum(samples) + sum(texts) + (2 * cols - 1) * 0.5 * pad + 2.2 * pad + 2.0


def measured(plot) -> Entries:
    """The plot's legend entries measured (once for the entries it holds: the plot
    forgets the measure, :attr:`legend_measure`, when it sets them)."""
    if plot.legend_measure is None:
        plot.legend_measure = Entries.of(plot.legend)
    return plot.legend_measure


def one_column_size(plot) -> tuple[float, float]:
    """The legend's size in one column (its own when it is in one)."""
    lg = plot.legend
    if lg.columnCount == 1:
        return lg.width(), lg.height()
    e = measured(plot)
    return (max((a + b + 6.0 for a, b in zip(e.samples, e.texts)), default=0.0),
            e.row_h * len(e.samples))


def place_legend(plot) -> None:
    """The legend in the style's corner, or ("auto") in the corner covering least if it
    covers nothing there, else outside the axes."""
    lg = plot.legend
    if not lg.isVisible():
        set_outside(plot, None)
        return
    pref = plot.style.legend_position
    corners = [pref] if pref in LEGEND_CORNERS else list(LEGEND_CORNERS)
    rects, lifts, fits = corner_rects(plot, corners)
    best = 0
    if len(corners) > 1 and plot.vb.sceneBoundingRect().width() > 0:
        # (back inside only with room to spare: a point moving to and fro as the user
        # types must not move the legend, and the axes' size, in and out each time)
        out = plot.steady_legend and plot.legend_corner in ("right", "below")
        counts = covered(rect_bounds(rects, 4 + 20 * out), *plot.obstacles())
        counts[~np.array(fits)] += 1 << 40  # (a corner the legend does not fit: last)
        best = int(np.argmin(counts))  # (ties: the first)
        if counts[best] > 0 and lg.items:
            set_outside(plot, outside_place(plot))
            return
        cur = corners.index(plot.legend_corner) if plot.legend_corner in corners else best
        if plot.steady_legend and best != cur and fits[cur] and counts[best] > 0 \
                and counts[cur] - counts[best] <= 0.2 * counts[cur]:
            best = cur  # (it moves only to a corner covering nothing or a fifth less)
    set_outside(plot, None)
    corner = corners[best]
    plot.legend_corner = corner
    off = plot.style.legend_padding + 2
    offset = (off if "left" in corner else -off,
              off if "top" in corner else -(off + lifts[best]))
    if lg.opts.get("offset") != offset:
        lg.setOffset(offset)


def outside_place(plot) -> tuple[str, int, float, float]:
    """``(side, columns, width, height)`` of the legend outside the axes: to their right
    (in one or two columns, as tall as the plot at most) or below them (in as many
    columns as fit, each as wide as its widest entry), whichever leaves the axes the
    larger area."""
    lg, pad = plot.legend, plot.style.legend_padding
    pr = plot.getPlotItem().boundingRect()
    extra_r, extra_b = plot.legend_room
    vb_w = plot.vb.width() + extra_r  # (the axes' size with no legend beside them)
    vb_h = plot.vb.height() + extra_b
    e = measured(plot)
    n = len(e.samples)
    cands = []
    for cols in (1, 2):
        h = math.ceil(n / cols) * e.row_h
        w = e.columns_width(cols, pad)
        if h + pad + 2.0 <= pr.height() and w + 2 * pad <= 0.5 * vb_w:  # (the axes keep half their width)
            cands.append(((vb_w - w - 2 * pad) * vb_h, ("right", cols, w, h)))
    cols = 1
    while cols < n and e.columns_width(cols + 1, pad) <= pr.width() - 2 * pad:
        cols += 1
    h = math.ceil(n / cols) * e.row_h
    cands.append((vb_w * (vb_h - h - pad), ("below", cols, e.columns_width(cols, pad), h)))
    return max(cands, key=lambda c: c[0])[1]


def set_outside(plot, place: tuple[str, int, float, float] | None) -> None:
    """Put the legend outside the axes (``place``: see :func:`outside_place`) or back
    inside them (None), keeping room for it in the PlotItem's layout."""
    lg, pi, pad = plot.legend, plot.getPlotItem(), plot.style.legend_padding
    side = None if place is None else place[0]
    if place is None:
        room = (0.0, 0.0)
        if lg.parentItem() is not plot.vb:
            lg.setParentItem(plot.vb)
    else:
        if lg.columnCount != place[1]:
            set_columns(lg, place[1])
        w, h = max(place[2], lg.width()), max(place[3], lg.height())
        room = (math.ceil(w + 2 * pad), 0.0) if side == "right" else (0.0, math.ceil(h + pad))
        if lg.parentItem() is not pi:
            lg.setParentItem(pi)
    if place is None and lg.columnCount != 1:
        set_columns(lg, 1)
    plot.legend_corner = side or plot.legend_corner
    if room != plot.legend_room:
        lay = pi.layout
        ml, mt, mr, mb = lay.getContentsMargins()
        old_r, old_b = plot.legend_room
        lay.setContentsMargins(ml, mt, mr - old_r + room[0], mb - old_b + room[1])
        plot.legend_room = room
        lay.activate()  # (the axes take their new size now, so the layout sees it)
    if side == "right":
        top = plot.vb.mapRectToItem(pi, plot.vb.boundingRect()).top()
        top = max(0.0, min(top, pi.boundingRect().height() - pad - lg.height()))
        lg.anchor(itemPos=(1, 0), parentPos=(1, 0), offset=(-pad, top))
    elif side == "below":
        lg.anchor(itemPos=(0.5, 1), parentPos=(0.5, 1), offset=(0, -pad * 0.5))


def set_columns(lg, cols: int) -> None:
    """The legend in ``cols`` columns, each as wide as its widest entry (pyqtgraph sizes
    the legend from its entries' current widths, which the last layout stretched)."""
    for _, label in lg.items:
        label.resize(label.preferredWidth(), label.height())
    lg.setColumnCount(cols)
