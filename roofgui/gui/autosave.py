"""Autosave and crash recovery: the open scenario is never lost.

* Every change to the document (re)starts a short timer; when the edits pause (or at the
  latest :data:`MAX_DELAY_MS` after the first unsaved change) the scenario is written
  atomically to ``user_data_dir()/autosave/<session>.json``.  Only unsaved work is kept
  there: when the document is saved, or a clean scenario is loaded, the file is removed.
* Each running window holds ``autosave/<session>.lock`` (a :class:`QLockFile`, which records
  the process and is recognised as stale once that process is gone).  An autosave whose
  lock is free was left behind by a session that ended without closing: a crash.
* A clean exit (:meth:`Autosaver.finish`, from the window's close event) removes the file.
* At launch, :meth:`Autosaver.offer_restore` looks for autosaves of dead sessions and asks,
  newest first, whether to restore each (``QMessageBox.question``).  *Yes* loads it as an
  unsaved document (with its original file, if it had one); *No* deletes it.
* An unexpected error (:func:`roofgui.gui.errors_dialog.add_error_listener`) writes the
  autosave at once, so what the user made is on disk before anything else goes wrong.

Nothing here raises into the window: a directory that cannot be written is reported once
through :attr:`Autosaver.message` and the app carries on.
"""

from __future__ import annotations

import datetime as _dt
import json
import os
import time
import weakref
from dataclasses import dataclass
from pathlib import Path

from PySide6.QtCore import QLockFile, QObject, QTimer, Signal
from PySide6.QtWidgets import QMessageBox, QWidget

from roofgui.model.errors import ModelError
from roofgui.model.paths import (UnreadableFile, atomic_write, read_regular_file,
                                 remove_stale_temps, user_data_dir)
from roofgui.model.scenario import MAX_SCENARIO_BYTES, Scenario
from roofgui.gui.document import ScenarioDocument

FORMAT = "roofgui-autosave"
VERSION = 1
#: Quiet time after an edit before the autosave is written.
AUTOSAVE_DELAY_MS = 2000
#: Longest an unsaved change waits while edits keep coming.
MAX_DELAY_MS = 10000

#: Every session token made by this process: never offered back to it as a "crash".
_OWN_SESSIONS: set[str] = set()
#: Live autosavers, flushed when an unexpected error is reported.
_LIVE: "weakref.WeakSet[Autosaver]" = weakref.WeakSet()


def autosave_dir() -> Path:
    """Where autosaves live (inside the user data directory)."""
    return user_data_dir() / "autosave"


@dataclass
class Recovered:
    """An autosave left by a session that did not close (its lock is held while offered)."""

    file: Path
    lock: QLockFile | None
    scenario: Scenario
    path: Path | None       # the file the scenario had been opened from or saved to
    saved: str              # when it was autosaved (ISO 8601, local time)
    stamp: dict | None = None  # that file as the session last read or wrote it

    def name(self) -> str:
        if self.path is not None:
            return self.path.name
        return self.scenario.title or "Untitled"

    def when(self) -> str:
        try:
            return _dt.datetime.fromisoformat(self.saved).strftime("%Y-%m-%d %H:%M")
        except (TypeError, ValueError):
            return "an unknown time"

    def release(self) -> None:
        if self.lock is not None:
            self.lock.unlock()
            self.lock = None


def read_autosave(file: Path) -> Recovered:
    """Read one autosave file.

    Raises
    ------
    ModelError
        (a :class:`~roofgui.model.errors.ScenarioError`) naming the file, the key and the
        problem when it cannot be used.
    """
    from roofgui.model.errors import ScenarioError

    where = str(file)
    try:  # (only a regular file, of a scenario's size at most: never a FIFO or /dev/zero)
        text = read_regular_file(file, MAX_SCENARIO_BYTES).decode("utf-8")
    except UnreadableFile as e:
        raise ScenarioError(where, None, "cannot read: " + str(e).split(": ", 1)[-1]) from None
    except OSError as e:
        raise ScenarioError(where, None, f"cannot read: {e.strerror or e}") from None
    except UnicodeDecodeError:
        raise ScenarioError(where, None, "not a text file (not valid UTF-8)") from None
    try:
        data = json.loads(text)
    except (json.JSONDecodeError, RecursionError):
        raise ScenarioError(where, None, "not valid JSON") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise ScenarioError(where, "format", f"must be {FORMAT!r}")
    version = data.get("version")
    if isinstance(version, bool) or not isinstance(version, int) or not 1 <= version <= VERSION:
        raise ScenarioError(where, "version", f"must be {VERSION} (got {version!r})")
    sc = Scenario.from_dict(data.get("scenario"), where)
    p = data.get("path")
    saved = data.get("saved")
    stamp = data.get("stamp")
    # (only an absolute path: one relative to the crashed session's folder names no file for sure)
    path = Path(p) if isinstance(p, str) and p and Path(p).is_absolute() else None
    return Recovered(file, None, sc, path, saved if isinstance(saved, str) else "",
                     stamp if isinstance(stamp, dict) else None)


class Autosaver(QObject):
    """Keeps an autosave of a :class:`ScenarioDocument` while it has unsaved changes."""

    saved = Signal(str)     # the autosave file, after each write
    message = Signal(str)   # a problem worth a status-bar line
    _flush = Signal()       # save now: direct on the GUI thread, queued from any other

    def __init__(self, doc: ScenarioDocument, parent: QObject | None = None, *,
                 directory: Path | None = None, delay_ms: int = AUTOSAVE_DELAY_MS) -> None:
        super().__init__(parent)
        self.doc = doc
        self.directory = Path(directory) if directory is not None else autosave_dir()
        self.session = f"{os.getpid()}-{os.urandom(6).hex()}"  # (= secrets.token_hex(6))
        _OWN_SESSIONS.add(self.session)
        self.path = self.directory / f"{self.session}.json"
        self.writes = 0
        self._finished = False
        self._last_problem: str | None = None
        self._first_pending: float | None = None
        self._lock: QLockFile | None = None
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
            lock = QLockFile(str(self.directory / f"{self.session}.lock"))
            if lock.tryLock(0):
                self._lock = lock
        except OSError as e:
            self._problem(f"Autosave is off: cannot use {self.directory}: {e.strerror or e}")
        self.timer = QTimer(self)
        self.timer.setSingleShot(True)
        self.timer.setInterval(delay_ms)
        self.timer.timeout.connect(self.save_now)
        self._flush.connect(self.save_now)
        doc.changed.connect(self.schedule)
        doc.fileChanged.connect(self._on_file_changed)
        _LIVE.add(self)

    # -- saving -----------------------------------------------------------------------
    def schedule(self, *_args) -> None:
        """An edit: write the autosave once edits pause (or after MAX_DELAY_MS at most)."""
        if self._finished:
            return
        now = time.monotonic()
        if not self.timer.isActive():
            self._first_pending = now
            self.timer.start()
        elif self._first_pending is not None and (now - self._first_pending) * 1000 < MAX_DELAY_MS:
            self.timer.start()  # restart: still inside the longest wait

    def _on_file_changed(self) -> None:
        if self._finished:
            return
        if self.doc.is_modified():
            self.schedule()
        else:  # saved, or a clean document loaded: nothing left to lose
            self.timer.stop()
            self._remove()

    def save_now(self) -> Path | None:
        """Write the autosave now if there is unsaved work (else remove it).  Never raises."""
        self.timer.stop()
        self._first_pending = None
        if self._finished:
            return None
        try:
            if not self.doc.is_modified():
                self._remove()
                return None
            data = {"format": FORMAT, "version": VERSION, "session": self.session,
                    "pid": os.getpid(),
                    "saved": _dt.datetime.now().astimezone().isoformat(timespec="seconds"),
                    "path": str(self.doc.path) if self.doc.path is not None else None,
                    "stamp": self.doc.stamp if self.doc.path is not None else None,
                    "scenario": self.doc.scenario.to_dict()}
            atomic_write(self.path, json.dumps(data, indent=1, ensure_ascii=False) + "\n")
        except OSError as e:
            self._problem(f"Could not autosave to {self.path}: {e.strerror or e}")
            return None
        except (ValueError, TypeError) as e:  # a scenario that does not serialise: say so
            self._problem(f"Could not autosave: {e}")
            return None
        self._last_problem = None
        self.writes += 1
        self.saved.emit(str(self.path))
        return self.path

    def _remove(self) -> None:
        try:
            self.path.unlink(missing_ok=True)
        except OSError as e:
            self._problem(f"Could not remove the autosave {self.path}: {e.strerror or e}")

    def _problem(self, text: str) -> None:
        if text != self._last_problem:
            self._last_problem = text
            self.message.emit(text)

    def finish(self) -> None:
        """A clean exit: remove the autosave and the session lock."""
        if self._finished:
            return
        self._finished = True
        self.timer.stop()
        self._remove()
        if self._lock is not None:
            self._lock.unlock()
            self._lock = None
        _LIVE.discard(self)

    @property
    def finished(self) -> bool:
        return self._finished

    # -- recovery ----------------------------------------------------------------------
    def recoverable(self) -> list[Recovered]:
        """Autosaves of sessions that ended without closing, newest first, each locked.

        A file that cannot be read is renamed ``*.unreadable`` (kept for a human, not
        offered again) and reported through :attr:`message`.
        """
        found: list[Recovered] = []
        self.remove_stale_temps()
        try:
            files = sorted(self.directory.glob("*.json"))
        except OSError:
            return []
        for f in files:
            token = f.stem
            if token in _OWN_SESSIONS:
                continue  # this process's own (a window still open, or closed in this run)
            lock = QLockFile(str(self.directory / f"{token}.lock"))
            lock.setStaleLockTime(0)  # only a dead owner makes a lock stale, never its age
            if not lock.tryLock(0):
                continue  # another running instance owns it
            try:
                rec = read_autosave(f)
            except ModelError as e:
                lock.unlock()
                bad = f.with_name(f.name + ".unreadable")
                try:
                    os.replace(f, bad)
                except OSError:
                    bad = f
                self._problem(f"An autosave could not be restored ({e}); kept as {bad}")
                continue
            rec.lock = lock
            found.append(rec)
        found.sort(key=lambda r: (r.saved, r.file.name), reverse=True)
        return found

    def remove_stale_temps(self) -> list[Path]:
        """Delete what killed autosaves of sessions no longer running left (``.<token>.json.*.tmp``)."""
        gone: list[Path] = []
        try:
            temps = sorted(self.directory.glob(".*.json.*.tmp"))
        except OSError:
            return gone
        for token in dict.fromkeys(t.name[1:].split(".json.", 1)[0] for t in temps):
            if token in _OWN_SESSIONS or not token or "/" in token:
                continue
            lock = QLockFile(str(self.directory / f"{token}.lock"))
            lock.setStaleLockTime(0)
            if lock.tryLock(0):  # (its session is gone: nothing is writing them)
                gone += remove_stale_temps(self.directory / f"{token}.json")
                lock.unlock()
        return gone

    def offer_restore(self, parent: QWidget | None = None) -> bool:
        """Ask about each crashed session's autosave, newest first.  True if one was restored."""
        restored = False
        pending = self.recoverable()
        try:
            while pending:
                rec = pending.pop(0)
                text = (f"Roofline Explorer did not close properly last time. Restore "
                        f"“{rec.name()}” with the changes autosaved at {rec.when()}?\n\n"
                        "Yes opens it as an unsaved scenario; No deletes the autosaved copy.")
                answer = QMessageBox.question(
                    parent, "Restore unsaved work?", text,
                    QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No,
                    QMessageBox.StandardButton.Yes)
                if answer == QMessageBox.StandardButton.Yes:
                    self.doc.load(rec.scenario, rec.path, modified=True, stamp=rec.stamp)
                    if self.save_now() is not None or self._finished:
                        _unlink(rec.file)  # it lives on as this session's autosave
                    rec.release()
                    restored = True
                    break  # one document per window; any others are offered next launch
                _unlink(rec.file)
                rec.release()
        finally:
            for rec in pending:
                rec.release()
        return restored


def _unlink(p: Path) -> None:
    try:
        p.unlink(missing_ok=True)
    except OSError:
        pass


def _flush_on_error(exc_type, exc, tb) -> None:
    """Error listener: get unsaved work onto disk before anything else can go wrong."""
    for saver in list(_LIVE):
        try:
            saver._flush.emit()  # an error in a worker thread saves on the GUI thread
        except Exception:  # a deleted window, a broken document: nothing more to do
            pass


def _install_listener() -> None:
    try:
        from roofgui.gui.errors_dialog import add_error_listener
    except ImportError:  # pragma: no cover - the hook ships with the app
        return
    add_error_listener(_flush_on_error)


_install_listener()
