"""Accelerator descriptions: peak FLOP/s per dtype, memory, links, each figure cited.

A chip is read from a TOML file by :mod:`.chip_file` (schema in ``specs/README.md``)
or built from plain numbers by :func:`make_chip`.
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass, replace
from typing import Any, Mapping

from roofgui.model.dtypes import PEAK_FALLBACK, PEAK_KEYS
from roofgui.model.errors import ModelError
from roofgui.model.units import WHAT_IF_MAX, WHAT_IF_MIN, check_positive

FORMAT_VERSION = 1
LINK_NAMES = ("ici", "nvlink", "xgmi", "neuronlink", "pcie", "dcn", "ethernet")
#: Links a chip's scale-up domain uses (fastest first in ties); "scale-up" picks each chip's own.
SCALE_UP_LINKS = ("ici", "nvlink", "xgmi", "neuronlink", "ethernet")
SCALE_UP = "scale-up"
#: Names an op's sharding may name: a concrete link, or each chip's own scale-up link.
SHARD_LINKS = LINK_NAMES + (SCALE_UP,)
KINDS = ("TPU", "GPU", "Accelerator")
#: Chip files larger than this are refused before parsing.
MAX_FILE_BYTES = 256 * 1024
#: Smallest figure a chip file may state (FLOP/s, B/s, bytes): with the 1e21 ceiling and the
#: what-if range, every ratio and time the model forms stays finite.
MIN_FIGURE = 1.0
#: Smallest achievable fraction of peak.
MIN_FRACTION = 1e-3
#: On-chip memory levels a chip file may list, nearest the compute units first.  A
#: "staging" level holds the tiles the matrix unit reads (GPU shared memory, AMD LDS,
#: TPU VMEM); a "cache" level sits between the staging level and HBM.
LEVEL_ROLES = {"smem": "staging", "lds": "staging", "vmem": "staging", "tmem": "staging",
               "l2": "cache", "cmem": "cache", "mall": "cache"}
LEVEL_IDS = tuple(LEVEL_ROLES)
#: What a level's bandwidth figure is: a vendor's published figure, or a published
#: microbenchmark measurement.
LEVEL_KINDS = ("vendor", "microbenchmark")


@dataclass(frozen=True)
class Figure:
    """One cited number."""

    value: float
    source: str = ""
    sparsity_halved: bool = False
    note: str = ""
    alternatives: str = ""

    def scaled(self, factor: float, why: str) -> "Figure":
        if factor == 1.0:
            return self
        note = f"{self.note}; {why}" if self.note else why
        return replace(self, value=self.value * factor, note=note)


@dataclass(frozen=True)
class Link:
    """A chip-to-chip link: one-way bandwidth per chip per direction."""

    name: str
    bandwidth: Figure
    description: str = ""


@dataclass(frozen=True)
class MemoryLevel:
    """An on-chip memory level: its bandwidth (all units together) and capacity.

    Either figure may be missing (no public number): a level without a bandwidth draws
    no roof but still checks a tile against its capacity.  ``scope`` says what the
    capacity covers ("per SM", "per XCD", "per chip").
    """

    id: str
    name: str
    kind: str
    bandwidth: Figure | None = None
    capacity: Figure | None = None
    scope: str = "per chip"

    @property
    def role(self) -> str:
        return LEVEL_ROLES[self.id]


@dataclass(frozen=True)
class Peak:
    """A peak looked up for a dtype, with what was actually used."""

    value: float
    key: str
    unit: str
    note: str = ""


@dataclass(frozen=True)
class Chip:
    """An accelerator.  All figures are per chip."""

    id: str
    name: str
    vendor: str
    kind: str
    matrix: Mapping[str, Figure]
    vector: Mapping[str, Figure]
    hbm_capacity: Figure
    hbm_bandwidth: Figure
    links: Mapping[str, Link]
    sources: Mapping[str, str]
    achievable: Figure | None = None
    summary: str = ""
    #: on-chip memory levels, nearest the compute units first
    levels: tuple[MemoryLevel, ...] = ()
    path: str = ""
    builtin: bool = True
    #: what-if multipliers already applied (peak, hbm, link), for legends
    what_if: tuple[float, float, float] = (1.0, 1.0, 1.0)

    # -- lookups -----------------------------------------------------------
    def peak(self, key: str, unit: str = "matrix") -> Peak:
        """Peak FLOP/s for a dtype peak key on a unit, with fallbacks.

        Raises
        ------
        ModelError
            If the chip publishes no figure that can serve.
        """
        table = self.matrix if unit == "matrix" else self.vector
        if key in table:
            return Peak(table[key].value, key, unit)
        for alt in PEAK_FALLBACK.get(key, ()):
            if alt in table:
                return Peak(table[alt].value, alt, unit,
                            f"{self.name} publishes no {key} {unit} peak; using its {alt} peak "
                            f"(an estimate, not a published rate)")
        if unit == "vector" and "fp32" in table:
            # Vector units compute narrow types at least at their fp32 rate.
            return Peak(table["fp32"].value, "fp32", unit,
                        f"{self.name} publishes no {key} vector peak; using its fp32 vector peak")
        if unit == "vector":
            # No published vector figure: the matrix peak is the only number we have.
            p = self.peak(key, "matrix")
            return Peak(p.value, p.key, "matrix",
                        f"{self.name} publishes no vector-unit peak; using its {p.key} matrix peak")
        raise ModelError(f"{self.name} has no {key} {unit} peak in its spec", "compute dtype")

    def link(self, name: str) -> Link:
        """A link by name; ``"scale-up"`` is the chip's fastest scale-up link."""
        if name == SCALE_UP:
            ups = [self.links[n] for n in SCALE_UP_LINKS if n in self.links]
            if not ups:
                have = ", ".join(self.links) or "none"
                raise ModelError(f"{self.name} has no scale-up link (it has: {have})", "link")
            return max(ups, key=lambda l: l.bandwidth.value)
        try:
            return self.links[name]
        except KeyError:
            have = ", ".join(self.links) or "none"
            raise ModelError(f"{self.name} has no {name!r} link (it has: {have})", "link") from None

    @property
    def critical_intensity(self) -> float:
        """bf16 (else best available) matrix peak over HBM bandwidth."""
        return self.peak("bf16").value / self.hbm_bandwidth.value

    def headline_peak(self) -> Peak:
        return self.peak("bf16")

    def scaled(self, peak: float = 1.0, hbm: float = 1.0, link: float = 1.0) -> "Chip":
        """A copy with what-if multipliers applied to peaks, HBM and link bandwidths."""
        for n, v in (("peak", peak), ("hbm", hbm), ("link", link)):
            if isinstance(v, bool) or not (isinstance(v, numbers.Real) and math.isfinite(v) and v > 0):
                raise ModelError(f"what-if multiplier must be a positive number (got {v!r})", n)
            if not WHAT_IF_MIN <= v <= WHAT_IF_MAX:
                raise ModelError(f"what-if multiplier must be between {WHAT_IF_MIN:g} and "
                                 f"{WHAT_IF_MAX:g} (got {v:g})", n)
        peak, hbm, link = float(peak), float(hbm), float(link)
        if peak == hbm == link == 1.0:
            return self
        why = "what-if ×{:g}"
        return replace(
            self,
            matrix={k: f.scaled(peak, why.format(peak)) for k, f in self.matrix.items()},
            vector={k: f.scaled(peak, why.format(peak)) for k, f in self.vector.items()},
            hbm_bandwidth=self.hbm_bandwidth.scaled(hbm, why.format(hbm)),
            links={k: replace(l, bandwidth=l.bandwidth.scaled(link, why.format(link)))
                   for k, l in self.links.items()},
            what_if=(self.what_if[0] * peak, self.what_if[1] * hbm, self.what_if[2] * link),
        )

    def label(self) -> str:
        """Display name with any what-if multipliers, for legends."""
        parts = [f"{n}×{v:g}" for n, v in zip(("peak", "HBM", "link"), self.what_if) if v != 1.0]
        return f"{self.name} ({', '.join(parts)})" if parts else self.name


def make_chip(id: str, name: str, *, peak: float, hbm_bandwidth: float, hbm_capacity: float = 16e9,
              links: Mapping[str, float] | None = None, matrix: Mapping[str, float] | None = None,
              vector: Mapping[str, float] | None = None, source: str = "user") -> Chip:
    """Build a chip from plain numbers (tests, what-ifs, hand-entered chips).

    Raises
    ------
    ModelError
        If a figure is not a positive finite number, or a dtype or link name is unknown.
    """

    def ok(v: Any, key: str) -> float:
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            raise ModelError(f"must be a number, not {type(v).__name__}", key)
        return check_positive(float(v), key, max_value=1e21, min_value=MIN_FIGURE)

    ok(peak, "peak")
    ok(hbm_bandwidth, "hbm_bandwidth")
    ok(hbm_capacity, "hbm_capacity")
    for table, entries in (("matrix", matrix), ("vector", vector)):
        for k, v in (entries or {}).items():
            if k not in PEAK_KEYS:
                raise ModelError(f"unknown dtype {k!r} (allowed: {', '.join(PEAK_KEYS)})", f"{table}.{k}")
            ok(v, f"{table}.{k}")
    for k, v in (links or {}).items():
        if k not in LINK_NAMES:
            raise ModelError(f"unknown link {k!r} (allowed: {', '.join(LINK_NAMES)})", f"links.{k}")
        ok(v, f"links.{k}")
    src = {source: source}
    mat = {"bf16": Figure(peak, source)}
    mat.update({k: Figure(v, source) for k, v in (matrix or {}).items()})
    return Chip(id=id, name=name, vendor="", kind="Accelerator", matrix=mat,
                vector={k: Figure(v, source) for k, v in (vector or {}).items()},
                hbm_capacity=Figure(hbm_capacity, source), hbm_bandwidth=Figure(hbm_bandwidth, source),
                links={k: Link(k, Figure(v, source)) for k, v in (links or {}).items()},
                sources=src, builtin=False)
