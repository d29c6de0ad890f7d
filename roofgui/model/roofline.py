"""The roofline: times, bounds, intensities and critical values of an op on a chip.

T_math   = FLOPs / peak FLOP/s
T_hbm    = HBM bytes / HBM bandwidth
T_net    = link bytes / link bandwidth (one-way, per chip)
T_comms  = max(T_hbm, T_net)            memory and link transfers use separate engines
T_lower  = max(T_math, T_comms)         perfect overlap of compute and communication
T_upper  = T_math + T_comms             no overlap; so T_lower ≤ T_upper ≤ 2·T_lower

Every function takes numbers or numpy arrays of any broadcastable shapes: a sweep of
thousands of points on several chips is one call.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from functools import cached_property
from typing import Callable, Mapping, Sequence

import numpy as np

from roofgui.model.chips import Chip, Peak
from roofgui.model.ops import OpKind, Shard, Work, get_kind, op_work

BOUNDS = ("compute", "memory", "network")


@dataclass(frozen=True)
class Settings:
    """Run-wide knobs: what-if multipliers and achievable-peak derating."""

    peak: float = 1.0
    hbm: float = 1.0
    link: float = 1.0
    derate: bool = False


@dataclass(frozen=True)
class ChipFigures:
    """The figures of one chip that an op runs against, after what-ifs and derating."""

    chip: Chip
    peak: float
    peak_info: Peak
    hbm_bandwidth: float
    link_bandwidth: float | None
    derate_fraction: float
    notes: tuple[str, ...] = ()
    #: the link actually used (a "scale-up" request resolves to the chip's own link)
    link_name: str | None = None

    @property
    def critical_intensity(self) -> float:
        return self.peak / self.hbm_bandwidth

    @property
    def net_critical_intensity(self) -> float | None:
        return None if not self.link_bandwidth else self.peak / self.link_bandwidth


def chip_figures(chip: Chip, work: Work, settings: Settings = Settings()) -> ChipFigures:
    """Pick the peak for the op's unit and compute dtype, the HBM and link bandwidths."""
    scaled = chip.scaled(settings.peak, settings.hbm, settings.link)
    info = scaled.peak(work.compute.peak_key, work.unit)
    notes = [info.note] if info.note else []
    frac = 1.0
    if settings.derate:
        if chip.achievable is not None:
            frac = chip.achievable.value
            notes.append(f"peak derated to {frac:.0%} achievable ({chip.achievable.source})")
        else:
            notes.append(f"{chip.name} states no achievable fraction; peak not derated")
    link_bw = None
    link_name = None
    if work.link:
        link = scaled.link(work.link)
        link_bw, link_name = link.bandwidth.value, link.name
        if link_name != work.link:
            notes.append(f"shards talk over {chip.name}'s own scale-up link: {link_name}")
    return ChipFigures(scaled, info.value * frac, info, scaled.hbm_bandwidth.value, link_bw, frac,
                       tuple(notes), link_name)


@dataclass(frozen=True)
class Result:
    """Every figure of an op on a chip.  Fields are numpy arrays (0-d for scalars)."""

    flops: np.ndarray
    hbm_bytes: np.ndarray
    net_bytes: np.ndarray
    peak_flops: np.ndarray
    hbm_bandwidth: np.ndarray
    link_bandwidth: np.ndarray  # 0 when no link
    t_math: np.ndarray
    t_hbm: np.ndarray
    t_net: np.ndarray
    t_comms: np.ndarray
    t_lower: np.ndarray
    t_upper: np.ndarray
    intensity: np.ndarray  # FLOPs per HBM byte
    net_intensity: np.ndarray  # FLOPs per link byte (inf when nothing is sent)
    critical_intensity: np.ndarray
    net_critical_intensity: np.ndarray  # inf when no link
    attainable_flops: np.ndarray
    utilisation: np.ndarray
    bound_code: np.ndarray  # 0 compute, 1 memory, 2 network

    def rows(self) -> list["Result"]:
        """Each chip's figures, from a result with a leading chip axis."""
        cols = [getattr(self, f.name) for f in fields(self)]
        return [Result(*(c[j, ...] for c in cols)) for j in range(len(cols[0]))]

    @property
    def bound(self) -> np.ndarray | str:
        names = np.asarray(BOUNDS, dtype=object)[self.bound_code]
        return str(names) if np.ndim(names) == 0 else names


def roofline(flops, hbm_bytes, net_bytes, peak, hbm_bw, link_bw) -> Result:
    """The roofline arithmetic, broadcast over any array shapes.

    Parameters
    ----------
    flops, hbm_bytes, net_bytes:
        Work per chip.
    peak, hbm_bw, link_bw:
        Chip figures; ``link_bw`` may be 0 when nothing crosses a link (then
        ``net_bytes`` must be 0).

    Returns
    -------
    Result
        Every field has the inputs' broadcast shape (a read-only view).
    """
    flops, hbm_bytes, net_bytes, peak, hbm_bw, link_bw = (
        np.asarray(a, dtype=np.float64) for a in (flops, hbm_bytes, net_bytes, peak, hbm_bw, link_bw))
    with np.errstate(divide="ignore", invalid="ignore"):
        t_math, t_hbm, t_net = _times(flops, hbm_bytes, net_bytes, peak, hbm_bw, link_bw)
        t_comms = np.maximum(t_hbm, t_net)
        t_lower = np.maximum(t_math, t_comms)
        t_upper = t_math + t_comms
        intensity = flops / hbm_bytes
        sends = net_bytes > 0
        net_intensity = np.where(sends, flops / np.where(sends, net_bytes, 1.0), np.inf)
        crit = peak / hbm_bw
        linked = link_bw > 0
        net_crit = np.where(linked, peak / np.where(linked, link_bw, 1.0), np.inf)
        attainable = flops / t_lower
        util = t_math / t_lower
    code = np.where(t_math >= t_comms, 0, np.where(t_hbm >= t_net, 1, 2)).astype(np.int8)
    arrays = np.broadcast_arrays(flops, hbm_bytes, net_bytes, peak, hbm_bw, link_bw, t_math, t_hbm,
                                 t_net, t_comms, t_lower, t_upper, intensity, net_intensity, crit,
                                 net_crit, attainable, util, code)
    return Result(*(_read_only(a) for a in arrays))


def _times(flops, hbm_bytes, net_bytes, peak, hbm_bw, link_bw) -> tuple[np.ndarray, ...]:
    """T_math, T_hbm and T_net (0 where nothing is sent; call under ``np.errstate``)."""
    t_math = flops / peak
    t_hbm = hbm_bytes / hbm_bw
    t_net = np.where(net_bytes > 0, net_bytes / np.where(link_bw > 0, link_bw, np.inf), 0.0)
    return t_math, t_hbm, t_net


def _read_only(a: np.ndarray) -> np.ndarray:
    """A read-only view of ``a`` (the caller's own arrays stay writeable)."""
    v = a.view()
    v.flags.writeable = False
    return v


def evaluate_work(work: Work, figures: ChipFigures) -> Result:
    return roofline(work.flops, work.hbm_bytes, work.net_bytes, figures.peak,
                    figures.hbm_bandwidth, figures.link_bandwidth or 0.0)


def evaluate_many(work: Work, chips: Sequence[Chip], settings: Settings = Settings()) -> Result:
    """One op against many chips at once: arrays gain a leading chip axis."""
    return evaluate_figures(work, [chip_figures(c, work, settings) for c in chips])


def evaluate_figures(work: Work, figures: Sequence[ChipFigures]) -> Result:
    """:func:`evaluate_many` for chip figures already looked up: one roofline call."""
    shape = (len(figures),) + (1,) * np.ndim(work.flops)
    peak, hbm, link = (a.reshape(shape) for a in _figure_columns(figures))
    return roofline(work.flops, work.hbm_bytes, work.net_bytes, peak, hbm, link)


def _figure_columns(figures: Sequence[ChipFigures]) -> tuple[np.ndarray, ...]:
    """The peaks, HBM bandwidths and link bandwidths (0 for none) of the chips, as arrays."""
    return (np.array([f.peak for f in figures], dtype=np.float64),
            np.array([f.hbm_bandwidth for f in figures], dtype=np.float64),
            np.array([f.link_bandwidth or 0.0 for f in figures], dtype=np.float64))


@dataclass(frozen=True)
class Analysis:
    """One op (one phase) on one chip: the result, the chip figures and critical values.

    ``critical_of``: the critical values, or a function that makes them when first read
    (a window's plot needs the result alone: the results panel reads them after it paints).
    """

    chip: Chip
    figures: ChipFigures
    work: Work
    result: Result
    critical_of: Mapping[str, float | None] | Callable[[], Mapping[str, float | None]] = field(
        default_factory=dict, compare=False, repr=False)

    @cached_property
    def critical(self) -> Mapping[str, float | None]:
        """For each dimension, the value at which the op turns compute-bound (None: none)."""
        src = self.critical_of
        return src() if callable(src) else src


def analyze(kind: OpKind | str, dims: Mapping[str, float], chip: Chip, *,
            dtypes: Mapping[str, str] | None = None, shard: Shard | None = None,
            params: Mapping | None = None, settings: Settings = Settings(),
            phase: str = "") -> Analysis:
    """Evaluate an op on a chip, with the critical value of every dimension."""
    k = get_kind(kind) if isinstance(kind, str) else kind
    work = op_work(k, dims, dtypes, shard, params, phase)
    figs = chip_figures(chip, work, settings)
    res = evaluate_work(work, figs)
    crit = critical_values(k, dims, figs, dtypes=dtypes, shard=shard, params=params, phase=phase)
    return Analysis(figs.chip, figs, work, res, crit)


def critical_values(kind: OpKind, dims: Mapping[str, float], figures: ChipFigures, *,
                    dtypes: Mapping[str, str] | None = None, shard: Shard | None = None,
                    params: Mapping | None = None, phase: str = "") -> dict[str, float | None]:
    """For each dimension, the value at which T_math equals the largest comms time.

    Every time is affine in each single dimension (the others held fixed), so
    evaluating at two probe points gives each time's slope and intercept
    exactly; the op is compute-bound where ``T_math ≥ T_k`` for every comms
    level ``k``, a half-line per level.  The answer is where that set begins
    (or ends, if it is bounded above); ``None`` when the op is never
    compute-bound, or always is, along that dimension.

    The other dimensions may be numpy arrays: the critical value of each
    dimension is then an array over their broadcast shape, NaN where there
    is none.  With scalar dimensions every value is a float or ``None``.
    """
    return critical_values_many(kind, dims, [figures], dtypes=dtypes, shard=shard,
                                params=params, phase=phase)[0]


def critical_values_many(kind: OpKind, dims: Mapping[str, float], figures: Sequence[ChipFigures], *,
                         dtypes: Mapping[str, str] | None = None, shard: Shard | None = None,
                         params: Mapping | None = None, phase: str = "",
                         names: Sequence[str] | None = None) -> list[dict[str, float | None]]:
    """:func:`critical_values` for several chips at once (``names``: only these dimensions).

    The probes do not depend on the chip, nor on each other: every dimension is probed in
    one count of the work, along a leading axis (one row per dimension probed), and
    evaluated against every chip along an axis before it.
    """
    figs = list(figures)
    out: list[dict[str, float | None]] = [{} for _ in figs]
    wanted = [n for n in kind.dim_names() if names is None or n in names]
    if not figs or not wanted:
        return out
    base = {d.name: np.asarray(dims.get(d.name, d.default), dtype=np.float64) for d in kind.dims}
    other = np.broadcast_shapes(*(v.shape for v in base.values()))
    rows = (len(wanted),) + (1,) * len(other) + (1,)  # (dimension probed, *other, probe)
    probe = {}
    for name, v in base.items():
        v = np.broadcast_to(v, other)[..., None]
        if name in wanted:  # its own row probes it; the other rows keep its value
            own = (np.arange(len(wanted)) == wanted.index(name)).reshape(rows)
            v = np.where(own, _PROBES, v)
        probe[name] = v
    w = op_work(kind, probe, dtypes, shard, params, phase)
    full = (len(figs), len(wanted)) + other + (2,)
    peak, hbm, link = (a.reshape((len(figs),) + (1,) * (len(full) - 1))
                       for a in _figure_columns(figs))
    with np.errstate(divide="ignore", invalid="ignore"):
        times = _times(w.flops, w.hbm_bytes, w.net_bytes, peak, hbm, link)
    x = _crossing(np.stack([np.broadcast_to(t, full) for t in times]))  # (chips, dims, *other)
    for i, name in enumerate(wanted):
        # over the other dimensions' shape only: where only this one varies, it is constant
        own = np.broadcast_shapes(*(v.shape for k, v in base.items() if k != name))
        cut = (len(other) - len(own)) * (0,) + tuple(
            slice(None) if n > 1 else slice(0, 1) for n in own)
        for d, per_dim in zip(out, x[:, i]):
            v = per_dim[cut].reshape(own)
            d[name] = v if v.ndim else (float(v) if np.isfinite(v) else None)
    return out


#: The two points each dimension is probed at to read off slopes and intercepts.
#: Far apart, so the slope is not lost to cancellation against a large intercept.
_PROBE_LO, _PROBE_HI = 1.0, 2.0**20
_PROBES = np.array([_PROBE_LO, _PROBE_HI])
#: Relative tolerance below which two slopes, or two intercepts, count as equal.
_REL_TOL = 1e-9


def _crossing(t: np.ndarray) -> np.ndarray:
    """Where ``t[0]`` (T_math, affine in x) starts (or stops) exceeding every comms time
    ``t[1:]`` (T_hbm, T_net).

    Each time has a trailing axis of 2: the times at the two probe points.  Returns an
    array over the axes between, NaN where there is no crossing.  The compute-bound set
    is the intersection of one half-line per comms level, so its start is the largest of
    the levels' lower ends (from 0) and its end the smallest of their upper ends (from ∞),
    NaN if any is NaN, whatever the order.
    """
    # Slopes and intercepts of T_math (row 0) and every comms level (rows 1…) at once.
    slope = (t[..., 1] - t[..., 0]) / (_PROBE_HI - _PROBE_LO)
    icept = t[..., 0] - slope * _PROBE_LO
    abs_slope, abs_t0 = np.abs(slope), np.abs(t[..., 0])
    m1, m0 = slope[0], icept[0]
    a = m1 - slope[1:]  # compute-bound against each level where a·x ≥ rhs
    rhs = icept[1:] - m0
    flat = np.abs(a) <= _REL_TOL * np.maximum(abs_slope[0], abs_slope[1:])
    # Intercepts equal to within rounding of the values they came from: they are equal.
    zero = np.abs(rhs) <= _REL_TOL * (abs_t0[0] + abs_t0[1:])
    rhs = np.where(zero, 0.0, rhs)
    never = (flat & (rhs > 0)).any(axis=0)
    with np.errstate(divide="ignore", invalid="ignore"):
        x = np.where(flat, 0.0, rhs / np.where(flat, 1.0, a))
    sloped = ~flat
    lo = np.where(sloped & (a > 0), x, 0.0).max(axis=0, initial=0.0)
    hi = np.where(sloped & (a < 0), x, np.inf).min(axis=0, initial=np.inf)
    res = np.where(lo > 0, lo, np.where(np.isfinite(hi), hi, np.nan))
    return np.where(never | (lo >= hi) | (res <= 0), np.nan, res)
