"""Where the compute roofs' labels go: just above their roofs (spread apart so none sit
on another), at the view's right edge, else just after the ridge, else beside the points
furthest right, keeping clear of every point's marker; else lifted a little; else on two
lines or shortened.  Every label's every choice is tried against the points at once.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from roofgui.plotting.declutter import GAP, scene_rects
from roofgui.plotting.placement import GRID_FX, GRID_FY
from roofgui.plotting.plot_items import label_size, set_anchor, text_px
from roofgui.presentation import plotdata as pd


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


def place_roofs(plot, slots: list, psx, psy, margins=None) -> list[bool]:
    """Put each slot's label where :func:`roof_spots` finds it room clear of the scene
    points ``psx, psy`` (by ``margins`` pixels each, or a marker's radius and the gap);
    whether each may show (room, and no further than :attr:`RoofSlot.most` from its roof).
    A label the spreading took too far from its roof, lifted or not, is left as it is."""
    lifts = (0.0, lift_px(plot))
    near = [sl for sl in slots if min(abs(sl.off + lift) for lift in lifts) <= sl.most]
    shown = {id(sl) for sl, ok in zip(near, _place(plot, near, psx, psy, margins)) if ok}
    return [id(sl) in shown for sl in slots]


def lift_px(plot) -> float:
    """How far a roof label is lifted off the points on its roof: a marker's radius and
    the gap (as far as every label keeps from a marker)."""
    return plot.style.marker_size * 0.5 + GAP


def _place(plot, slots: list, psx, psy, margins) -> list[bool]:
    """Each slot's label pinned at its spot (right-aligned at the view's edge, else
    left-aligned where it starts); whether it may show."""
    out = []
    for slot, (left, lift) in zip(slots, roof_spots(plot, slots, psx, psy, margins)):
        lab = slot.lab
        y = slot.y + lift / slot.px_y
        if left is None or left >= slot.sr - label_size(lab)[0] - 0.01:
            lab.setPos(slot.right, y)
            set_anchor(lab, (1.0, 1.0))
        else:
            lab.setPos(slot.start + (left - slot.sl) * (slot.right - slot.start)
                       / max(slot.sr - slot.sl, 1e-9), y)
            set_anchor(lab, (0.0, 1.0))
        out.append(left is not None and abs(slot.off + lift) <= slot.most)
    return out


def roof_spots(plot, slots: list, psx, psy, margins=None) -> list[tuple[float | None, float]]:
    """Where each slot's label may start (scene x) between its left and right at its
    height, and how many pixels it is lifted: the first of its text, then (a coincident
    roof's) on two lines with the chips on the second, then without those chips (the
    hover names them), each on its roof then lifted by a marker's radius and the gap,
    that :func:`free_starts` finds room for.  Each label is set to the text chosen.
    ``(None, 0.0)``: nowhere."""
    margin = lift_px(plot)
    tries = []  # (slot, text, width, height, lift), in the order of preference
    for i, sl in enumerate(slots):
        texts = [sl.text] + ([sl.text.replace(" · ", "\n", 1), sl.text.split(" · ")[0]]
                             if " · " in sl.text else [])
        for t in texts:
            w_px, h_px = text_size(sl.lab, t)
            tries += [(i, t, w_px, h_px, lift) for lift in (0.0, margin)]
    if not tries:
        return []
    i, w, h, lift = (np.array(v, dtype=np.float64) for v in zip(*(
        (t[0], t[2], t[3], t[4]) for t in tries)))
    i = i.astype(int)
    lo = np.array([sl.sl for sl in slots])[i]
    hi = np.array([sl.sr for sl in slots])[i]
    bottom = np.array([sl.sy for sl in slots])[i] - lift
    left = free_starts(lo, hi, w, bottom - h, bottom, np.asarray(psx, dtype=np.float64),
                       np.asarray(psy, dtype=np.float64),
                       margin if margins is None else margins)
    found: list[tuple[float | None, float]] = [(None, 0.0)] * len(slots)
    shown = [sl.text for sl in slots]
    for k in reversed(np.flatnonzero(~np.isnan(left)).tolist()):  # (the first wins)
        found[tries[k][0]] = (float(left[k]), tries[k][4])
        shown[tries[k][0]] = tries[k][1]
    for sl, t in zip(slots, shown):
        if sl.lab.toPlainText() != t:
            sl.lab.setText(t)
    return found


def free_starts(lo, hi, w, top, bottom, xs, ys, margin) -> np.ndarray:
    """Where each of several labels (arrays: ``w`` pixels wide, between the scene rows
    ``top`` and ``bottom``) may start within ``[lo, hi - w]`` keeping ``margin`` pixels
    (one for all, or one per point) from every scene point ``xs, ys``: at ``hi - w`` if
    free, else at ``lo``, else the free start furthest right (just before a point's
    span); NaN where there is none.  A point bars the starts in ``(x - margin - w, x +
    margin)``; the free starts are the gaps between those spans merged in order."""
    m = np.broadcast_to(np.asarray(margin, dtype=np.float64), xs.shape)
    near = (ys >= top[:, None] - m) & (ys <= bottom[:, None] + m)
    a = np.where(near, xs - m - w[:, None], -np.inf)  # (far points: an empty span)
    b = np.where(near, xs + m, -np.inf)
    lo_, hi_ = lo - 0.01, hi - w + 0.01  # (the starts that keep the label in its span)

    def free(c: np.ndarray) -> np.ndarray:
        return (c >= lo_) & (c <= hi_) & ~((a < c[:, None]) & (b > c[:, None])).any(axis=1)

    # the gaps between the spans run from the furthest end of the spans before to the
    # next span's start: that start (when in range) is a gap's furthest right free start
    order = np.argsort(a, axis=1)
    starts = np.take_along_axis(a, order, axis=1)
    ends = np.maximum.accumulate(np.take_along_axis(b, order, axis=1), axis=1)
    before = np.concatenate([np.full((len(w), 1), -np.inf), ends], axis=1)[:, :-1]
    ok = (starts >= before) & (starts >= lo_[:, None]) & (starts <= hi_[:, None])
    right = np.where(ok, starts, -np.inf).max(axis=1, initial=-np.inf)
    first, second = hi - w, lo
    return np.where(free(first), first, np.where(free(second), second,
                                                 np.where(right > -np.inf, right, np.nan)))


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
    redo = [sl for sl in slots if id(sl.lab) in again]
    ok = {id(sl.lab) for sl, on in zip(redo, place_roofs(plot, redo, xs, ys, margins)) if on}
    return [sl.lab for sl in slots if id(sl.lab) in shown and (
        id(sl.lab) not in again or id(sl.lab) in ok)]


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
        lab.setText(text)  # (roof_spots sets the text it chooses afterwards)
        size = SIZES[key] = label_size(lab)
    return size
