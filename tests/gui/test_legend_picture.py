"""The window's legend is drawn from one kept picture (``roofgui.plotting.picture.Picture``).

What it shows must be what the legend's items draw themselves, after every kind of
change to them. A plot with the picture and a plain one (an export's, which has none)
are compared pixel by pixel, read at once after each change (a ``grab``, with no
event-loop pass between). An edit that leaves the legend alone must draw no new picture;
a painter that is not the screen's must get the items drawn directly.
"""

import numpy as np
import pyqtgraph as pg
import pytest
from PySide6 import QtCore, QtGui

from roofgui.plotting.picture import Picture
from roofgui.plotting.plots import RooflinePlot
from roofgui.plotting.sweep_plot import SweepPlot
from roofgui.presentation.style import SCREEN_DARK
from roofgui.model.scenario import SweepSpec
from roofgui.model.evaluate import evaluate_scenario, sweep_scenario

from gui_helpers import assert_same_picture, cached_and_plain, pixels, show_sweep, three_ops


@pytest.fixture
def sweeps(qtbot):
    return cached_and_plain(qtbot, SweepPlot)


def test_only_the_window_plots_legend_has_a_picture(sweeps):
    cached, plain = sweeps
    assert isinstance(cached.legend.graphicsEffect(), Picture)
    assert cached.legend_picture.item is cached.legend
    assert plain.legend.graphicsEffect() is None  # (an export draws its items, as vectors)


def test_an_edit_that_leaves_the_legend_alone_blits_the_same_picture(sweeps, shipped,
                                                                    monkeypatch):
    cached, plain = sweeps
    sc = three_ops(sweep=SweepSpec("B", 1, 65536, 800))
    show_sweep(sweeps, sc, shipped)
    pixels(cached)
    pic = cached.legend_picture
    assert pic.renders >= 1
    legend_at = cached.legend.pos()
    before = pic.renders
    for d in (6000.0, 7000.0, 9000.0):
        sc.ops[1].dims.update(D=d)
        show_sweep(sweeps, sc, shipped)
        pixels(cached)
        if cached.legend.pos() == legend_at:  # (the legend did not change corners)
            assert pic.renders == before
    assert_same_picture(cached, plain)
    # a repaint blits the picture: the items are not painted one by one
    kept = []
    real = Picture._draw_kept
    monkeypatch.setattr(Picture, "_draw_kept", lambda self, p: kept.append(real(self, p)))
    cached.viewport().repaint()
    assert kept == [True] and pic.renders == before


def test_a_repaint_of_part_of_the_legend_blits_the_same_picture(sweeps, shipped):
    """A repaint of a small region (the readout under the mouse, say) clips the blit: it
    draws no new picture, before or after, and the plot still shows what a plain one
    shows."""
    cached, plain = sweeps
    show_sweep(sweeps, three_ops(sweep=SweepSpec("B", 1, 65536, 800)), shipped)
    pixels(cached)
    pic = cached.legend_picture
    before = pic.renders
    r = cached.mapFromScene(cached.legend.sceneBoundingRect()).boundingRect()
    for part in (QtCore.QRect(r.left() - 5, r.top() + 7, 40, 25),
                 QtCore.QRect(r.center().x(), r.center().y(), 300, 300)):
        cached.viewport().repaint(part)
    cached.viewport().repaint()
    assert pic.renders == before
    assert_same_picture(cached, plain)


@pytest.mark.parametrize("change", [
    "brush", "text", "entries", "style", "moved by a fraction", "moved by whole pixels",
    "half outside the view", "resized",
])
def test_the_picture_follows_every_change_of_the_legend_at_once(sweeps, shipped, change):
    cached, plain = sweeps
    sc = three_ops(sweep=SweepSpec("B", 1, 65536, 800))
    show_sweep(sweeps, sc, shipped)
    assert_same_picture(cached, plain)
    before = cached.legend_picture.renders
    for w in sweeps:
        lg = w.legend
        if change == "brush":
            lg.setBrush(pg.mkBrush("#C0FFC0FF"))
        elif change == "text":
            lg.items[0][1].setText("a much longer name for the first chip")
        elif change == "entries":
            sc2 = three_ops(sweep=SweepSpec("B", 1, 65536, 800))
            sc2.chips.remove("mi300x")
            curves, _ = sweep_scenario(sc2, shipped)
            w.update_from(sc2, curves)
            w.flush_legend()
        elif change == "style":
            w.set_style(SCREEN_DARK)
        elif change == "moved by a fraction":
            lg.setOffset((40.4, 32.7))
        elif change == "moved by whole pixels":
            lg.setOffset((40.0, 30.0))
        elif change == "half outside the view":  # (the view box clips it)
            lg.setOffset((w.vb.width() - 90.3, w.vb.height() - 40.6))
        elif change == "resized":
            w.resize(700, 460)
    # read straight away: no event-loop pass between the change and the paint
    for w in sweeps:
        w.grab()
    assert cached.legend_picture.renders > before
    assert_same_picture(cached, plain)


def test_a_roofline_legend_through_edits_and_chips(qtbot, shipped):
    cached, plain = cached_and_plain(qtbot, RooflinePlot)
    sc = three_ops()
    for step in (lambda: None,
                 lambda: sc.ops[0].dims.update(B=4000.0),
                 lambda: sc.chips.remove("mi300x"),
                 lambda: sc.chips.append("b200")):
        step()
        ev = evaluate_scenario(sc, shipped)
        for w in (cached, plain):
            w.update_from(sc, ev)
        assert_same_picture(cached, plain)
    assert cached.legend_picture.renders >= 1


def test_a_painter_other_than_the_screens_gets_the_items_drawn_directly(sweeps, shipped,
                                                                       monkeypatch):
    """Rendering the window's plot into an image (no widget behind the painter): the
    picture declines, and the legend's items draw themselves, as with no picture at all."""
    cached, _plain = sweeps
    sc = three_ops(sweep=SweepSpec("B", 1, 65536, 800))
    show_sweep(sweeps, sc, shipped)
    pixels(cached)
    pic = cached.legend_picture
    before = pic.renders
    kept = []
    real = Picture._draw_kept
    monkeypatch.setattr(Picture, "_draw_kept", lambda self, p: kept.append(real(self, p)))

    def rendered(w):
        img = QtGui.QImage(w.size(), QtGui.QImage.Format.Format_ARGB32_Premultiplied)
        img.fill(0)
        p = QtGui.QPainter(img)
        w.scene().render(p, QtCore.QRectF(img.rect()),
                         w.mapToScene(w.viewport().rect()).boundingRect())
        p.end()
        a = np.frombuffer(img.constBits(), np.uint8).reshape(img.height(), img.bytesPerLine())
        return a[:, :img.width() * 4].reshape(img.height(), img.width(), 4).astype(int)

    with_picture = rendered(cached)
    assert kept and not any(kept)  # (asked, and declined)
    assert pic.renders == before
    pic.setEnabled(False)  # (Qt then draws the items as if there were no effect)
    try:
        assert np.array_equal(with_picture, rendered(cached))
    finally:
        pic.setEnabled(True)
