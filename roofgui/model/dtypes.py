"""Numeric data types: bytes per element and which peak-table entry they run at."""

from __future__ import annotations

from dataclasses import dataclass

from roofgui.model.errors import ModelError


@dataclass(frozen=True)
class Dtype:
    """A storage/compute data type.

    Attributes
    ----------
    name:
        Canonical name (``bf16``, ``fp8_e4m3`` ...).
    bytes:
        Bytes per element in memory (0.5 for 4-bit types).
    peak_key:
        The key of the chip peak tables this type computes at (``fp8`` for
        both fp8 variants).
    label:
        Human-readable name.
    """

    name: str
    bytes: float
    peak_key: str
    label: str


DTYPES: dict[str, Dtype] = {
    d.name: d
    for d in (
        Dtype("fp32", 4.0, "fp32", "FP32"),
        Dtype("tf32", 4.0, "tf32", "TF32 (stored as FP32)"),
        Dtype("bf16", 2.0, "bf16", "BF16"),
        Dtype("fp16", 2.0, "fp16", "FP16"),
        Dtype("fp8_e4m3", 1.0, "fp8", "FP8 E4M3"),
        Dtype("fp8_e5m2", 1.0, "fp8", "FP8 E5M2"),
        Dtype("int8", 1.0, "int8", "INT8"),
        Dtype("int4", 0.5, "int4", "INT4"),
        Dtype("fp4", 0.5, "fp4", "FP4"),
    )
}

ALIASES = {
    "fp8": "fp8_e4m3",
    "e4m3": "fp8_e4m3",
    "e5m2": "fp8_e5m2",
    "bfloat16": "bf16",
    "float16": "fp16",
    "half": "fp16",
    "float32": "fp32",
    "float": "fp32",
    "i8": "int8",
    "i4": "int4",
}

#: Keys a chip's peak tables may hold.
PEAK_KEYS = ("fp32", "tf32", "bf16", "fp16", "fp8", "int8", "int4", "fp4")

#: When a chip has no peak for a key, these are tried in order (the hardware
#: computes the narrower type on a wider path).
PEAK_FALLBACK: dict[str, tuple[str, ...]] = {
    "fp4": ("fp8", "bf16", "fp16"),
    "int4": ("int8", "fp8", "bf16", "fp16"),
    "fp8": ("bf16", "fp16"),
    "int8": ("fp8", "bf16", "fp16"),
    "bf16": ("fp16",),
    "fp16": ("bf16",),
    "tf32": ("fp32",),
    "fp32": ("tf32",),
}


def get_dtype(name: str, field: str = "dtype") -> Dtype:
    """Look up a dtype by name or alias, case-insensitively.

    Raises
    ------
    ModelError
        If the name is unknown; the message lists the known names.
    """
    if not isinstance(name, str):
        raise ModelError(f"dtype must be a name, not {type(name).__name__}", field)
    key = name.strip().lower().replace("-", "_")
    key = ALIASES.get(key, key)
    try:
        return DTYPES[key]
    except KeyError:
        raise ModelError(
            f"unknown dtype {name!r} (known: {', '.join(DTYPES)})", field
        ) from None
