"""The main window driven through its real widgets, as a user would."""

from __future__ import annotations

import json

import pytest
from PySide6.QtCore import QEvent, QPointF, Qt
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import (QAbstractButton, QAbstractItemView, QApplication, QCheckBox,
                               QComboBox, QFileDialog, QLabel, QLineEdit, QMessageBox)

from roofgui.gui.main_window import MainWindow, TAB_ROOFLINE, TAB_SWEEP
from roofgui.model.catalog import Catalog
from roofgui.model.ops import OP_KINDS
from roofgui.model.scenario import default_scenario, load_scenario

from gui_helpers import EXAMPLES, close_quietly, dark_palette, flush  # noqa: E402


def point(w, op=0, chip="tpu-v5e"):
    item = w.roofline_plot.points[(op, "", chip)]
    x, y = item.getData()
    return float(x[0]), float(y[0])


def type_into(qtbot, edit, text):
    edit.setFocus()
    edit.selectAll()
    qtbot.keyClicks(edit, text)


def type_text(widget, text):
    """Type any text, one key event per character (as a keyboard or an input method sends it)."""
    for ch in text:
        for kind in (QEvent.Type.KeyPress, QEvent.Type.KeyRelease):
            QApplication.sendEvent(widget, QKeyEvent(kind, 0, Qt.KeyboardModifier.NoModifier, ch))


def b_edit(w):
    return w.form.editor.dim_edit("B")


# -- first launch --------------------------------------------------------------------

def test_first_launch_opens_the_reference_matmul(window):
    sc = window.doc.scenario
    assert sc.to_dict() == default_scenario().to_dict()
    assert set(window.roofline_plot.roof_curves) == {"tpu-v5e", "h100-sxm"}
    assert (0, "", "tpu-v5e") in window.roofline_plot.points
    assert window.results.cell("T_math", 0) == "174 µs"
    assert not window.isWindowModified()
    assert window.notices.messages() == []


# -- live editing ----------------------------------------------------------------------

def test_typing_a_dimension_moves_the_point_and_changes_the_readouts(window, qtbot):
    before = point(window)
    flops_before = window.results.cell("FLOPs", 0)
    count = window.live.count
    type_into(qtbot, b_edit(window), "1024")
    assert window.doc.scenario.ops[0].dims["B"] == 1024
    flush(window)
    after = point(window)
    assert after[0] > before[0]  # intensity grows with B
    assert window.results.cell("FLOPs", 0) != flops_before
    assert window.results.cell("FLOPs", 0) == "137 GFLOP"
    assert window.results.cell("Bound", 0) == "compute"
    # four keystrokes before the event loop ran: one evaluation, one undo step
    assert window.live.count == count + 1
    assert window.doc.undo_stack.count() == 1
    assert window.isWindowModified()


def test_suffixes_are_accepted(window, qtbot):
    for text, value in (("4k", 4000), ("8Ki", 8192), ("2**10", 1024), ("1e3", 1000)):
        type_into(qtbot, b_edit(window), text)
        assert window.doc.scenario.ops[0].dims["B"] == value, text


BAD = [("abc", "not a number"), ("12q", "unknown suffix"), ("0", "greater than zero"), ("-5", ""),
       ("nan", ""), ("1e400", ""), ("", "empty"), ("   ", "empty"), ("12.5", "whole number"),
       ("∞", ""), ("4 096 😀", ""), ("9" * 70, "too large")]


def test_a_bad_value_shows_its_message_and_leaves_the_plot_as_it_was(window, qtbot):
    for text, problem in BAD:
        _check_bad_value(window, qtbot, text, problem)


def _check_bad_value(window, qtbot, text, problem):
    edit = b_edit(window)
    before_point = point(window)
    before_table = window.results.table_text()
    before_dims = dict(window.doc.scenario.ops[0].dims)
    type_into(qtbot, edit, "3")  # a valid edit first, so "before" is a state the user made
    qtbot.keyClick(edit, Qt.Key.Key_Return)  # (an edit of its own: the next one returns to 3)
    flush(window)
    before_point, before_table = point(window), window.results.table_text()
    before_dims = dict(window.doc.scenario.ops[0].dims)
    steps = window.doc.undo_stack.count()
    edit.setFocus()
    edit.selectAll()
    if text:
        QApplication.clipboard().setText(text)
        qtbot.keyClick(edit, Qt.Key.Key_V, Qt.KeyboardModifier.ControlModifier)  # paste it
    else:
        qtbot.keyClick(edit, Qt.Key.Key_Backspace)
    flush(window)
    msg = edit.error()
    assert msg and msg.startswith("B (batch, tokens):"), (text, msg)
    assert problem in msg
    assert edit.message.isVisibleTo(window) and edit.message.text() == msg
    assert "border" in edit.styleSheet()
    assert window.doc.scenario.ops[0].dims == before_dims
    assert point(window) == before_point
    assert window.results.table_text() == before_table
    assert window.doc.undo_stack.count() == steps
    # fixing it clears the message and moves on
    edit.selectAll()
    qtbot.keyClicks(edit, "512")
    assert edit.error() is None and not edit.message.isVisibleTo(window)
    assert window.doc.scenario.ops[0].dims["B"] == 512


def test_a_bad_entry_returns_to_the_value_before_the_edit_not_its_prefix(window, qtbot):
    edit = b_edit(window)
    before = window.results.cell("FLOPs", 0)
    edit.setFocus()
    edit.selectAll()
    type_text(edit, "12q")  # "1" and "12" are valid (and shown live) as they are typed; "12q" is not
    flush(window)
    assert window.doc.scenario.ops[0].dims["B"] == 256  # the value before the edit, not 12
    assert "unknown suffix 'q'" in edit.error()
    assert window.results.cell("FLOPs", 0) == before
    type_text(edit, "∞")
    assert window.doc.scenario.ops[0].dims["B"] == 256 and edit.error()


def test_an_unfinished_bad_entry_survives_an_edit_elsewhere(window, qtbot):
    type_into(qtbot, b_edit(window), "12q")
    type_into(qtbot, window.form.editor.dim_edit("D"), "4096")
    assert b_edit(window).text() == "12q" and b_edit(window).error()


def test_checking_a_chip_adds_its_roofs_and_changes_the_regions(window, qtbot):
    plot = window.roofline_plot
    regions_before = [(r.kind, r.x0, r.x1) for r in plot.geometry.regions]
    assert "tpu-v5p" not in plot.roof_curves
    item = window.chips_panel.item("tpu-v5p")
    item.setCheckState(0, Qt.CheckState.Checked)  # what a click on the box does
    flush(window)
    assert window.doc.scenario.chips == ["tpu-v5e", "h100-sxm", "tpu-v5p"]
    assert "tpu-v5p" in plot.roof_curves
    assert (0, "", "tpu-v5p") in plot.points
    regions_after = [(r.kind, r.x0, r.x1) for r in plot.geometry.regions]
    assert regions_after != regions_before  # v5p's ridge (166) starts the yellow band earlier
    assert window.results.table.columnCount() == 3
    # its colour swatch matches the plot
    swatch = window.chips_panel.item("tpu-v5p").data(0, int(Qt.ItemDataRole.UserRole) + 1)
    assert swatch == window.chip_colours()["tpu-v5p"]
    # unchecking removes it again
    item.setCheckState(0, Qt.CheckState.Unchecked)
    flush(window)
    assert "tpu-v5p" not in plot.roof_curves


def test_chip_filter_hides_what_does_not_match(window, qtbot):
    qtbot.keyClicks(window.chips_panel.filter, "tpu")
    visible = window.chips_panel.visible_ids()
    assert visible and all(cid.startswith("tpu") for cid in visible)
    window.chips_panel.filter.clear()
    assert len(window.chips_panel.visible_ids()) == len(window.catalog)


def test_adding_an_op_adds_a_point_and_a_sweep_curve(window, qtbot):
    window.tabs.setCurrentIndex(TAB_SWEEP)
    flush(window)
    curves_before = set(window.sweep_plot.curves)
    assert {k[0] for k in curves_before} == {0}
    qtbot.mouseClick(window.form.ops.add_button, Qt.MouseButton.LeftButton)
    flush(window)
    sc = window.doc.scenario
    assert len(sc.ops) == 2 and sc.selected == 1 and sc.ops[1].name == "matmul 2"
    assert {k[0] for k in window.sweep_plot.curves} == {1}  # (the selected op's)
    qtbot.mouseClick(window.sweep_controls.all_ops_check, Qt.MouseButton.LeftButton)
    flush(window)
    assert window.doc.scenario.sweep.all_ops
    assert {k[0] for k in window.sweep_plot.curves} == {0, 1}
    assert window.form.ops.list.count() == 2
    assert window.results.heading.text().startswith("matmul 2")
    # the hidden roofline is not redrawn on every edit, only when its tab is shown again
    assert (1, "", "tpu-v5e") not in window.roofline_plot.points
    window.tabs.setCurrentIndex(TAB_ROOFLINE)
    assert (1, "", "tpu-v5e") in window.roofline_plot.points
    assert (1, "", "h100-sxm") in window.roofline_plot.points


def test_clicking_an_op_on_the_roofline_selects_it(window, qtbot, shipped):
    window.doc.load(load_scenario(EXAMPLES / "09-mlp-on-three-gpus.json"))
    window.roofline_plot.fit()
    flush(window)
    qtbot.wait(10)
    assert window.doc.scenario.selected == 0
    plot = window.roofline_plot
    x, y = plot.points[(2, "", "b200")].getData()
    scene = plot.vb.mapViewToScene(QPointF(float(x[0]), float(y[0])))
    qtbot.mouseClick(plot.viewport(), Qt.MouseButton.LeftButton, pos=plot.mapFromScene(scene))
    flush(window)
    name = window.doc.scenario.ops[2].name
    assert window.doc.scenario.selected == 2 and window.form.ops.list.currentRow() == 2
    assert window.results.heading.text().startswith(name)
    assert plot.op_labels[(2, "")].textItem.font().bold()  # the plot shows which op it is
    assert not plot.op_labels[(0, "")].textItem.font().bold()
    assert not window.isWindowModified()  # selecting is not an edit
    label = plot.op_labels[(1, "")]
    qtbot.mouseClick(plot.viewport(), Qt.MouseButton.LeftButton,
                     pos=plot.mapFromScene(label.sceneBoundingRect().center()))
    flush(window)
    assert window.doc.scenario.selected == 1
    assert window.results.heading.text().startswith(window.doc.scenario.ops[1].name)


def test_a_chip_has_one_colour_in_the_roofline_and_the_sweep(window):
    # the roofline keeps the H100's slot when the TPU goes; the MI300X takes the free one
    window.doc.edit("chips", lambda s: setattr(s, "chips", ["h100-sxm", "mi300x"]))
    flush(window)
    roof = dict(window.roofline_plot.geometry.colours)
    assert roof["h100-sxm"] != 0  # not what a fresh sweep would give the first chip
    window.tabs.setCurrentIndex(TAB_SWEEP)
    flush(window)
    sweep = {ln.chip_id: ln.colour for ln in window.sweep_plot.geometry.lines}
    assert sweep == {c: roof[c] for c in ("h100-sxm", "mi300x")}
    pen = window.sweep_plot.curves[(0, "", "h100-sxm")].opts["pen"]
    assert pen.color().name().lower() == window.chip_colours()["h100-sxm"].lower()


def test_op_list_duplicate_rename_reorder_remove(window, qtbot):
    ops = window.form.ops
    qtbot.mouseClick(ops.duplicate_button, Qt.MouseButton.LeftButton)
    assert [o.name for o in window.doc.scenario.ops] == ["matmul", "matmul 2"]
    item = ops.list.item(1)
    item.setText("down-proj")  # what the in-place editor commits
    assert window.doc.scenario.ops[1].name == "down-proj"
    qtbot.mouseClick(ops.up_button, Qt.MouseButton.LeftButton)
    assert [o.name for o in window.doc.scenario.ops] == ["down-proj", "matmul"]
    assert window.doc.scenario.selected == 0
    qtbot.mouseClick(ops.remove_button, Qt.MouseButton.LeftButton)
    flush(window)
    assert [o.name for o in window.doc.scenario.ops] == ["matmul"]
    assert set(k[0] for k in window.roofline_plot.points) == {0}


def test_removing_every_op_leaves_an_empty_but_working_window(window, qtbot):
    qtbot.mouseClick(window.form.ops.remove_button, Qt.MouseButton.LeftButton)
    flush(window)
    assert window.doc.scenario.ops == []
    assert window.roofline_plot.points == {}
    assert window.form.editor.empty.isVisibleTo(window)
    window.controller.undo_action.trigger()
    flush(window)
    assert len(window.roofline_plot.points) == 2


def test_changing_the_op_type_rebuilds_nothing_twice(window, qtbot):
    ed = window.form.editor
    ed.kind_combo.setCurrentIndex(ed.kind_combo.findData("dot"))
    flush(window)
    assert window.doc.scenario.ops[0].kind == "dot"
    assert set(ed.current_page().edits) == {"N"}
    assert not ed.dtype_combo("w").isVisibleTo(window)
    assert window.roofline_plot.points[(0, "", "tpu-v5e")]
    dot_page = ed.current_page()
    ed.kind_combo.setCurrentIndex(ed.kind_combo.findData("matmul"))
    ed.kind_combo.setCurrentIndex(ed.kind_combo.findData("dot"))
    assert ed.current_page() is dot_page  # pages are built once and reused


def test_dtype_and_sharding_through_the_form(window, qtbot):
    ed = window.form.editor
    combo = ed.dtype_combo("w")
    combo.setCurrentIndex(combo.findData("int8"))
    flush(window)
    assert window.doc.scenario.ops[0].dtypes["w"] == "int8"
    assert "D·F·1" in window.results.working_text()
    ed.axis_combo.setCurrentIndex(ed.axis_combo.findData("D"))
    flush(window)
    shard = window.doc.scenario.ops[0].shard
    assert shard is not None and shard.axis == "D" and shard.n == 2 and shard.link == "scale-up"
    # each chip's own scale-up link: ICI on the TPU, NVLink on the H100, both drawn, named
    assert window.notices.messages() == []
    plot = window.roofline_plot
    assert {(0, "", "tpu-v5e"), (0, "", "h100-sxm")} <= set(plot.points)
    assert set(plot.net_points) == {(0, "", "tpu-v5e"), (0, "", "h100-sxm")}
    assert "link:ici" in plot.roof_curves["tpu-v5e"] and "link:nvlink" in plot.roof_curves["h100-sxm"]
    assert not any("scale-up" in k for c in plot.roof_curves.values() for k in c)
    assert "link roof" in [lab.text for _, lab in plot.legend.items]
    text = window.results.working_text()
    assert "T_net" in text and "(ici)" in text and "(nvlink)" in text
    assert {r["link"] for r in window.results.records()} == {"ici", "nvlink"}
    links = [window.results.cell("Link", c) for c in range(window.results.table.columnCount())]
    assert sorted(t.split(" · ")[0] for t in links) == ["ici", "nvlink"] and all("B/s" in t for t in links)
    assert "each chip's scale-up link" in window.results.heading.text()
    # a link the H100 lacks, chosen explicitly: a notice, not an exception, and the TPU still draws
    ed.link_combo.setCurrentIndex(ed.link_combo.findData("ici"))
    flush(window)
    assert window.doc.scenario.ops[0].shard.link == "ici"
    assert any("ici" in m for m in window.notices.messages())
    assert window.notices.isVisibleTo(window)
    assert (0, "", "tpu-v5e") in window.roofline_plot.points
    type_into(qtbot, ed.chips_edit, "4")
    assert window.doc.scenario.ops[0].shard.n == 4


def test_what_if_multiplier_is_live_and_in_the_legend(window, qtbot):
    before = point(window, chip="tpu-v5e")
    type_into(qtbot, window.chips_panel.peak_edit, "2")
    flush(window)
    assert window.doc.scenario.what_if.peak == 2
    labels = [c.label for c in window.roofline_plot.geometry.chips]
    assert any("peak×2" in lab for lab in labels)
    assert point(window, chip="tpu-v5e") != before
    qtbot.mouseClick(window.chips_panel.reset_button, Qt.MouseButton.LeftButton)
    assert window.doc.scenario.what_if.peak == 1
    assert window.chips_panel.peak_edit.text() == "1"


def test_derate_toggle(window, qtbot):
    window.chips_panel.derate_box.setFocus()
    qtbot.keyClick(window.chips_panel.derate_box, Qt.Key.Key_Space)
    flush(window)
    assert window.doc.scenario.derate
    assert "achievable" in window.results.working_text()


# -- undo ------------------------------------------------------------------------------

def test_undo_restores_the_field_the_plot_and_the_readouts(window, qtbot):
    p0, t0 = point(window), window.results.table_text()
    type_into(qtbot, b_edit(window), "2048")
    b_edit(window).editingFinished.emit()
    combo = window.form.editor.dtype_combo("x")
    combo.setCurrentIndex(combo.findData("fp32"))
    flush(window)
    assert window.doc.undo_stack.count() == 2
    window.controller.undo_action.trigger()
    assert window.doc.scenario.ops[0].dtypes["x"] == "bf16"
    assert combo.currentData() == "bf16"
    window.controller.undo_action.trigger()
    flush(window)
    assert window.doc.scenario.ops[0].dims["B"] == 256
    assert b_edit(window).text() == "256"
    assert point(window) == p0 and window.results.table_text() == t0
    assert not window.isWindowModified()
    window.controller.redo_action.trigger()
    assert window.doc.scenario.ops[0].dims["B"] == 2048
    assert b_edit(window).text() == "2048"


def test_standard_shortcuts(window):
    keys = {a.shortcut().toString() for a in window.findChildren(type(window.export_action))}
    for k in ("Ctrl+N", "Ctrl+O", "Ctrl+S", "Ctrl+Shift+S", "Ctrl+Z", "Ctrl+Y", "Ctrl+Q",
              "Ctrl+Shift+C"):
        assert k in keys, k


# -- documents -------------------------------------------------------------------------

def test_save_then_open_gives_the_same_scenario(window, qtbot, tmp_path, monkeypatch):
    type_into(qtbot, b_edit(window), "777")
    window.chips_panel.item("tpu-v6e").setCheckState(0, Qt.CheckState.Checked)
    path = tmp_path / "mine.json"
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *a, **k: (str(path), ""))
    window.controller.save_as_action.trigger()
    assert path.exists() and not window.isWindowModified()
    assert window.windowTitle().startswith("mine.json")
    saved = window.doc.scenario.to_dict()
    assert json.loads(path.read_text())["ops"][0]["dims"]["B"] == 777
    assert load_scenario(path).to_dict() == saved
    window.controller.new_action.trigger()
    assert window.doc.scenario.ops == [] and window.doc.scenario.chips == []  # New is empty
    monkeypatch.setattr(QFileDialog, "getOpenFileName", lambda *a, **k: (str(path), ""))
    window.controller.open_action.trigger()
    flush(window)
    assert window.doc.scenario.to_dict() == saved
    assert b_edit(window).text() == "777"
    assert "tpu-v6e" in window.roofline_plot.roof_curves
    assert str(path.resolve()) in window.controller.recent_files()


def test_opening_a_broken_file_says_what_is_wrong_and_keeps_the_document(window, tmp_path,
                                                                         monkeypatch):
    bad = tmp_path / "bad.json"
    bad.write_text('{"format": "roofgui-scenario", "version": 1, "ops": [{"kind": "warp"}]}')
    shown = []
    monkeypatch.setattr(QMessageBox, "warning", lambda parent, title, text: shown.append(text))
    before = window.doc.scenario.to_dict()
    assert not window.controller.open_path(bad, ask=False)
    assert shown and "bad.json" in shown[0] and "ops[0].kind" in shown[0]
    assert window.doc.scenario.to_dict() == before


def test_unsaved_changes_are_asked_about_on_close(window, qtbot, monkeypatch):
    type_into(qtbot, b_edit(window), "300")
    answers = [QMessageBox.StandardButton.Cancel]
    monkeypatch.setattr(QMessageBox, "exec", lambda self: answers.pop(0))
    assert not window.close()
    assert window.isVisible()
    answers.append(QMessageBox.StandardButton.Discard)
    assert window.close()


def test_layout_and_last_scenario_come_back(qtbot, monkeypatch):
    w1 = MainWindow(catalog=Catalog.load(user_dir=False))
    w1.show()
    w1.live.flush()
    type_into(qtbot, w1.form.editor.dim_edit("B"), "640")
    w1.tabs.setCurrentIndex(TAB_SWEEP)
    w1.results_dock.hide()
    monkeypatch.setattr(QMessageBox, "exec", lambda self: QMessageBox.StandardButton.Discard)
    assert w1.close()
    w2 = MainWindow(catalog=Catalog.load(user_dir=False))
    w2.show()
    try:
        assert w2.doc.scenario.ops[0].dims["B"] == 640
        assert w2.tabs.currentIndex() == TAB_SWEEP
        assert not w2.results_dock.isVisible()
    finally:
        close_quietly(w2)


def test_every_example_opens_from_the_menu_without_errors(window):
    actions = [a for a in window.controller.examples_menu.actions() if a.isEnabled()]
    assert len(actions) >= 8
    for a in actions:
        a.trigger()
        flush(window)
        assert window.doc.scenario.title == a.iconText()  # (its text less the mnemonic)
        assert window.heading.text() == window.doc.scenario.title
        assert window.notices.messages() == [], a.text()
        window.tabs.setCurrentIndex(TAB_ROOFLINE)  # (one may open on the Sweep tab)
        phases = sum(len(OP_KINDS[op.kind].phases) for op in window.doc.scenario.ops)
        assert len(window.roofline_plot.points) == phases * len(window.doc.scenario.chips)
        assert not window.isWindowModified()


def test_question_3_sweep_is_reproducible_from_the_window(window):
    (a,) = [a for a in window.controller.examples_menu.actions() if a.iconText().startswith("Question 3")]
    a.trigger()
    window.tabs.setCurrentIndex(TAB_SWEEP)
    flush(window)
    g = window.sweep_plot.geometry
    assert len(g.lines) == 2 and all(ln.crit_x is not None for ln in g.lines)
    y = window.sweep_controls.y_combo
    y.setCurrentIndex(y.findData("time"))
    flush(window)
    assert window.doc.scenario.sweep.y == "time"
    assert window.sweep_plot.geometry.y_kind != g.y_kind


def test_sweep_range_checks_from_and_to(window, qtbot):
    sw = window.sweep_controls
    type_into(qtbot, sw.start_edit, "1e6")  # beyond "To" (16384)
    assert sw.start_edit.error() and "less than To" in sw.start_edit.error()
    assert window.doc.scenario.sweep.start == 1
    assert "less than To" in sw.message.text()
    type_into(qtbot, sw.stop_edit, "1e7")
    type_into(qtbot, sw.start_edit, "1e6")
    assert window.doc.scenario.sweep.start == 1e6 and window.doc.scenario.sweep.stop == 1e7


# -- results ---------------------------------------------------------------------------

def test_results_list_every_figure_and_the_working_is_copyable(window, qtbot):
    rows = [window.results.table.verticalHeaderItem(r).text()
            for r in range(window.results.table.rowCount())]
    for name in ("FLOPs", "Bytes (HBM)", "Intensity", "Critical intensity", "T_math",
                 "T_comms (HBM)", "T_lower", "T_upper", "Bound", "Utilisation", "Critical B",
                 "Critical D", "Critical F"):
        assert name in rows, name
    assert rows.index("Critical B") < rows.index("Critical D")
    qtbot.mouseClick(window.results.copy_button, Qt.MouseButton.LeftButton)
    text = QApplication.clipboard().text()
    assert "T_math = 3.44e+10 FLOP / 1.97e+14 FLOP/s" in text and "174 µs" in text


# -- usability -------------------------------------------------------------------------

def _inputs(w):
    roots = (w.form, w.chips_panel, w.sweep_controls)
    for root in roots:
        for cls in (QLineEdit, QComboBox, QCheckBox, QAbstractButton, QAbstractItemView):
            for widget in root.findChildren(cls):
                if type(widget).__name__ in ("QScrollBar", "QHeaderView") \
                        or widget.objectName().startswith("qt_"):
                    continue
                yield widget


def test_every_input_has_an_accessible_name_matching_its_label_and_a_tooltip(window):
    missing = [(type(x).__name__, x.objectName(), x.accessibleName()) for x in _inputs(window)
               if x.isVisibleTo(window) and (not x.accessibleName() or not x.toolTip())]
    # the line edit inside each combo box belongs to the combo
    missing = [m for m in missing if m[0] != "QLineEdit" or m[1]]
    assert missing == []
    labelled = 0
    for lab in window.findChildren(QLabel):
        buddy = lab.buddy()
        if buddy is not None:
            assert buddy.accessibleName() == lab.text().replace("&", ""), lab.text()
            labelled += 1
    assert labelled >= 12


def test_the_form_works_from_the_keyboard(window, qtbot):
    order = []
    w = window.form.title.edit
    for _ in range(60):
        order.append(w)
        w = w.nextInFocusChain()
        while not (w.focusPolicy() & Qt.FocusPolicy.TabFocus) or not w.isVisibleTo(window) \
                or not w.isEnabled():
            w = w.nextInFocusChain()
    ed = window.form.editor
    sequence = [window.form.title.edit, window.form.ops.list, ed.kind_combo, ed.dim_edit("B"),
                ed.dim_edit("D"), ed.dim_edit("F"), ed.dtype_combo("x"), ed.axis_combo,
                window.chips_panel.filter, window.chips_panel.tree, window.chips_panel.peak_edit]
    positions = [order.index(x) for x in sequence]
    assert positions == sorted(positions)
    # and typing after tabbing into B edits the op
    ed.dim_edit("B").setFocus()
    qtbot.keyClick(ed.dim_edit("B"), Qt.Key.Key_A, Qt.KeyboardModifier.ControlModifier)
    qtbot.keyClicks(ed.dim_edit("B"), "128")
    assert window.doc.scenario.ops[0].dims["B"] == 128


def test_follows_a_dark_palette(window):
    with dark_palette():
        assert window.roofline_plot.style.is_dark and window.sweep_plot.style.is_dark
    assert not window.roofline_plot.style.is_dark


def test_llm_step_from_the_form_shows_both_phases_and_the_note_terms(window):
    pytest.importorskip("roofgui.model.llm")
    ed = window.form.editor
    ed.kind_combo.setCurrentIndex(ed.kind_combo.findData("llm"))
    flush(window)
    assert window.notices.messages() == []
    keys = set(window.roofline_plot.points)
    assert {(0, "prefill", "tpu-v5e"), (0, "decode", "tpu-v5e"), (0, "prefill", "h100-sxm"),
            (0, "decode", "h100-sxm")} <= keys
    rows = [window.results.table.verticalHeaderItem(r).text()
            for r in range(window.results.table.rowCount())]
    assert "Throughput total" in rows and "Memory per chip" in rows and "Critical B" in rows
    assert "DOES NOT FIT" in window.results.cell("Memory per chip", 0)  # Llama-3 8B on 16 GB v5e
    assert "Throughput_total = B·(p+d) / cycle" in window.results.working_text()


def test_dropping_a_scenario_file_opens_it(window, tmp_path):
    from PySide6.QtCore import QMimeData, QPointF, QUrl
    from PySide6.QtGui import QDropEvent

    path = tmp_path / "dropped.json"
    sc = default_scenario()
    sc.ops[0].dims["B"] = 99
    path.write_text(sc.to_json())
    md = QMimeData()
    md.setUrls([QUrl.fromLocalFile(str(path))])
    ev = QDropEvent(QPointF(10, 10), Qt.DropAction.CopyAction, md, Qt.MouseButton.NoButton,
                    Qt.KeyboardModifier.NoModifier)
    window.dropEvent(ev)
    assert ev.isAccepted()
    assert window.doc.path == path and window.doc.scenario.ops[0].dims["B"] == 99


def test_a_broken_chip_file_is_named_in_the_notices_and_the_rest_works(qtbot):
    from roofgui.model.paths import user_chip_dir
    d = user_chip_dir()
    d.mkdir(parents=True, exist_ok=True)
    (d / "broken.toml").write_text('format = 1\nid = "broken"\nname = "x"\n[memory]\nbandwidth = -1\n')
    w = MainWindow()
    w.show()
    try:
        w.live.flush()
        msgs = w.notices.messages()
        assert any("broken.toml" in m for m in msgs), msgs
        assert (0, "", "tpu-v5e") in w.roofline_plot.points
    finally:
        close_quietly(w)


def test_the_zoom_is_kept_in_the_document(window, tmp_path):
    window.roofline_plot.viewChangedByUser.emit([0.5, 2.5, 13.0, 15.5])  # what a pan/zoom sends
    assert window.doc.scenario.view.roofline == [0.5, 2.5, 13.0, 15.5]
    assert not window.isWindowModified()  # zooming is not an edit
    path = tmp_path / "zoomed.json"
    window.doc.save(path)
    window.controller.new_action.trigger()
    window.controller.open_path(path)
    flush(window)
    assert window.roofline_plot.view_range() == pytest.approx([0.5, 2.5, 13.0, 15.5])
    window.fit_view()
    assert window.doc.scenario.view.roofline is None


def test_no_chips_and_unknown_chips_are_explained_not_raised(window):
    for cid in ("tpu-v5e", "h100-sxm"):
        window.chips_panel.item(cid).setCheckState(0, Qt.CheckState.Unchecked)
    flush(window)
    assert window.roofline_plot.points == {}
    assert "check a chip" in window.results.working_text()
    window.doc.edit("chips", lambda s: s.chips.append("my-lost-chip"))
    flush(window)
    assert any("my-lost-chip" in m for m in window.notices.messages())


def test_the_op_list_marks_each_op_by_its_bounds(window):
    item = window.form.ops.list.item(0)
    # B = 256: compute-bound on the v5e (ridge 240), memory-bound on the H100 (ridge 295)
    assert item.data(int(Qt.ItemDataRole.UserRole) + 2) == "mixed"
    assert "Google TPU v5e: compute-bound" in item.toolTip()
    assert "memory-bound" in item.toolTip()
    window.chips_panel.item("h100-sxm").setCheckState(0, Qt.CheckState.Unchecked)
    flush(window)
    assert item.data(int(Qt.ItemDataRole.UserRole) + 2) == "compute"


def test_the_form_shrinks_back_after_an_llm_step(window, qtbot, shipped):
    """A matmul shown after an LLM step: Data types sits right under its three fields
    again (the op editor is as tall as the shown kind's page, not the tallest seen)."""
    window.resize(1440, 900)
    window.show()
    qtbot.waitExposed(window)
    flush(window)
    editor = window.form.editor
    y_matmul = editor.dtype_box.y()
    window.doc.load(load_scenario(EXAMPLES / "10-llm-llama-3-70b-eight-gpus.json"))
    flush(window)
    qtbot.wait(20)
    assert editor.dtype_box.y() > y_matmul + 100  # the LLM step's many fields
    window.doc.load(load_scenario(EXAMPLES / "09-mlp-on-three-gpus.json"))
    flush(window)
    qtbot.wait(20)
    assert editor.dtype_box.y() == y_matmul


def test_a_keystroke_paints_the_plot_before_the_panels_update(window, qtbot):
    """The plot is drawn first; results, chip colours and bounds follow in the next pass."""
    from PySide6.QtCore import QEvent, QObject

    window.resize(1280, 800)
    window.show()
    qtbot.waitExposed(window)
    flush(window)
    order = []

    class Spy(QObject):
        def eventFilter(self, obj, ev):  # noqa: N802
            if ev.type() == QEvent.Type.Paint:
                order.append("plot painted")
            return False

    spy = Spy()
    window.roofline_plot.viewport().installEventFilter(spy)
    real = window.results.update_from
    window.results.update_from = lambda *a: (order.append("results"), real(*a))
    edit = window.form.editor.dim_edit("B")
    edit.setText("777")
    edit.textEdited.emit("777")
    qtbot.waitUntil(lambda: "results" in order and "plot painted" in order, timeout=5000)
    assert order.index("plot painted") < order.index("results")
    assert "B=777" in window.results.heading.text()
    assert not window.live.pending()
    # and in a later pass of the event loop than the paint, so that the plot's pixels
    # are out before the panels' work starts
    from PySide6.QtWidgets import QApplication

    for text in ("778", "2k", "3Ki"):
        order.clear()
        edit.setText(text)
        edit.textEdited.emit(text)
        for n in range(200):
            order.append(f"pass {n}")
            QApplication.processEvents()
            if "results" in order:
                break
        def pass_of(event):  # the pass (counted from 1) an event happened in
            return sum(1 for e in order[:order.index(event)] if e.startswith("pass"))

        assert pass_of("results") > pass_of("plot painted"), order


# -- zooming out (issue 28) ----------------------------------------------------------------

def wheel_out(plot, notches):
    from PySide6.QtCore import QCoreApplication, QPoint
    from PySide6.QtGui import QWheelEvent

    for _ in range(notches):
        pos = plot.mapFromScene(plot.vb.mapViewToScene(plot.vb.viewRect().center()))
        ev = QWheelEvent(QPointF(pos), QPointF(plot.mapToGlobal(pos)), QPoint(0, 0),
                         QPoint(0, -120), Qt.MouseButton.NoButton, Qt.KeyboardModifier.NoModifier,
                         Qt.ScrollPhase.NoScrollPhase, False)
        QCoreApplication.sendEvent(plot.viewport(), ev)


@pytest.mark.parametrize("notches", [12, 40])
def test_zooming_far_out_leaves_a_view_that_draws_saves_and_reopens(window, tmp_path, notches):
    from roofgui.model.scenario import VIEW_LIMIT

    plot = window.roofline_plot
    wheel_out(plot, notches)
    view = plot.view_range()
    assert all(abs(v) <= VIEW_LIMIT for v in view) and view[0] < view[1] and view[2] < view[3]
    assert window.doc.scenario.view.roofline == pytest.approx(view)
    plot.grab()  # (a paint: its ticks and labels at this range)
    left, bottom = plot.getPlotItem().getAxis("left"), plot.getPlotItem().getAxis("bottom")
    for axis, (lo, hi) in ((bottom, view[:2]), (left, view[2:])):
        ticks = axis.tickValues(lo, hi, 3000)
        assert sum(len(t) for _, t in ticks) <= 500
    path = tmp_path / "far.json"
    window.doc.save(path)
    reopened = load_scenario(path)
    assert reopened.notices == [] and reopened.view.roofline == pytest.approx(view)
    window.controller.new_action.trigger()
    assert window.controller.open_path(path)
    flush(window)
    assert plot.view_range() == pytest.approx(view)


def test_a_saved_view_out_of_range_opens_fitted_with_a_notice_once(window, qtbot, tmp_path):
    sc = default_scenario()
    sc.view.roofline = [-90.0, 83.0, 0.0, 1.0]
    path = tmp_path / "wild.json"
    data = sc.to_dict()
    data["view"]["roofline"] = [-90.0, 83.0, 0.0, 1.0]
    path.write_text(json.dumps(data))
    assert window.controller.open_path(path, ask=False)
    flush(window)
    assert window.roofline_plot.view_range() == pytest.approx(list(window.roofline_plot.geometry.fit))
    assert any("view.roofline" in m for m in window.notices.messages()), window.notices.messages()
    type_into(qtbot, b_edit(window), "300")  # an edit: the opening's notice has been read
    flush(window)
    assert not any("view.roofline" in m for m in window.notices.messages())


def test_an_example_opens_on_the_plot_that_answers_it_and_a_file_on_the_one_saved(window, tmp_path):
    """Question 3 is a sweep: it opens on the Sweep tab; a file reopens on the tab it was
    saved on; one that names none leaves the tab on show."""
    assert window.controller.open_path(EXAMPLES / "04-question-3-sweep.json", ask=False)
    assert window.tabs.currentIndex() == TAB_SWEEP
    assert window.controller.open_path(EXAMPLES / "09-mlp-on-three-gpus.json", ask=False)
    assert window.tabs.currentIndex() == TAB_SWEEP
    window.tabs.setCurrentIndex(TAB_ROOFLINE)
    path = tmp_path / "roof.json"
    window.doc.save(path)
    assert json.loads(path.read_text())["view"]["tab"] == "roofline"
    window.tabs.setCurrentIndex(TAB_SWEEP)  # (as a click on the tab does)
    path = tmp_path / "mine.json"
    window.doc.save(path)
    assert json.loads(path.read_text())["view"]["tab"] == "sweep"
    window.tabs.setCurrentIndex(TAB_ROOFLINE)
    assert window.controller.open_path(path, ask=False)
    assert window.tabs.currentIndex() == TAB_SWEEP
    assert window.controller.open_path(tmp_path / "roof.json", ask=False)
    assert window.tabs.currentIndex() == TAB_ROOFLINE


def test_an_opened_file_colours_its_chips_as_its_export_does(window):
    """Opening a file after another: its chips take their colours afresh, so the window shows
    what ``roofgui export`` of the same file (and the README's screenshot) shows."""
    from roofgui.presentation.plotdata import roofline_geometry

    first = dict(window.live.colours)
    assert first  # (the default example's chips hold the first colours)
    assert window.controller.open_path(EXAMPLES / "09-mlp-on-three-gpus.json", ask=False)
    flush(window)
    fresh = roofline_geometry(window.scenario, window.evaluation,
                              n_colours=len(window.roofline_plot.style.palette)).colours
    assert window.live.colours == fresh
    assert window.chips_panel is not None and window.chip_colours() == {
        cid: window.roofline_plot.style.colour(slot) for cid, slot in fresh.items()}
