"""The LLM sweep's drawing: one throughput or latency curve per chip with its memory wall,
and the sweep's table, computed without Qt from :func:`roofgui.model.llm.llm_sweep_scenario`."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Mapping

import numpy as np

from roofgui.model.llm import PHASES, LlmSweepResult, llm_inputs, step_terms
from roofgui.model.units import format_capacity, format_number, format_rate, format_si, format_time
from roofgui.presentation.plotdata import assign_colours, nice_range

Array = np.ndarray


@dataclass(frozen=True)
class LlmSweepLine:
    """One chip in the LLM sweep view; every coordinate log10.

    ``hi`` is the perfect-overlap bound (the larger throughput, or the smaller
    latency), ``lo`` the no-overlap one.  ``*_fit`` run up to the capacity wall,
    ``*_unfit`` from it on (empty when the whole range fits, or none of it does).
    """

    chip_id: str
    chip_label: str
    colour: int
    x_fit: Array
    hi_fit: Array
    lo_fit: Array
    x_unfit: Array
    hi_unfit: Array
    lo_unfit: Array
    max_batch: int
    wall_x: float | None    # log10(max_batch); None when no batch fits (the wall is at −∞)
    wall_label: str
    wall_tooltip: str
    marker: tuple[float, float] | None  # (log10 B, log10 value) of the op's own batch
    marker_tooltip: str
    legend: str
    tooltip: str


@dataclass(frozen=True)
class LlmSweepGeometry:
    view: str
    lines: tuple[LlmSweepLine, ...]
    fit: tuple[float, float, float, float]
    x_title: str
    y_title: str
    y_kind: str             # "rate" (tokens/s) or "time" (s)
    unit: str               # "tok/s" or ""
    hi_legend: str
    lo_legend: str
    unfit_legend: str
    batch_x: float | None   # log10 of the op's batch, if inside the range
    batch_label: str
    message: str = ""
    colours: Mapping[str, int] = field(default_factory=dict)


_VIEW_TITLES = {
    "throughput": ("Throughput, all requests (tokens/s)", "rate", "tok/s"),
    "latency": ("Per-token latency: time per output token", "time", ""),
}


def _wall_terms(op: Any, chip_record: Mapping[str, Any]) -> tuple[str, str]:
    """The wall's label and tooltip: what exceeds the HBM, from one batch past the wall."""
    inp = llm_inputs(op)
    cap = chip_record["capacity"]
    mb = chip_record["max_batch"]
    phase = min(PHASES, key=lambda ph: chip_record["max_batch_phase"][ph])
    p, d = float(inp.dims["p"]), float(inp.dims["d"])
    t = step_terms(inp.model, float(mb + 1), p, d, inp.n, inp.dtypes, phase, inp.t_net)
    w, kv, act = float(t.mem_weights), float(t.mem_kv), float(t.mem_act)
    capacity = format_capacity(cap)
    if mb < 1:
        label = f"weights alone ({format_si(w, 'B')})\nexceed {capacity} HBM: no batch fits"
    else:
        parts = ["KV cache", "weights"]
        if act > 0.05 * cap:
            parts.append(f"{phase} activations")
        label = f"{' + '.join(parts)}\nexceed {capacity} HBM at B > {format_number(mb)}"
    other = [ph for ph in PHASES if ph != phase][0]
    tip = (f"<b>Capacity wall on {chip_record['chip'].label()}</b>: "
           + (f"B ≤ {format_number(mb)} fits" if mb >= 1 else "no batch fits")
           + f"<br>per chip at B = {format_number(mb + 1)} ({phase}): weights {format_si(w, 'B')} "
           f"+ KV cache {format_si(kv, 'B')} + activations {format_si(act, 'B')} "
           f"= {format_si(w + kv + act, 'B', 4)} &gt; {format_si(cap, 'B', 4)}"
           f"<br>the {other} phase alone fits up to B = "
           f"{format_number(chip_record['max_batch_phase'][other])}")
    return label, tip


def _sweep_line(r: Mapping[str, Any], op: Any, b: Array, thr: bool, colour: int, hi_legend: str,
                lo_legend: str) -> tuple[LlmSweepLine, list[Array]]:
    """One chip's curves of the view (throughput if ``thr``, else latency) against batch
    ``b``, split at its capacity wall; and the log10 values drawn, for the y range."""
    chip = r["chip"]
    n = op.shard.n if getattr(op, "shard", None) is not None else 1
    hi, lo = ((r["throughput_total_max"], r["throughput_total_min"]) if thr
              else (r["tpot_lower"], r["tpot_upper"]))
    hi = np.asarray(hi, dtype=np.float64)
    lo = np.asarray(lo, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        ok = (hi > 0) & (lo > 0) & np.isfinite(hi) & np.isfinite(lo)
        lhi = np.log10(np.where(ok, hi, 1.0))
        llo = np.log10(np.where(ok, lo, 1.0))
    lx = np.log10(b)
    mb = int(r["max_batch"])
    fit = ok & (b <= mb)
    unfit = ok & (b >= mb) if mb >= 1 else ok
    if mb >= 1 and not np.any(b == mb):  # the wall lies outside the range: no shared point
        unfit = ok & (b > mb)
    wall_label, wall_tip = _wall_terms(op, r)
    name = chip.label() + (f" ×{n}" if n > 1 else "")
    legend = f"{name} — fits B ≤ {format_number(mb)}" if mb >= 1 else f"{name} — nothing fits"
    marker, marker_tip = _marker(op, name, b, lx, lhi, ok, hi, lo, mb, thr)
    crit = r["critical_batch"]["decode"]
    tip = (f"<b>{op.name}</b> on <b>{name}</b><br>fits in HBM up to B = {format_number(mb)}"
           f"<br>decode step "
           + (f"compute-bound from B = {format_number(round(crit))}" if math.isfinite(crit)
              else "never compute-bound")
           + f"<br>solid: {hi_legend}<br>dashed: {lo_legend}")
    line = LlmSweepLine(chip.id, name, colour, lx[fit], lhi[fit], llo[fit], lx[unfit], lhi[unfit],
                        llo[unfit], mb, math.log10(mb) if mb >= 1 else None, wall_label, wall_tip,
                        marker, marker_tip, legend, tip)
    return line, [lhi[ok], llo[ok]]


def _marker(op: Any, name: str, b: Array, lx: Array, lhi: Array, ok: Array, hi: Array, lo: Array,
            mb: int, thr: bool) -> tuple[tuple[float, float] | None, str]:
    """The mark at the op's own batch (if it is one of the points) and its tooltip."""
    ob = float(op.full_dims()["B"])
    at = np.flatnonzero(b == ob)
    if not (at.size and ok[at[0]]):
        return None, ""
    j = int(at[0])
    fmt = (lambda v: format_rate(v, "tok/s")) if thr else format_time  # noqa: E731
    tip = (f"<b>{op.name}</b> on <b>{name}</b> at B = {format_number(ob)}"
           f"<br>{'throughput' if thr else 'time per output token'}: "
           f"{fmt(float(hi[j]))} (perfect overlap) … {fmt(float(lo[j]))} (no overlap)"
           + ("" if ob <= mb else "<br><b>does not fit in HBM</b>"))
    return (float(lx[j]), float(lhi[j])), tip


def llm_sweep_geometry(result: LlmSweepResult, previous_colours: Mapping[str, int] | None = None,
                       n_colours: int = 8) -> LlmSweepGeometry:
    """What the LLM sweep view draws (log10 coordinates), from :func:`llm_sweep_scenario`.

    Per chip: the perfect-overlap and no-overlap curves of total throughput
    (``view = "throughput"``) or time per output token (``"latency"``) split at
    the capacity wall, the wall and its label, and a mark at the op's own batch.
    Chip colours are palette slots kept from ``previous_colours`` (pass the
    roofline's, so a chip has one colour everywhere).
    """
    title, y_kind, unit = _VIEW_TITLES.get(result.view, _VIEW_TITLES["throughput"])
    thr = result.view != "latency"
    hi_legend = "perfect overlap: step = max(t_mem, t_compute, t_net)"
    lo_legend = "no overlap: step = t_mem + t_compute + t_net"
    x_title = "Batch B (concurrent requests)"
    b = np.asarray(result.batch, dtype=np.float64)
    lx_all = np.log10(b)
    x0, x1 = float(lx_all.min()), float(lx_all.max())
    pad = 0.02 * max(x1 - x0, 0.5)
    if result.op_index is None:
        return LlmSweepGeometry(result.view, (), (x0 - pad, x1 + pad, 0.0, 4.0), x_title, title,
                                y_kind, unit, hi_legend, lo_legend, "", None, "", result.message,
                                dict(previous_colours or {}))
    op = result.op
    colours = assign_colours([r["chip"].id for r in result.chips], previous_colours, n_colours)
    ob = float(op.full_dims()["B"])
    lines, ys = [], []
    for r in result.chips:
        line, y = _sweep_line(r, op, b, thr, colours[r["chip"].id], hi_legend, lo_legend)
        lines.append(line)
        ys += y
    if ys and np.concatenate(ys).size:
        allv = np.concatenate(ys)
        y0, y1 = nice_range(float(allv.min()), float(allv.max()), pad=0.15, step=0.5, min_span=1.0)
    else:
        y0, y1 = 0.0, 4.0
    inside = x0 <= math.log10(ob) <= x1
    return LlmSweepGeometry(result.view, tuple(lines), (x0 - pad, x1 + pad, y0, y1), x_title, title,
                            y_kind, unit, hi_legend, lo_legend, "does not fit in HBM (past the wall)",
                            math.log10(ob) if inside else None,
                            f"{op.name}: B = {format_number(ob)}" if inside else "",
                            "", colours)


#: Per-chip columns of :func:`llm_sweep_table` (``fits`` is 1 or 0).
SWEEP_TABLE_FIELDS = ("throughput_total_max", "throughput_total_min", "tpot_lower", "tpot_upper",
                      "ttft_lower", "ttft_upper", "memory_per_chip", "fits")


def llm_sweep_table(result: LlmSweepResult) -> tuple[list[str], Array]:
    """The LLM sweep view as a table: ``B``, then for every chip the
    :data:`SWEEP_TABLE_FIELDS` (tokens/s, s, bytes), as a header and a (points × columns) array."""
    b = np.asarray(result.batch, dtype=np.float64)
    header, cols = ["B"], [b]
    for r in result.chips:
        name = r["chip"].label()
        for k in SWEEP_TABLE_FIELDS:
            header.append(f"{name}: {k}")
            cols.append(np.broadcast_to(np.asarray(r[k], dtype=np.float64), b.shape))
    return header, np.column_stack(cols)
