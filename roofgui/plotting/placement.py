"""Counting what a legend or a label would cover: rectangles against scene points."""

from __future__ import annotations

import numpy as np

#: where a label's rectangle is sampled for placement: a 6 × 3 grid, corners included
GRID_FX = np.tile(np.linspace(0.0, 1.0, 6), 3)
GRID_FY = np.repeat(np.linspace(0.0, 1.0, 3), 6)


def rect_bounds(rects, margin: float = 0.0) -> tuple[np.ndarray, ...]:
    """``(left, top, width, height)`` rectangles grown by ``margin``, as four arrays of
    edges for :func:`covered`."""
    r = np.asarray(rects, dtype=np.float64).reshape(-1, 4)
    return (r[:, 0] - margin, r[:, 0] + r[:, 2] + margin,
            r[:, 1] - margin, r[:, 1] + r[:, 3] + margin)


def covered(bounds: tuple[np.ndarray, ...], xs, ys) -> np.ndarray:
    """How many of the points each rectangle of :func:`rect_bounds` holds."""
    lo_x, hi_x, lo_y, hi_y = bounds
    x = np.asarray(xs, dtype=np.float64)
    y = np.asarray(ys, dtype=np.float64)
    inside = (x >= lo_x[:, None]) & (x <= hi_x[:, None]) & (y >= lo_y[:, None]) & (y <= hi_y[:, None])
    return inside.sum(axis=1)


def sample_polyline(x, y, x0: float, x1: float, n: int = 150) -> tuple[np.ndarray, np.ndarray]:
    """Points along a polyline of increasing x, about ``n`` across ``[x0, x1]`` (for
    counting what a legend would cover), plus its own vertices."""
    x = np.asarray(x, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    ok = np.isfinite(x) & np.isfinite(y)
    x, y = x[ok], y[ok]
    if x.size < 2:
        return x, y
    lo, hi = max(x[0], x0 - 1.0), min(x[-1], x1 + 1.0)
    if lo >= hi:
        return x, y
    grid = np.linspace(lo, hi, max(2, int(n * (hi - lo) / max(x1 - x0, 1e-9))))
    return np.concatenate([grid, x]), np.concatenate([np.interp(grid, x, y), y])


def label_samples(items) -> tuple[list, list]:
    """Scene sample points over text labels (dense: covering text is worse than a line)."""
    rects = [item.sceneBoundingRect().getRect() for item in items if item.isVisible()]
    if not rects:
        return [], []
    left, top, w, h = (np.array(v)[:, None] for v in zip(*rects))
    return [(left + GRID_FX * w).ravel()], [(top + GRID_FY * h).ravel()]
