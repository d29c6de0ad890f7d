"""Palette slots per chip and line styles per op, shared by the roofline and sweep plots."""

from __future__ import annotations

import zlib
from typing import Mapping, Sequence

#: Line styles per op in the sweep plot, cycled.
OP_DASHES = ("solid", "dash", "dot", "dashdot", "dashdotdot")


def assign_colours(chip_ids: Sequence[str], previous: Mapping[str, int] | None = None,
                   n: int = 8) -> dict[str, int]:
    """Palette slots per chip: chips keep their previous slot; new chips take the lowest free one.

    So unchecking one chip never recolours the others, and a fresh plot of the
    same scenario is coloured in chip order (blue, orange, ... for the first chips).
    """
    prev = dict(previous or {})
    out: dict[str, int] = {}
    for cid in chip_ids:
        if cid in prev and cid not in out:
            out[cid] = prev[cid] % n
    used = set(out.values())
    for cid in chip_ids:
        if cid in out:
            continue
        free = [s for s in range(n) if s not in used]
        slot = free[0] if free else zlib.crc32(cid.encode()) % n
        out[cid] = slot
        used.add(slot)
    return out
