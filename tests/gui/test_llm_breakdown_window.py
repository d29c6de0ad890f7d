"""An LLM step's breakdown in the window, driven through its real widgets: View ▸ LLM Breakdown
shows each part on the roofline (and hides them again), the parts' table sums to each phase,
and the stacked bars add up to the table's time."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QLineEdit, QTabBar

from roofgui.gui.breakdown import ACTION_TEXT, session
from roofgui.gui.breakdown_panel import VALUE_ROLE
from roofgui.plotting.breakdown_layer import LEGEND_NAME

from gui_helpers import EXAMPLES, close_quietly, flush, open_window, window_on  # noqa: E402

EIGHT_GPUS = EXAMPLES / "10-llm-llama-3-70b-eight-gpus.json"
#: Columns of the parts' table holding FLOPs, HBM bytes, link bytes, T_lower.
FLOPS, HBM, LINK, T_LOWER = 2, 3, 4, 5


@pytest.fixture
def window(qtbot, shipped):
    with window_on(shipped, EIGHT_GPUS) as w:
        yield w


def view_action(w):
    """View ▸ LLM Breakdown, found in the menu as a user would."""
    view = next(a.menu() for a in w.menuBar().actions() if a.text().replace("&", "") == "View")
    return next(a for a in view.actions() if a.text() == ACTION_TEXT)


def legend_names(plot) -> list[str]:
    return [label.text for _sample, label in plot.legend.items]


def test_toggle_shows_and_hides_the_parts_on_the_roofline(window):
    s = session(window)
    act = view_action(window)
    assert act.isCheckable() and not act.isChecked()
    assert not s.layer.item.isVisible() and len(s.layer.item.data) == 0
    assert LEGEND_NAME not in legend_names(window.roofline_plot)

    act.trigger()
    flush(window)
    assert act.isChecked() and s.dock.isVisible()
    item = s.layer.item
    assert item.isVisible()
    spots = item.points()
    # every part with FLOPs and bytes, in each phase, on each of the two chips
    with_flops = sum(1 for ph in s.breakdown.phases for r in ph.rows
                     if r.flops > 0 and r.hbm_bytes > 0)
    assert len(spots) == with_flops > 0
    assert LEGEND_NAME in legend_names(window.roofline_plot)
    # hovering a part names it, with its FLOPs, bytes, T_lower, bound and share
    spot = spots[0]
    tip = s.layer.tooltip_at(spot.pos().x(), spot.pos().y())
    assert tip is not None
    for words in ("FLOPs", "HBM", "T_lower", "-bound", "% of the phase"):
        assert words in tip
    assert any(r.label in tip for ph in s.breakdown.phases for r in ph.rows)

    act.trigger()
    flush(window)
    assert not act.isChecked() and not s.dock.isVisible()
    assert not item.isVisible()
    assert LEGEND_NAME not in legend_names(window.roofline_plot)


def test_checking_the_toggle_brings_the_panel_in_front_of_the_results(window, qtbot):
    act = view_action(window)
    act.setChecked(True)  # (as a restored session or a script would)
    flush(window)
    QApplication.processEvents()  # (the panel is raised once shown)
    assert front_dock_tab(window) == "LLM Breakdown"
    assert session(window).dock.isVisible() and session(window).layer.item.isVisible()


def front_dock_tab(w) -> str | None:
    """The text of the current tab of the window's tabbed docks."""
    for bar in w.findChildren(QTabBar):
        if bar.parent() is w and bar.count() > 1:
            return bar.tabText(bar.currentIndex())
    return None


def test_the_parts_table_sums_to_each_phase_and_the_bars_to_the_table(window):
    view_action(window).trigger()
    flush(window)
    panel = session(window).panel
    ev = window.evaluation
    for chip_index in range(panel.chip_combo.count()):
        panel.chip_combo.setCurrentIndex(chip_index)  # each chip, as the user picks it
        chip_id = panel.chip_combo.currentData()
        table = panel.table
        assert table.topLevelItemCount() == 2  # prefill and decode
        for i in range(table.topLevelItemCount()):
            top = table.topLevelItem(i)
            phase = top.text(0).split()[0].lower()
            entry = next(e for e in ev.entries if e.chip_id == chip_id and e.phase == phase)
            work = entry.analysis.work
            kids = [top.child(j) for j in range(top.childCount())]
            assert len(kids) >= 8
            for col, step in ((FLOPS, work.flops), (HBM, work.hbm_bytes), (LINK, work.net_bytes)):
                parts = sum(k.data(col, VALUE_ROLE) for k in kids)
                assert parts == pytest.approx(top.data(col, VALUE_ROLE), rel=1e-12)
                assert top.data(col, VALUE_ROLE) == pytest.approx(float(step), rel=1e-12)
            t_parts = sum(k.data(T_LOWER, VALUE_ROLE) for k in kids)
            assert t_parts == pytest.approx(top.data(T_LOWER, VALUE_ROLE), rel=1e-12)
            # the stacked bar of this phase: one segment per part, adding up to the table
            segs = panel.bars.segments[phase]
            assert [g.label for g in segs] == [k.text(0) for k in kids]
            assert sum(g.width for g in segs) == pytest.approx(t_parts, rel=1e-12)
            bar = panel.bars.bars[phase]
            assert list(bar.opts["width"]) == pytest.approx([100 * g.width / t_parts for g in segs])
            assert sum(bar.opts["width"]) == pytest.approx(100.0)
            # and the step's own lower bound is no more than the parts one after another
            assert float(entry.analysis.result.t_lower) <= t_parts * (1 + 1e-12)
            shares = sum(k.data(7, VALUE_ROLE) for k in kids)
            assert shares == pytest.approx(1.0)


def test_the_breakdown_follows_the_selected_llm_op_and_an_edit(window, qtbot):
    view_action(window).trigger()
    flush(window)
    panel = session(window).panel
    before = panel.table.topLevelItem(1).data(FLOPS, VALUE_ROLE)
    field = window.form.editor.current_page().findChild(QLineEdit, "dim_B")
    assert field.text() == "64"
    field.selectAll()
    qtbot.keyClicks(field, "128")
    qtbot.keyClick(field, Qt.Key.Key_Tab)
    flush(window)
    after = panel.table.topLevelItem(1).data(FLOPS, VALUE_ROLE)
    assert after == pytest.approx(before * 2, rel=0.02)  # decode FLOPs grow with the batch
    assert "Llama-3 70B serving" in panel.heading.text()


def test_the_toggle_is_kept_in_the_settings(qtbot, shipped):
    w = open_window(shipped, restore=False)
    try:
        assert w.controller.open_path(EIGHT_GPUS, ask=False)
        view_action(w).trigger()
        flush(w)
    finally:
        close_quietly(w)
    w2 = open_window(shipped, restore=False)
    try:
        assert w2.controller.open_path(EIGHT_GPUS, ask=False)
        flush(w2)
        assert view_action(w2).isChecked()
        assert session(w2).layer.item.isVisible()
    finally:
        close_quietly(w2)


def test_a_scenario_without_an_llm_step_says_so(qtbot, shipped):
    w = open_window(shipped, restore=False)
    try:
        assert w.controller.open_path(EXAMPLES / "09-mlp-on-three-gpus.json", ask=False)
        view_action(w).trigger()
        flush(w)
        s = session(w)
        assert "Add an LLM step" in s.panel.heading.text()
        assert s.panel.table.topLevelItemCount() == 0
        assert not s.layer.item.isVisible()
    finally:
        close_quietly(w)
