"""The Frontier tab, driven through its real widgets: the points and the frontier drawn are
``roofgui pareto --json``'s for the same inputs, a point over a limit is never drawn as
meeting it, the limits are editable (a bad one is refused with a message) and the per-chip
rate switches between output and total tokens, labelled."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from roofgui.cli import main
from roofgui.gui.llm_views import frontier_page
from roofgui.presentation.frontier import MEETS, MISSES, UNFIT

from gui_helpers import EXAMPLES, dark_palette, flush, window_on  # noqa: E402

EIGHT_GPUS = EXAMPLES / "10-llm-llama-3-70b-eight-gpus.json"


@pytest.fixture
def window(qtbot, shipped):
    with window_on(shipped, EIGHT_GPUS) as w:
        yield w


def show_frontier(w, qtbot):
    """Ctrl+3, as a user would."""
    w.activateWindow()
    qtbot.keyClick(w, Qt.Key.Key_3, Qt.KeyboardModifier.ControlModifier)
    page = frontier_page(w)
    if w.tabs.currentWidget() is not page:  # (no window focus on this platform)
        action = next(a for a in w.actions() if a.shortcut().toString() == "Ctrl+3")
        action.trigger()
    flush(w)
    assert w.tabs.currentWidget() is page
    return page


def type_limit(qtbot, edit, text: str) -> None:
    edit.setFocus()
    edit.selectAll()
    qtbot.keyClick(edit, Qt.Key.Key_Backspace)
    qtbot.keyClicks(edit, text)
    qtbot.keyClick(edit, Qt.Key.Key_Return)


def choose(combo, data) -> None:
    i = combo.findData(data)
    assert i >= 0, data
    combo.setCurrentIndex(i)


def drawn(plot, state):
    """(x, y) of every spot of a state's scatter, as drawn."""
    x, y = plot.scatters[state].getData()
    return [(float(a), float(b)) for a, b in zip(x, y)]


def cli_pareto(capsys, *extra) -> dict:
    args = ["pareto", "--model", "llama-3-70b", "--chip", "h100-sxm", "--chips-count", "8",
            "--link", "nvlink", "--prefill", "1024", "--decode", "256", "--json", *extra]
    assert main(args) == 0
    return json.loads(capsys.readouterr().out)


def key(x: float, y: float) -> tuple[float, float]:
    return round(x, 9), round(y, 9)


def test_the_frontier_is_the_clis_for_the_same_inputs(window, qtbot, capsys):
    page = show_frontier(window, qtbot)
    choose(page.chip_combo, "h100-sxm")
    page.chips_spin.setValue(8)
    choose(page.link_combo, "nvlink")
    type_limit(qtbot, page.ttft_edit, "2 s")
    type_limit(qtbot, page.tpot_edit, "50 ms")
    flush(window)
    res = cli_pareto(capsys, "--ttft", "2", "--tpot", "50e-3")
    plot = page.plot
    want = {st: set() for st in (MEETS, MISSES, UNFIT)}
    for q in res["points"]:
        st = UNFIT if not q["fits"] else MEETS if q["meets_slo"] else MISSES
        want[st].add(key(math.log10(q["tokens_per_s_per_user"]), math.log10(q["tokens_per_s_per_chip"])))
    for st, pts in want.items():
        assert {key(*p) for p in drawn(plot, st)} == pts, st
    fx, fy = plot.frontier_line.getData()
    cli_front = sorted((math.log10(q["tokens_per_s_per_user"]), math.log10(q["tokens_per_s_per_chip"]))
                       for q in res["frontier"])
    assert [key(a, b) for a, b in zip(fx, fy)] == [key(a, b) for a, b in cli_front]
    # the TPOT limit is the vertical line at 1/TPOT; the TTFT limit is drawn too
    tx, _ = plot.tpot_line.getData()
    assert np.allclose(tx, math.log10(1 / 50e-3))
    assert plot.tpot_line.isVisible() and plot.ttft_line.getData()[0].size >= 1
    legend = [label.text for _s, label in plot.legend.items]
    assert "TPOT ≤ 50 ms" in legend and "TTFT ≤ 2 s" in legend and "frontier" in legend
    # hovering a point names its batch, TP, TTFT and TPOT
    x, y = drawn(plot, MEETS)[0]
    tip = plot.tooltip_at(x, y)
    for words in ("TP ", "batch", "TTFT", "TPOT"):
        assert words in tip


@pytest.mark.parametrize("ttft, tpot", [("", "12 ms"), ("0.5", ""), ("300 ms", "9 ms")])
def test_a_point_over_a_limit_is_never_drawn_as_meeting_it(window, qtbot, ttft, tpot):
    page = show_frontier(window, qtbot)
    type_limit(qtbot, page.ttft_edit, ttft)
    type_limit(qtbot, page.tpot_edit, tpot)
    flush(window)
    lim_ttft = {"": None, "0.5": 0.5, "300 ms": 0.3}[ttft]
    lim_tpot = {"": None, "12 ms": 12e-3, "9 ms": 9e-3}[tpot]
    by_xy = {key(math.log10(q["tokens_per_s_per_user"]), math.log10(q["tokens_per_s_per_chip"])): q
             for q in page.result["points"]}
    met = [by_xy[key(*p)] for p in drawn(page.plot, MEETS)]
    missed = [by_xy[key(*p)] for p in drawn(page.plot, MISSES)]
    assert met and missed  # (each case splits the points)
    for q in met:
        assert q["fits"]
        assert lim_ttft is None or q["ttft"] <= lim_ttft
        assert lim_tpot is None or q["tpot"] <= lim_tpot
    for q in missed:
        assert q["fits"]
        assert (lim_ttft is not None and q["ttft"] > lim_ttft) or \
               (lim_tpot is not None and q["tpot"] > lim_tpot)
    fx, _ = page.plot.frontier_line.getData()
    assert {key(a, b) for a, b in zip(*page.plot.frontier_line.getData())} <= \
           {key(*p) for p in drawn(page.plot, MEETS)} and len(fx) >= 1


def test_a_bad_limit_is_refused_and_the_last_good_one_kept(window, qtbot):
    page = show_frontier(window, qtbot)
    type_limit(qtbot, page.tpot_edit, "20 ms")
    flush(window)
    before = drawn(page.plot, MEETS)
    type_limit(qtbot, page.tpot_edit, "fast")
    flush(window)
    assert page.error.isVisible() and "TPOT limit" in page.error.text() and "fast" in page.error.text()
    assert drawn(page.plot, MEETS) == before
    assert page.result["tpot_limit"] == pytest.approx(20e-3)
    type_limit(qtbot, page.tpot_edit, "")
    flush(window)
    assert not page.error.isVisible() and page.result["tpot_limit"] is None


def test_output_or_total_tokens_per_chip_labelled(window, qtbot):
    page = show_frontier(window, qtbot)
    choose(page.throughput_combo, "output")
    flush(window)
    out = sorted(y for _x, y in drawn(page.plot, MEETS) + drawn(page.plot, MISSES))
    assert "Output tokens/s per chip" in page.plot.getPlotItem().getAxis("left").labelText
    choose(page.throughput_combo, "total")
    flush(window)
    tot = sorted(y for _x, y in drawn(page.plot, MEETS) + drawn(page.plot, MISSES))
    assert "Total tokens/s per chip" in page.plot.getPlotItem().getAxis("left").labelText
    # p = 1024, d = 256: a request's tokens are 5 times its output tokens
    assert np.allclose(np.array(tot) - np.array(out), math.log10(1280 / 256))


def test_the_frontier_follows_a_dark_palette(window, qtbot):
    from PySide6.QtGui import QColor

    page = show_frontier(window, qtbot)
    assert not page.plot.style.is_dark
    with dark_palette():
        assert window.roofline_plot.style.is_dark
        assert page.plot.style is window.roofline_plot.style
        pen = page.plot.frontier_line.opts["pen"]
        assert pen.color().name() == QColor(page.plot.style.foreground).name()


def test_fit_on_the_frontier_fits_it_and_leaves_the_roofline_alone(window, qtbot):
    roof = window.roofline_plot
    roof.set_view([0.0, 2.0, 12.0, 14.0])  # a zoom of the user's
    zoomed = roof.view_range()
    page = show_frontier(window, qtbot)
    assert not window.export_action.isEnabled() and not window.copy_image_action.isEnabled()
    page.plot.vb.setRange(xRange=(1.5, 1.6), yRange=(2.0, 2.1), padding=0.0)
    page.plot.user_view = True
    qtbot.mouseClick(page.fit_button, Qt.MouseButton.LeftButton)
    assert page.plot.view_range() == pytest.approx(list(page.plot.geometry.fit))
    assert roof.view_range() == pytest.approx(zoomed)
    window.tabs.setCurrentIndex(0)
    flush(window)
    assert window.export_action.isEnabled() and window.copy_image_action.isEnabled()


def test_without_an_llm_step_the_frontier_says_what_to_add(window, qtbot):
    assert window.controller.open_path(EXAMPLES / "09-mlp-on-three-gpus.json", ask=False)
    flush(window)
    page = show_frontier(window, qtbot)
    assert page.result is None
    assert "Add an LLM step" in page.plot.message.textItem.toPlainText()
    assert page.plot.message.isVisible()
    assert all(not drawn(page.plot, st) for st in (MEETS, MISSES, UNFIT))
    # and back to an LLM step: drawn again
    assert window.controller.open_path(EIGHT_GPUS, ask=False)
    flush(window)
    QApplication.processEvents()
    assert page.result is not None and drawn(page.plot, MEETS)
    assert not page.plot.message.isVisible()


def test_the_frontier_tab_is_no_wider_than_the_sweep_tab(window):
    """Its controls wrap: the plots' tabs keep the width a small screen leaves them."""
    from roofgui.gui.main_window import TAB_SWEEP

    page = frontier_page(window)
    assert page.minimumSizeHint().width() <= window.tabs.widget(TAB_SWEEP).minimumSizeHint().width()
