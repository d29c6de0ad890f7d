"""No text on the roofline covers other text: op labels, roof labels, ridge numbers, band
names and the cursor readout never overlap (on the busy MLP example and the 16 × 16
example, at a laptop's and a desktop's size); what has no room is left to hover."""

from __future__ import annotations

import itertools

import pytest
from PySide6.QtCore import QPoint

from gui_helpers import EXAMPLES, fitted_roofline, settle

MLP = EXAMPLES / "09-mlp-on-three-gpus.json"
SIXTEEN = EXAMPLES / "11-transformer-block-16-chips.json"


def shown_labels(plot) -> list:
    return [lab for lab in plot.all_labels() if lab.isVisible()]


def assert_no_overlaps(plot) -> None:
    labels = shown_labels(plot)
    vr = plot.vb.sceneBoundingRect().adjusted(-1, -1, 1, 1)
    for lab in labels:
        assert vr.contains(lab.sceneBoundingRect()), lab.toPlainText()  # whole, not cut
    for a, b in itertools.combinations(labels, 2):
        ra, rb = a.sceneBoundingRect(), b.sceneBoundingRect()
        assert not ra.intersects(rb), (a.toPlainText(), b.toPlainText())
    ro = plot.readout.sceneBoundingRect()
    assert plot.readout.isVisible() and plot.readout.text
    assert not any(ro.intersects(lab.sceneBoundingRect()) for lab in labels)
    assert not ro.intersects(plot.vb.sceneBoundingRect())  # (above the axes)


@pytest.mark.parametrize("size", [(1152, 648), (1600, 1000)])
@pytest.mark.parametrize("path", [MLP, SIXTEEN])
def test_no_label_overlaps_another(qtbot, shipped, path, size):
    with fitted_roofline(shipped, path, size) as (w, plot):
        vr = plot.vb.sceneBoundingRect()
        corner = plot.mapFromScene(vr.bottomRight()) - QPoint(8, 8)
        qtbot.mouseMove(plot.viewport(), corner)  # the readout shows
        settle(w)
        assert_no_overlaps(plot)
        assert len(shown_labels(plot)) >= 8  # (not by hiding everything)
        # another op selected: its labels come first, still nothing overlaps
        w.form.ops.list.setCurrentRow(len(w.doc.scenario.ops) - 1)
        settle(w)
        assert_no_overlaps(plot)
        assert any(lab.isVisible() for k, lab in plot.op_labels.items()
                   if k[0] == plot.selected_op)


@pytest.mark.parametrize("size", [(1152, 648), (1600, 1000)])
@pytest.mark.parametrize("path", [MLP, SIXTEEN])
def test_labels_side_by_side_keep_a_gap(qtbot, shipped, path, size):
    """Two labels touching end to end read as one ("decode B=32 MLP downdecode B=32 out
    proj"): those on a line keep a few pixels apart."""
    with fitted_roofline(shipped, path, size) as (_, plot):
        labels = shown_labels(plot)
        for a, b in itertools.combinations(labels, 2):
            ra, rb = a.sceneBoundingRect(), b.sceneBoundingRect()
            assert not ra.adjusted(-2, 0, 2, 0).intersects(rb), (a.toPlainText(), b.toPlainText())
