"""The sweep plot's items on an edit, the short ways (performance issue #8): each shortcut
gives what the general path gives — the same items, data, looks, places and signals —
and each test would fail if the shortcut skipped something it must not (counts and
states, never timings)."""

from __future__ import annotations

import dataclasses

import numpy as np
import pyqtgraph as pg
import pytest
from PySide6 import QtGui
from PySide6.QtWidgets import QApplication

import roofgui.plotting.label as label_mod
from roofgui.plotting.label import _Label
from roofgui.plotting.label_layer import LabelLayer
from roofgui.plotting.plot_items import (_Canvas, _Curve, _heard, _Scatter, _set_anchor, _set_pos,
                                    _ViewLayer, _spot_brush, _spot_pen)
from roofgui.plotting.sweep_plot import SweepPlot
from roofgui.presentation.style import SCREEN_DARK, SCREEN_LIGHT
from roofgui.model.scenario import SweepSpec
from roofgui.model.evaluate import sweep_scenario

from gui_helpers import assert_same_picture, cached_and_plain, pixels, three_ops

# -- lines: _Curve.set_many ---------------------------------------------------------------

STATE = ("_finite", "_boundingRect", "_boundsCache", "path", "fillPath", "_fillPathList",
         "_mouseShape", "_lineSegmentsRendered", "_rev")


def _lines(qtbot, n, canvas):
    """``n`` lines in a shown plot, on a canvas (as the sweep's) or painting themselves."""
    w = pg.PlotWidget()
    qtbot.addWidget(w)
    vb = w.getPlotItem().getViewBox()
    items = []
    for _ in range(n):
        c = _Curve()
        w.addItem(c)
        items.append(c)
    cv = None
    if canvas:
        cv = _Canvas(vb, 0)
        cv.set_members([(i // 2, c) for i, c in enumerate(items)])  # (two lines a group)
        cv._changed.clear()
    return w, vb, items, cv


def _elements(path):
    return [(path.elementAt(i).type, path.elementAt(i).x, path.elementAt(i).y)
            for i in range(path.elementCount())]


@pytest.mark.parametrize("canvas", [False, True])
def test_lines_set_together_are_set_as_each_setdata_sets_them(qtbot, canvas):
    """set_many with finite lines, a line with a gap (the batch's finite check must fail
    over to each line's), and data pyqtgraph's own setData takes (a list, ints): every
    line ends as setData leaves its twin — data, finite flag, caches, canvas revision,
    the view box told, the signal emitted to a listener."""
    x = np.linspace(0.0, 3.0, 7)
    lean = [(x, np.sin(x)), (x, np.cos(x)), (x, np.where(x == 1.5, np.nan, x)),
            (x.copy(), x * 2.0)]
    # all on the lean path (with a gap: the batch's finite check fails over to each
    # line's), all finite, and mixed with data pyqtgraph's own setData takes
    for data, finite in [(lean, [True, True, False, True]), (lean[:2], [True, True]),
                         (lean + [([0.0, 1.0, 2.0], [1.0, 2.0, 3.0]),
                                  (np.arange(4), np.arange(4))],
                          [True, True, False, True, False, False])]:
        _compare_set_many(qtbot, canvas, data, finite)


def _compare_set_many(qtbot, canvas, data, finite):
    sides = []
    for batch in (True, False):
        w, vb, items, cv = _lines(qtbot, len(data), canvas)
        told, heard = [], []
        vb.itemBoundsChanged = lambda item, told=told: told.append(item)
        for c in items:
            c.sigPlotChanged.connect(lambda item, heard=heard: heard.append(item))
        if batch:
            _Curve.set_many(items, [a for a, _ in data], [b for _, b in data])
        else:
            for c, (a, b) in zip(items, data):
                c.setData(a, b)
        sides.append((items, told, heard, cv))
    (many, told_m, heard_m, cv_m), (each, told_e, heard_e, cv_e) = sides
    assert [c._finite for c in many] == finite
    for a, b in zip(many, each):
        assert all(_same_value(getattr(a, k), getattr(b, k)) for k in STATE), \
            [k for k in STATE if not _same_value(getattr(a, k), getattr(b, k))]
        assert np.array_equal(a.xData, b.xData) and np.array_equal(a.yData, b.yData,
                                                                   equal_nan=True)
        assert _elements(a.getPath()) == _elements(b.getPath())
        assert a.dataBounds(0) == b.dataBounds(0) and a.dataBounds(1) == b.dataBounds(1)
    # the view box told of every line's new bounds (as pyqtgraph's own setData tells it)
    assert [many.index(i) for i in told_m] == [each.index(i) for i in told_e] \
        == list(range(len(data)))
    assert [many.index(i) for i in heard_m] == [each.index(i) for i in heard_e] \
        == list(range(len(data)))
    if canvas:
        assert cv_m._changed == cv_e._changed == {i // 2 for i in range(len(data))}


def _same_value(a, b) -> bool:
    return a == b if not isinstance(a, np.ndarray) else np.array_equal(a, b)


def test_a_plot_changed_signal_is_emitted_to_its_listeners_and_skipped_without(qtbot):
    """pyqtgraph emits sigPlotChanged on every setData; the lean paths ask Qt whether
    anyone listens (a Python callable counts) and emit exactly when someone does."""
    c = _Curve()
    s = _Scatter()
    x = np.array([0.0, 1.0])
    got = []
    for item in (c, s):
        assert not _heard(item, "sigPlotChanged(PyObject)")

    def listen(item):
        got.append(item)

    c.sigPlotChanged.connect(listen)
    s.sigPlotChanged.connect(listen)
    assert _heard(c, "sigPlotChanged(PyObject)") and _heard(s, "sigPlotChanged(PyObject)")
    pen, brush = _spot_pen("#1f77b4", 1.5), _spot_brush("#ffffff")
    for _ in range(2):  # (the second set_spots takes the scatter's short path)
        c.setData(x, x)
        _Curve.set_many([c], [x], [x + 1.0])
        s.set_spots([0.0, 1.0], [0.0, 1.0], ["a", "b"], ["o", "o"], pen=pen, brush=brush,
                    size=8.0)
    assert got == [c, c, s] * 2
    c.sigPlotChanged.disconnect(listen)
    s.sigPlotChanged.disconnect(listen)
    assert not _heard(c, "sigPlotChanged(PyObject)")
    c.setData(x, x)
    s.set_spots([1.0, 0.0], [0.0, 1.0], ["b", "a"], ["o", "o"], pen=pen, brush=brush, size=8.0)
    assert len(got) == 6
    assert list(s.data["x"]) == [1.0, 0.0] and list(s.data["data"]) == ["b", "a"]
    # a signal the object has not: asked as "heard" (the caller emits as it would have)
    assert _heard(c, "noSuchSignal(int)")


# -- labels: LabelText's laid-out texts, LayerLabel.place ------------------------------------

def _font(bold: bool) -> QtGui.QFont:
    f = QtGui.QFont()
    f.setPointSizeF(9.5)
    f.setBold(bold)
    return f


def test_a_text_laid_out_before_is_the_layout_a_fresh_one_would_be(qtbot, monkeypatch):
    """A label taking a text another label laid out takes its layouts: the same size and
    pixels as laying it out afresh; a text in another font is laid out in that font."""
    def label(font):
        lab = _Label("", anchor=(0.5, 1.0))
        lab.textItem.document().setDocumentMargin(1.0)
        lab.setFont(font)
        return lab

    first, second = label(_font(True)), label(_font(True))
    first.setText("B* = 8,755 (two chips)")
    second.setText("B* = 8,755 (two chips)")
    assert second.textItem._laid_out() is first.textItem._laid_out()  # (taken, not made)
    monkeypatch.setattr(label_mod, "_KNOWN", [])  # (nothing known: laid out afresh)
    fresh = label(_font(True))
    fresh.setText("B* = 8,755 (two chips)")
    assert fresh.textItem._laid_out() is not first.textItem._laid_out()
    assert fresh.textItem._size == second.textItem._size
    assert fresh.boundingRect() == second.boundingRect()
    # another font: its own layout (a cache by text alone would hand the bold one over)
    plain = label(_font(False))
    plain.setText("B* = 8,755 (two chips)")
    assert plain.textItem._size[0] < fresh.textItem._size[0]
    # drawn: a label with a layout it took looks exactly like one laid out afresh
    shots = []
    for lab in (second, fresh):
        w = pg.PlotWidget()
        qtbot.addWidget(w)
        w.resize(320, 200)
        w.setRange(xRange=(0, 1), yRange=(0, 1), padding=0)
        lab.setColor("#1f77b4")
        w.addItem(lab, ignoreBounds=True)
        lab.setPos(0.4, 0.5)
        w.show()
        qtbot.waitExposed(w)
        shots.append(pixels(w))
    assert (shots[0][..., :3] < 200).any(axis=2).sum() > 50  # (text drawn)
    assert np.array_equal(shots[0], shots[1])


def test_the_laid_out_texts_kept_are_bounded(qtbot, monkeypatch):
    monkeypatch.setattr(label_mod, "_KNOWN", [])
    monkeypatch.setattr(label_mod, "_TEXTS_MAX", 8)
    lab = _Label("")
    for i in range(12):
        lab.setText(f"B* = {i}")
        lab.textItem._laid_out()
    known = label_mod._known(lab.textItem.font())
    assert list(known) == [f"B* = {i}" for i in range(4, 12)]  # (the oldest dropped)
    lab.setText("B* = 0")  # laid out again, and correctly
    assert lab.toPlainText() == "B* = 0" and lab.textItem._size[0] > 0


def _layer(qtbot, n=3):
    w = pg.PlotWidget()
    qtbot.addWidget(w)
    w.resize(320, 240)
    w.setRange(xRange=(0, 1), yRange=(0, 1), padding=0)
    layer = LabelLayer(w.getPlotItem().getViewBox(), 20)
    labs = []
    for i in range(n):
        lab = layer.new_label()
        lab.textItem.document().setDocumentMargin(1.0)
        lab.updateTextPos()
        lab.setText(f"B* = {i + 1}")
        lab.fill = pg.mkBrush("#ffffffcc")
        lab.setPos(0.2 + 0.3 * i, 0.5)
        labs.append(lab)
    return w, layer, labs


def test_placing_a_layer_label_is_setting_its_place_and_anchor(qtbot):
    """place(x, y, ax, ay) leaves a label as _set_pos and _set_anchor do, and asks for a
    repaint exactly when something moved."""
    _w, layer, (a, b, _c) = _layer(qtbot)
    asks = []
    layer.update = lambda *args: asks.append(args)
    for x, y, anchor in [(0.3, 0.1, (0.5, 1.05)), (0.3, 0.1, (0.5, 2.05)),
                         (0.6, 0.1, (0.5, 2.05)), (0.6, 0.1, (0.5, 2.05)),
                         (0.6, 0.1, (0.0, 0.0))]:
        before = len(asks)
        moved = (a._x, a._y, a._ax, a._ay) != (x, y) + anchor
        a.place(x, y, *anchor)
        assert len(asks) - before == int(moved)
        _set_pos(b, x, y)
        _set_anchor(b, anchor)
        assert (a.pos(), a.anchor, a.boundingRect(), a.textItem.pos()) \
            == (b.pos(), b.anchor, b.boundingRect(), b.textItem.pos())
        assert a._poly == QtGui.QPolygonF(a.boundingRect())
    b.anchor = (1.0, 0.5)  # (the anchor property sets as setAnchor does)
    assert b.anchor == pg.Point(1.0, 0.5) and b.boundingRect().right() == 0.0


def test_a_layer_asks_qt_once_between_paints_and_paints_every_change(qtbot, monkeypatch):
    """Many label changes between two paints are one ask for a repaint; after the paint
    the next change asks again, and Qt paints it (a layer that never asked again would
    leave its labels as they were on screen)."""
    w, layer, labs = _layer(qtbot)
    w.show()
    qtbot.waitExposed(w)
    asks, paints = [], []
    real_update, real_paint = _ViewLayer.update, LabelLayer.paint_marks
    monkeypatch.setattr(_ViewLayer, "update",
                        lambda self, *args: (asks.append(args), real_update(self, *args)))
    monkeypatch.setattr(LabelLayer, "paint_marks",
                        lambda self, *a: (paints.append(1), real_paint(self, *a)))
    QApplication.processEvents()
    asks.clear()
    for round_ in range(3):
        done = len(paints)
        for i, lab in enumerate(labs):  # new texts, places, a hidden and a shown label
            lab.setText(f"B* = {10 * round_ + i}")
            lab.setPos(0.1 + 0.25 * i, 0.3 + 0.1 * round_)
        labs[0].setVisible(round_ != 1)
        assert len(asks) == round_ + 1  # (one ask for all those changes)
        qtbot.waitUntil(lambda: len(paints) > done)  # (and Qt paints them)
    # what was painted is what the labels are now
    shown = pixels(w)
    layer.__dict__["_asked"] = False
    layer.update()
    assert np.array_equal(pixels(w), shown)


# -- the sweep plot's update --------------------------------------------------------------

def scenario():
    return three_ops(sweep=SweepSpec("B", 1, 65536, 800))


def fresh(qtbot, like, sc, curves, colours=None):
    ref = SweepPlot(style=like.style)
    qtbot.addWidget(ref)
    ref.resize(like.size())
    ref.show()
    ref.update_from(sc, curves, colours=colours)
    ref.vb.setRange(xRange=like.vb.viewRange()[0], yRange=like.vb.viewRange()[1], padding=0.0)
    return ref


def looks(plot) -> dict:
    """Every line's items as they stand: pens, data, and the marker, guide and label when
    shown (hidden, they keep what they last showed)."""
    out = {}
    for key, c in plot.curves.items():
        g, lab, m = plot.crit_guides[key], plot.crit_labels[key], plot.crit_markers.get(key)
        out[key] = (c.opts["pen"].color().name(), c.opts["pen"].style(), c.isVisible(),
                    c.xData.tolist(), c.yData.tolist(), g.pen.color().name(),
                    g.isVisible() and g.getData()[0].tolist(), lab.color.name(),
                    lab.isVisible() and (lab.toPlainText(), lab._x, lab._y, lab._ax, lab._ay),
                    m is not None and m.isVisible()
                    and (m.data["x"][0], m.data["y"][0], m.data["data"][0],
                         m.opts["pen"].color().name()))
    return out


def test_an_edit_of_one_op_skips_the_signatures_and_matches_a_fresh_plot(qtbot, shipped):
    """An edit of a dimension: the same lines, in the same order, in the same looks, so
    the looks', the legend's and the markers' views' signatures are not built (the very
    objects stay), and the plot's items are a fresh plot's."""
    cached, _plain = cached_and_plain(qtbot, SweepPlot)
    sc = scenario()
    cached.update_from(sc, sweep_scenario(sc, shipped)[0])
    sigs = (cached._restyle_sig, cached._legend_signature, cached._views_sig,
            cached._members_sig)
    for value in (5000.0, 7000.0, 3000.0):
        sc.ops[1].dims.update(D=value)
        curves, _ = sweep_scenario(sc, shipped)
        cached.update_from(sc, curves)
        assert (cached._restyle_sig, cached._legend_signature, cached._views_sig,
                cached._members_sig) == sigs
        assert all(a is b for a, b in zip(sigs, (cached._restyle_sig, cached._legend_signature,
                                                  cached._views_sig, cached._members_sig)))
        ref = fresh(qtbot, cached, sc, curves, colours=dict(cached._colours))
        assert looks(cached) == looks(ref)
        assert_same_picture(cached, ref)


def test_lines_that_keep_their_data_but_change_colour_are_restyled(qtbot, shipped):
    """The same curves with the chips' colours swapped: no line's data moves, yet every
    look follows (a shortcut that only compared the data would keep the old pens)."""
    cached, _plain = cached_and_plain(qtbot, SweepPlot)
    sc = scenario()
    curves, _ = sweep_scenario(sc, shipped)
    cached.update_from(sc, curves, colours={"tpu-v5e": 0, "h100-sxm": 1, "mi300x": 2})
    before = looks(cached)
    swapped = {"tpu-v5e": 2, "h100-sxm": 0, "mi300x": 1}
    cached._colours = {}  # (the plot keeps its own: these are to be taken afresh)
    cached.update_from(sc, curves, colours=swapped)
    after = looks(cached)
    assert after != before
    assert [v[3] for v in after.values()] == [v[3] for v in before.values()]  # (same data)
    ref = fresh(qtbot, cached, sc, curves, colours=swapped)
    assert after == looks(ref)
    assert [lab.text for _s, lab in cached.legend.items] \
        == [lab.text for _s, lab in ref.legend.items]
    assert_same_picture(cached, ref)


def test_markers_follow_lines_that_lose_and_regain_their_critical_value(qtbot, shipped):
    cached, _plain = cached_and_plain(qtbot, SweepPlot)
    sc = scenario()
    cached.update_from(sc, sweep_scenario(sc, shipped)[0])
    for value in (64.0, 4096.0):  # (no critical B for op 1's curves, then again)
        sc.ops[1].dims.update(D=value)
        curves, _ = sweep_scenario(sc, shipped)
        cached.update_from(sc, curves)
        ref = fresh(qtbot, cached, sc, curves, colours=dict(cached._colours))
        assert looks(cached) == looks(ref)
        gone = {k for k, m in cached.crit_markers.items() if not m.isVisible()}
        op1 = {k for k in cached.curves if k[0] == 1}
        assert (op1 <= gone) == (value == 64.0) and not (op1 & gone and value != 64.0)
        assert_same_picture(cached, ref)


@pytest.mark.parametrize("corner", ["top-left", "top-right", "bottom-left", "bottom-right"])
def test_a_legend_in_a_fixed_corner_is_placed_as_the_general_path_places_it(qtbot, shipped,
                                                                          corner):
    """A top corner skips the view's and the legend's rectangles: its offset is the
    general path's (in pixels from the corner, unlifted); a bottom one is still lifted
    clear of the critical labels."""
    cached, _plain = cached_and_plain(qtbot, SweepPlot)
    cached.set_style(dataclasses.replace(SCREEN_LIGHT, legend_position=corner))
    sc = scenario()
    cached.update_from(sc, sweep_scenario(sc, shipped)[0])
    pixels(cached)  # (painted, the legend placed)
    off = cached.style.legend_padding + 2
    dx = off if "left" in corner else -off
    if "top" in corner:
        assert cached.legend.opts["offset"] == (dx, off)
    else:
        lift = cached._bottom_clearance(*_span(cached, corner, off))
        assert cached.legend.opts["offset"] == (dx, -(off + lift))
    assert cached.legend_corner == corner
    # the legend drawn where its offset puts it
    vr, lr = cached.vb.sceneBoundingRect(), cached.legend.sceneBoundingRect()
    if "top" in corner:
        assert abs(lr.top() - (vr.top() + off)) < 1.0
    if "left" in corner:
        assert abs(lr.left() - (vr.left() + off)) < 1.0
    else:
        assert abs(lr.right() - (vr.right() - off)) < 1.0


def _span(plot, corner, off):
    vr, w = plot.vb.sceneBoundingRect(), plot.legend.width()
    left = vr.left() + off if "left" in corner else vr.right() - off - w
    return left, left + w


def test_a_style_change_after_edits_restyles_every_item(qtbot, shipped):
    """The edits' shortcuts read the style's identity: a new style is never skipped."""
    cached, _plain = cached_and_plain(qtbot, SweepPlot)
    sc = scenario()
    cached.update_from(sc, sweep_scenario(sc, shipped)[0])
    sc.ops[0].dims.update(D=6000.0)
    cached.update_from(sc, sweep_scenario(sc, shipped)[0])
    cached.set_style(SCREEN_DARK)
    sc.ops[0].dims.update(D=7000.0)
    curves, _ = sweep_scenario(sc, shipped)
    cached.update_from(sc, curves)
    ref = fresh(qtbot, cached, sc, curves, colours=dict(cached._colours))
    assert looks(cached) == looks(ref)
    assert_same_picture(cached, ref)


def test_a_sweep_lines_key_is_kept_and_is_not_a_field(shipped):
    from roofgui.presentation.sweepgeom import sweep_geometry

    sc = scenario()
    g = sweep_geometry(sc, sweep_scenario(sc, shipped)[0])
    ln = g.lines[0]
    assert ln.key == (ln.op_index, ln.phase, ln.chip_id) and ln.key is ln.key
    assert "key" not in {f.name for f in dataclasses.fields(ln)}
    other = dataclasses.replace(ln, chip_id="elsewhere")
    assert other.key == (ln.op_index, ln.phase, "elsewhere") and ln.key[2] == ln.chip_id
    assert other != ln and dataclasses.replace(ln) == ln
