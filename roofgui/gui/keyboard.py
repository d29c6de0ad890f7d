"""The main window's keyboard order.

Tab and Shift+Tab go round the window in reading order: the scenario (its title, the op
list and its buttons, the selected op's fields), the chips (the filter, the list, its
buttons, the what-ifs), the plots (the tab bar, Fit, the sweep's settings, the plot
itself) and the results (the table, the working, the copy buttons), then back to the
title.  The window asks :func:`next_in_chain` at each Tab, so the order follows whatever fields
the op editor shows (another kind of op, another set of data types) and the sweep plots
built since.

The parts added to the window once it is built (:mod:`roofgui.gui.features`) put their
widgets in the order with :func:`add_to_chain`: the Tiling box after the op's fields, the
Frontier tab's controls and plot after the other tabs' plots, a dock's controls after the
results.  Then come the tabs of docks tabbed together (Results, Measured, LLM Breakdown),
whose arrows bring a dock to the front.  Whatever is hidden when Tab is pressed (another
tab's page, a closed dock, a dock behind another) is skipped.  A plot draws no focus of its
own, and a table, a list or a text view only a faint one on its current cell: while Tab has
put the focus on one of them, a :class:`FocusRing` shows it.  A scroll area with no
horizontal bar (the Scenario form's) brings a field into view up or down, never sideways.
"""

from __future__ import annotations

from typing import Callable, Iterable

import shiboken6
from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtGui import QPalette, QRegion
from PySide6.QtWidgets import (QAbstractScrollArea, QApplication, QDockWidget, QScrollArea,
                               QTabBar, QToolButton, QWidget)

#: Where :func:`add_to_chain` puts a part's widgets: after the selected op's fields, after
#: the plot tabs' controls and plots, after the results.
AFTER_OP_FIELDS, AFTER_PLOTS, AFTER_RESULTS = "op fields", "plots", "results"


class FocusParts(QObject):
    """The window's later parts in its Tab order: at each place, functions that give a
    part's widgets in reading order (asked at each Tab: a plot built since is in it)."""

    def __init__(self, window: QWidget) -> None:
        super().__init__(window)
        self.setObjectName("focusParts")
        self.parts: dict[str, list[Callable[[], Iterable[QWidget]]]] = {
            AFTER_OP_FIELDS: [], AFTER_PLOTS: [], AFTER_RESULTS: []}
        self.main_window = window
        self._ring = FocusRing(window)
        QApplication.instance().focusChanged.connect(self.focus_moved)
        for area in window.findChildren(QScrollArea):
            if area.horizontalScrollBarPolicy() == Qt.ScrollBarPolicy.ScrollBarAlwaysOff:
                never_sideways(area)

    @property
    def ring(self) -> FocusRing:
        """The ring (a new one if the widget it was on has been deleted, and it with it)."""
        if not shiboken6.isValid(self._ring):
            self._ring = FocusRing(self.main_window)
        return self._ring

    def focus_moved(self, _old: QWidget | None, new: QWidget | None) -> None:
        ring = self.ring
        if new is not None and new is not ring.parentWidget():  # (None: another app)
            ring.hide()

    def widgets(self, where: str) -> list[QWidget]:
        return [x for part in self.parts[where] for x in part()]


class FocusRing(QWidget):
    """A ring of the highlight colour just inside a widget that draws little or no focus of
    its own (a plot, a table); :meth:`show_on` puts it there, in front of the widget's picture."""

    WIDTH = 2

    def __init__(self, parent: QWidget) -> None:
        super().__init__(parent)
        self.setObjectName("focusRing")
        self.setAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents)
        self.setAutoFillBackground(True)
        self.setBackgroundRole(QPalette.ColorRole.Highlight)
        self.hide()

    def show_on(self, widget: QWidget) -> None:
        if self.parentWidget() is not widget:
            self.setParent(widget)
            widget.installEventFilter(self)
        self.place()
        self.raise_()
        self.show()

    def place(self) -> None:
        r = self.parentWidget().rect()
        self.setGeometry(r)
        inner = r.adjusted(self.WIDTH, self.WIDTH, -self.WIDTH, -self.WIDTH)
        self.setMask(QRegion(r).subtracted(QRegion(inner)))  # (only the ring: the widget's
                                                             # own updates never repaint it)

    def eventFilter(self, obj, event) -> bool:  # noqa: N802
        if obj is self.parentWidget() and event.type() == QEvent.Type.Resize:
            self.place()
        return False


def never_sideways(area: QScrollArea) -> None:
    """Undo any sideways scroll of a scroll area whose horizontal bar is off: the one a Tab
    to a field wider than the area makes, which hides the labels with no bar to scroll back."""
    bar = area.horizontalScrollBar()
    bar.valueChanged.connect(lambda v: v and bar.setValue(0))


def focus_parts(window: QWidget) -> FocusParts:
    """The window's :class:`FocusParts` (made at the first call)."""
    found = window.findChild(FocusParts, "focusParts", Qt.FindChildOption.FindDirectChildrenOnly)
    return found if found is not None else FocusParts(window)


def add_to_chain(window: QWidget, where: str, widgets: Callable[[], Iterable[QWidget]]) -> None:
    """Put a part's widgets (``widgets()``, in reading order) in the window's Tab order at
    ``where`` (:data:`AFTER_OP_FIELDS`, :data:`AFTER_PLOTS` or :data:`AFTER_RESULTS`), after
    those put there before."""
    focus_parts(window).parts[where].append(widgets)


def focus_chain(w) -> list[QWidget]:
    """The widgets Tab visits, in order (hidden or disabled ones are skipped as Tab goes)."""
    form, chips, res, sweep = w.form, w.chips_panel, w.results, w.sweep_controls
    later = focus_parts(w)
    chain: list[QWidget] = [form.title.edit, form.ops.list]
    chain += form.ops.findChildren(QToolButton)  # Add, Duplicate, Rename, Remove, ▲, ▼
    chain += form.editor.focus_chain() + later.widgets(AFTER_OP_FIELDS)
    chain += [chips.filter, chips.tree, chips.spec_button, chips.new_button, chips.edit_button,
              chips.delete_button, chips.peak_edit, chips.hbm_edit, chips.link_edit,
              chips.reset_button, chips.derate_box]
    chain += [w.tabs.tabBar()]
    corner = w.tabs.cornerWidget(Qt.Corner.TopRightCorner)
    if corner is not None:
        chain.append(corner)
    chain += [sweep.dim_combo, sweep.start_edit, sweep.stop_edit, sweep.y_combo]
    chain += w.built_plots() + later.widgets(AFTER_PLOTS)
    chain += [res.summary, res.table, res.working_view, res.copy_button, res.copy_table_button]
    return chain + later.widgets(AFTER_RESULTS) + dock_tab_bars(w)


def dock_tab_bars(w) -> list[QWidget]:
    """The tab bars the window shows under docks tabbed together, top to bottom."""
    bars = w.findChildren(QTabBar, options=Qt.FindChildOption.FindDirectChildrenOnly)
    return sorted(bars, key=lambda b: (b.y(), b.x()))


def make_focusable(w) -> None:
    """The plot tabs and the plots take focus by Tab and by click."""
    w.tabs.tabBar().setFocusPolicy(Qt.FocusPolicy.StrongFocus)
    for p in w.built_plots():
        p.setFocusPolicy(Qt.FocusPolicy.StrongFocus)


def takes_tab(widget: QWidget, window: QWidget) -> bool:
    return (widget.window() is window and widget.isVisible() and widget.isEnabled()
            and bool(widget.focusPolicy() & Qt.FocusPolicy.TabFocus)
            and not behind_a_tab(widget, window))


def behind_a_tab(widget: QWidget, window: QWidget) -> bool:
    """Whether the widget is in a dock tabbed behind another (the Results behind the
    Measured panel, say): Qt keeps such a dock visible but moves it out of the window."""
    p = widget
    while p is not None and p is not window:
        if isinstance(p, QDockWidget):
            return not p.geometry().intersects(window.rect())
        p = p.parentWidget()
    return False


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
            if isinstance(cand, QAbstractScrollArea):  # (a plot, a table: the ring shows it)
                focus_parts(w).ring.show_on(cand)
            return cand
    return None
