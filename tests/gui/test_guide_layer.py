"""The guide layer (``roofgui.plotting.guide_layer``): the sweep's critical guides drawn by one
item.  A guide must look exactly like the two-point line item it replaces, and carry no
line far outside the view (a vector export cuts every other line to the view)."""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6 import QtGui

from roofgui.plotting.guide_layer import Guide, GuideLayer
from roofgui.plotting.plot_items import _Curve, _pen
from roofgui.presentation.plotdata import LOG_INF

from gui_helpers import pixels

GUIDES = [(0.3, 0.8, "#d55e00"), (0.55, 0.4, "#1f77b4"), (0.55, 0.95, "#009e73"),
          (0.9, 1.4, "#cc79a7")]  # (x, top, colour): one of them starts above the view


def plot(qtbot):
    w = pg.PlotWidget()
    qtbot.addWidget(w)
    w.resize(320, 240)
    w.setBackground("w")
    w.setRange(xRange=(0, 1), yRange=(0, 1), padding=0)
    return w


def test_guides_look_exactly_like_the_line_items_they_replace(qtbot):
    items, layered = plot(qtbot), plot(qtbot)
    layer = GuideLayer(layered.getPlotItem().getViewBox(), -20)
    for x, top, colour in GUIDES:
        pen = _pen(colour, 1.0, "dot", alpha=0.75)
        c = _Curve(antialias=True)
        c.setData(np.array([x, x]), np.array([top, -LOG_INF]))
        c.setPen(pen)
        items.addItem(c, ignoreBounds=True)
        g = layer.new_guide()
        g.set(x, top, -LOG_INF)
        g.setPen(pen)
        g.show()
    for w in (items, layered):
        w.show()
    qtbot.waitExposed(layered)
    a, b = pixels(items), pixels(layered)
    assert (a[..., :3] < 250).any(axis=2).sum() > 200  # (guides drawn)
    assert np.array_equal(a, b)
    # moved, hidden, restyled: the same again
    c = [it for it in items.getPlotItem().items if isinstance(it, _Curve)]
    c[0].setData(np.array([0.1, 0.1]), np.array([0.6, -LOG_INF]))
    layer.guides[0].set(0.1, 0.6, -LOG_INF)
    c[1].setVisible(False)
    layer.guides[1].hide()
    c[2].setPen(_pen("#000000", 1.0, "dot", alpha=0.75))
    layer.guides[2].setPen(_pen("#000000", 1.0, "dot", alpha=0.75))
    assert np.array_equal(pixels(items), pixels(layered))
    assert not layer.guides[1].isVisible()
    assert layer.guides[0].getData()[0].tolist() == [0.1, 0.1]


def test_guides_are_drawn_in_the_order_given_and_cut_below_the_view(qtbot):
    w = plot(qtbot)
    layer = GuideLayer(w.getPlotItem().getViewBox(), -20)
    gs = [layer.new_guide() for _ in GUIDES]
    for g, (x, top, colour) in zip(gs, GUIDES):
        g.set(x, top, -LOG_INF)
        g.setPen(_pen(colour, 1.0, "dot", alpha=0.75))
        g.show()
    w.show()
    qtbot.waitExposed(w)
    pic = QtGui.QPicture()
    p = QtGui.QPainter(pic)
    tr = QtGui.QTransform(320.0, 0.0, 0.0, -240.0, 0.0, 240.0)  # (the view: 1 x 1 -> pixels)
    p.setTransform(tr)
    layer.set_order([gs[2], gs[0]])  # (the others not drawn)
    layer.paint(p, None, None)
    p.end()
    r = pic.boundingRect()
    # two guides drawn, down to a few pixels below the view's bottom (240 px), not 60 decades
    assert r.height() < 260 and r.bottom() <= 245, r
    assert 0.3 * 320 - 2 <= r.left() and r.right() <= 0.55 * 320 + 2
    # a guide wholly below the view draws nothing
    gs[0].set(0.3, -5.0, -LOG_INF)
    pic = QtGui.QPicture()
    p = QtGui.QPainter(pic)
    p.setTransform(tr)
    layer.set_order([gs[0]])
    layer.paint(p, None, None)
    p.end()
    assert pic.boundingRect().isEmpty()
    assert isinstance(gs[0], Guide) and layer.shape().isEmpty()
    assert layer.boundingRect() == w.getPlotItem().getViewBox().viewRect()
