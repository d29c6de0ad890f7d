"""Part 3 baseline — a bare script: a QApplication with one pyqtgraph PlotWidget.

Writes ``time.monotonic()`` to ``sys.argv[1]`` in the event-loop pass after
the plot's first paint, exactly as ``roofgui.gui.first_paint`` does for the
app, then keeps running until the benchmark stops it.
"""

import sys
import time

from PySide6 import QtCore, QtWidgets

import pyqtgraph as pg


class _Probe(QtCore.QObject):
    def __init__(self, widget, path):
        super().__init__(widget)
        self.widget, self.path, self.done = widget, path, False
        widget.installEventFilter(self)

    def eventFilter(self, obj, ev):  # noqa: N802
        if not self.done and ev.type() == QtCore.QEvent.Type.Paint:
            self.done = True
            QtCore.QTimer.singleShot(0, self._write)
        return False

    def _write(self):
        with open(self.path, "w") as f:
            f.write(repr(time.monotonic()))


app = QtWidgets.QApplication(sys.argv[:1])
w = pg.PlotWidget()
w.resize(1280, 800)
probe = _Probe(w.viewport(), sys.argv[1])
w.show()
app.exec()
