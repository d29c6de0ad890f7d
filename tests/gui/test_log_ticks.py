"""A view spanning fewer than three decades labels its 2× and 5× ticks, on screen."""

from __future__ import annotations

import math

import pytest
from PySide6 import QtGui

from gui_helpers import flush
from roofgui.presentation import plotdata as pd


def L(v):
    return math.log10(v)


def as_values(logs):
    return [float(f"{10 ** v:.3g}") for v in logs]


def test_levels_under_three_decades_label_2_and_5():
    majors, mids, minors = pd.log_tick_levels(L(3), L(400))
    assert as_values(majors) == [10, 100]
    assert as_values(mids) == [5, 20, 50, 200]
    assert as_values(minors) == [3, 4, 6, 7, 8, 9, 30, 40, 60, 70, 80, 90, 300, 400]
    assert [pd.tick_label(v, "plain") for v in mids] == ["5", "20", "50", "200"]


def test_three_decades_or_a_crowded_axis_keep_decades_only():
    majors, mids, _ = pd.log_tick_levels(0, 3)
    assert as_values(majors) == [1, 10, 100, 1000] and mids == []
    _, mids, _ = pd.log_tick_levels(L(3), L(400), max_major=4)  # (room for 4 labels)
    assert mids == []
    assert pd.log_tick_levels(1, 1) == ([], [], [])


def drawn_texts(axis) -> list[str]:
    img = QtGui.QImage(400, 400, QtGui.QImage.Format.Format_ARGB32)
    p = QtGui.QPainter(img)
    try:
        specs = axis.generateDrawSpecs(p)
    finally:
        p.end()
    return [text for _rect, _flags, text in specs[2]] if specs else []


@pytest.mark.parametrize("span, shown", [(1.5, True), (2.5, True), (5.0, False)])
def test_the_roofline_axis_labels_intermediate_ticks_when_zoomed_in(window, span, shown):
    plot = window.roofline_plot
    x0, _x1, y0, y1 = plot.view_range()
    plot.set_view([0.8, 0.8 + span, y0, y1])
    flush(window)
    texts = drawn_texts(plot.getPlotItem().getAxis("bottom"))
    assert "10" in texts and "100" in texts
    assert ("20" in texts and "50" in texts) == shown
    assert "30" not in texts  # (the other minors stay unlabelled)
    # the grid stays at the decades
    gx, _ = plot.grid_item.getData()
    assert {round(v, 9) for v in gx if 0.8 <= v <= 0.8 + span} <= {1.0, 2.0, 3.0, 4.0, 5.0}
