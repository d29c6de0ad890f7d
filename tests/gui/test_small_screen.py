"""A laptop's screen: the first launch fits the screen, and at 1280×720 the plot, the form
and the results table show without horizontal scrolling."""

from __future__ import annotations

from PySide6.QtWidgets import QApplication, QComboBox

from gui_helpers import EXAMPLES, close_quietly, flush, open_window

MLP = EXAMPLES / "09-mlp-on-three-gpus.json"  # three chips, three ops, one sharded


def test_the_first_launch_fits_the_screen(qtbot, shipped):
    w = open_window(shipped, restore=False)  # (nothing saved: the first launch)
    try:
        avail = w.screen().availableGeometry()
        assert w.height() == int(avail.height() * 0.9)  # not a fixed 900
        assert w.width() == max(int(avail.width() * 0.9), w.minimumSizeHint().width())
        assert avail.contains(w.geometry().center())
    finally:
        close_quietly(w)


def test_at_1280_by_720_the_plot_form_and_table_show_without_scrolling_sideways(qtbot, shipped):
    w = open_window(shipped, restore=False, size=(1152, 648))  # (90 % of 1280×720)
    try:
        w.controller.open_path(MLP, ask=False)
        for _ in range(3):
            flush(w)
            QApplication.processEvents()
        form_scroll = w.form_dock.widget()
        assert form_scroll.horizontalScrollBar().maximum() == 0  # every field whole
        assert w.form.editor.dim_edit("B").visibleRegion().boundingRect().width() \
            == w.form.editor.dim_edit("B").width()
        table = w.results.table
        assert table.columnCount() == 3 and table.horizontalScrollBar().maximum() == 0
        assert w.roofline_plot.width() >= 400 and w.roofline_plot.height() >= 250
        working = w.results.working_view
        assert working.isVisible() and working.width() >= 100
        assert w.chips_panel.tree.isVisible() and w.chips_panel.derate_box.isVisible()
    finally:
        close_quietly(w)


def test_at_1280_by_720_an_llm_steps_fields_fit_the_form(qtbot, shipped):
    """The LLM step's choices (its network-time models run to 60 characters) are elided in
    their boxes, whole in their lists: the form never runs past its dock."""
    w = open_window(shipped, restore=False, size=(1152, 648))
    try:
        w.controller.open_path(EXAMPLES / "10-llm-llama-3-70b-eight-gpus.json", ask=False)
        for _ in range(3):
            flush(w)
            QApplication.processEvents()
        form_scroll = w.form_dock.widget()
        assert form_scroll.horizontalScrollBar().maximum() == 0
        assert w.form.width() <= form_scroll.viewport().width()
        combo = next(c for c in w.form.findChildren(QComboBox)
                     if c.accessibleName() == "Network time")
        longest = max((combo.itemText(i) for i in range(combo.count())), key=len)
        assert len(longest) > 40  # (the choice that used to widen the form)
        assert combo.isVisible() and combo.width() <= form_scroll.viewport().width()
        assert w.roofline_plot.width() >= 400
    finally:
        close_quietly(w)


def test_the_working_stays_where_it_was_scrolled_while_typing(qtbot, shipped):
    """Typing replaces the working text at each keystroke: scrolled down, it stays where the
    user scrolled it (its wrapped lines laid out first); at the top, at the top."""
    w = open_window(shipped, restore=False, size=(1152, 648))
    try:
        w.controller.open_path(MLP, ask=False)
        flush(w)
        bar = w.results.working_view.verticalScrollBar()
        assert bar.maximum() > 40  # (three chips' working: far taller than its pane)
        edit = w.form.editor.dim_edit("B")
        for at in (0, bar.maximum() // 2):
            bar.setValue(at)
            for text in ("2048", "4096"):
                edit.setFocus()
                edit.selectAll()
                qtbot.keyClicks(edit, text)
                flush(w)
                assert bar.value() == at, (at, text)
    finally:
        close_quietly(w)
