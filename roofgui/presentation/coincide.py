"""Compute roofs that coincide: two chips with the same peak (H100 and H200 at bf16 989
TFLOP/s) draw their flat roofs on one line.  The first chip's roof keeps its look and
its label, which names every chip on the line ("bf16 989 TFLOP/s · H100 SXM = H200 SXM");
the others are drawn as dashes over it (:attr:`Roof.overlap` ``(k, m)``: the k-th of
m on the line) and carry no label of their own.
"""

from __future__ import annotations

import math
import re
from dataclasses import replace
from typing import Sequence

VENDORS = ("NVIDIA", "AMD", "Google", "Intel", "AWS", "Cerebras", "Groq", "Graphcore")


def short_name(label: str) -> str:
    """A chip's label without its vendor and a trailing memory size in brackets:
    "NVIDIA H100 SXM (80 GB)" → "H100 SXM" (what-if multipliers are kept)."""
    text = re.sub(r"\s*\((?:per |\d[\d.]* ?[GT]B\b)[^)]*\)", "", label).strip()
    first, _, rest = text.partition(" ")
    return rest if first in VENDORS and rest else text


def mark_coincident_roofs(chips: Sequence, rel: float = 1e-9) -> list:
    """``chips`` (:class:`~.roofgeom.ChipGeometry`) with coinciding compute roofs marked."""
    lines: dict[int, list[tuple[int, int]]] = {}  # by line: (chip, roof) indices
    keys: list[float] = []
    for ci, c in enumerate(chips):
        for ri, r in enumerate(c.roofs):
            if r.kind != "compute":
                continue
            y = math.log10(r.peak)
            k = next((i for i, v in enumerate(keys) if abs(v - y) <= rel), None)
            if k is None:
                keys.append(y)
                k = len(keys) - 1
            if not any(cj == ci for cj, _ in lines.get(k, [])):
                lines.setdefault(k, []).append((ci, ri))
    roofs = [list(c.roofs) for c in chips]
    for members in lines.values():
        if len(members) < 2:
            continue
        names = " = ".join(short_name(chips[ci].label) for ci, _ in members)
        for k, (ci, ri) in enumerate(members):
            r = roofs[ci][ri]
            label = f"{r.label} · {names}" if k == 0 else ""
            roofs[ci][ri] = replace(r, overlap=(k, len(members)), label=label,
                                    tooltip=f"{r.tooltip}<br>the same line as: {names}")
    return [replace(c, roofs=tuple(rs)) for c, rs in zip(chips, roofs)]


def dedupe_ridge_labels(chips: Sequence, tol: float = 1e-9) -> list:
    """The chips' geometry (``ChipGeometry`` each) with the ridge labels repeating an
    earlier chip's text at the same x marked as not shown (two chips, one ridge value)."""
    seen: list[tuple[str, float]] = []
    out = []
    for c in chips:
        ridges = []
        for r in c.ridges:
            if any(t == r.label and abs(x - r.x) <= tol for t, x in seen):
                r = replace(r, label_shown=False)
            else:
                seen.append((r.label, r.x))
            ridges.append(r)
        out.append(replace(c, ridges=tuple(ridges)))
    return out
