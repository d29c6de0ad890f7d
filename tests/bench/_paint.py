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

Beside it, :func:`until_painted` can report the time to the *end of the last
paint itself* (``paint_end``): when pyqtgraph's ``GraphicsView.paintEvent``
returns, the plot's pixels are in the window's backing store, ready for the
screen; the rest of that pass (the app's panels around the plot, say) runs
after them.
"""

from __future__ import annotations

import time

from PySide6 import QtCore, QtWidgets


_PAINT_ENDS: dict[int, float] = {}  # id(graphics view) -> when its last paintEvent returned


def _hook_paint_ends() -> None:
    """Wrap pyqtgraph's GraphicsView.paintEvent (a Python method, so app and baseline
    alike) to note when each view's paint returns."""
    import pyqtgraph as pg

    gv = pg.GraphicsView
    if getattr(gv, "_bench_hooked", False):
        return
    real = gv.paintEvent

    def paintEvent(self, ev):  # noqa: N802 (Qt naming)
        try:
            return real(self, ev)
        finally:
            _PAINT_ENDS[id(self)] = time.perf_counter()

    gv.paintEvent = paintEvent
    gv._bench_hooked = True


class PaintProbe(QtCore.QObject):
    def __init__(self, widget: QtWidgets.QWidget):
        super().__init__()
        _hook_paint_ends()
        self.widget = widget
        self.view = widget.parent()  # the QGraphicsView whose viewport this is
        self.count = 0
        widget.installEventFilter(self)

    def paint_end(self) -> float | None:
        return _PAINT_ENDS.get(id(self.view))

    def eventFilter(self, obj, ev):  # noqa: N802 (Qt naming)
        if ev.type() == QtCore.QEvent.Type.Paint:
            self.count += 1
        return False


def until_painted(app: QtWidgets.QApplication, probes: list[PaintProbe], edit,
                  timeout: float = 10.0, cpu: list | None = None,
                  paint_end: list | None = None) -> tuple[float, int]:
    """Seconds from the edit to the end of the pass of its last repaint, and how many
    paints it took.

    With ``cpu`` (a list), the process CPU time over the same span is appended to it:
    on a loaded machine it shows the app's own cost, which wall time hides.  With
    ``paint_end`` (a list), the seconds from the edit to the end of the last paint
    itself are appended.
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
    if paint_end is not None:
        ends = [e for e in (p.paint_end() for p in probes) if e is not None and e > t0]
        paint_end.append((max(ends) if ends else t_end) - t0)
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
