"""The LLM inference step: prefill and decode of a transformer on ``n`` tensor-parallel chips.

Registered as op kind ``"llm"`` with phases ``("prefill", "decode")``, so a
scenario places two points per chip on the roofline.  The step model follows
the serving-throughput note (``t_mem``, ``t_compute``, ``t_network``, their
max and sum, and the total / per-request / decode throughputs), adds the
refined memory time (weights plus the KV cache actually touched), and the
roofline's third constraint, memory capacity.  docs/llm.md states every
formula; the summary's ``working`` lines show each with its numbers.

Conventions (all figures per chip unless named otherwise)
--------------------------------------------------------
* Inputs: ``B`` concurrent requests, ``p`` average prefill (prompt) tokens,
  ``d`` average decode (generated) tokens per request, ``n`` chips in
  tensor parallel over one link.
* The **prefill step** processes the prompts of all ``B`` requests:
  ``B_dense = B·p`` tokens.  The **decode step** generates one token for
  each request: ``B_dense = B``; its KV cache read is the average context
  ``p + (d − 1)/2`` tokens per request.
* FLOPs are the note's dense count ``2·P_active·B_dense`` (a multiply-add
  per active weight per token), split evenly over ``n`` chips.  Attention
  score FLOPs (``4·L·context·head_dim·heads`` per token) are not counted.
* Weights: ``P_total·S_w/n`` bytes per chip, all read once per step (for a
  mixture of experts every expert is read: true once ``B_dense·top_k ≫ experts``).
* KV cache: ``2·L·n_kv·head_dim·S_kv`` bytes per token for the whole model;
  tensor parallelism splits the KV heads, ``ceil(n_kv / n)`` per chip (heads
  are replicated when ``n > n_kv``).
* Activations (capacity only): the working set of one layer,
  ``S_a·(B_dense·(2·D + 2·top_k·F/n) + B·V/n)`` — the residual stream in and
  out, the routed experts' gate and up projections, one row of logits per request.
* Network: the note's ``4(n−1)·B_dense·D·S_a·L`` bytes — four AllGathers of
  the ``B_dense × D`` activations per layer, each ``n − 1`` hops (equivalently
  Megatron's two AllReduces per layer, an AllReduce ≈ twice an AllGather).
  A bandwidth-optimal ring would send ``(n−1)/n`` of each tensor instead of
  ``n − 1`` tensors, so this figure is pessimistic by a factor ``n``.
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

import math
import tomllib
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any, Mapping

import numpy as np

from roofgui.model.chips import Chip
from roofgui.model.dtypes import Dtype
from roofgui.model.errors import ModelError, SpecError
from roofgui.model.ops import (DimSpec, OpKind, Shard, Work, get_kind, register, resolve_dtypes, validate_dims,
                  validate_shard)
from roofgui.model.roofline import ChipFigures, Settings, chip_figures
from roofgui.model.units import format_number, format_si, format_time, parse_quantity

Array = np.ndarray

KIND = "llm"
PHASES = ("prefill", "decode")
SHARD_AXIS = "tp"
DEFAULT_MODEL = "llama-3-8b"
CUSTOM = "custom"
T_MEM_MODELS = ("refined", "note")
T_NET_MODELS = ("note", "ring")
FORMAT_VERSION = 1
MAX_FILE_BYTES = 256 * 1024

#: Architecture fields of a model: (name, label, upper limit).  All whole numbers ≥ 1.
ARCH_FIELDS: tuple[tuple[str, str, float], ...] = (
    ("hidden_size", "Hidden size D", 1e6),
    ("layers", "Layers L", 1e5),
    ("heads", "Attention heads", 1e5),
    ("kv_heads", "KV heads (GQA)", 1e5),
    ("head_dim", "Head dimension", 1e5),
    ("ffn_size", "FFN size F", 1e7),
    ("vocab_size", "Vocabulary V", 1e8),
    ("experts", "Experts", 1e5),
    ("top_k", "Experts per token (top-k)", 1e5),
    ("params_total", "Parameters (total)", 1e15),
    ("params_active", "Parameters (active per token)", 1e15),
)
ARCH_NAMES = tuple(f[0] for f in ARCH_FIELDS)
#: Every key ``OpSpec.params`` may hold for the LLM step.
PARAM_KEYS = ("model", "t_mem", "t_net") + ARCH_NAMES


# -- model presets ---------------------------------------------------------------

@dataclass(frozen=True)
class ModelConfig:
    """A transformer's published configuration.

    Attributes
    ----------
    id, name:
        Preset id (``llama-3-70b``; ``custom`` for a user model) and display name.
    hidden_size, layers, heads, kv_heads, head_dim, ffn_size, vocab_size:
        ``D``, ``L``, attention heads, key/value heads (GQA), ``D/heads``
        unless stated, FFN (intermediate) size ``F`` of one expert, vocabulary ``V``.
    experts, top_k:
        Experts per layer and experts each token is routed to (1 and 1 when dense).
    params_total, params_active:
        Weights held, and weights used per token.
    source, paper, params_source:
        Citation keys (into ``citations``) of the config figures, the model
        paper and the published parameter count.
    """

    id: str
    name: str
    hidden_size: int
    layers: int
    heads: int
    kv_heads: int
    head_dim: int
    ffn_size: int
    vocab_size: int
    experts: int
    top_k: int
    params_total: int
    params_active: int
    source: str = ""
    paper: str = ""
    params_source: str = ""
    note: str = ""
    citations: Mapping[str, str] = field(default_factory=dict)

    @property
    def group_size(self) -> int:
        """``R_GQA``: query heads per KV head."""
        return self.heads // self.kv_heads

    def arch(self) -> dict[str, int]:
        return {k: getattr(self, k) for k in ARCH_NAMES}

    def citation_lines(self) -> list[str]:
        out = []
        for label, key in (("config", self.source), ("paper", self.paper),
                           ("parameter count", self.params_source)):
            if key:
                out.append(f"{label}: [{key}] {self.citations.get(key, key)}")
        return out


def architecture_params(hidden_size: int, layers: int, heads: int, kv_heads: int, head_dim: int,
                        ffn_size: int, vocab_size: int, experts: int = 1,
                        top_k: int = 1) -> tuple[int, int]:
    """Weights of a Llama-style decoder (total, active per token).

    Per layer: Q and O projections ``2·D·heads·head_dim``, K and V
    ``2·D·kv_heads·head_dim``, ``experts`` SwiGLU FFNs of ``3·D·F`` each
    (``top_k`` of them active), a router ``D·experts`` when ``experts > 1``
    and two RMSNorm weights ``2·D``.  Plus untied input embeddings and LM
    head ``2·V·D`` and the final norm ``D``.

    Returns
    -------
    tuple of int
        ``(params_total, params_active)``.
    """
    D = hidden_size
    attn = 2 * D * heads * head_dim + 2 * D * kv_heads * head_dim
    ffn = 3 * D * ffn_size
    router = D * experts if experts > 1 else 0
    rest = router + 2 * D
    total = layers * (attn + experts * ffn + rest) + 2 * vocab_size * D + D
    active = layers * (attn + top_k * ffn + rest) + 2 * vocab_size * D + D
    return total, active


def _builtin_model_file() -> tuple[str, bytes] | None:
    try:
        f = resources.files("roofgui") / "specs" / "models" / "llm.toml"
        if f.is_file():
            return "specs/models/llm.toml", f.read_bytes()
    except (ModuleNotFoundError, FileNotFoundError, NotADirectoryError):
        pass
    p = Path(__file__).resolve().parents[2] / "specs" / "models" / "llm.toml"
    if p.is_file():
        return "specs/models/llm.toml", p.read_bytes()
    return None


def _norm_id(name: str) -> str:
    return "".join(c for c in name.lower() if c.isalnum())


_MODEL_KEYS = {"name", "source", "paper", "params_source", "note"} | set(ARCH_NAMES)


def parse_model_toml(raw: bytes | str, where: str) -> dict[str, ModelConfig]:
    """Read and validate a model preset file (schema in its header comment).

    Raises
    ------
    SpecError
        Naming the file, the key and the problem.
    """
    if isinstance(raw, bytes):
        if len(raw) > MAX_FILE_BYTES:
            raise SpecError(where, None, f"file is too large ({len(raw)} bytes; limit {MAX_FILE_BYTES})")
        try:
            raw = raw.decode("utf-8")
        except UnicodeDecodeError:
            raise SpecError(where, None, "not a text file (not valid UTF-8)") from None
    try:
        data = tomllib.loads(raw)
    except tomllib.TOMLDecodeError as e:
        raise SpecError(where, None, f"not valid TOML: {e}") from None
    for k in data:
        if k not in ("format", "sources", "models"):
            raise SpecError(where, k, "unknown key (allowed: format, models, sources)")
    fmt = data.get("format")
    if isinstance(fmt, bool) or not isinstance(fmt, int) or not 1 <= fmt <= FORMAT_VERSION:
        raise SpecError(where, "format", f"must be {FORMAT_VERSION}")
    sources = data.get("sources", {})
    if not isinstance(sources, dict):
        raise SpecError(where, "sources", "must be a table")
    for k, v in sources.items():
        if not isinstance(v, str) or not v.strip():
            raise SpecError(where, f"sources.{k}", "must be a non-empty citation string")
    models = data.get("models", {})
    if not isinstance(models, dict):
        raise SpecError(where, "models", "must be a table")
    out: dict[str, ModelConfig] = {}
    for mid, m in models.items():
        key = f"models.{mid}"
        if not isinstance(m, dict):
            raise SpecError(where, key, "must be a table")
        if _norm_id(mid) == CUSTOM:
            raise SpecError(where, key, "'custom' is reserved for user-entered models")
        for k in m:
            if k not in _MODEL_KEYS:
                raise SpecError(where, f"{key}.{k}", f"unknown key (allowed: {', '.join(sorted(_MODEL_KEYS))})")
        for k in ("name", "source", "paper", "params_source"):
            v = m.get(k)
            if not isinstance(v, str) or not v:
                raise SpecError(where, f"{key}.{k}", "is missing (every preset figure is cited)")
            if k != "name" and v not in sources:
                raise SpecError(where, f"{key}.{k}", f"{v!r} is not a key of [sources]")
        arch = {k: m[k] for k in ARCH_NAMES if k in m}
        try:
            cfg = build_config(mid, m["name"], arch, require_all=True)
        except ModelError as e:
            raise SpecError(where, f"{key}.{e.field}" if e.field else key, e.args[0]) from None
        out[mid] = ModelConfig(**{**cfg.__dict__, "source": m["source"], "paper": m["paper"],
                                  "params_source": m["params_source"], "note": m.get("note", ""),
                                  "citations": dict(sources)})
    return out


@lru_cache(maxsize=1)
def presets() -> dict[str, ModelConfig]:
    """The shipped model presets, by id (read once).

    Raises
    ------
    SpecError
        If the shipped file is missing or malformed.
    """
    f = _builtin_model_file()
    if f is None:
        raise SpecError("specs/models/llm.toml", None, "the model preset file is missing")
    return parse_model_toml(f[1], f[0])


def model_ids() -> list[str]:
    """Preset ids in file order, then ``custom``."""
    return list(presets()) + [CUSTOM]


def get_preset(name: str) -> ModelConfig:
    """A preset by id, ignoring case and punctuation (``llama-3.1-405b`` = ``Llama_3_1_405B``)."""
    if not isinstance(name, str):
        raise ModelError(f"must be a model id, not {type(name).__name__}", "model")
    key = _norm_id(name)
    for mid, cfg in presets().items():
        if _norm_id(mid) == key:
            return cfg
    raise ModelError(f"unknown model {name!r} (known: {', '.join(model_ids())})", "model")


def _whole(v: Any, name: str, limit: float) -> int:
    if isinstance(v, str):
        v = parse_quantity(v, name, integer=True, max_value=limit)
    if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, float, np.integer, np.floating)):
        raise ModelError(f"must be a whole number, not {type(v).__name__}", name)
    x = float(v)
    if math.isnan(x):
        raise ModelError("is not a number (NaN)", name)
    if math.isinf(x):
        raise ModelError("must be finite", name)
    if x < 1:
        raise ModelError(f"must be at least 1 (got {x:g})", name)
    if x > limit:
        raise ModelError(f"is too large (got {x:g}; at most {limit:g})", name)
    if x != math.floor(x):
        raise ModelError(f"must be a whole number (got {x:g})", name)
    return int(x)


def build_config(mid: str, name: str, arch: Mapping[str, Any], *, require_all: bool = False) -> ModelConfig:
    """Validate architecture fields and fill the optional ones.

    ``head_dim`` defaults to ``hidden_size / heads``; ``experts`` and
    ``top_k`` to 1; ``params_total`` and ``params_active`` to
    :func:`architecture_params` (with a given total, the active count is the
    total less the unrouted experts).  With ``require_all`` every field
    except ``head_dim`` must be present.
    """
    limits = {k: lim for k, _, lim in ARCH_FIELDS}
    for k in arch:
        if k not in limits:
            raise ModelError(f"unknown model field (known: {', '.join(ARCH_NAMES)})", k)
    v = {k: _whole(arch[k], k, limits[k]) for k in arch}
    needed = ("hidden_size", "layers", "heads", "kv_heads", "ffn_size", "vocab_size")
    if require_all:
        needed += ("experts", "top_k", "params_total", "params_active")
    for k in needed:
        if k not in v:
            raise ModelError(f"is missing (a custom model needs {', '.join(needed)})", k)
    D, H, Hkv = v["hidden_size"], v["heads"], v["kv_heads"]
    if Hkv > H or H % Hkv:
        raise ModelError(f"must divide the attention heads ({H}); got {Hkv}", "kv_heads")
    if "head_dim" not in v:
        if D % H:
            raise ModelError(f"hidden size {D} is not a multiple of {H} heads; give head_dim", "head_dim")
        v["head_dim"] = D // H
    v.setdefault("experts", 1)
    v.setdefault("top_k", 1)
    if v["top_k"] > v["experts"]:
        raise ModelError(f"must be at most the number of experts ({v['experts']})", "top_k")
    total, active = architecture_params(D, v["layers"], H, Hkv, v["head_dim"], v["ffn_size"],
                                        v["vocab_size"], v["experts"], v["top_k"])
    if "params_total" not in v:
        v["params_total"] = total
    if "params_active" not in v:
        unrouted = v["layers"] * (v["experts"] - v["top_k"]) * 3 * D * v["ffn_size"]
        v["params_active"] = v["params_total"] - unrouted
        if v["params_active"] < 1:
            raise ModelError("the total is smaller than the experts it must hold; give params_active",
                             "params_total")
    if v["params_active"] > v["params_total"]:
        raise ModelError(f"must be at most params_total ({v['params_total']})", "params_active")
    return ModelConfig(id=mid, name=name, **v)


def resolve_model(params: Mapping[str, Any] | None) -> ModelConfig:
    """The model an op's ``params`` describe: a preset, or ``custom`` fields.

    A preset may repeat its own figures (a form that writes every field)
    but not change them: choose ``model = "custom"`` to edit a model.
    """
    params = params or {}
    for k in params:
        if k not in PARAM_KEYS:
            raise ModelError(f"unknown parameter {k!r} of the LLM step (known: {', '.join(PARAM_KEYS)})",
                             "params")
    name = params.get("model", DEFAULT_MODEL)
    if not isinstance(name, str):
        raise ModelError(f"must be a model id, not {type(name).__name__}", "model")
    arch = {k: params[k] for k in ARCH_NAMES if k in params and params[k] is not None}
    if _norm_id(name) == CUSTOM:
        return build_config(CUSTOM, "Custom model", arch)
    cfg = get_preset(name)
    mine = cfg.arch()
    for k, val in arch.items():
        if _whole(val, k, dict((a, c) for a, _, c in ARCH_FIELDS)[k]) != mine[k]:
            raise ModelError(f"{cfg.name} has {k} = {mine[k]}; choose model 'custom' to change it", k)
    return cfg


def t_mem_model(params: Mapping[str, Any] | None) -> str:
    """``"refined"`` (default) or ``"note"``: which t_mem the step bounds use."""
    v = (params or {}).get("t_mem", "refined")
    if v not in T_MEM_MODELS:
        raise ModelError(f"must be 'refined' or 'note' (got {v!r})", "t_mem")
    return v


def t_net_model(params: Mapping[str, Any] | None) -> str:
    """``"note"`` (default: ``n − 1`` hops of the whole tensor per AllGather) or
    ``"ring"`` (a bandwidth-optimal ring: ``(n − 1)/n`` of it per chip)."""
    v = (params or {}).get("t_net", "note")
    if v not in T_NET_MODELS:
        raise ModelError(f"must be 'note' or 'ring' (got {v!r})", "t_net")
    return v


# -- the step, per chip ------------------------------------------------------------

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
    net_bytes: Array            # per chip, the note's AllGathers
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


def step_terms(cfg: ModelConfig, B, p, d, n: int, dt: Mapping[str, Dtype], phase: str,
               network: str = "note") -> StepTerms:
    """Count one step of ``phase`` per chip.

    Parameters
    ----------
    cfg:
        The model.
    B, p, d:
        Concurrent requests, average prefill and decode tokens (numbers or arrays ≥ 1).
    n:
        Chips in tensor parallel.
    dt:
        Dtypes by role: ``w`` weights, ``x`` activations, ``kv`` KV cache.
    phase:
        ``"prefill"`` or ``"decode"``.
    network:
        ``"note"``: ``4(n−1)·B_dense·D·S_a·L`` link bytes; ``"ring"``: ``/n`` of that.

    Returns
    -------
    StepTerms
    """
    if phase not in PHASES:
        raise ModelError(f"the LLM step has no phase {phase!r} (phases: prefill, decode)", "phase")
    B = np.asarray(B, dtype=np.float64)
    p = np.asarray(p, dtype=np.float64)
    d = np.asarray(d, dtype=np.float64)
    sw, sa, skv = dt["w"].bytes, dt["x"].bytes, dt["kv"].bytes
    D, L, F, V = cfg.hidden_size, cfg.layers, cfg.ffn_size, cfg.vocab_size
    kvh_chip = -(-cfg.kv_heads // n)  # ceil: heads are replicated once n exceeds them
    kv_tok = 2.0 * L * cfg.kv_heads * cfg.head_dim * skv
    kv_tok_chip = 2.0 * L * kvh_chip * cfg.head_dim * skv
    act_tok = sa * (2.0 * D + 2.0 * cfg.top_k * F / n)
    logits_req = sa * V / n
    weights = cfg.params_total * sw / n
    if phase == "prefill":
        t_req = p
        kv_read_req = 0.0 * p
        kv_write_req = p * kv_tok_chip
    else:
        t_req = 1.0 + 0.0 * p
        kv_read_req = (p + (d - 1.0) / 2.0) * kv_tok_chip
        kv_write_req = kv_tok_chip + 0.0 * p
    flops_req = 2.0 * cfg.params_active * t_req / n
    net_req = 4.0 * (n - 1) * t_req * D * sa * L
    if network == "ring":
        net_req = net_req / n
    mem_req = (p + d) * kv_tok_chip + t_req * act_tok + logits_req
    hbm_req = kv_read_req + kv_write_req
    shape = np.broadcast_shapes(B.shape, p.shape, d.shape)

    def b(a) -> Array:
        return np.broadcast_to(np.asarray(a, dtype=np.float64), shape)

    w = b(weights)
    mem_kv = B * (p + d) * kv_tok_chip
    mem_act = B * (t_req * act_tok + logits_req)
    return StepTerms(
        phase=phase, batch=b(B), tokens_per_request=b(t_req), tokens=b(B * t_req),
        flops=b(B * flops_req), weight_bytes=w, kv_read=b(B * kv_read_req),
        kv_write=b(B * kv_write_req), hbm_bytes=b(weights + B * hbm_req), net_bytes=b(B * net_req),
        mem_weights=w, mem_kv=b(mem_kv), mem_act=b(mem_act), mem_total=b(weights + B * mem_req),
        mem_per_request=b(mem_req), flops_per_request=b(flops_req), hbm_per_request=b(hbm_req),
        net_per_request=b(net_req), kv_bytes_per_token=kv_tok, kv_bytes_per_token_chip=kv_tok_chip,
        kv_heads_per_chip=kvh_chip, act_bytes_per_token_chip=act_tok,
        logits_bytes_per_request_chip=logits_req)


def llm_work(dims: Mapping[str, Array], dt: Mapping[str, Dtype], shard: Shard | None,
             params: Mapping | None = None, phase: str = "decode") -> Work:
    """The op-kind work function: FLOPs, refined HBM bytes and link bytes per chip."""
    cfg = resolve_model(params)
    t_mem_model(params)
    net = t_net_model(params)
    n = shard.n if shard is not None else 1
    t = step_terms(cfg, dims["B"], dims["p"], dims["d"], n, dt, phase, net)
    sw, sa, skv = dt["w"].bytes, dt["x"].bytes, dt["kv"].bytes
    tokens = "B·p" if phase == "prefill" else "B"
    if phase == "prefill":
        kv = f"KV written B·p·{t.kv_bytes_per_token_chip:.4g}"
    else:
        kv = (f"KV read B·(p + (d−1)/2)·{t.kv_bytes_per_token_chip:.4g} + "
              f"KV written B·{t.kv_bytes_per_token_chip:.4g}")
    f = {"flops": f"2·P_active·{tokens}/n = 2·{cfg.params_active:.4g}·{tokens}/{n}",
         "hbm_bytes": f"weights P_total·S_w/n = {cfg.params_total:.4g}·{sw:g}/{n} + {kv}"}
    if n > 1:
        f["per_chip"] = (f"tensor parallel over {n} chips: weights and FLOPs /{n}, "
                         f"{t.kv_heads_per_chip} of {cfg.kv_heads} KV heads per chip")
        ring = f"/{n}" if net == "ring" else ""
        f["net_bytes"] = (f"4·(n−1){'/n' if ring else ''}·{tokens}·D·S_a·L = "
                          f"4·{n - 1}{ring}·{tokens}·{cfg.hidden_size}·{sa:g}·{cfg.layers}")
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


# -- inputs of a whole summary -------------------------------------------------------

@dataclass(frozen=True)
class LLMInputs:
    """Everything an LLM summary needs, validated."""

    model: ModelConfig
    dims: Mapping[str, Array]
    dtypes: Mapping[str, Dtype]
    shard: Shard | None
    params: Mapping[str, Any]
    t_mem: str
    t_net: str = "note"

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


# -- bounds, throughputs and capacity --------------------------------------------------

def _crit_batch(a_c: Array, c_m: Array, a_m: Array, a_n: Array) -> Array:
    """Batch where ``t_compute = a_c·B`` reaches ``max(c_m + a_m·B, a_n·B)``; NaN if never.

    ``t_network`` has no fixed part, so the step is compute-bound beyond
    ``c_m/(a_c − a_m)`` when ``a_c`` exceeds both slopes, and never otherwise.
    """
    with np.errstate(divide="ignore", invalid="ignore"):
        x = c_m / (a_c - a_m)
    ok = (a_c > a_m) & (a_c >= a_n) & (c_m > 0)
    return np.where(ok, x, np.nan)


def _max_batch(capacity: float, weights: Array, per_request: Array) -> Array:
    """``floor((capacity − weights) / per_request)``, nudged so that it agrees exactly with
    the fit test ``weights + B·per_request ≤ capacity`` in floating point."""
    with np.errstate(divide="ignore", invalid="ignore"):
        b = np.maximum(np.floor((capacity - weights) / per_request), 0.0)
    b = np.where(weights + (b + 1.0) * per_request <= capacity, b + 1.0, b)
    b = np.where((b > 0) & (weights + b * per_request > capacity), b - 1.0, b)
    return np.where(weights >= capacity, 0.0, b)


def _phase_times(t: StepTerms, fig: ChipFigures, capacity: float, t_mem: str) -> dict[str, Array]:
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
            "bound_code": code, "critical_batch": _crit_batch(a_c, c_m, a_m, a_n),
            "max_batch": _max_batch(capacity, t.mem_weights, t.mem_per_request),
            "fits": t.mem_total <= capacity, "intensity": intensity,
            "step_throughput_max": t.tokens / lower, "step_throughput_min": t.tokens / upper}


_BOUNDS = np.array(["compute", "memory", "network"], dtype=object)


def _serving(B: Array, p: Array, d: Array, pre: Mapping[str, Array], dec: Mapping[str, Array]) -> dict:
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


def _figures(inp: LLMInputs, chip: Chip, settings: Settings) -> ChipFigures:
    probe = Work(np.float64(1.0), np.float64(1.0), np.float64(0.0), "matrix", inp.dtypes["compute"],
                 inp.shard.link if inp.shard is not None else None, inp.n)
    return chip_figures(chip, probe, settings)


def _num(v: Any) -> float | None:
    x = float(v)
    return x if math.isfinite(x) else None


def llm_summary(op: Any, chip: Chip, settings: Settings = Settings(), *,
                figures: ChipFigures | None = None) -> dict[str, Any]:
    """Every term of the note for one op on one chip, with its working.

    Parameters
    ----------
    op:
        An ``OpSpec`` of kind ``llm`` (scalar dims).
    chip:
        The chip, before what-ifs (``settings`` applies them), unless
        ``figures`` is given: then those chip figures are used as they are
        (the CLI passes an analysis' figures).
    settings:
        What-if multipliers and derating.

    Returns
    -------
    dict
        JSON-ready: ``model``, ``inputs``, ``chip``, ``phases`` (``prefill``
        and ``decode``: step terms, bounds, intensity, critical batch,
        memory), ``serving`` (cycle, throughputs, TTFT and TPOT), ``memory``
        (fit over both phases, largest batch), ``working`` (formula lines
        with numbers) and ``notes``.  Times in s, bytes in B, throughputs in
        tokens/s or requests/s; ``None`` for no value.
    """
    inp = llm_inputs(op)
    for k, v in inp.dims.items():
        if np.ndim(v):
            raise ModelError("llm_summary takes single values; use llm_sweep for arrays", k)
    fig = figures if figures is not None else _figures(inp, chip, settings)
    capacity = float(fig.chip.hbm_capacity.value)
    cfg, n = inp.model, inp.n
    B, p, d = (float(inp.dims[k]) for k in ("B", "p", "d"))
    terms = {ph: step_terms(cfg, B, p, d, n, inp.dtypes, ph, inp.t_net) for ph in PHASES}
    times = {ph: _phase_times(terms[ph], fig, capacity, inp.t_mem) for ph in PHASES}
    serving = _serving(np.float64(B), np.float64(p), np.float64(d), times["prefill"], times["decode"])
    dt = inp.dtypes
    out_phases = {}
    for ph in PHASES:
        t, r = terms[ph], times[ph]
        out_phases[ph] = {
            "tokens": _num(t.tokens), "flops": _num(t.flops), "hbm_bytes_refined": _num(t.hbm_bytes),
            "weight_bytes": _num(t.weight_bytes), "kv_read_bytes": _num(t.kv_read),
            "kv_write_bytes": _num(t.kv_write), "net_bytes": _num(t.net_bytes),
            "t_compute": _num(r["t_compute"]), "t_mem": _num(r["t_mem"]), "t_mem_model": inp.t_mem,
            "t_mem_note": _num(r["t_mem_note"]), "t_mem_refined": _num(r["t_mem_refined"]),
            "t_network": _num(r["t_network"]), "t_step_lower": _num(r["t_step_lower"]),
            "t_step_upper": _num(r["t_step_upper"]), "bound": str(_BOUNDS[int(r["bound_code"])]),
            "intensity": _num(r["intensity"]), "critical_batch": _num(r["critical_batch"]),
            "critical_tokens": _num(r["critical_batch"] * t.tokens_per_request),
            "step_throughput_max": _num(r["step_throughput_max"]),
            "step_throughput_min": _num(r["step_throughput_min"]),
            "memory": {"weights": _num(t.mem_weights), "kv_cache": _num(t.mem_kv),
                       "activations": _num(t.mem_act), "total": _num(t.mem_total),
                       "capacity": capacity, "fits": bool(r["fits"]),
                       "per_request": _num(t.mem_per_request), "max_batch": int(r["max_batch"])},
        }
    max_batch = min(out_phases[ph]["memory"]["max_batch"] for ph in PHASES)
    fits = all(out_phases[ph]["memory"]["fits"] for ph in PHASES)
    t0 = terms["decode"]
    notes = list(fig.notes)
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
        notes.append(f"mixture of experts: every step reads all {cfg.experts} experts' weights "
                     f"(true once B_dense·top_k ≫ {cfg.experts}); FLOPs use the {cfg.top_k} routed")
    if not fits:
        notes.append(f"batch {B:g} does not fit in {format_si(capacity, 'B')} per chip "
                     f"(largest that fits: {max_batch})")
    summary = {
        "model": {"id": cfg.id, "name": cfg.name, **cfg.arch(), "group_size": cfg.group_size,
                  "citations": cfg.citation_lines()},
        "inputs": {"batch": B, "prefill": p, "decode": d, "chips": n,
                   # the link used: "scale-up" names each chip's own (nvlink, xgmi, ici …)
                   "link": (fig.link_name or inp.shard.link) if inp.shard is not None else None,
                   "w_dtype": dt["w"].name, "act_dtype": dt["x"].name, "kv_dtype": dt["kv"].name,
                   "compute_dtype": dt["compute"].name, "t_mem_model": inp.t_mem,
                   "t_net_model": inp.t_net},
        "chip": {"id": fig.chip.id, "name": fig.chip.label(), "peak_flops": fig.peak,
                 "peak_dtype": fig.peak_info.key, "hbm_bandwidth": fig.hbm_bandwidth,
                 "hbm_capacity": capacity, "link_bandwidth": fig.link_bandwidth},
        "kv_bytes_per_token": t0.kv_bytes_per_token,
        "kv_bytes_per_token_per_chip": t0.kv_bytes_per_token_chip,
        "kv_heads_per_chip": t0.kv_heads_per_chip,
        "weight_bytes": cfg.params_total * dt["w"].bytes,
        "weight_bytes_per_chip": float(t0.mem_weights),
        "phases": out_phases,
        "serving": {k: _num(v) for k, v in serving.items()},
        "memory": {"fits": fits, "max_batch": max_batch, "capacity": capacity,
                   "total": max(out_phases[ph]["memory"]["total"] for ph in PHASES)},
        "t_mem_model": inp.t_mem,
        "t_net_model": inp.t_net,
        "notes": notes,
    }
    summary["working"] = _working(summary, inp)
    return summary


def _working(s: Mapping[str, Any], inp: LLMInputs) -> list[str]:
    """The formula of every term with its numbers put in."""
    cfg, n = inp.model, inp.n
    dt = inp.dtypes
    sw, sa, skv = dt["w"].bytes, dt["x"].bytes, dt["kv"].bytes
    c, i = s["chip"], s["inputs"]
    B, p, d = i["batch"], i["prefill"], i["decode"]
    g = lambda v: "—" if v is None else f"{float(v):.4g}"  # noqa: E731
    B_ = lambda v: format_si(v, "B")  # noqa: E731
    T = lambda v: "—" if v is None else format_time(v)  # noqa: E731
    N = format_number
    L, D, F, V = cfg.layers, cfg.hidden_size, cfg.ffn_size, cfg.vocab_size
    lines = [
        f"Model: {cfg.name} — D = {D}, L = {L}, heads {cfg.heads}, KV heads {cfg.kv_heads} "
        f"(group {cfg.group_size}), head_dim {cfg.head_dim}, F = {F}, V = {V}"
        + (f", {cfg.experts} experts, top-{cfg.top_k}" if cfg.experts > 1 else ""),
        f"P_total = {N(cfg.params_total)}, P_active = {N(cfg.params_active)}",
        f"Inputs: B = {N(B)} requests, p = {N(p)}, d = {N(d)} tokens, n = {n} chip(s)"
        + (f" over {i['link']} ({format_si(c['link_bandwidth'], 'B/s')})" if n > 1 else ""),
        f"Dtypes: weights {dt['w'].name} ({sw:g} B), activations {dt['x'].name} ({sa:g} B), "
        f"KV cache {dt['kv'].name} ({skv:g} B), compute {dt['compute'].name} "
        f"→ peak {format_si(c['peak_flops'], 'FLOP/s')} ({c['peak_dtype']})",
        f"Weights per chip = P_total·S_w/n = {g(cfg.params_total)} · {sw:g} / {n} = "
        f"{B_(s['weight_bytes_per_chip'])}",
        f"KV cache per token = 2·L·n_kv·head_dim·S_kv = 2 · {L} · {cfg.kv_heads} · {cfg.head_dim} · {skv:g} "
        f"= {B_(s['kv_bytes_per_token'])}; per chip ({s['kv_heads_per_chip']} of {cfg.kv_heads} KV heads) "
        f"{B_(s['kv_bytes_per_token_per_chip'])}",
        f"t_mem shown: {inp.t_mem} ("
        + ("the note's GPU_mem / MemBW, the whole HBM every step" if inp.t_mem == "note"
           else "weights + KV cache actually read and written, / MemBW") + ")",
        f"t_network: {inp.t_net} ("
        + ("a ring: (n−1)/n of each tensor per chip" if inp.t_net == "ring"
           else "the note's n−1 hops of the whole tensor, 4 AllGathers (= 2 AllReduces) per layer") + ")",
    ]
    act_tok = sa * (2 * D + 2 * cfg.top_k * F / n)
    for ph in PHASES:
        r = s["phases"][ph]
        m = r["memory"]
        tok = "B·p" if ph == "prefill" else "B"
        lines.append(f"── {ph} step: B_dense = {tok} = {N(r['tokens'])} tokens")
        lines.append(f"  FLOPs per chip = 2·P_active·B_dense/n = 2 · {g(cfg.params_active)} · {g(r['tokens'])} / {n} "
                     f"= {g(r['flops'])}")
        lines.append(f"  t_compute = {g(r['flops'])} / {format_si(c['peak_flops'], 'FLOP/s')} = {T(r['t_compute'])}")
        lines.append(f"  t_mem (note) = GPU_mem / MemBW = {B_(c['hbm_capacity'])} / "
                     f"{format_si(c['hbm_bandwidth'], 'B/s')} = {T(r['t_mem_note'])}")
        if ph == "prefill":
            kv = f"KV written B·p·{B_(s['kv_bytes_per_token_per_chip'])} = {B_(r['kv_write_bytes'])}"
        else:
            kv = (f"KV read B·(p + (d−1)/2)·{B_(s['kv_bytes_per_token_per_chip'])} = {B_(r['kv_read_bytes'])} "
                  f"+ KV written {B_(r['kv_write_bytes'])}")
        lines.append(f"  t_mem (refined) = (weights {B_(r['weight_bytes'])} + {kv}) / "
                     f"{format_si(c['hbm_bandwidth'], 'B/s')} = {T(r['t_mem_refined'])}")
        if n > 1:
            if inp.t_net == "ring":
                lines.append(f"  t_network (ring) = 4(n−1)/n·B_dense·D·S_a·L / NetBW = 4 · {n - 1}/{n} · "
                             f"{g(r['tokens'])} · {D} · {sa:g} · {L} / {format_si(c['link_bandwidth'], 'B/s')} "
                             f"= {T(r['t_network'])}")
            else:
                lines.append(f"  t_network (note) = 4(n−1)·B_dense·D·S_a·L / NetBW = 4 · {n - 1} · {g(r['tokens'])} "
                             f"· {D} · {sa:g} · {L} / {format_si(c['link_bandwidth'], 'B/s')} = "
                             f"{T(r['t_network'])}")
        else:
            lines.append("  t_network = 0 (one chip)")
        lines.append(f"  t_step lower = max(t_mem, t_compute, t_network) = {T(r['t_step_lower'])} "
                     f"→ {r['bound']}-bound")
        lines.append(f"  t_step upper = t_mem + t_compute + t_network = {T(r['t_step_upper'])}")
        lines.append(f"  Intensity = FLOPs / refined HBM bytes = {g(r['flops'])} / {g(r['hbm_bytes_refined'])} "
                     f"= {g(r['intensity'])} FLOP/B (critical {g(c['peak_flops'] / c['hbm_bandwidth'])})")
        cb = r["critical_batch"]
        lines.append("  Critical batch (t_compute = max(t_mem, t_network)): "
                     + ("never compute-bound" if cb is None else
                        f"B = {g(cb)}" + (f" (B_dense = {g(r['critical_tokens'])} tokens)" if ph == "prefill" else "")))
        lines.append(f"  Step throughput = B_dense / t_step = {format_si(r['step_throughput_min'], 'tok/s')} "
                     f"… {format_si(r['step_throughput_max'], 'tok/s')}")
        lines.append(f"  Memory per chip = weights {B_(m['weights'])} + KV B·(p+d)·{B_(s['kv_bytes_per_token_per_chip'])} "
                     f"= {B_(m['kv_cache'])} + activations S_a·(B_dense·(2D + 2·top_k·F/n) + B·V/n) = "
                     f"{sa:g}·({g(r['tokens'])}·{g(act_tok / sa)} + {N(B)}·{g(V / n)}) = {B_(m['activations'])} "
                     f"= {B_(m['total'])} of {B_(m['capacity'])} → {'fits' if m['fits'] else 'DOES NOT FIT'}")
        lines.append(f"  Largest batch that fits = floor((capacity − weights) / {B_(m['per_request'])} per request) "
                     f"= {N(m['max_batch'])}")
    sv = s["serving"]
    lines += [
        "── serving: one prefill step, then d decode steps",
        f"  Cycle = t_prefill + d·t_decode = {T(sv['cycle_time_lower'])} (lower bounds) … "
        f"{T(sv['cycle_time_upper'])} (upper bounds)",
        f"  Throughput_total = B·(p+d) / cycle = {format_si(sv['throughput_total_min'], 'tok/s')} … "
        f"{format_si(sv['throughput_total_max'], 'tok/s')}",
        f"  Per-request = Throughput_total / (p+d) = {format_si(sv['throughput_per_request_min'], 'req/s')} … "
        f"{format_si(sv['throughput_per_request_max'], 'req/s')}",
        f"  Decode = d·Throughput_total / (p+d) = {format_si(sv['throughput_decode_min'], 'tok/s')} … "
        f"{format_si(sv['throughput_decode_max'], 'tok/s')}",
        f"  Time to first token ≈ prefill step = {T(sv['ttft_lower'])} … {T(sv['ttft_upper'])}; "
        f"per output token ≈ decode step = {T(sv['tpot_lower'])} … {T(sv['tpot_upper'])}",
        f"  Memory: {'fits' if s['memory']['fits'] else 'does NOT fit'}; largest batch that fits both "
        f"phases = {N(s['memory']['max_batch'])}",
    ]
    lines += [f"Source: {x}" for x in cfg.citation_lines()]
    lines += [f"Note: {x}" for x in s["notes"]]
    return lines


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
    fig = _figures(inp, chip, settings)
    capacity = float(fig.chip.hbm_capacity.value)
    terms = {ph: step_terms(inp.model, b, p, d, inp.n, inp.dtypes, ph, inp.t_net) for ph in PHASES}
    times = {ph: _phase_times(terms[ph], fig, capacity, inp.t_mem) for ph in PHASES}
    out: dict[str, Any] = {"batch": np.asarray(b, dtype=np.float64)}
    out.update(_serving(b, p, d, times["prefill"], times["decode"]))
    out["memory_per_chip"] = np.maximum(terms["prefill"].mem_total, terms["decode"].mem_total)
    out["fits"] = out["memory_per_chip"] <= capacity
    out["max_batch_phase"] = {ph: int(np.ravel(times[ph]["max_batch"])[0]) for ph in PHASES}
    out["max_batch"] = min(out["max_batch_phase"].values())
    out["capacity"] = capacity
    out["critical_batch"] = {ph: float(np.ravel(times[ph]["critical_batch"])[0]) for ph in PHASES}
    out["t_mem_model"] = inp.t_mem
    return out


def record_fields(summary: Mapping[str, Any], phase: str) -> dict[str, Any]:
    """Flat JSON fields of one phase for a result record (the CLI's ``--json``)."""
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
    return out


# -- the window's sweep view: throughput and per-token latency against batch ----------------

#: ``SweepSpec.y`` values that show an LLM step against batch (the window's LLM sweep views).
SWEEP_VIEWS = ("throughput", "latency")
#: The batch range of those views when the sweep varies another dimension.
SWEEP_DEFAULT_RANGE = (1.0, 16384.0)


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
            figs.append(_figures(inp, chip, settings))
        except ModelError as e:
            errors.append(f"{name} on {chip.name}: {e}")
    one = {ph: step_terms(inp.model, 1.0, p, d, inp.n, inp.dtypes, ph, inp.t_net) for ph in PHASES}
    extra = [float(v) for v in include]
    for fig in figs:
        cap = float(fig.chip.hbm_capacity.value)
        extra.append(min(float(_max_batch(cap, one[ph].mem_weights, one[ph].mem_per_request))
                         for ph in PHASES))
    lo, hi = float(b.min()), float(b.max())
    b = np.union1d(b, [v for v in extra if lo <= v <= hi and v >= 1.0])
    terms = {ph: step_terms(inp.model, b, p, d, inp.n, inp.dtypes, ph, inp.t_net) for ph in PHASES}
    mem = np.maximum(terms["prefill"].mem_total, terms["decode"].mem_total)
    out = []
    for fig in figs:
        cap = float(fig.chip.hbm_capacity.value)
        times = {ph: _phase_times(terms[ph], fig, cap, inp.t_mem) for ph in PHASES}
        r: dict[str, Any] = {"chip": fig.chip, "batch": b}
        r.update(_serving(b, p, d, times["prefill"], times["decode"]))
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
    from roofgui.model.scenario import resolve_chips  # the scenario module does not import this one

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
