"""Labels keep a 3 px gap from every point, faded ones included: a roof label never
rests on the points that sit on its roof (the MLP example's "bf16 989 TFLOP/s · H100 =
H200" did), and the selected op's boxed label covers no other op's faded point (16 chips
× many ops); with no room, a label moves or is left to the hover."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QPointF

from gui_helpers import EXAMPLES, fitted_roofline, settle

MLP = EXAMPLES / "09-mlp-on-three-gpus.json"
SIXTEEN = EXAMPLES / "11-transformer-block-16-chips.json"
GAP = 3.0


def points_in_scene(plot) -> list[tuple[float, float]]:
    """Every point and link twin of the roofline (faded or not), in scene coordinates."""
    g = plot.geometry
    pts = [(p.x, p.y) for p in g.points] + [(p.net_x, p.y) for p in g.points if p.net_x]
    xs, ys = plot.to_scene([p[0] for p in pts], [p[1] for p in pts])
    return list(zip(xs.tolist(), ys.tolist()))


def too_close(plot, lab, pts, own=None) -> list[tuple[float, float]]:
    """The points whose marker comes within ``GAP`` pixels of ``lab`` (but ``own``, the
    point a label is pinned to)."""
    r = plot.style.marker_size * 0.5 + GAP - 0.5  # (half a pixel for rounding)
    rect = lab.sceneBoundingRect().adjusted(-r, -r, r, r)
    return [(x, y) for x, y in pts if rect.contains(QPointF(x, y))
            and (own is None or abs(x - own[0]) > 0.5 or abs(y - own[1]) > 0.5)]


def own_point(plot, lab) -> tuple[float, float]:
    (x,), (y,) = plot.to_scene([lab.pos().x()], [lab.pos().y()])
    return x, y


def test_the_mlp_roof_labels_keep_clear_of_the_points_on_their_roof(qtbot, shipped):
    with fitted_roofline(shipped, MLP, (1600, 1000)) as (_w, plot):
        pts = points_in_scene(plot)
        shown = [lab for lab in plot.roof_labels.values() if lab.isVisible()]
        texts = [lab.toPlainText() for lab in shown]
        assert any("989" in t for t in texts)  # (moved along its roof, not hidden)
        for lab in shown:
            assert not too_close(plot, lab, pts), lab.toPlainText()


@pytest.mark.parametrize("size", [(1152, 648), (1600, 1000), (2304, 1296)])
def test_every_label_keeps_clear_of_points_in_the_mlp_example(qtbot, shipped, size):
    with fitted_roofline(shipped, MLP, size) as (_w, plot):
        pts = points_in_scene(plot)
        for lab in plot.roof_labels.values():
            if lab.isVisible():
                assert not too_close(plot, lab, pts), lab.toPlainText()
        for lab in plot.op_labels.values():
            if lab.isVisible():
                assert not too_close(plot, lab, pts, own_point(plot, lab)), lab.toPlainText()


@pytest.mark.parametrize("size", [(1152, 648), (1600, 1000), (2304, 1296)])
def test_the_selected_ops_label_covers_no_faded_point(qtbot, shipped, size):
    with fitted_roofline(shipped, SIXTEEN, size) as (w, plot):
        pts = points_in_scene(plot)
        shown = 0  # (the selected op's labels on show)
        for row in range(0, w.form.ops.list.count(), 3):
            w.form.ops.list.setCurrentRow(row)
            settle(w, plot)
            assert plot.selected_op == row
            for k, lab in plot.op_labels.items():
                if k[0] == row and lab.isVisible():
                    shown += 1
                    assert not too_close(plot, lab, pts, own_point(plot, lab)), \
                        (row, lab.toPlainText())
        rows = len(range(0, w.form.ops.list.count(), 3))
        # (moved rather than hidden where there is room: only the laptop's plot is too
        # crowded for some of them, which are left to the hover)
        assert shown == rows if size[0] >= 1600 else shown >= 2


@pytest.mark.parametrize("path, size, row, least", [(MLP, (1152, 648), 2, 1),
                                                    (SIXTEEN, (1600, 1000), 0, 5)])
def test_a_roof_label_moves_from_under_the_selected_ops_label(qtbot, shipped, path, size,
                                                              row, least):
    """The selected op's label is shown first; a roof label it would sit on moves along
    (or above) its roof rather than being hidden, keeping the gap from that label too."""
    with fitted_roofline(shipped, path, size) as (w, plot):
        w.form.ops.list.setCurrentRow(row)
        settle(w, plot)
        roofs = [lab for lab in plot.roof_labels.values() if lab.isVisible()]
        assert len(roofs) >= least
        chosen = [lab for k, lab in plot.op_labels.items() if k[0] == row and lab.isVisible()]
        assert chosen
        for lab in roofs:
            grown = lab.sceneBoundingRect().adjusted(-GAP + 0.5, -GAP + 0.5, GAP - 0.5, GAP - 0.5)
            assert not any(grown.intersects(c.sceneBoundingRect()) for c in chosen)


@pytest.mark.parametrize("size", [(1440, 900), (1600, 1000)])
def test_two_roofs_a_line_apart_each_keep_their_label(qtbot, shipped, size):
    # Llama-3 70B on H100 (989 TFLOP/s) and MI300X (1.31 PFLOP/s): the two flat roofs are
    # about one text line apart on screen; both peaks are named, their boxes apart
    path = EXAMPLES / "10-llm-llama-3-70b-eight-gpus.json"
    with fitted_roofline(shipped, path, size) as (w, plot):
        labels = [lab for (_, key), lab in plot.roof_labels.items() if key.startswith("compute")]
        assert len(labels) == 2
        assert all(lab.isVisible() for lab in labels), [lab.toPlainText() for lab in labels]
        a, b = (lab.sceneBoundingRect() for lab in labels)
        assert not a.intersects(b)
        assert {lab.toPlainText().split(" · ")[0] for lab in labels} == {
            "bf16 989 TFLOP/s", "bf16 1.31 PFLOP/s"}
