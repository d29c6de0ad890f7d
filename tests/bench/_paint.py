"""Measuring "edit until repainted" honestly, for the app and the bare baseline alike.

A :class:`PaintProbe` is an event filter on a plot's viewport (the widget a
``QGraphicsView`` paints into) that counts ``QEvent.Paint``.  :func:`until_painted`
starts a clock, performs the edit, then runs the event loop one pass at a
time (``processEvents``) until the viewport has been painted, and keeps
passing until three consecutive passes paint nothing more.  The figure is
the time from just before the edit to the end of the pass in which the
*last* of those paints happened, so it covers the model, the item updates,
any zero-delay coalescing and the paint itself.  A timer delay in the app
would show up in the figure (the loop keeps polling until the paint).

After each measured edit :func:`settle` runs the loop for a few ms more and
counts any *late* paints (a delayed second repaint would show there).
"""

from __future__ import annotations

import time

from PySide6 import QtCore, QtWidgets


class PaintProbe(QtCore.QObject):
    def __init__(self, widget: QtWidgets.QWidget):
        super().__init__()
        self.widget = widget
        self.count = 0
        widget.installEventFilter(self)

    def eventFilter(self, obj, ev):  # noqa: N802 (Qt naming)
        if ev.type() == QtCore.QEvent.Type.Paint:
            self.count += 1
        return False


def until_painted(app: QtWidgets.QApplication, probes: list[PaintProbe], edit,
                  timeout: float = 10.0, cpu: list | None = None) -> tuple[float, int]:
    """Seconds from the edit to the end of its last repaint, and how many paints it took.

    With ``cpu`` (a list), the process CPU time over the same span is appended to it:
    on a loaded machine it shows the app's own cost, which wall time hides.
    """
    start = [p.count for p in probes]
    last = sum(start)
    c0 = time.process_time()
    t0 = time.perf_counter()
    edit()
    t_end = None
    c_end = c0
    idle = 0
    while True:
        app.processEvents()
        now = time.perf_counter()
        n = sum(p.count for p in probes)
        if n != last:
            last = n
            t_end = now
            c_end = time.process_time()
            idle = 0
        elif t_end is not None:
            idle += 1
            if idle >= 3:
                break
        if now - t0 > timeout:
            raise RuntimeError("the plot was not repainted within %.0f s of an edit" % timeout)
    if cpu is not None:
        cpu.append(c_end - c0)
    return t_end - t0, last - sum(start)


def settle(app: QtWidgets.QApplication, probes: list[PaintProbe], seconds: float = 0.005) -> int:
    """Run the event loop for ``seconds``; the number of (late) paints that happened."""
    before = sum(p.count for p in probes)
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        app.processEvents(QtCore.QEventLoop.ProcessEventsFlag.AllEvents, 1)
    return sum(p.count for p in probes) - before


def warm_paint(app, probes, widget, timeout: float = 10.0) -> None:
    """Show ``widget`` and wait for its first paint (and anything queued behind it)."""
    widget.show()
    t0 = time.perf_counter()
    while not all(p.count for p in probes):
        app.processEvents()
        if time.perf_counter() - t0 > timeout:
            raise RuntimeError("the window was never painted")
    settle(app, probes, 0.2)
