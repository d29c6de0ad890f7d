"""The parts of one LLM step: what each layer type of a transformer computes, reads and sends.

A step (prefill or decode, on one of ``n`` tensor-parallel chips) is the sum of its parts;
:func:`roofgui.model.llm_step.step_terms` adds them up, so the step's totals and its
breakdown agree by construction.  Every figure is per chip and for one occurrence of the
part; ``count`` occurrences make up the step (``L`` of a per-layer part).

What is counted (docs/llm.md states every formula):

* FLOPs: 2 per weight and token of each matmul (the projections, the MLP or the routed
  experts and router, the LM head), plus attention's ``QKᵀ`` and ``AV``:
  ``4·heads·head_dim`` per query token and key.  The embedding lookup does no FLOPs.
  Norms and anything else the model's parameter count holds beyond the listed matrices
  (``P − listed``) count 2 FLOPs per weight and token, as the note does.
* HBM bytes: the weights each part reads once per step (the embedding table whole, as the
  note's "all weights once"; of the experts only the ones the step's tokens are routed to)
  and the KV cache (K and V written by the K/V projection; attention FlashAttention-style,
  fused: Q, K, V read once, no score matrix in HBM).  Activations are not counted: they
  stay on chip between fused kernels (as in the note).
* Link bytes: two all-reduces of the ``tokens × D`` activations per layer (after the
  attention output projection and after the MLP, Megatron-style tensor parallelism).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping

import numpy as np

from roofgui.model.dtypes import Dtype
from roofgui.model.llm_models import ModelConfig

Array = np.ndarray

#: The network models: the default ring all-reduce, and the note's upper bound.
RING, NOTE = "ring", "note"


@dataclass(frozen=True)
class Part:
    """One part of a step, per chip, for one occurrence; ``count`` of them make the step.

    All numbers broadcast over the shapes of ``B``, ``p`` and ``d``.
    """

    name: str
    count: int
    flops: Array
    weight_bytes: Array   # weights read (HBM)
    kv_bytes: Array       # KV cache read and written (HBM)
    net_bytes: Array      # sent over the link

    @property
    def hbm_bytes(self) -> Array:
        return self.weight_bytes + self.kv_bytes


def ring_allreduce_bytes(n: int, tensor_bytes) -> Array:
    """Bytes each chip sends in a ring all-reduce of ``tensor_bytes`` over ``n`` chips:
    a reduce-scatter and an all-gather of ``n − 1`` steps of ``1/n`` of the tensor each,
    ``2·(n − 1)/n × tensor_bytes``."""
    return 2.0 * (n - 1) / n * np.asarray(tensor_bytes, dtype=np.float64)


def note_allreduce_bytes(n: int, tensor_bytes) -> Array:
    """The note's upper bound for one all-reduce: ``2 AllGathers × (n − 1) hops`` of the whole
    tensor, ``2·(n − 1) × tensor_bytes`` (``n`` times the ring's)."""
    return 2.0 * (n - 1) * np.asarray(tensor_bytes, dtype=np.float64)


def expected_experts(experts: int, top_k: int, tokens) -> Array:
    """Expected distinct experts a layer reads for ``tokens`` tokens routed uniformly, each to
    ``top_k`` of ``experts``: ``E·(1 − (1 − k/E)^T)`` (1 for a dense model)."""
    t = np.asarray(tokens, dtype=np.float64)
    if experts <= 1:
        return 1.0 + 0.0 * t
    return experts * (1.0 - (1.0 - top_k / experts) ** t)


def attention_context(phase: str, p, d) -> Array:
    """Keys each query token sees on average: ``(p + 1)/2`` in a causal prefill of ``p``
    tokens, ``p + (d − 1)/2`` in decode (the context the KV read assumes)."""
    p = np.asarray(p, dtype=np.float64)
    if phase == "prefill":
        return (p + 1.0) / 2.0
    return p + (np.asarray(d, dtype=np.float64) - 1.0) / 2.0


def step_parts(cfg: ModelConfig, B, p, d, n: int, dt: Mapping[str, Dtype], phase: str,
               network: str = RING) -> tuple[Part, ...]:
    """The parts of one step of ``phase`` per chip (see the module docstring)."""
    B, p, d = (np.asarray(v, dtype=np.float64) for v in (B, p, d))
    sw, sa, skv = dt["w"].bytes, dt["x"].bytes, dt["kv"].bytes
    D, L, V, hd = cfg.hidden_size, cfg.layers, cfg.vocab_size, cfg.head_dim
    H, E, k = cfg.heads, cfg.experts, cfg.top_k
    tok_req = p if phase == "prefill" else 1.0 + 0.0 * p
    T = B * tok_req                                      # tokens in the step
    kvh_chip = -(-cfg.kv_heads // n)
    kv_layer = 2.0 * kvh_chip * hd * skv                 # K and V of one token, one layer, per chip
    ctx = attention_context(phase, p, d)
    w_qkv = D * (H + 2 * cfg.kv_heads) * hd
    w_o = H * hd * D
    w_exp = 3 * D * cfg.ffn_size
    w_router = D * E if E > 1 else 0
    listed_total = L * (w_qkv + w_o + E * w_exp + w_router) + 2 * V * D
    listed_active = L * (w_qkv + w_o + k * w_exp + w_router) + 2 * V * D
    other_total = max(cfg.params_total - listed_total, 0)
    other_active = max(cfg.params_active - listed_active, 0)
    read = expected_experts(E, k, T)
    if phase == "prefill":
        attn_kv = B * p * kv_layer                        # K, V read once (fused)
    else:
        attn_kv = B * ctx * kv_layer                      # the cached context
    allreduce = (ring_allreduce_bytes if network == RING else note_allreduce_bytes)(n, T * D * sa) \
        if n > 1 else 0.0 * T

    def part(name, count, flops, weights=0.0, kv=0.0, net=0.0) -> Part:
        z = 0.0 * T
        return Part(name, count, flops + z, weights + z, kv + z, net + z)

    mlp = "moe" if E > 1 else "mlp"
    return (
        part("embedding", 1, 0.0, V * D * sw / n),
        part("qkv_proj", L, 2.0 * T * w_qkv / n, w_qkv * sw / n, T * kv_layer),
        part("attention", L, 4.0 * H * hd * T * ctx / n, 0.0, attn_kv),
        part("o_proj", L, 2.0 * T * w_o / n, w_o * sw / n),
        part(mlp, L, 2.0 * T * (k * w_exp + w_router) / n, (read * w_exp + w_router) * sw / n),
        part("allreduce", 2 * L, 0.0, 0.0, 0.0, allreduce),
        part("norms", 1, 2.0 * T * other_active / n, other_total * sw / n),
        part("lm_head", 1, 2.0 * T * V * D / n, V * D * sw / n),
    )


def total(parts: tuple[Part, ...], field: str) -> Array:
    """``Σ count × field`` over the parts: the step's own total."""
    out = 0.0
    for pt in parts:
        out = out + pt.count * getattr(pt, field)
    return np.asarray(out, dtype=np.float64)
