"""The window's entry point: ``roofgui`` with no sub-command (and ``roofgui-gui``).

:func:`main` checks, before Qt can abort the process, that a window can be
opened at all:

* no display (Linux/BSD: neither ``DISPLAY`` nor ``WAYLAND_DISPLAY`` set and no
  headless Qt platform asked for) → one message saying how to run headless or
  use ``roofgui analyze`` / ``roofgui export``; exit status 3
  (:mod:`roofgui.app.display`);
* system libraries Qt needs are missing (PySide6's modules fail to import, or
  the xcb platform plugin has unresolved libraries) → a message naming the
  Debian packages to install; exit status 4 (:mod:`roofgui.app.qtlibs`);
* anything else that makes Qt give up while creating the application (a
  ``DISPLAY`` nobody answers on, a broken plugin) is caught by a temporary Qt
  message handler, which prints the same kind of message instead of Qt's abort.

Then it creates the :class:`QApplication` (names, desktop file name, window
icon), installs the unexpected-error hook (:mod:`roofgui.gui.errors_dialog`)
and opens ``MainWindow(catalog=None, open_path=...)``.  ``--install-desktop``
and ``--uninstall-desktop`` manage the menu entry (:mod:`roofgui.app.desktop`).

Nothing here imports Qt at module level, so the checks run even when Qt cannot
be imported.
"""

from __future__ import annotations

import os
import sys
from typing import Sequence

from roofgui.app.desktop import (APP_ID, ICON_FILE, desktop_command,  # noqa: F401
                                 desktop_exec_arg, icon_path, install_desktop_entry,
                                 uninstall_desktop_entry)
from roofgui.app.display import HEADLESS_PLATFORMS, chosen_platform, display_problem, split_args
from roofgui.app.qtlibs import (EXIT_MISSING_LIBS, EXIT_NO_DISPLAY, StartupGuard,
                                import_qt_problem, missing_libs_message, xcb_missing_libs)

APP_NAME = "roofgui"
APP_DISPLAY_NAME = "Roofline Explorer"
ORG_NAME = "roofgui"
ORG_DOMAIN = "roofgui.github.io"

EXIT_STARTUP_FAILED = 1

USAGE = """\
usage: roofgui [SCENARIO.json] [Qt options, e.g. -platform offscreen]
       roofgui gui --install-desktop | --uninstall-desktop

Opens the Roofline Explorer window (optionally with a scenario file).
  --install-desktop    add Roofline Explorer to your desktop's application menu (the
                       .desktop entry, icon and AppStream metainfo under ~/.local/share)
  --uninstall-desktop  remove them again
For the command line (chips, show-chip, analyze, export) see: roofgui --help"""


def without_fill_threads() -> None:
    """Paint on the GUI thread alone: Qt hands every fill taller than ~96 rows (the legend's
    translucent background, the plots' cached layers, the region bands) to a pool of
    threads and waits for them, and a keystroke's repaint then waits for a core.  On this
    project's 2-core machine, with the other core busy, the legend's ``drawRect`` took
    0.1–5 ms with the pool and 20–30 µs without (same run); the roofline's keystroke p95
    fell with it.  Read by Qt when it first paints; a value the user set is kept."""
    os.environ.setdefault("QT_NO_GUI_THREADPOOL", "1")


def create_application(argv: Sequence[str] = ()):
    """The QApplication (reusing one that exists), named, with its icon and desktop file name."""
    from PySide6 import QtCore, QtGui, QtWidgets

    from roofgui import __version__

    app = QtWidgets.QApplication.instance()
    if app is None:
        without_fill_threads()
        guard = StartupGuard(argv)
        QtCore.qInstallMessageHandler(guard)
        try:
            app = QtWidgets.QApplication([sys.argv[0] if sys.argv and sys.argv[0] else APP_NAME, *argv])
        finally:
            QtCore.qInstallMessageHandler(None)
        guard.replay()
    QtCore.QCoreApplication.setOrganizationName(ORG_NAME)
    QtCore.QCoreApplication.setOrganizationDomain(ORG_DOMAIN)
    QtCore.QCoreApplication.setApplicationName(APP_NAME)
    QtCore.QCoreApplication.setApplicationVersion(__version__)
    QtGui.QGuiApplication.setApplicationDisplayName(APP_DISPLAY_NAME)
    QtGui.QGuiApplication.setDesktopFileName(APP_ID)
    icon = load_icon()
    if icon is not None:
        QtGui.QGuiApplication.setWindowIcon(icon)
    return app


def load_icon():
    """The app icon as a QIcon (None if the file is missing)."""
    from PySide6 import QtGui

    path = icon_path()
    if path is None:
        return None
    icon = QtGui.QIcon(str(path))
    if icon.pixmap(64, 64).isNull():  # no SVG icon engine: render the sizes ourselves
        try:
            from PySide6 import QtSvg
        except ImportError:
            return icon
        renderer = QtSvg.QSvgRenderer(str(path))
        icon = QtGui.QIcon()
        for size in (16, 24, 32, 48, 64, 128, 256):
            img = QtGui.QImage(size, size, QtGui.QImage.Format.Format_ARGB32_Premultiplied)
            img.fill(0)
            painter = QtGui.QPainter(img)
            renderer.render(painter)
            painter.end()
            icon.addPixmap(QtGui.QPixmap.fromImage(img))
    return icon


def smoke_check(app, window, wait_s: float = 30.0) -> None:
    """``--smoke-test``: report what started and quit (used by packaging/smoke_test.sh), once
    the window has been painted and has installed its features (or ``wait_s`` has passed)."""
    import time

    from PySide6 import QtCore

    deadline = time.monotonic() + wait_s

    def done() -> None:
        features = getattr(window, "features", None) is not None
        if not features and time.monotonic() < deadline:
            QtCore.QTimer.singleShot(20, done)
            return
        icon_ok = not app.windowIcon().pixmap(64, 64).isNull()
        ok = window.isVisible() and icon_ok and features
        print(f"roofgui: smoke test {'ok' if ok else 'FAILED'}: platform {app.platformName()}, "
              f"window {'shown' if window.isVisible() else 'NOT shown'}, "
              f"icon {'ok' if icon_ok else 'MISSING'}, "
              f"features {'installed' if features else 'NOT installed'}", flush=True)
        app.exit(0 if ok else 1)

    QtCore.QTimer.singleShot(0, done)


def qt_problem(argv: Sequence[str]) -> tuple[int, str] | None:
    """(exit status, message) when the window cannot be opened, checked before Qt can abort."""
    problem = display_problem(argv)
    if problem:
        return EXIT_NO_DISPLAY, problem
    problem = import_qt_problem()
    if problem:
        return EXIT_MISSING_LIBS, problem
    if chosen_platform(argv) == "xcb":
        libs = xcb_missing_libs()
        if libs:
            return EXIT_MISSING_LIBS, missing_libs_message(libs, gui_only=True)
    return None


def main(argv: Sequence[str] | None = None) -> int:
    """Open the window.  Returns the exit status (see the module docstring)."""
    argv = list(sys.argv[1:] if argv is None else argv)
    if any(a in ("-h", "--help") for a in argv):
        print(USAGE)
        return 0
    if "--install-desktop" in argv or "--uninstall-desktop" in argv:
        return desktop_command("--install-desktop" in argv)
    smoke = "--smoke-test" in argv
    argv = [a for a in argv if a != "--smoke-test"]
    open_path, _ = split_args(argv)
    problem = qt_problem(argv)
    if problem:
        print(problem[1], file=sys.stderr)
        return problem[0]

    app = create_application(argv)
    from roofgui.gui.errors_dialog import install_excepthook

    install_excepthook(app)
    try:
        from roofgui.gui.main_window import MainWindow

        window = MainWindow(catalog=None, open_path=open_path, defer_features=True)
    except Exception as e:  # the window could not be built: say so, log it, stop
        show_startup_failure(e)
        return EXIT_STARTUP_FAILED
    window.show()
    if smoke:
        smoke_check(app, window)
    return app.exec()


def show_startup_failure(exc: BaseException) -> None:
    """Log the failure, print it, and (with a real display) say so in a message box."""
    from PySide6 import QtGui, QtWidgets

    from roofgui.gui.errors_dialog import format_report, one_line, write_log

    text = format_report(type(exc), exc, exc.__traceback__, "starting the main window")
    sys.stderr.write(text)
    path = write_log(text)
    where = f"The details were written to {path}." if path else "The details could not be logged."
    print(f"roofgui: the window could not be opened: {one_line(type(exc), exc)}. {where}",
          file=sys.stderr)
    app = QtWidgets.QApplication.instance()
    if isinstance(app, QtGui.QGuiApplication) and app.platformName() in HEADLESS_PLATFORMS:
        return  # nobody would see the box
    QtWidgets.QMessageBox.critical(
        None, "Roofline Explorer could not start",
        f"The window could not be opened:\n\n{one_line(type(exc), exc)}\n\n{where}")

