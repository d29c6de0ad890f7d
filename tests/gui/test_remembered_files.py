"""Never lose work, part two (issue 28): remembered paths are absolute, a restored document
asks before overwriting a file that changed, settings of any value, stale temp files and
special files where the app keeps its own."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from PySide6.QtCore import QEvent, QLockFile
from PySide6.QtWidgets import QApplication, QFileDialog, QMessageBox

from roofgui.gui.autosave import autosave_dir
from roofgui.gui.document import app_settings
from roofgui.gui.main_window import MainWindow
from roofgui.model.scenario import default_scenario, load_scenario, save_scenario

Yes, No, Cancel = (QMessageBox.StandardButton.Yes, QMessageBox.StandardButton.No,
                   QMessageBox.StandardButton.Cancel)


@pytest.fixture
def asked(monkeypatch):
    """Every QMessageBox.question, answered from ``asked.answers`` (none left: a failure)."""

    class Asked(list):
        answers: list = []

    rec = Asked()

    def question(parent, title, text, *args, **kwargs):
        rec.append((title, text))
        if not rec.answers:
            raise AssertionError(f"unexpected question: {title}: {text}")
        return rec.answers.pop(0)

    monkeypatch.setattr(QMessageBox, "question", question)
    return rec


def launch(catalog, open_path=None) -> MainWindow:
    w = MainWindow(catalog=catalog, open_path=open_path)
    w.show()
    w.live.flush()
    return w


def close(w: MainWindow, monkeypatch=None) -> None:
    if monkeypatch is not None:  # (unsaved changes: keep them in the session, as Discard does)
        monkeypatch.setattr(QMessageBox, "exec", lambda self: QMessageBox.StandardButton.Discard)
    else:
        w.doc.load(w.doc.scenario)
    assert w.close()
    w.deleteLater()
    QApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)


def type_into(qtbot, edit, text):
    edit.setFocus()
    edit.selectAll()
    qtbot.keyClicks(edit, text)


def scenario_file(path: Path, b: int, title: str) -> Path:
    sc = default_scenario()
    sc.title = title
    sc.ops[0].dims["B"] = b
    path.parent.mkdir(parents=True, exist_ok=True)
    save_scenario(sc, path)
    return path


# -- remembered paths ----------------------------------------------------------------------

def test_a_later_launch_in_another_folder_never_saves_over_that_folders_file(
        qtbot, shipped, tmp_path, monkeypatch):
    first = scenario_file(tmp_path / "a" / "s.json", 111, "first project")
    other = scenario_file(tmp_path / "b" / "s.json", 999, "another project")
    other_bytes = other.read_bytes()
    monkeypatch.chdir(first.parent)
    w = launch(shipped, "s.json")  # as typed: `roofgui s.json`
    type_into(qtbot, w.form.editor.dim_edit("B"), "222")
    assert w.autosaver.save_now() is not None
    assert json.loads(w.autosaver.path.read_text())["path"] == str(first.resolve())
    w.controller.save_action.trigger()
    type_into(qtbot, w.form.editor.dim_edit("B"), "333")  # unsaved when closed
    close(w, monkeypatch)
    s = app_settings()
    assert s.value("session/path") == str(first.resolve())
    assert all(Path(p).is_absolute() for p in s.value("recent"))
    monkeypatch.chdir(other.parent)
    w = launch(shipped)
    try:
        assert w.doc.scenario.ops[0].dims["B"] == 333 and w.doc.path == first.resolve()
        w.controller.save_action.trigger()  # Ctrl+S
        assert other.read_bytes() == other_bytes
        assert load_scenario(first).ops[0].dims["B"] == 333
    finally:
        close(w)


def test_a_session_path_remembered_relative_names_no_file(qtbot, shipped, tmp_path, monkeypatch):
    """A relative path an earlier version remembered is not trusted to be the same file."""
    other = scenario_file(tmp_path / "b" / "s.json", 999, "another project")
    other_bytes = other.read_bytes()
    sc = default_scenario()
    sc.ops[0].dims["B"] = 4444
    s = app_settings()
    s.setValue("session/scenario", sc.to_json())
    s.setValue("session/path", "s.json")
    s.setValue("recent", ["s.json", str(other)])
    s.sync()
    monkeypatch.chdir(other.parent)
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *a, **k: ("", ""))
    w = launch(shipped)
    try:
        assert w.doc.scenario.ops[0].dims["B"] == 4444 and w.doc.path is None
        assert w.controller.recent_files() == [str(other)]
        w.controller.save_action.trigger()  # asks for a name (cancelled): nothing written
        assert other.read_bytes() == other_bytes
    finally:
        close(w)


# -- a restored document whose file changed -------------------------------------------------

def crashed_session(qtbot, shipped, orig: Path) -> None:
    """A session that opened ``orig``, edited it (B = 4321) and crashed: its autosave is left."""
    w = launch(shipped, orig)
    type_into(qtbot, w.form.editor.dim_edit("B"), "4321")
    own = w.autosaver.save_now()
    shutil.copyfile(own, own.with_name("4242-deadbeef.json"))  # (as a dead process left it)
    close(w)


@pytest.mark.parametrize("change", ["edited", "vanished"])
def test_saving_a_restored_document_over_a_file_changed_since_asks_first(
        qtbot, shipped, tmp_path, asked, monkeypatch, change):
    orig = scenario_file(tmp_path / "orig.json", 256, "as opened")
    crashed_session(qtbot, shipped, orig)
    if change == "edited":
        scenario_file(orig, 8, "changed by someone else since")
    else:
        orig.unlink()
    before = orig.read_bytes() if orig.exists() else None
    asked.answers = [Yes]  # restore the work
    w = launch(shipped)
    try:
        assert w.doc.scenario.ops[0].dims["B"] == 4321 and w.doc.path == orig.resolve()
        asked.answers = [Cancel]
        w.controller.save_action.trigger()
        assert len(asked) == 2 and str(orig.resolve()) in asked[1][1]
        assert (orig.read_bytes() if orig.exists() else None) == before and w.doc.is_modified()
        asked.answers = [No]  # another name: the dialog (cancelled) writes nothing
        monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *a, **k: ("", ""))
        w.controller.save_action.trigger()
        assert (orig.read_bytes() if orig.exists() else None) == before
        asked.answers = [Yes]  # overwrite, as asked
        w.controller.save_action.trigger()
        assert load_scenario(orig).ops[0].dims["B"] == 4321 and not w.doc.is_modified()
        w.controller.save_action.trigger()  # saved by this window since: no question
        assert len(asked) == 4
    finally:
        close(w)


def test_saving_a_restored_document_over_its_unchanged_file_asks_nothing(
        qtbot, shipped, tmp_path, asked):
    orig = scenario_file(tmp_path / "orig.json", 256, "as opened")
    crashed_session(qtbot, shipped, orig)
    asked.answers = [Yes]
    w = launch(shipped)
    try:
        w.controller.save_action.trigger()
        assert len(asked) == 1 and load_scenario(orig).ops[0].dims["B"] == 4321
    finally:
        close(w)


# -- settings of any value -------------------------------------------------------------------

SETTING_VALUES = ["2147483648", "-2147483649", "-1", "99999999999999999999999999999",
                  "1" * 5000, "x" * 200_000, "hello", "\"a, b, c\"", "a, b, c", "1e400", "nan",
                  "@Variant(\\0\\0\\0\\x7f\\0\\0\\0\\x12junk)", "@ByteArray(\\0\\xff)", "@Invalid()",
                  "@Rect(1 2 3)", "@Size(-5 -5)", "true", "\"\\0\""]


@pytest.mark.parametrize("value", SETTING_VALUES, ids=range(len(SETTING_VALUES)))
def test_any_value_in_the_settings_file_leaves_the_window_opening_with_defaults(qtbot, shipped,
                                                                               value):
    ini = Path(app_settings().fileName())
    ini.parent.mkdir(parents=True, exist_ok=True)
    keys = {"General": ["recent", "last_dir"], "window": ["tab", "geometry", "state"],
            "session": ["scenario", "path", "stamp"]}
    ini.write_text("".join(f"[{group}]\n" + "".join(f"{k}={value}\n" for k in names)
                           for group, names in keys.items()), encoding="utf-8")
    w = launch(shipped)
    try:
        assert w.tabs.currentIndex() == 0
        assert w.doc.scenario.to_dict() == default_scenario().to_dict() and w.doc.path is None
        assert isinstance(w.controller.recent_files(), list)
        w.controller.recent_menu.aboutToShow.emit()  # (Open Recent is filled when shown)
        assert (0, "", "tpu-v5e") in w.roofline_plot.points
    finally:
        close(w)


# -- special files and stale temporary files where the app keeps its own ------------------------

def special(path: Path, kind: str) -> Path:
    """``path`` made a FIFO or a link to /dev/zero (read, one hangs, the other never ends)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    if kind == "fifo":
        os.mkfifo(path)
    else:
        path.symlink_to("/dev/zero")
    return path


@pytest.mark.parametrize("kind", ["fifo", "zero"])
def test_a_special_file_as_an_autosave_is_set_aside_not_read(qtbot, shipped, asked, kind):
    f = special(autosave_dir() / "4242-deadbeef.json", kind)
    w = launch(shipped)
    try:
        assert asked == [] and w.doc.path is None
        assert not f.is_symlink() and not f.exists()
        assert (f.parent / (f.name + ".unreadable")).is_symlink() == (kind == "zero")
        assert "not a regular file" in w.statusBar().currentMessage()
    finally:
        close(w)


@pytest.mark.parametrize("kind", ["fifo", "zero"])
def test_a_special_file_as_the_sessions_file_or_the_settings_is_not_read(qtbot, shipped,
                                                                         tmp_path, kind):
    sc = default_scenario()
    sc.ops[0].dims["B"] = 4444
    s = app_settings()
    s.setValue("session/scenario", sc.to_json())
    s.setValue("session/path", str(special(tmp_path / "s.json", kind)))
    s.sync()
    w = launch(shipped)
    try:
        assert w.doc.scenario.ops[0].dims["B"] == 4444 and w.doc.path is None
    finally:
        close(w)
    ini = Path(app_settings().fileName())
    ini.unlink()
    special(ini, kind)
    w = launch(shipped)
    try:
        assert w.doc.scenario.to_dict() == default_scenario().to_dict()
    finally:
        close(w)


def test_killed_saves_temporary_files_are_removed_at_the_next_start(qtbot, shipped, tmp_path):
    doc = scenario_file(tmp_path / "a" / "s.json", 256, "mine")
    left = [doc.parent / ".s.json.k1ll3d.tmp", autosave_dir() / ".4242-deadbeef.json.x9.tmp"]
    live = autosave_dir() / ".777-running.json.q1.tmp"  # another instance, saving right now
    lock = QLockFile(str(autosave_dir() / "777-running.lock"))
    for f in left + [live]:
        f.parent.mkdir(parents=True, exist_ok=True)
        f.write_text("half a save")
    assert lock.tryLock(0)
    s = app_settings()
    s.setValue("session/scenario", load_scenario(doc).to_json())
    s.setValue("session/path", str(doc))
    s.sync()
    w = launch(shipped)
    try:
        assert w.doc.path == doc.resolve()
        assert [f for f in left if f.exists()] == [] and live.exists()
    finally:
        close(w)
        lock.unlock()


def test_a_file_given_at_start_that_cannot_be_read_is_named_in_the_window(qtbot, shipped, tmp_path,
                                                                           monkeypatch):
    # `roofgui broken.json`: the window opens (no box before it, which also held up a start-up
    # smoke test), shows a scenario, and its notice bar names the file and the problem
    from PySide6.QtWidgets import QMessageBox

    from gui_helpers import close_quietly
    from roofgui.gui.main_window import MainWindow

    boxes = []
    monkeypatch.setattr(QMessageBox, "warning", lambda *a, **k: boxes.append(a))
    bad = tmp_path / "broken.json"
    bad.write_text('{"ops": [', encoding="utf-8")
    w = MainWindow(catalog=shipped, open_path=str(bad), restore=False)
    w.show()
    w.live.flush()
    try:
        assert not boxes
        assert w.doc.path is None and w.doc.scenario.ops  # (the default scenario)
        (msg,) = [m for m in w.notices.messages() if "broken.json" in m]
        assert msg.startswith("Cannot open scenario: ") and "not valid JSON" in msg
        assert "line 1" in msg
        # the first edit reads it away, as the notices of an opening
        w.form.title.edit.setFocus()  # (a title edit too, though it evaluates nothing)
        qtbot.keyClicks(w.form.title.edit, "x")
        w.live.flush()
        assert not [m for m in w.notices.messages() if "broken.json" in m]
    finally:
        close_quietly(w)
