"""The cold-start baseline: a bare QApplication with one pyqtgraph PlotWidget (1280×800).

Writes ``time.monotonic()`` to the file named by ``ROOFGUI_BENCH_FIRST_PAINT`` in the
event-loop pass after the plot's first paint, as Roofline Explorer's window does, and
runs until bench.py stops it.
"""

import os
import time

import pyqtgraph as pg
from PySide6 import QtCore, QtWidgets


class FirstPaint(QtCore.QObject):
    def __init__(self, widget):
        super().__init__(widget)
        self.done = False
        widget.installEventFilter(self)

    def eventFilter(self, obj, ev):  # noqa: N802 (Qt naming)
        if not self.done and ev.type() == QtCore.QEvent.Type.Paint:
            self.done = True
            QtCore.QTimer.singleShot(0, self.write)
        return False

    def write(self):
        with open(os.environ["ROOFGUI_BENCH_FIRST_PAINT"], "w") as f:
            f.write(repr(time.monotonic()))


app = QtWidgets.QApplication(["bare"])
w = pg.PlotWidget()
w.resize(1280, 800)
probe = FirstPaint(w.viewport())
w.show()
app.exec()
