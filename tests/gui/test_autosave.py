"""No lost work: autosave on change, recovery after a crash, custom chips kept through upgrades.

tests/conftest.py gives every test its own ROOFGUI_HOME, so the autosave directory,
the settings and the user's chip directory here are this test's alone.
"""

from __future__ import annotations

import json
import re
import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from PySide6.QtCore import QEvent
from PySide6.QtWidgets import QApplication, QMessageBox

from roofgui.gui import autosave as autosave_mod
from roofgui.gui.autosave import Autosaver, autosave_dir, read_autosave
from roofgui.gui.main_window import MainWindow
from roofgui.model import catalog as catalog_mod
from roofgui.model.catalog import Catalog
from roofgui.model.chips import MAX_FILE_BYTES
from roofgui.model.errors import ModelError
from roofgui.model.paths import user_chip_dir
from roofgui.model.scenario import Scenario, default_scenario

ROOT = Path(__file__).resolve().parents[2]
Yes, No = QMessageBox.StandardButton.Yes, QMessageBox.StandardButton.No


@pytest.fixture
def asked(monkeypatch):
    """Record every restore question; answer from ``asked.answers`` (default: fail loudly)."""

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


def make_window(catalog=None, **kw) -> MainWindow:
    w = MainWindow(catalog=catalog, **kw)
    w.autosaver.timer.setInterval(20)  # the real delay is seconds; the logic is the same
    w.show()
    w.live.flush()
    return w


def close_clean(w: MainWindow) -> None:
    w.doc.load(w.doc.scenario)  # nothing unsaved: no question on close
    assert w.close()
    w.deleteLater()
    QApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)


@pytest.fixture
def window(qtbot, shipped, asked):
    w = make_window(shipped)
    yield w
    if not w.autosaver.finished:
        close_clean(w)


def type_into(qtbot, edit, text):
    edit.setFocus()
    edit.selectAll()
    qtbot.keyClicks(edit, text)


def autosaves() -> list[Path]:
    d = autosave_dir()
    return sorted(d.glob("*.json")) if d.is_dir() else []


def write_foreign_autosave(scenario: Scenario, token: str = "4242-deadbeef", path=None,
                           saved="2026-01-02T03:04:05+00:00") -> Path:
    """An autosave as a crashed earlier process leaves it (no live lock)."""
    d = autosave_dir()
    d.mkdir(parents=True, exist_ok=True)
    f = d / f"{token}.json"
    f.write_text(json.dumps({"format": "roofgui-autosave", "version": 1, "session": token,
                             "pid": 4242, "saved": saved, "path": path,
                             "scenario": scenario.to_dict()}), encoding="utf-8")
    return f


def edited_scenario(b=777, title="crashed work") -> Scenario:
    sc = default_scenario()
    sc.title = title
    sc.ops[0].dims["B"] = b
    sc.chips.append("mi300x")
    return sc


# -- autosave on change --------------------------------------------------------------


def test_an_edit_is_autosaved_after_a_pause_atomically_and_in_the_user_data_dir(window, qtbot):
    saver = window.autosaver
    assert saver.path.parent == autosave_dir() and autosave_dir().parent == Path(os.environ["ROOFGUI_HOME"])
    assert autosaves() == []  # nothing unsaved yet: nothing written
    type_into(qtbot, window.form.editor.dim_edit("B"), "1234")  # four edits in one burst
    assert saver.writes == 0 and saver.timer.isActive()  # debounced: not yet
    qtbot.waitUntil(lambda: saver.writes == 1, timeout=5000)
    assert saver.writes == 1  # one write for the burst
    assert autosaves() == [saver.path]
    rec = read_autosave(saver.path)
    assert rec.scenario == window.doc.scenario and rec.scenario.ops[0].dims["B"] == 1234
    assert rec.path is None
    assert not [p for p in autosave_dir().iterdir() if p.name.endswith(".tmp")]
    # a later edit rewrites it
    type_into(qtbot, window.form.editor.dim_edit("D"), "512")
    qtbot.waitUntil(lambda: read_autosave(saver.path).scenario.ops[0].dims.get("D") == 512,
                    timeout=5000)


def test_a_failed_autosave_keeps_the_previous_one_and_says_so(window, qtbot, monkeypatch):
    saver = window.autosaver
    type_into(qtbot, window.form.editor.dim_edit("B"), "300")
    assert saver.save_now() == saver.path
    before = saver.path.read_bytes()
    messages = []
    saver.message.connect(messages.append)

    def broken_replace(src, dst):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", broken_replace)
    type_into(qtbot, window.form.editor.dim_edit("B"), "400")
    assert saver.save_now() is None
    assert saver.path.read_bytes() == before  # the last good autosave is intact
    assert messages and "No space left on device" in messages[0] and str(saver.path) in messages[0]
    assert "No space left" in window.statusBar().currentMessage()
    assert not [p for p in autosave_dir().iterdir() if p.name.endswith(".tmp")]
    monkeypatch.undo()
    assert window.doc.scenario.ops[0].dims["B"] == 400  # the app carried on
    assert saver.save_now() == saver.path
    assert read_autosave(saver.path).scenario.ops[0].dims["B"] == 400


def test_saving_removes_the_autosave_and_a_clean_exit_leaves_none(window, qtbot, tmp_path, monkeypatch):
    saver = window.autosaver
    type_into(qtbot, window.form.editor.dim_edit("B"), "640")
    assert saver.save_now() == saver.path and saver.path.exists()
    window.doc.save(tmp_path / "mine.json")
    assert not saver.path.exists()  # saved: nothing left to lose
    type_into(qtbot, window.form.editor.dim_edit("B"), "650")
    qtbot.waitUntil(saver.path.exists, timeout=5000)
    assert read_autosave(saver.path).path == tmp_path / "mine.json"
    monkeypatch.setattr(QMessageBox, "exec", lambda self: QMessageBox.StandardButton.Discard)
    assert window.close()
    assert saver.finished
    assert list(autosave_dir().iterdir()) == []  # neither the file nor the session lock


def test_an_unexpected_error_writes_the_autosave_at_once(window, qtbot, monkeypatch):
    from roofgui.gui import errors_dialog

    monkeypatch.setattr(errors_dialog, "show_error_dialog", lambda *a: None)
    saver = window.autosaver
    saver.timer.setInterval(3_600_000)  # would not fire during the test
    type_into(qtbot, window.form.editor.dim_edit("B"), "999")
    assert saver.writes == 0
    rep = errors_dialog.ErrorReporter(show_dialog=False)
    try:
        raise RuntimeError("something broke")
    except RuntimeError as e:
        rep.handle(type(e), e, e.__traceback__)
    assert saver.writes == 1 and read_autosave(saver.path).scenario.ops[0].dims["B"] == 999


def test_an_error_in_a_worker_thread_saves_on_the_gui_thread(window, qtbot):
    import threading

    from roofgui.gui import errors_dialog

    saver = window.autosaver
    saver.timer.setInterval(3_600_000)
    type_into(qtbot, window.form.editor.dim_edit("B"), "777")
    rep = errors_dialog.ErrorReporter(show_dialog=False)
    t = threading.Thread(target=lambda: rep.handle(RuntimeError, RuntimeError("in a worker"), None,
                                                   context="thread worker"))
    t.start()
    t.join()
    qtbot.waitUntil(lambda: saver.writes == 1, timeout=5000)  # queued to the GUI thread
    assert read_autosave(saver.path).scenario.ops[0].dims["B"] == 777


# -- recovery -------------------------------------------------------------------------


CHILD = textwrap.dedent("""
    import os, sys, time
    sys.path.insert(0, {root!r})
    from PySide6.QtWidgets import QApplication
    app = QApplication([])
    from roofgui.gui.main_window import MainWindow
    from roofgui.model.catalog import Catalog
    w = MainWindow(catalog=Catalog.load(user_dir=False))
    w.show()
    ed = w.form.editor.dim_edit("B")
    ed.setFocus(); ed.selectAll(); ed.insert("4321")
    w.form.title.edit.selectAll(); w.form.title.edit.insert("unsaved work ✓")
    w.chips_panel.set_chip_checked("mi300x", True)
    assert w.doc.is_modified()
    assert w.autosaver.save_now() is not None
    print("autosaved", flush=True)
    sys.stdin.readline()          # alive until the parent has looked
    os.kill(os.getpid(), 9)       # then crash: no close, no clean-up
""")


def test_after_a_crash_the_next_launch_offers_the_work_back(qtbot, shipped, asked, tmp_path):
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    child = subprocess.Popen([sys.executable, "-c", CHILD.format(root=str(ROOT))], cwd=tmp_path,
                             env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)
    try:
        line = child.stdout.readline()
        assert line.strip() == "autosaved", child.stderr.read()
        [left] = autosaves()
        # 1. while that instance is running, its autosave is its own: not offered
        w = make_window(shipped)
        assert asked == []
        assert w.doc.scenario.ops[0].dims["B"] == 256
        close_clean(w)
        assert left.exists()
        # 2. it crashes
        child.stdin.write("go\n")
        child.stdin.flush()
        assert child.wait(timeout=60) == -signal.SIGKILL
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
        child.stdout.close()
        child.stderr.close()
        child.stdin.close()
    assert left.exists()
    # 3. the next launch asks, and Yes brings the work back as an unsaved document
    asked.answers = [Yes]
    w = make_window(shipped)
    try:
        assert len(asked) == 1
        title, text = asked[0]
        assert title == "Restore unsaved work?" and "unsaved work ✓" in text
        sc = w.doc.scenario
        assert sc.ops[0].dims["B"] == 4321 and sc.title == "unsaved work ✓"
        assert "mi300x" in sc.chips
        assert w.doc.is_modified() and w.isWindowModified()
        assert w.form.editor.dim_edit("B").text() == "4321"
        assert "mi300x" in w.roofline_plot.roof_curves  # on screen, not only in the document
        # the recovered work now lives in this session's autosave; the crashed one is gone
        assert not left.exists()
        assert autosaves() == [w.autosaver.path]
        assert read_autosave(w.autosaver.path).scenario == sc
    finally:
        close_clean(w)
    # 4. restored once: not offered again
    w = make_window(shipped)
    assert len(asked) == 1
    close_clean(w)


def test_no_deletes_the_autosave_and_is_not_asked_again(qtbot, shipped, asked, tmp_path):
    f = write_foreign_autosave(edited_scenario(), path=str(tmp_path / "orig.json"))
    asked.answers = [No]
    w = make_window(shipped)
    assert len(asked) == 1 and "orig.json" in asked[0][1] and "2026-01-02" in asked[0][1]
    assert w.doc.scenario.ops[0].dims["B"] == 256 and not w.doc.is_modified()
    assert not f.exists()
    close_clean(w)
    w = make_window(shipped)
    assert len(asked) == 1
    close_clean(w)


def test_restore_keeps_the_original_file_and_offers_the_newest_first(qtbot, shipped, asked, tmp_path):
    orig = tmp_path / "orig.json"
    older = write_foreign_autosave(edited_scenario(100, "older"), "1-aaaa", str(orig),
                                   "2026-01-01T00:00:00+00:00")
    newer = write_foreign_autosave(edited_scenario(200, "newer"), "2-bbbb", str(orig),
                                   "2026-02-01T00:00:00+00:00")
    asked.answers = [Yes]
    w = make_window(shipped)
    try:
        assert len(asked) == 1 and "2026-02-01" in asked[0][1]
        assert w.doc.scenario.title == "newer" and w.doc.path == orig and w.doc.is_modified()
        assert not newer.exists() and older.exists()  # one per window; the other waits
    finally:
        close_clean(w)
    asked.answers = [No]
    w = make_window(shipped)
    assert len(asked) == 2 and "2026-01-01" in asked[1][1]
    assert not older.exists()
    close_clean(w)


@pytest.mark.parametrize("content", [b"", b"\x00\xff junk", b'{"format": "roofgui-autosave", '
                                     b'"version": 99, "scenario": {}}',
                                     json.dumps({"format": "roofgui-autosave", "version": 1,
                                                 "scenario": {"format": "roofgui-scenario",
                                                              "version": 1, "ops": [7]}}).encode(),
                                     b"{" * (4 * 1024 * 1024 + 10)],
                         ids=["empty", "binary", "newer-version", "bad-scenario", "too-large"])
def test_an_unreadable_autosave_is_kept_aside_and_reported(qtbot, shipped, asked, content):
    d = autosave_dir()
    d.mkdir(parents=True)
    f = d / "77-cafe.json"
    f.write_bytes(content)
    w = make_window(shipped)
    try:
        assert asked == []
        assert not f.exists() and (d / "77-cafe.json.unreadable").read_bytes() == content
        msg = w.statusBar().currentMessage()
        assert "could not be restored" in msg and "77-cafe.json" in msg
        assert w.doc.scenario.ops[0].dims["B"] == 256  # the window works as usual
    finally:
        close_clean(w)


def test_an_autosaver_without_a_writable_directory_does_not_stop_the_window(qtbot, tmp_path):
    from roofgui.gui.document import ScenarioDocument

    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    doc = ScenarioDocument()
    messages = []
    saver = Autosaver(doc, directory=blocker / "autosave")
    saver.message.connect(messages.append)
    doc.edit("x", lambda s: s.ops[0].dims.__setitem__("B", 5.0))
    assert saver.save_now() is None
    assert messages and "Could not autosave" in messages[-1]
    saver.finish()


# -- custom chips and upgrades of the shipped catalog --------------------------------------


def _user_chip(cid: str, name: str = "My chip") -> str:
    text = (ROOT / "specs" / "h100-sxm.toml").read_text(encoding="utf-8")
    text = text.replace('id = "h100-sxm"', f'id = "{cid}"', 1)
    return re.sub(r'(?m)^name = ".*"$', f'name = "{name}"', text, count=1)


def test_an_upgrade_that_ships_a_chip_with_a_custom_chips_id_never_touches_the_users_file(
        qtbot, asked, monkeypatch):
    d = user_chip_dir()
    d.mkdir(parents=True)
    mine = d / "lab-accel.toml"
    mine.write_text(_user_chip("lab-accel", "Lab accelerator"), encoding="utf-8")
    before = mine.read_bytes()
    # before the upgrade: the user's chip is there
    assert Catalog.load().get("lab-accel").name == "Lab accelerator"
    # the upgrade ships its own lab-accel
    shipped_files = catalog_mod.builtin_spec_files()
    upgraded = _user_chip("lab-accel", "Vendor lab accelerator").encode()
    monkeypatch.setattr(catalog_mod, "builtin_spec_files",
                        lambda: sorted(shipped_files + [("lab-accel.toml", upgraded)]))
    w = make_window()
    try:
        msg = w.statusBar().currentMessage()
        assert "1 chip file(s) could not be read" in msg
        assert str(mine) in msg and ": id:" in msg and "shipped chip" in msg
        assert w.catalog.get("lab-accel").builtin  # the shipped one is what the list shows
        assert mine.read_bytes() == before  # the user's file is untouched ...
        # ... and saving over the shipped id is refused rather than overwriting anything
        with pytest.raises(ModelError, match="shipped chip"):
            w.catalog.save_custom(Catalog.load(user_dir=False).get("h100-sxm"))
        assert w.roofline_plot.roof_curves  # everything else works
    finally:
        close_clean(w)
    assert mine.read_bytes() == before


def test_custom_chips_live_in_the_user_dir_not_beside_the_shipped_specs(qtbot, asked):
    w = make_window()
    try:
        base = w.catalog.get("tpu-v5e")
        from dataclasses import replace

        path = w.catalog.save_custom(replace(base, id="tpu-v5e-mine", name="mine", builtin=False))
        assert path.parent == user_chip_dir()
        assert not (ROOT / "specs" / "tpu-v5e-mine.toml").exists()
        shipped_names = {n for n, _ in catalog_mod.builtin_spec_files()}
        assert "tpu-v5e-mine.toml" not in shipped_names
        assert path.stat().st_size < MAX_FILE_BYTES
    finally:
        close_clean(w)
