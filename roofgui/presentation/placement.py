"""Where labels go: rows that do not overlap, spread positions, the corner or anchor
covering the fewest points, and whether a view holds given points."""

from __future__ import annotations

from typing import Sequence

import numpy as np


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


def view_covers(view: Sequence[float] | None, xs: Sequence[float], ys: Sequence[float],
                margin: float = 0.0) -> bool:
    """Whether the view ``[x0, x1, y0, y1]`` holds every point ``(xs[i], ys[i])``
    at least ``margin`` inside its edges (all log10 units)."""
    if view is None:
        return False
    x0, x1, y0, y1 = view
    return all(x0 + margin <= x <= x1 - margin and y0 + margin <= y <= y1 - margin
               for x, y in zip(xs, ys))
