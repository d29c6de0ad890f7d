"""The in-window half of ``make bench``: runs in a process of its own, started by bench.py.

    python child.py typing|scale|memory EXAMPLE.json KEYSTROKES OUT.json

It opens the real ``MainWindow`` on EXAMPLE (offscreen, 1280×800) and reaches it only as a
user would: the tabs by their titles, the plots by their accessible names, a dimension
field by its object name (``dim_B``), real key presses (``QTest.keyClicks``).

``typing``: on each tab, KEYSTROKES keystrokes in a dimension field, each timed from the
key press until the plot's viewport has been repainted, alternating with the same number
of keystrokes in a bare ``pg.PlotWidget`` holding a copy of the plot's data (see
:func:`bare_copy`).  Then 4K PNG exports of each plot, by ``export_file`` and by
pyqtgraph's ``ImageExporter`` from a bare copy.  ``scale``: the keystrokes and their bare
copies alone.  ``memory``: the keystrokes alone, then the process's peak resident memory.
"""

from __future__ import annotations

import json
import os
import platform
import resource
import sys
import time
from pathlib import Path

import numpy as np
import pyqtgraph as pg
import pyqtgraph.exporters  # noqa: F401 (pg.exporters)
from PySide6 import QtCore, QtWidgets
from PySide6.QtTest import QTest

#: what a bare curve copies of a curve's options (pen, how points join, any markers)
LINE_LOOK = ("pen", "connect", "symbol", "symbolSize", "symbolPen", "symbolBrush")
TABS = {"roofline": ("Roofline", "Roofline plot", "B"), "sweep": ("Sweep", "Sweep plot", "D")}


class PaintCounter(QtCore.QObject):
    """Counts the paint events of a widget (a plot's viewport)."""

    def __init__(self, widget):
        super().__init__(widget)
        self.count = 0
        widget.installEventFilter(self)

    def eventFilter(self, obj, ev):  # noqa: N802 (Qt naming)
        if ev.type() == QtCore.QEvent.Type.Paint:
            self.count += 1
        return False


def settle(seconds=0.02):
    """Run the event loop for ``seconds`` (sleeping while there is nothing to do)."""
    QTest.qWait(round(seconds * 1000))


def until_repainted(app, counter, action, timeout=10.0):
    """Seconds from ``action()`` to the end of the event-loop pass of the plot's last repaint
    (passes continue until three in a row paint nothing more)."""
    before = counter.count
    t0 = time.perf_counter()
    action()
    t_end, idle = None, 0
    while idle < 3:
        app.processEvents()
        now = time.perf_counter()
        if counter.count != before:
            before, t_end, idle = counter.count, now, 0
        elif t_end is not None:
            idle += 1
        if now - t0 > timeout:
            raise RuntimeError("the plot was not repainted after a keystroke")
    return t_end - t0


def fresh_values(start, n, seed=22):
    """``n`` different integers between start/4 and 4*start (never typed twice)."""
    pool = np.unique(np.round(np.geomspace(max(start / 4, 10), max(start * 4, 1000), 8 * n)))
    pool = pool[pool != start].astype(np.int64)
    return [int(v) for v in np.random.default_rng(seed).choice(pool, n, replace=False)]


def copy_item(it):
    """A bare copy of one plot item, and how a keystroke updates it (by ``d`` in y)."""
    if isinstance(it, pg.TextItem):
        text, p = it.textItem.toPlainText() or "label", it.pos()
        item = pg.TextItem(text, anchor=(it.anchor.x(), it.anchor.y()))
        return "labels", item, lambda d: (item.setText(text), item.setPos(p.x(), p.y() + d))
    x, y = it.getData()
    if x is None or len(x) == 0:
        return None
    if isinstance(it, pg.ScatterPlotItem):
        spots = it.points()
        look = {"symbol": [s.symbol() for s in spots], "size": [s.size() for s in spots],
                "pen": [s.pen() for s in spots], "brush": [s.brush() for s in spots]}
        item = pg.ScatterPlotItem(x=x, y=y, **look)
        return "scatters", item, lambda d: item.setData(x=x, y=y + d, **look)
    look = {k: it.opts[k] for k in LINE_LOOK if k in it.opts}
    item = pg.PlotDataItem(x, y, **look)
    return "curves", item, lambda d: item.setData(x, y + d)


def bare_copy(plot, size):
    """A plain ``pg.PlotWidget`` holding what ``plot`` shows: each visible curve as a
    ``PlotDataItem`` (same points, pen, joins and markers), each scatter as a ``ScatterPlotItem`` (same
    points, symbols, sizes, pens, brushes), each ``TextItem`` as a ``TextItem`` (same
    text and place), in the same view range.  Returns the widget, its update (new y values
    for every item by ``setData``, texts by ``setText`` and ``setPos``) and its counts."""
    w = pg.PlotWidget()
    w.resize(*size)
    w.showGrid(x=True, y=True)
    vb = plot.getPlotItem().getViewBox()
    texts = [it for it in plot.scene().items() if isinstance(it, pg.TextItem)]
    sources = [it for it in plot.getPlotItem().listDataItems() + texts if it.isVisible()]
    pairs = [(it, c) for it in sources if (c := copy_item(it)) is not None]
    copies = [c for _, c in pairs]
    kinds = [k for k, _, _ in copies]
    counts = {kind: kinds.count(kind) for kind in ("curves", "scatters", "labels")}
    counts["points"] = sum(len(it.getData()[0]) for it, (k, _, _) in pairs if k == "curves")
    for _, item, _ in copies:
        w.addItem(item)
    (x0, x1), (y0, y1) = vb.viewRange()
    w.getPlotItem().getViewBox().setRange(xRange=(x0, x1), yRange=(y0, y1), padding=0)
    w.getPlotItem().getViewBox().disableAutoRange()

    def update(i):
        d = 0.01 * ((i % 7) - 3)
        return lambda: [f(d) for _, _, f in copies]

    update(3)()  # (a TextItem finds its place once set after it is in the view)
    return w, update, counts


def open_window(example):
    try:
        from roofgui.app import create_application  # the app's own QApplication set-up
        app = create_application([])
    except ImportError:
        app = QtWidgets.QApplication(["roofgui-bench"])
    from roofgui.gui.main_window import MainWindow

    w = MainWindow(open_path=str(example))
    w.resize(1280, 800)
    w.show()
    settle(0.5)
    return app, w


def show_tab(app, w, view):
    """Show ``view``'s tab; its plot, that plot's paint counter and the dimension field."""
    title, plot_name, dim = TABS[view]
    for tabs in w.findChildren(QtWidgets.QTabWidget):
        for i in range(tabs.count()):
            if tabs.tabText(i).replace("&", "") == title:
                tabs.setCurrentIndex(i)
    settle(0.3)
    plot = next(p for p in w.findChildren(pg.PlotWidget)
                if p.accessibleName() == plot_name and p.isVisible())
    field = next(e for e in w.findChildren(QtWidgets.QLineEdit, f"dim_{dim}") if e.isVisible())
    return plot, PaintCounter(plot.viewport()), field


def keystroke(field, value):
    """Type the last digit of ``value`` into ``field`` (which holds the rest, set untimed)."""
    return lambda: QTest.keyClicks(field, str(value % 10))


def type_into(app, w, view, n, with_bare):
    plot, counter, field = show_tab(app, w, view)
    values = fresh_values(int(float(field.text() or 4096)), n)
    if with_bare:
        bare, update, counts = bare_copy(plot, (plot.width(), plot.height()))
        bare_counter = PaintCounter(bare.viewport())
        bare.show()
        settle(0.3)
    app_s, bare_s = [], []
    for i, v in enumerate(values):
        field.setText(str(v // 10))  # (no textEdited: the model does not see this)
        settle()
        app_s.append(until_repainted(app, counter, keystroke(field, v)))
        settle()
        if with_bare:
            bare_s.append(until_repainted(app, bare_counter, update(i)))
    if not with_bare:
        return {}
    bare.close()
    return {"app_s": app_s, "bare_s": bare_s, "plot_size": [plot.width(), plot.height()],
            **counts}


def time_exports(app, w, example, repeats, tmp):
    """Seconds per 4K PNG export of each plot: the app's ``export_file`` and
    ``ImageExporter`` on a bare copy of the window's plot (1920×1080, exported at 2×)."""
    from roofgui.export.render import export_file
    from roofgui.model.catalog import Catalog
    from roofgui.model.scenario import load_scenario

    scenario, catalog = load_scenario(example), Catalog.load()
    out = {}
    for view in TABS:
        plot, _, _ = show_tab(app, w, view)
        bare, _, _ = bare_copy(plot, (1920, 1080))
        bare.show()
        settle(0.3)
        exporter = pg.exporters.ImageExporter(bare.getPlotItem())
        exporter.parameters()["width"] = 3840
        app_s, bare_s = [], []
        for i in range(repeats + 1):  # (the first of each, untimed, warms up)
            t0 = time.perf_counter()
            export_file(tmp / f"{view}.png", scenario, catalog, plot=view, width=3840, height=2160)
            t1 = time.perf_counter()
            exporter.export(str(tmp / f"bare-{view}.png"))
            t2 = time.perf_counter()
            if i:
                app_s.append(t1 - t0)
                bare_s.append(t2 - t1)
        bare.close()
        img = pg.QtGui.QImage(str(tmp / f"bare-{view}.png"))
        out[view] = {"app_s": app_s, "bare_s": bare_s, "bare_size": [img.width(), img.height()]}
    return out


def versions():
    import PySide6

    cpu = next((ln.split(":", 1)[1].strip() for ln in Path("/proc/cpuinfo").read_text().splitlines()
                if ln.startswith("model name")), platform.processor())
    return {"cpu": cpu, "cpus": os.cpu_count(), "python": platform.python_version(),
            "pyside6": PySide6.__version__, "pyqtgraph": pg.__version__, "numpy": np.__version__}


def main():
    mode, example, n, out = sys.argv[1], Path(sys.argv[2]), int(sys.argv[3]), Path(sys.argv[4])
    tmp = out.parent  # (bench.py's temporary folder, removed after the run)
    os.environ.setdefault("ROOFGUI_HOME", str(tmp / "home"))
    app, w = open_window(example)
    res = {"keystrokes": n}
    if mode == "memory":
        for view in TABS:
            type_into(app, w, view, n, with_bare=False)
        res["peak_rss_mib"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    elif mode == "scale":  # (the keystrokes alone, beside their bare copies)
        res["typing"] = {view: type_into(app, w, view, n, with_bare=True) for view in TABS}
    else:
        res["typing"] = {view: type_into(app, w, view, n, with_bare=True) for view in TABS}
        res["export"] = time_exports(app, w, example, 3, tmp)
        res["machine"] = versions()
    out.write_text(json.dumps(res))
    sys.stdout.flush()
    os._exit(0)  # (no teardown: nothing left to measure)


if __name__ == "__main__":
    main()
