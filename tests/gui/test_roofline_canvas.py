"""The roofline plot's canvases: on screen the chips' roofs and ridge guides are drawn by
two ``_Canvas`` items that keep them as pictures, so that an op's edit (its points and
labels move, no roof does) blits them instead of stroking every roof again.

What the canvases show must be what the lines would draw themselves, after every kind of
change (op edits, chips coming and going, what-ifs, a sharded op's link roofs, zoom,
styles, sizes): a plot with canvases and one without, fed the same evaluations, are
compared pixel by pixel.  And the cache must skip work: an op's edit draws no picture.
"""

import pytest

from roofgui.plotting.plots import RooflinePlot
from roofgui.presentation.style import SCREEN_DARK
from roofgui.model.evaluate import evaluate_scenario

from gui_helpers import assert_same_picture, cached_and_plain, pixels, three_ops


def scenario():
    return three_ops()


@pytest.fixture
def pair(qtbot):
    """A plot drawing through canvases (as the window's) and a plain one (as an export's)."""
    return cached_and_plain(qtbot, RooflinePlot)


def show(pair, sc, cat):
    ev = evaluate_scenario(sc, cat)
    colours = None
    for w in pair:
        w.update_from(sc, ev, colours=colours)
        colours = dict(w._colours)  # (one colour per chip in both)
    cached, plain = pair
    plain.vb.setRange(xRange=cached.vb.viewRange()[0], yRange=cached.vb.viewRange()[1],
                      padding=0.0)
    return ev


def test_a_canvas_roofline_looks_like_a_plain_one_through_every_kind_of_change(qtbot, pair,
                                                                               shipped):
    cached, plain = pair
    sc = scenario()
    show(pair, sc, shipped)
    assert_same_picture(cached, plain)
    steps = [
        lambda: sc.ops[0].dims.update(B=1024.0),     # an op's points move: roofs as they were
        lambda: sc.ops[2].dims.update(B=64.0),       # the sharded op (its link twins)
        lambda: sc.chips.remove("h100-sxm"),         # a chip unchecked: its roofs go
        lambda: sc.chips.append("b200"),             # another added: new roofs
        lambda: sc.chips.append("h100-sxm"),         # the first back (pooled lines reused)
        lambda: setattr(sc.what_if, "hbm", 0.5),     # every chip's slant moves
        lambda: sc.ops.pop(2),                       # no sharded op: no link roofs
    ]
    for step in steps:
        step()
        show(pair, sc, shipped)
        assert_same_picture(cached, plain)
    for change in (lambda w: w.vb.setRange(xRange=(1.0, 3.5), yRange=(12.0, 15.5), padding=0.0),
                   lambda w: w.set_style(SCREEN_DARK),
                   lambda w: w.resize(700, 460)):
        for w in pair:
            change(w)
        assert_same_picture(cached, plain)


def test_an_op_edit_draws_no_picture_of_the_roofs(pair, shipped):
    cached, plain = pair
    roofs, guides = cached.canvases["roofs"], cached.canvases["guides"]
    sc = scenario()
    show(pair, sc, shipped)
    pixels(cached)
    for b in (300.0, 400.0, 512.0):
        before = roofs.renders + guides.renders
        sc.ops[0].dims.update(B=b)
        show(pair, sc, shipped)
        pixels(cached)
        assert roofs.renders + guides.renders == before
        _, live, _ = roofs._split()
        assert live == []  # every roof from the picture
    assert_same_picture(cached, plain)
    # every roof and guide is on a canvas, still the plot's item (hit tests, tooltips)
    members = [it for _, it in roofs.members]
    assert members and all(it in members for c in cached.roof_curves.values()
                           for it in c.values())
    assert all(it._canvas is guides for it in cached.guide_lines.values())
    assert plain.canvases is None
    # a chip's what-if redraws the pictures
    before = roofs.renders
    sc.what_if.peak = 2.0
    show(pair, sc, shipped)
    pixels(cached)
    assert roofs.renders > before
    assert_same_picture(cached, plain)
