"""Chips: full spec with sources, custom chips saved to the user's directory, presets read-only."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QEvent, QPoint, Qt
from PySide6.QtWidgets import QApplication, QMessageBox

from roofgui.gui.chip_dialogs import ChipEditorDialog, ChipSpecDialog
from roofgui.gui.main_window import MainWindow
from roofgui.model.catalog import Catalog
from roofgui.model.paths import user_chip_dir
from roofgui.model.scenario import default_scenario
from gui_helpers import close_quietly, flush, open_window


@pytest.fixture
def window(qtbot):
    w = open_window()  # loads the user's chip directory (isolated per test)
    yield w
    close_quietly(w)


def test_spec_dialog_lists_every_figure_with_its_source(qtbot):
    chip = Catalog.load(user_dir=False).get("h100-sxm")
    dlg = ChipSpecDialog(chip)
    qtbot.addWidget(dlg)
    labels = dlg.figure_labels()
    assert "Matrix peak bf16" in labels and "HBM bandwidth" in labels and "Link nvlink (one-way)" in labels
    for r in range(dlg.table.rowCount()):
        src = dlg.table.item(r, 2)
        assert src.text() in chip.sources and src.toolTip() == chip.sources[src.text()]
    bf16 = labels.index("Matrix peak bf16")
    assert "989" in dlg.table.item(bf16, 1).text()
    assert "sparse figure halved" in dlg.table.item(bf16, 3).text()
    text = dlg.sources.toPlainText()
    assert all(key in text for key in chip.sources)


def test_a_custom_chip_is_saved_checked_and_there_on_the_next_launch(window, qtbot):
    panel = window.chips_panel
    panel.select_chip("tpu-v5e")
    assert not panel.edit_button.isEnabled() and not panel.delete_button.isEnabled()  # presets
    base = window.catalog.get("tpu-v5e")
    dlg = ChipEditorDialog(base, window.catalog, parent=panel)
    dlg.saved.connect(panel.after_save)
    assert dlg.id_edit.text() == "tpu-v5e-custom"
    dlg.name_edit.setText("TPU v5e with HBM3")
    rows = [r[0] for r in dlg.rows]
    dlg.table.item(rows.index("memory.bandwidth"), 1).setText("1.6T")
    dlg.save()
    assert dlg.error.text() == ""
    path = user_chip_dir() / "tpu-v5e-custom.toml"
    assert path.exists()
    chip = window.catalog.get("tpu-v5e-custom")
    assert chip.hbm_bandwidth.value == 1.6e12 and chip.hbm_bandwidth.source == "user"
    assert "was 8.2e+11" in chip.hbm_bandwidth.note
    assert chip.matrix["bf16"].source == base.matrix["bf16"].source  # untouched figures keep theirs
    window.live.flush()
    assert "tpu-v5e-custom" in window.doc.scenario.chips
    assert "tpu-v5e-custom" in window.roofline_plot.roof_curves
    assert panel.edit_button.isEnabled() and panel.delete_button.isEnabled()
    # the next launch reads it from the user's chip directory
    again = Catalog.load()
    assert again.get("tpu-v5e-custom").name == "TPU v5e with HBM3"


def test_bad_figures_are_refused_with_a_message(window):
    dlg = ChipEditorDialog(window.catalog.get("h100-sxm"), window.catalog)
    rows = [r[0] for r in dlg.rows]
    dlg.table.item(rows.index("matrix.bf16"), 1).setText("-3")
    dlg.save()
    assert "Matrix peak bf16" in dlg.error.text() and "greater than zero" in dlg.error.text()
    dlg.table.item(rows.index("matrix.bf16"), 1).setText("1e15")
    dlg.id_edit.setText("h100-sxm")
    dlg.save()
    assert "shipped chip" in dlg.error.text()
    dlg.id_edit.setText("Bad Id!")
    dlg.save()
    assert "id" in dlg.error.text()
    assert not (user_chip_dir() / "h100-sxm.toml").exists()


def test_edit_and_delete_a_custom_chip(window, qtbot, monkeypatch):
    panel = window.chips_panel
    base = window.catalog.get("mi300x")
    dlg = ChipEditorDialog(base, window.catalog, parent=panel)
    dlg.saved.connect(panel.after_save)
    dlg.save()
    cid = "mi300x-custom"
    panel.select_chip(cid)
    edit = ChipEditorDialog(window.catalog.get(cid), window.catalog, editing=True, parent=panel)
    edit.saved.connect(panel.after_save)
    edit.name_edit.setText("MI300X tuned")
    edit.save()
    assert window.catalog.get(cid).name == "MI300X tuned"
    monkeypatch.setattr(QMessageBox, "question", lambda *a, **k: QMessageBox.StandardButton.Yes)
    panel.select_chip(cid)
    qtbot.mouseClick(panel.delete_button, Qt.MouseButton.LeftButton)
    assert cid not in window.catalog.chips
    assert not (user_chip_dir() / f"{cid}.toml").exists()
    assert cid not in window.doc.scenario.chips


def test_chips_work_from_the_keyboard(window, qtbot):
    panel = window.chips_panel
    panel.select_chip("tpu-v5p")
    panel.tree.setFocus()
    qtbot.keyClick(panel.tree, Qt.Key.Key_Space)
    assert window.doc.scenario.chips[-1] == "tpu-v5p"
    qtbot.keyClick(panel.tree, Qt.Key.Key_Return)
    dialogs = [w for w in QApplication.topLevelWidgets()
               if isinstance(w, ChipSpecDialog) and w.isVisible()]
    assert len(dialogs) == 1 and dialogs[0].chip.id == "tpu-v5p"
    dialogs[0].reject()
    window.controller.undo_action.trigger()
    assert "tpu-v5p" not in window.doc.scenario.chips
    assert panel.item("tpu-v5p").checkState(0) == Qt.CheckState.Unchecked


MLP_EXAMPLE = Path(__file__).resolve().parents[2] / "resources" / "examples" / "09-mlp-on-three-gpus.json"


def _rows_in_view(panel) -> dict[str, bool]:
    """Each checked chip: is its whole row inside the list's viewport?"""
    tree = panel.tree
    view = tree.viewport().rect()
    return {cid: view.contains(tree.visualItemRect(panel.item(cid))) for cid in panel.doc.scenario.chips}


def _first_row_shown(panel) -> str:
    item = panel.tree.itemAt(QPoint(4, 2))
    return item.data(0, Qt.ItemDataRole.UserRole)


def test_opening_a_scenario_scrolls_the_chip_list_to_its_checked_chips(window, qtbot):
    panel = window.chips_panel
    panel.tree.setFixedHeight(90)  # a few rows: H100, H200 and B200 are below the first screenful
    qtbot.waitUntil(lambda: panel.tree.verticalScrollBar().maximum() > 0)
    window.controller.open_path(MLP_EXAMPLE, ask=False)
    assert window.doc.scenario.chips == ["h100-sxm", "h200", "b200"]
    first = next(cid for cid in panel.visible_ids() if cid in window.doc.scenario.chips)  # list order
    assert panel.tree.indexOfTopLevelItem(panel.item(first)) > 2  # (not in view at the top)
    qtbot.waitUntil(lambda: _rows_in_view(panel)[first])
    assert _first_row_shown(panel) == first
    assert panel.tree.verticalScrollBar().value() > 0
    assert panel.current_chip_id() == "h100-sxm"
    # a scenario whose chips are near the top of the list: back up to them
    was = panel.tree.verticalScrollBar().value()
    window.doc.load(default_scenario())
    assert window.doc.scenario.chips == ["tpu-v5e", "h100-sxm"]
    qtbot.waitUntil(lambda: _rows_in_view(panel)["tpu-v5e"])
    assert panel.tree.verticalScrollBar().value() < was
    assert _first_row_shown(panel) == "tpu-v5e"


def test_a_file_opened_at_start_up_shows_its_checked_chips(qtbot):
    w = MainWindow(open_path=MLP_EXAMPLE)  # loaded before the window (and the list) is shown
    try:
        panel = w.chips_panel
        panel.tree.setFixedHeight(90)
        w.show()
        first = next(cid for cid in panel.visible_ids() if cid in w.doc.scenario.chips)
        qtbot.waitUntil(lambda: panel.tree.verticalScrollBar().maximum() > 0)
        qtbot.waitUntil(lambda: _rows_in_view(panel)[first])
        assert _first_row_shown(panel) == first
        # later resizes and scrolling are the user's: nothing pulls the list back
        panel.tree.verticalScrollBar().setValue(0)
        panel.tree.setFixedHeight(120)
        QApplication.processEvents()
        assert panel.tree.verticalScrollBar().value() == 0
    finally:
        w.doc.load(w.doc.scenario)
        w.close()
        w.deleteLater()
        QApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)


def test_checked_chips_hidden_by_the_filter_do_not_scroll_the_list(window, qtbot):
    panel = window.chips_panel
    panel.tree.setFixedHeight(90)
    panel.filter.setText("tpu")
    window.controller.open_path(MLP_EXAMPLE, ask=False)  # H100, H200, B200: all filtered out
    QApplication.processEvents()
    assert panel.tree.verticalScrollBar().value() == 0


# -- small fixes: New, Reset, the working text ------------------------------------------

def test_file_new_gives_an_empty_scenario_and_the_examples_stay(window):
    window.controller.new_action.trigger()
    sc = window.doc.scenario
    assert sc.ops == [] and sc.chips == [] and sc.title == ""
    assert window.form.editor.empty.isVisibleTo(window)  # "No op selected. Add one …"
    assert not window.isWindowModified()
    assert [a for a in window.controller.examples_menu.actions() if a.isEnabled()]


def test_what_if_reset_also_stops_derating(window, qtbot):
    panel = window.chips_panel
    panel.derate_box.click()
    panel.hbm_edit.setFocus()
    panel.hbm_edit.selectAll()
    qtbot.keyClicks(panel.hbm_edit, "2")
    assert window.doc.scenario.derate and window.doc.scenario.what_if.hbm == 2
    panel.reset_button.click()
    assert not window.doc.scenario.derate and not panel.derate_box.isChecked()
    assert window.doc.scenario.what_if.hbm == 1 and panel.hbm_edit.text() == "1"


def test_the_working_text_wraps_instead_of_being_cut_off(window, qtbot):
    view = window.results.working_view
    window.results_dock.setFloating(True)
    window.results_dock.resize(500, 300)  # narrower than its longest line
    qtbot.waitUntil(lambda: view.viewport().width() < 500)
    QApplication.processEvents()
    doc = view.document()
    assert view.horizontalScrollBar().maximum() == 0
    assert doc.lineCount() > doc.blockCount()  # some lines are folded onto the next
    longest = max(len(line) for line in window.results.working_text().splitlines())
    assert longest * view.fontMetrics().horizontalAdvance("x") > view.viewport().width()


def test_a_chip_file_name_too_long_is_one_notice_and_the_other_chips_still_draw(window, tmp_path):
    # (issue 28: Catalog.get raised OSError "File name too long" out of every repaint)
    from roofgui.model.scenario import OpSpec, Scenario
    sc = Scenario(title="long", chips=["h100-sxm", "a" * 5000 + ".toml"],
                  ops=[OpSpec("mm", "matmul", {"B": 256, "D": 1024, "F": 1024}, {})])
    path = tmp_path / "long.json"
    path.write_text(sc.to_json())
    assert window.controller.open_path(path, ask=False)
    QApplication.processEvents()
    window.live.flush()
    about = [m for m in window.notices.messages() if "aaaa" in m]
    assert len(about) == 1 and "File name too long" in about[0] and len(about[0]) < 300, about
    assert {chip for chip, _ in window.roofline_plot.roof_labels} == {"h100-sxm"}
    window.chips_panel.set_chip_checked("mi300x", True)  # and the window keeps working
    window.live.flush()
    assert {chip for chip, _ in window.roofline_plot.roof_labels} == {"h100-sxm", "mi300x"}



def test_a_chip_unchecked_again_lines_up_with_the_never_checked(window):
    """Unchecking a chip takes its colour swatch away, so that its name starts where the
    names of the chips never checked do (a blank swatch left it indented)."""
    panel = window.chips_panel
    cid = next(c for c in panel.visible_ids() if c not in window.doc.scenario.chips)
    item = panel.item(cid)
    assert item.icon(0).isNull()
    item.setCheckState(0, Qt.CheckState.Checked)
    flush(window)  # (its colour comes with the plot's evaluation)
    assert cid in window.doc.scenario.chips and not item.icon(0).isNull()
    item.setCheckState(0, Qt.CheckState.Unchecked)
    flush(window)
    assert cid not in window.doc.scenario.chips
    checked = set(window.doc.scenario.chips)
    assert all(panel.item(cid).icon(0).isNull() for cid in panel.visible_ids() if cid not in checked)
