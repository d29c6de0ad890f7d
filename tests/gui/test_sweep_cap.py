"""The window evaluates at most a plot's worth of sweep points per curve (issue 28: 30 ops ×
12 chips × 100,000 points cost seconds and GBs per edit); an export of the sweep's table
still has every point the scenario asks for."""

from __future__ import annotations

import csv
import io
import math

import numpy as np
import pytest

from gui_helpers import close_quietly, flush, open_window
from roofgui.export.csv import sweep_csv
from roofgui.gui.main_window import TAB_SWEEP
from roofgui.model.scenario import OpSpec, Scenario, SweepSpec


def many_points(points: int) -> Scenario:
    return Scenario(title="a long sweep", chips=["tpu-v5e", "h100-sxm"], ops=[
        OpSpec("matmul", "matmul", {"B": 256, "D": 8192, "F": 8192}, {}),
        OpSpec("narrow", "matmul", {"B": 64, "D": 4096, "F": 1024}, {}),
    ], sweep=SweepSpec("B", 1.0, 1e6, points, all_ops=True))


@pytest.fixture
def window(qtbot, shipped):
    w = open_window(shipped, restore=False)
    yield w
    close_quietly(w)


def type_into(qtbot, edit, text):
    edit.setFocus()
    edit.selectAll()
    qtbot.keyClicks(edit, text)


def test_the_window_sweeps_at_most_a_plots_worth_of_points_per_curve(window, qtbot):
    window.doc.load(many_points(100_000))
    window.tabs.setCurrentIndex(TAB_SWEEP)
    flush(window)
    lines = window.sweep_plot.geometry.lines
    assert len(lines) == 4 and any(line.crit_x is not None for line in lines)
    for line in lines:
        assert line.x.size == 121  # the points drawn: 20 a decade (was 100,000)
        assert line.x[0] == pytest.approx(0.0) and line.x[-1] == pytest.approx(6.0)
        assert np.allclose(np.diff(line.x), np.diff(line.x)[0])  # log-spaced over the range
        if line.crit_x is not None:  # the knee, exactly, in what is drawn
            assert np.any(np.isclose(line.draw_x, line.crit_x, rtol=0, atol=1e-12))
    type_into(qtbot, window.form.editor.dim_edit("D"), "2048")  # an edit: the same cap
    flush(window)
    assert all(line.x.size <= 2000 for line in window.sweep_plot.geometry.lines)


def test_the_sweeps_table_still_has_every_point(shipped):
    sc = many_points(5000)
    rows = list(csv.reader(io.StringIO(sweep_csv(sc, shipped))))
    assert len(rows) == 1 + 5000
    assert float(rows[1][0]) == pytest.approx(1.0) and float(rows[-1][0]) == pytest.approx(1e6)
    assert math.isclose(float(rows[2][0]), 10 ** (6 / 4999), rel_tol=1e-9)


def test_an_exported_sweep_figure_sweeps_no_more_points_than_it_draws(shipped):
    from roofgui.export.figure import Figure
    from roofgui.export.options import ExportOptions

    with Figure(many_points(100_000), shipped, ExportOptions("sweep", 640, 400, "slide")) as fig:
        assert len(fig.curves) == 4 and all(c.x.size <= 2000 for c in fig.curves)
        assert fig.png_bytes().startswith(b"\x89PNG")


def test_the_drawn_sweep_follows_the_full_sweep_to_a_fraction_of_a_pixel(window, shipped):
    # the window evaluates 20 points a decade and each knee exactly; against a sweep of
    # 20,000 points the drawing strays by well under a pixel (a decade is ~100 px or more)
    from roofgui.model.evaluate import sweep_scenario

    sc = many_points(20_000)
    window.doc.load(sc)
    window.tabs.setCurrentIndex(TAB_SWEEP)
    flush(window)
    full, _ = sweep_scenario(window.doc.scenario, shipped)
    assert full[0].x.size == 20_000
    for line, curve in zip(window.sweep_plot.geometry.lines, full):
        lx = np.log10(curve.x)
        ly = np.log10(curve.result.attainable_flops)
        assert np.abs(np.interp(lx, line.draw_x, line.draw_y) - ly).max() < 2e-3
