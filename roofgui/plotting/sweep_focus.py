"""What the sweep plot focuses on: the selected op's curves (or every op's, the others
faded when there are many), and where the selected op's own value of the swept
dimension sits (a dotted vertical line and its value along the top).
"""

from __future__ import annotations

import math

import numpy as np

from roofgui.model.units import format_number
from roofgui.plotting.declutter import clear_of, close_gaps, declutter
from roofgui.presentation.plotdata import stack_rows

#: Rows of the other ops' critical labels stacked above the selected op's (the rest: hover)
OTHER_ROWS = 2


def selected_op(scenario) -> int | None:
    return scenario.selected if scenario.ops and 0 <= scenario.selected < len(scenario.ops) \
        else None


def focus_curves(scenario, curves) -> list:
    """The curves to draw: the selected op's alone unless the sweep shows all ops (or the
    selected op has none: then all)."""
    sel = selected_op(scenario)
    if scenario.sweep.all_ops or sel is None:
        return list(curves)
    mine = [c for c in curves if c.op_index == sel]
    return mine or list(curves)


def current_value(scenario) -> tuple[float | None, str]:
    """log10 of the selected op's value of the swept dimension and its text
    ("B = 8192"), or (None, "") when it has none."""
    sel = selected_op(scenario)
    dim = scenario.sweep.dim
    v = scenario.ops[sel].dims.get(dim) if sel is not None else None
    if not isinstance(v, (int, float)) or not v > 0 or not math.isfinite(v):
        return None, ""
    return math.log10(v), f"{dim} = {format_number(v)}"


def place_value_marker(plot, x: float | None, text: str) -> list:
    """The dotted line at the current value and its label along the top (the label to
    show, if any)."""
    guide, label = plot.value_guide, plot.value_label
    guide.setVisible(x is not None)
    if x is None:
        return []
    x0, x1, y0, y1 = plot.view_range()
    gx, gy = guide.getData()
    if gx is None or len(gx) != 2 or (gx[0], gy[0], gy[1]) != (x, y0 - 1.0, y1 + 1.0):
        guide.setData(np.array([x, x]), np.array([y0 - 1.0, y1 + 1.0]))  # (moved: else left)
    if label.toPlainText() != text:
        label.setText(text)
    label.setPos(x, y1)
    anchor = (0.0, -0.15) if x < (x0 + x1) / 2 else (1.0, -0.15)
    if (label.anchor.x(), label.anchor.y()) != anchor:
        label.setAnchor(anchor)
    return [label]


def label_rows(lines, selected: int | None, width) -> list[tuple]:
    """``(line, row)`` of the critical labels to show (``lines``: those with a critical
    value), the selected op's first: stacked along the x axis where they would overlap
    (``width(line)``: in decades); the other ops' stacked above them,
    :data:`OTHER_ROWS` rows at most, less those repeating one already shown."""
    mine, seen = [], set()
    for ln in lines:
        if ln.op_index == selected and (ln.crit_label, ln.crit_x) not in seen:
            seen.add((ln.crit_label, ln.crit_x))
            mine.append(ln)
    rest = [ln for ln in lines if ln.op_index != selected and ln.crit_label_shown
            and (ln.crit_label, ln.crit_x) not in seen]
    if selected is None:
        mine, rest = rest, []
    rows = stack_rows([ln.crit_x for ln in mine], [width(ln) for ln in mine])
    out = list(zip(mine, rows))
    base = max(rows, default=-1) + 1
    more = stack_rows([ln.crit_x for ln in rest], [width(ln) for ln in rest])
    out += [(ln, base + r) for ln, r in zip(rest, more) if r < OTHER_ROWS]
    return out


def declutter_labels(plot, value: list, lines, placed: list) -> None:
    """Show the value's label and the critical labels of ``placed`` (``(label, row)``,
    stacked along the x axis) in the rows beneath the first where one would hide a
    knee of ``lines`` or is hidden (:func:`~roofgui.plotting.declutter.declutter`)."""
    knees = [ln for ln in lines if ln.crit_x is not None and ln.crit_y is not None]
    xs, ys = plot.to_scene([ln.crit_x for ln in knees], [ln.crit_y for ln in knees])
    placed = clear_of(plot, placed, xs, ys, plot.style.marker_size * 0.5)
    close_gaps(placed, declutter(plot, value + [lab for lab, _ in placed]))
