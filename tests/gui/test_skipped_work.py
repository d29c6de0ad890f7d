"""The panels kept up to date edit by edit show exactly what a fresh build of them would;
and (below) the plots' lines and labels draw what pyqtgraph would (behaviour, never timings)."""

from __future__ import annotations

import random

import pytest
from PySide6.QtCore import Qt

import roofgui.gui.widgets as widgets_mod
from roofgui.gui.results import KEY_ROLE, ResultsPanel
from roofgui.gui.widgets import make_combo, set_combo_items

from gui_helpers import flush  # noqa: E402


def cells(panel: ResultsPanel) -> list[tuple]:
    """Everything a cell shows: text, tooltip, key, colour and weight."""
    t = panel.table
    return [(r, c, t.item(r, c).text(), t.item(r, c).toolTip(), t.item(r, c).data(KEY_ROLE),
             t.item(r, c).foreground().color().name() if t.item(r, c).foreground().style()
             != Qt.BrushStyle.NoBrush else None, t.item(r, c).font().bold())
            for r in range(t.rowCount()) for c in range(t.columnCount())]


def shown(panel: ResultsPanel) -> tuple:
    t = panel.table
    heads = [t.horizontalHeaderItem(c).text() for c in range(t.columnCount())]
    rows = [(t.verticalHeaderItem(r).text(), t.verticalHeaderItem(r).toolTip())
            for r in range(t.rowCount())]
    return (panel.heading.text(), heads, rows, cells(panel), panel.working_text(),
            t.horizontalHeader().minimumSectionSize())


def test_the_results_panel_updated_edit_by_edit_shows_what_a_fresh_one_shows(window, qtbot):
    """Random edits (dimensions, kinds, sharding, chips, ops selected, added and removed,
    undo): the panel kept up to date shows, cell by cell, what a new panel shows."""
    rng = random.Random(7)
    doc = window.doc
    kinds = ["matmul", "batched-matmul", "llm", "elementwise", "matmul"]
    chips = ["tpu-v5e", "h100-sxm", "mi300x", "b200", "gaudi3"]
    for step in range(40):
        sc = doc.scenario
        what = rng.choice(["dim", "dim", "kind", "shard", "chip", "select", "add", "remove", "undo",
                           "title"])
        i = sc.selected
        if what == "dim" and sc.ops:
            name = next(iter(sc.ops[i].dims), None)
            if name:
                v = rng.choice([64, 256, 1024, 8192])
                doc.edit("dim", lambda s, name=name, v=v: s.ops[i].dims.__setitem__(name, float(v)))
        elif what == "kind" and sc.ops:
            from roofgui.gui.op_editor import change_kind
            k = rng.choice(kinds)
            doc.edit("kind", lambda s, k=k: change_kind(s.ops[i], k))
        elif what == "shard" and sc.ops and sc.ops[i].kind == "matmul":
            from roofgui.model.scenario import ShardSpec
            doc.edit("shard", lambda s: setattr(s.ops[i], "shard", None if s.ops[i].shard else
                                                ShardSpec("D", 2, "scale-up")))
        elif what == "chip":
            c = rng.choice(chips)
            doc.edit("chip", lambda s, c=c: s.chips.remove(c) if c in s.chips else s.chips.append(c))
        elif what == "select" and sc.ops:
            doc.set_selected(rng.randrange(len(sc.ops)))
        elif what == "add":
            window.form.ops.add_op(rng.choice(kinds))
        elif what == "remove" and len(sc.ops) > 1:
            window.form.ops.remove_op()
        elif what == "undo":
            doc.undo_stack.undo()
        elif what == "title":
            doc.edit("title", lambda s: setattr(s, "title", f"t{step}"))
        flush(window)
        fresh = ResultsPanel()
        qtbot.addWidget(fresh)
        fresh.update_from(doc.scenario, window.live.evaluation)
        assert shown(window.results) == shown(fresh), (step, what)


def test_the_ops_bound_marks_make_no_edit(window, monkeypatch):
    """Setting an op's bound icon and tooltip is no rename: no edit reaches the document."""
    calls = []
    real = type(window.doc).edit
    monkeypatch.setattr(type(window.doc), "edit", lambda self, *a, **k: calls.append(a[0]) or
                        real(self, *a, **k))
    lst = window.form.ops.list
    for _ in range(3):
        with widgets_mod.signals_blocked(lst):  # (marks to set again)
            for r in range(lst.count()):
                lst.item(r).setToolTip("")
                lst.item(r).setData(Qt.ItemDataRole.UserRole + 2, None)
        window.live.refresh_panels()
    assert calls == []
    item = window.form.ops.list.item(0)
    assert item.toolTip().startswith(window.doc.scenario.ops[0].name) and "-bound" in item.toolTip()


def test_the_chip_checks_follow_undo_colours_and_a_reload(window):
    panel = window.chips_panel
    window.chips_panel.set_chip_checked("mi300x", True)
    flush(window)
    assert panel.item("mi300x").checkState(0) == Qt.CheckState.Checked
    assert panel.item("mi300x").data(0, Qt.ItemDataRole.UserRole + 1) == window.chip_colours()["mi300x"]
    window.doc.undo_stack.undo()
    flush(window)
    assert panel.item("mi300x").checkState(0) == Qt.CheckState.Unchecked
    assert panel.item("mi300x").data(0, Qt.ItemDataRole.UserRole + 1) is None
    panel.reload()  # new items: checked and coloured again
    for cid in window.doc.scenario.chips:
        assert panel.item(cid).checkState(0) == Qt.CheckState.Checked
        assert panel.item(cid).data(0, Qt.ItemDataRole.UserRole + 1) == window.chip_colours()[cid]


def test_combo_items_are_replaced_only_when_they_differ(qtbot):
    c = make_combo("x", "", [("A", "a"), ("B", "b")])
    qtbot.addWidget(c)
    c.setCurrentIndex(1)
    set_combo_items(c, [("A", "a"), ("B", "b")])
    assert c.currentIndex() == 1 and c.count() == 2
    c.addItem("C", "c")  # changed behind its back: seen by the count
    set_combo_items(c, [("A", "a"), ("B", "b")])
    assert [c.itemData(i) for i in range(c.count())] == ["a", "b"] and c.currentData() == "b"
    set_combo_items(c, [("B", "b"), ("D", "d")])
    assert [c.itemText(i) for i in range(c.count())] == ["B", "D"] and c.currentData() == "b"


def test_the_working_keeps_its_scroll_position_and_no_history(window):
    view = window.results.working_view
    view.resize(400, 120)
    flush(window)
    bar = view.verticalScrollBar()
    assert bar.maximum() > 5
    bar.setValue(bar.maximum() // 2)
    kept = bar.value()
    b = window.form.editor.dim_edit("B")
    for text in ("300", "301", "302"):
        b.setText(text)
        b.textEdited.emit(text)
        flush(window)
        assert view.toPlainText() == window.results.working_text()
        assert f"B={text}" in window.results.heading.text()
    assert bar.value() == kept  # (setPlainText would have scrolled back to the top)
    assert not view.document().isUndoAvailable()


def test_a_label_moves_without_telling_the_view_box_and_still_moves(qtbot):
    """A label's move skips pyqtgraph's bounds notice (labels never count in the view's
    range) yet lands where it was sent, and the view's range is untouched."""
    import pyqtgraph as pg

    from roofgui.plotting.plot_base import _Label

    w = pg.PlotWidget()
    qtbot.addWidget(w)
    vb = w.getPlotItem().getViewBox()
    vb.setRange(xRange=(0, 1), yRange=(0, 1), padding=0)
    lab = _Label("B* = 1", anchor=(0.5, 1.0))
    w.addItem(lab, ignoreBounds=True)
    seen = []
    vb.itemBoundsChanged = lambda item: seen.append(item)  # (what pyqtgraph would call)
    lab.setPos(0.25, 0.75)
    assert (lab.pos().x(), lab.pos().y()) == (0.25, 0.75)
    assert seen == []
    assert vb.viewRange() == [[0.0, 1.0], [0.0, 1.0]]


@pytest.mark.parametrize("connect", ["all", "finite", "pairs"])
def test_a_lines_lean_path_is_pyqtgraphs_path(qtbot, connect):
    """``_Curve`` builds the path of data it knows is finite without pyqtgraph's finite
    check: the same path pyqtgraph builds, for finite data and (checked then) for data
    with gaps."""
    import numpy as np
    import pyqtgraph as pg

    from roofgui.plotting.plot_items import _Curve

    def elements(path):
        return [(path.elementAt(i).type, path.elementAt(i).x, path.elementAt(i).y)
                for i in range(path.elementCount())]

    x = np.linspace(0.0, 4.0, 9)
    for y in (np.sin(x), np.where(x == 2.0, np.nan, np.cos(x)), np.full(9, np.inf)):
        c = _Curve(connect=connect)
        c.setData(x, y)
        assert c._finite == bool(np.isfinite(y).all())
        ref = pg.PlotCurveItem(connect=connect)
        ref.setData(x, y)
        assert elements(c.getPath()) == elements(ref.getPath())
        assert c.getPath() is c.getPath()  # (built once)
    c.setData(x=x, y=np.sin(x))  # through pyqtgraph's own setData: not known finite
    assert not c._finite
    assert elements(c.getPath()) == elements(pg.arrayToQPath(x, np.sin(x), connect=connect))


def test_a_lines_choice_of_segments_follows_its_pen_and_options(qtbot):
    """``_Curve.paint`` keeps pyqtgraph's segments-or-path answer per pen: a new pen, or
    a change of antialiasing or segmentedLineMode, asks again."""
    import numpy as np
    from PySide6 import QtGui

    from roofgui.plotting.plot_items import _Curve, _pen

    img = QtGui.QImage(64, 64, QtGui.QImage.Format.Format_ARGB32_Premultiplied)
    c = _Curve(antialias=True)
    x = np.linspace(0.0, 60.0, 5)
    c.setData(x, x)

    def paint():
        p = QtGui.QPainter(img)
        c.paint(p, None, None)
        p.end()
        return c._segmented[3]

    c.setPen(_pen("#1f77b4", 2.0))
    assert paint() is False  # antialiased: one path
    c.opts["antialias"] = False
    assert paint() is True  # a wide, opaque, solid pen without antialiasing: segments
    c.opts["segmentedLineMode"] = "off"
    assert paint() is False
    c.opts["segmentedLineMode"] = "auto"
    assert paint() is True
    c.setPen(_pen("#1f77b4", 1.0))  # a new pen, one pixel wide
    assert paint() is False
    for mode in ("on", "off"):
        c.opts["segmentedLineMode"] = mode
        assert paint() is (mode == "on")


def _stroke_spy(monkeypatch):
    """Calls of ``_Curve._stroke_segments`` and what each answered."""
    from roofgui.plotting.plot_items import _Curve

    seen = []
    real = _Curve._stroke_segments

    def spy(self, p, flat, tr):
        drew = real(self, p, flat, tr)
        seen.append(drew)
        return drew

    monkeypatch.setattr(_Curve, "_stroke_segments", spy)
    return seen


def test_a_wide_antialiased_line_is_stroked_as_segments_in_pixels_and_looks_the_same(
        qtbot, monkeypatch):
    """An opaque, solid line wider than a pixel, antialiased, onto pixels: drawn as
    segments in pixel coordinates with flat caps (Qt's line rasteriser, not its general
    stroker) — the same line but for its two round ends, where the view scales and moves
    the data as the plots' views do."""
    import numpy as np
    from PySide6 import QtGui

    from roofgui.plotting.plot_items import _Curve, _pen

    seen = _stroke_spy(monkeypatch)
    x = np.linspace(0.2, 3.8, 24)
    y = np.where(x < 2.0, x, 2.0) + 0.05 * np.sin(3 * x)  # a knee, shallow joins
    tr = QtGui.QTransform(150.0, 0.0, 0.0, -90.0, 10.0, 250.0)  # (log10 data -> pixels)

    def picture(segments: bool) -> np.ndarray:
        img = QtGui.QImage(640, 280, QtGui.QImage.Format.Format_ARGB32_Premultiplied)
        img.fill(0xFFFFFFFF)
        c = _Curve(antialias=True)
        c.setData(x, y)
        c.setPen(_pen("#d55e00", 2.0))
        p = QtGui.QPainter(img)
        p.setWorldTransform(tr)
        if segments:
            c.paint(p, None, None)
        else:
            p.setRenderHint(QtGui.QPainter.RenderHint.Antialiasing, True)
            p.setPen(c.opts["pen"])
            p.drawPath(c.getPath())  # Qt's stroker, round joins and caps
        assert p.worldTransform() == tr  # (left as it was)
        p.end()
        return np.frombuffer(img.constBits(), np.uint8).reshape(280, 640, 4).astype(int)

    a, b = picture(True), picture(False)
    assert seen == [True]
    d = np.abs(a - b).max(axis=2)
    ink = (b[..., :3] < 250).any(axis=2).sum()
    # the ends: a round cap is a half disc of one pixel beyond each end
    ends = np.zeros_like(d, dtype=bool)
    for ex, ey in ((x[0], y[0]), (x[-1], y[-1])):
        px, py = tr.map(float(ex), float(ey))
        ends[int(py) - 3:int(py) + 4, int(px) - 3:int(px) + 4] = True
    # along the line: the same pixels but for a pixel or so at some joins (where a round
    # join's edge and two flat segment ends differ); a misplaced line would differ all along
    assert (d[~ends] > 40).sum() <= ink // 40
    assert (d > 8).sum() > 0  # (not the same drawing: it did stroke segments)


def test_a_line_keeps_its_path_where_segments_would_not_do(qtbot, monkeypatch):
    """Vector outputs keep the path (an SVG's line stays one line), and so do dashed,
    translucent and one-pixel pens, lines with gaps, dense lines and rotated views."""
    import numpy as np
    from PySide6 import QtCore, QtGui, QtSvg

    from roofgui.plotting.plot_items import _Curve, _pen

    seen = _stroke_spy(monkeypatch)
    x = np.linspace(0.0, 60.0, 7)

    def draws_segments(pen, y=x, device=None, transform=None, xs=x) -> bool:
        c = _Curve(antialias=True)
        c.setData(xs, np.asarray(y, dtype=float))
        c.setPen(pen)
        target = device if device is not None else QtGui.QImage(
            64, 64, QtGui.QImage.Format.Format_ARGB32_Premultiplied)
        p = QtGui.QPainter(target)
        if transform is not None:
            p.setWorldTransform(transform)
        seen.clear()
        c.paint(p, None, None)
        p.end()
        return seen == [True]

    assert draws_segments(_pen("#1f77b4", 2.0))
    assert not draws_segments(_pen("#1f77b4", 2.0, "dash"))
    assert not draws_segments(_pen("#1f77b4", 2.0, alpha=0.5))
    assert not draws_segments(_pen("#1f77b4", 1.0))
    assert not draws_segments(_pen("#1f77b4", 2.0), y=np.where(x == 30.0, np.nan, x))
    dense = np.linspace(0.0, 60.0, 41)  # joins every 2 px: it would look paler, beaded
    assert not draws_segments(_pen("#1f77b4", 2.0), y=dense, xs=dense)
    rotated = QtGui.QTransform()
    rotated.rotate(30.0)
    assert not draws_segments(_pen("#1f77b4", 2.0), transform=rotated)
    svg = QtSvg.QSvgGenerator()
    buf = QtCore.QBuffer()
    buf.open(QtCore.QIODevice.OpenModeFlag.WriteOnly)
    svg.setOutputDevice(buf)
    svg.setSize(QtCore.QSize(64, 64))
    assert not draws_segments(_pen("#1f77b4", 2.0), device=svg)
    assert not draws_segments(_pen("#1f77b4", 2.0), device=QtGui.QPicture())


def test_a_line_whose_segments_fail_is_drawn_as_its_path(qtbot, monkeypatch, caplog):
    """Should stroking as segments fail, the line is drawn as its path all the same, the
    painter's transform is as it was, and the failure is logged once."""
    import numpy as np
    from PySide6 import QtGui

    import roofgui.plotting.plot_items as pi

    def broken(self, p, flat, tr):
        p.resetTransform()  # (half done when it fails)
        raise ValueError("broken")

    monkeypatch.setattr(pi._Curve, "_stroke_segments", broken)
    monkeypatch.setattr(pi, "_SEGMENTS_FAILED", False)
    x = np.linspace(0.0, 1.0, 5)
    tr = QtGui.QTransform(60.0, 0.0, 0.0, -40.0, 2.0, 50.0)

    def picture() -> np.ndarray:
        img = QtGui.QImage(64, 64, QtGui.QImage.Format.Format_ARGB32_Premultiplied)
        img.fill(0xFFFFFFFF)
        c = pi._Curve(antialias=True)
        c.setData(x, x)
        c.setPen(pi._pen("#1f77b4", 2.0))
        p = QtGui.QPainter(img)
        p.setWorldTransform(tr)
        c.paint(p, None, None)
        assert p.worldTransform() == tr
        p.end()
        return np.frombuffer(img.constBits(), np.uint8).reshape(64, 64, 4).copy()

    with caplog.at_level("ERROR", logger="roofgui.plotting.plot_items"):
        first, second = picture(), picture()
    assert (first[..., :3] < 200).any(axis=2).sum() > 50  # the line is there
    assert np.array_equal(first, second)
    assert [r.message for r in caplog.records].count(
        "a line could not be stroked as segments; drawing its path") == 1


def test_a_one_segment_line_is_drawn_as_a_line_with_its_paths_pixels(qtbot, monkeypatch):
    """A line of two points (a critical value's guide, dotted and translucent, running far
    below the view) is drawn with ``drawLine``, not a path built for it, and its pixels are
    exactly those of its path: dotted, dashed, solid, translucent, thin and wide."""
    import numpy as np
    from PySide6 import QtGui

    from roofgui.plotting.plot_items import _Curve, _pen

    built = []
    real = _Curve.getPath
    monkeypatch.setattr(_Curve, "getPath", lambda self: built.append(self) or real(self))
    tr = QtGui.QTransform(150.0, 0.0, 0.0, -90.0, 10.0, 250.0)

    def picture(pen, x, y, as_line: bool) -> np.ndarray:
        img = QtGui.QImage(320, 300, QtGui.QImage.Format.Format_ARGB32_Premultiplied)
        img.fill(0xFFFFFFFF)
        c = _Curve(antialias=True)
        c.setData(np.asarray(x, dtype=float), np.asarray(y, dtype=float))
        c.setPen(pen)
        p = QtGui.QPainter(img)
        p.setWorldTransform(tr)
        if as_line:
            built.clear()
            c.paint(p, None, None)
            assert built == []
        else:
            p.setRenderHint(QtGui.QPainter.RenderHint.Antialiasing, True)
            p.setPen(pen)
            p.drawPath(real(c))
        p.end()
        return np.frombuffer(img.constBits(), np.uint8).reshape(300, 320, 4).copy()

    pens = [_pen("#d55e00", 1.0, "dot", alpha=0.75), _pen("#1f77b4", 1.5, "dash"),
            _pen("#009e73", 1.0), _pen("#cc79a7", 2.5, alpha=0.5)]
    for pen in pens:
        for x, y in (([1.2, 1.2], [2.1, -60.0]), ([0.1, 1.9], [0.3, 2.6])):
            a = picture(pen, x, y, True)
            assert (a[..., :3] < 250).any()  # (something drawn)
            assert np.array_equal(a, picture(pen, x, y, False))
