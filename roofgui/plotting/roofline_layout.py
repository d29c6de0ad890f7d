"""Where the roofline's annotations go for the view on show: ridge values stacked along
the x axis, op labels beside their points where they cover least, compute-roof
labels just above their roofs, the bands clipped to the view, the legend in its
corner and the band names clear of it.  Run before a paint after the view changes
(:meth:`~roofgui.plotting.plots.RooflinePlot._lay_out`).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from roofgui.plotting.declutter import (GAP, clear_of, close_gaps, declutter, free_left,
                                        scene_rects)
from roofgui.plotting.placement import (GRID_FX, GRID_FY, covered, label_samples, rect_bounds,
                                        sample_polyline)
from roofgui.plotting.plot_items import label_size, set_anchor, text_px
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
    roofs = [sl.lab for sl in slots if place_roof(plot, sl, psx, psy)]
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


def roofs_clear_of(plot, slots: list, roofs: list, chosen: list, points) -> list:
    """The roof labels ``roofs`` (placed from ``slots``), those that would sit on the
    selected op's labels ``chosen`` placed again clear of them as of points (the selected
    op's label is shown first: the roof label would be hidden rather than moved)."""
    if not chosen or not roofs:
        return roofs
    c, r = scene_rects(plot, chosen), scene_rects(plot, roofs)
    hit = ((r[:, None, 0] < c[None, :, 2] + GAP) & (r[:, None, 2] + GAP > c[None, :, 0])
           & (r[:, None, 1] < c[None, :, 3] + GAP) & (r[:, None, 3] + GAP > c[None, :, 1]))
    if not hit.any():
        return roofs
    psx, psy = points
    w, h = c[:, 2:3] - c[:, 0:1], c[:, 3:4] - c[:, 1:2]
    sx, sy = (c[:, 0:1] + GRID_FX * w).ravel(), (c[:, 1:2] + GRID_FY * h).ravel()
    xs, ys = np.concatenate([psx, sx]), np.concatenate([psy, sy])
    margins = np.concatenate([np.full(len(psx), plot.style.marker_size * 0.5 + GAP),
                              np.full(len(sx), GAP)])  # (a marker's radius; text: the gap)
    again = {id(lab) for lab, on in zip(roofs, hit.any(axis=1).tolist()) if on}
    shown = {id(lab) for lab in roofs}
    return [sl.lab for sl in slots if id(sl.lab) in shown and (
        id(sl.lab) not in again or place_roof(plot, sl, xs, ys, margins))]


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


def _inside_view(rects, vr) -> list[int]:
    return [i for i, (left, top, w, h) in enumerate(rects)
            if left >= vr.left() and top >= vr.top() and left + w <= vr.right()
            and top + h <= vr.bottom()]


def op_labels(plot, psx, psy, x0: float, x1: float, px_x: float, avoid: np.ndarray) -> list:
    """Op labels beside their point: above or below (close neighbours alternate), else
    to its right or left, else a line further out, wherever they cover the fewest points
    (kept :data:`GAP` pixels clear of their markers), earlier op labels and
    the labels ``avoid`` (scene rectangles) and stay in the view; centred ones slide
    inwards near the edges; the selected op's first.  Returns ``(key, label, whether it
    hides a point)`` of each."""
    g, s = plot.geometry, plot.style
    vr = plot.vb.sceneBoundingRect()
    n = len(psx)
    aw, ah = avoid[:, 2:3] - avoid[:, 0:1], avoid[:, 3:4] - avoid[:, 1:2]
    ax_, ay_ = (avoid[:, 0:1] + GRID_FX * aw).ravel(), (avoid[:, 1:2] + GRID_FY * ah).ravel()
    placed = np.empty((2, n + GRID_FX.size * len(g.labels)))  # points, then labels placed
    placed[0, :n], placed[1, :n] = psx, psy
    margin = s.marker_size * 0.5 + GAP  # (the marker's radius, then the gap)
    labels = sorted(g.labels, key=lambda ol: ol.op_index != plot.selected_op)  # (its pick)
    lxs, lys = plot.to_scene([ol.x for ol in labels], [ol.y for ol in labels])
    out = []
    for ol, lx, ly in zip(labels, lxs.tolist(), lys.tolist()):
        item = plot.op_labels.get(ol.key)
        if item is None:
            continue
        w_px, h_px = label_size(item)
        anchors = op_anchors(ol, w_px, px_x, x0, x1, s.marker_size)
        rects = pd.label_rects(lx, ly, w_px, h_px, anchors)
        ok = _inside_view(rects, vr)
        best, hides = 0, True
        if ok:  # the fewest points and labels covered, not counting its own point
            xy = placed[:, :n]
            others = ~(np.abs(xy - np.array([[lx], [ly]])) < 0.5).all(axis=0)
            bounds = rect_bounds([rects[i] for i in ok], margin)
            counts = covered(bounds, xy[0][others], xy[1][others]) * 1000 \
                + covered(bounds, ax_, ay_)  # (then: the fewest other labels covered)
            best = ok[int(np.argmin(counts))]  # (ties: the first)
            on = others[:len(psx)]  # (the points alone, not the labels placed)
            hides = bool(covered(rect_bounds([rects[best]], margin), psx[on], psy[on])[0])
        set_anchor(item, anchors[best])
        left, top, rw, rh = rects[best]
        k = n + GRID_FX.size
        placed[0, n:k], placed[1, n:k] = left + GRID_FX * rw, top + GRID_FY * rh
        n = k
        out.append((ol.key, item, hides))
    return out


def op_anchors(ol, w_px: float, px_x: float, x0: float, x1: float, marker: float) -> list:
    """Where an op's label may go: centred above or below its point (slid inwards near
    the view's edges), or to its right or left, or a line further above or below."""
    w, edge, ax = w_px / px_x, 4.0 / px_x, 0.5
    if w > 0:
        ax = min(max(ax, 1.0 - (x1 - edge - ol.x) / w), (ol.x - x0 - edge) / w)
        ax = min(max(ax, 0.0), 1.0)
    near, far = (1.3, -0.3) if ol.side == "above" else (-0.3, 1.3)
    side = marker * 0.8 / w_px if w_px > 0 else 0.0
    up = 1.0 if ol.side == "above" else -1.0  # (then a line further out: over a crowd)
    return [(ax, near), (ax, far), (-side, 0.5), (1.0 + side, 0.5), (ax, near + up),
            (ax, far - up)]


class RoofSlot(NamedTuple):
    """Where a compute roof's label goes: its text at ``y`` (data), from ``start`` to
    ``right`` (data x; ``sl``, ``sr``, ``sy`` in the scene), ``off`` pixels from its roof
    once spread apart from the others, ``most`` pixels at the most."""

    lab: object
    text: str
    y: float
    start: float
    right: float
    sl: float
    sr: float
    sy: float
    off: float
    most: float
    px_y: float


def roof_slots(plot, x0: float, x1: float, y0: float, px_x: float, px_y: float) -> list:
    """The compute roofs' labels' slots: just above their roofs, spread apart, from the
    ridge (or the view's left) to the view's right edge."""
    s = plot.style
    roofs = [(c.chip_id, r) for c in plot.geometry.chips for r in c.roofs if r.label]
    if not roofs:
        return []
    line_h = text_px(s, s.annotation_font_pt)
    at = [(r.y[0] - y0) * px_y for _, r in roofs]
    # apart by the labels' boxes and the gap declutter keeps between them (else two roofs
    # a line apart keep one label), unless that lifts a label too far from its roof
    box_h = max(label_size(plot.roof_labels[(cid, r.key)])[1] for cid, r in roofs)
    spread = pd.spread_1d(at, max(line_h * 1.02, box_h + GAP))
    if max(abs(a - b) for a, b in zip(spread, at)) > 2 * line_h:
        spread = pd.spread_1d(at, line_h * 1.02)
    pad = 3 * s.axis_width / px_x
    starts = [max(r.x[0], x0) + 2 * pad for _, r in roofs]
    ys = [y0 + y_px / px_y for y_px in spread]
    n = len(roofs)
    sx, sy = plot.to_scene(starts + [x1 - pad] * n, ys + ys)
    return [RoofSlot(plot.roof_labels[(cid, r.key)], r.label, ys[i], starts[i], x1 - pad,
                     float(sx[i]), float(sx[n + i]), float(sy[i]), spread[i] - at[i],
                     2 * line_h, px_y) for i, (cid, r) in enumerate(roofs)]


def place_roof(plot, slot: RoofSlot, psx, psy, margins=None) -> bool:
    """Put a roof label where :func:`roof_spot` finds it room clear of the scene points
    ``psx, psy`` (by ``margins`` pixels each, or a marker's radius and the gap); True when
    it may show (room, and no further than :attr:`RoofSlot.most` from its roof)."""
    lab = slot.lab
    left, lift = roof_spot(plot, lab, slot.text, (slot.sl, slot.sr, slot.sy), psx, psy,
                           margins)
    y = slot.y + lift / slot.px_y
    if left is None or left >= slot.sr - label_size(lab)[0] - 0.01:
        lab.setPos(slot.right, y)
        set_anchor(lab, (1.0, 1.0))
    else:
        lab.setPos(slot.start + (left - slot.sl) * (slot.right - slot.start)
                   / max(slot.sr - slot.sl, 1e-9), y)
        set_anchor(lab, (0.0, 1.0))
    return left is not None and abs(slot.off + lift) <= slot.most


def roof_spot(plot, lab, text: str, span, psx, psy,
              margins=None) -> tuple[float | None, float]:
    """Where a roof label may start (scene x) between ``span``'s left and right at its
    height, and how many pixels it is lifted: on its roof at the right edge, else just
    after the ridge, else beside the points furthest right, keeping :data:`GAP` pixels
    from every point's marker; else lifted clear of the points on its roof; else as two
    lines (the chips a coincident roof names on the second), else without those chips
    (the hover names them).  None: nowhere."""
    sl, sr, sy = span
    margin = plot.style.marker_size * 0.5 + GAP  # (a marker's radius, then the gap)
    clear = margin if margins is None else margins
    texts = [text] + ([text.replace(" · ", "\n", 1), text.split(" · ")[0]]
                      if " · " in text else [])
    found, shown = (None, 0.0), text
    for t in texts:
        w_px, h_px = text_size(lab, t)
        for lift in (0.0, margin):
            left = free_left([sr - w_px, sl], sl, sr, w_px, psx, psy, sy - lift - h_px,
                             sy - lift, clear)
            if left is not None:
                found, shown = (left, lift), t
                break
        if found[0] is not None:
            break
    if lab.toPlainText() != shown:
        lab.setText(shown)
    return found


#: text sizes measured, by (text, font): a label is not set to each text it might show
#: at every layout just to measure it
SIZES: dict[tuple[str, str], tuple[float, float]] = {}


def text_size(lab, text: str) -> tuple[float, float]:
    """The size in pixels ``lab`` would have showing ``text`` (measured once per font)."""
    if lab.toPlainText() == text:
        return label_size(lab)
    key = (text, lab.textItem.font().key())
    size = SIZES.get(key)
    if size is None:
        if len(SIZES) > 1000:
            SIZES.clear()
        lab.setText(text)  # (roof_spot sets the text it chooses afterwards)
        size = SIZES[key] = label_size(lab)
    return size


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
