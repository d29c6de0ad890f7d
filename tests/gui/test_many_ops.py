"""Many ops: the selected op drawn strong and the others faded on the roofline; the Sweep
tab draws the selected op's curves unless "All ops" is on (saved with the scenario), labels
only the critical values that fit, marks the op's own value of the swept dimension, and its
readout gives x and y."""

from __future__ import annotations

import itertools
import math

from PySide6.QtCore import QPoint, Qt

from gui_helpers import EXAMPLES, settle
from roofgui.gui.main_window import TAB_SWEEP
from roofgui.model.scenario import load_scenario

SIXTEEN = EXAMPLES / "11-transformer-block-16-chips.json"


def type_into(qtbot, edit, text):
    edit.setFocus()
    edit.selectAll()
    qtbot.keyClicks(edit, text)


def test_the_selected_op_is_strong_and_the_others_faded(qtbot, window):
    window.controller.open_path(SIXTEEN, ask=False)
    window.form.ops.list.setCurrentRow(3)
    settle(window, window.roofline_plot)
    plot = window.roofline_plot
    alphas = {k: v.opts["brush"].color().alphaF() for k, v in plot.points.items()}
    assert {a for k, a in alphas.items() if k[0] == 3} == {1.0}
    assert max(a for k, a in alphas.items() if k[0] != 3) < 0.5
    colours = {k[0]: lab.color.name() for k, lab in plot.op_labels.items()}
    assert colours[3] != colours[0] == colours[5]  # (the others' labels muted)
    window.form.ops.list.setCurrentRow(5)  # another op: it is the strong one now
    settle(window, plot)
    assert plot.points[(5, "", "h100-sxm")].opts["brush"].color().alphaF() == 1.0
    assert plot.points[(3, "", "h100-sxm")].opts["brush"].color().alphaF() < 0.5


def assert_labels_clear(plot) -> None:
    labels = [lab for lab in plot.all_labels() if lab.isVisible()]
    vr = plot.vb.sceneBoundingRect().adjusted(-1, -1, 1, 1)
    assert all(vr.contains(lab.sceneBoundingRect()) for lab in labels)
    for a, b in itertools.combinations(labels, 2):
        assert not a.sceneBoundingRect().intersects(b.sceneBoundingRect()), \
            (a.toPlainText(), b.toPlainText())


def test_the_sweep_draws_the_selected_op_unless_all_ops(qtbot, window, tmp_path):
    window.resize(1400, 900)
    window.controller.open_path(SIXTEEN, ask=False)
    window.form.ops.list.setCurrentRow(2)
    window.tabs.setCurrentIndex(TAB_SWEEP)
    plot = window.sweep_plot
    settle(window, plot)
    assert {k[0] for k in plot.curves} == {2} and len(plot.curves) == 16
    assert_labels_clear(plot)
    check = window.sweep_controls.all_ops_check
    assert not check.isChecked()
    qtbot.mouseClick(check, Qt.MouseButton.LeftButton)
    settle(window, plot)
    assert len({k[0] for k in plot.curves}) >= 15 and len(plot.curves) >= 240
    alpha = {k: c.opts["pen"].color().alphaF() for k, c in plot.curves.items()}
    assert {a for k, a in alpha.items() if k[0] == 2} == {1.0}
    assert max(a for k, a in alpha.items() if k[0] != 2) < 0.5
    rings = {k: m.opts["pen"].color().alphaF() for k, m in plot.crit_markers.items()
             if m.isVisible()}
    assert {a for k, a in rings.items() if k[0] == 2} == {1.0}
    assert max(a for k, a in rings.items() if k[0] != 2) < 0.5
    shown = [lab for lab in plot.crit_labels.values() if lab.isVisible()]
    assert 0 < len(shown) < 100  # only what fits (of ~250)
    # the selected op's labelled first; the other ops' in two rows above them at most
    assert any(lab.isVisible() for k, lab in plot.crit_labels.items() if k[0] == 2)
    tops = {round(lab.sceneBoundingRect().top()) for k, lab in plot.crit_labels.items()
            if k[0] != 2 and lab.isVisible()}
    assert 0 < len(tops) <= 2
    assert_labels_clear(plot)
    # saved with the scenario
    path = tmp_path / "all.json"
    window.doc.save(path)
    assert load_scenario(path).sweep.all_ops


def test_the_sweep_marks_the_ops_own_value_and_reads_out_x_and_y(qtbot, window):
    window.controller.open_path(SIXTEEN, ask=False)
    window.form.ops.list.setCurrentRow(0)
    window.tabs.setCurrentIndex(TAB_SWEEP)
    plot = window.sweep_plot
    settle(window, plot)
    b = window.doc.scenario.ops[0].dims["B"]
    xs, _ = plot.value_guide.getData()
    assert plot.value_guide.isVisible() and xs[0] == xs[1] == math.log10(b)
    assert plot.value_label.isVisible() and plot.value_label.toPlainText() == "B = 8\u2009192"
    type_into(qtbot, window.form.editor.dim_edit("B"), "512")
    settle(window, plot)
    xs, _ = plot.value_guide.getData()
    assert xs[0] == math.log10(512) and plot.value_label.toPlainText() == "B = 512"
    vr = plot.vb.sceneBoundingRect()
    qtbot.mouseMove(plot.viewport(), plot.mapFromScene(vr.center()) + QPoint(1, 1))
    text = plot.readout.text
    assert "x: B = " in text and "y: " in text and "FLOP/s" in text


def test_the_sweep_of_an_op_without_the_swept_dimension_draws_every_op(qtbot, window,
                                                                       tmp_path):
    from roofgui.model.scenario import OpSpec, Scenario, SweepSpec, save_scenario

    path = tmp_path / "dot.json"
    save_scenario(Scenario(chips=["tpu-v5e", "h100-sxm"], sweep=SweepSpec("B", 1, 65536, 200),
                           ops=[OpSpec("mm", "matmul", {"B": 256, "D": 4096, "F": 4096}),
                                OpSpec("mm2", "matmul", {"B": 64, "D": 8192, "F": 8192}),
                                OpSpec("dot", "dot", {"N": 4096})]), path)
    window.controller.open_path(path, ask=False)
    window.tabs.setCurrentIndex(TAB_SWEEP)
    plot = window.sweep_plot
    window.form.ops.list.setCurrentRow(1)
    settle(window, plot)
    assert set(plot.curves) == {(1, "", "tpu-v5e"), (1, "", "h100-sxm")}
    window.form.ops.list.setCurrentRow(2)  # (a dot product has no B)
    settle(window, plot)
    assert {k[0] for k in plot.curves} == {0, 1} and len(plot.curves) == 4
    assert window.notices.messages() == []
