"""Part 2 baseline — a bare pyqtgraph window updating the same items with ``setData``.

``bench_edit.py`` saves the data items of the app's visible plot (arrays,
pens, symbols, antialiasing: see :func:`bench_edit.mirror_spec`); this
script, in a process of its own, puts a copy of each into a bare
``pg.PlotWidget`` of the same size and view range — no model, no form, no
text labels, regions or legend — and times edits exactly as the app's are
timed (:mod:`_paint`): every item gets new y values via ``setData``, then the
event loop runs until the viewport has repainted.

    python bench_edit_baseline.py SPEC.npz --edits 100 [--json OUT]
"""

from __future__ import annotations

import argparse
import json
import os
import sys

import _common  # noqa: F401
from _common import WINDOW_SIZE, emit

import numpy as np


def _qpen(d):
    from PySide6 import QtCore, QtGui

    if d is None:
        return None
    pen = QtGui.QPen(QtGui.QColor(*d["rgba"]))
    pen.setWidthF(d["width"])
    pen.setCosmetic(d["cosmetic"])
    pen.setStyle(QtCore.Qt.PenStyle(d["style"]))
    pen.setCapStyle(QtCore.Qt.PenCapStyle(d["cap"]))
    pen.setJoinStyle(QtCore.Qt.PenJoinStyle(d["join"]))
    return pen


def _qbrush(rgba):
    from PySide6 import QtGui

    return None if rgba is None else QtGui.QBrush(QtGui.QColor(*rgba))


def load_spec(path: str) -> tuple[list[dict], list[float]]:
    z = np.load(path, allow_pickle=False)
    meta = json.loads(str(z["meta"]))
    spec = []
    for i, m in enumerate(meta["items"]):
        spec.append({**m, "x": z[f"x{i}"], "y": z[f"y{i}"]})
    return spec, meta["view"]


def build(spec: list[dict], size: tuple[int, int], view):
    import pyqtgraph as pg

    w = pg.PlotWidget()
    w.resize(*size)
    w.showGrid(x=True, y=True)
    vb = w.getPlotItem().getViewBox()
    vb.disableAutoRange()
    items = []
    for s in spec:
        if s["kind"] == "scatter":
            item = pg.ScatterPlotItem(x=s["x"], y=s["y"], symbol=s.get("symbol") or "o",
                                      size=s.get("size", 10), pen=_qpen(s.get("pen")),
                                      brush=_qbrush(s.get("brush")), antialias=s["antialias"])
        else:
            item = pg.PlotDataItem(s["x"], s["y"], pen=_qpen(s["pen"]), antialias=s["antialias"])
        w.addItem(item)
        items.append((item, s["kind"], s["x"], s["y"]))
    x0, x1, y0, y1 = view
    vb.setRange(xRange=(x0, x1), yRange=(y0, y1), padding=0)
    return w, items


def edit_fn(items, i: int):
    """The i-th edit: every item gets new y values through ``setData``."""
    d = 0.002 * ((i % 20) - 10)

    def edit():
        for item, kind, x, y in items:
            if kind == "scatter":
                item.setData(x=x, y=y + d)
            else:
                item.setData(x, y + d)

    return edit


def run(spec_path: str, edits: int) -> dict:
    from PySide6 import QtWidgets

    from _paint import PaintProbe, settle, until_painted, warm_paint

    app = QtWidgets.QApplication.instance() or QtWidgets.QApplication(["bench-baseline"])
    spec, view = load_spec(spec_path)
    w, items = build(spec, WINDOW_SIZE, view)
    probe = PaintProbe(w.viewport())
    warm_paint(app, [probe], w)
    samples, paints, late = [], [], 0
    for i in range(edits):
        dt, n = until_painted(app, [probe], edit_fn(items, i))
        samples.append(dt)
        paints.append(n)
        late += settle(app, [probe])
    w.close()
    return {"samples": samples, "paints_per_edit": float(np.mean(paints)), "late_paints": late}


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("spec")
    p.add_argument("--edits", type=int, default=200)
    p.add_argument("--json")
    a = p.parse_args()
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    emit(run(a.spec, a.edits), a.json)


if __name__ == "__main__":
    main()
