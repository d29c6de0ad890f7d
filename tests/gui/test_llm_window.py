"""The LLM step in the window, driven through its real widgets: the op type and model picker,
its prefill and decode points, the sweep tab's throughput and latency views with each chip's
capacity wall, and the results panel's terms of the note."""

from __future__ import annotations

import math

import numpy as np
import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QComboBox

from roofgui.plotting.llm_sweep import LlmSweepPlot
from roofgui.gui.main_window import TAB_ROOFLINE, TAB_SWEEP
from roofgui.model import llm
from roofgui.model.scenario import Scenario
from roofgui.model.units import format_si, format_time

from gui_helpers import EXAMPLES, close_quietly, flush, open_window  # noqa: E402


@pytest.fixture
def window(qtbot, shipped):
    w = open_window(shipped, restore=False)
    yield w
    close_quietly(w)


def choose(combo: QComboBox, data) -> None:
    """Pick an item as a user would (the combo emits its signals)."""
    i = combo.findData(data)
    assert i >= 0, data
    assert combo.model().item(i).isEnabled(), f"{data} is greyed out"
    combo.setCurrentIndex(i)


def make_llm(w, model="llama-2-7b"):
    """Op type “LLM step”, then a model from the picker."""
    ed = w.form.editor
    choose(ed.kind_combo, "llm")
    choose(ed.current_page().findChild(QComboBox, "param_model"), model)
    flush(w)
    return w.doc.scenario.ops[0]


def to_sweep_view(w, view="throughput"):
    w.tabs.setCurrentIndex(TAB_SWEEP)
    choose(w.sweep_controls.y_combo, view)
    flush(w)
    return w.llm_sweep_plot


def check_chip(w, chip_id, on=True):
    item = w.chips_panel.item(chip_id)
    item.setCheckState(0, Qt.CheckState.Checked if on else Qt.CheckState.Unchecked)
    flush(w)


def xy(item):
    x, y = item.getData()
    return (np.asarray([] if x is None else x, dtype=float),
            np.asarray([] if y is None else y, dtype=float))


# -- the op type, the model picker and the roofline points ------------------------------------

def test_llm_step_and_a_model_put_prefill_and_decode_on_the_roofline_for_every_chip(window, shipped):
    op = make_llm(window, "llama-2-7b")
    assert op.kind == "llm" and op.params["model"] == "llama-2-7b"
    check_chip(window, "mi300x")
    chips = window.doc.scenario.chips
    assert chips == ["tpu-v5e", "h100-sxm", "mi300x"]
    points = window.roofline_plot.points
    assert {k for k in points if k[0] == 0} == {(0, ph, c) for ph in llm.PHASES for c in chips}
    for c in chips:
        s = llm.llm_summary(window.doc.scenario.ops[0], shipped.get(c))
        for ph in llm.PHASES:
            x, y = xy(points[(0, ph, c)])
            assert x[0] == pytest.approx(math.log10(s["phases"][ph]["intensity"]))
            assert points[(0, ph, c)].isVisible()
    # prefill (B·p tokens a step) is far more intense than decode (B tokens a step)
    assert xy(points[(0, "prefill", "h100-sxm")])[0][0] > xy(points[(0, "decode", "h100-sxm")])[0][0] + 2
    choose(window.form.editor.current_page().findChild(QComboBox, "param_model"), "llama-3-8b")
    flush(window)
    s = llm.llm_summary(window.doc.scenario.ops[0], shipped.get("h100-sxm"))
    assert xy(points[(0, "decode", "h100-sxm")])[0][0] == pytest.approx(
        math.log10(s["phases"]["decode"]["intensity"]))
    assert window.notices.messages() == []


# -- the sweep tab's LLM views ---------------------------------------------------------------

def test_throughput_view_draws_one_curve_per_chip_and_a_wall_at_the_largest_batch(window, shipped):
    make_llm(window, "llama-2-7b")
    plot = to_sweep_view(window, "throughput")
    sc = window.doc.scenario
    assert sc.sweep.y == "throughput" and sc.sweep.dim == "B"
    assert window.sweep_stack.currentWidget() is plot and window.current_plot() is plot
    assert not window.sweep_plot.isVisible() and plot.isVisible()
    assert set(plot.curves_hi) == set(sc.chips) == {"tpu-v5e", "h100-sxm"}
    assert plot.geometry.y_kind == "rate" and "tokens/s" in plot.geometry.y_title
    op = sc.ops[0]
    for chip_id in sc.chips:
        chip = shipped.get(chip_id)
        wall = llm.llm_sweep(op, chip, 1.0)["max_batch"]
        assert wall >= 1
        wx, wy = xy(plot.walls[chip_id])
        assert plot.walls[chip_id].isVisible()
        assert wx == pytest.approx([math.log10(wall)] * 2)
        x, y = xy(plot.curves_hi[chip_id])
        assert x.max() == pytest.approx(math.log10(wall))  # the fitting part ends at the wall
        ux, _ = xy(plot.unfit_hi[chip_id])
        assert ux.min() == pytest.approx(math.log10(wall)) and ux.max() == pytest.approx(
            math.log10(sc.sweep.stop))
        # the drawn values are the model's throughput at those batches
        ref = llm.llm_sweep(op, chip, 10 ** x)
        np.testing.assert_allclose(y, np.log10(ref["throughput_total_max"]), rtol=1e-9)
        _, lo = xy(plot.curves_lo[chip_id])
        np.testing.assert_allclose(lo, np.log10(ref["throughput_total_min"]), rtol=1e-9)
        label = plot.wall_labels[chip_id].textItem.toPlainText()
        assert f"B > {wall}" in label and format_si(chip.hbm_capacity.value, "B") in label
        assert plot.regions[chip_id].isVisible()
        lo_r, _hi_r = plot.regions[chip_id].getRegion()
        assert lo_r == pytest.approx(math.log10(wall))
    # H100 (80 GB) fits more requests than TPU v5e (16 GB)
    assert xy(plot.walls["h100-sxm"])[0][0] > xy(plot.walls["tpu-v5e"])[0][0]
    # one colour per chip, the roofline's
    for chip_id, colour in window.chip_colours().items():
        assert plot.curves_hi[chip_id].opts["pen"].color().name().lower() == colour.lower()
    legend = [lab.text for _, lab in plot.legend.items]
    assert any("fits B ≤" in t for t in legend) and any("perfect overlap" in t for t in legend)


def test_fp8_kv_cache_moves_the_wall_right(window, shipped):
    make_llm(window, "llama-2-7b")
    plot = to_sweep_view(window, "throughput")
    before = {c: xy(plot.walls[c])[0][0] for c in window.doc.scenario.chips}
    choose(window.form.editor.dtype_combo("kv"), "fp8_e4m3")
    flush(window)
    op = window.doc.scenario.ops[0]
    assert op.dtypes["kv"] == "fp8_e4m3"
    for c, x in before.items():
        after = xy(plot.walls[c])[0][0]
        assert after > x
        assert after == pytest.approx(math.log10(llm.llm_sweep(op, shipped.get(c), 1.0)["max_batch"]))


def test_a_chip_whose_hbm_cannot_hold_the_weights_is_hatched_all_along(window):
    make_llm(window, "llama-3-8b")  # 16.1 GB of bf16 weights; TPU v5e has 16 GB
    plot = to_sweep_view(window, "throughput")
    x0, x1, _, _ = plot.view_range()
    assert not plot.walls["tpu-v5e"].isVisible() and not plot.wall_labels["tpu-v5e"].isVisible()
    lo, hi = plot.regions["tpu-v5e"].getRegion()
    assert plot.regions["tpu-v5e"].isVisible() and lo <= x0 and hi >= x1
    assert xy(plot.curves_hi["tpu-v5e"])[0].size == 0 and xy(plot.unfit_hi["tpu-v5e"])[0].size > 2
    legend = [lab.text for _, lab in plot.legend.items]
    assert any("nothing fits" in t for t in legend)
    assert plot.walls["h100-sxm"].isVisible()


def test_latency_view_shows_time_per_output_token(window, shipped):
    make_llm(window, "llama-2-7b")
    plot = to_sweep_view(window, "latency")
    assert plot.geometry.y_kind == "time" and plot.getPlotItem().getAxis("left").kind == "time"
    op = window.doc.scenario.ops[0]
    x, best = xy(plot.curves_hi["h100-sxm"])
    _, worst = xy(plot.curves_lo["h100-sxm"])
    ref = llm.llm_sweep(op, shipped.get("h100-sxm"), 10 ** x)
    np.testing.assert_allclose(best, np.log10(ref["tpot_lower"]), rtol=1e-9)
    np.testing.assert_allclose(worst, np.log10(ref["tpot_upper"]), rtol=1e-9)
    assert np.all(best <= worst) and np.any(best < worst)
    # the op's own batch is marked on every curve, with its figures in the tooltip
    bx, by = plot.markers["h100-sxm"].getData()
    assert bx[0] == pytest.approx(math.log10(op.dims["B"]))
    tip = plot.tooltip_at(bx[0], by[0])
    s = llm.llm_summary(op, shipped.get("h100-sxm"))
    assert tip and format_time(s["serving"]["tpot_lower"]) in tip
    wall = plot.geometry.lines[1].wall_x
    assert "Capacity wall" in (plot.tooltip_at(wall, (plot.view_range()[2] + plot.view_range()[3]) / 2)
                               or "")


def test_choosing_the_view_is_one_undo_step_and_the_generic_sweep_comes_back(window):
    make_llm(window, "llama-2-7b")
    window.doc.edit("sweep p", lambda s: setattr(s.sweep, "dim", "p"))
    flush(window)
    plot = to_sweep_view(window, "throughput")
    assert window.doc.scenario.sweep.dim == "B"  # these views are against batch
    assert plot.isVisible() and plot.curves_hi
    window.controller.undo_action.trigger()
    flush(window)
    assert window.doc.scenario.sweep.y == "flops" and window.doc.scenario.sweep.dim == "p"
    assert window.sweep_stack.currentWidget() is window.sweep_plot
    assert window.sweep_controls.y_combo.currentData() == "flops"
    assert window.sweep_plot.geometry.lines


def test_without_an_llm_step_the_views_are_greyed_and_a_file_asking_for_one_says_why(window, tmp_path):
    combo = window.sweep_controls.y_combo
    i = combo.findData("throughput")
    assert i >= 0 and not combo.model().item(i).isEnabled()
    sc = Scenario.from_dict(window.doc.scenario.to_dict())
    sc.sweep.y = "latency"
    path = tmp_path / "mm.json"
    path.write_text(sc.to_json(), encoding="utf-8")
    assert window.controller.open_path(path, ask=False)
    window.tabs.setCurrentIndex(TAB_SWEEP)
    flush(window)
    plot = window.llm_sweep_plot
    assert window.sweep_stack.currentWidget() is plot and combo.currentData() == "latency"
    assert plot.message.isVisible() and "No LLM step" in plot.message.textItem.toPlainText()
    assert not plot.curves_hi
    make_llm(window, "llama-2-7b")
    assert not plot.message.isVisible() and set(plot.curves_hi) == set(window.doc.scenario.chips)
    assert combo.model().item(i).isEnabled()


def test_unchecking_a_chip_removes_its_curves_and_checking_it_again_draws_them(window):
    make_llm(window, "llama-2-7b")
    plot = to_sweep_view(window)
    stores = (plot.curves_hi, plot.curves_lo, plot.unfit_hi, plot.unfit_lo, plot.bands,
              plot.unfit_bands, plot.walls, plot.wall_labels, plot.regions, plot.markers)
    items = [store["h100-sxm"] for store in stores]
    check_chip(window, "h100-sxm", False)
    assert "h100-sxm" not in plot.curves_hi
    assert not any(i in plot.getPlotItem().items for i in items)
    check_chip(window, "h100-sxm", True)
    assert plot.curves_hi["h100-sxm"].isVisible() and xy(plot.curves_hi["h100-sxm"])[0].size


def test_the_bundled_eight_gpu_example_opens_on_its_question(window, shipped):
    path = EXAMPLES / "10-llm-llama-3-70b-eight-gpus.json"
    assert window.controller.open_path(path, ask=False)
    flush(window)
    sc = window.doc.scenario
    assert "how many concurrent requests fit" in window.heading.text()
    window.tabs.setCurrentIndex(TAB_SWEEP)
    flush(window)
    plot = window.current_plot()
    assert isinstance(plot, LlmSweepPlot) and window.notices.messages() == []
    walls = {c: round(10 ** xy(plot.walls[c])[0][0]) for c in sc.chips}
    assert walls == {c: llm.llm_summary(sc.ops[0], shipped.get(c))["memory"]["max_batch"]
                     for c in sc.chips}
    assert walls["mi300x"] > walls["h100-sxm"] > sc.ops[0].dims["B"]
    assert window.form.editor.link_combo.currentData() == "scale-up"
    window.tabs.setCurrentIndex(TAB_ROOFLINE)
    flush(window)
    assert {(ph, c) for (_, ph, c) in window.roofline_plot.points} == {
        (ph, c) for ph in llm.PHASES for c in sc.chips}


# -- the results panel ------------------------------------------------------------------------

def test_results_panel_shows_the_notes_terms_with_working(window, shipped):
    make_llm(window, "llama-2-7b")
    op = window.doc.scenario.ops[0]
    res = window.results
    cols = [(c, ph) for c in window.doc.scenario.chips for ph in llm.PHASES]
    for col, (chip_id, ph) in enumerate(cols):
        s = llm.llm_summary(op, shipped.get(chip_id))
        r = s["phases"][ph]
        assert res.cell("t_compute", col) == format_time(r["t_compute"])
        assert res.cell("t_mem note / refined", col) == (f"{format_time(r['t_mem_note'])} / "
                                                         f"{format_time(r['t_mem_refined'])}")
        assert res.cell("Step lower (max)", col) == format_time(r["t_step_lower"])
        assert res.cell("Step upper (sum)", col) == format_time(r["t_step_upper"])
        assert res.cell("Step bound", col) == r["bound"]
        assert format_si(s["serving"]["throughput_total_max"], "tok/s") in res.cell("Throughput total", col)
        assert str(s["memory"]["max_batch"]) in res.cell("Largest batch", col).replace("\u2009", "")
    text = res.working_text()
    for needle in ("t_compute = ", "t_mem (note) = GPU_mem / MemBW = 80 GB / 3.35 TB/s = 23.9 ms",
                   "t_mem (refined) = (weights", "t_step lower = max(t_mem, t_compute, t_network)",
                   "t_step upper = t_mem + t_compute + t_network",
                   "Throughput_total = B·(p+d) / cycle", "Per-request = Throughput_total / (p+d)",
                   "Decode = d·Throughput_total / (p+d)", "Largest batch that fits",
                   "t_mem shown: refined", "Source: config:"):
        assert needle in text, needle


def test_the_prefill_label_stays_inside_the_roofline_near_its_right_edge(window):
    assert window.controller.open_path(EXAMPLES / "10-llm-llama-2-7b-one-gpu.json", ask=False)
    window.tabs.setCurrentIndex(TAB_ROOFLINE)
    flush(window)
    plot = window.roofline_plot
    px, py = xy(plot.points[(0, "prefill", "h100-sxm")])
    x0, x1, y0, y1 = plot.view_range()
    plot.set_view([x0, px[0] + 0.05, y0, y1])  # the prefill point just inside the right edge
    QApplication.processEvents()
    view = plot.vb.sceneBoundingRect()
    for phase in llm.PHASES:
        lab = plot.op_labels[(0, phase)]
        assert "serving · " + phase in lab.textItem.toPlainText()
        r = lab.sceneBoundingRect()
        assert view.left() <= r.left() and r.right() <= view.right(), phase
    # the prefill point sits within a label's width of the right edge: the label slid left
    assert plot.op_labels[(0, "prefill")].anchor.x() > 0.5


def test_results_columns_are_as_wide_as_their_chip_and_phase_headings(window):
    make_llm(window, "llama-2-7b")
    check_chip(window, "mi300x")
    t = window.results.table
    assert t.columnCount() == 6  # three chips, two phases each
    hh = t.horizontalHeader()
    fm = hh.fontMetrics()
    for c in range(t.columnCount()):
        head = t.horizontalHeaderItem(c).text()
        assert "prefill" in head or "decode" in head
        widest = max(fm.horizontalAdvance(line) for line in head.split("\n"))
        assert hh.sectionSize(c) >= widest, head


def test_the_llm_view_is_what_export_draws(window, shipped):
    from roofgui.export.render import ExportOptions, Figure
    from roofgui.gui.export_dialog import window_state

    assert window.controller.open_path(EXAMPLES / "10-llm-llama-3-70b-eight-gpus.json", ask=False)
    window.tabs.setCurrentIndex(TAB_SWEEP)
    flush(window)
    state = window_state(window)
    assert state.plot == "sweep" and state.scenario.sweep.y == "throughput"
    fig = Figure(state.scenario, shipped, ExportOptions("sweep", 1280, 720))
    try:
        w = fig.widget
        assert isinstance(w, LlmSweepPlot) and set(w.walls) == set(state.scenario.chips)
        for c in state.scenario.chips:
            assert round(10 ** xy(w.walls[c])[0][0]) == window.llm_sweep_plot.geometry.lines[
                state.scenario.chips.index(c)].max_batch
    finally:
        fig.close()


def test_the_view_follows_the_selected_llm_step(window, shipped):
    assert window.controller.open_path(EXAMPLES / "10-llm-llama-2-7b-one-gpu.json", ask=False)
    window.tabs.setCurrentIndex(TAB_SWEEP)
    flush(window)
    window.form.ops.duplicate_button.click()
    flush(window)
    assert len(window.doc.scenario.ops) == 2 and window.doc.scenario.selected == 1
    choose(window.form.editor.current_page().findChild(QComboBox, "param_model"), "llama-3-8b")
    flush(window)
    plot = window.llm_sweep_plot
    sc = window.doc.scenario
    assert plot.geometry.lines and sc.ops[1].params["model"] == "llama-3-8b"
    walls = lambda: {ln.chip_id: ln.max_batch for ln in plot.geometry.lines}  # noqa: E731
    assert walls() == {c: llm.llm_sweep(sc.ops[1], shipped.get(c), 1.0)["max_batch"] for c in sc.chips}
    window.form.ops.list.setCurrentRow(0)
    flush(window)
    assert window.doc.scenario.selected == 0
    assert walls() == {"h100-sxm": 181, "mi300x": 525}  # Llama-2 7B again


def test_the_llm_plot_is_built_only_when_first_shown_and_in_the_windows_style(window):
    from roofgui.plotting.llm_sweep import LlmSweepPlot

    def llm_plots():
        return [p for p in window.built_plots() if isinstance(p, LlmSweepPlot)]

    assert llm_plots() == []  # a matmul scenario: no cost at start-up
    window.tabs.setCurrentIndex(TAB_SWEEP)
    flush(window)
    assert llm_plots() == [] and window.current_plot() is window.sweep_plot
    make_llm(window)
    plot = to_sweep_view(window, "latency")
    assert llm_plots() == [plot] and plot.style == window.sweep_plot.style


# -- the legend ---------------------------------------------------------------------------------

def _hatched_scene_rects(plot):
    """The visible hatched regions (past each chip's wall), clipped to the plot's view box."""
    view = plot.vb.sceneBoundingRect()
    return [r.sceneBoundingRect().intersected(view) for r in plot.regions.values() if r.isVisible()]


def test_the_legend_keeps_off_the_hatched_area_past_the_walls(window, qtbot):
    window.resize(1440, 900)
    assert window.controller.open_path(EXAMPLES / "10-llm-llama-3-70b-eight-gpus.json", ask=False)
    window.tabs.setCurrentIndex(TAB_SWEEP)
    flush(window)
    plot = window.current_plot()
    assert isinstance(plot, LlmSweepPlot)
    plot.grab()  # (painted: the legend has its size, and its place for that size)
    hatched = _hatched_scene_rects(plot)
    assert len(hatched) == 2 and all(r.width() > 50 for r in hatched)  # both walls in view
    legend = plot.legend.sceneBoundingRect()
    assert not any(legend.intersects(r) for r in hatched), plot.legend_corner


def test_with_every_wall_off_to_the_right_nothing_is_hatched_for_the_legend(window):
    make_llm(window, "llama-2-7b")
    check_chip(window, "tpu-v5e", on=False)
    plot = to_sweep_view(window)
    window.doc.edit("Sweep to B = 2", lambda s: setattr(s.sweep, "stop", 2.0))
    flush(window)
    plot.fit()
    assert _hatched_scene_rects(plot) == []
