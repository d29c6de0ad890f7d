"""The main window's keyboard order.

Tab and Shift+Tab go round the window in reading order: the scenario (its title, the op
list and its buttons, the selected op's fields), the chips (the filter, the list, its
buttons, the what-ifs), the plots (the tab bar, Fit, the sweep's settings, the plot
itself) and the results (the table, the working, the copy buttons), then back to the
title.  The window asks :func:`next_in_chain` at each Tab, so the order follows whatever fields
the op editor shows (another kind of op, another set of data types) and the sweep plots
built since.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QToolButton, QWidget


def focus_chain(w) -> list[QWidget]:
    """The widgets Tab visits, in order (hidden or disabled ones are skipped as Tab goes)."""
    form, chips, res, sweep = w.form, w.chips_panel, w.results, w.sweep_controls
    chain: list[QWidget] = [form.title.edit, form.ops.list]
    chain += form.ops.findChildren(QToolButton)  # Add, Duplicate, Rename, Remove, ▲, ▼
    chain += form.editor.focus_chain()
    chain += [chips.filter, chips.tree, chips.spec_button, chips.new_button, chips.edit_button,
              chips.delete_button, chips.peak_edit, chips.hbm_edit, chips.link_edit,
              chips.reset_button, chips.derate_box]
    chain += [w.tabs.tabBar()]
    corner = w.tabs.cornerWidget(Qt.Corner.TopRightCorner)
    if corner is not None:
        chain.append(corner)
    chain += [sweep.dim_combo, sweep.start_edit, sweep.stop_edit, sweep.y_combo]
    chain += w.built_plots()
    chain += [res.summary, res.table, res.working_view, res.copy_button, res.copy_table_button]
    return chain


def make_focusable(w) -> None:
    """The plot tabs and the plots take focus by Tab and by click."""
    w.tabs.tabBar().setFocusPolicy(Qt.FocusPolicy.StrongFocus)
    for p in w.built_plots():
        p.setFocusPolicy(Qt.FocusPolicy.StrongFocus)


def takes_tab(widget: QWidget, window: QWidget) -> bool:
    return (widget.window() is window and widget.isVisible() and widget.isEnabled()
            and bool(widget.focusPolicy() & Qt.FocusPolicy.TabFocus))


def next_in_chain(w, forward: bool) -> QWidget | None:
    """The widget Tab (or Shift+Tab) moves to from the focused one, in the order of
    :func:`focus_chain`; None when the focus is outside it (a floating dock, a dialog)."""
    chain = focus_chain(w)
    at = QApplication.focusWidget()
    while at is not None and at not in chain:  # (the line edit inside a combo, say)
        at = at.parentWidget()
    if at is None:
        return None
    i = chain.index(at)
    step = 1 if forward else -1
    for k in range(1, len(chain) + 1):
        cand = chain[(i + step * k) % len(chain)]
        if takes_tab(cand, w):
            return cand
    return None
