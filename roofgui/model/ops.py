"""Operations: exact FLOPs, bytes moved to and from memory, and bytes sent over a link.

Every count here is per chip.  Dimensions may be numpy arrays (any broadcastable
shapes); the result arrays then have the broadcast shape, so a sweep over
10,000 batch sizes is one call.

Conventions
-----------
* A multiply-add is 2 FLOPs; a matmul ``X[B,D]·Y[D,F]`` is ``2·B·D·F`` FLOPs.
* Bytes read are every operand once, bytes written are the output once.
* Sharding splits one dimension evenly over ``n`` chips.  Splitting the
  contracted dimension leaves each chip a partial sum of the whole output,
  which is all-reduced over a ring: ``2(n−1)/n`` × the output bytes per chip.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Callable, Mapping

import numpy as np

from roofgui.model.dtypes import Dtype, get_dtype
from roofgui.model.errors import ModelError
from roofgui.model.units import MAX_VALUE, MIN_VALUE, check_positive, parse_quantity

Array = np.ndarray


@dataclass(frozen=True)
class Work:
    """What one op asks of one chip."""

    flops: Array
    hbm_bytes: Array
    net_bytes: Array
    unit: str  # "matrix" or "vector"
    compute: Dtype
    link: str | None = None
    shards: int = 1
    formulas: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Shard:
    """A split of one dimension over ``n`` chips, communicating over ``link``."""

    axis: str
    n: int
    link: str


@dataclass(frozen=True)
class DimSpec:
    name: str
    label: str
    default: float
    help: str
    integer: bool = True


@dataclass(frozen=True)
class OpKind:
    """Describes an op type: its fields, and how to count its work.

    ``work(dims, dtypes, shard, params)`` returns a :class:`Work`; the
    ``dims`` values are floats or arrays already validated as positive.
    """

    name: str
    label: str
    dims: tuple[DimSpec, ...]
    dtype_roles: tuple[str, ...]
    shard_axes: tuple[str, ...]
    work: Callable[..., Work]
    description: str = ""
    phases: tuple[str, ...] = ("",)

    def dim_names(self) -> tuple[str, ...]:
        return tuple(d.name for d in self.dims)


DTYPE_ROLES = {
    "x": "Activations (X)",
    "w": "Weights (Y)",
    "out": "Output (Z)",
    "compute": "Compute",
    "kv": "KV cache",  # only the LLM step reads it; every other op ignores it
}


def _shard_factor(shard: Shard | None, axis: str) -> float:
    return float(shard.n) if shard is not None and shard.axis == axis else 1.0


def _per_chip(v: Array, shard: Shard | None, axis: str) -> Array:
    """A dimension's share per chip: ``v / n`` along the sharded axis."""
    return v / _shard_factor(shard, axis)


def _allreduce_bytes(shard: Shard | None, axis: str, out_bytes: Array) -> Array:
    if shard is None or shard.axis != axis or shard.n <= 1:
        return np.zeros_like(out_bytes)
    n = shard.n
    return 2.0 * (n - 1) / n * out_bytes


def matmul_work(dims: Mapping[str, Array], dt: Mapping[str, Dtype], shard: Shard | None,
                params: Mapping | None = None) -> Work:
    """``X[B,D] · Y[D,F] → Z[B,F]`` per chip."""
    B = _per_chip(dims["B"], shard, "B")
    D = _per_chip(dims["D"], shard, "D")
    F = _per_chip(dims["F"], shard, "F")
    sx, sw, sz = dt["x"].bytes, dt["w"].bytes, dt["out"].bytes
    flops = 2.0 * B * D * F
    out = B * F * sz
    hbm = B * D * sx + D * F * sw + out
    net = _allreduce_bytes(shard, "D", out)
    f = {"flops": "2·B·D·F",
         "hbm_bytes": f"B·D·{sx:g} + D·F·{sw:g} + B·F·{sz:g}"}
    if shard is not None and shard.n > 1:
        f["per_chip"] = f"{shard.axis} → {shard.axis}/{shard.n} per chip"
        if shard.axis == "D":
            f["net_bytes"] = f"2·({shard.n}−1)/{shard.n} · B·F·{sz:g} (ring all-reduce of partial sums)"
    return Work(flops, hbm, net, "matrix", dt["compute"],
                shard.link if shard else None, shard.n if shard else 1, f)


def batched_matmul_work(dims: Mapping[str, Array], dt: Mapping[str, Dtype], shard: Shard | None,
                        params: Mapping | None = None) -> Work:
    """``X[B,D] · Y[B,D,F] → Z[B,F]``: one weight matrix per batch element."""
    B = _per_chip(dims["B"], shard, "B")
    D = _per_chip(dims["D"], shard, "D")
    F = _per_chip(dims["F"], shard, "F")
    sx, sw, sz = dt["x"].bytes, dt["w"].bytes, dt["out"].bytes
    flops = 2.0 * B * D * F
    out = B * F * sz
    hbm = B * D * sx + B * D * F * sw + out
    net = _allreduce_bytes(shard, "D", out)
    f = {"flops": "2·B·D·F", "hbm_bytes": f"B·D·{sx:g} + B·D·F·{sw:g} + B·F·{sz:g}"}
    return Work(flops, hbm, net, "matrix", dt["compute"],
                shard.link if shard else None, shard.n if shard else 1, f)


def dot_work(dims: Mapping[str, Array], dt: Mapping[str, Dtype], shard: Shard | None,
             params: Mapping | None = None) -> Work:
    """``x[N] · y[N] → z``: N multiplies and N−1 adds on the vector unit."""
    N = dims["N"]
    sx, sz = dt["x"].bytes, dt["out"].bytes
    flops = 2.0 * N - 1.0
    hbm = 2.0 * N * sx + sz + 0.0 * N
    return Work(flops, hbm, np.zeros_like(hbm), "vector", dt["compute"],
                formulas={"flops": "2·N − 1", "hbm_bytes": f"2·N·{sx:g} + {sz:g}"})


def elementwise_work(dims: Mapping[str, Array], dt: Mapping[str, Dtype], shard: Shard | None,
                     params: Mapping | None = None) -> Work:
    """N elements, each reading ``inputs`` operands and doing ``flops_per_element`` FLOPs."""
    N, k, fpe = dims["N"], dims["inputs"], dims["flops_per_element"]
    sx, sz = dt["x"].bytes, dt["out"].bytes
    flops = N * fpe
    hbm = N * k * sx + N * sz
    return Work(flops, hbm, np.zeros_like(hbm), "vector", dt["compute"],
                formulas={"flops": "N·flops_per_element",
                          "hbm_bytes": f"N·inputs·{sx:g} + N·{sz:g}"})


def custom_work(dims: Mapping[str, Array], dt: Mapping[str, Dtype], shard: Shard | None,
                params: Mapping | None = None) -> Work:
    """FLOPs and bytes entered directly (link bytes only count when a link is chosen)."""
    unit = (params or {}).get("unit", "matrix")
    if unit not in ("matrix", "vector"):
        raise ModelError(f"unit must be 'matrix' or 'vector' (got {unit!r})", "unit")
    flops = dims["flops"] * 1.0
    hbm = dims["bytes"] * 1.0
    net = dims.get("net_bytes", 0.0 * hbm) * 1.0 if shard is not None else np.zeros_like(hbm)
    return Work(flops + 0.0 * hbm, hbm + 0.0 * flops, net + 0.0 * flops, unit, dt["compute"],
                shard.link if shard else None, shard.n if shard else 1,
                {"flops": "entered", "hbm_bytes": "entered"})


OP_KINDS: dict[str, OpKind] = {}


def register(kind: OpKind) -> OpKind:
    """Add an op kind to the registry (the LLM step registers itself the same way)."""
    OP_KINDS[kind.name] = kind
    return kind


#: Modules that register further op kinds when imported (kept out of start-up: the LLM
#: step reads its presets' TOML on import).
OPTIONAL_OP_KINDS = ("roofgui.model.llm",)


def load_optional_op_kinds() -> None:
    """Import the modules of :data:`OPTIONAL_OP_KINDS`, registering their op kinds.

    Reading a scenario calls it before it calls a kind unknown, so a file with an LLM
    step opens whichever module was imported first (the window, the command line, the
    examples menu, a test on its own)."""
    import importlib

    for name in OPTIONAL_OP_KINDS:
        importlib.import_module(name)


_MM_DIMS = (
    DimSpec("B", "B (batch, tokens)", 256, "Rows of X: the batch size in tokens."),
    DimSpec("D", "D (contracted)", 8192, "The contracted dimension: columns of X, rows of Y."),
    DimSpec("F", "F (output)", 8192, "Columns of Y and of the output Z."),
)

register(OpKind("matmul", "Matmul X[B,D]·Y[D,F]", _MM_DIMS, ("x", "w", "out", "compute"),
                ("B", "D", "F"), matmul_work,
                "Dense matrix multiply on the matrix unit."))
register(OpKind("batched-matmul", "Batched matmul X[B,D]·Y[B,D,F]", _MM_DIMS,
                ("x", "w", "out", "compute"), ("B", "D", "F"), batched_matmul_work,
                "One weight matrix per batch element (per-example weights)."))
register(OpKind("dot", "Dot product x[N]·y[N]",
                (DimSpec("N", "N (length)", 1 << 20, "Length of each vector."),),
                ("x", "out", "compute"), (), dot_work, "Runs on the vector unit."))
register(OpKind("elementwise", "Elementwise over N",
                (DimSpec("N", "N (elements)", 1 << 24, "Number of output elements."),
                 DimSpec("inputs", "Inputs per element", 2, "Operands read per output element."),
                 DimSpec("flops_per_element", "FLOPs per element", 1,
                         "Floating-point operations per output element.", integer=False)),
                ("x", "out", "compute"), (), elementwise_work, "Runs on the vector unit."))
register(OpKind("custom", "Custom FLOPs and bytes",
                (DimSpec("flops", "FLOPs", 1e12, "Total FLOPs per chip.", integer=False),
                 DimSpec("bytes", "HBM bytes", 1e9, "Bytes read and written to HBM per chip.",
                         integer=False),
                 DimSpec("net_bytes", "Link bytes", 1e8,
                         "Bytes sent over the link per chip (used when a link is chosen).",
                         integer=False)),
                ("compute",), ("net",), custom_work, "Enter FLOPs and bytes directly."))


def get_kind(name: str) -> OpKind:
    if name not in OP_KINDS:
        load_optional_op_kinds()
    try:
        return OP_KINDS[name]
    except KeyError:
        raise ModelError(f"unknown op {name!r} (known: {', '.join(OP_KINDS)})", "op") from None


def resolve_dtypes(kind: OpKind, dtypes: Mapping[str, str]) -> dict[str, Dtype]:
    """Map every role to a Dtype; roles not given default to bf16."""
    for role in dtypes:
        if role not in DTYPE_ROLES:
            raise ModelError(f"unknown dtype role {role!r} (known: {', '.join(DTYPE_ROLES)})", "dtype")
    out = {}
    for role in DTYPE_ROLES:
        out[role] = get_dtype(dtypes.get(role, "bf16"), f"{DTYPE_ROLES[role].split(' (')[0].lower()} dtype")
    return out


def validate_dims(kind: OpKind, dims: Mapping[str, object]) -> dict[str, Array]:
    """Check every dimension is present, finite, positive and in range; arrays allowed.

    Whole-number dimensions (sizes, counts) must be at least 1; the others
    (FLOPs per element, entered FLOPs and bytes) only greater than zero.
    Values may be numbers, numpy arrays, lists of numbers, or text such as
    ``4k`` (parsed by :func:`~roofgui.model.units.parse_quantity`).
    """
    out: dict[str, Array] = {}
    names = kind.dim_names()
    for name in dims:
        if name not in names:
            raise ModelError(f"{kind.name} has no dimension {name!r} (it has {', '.join(names)})", name)
    for spec in kind.dims:
        if spec.name not in dims:
            out[spec.name] = np.float64(spec.default)
            continue
        out[spec.name] = _check_dim(dims[spec.name], spec)
    return out


def _check_dim(v: object, spec: DimSpec) -> Array:
    name = spec.name
    if isinstance(v, str):
        v = parse_quantity(v, name)
    if isinstance(v, (bool, np.bool_)):
        raise ModelError("must be a number, not true/false", name)
    if isinstance(v, (np.ndarray, list, tuple)):
        try:
            a = np.asarray(v, dtype=np.float64)
        except (TypeError, ValueError):
            raise ModelError("must be an array of numbers", name) from None
        if a.ndim == 0:
            v = float(a)
        else:
            if a.size == 0:
                raise ModelError("is an empty array", name)
            # Every test below is on the smallest or the largest element (NaN propagates
            # to both): two passes over a sweep's array instead of one per test.
            lo, hi = float(a.min()), float(a.max())
            if not (math.isfinite(lo) and math.isfinite(hi)):
                raise ModelError("must be finite (got NaN or inf)", name)
            if lo <= 0:
                raise ModelError("must be greater than zero", name)
            if hi > MAX_VALUE:
                raise ModelError(f"is too large (at most {MAX_VALUE:g})", name)
            if spec.integer and lo < 1:
                raise ModelError("must be at least 1", name)
            if not spec.integer and lo < MIN_VALUE:
                raise ModelError(f"is too small (at least {MIN_VALUE:g})", name)
            return a
    if not isinstance(v, (int, float, np.integer, np.floating)):
        raise ModelError(f"must be a number, not {type(v).__name__}", name)
    try:
        f = float(v)
    except OverflowError:
        raise ModelError(f"is too large (at most {MAX_VALUE:g})", name) from None
    x = check_positive(f, name, min_value=0.0 if spec.integer else MIN_VALUE)
    if spec.integer and x < 1:
        raise ModelError(f"must be at least 1 (got {x:g})", name)
    return np.float64(x)


def validate_shard(kind: OpKind, shard: Shard | None) -> Shard | None:
    if shard is None:
        return None
    if shard.axis not in kind.shard_axes:
        axes = ", ".join(kind.shard_axes) or "none"
        raise ModelError(f"{kind.name} cannot be sharded along {shard.axis!r} (axes: {axes})", "shard")
    if isinstance(shard.n, bool) or not isinstance(shard.n, (int, np.integer)) or shard.n < 1:
        raise ModelError(f"number of chips must be a whole number ≥ 1 (got {shard.n!r})", "shard chips")
    if shard.n > 1_000_000:
        raise ModelError("number of chips is too large (at most 1,000,000)", "shard chips")
    if not shard.link:
        raise ModelError("choose the link the shards communicate over", "link")
    return shard


def op_work(kind: OpKind | str, dims: Mapping[str, object], dtypes: Mapping[str, str] | None = None,
            shard: Shard | None = None, params: Mapping | None = None, phase: str = "") -> Work:
    """Validate inputs and count the op's work per chip."""
    k = get_kind(kind) if isinstance(kind, str) else kind
    d = validate_dims(k, dims)
    dt = resolve_dtypes(k, dtypes or {})
    sh = validate_shard(k, shard)
    if phase and phase not in k.phases:
        raise ModelError(f"{k.name} has no phase {phase!r}", "phase")
    if k.phases != ("",):
        return k.work(d, dt, sh, params or {}, phase=phase or k.phases[0])
    return k.work(d, dt, sh, params or {})
