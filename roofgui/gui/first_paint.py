"""Benchmark hook: note when the window first has its plot on screen.

With ``ROOFGUI_BENCH_FIRST_PAINT=PATH`` in the environment, the main window
writes ``time.monotonic()`` (a clock shared by every process on the machine)
to ``PATH`` once the visible plot has been painted for the first time — in the
event-loop pass after that paint, so the whole first frame is included.
``tests/bench/bench_cold.py`` reads it to time a cold start.  Without the
variable nothing here is imported.
"""

from __future__ import annotations

import time
from pathlib import Path

from PySide6.QtCore import QEvent, QObject, QTimer
from PySide6.QtWidgets import QWidget

ENV = "ROOFGUI_BENCH_FIRST_PAINT"


class FirstPaintProbe(QObject):
    def __init__(self, widget: QWidget, path: str) -> None:
        super().__init__(widget)
        self.widget = widget
        self.path = path
        self.done = False
        widget.installEventFilter(self)

    def eventFilter(self, obj, ev) -> bool:  # noqa: N802 (Qt naming)
        if not self.done and ev.type() == QEvent.Type.Paint:
            self.done = True
            QTimer.singleShot(0, self._write)
        return False

    def _write(self) -> None:
        self.widget.removeEventFilter(self)
        Path(self.path).write_text(repr(time.monotonic()))


def install(widget: QWidget, path: str) -> FirstPaintProbe:
    """Watch ``widget`` (a plot's viewport) and write the time of its first paint to ``path``."""
    return FirstPaintProbe(widget, path)
