"""Work the roofline plot skips on an edit because its inputs did not change: an edit
still leaves every item as a fresh plot of the same scenario would (counts and state,
never timings)."""

from __future__ import annotations

import dataclasses
import warnings

import numpy as np
import pyqtgraph as pg
import pytest
from PySide6 import QtGui

import pyqtgraph.graphicsItems.ScatterPlotItem as spi
from roofgui.plotting.plots import RooflinePlot, _Scatter
from roofgui.presentation.style import SCREEN_DARK
from roofgui.presentation import plotdata as pd
from roofgui.model.catalog import Catalog
from roofgui.model.scenario import OpSpec, Scenario, ShardSpec
from roofgui.model.evaluate import evaluate_scenario

CHIPS = ["tpu-v5e", "tpu-v5p", "h100-sxm", "h200", "mi300x"]


@pytest.fixture(scope="module")
def cat():
    return Catalog.load(False)


def busy() -> Scenario:
    return Scenario(chips=list(CHIPS), ops=[
        OpSpec("mm", "matmul", {"B": 256, "D": 8192, "F": 8192}, {}),
        OpSpec("int8 w", "matmul", {"B": 64, "D": 4096, "F": 4096}, {"weight": "int8"}),
        OpSpec("sharded", "matmul", {"B": 512, "D": 8192, "F": 8192}, {},
               ShardSpec("D", 2, "pcie")),
    ])


def with_b(sc: Scenario, op: int, b: float) -> Scenario:
    ops = list(sc.ops)
    ops[op] = dataclasses.replace(ops[op], dims={**ops[op].dims, "B": b})
    return dataclasses.replace(sc, ops=ops)


def new_plot(qtbot) -> RooflinePlot:
    w = RooflinePlot()
    qtbot.addWidget(w)
    w.resize(900, 560)
    w.show()
    return w


def show(w: RooflinePlot, sc: Scenario, cat) -> None:
    w.update_from(sc, evaluate_scenario(sc, cat))
    w.grab()  # a paint (and its layout)


def state(w: RooflinePlot) -> dict:
    """What the plot draws: every item's data, place, anchor, look and visibility."""
    def r(v):
        return round(float(v), 9)

    out = {"view": [r(v) for v in w.view_range()], "corner": w.legend_corner,
           "legend": w.legend.pos().x() if w.legend.isVisible() else None}
    for store in ("roof_labels", "ridge_labels", "op_labels", "region_labels"):
        for k, it in getattr(w, store).items():  # (a hidden label: its text is not drawn)
            b = it.sceneBoundingRect()  # (its transform, brought up to date before the paint)
            out[(store, k)] = (it.isVisible(), it.toPlainText(), r(it.pos().x()), r(it.pos().y()),
                               r(it.anchor.x()), r(it.anchor.y()), it.textItem.font().toString(),
                               [round(v, 6) for v in (b.x(), b.y(), b.width(), b.height())]
                               ) if it.isVisible() else (False,)
    curves = [(("roof", cid, k), it) for cid, d in w.roof_curves.items() for k, it in d.items()]
    curves += [((s, k), it) for s in ("guide_lines", "net_links") for k, it in getattr(w, s).items()]
    for key, it in curves:
        x, y = it.getData()
        p = it.opts["pen"]
        out[key] = (it.isVisible(), np.nan_to_num(x, nan=9e99).tolist(),
                    np.nan_to_num(y, nan=9e99).tolist(), p.color().rgba(), p.widthF())
    for store in ("point_groups", "net_groups", "ridge_items"):
        for k, it in getattr(w, store).items():
            looks = [(str(a), float(b), c.color().rgba(), c.widthF(), e.color().rgba())
                     for a, b, c, e in zip(*it._style(["symbol", "size", "pen", "brush"]))]
            out[(store, k)] = (it.isVisible(), it.data["x"].tolist(), it.data["y"].tolist(),
                               list(it.data["data"]), looks)
    out["regions"] = [(k, it.isVisible(), it.getRegion()) for k, it in w.region_items.items()]
    return out


def test_an_edited_plot_draws_what_a_fresh_plot_draws(qtbot, cat):
    """Edits, a style, a selection, a chip dropped and back, a pan: the edited plot, its
    skipped work and all, ends as a fresh plot of the same scenario, view and style."""
    sc = busy()
    w = new_plot(qtbot)
    show(w, sc, cat)
    steps = [lambda s: with_b(s, 0, 32), lambda s: with_b(s, 0, 2048),
             lambda s: with_b(s, 1, 300), lambda s: with_b(s, 2, 16),
             lambda s: dataclasses.replace(s, chips=CHIPS[:-1]),
             lambda s: dataclasses.replace(s, chips=list(CHIPS)),
             lambda s: with_b(s, 0, 100000), lambda s: with_b(s, 0, 128)]
    for i, step in enumerate(steps):
        sc = step(sc)
        show(w, sc, cat)
        if i == 3:
            w.set_selected_op(1)
            w.set_style(SCREEN_DARK)
            w.grab()
        if i == 5:
            w.vb.translateBy(x=0.3, y=-0.2)
            w.grab()
        if i == 6:
            w.vb.scaleBy((1.3, 0.8))  # (a zoom: every label's transform changes)
            w.grab()
        fresh = new_plot(qtbot)
        fresh.set_style(w.style)
        fresh.set_selected_op(w.selected_op)
        fresh.update_from(sc, evaluate_scenario(sc, cat))
        fresh.set_view(w.view_range())
        fresh.grab()
        assert state(w) == state(fresh), f"after step {i}"


def test_an_edit_renders_no_symbol_and_grows_no_atlas(qtbot, cat, monkeypatch):
    """The op points' pens and brushes are the same objects edit after edit, so their
    scatters' symbol atlases (keyed by those objects) already hold every look."""
    sc = busy()
    w = new_plot(qtbot)
    bs = [16, 64, 256, 1024, 4096, 32768]
    for b in bs:  # every bound each op reaches, once
        show(w, with_b(sc, 0, b), cat)
    renders = []
    real = spi.renderSymbol
    monkeypatch.setattr(spi, "renderSymbol", lambda *a, **k: (renders.append(1), real(*a, **k))[1])
    sizes = {k: len(it.fragmentAtlas) for k, it in w.point_groups.items()}
    for _ in range(3):
        for b in bs[::-1] + bs:
            show(w, with_b(sc, 0, b), cat)
    assert renders == []
    assert {k: len(it.fragmentAtlas) for k, it in w.point_groups.items()} == sizes


def test_moving_points_rewrites_the_spots_in_place(qtbot, cat):
    sc = busy()
    w = new_plot(qtbot)
    show(w, with_b(sc, 0, 256), cat)
    item = w.point_groups[(0, "")]
    data, symbols = item.data, item.data["symbol"].tolist()
    show(w, with_b(sc, 0, 257), cat)
    assert item.data["symbol"].tolist() == symbols  # the same bounds: the same looks ...
    assert item.data is data  # ... so the same record array, new places written into it
    show(w, with_b(sc, 0, 100000), cat)  # compute-bound now: new symbols, written in too
    assert item.data is data and item.data["symbol"].tolist() != symbols
    assert item.data["symbol"].tolist() == [p.symbol for p in w.geometry.points
                                            if p.op_index == 0]
    g = w.geometry
    assert item.data["x"].tolist() == [p.x for p in g.points if p.op_index == 0]
    assert list(item.data["data"]) == [p.tooltip for p in g.points if p.op_index == 0]


def _scatter_view(qtbot, cls, background=None):
    """A 300×200 plot over x 0..3, y 0..4 holding one antialiased scatter of ``cls``, shown."""
    w = pg.PlotWidget()
    qtbot.addWidget(w)
    w.resize(300, 200)
    if background is not None:
        w.setBackground(background)
    item = cls(antialias=True)
    w.addItem(item)
    w.setRange(xRange=(0, 3), yRange=(0, 4), padding=0)
    w.show()
    qtbot.waitExposed(w)
    return w, item


@pytest.mark.parametrize("n", [1, 4])
def test_moved_spots_paint_where_pyqtgraph_paints_them(qtbot, n):
    """The fast paint path's per-spot cache follows spots moved in place."""
    images = []
    for cls in (_Scatter, pg.ScatterPlotItem):
        w, item = _scatter_view(qtbot, cls, "w")
        pen, brush = pg.mkPen("#222222", width=1.5), pg.mkBrush("#1f77b4")
        for dx, sym in ((0.0, "o"), (0.35, "o"), (0.2, "s"), (0.1, "t")):  # moved, restyled
            x, y = [1.37 + dx, 2.5, 0.4, 9.0][:n], [2.21 - dx, 3.1, 0.7, 1.0][:n]
            symbols = [sym] + ["d"] * (n - 1)
            if cls is _Scatter:
                item.set_spots(x, y, ["tip"] * n, symbols, pen, brush, 13)
            else:
                item.setData(x=x, y=y, data=["tip"] * n, symbol=symbols, pen=pen,
                             brush=brush, size=13)
            w.grab()  # (a paint at each place, for the cache to go stale)
        if cls is _Scatter:
            assert item.data["symbol"].tolist() == symbols
        images.append(w.grab().toImage())
    a, b = images
    assert a == b
    blue = QtGui.QColor("#1f77b4").rgb()
    assert sum(a.pixel(x, y) == blue for x in range(a.width()) for y in range(a.height())) > 20


def test_counting_all_rectangles_at_once_picks_what_least_covered_picks():
    from roofgui.plotting.plot_base import _covered, _rect_bounds

    rng = np.random.default_rng(3)
    for _ in range(300):
        k, n = int(rng.integers(1, 6)), int(rng.integers(0, 60))
        # coordinates on a coarse grid: points on rectangle edges, and ties, are common
        rects = [tuple(float(v) for v in rng.integers(0, 20, 4) / 2) for _ in range(k)]
        xs, ys = rng.integers(0, 24, n) / 2, rng.integers(0, 24, n) / 2
        margin = float(rng.choice([0.0, 0.5, 4]))
        got = int(np.argmin(_covered(_rect_bounds(rects, margin), xs, ys)))
        assert got == pd.least_covered(rects, xs, ys, margin=margin)


def test_a_scatters_kept_rectangle_is_pyqtgraphs_through_moves_zooms_and_resizes(qtbot):
    """_Scatter keeps its rectangle and its pixel's size (until the view's transform
    changes): after every kind of change it answers what pyqtgraph works out afresh."""
    w, item = _scatter_view(qtbot, _Scatter)
    pen, brush = pg.mkPen("#222222", width=1.5), pg.mkBrush("#1f77b4")

    def check():
        w.grab()
        got, bounds = item.boundingRect(), list(item.bounds)
        # (pyqtgraph's, its pixel and its data's bounds, which set_spots sets, worked out now)
        kept, item._px, item.bounds = item._px, None, [None, None]
        want = pg.ScatterPlotItem.boundingRect(item)
        assert bounds == item.bounds  # (both axes worked out again by the line above)
        item._px = kept
        assert got.getRect() == pytest.approx(want.getRect(), rel=1e-12, abs=1e-12)

    item.set_spots([1.0, 2.0], [1.0, 3.0], ["a", "b"], ["o", "o"], pen, brush, 13)
    check()
    item.set_spots([0.5, 2.5], [0.2, 3.5], ["a", "b"], ["o", "o"], pen, brush, 13)  # moved
    check()
    w.setRange(xRange=(0, 30), yRange=(0, 4), padding=0)  # zoomed out along x
    check()
    w.resize(600, 300)  # a pixel is smaller in data units
    check()
    item.set_spots([0.5, 2.5], [0.2, 3.5], ["a", "b"], ["o", "o"], pen, brush, 25)  # bigger
    check()
    with np.errstate(invalid="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # (numpy's all-NaN warning)
        item.set_spots([np.nan, 2.75], [1.5, np.nan], ["a", "b"], ["o", "o"], pen, brush, 25)
        check()  # (NaN places left out of the bounds, as nanmin and nanmax leave them)
    # spots sized in data units (not pixels): their bounds reach half a spot further
    item.setPxMode(False)
    for x in ([0.5, 2.5], [0.75, 2.0]):  # (the second takes set_spots' short path)
        item.set_spots(x, [0.2, 3.5], ["a", "b"], ["o", "o"], pen, brush, 0.25)
        check()
