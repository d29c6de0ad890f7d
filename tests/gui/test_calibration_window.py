"""Calibration in the real window: kernels imported, each chip's fractions fitted and shown in
the Measured panel, applied as a named derate only through "Apply as Derate…" and its name,
saved with the scenario, removable and undoable."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFileDialog

from gui_helpers import EXAMPLES, flush, window_on
from roofgui.gui.calibration import ApplyDerateDialog
from roofgui.gui.measured import install_measured

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "measured"
CAL = FIXTURES / "calibration_h100.csv"
BUSY = EXAMPLES / "09-mlp-on-three-gpus.json"
H100 = "NVIDIA H100 SXM (80 GB)"
SUMMARY = "derate 'my-cal' (compute bf16 0.70 \u00b7 fp8 0.60 (others 0.66), memory 0.80)"


@pytest.fixture
def win(qtbot, shipped):
    """The window on the busy example (H100, H200, B200 checked)."""
    with window_on(shipped, BUSY) as w:
        yield w, install_measured(w)


def roof(w, chip="h100-sxm", key="compute:bf16") -> float:
    """log10 of the roof's height where it is flat (the compute roof), or at x = 0 (HBM)."""
    x, y = w.roofline_plot.roof_curves[chip][key].getData()
    if key == "hbm":
        return float(y[0] - x[0])  # (slope 1 in log-log: log10 bandwidth)
    return float(max(y))


def import_with_ctrl_i(w, qtbot, monkeypatch, *paths) -> None:
    """Ctrl+I on the window, the file dialog answering with ``paths``."""
    monkeypatch.setattr(QFileDialog, "getOpenFileNames",
                        lambda *a, **k: ([str(p) for p in paths], ""))
    w.activateWindow()
    qtbot.keyClick(w, Qt.Key.Key_I, Qt.KeyboardModifier.ControlModifier)
    flush(w)


def apply_by_hand(w, session, qtbot, name="my-cal") -> None:
    """Click Apply as Derate…, type the name over the one offered, click Apply."""
    box = session.panel.calibration
    qtbot.mouseClick(box.apply_button, Qt.MouseButton.LeftButton)
    dlg = w.findChild(ApplyDerateDialog)
    assert dlg is not None and dlg.isVisible() and dlg.isModal()
    dlg.name_edit.selectAll()
    qtbot.keyClicks(dlg.name_edit, name)
    qtbot.mouseClick(dlg.ok_button, Qt.MouseButton.LeftButton)
    flush(w)


def test_the_fit_is_shown_and_nothing_is_applied(win):
    w, session = win
    before = (roof(w), roof(w, key="hbm"))
    assert session.import_files([CAL])
    flush(w)
    rows = session.panel.calibration.rows()
    assert rows == [(H100, "8", "bf16 70.0% \u00b7 fp8 60.0%", "80.0%", "28.8% \u2192 0.0%",
                     "\u2014")]
    detail = session.panel.calibration.detail.text()
    assert "8 kernels fitted (5 compute-bound, 3 memory-bound)" in detail
    assert "28.8% as specified, 0.0% derated" in detail
    # a fit alone changes nothing: no derate, the same roofs, nothing to undo but the import
    assert w.doc.scenario.derates == [] and not w.doc.is_modified()
    assert (roof(w), roof(w, key="hbm")) == before
    assert session.panel.calibration.apply_button.isEnabled()
    assert not session.panel.calibration.remove_button.isEnabled()


def test_apply_moves_the_roofs_by_the_fractions_and_names_the_derate(win, qtbot, monkeypatch):
    w, session = win
    bf16, hbm, h200 = roof(w), roof(w, key="hbm"), roof(w, "h200")
    import_with_ctrl_i(w, qtbot, monkeypatch, CAL)
    assert session.panel.calibration.rows()[0][1] == "8"
    apply_by_hand(w, session, qtbot)
    assert roof(w) == pytest.approx(bf16 + math.log10(0.7), abs=1e-9)
    assert roof(w, key="hbm") == pytest.approx(hbm + math.log10(0.8), abs=1e-9)
    assert roof(w, "h200") == h200  # (the other chips keep their roofs)
    (d,) = w.doc.scenario.derates
    assert (d.name, d.chip) == ("my-cal", "h100-sxm")
    assert dict(d.by_dtype) == pytest.approx({"bf16": 0.7, "fp8": 0.6}, rel=1e-9)
    assert d.memory == pytest.approx(0.8, rel=1e-9)
    # shown in the chips panel, the results' column and the Measured panel
    assert w.chips_panel.item("h100-sxm").text(0) == f"{H100} \u00b7 {SUMMARY}"
    assert any(SUMMARY in r["chip_name"] for r in w.results.records())
    heads = [w.results.table.horizontalHeaderItem(c).text().split("\n")
             for c in range(w.results.table.columnCount())]
    assert ["NVIDIA H100 SXM", "(80 GB)", "derate 'my-cal'",
            "(compute bf16 0.70 \u00b7 fp8 0.60 (others 0.66),", "memory 0.80)"] in heads
    assert session.panel.calibration.rows()[0][5] == \
        "'my-cal' (compute bf16 0.70 \u00b7 fp8 0.60 (others 0.66), memory 0.80)"
    assert session.panel.calibration.remove_button.isEnabled()
    # the kernels now sit at 100% of their derated roofs
    assert all(r[8] == "100.0%" for r in session.panel.rows())


def test_undo_and_remove_take_it_off(win, qtbot):
    w, session = win
    bf16 = roof(w)
    session.import_files([CAL])
    flush(w)
    apply_by_hand(w, session, qtbot)
    assert w.doc.undo_stack.undoText() == f"Apply derate 'my-cal' to {H100}"
    w.controller.undo_action.trigger()
    flush(w)
    assert w.doc.scenario.derates == [] and roof(w) == bf16
    assert w.chips_panel.item("h100-sxm").text(0) == H100
    w.controller.redo_action.trigger()
    flush(w)
    assert roof(w) == pytest.approx(bf16 + math.log10(0.7), abs=1e-9)
    qtbot.mouseClick(session.panel.calibration.remove_button, Qt.MouseButton.LeftButton)
    flush(w)
    assert w.doc.scenario.derates == [] and roof(w) == pytest.approx(bf16, abs=1e-12)
    assert w.chips_panel.item("h100-sxm").text(0) == H100


def test_cancel_and_a_bad_name_apply_nothing(win, qtbot):
    w, session = win
    session.import_files([CAL])
    flush(w)
    box = session.panel.calibration
    qtbot.mouseClick(box.apply_button, Qt.MouseButton.LeftButton)
    dlg = w.findChild(ApplyDerateDialog)
    dlg.name_edit.selectAll()
    qtbot.keyClick(dlg.name_edit, Qt.Key.Key_Delete)
    assert not dlg.ok_button.isEnabled()
    assert "The name is empty" in dlg.message.text()
    qtbot.keyClick(dlg.name_edit, Qt.Key.Key_Return)  # (Enter with no name does nothing)
    assert dlg.isVisible()
    qtbot.keyClick(dlg, Qt.Key.Key_Escape)
    flush(w)
    assert w.doc.scenario.derates == [] and not w.doc.is_modified()


def test_saved_and_reopened_the_derate_is_kept(win, qtbot, tmp_path):
    w, session = win
    bf16 = roof(w)
    session.import_files([CAL])
    flush(w)
    apply_by_hand(w, session, qtbot)
    path = tmp_path / "calibrated.json"
    w.doc.save(path)
    saved = json.loads(path.read_text())["derates"]
    assert [(d["name"], d["chip"]) for d in saved] == [("my-cal", "h100-sxm")]
    assert saved[0]["memory"] == pytest.approx(0.8)
    session.clear()
    assert w.controller.open_path(BUSY, ask=False)  # (another scenario: no derate)
    flush(w)
    assert roof(w) == pytest.approx(bf16, abs=1e-12)
    assert w.controller.open_path(path, ask=False)
    flush(w)
    assert roof(w) == pytest.approx(bf16 + math.log10(0.7), abs=1e-9)
    assert w.chips_panel.item("h100-sxm").text(0) == f"{H100} \u00b7 {SUMMARY}"
    # opening it says so (never a derate applied unannounced)
    assert any("derate 'my-cal' lowers h100-sxm's roofs" in m and "Remove Derate" in m
               for m in w.notices.messages()), w.notices.messages()
    # with no kernels imported, the derate is still listed in the panel, and removable
    assert session.panel.calibration.rows() == [
        (H100, "\u2014", "\u2014", "\u2014", "\u2014",
         "'my-cal' (compute bf16 0.70 \u00b7 fp8 0.60 (others 0.66), memory 0.80)")]


def test_a_bad_derate_in_a_file_is_refused_naming_the_key(win, tmp_path, monkeypatch):
    w, _session = win
    data = json.loads(BUSY.read_text())
    data["derates"] = [{"name": "x", "chip": "h100-sxm", "compute": 1.4, "memory": 0.8}]
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(data))
    shown = []
    from PySide6.QtWidgets import QMessageBox
    monkeypatch.setattr(QMessageBox, "warning", lambda *a, **k: shown.append(a[2]))
    monkeypatch.setattr(QMessageBox, "critical", lambda *a, **k: shown.append(a[2]))
    assert not w.controller.open_path(path, ask=False)
    assert any("derates[0].compute: must be at most 1" in s for s in shown)
    assert w.doc.scenario.derates == []  # (the last good scenario is kept)


def test_apply_uses_the_fit_the_dialog_showed(win, qtbot):
    w, session = win
    session.import_files([CAL])
    flush(w)
    qtbot.mouseClick(session.panel.calibration.apply_button, Qt.MouseButton.LeftButton)
    dlg = w.findChild(ApplyDerateDialog)
    shown = dlg.text.text()
    session.import_files([FIXTURES / "plain.csv"])  # (more H100 kernels: another fit)
    flush(w)
    assert session.panel.calibration.rows()[0][1] != "8"
    qtbot.mouseClick(dlg.ok_button, Qt.MouseButton.LeftButton)
    flush(w)
    (d,) = w.doc.scenario.derates
    assert d.fractions_text() in shown and d.memory == pytest.approx(0.8, rel=1e-9)


def test_a_fit_faster_than_the_roof_cannot_be_applied(win, qtbot, tmp_path):
    w, session = win
    fast = tmp_path / "fast.csv"  # 2e11 FLOPs in 100 µs: 2 PFLOP/s, twice the H100's bf16 peak
    fast.write_text("name,seconds,flops,bytes,dtype,chip\ngemm,1e-4,2e11,1e6,bf16,h100-sxm\n")
    session.import_files([fast])
    flush(w)
    qtbot.mouseClick(session.panel.calibration.apply_button, Qt.MouseButton.LeftButton)
    dlg = w.findChild(ApplyDerateDialog)
    assert not dlg.ok_button.isEnabled()
    assert "compute fraction must be at most 1" in dlg.message.text()
    qtbot.keyClick(dlg.name_edit, Qt.Key.Key_Return)
    flush(w)
    assert w.doc.scenario.derates == []
    assert "cannot be applied" in session.panel.calibration.detail.text()



def open_derated(w, tmp_path) -> None:
    """Open the busy example with the derate 'my-cal' of the H100 (0.7, 0.8) in its file."""
    data = json.loads(BUSY.read_text())
    data["derates"] = [{"name": "my-cal", "chip": "h100-sxm", "compute": 0.7, "memory": 0.8,
                        "note": "fitted from 8 kernels"}]
    path = tmp_path / "derated.json"
    path.write_text(json.dumps(data))
    assert w.controller.open_path(path, ask=False)
    flush(w)


def remove_by_hand(w, session, qtbot) -> None:
    """View > Measured, click the derated chip's row, click Remove Derate."""
    if not session.dock.isVisible():
        session.dock.toggleViewAction().trigger()
        flush(w)
    table = session.panel.calibration.table
    qtbot.mouseClick(table.viewport(), Qt.MouseButton.LeftButton,
                     pos=table.visualItemRect(table.item(0, 0)).center())
    qtbot.mouseClick(session.panel.calibration.remove_button, Qt.MouseButton.LeftButton)
    flush(w)


def test_a_derate_opened_from_a_file_is_listed_and_removable(win, qtbot, tmp_path):
    w, session = win
    bf16 = roof(w)
    box = session.panel.calibration
    assert not box.apply_button.isEnabled() and not box.remove_button.isEnabled()
    open_derated(w, tmp_path)  # (no kernel imported in this window)
    assert roof(w) == pytest.approx(bf16 + math.log10(0.7), abs=1e-9)
    assert box.rows() == [(H100, "\u2014", "\u2014", "\u2014", "\u2014",
                           "'my-cal' (compute 0.70, memory 0.80)")]
    remove_by_hand(w, session, qtbot)
    assert w.doc.scenario.derates == [] and roof(w) == pytest.approx(bf16, abs=1e-12)
    assert box.rows() == [] and not box.remove_button.isEnabled()


def figures(w, chip="h100-sxm") -> tuple[str, str, str]:
    """The chips list's FLOP/s, HBM B/s and Ridge cells of ``chip``'s row."""
    item = w.chips_panel.item(chip)
    return item.text(1), item.text(2), item.text(3)


def test_the_chip_list_shows_a_derated_chips_derated_figures(win, qtbot, tmp_path):
    w, session = win
    spec, h200 = figures(w), figures(w, "h200")
    assert spec == ("989 T", "3.35 T", "295")
    open_derated(w, tmp_path)
    # the figures the roofs are drawn at (989 T x 0.7, 3.35 TB/s x 0.8, their ratio), marked
    assert roof(w) == pytest.approx(math.log10(989.4e12 * 0.7), abs=1e-3)
    assert figures(w) == ("\u2248 693 T", "\u2248 2.68 T", "\u2248 258")
    item = w.chips_panel.item("h100-sxm")
    assert all(item.font(c).italic() for c in (1, 2, 3))
    tip = item.toolTip(1)
    assert "Derated by 'my-cal' (compute 0.70, memory 0.80): bf16 peak 693 TFLOP/s" in tip
    assert "Spec sheet: bf16 peak 989 TFLOP/s \u00b7 HBM 3.35 TB/s" in tip
    assert "fitted from 8 kernels" in tip
    assert figures(w, "h200") == h200  # (a chip without a derate keeps its spec figures)
    assert not w.chips_panel.item("h200").font(1).italic()
    # Remove Derate restores the spec figures; undoing that derates them again
    remove_by_hand(w, session, qtbot)
    assert w.doc.scenario.derates == []
    assert figures(w) == spec and not item.font(1).italic()
    assert "Derated" not in item.toolTip(1) and "bf16 peak 989 TFLOP/s" in item.toolTip(1)
    w.controller.undo_action.trigger()
    flush(w)
    assert figures(w) == ("\u2248 693 T", "\u2248 2.68 T", "\u2248 258")
