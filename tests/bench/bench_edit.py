"""Part 2 — edit to pixels: type into a dimension field until the plot has repainted.

The app: ``MainWindow`` at 1280×800 (offscreen), the busy scenario (8 chips,
4 ops, one sharded, a 2,000-point sweep of B).  An edit is what typing does:
``setText`` on the dimension's ``QuantityEdit`` and its ``textEdited`` signal;
the window then evaluates through the model (zero-delay coalescing timer),
updates the plot items and repaints.  Timed from just before ``setText`` to
the end of the event-loop pass in which the plot's viewport finished its
last paint (see :mod:`_paint`).

Bursts: five keystrokes in a row before the event loop runs must give one
evaluation and one repaint, timed the same way (``burst_samples``,
``evaluations_per_burst``).

Two views, each against its own baseline:

* ``roofline``: the Roofline tab, editing B of the selected op (its points move);
* ``sweep``: the Sweep tab (32 curves × 2,000 points), editing D (with B swept,
  D is what moves the curves).

The baseline (:mod:`bench_edit_baseline`) is a bare ``pg.PlotWidget`` the size
of the app's plot widget, holding a copy of every data item of the app's
visible plot — same arrays, pens, symbols, antialiasing and view range — that
gets new y values via ``setData`` each edit.  App and baseline are separate
top-level windows in the same process, edited alternately (one app edit, one
baseline edit, ...), so that machine noise hits both alike.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import sys
import tempfile
import time
from pathlib import Path

import _common  # noqa: F401
from _common import WINDOW_SIZE, emit, write_busy_scenario

import numpy as np


def _pen_dict(pen):
    if pen is None:
        return None
    c = pen.color()
    return {"rgba": [c.red(), c.green(), c.blue(), c.alpha()], "width": pen.widthF(),
            "cosmetic": pen.isCosmetic(), "style": int(pen.style().value),
            "cap": int(pen.capStyle().value), "join": int(pen.joinStyle().value)}


def mirror_spec(plot) -> list[dict]:
    """Every visible data item (curve or scatter) of a PlotWidget: kind, arrays and look.

    A sweep curve is mirrored with the model's points (``SweepLine.x``/``y``, 2,000
    per curve), not the few the app draws after simplifying them: the baseline is
    a plain pyqtgraph window showing the same curves, as it was before the app
    simplified them, so that what the app saves by drawing less counts for it.

    The sweep's critical guides, drawn by one item (its ``guide_layer``), are mirrored
    as the two-point lines they were as items of their own (the baseline draws them
    from a critical marker down past the view, as the app's line items did).
    """
    import pyqtgraph as pg
    from PySide6 import QtGui

    content = {}
    g = getattr(plot, "geometry", None)
    for ln in getattr(g, "lines", ()) if hasattr(plot, "curves") else ():
        item = plot.curves.get(ln.key)
        if item is not None:
            content[id(item)] = (ln.x, ln.y)
    spec = []
    for item in plot.getPlotItem().items:
        if not item.isVisible():
            continue
        if item is getattr(plot, "grid_item", None):
            continue  # the app's decade grid (the baseline shows pyqtgraph's own grid)
        if isinstance(item, (pg.PlotDataItem, pg.PlotCurveItem)):
            x, y = content.get(id(item)) or item.getData()
            if x is None or len(x) == 0:
                continue
            pen = item.opts.get("pen")
            pen = pen if isinstance(pen, QtGui.QPen) else pg.mkPen(pen)
            spec.append({"kind": "line", "n": len(x), "x": np.array(x), "y": np.array(y),
                         "pen": _pen_dict(pen), "antialias": bool(item.opts.get("antialias", False))})
        elif isinstance(item, pg.ScatterPlotItem):
            x, y = item.getData()
            if x is None or len(x) == 0:
                continue
            o = item.opts
            d = item.data
            pen = d["pen"][0] if len(d) and d["pen"][0] is not None else o.get("pen")
            brush = d["brush"][0] if len(d) and d["brush"][0] is not None else o.get("brush")
            size = float(d["size"][0]) if len(d) and d["size"][0] >= 0 else float(o.get("size", 10))
            symbol = d["symbol"][0] if len(d) and d["symbol"][0] is not None else o.get("symbol", "o")
            c = brush.color() if isinstance(brush, QtGui.QBrush) else None
            spec.append({"kind": "scatter", "n": len(x), "x": np.array(x), "y": np.array(y),
                         "pen": _pen_dict(pen if isinstance(pen, QtGui.QPen) else None),
                         "brush": [c.red(), c.green(), c.blue(), c.alpha()] if c is not None else None,
                         "symbol": symbol if isinstance(symbol, str) else "o", "size": size,
                         "antialias": bool(o.get("antialias", True))})
    layer = getattr(plot, "guide_layer", None)
    for guide in layer.guides if layer is not None else ():
        if guide.isVisible():
            x, y = guide.getData()
            spec.append({"kind": "line", "n": 2, "x": x, "y": y, "pen": _pen_dict(guide.pen),
                         "antialias": True})
    return spec


def save_spec(spec: list[dict], view, path: Path) -> None:
    meta = {"view": list(view), "items": [{k: v for k, v in s.items() if k not in ("x", "y")}
                                          for s in spec]}
    arrays = {}
    for i, s in enumerate(spec):
        arrays[f"x{i}"] = np.asarray(s["x"], dtype=np.float64)
        arrays[f"y{i}"] = np.asarray(s["y"], dtype=np.float64)
    np.savez(path, meta=np.array(json.dumps(meta)), **arrays)


def spec_summary(spec) -> dict:
    lines = [s for s in spec if s["kind"] == "line"]
    scat = [s for s in spec if s["kind"] == "scatter"]
    return {"curves": len(lines), "curve_points": int(sum(s["n"] for s in lines)),
            "scatters": len(scat), "scatter_points": int(sum(s["n"] for s in scat))}


def drawn_points(plot) -> int:
    """Points the app's visible curves hold (after its own simplification)."""
    import pyqtgraph as pg

    n = 0
    for item in plot.getPlotItem().items:
        if item.isVisible() and isinstance(item, (pg.PlotDataItem, pg.PlotCurveItem)) \
                and item is not getattr(plot, "grid_item", None):
            x, _ = item.getData()
            n += 0 if x is None else len(x)
    return n


def fresh_values(start: float, n: int, seed: int = 8) -> list[int]:
    """``n`` different values between start/4 and 4·start, in a fixed random order.

    Every edit types a value not typed before: the model remembers each op's results
    by value (so that an edit re-evaluates the edited op alone), and a benchmark that
    cycled through a few values would time those lookups instead of real edits.
    """
    lo, hi = max(int(start / 4), 1), max(int(start * 4), 8)
    pool = np.unique(np.round(np.geomspace(lo, hi, 4 * n)).astype(np.int64))
    pool = pool[pool != int(start)]
    if pool.size < n:  # a small start value: count up instead
        pool = np.arange(int(start) + 1, int(start) + 1 + n)
    rng = np.random.default_rng(seed)
    return [int(v) for v in rng.choice(pool, size=n, replace=False)]


def open_window(tmp: Path):
    from PySide6 import QtWidgets

    app = QtWidgets.QApplication.instance() or QtWidgets.QApplication(["roofgui-bench"])
    path = write_busy_scenario(tmp / "busy.json")
    from roofgui.gui.main_window import MainWindow

    w = MainWindow(catalog=None, open_path=str(path), restore=False)
    w.resize(*WINDOW_SIZE)
    return app, w


def show_view(w, view: str):
    """Show the tab of ``view`` and return its plot and the dimension an edit types into:
    the Roofline tab editing B (the points move), the Sweep tab editing D (with B swept,
    D moves the curves)."""
    if view == "sweep":
        w.tabs.setCurrentIndex(1)
        return w.sweep_plot, "D"
    w.tabs.setCurrentIndex(0)
    return w.roofline_plot, "B"


def run(edits: int = 200, views=("roofline", "sweep"), spec_dir: str | None = None) -> dict:
    """Time ``edits`` edits in each view, alternating with the same number of baseline edits."""
    tmp = Path(tempfile.mkdtemp(prefix="roofgui-bench-"))
    os.environ["ROOFGUI_HOME"] = str(tmp / "home")
    app, w = open_window(tmp)
    from _paint import PaintProbe, settle, until_painted, warm_paint
    import bench_edit_baseline as base

    out: dict = {}
    frozen = None
    for view in views:
        plot, dim = show_view(w, view)
        probe = PaintProbe(plot.viewport())
        warm_paint(app, [probe], w)
        if frozen is None:
            # (the app no longer freezes its start-up objects; frozen here so that a full
            # collection's pause is timed with them frozen and without, after the edits)
            gc.collect()
            gc.freeze()
            frozen = gc.get_freeze_count()
        edit = w.form.editor.dim_edit(dim)
        start = float(edit.value() or 256)
        values = fresh_values(start, edits + 5 * max(5, edits // 10))

        # The baseline: a bare PlotWidget the size of the app's plot, holding its items.
        vb = plot.getPlotItem().getViewBox()
        spec = mirror_spec(plot)
        view_range = vb.viewRange()[0] + vb.viewRange()[1]
        if spec_dir:
            save_spec(spec, view_range, Path(spec_dir) / f"spec_{view}.npz")
        bw, items = base.build(spec, (plot.width(), plot.height()), view_range)
        bprobe = PaintProbe(bw.viewport())
        warm_paint(app, [bprobe], bw)

        samples, paints, late, bsamples, blate = [], [], 0, [], 0
        cpu, bcpu, ends, bends = [], [], [], []
        # when the panels around the plot (results, chips, op bounds, notices) are
        # updated too: the window says so with ``live.evaluated``, after its plot's pass
        panels, panel_at = [], []
        w.live.evaluated.connect(lambda *_: panel_at.append(time.perf_counter()))
        evals0 = getattr(w.live, "count", 0)
        for i in range(edits):
            text = str(values[i])

            t_edit = []

            def do_edit(text=text):
                t_edit.append(time.perf_counter())
                edit.setText(text)
                edit.textEdited.emit(text)

            panel_at.clear()
            dt, n = until_painted(app, [probe], do_edit, cpu=cpu, paint_end=ends)
            samples.append(dt)
            paints.append(n)
            late += settle(app, [probe])
            if panel_at:
                panels.append(panel_at[-1] - t_edit[0])
            dt, _ = until_painted(app, [bprobe], base.edit_fn(items, i), cpu=bcpu,
                                  paint_end=bends)
            bsamples.append(dt)
            blate += settle(app, [bprobe])
        # Bursts: five keystrokes before the event loop runs (typing "1", "12", "123" …
        # faster than a frame) must give one evaluation and one repaint, with no delay.
        bursts, burst_evals = [], []
        for i in range(max(5, edits // 10)):
            texts = [str(values[edits + 5 * i + k]) for k in range(5)]

            def do_burst(texts=texts):
                for t in texts:
                    edit.setText(t)
                    edit.textEdited.emit(t)

            e0 = getattr(w.live, "count", 0)
            dt, _ = until_painted(app, [probe], do_burst)
            bursts.append(dt)
            burst_evals.append(getattr(w.live, "count", 0) - e0)
            settle(app, [probe])
        bw.close()
        bw.deleteLater()
        counts = spec_summary(spec)
        counts["drawn_points"] = drawn_points(plot)
        out[view] = {"edited": dim, "edits": edits, "burst_samples": bursts,
                     "evaluations_per_burst": float(np.mean(burst_evals)),
                     "evaluations": getattr(w.live, "count", 0) - evals0,
                     "plot_size": [plot.width(), plot.height()],
                     "items": counts, "samples": samples, "baseline_samples": bsamples,
                     "cpu_samples": cpu, "baseline_cpu_samples": bcpu,
                     "paint_end_samples": ends, "baseline_paint_end_samples": bends,
                     "panels_samples": panels,
                     "paints_per_edit": float(np.mean(paints)), "late_paints": late,
                     "baseline_late_paints": blate}
    # (the baselines' windows, closed, go first: what a full collection then visits is
    # what lives, the window and its session's undo steps and caches)
    from PySide6 import QtCore

    app.sendPostedEvents(None, QtCore.QEvent.Type.DeferredDelete)
    gc.collect()
    tracked = len(gc.get_objects())  # (the frozen ones aside)
    t0 = time.perf_counter()
    gc.collect()
    t1 = time.perf_counter()
    gc.unfreeze()
    gc.collect()
    out["gc"] = {"frozen": frozen, "tracked": tracked, "full_collection_frozen_s": t1 - t0,
                 "full_collection_s": time.perf_counter() - t1}
    w.hide()
    return out


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--edits", type=int, default=200)
    p.add_argument("--view", action="append", choices=["roofline", "sweep"])
    p.add_argument("--spec-dir", help="save each view's items here for bench_edit_baseline.py")
    p.add_argument("--json")
    a = p.parse_args()
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    emit(run(a.edits, tuple(a.view or ("roofline", "sweep")), a.spec_dir), a.json)
    sys.stdout.flush()
    os._exit(0)  # skip Qt teardown: nothing left to measure


if __name__ == "__main__":
    main()
