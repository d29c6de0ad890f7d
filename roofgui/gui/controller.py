"""The File and Edit actions of a :class:`ScenarioDocument`: New, Open, Open Recent,
Examples, Save, Save As, Undo and Redo, the dialogs they need, asking about unsaved
changes, and the session kept in :func:`app_settings`."""

from __future__ import annotations

import json
from pathlib import Path

from PySide6.QtCore import QObject, QTimer, Signal
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QFileDialog, QMenu, QMessageBox, QWidget

from roofgui.gui.document import ScenarioDocument, absolute, app_settings, file_stamp
from roofgui.gui.examples import Example, examples
from roofgui.model.errors import ModelError
from roofgui.model.paths import remove_stale_temps
from roofgui.model.scenario import MAX_SCENARIO_BYTES, Scenario, load_scenario

MAX_RECENT = 10
FILE_FILTER = "Roofline scenarios (*.json);;All files (*)"


def suggest_name(sc: Scenario) -> str:
    """A file name for a scenario not saved yet, from its title."""
    base = "".join(c if c.isalnum() or c in "-_ " else " " for c in (sc.title or "scenario"))
    base = "-".join(base.lower().split())[:60] or "scenario"
    return base + ".json"


def make_action(parent: QObject, text: str, slot, shortcut=None, tip: str = "") -> QAction:
    """An action with its shortcut and tip, connected to ``slot``."""
    a = QAction(text, parent)
    if shortcut is not None:
        a.setShortcut(shortcut)
    if tip:
        a.setStatusTip(tip)
        a.setToolTip(tip)
    a.triggered.connect(slot)
    return a


class DocumentController(QObject):
    """File and Edit actions for a :class:`ScenarioDocument`, with its dialogs and session."""

    messageShown = Signal(str)  # a transient status message

    def __init__(self, doc: ScenarioDocument, parent_widget: QWidget) -> None:
        super().__init__(parent_widget)
        self.doc = doc
        self.window = parent_widget
        self.settings = app_settings()
        #: Examples left out (each names the file and the problem), also shown in the menu.
        self.example_problems: list[str] = []
        self.open_error = ""  # why the last file that could not be opened could not
        self._build_actions()
        self.recent_menu = QMenu("Open &Recent", parent_widget)
        self.recent_menu.aboutToShow.connect(self._fill_recent)
        self.examples_menu = QMenu("&Examples", parent_widget)
        self.examples_menu.setToolTipsVisible(True)
        self._fill_examples()

    def _build_actions(self) -> None:
        w, keys = self.window, QKeySequence.StandardKey
        self.new_action = make_action(w, "&New", self.new, keys.New,
                                      "Start an empty scenario (the examples are under Examples)")
        self.open_action = make_action(w, "&Open…", self.open_dialog, keys.Open, "Open a scenario file")
        self.save_action = make_action(w, "&Save", self.save, keys.Save, "Save the scenario")
        self.save_as_action = make_action(w, "Save &As…", self.save_as, QKeySequence("Ctrl+Shift+S"),
                                          "Save the scenario under a new name")
        self.undo_action = self.doc.undo_stack.createUndoAction(w, "&Undo")
        self.undo_action.setShortcuts([QKeySequence(keys.Undo)])
        self.redo_action = self.doc.undo_stack.createRedoAction(w, "&Redo")
        self.redo_action.setShortcuts([QKeySequence("Ctrl+Y"), QKeySequence(keys.Redo)])

    # -- actions ------------------------------------------------------------------
    def new(self) -> None:
        if self.maybe_save():
            self.doc.load(Scenario())  # empty: no ops, no chips
            self.messageShown.emit("New scenario")

    def open_dialog(self) -> None:
        if not self.maybe_save():
            return
        start = str(self.doc.path.parent) if self.doc.path else str(self._last_dir())
        path, _ = QFileDialog.getOpenFileName(self.window, "Open scenario", start, FILE_FILTER)
        if path:
            self.open_path(path, ask=False)

    def open_path(self, path: str | Path, ask: bool = True, modal: bool = True) -> bool:
        """Open a scenario file.  A file that cannot be read is named in a message box, or
        (``modal`` False: the file given at start-up) in :attr:`open_error` for the window
        to show once it is up."""
        if ask and not self.maybe_save():
            return False
        try:
            self.doc.open(path)
        except ModelError as e:
            self.open_error = str(e)
            if modal:
                QMessageBox.warning(self.window, "Cannot open scenario", str(e))
            self._forget_recent(path)
            return False
        self._add_recent(Path(path))
        self.messageShown.emit(f"Opened {path}")
        return True

    def open_example(self, example: Example) -> None:
        if not self.maybe_save():
            return
        try:
            sc = Scenario.from_json(example.text, example.name)
        except ModelError as e:
            QMessageBox.warning(self.window, "Cannot open example", str(e))
            return
        self.doc.load(sc)
        self.messageShown.emit(f"Example: {example.title}")

    def save(self) -> bool:
        if self.doc.path is None:
            return self.save_as()
        if self.doc.file_changed_on_disk():
            answer = self._ask_overwrite(self.doc.path)
            if answer == QMessageBox.StandardButton.No:
                return self.save_as()
            if answer != QMessageBox.StandardButton.Yes:
                return False
        return self._save_to(self.doc.path)

    def _ask_overwrite(self, path: Path) -> QMessageBox.StandardButton:
        """Ask before overwriting a file that changed (or went) since the document knew it."""
        what = "changed on disk" if path.exists() else "is no longer there"
        buttons = QMessageBox.StandardButton
        return QMessageBox.question(
            self.window, "File changed on disk",
            f"“{path}” {what} since this scenario was opened or saved (or autosaved).\n\n"
            "Yes overwrites it with this scenario; No saves it under another name.",
            buttons.Yes | buttons.No | buttons.Cancel, buttons.Cancel)

    def save_as(self) -> bool:
        start = self.doc.path or (self._last_dir() / suggest_name(self.doc.scenario))
        path, _ = QFileDialog.getSaveFileName(self.window, "Save scenario as", str(start), FILE_FILTER)
        if not path:
            return False
        p = Path(path)
        if p.suffix == "":
            p = p.with_suffix(".json")
        return self._save_to(p)

    def _save_to(self, path: Path) -> bool:
        try:
            self.doc.save(path)
        except OSError as e:
            QMessageBox.warning(self.window, "Cannot save scenario",
                                f"{path}: {e.strerror or e}")
            return False
        self._add_recent(path)
        self.messageShown.emit(f"Saved {path}")
        return True

    def maybe_save(self) -> bool:
        """Ask about unsaved changes.  True when it is fine to go on (saved or discarded)."""
        if not self.doc.is_modified():
            return True
        buttons = QMessageBox.StandardButton
        box = QMessageBox(QMessageBox.Icon.Warning, "Unsaved changes",
                          f"Save the changes to “{self.doc.display_name()}” before closing it?",
                          buttons.Save | buttons.Discard | buttons.Cancel, self.window)
        box.setInformativeText("Your changes are lost if you don't save them.")
        box.setDefaultButton(buttons.Save)
        answer = box.exec()
        if answer == buttons.Save:
            return self.save()
        return answer == buttons.Discard

    # -- recent files -------------------------------------------------------------
    def setting(self, key: str, default=""):
        """A setting as stored, or ``default`` when Qt cannot read it."""
        try:
            return self.settings.value(key, default)
        except (TypeError, ValueError, RuntimeError):
            return default

    def path_setting(self, key: str) -> Path | None:
        """A remembered file or folder: an absolute path, or None (anything else)."""
        v = self.setting(key, "")
        if not isinstance(v, str) or not v or "\0" in v or len(v) > 4096:
            return None
        p = Path(v)
        return p if p.is_absolute() else None  # (relative to some folder long left: nothing)

    def recent_files(self) -> list[str]:
        v = self.setting("recent", [])
        if isinstance(v, str):
            v = [v]
        if not isinstance(v, list):
            return []
        return [x for x in v[:100] if isinstance(x, str) and x and "\0" not in x
                and len(x) <= 4096 and Path(x).is_absolute()][:MAX_RECENT]

    def _add_recent(self, path: Path) -> None:
        p = str(absolute(path))
        items = [p] + [x for x in self.recent_files() if x != p]
        self.settings.setValue("recent", items[:MAX_RECENT])
        self.settings.setValue("last_dir", str(Path(p).parent))

    def _forget_recent(self, path: str | Path) -> None:
        p = str(absolute(path))
        self.settings.setValue("recent", [x for x in self.recent_files() if x != p])

    def _fill_recent(self) -> None:
        m = self.recent_menu
        m.clear()
        files = self.recent_files()
        for i, f in enumerate(files):
            a = m.addAction(f"&{i + 1} {Path(f).name}" if i < 9 else Path(f).name)
            a.setToolTip(f)
            a.setStatusTip(f)
            a.triggered.connect(lambda _=False, f=f: self.open_path(f))
        if not files:
            m.addAction("No recent files").setEnabled(False)
        else:
            m.addSeparator()
            m.addAction("Clear Recent Files").triggered.connect(
                lambda: self.settings.setValue("recent", []))

    def _fill_examples(self) -> None:
        problems = self.example_problems
        found = examples(problems)
        for ex in found:
            a = self.examples_menu.addAction(ex.title)
            a.setToolTip(ex.name)
            a.setStatusTip(ex.title)
            a.triggered.connect(lambda _=False, ex=ex: self.open_example(ex))
        if not found:
            self.examples_menu.addAction("No examples found").setEnabled(False)
        if not problems:
            return
        self.examples_menu.addSeparator()
        for message in problems:
            a = self.examples_menu.addAction(f"⚠ {message}")
            a.setToolTip(message)
            a.setStatusTip(message)
            a.setEnabled(False)
        # on the status bar too, once the window is listening (it connects after this)
        summary = (problems[0] if len(problems) == 1 else
                   f"{len(problems)} examples skipped: " + "; ".join(problems[:2]))
        QTimer.singleShot(0, self, lambda: self.messageShown.emit(summary))

    def _last_dir(self) -> Path:
        d = self.path_setting("last_dir")
        return d if d is not None and d.is_dir() else Path.home()

    # -- session -------------------------------------------------------------------
    def save_session(self) -> None:
        """Remember the scenario (and its file, absolute, as last read or written) for the
        next launch."""
        doc = self.doc
        self.settings.setValue("session/scenario", doc.scenario.to_json())
        self.settings.setValue("session/path", str(absolute(doc.path)) if doc.path else "")
        self.settings.setValue("session/stamp", json.dumps(doc.stamp) if doc.path else "")
        self.settings.sync()

    def restore_session(self) -> bool:
        """Bring back the last session's scenario; False when there is none (first launch)."""
        text = self.setting("session/scenario", "")
        if not isinstance(text, str) or not text or len(text) > MAX_SCENARIO_BYTES:
            return False
        try:
            sc = Scenario.from_json(text, "last session")
        except (ModelError, ValueError, RecursionError) as e:  # (whatever the settings hold)
            self.messageShown.emit(f"Could not restore the last session: {e}")
            return False
        path, stamp = self._session_file()
        modified = False
        if path is not None:
            remove_stale_temps(path)  # (what a save killed last time left beside it)
            try:
                modified = load_scenario(path).to_dict() != sc.to_dict()
            except ModelError:
                path, modified = None, False
        if path is not None and stamp is None and not modified:
            stamp = file_stamp(path)  # (the same scenario: nothing to lose by overwriting it)
        self.doc.load(sc, path, modified=modified, stamp=stamp)
        return True

    def _session_file(self) -> tuple[Path | None, dict | None]:
        """The last session's file (only if remembered absolute) and its recorded stamp."""
        path = self.path_setting("session/path")
        if path is None:
            return None, None  # (a path relative to some earlier folder names no file for sure)
        stamp_s = self.setting("session/stamp", "")
        try:
            stamp = json.loads(stamp_s) if isinstance(stamp_s, str) and len(stamp_s) < 1000 else None
        except (ValueError, RecursionError):
            stamp = None
        return path, stamp if isinstance(stamp, dict) else None
