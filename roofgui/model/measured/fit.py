"""Calibration from imported kernels: each chip's achievable fractions fitted from the
kernels measured on it, and how far its roofline is from them before and after.

Each kernel with both FLOPs and HBM bytes is one row of :func:`~roofgui.model.calibrate.fit`:
``T_math`` its FLOPs over the peak it runs against (its dtype's, on its unit, as
:func:`~roofgui.model.measured.roof.chip_peak` picks), ``T_hbm`` its bytes over the chip's
HBM bandwidth, and its measured time (the median of one launch).  Kernels of two or more
dtypes get a compute fraction per dtype (the memory fraction is shared) when two or more
of them have compute-bound kernels; otherwise one compute fraction serves every dtype.  The fit allows a
floor time (launch overhead) so that tiny kernels do not drag the fractions down; the floor
is not part of a derate, and the error after is that of the derated roofline alone.

The error is the mean absolute percentage error of the bound (``max(T_math, T_hbm)``, or
the derated ``max(T_math / f_compute, T_hbm / f_memory)``) against the measured times.
A roof with no kernel under it is not fitted and left at 1 (not derated).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Sequence

from roofgui.model.calibrate import Fractions, fit, predict
from roofgui.model.chips import Chip
from roofgui.model.derate import VECTOR, Derate, fraction_problem
from roofgui.model.measured.record import Kernel
from roofgui.model.measured.roof import chip_peak


@dataclass(frozen=True)
class ChipFit:
    """The fit of one chip's kernels."""

    #: the chip as its spec states it (never a derated one)
    chip: Chip
    fractions: Fractions
    #: kernels fitted, and kernels left out (no FLOPs or no bytes)
    count: int
    skipped: int
    #: (dtype key, kernels) of each dtype fitted
    dtypes: tuple[tuple[str, int], ...]
    #: MAPE of the plain and of the derated roofline against the measured times
    error_before: float | None
    error_after: float | None

    @property
    def compute(self) -> float:
        """The compute fraction a derate would apply (1: not fitted)."""
        return 1.0 if self.fractions.compute is None else self.fractions.compute

    @property
    def memory(self) -> float:
        return 1.0 if self.fractions.memory is None else self.fractions.memory

    def problem(self) -> str | None:
        """Why this fit cannot be applied as a derate (None: it can)."""
        if not self.count:
            return "no kernel with both FLOPs and bytes"
        for what, v in (("compute", self.compute), ("memory", self.memory),
                        *((f"{k} compute", v) for k, v in self.fractions.by_group)):
            p = fraction_problem(v)
            if p:
                return f"{what} fraction {p}"
        return None

    def derate(self, name: str) -> Derate:
        """This fit as a named derate of its chip."""
        n = f"{self.count} kernel{'s' if self.count != 1 else ''}"
        return Derate(name, self.chip.id, self.compute, self.memory, dict(self.fractions.by_group),
                      f"fitted from {n} measured on {self.chip.name}")


def kernel_row(kernel: Kernel, chip: Chip) -> tuple[float, float, float, str] | None:
    """(T_math, T_hbm, measured seconds, dtype key) of a kernel on a chip; None without
    FLOPs or bytes."""
    if not kernel.flops or not kernel.hbm_bytes:
        return None
    peak, key, unit = chip_peak(chip, kernel)
    group = key if unit == "matrix" else VECTOR + key
    return kernel.flops / peak, kernel.hbm_bytes / chip.hbm_bandwidth.value, kernel.seconds, group


def fit_chip(chip: Chip, kernels: Sequence[Kernel]) -> ChipFit:
    """Fit one chip's fractions from the kernels measured on it (see the module's text)."""
    rows = [r for r in (kernel_row(k, chip) for k in kernels) if r is not None]
    skipped = len(kernels) - len(rows)
    if not rows:
        return ChipFit(chip, Fractions(None, None), 0, skipped, (), None, None)
    groups = [g for *_, g in rows]
    kinds = sorted(set(groups))
    f = fit([r[:3] for r in rows], floor=True, groups=groups if len(kinds) > 1 else None)
    if len(f.by_group) < 2:  # one dtype with compute-bound kernels: its fraction is all there is
        f = replace(f, by_group=())
    bare = replace(f, floor=None, compute=1.0 if f.compute is None else f.compute,
                   memory=1.0 if f.memory is None else f.memory)
    before = _mape([max(x, y) for x, y, _, _ in rows], rows)
    after = _mape([predict(x, y, bare, g if len(kinds) > 1 else None)
                   for x, y, _, g in rows], rows)
    return ChipFit(chip, f, len(rows), skipped,
                   tuple((k, groups.count(k)) for k in kinds), before, after)


def _mape(predicted: Sequence[float], rows) -> float:
    return sum(abs(p - r[2]) / r[2] for p, r in zip(predicted, rows)) / len(rows)


def fit_chips(kernels: Sequence[tuple[Chip, Kernel]]) -> list[ChipFit]:
    """One fit per chip of ``(chip, kernel)`` pairs, in the order the chips first come."""
    by_chip: dict[str, tuple[Chip, list[Kernel]]] = {}
    for chip, k in kernels:
        by_chip.setdefault(chip.id, (chip, []))[1].append(k)
    return [fit_chip(chip, ks) for chip, ks in by_chip.values()]
