"""The legend leaves the axes when inside them it would cover data: to their right, or
below them with many entries; it comes back inside when a corner is free; exports draw
it where the window does."""

from __future__ import annotations

import pytest

from gui_helpers import EXAMPLES, close_quietly, fitted_roofline, flush, open_window, settle
from roofgui.model.scenario import load_scenario

MLP = EXAMPLES / "09-mlp-on-three-gpus.json"
SIXTEEN = EXAMPLES / "11-transformer-block-16-chips.json"


def scene_points(plot):
    xs, ys = plot.to_scene([p.x for p in plot.geometry.points],
                           [p.y for p in plot.geometry.points])
    return list(zip(xs.tolist(), ys.tolist()))


def assert_clear(plot):
    """The legend covers no point and no op or roof label, and is whole in the plot."""
    lr = plot.legend.sceneBoundingRect()
    assert plot.legend.isVisible()
    from PySide6.QtCore import QPointF
    assert not any(lr.contains(QPointF(x, y)) for x, y in scene_points(plot))
    for lab in [*plot.op_labels.values(), *plot.roof_labels.values()]:
        if lab.isVisible():
            assert not lr.intersects(lab.sceneBoundingRect()), lab.toPlainText()
    assert plot.getPlotItem().sceneBoundingRect().contains(lr)


@pytest.mark.parametrize("path, size, side", [(MLP, (1024, 576), {"right", "below"}),
                                              (SIXTEEN, (1152, 648), {"right", "below"}),
                                              (SIXTEEN, (1600, 1000), {"right", "below"})])
def test_the_legend_goes_outside_rather_than_cover_data(qtbot, shipped, path, size, side):
    with fitted_roofline(shipped, path, size) as (_, plot):
        assert plot.legend_corner in side
        assert_clear(plot)
        assert not plot.legend.sceneBoundingRect().intersects(plot.vb.sceneBoundingRect())


def test_the_legend_comes_back_inside_when_a_corner_is_free(qtbot, shipped):
    with fitted_roofline(shipped, MLP, (1024, 576)) as (w, plot):  # (80 % of 1280×720)
        assert plot.legend_corner in ("right", "below")
        wide = plot.vb.sceneBoundingRect()
        w.resize(1600, 1000)  # a larger window: a corner is free again
        settle(w)
        assert plot.legend_corner in ("top-left", "top-right", "bottom-left", "bottom-right")
        assert plot.vb.sceneBoundingRect().contains(plot.legend.sceneBoundingRect())
        vr = plot.vb.sceneBoundingRect()  # the room it took is given back
        assert vr.width() > wide.width() + 300 and vr.height() > wide.height()
        assert_clear(plot)


def test_an_export_draws_the_legend_outside_too(qtbot, shipped):
    from roofgui.export.figure import Figure
    from roofgui.export.options import ExportOptions

    sc = load_scenario(SIXTEEN)
    with Figure(sc, shipped, ExportOptions(plot="roofline", width=1280, height=720)) as fig:
        plot = fig.widget
        assert fig.legend_position == "below"
        lr = plot.legend.sceneBoundingRect()
        assert fig.source_rect().contains(lr)  # (the painted rectangle holds it)
        assert not lr.intersects(plot.vb.sceneBoundingRect())


@pytest.mark.parametrize("tab", ["roofline", "sweep"])
def test_sixteen_chips_on_a_small_screen_leave_the_axes_most_of_the_height(qtbot, shipped, tab):
    """At 90 % of 1280×720, 16 chips' legend (18 rows) goes beside the axes rather than
    below them, where it left them a strip ~80 px tall."""
    from roofgui.gui.main_window import TAB_SWEEP

    w = open_window(shipped, restore=False, size=(1152, 648))
    try:
        w.controller.open_path(SIXTEEN, ask=False)
        settle(w)
        plot = w.roofline_plot
        if tab == "sweep":
            w.tabs.setCurrentIndex(TAB_SWEEP)
            plot = w.sweep_plot
            for _ in range(3):
                flush(w)
            plot.grab()
            plot.flush_layout()
        else:
            plot.fit()
            settle(w)
        pr = plot.getPlotItem().sceneBoundingRect()
        vr = plot.vb.sceneBoundingRect()
        assert vr.height() >= 0.6 * pr.height()
        assert vr.width() >= 0.4 * pr.width()
        lr = plot.legend.sceneBoundingRect()
        assert plot.legend.isVisible() and pr.contains(lr)
        assert not lr.intersects(vr)
    finally:
        close_quietly(w)
