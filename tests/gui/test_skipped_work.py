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
