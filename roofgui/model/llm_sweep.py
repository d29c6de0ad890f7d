"""The LLM step against batch: throughput, per-token latency and memory, for the window's
sweep views (throughput and latency against batch) and their export."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from roofgui.model.chips import Chip
from roofgui.model.errors import ModelError
from roofgui.model.evaluate import resolve_chips
from roofgui.model.llm_step import (KIND, PHASES, llm_inputs, max_batch, phase_times, serving,
                                    step_figures, step_terms)
from roofgui.model.ops import get_kind, validate_dims
from roofgui.model.roofline import Settings

Array = np.ndarray

#: ``SweepSpec.y`` values that show an LLM step against batch (the window's LLM sweep views).
SWEEP_VIEWS = ("throughput", "latency")
#: The batch range of those views when the sweep varies another dimension.
SWEEP_DEFAULT_RANGE = (1.0, 16384.0)


def llm_sweep(op: Any, chip: Chip, batch, settings: Settings = Settings()) -> dict[str, Any]:
    """Throughput, per-token latency and memory against batch, in one vectorised pass.

    Parameters
    ----------
    op:
        An ``OpSpec`` of kind ``llm``; its ``B`` is replaced by ``batch``.
    chip:
        The chip (``settings`` applies what-ifs and derating).
    batch:
        Batch sizes (array, each ≥ 1).

    Returns
    -------
    dict
        ``batch`` and, as arrays of its shape: ``throughput_total_max/min``,
        ``throughput_per_request_max/min``, ``throughput_decode_max/min``
        (from the lower / upper step bounds), ``tpot_lower/upper`` (decode
        step: time per output token), ``ttft_lower/upper`` (prefill step),
        ``memory_per_chip`` (the larger phase), ``fits``; and scalars
        ``max_batch`` (the capacity wall: the largest batch that fits both
        phases; ``max_batch_phase`` has each phase's), ``capacity``,
        ``critical_batch`` per phase (NaN if none) and ``t_mem_model``.
    """
    inp = llm_inputs(op)
    kind = get_kind(KIND)
    b = validate_dims(kind, {"B": batch})["B"]
    b = np.atleast_1d(b) if np.ndim(batch) else b
    p, d = inp.dims["p"], inp.dims["d"]
    if np.ndim(p) or np.ndim(d):
        raise ModelError("llm_sweep sweeps the batch; give single p and d values", "p")
    fig = step_figures(inp, chip, settings)
    capacity = float(fig.chip.hbm_capacity.value)
    terms = {ph: step_terms(inp.model, b, p, d, inp.n, inp.dtypes, ph, inp.t_net) for ph in PHASES}
    times = {ph: phase_times(terms[ph], fig, capacity, inp.t_mem) for ph in PHASES}
    out: dict[str, Any] = {"batch": np.asarray(b, dtype=np.float64)}
    out.update(serving(b, p, d, times["prefill"], times["decode"]))
    out["memory_per_chip"] = np.maximum(terms["prefill"].mem_total, terms["decode"].mem_total)
    out["fits"] = out["memory_per_chip"] <= capacity
    out["max_batch_phase"] = {ph: int(np.ravel(times[ph]["max_batch"])[0]) for ph in PHASES}
    out["max_batch"] = min(out["max_batch_phase"].values())
    out["capacity"] = capacity
    out["critical_batch"] = {ph: float(np.ravel(times[ph]["critical_batch"])[0]) for ph in PHASES}
    out["t_mem_model"] = inp.t_mem
    return out


def llm_sweep_many(op: Any, chips: list[Chip], batch, settings: Settings = Settings(), *,
                   include=()) -> tuple[list[dict[str, Any]], list[str]]:
    """:func:`llm_sweep` for several chips: the step is counted once, then timed per chip.

    Every chip's capacity wall (``max_batch``) and the ``include`` batches that
    lie inside the batch range are added to the batch points, so a plot can
    split its curves exactly at the wall and mark a batch on them.

    Returns
    -------
    (list of dict, list of str)
        One :func:`llm_sweep` record per chip that could be timed (plus
        ``"chip"``: its figures' chip, with what-ifs), all on the same
        ``batch`` array; and one message per chip that could not (a chip
        without the op's link, a dtype it has no peak for).
    """
    inp = llm_inputs(op)
    kind = get_kind(KIND)
    b = np.atleast_1d(np.asarray(validate_dims(kind, {"B": batch})["B"], dtype=np.float64))
    p, d = inp.dims["p"], inp.dims["d"]
    if np.ndim(p) or np.ndim(d):
        raise ModelError("llm_sweep_many sweeps the batch; give single p and d values", "p")
    name = getattr(op, "name", KIND)
    figs, errors = [], []
    for chip in chips:
        try:
            figs.append(step_figures(inp, chip, settings))
        except ModelError as e:
            errors.append(f"{name} on {chip.name}: {e}")
    one = {ph: step_terms(inp.model, 1.0, p, d, inp.n, inp.dtypes, ph, inp.t_net) for ph in PHASES}
    extra = [float(v) for v in include]
    for fig in figs:
        cap = float(fig.chip.hbm_capacity.value)
        extra.append(min(float(max_batch(cap, one[ph].mem_weights, one[ph].mem_per_request))
                         for ph in PHASES))
    lo, hi = float(b.min()), float(b.max())
    b = np.union1d(b, [v for v in extra if lo <= v <= hi and v >= 1.0])
    terms = {ph: step_terms(inp.model, b, p, d, inp.n, inp.dtypes, ph, inp.t_net) for ph in PHASES}
    mem = np.maximum(terms["prefill"].mem_total, terms["decode"].mem_total)
    out = []
    for fig in figs:
        cap = float(fig.chip.hbm_capacity.value)
        times = {ph: phase_times(terms[ph], fig, cap, inp.t_mem) for ph in PHASES}
        r: dict[str, Any] = {"chip": fig.chip, "batch": b}
        r.update(serving(b, p, d, times["prefill"], times["decode"]))
        r["memory_per_chip"] = mem
        r["fits"] = mem <= cap
        r["max_batch_phase"] = {ph: int(np.ravel(times[ph]["max_batch"])[0]) for ph in PHASES}
        r["max_batch"] = min(r["max_batch_phase"].values())
        r["capacity"] = cap
        r["critical_batch"] = {ph: float(np.ravel(times[ph]["critical_batch"])[0]) for ph in PHASES}
        r["t_mem_model"] = inp.t_mem
        out.append(r)
    return out, errors


@dataclass(frozen=True)
class LlmSweepResult:
    """What the window's LLM sweep view shows: one LLM op of a scenario on every chip.

    ``op_index`` is ``None`` (and ``message`` says why) when there is nothing to draw.
    ``chips`` holds one :func:`llm_sweep_many` record per chip.
    """

    view: str
    op_index: int | None
    op: Any
    batch: Array
    chips: tuple = ()
    errors: tuple[str, ...] = ()
    message: str = ""


def sweep_op_index(scenario: Any) -> int | None:
    """The op the LLM sweep view shows: the selected op if it is an LLM step, else the first one."""
    ops = list(getattr(scenario, "ops", []))
    sel = getattr(scenario, "selected", 0)
    if 0 <= sel < len(ops) and ops[sel].kind == KIND:
        return sel
    return next((i for i, op in enumerate(ops) if op.kind == KIND), None)


def sweep_batches(spec: Any) -> Array:
    """The batch points of the LLM sweep view: the sweep's range when it sweeps ``B``
    (from at least 1), else :data:`SWEEP_DEFAULT_RANGE`; log-spaced, ``spec.points`` of them."""
    lo, hi = SWEEP_DEFAULT_RANGE
    if getattr(spec, "dim", "B") == "B":
        lo, hi = max(float(spec.start), 1.0), max(float(spec.stop), 1.0)
    if hi <= lo:
        hi = lo * 2.0
    return np.geomspace(lo, hi, max(int(getattr(spec, "points", 400)), 2))


def llm_sweep_scenario(scenario: Any, catalog: Any, view: str | None = None) -> LlmSweepResult:
    """Sweep the batch of the scenario's LLM step (see :func:`sweep_op_index`) on every
    checked chip, for the window's throughput and per-token latency views."""
    view = view or getattr(scenario.sweep, "y", SWEEP_VIEWS[0])
    if view not in SWEEP_VIEWS:
        view = SWEEP_VIEWS[0]
    batch = sweep_batches(scenario.sweep)
    i = sweep_op_index(scenario)
    chips, errors = resolve_chips(scenario, catalog)
    if i is None:
        return LlmSweepResult(view, None, None, batch, (), tuple(errors),
                              "No LLM step in this scenario. Add an op of type “LLM step”, "
                              "or plot Attainable FLOP/s.")
    op = scenario.ops[i]
    if not chips:
        return LlmSweepResult(view, None, op, batch, (), tuple(errors),
                              "No chip is checked: check one or more in the Chips panel.")
    try:
        include = [float(op.full_dims()["B"])]
        records, more = llm_sweep_many(op, chips, batch, scenario.settings(), include=include)
    except ModelError as e:
        return LlmSweepResult(view, None, op, batch, (), tuple(errors) + (f"{op.name}: {e}",),
                              f"{op.name}: {e}")
    errors += more
    if not records:
        return LlmSweepResult(view, None, op, batch, (), tuple(errors),
                              f"{op.name} cannot be timed on the checked chips (see the notices).")
    return LlmSweepResult(view, i, op, records[0]["batch"], tuple(records), tuple(errors))
