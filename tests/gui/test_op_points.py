"""The roofline's op points (plotting/op_points.py): the selected op's points and link twins
in one scatter drawn above, every other op's in another set only when it changes, the
twins' connectors as one line; hit tests and tooltips through both scatters."""

import numpy as np
import pytest
from PySide6 import QtCore

from roofgui.model.evaluate import evaluate_scenario
from roofgui.model.scenario import OpSpec, ShardSpec

from gui_helpers import scatter_xy, two_chip


def data_of(item):
    x, y = item.getData()
    return np.asarray(x), np.asarray(y)


def test_op_points_are_two_scatters_the_selected_ops_over_the_others(roof, shipped):
    sc = two_chip()
    sc.ops.append(OpSpec("small", "matmul", {"B": 16, "D": 1024, "F": 1024}, {}))
    roof.set_selected_op(1)
    roof.update_from(sc, evaluate_scenario(sc, shipped))
    roof.repaint()
    item = roof.points[(0, "", "tpu-v5e")]
    # the other ops' points in one scatter, the selected op's in another above it
    others = item.item
    assert others is roof.points[(0, "", "h100-sxm")].item is roof.op_points.others_item
    assert roof.points[(1, "", "h100-sxm")].item is roof.point_item is not others
    assert roof.point_item.zValue() > others.zValue()
    assert len(roof.point_item.data) == len(others.data) == 2
    # filled in its chip's colour; hovered, the tooltip; a click on either selects its op
    assert item.opts["brush"].color() != roof.points[(0, "", "h100-sxm")].opts["brush"].color()
    for key in ((0, "", "tpu-v5e"), (1, "", "h100-sxm")):
        (px, py), = scatter_xy(roof.points[key])
        scene = roof.vb.mapViewToScene(QtCore.QPointF(px, py))
        tip = roof.tooltip_at_scene(scene)
        assert tip and ("TPU v5e" if key[0] == 0 else "H100") in tip and "click" in tip
        assert roof.op_at_scene(scene) == key[0]
    assert not roof.net_link.isVisible()  # (no op over a link: no twins, no connectors)
    # another op selected: the points trade places
    roof.set_selected_op(0)
    assert item.item is roof.point_item and roof.points[(1, "", "tpu-v5e")].item is others


def test_an_edit_of_the_selected_op_sets_only_its_scatter(roof, shipped, monkeypatch):
    """A keystroke edits the selected op: its scatter is set again, the others' is left as
    it is (and stays in the lines' picture on screen)."""
    sc = two_chip()
    sc.ops.append(OpSpec("small", "matmul", {"B": 16, "D": 1024, "F": 1024}, {}))
    roof.set_selected_op(0)
    roof.update_from(sc, evaluate_scenario(sc, shipped))
    calls = []
    for name, item in (("selected", roof.point_item), ("others", roof.op_points.others_item)):
        real = item.setData
        monkeypatch.setattr(item, "setData", lambda *a, real=real, name=name, **k: (
            calls.append(name), real(*a, **k))[1])
    sc.ops[0].dims["B"] = 4096
    roof.update_from(sc, evaluate_scenario(sc, shipped))
    assert calls == ["selected"]
    (x, y), = scatter_xy(roof.points[(0, "", "tpu-v5e")])
    assert x == pytest.approx(roof.geometry.points[0].x)  # (moved)
    sc.what_if.peak = 1.5  # (every chip's roof moves: every point may)
    roof.update_from(sc, evaluate_scenario(sc, shipped))
    assert calls == ["selected", "selected", "others"]


def test_link_twins_share_their_ops_scatter_under_the_points_joined_by_one_line(roof, shipped):
    sc = two_chip()
    sc.ops.append(OpSpec("split", "matmul", {"B": 4096, "D": 8192, "F": 8192}, {},
                         ShardSpec("D", 2, "scale-up")))
    roof.set_selected_op(1)
    roof.update_from(sc, evaluate_scenario(sc, shipped))
    twins = {k: v for k, v in roof.net_points.items()}
    assert set(twins) == {(1, "", "tpu-v5e"), (1, "", "h100-sxm")}
    assert all(v.item is roof.point_item for v in twins.values())
    assert len(roof.point_item.data) == 2 + 2
    # drawn before (under) the op's points, hollow, smaller
    assert max(v.index for v in twins.values()) < min(
        v.index for k, v in roof.points.items() if k[0] == 1)
    for key, twin in twins.items():
        point = roof.points[key]
        assert twin.opts["size"] < point.opts["size"]
        assert twin.opts["brush"].color() != point.opts["brush"].color()
        (tx, ty), = scatter_xy(twin)
        (px, py), = scatter_xy(point)
        assert ty == py and tx != px  # the same performance at the link's intensity
    # one dotted connector per twin, from its point across to it, gaps between
    x, y = data_of(roof.net_link)
    segs = {(round(x[i], 9), round(x[i + 1], 9), round(y[i], 9)) for i in range(0, len(x), 3)}
    assert len(x) == 6 and np.isnan(x[2::3]).all() and roof.net_link.isVisible()
    assert segs == {(round(scatter_xy(roof.points[k])[0][0], 9),
                     round(scatter_xy(t)[0][0], 9), round(scatter_xy(t)[0][1], 9))
                    for k, t in twins.items()}
    # a click or hover on a twin is its op
    (tx, ty), = scatter_xy(twins[(1, "", "h100-sxm")])
    scene = roof.vb.mapViewToScene(QtCore.QPointF(tx, ty))
    assert roof.op_at_scene(scene) == 1 and "H100" in roof.tooltip_at_scene(scene)
    # the op no longer selected: its twins go with its points
    roof.set_selected_op(0)
    assert all(v.item is roof.op_points.others_item for v in twins.values())
