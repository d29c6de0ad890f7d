"""The scenario document: one :class:`Scenario`, its file and undo/redo.

Widgets never change the scenario in place: they call :meth:`ScenarioDocument.edit` with
a function that changes a copy and the part of the scenario it changes; the document
pushes an undo command holding the before and after snapshots and emits
:attr:`ScenarioDocument.changed` with that part.  Each view has one handler that re-syncs
only for the parts it shows.  Consecutive edits of one field (a burst of keystrokes) merge
into one undo step until :meth:`ScenarioDocument.seal` is called (the field lost focus,
another field was edited).
"""

from __future__ import annotations

import copy
import dataclasses
import hashlib
import os
import stat
from pathlib import Path
from typing import Callable

from PySide6.QtCore import QObject, QSettings, Signal
from PySide6.QtGui import QUndoCommand, QUndoStack

from roofgui.model.paths import MAX_READ_BYTES, read_regular_file, user_data_dir
from roofgui.model.scenario import (VIEW_LIMIT, Scenario, default_scenario, load_scenario,
                                    save_scenario, view_in_range)

#: Undo steps kept: enough for any session, and a window left open for days stays the same size.
MAX_UNDO = 1000

# The parts of a scenario an edit changes (the ``part`` of :attr:`ScenarioDocument.changed`).
TITLE = "title"
OPS = "ops"            # the list of ops: added, removed, moved, renamed, another kind
SELECTED = "selected"  # which op the form and the results show
CHIPS = "chips"        # the checked chips (or a checked chip's figures)
WHAT_IF = "what_if"    # the what-if multipliers and derating
SWEEP = "sweep"
ALL = "all"            # loading, undo and redo: every view re-reads everything


def op_part(index: int) -> str:
    """The part for an edit of one op's fields (dimensions, parameters, dtypes, sharding)."""
    return f"op:{index}"


def absolute(path: str | Path) -> Path:
    """A path as remembered: absolute and resolved (never relative to the folder the app
    happened to start in)."""
    return Path(path).expanduser().resolve()


def file_stamp(path: str | Path) -> dict | None:
    """What a file is now (size, modification time, SHA-256 of its content), to tell later
    whether it changed; None when it is not there or not a regular file that can be read."""
    try:
        raw = read_regular_file(path)
        st = os.stat(path)
    except OSError:
        return None
    return {"size": st.st_size, "mtime_ns": st.st_mtime_ns,
            "sha256": hashlib.sha256(raw).hexdigest()}


def app_settings() -> QSettings:
    """The app's settings, as an INI file in the user data directory (so ``ROOFGUI_HOME`` isolates it)."""
    path = user_data_dir() / "settings.ini"
    set_aside_if_unreadable(path)
    return QSettings(str(path), QSettings.Format.IniFormat)


def set_aside_if_unreadable(path: Path) -> None:
    """Rename a file the app keeps (its settings) to ``*.unreadable`` when it is no regular
    file of a readable size (a FIFO, a link to ``/dev/zero``): read, it would hang the app
    or fill its memory.  A fresh one is made in its place."""
    try:
        st = os.stat(path)
    except (OSError, ValueError):
        return  # (none yet)
    if stat.S_ISREG(st.st_mode) and st.st_size <= MAX_READ_BYTES:
        return
    try:
        os.replace(path, path.with_name(path.name + ".unreadable"))
    except OSError:
        pass


class EditCommand(QUndoCommand):
    """An edit: the scenario before and after.  Undo and redo restore a snapshot."""

    def __init__(self, doc: "ScenarioDocument", before: Scenario, after: Scenario, text: str,
                 part: str, key: str | None, seal: int, origin: object) -> None:
        super().__init__(text)
        self.doc = doc
        self.before = before
        self.after = after
        self.part = part
        self.key = key
        self.seal = seal
        self.origin = origin
        self.first = True  # its first redo is the edit itself, told as made by its origin

    def id(self) -> int:  # noqa: A003 - Qt API
        return 1 if self.key else -1

    def mergeWith(self, other: QUndoCommand) -> bool:  # noqa: N802 - Qt API
        if not isinstance(other, EditCommand) or other.key != self.key or other.seal != self.seal:
            return False
        self.after = other.after
        if self.after == self.before:
            self.setObsolete(True)
        return True

    def redo(self) -> None:
        if self.first:
            self.first = False
            self.doc.restore(self.after, self.part, self.origin)
        else:
            self.doc.restore(self.after, ALL, None)

    def undo(self) -> None:
        self.doc.restore(self.before, ALL, None)


class ScenarioDocument(QObject):
    """The open scenario, its file path, and its undo stack.

    Signals
    -------
    changed(part, origin)
        The scenario changed.  ``part`` says which part (:data:`TITLE`, :data:`OPS`,
        :func:`op_part`, :data:`SELECTED`, :data:`CHIPS`, :data:`WHAT_IF`, :data:`SWEEP`,
        or :data:`ALL` for loading, undo and redo); ``origin`` is the object that made the
        edit, or None.
    fileChanged()
        The path, the title or the modified flag changed (window title).
    replaced()
        A new scenario was loaded (New, Open, an example, a restored session).
    """

    changed = Signal(str, object)
    fileChanged = Signal()
    replaced = Signal()

    def __init__(self, scenario: Scenario | None = None, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._scenario = scenario if scenario is not None else default_scenario()
        self.path: Path | None = None
        #: the file at :attr:`path` as last read or written (:func:`file_stamp`); None: unknown
        self.stamp: dict | None = None
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

    def file_changed_on_disk(self) -> bool:
        """Whether the document's file is not as the document last read or wrote it (changed
        by another program, gone, or not known: a document restored without a record)."""
        return self.path is not None and (self.stamp is None or file_stamp(self.path) != self.stamp)

    # -- editing -------------------------------------------------------------
    def edit(self, text: str, change: Callable[[Scenario], None], *, part: str = ALL,
             key: str | None = None, origin: object = None) -> bool:
        """Apply ``change`` to a copy of the scenario and push it as one undoable step.

        ``part`` is the part of the scenario it changes; ``key`` names the field, so that
        a burst of keystrokes in it merges into one step.  Returns False (and changes
        nothing) when the edit changed nothing.
        """
        before = self._scenario
        after = copy.deepcopy(before)
        change(after)
        if after == before:
            return False
        if key is None:
            self.seal()
        self.undo_stack.push(EditCommand(self, before, after, text, part, key, self._seal, origin))
        return True

    def seal(self) -> None:
        """End merging: the next edit of the same field is a new undo step."""
        self._seal += 1

    def set_view(self, rng: list[float] | None) -> None:
        """The plot's zoom: kept in the document (and saved), but not an undoable edit."""
        lim = VIEW_LIMIT
        roofline = None if rng is None else [min(max(float(v), -lim), lim) for v in rng]
        if roofline is not None and not view_in_range(roofline):
            roofline = None  # (not a view a plot can show: fit when reopened)
        # (a new view: the one replaced may be shared with an undo snapshot)
        self._scenario.view = dataclasses.replace(self._scenario.view, roofline=roofline)

    def set_tab(self, tab: str | None) -> None:
        """The plot on show: kept in the document (and saved), not an undoable edit."""
        self._scenario.view = dataclasses.replace(self._scenario.view, tab=tab)

    def set_selected(self, index: int, origin: object = None) -> None:
        """Which op the form and the results show: not an undoable edit."""
        index = max(0, min(index, len(self._scenario.ops) - 1))
        if index != self._scenario.selected:
            self._scenario.selected = index
            self.changed.emit(SELECTED, origin)

    def notify(self, part: str, origin: object = None) -> None:
        """Tell the views that something the scenario refers to changed (a custom chip's
        figures, say), though the scenario itself did not."""
        self.changed.emit(part, origin)

    def restore(self, snapshot: Scenario, part: str, origin: object) -> None:
        """Make a snapshot the scenario (undo and redo); the zoom is not undone."""
        # Snapshots never change: only the selected op and the zoom are set (not undoable),
        # on the scenario itself, so a shallow copy holding the current zoom keeps them intact.
        retitled = snapshot.title != self._scenario.title
        self._scenario = dataclasses.replace(snapshot, view=self._scenario.view)
        self.changed.emit(part, origin)
        if retitled:
            self.fileChanged.emit()

    # -- whole documents ---------------------------------------------------------
    def load(self, scenario: Scenario, path: Path | None = None, *, modified: bool = False,
             stamp: dict | None = None) -> None:
        """Replace the document (New, Open, an example, a restored session).  ``stamp``: its
        file as the document last knew it (:func:`file_stamp`; None: not known)."""
        self._scenario = scenario
        self.path = absolute(path) if path is not None else None
        self.stamp = stamp if path is not None else None
        self.undo_stack.clear()
        self.undo_stack.setClean()
        self._forced_dirty = modified
        self.seal()
        self.replaced.emit()
        self.changed.emit(ALL, None)
        self.fileChanged.emit()

    def open(self, path: str | Path) -> None:
        """Read a scenario file; raises :class:`ScenarioError` naming the file and key."""
        sc = load_scenario(path)
        self.load(sc, Path(path), stamp=file_stamp(path))

    def save(self, path: str | Path | None = None) -> Path:
        """Write atomically to ``path`` (or the current path) and mark the document clean."""
        target = absolute(path) if path is not None else self.path
        if target is None:
            raise ValueError("no path to save to")
        save_scenario(self._scenario, target)
        self.path = target
        self.stamp = file_stamp(target)
        self._forced_dirty = False
        self.undo_stack.setClean()
        self.seal()
        self.fileChanged.emit()
        return target
