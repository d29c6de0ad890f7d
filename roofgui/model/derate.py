"""Named derates: a chip's roofs lowered to the fractions fitted from measurements, saved
with the scenario and applied only to the chip they name.

A :class:`Derate` multiplies one chip's compute peaks by ``compute`` (a peak of a dtype
with its own fitted fraction, in ``by_dtype``, by that one instead) and its HBM bandwidth
by ``memory``.  It is made only by the user's explicit choice (the Measured panel's
"Apply as derate…") and is shown wherever the chip's name is: the derated chip's name
reads ``H100 SXM · derate 'my-cal' (compute 0.71, memory 0.83)``.

In the scenario file::

    "derates": [{"name": "my-cal", "chip": "h100-sxm", "compute": 0.71, "memory": 0.83,
                 "by_dtype": {"fp8": 0.6}, "note": "fitted from 12 kernels"}]

A fraction lies in ``[0.001, 1]``: a derate lowers a roof, never raises it.  One derate
per chip.  ``by_dtype`` keys are compute dtypes' peak keys (``bf16``, ``fp8``, ...) of
the matrix unit, or ``vector fp32`` and the like for a vector unit.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import Any, Sequence

from roofgui.model.chips import MIN_FRACTION, Chip
from roofgui.model.dtypes import PEAK_KEYS
from roofgui.model.errors import ScenarioError

#: The longest name a derate may have, and the longest note.
MAX_NAME = 80
MAX_NOTE = 500
#: Derates a scenario may hold.
MAX_DERATES = 100
#: The prefix of a ``by_dtype`` key for a vector unit's peak.
VECTOR = "vector "


@dataclass(frozen=True)
class Derate:
    """Fractions of one chip's roofs, by name (see the module's text)."""

    name: str
    chip: str
    compute: float
    memory: float
    #: fraction of each peak fitted apart, by key: "bf16", "fp8", "vector fp32", ...
    by_dtype: dict[str, float] = field(default_factory=dict)
    #: what it was fitted from, as shown when it was applied
    note: str = ""

    def __hash__(self) -> int:  # (frozen, but by_dtype is a dict: saved as a JSON object)
        return hash((self.name, self.chip, self.compute, self.memory,
                     tuple(sorted(self.by_dtype.items())), self.note))

    def compute_for(self, key: str, unit: str = "matrix") -> float:
        """The fraction of the chip's ``key`` peak on ``unit``."""
        return self.by_dtype.get(key if unit == "matrix" else VECTOR + key, self.compute)

    def fractions_text(self) -> str:
        """``compute 0.71, memory 0.83`` (with dtypes fitted apart: ``compute bf16 0.70 ·
        fp8 0.60 (others 0.66), memory 0.80``)."""
        if not self.by_dtype:
            return f"compute {self.compute:.2f}, memory {self.memory:.2f}"
        own = " \u00b7 ".join(f"{k} {v:.2f}" for k, v in sorted(self.by_dtype.items()))
        return f"compute {own} (others {self.compute:.2f}), memory {self.memory:.2f}"

    def summary(self) -> str:
        """``derate 'my-cal' (compute 0.71, memory 0.83)``."""
        return f"derate '{self.name}' ({self.fractions_text()})"

    def notice(self, where: str) -> str:
        """What opening a file with this derate says (it is never applied unannounced)."""
        return (f"{where}: derate '{self.name}' lowers {self.chip}'s roofs "
                f"({self.fractions_text()}); Remove Derate in the Measured panel "
                "(View \u25b8 Measured) takes it off")

    def apply(self, chip: Chip) -> Chip:
        """``chip`` with its roofs lowered and its name saying so (``chip`` unchanged)."""
        why = f"derate '{self.name}'"

        def table(t, unit):
            return {k: f.scaled(self.compute_for(k, unit),
                                f"{why} ×{self.compute_for(k, unit):.3g}") for k, f in t.items()}

        return replace(chip, name=f"{chip.name} \u00b7 {self.summary()}",
                       matrix=table(chip.matrix, "matrix"), vector=table(chip.vector, "vector"),
                       hbm_bandwidth=chip.hbm_bandwidth.scaled(self.memory,
                                                               f"{why} ×{self.memory:.3g}"))

    def to_dict(self) -> dict:
        """As the scenario file holds it (``dataclasses.asdict`` gives the same)."""
        return {"name": self.name, "chip": self.chip, "compute": self.compute,
                "memory": self.memory, "by_dtype": dict(self.by_dtype), "note": self.note}


#: Derated chips made before, by (id of the chip, derate): the same chip object back for
#: the same inputs, so an evaluation that remembers results by chip keeps them.
_MADE: dict[tuple[int, Derate], tuple[Chip, Chip]] = {}


def apply_derates(chips: Sequence[Chip], derates: Sequence[Derate]) -> list[Chip]:
    """Each chip with the derate that names it applied (the others as they are)."""
    by_chip = {d.chip: d for d in derates}
    out = []
    for chip in chips:
        d = by_chip.get(chip.id)
        if d is None:
            out.append(chip)
            continue
        hit = _MADE.get((id(chip), d))
        if hit is None or hit[0] is not chip:
            if len(_MADE) > 64:
                _MADE.clear()
            hit = (chip, d.apply(chip))
            _MADE[(id(chip), d)] = hit
        out.append(hit[1])
    return out


def fraction_problem(value: float) -> str | None:
    """Why a fraction cannot be a derate's (None: it can)."""
    if not math.isfinite(value) or value < MIN_FRACTION:
        return f"must be at least {MIN_FRACTION:g} (got {value:g})"
    if value > 1.0:
        return (f"must be at most 1 (got {value:g}): a derate lowers a roof; measurements "
                "faster than the roof mean a wrong chip figure, dtype or byte count")
    return None


def name_problem(name: str) -> str | None:
    """Why a text cannot be a derate's name (None: it can)."""
    if not name.strip():
        return "is empty: give the derate a name"
    if len(name) > MAX_NAME:
        return f"is {len(name)} characters long; at most {MAX_NAME}"
    if any(not ch.isprintable() for ch in name):
        return "has a control character"
    return None


def parse_derates(data: Any, where: str, notices: list[str] | None = None) -> list[Derate]:
    """The scenario's ``derates`` list, each checked; each derate's :meth:`Derate.notice`
    is added to ``notices`` (opening a file with a derate says so).

    Raises
    ------
    ScenarioError
        Naming the file and the key (``derates[1].memory``) of the first problem.
    """
    if not isinstance(data, list):
        raise ScenarioError(where, "derates", "must be a list")
    if len(data) > MAX_DERATES:
        raise ScenarioError(where, "derates", f"has {len(data)} derates; at most {MAX_DERATES}")
    out: list[Derate] = []
    for i, item in enumerate(data):
        d = _parse_one(item, where, f"derates[{i}]")
        earlier = next((e for e in out if e.chip == d.chip), None)
        if earlier is not None:
            raise ScenarioError(where, f"derates[{i}].chip", f"{d.chip} already has derate "
                                f"'{earlier.name}' (one derate a chip)")
        out.append(d)
    if notices is not None:
        notices.extend(d.notice(where) for d in out)
    return out


def _parse_one(item: Any, where: str, p: str) -> Derate:
    def fail(key: str, problem: str):
        raise ScenarioError(where, f"{p}.{key}" if key else p, problem)

    if not isinstance(item, dict):
        fail("", "must be an object")
    allowed = {"name", "chip", "compute", "memory", "by_dtype", "note"}
    for k in item:
        if k not in allowed:
            fail(k, f"unknown key (allowed: {', '.join(sorted(allowed))})")
    texts = {}
    for key in ("name", "chip", "note"):
        v = item.get(key, "")
        if not isinstance(v, str):
            fail(key, "must be a string")
        texts[key] = v
    for key, problem in (("name", name_problem(texts["name"])),
                         ("chip", None if texts["chip"] else "is missing or empty"),
                         ("note", None if len(texts["note"]) <= MAX_NOTE
                          else f"is longer than {MAX_NOTE} characters")):
        if problem:
            fail(key, problem)
    nums = {k: _fraction(item.get(k), fail, k) for k in ("compute", "memory")}
    by = item.get("by_dtype", {})
    if not isinstance(by, dict):
        fail("by_dtype", "must be an object (dtype: fraction)")
    for k in by:
        if k.removeprefix(VECTOR) not in PEAK_KEYS:
            fail(f"by_dtype.{k}", f"unknown dtype peak (known: {', '.join(PEAK_KEYS)}, "
                 f"or '{VECTOR}' and one of them)")
    pairs = {k: _fraction(v, fail, f"by_dtype.{k}") for k, v in sorted(by.items())}
    return Derate(texts["name"], texts["chip"], nums["compute"], nums["memory"], pairs,
                  texts["note"])


def _fraction(v: Any, fail, key: str) -> float:
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        fail(key, "must be a number between 0.001 and 1")
    try:
        problem = fraction_problem(float(v))
    except OverflowError:
        problem = "is too large"
    if problem:
        fail(key, problem)
    return float(v)
