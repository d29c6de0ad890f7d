"""Calibration with a launch overhead: each kernel costs a fixed time on top of its
derated roofline time.

A measurement is a sum of kernels (one for a GEMM; every op of every step of a serving
cycle for an LLM row), each a *term* ``(k, T_math, T_hbm, T_net)``: ``k`` launches
whose analytic times together are ``T_math``, ``T_hbm`` and ``T_net``.  The model::

    t = sum over terms of ( k · t0 + max(T_math / f_compute, T_hbm / f_memory, T_net) )

-- each op runs at the derated roof that limits it (ops do not overlap one another), the
link at its stated bandwidth, and each launch adds ``t0`` (its launch and ramp-up time,
the time a tiny kernel cannot go below).  With one term and ``t0 = 0`` it is the plain
calibrated roofline of :mod:`.calibrate`.

The fit minimises ``sum((log t_pred - log t_measured)^2)`` over ``log f_compute``,
``log f_memory`` and ``log t0`` (Nelder-Mead from a few starts that depend on the rows
alone); the fit without an overhead is kept unless the overhead lowers the error.  A
fraction is at most 1 (a measurement beats no roof; one that seems to is explained by
the other terms).  A roof no term is limited by at the fit is left unfitted (``None``):
a prediction derates it by the other roof's fraction, as :func:`.calibrate.applied` does.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

import numpy as np

from roofgui.model.calibrate import TIE, Fractions, applied, fit
from roofgui.model.errors import ModelError

#: One term of a measurement: (launches, T_math, T_hbm, T_net) in seconds.
Term = tuple[float, float, float, float]
#: Nelder-Mead steps per start; a start stops once its errors agree to ``SPREAD``
#: (relative) or its points to ``SIZE`` (in log units: fractions to about 1e-8).
MAX_STEPS = 600
SPREAD = 1e-12
SIZE = 1e-8


@dataclass(frozen=True)
class _Rows:
    """The terms of every row as arrays (rows × terms, zero-padded), and the log times."""

    k: np.ndarray
    x: np.ndarray
    y: np.ndarray
    n: np.ndarray
    log_z: np.ndarray
    has_net: bool  # (any term has link time: known once, asked ~10^5 times by a fit)

    @classmethod
    def of(cls, rows: Sequence[tuple[Sequence[Term], float]]) -> "_Rows":
        width = max(len(t) for t, _ in rows)
        a = np.zeros((4, len(rows), width))
        for i, (terms, z) in enumerate(rows):
            if not terms or not (z > 0 and math.isfinite(z)):
                raise ModelError(f"calibration needs terms and a positive time, not {z!r}",
                                 "time")
            a[:, i, :len(terms)] = np.asarray(terms, dtype=np.float64).T
        return cls(a[0], a[1], a[2], a[3], np.log([z for _, z in rows]), bool(a[3].any()))

    def predict(self, c: float, m: float, t0: float) -> np.ndarray:
        t = np.maximum(self.x * (1.0 / c), self.y * (1.0 / m))
        if self.has_net:
            np.maximum(t, self.n, out=t)
        if t0:
            t += self.k * t0
        return t.sum(1) if t.shape[1] > 1 else t[:, 0]

    def sse(self, p: Sequence[float]) -> float:
        # (levels kept where every exponential is finite: a fraction of e^-50 is no answer)
        c, m = _c(min(p[0], LIMIT)), _c(min(p[1], LIMIT))
        t0 = math.exp(min(p[2], LIMIT)) if len(p) > 2 else 0.0
        e = np.log(self.predict(c, m, t0)) - self.log_z
        v = float(e @ e)
        return v if math.isfinite(v) else math.inf


#: The largest |log| of a fraction or an overhead the fit tries.
LIMIT = 50.0


def fit_terms(rows: Sequence[tuple[Sequence[Term], float]], overhead: bool = True
              ) -> Fractions:
    """Fit the fractions (and, with ``overhead``, the launch overhead ``t0``, in
    :attr:`Fractions.overhead`) to ``(terms, measured seconds)`` rows; the result depends
    on these rows alone (a leave-one-out fit learns nothing of the row left out)."""
    if not rows:
        return Fractions(None, None)
    r = _Rows.of(rows)
    best = _start(rows, r)
    if overhead:
        t_min = float(np.min(np.exp(r.log_z) / np.maximum(r.k.sum(1), 1.0)))
        for u in (math.log(share * t_min) for share in (0.5, 0.1, 1e-3)):
            p = _nelder_mead(r.sse, [best[0], best[1], u])
            if r.sse(p) < r.sse(best) - TIE:
                best = p
    return _fractions(r, best)


def _start(rows, r: _Rows) -> list[float]:
    """The best fit without an overhead: the closed-form alternating fit when every row is
    one term without link time (exact), else Nelder-Mead from it."""
    sums = [(sum(t[1] for t in terms), sum(t[2] for t in terms), z) for terms, z in rows]
    f = fit(sums)
    c, m = applied(f)
    p = [-math.log(c), -math.log(m)]
    if r.x.shape[1] == 1 and not r.has_net:
        return p
    q = _nelder_mead(r.sse, p)
    return q if r.sse(q) < r.sse(p) else p


def _c(level: float) -> float:
    """The fraction of a fitted level: ``exp(-level)``, never above 1 (no hardware beats
    its roof: the overhead, not a fraction above 1, explains a time the roofs cannot)."""
    return math.exp(-max(level, 0.0))


def _fractions(r: _Rows, p: Sequence[float]) -> Fractions:
    c, m = _c(p[0]), _c(p[1])
    t0 = math.exp(p[2]) if len(p) > 2 else None
    bx, by = r.x / c, r.y / m
    live = r.k > 0
    comp = int(((bx >= by) & (bx >= r.n) & live & (r.x > 0)).any(1).sum())
    mem = int(((by > bx) & (by >= r.n) & live & (r.y > 0)).any(1).sum())
    rms = math.sqrt(r.sse(p) / len(r.log_z))
    return Fractions(c if comp else None, m if mem else None, comp, mem, rms, overhead=t0)


def predict_terms(terms: Sequence[Term], fractions: Fractions) -> float:
    """The calibrated time of a measurement's terms under fitted fractions."""
    c, m = applied(fractions)
    t0 = fractions.overhead or 0.0
    return sum(k * t0 + max(x / c, y / m, n) for k, x, y, n in terms)


def _nelder_mead(f, x0) -> list[float]:
    """Minimise ``f`` from ``x0`` (steps of 0.5 in each coordinate to start); plain
    Python on a few coordinates, which is quicker than numpy at this size."""
    x0 = [float(v) for v in x0]
    pts = [x0] + [[v + (0.5 if i == j else 0.0) for j, v in enumerate(x0)]
                  for i in range(len(x0))]
    vals = [f(p) for p in pts]
    n = len(x0)
    for _ in range(MAX_STEPS):
        order = sorted(range(n + 1), key=vals.__getitem__)
        pts, vals = [pts[i] for i in order], [vals[i] for i in order]
        if vals[-1] - vals[0] <= SPREAD * vals[0] + 1e-30 or \
                max(abs(a - b) for p in pts[1:] for a, b in zip(p, pts[0])) <= SIZE:
            break
        centre = [sum(p[j] for p in pts[:-1]) / n for j in range(n)]

        def towards(t: float) -> list[float]:
            return [c + t * (w - c) for c, w in zip(centre, pts[-1])]

        refl = towards(-1.0)
        fr = f(refl)
        if fr < vals[0]:
            exp = towards(-2.0)
            fe = f(exp)
            pts[-1], vals[-1] = (exp, fe) if fe < fr else (refl, fr)
        elif fr < vals[-2]:
            pts[-1], vals[-1] = refl, fr
        else:
            con = towards(0.5)
            fc = f(con)
            if fc < vals[-1]:
                pts[-1], vals[-1] = con, fc
            else:
                pts = [[b + 0.5 * (a - b) for a, b in zip(p, pts[0])] for p in pts]
                vals = [f(p) for p in pts]
    return pts[min(range(n + 1), key=vals.__getitem__)]
