"""The roofline and sweep widgets, driven through their public API (offscreen)."""

import math

import numpy as np
import pytest
from PySide6 import QtCore, QtGui, QtWidgets

from roofgui.plotting.plots import RooflinePlot
from roofgui.plotting.sweep_plot import SweepPlot
from roofgui.presentation.style import SCREEN_DARK, SCREEN_LIGHT, SLIDE, PlotStyle, screen_style
from roofgui.model.catalog import Catalog
from roofgui.presentation import plotdata as pd
from roofgui.model.scenario import OpSpec, Scenario, ShardSpec
from roofgui.model.evaluate import evaluate_scenario, sweep_scenario

from gui_helpers import scatter_xy, two_chip

L = math.log10


@pytest.fixture(scope="module")
def cat():
    return Catalog.load(False)


def data_of(item):
    x, y = item.getData() if hasattr(item, "getData") else (None, None)
    return np.asarray(x), np.asarray(y)


def assert_draws(item, x, y, tol=2e-4):
    """A sweep curve draws the model's polyline: its points are some of the model's
    points, ends included, and its knees; every model point lies within ``tol`` of it."""
    dx, dy = data_of(item)
    assert dx.size >= 2 and dx[0] == x[0] and dx[-1] == x[-1]
    at = np.minimum(np.searchsorted(x, dx), x.size - 1)
    model = x[at] == dx
    assert np.array_equal(y[at[model]], dy[model]) and np.count_nonzero(~model) <= 2
    assert np.max(np.abs(np.interp(x, dx, dy) - y)) <= tol


def test_two_chips_roofs_and_points_at_model_coordinates(roof, cat):
    sc = two_chip()
    ev = evaluate_scenario(sc, cat)
    roof.update_from(sc, ev)
    assert set(roof.roof_curves) == {"tpu-v5e", "h100-sxm"}
    for cid in roof.roof_curves:
        assert {"hbm", "compute:bf16"} <= set(roof.roof_curves[cid])
    x, y = data_of(roof.roof_curves["tpu-v5e"]["compute:bf16"])
    assert np.allclose(y, L(1.97e14))
    x, y = data_of(roof.roof_curves["tpu-v5e"]["hbm"])
    assert np.allclose(y - x, L(8.2e11))
    assert len(roof.points) == 2
    for e in ev.entries:
        item = roof.points[(e.op_index, e.phase, e.chip_id)]
        (px, py), = scatter_xy(item)
        assert px == pytest.approx(L(float(e.analysis.result.intensity)))
        assert py == pytest.approx(L(float(e.analysis.result.attainable_flops)))
    # marker shape shows the bound
    assert roof.points[(0, "", "tpu-v5e")].opts["symbol"] == "o"  # compute-bound at B=256
    assert roof.points[(0, "", "h100-sxm")].opts["symbol"] == "s"  # memory-bound there
    # legend names each chip (with what-ifs) and the marker shapes
    names = [lab.text for _, lab in roof.legend.items]
    assert "Google TPU v5e" in names and any("H100" in n for n in names)
    assert "compute-bound" in names and "memory-bound" in names
    # regions: two chips with different ridges: red, yellow and green are shown
    assert all(roof.region_items[k].isVisible() for k in ("red", "yellow", "green"))
    lo, hi = roof.region_items["yellow"].getRegion()
    assert lo == pytest.approx(L(1.97e14 / 8.2e11))


def test_editing_dims_moves_the_same_point(roof, cat):
    sc = two_chip()
    roof.update_from(sc, evaluate_scenario(sc, cat))
    item = roof.points[(0, "", "tpu-v5e")]
    hbm = roof.roof_curves["tpu-v5e"]["hbm"]
    (x_before, _), = scatter_xy(item)
    sc.ops[0].dims["B"] = 32
    ev = evaluate_scenario(sc, cat)
    roof.update_from(sc, ev)
    assert roof.points[(0, "", "tpu-v5e")] is item
    assert roof.roof_curves["tpu-v5e"]["hbm"] is hbm
    (x_after, y_after), = scatter_xy(item)
    e = next(e for e in ev.entries if e.chip_id == "tpu-v5e")
    assert x_after < x_before
    assert x_after == pytest.approx(L(float(e.analysis.result.intensity)))
    assert y_after == pytest.approx(L(float(e.analysis.result.attainable_flops)))
    assert item.opts["symbol"] == "s"  # now memory-bound


def test_adding_and_removing_a_chip(roof, cat):
    sc = Scenario(chips=["tpu-v5e"], ops=two_chip().ops)
    roof.update_from(sc, evaluate_scenario(sc, cat))
    assert set(roof.roof_curves) == {"tpu-v5e"}
    assert not roof.region_items["yellow"].isVisible()
    green_one = roof.region_items["green"].getRegion()[0]
    n_items = len(roof.getPlotItem().items)

    sc.chips.append("h100-sxm")
    roof.update_from(sc, evaluate_scenario(sc, cat))
    assert set(roof.roof_curves) == {"tpu-v5e", "h100-sxm"}
    assert roof.region_items["yellow"].isVisible()
    assert roof.region_items["green"].getRegion()[0] > green_one
    assert len(roof.getPlotItem().items) > n_items
    h100_items = list(roof.roof_curves["h100-sxm"].values()) + [roof.points[(0, "", "h100-sxm")]]
    n_after_add = len(roof.getPlotItem().items)

    sc.chips.remove("h100-sxm")
    roof.update_from(sc, evaluate_scenario(sc, cat))
    assert set(roof.roof_curves) == {"tpu-v5e"}
    assert (0, "", "h100-sxm") not in roof.points
    assert not roof.region_items["yellow"].isVisible()
    assert roof.region_items["green"].getRegion()[0] == pytest.approx(green_one)
    for it in h100_items[:-1]:  # (its roofs are out of the plot, its point's view dead)
        assert it not in roof.getPlotItem().items
    assert not h100_items[-1].isVisible()
    assert not any("H100" in lab.text for _, lab in roof.legend.items)
    assert len(roof.getPlotItem().items) == n_items
    # checking it again draws it as before
    sc.chips.append("h100-sxm")
    roof.update_from(sc, evaluate_scenario(sc, cat))
    assert len(roof.getPlotItem().items) == n_after_add
    assert all(it.isVisible() for it in roof.roof_curves["h100-sxm"].values())
    assert roof.points[(0, "", "h100-sxm")].isVisible()


def test_link_roof_for_a_sharded_op_is_dashed(roof, cat):
    sc = Scenario(chips=["tpu-v5e"], ops=[OpSpec("mm", "matmul", {"B": 512}, {},
                                                 ShardSpec("D", 2, "ici"))])
    roof.update_from(sc, evaluate_scenario(sc, cat))
    link = roof.roof_curves["tpu-v5e"]["link:ici"]
    assert link.opts["pen"].style() == QtCore.Qt.PenStyle.DashLine
    assert roof.roof_curves["tpu-v5e"]["hbm"].opts["pen"].style() == QtCore.Qt.PenStyle.SolidLine
    x, y = data_of(link)
    assert np.allclose(y - x, L(4.5e10))
    # sharding off: the link roof goes
    sc.ops[0].shard = None
    roof.update_from(sc, evaluate_scenario(sc, cat))
    assert "link:ici" not in roof.roof_curves["tpu-v5e"]
    assert link not in roof.getPlotItem().items


def test_view_is_kept_across_edits_and_reset_by_fit(roof, cat, qtbot):
    sc = two_chip()
    roof.update_from(sc, evaluate_scenario(sc, cat))
    fitted = roof.view_range()
    x0, x1, y0, y1 = roof.geometry.fit
    assert fitted == pytest.approx([x0, x1, y0, y1], abs=1e-6)
    seen = []
    roof.viewChangedByUser.connect(seen.append)
    # a user zoom, through the view box as the mouse wheel does
    roof.vb.scaleBy((0.5, 0.5))
    roof.vb.sigRangeChangedManually.emit([True, True])
    zoomed = roof.view_range()
    assert zoomed[1] - zoomed[0] == pytest.approx((x1 - x0) / 2)
    assert seen and seen[-1] == pytest.approx(zoomed)
    sc.ops[0].dims["B"] = 4096
    sc.chips.append("mi300x")
    roof.update_from(sc, evaluate_scenario(sc, cat))
    assert roof.view_range() == pytest.approx(zoomed)
    roof.fit()
    assert roof.view_range() == pytest.approx(list(roof.geometry.fit), abs=1e-6)
    roof.set_view([0, 3, 13, 16])
    assert roof.view_range() == pytest.approx([0, 3, 13, 16])


def test_wheel_zoom_emits_view_changed(roof, cat, qtbot):
    sc = two_chip()
    roof.update_from(sc, evaluate_scenario(sc, cat))
    before = roof.view_range()
    with qtbot.waitSignal(roof.viewChangedByUser, timeout=2000) as blocker:
        c = roof.vb.mapViewToScene(roof.vb.viewRect().center())
        pos = roof.mapFromScene(c)
        ev = QtGui.QWheelEvent(QtCore.QPointF(pos), QtCore.QPointF(roof.mapToGlobal(pos)),
                               QtCore.QPoint(0, 0), QtCore.QPoint(0, 120),
                               QtCore.Qt.MouseButton.NoButton, QtCore.Qt.KeyboardModifier.NoModifier,
                               QtCore.Qt.ScrollPhase.NoScrollPhase, False)
        QtCore.QCoreApplication.sendEvent(roof.viewport(), ev)
    after = blocker.args[0]
    assert after[1] - after[0] < before[1] - before[0]


def test_first_update_uses_the_scenarios_saved_view(roof, cat):
    sc = two_chip()
    sc.view.roofline = [0.5, 3.5, 12.5, 15.5]
    roof.update_from(sc, evaluate_scenario(sc, cat))
    assert roof.view_range() == pytest.approx([0.5, 3.5, 12.5, 15.5])


def test_tooltips_on_points_and_roofs(roof, cat):
    sc = two_chip()
    roof.update_from(sc, evaluate_scenario(sc, cat))
    roof.set_view([0, 4, 12, 16])
    (px, py), = scatter_xy(roof.points[(0, "", "h100-sxm")])
    tip = roof.tooltip_at(px, py)
    assert tip and "matmul" in tip and "H100" in tip and "memory-bound" in tip
    assert "T_math" in tip and "FLOP/byte" in tip
    # on the TPU's HBM slant, well left of any point
    tip = roof.tooltip_at(1.0, 1.0 + L(8.2e11))
    assert tip and "HBM roof" in tip and "TPU v5e" in tip
    # the compute roof
    tip = roof.tooltip_at(3.5, L(1.97e14))
    assert tip and "compute roof" in tip and "197 TFLOP/s" in tip
    # empty space
    assert roof.tooltip_at(0.5, 15.8) is None
    # readout: the mouse over the view at (240 FLOP/byte, 197 TFLOP/s)
    roof.scene().sigMouseMoved.emit(roof.vb.mapViewToScene(QtCore.QPointF(L(240), L(1.97e14))))
    assert "240" in roof.readout.text and "197 TFLOP/s" in roof.readout.text


def test_styles_apply_and_scale(roof, cat):
    sc = two_chip()
    roof.update_from(sc, evaluate_scenario(sc, cat))
    w_screen = roof.roof_curves["tpu-v5e"]["hbm"].opts["pen"].widthF()
    roof.set_style(SLIDE)
    w_slide = roof.roof_curves["tpu-v5e"]["hbm"].opts["pen"].widthF()
    assert w_slide == pytest.approx(SLIDE.roof_width) and w_slide > w_screen
    roof.set_style(SLIDE.scaled(2))
    assert roof.roof_curves["tpu-v5e"]["hbm"].opts["pen"].widthF() == pytest.approx(2 * SLIDE.roof_width)
    assert roof.points[(0, "", "tpu-v5e")].opts["size"] == pytest.approx(2 * SLIDE.marker_size)
    s2 = SLIDE.scaled(2)
    assert s2.tick_font_pt == 2 * SLIDE.tick_font_pt and s2.palette == SLIDE.palette
    assert screen_style(True) is SCREEN_DARK and screen_style(False) is SCREEN_LIGHT
    with pytest.raises(ValueError):
        SLIDE.scaled(0)


def _pixels(img: QtGui.QImage) -> np.ndarray:
    img = img.convertToFormat(QtGui.QImage.Format.Format_RGBA8888)
    a = np.frombuffer(img.constBits(), np.uint8, img.sizeInBytes())
    return a.reshape(img.height(), img.bytesPerLine() // 4, 4)[:, :img.width(), :3].astype(int)


@pytest.mark.parametrize("style", [SCREEN_LIGHT, SCREEN_DARK, SLIDE])
def test_renders_with_region_colours_where_the_regions_are(qtbot, cat, style):
    w = RooflinePlot(style=style)
    qtbot.addWidget(w)
    w.resize(1200, 700)
    w.show()
    sc = two_chip()
    w.update_from(sc, evaluate_scenario(sc, cat))
    img = w.grab().toImage()
    assert (img.width(), img.height()) == (1200, 700) or img.width() >= 1200
    px = _pixels(img)
    bg = np.array(QtGui.QColor(style.background).getRgb()[:3])
    assert (np.abs(px - bg).sum(axis=2) > 30).mean() > 0.02  # not blank
    # sample the middle of the red and green bands, low in the plot where nothing else is
    x0, x1, y0, y1 = w.view_range()
    red_x = (x0 + w.geometry.regions[0].x1) / 2
    green_x = (w.geometry.regions[-1].x0 + x1) / 2
    for xv, kind in ((red_x, "red"), (green_x, "green")):
        sp = w.vb.mapViewToScene(QtCore.QPointF(xv, y0 + 0.45 * (y1 - y0)))
        r, g, b = px[int(sp.y()), int(sp.x())]
        if kind == "red":
            assert r > g + 4 and r > b + 4, (r, g, b)
        else:
            assert g > r + 4 and g > b, (r, g, b)


def test_dark_style_background(qtbot, cat):
    w = RooflinePlot(style=SCREEN_DARK)
    qtbot.addWidget(w)
    w.resize(400, 300)
    sc = two_chip()
    w.update_from(sc, evaluate_scenario(sc, cat))
    px = _pixels(w.grab().toImage())
    assert px[2, 2].sum() < 3 * 60  # dark corner
    w.set_style(SCREEN_LIGHT)
    px = _pixels(w.grab().toImage())
    assert px[2, 2].sum() > 3 * 240


# -- sweep ------------------------------------------------------------------------

def test_sweep_two_ops_two_chips_has_four_curves_with_critical_markers(qtbot, cat):
    w = SweepPlot()
    qtbot.addWidget(w)
    w.resize(900, 600)
    sc = Scenario(chips=["tpu-v5e", "h100-sxm"], ops=[
        OpSpec("D=F=4096", "matmul", {"D": 4096, "F": 4096}, {"w": "int8"}),
        OpSpec("D=F=1024", "matmul", {"D": 1024, "F": 1024}, {"w": "int8"})])
    sc.sweep.all_ops = True  # (by default: the selected op's curves alone)
    curves, errors = sweep_scenario(sc, cat)
    assert not errors
    w.update_from(sc, curves)
    assert len(w.curves) == 4
    assert set(w.curves) == {(i, "", c) for i in (0, 1) for c in ("tpu-v5e", "h100-sxm")}
    for key, item in w.curves.items():
        c = next(c for c in curves if (c.op_index, c.phase, c.chip.id) == key)
        assert_draws(item, np.log10(c.x), np.log10(c.result.attainable_flops))
        m = w.crit_markers[key]
        assert m.isVisible()
        (mx, my), = scatter_xy(m)
        assert mx == pytest.approx(L(c.critical))
        assert w.crit_labels[key].toPlainText().startswith("B* = ")
    # TPU v5e, int8 weights, D=F=4096: the reference's knee
    assert w.crit_labels[(0, "", "tpu-v5e")].toPlainText() == "B* = 136"
    # legend: one entry per curve
    assert len(w.legend.items) == 4
    item = w.curves[(0, "", "tpu-v5e")]
    # remove an op: its two curves go, the others stay the same objects
    sc.ops.pop()
    curves, _ = sweep_scenario(sc, cat)
    w.update_from(sc, curves)
    assert len(w.curves) == 2 and w.curves[(0, "", "tpu-v5e")] is item
    assert len(w.legend.items) == 2


def test_sweep_draws_a_repeated_critical_label_once(qtbot, cat):
    w = SweepPlot()
    qtbot.addWidget(w)
    w.resize(900, 600)
    w.show()
    mm = OpSpec("a", "matmul", {"D": 4096, "F": 4096}, {"w": "int8"})
    sc = Scenario(chips=["tpu-v5e"], ops=[mm, OpSpec("b", "matmul", dict(mm.dims), dict(mm.dtypes)),
                                          OpSpec("c", "matmul", {"D": 1024, "F": 1024}, {"w": "int8"})])
    sc.sweep.all_ops = True
    w.update_from(sc, sweep_scenario(sc, cat)[0])
    labels = {k[0]: lab for k, lab in w.crit_labels.items()}
    assert labels[0].toPlainText() == labels[1].toPlainText() == "B* = 136"
    assert labels[0].isVisible() and not labels[1].isVisible() and labels[2].isVisible()
    assert all(w.crit_markers[(i, "", "tpu-v5e")].isVisible() for i in range(3))


def test_sweep_time_mode_switches_the_axis(qtbot, cat):
    w = SweepPlot()
    qtbot.addWidget(w)
    w.resize(600, 400)
    sc = two_chip()
    sc.sweep.y = "time"
    curves, _ = sweep_scenario(sc, cat)
    w.update_from(sc, curves)
    assert w.getPlotItem().getAxis("left").kind == "time"
    assert "Time" in w.getPlotItem().getAxis("left").labelText
    x, y = np.log10(curves[0].x), np.log10(curves[0].result.t_lower)
    assert_draws(w.curves[(0, "", "tpu-v5e")], x, y)
    assert w.view_range()[2] < y.min() and w.view_range()[3] > y.max()
    tip = w.tooltip_at(x[200], y[200])
    assert tip and "matmul" in tip


def test_view_follows_the_data_until_the_user_zooms(roof, cat):
    sc = two_chip()
    roof.update_from(sc, evaluate_scenario(sc, cat))
    first = roof.view_range()
    # a point that leaves the fitted view pulls the view along (nobody zoomed yet)
    sc.ops[0].dims["B"] = 1e6
    sc.ops[0].dims["D"] = 1e6
    sc.ops[0].dims["F"] = 1e6
    roof.update_from(sc, evaluate_scenario(sc, cat))
    (px, py), = scatter_xy(roof.points[(0, "", "tpu-v5e")])
    v = roof.view_range()
    assert v != first and v[0] < px < v[1] and v[2] < py < v[3]
    # small edits inside the view do not move it
    sc.ops[0].dims["B"] = 9e5
    roof.update_from(sc, evaluate_scenario(sc, cat))
    assert roof.view_range() == pytest.approx(v)
    # once the user zooms, the view is theirs
    roof.vb.scaleBy((0.5, 0.5))
    roof.vb.sigRangeChangedManually.emit([True, True])
    assert roof.user_view
    zoomed = roof.view_range()
    sc.ops[0].dims.update(B=16, D=256, F=256)
    roof.update_from(sc, evaluate_scenario(sc, cat))
    assert roof.view_range() == pytest.approx(zoomed)
    roof.fit()
    assert not roof.user_view


def test_empty_scenarios(roof, cat, qtbot):
    roof.update_from(Scenario(), evaluate_scenario(Scenario(), cat))
    assert roof.points == {} and roof.roof_curves == {} and not roof.legend.isVisible()
    sc = Scenario(chips=["tpu-v5e"])  # a chip and no ops: its roofs, no marker key
    roof.update_from(sc, evaluate_scenario(sc, cat))
    assert set(roof.roof_curves["tpu-v5e"]) == {"hbm", "compute:bf16"}
    assert [lab.text for _, lab in roof.legend.items] == ["Google TPU v5e"]
    w = SweepPlot()
    qtbot.addWidget(w)
    w.update_from(Scenario(), [])
    assert w.curves == {}


def test_roof_labels_move_off_points(roof, cat):
    # a compute-bound op far right sits where the right-edge label would go
    sc = Scenario(chips=["tpu-v5e"], ops=[OpSpec("big", "matmul", {"B": 8192}, {})])
    roof.update_from(sc, evaluate_scenario(sc, cat))
    x0, x1, y0, y1 = roof.geometry.fit
    (px, py), = scatter_xy(roof.points[(0, "", "tpu-v5e")])
    roof.set_view([x0, px + 0.05, y0, y1])
    lab = roof.roof_labels[("tpu-v5e", "compute:bf16")]
    assert lab.isVisible() and "197 TFLOP/s" in lab.toPlainText()
    point_scene = roof.vb.mapViewToScene(QtCore.QPointF(px, py))
    assert not lab.sceneBoundingRect().adjusted(-4, -4, 4, 4).contains(point_scene)
    assert lab.anchor[0] == 0.0  # moved to just after the ridge
    roof.set_view([x0, x1 + 2, y0, y1])  # room to its right again
    assert lab.anchor[0] == 1.0


def test_mouse_move_shows_readout_and_tooltip(roof, cat):
    from PySide6.QtWidgets import QToolTip
    sc = two_chip()
    roof.update_from(sc, evaluate_scenario(sc, cat))
    (px, py), = scatter_xy(roof.points[(0, "", "tpu-v5e")])
    roof.scene().sigMouseMoved.emit(roof.vb.mapViewToScene(QtCore.QPointF(px, py)))
    assert "FLOP/byte" in roof.readout.text and "TFLOP/s" in roof.readout.text
    assert "compute-bound" in QToolTip.text() and "TPU v5e" in QToolTip.text()
    assert roof.hover_tip == QToolTip.text()
    x0, x1, y0, y1 = roof.view_range()
    roof.scene().sigMouseMoved.emit(roof.vb.mapViewToScene(QtCore.QPointF(x0 + 0.05, y1 - 0.05)))
    assert roof.hover_tip is None
    # outside the axes: the readout clears
    roof.scene().sigMouseMoved.emit(QtCore.QPointF(-50, -50))
    assert roof.readout.text == ""


def test_sweep_keeps_the_rooflines_chip_colours(qtbot, cat):
    w = SweepPlot()
    qtbot.addWidget(w)
    sc = Scenario(chips=["tpu-v5e", "h100-sxm"], ops=[
        OpSpec("a", "matmul", {}, {}), OpSpec("b", "matmul", {"D": 1024, "F": 1024}, {})])
    curves, _ = sweep_scenario(sc, cat)
    w.update_from(sc, curves, colours={"h100-sxm": 0, "tpu-v5e": 3})
    slots = {ln.chip_id: ln.colour for ln in w.geometry.lines}
    assert slots == {"h100-sxm": 0, "tpu-v5e": 3}
    pen = w.curves[(0, "", "tpu-v5e")].opts["pen"]
    assert pen.color().name().lower() == w.style.colour(3).lower()


def _click(qtbot, plot, scene_pos, button=QtCore.Qt.MouseButton.LeftButton):
    view_pos = plot.mapFromScene(scene_pos)
    qtbot.mouseClick(plot.viewport(), button, pos=view_pos)


def test_clicking_a_point_or_its_label_emits_op_clicked(roof, cat, qtbot):
    sc = Scenario(chips=["tpu-v5e", "h100-sxm"], ops=[
        OpSpec("small", "matmul", {"B": 16, "D": 8192, "F": 8192}, {}),
        OpSpec("big", "matmul", {"B": 8192, "D": 8192, "F": 8192}, {}, ShardSpec("D", 2, "scale-up"))])
    roof.update_from(sc, evaluate_scenario(sc, cat))
    roof.fit()
    qtbot.wait(10)  # labels are laid out once Qt has sized them
    got = []
    roof.opClicked.connect(got.append)
    (px, py), = scatter_xy(roof.points[(1, "", "h100-sxm")])
    _click(qtbot, roof, roof.vb.mapViewToScene(QtCore.QPointF(px, py)))
    assert got == [1]
    (nx, ny), = scatter_xy(roof.net_points[(1, "", "tpu-v5e")])  # the link twin is op 1 too
    _click(qtbot, roof, roof.vb.mapViewToScene(QtCore.QPointF(nx, ny)))
    assert got == [1, 1]
    label = roof.op_labels[(0, "")]
    assert label.isVisible() and label.toPlainText() == "small"
    _click(qtbot, roof, label.sceneBoundingRect().center())
    assert got == [1, 1, 0]
    # empty plot area and other buttons select nothing
    x0, x1, y0, y1 = roof.view_range()
    _click(qtbot, roof, roof.vb.mapViewToScene(QtCore.QPointF(x0 + 0.02 * (x1 - x0), y0 + 0.02 * (y1 - y0))))
    _click(qtbot, roof, roof.vb.mapViewToScene(QtCore.QPointF(px, py)), QtCore.Qt.MouseButton.RightButton)
    assert got == [1, 1, 0]


@pytest.mark.parametrize("style", [SCREEN_LIGHT, SLIDE], ids=["screen", "slide"])
def test_a_tick_at_the_top_edge_is_drawn_whole(qtbot, cat, style):
    # the fitted view of a 2.25 PFLOP/s chip ends at 10 P: its label must not be cut off
    w = RooflinePlot(style=style)
    qtbot.addWidget(w)
    w.resize(900, 600)
    w.show()
    sc = Scenario(chips=["b200"], ops=[OpSpec("mm", "matmul", {"B": 4096, "D": 8192, "F": 8192}, {})])
    w.update_from(sc, evaluate_scenario(sc, cat))
    w.fit()
    qtbot.wait(10)
    ax = w.getPlotItem().getAxis("left")
    x0, x1, y0, y1 = w.view_range()
    majors = ax.tickValues(y0, y1, w.vb.height())[0][1]
    assert max(majors) == pytest.approx(y1)  # a labelled decade right at the top edge
    top_px = w.mapFromScene(w.vb.mapViewToScene(QtCore.QPointF(x0, y1))).y()
    half = QtGui.QFontMetricsF(ax.style["tickFont"]).height() / 2
    assert top_px - half >= 0  # the label's top is inside the widget


def test_a_ridge_value_two_chips_share_is_labelled_once(roof, cat):
    sc = Scenario(chips=["h100-sxm", "h200"],
                  ops=[OpSpec("mm", "matmul", {"B": 4096, "D": 8192, "F": 8192}, {},
                              ShardSpec("D", 8, "nvlink"))])
    roof.update_from(sc, evaluate_scenario(sc, cat))
    link = {cid: lab for (cid, key), lab in roof.ridge_labels.items() if key.startswith("link:")}
    assert link["h100-sxm"].toPlainText() == link["h200"].toPlainText()
    assert link["h100-sxm"].isVisible() and not link["h200"].isVisible()
    hbm = [lab for (cid, key), lab in roof.ridge_labels.items() if key.startswith("hbm|")]
    assert len(hbm) == 2 and all(lab.isVisible() for lab in hbm)
    # both ridge guides and markers are still drawn
    assert len([k for k in roof.ridge_guides if k[1].startswith("link:")]) == 2


def test_the_selected_ops_labels_are_emphasised(roof, cat):
    sc = Scenario(chips=["tpu-v5e"], ops=[
        OpSpec("a", "matmul", {"B": 16}, {}), OpSpec("b", "matmul", {"B": 8192}, {})])
    roof.update_from(sc, evaluate_scenario(sc, cat))
    a, b = roof.op_labels[(0, "")], roof.op_labels[(1, "")]
    assert not a.textItem.font().bold() and not b.textItem.font().bold()
    roof.set_selected_op(1)
    assert b.textItem.font().bold() and not a.textItem.font().bold()
    assert b.border.style() != QtCore.Qt.PenStyle.NoPen and a.border.style() == QtCore.Qt.PenStyle.NoPen
    item = roof.op_labels[(1, "")]
    roof.update_from(sc, evaluate_scenario(sc, cat))  # an edit keeps the emphasis and the item
    assert roof.op_labels[(1, "")] is item and item.textItem.font().bold()
    roof.set_selected_op(0)
    assert a.textItem.font().bold() and not b.textItem.font().bold()
    roof.set_style(SCREEN_DARK)  # a new style keeps it too
    assert a.textItem.font().bold() and not b.textItem.font().bold()


@pytest.mark.parametrize("size", [(900, 600), (1200, 500)])
def test_op_labels_cover_no_point(qtbot, cat, size):
    # the busy example: 3 ops on 3 GPUs, the down-proj sharded (link twins too)
    from pathlib import Path

    from roofgui.model.scenario import load_scenario

    sc = load_scenario(Path(__file__).resolve().parents[2] / "resources" / "examples"
                       / "09-mlp-on-three-gpus.json")
    w = RooflinePlot()
    qtbot.addWidget(w)
    w.resize(*size)
    w.show()
    w.update_from(sc, evaluate_scenario(sc, cat))
    w.fit()
    qtbot.wait(20)
    items = list(w.points.items()) + list(w.net_points.items())
    for key, label in w.op_labels.items():
        rect = label.sceneBoundingRect()
        assert w.vb.sceneBoundingRect().contains(rect), key  # inside the view
        for pkey, item in items:
            (px, py), = scatter_xy(item)
            pos = w.vb.mapViewToScene(QtCore.QPointF(px, py))
            if (pkey[0], pkey[1]) == key and label.pos() == QtCore.QPointF(px, py):
                continue  # its own pin
            assert not rect.contains(pos), (key, pkey)


@pytest.mark.parametrize("size", [(940, 520), (900, 600), (700, 450)])
def test_region_labels_never_under_the_legend(qtbot, cat, size):
    # the default question sharded over each chip's scale-up link: the legend takes the
    # top-left corner, where the red band's name would go
    sc = Scenario(chips=["tpu-v5e", "h100-sxm"],
                  ops=[OpSpec("matmul", "matmul", {"B": 256, "D": 8192, "F": 8192}, {},
                              ShardSpec("D", 2, "scale-up"))])
    w = RooflinePlot()
    qtbot.addWidget(w)
    w.resize(*size)
    w.show()
    plain = Scenario(chips=sc.chips, ops=[OpSpec("matmul", "matmul", dict(sc.ops[0].dims), {})])
    w.update_from(plain, evaluate_scenario(plain, cat))
    qtbot.wait(10)
    w.update_from(sc, evaluate_scenario(sc, cat))  # sharding on: the view follows the link roof
    qtbot.wait(20)  # painted: text items have their final transforms
    # zoom: the layout runs before Qt repaints the labels (whose own scene rectangles lag
    # until then); it must see where they will be, so laying out again moves nothing
    x0, x1, y0, y1 = w.view_range()
    w.set_view([x0 + 0.3, x1 - 0.1, y0 + 0.2, y1])
    items = [i for i in list(w.op_labels.values()) + list(w.roof_labels.values())
             + list(w.region_labels.values()) + list(w.ridge_labels.values()) if i.isVisible()]
    before = [i.sceneBoundingRect() for i in items]
    corner = w.legend_corner
    qtbot.wait(20)
    for r, item in zip(before, items):
        q = item.sceneBoundingRect()
        assert abs(r.left() - q.left()) < 1.5 and abs(r.top() - q.top()) < 1.5, item.toPlainText()
        assert abs(r.width() - q.width()) < 1.5 and abs(r.height() - q.height()) < 1.5
    w.lay_out_annotations()
    assert w.legend_corner == corner
    legend = w.legend.sceneBoundingRect()
    shown = [k for k, lab in w.region_labels.items() if lab.isVisible()]
    assert shown  # something is named
    for kind in shown:
        assert not w.region_labels[kind].sceneBoundingRect().intersects(legend), kind


def test_view_changes_lay_labels_out_before_the_next_paint(roof, cat, qtbot):
    """Range changes and resizes mark the labels stale; the next paint lays them out."""
    roof.show()
    qtbot.waitExposed(roof)
    sc = two_chip()
    roof.update_from(sc, evaluate_scenario(sc, cat))
    roof.grab()
    lab = roof.ridge_labels[next(iter(roof.ridge_labels))]
    before = (lab.pos().x(), lab.pos().y())
    for k in range(5):  # a pan: five range changes before anything is painted
        roof.vb.translateBy(x=0.02 * (k + 1), y=0.1)
    roof.resize(700, 500)
    assert roof.layout_pending() and (lab.pos().x(), lab.pos().y()) == before  # not yet ...
    roof.grab()  # ... until the plot paints
    assert not roof.layout_pending()
    painted = (lab.pos().x(), lab.pos().y())
    roof.lay_out_annotations()  # a fresh layout puts it where the paint had it
    assert (lab.pos().x(), lab.pos().y()) == pytest.approx(painted)
    assert lab.pos().y() == pytest.approx(roof.view_range()[2])  # at the bottom of the new view
    # fit() (the Fit button) lays out at once, as it always did
    roof.vb.translateBy(x=0.3)
    roof.fit()
    assert not roof.layout_pending()
    assert lab.pos().y() == pytest.approx(roof.view_range()[2])


def test_sweep_critical_markers_are_one_scatter_with_a_view_per_line(qtbot, cat):
    """The sweep's critical markers are spots of one scatter (one item to update and paint);
    ``crit_markers[key]`` is each line's view of its spot: where the geometry puts it, with
    its tooltip under the mouse, hidden for a line without a critical value, and the same
    view object while the line is shown."""
    w = SweepPlot()
    qtbot.addWidget(w)
    w.resize(900, 600)
    w.show()
    mm = OpSpec("a", "matmul", {"D": 4096, "F": 4096}, {"w": "int8"})
    sc = Scenario(chips=["tpu-v5e", "h100-sxm"],
                  ops=[mm, OpSpec("b", "matmul", {"D": 1024, "F": 1024}, {"w": "int8"})])
    sc.sweep.all_ops = True
    w.update_from(sc, sweep_scenario(sc, cat)[0])
    lines = {ln.key: ln for ln in w.geometry.lines}
    assert len(lines) == 4 and all(ln.crit_x is not None for ln in lines.values())
    items = {id(m.item) for m in w.crit_markers.values()}
    assert items == {id(w.crit_item)} and len(w.crit_item.data) == 4
    views = dict(w.crit_markers)
    for key, m in w.crit_markers.items():
        assert m.isVisible()
        (mx, my), = scatter_xy(m)
        assert (mx, my) == (lines[key].crit_x, lines[key].crit_y)
        scene = w.vb.mapViewToScene(QtCore.QPointF(mx, my))
        assert w.tooltip_at_scene(scene) == lines[key].tooltip
    # op "a" grows so large that its curves have no critical B in the sweep's range
    sc.ops[0] = OpSpec("a", "matmul", {"D": 1e9, "F": 4096}, {"w": "int8"})
    w.update_from(sc, sweep_scenario(sc, cat)[0])
    lines = {ln.key: ln for ln in w.geometry.lines}
    for key, m in w.crit_markers.items():
        assert m is views[key]  # (the same views)
        assert m.isVisible() == (lines[key].crit_x is not None)
        if m.isVisible():
            assert scatter_xy(m) == [(lines[key].crit_x, lines[key].crit_y)]
    assert len(w.crit_item.data) == sum(ln.crit_x is not None for ln in lines.values())
