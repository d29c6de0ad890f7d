"""The label layer (``roofgui.plotting.label_layer``): many labels drawn by one item.  Each must
look exactly like a label item (``_Label``, itself checked against pyqtgraph's TextItem):
the same pixels and the same rectangle in the scene, through every change a plot makes."""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
import pytest

from roofgui.plotting.label import _Label
from roofgui.plotting.label_layer import LabelLayer, LayerLabel

from gui_helpers import label_changes, pixels


def pair(qtbot, text, anchor=(0.5, 1.0), border=None, fill=None, antialias=False,
         others=0):
    """A label item and a layer label set up alike, each in a shown plot of its own (with
    ``others`` more labels beside each, elsewhere in the view)."""
    out = []
    for layered in (False, True):
        w = pg.PlotWidget(antialias=antialias)
        qtbot.addWidget(w)
        w.resize(320, 240)
        w.setRange(xRange=(0, 1), yRange=(0, 1), padding=0)
        layer = LabelLayer(w.getPlotItem().getViewBox(), 20) if layered else None
        labs = []
        for i in range(1 + others):
            if layered:
                lab = layer.new_label(anchor=anchor)
            else:
                lab = _Label("", anchor=anchor)
                w.addItem(lab, ignoreBounds=True)
            lab.textItem.document().setDocumentMargin(1.0)
            lab.updateTextPos()
            lab.setText(text if i == 0 else f"B* = {i}")
            lab.fill = pg.mkBrush(fill)
            lab.border = pg.mkPen(border)
            lab.setPos(0.4123, 0.5377) if i == 0 else lab.setPos(0.1 + 0.2 * i, 0.2)
            labs.append(lab)
        w.show()
        out.append((w, labs[0]))
    qtbot.waitExposed(out[0][0])
    return out


def same(a, b):
    (wa, la), (wb, lb) = a, b
    assert lb.toPlainText() == la.toPlainText()
    assert lb.boundingRect() == la.boundingRect()
    assert lb.textItem.boundingRect() == la.textItem.boundingRect()
    assert lb.pos() == la.pos()
    assert lb.isVisible() == la.isVisible()
    if la.isVisible():
        ra, rb = la.sceneBoundingRect(), lb.sceneBoundingRect()
        assert rb.getRect() == pytest.approx(ra.getRect(), abs=1e-9)
    d = np.abs(pixels(wa) - pixels(wb))
    assert d.max() == 0, f"{(d.max(axis=2) > 0).sum()} pixels differ"


@pytest.mark.parametrize("antialias", [False, True])
@pytest.mark.parametrize("text, anchor, border, fill", [
    ("B* = 241", (0.5, 1.0), None, "#ffffffcc"),           # a critical B, with its halo
    ("B* = 8,755", (0.5, 3.05), None, "#ffffffcc"),        # a stacked row
    ("HBM 819 GB/s", (1.0, 1.0), "#888888", "#ffffff"),     # framed
    ("x", (0.0, 0.0), None, None),                          # no halo
    ("", (0.5, 0.5), None, "#ffffffaa"),                    # nothing yet (its halo alone)
])
def test_a_layer_label_looks_exactly_like_a_label_item(qtbot, text, anchor, border, fill,
                                                       antialias):
    a, b = pair(qtbot, text, anchor, border, fill, antialias, others=2)
    same(a, b)


def test_a_layer_label_follows_every_change_a_plot_makes_as_a_label_item_does(qtbot):
    a, b = pair(qtbot, "B* = 136", fill="#ffffffcc", others=3)
    steps = label_changes() + [
        lambda lab: setattr(lab, "fill", pg.mkBrush("#ffd70099")),
        lambda lab: setattr(lab, "border", pg.mkPen("#d62728")),
        lambda lab: lab.setText("two\nlines"),
        lambda lab: lab.hide(),
        lambda lab: lab.show(),
        lambda lab: lab.setVisible(False),
        lambda lab: lab.setVisible(True),
        lambda lab: lab.getViewBox().setRange(xRange=(0.05, 0.3), yRange=(0.5, 1.2), padding=0)
        if isinstance(lab, _Label) else lab._layer._vb.setRange(
            xRange=(0.05, 0.3), yRange=(0.5, 1.2), padding=0),
        lambda lab: lab.setText(""),
    ]
    for step in steps:
        for _w, lab in (a, b):
            step(lab)
            if isinstance(lab, _Label):
                lab.update()  # (pyqtgraph's TextItem repaints a new border on its next paint)
        same(a, b)


def test_the_layer_is_one_item_never_under_the_mouse_and_out_of_the_views_range(qtbot):
    w = pg.PlotWidget()
    qtbot.addWidget(w)
    vb = w.getPlotItem().getViewBox()
    layer = LabelLayer(vb, 20)
    before = len(w.scene().items())
    labs = [layer.new_label() for _ in range(16)]
    for i, lab in enumerate(labs):
        lab.setText(f"B* = {i}")
        lab.setPos(1e6 * i, -1e6)  # far off: no auto-range follows labels
    assert len(w.scene().items()) == before  # labels are not items
    assert all(isinstance(lab, LayerLabel) for lab in layer.labels)
    assert layer.shape().isEmpty()
    w.setRange(xRange=(0, 1), yRange=(0, 1), padding=0)
    assert layer.boundingRect() == vb.viewRect()
    assert vb.childrenBounds() == [None, None]


def test_a_dropped_label_is_hidden_and_a_plot_repaints_a_label_that_changes(qtbot):
    w = pg.PlotWidget()
    qtbot.addWidget(w)
    w.resize(300, 200)
    w.setRange(xRange=(0, 1), yRange=(0, 1), padding=0)
    layer = LabelLayer(w.getPlotItem().getViewBox(), 20)
    lab = layer.new_label()
    lab.setText("B* = 241")
    lab.fill = pg.mkBrush("#ffffff")
    lab.setPos(0.5, 0.5)
    w.show()
    qtbot.waitExposed(w)
    shown = pixels(w)
    lab.hide()
    assert not lab.isVisible() and not np.array_equal(pixels(w), shown)
    lab.show()
    assert np.array_equal(pixels(w), shown)
    lab.setText("B* = 243")  # drawn anew without any further call
    assert not np.array_equal(pixels(w), shown)
