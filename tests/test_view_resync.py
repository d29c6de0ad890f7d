"""Views re-sync only when an edit changed what they show (issue #8): typing a dimension of
an op leaves the chips panel, the sweep controls, the op list and the title alone (an
unfinished entry there stays as typed), while undo, redo and loading re-sync every view,
and an edit that changes a part a view shows still updates that view.  Real widgets, typed
into; no timings."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QEvent, Qt
from PySide6.QtWidgets import QApplication

from roofgui.gui.widgets import QuantityEdit
from roofgui.model.catalog import Catalog
from roofgui.model.scenario import ShardSpec, default_scenario


@pytest.fixture(scope="module")
def shipped():
    return Catalog.load(user_dir=False)


@pytest.fixture
def window(qtbot, shipped):
    """The window on the reference matmul (B 256, D 8192, F 8192; TPU v5e and H100)."""
    from roofgui.gui.main_window import MainWindow

    w = MainWindow(catalog=shipped, restore=False)
    w.show()
    w.live.flush()
    yield w
    w.doc.load(w.doc.scenario)  # (no unsaved-changes question on close)
    w.close()
    w.deleteLater()
    QApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)


def type_into(qtbot, edit, text: str) -> None:
    edit.setFocus()
    edit.selectAll()
    qtbot.keyClicks(edit, text)


def dim(w, name: str) -> QuantityEdit:
    return w.form.editor.dim_edit(name)


@pytest.fixture
def syncs(window, monkeypatch):
    """How many times each view re-synced (its ``sync`` called), by view."""
    counts: dict[str, int] = {}
    views = {"chips": window.chips_panel, "sweep": window.sweep_controls, "ops": window.form.ops,
             "editor": window.form.editor}
    for name, view in views.items():
        real = view.sync

        def counted(origin=None, real=real, name=name):
            counts[name] = counts.get(name, 0) + 1
            return real(origin)
        monkeypatch.setattr(view, "sync", counted)
    return counts


def half_typed(qtbot, w) -> list[tuple[QuantityEdit, str]]:
    """Bad entries left in a field of each view: (field, its text)."""
    left = [(w.chips_panel.peak_edit, "x3"), (w.sweep_controls.start_edit, "lots"),
            (w.form.editor.dim_edit("F"), "zz")]
    for edit, text in left:
        type_into(qtbot, edit, text)
        assert edit.text() == text and edit.error(), edit.label
    return left


# -- an edit of one part leaves the other views alone -------------------------------------

def test_typing_a_dimension_resyncs_no_view(window, qtbot, syncs):
    type_into(qtbot, dim(window, "D"), "4096")
    assert window.doc.scenario.ops[0].dims["D"] == 4096
    # (the op editor shows what was typed already, and a dimension changes no other field)
    assert syncs.get("editor", 0) == 0
    assert syncs.get("chips", 0) == 0 and syncs.get("sweep", 0) == 0 and syncs.get("ops", 0) == 0
    window.doc.undo_stack.undo()  # (from elsewhere: the editor shows the op again)
    assert syncs.get("editor", 0) == 1 and dim(window, "D").text() == "8192"


def test_unfinished_entries_elsewhere_survive_typing_a_dimension(window, qtbot):
    sw, chips = window.sweep_controls, window.chips_panel
    left = [(chips.peak_edit, "x3"), (sw.start_edit, "lots")]
    for edit, text in left:
        type_into(qtbot, edit, text)
    type_into(qtbot, dim(window, "D"), "4096")
    assert window.doc.scenario.ops[0].dims["D"] == 4096
    for edit, text in left:
        assert edit.text() == text and edit.error(), edit.label  # as typed, still in red
        assert edit.message.text() == edit.error()
    assert "From" in sw.message.text()  # the sweep's line of messages too
    assert window.doc.scenario.what_if.peak == 1 and window.doc.scenario.sweep.start == 1


def test_an_unfinished_dimension_survives_an_edit_in_another_view(window, qtbot):
    type_into(qtbot, dim(window, "B"), "12q")
    type_into(qtbot, window.chips_panel.hbm_edit, "2")
    type_into(qtbot, window.form.title.edit, "Bigger HBM")
    assert window.doc.scenario.what_if.hbm == 2 and window.doc.scenario.title == "Bigger HBM"
    assert dim(window, "B").text() == "12q" and dim(window, "B").error()
    assert window.doc.scenario.ops[0].dims["B"] == 256  # (the value before the bad entry)


# -- undo, redo and loading re-sync everything ------------------------------------------

def test_undo_and_redo_resync_every_view(window, qtbot, syncs):
    left = half_typed(qtbot, window)
    type_into(qtbot, dim(window, "D"), "4096")
    before = dict(syncs)
    window.controller.undo_action.trigger()
    assert window.doc.scenario.ops[0].dims["D"] == 8192 and dim(window, "D").text() == "8192"
    assert all(syncs.get(v, 0) == before.get(v, 0) + 1 for v in ("chips", "sweep", "ops", "editor")), syncs
    for edit, _text in left:  # every unfinished entry is back to the scenario's value
        assert edit.error() is None and not edit.message.isVisibleTo(window), edit.label
    assert window.chips_panel.peak_edit.text() == "1"
    assert window.sweep_controls.start_edit.text() == "1" and not window.sweep_controls.message.text()
    assert dim(window, "F").text() == "8192"
    left = half_typed(qtbot, window)
    window.controller.redo_action.trigger()
    assert window.doc.scenario.ops[0].dims["D"] == 4096 and dim(window, "D").text() == "4096"
    assert all(edit.error() is None for edit, _text in left)
    assert window.chips_panel.peak_edit.text() == "1"


def test_loading_resyncs_every_view(window, qtbot, syncs):
    left = half_typed(qtbot, window)
    before = dict(syncs)
    window.doc.load(default_scenario())  # what New does
    assert all(syncs.get(v, 0) == before.get(v, 0) + 1 for v in ("chips", "sweep", "ops", "editor")), syncs
    assert all(edit.error() is None for edit, _text in left)
    assert window.sweep_controls.start_edit.text() == "1"


# -- an edit of a part a view shows still updates it ----------------------------------------

def test_checking_a_chip_updates_the_chip_list(window, qtbot):
    item = window.chips_panel.item("tpu-v5p")
    item.setCheckState(0, Qt.CheckState.Checked)  # what a click on its box does
    assert window.doc.scenario.chips == ["tpu-v5e", "h100-sxm", "tpu-v5p"]
    window.controller.undo_action.trigger()
    assert item.checkState(0) == Qt.CheckState.Unchecked
    window.chips_panel.reset_button.click()  # (nothing to reset: no edit)
    type_into(qtbot, window.chips_panel.peak_edit, "2")
    window.chips_panel.reset_button.click()
    assert window.chips_panel.peak_edit.text() == "1"


def test_another_kind_of_op_changes_the_sweep_choices(window, qtbot, syncs):
    sw = window.sweep_controls
    type_into(qtbot, sw.start_edit, "lots")
    combo = window.form.editor.kind_combo
    combo.setCurrentIndex(combo.findData("dot"))  # the op editor's edit: the ops' kinds change
    assert window.doc.scenario.ops[0].kind == "dot"
    assert syncs.get("sweep", 0) == 1
    names = [sw.dim_combo.itemData(i) for i in range(sw.dim_combo.count())]
    assert names == ["N", "B"]  # dot's N, and the B still swept
    assert sw.start_edit.error() is None and sw.start_edit.text() == "1"  # as before: reset


def test_changing_the_sweep_dimension_updates_the_sweep_controls(window, qtbot):
    sw = window.sweep_controls
    sw.dim_combo.setCurrentIndex(sw.dim_combo.findData("D"))
    assert window.doc.scenario.sweep.dim == "D" and sw.dim_combo.currentData() == "D"
    window.controller.undo_action.trigger()
    assert sw.dim_combo.currentData() == "B"


def test_an_llm_step_enables_the_llm_views(window, qtbot):
    combo = window.sweep_controls.y_combo
    item = combo.model().item(combo.findData("throughput"))
    assert not item.isEnabled()
    window.form.ops.add_op("llm")  # the op list's edit: the ops' kinds change
    assert item.isEnabled()
    window.form.ops.remove_op()
    assert not item.isEnabled()


def test_renaming_an_op_and_the_title_updates_the_list_and_the_heading(window, qtbot):
    ops = window.form.ops
    ops.list.item(0).setText("  projection  ")  # what the list's editor commits
    assert window.doc.scenario.ops[0].name == "projection"
    assert ops.list.item(0).text() == "projection"
    ops.list.item(0).setText("projection ")  # the same name once trimmed: no edit, shown trimmed
    assert ops.list.item(0).text() == "projection"
    title = window.doc.scenario.title
    assert window.heading.text() == title
    type_into(qtbot, window.form.title.edit, "Why?")
    assert window.heading.text() == "Why?" and window.heading.isVisibleTo(window)
    window.controller.undo_action.trigger()
    assert window.form.title.edit.text() == title and window.heading.text() == title
    window.form.title.edit.selectAll()
    qtbot.keyClick(window.form.title.edit, Qt.Key.Key_Backspace)
    assert window.doc.scenario.title == "" and not window.heading.isVisibleTo(window)


def test_the_op_editor_follows_each_part_of_its_op(window, qtbot):
    ed = window.form.editor
    assert not ed.chips_edit.isEnabled() and not ed.link_combo.isEnabled()
    ed.axis_combo.setCurrentIndex(ed.axis_combo.findData("D"))  # its own edit: the sharding
    assert window.doc.scenario.ops[0].shard is not None
    assert ed.chips_edit.isEnabled() and ed.link_combo.isEnabled()
    type_into(qtbot, ed.chips_edit, "8")
    assert window.doc.scenario.ops[0].shard.n == 8
    ed.dtype_combo("w").setCurrentIndex(ed.dtype_combo("w").findData("int8"))
    assert window.doc.scenario.ops[0].dtypes["w"] == "int8"
    window.controller.undo_action.trigger()  # the dtype
    assert ed.dtype_combo("w").currentData() == "bf16" and ed.chips_edit.text() == "8"
    window.controller.undo_action.trigger()  # the chips
    assert ed.chips_edit.text() == "2"
    window.form.ops.duplicate_op()  # another op (the same values): every field afresh
    type_into(qtbot, dim(window, "B"), "12q")
    window.form.ops.add_op("matmul")
    assert window.doc.scenario.selected == 2 and dim(window, "B").error() is None
    assert dim(window, "B").text() == "256"


def test_an_edit_of_the_op_from_elsewhere_shows_in_the_op_editor(window, qtbot):
    """(No view but the op editor edits the selected op today: a stand-in for one that would.)"""
    ed, elsewhere = window.form.editor, object()

    def change(s) -> None:
        s.ops[0].dims["B"] = 512.0
        s.ops[0].dtypes["x"] = "fp32"
        s.ops[0].shard = ShardSpec("B", 4, "ici")

    assert window.doc.edit("Elsewhere", change, origin=elsewhere)
    assert dim(window, "B").text() == "512" and ed.dtype_combo("x").currentData() == "fp32"
    assert ed.axis_combo.currentData() == "B" and ed.chips_edit.text() == "4"
    assert ed.chips_edit.isEnabled() and ed.link_combo.currentData() == "ici"
