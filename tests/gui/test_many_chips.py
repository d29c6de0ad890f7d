"""Every shipped chip checked: each has its own colour, and from the ninth on its own
ridge marker and roof dash (in the plot and in the legend)."""

from __future__ import annotations

from PySide6.QtCore import Qt

from gui_helpers import flush
from roofgui.plotting.plot_items import DASHES


def test_21_chips_are_told_apart_by_colour_marker_and_dash(window, shipped):
    ids = list(shipped.chips)
    assert len(ids) > 16
    for cid in ids:  # what a click on each box does
        window.chips_panel.item(cid).setCheckState(0, Qt.CheckState.Checked)
    flush(window)
    plot = window.roofline_plot
    assert set(plot.roof_curves) == set(ids)
    colours = window.chip_colours()
    assert len(set(colours.values())) == len(ids)  # no colour twice
    styles = {cid: plot.roof_curves[cid]["hbm"].opts["pen"].style() for cid in ids}
    assert list(styles.values()).count(Qt.PenStyle.SolidLine) == 8
    assert list(styles.values()).count(DASHES["dot"]) == 8
    assert list(styles.values()).count(DASHES["dashdot"]) == len(ids) - 16
    # the ridge markers: a diamond for the first eight chips' ridges, then others
    symbols = {spot.symbol() for spot in plot.ridge_item.points()}
    assert symbols == {"d", "star", "+"}
    # the legend's sample for a chip past the eighth shows its marker and dash
    samples = {lab.text: sample for sample, lab in plot.legend.items}
    late = [c for c in ids if styles[c] == DASHES["dot"]][0]
    sample = samples[shipped.get(late).label()]
    assert sample.symbol == "star" and sample.line_pen.style() == DASHES["dot"]
    first = [c for c in ids if styles[c] == Qt.PenStyle.SolidLine][0]
    assert samples[shipped.get(first).label()].symbol is None
