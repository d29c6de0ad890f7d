"""Polylines for drawing: points along them (:func:`densify`) and the few of their
points a drawing needs (:func:`simplify_polylines`, a batched Douglas–Peucker).

Pure numpy (and plain Python for a pass's last few points); the units are whatever
the polylines are in — the plots pass log10 coordinates.  Split out of
:mod:`roofgui.model.plotdata`, which re-exports these names.
"""

from __future__ import annotations

import math
from typing import Sequence

import numpy as np


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
    x, y = np.concatenate(xs), np.concatenate(ys)
    dx, dy = np.diff(x), np.diff(y)
    n = np.clip(np.ceil(np.sqrt(dx * dx + dy * dy) / step), 1, 2000).astype(np.int64)
    last = np.cumsum([v.size for v in xs]) - 1  # each polyline's last point ...
    n[last[:-1]] = 1  # ... to the next one's first: that point alone, no samples between
    seg = np.repeat(np.arange(n.size), n)
    start = np.repeat(np.cumsum(n) - n, n)
    t = (np.arange(seg.size) - start) / n[seg]
    return (np.append(x[seg] + t * dx[seg], x[-1]), np.append(y[seg] + t * dy[seg], y[-1]))


#: How far (log10 units, perpendicular) a drawn sweep curve may stray from its
#: computed points: 5e-5 decades is under 0.1 px even on a 4K export of one decade.
DRAW_TOLERANCE = 5e-5
_STRAIGHT = 1e-12
#: a Douglas–Peucker stage this long drops its finished chords after each pass (a
#: shorter one is kept whole: its passes cost numpy calls, not points)
_COMPACT = 2048
#: points still in play below which a stage finishes in plain Python (cheaper than a pass)
_FEW = 24
#: the coarse stages of :func:`simplify_polylines`: every 16th candidate, then all.  (A
#: second stage of every 4th, tried: 0.1-0.7 ms slower on the busy scenario's sweeps of
#: 500, 2,000 and 10,000 points, eight curves at a time, for no fewer points.)
_STAGES = (16,)


def _straight(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Which points lie on the chord of their two neighbours, to rounding.

    A point is straight when its distance from that chord is at most :data:`_STRAIGHT`
    (tested without a square root; a point whose neighbours coincide is not straight).

    Parameters
    ----------
    x, y : numpy.ndarray
        The points, at least three.  Polylines may be concatenated: only a polyline's
        ends see the next one's points, and those are kept anyway.

    Returns
    -------
    numpy.ndarray
        One boolean per point (the first and the last: False).
    """
    n = x.size
    straight = np.zeros(n, dtype=bool)
    # One scratch array for the whole test, not blocks: fewer numpy calls, and as the
    # largest allocation of a call it comes from mmap the first time, after which glibc
    # keeps the heap pages of the temporaries that follow (instead of trimming them and
    # faulting them in again on every call).
    dx, dy, ex, ey = np.empty((4, n - 2))
    x0, y0 = x[:-2], y[:-2]
    np.subtract(x[2:], x0, out=dx)
    np.subtract(y[2:], y0, out=dy)
    np.subtract(x[1:-1], x0, out=ex)
    np.subtract(y[1:-1], y0, out=ey)
    ex *= dy
    ey *= dx
    ex -= ey  # the cross product dy (x1 - x0) - dx (y1 - y0)
    ex *= ex
    dx *= dx
    dy *= dy
    dx += dy  # the chord's length², dx² + dy²
    inner = straight[1:-1]
    np.greater(dx, 0, out=inner)
    dx *= _STRAIGHT * _STRAIGHT
    inner &= ex <= dx
    return straight


def _dp_step(x: np.ndarray, y: np.ndarray, ks: np.ndarray, lens: np.ndarray,
             tol: float) -> tuple[np.ndarray, np.ndarray | None]:
    """One Douglas–Peucker pass over every chord of a stage at once.

    Parameters
    ----------
    x, y : numpy.ndarray
        The stage's points in order; the first and the last are kept.
    ks : numpy.ndarray
        The positions of the kept points, sorted: chord ``j`` runs from point ``ks[j]``
        to point ``ks[j + 1]``.
    lens : numpy.ndarray
        ``ks[1:] - ks[:-1]``: the points of each chord, its first end included.
    tol : float
        Largest allowed perpendicular distance.

    Returns
    -------
    split : numpy.ndarray
        Per chord, whether one of its points strays more than ``tol`` from it.
    picks : numpy.ndarray or None
        Per split chord, the position of its farthest point (the first of equals), or
        None when no chord splits.
    """
    g = ks[:-1]
    kx, ky = x[ks], y[ks]
    cdx, cdy = kx[1:] - kx[:-1], ky[1:] - ky[:-1]
    cl = cdx * cdx
    cl += cdy * cdy
    np.sqrt(cl, out=cl)
    # per point, from its chord's first end: |cdy px - cdx py| / cl (0 at a kept point)
    px = kx[:-1].repeat(lens)
    np.subtract(x[:-1], px, out=px)
    py = ky[:-1].repeat(lens)
    np.subtract(y[:-1], py, out=py)
    d = cdy.repeat(lens)
    d *= px
    t = cdx.repeat(lens)
    t *= py
    d -= t
    np.abs(d, out=d)
    rcl = cl.repeat(lens)
    d /= rcl
    if np.count_nonzero(cl) < cl.size:  # a chord of length 0: the distance from its point
        zero = ~(rcl > 0)
        d[zero] = np.sqrt(px[zero] ** 2 + py[zero] ** 2)
    if tol < 0:  # (a kept point, at distance 0, would stray)
        d[g] = -np.inf
    worst = np.maximum.reduceat(d, g)  # (NaN when a distance is: such a chord never splits)
    split = worst > tol
    if not np.count_nonzero(split):
        return split, None
    hits = (d == worst.repeat(lens)).nonzero()[0]
    return split, hits[hits.searchsorted(g[split.nonzero()[0]])]


def _dp_python(xs: list[float], ys: list[float], kept: list[bool],
               tol: float) -> list[int]:
    """:func:`_douglas_peucker` in plain Python, for the last few points of a stage.

    The same arithmetic on the same doubles gives the same distances to the last bit,
    and a chord splits as in :func:`_dp_step`: at its first farthest point, when that
    strays more than ``tol``, and not at all when one of its distances is NaN.

    Parameters
    ----------
    xs, ys : list of float
        The points in order; the first and the last are kept.
    kept : list of bool
        Which points are kept.
    tol : float
        Largest allowed perpendicular distance.

    Returns
    -------
    list of int
        The positions of the points newly kept.
    """
    ks = [i for i, k in enumerate(kept) if k]
    todo = [(a, b) for a, b in zip(ks[:-1], ks[1:]) if b - a > 1]
    sqrt = math.sqrt
    out = []
    while todo:
        a, b = todo.pop()
        ax, ay = xs[a], ys[a]
        cdx, cdy = xs[b] - ax, ys[b] - ay
        cl = sqrt(cdx * cdx + cdy * cdy)
        worst, at = -math.inf, a
        for i in range(a + 1, b):
            px, py = xs[i] - ax, ys[i] - ay
            d = abs(cdy * px - cdx * py) / cl if cl > 0 else sqrt(px * px + py * py)
            if d > worst:
                worst, at = d, i
            elif d != d:
                break  # (not split)
        else:
            if worst > tol:
                out.append(at)
                todo += [c for c in ((a, at), (at, b)) if c[1] - c[0] > 1]
    return out


def _douglas_peucker(x: np.ndarray, y: np.ndarray, isk: np.ndarray,
                     tol: float) -> list[np.ndarray]:
    """Douglas–Peucker passes over a stage's points until no chord strays.

    Every pass splits each chord straying more than ``tol`` at its farthest point; a
    chord that does not split is done.  A long stage then keeps the split chords only,
    and the last few points are left to :func:`_dp_python`.

    Parameters
    ----------
    x, y : numpy.ndarray
        The stage's points in order; the first and the last are kept.
    isk : numpy.ndarray
        Which points are kept (updated, but only until chords are dropped: the
        positions returned are the result).
    tol : float
        Largest allowed perpendicular distance.

    Returns
    -------
    list of numpy.ndarray
        The positions (in ``x``) of the points newly kept.
    """
    found: list[np.ndarray] = []
    pos = None  # the positions in ``x`` of the points still held, once chords are dropped
    while True:
        ks = isk.nonzero()[0]
        lens = ks[1:] - ks[:-1]
        split, picks = _dp_step(x, y, ks, lens, tol)
        if picks is None:
            return found
        isk[picks] = True
        found.append(picks if pos is None else pos[picks])
        few = False
        if picks.size <= _FEW:
            # the points still in play: those of the split chords but their ends and picks
            left = int(lens[split].sum()) - 2 * picks.size
            if not left:
                return found
            few = left <= _FEW
        if few or x.size > _COMPACT:  # hold the split chords only: their points and ends
            m = np.empty(x.size, dtype=bool)
            m[:-1] = split.repeat(lens)
            m[-1] = False
            m[ks[1:][split]] = True
            held = m.nonzero()[0]
            x, y, isk = x[held], y[held], isk[held]
            pos = held if pos is None else pos[held]
            if few:
                more = _dp_python(x.tolist(), y.tolist(), isk.tolist(), tol)
                if more:
                    found.append(pos[more])
                return found


def simplify_polylines(xs: Sequence[np.ndarray], ys: Sequence[np.ndarray],
                       tol: float = DRAW_TOLERANCE) -> list[np.ndarray]:
    """Which points of each polyline to draw so the drawn line stays within ``tol``.

    Douglas–Peucker run on every polyline at once: each pass measures, for every
    point, its distance from the chord of the kept points around it, and keeps the
    farthest point of every chord that strays more than ``tol``.  The ends of each
    polyline are always kept; the result differs from the polyline by at most
    ``tol`` anywhere.  A roofline sweep (power laws joined at a knee) keeps a
    handful of its thousands of points.

    Parameters
    ----------
    xs, ys : sequences of 1-D float arrays
        The polylines (same lengths pairwise), finite values.
    tol : float
        Largest allowed perpendicular distance, in the units of x and y.

    Returns
    -------
    list of numpy.ndarray
        One boolean keep-mask per polyline.

    Notes
    -----
    A pass costs a few dozen numpy calls whatever its size, so the work is arranged
    for few passes: points of straight runs are dropped first, a stage of every 16th
    point comes before the last one (a smooth curve's many points are then measured a
    couple of times rather than once per split), a stage's last few
    points are finished in plain Python, and long stages drop the chords they are done
    with.  A polyline keeps the same points whatever it is simplified with.
    """
    xs = [np.asarray(v, dtype=np.float64).ravel() for v in xs]
    if not xs:
        return []
    ys = [np.asarray(v, dtype=np.float64).ravel() for v in ys]
    sizes = [v.size for v in xs]
    starts, ends, n = [], [], 0  # each non-empty polyline's first point and (past) its last
    for s in sizes:
        if s:
            starts.append(n)
            ends.append(n + s)
        n += s
    keep = np.zeros(n, dtype=bool)
    keep[starts] = True
    keep[[e - 1 for e in ends]] = True
    if n > 2:
        with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
            x, y = np.concatenate(xs), np.concatenate(ys)
            # The candidates: all points but those of straight runs (a point on the chord
            # of its two neighbours, to rounding: a roofline sweep is power laws, straight
            # in log-log); any run of m such points strays at most m² · 1e-12 / 8.
            cand = ~_straight(x, y)
            cand |= keep
            c = cand.nonzero()[0]
            cx, cy = x[c], y[c]
            del x, y
            kc = keep[c]  # which candidates are kept
            first, last = c.searchsorted(starts), c.searchsorted(ends)
            many = last - first
            many -= 2  # each polyline's candidates in play at the start
            # Douglas–Peucker over the candidates.  On every 16th first (_STAGES), then
            # all: each stage starts from the chords the coarser one kept.  Strides
            # count within each polyline (from its first candidate still in play), and a
            # polyline takes the coarse stages only if it has many candidates of its own:
            # so a polyline keeps the same points whatever it is simplified with.
            for stride in _STAGES:
                on = many > 64 * stride
                if not np.count_nonzero(on):
                    continue
                live = (~kc).nonzero()[0]  # candidates in play, each polyline's in a row
                lo, hi = live.searchsorted(first), live.searchsorted(last)
                cnt = (hi - lo + (stride - 1)) // stride * on
                at = cnt.cumsum()
                lo -= stride * (at - cnt)
                pick = lo.repeat(cnt)  # in live: lo, lo + stride, ... of each polyline
                pick += np.arange(0, stride * int(at[-1]), stride)
                zm = kc.copy()
                zm[live[pick]] = True
                zp = zm.nonzero()[0]  # the stage: the kept candidates and those picked
                for f in _douglas_peucker(cx[zp], cy[zp], kc[zp], tol):
                    kc[zp[f]] = True
            if np.count_nonzero(kc) < kc.size:
                for f in _douglas_peucker(cx, cy, kc.copy(), tol):
                    kc[f] = True
            keep[c[kc]] = True
    out, lo = [], 0
    for s in sizes:
        out.append(keep[lo:lo + s].copy())
        lo += s
    return out
