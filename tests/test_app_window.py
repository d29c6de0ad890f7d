"""What the app installs and opens besides the window's plots: the unexpected-error hook,
Help ▸ About, and the sweep tab."""

from __future__ import annotations

import sys
import threading
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def restore_hooks():
    before = (sys.excepthook, threading.excepthook)
    yield
    from roofgui.gui import errors_dialog

    if errors_dialog.current_reporter() is not None:
        errors_dialog.current_reporter().uninstall()
        errors_dialog._reporter = None
    sys.excepthook, threading.excepthook = before


# -- the unexpected-error hook ---------------------------------------------------------
@pytest.fixture
def reporter(qapp, restore_hooks):
    from roofgui.gui import errors_dialog

    rep = errors_dialog.install_excepthook(qapp)
    yield rep
    if rep.dialog is not None:
        rep.dialog.close()


def _log_text() -> str:
    from roofgui.gui.errors_dialog import log_file

    return log_file().read_text(encoding="utf-8") if log_file().exists() else ""


@pytest.mark.qt_no_exception_capture
def test_exception_in_a_slot_is_logged_shown_and_the_app_keeps_running(qapp, qtbot, reporter):
    from PySide6 import QtCore, QtWidgets

    w = QtWidgets.QWidget()
    bad = QtWidgets.QPushButton("bad", w)
    good = QtWidgets.QPushButton("good", w)
    clicks = []

    def boom():
        raise ValueError("the slot broke: 42")

    bad.clicked.connect(boom)
    good.clicked.connect(lambda: clicks.append(1))
    qtbot.addWidget(w)
    w.show()

    qtbot.mouseClick(bad, QtCore.Qt.MouseButton.LeftButton)  # a real click, a real slot
    QtWidgets.QApplication.processEvents()
    assert reporter.handled == 1
    assert "ValueError: the slot broke: 42" in _log_text()
    assert "Traceback" in _log_text() and "boom" in _log_text()
    dlg = reporter.dialog
    assert dlg is not None and dlg.isVisible() and not dlg.isModal()
    assert "the slot broke: 42" in dlg.details.toPlainText()
    assert "still running" in dlg.summary_label.text()
    assert str(_log_path()) in dlg.log_label.text()

    # the app carries on: other slots run, and a second error joins the same dialog
    qtbot.mouseClick(good, QtCore.Qt.MouseButton.LeftButton)
    assert clicks == [1]
    bad.click()
    QtWidgets.QApplication.processEvents()
    assert reporter.dialog is dlg and dlg.count == 2
    dlg.copy_details()
    assert "the slot broke: 42" in QtWidgets.QApplication.clipboard().text()


def _log_path():
    from roofgui.gui.errors_dialog import log_file

    return log_file()


@pytest.mark.qt_no_exception_capture
def test_exception_in_an_event_handler_and_in_a_thread(qapp, reporter, monkeypatch):
    from PySide6 import QtCore, QtWidgets

    from roofgui.gui import errors_dialog

    shown = []
    monkeypatch.setattr(errors_dialog, "show_error_dialog",
                        lambda s, d, p: shown.append((s, d, p)) or None)

    class Broken(QtWidgets.QWidget):
        def event(self, e):
            if e.type() == QtCore.QEvent.Type.User:
                raise KeyError("event handler")
            return super().event(e)

    b = Broken()
    QtWidgets.QApplication.postEvent(b, QtCore.QEvent(QtCore.QEvent.Type.User))
    QtWidgets.QApplication.processEvents()
    t = threading.Thread(target=lambda: 1 / 0, name="worker-7")
    t.start()
    t.join()
    QtWidgets.QApplication.processEvents()  # the thread's report is queued to the GUI thread
    assert [s for s, _, _ in shown] == ["KeyError: 'event handler'", "ZeroDivisionError: division by zero"]
    log = _log_text()
    assert "KeyError: 'event handler'" in log
    assert "in thread worker-7" in log and "ZeroDivisionError" in log


def test_a_repeating_error_is_logged_in_full_a_few_times_then_counted(qapp, reporter, monkeypatch):
    from roofgui.gui import errors_dialog

    monkeypatch.setattr(errors_dialog, "show_error_dialog", lambda s, d, p: None)
    for _ in range(errors_dialog.COUNT_EVERY):
        try:
            raise RuntimeError("every frame")
        except RuntimeError as e:
            reporter.handle(type(e), e, e.__traceback__)
    log = _log_text()
    assert log.count("Traceback") == errors_dialog.FULL_REPORTS_PER_SIGNATURE
    assert f"the same error again ({errors_dialog.COUNT_EVERY} times so far)" in log
    assert reporter.handled == errors_dialog.COUNT_EVERY


def test_the_hook_survives_an_unwritable_log_directory(qapp, reporter, tmp_path, monkeypatch, capsys):
    from PySide6 import QtWidgets

    blocker = tmp_path / "not-a-dir"
    blocker.write_text("a file where the log directory should be")
    monkeypatch.setenv("ROOFGUI_HOME", str(blocker))
    try:
        raise OSError("disk trouble")
    except OSError as e:
        reporter.handle(type(e), e, e.__traceback__)  # must not raise
    QtWidgets.QApplication.processEvents()
    assert reporter.dialog is not None and "could not be written" in reporter.dialog.log_label.text()
    assert "OSError: disk trouble" in capsys.readouterr().err


def test_keyboard_interrupt_is_not_reported(qapp, reporter, monkeypatch):
    from roofgui.gui import errors_dialog

    calls = []
    monkeypatch.setattr(sys, "__excepthook__", lambda *a: calls.append(a))
    reporter.handle(KeyboardInterrupt, KeyboardInterrupt(), None)
    assert reporter.handled == 0 and len(calls) == 1
    assert not errors_dialog.log_file().exists()


def test_listeners_hear_every_error_and_a_failing_listener_is_ignored(qapp, reporter, monkeypatch):
    from roofgui.gui import errors_dialog

    monkeypatch.setattr(errors_dialog, "show_error_dialog", lambda s, d, p: None)
    heard = []

    def bad_listener(*a):
        raise RuntimeError("listener broke")

    before = list(errors_dialog._listeners)  # (autosave's own listener stays for later tests)
    errors_dialog.add_error_listener(bad_listener)
    errors_dialog.add_error_listener(lambda t, e, tb: heard.append(str(e)))
    try:
        errors_dialog.report_exception(ValueError("told"))
    finally:
        errors_dialog._listeners[:] = before
    assert heard == ["told"] and reporter.handled == 1


# -- Help ▸ About ------------------------------------------------------------------------
def test_about_shows_version_catalog_sources_and_licence(qtbot):
    from roofgui import __version__
    from roofgui.gui import about
    from roofgui.model.catalog import CATALOG_VERSION, Catalog

    cat = Catalog.load(user_dir=False)
    dlg = about.show_about(None, cat)
    qtbot.addWidget(dlg)
    assert dlg.isVisible()  # open() does not block
    header = dlg.header.text()
    assert __version__ in header and CATALOG_VERSION in header and "MIT" in header
    assert f"{len(cat)} shipped chips" in header
    text = dlg.sources.toPlainText()
    every = {t.strip() for c in cat for t in c.sources.values()}
    assert len(every) > 10
    for src in every:  # every source of every shipped chip is listed...
        assert " ".join(src.split()) in " ".join(text.split()), src
    assert len(about.shipped_sources(cat)) == len(every)  # ...once
    assert "tpu-v5e" not in every and "Google TPU v5e" in text  # cited-for names the chips
    assert dlg.licence.toPlainText() == about.LICENSE_TEXT
    assert 'href="https://' in dlg.sources.toHtml()
    dlg.close()


def test_about_licence_text_is_the_license_file():
    from roofgui.gui.about import LICENSE_TEXT

    assert (ROOT / "LICENSE").read_text(encoding="utf-8") == LICENSE_TEXT


def test_about_ignores_user_chips(qtbot, tmp_path):
    from roofgui.gui import about
    from roofgui.model.catalog import Catalog

    cat = Catalog.load(user_dir=False)
    builtin = about.shipped_sources(cat)
    from dataclasses import replace

    mine = replace(next(iter(cat)), id="my-chip", name="My Chip", builtin=False,
                   sources={"X": "my private notes"})
    cat.chips["my-chip"] = mine
    assert about.shipped_sources(cat) == builtin


# -- the sweep tab ----------------------------------------------------------------------
@pytest.fixture
def shipped_catalog():
    from roofgui.model.catalog import Catalog

    return Catalog.load(user_dir=False)


def _close(w) -> None:
    from PySide6.QtCore import QEvent
    from PySide6.QtWidgets import QApplication

    w.doc.load(w.doc.scenario)  # no unsaved-changes question
    w.close()
    w.deleteLater()
    QApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)


def test_the_sweep_tab_shows_the_models_sweep_and_follows_edits(qtbot, shipped_catalog):
    from roofgui.gui.main_window import TAB_SWEEP, MainWindow
    from roofgui.plotting.sweep_plot import SweepPlot
    from roofgui.model.evaluate import sweep_scenario

    w = MainWindow(catalog=shipped_catalog, restore=False)
    w.show()
    qtbot.waitExposed(w)
    w.live.flush()
    w.tabs.setCurrentIndex(TAB_SWEEP)
    w.live.flush()
    plot = w.sweep_plot
    assert isinstance(plot, SweepPlot)
    assert w.sweep_stack.currentWidget() is plot and w.current_plot() is plot
    assert plot.isVisible() and plot.accessibleName() == "Sweep plot"
    assert plot.style == w.roofline_plot.style  # the window's (light or dark) style
    curves, _ = sweep_scenario(w.doc.scenario, shipped_catalog)
    assert curves and set(plot.curves) == {(c.op_index, c.phase, c.chip.id) for c in curves}
    for c in curves:  # each curve is the model's (drawn as log10 values)
        key = (c.op_index, c.phase, c.chip.id)
        assert plot.curves[key].isVisible()
    assert plot.geometry is not None and plot.geometry.lines
    # later edits reach it like any plot
    before = {k: tuple(map(tuple, c.getData())) for k, c in plot.curves.items()}
    w.doc.edit("Set D", lambda s: s.ops[0].dims.__setitem__("D", 1024))
    w.live.flush()
    after = {k: tuple(map(tuple, c.getData())) for k, c in plot.curves.items()}
    assert after != before
    _close(w)
