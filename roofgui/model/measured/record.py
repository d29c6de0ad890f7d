"""The common record of every measured-kernel format, and the error every parser raises.

A :class:`Kernel` is one kernel as a profiler measured it: how many launches were seen,
the median time of one launch, and the median of each count over the launches (FLOPs,
bytes moved to and from HBM/DRAM, L2 and L1 bytes).  A count the file does not give is
``None``, never a guessed zero.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass, field
from typing import Iterable, Mapping, Sequence

from roofgui.model.errors import ModelError

#: Format names, as :attr:`Kernel.format` and :attr:`MeasuredSet.format` give them.
NCU = "ncu"
ROCPROF = "rocprof-compute"
ROCPROF_ROOFLINE = "rocprof-compute-roofline"
XPROF = "xprof"
KINETO = "kineto"
PLAIN = "plain"
FORMATS = (NCU, ROCPROF, ROCPROF_ROOFLINE, XPROF, KINETO, PLAIN)


class MeasurementError(ModelError):
    """A measurement file that cannot be read: names the file, the line and the column
    (both 1-based; the column is the CSV field, or the character in a JSON file)."""

    def __init__(self, path: str, line: int, column: int, problem: str) -> None:
        self.path = path
        self.line = line
        self.column = column
        self.problem = problem
        ModelError.__init__(self, f"{path}:{line}:{column}: {problem}")

    def __str__(self) -> str:
        return self.args[0]


@dataclass(frozen=True)
class Kernel:
    """One measured kernel: its launches grouped, each figure the median over them."""

    name: str
    count: int
    #: median seconds of one launch
    seconds: float
    flops: float | None
    hbm_bytes: float | None
    l2_bytes: float | None = None
    l1_bytes: float | None = None
    #: a dtype name of :mod:`roofgui.model.dtypes`, when the file shows it
    dtype: str | None = None
    #: the chip as the file names it (a device name or a chip id), when it does
    chip: str | None = None
    format: str = PLAIN
    #: "matrix" (tensor/matrix cores did most FLOPs), "vector", or None when unknown
    unit: str | None = None
    #: the framework op that launched it (Kineto), and its input shapes, when known
    op: str | None = None
    shape: str | None = None

    @property
    def achieved_flops(self) -> float | None:
        return achieved_flops(self)

    @property
    def achieved_bandwidth(self) -> float | None:
        return achieved_bandwidth(self)

    @property
    def intensity(self) -> float | None:
        return intensity(self)


def achieved_flops(k: Kernel) -> float | None:
    """FLOP/s of one launch (None when the FLOPs are unknown)."""
    return None if k.flops is None else k.flops / k.seconds


def achieved_bandwidth(k: Kernel) -> float | None:
    """HBM bytes/s of one launch (None when the bytes are unknown)."""
    return None if k.hbm_bytes is None else k.hbm_bytes / k.seconds


def intensity(k: Kernel) -> float | None:
    """FLOPs per HBM byte (None when either is unknown or no byte moved)."""
    if k.flops is None or not k.hbm_bytes:
        return None
    return k.flops / k.hbm_bytes


@dataclass(frozen=True)
class MeasuredSet:
    """Every kernel of one file, in the order each was first seen."""

    source: str
    format: str
    kernels: tuple[Kernel, ...]
    #: the device the file says it measured (a name such as "NVIDIA H100 80GB HBM3", or a
    #: chip id in a plain CSV), when it says one
    chip: str | None = None
    #: measured ceilings the file states (rocprof-compute's roofline.csv): FLOP/s and B/s
    ceilings: Mapping[str, float] = field(default_factory=dict)

    def __len__(self) -> int:
        return len(self.kernels)

    def __iter__(self):
        return iter(self.kernels)


@dataclass
class Launch:
    """One launch as a parser reads it, before launches of one kernel are grouped."""

    key: tuple
    name: str
    seconds: float
    flops: float | None = None
    hbm_bytes: float | None = None
    l2_bytes: float | None = None
    l1_bytes: float | None = None
    dtype: str | None = None
    unit: str | None = None
    op: str | None = None
    shape: str | None = None
    #: the chip this launch ran on, when the file names one per row
    chip: str | None = None
    #: launches this record stands for (a profiler row may summarise several)
    count: int = 1
    #: where the launch's time was read, for an error that names it
    line: int = 1
    column: int = 1


def _median(values: Sequence[float | None]) -> float | None:
    known = [v for v in values if v is not None]
    if len(known) != len(values) or not known:
        return None  # a count missing from one launch is unknown for the kernel
    return float(statistics.median(known))


def _common(values: Iterable[str | None]) -> str | None:
    seen = {v for v in values}
    return seen.pop() if len(seen) == 1 else None


def group_launches(launches: Sequence[Launch], fmt: str, chip: str | None,
                   path: str) -> tuple[Kernel, ...]:
    """Group launches by key (first-seen order): count, median time, median of each count
    (the median over the records, each a launch or a profiler's summary of several).

    Raises
    ------
    MeasurementError
        At the first launch whose time is not a positive finite number.
    """
    groups: dict[tuple, list[Launch]] = {}
    for launch in launches:
        if not (launch.seconds > 0 and launch.seconds < float("inf")):
            raise MeasurementError(path, launch.line, launch.column,
                                   f"{launch.name}: time must be greater than zero "
                                   f"(got {launch.seconds:g} s)")
        groups.setdefault(launch.key, []).append(launch)
    out = []
    for group in groups.values():
        first = group[0]
        out.append(Kernel(
            name=first.name, count=sum(g.count for g in group),
            seconds=float(statistics.median(g.seconds for g in group)),
            flops=_median([g.flops for g in group]),
            hbm_bytes=_median([g.hbm_bytes for g in group]),
            l2_bytes=_median([g.l2_bytes for g in group]),
            l1_bytes=_median([g.l1_bytes for g in group]),
            dtype=_common(g.dtype for g in group), chip=first.chip or chip, format=fmt,
            unit=_common(g.unit for g in group), op=first.op, shape=first.shape))
    return tuple(out)
