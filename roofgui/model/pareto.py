"""The latency–throughput frontier of an LLM on a chip: tokens/s per chip against tokens/s per user.

Every point is one serving configuration: a tensor-parallel degree ``tp`` (1, 2, 4, … up
to the chips given) and a batch ``B`` (powers of two up to the memory limit, plus the first
one past it, marked as not fitting).  The step model is :mod:`.llm_step`'s, with the lower
step bounds (perfect overlap): ``tpot`` is the decode step, ``ttft`` the prefill step.

* tokens/s per user = ``1 / tpot`` (each user gets one output token per decode step);
* tokens/s per chip = the replica's throughput over its ``tp`` chips: output tokens
  (``d·B·… / cycle``, the default) or all tokens, prompt and output (``B·(p+d) / cycle``).

``chips`` beyond ``tp`` run independent replicas, so per-chip figures do not depend on them.
The frontier is the Pareto-optimal set of the points that fit and meet the limits:
no other such point is at least as fast per user and faster per chip.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Mapping

import numpy as np

from roofgui.model.chips import Chip
from roofgui.model.errors import ModelError
from roofgui.model.llm_step import SHARD_AXIS
from roofgui.model.llm_sweep import llm_sweep

#: Which tokens the per-chip throughput counts.
THROUGHPUTS = ("output", "total")
#: Largest batch tried (2^20).
MAX_BATCH = 1 << 20


def tp_degrees(chips: int) -> list[int]:
    """1, 2, 4, … up to ``chips`` (and ``chips`` itself when it is not a power of two)."""
    if chips < 1:
        raise ModelError(f"must be at least 1 (got {chips})", "chips")
    out, t = [], 1
    while t <= chips:
        out.append(t)
        t *= 2
    if out[-1] != chips:
        out.append(chips)
    return out


def batch_sizes(max_batch: int) -> list[int]:
    """Powers of two up to ``max_batch``, and the first one past it (which does not fit)."""
    out, b = [1], 1
    while b <= max_batch and b < MAX_BATCH:
        b *= 2
        out.append(b)
    return out


def meets(point: Mapping[str, Any], ttft: float | None, tpot: float | None) -> bool:
    """A point meets the limits when it fits and neither time exceeds its limit (``None``: none)."""
    if not point["fits"]:
        return False
    for key, limit in (("ttft", ttft), ("tpot", tpot)):
        if limit is not None and not (point[key] is not None and point[key] <= limit):
            return False
    return True


def frontier(points: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The Pareto-optimal points among those that meet the limits, by per-user rate rising:
    along it the per-chip rate never rises."""
    ok = [q for q in points if q["meets_slo"]]
    ok.sort(key=lambda q: (-q["tokens_per_s_per_user"], -q["tokens_per_s_per_chip"]))
    out, best = [], -np.inf
    for q in ok:
        if q["tokens_per_s_per_chip"] > best:
            out.append(q)
            best = q["tokens_per_s_per_chip"]
    return out[::-1]


def _num(v) -> float | None:
    x = float(v)
    return x if np.isfinite(x) else None


def _points_at(op: Any, chip: Chip, tp: int, throughput: str) -> list[dict[str, Any]]:
    """The points of one tensor-parallel degree over its batch sizes."""
    probe = llm_sweep(op, chip, np.array([1.0]))
    batches = batch_sizes(int(probe["max_batch"]))
    r = llm_sweep(op, chip, np.array(batches, dtype=np.float64))
    out = []
    for i, b in enumerate(batches):
        tpot = float(r["tpot_lower"][i])
        per_chip = {"output": float(r["throughput_decode_max"][i]) / tp,
                    "total": float(r["throughput_total_max"][i]) / tp}
        out.append({"chips": tp, "batch": b,
                    "tokens_per_s_per_chip": per_chip[throughput],
                    "tokens_per_s_per_user": 1.0 / tpot if tpot > 0 else None,
                    "ttft": _num(r["ttft_lower"][i]), "tpot": _num(tpot),
                    "fits": bool(r["fits"][i]),
                    "output_tokens_per_s_per_chip": per_chip["output"],
                    "total_tokens_per_s_per_chip": per_chip["total"]})
    return out


def pareto(op: Any, chip: Chip, chips: int, link: str | None, *, ttft: float | None = None,
           tpot: float | None = None, throughput: str = "output") -> dict[str, Any]:
    """Points over batch and tensor-parallel degree, and their frontier.

    ``op``: an ``OpSpec`` of kind ``llm`` (its model, p, d, dtypes and params; its batch
    and shard are replaced); ``chips``: the most chips in one tensor-parallel group;
    ``link``: the link between them (needed when ``chips > 1``); ``ttft``, ``tpot``: limits
    in seconds (``None``: none); ``throughput``: ``"output"`` or ``"total"`` tokens.

    Returns ``{"throughput", "points", "frontier", "ttft_limit", "tpot_limit", "errors"}``.
    """
    from roofgui.model.scenario import ShardSpec

    if throughput not in THROUGHPUTS:
        raise ModelError(f"must be 'output' or 'total' (got {throughput!r})", "throughput")
    for name, v in (("ttft", ttft), ("tpot", tpot)):
        if v is not None and not (np.isfinite(v) and v > 0):
            raise ModelError(f"must be a positive time in seconds (got {v!r})", name)
    if chips > 1 and not link:
        raise ModelError("more than one chip needs a link", "link")
    points, errors = [], []
    for tp in tp_degrees(chips):
        shard = ShardSpec(SHARD_AXIS, tp, link) if tp > 1 else None
        try:
            pts = _points_at(replace(op, shard=shard), chip, tp, throughput)
        except ModelError as e:
            errors.append(f"{tp} chips: {e}")
            continue
        for q in pts:
            q["meets_slo"] = meets(q, ttft, tpot)
        points += pts
    return {"throughput": throughput, "points": points, "frontier": frontier(points),
            "ttft_limit": ttft, "tpot_limit": tpot, "errors": errors}
