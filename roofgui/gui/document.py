"""The scenario document: one :class:`Scenario`, its file, undo/redo and the session.

* :class:`ScenarioDocument` holds the scenario.  Widgets never change it in
  place: they call :meth:`ScenarioDocument.edit` with a function that changes a
  copy; the document pushes an undo command holding the before and after
  snapshots and emits :attr:`ScenarioDocument.changed`.  Consecutive edits of
  one field (a burst of keystrokes) merge into one undo step until
  :meth:`ScenarioDocument.seal` is called (the field lost focus, another field
  was edited).
* :class:`DocumentController` owns the File and Edit actions (New, Open,
  Open Recent, Examples, Save, Save As, Undo, Redo), the dialogs they need,
  asking about unsaved changes, and the session kept in :func:`app_settings`.
"""

from __future__ import annotations

import copy
import dataclasses
import logging
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Callable

from PySide6.QtCore import QObject, QSettings, QTimer, Signal
from PySide6.QtGui import QAction, QKeySequence, QUndoCommand, QUndoStack
from PySide6.QtWidgets import QFileDialog, QMenu, QMessageBox, QWidget

from roofgui.model.errors import ModelError, ScenarioError
from roofgui.model.paths import shipped_path, user_data_dir
from roofgui.model.scenario import (OpSpec, Scenario, ShardSpec, SweepSpec, ViewSpec, WhatIf,
                              default_scenario, load_scenario, save_scenario)

MAX_RECENT = 10
#: Undo steps kept: enough for any session, and a window left open for days stays the same size.
MAX_UNDO = 1000
FILE_FILTER = "Roofline scenarios (*.json);;All files (*)"

log = logging.getLogger(__name__)


def app_settings() -> QSettings:
    """The app's settings, as an INI file in the user data directory (so ``ROOFGUI_HOME`` isolates it)."""
    path = user_data_dir() / "settings.ini"
    return QSettings(str(path), QSettings.Format.IniFormat)


# -- examples -----------------------------------------------------------------

@dataclass(frozen=True)
class Example:
    name: str       # file name
    title: str      # the question it answers
    text: str       # the JSON


def examples(problems: list[str] | None = None) -> list[Example]:
    """The bundled example scenarios, from the installed package or the checkout.

    An example that cannot be read or is not a valid scenario is left out; it is
    logged, and described in ``problems`` (one line each) when a list is given, so
    that the window can say so rather than drop it silently.
    """
    files: list = []
    here = shipped_path("resources", "examples")  # (beside the modules: no importlib needed)
    if here is not None and here.is_dir():
        files = [e for e in here.iterdir() if e.name.endswith(".json")]
    if not files:
        try:
            root = resources.files("roofgui") / "resources" / "examples"
            if root.is_dir():
                files = [e for e in root.iterdir() if e.name.endswith(".json")]
        except (ModuleNotFoundError, FileNotFoundError, NotADirectoryError, OSError):
            files = []
    if not files:
        checkout = Path(__file__).resolve().parents[2] / "resources" / "examples"
        if checkout.is_dir():
            files = list(checkout.glob("*.json"))
    out = []
    for f in sorted(files, key=lambda e: e.name):
        try:
            text = f.read_text(encoding="utf-8")
            title = Scenario.from_json(text, f.name).title or f.name
        except (ModelError, OSError, UnicodeDecodeError) as e:
            if isinstance(e, UnicodeDecodeError):
                why = "not a text file (not valid UTF-8)"
            elif isinstance(e, OSError):
                why = f"cannot read: {e.strerror or e}"
            elif isinstance(e, ScenarioError):  # (its text starts with the file name again)
                why = f"{e.key}: {e.problem}" if e.key else e.problem
            else:
                why = str(e)
            message = f"Example {f.name} skipped: {why}"
            log.warning("%s", message)
            if problems is not None:
                problems.append(message)
            continue
        out.append(Example(f.name, title, text))
    return out


# -- the document ----------------------------------------------------------------

class _Snapshot(QUndoCommand):
    """An edit: the scenario before and after.  Undo and redo restore a snapshot."""

    def __init__(self, doc: "ScenarioDocument", before: Scenario, after: Scenario, text: str,
                 key: str | None, seal: int, origin: object) -> None:
        super().__init__(text)
        self.doc = doc
        self.before = before
        self.after = after
        self.key = key
        self.seal = seal
        self.origin = origin
        self._first = True

    def id(self) -> int:  # noqa: A003 - Qt API
        return 1 if self.key else -1

    def mergeWith(self, other: QUndoCommand) -> bool:  # noqa: N802 - Qt API
        if not isinstance(other, _Snapshot) or other.key != self.key or other.seal != self.seal:
            return False
        self.after = other.after
        if _same(self.after, self.before):
            self.setObsolete(True)
        return True

    def redo(self) -> None:
        origin = self.origin if self._first else None
        self._first = False
        self.doc._restore(self.after, origin)

    def undo(self) -> None:
        self.doc._restore(self.before, None)


_KNOWN_FIELDS = {"title", "ops", "chips", "what_if", "derate", "sweep", "view", "selected"}
_KNOWN_OP_FIELDS = {"name", "kind", "dims", "dtypes", "shard", "params"}
_KNOWN_PARTS = {ShardSpec: {"axis", "n", "link"}, WhatIf: {"peak", "hbm", "link"},
                SweepSpec: {"dim", "start", "stop", "points", "y"}, ViewSpec: {"roofline"}}
#: Whether the classes still have the fields the fast copies below rebuild (else: deepcopy).
_FAST_COPY = ({f.name for f in dataclasses.fields(Scenario)} == _KNOWN_FIELDS
              and {f.name for f in dataclasses.fields(OpSpec)} == _KNOWN_OP_FIELDS
              and all({f.name for f in dataclasses.fields(c)} == names
                      for c, names in _KNOWN_PARTS.items()))
#: Values a flat copy of a dictionary may share (immutable).
_ATOMS = frozenset({str, int, float, bool, type(None)})


def _copy_params(params: dict) -> dict:
    """An op's parameters: numbers and strings, whose flat copy is a deep one (else deepcopy)."""
    for v in params.values():
        if type(v) not in _ATOMS:
            return copy.deepcopy(params)
    return dict(params)


def copy_op(op: OpSpec) -> OpSpec:
    """A deep copy of an op, about ten times faster than ``copy.deepcopy`` (see :func:`copy_scenario`)."""
    shard = op.shard
    if not _FAST_COPY or type(op) is not OpSpec or (shard is not None and type(shard) is not ShardSpec):
        return copy.deepcopy(op)
    return OpSpec(name=op.name, kind=op.kind, dims=dict(op.dims), dtypes=dict(op.dtypes),
                  shard=None if shard is None else ShardSpec(axis=shard.axis, n=shard.n, link=shard.link),
                  params=_copy_params(op.params))


def _copy_view(view: ViewSpec) -> ViewSpec:
    if not _FAST_COPY or type(view) is not ViewSpec:
        return copy.deepcopy(view)
    return ViewSpec(roofline=None if view.roofline is None else list(view.roofline))


def copy_scenario(sc: Scenario) -> Scenario:
    """A deep copy, several times faster than ``copy.deepcopy`` (it runs on every edit).

    Falls back to ``deepcopy`` if the scenario has grown fields, or holds objects, this copy
    does not know.
    """
    wi, sw = sc.what_if, sc.sweep
    if not _FAST_COPY or type(sc) is not Scenario or type(wi) is not WhatIf or type(sw) is not SweepSpec:
        return copy.deepcopy(sc)
    return Scenario(title=sc.title, ops=[copy_op(op) for op in sc.ops], chips=list(sc.chips),
                    what_if=WhatIf(peak=wi.peak, hbm=wi.hbm, link=wi.link), derate=sc.derate,
                    sweep=SweepSpec(dim=sw.dim, start=sw.start, stop=sw.stop, points=sw.points,
                                    y=sw.y),
                    view=_copy_view(sc.view), selected=sc.selected)


def _same(a: Scenario, b: Scenario) -> bool:
    return a == b  # dataclass equality, field by field


class ScenarioDocument(QObject):
    """The open scenario, its file path, and its undo stack.

    Signals
    -------
    changed(origin)
        The scenario changed.  ``origin`` is the object that made the edit, or
        None for undo, redo and loading (every view must then re-read it all).
    fileChanged()
        The path, the title or the modified flag changed (window title).
    """

    changed = Signal(object)
    fileChanged = Signal()
    replaced = Signal()  # a new scenario was loaded (New, Open, example, restore)

    def __init__(self, scenario: Scenario | None = None, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._scenario = scenario if scenario is not None else default_scenario()
        self.path: Path | None = None
        self._forced_dirty = False
        self._seal = 0
        self.undo_stack = QUndoStack(self)
        self.undo_stack.setUndoLimit(MAX_UNDO)
        self.undo_stack.cleanChanged.connect(self._on_clean_changed)

    def _on_clean_changed(self, _clean: bool) -> None:
        self.fileChanged.emit()

    # -- reading -------------------------------------------------------------
    @property
    def scenario(self) -> Scenario:
        """The current scenario.  Treat it as read-only: change it with :meth:`edit`."""
        return self._scenario

    def is_modified(self) -> bool:
        return self._forced_dirty or not self.undo_stack.isClean()

    def display_name(self) -> str:
        if self.path is not None:
            return self.path.name
        return self._scenario.title or "Untitled"

    # -- editing -------------------------------------------------------------
    def edit(self, text: str, change: Callable[[Scenario], None], *, key: str | None = None,
             origin: object = None) -> bool:
        """Apply ``change`` to a copy of the scenario and push it as one undoable step.

        Returns False (and changes nothing) when the edit changed nothing.
        """
        before = self._scenario
        after = copy_scenario(before)
        change(after)
        if after == before:
            return False
        if key is None:
            self.seal()
        self.undo_stack.push(_Snapshot(self, before, after, text, key, self._seal, origin))
        return True

    def seal(self) -> None:
        """End merging: the next edit of the same field is a new undo step."""
        self._seal += 1

    def set_view(self, rng: list[float] | None) -> None:
        """The plot's zoom: kept in the document (and saved), but not an undoable edit."""
        self._scenario.view.roofline = None if rng is None else [float(v) for v in rng]

    def set_selected(self, index: int, origin: object = None) -> None:
        """Which op the form and the results show: not an undoable edit."""
        index = max(0, min(index, len(self._scenario.ops) - 1))
        if index != self._scenario.selected:
            self._scenario.selected = index
            self.changed.emit(origin)

    def _restore(self, snapshot: Scenario, origin: object) -> None:
        # Snapshots are never changed: an edit changes a deep copy.  Only ``selected``
        # and ``view`` are set in place (not undoable), so a shallow copy with its own
        # view keeps the snapshot intact; zooming is not undone by an edit's undo.
        retitled = snapshot.title != self._scenario.title
        view = _copy_view(self._scenario.view)
        if _FAST_COPY and type(snapshot) is Scenario:  # (copy.copy is a few times slower)
            s = snapshot
            self._scenario = Scenario(title=s.title, ops=s.ops, chips=s.chips, what_if=s.what_if,
                                      derate=s.derate, sweep=s.sweep, view=view, selected=s.selected)
        else:
            self._scenario = copy.copy(snapshot)
            self._scenario.view = view
        self.changed.emit(origin)
        # (the path is the same, and the modified flag changes after this, when the undo stack
        # moves: cleanChanged tells it; only the title can change the file's name shown)
        if retitled:
            self.fileChanged.emit()

    # -- whole documents ---------------------------------------------------------
    def load(self, scenario: Scenario, path: Path | None = None, *, modified: bool = False) -> None:
        """Replace the document (New, Open, an example, a restored session)."""
        self._scenario = scenario
        self.path = Path(path) if path is not None else None
        self.undo_stack.clear()
        self.undo_stack.setClean()
        self._forced_dirty = modified
        self.seal()
        self.replaced.emit()
        self.changed.emit(None)
        self.fileChanged.emit()

    def open(self, path: str | Path) -> None:
        """Read a scenario file; raises :class:`ScenarioError` naming the file and key."""
        self.load(load_scenario(path), Path(path))

    def save(self, path: str | Path | None = None) -> Path:
        """Write atomically to ``path`` (or the current path) and mark the document clean."""
        target = Path(path) if path is not None else self.path
        if target is None:
            raise ValueError("no path to save to")
        save_scenario(self._scenario, target)
        self.path = target
        self._forced_dirty = False
        self.undo_stack.setClean()
        self.seal()
        self.fileChanged.emit()
        return target


# -- the controller ---------------------------------------------------------------

class DocumentController(QObject):
    """File and Edit actions for a :class:`ScenarioDocument`, with its dialogs and session."""

    messageShown = Signal(str)  # a transient status message

    def __init__(self, doc: ScenarioDocument, parent_widget: QWidget) -> None:
        super().__init__(parent_widget)
        self.doc = doc
        self.window = parent_widget
        self.settings = app_settings()
        w = parent_widget

        def act(text: str, slot, shortcut=None, tip: str = "") -> QAction:
            a = QAction(text, w)
            if shortcut is not None:
                a.setShortcut(shortcut)
            if tip:
                a.setStatusTip(tip)
                a.setToolTip(tip)
            a.triggered.connect(slot)
            return a

        self.new_action = act("&New", self.new, QKeySequence.StandardKey.New,
                              "Start a new scenario (the reference's matmul on TPU v5e and H100)")
        self.open_action = act("&Open…", self.open_dialog, QKeySequence.StandardKey.Open,
                               "Open a scenario file")
        self.save_action = act("&Save", self.save, QKeySequence.StandardKey.Save,
                               "Save the scenario")
        self.save_as_action = act("Save &As…", self.save_as, QKeySequence("Ctrl+Shift+S"),
                                  "Save the scenario under a new name")
        self.undo_action = doc.undo_stack.createUndoAction(w, "&Undo")
        self.undo_action.setShortcuts([QKeySequence(QKeySequence.StandardKey.Undo)])
        self.redo_action = doc.undo_stack.createRedoAction(w, "&Redo")
        self.redo_action.setShortcuts([QKeySequence("Ctrl+Y"),
                                       QKeySequence(QKeySequence.StandardKey.Redo)])
        self.recent_menu = QMenu("Open &Recent", w)
        self.recent_menu.aboutToShow.connect(self._fill_recent)
        self.examples_menu = QMenu("&Examples", w)
        self.examples_menu.setToolTipsVisible(True)
        self._fill_examples()

    # -- actions ------------------------------------------------------------------
    def new(self) -> None:
        if self.maybe_save():
            self.doc.load(default_scenario())
            self.messageShown.emit("New scenario")

    def open_dialog(self) -> None:
        if not self.maybe_save():
            return
        start = str(self.doc.path.parent) if self.doc.path else str(self._last_dir())
        path, _ = QFileDialog.getOpenFileName(self.window, "Open scenario", start, FILE_FILTER)
        if path:
            self.open_path(path, ask=False)

    def open_path(self, path: str | Path, ask: bool = True) -> bool:
        if ask and not self.maybe_save():
            return False
        try:
            self.doc.open(path)
        except ModelError as e:
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
        return self._save_to(self.doc.path)

    def save_as(self) -> bool:
        start = self.doc.path or (self._last_dir() / _suggest_name(self.doc.scenario))
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
        box = QMessageBox(QMessageBox.Icon.Warning, "Unsaved changes",
                          f"Save the changes to “{self.doc.display_name()}” before closing it?",
                          QMessageBox.StandardButton.Save | QMessageBox.StandardButton.Discard
                          | QMessageBox.StandardButton.Cancel, self.window)
        box.setInformativeText("Your changes are lost if you don't save them.")
        box.setDefaultButton(QMessageBox.StandardButton.Save)
        answer = box.exec()
        if answer == QMessageBox.StandardButton.Save:
            return self.save()
        return answer == QMessageBox.StandardButton.Discard

    # -- recent files -------------------------------------------------------------
    def recent_files(self) -> list[str]:
        v = self.settings.value("recent", [])
        if isinstance(v, str):
            v = [v]
        return [str(x) for x in (v or []) if isinstance(x, str)][:MAX_RECENT]

    def _add_recent(self, path: Path) -> None:
        p = str(Path(path).resolve())
        items = [p] + [x for x in self.recent_files() if x != p]
        self.settings.setValue("recent", items[:MAX_RECENT])
        self.settings.setValue("last_dir", str(Path(p).parent))

    def _forget_recent(self, path: str | Path) -> None:
        p = str(Path(path).resolve())
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
            a = m.addAction("No recent files")
            a.setEnabled(False)
        else:
            m.addSeparator()
            m.addAction("Clear Recent Files").triggered.connect(
                lambda: self.settings.setValue("recent", []))

    def _fill_examples(self) -> None:
        problems: list[str] = []
        found = examples(problems)
        for ex in found:
            a = self.examples_menu.addAction(ex.title)
            a.setToolTip(ex.name)
            a.setStatusTip(ex.title)
            a.triggered.connect(lambda _=False, ex=ex: self.open_example(ex))
        if not found:
            self.examples_menu.addAction("No examples found").setEnabled(False)
        #: Examples left out (each names the file and the problem), also shown in the menu.
        self.example_problems = problems
        if problems:
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
        d = self.settings.value("last_dir", "")
        if isinstance(d, str) and d and Path(d).is_dir():
            return Path(d)
        return Path.home()

    # -- session -------------------------------------------------------------------
    def save_session(self) -> None:
        """Remember the scenario (and its file) for the next launch."""
        self.settings.setValue("session/scenario", self.doc.scenario.to_json())
        self.settings.setValue("session/path", str(self.doc.path) if self.doc.path else "")
        self.settings.sync()

    def restore_session(self) -> bool:
        """Bring back the last session's scenario; False when there is none (first launch)."""
        text = self.settings.value("session/scenario", "")
        if not isinstance(text, str) or not text:
            return False
        try:
            sc = Scenario.from_json(text, "last session")
        except ModelError as e:
            self.messageShown.emit(f"Could not restore the last session: {e}")
            return False
        path_s = self.settings.value("session/path", "")
        path = Path(path_s) if isinstance(path_s, str) and path_s else None
        modified = False
        if path is not None:
            try:
                on_disk = load_scenario(path)
                modified = on_disk.to_dict() != sc.to_dict()
            except ModelError:
                path, modified = None, False
        self.doc.load(sc, path, modified=modified)
        return True


def _suggest_name(sc: Scenario) -> str:
    base = "".join(c if c.isalnum() or c in "-_ " else " " for c in (sc.title or "scenario"))
    base = "-".join(base.lower().split())[:60] or "scenario"
    return base + ".json"
