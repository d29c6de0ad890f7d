"""Where the roofline's annotations go for the view on show: ridge values stacked along
the x axis, op labels beside their points where they cover least, compute-roof
labels just above their roofs, the bands clipped to the view, the legend in its
corner and the band names clear of it.  Run before a paint after the view changes
(:meth:`~roofgui.plotting.plots.RooflinePlot._lay_out`).
"""

from __future__ import annotations

import numpy as np

from roofgui.plotting.placement import GRID_FX, GRID_FY, covered, rect_bounds
from roofgui.plotting.plot_items import label_size, set_anchor, text_px
from roofgui.presentation import plotdata as pd


def lay_out(plot) -> None:
    """Lay out every annotation of a :class:`~roofgui.plotting.plots.RooflinePlot`."""
    g = plot.geometry
    x0, x1, y0, y1 = plot.view_range()
    px_x = max(plot.vb.width(), 1.0) / max(x1 - x0, 1e-9)  # pixels per decade
    px_y = max(plot.vb.height(), 1.0) / max(y1 - y0, 1e-9)
    ridge_labels(plot, y0, px_x)
    points = [(p.x, p.y) for p in g.points] + [(p.net_x, p.y) for p in g.points
                                                if p.net_x is not None]
    psx, psy = plot.to_scene([q[0] for q in points], [q[1] for q in points])
    op_labels(plot, psx, psy, x0, x1, px_x)
    roof_labels(plot, psx, psy, x0, x1, y0, px_x, px_y)
    # bands: clipped to a little beyond the view (a band 1e60 wide is slow to fill)
    for reg in g.regions:
        ext = (max(reg.x0, x0 - 1.0), min(reg.x1, x1 + 1.0))
        if ext[0] >= ext[1]:
            ext = (reg.x0, reg.x0) if reg.x0 > x1 else (reg.x1, reg.x1)
        item = plot.region_items[reg.kind]
        if tuple(item.getRegion()) != ext:
            item.setRegion(ext)
            if "back" in plot.layers:
                plot.layers["back"].invalidate()
    plot.place_legend()
    region_labels(plot, x0, x1, y1, px_x)


def ridge_labels(plot, y0: float, px_x: float) -> None:
    """Ridge intensities along the bottom, stacked where they would overlap."""
    s = plot.style
    char_w = text_px(s, s.annotation_font_pt) * 0.5
    ridges = sorted(((c.chip_id, r) for c in plot.geometry.chips for r in c.ridges
                     if r.label_shown), key=lambda t: t[1].x)
    widths = [(len(r.label) + 1.5) * char_w / px_x for _, r in ridges]
    rows = pd.stack_rows([r.x for _, r in ridges], widths)
    for (cid, r), row in zip(ridges, rows):
        lab = plot.ridge_labels[(cid, r.key)]
        lab.setPos(r.x, y0)
        set_anchor(lab, (0.5, 1.05 + 1.0 * row))


def _inside_view(rects, vr) -> list[int]:
    return [i for i, (left, top, w, h) in enumerate(rects)
            if left >= vr.left() and top >= vr.top() and left + w <= vr.right()
            and top + h <= vr.bottom()]


def op_labels(plot, psx, psy, x0: float, x1: float, px_x: float) -> None:
    """Op labels beside their point: above or below (close neighbours alternate), else
    to its right or left, wherever they cover the fewest points and earlier op labels
    and stay in the view; centred ones slide inwards near the edges."""
    g, s = plot.geometry, plot.style
    vr = plot.vb.sceneBoundingRect()
    n = len(psx)
    placed = np.empty((2, n + GRID_FX.size * len(g.labels)))  # points, then labels placed
    placed[0, :n], placed[1, :n] = psx, psy
    margin = s.marker_size * 0.5
    lxs, lys = plot.to_scene([ol.x for ol in g.labels], [ol.y for ol in g.labels])
    for ol, lx, ly in zip(g.labels, lxs.tolist(), lys.tolist()):
        item = plot.op_labels.get(ol.key)
        if item is None:
            continue
        w_px, h_px = label_size(item)
        w, edge, ax = w_px / px_x, 4.0 / px_x, 0.5
        if w > 0:
            ax = min(max(ax, 1.0 - (x1 - edge - ol.x) / w), (ol.x - x0 - edge) / w)
            ax = min(max(ax, 0.0), 1.0)
        near, far = (1.3, -0.3) if ol.side == "above" else (-0.3, 1.3)
        side = s.marker_size * 0.8 / w_px if w_px > 0 else 0.0
        anchors = [(ax, near), (ax, far), (-side, 0.5), (1.0 + side, 0.5)]
        rects = pd.label_rects(lx, ly, w_px, h_px, anchors)
        ok = _inside_view(rects, vr)
        best = 0
        if ok:  # the fewest points and labels covered, not counting its own point
            xy = placed[:, :n]
            others = ~(np.abs(xy - np.array([[lx], [ly]])) < 0.5).all(axis=0)
            counts = covered(rect_bounds([rects[i] for i in ok], margin),
                             xy[0][others], xy[1][others])
            best = ok[int(np.argmin(counts))]  # (ties: the first)
        set_anchor(item, anchors[best])
        left, top, rw, rh = rects[best]
        k = n + GRID_FX.size
        placed[0, n:k], placed[1, n:k] = left + GRID_FX * rw, top + GRID_FY * rh
        n = k


def roof_labels(plot, psx, psy, x0: float, x1: float, y0: float, px_x: float,
                px_y: float) -> None:
    """Compute-roof labels just above their roofs, spread apart: at the right edge, or
    just after the ridge when an op's point sits where the label would go."""
    s = plot.style
    roofs = [(c.chip_id, r) for c in plot.geometry.chips for r in c.roofs if r.label]
    labs = [plot.roof_labels[(cid, r.key)] for cid, r in roofs]
    sizes = [label_size(lab) for lab in labs]
    line_h = text_px(s, s.annotation_font_pt)
    spread = pd.spread_1d([(r.y[0] - y0) * px_y for _, r in roofs], line_h * 1.02)
    pad = 3 * s.axis_width / px_x
    for lab, (_, r), y_px, (w_px, h_px) in zip(labs, roofs, spread, sizes):
        y = y0 + y_px / px_y
        start = max(r.x[0], x0) + 2 * pad
        right = x1 - pad
        cands = [(right - w_px / px_x, right, (1.0, 1.0)),
                 (start, start + w_px / px_x, (0.0, 1.0))]
        (l0, r0, l1, r1), (t0, _, t1, _) = plot.to_scene(
            [c[i] for c in cands for i in (0, 1)], [y] * 4)
        rects = [(l0, t0 - h_px, r0 - l0, h_px), (l1, t1 - h_px, r1 - l1, h_px)]
        counts = covered(rect_bounds(rects, s.marker_size * 0.6), psx, psy)
        lab.setVisible(bool(right - start > w_px / px_x))
        # the fewest points covered; a tie: the right edge
        a, b, anchor = cands[0 if counts[0] <= counts[1] else 1]
        lab.setPos(b if anchor[0] == 1.0 else a, y)
        set_anchor(lab, anchor)


def region_labels(plot, x0: float, x1: float, y1: float, px_x: float) -> None:
    """Band names along the top, where their band is wide enough, never under the legend."""
    g, s = plot.geometry, plot.style
    char_w = text_px(s, s.annotation_font_pt) * 0.5
    legend_rect = plot.legend.sceneBoundingRect() if plot.legend.isVisible() else None
    for kind, lab in plot.region_labels.items():
        reg = next((r for r in g.regions if r.kind == kind), None)
        name = pd.REGION_SHORT[kind]
        visible = reg is not None and s.show_region_labels
        if visible:
            a, b = max(reg.x0, x0), min(reg.x1, x1)
            visible = b - a > (len(name) * char_w + 16) / px_x
        if visible:
            if lab.toPlainText() != name:
                lab.setText(name)
            if kind == "red":  # hug the edge where bandwidth stops binding
                lab.setPos(b - 6 / px_x, y1)
                set_anchor(lab, (1.0, -0.15))
            elif kind == "green":
                lab.setPos(a + 6 / px_x, y1)
                set_anchor(lab, (0.0, -0.15))
            else:
                lab.setPos((a + b) / 2, y1)
                set_anchor(lab, (0.5, -0.15))
            lab.setVisible(True)
            if legend_rect is not None and lab.sceneBoundingRect().intersects(legend_rect):
                visible = False
        lab.setVisible(visible)
