"""Work skipped on an edit because its inputs did not change: the panels still show exactly
what a fresh build of them would (counts and behaviour, never timings)."""

from __future__ import annotations

import random

import pytest
from PySide6.QtCore import Qt

import roofgui.gui.widgets as widgets_mod
from roofgui.gui.results import _KEY_ROLE, ResultsPanel
from roofgui.gui.widgets import QuantityEdit, make_combo, set_combo_items

from gui_helpers import flush  # noqa: E402


def cells(panel: ResultsPanel) -> list[tuple]:
    """Everything a cell shows: text, tooltip, key, colour and weight."""
    t = panel.table
    return [(r, c, t.item(r, c).text(), t.item(r, c).toolTip(), t.item(r, c).data(_KEY_ROLE),
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
            from roofgui.gui.form import change_kind
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


def test_an_edit_that_leaves_the_selected_op_alone_skips_the_results(window):
    before = window.results.skipped
    table, working = window.results.table_text(), window.results.working_text()
    window.doc.edit("title", lambda s: setattr(s, "title", "another question"), key="title")
    flush(window)
    assert window.results.skipped == before + 1
    assert window.results.table_text() == table and window.results.working_text() == working
    window.form.editor.dim_edit("B").setText("512")
    window.form.editor.dim_edit("B").textEdited.emit("512")
    flush(window)
    assert window.results.skipped == before + 1  # the op changed: shown again
    assert window.results.table_text() != table


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
        window.live.panels_timer.start()
        flush(window)
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


def test_a_field_parses_its_text_once_and_still_asks_its_check(qtbot, monkeypatch):
    calls = []
    real = widgets_mod.parse_quantity
    monkeypatch.setattr(widgets_mod, "parse_quantity", lambda *a, **k: calls.append(a[0]) or real(*a, **k))
    e = QuantityEdit("B")
    qtbot.addWidget(e)
    e.set_value(4096.0, force=True)
    for _ in range(5):
        e.set_value(4096.0, force=True)  # (every edit elsewhere shows every field again)
    assert calls == ["4096"] and e.text() == "4096"
    e.check = lambda v: "too big" if v > 1000 else None  # a rule that now refuses the text
    e.set_value(4096.0, force=True)
    assert e.text() == "4096" and len(calls) == 1  # (the shown value is rewritten as is)
    e.max_value = 100.0  # other limits: parsed again
    e._on_text_edited("4096")
    assert len(calls) == 2 and e.error()


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
