"""The last step of laying out a plot's text: labels wanted on show are shown in order of
importance, each only if it lies whole inside the axes and clear of every label shown
before it; the rest are hidden (what they say is in the hover tooltips).  Rectangles are
worked out from each label's pin, anchor and text size, so a hidden label (whose
transform Qt leaves stale) is judged where it would be.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from roofgui.plotting.placement import covered
from roofgui.plotting.plot_items import label_size


#: pixels kept between labels side by side (touching, two read as one)
GAP = 3.0


def scene_rects(plot, items: Sequence) -> np.ndarray:
    """``(n, 4)`` scene rectangles ``left, top, right, bottom`` of text labels as pinned."""
    if not items:
        return np.empty((0, 4))
    v = np.array([(p.x(), p.y(), *label_size(it), it.anchor.x(), it.anchor.y())
                  for it in items for p in [it.pos()]], dtype=np.float64)
    sx, sy = plot.to_scene(v[:, 0], v[:, 1])
    left, top = sx - v[:, 4] * v[:, 2], sy - v[:, 5] * v[:, 3]
    return np.column_stack([left, top, left + v[:, 2], top + v[:, 3]])


def declutter(plot, wanted: Sequence) -> list:
    """Show the labels of ``wanted`` (most important first) that fit, hide the rest and
    every label of the plot's ``all_labels()`` not wanted; returns the shown ones."""
    r = scene_rects(plot, wanted)
    vr = plot.vb.sceneBoundingRect()
    tol = 0.5
    inside = ((r[:, 0] >= vr.left() - tol) & (r[:, 1] >= vr.top() - tol)
              & (r[:, 2] <= vr.right() + tol) & (r[:, 3] <= vr.bottom() + tol)).tolist()
    # which labels would sit on which (side by side: closer than the gap)
    clash = ((r[:, None, 0] < r[None, :, 2] + GAP) & (r[:, None, 2] + GAP > r[None, :, 0])
             & (r[:, None, 1] < r[None, :, 3]) & (r[:, None, 3] > r[None, :, 1])).tolist()
    kept: list[int] = []
    for i, ok in enumerate(inside):
        if ok and not any(clash[i][j] for j in kept):
            kept.append(i)
    shown = [wanted[i] for i in kept]
    keep = {id(it) for it in shown}
    for item in plot.all_labels():
        on = id(item) in keep
        if item.isVisible() != on:
            item.setVisible(on)
    return shown


def clear_of(plot, placed: Sequence, xs, ys, margin: float) -> list:
    """``placed`` (``(label, row)``: stacked in rows up from the x axis) but the rows
    from the first where a label as pinned, grown by ``margin`` pixels, would hide one
    of the scene points ``xs, ys`` (what they say: the points' tooltips)."""
    if not placed:
        return []
    r = scene_rects(plot, [lab for lab, _ in placed])
    hit = covered((r[:, 0] - margin, r[:, 2] + margin, r[:, 1] - margin, r[:, 3] + margin),
                  xs, ys)
    top = min((row for (_, row), n in zip(placed, hit.tolist()) if n), default=len(placed))
    return [(lab, row) for lab, row in placed if row < top]


def close_gaps(placed: Sequence, shown: list) -> None:
    """Hide the labels of ``placed`` (``(label, row)``) above the first row with one not
    in ``shown`` (:func:`declutter` hid it): no row floats above a gap."""
    keep = {id(it) for it in shown}
    top = min((row for lab, row in placed if id(lab) not in keep), default=len(placed))
    for lab, row in placed:
        if row > top and lab.isVisible():
            lab.setVisible(False)
