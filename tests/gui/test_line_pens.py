"""Wide solid lines are drawn as segments on screen; they look as the one path would."""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6 import QtCore, QtGui

from roofgui.export.figure import Figure
from roofgui.export.options import ExportOptions
from roofgui.model.scenario import load_scenario
from roofgui.plotting.plot_items import make_pen, set_line_pen

EXAMPLES = __import__("pathlib").Path(__file__).resolve().parents[2] / "resources" / "examples"


def _render(curve: pg.PlotCurveItem, size=(400, 200)) -> np.ndarray:
    img = QtGui.QImage(*size, QtGui.QImage.Format.Format_ARGB32_Premultiplied)
    img.fill(QtGui.QColor("white"))
    p = QtGui.QPainter(img)
    curve.paint(p, None, None)
    p.end()
    ptr = img.constBits()
    return np.frombuffer(ptr, np.uint8).reshape(size[1], size[0], 4).astype(int).copy()


def _knee_curve() -> pg.PlotCurveItem:
    x = np.concatenate([np.linspace(10, 200, 25), np.linspace(200, 390, 25)[1:]])
    y = np.where(x < 200, 180 - (x - 10) * 0.8, 28 + (x - 200) * 0.05 + 8 * np.sin(x / 15))
    return pg.PlotCurveItem(x, y, antialias=True, connect="finite", skipFiniteCheck=True)


def test_a_solid_wide_line_is_drawn_in_segments_and_looks_the_same(qapp):
    before = _knee_curve()  # (as drawn before: one path, round caps and joins)
    before.setPen(make_pen("#1f77b4", 2.0))
    path = _render(before)
    curve = _knee_curve()
    set_line_pen(curve, make_pen("#1f77b4", 2.0))
    assert curve.opts["segmentedLineMode"] == "on"
    segments = _render(curve)
    ink = (path[..., :3] < 250).any(axis=2)
    diff = np.abs(segments - path).max(axis=2)
    assert ink.sum() > 500  # (the line is there)
    # the same pixels to within antialiasing: nothing a viewer would see
    assert (diff > 64).sum() <= 0.01 * ink.sum()
    assert np.abs(segments - path).mean() < 0.5


def test_dashed_translucent_and_hairline_pens_keep_one_path(qapp):
    curve = _knee_curve()
    for pen in (make_pen("#1f77b4", 2.0, "dash"), make_pen("#1f77b4", 2.0, alpha=0.4),
                make_pen("#1f77b4", 1.0)):
        set_line_pen(curve, pen)
        assert curve.opts["segmentedLineMode"] == "off"
        assert curve.opts["pen"].style() == pen.style()
    set_line_pen(curve, make_pen("#1f77b4", 2.0))
    assert curve.opts["segmentedLineMode"] == "on"
    assert curve.opts["pen"].capStyle() == QtCore.Qt.PenCapStyle.FlatCap


def test_an_exported_picture_draws_each_line_as_one_path(qapp):
    sc = load_scenario(EXAMPLES / "09-mlp-on-three-gpus.json")
    from roofgui.model.catalog import Catalog

    for plot in ("roofline", "sweep"):
        with Figure(sc, Catalog.load(), ExportOptions(plot, 800, 500)) as fig:
            curves = [it for it in fig.widget.scene().items() if isinstance(it, pg.PlotCurveItem)
                      and it.xData is not None and len(it.xData)]
            assert curves
            assert all(c.opts["segmentedLineMode"] != "on" for c in curves)
