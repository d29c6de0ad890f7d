"""After the first paint: run something once a widget has been painted for the first time.

A cold start shows the plot first and then installs what the user does not need to see it
(:meth:`~roofgui.gui.main_window.MainWindow.install_features`).  The callback runs in the
event-loop pass after that paint, so the whole first frame is on screen before it.

With ``ROOFGUI_BENCH_FIRST_PAINT=PATH`` in the environment, the main window also writes
``time.monotonic()`` (a clock shared by every process on the machine) to ``PATH`` then:
``tests/bench/bench.py`` reads it to time a cold start.
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Callable

from PySide6.QtCore import QEvent, QObject, QTimer
from PySide6.QtWidgets import QWidget

BENCH_ENV = "ROOFGUI_BENCH_FIRST_PAINT"


class FirstPaint(QObject):
    """Calls ``callback`` once, in the event-loop pass after ``widget``'s first paint."""

    def __init__(self, widget: QWidget, callback: Callable[[], None]) -> None:
        super().__init__(widget)
        self.widget = widget
        self.callback = callback
        self.done = False
        widget.installEventFilter(self)

    def eventFilter(self, obj, ev) -> bool:  # noqa: N802 (Qt naming)
        if not self.done and ev.type() == QEvent.Type.Paint:
            self.done = True
            QTimer.singleShot(0, self.fire)
        return False

    def fire(self) -> None:
        self.widget.removeEventFilter(self)
        self.callback()


def after_first_paint(widget: QWidget, callback: Callable[[], None]) -> FirstPaint:
    """Run ``callback`` once ``widget`` (a plot's viewport) has been painted."""
    return FirstPaint(widget, callback)


def stamp_first_paint(widget: QWidget) -> FirstPaint | None:
    """For the cold-start benchmark: write the time of the first paint to ``$ROOFGUI_BENCH_FIRST_PAINT``."""
    path = os.environ.get(BENCH_ENV)
    if not path:
        return None
    return FirstPaint(widget, lambda: Path(path).write_text(repr(time.monotonic())))
