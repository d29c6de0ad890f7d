"""The window by keyboard alone: Tab goes round every part, the chip filter and Space act on
what is shown, and every menu item has a shortcut or a mnemonic."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from gui_helpers import flush
from roofgui.gui.live import TAB_SWEEP


def tab_round(qtbot, start, key=Qt.Key.Key_Tab, limit=80):
    """The widgets Tab (or Shift+Tab, ``key`` Backtab) visits from ``start`` until back at it."""
    start.setFocus()
    assert QApplication.focusWidget() is start
    seen = []
    for _ in range(limit):
        qtbot.keyClick(QApplication.focusWidget(), key)
        w = QApplication.focusWidget()
        if w is start:
            return seen
        seen.append(w)
    raise AssertionError(f"Tab never came back: {[x.accessibleName() for x in seen[-12:]]}")


def in_order(seen, wanted):
    at = [seen.index(w) for w in wanted]  # (each is visited)
    return at == sorted(at)


def test_tab_goes_round_the_scenario_chips_plots_and_results(window, qtbot):
    f, ed, chips, res = window.form, window.form.editor, window.chips_panel, window.results
    wanted = [f.ops.list, ed.kind_combo, ed.dim_edit("B"), ed.dim_edit("F"), ed.dtype_combo("x"),
              ed.axis_combo, chips.filter, chips.tree, chips.peak_edit, chips.link_edit,
              chips.reset_button, chips.derate_box, window.tabs.tabBar(), window.roofline_plot,
              res.table, res.working_view]
    seen = tab_round(qtbot, f.title.edit)
    assert in_order(seen, wanted)
    assert len(seen) == len(set(seen))  # once each, then back to the title
    back = tab_round(qtbot, f.title.edit, Qt.Key.Key_Backtab)
    assert back == seen[::-1]  # Shift+Tab: the same round the other way


def test_tab_reaches_the_sweep_settings_and_plot_on_the_sweep_tab(window, qtbot):
    bar = window.tabs.tabBar()
    bar.setFocus()
    qtbot.keyClick(bar, Qt.Key.Key_Right)  # the tab bar takes the arrows
    assert window.tabs.currentIndex() == TAB_SWEEP
    flush(window)
    sw = window.sweep_controls
    seen = tab_round(qtbot, window.form.title.edit)
    assert in_order(seen, [bar, sw.dim_combo, sw.start_edit, sw.y_combo, window.current_plot(),
                           window.results.table])
    assert window.roofline_plot not in seen  # (hidden on this tab)


def test_tab_follows_the_fields_of_another_kind_of_op(window, qtbot):
    window.form.ops.add_op("dot")
    flush(window)
    ed = window.form.editor
    seen = tab_round(qtbot, window.form.title.edit)
    assert in_order(seen, [ed.kind_combo, ed.dim_edit("N"), window.chips_panel.filter])
    assert all(w.isVisible() for w in seen)


def test_filter_then_tab_then_space_checks_the_chip_shown(window, qtbot):
    chips = window.chips_panel
    before = list(window.doc.scenario.chips)
    assert "tpu-v5e" in before and "b200" not in before
    chips.select_chip("tpu-v5e")
    chips.filter.setFocus()
    qtbot.keyClicks(chips.filter, "b200")
    assert "b200" in chips.visible_ids() and "tpu-v5e" not in chips.visible_ids()
    qtbot.keyClick(chips.filter, Qt.Key.Key_Tab)
    assert QApplication.focusWidget() is chips.tree
    qtbot.keyClick(chips.tree, Qt.Key.Key_Space)
    assert window.doc.scenario.chips == before + ["b200"]  # B200 on, TPU v5e (hidden) untouched
    assert chips.item("b200").checkState(0) == Qt.CheckState.Checked


def test_down_from_the_filter_enters_the_list_on_a_shown_row(window, qtbot):
    chips = window.chips_panel
    chips.filter.setFocus()
    qtbot.keyClicks(chips.filter, "h100")
    qtbot.keyClick(chips.filter, Qt.Key.Key_Down)
    assert QApplication.focusWidget() is chips.tree
    shown = chips.current_chip_id()
    assert shown in chips.visible_ids() and "h100" in shown
    was = shown in window.doc.scenario.chips
    qtbot.keyClick(chips.tree, Qt.Key.Key_Space)
    assert (shown in window.doc.scenario.chips) != was  # the row shown, and only it
    assert "tpu-v5e" in window.doc.scenario.chips


def walk(menu):
    for a in menu.actions():
        if a.menu() is not None:
            a.menu().aboutToShow.emit()  # (Open Recent and Examples fill themselves as they open)
            yield a
            yield from walk(a.menu())
        elif not a.isSeparator():
            yield a


def test_every_menu_item_has_a_shortcut_or_a_mnemonic(window):
    bar = window.menuBar()
    titles = [a.text() for a in bar.actions()]
    assert all("&" in t for t in titles), titles
    actions = [a for top in bar.actions() for a in walk(top.menu())]
    assert len(actions) > 20
    bare = [a.text() for a in actions if "&" not in a.text() and a.shortcut().isEmpty()]
    assert bare == []
    for top in bar.actions():  # a mnemonic picks one item of its menu
        keys = [a.text().split("&")[1][:1].lower() for a in top.menu().actions()
                if "&" in a.text() and a.isEnabled()]
        assert len(keys) == len(set(keys)), (top.text(), keys)
