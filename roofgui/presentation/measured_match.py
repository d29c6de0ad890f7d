"""Measured kernels read against the scenario: the chip each runs on, the analytic op it
matches, and what the window's hover and table say of it (pure Python, no Qt).

* :func:`resolve_chip` -- the checked chip a file's device name ("NVIDIA H100 80GB HBM3",
  "Tesla V100-SXM2-32GB", or a chip id) stands for, else the first checked chip, with a
  note saying which.
* :func:`match_op` -- the scenario's op a kernel matches: by name (case-insensitive, either
  contained in the other, ``_``/``-``/spaces alike), else by shape (a PyTorch profiler
  kernel's recorded input shapes against a matmul's B, D, F).
* :func:`place_kernels` -- every kernel of the imported files placed on its chip
  (:func:`~roofgui.model.measured.roof.place`) with its match and measured / T_lower.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from typing import Iterable, Sequence

from roofgui.model.chips import Chip
from roofgui.model.measured import Kernel, MeasuredSet
from roofgui.model.units import format_si, format_time
from roofgui.model.measured.roof import MeasuredPoint, place
from roofgui.presentation.tooltips import format_intensity

#: The shortest name that matches by containment (a one- or two-letter name would match
#: nearly every op).
MIN_MATCH_CHARS = 3
#: Column titles of the window's "Measured" table, in order (see :meth:`PlacedKernel.cells`).
TABLE_COLUMNS = ("Kernel", "Chip", "Count", "Time", "Achieved FLOP/s", "Bandwidth",
                 "Intensity (FLOP/B)", "Bound", "% of roof", "Matched op", "Measured / T_lower")
_SEPARATORS = re.compile(r"[\s_\-]+")
_TOKEN = re.compile(r"[a-z0-9]+")


def _norm(text: str) -> str:
    return _SEPARATORS.sub(" ", text.lower()).strip()


def _chip_tokens(chip: Chip) -> set[str]:
    """The words of a chip's id and name, and each two neighbours joined ("80 GB": 80gb)."""
    words = _TOKEN.findall(f"{chip.id} {chip.name}".lower())
    return set(words) | {a + b for a, b in zip(words, words[1:])}


# -- chips -----------------------------------------------------------------------------
def chip_score(named: str, chip: Chip) -> int:
    """How well a device name fits a chip: 0 unless its model (a token with letters and
    digits, such as ``h100``, ``mi300x``) is in the chip's id or name; else one point per
    token of the device name found there, plus 100 for the chip's own id."""
    if named.strip().lower() == chip.id.lower():
        return 100
    tokens = _TOKEN.findall(named.lower())
    here = _chip_tokens(chip)
    models = [t for t in tokens if re.search(r"[a-z]", t) and re.search(r"\d", t)
              and not re.fullmatch(r"\d+gb|hbm\d*e?|sxm\d*|pcie\d*", t)]
    if not models or not any(m in here for m in models):
        return 0
    return sum(1 for t in tokens if t in here)


def resolve_chip(named: str | None, checked: Sequence[Chip],
                 catalog: Iterable[Chip] = ()) -> tuple[Chip | None, str]:
    """The checked chip a file's device name stands for, else the first checked chip;
    and a note for the status bar when it is not the chip the file names (empty when it
    is).  ``catalog``: every known chip, to tell "not checked" from "unknown"."""
    if not checked:
        return None, "no chip is checked: measured kernels are not placed"
    first = checked[0]
    if not named:
        return first, f"the file names no chip: placed on the first checked chip, {first.id}"
    best = max(checked, key=lambda c: chip_score(named, c))
    if chip_score(named, best) > 0:
        return best, ""
    known = [c for c in catalog if chip_score(named, c) > 0]
    if known:
        top = max(known, key=lambda c: chip_score(named, c))
        return first, f"{named} is {top.id}, which is not checked: placed on {first.id}"
    return first, f"{named} is not in the catalog: placed on {first.id}"


# -- ops -------------------------------------------------------------------------------
def name_matches(kernel: Kernel, op_name: str) -> bool:
    """Whether the op's name and the kernel's (or its framework op's) name contain one
    another, ignoring case and treating ``_``, ``-`` and spaces alike."""
    a = _norm(op_name)
    for b in (_norm(kernel.name), _norm(kernel.op or "")):
        short = min(a, b, key=len)
        if len(short) >= MIN_MATCH_CHARS and (a in b or b in a):
            return True
    return False


def matmul_dims(shape: str | None) -> list[tuple[int, int, int]]:
    """The (B, D, F) a kernel's recorded input shapes can be: ``X[..., D]`` with
    ``W[..., D, F]`` (mm, addmm, bmm, matmul) or ``W[F, D]`` (linear); B is every leading
    dimension of X multiplied."""
    try:
        shapes = json.loads(shape) if shape else []
    except ValueError:
        return []
    dims = [s for s in shapes if isinstance(s, list) and len(s) >= 2
            and all(isinstance(v, int) and not isinstance(v, bool) for v in s)]
    out = []
    for i, x in enumerate(dims):
        for w in dims[i + 1:]:
            b = math.prod(x[:-1])
            if x[-1] == w[-2]:
                out.append((b, x[-1], w[-1]))
            if len(w) == 2 and x[-1] == w[1]:
                out.append((b, x[-1], w[0]))
    return out


def shape_matches(kernel: Kernel, op) -> bool:
    """Whether a kernel's recorded shapes are the op's B, D, F (whole, or one shard's)."""
    dims = op.full_dims()
    if not {"B", "D", "F"} <= dims.keys():
        return False
    whole = {k: dims[k] for k in ("B", "D", "F")}
    shard = getattr(op, "shard", None)
    options = [whole]
    if shard is not None and shard.axis in whole and shard.n > 1:
        options.append({**whole, shard.axis: whole[shard.axis] / shard.n})
    found = matmul_dims(kernel.shape)
    return any((o["B"], o["D"], o["F"]) == t for o in options for t in found)


def match_op(kernel: Kernel, ops: Sequence) -> tuple[int, str] | None:
    """(index of the op, "name" or "shape") the kernel matches, the first by name, else
    the first by shape; None when none does."""
    for i, op in enumerate(ops):
        if name_matches(kernel, op.name):
            return i, "name"
    for i, op in enumerate(ops):
        if shape_matches(kernel, op):
            return i, "shape"
    return None


@dataclass(frozen=True)
class OpMatch:
    """The analytic op a measured kernel matches, and its bound on the kernel's chip."""

    op_index: int
    op_name: str
    how: str
    #: the op's T_lower on the chip (every phase summed unless the kernel names one), or None
    t_lower: float | None

    def ratio(self, seconds: float) -> float | None:
        return seconds / self.t_lower if self.t_lower else None


def op_t_lower(entries: Iterable, op_index: int, chip_id: str, kernel: Kernel) -> float | None:
    """T_lower of an op on a chip from an evaluation's entries: the phase the kernel's name
    names, else every phase's summed (None when the op has no entry on the chip)."""
    mine = [e for e in entries if e.op_index == op_index and e.chip_id == chip_id]
    named = [e for e in mine if e.phase and _norm(e.phase) in _norm(kernel.name)]
    chosen = named[:1] or mine
    if not chosen:
        return None
    return float(sum(float(e.analysis.result.t_lower) for e in chosen))


# -- placing ---------------------------------------------------------------------------
@dataclass(frozen=True)
class PlacedKernel:
    """One measured kernel on the chip it is shown on, with its match."""

    point: MeasuredPoint
    kernel: Kernel
    source: str
    chip_label: str
    match: OpMatch | None = None

    @property
    def x(self) -> float | None:
        """log10 of the intensity (None when the kernel cannot be placed on the plot)."""
        p = self.point
        if p.intensity is None or p.achieved_flops is None or p.intensity <= 0 \
                or p.achieved_flops <= 0:
            return None
        return math.log10(p.intensity)

    @property
    def y(self) -> float | None:
        """log10 of the achieved FLOP/s (None when the kernel cannot be placed)."""
        return None if self.x is None else math.log10(self.point.achieved_flops)

    @property
    def ratio(self) -> float | None:
        """Measured time over the matched op's T_lower."""
        return None if self.match is None else self.match.ratio(self.point.seconds)

    def roof_text(self) -> str:
        return roof_text(self.point)

    def tooltip(self) -> str:
        return kernel_tooltip(self)

    def cells(self) -> tuple[str, ...]:
        return table_cells(self)


def place_kernels(sets: Sequence[MeasuredSet], checked: Sequence[Chip], ops: Sequence,
                  entries: Iterable = (), catalog: Iterable[Chip] = ()
                  ) -> tuple[list[PlacedKernel], list[str]]:
    """Every kernel of ``sets`` placed on its chip (see :func:`resolve_chip`), matched to
    ``ops`` with T_lower from ``entries``; and one note per file whose kernels are not on
    the chip the file names (or not placed at all)."""
    entries = list(entries)
    catalog = list(catalog)
    placed: list[PlacedKernel] = []
    notes: list[str] = []
    for s in sets:
        said: set[str] = set()
        for k in s.kernels:
            chip, note = resolve_chip(k.chip or s.chip, checked, catalog)
            if note and note not in said:
                said.add(note)
                notes.append(f"{_file_name(s.source)}: {note}")
            if chip is None:
                continue
            m = match_op(k, ops)
            match = None if m is None else OpMatch(
                m[0], ops[m[0]].name, m[1], op_t_lower(entries, m[0], chip.id, k))
            placed.append(PlacedKernel(place(k, chip), k, s.source, chip.label(), match))
    return placed, notes


def _file_name(path: str) -> str:
    return re.split(r"[\\/]", path)[-1]


# -- text ------------------------------------------------------------------------------
def roof_text(p: MeasuredPoint) -> str:
    """The roof the kernel is read against: HBM for a memory-bound kernel (or FLOPs
    unknown), else the compute peak of its dtype and unit."""
    if p.bound == "memory" or p.attainable_flops is None:
        return f"HBM {format_si(p.hbm_bandwidth, 'B/s')}"
    return f"{p.peak_key} {p.unit} peak {format_si(p.peak, 'FLOP/s')}"


def percent(fraction: float | None) -> str:
    """A fraction of the roof as the table and the hover show it."""
    return "\u2014" if fraction is None else f"{fraction:.1%}"


def _opt(value: float | None, fmt) -> str:
    return "\u2014" if value is None else fmt(value)


def kernel_tooltip(pk: PlacedKernel) -> str:
    """Rich text: the kernel, its time, what it achieved, its roof and % of it, and its
    time over the matched op's T_lower."""
    p = pk.point
    rows = [f"<b>{_html(p.name)}</b> (measured, {p.format}) on <b>{_html(pk.chip_label)}</b>",
            f"count: {p.count} \u00b7 time: {format_time(p.seconds)} (median of one launch)",
            f"achieved: {_opt(p.achieved_flops, lambda v: format_si(v, 'FLOP/s'))} \u00b7 "
            f"{_opt(p.achieved_bandwidth, lambda v: format_si(v, 'B/s'))}",
            f"intensity: {_opt(p.intensity, format_intensity)} FLOP/byte"]
    if p.roof_fraction is not None:
        where = {"compute": "compute-bound", "memory": "memory-bound",
                 "unknown": "bound unknown"}[p.bound]
        rows.append(f"<b>{percent(p.roof_fraction)}</b> of {roof_text(p)} ({where})")
        if p.roof_fraction > 1:
            rows.append("<b>above its roof</b>: check the chip, dtype or byte count")
    m = pk.match
    if m is not None:
        ratio = pk.ratio
        said = "no T_lower on this chip" if ratio is None else \
            f"measured / T_lower = <b>{ratio:.2f}\u00d7</b> (T_lower {format_time(m.t_lower)})"
        rows.append(f"matches op <b>{_html(m.op_name)}</b> by {m.how}: {said}")
    return "<br>".join(rows)


def table_cells(pk: PlacedKernel) -> tuple[str, ...]:
    """The kernel's row of the "Measured" table (see :data:`TABLE_COLUMNS`)."""
    p, m = pk.point, pk.match
    return (p.name, p.chip, str(p.count), format_time(p.seconds),
            _opt(p.achieved_flops, lambda v: format_si(v, "FLOP/s")),
            _opt(p.achieved_bandwidth, lambda v: format_si(v, "B/s")),
            _opt(p.intensity, format_intensity), p.bound, percent(p.roof_fraction),
            "" if m is None else f"{m.op_name} ({m.how})",
            _opt(pk.ratio, lambda v: f"{v:.2f}\u00d7"))


def _html(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")

