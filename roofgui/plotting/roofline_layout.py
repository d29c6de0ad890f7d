"""Where the roofline's annotations go for the view on show: ridge values stacked along
the x axis, op labels beside their points where they cover least, compute-roof
labels just above their roofs, the bands clipped to the view, the legend in its
corner and the band names clear of it.  Run before a paint after the view changes
(:meth:`~roofgui.plotting.plots.RooflinePlot._lay_out`).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from roofgui.plotting.declutter import GAP, clear_of, close_gaps, declutter, scene_rects
from roofgui.plotting.placement import (GRID_FX, GRID_FY, label_samples,
                                        sample_polyline)
from roofgui.plotting.plot_items import label_size, set_anchor, text_px
from roofgui.plotting.roof_labels import place_roofs, roof_slots, roofs_clear_of
from roofgui.presentation import plotdata as pd


def lay_out(plot) -> None:
    """Lay out every annotation of a :class:`~roofgui.plotting.plots.RooflinePlot`."""
    g = plot.geometry
    x0, x1, y0, y1 = plot.view_range()
    px_x = max(plot.vb.width(), 1.0) / max(x1 - x0, 1e-9)  # pixels per decade
    px_y = max(plot.vb.height(), 1.0) / max(y1 - y0, 1e-9)
    ridges = ridge_labels(plot, y0, px_x)
    points = [(p.x, p.y) for p in g.points] + [(p.net_x, p.y) for p in g.points
                                                if p.net_x is not None]
    psx, psy = plot.to_scene([q[0] for q in points], [q[1] for q in points])
    slots = roof_slots(plot, x0, x1, y0, px_x, px_y)
    roofs = [sl.lab for sl, ok in zip(slots, place_roofs(plot, slots, psx, psy)) if ok]
    ops = op_labels(plot, psx, psy, x0, x1, px_x,
                    scene_rects(plot, roofs + [lab for lab, _ in ridges]))
    chosen = [lab for k, lab, hides in ops if k[0] == plot.selected_op and not hides]
    others = [lab for k, lab, hides in ops if k[0] != plot.selected_op and not hides]
    roofs = roofs_clear_of(plot, slots, roofs, chosen, (psx, psy))
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
    regions = region_labels(plot, x0, x1, y1, px_x)
    ridges = clear_of(plot, ridges, psx, psy, plot.style.marker_size * 0.5)  # (not over points)
    shown = declutter(plot, chosen + roofs + [lab for lab, _ in ridges] + others + regions)
    close_gaps(ridges, shown)


def obstacles(plot) -> tuple[np.ndarray, np.ndarray]:
    """What the legend should not cover: the roofs sampled along their length, the
    points and their twins, and the op and roof labels (scene coordinates)."""
    g = plot.geometry
    if g is None:
        return np.empty(0), np.empty(0)
    sx, sy = plot.to_scene([p.x for p in g.points] + [p.net_x for p in g.points if p.net_x],
                           [p.y for p in g.points] + [p.y for p in g.points if p.net_x])
    rx, ry = roof_samples(plot, g)
    tx, ty = label_samples(list(plot.op_labels.values()) + list(plot.roof_labels.values()))
    return np.concatenate([sx, rx] + tx), np.concatenate([sy, ry] + ty)


def roof_samples(plot, g) -> tuple[np.ndarray, np.ndarray]:
    """The roofs sampled along their length, in scene coordinates: kept while the
    chips' geometry (the same objects while only points move) and the view stay."""
    view = (g.chips, *plot.view_range(), plot.vb.sceneBoundingRect().getRect())
    kept = plot.roof_kept
    if kept is not None and kept[0][0] is view[0] and kept[0][1:] == view[1:]:
        return kept[1]
    x0, x1 = view[1], view[2]
    parts = [sample_polyline(r.x, r.y, x0, x1) for c in g.chips for r in c.roofs]
    xy = plot.to_scene(np.concatenate([np.empty(0)] + [p[0] for p in parts]),
                       np.concatenate([np.empty(0)] + [p[1] for p in parts]))
    plot.roof_kept = (view, xy)
    return xy


def ridge_labels(plot, y0: float, px_x: float) -> list:
    """Ridge intensities along the bottom, stacked where they would overlap (the labels
    to show, ``(label, row)`` each)."""
    s = plot.style
    char_w = text_px(s, s.annotation_font_pt) * 0.5
    ridges = sorted(((c.chip_id, r) for c in plot.geometry.chips for r in c.ridges
                     if r.label_shown), key=lambda t: t[1].x)
    widths = [(len(r.label) + 1.5) * char_w / px_x for _, r in ridges]
    rows = pd.stack_rows([r.x for _, r in ridges], widths)
    out = []
    for (cid, r), row in zip(ridges, rows):
        lab = plot.ridge_labels[(cid, r.key)]
        lab.setPos(r.x, y0)
        set_anchor(lab, (0.5, 1.05 + 1.0 * row))
        out.append((lab, row))
    return out


def op_labels(plot, psx, psy, x0: float, x1: float, px_x: float, avoid: np.ndarray) -> list:
    """Op labels beside their point: above or below (close neighbours alternate), else
    to its right or left, else a line further out, wherever they cover the fewest points
    (kept :data:`GAP` pixels clear of their markers), earlier op labels (those that
    show: a label hiding a point does not) and the labels ``avoid`` (scene rectangles)
    and stay in the view; centred ones slide inwards near the edges; the selected op's
    first.  Returns ``(key, label, whether it hides a point)`` of each."""
    g = plot.geometry
    labels = [ol for ol in sorted(g.labels, key=lambda ol: ol.op_index != plot.selected_op)
              if ol.key in plot.op_labels]  # (the selected op's first: its pick)
    if not labels:
        return []
    items = [plot.op_labels[ol.key] for ol in labels]
    sp = Spots.of(plot, labels, items, psx, psy, x0, x1, px_x, avoid)
    reach = np.stack([sp.edges[0].min(axis=1), sp.edges[1].max(axis=1),
                      sp.edges[2].min(axis=1), sp.edges[3].max(axis=1)], axis=1).tolist()
    ok, points, base = sp.ok.tolist(), sp.points.tolist(), sp.base.tolist()
    shown: list[tuple] = []  # (left, right, top, bottom, sample xs, sample ys) each
    out = []
    for i, (ol, item) in enumerate(zip(labels, items)):
        spots = [a for a, on in enumerate(ok[i]) if on]
        best, hides = (spots[0] if spots else 0), True
        if any(points[i][a] == 0 for a in spots):  # (else it hides a point wherever it goes)
            near = [sh for sh in shown if sh[0] <= reach[i][1] and sh[1] >= reach[i][0]
                    and sh[2] <= reach[i][3] and sh[3] >= reach[i][2]]
            hit = sp.label_hits(i, near) if near else [0] * len(ok[i])
            best = min(spots, key=lambda a: base[i][a] + hit[a] * 1000)  # (ties: the first)
            hides = points[i][best] > 0
        set_anchor(item, sp.anchors[i, best])
        if not hides:  # (a label hiding a point is not shown: later ones need not avoid it)
            lt, tp, w, h = float(sp.left[i, best]), float(sp.top[i, best]), *sp.wh[i].tolist()
            shown.append((lt, lt + w, tp, tp + h, lt + GRID_FX * w, tp + GRID_FY * h))
        out.append((ol.key, item, hides))
    return out


class Spots(NamedTuple):
    """Every op label's six spots (``(labels, 6)`` arrays), what each spot covers, counted
    for all labels at once: ``points`` (not its own), ``base`` (points × 1000 + the
    labels to avoid), and each label's pin ``lx, ly`` (scene)."""

    anchors: np.ndarray
    left: np.ndarray
    top: np.ndarray
    wh: np.ndarray
    ok: np.ndarray  # (whole inside the view)
    edges: tuple  # (left, right, top, bottom, grown by a marker's radius and the gap)
    points: np.ndarray
    base: np.ndarray
    lx: np.ndarray
    ly: np.ndarray

    @classmethod
    def of(cls, plot, labels, items, psx, psy, x0, x1, px_x, avoid) -> "Spots":
        """The spots of ``labels`` (their ``items``) among the scene points ``psx, psy``
        and the rectangles ``avoid``, for the view ``x0..x1`` at ``px_x`` pixels a decade."""
        wh = np.array([label_size(it) for it in items], dtype=np.float64)
        lx, ly = plot.to_scene([ol.x for ol in labels], [ol.y for ol in labels])
        anchors = op_anchors(labels, wh[:, 0], px_x, x0, x1, plot.style.marker_size)
        left = lx[:, None] - anchors[..., 0] * wh[:, :1]
        top = ly[:, None] - anchors[..., 1] * wh[:, 1:]
        right, bottom = left + wh[:, :1], top + wh[:, 1:]
        vr = plot.vb.sceneBoundingRect()
        ok = ((left >= vr.left()) & (top >= vr.top()) & (right <= vr.right())
              & (bottom <= vr.bottom()))
        m = plot.style.marker_size * 0.5 + GAP  # (the marker's radius, then the gap)
        edges = (left - m, right + m, top - m, bottom + m)
        own = (np.abs(psx[None, :] - lx[:, None]) < 0.5) & (np.abs(psy[None, :] - ly[:, None]) < 0.5)
        points = (_inside(edges, psx, psy) & ~own[:, None, :]).sum(axis=2)
        aw, ah = avoid[:, 2:3] - avoid[:, 0:1], avoid[:, 3:4] - avoid[:, 1:2]
        ax_, ay_ = (avoid[:, 0:1] + GRID_FX * aw).ravel(), (avoid[:, 1:2] + GRID_FY * ah).ravel()
        base = points * 1000 + _inside(edges, ax_, ay_).sum(axis=2)
        return cls(anchors, left, top, wh, ok, edges, points, base, lx, ly)

    def label_hits(self, i: int, shown: list) -> list[int]:
        """How many samples of the ``shown`` labels each of label ``i``'s spots covers
        (not those at its own pin)."""
        sx = np.concatenate([sh[4] for sh in shown])
        sy = np.concatenate([sh[5] for sh in shown])
        mine = (np.abs(sx - self.lx[i]) < 0.5) & (np.abs(sy - self.ly[i]) < 0.5)
        return _inside(tuple(e[i] for e in self.edges), sx[~mine], sy[~mine]).sum(axis=1).tolist()


def _inside(edges, xs, ys) -> np.ndarray:
    """Whether each point ``xs, ys`` lies in each rectangle of ``edges`` (left, right,
    top, bottom arrays of any shape): that shape plus one axis for the points."""
    lo_x, hi_x, lo_y, hi_y = (e[..., None] for e in edges)
    return (xs >= lo_x) & (xs <= hi_x) & (ys >= lo_y) & (ys <= hi_y)


def op_anchors(labels, w_px: np.ndarray, px_x: float, x0: float, x1: float,
               marker: float) -> np.ndarray:
    """Where each op's label may go (``(labels, 6, 2)`` anchors): centred above or below
    its point (slid inwards near the view's edges), or to its right or left, or a line
    further above or below."""
    x = np.array([ol.x for ol in labels], dtype=np.float64)
    above = np.array([ol.side == "above" for ol in labels])
    w, edge = w_px / px_x, 4.0 / px_x
    with np.errstate(divide="ignore", invalid="ignore"):
        slid = np.minimum(np.maximum(0.5, 1.0 - (x1 - edge - x) / w), (x - x0 - edge) / w)
        side = np.where(w_px > 0, marker * 0.8 / w_px, 0.0)
    ax = np.where(w > 0, np.clip(slid, 0.0, 1.0), 0.5)
    near, far = np.where(above, 1.3, -0.3), np.where(above, -0.3, 1.3)
    up = np.where(above, 1.0, -1.0)  # (then a line further out: over a crowd)
    ones = np.ones_like(ax)
    return np.stack([np.stack(pair, axis=1) for pair in (
        (ax, near), (ax, far), (-side, 0.5 * ones), (1.0 + side, 0.5 * ones),
        (ax, near + up), (ax, far - up))], axis=1)


def region_labels(plot, x0: float, x1: float, y1: float, px_x: float) -> list:
    """Band names along the top, where their band is wide enough, never under the legend
    (the labels to show)."""
    g, s = plot.geometry, plot.style
    char_w = text_px(s, s.annotation_font_pt) * 0.5
    out = []
    for kind, lab in plot.region_labels.items():
        reg = next((r for r in g.regions if r.kind == kind), None)
        name = pd.REGION_SHORT[kind]
        if reg is None or not s.show_region_labels:
            continue
        a, b = max(reg.x0, x0), min(reg.x1, x1)
        if b - a <= (len(name) * char_w + 16) / px_x:
            continue
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
        out.append(lab)
    if plot.legend.isVisible() and plot.legend.parentItem() is plot.vb and out:
        lr = plot.legend.sceneBoundingRect()
        r = scene_rects(plot, out)
        out = [lab for lab, (left, top, right, bottom) in zip(out, r.tolist())
               if right < lr.left() or left > lr.right() or bottom < lr.top() or top > lr.bottom()]
    return out
