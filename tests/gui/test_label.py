"""The plots' labels (``roofgui.plotting.label``): pyqtgraph's TextItem with its text laid out by
a QTextLayout instead of a QTextDocument.  They must look exactly like a TextItem — the
same rectangle, the same pixels — through every change a plot makes to them."""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
import pytest

from roofgui.plotting.label import _Label

from gui_helpers import label_changes, pixels


def pair(qtbot, text, anchor=(0.5, 1.0), angle=0, border=None, fill=None, antialias=False):
    """A label and a pyqtgraph TextItem set up alike, each alone in a shown plot."""
    out = []
    for cls in (_Label, pg.TextItem):
        w = pg.PlotWidget(antialias=antialias)
        qtbot.addWidget(w)
        w.resize(320, 240)
        w.setRange(xRange=(0, 1), yRange=(0, 1), padding=0)
        lab = cls(text, anchor=anchor, angle=angle, border=border, fill=fill)
        lab.textItem.document().setDocumentMargin(1.0)
        lab.updateTextPos()
        w.addItem(lab, ignoreBounds=True)
        lab.setPos(0.4123, 0.5377)
        w.show()
        out.append((w, lab))
    qtbot.waitExposed(out[0][0])
    return out


def same(a, b):
    (wa, la), (wb, lb) = a, b
    assert la.boundingRect() == lb.boundingRect()
    assert la.toPlainText() == lb.toPlainText()
    assert la.textItem.boundingRect() == lb.textItem.boundingRect()
    assert la.textItem.pos() == lb.textItem.pos()
    d = np.abs(pixels(wa) - pixels(wb))
    assert d.max() == 0, f"{(d.max(axis=2) > 0).sum()} pixels differ"


@pytest.mark.parametrize("antialias", [False, True])
@pytest.mark.parametrize("text, anchor, angle, border, fill", [
    ("B* = 241", (0.5, 1.0), 0, None, "#ffffffcc"),           # a critical B, with its halo
    ("HBM 819 GB/s", (1.0, 1.0), 0, "#888888", "#ffffff"),     # framed (the selected op)
    ("weights alone (14.2 GB)\nexceed 80 GB HBM", (0.0, 0.0), 90, None, "#ffffffaa"),  # a wall
    ("x", (0.5, 2.05), 0, None, None),                         # a stacked row, no halo
    ("", (0.5, 0.5), 0, None, None),                           # nothing yet
])
def test_a_label_looks_exactly_like_a_text_item(qtbot, text, anchor, angle, border, fill,
                                                antialias):
    a, b = pair(qtbot, text, anchor, angle, border, fill, antialias)
    same(a, b)


def test_a_label_follows_every_change_a_plot_makes_as_a_text_item_does(qtbot):
    a, b = pair(qtbot, "B* = 136", fill="#ffffffcc")
    steps = label_changes() + [
        lambda lab: setattr(lab, "border", pg.mkPen("#d62728")),
        lambda lab: lab.setText("two\nlines"),
        lambda lab: lab.setAngle(90),
        lambda lab: lab.getViewBox().setRange(xRange=(0.05, 0.3), yRange=(0.5, 1.2), padding=0),
        lambda lab: lab.setText(""),
    ]
    for step in steps:
        for _w, lab in (a, b):
            step(lab)
            lab.update()  # (pyqtgraph's TextItem repaints a new border on its next paint)
        same(a, b)


def test_a_labels_text_is_laid_out_only_when_it_changes(qtbot):
    lab = _Label("", anchor=(0.5, 1.0))
    lab.setText("B* = 241")
    lines = lab.textItem._laid_out()
    lab.setText("B* = 241")  # the same text: the same layout
    assert lab.textItem._laid_out() is lines and lab.toPlainText() == "B* = 241"
    lab.setText("B* = 243")
    assert lab.textItem._laid_out() is not lines and lab.toPlainText() == "B* = 243"
    with pytest.raises(TypeError, match="plain text"):
        lab.setHtml("<b>B* = 243</b>")
