"""Polylines for drawing: points along them (:func:`densify`) and the points of a sampled
sweep curve worth drawing (:func:`sweep_drawing`).

Pure numpy; the units are whatever the polylines are in (the plots pass log10 coordinates).
"""

from __future__ import annotations

import math
from typing import Sequence

import numpy as np

#: Samples per decade a drawn sweep curve keeps between its knees, where it is smooth:
#: a power law, or the log of a sum of two (log10(a + b·x) bends at most ln 10 / 4 per
#: decade², so a chord 1/20 decade long strays at most 1.8e-4 decade from it).  Over
#: every bundled example and the benchmark's scenario (20,000-point sweeps) a drawing
#: strays from its curve by 2.6e-5 decade at the median and 1.4e-3 at worst (the dot
#: product's 2N − 1 near N = 1): under a fifth of a pixel on screen.  Every point drawn
#: costs paint: a full render of 32 antialiased curves took 63 ms with 17 points each,
#: 85 ms with 169 and 286 ms with 1,500 (loaded 2-core machine).
DRAWN_PER_DECADE = 20
#: The most samples a drawn sweep curve keeps, whatever its range (its knees come on top).
DRAWN_POINTS = 2000


def drawn_samples(start: float, stop: float, per_decade: float = DRAWN_PER_DECADE,
                  most: int = DRAWN_POINTS) -> int:
    """How many log-spaced samples from ``start`` to ``stop`` a drawing of a sweep keeps:
    ``per_decade`` a decade (its knees come on top, exactly), at least 2, at most ``most``.
    The window evaluates a sweep at just these (:func:`sweep_drawing` then keeps them all)."""
    try:
        span = abs(math.log10(stop / start))
    except (ValueError, ZeroDivisionError, OverflowError):
        return most
    return int(max(min(math.ceil(span * per_decade) + 1, most), 2)) if math.isfinite(span) \
        else most


def densify(x: np.ndarray, y: np.ndarray, step: float) -> tuple[np.ndarray, np.ndarray]:
    """Points every ``step`` (or closer) along a polyline, ends included (units of x and y)."""
    x = np.asarray(x, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    if x.size < 2:
        return x, y
    dx, dy = np.diff(x), np.diff(y)
    n = np.clip(np.ceil(np.hypot(dx, dy) / step), 1, 2000).astype(np.int64)
    seg = np.repeat(np.arange(n.size), n)
    start = np.repeat(np.cumsum(n) - n, n)
    t = (np.arange(seg.size) - start) / n[seg]
    return (np.append(x[seg] + t * dx[seg], x[-1]), np.append(y[seg] + t * dy[seg], y[-1]))


def densify_many(xs: Sequence[np.ndarray], ys: Sequence[np.ndarray],
                 step: float) -> tuple[np.ndarray, np.ndarray]:
    """:func:`densify` of several polylines at once, concatenated (no bridge between them)."""
    xs = [np.asarray(v, dtype=np.float64).ravel() for v in xs]
    ys = [np.asarray(v, dtype=np.float64).ravel() for v in ys]
    if not xs or not sum(v.size for v in xs):
        return np.empty(0), np.empty(0)
    parts = [densify(x, y, step) for x, y in zip(xs, ys) if x.size]
    return np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts])


def sweep_drawing(x: np.ndarray, y: np.ndarray, knee_x: Sequence[float] = (),
                  knee_y: Sequence[float] = (), per_decade: float = DRAWN_PER_DECADE,
                  most: int = DRAWN_POINTS) -> tuple[np.ndarray, np.ndarray]:
    """The points to draw of a sampled sweep curve (log10 x), and its knees exactly.

    A sweep's samples are log-spaced, so every k-th of them is too: a curve keeps about
    ``per_decade`` samples a decade of x (at most ``most``), every k-th from the first,
    and its last.  Its knees (where it bends sharply between two samples) are then
    inserted at their x, so the drawing turns at the knee itself rather than cutting the
    corner; a sample at a knee's very x gives way to the knee.  Knees go in only when
    ``x`` rises.

    Parameters
    ----------
    x, y : numpy.ndarray
        The curve's samples: log10 of the swept value, and the curve's log10 value.
    knee_x, knee_y : sequences of float
        The knees' coordinates (log10).
    per_decade, most : float, int
        How many samples to keep a decade, and at most.
    """
    x = np.asarray(x, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    if x.size > 2:
        span = abs(float(x[-1]) - float(x[0]))
        want = max(min(math.ceil(span * per_decade) + 1, most), 2)
        step = -(-(x.size - 1) // (want - 1))  # (ceil)
        if step > 1:
            last = (x.size - 1) % step != 0  # (the last sample, when the stride misses it)
            x = np.concatenate((x[::step], x[-1:])) if last else x[::step]
            y = np.concatenate((y[::step], y[-1:])) if last else y[::step]
    if not len(knee_x) or x.size < 2 or not np.all(x[1:] > x[:-1]):
        return x, y
    xs: list = []
    ys: list = []
    lo = 0
    for kx, ky in sorted(zip(knee_x, knee_y)):
        i = max(int(x.searchsorted(kx)), lo)  # (the first sample at or right of the knee)
        xs += [x[lo:i], [kx]]
        ys += [y[lo:i], [ky]]
        lo = i + 1 if i < x.size and x[i] == kx else i
    return np.concatenate(xs + [x[lo:]]), np.concatenate(ys + [y[lo:]])
