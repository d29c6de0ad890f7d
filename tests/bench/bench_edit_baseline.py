"""Part 2 baseline — a bare pyqtgraph window updating the same items with ``setData``.

The item list (kind, number of points, pen width, antialiasing, symbol) is
read off the app's visible plot by :func:`bench_edit.mirror_spec`, so the
baseline draws what the app draws, minus the app: no model, no form, no
text labels, regions or legend.  Each "edit" gives every curve new y values
(``setData``), then the same :func:`_paint.until_painted` measurement runs.
"""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6 import QtCore, QtGui, QtWidgets

from _paint import PaintProbe, settle, until_painted, warm_paint


def build(spec: list[dict], size: tuple[int, int]):
    w = pg.PlotWidget()
    w.resize(*size)
    w.showGrid(x=True, y=True)
    vb = w.getPlotItem().getViewBox()
    vb.disableAutoRange()
    rng = np.random.default_rng(1)
    items = []
    xs_all, ys_all = [], []
    for s in spec:
        n = max(int(s["n"]), 1)
        x = np.linspace(0.0, 4.0, n) if n > 1 else np.array([rng.uniform(0, 4)])
        y = 12.0 + 0.5 * np.sin(x * 2 + rng.uniform(0, 6)) + rng.uniform(0, 3)
        pen = QtGui.QPen(QtGui.QColor(30, 100, 200))
        pen.setWidthF(s.get("width", 1.0))
        pen.setCosmetic(True)
        if s["kind"] == "scatter":
            item = pg.ScatterPlotItem(x=x, y=y, symbol=s.get("symbol") or "o",
                                      size=s.get("size", 10), pen=pen,
                                      brush=pg.mkBrush(200, 80, 40),
                                      antialias=s.get("antialias", True))
        else:
            item = pg.PlotDataItem(x, y, pen=pen, antialias=s.get("antialias", True))
        w.addItem(item)
        items.append((item, s["kind"], x, y))
        xs_all.append(x)
        ys_all.append(y)
    xs = np.concatenate(xs_all) if xs_all else np.array([0.0, 1.0])
    ys = np.concatenate(ys_all) if ys_all else np.array([0.0, 1.0])
    vb.setRange(xRange=(xs.min() - 0.5, xs.max() + 0.5), yRange=(ys.min() - 1, ys.max() + 1),
                padding=0)
    return w, items


def run(spec: list[dict], edits: int, size: tuple[int, int]) -> dict:
    app = QtWidgets.QApplication.instance() or QtWidgets.QApplication([])
    w, items = build(spec, size)
    probe = PaintProbe(w.viewport())
    warm_paint(app, [probe], w)
    samples, paints, late = [], [], 0
    for i in range(edits):
        d = 0.01 * ((i % 20) - 10)

        def edit():
            for item, kind, x, y in items:
                if kind == "scatter":
                    item.setData(x=x, y=y + d)
                else:
                    item.setData(x, y + d)

        dt, n = until_painted(app, [probe], edit)
        samples.append(dt)
        paints.append(n)
        late += settle(app, [probe])
    w.close()
    w.deleteLater()
    app.processEvents()
    return {"samples": samples, "paints": paints, "late_paints": late}
