"""Unexpected errors: log them, show them, keep running.

:func:`install_excepthook` replaces :data:`sys.excepthook` (and
:data:`threading.excepthook`) with an :class:`ErrorReporter`.  An exception that
escapes a slot, an event handler or a worker thread is then

1. printed to stderr as usual (for whoever started the app from a terminal),
2. appended to ``roofgui.log`` in :func:`roofgui.model.paths.user_log_dir`,
3. shown in a non-modal :class:`ErrorDialog` with the details, a *Copy details*
   button and the log file's location,

and the app carries on: the hook never raises, never quits and never blocks the
event loop.  Further errors while the dialog is open are added to it rather than
opening more windows, and an error that repeats (a paint handler failing on every
frame, say) is logged in full only a few times and counted after that.

Other modules can be told about every error with :func:`add_error_listener`
(e.g. to flush an autosave); a listener that fails is ignored.
"""

from __future__ import annotations

import datetime as _dt
import os
import platform
import sys
import threading
import traceback
from pathlib import Path
from types import TracebackType
from typing import Callable

from PySide6 import QtCore, QtGui, QtWidgets

from roofgui.model.paths import user_log_dir

LOG_NAME = "roofgui.log"
#: When the log grows past this, it is renamed to ``roofgui.log.1`` (one generation kept).
MAX_LOG_BYTES = 1_000_000
#: An identical error (same type and raising line) is logged in full this many times...
FULL_REPORTS_PER_SIGNATURE = 3
#: ...and after that only every this many occurrences, as a one-line count.
COUNT_EVERY = 100

ExcInfo = tuple[type[BaseException], BaseException, TracebackType | None]
Listener = Callable[[type[BaseException], BaseException, "TracebackType | None"], None]

_listeners: list[Listener] = []


def log_file() -> Path:
    """The log file unexpected errors are written to."""
    return user_log_dir() / LOG_NAME


def add_error_listener(fn: Listener) -> None:
    """Call ``fn(exc_type, exc, tb)`` for every unexpected error (after it is logged)."""
    if fn not in _listeners:
        _listeners.append(fn)


def remove_error_listener(fn: Listener) -> None:
    if fn in _listeners:
        _listeners.remove(fn)


def _versions() -> str:
    from roofgui import __version__

    parts = [f"roofgui {__version__}", f"Python {platform.python_version()}",
             f"{platform.system()} {platform.release()} {platform.machine()}"]
    try:
        import PySide6

        parts.append(f"PySide6 {PySide6.__version__} (Qt {QtCore.qVersion()})")
    except Exception:  # pragma: no cover - PySide6 is imported above
        pass
    app = QtCore.QCoreApplication.instance()
    if isinstance(app, QtGui.QGuiApplication):
        parts.append(f"platform {app.platformName()}")
    return ", ".join(parts)


def format_report(exc_type: type[BaseException], exc: BaseException,
                  tb: TracebackType | None, context: str = "") -> str:
    """The text written to the log and shown under *Details*."""
    stamp = _dt.datetime.now().astimezone().isoformat(timespec="seconds")
    lines = [f"=== {stamp} unexpected error{(' in ' + context) if context else ''}",
             _versions()]
    lines += [l.rstrip("\n") for l in traceback.format_exception(exc_type, exc, tb)]
    return "\n".join(lines) + "\n"


def one_line(exc_type: type[BaseException], exc: BaseException) -> str:
    msg = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    name = getattr(exc_type, "__name__", str(exc_type))
    return f"{name}: {msg}" if msg else name


def write_log(text: str) -> Path | None:
    """Append ``text`` to the log (rotating it if large).  Never raises; None on failure."""
    path = log_file()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        try:
            if path.stat().st_size > MAX_LOG_BYTES:
                os.replace(path, path.with_name(LOG_NAME + ".1"))
        except FileNotFoundError:
            pass
        with open(path, "a", encoding="utf-8", errors="replace") as f:
            f.write(text)
            if not text.endswith("\n"):
                f.write("\n")
        return path
    except OSError:
        return None


def _signature(exc_type: type[BaseException], tb: TracebackType | None) -> tuple:
    """Type plus the innermost frame that raised: 'the same error again'."""
    last = None
    while tb is not None:
        last = tb
        tb = tb.tb_next
    where = (last.tb_frame.f_code.co_filename, last.tb_lineno) if last is not None else None
    return (getattr(exc_type, "__qualname__", str(exc_type)), where)


class ErrorDialog(QtWidgets.QDialog):
    """Non-modal: what happened, where the details were logged, and the details."""

    def __init__(self, summary: str, details: str, log_path: Path | None,
                 parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("errorDialog")
        self.setWindowTitle("Unexpected error — Roofline Explorer")
        self.setModal(False)
        self.setWindowModality(QtCore.Qt.WindowModality.NonModal)
        self.setAttribute(QtCore.Qt.WidgetAttribute.WA_DeleteOnClose, False)
        self._count = 0
        self._log_path = log_path

        icon = QtWidgets.QLabel()
        icon.setPixmap(self.style().standardIcon(
            QtWidgets.QStyle.StandardPixmap.SP_MessageBoxWarning).pixmap(40, 40))
        icon.setAlignment(QtCore.Qt.AlignmentFlag.AlignTop)
        self.summary_label = QtWidgets.QLabel()
        self.summary_label.setObjectName("errorSummary")
        self.summary_label.setWordWrap(True)
        self.summary_label.setTextInteractionFlags(QtCore.Qt.TextInteractionFlag.TextSelectableByMouse)
        self.log_label = QtWidgets.QLabel()
        self.log_label.setObjectName("errorLogPath")
        self.log_label.setWordWrap(True)
        self.log_label.setTextInteractionFlags(QtCore.Qt.TextInteractionFlag.TextSelectableByMouse)
        self.details = QtWidgets.QPlainTextEdit()
        self.details.setObjectName("errorDetails")
        self.details.setReadOnly(True)
        self.details.setLineWrapMode(QtWidgets.QPlainTextEdit.LineWrapMode.NoWrap)
        self.details.setFont(QtGui.QFontDatabase.systemFont(QtGui.QFontDatabase.SystemFont.FixedFont))
        self.details.setMinimumSize(560, 220)

        buttons = QtWidgets.QDialogButtonBox()
        self.copy_button = buttons.addButton("Copy details", QtWidgets.QDialogButtonBox.ButtonRole.ActionRole)
        self.copy_button.clicked.connect(self.copy_details)
        self.folder_button = buttons.addButton("Open log folder", QtWidgets.QDialogButtonBox.ButtonRole.ActionRole)
        self.folder_button.clicked.connect(self.open_log_folder)
        self.folder_button.setEnabled(log_path is not None)
        close = buttons.addButton(QtWidgets.QDialogButtonBox.StandardButton.Close)
        close.clicked.connect(self.close)
        close.setDefault(True)

        top = QtWidgets.QHBoxLayout()
        top.addWidget(icon)
        text = QtWidgets.QVBoxLayout()
        text.addWidget(self.summary_label)
        text.addWidget(self.log_label)
        top.addLayout(text, 1)
        lay = QtWidgets.QVBoxLayout(self)
        lay.addLayout(top)
        lay.addWidget(self.details, 1)
        lay.addWidget(buttons)
        self.add_error(summary, details, log_path)

    @property
    def count(self) -> int:
        """How many errors this dialog shows."""
        return self._count

    def add_error(self, summary: str, details: str, log_path: Path | None = None) -> None:
        self._count += 1
        if log_path is not None:
            self._log_path = log_path
            self.folder_button.setEnabled(True)
        lead = ("Roofline Explorer hit an unexpected error. It is still running and you can "
                "carry on; if something looks wrong, save your work and restart it.")
        more = "" if self._count == 1 else f"\n\n{self._count} errors so far; the latest:"
        self.summary_label.setText(f"{lead}{more}\n\n{summary}")
        if self._log_path is not None:
            self.log_label.setText(f"The details were written to {self._log_path}")
        else:
            self.log_label.setText("The details could not be written to the log file.")
        if self.details.toPlainText():
            self.details.appendPlainText("")
        self.details.appendPlainText(details.rstrip("\n"))
        self.details.moveCursor(QtGui.QTextCursor.MoveOperation.End)

    def copy_details(self) -> None:
        QtGui.QGuiApplication.clipboard().setText(self.details.toPlainText())

    def open_log_folder(self) -> None:
        if self._log_path is not None:
            QtGui.QDesktopServices.openUrl(QtCore.QUrl.fromLocalFile(str(self._log_path.parent)))


class ErrorReporter(QtCore.QObject):
    """The installed hook.  Safe to call from any thread; the dialog opens on the GUI thread."""

    _post = QtCore.Signal(str, str, str)  # summary, details, log path ("" if none)

    def __init__(self, parent: QtCore.QObject | None = None, *, show_dialog: bool = True) -> None:
        super().__init__(parent)
        self.show_dialog = show_dialog
        self.dialog: ErrorDialog | None = None
        self.seen: dict[tuple, int] = {}
        self.handled = 0
        self._busy = threading.local()
        self._post.connect(self._on_post, QtCore.Qt.ConnectionType.QueuedConnection)
        self._previous_hook = sys.excepthook
        self._previous_thread_hook = threading.excepthook

    # -- hooks --------------------------------------------------------------
    def excepthook(self, exc_type, exc, tb) -> None:
        self.handle(exc_type, exc, tb)

    def thread_excepthook(self, args: threading.ExceptHookArgs) -> None:
        if args.exc_type is SystemExit:
            return
        name = args.thread.name if args.thread is not None else "a thread"
        self.handle(args.exc_type, args.exc_value, args.exc_traceback, context=f"thread {name}")

    def handle(self, exc_type, exc, tb, context: str = "") -> None:
        """Log and show one error.  Never raises."""
        if exc_type is None or issubclass(exc_type, KeyboardInterrupt):
            sys.__excepthook__(exc_type, exc, tb)
            return
        if getattr(self._busy, "on", False):  # the hook itself failed: plain traceback only
            sys.__excepthook__(exc_type, exc, tb)
            return
        self._busy.on = True
        try:
            self.handled += 1
            sig = _signature(exc_type, tb)
            n = self.seen.get(sig, 0) + 1
            self.seen[sig] = n
            summary = one_line(exc_type, exc)
            if n <= FULL_REPORTS_PER_SIGNATURE:
                details = format_report(exc_type, exc, tb, context)
                sys.stderr.write(details)
                path = write_log(details)
            else:
                if n % COUNT_EVERY:
                    return
                details = (f"=== {summary} — the same error again ({n} times so far); "
                           "the full report is above\n")
                path = write_log(details)
            for fn in list(_listeners):
                try:
                    fn(exc_type, exc, tb)
                except Exception:
                    pass
            if self.show_dialog:
                self._post.emit(summary, details, str(path) if path else "")
        except Exception:
            try:
                sys.__excepthook__(exc_type, exc, tb)
            except Exception:
                pass
        finally:
            self._busy.on = False

    # -- GUI thread -----------------------------------------------------------
    @QtCore.Slot(str, str, str)
    def _on_post(self, summary: str, details: str, path: str) -> None:
        log_path = Path(path) if path else None
        try:
            if self.dialog is not None and self.dialog.isVisible():
                self.dialog.add_error(summary, details, log_path)
            else:
                self.dialog = show_error_dialog(summary, details, log_path)
        except Exception:  # never let the error display itself become an error loop
            traceback.print_exc()

    def uninstall(self) -> None:
        if sys.excepthook == self.excepthook:
            sys.excepthook = self._previous_hook
        if threading.excepthook == self.thread_excepthook:
            threading.excepthook = self._previous_thread_hook


def show_error_dialog(summary: str, details: str, log_path: Path | None) -> ErrorDialog:
    """Open the (non-modal) error dialog and return it.  Tests may replace this."""
    dlg = ErrorDialog(summary, details, log_path)
    app = QtWidgets.QApplication.instance()
    if isinstance(app, QtGui.QGuiApplication) and not app.windowIcon().isNull():
        dlg.setWindowIcon(app.windowIcon())
    dlg.show()
    dlg.raise_()
    dlg.activateWindow()
    return dlg


_reporter: ErrorReporter | None = None


def install_excepthook(app: QtCore.QObject | None = None, *, show_dialog: bool = True) -> ErrorReporter:
    """Route unexpected exceptions (any thread) to the log and the error dialog.

    Idempotent: a second call replaces the first reporter.  Returns the reporter
    (``reporter.uninstall()`` restores the previous hooks).
    """
    global _reporter
    if _reporter is not None:
        _reporter.uninstall()
    parent = app if app is not None else QtCore.QCoreApplication.instance()
    _reporter = ErrorReporter(parent, show_dialog=show_dialog)
    sys.excepthook = _reporter.excepthook
    threading.excepthook = _reporter.thread_excepthook
    return _reporter


def current_reporter() -> ErrorReporter | None:
    return _reporter


def report_exception(exc: BaseException, context: str = "") -> None:
    """Report a caught exception the same way as an uncaught one (logged and shown)."""
    rep = _reporter or ErrorReporter(QtCore.QCoreApplication.instance())
    rep.handle(type(exc), exc, exc.__traceback__, context=context)
