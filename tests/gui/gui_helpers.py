"""Helpers shared by the window tests: open a real MainWindow, run its pending
evaluation, and close it without the unsaved-changes question (pytest-qt closes
widgets before fixtures end)."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QEvent
from PySide6.QtWidgets import QApplication

EXAMPLES = Path(__file__).resolve().parents[2] / "resources" / "examples"


def open_window(catalog=None, restore: bool = True, size: tuple[int, int] | None = None):
    """A shown MainWindow with its first evaluation drawn (``catalog`` None: the user's)."""
    from roofgui.gui.main_window import MainWindow

    w = MainWindow(catalog=catalog, restore=restore)
    if size is not None:
        w.resize(*size)
    w.show()
    w.live.flush()
    return w


def close_quietly(w) -> None:
    w.doc.load(w.doc.scenario)
    w.close()
    w.deleteLater()
    QApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)


def flush(w) -> None:
    QApplication.processEvents()
    w.live.flush()
