"""A QApplication for rendering without a window (the command line, scripts, tests).

:func:`ensure_app` returns the running application, or starts one.  When it
starts one for the command line it asks Qt for the ``offscreen`` platform
(unless ``QT_QPA_PLATFORM`` is already set), so ``roofgui export`` runs on a
machine with no display and draws the same pixels everywhere.
"""

from __future__ import annotations

import os
import sys

_APP = None  # keeps the application alive for the life of the process


def has_display() -> bool:
    """Whether a windowing system is reachable (always assumed off Linux/BSD)."""
    if sys.platform.startswith(("linux", "freebsd", "openbsd", "netbsd")):
        return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))
    return True


def ensure_app(offscreen: bool | None = None):
    """The running QApplication, or a new one.

    Parameters
    ----------
    offscreen:
        ``True``: use the offscreen platform for a new application (the
        command line); ``None``: only when there is no display.  An explicit
        ``QT_QPA_PLATFORM`` always wins.
    """
    global _APP
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance()
    if app is not None:
        return app
    want = has_display() is False if offscreen is None else offscreen
    if want and not os.environ.get("QT_QPA_PLATFORM"):
        os.environ["QT_QPA_PLATFORM"] = "offscreen"
    _APP = QApplication([sys.argv[0] if sys.argv and sys.argv[0] else "roofgui"])
    return _APP


def quiet_qt_messages() -> None:
    """Drop Qt's debug and warning chatter (the command line prints one line or nothing)."""
    from PySide6.QtCore import QtMsgType, qInstallMessageHandler

    def handler(mode, context, message):  # pragma: no cover - depends on Qt's chatter
        if mode in (QtMsgType.QtCriticalMsg, QtMsgType.QtFatalMsg):
            print(f"qt: {message}", file=sys.stderr)

    qInstallMessageHandler(handler)
