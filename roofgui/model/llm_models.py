"""LLM model presets and configurations: the transformers the LLM step can serve.

The shipped presets are read from ``specs/models/llm.toml`` (every figure cited); a
user's own model is given field by field (``model = "custom"``) and checked the same way.
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

from roofgui.model.errors import ModelError, SpecError
from roofgui.model.units import parse_quantity

DEFAULT_MODEL = "llama-3-8b"
CUSTOM = "custom"
T_MEM_MODELS = ("refined", "note")
T_NET_MODELS = ("ring", "note")
T_NET_DEFAULT = "ring"
#: What each network model is, in words (the CLI's help and the window's choices use these).
T_NET_LABELS = {
    "ring": "ring all-reduce: 2 per layer, 2(n−1)/n of the activations each (default)",
    "note": "the note's upper bound: 4(n−1)·B·D·S·L (n times the ring)",
}
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


def norm_id(name: str) -> str:
    """A model id with case and punctuation dropped (``Llama_3_1_405B`` = ``llama-3.1-405b``)."""
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
    return {mid: _parse_model(mid, m, sources, where) for mid, m in models.items()}


def _parse_model(mid: str, m: Any, sources: Mapping[str, str], where: str) -> ModelConfig:
    """One ``[models.<id>]`` table of a preset file."""
    key = f"models.{mid}"
    if not isinstance(m, dict):
        raise SpecError(where, key, "must be a table")
    if norm_id(mid) == CUSTOM:
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
    return ModelConfig(**{**cfg.__dict__, "source": m["source"], "paper": m["paper"],
                          "params_source": m["params_source"], "note": m.get("note", ""),
                          "citations": dict(sources)})


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
    key = norm_id(name)
    for mid, cfg in presets().items():
        if norm_id(mid) == key:
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
    if norm_id(name) == CUSTOM:
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
    """``"ring"`` (default: a ring all-reduce per tensor-parallel layer boundary, 2 per layer,
    ``2(n − 1)/n`` of the activations each) or ``"note"`` (the note's upper bound,
    ``4(n−1)·B·D·S·L``: ``n − 1`` hops of the whole tensor per AllGather, ``n`` times the ring)."""
    v = (params or {}).get("t_net", T_NET_DEFAULT)
    if v not in T_NET_MODELS:
        raise ModelError(f"must be 'ring' or 'note' (got {v!r})", "t_net")
    return v

