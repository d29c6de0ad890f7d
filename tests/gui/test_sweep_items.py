"""The sweep plot's items after edits: each edit leaves the items a fresh plot of the
same sweep would hold — data, looks, places and markers — and draws the same picture."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from PySide6 import QtCore

from roofgui.plotting.sweep_plot import SweepPlot
from roofgui.presentation.style import SCREEN_DARK, SCREEN_LIGHT
from roofgui.model.scenario import SweepSpec
from roofgui.model.evaluate import sweep_scenario

from gui_helpers import assert_same_picture, cached_and_plain, pixels, three_ops


# -- the sweep plot's update --------------------------------------------------------------

def scenario():
    return three_ops(sweep=SweepSpec("B", 1, 65536, 800, all_ops=True))


def fresh(qtbot, like, sc, curves, colours=None):
    ref = SweepPlot(style=like.style)
    qtbot.addWidget(ref)
    ref.resize(like.size())
    ref.show()
    ref.update_from(sc, curves, colours=colours)
    ref.vb.setRange(xRange=like.vb.viewRange()[0], yRange=like.vb.viewRange()[1], padding=0.0)
    return ref


def looks(plot) -> dict:
    """Every line's items as they stand: pens, data, and the marker, guide and label when
    shown (hidden, they keep what they last showed)."""
    out = {}
    for key, c in plot.curves.items():
        g, lab, m = plot.crit_guides.get(key), plot.crit_labels[key], plot.crit_markers.get(key)
        x, y = c.getData()
        pos = lab.pos()
        out[key] = (c.opts["pen"].color().name(), c.opts["pen"].style(), c.isVisible(),
                    x.tolist(), y.tolist(),
                    g is not None and (g.opts["pen"].color().name(), g.isVisible()),
                    lab.color.name(),
                    lab.isVisible() and (lab.toPlainText(), pos.x(), pos.y(), lab.anchor.x(),
                                         lab.anchor.y()),
                    m is not None and m.isVisible()
                    and (m.data["x"][0], m.data["y"][0], m.data["data"][0],
                         m.opts["pen"].color().name()))
    return out


def test_an_edit_of_one_op_matches_a_fresh_plot(qtbot, shipped):
    """An edit of a dimension: the plot's items and picture are a fresh plot's."""
    cached, _plain = cached_and_plain(qtbot, SweepPlot)
    sc = scenario()
    cached.update_from(sc, sweep_scenario(sc, shipped)[0])
    for value in (5000.0, 7000.0, 3000.0):
        sc.ops[1].dims.update(D=value)
        curves, _ = sweep_scenario(sc, shipped)
        cached.update_from(sc, curves)
        ref = fresh(qtbot, cached, sc, curves, colours=dict(cached.geometry.colours))
        assert looks(cached) == looks(ref)
        assert_same_picture(cached, ref)


def test_lines_that_keep_their_data_but_change_colour_are_restyled(qtbot, shipped):
    """The same curves with the chips' colours swapped: no line's data moves, yet every
    look follows (a shortcut that only compared the data would keep the old pens)."""
    cached, _plain = cached_and_plain(qtbot, SweepPlot)
    sc = scenario()
    curves, _ = sweep_scenario(sc, shipped)
    cached.update_from(sc, curves, colours={"tpu-v5e": 0, "h100-sxm": 1, "mi300x": 2})
    before = looks(cached)
    swapped = {"tpu-v5e": 2, "h100-sxm": 0, "mi300x": 1}
    cached.update_from(sc, curves, colours=swapped)
    after = looks(cached)
    assert after != before
    assert [v[3] for v in after.values()] == [v[3] for v in before.values()]  # (same data)
    ref = fresh(qtbot, cached, sc, curves, colours=swapped)
    assert after == looks(ref)
    assert [lab.text for _s, lab in cached.legend.items] \
        == [lab.text for _s, lab in ref.legend.items]
    assert_same_picture(cached, ref)


def test_markers_follow_lines_that_lose_and_regain_their_critical_value(qtbot, shipped):
    cached, _plain = cached_and_plain(qtbot, SweepPlot)
    sc = scenario()
    cached.update_from(sc, sweep_scenario(sc, shipped)[0])
    for value in (64.0, 4096.0):  # (no critical B for op 1's curves, then again)
        sc.ops[1].dims.update(D=value)
        curves, _ = sweep_scenario(sc, shipped)
        cached.update_from(sc, curves)
        ref = fresh(qtbot, cached, sc, curves, colours=dict(cached.geometry.colours))
        assert looks(cached) == looks(ref)
        gone = {k for k, m in cached.crit_markers.items() if not m.isVisible()}
        op1 = {k for k in cached.curves if k[0] == 1}
        assert (op1 <= gone) == (value == 64.0) and not (op1 & gone and value != 64.0)
        assert_same_picture(cached, ref)


def test_every_critical_value_drops_to_the_axis_on_one_dotted_line(qtbot, shipped):
    cached, _plain = cached_and_plain(qtbot, SweepPlot)
    sc = scenario()
    cached.update_from(sc, sweep_scenario(sc, shipped)[0])
    marked = [ln for ln in cached.geometry.lines if ln.crit_x is not None]
    assert len({ln.colour for ln in marked}) > 1  # (several chips' colours ...)
    assert {id(g) for g in cached.crit_guides.values()} == {id(cached.guide_item)}  # (... one line)
    assert set(cached.crit_guides) == {ln.key for ln in marked}
    x, y = cached.guide_item.getData()
    drops = {(float(x[i]), float(y[i])) for i in range(0, len(x), 3)}
    assert drops == {(ln.crit_x, ln.crit_y) for ln in marked}
    assert np.isnan(x[2::3]).all() and (y[1::3] < cached.view_range()[2]).all()
    assert cached.guide_item.opts["pen"].style() == QtCore.Qt.PenStyle.DotLine
    for op in sc.ops:
        op.dims.update(D=64.0)  # (memory-bound all along: no critical B, no drop)
    cached.update_from(sc, sweep_scenario(sc, shipped)[0])
    assert all(ln.crit_x is None for ln in cached.geometry.lines)
    assert not cached.guide_item.isVisible() and cached.crit_guides == {}


def test_a_layer_with_nothing_to_show_is_never_drawn(qtbot, shipped):
    """The selected op's curves alone (the default): every curve is live and the layers
    of the others are empty: they paint nothing, not even an empty picture."""
    cached, _plain = cached_and_plain(qtbot, SweepPlot)
    sc = three_ops(sweep=SweepSpec("B", 1, 65536, 800))
    curves = sweep_scenario(sc, shipped)[0]
    cached.update_from(sc, curves)
    cached.grab()
    qtbot.wait(1)
    assert not [m for layer in cached.layers.values() for m in layer.members if m.isVisible()]
    assert [layer.renders for layer in cached.layers.values()] == [0, 0]
    assert all(c.isVisible() for c in cached.curves.values()) and len(cached.curves) == 3


def test_the_legend_is_made_again_only_when_the_lines_names_or_looks_change(qtbot, shipped):
    plot, _plain = cached_and_plain(qtbot, SweepPlot)
    sc = scenario()
    plot.update_from(sc, sweep_scenario(sc, shipped)[0])

    def entries():
        return [(sample, label.text) for sample, label in plot.legend.items]

    first = entries()
    for value in (5000.0, 700.0):  # (the lines move; their names and looks stay)
        sc.ops[1].dims.update(D=value)
        plot.update_from(sc, sweep_scenario(sc, shipped)[0])
        assert entries() == first
    sc.chips = sc.chips[:-1]
    plot.update_from(sc, sweep_scenario(sc, shipped)[0])
    names = [t for _, t in entries()]
    assert len(names) == len(first) - 1 and not {id(a) for a, _ in entries()} & {
        id(a) for a, _ in first}
    plot.set_style(SCREEN_DARK)
    assert [t for _, t in entries()] == names


@pytest.mark.parametrize("corner", ["top-left", "top-right", "bottom-left", "bottom-right"])
def test_a_legend_in_a_fixed_corner_is_placed_as_the_general_path_places_it(qtbot, shipped,
                                                                          corner):
    """A legend in a fixed corner sits a padding in from it; in a bottom corner it is
    lifted clear of the critical labels."""
    cached, _plain = cached_and_plain(qtbot, SweepPlot)
    cached.set_style(dataclasses.replace(SCREEN_LIGHT, legend_position=corner))
    sc = scenario()
    cached.update_from(sc, sweep_scenario(sc, shipped)[0])
    pixels(cached)  # (painted, the legend placed)
    off = cached.style.legend_padding + 2
    dx = off if "left" in corner else -off
    if "top" in corner:
        assert cached.legend.opts["offset"] == (dx, off)
    else:  # lifted clear of the critical labels under it
        assert cached.legend.opts["offset"][0] == dx and cached.legend.opts["offset"][1] <= -off
        lr = cached.legend.sceneBoundingRect()
        assert not any(lab.isVisible() and lab.sceneBoundingRect().intersects(lr)
                       for lab in cached.crit_labels.values())
    assert cached.legend_corner == corner
    # the legend drawn where its offset puts it
    vr, lr = cached.vb.sceneBoundingRect(), cached.legend.sceneBoundingRect()
    if "top" in corner:
        assert abs(lr.top() - (vr.top() + off)) < 1.0
    if "left" in corner:
        assert abs(lr.left() - (vr.left() + off)) < 1.0
    else:
        assert abs(lr.right() - (vr.right() - off)) < 1.0


def test_a_style_change_after_edits_restyles_every_item(qtbot, shipped):
    """A new style after edits restyles every item as a fresh plot in that style."""
    cached, _plain = cached_and_plain(qtbot, SweepPlot)
    sc = scenario()
    cached.update_from(sc, sweep_scenario(sc, shipped)[0])
    sc.ops[0].dims.update(D=6000.0)
    cached.update_from(sc, sweep_scenario(sc, shipped)[0])
    cached.set_style(SCREEN_DARK)
    sc.ops[0].dims.update(D=7000.0)
    curves, _ = sweep_scenario(sc, shipped)
    cached.update_from(sc, curves)
    ref = fresh(qtbot, cached, sc, curves, colours=dict(cached.geometry.colours))
    assert looks(cached) == looks(ref)
    assert_same_picture(cached, ref)


def test_a_sweep_lines_key_is_kept_and_is_not_a_field(shipped):
    from roofgui.presentation.sweepgeom import sweep_geometry

    sc = scenario()
    g = sweep_geometry(sc, sweep_scenario(sc, shipped)[0])
    ln = g.lines[0]
    assert ln.key == (ln.op_index, ln.phase, ln.chip_id) and ln.key is ln.key
    assert "key" not in {f.name for f in dataclasses.fields(ln)}
    other = dataclasses.replace(ln, chip_id="elsewhere")
    assert other.key == (ln.op_index, ln.phase, "elsewhere") and ln.key[2] == ln.chip_id
    assert other != ln and dataclasses.replace(ln) == ln
