"""The numbers stacked along the x axis (the roofline's ridge intensities, the sweep's
critical values) hide no data point: the rows from the first that would cover a point
(or that has no room) are left to hover, so no number floats above a gap either (16
chips at 90 % of 1280×720, where the stacks are tallest)."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QPointF

from gui_helpers import EXAMPLES, close_quietly, open_window, settle

SIXTEEN = EXAMPLES / "11-transformer-block-16-chips.json"


@pytest.fixture(scope="module")
def sixteen_roofline(qapp, shipped):
    """``sixteen_roofline(size)``: the window on the 16-chip example at ``size``, its roofline
    fitted and laid out.  The tests only read the plot, so each size's window is built once
    for the module and closed at its end."""
    windows = {}

    def at(size):
        if size not in windows:
            w = windows[size] = open_window(shipped, restore=False, size=size)
            w.controller.open_path(SIXTEEN, ask=False)
            settle(w, w.roofline_plot)
            w.roofline_plot.fit()
        settle(windows[size], windows[size].roofline_plot)
        return windows[size].roofline_plot

    yield at
    for w in windows.values():
        close_quietly(w)


def points_in_scene(plot) -> tuple[list[float], list[float]]:
    """Every point and link twin of the roofline, in scene coordinates."""
    g = plot.geometry
    pts = [(p.x, p.y) for p in g.points] + [(p.net_x, p.y) for p in g.points if p.net_x]
    xs, ys = plot.to_scene([p[0] for p in pts], [p[1] for p in pts])
    return xs.tolist(), ys.tolist()


def row(lab) -> int:
    """The stack row a label is pinned in (anchored 1.05 + row heights above the axis)."""
    return round(lab.anchor.y() - 1.05)


def assert_clear(plot, labels, xs, ys) -> None:
    shown = [lab for lab in labels if lab.isVisible()]
    assert len(shown) >= 5  # (not by hiding them all)
    r = plot.style.marker_size * 0.5
    for lab in shown:
        rect = lab.sceneBoundingRect().adjusted(-r, -r, r, r)
        assert not any(rect.contains(QPointF(x, y)) for x, y in zip(xs, ys)), lab.toPlainText()
    rows = sorted({row(lab) for lab in shown})
    assert rows == list(range(len(rows)))  # (from the axis up, no gap)


@pytest.mark.parametrize("size", [(1152, 648), (1600, 1000)])
def test_ridge_numbers_hide_no_point(sixteen_roofline, size):
    plot = sixteen_roofline(size)
    xs, ys = points_in_scene(plot)
    assert_clear(plot, plot.ridge_labels.values(), xs, ys)


@pytest.mark.parametrize("size", [(1152, 648), (1600, 1000)])
def test_critical_values_hide_no_knee(qtbot, shipped, size):
    from roofgui.gui.main_window import TAB_SWEEP

    w = open_window(shipped, restore=False, size=size)
    try:
        w.controller.open_path(SIXTEEN, ask=False)
        w.tabs.setCurrentIndex(TAB_SWEEP)
        plot = w.sweep_plot
        settle(w, plot)
        knees = [ln for ln in plot.geometry.lines if ln.crit_x is not None]
        xs, ys = plot.to_scene([ln.crit_x for ln in knees], [ln.crit_y for ln in knees])
        assert_clear(plot, plot.crit_labels.values(), xs.tolist(), ys.tolist())
    finally:
        close_quietly(w)


@pytest.mark.parametrize("size", [(1152, 648), (1600, 1000), (2304, 1296)])
def test_op_labels_hide_no_point(sixteen_roofline, size):
    """Four ops share a point at intensity 1: the fourth label had only a spot over the
    column of 16 chips' markers, which drew over its text; it is left to hover."""
    plot = sixteen_roofline(size)
    xs, ys = points_in_scene(plot)
    r = plot.style.marker_size * 0.5
    shown = [(k, lab) for k, lab in plot.op_labels.items() if lab.isVisible()]
    assert len(shown) >= 4
    for k, lab in shown:
        if k[0] == plot.selected_op:
            continue
        rect = lab.sceneBoundingRect().adjusted(-r, -r, r, r)
        pin = lab.pos()
        (px,), (py,) = plot.to_scene([pin.x()], [pin.y()])
        assert not any(rect.contains(QPointF(x, y)) for x, y in zip(xs, ys)
                       if abs(x - px) > 0.5 or abs(y - py) > 0.5), lab.toPlainText()


@pytest.mark.parametrize("size", [(1152, 648), (1600, 1000)])
def test_roof_labels_hide_no_point(sixteen_roofline, size):
    """At 90 % of 1280×720 a roof label could sit over other ops' points: a roof label
    over a point is left to the legend and the hover."""
    plot = sixteen_roofline(size)
    xs, ys = points_in_scene(plot)
    shown = [lab for lab in plot.roof_labels.values() if lab.isVisible()]
    assert shown
    for lab in shown:  # (no point's centre under the middle of the text; a point
        r = lab.sceneBoundingRect()  # on the label's own roof, just beneath it, is fine)
        rect = r.adjusted(0, r.height() / 4, 0, -r.height() / 4)
        assert not any(rect.contains(QPointF(x, y))
                       for x, y in zip(xs, ys)), lab.toPlainText()


@pytest.mark.parametrize("size", [(1152, 648), (1600, 1000)])
def test_roof_labels_stay_by_their_roof(sixteen_roofline, size):
    """16 roofs within a decade: spread apart, a roof label could land three lines
    below its roof, beside no line ("bf16 275 TFLOP/s"); it shows only near its roof."""
    plot = sixteen_roofline(size)
    roofs = {(c.chip_id, r.key): r for c in plot.geometry.chips for r in c.roofs}
    shown = [(k, lab) for k, lab in plot.roof_labels.items() if lab.isVisible()]
    assert shown
    for k, lab in shown:
        rect = lab.sceneBoundingRect()
        _, (y,) = plot.to_scene([0.0], [roofs[k].y[0]])
        assert abs(rect.bottom() - y) <= 2.5 * rect.height(), lab.toPlainText()
