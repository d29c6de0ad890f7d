"""Palette slots per chip and line styles per op, shared by the roofline and sweep plots.

A chip's identity is its palette slot's (colour, marker, dash): the palette
(:mod:`.style`) has 24 colours in three groups of eight; chips 1-8 take the first group
with the ridge marker ``d`` and solid roofs, chips 9-16 the second with ``star`` and
dotted roofs, chips 17-24 the third with ``+`` and dash-dot roofs.  Within a group the
colours stay apart under the common colour-vision deficiencies; across groups the
marker and the dash tell chips apart whatever the colours look like.
"""

from __future__ import annotations

import zlib
from typing import Mapping, NamedTuple, Sequence

#: Line styles per op in the sweep plot, cycled.
OP_DASHES = ("solid", "dash", "dot", "dashdot", "dashdotdot")
#: Chips per palette group (one marker and dash per group).
GROUP = 8
#: Per group: the chip's ridge marker and the dash of its roofs.
GROUP_MARKERS = ("d", "star", "+")
GROUP_DASHES = ("solid", "dot", "dashdot")
#: Palette slots handed out (three groups of eight).
N_SLOTS = GROUP * len(GROUP_MARKERS)
#: From this many ops drawn on, the ops other than the selected one are faded to this alpha
#: (the roofline's points and labels, the sweep's curves and markers).
FADE_FROM = 4
FADED = 0.3


def faded_ops(items, selected: int | None) -> set[int]:
    """The ops drawn faded (``items``: anything with an ``op_index``, one or more an op):
    all but the selected one, when there are many."""
    ops = {it.op_index for it in items}
    if selected not in ops or len(ops) < FADE_FROM:
        return set()
    return ops - {selected}


class ChipLook(NamedTuple):
    """How a chip is drawn: its palette slot, ridge marker and roof dash."""

    colour: int
    marker: str
    dash: str


def chip_look(slot: int) -> ChipLook:
    """The look of palette slot ``slot`` (as :func:`assign_colours` hands out)."""
    g = (slot // GROUP) % len(GROUP_MARKERS)
    return ChipLook(slot, GROUP_MARKERS[g], GROUP_DASHES[g])


def assign_colours(chip_ids: Sequence[str], previous: Mapping[str, int] | None = None,
                   n: int = N_SLOTS) -> dict[str, int]:
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
