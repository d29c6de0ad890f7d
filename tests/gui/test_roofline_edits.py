"""The roofline plot after edits: every item as a fresh plot of the same scenario would
hold it (data, places, looks), and no edit grows the symbols' atlas."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

import pyqtgraph.graphicsItems.ScatterPlotItem as spi
from roofgui.plotting.plots import RooflinePlot
from roofgui.presentation.style import SCREEN_DARK
from roofgui.presentation import plotdata as pd
from roofgui.model.catalog import Catalog
from roofgui.model.evaluate import evaluate_scenario
from roofgui.model.scenario import OpSpec, Scenario, ShardSpec

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
    curves += [(("guide_lines", k), it) for k, it in w.guide_lines.items()]
    curves += [(("net_link",), w.net_link)]
    for key, it in curves:
        x, y = it.getData()
        p = it.opts["pen"]
        out[key] = (it.isVisible(), np.nan_to_num(x, nan=9e99).tolist(),
                    np.nan_to_num(y, nan=9e99).tolist(), p.color().rgba(), p.widthF())
    for name in ("point_item", "ridge_item"):
        it = getattr(w, name)
        looks = [(str(p.symbol()), float(p.size()), p.pen().color().rgba(),
                  p.pen().widthF(), p.brush().color().rgba()) for p in it.points()]
        out[name] = (it.isVisible(), it.data["x"].tolist(), it.data["y"].tolist(),
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
    sizes = len(w.point_item.fragmentAtlas)
    for _ in range(3):
        for b in bs[::-1] + bs:
            show(w, with_b(sc, 0, b), cat)
    assert renders == []
    assert len(w.point_item.fragmentAtlas) == sizes


def test_counting_all_rectangles_at_once_picks_what_least_covered_picks():
    from roofgui.plotting.placement import covered, rect_bounds

    rng = np.random.default_rng(3)
    for _ in range(300):
        k, n = int(rng.integers(1, 6)), int(rng.integers(0, 60))
        # coordinates on a coarse grid: points on rectangle edges, and ties, are common
        rects = [tuple(float(v) for v in rng.integers(0, 20, 4) / 2) for _ in range(k)]
        xs, ys = rng.integers(0, 24, n) / 2, rng.integers(0, 24, n) / 2
        margin = float(rng.choice([0.0, 0.5, 4]))
        got = int(np.argmin(covered(rect_bounds(rects, margin), xs, ys)))
        assert got == pd.least_covered(rects, xs, ys, margin=margin)


def test_the_window_plots_cache_layers_follow_edits_and_look_plain(qtbot, cat):
    """The window's roofline draws its roofs, guides, bands and grid from kept pictures:
    an op's edit leaves the pictures as they were (no roof moved) yet the plot looks as
    a plain plot of the same scenario does; a chip dropped redraws them."""
    from gui_helpers import assert_same_picture, cached_and_plain

    cached, plain = cached_and_plain(qtbot, RooflinePlot, size=(900, 560))
    sc = busy()
    for w in (cached, plain):
        w.set_selected_op(0)  # (the op the form edits: its points are drawn live)
        show(w, sc, cat)
    assert_same_picture(cached, plain)  # (the members painted themselves: no picture yet)
    qtbot.wait(1)  # (each picture is drawn in the pass after the paint that found it stale)
    renders = {k: layer.renders for k, layer in cached.layers.items()}
    assert all(renders.values()), renders
    assert_same_picture(cached, plain)  # (from the pictures)
    sc = with_b(sc, 0, 300)
    for w in (cached, plain):
        show(w, sc, cat)
        w.set_view(cached.view_range())
    # the edit moved the selected op's points only: no picture was thrown away
    assert all(layer.key is not None for layer in cached.layers.values())
    assert {k: layer.renders for k, layer in cached.layers.items()} == renders
    assert_same_picture(cached, plain)
    sc = dataclasses.replace(sc, chips=CHIPS[:-1])
    for w in (cached, plain):
        show(w, sc, cat)
    assert_same_picture(cached, plain)
    qtbot.wait(1)
    assert cached.layers["lines"].renders > renders["lines"]
    assert_same_picture(cached, plain)


def test_the_legend_is_made_again_only_when_the_chips_or_the_style_change(qtbot, cat):
    w = new_plot(qtbot)
    sc = busy()
    show(w, sc, cat)

    def entries():
        return [(sample, label.text) for sample, label in w.legend.items]

    first = entries()
    assert [t for _, t in first][:len(CHIPS)] == [c.label for c in w.geometry.chips]
    for b in (32, 4096, 100000):  # (points move, across ridges too: the key is fixed)
        show(w, with_b(sc, 0, b), cat)
        assert entries() == first  # (the same items, not made again)
    fewer = dataclasses.replace(sc, chips=CHIPS[:-1])
    show(w, fewer, cat)
    names = [t for _, t in entries()]
    assert len(names) == len(first) - 1 and w.geometry.chips[-1].label in names
    assert not {id(s) for s, _ in entries()} & {id(s) for s, _ in first}  # (made again)
    dark = entries()
    w.set_style(SCREEN_DARK)
    assert entries() != dark and [t for _, t in entries()] == names


def test_a_what_if_renames_the_legend_entries_in_place_and_sizes_it_as_made(qtbot, cat):
    """A what-if names the chips with its factor at each keystroke: the legend's entries are
    renamed, not made again, and the legend ends as a fresh plot's of the same scenario."""
    w = new_plot(qtbot)
    sc = busy()
    show(w, sc, cat)
    samples = [s for s, _ in w.legend.items]
    for peak in (1.5, 1.25, 1.0):
        sc = dataclasses.replace(sc, what_if=dataclasses.replace(sc.what_if, peak=peak))
        show(w, sc, cat)
        assert [s for s, _ in w.legend.items] == samples  # (the same entries)
        names = [lab.text for _, lab in w.legend.items]
        assert all(f"peak×{peak:g}" in n for n in names[:len(CHIPS)]) == (peak != 1.0)
        fresh = new_plot(qtbot)
        show(fresh, sc, cat)
        assert names == [lab.text for _, lab in fresh.legend.items]
        size = (round(w.legend.width()), round(w.legend.height()))
        assert size == (round(fresh.legend.width()), round(fresh.legend.height())), peak
