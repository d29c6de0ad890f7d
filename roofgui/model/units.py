"""Parsing of user-typed quantities and SI formatting, without eval.

Accepted forms: ``4096``, ``4k``, ``4K``, ``8Ki``, ``1.5M``, ``1e6``, ``2**20``,
``2^20``, ``4_096``, ``1,024``.  Decimal suffixes k/M/G/T/P (10^3 steps) and
binary suffixes Ki/Mi/Gi/Ti/Pi (2^10 steps).
"""

from __future__ import annotations

import math
import re

from roofgui.model.errors import ModelError

_DEC = {"": 1.0, "k": 1e3, "K": 1e3, "m": 1e6, "M": 1e6, "g": 1e9, "G": 1e9,
        "t": 1e12, "T": 1e12, "p": 1e15, "P": 1e15}
_BIN = {"ki": 2.0**10, "mi": 2.0**20, "gi": 2.0**30, "ti": 2.0**40, "pi": 2.0**50}

_NUM = r"[0-9]+(?:\.[0-9]*)?(?:[eE][+-]?[0-9]+)?|\.[0-9]+(?:[eE][+-]?[0-9]+)?"
_SIMPLE = re.compile(rf"^({_NUM})\s*([a-zA-Z]{{0,2}})$")
_POWER = re.compile(rf"^({_NUM})\s*(?:\*\*|\^)\s*({_NUM})$")

#: Largest value any dimension may take; keeps every product finite in float64.
MAX_VALUE = 1e15
#: Smallest value a dimension that need not be whole (FLOPs per element, entered FLOPs
#: or bytes) may take: with MAX_VALUE, every ratio and time stays finite in float64.
MIN_VALUE = 1e-6
#: What-if multipliers lie in this range (so scaled figures stay finite too).
WHAT_IF_MIN, WHAT_IF_MAX = 1e-6, 1e6


def parse_quantity(text: str | float | int, field: str = "value", *,
                   integer: bool = False, max_value: float = MAX_VALUE,
                   min_value: float = 0.0) -> float:
    """Parse a positive, finite quantity typed by a user.

    Parameters
    ----------
    text:
        What the user typed, or a number.
    field:
        The field name used in error messages.
    integer:
        Require a whole number (after suffix scaling).
    max_value:
        Upper limit, inclusive.
    min_value:
        Lower limit, inclusive (the value must be greater than zero in any case).

    Returns
    -------
    float
        The value.

    Raises
    ------
    ModelError
        Naming ``field`` and what is wrong.
    """
    if isinstance(text, bool):
        raise ModelError("must be a number, not true/false", field)
    if isinstance(text, (int, float)):
        try:
            value = float(text)
        except OverflowError:
            raise ModelError(f"is too large (at most {max_value:g})", field) from None
    elif isinstance(text, str):
        value = _parse_text(text, field)
    else:
        raise ModelError(f"must be a number, not {type(text).__name__}", field)
    return check_positive(value, field, integer=integer, max_value=max_value, min_value=min_value)


def check_positive(value: float, field: str, *, integer: bool = False,
                   max_value: float = MAX_VALUE, min_value: float = 0.0) -> float:
    """Validate a number: finite, > 0, >= min_value, <= max_value, whole if asked."""
    if math.isnan(value):
        raise ModelError("is not a number (NaN)", field)
    if math.isinf(value):
        raise ModelError("must be finite", field)
    if value <= 0:
        raise ModelError(f"must be greater than zero (got {value:g})", field)
    if value > max_value:
        raise ModelError(f"is too large (got {value:g}; at most {max_value:g})", field)
    if value < min_value:
        raise ModelError(f"is too small (got {value:g}; at least {min_value:g})", field)
    if integer and value != math.floor(value):
        raise ModelError(f"must be a whole number (got {value:g})", field)
    return value


def _parse_text(text: str, field: str) -> float:
    s = text.strip().replace("_", "")
    if re.fullmatch(r"[0-9]{1,3}(,[0-9]{3})+(\.[0-9]*)?", s):
        s = s.replace(",", "")
    if not s:
        raise ModelError("is empty; type a number such as 4096, 4k or 2**12", field)
    if len(s) > 64:
        digits = re.match(r"[+-]?0*([0-9]*)", s).group(1)
        if len(digits) > 64:  # (refused before any conversion: Python's int-string limit)
            raise ModelError(f"is too large (a number of {len(digits):,} digits)", field)
        raise ModelError("is too long to be a number", field)
    sign = 1.0
    if s[0] in "+-\u2212":
        sign = -1.0 if s[0] != "+" else 1.0
        s = s[1:].lstrip()
    word = s.lower()
    if word in ("inf", "infinity", "\u221e"):
        return sign * math.inf
    if word == "nan":
        return math.nan
    return sign * _parse_magnitude(s, text, field)


def _parse_magnitude(s: str, text: str, field: str) -> float:
    m = _POWER.match(s)
    if m:
        base, exp = float(m.group(1)), float(m.group(2))
        if exp > 1000 or (base > 1 and exp * math.log10(base) > 300):
            raise ModelError(f"{text.strip()!r} is too large", field)
        return base ** exp
    m = _SIMPLE.match(s)
    if m:
        num = float(m.group(1))
        suffix = m.group(2)
        if suffix in _DEC:
            return num * _DEC[suffix]
        if suffix.lower() in _BIN:
            return num * _BIN[suffix.lower()]
        raise ModelError(f"unknown suffix {suffix!r} in {text.strip()!r} "
                         "(use k, M, G, T, P or Ki, Mi, Gi)", field)
    raise ModelError(f"{_clip(text)!r} is not a number (try 4096, 4k, 8Ki, 1e6 or 2**20)", field)


def _clip(text: str, n: int = 24) -> str:
    t = text.strip()
    return t if len(t) <= n else t[: n - 1] + "…"


_PREFIXES = [(1e18, "E"), (1e15, "P"), (1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k"),
             (1.0, ""), (1e-3, "m"), (1e-6, "µ"), (1e-9, "n"), (1e-12, "p")]


def format_si(value: float, unit: str = "", digits: int = 3) -> str:
    """Format a number with an SI prefix: ``format_si(1.97e14, 'FLOP/s') == '197 TFLOP/s'``."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "—"
    if math.isinf(value):
        return "∞" if value > 0 else "−∞"
    if value == 0:
        return f"0 {unit}".strip()
    a = abs(value)
    for scale, prefix in _PREFIXES:
        if a >= scale * 0.9995:
            break
    else:
        scale, prefix = _PREFIXES[-1]
    text = f"{value / scale:.{digits}g}"
    sep = " " if (prefix or unit) else ""
    return f"{text}{sep}{prefix}{unit}"


def format_time(seconds: float, digits: int = 3) -> str:
    """Format a duration: ``174 µs``, ``1.01 ms``, ``2.5 s``."""
    if seconds is None or (isinstance(seconds, float) and math.isnan(seconds)):
        return "—"
    if seconds >= 1e3:
        return f"{seconds:.{digits}g} s"
    return format_si(seconds, "s", digits)


def format_rate(value: float, unit: str = "req/s", digits: int = 3) -> str:
    """A rate of countable things (requests, tokens) per second, never with a milli or
    micro prefix ("50 mreq/s" reads as nonsense): ``12.3 ktok/s``, ``2.5 req/s``,
    ``0.05 req/s``, and below 0.01 per second ``1 req per 3.3 min``."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "—"
    if math.isinf(value) or value == 0 or value >= 0.9995:
        return format_si(value, unit, digits)
    if value >= 0.01:
        return f"{value:.{digits}g} {unit}"
    noun = unit.split("/")[0] or "1"
    gap = 1.0 / value
    for size, name in ((86400.0, "days"), (3600.0, "h"), (60.0, "min")):
        if gap >= size:
            return f"1 {noun} per {gap / size:.{digits}g} {name}"
    return f"1 {noun} per {gap:.{digits}g} s"


def format_number(value: float, digits: int = 4) -> str:
    """A plain compact number: integers as integers, others with ``digits`` significant digits."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "—"
    if math.isinf(value):
        return "∞" if value > 0 else "−∞"
    if float(value).is_integer() and abs(value) < 1e15:
        return f"{int(value):,}".replace(",", "\u2009")
    return f"{value:.{digits}g}"


def format_capacity(nbytes: float) -> str:
    """A memory capacity in the unit its vendor states it: a whole number of GiB (HBM stacks
    come in powers of two, and TPU, Trainium and AMD state GiB) as ``"32 GiB"``, else decimal
    ``"80 GB"`` — never 32 GiB shown as "34.4 GB"."""
    gib = nbytes / 2**30
    if nbytes >= 2**30 and gib == round(gib):
        return f"{gib:g} GiB"
    return format_si(nbytes, "B")
