"""Polylines for drawing: points along them (:func:`densify`) and the few of their
points a drawing needs (:func:`simplify_polylines`, a batched Douglas–Peucker started
from curvature-placed knots).

Pure numpy (and plain Python for a pass's last few points); the units are whatever
the polylines are in — the plots pass log10 coordinates.  Split out of
:mod:`roofgui.presentation.plotdata`, which re-exports these names.
"""

from __future__ import annotations

import math
from itertools import accumulate
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
#: a Douglas–Peucker pass over more points than this drops its finished chords once
#: they are at least half its points (a shorter one is kept whole: its passes cost
#: numpy calls, not points)
_COMPACT = 2048
#: points still in play at or below which a pass's straying chords are finished in
#: plain Python (a numpy pass costs ~40 calls of ~2 µs whatever its size)
_FEW = 64
#: a polyline with more candidates than this starts Douglas–Peucker from knots
#: (:func:`_knots`); one with fewer starts from its ends, so that a short polyline
#: keeps textbook Douglas–Peucker's points
_BIG = 250
#: the knots' coarse points: every 4th candidate, their curvature measured over
#: _SPAN of them each way (every 8th over 2 each way: ~10 % more points kept and
#: more chords to split after; every 4th over 1 each way: as many points on smooth
#: curves, twice as many on noisy ones)
_STRIDE = 4
_SPAN = 4
#: the knots aim at this fraction of the tolerance, so that few of their chords
#: stray (on the busy scenario's sweeps, against 0.7: 0.6 keeps ~6 % more points;
#: 0.8 ~1 % fewer, but measures four times as many points again after the first
#: pass; 1.0 more of both)
_KNOT_TOL = 0.7
#: a run of more straight points than this between two candidates is a piece of a
#: power law: the two candidates on each side of it are knots (a knee's samples)
_RUN = 8
_AROUND = np.array([-1, 0, 1, 2])


def _candidates(x: np.ndarray, y: np.ndarray, ends: list[int]) -> np.ndarray:
    """Which points are candidates: not on the chord of their two neighbours.

    A point is straight when its distance from the chord of its neighbours is at
    most :data:`_STRAIGHT` (tested without a square root; a point whose neighbours
    coincide is not straight).  A roofline sweep is power laws, straight in log-log:
    about half its points are straight, and dropping them halves what the passes
    measure, keeps a knee's polyline to its corners, and shows the straight runs
    :func:`simplify_polylines` puts knots around.  A run of m straight points strays
    at most m² · 1e-12 / 8 from the chord of the candidates around it.

    Parameters
    ----------
    x, y : numpy.ndarray
        The points, at least three.  Polylines may be concatenated: only a
        polyline's ends see the next one's points, and those are kept anyway.
    ends : list of int
        Each polyline's first and last point: candidates whatever their neighbours.

    Returns
    -------
    numpy.ndarray
        One boolean per point.
    """
    n = x.size
    out = np.empty(n, dtype=bool)
    # One scratch array for the whole test, not blocks: fewer numpy calls (blocks
    # of 2,000-8,000 points, tried: slower), and as the largest allocation of a call
    # it comes from mmap the first time, after which glibc keeps the heap pages of
    # the temporaries that follow (instead of trimming them and faulting them in
    # again on every call).
    dx, dy, ex, ey = np.empty((4, n - 2))
    x0, y0 = x[:-2], y[:-2]
    np.subtract(x[2:], x0, out=dx)
    np.subtract(y[2:], y0, out=dy)
    np.subtract(x[1:-1], x0, out=ex)
    np.subtract(y[1:-1], y0, out=ey)
    ex *= dy
    ey *= dx
    ex -= ey
    ex *= ex  # the cross product dy (x1 - x0) - dx (y1 - y0), squared
    dx *= dx
    dy *= dy
    dx += dy  # the chord's length², dx² + dy²
    inner = out[1:-1]
    np.greater(dx, 0, out=inner)
    dx *= _STRAIGHT * _STRAIGHT
    inner &= ex <= dx  # (straight)
    np.logical_not(out, out=out)
    out[ends] = True
    return out


def _knots(x: np.ndarray, y: np.ndarray, big: list[tuple[int, int]],
           tol: float) -> np.ndarray:
    """Points spread along each polyline as its curvature asks, to start from.

    Douglas–Peucker from a polyline's ends needs a numpy pass per level of its
    recursion (~10 for a sweep's 2,000 points, each some 40 numpy calls whatever its
    size); from these knots it needs one, and a few points in plain Python.  Every
    :data:`_STRIDE`-th candidate is a coarse point, ``ℓ`` apart; at each, the sagitta
    ``h`` (its distance from the chord of the coarse points :data:`_SPAN` steps away
    on either side, ``2 m ℓ`` long with ``m = _SPAN``) gives the curvature,
    ``κ = 2 h / (m ℓ)²``, and a curve of curvature κ stays within ``tol`` of chords up
    to ``sqrt(8 tol / κ)`` long: so each coarse step asks for ``sqrt(h / (4 tol)) / m``
    knots.  The knots are the coarse points where the running sum of these, from the
    polyline's start, passes a whole number.  Knots placed where the curvature asks
    keep fewer points than Douglas–Peucker's top-down splits, and straight runs get
    none.  (A sagitta over several steps, not one: a smooth curve's grows with the
    span squared and asks for as many knots, noise's does not, and asks for ``m``
    times fewer.)

    Parameters
    ----------
    x, y : numpy.ndarray
        The candidates of all polylines, in a row.
    big : list of (int, int)
        Each polyline to place knots on: its first candidate and (past) its last.
        Each has more than :data:`_BIG` candidates.
    tol : float
        The tolerance the knots aim at (positive).

    Returns
    -------
    numpy.ndarray
        The positions (in ``x``) of the knots (a polyline's last point among them,
        maybe).

    Notes
    -----
    A polyline gets the same knots whatever it is simplified with: its first and
    last :data:`_SPAN` coarse points (whose sagittas would see the polylines next to
    it) ask for none, and the running sums are of whole numbers (the knots asked for,
    in units of 2⁻¹⁶, capped), so that subtracting the sum before the polyline is exact.
    """
    s, m = _STRIDE, _SPAN
    base, count, first, last, end, at = [], [], [], [], [], 0
    for f, e in big:
        k = (e - f + s - 2) // s + 1  # f, f + s, ... while before e - 1, and e - 1
        base.append(f - s * at)
        count.append(k)
        first.append(at)
        at += k
        last.append(at - 1)
        end.append(e - 1)
    reps = np.array(count)
    q = np.arange(0, s * at, s)
    q += np.array(base).repeat(reps)
    q[last] = end
    qx, qy = x[q], y[q]
    x0, y0 = qx[:-2 * m], qy[:-2 * m]
    ex = qx[m:-m] - x0
    ey = qy[m:-m] - y0
    fx = qx[2 * m:] - x0
    fy = qy[2 * m:] - y0
    ex *= fy
    ey *= fx
    ex -= ey
    ex *= ex  # the cross product, squared
    fx *= fx
    fy *= fy
    fx += fy
    ask = np.zeros(at)
    h = ask[m:-m]
    np.divide(ex, fx, out=h)  # the sagitta², h²
    k = 4294967296.0 / (4.0 * m * m * tol)  # (inf, not an error, if it overflows)
    h *= k * k
    np.sqrt(h, out=h)
    np.sqrt(h, out=h)  # 2¹⁶ sqrt(h / (4 tol)) / m: the knots asked for, in 2⁻¹⁶
    for i in first[1:]:
        ask[i - m:i + m] = 0.0  # (see Notes)
    np.fmax(ask, 0.0, out=ask)  # (a NaN asks for none)
    np.minimum(ask, 1e13, out=ask)  # (nor infinitely many)
    run = np.cumsum(ask.astype(np.int64))
    run -= run[first].repeat(reps)
    run >>= 16
    return q[1:][run[1:] > run[:-1]]


def _distances(x: np.ndarray, y: np.ndarray, ks: np.ndarray, lens: np.ndarray,
               tol: float) -> np.ndarray:
    """Each point's distance from the chord of the kept points around it.

    Parameters
    ----------
    x, y : numpy.ndarray
        A pass's points in order; the first and the last are kept.
    ks : numpy.ndarray
        The positions of the kept points, sorted: chord ``j`` runs from point
        ``ks[j]`` to point ``ks[j + 1]``.
    lens : numpy.ndarray
        ``ks[1:] - ks[:-1]``: the points of each chord, its first end included.
    tol : float
        Largest allowed perpendicular distance (a negative one makes a kept point's
        distance -inf, so that a chord with no other point never splits).

    Returns
    -------
    numpy.ndarray
        For every point but the last, ``|cdy px - cdx py| / cl`` (``px``, ``py`` from
        its chord's first end, ``cdx``, ``cdy``, ``cl`` the chord's), or its distance
        from the first end when the chord has length 0: the arithmetic of
        :func:`_dp_python`, to the last bit.
    """
    kx, ky = x[ks], y[ks]
    ax, ay = kx[:-1], ky[:-1]
    cdx = kx[1:] - ax
    cdy = ky[1:] - ay
    cl = cdx * cdx
    cl += cdy * cdy
    np.sqrt(cl, out=cl)
    px = ax.repeat(lens)
    np.subtract(x[:-1], px, out=px)
    py = ay.repeat(lens)
    np.subtract(y[:-1], py, out=py)
    d = cdy.repeat(lens)
    d *= px
    t = cdx.repeat(lens)
    t *= py
    d -= t
    np.abs(d, out=d)
    cl = cl.repeat(lens)
    d /= cl
    if np.count_nonzero(cl) < cl.size:  # a chord of length 0: the distance from its point
        zero = ~(cl > 0)
        d[zero] = np.sqrt(px[zero] ** 2 + py[zero] ** 2)
    if tol < 0:
        d[ks[:-1]] = -np.inf
    return d


def _dp_python(xs: list[float], ys: list[float], kept: list[bool],
               tol: float) -> list[int]:
    """:func:`_douglas_peucker` in plain Python, for a pass's last few points.

    The same arithmetic on the same doubles gives the same distances to the last bit,
    and a chord splits as in :func:`_douglas_peucker`: at its first farthest point,
    when that strays more than ``tol``, and not at all when one of its distances is NaN.

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


def _douglas_peucker(x: np.ndarray, y: np.ndarray, isk: np.ndarray, tol: float,
                     found: list[np.ndarray | list[int]]) -> None:
    """Douglas–Peucker passes over the points until no chord strays.

    Every pass splits each chord straying more than ``tol`` at its farthest point (the
    first of equals); a chord that does not split is done.  A long pass then keeps the
    split chords only, and once few points are left in play the straying chords are
    finished in plain Python, each from its ends (:func:`_dp_python`: its first split
    again, and the rest).

    Parameters
    ----------
    x, y : numpy.ndarray
        The points in order; the first and the last are kept.
    isk : numpy.ndarray
        Which points are kept (updated, but only until chords are dropped: the
        positions found are the result).
    tol : float
        Largest allowed perpendicular distance.
    found : list
        Where the positions (in ``x``) of the points newly kept are appended, as
        arrays or lists of int.
    """
    pos = None  # the positions in ``x`` of the points still held, once chords are dropped
    n = x.size
    ks = isk.nonzero()[0]
    if n - ks.size <= _FEW:
        if n > ks.size:
            found.append(_dp_python(x.tolist(), y.tolist(), isk.tolist(), tol))
        return
    while True:
        lens = ks[1:] - ks[:-1]
        d = _distances(x, y, ks, lens, tol)
        g = ks[:-1]
        worst = np.maximum.reduceat(d, g)  # (NaN if a distance is: never splits)
        split = worst > tol
        s = split.nonzero()[0]
        if not s.size:
            return
        if s.size <= _FEW:
            ls = lens[s]
            held = int(np.add.reduce(ls))
            if held - s.size <= _FEW:  # the straying chords' points but their ends
                for a, b in zip(g[s].tolist(), (g[s] + ls).tolist()):
                    more = _dp_python(x[a:b + 1].tolist(), y[a:b + 1].tolist(),
                                      [True] + [False] * (b - a - 1) + [True], tol)
                    more = np.add(more, a, dtype=np.intp)
                    found.append(more if pos is None else pos[more])
                return
        if n > _COMPACT:
            inner = split.repeat(lens)  # the split chords' points but their last ends
            hi = inner.nonzero()[0]
            held = hi.size
        else:
            held = int(np.add.reduce(lens[s]))
        compact = n > _COMPACT and 2 * held <= n
        if compact:
            ls = lens[s]
            hits = (d[hi] == worst[s].repeat(ls)).nonzero()[0]
            o = ls.cumsum()
            o -= ls
            picks = hi[hits[hits.searchsorted(o)]]
        else:
            hits = (d == worst.repeat(lens)).nonzero()[0]
            picks = hits[hits.searchsorted(g[s])]
        isk[picks] = True
        found.append(picks if pos is None else pos[picks])
        if held == 2 * s.size:  # (no point left in play)
            return
        if compact:  # hold the split chords only: their points and ends
            m = np.zeros(n, dtype=bool)
            m[:-1] = inner
            m[1:] |= inner
            h = m.nonzero()[0]
            pos = h if pos is None else pos[h]
            x, y, isk = x[h], y[h], isk[h]
            n = h.size
        ks = isk.nonzero()[0]


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
        One boolean keep-mask per polyline (views of one array).

    Notes
    -----
    A pass costs a few dozen numpy calls whatever its size, so the work is arranged
    for few passes.  Points of straight runs are dropped first
    (:func:`_candidates`).  A polyline of at most :data:`_BIG` candidates starts
    from its ends, and keeps textbook Douglas–Peucker's points (of its candidates).
    A longer one starts from knots: points spread as its curvature asks
    (:func:`_knots`), and the two candidates on each side of each long straight run
    (a knee's samples); Douglas–Peucker then only splits the chords between knots
    that stray: usually one pass, and a few points in plain Python.  Such a polyline
    keeps the knots and what the splits add, within ``tol`` as ever: on the busy
    scenario's sweeps ~10 % fewer points than textbook Douglas–Peucker from its ends,
    and other ones.  A polyline keeps the same points whatever it is simplified with.
    """
    sizes = [v.size if isinstance(v, np.ndarray) else np.size(v) for v in xs]
    if not sizes:
        return []
    bounds = list(accumulate(sizes))
    n = bounds[-1]
    if n <= 2:
        return [np.ones(s, dtype=bool) for s in sizes]
    ends = [e - s for e, s in zip(bounds, sizes) if s]  # each polyline's first point ...
    p = len(ends)
    ends += [e - 1 for e, s in zip(bounds, sizes) if s]  # ... and last
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        x = np.concatenate(xs, axis=None, dtype=np.float64)
        y = np.concatenate(ys, axis=None, dtype=np.float64)
        c = _candidates(x, y, ends).nonzero()[0]
        cx, cy = x[c], y[c]
        kc = np.zeros(c.size, dtype=bool)  # which candidates are kept
        fl = c.searchsorted(ends)
        kc[fl] = True
        fl = fl.tolist()
        big = [(f, e + 1) for f, e in zip(fl[:p], fl[p:]) if e - f >= _BIG]
        if big and tol > 0:
            kc[_knots(cx, cy, big, _KNOT_TOL * tol)] = True
            run = ((c[1:] - c[:-1]) > _RUN).nonzero()[0]  # before a long straight run
            if run.size:
                if len(big) < p:
                    inbig = np.zeros(c.size, dtype=bool)
                    for f, e in big:
                        inbig[f:e] = True
                    run = run[inbig[run]]
                # (the candidates around a run are in its polyline, or the ends of
                # the polylines next to it, or past the last: kept anyway)
                run = (run[:, None] + _AROUND).ravel()
                np.minimum(run, c.size - 1, out=run)
                kc[run] = True
        found: list[np.ndarray | list[int]] = []
        _douglas_peucker(cx, cy, kc, tol, found)
        for f in found:
            kc[f] = True
        keep = np.zeros(n, dtype=bool)
        keep[c[kc]] = True
    out, lo = [], 0
    for hi in bounds:
        out.append(keep[lo:hi])
        lo = hi
    return out
