"""The window's later parts by keyboard alone: Tab and Shift+Tab reach the Frontier tab's
controls and plot, the LLM Breakdown and Measured docks (the Calibration box too) and the
Tiling box when they are shown, in reading order, and skip them when they are not."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QEvent, Qt
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import QApplication, QTabBar

from gui_helpers import EXAMPLES, close_quietly, flush, open_window, window_on
from roofgui.gui.breakdown import session as breakdown_session
from roofgui.gui.calibration import ApplyDerateDialog
from roofgui.gui.levels import install_levels
from roofgui.gui.llm_views import frontier_page
from roofgui.gui.measured import install_measured
from test_keyboard import in_order, tab_round

EIGHT_GPUS = EXAMPLES / "10-llm-llama-3-70b-eight-gpus.json"
BUSY = EXAMPLES / "09-mlp-on-three-gpus.json"
CAL = Path(__file__).resolve().parents[1] / "fixtures" / "measured" / "calibration_h100.csv"


@pytest.fixture
def llm(qtbot, shipped):
    with window_on(shipped, EIGHT_GPUS) as w:
        yield w


@pytest.fixture
def busy(qtbot, shipped):
    with window_on(shipped, BUSY) as w:
        yield w


def press(w, qtbot, key: Qt.Key, text: str):
    """The shortcut ``key`` with Ctrl, as a user would (the action itself where the platform
    gives the window no focus)."""
    w.activateWindow()
    qtbot.keyClick(w, key, Qt.KeyboardModifier.ControlModifier)
    return next(a for a in w.actions() if a.shortcut().toString() == text)


def show_frontier(w, qtbot):
    action = press(w, qtbot, Qt.Key.Key_3, "Ctrl+3")
    page = frontier_page(w)
    if w.tabs.currentWidget() is not page:
        action.trigger()
    flush(w)
    assert w.tabs.currentWidget() is page
    return page


def tab_to(qtbot, target, limit=80) -> int:
    """Press Tab from the focused widget until ``target`` has the focus; how many presses."""
    for n in range(1, limit + 1):
        qtbot.keyClick(QApplication.focusWidget(), Qt.Key.Key_Tab)
        if QApplication.focusWidget() is target:
            return n
    raise AssertionError(f"Tab never reached {target.accessibleName() or target}")


def round_trip(w, qtbot):
    """Tab round from the title; Shift+Tab goes the same round backwards."""
    title = w.form.title.edit
    seen = tab_round(qtbot, title)
    assert len(seen) == len(set(seen)) and all(x.isVisible() for x in seen)
    assert tab_round(qtbot, title, Qt.Key.Key_Backtab) == seen[::-1]
    return seen


def test_tab_on_the_frontier_tab_reaches_its_controls_and_a_limit_redraws(llm, qtbot):
    page = show_frontier(llm, qtbot)
    bar = llm.tabs.tabBar()
    controls = [page.chip_combo, page.chips_spin, page.link_combo, page.ttft_edit,
                page.tpot_edit, page.throughput_combo, page.fit_button]
    seen = round_trip(llm, qtbot)
    assert in_order(seen, [bar, *controls, page.plot, llm.results.table])
    assert llm.roofline_plot not in seen and llm.sweep_controls.dim_combo not in seen
    # from the tab bar: Tab, Tab, Tab, Tab to the TTFT limit; type one, Enter
    assert page.ttft_edit.text() == "" and page.result["ttft_limit"] is None
    assert "TTFT" not in " ".join(label.text for _s, label in page.plot.legend.items)
    bar.setFocus()
    assert tab_to(qtbot, page.ttft_edit) == 4
    qtbot.keyClicks(page.ttft_edit, "300 ms")
    qtbot.keyClick(page.ttft_edit, Qt.Key.Key_Return)
    flush(llm)
    assert page.result["ttft_limit"] == pytest.approx(0.3)
    assert page.plot.ttft_line.getData()[0].size >= 1
    assert "TTFT ≤ 300 ms" in [label.text for _s, label in page.plot.legend.items]
    # the switches answer the arrows
    assert tab_to(qtbot, page.throughput_combo) == 2
    was = page.throughput_combo.currentIndex()
    qtbot.keyClick(page.throughput_combo, Qt.Key.Key_Down)
    assert page.throughput_combo.currentIndex() != was
    # back on the Roofline tab: the Frontier's controls are skipped
    llm.tabs.setCurrentIndex(0)
    flush(llm)
    seen = round_trip(llm, qtbot)
    assert in_order(seen, [bar, llm.roofline_plot, llm.results.table])
    assert not {*controls, page.plot} & set(seen)


def ring_colour(plot) -> set[str]:
    """The colours of the plot's picture on the screen one pixel inside its edges."""
    img = plot.window().grab().toImage()
    r = plot.rect().translated(plot.mapTo(plot.window(), plot.rect().topLeft()))
    edges = [(r.left() + 1, r.center().y()), (r.right() - 1, r.center().y()),
             (r.center().x(), r.top() + 1), (r.center().x(), r.bottom() - 1)]
    return {img.pixelColor(x, y).name() for x, y in edges}


def test_a_plot_or_table_tab_moves_to_shows_a_ring_until_the_focus_leaves(llm, qtbot):
    plot, summary = llm.roofline_plot, llm.results.summary
    highlight = plot.palette().color(QPalette.ColorRole.Highlight).name()
    assert ring_colour(plot) != {highlight}
    llm.tabs.tabBar().setFocus()
    assert tab_to(qtbot, plot) == 2  # (the tab bar, Fit, the plot)
    assert ring_colour(plot) == {highlight}
    qtbot.keyClick(plot, Qt.Key.Key_Tab)
    assert QApplication.focusWidget() is summary  # (the results' table: the ring moves)
    assert ring_colour(plot) != {highlight} and ring_colour(summary) == {highlight}
    page = show_frontier(llm, qtbot)
    page.fit_button.setFocus()
    qtbot.keyClick(page.fit_button, Qt.Key.Key_Tab)
    assert QApplication.focusWidget() is page.plot and ring_colour(page.plot) == {highlight}
    qtbot.keyClick(page.plot, Qt.Key.Key_Backtab)
    assert QApplication.focusWidget() is page.fit_button
    assert ring_colour(page.plot) != {highlight}


def test_tab_reaches_the_breakdown_chip_and_table_after_the_results(llm, qtbot):
    panel = breakdown_session(llm).panel
    before = round_trip(llm, qtbot)
    assert panel.chip_combo not in before and panel.table not in before  # (hidden)
    action = press(llm, qtbot, Qt.Key.Key_B, "Ctrl+B")
    if not action.isChecked():
        action.trigger()
    flush(llm)
    QApplication.processEvents()  # (the dock is raised once shown)
    assert panel.isVisible() and panel.chip_combo.isEnabled()
    seen = round_trip(llm, qtbot)
    assert in_order(seen, [llm.tabs.tabBar(), llm.roofline_plot, panel.chip_combo, panel.table])
    assert seen.index(panel.table) == len(seen) - 2  # (then the docks' tabs, the title)
    llm.tabs.tabBar().setFocus()
    tab_to(qtbot, panel.chip_combo)
    was = panel.chip_combo.currentIndex()
    qtbot.keyClick(panel.chip_combo, Qt.Key.Key_Down)
    assert panel.chip_combo.currentIndex() != was
    qtbot.keyClick(panel.chip_combo, Qt.Key.Key_Tab)
    assert QApplication.focusWidget() is panel.table
    action.trigger()  # Ctrl+B again: hidden, skipped
    flush(llm)
    assert not {panel.chip_combo, panel.table} & set(round_trip(llm, qtbot))


def test_tab_reaches_the_measured_table_and_the_calibration(busy, qtbot):
    s = install_measured(busy)
    panel, box = s.panel, s.panel.calibration
    assert not {panel.table, box.table} & set(round_trip(busy, qtbot))  # (no dock yet)
    assert s.import_files([CAL])
    flush(busy)
    QApplication.processEvents()
    assert panel.isVisible()
    seen = round_trip(busy, qtbot)
    assert in_order(seen, [busy.roofline_plot, panel.import_button, panel.clear_button,
                           panel.table, box.table, box.apply_button])
    assert busy.results.table not in seen  # (the Measured dock is in front of it)
    # Tab leaves a table at once (the arrows move in it), and Space on Apply asks for a name
    panel.table.setFocus()
    qtbot.keyClick(panel.table, Qt.Key.Key_Tab)
    assert QApplication.focusWidget() is box.table
    qtbot.keyClick(box.table, Qt.Key.Key_Tab)
    assert QApplication.focusWidget() is box.apply_button
    qtbot.keyClick(box.apply_button, Qt.Key.Key_Space)
    dlg = busy.findChild(ApplyDerateDialog)
    assert dlg is not None and dlg.isVisible()
    dlg.reject()
    busy.activateWindow()  # (the window, not the dialog gone, has the focus again)
    QApplication.processEvents()
    # the dock closed: skipped
    s.dock.toggleViewAction().trigger()
    flush(busy)
    seen = round_trip(busy, qtbot)
    assert not {panel.import_button, panel.table, box.table, box.apply_button} & set(seen)
    assert busy.results.table in seen


def test_the_calibration_row_tab_moves_to_can_be_seen_in_a_short_window(qtbot, shipped):
    for size in ((1280, 720), (1600, 1000)):
        w = open_window(shipped, restore=False, size=size)
        try:
            assert w.controller.open_path(BUSY, ask=False)
            s = install_measured(w)
            assert s.import_files([CAL])
            flush(w)
            QApplication.processEvents()
            box = s.panel.calibration
            box.apply_button.setFocus()
            qtbot.keyClick(box.apply_button, Qt.Key.Key_Backtab)
            assert QApplication.focusWidget() is box.table
            t = box.table
            assert t.viewport().height() >= t.rowHeight(0) > 0, size  # its row, whole
            assert box.detail.geometry().top() >= t.geometry().bottom(), size  # not over it
            if size[1] >= 1000:  # (room enough: every line of the fit's paragraph)
                assert box.detail.height() >= box.detail.heightForWidth(box.detail.width())
        finally:
            close_quietly(w)


def test_tab_through_a_form_wider_than_its_dock_never_scrolls_it_sideways(qtbot, shipped):
    w = open_window(shipped, restore=False, size=(1280, 720))
    try:
        assert w.controller.open_path(EIGHT_GPUS, ask=False)
        flush(w)
        area = w.form_dock.widget()
        title, ops = w.form.title.edit, w.form.ops.list
        title.setFocus()
        for _ in range(6):  # the title, the op list, its buttons, the op's type
            qtbot.keyClick(QApplication.focusWidget(), Qt.Key.Key_Tab)
            assert area.horizontalScrollBar().value() == 0
        assert ops.mapTo(area.viewport(), ops.rect().topLeft()).x() >= 0  # (its left edge)
        seen = round_trip(w, qtbot)
        assert w.form.editor.kind_combo in seen and area.horizontalScrollBar().value() == 0
    finally:
        close_quietly(w)


def test_the_arrows_on_the_docks_tabs_bring_the_results_back_in_front(busy, qtbot):
    s = install_measured(busy)
    assert s.import_files([CAL])
    flush(busy)
    QApplication.processEvents()
    seen = round_trip(busy, qtbot)
    tabs = seen[-1]  # (the last before the title: the tabs under the docks)
    assert isinstance(tabs, QTabBar) and tabs.tabText(tabs.currentIndex()) == "Measured"
    assert in_order(seen, [s.panel.calibration.apply_button, tabs])
    s.panel.table.setFocus()
    tab_to(qtbot, tabs)
    qtbot.keyClick(tabs, Qt.Key.Key_Left)
    QApplication.processEvents()
    assert tabs.tabText(tabs.currentIndex()) == "Results"
    seen = round_trip(busy, qtbot)
    assert in_order(seen, [busy.results.table, tabs]) and s.panel.table not in seen


def test_tab_reaches_the_tile_of_a_matmul_and_skips_it_for_other_ops(busy, qtbot):
    tile = install_levels(busy).box
    ed, chips = busy.form.editor, busy.chips_panel
    assert busy.doc.scenario.ops[busy.doc.scenario.selected].kind == "matmul"
    seen = round_trip(busy, qtbot)
    assert in_order(seen, [ed.kind_combo, ed.axis_combo, tile.edit, chips.filter])
    ed.link_combo.setFocus()
    tab_to(qtbot, tile.edit)
    qtbot.keyClicks(tile.edit, "128x128x64")
    qtbot.keyClick(tile.edit, Qt.Key.Key_Return)
    flush(busy)
    sc = busy.doc.scenario
    assert sc.ops[sc.selected].tile == {"bm": 128, "bn": 128, "bk": 64}
    busy.form.ops.add_op("dot")
    flush(busy)
    assert not tile.isVisible() and tile.edit not in round_trip(busy, qtbot)


def test_the_ring_outlives_a_widget_it_was_on(qtbot):
    from PySide6.QtWidgets import QListWidget, QVBoxLayout, QWidget

    from roofgui.gui.keyboard import focus_parts

    top = QWidget()
    qtbot.addWidget(top)
    lists = [QListWidget(), QListWidget()]
    lay = QVBoxLayout(top)
    for x in lists:
        lay.addWidget(x)
    top.show()
    parts = focus_parts(top)
    parts.ring.show_on(lists[0])
    lists[0].deleteLater()
    QApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
    lists[1].setFocus()
    parts.focus_moved(None, lists[1])  # (no error: a new ring, hidden)
    parts.ring.show_on(lists[1])
    assert parts.ring.isVisible() and parts.ring.geometry() == lists[1].rect()
