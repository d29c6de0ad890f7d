"""The roofline's red / yellow / green regions of the x axis.

A *roof* is a (compute peak, bandwidth) pair; it is bandwidth-bound below its
ridge intensity ``peak / bandwidth``.  Over the x axis, an intensity is

* **red** when it lies below every roof's ridge (bandwidth-bound under all),
* **yellow** when it lies below some ridges but not all,
* **green** when it lies at or above every ridge (compute-bound under all).

With one roof there is no yellow.  This is the reference's BW1/BW2 figure
generalised to every chip, peak and link on screen.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Sequence

import numpy as np

#: log10 stand-in for "unbounded" ends of regions (1e±60 is far outside any view).
LOG_INF = 60.0

REGION_KINDS = ("red", "yellow", "green")
REGION_LABELS = {
    "red": "bandwidth-bound under every roof",
    "yellow": "bandwidth-bound under some roofs",
    "green": "compute-bound under every roof",
}
#: Short names drawn inside the bands.
REGION_SHORT = {"red": "bandwidth-bound on all roofs", "yellow": "bound on some",
                "green": "compute-bound on all"}


@dataclass(frozen=True)
class Region:
    """An interval of the x axis (log10 intensity); ends may be ±LOG_INF."""

    kind: str  # "red" | "yellow" | "green"
    x0: float
    x1: float

    @property
    def label(self) -> str:
        return REGION_LABELS[self.kind]


def region_intervals(ridges: Iterable[float]) -> list[Region]:
    """Red / yellow / green intervals of log10 intensity for the given ridge intensities.

    Parameters
    ----------
    ridges:
        Ridge intensities (FLOP/byte, linear units) of every roof shown.

    Returns
    -------
    list[Region]
        In x order; empty when there are no roofs.  Yellow only appears when the
        ridges differ.
    """
    r = np.asarray([float(v) for v in ridges if v is not None and np.isfinite(v) and v > 0])
    if r.size == 0:
        return []
    lo, hi = float(np.log10(r.min())), float(np.log10(r.max()))
    out = [Region("red", -LOG_INF, lo)]
    if hi > lo:
        out.append(Region("yellow", lo, hi))
    out.append(Region("green", hi, LOG_INF))
    return out


def region_at(regions: Sequence[Region], x_log: float) -> str | None:
    """The region kind covering log10 intensity ``x_log`` (intervals are [x0, x1))."""
    for reg in regions:
        if reg.x0 <= x_log < reg.x1:
            return reg.kind
    return None
