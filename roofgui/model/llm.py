"""The LLM step as an op kind (``"llm"``, phases prefill and decode) and its serving summary.

The step's formulas are in :mod:`.llm_step` (docs/llm.md states every one), the model
presets in :mod:`.llm_models` and the sweep against batch in :mod:`.llm_sweep`; their
public names are importable from here too, as the other layers use them
(``llm.presets()``, ``llm.llm_sweep_scenario``, ``llm.PHASES`` ...).  The text of the
summary's working is in :mod:`roofgui.presentation.llm_text`.
"""

from __future__ import annotations

import math
from typing import Any, Mapping

import numpy as np

from roofgui.model.chips import Chip
from roofgui.model.dtypes import Dtype
from roofgui.model.errors import ModelError
from roofgui.model.llm_models import (ARCH_FIELDS, ARCH_NAMES, CUSTOM, DEFAULT_MODEL,  # noqa: F401
                                      PARAM_KEYS, T_MEM_MODELS, T_NET_DEFAULT, T_NET_LABELS,
                                      T_NET_MODELS, ModelConfig,
                                      architecture_params, build_config, get_preset, model_ids,
                                      norm_id, parse_model_toml, presets, resolve_model,
                                      t_mem_model, t_net_model)
from roofgui.model.llm_step import (BOUNDS, KIND, PHASES, SHARD_AXIS, LLMInputs, StepTerms,  # noqa: F401
                                    llm_inputs, phase_times, serving, step_figures, step_terms)
from roofgui.model.llm_sweep import (SWEEP_DEFAULT_RANGE, SWEEP_VIEWS, LlmSweepResult,  # noqa: F401
                                     llm_sweep, llm_sweep_many, llm_sweep_scenario, sweep_batches,
                                     sweep_op_index)
from roofgui.model.ops import DimSpec, OpKind, Shard, Work, register
from roofgui.model.roofline import ChipFigures, Settings
from roofgui.model.units import format_capacity, format_si

Array = np.ndarray


def llm_work(dims: Mapping[str, Array], dt: Mapping[str, Dtype], shard: Shard | None,
             params: Mapping | None = None, phase: str = "decode") -> Work:
    """The op-kind work function: FLOPs, refined HBM bytes and link bytes per chip."""
    cfg = resolve_model(params)
    t_mem_model(params)
    net = t_net_model(params)
    n = shard.n if shard is not None else 1
    t = step_terms(cfg, dims["B"], dims["p"], dims["d"], n, dt, phase, net)
    sa = dt["x"].bytes
    tokens = "B·p" if phase == "prefill" else "B"
    attn = next(pt for pt in t.parts if pt.name == "attention")
    if phase == "prefill":
        kv = "KV written B·p·kv + K, V read once B·p·kv"
    else:
        kv = "KV read B·(p + (d−1)/2)·kv + KV written B·kv"
    f = {"flops": f"Σ parts: 2·(matmul weights)·{tokens}/n + attention 4·heads·head_dim·context·"
                  f"{tokens}·L/n (attention {float(np.ravel(attn.flops)[0]) * attn.count:.4g})",
         "hbm_bytes": f"weights read (experts: {float(np.ravel(t.experts_read)[0]):.3g} of "
                      f"{cfg.experts} per layer)/n + {kv} (kv = {t.kv_bytes_per_token_chip:.4g} B)"}
    if n > 1:
        f["per_chip"] = (f"tensor parallel over {n} chips: weights and FLOPs /{n}, "
                         f"{t.kv_heads_per_chip} of {cfg.kv_heads} KV heads per chip")
        f["net_bytes"] = (f"{T_NET_LABELS[net]}: 2·L = {2 * cfg.layers} all-reduces of "
                          f"{tokens}·D·S_a = {tokens}·{cfg.hidden_size}·{sa:g}")
    return Work(t.flops, t.hbm_bytes, t.net_bytes, "matrix", dt["compute"],
                shard.link if shard is not None else None, n, f)


LLM_KIND = register(OpKind(
    KIND, "LLM step (prefill + decode)",
    (DimSpec("B", "Batch B (concurrent requests)", 64, "Requests served together."),
     DimSpec("p", "Prefill tokens p (average)", 1024, "Average prompt length, in tokens."),
     DimSpec("d", "Decode tokens d (average)", 256, "Average generated length, in tokens.")),
    ("w", "x", "kv", "compute"), (SHARD_AXIS,), llm_work,
    "One serving step of a transformer: prefill of B prompts, or one decoded token for each "
    "of B requests, on n tensor-parallel chips (docs/llm.md).",
    phases=PHASES))


def _num(v: Any) -> float | None:
    x = float(v)
    return x if math.isfinite(x) else None


def llm_summary(op: Any, chip: Chip, settings: Settings = Settings(), *,
                figures: ChipFigures | None = None) -> dict[str, Any]:
    """Every term of the note for one op on one chip, as numbers.

    ``op``: an ``OpSpec`` of kind ``llm`` (single values); ``chip``: the chip before
    what-ifs (``settings`` applies them), unless ``figures`` is given: then those chip
    figures are used as they are (the CLI passes an analysis' figures).

    Returns a JSON-ready dict: ``model``, ``inputs``, ``chip``, ``phases`` (``prefill``
    and ``decode``: step terms, bounds, intensity, critical batch, memory), ``serving``
    (cycle, throughputs, TTFT and TPOT), ``memory`` (fit over both phases, largest
    batch) and ``notes``.  Times in s, bytes in B, throughputs in tokens/s or
    requests/s; ``None`` for no value.
    """
    inp = llm_inputs(op)
    for k, v in inp.dims.items():
        if np.ndim(v):
            raise ModelError("llm_summary takes single values; use llm_sweep for arrays", k)
    fig = figures if figures is not None else step_figures(inp, chip, settings)
    capacity = float(fig.chip.hbm_capacity.value)
    cfg, n, dt = inp.model, inp.n, inp.dtypes
    B, p, d = (float(inp.dims[k]) for k in ("B", "p", "d"))
    terms = {ph: step_terms(cfg, B, p, d, n, dt, ph, inp.t_net) for ph in PHASES}
    times = {ph: phase_times(terms[ph], fig, capacity, inp.t_mem) for ph in PHASES}
    cycle = serving(np.float64(B), np.float64(p), np.float64(d), times["prefill"], times["decode"])
    phases = {ph: _phase_record(terms[ph], times[ph], capacity, inp.t_mem) for ph in PHASES}
    for ph in PHASES:
        phases[ph]["parts"] = part_records(terms[ph], fig)
    max_batch = min(phases[ph]["memory"]["max_batch"] for ph in PHASES)
    fits = all(phases[ph]["memory"]["fits"] for ph in PHASES)
    t0 = terms["decode"]
    notes = list(fig.notes) + _model_notes(cfg, n, t0)
    if not fits:
        notes.append(f"batch {B:g} does not fit in {format_capacity(capacity)} per chip "
                     f"(largest that fits: {max_batch})")
    return {
        "model": {"id": cfg.id, "name": cfg.name, **cfg.arch(), "group_size": cfg.group_size,
                  "citations": cfg.citation_lines()},
        "inputs": _inputs_record(inp, fig, B, p, d),
        "chip": {"id": fig.chip.id, "name": fig.chip.label(), "peak_flops": fig.peak,
                 "peak_dtype": fig.peak_info.key, "hbm_bandwidth": fig.hbm_bandwidth,
                 "hbm_capacity": capacity, "link_bandwidth": fig.link_bandwidth},
        "kv_bytes_per_token": t0.kv_bytes_per_token,
        "kv_bytes_per_token_per_chip": t0.kv_bytes_per_token_chip,
        "kv_heads_per_chip": t0.kv_heads_per_chip,
        "weight_bytes": cfg.params_total * dt["w"].bytes,
        "weight_bytes_per_chip": float(t0.mem_weights),
        "phases": phases,
        "serving": {k: _num(v) for k, v in cycle.items()},
        "memory": {"fits": fits, "max_batch": max_batch, "capacity": capacity,
                   "total": max(phases[ph]["memory"]["total"] for ph in PHASES)},
        "t_mem_model": inp.t_mem,
        "t_net_model": inp.t_net,
        "notes": notes,
    }


def _inputs_record(inp: LLMInputs, fig: ChipFigures, B: float, p: float, d: float) -> dict:
    dt = inp.dtypes
    return {"batch": B, "prefill": p, "decode": d, "chips": inp.n,
            # the link used: "scale-up" names each chip's own (nvlink, xgmi, ici …)
            "link": (fig.link_name or inp.shard.link) if inp.shard is not None else None,
            "w_dtype": dt["w"].name, "act_dtype": dt["x"].name, "kv_dtype": dt["kv"].name,
            "compute_dtype": dt["compute"].name, "t_mem_model": inp.t_mem,
            "t_net_model": inp.t_net}


def _phase_record(t: StepTerms, r: Mapping[str, Array], capacity: float, t_mem: str) -> dict:
    """One phase of :func:`llm_summary`: its step terms, bounds, intensity and memory."""
    return {
        "tokens": _num(t.tokens), "flops": _num(t.flops), "hbm_bytes_refined": _num(t.hbm_bytes),
        "weight_bytes": _num(t.weight_bytes), "kv_read_bytes": _num(t.kv_read),
        "experts_read": _num(t.experts_read),
        "attention_flops": _num(sum(pt.count * pt.flops for pt in t.parts if pt.name == "attention")),
        "kv_write_bytes": _num(t.kv_write), "net_bytes": _num(t.net_bytes),
        "t_compute": _num(r["t_compute"]), "t_mem": _num(r["t_mem"]), "t_mem_model": t_mem,
        "t_mem_note": _num(r["t_mem_note"]), "t_mem_refined": _num(r["t_mem_refined"]),
        "t_network": _num(r["t_network"]), "t_step_lower": _num(r["t_step_lower"]),
        "t_step_upper": _num(r["t_step_upper"]), "bound": str(BOUNDS[int(r["bound_code"])]),
        "intensity": _num(r["intensity"]), "critical_batch": _num(r["critical_batch"]),
        "critical_tokens": _num(r["critical_batch"] * t.tokens_per_request),
        "step_throughput_max": _num(r["step_throughput_max"]),
        "step_throughput_min": _num(r["step_throughput_min"]),
        "memory": {"weights": _num(t.mem_weights), "kv_cache": _num(t.mem_kv),
                   "activations": _num(t.mem_act), "total": _num(t.mem_total),
                   "capacity": capacity, "fits": bool(r["fits"]),
                   "per_request": _num(t.mem_per_request), "max_batch": int(r["max_batch"])},
    }


def part_records(t: StepTerms, fig: ChipFigures) -> list[dict[str, Any]]:
    """The parts of one phase (single values), each for one occurrence, with its time on the
    chip: ``t_lower = max(FLOPs/peak, HBM bytes/HBM bandwidth, link bytes/link bandwidth)``
    and the bound that sets it.  ``count × value`` summed over the parts is the step's."""
    link = fig.link_bandwidth or 0.0
    out = []
    for pt in t.parts:
        f, h, nb = (float(np.ravel(v)[0]) for v in (pt.flops, pt.hbm_bytes, pt.net_bytes))
        times = (f / fig.peak, h / fig.hbm_bandwidth,
                 (nb / link if link > 0 else math.inf) if nb > 0 else 0.0)
        code = 0 if times[0] >= max(times[1], times[2]) else 1 if times[1] >= times[2] else 2
        out.append({"name": pt.name, "count": pt.count, "flops": f, "hbm_bytes": h,
                    "net_bytes": nb, "t_lower": max(times), "bound": str(BOUNDS[code])})
    return out


def _model_notes(cfg: ModelConfig, n: int, t0: StepTerms) -> list[str]:
    """What the even split over ``n`` chips and the model's experts leave out."""
    notes = []
    if n > cfg.kv_heads:
        notes.append(f"{n} chips exceed the {cfg.kv_heads} KV heads: each chip keeps a replica of one "
                     "KV head, so the KV cache per chip stops shrinking")
    elif cfg.kv_heads % n:
        notes.append(f"{cfg.kv_heads} KV heads do not split evenly over {n} chips; "
                     f"the fullest chip holds {t0.kv_heads_per_chip}")
    if cfg.heads % n:
        notes.append(f"{cfg.heads} attention heads do not split evenly over {n} chips; "
                     "FLOPs are counted as an even split")
    if cfg.experts > 1:
        notes.append(f"mixture of experts: a step reads the experts its tokens are routed to, "
                     f"E·(1 − (1 − k/E)^T) of {cfg.experts} per layer for T tokens (uniform routing); "
                     f"FLOPs use the {cfg.top_k} routed; memory holds all {cfg.experts}")
    return notes


def record_fields(summary: Mapping[str, Any], phase: str, breakdown: bool = False) -> dict[str, Any]:
    """Flat JSON fields of one phase for a result record (the CLI's ``--json``); with
    ``breakdown``, its ``parts`` too (see :func:`part_records`)."""
    r = summary["phases"][phase]
    m = r["memory"]
    out = {
        "model": summary["model"]["id"], "model_name": summary["model"]["name"],
        **{k: summary["inputs"][k] for k in ("batch", "prefill", "decode", "chips", "w_dtype",
                                              "act_dtype", "kv_dtype", "compute_dtype")},
        "tokens_per_step": r["tokens"], "kv_bytes_per_token": summary["kv_bytes_per_token"],
        "kv_bytes_per_token_per_chip": summary["kv_bytes_per_token_per_chip"],
        "t_mem_model": r["t_mem_model"], "t_mem": r["t_mem"], "t_mem_note": r["t_mem_note"],
        "t_mem_refined": r["t_mem_refined"], "t_compute": r["t_compute"], "t_network": r["t_network"],
        "t_step_lower": r["t_step_lower"], "t_step_upper": r["t_step_upper"],
        "step_bound": r["bound"], "critical_batch": r["critical_batch"],
        "critical_tokens": r["critical_tokens"], "t_net_model": summary["t_net_model"],
        "step_throughput_max": r["step_throughput_max"], "step_throughput_min": r["step_throughput_min"],
        "weights_bytes_per_chip": m["weights"], "kv_cache_bytes_per_chip": m["kv_cache"],
        "activation_bytes_per_chip": m["activations"], "memory_bytes_per_chip": m["total"],
        "hbm_capacity": m["capacity"], "fits": m["fits"], "max_batch": m["max_batch"],
        "fits_all_phases": summary["memory"]["fits"], "max_batch_all_phases": summary["memory"]["max_batch"],
    }
    out.update(summary["serving"])
    if breakdown:
        out["parts"] = [dict(pt) for pt in r["parts"]]
    return out

