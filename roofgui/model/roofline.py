"""The roofline: times, bounds, intensities and critical values of an op on a chip.

T_math   = FLOPs / peak FLOP/s
T_hbm    = HBM bytes / HBM bandwidth
T_net    = link bytes / link bandwidth (one-way, per chip)
T_comms  = max(T_hbm, T_net)            memory and link transfers use separate engines
T_lower  = max(T_math, T_comms)         perfect overlap of compute and communication
T_upper  = T_math + T_comms             no overlap; so T_lower ≤ T_upper ≤ 2·T_lower
"""

from __future__ import annotations

import math
import os
import threading
from dataclasses import dataclass, field
from typing import Mapping, Sequence

import numpy as np

from roofgui.model.chips import Chip, Peak
from roofgui.model.errors import ModelError
from roofgui.model.ops import (OpKind, Shard, Work, check_phase, count_work, get_kind, op_work,
                  resolve_dtypes, validate_dims, validate_shard)

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


def _unscaled(settings: Settings) -> bool:
    """True when every what-if multiplier is a plain 1 (a float or int, not a bool)."""
    return all(type(v) in (float, int) and v == 1 for v in (settings.peak, settings.hbm, settings.link))


def _figures(chip: Chip, work: Work, settings: Settings) -> ChipFigures:
    """:func:`chip_figures`, worked out."""
    if _unscaled(settings):  # (what Chip.scaled returns for ×1 everywhere, without its checks)
        scaled = chip
    else:
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


#: :func:`chip_figures` remembered: keyed by the chip (by identity, and the entry holds the
#: chip, as the scenario's caches do), the what-if settings (plain positive numbers only,
#: by type and value) and what the figures read of the work (the compute dtype's peak key,
#: the unit, the link).  A sweep edit looks up the same eight chips on every keystroke
#: (the peak, its notes, a scaled copy of the chip under what-ifs): 32 -> 9 us for the
#: busy scenario's eight chips.  A few hundred entries at most, the oldest dropped first.
_FIGURES: dict[tuple, tuple[Chip, ChipFigures]] = {}
_FIGURES_SIZE = 256
_FIGURES_LOCK = threading.Lock()


def _plain(v) -> bool:
    """A what-if multiplier that keys the figures: a float or int (not a bool), positive
    and finite (so that equal keys are equal numbers: no NaN, no signed zeros)."""
    return type(v) in (float, int) and 0 < v < math.inf


def chip_figures(chip: Chip, work: Work, settings: Settings = Settings()) -> ChipFigures:
    """Pick the peak for the op's unit and compute dtype, the HBM and link bandwidths.

    The same chip object, settings and work's dtype, unit and link give the same
    (immutable) figures: they are remembered (see :data:`_FIGURES`).
    """
    key = None
    peak_key, unit, link = work.compute.peak_key, work.unit, work.link
    if (_plain(settings.peak) and _plain(settings.hbm) and _plain(settings.link)
            and type(settings.derate) is bool and type(peak_key) is str and type(unit) is str
            and (link is None or type(link) is str)):
        key = (id(chip), type(settings.peak), settings.peak, type(settings.hbm), settings.hbm,
               type(settings.link), settings.link, settings.derate, peak_key, unit, link)
        hit = _FIGURES.get(key)
        if hit is not None and hit[0] is chip:
            return hit[1]
    figs = _figures(chip, work, settings)
    if key is not None:
        with _FIGURES_LOCK:
            _FIGURES[key] = (chip, figs)
            while len(_FIGURES) > _FIGURES_SIZE:
                del _FIGURES[next(iter(_FIGURES))]
    return figs


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
    """
    flops = np.asarray(flops, dtype=np.float64)
    hbm_bytes = np.asarray(hbm_bytes, dtype=np.float64)
    net_bytes = np.asarray(net_bytes, dtype=np.float64)
    peak = np.asarray(peak, dtype=np.float64)
    hbm_bw = np.asarray(hbm_bw, dtype=np.float64)
    link_bw = np.asarray(link_bw, dtype=np.float64)
    # (np.broadcast_shapes builds an empty array per shape; np.broadcast reads the arrays'
    # shapes directly and raises the same error)
    shape = np.broadcast(flops, hbm_bytes, net_bytes, peak, hbm_bw, link_bw).shape
    sends = net_bytes > 0
    any_sent = bool(sends.any())
    # Every full-shape result goes into one block: a dozen separate large arrays would
    # each fault fresh pages in on every call (a sweep is most of its time there).
    block = np.empty((8 if any_sent else 7,) + shape)
    t_math, t_hbm, t_lower, t_upper, attainable, util, t_comms = (block[k, ...] for k in range(7))
    not_compute = np.empty(shape, dtype=bool)
    step = None if any_sent else _row_step(shape, (flops, hbm_bytes, peak, hbm_bw))
    with np.errstate(divide="ignore", invalid="ignore"):
        if step is not None and _quotients_positive(hbm_bytes, hbm_bw):
            # a large sweep, nothing sent, every T_hbm > 0 (T_comms is T_hbm, as below): the
            # same passes, a few chips' rows at a time (see _rows)
            _rows(flops, hbm_bytes, peak, hbm_bw, t_math, t_hbm, t_lower, t_upper, attainable,
                  util, not_compute, step)
            t_net, net_intensity, t_comms = np.zeros(()), np.array(np.inf), t_hbm
        else:
            np.divide(flops, peak, out=t_math)
            np.divide(hbm_bytes, hbm_bw, out=t_hbm)
            if any_sent:
                t_net = block[7, ...]
                np.divide(net_bytes, np.where(link_bw > 0, link_bw, np.inf), out=t_net)
                np.copyto(t_net, 0.0, where=~sends)
                np.maximum(t_hbm, t_net, out=t_comms)
                net_intensity = np.where(sends, flops / np.where(sends, net_bytes, 1.0), np.inf)
            else:  # nothing crosses a link (the common case): T_net is 0 everywhere
                t_net = np.zeros(())
                net_intensity = np.array(np.inf)
                if _quotients_positive(hbm_bytes, hbm_bw) or (t_hbm > 0.0).all():
                    t_comms = t_hbm  # max(T_hbm, 0) is T_hbm itself: share it
                else:  # zeros (of either sign), NaNs or negatives: as max(T_hbm, T_net) gives
                    np.maximum(t_hbm, 0.0, out=t_comms)
            _bound_passes(flops, t_math, t_comms, t_lower, t_upper, attainable, util,
                          not_compute)
        intensity = flops / hbm_bytes
        crit = peak / hbm_bw
        linked = link_bw > 0
        net_crit = np.where(linked, peak / np.where(linked, link_bw, 1.0), np.inf)
    shared = t_comms is t_hbm
    # 0 compute, 1 memory, 2 network (the same as nested np.where), in one byte each: the
    # booleans "not compute-bound" are already the codes 0 and 1 once read as int8.
    np.logical_not(not_compute, out=not_compute)
    if any_sent:
        extra = not_compute & ~(t_hbm >= t_net)
    elif not shared:  # memory-bound only where T_hbm ≥ T_net = 0
        extra = not_compute & ~(t_hbm >= 0.0)
    else:
        extra = None
    code = not_compute.view(np.int8)
    if extra is not None:
        code += extra
    block.flags.writeable = False  # views taken from here on are read-only
    t_math, t_hbm, t_lower, t_upper, attainable, util = (block[k, ...] for k in range(6))
    t_comms = t_hbm.view() if shared else block[6, ...]
    if any_sent:
        t_net = block[7, ...]
    code.flags.writeable = False
    b = _broadcaster(shape)
    return Result(b(flops), b(hbm_bytes), b(net_bytes), b(peak), b(hbm_bw), b(link_bw),
                  t_math, t_hbm, b(t_net), t_comms, t_lower, t_upper,
                  b(intensity), b(net_intensity), b(crit), b(net_crit), attainable,
                  util, code.view())


def _bound_passes(flops, t_math, t_comms, t_lower, t_upper, attainable, util,
                  not_compute) -> None:
    """T_lower, T_upper, attainable FLOP/s, utilisation and "compute-bound" (T_math ≥
    T_comms) from T_math and T_comms, written into the given arrays."""
    np.maximum(t_math, t_comms, out=t_lower)
    np.add(t_math, t_comms, out=t_upper)
    np.divide(flops, t_lower, out=attainable)
    np.divide(t_math, t_lower, out=util)
    np.greater_equal(t_math, t_comms, out=not_compute)


def _rows(flops, hbm_bytes, peak, hbm_bw, t_math, t_hbm, t_lower, t_upper, attainable,
          util, not_compute, step: int) -> None:
    """:func:`roofline`'s passes of a large sweep with T_comms = T_hbm, ``step`` rows at a
    time: the first half of the rows here, the second on a helper thread (see
    :func:`_helper`), unless that thread has not started on them by the time this one is
    done with its own (then this one takes them back)."""
    args = (flops, hbm_bytes, peak, hbm_bw, t_math, t_hbm, t_lower, t_upper, attainable,
            util, not_compute, step)
    k = t_math.shape[0]
    half = (k // step + 1) // 2 * step  # (the first half's rows, whole steps)
    helper = _helper() if half < k and k // step >= 2 else None
    done = None
    if helper is not None:
        try:
            done = helper.submit(_row_passes, *args, half, k)
        except RuntimeError:  # (no thread to be had: the interpreter is shutting down)
            done = None
    _row_passes(*args, 0, half if done is not None else k)
    if done is not None:
        if done.cancel():  # (the helper never got to it, a busy machine: ours too)
            _row_passes(*args, half, k)
        else:
            done.result()


#: :func:`roofline` goes over a (chips, points) sweep this many elements (or fewer) at a
#: time: whole chips' rows, ~160 KB an array, so that each pass finds the last one's
#: results in the cache.  The busy sweep of 10,000 points × 8 chips, two rows at a time:
#: its passes 548 -> 476 us on an Intel Xeon (2,000 points: all rows at once was fastest).
_ROW_ELEMENTS = 20_000


def _row_passes(flops, hbm_bytes, peak, hbm_bw, t_math, t_hbm, t_lower, t_upper, attainable,
                util, not_compute, step: int, start: int, stop: int) -> None:
    """:func:`roofline`'s passes over rows ``start:stop`` of a sweep, ``step`` rows at a time
    (the whole-array passes' arithmetic, element by element; the outputs' rows written)."""
    with np.errstate(divide="ignore", invalid="ignore"):  # (per thread: set here)
        for r in range(start, stop, step):
            rows = slice(r, min(r + step, stop))
            f, h, pk, bw = (a[rows] if a.ndim == 2 and a.shape[0] > 1 else a
                            for a in (flops, hbm_bytes, peak, hbm_bw))
            tm, th = t_math[rows], t_hbm[rows]
            np.divide(f, pk, out=tm)
            np.divide(h, bw, out=th)
            _bound_passes(f, tm, th, t_lower[rows], t_upper[rows], attainable[rows],
                          util[rows], not_compute[rows])


#: the thread that takes half of a large sweep's rows (see :func:`_helper`); None until asked
_HELPER = None
_HELPER_LOCK = threading.Lock()
#: large sweeps whose rows were shared with the helper thread (for tests)
helper_calls = 0


def _helper():
    """A thread for the second half of a large sweep's rows, or None on a one-CPU machine.

    numpy lets go of the interpreter while a pass runs over an array, so two threads
    run the passes side by side: four of them are divisions, bound by the divider, not
    by memory.  The busy model sweep (10,000 points × 8 chips): its passes 500 -> 386 us
    on two CPUs.  When the thread has not started on its half by the time the caller has
    done the other (the other CPU busy, or a second caller's sweep ahead of it), the
    caller takes that half back and does it too."""
    global _HELPER, helper_calls
    if _HELPER is None:
        with _HELPER_LOCK:
            if _HELPER is None:
                if _cpus() < 2:
                    return None
                from concurrent.futures import ThreadPoolExecutor

                _HELPER = ThreadPoolExecutor(1, thread_name_prefix="roofline-rows")
    helper_calls += 1
    return _HELPER


def _cpus() -> int:
    """The CPUs this process may run on (its affinity, where the system tells it)."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # (not Linux)
        return os.cpu_count() or 1


def _row_step(shape: tuple, arrays) -> int | None:
    """How many rows :func:`roofline` takes at a time for the broadcast ``shape``, or None
    for all at once: a 2-D shape of more than :data:`_ROW_ELEMENTS` elements whose inputs
    are each a row (or a scalar) for every chip, or one row per chip."""
    if len(shape) != 2 or shape[0] < 2:
        return None
    step = max(1, _ROW_ELEMENTS // max(shape[1], 1))
    if step >= shape[0]:
        return None
    for a in arrays:
        if a.ndim > 2 or (a.ndim == 2 and a.shape[0] not in (1, shape[0])):
            return None
    return step


def _quotients_positive(num: np.ndarray, den: np.ndarray) -> bool:
    """Whether every ``num / den`` (as broadcast) is > 0, read off the extremes alone.

    Division rounds monotonically, so with ``num ≥ min(num) > 0`` and
    ``0 < den ≤ max(den) < ∞`` every quotient is at least ``min(num) / max(den)``:
    a few reductions over the inputs instead of a test over every quotient.
    False means "not shown this way" (NaN, zeros, negatives, infinite or empty).
    """
    if num.size == 0 or den.size == 0:
        return False
    lo, d_lo, d_hi = float(num.min()), float(den.min()), float(den.max())
    return lo > 0.0 and d_lo > 0.0 and d_hi < math.inf and lo / d_hi > 0.0


def _broadcaster(shape: tuple[int, ...]):
    """``np.broadcast_to(a, shape)`` as a read-only view, for arrays of the broadcast shape.

    Built directly over the array's memory (``broadcast_to`` sets up an iterator for
    each call, several µs: a dozen of them were a tenth of a sweep's ``roofline``).
    """
    nd = len(shape)

    def b(a) -> np.ndarray:
        a = np.asarray(a)
        if a.shape == shape:
            v = a.view()
            v.flags.writeable = False
            return v
        if not a.flags.c_contiguous or a.ndim > nd:
            return np.broadcast_to(a, shape)
        pad = nd - a.ndim
        strides = [0] * pad
        for n, have, stride in zip(shape[pad:], a.shape, a.strides):
            if have == n:
                strides.append(stride if n != 1 else 0)
            elif have == 1:
                strides.append(0)
            else:  # not broadcastable: let numpy say so
                return np.broadcast_to(a, shape)
        v = np.ndarray(shape, a.dtype, buffer=a, strides=tuple(strides))
        v.flags.writeable = False
        return v

    return b


def evaluate_work(work: Work, figures: ChipFigures) -> Result:
    return roofline(work.flops, work.hbm_bytes, work.net_bytes, figures.peak,
                    figures.hbm_bandwidth, figures.link_bandwidth or 0.0)


def evaluate_many(work: Work, chips: Sequence[Chip], settings: Settings = Settings()) -> Result:
    """One op against many chips at once: arrays gain a leading chip axis."""
    return evaluate_figures(work, [chip_figures(c, work, settings) for c in chips])


def evaluate_figures(work: Work, figures: Sequence[ChipFigures]) -> Result:
    """:func:`evaluate_many` for chip figures already looked up: one roofline call."""
    shape = (len(figures),) + (1,) * np.ndim(work.flops)
    peak = np.array([f.peak for f in figures]).reshape(shape)
    hbm = np.array([f.hbm_bandwidth for f in figures]).reshape(shape)
    link = np.array([f.link_bandwidth or 0.0 for f in figures]).reshape(shape)
    return roofline(work.flops, work.hbm_bytes, work.net_bytes, peak, hbm, link)


@dataclass(frozen=True)
class Analysis:
    """One op (one phase) on one chip: the result, the chip figures and critical values."""

    chip: Chip
    figures: ChipFigures
    work: Work
    result: Result
    critical: Mapping[str, float | None] = field(default_factory=dict)


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
    out: dict[str, float | None] = {}
    base = {d.name: dims.get(d.name, d.default) for d in kind.dims}
    probe_x = np.array([_PROBE_LO, _PROBE_HI])
    for name in kind.dim_names():
        # Other dims gain a trailing axis so the two probe points broadcast beside them.
        probe = {k: (np.asarray(v, dtype=np.float64)[..., None] if np.ndim(v) else v)
                 for k, v in base.items() if k != name}
        probe[name] = probe_x
        w = op_work(kind, probe, dtypes, shard, params, phase)
        r = evaluate_work(w, figures)
        shape = np.broadcast_shapes(np.shape(r.t_math), np.shape(r.t_hbm), np.shape(r.t_net), (2,))
        times = [np.broadcast_to(np.asarray(t, dtype=np.float64), shape)
                 for t in (r.t_math, r.t_hbm, r.t_net)]
        x = _crossing(times[0], times[1:])
        if x.ndim == 0:
            out[name] = float(x) if np.isfinite(x) else None
        else:
            out[name] = x
    return out



def critical_values_many(kind: OpKind, dims: Mapping[str, float], figures: Sequence[ChipFigures], *,
                         dtypes: Mapping[str, str] | None = None, shard: Shard | None = None,
                         params: Mapping | None = None, phase: str = "",
                         names: Sequence[str] | None = None) -> list[dict[str, float | None]]:
    """:func:`critical_values` for several chips at once (``names``: only these dimensions).

    The probes do not depend on the chip, so each dimension is counted once and
    evaluated against every chip along a leading axis; element by element the
    arithmetic is that of :func:`critical_values`, so the values are the same.  A few
    crossings (a sweep's one dimension on its chips) are worked out in Python floats
    instead, the same arithmetic again (:func:`_critical_plain`).
    """
    figs = list(figures)
    if not figs:
        return []
    base = {d.name: dims.get(d.name, d.default) for d in kind.dims}
    wanted = list(kind.dim_names() if names is None else [n for n in kind.dim_names() if n in names])
    # (a Python float is 0-d: np.ndim converts it to an array to say so, ~3 us a value)
    if any(type(v) is not float and np.ndim(v) for v in base.values()):
        # array dimensions: one chip at a time
        out = [critical_values(kind, dims, f, dtypes=dtypes, shard=shard, params=params,
                               phase=phase) for f in figs]
        return [{n: d[n] for n in wanted} for d in out]
    if not wanted:
        return [{} for _ in figs]
    probe_x = np.array([_PROBE_LO, _PROBE_HI])
    works = _probe_works(kind, base, wanted, probe_x, dtypes, shard, params, phase)
    if len(works) * len(figs) <= _FEW_CROSSINGS:
        out = _critical_plain(wanted, works, figs)
        if out is not None:
            return out
    return _critical_arrays(wanted, works, figs)


def _critical_arrays(names: Sequence[str], works: Sequence[Work],
                     figs: Sequence[ChipFigures]) -> list[dict[str, float | None]]:
    """The end of :func:`critical_values_many`: each dimension's probe work against
    every chip, as arrays (names × chips × the two probe points)."""
    work = np.empty((3, len(works), 1, 2))
    for k, w in enumerate(works):
        work[0, k], work[1, k], work[2, k] = w.flops, w.hbm_bytes, w.net_bytes
    flops, hbm_bytes, net_bytes = work
    peak = np.array([f.peak for f in figs], dtype=np.float64)[:, None]
    hbm = np.array([f.hbm_bandwidth for f in figs], dtype=np.float64)[:, None]
    link = np.array([f.link_bandwidth or 0.0 for f in figs], dtype=np.float64)[:, None]
    times = np.empty((3, len(works), len(figs), 2))  # T_math, T_hbm, T_net
    with np.errstate(divide="ignore", invalid="ignore"):  # as roofline() computes them
        np.divide(flops, peak, out=times[0])
        np.divide(hbm_bytes, hbm, out=times[1])
        times[2] = np.where(net_bytes > 0, net_bytes / np.where(link > 0, link, np.inf), 0.0)
    x = _crossing_stacked(times)
    out: list[dict[str, float | None]] = [{} for _ in figs]
    for name, row in zip(names, x.tolist()):
        for d, v in zip(out, row):
            d[name] = v if math.isfinite(v) else None
    return out


def _probe_works(kind: OpKind, base: Mapping[str, object], names: Sequence[str],
                 probe_x: np.ndarray, dtypes, shard, params, phase: str) -> list[Work]:
    """``op_work`` with each of ``names`` set to the probe points in turn, the others at ``base``.

    The inputs are checked once rather than once per dimension: the probe points are
    valid for every dimension, so once ``base`` passes, each probe would too.  When it
    does not, every probe is counted through ``op_work`` as before, so that the first
    problem met is the one reported.
    """
    try:
        checked = validate_dims(kind, base)
    except ModelError:
        checked = None
    if checked is None:
        out = []
        for name in names:
            probe = {k: v for k, v in base.items() if k != name}
            probe[name] = probe_x
            out.append(op_work(kind, probe, dtypes, shard, params, phase))
        return out
    dt = resolve_dtypes(kind, dtypes or {})
    sh = validate_shard(kind, shard)
    check_phase(kind, phase)
    out = []
    for name in names:
        probe = dict(checked)
        probe[name] = probe_x
        out.append(count_work(kind, probe, dt, sh, params, phase))
    return out


#: Up to this many (dimension, chip) crossings, :func:`critical_values_many` works them
#: out in plain Python floats (:func:`_critical_plain`) rather than in numpy arrays: a
#: sweep asks for one dimension on each of its chips, and the ~35 numpy calls of the
#: array path cost more than the arithmetic of a few dozen crossings (the busy
#: scenario's edit, one dimension on eight chips: critical_values_many 0.17 -> 0.07 ms).
_FEW_CROSSINGS = 32


def _critical_plain(names: Sequence[str], works: Sequence[Work],
                    figs: Sequence[ChipFigures]) -> list[dict[str, float | None]] | None:
    """The end of :func:`critical_values_many` (times at the probes, then
    :func:`_crossing_stacked`) in Python floats, for the inputs where that is the same
    arithmetic: None for any other, which then take the array path.

    Python's float operations are IEEE double operations, correctly rounded like
    numpy's, so each quotient, difference and product below is the array path's to the
    last bit.  They differ only where numpy would divide by zero or meet a NaN (Python
    raises; ``max`` does not propagate NaN): so every time, slope difference and
    intercept difference here must be finite, every divisor non-zero, and the inputs
    plain floats (numpy converts other types on the way in).
    """
    rows = []
    for w in works:
        row = []
        for a in (w.flops, w.hbm_bytes, w.net_bytes):
            if type(a) is not np.ndarray or a.dtype != np.float64 or a.shape != (2,):
                return None
            row.append(a.tolist())
        rows.append(row)
    chips = []
    for f in figs:
        pk, bw, lk = f.peak, f.hbm_bandwidth, f.link_bandwidth or 0.0
        if type(pk) is not float or type(bw) is not float or type(lk) is not float \
                or pk == 0.0 or bw == 0.0:
            return None
        chips.append((pk, bw, lk if lk > 0 else math.inf))  # (as np.where(link > 0, link, inf))
    isfinite, tol, lo_x = math.isfinite, _REL_TOL, _PROBE_LO
    span = _PROBE_HI - _PROBE_LO
    out: list[dict[str, float | None]] = [{} for _ in figs]
    for name, ((f0, f1), (h0, h1), (n0, n1)) in zip(names, rows):
        for d, (pk, bw, lk) in zip(out, chips):
            tm0, tm1, th0, th1 = f0 / pk, f1 / pk, h0 / bw, h1 / bw
            tn0 = n0 / lk if n0 > 0 else 0.0
            tn1 = n1 / lk if n1 > 0 else 0.0
            if not (isfinite(tm0) and isfinite(tm1) and isfinite(th0) and isfinite(th1)
                    and isfinite(tn0) and isfinite(tn1)):
                return None
            # _crossing_stacked, element by element: T_math against T_hbm and T_net
            m1 = (tm1 - tm0) / span
            m0 = tm0 - m1 * lo_x
            never, lo, hi = False, 0.0, math.inf
            for t0, t1 in ((th0, th1), (tn0, tn1)):
                slope = (t1 - t0) / span
                a = m1 - slope
                rhs = (t0 - slope * lo_x) - m0
                if not (isfinite(a) and isfinite(rhs)):
                    return None
                flat = abs(a) <= tol * max(abs(m1), abs(slope))
                if abs(rhs) <= tol * (abs(tm0) + abs(t0)):
                    rhs = 0.0
                if flat:
                    never = never or rhs > 0
                elif a > 0:  # (a ≠ 0 here: |a| > tol · max ≥ 0, so rhs / a is no NaN)
                    lo = max(lo, rhs / a)
                elif a < 0:
                    hi = min(hi, rhs / a)
            res = lo if lo > 0 else (hi if isfinite(hi) else math.nan)
            if never or lo >= hi or res <= 0:
                res = math.nan
            d[name] = res if isfinite(res) else None
    return out


#: The two points each dimension is probed at to read off slopes and intercepts.
#: Far apart, so the slope is not lost to cancellation against a large intercept.
_PROBE_LO, _PROBE_HI = 1.0, 2.0**20
#: Relative tolerance below which two slopes, or two intercepts, count as equal.
_REL_TOL = 1e-9


def _crossing(t_math: np.ndarray, comms: list[np.ndarray]) -> np.ndarray:
    """Where ``t_math`` (affine in x) starts (or stops) exceeding every comms time.

    Each time has a trailing axis of 2: the times at the two probe points; every comms
    time has the shape of ``t_math``.
    Returns an array over the leading axes, NaN where there is no crossing.

    The comms levels are stacked along a new leading axis and handled in one pass: the
    compute-bound set is the intersection of one half-line per level, so its start is
    the largest of the levels' lower ends (from 0) and its end the smallest of their
    upper ends (from ∞), NaN if any is NaN, whatever the order.
    """
    return _crossing_stacked(np.stack([t_math, *comms]))


def _crossing_stacked(t: np.ndarray) -> np.ndarray:
    """:func:`_crossing` of ``t[0]`` (T_math) against the comms levels ``t[1:]``."""
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
    res = np.where(never | (lo >= hi) | (res <= 0), np.nan, res)
    return res
