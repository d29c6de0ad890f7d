"""The export dialog: its preview is the file it writes, and the command line writes
the same picture for the same scenario and size."""

from __future__ import annotations

import copy
import os
import subprocess
import sys
from types import SimpleNamespace

import pytest

pytest.importorskip("PySide6")

from PySide6.QtGui import QGuiApplication, QImage  # noqa: E402
from PySide6.QtCore import Qt  # noqa: E402

from roofgui.export.render import render_image  # noqa: E402
from roofgui.gui import export_dialog as ed  # noqa: E402
from roofgui.model.catalog import Catalog  # noqa: E402
from roofgui.model.scenario import save_scenario  # noqa: E402
from test_export_support import (ROOT_DIR, same_pixels as _same_pixels,  # noqa: E402
                                 sharded_scenario, two_chip_scenario)


@pytest.fixture(scope="module")
def catalog():
    return Catalog.load()


class _FakeWindow:
    """The attributes the dialog's adapter reads, without the whole window."""

    def __init__(self, scenario, catalog, plot="roofline"):
        self.doc = SimpleNamespace(scenario=scenario, path=None)
        self.catalog = catalog
        self.roofline_plot, self.sweep_plot = object(), object()
        self._plot = plot

    def current_plot(self):
        return self.sweep_plot if self._plot == "sweep" else self.roofline_plot


def _cli(*args):
    env = {k: v for k, v in os.environ.items()
           if k not in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM")}
    env["PYTHONPATH"] = str(ROOT_DIR) + os.pathsep + env.get("PYTHONPATH", "")
    return subprocess.run([sys.executable, "-m", "roofgui", "export", *args], env=env,
                          cwd=ROOT_DIR, capture_output=True, text=True, timeout=300)


def test_command_line_and_dialog_write_the_same_picture(qtbot, catalog, tmp_path):
    from roofgui.gui.main_window import MainWindow

    sc = sharded_scenario()
    w = MainWindow(catalog=catalog, restore=False)
    qtbot.addWidget(w)
    w.doc.load(copy.deepcopy(sc))
    w.live.flush()
    dlg = ed.ExportDialog(w)
    qtbot.addWidget(dlg)
    dlg.size_combo.setCurrentIndex(dlg.size_combo.count() - 1)  # custom
    dlg.width_spin.setValue(1600)
    dlg.height_spin.setValue(900)
    dlg.title_check.setChecked(True)
    dlg.title_edit.setText("Sharded matmul on TPU v5e")
    dlg.caption_check.setChecked(True)
    dlg.refresh_preview()
    from_dialog = tmp_path / "dialog.png"
    dlg.save_to(from_dialog)

    scenario_file = tmp_path / "scenario.json"
    save_scenario(w.doc.scenario, scenario_file)
    from_cli = tmp_path / "cli.png"
    r = _cli(str(scenario_file), "-o", str(from_cli), "--width", "1600", "--height", "900",
             "--title", "Sharded matmul on TPU v5e", "--caption")
    assert r.returncode == 0, r.stderr
    a, b = QImage(str(from_dialog)), QImage(str(from_cli))
    assert (a.width(), a.height()) == (1600, 900)
    assert _same_pixels(a, b)
    # and the preview the dialog showed is that picture
    assert _same_pixels(dlg.last_image, a)


def test_sweep_from_the_dialog_equals_the_command_line(qtbot, catalog, tmp_path):
    sc = two_chip_scenario()
    dlg = ed.ExportDialog(None, ed.WindowState(sc, catalog, "sweep"))
    qtbot.addWidget(dlg)
    assert dlg.plot_combo.currentData() == "sweep"
    dlg.size_combo.setCurrentIndex(0)  # 1080p
    dlg.refresh_preview()
    scenario_file = tmp_path / "s.json"
    save_scenario(sc, scenario_file)
    out = tmp_path / "sweep.png"
    r = _cli(str(scenario_file), "-o", str(out), "--plot", "sweep")
    assert r.returncode == 0, r.stderr
    assert _same_pixels(dlg.last_image, QImage(str(out)))


def test_preview_follows_the_chosen_size_and_style(qtbot, catalog):
    dlg = ed.ExportDialog(None, ed.WindowState(two_chip_scenario(), catalog, "roofline"))
    qtbot.addWidget(dlg)
    dlg.size_combo.setCurrentIndex(2)  # 4K
    dlg.refresh_preview()
    assert (dlg.last_image.width(), dlg.last_image.height()) == (3840, 2160)
    assert not dlg.width_spin.isEnabled()
    shown = dlg.preview_label.pixmap()
    assert shown.width() <= dlg.preview_label.width() and shown.width() < 3840
    expected = render_image(two_chip_scenario(), catalog, "roofline", 3840, 2160, "slide")
    assert _same_pixels(dlg.last_image, expected)
    dlg.style_combo.setCurrentIndex(dlg.style_combo.findData("screen"))
    dlg.transparent_check.setChecked(True)
    dlg.refresh_preview()
    assert dlg.last_image.pixelColor(1, 1).alpha() == 0
    assert not _same_pixels(dlg.last_image, expected)


def test_csv_format_previews_the_table_and_saves_it(qtbot, catalog, tmp_path):
    from roofgui.export.csv import results_csv

    sc = two_chip_scenario()
    dlg = ed.ExportDialog(None, ed.WindowState(sc, catalog, "roofline"))
    qtbot.addWidget(dlg)
    dlg.format_combo.setCurrentIndex(dlg.format_combo.findData("csv"))
    dlg.refresh_preview()
    assert dlg.preview_stack.currentWidget() is dlg.preview_text
    assert dlg.preview_text.toPlainText().startswith("op,phase,chip,")
    assert not dlg.size_combo.isEnabled() and not dlg.copy_button.isEnabled()
    out = tmp_path / "results.csv"
    dlg.save_to(out)
    assert out.read_bytes() == results_csv(sc, catalog).encode()


def test_copy_image_puts_the_picture_on_the_clipboard(qtbot, catalog):
    dlg = ed.ExportDialog(None, ed.WindowState(two_chip_scenario(), catalog, "roofline"))
    qtbot.addWidget(dlg)
    dlg.size_combo.setCurrentIndex(0)
    img = dlg.copy_image()
    got = QGuiApplication.clipboard().image()
    assert (got.width(), got.height()) == (1920, 1080)
    assert _same_pixels(got, img)


def test_ctrl_shift_c_copies_the_visible_plot_with_the_last_settings(qtbot, catalog):
    win = _FakeWindow(two_chip_scenario(), catalog, plot="sweep")
    ed.save_options(ed.ExportOptions(width=1280, height=720, style="slide"))
    img = ed.copy_to_clipboard(win)
    assert (img.width(), img.height()) == (1280, 720)
    got = QGuiApplication.clipboard().image()
    assert _same_pixels(got, img)
    expected = render_image(two_chip_scenario(), catalog, "sweep", 1280, 720, "slide")
    assert _same_pixels(img, expected)


def test_window_state_reads_the_document_and_tab(catalog):
    sc = two_chip_scenario()
    state = ed.window_state(_FakeWindow(sc, catalog, plot="sweep"))
    assert state.plot == "sweep"
    assert state.scenario.to_dict() == sc.to_dict()
    assert state.scenario is not sc  # a snapshot: later edits do not change an export


def test_suggested_file_names(catalog):
    state = ed.WindowState(two_chip_scenario(), catalog, "roofline")
    assert ed.suggest_name(state, "roofline", "png") == "bf16-matmul-tpu-v5e-vs-h100-roofline.png"
    assert ed.suggest_name(state, "sweep", "csv") == "bf16-matmul-tpu-v5e-vs-h100-sweep-data.csv"


def _big_sweep(n_ops: int, chips: list[str]):
    """A sweep of ``n_ops`` matmuls over B on ``chips`` at 100,000 points."""
    from roofgui.model.scenario import OpSpec, Scenario, SweepSpec

    ops = [OpSpec(f"mm {i}", "matmul", {"B": 64, "D": 1024 + i, "F": 4096}, {}) for i in range(n_ops)]
    return Scenario(title="big", ops=ops, chips=chips, sweep=SweepSpec("B", 1.0, 1e6, 100_000))


def test_a_sweep_too_large_to_draw_is_refused_with_its_size(qtbot, catalog, tmp_path, monkeypatch):
    # 40 ops x 12 chips x 100,000 points: 48 million values, more than `roofgui export` draws
    chips = catalog.ids()[:12]
    dlg = ed.ExportDialog(None, ed.WindowState(_big_sweep(40, chips), catalog, "sweep"))
    qtbot.addWidget(dlg)
    assert "48,000,000 values" in dlg.info_label.text() and "GiB" in dlg.info_label.text()
    assert dlg.last_image is None
    out = tmp_path / "sweep.png"
    asked = []
    monkeypatch.setattr(ed.QFileDialog, "getSaveFileName",
                        staticmethod(lambda *a, **k: (asked.append(a), (str(out), ""))[1]))
    qtbot.mouseClick(dlg.save_button, Qt.MouseButton.LeftButton)
    assert not out.exists() and not asked
    assert "48,000,000 values" in dlg.info_label.text()
    # as a CSV (written a slice at a time) it is within bounds: the preview shows its first rows
    dlg.format_combo.setCurrentIndex(dlg.format_combo.findData("csv"))
    dlg.refresh_preview()
    rows = dlg.preview_text.toPlainText().splitlines()
    assert rows[0].startswith("B,") and rows[-1] == "… more rows" and len(rows) == 42
    assert dlg.info_label.text() == f"The first 40 rows of {len(rows[0].split(','))} columns"


def test_a_sweep_too_large_for_a_csv_file_is_refused(qtbot, catalog, tmp_path):
    # 250 ops x 21 chips x 100,000 points: 525 million values, 21 GiB of text
    sc = _big_sweep(250, catalog.ids()[:21])
    dlg = ed.ExportDialog(None, ed.WindowState(sc, catalog, "sweep"))
    qtbot.addWidget(dlg)
    dlg.format_combo.setCurrentIndex(dlg.format_combo.findData("csv"))
    dlg.refresh_preview()
    assert "525,000,000 values" in dlg.info_label.text()
    out = tmp_path / "sweep.csv"
    with pytest.raises(ValueError, match="525,000,000 values"):
        dlg.save_to(out)
    assert not out.exists()
