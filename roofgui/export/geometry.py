"""Clipping polylines to a rectangle (pure numpy), so vector exports hold no
geometry outside the axes — not even under a clip path, which some editors
drop when a drawing is ungrouped."""

from __future__ import annotations

import numpy as np


def clip_segments(x0, y0, x1, y1, xmin, xmax, ymin, ymax):
    """Liang–Barsky clipping of many segments at once.

    Returns ``(keep, t0, t1)``: which segments touch the rectangle and the
    parameter range ``[t0, t1]`` of each that lies inside it.
    """
    x0, y0, x1, y1 = (np.asarray(a, dtype=np.float64) for a in (x0, y0, x1, y1))
    dx, dy = x1 - x0, y1 - y0
    t0 = np.zeros_like(x0)
    t1 = np.ones_like(x0)
    keep = np.isfinite(x0) & np.isfinite(y0) & np.isfinite(x1) & np.isfinite(y1)
    with np.errstate(divide="ignore", invalid="ignore"):
        for p, q in ((-dx, x0 - xmin), (dx, xmax - x0), (-dy, y0 - ymin), (dy, ymax - y0)):
            parallel = p == 0
            keep &= ~(parallel & (q < 0))
            r = np.where(parallel, 0.0, q / np.where(parallel, 1.0, p))
            entering = (p < 0) & ~parallel
            leaving = (p > 0) & ~parallel
            t0 = np.where(entering, np.maximum(t0, r), t0)
            t1 = np.where(leaving, np.minimum(t1, r), t1)
    keep &= t0 <= t1
    return keep, t0, t1


def clip_polyline(x, y, xmin: float, xmax: float, ymin: float, ymax: float):
    """The parts of the polyline ``(x, y)`` inside the rectangle.

    Returns new ``(x, y)`` arrays in which separate runs are divided by a NaN
    (draw with ``connect="finite"``).  Points already inside are kept exactly;
    a segment that crosses the edge is cut at the edge.
    """
    return clip_polylines([(x, y)], xmin, xmax, ymin, ymax)[0]


def clip_polylines(lines, xmin: float, xmax: float, ymin: float, ymax: float):
    """:func:`clip_polyline` of each ``(x, y)`` in ``lines``, with the segments of all of
    them clipped in one vectorised pass (a plot has dozens of short lines)."""
    lines = [(np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64)) for x, y in lines]
    out: list = [None] * len(lines)
    seg_x0, seg_y0, seg_x1, seg_y1, starts = [], [], [], [], []
    n_seg = 0
    for i, (x, y) in enumerate(lines):
        if x.size < 2:
            inside = (x >= xmin) & (x <= xmax) & (y >= ymin) & (y <= ymax)
            out[i] = (x[inside], y[inside])
            continue
        seg_x0.append(x[:-1])
        seg_y0.append(y[:-1])
        seg_x1.append(x[1:])
        seg_y1.append(y[1:])
        starts.append((i, n_seg))
        n_seg += x.size - 1
    if not starts:
        return out
    keep, t0, t1 = clip_segments(np.concatenate(seg_x0), np.concatenate(seg_y0),
                                 np.concatenate(seg_x1), np.concatenate(seg_y1),
                                 xmin, xmax, ymin, ymax)
    for i, s0 in starts:
        x, y = lines[i]
        s1 = s0 + x.size - 1
        out[i] = _assemble(x, y, keep[s0:s1], t0[s0:s1], t1[s0:s1])
    return out


def _assemble(x, y, keep, t0, t1):
    """The kept parts ``[t0, t1]`` of the segments of ``(x, y)`` as one polyline, runs
    divided by NaN."""
    dx, dy = np.diff(x), np.diff(y)
    ax, ay = x[:-1] + t0 * dx, y[:-1] + t0 * dy
    bx, by = x[:-1] + t1 * dx, y[:-1] + t1 * dy
    # exact ends where the segment was not cut (avoid 0 + 1·dx rounding)
    ax = np.where(t0 == 0, x[:-1], ax)
    ay = np.where(t0 == 0, y[:-1], ay)
    bx = np.where(t1 == 1, x[1:], bx)
    by = np.where(t1 == 1, y[1:], by)
    out_x: list[float] = []
    out_y: list[float] = []
    prev_end = None
    prev_i = -2
    for i in np.flatnonzero(keep).tolist():
        start = (ax[i], ay[i])
        if prev_end is not None and (prev_end != start or prev_i != i - 1):
            out_x.append(np.nan)
            out_y.append(np.nan)
            prev_end = None
        if prev_end is None:
            out_x.append(start[0])
            out_y.append(start[1])
        out_x.append(bx[i])
        out_y.append(by[i])
        prev_end = (bx[i], by[i])
        prev_i = i
    return np.asarray(out_x, dtype=np.float64), np.asarray(out_y, dtype=np.float64)
