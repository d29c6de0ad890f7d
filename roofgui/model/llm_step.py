"""The LLM inference step: prefill and decode of a transformer on ``n`` tensor-parallel chips.

Registered as op kind ``"llm"`` with phases ``("prefill", "decode")``, so a
scenario places two points per chip on the roofline.  The step model follows
the serving-throughput note (``t_mem``, ``t_compute``, ``t_network``, their
max and sum, and the total / per-request / decode throughputs), adds the
refined memory time (weights plus the KV cache actually touched), and the
roofline's third constraint, memory capacity.  docs/llm.md states every
formula; :mod:`roofgui.presentation.llm_text` writes each with its numbers.

Conventions (all figures per chip unless named otherwise)
--------------------------------------------------------
* Inputs: ``B`` concurrent requests, ``p`` average prefill (prompt) tokens,
  ``d`` average decode (generated) tokens per request, ``n`` chips in
  tensor parallel over one link.
* The **prefill step** processes the prompts of all ``B`` requests:
  ``B_dense = B·p`` tokens.  The **decode step** generates one token for
  each request: ``B_dense = B``; its KV cache read is the average context
  ``p + (d − 1)/2`` tokens per request.
* The step is the sum of its parts (:mod:`.llm_parts`: embedding, Q/K/V projections,
  attention, output projection, MLP or experts, all-reduces, norms, LM head).
  FLOPs: 2 per weight and token of every matmul (the embedding lookup does none),
  plus attention's ``QKᵀ`` and ``AV``, ``4·heads·head_dim·context`` per token and
  layer (context ``(p+1)/2`` causal in prefill, ``p + (d−1)/2`` in decode), split
  evenly over ``n`` chips.
* Weights read once per step: ``/n`` per chip; of a mixture of experts' experts, the
  expected distinct ones the step's ``T`` tokens are routed to, ``E·(1 − (1 − k/E)^T)``
  per layer (uniform routing).  Capacity holds all ``P_total·S_w/n``.
* KV cache: ``2·L·n_kv·head_dim·S_kv`` bytes per token for the whole model;
  tensor parallelism splits the KV heads, ``ceil(n_kv / n)`` per chip (heads
  are replicated when ``n > n_kv``).
* Activations (capacity only): the working set of one layer,
  ``S_a·(B_dense·(2·D + 2·top_k·F/n) + B·V/n)`` — the residual stream in and
  out, the routed experts' gate and up projections, one row of logits per request.
* Network (default ``ring``): two ring all-reduces of the ``B_dense × D``
  activations per layer, each sending ``2(n−1)/n × B_dense·D·S_a`` per chip over the
  chip's one-way link bandwidth.  ``note``: the note's upper bound
  ``4(n−1)·B_dense·D·S_a·L`` (``n − 1`` hops of the whole tensor), ``n`` times more.
* ``t_mem``: the note's ``GPU_mem / MemBW`` (the whole HBM read every step),
  or the refined ``(weights/n + KV read + KV written) / MemBW`` (default);
  ``params["t_mem"]`` selects which one enters the step bounds and the
  throughputs.  The roofline point of each phase always plots the refined
  bytes (the bytes the step actually moves).
* Step bounds as in the note: ``t_lower = max(t_mem, t_compute, t_network)``,
  ``t_upper = t_mem + t_compute + t_network``.  (The generic roofline record
  overlaps HBM and link transfers, so its ``t_upper`` is
  ``t_math + max(t_hbm, t_net)``.)
* Serving cycle: one prefill step then ``d`` decode steps for the batch;
  ``Throughput_total = B·(p+d)/(t_prefill + d·t_decode)`` tokens/s,
  per-request ``= Throughput_total/(p+d)`` requests/s, decode
  ``= d·Throughput_total/(p+d)`` tokens/s.  ``max`` uses the lower step
  bounds, ``min`` the upper ones.
* Capacity: ``weights + B·(p+d) tokens of KV cache + activations`` against
  the chip's HBM capacity; the largest batch that fits is
  ``floor((capacity − weights) / bytes per request)``.
"""


from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

import numpy as np

from roofgui.model.chips import Chip
from roofgui.model.dtypes import Dtype
from roofgui.model.errors import ModelError
from roofgui.model.llm_models import ModelConfig, resolve_model, t_mem_model, t_net_model
from roofgui.model.llm_parts import RING, expected_experts, step_parts, total
from roofgui.model.ops import Shard, Work, get_kind, resolve_dtypes, validate_dims, validate_shard
from roofgui.model.roofline import ChipFigures, Settings, chip_figures

Array = np.ndarray

KIND = "llm"
PHASES = ("prefill", "decode")
SHARD_AXIS = "tp"
#: Bound names by the codes of :func:`phase_times` (0 compute, 1 memory, 2 network).
BOUNDS = np.array(["compute", "memory", "network"], dtype=object)


@dataclass(frozen=True)
class StepTerms:
    """One phase's step on one chip, split into a fixed part and a part per request.

    Every quantity ``X`` of the step is ``fixed_X + B·X_per_request``; all
    fields broadcast over the shapes of ``B``, ``p`` and ``d``.
    """

    phase: str
    batch: Array
    tokens_per_request: Array   # p (prefill) or 1 (decode)
    tokens: Array               # B_dense
    flops: Array                # per chip
    weight_bytes: Array         # per chip, read once per step (fixed)
    kv_read: Array              # per chip
    kv_write: Array             # per chip
    hbm_bytes: Array            # refined: weights + KV read + KV written
    net_bytes: Array            # per chip, the all-reduces
    mem_weights: Array
    mem_kv: Array               # B·(p+d) tokens of KV cache
    mem_act: Array
    mem_total: Array
    mem_per_request: Array      # resident bytes each request adds (KV + activations)
    flops_per_request: Array
    hbm_per_request: Array      # refined HBM bytes each request adds
    net_per_request: Array
    kv_bytes_per_token: float   # whole model
    kv_bytes_per_token_chip: float
    kv_heads_per_chip: int
    act_bytes_per_token_chip: float
    logits_bytes_per_request_chip: float
    parts: tuple = ()           # the step's parts (llm_parts.Part); the totals are their sums
    experts_read: Array | float = 1.0  # expected distinct experts read per layer


def step_terms(cfg: ModelConfig, B, p, d, n: int, dt: Mapping[str, Dtype], phase: str,
               network: str = RING) -> StepTerms:
    """Count one step of ``phase`` (``"prefill"`` or ``"decode"``) per chip.

    ``B``, ``p``, ``d``: concurrent requests, average prefill and decode tokens (numbers or
    arrays ≥ 1); ``n`` chips in tensor parallel; ``dt`` dtypes by role (``w`` weights,
    ``x`` activations, ``kv`` KV cache); ``network``: ``"ring"`` (a ring all-reduce, 2 per
    layer) or ``"note"`` (the note's upper bound ``4(n−1)·B_dense·D·S_a·L``).  The step's
    FLOPs and bytes are the sums of its :func:`~roofgui.model.llm_parts.step_parts`.
    """
    if phase not in PHASES:
        raise ModelError(f"the LLM step has no phase {phase!r} (phases: prefill, decode)", "phase")
    B = np.asarray(B, dtype=np.float64)
    p = np.asarray(p, dtype=np.float64)
    d = np.asarray(d, dtype=np.float64)
    sa, skv = dt["x"].bytes, dt["kv"].bytes
    D, L, F, V = cfg.hidden_size, cfg.layers, cfg.ffn_size, cfg.vocab_size
    kvh_chip = -(-cfg.kv_heads // n)  # ceil: heads are replicated once n exceeds them
    kv_tok = 2.0 * L * cfg.kv_heads * cfg.head_dim * skv
    kv_tok_chip = 2.0 * L * kvh_chip * cfg.head_dim * skv
    act_tok = sa * (2.0 * D + 2.0 * cfg.top_k * F / n)
    logits_req = sa * V / n
    mem_w = cfg.params_total * dt["w"].bytes / n
    t_req = p if phase == "prefill" else 1.0 + 0.0 * p
    parts = step_parts(cfg, B, p, d, n, dt, phase, network)
    shape = np.broadcast_shapes(B.shape, p.shape, d.shape)

    def b(a) -> Array:
        return np.broadcast_to(np.asarray(a, dtype=np.float64), shape)

    flops, weights = total(parts, "flops"), total(parts, "weight_bytes")
    kv, net = total(parts, "kv_bytes"), total(parts, "net_bytes")
    kv_write = B * t_req * kv_tok_chip
    mem_req = (p + d) * kv_tok_chip + t_req * act_tok + logits_req
    mem_act = B * (t_req * act_tok + logits_req)
    return StepTerms(
        phase=phase, batch=b(B), tokens_per_request=b(t_req), tokens=b(B * t_req),
        flops=b(flops), weight_bytes=b(weights), kv_read=b(kv - kv_write),
        kv_write=b(kv_write), hbm_bytes=b(weights + kv), net_bytes=b(net),
        mem_weights=b(mem_w), mem_kv=b(B * (p + d) * kv_tok_chip), mem_act=b(mem_act),
        mem_total=b(mem_w + B * mem_req), mem_per_request=b(mem_req),
        flops_per_request=b(flops / B), hbm_per_request=b(kv / B), net_per_request=b(net / B),
        kv_bytes_per_token=kv_tok, kv_bytes_per_token_chip=kv_tok_chip,
        kv_heads_per_chip=kvh_chip, act_bytes_per_token_chip=act_tok,
        logits_bytes_per_request_chip=logits_req, parts=parts,
        experts_read=b(expected_experts(cfg.experts, cfg.top_k, B * t_req)))


@dataclass(frozen=True)
class LLMInputs:
    """Everything an LLM summary needs, validated."""

    model: ModelConfig
    dims: Mapping[str, Array]
    dtypes: Mapping[str, Dtype]
    shard: Shard | None
    params: Mapping[str, Any]
    t_mem: str
    t_net: str = RING

    @property
    def n(self) -> int:
        return self.shard.n if self.shard is not None else 1


def llm_inputs(op: Any) -> LLMInputs:
    """Validate an op (an :class:`~roofgui.model.scenario.OpSpec`, or anything with
    ``dims``, ``dtypes``, ``shard`` and ``params``; ``shard`` may be a
    ``ShardSpec``, a :class:`Shard` or ``None``)."""
    kind = get_kind(KIND)
    kind_name = getattr(op, "kind", KIND)
    if kind_name != KIND:
        raise ModelError(f"not an LLM step (kind {kind_name!r})", "op")
    params = dict(getattr(op, "params", None) or {})
    dims = validate_dims(kind, dict(getattr(op, "dims", None) or {}))
    dtypes = resolve_dtypes(kind, dict(getattr(op, "dtypes", None) or {}))
    sh = getattr(op, "shard", None)
    if sh is not None and not isinstance(sh, Shard):
        sh = None if int(sh.n) == 1 else Shard(sh.axis, int(sh.n), sh.link)
    shard = validate_shard(kind, sh)
    return LLMInputs(resolve_model(params), dims, dtypes, shard, params, t_mem_model(params),
                     t_net_model(params))


def crit_batch(a_c: Array, c_m: Array, a_m: Array, a_n: Array) -> Array:
    """Batch where ``t_compute = a_c·B`` reaches ``max(c_m + a_m·B, a_n·B)``; NaN if never.

    ``t_network`` has no fixed part, so the step is compute-bound beyond
    ``c_m/(a_c − a_m)`` when ``a_c`` exceeds both slopes, and never otherwise.
    """
    with np.errstate(divide="ignore", invalid="ignore"):
        x = c_m / (a_c - a_m)
    ok = (a_c > a_m) & (a_c >= a_n) & (c_m > 0)
    return np.where(ok, x, np.nan)


def max_batch(capacity: float, weights: Array, per_request: Array) -> Array:
    """``floor((capacity − weights) / per_request)``, nudged so that it agrees exactly with
    the fit test ``weights + B·per_request ≤ capacity`` in floating point."""
    with np.errstate(divide="ignore", invalid="ignore"):
        b = np.maximum(np.floor((capacity - weights) / per_request), 0.0)
    b = np.where(weights + (b + 1.0) * per_request <= capacity, b + 1.0, b)
    b = np.where((b > 0) & (weights + b * per_request > capacity), b - 1.0, b)
    return np.where(weights >= capacity, 0.0, b)


def phase_times(t: StepTerms, fig: ChipFigures, capacity: float, t_mem: str) -> dict[str, Array]:
    peak, bw = fig.peak, fig.hbm_bandwidth
    link = fig.link_bandwidth or 0.0
    with np.errstate(divide="ignore", invalid="ignore"):
        t_compute = t.flops / peak
        t_mem_ref = t.hbm_bytes / bw
        t_mem_note = np.broadcast_to(capacity / bw, t_compute.shape)
        t_net = np.where(t.net_bytes > 0, t.net_bytes / (link if link > 0 else np.inf), 0.0)
    t_m = t_mem_ref if t_mem == "refined" else t_mem_note
    lower = np.maximum(np.maximum(t_m, t_compute), t_net)
    upper = t_m + t_compute + t_net
    code = np.where(t_compute >= np.maximum(t_m, t_net), 0, np.where(t_m >= t_net, 1, 2))
    a_c = t.flops_per_request / peak
    if t_mem == "refined":
        c_m, a_m = t.weight_bytes / bw, t.hbm_per_request / bw
    else:
        c_m, a_m = t_mem_note, 0.0 * a_c
    a_n = t.net_per_request / link if link > 0 else 0.0 * a_c
    with np.errstate(divide="ignore", invalid="ignore"):
        intensity = t.flops / t.hbm_bytes
    return {"t_compute": t_compute, "t_mem_refined": t_mem_ref, "t_mem_note": t_mem_note,
            "t_mem": t_m, "t_network": t_net, "t_step_lower": lower, "t_step_upper": upper,
            "bound_code": code, "critical_batch": crit_batch(a_c, c_m, a_m, a_n),
            "max_batch": max_batch(capacity, t.mem_weights, t.mem_per_request),
            "fits": t.mem_total <= capacity, "intensity": intensity,
            "step_throughput_max": t.tokens / lower, "step_throughput_min": t.tokens / upper}


def serving(B: Array, p: Array, d: Array, pre: Mapping[str, Array], dec: Mapping[str, Array]) -> dict:
    cyc_lo = pre["t_step_lower"] + d * dec["t_step_lower"]
    cyc_hi = pre["t_step_upper"] + d * dec["t_step_upper"]
    tot_max = B * (p + d) / cyc_lo
    tot_min = B * (p + d) / cyc_hi
    return {"cycle_time_lower": cyc_lo, "cycle_time_upper": cyc_hi,
            "throughput_total_max": tot_max, "throughput_total_min": tot_min,
            "throughput_per_request_max": tot_max / (p + d),
            "throughput_per_request_min": tot_min / (p + d),
            "throughput_decode_max": d * tot_max / (p + d),
            "throughput_decode_min": d * tot_min / (p + d),
            "ttft_lower": pre["t_step_lower"], "ttft_upper": pre["t_step_upper"],
            "tpot_lower": dec["t_step_lower"], "tpot_upper": dec["t_step_upper"]}


def step_figures(inp: LLMInputs, chip: Chip, settings: Settings) -> ChipFigures:
    """The chip figures the step runs against (its compute dtype's peak, its link)."""
    probe = Work(np.float64(1.0), np.float64(1.0), np.float64(0.0), "matrix", inp.dtypes["compute"],
                 inp.shard.link if inp.shard is not None else None, inp.n)
    return chip_figures(chip, probe, settings)

