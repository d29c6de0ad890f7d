"""Tiled matmuls on a memory hierarchy: each level's bytes, intensity, roof and time.

A matmul ``X[B,D]·Y[D,F] → Z[B,F]`` computed in output tiles of ``bm × bn`` (rows of X by
columns of Y) streams, for each output tile, a ``bm × D`` panel of X and a ``D × bn`` panel
of Y through the on-chip staging memory (shared memory, LDS, VMEM), ``bk`` columns at a time.
X is therefore read ``⌈F/bn⌉`` times and Y ``⌈B/bm⌉`` times:

    tile traffic  T = B·D·s_x·⌈F/bn⌉ + D·F·s_w·⌈B/bm⌉ + B·F·s_out
                    = D·s·(B·F/bn + B·F/bm) + B·F·s_out      (s_x = s_w = s, tiles divide)

so the intensity 2·B·D·F / T tends to ``2 / (s·(1/bm + 1/bn))`` for large D (the reference's
``bm·bn/(bm+bn)`` for bf16).  The operands once each are the compulsory traffic

    U = B·D·s_x + D·F·s_w + B·F·s_out       (the untiled op's HBM bytes).

Which level sees which bytes (a two-case model, stated so it can be checked):

* the staging level and the innermost cache level (L2) serve every tile load: ``T``;
* a level further out (Infinity Cache, HBM) sees ``U`` when the operands fit in a cache
  level nearer the compute units (``U ≤`` its capacity), else every tile load, ``T``.

On a TPU (VMEM, no cache) HBM sees ``T``, the issue's tiled HBM traffic.  Capacity checks:
the tile's working set ``bm·bk·s_x + bk·bn·s_w + bm·bn·s_out`` (``bk`` = D when not given)
against each staging level's capacity (per SM/CU/core); ``U`` against each cache level's.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Mapping

from roofgui.model.chips import Chip
from roofgui.model.errors import ModelError
from roofgui.model.ops import Shard, resolve_dtypes, get_kind

#: The tile keys a matmul accepts, and the largest tile side.
TILE_KEYS = ("bm", "bn", "bk")
MAX_TILE = 1 << 20
#: Op kinds a tile applies to.
TILED_KINDS = ("matmul",)


@dataclass(frozen=True)
class Tile:
    """Output tile ``bm × bn``; ``bk`` the contracted slice per step (``None``: all of D)."""

    bm: int
    bn: int
    bk: int | None = None

    def as_dict(self) -> dict[str, int]:
        return {k: v for k, v in (("bm", self.bm), ("bn", self.bn), ("bk", self.bk)) if v is not None}

    def label(self) -> str:
        return "×".join(str(v) for v in self.as_dict().values())


def make_tile(values: Mapping[str, object], field: str = "tile") -> Tile:
    """A :class:`Tile` from ``{"bm": 128, "bn": 128, "bk": 64}`` (whole numbers ≥ 1).

    Raises
    ------
    ModelError
        Naming the key at fault: unknown, missing, not a whole number, out of range.
    """
    if not isinstance(values, Mapping):
        raise ModelError("must be a table like {\"bm\": 128, \"bn\": 128}", field)
    for k in values:
        if k not in TILE_KEYS:
            raise ModelError(f"unknown tile size {k!r} (use bm, bn and optionally bk)", field)
    out: dict[str, int] = {}
    for k in TILE_KEYS:
        if k not in values:
            if k != "bk":
                raise ModelError(f"{k} is missing (give bm and bn, e.g. bm=128,bn=128)", field)
            continue
        v = values[k]
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) \
                or v != int(v) or not 1 <= v <= MAX_TILE:
            got = f"{v:g}" if isinstance(v, (int, float)) and not isinstance(v, bool) else repr(v)
            raise ModelError(f"{k} must be a whole number from 1 to {MAX_TILE} (got {got})", field)
        out[k] = int(v)
    return Tile(out["bm"], out["bn"], out.get("bk"))


def op_tile(tile: object, kind: str) -> dict[str, int] | None:
    """A scenario op's ``tile`` checked (None stays None); only a matmul takes one."""
    if tile is None:
        return None
    if kind not in TILED_KINDS:
        raise ModelError(f"only a {' or '.join(TILED_KINDS)} op takes a tile (this is {kind})")
    return make_tile(tile).as_dict()  # type: ignore[arg-type]


@dataclass(frozen=True)
class LevelPoint:
    """One memory level's view of a tiled op (``bandwidth`` None: no public figure)."""

    level: str
    name: str
    bytes: float
    intensity: float
    bandwidth: float | None
    critical_intensity: float | None
    t: float | None
    capacity: float | None = None
    footprint: float | None = None
    scope: str = "per chip"
    kind: str = "vendor"
    source: str = ""

    @property
    def fits(self) -> bool | None:
        if self.capacity is None or self.footprint is None:
            return None
        return self.footprint <= self.capacity


@dataclass(frozen=True)
class TiledLevels:
    """Every level of a tiled op on one chip, nearest the compute units first, HBM last."""

    flops: float
    t_math: float
    points: tuple[LevelPoint, ...]
    #: the tile traffic T, the operands once U, the tile's working set (bytes), how T and
    #: U were counted (with the numbers), and the cache that holds the operands (if any)
    tiled_bytes: float = 0.0
    once_bytes: float = 0.0
    working_bytes: float = 0.0
    formulas: tuple[str, str, str] = ("", "", "")
    held_by: str | None = None

    @property
    def binding(self) -> LevelPoint | None:
        """The level with the longest time (None if no level has a bandwidth)."""
        timed = [p for p in self.points if p.t is not None]
        return max(timed, key=lambda p: p.t) if timed else None

    @property
    def bound(self) -> str:
        """``"compute"`` or the binding level's id."""
        b = self.binding
        return "compute" if b is None or self.t_math >= b.t else b.level

    def misfits(self) -> list[LevelPoint]:
        return [p for p in self.points if p.fits is False]


def _per_chip(dims: Mapping[str, float], shard: Shard | None) -> tuple[float, float, float]:
    n = {shard.axis: shard.n} if shard is not None else {}
    return tuple(float(dims[a]) / n.get(a, 1) for a in ("B", "D", "F"))  # type: ignore[return-value]


def tiled_matmul_levels(dims: Mapping[str, float], dtypes: Mapping[str, str] | None, tile: Tile,
                        chip: Chip, peak: float, hbm_bandwidth: float,
                        shard: Shard | None = None) -> TiledLevels:
    """Each memory level's bytes, intensity and time for a tiled matmul (scalars only)."""
    dt = resolve_dtypes(get_kind("matmul"), dtypes or {})
    sx, sw, sz = dt["x"].bytes, dt["w"].bytes, dt["out"].bytes
    B, D, F = _per_chip(dims, shard)
    flops = 2.0 * B * D * F
    tiled = B * D * sx * math.ceil(F / tile.bn) + D * F * sw * math.ceil(B / tile.bm) + B * F * sz
    once = B * D * sx + D * F * sw + B * F * sz
    bk = tile.bk if tile.bk is not None else D
    working = tile.bm * bk * sx + bk * tile.bn * sw + tile.bm * tile.bn * sz

    nf, nb = math.ceil(F / tile.bn), math.ceil(B / tile.bm)
    formulas = (f"B·D·{sx:g}·⌈F/bn⌉ + D·F·{sw:g}·⌈B/bm⌉ + B·F·{sz:g} = {B:g}·{D:g}·{sx:g}·{nf} + "
                f"{D:g}·{F:g}·{sw:g}·{nb} + {B:g}·{F:g}·{sz:g}",
                f"B·D·{sx:g} + D·F·{sw:g} + B·F·{sz:g}",
                f"bm·bk·{sx:g} + bk·bn·{sw:g} + bm·bn·{sz:g} with bk = {bk:g}")
    points: list[LevelPoint] = []
    held = None  # the cache level nearer the compute units that holds the operands
    seen_cache = False
    for lv in chip.levels:
        if lv.role == "staging":
            nbytes, footprint = tiled, working
        else:
            nbytes = once if (held is not None and seen_cache) else tiled
            footprint = once
            seen_cache = True
        cap = lv.capacity.value if lv.capacity else None
        bw = lv.bandwidth.value if lv.bandwidth else None
        points.append(_point(lv.id, lv.name, nbytes, flops, peak, bw, cap, footprint, lv.scope,
                             lv.kind, (lv.bandwidth or lv.capacity).source))
        if lv.role == "cache" and cap is not None and once <= cap and held is None:
            held = lv.name
    hbm_bytes = once if held is not None else tiled
    hbm = chip.hbm_bandwidth
    points.append(_point("hbm", "HBM", hbm_bytes, flops, peak, hbm_bandwidth, None, None, "per chip",
                         "vendor", hbm.source))
    return TiledLevels(flops, flops / peak, tuple(points), tiled, once, working, formulas, held)


def _point(level, name, nbytes, flops, peak, bw, cap, footprint, scope, kind, source) -> LevelPoint:
    return LevelPoint(level, name, nbytes, flops / nbytes, bw, None if bw is None else peak / bw,
                      None if bw is None else nbytes / bw, cap, footprint, scope, kind, source)


def analysis_levels(analysis, dims: Mapping[str, float], dtypes: Mapping[str, str] | None,
                    tile: Tile, shard: Shard | None = None) -> TiledLevels:
    """:func:`tiled_matmul_levels` against an :class:`~roofgui.model.roofline.Analysis`'s
    chip figures (its peak after what-ifs and derating, its HBM bandwidth)."""
    f = analysis.figures
    return tiled_matmul_levels(dims, dtypes, tile, f.chip, f.peak, f.hbm_bandwidth, shard)
